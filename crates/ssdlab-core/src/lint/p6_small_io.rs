//! Principle 6: use many threads (outstanding requests) for small I/O. A request smaller
//! than a page on every parallel unit keeps only some units busy; only concurrency fills the
//! rest. Measured: the workload's typical small request and its concurrency (requests
//! outstanding on average in the as-is replay, Little's law; a run file's queue depth).
//! What-if: throughput of that request size across queue depths on the device, and the depth
//! that reaches 90 % of the peak.

use super::lab::{Lab, Variant};
use super::profile::Timing;
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

/// The workload's concurrency: requests outstanding on average in the as-is replay (open
/// loop), or the jobs' depth.
pub fn concurrency(lab: &mut Lab) -> Result<f64> {
    Ok(match lab.profile.timing {
        Timing::Closed { depth } => depth as f64,
        Timing::Open => lab.timed(Variant::AsIs, lab.utilisation)?.mean_outstanding,
    })
}

fn run(lab: &mut Lab) -> Result<Finding> {
    let large = lab.facts.large_bytes;
    let class = lab.profile.small.clone();
    let (page, units) = (lab.facts.page, lab.facts.parallel_units);
    let threshold_why = |d: u32, bs: u64| {
        format!(
            "the queue depth at which {} requests reach 90 % of the peak throughput on this device; small means under a page on every parallel unit ({} x {} = {})",
            fmt_size(bs),
            fmt_size(page),
            units,
            fmt_size(large)
        ) + if d == 1 {
            " (one request already does)"
        } else if d == *DEPTHS.last().expect("depths") {
            " (the deepest swept: the peak may lie beyond)"
        } else {
            ""
        }
    };
    let Some(bs) = class.typical() else {
        return Ok(CHECK.finding(
            vec![],
            Threshold {
                value: 0.0,
                unit: "outstanding requests",
                why: threshold_why(1, large),
            },
            Verdict::NotApplicable,
            format!("no request is smaller than {}", fmt_size(large)),
            None,
        ));
    };
    let observed = concurrency(lab)?;
    let points = lab.sweep(class.read_share(), bs, &DEPTHS)?;
    let d90 = depth_for(&points, 0.9);
    let at = nearest(&points, observed);
    let one = points[0];
    let measured = vec![
        Figure {
            name: "small_requests",
            value: class.requests as f64,
            unit: "requests",
            text: format!(
                "{} small requests ({} of all), typically {}, {} reads",
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
    let threshold = Threshold {
        value: d90.depth as f64,
        unit: "outstanding requests",
        why: threshold_why(d90.depth, bs),
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
                num(points.iter().map(|p| p.throughput_mb_s).fold(0.0, f64::max))
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
    let what_if = WhatIf {
        fix: format!("{} outstanding requests instead of {}", d90.depth, num(observed)),
        method: lab.sweep_method(class.read_share(), bs),
        scenarios: vec![],
        gains: vec![
            gain("throughput MB/s", at.throughput_mb_s, d90.throughput_mb_s),
            gain("p99 us", at.p99_us, d90.p99_us),
        ],
        sweep: points,
    };
    Ok(CHECK.finding(measured, threshold, verdict, reason, Some(what_if)))
}
