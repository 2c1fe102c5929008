//! Latency and throughput statistics, and the run result in the shape of fio's JSON output
//! (`jobs[].read/write/trim` with `clat_ns` percentiles) plus an `ssd` section.

use crate::fiohist::{LatBuckets, PlatHist};
use crate::sampling::SampleStats;
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// fio's default percentile list.
pub const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
];

/// Statistics of one operation type of one job.
#[derive(Clone, Debug)]
pub struct OpStats {
    pub count: u64,
    pub bytes: u64,
    pub min: u64,
    pub max: u64,
    sum: u128,
    spread: crate::sampling::Welford,
    hist: Histogram<u64>,
    /// fio's log-linear bins (json+).
    plat: PlatHist,
    /// fio's latency_ns / latency_us / latency_ms buckets.
    pub buckets: LatBuckets,
    /// Bandwidth (KiB/s) and IOPS of each `bw_avg_time` / `iops_avg_time` window of the job.
    pub bw_samples: SampleStats,
    pub iops_samples: SampleStats,
}

impl Default for OpStats {
    fn default() -> Self {
        OpStats {
            count: 0,
            bytes: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            spread: Default::default(),
            hist: Histogram::new(3).expect("histogram"),
            plat: PlatHist::default(),
            buckets: LatBuckets::default(),
            bw_samples: SampleStats::default(),
            iops_samples: SampleStats::default(),
        }
    }
}

impl OpStats {
    /// Statistics of an operation a job issues: its histogram made at once for latencies up
    /// to `max_ns` (it still grows past them). Grown from its smallest as latencies come in,
    /// it would double its counts' capacity each time, holding up to twice what it counts
    /// and leaving each smaller copy to the allocator.
    pub fn for_latencies_up_to(max_ns: u64) -> OpStats {
        let mut hist = Histogram::new_with_bounds(1, max_ns.max(2), 3).expect("histogram");
        hist.auto(true);
        OpStats {
            hist,
            ..OpStats::default()
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct LatStats {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    #[serde(rename = "N")]
    pub n: u64,
    pub percentile: Percentiles,
    /// fio's json+ `bins`: bin value (ns) → I/Os, non-empty bins only; `clat_ns` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bins: Option<Ordered<u64>>,
}

impl LatStats {
    /// Statistics of `n` latencies that are all 0.
    fn zeros(n: u64) -> LatStats {
        LatStats {
            min: 0,
            max: 0,
            mean: 0.0,
            stddev: 0.0,
            n,
            percentile: Percentiles::default(),
            bins: None,
        }
    }
}

/// Key → value, serialised as a JSON object in the order given (as fio orders percentiles,
/// bins and buckets).
#[derive(Clone, Debug, PartialEq)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V> Default for Ordered<V> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

/// Percentile → value, in ascending percentile order.
pub type Percentiles = Ordered<u64>;

/// A JSON object read back in its order (a run's result sent between processes).
impl<'de, V: Deserialize<'de>> Deserialize<'de> for Ordered<V> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> serde::de::Visitor<'de> for Visit<V> {
            type Value = Ordered<V>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Ordered<V>, A::Error> {
                let mut out = Vec::with_capacity(m.size_hint().unwrap_or(0));
                while let Some(e) = m.next_entry()? {
                    out.push(e);
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(Visit(std::marker::PhantomData))
    }
}

impl<V: Serialize> Serialize for Ordered<V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct OpResult {
    pub io_bytes: u64,
    pub io_kbytes: u64,
    /// Bytes per second.
    pub bw_bytes: u64,
    /// KiB per second (fio's `bw`).
    pub bw: u64,
    pub iops: f64,
    /// Milliseconds.
    pub runtime: u64,
    pub total_ios: u64,
    /// Short and dropped I/Os: none in a simulation.
    pub short_ios: u64,
    pub drop_ios: u64,
    /// Submission latency: from the job issuing an I/O until the device takes it. The
    /// simulated host hands a request to the device the moment it issues it (no driver or
    /// submission queue is modelled), so every I/O's is 0; `N` counts them.
    pub slat_ns: LatStats,
    pub clat_ns: LatStats,
    /// slat + clat, equal to clat.
    pub lat_ns: LatStats,
    /// Bandwidth samples (KiB/s), one per `bw_avg_time` of simulated time.
    pub bw_min: u64,
    pub bw_max: u64,
    /// Mean sample over the group's bandwidth in the direction, percent.
    pub bw_agg: f64,
    pub bw_mean: f64,
    pub bw_dev: f64,
    pub bw_samples: u64,
    /// IOPS samples, one per `iops_avg_time` of simulated time.
    pub iops_min: u64,
    pub iops_max: u64,
    pub iops_mean: f64,
    pub iops_stddev: f64,
    pub iops_samples: u64,
    /// Left out of the JSON: a direction fio's `unified_rw_reporting=mixed` reports only in
    /// the job's `mixed` section.
    #[serde(skip)]
    pub hidden: bool,
}

impl OpResult {
    /// Whether the JSON leaves this direction out ([`OpResult::hidden`]).
    pub fn is_hidden(&self) -> bool {
        self.hidden
    }
}

impl OpStats {
    #[inline]
    pub fn record(&mut self, bytes: u64, lat_ns: u64) {
        self.count += 1;
        self.bytes += bytes;
        self.min = self.min.min(lat_ns);
        self.max = self.max.max(lat_ns);
        self.sum += lat_ns as u128;
        self.spread.add_n(lat_ns as f64, 1);
        // `record` grows the auto-resizing histogram; `saturating_record` would clamp instead.
        if self.hist.record(lat_ns.max(1)).is_err() {
            self.hist.saturating_record(lat_ns.max(1));
        }
        self.plat.record(lat_ns);
        self.buckets.record(lat_ns);
    }

    /// Sum of the latencies (ns).
    pub fn lat_sum(&self) -> u128 {
        self.sum
    }

    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// The direction's result over `runtime_ns`; `group_kib_s` is the bandwidth of the job's
    /// reporting group in this direction (for `bw_agg`); its completion latencies at the
    /// percentiles `pct` (fio's `percentile_list`, [`PERCENTILES`] by default).
    pub fn result(&self, runtime_ns: u64, group_kib_s: u64, pct: &[f64]) -> OpResult {
        let n = self.count;
        let mean = self.mean();
        let sd = self.spread.stddev();
        let mut percentile = Percentiles::default();
        if n > 0 {
            for &p in pct {
                // The histogram answers with its bucket's upper value (3 significant digits):
                // clamp to the exact extremes so that min <= every percentile <= max.
                let v = self.hist.value_at_quantile(p / 100.0).clamp(self.min, self.max);
                percentile.0.push((format!("{p:.6}"), v));
            }
        }
        let lat = LatStats {
            min: if n == 0 { 0 } else { self.min },
            max: self.max,
            mean: round3(mean),
            stddev: round3(sd),
            n,
            percentile,
            bins: None,
        };
        let mut clat = lat.clone();
        // As fio: no bins for a direction without I/O.
        clat.bins = (n > 0).then(|| Ordered(self.plat.bins().into_iter().map(|(v, c)| (v.to_string(), c)).collect()));
        let secs = runtime_ns as f64 / 1e9;
        let bw_bytes = if runtime_ns == 0 {
            0
        } else {
            (self.bytes as f64 / secs) as u64
        };
        OpResult {
            io_bytes: self.bytes,
            io_kbytes: self.bytes / 1024,
            bw_bytes,
            bw: bw_bytes / 1024,
            iops: if runtime_ns == 0 { 0.0 } else { round3(n as f64 / secs) },
            runtime: runtime_ns / 1_000_000,
            total_ios: n,
            short_ios: 0,
            drop_ios: 0,
            slat_ns: LatStats::zeros(n),
            clat_ns: clat,
            lat_ns: lat,
            // A direction without I/O has no samples (as in fio).
            bw_min: if n == 0 { 0 } else { self.bw_samples.min },
            bw_max: if n == 0 { 0 } else { self.bw_samples.max },
            bw_agg: if n == 0 || group_kib_s == 0 {
                0.0
            } else {
                round6(100.0 * self.bw_samples.mean() / group_kib_s as f64)
            },
            bw_mean: if n == 0 { 0.0 } else { round6(self.bw_samples.mean()) },
            bw_dev: if n == 0 { 0.0 } else { round6(self.bw_samples.stddev()) },
            bw_samples: if n == 0 { 0 } else { self.bw_samples.n },
            iops_min: if n == 0 { 0 } else { self.iops_samples.min },
            iops_max: if n == 0 { 0 } else { self.iops_samples.max },
            iops_mean: if n == 0 { 0.0 } else { round6(self.iops_samples.mean()) },
            iops_stddev: if n == 0 {
                0.0
            } else {
                round6(self.iops_samples.stddev())
            },
            iops_samples: if n == 0 { 0 } else { self.iops_samples.n },
            hidden: false,
        }
    }
}

/// Round to 3 decimals so that JSON output is stable and readable.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Round to 6 decimals, as fio prints its floating-point figures.
pub fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// How an open-loop job kept up with its arrivals.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct OpenLoopReport {
    /// Mean latency of the first and the last 1,000 requests (ns).
    pub first_mean_lat_ns: f64,
    pub last_mean_lat_ns: f64,
    /// Most requests outstanding at once.
    pub max_outstanding: u64,
    /// False when latency kept growing: the device could not keep up with the arrival rate.
    pub keeping_up: bool,
}

/// fio's `sync` section: no syncs are simulated.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct SyncResult {
    pub total_ios: u64,
    pub lat_ns: LatStats,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobResult {
    pub jobname: String,
    /// Reporting group: counts up at each job with `stonewall` or `new_group`.
    pub groupid: u32,
    pub error: u32,
    /// fio's ETA: 0, the job is over.
    pub eta: u64,
    /// Seconds of simulated time from the job's start to its last completion, rounded up.
    pub elapsed: u64,
    #[serde(rename = "job options")]
    pub job_options: Ordered<String>,
    #[serde(default, skip_serializing_if = "OpResult::is_hidden")]
    pub read: OpResult,
    #[serde(default, skip_serializing_if = "OpResult::is_hidden")]
    pub write: OpResult,
    #[serde(default, skip_serializing_if = "OpResult::is_hidden")]
    pub trim: OpResult,
    /// fio's `unified_rw_reporting`: every direction's I/O in one section (with `mixed`, the
    /// only one; with `both`, beside the others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mixed: Option<OpResult>,
    pub sync: SyncResult,
    /// Milliseconds.
    pub job_runtime: u64,
    /// Host CPU and process counters of fio: nothing runs on a host CPU here, all 0.
    pub usr_cpu: f64,
    pub sys_cpu: f64,
    pub ctx: u64,
    pub majf: u64,
    pub minf: u64,
    /// Share of I/Os (percent) issued while the clone had 1, 2–3, 4–7, ... I/Os outstanding,
    /// the new one included.
    pub iodepth_level: Ordered<f64>,
    /// I/Os per submission and per reaping of completions: the simulated host submits and
    /// reaps one at a time (fio's 1–4 bucket).
    pub iodepth_submit: Ordered<f64>,
    pub iodepth_complete: Ordered<f64>,
    /// Share of I/Os (percent) by latency, all directions: fio's buckets.
    pub latency_ns: Ordered<f64>,
    pub latency_us: Ordered<f64>,
    pub latency_ms: Ordered<f64>,
    /// fio's latency target settings (`latency_target` is not supported: 0, 100 %).
    pub latency_depth: u32,
    pub latency_target: u64,
    pub latency_percentile: f64,
    pub latency_window: u64,
    /// fio's count of the zone resets a zbd job issued (its jobs with zonemode=zbd only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_resets: Option<u64>,
    pub ssdlab: JobExtra,
}

/// fio's `iodepth_level` buckets: the bucket of a depth.
pub fn depth_bucket(depth: u64) -> usize {
    match depth {
        0..=1 => 0,
        2..=3 => 1,
        4..=7 => 2,
        8..=15 => 3,
        16..=31 => 4,
        32..=63 => 5,
        _ => 6,
    }
}

/// Counts as percentages of their total, under fio's names.
pub fn percentages(names: &[&str], counts: &[u64]) -> Ordered<f64> {
    percentages_of(names, counts, counts.iter().sum())
}

/// Counts as percentages of `total`, under fio's names.
pub fn percentages_of(names: &[&str], counts: &[u64], total: u64) -> Ordered<f64> {
    Ordered(
        names
            .iter()
            .zip(counts)
            .map(|(n, &c)| {
                let p = if total == 0 {
                    0.0
                } else {
                    round6(100.0 * c as f64 / total as f64)
                };
                (n.to_string(), p)
            })
            .collect(),
    )
}

pub const DEPTH_NAMES: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];
pub const SUBMIT_NAMES: [&str; 7] = ["0", "4", "8", "16", "32", "64", ">=64"];

impl JobResult {
    /// fio's `unified_rw_reporting`: `mixed`, every direction's I/O as one section, reported
    /// alone (`mode` "mixed") or beside the directions' own ("both").
    pub fn unify(&mut self, mixed: OpResult, mode: &str) {
        if mode == "mixed" {
            for d in [&mut self.read, &mut self.write, &mut self.trim] {
                d.hidden = true;
            }
        }
        self.mixed = Some(mixed);
    }

    /// The job-level fields that follow from its directions' statistics.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        jobname: String,
        groupid: u32,
        elapsed_ns: u64,
        job_options: Vec<(String, String)>,
        ops: [OpResult; 3],
        buckets: &LatBuckets,
        depths: &[u64; 7],
        runtime_ns: u64,
        iodepth: u32,
        ssdlab: JobExtra,
    ) -> JobResult {
        let [read, write, trim] = ops;
        let ios = read.total_ios + write.total_ios + trim.total_ios;
        let batch = [0, ios, 0, 0, 0, 0, 0];
        let [ns, us, ms] = buckets.named();
        let pct = |v: Vec<(String, u64)>| {
            let names: Vec<&str> = v.iter().map(|x| x.0.as_str()).collect();
            let counts: Vec<u64> = v.iter().map(|x| x.1).collect();
            percentages_of(&names, &counts, buckets.total())
        };
        JobResult {
            jobname,
            groupid,
            error: 0,
            eta: 0,
            elapsed: elapsed_ns.div_ceil(1_000_000_000),
            job_options: Ordered(job_options),
            read,
            write,
            trim,
            mixed: None,
            sync: SyncResult {
                total_ios: 0,
                lat_ns: LatStats::zeros(0),
            },
            job_runtime: runtime_ns / 1_000_000,
            usr_cpu: 0.0,
            sys_cpu: 0.0,
            ctx: 0,
            majf: 0,
            minf: 0,
            iodepth_level: percentages(&DEPTH_NAMES, depths),
            iodepth_submit: percentages(&SUBMIT_NAMES, &batch),
            iodepth_complete: percentages(&SUBMIT_NAMES, &batch),
            latency_ns: pct(ns),
            latency_us: pct(us),
            latency_ms: pct(ms),
            latency_depth: iodepth,
            latency_target: 0,
            latency_percentile: 100.0,
            latency_window: 0,
            zone_resets: None,
            ssdlab,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct JobExtra {
    /// When the job started (0, or for a job behind a `stonewall`, when the jobs before it
    /// had finished) and its last completion, simulated ns.
    pub start_ns: u64,
    pub last_completion_ns: u64,
    /// The clones this entry reports (fio's `jobs=`): 1 for a clone of its own, more under
    /// `group_reporting`.
    pub numjobs: u32,
    pub iodepth: u32,
    pub stream: u32,
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<OpenLoopReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<serde_json::Value>,
    /// Options of the job file accepted with no effect on a simulated drive (fio's option
    /// table: host CPU placement, priorities, clocks, buffers, logging of the host).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignored_options: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Histo {
    /// Upper bound (exclusive) of each bucket, with its count.
    pub buckets: Vec<(u64, u64)>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SsdResult {
    pub device: String,
    pub logical_bytes: u64,
    pub physical_bytes: u64,
    pub alpha: f64,
    pub gc_policy: String,
    /// The firmware design (`device.ftl.design`) and its own counters over the window.
    pub firmware: serde_json::Value,
    /// Superblock placement (absent with per-plane frontiers): the policy, its counters and
    /// the superblocks' over the window, the GC victims by percentage of valid units.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub placement: Option<serde_json::Value>,
    /// Redundancy scheme against read/write interference (absent without one): the scheme,
    /// its space cost and its counters over the window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redundancy: Option<serde_json::Value>,
    /// P/E cycles a block takes before it is retired (`device.nand.endurance`).
    pub endurance: u32,
    pub host: serde_json::Value,
    pub flash: serde_json::Value,
    pub waf: f64,
    pub gc: serde_json::Value,
    pub wear: serde_json::Value,
    /// Scheduling policy, suspension, allocation.
    pub scheduler: serde_json::Value,
    /// Reads that met programs or erases on their die, the time they waited, suspensions.
    pub interference: serde_json::Value,
    /// Busy time over the measured window's length, per resource kind (each in [0, 1]).
    pub utilisation: serde_json::Value,
    /// The measured window: from the last ramp time to the device's last activity.
    pub span: serde_json::Value,
    /// Host bytes and requests per second over the busy span and over the host-visible span.
    pub throughput: serde_json::Value,
    /// (simulated ns, free blocks) samples.
    pub free_blocks_over_time: Vec<(u64, u64)>,
    /// (simulated ns, WAF of the interval since the previous sample), at the same sampling
    /// points; 0 for an interval without host writes.
    pub waf_over_time: Vec<(u64, f64)>,
    /// (simulated ns, mean latency in ns of the measured I/Os completed since the previous
    /// sample), at the same sampling points (none for an interval without completions).
    pub latency_over_time: Vec<(u64, f64)>,
    /// (simulated ns, bytes per second of the measured I/Os completed since the previous
    /// sample), at the same sampling points.
    pub bandwidth_over_time: Vec<(u64, f64)>,
    pub precondition: serde_json::Value,
    /// Things the reader of the result should know (reads of never-written data, ...).
    pub warnings: Vec<String>,
    pub sim_time_ns: u64,
    pub requests: u64,
    pub wall_time_s: f64,
    pub sim_requests_per_wall_s: f64,
}

/// The fio release whose JSON output this project's follows (keys, types, units).
pub const FIO_FORMAT: &str = "fio-3.33";

/// fio's `time` for time stamp 0 (its `ctime` form).
pub const EPOCH_TIME: &str = "Thu Jan  1 00:00:00 1970";

/// fio's `disk_util` entry for the simulated device, over the measured window.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct DiskUtil {
    pub name: String,
    /// Measured host reads and writes completed.
    pub read_ios: u64,
    pub write_ios: u64,
    /// Requests merged by a block layer: none is modelled.
    pub read_merges: u64,
    pub write_merges: u64,
    /// Sum of the reads' (writes') latencies, ms.
    pub read_ticks: u64,
    pub write_ticks: u64,
    /// Sum of all measured I/Os' latencies (the time-weighted queue length), ms.
    pub in_queue: u64,
    /// Share (0 to 1) of the measured host-visible span with at least one request outstanding.
    /// The share of the measured window the device was busy, in percent as fio's (the
    /// utilisations of the `ssd` section are shares of 1).
    pub util: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunResult {
    /// fio's version key, naming ssdlab and the fio release whose JSON format this follows
    /// (`FIO_FORMAT`), so that fio's tools (fio-plot) take the file for fio's.
    #[serde(rename = "fio version")]
    pub fio_version: String,
    /// fio's time stamps of the run. A simulated run has no date: they give its start at
    /// simulated time 0, the Unix epoch, so that equal runs write equal files.
    pub timestamp: u64,
    pub timestamp_ms: u64,
    pub time: String,
    /// The `[global]` options of the fio job file the jobs came from, as given (options
    /// with a value; fio leaves out bare flags too). Absent for a run file's own jobs.
    #[serde(rename = "global options", default, skip_serializing_if = "Option::is_none")]
    pub global_options: Option<Ordered<String>>,
    #[serde(rename = "ssdlab version")]
    pub version: String,
    pub jobs: Vec<JobResult>,
    pub disk_util: Vec<DiskUtil>,
    pub ssd: SsdResult,
    /// An array's members, each with its own `ssd` section (absent for a device alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub members: Option<Vec<MemberResult>>,
    /// Section 4's model of the array from its members' curves (absent unless every member
    /// has curves).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub array_model: Option<ArrayModel>,
}

/// Seed 000's section 4 throughputs for an array's members at the run's read share,
/// request size, depth per member and pattern, beside the simulated throughput.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ArrayModel {
    /// The volume's read share by requests over the measured window.
    pub read_share: f64,
    pub pattern: String,
    pub bs: u64,
    pub depth_per_member: u32,
    /// The members read-only under RODI (the layout's, or for another layout the member of
    /// highest read-only gain).
    pub readonly: Vec<usize>,
    /// TP0: the slowest member at the read share, MB/s.
    pub tp0: f64,
    /// TP_RAID = N × TP0.
    pub raid0_mb_s: f64,
    /// TP1, TP2 and TP_RODI = k·TP1 + (N − k)·TP2 (absent when the read share is below what
    /// the read-only members make alone).
    pub tp1: Option<f64>,
    pub tp2: Option<f64>,
    pub rodi_mb_s: Option<f64>,
    /// The simulated volume's reads and writes over its host-visible span, MB/s.
    pub simulated_mb_s: f64,
}

/// One member of an array over the measured window.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MemberResult {
    pub member: usize,
    pub name: String,
    /// `rodi`: a member holding the read-only extents.
    pub readonly: bool,
    /// Member requests (parts of volume requests) issued in the window, by operation.
    pub read_requests: u64,
    pub write_requests: u64,
    pub trim_requests: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Reads among the member's read and write requests.
    pub read_share: f64,
    /// The member's bytes read and written per second over the volume's busy span, MB/s
    /// (10^6 bytes).
    pub mb_s: f64,
    /// A simulated member's own section: its flash, GC, wear and utilisation; host and
    /// throughput are what it was given (absent for a measured drive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ssd: Option<SsdResult>,
}

/// Add `b` into `a` leaf by leaf: numbers add, lists concatenate, tables merge, anything
/// else keeps `a`'s.
fn add_json(a: &mut serde_json::Value, b: &serde_json::Value) {
    use serde_json::Value as V;
    match (a, b) {
        (V::Number(x), V::Number(y)) => {
            *x = match (x.as_u64(), y.as_u64()) {
                (Some(p), Some(q)) => p.saturating_add(q).into(),
                _ => serde_json::Number::from_f64(x.as_f64().unwrap_or(0.0) + y.as_f64().unwrap_or(0.0))
                    .unwrap_or_else(|| 0.into()),
            }
        }
        (V::Object(x), V::Object(y)) => {
            for (k, v) in y {
                match x.get_mut(k) {
                    Some(xv) => add_json(xv, v),
                    None => {
                        x.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (V::Array(x), V::Array(y)) => x.extend(y.iter().cloned()),
        _ => {}
    }
}

/// The members' sections added up (`None` when no member has one).
fn sum_sections(
    members: &[MemberResult],
    f: impl Fn(&SsdResult) -> Option<&serde_json::Value>,
) -> Option<serde_json::Value> {
    let mut it = members.iter().filter_map(|m| m.ssd.as_ref().and_then(&f));
    let mut acc = it.next()?.clone();
    for v in it {
        add_json(&mut acc, v);
    }
    Some(acc)
}

/// An array's `placement` section: each member's own (`members`: its handles, reclaim groups
/// and per-slot lists, which do not add across drives: one member's GC slot is not another's
/// handle), beside the totals that do add: the policy (or "mixed"), superblocks opened,
/// victims and their valid-share histogram, the events and FDP's statistics log page.
fn volume_placement(all: &[MemberResult]) -> Option<serde_json::Value> {
    use serde_json::{json, Value};
    let each: Vec<(&MemberResult, &Value)> = all
        .iter()
        .filter_map(|m| Some((m, m.ssd.as_ref()?.placement.as_ref()?)))
        .collect();
    let first = each.first()?.1["policy"].clone();
    let mut o = serde_json::Map::new();
    o.insert(
        "policy".into(),
        if each.iter().all(|(_, p)| p["policy"] == first) {
            first
        } else {
            json!("mixed")
        },
    );
    for k in [
        "superblocks_opened",
        "victims",
        "writes_without_placement_id",
        "invalid_placement_id_events",
        "ru_not_fully_written_events",
    ] {
        if each.iter().any(|(_, p)| p.get(k).is_some()) {
            let total: u64 = each.iter().filter_map(|(_, p)| p.get(k)?.as_u64()).sum();
            o.insert(k.into(), json!(total));
        }
    }
    // The victims' valid shares, percent by percent.
    let mut hist: Vec<u64> = Vec::new();
    for (_, p) in &each {
        for (i, c) in p["victim_valid_percent"].as_array().into_iter().flatten().enumerate() {
            if hist.len() <= i {
                hist.resize(i + 1, 0);
            }
            hist[i] += c.as_u64().unwrap_or(0);
        }
    }
    o.insert("victim_valid_percent".into(), json!(hist));
    let mut log: Option<Value> = None;
    for (_, p) in &each {
        if let Some(v) = p.get("fdp_statistics") {
            match &mut log {
                Some(l) => add_json(l, v),
                None => log = Some(v.clone()),
            }
        }
    }
    if let Some(l) = log {
        o.insert("fdp_statistics".into(), l);
    }
    let members: Vec<Value> = each
        .iter()
        .map(|(m, p)| {
            let mut q = json!({"member": m.member, "name": m.name});
            add_json(&mut q, p);
            q
        })
        .collect();
    o.insert("members".into(), Value::Array(members));
    Some(Value::Object(o))
}

/// An array's `ssd` section: `base` (the first member's section over the volume's requests,
/// which gives the volume's span, throughput and time series) with the members' device
/// sections added up. Counters add; per-die and histogram lists are the members' in order;
/// utilisations are means over the members; WAF is the members' programmed units over their
/// host-written units; erase counts' minimum and maximum are over all members.
pub fn volume_ssd(mut base: SsdResult, layout: &str, logical_bytes: u64, all: &[MemberResult]) -> SsdResult {
    let names: Vec<&str> = all.iter().map(|m| m.name.as_str()).collect();
    base.device = format!("{layout}: {}", names.join(", "));
    base.logical_bytes = logical_bytes;
    base.warnings = all
        .iter()
        .filter_map(|m| Some((m, m.ssd.as_ref()?)))
        .flat_map(|(m, s)| {
            s.warnings
                .iter()
                .map(move |w| format!("member {} ({}): {w}", m.member, m.name))
        })
        .collect();
    // The simulated members.
    let sims: Vec<(&MemberResult, &SsdResult)> = all.iter().filter_map(|m| Some((m, m.ssd.as_ref()?))).collect();
    if sims.is_empty() {
        return base;
    }
    let members = all;
    let n = sims.len() as f64;
    let sum = |f: &dyn Fn(&SsdResult) -> Option<&serde_json::Value>| sum_sections(members, f);
    base.physical_bytes = sims.iter().map(|m| m.1.physical_bytes).sum();
    base.alpha = if logical_bytes == 0 {
        0.0
    } else {
        (base.physical_bytes as f64 / logical_bytes as f64 * 10000.0).round() / 10000.0
    };
    let first = &sims[0].1.gc_policy;
    base.gc_policy = if sims.iter().all(|m| &m.1.gc_policy == first) {
        first.clone()
    } else {
        "mixed".to_string()
    };
    base.endurance = sims.iter().map(|m| m.1.endurance).min().unwrap_or(0);
    base.firmware = sum(&|s| Some(&s.firmware)).unwrap_or_default();
    base.placement = volume_placement(members);
    base.redundancy = sum(&|s| s.redundancy.as_ref());
    base.host = sum(&|s| Some(&s.host)).unwrap_or_default();
    base.flash = sum(&|s| Some(&s.flash)).unwrap_or_default();
    base.gc = sum(&|s| Some(&s.gc)).unwrap_or_default();
    base.interference = sum(&|s| Some(&s.interference)).unwrap_or_default();
    let ic = &mut base.interference;
    let (reads, wait) = (
        ic["conflicting_reads"].as_u64().unwrap_or(0),
        ic["conflict_wait_ns"].as_u64().unwrap_or(0),
    );
    ic["mean_conflict_wait_ns"] = serde_json::json!(if reads == 0 {
        0.0
    } else {
        round3(wait as f64 / reads as f64)
    });
    let mut util = sum(&|s| Some(&s.utilisation)).unwrap_or_default();
    if let Some(o) = util.as_object_mut() {
        for v in o.values_mut() {
            *v = serde_json::json!(round3(v.as_f64().unwrap_or(0.0) / n));
        }
    }
    base.utilisation = util;
    let mut wear = sum(&|s| Some(&s.wear)).unwrap_or_default();
    let pick =
        |k: &str, f: fn(u64, u64) -> u64| sims.iter().filter_map(|m| m.1.wear[k].as_u64()).reduce(f).unwrap_or(0);
    wear["erase_min"] = pick("erase_min", u64::min).into();
    wear["erase_max"] = pick("erase_max", u64::max).into();
    wear["erase_mean"] = serde_json::json!(round3(wear["erase_mean"].as_f64().unwrap_or(0.0) / n));
    base.wear = wear;
    let units = |s: &SsdResult| {
        s.host["write_units"].as_u64().unwrap_or(0) as f64 * s.host["unit_bytes"].as_u64().unwrap_or(0) as f64
    };
    let written: f64 = sims.iter().map(|m| units(m.1)).sum();
    base.waf = if written == 0.0 {
        0.0
    } else {
        round3(sims.iter().map(|m| m.1.waf * units(m.1)).sum::<f64>() / written)
    };
    // Unit sizes and scheduler settings are each member's own: the first member's, with the
    // units added.
    base.host["unit_bytes"] = sims[0].1.host["unit_bytes"].clone();
    base.scheduler = sims[0].1.scheduler.clone();
    base.scheduler["units"] = sims
        .iter()
        .map(|m| m.1.scheduler["units"].as_u64().unwrap_or(0))
        .sum::<u64>()
        .into();
    base
}

impl RunResult {
    /// The result without fio's json+ latency bins (fio's plain JSON output).
    pub fn without_bins(&self) -> RunResult {
        let mut r = self.clone();
        for j in &mut r.jobs {
            for op in [&mut j.read, &mut j.write, &mut j.trim] {
                op.clat_ns.bins = None;
            }
        }
        r
    }

    /// The result as JSON with the wall-clock fields zeroed: equal for equal configs and seeds.
    pub fn deterministic_json(&self) -> String {
        let mut r = self.clone();
        let members = r.members.iter_mut().flatten().filter_map(|m| m.ssd.as_mut());
        for ssd in std::iter::once(&mut r.ssd).chain(members) {
            ssd.wall_time_s = 0.0;
            ssd.sim_requests_per_wall_s = 0.0;
            if let Some(o) = ssd.precondition.as_object_mut() {
                o.remove("wall_time_s");
            }
        }
        serde_json::to_string_pretty(&r).expect("serialisable")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_follow_the_recorded_values() {
        let mut s = OpStats::default();
        for v in 1..=10_000u64 {
            s.record(4096, v * 1000);
        }
        let r = s.result(1_000_000_000, 0, &PERCENTILES);
        let p = |k: &str| r.clat_ns.percentile.0.iter().find(|(q, _)| q == k).unwrap().1 as f64;
        assert!((p("50.000000") / 5_000_000.0 - 1.0).abs() < 0.002);
        assert!((p("99.000000") / 9_900_000.0 - 1.0).abs() < 0.002);
        assert!((p("1.000000") / 100_000.0 - 1.0).abs() < 0.002);
        assert_eq!(r.clat_ns.min, 1000);
        assert_eq!(r.clat_ns.max, 10_000_000);
        assert!((r.clat_ns.mean - 5_000_500.0).abs() < 1.0);
        assert_eq!(r.total_ios, 10_000);
        assert_eq!(r.iops, 10_000.0);
        assert_eq!(r.bw_bytes, 4096 * 10_000);
        // lat = slat + clat with slat 0 for every I/O.
        assert_eq!((r.slat_ns.n, r.slat_ns.max), (10_000, 0));
        assert_eq!(r.lat_ns.mean, r.clat_ns.mean);
        // json+ bins: 1000 ns is exact-bin territory no more (msb 9, 3 error bits): the bin
        // [1000, 1008) printed as 1004 holds the single 1000 ns sample; all 10,000 counted.
        let bins = r.clat_ns.bins.as_ref().unwrap();
        assert_eq!(bins.0[0], ("1004".to_string(), 1));
        assert_eq!(bins.0.iter().map(|b| b.1).sum::<u64>(), 10_000);
        assert!(r.lat_ns.bins.is_none());
    }

    #[test]
    fn samples_and_depths_reach_the_result() {
        let mut s = OpStats::default();
        s.record(4096, 100);
        for v in [1000, 3000, 2000] {
            s.bw_samples.add(v);
        }
        let r = s.result(1_500_000_000, 4000, &PERCENTILES);
        assert_eq!((r.bw_min, r.bw_max, r.bw_samples), (1000, 3000, 3));
        assert_eq!(r.bw_mean, 2000.0);
        assert_eq!(r.bw_dev, 1000.0);
        // Mean 2000 KiB/s of a group doing 4000 KiB/s.
        assert_eq!(r.bw_agg, 50.0);
        // A direction without I/O reports no samples.
        let mut t = OpStats::default();
        t.bw_samples.add(0);
        assert_eq!(t.result(1_000_000_000, 4000, &PERCENTILES).bw_samples, 0);
        // IOPS samples likewise: 250, 750, 500 have mean 500 and sample deviation 250.
        for v in [250, 750, 500] {
            s.iops_samples.add(v);
        }
        let r = s.result(1_500_000_000, 4000, &PERCENTILES);
        assert_eq!((r.iops_min, r.iops_max, r.iops_samples), (250, 750, 3));
        assert_eq!((r.iops_mean, r.iops_stddev), (500.0, 250.0));
        t.iops_samples.add(7);
        let r = t.result(1_000_000_000, 4000, &PERCENTILES);
        assert_eq!((r.iops_min, r.iops_max, r.iops_samples, r.iops_mean), (0, 0, 0, 0.0));
        // fio's iodepth_level buckets: up to 1, 2-3, 4-7, 8-15, 16-31, 32-63, >=64.
        for (bucket, lo, hi) in [
            (0, 0, 1),
            (1, 2, 3),
            (2, 4, 7),
            (3, 8, 15),
            (4, 16, 31),
            (5, 32, 63),
            (6, 64, u64::MAX),
        ] {
            assert_eq!((depth_bucket(lo), depth_bucket(hi)), (bucket, bucket), "{lo}..={hi}");
        }
        let p = percentages(&DEPTH_NAMES, &[1, 0, 0, 0, 0, 3, 0]);
        assert_eq!(p.0[5], ("32".to_string(), 75.0));
    }
}
