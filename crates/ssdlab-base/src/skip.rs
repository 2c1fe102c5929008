//! Tests that need something the machine may lack (a system tool, the shared traces): such a
//! test never passes without running. Under `CI` a missing need fails the test; elsewhere the
//! test says on standard error that it skipped and why, and, when `SSDLAB_SKIPPED` names a
//! file, appends one line to it (`TEST: REASON; install: PACKAGE`) so that `scripts/test.sh`
//! can list every skipped test, and the packages that would run it, at its end.

use std::io::Write;

/// A test that cannot run here: fails under `CI`, else records the skip. `reason` says what
/// is missing, `install` what provides it (a distribution package, or a command to run); the
/// test is named by its thread (the test harness names each test's thread after it).
pub fn skip(reason: &str, install: &str) {
    let test = test_name();
    let test = test.as_str();
    if std::env::var_os("CI").is_some() {
        panic!("{test}: {reason}, and CI is set (install: {install})");
    }
    eprintln!("skipped: {test}: {reason} (install: {install})");
    record(std::env::var_os("SSDLAB_SKIPPED").as_deref(), test, reason, install);
}

/// A test this machine cannot run for what no package provides (a privilege, a kernel
/// feature): recorded as a skip, never a failure, under `CI` too.
pub fn unavailable(reason: &str) {
    let test = test_name();
    let test = test.as_str();
    eprintln!("skipped: {test}: {reason}");
    record(
        std::env::var_os("SSDLAB_SKIPPED").as_deref(),
        test,
        reason,
        "not a package: see the reason",
    );
}

/// The running test's name: the test harness names each test's thread after it.
fn test_name() -> String {
    std::thread::current().name().unwrap_or("a test").to_string()
}

/// Append the skip's line to `file` (nothing without one).
fn record(file: Option<&std::ffi::OsStr>, test: &str, reason: &str, install: &str) {
    let Some(path) = file.filter(|p| !p.is_empty()) else {
        return;
    };
    // One write of the whole line: test binaries run at once append without tearing lines.
    let line = format!("{test}: {reason}; install: {install}\n");
    if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
        let _ = f.write_all(line.as_bytes());
    }
}

/// `name` on the `PATH`, as the shell would find it (an executable file).
pub fn on_path(name: &str) -> Option<std::path::PathBuf> {
    which::which(name).ok()
}

/// `name` on the `PATH`, or the test is skipped (see [`skip`]) with `package` to install.
pub fn tool(name: &str, package: &str) -> Option<std::path::PathBuf> {
    let p = on_path(name);
    if p.is_none() {
        skip(&format!("{name} is not installed"), package);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_is_recorded_as_one_line_per_test() {
        let dir = std::env::temp_dir().join(format!("ssdlab-skip-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("skipped.txt");
        record(Some(f.as_os_str()), "serve::a", "nbdkit is not installed", "nbdkit");
        record(Some(f.as_os_str()), "fio::b", "fio is not installed", "fio");
        record(None, "x", "y", "z");
        record(Some(std::ffi::OsStr::new("")), "x", "y", "z");
        assert_eq!(
            std::fs::read_to_string(&f).unwrap(),
            "serve::a: nbdkit is not installed; install: nbdkit\nfio::b: fio is not installed; install: fio\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_tool_is_found_on_the_path_or_not() {
        assert!(on_path("sh").is_some());
        assert!(on_path("no-such-tool-ssdlab").is_none());
    }
}
