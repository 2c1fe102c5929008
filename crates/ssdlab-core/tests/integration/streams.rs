//! Host write streams (`device.ftl.streams`): each stream fills blocks of its own, so data
//! written at different rates (hot and cold) does not share blocks, and GC finds victims
//! emptied by the hot stream's overwrites.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use ssdlab_core::config::parse_config;
use ssdlab_core::{Device, Simulation};
use std::path::Path;

/// Two planes of 64 blocks of 16 pages of 2 units, 25 % over-provisioning, `streams` host
/// frontiers per plane, and `jobs`.
fn config(streams: u32, jobs: &str) -> ssdlab_core::Config {
    let text = format!(
        r#"
[device]
preset = "mlc-sata"
[device.geometry]
channels = 1
ways = 1
planes_per_die = 2
blocks_per_plane = 64
pages_per_block = 16
page_size = "8KiB"
overprovisioning = 0.25
[device.ftl]
gc_threshold = 2
write_buffer = "64KiB"
streams = {streams}
{jobs}
"#
    );
    parse_config(&text, "streams.toml", Path::new(".")).unwrap()
}

/// WAF of skewed overwrites driven straight into the FTL: 95 % of the writes go to the
/// first 5 % of the logical units. With `separate`, hot writes use stream 1.
fn skewed_waf(streams: u32, separate: bool) -> f64 {
    let cfg = config(streams, "");
    let mut dev = Device::new(&cfg.device, 1).unwrap();
    dev.ftl.record_ops = false;
    let n = dev.geo.logical_units;
    let hot = n / 20;
    let planes = dev.geo.planes;
    let upp = dev.geo.units_per_page;
    // Per stream, the plane receiving its pages (a page at a time, round robin).
    let mut plane = [0usize; 2];
    let mut filled = [0usize; 2];
    let mut put = |dev: &mut Device, s: usize, lpn: u64| {
        dev.ftl.append_stream(plane[s], s, lpn).unwrap();
        filled[s] += 1;
        if filled[s] % upp == 0 {
            plane[s] = (plane[s] + 1) % planes;
        }
    };
    for lpn in 0..n {
        put(&mut dev, 0, lpn);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut before = dev.ftl.stats.clone();
    for i in 0..30 * n {
        if i == 10 * n {
            // Measured once the skew has shaped the blocks.
            before = dev.ftl.stats.clone();
        }
        let (lpn, is_hot) = if rng.gen_bool(0.95) {
            (rng.gen_range(0..hot), true)
        } else {
            (rng.gen_range(hot..n), false)
        };
        put(&mut dev, (separate && is_hot) as usize, lpn);
    }
    dev.ftl.check_invariants().unwrap();
    let s = dev.ftl.stats.since(&before);
    (s.host_units_written + s.gc_units_copied) as f64 / s.host_units_written as f64
}

#[test]
fn separated_hot_and_cold_streams_lower_the_waf() {
    let mixed = skewed_waf(1, false);
    let mixed2 = skewed_waf(2, false);
    let separated = skewed_waf(2, true);
    // Two frontiers, one used: the same placement as one frontier.
    assert_eq!(mixed, mixed2);
    assert!(mixed > 2.0, "mixed {mixed}");
    // Greedy GC equalises the victims' valid counts of the two streams' blocks and survivors
    // of both share one GC frontier, so the gain is about a tenth here.
    assert!(
        separated < 0.93 * mixed,
        "separating hot from cold: {separated} against mixed {mixed}"
    );
}

/// Blocks holding units of the first 5 % of the logical space (hot) and of the rest
/// (cold) after a short run on a fresh device: a hot and a cold job at once, the hot one on
/// stream `hot_stream` of `streams`.
fn shared_blocks(streams: u32, hot_stream: u32) -> (usize, usize) {
    let jobs = format!(
        r#"
[precondition]
mode = "none"
[[job]]
name = "hot"
rw = "randwrite"
size = "5%"
number_ios = 300
stream = {hot_stream}
[[job]]
name = "cold"
rw = "randwrite"
offset = "5%"
number_ios = 300
"#
    );
    let cfg = config(streams, &jobs);
    let mut sim = Simulation::new(&cfg).unwrap();
    sim.run(&mut |_| {}).unwrap();
    let ftl = &sim.device().ftl;
    ftl.check_invariants().unwrap();
    let n = sim.device().geo.logical_units;
    let upb = sim.device().geo.units_per_block as u32;
    let mut kinds = std::collections::BTreeMap::new();
    for lpn in 0..n {
        let pun = ftl.lookup(lpn);
        if pun != ssdlab_core::ftl::NONE {
            let k: &mut (bool, bool) = kinds.entry(pun / upb).or_default();
            if lpn < n / 20 {
                k.0 = true;
            } else {
                k.1 = true;
            }
        }
    }
    let both = kinds.values().filter(|k| k.0 && k.1).count();
    (kinds.len(), both)
}

#[test]
fn a_jobs_stream_selects_its_frontier_in_a_run() {
    let (blocks, mixed) = shared_blocks(1, 1);
    assert!(
        blocks >= 4 && mixed >= 2,
        "one frontier: {mixed} of {blocks} blocks hold both"
    );
    let (blocks, mixed) = shared_blocks(2, 1);
    assert!(blocks >= 4, "{blocks}");
    assert_eq!(mixed, 0, "two frontiers: no block holds hot and cold data");
    // Stream 2 of 2 frontiers is frontier 0: mixed again.
    assert!(shared_blocks(2, 2).1 >= 2);
}

#[test]
fn streams_are_checked() {
    let bad = |v: &str, bpp: u32| {
        let text = format!("[device]\npreset = \"mlc-sata\"\n[device.geometry]\nblocks_per_plane = {bpp}\n[device.ftl]\nstreams = {v}\n");
        parse_config(&text, "s.toml", Path::new("."))
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        bad("0", 128),
        Err("s.toml:6:1: device.ftl.streams: got 0; expected 1 to 256 host write frontiers per plane".into())
    );
    assert_eq!(
        bad("257", 128),
        Err("s.toml:6:1: device.ftl.streams: got 257; expected 1 to 256 host write frontiers per plane".into())
    );
    // 128 blocks at 7 % over-provisioning: 8.4 spare blocks hold the reserve of 3, one GC
    // block and up to 4 streams.
    assert_eq!(bad("4", 128), Ok(()));
    let e = bad("5", 128).unwrap_err();
    assert!(
        e.starts_with(
            "s.toml:6:1: device.ftl.streams: 8.4 spare blocks per plane cannot hold the GC reserve and open blocks (9)"
        ),
        "{e}"
    );
}

/// A copy of a preconditioned FTL runs on exactly as the original; giving it more streams
/// keeps its open blocks, and fewer closes the dropped streams' blocks.
#[test]
fn copies_and_stream_changes_keep_the_state_consistent() {
    let cfg = config(1, "[precondition]\nmode = \"steady\"\nutilisation = 0.8\n");
    let mut dev = Device::new(&cfg.device, 1).unwrap();
    ssdlab_core::precondition::precondition(&mut dev, &cfg.precondition, 0, &mut |_, _| {}).unwrap();
    let master = dev.ftl.clone();
    let run = |ftl: ssdlab_core::ftl::Ftl, streams: usize| {
        let mut c = cfg.device.clone();
        c.ftl.streams = streams as u32;
        let mut d = Device::with_ftl(&c, ftl).unwrap();
        assert_eq!(d.ftl.streams(), streams);
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let n = d.geo.logical_units;
        for i in 0..4 * n {
            d.ftl
                .append_stream((i % 2) as usize, (i % streams as u64) as usize, rng.gen_range(0..n))
                .unwrap();
        }
        d.ftl.check_invariants().unwrap();
        d.ftl.stats.clone()
    };
    let a = run(master.clone(), 1);
    let b = run(dev.ftl, 1);
    assert_eq!(a, b, "the copy and the original do the same work");
    assert!(a.gc_runs() > 0);
    let mut two = master.clone();
    two.set_streams(2);
    assert_eq!(two.streams(), 2);
    two.check_invariants().unwrap();
    let c = run(two, 2);
    assert_ne!(c, a, "two streams place the writes differently");
    // Back to one stream: the second stream's open blocks are closed, still consistent.
    let mut back = master;
    back.set_streams(3);
    back.append_stream(0, 2, 0).unwrap();
    back.set_streams(1);
    back.check_invariants().unwrap();
}
