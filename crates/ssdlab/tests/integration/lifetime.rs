//! `ssdlab lifetime`: the article's two examples, units, inputs from a real run, overrides,
//! a run without writes, bad input.

use crate::common::{ok, refused};

/// `lifetime` with every input as a flag: 1 TB at 100 MB/s, `pe` cycles, WAF `waf`.
fn seed(pe: &'static str, waf: &'static str) -> [&'static str; 9] {
    [
        "lifetime",
        "--capacity",
        "1TB",
        "--pe",
        pe,
        "--write-rate",
        "100MB/s",
        "--waf",
        waf,
    ]
}

fn json(args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.extend(["--output-format", "json"]);
    serde_json::from_str(&ok(&a)).unwrap()
}

#[test]
fn the_articles_two_examples() {
    let a = seed("10000", "4");
    let text = ok(&a);
    assert!(
        text.starts_with("lifetime: 25000000 s (2.50e7 s, 9.6 months)\n"),
        "{text}"
    );
    assert!(text.contains("  capacity    1000000000000 bytes (1TB)"), "{text}");
    assert!(text.contains("from --waf"), "{text}");
    let v = json(&a);
    assert_eq!(v["seconds"], 2.5e7);
    assert_eq!(v["human"], "9.6 months");
    let b = seed("3000", "10");
    let v = json(&b);
    assert_eq!(v["seconds"], 3.0e6);
    assert_eq!(v["human"], "34.7 days");
    assert_eq!(v["infinite"], false);
    assert_eq!(v["inputs"]["pe_cycles"]["source"], "--pe");
}

#[test]
fn units_are_decimal_or_binary_as_written() {
    let secs = |cap: &str, rate: &str| -> f64 {
        let v = json(&[
            "lifetime",
            "--capacity",
            cap,
            "--pe",
            "1000",
            "--write-rate",
            rate,
            "--waf",
            "2",
        ]);
        v["seconds"].as_f64().unwrap()
    };
    assert_eq!(secs("1TB", "1MB/s"), 1e12 * 1000.0 / 2e6);
    assert_eq!(secs("1TiB", "1MB/s"), (1u64 << 40) as f64 * 1000.0 / 2e6);
    assert_eq!(
        secs("512GiB", "1MiB/s"),
        (512u64 << 30) as f64 * 1000.0 / (2.0 * (1u64 << 20) as f64)
    );
    assert_eq!(secs("1.5TB", "250KB/s"), 1.5e12 * 1000.0 / 5e5);
}

/// A run file small enough for a debug build: a 30/70 mix, so WAF, rate and capacity are
/// all non-trivial.
const RUN: &str = r#"
[device]
preset = "mlc-sata"
[device.geometry]
blocks_per_plane = 48
overprovisioning = 0.25
[device.nand]
endurance = 5000
[precondition]
mode = "steady"
utilisation = 0.8
[[job]]
rw = "randrw"
rwmixread = 30
iodepth = 8
number_ios = 30000
"#;

#[test]
fn inputs_from_a_run_and_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("run.toml");
    std::fs::write(&cfg, RUN).unwrap();
    let res = dir.path().join("result.json");
    let (cfg, res) = (cfg.to_str().unwrap(), res.to_str().unwrap());
    ok(&["run", cfg, "--quiet", "--output-format", "json", "--output", res]);
    let run: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(res).unwrap()).unwrap();
    let ssd = &run["ssd"];
    assert_eq!(ssd["endurance"], 5000);
    let cap = ssd["physical_bytes"].as_f64().unwrap();
    let rate = ssd["throughput"]["host_visible"]["write_bytes_per_s"].as_f64().unwrap();
    let waf = ssd["waf"].as_f64().unwrap();
    assert!(waf > 1.0 && rate > 0.0 && cap > ssd["logical_bytes"].as_f64().unwrap());
    let v = json(&["lifetime", "--from", res]);
    let secs = v["seconds"].as_f64().unwrap();
    assert_eq!(secs, cap * 5000.0 / (rate * waf));
    assert_eq!(v["inputs"]["waf"]["source"], format!("{res} (ssd.waf)").as_str());
    assert_eq!(
        v["inputs"]["capacity_bytes"]["source"],
        format!("{res} (ssd.physical_bytes)").as_str()
    );
    // Each flag replaces its input only.
    let v = json(&["lifetime", "--from", res, "--waf", "3"]);
    assert_eq!(v["seconds"].as_f64().unwrap(), cap * 5000.0 / (rate * 3.0));
    assert_eq!(v["inputs"]["waf"]["source"], "--waf");
    assert_eq!(
        v["inputs"]["pe_cycles"]["source"],
        format!("{res} (ssd.endurance)").as_str()
    );
    let v = json(&["lifetime", "--from", res, "--pe", "100", "--capacity", "1GB"]);
    assert_eq!(v["seconds"].as_f64().unwrap(), 1e9 * 100.0 / (rate * waf));
    let v = json(&["lifetime", "--from", res, "--write-rate", "10MB/s"]);
    assert_eq!(v["seconds"].as_f64().unwrap(), cap * 5000.0 / (1e7 * waf));
    let text = ok(&["lifetime", "--from", res]);
    assert!(
        text.contains(&format!("from {res} (ssd.throughput.host_visible.write_bytes_per_s)")),
        "{text}"
    );

    // A read-only run writes nothing: the flash does not wear.
    let ro = dir.path().join("ro.json");
    let ro = ro.to_str().unwrap();
    ok(&[
        "run",
        cfg,
        "--quiet",
        "--set",
        "job.0.rw=randread",
        "--output-format",
        "json",
        "--output",
        ro,
    ]);
    let v = json(&["lifetime", "--from", ro]);
    assert_eq!(v["infinite"], true);
    assert_eq!(v["seconds"], serde_json::Value::Null);
    assert_eq!(v["human"], "forever");
    let text = ok(&["lifetime", "--from", ro]);
    assert!(
        text.starts_with("lifetime: forever: the host writes nothing, so the flash does not wear\n"),
        "{text}"
    );
    assert!(!text.contains("NaN") && !text.contains("inf"), "{text}");
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"ssd\": {\"waf\": 2}}").unwrap();
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{\n  \"ssd\": [1,\n").unwrap();
    let (bad, broken) = (bad.to_str().unwrap(), broken.to_str().unwrap());
    let full = &seed("3000", "4")[1..];
    let with = |k: &str, v: &str| -> Vec<String> {
        let mut a = vec!["lifetime".to_string()];
        let mut it = full.iter();
        while let (Some(f), Some(x)) = (it.next(), it.next()) {
            a.push(f.to_string());
            a.push(if *f == k { v.to_string() } else { x.to_string() });
        }
        a
    };
    for (k, v, prefix) in [
        ("--capacity", "1 parsec", "--capacity: '1 parsec': unknown size unit"),
        ("--capacity", "0TB", "--capacity: '0TB': got zero"),
        ("--pe", "lots", "--pe: got 'lots'; expected a positive number"),
        ("--pe", "-3", "--pe: got '-3'; expected a positive number"),
        ("--write-rate", "100MB", "--write-rate: '100MB' is not a rate"),
        ("--write-rate", "0MB/s", "--write-rate: '0MB/s': got zero"),
        ("--waf", "0", "--waf: got '0'; expected a positive number"),
        ("--waf", "NaN", "--waf: got 'NaN'; expected a positive number"),
    ] {
        let a = with(k, v);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        refused(&a, prefix);
    }
    refused(
        &["lifetime", "--pe", "3000", "--write-rate", "1MB/s", "--waf", "2"],
        "--capacity: missing; expected --capacity with a value, or --from RESULT.json",
    );
    refused(&["lifetime", "--capacity", "1TB"], "--pe: missing");
    refused(&["lifetime", "--from", "no/such.json"], "no/such.json: No such file");
    refused(
        &["lifetime", "--from", bad],
        &format!("{bad}: ssd.physical_bytes: missing"),
    );
    refused(&["lifetime", "--from", broken], &format!("{broken}:3:1: not JSON"));
    refused(&["lifetime", "--frob"], "--frob: unknown option");
}
