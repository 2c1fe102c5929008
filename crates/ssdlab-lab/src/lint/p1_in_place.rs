//! Principle 1: avoid in-place-update optimisations. On an HDD, updating data where it lies
//! saves seeks; on an SSD every write goes to a clean page anyway, and a partial in-place
//! update costs a read-modify-write. Measured: the share of page writes that rewrite a page
//! the workload wrote before. What-if: the same updates sent to random pages of the
//! footprint; on an SSD they should cost no more.

use super::lab::{Lab, Variant};
use super::profile::ratio;
use super::{gain, num, pct, Check, Figure, Finding, Threshold, Verdict, WhatIf};
use crate::Result;

pub const CHECK: Check = Check {
    principle: 1,
    id: "in-place-updates",
    title: "In-place updates: random updates should cost no more on an SSD",
    run,
};

/// Share of page writes that are in-place updates above which the workload is built
/// around them.
const THRESHOLD: f64 = 0.5;

fn run(lab: &mut Lab) -> Result<Finding> {
    let p = &lab.profile;
    let threshold = Threshold {
        value: 100.0 * THRESHOLD,
        unit: "% of page writes",
        why: "most writes then update data where it lies: a layout built for in-place updates, which saves seeks on an HDD and nothing on an SSD (every write goes to a clean page)".into(),
    };
    if let Some(f) = CHECK.without_writes(lab, &threshold) {
        return Ok(f);
    }
    let share = ratio(p.page_rewrites, p.page_writes_total);
    let rewritten = p.page_writes.iter().filter(|&&c| c > 1).count() as u64;
    let measured = vec![
        Figure {
            name: "update_share",
            value: share,
            unit: "share",
            text: format!(
                "{} of the {} page writes update a page written before ({} updates of {} pages, {} each)",
                pct(share),
                p.page_writes_total,
                p.page_rewrites,
                rewritten,
                num(ratio(p.page_rewrites, rewritten))
            ),
        },
        Figure {
            name: "rmw_units",
            value: p.rmw_units as f64,
            unit: "units",
            text: format!(
                "{} partial writes of a mapping unit that held data (each a read-modify-write read)",
                p.rmw_units
            ),
        },
    ];
    let rmw = p.rmw_units;
    let u = lab.utilisation;
    let as_is = lab.scenario("as-is", Variant::AsIs, u)?;
    let random = lab.scenario("random updates", Variant::RandomUpdates, u)?;
    let waf = |s: &super::Scenario| s.waf.unwrap_or(0.0);
    let no_dearer = random.throughput_mb_s >= 0.95 * as_is.throughput_mb_s && waf(&random) <= 1.05 * waf(&as_is);
    let (verdict, reason) = if share < THRESHOLD {
        (
            Verdict::Ok,
            format!(
                "{} of page writes are in-place updates, under {}",
                pct(share),
                pct(THRESHOLD)
            ),
        )
    } else if no_dearer {
        (
            Verdict::Warn,
            format!(
                "{} of page writes update in place, yet random updates cost no more here (throughput {} against {} MB/s, WAF {} against {}): a layout kept for in-place updates buys nothing on this SSD{}",
                pct(share),
                num(random.throughput_mb_s),
                num(as_is.throughput_mb_s),
                num(waf(&random)),
                num(waf(&as_is)),
                if rmw > 0 { ", and its partial updates cost read-modify-writes" } else { "" }
            ),
        )
    } else {
        (
            Verdict::Ok,
            format!(
                "{} of page writes update in place, and on this device that is cheaper than random updates (throughput {} against {} MB/s, WAF {} against {}): updates concentrated on few pages leave GC emptier victims",
                pct(share),
                num(as_is.throughput_mb_s),
                num(random.throughput_mb_s),
                num(waf(&as_is)),
                num(waf(&random))
            ),
        )
    };
    let mut gains = vec![gain("throughput MB/s", as_is.throughput_mb_s, random.throughput_mb_s)];
    if let (Some(a), Some(b)) = (as_is.write, random.write) {
        gains.push(gain("write p99 us", a.p99_us, b.p99_us));
    }
    if let (Some(a), Some(b)) = (as_is.waf, random.waf) {
        gains.push(gain("WAF", a, b));
    }
    let what_if = WhatIf {
        fix: "the same updates sent to random pages of the footprint instead of back to the page they update".into(),
        method: "timed replay of the workload and of the variant; WAF from the projection of each write pattern".into(),
        scenarios: vec![as_is, random],
        sweep: vec![],
        gains,
    };
    Ok(CHECK.finding(measured, threshold, verdict, reason, Some(what_if)))
}
