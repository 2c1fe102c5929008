//! fio's own example job files (fio's `examples/*.fio`, at `../shared/fio-examples/`): each
//! that addresses a drive runs to completion on a small preset, shortened only by `--set`
//! (200 ms of each job, no preconditioning), and every other is refused in one line naming
//! the option that is not modelled, as listed here. The counts are printed.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The examples refused, and the key their one-line refusal names (an engine with no drive,
/// verifying data a simulation does not keep, ...).
const REFUSED: &[(&str, &str)] = &[
    ("1mbs_clients.fio", "ratemin"),
    ("atomic-verify.fio", "verify"),
    ("basic-verify.fio", "verify"),
    ("butterfly.fio", "flow"),
    ("cpp_null.fio", "ioengine"),
    ("cpuio.fio", "ioengine"),
    ("cross-stripe-verify.fio", "verify"),
    ("dev-dax.fio", "ioengine"),
    ("dfs.fio", "ioengine"),
    ("dircreate-ioengine.fio", "nrfiles"),
    ("dirdelete-ioengine.fio", "ioengine"),
    ("dirstat-ioengine.fio", "ioengine"),
    ("disk-zone-profile.fio", "zonemode"),
    ("e4defrag.fio", "ioengine"),
    ("e4defrag2.fio", "ioengine"),
    ("enospc-pressure.fio", "verify"),
    ("example_latency_steadystate.fio", "steadystate"),
    ("exec.fio", "ioengine"),
    ("falloc.fio", "ioengine"),
    ("filecreate-ioengine.fio", "nrfiles"),
    ("filedelete-ioengine.fio", "ioengine"),
    ("filestat-ioengine.fio", "ioengine"),
    ("flow.fio", "flow_sleep"),
    ("ftruncate.fio", "ioengine"),
    ("gfapi.fio", "ioengine"),
    ("gpudirect-rdmaio-client.fio", "ioengine"),
    ("gpudirect-rdmaio-server.fio", "ioengine"),
    ("http-s3-crypto.fio", "ioengine"),
    ("http-s3-storage-class.fio", "ioengine"),
    ("http-s3.fio", "ioengine"),
    ("http-swift.fio", "ioengine"),
    ("http-webdav.fio", "ioengine"),
    ("ime.fio", "ioengine"),
    ("latency-profile.fio", "latency_target"),
    ("libcufile-cufile.fio", "ioengine"),
    ("libcufile-posix.fio", "ioengine"),
    ("libhdfs.fio", "ioengine"),
    ("libhipfile-hipfile.fio", "ioengine"),
    ("libhipfile-posix.fio", "ioengine"),
    ("libiscsi.fio", "ioengine"),
    ("libpmem.fio", "ioengine"),
    ("libzbc-rand-write.fio", "ioengine"),
    ("libzbc-seq-read.fio", "ioengine"),
    ("mtd.fio", "ioengine"),
    ("nbd.fio", "uri"),
    ("netio.fio", "ioengine"),
    ("netio_multicast.fio", "ioengine"),
    ("netio_vsock.fio", "ioengine"),
    ("netio_vsock_receiver.fio", "ioengine"),
    ("netio_vsock_sender.fio", "ioengine"),
    ("nfs.fio", "nfs_url"),
    ("page_fault.fio", "ioengine"),
    ("rados.fio", "ioengine"),
    ("rbd.fio", "ioengine"),
    ("rdmaio-client.fio", "ioengine"),
    ("rdmaio-server.fio", "ioengine"),
    ("sg_verify-fail.fio", "sg_write_mode"),
    ("sg_verify.fio", "sg_write_mode"),
    ("sg_write_same_ndob.fio", "sg_write_mode"),
    ("sprandom.fio", "sprandom"),
    ("steadystate.fio", "ss"),
    ("surface-scan.fio", "verify"),
    ("uring-cmd-bsg.fio", "writefua"),
    ("uring-cmd-pi-ext.fio", "job[0].bs"),
    ("uring-cmd-trim-multi-range.fio", "num_range"),
    ("uring-cmd-write-mode.fio", "write_mode"),
    ("uring-cmd-zoned-append.fio", "verify"),
    ("uring-cmd-zoned.fio", "verify"),
    ("xnvme-zoned.fio", "verify"),
    ("zbd-rand-write-trim-gc.fio", "flow"),
    ("zbd-rand-write.fio", "job[0].max_open_zones"),
];

/// The run file and the `--set`s beyond the common ones an example needs: the FDP examples
/// need an FDP drive with 8 handles; null.fio's 100 GiB (fio's null engine needs no device)
/// is cut to the drive.
fn setup(name: &str) -> (&'static str, Vec<&'static str>) {
    match name {
        "uring-cmd-fdp.fio" | "xnvme-fdp.fio" => (
            "examples/fdp.toml",
            vec![
                "device.placement.open_superblocks=8",
                "device.geometry.blocks_per_plane=256",
            ],
        ),
        "null.fio" => ("slc-sata", vec!["job.*.size=1g"]),
        // The zoned examples (zonemode=zbd) on a zoned drive of 256 MiB zones, their size.
        n if n.contains("zbd") || n.contains("zoned") => ("examples/zns.toml", vec![]),
        _ => ("slc-sata", vec![]),
    }
}

fn examples() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fio-examples");
    if dir.is_dir() {
        return Some(dir);
    }
    ssdlab_core::skip::skip(
        &format!("{}: not there; fio's examples not run", dir.display()),
        "../shared/fio-examples beside the clone (fio's examples/ at its MANIFEST.md's commit)",
    );
    None
}

/// Run one example: Ok(JSON) or Err((status, standard error)).
fn run(dir: &Path, name: &str) -> Result<Value, (Option<i32>, String)> {
    let (config, sets) = setup(name);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ssdlab"));
    cmd.current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .args(["run", config, "--quiet", "--output-format", "json", "--job"])
        .arg(dir.join(name))
        .args(["--set", "job.*.runtime=200ms", "--set", "precondition.mode=none"]);
    for s in sets {
        cmd.args(["--set", s]);
    }
    // The variables the examples' own comments say to set.
    for (k, v) in [
        ("FIO_BS", "4k"),
        ("FIO_RW", "randread"),
        ("FIO_IODEPTH", "8"),
        ("FIO_DIR", "/tmp"),
        ("CONT", "x"),
        ("GPU_DEV_IDS", "0"),
        ("POOL", "x"),
        ("S3_ID", "x"),
        ("S3_KEY", "x"),
        ("SSE_KEY", "x"),
        ("STORAGE_CLASS", "x"),
        ("SWIFT_id", "x"),
        ("uri", "x"),
    ] {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    if o.status.success() {
        serde_json::from_slice(&o.stdout).map_err(|e| (Some(0), format!("{e}: {err}")))
    } else {
        Err((o.status.code(), err))
    }
}

#[test]
fn fio_s_examples_run_or_are_refused_in_one_line() {
    let Some(dir) = examples() else { return };
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".fio"))
        .collect();
    names.sort();
    assert!(names.len() >= 100, "{} examples in {}", names.len(), dir.display());
    // Two at a time (the machine's cores).
    let half = names.len().div_ceil(2);
    let results: Vec<(String, Result<Value, (Option<i32>, String)>)> = std::thread::scope(|s| {
        let parts: Vec<_> = names
            .chunks(half)
            .map(|part| s.spawn(|| part.iter().map(|n| (n.clone(), run(&dir, n))).collect::<Vec<_>>()))
            .collect();
        parts.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut problems = Vec::new();
    let (mut ran, mut refused) = (0, 0);
    for (name, r) in &results {
        let expected = REFUSED.iter().find(|(n, _)| n == name).map(|x| x.1);
        match (r, expected) {
            (Ok(json), None) => {
                // Every job moved data (a run that did nothing would pass otherwise).
                let jobs = json["jobs"].as_array().cloned().unwrap_or_default();
                let bytes: u64 = jobs
                    .iter()
                    .flat_map(|j| ["read", "write", "trim"].map(|d| j[d]["io_bytes"].as_u64().unwrap_or(0)))
                    .sum();
                // A zoned read job on a fresh drive has nothing below any write pointer to read:
                // fio ends it at once, as here.
                let empty = name == "zbd-seq-read.fio";
                if jobs.is_empty() || (bytes == 0) != empty {
                    problems.push(format!("{name}: ran and moved {bytes} bytes"));
                }
                ran += 1;
            }
            (Ok(_), Some(key)) => problems.push(format!("{name}: ran; expected a refusal at {key}")),
            (Err((code, err)), Some(key)) => {
                let lines: Vec<&str> = err
                    .lines()
                    .filter(|l| !l.starts_with("ssdlab: ignored") && !l.starts_with("ssdlab: warning"))
                    .collect();
                let one = lines.len() == 1 && lines[0].starts_with("ssdlab: error: ");
                let names_key = lines
                    .first()
                    .is_some_and(|l| l.contains(&format!(": {key}: ")) && l.contains("; expected"));
                if *code != Some(2) || !one || !names_key {
                    problems.push(format!(
                        "{name}: exit {code:?}, expected 2 with one line at {key}: {err}"
                    ));
                }
                refused += 1;
            }
            (Err((code, err)), None) => problems.push(format!("{name}: exit {code:?}: {err}")),
        }
    }
    eprintln!(
        "fio's examples: {ran} run, {refused} refused in one line, of {}",
        results.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(ran + refused, names.len());
}
