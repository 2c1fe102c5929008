//! fio-like text rendering of a run result.
use ssdlab_core::metrics::{JobResult, LatStats, OpResult, RunResult};
use ssdlab_core::units::fmt_size;
use std::fmt::Write;

fn lat_unit(typical_ns: u64) -> (&'static str, f64) {
    if typical_ns >= 10_000_000 {
        ("msec", 1e6)
    } else if typical_ns >= 10_000 {
        ("usec", 1e3)
    } else {
        ("nsec", 1.0)
    }
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

fn op(out: &mut String, name: &str, r: &OpResult) {
    if r.total_ios == 0 {
        return;
    }
    let mib = r.bw_bytes as f64 / (1024.0 * 1024.0);
    let mb = r.bw_bytes as f64 / 1e6;
    let _ = writeln!(
        out,
        "  {name}: IOPS={:.0}, BW={mib:.1}MiB/s ({mb:.1}MB/s)({}/{}msec)",
        r.iops,
        fmt_size(r.io_bytes),
        r.runtime
    );
    let l = &r.clat_ns;
    let (u, div) = lat_unit(l.mean as u64);
    // One precision for every figure of the line, so that min <= avg <= max reads true.
    let prec = if div == 1.0 { 0 } else { 2 };
    let _ = writeln!(
        out,
        "    clat ({u}): min={:.prec$}, max={:.prec$}, avg={:.2}, stdev={:.2}",
        l.min as f64 / div,
        l.max as f64 / div,
        l.mean / div,
        l.stddev / div
    );
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

fn job(out: &mut String, j: &JobResult) {
    let _ = writeln!(
        out,
        "{}: (groupid={}, jobs={}): err= {}: {}",
        j.jobname, j.groupid, j.ssdlab.numjobs, j.error, j.ssdlab.source
    );
    op(out, "read", &j.read);
    op(out, "write", &j.write);
    op(out, "trim", &j.trim);
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

pub fn normal(r: &RunResult) -> String {
    let mut out = String::new();
    for j in &r.jobs {
        job(&mut out, j);
    }
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
            counters(o, &["policy", "victim_valid_percent", "victims"])
        );
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
