//! Latency and throughput statistics, and the run result in the shape of fio's JSON output
//! (`jobs[].read/write/trim` with `clat_ns` percentiles) plus an `ssd` section.

use hdrhistogram::Histogram;
use serde::Serialize;

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
    sumsq: f64,
    hist: Histogram<u64>,
}

impl Default for OpStats {
    fn default() -> Self {
        OpStats {
            count: 0,
            bytes: 0,
            min: u64::MAX,
            max: 0,
            sum: 0,
            sumsq: 0.0,
            hist: Histogram::new(3).expect("histogram"),
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LatStats {
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
    #[serde(rename = "N")]
    pub n: u64,
    pub percentile: Percentiles,
}

/// Percentile → value, serialised as a JSON object in ascending percentile order (as fio does).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Percentiles(pub Vec<(String, u64)>);

impl Serialize for Percentiles {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
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
    pub clat_ns: LatStats,
    pub lat_ns: LatStats,
}

impl OpStats {
    #[inline]
    pub fn record(&mut self, bytes: u64, lat_ns: u64) {
        self.count += 1;
        self.bytes += bytes;
        self.min = self.min.min(lat_ns);
        self.max = self.max.max(lat_ns);
        self.sum += lat_ns as u128;
        self.sumsq += (lat_ns as f64) * (lat_ns as f64);
        // `record` grows the auto-resizing histogram; `saturating_record` would clamp instead.
        if self.hist.record(lat_ns.max(1)).is_err() {
            self.hist.saturating_record(lat_ns.max(1));
        }
    }

    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    pub fn result(&self, runtime_ns: u64) -> OpResult {
        let n = self.count;
        let mean = self.mean();
        let var = if n > 1 {
            ((self.sumsq - n as f64 * mean * mean) / (n - 1) as f64).max(0.0)
        } else {
            0.0
        };
        let mut percentile = Percentiles::default();
        if n > 0 {
            for p in PERCENTILES {
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
            stddev: round3(var.sqrt()),
            n,
            percentile,
        };
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
            clat_ns: lat.clone(),
            lat_ns: lat,
        }
    }
}

/// Round to 3 decimals so that JSON output is stable and readable.
pub fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// How an open-loop job kept up with its arrivals.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct OpenLoopReport {
    /// Mean latency of the first and the last 1,000 requests (ns).
    pub first_mean_lat_ns: f64,
    pub last_mean_lat_ns: f64,
    /// Most requests outstanding at once.
    pub max_outstanding: u64,
    /// False when latency kept growing: the device could not keep up with the arrival rate.
    pub keeping_up: bool,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct JobResult {
    pub jobname: String,
    pub groupid: u32,
    pub error: u32,
    /// Milliseconds.
    pub job_runtime: u64,
    pub read: OpResult,
    pub write: OpResult,
    pub trim: OpResult,
    pub ssdlab: JobExtra,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct JobExtra {
    pub numjobs: u32,
    pub iodepth: u32,
    pub stream: u32,
    pub source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_loop: Option<OpenLoopReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trace: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Histo {
    /// Upper bound (exclusive) of each bucket, with its count.
    pub buckets: Vec<(u64, u64)>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SsdResult {
    pub device: String,
    pub logical_bytes: u64,
    pub physical_bytes: u64,
    pub alpha: f64,
    pub gc_policy: String,
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
    pub precondition: serde_json::Value,
    /// Things the reader of the result should know (reads of never-written data, ...).
    pub warnings: Vec<String>,
    pub sim_time_ns: u64,
    pub requests: u64,
    pub wall_time_s: f64,
    pub sim_requests_per_wall_s: f64,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RunResult {
    #[serde(rename = "ssdlab version")]
    pub version: String,
    pub jobs: Vec<JobResult>,
    pub ssd: SsdResult,
}

impl RunResult {
    /// The result as JSON with the wall-clock fields zeroed: equal for equal configs and seeds.
    pub fn deterministic_json(&self) -> String {
        let mut r = self.clone();
        r.ssd.wall_time_s = 0.0;
        r.ssd.sim_requests_per_wall_s = 0.0;
        if let Some(o) = r.ssd.precondition.as_object_mut() {
            o.remove("wall_time_s");
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
        let r = s.result(1_000_000_000);
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
    }
}
