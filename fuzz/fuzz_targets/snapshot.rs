//! Snapshot files edited after they were written, their checksum recomputed: refused with one
//! line or a run that ends, never a panic (`ssdlab_core::contract::check_snapshot_edits`).
//! The input is a list of edits (5 bytes each: an offset, a byte) to a snapshot of a small
//! drive preconditioned once per process.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab_core::config::{parse_config, Config};
use std::sync::OnceLock;

const RUN: &str = r#"
[device]
preset = "mlc-sata"
[device.geometry]
channels = 2
ways = 2
blocks_per_plane = 64
pages_per_block = 64
overprovisioning = 0.15
[precondition]
mode = "steady"
utilisation = 0.9
max_overwrites = 1.0
[[job]]
rw = "randrw"
bs = "4KiB"
number_ios = 1000
"#;

struct Seed {
    _dir: tempfile::TempDir,
    path: String,
    good: Vec<u8>,
    cfg: Config,
}

fn seed() -> &'static Seed {
    static SEED: OnceLock<Seed> = OnceLock::new();
    SEED.get_or_init(|| {
        let cfg = parse_config(RUN, "fuzz.toml", std::path::Path::new(".")).unwrap();
        let (device, report) =
            ssdlab_core::aged::preconditioned(&cfg.device, &cfg.precondition, &mut |_, _| {}).unwrap();
        let snap = ssdlab_core::snapshot::Snapshot {
            device: cfg.device.clone(),
            precondition: cfg.precondition.clone(),
            report,
            ftl: device.ftl,
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.snap").display().to_string();
        snap.save(&path).unwrap();
        let good = std::fs::read(&path).unwrap();
        Seed { _dir: dir, path, good, cfg }
    })
}

fuzz_target!(|data: &[u8]| {
    let s = seed();
    ssdlab_core::contract::check_snapshot_edits(&s.good, data, &s.path, &s.cfg);
});
