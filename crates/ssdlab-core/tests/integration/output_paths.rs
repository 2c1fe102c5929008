//! The output-path contract ([`ssdlab_core::contract::check_output_path`]) for a bounded time
//! in CI (the cargo-fuzz target `output_path` runs it unbounded): any spelling of a path, a
//! link to the input, `.` and `..`, names of temporaries, a directory, a missing folder.

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    #[test]
    fn any_output_path_is_checked_refused_or_written_whole(
        name in prop_oneof![
            "[a-z./]{1,12}",
            "(\\./|sub/|\\.\\./|sub/\\.\\./)*(input|link|sub|out|\\.out\\.x\\.tmp|missing/out)",
        ]
    ) {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("sub")).unwrap();
        ssdlab_core::contract::check_output_path(d.path(), &name);
    }
}

/// The contract itself tells a refusal from a write: the input and a link to it are refused,
/// another name is written, a path climbing out of the folder is not tried.
#[test]
fn the_input_and_its_link_are_refused_and_others_written() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("sub")).unwrap();
    let check = |n: &str| ssdlab_core::contract::check_output_path(d.path(), n);
    assert!(!check("input"));
    assert!(!check("link"));
    assert!(!check("sub/../input"));
    assert!(!check("../escape"));
    assert!(!check("sub"));
    assert!(check("out"));
    assert!(check("sub/../out2"));
    // Each case leaves the folder as it found it: the output it wrote is removed, so a
    // later case does not take it for a temporary (`x.tmp`) or an existing file.
    assert!(!d.path().join("out2").exists());
    assert!(check("x.tmp"));
    assert!(check("sub/x.tmp"));
}
