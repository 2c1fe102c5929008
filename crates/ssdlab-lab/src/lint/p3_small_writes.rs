//! Principle 3: compact data structures, no scattered small updates. The FTL writes whole
//! mapping units: a write smaller than a unit, or not on unit boundaries, programs the whole
//! units it touches and, when they held data, reads them first (read-modify-write).
//! Measured: writes below or across the unit, bytes of whole units per byte written,
//! read-modify-writes. What-if: the same bytes packed into a log written in whole units.

use super::lab::{Lab, Variant};
use super::profile::ratio;
use super::{gain, num, pct, Check, Figure, Finding, Threshold, Verdict, WhatIf};
use crate::units::fmt_size;
use crate::Result;

pub const CHECK: Check = Check {
    principle: 3,
    id: "small-scattered-writes",
    title: "Scattered small updates: write whole mapping units",
    run,
};

/// Bytes of whole mapping units per byte written above which small or unaligned writes
/// cost a noticeable share of the flash's work.
const THRESHOLD: f64 = 1.1;

fn run(lab: &mut Lab) -> Result<Finding> {
    let p = &lab.profile;
    let unit = lab.facts.unit;
    let threshold = Threshold {
        value: THRESHOLD,
        unit: "bytes of mapping units per byte written",
        why: format!(
            "the FTL maps and writes {} units: a smaller or unaligned write programs whole units (even a one-byte update costs a unit), so above {} a tenth of the programming carries no new data",
            fmt_size(unit),
            THRESHOLD
        ),
    };
    if let Some(f) = CHECK.without_writes(lab, &threshold) {
        return Ok(f);
    }
    let inflation = ratio(p.write_unit_bytes, p.write_bytes);
    let measured = vec![
        Figure {
            name: "unit_bytes_per_byte",
            value: inflation,
            unit: "ratio",
            text: format!(
                "{:.2} bytes of whole {} units per byte written ({} written, {} of units)",
                inflation,
                fmt_size(unit),
                fmt_size(p.write_bytes),
                fmt_size(p.write_unit_bytes)
            ),
        },
        Figure {
            name: "sub_unit_writes",
            value: ratio(p.sub_unit_writes, p.writes),
            unit: "share",
            text: format!(
                "{} of the writes are smaller than a unit, {} start or end inside one",
                pct(ratio(p.sub_unit_writes, p.writes)),
                pct(ratio(p.unaligned_writes, p.writes))
            ),
        },
        Figure {
            name: "rmw_per_write",
            value: ratio(p.rmw_units, p.writes),
            unit: "reads per write",
            text: format!(
                "{} read-modify-write reads per write (partial units that held data)",
                num(ratio(p.rmw_units, p.writes))
            ),
        },
    ];
    let u = lab.utilisation;
    let as_is = lab.scenario("as-is", Variant::AsIs, u)?;
    let packed = lab.scenario("packed", Variant::Packed, u)?;
    let (ba, bb) = (
        as_is.bytes_programmed_per_byte.unwrap_or(0.0),
        packed.bytes_programmed_per_byte.unwrap_or(0.0),
    );
    let (verdict, reason) = if inflation < THRESHOLD {
        (
            Verdict::Ok,
            format!("writes cover whole units: {inflation:.2} bytes of units per byte written, under {THRESHOLD}"),
        )
    } else {
        (
            Verdict::Warn,
            format!(
                "small or unaligned writes program {:.2} bytes of units per byte of data; packed into whole units the flash programs {} bytes per byte instead of {}",
                inflation,
                num(bb),
                num(ba)
            ),
        )
    };
    let mut gains = vec![gain("bytes programmed per byte", ba, bb)];
    gains.push(gain("RMW reads", as_is.rmw_reads as f64, packed.rmw_reads as f64));
    gains.extend(super::lifetime_gain(&as_is, &packed));
    if let (Some(a), Some(b)) = (as_is.write, packed.write) {
        gains.push(gain("write p99 us", a.p99_us, b.p99_us));
    }
    let what_if = WhatIf {
        fix: format!(
            "the same bytes appended to a packed log and written in whole {} units (a compact, aligned layout)",
            fmt_size(unit)
        ),
        method: "timed replay of the workload and of the packed variant (reads unchanged); WAF from the projection of each write pattern".into(),
        scenarios: vec![as_is, packed],
        sweep: vec![],
        gains,
    };
    Ok(CHECK.finding(measured, threshold, verdict, reason, Some(what_if)))
}
