//! Seed reproductions: an experiment is a set of independent points (device × scheme ×
//! workload × seed), each a full simulation, and an analysis that turns their results into
//! claims (the seed's figure beside ours, judged by a stated rule) and figures.
//!
//! The machinery here is shared; an experiment is one file implementing [`Experiment`] and a
//! line in [`REGISTRY`]. Points run in parallel over a thread pool and come back in their
//! declared order, so the result does not depend on the thread count.

pub mod cache;
pub mod friendly;
pub mod hotr;
pub mod openssd;
pub mod plan;
pub mod rodi;

use crate::metrics::RunResult;
use crate::workload::job::JobConfig;
use crate::{Config, Error, Result};
use rayon::prelude::*;
use serde::Serialize;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Every experiment, by name.
pub const REGISTRY: &[&dyn Experiment] = &[
    &friendly::Friendly,
    &openssd::OpenSsd,
    &plan::Plan,
    &hotr::HotR,
    &rodi::Rodi,
];

/// The experiment called `name`.
pub fn find(name: &str) -> Result<&'static dyn Experiment> {
    REGISTRY.iter().copied().find(|e| e.name() == name).ok_or_else(|| {
        let known: Vec<_> = REGISTRY.iter().map(|e| e.name()).collect();
        Error::Invalid(format!(
            "NAME: unknown experiment '{name}'; expected one of {} (see `ssdlab experiment list`)",
            known.join(", ")
        ))
    })
}

/// The full evaluation, or the reduced one the test suite runs (under a minute).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    Full,
    Quick,
}

/// One seed reproduction.
pub trait Experiment: Sync {
    /// Short name: `ssdlab experiment NAME`.
    fn name(&self) -> &'static str;
    /// One line: what it reproduces.
    fn title(&self) -> &'static str;
    /// The seed document it reproduces (a file of `shared/seeds/`).
    fn seed_document(&self) -> &'static str;
    /// How this scale departs from the seed's setup (device size, run lengths, ...).
    fn scale_note(&self, scale: Scale) -> String;
    /// The points to run.
    fn points(&self, scale: Scale) -> Result<Vec<Point>>;
    /// Claims and figures from the points' results (in the order of [`Experiment::points`]).
    fn analyse(&self, scale: Scale, runs: &[PointResult]) -> Analysis;
}

/// One independent simulation of an experiment.
#[derive(Clone, Debug)]
pub struct Point {
    /// Unique within the experiment, e.g. `small-writes/threads=4`.
    pub id: String,
    /// What varies: `device`, `scheme`, `workload`, `seed` and parameters, as (name, value).
    pub labels: Vec<(String, String)>,
    pub work: Work,
}

/// What a point simulates.
#[derive(Clone, Debug)]
pub enum Work {
    /// A run of the SSD simulator.
    Ssd(Box<Config>),
    /// A drive's characterization (`ssdlab characterize`): its throughput by read share,
    /// size, depth and pattern.
    Profile {
        base: Box<Config>,
        sweep: crate::array::characterize::Sweep,
    },
    /// Jobs on the hard-disk model.
    Hdd {
        disk: Box<crate::hdd::HddConfig>,
        jobs: Vec<JobConfig>,
        seed: u64,
    },
}

/// A point's result: the SSD simulator's or the disk model's.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Outcome {
    Ssd(Box<RunResult>),
    Hdd(Box<crate::hdd::HddResult>),
    Profile(Box<crate::array::profile::DeviceProfile>),
}

impl Outcome {
    pub fn jobs(&self) -> &[crate::metrics::JobResult] {
        match self {
            Outcome::Ssd(r) => &r.jobs,
            Outcome::Hdd(r) => &r.jobs,
            Outcome::Profile(_) => &[],
        }
    }
    /// The SSD section (none for a disk).
    pub fn ssd(&self) -> Option<&crate::metrics::SsdResult> {
        match self {
            Outcome::Ssd(r) => Some(&r.ssd),
            Outcome::Hdd(_) | Outcome::Profile(_) => None,
        }
    }
    /// The characterization (a profile point's).
    pub fn profile(&self) -> Option<&crate::array::profile::DeviceProfile> {
        match self {
            Outcome::Profile(p) => Some(p),
            _ => None,
        }
    }
}

/// [`Outcome`] on the wire, tagged by its kind (the JSON form is untagged).
#[derive(Serialize)]
enum WireRef<'a> {
    Ssd(&'a RunResult),
    Hdd(&'a crate::hdd::HddResult),
    Profile(&'a crate::array::profile::DeviceProfile),
}

#[derive(serde::Deserialize)]
enum Wire {
    Ssd(Box<RunResult>),
    Hdd(Box<crate::hdd::HddResult>),
    Profile(Box<crate::array::profile::DeviceProfile>),
}

impl Outcome {
    /// The outcome as bytes (MessagePack: exact floats) for another process, which reads it
    /// back with [`Outcome::from_bytes`] into an equal outcome.
    pub fn to_bytes(&self) -> Vec<u8> {
        let w = match self {
            Outcome::Ssd(r) => WireRef::Ssd(r),
            Outcome::Hdd(r) => WireRef::Hdd(r),
            Outcome::Profile(p) => WireRef::Profile(p),
        };
        rmp_serde::to_vec_named(&w).expect("results serialise")
    }
    pub fn from_bytes(b: &[u8]) -> Result<Outcome> {
        let w: Wire = rmp_serde::from_slice(b).map_err(|e| {
            Error::Invalid(format!(
                "a point's outcome: cannot read it ({e}); expected the bytes of Outcome::to_bytes"
            ))
        })?;
        Ok(match w {
            Wire::Ssd(r) => Outcome::Ssd(r),
            Wire::Hdd(r) => Outcome::Hdd(r),
            Wire::Profile(p) => Outcome::Profile(p),
        })
    }
}

impl Work {
    fn run(&self) -> Result<Outcome> {
        Ok(match self {
            Work::Ssd(cfg) => Outcome::Ssd(Box::new(crate::run_config(cfg)?)),
            Work::Hdd { disk, jobs, seed } => Outcome::Hdd(Box::new(crate::hdd::run_jobs(disk, jobs, *seed)?)),
            Work::Profile { base, sweep } => Outcome::Profile(Box::new(crate::array::characterize::characterize(
                base,
                sweep,
                &|_, _| {},
            )?)),
        })
    }
    fn memory_estimate(&self) -> Result<u64> {
        match self {
            Work::Ssd(cfg) => crate::sim::memory_estimate(cfg),
            // The preconditioned drive, and a copy per point running on each thread.
            Work::Profile { base, .. } => {
                Ok(crate::sim::memory_estimate(base)? * (1 + rayon::current_num_threads() as u64))
            }
            // The disk keeps no per-block state: the jobs' histograms and streams.
            Work::Hdd { jobs, .. } => Ok(jobs.len() as u64 * 200_000 + (1 << 20)),
        }
    }
}

impl Point {
    pub fn label(&self, name: &str) -> Option<&str> {
        label(&self.labels, name)
    }
}

fn label<'a>(labels: &'a [(String, String)], name: &str) -> Option<&'a str> {
    labels.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// A point's run, with the figures every table row shows.
#[derive(Clone, Debug, Serialize)]
pub struct PointResult {
    pub id: String,
    pub labels: crate::metrics::Ordered<String>,
    pub metrics: crate::metrics::Ordered<f64>,
    pub result: Outcome,
}

impl PointResult {
    pub fn label(&self, name: &str) -> Option<&str> {
        label(&self.labels.0, name)
    }
    /// The SSD run's result (an experiment asks this only of its SSD points).
    pub fn ssd(&self) -> &crate::metrics::SsdResult {
        self.result
            .ssd()
            .unwrap_or_else(|| panic!("point {} is not an SSD run", self.id))
    }
    /// A figure of [`row_metrics`] by name (NaN if absent).
    pub fn metric(&self, name: &str) -> f64 {
        self.metrics
            .0
            .iter()
            .find(|(k, _)| k == name)
            .map_or(f64::NAN, |(_, v)| *v)
    }
}

/// The figures of a run that every experiment's table shows, summed over its jobs:
/// per direction IOPS, MB/s (10^6 bytes), mean and worst job's p99 completion latency (µs);
/// the write amplification of the measured window and the lifetime it implies (days; NaN for a
/// disk, infinite without writes).
pub fn row_metrics(r: &Outcome) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for (dir, pick) in [("read", 0usize), ("write", 1)] {
        let ops = r.jobs().iter().map(|j| [&j.read, &j.write][pick]);
        let (mut iops, mut bytes_s, mut ios, mut lat_sum, mut p99) = (0.0, 0.0, 0u64, 0.0, 0.0f64);
        for o in ops {
            iops += o.iops;
            bytes_s += o.bw_bytes as f64;
            ios += o.total_ios;
            lat_sum += o.clat_ns.mean * o.total_ios as f64;
            let p = o
                .clat_ns
                .percentile
                .0
                .iter()
                .find(|(q, _)| q == "99.000000")
                .map_or(0, |p| p.1);
            if o.total_ios > 0 {
                p99 = p99.max(p as f64);
            }
        }
        let mean = if ios > 0 { lat_sum / ios as f64 } else { 0.0 };
        out.push((format!("{dir}_iops"), round(iops, 1)));
        out.push((format!("{dir}_mb_s"), round(bytes_s / 1e6, 3)));
        out.push((format!("{dir}_mean_us"), round(mean / 1e3, 3)));
        out.push((format!("{dir}_p99_us"), round(p99 / 1e3, 3)));
    }
    out.push(("waf".into(), r.ssd().map_or(f64::NAN, |s| s.waf)));
    // How long the flash would last under this workload, written without pause.
    let lifetime = r.ssd().map_or(f64::NAN, |s| {
        crate::lifetime::from_run_json(&serde_json::json!({ "ssd": s })).map_or(f64::NAN, |l| l.seconds())
    });
    out.push(("lifetime_days".into(), round(lifetime / crate::lifetime::DAY_S, 1)));
    out
}

fn round(x: f64, digits: i32) -> f64 {
    let m = 10f64.powi(digits);
    (x * m).round() / m
}

/// How a claim's value is judged against the seed's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rule {
    /// |ours − seed| ≤ tolerance × |seed|.
    Relative { tolerance: f64 },
    /// |ours − seed| ≤ tolerance.
    Absolute { tolerance: f64 },
    /// ours ≥ seed: a direction (e.g. a ratio at least 1).
    AtLeast,
    /// ours ≤ seed.
    AtMost,
    /// seed / factor ≤ ours ≤ seed × factor (both positive).
    Factor { factor: f64 },
}

impl Rule {
    pub fn holds(self, seed: f64, ours: f64) -> bool {
        if !seed.is_finite() || !ours.is_finite() {
            return false;
        }
        match self {
            Rule::Relative { tolerance } => (ours - seed).abs() <= tolerance * seed.abs(),
            Rule::Absolute { tolerance } => (ours - seed).abs() <= tolerance,
            Rule::AtLeast => ours >= seed,
            Rule::AtMost => ours <= seed,
            Rule::Factor { factor } => seed > 0.0 && ours >= seed / factor && ours <= seed * factor,
        }
    }
    /// The rule as the claims table prints it.
    pub fn describe(self) -> String {
        match self {
            Rule::Relative { tolerance } => format!("within ±{}%", tolerance * 100.0),
            Rule::Absolute { tolerance } => format!("within ±{tolerance}"),
            Rule::AtLeast => "at least the seed's".into(),
            Rule::AtMost => "at most the seed's".into(),
            Rule::Factor { factor } => format!("within a factor of {factor}"),
        }
    }
}

/// One figure the seed publishes, ours beside it; `reproduced` is computed, never set.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    pub id: String,
    pub text: String,
    pub seed_value: f64,
    pub our_value: f64,
    pub unit: String,
    /// The rule in words (`within ±25%`), as DESIGN.md's result shape names it.
    pub tolerance: String,
    pub rule: Rule,
    pub reproduced: bool,
    /// Set when the seed's figure comes from something the simulator does not model on
    /// purpose: the claim is reported, not tuned for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_difference: Option<String>,
    /// How our value was obtained.
    pub note: String,
}

impl Claim {
    pub fn new(id: &str, text: &str, seed_value: f64, our_value: f64, unit: &str, rule: Rule, note: String) -> Claim {
        Claim {
            id: id.into(),
            text: text.into(),
            seed_value,
            our_value,
            unit: unit.into(),
            tolerance: rule.describe(),
            rule,
            reproduced: rule.holds(seed_value, our_value),
            known_difference: None,
            note,
        }
    }
    pub fn known_difference(mut self, why: &str) -> Claim {
        self.known_difference = Some(why.into());
        self
    }
}

/// A line (or set of points) of a figure.
#[derive(Clone, Debug, Serialize)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A plot: the CLI draws it as SVG.
#[derive(Clone, Debug, Serialize)]
pub struct Figure {
    /// File name without extension.
    pub id: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_x: bool,
    pub series: Vec<Series>,
    /// A bar chart when not empty: x of a series' point is the index of its category here,
    /// and each series is one bar per category, side by side.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
}

/// What an experiment concludes from its points.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    pub claims: Vec<Claim>,
    pub figures: Vec<Figure>,
}

/// The result of `ssdlab experiment NAME`, in the shape DESIGN.md gives.
#[derive(Clone, Debug, Serialize)]
pub struct ExperimentResult {
    pub experiment: String,
    pub title: String,
    pub seed_document: String,
    pub claims: Vec<Claim>,
    pub runs: Vec<PointResult>,
    pub figures: Vec<Figure>,
    pub scale: ScaleReport,
}

#[derive(Clone, Debug, Serialize)]
pub struct ScaleReport {
    pub scale: Scale,
    pub note: String,
    pub points: usize,
    /// Wall-clock seconds of the whole experiment (the one field that varies between runs).
    pub wall_time_s: f64,
}

impl ExperimentResult {
    /// The result as JSON with every wall-clock field zeroed: equal for equal inputs,
    /// whatever the thread count.
    pub fn deterministic_json(&self) -> String {
        let mut r = self.clone();
        r.scale.wall_time_s = 0.0;
        let zero = |ssd: &mut crate::metrics::SsdResult| {
            ssd.wall_time_s = 0.0;
            ssd.sim_requests_per_wall_s = 0.0;
            if let Some(o) = ssd.precondition.as_object_mut() {
                o.remove("wall_time_s");
            }
        };
        for p in &mut r.runs {
            if let Outcome::Ssd(s) = &mut p.result {
                zero(&mut s.ssd);
                // An array's members have theirs.
                for m in s.members.iter_mut().flatten() {
                    if let Some(ssd) = &mut m.ssd {
                        zero(ssd);
                    }
                }
            }
        }
        serde_json::to_string_pretty(&r).expect("serialisable")
    }
}

/// Memory all points need when `threads` of them run at once: the largest `threads` estimates.
pub fn memory_estimate(points: &[Point], threads: usize) -> Result<u64> {
    let mut each = points
        .iter()
        .map(|p| p.work.memory_estimate())
        .collect::<Result<Vec<u64>>>()?;
    each.sort_unstable_by(|a, b| b.cmp(a));
    Ok(each.iter().take(threads.max(1)).sum())
}

/// Run every point of `exp` at `scale` on `threads` threads (0: one per core), calling
/// `progress(done, total)` as points finish.
pub fn run(
    exp: &dyn Experiment,
    scale: Scale,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<ExperimentResult> {
    run_cached(exp, scale, threads, None, progress)
}

/// As [`run`], taking the points already in `cache` from it and storing each point there
/// as it finishes: a run interrupted ([`crate::sim::interrupt`]) keeps its finished points,
/// and the next one runs only the others.
pub fn run_cached(
    exp: &dyn Experiment,
    scale: Scale,
    threads: usize,
    cache: Option<&cache::PointCache>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<ExperimentResult> {
    let start = std::time::Instant::now();
    let points = points_of(exp, scale)?;
    let pool = thread_pool(threads)?;
    let one = |p: &Point| {
        let Some(cache) = cache else {
            return run_point(exp, p);
        };
        let key = cache::PointCache::key(exp, p);
        if let Some(o) = cache.load(&key) {
            return Ok(o);
        }
        // Points not started when an interrupt comes are not started.
        crate::sim::check_interrupt()?;
        let o = run_point(exp, p)?;
        cache.store(&key, &o)?;
        Ok(o)
    };
    let results: Vec<Result<Outcome>> = pool.install(|| run_points(&points, progress, one));
    let outcomes = results.into_iter().collect::<Result<Vec<_>>>()?;
    Ok(assemble(exp, scale, &points, outcomes, start.elapsed().as_secs_f64()))
}

/// The points of `exp` at `scale`, checked to have distinct ids. Running them one by one
/// anywhere ([`run_point`]) and handing the outcomes to [`assemble`] in this order gives what
/// [`run`] gives: the way a distributed front end runs an experiment.
pub fn points_of(exp: &dyn Experiment, scale: Scale) -> Result<Vec<Point>> {
    let points = exp.points(scale)?;
    let mut seen = std::collections::BTreeSet::new();
    for p in &points {
        assert!(seen.insert(&p.id), "experiment {}: point id {} twice", exp.name(), p.id);
    }
    Ok(points)
}

/// Simulate one point of `exp`.
pub fn run_point(exp: &dyn Experiment, p: &Point) -> Result<Outcome> {
    p.work.run().map_err(|e| match e {
        Error::Interrupted => e,
        e => Error::Invalid(format!("experiment {} point {}: {e}", exp.name(), p.id)),
    })
}

/// The experiment's result from its points' outcomes, in the points' order; `wall_time_s`
/// is what the whole took.
pub fn assemble(
    exp: &dyn Experiment,
    scale: Scale,
    points: &[Point],
    outcomes: Vec<Outcome>,
    wall_time_s: f64,
) -> ExperimentResult {
    assert_eq!(points.len(), outcomes.len(), "one outcome per point");
    let runs: Vec<PointResult> = points
        .iter()
        .zip(outcomes)
        .map(|(p, result)| PointResult {
            id: p.id.clone(),
            labels: crate::metrics::Ordered(p.labels.clone()),
            metrics: crate::metrics::Ordered(row_metrics(&result)),
            result,
        })
        .collect();
    let analysis = exp.analyse(scale, &runs);
    ExperimentResult {
        experiment: exp.name().into(),
        title: exp.title().into(),
        seed_document: exp.seed_document().into(),
        claims: analysis.claims,
        runs,
        figures: analysis.figures,
        scale: ScaleReport {
            scale,
            note: exp.scale_note(scale),
            points: points.len(),
            wall_time_s: round(wall_time_s, 3),
        },
    }
}

/// Run `f` on every point in parallel on the current thread pool, calling `progress(done,
/// total)` first with 0 and then as points finish; the results come back in the points'
/// order, so they do not depend on the thread count.
pub fn run_points<T: Sync, R: Send>(
    points: &[T],
    progress: &(dyn Fn(usize, usize) + Sync),
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let done = AtomicUsize::new(0);
    let total = points.len();
    progress(0, total);
    points
        .par_iter()
        .map(|p| {
            let r = f(p);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            r
        })
        .collect()
}

/// A pool of `threads` threads (0: one per core) for points run at once.
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| {
            Error::Invalid(format!(
                "--threads: cannot start {threads} threads ({e}); expected fewer"
            ))
        })
}

/// Label names in first-seen order over all points (the table's label columns).
fn label_names(runs: &[PointResult]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for r in runs {
        for (k, _) in &r.labels.0 {
            if !names.contains(k) {
                names.push(k.clone());
            }
        }
    }
    names
}

/// The table's header and rows: point id, labels, metrics.
fn table_rows(runs: &[PointResult]) -> (Vec<String>, Vec<Vec<String>>) {
    let labels = label_names(runs);
    let metrics: Vec<String> = runs
        .first()
        .map(|r| r.metrics.0.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let mut header = vec!["point".to_string()];
    header.extend(labels.iter().cloned());
    header.extend(metrics.iter().cloned());
    let rows = runs
        .iter()
        .map(|r| {
            let mut row = vec![r.id.clone()];
            row.extend(labels.iter().map(|l| r.label(l).unwrap_or("").to_string()));
            // A figure the point has not (a disk's WAF) is an empty cell.
            row.extend(
                metrics
                    .iter()
                    .map(|m| Some(r.metric(m)).filter(|x| !x.is_nan()).map_or(String::new(), fmt_num)),
            );
            row
        })
        .collect();
    (header, rows)
}

/// A number as tables print it: integers without a fraction, others to 4 significant digits.
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return format!("{x}");
    }
    if x == x.trunc() && x.abs() < 1e15 {
        return format!("{x:.0}");
    }
    let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.digits$}")
}

/// One row per point, as CSV.
pub fn table_csv(runs: &[PointResult]) -> String {
    let (header, rows) = table_rows(runs);
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&header).expect("in memory");
    for r in rows {
        w.write_record(&r).expect("in memory");
    }
    String::from_utf8(w.into_inner().expect("in memory")).expect("UTF-8 in, UTF-8 out")
}

/// The claims table, then one row per point, as Markdown.
pub fn table_md(res: &ExperimentResult) -> String {
    let mut s = format!(
        "# {}: {}\n\nSeed: `{}`. {}\n\n",
        res.experiment, res.title, res.seed_document, res.scale.note
    );
    s += &claims_md(&res.claims);
    let (header, rows) = table_rows(&res.runs);
    s += "\n## Points\n\n";
    s += &md_row(&header);
    s += &md_row(&header.iter().map(|_| "---".to_string()).collect::<Vec<_>>());
    for r in rows {
        s += &md_row(&r);
    }
    s
}

fn md_row(cells: &[String]) -> String {
    format!(
        "| {} |\n",
        cells
            .iter()
            .map(|c| c.replace('|', "\\|"))
            .collect::<Vec<_>>()
            .join(" | ")
    )
}

/// The claims as a Markdown table: seed value, ours, rule, ✔/✘.
pub fn claims_md(claims: &[Claim]) -> String {
    let mut s = md_row(&["claim", "seed", "ours", "unit", "rule", "reproduced"].map(String::from));
    s += &md_row(&["---"; 6].map(String::from));
    for c in claims {
        let mark = match (c.reproduced, &c.known_difference) {
            (true, _) => "✔".to_string(),
            (false, None) => "✘".to_string(),
            (false, Some(_)) => "✘ (known difference)".to_string(),
        };
        s += &md_row(&[
            format!("{}: {}", c.id, c.text),
            fmt_num(c.seed_value),
            fmt_num(c.our_value),
            c.unit.clone(),
            c.tolerance.clone(),
            mark,
        ]);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_judge_by_their_tolerance() {
        let rel = Rule::Relative { tolerance: 0.25 };
        assert!(rel.holds(100.0, 125.0) && rel.holds(100.0, 75.0));
        assert!(!rel.holds(100.0, 125.1) && !rel.holds(100.0, 74.9));
        // The tolerance is relative to the seed's value, not ours.
        assert!(!rel.holds(80.0, 101.0) && rel.holds(80.0, 99.0));
        assert!(rel.holds(-4.0, -5.0) && !rel.holds(-4.0, -5.1));
        let abs = Rule::Absolute { tolerance: 2.0 };
        assert!(abs.holds(10.0, 12.0) && abs.holds(10.0, 8.0) && !abs.holds(10.0, 12.01));
        assert!(Rule::AtLeast.holds(1.0, 1.0) && Rule::AtLeast.holds(1.0, 1.5) && !Rule::AtLeast.holds(1.0, 0.99));
        assert!(Rule::AtMost.holds(1.0, 1.0) && Rule::AtMost.holds(1.0, 0.5) && !Rule::AtMost.holds(1.0, 1.01));
        let f = Rule::Factor { factor: 2.0 };
        assert!(f.holds(100.0, 50.0) && f.holds(100.0, 200.0) && f.holds(100.0, 120.0));
        assert!(!f.holds(100.0, 49.9) && !f.holds(100.0, 200.1) && !f.holds(0.0, 0.0));
        assert_eq!(f.describe(), "within a factor of 2");
        for r in [rel, abs, Rule::AtLeast, Rule::AtMost] {
            assert!(!r.holds(1.0, f64::NAN) && !r.holds(f64::INFINITY, 1.0));
        }
    }

    #[test]
    fn a_claim_is_judged_when_it_is_made() {
        let c = Claim::new(
            "x",
            "t",
            115.0,
            140.0,
            "MB/s",
            Rule::Relative { tolerance: 0.25 },
            String::new(),
        );
        assert!(c.reproduced);
        assert_eq!(c.tolerance, "within ±25%");
        let c = Claim::new(
            "x",
            "t",
            115.0,
            150.0,
            "MB/s",
            Rule::Relative { tolerance: 0.25 },
            String::new(),
        );
        assert!(!c.reproduced);
        let md = claims_md(&[c.clone(), c.known_difference("host effects")]);
        assert!(md.contains("| x: t | 115 | 150 | MB/s | within ±25% | ✘ |"), "{md}");
        assert!(md.contains("✘ (known difference)"), "{md}");
    }

    #[test]
    fn numbers_print_with_four_significant_digits() {
        assert_eq!(fmt_num(115.0), "115");
        assert_eq!(fmt_num(2.3151), "2.315");
        assert_eq!(fmt_num(0.0125), "0.01250");
        assert_eq!(fmt_num(1234.56), "1235");
        assert_eq!(fmt_num(f64::NAN), "NaN");
    }

    /// Three small runs that differ by their job's seed and queue depth.
    struct Tiny;
    impl Experiment for Tiny {
        fn name(&self) -> &'static str {
            "tiny"
        }
        fn title(&self) -> &'static str {
            "three small runs"
        }
        fn seed_document(&self) -> &'static str {
            "none"
        }
        fn scale_note(&self, scale: Scale) -> String {
            format!("{scale:?}")
        }
        fn points(&self, _: Scale) -> Result<Vec<Point>> {
            (1..=3u32)
                .map(|i| {
                    let text = format!(
                        r#"
[device]
name = "tiny"
[device.geometry]
channels = 2
ways = 1
blocks_per_plane = 64
pages_per_block = 32
page_size = "4KiB"
overprovisioning = 0.25
[device.nand]
cell = "slc"
read = "25us"
program = "200us"
erase = "1.5ms"
channel_rate = "400MB/s"
endurance = 1000
[device.host]
interface = "sata3"
command_overhead = "1us"
[precondition]
mode = "steady"
utilisation = 0.9
[[job]]
name = "mix"
rw = "randrw"
bs = "4KiB"
iodepth = {i}
number_ios = 3000
seed = {i}
"#
                    );
                    Ok(Point {
                        id: format!("qd={i}"),
                        labels: vec![("iodepth".into(), i.to_string())],
                        work: Work::Ssd(Box::new(crate::config::parse_config(
                            &text,
                            "tiny",
                            std::path::Path::new("."),
                        )?)),
                    })
                })
                .collect()
        }
        fn analyse(&self, _: Scale, runs: &[PointResult]) -> Analysis {
            let (a, b) = (runs[0].metric("read_iops"), runs[2].metric("read_iops"));
            Analysis {
                claims: vec![Claim::new(
                    "depth",
                    "depth 3 reads faster",
                    1.0,
                    b / a,
                    "×",
                    Rule::AtLeast,
                    String::new(),
                )],
                figures: vec![],
            }
        }
    }

    #[test]
    fn points_come_back_in_order_whatever_the_thread_count() {
        let calls = AtomicUsize::new(0);
        let count = |done: usize, total: usize| {
            assert!(done <= total && total == 3);
            calls.fetch_add(1, Ordering::Relaxed);
        };
        let one = run(&Tiny, Scale::Quick, 1, &count).unwrap();
        let three = run(&Tiny, Scale::Quick, 3, &count).unwrap();
        // Once at the start and once per point, each run.
        assert_eq!(calls.load(Ordering::Relaxed), 8);
        assert_eq!(one.deterministic_json(), three.deterministic_json());
        let ids: Vec<_> = three.runs.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["qd=1", "qd=2", "qd=3"]);
        // Each row's figures are its own run's: 3,000 I/Os each.
        for r in &three.runs {
            let job = &r.result.jobs()[0];
            assert_eq!(job.read.total_ios + job.write.total_ios, 3000);
            let iops = job.read.iops;
            assert_eq!(r.metric("read_iops"), (iops * 10.0).round() / 10.0);
        }
        assert!(three.claims[0].reproduced, "{:?}", three.claims[0]);
        assert_eq!(three.scale.points, 3);
        let csv = table_csv(&three.runs);
        let lines: Vec<_> = csv.lines().collect();
        assert_eq!(lines.len(), 4);
        assert!(
            lines[0].starts_with("point,iodepth,read_iops,read_mb_s,read_mean_us,read_p99_us,write_iops"),
            "{csv}"
        );
        assert!(lines[3].starts_with("qd=3,3,"), "{csv}");
        let md = table_md(&three);
        assert!(md.contains("| qd=2 | 2 | "), "{md}");
        assert!(md.contains("| depth: depth 3 reads faster | 1 |"), "{md}");
    }

    #[test]
    fn memory_of_points_at_once_is_the_largest_estimates() {
        let points = Tiny.points(Scale::Quick).unwrap();
        let each: Vec<u64> = points.iter().map(|p| p.work.memory_estimate().unwrap()).collect();
        assert!(each[2] > each[0], "deeper queues need more");
        assert_eq!(memory_estimate(&points, 1).unwrap(), each[2]);
        assert_eq!(memory_estimate(&points, 2).unwrap(), each[2] + each[1]);
        assert_eq!(memory_estimate(&points, 8).unwrap(), each.iter().sum::<u64>());
    }

    #[test]
    fn unknown_experiments_are_named_with_the_known_ones() {
        let e = find("nope").err().unwrap().to_string();
        assert!(e.contains("unknown experiment 'nope'; expected one of friendly"), "{e}");
        assert_eq!(find("friendly").unwrap().name(), "friendly");
    }
}
