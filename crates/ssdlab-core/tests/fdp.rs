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
}
