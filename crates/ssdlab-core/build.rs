//! The engine's build identity: `SSDLAB_SOURCE_HASH`, a SHA-256 of every source file of the
//! engine's crates (this one and the layers below it: ssdlab-base, ssdlab-flash,
//! ssdlab-workload), the embedded presets and the lock file (paths and contents, in sorted
//! order). A
//! result cached under one build is never taken for another's (see `output::BUILD_ID`):
//! an uncommitted edit changes it as a commit does.

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

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let inputs = [
        root.join("src"),
        root.join("Cargo.toml"),
        root.join("../ssdlab-base/src"),
        root.join("../ssdlab-base/Cargo.toml"),
        root.join("../ssdlab-flash/src"),
        root.join("../ssdlab-flash/Cargo.toml"),
        root.join("../ssdlab-workload/src"),
        root.join("../ssdlab-workload/Cargo.toml"),
        root.join("../../configs"),
        root.join("../../Cargo.lock"),
    ];
    let mut all = Vec::new();
    for p in &inputs {
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
        let rel = p.strip_prefix(&root).unwrap_or(p);
        h.update(rel.to_string_lossy().as_bytes());
        h.update([0]);
        let bytes = std::fs::read(p).unwrap_or_default();
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    let hex: String = h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=SSDLAB_SOURCE_HASH={hex}");
}
