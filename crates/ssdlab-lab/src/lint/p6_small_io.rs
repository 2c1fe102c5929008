//! Principle 6: use many threads (outstanding requests) for small I/O. A request smaller
//! than a page on every parallel unit keeps only some units busy; only concurrency fills the
//! rest. Measured: the workload's typical small request and its concurrency (requests
//! outstanding on average in the as-is replay, Little's law; a run file's queue depth).
//! What-if: throughput of that request size across queue depths on the device, and the depth
//! that reaches 90 % of the peak.

use super::lab::{Lab, Variant};
use super::profile::{SizeClass, Timing};
use super::{gain, num, pct, Check, Figure, Finding, SweepPoint, Threshold, Verdict, WhatIf};
use crate::units::fmt_size;
use crate::Result;

pub const CHECK: Check = Check {
    principle: 6,
    id: "small-io-concurrency",
    title: "Small I/O: issue enough of it at once to use the device's parallelism",
    run,
};

/// Share of the time with a request outstanding under which the workload is not I/O bound.
const BUSY: f64 = 0.5;

/// Queue depths swept.
pub const DEPTHS: [u32; 9] = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/// The smallest swept depth reaching `share` of the peak throughput.
pub fn depth_for(points: &[SweepPoint], share: f64) -> SweepPoint {
    let peak = points.iter().map(|p| p.throughput_mb_s).fold(0.0, f64::max);
    *points
        .iter()
        .find(|p| p.throughput_mb_s >= share * peak)
        .expect("the peak point qualifies")
}

/// The swept point nearest to `depth` (on a log scale), at least depth 1.
pub fn nearest(points: &[SweepPoint], depth: f64) -> SweepPoint {
    let d = depth.max(1.0).ln();
    *points
        .iter()
        .min_by(|a, b| {
            let da = ((a.depth as f64).ln() - d).abs();
            let db = ((b.depth as f64).ln() - d).abs();
            da.total_cmp(&db)
        })
        .expect("a sweep has points")
}

/// A size class (small or large requests) swept over queue depths at its typical size.
pub struct ClassSweep {
    pub class: SizeClass,
    pub bs: u64,
    /// Requests outstanding on average: in the as-is replay (open loop) or the jobs' depth.
    pub observed: f64,
    pub points: Vec<SweepPoint>,
    /// The smallest depth reaching 90 % of the peak, and the point nearest `observed`.
    pub d90: SweepPoint,
    pub at: SweepPoint,
    pub measured: Vec<Figure>,
}

/// Sweep a size class (`which`: "small" or "large"), or give the `n/a` finding when the
/// workload has no request of it; `threshold(bs)` says why the threshold.
pub fn sweep_class(
    lab: &mut Lab,
    check: &Check,
    class: SizeClass,
    which: &'static str,
    depths: &[u32],
    threshold: &dyn Fn(u64) -> String,
) -> Result<std::result::Result<ClassSweep, Finding>> {
    let Some(bs) = class.typical() else {
        let large = fmt_size(lab.facts.large_bytes);
        let none = if which == "small" {
            format!("no request is smaller than {large}")
        } else {
            format!("no request of {large} or more")
        };
        let t = Threshold {
            value: 0.0,
            unit: "outstanding requests",
            why: threshold(lab.facts.large_bytes),
        };
        return Ok(Err(check.finding(vec![], t, Verdict::NotApplicable, none, None)));
    };
    let observed = match lab.profile.timing {
        Timing::Closed { depth } => depth as f64,
        Timing::Open => lab.timed(Variant::AsIs, lab.utilisation)?.mean_outstanding,
    };
    let points = lab.sweep(class.read_share(), bs, depths)?;
    let measured = vec![
        Figure {
            name: if which == "small" {
                "small_requests"
            } else {
                "large_requests"
            },
            value: class.requests as f64,
            unit: "requests",
            text: format!(
                "{} {which} requests ({} of all), typically {}, {} reads",
                class.requests,
                pct(class.requests as f64 / lab.profile.requests.max(1) as f64),
                fmt_size(bs),
                pct(class.read_share())
            ),
        },
        Figure {
            name: "concurrency",
            value: observed,
            unit: "outstanding requests",
            text: format!("{} requests outstanding on average", num(observed)),
        },
    ];
    Ok(Ok(ClassSweep {
        class,
        bs,
        observed,
        d90: depth_for(&points, 0.9),
        at: nearest(&points, observed),
        points,
        measured,
    }))
}

impl ClassSweep {
    /// The what-if: the sweep, and the gains of the depth reaching 90 % of the peak over the
    /// workload's own.
    pub fn what_if(self, lab: &Lab) -> (Vec<Figure>, WhatIf) {
        let w = WhatIf {
            fix: format!(
                "{} outstanding requests instead of {}",
                self.d90.depth,
                num(self.observed)
            ),
            method: lab.sweep_method(self.class.read_share(), self.bs),
            scenarios: vec![],
            gains: vec![
                gain("throughput MB/s", self.at.throughput_mb_s, self.d90.throughput_mb_s),
                gain("p99 us", self.at.p99_us, self.d90.p99_us),
            ],
            sweep: self.points,
        };
        (self.measured, w)
    }
}

fn run(lab: &mut Lab) -> Result<Finding> {
    let (page, units) = (lab.facts.page, lab.facts.parallel_units);
    let why = |bs: u64| {
        format!(
            "the queue depth at which {} requests reach 90 % of the peak throughput on this device; small means under a page on every parallel unit ({} x {units} = {})",
            fmt_size(bs),
            fmt_size(page),
            fmt_size(page * units)
        )
    };
    let c = match sweep_class(lab, &CHECK, lab.profile.small.clone(), "small", &DEPTHS, &why)? {
        Ok(c) => c,
        Err(n_a) => return Ok(n_a),
    };
    let (observed, d90, at, one) = (c.observed, c.d90, c.at, c.points[0]);
    let peak = c.points.iter().map(|p| p.throughput_mb_s).fold(0.0, f64::max);
    let threshold = Threshold {
        value: d90.depth as f64,
        unit: "outstanding requests",
        why: why(c.bs)
            + if d90.depth == 1 {
                " (one request already does)"
            } else if d90.depth == *DEPTHS.last().expect("depths") {
                " (the deepest swept: the peak may lie beyond)"
            } else {
                ""
            },
    };
    let busy = match lab.profile.timing {
        Timing::Closed { .. } => 1.0,
        Timing::Open => lab.timed(Variant::AsIs, lab.utilisation)?.busy_share,
    };
    let (verdict, reason) = if observed >= 0.9 * d90.depth as f64 {
        (
            Verdict::Ok,
            format!(
                "{} outstanding reach {} MB/s of the {} MB/s peak",
                num(observed),
                num(at.throughput_mb_s),
                num(peak)
            ),
        )
    } else if busy < BUSY {
        (
            Verdict::Ok,
            format!(
                "the workload is not I/O bound: the device has a request to serve {} of the time at the trace's pace (under {}); more concurrency would matter only for a faster pace ({} MB/s at one outstanding, {} at {})",
                pct(busy),
                pct(BUSY),
                num(one.throughput_mb_s),
                num(d90.throughput_mb_s),
                d90.depth
            ),
        )
    } else {
        (
            Verdict::Warn,
            format!(
                "{} outstanding get {} MB/s; {} outstanding would get {} MB/s (x{})",
                num(observed),
                num(at.throughput_mb_s),
                d90.depth,
                num(d90.throughput_mb_s),
                num(d90.throughput_mb_s / at.throughput_mb_s.max(1e-9))
            ),
        )
    };
    let (measured, what_if) = c.what_if(lab);
    Ok(CHECK.finding(measured, threshold, verdict, reason, Some(what_if)))
}
