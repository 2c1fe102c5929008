//! Principle 4: avoid long, heavy, sustained writes. Background GC keeps some blocks free
//! while the device has idle time; a burst of writes faster than the device can clean, and
//! longer than the free space it kept, forces foreground GC: writes wait for collections and
//! latency spikes. Measured: the longest run of 100 ms windows writing faster than the
//! steady-state write rate, against the free space that absorbs it; foreground collections
//! in the replay. What-if: the same writes paced to half that rate.

use super::lab::{Lab, Variant};
use super::profile::{Timing, WINDOW_NS};
use super::{gain, num, Check, Figure, Finding, Threshold, Verdict, WhatIf};
use crate::units::fmt_size;
use crate::Result;

pub const CHECK: Check = Check {
    principle: 4,
    id: "sustained-heavy-writes",
    title: "Long heavy sustained writes: leave the device time to collect",
    run,
};

/// Pacing keeps writes to this share of the steady-state write rate.
const PACE: f64 = 0.5;

/// The longest run of consecutive windows writing more than `rate` bytes per second:
/// (windows, bytes).
fn longest_burst(windows: &[(u64, u64)], rate: f64) -> (u64, u64) {
    let per_window = rate * WINDOW_NS as f64 / 1e9;
    let (mut best, mut cur) = ((0, 0), (0u64, 0u64));
    let mut prev: Option<u64> = None;
    for &(w, bytes) in windows {
        if bytes as f64 > per_window {
            cur = if prev.is_some_and(|p| p + 1 == w) && cur.0 > 0 {
                (cur.0 + 1, cur.1 + bytes)
            } else {
                (1, bytes)
            };
            if cur.1 > best.1 {
                best = cur;
            }
        } else {
            cur = (0, 0);
        }
        prev = Some(w);
    }
    best
}

fn run(lab: &mut Lab) -> Result<Finding> {
    let uniform = lab.uniform_waf()?.max(1.0);
    let f = lab.facts.clone();
    let sustain = f.flash_write_bytes_per_s / uniform;
    let threshold = Threshold {
        value: f.headroom_bytes as f64 / 1e6,
        unit: "MB written in a burst",
        why: format!(
            "background GC keeps {} blocks per plane free above the foreground threshold of {} ({} of blocks) and the write buffer holds {}: a burst above the steady-state write rate of {} MB/s (flash program rate {} MB/s over the uniform WAF {}) longer than that waits for foreground GC",
            f.bg_gc_threshold.max(f.gc_threshold) - f.gc_threshold,
            f.gc_threshold,
            fmt_size(f.headroom_bytes - lab.cfg.device.ftl.write_buffer.0),
            fmt_size(lab.cfg.device.ftl.write_buffer.0),
            num(sustain / 1e6),
            num(f.flash_write_bytes_per_s / 1e6),
            num(uniform)
        ),
    };
    if let Some(f) = CHECK.without_writes(lab, &threshold) {
        return Ok(f);
    }
    let u = lab.utilisation;
    let timing = lab.profile.timing;
    let (windows, burst) = longest_burst(&lab.profile.windows, sustain);
    let as_is = lab.scenario("as-is", Variant::AsIs, u)?;
    let paced = lab.scenario("paced", Variant::Paced(PACE * sustain), u)?;
    let mut measured = vec![];
    match timing {
        Timing::Open => measured.push(Figure {
            name: "longest_burst",
            value: burst as f64 / 1e6,
            unit: "MB",
            text: if windows == 0 {
                format!(
                    "no 100 ms window writes faster than the steady-state rate of {} MB/s",
                    num(sustain / 1e6)
                )
            } else {
                format!(
                    "longest burst above {} MB/s: {} written in {:.1} s",
                    num(sustain / 1e6),
                    fmt_size(burst),
                    windows as f64 * WINDOW_NS as f64 / 1e9
                )
            },
        }),
        Timing::Closed { depth } => measured.push(Figure {
            name: "longest_burst",
            value: lab.profile.write_bytes as f64 / 1e6,
            unit: "MB",
            text: format!(
                "closed loop at {depth} outstanding: all {} written as fast as the device takes them",
                fmt_size(lab.profile.write_bytes)
            ),
        }),
    }
    measured.push(Figure {
        name: "foreground_gc",
        value: as_is.foreground_gc as f64,
        unit: "collections",
        text: format!(
            "{} of {} garbage collections in the replay ran in the foreground",
            as_is.foreground_gc, as_is.gc
        ),
    });
    // A closed loop writes as fast as the device takes it: the replay tells whether that
    // outruns background GC.
    let burst_bytes = match timing {
        Timing::Open => burst,
        Timing::Closed { .. } => 0,
    };
    let heavy = as_is.foreground_gc > 0 || burst_bytes > f.headroom_bytes;
    let (verdict, reason) = if f.bg_gc_threshold == 0 {
        (
            Verdict::NotApplicable,
            format!(
                "this device has no background GC on idle planes (device.ftl.bg_gc_threshold = 0, or bg_gc = \"after-request\"): idle time frees no blocks ahead of writes ({} foreground collections in the replay) whatever the pace",
                as_is.foreground_gc
            ),
        )
    } else if heavy {
        (
            Verdict::Warn,
            format!(
                "writes outrun background GC: {} foreground collections in the replay{}; paced, {} (write p99.9 {} -> {} us)",
                as_is.foreground_gc,
                if burst_bytes > f.headroom_bytes {
                    format!(", a heavy burst of {} against {} of free space", fmt_size(burst_bytes), fmt_size(f.headroom_bytes))
                } else {
                    String::new()
                },
                paced.foreground_gc,
                num(as_is.write.map_or(0.0, |l| l.p999_us)),
                num(paced.write.map_or(0.0, |l| l.p999_us))
            ),
        )
    } else {
        (
            Verdict::Ok,
            format!(
                "no foreground GC in the replay, and no heavy burst longer than the free space background GC keeps ({})",
                fmt_size(f.headroom_bytes)
            ),
        )
    };
    let mut gains = vec![gain(
        "foreground GC",
        as_is.foreground_gc as f64,
        paced.foreground_gc as f64,
    )];
    if let (Some(a), Some(b)) = (as_is.write, paced.write) {
        gains.push(gain("write p99.9 us", a.p999_us, b.p999_us));
        gains.push(gain("write max us", a.max_us, b.max_us));
    }
    if let (Some(a), Some(b)) = (as_is.read, paced.read) {
        gains.push(gain("read p99.9 us", a.p999_us, b.p999_us));
    }
    gains.push(gain("throughput MB/s", as_is.throughput_mb_s, paced.throughput_mb_s));
    let what_if = WhatIf {
        fix: format!(
            "the same writes paced to {} MB/s ({} of the steady-state write rate; bursts within 100 ms pass), later requests shifted with them, so that background GC has idle time",
            num(PACE * sustain / 1e6),
            super::pct(PACE)
        ),
        method: "timed replay of the workload and of the paced variant".into(),
        scenarios: vec![as_is, paced],
        sweep: vec![],
        gains,
    };
    Ok(CHECK.finding(measured, threshold, verdict, reason, Some(what_if)))
}

#[cfg(test)]
mod tests {
    use super::longest_burst;

    #[test]
    fn bursts_are_runs_of_consecutive_heavy_windows() {
        // 10 MB/s is 1 MB per 100 ms window.
        let w = [
            (0, 2_000_000),
            (1, 3_000_000),
            (2, 500_000),
            (3, 2_000_000),
            (5, 9_000_000),
            (6, 1_500_000),
        ];
        assert_eq!(longest_burst(&w, 10e6), (2, 10_500_000));
        assert_eq!(longest_burst(&w, 100e6), (0, 0));
        assert_eq!(longest_burst(&w[..2], 1e6), (2, 5_000_000));
    }
}
