//! NVMe FDP driven by fio's own data placement options: a write's placement identifier picks
//! its reclaim unit handle, fio's round robin and random choices over `plids` reach the device
//! as fio makes them, reads carry none, and options the device cannot honour are refused on
//! one line, as fio refuses them.

use ssdlab_core::config::parse_config;
use ssdlab_core::{Config, Simulation};
use std::path::Path;

/// A small FDP device: 4 reclaim unit handles, each an open superblock.
fn device(policy: &str) -> Config {
    let text = format!(
        "[device]\npreset = \"femu-bbssd\"\n[device.geometry]\nblocks_per_plane = 32\npages_per_block = 32\noverprovisioning = 0.3\n[device.ftl]\ngc_threshold = 2\nbg_gc_threshold = 9\n\
         [device.placement]\npolicy = \"{policy}\"\nopen_superblocks = 4\n[[job]]\nrw = \"read\"\nnumber_ios = 1\n"
    );
    parse_config(&text, "fdp.toml", Path::new(".")).unwrap()
}

/// The run's placement section with `fio` as its jobs.
fn run(fio: &str) -> serde_json::Value {
    let mut cfg = device("fdp");
    cfg.set_jobs_from_fio("fdp.fio", fio).unwrap();
    let r = Simulation::new(&cfg).unwrap().run(&mut |_| {}).unwrap();
    r.ssd.placement.expect("superblock placement")
}

fn per_handle(p: &serde_json::Value) -> Vec<u64> {
    p["host_bytes_per_slot"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

const JOB: &str = "[w]\nrw=write\nbs=4k\nnumber_ios=1000\n";

#[test]
fn fio_s_round_robin_over_plids_spreads_writes_over_those_handles() {
    // fio's `fdp_pli=0,2`: indices 0 and 2, alternately.
    let p = run(&format!("{JOB}fdp=1\nfdp_pli=0,2\nfdp_pli_select=roundrobin\n"));
    assert_eq!(per_handle(&p), [500 * 4096, 0, 500 * 4096, 0]);
    assert_eq!(p["writes_without_placement_id"], 0);
    assert_eq!(p["invalid_placement_id_events"], 0);
    // The newer spellings are the same options; a range is its values.
    let q = run(&format!("{JOB}dataplacement=fdp\nplids=1-3\nplid_select=roundrobin\n"));
    assert_eq!(per_handle(&q), [0, 334 * 4096, 333 * 4096, 333 * 4096]);
    // No plids: every handle of the device, in turn.
    let all = run(&format!("{JOB}fdp=1\n"));
    assert_eq!(per_handle(&all), [250 * 4096; 4]);
}

#[test]
fn without_a_directive_every_write_goes_to_handle_0() {
    let p = run(JOB);
    assert_eq!(per_handle(&p), [1000 * 4096, 0, 0, 0]);
    assert_eq!(p["writes_without_placement_id"], 1000);
    // fdp=0 is no directive.
    assert_eq!(per_handle(&run(&format!("{JOB}fdp=0\n"))), [1000 * 4096, 0, 0, 0]);
}

#[test]
fn random_selection_draws_every_listed_handle_and_reads_carry_none() {
    let fio = "[m]\nrw=randrw\nrwmixread=50\nbs=4k\nnumber_ios=4000\nfdp=1\nfdp_pli=0,1,3\nfdp_pli_select=random\n";
    let p = run(fio);
    let h = per_handle(&p);
    assert_eq!(h[2], 0, "index 2 is not listed");
    for i in [0, 1, 3] {
        // About a third of the ~2,000 writes each.
        assert!((550 * 4096..=800 * 4096).contains(&h[i]), "{h:?}");
    }
    // Reads carry no identifier (and are not routed): only the writes' bytes are counted, and
    // none of them went without an identifier.
    assert_eq!(p["writes_without_placement_id"], 0);
    let writes: u64 = h.iter().sum::<u64>() / 4096;
    assert!((1800..2200).contains(&writes), "{writes} writes of 4000 requests");
    // Deterministic: the same choices again.
    assert_eq!(per_handle(&run(fio)), h);
}

#[test]
fn a_handle_moves_to_a_new_reclaim_unit_when_its_unit_is_full() {
    // A reclaim unit: one block on every plane, by default.
    let g = &device("fdp").device.geometry;
    let planes = (g.channels * g.ways * g.dies_per_chip * g.planes_per_die) as u64;
    let ru = planes * g.pages_per_block as u64 * g.page_size.0;
    let opened = |writes: u64| {
        let fio = format!("[w]\nrw=write\nbs=4k\nnumber_ios={writes}\nfdp=1\nfdp_pli=1\n");
        let p = run(&fio);
        let per: Vec<u64> = p["superblocks_opened_per_slot"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        (per, per_handle(&p))
    };
    // Handle 1 fills its first RU exactly: one RU opened, by handle 1 only; GC's slot (the
    // last) none.
    let (per, bytes) = opened(ru / 4096);
    assert_eq!(per, [0, 1, 0, 0, 0]);
    assert_eq!(bytes, [0, ru, 0, 0]);
    // One write more opens its second.
    let (per, _) = opened(ru / 4096 + 1);
    assert_eq!(per, [0, 2, 0, 0, 0]);
    // Three RUs and a half: four.
    let (per, _) = opened(7 * ru / 2 / 4096);
    assert_eq!(per, [0, 4, 0, 0, 0]);
}

/// Two handles rewriting their own halves of the drive at random until GC has run a while.
fn isolation_run(isolation: &str) -> (ssdlab_core::Simulation, serde_json::Value) {
    let text = format!(
        "[device]\npreset = \"femu-bbssd\"\n[device.geometry]\nblocks_per_plane = 32\npages_per_block = 32\noverprovisioning = 0.3\n\
         [device.ftl]\ngc_threshold = 3\nbg_gc_threshold = 9\ngc_frontier = \"separate\"\n\
         [device.placement]\npolicy = \"fdp\"\nopen_superblocks = 2\nisolation = \"{isolation}\"\n\
         [[job]]\nname = \"a\"\nrw = \"randwrite\"\nbs = \"4k\"\nsize = \"50%\"\nnumber_ios = 60000\nio_size = \"1000TiB\"\nstream = 1\n\
         [[job]]\nname = \"b\"\nrw = \"randwrite\"\nbs = \"4k\"\noffset = \"50%\"\nsize = \"50%\"\nnumber_ios = 60000\nio_size = \"1000TiB\"\nstream = 2\n"
    );
    let cfg = parse_config(&text, "iso.toml", Path::new(".")).unwrap();
    let mut sim = Simulation::new(&cfg).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    (sim, r.ssd.placement.unwrap())
}

fn u64s(v: &serde_json::Value) -> Vec<u64> {
    v.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect()
}

#[test]
fn persistent_isolation_collects_each_handle_into_its_own_units() {
    for isolation in ["initial", "persistent"] {
        let (sim, p) = isolation_run(isolation);
        sim.device().check_invariants().unwrap();
        assert_eq!(p["isolation"], isolation);
        let opened = u64s(&p["superblocks_opened_per_slot"]);
        let gc = u64s(&p["gc_bytes_per_slot"]);
        let copied = sim.device().ftl.stats.gc_units_copied * 4096;
        assert!(copied > 0, "{isolation}: GC must have run");
        assert_eq!(gc.iter().sum::<u64>(), copied, "{isolation}");
        if isolation == "initial" {
            // Two handles and GC's one slot.
            assert_eq!(opened.len(), 3);
            assert!(opened[2] > 0);
        } else {
            // A GC slot per handle, both used: each handle's survivors have their own units.
            assert_eq!(opened.len(), 4, "{opened:?}");
            assert!(opened[2] > 0 && opened[3] > 0, "{opened:?}");
        }
    }
}

#[test]
fn options_the_device_cannot_honour_are_refused_as_fio_refuses_them() {
    let refused = |policy: &str, fio: &str, want: &str| {
        let mut cfg = device(policy);
        let e = cfg.set_jobs_from_fio("fdp.fio", fio).unwrap_err().to_string();
        assert!(e.contains(want), "{fio}: {e}");
        assert!(!e.contains('\n'), "{e}");
    };
    refused(
        "fdp",
        &format!("{JOB}fdp=1\nfdp_pli=1,4\n"),
        "job[0].plids: placement identifier index 4 names no handle of the device's 4; expected indices below 4",
    );
    refused(
        "baseline",
        &format!("{JOB}fdp=1\n"),
        "job[0].dataplacement: fdp on a device without FDP (placement policy \"baseline\")",
    );
    refused(
        "fdp",
        &format!("{JOB}fdp=1\nplid_select=scheme\n"),
        "job[0].plid_select: got \"scheme\" (fio's scheme (a dp_scheme file) is not simulated); expected roundrobin or random",
    );
    refused(
        "fdp",
        &format!("{JOB}plids=0\n"),
        "job[0].plids: set without a data placement directive",
    );
    refused(
        "multi-stream",
        &format!("{JOB}dataplacement=streams\n"),
        "job[0].plids: missing with dataplacement = \"streams\"",
    );
    refused(
        "fdp",
        &format!("{JOB}dataplacement=streams\nplids=1\n"),
        "job[0].dataplacement: streams under placement policy \"fdp\", which does not read stream ids",
    );
    refused(
        "fdp",
        &format!("{JOB}dataplacement=zns\n"),
        "job[0].dataplacement: got \"zns\"; expected none, fdp or streams",
    );
    refused(
        "fdp",
        &format!("{JOB}fdp=2\n"),
        "fdp.fio:5: fdp: got '2'; expected no value, 0 or 1",
    );
    // The device's own FDP settings.
    let device_refused = |set: &str, want: &str| {
        let text = format!(
            "[device]\npreset = \"femu-bbssd\"\n[device.geometry]\nblocks_per_plane = 32\npages_per_block = 32\noverprovisioning = 0.3\n{set}\n[[job]]\nrw = \"write\"\nnumber_ios = 1\n"
        );
        let e = parse_config(&text, "d.toml", Path::new(".")).unwrap_err().to_string();
        assert!(e.contains(want), "{set}: {e}");
    };
    device_refused(
        "[device.ftl]\ngc_threshold = 2\n[device.placement]\npolicy = \"multi-stream\"\nisolation = \"persistent\"",
        "device.placement.isolation: set under placement policy \"multi-stream\", which does not use it; expected policy = fdp",
    );
    device_refused(
        "[device.ftl]\ngc_threshold = 2\n[device.placement]\npolicy = \"fdp\"\nisolation = \"lasting\"",
        "device.placement.isolation: got \"lasting\"; expected \"initial\" or \"persistent\"",
    );
    device_refused(
        "[device.ftl]\ngc_threshold = 4\ngc_frontier = \"shared\"\n[device.placement]\npolicy = \"fdp\"\nisolation = \"persistent\"",
        "device.placement.isolation: persistent with device.ftl.gc_frontier = \"shared\"",
    );
    device_refused(
        "[device.ftl]\ngc_threshold = 4\ngc_frontier = \"separate\"\n[device.placement]\npolicy = \"fdp\"\nopen_superblocks = 4\nisolation = \"persistent\"",
        "device.ftl.gc_threshold: 4 free blocks per plane cannot hold a GC destination for each of the 4 persistently isolated handles and a spare; expected at least 5",
    );
}

/// WARP's three-stream workload (examples/warp-3stream.fio) on the example FDP drive
/// (examples/fdp.toml: 16 GiB, reclaim units of 128 MiB), its steady phase cut to `seconds`
/// of simulated time, without the sections named in `drop`.
fn warp(seconds: u32, drop: &[&str]) -> serde_json::Value {
    warp_with(seconds, drop, &[]).1
}

/// [`warp`] with `--set` overrides of the drive; the simulation too.
fn warp_with(seconds: u32, drop: &[&str], sets: &[&str]) -> (Simulation, serde_json::Value) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let text = std::fs::read_to_string(examples.join("warp-3stream.fio"))
        .unwrap()
        .replace("runtime=60", &format!("runtime={seconds}"));
    let mut kept = String::new();
    let mut skip = false;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix('[') {
            skip = drop.iter().any(|d| name.trim_end_matches(']') == *d);
        }
        if !skip {
            kept.push_str(line);
            kept.push('\n');
        }
    }
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let mut cfg =
        ssdlab_core::config::load_config_with(&examples.join("fdp.toml").display().to_string(), &sets).unwrap();
    cfg.set_jobs_from_fio("warp-3stream.fio", &kept).unwrap();
    let mut sim = Simulation::new(&cfg).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    (sim, r.ssd.placement.expect("superblock placement"))
}

/// Persistently isolated handles under WARP's workload: collections of different handles
/// interleave, each GC slot filling its own partial page (a collection once took another
/// handle's page plane, where its slot had no block: an index past the map). Maps and
/// counts stay consistent; GC's copies are each handle's, and each handle's GC slot is used.
#[test]
fn warp_s_workload_under_persistent_isolation_keeps_each_handle_s_gc_pages_apart() {
    let (sim, p) = warp_with(
        20,
        &[],
        &["device.placement.isolation=persistent", "device.ftl.gc_threshold=5"],
    );
    sim.device().check_invariants().unwrap();
    let gc = u64s(&p["gc_bytes_per_slot"]);
    let copied = sim.device().ftl.stats.gc_units_copied * 4096;
    assert!(copied > 0);
    assert_eq!(gc.iter().sum::<u64>(), copied);
    // Four handles and a GC slot each; the three writing handles' GC slots opened units.
    let opened = u64s(&p["superblocks_opened_per_slot"]);
    assert_eq!(opened.len(), 8, "{opened:?}");
    assert!(opened[4..7].iter().all(|&n| n > 0), "{opened:?}");
}

/// WARP's "noisy RUH": the overwrite stream (handle 2) invalidates handle 0's data piece by
/// piece, so GC moves handle 0's survivors although handle 0 writes only in order (20 s:
/// 1.47 GB moved of its 15.9 GB); without the overwrite stream handle 0 rewrites its space
/// in order and GC moves nothing of it (only the random table's survivors).
#[test]
fn warp_s_overwrite_stream_makes_the_sequential_handle_collect() {
    let with = warp(20, &[]);
    let gc = u64s(&with["gc_bytes_per_slot"]);
    let host = per_handle(&with);
    assert!(host.iter().take(3).all(|&h| h > 0) && host[3] == 0, "{host:?}");
    assert!(gc[0] > host[0] / 20, "handle 0 collected: {gc:?} of {host:?}");
    let without = warp(20, &["overwrite"]);
    let gc = u64s(&without["gc_bytes_per_slot"]);
    assert_eq!(per_handle(&without)[2], 0);
    assert!(gc[1] > 0, "GC ran: {gc:?}");
    assert_eq!(gc[0], 0, "{gc:?}");
}

/// Wear levelling on a superblock drive: a migration is started when a host superblock
/// opens, never while GC takes its own superblock inside a collection (a migration started
/// there wrote GC's frontier under the running collection, and a block then took more units
/// than it has: an index out of bounds, here and after a long CacheLib-like run). With a
/// threshold of 2 erases, migrations run all along.
#[test]
fn wear_levelling_never_starts_inside_a_collection_of_a_superblock_drive() {
    let mut cfg = device("fdp");
    cfg.device.ftl.static_wl_threshold = 2;
    cfg.set_jobs_from_fio(
        "wl.fio",
        "[hot]\nrw=randwrite\nbs=4k\nsize=5%\nio_size=600m\nfdp=1\nfdp_pli=0\n\
         [log]\nrw=write\nbs=64k\noffset=5%\nsize=85%\nio_size=1200m\nfdp=1\nfdp_pli=1\n",
    )
    .unwrap();
    let mut sim = Simulation::new(&cfg).unwrap();
    sim.run(&mut |_| {}).unwrap();
    let d = sim.device();
    d.check_invariants().unwrap();
    assert!(d.ftl.stats.wl_migrations > 10, "{:?} {}", d.ftl.stats, d.geo.blocks);
}

/// A small FDP drive with a write buffer (mlc-sata: 64 planes, 8 KiB pages of two 4 KiB
/// units), reclaim units of 8 pages per block: 64 × 8 × 8 KiB = 4 MiB; `jobs` in TOML.
fn buffered_fdp(jobs: &str) -> (Simulation, serde_json::Value) {
    let text = format!(
        "[device]\npreset = \"mlc-sata\"\n[device.geometry]\nblocks_per_plane = 40\npages_per_block = 8\noverprovisioning = 0.3\n\
         [device.placement]\npolicy = \"fdp\"\nopen_superblocks = 4\n[precondition]\nmode = \"none\"\n{jobs}"
    );
    let cfg = parse_config(&text, "ruh.toml", Path::new(".")).unwrap();
    let mut sim = Simulation::new(&cfg).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    sim.device().check_invariants().unwrap();
    let mut p = r.ssd.placement.expect("superblock placement");
    p["flash"] = r.ssd.flash.clone();
    (sim, p)
}

/// One clone writing 4 KiB in order through handle 1, `n` writes, an RU handle update after
/// every `every`.
fn updated(n: u64, every: &str) -> serde_json::Value {
    buffered_fdp(&format!(
        "[[job]]\nrw = \"write\"\nbs = \"4k\"\nnumber_ios = {n}\ndataplacement = \"fdp\"\nplids = \"1\"\nruh_update_every = \"{every}\"\n"
    ))
    .1
}

#[test]
fn a_handle_update_takes_a_partly_written_unit_off_its_handle() {
    // 2,052 KiB between updates: 256 pages and one unit. At each update the unit's page is
    // programmed padded (one padded unit), the RU, 257 of its 512 pages written, leaves handle
    // 1 not fully written, and the next write opens a new RU: two updates, two events, two
    // RUs, 514 pages, every one of them the host's.
    let p = updated(1026, "2052KiB");
    assert_eq!(u64s(&p["ruh_updates_per_slot"]), [0, 2, 0, 0]);
    assert_eq!(u64s(&p["ru_not_fully_written_per_slot"]), [0, 2, 0, 0]);
    assert_eq!(p["ru_not_fully_written_events"], 2);
    assert_eq!(u64s(&p["superblocks_opened_per_slot"]), [0, 2, 0, 0, 0]);
    assert_eq!(p["flash"]["host_page_programs"], 514);
    assert_eq!(p["flash"]["page_programs"], 514);
    assert_eq!(p["flash"]["padded_units"], 2);
    // FDP's statistics log page: the host's 1,026 × 4 KiB; the media's 514 pages of 8 KiB,
    // padding included; nothing erased. Handle 1 moved nothing under GC: its WAF is 1.
    assert_eq!(p["fdp_statistics"]["host_bytes_written"], 1026 * 4096);
    assert_eq!(p["fdp_statistics"]["media_bytes_written"], 514 * 8192);
    assert_eq!(p["fdp_statistics"]["media_bytes_erased"], 0);
    assert_eq!(p["waf_per_slot"], serde_json::json!([null, 1.0, null, null]));
    // Page-aligned updates pad nothing: 2 MiB is 256 pages, half an RU each time.
    let p = updated(1024, "2MiB");
    assert_eq!(
        (
            p["ru_not_fully_written_events"].as_u64(),
            p["flash"]["padded_units"].as_u64()
        ),
        (Some(2), Some(0))
    );
    assert_eq!(u64s(&p["superblocks_opened_per_slot"]), [0, 2, 0, 0, 0]);
    // An update when the RU is just full is no event: the handle moves on at its next write
    // anyway. Three whole RUs with an update after each: three RUs, no event.
    let p = updated(3 * 1024, "4MiB");
    assert_eq!(u64s(&p["ruh_updates_per_slot"]), [0, 3, 0, 0]);
    assert_eq!(p["ru_not_fully_written_events"], 0);
    assert_eq!(u64s(&p["superblocks_opened_per_slot"]), [0, 3, 0, 0, 0]);
    // Without updates, the same writes fill one RU and half of the next.
    let p = buffered_fdp(
        "[[job]]\nrw = \"write\"\nbs = \"4k\"\nnumber_ios = 1536\ndataplacement = \"fdp\"\nplids = \"1\"\n",
    )
    .1;
    assert_eq!(u64s(&p["ruh_updates_per_slot"]), [0, 0, 0, 0]);
    assert_eq!(u64s(&p["superblocks_opened_per_slot"]), [0, 2, 0, 0, 0]);
}

#[test]
fn an_update_names_only_the_handles_the_clone_wrote_through() {
    // Round robin over handles 0 and 2, 1 MiB between updates: each update names both; the
    // writes of handle 3's job carry no update, so its RU stays.
    let p = buffered_fdp(
        "[[job]]\nrw = \"write\"\nbs = \"4k\"\nnumber_ios = 1024\ndataplacement = \"fdp\"\nplids = \"0,2\"\nruh_update_every = \"1MiB\"\n\
         [[job]]\nrw = \"write\"\nbs = \"4k\"\noffset = \"50%\"\nnumber_ios = 1024\ndataplacement = \"fdp\"\nplids = \"3\"\n",
    )
    .1;
    assert_eq!(u64s(&p["ruh_updates_per_slot"]), [4, 0, 4, 0]);
    // Each update leaves half a MiB on each of handles 0 and 2: a new RU each time.
    assert_eq!(u64s(&p["ru_not_fully_written_per_slot"]), [4, 0, 4, 0]);
    assert_eq!(u64s(&p["superblocks_opened_per_slot"]), [4, 0, 4, 1, 0]);
}

#[test]
fn reclaim_units_left_partly_written_are_collected_and_the_counts_add_up() {
    // Random rewrites of 60 % of the drive through two handles, an update every 640 KiB:
    // GC collects RUs left partly written beside full ones; the device's invariants hold
    // (checked by `buffered_fdp`), and every program is the host's, GC's or padding's.
    let (sim, p) = buffered_fdp(
        "[[job]]\nrw = \"randwrite\"\nbs = \"4k\"\nsize = \"60%\"\nnumber_ios = 120000\nio_size = \"1000TiB\"\ndataplacement = \"fdp\"\nplids = \"0-1\"\nplid_select = \"random\"\nruh_update_every = \"640KiB\"\n",
    );
    let f = &sim.device().ftl.stats;
    assert!(f.gc_units_copied > 0 && f.erases > 0, "GC must have run");
    let events = p["ru_not_fully_written_events"].as_u64().unwrap();
    let updates: u64 = u64s(&p["ruh_updates_per_slot"]).iter().sum();
    // 120,000 writes of 4 KiB: 750 updates, each naming both handles.
    assert_eq!(updates, 2 * (120_000 * 4 / 640));
    assert!(events > updates / 2, "{events} of {updates}");
    // Host units + padding = host pages × 2 units; GC's copies fill whole pages or are padded.
    assert_eq!(f.host_units_written + f.padded_units, 2 * f.host_pages_programmed);
    assert_eq!(
        p["flash"]["page_programs"].as_u64().unwrap(),
        f.host_pages_programmed + f.gc_pages_programmed
    );
    // The statistics log page: media bytes = the host's units and their padding + GC's
    // pages; erased = erases × 8 pages of 8 KiB.
    let stats = &p["fdp_statistics"];
    assert_eq!(stats["host_bytes_written"], 120_000 * 4096);
    assert_eq!(
        stats["media_bytes_written"].as_u64().unwrap(),
        (f.host_units_written + f.padded_units) * 4096 + f.gc_pages_programmed * 8192
    );
    assert_eq!(stats["media_bytes_erased"].as_u64().unwrap(), f.erases * 8 * 8192);
    // Each handle's WAF: its host bytes and GC's bytes out of its units, over its host bytes.
    let (host, gc) = (u64s(&p["host_bytes_per_slot"]), u64s(&p["gc_bytes_per_slot"]));
    for h in 0..2 {
        let want = (host[h] + gc[h]) as f64 / host[h] as f64;
        let got = p["waf_per_slot"][h].as_f64().unwrap();
        assert!(
            (got - want).abs() < 5e-4 && got > 1.0,
            "handle {h}: {got} against {want}"
        );
    }
}

#[test]
fn handle_updates_need_an_fdp_device_with_its_own_gc_frontier() {
    // The device itself refuses one without placement (per-plane frontiers: no handles).
    let cfg = parse_config(
        "[device]\npreset = \"mlc-sata\"\n[[job]]\nrw = \"write\"\nnumber_ios = 1\n",
        "plain.toml",
        Path::new("."),
    )
    .unwrap();
    let mut plain = ssdlab_core::device::Device::new(&cfg.device, 1).unwrap();
    let e = plain.ruh_update(0, 1).unwrap_err().to_string();
    assert!(
        e.contains("a reclaim unit handle update on a device without FDP"),
        "{e}"
    );
    let refused = |device: &str, job: &str, want: &str| {
        let text = format!(
            "[device]\npreset = \"mlc-sata\"\n[device.geometry]\nblocks_per_plane = 40\npages_per_block = 8\noverprovisioning = 0.3\n{device}\n\
             [[job]]\nrw = \"write\"\nnumber_ios = 1\n{job}"
        );
        let e = parse_config(&text, "ruh.toml", Path::new(".")).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
        assert!(!e.contains('\n'), "{e}");
    };
    refused(
        "",
        "ruh_update_every = \"1MiB\"\n",
        "job[0].ruh_update_every: set for a device without FDP (placement policy \"plane\"); expected device.placement.policy = \"fdp\"",
    );
    refused(
        "[device.ftl]\ngc_frontier = \"shared\"\nwrite_buffer = 0\n[device.placement]\npolicy = \"fdp\"",
        "ruh_update_every = \"1MiB\"\n",
        "job[0].ruh_update_every: set where GC writes into handle 0's reclaim units (device.ftl.gc_frontier = \"shared\")",
    );
    refused(
        "[device.placement]\npolicy = \"fdp\"",
        "ruh_update_every = 0\n",
        "job[0].ruh_update_every: got 0; expected a size above 0",
    );
    // Keys that would do nothing: updates from a job whose writes name no handle, a job's
    // stream beside a directive whose identifiers replace it, the FTL's per-plane streams
    // under a policy whose open superblocks place every write.
    let fdp = "[device.ftl]\ngc_frontier = \"separate\"\n[device.placement]\npolicy = \"fdp\"";
    refused(
        fdp,
        "ruh_update_every = \"1MiB\"\n",
        "job[0].ruh_update_every: set on a job whose writes carry no placement identifier (no dataplacement, stream 0), so no handle would be updated; expected dataplacement = \"fdp\"",
    );
    refused(
        fdp,
        "stream = 2\ndataplacement = \"fdp\"\n",
        "job[0].stream: set beside dataplacement = \"fdp\", whose identifiers every write carries instead; expected one of the two",
    );
    refused(
        "[device.ftl]\nstreams = 2\n[device.placement]\npolicy = \"fdp\"",
        "",
        "device.ftl.streams: 2 host write frontiers per plane set under placement policy \"fdp\", whose open superblocks place every write instead; expected streams = 1",
    );
    refused(
        "[device.ftl]\nstreams = 2\n[device.placement]\npolicy = \"multi-stream\"",
        "",
        "device.ftl.streams: 2 host write frontiers per plane set under placement policy \"multi-stream\"",
    );
    // Each alone is what it was: updates of the handle a stream names, the directive alone,
    // streams under per-plane placement.
    let accepted = |device: &str, job: &str| {
        let text = format!(
            "[device]\npreset = \"mlc-sata\"\n[device.geometry]\nblocks_per_plane = 40\npages_per_block = 8\noverprovisioning = 0.3\n{device}\n\
             [[job]]\nrw = \"write\"\nnumber_ios = 1\n{job}"
        );
        parse_config(&text, "ruh.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    };
    accepted(fdp, "stream = 2\nruh_update_every = \"1MiB\"\n");
    accepted(fdp, "dataplacement = \"fdp\"\nruh_update_every = \"1MiB\"\n");
    accepted("[device.ftl]\nstreams = 2", "stream = 1\n");
}

/// The small FDP device of [`device`] in `groups` reclaim groups (each 4 of the 8 chips of
/// every channel), `isolation` as given, with `jobs` in TOML.
fn grouped(groups: u32, isolation: &str, jobs: &str) -> (Simulation, serde_json::Value) {
    let text = format!(
        "[device]\npreset = \"femu-bbssd\"\n[device.geometry]\nblocks_per_plane = 32\npages_per_block = 32\noverprovisioning = 0.3\n\
         [device.ftl]\ngc_threshold = 3\nbg_gc_threshold = 9\ngc_frontier = \"separate\"\n\
         [device.placement]\npolicy = \"fdp\"\nopen_superblocks = 2\nreclaim_groups = {groups}\nisolation = \"{isolation}\"\n{jobs}"
    );
    let cfg = parse_config(&text, "rg.toml", Path::new(".")).unwrap();
    let mut sim = Simulation::new(&cfg).unwrap();
    let r = sim.run(&mut |_| {}).unwrap();
    sim.device().check_invariants().unwrap();
    (sim, r.ssd.placement.expect("superblock placement"))
}

#[test]
fn each_handle_has_a_unit_in_every_reclaim_group_named_by_fio_s_index() {
    // Two groups of two handles: fio's indices 0–3 are handle 0 and 1 of group 0, then of
    // group 1. A reclaim unit is a block on each of the group's 32 planes: 32 × 32 pages of
    // 4 KiB, 4 MiB; 1,500 writes of 4 KiB through index 3 fill one and start a second.
    let (_, p) = grouped(
        2,
        "initial",
        "[[job]]\nrw = \"write\"\nbs = \"4k\"\nnumber_ios = 1500\ndataplacement = \"fdp\"\nplids = \"3\"\n",
    );
    assert_eq!(per_handle(&p), [0, 0, 0, 1500 * 4096]);
    assert_eq!(p["reclaim_groups"], 2);
    // Host slots, then GC's one per group.
    assert_eq!(u64s(&p["superblocks_opened_per_slot"]), [0, 0, 0, 2, 0, 0]);
    // Round robin over every index: each of the four slots.
    let (_, p) = grouped(
        2,
        "initial",
        "[[job]]\nrw = \"write\"\nbs = \"4k\"\nnumber_ios = 1000\ndataplacement = \"fdp\"\n",
    );
    assert_eq!(per_handle(&p), [250 * 4096; 4]);
}

#[test]
fn reclaim_groups_collect_apart_under_both_isolations() {
    // Handle 0 of group 0 and handle 1 of group 1 rewrite their own halves at random until
    // GC has run in both groups: every byte GC moved is counted against a slot, and with
    // persistent isolation each group has a GC slot per handle, of which only the writing
    // handles' are used.
    let jobs = "[[job]]\nname = \"a\"\nrw = \"randwrite\"\nbs = \"4k\"\nsize = \"50%\"\nnumber_ios = 60000\nio_size = \"1000TiB\"\nstream = 1\n\
                [[job]]\nname = \"b\"\nrw = \"randwrite\"\nbs = \"4k\"\noffset = \"50%\"\nsize = \"50%\"\nnumber_ios = 60000\nio_size = \"1000TiB\"\nstream = 4\n";
    for isolation in ["initial", "persistent"] {
        let (sim, p) = grouped(2, isolation, jobs);
        let gc = u64s(&p["gc_bytes_per_slot"]);
        let opened = u64s(&p["superblocks_opened_per_slot"]);
        let copied = sim.device().ftl.stats.gc_units_copied * 4096;
        assert!(copied > 0, "{isolation}: GC must have run");
        assert_eq!(gc.iter().sum::<u64>(), copied, "{isolation}");
        assert_eq!(per_handle(&p), [60_000 * 4096, 0, 0, 60_000 * 4096], "{isolation}");
        if isolation == "initial" {
            // GC's slots 4 (group 0) and 5 (group 1), both used.
            assert_eq!(opened.len(), 6);
            assert!(opened[4] > 0 && opened[5] > 0, "{opened:?}");
        } else {
            // GC slots 4–7: group 0's handle 0 and 1, group 1's; handle 0 writes in group
            // 0 and handle 1 in group 1.
            assert_eq!(opened.len(), 8);
            assert!(opened[4] > 0 && opened[7] > 0, "{opened:?}");
            assert_eq!((opened[5], opened[6]), (0, 0), "{opened:?}");
        }
    }
}

#[test]
fn reclaim_groups_that_do_not_divide_the_chips_are_refused() {
    let refused = |placement: &str, fio: &str, want: &str| {
        let text = format!(
            "[device]\npreset = \"femu-bbssd\"\n[device.geometry]\nblocks_per_plane = 32\npages_per_block = 32\noverprovisioning = 0.3\n\
             [device.ftl]\ngc_threshold = 2\nbg_gc_threshold = 9\ngc_frontier = \"separate\"\n[device.placement]\n{placement}\n[[job]]\nrw = \"read\"\nnumber_ios = 1\n"
        );
        let mut cfg = match parse_config(&text, "rg.toml", Path::new(".")) {
            Ok(c) => c,
            Err(e) => {
                let e = e.to_string();
                assert!(e.contains(want), "{e}");
                assert!(!e.contains('\n'), "{e}");
                return;
            }
        };
        let e = cfg.set_jobs_from_fio("rg.fio", fio).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
    };
    refused(
        "policy = \"fdp\"\nreclaim_groups = 3",
        "",
        "device.placement.reclaim_groups: got 3 for 8 chips per channel; expected a divisor of 8",
    );
    refused(
        "policy = \"fdp\"\nreclaim_groups = 8\nopen_superblocks = 9",
        "",
        "device.placement.reclaim_groups: 8 groups of 9 handles make 72 placement handles; expected at most 64",
    );
    refused(
        "policy = \"multi-stream\"\nreclaim_groups = 2",
        "",
        "device.placement.reclaim_groups: set under placement policy \"multi-stream\", which does not use it; expected policy = fdp",
    );
    refused(
        "policy = \"fdp\"\nreclaim_groups = 8\nwidth = \"1/2\"",
        "",
        "device.placement.width: got 1 chips per channel in each of the 8 reclaim groups; expected a multiple of 2",
    );
    refused(
        "policy = \"fdp\"\nreclaim_groups = 2\nopen_superblocks = 2",
        &format!("{JOB}fdp=1\nfdp_pli=4\n"),
        "job[0].plids: placement identifier index 4 names no handle of the device's 4; expected indices below 4",
    );
}

/// The examples' FDP drive (docs/fdp.md) with `groups` reclaim groups, preconditioned
/// `precondition` ("none" or "steady").
fn with_groups(groups: u32, precondition: &str) -> Config {
    let text = format!(
        "[device]\npreset = \"mlc-sata\"\n[device.geometry]\nblocks_per_plane = 128\noverprovisioning = 0.10\n\
         [device.placement]\npolicy = \"fdp\"\nopen_superblocks = 4\nreclaim_groups = {groups}\n\
         [precondition]\nmode = \"{precondition}\"\n[[job]]\nrw = \"read\"\nnumber_ios = 1\n"
    );
    parse_config(&text, "fdp.toml", Path::new(".")).unwrap()
}

#[test]
fn writes_without_an_identifier_spread_over_the_reclaim_groups() {
    // A plain sequential job writing 60 % of the drive on two groups: each group's handle 0
    // takes every other write (the controller's choice, docs/fdp.md), so neither group's
    // half of the flash is asked to hold more than it has. On bbcad2e every write went to
    // group 0 and GC grew its record without bound until the run aborted.
    let mut cfg = with_groups(2, "none");
    cfg.set_jobs_from_fio("p.fio", "[seq]\nrw=write\nbs=128k\nsize=60%\n")
        .unwrap();
    let r = Simulation::new(&cfg).unwrap().run(&mut |_| {}).unwrap();
    let h = per_handle(r.ssd.placement.as_ref().unwrap());
    assert_eq!(h.len(), 8);
    assert!(h[0] > 0 && h[0] == h[4], "{h:?}");
    assert_eq!(h.iter().sum::<u64>(), r.jobs[0].write.io_bytes);
    // Preconditioned to steady state, the same spreading: it converges where all of it in
    // group 0 could not ("makes no progress" on bbcad2e).
    let cfg = with_groups(2, "steady");
    Simulation::new(&cfg).unwrap();
}

#[test]
fn a_reclaim_group_asked_to_hold_more_than_its_flash_is_refused_at_once() {
    // Every write on handle 0 of group 0 (fio's fdp_pli=0): 60 % of the drive in half of
    // its flash. GC there finds only wholly valid superblocks; the run ends in one line
    // naming the key, with nothing grown (bbcad2e aborted on a 4 GiB allocation).
    let mut cfg = with_groups(2, "none");
    cfg.set_jobs_from_fio("p.fio", "[seq]\nrw=write\nbs=128k\nsize=60%\nfdp=1\nfdp_pli=0\n")
        .unwrap();
    let e = match Simulation::new(&cfg).unwrap().run(&mut |_| {}) {
        Ok(_) => panic!("60 % of the drive fits in one group's half"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.starts_with("device.placement.reclaim_groups: garbage collection in reclaim group 0")
            && e.contains("; expected"),
        "{e}"
    );
    // Half of that fits.
    let mut cfg = with_groups(2, "none");
    cfg.set_jobs_from_fio("p.fio", "[seq]\nrw=write\nbs=128k\nsize=25%\nfdp=1\nfdp_pli=0\n")
        .unwrap();
    assert!(Simulation::new(&cfg).unwrap().run(&mut |_| {}).is_ok());
}

#[test]
fn the_two_wafs_count_the_same_pages_over_units_touched_and_over_bytes() {
    // 2 KiB writes on 4 KiB mapping units: each touches a whole unit (the FTL programs
    // whole units), so `ssd.waf`, over the units the host's writes touched, is half of FDP's
    // media bytes over host bytes (fdp_statistics), which counts the bytes the host sent.
    let text = "[device]\npreset = \"femu-bbssd\"\n[device.geometry]\nblocks_per_plane = 32\npages_per_block = 32\noverprovisioning = 0.3\n\
         [device.ftl]\ngc_threshold = 3\nbg_gc_threshold = 9\ngc_frontier = \"separate\"\n\
         [device.placement]\npolicy = \"fdp\"\nopen_superblocks = 2\n\
         [[job]]\nrw = \"randwrite\"\nbs = \"2k\"\nblockalign = \"4k\"\nsize = \"20%\"\nnumber_ios = 60000\nio_size = \"1000TiB\"\ndataplacement = \"fdp\"\nplids = \"1\"\n";
    let cfg = parse_config(text, "waf.toml", Path::new(".")).unwrap();
    let r = Simulation::new(&cfg).unwrap().run(&mut |_| {}).unwrap();
    let p = r.ssd.placement.as_ref().unwrap();
    let s = &p["fdp_statistics"];
    let (host_bytes, media) = (
        s["host_bytes_written"].as_u64().unwrap(),
        s["media_bytes_written"].as_u64().unwrap(),
    );
    let unit = r.ssd.host["unit_bytes"].as_u64().unwrap();
    let units = r.ssd.host["write_units"].as_u64().unwrap();
    assert_eq!(host_bytes, 60000 * 2048);
    assert_eq!(units, 60000, "each 2 KiB write touches one whole unit");
    let by_bytes = media as f64 / host_bytes as f64;
    let by_units = media as f64 / (units * unit) as f64;
    assert!(by_units > 1.0, "GC moved data: {by_units}");
    assert!((r.ssd.waf - by_units).abs() < 1e-3, "{} against {by_units}", r.ssd.waf);
    assert!(
        (by_bytes - 2.0 * by_units).abs() < 1e-9,
        "{by_bytes} against 2 × {by_units}"
    );
}

#[test]
fn an_array_of_fdp_drives_reports_each_member_s_handles_and_adds_only_what_adds_up() {
    // RAID 0 over two copies of the small FDP drive, one reclaim group of 2 handles each;
    // the volume's writes carry no identifier (an array passes none on).
    let text = "[device]\npreset = \"femu-bbssd\"\n[device.geometry]\nblocks_per_plane = 32\npages_per_block = 32\noverprovisioning = 0.3\n\
         [device.ftl]\ngc_threshold = 3\nbg_gc_threshold = 9\ngc_frontier = \"separate\"\n\
         [device.placement]\npolicy = \"fdp\"\nopen_superblocks = 2\n\
         [array]\nlayout = \"raid0\"\nstripe_unit = \"64KiB\"\n[[array.member]]\nname = \"a\"\n[[array.member]]\nname = \"b\"\n\
         [[job]]\nrw = \"randwrite\"\nbs = \"4k\"\nsize = \"50%\"\nnumber_ios = 40000\nio_size = \"1000TiB\"\n";
    let cfg = parse_config(text, "fdp-array.toml", Path::new(".")).unwrap();
    let r = Simulation::new(&cfg).unwrap().run(&mut |_| {}).unwrap();
    let p = r.ssd.placement.as_ref().expect("placement of the volume");
    // No count of handles or groups summed across drives, no per-slot list joined.
    for k in [
        "open_superblocks",
        "reclaim_groups",
        "waf_per_slot",
        "host_bytes_per_slot",
        "gc_bytes_per_slot",
    ] {
        assert!(p.get(k).is_none(), "{k} at the volume: {p}");
    }
    assert_eq!(p["policy"], "fdp");
    let members = p["members"].as_array().unwrap();
    assert_eq!(members.len(), 2);
    let mut host_total = 0;
    for (i, m) in members.iter().enumerate() {
        assert_eq!(
            (m["member"].as_u64(), m["name"].as_str()),
            (Some(i as u64), Some(["a", "b"][i]))
        );
        assert_eq!(
            (m["open_superblocks"].as_u64(), m["reclaim_groups"].as_u64()),
            (Some(2), Some(1))
        );
        // Its own two handles' host bytes (GC's slot is in its own list, after them).
        let host = u64s(&m["host_bytes_per_slot"]);
        assert_eq!(host.len(), 2, "{m}");
        assert!(host.iter().sum::<u64>() > 0, "{m}");
        assert_eq!(m["waf_per_slot"].as_array().unwrap().len(), 2);
        assert_eq!(u64s(&m["gc_bytes_per_slot"]).len(), 3, "{m}");
        host_total += host.iter().sum::<u64>();
    }
    // What adds: the host's bytes (the volume's 40,000 writes of 4 KiB), the log page.
    assert_eq!(host_total, 40000 * 4096);
    assert_eq!(p["fdp_statistics"]["host_bytes_written"].as_u64(), Some(host_total));
    let opened: u64 = members.iter().map(|m| m["superblocks_opened"].as_u64().unwrap()).sum();
    assert_eq!(p["superblocks_opened"].as_u64(), Some(opened));
}
