//! Run files: any text is a config or a one-line error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(e) = ssdlab_core::config::parse_config(text, "fuzz.toml", Path::new(".")) {
        let msg = e.to_string();
        assert!(!msg.contains('\n'), "{msg}");
        assert!(msg.starts_with("fuzz.toml") || msg.starts_with("preset "), "{msg}");
    }
});
