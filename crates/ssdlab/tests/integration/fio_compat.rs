//! fio compatibility of `ssdlab run`'s output: the JSON keys and types fio writes, json+ bins
//! read by fio's own tool, sampled bandwidth and IOPS, latency buckets, reporting groups,
//! fio's logs, the text percentiles, and the plots.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ssdlab_in(dir: &Path, args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_ssdlab"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

/// A small device without preconditioning: the runs take a moment.
const DEVICE: &str = r#"
[device]
preset = "mlc-sata"
[device.geometry]
blocks_per_plane = 128
[device.ftl]
bg_gc_threshold = 0
[precondition]
mode = "sequential"
utilisation = 0.5
"#;

/// Run `job_file` (fio job-file text) on the small device in `dir`, with `format`.
fn run_job(dir: &Path, job_file: &str, format: &str) -> String {
    std::fs::write(dir.join("dev.toml"), DEVICE).unwrap();
    std::fs::write(dir.join("job.fio"), job_file).unwrap();
    let o = ssdlab_in(
        dir,
        &["run", "-q", "--job", "job.fio", "dev.toml", "--output-format", format],
    );
    String::from_utf8(o.stdout).unwrap()
}

fn json_run(dir: &Path, job_file: &str) -> Value {
    serde_json::from_str(&run_job(dir, job_file, "json+")).unwrap()
}

/// Whether an external tool is there; absent under CI is a failure, elsewhere a skip
/// (`ssdlab_core::skip`).
fn tool(name: &str) -> bool {
    ssdlab_core::skip::tool(name, "fio").is_some()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Every key of `fio` (recursively) that `ours` lacks or holds with another JSON type. The
/// keys of json+ `bins` are latencies, so bins are compared as objects only.
fn missing(fio: &Value, ours: &Value, path: &str, out: &mut Vec<String>) {
    let (Value::Object(f), Value::Object(o)) = (fio, ours) else {
        return;
    };
    for (k, fv) in f {
        let p = format!("{path}/{k}");
        match o.get(k) {
            None => out.push(format!("{p}: missing")),
            Some(ov) if kind(ov) != kind(fv) => {
                out.push(format!("{p}: fio has {} ({fv}), ours {} ({ov})", kind(fv), kind(ov)))
            }
            Some(_) if k == "bins" => {}
            Some(ov) => missing(fv, ov, &p, out),
        }
    }
}

#[test]
fn every_key_fio_writes_is_ours_with_its_type() {
    if !tool("fio") {
        return;
    }
    let dir = tempfile::TempDir::new().unwrap();
    let data = dir.path().join("data");
    let job = |extra: &str| {
        format!(
            "[global]\nioengine=psync\nfilename={}\nsize=2m\nbs=4k\nruntime=1\ntime_based\n{extra}[mixed]\nrw=randrw\n",
            data.display()
        )
    };
    let fio = Command::new("fio")
        .args(["--output-format=json+", "-"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(job("").as_bytes())?;
            c.wait_with_output()
        })
        .expect("fio runs");
    assert!(fio.status.success(), "{}", String::from_utf8_lossy(&fio.stderr));
    let text = String::from_utf8_lossy(&fio.stdout);
    // fio may print notes before its JSON.
    let fio: Value = serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap();
    let ours = json_run(dir.path(), &job(""));
    let mut out = Vec::new();
    missing(&fio["jobs"][0], &ours["jobs"][0], "jobs[0]", &mut out);
    for (f, o) in fio["disk_util"]
        .as_array()
        .into_iter()
        .flatten()
        .zip(ours["disk_util"].as_array().unwrap())
    {
        missing(f, o, "disk_util[0]", &mut out);
    }
    assert!(out.is_empty(), "{}", out.join("\n"));
    // Both name the job's own options alike.
    assert_eq!(fio["jobs"][0]["job options"], ours["jobs"][0]["job options"]);
    assert_eq!(ours["jobs"][0]["job options"]["rw"], "randrw");
}

#[test]
fn fios_jsonplus_tool_reads_our_bins() {
    if !tool("fio_jsonplus_clat2csv") {
        return;
    }
    let dir = tempfile::TempDir::new().unwrap();
    let text = run_job(
        dir.path(),
        "[a]\nrw=randrw\nbs=4k\niodepth=4\nnumber_ios=3000\n",
        "json+",
    );
    std::fs::write(dir.path().join("out.json"), &text).unwrap();
    for extra in [&[][..], &["--validate"][..]] {
        let o = Command::new("fio_jsonplus_clat2csv")
            .args(["out.json", "out.csv"])
            .args(extra)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let csv = std::fs::read_to_string(dir.path().join("out_job0.csv")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let bins = |op: &str| v["jobs"][0][op]["clat_ns"]["bins"].as_object().unwrap().clone();
    let (r, w) = (bins("read"), bins("write"));
    // One CSV row per distinct bin value of either direction, under a header.
    let mut values: Vec<&String> = r.keys().chain(w.keys()).collect();
    values.sort();
    values.dedup();
    assert_eq!(csv.lines().count(), values.len() + 1, "{csv}");
    let count: u64 = r.values().chain(w.values()).map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(count, 3000);
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap()
}

#[test]
fn samples_buckets_and_groups_hold_their_values() {
    let dir = tempfile::TempDir::new().unwrap();
    let job = "[global]\nbs=4k\niodepth=8\ntime_based\n[a]\nrw=randrw\nruntime=2\nbw_avg_time=250\n[b]\nrw=randread\nruntime=1\nstonewall\n[c]\nrw=randwrite\nruntime=1\nnew_group\n";
    let v = json_run(dir.path(), job);
    let jobs = v["jobs"].as_array().unwrap();
    let ids: Vec<u64> = jobs.iter().map(|j| j["groupid"].as_u64().unwrap()).collect();
    assert_eq!(ids, [0, 1, 2]);
    for j in jobs {
        for op in ["read", "write"] {
            let r = &j[op];
            let ios = r["total_ios"].as_u64().unwrap();
            if ios == 0 {
                assert_eq!(r["bw_samples"], 0);
                continue;
            }
            let runtime_ms = r["runtime"].as_u64().unwrap();
            let bw_avg = if j["jobname"] == "a" { 250 } else { 500 };
            assert_eq!(
                r["bw_samples"].as_u64().unwrap(),
                runtime_ms / bw_avg,
                "{op} of {}",
                j["jobname"]
            );
            assert_eq!(r["iops_samples"].as_u64().unwrap(), runtime_ms / 500);
            for k in ["bw", "iops"] {
                let (min, max) = (num(&r[format!("{k}_min")]), num(&r[format!("{k}_max")]));
                let mean = num(&r[format!("{k}_mean")]);
                assert!(min <= mean && mean <= max && min > 0.0, "{k}: {min} {mean} {max}");
            }
            // The samples cover the runtime but its last part window: within one window's I/Os.
            let est = num(&r["iops_mean"]) * runtime_ms as f64 / 1000.0;
            assert!(
                (est - ios as f64).abs() <= 0.5 * num(&r["iops_max"]) + 1.0,
                "{est} vs {ios}"
            );
            // Sample mean and the overall rate agree within 5 %.
            assert!((num(&r["bw_mean"]) / r["bw"].as_u64().unwrap() as f64 - 1.0).abs() < 0.05);
            // slat: 0 for every I/O; lat = clat.
            assert_eq!(r["slat_ns"]["N"].as_u64().unwrap(), ios);
            assert_eq!(r["slat_ns"]["max"], 0);
            assert_eq!(r["lat_ns"]["mean"], r["clat_ns"]["mean"]);
        }
        let total: f64 = ["latency_ns", "latency_us", "latency_ms"]
            .iter()
            .flat_map(|k| j[k].as_object().unwrap().values().map(num))
            .sum();
        assert!((total - 100.0).abs() < 1e-3, "{total}");
        // Each job alone in its group has the group's bandwidth.
        if j["read"]["total_ios"].as_u64().unwrap() > 0 {
            assert!(
                (num(&j["read"]["bw_agg"]) - 100.0).abs() < 5.0,
                "{}",
                j["read"]["bw_agg"]
            );
        }
        assert_eq!(j["latency_depth"], 8);
        assert_eq!(num(&j["iodepth_submit"]["4"]), 100.0);
    }
    // The stonewall job starts when the jobs before it have finished; new_group does not wait.
    let (a, b, c) = (&jobs[0]["ssdlab"], &jobs[1]["ssdlab"], &jobs[2]["ssdlab"]);
    assert_eq!(a["start_ns"], 0);
    let a_end = a["last_completion_ns"].as_u64().unwrap();
    assert!(a_end >= 2_000_000_000);
    assert_eq!(b["start_ns"].as_u64().unwrap(), a_end);
    assert_eq!(c["start_ns"], b["start_ns"]);
    // b ran its second after a's 2 s.
    assert!(b["last_completion_ns"].as_u64().unwrap() >= a_end + 1_000_000_000);
    let d = &v["disk_util"][0];
    let reads: u64 = jobs.iter().map(|j| j["read"]["total_ios"].as_u64().unwrap()).sum();
    assert_eq!(d["read_ios"].as_u64().unwrap(), reads);
    assert_eq!(
        d["in_queue"].as_u64().unwrap(),
        d["read_ticks"].as_u64().unwrap() + d["write_ticks"].as_u64().unwrap()
    );
    // A percentage, as fio writes it.
    assert!(num(&d["util"]) > 99.0 && num(&d["util"]) <= 100.0);
}

#[test]
fn a_known_latency_lands_in_fios_bin() {
    // A single read: its latency is known exactly (min = max), and so its bin.
    let dir = tempfile::TempDir::new().unwrap();
    let v = json_run(dir.path(), "[a]\nrw=randread\nbs=4k\nnumber_ios=1\n");
    let r = &v["jobs"][0]["read"]["clat_ns"];
    let lat = r["min"].as_u64().unwrap();
    assert_eq!(r["max"].as_u64().unwrap(), lat);
    assert!(lat > 128, "{lat}");
    // fio's bin of a value: 6 bits kept below its top bit; printed as the bin's middle.
    let msb = 63 - lat.leading_zeros();
    let e = msb - 6;
    let low = lat >> e << e;
    let mid = low + (1u64 << e) / 2;
    let bins = r["bins"].as_object().unwrap();
    assert_eq!(bins.len(), 1, "{bins:?}");
    assert_eq!(bins[&mid.to_string()], 1);
    assert!(v["jobs"][0]["trim"]["clat_ns"].get("bins").is_none());
    // Plain json has no bins.
    let plain: Value = serde_json::from_str(&run_job(dir.path(), "[a]\nrw=randread\nnumber_ios=50\n", "json")).unwrap();
    assert!(plain["jobs"][0]["read"]["clat_ns"].get("bins").is_none());
}

#[test]
fn fio_logs_are_written_as_fio_writes_them() {
    let dir = tempfile::TempDir::new().unwrap();
    let job = "[global]\nbs=4k\niodepth=4\nruntime=2\ntime_based\n[avg]\nrw=randread\nwrite_lat_log=A\nwrite_bw_log=A\nwrite_iops_log=A\nlog_avg_msec=250\n[each]\nrw=randrw\nruntime=200ms\nwrite_lat_log=E\nwrite_iops_log=E\nlog_offset=1\n";
    let v = json_run(dir.path(), job);
    let read = |name: &str| std::fs::read_to_string(dir.path().join(name)).unwrap();
    // Averaged: one line per 250 ms window of the 2 s, at the window's end.
    for kind in ["lat", "clat", "slat", "bw", "iops"] {
        let text = read(&format!("A_{kind}.1.log"));
        let times: Vec<u64> = text
            .lines()
            .map(|l| l.split(", ").next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(times, (1..=8).map(|k| k * 250).collect::<Vec<_>>(), "{kind}");
        assert!(
            text.lines()
                .all(|l| l.split(", ").count() == 5 && l.ends_with(", 0, 0, 0")),
            "{text}"
        );
    }
    let iops: u64 = read("A_iops.1.log")
        .lines()
        .map(|l| l.split(", ").nth(1).unwrap().parse::<u64>().unwrap())
        .sum();
    let ios = v["jobs"][0]["read"]["total_ios"].as_u64().unwrap();
    // Eight windows of 250 ms: the IOPS values sum to 4 × the I/Os in them.
    assert!(
        (iops as f64 / 4.0 - ios as f64).abs() < 0.01 * ios as f64,
        "{iops} {ios}"
    );
    // Per I/O: a line each, with the offset column; lat = clat; iops 1; the second clone.
    let each = &v["jobs"][1];
    let n = each["read"]["total_ios"].as_u64().unwrap() + each["write"]["total_ios"].as_u64().unwrap();
    let lat = read("E_lat.2.log");
    assert_eq!(lat.lines().count() as u64, n);
    assert_eq!(lat, read("E_clat.2.log"));
    assert_eq!(read("E_iops.2.log").lines().count() as u64, n);
    for l in lat.lines() {
        let f: Vec<u64> = l.split(", ").map(|x| x.parse().unwrap()).collect();
        assert_eq!(f.len(), 6, "{l}");
        assert!(
            f[0] <= 200 + 20 && f[2] <= 1 && f[3] == 4096 && f[4].is_multiple_of(4096) && f[5] == 0,
            "{l}"
        );
    }
    let max_lat: u64 = lat
        .lines()
        .map(|l| l.split(", ").nth(1).unwrap().parse::<u64>().unwrap())
        .max()
        .unwrap();
    assert_eq!(
        max_lat,
        each["read"]["clat_ns"]["max"]
            .as_u64()
            .unwrap()
            .max(each["write"]["clat_ns"]["max"].as_u64().unwrap())
    );
    assert!(!dir.path().join("E_bw.2.log").exists());
}

#[test]
fn text_percentiles_are_printed_as_fio_prints_them() {
    let dir = tempfile::TempDir::new().unwrap();
    let job = "[a]\nrw=randrw\nbs=4k\niodepth=8\nruntime=1\ntime_based\n";
    let v = json_run(dir.path(), job);
    let text = run_job(dir.path(), job, "normal");
    let read = &v["jobs"][0]["read"]["clat_ns"]["percentile"];
    // Reads take tens to hundreds of us: fio prints them in usec, rounded up.
    let us = |k: &str| read[k].as_u64().unwrap().div_ceil(1000);
    let width = us("99.990000").to_string().len().max(5);
    let row = format!(
        "     |  1.00th=[{:>w$}],  5.00th=[{:>w$}], 10.00th=[{:>w$}], 20.00th=[{:>w$}],\n",
        us("1.000000"),
        us("5.000000"),
        us("10.000000"),
        us("20.000000"),
        w = width
    );
    let block = format!("    clat percentiles (usec):\n{row}");
    assert!(text.contains(&block), "{block}\nnot in\n{text}");
    assert!(
        text.contains(&format!("     | 99.99th=[{:>w$}]\n", us("99.990000"), w = width)),
        "{text}"
    );
    let bw = &v["jobs"][0]["read"];
    assert!(
        text.contains(&format!(
            "   bw (  KiB/s): min={:5}, max={:5}, per=",
            bw["bw_min"], bw["bw_max"]
        )),
        "{text}"
    );
}

#[test]
fn plots_are_svg_with_the_results_series() {
    let dir = tempfile::TempDir::new().unwrap();
    std::fs::write(
        dir.path().join("job.fio"),
        "[a]\nrw=randwrite\nbs=4k\niodepth=8\nnumber_ios=40000\n",
    )
    .unwrap();
    let cfg = root().join("examples/small.toml");
    let o = ssdlab_in(
        dir.path(),
        &[
            "run",
            "-q",
            "--job",
            "job.fio",
            cfg.to_str().unwrap(),
            "--output-format",
            "json",
            "--plot",
            "plots",
        ],
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let svg = |name: &str| std::fs::read_to_string(dir.path().join("plots").join(name)).unwrap();
    // The points of the plot's longest line (a legend's sample is a line of two).
    let points = |name: &str| -> usize {
        let svg = svg(name);
        assert!(svg.starts_with("<svg"), "{name}");
        svg.split("<polyline")
            .skip(1)
            .map(|p| {
                let p = &p[p.find("points=\"").unwrap() + 8..];
                p[..p.find('"').unwrap()].split_whitespace().count()
            })
            .max()
            .expect("a line")
    };
    let n = |k: &str| v["ssd"][k].as_array().unwrap().len();
    // The rates' plots leave out a last interval shorter than half the one before it (the
    // run's end cuts it short).
    let kept = |k: &str| {
        let a = v["ssd"][k].as_array().unwrap();
        let t = |i: usize| a[i][0].as_f64().unwrap();
        let n = a.len();
        if n >= 3 && t(n - 1) - t(n - 2) < 0.5 * (t(n - 2) - t(n - 3)) {
            n - 1
        } else {
            n
        }
    };
    assert_eq!(points("free_blocks.svg"), n("free_blocks_over_time"));
    assert_eq!(points("waf.svg"), kept("waf_over_time"));
    assert_eq!(points("latency.svg"), kept("latency_over_time"));
    assert_eq!(points("bandwidth.svg"), kept("bandwidth_over_time"));
    assert!(["waf_over_time", "latency_over_time", "bandwidth_over_time"]
        .iter()
        .all(|k| n(k) - kept(k) <= 1));
    // Latency on a logarithmic axis, which the plot says; every axis names its unit.
    assert!(svg("latency_cdf.svg").contains("completion latency (µs, log scale)"));
    for (f, unit) in [
        ("bandwidth.svg", "(MB/s)"),
        ("latency.svg", "(µs)"),
        ("free_blocks.svg", "(count)"),
    ] {
        assert!(svg(f).contains(unit), "{f}");
    }
    assert!(n("waf_over_time") > 10);
    // Every interval wrote: programmed units at least the host's.
    let waf: Vec<f64> = v["ssd"]["waf_over_time"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| num(&p[1]))
        .collect();
    assert!(waf.iter().all(|&w| (1.0..10.0).contains(&w)), "{waf:?}");
    assert!(points("latency_cdf.svg") > 3);
}

/// fio's JSON for `job_file` (fio job-file text), run by fio itself.
fn fio_json(dir: &Path, job_file: &str) -> Value {
    std::fs::write(dir.join("fio-job.fio"), job_file).unwrap();
    let o = Command::new("fio")
        .args(["--output-format=json", "fio-job.fio"])
        .current_dir(dir)
        .output()
        .expect("fio runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    serde_json::from_str(&text[text.find('{').unwrap()..]).unwrap()
}

/// Each `jobs[]` entry as (jobname, groupid, job options, reads, writes). fio 3.33 counts
/// its entries by one rule and fills them by another: when a job joins the entry of the job
/// before it, an entry it allocated stays unused and is printed without a name, in group
/// 4294967295. Those are left out.
fn entries(v: &Value) -> Vec<(String, u64, Value, u64, u64)> {
    v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|j| j.get("jobname").is_some())
        .map(|j| {
            (
                j["jobname"].as_str().unwrap().to_string(),
                j["groupid"].as_u64().unwrap(),
                j["job options"].clone(),
                j["read"]["total_ios"].as_u64().unwrap(),
                j["write"]["total_ios"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn clones_number_ios_and_group_reporting_give_fios_entries() {
    if !tool("fio") {
        return;
    }
    // fio on the null engine does exactly the job file's I/O: the same counts are expected of
    // the simulation. number_ios beyond one pass over size stops at the pass (16,384 4 KiB
    // I/Os in 64 MiB); each clone is its own entry; group_reporting merges a reporting group's
    // jobs into one entry named after its first, with its last job's options.
    let files = [
        "[global]\nioengine=null\nsize=64m\nbs=4k\nrw=randwrite\n[a]\nnumjobs=2\nnumber_ios=20000\n",
        "[global]\nioengine=null\nsize=16m\nbs=4k\nnumber_ios=1000\n[a]\nrw=randrw\nnumjobs=3\n",
        "[global]\nioengine=null\nsize=16m\nbs=4k\ngroup_reporting\n[a]\nrw=randwrite\nnumjobs=2\n[b]\nrw=randread\nnumjobs=3\n[c]\nnew_group\nrw=read\n",
        "[global]\nioengine=null\nsize=8m\nbs=4k\n[a]\nrw=write\nio_size=24m\nnumber_ios=5000\n[b]\nrw=read\nnumjobs=2\ngroup_reporting\n",
    ];
    for file in files {
        let dir = tempfile::tempdir().unwrap();
        let fio = entries(&fio_json(dir.path(), file));
        let ours: Value = serde_json::from_str(&run_job(dir.path(), file, "json")).unwrap();
        let ours = entries(&ours);
        assert_eq!(ours.len(), fio.len(), "{file}: entries");
        for (o, f) in ours.iter().zip(&fio) {
            // A mixed job's split between reads and writes is random: fio's and ours differ,
            // their sum does not.
            assert_eq!((&o.0, o.1, &o.2, o.3 + o.4), (&f.0, f.1, &f.2, f.3 + f.4), "{file}");
            if file.contains("randrw") {
                assert!(o.3 > 0 && o.4 > 0, "{file}: both directions");
            } else {
                assert_eq!((o.3, o.4), (f.3, f.4), "{file}");
            }
        }
    }
}
