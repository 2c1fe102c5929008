//! Principle 7: use few threads for large I/O. A request of a page on every parallel unit
//! keeps them all busy by itself; more outstanding only queue (and, on a real host, compete
//! for CPU and caches, which this simulator does not model). Measured: the workload's typical
//! large request and its concurrency. What-if: throughput and latency of that size across
//! queue depths; more than twice the depth reaching 90 % of the peak is too many.

use super::lab::Lab;
use super::p6_small_io::sweep_class;
use super::{num, Check, Finding, Threshold, Verdict};
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

fn run(lab: &mut Lab) -> Result<Finding> {
    let (page, units) = (lab.facts.page, lab.facts.parallel_units);
    let why = |bs: u64| {
        format!(
            "twice the queue depth at which {} requests reach 90 % of the peak: beyond it requests only queue; large means at least a page on every parallel unit ({} x {units} = {})",
            fmt_size(bs),
            fmt_size(page),
            fmt_size(page * units)
        )
    };
    let c = match sweep_class(lab, &CHECK, lab.profile.large.clone(), "large", &DEPTHS, &why)? {
        Ok(c) => c,
        Err(n_a) => return Ok(n_a),
    };
    let (observed, d90, at) = (c.observed, c.d90, c.at);
    let limit = 2 * d90.depth;
    let threshold = Threshold {
        value: limit as f64,
        unit: "outstanding requests",
        why: why(c.bs),
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
    let (measured, what_if) = c.what_if(lab);
    Ok(CHECK.finding(measured, threshold, verdict, reason, Some(what_if)))
}
