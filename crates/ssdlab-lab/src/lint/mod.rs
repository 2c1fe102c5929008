//! `ssdlab lint`: a workload checked against the seven SSD-friendly design principles of the
//! article this project reproduces (data structures: no in-place-update optimisation, hot
//! and cold data apart, compact structures; I/O: no long heavy sustained writes, a device
//! not too full; threads: many for small I/O, few for large I/O).
//!
//! Each check is one file with one entry in [`CHECKS`]; it reads the [`profile::Profile`] of
//! one streaming pass over the workload, states the figure it measured, the threshold it
//! used and why, a verdict, and runs a what-if of the fix through the shared machinery of
//! [`lab::Lab`]: timed replays of the workload (or of a variant of it) on the device from one
//! preconditioned state, FTL-only projections of its write pattern to steady state for WAF
//! and lifetime, and sweeps of synthetic jobs over queue depths.

pub mod lab;
mod p1_in_place;
mod p2_hot_cold;
mod p3_small_writes;
mod p4_sustained_writes;
mod p5_full_device;
mod p6_small_io;
mod p7_large_io;
pub mod profile;

use crate::config::Config;
use crate::trace::{Devices, ReaderOptions};
use crate::Result;
use lab::Lab;
use serde::Serialize;

/// What to lint: a trace, or the jobs of a run file.
pub enum Workload {
    Trace {
        path: String,
        options: ReaderOptions,
        /// Only these devices (volumes, LUNs) of the trace.
        devices: Devices,
    },
    Jobs {
        cfg: Box<Config>,
    },
}

/// Bounds and settings of a lint.
#[derive(Clone, Debug)]
pub struct LintOptions {
    /// Requests analysed and replayed: the workload's first ones.
    pub max_requests: u64,
    /// Most 4 KiB pages of footprint kept (about 50 bytes each).
    pub max_pages: usize,
    /// Share of the logical space holding data; default: the device config's
    /// preconditioning utilisation when it has one, else 0.8.
    pub utilisation: Option<f64>,
    /// Replay speed of timestamps (2.0: twice as fast).
    pub speed: f64,
    /// Unmeasured and measured simulated time of each point of a queue-depth sweep.
    pub sweep_ramp_ns: u64,
    pub sweep_time_ns: u64,
    /// Principles to check (1 to 7); empty: all.
    pub checks: Vec<u32>,
}

impl Default for LintOptions {
    fn default() -> Self {
        LintOptions {
            max_requests: 250_000,
            max_pages: 4 << 20,
            utilisation: None,
            speed: 1.0,
            sweep_ramp_ns: 100_000_000,
            sweep_time_ns: 100_000_000,
            checks: Vec::new(),
        }
    }
}

/// The outcome of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// The workload follows the principle, or breaking it costs nothing on this device.
    #[serde(rename = "ok")]
    Ok,
    /// The workload breaks the principle and the what-if shows what that costs.
    #[serde(rename = "warn")]
    Warn,
    /// Nothing to check (e.g. no writes).
    #[serde(rename = "n/a")]
    NotApplicable,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Warn => "warn",
            Verdict::NotApplicable => "n/a",
        }
    }
}

/// A measured figure: its value and unit, and a sentence saying what it is.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    pub name: &'static str,
    pub value: f64,
    pub unit: &'static str,
    pub text: String,
}

/// The threshold a check compares its main figure with, and where it comes from.
#[derive(Clone, Debug, Serialize)]
pub struct Threshold {
    pub value: f64,
    pub unit: &'static str,
    pub why: String,
}

/// Latency percentiles of one direction, microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Lat {
    pub requests: u64,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub p999_us: f64,
    pub max_us: f64,
}

/// One simulated case of a what-if.
#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    pub name: String,
    /// Host bytes (read and written) and requests per second over the host-visible span.
    pub throughput_mb_s: f64,
    pub iops: f64,
    pub read: Option<Lat>,
    pub write: Option<Lat>,
    /// Garbage collections started while a write waited for a block, and all collections.
    pub foreground_gc: u64,
    pub gc: u64,
    /// Flash reads for read-modify-write of partly written mapping units.
    pub rmw_reads: u64,
    /// Steady-state write amplification (programmed units per host-written unit) of the
    /// write pattern, from the FTL-only projection.
    pub waf: Option<f64>,
    /// Bytes programmed per byte the host wrote: WAF times the rounding of writes up to
    /// whole mapping units.
    pub bytes_programmed_per_byte: Option<f64>,
    /// Lifetime at the workload's write rate (see [`crate::lifetime`]); `None` without writes.
    pub lifetime_s: Option<f64>,
    pub lifetime: String,
}

/// A gain of the fix: a metric as-is and with the fix.
#[derive(Clone, Debug, Serialize)]
pub struct Gain {
    pub metric: String,
    pub as_is: f64,
    pub with_fix: f64,
    /// (with_fix − as_is) / as_is, percent.
    pub change_percent: f64,
}

/// One point of a queue-depth sweep.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct SweepPoint {
    pub depth: u32,
    pub throughput_mb_s: f64,
    pub iops: f64,
    pub p50_us: f64,
    pub p99_us: f64,
}

/// The what-if simulation of a check.
#[derive(Clone, Debug, Serialize)]
pub struct WhatIf {
    /// The fix simulated.
    pub fix: String,
    /// What was simulated: a replay of the workload's first requests, or a synthetic job.
    pub method: String,
    pub scenarios: Vec<Scenario>,
    pub sweep: Vec<SweepPoint>,
    pub gains: Vec<Gain>,
}

/// The result of one check.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub principle: u32,
    pub id: &'static str,
    pub title: &'static str,
    pub measured: Vec<Figure>,
    pub threshold: Threshold,
    pub verdict: Verdict,
    /// Why the verdict, in numbers.
    pub reason: String,
    pub what_if: Option<WhatIf>,
}

/// A check: one principle.
pub struct Check {
    pub principle: u32,
    pub id: &'static str,
    pub title: &'static str,
    pub run: fn(&mut Lab) -> Result<Finding>,
}

impl Check {
    /// The finding when the workload writes nothing and the check is about writes.
    pub fn without_writes(&self, lab: &Lab, threshold: &Threshold) -> Option<Finding> {
        (lab.profile.writes == 0).then(|| {
            self.finding(
                vec![],
                threshold.clone(),
                Verdict::NotApplicable,
                "the workload writes nothing".into(),
                None,
            )
        })
    }

    /// A finding of this check.
    pub fn finding(
        &self,
        measured: Vec<Figure>,
        threshold: Threshold,
        verdict: Verdict,
        reason: String,
        what_if: Option<WhatIf>,
    ) -> Finding {
        Finding {
            principle: self.principle,
            id: self.id,
            title: self.title,
            measured,
            threshold,
            verdict,
            reason,
            what_if,
        }
    }
}

/// The smallest relative change of WAF that a check counts as a gain of its fix.
pub const MATERIAL: f64 = 0.05;

/// The checks, in the article's order.
pub const CHECKS: &[Check] = &[
    p1_in_place::CHECK,
    p2_hot_cold::CHECK,
    p3_small_writes::CHECK,
    p4_sustained_writes::CHECK,
    p5_full_device::CHECK,
    p6_small_io::CHECK,
    p7_large_io::CHECK,
];

/// The workload as the pass saw it.
#[derive(Clone, Debug, Serialize)]
pub struct WorkloadSummary {
    pub file: String,
    pub format: String,
    pub timing: profile::Timing,
    pub requests: u64,
    /// `max_requests` cut the workload short.
    pub truncated: bool,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub footprint_bytes: u64,
    pub duration_s: f64,
    /// Write rate at the workload's own pace (traces with timestamps).
    pub write_bytes_per_s: Option<f64>,
}

/// The device as the checks use it.
#[derive(Clone, Debug, Serialize)]
pub struct DeviceSummary {
    pub name: String,
    pub logical_bytes: u64,
    pub physical_bytes: u64,
    pub utilisation: f64,
    pub mapping_unit: u64,
    pub page_size: u64,
    /// Flash units that work in parallel (planes, or dies).
    pub parallel_units: u64,
    /// page_size × parallel_units: smaller requests cannot use every unit at once.
    pub large_request_bytes: u64,
    pub endurance: u32,
    /// Write amplification of uniform random overwrites at this utilisation (the
    /// preconditioned steady state).
    pub uniform_waf: f64,
}

/// A lint's report.
#[derive(Clone, Debug, Serialize)]
pub struct LintReport {
    pub workload: WorkloadSummary,
    pub device: DeviceSummary,
    /// How the what-ifs were simulated.
    pub method: Vec<String>,
    pub findings: Vec<Finding>,
}

/// Lint `workload` on the device of `device` (its `[device]` and `[precondition]`); progress
/// messages go to `progress`.
pub fn lint(
    workload: &Workload,
    device: &Config,
    opts: &LintOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<LintReport> {
    let mut lab = Lab::new(workload, device, opts, progress)?;
    let mut findings = Vec::new();
    for c in CHECKS
        .iter()
        .filter(|c| opts.checks.is_empty() || opts.checks.contains(&c.principle))
    {
        lab.say(&format!("principle {}: {}", c.principle, c.title));
        findings.push((c.run)(&mut lab)?);
    }
    Ok(LintReport {
        workload: lab.workload_summary(),
        device: lab.device_summary()?,
        method: lab.method(),
        findings,
    })
}

/// A number with three significant digits (more for large values), no exponent; whole
/// numbers without decimals.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    if x == x.round() && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let a = x.abs();
    let d = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        3
    };
    format!("{x:.d$}")
}

/// A share as a percentage with one decimal (two significant digits below 0.1 %).
pub fn pct(x: f64) -> String {
    let v = 100.0 * x;
    if v != 0.0 && v.abs() < 0.1 {
        let d = (-v.abs().log10().floor()) as usize + 1;
        format!("{v:.d$} %")
    } else {
        format!("{v:.1} %")
    }
}

impl LintReport {
    /// The report as text.
    pub fn text(&self) -> String {
        use crate::units::fmt_size;
        let w = &self.workload;
        let d = &self.device;
        let mut s = String::new();
        let timing = match w.timing {
            profile::Timing::Open => format!("at its timestamps over {:.3} s", w.duration_s),
            profile::Timing::Closed { depth } => format!("closed loop, {depth} outstanding"),
        };
        s += &format!(
            "workload: {} ({}, {} requests{}, {timing}): {} reads {}, {} writes {}, footprint {}\n",
            w.file,
            w.format,
            w.requests,
            if w.truncated { ", the first only" } else { "" },
            w.reads,
            fmt_size(w.read_bytes),
            w.writes,
            fmt_size(w.write_bytes),
            fmt_size(w.footprint_bytes),
        );
        s += &format!(
            "device:   {} ({} logical, {} physical, {} full, {} mapping unit, {} pages x {} parallel units, {} P/E cycles; uniform random WAF {})\n",
            d.name,
            fmt_size(d.logical_bytes),
            fmt_size(d.physical_bytes),
            pct(d.utilisation),
            fmt_size(d.mapping_unit),
            fmt_size(d.page_size),
            d.parallel_units,
            d.endurance,
            num(d.uniform_waf)
        );
        for m in &self.method {
            s += &format!("method:   {m}\n");
        }
        for f in &self.findings {
            s += &format!("\n{}. {} [{}]\n", f.principle, f.title, f.verdict.name());
            for m in &f.measured {
                s += &format!("   measured:  {}\n", m.text);
            }
            s += &format!(
                "   threshold: {} {}: {}\n",
                num(f.threshold.value),
                f.threshold.unit,
                f.threshold.why
            );
            s += &format!("   verdict:   {}: {}\n", f.verdict.name(), f.reason);
            if let Some(wi) = &f.what_if {
                s += &format!("   what-if:   {}\n", wi.fix);
                s += &format!("              ({})\n", wi.method);
                s += &scenario_table(&wi.scenarios);
                if !wi.sweep.is_empty() {
                    s += "     depth   MB/s        IOPS        p50 us      p99 us\n";
                    for p in &wi.sweep {
                        s += &format!(
                            "     {:<7} {:<11} {:<11} {:<11} {}\n",
                            p.depth,
                            num(p.throughput_mb_s),
                            num(p.iops),
                            num(p.p50_us),
                            num(p.p99_us)
                        );
                    }
                }
                if !wi.gains.is_empty() {
                    let g: Vec<String> = wi
                        .gains
                        .iter()
                        .map(|g| {
                            format!(
                                "{} {} -> {} ({:+.1} %)",
                                g.metric,
                                num(g.as_is),
                                num(g.with_fix),
                                g.change_percent
                            )
                        })
                        .collect();
                    s += &format!("   gain:      {}\n", g.join(", "));
                }
            }
        }
        s
    }
}

/// The scenarios side by side, a row per metric; rows without data in any scenario are left
/// out.
fn scenario_table(sc: &[Scenario]) -> String {
    if sc.is_empty() {
        return String::new();
    }
    type Row = (&'static str, fn(&Scenario) -> Option<String>);
    fn lat(l: Option<Lat>, f: fn(&Lat) -> f64) -> Option<String> {
        l.filter(|l| l.requests > 0).map(|l| num(f(&l)))
    }
    let rows: [Row; 13] = [
        ("throughput MB/s", |s| Some(num(s.throughput_mb_s))),
        ("IOPS", |s| Some(num(s.iops))),
        ("read p50 us", |s| lat(s.read, |l| l.p50_us)),
        ("read p99 us", |s| lat(s.read, |l| l.p99_us)),
        ("read p99.9 us", |s| lat(s.read, |l| l.p999_us)),
        ("write p50 us", |s| lat(s.write, |l| l.p50_us)),
        ("write p99 us", |s| lat(s.write, |l| l.p99_us)),
        ("write p99.9 us", |s| lat(s.write, |l| l.p999_us)),
        ("foreground GC", |s| Some(s.foreground_gc.to_string())),
        ("RMW reads", |s| Some(s.rmw_reads.to_string())),
        ("WAF (steady)", |s| s.waf.map(num)),
        ("bytes prog./byte", |s| s.bytes_programmed_per_byte.map(num)),
        ("lifetime", |s| Some(s.lifetime.clone())),
    ];
    let mut out = format!("     {:<19}", "");
    for s in sc {
        out += &format!("{:<16}", s.name);
    }
    out = out.trim_end().to_string() + "\n";
    for (name, f) in rows.iter() {
        let mut cells: Vec<Option<String>> = sc.iter().map(f).collect();
        if *name == "lifetime" {
            // Side by side in one unit.
            let secs: Vec<f64> = sc.iter().map(|s| s.lifetime_s.unwrap_or(f64::INFINITY)).collect();
            cells = crate::lifetime::human_durations(&secs).into_iter().map(Some).collect();
        }
        if cells.iter().all(Option::is_none) {
            continue;
        }
        out += &format!("     {name:<19}");
        for c in cells {
            out += &format!("{:<16}", c.unwrap_or_else(|| "-".into()));
        }
        out = out.trim_end().to_string() + "\n";
    }
    out
}

/// The lifetime gain of two scenarios, in years, when both write.
pub fn lifetime_gain(as_is: &Scenario, with_fix: &Scenario) -> Option<Gain> {
    let y = crate::lifetime::YEAR_S;
    Some(gain("lifetime years", as_is.lifetime_s? / y, with_fix.lifetime_s? / y))
}

/// The gain of `with_fix` over `as_is` in a metric.
pub fn gain(metric: &str, as_is: f64, with_fix: f64) -> Gain {
    Gain {
        metric: metric.to_string(),
        as_is,
        with_fix,
        change_percent: if as_is == 0.0 {
            0.0
        } else {
            crate::metrics::round3(100.0 * (with_fix - as_is) / as_is)
        },
    }
}
