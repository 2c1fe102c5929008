//! Contracts on untrusted input that the property tests check for a bounded time in CI and
//! the fuzz targets (`fuzz/`: `snapshot`, `output_path`) check for as long as they are run:
//!
//! - a snapshot file edited after it was written, its checksum recomputed, is refused with
//!   one line or starts a run that ends; never a panic;
//! - an output path, whatever its spelling, is checked, refused when it is the command's
//!   input, or written whole; never a partial file, a temporary left behind, or a changed input.

use crate::output;
use crate::snapshot::Snapshot;
use crate::{Config, Simulation};
use std::path::{Component, Path, PathBuf};

/// What became of an edited snapshot.
#[derive(Debug, PartialEq, Eq)]
pub enum Edited {
    /// Refused by the checks of its state ([`crate::ftl::Ftl::check_loaded`]).
    RefusedByChecks,
    /// Refused otherwise (it does not decode, or another check).
    Refused,
    /// Its run ended.
    Ran,
}

/// The checksum of a snapshot file recomputed over its edited bytes, as a forger would.
pub fn resum(b: &mut [u8]) {
    if b.len() < 4 {
        return;
    }
    let n = b.len() - 4;
    let crc = crc32fast::hash(&b[..n]);
    b[n..].copy_from_slice(&crc.to_le_bytes());
}

/// Apply `edits` to the snapshot file `good` (5 bytes each: a little-endian offset into the
/// bytes after its 20-byte preamble, modulo their length, then the byte written there),
/// recompute its checksum, write it to `path` and run `cfg` from it. Panics if the contract
/// is broken: an error of more than one line (a panic inside is the fuzzer's or the test's).
pub fn check_snapshot_edits(good: &[u8], edits: &[u8], path: &str, cfg: &Config) -> Edited {
    let mut b = good.to_vec();
    let body = b.len().saturating_sub(24);
    if body == 0 {
        return Edited::Refused;
    }
    for e in edits.chunks_exact(5) {
        let at = u32::from_le_bytes([e[0], e[1], e[2], e[3]]) as usize % body;
        b[20 + at] = e[4];
    }
    resum(&mut b);
    check_snapshot_file(&b, path, cfg)
}

/// Write `bytes` to `path` and run `cfg` from it (see [`check_snapshot_edits`]).
pub fn check_snapshot_file(bytes: &[u8], path: &str, cfg: &Config) -> Edited {
    std::fs::write(path, bytes).expect("the test's file is written");
    let r =
        Snapshot::load(path).and_then(|s| Simulation::from_snapshot(cfg, s, path, &mut |_, _| {})?.run(&mut |_| {}));
    match r {
        Ok(_) => Edited::Ran,
        Err(e) => {
            // As the command and the Python package show it.
            let e = e.message();
            assert!(!e.contains('\n'), "an error of more than one line: {e}");
            if e.contains("does not hold together") {
                Edited::RefusedByChecks
            } else {
                Edited::Refused
            }
        }
    }
}

/// `name` taken lexically under `dir`, or `None` when it is absolute or climbs out of it.
fn inside(dir: &Path, name: &str) -> Option<PathBuf> {
    let mut depth = 0usize;
    for c in Path::new(name).components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => depth = depth.checked_sub(1)?,
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(dir.join(name))
}

/// Check the output path `name` under the directory `dir` (a path that is absolute or climbs
/// out of `dir` is not tried), whose file `input` (and the link `link` to it) the command
/// reads: checking the path, refusing it as the input and writing it are one-line errors or a
/// whole file, the input keeps its bytes and no temporary is left. Panics if the contract is
/// broken. Returns whether the file was written.
pub fn check_output_path(dir: &Path, name: &str) -> bool {
    if name.contains('\0') {
        return false;
    }
    let Some(path) = inside(dir, name) else { return false };
    let input = dir.join("input");
    if !input.exists() {
        std::fs::write(&input, "INPUT").expect("the test's input is written");
        #[cfg(unix)]
        let _ = std::os::unix::fs::symlink("input", dir.join("link"));
    }
    let one_line = |e: &str| assert!(!e.contains('\n'), "an error of more than one line: {e}");
    if let Err(e) = output::check_file_dir(&path) {
        one_line(&crate::error::one_line(e));
    }
    let written = match output::refuse_input("--output", &path, &[&input]) {
        Err(e) => {
            one_line(&e.message());
            assert!(
                output::same_file(&path, &input),
                "{name}: refused, yet it is not the input"
            );
            false
        }
        Ok(()) => {
            assert!(!output::same_file(&path, &input), "{name}: the input, yet not refused");
            match output::write(&path, b"OUT") {
                Err(e) => {
                    one_line(&e.message());
                    false
                }
                Ok(()) => {
                    if std::fs::metadata(&path).is_ok_and(|m| m.is_file()) {
                        assert_eq!(std::fs::read(&path).expect("written"), b"OUT", "{name}: not whole");
                    }
                    true
                }
            }
        }
    };
    assert_eq!(
        std::fs::read(&input).expect("the input"),
        b"INPUT",
        "{name}: the input changed"
    );
    let mut left = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p.clone());
            }
            // The output itself may be named like one.
            if p.file_name().is_some_and(|n| n.to_string_lossy().ends_with(".tmp")) && !output::same_file(&p, &path) {
                left.push(p);
            }
        }
    }
    assert!(left.is_empty(), "{name}: temporaries left: {left:?}");
    // Each case starts from the folder as it was: a file written here (named `x.tmp`, say)
    // is the user's output, not a temporary of the next case.
    if written && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
        let _ = std::fs::remove_file(&path);
    }
    written
}
