//! Workloads: fio-style synthetic jobs, fio job files, applications on a file system
//! (`fs/`), an HPC-like generator (`hpc.rs`), and (through `crate::trace`) trace replay.
pub mod fio;
pub mod fio_options;
pub mod fs;
pub mod hpc;
pub mod job;
pub mod placement_ids;
pub mod tables;
pub mod zbd;

use crate::request::RequestSource;
use crate::{Error, Result};
use job::{JobConfig, JobSource};

/// The requests of one clone (seeded `seed`) of a job that generates them rather than
/// replaying a trace: the application of its `[job.fs]` table, the HPC-like generator of its
/// `[job.hpc]` table, or the fio-style job. The SSD run, the hard-disk run and `ssdlab lint`
/// all build their generated sources here.
pub fn generated_source(job: &JobConfig, capacity: u64, seed: u64) -> Result<Box<dyn RequestSource>> {
    generated_source_sharing(job, capacity, seed, None)
}

/// [`generated_source`], a zoned job's write pointers those of the run's other jobs (`wps`,
/// fio's shared zone information; None: its own).
pub fn generated_source_sharing(
    job: &JobConfig,
    capacity: u64,
    seed: u64,
    wps: Option<&zbd::WritePointers>,
) -> Result<Box<dyn RequestSource>> {
    Ok(match (&job.fs, &job.hpc) {
        (Some(fs), _) => fs::make_source(job, fs, capacity, seed)?,
        (None, Some(h)) => Box::new(hpc::HpcSource::new(job, h, capacity, seed)?),
        (None, None) if job.zonemode == "zbd" => Box::new(zbd::ZbdSource::new(job, capacity, wps, &|j, cap| {
            Ok(Box::new(JobSource::new(j, cap, seed)?))
        })?),
        (None, None) => Box::new(JobSource::new(job, capacity, seed)?),
    })
}

impl JobConfig {
    /// How many requests a clone of this generated job issues when that is known before it
    /// runs: `number_ios`, or for fio's own jobs of one block size with neither a runtime
    /// nor `time_based`, the fewer of that and the requests `io_size` (or one pass over the
    /// region) holds. None when only running it tells.
    pub fn expected_ios(&self, capacity: u64) -> Option<u64> {
        let fio_job = self.fs.is_none() && self.hpc.is_none() && self.trace.is_none();
        let by_bytes = match self.block_sizes().ok()?.as_slice() {
            [(bs, _)] if fio_job && !self.time_based && self.runtime.is_none() => {
                let bytes = match self.io_size {
                    Some(s) => s.0,
                    None => self.region(capacity).ok()?.1,
                };
                Some(bytes.div_ceil((*bs).max(1)))
            }
            _ => None,
        };
        let loops = self.loops.max(1) as u64;
        match (self.number_ios, by_bytes) {
            (Some(n), Some(b)) => Some(n.min(b)),
            (n, None) => n,
            (None, b) => b,
        }
        .map(|n| n.saturating_mul(loops))
    }

    /// Check what serde cannot, the job at `key` of `file` on a region of `capacity` bytes:
    /// fio's keys ([`JobConfig::validate_fio`]), then the application's or the generator's
    /// own table. Errors name the key (`job[0].fs.theta`).
    pub fn validate(&self, file: &str, key: &str, capacity: u64) -> Result<()> {
        self.validate_fio(file, key, capacity)?;
        let e = |b: tables::BadKey| Error::config(file, &format!("{key}.{}", b.key), b.msg);
        if let Some(fs) = &self.fs {
            fs::check(self, fs, capacity).map_err(e)?;
        }
        if let Some(hpc) = &self.hpc {
            hpc::check(self, hpc, capacity).map_err(e)?;
        }
        Ok(())
    }
}
