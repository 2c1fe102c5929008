//! The lab's build identity: `SSDLAB_LAB_HASH`, a SHA-256 of the lab's source files (paths and
//! contents, in sorted order). A cached experiment point is keyed by it beside the engine's
//! `BUILD_ID`, so an edit of an experiment's file runs its points again without the engine
//! being rebuilt.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

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

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let src = root.join("src");
    println!("cargo:rerun-if-changed={}", src.display());
    let mut all = Vec::new();
    files(&src, &mut all);
    all.sort();
    let mut h = Sha256::new();
    for p in &all {
        h.update(p.strip_prefix(&root).unwrap_or(p).to_string_lossy().as_bytes());
        h.update([0]);
        let bytes = std::fs::read(p).unwrap_or_default();
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    let hex: String = h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=SSDLAB_LAB_HASH={hex}");
}
