//! The array layer (seed 000): a volume of one member is the device; RAID 0 splits a request
//! over its members and completes with the slowest part; RAID 5 reads old data and parity
//! before a partial-stripe write and not before a full-stripe one; RAID 1 writes every
//! member; RODI puts read-only extents (from readonly jobs or from a trace's never-written
//! extents) on its read-only members only; bad array configs are one-line errors.
//!
//! Members: the `slc-sata` preset with 64 blocks per plane (about 467 MB each), filled
//! sequentially, so every read hits written data.

use ssdlab_core::config::parse_config;
use ssdlab_core::metrics::RunResult;
use ssdlab_core::sim::run_config;
use std::path::Path;

const DEV: &str = "[device]\npreset = \"slc-sata\"\n[device.geometry]\nblocks_per_plane = 64\n[precondition]\nmode = \"sequential\"\n";

fn run_in(text: &str, dir: &Path) -> RunResult {
    let cfg = parse_config(text, "t.toml", dir).unwrap_or_else(|e| panic!("{e}\n{text}"));
    run_config(&cfg).unwrap()
}

fn run(text: &str) -> RunResult {
    run_in(text, Path::new("."))
}

fn err(text: &str) -> String {
    match parse_config(text, "t.toml", Path::new(".")) {
        Ok(c) => ssdlab_core::sim::memory_estimate(&c).expect_err("refused").to_string(),
        Err(e) => e.to_string(),
    }
}

/// `[array]` with `layout` over `n` members of the run's `[device]`.
fn array(layout: &str, n: usize) -> String {
    format!(
        "[array]\nlayout = \"{layout}\"\nstripe_unit = \"64KiB\"\n{}",
        "[[array.member]]\n".repeat(n)
    )
}

fn job(body: &str) -> String {
    format!("[[job]]\n{body}\n")
}

/// Member parts over the run: (reads, writes) per member.
fn parts(r: &RunResult) -> Vec<(u64, u64)> {
    r.members
        .as_ref()
        .expect("members")
        .iter()
        .map(|m| (m.read_requests, m.write_requests))
        .collect()
}

#[test]
fn a_volume_of_one_member_is_the_device() {
    let j = job("rw = \"randrw\"\nbs = \"16KiB\"\niodepth = 4\nnumber_ios = 3000");
    let alone = run(&format!("{DEV}{j}"));
    let vol = run(&format!("{DEV}{}{j}", array("single", 1)));
    let strip = |r: &RunResult| {
        let mut v = serde_json::to_value(r).unwrap();
        let s = v["ssd"].as_object_mut().unwrap();
        for k in ["device", "wall_time_s", "sim_requests_per_wall_s", "precondition"] {
            s.remove(k);
        }
        v["disk_util"][0]["name"] = serde_json::Value::Null;
        v.as_object_mut().unwrap().remove("members");
        v
    };
    assert!(alone.members.is_none());
    assert_eq!(vol.ssd.device, "single: slc-sata");
    assert_eq!(vol.disk_util[0].name, "single: slc-sata");
    let (a, v) = (strip(&alone), strip(&vol));
    let diff: Vec<String> = ["jobs", "disk_util", "ssd"]
        .iter()
        .filter(|k| a[**k] != v[**k])
        .map(|k| k.to_string())
        .collect();
    assert!(diff.is_empty(), "differ: {diff:?}");
    let m = &vol.members.as_ref().unwrap()[0];
    assert_eq!(m.read_requests + m.write_requests, 3000);
    assert_eq!(m.read_bytes, 16384 * m.read_requests);
    assert_eq!(m.write_bytes, 16384 * m.write_requests);
    assert_eq!(m.ssd.as_ref().unwrap().flash, alone.ssd.flash);
}

#[test]
fn raid0_splits_over_members_and_completes_with_the_slowest_part() {
    // One 192 KiB read at 0: three 64 KiB chunks, one per member, each exactly what a 64 KiB
    // read at 0 takes on a device alone.
    let one = run(&format!(
        "{DEV}{}",
        job("rw = \"read\"\nbs = \"64KiB\"\nnumber_ios = 1")
    ));
    let vol = run(&format!(
        "{DEV}{}{}",
        array("raid0", 3),
        job("rw = \"read\"\nbs = \"192KiB\"\nnumber_ios = 1")
    ));
    let lat = |r: &RunResult| r.jobs[0].read.clat_ns.max;
    assert!(lat(&one) > 0);
    assert_eq!(lat(&vol), lat(&one));
    assert_eq!(parts(&vol), [(1, 0), (1, 0), (1, 0)]);
    assert!(vol.members.as_ref().unwrap().iter().all(|m| m.read_bytes == 65536));
    // Sequential reads at depth 2: three members give three times one device's throughput.
    let j = job("rw = \"read\"\nbs = \"192KiB\"\niodepth = 2\nnumber_ios = 2000");
    let alone = run(&format!("{DEV}{j}"));
    let vol = run(&format!("{DEV}{}{j}", array("raid0", 3)));
    let bw = |r: &RunResult| r.jobs[0].read.bw_bytes as f64;
    let ratio = bw(&vol) / bw(&alone);
    assert!((ratio - 3.0).abs() < 0.03, "RAID 0 over 3: {ratio} x one device");
    assert_eq!(vol.ssd.logical_bytes, 3 * (alone.ssd.logical_bytes / 65536 * 65536));
}

#[test]
fn raid5_reads_before_partial_stripe_writes_only() {
    // 4 KiB random writes: each reads its old data and the stripe's parity, then writes both.
    let r = run(&format!(
        "{DEV}{}{}",
        array("raid5", 3),
        job("rw = \"randwrite\"\nbs = \"4KiB\"\nnumber_ios = 300")
    ));
    let p = parts(&r);
    assert_eq!(p.iter().map(|x| x.0).sum::<u64>(), 600, "{p:?}");
    assert_eq!(p.iter().map(|x| x.1).sum::<u64>(), 600, "{p:?}");
    // Whole stripes (two 64 KiB data chunks), aligned: no reads, one part per member each.
    let r = run(&format!(
        "{DEV}{}{}",
        array("raid5", 3),
        job("rw = \"write\"\nbs = \"128KiB\"\nnumber_ios = 90")
    ));
    assert_eq!(parts(&r), [(0, 90), (0, 90), (0, 90)]);
    let f = &r.ssd.host["write_units"];
    // Data and parity: 1.5 times the host's bytes reach the members' flash.
    assert_eq!(f.as_u64().unwrap(), 90 * 3 * 16);
    // At depth 1 a partial-stripe write takes a member's 4 KiB read, then a member's 4 KiB
    // write: the two phases, each as long as on a device alone (both members idle).
    let one = |rw: &str| {
        run(&format!(
            "{DEV}{}",
            job(&format!("rw = \"{rw}\"\nbs = \"4KiB\"\nnumber_ios = 1"))
        ))
    };
    let (read, write) = (
        one("read").jobs[0].read.clat_ns.max,
        one("write").jobs[0].write.clat_ns.max,
    );
    let r = run(&format!(
        "{DEV}{}{}",
        array("raid5", 3),
        job("rw = \"write\"\nbs = \"4KiB\"\nnumber_ios = 1")
    ));
    assert_eq!(r.jobs[0].write.clat_ns.max, read + write);
    // Many at once: phases wait for their own parts only, members see time in order.
    let r = run(&format!(
        "{DEV}{}{}",
        array("raid5", 4),
        job("rw = \"randrw\"\nbs = \"24KiB\"\niodepth = 8\nnumber_ios = 800")
    ));
    assert_eq!(r.jobs[0].read.total_ios + r.jobs[0].write.total_ios, 800);
}

/// Buffered writes are programmed after the host has its completions: the array's span runs
/// to its members' last flash operation.
#[test]
fn an_arrays_span_ends_with_its_members_flash_work() {
    let r = run(&format!(
        "[device]\npreset = \"mlc-sata\"\n[device.geometry]\nblocks_per_plane = 128\n[precondition]\nmode = \"none\"\n{}{}",
        array("raid0", 2),
        job("rw = \"write\"\nbs = \"1MiB\"\niodepth = 4\nnumber_ios = 64")
    ));
    let s = &r.ssd.span;
    let (flash, host) = (
        s["last_flash_activity_ns"].as_u64().unwrap(),
        s["last_host_completion_ns"].as_u64().unwrap(),
    );
    assert!(flash > host, "flash {flash}, host {host}");
    assert_eq!(r.ssd.sim_time_ns, flash);
}

#[test]
fn raid1_writes_every_member_and_reads_one() {
    let r = run(&format!(
        "{DEV}{}{}",
        array("raid1", 3),
        job("rw = \"randwrite\"\nbs = \"4KiB\"\nnumber_ios = 200")
    ));
    assert_eq!(parts(&r), [(0, 200), (0, 200), (0, 200)]);
    let r = run(&format!(
        "{DEV}{}{}",
        array("raid1", 3),
        job("rw = \"randread\"\nbs = \"4KiB\"\nnumber_ios = 600")
    ));
    let p = parts(&r);
    assert_eq!(p.iter().map(|x| x.0).sum::<u64>(), 600);
    assert!(p.iter().all(|x| x.0 > 100 && x.1 == 0), "reads spread: {p:?}");
}

#[test]
fn rodi_keeps_readonly_extents_on_readonly_members() {
    // Member 2 read-only; job "ro" reads the first 30 % of the volume (read-only data),
    // job "rw" mixes reads and writes over the next 60 % (1.8 members: it fits the other
    // two, no spill).
    let text = format!(
        "{DEV}[array]\nlayout = \"rodi\"\n[[array.member]]\n[[array.member]]\n[[array.member]]\nreadonly = true\n{}{}",
        job("name = \"ro\"\nrw = \"randread\"\nreadonly = true\nsize = \"30%\"\nnumber_ios = 900\niodepth = 2"),
        job("name = \"rw\"\nrw = \"randrw\"\nrwmixread = 40\noffset = \"30%\"\nsize = \"60%\"\nnumber_ios = 2000\niodepth = 4")
    );
    let r = run(&text);
    let m = r.members.as_ref().unwrap();
    assert!(m[2].readonly && !m[0].readonly && !m[1].readonly);
    // 4 KiB requests never cross a 64 KiB chunk: one part each.
    assert_eq!((m[2].read_requests, m[2].write_requests), (900, 0));
    assert_eq!(m[2].read_share, 1.0);
    let rw: u64 = m[..2].iter().map(|x| x.read_requests + x.write_requests).sum();
    assert_eq!(rw, 2000);
    let reads: u64 = m[..2].iter().map(|x| x.read_requests).sum();
    assert_eq!(reads, r.jobs[1].read.total_ios);
    assert!((reads as f64 / 2000.0 - 0.4).abs() < 0.04, "{reads}");
    // The model's load split: with 1 of 3 members read-only and every member given the same
    // share of requests, a 60 % total read share leaves 40 % for the other two.
    let mixed = ssdlab_core::array::rodi::mixed_read_share(0.6, 1, 3).unwrap();
    assert!((mixed - 0.4).abs() < 1e-12);
}

#[test]
fn rodi_finds_readonly_extents_in_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    // MQSim format (time, device, sector, sectors, 1 = read): writes at 0 and 4 MiB, reads
    // at 0 (written) and 2 MiB (never written).
    let mut t = String::new();
    for i in 0..50u64 {
        t += &format!("{} 0 0 8 0\n", i * 4000);
        t += &format!("{} 0 {} 8 0\n", i * 4000 + 1000, 8192 + 8 * i);
        t += &format!("{} 0 {} 8 1\n", i * 4000 + 2000, 8 * i);
        t += &format!("{} 0 {} 8 1\n", i * 4000 + 3000, 4096 + 8 * i);
    }
    std::fs::write(dir.path().join("t.trace"), t).unwrap();
    let text = format!(
        "{DEV}[array]\nlayout = \"rodi\"\nreadonly_from_traces = true\n[[array.member]]\n[[array.member]]\nreadonly = true\n[[job]]\n[job.trace]\nfile = \"t.trace\"\nformat = \"mqsim\"\n"
    );
    let r = run_in(&text, dir.path());
    let m = r.members.as_ref().unwrap();
    // The 50 reads at 2 MiB go to the read-only member; everything else to member 0.
    assert_eq!((m[1].read_requests, m[1].write_requests), (50, 0));
    assert_eq!((m[0].read_requests, m[0].write_requests), (50, 100));
}

#[test]
fn bad_arrays_are_one_line_errors() {
    let j = job("rw = \"randread\"\nnumber_ios = 10");
    for (body, want) in [
        (
            array("raid6", 3),
            "array.layout: got \"raid6\"; expected one of single, raid0, raid1, raid5, rodi",
        ),
        (array("raid5", 2), "array.layout: got 2 members; expected at least 3"),
        (array("raid0", 0), "array.member: 0 members; expected 1 to 64"),
        (
            "[array]\nlayout = \"raid0\"\n[[array.member]]\nreadonly = true\n[[array.member]]\n".into(),
            "array.member[0].readonly: set with layout \"raid0\"; expected it with layout \"rodi\" only",
        ),
        (
            "[array]\n[[array.member]]\npreset = \"nope\"\n[[array.member]]\n".into(),
            "array.member[0].preset: unknown preset 'nope'; expected one of",
        ),
        (
            "[array]\n[[array.member]]\npreset = \"slc-sata\"\nconfig = \"x.toml\"\n[[array.member]]\n".into(),
            "array.member[0].config: set with another of preset, config, profile; expected one of them",
        ),
        (
            "[array]\nlayout = \"rodi\"\n[[array.member]]\n[[array.member]]\n".into(),
            "read-only members [] of 2; expected 1 to 1 distinct members",
        ),
        (
            "[array]\nstripe = 4\n[[array.member]]\n".into(),
            "array.stripe: unknown key",
        ),
        (
            "[array]\n[[array.member]]\nprecondition = \"own\"\n".into(),
            "array.member[0].precondition: \"own\" on a member with no preset or config of its own; expected \"run\"",
        ),
        (
            "[array]\n[[array.member]]\npreset = \"slc-sata\"\nprecondition = \"mine\"\n".into(),
            "array.member[0].precondition: got \"mine\"; expected \"run\" or \"own\"",
        ),
    ] {
        let e = err(&format!("{DEV}{body}{j}"));
        assert!(e.contains(want), "{e}\nwanted {want}");
        assert!(!e.contains('\n'), "{e}");
    }
    // Read-only extents that do not fit the read-only members.
    let e = err(&format!(
        "{DEV}[array]\nlayout = \"rodi\"\n[[array.member]]\n[[array.member]]\nreadonly = true\n{}",
        job("rw = \"randread\"\nreadonly = true\nsize = \"80%\"")
    ));
    assert!(
        e.contains("array.member: ") && e.contains("bytes of read-only extents on 1 read-only members"),
        "{e}"
    );
    // A readonly job that writes.
    let e = err(&format!("{DEV}{}", job("rw = \"randrw\"\nreadonly = true")));
    assert!(e.contains("job[0].readonly: set on a job that may write"), "{e}");
}

/// An array without `[device]`: the members' presets give the devices.
#[test]
fn members_by_preset_need_no_device_table() {
    let text = "[array]\nlayout = \"raid0\"\n[[array.member]]\npreset = \"slc-sata\"\n[[array.member]]\npreset = \"mlc-sata\"\nname = \"second\"\n[precondition]\nmode = \"none\"\n[[job]]\nrw = \"write\"\nbs = \"128KiB\"\nnumber_ios = 8\n";
    let cfg = parse_config(text, "t.toml", Path::new(".")).unwrap();
    let members = ssdlab_core::config::members(&cfg).unwrap();
    assert_eq!(members[0].0, "slc-sata");
    assert_eq!(members[1].0, "second");
    let ssdlab_core::config::MemberSpec::Device(d) = &members[1].1 else {
        panic!("a device")
    };
    assert_eq!(d.geometry.channels, 8);
    let r = run_config(&cfg).unwrap();
    assert_eq!(parts(&r), [(0, 8), (0, 8)]);
    assert_eq!(r.ssd.device, "raid0: slc-sata, second");
}

/// A measured drive whose throughput (MB/s) at read shares 0, ½ and 1 is `tp`, for any
/// request size, depth and pattern.
fn profile_file(dir: &Path, name: &str, tp: [f64; 3]) -> String {
    let points: Vec<serde_json::Value> = [0.0, 0.5, 1.0]
        .iter()
        .zip(tp)
        .map(|(&r, t)| {
            serde_json::json!({"pattern": "sequential", "bs": 2 << 20, "depth": 2, "read_share": r,
                "read_bytes_s": t * 1e6 * r, "write_bytes_s": t * 1e6 * (1.0 - r), "mean_lat_ns": 1e6})
        })
        .collect();
    let p = serde_json::json!({"name": name, "capacity": 64u64 << 30, "source": "test", "points": points});
    let file = format!("{name}.json");
    std::fs::write(dir.join(&file), p.to_string()).unwrap();
    file
}

/// Section 4's throughputs against arrays of measured drives with known curves: RAID 0 is
/// held to its slowest member (TP_RAID = N·TP0), RODI's read-only member reads at its pure
/// read rate while the others mix (TP_RODI = k·TP1 + (N − k)·TP2).
#[test]
fn section_4_model_matches_arrays_of_drives_with_known_curves() {
    use ssdlab_core::array::rodi::{model, Curve};
    let dir = tempfile::tempdir().unwrap();
    let a = profile_file(dir.path(), "a", [200.0, 300.0, 500.0]);
    let b = profile_file(dir.path(), "b", [400.0, 420.0, 500.0]);
    let curve = |t: [f64; 3]| Curve::new(vec![(0.0, t[0]), (0.5, t[1]), (1.0, t[2])]).unwrap();
    let curves = [
        curve([200.0, 300.0, 500.0]),
        curve([400.0, 420.0, 500.0]),
        curve([400.0, 420.0, 500.0]),
    ];
    let members = |ro: bool| {
        format!("[[array.member]]\nprofile = \"{a}\"\nreadonly = {ro}\n[[array.member]]\nprofile = \"{b}\"\n[[array.member]]\nprofile = \"{b}\"\n")
    };
    let mb_s = |r: &RunResult| {
        let t = &r.ssd.throughput["host_visible"];
        (t["read_bytes_per_s"].as_f64().unwrap() + t["write_bytes_per_s"].as_f64().unwrap()) / 1e6
    };
    // RAID 0 at 50 % reads: the slowest member, a, gives 300 MB/s.
    let raid = run_in(
        &format!(
            "[array]\nlayout = \"raid0\"\n{}{}",
            members(false),
            job("rw = \"rw\"\nrwmixread = 50\nbs = \"2MiB\"\niodepth = 6\nruntime = \"4s\"\ntime_based = true\nsize = \"20GiB\"")
        ),
        dir.path(),
    );
    let m = model(&curves, &[0], 0.5).unwrap();
    assert_eq!(m.raid0, 900.0);
    let sim = mb_s(&raid);
    assert!(
        (sim / m.raid0 - 1.0).abs() < 0.03,
        "RAID 0: simulated {sim}, model {}",
        m.raid0
    );
    // RODI, a read-only: a reads at 500 MB/s, b and c mix at 25 % reads (410 MB/s each):
    // the volume's read share (1 + 2 × 0.25) / 3 = 50 %.
    let rodi = run_in(
        &format!(
            "[array]\nlayout = \"rodi\"\n{}{}{}",
            members(true),
            job("name = \"ro\"\nrw = \"read\"\nreadonly = true\nbs = \"2MiB\"\niodepth = 2\nsize = \"10GiB\"\nruntime = \"4s\"\ntime_based = true"),
            job("name = \"mixed\"\nrw = \"rw\"\nrwmixread = 25\nbs = \"2MiB\"\niodepth = 4\noffset = \"10GiB\"\nsize = \"20GiB\"\nruntime = \"4s\"\ntime_based = true")
        ),
        dir.path(),
    );
    let m = model(&curves, &[0], 0.5).unwrap();
    assert_eq!((m.tp1, m.tp2), (500.0, 410.0));
    assert_eq!(m.rodi, 1320.0);
    let sim = mb_s(&rodi);
    assert!(
        (sim / m.rodi - 1.0).abs() < 0.03,
        "RODI: simulated {sim}, model {}",
        m.rodi
    );
    // The result carries the same model, from the members' profiles, at the run's read share.
    let am = rodi.array_model.as_ref().expect("every member has curves");
    assert_eq!(am.readonly, [0]);
    assert!((am.read_share - 0.5).abs() < 0.1, "{}", am.read_share);
    // At the rounded read share the result reports: within 1 MB/s.
    let at = model(&curves, &[0], am.read_share).unwrap();
    assert!((am.rodi_mb_s.unwrap() - at.rodi).abs() < 1.0 && (am.raid0_mb_s - at.raid0).abs() < 1.0);
    assert!((am.simulated_mb_s - sim).abs() < 0.01);
    let am = raid.array_model.as_ref().unwrap();
    // RAID 0 elsewhere: RODI's read-only member would be a, of highest read-only gain.
    assert_eq!(am.readonly, [0]);
    assert!((am.raid0_mb_s - 900.0).abs() < 10.0, "{}", am.raid0_mb_s);
    let mem = rodi.members.as_ref().unwrap();
    assert_eq!(mem[0].write_requests, 0);
    assert!(
        mem[0].ssd.is_none() && (mem[0].mb_s / 500.0 - 1.0).abs() < 0.02,
        "{}",
        mem[0].mb_s
    );
}
