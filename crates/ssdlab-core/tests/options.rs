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
