//! fio job files: any text gives jobs that validate or a one-line error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut cfg = ssdlab_core::config::load_config("mlc-sata").expect("preset");
    if let Err(e) = cfg.set_jobs_from_fio("fuzz.fio", text) {
        let msg = e.to_string();
        assert!(!msg.contains('\n'), "{msg}");
        assert!(msg.starts_with("fuzz.fio"), "{msg}");
    }
});
