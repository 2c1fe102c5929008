//! Counters that are parts of a whole add up, with static wear leveling migrating blocks
//! while foreground and background GC run.
//!
//! `io_size = "1000TiB"` beside `number_ios`: that many requests, over the range as often as they
//! take (fio's `number_ios` alone stops at one pass).

use ssdlab_core::config::parse_config;
use std::path::Path;

#[test]
fn gc_and_wear_leveling_counters_add_up() {
    // A small device, hot writes on a tenth of it: wear leveling has cold blocks to move.
    let text = r#"
[device]
preset = "mlc-sata"
[device.geometry]
channels = 2
ways = 2
blocks_per_plane = 96
pages_per_block = 64
overprovisioning = 0.12
[device.ftl]
static_wl_threshold = 3
bg_gc_threshold = 6
bg_gc_idle = "200us"
[precondition]
mode = "sequential"
utilisation = 0.95
[[job]]
name = "hot"
rw = "randwrite"
bs = "4KiB"
iodepth = 4
size = "10%"
number_ios = 150000
io_size = "1000TiB"
[[job]]
name = "gaps"
rw = "randwrite"
bs = "4KiB"
size = "10%"
offset = "50%"
rate_iops = 4000
number_ios = 100000
io_size = "1000TiB"
"#;
    let cfg = parse_config(text, "c.toml", Path::new(".")).unwrap();
    let mut sim = ssdlab_core::Simulation::new(&cfg).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    sim.device().ftl.check_invariants().unwrap();
    let v = serde_json::to_value(&r).unwrap();
    let ssd = &v["ssd"];
    let n = |x: &serde_json::Value| x.as_u64().unwrap();
    let gc = &ssd["gc"];
    let (runs, fg, bg, finished) = (
        n(&gc["runs"]),
        n(&gc["foreground"]),
        n(&gc["background"]),
        n(&gc["finished"]),
    );
    let wl = n(&ssd["wear"]["static_wl_migrations"]);
    let erases = n(&ssd["flash"]["erases"]);
    eprintln!("runs {runs} = fg {fg} + bg {bg}; finished {finished}; wl {wl}; erases {erases}");
    assert!(wl > 0, "wear leveling must run in this test");
    assert!(fg > 0, "foreground GC must run in this test");
    assert_eq!(runs, fg + bg, "collections started = foreground + background");
    assert_eq!(erases, finished + wl, "every erase ends a collection or a migration");
    let planes = 2 * 2 * 2;
    assert!(
        runs.abs_diff(finished) <= planes,
        "at most one collection per plane is open at either end of the window"
    );
    let hist: u64 = gc["victim_valid_histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| n(&p[1]))
        .sum();
    assert_eq!(hist, runs, "one victim per collection started");
    let flash = &ssd["flash"];
    assert_eq!(
        n(&flash["page_programs"]),
        n(&flash["host_page_programs"]) + n(&flash["gc_page_programs"]),
        "programs = host + GC (wear leveling copies count as GC programs)"
    );
}
