//! Property tests over the whole config and job-file schema: any value of any key gives
//! either a config that builds and runs, or a one-line error that names the key. Never a
//! panic.

use proptest::prelude::*;
use ssdlab_core::config::parse_config_with;
use std::path::Path;

/// A small device that runs in milliseconds; its job is short whatever a value changes.
const BASE: &str = r#"
[device]
preset = "mlc-sata"
[device.geometry]
channels = 2
ways = 1
blocks_per_plane = 256
pages_per_block = 64
[precondition]
mode = "none"
[[job]]
rw = "randrw"
number_ios = 200
"#;

/// Every key of the schema: the leaves of a resolved config (all defaults written out) and
/// the optional keys that serialise to nothing when unset.
fn schema_keys() -> Vec<String> {
    let cfg = parse_config_with(BASE, "base.toml", Path::new("."), &[]).unwrap();
    let v = toml::Value::try_from(&cfg).unwrap();
    let mut keys: Vec<String> = ssdlab_core::config::leaf_keys(&v).into_iter().map(|(k, _)| k).collect();
    for (k, _) in ssdlab_core::config::UNSET_KEYS {
        let k = k.replace("job.", "job.0.");
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

/// Keys whose values set how long a run is: such configs are built, not run.
const LENGTH_KEYS: &[&str] = &[
    "number_ios",
    "io_size",
    "runtime",
    "ramp_time",
    "rate_iops",
    "time_based",
    "size",
    "offset",
    "bs",
    "bssplit",
    "iodepth",
    "numjobs",
    "mode",
    "utilisation",
    "max_overwrites",
    "min_overwrites",
    "trace",
    "replay",
    "blocks_per_plane",
    "pages_per_block",
    "channels",
    "ways",
    "dies_per_chip",
    "planes_per_die",
];

fn toml_value() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "0",
            "1",
            "-1",
            "2",
            "7",
            "64",
            "100",
            "255",
            "256",
            "4096",
            "65536",
            "4294967295",
            "4294967296",
            "9223372036854775807",
            "-9223372036854775808",
            "0.0",
            "0.5",
            "1e-9",
            "1e300",
            "-1.5",
            "nan",
            "inf",
            "true",
            "false",
            "[]",
            "[1, 2]",
            "[\"75us\"]",
            "[\"program\", \"erase\"]",
            "{}",
            "{ a = 1 }",
            "\"\"",
            "\"0\"",
            "\"4KiB\"",
            "\"4k\"",
            "\"1PiB\"",
            "\"75us\"",
            "\"0s\"",
            "\"2s\"",
            "\"1e-9s\"",
            "\"600MB/s\"",
            "\"0MB/s\"",
            "\"50%\"",
            "\"150%\"",
            "\"zipf:1.1\"",
            "\"pareto:2\"",
            "\"greedy\"",
            "\"fcfs\"",
            "\"tlc\"",
            "\"sata3\"",
            "\"open\"",
            "\"4k/50:8k/50\"",
            "\"x\"",
        ])
        .prop_map(String::from),
        any::<i64>().prop_map(|v| v.to_string()),
        "[a-zA-Z0-9%./: ]{0,10}".prop_map(|s| format!("{s:?}")),
    ]
}

proptest! {
    // A fixed seed: the suite is deterministic; change it (or set more cases) to explore.
    #![proptest_config(ProptestConfig {
        cases: 400,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed_0008),
        ..ProptestConfig::default()
    })]
    #[test]
    fn any_value_of_any_key_runs_or_names_the_key(key_i in any::<prop::sample::Index>(), value in toml_value()) {
        let keys = schema_keys();
        let key = &keys[key_i.index(keys.len())];
        let set = format!("{key}={value}");
        match parse_config_with(BASE, "base.toml", Path::new("."), std::slice::from_ref(&set)) {
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(!msg.contains('\n'), "{set}: {msg}");
                prop_assert!(msg.contains("; expected") || msg.contains(" expected "), "{set}: {msg}");
                let canonical = ssdlab_core::source::canonical_key(key);
                // The key itself, or the command-line setting that set it (an error found
                // on a neighbour, such as a reserve the spare blocks cannot hold, names the
                // neighbour).
                prop_assert!(
                    msg.contains(&canonical) || msg.starts_with(&format!("--set {set}")) || msg.contains("device.") || msg.contains("job["),
                    "{set}: the message names no key: {msg}"
                );
            }
            Ok(cfg) => {
                let need = ssdlab_core::sim::memory_estimate(&cfg).unwrap();
                if need > 256 << 20 {
                    return Ok(());
                }
                let leaf = key.rsplit('.').next().unwrap();
                // Log keys would create their files in the crate's folder: parsed, not built.
                if leaf.ends_with("_log") {
                    return Ok(());
                }
                                let mut sim = match ssdlab_core::Simulation::new(&cfg) {
                    Ok(s) => s,
                    Err(e) => {
                        let msg = e.to_string();
                        prop_assert!(!msg.contains('\n'), "{set}: {msg}");
                        return Ok(());
                    }
                };
                if !LENGTH_KEYS.contains(&leaf) {
                                        if let Err(e) = sim.run(&mut |_| {}) {
                        let msg = e.to_string();
                        prop_assert!(!msg.contains('\n'), "{set}: {msg}");
                    }
                }
            }
        }
    }

    /// The keys of `[job.fs]`, on a job running one of the applications.
    #[test]
    fn any_value_of_any_fs_key_runs_or_names_the_key(
        app in prop::sample::select(ssdlab_core::workload::fs::app_names()),
        key in prop::sample::select(ssdlab_core::workload::fs::FsJob::KEYS.to_vec()),
        value in toml_value(),
    ) {
        let text = format!("{BASE}[job.fs]\napp = \"{app}\"\n");
        let set = format!("job.0.fs.{key}={value}");
        match parse_config_with(&text, "base.toml", Path::new("."), std::slice::from_ref(&set)) {
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(!msg.contains('\n'), "{app} {set}: {msg}");
                prop_assert!(msg.contains("; expected"), "{app} {set}: {msg}");
                // The key, or the job's size when the data set does not fit its region.
                prop_assert!(
                    msg.contains(&format!("job[0].fs.{key}")) || msg.contains("job[0].fs") || msg.contains("job[0].size"),
                    "{app} {set}: the message names no key: {msg}"
                );
            }
            Ok(cfg) => {
                let mut sim = ssdlab_core::Simulation::new(&cfg).unwrap();
                let r = sim.run(&mut |_| {});
                prop_assert!(r.is_ok(), "{app} {set}: {:?}", r.err());
                sim.device().check_invariants().unwrap();
            }
        }
    }

    /// The keys of `[job.hpc]` (the HPC-like generator).
    #[test]
    fn any_value_of_any_hpc_key_runs_or_names_the_key(
        key in prop::sample::select(ssdlab_core::workload::hpc::HpcJob::KEYS.to_vec()),
        value in toml_value(),
    ) {
        let text = format!("{BASE}[job.hpc]\n");
        let set = format!("job.0.hpc.{key}={value}");
        match parse_config_with(&text, "base.toml", Path::new("."), std::slice::from_ref(&set)) {
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(!msg.contains('\n'), "{set}: {msg}");
                prop_assert!(msg.contains("; expected"), "{set}: {msg}");
                prop_assert!(
                    msg.contains(&format!("job[0].hpc.{key}")) || msg.contains("job[0].size"),
                    "{set}: the message names no key: {msg}"
                );
            }
            Ok(cfg) => {
                let mut sim = ssdlab_core::Simulation::new(&cfg).unwrap();
                match sim.run(&mut |_| {}) {
                    Ok(_) => sim.device().check_invariants().unwrap(),
                    // Arrivals so rare that they pass the simulated-time horizon.
                    Err(e) => {
                        let msg = e.to_string();
                        prop_assert!(!msg.contains('\n') && msg.contains("hpc.rate: "), "{set}: {msg}");
                    }
                }
            }
        }
    }

    #[test]
    fn any_value_of_any_fio_option_parses_or_names_it(
        key in prop::sample::select(vec![
            "rw", "readwrite", "rwmixread", "rwmixwrite", "bs", "blocksize", "bssplit", "iodepth", "numjobs",
            "offset", "size", "filesize", "io_size", "number_ios", "runtime", "ramp_time", "time_based",
            "random_distribution", "randseed", "rate_iops", "stream",
        ]),
        value in prop_oneof![
            prop::sample::select(vec!["0", "1", "-1", "4k", "4K", "1g", "100", "101", "4294967296",
                "18446744073709551616", "50%", "zipf:0", "pareto:0.5", "normal:200", "4k/50:8k/60",
                "randrw", "1e-9", "", " "]).prop_map(String::from),
            "\\PC{0,12}",
        ],
    ) {
        let text = format!("[global]\nbs=4k\n[j]\nrw=randread\n{key}={value}\nnumber_ios=100\n");
        let base = parse_config_with(BASE, "base.toml", Path::new("."), &[]).unwrap();
        let mut cfg = base.clone();
        if let Err(e) = cfg.set_jobs_from_fio("j.fio", &text) {
            let msg = e.to_string();
            prop_assert!(!msg.contains('\n'), "{key}={value}: {msg}");
            prop_assert!(msg.starts_with("j.fio:"), "{key}={value}: {msg}");
            prop_assert!(msg.contains("; expected"), "{key}={value}: {msg}");
        }
    }
}
