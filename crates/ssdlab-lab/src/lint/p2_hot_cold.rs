//! Principle 2: keep hot and cold data apart. Data updated often and data updated rarely in
//! the same blocks make GC copy the cold data again and again. Measured: how skewed the
//! update frequency is over the written pages and over regions of the address space. What-if:
//! writes split into two streams by measured frequency (pages updated more often than the
//! mean written page are hot), each filling blocks of its own (`device.ftl.streams = 2`).

use super::lab::{Lab, Variant};
use super::profile::ratio;
use super::{gain, num, pct, Check, Figure, Finding, Threshold, Verdict, WhatIf, MATERIAL};
use crate::Result;

pub const CHECK: Check = Check {
    principle: 2,
    id: "hot-cold-mixed",
    title: "Hot and cold data: keep data updated often apart from data updated rarely",
    run,
};

/// Share of writes to the hottest fifth of the written pages above which the skew is worth
/// separating.
const THRESHOLD: f64 = 0.5;
/// Regions of the address space the region skew is measured over, at most.
const REGIONS: u64 = 1024;

/// Share of `counts`' total held by its largest fifth (rounded up).
fn top_fifth(mut counts: Vec<u64>) -> f64 {
    counts.retain(|&c| c > 0);
    counts.sort_unstable_by(|a, b| b.cmp(a));
    let k = counts.len().div_ceil(5);
    ratio(counts[..k].iter().sum(), counts.iter().sum())
}

fn run(lab: &mut Lab) -> Result<Finding> {
    let p = &lab.profile;
    let threshold = Threshold {
        value: 100.0 * THRESHOLD,
        unit: "% of page writes to the hottest fifth of the written pages",
        why: "the hottest fifth of the data then takes half the updates, 2.5 times its share (uniform updates give about 20 %): blocks mixing hot and cold data make GC copy the cold data over and over".into(),
    };
    if let Some(f) = CHECK.without_writes(lab, &threshold) {
        return Ok(f);
    }
    let page_skew = top_fifth(p.page_writes.iter().map(|&c| c as u64).collect());
    // Regions of the trace's own address space.
    let (lo, hi) = p
        .map
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), (t, _)| (lo.min(t), hi.max(t)));
    let per = (hi - lo + 1).div_ceil(REGIONS).max(1).next_power_of_two();
    let mut regions = vec![0u64; ((hi - lo) / per + 1) as usize];
    for (t, d) in p.map.iter() {
        regions[((t - lo) / per) as usize] += p.page_writes[d as usize] as u64;
    }
    let region_skew = top_fifth(regions);
    let hot_pages = (0..p.page_writes.len() as u64).filter(|&d| lab.is_hot(d)).count() as u64;
    let written = p.page_writes.iter().filter(|&&c| c > 0).count() as u64;
    let hot_writes: u64 = (0..p.page_writes.len())
        .filter(|&d| lab.is_hot(d as u64))
        .map(|d| p.page_writes[d] as u64)
        .sum();
    let measured = vec![
        Figure {
            name: "page_skew",
            value: page_skew,
            unit: "share",
            text: format!("the hottest fifth of the {written} written pages takes {} of the page writes", pct(page_skew)),
        },
        Figure {
            name: "region_skew",
            value: region_skew,
            unit: "share",
            text: format!(
                "the hottest fifth of the written regions of {} takes {} (hot data clustered in regions if close to the page figure, scattered among cold data if lower)",
                crate::units::fmt_size(per * crate::trace::replay::PAGE),
                pct(region_skew)
            ),
        },
        Figure {
            name: "hot_pages",
            value: ratio(hot_pages, written),
            unit: "share",
            text: format!(
                "hot (updated more often than the mean written page): {} of the written pages, {} of the page writes",
                pct(ratio(hot_pages, written)),
                pct(ratio(hot_writes, p.page_writes_total))
            ),
        },
    ];
    if let Some(why) = lab.streams_refused(2) {
        return Ok(CHECK.finding(
            measured,
            threshold,
            Verdict::NotApplicable,
            format!("the device cannot keep a second write stream apart: {why}"),
            None,
        ));
    }
    let u = lab.utilisation;
    let as_is = lab.scenario("as-is", Variant::AsIs, u)?;
    let apart = lab.scenario("hot/cold apart", Variant::HotCold, u)?;
    let (wa, wb) = (as_is.waf.unwrap_or(0.0), apart.waf.unwrap_or(0.0));
    let waf_gain = if wa > 0.0 { (wa - wb) / wa } else { 0.0 };
    let (verdict, reason) = if page_skew < THRESHOLD {
        (
            Verdict::Ok,
            format!(
                "updates are spread: the hottest fifth of the pages takes {}, under {}",
                pct(page_skew),
                pct(THRESHOLD)
            ),
        )
    } else if waf_gain >= MATERIAL {
        (
            Verdict::Warn,
            format!(
                "hot and cold data share blocks: the hottest fifth of the pages takes {}; keeping them apart lowers the WAF from {} to {} ({})",
                pct(page_skew),
                num(wa),
                num(wb),
                pct(-waf_gain)
            ),
        )
    } else {
        (
            Verdict::Ok,
            format!(
                "the updates are skewed ({} to the hottest fifth), but on this device keeping hot and cold apart gives a WAF of {} against {} as-is ({:+.1} %): no gain worth a second stream",
                pct(page_skew),
                num(wb),
                num(wa),
                -100.0 * waf_gain
            ),
        )
    };
    let mut gains = vec![gain("WAF", wa, wb)];
    gains.extend(super::lifetime_gain(&as_is, &apart));
    if let (Some(a), Some(b)) = (as_is.write, apart.write) {
        gains.push(gain("write p99 us", a.p99_us, b.p99_us));
    }
    let what_if = WhatIf {
        fix: "writes to hot pages on a second write stream, so that hot and cold data fill separate blocks (device.ftl.streams = 2)".into(),
        method: "timed replay of the workload with each write tagged hot or cold by its page's measured update count; WAF from the projection of each write pattern".into(),
        scenarios: vec![as_is, apart],
        sweep: vec![],
        gains,
    };
    Ok(CHECK.finding(measured, threshold, verdict, reason, Some(what_if)))
}
