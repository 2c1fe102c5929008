//! Output paths, whatever their spelling, under a folder holding the command's input and a
//! link to it: checked, refused when they are the input, or written whole; the input kept and
//! no temporary left (`ssdlab_core::contract::check_output_path`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn dir() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(name) = std::str::from_utf8(data) else { return };
    ssdlab_core::contract::check_output_path(dir().path(), name);
});
