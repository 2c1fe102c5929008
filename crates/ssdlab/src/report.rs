//! fio-like text rendering of a run result.
use ssdlab_core::metrics::{JobResult, LatStats, OpResult, RunResult};
use ssdlab_core::units::fmt_size;
use std::fmt::Write;

/// fio's `display_lat`: the line's unit is msec when the smallest latency is over 2 ms, the
/// largest over 100 ms and the deviation over 1 ms (usec likewise a thousand times smaller),
/// else nsec; min and max are whole units (truncated, as fio divides integers), avg and stdev
/// two decimals.
fn lat_line(out: &mut String, name: &str, l: &LatStats) {
    let (mut min, mut max, mut mean, mut dev) = (l.min, l.max, l.mean, l.stddev);
    let mut base = "nsec";
    for (unit, lo, hi, d) in [
        ("msec", 2_000_000, 99_999_999, 1_000_000.0),
        ("usec", 2_000, 99_999, 1_000.0),
    ] {
        if min > lo && max > hi && dev > d {
            let k = d as u64;
            (min, max, mean, dev) = (min / k, max / k, mean / d, dev / d);
            base = unit;
            break;
        }
    }
    let _ = writeln!(
        out,
        "    {name} ({base}): min={}, max={}, avg={mean:5.2}, stdev={dev:5.2}",
        num2str(min, 6, false, ""),
        num2str(max, 6, false, "")
    );
}

/// fio's `clat percentiles` block, as fio prints it: msec when the smallest percentile is over
/// 2 ms and the largest over 100 ms, usec when over 2 us and 100 us, else nsec; values rounded
/// up to whole units, four to a row, right-aligned to the widest (at least 5 digits).
fn percentiles(out: &mut String, l: &LatStats) {
    let vals: Vec<u64> = l.percentile.0.iter().map(|x| x.1).collect();
    let (Some(&minv), Some(&maxv)) = (vals.iter().min(), vals.iter().max()) else {
        return;
    };
    let (unit, scale) = if minv > 2_000_000 && maxv > 99_999_999 {
        ("msec", 2)
    } else if minv > 2_000 && maxv > 99_999 {
        ("usec", 1)
    } else {
        ("nsec", 0)
    };
    let divisor = 1000u64.pow(scale);
    let width = match maxv / divisor {
        0 => 5,
        m => (m.ilog10() as usize + 1).max(5),
    };
    let _ = writeln!(out, "    clat percentiles ({unit}):");
    let n = vals.len();
    for (j, ((p, _), &v)) in l.percentile.0.iter().zip(&vals).enumerate() {
        if j % 4 == 0 {
            out.push_str("     |");
        }
        let mut v = v;
        for _ in 0..scale {
            v = v.div_ceil(1000);
        }
        let p: f64 = p.parse().unwrap_or(0.0);
        let end = if j == n - 1 {
            "\n"
        } else if j % 4 == 3 {
            ",\n"
        } else {
            ","
        };
        let _ = write!(out, " {p:5.2}th=[{v:>width$}]{end}");
    }
}

/// fio's `num2str`: `num` in at most `maxlen` digits (the point included), divided by 1000
/// (or 1024 with `pow2`) as often as that takes and given the prefix (k, M, ... or Ki, Mi,
/// ...), the remainder as decimals where there is room, rounded as fio rounds; `unit` after.
pub fn num2str(num: u64, maxlen: usize, pow2: bool, unit: &str) -> String {
    const SI: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    const IEC: [&str; 7] = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];
    let prefix = if pow2 { IEC } else { SI };
    let thousand: u64 = if pow2 { 1024 } else { 1000 };
    let mut num = num;
    let mut post = 0;
    let mut modulo: Option<u64> = None;
    let mut carry = false;
    while post < SI.len() {
        if num.to_string().len() <= maxlen {
            break;
        }
        let m = num % thousand;
        modulo = Some(m);
        num /= thousand;
        carry = m >= thousand / 2;
        post += 1;
    }
    if post >= SI.len() {
        post = 0;
    }
    let Some(m) = modulo else {
        return format!("{num}{}{unit}", prefix[post]);
    };
    let digits = num.to_string().len();
    if maxlen.saturating_sub(digits) <= 1 {
        if carry {
            num += 1;
        }
        return format!("{num}{}{unit}", prefix[post]);
    }
    let decimals = maxlen - digits - 1;
    let frac = format!("{:.*}", decimals, m as f64 / thousand as f64);
    if frac.starts_with('1') {
        num += 1;
    }
    format!("{num}.{}{}{unit}", &frac[2..], prefix[post])
}

fn op(out: &mut String, name: &str, r: &OpResult, zone_resets: Option<u64>) {
    if r.total_ios == 0 || r.runtime == 0 {
        return;
    }
    // As fio's show_ddir_status: bytes and I/Os per second over the runtime in ms, four
    // significant figures in fio's units (KiB/s, MiB/s, ... and kB/s, MB/s, ...).
    let bw = 1000 * r.io_bytes / r.runtime;
    let iops = 1000 * r.total_ios / r.runtime;
    // fio's zbd jobs add their zone resets to the write line.
    let resets = match zone_resets {
        Some(n) if name == "write" => format!("; {n} zone resets"),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "  {name}: IOPS={}, BW={} ({})({}/{}msec){resets}",
        num2str(iops, 4, false, ""),
        num2str(bw, 4, true, "B/s"),
        num2str(bw, 4, false, "B/s"),
        num2str(r.io_bytes, 4, true, "B"),
        r.runtime
    );
    let l = &r.clat_ns;
    lat_line(out, "clat", l);
    percentiles(out, l);
    if r.bw_samples > 0 {
        let _ = writeln!(
            out,
            "   bw (  KiB/s): min={:5}, max={:5}, per={:3.2}%, avg={:5.2}, stdev={:5.2}, samples={}",
            r.bw_min, r.bw_max, r.bw_agg, r.bw_mean, r.bw_dev, r.bw_samples
        );
    }
    if r.iops_samples > 0 {
        let _ = writeln!(
            out,
            "   iops        : min={:5}, max={:5}, avg={:5.2}, stdev={:5.2}, samples={}",
            r.iops_min, r.iops_max, r.iops_mean, r.iops_stddev, r.iops_samples
        );
    }
}

/// fio's `lat (nsec|usec|msec)` lines: the share of I/Os in each latency bucket, five to a
/// line, the empty buckets left out.
fn latency_buckets(out: &mut String, j: &JobResult) {
    for (unit, buckets) in [
        ("nsec", &j.latency_ns),
        ("usec", &j.latency_us),
        ("msec", &j.latency_ms),
    ] {
        let shown: Vec<String> = buckets
            .0
            .iter()
            .filter(|(_, v)| *v > 0.0)
            // fio's stat_calc_lat: a bucket with any I/O shows at least 0.01 %.
            .map(|(k, v)| format!("{k}={:3.2}%", v.max(0.01)))
            .collect();
        for line in shown.chunks(5) {
            let _ = writeln!(out, "  lat ({unit})   : {}", line.join(", "));
        }
    }
}

/// fio's `IO depths`, `submit`, `complete` and `issued rwts` lines.
fn depths(out: &mut String, j: &JobResult) {
    let line = |o: &ssdlab_core::metrics::Ordered<f64>| -> String {
        o.0.iter()
            // fio's stat_calc_dist: a level with any I/O shows at least 0.1 %.
            .map(|(k, v)| format!("{k}={:3.1}%", if *v > 0.0 { v.max(0.1) } else { 0.0 }))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(out, "  IO depths    : {}", line(&j.iodepth_level));
    let _ = writeln!(out, "     submit    : {}", line(&j.iodepth_submit));
    let _ = writeln!(out, "     complete  : {}", line(&j.iodepth_complete));
    let _ = writeln!(
        out,
        "     issued rwts: total={},{},{},0 short=0,0,0,0 dropped=0,0,0,0",
        j.read.total_ios, j.write.total_ios, j.trim.total_ios
    );
}

fn job(out: &mut String, j: &JobResult) {
    let _ = writeln!(
        out,
        "{}: (groupid={}, jobs={}): err= {}: {}",
        j.jobname, j.groupid, j.ssdlab.numjobs, j.error, j.ssdlab.source
    );
    if j.read.hidden {
        // fio's unified_rw_reporting=mixed: one section for every direction.
        if let Some(m) = &j.mixed {
            op(out, "mixed", m, None);
        }
    } else {
        op(out, "read", &j.read, None);
        op(out, "write", &j.write, j.zone_resets);
        op(out, "trim", &j.trim, None);
        if let Some(m) = &j.mixed {
            op(out, "mixed", m, None);
        }
    }
    latency_buckets(out, j);
    depths(out, j);
    if let Some(o) = &j.ssdlab.open_loop {
        let _ = writeln!(
            out,
            "  open loop: mean latency first {:.1}us, last {:.1}us, max outstanding {}{}",
            o.first_mean_lat_ns / 1e3,
            o.last_mean_lat_ns / 1e3,
            o.max_outstanding,
            if o.keeping_up {
                ""
            } else {
                "  -- the device is NOT keeping up with the arrival rate"
            }
        );
    }
}

/// fio's `Run status group N (all jobs):` block of each reporting group: per direction the
/// group's bandwidth (its bytes over its longest runtime), its jobs' lowest and highest, its
/// bytes and its runtimes.
fn groups(out: &mut String, r: &RunResult) {
    let mut ids: Vec<u32> = r.jobs.iter().map(|j| j.groupid).collect();
    ids.dedup();
    for g in ids {
        let jobs: Vec<&JobResult> = r.jobs.iter().filter(|j| j.groupid == g).collect();
        let _ = writeln!(out, "\nRun status group {g} (all jobs):");
        let mixed = jobs.iter().all(|j| j.read.hidden);
        let dirs: Vec<(&str, Vec<&OpResult>)> = if mixed {
            vec![("  MIXED", jobs.iter().filter_map(|j| j.mixed.as_ref()).collect())]
        } else {
            vec![
                ("   READ", jobs.iter().map(|j| &j.read).collect()),
                ("  WRITE", jobs.iter().map(|j| &j.write).collect()),
                ("   TRIM", jobs.iter().map(|j| &j.trim).collect()),
            ]
        };
        for (name, ops) in dirs {
            // fio keeps a runtime only for the directions a job moved bytes in, and leaves
            // out a direction no job of the group used.
            let ran: Vec<&&OpResult> = ops.iter().filter(|o| o.runtime > 0 && o.io_bytes > 0).collect();
            let (Some(min_run), Some(max_run)) =
                (ran.iter().map(|o| o.runtime).min(), ran.iter().map(|o| o.runtime).max())
            else {
                continue;
            };
            let io: u64 = ran.iter().map(|o| o.io_bytes).sum();
            let agg = 1000 * io / max_run;
            let bw = |o: &&&OpResult| 1000 * o.io_bytes / o.runtime;
            let min = ran.iter().map(bw).min().unwrap_or(0);
            let max = ran.iter().map(bw).max().unwrap_or(0);
            let _ = writeln!(
                out,
                "{name}: bw={} ({}), {}-{} ({}-{}), io={} ({}), run={min_run}-{max_run}msec",
                num2str(agg, 4, true, "B/s"),
                num2str(agg, 4, false, "B/s"),
                num2str(min, 4, true, "B/s"),
                num2str(max, 4, true, "B/s"),
                num2str(min, 4, false, "B/s"),
                num2str(max, 4, false, "B/s"),
                num2str(io, 4, true, "B"),
                num2str(io, 4, false, "B"),
            );
        }
    }
}

/// A hard disk's run: fio's job sections, then the disk and where its head time went.
pub fn hdd(r: &ssdlab_core::hdd::HddResult) -> String {
    let mut out = String::new();
    for j in &r.jobs {
        job(&mut out, j);
    }
    let h = &r.hdd;
    let share = |x: u64| 100.0 * x as f64 / h.busy_ns.max(1) as f64;
    let _ = writeln!(
        out,
        "\nhdd: {} ({}, {} rpm, write cache {})",
        h.device,
        fmt_size(h.capacity_bytes),
        h.rpm,
        if h.write_cache { "on" } else { "off" }
    );
    let _ = writeln!(
        out,
        "  head time of {} requests: seek {:.1} %, rotation {:.1} %, transfer {:.1} %",
        h.requests,
        share(h.seek_ns),
        share(h.rotation_ns),
        share(h.transfer_ns)
    );
    out
}

pub fn normal(r: &RunResult) -> String {
    let mut out = String::new();
    for j in &r.jobs {
        job(&mut out, j);
    }
    groups(&mut out, r);
    let s = &r.ssd;
    let _ = writeln!(
        out,
        "\nssd: {} ({} logical, {} physical, alpha {:.3}, GC {})",
        s.device,
        fmt_size(s.logical_bytes),
        fmt_size(s.physical_bytes),
        s.alpha,
        s.gc_policy
    );
    let g = |v: &serde_json::Value, k: &str| v.get(k).cloned().unwrap_or_default();
    let sc = &s.scheduler;
    let suspend: Vec<String> = sc["suspend"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x.as_str().map(String::from)).collect())
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  scheduler: {}, suspend {}, {} allocation{}",
        sc["policy"].as_str().unwrap_or("?"),
        if suspend.is_empty() {
            "off".to_string()
        } else {
            suspend.join("+")
        },
        sc["allocation"].as_str().unwrap_or("?"),
        if sc["copyback"].as_bool() == Some(true) {
            ", GC copyback"
        } else {
            ""
        }
    );
    let _ = writeln!(
        out,
        "  flash: page reads={}, page programs={}, erases={}, WAF={:.3}",
        g(&s.flash, "page_reads"),
        g(&s.flash, "page_programs"),
        g(&s.flash, "erases"),
        s.waf
    );
    let _ = writeln!(
        out,
        "  gc: runs={} (foreground {}, background {}), copied units={}",
        g(&s.gc, "runs"),
        g(&s.gc, "foreground"),
        g(&s.gc, "background"),
        g(&s.gc, "copied_units"),
    );
    let i = &s.interference;
    let _ = writeln!(
        out,
        "  interference: {} reads met programs or erases on their die (mean wait {:.1} us), {} suspensions",
        g(i, "conflicting_reads"),
        i["mean_conflict_wait_ns"].as_f64().unwrap_or(0.0) / 1e3,
        g(i, "suspensions")
    );
    let _ = writeln!(
        out,
        "  wear: erase count min={} mean={} max={}, retired blocks={}",
        g(&s.wear, "erase_min"),
        g(&s.wear, "erase_mean"),
        g(&s.wear, "erase_max"),
        g(&s.wear, "retired_blocks")
    );
    let cpu = match s.utilisation["controller_cpus"].as_f64() {
        Some(c) if c > 0.0 => format!(", controller CPUs {c}"),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "  utilisation: host link {}, channels {}, planes {}{cpu}",
        g(&s.utilisation, "host_link"),
        g(&s.utilisation, "channels"),
        g(&s.utilisation, "planes")
    );
    // `key=value` of an object's entries but the ones named.
    let counters = |o: &serde_json::Map<String, serde_json::Value>, skip: &[&str]| -> String {
        o.iter()
            .filter(|(k, _)| !skip.contains(&k.as_str()))
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(o) = s.firmware.as_object().filter(|o| o.len() > 1) {
        let design = s.firmware["design"].as_str().unwrap_or("");
        let _ = writeln!(out, "  firmware {design}: {}", counters(o, &["design"]));
    }
    if let Some(o) = s.placement.as_ref().and_then(|p| p.as_object()) {
        let hist: Vec<u64> = o["victim_valid_percent"]
            .as_array()
            .map_or(Vec::new(), |a| a.iter().filter_map(|v| v.as_u64()).collect());
        let n: u64 = hist.iter().sum();
        let mean = hist.iter().enumerate().map(|(i, &c)| i as u64 * c).sum::<u64>() as f64 / n.max(1) as f64;
        let _ = writeln!(
            out,
            "  placement {}: {}, GC victims={n} (mean valid {mean:.1} %)",
            o["policy"].as_str().unwrap_or(""),
            counters(o, &["policy", "victim_valid_percent", "victims", "members"])
        );
        // An array's members, each its own handles and slots.
        for m in o.get("members").and_then(|m| m.as_array()).into_iter().flatten() {
            if let Some(mo) = m.as_object() {
                let _ = writeln!(
                    out,
                    "    member {} ({}): {}",
                    m["member"],
                    m["name"].as_str().unwrap_or(""),
                    counters(mo, &["member", "name", "victim_valid_percent"])
                );
            }
        }
    }
    if let Some(o) = s.redundancy.as_ref().and_then(|p| p.as_object()) {
        let scheme = o["scheme"].as_str().unwrap_or("");
        let _ = writeln!(out, "  redundancy {scheme}: {}", counters(o, &["scheme"]));
    }
    let busy = &s.throughput["busy_span"];
    let f = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap_or(0.0);
    let _ = writeln!(
        out,
        "  busy span: {:.3} s to the last flash operation (host-visible {:.3} s): IOPS={:.0}, read {:.1}MB/s, write {:.1}MB/s",
        f(&s.span, "busy_ns") / 1e9,
        f(&s.span, "host_visible_ns") / 1e9,
        f(busy, "iops"),
        f(busy, "read_bytes_per_s") / 1e6,
        f(busy, "write_bytes_per_s") / 1e6
    );
    let p = &s.precondition;
    match g(p, "mode").as_str() {
        Some("steady") => {
            let _ = writeln!(
                out,
                "  precondition: steady to {} utilisation, steady WAF {}{} ({} s)",
                g(p, "utilisation"),
                g(p, "steady_waf"),
                if p["converged"] == false { ", not converged" } else { "" },
                g(p, "wall_time_s")
            );
        }
        Some(mode @ "sequential") => {
            let _ = writeln!(
                out,
                "  precondition: {mode} fill to {} utilisation ({} s)",
                g(p, "utilisation"),
                g(p, "wall_time_s")
            );
        }
        _ => {}
    }
    if let Some(note) = p["note"].as_str().filter(|n| !n.is_empty()) {
        let _ = writeln!(out, "  note: {note}");
    }
    for m in r.members.iter().flatten() {
        let device = match &m.ssd {
            Some(s) => format!("WAF={:.3}, planes busy {}", s.waf, s.utilisation["planes"]),
            None => "measured drive".into(),
        };
        let _ = writeln!(
            out,
            "  member {} {}{}: {} reads, {} writes (read share {:.3}), {:.1}MB/s, {device}",
            m.member,
            m.name,
            if m.readonly { " (read-only)" } else { "" },
            m.read_requests,
            m.write_requests,
            m.read_share,
            m.mb_s,
        );
    }
    if let Some(m) = &r.array_model {
        let rodi = match (m.rodi_mb_s, m.tp1, m.tp2) {
            (Some(x), Some(t1), Some(t2)) => {
                format!(
                    ", RODI with members {:?} read-only {x:.1}MB/s (TP1 {t1:.1}, TP2 {t2:.1})",
                    m.readonly
                )
            }
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  section 4 model at read share {:.3} ({} {} B, depth {} per member): RAID 0 {:.1}MB/s (TP0 {:.1}){rodi}; simulated {:.1}MB/s",
            m.read_share,
            m.pattern,
            m.bs,
            m.depth_per_member,
            m.raid0_mb_s,
            m.tp0,
            m.simulated_mb_s
        );
    }
    let _ = writeln!(
        out,
        "  simulated {:.3} s, {} requests in {:.2} s wall ({:.0} requests/s)",
        s.sim_time_ns as f64 / 1e9,
        s.requests,
        s.wall_time_s,
        s.sim_requests_per_wall_s
    );
    out
}

#[cfg(test)]
mod tests {
    use super::{lat_line, num2str};
    use ssdlab_core::metrics::LatStats;

    fn lat(min: u64, max: u64, mean: f64, stddev: f64) -> String {
        let l = LatStats {
            min,
            max,
            mean,
            stddev,
            n: 10,
            percentile: Default::default(),
            bins: None,
        };
        let mut s = String::new();
        lat_line(&mut s, "clat", &l);
        s
    }

    #[test]
    fn latency_lines_take_fio_s_unit_rule() {
        // fio's nsec_to_usec: min over 2 us, max over 100 us and stdev over 1 us, all three.
        assert_eq!(
            lat(2_001, 100_000, 50_500.0, 1_500.5),
            "    clat (usec): min=2, max=100, avg=50.50, stdev= 1.50\n"
        );
        // A constant latency (stdev 0) stays in nsec, large numbers in num2str's k.
        assert_eq!(
            lat(34_885_000, 34_885_000, 34_885_000.0, 0.0),
            "    clat (nsec): min=34885k, max=34885k, avg=34885000.00, stdev= 0.00\n"
        );
        // msec: min over 2 ms, max over 100 ms, stdev over 1 ms; whole msec truncated.
        assert_eq!(
            lat(2_999_999, 150_000_000, 9_000_000.0, 2_000_000.0),
            "    clat (msec): min=2, max=150, avg= 9.00, stdev= 2.00\n"
        );
        // min just at the boundary: not over 2 us, nsec.
        assert_eq!(
            lat(2_000, 100_000, 50_500.0, 1_500.5),
            "    clat (nsec): min=2000, max=100000, avg=50500.00, stdev=1500.50\n"
        );
    }

    #[test]
    fn numbers_print_in_fio_s_units() {
        // fio's num2str with its default four significant figures, worked by hand: 48,000 B/s
        // is 46 KiB/s and 896 B/s, 0.875 → "46.9"; 103,423 I/Os is 103 k and 423 (no room for
        // a decimal, rounded down); 8,471,000,000 B is 8,078 MiB and 588 KiB (rounded up).
        assert_eq!(num2str(48_000, 4, true, "B/s"), "46.9KiB/s");
        assert_eq!(num2str(48_000, 4, false, "B/s"), "48.0kB/s");
        assert_eq!(num2str(103_423, 4, false, ""), "103k");
        assert_eq!(num2str(4_096, 4, false, ""), "4096");
        assert_eq!(num2str(423_600_000, 4, true, "B/s"), "404MiB/s");
        assert_eq!(num2str(8_471_000_000, 4, true, "B"), "8079MiB");
        assert_eq!(num2str(999, 4, true, "B"), "999B");
        assert_eq!(num2str(1_048_575, 4, true, "B"), "1024KiB");
        assert_eq!(num2str(0, 4, true, "B/s"), "0B/s");
    }
}
