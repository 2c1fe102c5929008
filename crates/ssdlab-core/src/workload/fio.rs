//! A reader for small fio job files (INI): `[global]` plus one section per job, with the common
//! keys. Keys fio has but that do not change a simulation (ioengine, direct, filename, ...)
//! are accepted and ignored; any other key is an error naming the file and line.

use super::job::{parse_bssplit, parse_dist, JobConfig, Rw, SizeOrShare};
use crate::units::{parse_duration_ns, parse_size, Duration, Size};
use crate::{Error, Result};

/// Keys accepted without effect on the simulated device.
const IGNORED: &[&str] = &[
    "ioengine",
    "direct",
    "buffered",
    "filename",
    "directory",
    "group_reporting",
    "thread",
    "norandommap",
    "randrepeat",
    "invalidate",
    "description",
    "stonewall",
    "new_group",
    "iodepth_batch",
    "iodepth_batch_submit",
    "iodepth_batch_complete",
    "iodepth_low",
    "lat_percentiles",
    "clat_percentiles",
    "percentile_list",
    "unified_rw_reporting",
];

fn apply(job: &mut JobConfig, key: &str, val: &str) -> std::result::Result<(), String> {
    let num = |v: &str| -> std::result::Result<u64, String> {
        v.trim()
            .parse::<u64>()
            .map_err(|_| format!("got '{v}'; expected a whole number"))
    };
    let num32 = |v: &str| -> std::result::Result<u32, String> {
        v.trim()
            .parse::<u32>()
            .map_err(|_| format!("got '{v}'; expected a whole number from 0 to 4294967295"))
    };
    match key {
        "name" => job.name = val.to_string(),
        "rw" | "readwrite" => {
            // fio allows "randwrite:8" (offset modifier); not supported.
            job.rw = Rw::parse(val).ok_or_else(|| {
                format!("got '{val}'; expected read, write, trim, randread, randwrite, randtrim, rw or randrw")
            })?
        }
        "rwmixread" => job.rwmixread = num32(val)?,
        "rwmixwrite" => {
            let w = num32(val)?;
            if w > 100 {
                return Err(format!("got {w}; expected a percentage from 0 to 100"));
            }
            job.rwmixread = 100 - w
        }
        "bs" | "blocksize" => job.bs = Size(parse_size(val)?),
        "bssplit" => {
            parse_bssplit(val)?;
            job.bssplit = Some(val.to_string())
        }
        "iodepth" => job.iodepth = num32(val)?,
        "numjobs" => job.numjobs = num32(val)?,
        "offset" => job.offset = Some(SizeOrShare::Text(val.to_string())),
        "size" | "filesize" => job.size = Some(SizeOrShare::Text(val.to_string())),
        "io_size" | "io_limit" => job.io_size = Some(Size(parse_size(val)?)),
        "number_ios" => job.number_ios = Some(num(val)?),
        "runtime" => {
            // fio's runtime defaults to seconds.
            let ns = if val.trim().chars().all(|c| c.is_ascii_digit()) {
                num(val)?
                    .checked_mul(1_000_000_000)
                    .ok_or_else(|| format!("got {val} s; expected at most 2^64 ns"))?
            } else {
                parse_duration_ns(val)?
            };
            job.runtime = Some(Duration(ns))
        }
        "ramp_time" => {
            let ns = if val.trim().chars().all(|c| c.is_ascii_digit()) {
                num(val)?
                    .checked_mul(1_000_000_000)
                    .ok_or_else(|| format!("got {val} s; expected at most 2^64 ns"))?
            } else {
                parse_duration_ns(val)?
            };
            job.ramp_time = Some(Duration(ns))
        }
        "time_based" => {
            job.time_based = match val.trim() {
                "" | "1" => true,
                "0" => false,
                v => return Err(format!("got '{v}'; expected no value, 0 or 1")),
            }
        }
        "random_distribution" => {
            parse_dist(val)?;
            job.random_distribution = val.to_string()
        }
        "randseed" | "seed" => job.seed = Some(num(val)?),
        "rate_iops" => job.rate_iops = Some(num(val)?),
        "stream" => job.stream = num32(val)?,
        _ if IGNORED.contains(&key) => {}
        _ => {
            return Err(
                "unknown or unsupported fio option; expected one of the options docs/config.md lists".to_string(),
            )
        }
    }
    Ok(())
}

/// The fio spellings of a job key (`bs` is also `blocksize`, `rwmixread` is set by
/// `rwmixwrite` too).
fn spellings(key: &str) -> Vec<&'static str> {
    match key {
        "rw" => vec!["rw", "readwrite"],
        "rwmixread" => vec!["rwmixread", "rwmixwrite"],
        "bs" => vec!["bs", "blocksize"],
        "size" => vec!["size", "filesize"],
        "io_size" => vec!["io_size", "io_limit"],
        "seed" => vec!["randseed", "seed"],
        _ => Vec::new(),
    }
}

/// Line and column of a job key (`job[I].OPTION`) in fio job-file text: the option in the
/// job's section, else in `[global]`, else the job's section header.
pub fn position(text: &str, key: &str) -> Option<(usize, usize)> {
    crate::source::fio_position(text, key, &spellings)
}

/// Parse fio job-file text into jobs. `file` names it in errors.
pub fn parse_job_file(text: &str, file: &str) -> Result<Vec<JobConfig>> {
    let mut global = JobConfig::default();
    let mut jobs: Vec<(JobConfig, usize)> = Vec::new();
    let mut in_global = false;
    let mut seen_section = false;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        let err = |m: String| Error::Parse {
            file: file.to_string(),
            line: line_no as u64,
            msg: m,
        };
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or_else(|| err("section header without closing ']'; expected [NAME]".into()))?
                .trim();
            if name.is_empty() {
                return Err(err("empty section name; expected [NAME]".into()));
            }
            seen_section = true;
            in_global = name == "global";
            if !in_global {
                let mut j = global.clone();
                j.name = name.to_string();
                jobs.push((j, line_no));
            }
            continue;
        }
        if !seen_section {
            return Err(err(format!(
                "{}: option outside a section; expected [global] or [jobname] first",
                line.split('=').next().unwrap_or("").trim()
            )));
        }
        let (k, v) = match line.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (line, ""),
        };
        let target = if in_global {
            &mut global
        } else {
            &mut jobs.last_mut().expect("a job section").0
        };
        if v.is_empty() && !IGNORED.contains(&k) && k != "time_based" {
            return Err(err(format!("{k}: no value; expected {k}=VALUE")));
        }
        apply(target, k, v).map_err(|m| err(format!("{k}: {m}")))?;
    }
    if jobs.is_empty() {
        return Err(Error::Config(format!(
            "{file}: no job section; expected at least one [jobname]"
        )));
    }
    Ok(jobs.into_iter().map(|(j, _)| j).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn reads_a_typical_job_file() {
        let text = "; comment\n[global]\nioengine=libaio\ndirect=1\nbs=4k\niodepth=32\nruntime=2\n\n[mixed]\nrw=randrw\nrwmixread=70\nnumjobs=2\nrandom_distribution=zipf:1.1\n[seq]\nrw=write\nbs=128k\nsize=1g\n";
        let jobs = parse_job_file(text, "t.fio").unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!(jobs[0].name, "mixed");
        assert_eq!(jobs[0].rw, Rw::RandRw);
        assert_eq!(jobs[0].iodepth, 32);
        assert_eq!(jobs[0].numjobs, 2);
        assert_eq!(jobs[0].runtime, Some(Duration(2_000_000_000)));
        assert_eq!(jobs[1].bs, Size(128 << 10));
        assert_eq!(jobs[1].size.as_ref().unwrap().resolve(1 << 40).unwrap(), 1 << 30);
    }

    #[test]
    fn ramp_time_and_time_based_are_read_as_fio_does() {
        let text = "[global]\nruntime=30\nramp_time=5\ntime_based\n[a]\nrw=randread\n[b]\nrw=read\nramp_time=250ms\ntime_based=0\n";
        let jobs = parse_job_file(text, "t.fio").unwrap();
        assert_eq!(jobs[0].ramp_time, Some(Duration(5_000_000_000)));
        assert!(jobs[0].time_based);
        assert_eq!(jobs[1].ramp_time, Some(Duration(250_000_000)));
        assert!(!jobs[1].time_based);
        let e = parse_job_file("[a]\ntime_based=yes\n", "x.fio")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.fio:2: time_based:"), "{e}");
    }

    #[test]
    fn errors_name_file_and_line() {
        let e = parse_job_file("[a]\nrw=randwrite\nbs=4 bananas\n", "x.fio")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.fio:3: bs:"), "{e}");
        let e = parse_job_file("[a]\nfrobnicate=1\n", "x.fio").unwrap_err().to_string();
        assert!(e.contains("x.fio:2") && e.contains("frobnicate"), "{e}");
        let e = parse_job_file("rw=read\n", "x.fio").unwrap_err().to_string();
        assert!(e.contains("x.fio:1"), "{e}");
        assert!(parse_job_file("[global]\nbs=4k\n", "x.fio").is_err());
    }

    proptest! {
        #[test]
        fn never_panics(lines in proptest::collection::vec("[\\[\\]a-z_=0-9:/%. ]{0,24}", 0..12)) {
            let text = lines.join("\n");
            let _ = parse_job_file(&text, "p.fio");
        }
        #[test]
        fn known_keys_with_junk_values_never_panic(key in proptest::sample::select(vec!["rw","bs","bssplit","iodepth","size","offset","runtime","random_distribution","rwmixwrite","rate_iops"]), val in "\\PC{0,12}") {
            let text = format!("[j]\n{key}={val}\n");
            let _ = parse_job_file(&text, "p.fio");
        }
    }
}
