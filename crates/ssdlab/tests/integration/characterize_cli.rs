//! `ssdlab characterize` from the command line: the quick sweep of a preset, its table, the
//! read-only gain table, the JSON profile and the plots, and bad input (one line, status 2).

use crate::common::{ok, refused};

#[test]
fn quick_sweep_of_a_preset_prints_tables_and_writes_the_profile_and_plots() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("p.json");
    let plots = dir.path().join("svg");
    let out = ok(&[
        "characterize",
        "samsung-830",
        "--quick",
        "--threads",
        "2",
        "-o",
        json.to_str().unwrap(),
        "--plot",
        plots.to_str().unwrap(),
    ]);
    assert!(
        out.starts_with("samsung-830: 5 points (seq; 8MiB; depth 2; reads 0, 25, 50, 75, 100 %"),
        "{out}"
    );
    assert!(out.contains("Throughput (MB/s) by read share (%)"), "{out}");
    assert!(
        out.contains("Read-only gain P = RT - AT, sequential (the seed's Table 2)"),
        "{out}"
    );
    let row = out.lines().find(|l| l.starts_with("seq ")).unwrap();
    let mb: Vec<f64> = row.split_whitespace().skip(3).map(|x| x.parse().unwrap()).collect();
    assert_eq!(mb.len(), 5, "{row}");
    // Pure reads at the link-side ceiling (520 MB/s), pure writes at the flash's 350 MB/s.
    assert!(mb[4] > 490.0 && mb[4] <= 520.5, "{row}");
    assert!(mb[0] > 300.0 && mb[0] < 370.0, "{row}");
    let p: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let pts = p["points"].as_array().unwrap();
    assert_eq!(pts.len(), 5);
    assert_eq!(pts[2]["read_share"], 0.5);
    assert_eq!(pts[2]["pattern"], "sequential");
    assert_eq!(pts[2]["bs"], 8 << 20);
    for f in ["seq-d2.svg", "seq-8MiB.svg"] {
        assert!(plots.join(f).is_file(), "{f}");
    }
}

#[test]
fn narrowed_sweeps_and_bad_options() {
    let out = ok(&[
        "characterize",
        "intel-530",
        "--quick",
        "--step",
        "50",
        "--patterns",
        "rand",
        "--sizes",
        "2MiB",
        "--per-point",
        "64MiB",
        "--range",
        "4GiB",
    ]);
    assert!(
        out.starts_with("intel-530: 3 points (rand; 2MiB; depth 2; reads 0, 50, 100 %; 4GiB range, 64MiB per point)"),
        "{out}"
    );
    assert!(out.contains("random (the seed's Table 3)"), "{out}");
    refused(&["characterize", "nope", "--quick"], "");
    refused(&["characterize", "samsung-830", "--patterns", "zigzag"], "--patterns");
    refused(&["characterize", "samsung-830", "--step", "0"], "--step");
    refused(
        &["characterize", "samsung-830", "--quick", "--range", "1TiB"],
        "--range: range",
    );
}
