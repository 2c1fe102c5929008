//! Seed reproductions: an experiment is a set of independent points (device × scheme ×
//! workload × seed), each a full simulation, and an analysis that turns their results into
//! claims (the seed's figure beside ours, judged by a stated rule) and figures.
//!
//! The machinery here is shared; an experiment is one file implementing [`Experiment`] and a
//! line in [`REGISTRY`]. Points run in parallel over a thread pool and come back in their
//! declared order, so the result does not depend on the thread count.

pub mod cache;
pub mod fdp;
pub mod friendly;
pub mod hotr;
pub mod openssd;
pub mod plan;
pub mod rodi;
pub mod zns;

use crate::metrics::RunResult;
pub use crate::parallel::{run_points, thread_pool};
use crate::workload::job::JobConfig;
use crate::{Config, Error, Result};
use serde::Serialize;

/// Every experiment, by name.
pub const REGISTRY: &[&dyn Experiment] = &[
    &friendly::Friendly,
    &openssd::OpenSsd,
    &plan::Plan,
    &hotr::HotR,
    &rodi::Rodi,
    &fdp::Fdp,
    &zns::Zns,
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
    /// Whether the outcome of `point` (one of [`Experiment::points`]) enters a claim. Only
    /// those points run again under the other simulation seeds (`--seeds`): the other seeds
    /// measure the claims' noise, and a point that only a figure shows has no claim whose
    /// noise it could move. Every point, unless the experiment says otherwise; an experiment
    /// that says otherwise has a test that its claims do not change with the others' outcomes.
    fn in_claims(&self, _point: &Point) -> bool {
        true
    }
    /// The conditions of the setup the claims depend on, each with its source; where the seed
    /// leaves one open, its other readings' claims are among the analysis's (`alternative`).
    fn conditions(&self) -> Vec<Condition> {
        Vec::new()
    }
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
        sweep: crate::characterize::Sweep,
    },
    /// Jobs on the hard-disk model.
    Hdd {
        disk: Box<crate::hdd::HddConfig>,
        jobs: Vec<JobConfig>,
        seed: u64,
    },
    /// Zone-management commands timed one by one on a fresh zoned drive
    /// ([`crate::zone_ops`]).
    Zones {
        config: Box<Config>,
        test: crate::zone_ops::ZoneTest,
        zones: u32,
    },
}

/// A point's result: the SSD simulator's or the disk model's.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum Outcome {
    Ssd(Box<RunResult>),
    Hdd(Box<crate::hdd::HddResult>),
    Profile(Box<crate::array::profile::DeviceProfile>),
    Zones(Box<crate::zone_ops::ZoneTestResult>),
}

impl Outcome {
    pub fn jobs(&self) -> &[crate::metrics::JobResult] {
        match self {
            Outcome::Ssd(r) => &r.jobs,
            Outcome::Hdd(r) => &r.jobs,
            Outcome::Profile(_) | Outcome::Zones(_) => &[],
        }
    }
    /// The SSD section (none for a disk).
    pub fn ssd(&self) -> Option<&crate::metrics::SsdResult> {
        match self {
            Outcome::Ssd(r) => Some(&r.ssd),
            Outcome::Hdd(_) | Outcome::Profile(_) | Outcome::Zones(_) => None,
        }
    }
    /// The characterization (a profile point's).
    pub fn profile(&self) -> Option<&crate::array::profile::DeviceProfile> {
        match self {
            Outcome::Profile(p) => Some(p),
            _ => None,
        }
    }
    /// The timed zone commands (a zone test's).
    pub fn zones(&self) -> Option<&crate::zone_ops::ZoneTestResult> {
        match self {
            Outcome::Zones(z) => Some(z),
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
    Zones(&'a crate::zone_ops::ZoneTestResult),
}

#[derive(serde::Deserialize)]
enum Wire {
    Ssd(Box<RunResult>),
    Hdd(Box<crate::hdd::HddResult>),
    Profile(Box<crate::array::profile::DeviceProfile>),
    Zones(Box<crate::zone_ops::ZoneTestResult>),
}

impl Outcome {
    /// The outcome as bytes (MessagePack: exact floats) for another process, which reads it
    /// back with [`Outcome::from_bytes`] into an equal outcome.
    pub fn to_bytes(&self) -> Vec<u8> {
        let w = match self {
            Outcome::Ssd(r) => WireRef::Ssd(r),
            Outcome::Hdd(r) => WireRef::Hdd(r),
            Outcome::Profile(p) => WireRef::Profile(p),
            Outcome::Zones(z) => WireRef::Zones(z),
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
            Wire::Zones(z) => Outcome::Zones(z),
        })
    }
}

impl Work {
    fn run(&self) -> Result<Outcome> {
        Ok(match self {
            Work::Ssd(cfg) => Outcome::Ssd(Box::new(crate::run_config(cfg)?)),
            Work::Hdd { disk, jobs, seed } => Outcome::Hdd(Box::new(crate::hdd::run_jobs(disk, jobs, *seed)?)),
            Work::Profile { base, sweep } => {
                Outcome::Profile(Box::new(crate::characterize::characterize(base, sweep, &|_, _| {})?))
            }
            Work::Zones { config, test, zones } => {
                Outcome::Zones(Box::new(crate::zone_ops::run(config, *test, *zones)?))
            }
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
            Work::Zones { config, .. } => crate::sim::memory_estimate(config),
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

/// How a claim's value is judged against the seed's (the policy: docs/experiments/README.md).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rule {
    /// |ours − seed| ≤ tolerance × |seed|: an absolute figure or a ratio (±25 % unless the
    /// seed's own measurements spread wider).
    Relative { tolerance: f64 },
    /// |ours − seed| ≤ tolerance, in the claim's unit (a share in points).
    Absolute { tolerance: f64 },
    /// ours ≥ seed: a one-sided threshold the seed states ("at least 25 % lower").
    AtLeast,
    /// ours ≤ seed: a one-sided threshold the seed states ("at most ...").
    AtMost,
    /// ours − seed > margin: a direction ("A beats B" as a difference or a ratio above 1),
    /// passing only beyond the noise margin the experiment measured (never on a tie).
    Above { margin: f64 },
    /// seed − ours > margin: a direction downwards, beyond the noise margin.
    Below { margin: f64 },
    /// seed − ours ≤ margin: "kept" (not lower), failing only when ours is lower than the
    /// seed's by more than the noise margin the experiment measured.
    NotBelow { margin: f64 },
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
            Rule::Above { margin } => margin.is_finite() && ours - seed > margin.max(0.0),
            Rule::Below { margin } => margin.is_finite() && seed - ours > margin.max(0.0),
            Rule::NotBelow { margin } => seed - ours <= margin.max(0.0),
        }
    }
    /// The rule as the claims table prints it.
    pub fn describe(self) -> String {
        match self {
            Rule::Relative { tolerance } => format!("within ±{}%", round(tolerance * 100.0, 6)),
            Rule::Absolute { tolerance } => format!("within ±{tolerance}"),
            Rule::AtLeast => "at least the seed's".into(),
            Rule::AtMost => "at most the seed's".into(),
            Rule::Above { margin } => format!(
                "above the seed's by more than {} (minimum effect or noise)",
                fmt_num(margin)
            ),
            Rule::Below { margin } => format!(
                "below the seed's by more than {} (minimum effect or noise)",
                fmt_num(margin)
            ),
            Rule::NotBelow { margin } => {
                format!(
                    "not below the seed's by more than {} (minimum effect or noise)",
                    fmt_num(margin)
                )
            }
        }
    }
    /// A direction upwards; its margin is the noise the experiment measures.
    pub const ABOVE: Rule = Rule::Above { margin: 0.0 };
    /// A direction downwards; its margin is the noise the experiment measures.
    pub const BELOW: Rule = Rule::Below { margin: 0.0 };
    /// Kept (not lower); its margin is the noise the experiment measures.
    pub const NOT_BELOW: Rule = Rule::NotBelow { margin: 0.0 };
    /// The rule with its margin raised to at least `m` (direction and "kept" rules; the
    /// others are returned as they are).
    pub fn with_margin(self, m: f64) -> Rule {
        match self {
            Rule::Above { margin } => Rule::Above { margin: margin.max(m) },
            Rule::Below { margin } => Rule::Below { margin: margin.max(m) },
            Rule::NotBelow { margin } => Rule::NotBelow { margin: margin.max(m) },
            r => r,
        }
    }
    /// A direction rule (its pass needs a difference beyond the noise margin).
    pub fn is_direction(self) -> bool {
        matches!(self, Rule::Above { .. } | Rule::Below { .. })
    }
}

/// What a claim is: only `seed` and `known_difference` claims are figures the seed publishes,
/// and only they are counted in "N of M seed claims reproduced".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClaimKind {
    /// A figure, ordering or statement the seed publishes.
    Seed,
    /// A seed figure that depends on something ssdlab does not model on purpose: reported,
    /// counted among the seed claims, never as reproduced.
    KnownDifference,
    /// Our own consistency check (formula arithmetic, a model beside the simulation, a
    /// property of the layout, a seed figure the model is built from): it tests the
    /// simulator, not the seed's result.
    Check,
    /// A seed figure that follows arithmetically from other claims (`follows_from`) and the
    /// model's inputs (a ratio of two counted figures, a product with a built-in cost): shown,
    /// never counted, since it passes or fails with the claims it follows from.
    Derived,
    /// A seed claim under another reading of a condition the seed leaves open (`reading`):
    /// shown beside the counted claim it stands for (`replaces`), never counted; the
    /// experiment's `readings` give the count each reading would give.
    Alternative,
}

/// How a claim came out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The rule holds.
    Reproduced,
    /// The rule does not hold.
    Missed,
    /// The rule holds for a known difference: not counted as reproduced.
    Coincidence,
    /// The rule holds under some simulation seeds of the run and not under others: not
    /// counted as reproduced.
    Unstable,
    /// The scheme the claim is about did nothing measurable on this workload: not reproduced,
    /// whatever the rule says.
    NoSignal,
}

/// One figure the seed publishes, ours beside it; `reproduced` is computed, never set.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    pub id: String,
    pub kind: ClaimKind,
    pub text: String,
    /// The seed's own words the claim comes from, quoted from the seed document in its
    /// language (a sentence, a table cell or a figure caption; `…` joins the parts of a longer
    /// passage). Every seed claim has one; a check may quote what it checks, or nothing.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub source: String,
    pub seed_value: f64,
    pub our_value: f64,
    pub unit: String,
    /// The rule in words (`within ±25%`), as DESIGN.md's result shape names it.
    pub tolerance: String,
    pub rule: Rule,
    /// Whether the rule holds for the two values.
    pub rule_holds: bool,
    pub verdict: Verdict,
    /// A seed claim whose rule holds with a signal (checks: the rule holds).
    pub reproduced: bool,
    /// Why the seed's figure depends on something ssdlab does not model, and what would be
    /// needed to remove the difference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_difference: Option<String>,
    /// Why the claim had no signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_signal: Option<String>,
    /// How far our value moved when the experiment ran again under other simulation seeds
    /// (`--seeds`): the largest difference from this run's (absent with one seed). A direction
    /// rule's margin is this noise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise: Option<f64>,
    /// Our value under each simulation seed of the run, the first seed's first (absent with
    /// one seed). The verdict needs the rule to hold under every one of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<f64>,
    /// The smallest difference a direction, ordering or "kept" rule counts as an effect, in
    /// the claim's unit ([`MIN_EFFECT`] of the compared quantity): its margin is the larger of
    /// this and the noise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_effect: Option<f64>,
    /// Which case of a seed statement that covers several (a workload, a drive) the claim
    /// judges: the statement and the case together name what the claim reads of the seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case: Option<String>,
    /// A derived claim's: the ids of the claims it follows from.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub follows_from: Vec<String>,
    /// An alternative claim's: the condition and the reading of it this claim is judged under.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
    /// An alternative claim's: the id of the counted claim it stands for under its reading.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    /// How our value was obtained.
    pub note: String,
}

/// The smallest effect a direction, ordering or "kept" claim may pass on, as a share of the
/// compared quantity: 1 %. The seeds print their figures to three significant digits and the
/// smallest difference any of them reports as an effect is about 10 % (PLAN's fileserver
/// bandwidth, "提高了约10%"; HotR's 13.9 %); a simulated difference below 1 % is ten times
/// smaller than anything the seeds call an effect, and below the model's own resolution
/// (page-granular mapping, one timing per page type), so it cannot confirm one.
/// docs/experiments/README.md states the policy.
pub const MIN_EFFECT: f64 = 0.01;

/// A direction claim's default minimum effect in its unit: [`MIN_EFFECT`] of the seed's value
/// when that is a ratio or a figure (a ratio of 1 → 0.01), one point when the claim is a
/// percentage or a difference in points of a percentage; none otherwise (the experiment sets
/// it, [`Claim::min_effect`]).
fn default_min_effect(seed: f64, unit: &str) -> Option<f64> {
    if seed != 0.0 && seed.is_finite() {
        Some(MIN_EFFECT * seed.abs())
    } else if unit.starts_with('%') || unit.starts_with("points") {
        Some(MIN_EFFECT * 100.0)
    } else {
        None
    }
}

impl Claim {
    /// A seed claim.
    pub fn new(id: &str, text: &str, seed_value: f64, our_value: f64, unit: &str, rule: Rule, note: String) -> Claim {
        let holds = rule.holds(seed_value, our_value);
        let mut c = Claim {
            id: id.into(),
            kind: ClaimKind::Seed,
            text: text.into(),
            source: String::new(),
            seed_value,
            our_value,
            unit: unit.into(),
            tolerance: rule.describe(),
            rule,
            rule_holds: holds,
            verdict: Verdict::Missed,
            reproduced: false,
            known_difference: None,
            no_signal: None,
            noise: None,
            values: Vec::new(),
            min_effect: None,
            case: None,
            follows_from: Vec::new(),
            reading: None,
            replaces: None,
            note,
        };
        if rule.is_direction() || matches!(rule, Rule::NotBelow { .. }) {
            if let Some(m) = default_min_effect(seed_value, unit) {
                c = c.min_effect(m);
            }
        }
        c.judge();
        c
    }
    /// The smallest difference the claim's direction or "kept" rule counts as an effect, in
    /// the claim's unit (see [`Claim::min_effect`]); its margin becomes at least this.
    pub fn min_effect(mut self, effect: f64) -> Claim {
        self.min_effect = Some(effect);
        self.rule = self.rule.with_margin(effect);
        self.tolerance = self.rule.describe();
        self.judge();
        self
    }
    /// The case of its statement the claim judges (see [`Claim::case`]).
    pub fn case(mut self, case: &str) -> Claim {
        self.case = Some(case.into());
        self
    }
    /// A figure that follows from the claims `from` and the model's inputs: shown, not
    /// counted (`why`: how it follows).
    pub fn derived(mut self, from: &[&str], why: &str) -> Claim {
        self.kind = ClaimKind::Derived;
        self.follows_from = from.iter().map(|f| f.to_string()).collect();
        if !why.is_empty() {
            self.note = format!("{} (follows from {}: {why})", self.note, from.join(", "));
        }
        self.judge();
        self
    }
    /// This seed claim judged under another `reading` of a condition the seed leaves open,
    /// standing for the counted claim of the same id; its id becomes `ID@LABEL`.
    pub fn alternative(mut self, label: &str, reading: &str) -> Claim {
        self.replaces = Some(self.id.clone());
        self.id = format!("{}@{label}", self.id);
        self.kind = ClaimKind::Alternative;
        self.reading = Some(reading.into());
        self.judge();
        self
    }
    /// The seed's words the claim comes from (see [`Claim::source`]).
    pub fn source(mut self, quote: &str) -> Claim {
        self.source = quote.into();
        self
    }
    /// Our own check rather than a seed figure: reported, never counted among the seed's.
    pub fn check(mut self) -> Claim {
        self.kind = ClaimKind::Check;
        self.judge();
        self
    }
    /// A seed figure ssdlab does not model on purpose: `why`, and what would remove it.
    pub fn known_difference(mut self, why: &str) -> Claim {
        self.kind = ClaimKind::KnownDifference;
        self.known_difference = Some(why.into());
        self.judge();
        self
    }
    /// Marks the claim as having no signal when `none` says so (the scheme did nothing
    /// measurable): `why` says what was measured.
    pub fn no_signal_if(mut self, none: bool, why: &str) -> Claim {
        if none {
            self.no_signal = Some(why.into());
        }
        self.judge();
        self
    }
    /// The verdict from the rule under every simulation seed's value (`values`, or the one
    /// value with one seed): reproduced only if it holds under all, unstable if under some.
    fn judge(&mut self) {
        self.rule_holds = self.rule.holds(self.seed_value, self.our_value);
        let held = if self.values.is_empty() {
            self.rule_holds as usize
        } else {
            self.values
                .iter()
                .filter(|&&v| self.rule.holds(self.seed_value, v))
                .count()
        };
        let all = self.values.len().max(1);
        self.verdict = match (self.kind, held, &self.no_signal) {
            (_, _, Some(_)) => Verdict::NoSignal,
            (_, 0, None) => Verdict::Missed,
            (_, h, None) if h < all => Verdict::Unstable,
            (ClaimKind::KnownDifference, _, None) => Verdict::Coincidence,
            (_, _, None) => Verdict::Reproduced,
        };
        self.reproduced = self.verdict == Verdict::Reproduced;
    }
    /// Records our value under every simulation seed (the first seed's first) and the noise
    /// (the largest distance from the first's); a direction or "kept" rule takes the noise as
    /// its margin when it is larger than the minimum effect, and the verdict needs the rule
    /// to hold under every seed.
    fn with_values(&mut self, values: Vec<f64>) {
        let first = values[0];
        let noise = values[1..].iter().fold(0.0f64, |w, &v| {
            let d = if v == first { 0.0 } else { (v - first).abs() };
            // NaN (a value absent in one run) counts as unbounded noise.
            if d.is_nan() {
                f64::INFINITY
            } else {
                w.max(d)
            }
        });
        self.noise = Some(noise);
        self.values = values;
        self.rule = self.rule.with_margin(noise);
        self.tolerance = self.rule.describe();
        self.judge();
    }
    /// A figure the seed publishes, counted in the summary (not a check, a derived figure
    /// or another reading).
    pub fn is_seed(&self) -> bool {
        matches!(self.kind, ClaimKind::Seed | ClaimKind::KnownDifference)
    }
}

/// The counts a result reports: seed claims only in "N of M reproduced".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClaimSummary {
    /// Claims of kind `seed` or `known_difference`.
    pub seed_claims: usize,
    /// Seed claims whose verdict is `reproduced`.
    pub seed_reproduced: usize,
    pub known_differences: usize,
    /// Seed claims whose scheme showed no signal.
    pub no_signal: usize,
    /// Seed claims whose rule held under some simulation seeds only.
    pub unstable: usize,
    pub checks: usize,
    pub checks_holding: usize,
    /// Derived figures and claims under other readings: shown, not counted.
    pub derived: usize,
    pub alternatives: usize,
}

impl ClaimSummary {
    pub fn of(claims: &[Claim]) -> ClaimSummary {
        let mut s = ClaimSummary::default();
        for c in claims {
            match c.kind {
                ClaimKind::Seed | ClaimKind::KnownDifference => {
                    s.seed_claims += 1;
                    s.seed_reproduced += c.reproduced as usize;
                    s.known_differences += (c.kind == ClaimKind::KnownDifference) as usize;
                    s.no_signal += (c.verdict == Verdict::NoSignal) as usize;
                    s.unstable += (c.verdict == Verdict::Unstable) as usize;
                }
                ClaimKind::Check => {
                    s.checks += 1;
                    s.checks_holding += c.reproduced as usize;
                }
                ClaimKind::Derived => s.derived += 1,
                ClaimKind::Alternative => s.alternatives += 1,
            }
        }
        s
    }
    /// "7 of 12 seed claims reproduced (2 known differences, 1 without signal, 1 unstable); 3
    /// of 3 checks hold", and what is shown without being counted.
    pub fn line(&self) -> String {
        let mut l = format!(
            "{} of {} seed claims reproduced ({} known difference{}, {} without signal, {} unstable); {} of {} checks hold",
            self.seed_reproduced,
            self.seed_claims,
            self.known_differences,
            if self.known_differences == 1 { "" } else { "s" },
            self.no_signal,
            self.unstable,
            self.checks_holding,
            self.checks
        );
        if self.derived + self.alternatives > 0 {
            l += &format!(
                "; {} derived and {} under other readings, shown and not counted",
                self.derived, self.alternatives
            );
        }
        l
    }
}

/// A condition of an experiment's setup: what the claims use, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Condition {
    /// What the condition is (`GC's write pointer`).
    pub name: String,
    /// The reading the claims use.
    pub used: String,
    /// The seed's sentence or the reference the reading comes from, or, where the seed is
    /// silent (`open`), the argument for it from the text.
    pub source: String,
    /// The seed leaves the condition open: the other readings run too and their claims are
    /// shown (`alternative` claims) with the count each would give.
    pub open: bool,
    /// The other reasonable readings (label: what), each with an `@label` claim for every
    /// claim it changes.
    pub others: Vec<(String, String)>,
}

/// What the count would be under another reading of an open condition: its alternative
/// claims in place of the counted ones they stand for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReadingCount {
    pub label: String,
    pub reading: String,
    /// Counted claims it changes.
    pub claims: usize,
    pub seed_reproduced: usize,
    pub seed_claims: usize,
}

impl ReadingCount {
    /// One per reading of the alternative claims, in first-seen order.
    pub fn of(claims: &[Claim], summary: &ClaimSummary) -> Vec<ReadingCount> {
        let mut out: Vec<ReadingCount> = Vec::new();
        for a in claims.iter().filter(|c| c.kind == ClaimKind::Alternative) {
            let label = a.id.rsplit('@').next().unwrap_or_default().to_string();
            let replaced = claims
                .iter()
                .find(|c| Some(&c.id) == a.replaces.as_ref() && c.is_seed())
                .unwrap_or_else(|| panic!("claim {} stands for no counted claim", a.id));
            let i = match out.iter().position(|r| r.label == label) {
                Some(i) => i,
                None => {
                    out.push(ReadingCount {
                        label,
                        reading: a.reading.clone().unwrap_or_default(),
                        claims: 0,
                        seed_reproduced: summary.seed_reproduced,
                        seed_claims: summary.seed_claims,
                    });
                    out.len() - 1
                }
            };
            let r = &mut out[i];
            r.claims += 1;
            r.seed_reproduced = r.seed_reproduced + a.reproduced as usize - replaced.reproduced as usize;
        }
        out
    }
}

/// A line (or set of points) of a figure.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Series {
    pub name: String,
    /// A value that is not a number (no result) is written `null` and read back as NaN.
    #[serde(deserialize_with = "points_or_null")]
    pub points: Vec<(f64, f64)>,
}

/// A series' points as JSON writes them: `null` where a value was NaN.
fn points_or_null<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Vec<(f64, f64)>, D::Error> {
    let v: Vec<(Option<f64>, Option<f64>)> = serde::Deserialize::deserialize(d)?;
    Ok(v.into_iter()
        .map(|(x, y)| (x.unwrap_or(f64::NAN), y.unwrap_or(f64::NAN)))
        .collect())
}

/// A plot: the CLI draws it as SVG (and redraws it from a result's JSON: `--redraw`).
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
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
    /// Seed claims reproduced of seed claims; checks apart.
    pub summary: ClaimSummary,
    /// The conditions of the setup, each with its source ([`Experiment::conditions`]).
    pub conditions: Vec<Condition>,
    /// The count under each other reading of an open condition.
    pub readings: Vec<ReadingCount>,
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
    /// Simulation seeds the claims' points ran under (the noise of every claim comes from
    /// them).
    pub seeds: usize,
    /// The points whose outcomes enter a claim ([`Experiment::in_claims`]): those that ran
    /// under every seed; the others ran under the first only.
    pub claim_points: usize,
    /// Wall-clock seconds of the whole experiment (the one field that varies between runs).
    pub wall_time_s: f64,
}

impl ScaleReport {
    /// Simulations run: every point under the first seed, the claims' under the others.
    pub fn runs(&self) -> usize {
        self.points + (self.seeds.max(1) - 1) * self.claim_points
    }
    /// `36 points × 3 seeds`, or `128 points, the 40 the claims read × 3 seeds` when some
    /// points ran under the first seed only.
    pub fn runs_line(&self) -> String {
        let seeds = format!("{} seed{}", self.seeds, if self.seeds == 1 { "" } else { "s" });
        if self.claim_points == self.points || self.seeds == 1 {
            format!("{} points × {seeds}", self.points)
        } else {
            format!(
                "{} points, the {} the claims read × {seeds}",
                self.points, self.claim_points
            )
        }
    }
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

/// Simulation seeds per point by default: enough for a noise margin on every direction claim.
pub fn default_seeds(scale: Scale) -> usize {
    match scale {
        Scale::Full => 3,
        Scale::Quick => 2,
    }
}

/// Run every point of `exp` at `scale` under `seeds` simulation seeds on `threads` threads
/// (0: one per core), calling `progress(done, total)` as points finish.
pub fn run(
    exp: &dyn Experiment,
    scale: Scale,
    seeds: usize,
    threads: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<ExperimentResult> {
    run_cached(exp, scale, seeds, threads, None, progress)
}

/// As [`run`], taking the points already in `cache` from it and storing each point there
/// as it finishes: a run interrupted ([`crate::interrupt::interrupt`]) keeps its finished points,
/// and the next one runs only the others.
pub fn run_cached(
    exp: &dyn Experiment,
    scale: Scale,
    seeds: usize,
    threads: usize,
    cache: Option<&cache::PointCache>,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Result<ExperimentResult> {
    let start = std::time::Instant::now();
    let points = points_of(exp, scale, seeds)?;
    let pool = thread_pool(threads)?;
    // Points on the same device and precondition start from one preconditioned state.
    let _shared = crate::aged::share();
    let one = |p: &Point| {
        let Some(cache) = cache else {
            return run_point(exp, p);
        };
        let key = cache::PointCache::key(exp, p);
        if let Some(o) = cache.load(&key)? {
            return Ok(o);
        }
        // Points not started when an interrupt comes are not started.
        crate::interrupt::check_interrupt()?;
        let o = run_point(exp, p)?;
        cache.store(&key, &o)?;
        Ok(o)
    };
    let results: Vec<Result<Outcome>> = pool.install(|| run_points(&points, progress, one));
    let outcomes = results.into_iter().collect::<Result<Vec<_>>>()?;
    Ok(assemble(
        exp,
        scale,
        seeds,
        &points,
        outcomes,
        start.elapsed().as_secs_f64(),
    ))
}

/// The points of `exp` at `scale`, checked to have distinct ids, followed by `seeds − 1`
/// copies of those whose outcomes enter a claim ([`Experiment::in_claims`]) under other
/// simulation seeds (same ids, in the same order). Running them
/// one by one anywhere ([`run_point`]) and handing the outcomes to [`assemble`] in this order
/// gives what [`run`] gives: the way a distributed front end runs an experiment.
pub fn points_of(exp: &dyn Experiment, scale: Scale, seeds: usize) -> Result<Vec<Point>> {
    if seeds == 0 {
        return Err(Error::Invalid(
            "--seeds: 0; expected at least 1 simulation seed per point".into(),
        ));
    }
    let points = exp.points(scale)?;
    let mut seen = std::collections::BTreeSet::new();
    for p in &points {
        assert!(seen.insert(&p.id), "experiment {}: point id {} twice", exp.name(), p.id);
    }
    let mut all = points.clone();
    for k in 1..seeds as u64 {
        all.extend(points.iter().filter(|p| exp.in_claims(p)).map(|p| with_seed(p, k)));
    }
    Ok(all)
}

/// `p` under the `k`-th other simulation seed, as the points of a claim are run again
/// (`points_of`).
pub fn with_seed(p: &Point, k: u64) -> Point {
    Point {
        work: p.work.reseeded(k),
        ..p.clone()
    }
}

impl Work {
    /// The same work under the `k`-th other simulation seed: the precondition's and the
    /// run's seed (array members derive theirs from it) and every job's own seed.
    fn reseeded(&self, k: u64) -> Work {
        let mix = |s: u64| crate::units::mix_seed(s, 0x5eed_0000 + k);
        match self {
            Work::Ssd(cfg) => {
                let mut c = cfg.clone();
                c.precondition.seed = mix(c.precondition.seed);
                for j in &mut c.job {
                    j.seed = j.seed.map(mix);
                }
                Work::Ssd(c)
            }
            Work::Profile { base, sweep } => {
                let mut b = base.clone();
                b.precondition.seed = mix(b.precondition.seed);
                Work::Profile {
                    base: b,
                    sweep: sweep.clone(),
                }
            }
            Work::Hdd { disk, jobs, seed } => Work::Hdd {
                disk: disk.clone(),
                jobs: jobs
                    .iter()
                    .map(|j| {
                        let mut j = j.clone();
                        j.seed = j.seed.map(mix);
                        j
                    })
                    .collect(),
                seed: mix(*seed),
            },
            Work::Zones { config, test, zones } => {
                let mut c = config.clone();
                c.precondition.seed = mix(c.precondition.seed);
                Work::Zones {
                    config: c,
                    test: *test,
                    zones: *zones,
                }
            }
        }
    }
}

/// Simulate one point of `exp`.
pub fn run_point(exp: &dyn Experiment, p: &Point) -> Result<Outcome> {
    p.work.run().map_err(|e| match e {
        Error::Interrupted => e,
        e => Error::Invalid(format!("experiment {} point {}: {e}", exp.name(), p.id)),
    })
}

/// Each point's row from its outcome.
fn point_results(points: &[Point], outcomes: Vec<Outcome>) -> Vec<PointResult> {
    points
        .iter()
        .zip(outcomes)
        .map(|(p, result)| PointResult {
            id: p.id.clone(),
            labels: crate::metrics::Ordered(p.labels.clone()),
            metrics: crate::metrics::Ordered(row_metrics(&result)),
            result,
        })
        .collect()
}

/// The experiment's result from its points' outcomes, in the order of [`points_of`] (the
/// experiment's points, then `seeds − 1` blocks of those that enter a claim); `wall_time_s` is
/// what the whole took. The claims are the first block's; each other block is analysed the
/// same way (beside the first block's outcomes of the points it lacks, which enter no claim),
/// and how far a claim's value moves across the blocks is its noise.
pub fn assemble(
    exp: &dyn Experiment,
    scale: Scale,
    seeds: usize,
    points: &[Point],
    mut outcomes: Vec<Outcome>,
    wall_time_s: f64,
) -> ExperimentResult {
    assert_eq!(points.len(), outcomes.len(), "one outcome per point");
    let seeds = seeds.max(1);
    // The first block ends where an id comes again (ids are distinct within a block).
    let mut seen = std::collections::BTreeSet::new();
    let n = points.iter().position(|p| !seen.insert(&p.id)).unwrap_or(points.len());
    let claimed: Vec<bool> = points[..n].iter().map(|p| exp.in_claims(p)).collect();
    let m = claimed.iter().filter(|&&c| c).count();
    assert_eq!(
        points.len(),
        n + (seeds - 1) * m,
        "every claim's point under every seed"
    );
    let others = outcomes.split_off(n);
    let runs = point_results(&points[..n], outcomes);
    let mut analysis = exp.analyse(scale, &runs);
    if seeds > 1 {
        let mut values: Vec<Vec<f64>> = analysis.claims.iter().map(|c| vec![c.our_value]).collect();
        let mut others = others.into_iter();
        for k in 1..seeds {
            let from = n + (k - 1) * m;
            let mut block = point_results(&points[from..from + m], others.by_ref().take(m).collect()).into_iter();
            // The first block's outcomes stand in for the points run under one seed only.
            let again: Vec<PointResult> = runs
                .iter()
                .zip(&claimed)
                .map(|(first, &c)| {
                    if c {
                        block.next().expect("a claim's point")
                    } else {
                        first.clone()
                    }
                })
                .collect();
            let again = exp.analyse(scale, &again);
            for (c, v) in analysis.claims.iter().zip(values.iter_mut()) {
                // A claim absent under this seed has no value there.
                v.push(
                    again
                        .claims
                        .iter()
                        .find(|o| o.id == c.id)
                        .map_or(f64::NAN, |o| o.our_value),
                );
            }
        }
        for (c, v) in analysis.claims.iter_mut().zip(values) {
            c.with_values(v);
        }
    }
    ExperimentResult {
        experiment: exp.name().into(),
        title: exp.title().into(),
        seed_document: exp.seed_document().into(),
        summary: ClaimSummary::of(&analysis.claims),
        conditions: exp.conditions(),
        readings: ReadingCount::of(&analysis.claims, &ClaimSummary::of(&analysis.claims)),
        claims: analysis.claims,
        runs,
        figures: analysis.figures,
        scale: ScaleReport {
            scale,
            note: exp.scale_note(scale),
            points: n,
            seeds,
            claim_points: m,
            wall_time_s: round(wall_time_s, 3),
        },
    }
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
    s += &format!("\n{}.\n", res.summary.line());
    let conditions = conditions_md(res);
    if !conditions.is_empty() {
        s += "\n## Conditions\n\n";
        s += &conditions;
    }
    let (header, rows) = table_rows(&res.runs);
    s += "\n## Points\n\n";
    s += &md_table(&header, rows);
    s
}

/// A Markdown table, its columns aligned: `|` in a cell escaped and a line break made a space,
/// so that each cell stays one cell.
fn md_table<H: AsRef<str>>(header: &[H], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    use tabled::settings::{Alignment, Style};
    let cell = |c: &str| c.replace('|', "\\|").replace('\n', " ");
    let mut b = tabled::builder::Builder::default();
    b.push_record(header.iter().map(|h| cell(h.as_ref())));
    for r in rows {
        b.push_record(r.iter().map(|c| cell(c)));
    }
    let mut t = b.build();
    t.with(Style::markdown()).with(Alignment::left());
    t.to_string() + "\n"
}

/// The conditions of the setup as a Markdown table: what the claims use and why, and for a
/// condition the seed leaves open the count under each other reading (empty without
/// conditions).
pub fn conditions_md(res: &ExperimentResult) -> String {
    if res.conditions.is_empty() {
        return String::new();
    }
    let mut rows = Vec::new();
    for c in &res.conditions {
        let mut counts = String::new();
        if c.open {
            counts = format!(
                "this reading: {} of {}",
                res.summary.seed_reproduced, res.summary.seed_claims
            );
            for (label, what) in &c.others {
                let r = res.readings.iter().find(|r| &r.label == label);
                counts += &match r {
                    Some(r) => format!(
                        "; {label} ({what}): {} of {} ({} claim{} judged again)",
                        r.seed_reproduced,
                        r.seed_claims,
                        r.claims,
                        if r.claims == 1 { "" } else { "s" }
                    ),
                    None => format!("; {label} ({what}): no claim judged under it"),
                };
            }
        }
        rows.push(vec![c.name.clone(), c.used.clone(), c.source.clone(), counts]);
    }
    md_table(
        &[
            "condition",
            "the claims use",
            "source or argument",
            "count under each reading",
        ],
        rows,
    )
}

/// The claims as a Markdown table: kind, seed value, ours, its noise, rule, verdict.
pub fn claims_md(claims: &[Claim]) -> String {
    let mut rows = Vec::new();
    for c in claims {
        let kind = match c.kind {
            ClaimKind::Seed => "seed",
            ClaimKind::KnownDifference => "known difference",
            ClaimKind::Check => "check",
            ClaimKind::Derived => "derived",
            ClaimKind::Alternative => "other reading",
        };
        let mark = match (c.kind, c.verdict) {
            (ClaimKind::Check, Verdict::Reproduced) => "✔ holds",
            (ClaimKind::Check, Verdict::Unstable) => "✘ holds under some seeds",
            (ClaimKind::Check, _) => "✘ fails",
            (ClaimKind::Derived | ClaimKind::Alternative, Verdict::Reproduced) => "(✔, not counted)",
            (ClaimKind::Derived | ClaimKind::Alternative, _) => "(✘, not counted)",
            (_, Verdict::Unstable) => "✘ unstable",
            (_, Verdict::Reproduced) => "✔",
            (_, Verdict::Missed) => "✘",
            (_, Verdict::Coincidence) => "✘ (rule holds, not counted)",
            (_, Verdict::NoSignal) => "✘ no signal",
        };
        rows.push(vec![
            format!("{}: {}", c.id, c.text),
            kind.to_string(),
            fmt_num(c.seed_value),
            fmt_num(c.our_value),
            c.noise.map_or("–".to_string(), fmt_num),
            c.unit.clone(),
            c.tolerance.clone(),
            mark.to_string(),
        ]);
    }
    md_table(
        &["claim", "kind", "seed", "ours", "noise", "unit", "rule", "verdict"],
        rows,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// The cells of a Markdown table's rows (the separator row left out), trimmed, `\|`
    /// read back as `|`.
    fn md_cells(md: &str) -> Vec<Vec<String>> {
        md.lines()
            .filter(|l| l.starts_with('|') && !l.starts_with("|-"))
            .map(|l| {
                let inner = l
                    .trim()
                    .trim_start_matches('|')
                    .trim_end_matches('|')
                    .replace("\\|", "\u{1}");
                inner.split('|').map(|c| c.trim().replace('\u{1}', "|")).collect()
            })
            .collect()
    }

    #[test]
    fn markdown_tables_align_their_columns_and_keep_each_cell_one_cell() {
        let md = md_table(
            &["a", "longer header"],
            [
                vec!["x | y".to_string(), "1".to_string()],
                vec!["two\nlines".to_string(), "22".to_string()],
            ],
        );
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), 4, "{md}");
        assert!(lines[1].starts_with("|-") && !lines[1].contains(' '), "{md}");
        // Every line as wide as the others, its bars at the same columns.
        let bars = |l: &str| {
            l.char_indices()
                .filter(|(_, c)| *c == '|')
                .map(|(i, _)| l[..i].chars().count())
                .collect::<Vec<_>>()
        };
        let unescaped = |l: &str| l.replace("\\|", "\\!");
        for l in &lines {
            assert_eq!(bars(&unescaped(l)), bars(lines[0]), "{md}");
        }
        assert_eq!(
            md_cells(&md),
            [["a", "longer header"], ["x | y", "1"], ["two lines", "22"]].map(|r| r.map(String::from).to_vec())
        );
        assert!(md.ends_with("|\n"), "{md}");
    }

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
        // Directions pass beyond their margin only, never on a tie.
        let up = Rule::Above { margin: 0.25 };
        assert!(up.holds(1.0, 1.26) && !up.holds(1.0, 1.25) && !up.holds(1.0, 1.0) && !up.holds(1.0, 0.9));
        assert!(Rule::ABOVE.holds(1.0, 1.0001) && !Rule::ABOVE.holds(1.0, 1.0));
        let down = Rule::Below { margin: 0.25 };
        assert!(down.holds(1.0, 0.74) && !down.holds(1.0, 0.75) && !down.holds(1.0, 1.2));
        assert!(!Rule::BELOW.holds(1.0, 1.0) && Rule::BELOW.holds(1.0, 0.999));
        assert!(!Rule::Above { margin: f64::INFINITY }.holds(0.0, 1e300));
        // Kept: a tie and anything above pass; lower passes only within the noise.
        let kept = Rule::NotBelow { margin: 0.01 };
        assert!(kept.holds(1.0, 1.0) && kept.holds(1.0, 1.2) && kept.holds(1.0, 0.995) && !kept.holds(1.0, 0.985));
        assert!(Rule::NOT_BELOW.holds(1.0, 1.0) && !Rule::NOT_BELOW.holds(1.0, 0.9999) && !kept.is_direction());
        assert_eq!(
            kept.describe(),
            "not below the seed's by more than 0.01000 (minimum effect or noise)"
        );
        assert!(up.is_direction() && down.is_direction() && !rel.is_direction() && !Rule::AtLeast.is_direction());
        assert_eq!(
            up.describe(),
            "above the seed's by more than 0.2500 (minimum effect or noise)"
        );
        for r in [rel, abs, Rule::AtLeast, Rule::AtMost, up, down, kept] {
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
        let md = claims_md(&[c.clone(), c.clone().known_difference("host effects")]);
        let rows = md_cells(&md);
        assert_eq!(
            rows[1],
            ["x: t", "seed", "115", "150", "–", "MB/s", "within ±25%", "✘"].map(String::from),
            "{md}"
        );
        assert!(rows[2][1] == "known difference" && rows[2][7] == "✘", "{md}");
    }

    #[test]
    fn only_seed_claims_count_and_known_differences_never_as_reproduced() {
        let rel = Rule::Relative { tolerance: 0.25 };
        let hit = Claim::new("a", "t", 100.0, 110.0, "", rel, String::new());
        let miss = Claim::new("b", "t", 100.0, 200.0, "", rel, String::new());
        let known = hit.clone().known_difference("no page cache");
        assert_eq!(
            (known.kind, known.verdict, known.reproduced, known.rule_holds),
            (ClaimKind::KnownDifference, Verdict::Coincidence, false, true)
        );
        let check = hit.clone().check();
        assert_eq!((check.kind, check.reproduced), (ClaimKind::Check, true));
        let quiet = hit.clone().no_signal_if(true, "nothing redirected");
        assert_eq!(
            (quiet.verdict, quiet.reproduced, quiet.rule_holds),
            (Verdict::NoSignal, false, true)
        );
        assert!(hit.clone().no_signal_if(false, "x").reproduced);
        let s = ClaimSummary::of(&[
            hit,
            miss,
            known,
            check.clone(),
            check.clone().no_signal_if(false, ""),
            quiet,
        ]);
        assert_eq!(
            s,
            ClaimSummary {
                seed_claims: 4,
                seed_reproduced: 1,
                known_differences: 1,
                no_signal: 1,
                unstable: 0,
                checks: 2,
                checks_holding: 2,
                derived: 0,
                alternatives: 0,
            }
        );
        assert_eq!(
            s.line(),
            "1 of 4 seed claims reproduced (1 known difference, 1 without signal, 0 unstable); 2 of 2 checks hold"
        );
    }

    #[test]
    fn derived_and_alternative_claims_are_shown_never_counted() {
        let rel = Rule::Relative { tolerance: 0.25 };
        let a = Claim::new("a", "t", 100.0, 110.0, "", rel, String::new());
        let b = Claim::new("b", "t", 10.0, 30.0, "", rel, String::new());
        let ratio = Claim::new("a/b", "t", 10.0, 11.0 / 3.0, "×", rel, "n".into()).derived(&["a", "b"], "quotient");
        assert_eq!(
            (ratio.kind, ratio.follows_from.clone()),
            (ClaimKind::Derived, vec!["a".to_string(), "b".into()])
        );
        assert!(
            ratio.note.starts_with("n (follows from a, b: quotient)"),
            "{}",
            ratio.note
        );
        let other = Claim::new("b", "t", 10.0, 11.0, "", rel, String::new()).alternative("wide", "a wider reading");
        assert_eq!(
            (
                other.id.as_str(),
                other.replaces.as_deref(),
                other.kind,
                other.reproduced
            ),
            ("b@wide", Some("b"), ClaimKind::Alternative, true)
        );
        let claims = [a, b, ratio, other];
        let s = ClaimSummary::of(&claims);
        assert_eq!(
            (s.seed_claims, s.seed_reproduced, s.derived, s.alternatives, s.checks),
            (2, 1, 1, 1, 0)
        );
        assert!(
            s.line()
                .ends_with("; 1 derived and 1 under other readings, shown and not counted"),
            "{}",
            s.line()
        );
        // Under the other reading the count swaps b's miss for its pass.
        assert_eq!(
            ReadingCount::of(&claims, &s),
            vec![ReadingCount {
                label: "wide".into(),
                reading: "a wider reading".into(),
                claims: 1,
                seed_reproduced: 2,
                seed_claims: 2
            }]
        );
        let md = claims_md(&claims);
        let rows = md_cells(&md);
        let row = |id: &str| rows.iter().find(|r| r[0] == id).unwrap_or_else(|| panic!("{id}: {md}"));
        assert_eq!(
            (row("a/b: t")[1].as_str(), row("b@wide: t")[1].as_str()),
            ("derived", "other reading")
        );
        assert!(
            rows.iter().any(|r| r[7] == "(✔, not counted)") && rows.iter().any(|r| r[7] == "(✘, not counted)"),
            "{md}"
        );
    }

    #[test]
    fn conditions_show_their_source_and_each_reading_s_count() {
        let rel = Rule::Relative { tolerance: 0.25 };
        let claims = vec![
            Claim::new("a", "t", 100.0, 110.0, "", rel, String::new()),
            Claim::new("b", "t", 10.0, 30.0, "", rel, String::new()),
            Claim::new("b", "t", 10.0, 11.0, "", rel, String::new()).alternative("wide", "a wider reading"),
        ];
        let summary = ClaimSummary::of(&claims);
        let condition = |name: &str, open: bool, others: Vec<(String, String)>| Condition {
            name: name.into(),
            used: "as used".into(),
            source: "a | sentence".into(),
            open,
            others,
        };
        let mut res = ExperimentResult {
            experiment: "x".into(),
            title: "t".into(),
            seed_document: "d".into(),
            summary,
            conditions: vec![
                condition("fixed", false, vec![]),
                condition(
                    "open",
                    true,
                    vec![
                        ("wide".into(), "a wider reading".into()),
                        ("none".into(), "never run".into()),
                    ],
                ),
            ],
            readings: ReadingCount::of(&claims, &summary),
            claims,
            runs: vec![],
            figures: vec![],
            scale: ScaleReport {
                scale: Scale::Quick,
                note: String::new(),
                points: 0,
                seeds: 1,
                claim_points: 0,
                wall_time_s: 0.0,
            },
        };
        let md = conditions_md(&res);
        assert_eq!(md.lines().count(), 4, "{md}");
        let rows = md_cells(&md);
        assert_eq!(rows[1], ["fixed", "as used", "a | sentence", ""].map(String::from));
        assert_eq!(
            rows[2],
            [
                "open",
                "as used",
                "a | sentence",
                "this reading: 1 of 2; wide (a wider reading): 2 of 2 (1 claim judged again); none (never run): no claim judged under it"
            ]
            .map(String::from)
        );
        assert!(table_md(&res).contains("\n## Conditions\n\n| condition "));
        res.conditions.clear();
        assert_eq!(conditions_md(&res), "");
        assert!(!table_md(&res).contains("## Conditions"));
    }

    #[test]
    fn each_reading_swaps_its_own_claims_in() {
        let rel = Rule::Relative { tolerance: 0.25 };
        let claim = |id: &str, ours: f64| Claim::new(id, "t", 100.0, ours, "", rel, String::new());
        let claims = vec![
            claim("a", 110.0),
            claim("b", 110.0),
            claim("c", 200.0),
            // Reading x: a passes again, b now misses; reading y: c now passes.
            claim("a", 120.0).alternative("x", "ex"),
            claim("b", 300.0).alternative("x", "ex"),
            claim("c", 90.0).alternative("y", "why"),
        ];
        let s = ClaimSummary::of(&claims);
        assert_eq!((s.seed_reproduced, s.seed_claims, s.alternatives), (2, 3, 3));
        let r = ReadingCount::of(&claims, &s);
        let count = |r: &ReadingCount| (r.label.clone(), r.claims, r.seed_reproduced, r.seed_claims);
        assert_eq!(
            r.iter().map(count).collect::<Vec<_>>(),
            [("x".to_string(), 2, 1, 3), ("y".to_string(), 1, 3, 3)]
        );
    }

    #[test]
    #[should_panic(expected = "stands for no counted claim")]
    fn an_alternative_stands_for_a_counted_claim() {
        let rel = Rule::Relative { tolerance: 0.25 };
        let check = Claim::new("c", "t", 1.0, 1.0, "", rel, String::new()).check();
        let other = Claim::new("c", "t", 1.0, 1.0, "", rel, String::new()).alternative("x", "y");
        let claims = [check, other];
        ReadingCount::of(&claims, &ClaimSummary::of(&claims));
    }

    #[test]
    fn directions_need_the_minimum_effect() {
        // A ratio against 1: 1 % of it.
        let c = Claim::new("d", "t", 1.0, 1.0099, "×", Rule::ABOVE, String::new());
        assert_eq!((c.min_effect, c.rule), (Some(0.01), Rule::Above { margin: 0.01 }));
        assert!(
            !c.reproduced && c.tolerance.contains("more than 0.01000"),
            "{}",
            c.tolerance
        );
        assert!(Claim::new("d", "t", 1.0, 1.0101, "×", Rule::ABOVE, String::new()).reproduced);
        assert!(Claim::new("d", "t", 1.0, 0.9899, "×", Rule::BELOW, String::new()).reproduced);
        assert!(!Claim::new("d", "t", 1.0, 0.991, "×", Rule::BELOW, String::new()).reproduced);
        // "Kept": a loss within the minimum effect passes, a larger one fails.
        assert!(Claim::new("k", "t", 1.0, 0.9999, "×", Rule::NOT_BELOW, String::new()).reproduced);
        assert!(!Claim::new("k", "t", 1.0, 0.989, "×", Rule::NOT_BELOW, String::new()).reproduced);
        // A percentage against 0: one point; a difference in points of a share: one point.
        let p = Claim::new("p", "t", 0.0, 0.27, "% lower WAF", Rule::ABOVE, String::new());
        assert_eq!((p.min_effect, p.reproduced), (Some(1.0), false));
        assert!(Claim::new("p", "t", 0.0, 1.01, "% lower WAF", Rule::ABOVE, String::new()).reproduced);
        assert_eq!(
            Claim::new("q", "t", 0.0, 2.0, "points of x", Rule::ABOVE, String::new()).min_effect,
            Some(1.0)
        );
        // Another unit against 0 has none until the experiment sets one.
        let m = Claim::new("m", "t", 0.0, 3.0, "MB/s", Rule::ABOVE, String::new());
        assert_eq!((m.min_effect, m.reproduced), (None, true));
        let m = m.min_effect(5.0);
        assert_eq!((m.rule, m.reproduced), (Rule::Above { margin: 5.0 }, false));
        // A figure other than 1: 1 % of it.
        let f = Claim::new("f", "t", 4.0, 4.05, "× seed", Rule::ABOVE, String::new());
        assert_eq!((f.min_effect, f.reproduced), (Some(0.04), true));
        assert!(!Claim::new("f", "t", 4.0, 4.03, "× seed", Rule::ABOVE, String::new()).reproduced);
        // Other rules take none.
        let r = Claim::new(
            "r",
            "t",
            1.0,
            1.001,
            "×",
            Rule::Relative { tolerance: 0.25 },
            String::new(),
        );
        assert_eq!(r.min_effect, None);
    }

    #[test]
    fn every_seed_must_hold() {
        let rel = Rule::Relative { tolerance: 0.25 };
        let mut c = Claim::new("a", "t", 100.0, 110.0, "", rel, String::new());
        c.with_values(vec![110.0, 120.0, 126.0]);
        assert_eq!(
            (c.verdict, c.reproduced, c.rule_holds),
            (Verdict::Unstable, false, true)
        );
        assert_eq!((c.noise, c.values.clone()), (Some(16.0), vec![110.0, 120.0, 126.0]));
        let mut c = Claim::new("a", "t", 100.0, 110.0, "", rel, String::new());
        c.with_values(vec![110.0, 124.0, 80.0]);
        assert_eq!((c.verdict, c.reproduced), (Verdict::Reproduced, true));
        // Held under the other seeds but not the first: unstable too.
        let mut c = Claim::new("a", "t", 100.0, 130.0, "", rel, String::new());
        c.with_values(vec![130.0, 110.0]);
        assert_eq!((c.verdict, c.rule_holds), (Verdict::Unstable, false));
        let mut c = Claim::new("a", "t", 100.0, 130.0, "", rel, String::new());
        c.with_values(vec![130.0, 140.0]);
        assert_eq!(c.verdict, Verdict::Missed);
        // A value absent under one seed: unbounded noise, and the rule cannot hold there.
        let mut c = Claim::new("a", "t", 100.0, 110.0, "", rel, String::new());
        c.with_values(vec![110.0, f64::NAN]);
        assert_eq!((c.noise, c.verdict), (Some(f64::INFINITY), Verdict::Unstable));
        // A known difference that holds under some seeds only is unstable, not a coincidence;
        // a check too.
        let mut k = Claim::new("k", "t", 100.0, 110.0, "", rel, String::new()).known_difference("x");
        k.with_values(vec![110.0, 200.0]);
        assert_eq!(k.verdict, Verdict::Unstable);
        let mut k = Claim::new("k", "t", 100.0, 110.0, "", rel, String::new()).check();
        k.with_values(vec![110.0, 200.0]);
        assert_eq!((k.verdict, k.reproduced), (Verdict::Unstable, false));
        assert!(claims_md(&[k]).contains("| ✘ holds under some seeds |"));
        let s = ClaimSummary::of(&[c]);
        assert_eq!((s.unstable, s.seed_reproduced), (1, 0));
    }

    #[test]
    fn noise_becomes_a_direction_margin() {
        let mut c = Claim::new("d", "t", 1.0, 1.25, "×", Rule::ABOVE, String::new());
        assert!(c.reproduced);
        c.with_values(vec![1.25, 1.5]);
        assert!(!c.reproduced && c.rule == Rule::Above { margin: 0.25 } && c.noise == Some(0.25));
        assert!(
            c.tolerance.contains("more than 0.2500 (minimum effect or noise)"),
            "{}",
            c.tolerance
        );
        // Below the minimum effect the noise does not lower the margin.
        let mut q = Claim::new("d", "t", 1.0, 1.02, "×", Rule::ABOVE, String::new());
        q.with_values(vec![1.02, 1.021]);
        assert_eq!((q.rule, q.reproduced), (Rule::Above { margin: 0.01 }, true));
        // Other rules keep their tolerance and only report the noise.
        let mut r = Claim::new(
            "r",
            "t",
            1.0,
            1.02,
            "×",
            Rule::Relative { tolerance: 0.25 },
            String::new(),
        );
        r.with_values(vec![1.02, 1.2]);
        assert!(r.reproduced && r.rule == Rule::Relative { tolerance: 0.25 });
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
                    Rule::ABOVE,
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
        let one = run(&Tiny, Scale::Quick, 1, 1, &count).unwrap();
        let three = run(&Tiny, Scale::Quick, 1, 3, &count).unwrap();
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
        let rows = md_cells(&md);
        assert!(rows.iter().any(|r| r[..2] == ["qd=2", "2"]), "{md}");
        assert!(
            rows.iter()
                .any(|r| r[..3] == ["depth: depth 3 reads faster", "seed", "1"]),
            "{md}"
        );
        assert!(md.contains("1 of 1 seed claims reproduced"), "{md}");
    }

    #[test]
    fn other_seeds_measure_each_claims_noise() {
        let res = run(&Tiny, Scale::Quick, 2, 2, &|_, _| {}).unwrap();
        assert_eq!((res.scale.points, res.scale.seeds, res.runs.len()), (3, 2, 3));
        // The second seed's block, analysed by hand.
        let points = points_of(&Tiny, Scale::Quick, 2).unwrap();
        assert_eq!(points.len(), 6);
        assert_eq!(points[4].id, points[1].id);
        let iops = |p: &Point| {
            let o = run_point(&Tiny, p).unwrap();
            o.jobs()[0].read.iops
        };
        let (a0, b0) = (iops(&points[0]), iops(&points[2]));
        let (a1, b1) = (iops(&points[3]), iops(&points[5]));
        assert!(a1 != a0, "another seed gives another run");
        let r = |x: f64| (x * 10.0).round() / 10.0;
        let noise = (r(b1) / r(a1) - r(b0) / r(a0)).abs();
        let c = &res.claims[0];
        assert_eq!(c.noise, Some(noise));
        assert_eq!(c.values, vec![r(b0) / r(a0), r(b1) / r(a1)]);
        let margin = noise.max(MIN_EFFECT);
        assert_eq!(c.rule, Rule::Above { margin });
        assert_eq!(c.reproduced, c.values.iter().all(|v| v - 1.0 > margin));
        // One seed: no noise measured, and the same first block.
        let one = run(&Tiny, Scale::Quick, 1, 1, &|_, _| {}).unwrap();
        assert_eq!(one.claims[0].noise, None);
        assert_eq!(one.claims[0].our_value, c.our_value);
        assert!(points_of(&Tiny, Scale::Quick, 0).is_err());
    }

    /// [`Tiny`] whose claim does not read its middle point (qd=2).
    struct TinyMiddleShown;
    impl Experiment for TinyMiddleShown {
        fn name(&self) -> &'static str {
            "tiny-middle-shown"
        }
        fn title(&self) -> &'static str {
            Tiny.title()
        }
        fn seed_document(&self) -> &'static str {
            Tiny.seed_document()
        }
        fn scale_note(&self, scale: Scale) -> String {
            Tiny.scale_note(scale)
        }
        fn points(&self, scale: Scale) -> Result<Vec<Point>> {
            Tiny.points(scale)
        }
        fn analyse(&self, scale: Scale, runs: &[PointResult]) -> Analysis {
            // Every point's outcome, whichever seed's, under its own id.
            let ids: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
            assert_eq!(ids, ["qd=1", "qd=2", "qd=3"]);
            Tiny.analyse(scale, runs)
        }
        fn in_claims(&self, point: &Point) -> bool {
            point.id != "qd=2"
        }
    }

    #[test]
    fn points_no_claim_reads_run_under_the_first_seed_only() {
        let points = points_of(&TinyMiddleShown, Scale::Quick, 3).unwrap();
        let ids: Vec<&str> = points.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["qd=1", "qd=2", "qd=3", "qd=1", "qd=3", "qd=1", "qd=3"]);
        // The claims' points under other seeds are the ones every point gets.
        let all = points_of(&Tiny, Scale::Quick, 3).unwrap();
        for (p, q) in points[3..].iter().zip(all[3..].iter().filter(|p| p.id != "qd=2")) {
            assert_eq!(format!("{:?}", p.work), format!("{:?}", q.work));
        }
        // The same claims and noise as when every point runs under every seed, the same
        // first block, and a report that says which points ran under the other seeds.
        let shown = run(&TinyMiddleShown, Scale::Quick, 3, 2, &|_, _| {}).unwrap();
        let every = run(&Tiny, Scale::Quick, 3, 2, &|_, _| {}).unwrap();
        assert_eq!(
            serde_json::to_string(&shown.claims).unwrap(),
            serde_json::to_string(&every.claims).unwrap()
        );
        assert!(shown.claims[0].noise.is_some_and(|n| n > 0.0));
        let rows = |r: &ExperimentResult| -> Vec<String> {
            r.runs
                .iter()
                .map(|p| format!("{} {}", p.id, serde_json::to_string(&p.metrics).unwrap()))
                .collect()
        };
        assert_eq!(rows(&shown), rows(&every));
        assert_eq!(
            (shown.scale.points, shown.scale.claim_points, shown.scale.seeds),
            (3, 2, 3)
        );
        assert_eq!(shown.scale.runs_line(), "3 points, the 2 the claims read × 3 seeds");
        assert_eq!((shown.scale.runs(), every.scale.runs()), (7, 9));
        assert_eq!(every.scale.runs_line(), "3 points × 3 seeds");
        let one = run(&TinyMiddleShown, Scale::Quick, 1, 2, &|_, _| {}).unwrap();
        assert_eq!(one.scale.runs_line(), "3 points × 1 seed");
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
