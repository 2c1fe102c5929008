//! A build identity for a build script: a SHA-256 over files (their paths relative to the
//! crate's folder, and their contents, in sorted order), so that a result cached under one
//! build is never taken for another's and an uncommitted edit changes it as a commit does.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Every file under `dir`, recursively.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The first 8 bytes, in hex, of the SHA-256 of `inputs` (files, or folders taken whole),
/// paths named relative to `root` (the crate's folder: the hash does not depend on where the
/// tree is checked out). Prints cargo's `rerun-if-changed` line for each input.
pub fn source_hash(root: &Path, inputs: &[PathBuf]) -> String {
    let mut all = Vec::new();
    for p in inputs {
        println!("cargo:rerun-if-changed={}", p.display());
        if p.is_dir() {
            files(p, &mut all);
        } else if p.is_file() {
            all.push(p.clone());
        }
    }
    all.sort();
    let mut h = Sha256::new();
    for p in &all {
        let rel = p.strip_prefix(root).unwrap_or(p);
        h.update(rel.to_string_lossy().as_bytes());
        h.update([0]);
        let bytes = std::fs::read(p).unwrap_or_default();
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_follows_contents_and_names_but_not_the_location() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        for d in [a.path(), b.path()] {
            std::fs::create_dir_all(d.join("src/x")).unwrap();
            std::fs::write(d.join("src/lib.rs"), "fn f() {}").unwrap();
            std::fs::write(d.join("src/x/y.rs"), "fn g() {}").unwrap();
        }
        let h = |d: &Path| source_hash(d, &[d.join("src")]);
        let ha = h(a.path());
        assert_eq!(ha.len(), 16);
        assert!(ha.chars().all(|c| c.is_ascii_hexdigit()));
        assert_eq!(ha, h(b.path()), "the same files elsewhere");
        std::fs::write(b.path().join("src/x/y.rs"), "fn g() { }").unwrap();
        assert_ne!(ha, h(b.path()), "an edited file");
        std::fs::write(b.path().join("src/x/y.rs"), "fn g() {}").unwrap();
        assert_eq!(ha, h(b.path()));
        std::fs::rename(b.path().join("src/x/y.rs"), b.path().join("src/x/z.rs")).unwrap();
        assert_ne!(ha, h(b.path()), "a renamed file");
        // Contents moved across a file boundary change it too (lengths are hashed).
        std::fs::rename(b.path().join("src/x/z.rs"), b.path().join("src/x/y.rs")).unwrap();
        std::fs::write(b.path().join("src/lib.rs"), "fn f() {}fn").unwrap();
        std::fs::write(b.path().join("src/x/y.rs"), " g() {}").unwrap();
        assert_ne!(ha, h(b.path()));
    }
}
