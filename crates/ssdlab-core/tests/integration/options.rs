//! Job options read from fio job files and run files, checked by the values they must
//! produce: rwmixwrite as the complement of rwmixread, numjobs as that many independent
//! clones, each with its own random stream. And the run-level results of small simulations on
//! the hand-computable SLC device, against values worked out by hand: stonewall phases, the
//! statistics of the run loop, interference, draining, an empty measured window.

use ssdlab_core::config::parse_config;
use ssdlab_core::workload::fio::parse_job_file;
use ssdlab_core::workload::job::JobConfig;
use ssdlab_core::{run_config, Op, RequestSource};
use std::path::Path;

#[test]
fn rwmixwrite_sets_the_share_of_writes() {
    let jobs = parse_job_file(
        "[global]\nrw=randrw\n[a]\nrwmixwrite=30\n[b]\nrwmixwrite=100\n[c]\nrwmixwrite=0\n[d]\nrwmixread=80\n",
        "mix.fio",
    )
    .unwrap();
    let mix: Vec<u32> = jobs.iter().map(|j| j.rwmixread).collect();
    assert_eq!(mix, [70, 0, 100, 80]);
    let e = parse_job_file("[a]\nrwmixwrite=101\n", "mix.fio")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("mix.fio:2: rwmixwrite:"), "{e}");
    // And the generated stream has that share of writes.
    let mut j = jobs[0].clone();
    j.number_ios = Some(20_000);
    let mut s = ssdlab_core::workload::job::JobSource::new(&j, 1 << 30, 4).unwrap();
    let writes = std::iter::from_fn(|| s.next_request(0).unwrap())
        .filter(|r| r.op == Op::Write)
        .count() as f64;
    assert!((writes / 20_000.0 - 0.3).abs() < 0.012, "{writes}");
}

#[test]
fn numjobs_is_read_from_job_files() {
    let jobs = parse_job_file("[global]\nnumjobs=3\n[a]\n[b]\nnumjobs=5\n", "n.fio").unwrap();
    assert_eq!((jobs[0].numjobs, jobs[1].numjobs), (3, 5));
}

#[test]
fn clones_have_their_own_streams() {
    let job = JobConfig::default();
    let seeds: Vec<u64> = (0..4).map(|c| job.clone_seed(7, 0, c)).collect();
    let other_job: Vec<u64> = (0..4).map(|c| job.clone_seed(7, 1, c)).collect();
    let other_run: Vec<u64> = (0..4).map(|c| job.clone_seed(8, 0, c)).collect();
    let mut all = [seeds.clone(), other_job, other_run].concat();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 12, "clone seeds repeat");
    // A job's own seed fixes its clones' streams whatever the run's seed.
    let own = JobConfig {
        seed: Some(99),
        ..Default::default()
    };
    assert_eq!(own.clone_seed(7, 0, 2), own.clone_seed(8, 3, 2));
    assert_ne!(own.clone_seed(7, 0, 1), own.clone_seed(7, 0, 2));
}

#[test]
fn numjobs_runs_that_many_clones_each_its_own_entry_unless_group_reporting() {
    let text = |numjobs: u32, group: &str| {
        format!(
            r#"
[device]
preset = "mlc-sata"
[device.geometry]
blocks_per_plane = 128
[precondition]
mode = "sequential"
utilisation = 0.5
[[job]]
rw = "randrw"
iodepth = 2
numjobs = {numjobs}
number_ios = 700
{group}
[[job]]
name = "other"
rw = "randread"
number_ios = 100
"#
        )
    };
    let run = |n: u32, g: &str| run_config(&parse_config(&text(n, g), "n.toml", Path::new(".")).unwrap()).unwrap();
    let ios = |r: &ssdlab_core::RunResult, j: usize| r.jobs[j].read.total_ios + r.jobs[j].write.total_ios;
    let names = |r: &ssdlab_core::RunResult| r.jobs.iter().map(|j| j.jobname.clone()).collect::<Vec<_>>();
    let one = run(1, "");
    assert_eq!(names(&one), ["job", "other"]);
    assert_eq!((ios(&one, 0), ios(&one, 1)), (700, 100));
    // As fio: one entry per clone, each with its own 700 requests.
    let three = run(3, "");
    assert_eq!(names(&three), ["job", "job", "job", "other"]);
    assert_eq!((0..4).map(|j| ios(&three, j)).collect::<Vec<_>>(), [700, 700, 700, 100]);
    assert!(three.jobs.iter().all(|j| j.ssdlab.numjobs == 1));
    // group_reporting: the clones as one entry.
    let grouped = run(3, "group_reporting = true");
    assert_eq!(names(&grouped), ["job", "other"]);
    assert_eq!((ios(&grouped, 0), ios(&grouped, 1)), (2100, 100));
    assert_eq!(grouped.jobs[0].ssdlab.numjobs, 3);
    assert_eq!(
        grouped.jobs[0].read.io_bytes + grouped.jobs[0].write.io_bytes,
        2100 * 4096
    );
    // The same simulation either way: only its reporting differs.
    assert_eq!(three.ssd.requests, 2200);
    assert_eq!(grouped.ssd.requests, 2200);
    assert_eq!(three.ssd.waf, grouped.ssd.waf);
    let sum = |r: &ssdlab_core::RunResult, f: fn(&ssdlab_core::metrics::JobResult) -> u64| {
        r.jobs.iter().filter(|j| j.jobname == "job").map(f).sum::<u64>()
    };
    for f in [
        (|j: &ssdlab_core::metrics::JobResult| j.read.io_bytes) as fn(&_) -> u64,
        |j| j.write.io_bytes,
        |j| j.read.total_ios,
    ] {
        assert_eq!(sum(&three, f), sum(&grouped, f));
    }
}

#[test]
fn group_reporting_merges_the_jobs_of_a_reporting_group_as_fio_does() {
    // fio 3.33 on this job file writes two entries: "a" (a's 2 clones and b's 3, with b's
    // options) and "c" (its own group).
    let text = "[global]\nsize=16m\nbs=4k\ngroup_reporting\n[a]\nrw=randwrite\nnumjobs=2\n[b]\nrw=randread\nnumjobs=3\n[c]\nnew_group\nrw=read\n";
    let jobs = parse_job_file(text, "g.fio").unwrap();
    let (units, of_clone) = ssdlab_core::sim::reporting_units(&jobs);
    let unit = |first_job, last_job, clones| ssdlab_core::sim::Unit {
        first_job,
        last_job,
        clones,
    };
    assert_eq!(units, [unit(0, 1, 5), unit(2, 2, 1)]);
    assert_eq!(of_clone, [0, 0, 0, 0, 0, 1]);
    // Without group_reporting each clone is its own entry; a job that sets it joins the entry
    // before it when in the same group, as fio's reporting loop does.
    let plain = parse_job_file(
        "[a]\nnumjobs=2\n[b]\nnumjobs=2\ngroup_reporting\n[c]\nstonewall\ngroup_reporting\n",
        "p.fio",
    )
    .unwrap();
    let (units, of_clone) = ssdlab_core::sim::reporting_units(&plain);
    assert_eq!(units, [unit(0, 0, 1), unit(0, 1, 3), unit(2, 2, 1)]);
    assert_eq!(of_clone, [0, 1, 1, 1, 2]);
}

use ssdlab_core::units::{Duration, Size};
use ssdlab_core::workload::job::{parse_bssplit, parse_dist, Dist, JobSource, Rw, SizeOrShare};

fn source(job: &JobConfig) -> JobSource {
    JobSource::new(job, 1 << 30, 3).unwrap()
}

fn drain(s: &mut JobSource, now: u64) -> Vec<ssdlab_core::Request> {
    std::iter::from_fn(|| s.next_request(now).unwrap()).collect()
}

#[test]
fn bssplit_weights_set_the_share_of_each_size() {
    assert_eq!(parse_bssplit("4k/25:16k/75").unwrap(), [(4096, 25), (16384, 75)]);
    for bad in ["4k/25:16k", "4k/x", "1000/50", "4k/0", ""] {
        assert!(parse_bssplit(bad).is_err(), "{bad}");
    }
    let job = JobConfig {
        rw: Rw::RandWrite,
        bssplit: Some("4k/25:16k/75".into()),
        number_ios: Some(20_000),
        ..Default::default()
    };
    let reqs = drain(&mut source(&job), 0);
    let small = reqs.iter().filter(|r| r.len == 4096).count() as f64 / 20_000.0;
    assert!((small - 0.25).abs() < 0.012, "{small}");
    assert!(reqs.iter().all(|r| r.len == 4096 || r.len == 16384));
    // Offsets aligned to the smallest size.
    assert!(reqs.iter().all(|r| r.offset % 4096 == 0));
}

#[test]
fn distributions_parse_with_their_parameters() {
    assert_eq!(parse_dist("random"), Ok(Dist::Uniform));
    assert_eq!(parse_dist("zipf:1.2"), Ok(Dist::Zipf(1.2)));
    assert_eq!(parse_dist("pareto: 0.3"), Ok(Dist::Pareto(0.3)));
    assert_eq!(parse_dist("normal"), Ok(Dist::Normal(0.1)));
    assert_eq!(parse_dist("gauss:25"), Ok(Dist::Normal(0.25)));
    for bad in [
        "zipf",
        "zipf:1",
        "zipf:0",
        "zipf:x",
        "pareto:1",
        "pareto:0",
        "normal:0",
        "normal:101",
        "lognormal",
    ] {
        assert!(parse_dist(bad).is_err(), "{bad}");
    }
}

#[test]
fn limits_end_the_stream_where_they_say() {
    // One pass over the range by default: 64 KiB in 4 KiB requests, sequential.
    let pass = JobConfig {
        rw: Rw::Read,
        size: Some(SizeOrShare::Bytes(Size(65536))),
        ..Default::default()
    };
    let offs: Vec<u64> = drain(&mut source(&pass), 0).iter().map(|r| r.offset).collect();
    assert_eq!(offs, (0..16).map(|i| i * 4096).collect::<Vec<_>>());
    // io_size: twice the range, wrapping.
    let twice = JobConfig {
        io_size: Some(Size(2 * 65536)),
        ..pass.clone()
    };
    let offs: Vec<u64> = drain(&mut source(&twice), 0).iter().map(|r| r.offset).collect();
    assert_eq!(offs.len(), 32);
    assert_eq!((offs[15], offs[16], offs[31]), (15 * 4096, 0, 15 * 4096));
    // number_ios stops a job early but never extends it past its pass (fio's rule)...
    let n = |ios, io_size: Option<u64>| JobConfig {
        number_ios: Some(ios),
        io_size: io_size.map(Size),
        ..pass.clone()
    };
    assert_eq!(drain(&mut source(&n(40, None)), 0).len(), 16);
    assert_eq!(drain(&mut source(&n(10, None)), 0).len(), 10);
    // ...nor past io_size, which does extend it.
    assert_eq!(drain(&mut source(&n(40, Some(10 * 65536))), 0).len(), 40);
    assert_eq!(drain(&mut source(&n(40, Some(2 * 65536))), 0).len(), 32);
    // time_based goes on past the pass; number_ios then ends it.
    let looping = JobConfig {
        time_based: true,
        runtime: Some(Duration(u64::MAX / 4)),
        ..n(40, None)
    };
    assert_eq!(drain(&mut source(&looping), 0).len(), 40);
    // runtime (plus ramp_time): nothing once simulated time reaches it.
    let timed = JobConfig {
        time_based: true,
        runtime: Some(Duration(1_000)),
        ramp_time: Some(Duration(500)),
        ..pass.clone()
    };
    let mut s = source(&timed);
    assert!(s.next_request(1_499).unwrap().is_some());
    assert!(s.next_request(1_500).unwrap().is_none());
}

#[test]
fn rate_iops_spaces_arrivals_evenly() {
    let job = JobConfig {
        rw: Rw::RandRead,
        rate_iops: Some(4000),
        runtime: Some(Duration(1_000_000)),
        time_based: true,
        ..Default::default()
    };
    let times: Vec<u64> = drain(&mut source(&job), 0).iter().map(|r| r.time_ns).collect();
    // 250 us apart, the last before the 1 ms runtime.
    assert_eq!(times, [0, 250_000, 500_000, 750_000]);
}

#[test]
fn upcoming_offsets_are_the_next_requests() {
    let job = JobConfig {
        number_ios: Some(100),
        ..Default::default()
    };
    let mut s = source(&job);
    let first = s.next_request(0).unwrap().unwrap();
    let ahead: Vec<u64> = (0..3).map(|k| s.upcoming(k).unwrap()).collect();
    let next: Vec<u64> = (0..3).map(|_| s.next_request(0).unwrap().unwrap().offset).collect();
    assert_eq!(ahead, next);
    assert_ne!(first.offset, next[0]);
}

#[test]
fn sizes_and_shares_resolve_against_the_capacity() {
    let cap = 10_000_000u64;
    let r = |s: &str| SizeOrShare::Text(s.into()).resolve(cap);
    // 50 % of 10 MB, rounded down to 4 KiB.
    assert_eq!(r("50%"), Ok(4_997_120));
    assert_eq!(r("100%"), Ok(9_998_336));
    assert_eq!(r("0%"), Ok(0));
    assert_eq!(r("1MiB"), Ok(1 << 20));
    assert!(r("101%").is_err() && r("x%").is_err());
    let job = JobConfig {
        offset: Some(SizeOrShare::Text("25%".into())),
        ..Default::default()
    };
    assert_eq!(job.region(cap), Ok((2_498_560, cap - 2_498_560)));
    let job = JobConfig {
        size: Some(SizeOrShare::Bytes(Size(8192))),
        ..job
    };
    assert_eq!(job.region(cap), Ok((2_498_560, 8192)));
}

#[test]
fn every_fio_key_lands_in_its_field() {
    let text = "# c\n; c\n[global]\nbs=8k\niodepth=4\n\n[a]\nname=alpha\nreadwrite=randwrite\nblocksize=16k\nbssplit=4k/50:8k/50\noffset=1m\nfilesize=2m\nio_limit=3m\nnumber_ios=77\nruntime=2\nramp_time=3ms\ntime_based\nrandom_distribution=pareto:0.5\nrandseed=12\nrate_iops=900\nstream=3\nioengine=libaio\ndirect=1\n[b]\nseed=5\nruntime=250ms\n";
    let jobs = parse_job_file(text, "k.fio").unwrap();
    let a = &jobs[0];
    assert_eq!(
        (a.name.as_str(), a.rw, a.bs, a.iodepth),
        ("alpha", Rw::RandWrite, Size(16384), 4)
    );
    assert_eq!(a.bssplit.as_deref(), Some("4096/50:8192/50"));
    assert_eq!(a.region(1 << 30), Ok((1 << 20, 2 << 20)));
    assert_eq!((a.io_size, a.number_ios), (Some(Size(3 << 20)), Some(77)));
    assert_eq!(
        (a.runtime, a.ramp_time, a.time_based),
        (Some(Duration(2_000_000_000)), Some(Duration(3_000_000)), true)
    );
    assert_eq!(a.random_distribution, "pareto:0.5");
    assert_eq!((a.seed, a.rate_iops, a.stream), (Some(12), Some(900), 3));
    // The second job inherits [global] only.
    let b = &jobs[1];
    assert_eq!(
        (b.name.as_str(), b.bs, b.iodepth, b.seed),
        ("b", Size(8192), 4, Some(5))
    );
    assert_eq!(
        (b.runtime, b.number_ios, b.stream),
        (Some(Duration(250_000_000)), None, 0)
    );
    for (bad, line) in [
        ("[a]\nrandom_distribution=zipf\n", 2),
        ("[a]\n\nbssplit=4k\n", 3),
        ("[a]\nrate_iops=-1\n", 2),
        ("[a]\nbs=\n", 2),
        ("[a\n", 1),
        ("[]\n", 1),
    ] {
        let e = parse_job_file(bad, "k.fio").unwrap_err().to_string();
        assert!(e.starts_with(&format!("k.fio:{line}:")), "{bad:?}: {e}");
    }
    // fio's flags take no value; other keys need one, even where any text would do.
    let jobs = parse_job_file("[a]\ngroup_reporting\nthread\nnorandommap\n", "k.fio").unwrap();
    assert_eq!(jobs[0].name, "a");
    for bad in ["[a]\nname=\n", "[a]\noffset=\n", "[a]\nsize\n"] {
        let e = parse_job_file(bad, "k.fio").unwrap_err().to_string();
        assert!(e.starts_with("k.fio:2:"), "{bad:?}: {e}");
    }
    // No job section: an error naming the file.
    let e = parse_job_file("[global]\nbs=4k\n", "k.fio").unwrap_err().to_string();
    assert!(e.starts_with("k.fio"), "{e}");
}

#[test]
fn defaults_and_the_smallest_range() {
    // fio's default mix is half reads.
    assert_eq!(JobConfig::default().rwmixread, 50);
    // A range exactly one block long is valid; one byte shorter is not.
    let job = |size: u64| JobConfig {
        bs: Size(8192),
        size: Some(SizeOrShare::Bytes(Size(size))),
        ..Default::default()
    };
    assert!(job(8192).validate("v.toml", "job[0]", 1 << 20).is_ok());
    assert!(job(8191).validate("v.toml", "job[0]", 1 << 20).is_err());
}

#[test]
fn rwmixread_is_a_percentage_up_to_100() {
    let job = |rwmixread: u32| JobConfig {
        rwmixread,
        ..Default::default()
    };
    assert!(job(100).validate("v.toml", "job[0]", 1 << 20).is_ok(), "reads only");
    match job(101).validate("v.toml", "job[0]", 1 << 20).unwrap_err() {
        ssdlab_core::Error::Key { key, msg, .. } => {
            assert_eq!(key, "job[0].rwmixread", "{msg}");
            assert!(msg.contains("got 101; expected a percentage from 0 to 100"), "{msg}");
        }
        e => panic!("{e}"),
    }
}

#[test]
fn an_unloaded_open_loop_job_has_one_request_outstanding() {
    // 1,000 IOPS of 4 KiB writes on a fresh drive: each is done long before the next arrives;
    // whole pages written once, no GC: write amplification 1.
    let text = r#"
[device]
preset = "mlc-sata"
[device.geometry]
blocks_per_plane = 128
overprovisioning = 0.25
[precondition]
mode = "none"
[[job]]
rw = "write"
bs = "16KiB"
rate_iops = 1000
number_ios = 300
"#;
    let c = parse_config(text, "o.toml", Path::new(".")).unwrap();
    let r = run_config(&c).unwrap();
    let o = r.jobs[0].ssdlab.open_loop.as_ref().unwrap();
    assert_eq!(o.max_outstanding, 1);
    assert!(o.keeping_up);
    assert_eq!(r.ssd.waf, 1.0);
    assert_eq!(r.ssd.alpha, 1.25);
}

#[test]
fn every_rw_name_of_fio_parses() {
    for (name, rw) in [
        ("read", Rw::Read),
        ("write", Rw::Write),
        ("trim", Rw::Trim),
        ("randread", Rw::RandRead),
        ("randwrite", Rw::RandWrite),
        ("randtrim", Rw::RandTrim),
        ("rw", Rw::Rw),
        ("readwrite", Rw::Rw),
        ("randrw", Rw::RandRw),
    ] {
        let jobs = parse_job_file(&format!("[a]\nrw={name}\n"), "rw.fio").unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(jobs[0].rw, rw, "{name}");
    }
    assert!(parse_job_file("[a]\nrw=randappend\n", "rw.fio").is_err());
}

#[test]
fn a_block_size_of_weight_zero_is_never_drawn() {
    // Weights are shares of their total: 0 of 100 for 4 KiB, 100 of 100 for 16 KiB.
    let job = JobConfig {
        rw: Rw::RandWrite,
        bssplit: Some("4k/0:16k/100".into()),
        number_ios: Some(5_000),
        ..Default::default()
    };
    assert!(job.validate("w.toml", "job[0]", 1 << 30).is_ok());
    let reqs = drain(&mut source(&job), 0);
    assert_eq!(reqs.len(), 5_000);
    assert!(reqs.iter().all(|r| r.len == 16384), "a 4 KiB request was drawn");
}

#[test]
fn an_offset_at_the_end_leaves_an_empty_range_and_one_beyond_it_is_past_the_end() {
    let cap = 1u64 << 20;
    let key_of = |offset: u64| {
        let job = JobConfig {
            offset: Some(SizeOrShare::Bytes(Size(offset))),
            ..Default::default()
        };
        match job.validate("v.toml", "job[0]", cap).unwrap_err() {
            ssdlab_core::Error::Key { key, msg, .. } => (key, msg),
            e => panic!("{e}"),
        }
    };
    // At the end: no range is left, and the offset is what the user wrote to cause it.
    let (key, msg) = key_of(cap);
    assert_eq!(key, "job[0].offset", "{msg}");
    assert!(msg.contains("is at the end of the device"), "{msg}");
    // 4 KiB beyond it: the offset itself is out of the device.
    let (key, msg) = key_of(cap + 4096);
    assert_eq!(key, "job[0].offset", "{msg}");
    assert!(msg.contains("past the end of the device"), "{msg}");
}

#[test]
fn a_run_file_job_lists_the_options_it_sets() {
    // fio's `job options` of a run-file job: the keys that differ from the defaults, not the
    // name, not the options left unset.
    let job = JobConfig {
        name: "w".into(),
        rw: Rw::Write,
        iodepth: 4,
        ..Default::default()
    };
    let mut opts = job.fio_job_options();
    opts.sort();
    assert_eq!(
        opts,
        [("iodepth".to_string(), "4".to_string()), ("rw".into(), "write".into())]
    );
    assert!(JobConfig::default().fio_job_options().is_empty());
}

#[test]
fn reporting_groups_follow_stonewall_and_new_group() {
    // A new group at each job after the first with stonewall or new_group; on the first job
    // they open none.
    let jobs = parse_job_file("[a]\nnew_group\n[b]\n[c]\nnew_group\n[d]\nstonewall\n[e]\n", "g.fio").unwrap();
    assert_eq!(ssdlab_core::sim::group_ids(&jobs), [0, 0, 1, 2, 2]);
}

#[test]
fn replay_takes_open_or_closed_only() {
    let text = |replay: &str| {
        format!(
            "{}[precondition]\nmode = \"none\"\n[[job]]\nreplay = \"{replay}\"\n[job.trace]\nfile = \"t.mqsim\"\nformat = \"mqsim\"\n",
            one_plane("")
        )
    };
    for ok in ["open", "closed"] {
        assert!(parse_config(&text(ok), "r.toml", Path::new(".")).is_ok(), "{ok}");
    }
    let e = parse_config(&text("later"), "r.toml", Path::new("."))
        .unwrap_err()
        .to_string();
    assert!(e.contains("expected \"open\" or \"closed\""), "{e}");
}

/// On an idle plane of the hand-computable SLC device (tests/common), an 8 KiB write takes the
/// link, the channel and tPROG; an 8 KiB read tR, the channel and the link.
const WRITE_NS: u64 = 18_654 + 81_920 + 200_000; // 300,574
const READ_NS: u64 = 25_000 + 81_920 + 18_654; // 125,574

/// The SLC device on one channel and one plane: 64 blocks of 16 pages of 8 KiB, mapped whole,
/// no write buffer. `rest` goes on in the `[device.ftl]` table.
fn one_plane(rest: &str) -> String {
    format!(
        r#"
[device]
name = "one"
[device.geometry]
channels = 1
ways = 1
blocks_per_plane = 64
pages_per_block = 16
page_size = "8KiB"
mapping_unit = "8KiB"
overprovisioning = 0.25
{}{rest}"#,
        crate::common::SLC_TIMING
    )
}

fn run_in(text: &str, dir: &Path) -> ssdlab_core::RunResult {
    run_config(&parse_config(text, "run.toml", dir).unwrap_or_else(|e| panic!("{e}"))).unwrap()
}

#[test]
fn a_stonewall_job_starts_when_the_jobs_before_it_are_done() {
    // "fill" writes pages 0..8 one at a time, then "check" reads them back one at a time.
    let text = one_plane(
        r#"[precondition]
mode = "none"
[[job]]
name = "fill"
rw = "write"
bs = "8KiB"
size = "64KiB"
bw_avg_time = 1
[[job]]
name = "check"
rw = "read"
bs = "8KiB"
size = "64KiB"
stonewall = true
"#,
    );
    let r = run_in(&text, Path::new("."));
    let (fill, check) = (&r.jobs[0], &r.jobs[1]);
    let fill_end = 8 * WRITE_NS; // 2,404,592
    let end = fill_end + 8 * READ_NS; // 3,409,184
    assert_eq!((fill.ssdlab.start_ns, fill.ssdlab.last_completion_ns), (0, fill_end));
    assert_eq!(
        (check.ssdlab.start_ns, check.ssdlab.last_completion_ns),
        (fill_end, end)
    );
    assert_eq!((fill.groupid, check.groupid), (0, 1));
    assert_eq!(
        (fill.write.clat_ns.mean, check.read.clat_ns.mean),
        (WRITE_NS as f64, READ_NS as f64)
    );
    // Every request was issued with only itself outstanding.
    for j in [fill, check] {
        assert_eq!(j.iodepth_level.0[0], ("1".to_string(), 100.0), "{}", j.jobname);
    }
    // Bandwidth samples of 1 ms: the writes complete at 300,574 ns × k, three in each of the
    // two windows the job covers in full, 24 KiB in 1 ms = 24,000 KiB/s each. The group's
    // bandwidth: 65,536 B × 1e9 / 2,404,592 ns = 27,254,519 B/s = 26,615 KiB/s (rounded down);
    // 100 × 24,000 / 26,615 = 90.174714 %.
    assert_eq!((fill.write.bw_samples, fill.write.bw_mean), (2, 24_000.0));
    assert_eq!(fill.write.bw_agg, 90.174714);
    // Always a request outstanding from 0 to the end; latency sums 2,404,592 ns of writes
    // and 1,004,592 ns of reads, in whole ms 2 and 1.
    let du = &r.disk_util[0];
    assert_eq!((du.util, du.write_ticks, du.read_ticks, du.in_queue), (100.0, 2, 1, 3));
    // One sample at the end: the mean of the 16 latencies, 3,409,184 / 16 = 213,074 ns, and
    // the 8 pages programmed for 8 units written.
    assert_eq!(r.ssd.latency_over_time, [(end, 213_074.0)]);
    assert_eq!(r.ssd.waf_over_time, [(end, 1.0)]);
    // And the 131,072 bytes of the 16 I/Os over the interval from 0: 131,072e9 / 3,409,184
    // = 38,446,736.814 B/s.
    assert_eq!(r.ssd.bandwidth_over_time, [(end, 38_446_736.814)]);
    // 16 requests and 65,536 bytes each way over 3,409,184 ns.
    let busy = &r.ssd.throughput["busy_span"];
    assert_eq!(busy["iops"], 4_693.205); // 16e9 / 3,409,184 = 4,693.2052
    assert_eq!(busy["write_bytes_per_s"], 19_223_368.407); // 65,536e9 / 3,409,184
    assert_eq!(busy["read_bytes_per_s"], 19_223_368.407);
    // Busy time over the 3,409,184 ns: the link 16 × 18,654 ns = 298,464 (0.0875), the channel
    // 16 pages of 81,920 ns = 1,310,720 (0.3845), the plane 8 tPROG and 8 tR = 1,800,000
    // (0.5280).
    let u = &r.ssd.utilisation;
    assert_eq!([&u["host_link"], &u["channels"], &u["planes"]], [0.088, 0.384, 0.528]);
    // 16 requests in a positive wall time, the time reported rounded to the millisecond: a
    // rate of at least 16 / (that time + 0.5 ms).
    let (rate, wall) = (r.ssd.sim_requests_per_wall_s, r.ssd.wall_time_s);
    assert_eq!(r.ssd.requests, 16);
    assert!(
        rate.is_finite() && rate >= (16.0 / (wall + 0.0005)).floor(),
        "{rate} over {wall} s"
    );
}

/// Replayed at its timestamps: page 0 written at 0, page 1 at T = 10 ms, page 0 read at
/// T + 150 us while page 1's program runs [T + 100,574, T + 300,574]. `scheduler` goes in the
/// `[device.scheduler]` table, `jobs` after the replay job.
fn read_behind_a_program(scheduler: &str, jobs: &str) -> ssdlab_core::RunResult {
    replay_first("0 0 0 16 0\n10000000 0 16 16 0\n10150000 0 0 16 1\n", scheduler, jobs)
}

/// A job named "replay" replaying `trace` (mqsim lines) at its timestamps on [`one_plane`],
/// then `jobs`. `scheduler` goes in the `[device.scheduler]` table.
fn replay_first(trace: &str, scheduler: &str, jobs: &str) -> ssdlab_core::RunResult {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.mqsim"), trace).unwrap();
    let text = one_plane(&format!(
        r#"[device.scheduler]
{scheduler}
[precondition]
mode = "none"
[[job]]
name = "replay"
[job.trace]
file = "t.mqsim"
format = "mqsim"
{jobs}"#
    ));
    run_in(&text, dir.path())
}

#[test]
fn a_read_behind_a_program_reports_its_wait() {
    // First come, first served: the read waits for the program, 150,574 ns, then takes
    // 125,574 ns: 276,148 ns in all.
    let r = read_behind_a_program("policy = \"fcfs\"", "");
    let i = &r.ssd.interference;
    assert_eq!(
        (i["conflicting_reads"].as_u64(), i["conflict_wait_ns"].as_u64()),
        (Some(1), Some(150_574))
    );
    assert_eq!(i["mean_conflict_wait_ns"], 150_574.0);
    assert_eq!(i["suspensions"], 0);
    assert_eq!(r.jobs[0].read.clat_ns.mean, 276_148.0);
    // Fewer than 1,000 requests: the first and the last 1,000 are the same three,
    // (300,574 + 300,574 + 276,148) / 3 = 292,432 ns.
    let o = r.jobs[0].ssdlab.open_loop.as_ref().unwrap();
    assert_eq!((o.first_mean_lat_ns, o.last_mean_lat_ns), (292_432.0, 292_432.0));
}

#[test]
fn a_read_that_suspends_a_program_reports_the_suspension() {
    // The read suspends the program at T + 150 us (150,574 ns of it left): 20 us to suspend,
    // then the read's 125,574 ns; the program resumes when the read's tR ends, at
    // T + 195,000, for 5 us + 150,574 ns: the write of page 1 ends at T + 350,574.
    let r = read_behind_a_program(
        "policy = \"fcfs\"\nsuspend = [\"program\"]\nprogram_suspend_time = \"20us\"\nresume_time = \"5us\"",
        "",
    );
    let i = &r.ssd.interference;
    assert_eq!(
        (i["conflicting_reads"].as_u64(), i["conflict_wait_ns"].as_u64()),
        (Some(1), Some(20_000))
    );
    assert_eq!(
        (&i["suspensions"], &i["per_die"]["suspensions"]),
        (&1.into(), &[1].into())
    );
    assert_eq!(r.jobs[0].read.clat_ns.mean, 145_574.0);
    assert_eq!(r.jobs[0].write.clat_ns.max, 350_574);
}

#[test]
fn a_trace_job_reports_its_trace_and_only_it() {
    // The replay job and a generated one writing a page.
    let r = read_behind_a_program(
        "policy = \"fcfs\"",
        "[[job]]\nname = \"gen\"\nrw = \"write\"\nbs = \"8KiB\"\nnumber_ios = 1\n",
    );
    let (replay, gen) = (&r.jobs[0], &r.jobs[1]);
    assert_eq!((replay.jobname.as_str(), gen.jobname.as_str()), ("replay", "gen"));
    let t = replay.ssdlab.trace.as_ref().expect("the replay job's trace report");
    assert_eq!(
        (&t["file"], &t["format"], &t["replayed"]),
        (&"t.mqsim".into(), &"mqsim".into(), &3.into())
    );
    assert_eq!(gen.ssdlab.trace, None);
}

#[test]
fn no_background_collection_starts_once_the_host_is_done() {
    // Blocks of 4 pages; background GC below 10 free blocks after 1 ms of idle time. 232
    // writes over 8 pages fill 58 of the 64 blocks, the first 56 of them wholly invalid: a
    // collection is wanted, but the host never leaves the plane idle for 1 ms, and when it is
    // done the device starts nothing new.
    let text = one_plane(
        r#"bg_gc_threshold = 10
bg_gc_idle = "1ms"
[precondition]
mode = "none"
[[job]]
rw = "write"
bs = "8KiB"
size = "64KiB"
io_size = "1856KiB"
"#,
    )
    .replace("pages_per_block = 16", "pages_per_block = 4");
    let r = run_in(&text, Path::new("."));
    assert_eq!(r.jobs[0].write.total_ios, 232);
    assert_eq!(r.ssd.gc["runs"], 0);
    assert_eq!(r.ssd.flash["erases"], 0);
    // No victims: no valid-unit counts to list.
    assert_eq!(r.ssd.gc["victim_valid_histogram"].as_array().map(Vec::len), Some(0));
    let span = &r.ssd.span;
    assert_eq!(span["last_host_completion_ns"], 232 * WRITE_NS);
    assert_eq!(span["last_flash_activity_ns"], 232 * WRITE_NS);
}

#[test]
fn an_empty_measured_window_has_no_utilisation() {
    // Two writes done by 601,148 ns; statistics from 1 s on: the window is empty.
    let text = one_plane(
        r#"[precondition]
mode = "none"
[[job]]
rw = "write"
bs = "8KiB"
number_ios = 2
ramp_time = "1s"
"#,
    );
    let r = run_in(&text, Path::new("."));
    assert!(r
        .ssd
        .warnings
        .iter()
        .any(|w| w.contains("the measured window is empty")));
    for k in ["host_link", "channels", "planes"] {
        assert_eq!(r.ssd.utilisation[k], 0.0, "{k}");
    }
}

#[test]
fn open_loop_arrivals_at_the_same_time_go_in_the_order_they_were_scheduled() {
    // Two open-loop writers of pages on the idle plane: "a" at 0, 500 us and 1 ms, "b" at 0
    // and 1 ms. Each next arrival is scheduled when the one before it is issued, so b's at
    // 1 ms (scheduled at 0) goes before a's (scheduled at 500 us), though a is the first job.
    let text = one_plane(
        r#"[precondition]
mode = "none"
[[job]]
name = "a"
rw = "write"
bs = "8KiB"
rate_iops = 2000
number_ios = 3
[[job]]
name = "b"
rw = "write"
bs = "8KiB"
rate_iops = 1000
number_ios = 2
"#,
    );
    let r = run_in(&text, Path::new("."));
    let (a, b) = (&r.jobs[0].write.clat_ns, &r.jobs[1].write.clat_ns);
    // The first of two writes at once takes WRITE_NS; the second crosses the link after it,
    // its data over the channel during the first's tPROG, its own tPROG after that:
    // LINK + CH + 2 tPROG = 18,654 + 81,920 + 400,000 = 500,574 ns. At 0 a is first, at 1 ms
    // b; a's write at 500 us is alone (the plane idle from 500,574 ns, its data in at
    // 518,654 ns).
    assert_eq!((a.min, a.max, b.min, b.max), (WRITE_NS, 500_574, WRITE_NS, 500_574));
    assert_eq!((a.n, b.n), (3, 2));
}

#[test]
fn a_closed_loop_request_due_with_an_arrival_goes_first_when_it_was_scheduled_first() {
    // Reads of unwritten pages take the link alone, L = 18,654 ns for 8 KiB, one after
    // another. The replay job reads at 0, 10,000 and 2L = 37,308 ns; the closed-loop job
    // "gen" reads at 0 too, after the replay's first read (its data over the link from L to
    // 2L), and its next read is scheduled then, at 0, for 2L. The replay's read at 2L is
    // scheduled at 10,000 ns, later: gen's second read goes first at 2L (its data over the
    // link from 3L, after the replay's second read, to 4L), the replay's third after it
    // (to 5L).
    const L: u64 = 18_654;
    let r = replay_first(
        "0 0 0 16 1\n10000 0 16 16 1\n37308 0 32 16 1\n",
        "",
        "[[job]]\nname = \"gen\"\nrw = \"read\"\nbs = \"8KiB\"\nnumber_ios = 2\n",
    );
    let (replay, gen) = (&r.jobs[0].read.clat_ns, &r.jobs[1].read.clat_ns);
    assert_eq!((gen.min, gen.max), (2 * L, 4 * L - 2 * L));
    // The replay's reads: L, 3L - 10,000 = 45,962 and 5L - 2L.
    assert_eq!((replay.min, replay.max), (L, 5 * L - 2 * L));
}
