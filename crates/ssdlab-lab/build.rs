//! The lab's build identity: `SSDLAB_LAB_HASH`, a hash of the lab's source files. A cached
//! experiment point is keyed by it beside the engine's `BUILD_ID`, so an edit of an
//! experiment's file runs its points again without the engine being rebuilt.

fn main() {
    let root = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let hash = ssdlab_buildhash::source_hash(&root, &[root.join("src")]);
    println!("cargo:rustc-env=SSDLAB_LAB_HASH={hash}");
}
