//! Job options read from fio job files and run files, checked by the values they must
//! produce: rwmixwrite as the complement of rwmixread, numjobs as that many independent
//! clones, each with its own random stream.

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
fn numjobs_runs_that_many_clones_of_the_job() {
    let text = |numjobs: u32| {
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
[[job]]
name = "other"
rw = "randread"
number_ios = 100
"#
        )
    };
    let run = |n: u32| run_config(&parse_config(&text(n), "n.toml", Path::new(".")).unwrap()).unwrap();
    let one = run(1);
    let three = run(3);
    let ios = |r: &ssdlab_core::RunResult, j: usize| r.jobs[j].read.total_ios + r.jobs[j].write.total_ios;
    assert_eq!((ios(&one, 0), ios(&three, 0)), (700, 2100));
    assert_eq!((ios(&one, 1), ios(&three, 1)), (100, 100));
    assert_eq!(three.jobs[0].ssdlab.numjobs, 3);
    assert_eq!(three.jobs[0].read.io_bytes + three.jobs[0].write.io_bytes, 2100 * 4096);
    assert_eq!(three.ssd.requests, 2200);
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
    // number_ios overrides the one pass.
    let n = JobConfig {
        number_ios: Some(40),
        ..pass.clone()
    };
    assert_eq!(drain(&mut source(&n), 0).len(), 40);
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
    assert_eq!(a.bssplit.as_deref(), Some("4k/50:8k/50"));
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
