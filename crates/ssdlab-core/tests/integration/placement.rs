//! Superblock placement (`[device.placement]`) through whole runs: every policy keeps the
//! FTL's and the superblocks' invariants, its counters add up, runs are deterministic, the
//! per-plane default is untouched, and bad settings are refused on one line.
//!
//! `io_size = "1000TiB"` beside `number_ios`: that many requests, over the range as often as they
//! take (fio's `number_ios` alone stops at one pass).

use ssdlab_core::config::parse_config;
use ssdlab_core::{Config, Simulation};
use std::path::Path;

/// FEMU's geometry shrunk: 8 channels × 8 chips, 32 blocks of 32 pages of 4 KiB per plane,
/// 30 % spare, FEMU's watermarks for 32 lines (foreground below (int)(0.05 × 32) + 1 = 2
/// free, background after requests below (int)(0.25 × 32) + 1 = 9); a mixed workload of
/// small random and large writes, reads and trims.
fn config(policy: &str, extra: &str) -> Config {
    let text = format!(
        r#"
[device]
preset = "femu-bbssd"
[device.geometry]
blocks_per_plane = 32
pages_per_block = 32
overprovisioning = 0.3
[device.ftl]
gc_threshold = 2
bg_gc_threshold = 9
[device.placement]
policy = "{policy}"
{extra}
[[job]]
name = "small"
rw = "randrw"
rwmixread = 30
bs = "4k"
iodepth = 8
random_distribution = "zipf:1.1"
number_ios = 60000
io_size = "1000TiB"
stream = 2
[[job]]
name = "large"
rw = "write"
bs = "256k"
size = "50%"
iodepth = 2
number_ios = 600
io_size = "1000TiB"
stream = 3
[[job]]
name = "trim"
rw = "randtrim"
bs = "64k"
size = "50%"
number_ios = 400
"#
    );
    parse_config(&text, "placement.toml", Path::new(".")).unwrap()
}

/// Every superblock policy of the registry.
fn policies() -> Vec<&'static str> {
    ssdlab_core::placement::REGISTRY.iter().map(|r| r.0).collect()
}

/// A JSON list of whole numbers.
fn u64s(v: &serde_json::Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect()
}

fn run(cfg: &Config) -> (Simulation, ssdlab_core::RunResult) {
    let mut sim = Simulation::new(cfg).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    (sim, r)
}

#[test]
fn every_policy_keeps_the_invariants_and_its_counters_add_up() {
    for frontier in ["shared", "separate"] {
        policies_keep_the_invariants(frontier);
    }
}

/// GC writes into slot 0's superblock (`shared`, as FEMU) or into one of its own.
fn policies_keep_the_invariants(frontier: &str) {
    let mut wafs = Vec::new();
    let all = policies();
    assert_eq!(all.len(), 9);
    for policy in all {
        let mut cfg = config(policy, "");
        cfg.device.ftl.gc_frontier = frontier.into();
        let (sim, r) = run(&cfg);
        sim.device()
            .check_invariants()
            .unwrap_or_else(|e| panic!("{policy}: {e}"));
        let f = &sim.device().ftl.stats;
        assert!(f.erases > 100, "{policy}: GC must have run ({} erases)", f.erases);
        assert_eq!(f.erases, f.gc_runs_finished + f.wl_migrations, "{policy}");
        let p = r
            .ssd
            .placement
            .as_ref()
            .unwrap_or_else(|| panic!("{policy}: no placement section"));
        assert_eq!(p["policy"], policy);
        let hist = u64s(&p["victim_valid_percent"]);
        assert_eq!(hist.len(), 101);
        let victims = p["victims"].as_u64().unwrap();
        assert_eq!(hist.iter().sum::<u64>(), victims, "{policy}");
        if policy == "partial-gc" {
            // Block GC: a victim per collection.
            assert_eq!(victims, f.gc_runs(), "{policy}");
        } else {
            // Whole-superblock GC: a victim collects several blocks.
            assert!(
                victims > 0 && victims * 4 < f.gc_runs(),
                "{policy}: {victims} victims, {} runs",
                f.gc_runs()
            );
        }
        let writes: u64 = r.jobs.iter().map(|j| j.write.total_ios).sum();
        // Every host byte written is counted in the slot it was routed to.
        let per_slot = u64s(&p["host_bytes_per_slot"]);
        let written: Vec<u64> = r.jobs.iter().map(|j| j.write.io_bytes).collect();
        assert_eq!(per_slot.iter().sum::<u64>(), written.iter().sum::<u64>(), "{policy}");
        // Whole-superblock GC's copies, each counted for the slot whose superblock it left.
        if policy != "partial-gc" {
            let gc = u64s(&p["gc_bytes_per_slot"]);
            let unit = cfg.device.geometry.mapping_unit.0;
            assert_eq!(gc.iter().sum::<u64>(), f.gc_units_copied * unit, "{policy}");
        }
        let opened = u64s(&p["superblocks_opened_per_slot"]);
        assert_eq!(
            opened.iter().sum::<u64>(),
            p["superblocks_opened"].as_u64().unwrap(),
            "{policy}"
        );
        if policy == "fdp" {
            // Stream 2 carries placement identifier 1, stream 3 identifier 2; the trims none.
            assert_eq!(per_slot, [0, written[0], written[1], 0], "{policy}");
            assert_eq!(p["writes_without_placement_id"], 0);
            assert_eq!(p["invalid_placement_id_events"], 0);
        }
        if policy.starts_with("plan-") {
            let large = p["large_writes"].as_u64().unwrap();
            let small = p["small_writes"].as_u64().unwrap();
            assert_eq!(large + small, writes, "{policy}: every write routed once");
            // The 256 KiB writes are large; a 4 KiB one extends a run only by chance.
            assert!((600..700).contains(&large), "{policy}: {large} large writes");
            if policy.starts_with("plan-pred") {
                let classes: u64 = (0..3)
                    .map(|k| p[format!("small_writes_class_{k}")].as_u64().unwrap())
                    .sum();
                assert_eq!(classes, small, "{policy}");
            }
        }
        if policy == "autostream" {
            // Every write counted once in one of the 16 frequency classes.
            let classes: u64 = (0..16).map(|k| p[format!("writes_class_{k}")].as_u64().unwrap()).sum();
            assert_eq!(classes, writes);
        }
        wafs.push((policy, r.ssd.waf));
    }
    // Partial GC collects a block where baseline collects 64: never more data moved on
    // this workload's skew.
    assert!(wafs[1].1 <= wafs[0].1 * 1.02, "{wafs:?}");
}

#[test]
fn runs_are_deterministic() {
    for policy in ["autostream", "plan-pred-1/4"] {
        let a = run(&config(policy, "")).1.deterministic_json();
        let b = run(&config(policy, "")).1.deterministic_json();
        assert_eq!(a, b, "{policy}");
    }
}

#[test]
fn per_plane_frontiers_stay_the_default_and_unchanged() {
    let text = |placement: &str| {
        format!(
            "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nblocks_per_plane = 128\npages_per_block = 64\n{placement}[[job]]\nrw = \"randwrite\"\nnumber_ios = 20000\nio_size = \"1000TiB\"\niodepth = 16\n"
        )
    };
    let plain = parse_config(&text(""), "a.toml", Path::new(".")).unwrap();
    let explicit = parse_config(
        &text("[device.placement]\npolicy = \"plane\"\n"),
        "a.toml",
        Path::new("."),
    )
    .unwrap();
    let a = run(&plain).1;
    let b = run(&explicit).1;
    assert!(a.ssd.placement.is_none());
    assert_eq!(a.deterministic_json(), b.deterministic_json());
    assert!(!a.deterministic_json().contains("\"placement\""));
}

fn error(policy: &str, extra: &str) -> String {
    let text = format!("[device]\npreset = \"femu-bbssd\"\n[device.placement]\npolicy = \"{policy}\"\n{extra}");
    match parse_config(&text, "bad.toml", Path::new(".")) {
        Ok(_) => panic!("accepted: {text}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_placement_settings_are_refused_with_the_key() {
    let e = error("plan-9", "");
    assert!(
        e.contains("device.placement.policy") && e.contains("plan-pred-1/4"),
        "{e}"
    );
    let e = error("plan-pred-1/8", "[device.geometry]\nways = 4\n");
    assert!(e.contains("device.geometry.ways") && e.contains("multiple of 8"), "{e}");
    let e = error("plan-pred-1/4", "lifetime_bounds = [0.1]\n");
    assert!(
        e.contains("device.placement.lifetime_bounds") && e.contains("expected 2"),
        "{e}"
    );
    let e = error("plan-pred-1/4", "lifetime_bounds = [0.5, 0.1]\n");
    assert!(e.contains("increasing"), "{e}");
    // A key the policy never reads is refused, not ignored.
    let e = error("baseline", "lifetime_bounds = [0.5, 0.1]\n");
    assert!(
        e.starts_with("bad.toml:5:1: device.placement.lifetime_bounds: set under placement policy \"baseline\", which does not use it"),
        "{e}"
    );
    let e = error("autostream", "chunk = \"1000\"\n");
    assert!(
        e.contains("device.placement.chunk") && e.contains("multiple of the mapping unit"),
        "{e}"
    );
    let e = error("plan-nopred-1/4", "open_superblocks = 1\n");
    assert!(
        e.contains("device.placement.open_superblocks") && e.contains("2 to 64"),
        "{e}"
    );
    let e = error(
        "baseline",
        "[device.ftl]\ndesign = \"openssd\"\nwrite_buffer = \"1MiB\"\n",
    );
    assert!(e.contains("device.placement.policy") && e.contains("design"), "{e}");
    let e = error("multi-stream", "width = \"1/3\"\n");
    assert!(e.contains("device.placement.width") && e.contains("\"1/8\""), "{e}");
    let e = error("plan-pred-1/4", "width = \"1/8\"\n");
    assert!(e.contains("device.placement.width") && e.contains("name gives"), "{e}");
    let e = error("baseline", "width = \"1/8\"\n[device.geometry]\nways = 4\n");
    assert!(e.contains("device.geometry.ways") && e.contains("multiple of 8"), "{e}");
    // The located line of the key at fault.
    let e = error("nope", "");
    assert!(e.starts_with("bad.toml:4:"), "{e}");
}

#[test]
fn a_width_narrows_every_host_superblock_and_keeps_the_invariants() {
    let geo = |c: &Config| ssdlab_core::redundancy::geometry_of(&c.device, "x").unwrap();
    let widths = |policy: &str, extra: &str| {
        let c = config(policy, extra);
        ssdlab_core::placement::make(&c.device, &geo(&c)).unwrap().1.widths
    };
    // femu-bbssd: 8 chips per channel, 4 open superblocks.
    assert_eq!(widths("multi-stream", ""), vec![8; 4]);
    assert_eq!(widths("multi-stream", "width = \"1/4\""), vec![2; 4]);
    assert_eq!(widths("baseline", "width = \"1/8\""), vec![1; 4]);
    assert_eq!(widths("autostream", "width = \"1/2\""), vec![4; 4]);
    assert_eq!(widths("partial-gc", "width = \"1\""), vec![8; 4]);
    assert_eq!(widths("plan-nopred-1/4", ""), vec![8, 2, 2, 2]);
    assert_eq!(widths("plan-pred-1/8", ""), vec![8, 1, 1, 1]);
    for policy in ["baseline", "multi-stream"] {
        let cfg = config(policy, "width = \"1/8\"");
        let (sim, r) = run(&cfg);
        sim.device()
            .check_invariants()
            .unwrap_or_else(|e| panic!("{policy}: {e}"));
        // A 1/8 superblock is 8 blocks (one chip on each of 8 channels) and is collected
        // whole: more than 8 GC runs per victim would mean wider victims.
        let p = r.ssd.placement.unwrap();
        let victims = p["victims"].as_u64().unwrap();
        let runs = sim.device().ftl.stats.gc_runs();
        assert!(
            victims > 0 && runs <= 8 * victims && runs > 4 * victims,
            "{policy}: {victims} victims, {runs} runs"
        );
    }
}

#[test]
fn the_memory_estimate_counts_the_policies_tables() {
    let est = |policy: &str| ssdlab_core::sim::memory_estimate(&config(policy, "")).unwrap();
    let cap = {
        let c = config("baseline", "");
        ssdlab_core::redundancy::geometry_of(&c.device, "x")
            .unwrap()
            .logical_bytes()
    };
    assert_eq!(est("autostream") - est("baseline"), cap.div_ceil(2 << 20) * 16);
    assert_eq!(
        est("plan-pred-1/4") - est("plan-nopred-1/4"),
        cap.div_ceil(16 << 10) * 9
    );
}
