//! `ssdlab lint` from the command line: real traces (figures checked against the trace
//! recomputed here), text and JSON, a run file's jobs, and bad input (one line, status 2).

use crate::common::{refused, shared, ssdlab};
use std::collections::HashMap;

/// A smaller mlc-sata: 64 planes of 64 blocks (8 GiB), with the spare blocks for a second
/// write stream.
const DEVICE: [&str; 6] = [
    "--device",
    "mlc-sata",
    "--set",
    "device.geometry.blocks_per_plane=64",
    "--set",
    "device.geometry.overprovisioning=0.25",
];

fn lint_json(args: &[&str]) -> serde_json::Value {
    let o = ssdlab(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    assert!(
        o.stderr.is_empty(),
        "no progress off a terminal: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

fn finding(r: &serde_json::Value, principle: u64) -> &serde_json::Value {
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["principle"] == principle)
        .unwrap()
}

fn figure(f: &serde_json::Value, name: &str) -> f64 {
    f["measured"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap()["value"]
        .as_f64()
        .unwrap()
}

#[test]
fn a_real_trace_in_json_with_figures_recomputed_here() {
    let Some(dir) = shared(&["msr.cut.per_10k.rw_20_80.105.trace"]) else {
        return;
    };
    let file = dir.join("msr.cut.per_10k.rw_20_80.105.trace");
    let path = file.to_str().unwrap();
    let mut args = vec!["lint", path, "--output-format", "json"];
    args.extend(DEVICE);
    let r = lint_json(&args);
    // The trace recomputed: `time_ms device offset bytes op`, op 0 = write.
    let text = std::fs::read_to_string(&file).unwrap();
    let (mut writes, mut bytes, mut unit_bytes, mut page_writes, mut updates) = (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut seen: HashMap<u64, u64> = HashMap::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        let (off, len): (u64, u64) = (f[2].parse().unwrap(), f[3].parse().unwrap());
        if f[4] == "0" {
            writes += 1;
            bytes += len;
            unit_bytes += ((off + len).div_ceil(4096) - off / 4096) * 4096;
            for p in off / 4096..=(off + len - 1) / 4096 {
                let c = seen.entry(p).or_insert(0);
                updates += (*c > 0) as u64;
                *c += 1;
                page_writes += 1;
            }
        }
    }
    assert_eq!(r["workload"]["requests"], 10000);
    assert_eq!(r["workload"]["writes"], writes);
    assert_eq!(r["workload"]["write_bytes"], bytes);
    assert_eq!(r["workload"]["format"], "msr-cut");
    // 8 GiB physical in 4 KiB units, 1.25 times the logical ones.
    assert_eq!(r["device"]["logical_bytes"], (8u64 << 30) / 4096 * 4 / 5 * 4096);
    let f1 = finding(&r, 1);
    assert_eq!(figure(f1, "update_share"), updates as f64 / page_writes as f64);
    let f3 = finding(&r, 3);
    assert_eq!(figure(f3, "unit_bytes_per_byte"), unit_bytes as f64 / bytes as f64);
    // 15 % of the bytes programmed carry no data: above the 1.1 threshold.
    assert_eq!(f3["verdict"], "warn");
    let packed = &f3["what_if"]["scenarios"][1];
    assert_eq!(packed["name"], "packed");
    assert_eq!(packed["rmw_reads"], 0);
    for p in 1..=7 {
        let f = finding(&r, p);
        let v = f["verdict"].as_str().unwrap();
        assert!(["ok", "warn", "n/a"].contains(&v), "{p}: {v}");
        assert!(!f["threshold"]["why"].as_str().unwrap().is_empty());
        assert!(!f["reason"].as_str().unwrap().is_empty());
    }
    // Every request is under 8 KiB x 64 planes: no large I/O.
    assert_eq!(finding(&r, 7)["verdict"], "n/a");
    let sweep = finding(&r, 6)["what_if"]["sweep"].as_array().unwrap().clone();
    assert_eq!(sweep.len(), 9);
    assert!(sweep[8]["throughput_mb_s"].as_f64() > sweep[0]["throughput_mb_s"].as_f64());
}

#[test]
fn a_compressed_trace_in_text() {
    // A file of ../shared/traces outside the catalogue: SSDLAB_TRACES names that folder.
    let Some(dir) = shared(&["systor17-traces-sample.csv.gz"]) else {
        return;
    };
    let file = dir.join("systor17-traces-sample.csv.gz");
    let mut args = vec!["lint", file.to_str().unwrap(), "--check", "3", "--check", "7"];
    args.extend(DEVICE);
    let o = ssdlab(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.starts_with("workload: "), "{out}");
    assert!(
        out.contains("(systor17, 999 requests, at its timestamps over "),
        "{out}"
    );
    assert!(
        out.contains("\n3. Scattered small updates: write whole mapping units ["),
        "{out}"
    );
    assert!(
        out.contains("\n7. Large I/O: few outstanding requests are enough ["),
        "{out}"
    );
    assert!(!out.contains("\n1. "), "only the checks asked for: {out}");
    for l in ["   measured:  ", "   threshold: ", "   verdict:   ", "   what-if:   "] {
        assert!(out.contains(l), "{l}: {out}");
    }
}

#[test]
fn a_run_files_jobs_on_their_own_device() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("jobs.toml");
    std::fs::write(
        &cfg,
        "[device]\npreset = \"mlc-sata\"\n[device.geometry]\nblocks_per_plane = 64\noverprovisioning = 0.25\n[[job]]\nrw = \"randread\"\nbs = \"4KiB\"\niodepth = 1\nnumber_ios = 3000\n",
    )
    .unwrap();
    let r = lint_json(&["lint", cfg.to_str().unwrap(), "--check", "6", "--output-format", "json"]);
    assert_eq!(r["workload"]["timing"]["kind"], "closed");
    assert_eq!(r["workload"]["requests"], 3000);
    assert_eq!(r["device"]["name"], "mlc-sata");
    let f = finding(&r, 6);
    assert_eq!(figure(f, "concurrency"), 1.0);
    assert_eq!(f["verdict"], "warn", "{}", f["reason"]);
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let w = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_string_lossy().into_owned()
    };
    let bad_line = w("bad.trace", "0.000 0 4096 4096 0\n1.000 0 x 4096 0\n");
    let good = w("good.trace", "0.000 0 4096 4096 0\n1.000 0 8192 4096 1\n");
    let huge = w("huge.trace", "0.000 0 0 4096 0\n1.000 0 1099511627776 4096 0\n");
    let replay = w(
        "replay.toml",
        "[device]\npreset = \"mlc-sata\"\n[[job]]\n[job.trace]\nfile = \"good.trace\"\n",
    );
    let nojobs = w("nojobs.toml", "job = []\n[device]\npreset = \"mlc-sata\"\n");
    let dirname = d.to_string_lossy().into_owned();
    refused(
        &["lint", "no/such.trace"],
        "no/such.trace: no such file; expected a trace or a run file",
    );
    refused(&["lint", &dirname], &format!("{dirname}: is a directory; expected"));
    refused(
        &["lint", &bad_line],
        &format!("{bad_line}:2: offset: 'x' is not an integer"),
    );
    refused(
        &["lint", &good, "--format", "nope"],
        "--format: unknown trace format 'nope'",
    );
    refused(&["lint", &good, "--device", "nosuch"], "nosuch: no such file or preset");
    refused(
        &["lint", &good, "--set", "device.ftl.gc_policy=lru"],
        "--set device.ftl.gc_policy=lru: device.ftl.gc_policy: unknown GC policy",
    );
    refused(
        &["lint", &good, "--utilisation", "1.5"],
        "--utilisation: got '1.5'; expected a share above 0 and below 1",
    );
    refused(
        &["lint", &good, "--max-requests", "0"],
        "--max-requests: invalid value '0'; expected a whole number of at least 1",
    );
    refused(
        &["lint", &good, "--speed", "0"],
        "--speed: got '0'; expected a positive factor",
    );
    refused(&["lint", &good, "--check", "9"], "--check: ");
    refused(
        &["lint", &good, "--max-memory", "1MiB"],
        "--max-memory: the lint needs about",
    );
    let mut args = vec!["lint", &huge, "--max-pages", "1"];
    args.extend(DEVICE);
    refused(
        &args,
        &format!("{huge}:2: offset: the request at offset 1099511627776 of 4096 bytes needs more than 1 pages"),
    );
    refused(
        &["lint", &replay],
        &format!("{replay}:4:6: job[0].trace: a trace replay job; expected generated jobs"),
    );
    refused(
        &["lint", &nojobs],
        &format!("{nojobs}: no [[job]]; expected a run file with jobs"),
    );
    refused(&["lint"], "WORKLOAD: missing; expected it on the command line");
}
