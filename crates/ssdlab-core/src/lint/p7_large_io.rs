//! Principle 7: use few threads for large I/O. A request of a page on every parallel unit
//! keeps them all busy by itself; more outstanding only queue (and, on a real host, compete
//! for CPU and caches, which this simulator does not model). Measured: the workload's typical
//! large request and its concurrency. What-if: throughput and latency of that size across
//! queue depths; more than twice the depth reaching 90 % of the peak is too many.

use super::p6_small_io::{concurrency, depth_for, nearest};
use super::{gain, num, pct, Check, Figure, Finding, Threshold, Verdict, WhatIf};
use crate::units::fmt_size;
use crate::Result;

pub const CHECK: Check = Check {
    principle: 7,
    id: "large-io-threads",
    title: "Large I/O: few outstanding requests are enough",
    run,
};

/// Queue depths swept.
const DEPTHS: [u32; 6] = [1, 2, 4, 8, 16, 32];

fn run(lab: &mut super::lab::Lab) -> Result<Finding> {
    let large = lab.facts.large_bytes;
    let class = lab.profile.large.clone();
    let Some(bs) = class.typical() else {
        return Ok(CHECK.finding(
            vec![],
            Threshold {
                value: 0.0,
                unit: "outstanding requests",
                why: format!(
                    "twice the queue depth at which large requests reach 90 % of the peak; large means at least a page on every parallel unit ({} x {} = {})",
                    fmt_size(lab.facts.page),
                    lab.facts.parallel_units,
                    fmt_size(large)
                ),
            },
            Verdict::NotApplicable,
            format!("no request of {} or more", fmt_size(large)),
            None,
        ));
    };
    let observed = concurrency(lab)?;
    let points = lab.sweep(class.read_share(), bs, &DEPTHS)?;
    let d90 = depth_for(&points, 0.9);
    let limit = 2 * d90.depth;
    let at = nearest(&points, observed);
    let measured = vec![
        Figure {
            name: "large_requests",
            value: class.requests as f64,
            unit: "requests",
            text: format!(
                "{} large requests ({} of all), typically {}, {} reads",
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
        value: limit as f64,
        unit: "outstanding requests",
        why: format!(
            "twice the {} at which {} requests reach 90 % of the peak: beyond it requests only queue",
            d90.depth,
            fmt_size(bs)
        ),
    };
    let (verdict, reason) = if observed <= limit as f64 {
        (Verdict::Ok, format!("{} outstanding, at most {limit}", num(observed)))
    } else {
        (
            Verdict::Warn,
            format!(
                "{} outstanding get {} MB/s at a p99 of {} us; {} would get {} MB/s at {} us",
                num(observed),
                num(at.throughput_mb_s),
                num(at.p99_us),
                d90.depth,
                num(d90.throughput_mb_s),
                num(d90.p99_us)
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
