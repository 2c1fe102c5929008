//! `ssdlab trace ...` end to end.

use std::path::{Path, PathBuf};
use std::process::Command;

fn ssdlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shared traces folder, or `None` (test skipped) when it is absent outside CI.
fn shared() -> Option<PathBuf> {
    let d = repo().join("../shared/traces");
    if d.is_dir() {
        Some(d)
    } else if std::env::var_os("CI").is_some() {
        panic!("{} is missing and CI is set", d.display());
    } else {
        eprintln!("skipping: {} not found", d.display());
        None
    }
}

#[test]
fn stats_json_on_shared_trace() {
    let Some(dir) = shared() else { return };
    let out = ssdlab()
        .args(["trace", "stats", "--output-format", "json"])
        .arg(dir.join("tpcc-small.trace"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("guessed format: mqsim"));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "mqsim");
    assert_eq!(v["requests"], 6999);
    let reads = v["ops"]["read"].as_u64().unwrap() as f64;
    assert!((reads / 6999.0 - 0.63).abs() < 0.01);
    assert!(v["footprint_pages"].as_u64().unwrap() > 0);
    assert_eq!(v["read_concentration"].as_array().unwrap().len(), 4);
    // Same output twice: deterministic.
    let again = ssdlab()
        .args(["trace", "stats", "--output-format", "json"])
        .arg(dir.join("tpcc-small.trace"))
        .output()
        .unwrap();
    assert_eq!(out.stdout, again.stdout);
}

#[test]
fn stats_text_device_filter_and_errors() {
    let sample = repo().join("tests/data/traces/tencent-sample.csv");
    let out = ssdlab()
        .args(["trace", "stats", "--device", "27"])
        .arg(&sample)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("requests:        2"), "{text}");
    // A malformed file: exit 2, file and line in the message; with --skip-bad-lines, counted.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.trace");
    std::fs::write(&bad, "0 0 100 8 1\n1 0 1x0 8 1\n2 0 100 8 0\n").unwrap();
    let out = ssdlab()
        .args(["trace", "stats", "--format", "mqsim"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ssdlab: error:") && err.contains("bad.trace:2:"), "{err}");
    let out = ssdlab()
        .args([
            "trace",
            "stats",
            "--format",
            "mqsim",
            "--skip-bad-lines",
            "--output-format",
            "json",
        ])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["requests"].as_u64(), v["skipped_lines"].as_u64()),
        (Some(2), Some(1))
    );
}

#[test]
fn convert_and_formats() {
    let dir = tempfile::tempdir().unwrap();
    let sample = repo().join("tests/data/traces/fio-v2-sample.iolog");
    let native = dir.path().join("s.native");
    let out = ssdlab()
        .args(["trace", "convert", "--to", "native", "-o"])
        .arg(&native)
        .arg(&sample)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Native needs -o.
    let out = ssdlab()
        .args(["trace", "convert", "--to", "native"])
        .arg(&sample)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Back to a fio iolog on standard output.
    let out = ssdlab()
        .args(["trace", "convert", "--to", "fio-iolog"])
        .arg(&native)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("fio version 3 iolog\n"), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(" trim ")).count(), 1);
    let out = ssdlab().args(["trace", "formats"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for f in [
        "msr",
        "spc",
        "blkparse",
        "fio-iolog",
        "tencent",
        "cloudphysics",
        "native",
    ] {
        assert!(text.lines().any(|l| l.starts_with(f)), "{f} missing from\n{text}");
    }
}
