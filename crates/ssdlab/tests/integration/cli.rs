//! The command line as a user meets it: the default run, outputs, and bad input.

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ssdlab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("runs")
}

/// A directory removed when the test ends (pass or fail).
fn tmp_dir() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("ssdlab-cli-").tempdir().unwrap()
}

/// Write `text` to `name` in `dir`; its path.
fn tmp(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

/// A small valid run file.
const SMALL: &str = r#"
[device]
preset = "mlc-sata"
[device.geometry]
blocks_per_plane = 128
[[job]]
rw = "randrw"
iodepth = 4
number_ios = 2000
"#;

// The default run's printed summary is checked line by line by tests/integration/docs.rs (README.md).

#[test]
fn precondition_line_says_what_was_done() {
    let dir = tmp_dir();
    let cfg = tmp(&dir, "pre.toml", SMALL);
    let run = |mode: &str| {
        let m = format!("precondition.mode={mode}");
        let o = ssdlab(&["run", &cfg, "--set", &m, "--set", "precondition.utilisation=0.5"]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let seq = run("sequential");
    assert!(
        seq.contains("  precondition: sequential fill to 0.5 utilisation ("),
        "{seq}"
    );
    assert!(!seq.contains("steady WAF"), "{seq}");
    let steady = run("steady");
    assert!(
        steady.contains("  precondition: steady to 0.5 utilisation, steady WAF "),
        "{steady}"
    );
    assert!(!steady.contains("not converged"), "{steady}");
    assert!(!run("none").contains("precondition:"));
}

#[test]
fn json_output_has_fio_shape_and_goes_to_a_file() {
    let dir = tmp_dir();
    let cfg = tmp(&dir, "small.toml", SMALL);
    let out = dir.path().join("out.json");
    let o = ssdlab(&[
        "run",
        &cfg,
        "--output-format",
        "json",
        "--output",
        out.to_str().unwrap(),
        "--check",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // --check says that it checked.
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("ssdlab: --check: the FTL's and the device's invariants hold after the run"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let read = &v["jobs"][0]["read"];
    assert!(read["total_ios"].as_u64().unwrap() > 500);
    assert!(read["clat_ns"]["percentile"]["99.000000"].as_u64().unwrap() > 0);
    let keys: Vec<&String> = read["clat_ns"]["percentile"].as_object().unwrap().keys().collect();
    assert_eq!(keys.first().map(|s| s.as_str()), Some("1.000000"));
    assert_eq!(keys.last().map(|s| s.as_str()), Some("99.990000"));
    for k in [
        "waf",
        "flash",
        "gc",
        "wear",
        "free_blocks_over_time",
        "interference",
        "scheduler",
        "span",
        "throughput",
        "warnings",
        "sim_time_ns",
        "wall_time_s",
        "sim_requests_per_wall_s",
    ] {
        assert!(v["ssd"].get(k).is_some(), "ssd.{k} missing");
    }
}

#[test]
fn examples_run() {
    let o = ssdlab(&["run", "examples/small.toml", "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("oltp:") && out.contains("log:"), "{out}");
    let o = ssdlab(&["run", "--job", "examples/mixed.fio", "examples/small.toml", "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("randread:") && out.contains("randwrite:"), "{out}");
}

#[test]
fn job_files_include_option_files_beside_them() {
    let d = tempfile::tempdir().unwrap();
    let sub = d.path().join("jobs");
    std::fs::create_dir(&sub).unwrap();
    // fio's own example of an include, with the options our simulation reads: the included
    // files are found beside the job file (the test runs from another folder).
    std::fs::write(sub.join("glob-include.fio"), "bs=4k\nnumber_ios=2000\n").unwrap();
    std::fs::write(sub.join("test-include.fio"), "ioengine=libaio\niodepth=4\n").unwrap();
    std::fs::write(
        sub.join("including.fio"),
        "; -- start job file including.fio --\n[global]\nfilename=/tmp/test\ninclude glob-include.fio\n\n\
         [test]\nrw=randread\ninclude test-include.fio\n",
    )
    .unwrap();
    std::fs::write(
        sub.join("inline.fio"),
        "[global]\nfilename=/tmp/test\nbs=4k\nnumber_ios=2000\n[test]\nrw=randread\nioengine=libaio\niodepth=4\n",
    )
    .unwrap();
    let run = |f: &str| {
        let f = sub.join(f);
        let o = ssdlab(&[
            "run",
            "--job",
            f.to_str().unwrap(),
            "examples/small.toml",
            "-q",
            "--output-format",
            "json",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        (
            v["jobs"][0]["read"]["total_ios"].clone(),
            v["jobs"][0]["read"]["lat_ns"].clone(),
        )
    };
    let got = run("including.fio");
    assert_eq!(got.0, 2000);
    assert_eq!(
        got,
        run("inline.fio"),
        "an include reads as the options written in place"
    );
}

#[test]
fn config_show_prints_presets() {
    let o = ssdlab(&["config", "show", "cosmos-openssd"]);
    assert!(o.status.success());
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("channels = 4") && out.contains("page_size = \"8KiB\"") && out.contains("pages_per_block = 256")
    );
    // Sizes and rates with their bytes, as comments: the text is still the preset's TOML.
    assert!(out.contains("page_size = \"8KiB\"  # 8192 B\n"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.contains("MB/s\"  # ") && l.ends_with("000000 B/s")),
        "{out}"
    );
    assert!(!out.contains("us\"  # "), "durations are not sizes: {out}");
    assert!(out.parse::<toml::Table>().is_ok());
    let o = ssdlab(&["config", "list"]);
    let list = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(list.contains("mlc-sata"));
    // The built-in hard disks are listed and shown as the SSD presets are, and run by name.
    for (name, text) in ssdlab_core::hdd::PRESETS {
        assert!(
            list.lines().any(|l| l.starts_with(name) && l.ends_with("(hard disk)")),
            "{list}"
        );
        let o = ssdlab(&["config", "show", name]);
        assert_eq!(String::from_utf8_lossy(&o.stdout), *text);
    }
    let o = ssdlab(&["config", "show", "nope"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("hdd-7200-enterprise"));
}

#[test]
fn the_run_header_gives_each_jobs_sizes_in_bytes() {
    // TOML's "1GB" is 10^9 bytes and "64MiB" 2^26; a share of the device resolved.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("h.toml");
    std::fs::write(
        &f,
        "[device]\npreset = \"femu-bbssd\"\n[precondition]\nmode = \"none\"\n[[job]]\nname = \"w\"\nrw = \"randwrite\"\nbs = \"4KiB\"\noffset = \"50%\"\nsize = \"1GB\"\nio_size = \"64MiB\"\niodepth = 8\n",
    )
    .unwrap();
    let o = ssdlab(&["run", f.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    let logical = ssdlab_core::config::load_config("femu-bbssd").unwrap();
    let cap = ssdlab_core::Simulation::new(&logical).unwrap().volume.logical_bytes();
    let want = format!(
        "ssdlab: job w: rw=randwrite, bs=4096B, offset={}B, size=1000000000B, io_size=67108864B, iodepth=8\n",
        cap / 2 / 4096 * 4096
    );
    assert!(err.contains(&want), "{want}\n{err}");
    // Quiet: no header.
    let o = ssdlab(&["run", f.to_str().unwrap(), "-q"]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("ssdlab: job"));
}

/// Every bad input: exit status 2, one line on stderr naming what is wrong, no panic.
fn bad(args: &[&str], must_contain: &[&str]) {
    let o = ssdlab(args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    for m in must_contain {
        assert!(err.contains(m), "{args:?}: '{m}' not in: {err}");
    }
}

#[test]
fn bad_input_is_a_clear_error_with_status_2() {
    let dir = tmp_dir();
    let with = |name: &str, from: &str, to: &str| -> String {
        assert!(SMALL.contains(from), "{from}");
        tmp(&dir, name, &SMALL.replacen(from, to, 1))
    };
    let f = with("unknown.toml", "iodepth = 4", "iodepth = 4\nfrobnicate = 1");
    bad(&["run", &f, "-q"], &["unknown.toml", "frobnicate"]);
    let f = tmp(
        &dir,
        "unit.toml",
        &SMALL.replace(
            "[device.geometry]",
            "[device.nand]\nerase = \"3 parsecs\"\n[device.geometry]",
        ),
    );
    bad(&["run", &f, "-q"], &["unit.toml", "parsecs"]);
    let f = with("geo.toml", "blocks_per_plane = 128", "blocks_per_plane = 400000000");
    bad(&["run", &f, "-q"], &["geo.toml", "device.geometry"]);
    let f = with("range.toml", "number_ios = 2000", "number_ios = 2000\nsize = \"10TiB\"");
    bad(
        &["run", &f, "-q"],
        &["range.toml", "job[0].size", "passes the end of the device"],
    );
    let f = with("qd.toml", "iodepth = 4", "iodepth = 0");
    bad(&["run", &f, "-q"], &["qd.toml", "job[0].iodepth"]);
    let f = with("pol.toml", "[[job]]", "[device.ftl]\ngc_policy = \"oracle\"\n[[job]]");
    bad(&["run", &f, "-q"], &["pol.toml", "gc_policy", "greedy"]);
    let f = with(
        "dist.toml",
        "number_ios = 2000",
        "number_ios = 2000\nrandom_distribution = \"zipf\"",
    );
    bad(&["run", &f, "-q"], &["dist.toml", "random_distribution"]);
    let f = with("syntax.toml", "[[job]]", "[[job]\n");
    bad(&["run", &f, "-q"], &["syntax.toml:"]);
    let f = with("preset.toml", "mlc-sata", "nope");
    bad(&["run", &f, "-q"], &["preset.toml", "device.preset", "nope"]);
    let f = with(
        "op.toml",
        "blocks_per_plane = 128",
        "blocks_per_plane = 128\noverprovisioning = 0.001",
    );
    bad(&["run", &f, "-q"], &["op.toml", "overprovisioning"]);
    bad(&["run", "/nonexistent/run.toml"], &["/nonexistent/run.toml"]);
    let fio = tmp(&dir, "bad.fio", "[j]\nrw=randwrite\niodepth=0\n");
    bad(&["run", "--job", &fio, "-q"], &["bad.fio", "iodepth"]);
    let fio = tmp(&dir, "bad2.fio", "[j]\nrw=sideways\n");
    bad(&["run", "--job", &fio, "-q"], &["bad2.fio:2", "rw"]);
    bad(&["run", "--output-format", "xml"], &["xml"]);
    bad(&["config", "show", "nope"], &["nope"]);
    bad(&["frobnicate"], &["frobnicate"]);
}

/// True when the traces folder holds examples/replay.toml's traces; without them the test is
/// skipped, except under CI.
fn shared_traces() -> bool {
    ssdlab_core::trace::catalogue::for_test(&["tpcc-small.trace", "wsrch-small.trace"]).is_some()
}

#[test]
fn trace_replay_through_run_reports_its_counters() {
    if !shared_traces() {
        return;
    }
    let o = ssdlab(&["run", "examples/replay.toml", "--output-format", "json", "--check"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tpcc = &v["jobs"][0];
    let ios =
        |j: &serde_json::Value| j["read"]["total_ios"].as_u64().unwrap() + j["write"]["total_ios"].as_u64().unwrap();
    // Every record of the 6,999-line TPC-C trace is replayed, 63 % of them reads.
    assert_eq!(tpcc["ssdlab"]["trace"]["replayed"], 6999);
    assert_eq!(ios(tpcc), 6999);
    let reads = tpcc["read"]["total_ios"].as_u64().unwrap() as f64 / 6999.0;
    assert!((reads - 0.63).abs() < 0.01, "{reads}");
    assert!(tpcc["ssdlab"]["open_loop"].is_object());
    let ws = &v["jobs"][1];
    assert_eq!(ios(ws), ws["ssdlab"]["trace"]["replayed"].as_u64().unwrap());
    assert!(ws["ssdlab"]["open_loop"].is_null(), "closed-loop replay");
}

#[test]
fn reads_of_never_written_data_are_warned_about_on_stderr() {
    let dir = tmp_dir();
    // A fresh drive read at random: every read finds no data.
    let cfg = tmp(&dir,
        "fresh.toml",
        "[device]\npreset = \"slc-sata\"\n[precondition]\nmode = \"none\"\n[[job]]\nrw = \"randread\"\nnumber_ios = 500\n",
    );
    let o = ssdlab(&["run", &cfg, "--quiet", "--output-format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("ssdlab: warning: 500 of 500 host read units"), "{err}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["ssd"]["warnings"].as_array().unwrap().len(), 1);
}

/// The JSON result of a run, without its wall-clock fields.
fn json_result(args: &[&str]) -> serde_json::Value {
    let o = ssdlab(args);
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    let mut v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ssd = v["ssd"].as_object_mut().unwrap();
    ssd.remove("wall_time_s");
    ssd.remove("sim_requests_per_wall_s");
    if let Some(p) = ssd.get_mut("precondition").and_then(|p| p.as_object_mut()) {
        p.remove("wall_time_s");
    }
    v
}

#[test]
fn seed_option_replaces_the_run_seed() {
    let dir = tmp_dir();
    // The file says seed 9; --seed overrides it exactly as setting the key would.
    let cfg = tmp(
        &dir,
        "seed.toml",
        &(SMALL.replace("[[job]]", "[precondition]\nutilisation = 0.5\nseed = 9\n[[job]]")),
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["run", cfg.as_str(), "-q", "--output-format", "json"];
        args.extend_from_slice(extra);
        json_result(&args)
    };
    let file_seed = run(&[]);
    let seed5 = run(&["--seed", "5"]);
    assert_eq!(seed5, run(&["--set", "precondition.seed=5"]));
    assert_eq!(seed5, run(&["--seed", "5"]));
    assert_ne!(seed5, file_seed);
    assert_ne!(seed5, run(&["--seed", "6"]));
    assert_eq!(file_seed, run(&["--seed", "9"]));
}

/// The commands under `prefix` (from its help's `Commands:` list), `help` aside.
fn subcommands(prefix: &[&str]) -> Vec<String> {
    let mut args: Vec<&str> = prefix.to_vec();
    args.push("-h");
    let text = String::from_utf8(ssdlab(&args).stdout).unwrap();
    let Some(list) = text.split("Commands:\n").nth(1) else {
        return Vec::new();
    };
    list.lines()
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_option_of_every_command_says_what_it_does() {
    let mut commands: Vec<Vec<String>> = subcommands(&[]).into_iter().map(|c| vec![c]).collect();
    let mut i = 0;
    while i < commands.len() {
        let path: Vec<&str> = commands[i].iter().map(String::as_str).collect();
        for sub in subcommands(&path) {
            let mut p = commands[i].clone();
            p.push(sub);
            commands.push(p);
        }
        i += 1;
    }
    assert!(commands.len() > 12, "{commands:?}");
    let mut silent = Vec::new();
    for c in &commands {
        let mut args: Vec<&str> = c.iter().map(String::as_str).collect();
        args.push("-h");
        let text = String::from_utf8(ssdlab(&args).stdout).unwrap();
        let Some(options) = text.split("Options:\n").nth(1) else {
            continue;
        };
        for line in options.lines() {
            let t = line.trim_start();
            if !t.starts_with('-') {
                continue;
            }
            // `-q, --quiet  What it does`: the text after the name and its value.
            let rest = t.split_once("  ").map_or("", |(_, r)| r.trim());
            if rest.is_empty() || rest.starts_with('[') {
                silent.push(format!(
                    "ssdlab {}: {}",
                    c.join(" "),
                    t.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
                ));
            }
        }
    }
    assert!(silent.is_empty(), "options without help text:\n{}", silent.join("\n"));
}

#[test]
fn the_plots_page_shows_what_its_command_draws() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let page = std::fs::read_to_string(root.join("docs/plots.md")).unwrap();
    let cmd = page
        .lines()
        .find(|l| l.starts_with("ssdlab run ") && l.contains("--plot docs/plots"))
        .expect("the page's command");
    let dir = tempfile::tempdir().unwrap();
    let args: Vec<String> = cmd
        .split_whitespace()
        .skip(1)
        .map(|a| match a {
            "docs/plots" => dir.path().display().to_string(),
            "examples/plots.fio" => root.join(a).display().to_string(),
            _ => a.to_string(),
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = ssdlab(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Every plot the page shows from the run is one the command drew, and is in the docs.
    let shown: Vec<&str> = page
        .split("](plots/")
        .skip(1)
        .map(|s| &s[..s.find(')').unwrap()])
        .collect();
    assert_eq!(shown.len(), 7, "{shown:?}");
    // The experiment's figures are files the openssd experiment writes (tests/integration/experiment.rs
    // checks its quick run draws them), kept in docs/plots.
    for name in shown.iter().filter(|n| n.starts_with("figure")) {
        assert!(root.join("docs/plots").join(name).is_file(), "{name} not in docs/plots");
    }
    for name in shown.iter().filter(|n| !n.starts_with("figure")) {
        assert!(dir.path().join(name).is_file(), "{name} not drawn");
        assert!(root.join("docs/plots").join(name).is_file(), "{name} not in docs/plots");
    }
    let drawn = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(drawn, 5, "the page shows every plot the command draws");
}

/// docs/fio.md's table of every fio option is what `ssdlab config fio-options` prints (the
/// code's own table), between its markers.
#[test]
fn fio_md_lists_every_option_as_the_code_does() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let page = std::fs::read_to_string(root.join("docs/fio.md")).unwrap();
    let start = page.find("<!-- fio-options").expect("the table's start marker");
    let start = start + page[start..].find('\n').unwrap() + 1;
    let end = page.find("<!-- end fio-options -->").expect("the table's end marker");
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(["config", "fio-options"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let table = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        table.lines().count(),
        2 + ssdlab_core::workload::fio_options::OPTIONS.len()
    );
    assert!(
        page[start..end] == table,
        "docs/fio.md's table is not the code's; write it again: ssdlab config fio-options"
    );
}

#[test]
fn a_hard_disk_runs_by_its_name_or_its_file() {
    // 4 KiB random reads at queue depth 1 for 10 s on the 7200 rpm disk: an average seek
    // (12 ms), half a revolution (4.17 ms), the command overhead (0.3 ms) and a transfer
    // (0.07 ms) make about 16.5 ms a read, 60 reads a second; the short seeks of a random
    // offset's distance distribution are the model's (hdd.rs), so the band is wide.
    let by_name = ssdlab(&["run", "hdd-7200", "--output-format", "json"]);
    assert!(by_name.status.success(), "{}", String::from_utf8_lossy(&by_name.stderr));
    let v: serde_json::Value = serde_json::from_slice(&by_name.stdout).unwrap();
    let iops = v["jobs"][0]["read"]["iops"].as_f64().unwrap();
    assert!((45.0..80.0).contains(&iops), "{iops}");
    assert_eq!(v["hdd"]["rpm"], 7200);
    // The same disk as a file: the same bytes out.
    let by_file = ssdlab(&["run", "configs/hdd-7200.toml", "--output-format", "json"]);
    assert_eq!(by_file.stdout, by_name.stdout);
    let enterprise = ssdlab(&["run", "configs/hdd-7200-enterprise.toml"]);
    let text = String::from_utf8(enterprise.stdout).unwrap();
    assert!(
        text.contains("  read: IOPS=") && text.contains("\nhdd: hdd-7200-enterprise ("),
        "{text}"
    );
    // A job file runs on it too; what only an SSD has is refused in one line.
    let dir = tmp_dir();
    let job = tmp(&dir, "w.fio", "[w]\nrw=write\nbs=64k\nsize=64m\n");
    let o = ssdlab(&["run", "hdd-7200", "--job", &job, "--output-format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["jobs"][0]["write"]["io_bytes"], 64 << 20);
    let o = ssdlab(&["run", "hdd-7200", "--set", "job.0.bs=8k"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("ssdlab: error: --set") && err.lines().count() == 1,
        "{err}"
    );
}
