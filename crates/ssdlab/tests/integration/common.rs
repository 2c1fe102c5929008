//! Helpers shared by the command-line tests of `lifetime` and `lint`.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// The project root, where commands run.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Run `ssdlab ARGS` from the project root.
pub fn ssdlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("runs")
}

/// Standard output of a command that must succeed.
pub fn ok(args: &[&str]) -> String {
    let o = ssdlab(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The traces folder when it holds `names` (`ssdlab traces fetch`, or `SSDLAB_TRACES`), or
/// `None` (test skipped; a failure under CI).
pub fn shared(names: &[&str]) -> Option<PathBuf> {
    ssdlab_core::trace::catalogue::for_test(names)
}

/// The command fails with one line on standard error, exit status 2, nothing on standard
/// output: `ssdlab: error: PREFIX...; expected ...`.
pub fn refused(args: &[&str], prefix: &str) {
    let o = ssdlab(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(o.stdout.is_empty(), "{args:?}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    let msg = err.trim_end().strip_prefix("ssdlab: error: ").unwrap();
    assert!(
        msg.starts_with(prefix),
        "{args:?}:\n  got      {msg}\n  expected {prefix}"
    );
    assert!(msg.contains("; expected"), "{msg}");
}

/// The suite's one quick run of experiment `name` (`ssdlab experiment NAME --quick --out
/// DIR/NAME -q`, DIR being `$CARGO_TARGET_TMPDIR/quick`, which `scripts/test.sh` hands the
/// Python tests as `SSDLAB_QUICK_DIR`): the first test to ask runs it, the others take its
/// finished points from the folder's point files, as the command resumes, and get the same
/// folder and output (the tests of `outputs` show a resumed run gives the uninterrupted
/// run's bytes). Test processes take turns on the folder (a lock file beside it). Its folder
/// and standard output.
pub fn quick_experiment(name: &str) -> (PathBuf, String) {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("quick");
    std::fs::create_dir_all(&base).unwrap();
    let lock = std::fs::File::create(base.join(format!("{name}.lock"))).unwrap();
    // SAFETY: flock on a file this function owns; released when `lock` is dropped.
    assert_eq!(
        unsafe { libc::flock(std::os::fd::AsRawFd::as_raw_fd(&lock), libc::LOCK_EX) },
        0
    );
    let out = base.join(name);
    let o = ssdlab(&["experiment", name, "--quick", "--out", out.to_str().unwrap(), "-q"]);
    drop(lock);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (out, String::from_utf8_lossy(&o.stdout).into_owned())
}
