//! Nothing lost: a failed write to standard output is one line and status 2 (a closed pipe
//! ends quietly with status 141), an output that is one of the command's inputs is refused,
//! regular files are read where regular files are expected (a FIFO, a device or a directory is
//! refused), and an experiment's point cache reuses only its own points.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A tiny run: a small MLC drive, no preconditioning, 2,000 requests.
const RUN: &str = r#"[device]
preset = "mlc-sata"
[device.geometry]
blocks_per_plane = 64
overprovisioning = 0.1
[precondition]
mode = "none"
[[job]]
rw = "randwrite"
bs = "4KiB"
number_ios = 2000
"#;

/// `ssdlab ARGS` in `dir` with standard output going to `stdout`.
fn ssdlab_to(dir: &Path, args: &[&str], stdout: Stdio) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(stdout)
        .output()
        .expect("runs")
}

fn ssdlab_in(dir: &Path, args: &[&str]) -> Output {
    ssdlab_to(dir, args, Stdio::piped())
}

/// One line on standard error, status 2, starting `ssdlab: error: PREFIX` and saying what was
/// expected.
fn one_line(o: &Output, prefix: &str, what: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.lines().count(), 1, "{what}: {err}");
    let msg = err
        .trim_end()
        .strip_prefix("ssdlab: error: ")
        .unwrap_or_else(|| panic!("{what}: {err}"));
    assert!(
        msg.starts_with(prefix),
        "{what}:\n  got      {msg}\n  expected {prefix}"
    );
    assert!(msg.contains("; expected"), "{what}: {msg}");
}

/// Commands that write standard output, each its own way of writing it.
fn stdout_commands(dir: &Path) -> Vec<Vec<String>> {
    std::fs::write(dir.join("run.toml"), RUN).unwrap();
    std::fs::write(dir.join("t.csv"), "0,h,0,Write,0,4096,1\n10,h,0,Read,4096,4096,1\n").unwrap();
    let v = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["--help"]),
        v(&["config", "show", "slc-sata"]),
        v(&["config", "list"]),
        v(&["experiment", "list"]),
        v(&[
            "lifetime",
            "--capacity",
            "1TB",
            "--pe",
            "3000",
            "--write-rate",
            "100MB/s",
            "--waf",
            "2",
        ]),
        v(&["trace", "formats"]),
        v(&["traces", "list", "--traces", "."]),
        v(&["trace", "stats", "t.csv", "--format", "msr"]),
        v(&["trace", "convert", "t.csv", "--format", "msr", "--to", "fio-iolog"]),
        v(&["run", "run.toml", "-q"]),
        v(&["run", "run.toml", "-q", "--output-format", "json"]),
    ]
}

#[test]
fn a_full_standard_output_is_one_line_and_status_2() {
    let d = tempfile::tempdir().unwrap();
    for args in stdout_commands(d.path()) {
        let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let o = ssdlab_to(d.path(), &a, Stdio::from(full));
        one_line(
            &o,
            "standard output: cannot write it (No space left on device",
            &format!("{a:?}"),
        );
    }
}

#[test]
fn a_closed_pipe_ends_quietly_with_status_141() {
    let d = tempfile::tempdir().unwrap();
    for args in stdout_commands(d.path()) {
        let a: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        // The reader is gone before the command starts: its first write fails.
        let (r, w) = std::io::pipe().unwrap();
        drop(r);
        let o = ssdlab_to(d.path(), &a, Stdio::from(w));
        assert_eq!(
            o.status.code(),
            Some(141),
            "{a:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(o.stderr.is_empty(), "{a:?}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

/// `path`'s bytes and modification time: unchanged when nothing wrote it.
fn state(path: &Path) -> (Vec<u8>, std::time::SystemTime) {
    (
        std::fs::read(path).unwrap(),
        std::fs::metadata(path).unwrap().modified().unwrap(),
    )
}

#[test]
fn an_output_that_is_an_input_is_refused_whatever_its_path() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("dev.toml"), RUN).unwrap();
    std::fs::write(p.join("j.fio"), "[w]\nrw=randwrite\nbs=4k\nnumber_ios=100\n").unwrap();
    // A job file whose options come from another by fio's `include`.
    std::fs::write(p.join("inc.fio"), "[w]\nrw=randwrite\ninclude part.fio\n").unwrap();
    std::fs::write(p.join("part.fio"), "bs=4k\nnumber_ios=100\n").unwrap();
    std::fs::write(p.join("t.csv"), "0,h,0,Write,0,4096,1\n10,h,0,Read,4096,4096,1\n").unwrap();
    std::fs::hard_link(p.join("dev.toml"), p.join("hard.toml")).unwrap();
    std::os::unix::fs::symlink("dev.toml", p.join("soft.toml")).unwrap();
    std::fs::create_dir(p.join("sub")).unwrap();
    // A snapshot to start from.
    let pre = RUN.replace("mode = \"none\"", "mode = \"sequential\"\nutilisation = 0.5");
    std::fs::write(p.join("pre.toml"), &pre).unwrap();
    let o = ssdlab_in(p, &["precondition", "pre.toml", "-o", "aged.snap", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // A replay job whose trace is named as the run's latency log would be.
    std::fs::write(p.join("x_lat.1.log"), "0,h,0,Write,0,4096,1\n").unwrap();
    std::fs::write(
        p.join("replay.toml"),
        "[device]\npreset = \"mlc-sata\"\n[device.geometry]\nblocks_per_plane = 64\noverprovisioning = 0.1\n\
         [precondition]\nmode = \"none\"\n[[job]]\nwrite_lat_log = \"x\"\n[job.trace]\nfile = \"x_lat.1.log\"\nformat = \"msr\"\n",
    )
    .unwrap();
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["precondition", "pre.toml", "-o", "pre.toml"],
            "pre.toml",
            "--output: 'pre.toml' is 'pre.toml'",
        ),
        (
            &["precondition", "pre.toml", "-o", "sub/../pre.toml"],
            "pre.toml",
            "--output: 'sub/../pre.toml' is 'pre.toml'",
        ),
        (
            &["run", "dev.toml", "-o", "./dev.toml"],
            "dev.toml",
            "--output: './dev.toml' is 'dev.toml'",
        ),
        (
            &["run", "dev.toml", "-o", "hard.toml"],
            "dev.toml",
            "--output: 'hard.toml' is 'dev.toml'",
        ),
        (
            &["run", "dev.toml", "-o", "soft.toml"],
            "dev.toml",
            "--output: 'soft.toml' is 'dev.toml'",
        ),
        (
            &["run", "dev.toml", "--job", "j.fio", "-o", "j.fio"],
            "j.fio",
            "--output: 'j.fio' is 'j.fio'",
        ),
        (
            &["run", "dev.toml", "--job", "inc.fio", "-o", "part.fio"],
            "part.fio",
            "--output: 'part.fio' is 'part.fio'",
        ),
        (
            &["run", "dev.toml", "--from-snapshot", "aged.snap", "-o", "aged.snap"],
            "aged.snap",
            "--output: 'aged.snap' is 'aged.snap'",
        ),
        (
            &["run", "replay.toml", "-o", "x_lat.1.log"],
            "x_lat.1.log",
            "--output: 'x_lat.1.log' is '",
        ),
        (
            &["run", "replay.toml", "-q"],
            "x_lat.1.log",
            "replay.toml:9:1: job[0].write_lat_log: the log 'x_lat.1.log' is '",
        ),
        (
            &[
                "trace", "convert", "t.csv", "--format", "msr", "--to", "native", "-o", "t.csv",
            ],
            "t.csv",
            "--output: 't.csv' is 't.csv'",
        ),
        (
            &["characterize", "dev.toml", "-o", "dev.toml"],
            "dev.toml",
            "--output: 'dev.toml' is 'dev.toml'",
        ),
        (
            &["profile", "t.csv", "-o", "t.csv"],
            "t.csv",
            "--output: 't.csv' is 't.csv'",
        ),
    ];
    for (args, input, prefix) in cases {
        let before = state(&p.join(input));
        let o = ssdlab_in(p, args);
        one_line(&o, prefix, &format!("{args:?}"));
        assert_eq!(state(&p.join(input)), before, "{args:?} changed {input}");
    }
}

/// `ssdlab ARGS` in `dir`, killed (and the test failed) if it has not ended in 60 s: a
/// command that reads a FIFO blocks until something writes it.
fn ssdlab_bounded(dir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{args:?} still running after 60 s: it blocked");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_fifo_a_device_or_a_directory_where_a_file_is_read_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("dev.toml"), RUN).unwrap();
    assert!(Command::new("mkfifo").arg(p.join("fifo")).status().unwrap().success());
    std::os::unix::fs::symlink("fifo", p.join("link")).unwrap();
    std::fs::create_dir(p.join("sub")).unwrap();
    let fifo = "it is a FIFO (named pipe), not a regular file; expected ";
    let cases: &[(&[&str], String)] = &[
        (
            &["run", "dev.toml", "--from-snapshot", "fifo"],
            format!("fifo: {fifo}a snapshot file"),
        ),
        (
            &["run", "dev.toml", "--from-snapshot", "link"],
            format!("link: {fifo}a snapshot file"),
        ),
        (
            &["run", "dev.toml", "--from-snapshot", "sub"],
            "sub: it is a directory, not a regular file; expected a snapshot file".into(),
        ),
        (
            &["run", "dev.toml", "--from-snapshot", "/dev/zero"],
            "/dev/zero: it is a device, not a regular file; expected a snapshot file".into(),
        ),
        (&["run", "link"], format!("link: {fifo}a config file")),
        (
            &["run", "/dev/zero"],
            "/dev/zero: it is a device, not a regular file; expected a config file".into(),
        ),
        (
            &["run", "dev.toml", "--job", "fifo"],
            format!("fifo: {fifo}a fio job file"),
        ),
        (
            &["precondition", "fifo", "-o", "x.snap"],
            format!("fifo: {fifo}a config file"),
        ),
        (
            &["lifetime", "--from", "fifo"],
            format!("fifo: {fifo}a run's JSON result"),
        ),
    ];
    for (args, prefix) in cases {
        let o = ssdlab_bounded(p, args);
        one_line(&o, prefix, &format!("{args:?}"));
    }
}

#[test]
fn a_folder_of_another_experiments_results_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("res");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("result.json"), r#"{"experiment": "friendly", "claims": []}"#).unwrap();
    std::fs::write(out.join("fig.svg"), "<svg/>").unwrap();
    let o = ssdlab_in(d.path(), &["experiment", "openssd", "--quick", "--out", "res", "-q"]);
    one_line(&o, "--out: res holds the results of experiment friendly (res/result.json); expected a new folder, or one of openssd's results", "another experiment");
    assert!(!out.join("points").exists(), "nothing was written");
    std::fs::write(out.join("result.json"), "not json").unwrap();
    let o = ssdlab_in(d.path(), &["experiment", "openssd", "--quick", "--out", "res", "-q"]);
    one_line(
        &o,
        "--out: res/result.json is not an experiment's result",
        "not a result",
    );
}

/// A key that cannot act where it is given is an error naming it (at the line it was
/// written), not a run that ignores it.
#[test]
fn keys_that_do_nothing_where_given_are_errors_naming_them() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(p.join("t.csv"), "0,h,0,Write,0,4096,1\n100,h,0,Read,0,4096,1\n").unwrap();
    let trace = |key: &str| {
        format!(
            "[device]\npreset = \"mlc-sata\"\n[device.geometry]\nblocks_per_plane = 64\noverprovisioning = 0.1\n\
             [precondition]\nmode = \"none\"\n[[job]]\n{key}\n[job.trace]\nfile = \"t.csv\"\nformat = \"msr\"\n"
        )
    };
    let cases = [
        ("number_ios = 777", "t.toml:9:1: job[0].number_ios: set on a job that replays a trace, where it does nothing; expected trace.max_requests"),
        ("io_size = \"1MiB\"", "t.toml:9:1: job[0].io_size: set on a job that replays a trace"),
        ("thinktime = \"1ms\"", "t.toml:9:1: job[0].thinktime: set on a job that replays a trace at its timestamps"),
        ("rw = \"randwrite\"", "t.toml:9:1: job[0].rw: set on a job that replays a trace"),
        ("bs = \"8KiB\"", "t.toml:9:1: job[0].bs: set on a job that replays a trace"),
        ("size = \"1GiB\"", "t.toml:9:1: job[0].size: set on a job that replays a trace"),
    ];
    for (key, prefix) in cases {
        std::fs::write(p.join("t.toml"), trace(key)).unwrap();
        one_line(&ssdlab_in(p, &["run", "t.toml", "-q"]), prefix, key);
    }
    // A think time acts between a closed replay's requests: accepted.
    std::fs::write(p.join("t.toml"), trace("thinktime = \"1ms\"\nreplay = \"closed\"")).unwrap();
    let o = ssdlab_in(p, &["run", "t.toml", "-q"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Placement keys a policy never reads.
    for (set, prefix) in [
        (
            vec!["device.placement.width=\"bogus\""],
            "--set device.placement.width=\"bogus\": device.placement.width: set under placement policy \"plane\", which does not use it",
        ),
        (
            vec!["device.placement.policy=\"baseline\"", "device.placement.decay=\"1s\""],
            "--set device.placement.decay=\"1s\": device.placement.decay: set under placement policy \"baseline\", which does not use it; expected policy = autostream",
        ),
        (
            vec!["device.placement.policy=\"autostream\"", "device.placement.lifetime_chunk=\"1MiB\""],
            "--set device.placement.lifetime_chunk=\"1MiB\": device.placement.lifetime_chunk: set under placement policy \"autostream\"",
        ),
    ] {
        let mut args = vec!["run", "slc-sata", "-q"];
        for s in &set {
            args.extend(["--set", s]);
        }
        one_line(&ssdlab_in(p, &args), prefix, &format!("{set:?}"));
    }
}

/// Run `ssdlab ARGS` in `dir` to its end: its status and its peak resident memory in bytes
/// (the kernel's count). Started by a small python3 that reports its child's: a process
/// forked from this test binary starts its count at this binary's own resident size (Linux
/// keeps a forked child's high-water mark through exec), and this binary, running many tests
/// at once, is larger than some limits measured here.
fn peak_rss(dir: &Path, args: &[String]) -> (std::process::ExitStatus, u64) {
    const REPORT: &str = "import resource, subprocess, sys\n\
r = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n\
print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n";
    let o = Command::new("python3")
        .arg("-c")
        .arg(REPORT)
        .arg(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("python3 runs (the suite needs it)");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    let (code, kib) = out.trim().split_once(' ').expect("status and peak");
    let code: i32 = code.parse().unwrap();
    use std::os::unix::process::ExitStatusExt;
    // A negative code is the signal that ended it (subprocess's convention).
    let raw = if code >= 0 { code << 8 } else { -code };
    (
        std::process::ExitStatus::from_raw(raw),
        kib.parse::<u64>().unwrap() * 1024,
    )
}

/// `--max-memory` holds: a run accepted under a limit (its own estimate, the lowest limit it is
/// accepted under) peaks below it in resident memory, for readers, writers and mixes, one job
/// to thousands, with and without fio's logs.
#[test]
fn an_accepted_runs_peak_memory_stays_under_its_limit() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    let jobs = |n: usize, body: &str| -> String { (0..n).map(|i| format!("[j{i}]\n{body}")).collect() };
    let cases = [
        ("one reader", jobs(1, "rw=randread\nbs=4k\nnumber_ios=1000\n")),
        ("1000 readers", jobs(1000, "rw=randread\nbs=4k\nnumber_ios=50\n")),
        ("1000 writers", jobs(1000, "rw=randwrite\nbs=4k\nnumber_ios=50\n")),
        ("1000 mixes", jobs(1000, "rw=randrw\nbs=4k\nnumber_ios=50\n")),
        ("200 long mixes", jobs(200, "rw=randrw\nbs=4k\nnumber_ios=500\n")),
        (
            "100 mixes with logs",
            jobs(
                100,
                "rw=randrw\nbs=4k\nnumber_ios=200\nwrite_lat_log=l\nwrite_bw_log=b\n",
            ),
        ),
        (
            "8 x 4 clones, deep",
            jobs(
                8,
                "rw=randrw\nbs=16k\niodepth=32\nnumjobs=4\ngroup_reporting=1\nnumber_ios=5000\n",
            ),
        ),
    ];
    // `ssdlab ARGS --max-memory LIMIT` runs and peaks at or under LIMIT; the arguments.
    let under_limit = |what: &str, run: &[&str], limit: u64| -> Vec<String> {
        let args: Vec<String> = run
            .iter()
            .chain(&["-q", "-o", "out.txt", "--max-memory"])
            .map(|s| s.to_string())
            .chain([limit.to_string()])
            .collect();
        let (status, peak) = peak_rss(p, &args);
        assert!(status.success(), "{what}: refused or failed under its own estimate");
        eprintln!(
            "{what}: peak {peak} B, limit {limit} B, {:.3}",
            peak as f64 / limit as f64
        );
        assert!(
            peak <= limit,
            "{what}: peaked at {peak} bytes, above the limit of {limit} it was accepted under"
        );
        args
    };
    for (what, text) in cases {
        std::fs::write(p.join("j.fio"), &text).unwrap();
        let mut cfg = ssdlab_core::config::load_config("slc-sata").unwrap();
        cfg.set_jobs_from_fio("j.fio", &text).unwrap();
        let limit = ssdlab_core::sim::memory_estimate(&cfg).unwrap();
        let mut args = under_limit(what, &["run", "slc-sata", "--job", "j.fio"], limit);
        // One byte less and it is refused.
        *args.last_mut().unwrap() = (limit - 1).to_string();
        let o = ssdlab_in(p, &args.iter().map(|s| s.as_str()).collect::<Vec<_>>());
        assert_eq!(o.status.code(), Some(2), "{what}");
    }
    // Run files of their own: FDP in two reclaim groups with a plain sequential writer over
    // 60 % of the drive (unidentified writes spread over the groups), and an array of three
    // drives preconditioned each to its own state.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let fdp = std::fs::read_to_string(root.join("examples/fdp.toml"))
        .unwrap()
        .replace("open_superblocks = 4\n", "open_superblocks = 4\nreclaim_groups = 2\n")
        .replace(
            "[[job]]\nrw = \"write\"\nnumber_ios = 1\n",
            "[[job]]\nrw = \"write\"\nbs = \"128KiB\"\nsize = \"60%\"\n",
        );
    assert!(
        fdp.contains("reclaim_groups = 2") && fdp.contains("size = \"60%\""),
        "{fdp}"
    );
    let array = std::fs::read_to_string(root.join("examples/raid0-sata.toml")).unwrap();
    for (name, text) in [("fdp-groups.toml", fdp), ("array.toml", array)] {
        std::fs::write(p.join(name), &text).unwrap();
        let cfg = ssdlab_core::config::parse_config(&text, name, p).unwrap();
        let limit = ssdlab_core::sim::memory_estimate(&cfg).unwrap();
        under_limit(name, &["run", name], limit);
    }
}

/// Messages that named no flag or key, or said nothing of what was expected, in the one-line
/// form: `WHERE: what was wrong; expected WHAT`.
#[test]
fn unclear_messages_name_the_flag_or_key_and_what_was_expected() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path();
    std::fs::write(
        p.join("tk.fio"),
        "[j]\nrw=randread\nthinktime=1152921504606846\nnumber_ios=10\n",
    )
    .unwrap();
    let cases: &[(&[&str], &str)] = &[
        (&["run", "slc-sata", "--max-memory", "-1GiB"], "--max-memory: invalid value '-1GiB'; expected a value that is not negative"),
        (&["config", "show", "bogus"], "bogus: unknown preset; expected one of tlc-nvme, "),
        (&["bench", "--case", "bogus"], "--case: unknown benchmark 'bogus'; expected one of randwrite, "),
        (&["characterize", "slc-sata", "--sizes", "0"], "--sizes: request size 0 B; expected a positive multiple of 512 bytes"),
        (
            &["run", "slc-sata", "--job", "tk.fio", "-q", "--set", "precondition.mode=\"none\""],
            "tk.fio:3:1: job[0].thinktime: 1152921504606846000 ns between a clone's I/Os takes the run past the simulated-time horizon",
        ),
    ];
    for (args, prefix) in cases {
        one_line(&ssdlab_in(p, args), prefix, &format!("{args:?}"));
    }
    // A width the preset's one way per channel cannot take: at the width the user set, not at
    // the preset's `ways`.
    one_line(
        &ssdlab_in(
            p,
            &["run", "slc-sata", "-q", "--set", "device.placement.policy=\"baseline\"", "--set", "device.placement.width=\"1/2\""],
        ),
        "--set device.placement.width=\"1/2\": device.placement.width: got 1 chips per channel; expected a multiple of 2",
        "width",
    );
    // Two keys judged together are reported at the one the user wrote over the preset: a GC
    // threshold the preset's blocks cannot hold, a page size its mapping unit does not divide.
    for (file, text, prefix) in [
        (
            "gc.toml",
            "[device]\npreset = \"slc-sata\"\n[device.ftl]\ngc_threshold = 100000\n",
            "gc.toml:4:1: device.ftl.gc_threshold: 4096 blocks per plane against a GC threshold of 100000 free blocks; expected",
        ),
        (
            "pg.toml",
            "[device]\npreset = \"slc-sata\"\n[device.geometry]\npage_size = \"3KiB\"\n",
            "pg.toml:4:1: device.geometry.page_size: a mapping unit of 4096 bytes with pages of 3072; expected",
        ),
        // Host time that takes a clone past the simulated-time horizon: the job's key, not a
        // trace's timestamps.
        (
            "ht.toml",
            "[device]\npreset = \"slc-sata\"\n[precondition]\nmode = \"none\"\n[[job]]\nrw = \"randread\"\nhost_time = \"1000000000s\"\nnumber_ios = 100\n",
            "ht.toml:7:1: job[0].host_time: 1000000000000000000 ns of host time per I/O, one I/O after another on the clone's thread, takes the run past the simulated-time horizon",
        ),
        // A scratch share out of range is the share's fault, not the geometry's it sizes.
        (
            "ss.toml",
            "[device]\npreset = \"slc-sata\"\n[device.redundancy]\nscheme = \"hotr\"\nscratch = \"op\"\nscratch_share = inf\n",
            "ss.toml:6:1: device.redundancy.scratch_share: got inf; expected a share above 0 and at most 1",
        ),
    ] {
        std::fs::write(p.join(file), text).unwrap();
        one_line(&ssdlab_in(p, &["run", file, "-q"]), prefix, file);
    }
    // The traces folder that is a file: fetch cannot create it, list cannot read it.
    std::fs::write(p.join("afile"), "").unwrap();
    one_line(
        &ssdlab_in(p, &["traces", "fetch", "--traces", "afile", "example.ascii"]),
        "traces fetch: afile: cannot create it (",
        "traces fetch into a file",
    );
    one_line(
        &ssdlab_in(p, &["traces", "list", "--traces", "afile"]),
        "traces list: afile: not a folder; expected the traces folder (--traces DIR or SSDLAB_TRACES)",
        "traces list of a file",
    );
    // An option given twice (clap's own words had no "expected"), and fio's hours.
    std::fs::write(p.join("j.fio"), "[j]\nrw=randread\nsize=1m\n").unwrap();
    one_line(
        &ssdlab_in(p, &["run", "slc-sata", "--job", "j.fio", "--job", "j.fio"]),
        "--job: given more than once; expected it once",
        "--job twice",
    );
    std::fs::write(p.join("h.fio"), "[j]\nrw=randread\nsize=1m\nruntime=1x\n").unwrap();
    one_line(
        &ssdlab_in(p, &["run", "slc-sata", "--job", "h.fio"]),
        "h.fio:4: runtime: '1x': unknown time unit 'x'; expected ns, us, ms, s, min, h, d",
        "time unit",
    );
    // A path with a line break in it (found by fuzzing the output paths) is shown on the
    // one line of the message.
    one_line(
        &ssdlab_in(p, &["run", "slc-sata", "-q", "-o", "no\nsuch/r.json"]),
        "--output: no such: cannot write in it (",
        "line break in a path",
    );
    // An array member's curves that do not read: at the member's line.
    std::fs::write(p.join("bad.json"), "{}").unwrap();
    std::fs::write(
        p.join("a.toml"),
        "[device]\npreset = \"slc-sata\"\n[array]\nlayout = \"raid0\"\nstripe_unit = \"64KiB\"\n[[array.member]]\ncurves = \"bad.json\"\n[[array.member]]\ncurves = \"bad.json\"\n",
    )
    .unwrap();
    let o = ssdlab_in(p, &["run", "a.toml", "-q"]);
    one_line(&o, "a.toml:7:1: array.member[0].curves: ", "curves");
    // A precondition that writes nothing says so.
    let o = ssdlab_in(
        p,
        &[
            "run",
            "slc-sata",
            "-q",
            "--set",
            "precondition.utilisation=0",
            "-o",
            "r.txt",
        ],
    );
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("ssdlab: warning: precondition.mode = \"steady\" at precondition.utilisation = 0 writes nothing"),
        "{err}"
    );
}
