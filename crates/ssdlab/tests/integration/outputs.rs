//! Outputs written whole or not at all, found writable before any simulation, kept when a
//! plot fails; SIGINT and SIGTERM ending `run`, `experiment` and `trace convert` with one line,
//! status 130 or 143 and no partial file; experiments resuming from their finished points to
//! the same bytes; a full disk (a tiny tmpfs, where this machine lets the test mount one).

use crate::common::ssdlab;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// The names in `dir`, recursively (relative), sorted.
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(root: &Path, d: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            if p.is_dir() {
                walk(root, &p, out);
            }
        }
    }
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// No temporary (`.NAME.XXXXXX.tmp`) anywhere under `dir`.
fn no_temporaries(dir: &Path) {
    let t = tree(dir);
    assert!(!t.iter().any(|n| n.ends_with(".tmp")), "{t:?}");
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .current_dir(crate::common::root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts")
}

fn kill(child: &Child, sig: i32) {
    // SAFETY: kill(2) on the child's pid, which it keeps until it is waited for.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
}

use libc::{SIGINT, SIGTERM};

/// Wait until `cond` holds (what the child is doing, seen from outside; no time limit of
/// its own: a child that never gets there hangs the test, which the harness reports).
fn wait_for(mut cond: impl FnMut() -> bool) {
    while !cond() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Status and standard error of a child that has ended.
fn finish(child: Child) -> (Option<i32>, String) {
    let o = child.wait_with_output().unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn a_run_interrupted_while_preconditioning_exits_130_with_one_line_and_writes_nothing() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out.json");
    let mut child = spawn(&[
        "run",
        "slc-sata",
        "--set",
        "job.0.io_size=\"4000TiB\"",
        "--set",
        "job.0.number_ios=1000000000000",
        "-o",
        out.to_str().unwrap(),
        "--plot",
        d.path().join("plots").to_str().unwrap(),
    ]);
    // The handler is installed before this line is printed.
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert!(first.starts_with("ssdlab: preconditioning"), "{first}");
    kill(&child, SIGINT);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
    let (code, _) = finish(child);
    assert_eq!(code, Some(130), "{rest}");
    assert_eq!(
        rest,
        format!(
            "ssdlab: interrupted (SIGINT): run stopped; nothing written ({} untouched)\n",
            out.display()
        )
    );
    // The plot folder was made (checked writable) before the run; nothing is in it.
    assert_eq!(tree(d.path()), ["plots"]);
}

#[test]
fn a_run_terminated_while_writing_fio_logs_exits_143_and_leaves_no_log() {
    let d = tempfile::tempdir().unwrap();
    let jobs = d.path().join("jobs.fio");
    let prefix = d.path().join("x");
    std::fs::write(
        &jobs,
        format!(
            "[w]\nrw=randwrite\nbs=4k\nsize=64m\nio_size=4000g\nwrite_lat_log={}\n",
            prefix.display()
        ),
    )
    .unwrap();
    let child = spawn(&[
        "run",
        "slc-sata",
        "--set",
        "precondition.mode=none",
        "--job",
        jobs.to_str().unwrap(),
        "-q",
    ]);
    // The run has started when its logs' temporaries are there.
    wait_for(|| tree(d.path()).iter().filter(|n| n.ends_with(".tmp")).count() == 3);
    kill(&child, SIGTERM);
    let (code, err) = finish(child);
    assert_eq!(code, Some(143), "{err}");
    assert_eq!(err, "ssdlab: interrupted (SIGTERM): run stopped; nothing written\n");
    assert_eq!(tree(d.path()), ["jobs.fio"]);
}

#[test]
fn fio_logs_in_a_missing_directory_are_refused_at_their_key_before_the_run() {
    let d = tempfile::tempdir().unwrap();
    let jobs = d.path().join("jobs.fio");
    std::fs::write(
        &jobs,
        "[w]\nrw=randwrite\nbs=4k\nnumber_ios=100\nwrite_bw_log=/nonexistent-dir/x\n",
    )
    .unwrap();
    let o = ssdlab(&["run", "slc-sata", "--job", jobs.to_str().unwrap(), "-q"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    // Refused before preconditioning: the only line is the error.
    let want = format!(
        "ssdlab: error: {}:5:1: job[0].write_bw_log: /nonexistent-dir: cannot write in it",
        jobs.display()
    );
    assert!(err.starts_with(&want) && err.lines().count() == 1, "{err}");
    assert!(
        err.contains("; expected a prefix in an existing, writable directory"),
        "{err}"
    );
}

#[test]
fn unwritable_outputs_are_refused_before_anything_is_simulated() {
    let d = tempfile::tempdir().unwrap();
    let blocker = d.path().join("file");
    std::fs::write(&blocker, "").unwrap();
    let under = |name: &str| blocker.join(name).to_string_lossy().into_owned();
    // A run of 10^12 requests (io_size beyond one pass): refused before preconditioning says it starts, or it would
    // never end.
    let long = [
        "run",
        "slc-sata",
        "--set",
        "job.0.number_ios=1000000000000",
        "--set",
        "job.0.io_size=\"4000TiB\"",
    ];
    fn with<'a>(long: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [long, extra].concat()
    }
    crate::common::refused(&with(&long, &["-o", &under("out.json")]), "--output: ");
    crate::common::refused(&with(&long, &["--plot", &under("plots")]), "--plot: ");
    crate::common::refused(
        &["experiment", "friendly", "--quick", "--out", &under("exp")],
        "--out: ",
    );
    crate::common::refused(
        &["characterize", "slc-sata", "--quick", "-o", &under("p.json")],
        "--output: ",
    );
    // Nothing was made anywhere.
    assert_eq!(tree(d.path()), ["file"]);
}

#[test]
fn a_plot_that_fails_keeps_the_result_already_written() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out.json");
    let plots = d.path().join("plots");
    // A directory where a plot file goes: that plot cannot be written.
    std::fs::create_dir_all(plots.join("waf.svg")).unwrap();
    let o = ssdlab(&[
        "run",
        "slc-sata",
        "--set",
        "precondition.mode=none",
        "--set",
        "job.0.number_ios=2000",
        "--set",
        "job.0.rw=randwrite",
        "--set",
        "job.0.ramp_time=0",
        "--output-format",
        "json",
        "-o",
        out.to_str().unwrap(),
        "--plot",
        plots.to_str().unwrap(),
        "-q",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("ssdlab: error: --plot: ")
            && err
                .trim_end()
                .ends_with(&format!("(the result was written to {})", out.display())),
        "{err}"
    );
    let r: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(r["jobs"][0]["write"]["total_ios"], 2000);
    no_temporaries(d.path());
}

#[test]
fn a_figure_that_fails_keeps_the_experiment_s_result_and_tables() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("exp");
    std::fs::create_dir_all(out.join("figure11_random_write.svg")).unwrap();
    let o = ssdlab(&["experiment", "openssd", "--quick", "-q", "--out", out.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.trim_end().ends_with(&format!(
            "(result.json and the tables were written to {})",
            out.display()
        )),
        "{err}"
    );
    for f in ["result.json", "table.md", "table.csv"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    no_temporaries(d.path());
}

/// `text` without its wall-clock lines (the only ones that differ between runs).
fn without_wall(text: &str) -> String {
    text.lines()
        .filter(|l| !l.contains("wall_time_s") && !l.contains("per_wall_s"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn points_in(out: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(out.join("points"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

#[test]
fn an_experiment_resumes_from_its_finished_points_to_the_same_bytes() {
    let d = tempfile::tempdir().unwrap();
    let (whole, resumed) = (d.path().join("whole"), d.path().join("resumed"));
    let run = |out: &Path, extra: &[&str]| {
        let o = ssdlab(
            &[
                &[
                    "experiment",
                    "openssd",
                    "--quick",
                    "--seeds",
                    "1",
                    "--out",
                    out.to_str().unwrap(),
                ],
                extra,
            ]
            .concat(),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    run(&whole, &["-q"]);
    let points = points_in(&whole);
    assert_eq!(points.len(), 90);
    // An interrupted run's folder: some points missing, one cut short, one altered.
    std::fs::create_dir_all(resumed.join("points")).unwrap();
    for p in &points[10..] {
        std::fs::copy(p, resumed.join("points").join(p.file_name().unwrap())).unwrap();
    }
    let cut = resumed.join("points").join(points[10].file_name().unwrap());
    let len = std::fs::metadata(&cut).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&cut)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let altered = resumed.join("points").join(points[11].file_name().unwrap());
    let mut bytes = std::fs::read(&altered).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&altered, bytes).unwrap();
    let err = run(&resumed, &[]);
    assert!(err.contains("2 damaged point file(s)"), "{err}");
    assert!(err.contains("78 of 90 runs taken from"), "{err}");
    let read = |dir: &Path, f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    assert_eq!(
        without_wall(&read(&whole, "result.json")),
        without_wall(&read(&resumed, "result.json"))
    );
    for f in ["table.csv", "table.md", "figure11_random_write.svg"] {
        assert_eq!(read(&whole, f), read(&resumed, f), "{f}");
    }
    // Every point is in the folder again, whole: a third run takes them all.
    let err = run(&resumed, &[]);
    assert!(
        err.contains("90 of 90 runs taken from") && !err.contains("damaged"),
        "{err}"
    );
    // --fresh takes nothing from the folder (and so finds nothing damaged in it), and
    // writes every point again, whole.
    std::fs::write(&cut, b"junk").unwrap();
    let err = run(&resumed, &["--fresh"]);
    assert!(!err.contains("taken from") && !err.contains("damaged"), "{err}");
    assert_eq!(std::fs::metadata(&cut).unwrap().len(), len);
    let err = run(&resumed, &[]);
    assert!(err.contains("90 of 90 runs taken from"), "{err}");
    no_temporaries(d.path());
}

#[test]
fn an_interrupted_experiment_keeps_its_finished_points_and_writes_no_result() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("plan");
    let child = spawn(&[
        "experiment",
        "plan",
        "--quick",
        "--seeds",
        "1",
        "-q",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    wait_for(|| {
        out.join("points").is_dir()
            && points_in(&out)
                .iter()
                .any(|p| p.extension().is_some_and(|e| e == "bin"))
    });
    kill(&child, SIGINT);
    let (code, err) = finish(child);
    assert_eq!(code, Some(130), "{err}");
    let kept = points_in(&out).len();
    assert!((1..192).contains(&kept), "{kept}");
    assert_eq!(
        err,
        format!(
            "ssdlab: interrupted (SIGINT): experiment plan stopped; kept {kept} of 192 runs in {} (the same command resumes)\n",
            out.join("points").display()
        )
    );
    assert_eq!(tree(&out).iter().filter(|n| !n.starts_with("points")).count(), 0);
    no_temporaries(d.path());
}

/// One run writes an `--out` folder at a time: a second experiment started into it while the
/// first runs is refused in one line (exit 2) and writes nothing; the first goes on as if
/// alone (here: stopped, keeping its points).
#[test]
fn two_experiments_into_one_folder_at_once_refuse_the_second() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("shared");
    let first = spawn(&[
        "experiment",
        "plan",
        "--quick",
        "--seeds",
        "1",
        "-q",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    wait_for(|| out.join("points").is_dir() && !points_in(&out).is_empty());
    let before = tree(&out);
    let second = ssdlab(&[
        "experiment",
        "openssd",
        "--quick",
        "--seeds",
        "1",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&second.stderr).into_owned();
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert_eq!(
        err,
        format!(
            "ssdlab: error: --out: {} is being written by another run (it holds {}); expected a folder no other run is writing\n",
            out.display(),
            out.join("points").display()
        )
    );
    // Nothing of the second's: every point file is plan's (the first's, still running).
    assert!(tree(&out).iter().all(|n| n.starts_with("points")), "{:?}", tree(&out));
    assert!(tree(&out).len() >= before.len());
    kill(&first, SIGINT);
    let (code, err) = finish(first);
    assert_eq!(code, Some(130), "{err}");
    assert!(err.contains("experiment plan stopped; kept"), "{err}");
    no_temporaries(d.path());
}

#[test]
fn an_interrupted_conversion_leaves_no_file() {
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("in.csv");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        ssdlab_core::skip::skip("mkfifo is not available", "coreutils");
        return;
    }
    let out = d.path().join("out.bin");
    let child = spawn(&[
        "trace",
        "convert",
        fifo.to_str().unwrap(),
        "--format",
        "msr",
        "--to",
        "native",
        "-o",
        out.to_str().unwrap(),
    ]);
    // Opening the pipe returns once the command has opened it, its handler installed.
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    let line = "128166372003061629,wdev,0,Write,3045597184,4096,2061\n";
    w.write_all(line.repeat(100).as_bytes()).unwrap();
    kill(&child, SIGINT);
    // More records carry the conversion past its next look at the flag; it stops there.
    let _ = w.write_all(line.repeat(70_000).as_bytes());
    drop(w);
    let (code, err) = finish(child);
    assert_eq!(code, Some(130), "{err}");
    assert_eq!(
        err,
        format!(
            "ssdlab: interrupted (SIGINT): trace convert stopped; {} not written\n",
            out.display()
        )
    );
    assert_eq!(tree(d.path()), ["in.csv"]);
}

/// A full tmpfs mounted in a temporary folder, unmounted when dropped.
struct FullDisk {
    dir: tempfile::TempDir,
}

impl FullDisk {
    /// Mount a 64 KiB tmpfs holding `keep` (name, contents) and a filler that takes the rest,
    /// or `None` (test skipped) where mounting is refused (not root, no privilege).
    fn mount(keep: (&str, &str)) -> Option<FullDisk> {
        let dir = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs"])
            .arg(dir.path())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            ssdlab_core::skip::unavailable("cannot mount a tmpfs here (needs root and the privilege to mount)");
            return None;
        }
        let disk = FullDisk { dir };
        std::fs::write(disk.path().join(keep.0), keep.1).unwrap();
        let mut filler = std::fs::File::create(disk.path().join("filler")).unwrap();
        while filler.write_all(&[0u8; 4096]).is_ok() {}
        Some(disk)
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for FullDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// On a full disk: status 2, one line saying no space, and the disk as it was.
fn fails_for_want_of_space(args: &[&str], disk: &FullDisk, before: &[String]) {
    let o = ssdlab(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    // One error line, the last (a run's warnings come before it).
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("ssdlab: error: ")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert_eq!(err.lines().last(), Some(errors[0]));
    let why = "cannot write it (No space left on device (os error 28)); expected a writable directory with room for it";
    assert!(errors[0].ends_with(why), "{err}");
    assert_eq!(tree(disk.path()), before, "{args:?}");
}

#[test]
fn on_a_full_disk_every_writer_fails_whole_and_leaves_no_partial_file() {
    let Some(disk) = FullDisk::mount(("out.json", "kept")) else {
        return;
    };
    let p = |n: &str| disk.path().join(n).to_string_lossy().into_owned();
    let before = tree(disk.path());
    // An existing output is left as it was, not truncated.
    fails_for_want_of_space(
        &[
            "run",
            "slc-sata",
            "--set",
            "precondition.mode=none",
            "--set",
            "job.0.number_ios=1000",
            "-q",
            "-o",
            &p("out.json"),
        ],
        &disk,
        &before,
    );
    assert_eq!(std::fs::read_to_string(p("out.json")).unwrap(), "kept");
    let src = tempfile::tempdir().unwrap();
    let msr = src.path().join("in.csv");
    std::fs::write(
        &msr,
        "128166372003061629,wdev,0,Write,3045597184,4096,2061\n".repeat(1000),
    )
    .unwrap();
    fails_for_want_of_space(
        &[
            "trace",
            "convert",
            msr.to_str().unwrap(),
            "--format",
            "msr",
            "--to",
            "native",
            "-o",
            &p("t.bin"),
        ],
        &disk,
        &before,
    );
    // The experiment's folder and its points folder are made (empty files fit); no point,
    // result or temporary is left.
    let o = ssdlab(&["experiment", "openssd", "--quick", "-q", "--out", &p("exp")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    let mut want = before.clone();
    want.extend(["exp".to_string(), "exp/points".to_string()]);
    want.sort();
    assert_eq!(tree(disk.path()), want);
}

/// A second signal ends the run at once, with no wait for the work to stop: the temporaries
/// it was writing (latency logs here) are removed first, and one line says so and what was
/// kept. The process is stopped while both signals are sent, so that the second reaches it
/// before the first has been acted on.
#[test]
fn a_second_signal_ends_at_once_removing_the_temporaries() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("r.toml"),
        "[device]\npreset = \"mlc-sata\"\n[device.geometry]\nblocks_per_plane = 64\noverprovisioning = 0.1\n\
         [precondition]\nmode = \"none\"\n[[job]]\nrw = \"randwrite\"\nbs = \"4KiB\"\nnumber_ios = 1000000000\nwrite_lat_log = \"x\"\n",
    )
    .unwrap();
    let out = d.path().join("out.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["run", "r.toml", "-q", "-o", out.to_str().unwrap()])
        .current_dir(d.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The logs are being written.
    wait_for(|| tree(d.path()).iter().filter(|n| n.ends_with(".tmp")).count() >= 3);
    kill(&child, libc::SIGSTOP);
    kill(&child, SIGINT);
    kill(&child, SIGTERM);
    kill(&child, libc::SIGCONT);
    let err = {
        let mut s = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut s).unwrap();
        s
    };
    let (code, _) = finish(child);
    // Both signals are pending when the process resumes; which one a thread takes first is
    // the kernel's choice: the status is the first's (SIGINT 130, SIGTERM 143), the line names
    // the second.
    let second = match code {
        Some(130) => "SIGTERM",
        Some(143) => "SIGINT",
        _ => panic!("exit status {code:?}: {err}"),
    };
    assert_eq!(
        err,
        format!(
            "ssdlab: interrupted twice ({second}): stopped at once, 3 temporary file(s) removed; run stopped; nothing written ({} untouched)\n",
            out.display()
        )
    );
    no_temporaries(d.path());
    assert_eq!(tree(d.path()), ["r.toml"]);
}

#[test]
fn a_fifo_as_output_does_not_outlast_the_first_signal() {
    // Opening a FIFO for writing waits for a reader; one SIGINT or SIGTERM ends the command
    // there, with its status and one line, the FIFO untouched.
    let d = tempfile::tempdir().unwrap();
    let fifo = d.path().join("out.fifo");
    let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
    assert!(made.success());
    for (command, sig, code, name) in [
        ("run", SIGINT, 130, "SIGINT"),
        ("precondition", SIGTERM, 143, "SIGTERM"),
    ] {
        let child = spawn(&[command, "examples/small.toml", "-q", "-o", fifo.to_str().unwrap()]);
        // Until it waits in the open (the kernel's name for that wait; a kernel that does not
        // say gets the two seconds arguments take at most).
        let wchan = format!("/proc/{}/wchan", child.id());
        let mut polls = 0;
        wait_for(|| {
            polls += 1;
            std::fs::read_to_string(&wchan).is_ok_and(|w| w == "wait_for_partner") || polls > 100
        });
        kill(&child, sig);
        let (status, err) = finish(child);
        assert_eq!(status, Some(code), "{command}: {err}");
        assert_eq!(
            err,
            format!(
                "ssdlab: interrupted ({name}): {command} stopped; nothing written ({} untouched), while it waited for a reader of its output\n",
                fifo.display()
            ),
            "{command}"
        );
    }
}
