//! Each lint check on a synthetic workload built to trigger it and on one built not to, on a
//! small device (four planes of 64 blocks of 16 pages of 8 KiB).

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab_lab::config::{parse_config, Config};
use ssdlab_lab::lint::{lint, Finding, LintOptions, Verdict, Workload};
use ssdlab_lab::trace::{Devices, ReaderOptions};
use std::fmt::Write as _;
use std::path::Path;

const DEVICE: &str = r#"
[device]
preset = "mlc-sata"
name = "small"
[device.geometry]
channels = 2
ways = 1
planes_per_die = 2
blocks_per_plane = 64
pages_per_block = 16
page_size = "8KiB"
overprovisioning = 0.25
[device.ftl]
gc_threshold = 3
bg_gc_threshold = 4
write_buffer = "64KiB"
[precondition]
mode = "steady"
utilisation = 0.8
"#;

fn device() -> Config {
    parse_config(DEVICE, "small.toml", Path::new(".")).unwrap()
}

fn opts(principle: u32) -> LintOptions {
    LintOptions {
        sweep_ramp_ns: 20_000_000,
        sweep_time_ns: 20_000_000,
        checks: vec![principle],
        ..Default::default()
    }
}

/// An MSR-cut trace (`time_ms device offset bytes op`, op 0 = write) of `records`
/// (time ns, offset, bytes, write).
fn trace(dir: &tempfile::TempDir, name: &str, records: &[(u64, u64, u64, bool)]) -> Workload {
    let mut text = String::new();
    for &(t, off, len, w) in records {
        writeln!(text, "{:.6} 0 {off} {len} {}", t as f64 / 1e6, if w { 0 } else { 1 }).unwrap();
    }
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    Workload::Trace {
        path: path.to_string_lossy().into_owned(),
        options: ReaderOptions::default(),
        devices: Devices::all(),
    }
}

/// The finding of the one check run.
fn check(w: &Workload, o: &LintOptions) -> Finding {
    let r = lint(w, &device(), o, &mut |_| {}).unwrap();
    assert_eq!(r.findings.len(), 1);
    r.findings.into_iter().next().unwrap()
}

fn verdict(w: &Workload, o: &LintOptions, expected: Verdict) -> Finding {
    let f = check(w, o);
    eprintln!("principle {}: {}: {}", f.principle, f.verdict.name(), f.reason);
    assert_eq!(
        f.verdict, expected,
        "principle {}: {}\n{:#?}",
        f.principle, f.reason, f.measured
    );
    f
}

/// `n` writes of `len` bytes, 1 ms apart, at offsets from `offset(i, rng)`.
fn writes(n: u64, len: u64, mut offset: impl FnMut(u64, &mut Xoshiro256PlusPlus) -> u64) -> Vec<(u64, u64, u64, bool)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    (0..n)
        .map(|i| (i * 1_000_000, offset(i, &mut rng), len, true))
        .collect()
}

fn figure(f: &Finding, name: &str) -> f64 {
    f.measured.iter().find(|m| m.name == name).unwrap().value
}

#[test]
fn p1_in_place_updates() {
    let dir = tempfile::tempdir().unwrap();
    // 3000 writes back to 32 pages: almost every page write updates in place.
    let w = trace(&dir, "inplace", &writes(3000, 4096, |i, _| (i % 32) * 4096));
    let f = verdict(&w, &opts(1), Verdict::Warn);
    assert!(figure(&f, "update_share") > 0.98);
    let wi = f.what_if.unwrap();
    assert_eq!(wi.scenarios.len(), 2);
    assert!(wi.scenarios.iter().all(|s| s.waf.unwrap() > 1.0));
    // 3000 writes to fresh pages: no update at all.
    let w = trace(&dir, "fresh", &writes(3000, 4096, |i, _| i * 4096));
    let f = verdict(&w, &opts(1), Verdict::Ok);
    assert_eq!(figure(&f, "update_share"), 0.0);
}

#[test]
fn p2_hot_and_cold_data() {
    let dir = tempfile::tempdir().unwrap();
    // 95 % of 20000 writes to 100 of 3000 pages.
    let skewed = writes(20_000, 4096, |_, r| {
        if r.gen_bool(0.95) {
            r.gen_range(0..100) * 4096
        } else {
            r.gen_range(100..3000) * 4096
        }
    });
    let f = verdict(&trace(&dir, "skewed", &skewed), &opts(2), Verdict::Warn);
    assert!(figure(&f, "page_skew") > 0.9);
    let wi = f.what_if.unwrap();
    let (a, b) = (wi.scenarios[0].waf.unwrap(), wi.scenarios[1].waf.unwrap());
    assert!(b < 0.95 * a, "separation lowers the WAF: {b} against {a}");
    // The same number of writes spread evenly.
    let even = writes(20_000, 4096, |_, r| r.gen_range(0..3000) * 4096);
    let f = verdict(&trace(&dir, "even", &even), &opts(2), Verdict::Ok);
    assert!(figure(&f, "page_skew") < 0.4);
}

#[test]
fn p3_small_scattered_writes() {
    let dir = tempfile::tempdir().unwrap();
    // 512-byte writes anywhere in 2000 pages: each programs a whole 4 KiB unit.
    let small = writes(4000, 512, |_, r| r.gen_range(0..2000 * 8) * 512);
    let f = verdict(&trace(&dir, "small", &small), &opts(3), Verdict::Warn);
    assert_eq!(figure(&f, "unit_bytes_per_byte"), 8.0);
    let wi = f.what_if.unwrap();
    let (a, b) = (
        wi.scenarios[0].bytes_programmed_per_byte.unwrap(),
        wi.scenarios[1].bytes_programmed_per_byte.unwrap(),
    );
    assert!(b < a / 4.0, "packed: {b} against {a}");
    assert!(wi.scenarios[0].rmw_reads > 0 && wi.scenarios[1].rmw_reads == 0);
    // A partial write of a unit that holds data reads it first; of one never written, not.
    let partial = [
        (0, 0, 4096, true),
        (1, 512, 512, true),
        (2, 8192, 512, true),
        (3, 8192 + 1024, 512, true),
    ];
    let f = check(&trace(&dir, "partial", &partial), &opts(3));
    assert_eq!(figure(&f, "rmw_per_write"), 0.5);
    assert_eq!(figure(&f, "sub_unit_writes"), 0.75);
    // Whole aligned units.
    let whole = writes(4000, 4096, |_, r| r.gen_range(0..2000) * 4096);
    let f = verdict(&trace(&dir, "whole", &whole), &opts(3), Verdict::Ok);
    assert_eq!(figure(&f, "unit_bytes_per_byte"), 1.0);
}

#[test]
fn p4_sustained_heavy_writes() {
    let dir = tempfile::tempdir().unwrap();
    // 12000 writes of 4 KiB at once: far more than the free space background GC keeps.
    let burst: Vec<_> = writes(12_000, 4096, |_, r| r.gen_range(0..4000) * 4096)
        .into_iter()
        .map(|(_, o, l, w)| (0, o, l, w))
        .collect();
    let f = verdict(&trace(&dir, "burst", &burst), &opts(4), Verdict::Warn);
    assert!(figure(&f, "foreground_gc") > 0.0);
    assert!(figure(&f, "longest_burst") > 40.0, "{}", figure(&f, "longest_burst"));
    let wi = f.what_if.unwrap();
    assert!(wi.scenarios[1].foreground_gc < wi.scenarios[0].foreground_gc);
    // The same writes a second apart: background GC keeps up.
    let slow: Vec<_> = burst
        .iter()
        .take(2000)
        .enumerate()
        .map(|(i, &(_, o, l, w))| (i as u64 * 1_000_000_000, o, l, w))
        .collect();
    let f = verdict(&trace(&dir, "slow", &slow), &opts(4), Verdict::Ok);
    assert_eq!(figure(&f, "foreground_gc"), 0.0);
    assert_eq!(figure(&f, "longest_burst"), 0.0);
}

#[test]
fn p5_too_full_device() {
    let dir = tempfile::tempdir().unwrap();
    let random = writes(6000, 4096, |_, r| r.gen_range(0..4000) * 4096);
    let w = trace(&dir, "random", &random);
    let full = LintOptions {
        utilisation: Some(0.9),
        ..opts(5)
    };
    let f = verdict(&w, &full, Verdict::Warn);
    assert_eq!(figure(&f, "utilisation"), 0.9);
    let wi = f.what_if.unwrap();
    assert_eq!(wi.scenarios[1].name, "70 % full");
    assert!(wi.scenarios[1].waf.unwrap() < 0.8 * wi.scenarios[0].waf.unwrap());
    let half = LintOptions {
        utilisation: Some(0.5),
        ..opts(5)
    };
    verdict(&w, &half, Verdict::Ok);
}

/// A run file on the small device with one job.
fn jobs(job: &str) -> Workload {
    let cfg = parse_config(&format!("{DEVICE}\n[[job]]\n{job}\n"), "jobs.toml", Path::new(".")).unwrap();
    Workload::Jobs { cfg: Box::new(cfg) }
}

#[test]
fn p6_small_io_with_too_little_concurrency() {
    let f = verdict(
        &jobs("rw = \"randread\"\nbs = \"4KiB\"\niodepth = 1\nnumber_ios = 2000"),
        &opts(6),
        Verdict::Warn,
    );
    assert_eq!(figure(&f, "concurrency"), 1.0);
    let wi = f.what_if.unwrap();
    assert_eq!(wi.sweep[0].depth, 1);
    assert!(wi.gains[0].with_fix > 2.0 * wi.gains[0].as_is, "{:?}", wi.gains);
    let f = verdict(
        &jobs("rw = \"randread\"\nbs = \"4KiB\"\niodepth = 64\nnumber_ios = 2000"),
        &opts(6),
        Verdict::Ok,
    );
    assert_eq!(figure(&f, "concurrency"), 64.0);
    // A trace of reads 10 ms apart: one at a time, but the device idles: not I/O bound.
    let dir = tempfile::tempdir().unwrap();
    let slow: Vec<_> = (0..500u64)
        .map(|i| (i * 10_000_000, (i * 7 % 3000) * 4096, 4096, false))
        .collect();
    let f = verdict(&trace(&dir, "slow", &slow), &opts(6), Verdict::Ok);
    assert!(figure(&f, "concurrency") < 0.1);
    assert!(f.reason.contains("not I/O bound"), "{}", f.reason);
}

#[test]
fn p7_large_io_with_too_many_threads() {
    let f = verdict(
        &jobs("rw = \"randread\"\nbs = \"512KiB\"\niodepth = 32\nnumber_ios = 500"),
        &opts(7),
        Verdict::Warn,
    );
    assert!(f.threshold.value <= 8.0, "{}", f.threshold.value);
    let wi = f.what_if.unwrap();
    // Fewer outstanding: about the same throughput, far lower latency.
    assert!(wi.gains[0].with_fix > 0.85 * wi.gains[0].as_is, "{:?}", wi.gains);
    assert!(wi.gains[1].with_fix < 0.5 * wi.gains[1].as_is, "{:?}", wi.gains);
    verdict(
        &jobs("rw = \"randread\"\nbs = \"512KiB\"\niodepth = 1\nnumber_ios = 500"),
        &opts(7),
        Verdict::Ok,
    );
    // Small requests only: nothing to check.
    verdict(
        &jobs("rw = \"randread\"\nbs = \"4KiB\"\niodepth = 1\nnumber_ios = 500"),
        &opts(7),
        Verdict::NotApplicable,
    );
}

/// The projection of a write pattern settles where the engine's own steady state does: a
/// pattern of uniform random updates (40 per page) projects to the WAF of uniform random
/// overwrites at the same utilisation, scaled onto the data whatever the footprint.
#[test]
fn a_uniform_pattern_projects_to_the_uniform_waf() {
    let dir = tempfile::tempdir().unwrap();
    for pages in [500, 1500] {
        let uniform = writes(40 * pages, 4096, |_, r| r.gen_range(0..pages) * 4096);
        let w = trace(&dir, "uniform", &uniform);
        let r = lint(&w, &device(), &opts(1), &mut |_| {}).unwrap();
        let expected = r.device.uniform_waf;
        let wi = r.findings[0].what_if.as_ref().unwrap();
        for s in &wi.scenarios {
            let waf = s.waf.unwrap();
            assert!(
                (waf - expected).abs() < 0.03 * expected,
                "{pages} pages, {}: WAF {waf} against uniform {expected}",
                s.name
            );
            // Whole aligned units: every byte programmed is WAF bytes.
            assert_eq!(s.bytes_programmed_per_byte, Some(waf));
        }
    }
}
