//! Validation of the engine against independent references: analytic write amplification,
//! exact latencies of single requests, bottleneck bandwidth, FTL invariants, determinism.
//! Heavy: run with `cargo test --profile ci-test`.
//!
//! `io_size = "1000TiB"` beside `number_ios`: that many requests, over the range as often as they
//! take (fio's `number_ios` alone stops at one pass).

use ssdlab_core::config::parse_config;
use ssdlab_core::host::xfer_ns;
use ssdlab_core::{run_config, Config, Device, Op, Request, Simulation};
use std::path::Path;

fn cfg(text: &str) -> Config {
    parse_config(text, "test.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"))
}

/// A device of one plane with 4 KiB pages (mapping unit = page), SLC timing, write-through.
fn waf_device(alpha: f64, pages_per_block: u32, blocks: u32, policy: &str) -> String {
    format!(
        r#"
[device]
name = "waf"
[device.geometry]
channels = 1
ways = 1
blocks_per_plane = {blocks}
pages_per_block = {pages_per_block}
page_size = "4KiB"
overprovisioning = {op}
[device.nand]
cell = "slc"
read = "25us"
program = "200us"
erase = "1.5ms"
channel_rate = "400MB/s"
endurance = 1000000
[device.host]
interface = "nvme-gen3x4"
command_overhead = "0ns"
[device.ftl]
gc_policy = "{policy}"
gc_d = 64
gc_threshold = 2
gc_frontier = "shared"
[precondition]
mode = "steady"
utilisation = 1.0
max_overwrites = 8
seed = 7
"#,
        op = alpha - 1.0
    )
}

use ssdlab_core::analytic::{fifo_waf as fifo_wa, greedy_waf as greedy_wa};

/// Steady-state WAF of uniform random 4 KiB overwrites, measured over a timed run of
/// `writes_per_unit` × logical units after preconditioning.
fn measured_waf(alpha: f64, b: u32, units: u64, policy: &str) -> f64 {
    let blocks = ((units as f64 * alpha) / b as f64).ceil() as u32;
    let mut text = waf_device(alpha, b, blocks, policy);
    let logical = (blocks as f64 * b as f64 / alpha).floor() as u64;
    text += &format!(
        "[[job]]\nname = \"w\"\nrw = \"randwrite\"\nbs = \"4KiB\"\niodepth = 4\nio_size = \"{}KiB\"\n",
        logical * 2 * 4
    );
    let c = cfg(&text);
    let mut sim = Simulation::new(&c).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    sim.device().ftl.check_invariants().unwrap();
    assert_eq!(r.jobs[0].write.total_ios, logical * 2);
    r.ssd.waf
}

fn check(name: &str, got: f64, want: f64, tol: f64) {
    let err = (got - want) / want;
    eprintln!(
        "{name}: measured {got:.3}, reference {want:.3}, error {:+.2} %",
        err * 100.0
    );
    assert!(
        err.abs() <= tol,
        "{name}: measured WAF {got:.3} vs reference {want:.3} ({:+.2} %, tolerance {} %)",
        err * 100.0,
        tol * 100.0
    );
}

#[test]
fn waf_fifo_matches_closed_form() {
    for &alpha in &[1.07, 1.10, 1.28] {
        for &b in &[32u32, 128] {
            let got = measured_waf(alpha, b, 1 << 20, "fifo");
            check(&format!("fifo α={alpha} b={b}"), got, fifo_wa(alpha), 0.02);
        }
    }
}

#[test]
fn waf_greedy_matches_mean_field() {
    for &alpha in &[1.07, 1.10, 1.28] {
        for &b in &[32u32, 128] {
            let got = measured_waf(alpha, b, 1 << 20, "greedy");
            check(
                &format!("greedy α={alpha} b={b}"),
                got,
                greedy_wa(alpha, b as usize),
                0.03,
            );
        }
    }
}

#[test]
fn waf_random_matches_alpha_over_alpha_minus_one() {
    for &alpha in &[1.07, 1.10, 1.28] {
        let got = measured_waf(alpha, 64, 1 << 20, "random");
        check(
            &format!("random α={alpha}"),
            got,
            ssdlab_core::analytic::random_waf(alpha),
            0.03,
        );
    }
}

#[test]
fn gc_frontier_choice_does_not_matter_for_uniform_writes() {
    // All data is equally hot, so where survivors go cannot change write amplification.
    let base =
        waf_device(1.1, 64, 4096, "fifo") + "[[job]]\nrw = \"randwrite\"\nnumber_ios = 400000\nio_size = \"1000TiB\"\n";
    let shared = run_config(&cfg(&base)).unwrap().ssd.waf;
    let separate = run_config(&cfg(
        &base.replace("gc_frontier = \"shared\"", "gc_frontier = \"separate\"")
    ))
    .unwrap()
    .ssd
    .waf;
    assert!(
        (separate - shared).abs() < 0.01 * shared,
        "separate {separate} vs shared {shared}"
    );
}

#[test]
fn d_choices_sits_between_random_and_greedy() {
    let alpha = 1.10;
    let mut text = waf_device(alpha, 64, 4096, "d-choices").replace("gc_d = 64", "gc_d = 2");
    text += "[[job]]\nrw = \"randwrite\"\nnumber_ios = 400000\nio_size = \"1000TiB\"\n";
    let w = run_config(&cfg(&text)).unwrap().ssd.waf;
    assert!(
        w > greedy_wa(alpha, 64) * 1.02 && w < alpha / (alpha - 1.0),
        "d=2 WAF {w}"
    );
}

/// Small two-channel SLC device for exact latencies: plane s sits on channel s.
const EXACT_GEOMETRY: &str = r#"
[device]
name = "exact"
[device.geometry]
channels = 2
ways = 1
blocks_per_plane = 64
pages_per_block = 16
page_size = "8KiB"
mapping_unit = "4KiB"
overprovisioning = 0.25
"#;

fn exact() -> String {
    format!("{EXACT_GEOMETRY}{}", crate::common::SLC_TIMING)
}

#[test]
fn single_requests_take_the_sum_of_their_parts() {
    let c = cfg(&exact());
    let mut d = Device::new(&c.device, 1).unwrap();
    let link = |bytes: u64| 5_000 + xfer_ns(bytes, 600_000_000);
    let ch = |bytes: u64| xfer_ns(bytes, 100_000_000);
    let (t_r, t_p) = (25_000, 200_000);
    let mut t = 0u64;
    let mut lat = |d: &mut Device, op: Op, offset: u64, len: u64| {
        t += 100_000_000; // far apart: the device is idle at each arrival
        d.run_request(
            t,
            &Request {
                time_ns: t,
                op,
                offset,
                len,
                stream: 0,
            },
        )
        .unwrap()
            - t
    };
    // Read of never-written data: the link only.
    assert_eq!(lat(&mut d, Op::Read, 0, 4096), link(4096));
    // 4 KiB write: link, a padded 8 KiB page over the channel, program.
    assert_eq!(lat(&mut d, Op::Write, 0, 4096), link(4096) + ch(8192) + t_p);
    // 4 KiB read: tR, 4 KiB over the channel, link.
    assert_eq!(lat(&mut d, Op::Read, 0, 4096), t_r + ch(4096) + link(4096));
    // 16 KiB write = two pages on the two planes/channels in parallel.
    assert_eq!(lat(&mut d, Op::Write, 8192, 16384), link(16384) + ch(8192) + t_p);
    // 16 KiB read of those two pages: two planes, two channels, in parallel.
    assert_eq!(lat(&mut d, Op::Read, 8192, 16384), t_r + ch(8192) + link(16384));
    // 2 KiB write into the mapped unit 0: read-modify-write (read overlaps the link).
    let rmw = (t_r + ch(4096)).max(link(2048));
    assert_eq!(lat(&mut d, Op::Write, 0, 2048), rmw + ch(8192) + t_p);
    // 2 KiB write into a never-written unit: no read first.
    assert_eq!(lat(&mut d, Op::Write, 65536 + 1024, 2048), link(2048) + ch(8192) + t_p);
    // Trim: the command only.
    assert_eq!(lat(&mut d, Op::Trim, 0, 8192), 5_000);
    // Two pages on the same plane: cache read lets the second tR follow the first at once;
    // the channel carries them one after the other.
    let mut d2 = Device::new(&cfg(&exact().replace("channels = 2", "channels = 1")).device, 1).unwrap();
    let mut t2 = 0u64;
    let mut lat2 = |d: &mut Device, op: Op, offset: u64, len: u64| {
        t2 += 100_000_000;
        d.run_request(
            t2,
            &Request {
                time_ns: t2,
                op,
                offset,
                len,
                stream: 0,
            },
        )
        .unwrap()
            - t2
    };
    lat2(&mut d2, Op::Write, 0, 16384);
    let two = (t_r + ch(8192)).max(2 * t_r) + ch(8192);
    assert_eq!(lat2(&mut d2, Op::Read, 0, 16384), two + link(16384));
    d.ftl.check_invariants().unwrap();
    d2.ftl.check_invariants().unwrap();
}

#[test]
fn page_types_have_their_own_times() {
    let text = exact()
        .replace("cell = \"slc\"", "cell = \"mlc\"")
        .replace("read = \"25us\"", "read = [\"40us\", \"60us\"]")
        .replace("program = \"200us\"", "program = [\"500us\", \"1500us\"]")
        .replace("channels = 2", "channels = 1")
        .replace("mapping_unit = \"4KiB\"", "mapping_unit = \"8KiB\"");
    let mut d = Device::new(&cfg(&text).device, 1).unwrap();
    let link = |bytes: u64| 5_000 + xfer_ns(bytes, 600_000_000);
    let ch = xfer_ns(8192, 100_000_000);
    let mut t = 0;
    let mut lat = |d: &mut Device, op: Op, offset: u64| {
        t += 100_000_000;
        d.run_request(
            t,
            &Request {
                time_ns: t,
                op,
                offset,
                len: 8192,
                stream: 0,
            },
        )
        .unwrap()
            - t
    };
    assert_eq!(lat(&mut d, Op::Write, 0), link(8192) + ch + 500_000); // page 0: LSB
    assert_eq!(lat(&mut d, Op::Write, 8192), link(8192) + ch + 1_500_000); // page 1: MSB
    assert_eq!(lat(&mut d, Op::Read, 0), 40_000 + ch + link(8192));
    assert_eq!(lat(&mut d, Op::Read, 8192), 60_000 + ch + link(8192));
}

/// 4 channels × 2 ways × 2 planes, 16 KiB pages.
fn bw_device(t_r: &str, t_p: &str, ch_rate: &str, iface: &str) -> String {
    format!(
        r#"
[device]
name = "bw"
[device.geometry]
channels = 4
ways = 2
planes_per_die = 2
blocks_per_plane = 64
pages_per_block = 256
page_size = "16KiB"
mapping_unit = "16KiB"
overprovisioning = 0.1
[device.nand]
cell = "slc"
read = "{t_r}"
program = "{t_p}"
erase = "2ms"
channel_rate = "{ch_rate}"
endurance = 100000
[device.host]
interface = "{iface}"
command_overhead = "0ns"
"#
    )
}

fn seq_bw(text: String, rw: &str) -> f64 {
    let pre = if rw == "read" {
        "[precondition]\nmode = \"sequential\"\n"
    } else {
        ""
    };
    let job = format!(
        "{pre}[[job]]\nrw = \"{rw}\"\nbs = \"128KiB\"\niodepth = 64\nnumber_ios = 3000\nio_size = \"1000TiB\"\n"
    );
    let c = cfg(&(text + &job));
    let mut sim = Simulation::new(&c).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    sim.device().ftl.check_invariants().unwrap();
    let op = if rw == "read" {
        &r.jobs[0].read
    } else {
        &r.jobs[0].write
    };
    op.bw_bytes as f64
}

#[test]
fn sequential_bandwidth_hits_the_bottleneck() {
    let page = 16384.0;
    let planes = 16.0;
    let cases = [
        // (tR, tPROG, channel rate, interface, rw, expected bottleneck in B/s)
        ("50us", "500us", "400MB/s", "nvme-gen3x4", "read", 4.0 * 400e6), // channels
        (
            "400us",
            "500us",
            "400MB/s",
            "nvme-gen3x4",
            "read",
            planes * page / 400e-6,
        ), // arrays
        ("50us", "500us", "800MB/s", "sata3", "read", 600e6),             // host link
        (
            "50us",
            "500us",
            "400MB/s",
            "nvme-gen3x4",
            "write",
            planes * page / 500e-6,
        ), // arrays
        ("50us", "100us", "200MB/s", "nvme-gen3x4", "write", 4.0 * 200e6), // channels
    ];
    for (tr, tp, rate, iface, rw, want) in cases {
        let got = seq_bw(bw_device(tr, tp, rate, iface), rw);
        let err = (got - want) / want;
        eprintln!(
            "{rw} tR={tr} tPROG={tp} ch={rate} {iface}: {got:.0} B/s vs {want:.0} ({:+.2} %)",
            err * 100.0
        );
        assert!(err.abs() < 0.02, "{rw} {tr} {tp} {rate} {iface}: {got} vs {want}");
    }
}

#[test]
fn invariants_hold_after_trim_and_gc_heavy_mixes() {
    let text = waf_device(1.1, 32, 512, "greedy").replace("mode = \"steady\"", "mode = \"sequential\"")
        + "[[job]]\nname = \"mix\"\nrw = \"randrw\"\nrwmixread = 30\nbssplit = \"4k/60:16k/30:64k/10\"\niodepth = 16\nnumber_ios = 60000\nio_size = \"1000TiB\"\n"
        + "[[job]]\nname = \"trim\"\nrw = \"randtrim\"\nbs = \"32k\"\niodepth = 2\nnumber_ios = 5000\nio_size = \"1000TiB\"\n";
    for policy in ["greedy", "fifo", "random", "cost-benefit", "d-choices"] {
        let c = cfg(&text.replace("gc_policy = \"greedy\"", &format!("gc_policy = \"{policy}\"")));
        let mut sim = Simulation::new(&c).unwrap();
        let r = sim.run(&mut |_| {}).unwrap();
        sim.device()
            .ftl
            .check_invariants()
            .unwrap_or_else(|e| panic!("{policy}: {e}"));
        assert!(r.ssd.gc["runs"].as_u64().unwrap() > 0, "{policy}: no GC happened");
        assert!(r.jobs[1].trim.total_ios == 5000);
        // Counters add up: host units written = mapped-or-overwritten units accounted by the FTL.
        assert_eq!(r.ssd.host["write_units"], sim.device().ftl.stats.host_units_written);
    }
}

#[test]
fn sub_page_mapping_with_buffer_and_wear_leveling_keeps_invariants() {
    let text = exact().replace("[device.ftl]\n", "[device.ftl]\nwrite_buffer = \"64KiB\"\nstatic_wl_threshold = 4\nbg_gc_threshold = 4\n")
        + "[precondition]\nmode = \"steady\"\nutilisation = 0.5\n"
        + "[[job]]\nrw = \"randrw\"\nbssplit = \"2k/20:4k/50:12k/30\"\nrandom_distribution = \"zipf:1.1\"\niodepth = 8\nnumber_ios = 50000\nio_size = \"1000TiB\"\n";
    let c = cfg(&text);
    let mut sim = Simulation::new(&c).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    sim.device().ftl.check_invariants().unwrap();
    assert!(
        r.ssd.wear["static_wl_migrations"].as_u64().unwrap() > 0,
        "{}",
        r.ssd.wear
    );
    let (min, _, max, _) = sim.device().ftl.erase_summary();
    assert!(max - min <= 4 + 8, "erase spread {min}..{max}");
}

#[test]
fn blocks_retire_at_their_endurance_limit() {
    let text = waf_device(1.25, 16, 256, "greedy").replace("endurance = 1000000", "endurance = 6")
        + "[[job]]\nrw = \"randwrite\"\nnumber_ios = 200000\nio_size = \"1000TiB\"\n";
    let c = cfg(&text.replace("max_overwrites = 8", "max_overwrites = 0"));
    let mut sim = Simulation::new(&c).unwrap();
    let res = sim.run(&mut |_| {});
    // Either the run wears the device out (a clear error) or it retires blocks on the way.
    match res {
        Ok(r) => assert!(r.ssd.wear["retired_blocks"].as_u64().unwrap() > 0),
        Err(e) => assert!(
            e.to_string().contains("free blocks") || e.to_string().contains("no block"),
            "{e}"
        ),
    }
    sim.device().ftl.check_invariants().unwrap();
    for b in 0..sim.device().geo.blocks {
        assert!(sim.device().ftl.erase_count(b) <= 6);
    }
}

#[test]
fn same_seed_same_json_other_seed_differs() {
    let text = waf_device(1.1, 32, 512, "d-choices").replace("gc_d = 64", "gc_d = 4")
        + "[[job]]\nrw = \"randrw\"\niodepth = 8\nnumber_ios = 30000\nio_size = \"1000TiB\"\nrandom_distribution = \"zipf:0.9\"\n";
    let mut c = cfg(&text);
    let a = run_config(&c).unwrap().deterministic_json();
    let b = run_config(&c).unwrap().deterministic_json();
    assert_eq!(a, b);
    c.precondition.seed = 8;
    let d = run_config(&c).unwrap().deterministic_json();
    assert_ne!(a, d);
}

#[test]
fn presets_load_and_run_briefly() {
    for name in ssdlab_core::config::preset_names() {
        let mut c = ssdlab_core::load_config(name).unwrap();
        c.precondition.mode = ssdlab_core::config::PreconditionMode::Sequential;
        c.precondition.utilisation = 0.05;
        // 2,000 requests per job clone, with no time limit or ramp cutting them short.
        for j in &mut c.job {
            j.number_ios = Some(2000);
            j.runtime = None;
            j.ramp_time = None;
            j.time_based = false;
        }
        let clones: u64 = c.job.iter().map(|j| j.numjobs as u64).sum();
        let r = run_config(&c).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.ssd.requests, 2000 * clones, "{name}");
    }
}

#[test]
fn open_loop_reports_whether_the_device_keeps_up() {
    let base = exact().replace("blocks_per_plane = 64", "blocks_per_plane = 2048")
        + "[[job]]\nrw = \"randwrite\"\nbs = \"8KiB\"\nnumber_ios = 20000\nio_size = \"1000TiB\"\n";
    // Write-through 8 KiB writes, no GC on this size: a 282 us page program per plane, two
    // planes: about 7,000 IOPS.
    let slow = run_config(&cfg(&(base.clone() + "rate_iops = 2000\n"))).unwrap();
    let o = slow.jobs[0].ssdlab.open_loop.as_ref().unwrap();
    assert!(o.keeping_up, "{o:?}");
    assert!(
        (slow.jobs[0].write.iops - 2000.0).abs() < 20.0,
        "{}",
        slow.jobs[0].write.iops
    );
    let fast = run_config(&cfg(&(base + "rate_iops = 50000\n"))).unwrap();
    let o = fast.jobs[0].ssdlab.open_loop.as_ref().unwrap();
    assert!(!o.keeping_up && o.max_outstanding > 1000, "{o:?}");
}

#[test]
fn runtime_limits_simulated_time_and_numjobs_multiplies_streams() {
    let text = exact()
        + "[precondition]\nmode = \"sequential\"\n[[job]]\nrw = \"randread\"\niodepth = 2\nnumjobs = 3\ngroup_reporting = true\nruntime = \"50ms\"\n";
    let r = run_config(&cfg(&text)).unwrap();
    assert!(
        r.ssd.sim_time_ns >= 50_000_000 && r.ssd.sim_time_ns < 51_000_000,
        "{}",
        r.ssd.sim_time_ns
    );
    // Two reads per channel in flight at most: 6 outstanding over 2 planes.
    assert!(r.jobs[0].read.total_ios > 1000);
}

#[test]
fn die_level_timing_when_planes_are_not_parallel() {
    // 4 channels × 2 ways × 1 die × 2 planes, but the die is the unit: 8 × page / tR.
    let text = bw_device("400us", "500us", "400MB/s", "nvme-gen3x4")
        .replace("endurance = 100000", "endurance = 100000\nplane_parallel = false");
    let got = seq_bw(text, "read");
    let want = 8.0 * 16384.0 / 400e-6;
    assert!(((got - want) / want).abs() < 0.02, "{got} vs {want}");
}

#[test]
fn background_gc_uses_idle_time_and_spares_the_foreground() {
    let base = waf_device(1.2, 32, 1024, "greedy").replace(
        "gc_threshold = 2",
        "gc_threshold = 2\nbg_gc_threshold = 8\nbg_gc_idle = \"100us\"",
    ) + "[[job]]\nrw = \"randwrite\"\nnumber_ios = 6000\nio_size = \"1000TiB\"\nrate_iops = 200\n";
    let mut sim = Simulation::new(&cfg(&base)).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    sim.device().ftl.check_invariants().unwrap();
    let bg = r.ssd.gc["background"].as_u64().unwrap();
    let fg = r.ssd.gc["foreground"].as_u64().unwrap();
    assert!(bg > 100 && fg == 0, "background {bg}, foreground {fg}");
    // At 200 IOPS the device idles between writes: the median write is one program.
    let p50 = r.jobs[0]
        .write
        .clat_ns
        .percentile
        .0
        .iter()
        .find(|(k, _)| k == "50.000000")
        .unwrap()
        .1;
    assert!(p50 < 300_000, "median write latency {p50} ns");
}

#[test]
fn least_busy_allocation_keeps_invariants_and_spreads_writes() {
    let text = bw_device("50us", "500us", "400MB/s", "nvme-gen3x4").replace(
        "[device.host]",
        "[device.ftl]\nallocation = \"least-busy\"\n[device.host]",
    )
        + "[[job]]\nrw = \"randrw\"\nbs = \"16KiB\"\niodepth = 32\nnumber_ios = 20000\nio_size = \"1000TiB\"\n";
    let mut sim = Simulation::new(&cfg(&text)).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    sim.device().ftl.check_invariants().unwrap();
    let planes = r.ssd.utilisation["planes"].as_f64().unwrap();
    assert!(planes > 0.5, "arrays should be kept busy: {planes}");
}

/// The invariants any honest run's JSON keeps: every latency summary has min <= mean <= max
/// and min <= each percentile <= max with percentiles non-decreasing; every utilisation is in
/// [0, 1]; counters that are parts of a whole add up to it.
fn check_honest(name: &str, r: &ssdlab_core::RunResult) {
    let v = serde_json::to_value(r).unwrap();
    for j in v["jobs"].as_array().unwrap() {
        for op in ["read", "write", "trim"] {
            let l = &j[op]["clat_ns"];
            if l["N"].as_u64().unwrap() == 0 {
                continue;
            }
            let (lo, hi, mean) = (
                l["min"].as_f64().unwrap(),
                l["max"].as_f64().unwrap(),
                l["mean"].as_f64().unwrap(),
            );
            assert!(
                lo <= mean && mean <= hi,
                "{name} {op}: mean {mean} outside [{lo}, {hi}]"
            );
            let mut pct: Vec<(f64, f64)> = l["percentile"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(q, p)| (q.parse().unwrap(), p.as_f64().unwrap()))
                .collect();
            pct.sort_by(|a, b| a.0.total_cmp(&b.0));
            let mut prev = lo;
            for (q, p) in pct {
                assert!(
                    p >= prev && p <= hi,
                    "{name} {op} p{q} = {p} (previous {prev}, max {hi})"
                );
                prev = p;
            }
        }
    }
    for (k, u) in v["ssd"]["utilisation"].as_object().unwrap() {
        let u = u.as_f64().unwrap();
        assert!((0.0..=1.0).contains(&u), "{name}: utilisation {k} = {u}");
    }
    let f = &v["ssd"]["flash"];
    let n = |x: &serde_json::Value| x.as_u64().unwrap();
    assert_eq!(
        n(&f["page_programs"]),
        n(&f["host_page_programs"]) + n(&f["gc_page_programs"]),
        "{name}"
    );
    assert_eq!(
        n(&f["page_reads"]),
        n(&f["host_page_reads"]) + n(&f["rmw_page_reads"]) + n(&f["gc_page_reads"]),
        "{name}"
    );
    let g = &v["ssd"]["gc"];
    assert_eq!(n(&g["runs"]), n(&g["foreground"]) + n(&g["background"]), "{name}");
    let s = &v["ssd"]["span"];
    assert!(
        n(&s["last_flash_activity_ns"]) >= n(&s["last_host_completion_ns"]),
        "{name}"
    );
    assert!(n(&s["busy_ns"]) >= n(&s["host_visible_ns"]), "{name}");
    let i = &v["ssd"]["interference"];
    let per_die: u64 = i["per_die"]["conflicting_reads"]
        .as_array()
        .unwrap()
        .iter()
        .map(n)
        .sum();
    assert_eq!(per_die, n(&i["conflicting_reads"]), "{name}");
}

#[test]
fn runs_keep_the_output_invariants() {
    let mut cases: Vec<(String, String)> = vec![
        (
            "buffered sequential writes".into(),
            bw_device("50us", "500us", "400MB/s", "nvme-gen3x4")
                + "[device.ftl]\nwrite_buffer = \"16MiB\"\n[[job]]\nrw = \"write\"\nbs = \"128KiB\"\niodepth = 32\nnumber_ios = 2000\nio_size = \"1000TiB\"\n",
        ),
        (
            "mixed with GC, wear leveling and background GC".into(),
            exact().replace("[device.ftl]\n", "[device.ftl]\nwrite_buffer = \"64KiB\"\nstatic_wl_threshold = 2\nbg_gc_threshold = 4\n")
                + "[precondition]\nmode = \"steady\"\nutilisation = 0.9\n[[job]]\nrw = \"randrw\"\nbssplit = \"2k/20:4k/50:12k/30\"\niodepth = 8\nnumber_ios = 40000\nio_size = \"1000TiB\"\n",
        ),
    ];
    // The shared probe configs (small runs that reach corners of the engine).
    let probes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/tools/probes");
    match std::fs::read_dir(&probes) {
        Ok(dir) => {
            for e in dir.flatten() {
                let text = std::fs::read_to_string(e.path()).unwrap();
                cases.push((e.file_name().to_string_lossy().into_owned(), text));
            }
        }
        Err(_) => ssdlab_core::skip::skip(
            &format!("the shared probes: {} is not there", probes.display()),
            "../shared/tools beside the clone",
        ),
    }
    let mut wl = 0;
    for (name, text) in cases {
        let c = parse_config(&text, &name, Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        let r = run_config(&c).unwrap_or_else(|e| panic!("{name}: {e}"));
        check_honest(&name, &r);
        wl += r.ssd.wear["static_wl_migrations"].as_u64().unwrap();
    }
    assert!(wl > 0, "wear leveling ran, so GC counters were checked with it");
}

#[test]
fn busy_span_bandwidth_never_exceeds_the_bottleneck_with_a_write_buffer() {
    // 16 planes x 16 KiB / 500 us = 524.288 MB/s. The buffer absorbs the last 64 MiB: the
    // host sees more (its span ends when the buffer has the data), the busy span does not.
    let text = bw_device("50us", "500us", "400MB/s", "nvme-gen3x4")
        + "[device.ftl]\nwrite_buffer = \"64MiB\"\n[[job]]\nrw = \"write\"\nbs = \"128KiB\"\niodepth = 32\nnumber_ios = 3000\nio_size = \"1000TiB\"\n";
    let r = run_config(&cfg(&text)).unwrap();
    let bound = 16.0 * 16384.0 / 500e-6;
    let busy = r.ssd.throughput["busy_span"]["write_bytes_per_s"].as_f64().unwrap();
    let host = r.ssd.throughput["host_visible"]["write_bytes_per_s"].as_f64().unwrap();
    eprintln!("busy span {busy:.0} B/s, host-visible {host:.0} B/s, bound {bound:.0}");
    assert!(busy <= bound * 1.0001 && busy > bound * 0.99, "{busy} vs {bound}");
    assert!(
        host > bound * 1.05,
        "the buffer makes the host-visible rate exceed the bound: {host}"
    );
    assert!(
        (r.jobs[0].write.bw_bytes as f64 - host).abs() < 0.01 * host,
        "fio's bw is host-visible"
    );
}

/// A small device for steady-state measurements: 2 channels x 2 ways x 2 planes, 64 pages of
/// 16 KiB per block (256 units), 4 KiB units, TLC timing, α 1.07.
fn steady_device(extra: &str) -> String {
    format!(
        r#"
[device]
name = "steady"
[device.geometry]
channels = 2
ways = 2
planes_per_die = 2
blocks_per_plane = 96
pages_per_block = 64
page_size = "16KiB"
mapping_unit = "4KiB"
overprovisioning = 0.07
[device.nand]
cell = "tlc"
read = ["56.5us", "77.5us", "106us"]
program = ["820.5us", "2225us", "5734us"]
erase = "3ms"
channel_rate = "800MB/s"
endurance = 100000
[device.host]
interface = "nvme-gen3x4"
command_overhead = "1us"
[device.ftl]
write_buffer = "4MiB"
{extra}
"#
    )
}

#[test]
fn the_steady_state_criterion_holds_against_a_ten_times_longer_run() {
    use rand::{Rng, SeedableRng};
    for (policy, util) in [("greedy", 1.0), ("greedy", 0.8), ("fifo", 1.0), ("cost-benefit", 0.9)] {
        let text = steady_device(&format!("gc_policy = \"{policy}\""))
            .replace("blocks_per_plane = 96", "blocks_per_plane = 256")
            + &format!("[precondition]\nmode = \"steady\"\nutilisation = {util}\n[[job]]\nnumber_ios = 1\n");
        let mut sim = Simulation::new(&cfg(&text)).unwrap();
        let pre = sim.precondition_report().clone();
        assert!(pre.converged, "{policy} {util}: {pre:?}");
        // Ten times as many uniform random overwrites of the same data, driven through the
        // FTL as preconditioning does (a page per plane in turn); their write amplification
        // counted over all of them.
        let ftl = &mut sim.volume.members[0].device_mut().unwrap().ftl;
        ftl.record_ops = false;
        let n = pre.filled_units;
        let more = 10 * pre.overwritten_units;
        let (h0, c0) = (ftl.stats.host_units_written, ftl.stats.gc_units_copied);
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(99);
        let planes = ftl.geo.planes;
        let mut plane = 0;
        for _ in 0..more {
            if ftl.append_host(plane, rng.gen_range(0..n)).unwrap().is_some() {
                plane = (plane + 1) % planes;
            }
        }
        let host = (ftl.stats.host_units_written - h0) as f64;
        let long = (host + (ftl.stats.gc_units_copied - c0) as f64) / host;
        let used = pre.overwritten_units as f64 / n as f64;
        eprintln!(
            "{policy} at {util}: steady WAF {} after {used:.2} overwrites; {long:.3} over the next {:.1}",
            pre.steady_waf,
            10.0 * used
        );
        assert!(
            (pre.steady_waf - long).abs() <= 0.01 * long,
            "{policy} {util}: {} vs {long}",
            pre.steady_waf
        );
    }
}

/// `overwrite_share`: the whole space filled, then only its first quarter overwritten to
/// steady state. The other three quarters stay where the fill put them (GC's greedy choice
/// never takes their full blocks; only the blocks the region's edge shares with them may
/// move), and the quarter's write amplification is greedy's mean-field figure at the quarter's
/// own α: the physical units the cold data and the reserved blocks leave, over the quarter's.
#[test]
fn a_region_overwritten_to_steady_state_leaves_the_rest_in_place() {
    let text = |pre: &str| {
        steady_device("").replace("blocks_per_plane = 96", "blocks_per_plane = 256")
            + &format!("[precondition]\n{pre}\n[[job]]\nnumber_ios = 1\n")
    };
    let seq = Simulation::new(&cfg(&text("mode = \"sequential\""))).unwrap();
    let region = Simulation::new(&cfg(&text("mode = \"steady\"\noverwrite_share = 0.25"))).unwrap();
    let pr = region.precondition_report().clone();
    assert!(pr.converged, "{pr:?}");
    let n = pr.filled_units;
    let m = n / 4;
    // Overwrites counted in multiples of the region: at least min_overwrites (1) of it.
    assert!(pr.overwritten_units >= m && pr.overwritten_units < 4 * m, "{pr:?}");
    let a = &seq.volume.members[0].device().unwrap().ftl;
    let b = &region.volume.members[0].device().unwrap().ftl;
    let moved_cold = (m..n).filter(|&l| a.lookup(l) != b.lookup(l)).count() as u64;
    let moved_hot = (0..m).filter(|&l| a.lookup(l) != b.lookup(l)).count() as u64;
    let upb = a.geo.units_per_block as u64;
    assert!(
        moved_cold <= 2 * upb * a.geo.planes as u64,
        "{moved_cold} cold units moved"
    );
    assert!(moved_hot > m * 9 / 10, "{moved_hot} of {m} region units moved");
    // The quarter's α: the physical units the cold data leaves over the quarter's, counting
    // the blocks held free or open as space (`all`) or not (`avail`, as the default run's test
    // does). The quarter's α is four times as sensitive to them as the whole space's, so the
    // run is held between the two (about 2.5 and 3.0); a region ignored (the whole space
    // overwritten) would give about 7.
    let c = cfg(&text("mode = \"steady\"\noverwrite_share = 0.25"));
    let g = &c.device.geometry;
    let reserve = c.device.ftl.bg_gc_threshold.max(c.device.ftl.gc_threshold) as f64 + 1.0;
    let all = n as f64 * (1.0 + g.overprovisioning);
    let avail = all * (1.0 - reserve / g.blocks_per_plane as f64);
    let [lo, hi] = [all, avail].map(|p| greedy_wa((p - (n - m) as f64) / m as f64, upb as usize));
    eprintln!("region WAF {} against greedy {lo:.3} to {hi:.3}", pr.steady_waf);
    assert!(
        pr.steady_waf > lo && pr.steady_waf < hi,
        "{} vs {lo} to {hi}",
        pr.steady_waf
    );
    // Outside `steady`, or beyond the data, the key is refused.
    for (pre, want) in [
        (
            "mode = \"sequential\"\noverwrite_share = 0.25",
            "which overwrites nothing",
        ),
        (
            "mode = \"steady\"\nutilisation = 0.5\noverwrite_share = 0.6",
            "at most precondition.utilisation",
        ),
    ] {
        let e = ssdlab_core::config::parse_config(&text(pre), "t.toml", std::path::Path::new("."))
            .err()
            .unwrap_or_else(|| panic!("{pre}: accepted"))
            .to_string();
        assert!(e.contains("precondition.overwrite_share") && e.contains(want), "{e}");
    }
}

/// Converged means steady collection was seen. Before the first collection every window's
/// estimate is 1.000 and three of them agree, which once passed for steady state (and the run
/// then showed no GC at all); a precondition that stops at `max_overwrites` without
/// converging says so in the run's warnings, whichever way it fell short.
#[test]
fn a_precondition_converges_only_on_steady_collection() {
    let run = |pre: &str| {
        let text = steady_device("")
            + &format!("[precondition]\nmode = \"steady\"\n{pre}\n[[job]]\nrw = \"randwrite\"\nnumber_ios = 2000\nio_size = \"1000TiB\"\n");
        run_config(&cfg(&text)).unwrap()
    };
    let warned = |r: &ssdlab_core::RunResult| {
        r.ssd
            .warnings
            .iter()
            .find(|w| w.contains("preconditioning did not reach steady state"))
            .cloned()
    };
    // Half full: collection starts after about one overwrite, so none in the first half.
    for pre in [
        "utilisation = 0.5\nmin_overwrites = 0.1\nmax_overwrites = 0.5",
        "utilisation = 0.5\nmax_overwrites = 0.5",
    ] {
        let r = run(pre);
        assert_eq!(
            r.ssd.precondition["converged"], false,
            "{pre}: {:?}",
            r.ssd.precondition
        );
        let w = warned(&r).unwrap_or_else(|| panic!("{pre}: no warning in {:?}", r.ssd.warnings));
        assert!(
            w.contains("max_overwrites = 0.5") && w.contains("garbage collection had not started"),
            "{w}"
        );
    }
    // Full, stopped while the collection has not settled.
    let r = run("min_overwrites = 0.1\nmax_overwrites = 0.3");
    assert_eq!(r.ssd.precondition["converged"], false, "{:?}", r.ssd.precondition);
    let w = warned(&r).expect("a warning");
    assert!(w.contains("did not agree within 0.5 %"), "{w}");
    // Given room, the same device converges on steady collection and says nothing.
    let r = run("min_overwrites = 0.1");
    assert_eq!(r.ssd.precondition["converged"], true, "{:?}", r.ssd.precondition);
    assert!(r.ssd.precondition["steady_waf"].as_f64().unwrap() > 1.2);
    assert_eq!(warned(&r), None);
}

#[test]
fn ramp_time_excludes_the_warm_up_and_time_based_loops() {
    let base = steady_device("") + "[precondition]\nmode = \"sequential\"\nutilisation = 0.5\n";
    let job = |extra: &str| cfg(&(base.clone() + "[[job]]\nrw = \"randread\"\niodepth = 4\nsize = \"50%\"\n" + extra));
    // runtime 100 ms after a 50 ms ramp: statistics cover [50, 150) ms of issues.
    let r = run_config(&job("ramp_time = \"50ms\"\nruntime = \"100ms\"\ntime_based = true\n")).unwrap();
    let full = run_config(&job("runtime = \"150ms\"\ntime_based = true\n")).unwrap();
    assert_eq!(r.ssd.span["measured_from_ns"].as_u64().unwrap(), 50_000_000);
    assert!(r.ssd.span["first_submit_ns"].as_u64().unwrap() >= 50_000_000);
    let (n, nf) = (r.jobs[0].read.total_ios as f64, full.jobs[0].read.total_ios as f64);
    assert!((n / nf - 2.0 / 3.0).abs() < 0.02, "{n} of {nf} requests after the ramp");
    assert!(
        (r.jobs[0].job_runtime as i64 - 100).abs() <= 1,
        "{}",
        r.jobs[0].job_runtime
    );
    assert_eq!(
        r.ssd.host["read_units"].as_u64().unwrap(),
        r.jobs[0].read.total_ios,
        "the window's counters"
    );
    // Without time_based, a job covers its range once even when runtime is longer.
    let small =
        |extra: &str| cfg(&(base.clone() + "[[job]]\nrw = \"read\"\nbs = \"64KiB\"\nsize = \"4MiB\"\n" + extra));
    let once = run_config(&small("runtime = \"10s\"\n")).unwrap();
    assert_eq!(once.jobs[0].read.io_bytes, 4 << 20);
    let looped = run_config(&small("runtime = \"1s\"\ntime_based = true\n")).unwrap();
    assert!(looped.jobs[0].read.io_bytes > 10 * (4 << 20));
    assert!(
        parse_config(&(base + "[[job]]\ntime_based = true\n"), "t.toml", Path::new("."))
            .unwrap_err()
            .to_string()
            .contains("job[0].time_based")
    );
}

#[test]
fn reads_of_never_written_data_are_counted_and_warned_about() {
    let text = steady_device("") + "[[job]]\nrw = \"randread\"\nnumber_ios = 1000\nio_size = \"1000TiB\"\n";
    let r = run_config(&cfg(&text)).unwrap();
    assert_eq!(r.ssd.host["unmapped_read_units"].as_u64().unwrap(), 1000);
    assert!(
        r.ssd.warnings.iter().any(|w| w.contains("never written")),
        "{:?}",
        r.ssd.warnings
    );
    let text =
        steady_device("") + "[precondition]\nmode = \"sequential\"\n[[job]]\nrw = \"randread\"\nnumber_ios = 1000\nio_size = \"1000TiB\"\n";
    let r = run_config(&cfg(&text)).unwrap();
    assert_eq!(r.ssd.host["unmapped_read_units"].as_u64().unwrap(), 0);
    assert!(r.ssd.warnings.is_empty(), "{:?}", r.ssd.warnings);
}

/// Steady-state WAF from the victims' valid counts: b / (b − mean valid).
fn victim_waf(r: &ssdlab_core::RunResult, b: f64) -> f64 {
    let h = r.ssd.gc["victim_valid_histogram"].as_array().unwrap();
    let (mut n, mut s) = (0.0, 0.0);
    for e in h {
        let (v, c) = (e[0].as_f64().unwrap(), e[1].as_f64().unwrap());
        n += c;
        s += v * c;
    }
    b / (b - s / n)
}

#[test]
fn least_busy_allocation_keeps_write_amplification() {
    // Unbounded least-busy steering lets per-plane utilisation wander, and WAF is convex in
    // it; the slack window keeps it at round robin's.
    let run = |ftl: &str| {
        let text = steady_device(ftl)
            + "[precondition]\nmode = \"steady\"\n[[job]]\nrw = \"randwrite\"\niodepth = 32\nnumber_ios = 150000\nio_size = \"1000TiB\"\n";
        let r = run_config(&cfg(&text)).unwrap();
        victim_waf(&r, 256.0)
    };
    let rr = run("allocation = \"round-robin\"");
    let lb = run("allocation = \"least-busy\"");
    eprintln!("round robin {rr:.3}, least-busy {lb:.3}");
    assert!((lb - rr).abs() <= 0.01 * rr, "{lb} vs {rr}");
}

/// Host write requests per second the planes could sustain for the flash work the run did
/// (every plane busy all the time): host units / (array time of that work / planes).
fn write_bound(r: &ssdlab_core::RunResult, planes: f64, read_ns: &[f64], program_ns: &[f64], erase_ns: f64) -> f64 {
    let f = &r.ssd.flash;
    let n = |k: &str| f[k].as_f64().unwrap();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let work = (n("host_page_programs") + n("gc_page_programs")) * mean(program_ns)
        + (n("host_page_reads") + n("gc_page_reads") + n("rmw_page_reads")) * mean(read_ns)
        + n("erases") * erase_ns;
    r.ssd.host["write_units"].as_f64().unwrap() / (work / planes)
}

#[test]
fn steady_random_writes_on_tlc_nvme_reach_95_percent_of_the_bound() {
    // The whole drive at steady state, random 4 KiB writes at queue depth 32 for 100 simulated
    // seconds after a 40 s ramp (which covers the move from the free blocks background GC
    // keeps in idle time to the saturated state): host IOPS against what the flash work done
    // allows (every plane busy all the time; BENCHMARKS.md derives the bound from the greedy
    // model too).
    let text = "[device]\npreset = \"tlc-nvme\"\n[precondition]\nmode = \"steady\"\nutilisation = 1.0\n[[job]]\nrw = \"randwrite\"\niodepth = 32\nramp_time = \"40s\"\nruntime = \"100s\"\ntime_based = true\n";
    let r = run_config(&cfg(text)).unwrap();
    let bound = write_bound(
        &r,
        128.0,
        &[56.5e-6, 77.5e-6, 106e-6],
        &[820.5e-6, 2225e-6, 5734e-6],
        3e-3,
    );
    let iops = r.jobs[0].write.iops;
    eprintln!(
        "tlc-nvme steady random writes: IOPS {iops:.0}, bound {bound:.0} ({:.3}), WAF {}",
        iops / bound,
        r.ssd.waf
    );
    assert!(iops >= 0.95 * bound && iops <= 1.02 * bound, "{iops} vs {bound}");
    check_honest("steady writes", &r);
}

#[test]
fn default_run_meets_its_targets_and_repeats_exactly() {
    let c = ssdlab_core::config::default_config();
    // Preconditioning (most of the default run's time) once; the run twice from copies of the
    // state it left, as `ssdlab run --from-snapshot` does (the snapshot tests show that gives
    // what preconditioning in the run gives). That preconditioning itself repeats exactly is
    // the experiments' tests' (experiment_split: each drive preconditioned on its own gives
    // the shared state byte for byte) and the docs' (`ssdlab run`'s output, to the digit).
    let (device, report) = ssdlab_core::aged::preconditioned(&c.device, &c.precondition, &mut |_, _| {}).unwrap();
    let run = || {
        let snap = ssdlab_core::snapshot::Snapshot {
            device: c.device.clone(),
            precondition: c.precondition.clone(),
            report: report.clone(),
            ftl: device.ftl.clone(),
        };
        Simulation::from_snapshot(&c, snap, "the default run's state", &mut |_, _| {})
            .unwrap()
            .run(&mut |_| {})
            .unwrap()
    };
    let (a, b) = (run(), run());
    assert_eq!(
        a.deterministic_json(),
        b.deterministic_json(),
        "same config and seed, same JSON"
    );
    check_honest("default run", &a);
    let p999 = a.jobs[0]
        .read
        .clat_ns
        .percentile
        .0
        .iter()
        .find(|(k, _)| k == "99.900000")
        .unwrap()
        .1;
    assert!(p999 < 10_000_000, "read p99.9 {p999} ns");
    // Greedy mean-field at the effective over-provisioning: physical units over valid ones
    // (the issue's definition), and the same with the blocks the firmware keeps out of use
    // (the background GC reserve, plus about one block of the host and GC frontiers).
    let g = &c.device.geometry;
    let b_units = (g.pages_per_block as u64 * (g.page_size.0 / g.mapping_unit.0)) as usize;
    let alpha_eff = (1.0 + g.overprovisioning) / c.precondition.utilisation;
    let reserve = c.device.ftl.bg_gc_threshold.max(c.device.ftl.gc_threshold) as f64 + 1.0;
    let alpha_avail = alpha_eff * (1.0 - reserve / g.blocks_per_plane as f64);
    let (model, model_avail) = (greedy_wa(alpha_eff, b_units), greedy_wa(alpha_avail, b_units));
    eprintln!(
        "default run: WAF {} vs greedy {model:.3} at α {alpha_eff:.4} ({:+.1} %), {model_avail:.3} at α {alpha_avail:.4} without the reserve ({:+.1} %); b {b_units}; read p99.9 {p999} ns",
        a.ssd.waf,
        100.0 * (a.ssd.waf / model - 1.0),
        100.0 * (a.ssd.waf / model_avail - 1.0)
    );
    // The blocks held free or open are not data space: the model that counts them as such
    // (`model`) sits below the run; the one that does not is the reference.
    assert!(a.ssd.waf > model, "{} vs {model}", a.ssd.waf);
    assert!(
        (a.ssd.waf - model_avail).abs() <= 0.05 * model_avail,
        "{} vs {model_avail}",
        a.ssd.waf
    );
    // At steady state: the run's WAF is the one preconditioning converged to.
    let pre = a.ssd.precondition["steady_waf"].as_f64().unwrap();
    assert!(
        (a.ssd.waf - pre).abs() <= 0.02 * pre,
        "run {} vs precondition {pre}",
        a.ssd.waf
    );
    assert!(a.ssd.warnings.is_empty(), "{:?}", a.ssd.warnings);
}

#[test]
fn host_time_is_serial_within_a_clone_and_overlaps_across_clones() {
    // 4 KiB reads over a filled device, each finding it idle at one outstanding read.
    let run = |jobs: &str| {
        let text = exact()
            + "[precondition]\nmode = \"sequential\"\nutilisation = 1.0\n"
            + "[[job]]\nrw = \"randread\"\nbs = \"4k\"\nnumber_ios = 200\n"
            + jobs;
        let mut sim = Simulation::new(&cfg(&text)).unwrap();
        sim.run(&mut |_| {}).unwrap()
    };
    let h = 1_000_000u64;
    let lat = |r: &ssdlab_core::RunResult| r.jobs[0].read.clat_ns.mean;
    // One clone at QD1: each read pays the host time before the device, in its latency.
    let plain = run("iodepth = 1\n");
    let hosted = run("iodepth = 1\nhost_time = \"1ms\"\n");
    assert_eq!(lat(&hosted), lat(&plain) + h as f64);
    assert_eq!(hosted.ssd.sim_time_ns - plain.ssd.sim_time_ns, 200 * h);
    // At QD2 the clone's thread still spends the host time one I/O after the other: the
    // run takes 200 host times, not 100.
    let deep = run("iodepth = 2\nhost_time = \"1ms\"\n");
    assert!(deep.ssd.sim_time_ns >= 200 * h, "{}", deep.ssd.sim_time_ns);
    assert!(deep.ssd.sim_time_ns < 201 * h, "{}", deep.ssd.sim_time_ns);
    // Two clones of 200 reads each: their host times overlap, so the run takes about as
    // long as one clone's (each read's device time at most doubled by the other's).
    let device = plain.ssd.sim_time_ns;
    let two = run("iodepth = 1\nnumjobs = 2\nhost_time = \"1ms\"\n");
    let t = two.ssd.sim_time_ns;
    assert!(
        t >= 200 * h + device && t <= 200 * h + 2 * device,
        "{t} vs {}",
        200 * h + device
    );
    // Open-loop jobs have none.
    let text = exact() + "[[job]]\nrw = \"randread\"\nrate_iops = 1000\nhost_time = \"1ms\"\nnumber_ios = 10\n";
    let e = ssdlab_core::config::parse_config(&text, "t.toml", std::path::Path::new("."))
        .and_then(|c| c.validate().map(|_| c))
        .expect_err("refused");
    assert!(e.to_string().contains("host_time: set on an open-loop job"), "{e}");
}

#[test]
fn thinktime_delays_each_next_io_by_exactly_its_length() {
    // One outstanding 4 KiB read at a time over a filled device: each read finds the device
    // idle and takes the same time, so with fio's thinktime the run lasts (n − 1) think
    // times longer, and the reads' latencies do not change.
    let run = |think: &str| {
        let text = exact()
            + "[precondition]\nmode = \"sequential\"\nutilisation = 1.0\n"
            + "[[job]]\nrw = \"randread\"\nbs = \"4k\"\niodepth = 1\nnumber_ios = 200\n"
            + think;
        let c = cfg(&text);
        let mut sim = Simulation::new(&c).unwrap();
        sim.run(&mut |_| {}).unwrap()
    };
    let (plain, thinking) = (run(""), run("thinktime = \"1ms\"\n"));
    let lat = |r: &ssdlab_core::RunResult| r.jobs[0].read.clat_ns.mean;
    assert_eq!(lat(&plain), lat(&thinking));
    assert_eq!(thinking.ssd.sim_time_ns - plain.ssd.sim_time_ns, 199 * 1_000_000);
    // fio's job-file key: a bare number is microseconds.
    let mut c = cfg(&exact());
    c.set_jobs_from_fio(
        "t.fio",
        "[a]\nrw=randread\nthinktime=250\n[b]\nrw=read\nthinktime=2ms\n",
    )
    .unwrap();
    assert_eq!(c.job[0].thinktime.map(|d| d.0), Some(250_000));
    assert_eq!(c.job[1].thinktime.map(|d| d.0), Some(2_000_000));
    // Open-loop jobs have no think time.
    let text = exact() + "[[job]]\nrw = \"randread\"\nrate_iops = 1000\nthinktime = \"1ms\"\nnumber_ios = 10\n";
    let e = ssdlab_core::config::parse_config(&text, "t.toml", std::path::Path::new("."))
        .and_then(|c| c.validate().map(|_| c))
        .expect_err("refused");
    assert!(e.to_string().contains("thinktime: set on an open-loop job"), "{e}");
}
