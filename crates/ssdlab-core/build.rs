//! The engine's build identity: `SSDLAB_SOURCE_HASH`, a hash of every source file of the
//! engine's crates (this one and the layers below it: ssdlab-base, ssdlab-flash,
//! ssdlab-workload), the embedded presets and the lock file. A result cached under one build
//! is never taken for another's (see `output::BUILD_ID`).

fn main() {
    let root = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut inputs = vec![root.join("src"), root.join("Cargo.toml")];
    for below in ["ssdlab-base", "ssdlab-flash", "ssdlab-workload"] {
        inputs.push(root.join("..").join(below).join("src"));
        inputs.push(root.join("..").join(below).join("Cargo.toml"));
    }
    inputs.push(root.join("../../configs"));
    inputs.push(root.join("../../Cargo.lock"));
    let hash = ssdlab_buildhash::source_hash(&root, &inputs);
    println!("cargo:rustc-env=SSDLAB_SOURCE_HASH={hash}");
}
