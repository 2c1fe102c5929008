//! Applications on a file system (`[job.fs]`) run on a small TLC NVMe device: each runs
//! through the host model with the FTL's invariants holding; their TRIMs leave no valid data
//! behind a deleted file (the FTL maps none of its logical units), while every block written
//! and not deleted stays mapped; config errors name the key.

use ssdlab_core::config::{parse_config, Config};
use ssdlab_core::ftl::NONE;
use ssdlab_core::workload::fs::{make_source, FileSystem, BLOCK, REGISTRY, SEQ_IO};
use ssdlab_core::{Device, Op, Request, Simulation};
use std::collections::VecDeque;
use std::path::Path;

/// The tlc-nvme preset shrunk to 4 planes of 64 blocks of 64 pages (256 MiB raw, 192 MiB
/// logical), fresh, with four host streams; `ftl` adds keys to `[device.ftl]`, then `jobs`.
fn config(ftl: &str, jobs: &str) -> Config {
    let text = format!(
        r#"
[device]
preset = "tlc-nvme"
[device.geometry]
channels = 2
ways = 1
dies_per_chip = 1
planes_per_die = 2
blocks_per_plane = 64
pages_per_block = 64
overprovisioning = 0.25
[device.ftl]
streams = 4
{ftl}
[precondition]
mode = "none"
{jobs}
"#
    );
    parse_config(&text, "fs.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"))
}

fn lpns(offset: u64, len: u64, unit: u64) -> std::ops::Range<u64> {
    offset / unit..(offset + len) / unit
}

#[test]
fn deleting_a_file_leaves_no_valid_data_at_its_logical_units() {
    let cfg = config("write_buffer = 0", "");
    let mut dev = Device::new(&cfg.device, 1).unwrap();
    let unit = dev.geo.unit_size;
    let mut fs = FileSystem::new(0, dev.logical_bytes());
    let mut q = VecDeque::new();
    // Two files written in turns, so that both are fragmented.
    let (a, b) = (fs.create(1), fs.create(2));
    for i in 0..6 {
        fs.append(a, (i + 1) * 3 * BLOCK, SEQ_IO, &mut q).unwrap();
        fs.append(b, 5 * BLOCK, SEQ_IO, &mut q).unwrap();
    }
    assert_eq!(fs.extents(a).len(), 6);
    let mut t = 0;
    let mut run = |dev: &mut Device, q: &mut VecDeque<Request>| {
        for r in q.drain(..) {
            t = dev.run_request(t, &r).unwrap();
        }
    };
    run(&mut dev, &mut q);
    let a_extents = fs.extents(a).to_vec();
    for e in &a_extents {
        assert!(
            lpns(e.offset, e.len, unit).all(|l| dev.ftl.lookup(l) != NONE),
            "written"
        );
    }
    fs.delete(a, &mut q);
    let trims: Vec<Request> = q.iter().copied().collect();
    assert!(trims.iter().all(|r| r.op == Op::Trim));
    assert_eq!(trims.iter().map(|r| r.len).sum::<u64>(), 63 * BLOCK);
    run(&mut dev, &mut q);
    dev.drain().unwrap();
    for e in &a_extents {
        for l in lpns(e.offset, e.len, unit) {
            assert_eq!(dev.ftl.lookup(l), NONE, "unit {l} of the deleted file still holds data");
        }
    }
    // The other file is untouched.
    for e in fs.extents(b) {
        assert!(lpns(e.offset, e.len, unit).all(|l| dev.ftl.lookup(l) != NONE));
    }
    dev.check_invariants().unwrap();
    assert_eq!(dev.counters.host_trim_units, 63 * BLOCK / unit);
}

/// Every application's requests straight into the device, one at a time, against a shadow
/// map of the blocks written and not trimmed since.
#[test]
fn applications_trim_only_what_they_wrote_and_the_ftl_forgets_it() {
    let cfg = config("write_buffer = 0", "");
    for (app, _, _) in REGISTRY {
        let mut dev = Device::new(&cfg.device, 1).unwrap();
        let cap = dev.logical_bytes();
        let unit = dev.geo.unit_size;
        let job: ssdlab_core::workload::job::JobConfig = toml::from_str(&format!(
            "size = \"128MiB\"\nio_size = \"320MiB\"\n[fs]\napp = \"{app}\"\n"
        ))
        .unwrap();
        let mut src = make_source(&job, job.fs.as_ref().unwrap(), cap, 11).unwrap();
        let n = (cap / unit) as usize;
        // 0: never written, 1: written, 2: trimmed since its last write.
        let mut shadow = vec![0u8; n];
        let (mut t, mut trimmed, mut streams) = (0, 0u64, [0u64; 5]);
        while let Some(r) = src.next_request(t).unwrap() {
            assert!(r.offset + r.len <= 128 << 20 && r.len > 0 && r.offset % BLOCK == 0 && r.len % BLOCK == 0);
            for l in lpns(r.offset, r.len, unit) {
                let s = &mut shadow[l as usize];
                match r.op {
                    Op::Write => *s = 1,
                    Op::Trim => {
                        assert_eq!(*s, 1, "{app}: a trim of unit {l}, which holds no file data");
                        *s = 2;
                        trimmed += 1;
                    }
                    Op::Read => assert_eq!(*s, 1, "{app}: a read of unit {l}, which holds no file data"),
                    Op::Append | Op::Zone(..) => panic!("{app}: a zone command from a file system"),
                }
            }
            if r.op == Op::Write {
                streams[r.stream as usize] += r.len;
            }
            t = dev.run_request(t, &r).unwrap();
        }
        dev.drain().unwrap();
        dev.check_invariants().unwrap();
        for (l, &s) in shadow.iter().enumerate() {
            let mapped = dev.ftl.lookup(l as u64) != NONE;
            assert_eq!(mapped, s == 1, "{app}: unit {l} (state {s}) mapped: {mapped}");
        }
        let expect_trims = matches!(*app, "ycsb" | "fileserver" | "gcc");
        assert_eq!(trimmed > 0, expect_trims, "{app}: {trimmed} units trimmed");
        // The streams each application sets; 0 is the file system's journal and metadata.
        let used: Vec<usize> = (0..5).filter(|&s| streams[s] > 0).collect();
        let expect: &[usize] = match *app {
            "fio" | "ycsb" => &[0, 1, 2, 3, 4],
            "tpcc" => &[0, 1, 2],
            "fileserver" => &[0],
            _ => &[0, 1, 2, 3],
        };
        assert_eq!(used, expect, "{app}: streams written");
    }
}

#[test]
fn every_application_runs_through_the_host_model_with_the_invariants_holding() {
    for (app, _, _) in REGISTRY {
        let cfg = config(
            "",
            &format!("[[job]]\nname = \"{app}\"\niodepth = 8\nio_size = \"320MiB\"\n[job.fs]\napp = \"{app}\"\n"),
        );
        let mut sim = Simulation::new(&cfg).unwrap();
        let res = sim.run(&mut |_| {}).unwrap();
        sim.device().check_invariants().unwrap_or_else(|e| panic!("{app}: {e}"));
        let j = &res.jobs[0];
        assert_eq!(j.ssdlab.source, format!("fs {app}"));
        assert!(j.read.io_bytes + j.write.io_bytes >= 320 << 20, "{app}");
        assert!(j.write.io_bytes > 0 && j.read.io_bytes > 0, "{app}");
        assert_eq!(
            j.trim.total_ios > 0,
            matches!(*app, "ycsb" | "fileserver" | "gcc"),
            "{app}"
        );
        // The same run again gives the same result.
        let again = Simulation::new(&cfg).unwrap().run(&mut |_| {}).unwrap();
        assert_eq!(res.deterministic_json(), again.deterministic_json(), "{app}");
    }
}

#[test]
fn fs_keys_are_checked_with_the_key_named() {
    for (jobs, key, want) in [
        (
            "[job.fs]\napp = \"ext4\"",
            "job[0].fs.app",
            "unknown application 'ext4'; expected one of fio, tpcc, ycsb, fileserver, gcc",
        ),
        (
            "[job.fs]\napp = \"fio\"\ninstances = 4",
            "job[0].fs.instances",
            "not a key of application 'fio'; expected one of fill, bs, read_share",
        ),
        (
            "[job.fs]\napp = \"gcc\"\nfill = 0.5",
            "job[0].fs.fill",
            "got 0.5; expected a share of the region above 0 and at most 0.25 for application 'gcc'",
        ),
        (
            "[job.fs]\napp = \"tpcc\"\ntheta = -1.0",
            "job[0].fs.theta",
            "got -1; expected a zipf exponent from 0 (uniform) to 10",
        ),
        ("[job.fs]\napp = \"fio\"\nwhat = 1", "job[0].fs.what", "unknown key"),
        (
            "rate_iops = 100\n[job.fs]\napp = \"fio\"",
            "job[0].rate_iops",
            "expected none",
        ),
        (
            "numjobs = 2\n[job.fs]\napp = \"tpcc\"",
            "job[0].numjobs",
            "got 2 on a file-system job; expected 1",
        ),
        ("size = \"128KiB\"\n[job.fs]\napp = \"gcc\"", "job[0].size", "too small"),
        (
            "[job.fs]\napp = \"fio\"\n[job.trace]\nfile = \"t.csv\"",
            "job[0].fs",
            "expected either [job.fs] or [job.trace]",
        ),
    ] {
        let text = format!(
            "[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nchannels = 1\nblocks_per_plane = 64\noverprovisioning = 0.25\n[[job]]\n{jobs}\n"
        );
        let e = parse_config(&text, "bad.toml", Path::new(".")).unwrap_err().to_string();
        assert!(
            e.starts_with("bad.toml:") && e.contains(&format!(": {key}: ")),
            "{jobs}: {e}"
        );
        assert!(
            e.contains(want) && e.contains("expected") && !e.contains('\n'),
            "{jobs}: {e}"
        );
    }
}

/// A file-system job on the hard disk: the file system issues no discard there, so the
/// deletes' TRIMs are dropped and the rest runs.
#[test]
fn the_hard_disk_runs_file_system_jobs_without_their_trims() {
    let cfg = ssdlab_core::hdd::HddConfig::preset();
    let job: ssdlab_core::workload::job::JobConfig =
        toml::from_str("size = \"64MiB\"\nnumber_ios = 3000\niodepth = 4\n[fs]\napp = \"fileserver\"\n").unwrap();
    let r = ssdlab_core::hdd::run_jobs(&cfg, &[job], 1).unwrap();
    let j = &r.jobs[0];
    assert_eq!(j.ssdlab.source, "fs fileserver on a hard disk");
    assert_eq!(j.trim.total_ios, 0);
    assert!(j.read.total_ios > 0 && j.write.total_ios > 0);
    // number_ios counts the dropped TRIMs too: fewer reads and writes than 3000.
    assert!(j.read.total_ios + j.write.total_ios < 3000);
}
