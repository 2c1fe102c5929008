//! Principle 5: do not fill the device too full. To free a block GC moves its valid data; at
//! a utilisation A it moves about 1/(1 − A) blocks' worth per block freed (five at 80 %,
//! twenty at 95 %, in the article's terms). Measured: the utilisation (the share of the
//! logical space holding data, `--utilisation`, or the footprint if larger) and the WAF of
//! the workload's pattern there. What-if: the same workload on the device 20 points emptier.

use super::lab::{Lab, Variant};
use super::{gain, num, pct, Check, Figure, Finding, Threshold, Verdict, WhatIf, MATERIAL};
use crate::Result;

pub const CHECK: Check = Check {
    principle: 5,
    id: "device-too-full",
    title: "A too-full device: keep free space for GC",
    run,
};

/// Utilisation from which GC cost is high.
const THRESHOLD: f64 = 0.8;
/// How much emptier the what-if device is.
const LOWER_BY: f64 = 0.2;

fn run(lab: &mut Lab) -> Result<Finding> {
    let u = lab.utilisation;
    let footprint = lab.profile.footprint_pages() as f64 * 4096.0 / lab.facts.logical_bytes as f64;
    let threshold = Threshold {
        value: 100.0 * THRESHOLD,
        unit: "% of the logical space",
        why: "freeing a block at utilisation A moves about 1/(1 - A) blocks' worth of valid data: 5 at 80 %, 20 at 95 % (the article's figures)".into(),
    };
    let mut measured = vec![Figure {
        name: "utilisation",
        value: u,
        unit: "share",
        text: format!(
            "{} of the logical space holds data (the workload's footprint is {}): GC moves about {} blocks' worth per block freed",
            pct(u),
            pct(footprint),
            num(1.0 / (1.0 - u))
        ),
    }];
    if lab.profile.writes == 0 {
        return Ok(CHECK.finding(
            measured,
            threshold,
            Verdict::NotApplicable,
            "the workload writes nothing: no GC to pay for".into(),
            None,
        ));
    }
    let lower = ((u - LOWER_BY) * 100.0).round().max(5.0) / 100.0;
    let as_is = lab.scenario(&format!("{:.0} % full", 100.0 * u), Variant::AsIs, u)?;
    let emptier = lab.scenario(&format!("{:.0} % full", 100.0 * lower), Variant::AsIs, lower)?;
    let (wa, wb) = (as_is.waf.unwrap_or(0.0), emptier.waf.unwrap_or(0.0));
    measured.push(Figure {
        name: "waf",
        value: wa,
        unit: "ratio",
        text: format!("the workload's write pattern settles at a WAF of {} there", num(wa)),
    });
    let waf_gain = if wa > 0.0 { (wa - wb) / wa } else { 0.0 };
    let (verdict, reason) = if u < THRESHOLD {
        (
            Verdict::Ok,
            format!(
                "{} full, under {}: WAF {} ({} at {})",
                pct(u),
                pct(THRESHOLD),
                num(wa),
                num(wb),
                pct(lower)
            ),
        )
    } else if waf_gain >= MATERIAL {
        (
            Verdict::Warn,
            format!(
                "{} full: at {} the WAF drops from {} to {} ({}) and the flash lasts {} instead of {}",
                pct(u),
                pct(lower),
                num(wa),
                num(wb),
                pct(-waf_gain),
                emptier.lifetime,
                as_is.lifetime
            ),
        )
    } else {
        (
            Verdict::Ok,
            format!(
                "{} full, but this workload's pattern barely needs the room: WAF {} at {}, {} at {}",
                pct(u),
                num(wa),
                pct(u),
                num(wb),
                pct(lower)
            ),
        )
    };
    let mut gains = vec![gain("WAF", wa, wb)];
    gains.extend(super::lifetime_gain(&as_is, &emptier));
    if let (Some(a), Some(b)) = (as_is.write, emptier.write) {
        gains.push(gain("write p99 us", a.p99_us, b.p99_us));
    }
    if let (Some(a), Some(b)) = (as_is.read, emptier.read) {
        gains.push(gain("read p99 us", a.p99_us, b.p99_us));
    }
    let what_if = WhatIf {
        fix: format!("the same workload on the device preconditioned to {} full instead of {}", pct(lower), pct(u)),
        method: "timed replay of the workload on each state; WAF from the projection of the write pattern at each utilisation".into(),
        scenarios: vec![as_is, emptier],
        sweep: vec![],
        gains,
    };
    Ok(CHECK.finding(measured, threshold, verdict, reason, Some(what_if)))
}
