//! fio's I/O logs (`write_lat_log`, `write_bw_log`, `write_iops_log`), written as the run goes.
//!
//! Files are named as fio names them, `PREFIX_lat.N.log`, `PREFIX_clat.N.log`,
//! `PREFIX_slat.N.log`, `PREFIX_bw.N.log`, `PREFIX_iops.N.log`, where N numbers the job clones
//! from 1 in job order (fio's thread number). A line is `time, value, direction, block size,
//! priority` (`time, value, direction, block size, offset, priority` with `log_offset`), time in
//! ms of simulated time since the job's measured start, direction 0 read, 1 write, 2 trim,
//! priority 0. Without `log_avg_msec` every I/O has a line at its completion: latencies in ns,
//! its bandwidth (bytes over its latency, KiB/s), IOPS 1. With it, every direction that
//! completed I/Os in a window of `log_avg_msec` has a line at the window's end: mean latency,
//! KiB/s and IOPS over the window, block size and offset 0.
//!
//! Each file is written into a temporary beside it and appears whole when the run ends
//! ([`crate::output::AtomicFile`]); a run that fails or is interrupted leaves none.

use crate::output::AtomicFile;
use crate::request::Op;
use crate::sampling::{Window, Windows};
use crate::workload::job::JobConfig;
use crate::{Error, Result};
use std::io::{BufWriter, Write};
use std::path::Path;

struct LogFile {
    path: String,
    out: BufWriter<std::fs::File>,
    /// Renamed into place at the end of the run.
    file: Option<AtomicFile>,
}

impl LogFile {
    fn create(path: String) -> Result<LogFile> {
        let file = AtomicFile::create(&path)?;
        Ok(LogFile {
            path,
            out: BufWriter::new(file.handle()?),
            file: Some(file),
        })
    }

    /// Flush the lines and put the file in place.
    fn commit(&mut self) -> Result<()> {
        self.out.flush().map_err(|e| Error::io(&self.path, e))?;
        self.file.take().map_or(Ok(()), AtomicFile::commit)
    }

    fn line(&mut self, time_ns: u64, value: u64, dir: usize, bs: u64, offset: Option<u64>) -> Result<()> {
        let ms = time_ns / 1_000_000;
        let r = match offset {
            Some(o) => writeln!(self.out, "{ms}, {value}, {dir}, {bs}, {o}, 0"),
            None => writeln!(self.out, "{ms}, {value}, {dir}, {bs}, 0"),
        };
        r.map_err(|e| Error::io(&self.path, e))
    }
}

/// The logs of one job clone.
pub struct CloneLogs {
    /// lat, clat, slat.
    lat: Option<[LogFile; 3]>,
    bw: Option<LogFile>,
    iops: Option<LogFile>,
    offset: bool,
    avg_ns: u64,
    /// Averaging windows, from the first I/O logged.
    windows: Option<Windows>,
}

impl CloneLogs {
    /// Create the log files the job asks for (clone number `n`, from 1), or None.
    pub fn create(job: &JobConfig, n: usize) -> Result<Option<CloneLogs>> {
        if job.write_lat_log.is_none() && job.write_bw_log.is_none() && job.write_iops_log.is_none() {
            return Ok(None);
        }
        let file = |prefix: &str, kind: &str| LogFile::create(format!("{prefix}_{kind}.{n}.log"));
        let lat = match &job.write_lat_log {
            Some(p) => Some([file(p, "lat")?, file(p, "clat")?, file(p, "slat")?]),
            None => None,
        };
        Ok(Some(CloneLogs {
            lat,
            bw: job.write_bw_log.as_deref().map(|p| file(p, "bw")).transpose()?,
            iops: job.write_iops_log.as_deref().map(|p| file(p, "iops")).transpose()?,
            offset: job.log_offset,
            avg_ns: job.log_avg_msec * 1_000_000,
            windows: None,
        }))
    }

    /// Log an I/O of `bytes` at `offset` that completed at `done` after `lat` ns; `origin` is
    /// the job's measured start. slat is 0: the device takes a request when it is issued.
    pub fn record(&mut self, origin: u64, done: u64, op: Op, bytes: u64, offset: u64, lat: u64) -> Result<()> {
        let dir = op.index();
        if self.avg_ns == 0 {
            let t = done - origin;
            let off = self.offset.then_some(offset);
            if let Some([l, c, s]) = &mut self.lat {
                l.line(t, lat, dir, bytes, off)?;
                c.line(t, lat, dir, bytes, off)?;
                s.line(t, 0, dir, bytes, off)?;
            }
            if let Some(b) = &mut self.bw {
                let kib_s = Window {
                    ios: 1,
                    bytes,
                    lat_sum: 0,
                }
                .kib_per_s(lat.max(1));
                b.line(t, kib_s, dir, bytes, off)?;
            }
            if let Some(i) = &mut self.iops {
                i.line(t, 1, dir, bytes, off)?;
            }
            return Ok(());
        }
        let mut w = self.windows.take().unwrap_or_else(|| Windows::new(self.avg_ns, origin));
        // Empty windows (count > 1) log nothing.
        let r = w.add(done, dir, bytes, lat, &mut |k, win, _| {
            self.window_lines(w_end(k, self.avg_ns), win)
        });
        self.windows = Some(w);
        r
    }

    fn window_lines(&mut self, end: u64, win: &[Window; 3]) -> Result<()> {
        let off = self.offset.then_some(0);
        for (dir, w) in win.iter().enumerate().filter(|(_, w)| w.ios > 0) {
            if let Some([l, c, s]) = &mut self.lat {
                l.line(end, w.mean_lat(), dir, 0, off)?;
                c.line(end, w.mean_lat(), dir, 0, off)?;
                s.line(end, 0, dir, 0, off)?;
            }
            if let Some(b) = &mut self.bw {
                b.line(end, w.kib_per_s(self.avg_ns), dir, 0, off)?;
            }
            if let Some(i) = &mut self.iops {
                i.line(end, w.iops(self.avg_ns), dir, 0, off)?;
            }
        }
        Ok(())
    }

    /// The run is over at `end`: log the windows that ended by then, flush the files.
    pub fn finish(&mut self, end: u64) -> Result<()> {
        if let Some(mut w) = self.windows.take() {
            let avg = self.avg_ns;
            w.close_until(end, &mut |k, win, _| self.window_lines(w_end(k, avg), win))?;
        }
        let files = self.lat.iter_mut().flatten().chain(&mut self.bw).chain(&mut self.iops);
        for f in files {
            f.commit()?;
        }
        Ok(())
    }
}

/// The log options of a job and their file name prefixes.
fn prefixes(job: &JobConfig) -> impl Iterator<Item = (&'static str, &str)> {
    [
        ("write_lat_log", &job.write_lat_log),
        ("write_bw_log", &job.write_bw_log),
        ("write_iops_log", &job.write_iops_log),
    ]
    .into_iter()
    .filter_map(|(k, p)| p.as_deref().map(|p| (k, p)))
}

/// Check, before anything is simulated, that every log of `cfg`'s jobs can be written: the
/// error names the job's key (`job[0].write_lat_log`), for [`crate::Config::locate`].
pub fn check_dirs(cfg: &crate::Config) -> Result<()> {
    let inputs = cfg.input_files();
    for (i, job) in cfg.job.iter().enumerate() {
        for (key, prefix) in prefixes(job) {
            // A log must not replace a file the run reads (`write_bw_log = "run"` beside a
            // trace named `run_bw.1.log`).
            let kinds: &[&str] = match key {
                "write_lat_log" => &["lat", "clat", "slat"],
                "write_bw_log" => &["bw"],
                _ => &["iops"],
            };
            // Only an input named like a log can be one: `NAME_KIND.N.log`, N a clone.
            for input in &inputs {
                let name = input
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                for kind in kinds {
                    let n = name
                        .strip_suffix(".log")
                        .and_then(|s| s.rsplit_once('.'))
                        .filter(|(s, _)| s.ends_with(&format!("_{kind}")))
                        .and_then(|(_, n)| n.parse::<u32>().ok())
                        .filter(|n| (1..=job.numjobs.max(1)).contains(n));
                    let Some(n) = n else { continue };
                    let log = format!("{prefix}_{kind}.{n}.log");
                    if crate::output::same_file(Path::new(&log), input) {
                        return Err(Error::config(
                            &cfg.file,
                            &format!("job[{i}].{key}"),
                            format!("the log '{log}' is '{}', which this run reads; expected a prefix whose logs are not its inputs", input.display()),
                        ));
                    }
                }
            }
            let probe = format!("{prefix}_x.log");
            crate::output::check_file_dir(&probe).map_err(|why| {
                Error::config(
                    &cfg.file,
                    &format!("job[{i}].{key}"),
                    format!("{why}; expected a prefix in an existing, writable directory"),
                )
            })?;
        }
    }
    Ok(())
}

/// End of averaging window `k` from the origin.
fn w_end(k: u64, width: u64) -> u64 {
    (k + 1) * width
}
