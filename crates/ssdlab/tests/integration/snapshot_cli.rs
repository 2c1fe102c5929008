//! `ssdlab precondition -o FILE` and `ssdlab run --from-snapshot FILE`: the run from the
//! snapshot prints the result of a run that preconditions itself; what cannot be saved or
//! started from is refused with one line and status 2, and nothing is written.

use std::path::Path;
use std::process::{Command, Output};

fn ssdlab(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run ssdlab")
}

const RUN: &str = r#"[device]
preset = "mlc-sata"
[device.geometry]
blocks_per_plane = 64
overprovisioning = 0.1
[precondition]
mode = "steady"
utilisation = 0.85
[[job]]
rw = "randrw"
bs = "4KiB"
iodepth = 8
number_ios = 20000
"#;

/// A run's JSON without its wall-clock fields.
fn deterministic(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ssd = v["ssd"].as_object_mut().unwrap();
    ssd.remove("wall_time_s");
    ssd.remove("sim_requests_per_wall_s");
    ssd["precondition"].as_object_mut().unwrap().remove("wall_time_s");
    v
}

#[test]
fn a_run_from_a_snapshot_prints_what_preconditioning_gives() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("r.toml"), RUN).unwrap();
    let o = ssdlab(d.path(), &["precondition", "r.toml", "-o", "aged.snap", "--seed", "7"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.starts_with("aged.snap: mlc-sata preconditioned steady to 85.0 % of its logical capacity in "),
        "{said}"
    );
    let len = std::fs::metadata(d.path().join("aged.snap")).unwrap().len();
    // Under 9 bytes per physical unit: 4 (L2P, 90 % of them) + 4 (P2L) + a bit, and the
    // per-block state.
    let units = 8 * 4 * 2 * 64 * 256 * 2; // channels, ways, planes, blocks, pages, units per page
    assert!(len > 7 * units && len < 9 * units, "{len} bytes for {units} units");
    for job in [&[][..], &["--set", "job.0.rwmixread=30"][..]] {
        let mut own = vec!["run", "r.toml", "--seed", "7", "--output-format", "json", "-q"];
        own.extend(job);
        let mut from = own.clone();
        from.extend(["--from-snapshot", "aged.snap"]);
        let (a, b) = (ssdlab(d.path(), &own), ssdlab(d.path(), &from));
        assert!(deterministic(&a) == deterministic(&b), "{job:?}");
    }
    // Without --quiet, the run says where it starts.
    let o = ssdlab(
        d.path(),
        &["run", "r.toml", "--seed", "7", "--from-snapshot", "aged.snap"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("ssdlab: started from aged.snap (mlc-sata preconditioned steady)"),
        "{err}"
    );
    assert!(!err.contains("preconditioning"), "{err}");
}

/// Refused with one line and status 2, nothing on standard output; gives the message.
fn refused(dir: &Path, args: &[&str]) -> String {
    let o = ssdlab(dir, args);
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}");
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| !l.starts_with("ssdlab: preconditioning"))
        .collect();
    assert_eq!(lines.len(), 1, "{args:?}: {err}");
    assert!(lines[0].contains("; expected "), "{args:?}: {err}");
    lines[0].strip_prefix("ssdlab: error: ").unwrap().to_string()
}

#[test]
fn what_cannot_be_saved_or_started_from_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("r.toml"), RUN).unwrap();
    std::fs::write(
        p.join("fresh.toml"),
        RUN.replace("mode = \"steady\"", "mode = \"none\""),
    )
    .unwrap();
    std::fs::write(
        p.join("array.toml"),
        RUN.replace(
            "[[job]]",
            "[array]\nlayout = \"raid0\"\n[[array.member]]\n[[array.member]]\n[[job]]",
        ),
    )
    .unwrap();
    std::fs::write(
        p.join("text.snap"),
        "not a snapshot, but long enough to hold a header\n",
    )
    .unwrap();
    let e = refused(p, &["precondition", "fresh.toml", "-o", "x.snap"]);
    assert!(
        e.starts_with("fresh.toml: precondition: it leaves the device fresh"),
        "{e}"
    );
    let e = refused(p, &["precondition", "array.toml", "-o", "x.snap"]);
    assert!(e.starts_with("array.toml: [array]: a snapshot holds one device"), "{e}");
    let e = refused(p, &["precondition", "r.toml", "-o", "no/such/dir/x.snap"]);
    assert!(e.starts_with("--output: "), "{e}");
    assert!(!p.join("x.snap").exists());
    let e = refused(p, &["run", "r.toml", "--from-snapshot", "missing.snap"]);
    assert!(e.starts_with("missing.snap: "), "{e}");
    let e = refused(p, &["run", "r.toml", "--from-snapshot", "text.snap"]);
    assert!(e.starts_with("text.snap: not an ssdlab snapshot"), "{e}");
    // A snapshot of another device, found before anything runs.
    let o = ssdlab(p, &["precondition", "r.toml", "-o", "aged.snap", "-q"]);
    assert!(o.status.success());
    let e = refused(
        p,
        &[
            "run",
            "r.toml",
            "--from-snapshot",
            "aged.snap",
            "--set",
            "device.ftl.gc_policy=fifo",
        ],
    );
    assert!(
        e.starts_with(
            "--from-snapshot: aged.snap: device.ftl.gc_policy is \"fifo\" in the run but \"greedy\" in the snapshot"
        ),
        "{e}"
    );
}
