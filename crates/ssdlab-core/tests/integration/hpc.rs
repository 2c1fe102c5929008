//! The HPC-like generator (`[job.hpc]`) through the loader and the host model: its keys'
//! errors at their lines, and open-loop arrivals.

use ssdlab_core::{parse_config, Simulation};

#[test]
fn the_host_model_issues_at_the_arrival_times() {
    // 2,000 requests at 2,000 IOPS arrive over about a second (sd 2.2 %), whatever the
    // device's speed: open loop. Closed loop at iodepth 1 would be done in a fraction.
    let text = run_file("number_ios = 2000\nsize = \"16MiB\"", "");
    let cfg = parse_config(&text, "h.toml", std::path::Path::new(".")).unwrap();
    let mut sim = Simulation::new(&cfg).unwrap();
    let res = sim.run(&mut |_| {}).unwrap();
    sim.device().check_invariants().unwrap();
    let j = &res.jobs[0];
    assert_eq!(j.ssdlab.source, "hpc");
    assert!(j.ssdlab.open_loop.is_some());
    assert_eq!(j.read.total_ios + j.write.total_ios, 2000);
    let end = j.ssdlab.last_completion_ns as f64;
    assert!((end - 1e9).abs() < 0.11e9, "last completion at {end} ns");
}

/// A run file with one `[[job]]` (of `extra` keys) and its `[job.hpc]` table.
fn run_file(extra: &str, hpc: &str) -> String {
    format!(
        "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nchannels = 1\nblocks_per_plane = 64\noverprovisioning = 0.25\n[[job]]\n{extra}\n[job.hpc]\n{hpc}\n"
    )
}

#[test]
fn each_bad_key_is_named_at_its_line() {
    let parse = |text: &str| {
        parse_config(text, "h.toml", std::path::Path::new("."))
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    for (extra, hpc, want) in [
        ("", "read_share = 1.5", "h.toml:10:1: job[0].hpc.read_share: got 1.5; expected a share from 0 to 1"),
        ("", "read_share = -0.1", "h.toml:10:1: job[0].hpc.read_share: got -0.1; expected a share from 0 to 1"),
        ("", "read_locality = 2", "h.toml:10:1: job[0].hpc.read_locality: got 2; expected a share from 0 to 1"),
        ("", "sequentiality = nan", "h.toml:10:1: job[0].hpc.sequentiality: got NaN; expected a share from 0 to 1"),
        ("", "rate = 0", "h.toml:10:1: job[0].hpc.rate: got 0; expected a positive rate in requests per second, at most 1e9"),
        ("", "rate = 2e9", "h.toml:10:1: job[0].hpc.rate: got 2000000000; expected a positive rate"),
        ("", "hot_share = 1.0", "h.toml:10:1: job[0].hpc.hot_share: got 1; expected a share of the region above 0 and below 1"),
        (
            "size = \"64KiB\"",
            "hot_share = 0.01",
            "h.toml:10:1: job[0].hpc.hot_share: got 0.01: a hot read set of 0 of the region's 16 blocks of 4KiB; expected a share that holds at least one block",
        ),
        ("", "bs = 1000", "h.toml:10:1: job[0].hpc.bs: got 1000B; expected a multiple of 512 bytes"),
        ("size = \"64KiB\"", "bs = \"64KiB\"", "h.toml:10:1: job[0].hpc.bs: got 64KiB; expected a multiple of 512 bytes from 512B to half the job's region (32KiB)"),
        ("", "bs = \"4k\"\nwhat = 1", "h.toml:11:1: job[0].hpc.what: unknown key `what`; expected one of"),
        ("", "rate = \"fast\"", "h.toml:10:1: job[0].hpc.rate: invalid type: string \"fast\"; expected a number"),
        ("rate_iops = 100", "", "h.toml:8:1: job[0].rate_iops: set on an HPC job; expected none"),
        ("[job.fs]\napp = \"fio\"", "", "job[0].hpc: set on a file-system job; expected either [job.hpc] or [job.fs], not both"),
        ("[job.trace]\nfile = \"t.csv\"", "", "job[0].hpc: set on a job that replays a trace; expected either [job.hpc] or [job.trace], not both"),
    ] {
        let e = parse(&run_file(extra, hpc)).unwrap_err();
        assert!(e.contains(want), "{extra} / {hpc}:\n  got      {e}\n  expected {want}");
        assert!(!e.contains('\n'), "{e}");
    }
    parse(&run_file("size = \"64KiB\"", "hot_share = 0.07\nbs = \"4KiB\"")).unwrap();
}
