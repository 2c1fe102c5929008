//! Seed 004: HotR, hot-read replication against read/write interference, beside a baseline
//! without redundancy, Rails (mirrored chips, 4+4 groups) and TTFlash (parity, 4+1).
//!
//! Device: the `hotr` preset (the MSR SSD extension of DiskSim the seed used: 8 chips, each on
//! its own 40 MB/s bus, the chip the unit a program blocks, write-through, first come first
//! served; TLC timing from the cell table). Every scheme keeps the host capacity; its extra
//! chips are its space cost (Rails 2, TTFlash 1.25, HotR one spare chip: 1.125; HotR with its
//! scratch space in over-provisioning, `hotr-op`: 10 % of the host capacity, 1.10).
//!
//! Workloads: the public traces of `crate::trace::catalogue` (Financial1's head, three MSR Cambridge
//! cuts, TPC-C, WebSearch, CloudPhysics, and the DiskSim validation traces Postmark, IOzone
//! and its `ascii.trace`), replayed open loop with addresses wrapped into the capacity, and
//! the HPC-like generator at the seed's "HPC 46" (`[job.hpc]` defaults but its rate). The
//! seed's four workloads are Fin2, MSR Cambridge enterprise traces and HPC 46 (its Table III,
//! an image our copy lacks, would name the MSR volumes): the claims average over ours from
//! those sources ([`SEED_WORKLOADS`]: fin1, the closest shared trace to Fin2, being the same
//! institution's OLTP application; the three MSR cuts; HPC 46); the other traces are reported
//! beside them.
//!
//! Intensity: the seed's Figure 1(b) finds 33.0 % of reads blocked by writes on average. Each
//! workload is replayed at the speed (HPC 46: the arrival rate) that brings the baseline's
//! blocked share to that level: a bisection over the speed, each step a baseline run, up to
//! the speed at which the offered flash work would keep the chips [`MAX_LOAD`] busy on
//! average (beyond it a run measures queueing, not interference). The same rule for every
//! workload; the achieved share is reported as a calibration check.
//!
//! HotR's R-LRU lists track as many pages as the workload has read-intensive pages (the hot
//! read pages the lists identify; the page classes of its Figure 1(c)), half and twice that as
//! the other readings; 10 % of them may hold a copy (the seed migrates "10%的热读数据页"), the
//! budget swept over 1, 5, 10 and 20 %. HPC 46's hot set is read uniformly (the seed gives no
//! popularity inside it); Zipf popularity inside it (`hot_zipf` θ) is swept beside.
//! The interference-free system of Figure 1(b) is the baseline with reads first and programs
//! and erases suspended at no cost (the `ideal` back end).
//!
//! Back ends: the preset's first-come-first-served (the seed's DiskSim), and read priority
//! with program and erase suspension (MQSim's suspend latencies): how much of HotR's gain a
//! controller that already favours reads leaves.

use super::{Analysis, Claim, Condition, Experiment, Figure, Point, PointResult, Rule, Scale, Series, Work};
use crate::trace::stats::{AccessClasses, ReReads, StatsOptions, TraceStats};
use crate::{Error, Result};
use std::path::{Path, PathBuf};

pub struct HotR;

const PRESET: &str = "hotr";

/// The schemes: (name, `[device.redundancy]` body).
pub const SCHEMES: [(&str, &str); 9] = [
    ("baseline", ""),
    ("hotr", "scheme = \"hotr\""),
    ("hotr-conflict", "scheme = \"hotr\"\nmigrate = \"conflict\""),
    ("hotr-op", "scheme = \"hotr\"\nscratch = \"op\""),
    ("hotr-slc", "scheme = \"hotr\"\nscratch_cell = \"slc\""),
    ("hotr-2chips", "scheme = \"hotr\"\nspare_chips = 2"),
    ("rails", "scheme = \"rails\""),
    ("rails-flash", "scheme = \"rails\"\nack = \"flash\""),
    ("ttflash", "scheme = \"ttflash\""),
];

/// The schemes of the seed's figures (HotR as its section III.B has it).
const COMPARED: [&str; 4] = ["baseline", "hotr", "rails", "ttflash"];

/// Back ends: (name, `[device.scheduler]` body).
pub const BACKENDS: [(&str, &str); 2] = [
    ("fcfs", ""),
    (
        "rps",
        "policy = \"read-priority\"\nsuspend = [\"program\", \"erase\"]\nprogram_suspend_time = \"100us\"\nerase_suspend_time = \"700us\"",
    ),
];

/// The interference-free system of Figure 1(b) ("所有被干扰的读请求都能得到服务而不会被任何干扰
/// 的写请求阻塞"): reads first, programs and erases suspended at no cost, a write held back up to
/// the longest wait the scheduler takes (1 s). Run for the baseline only.
const IDEAL: (&str, &str) = (
    "ideal",
    "policy = \"read-priority\"\nsuspend = [\"program\", \"erase\"]\nprogram_suspend_time = \"0us\"\nerase_suspend_time = \"0us\"\nresume_time = \"0us\"\nmax_write_wait = \"1s\"",
);

/// HotR's copy budget, a share of the pages its lists track: the seed's 10 % and the sweep
/// around it.
const BUDGET: f64 = 0.10;
const SWEEP: [f64; 4] = [0.01, 0.05, 0.10, 0.20];
/// The lists' length in the workload's read-intensive pages: the claims' reading (the lists
/// hold the hot read pages they identify, "10 % of" which are migrated) and the two others.
const TRACK: f64 = 1.0;
const TRACKS: [(f64, &str, &str); 2] = [
    (
        0.5,
        "track-half",
        "R-LRU lists tracking half as many pages as the workload has read-intensive pages",
    ),
    (
        2.0,
        "track-twice",
        "R-LRU lists tracking twice as many pages as the workload has read-intensive pages",
    ),
];
/// Zipf exponents of the popularity inside HPC 46's hot set beside the uniform reading.
const THETAS: [f64; 4] = [0.6, 0.9, 1.2, 1.5];

/// Cells of Figure 9 besides the default TLC.
const CELLS: [&str; 4] = ["slc", "mlc", "tlc", "qlc"];

/// A workload: a public trace (`crate::trace::catalogue`) or the HPC-like generator.
#[derive(Clone, Copy)]
pub struct Workload {
    pub name: &'static str,
    /// Trace file name, or "" for the generator.
    pub trace: &'static str,
    pub text: &'static str,
}

pub const WORKLOADS: [Workload; 11] = [
    Workload {
        name: "fin1",
        trace: "example.ascii",
        text: "Financial1 (UMass OLTP), first 10,000 requests: the closest shared trace to the seed's Fin2",
    },
    Workload {
        name: "msr-rw20",
        trace: "msr.cut.per_10k.rw_20_80.105.trace",
        text: "MSR Cambridge cut, 20 % reads",
    },
    Workload {
        name: "msr-rw40",
        trace: "msr.cut.per_10k.rw_40_60.1370.trace",
        text: "MSR Cambridge cut, 41 % reads",
    },
    Workload {
        name: "msr-rand",
        trace: "msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
        text: "MSR Cambridge cut, busiest random, 83 % reads",
    },
    Workload {
        name: "tpcc",
        trace: "tpcc-small.trace",
        text: "TPC-C (MQSim sample)",
    },
    Workload {
        name: "websearch",
        trace: "wsrch-small.trace",
        text: "WebSearch (UMass), reads only",
    },
    Workload {
        name: "cloudphysics",
        trace: "cloudPhysicsIO.csv",
        text: "CloudPhysics VM trace",
    },
    Workload {
        name: "postmark",
        trace: "ssd-postmark-aligned2.trace",
        text: "DiskSim SSD validation: Postmark",
    },
    Workload {
        name: "iozone",
        trace: "ssd-iozone-aligned2-100K.trace",
        text: "DiskSim SSD validation: IOzone, writes only",
    },
    Workload {
        name: "disksim-ascii",
        trace: "ascii.trace",
        text: "DiskSim validation trace ascii.trace",
    },
    Workload {
        name: "hpc46",
        trace: "",
        text: "HPC-like generator, 46 % reads",
    },
];

/// Workloads the quick run replays (the first requests of each trace).
const QUICK: [&str; 3] = ["fin1", "msr-rw40", "hpc46"];

/// The seed's workload sources (see the module notes): the claims average over these.
pub const SEED_WORKLOADS: [&str; 5] = ["fin1", "msr-rw20", "msr-rw40", "msr-rand", "hpc46"];

/// Share of the baseline's flash reads blocked by a program or erase that every workload is
/// replayed at: the seed's Figure 1(b) average.
pub const TARGET_BLOCKED: f64 = 33.0;
/// Average flash load the replay speed never exceeds (see the module notes).
const MAX_LOAD: f64 = 0.9;
/// HPC 46's arrival rate at speed 1 (the generator's default), requests per second.
const HPC_RATE: f64 = 2000.0;

fn workloads(scale: Scale) -> Vec<Workload> {
    WORKLOADS
        .iter()
        .copied()
        .filter(|w| scale == Scale::Full || QUICK.contains(&w.name))
        .collect()
}

/// The traces folder (`crate::trace::catalogue::dir`), once every trace the experiment
/// replays is there (else one error naming every missing one and the command that fetches
/// them all).
pub fn traces_base() -> Result<PathBuf> {
    let names: Vec<&str> = WORKLOADS.iter().map(|w| w.trace).filter(|t| !t.is_empty()).collect();
    crate::trace::catalogue::all_there(&names).map_err(|e| Error::Invalid(format!("experiment hotr: {e}")))
}

fn trace_path(base: &Path, w: &Workload) -> PathBuf {
    base.join(w.trace)
}

/// Requests each replay or generator run issues (None: the whole trace).
fn max_requests(scale: Scale, w: &Workload) -> Option<u64> {
    match (scale, w.trace.is_empty()) {
        (Scale::Full, true) => Some(400_000),
        (Scale::Full, false) => None,
        (Scale::Quick, true) => Some(20_000),
        (Scale::Quick, false) => Some(3_000),
    }
}

/// A trace's statistics (the whole file).
fn stats(base: &Path, w: &Workload) -> Result<TraceStats> {
    let mut reader = crate::trace::open(trace_path(base, w), crate::trace::Format::Auto)?;
    TraceStats::compute(&mut reader, &StatsOptions::default())
}

/// The offered flash work of a workload at speed 1, as a share of the chips' time (TLC; every
/// 4 KiB read or programmed on one of the chips, with its transfer): over a trace's span, or
/// HPC 46's rate times its mean request.
fn offered_load(base: &Path, w: &Workload, cfg: &crate::config::DeviceConfig, chips: f64) -> Result<f64> {
    let xfer = crate::host::xfer_ns(4096, cfg.nand.channel_rate.0) as f64;
    let (tr, tp) = (cfg.read_ns()[0] as f64, cfg.program_ns()[0] as f64);
    if w.trace.is_empty() {
        let h = crate::workload::hpc::HpcJob::default();
        let pages = h.bs.0.div_ceil(4096) as f64;
        let per = pages * (h.read_share * (tr + xfer) + (1.0 - h.read_share) * (tp + xfer));
        return Ok(HPC_RATE * per / 1e9 / chips);
    }
    let reader = crate::trace::open(trace_path(base, w), crate::trace::Format::Auto)?;
    let (mut total, mut first, mut last) = (0.0, None, 0u64);
    for r in reader {
        let r = r?;
        let pages = r.len.div_ceil(4096) as f64;
        total += match r.op {
            crate::request::Op::Read => pages * (tr + xfer),
            crate::request::Op::Write | crate::request::Op::Append => pages * (tp + xfer),
            crate::request::Op::Trim | crate::request::Op::Zone(..) => 0.0,
        };
        last = r.time_ns.max(last);
        first.get_or_insert(last);
    }
    let span = (last - first.unwrap_or(0)).max(1) as f64;
    Ok(total / (span * chips))
}

/// The `[[job]]` of a workload replayed at `speed` (HPC 46: its rate times `speed`).
fn job(scale: Scale, w: &Workload, speed: f64) -> String {
    job_z(scale, w, speed, 0.0)
}

/// [`job`], with Zipf popularity `theta` inside HPC 46's hot set (0: uniform).
fn job_z(scale: Scale, w: &Workload, speed: f64, theta: f64) -> String {
    let n = max_requests(scale, w);
    if w.trace.is_empty() {
        return format!(
            "[[job]]\nname = \"{}\"\nsize = \"256MiB\"\nnumber_ios = {}\n[job.hpc]\nrate = {}\nhot_zipf = {theta}\n",
            w.name,
            n.unwrap_or(0),
            HPC_RATE * speed
        );
    }
    let mut t = format!(
        "[[job]]\nname = \"{}\"\n[job.trace]\nfile = \"@{}\"\naddress = \"wrap\"\nspeed = {speed}\n",
        w.name, w.trace
    );
    if let Some(n) = n {
        t += &format!("max_requests = {n}\n");
    }
    t
}

/// [`search_speed`], once per workload and scale in a process (the command asks for the
/// points more than once).
fn calibrate(scale: Scale, base: &Path, w: &Workload) -> Result<(f64, f64)> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    /// (scale and workload, traces' base) → (speed, blocked share).
    type Found = HashMap<(String, PathBuf), (f64, f64)>;
    static DONE: OnceLock<Mutex<Found>> = OnceLock::new();
    let key = (format!("{scale:?}/{}", w.name), base.to_path_buf());
    let done = DONE.get_or_init(Default::default);
    if let Some(v) = done.lock().expect("no panic holds it").get(&key) {
        return Ok(*v);
    }
    let v = search_speed(scale, base, w)?;
    done.lock().expect("no panic holds it").insert(key, v);
    Ok(v)
}

/// The speed that brings the baseline's blocked reads closest to [`TARGET_BLOCKED`] (see the
/// module notes), rounded to three significant digits, and the share measured there: a
/// bisection on the logarithm of the speed, stopped within half a point of the target or when
/// the digits run out (a trace whose share jumps across the target keeps the closer side).
fn search_speed(scale: Scale, base: &Path, w: &Workload) -> Result<(f64, f64)> {
    let cfg = crate::config::load_config_with(PRESET, &[])?;
    let chips = (cfg.device.geometry.channels * cfg.device.geometry.ways) as f64;
    let cap = MAX_LOAD / offered_load(base, w, &cfg.device, chips)?;
    let round = |s: f64| {
        let m = 10f64.powf(s.log10().floor() - 2.0);
        (s / m).round() * m
    };
    let blocked_at = |s: f64| -> Result<f64> {
        let text = format!("[device]\npreset = \"{PRESET}\"\n{}", job(scale, w, s));
        let config = crate::config::parse_config(&text, &format!("experiment hotr, calibrating {}", w.name), base)?;
        Ok(blocked_of(&crate::run_config(&config)?.ssd))
    };
    let (mut lo, mut hi) = (cap / 4096.0, cap);
    let mut best = (round(hi), blocked_at(round(hi))?);
    if best.1.is_nan() || best.1 <= TARGET_BLOCKED {
        return Ok(best);
    }
    for _ in 0..14 {
        let mid = round((lo * hi).sqrt());
        let b = blocked_at(mid)?;
        if (b - TARGET_BLOCKED).abs() < (best.1 - TARGET_BLOCKED).abs() {
            best = (mid, b);
        }
        if (b - TARGET_BLOCKED).abs() <= 0.5 || mid == round(lo) || mid == round(hi) {
            break;
        }
        if b < TARGET_BLOCKED {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(best)
}

/// HotR's keys for lists tracking `track` × the workload's read-intensive pages (as
/// `track_share`, a share of the device's `host` pages), `budget` of them with a copy.
fn hotr_keys(classes: &AccessClasses, track: f64, budget: f64, host: f64) -> String {
    let t = (track * classes.read_intensive.pages as f64 / host).clamp(1.0 / host, 1.0);
    format!("track_share = {t}\nhot_share = {budget}")
}

/// The name of HPC 46 with Zipf popularity `theta` inside its hot set.
fn theta_name(theta: f64) -> String {
    format!("hpc46-z{theta}")
}

/// A workload's replay and how it re-reads (labels of its points).
struct Replay<'a> {
    name: &'a str,
    job: String,
    speed: f64,
    rereads: ReReads,
}

fn point(base: &Path, w: &Replay, scheme: (&str, &str), backend: (&str, &str), cell: &str) -> Result<Point> {
    let (job, speed) = (&w.job, w.speed);
    let mut text = format!("[device]\npreset = \"{PRESET}\"\n[device.nand]\ncell = \"{cell}\"\n");
    if !scheme.1.is_empty() {
        text += &format!("[device.redundancy]\n{}\n", scheme.1);
    }
    if !backend.1.is_empty() {
        text += &format!("[device.scheduler]\n{}\n", backend.1);
    }
    text += job;
    let name = format!("experiment hotr, {}/{}/{}/{cell}", w.name, scheme.0, backend.0);
    let config = crate::config::parse_config(&text, &name, base)?;
    Ok(Point {
        id: format!("{}/{}/{}/{cell}", w.name, scheme.0, backend.0),
        labels: vec![
            ("device".into(), PRESET.into()),
            ("scheme".into(), scheme.0.into()),
            ("workload".into(), w.name.into()),
            ("backend".into(), backend.0.into()),
            ("cell".into(), cell.into()),
            ("speed".into(), format!("{speed:.4}")),
            ("reread_2nd".into(), format!("{:.4}", w.rereads.second_share)),
            ("reread_later".into(), format!("{:.4}", w.rereads.later_share)),
            ("reread_gap".into(), w.rereads.median_gap_requests.to_string()),
        ],
        work: Work::Ssd(Box::new(config)),
    })
}

/// The scheme name of HotR with a copy budget of `capacity` (the default's is `hotr`).
fn sweep_name(capacity: f64) -> String {
    if capacity == BUDGET {
        "hotr".into()
    } else {
        format!("hotr-{}pc", (capacity * 100.0).round())
    }
}

fn find<'a>(runs: &'a [PointResult], w: &str, scheme: &str, backend: &str, cell: &str) -> &'a PointResult {
    let id = format!("{w}/{scheme}/{backend}/{cell}");
    runs.iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("point {id} declared"))
}

/// Mean completion latency of every request (reads and writes), µs.
pub fn mean_us(r: &PointResult) -> f64 {
    let (mut n, mut sum) = (0u64, 0.0);
    for j in r.result.jobs() {
        for o in [&j.read, &j.write] {
            n += o.total_ios;
            sum += o.clat_ns.mean * o.total_ios as f64;
        }
    }
    sum / n.max(1) as f64 / 1e3
}

/// Mean completion latency of the reads alone, µs (NaN without reads).
pub fn mean_read_us(r: &PointResult) -> f64 {
    let (mut n, mut sum) = (0u64, 0.0);
    for j in r.result.jobs() {
        n += j.read.total_ios;
        sum += j.read.clat_ns.mean * j.read.total_ios as f64;
    }
    if n == 0 {
        f64::NAN
    } else {
        sum / n as f64 / 1e3
    }
}

/// Completion latency percentiles of every request, reads and writes together, µs: from
/// fio's log-linear histogram bins of both directions (within their 1/64 resolution).
pub fn percentiles_us(r: &PointResult, ps: &[f64]) -> Vec<f64> {
    tail_us(r, ps, false)
}

/// [`percentiles_us`] of the reads alone.
pub fn read_percentiles_us(r: &PointResult, ps: &[f64]) -> Vec<f64> {
    tail_us(r, ps, true)
}

fn tail_us(r: &PointResult, ps: &[f64], reads_only: bool) -> Vec<f64> {
    let mut bins: Vec<(u64, u64)> = Vec::new();
    for j in r.result.jobs() {
        for o in [&j.read, &j.write].into_iter().take(if reads_only { 1 } else { 2 }) {
            if let Some(b) = &o.clat_ns.bins {
                bins.extend(b.0.iter().filter_map(|(v, c)| v.parse::<u64>().ok().map(|v| (v, *c))));
            }
        }
    }
    percentiles_of(&mut bins, ps)
        .into_iter()
        .map(|v| v as f64 / 1e3)
        .collect()
}

/// The values at percentiles `ps` of a histogram given as (value, count) pairs: the nearest
/// rank over the bins. Kept by hand rather than through hdrhistogram: the pairs are fio's
/// json+ bins already, and a second histogram would re-bin them at its own precision, moving
/// the figures off the bin values fio's tools read from the same result.
pub fn percentiles_of(bins: &mut [(u64, u64)], ps: &[f64]) -> Vec<u64> {
    bins.sort_unstable();
    let total: u64 = bins.iter().map(|b| b.1).sum();
    ps.iter()
        .map(|p| {
            let want = ((p / 100.0) * total as f64).ceil().max(1.0) as u64;
            let mut acc = 0;
            bins.iter()
                .find(|b| {
                    acc += b.1;
                    acc >= want
                })
                .map_or(0, |b| b.0)
        })
        .collect()
}

/// A scheme counter over the run (0 without a scheme).
fn counter(r: &PointResult, k: &str) -> f64 {
    r.ssd()
        .redundancy
        .as_ref()
        .map_or(0.0, |o| o[k].as_f64().unwrap_or(0.0))
}

/// Flash per unit the scheme needs (1 without one).
fn cost(r: &PointResult) -> f64 {
    r.ssd()
        .redundancy
        .as_ref()
        .map_or(1.0, |o| o["space_cost"].as_f64().unwrap_or(1.0))
}

/// Share of host reads served elsewhere than their home, %.
fn redirected(r: &PointResult) -> f64 {
    100.0 * counter(r, "redirected_reads") / counter(r, "reads").max(1.0)
}

/// Share of the host's flash reads that met a program or an erase on their chip, %.
fn blocked_share(r: &PointResult) -> f64 {
    blocked_of(r.ssd())
}

/// [`blocked_share`] of an SSD run's result.
fn blocked_of(s: &crate::metrics::SsdResult) -> f64 {
    let n = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or(0.0);
    let reads = n(&s.host, "read_units") - n(&s.host, "unmapped_read_units") - n(&s.host, "buffer_read_units");
    if reads <= 0.0 {
        f64::NAN
    } else {
        100.0 * n(&s.interference, "conflicting_reads") / reads
    }
}

/// Share of home conflicts avoided, % (NaN without conflicts).
fn avoided(r: &PointResult) -> f64 {
    let c = counter(r, "home_conflicts");
    if c == 0.0 {
        f64::NAN
    } else {
        100.0 * counter(r, "conflicts_avoided") / c
    }
}

fn avg(xs: impl Iterator<Item = f64>) -> f64 {
    let v: Vec<f64> = xs.filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        f64::NAN
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// The seed's Figure 7 figures, for the cost-latency claims' sources.
const VS_RAILS_TTFLASH: &str = "HotR显然是最具成本效益的,其性能比Rails和TTFlash分别高出31.6%和65.7%";
const VS_BASELINE: &str = "其成本效益甚至比基准系统高出13.9%";

const PERCENTILES: [f64; 5] = [95.0, 97.0, 98.0, 99.0, 99.5];
/// The tolerance policy's ±25 % (docs/experiments/README.md).
const TOL: Rule = Rule::Relative { tolerance: 0.25 };

/// Page classes of a workload (Figure 1(c)).
fn classes(scale: Scale, base: &Path, w: &Workload) -> Result<AccessClasses> {
    Ok(workload_stats(scale, base, w, 0.0)?.access_classes)
}

/// A workload's statistics (page classes, re-reads): a whole trace, or the generator's
/// requests with Zipf popularity `theta` inside HPC 46's hot set.
fn workload_stats(scale: Scale, base: &Path, w: &Workload, theta: f64) -> Result<TraceStats> {
    if w.trace.is_empty() {
        let text = format!("[device]\npreset = \"{PRESET}\"\n{}", job_z(scale, w, 1.0, theta));
        let cfg = crate::config::parse_config(&text, "experiment hotr", base)?;
        let cap = crate::redundancy::geometry_of(&cfg.device, PRESET)?.logical_bytes();
        let mut src = crate::workload::generated_source(&cfg.job[0], cap, cfg.job[0].seed.unwrap_or(1))?;
        return crate::trace::stats::stats_of_source(src.as_mut(), max_requests(scale, w).unwrap_or(u64::MAX), w.name);
    }
    stats(base, w)
}

impl Experiment for HotR {
    fn name(&self) -> &'static str {
        "hotr"
    }
    fn title(&self) -> &'static str {
        "HotR: hot read data replication against read/write interference, beside Rails and TTFlash"
    }
    fn seed_document(&self) -> &'static str {
        "004_d256b4e9bad6d8b3.txt"
    }
    fn scale_note(&self, scale: Scale) -> String {
        let ws: Vec<&str> = workloads(scale).iter().map(|w| w.name).collect();
        format!(
            "Device: the {PRESET} preset (DiskSim SSD extension, 8 TLC chips of 2 GiB on their own 40 MB/s buses, write-through, first come first served), the seed's own simulator's model; its Table II is not in our copy of the paper. Workloads: {} ({}); each replayed at the speed (HPC 46: the arrival rate) that brings the baseline's reads blocked by writes to the seed's {TARGET_BLOCKED} % average (Figure 1(b)), at most the speed that keeps the chips {:.0} % busy on average. The claims average over the seed's sources: {}; fin1 stands in for Fin2, which is not among the shared traces. HotR's R-LRU lists track as many pages as the workload has read-intensive pages, {:.0} % of them with a copy. HPC 46 is the [job.hpc] generator over 256 MiB, {} requests. The seed's Fin2 and full MSR traces (millions of requests) are not available: the shared cuts hold 7,000 to 114,000 requests, so hot pages recur less than in the seed's traces.",
            ws.join(", "),
            if scale == Scale::Quick { "the first 3,000 requests of each trace" } else { "whole traces" },
            MAX_LOAD * 100.0,
            SEED_WORKLOADS.iter().filter(|w| ws.contains(w)).copied().collect::<Vec<_>>().join(", "),
            BUDGET * 100.0,
            max_requests(scale, &WORKLOADS[10]).unwrap_or(0),
        )
    }
    fn points(&self, scale: Scale) -> Result<Vec<Point>> {
        use rayon::prelude::*;
        let base = traces_base()?;
        let ws = workloads(scale);
        let speeds: Vec<(f64, f64)> = ws
            .par_iter()
            .map(|w| calibrate(scale, &base, w))
            .collect::<Result<_>>()?;
        let preset = crate::config::load_config_with(PRESET, &[])?;
        let host = crate::redundancy::geometry_of(&preset.device, PRESET)?.host_units as f64;
        let mut points = Vec::new();
        for (w, &(speed, _)) in ws.iter().zip(&speeds) {
            let st = workload_stats(scale, &base, w, 0.0)?;
            let cl = st.access_classes;
            let replay = Replay {
                name: w.name,
                job: job(scale, w, speed),
                speed,
                rereads: st.rereads,
            };
            // HotR's bodies carry the lists' length and the copy budget.
            let body = |s: &str, cl: &AccessClasses, track: f64, budget: f64| -> String {
                if s.contains("\"hotr\"") {
                    format!("{s}\n{}", hotr_keys(cl, track, budget, host))
                } else {
                    s.to_string()
                }
            };
            for b in BACKENDS {
                for s in SCHEMES {
                    points.push(point(&base, &replay, (s.0, &body(s.1, &cl, TRACK, BUDGET)), b, "tlc")?);
                }
            }
            points.push(point(&base, &replay, SCHEMES[0], IDEAL, "tlc")?);
            if SEED_WORKLOADS.contains(&w.name) {
                for c in SWEEP.iter().filter(|c| **c != BUDGET) {
                    let name = sweep_name(*c);
                    points.push(point(
                        &base,
                        &replay,
                        (&name, &body(SCHEMES[1].1, &cl, TRACK, *c)),
                        BACKENDS[0],
                        "tlc",
                    )?);
                }
                for (t, label, _) in TRACKS {
                    let name = format!("hotr-{label}");
                    points.push(point(
                        &base,
                        &replay,
                        (&name, &body(SCHEMES[1].1, &cl, t, BUDGET)),
                        BACKENDS[0],
                        "tlc",
                    )?);
                }
            }
            for cell in CELLS.iter().filter(|c| **c != "tlc") {
                for s in [SCHEMES[0], SCHEMES[1]] {
                    points.push(point(
                        &base,
                        &replay,
                        (s.0, &body(s.1, &cl, TRACK, BUDGET)),
                        BACKENDS[0],
                        cell,
                    )?);
                }
            }
            // HPC 46 with popularity inside its hot set, at the uniform one's speed.
            if w.trace.is_empty() {
                for theta in THETAS {
                    let st = workload_stats(scale, &base, w, theta)?;
                    let name = theta_name(theta);
                    let replay = Replay {
                        name: &name,
                        job: job_z(scale, w, speed, theta),
                        speed,
                        rereads: st.rereads,
                    };
                    for s in [SCHEMES[0], SCHEMES[1]] {
                        let b = body(s.1, &st.access_classes, TRACK, BUDGET);
                        points.push(point(&base, &replay, (s.0, &b), BACKENDS[0], "tlc")?);
                    }
                }
            }
        }
        Ok(points)
    }
    /// The claims read the seed's workload sources on the first-come-first-served and ideal
    /// back ends, the four compared schemes (and HotR under the lists' other lengths, the
    /// other readings) only: the read-priority back end, the variants of HotR and Rails, the
    /// budget and popularity sweeps and the other traces are in figures
    /// (`tests/integration/experiment_split.rs` holds the claims to that).
    fn in_claims(&self, point: &Point) -> bool {
        // workload/scheme/back end/cell, as `point` names it.
        let id: Vec<&str> = point.id.split('/').collect();
        SEED_WORKLOADS.contains(&id[0])
            && (COMPARED.contains(&id[1]) || TRACKS.iter().any(|t| id[1] == format!("hotr-{}", t.1)))
            && [BACKENDS[0].0, IDEAL.0].contains(&id[2])
    }
    fn conditions(&self) -> Vec<Condition> {
        vec![
            Condition {
                name: "the workloads".into(),
                used: "fin1 in Fin2's place, the three MSR Cambridge cuts and HPC 46".into(),
                source: "The seed's four workloads are Fin2, MSR Cambridge traces and HPC 46 (its Table III, an image our copy lacks, would name the MSR volumes); Fin2 is not among the shared traces and fin1 is the same institution's OLTP application.".into(),
                open: false,
                others: vec![],
            },
            Condition {
                name: "the interference level".into(),
                used: "each workload replayed at the speed that blocks 33.0 % of the baseline's reads (a calibration check)".into(),
                source: "平均33.0%(最大55.9%)的读请求被正在进行的写请求阻塞 (Figure 1(b)).".into(),
                open: false,
                others: vec![],
            },
            Condition {
                name: "the R-LRU's length".into(),
                used: "as many entries as the workload has read-intensive pages, 10 % of them with a copy (chosen by Count)".into(),
                source: "The seed sizes the copy budget (\"10%的热读数据页在HotR中迁移\"; \"可以迁移的流行数据页面的百分比是通过管理接口配置的\") and not the list, whose entries are the pages it identifies as hot (\"R-LRU标识SSD的每个闪存芯片上的热读数据页\"): a list holding the workload's hot read pages (its read-intensive pages, Figure 1(c)'s rule) makes the budget 10 % of them. Half and twice that length are the other readings.".into(),
                open: true,
                others: TRACKS.iter().map(|t| (t.1.to_string(), t.2.to_string())).collect(),
            },
            Condition {
                name: "which mean".into(),
                used: "the mean response time of all requests (the reads' own beside it in every mean claim's note and in fig5-mean-reads)".into(),
                source: "Figure 5 normalises \"平均响应时间\" to the baseline's; the seed's simulator (the MSR SSD extension of DiskSim) reports the average response time of all requests, and Figure 1(b)'s loss and Figure 7's cost-latency product use the same figure. The seed's \"从读请求的角度来看\" explains the gain from the reads' side without naming another mean.".into(),
                open: false,
                others: vec![],
            },
            Condition {
                name: "popularity inside HPC 46's hot set".into(),
                used: "uniform".into(),
                source: "The seed names the generator's knobs (\"读/写比率、请求的到达时间、读访问概率和顺序性\") and no popularity inside the hot set; the theta figure shows HotR with Zipf popularity θ = 0.6 to 1.5 inside it.".into(),
                open: false,
                others: vec![],
            },
        ]
    }
    fn analyse(&self, scale: Scale, runs: &[PointResult]) -> Analysis {
        let ws = workloads(scale);
        // The claims average over the seed's workload sources (the others are in the figures).
        let mix: Vec<&Workload> = ws.iter().filter(|w| SEED_WORKLOADS.contains(&w.name)).collect();
        let cats: Vec<String> = ws.iter().map(|w| w.name.to_string()).collect();
        let mut claims = Vec::new();
        let mut figures = Vec::new();
        let get = |w: &str, s: &str, b: &str| find(runs, w, s, b, "tlc");
        let norm = |w: &str, s: &str, b: &str| mean_us(get(w, s, b)) / mean_us(get(w, "baseline", b));
        let gain = |w: &str, s: &str, b: &str| 100.0 * (1.0 - norm(w, s, b));
        let names = |ws: &[&Workload]| ws.iter().map(|w| w.name).collect::<Vec<_>>().join(", ");
        let note = format!("fcfs back end, TLC, averaged over {}", names(&mix));
        // The reads' own mean, beside the all-request one the claims use.
        let read_norm = |w: &str, s: &str| mean_read_us(get(w, s, "fcfs")) / mean_read_us(get(w, "baseline", "fcfs"));
        let read_gain = |w: &str, s: &str| 100.0 * (1.0 - read_norm(w, s));
        // Mean response time, redirected and avoided reads: HotR's headline claims, of `scheme`
        // (HotR with the claims' lists, or with the lists of another reading).
        let headline = |scheme: &str| -> Vec<Claim> {
            let gains: Vec<f64> = mix.iter().map(|w| gain(w.name, scheme, "fcfs")).collect();
            vec![
                Claim::new(
                    "mean/hotr-average",
                    "HotR lowers the mean response time by 21.8 % on average",
                    21.8,
                    avg(gains.iter().copied()),
                    "% below baseline",
                    TOL,
                    format!(
                        "{note}; all requests, as the seed's simulator averages; reads alone: {:.1} %",
                        avg(mix.iter().map(|w| read_gain(w.name, scheme)))
                    ),
                )
                .source("HotR将基准方案的平均响应时间提高了54.0%,平均为21.8%"),
                Claim::new(
                    "mean/hotr-max",
                    "HotR lowers the mean response time by up to 54.0 %",
                    54.0,
                    gains.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    "% below baseline",
                    TOL,
                    format!("best of {}", names(&mix)),
                )
                .source("HotR将基准方案的平均响应时间提高了54.0%,平均为21.8%"),
                Claim::new(
                    "redirected/hotr",
                    "17.8 % of user reads are redirected to the scratch space on average (Figure 6)",
                    17.8,
                    avg(mix.iter().map(|w| redirected(get(w.name, scheme, "fcfs")))),
                    "% of reads",
                    TOL,
                    note.clone(),
                )
                .source("平均17.8%的用户读请求被重定向到暂存空间,如图6所示"),
                Claim::new(
                    "avoided/hotr",
                    "HotR avoids 63.0 % of the conflicting reads on average",
                    63.0,
                    avg(mix.iter().map(|w| avoided(get(w.name, scheme, "fcfs")))),
                    "% of conflicting reads",
                    TOL,
                    note.clone(),
                )
                .source("HotR平均避免了63.0%的冲突读请求"),
            ]
        };
        claims.extend(headline("hotr"));
        for (_, label, reading) in TRACKS {
            claims.extend(
                headline(&format!("hotr-{label}"))
                    .into_iter()
                    .map(|c| c.alternative(label, reading)),
            );
        }
        let gains: Vec<f64> = mix.iter().map(|w| gain(w.name, "hotr", "fcfs")).collect();
        // Workloads on which HotR redirected no read: it did nothing there.
        let idle: Vec<&str> = mix
            .iter()
            .filter(|w| counter(get(w.name, "hotr", "fcfs"), "redirected_reads") == 0.0)
            .map(|w| w.name)
            .collect();
        let idle_note = format!("HotR redirected no read on {}", idle.join(", "));
        claims.push(
            Claim::new(
                "mean/hotr-direction",
                "HotR does not raise the mean response time on any workload",
                0.0,
                gains.iter().copied().fold(f64::INFINITY, f64::min),
                "% below baseline (worst workload)",
                // "Not raised": a loss within the minimum effect or the noise is none.
                Rule::NOT_BELOW,
                format!("worst of {}", names(&mix)),
            )
            .source("图5显示了由4个工作负载驱动的平均响应时间,它被归一化为基准系统的平均响应时间…HotR将基准方案的平均响应时间提高了54.0%,平均为21.8%")
            .no_signal_if(!idle.is_empty(), &idle_note),
        );
        // Figure 8: HotR's tail below the baseline's at every percentile the figure plots (the
        // worst of them, each averaged over the workloads).
        let tail_ratio = PERCENTILES
            .iter()
            .map(|p| {
                avg(mix.iter().map(|w| {
                    percentiles_us(get(w.name, "hotr", "fcfs"), &[*p])[0]
                        / percentiles_us(get(w.name, "baseline", "fcfs"), &[*p])[0]
                }))
            })
            .fold(f64::NEG_INFINITY, f64::max);
        claims.push(
            Claim::new(
                "tail/hotr-below-baseline",
                "HotR's tail latency is below the baseline's at every percentile of Figure 8",
                1.0,
                tail_ratio,
                "HotR's / the baseline's (worst percentile of 95–99.5, averaged)",
                Rule::BELOW,
                note.clone(),
            )
            .source("HotR在尾延迟性能方面始终显著优于基准系统")
            .no_signal_if(idle.len() == mix.len(), &idle_note),
        );
        // Rails redirects every conflicting read and more: more than HotR does.
        let share = |s: &str| avg(mix.iter().map(|w| redirected(get(w.name, s, "fcfs"))));
        claims.push(
            Claim::new(
                "redirected/rails-more-than-hotr",
                "Rails redirects more reads than HotR (all the blocked reads and others)",
                0.0,
                share("rails") - share("hotr"),
                "points of reads redirected, Rails − HotR",
                Rule::ABOVE,
                note.clone(),
            )
            .source("不仅所有被干扰的读请求,而且一些其他的读请求也被Rails重定向")
            // Rails serves every read of its read-mode half from there by design: no run
            // could have it redirect fewer than HotR's copies do. A check of the scheme.
            .check(),
        );
        // Figure 1(b): "平均33.0%(最大55.9%)的读请求被正在进行的写请求阻塞": the baseline's
        // flash reads that met a program or an erase on their chip.
        let blocked: Vec<f64> = mix
            .iter()
            .map(|w| blocked_share(get(w.name, "baseline", "fcfs")))
            .collect();
        // Calibrated, not reproduced: every workload runs at the speed that brings this share
        // to the seed's average.
        claims.push(
            Claim::new(
                "fig1b/blocked-average",
                "calibration: the baseline's reads blocked by ongoing writes average the seed's 33.0 % (Figure 1(b))",
                TARGET_BLOCKED,
                avg(blocked.iter().copied()),
                "% of flash reads",
                TOL,
                format!(
                    "baseline, {note}: conflicting flash reads / host flash reads; per workload {}",
                    mix.iter()
                        .zip(&blocked)
                        .map(|(w, b)| format!("{} {b:.1}", w.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .check(),
        );
        claims.push(
            Claim::new(
                "fig1b/blocked-max",
                "up to 55.9 % of reads are blocked by ongoing writes (Figure 1(b), the most affected workload)",
                55.9,
                blocked.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                "% of flash reads",
                TOL,
                format!("baseline, fcfs, TLC: the largest of {}", names(&mix)),
            )
            .source("平均33.0%(最大55.9%)的读请求被正在进行的写请求阻塞")
            .known_difference("every workload is replayed at the speed that brings its own blocked share to the seed's average, so none stays at the seed's maximum; the seed's per-workload levels are in its Figure 1(b), an image our copy lacks, and would be needed to calibrate each workload to its own"),
        );
        // Figure 1(b): the loss against the interference-free system, "导致平均42.8%的性能下降,
        // Fin2工作负载的性能下降高达74.6%": performance (the inverse of the mean response time)
        // down by the share 1 − ideal / baseline.
        let loss = |w: &str| 100.0 * (1.0 - mean_us(get(w, "baseline", IDEAL.0)) / mean_us(get(w, "baseline", "fcfs")));
        let other_reading = avg(mix.iter().map(|w| {
            100.0 * (mean_us(get(w.name, "baseline", "fcfs")) / mean_us(get(w.name, "baseline", IDEAL.0)) - 1.0)
        }));
        claims.push(
            Claim::new(
                "fig1b/loss-average",
                "read/write interference costs 42.8 % of performance on average against an interference-free system (Figure 1(b))",
                42.8,
                avg(mix.iter().map(|w| loss(w.name))),
                "% (1 − ideal mean / baseline mean)",
                TOL,
                format!(
                    "the ideal back end (reads first, programs and erases suspended at no cost) against fcfs, TLC, averaged over {}; read as baseline / ideal − 1 instead: {other_reading:.1} %",
                    names(&mix)
                ),
            )
            .source("最优系统是指所有被干扰的读请求都能得到服务而不会被任何干扰的写请求阻塞的系统…导致平均42.8%的性能下降"),
        );
        if ws.iter().any(|w| w.name == "fin1") {
            claims.push(
                Claim::new(
                    "fig1b/loss-fin2",
                    "interference costs up to 74.6 % of performance on Fin2 (fin1, the closest shared trace, in its place)",
                    74.6,
                    loss("fin1"),
                    "% (1 − ideal mean / baseline mean)",
                    TOL,
                    "fin1: Financial1's head, the same institution's OLTP application; Fin2 is not among the shared traces".into(),
                )
                .source("Fin2工作负载的性能下降高达74.6%"),
            );
        }
        // Figure 1(c): "平均只有9.6%的页面是混合数据页面".
        if let Ok(base) = traces_base() {
            let mixed_pages = avg(mix
                .iter()
                .filter_map(|w| classes(scale, &base, w).ok())
                .map(|c| 100.0 * c.mixed.page_share));
            claims.push(
                Claim::new(
                    "fig1c/mixed-pages",
                    "only 9.6 % of pages are mixed (read and written) on average (Figure 1(c))",
                    9.6,
                    mixed_pages,
                    "% of pages",
                    TOL,
                    format!("pages touched by the workload, averaged over {}", names(&mix)),
                )
                .source("平均只有9.6%的页面是混合数据页面"),
            );
        }
        // Section IV: "TTFlash的响应时间超过500ms,在Fin2和HPC 46工作负载下" (Figure 8's tail): on
        // both (fin1 in Fin2's place), the lower of the two.
        let fin2_hpc: Vec<&str> = ["fin1", "hpc46"]
            .into_iter()
            .filter(|n| ws.iter().any(|w| w.name == *n))
            .collect();
        if !fin2_hpc.is_empty() {
            claims.push(
                Claim::new(
                    "fig8/ttflash-over-500ms",
                    "TTFlash's tail response time exceeds 500 ms on Fin2 (fin1 in its place) and HPC 46 (Figure 8, 99.5th percentile)",
                    500_000.0,
                    fin2_hpc
                        .iter()
                        .map(|w| percentiles_us(get(w, "ttflash", "fcfs"), &[99.5])[0])
                        .fold(f64::INFINITY, f64::min),
                    "µs (the lower of the two)",
                    Rule::AtLeast,
                    format!(
                        "fcfs, TLC, 99.5th percentile of {}",
                        fin2_hpc
                            .iter()
                            .map(|w| format!("{w} {:.1} ms", percentiles_us(get(w, "ttflash", "fcfs"), &[99.5])[0] / 1e3))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
                .source("TTFlash的响应时间超过500ms,在Fin2和HPC 46工作负载下,这个响应时间太大,无法在图8中显示"),
            );
        }
        // Orderings: Rails has the best mean latency, TTFlash the worst tail.
        let mean_of = |s: &str| avg(mix.iter().map(|w| norm(w.name, s, "fcfs")));
        // `f` of each compared scheme but `except`: (lowest, highest).
        let rivals = |except: &str, f: &dyn Fn(&str) -> f64| {
            COMPARED
                .iter()
                .filter(|s| **s != except)
                .map(|s| f(s))
                .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)))
        };
        let best_other = rivals("rails", &mean_of).0;
        claims.push(
            Claim::new(
                "order/rails-best-mean",
                "Rails has the lowest mean response time of the four",
                1.0,
                mean_of("rails") / best_other,
                "Rails' mean / the best other's (normalised, averaged)",
                Rule::BELOW,
                note.clone(),
            )
            .source("HotR将基准方案的平均响应时间提高了54.0%,平均为21.8%…HotR的性能比TTFlash好得多,但比Rails差"),
        );
        claims.push(
            Claim::new(
                "mean/ttflash-harmful",
                "TTFlash raises the mean response time above the baseline's",
                1.0,
                mean_of("ttflash"),
                "× baseline (normalised, averaged)",
                Rule::ABOVE,
                note.clone(),
            )
            .source("我们的实验结果表明TTFlash是有害的"),
        );
        let p99 = |w: &str, s: &str| {
            percentiles_us(get(w, s, "fcfs"), &[99.0])[0] / percentiles_us(get(w, "baseline", "fcfs"), &[99.0])[0]
        };
        let tail_of = |s: &str| avg(mix.iter().map(|w| p99(w.name, s)));
        let worst_other = rivals("ttflash", &tail_of).1;
        claims.push(
            Claim::new(
                "order/ttflash-worst-tail",
                "TTFlash has the worst tail latency of the four",
                1.0,
                tail_of("ttflash") / worst_other,
                "TTFlash's p99 / the worst other's (normalised, averaged)",
                Rule::ABOVE,
                note.clone(),
            )
            .source("图8还显示,在所有方案中…TTFlash的尾延迟最差"),
        );
        let rails_tail_best = rivals("rails", &tail_of).0;
        claims.push(
            Claim::new(
                "order/rails-best-tail",
                "Rails has the best tail latency of the four",
                1.0,
                tail_of("rails") / rails_tail_best,
                "Rails' p99 / the best other's (normalised, averaged)",
                Rule::BELOW,
                note.clone(),
            )
            .source("图8还显示,在所有方案中,Rails的尾延迟最好"),
        );
        // Cost-latency product.
        let clp = |s: &str| {
            let c = cost(get(mix[0].name, s, "fcfs"));
            c * mean_of(s)
        };
        let best_rival = rivals("hotr", &clp).0;
        claims.push(
            Claim::new(
                "clp/hotr-best",
                "HotR has the best cost-latency product",
                1.0,
                clp("hotr") / best_rival,
                "HotR's / the best other's",
                Rule::BELOW,
                note.clone(),
            )
            .source("HotR显然是最具成本效益的"),
        );
        for (s, name) in [("rails", "Rails'"), ("ttflash", "TTFlash's")] {
            let c = Claim::new(
                &format!("clp/{s}-above-baseline"),
                &format!("{name} cost-latency product is worse than the baseline's"),
                1.0,
                clp(s) / clp("baseline"),
                &format!("{name} / the baseline's"),
                Rule::ABOVE,
                note.clone(),
            )
            .source("Rails和TTFlash都不是经济有效的,它们甚至比没有任何优化的基准系统更差")
            .case(s);
            // TTFlash's product is its normalised mean (mean/ttflash-harmful) times its space
            // cost, which is at least the baseline's: worse whenever that claim holds.
            claims.push(if s == "ttflash" {
                c.derived(
                    &["mean/ttflash-harmful"],
                    "the normalised mean times TTFlash's space cost, never below the baseline's",
                )
            } else {
                c
            });
        }
        for (s, name, seed, quote) in [
            ("rails", "Rails'", 31.6, VS_RAILS_TTFLASH),
            ("ttflash", "TTFlash's", 65.7, VS_RAILS_TTFLASH),
            ("baseline", "the baseline's", 13.9, VS_BASELINE),
        ] {
            claims.push(
                Claim::new(
                    &format!("clp/hotr-vs-{s}"),
                    &format!("HotR's cost-latency product is {seed} % lower than {name} (Figure 7)"),
                    seed,
                    100.0 * (1.0 - clp("hotr") / clp(s)),
                    "% lower",
                    TOL,
                    note.clone(),
                )
                .source(quote),
            );
        }
        // Figure 9: HotR's speed-up over baseline by cell type.
        let speedup = |cell: &str| {
            avg(mix.iter().map(|w| {
                mean_us(find(runs, w.name, "baseline", "fcfs", cell))
                    / mean_us(find(runs, w.name, "hotr", "fcfs", cell))
            }))
        };
        let ups: Vec<f64> = CELLS.iter().map(|c| speedup(c)).collect();
        // No signal when HotR changed nothing at any cell type (every speed-up exactly 1).
        let flat = ups.iter().all(|u| *u == 1.0);
        let cells_note = "HotR's response times equal the baseline's at every cell type";
        const CELLS_GROW: &str = "随着从SLC到QLC的每单元比特密度的增加,HotR实现的性能加速也相应提高";
        claims.push(
            Claim::new(
                "cells/grows",
                "HotR's speed-up grows from SLC to MLC, TLC and QLC",
                1.0,
                ups.windows(2).map(|p| p[1] / p[0]).fold(f64::INFINITY, f64::min),
                "smallest step's speed-up / the previous cell's",
                Rule::ABOVE,
                format!(
                    "mean baseline/HotR response-time ratio: {}",
                    CELLS
                        .iter()
                        .zip(&ups)
                        .map(|(c, u)| format!("{c} {u:.3}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .source(CELLS_GROW)
            .no_signal_if(flat, cells_note),
        );
        claims.push(
            Claim::new(
                "cells/qlc-over-slc",
                "HotR gains more on QLC than on SLC",
                1.0,
                ups[3] / ups[0],
                "QLC speed-up / SLC speed-up",
                Rule::ABOVE,
                "Figure 9's end points".into(),
            )
            .source(CELLS_GROW)
            .no_signal_if(flat, cells_note)
            .derived(
                &["cells/grows"],
                "the same sentence: a speed-up that grows at every step is larger at QLC than at SLC",
            ),
        );
        // Figures.
        let bars = |id: &str, title: &str, y: &str, schemes: &[&str], f: &dyn Fn(&str, &str) -> f64| Figure {
            id: id.into(),
            title: title.into(),
            x_label: "workload".into(),
            y_label: y.into(),
            log_x: false,
            series: schemes
                .iter()
                .map(|s| Series {
                    name: s.to_string(),
                    points: ws.iter().enumerate().map(|(i, w)| (i as f64, f(w.name, s))).collect(),
                })
                .collect(),
            categories: cats.clone(),
        };
        figures.push(bars(
            "fig5-mean",
            "Mean response time, normalised to baseline (fcfs)",
            "× baseline",
            &SCHEMES.map(|s| s.0),
            &|w, s| norm(w, s, "fcfs"),
        ));
        figures.push(bars(
            "fig5-mean-reads",
            "Mean read response time, normalised to baseline (fcfs)",
            "× baseline",
            &SCHEMES.map(|s| s.0),
            &|w, s| read_norm(w, s),
        ));
        figures.push(bars(
            "fig1b-blocked",
            "Baseline's flash reads blocked by a program or erase (fcfs); the replay speed targets 33 %",
            "% of flash reads",
            &["baseline"],
            &|w, _| blocked_share(get(w, "baseline", "fcfs")),
        ));
        figures.push(bars(
            "fig1b-loss",
            "Performance lost to interference against the ideal back end (1 − ideal mean / baseline mean)",
            "%",
            &["all requests", "reads"],
            &|w, s| {
                let f = if s == "reads" { mean_read_us } else { mean_us };
                100.0 * (1.0 - f(get(w, "baseline", IDEAL.0)) / f(get(w, "baseline", "fcfs")))
            },
        ));
        figures.push(Figure {
            id: "capacity".into(),
            title: "HotR's mean response time by copy budget, normalised to baseline (fcfs)".into(),
            x_label: "copy budget, % of the pages the R-LRU lists track".into(),
            y_label: "× baseline".into(),
            log_x: false,
            series: mix
                .iter()
                .map(|w| Series {
                    name: w.name.to_string(),
                    points: SWEEP
                        .iter()
                        .map(|c| (c * 100.0, norm(w.name, &sweep_name(*c), "fcfs")))
                        .collect(),
                })
                .collect(),
            categories: vec![],
        });
        let track_name = |t: f64| match TRACKS.iter().find(|x| x.0 == t) {
            Some(x) => format!("hotr-{}", x.1),
            None => "hotr".to_string(),
        };
        let mut lengths: Vec<f64> = TRACKS.iter().map(|t| t.0).chain([TRACK]).collect();
        lengths.sort_by(f64::total_cmp);
        figures.push(Figure {
            id: "track".into(),
            title: "HotR's mean read response time by the R-LRU lists' length, normalised to baseline (fcfs)".into(),
            x_label: "entries, % of the workload's read-intensive pages".into(),
            y_label: "× baseline".into(),
            log_x: false,
            series: mix
                .iter()
                .map(|w| Series {
                    name: w.name.to_string(),
                    points: lengths
                        .iter()
                        .map(|&t| (t * 100.0, read_norm(w.name, &track_name(t))))
                        .collect(),
                })
                .collect(),
            categories: vec![],
        });
        // HPC 46 with Zipf popularity inside its hot set (θ = 0: the uniform claims' run).
        if ws.iter().any(|w| w.trace.is_empty()) {
            let thetas: Vec<f64> = std::iter::once(0.0).chain(THETAS).collect();
            let hpc = |t: f64| if t == 0.0 { "hpc46".to_string() } else { theta_name(t) };
            type Of = fn(&PointResult, &PointResult) -> f64;
            let series: [(&str, Of); 4] = [
                ("mean gain, all requests (%)", |h, b| {
                    100.0 * (1.0 - mean_us(h) / mean_us(b))
                }),
                ("mean gain, reads (%)", |h, b| {
                    100.0 * (1.0 - mean_read_us(h) / mean_read_us(b))
                }),
                ("reads redirected (%)", |h, _| redirected(h)),
                ("conflicting reads avoided (%)", |h, _| avoided(h)),
            ];
            figures.push(Figure {
                id: "theta".into(),
                title: "HotR on HPC 46 with Zipf popularity θ inside the hot set (fcfs)".into(),
                x_label: "θ (0: uniform)".into(),
                y_label: "%".into(),
                log_x: false,
                series: series
                    .iter()
                    .map(|(name, f)| Series {
                        name: name.to_string(),
                        points: thetas
                            .iter()
                            .map(|&t| (t, f(get(&hpc(t), "hotr", "fcfs"), get(&hpc(t), "baseline", "fcfs"))))
                            .collect(),
                    })
                    .collect(),
                categories: vec![],
            });
        }
        // Every scheme but the baseline.
        let others: Vec<&str> = SCHEMES[1..].iter().map(|s| s.0).collect();
        figures.push(bars(
            "fig6-redirected",
            "Reads served elsewhere than their chip (fcfs)",
            "% of reads",
            &others,
            &|w, s| redirected(get(w, s, "fcfs")),
        ));
        figures.push(bars(
            "avoided",
            "Conflicting reads avoided (fcfs)",
            "% of conflicting reads",
            &others,
            &|w, s| avoided(get(w, s, "fcfs")),
        ));
        figures.push(Figure {
            id: "fig7-cost-latency".into(),
            title: "Cost-latency product: space cost × mean response time normalised to baseline (fcfs, averaged)"
                .into(),
            x_label: "scheme".into(),
            y_label: "normalised cost × latency".into(),
            log_x: false,
            series: vec![Series {
                name: "cost-latency product".into(),
                points: COMPARED.iter().enumerate().map(|(i, s)| (i as f64, clp(s))).collect(),
            }],
            categories: COMPARED.iter().map(|s| s.to_string()).collect(),
        });
        // Figures 8 and 9 and the back ends, of all requests (the seed's simulator's average)
        // and of the reads alone.
        type Tail = fn(&PointResult, &[f64]) -> Vec<f64>;
        type Mean = fn(&PointResult) -> f64;
        for (suffix, whose, tail, meanf) in [
            ("", "all requests", percentiles_us as Tail, mean_us as Mean),
            ("-reads", "reads", read_percentiles_us as Tail, mean_read_us as Mean),
        ] {
            figures.push(Figure {
                id: format!("fig8-tail{suffix}"),
                title: format!("Tail latency of {whose} normalised to baseline, averaged over the workloads (fcfs)"),
                x_label: "percentile".into(),
                y_label: "× baseline".into(),
                log_x: false,
                series: COMPARED
                    .iter()
                    .map(|s| Series {
                        name: s.to_string(),
                        points: PERCENTILES
                            .iter()
                            .map(|&p| {
                                (
                                    p,
                                    avg(mix.iter().map(|w| {
                                        tail(get(w.name, s, "fcfs"), &[p])[0]
                                            / tail(get(w.name, "baseline", "fcfs"), &[p])[0]
                                    })),
                                )
                            })
                            .collect(),
                    })
                    .collect(),
                categories: vec![],
            });
            // Figure 8 per workload: the tail in milliseconds.
            for w in &ws {
                figures.push(Figure {
                    id: format!("fig8-tail{suffix}-{}", w.name),
                    title: format!("{}: latency of {whose} at the tail (fcfs)", w.text),
                    x_label: "percentile".into(),
                    y_label: "ms".into(),
                    log_x: false,
                    series: COMPARED
                        .iter()
                        .map(|s| Series {
                            name: s.to_string(),
                            points: PERCENTILES
                                .iter()
                                .zip(tail(get(w.name, s, "fcfs"), &PERCENTILES))
                                .map(|(&p, v)| (p, v / 1e3))
                                .collect(),
                        })
                        .collect(),
                    categories: vec![],
                });
            }
            figures.push(Figure {
                id: format!("fig9-cells{suffix}"),
                title: format!("HotR's speed-up over baseline by cell type, {whose} (fcfs)"),
                x_label: "cell".into(),
                y_label: "baseline mean / HotR mean".into(),
                log_x: false,
                series: ws
                    .iter()
                    .map(|w| Series {
                        name: w.name.to_string(),
                        points: CELLS
                            .iter()
                            .enumerate()
                            .map(|(i, c)| {
                                (
                                    i as f64,
                                    meanf(find(runs, w.name, "baseline", "fcfs", c))
                                        / meanf(find(runs, w.name, "hotr", "fcfs", c)),
                                )
                            })
                            .collect(),
                    })
                    .collect(),
                categories: CELLS.iter().map(|c| c.to_uppercase()).collect(),
            });
            figures.push(bars(
                &format!("backend{suffix}"),
                &format!("HotR's gain in the mean response time of {whose} with each back end"),
                "% below that back end's baseline",
                &["fcfs", "rps"],
                &|w, b| 100.0 * (1.0 - meanf(get(w, "hotr", b)) / meanf(get(w, "baseline", b))),
            ));
        }
        // Figure 1(c): page classes.
        if let Ok(base) = traces_base() {
            let cl: Vec<Option<AccessClasses>> = ws.iter().map(|w| classes(scale, &base, w).ok()).collect();
            figures.push(Figure {
                id: "fig1c-page-classes".into(),
                title: "Page classes: read-intensive, write-intensive (> 90 % of accesses) and mixed".into(),
                x_label: "workload".into(),
                y_label: "% of pages".into(),
                log_x: false,
                series: ["read-intensive", "write-intensive", "mixed"]
                    .iter()
                    .enumerate()
                    .map(|(k, name)| Series {
                        name: name.to_string(),
                        points: cl
                            .iter()
                            .enumerate()
                            .map(|(i, c)| {
                                let v = c.map_or(f64::NAN, |c| {
                                    [c.read_intensive, c.write_intensive, c.mixed][k].page_share * 100.0
                                });
                                (i as f64, v)
                            })
                            .collect(),
                    })
                    .collect(),
                categories: cats.clone(),
            });
        }
        Analysis { claims, figures }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_merged_bins() {
        let mut bins = vec![(300, 1), (100, 50), (200, 49)];
        assert_eq!(
            percentiles_of(&mut bins, &[50.0, 99.0, 99.5, 100.0]),
            [100, 200, 300, 300]
        );
        let mut one = vec![(7, 1)];
        assert_eq!(percentiles_of(&mut one, &[1.0, 95.0]), [7, 7]);
    }
}
