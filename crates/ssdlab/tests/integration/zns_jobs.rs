//! The ZN540's own benchmark job files (NVMeBenchmarks' `jobs/`, at
//! `../shared/nvmebenchmarks/`): every one runs unmodified on a zoned drive (the SPDK and
//! io_uring files, writes and appends, every request size, zone count and depth), shortened
//! only by `--set` to 2 ms of each job without its ramp. The drive is small (904 zones, the
//! ZN540's count, of 256 KiB on 8 planes of 4 KiB pages) so that 528 runs take seconds; the
//! ZN540 itself is the `zn540` preset, compared point by point in docs/zns.md.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const DRIVE: &str = r#"
[device]
name = "zoned-tiny"
[device.geometry]
channels = 2
ways = 2
dies_per_chip = 1
planes_per_die = 2
blocks_per_plane = 904
pages_per_block = 8
page_size = "4KiB"
mapping_unit = "4KiB"
overprovisioning = 0.1
[device.nand]
cell = "slc"
read = "25us"
program = "200us"
erase = "1.5ms"
channel_rate = "400MB/s"
endurance = 100000
[device.host]
interface = "nvme-gen3x4"
command_overhead = "1us"
[device.ftl]
design = "zns"
write_buffer = "1MiB"
[device.ftl.zones]
count = 904
size = "256KiB"
capacity = "256KiB"
max_open = 14
max_active = 14
[device.controller]
cpus = 1
command_time = "5us"
[precondition]
mode = "none"
[[job]]
rw = "write"
number_ios = 1
"#;

fn jobs() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/nvmebenchmarks/jobs");
    if dir.is_dir() {
        return Some(dir);
    }
    ssdlab_core::skip::skip(
        &format!("{}: not there; the ZN540's job files not run", dir.display()),
        "../shared/nvmebenchmarks beside the clone (NVMeBenchmarks at its MANIFEST.md's commit)",
    );
    None
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "fio") {
            out.push(p);
        }
    }
}

#[test]
fn every_zn540_job_file_runs_unmodified_on_a_zoned_drive() {
    let Some(dir) = jobs() else { return };
    let mut all = Vec::new();
    files(&dir, &mut all);
    all.sort();
    assert!(all.len() >= 500, "{} job files in {}", all.len(), dir.display());
    let tmp = tempfile::tempdir().unwrap();
    let drive = tmp.path().join("zoned.toml");
    std::fs::write(&drive, DRIVE).unwrap();
    let run = |f: &PathBuf| -> Result<Value, String> {
        let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
            .args([
                "run",
                drive.to_str().unwrap(),
                "--quiet",
                "--output-format",
                "json",
                "--job",
            ])
            .arg(f)
            .args(["--set", "job.*.runtime=2ms", "--set", "job.*.ramp_time=0"])
            .output()
            .unwrap();
        if !o.status.success() {
            return Err(String::from_utf8_lossy(&o.stderr).to_string());
        }
        serde_json::from_slice(&o.stdout).map_err(|e| e.to_string())
    };
    let half = all.len().div_ceil(2);
    let results: Vec<(PathBuf, Result<Value, String>)> = std::thread::scope(|s| {
        let parts: Vec<_> = all
            .chunks(half)
            .map(|part| s.spawn(|| part.iter().map(|f| (f.clone(), run(f))).collect::<Vec<_>>()))
            .collect();
        parts.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut problems = Vec::new();
    let mut appends = 0;
    for (f, r) in &results {
        let name = f.strip_prefix(&dir).unwrap().display().to_string();
        match r {
            Err(e) => problems.push(format!("{name}: {e}")),
            Ok(json) => {
                let jobs = json["jobs"].as_array().cloned().unwrap_or_default();
                // One job per clone of the file's numjobs (group_reporting: one group), each
                // writing, with fio's count of zone resets.
                let written: u64 = jobs.iter().map(|j| j["write"]["io_bytes"].as_u64().unwrap_or(0)).sum();
                if jobs.is_empty() || written == 0 || jobs.iter().any(|j| j["zone_resets"].as_u64().is_none()) {
                    problems.push(format!(
                        "{name}: ran, wrote {written} bytes, zone_resets {:?}",
                        jobs.first().map(|j| &j["zone_resets"])
                    ));
                }
                if name.contains("/append/") {
                    appends += 1;
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} of {}:\n{}",
        problems.len(),
        all.len(),
        problems.join("\n")
    );
    assert!(appends >= 200, "{appends} append files");
    eprintln!(
        "the ZN540's job files: {} of {} run",
        results.len() - problems.len(),
        all.len()
    );
}
