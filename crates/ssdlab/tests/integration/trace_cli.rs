//! `ssdlab trace ...` end to end.

use std::path::{Path, PathBuf};
use std::process::Command;

fn ssdlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The traces folder when it holds `names`, or `None` (test skipped; a failure under CI).
fn shared(names: &[&str]) -> Option<PathBuf> {
    ssdlab_core::trace::catalogue::for_test(names)
}

#[test]
fn stats_json_on_shared_trace() {
    let Some(dir) = shared(&["tpcc-small.trace"]) else {
        return;
    };
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

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ssdlab-trace-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run `ssdlab ARGS`; (status, stdout, stderr).
fn run(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = ssdlab().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every bad input of a trace command: exit status 2 and one line
/// `ssdlab: error: ...; expected ...`, never a panic.
#[test]
fn bad_inputs_exit_2_with_one_line() {
    let dir = tmp("bad");
    let empty = dir.join("empty.trace");
    std::fs::write(&empty, b"").unwrap();
    let latin = dir.join("latin.trace");
    std::fs::write(&latin, b"0 0 100 8 1\n0 0 1\xff0 8 1\n").unwrap();
    let bad = dir.join("bad.csv");
    std::fs::write(
        &bad,
        "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295514878,hm,0,Write,11x55,512,1\n",
    )
    .unwrap();
    let gz = dir.join("cut.gz");
    std::fs::write(&gz, [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0x33]).unwrap();
    let s = |p: &Path| p.as_os_str().to_owned();
    let o = |x: &str| std::ffi::OsString::from(x);
    let cases: Vec<(Vec<std::ffi::OsString>, String)> = vec![
        (
            vec![o("trace"), o("stats"), s(&dir)],
            format!("{}: is a directory; expected a trace file", dir.display()),
        ),
        (
            vec![o("trace"), o("stats"), s(&dir.join("missing.trace"))],
            "missing.trace: cannot open it (".into(),
        ),
        (
            vec![
                o("trace"),
                o("convert"),
                o("--to"),
                o("msr"),
                o("-o"),
                s(&dir.join("no-such-dir/out.csv")),
                s(&bad),
            ],
            "--output: ".to_string()
                + &dir.join("no-such-dir/out.csv").display().to_string()
                + ": cannot write it (No such file or directory (os error 2)); expected",
        ),
        (
            vec![o("trace"), o("stats"), s(&empty)],
            "empty.trace: the file is empty; expected ".into(),
        ),
        (
            vec![o("trace"), o("stats"), s(&latin)],
            "latin.trace:2: non-UTF-8 byte 0xff at column 6; expected text".into(),
        ),
        (
            vec![o("trace"), o("convert"), o("--to"), o("msr"), s(&bad)],
            "bad.csv:2: offset: '11x55' is not an integer; expected a non-negative integer".into(),
        ),
        (
            vec![o("trace"), o("stats"), s(&gz)],
            "cut.gz:1: gzip data is truncated or corrupt".into(),
        ),
        (
            vec![o("trace"), o("stats"), o("--format"), o("nope"), s(&bad)],
            "--format: unknown trace format 'nope'; expected auto, msr, ".into(),
        ),
        (
            vec![o("trace"), o("convert"), o("--to"), o("csv"), s(&bad)],
            "--to: cannot write trace format 'csv'; expected native, ".into(),
        ),
    ];
    for (args, want) in cases {
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        let (code, _, err) = run(&args);
        assert_eq!(code, Some(2), "{args:?}: {err}");
        let lines: Vec<&str> = err.lines().filter(|l| !l.starts_with("guessed format")).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        assert!(lines[0].starts_with("ssdlab: error: "), "{err}");
        assert!(lines[0].contains(&want), "{args:?}: `{want}` not in {err}");
        assert!(lines[0].contains("; expected "), "{err}");
    }
}

/// A request of 2^50 bytes and an offset near 2^60: stats finish at once with exact counts, and
/// the JSON lists the volumes.
#[test]
fn stats_of_a_huge_request_and_volumes() {
    let dir = tmp("huge");
    let t = dir.join("huge.trace");
    std::fs::write(&t, "0 0 0 2199023255552 0\n10 0 8 8 1\n20 5 2251799813685248 8 1\n").unwrap();
    let (code, out, err) = run(&[
        "trace".as_ref(),
        "stats".as_ref(),
        "--output-format".as_ref(),
        "json".as_ref(),
        t.as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["requests"], 3);
    assert_eq!(v["bytes"]["write"], 1u64 << 50);
    assert_eq!(v["footprint_pages"], (1u64 << 38) + 1);
    let vols = v["volumes"].as_array().unwrap();
    assert_eq!(vols.len(), 2);
    assert_eq!(vols[0]["volume"], 0);
    assert_eq!(vols[0]["requests"], 2);
    assert_eq!(vols[0]["ops"]["read"], 1);
    assert_eq!(vols[0]["offset_end"], 1u64 << 50);
    assert_eq!(vols[1]["volume"], 5);
    assert_eq!(vols[1]["offset_min"], 1u64 << 60);
    // Text: the per-volume table; the cap on volumes is reported.
    let (code, out, _) = run(&[
        "trace".as_ref(),
        "stats".as_ref(),
        "--max-volumes".as_ref(),
        "1".as_ref(),
        t.as_os_str(),
    ]);
    assert_eq!(code, Some(0));
    assert!(out.contains("volumes:"), "{out}");
    assert!(
        out.contains("more than 1 volumes: 1 requests of further volumes are not listed"),
        "{out}"
    );
    // Volumes selected on the command line.
    let (code, out, _) = run(&[
        "trace".as_ref(),
        "stats".as_ref(),
        "--device".as_ref(),
        "5".as_ref(),
        t.as_os_str(),
    ]);
    assert_eq!(code, Some(0));
    assert!(out.contains("requests:        1\n"), "{out}");
}
