//! The host model and the run loop.
//!
//! Each job clone is a stream. A closed-loop stream keeps `iodepth` requests outstanding: a
//! slot issues its next request when its previous one completes. An open-loop stream (trace
//! timestamps or `rate_iops`) issues each request at its arrival time. Host events sit on one
//! heap keyed by (time, sequence); the device keeps its own event queue. The loop takes the
//! earlier of the two (the device's on a tie, so completions due at a time are known before the
//! host acts at it): ties resolve in a fixed order and a run is a pure function of its config
//! and seed.
//!
//! Statistics: a job records requests issued at or after its `ramp_time`; the device's counters
//! (WAF, GC, interference, utilisation) cover the measured window from the longest `ramp_time`
//! to the end of the device's last activity. Once the host has nothing left to issue, the
//! device finishes its queued work and starts no new background GC.

use crate::array::volume::{PartCounts, Volume};
use crate::config::Config;
use crate::device::{Device, Snapshot};
use crate::fiolog::CloneLogs;
use crate::metrics::{depth_bucket, DiskUtil, JobExtra, JobResult, OpStats, OpenLoopReport, RunResult, SsdResult};
use crate::precondition::PreconditionReport;
use crate::request::Op;
use crate::request::{Request, RequestSource};
use crate::sampling::Windows;
use crate::scheduler;
use crate::trace::TraceSource;
use crate::{Error, Result};
use serde_json::json;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// Progress of a run, handed to the caller's callback now and then.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub requests: u64,
    pub sim_time_ns: u64,
    /// Requests the run will issue, when known.
    pub expected: Option<u64>,
    /// The simulated time by which the run ends at the latest, when every job is bounded by
    /// its `runtime` (each phase lasts its longest `startdelay` + `ramp_time` + `runtime`).
    pub horizon_ns: Option<u64>,
}

/// [`Progress::horizon_ns`] of `jobs` run in the phases `phase_of`.
fn time_horizon(jobs: &[crate::workload::job::JobConfig], phase_of: &[usize]) -> Option<u64> {
    let mut per_phase = vec![0u64; phase_of.last().map_or(0, |p| p + 1)];
    for (j, &p) in jobs.iter().zip(phase_of) {
        let t = j.startdelay.map_or(0, |d| d.0) + j.ramp_time.map_or(0, |d| d.0) + j.runtime?.0;
        per_phase[p] = per_phase[p].max(t);
    }
    Some(per_phase.iter().sum())
}

struct Stream {
    job: usize,
    /// Its reporting unit: the `jobs[]` entry its I/Os count in ([`reporting_units`]).
    unit: usize,
    /// When it starts: its phase's start plus its job's `startdelay`; its source counts time
    /// from then.
    start: u64,
    /// Its start plus `ramp_time`: the I/Os it issues from then on are measured.
    measure_from: u64,
    source: Box<dyn RequestSource>,
    open: bool,
    depth: u32,
    pending: Option<Request>,
    /// Its requests outstanding.
    inflight: u64,
    /// fio's logs of this clone, while the run goes.
    logs: Option<CloneLogs>,
    /// The job's host time per I/O (`host_time`, ns; 0: none).
    host_ns: u64,
    /// When the clone's thread ends the host time of the I/Os it has started.
    host_free: u64,
    /// The placement identifiers its writes carry (fio's `dataplacement`), if any.
    placement: Option<crate::workload::placement_ids::Chooser>,
    /// Reclaim unit handle updates (`ruh_update_every`), if the job sends them.
    ruh_update: Option<RuhUpdates>,
    /// Its source has no more requests (it ends when its last one completes).
    done_issuing: bool,
    /// Ended by another clone's end (fio's `exitall`): it issues nothing more.
    stopped: bool,
}

/// A clone's reclaim unit handle updates: after every `every` bytes it writes, once the write
/// that reached them has completed (its data is on the device), an update for the placement
/// identifiers its writes carried since the previous one.
struct RuhUpdates {
    every: u64,
    /// Bytes written since the last update was due.
    since: u64,
    /// Placement identifiers written since then, as bits (identifier `i`: bit `i`).
    ids: u64,
    /// Updates due at the completion of a write: (its tag, the identifiers).
    due: Vec<(u32, u64)>,
}

impl Stream {
    /// A slot of this clone may start an I/O at `at`: when it reaches the device, after the
    /// thread's host time (once the thread is done with its earlier I/Os').
    /// Past the simulated-time horizon: an error naming the job's `host_time` (`cfg`'s file).
    fn host_submit(&mut self, at: u64, cfg: &Config) -> Result<u64> {
        if self.host_ns == 0 {
            return Ok(at);
        }
        let end = at.max(self.host_free).saturating_add(self.host_ns);
        let t = check_time(end, "").map_err(|_| {
            cfg.locate(Error::config(
                &cfg.file,
                &format!("job[{}].host_time", self.job),
                format!(
                    "{} ns of host time per I/O, one I/O after another on the clone's thread, takes the run past the simulated-time horizon (2^62 ns, 146 years) at {end} ns; expected a shorter host time or fewer I/Os",
                    self.host_ns
                ),
            ))
        })?;
        self.host_free = t;
        Ok(t)
    }
}

/// A job's statistics while a run goes (also kept by the hard-disk runner, `hdd.rs`).
#[derive(Default)]
pub(crate) struct JobStats {
    pub(crate) ops: [OpStats; 3],
    /// fio's `unified_rw_reporting`: every direction's I/O in one more set of statistics
    /// (its `mixed` section); None without it.
    pub(crate) mixed: Option<OpStats>,
    /// First issue at or after the job's ramp time.
    pub(crate) first_issue: Option<u64>,
    pub(crate) last_done: u64,
    first_lat: Vec<u64>,
    last_lat: VecDeque<u64>,
    outstanding: u64,
    max_outstanding: u64,
    /// Measured I/Os by the clone's depth at issue (fio's iodepth_level buckets).
    pub(crate) depths: [u64; 7],
    /// bw_avg_time and iops_avg_time windows from `first_issue`.
    bw_win: Option<Windows>,
    iops_win: Option<Windows>,
    /// When the job started (its phase's start) and when its statistics start.
    pub(crate) start: u64,
    pub(crate) measure_from: u64,
    /// Last completion of any of its requests, measured or not.
    pub(crate) last_any: u64,
    /// Zone resets its clones issued (zbd mode), from `measure_from` on.
    pub(crate) zone_resets: u64,
}

/// Feed an I/O (or, with None, the passing of time to `t`) to a series of windows; each window
/// it closes adds `value(window, width)` of each direction to that direction's `samples`.
fn feed_windows(
    win: &mut Windows,
    ops: &mut [OpStats; 3],
    mut mixed: Option<&mut OpStats>,
    t: u64,
    io: Option<(usize, u64, u64)>,
    value: fn(&crate::sampling::Window, u64) -> u64,
    samples: fn(&mut OpStats) -> &mut crate::sampling::SampleStats,
) {
    let width = win.width;
    let mut sample = |_, w: &[crate::sampling::Window; 3], count: u64| {
        if let Some(m) = mixed.as_deref_mut() {
            // A window of every direction's I/O: fio's mixed samples.
            let all = crate::sampling::Window {
                ios: w.iter().map(|x| x.ios).sum(),
                bytes: w.iter().map(|x| x.bytes).sum(),
                lat_sum: w.iter().map(|x| x.lat_sum).sum(),
            };
            samples(m).add_n(value(&all, width), count);
        }
        for (w, o) in w.iter().zip(ops.iter_mut()) {
            samples(o).add_n(value(w, width), count);
        }
        Ok::<(), ()>(())
    };
    let _ = match io {
        Some((dir, bytes, lat)) => win.add(t, dir, bytes, lat, &mut sample),
        None => win.close_until(t, &mut sample),
    };
}

impl JobStats {
    /// The statistics of reporting unit `u` of `jobs`: the operations its jobs issue get
    /// their histograms at once, up to [`ESTIMATED_MAX_LATENCY_NS`] (as the memory estimate
    /// counts them), the others at their smallest.
    pub(crate) fn of_unit(jobs: &[crate::workload::job::JobConfig], u: &Unit) -> JobStats {
        let mut ops = [false; 3];
        for j in &jobs[u.first_job..=u.last_job] {
            for (o, used) in ops.iter_mut().zip(j.ops()) {
                *o |= used;
            }
        }
        JobStats {
            ops: ops.map(|used| {
                if used {
                    OpStats::for_latencies_up_to(ESTIMATED_MAX_LATENCY_NS)
                } else {
                    OpStats::default()
                }
            }),
            mixed: (jobs[u.first_job].unified_rw_reporting != "none")
                .then(|| OpStats::for_latencies_up_to(ESTIMATED_MAX_LATENCY_NS)),
            ..JobStats::default()
        }
    }

    /// Count a measured I/O (direction, bytes, latency) completed at `t` in the job's
    /// bandwidth and IOPS windows, or with None only close the windows ended by `t`; each
    /// closed window is a sample.
    pub(crate) fn sample(&mut self, job: &crate::workload::job::JobConfig, t: u64, io: Option<(usize, u64, u64)>) {
        let Some(origin) = self.first_issue else {
            return;
        };
        let bw = self
            .bw_win
            .get_or_insert_with(|| Windows::new(job.bw_avg_time * 1_000_000, origin));
        feed_windows(
            bw,
            &mut self.ops,
            self.mixed.as_mut(),
            t,
            io,
            |w, width| w.kib_per_s(width),
            |o| &mut o.bw_samples,
        );
        let iops = self
            .iops_win
            .get_or_insert_with(|| Windows::new(job.iops_avg_time * 1_000_000, origin));
        feed_windows(
            iops,
            &mut self.ops,
            self.mixed.as_mut(),
            t,
            io,
            |w, width| w.iops(width),
            |o| &mut o.iops_samples,
        );
    }
}

/// The options of `jobs`' job file accepted with no effect, each once, in the order given.
pub fn ignored_options(jobs: &[crate::workload::job::JobConfig]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for o in jobs.iter().flat_map(|j| &j.ignored_options) {
        if !out.contains(o) {
            out.push(o.clone());
        }
    }
    out
}

/// A request handed to the device and not yet complete.
#[derive(Clone, Copy)]
struct Issued {
    stream: u32,
    time: u64,
    op: Op,
    offset: u64,
    len: u64,
}

const WINDOW: usize = 1000;

pub use crate::interrupt::{check_interrupt, clear_interrupt, interrupt};
pub(crate) use crate::units::check_time;
pub use crate::units::HORIZON_NS;

/// Resident memory a run of `cfg` needs at its peak, in bytes, estimated before anything is
/// allocated: what it allocates ([`allocation_estimate`]), the jobs' part times
/// [`JOB_RESIDENT_PER_ALLOCATED`], each device's [`DEVICE_PAGE_ROUNDING`], and
/// [`PROGRAM_MEMORY`]. `--max-memory` refuses a run above its limit; a run accepted peaks
/// below it (tests/integration/nothing_lost.rs measures a matrix of runs).
pub fn memory_estimate(cfg: &Config) -> Result<u64> {
    let (devices, simulated, jobs) = memory_parts(cfg)?;
    let (num, den) = JOB_RESIDENT_PER_ALLOCATED;
    Ok(devices + simulated * DEVICE_PAGE_ROUNDING + jobs.saturating_mul(num) / den + PROGRAM_MEMORY)
}

/// Bytes a run of `cfg` allocates at its peak: the FTL's tables
/// ([`crate::ftl::Ftl::memory_estimate`]), the device's per-block and per-plane state, and per
/// job clone its streams, logs and latency histograms.
pub fn allocation_estimate(cfg: &Config) -> Result<u64> {
    let (devices, _, jobs) = memory_parts(cfg)?;
    Ok(devices + jobs + (1 << 20))
}

/// A device's tables are backed by 2 MiB pages where the system gives them (transparent huge
/// pages, which the FTL's maps ask for): a table's last page is resident whole. Six tables
/// (three maps and the per-block counts, states and stamps), 2 MiB each.
pub const DEVICE_PAGE_ROUNDING: u64 = 6 * (2 << 20);

/// Resident memory of the program itself, before a run allocates anything: its code and data
/// as loaded, the threads' stacks and the allocator's first segments. `ssdlab --version`
/// peaks at 11 MiB resident on x86-64 Linux; counted as 16 MiB.
pub const PROGRAM_MEMORY: u64 = 16 << 20;

/// [`allocation_estimate`]'s parts: the devices, how many of them are simulated (have
/// tables), and the jobs.
fn memory_parts(cfg: &Config) -> Result<(u64, u64, u64)> {
    // An array's members each hold a device.
    let (mut devices, mut simulated) = (0, 0);
    for (_, m) in crate::config::members(cfg)? {
        devices += match m {
            crate::config::MemberSpec::Device(d) => {
                simulated += 1;
                device_memory(&d, &cfg.file)?
            }
            // Its points and a window of requests.
            crate::config::MemberSpec::Profile(p) => 64 * p.points.len() as u64 + 4096,
        };
    }
    let cap = if cfg.array.is_some() {
        crate::config::check(cfg)?
    } else {
        crate::redundancy::geometry_of(&cfg.device, &cfg.file)?.logical_bytes()
    };
    // Per clone: the stream, `iodepth` in-flight records. A file-system job's clone holds its
    // application's file table (`workload::fs`).
    let jobs: u64 = cfg
        .job
        .iter()
        .map(|j| {
            let fs =
                j.fs.as_ref()
                    .map_or(0, |f| crate::workload::fs::memory_estimate(j, f, cap));
            // Statistics per reporting unit: one per clone unless group_reporting.
            let units = if j.group_reporting { 1 } else { j.numjobs as u64 };
            // fio's logs: a buffered writer (8 KiB) per file, three for latency (lat, clat, slat).
            let logs = 8
                * 1024
                * (3 * j.write_lat_log.is_some() as u64
                    + j.write_bw_log.is_some() as u64
                    + j.write_iops_log.is_some() as u64);
            j.numjobs as u64 * (256 + 64 * j.iodepth as u64 + fs + logs)
                + units * job_stats_memory(j.ops(), j.unified_rw_reporting != "none")
        })
        .sum();
    Ok((devices, simulated, jobs))
}

/// Latencies an issued operation's histogram is made for at once, and counted up to by
/// [`memory_estimate`]: 1 s (168 KiB of counts at 3 significant digits). Each doubling beyond
/// adds 8 KiB.
pub const ESTIMATED_MAX_LATENCY_NS: u64 = 1_000_000_000;

/// Resident memory per byte the jobs' statistics allocate: the allocator places each
/// histogram of more than 128 KiB in pages of its own, rounded up, and keeps freed memory for
/// reuse; the result is built and written at the end. Measured on 4,000 randrw jobs of 50
/// I/Os on slc-sata: 1.92 GiB resident (`/usr/bin/time`) against 1.63 GiB allocated (a
/// counting allocator), 1.18; counted as 1.25. The matrix of `tests/integration/nothing_lost.rs` checks
/// that every run it accepts peaks below its estimate.
pub const JOB_RESIDENT_PER_ALLOCATED: (u64, u64) = (5, 4);

/// Bytes of a job's statistics and result, for the operations (read, write, trim) it issues.
/// Per operation: a latency histogram (3 significant digits; it grows to cover the highest
/// latency recorded, counted up to [`ESTIMATED_MAX_LATENCY_NS`]; one never recorded into
/// keeps its first 2,048 counts) and fio's log-linear bins (`PLAT_NR` counts); per job the
/// first and last `WINDOW` latencies (two buffers of the next power of two of 8-byte
/// values) and its result: the fio-shaped record (options, percentiles and buckets of three
/// operations, about 8 KiB) and its JSON text (about 8 KiB more).
pub fn job_stats_memory(ops: [bool; 3], mixed: bool) -> u64 {
    let hist = |max: u64| {
        let h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, max, 3).expect("valid bounds");
        8 * h.distinct_values() as u64
    };
    let (used, idle) = (hist(ESTIMATED_MAX_LATENCY_NS), hist(2));
    // fio's unified_rw_reporting: one more operation's statistics, every direction's I/O.
    let hists: u64 = ops.iter().map(|&o| if o { used } else { idle }).sum::<u64>() + mixed as u64 * used;
    let plat = (3 + mixed as u64) * 8 * crate::fiohist::PLAT_NR as u64;
    let windows = 2 * 8 * WINDOW.next_power_of_two() as u64;
    hists + plat + windows + 16 * 1024
}

/// Memory of one device: its FTL's tables and its per-block and per-plane state.
fn device_memory(d: &crate::config::DeviceConfig, file: &str) -> Result<u64> {
    let geo = crate::redundancy::geometry_of(d, file)?;
    let ftl = crate::ftl::Ftl::memory_estimate(&geo);
    let tracked = if d.ftl.write_buffer.0 > 0 && d.ftl.design == "page" {
        8 * geo.blocks as u64
    } else {
        0
    };
    // Superblocks: a superblock number per block and at most one table entry per block.
    let superblocks = if d.placement.policy == "plane" {
        0
    } else {
        4 * geo.blocks as u64 + 32 * geo.blocks as u64
    };
    Ok(ftl
        + tracked
        + 64 * geo.planes as u64
        + crate::firmware::memory_estimate(d)
        + crate::placement::memory_estimate(d, &geo)
        + crate::redundancy::memory_estimate(d, &geo)
        + superblocks)
}

/// Every trace a job replays is a file, or an error at the job's `trace.file` key.
pub fn check_trace_files(cfg: &Config) -> Result<()> {
    for (i, t) in cfg
        .job
        .iter()
        .enumerate()
        .filter_map(|(i, j)| Some((i, j.trace.as_ref()?)))
    {
        let path = match crate::trace::catalogue::resolve(&cfg.base_dir, &t.file) {
            Ok(p) => p,
            Err(e) => return Err(cfg.locate(Error::config(&cfg.file, &format!("job[{i}].trace.file"), e.to_string()))),
        };
        if !path.is_file() {
            let what = if path.exists() { "not a file" } else { "no such file" };
            return Err(cfg.locate(Error::config(
                &cfg.file,
                &format!("job[{i}].trace.file"),
                format!(
                    "'{}': {what}; expected a trace file (a relative path is taken from the run file's folder)",
                    path.display()
                ),
            )));
        }
    }
    Ok(())
}

/// Why a run of `cfg` cannot start from the snapshot `file` of `device` preconditioned as
/// `precondition` (`mismatch` names the first difference of a device and precondition from
/// the snapshot's): a single device must be the snapshot's, an array must have a simulated
/// member that is. `None` when it can start.
fn snapshot_refusal(
    cfg: &Config,
    file: &str,
    device: &crate::config::DeviceConfig,
    precondition: &crate::precondition::PreconditionConfig,
    mismatch: impl Fn(&crate::config::DeviceConfig, &crate::precondition::PreconditionConfig) -> Option<String>,
) -> Result<Option<Error>> {
    let why = if cfg.array.is_none() {
        mismatch(&cfg.device, &cfg.precondition)
    } else {
        let mut why = None;
        let mut matched = false;
        for (i, (_, spec)) in crate::config::members(cfg)?.into_iter().enumerate() {
            if let crate::config::MemberSpec::Device(dc) = spec {
                match mismatch(&dc, &crate::config::member_precondition(cfg, i)?) {
                    None => matched = true,
                    Some(w) => {
                        why.get_or_insert(format!("member {i}: {w}"));
                    }
                }
            }
        }
        if matched {
            None
        } else {
            Some(why.unwrap_or_else(|| "the array has no simulated member".into()))
        }
    };
    Ok(why.map(|why| {
        let what = format!(
            "{} preconditioned {}",
            device.name,
            format!("{:?}", precondition.mode).to_lowercase()
        );
        Error::Config(format!(
            "--from-snapshot: {file}: {why}; expected a run whose device and [precondition] are the snapshot's ({what})"
        ))
    }))
}

/// Refuse a run whose [`memory_estimate`] is above `limit` bytes.
pub fn check_memory(cfg: &Config, limit: u64) -> Result<u64> {
    let need = memory_estimate(cfg)?;
    if need > limit {
        let gib = |b: u64| format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64);
        let (devices, _, jobs) = memory_parts(cfg)?;
        if jobs > devices {
            // Many jobs, each with its statistics: the jobs are what to change.
            return Err(Error::config(
                &cfg.file,
                "job[0]",
                format!(
                    "the run needs about {} of memory, {} of it for the statistics of its {} jobs, above the limit of {}; expected fewer jobs or a higher --max-memory",
                    gib(need),
                    gib(jobs.saturating_mul(JOB_RESIDENT_PER_ALLOCATED.0) / JOB_RESIDENT_PER_ALLOCATED.1),
                    cfg.job.len(),
                    gib(limit)
                ),
            ));
        }
        return Err(Error::config_keys(
            &cfg.file,
            &[
                "device.geometry.blocks_per_plane",
                "device.geometry.mapping_unit",
                "device.geometry",
            ],
            format!(
                "the run needs about {} of memory, above the limit of {}; expected a smaller device, a larger mapping_unit, or a higher --max-memory",
                gib(need),
                gib(limit)
            ),
        ));
    }
    Ok(need)
}

pub struct Simulation {
    /// What the host submits to: the device, or an array's members under its layout.
    pub volume: Volume,
    /// The members' curves, when every member of an array has them.
    curves: Option<Vec<crate::array::profile::DeviceProfile>>,
    /// Members' names and preconditioning (an array's; empty for a device alone).
    members: Vec<(String, Option<(PreconditionReport, crate::config::DeviceConfig)>)>,
    cfg: Config,
    streams: Vec<Stream>,
    /// One per reporting unit, in the order of `units`.
    stats: Vec<JobStats>,
    units: Vec<Unit>,
    pre: PreconditionReport,
    free_samples: Vec<(u64, u64)>,
    /// (time, units programmed, host units written), cumulative, at the free-block samples.
    waf_samples: Vec<(u64, u64, u64)>,
    /// (time, mean latency of the measured I/Os completed since the previous sample).
    lat_samples: Vec<(u64, f64)>,
    /// Latency sum and count since the last sample.
    lat_acc: (u128, u64),
    /// (time, bytes of measured I/Os completed so far), at the free-block samples.
    bytes_samples: Vec<(u64, u64)>,
    /// Bytes of measured I/Os completed so far.
    bytes_done: u64,
    sample_every: u64,
    expected: Option<u64>,
}

/// What the run loop measured, for the result.
struct Measured {
    requests: u64,
    /// Start of the measured window.
    from: u64,
    /// Every simulated member's counters at the window's start.
    window: Vec<Option<Snapshot>>,
    /// Parts issued per member by the window's start.
    counts: Vec<PartCounts>,
    first_submit: Option<u64>,
    last_host_done: u64,
    /// Time with at least one request outstanding in the measured window.
    busy_ns: u64,
    wall_s: f64,
}

/// Phase of each job: a job with `stonewall` starts when every job before it has finished.
fn phases(jobs: &[crate::workload::job::JobConfig]) -> Vec<usize> {
    let mut p = 0;
    jobs.iter()
        .enumerate()
        .map(|(i, j)| {
            p += (i > 0 && j.stonewall) as usize;
            p
        })
        .collect()
}

/// One `jobs[]` entry: the clones reported together (fio's thread stats).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// The job of its first clone, which names the entry.
    pub first_job: usize,
    /// The job of its last clone, whose options the entry lists (as fio does).
    pub last_job: usize,
    /// How many clones it reports (fio's `jobs=`).
    pub clones: u32,
}

/// fio's reporting units: each clone of a job is its own `jobs[]` entry, except that a clone
/// whose job sets `group_reporting` joins the entry before it when that clone's job is in the
/// same reporting group (fio's `__show_run_stats`). Returns the units and, per clone in job
/// order, its unit.
pub fn reporting_units(jobs: &[crate::workload::job::JobConfig]) -> (Vec<Unit>, Vec<usize>) {
    let groups = group_ids(jobs);
    let mut units: Vec<Unit> = Vec::new();
    let mut of_clone = Vec::new();
    let mut prev_group = None;
    for (i, job) in jobs.iter().enumerate() {
        for _ in 0..job.numjobs {
            match units.last_mut() {
                Some(u) if job.group_reporting && prev_group == Some(groups[i]) => {
                    u.last_job = i;
                    u.clones += 1;
                }
                _ => units.push(Unit {
                    first_job: i,
                    last_job: i,
                    clones: 1,
                }),
            }
            prev_group = Some(groups[i]);
            of_clone.push(units.len() - 1);
        }
    }
    (units, of_clone)
}

/// fio's reporting groups: a new one at each job (after the first) with `stonewall` or
/// `new_group`.
pub fn group_ids(jobs: &[crate::workload::job::JobConfig]) -> Vec<u32> {
    let mut g = 0;
    jobs.iter()
        .enumerate()
        .map(|(i, j)| {
            g += (i > 0 && (j.stonewall || j.new_group)) as u32;
            g
        })
        .collect()
}

/// What a run reads and writes besides its config (trace files, log directories), checked
/// before preconditioning, which may take a while, rather than found after the run.
fn check_inputs(cfg: &Config) -> Result<()> {
    check_trace_files(cfg)?;
    crate::fiolog::check_dirs(cfg).map_err(|e| cfg.locate(e))
}

impl Simulation {
    /// Build the device, precondition it and set up the jobs' streams.
    pub fn new(cfg: &Config) -> Result<Simulation> {
        Self::with_progress(cfg, &mut |_, _| {})
    }

    /// As [`Simulation::new`], reporting preconditioning progress as (units written, units
    /// planned at most).
    pub fn with_progress(cfg: &Config, progress: &mut dyn FnMut(u64, u64)) -> Result<Simulation> {
        check_inputs(cfg)?;
        if cfg.array.is_some() {
            return Self::array(cfg, progress);
        }
        let (device, pre) = crate::aged::preconditioned(&cfg.device, &cfg.precondition, progress)?;
        Self::with_device(cfg, device, pre)
    }

    /// [`Simulation::from_snapshot`] of the snapshot file `file`, whose header
    /// [`crate::snapshot::Snapshot::open`] read: a run it cannot start is refused before the
    /// rest of the file (the maps, nearly all of it) is read.
    pub fn from_opened_snapshot(
        cfg: &Config,
        opened: crate::snapshot::Opened,
        file: &str,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Simulation> {
        check_inputs(cfg)?;
        let (d, p) = (opened.device(), opened.precondition());
        if let Some(e) = snapshot_refusal(cfg, file, d, p, |dc, pc| opened.mismatch(dc, pc))? {
            return Err(e);
        }
        Self::start_from(cfg, opened.read()?, progress)
    }

    /// As [`Simulation::with_progress`], with the device started from `snap` (read from `file`)
    /// instead of preconditioned: the run's device and `[precondition]` must be the snapshot's.
    /// In an array, the members whose device and precondition are the snapshot's start from
    /// copies of it, the others are preconditioned (`progress`); at least one must be.
    pub fn from_snapshot(
        cfg: &Config,
        snap: crate::snapshot::Snapshot,
        file: &str,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Simulation> {
        check_inputs(cfg)?;
        if let Some(e) = snapshot_refusal(cfg, file, &snap.device, &snap.precondition, |d, p| snap.mismatch(d, p))? {
            return Err(e);
        }
        Self::start_from(cfg, snap, progress)
    }

    /// The run of `cfg` from `snap`, which its checks found it can start from.
    fn start_from(
        cfg: &Config,
        snap: crate::snapshot::Snapshot,
        progress: &mut dyn FnMut(u64, u64),
    ) -> Result<Simulation> {
        let start = std::time::Instant::now();
        if cfg.array.is_none() {
            let device = Device::with_ftl(&cfg.device, snap.ftl)?;
            let pre = PreconditionReport {
                wall_time_s: crate::metrics::round3(start.elapsed().as_secs_f64()),
                ..snap.report
            };
            return Self::with_device(cfg, device, pre);
        }
        let _kept = crate::aged::keep(&snap.device, &snap.precondition, snap.ftl, snap.report);
        Self::array(cfg, progress)
    }

    /// An array run: every member built and preconditioned as a device alone would be (the
    /// run's `[precondition]`, member `i` seeded with the run's seed + `i`), under the
    /// layout.
    fn array(cfg: &Config, progress: &mut dyn FnMut(u64, u64)) -> Result<Simulation> {
        use crate::{array::volume::Member, config::MemberSpec};
        let mut members = Vec::new();
        let mut pres = Vec::new();
        for (i, (_, spec)) in crate::config::members(cfg)?.into_iter().enumerate() {
            match spec {
                MemberSpec::Device(dc) => {
                    let pc = crate::config::member_precondition(cfg, i)?;
                    let (device, pre) = crate::aged::preconditioned(&dc, &pc, progress)?;
                    pres.push(Some(pre));
                    members.push(Member::Sim(Box::new(device)));
                }
                MemberSpec::Profile(p) => {
                    pres.push(None);
                    members.push(Member::Drive(Box::new(crate::array::drive::ProfileDrive::new(*p))));
                }
            }
        }
        Self::with_members(cfg, members, pres)
    }

    /// An array run of `cfg` on members already built, simulated ones preconditioned
    /// (`pre` says how, per member), e.g. around copies of preconditioned FTLs.
    pub fn with_members(
        cfg: &Config,
        members: Vec<crate::array::volume::Member>,
        pre: Vec<Option<PreconditionReport>>,
    ) -> Result<Simulation> {
        let specs = crate::config::members(cfg)?;
        if members.len() != specs.len() || pre.len() != specs.len() {
            return Err(Error::Invalid(format!(
                "{} members and {} precondition reports for {} [[array.member]]; expected one each",
                members.len(),
                pre.len(),
                specs.len()
            )));
        }
        let min = members.iter().map(|m| m.logical_bytes()).min().unwrap_or(0);
        let layout = crate::array::layout_of(cfg, min)?;
        let first = pre.iter().flatten().next().cloned().unwrap_or_default();
        let mut sim = Self::assemble(cfg, Volume::new(members, layout), first, None)?;
        sim.curves = crate::array::member_curves(cfg)?;
        sim.members = specs
            .into_iter()
            .zip(pre)
            .map(|((name, spec), p)| match (spec, p) {
                (crate::config::MemberSpec::Device(dc), Some(p)) => Ok((name, Some((p, dc)))),
                (crate::config::MemberSpec::Profile(_), None) => Ok((name, None)),
                _ => Err(Error::Invalid(format!(
                    "member {name}: a precondition report for a measured drive, or none for a simulated one"
                ))),
            })
            .collect::<Result<_>>()?;
        Ok(sim)
    }

    /// The device (an array's first member).
    pub fn device(&self) -> &Device {
        self.volume.devices().next().expect("a simulated member")
    }

    /// A simulation of `cfg`'s jobs on a device already built and preconditioned (`pre` says
    /// how), e.g. around a copy of a preconditioned FTL ([`Device::with_ftl`]).
    pub fn with_device(cfg: &Config, device: Device, pre: PreconditionReport) -> Result<Simulation> {
        Self::assemble(cfg, Volume::single(device), pre, None)
    }

    /// As [`Simulation::with_device`], with the requests of each job clone (in job order,
    /// `numjobs` per job) from `sources`: a source and whether it is open loop (it gives
    /// arrival times) or closed loop (the job's `iodepth` outstanding).
    pub fn with_sources(
        cfg: &Config,
        device: Device,
        pre: PreconditionReport,
        sources: Vec<(Box<dyn RequestSource>, bool)>,
    ) -> Result<Simulation> {
        let clones: usize = cfg.job.iter().map(|j| j.numjobs as usize).sum();
        if sources.len() != clones {
            return Err(Error::Invalid(format!(
                "{} request sources for {clones} job clones; expected one per clone",
                sources.len()
            )));
        }
        Self::assemble(cfg, Volume::single(device), pre, Some(sources))
    }

    fn assemble(
        cfg: &Config,
        volume: Volume,
        pre: PreconditionReport,
        given: Option<Vec<(Box<dyn RequestSource>, bool)>>,
    ) -> Result<Simulation> {
        if given.is_none() {
            check_trace_files(cfg)?;
        }
        let seed = cfg.precondition.seed;
        let cap = volume.logical_bytes();
        let mut given = given.map(|v| v.into_iter());
        let mut streams = Vec::new();
        let mut expected = Some(0u64);
        let (units, unit_of) = reporting_units(&cfg.job);
        // fio's zone information, shared by the zoned jobs (one device, all zones empty).
        let mut wps: Option<crate::workload::zbd::WritePointers> = None;
        for (i, job) in cfg.job.iter().enumerate() {
            for c in 0..job.numjobs {
                let (source, open): (Box<dyn RequestSource>, bool) = match (&mut given, &job.trace) {
                    (Some(g), _) => {
                        expected = None;
                        g.next().expect("one source per clone")
                    }
                    (None, Some(t)) => {
                        expected = None;
                        let src = TraceSource::open(t, &cfg.base_dir, cap)?;
                        (Box::new(src), job.replay.as_deref() != Some("closed"))
                    }
                    (None, None) => {
                        let zoned = cfg.zoned_job(i)?;
                        let shared = match zoned.zonesize {
                            Some(z) if zoned.zonemode == "zbd" && z.0 > 0 => {
                                Some(&*wps.get_or_insert_with(|| crate::workload::zbd::WritePointers::new(cap / z.0)))
                            }
                            _ => None,
                        };
                        let src = crate::workload::generated_source_sharing(
                            &zoned.for_clone(c, cap).map_err(Error::Invalid)?,
                            cap,
                            job.clone_seed(seed, i, c),
                            shared,
                        )?;
                        expected = match (expected, job.expected_ios(cap), job.runtime) {
                            (Some(e), Some(n), None) => Some(e + n),
                            _ => None,
                        };
                        (src, job.open_loop())
                    }
                };
                let logs = CloneLogs::create(job, streams.len() + 1)?;
                streams.push(Stream {
                    job: i,
                    unit: unit_of[streams.len()],
                    start: 0,
                    measure_from: 0,
                    source,
                    open,
                    depth: job.iodepth,
                    pending: None,
                    inflight: 0,
                    logs,
                    host_ns: job.host_time.map_or(0, |d| d.0),
                    host_free: 0,
                    placement: crate::workload::placement_ids::Chooser::for_job(
                        &job.dataplacement,
                        job.plids.as_deref(),
                        &job.plid_select,
                        cfg.device.placement.placement_handles(),
                        job.clone_seed(seed, i, c),
                    ),
                    ruh_update: job.ruh_update_every.map(|s| RuhUpdates {
                        every: s.0,
                        since: 0,
                        ids: 0,
                        due: Vec::new(),
                    }),
                    done_issuing: false,
                    stopped: false,
                });
            }
        }
        if streams.is_empty() {
            return Err(Error::Config(format!("{}: no [[job]] to run", cfg.file)));
        }
        Ok(Simulation {
            volume,
            curves: None,
            members: Vec::new(),
            stats: units.iter().map(|u| JobStats::of_unit(&cfg.job, u)).collect(),
            units,
            cfg: cfg.clone(),
            streams,
            pre,
            free_samples: Vec::new(),
            waf_samples: Vec::new(),
            lat_samples: Vec::new(),
            lat_acc: (0, 0),
            bytes_samples: Vec::new(),
            bytes_done: 0,
            sample_every: 1024,
            expected,
        })
    }

    /// What preconditioning did.
    pub fn precondition_report(&self) -> &PreconditionReport {
        &self.pre
    }

    /// Start of the measured window: the longest `startdelay` + `ramp_time` of the jobs.
    fn window_start(&self) -> u64 {
        self.cfg
            .job
            .iter()
            .map(|j| j.startdelay.map_or(0, |d| d.0) + j.ramp_time.map_or(0, |d| d.0))
            .max()
            .unwrap_or(0)
    }

    /// Start the jobs of `phase` at `t`: their host events, and their statistics' start.
    #[allow(clippy::too_many_arguments)]
    fn start_phase(
        &mut self,
        phase: usize,
        t: u64,
        phase_of: &[usize],
        ramp: &[u64],
        host: &mut BinaryHeap<Reverse<(u64, u64, u32)>>,
        seq: &mut u64,
        live: &mut [u64],
    ) -> Result<()> {
        let delay: Vec<u64> = self.cfg.job.iter().map(|j| j.startdelay.map_or(0, |d| d.0)).collect();
        // A unit's jobs share a reporting group, so a phase.
        for (u, st) in self.units.iter().zip(self.stats.iter_mut()) {
            if phase_of[u.first_job] == phase {
                st.start = t;
                st.measure_from = t + delay[u.first_job] + ramp[u.first_job];
            }
        }
        for (si, s) in self.streams.iter_mut().enumerate() {
            if phase_of[s.job] != phase {
                continue;
            }
            // fio's startdelay: the clone starts that much after its phase.
            s.start = t + delay[s.job];
            s.measure_from = s.start + ramp[s.job];
            let t = s.start;
            if s.open {
                if let Some(mut r) = s.source.next_request(0)? {
                    r.time_ns = check_time(r.time_ns.saturating_add(t), "a request's arrival")?;
                    host.push(Reverse((r.time_ns, *seq, si as u32)));
                    *seq += 1;
                    live[phase] += 1;
                    s.pending = Some(r);
                }
            } else {
                for _ in 0..s.depth {
                    let t = s.host_submit(t, &self.cfg)?;
                    host.push(Reverse((t, *seq, si as u32)));
                    *seq += 1;
                    live[phase] += 1;
                }
            }
        }
        Ok(())
    }

    /// Sample the device's free blocks and write amplification counters at `t`.
    /// (time, bytes per second of the measured I/Os completed since the previous sample).
    fn bandwidth_over_time(&self) -> Vec<(u64, f64)> {
        self.bytes_samples
            .windows(2)
            .filter(|w| w[1].0 > w[0].0)
            .map(|w| {
                let rate = (w[1].1 - w[0].1) as f64 * 1e9 / (w[1].0 - w[0].0) as f64;
                (w[1].0, crate::metrics::round3(rate))
            })
            .collect()
    }

    fn sample_device(&mut self, t: u64) {
        // An array's: summed over its members.
        let (mut free, mut programmed, mut written) = (0, 0, 0);
        for d in self.volume.devices() {
            let upp = d.geo.units_per_page as u64;
            let st = &d.ftl.stats;
            free += d.free_blocks() as u64;
            programmed += (st.host_pages_programmed + st.gc_pages_programmed) * upp;
            written += d.counters.host_write_units;
        }
        self.free_samples.push((t, free));
        self.waf_samples.push((t, programmed, written));
        self.bytes_samples.push((t, self.bytes_done));
        let (sum, n) = std::mem::take(&mut self.lat_acc);
        if n > 0 {
            self.lat_samples
                .push((t, crate::metrics::round3(sum as f64 / n as f64)));
        }
    }

    /// fio's `exitall`: clone `e` has ended; if its job says so, the clones of its reporting
    /// group (`exit_what=group`, fio's default), of its phase (`stonewall`) or every clone
    /// (`all`) issue nothing more (what they have outstanding completes).
    fn exit_all(&mut self, e: usize, phase_of: &[usize], group_of: &[u32]) {
        let job = &self.cfg.job[self.streams[e].job];
        if !job.exitall {
            return;
        }
        let (je, what) = (self.streams[e].job, job.exit_what.as_str());
        for s in &mut self.streams {
            let hit = match what {
                "all" => true,
                "stonewall" => phase_of[s.job] == phase_of[je],
                _ => group_of[s.job] == group_of[je],
            };
            s.stopped |= hit;
        }
    }

    /// Run all jobs to completion, then let the device finish its queued work.
    pub fn run(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<RunResult> {
        let wall = std::time::Instant::now();
        let ramp: Vec<u64> = self.cfg.job.iter().map(|j| j.ramp_time.map_or(0, |d| d.0)).collect();
        let window_start = self.window_start();
        let mut host: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
        let mut seq = 0u64;
        // Jobs run in phases (stonewall); `live` counts a phase's host events and requests
        // outstanding, and the next phase starts when it reaches 0.
        let phase_of = phases(&self.cfg.job);
        let n_phases = phase_of.last().map_or(1, |p| p + 1);
        let horizon_ns = time_horizon(&self.cfg.job, &phase_of);
        let mut live = vec![0u64; n_phases];
        let mut phase = 0usize;
        let mut now = 0u64;
        self.start_phase(0, 0, &phase_of, &ramp, &mut host, &mut seq, &mut live)?;
        let mut issued: Vec<Issued> = Vec::new();
        let mut free_issued: Vec<u32> = Vec::new();
        let mut outstanding = 0u64;
        let mut done = 0u64;
        let mut window: Option<(Vec<Option<Snapshot>>, Vec<PartCounts>)> = None;
        let mut first_submit: Option<u64> = None;
        let mut last_host_done = 0u64;
        let mut draining = false;
        let mut busy_since = 0u64;
        let mut busy_ns = 0u64;
        let mut completions: Vec<(u64, u64)> = Vec::new();
        self.volume.kick_background()?;
        self.sample_device(0);
        // fio's exitall: the clone that just ended, whose job may end others.
        let mut ended: Option<usize> = None;
        let group_of = group_ids(&self.cfg.job);
        loop {
            if let Some(e) = ended.take() {
                self.exit_all(e, &phase_of, &group_of);
            }
            while live[phase] == 0 && phase + 1 < n_phases {
                phase += 1;
                self.start_phase(phase, now, &phase_of, &ramp, &mut host, &mut seq, &mut live)?;
            }
            let th = host.peek().map(|Reverse((t, ..))| *t);
            let td = self.volume.next_event();
            let t = match (th, td) {
                (None, None) => break,
                (Some(h), None) => h,
                (None, Some(d)) => d,
                (Some(h), Some(d)) => h.min(d),
            };
            check_time(t, "the run")?;
            now = t;
            if window.is_none() && t >= window_start {
                window = Some((self.volume.snapshots(window_start), self.volume.counts.clone()));
            }
            // Device events first: completions due at `t` are known before the host acts.
            if td.is_some_and(|d| th.is_none_or(|h| d <= h)) {
                self.volume.step()?;
            } else {
                let Reverse((t, _, si)) = host.pop().expect("a host event");
                let s = &mut self.streams[si as usize];
                let ph = phase_of[s.job];
                live[ph] -= 1;
                if s.stopped {
                    continue;
                }
                // Sources count time from their clone's start.
                let rel = t - s.start;
                let next = if s.open {
                    s.pending.take()
                } else {
                    let r = s.source.next_request(rel)?;
                    if r.is_some() {
                        // The stream's later requests: their map entries into cache.
                        self.volume.prefetch(s.source.upcoming(15), s.source.upcoming(7));
                    }
                    r
                };
                let Some(req) = next else {
                    s.done_issuing = true;
                    if s.inflight == 0 {
                        ended = Some(si as usize);
                    }
                    continue;
                };
                let job = s.job;
                // A source that places its own data (stream ids of its requests) keeps them;
                // the others' requests get their job's stream.
                // A fio job's data placement directive puts an identifier on each write.
                let req = Request {
                    stream: match &mut s.placement {
                        _ if req.stream != 0 => req.stream,
                        Some(c) if req.op == Op::Write => c.next_stream(),
                        _ => self.cfg.job[job].stream,
                    },
                    ..req
                };
                let rec = Issued {
                    stream: si,
                    // A closed-loop I/O's latency counts from the start of its host time.
                    time: if s.open { t } else { t - s.host_ns },
                    op: req.op,
                    offset: req.offset,
                    len: req.len,
                };
                let tag = match free_issued.pop() {
                    Some(i) => {
                        issued[i as usize] = rec;
                        i
                    }
                    None => {
                        issued.push(rec);
                        (issued.len() - 1) as u32
                    }
                };
                if outstanding == 0 {
                    busy_since = t;
                }
                outstanding += 1;
                live[ph] += 1;
                s.inflight += 1;
                if t >= window_start {
                    first_submit.get_or_insert(t);
                }
                let js = &mut self.stats[s.unit];
                // A zone management command (fio's own resets in zbd mode) is no I/O.
                if t >= s.measure_from && !matches!(req.op, Op::Zone(..)) {
                    js.first_issue.get_or_insert(t);
                    js.depths[depth_bucket(s.inflight)] += 1;
                }
                if s.open {
                    js.outstanding += 1;
                    js.max_outstanding = js.max_outstanding.max(js.outstanding);
                    if let Some(mut r) = s.source.next_request(rel)? {
                        r.time_ns = check_time(r.time_ns.saturating_add(s.start).max(t), "a request's arrival")?;
                        host.push(Reverse((r.time_ns, seq, si)));
                        seq += 1;
                        live[ph] += 1;
                        s.pending = Some(r);
                    }
                }
                self.volume.submit(t, &req, tag as u64)?;
                if let (Some(u), Op::Write) = (&mut s.ruh_update, req.op) {
                    // Stream s carries placement identifier s - 1 (stream 0: none); the
                    // device has at most 64 handles.
                    if let Some(h) = req.stream.checked_sub(1).filter(|&h| h < 64) {
                        u.ids |= 1u64 << h;
                    }
                    u.since += req.len;
                    if u.since >= u.every {
                        u.since %= u.every;
                        let plids = std::mem::take(&mut u.ids);
                        if plids != 0 {
                            u.due.push((tag, plids));
                        }
                    }
                }
            }
            self.volume.take_completions(&mut completions);
            for (tag, c) in completions.drain(..) {
                let is = issued[tag as usize];
                free_issued.push(tag as u32);
                outstanding -= 1;
                if outstanding == 0 && c > window_start {
                    busy_ns += c - busy_since.max(window_start);
                }
                last_host_done = last_host_done.max(c);
                let s = &mut self.streams[is.stream as usize];
                s.inflight -= 1;
                if s.inflight == 0 && s.done_issuing {
                    ended = Some(is.stream as usize);
                }
                if let Some(u) = &mut s.ruh_update {
                    if let Some(k) = u.due.iter().position(|d| d.0 == tag as u32) {
                        let (_, plids) = u.due.swap_remove(k);
                        self.volume.ruh_update(c, plids)?;
                    }
                }
                let job = &self.cfg.job[s.job];
                let js = &mut self.stats[s.unit];
                live[phase_of[s.job]] -= 1;
                js.last_any = js.last_any.max(c);
                let lat = c - is.time;
                if let Op::Zone(action, _) = is.op {
                    // fio counts its zone resets (after the ramp), no I/O statistics.
                    if is.time >= s.measure_from && action == crate::request::ZoneAction::Reset {
                        js.zone_resets += 1;
                    }
                } else if is.time >= s.measure_from {
                    let dir = is.op.index();
                    js.ops[dir].record(is.len, lat);
                    if let Some(m) = &mut js.mixed {
                        m.record(is.len, lat);
                    }
                    js.last_done = js.last_done.max(c);
                    js.sample(job, c, Some((dir, is.len, lat)));
                    self.lat_acc.0 += lat as u128;
                    self.lat_acc.1 += 1;
                    self.bytes_done += is.len;
                    let origin = js.first_issue.expect("a measured request was issued");
                    if let Some(l) = &mut s.logs {
                        l.record(origin, c, is.op, is.len, is.offset, lat)?;
                    }
                }
                if s.open {
                    js.outstanding -= 1;
                    if js.first_lat.len() < WINDOW {
                        js.first_lat.push(lat);
                    }
                    if js.last_lat.len() == WINDOW {
                        js.last_lat.pop_front();
                    }
                    js.last_lat.push_back(lat);
                } else {
                    // fio's thinktime: the slot waits before its next I/O.
                    let next = match job.thinktime {
                        Some(t) => check_time(c.saturating_add(t.0), "").map_err(|_| {
                            self.cfg.locate(Error::config(
                                &self.cfg.file,
                                &format!("job[{}].thinktime", s.job),
                                format!(
                                    "{} ns between a clone's I/Os takes the run past the simulated-time horizon (2^62 ns, 146 years) at {c} ns; expected a shorter think time or fewer I/Os",
                                    t.0
                                ),
                            ))
                        })?,
                        None => c,
                    };
                    let next = s.host_submit(next, &self.cfg)?;
                    host.push(Reverse((next, seq, is.stream)));
                    seq += 1;
                    live[phase_of[s.job]] += 1;
                }
                done += 1;
                if done.is_multiple_of(self.sample_every) {
                    self.sample_device(c);
                    if self.free_samples.len() >= 512 {
                        // Keep every other sample and sample half as often: bounded and deterministic.
                        let kept: Vec<_> = self.free_samples.iter().copied().step_by(2).collect();
                        self.free_samples = kept;
                        let kept: Vec<_> = self.waf_samples.iter().copied().step_by(2).collect();
                        self.waf_samples = kept;
                        let kept: Vec<_> = self.lat_samples.iter().copied().step_by(2).collect();
                        self.lat_samples = kept;
                        let kept: Vec<_> = self.bytes_samples.iter().copied().step_by(2).collect();
                        self.bytes_samples = kept;
                        self.sample_every *= 2;
                    }
                }
                if done & 0xFFFF == 0 {
                    check_interrupt()?;
                    progress(Progress {
                        requests: done,
                        sim_time_ns: c,
                        expected: self.expected,
                        horizon_ns,
                    });
                }
            }
            if !draining && host.is_empty() && outstanding == 0 && phase + 1 == n_phases {
                // The host is done: the device finishes what is queued and starts nothing new.
                self.volume.set_draining();
                draining = true;
            }
        }
        let end = self.volume.last_activity().max(last_host_done);
        self.sample_device(end);
        for (st, u) in self.stats.iter_mut().zip(&self.units) {
            // The samples of the windows the job's runtime covers in full.
            st.sample(&self.cfg.job[u.first_job], st.last_done, None);
        }
        for s in &mut self.streams {
            if let Some(l) = &mut s.logs {
                l.finish(self.stats[s.unit].last_done)?;
            }
        }
        if cfg!(debug_assertions) {
            self.volume
                .check_invariants()
                .map_err(|m| Error::Invalid(format!("invariant violated: {m}")))?;
        }
        progress(Progress {
            requests: done,
            sim_time_ns: end,
            expected: self.expected,
            horizon_ns,
        });
        let from = if window.is_some() {
            window_start
        } else {
            end.max(window_start)
        };
        let (window, counts) = window.unwrap_or_else(|| (self.volume.snapshots(from), self.volume.counts.clone()));
        Ok(self.result(Measured {
            requests: done,
            from,
            window,
            counts,
            first_submit,
            last_host_done,
            busy_ns,
            wall_s: wall.elapsed().as_secs_f64(),
        }))
    }

    /// The `ssd` section of device `d` (an array's member: its own counters and the bytes
    /// and requests `io` it was given) over the window from `w0` to `end`.
    #[allow(clippy::too_many_arguments)]
    fn ssd_of(
        &self,
        d: &Device,
        dc: &crate::config::DeviceConfig,
        pre: &PreconditionReport,
        w0: &Snapshot,
        end: u64,
        m: &Measured,
        io: ([u64; 2], u64),
    ) -> SsdResult {
        let r3 = crate::metrics::round3;
        let g = &d.geo;
        let now = d.snapshot(end);
        let f = now.ftl.since(&w0.ftl);
        let c = now.counters.since(&w0.counters);
        let upp = g.units_per_page as u64;
        let flash_programs = f.host_pages_programmed + f.gc_pages_programmed;
        let waf = if c.host_write_units == 0 {
            0.0
        } else {
            r3((flash_programs * upp) as f64 / c.host_write_units as f64)
        };
        let (emin, emean, emax, ehist) = d.ftl.erase_summary();
        // Busy time in the window over the window's length: at most 1 for every resource.
        let span = end - w0.time;
        let util = |now: &[u64], then: &[u64]| -> f64 {
            if span == 0 || now.is_empty() {
                return 0.0;
            }
            let busy: u64 = now.iter().zip(then).map(|(a, b)| a - b).sum();
            r3(busy as f64 / (now.len() as f64 * span as f64))
        };
        let vhist: Vec<(usize, u64)> = f
            .victim_valid_hist
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(v, &n)| (v, n))
            .collect();
        // Interference per die, summed over its units.
        let mut per_die = vec![scheduler::UnitStats::default(); d.dies_total()];
        for (u, (a, b)) in now.unit_stats.iter().zip(&w0.unit_stats).enumerate() {
            let p = &mut per_die[d.die_of_unit(u)];
            p.conflicting_reads += a.conflicting_reads - b.conflicting_reads;
            p.conflict_wait_ns += a.conflict_wait_ns - b.conflict_wait_ns;
            p.suspensions += a.suspensions - b.suspensions;
        }
        let conflicting: u64 = per_die.iter().map(|p| p.conflicting_reads).sum();
        let conflict_wait: u64 = per_die.iter().map(|p| p.conflict_wait_ns).sum();
        let suspensions: u64 = per_die.iter().map(|p| p.suspensions).sum();
        let (span, throughput) = span_and_throughput(w0.time, end, m, io);
        let mut warnings = Vec::new();
        let total = &now.counters;
        if total.unmapped_read_units > 0 {
            warnings.push(format!(
                "{} of {} host read units ({:.1} %) read data never written: they were answered without a flash read, so read latency and bandwidth are optimistic; precondition the device or keep reads on written data",
                total.unmapped_read_units,
                total.host_read_units,
                100.0 * total.unmapped_read_units as f64 / total.host_read_units.max(1) as f64
            ));
        }
        warnings.extend(pre.warning());
        if m.first_submit.is_none() {
            warnings.push(format!(
                "no request was issued after ramp_time ({} ns): the measured window is empty",
                w0.time
            ));
        }
        let sc = &dc.scheduler;
        SsdResult {
            device: d.name.clone(),
            logical_bytes: g.logical_bytes(),
            physical_bytes: g.physical_bytes(),
            alpha: (g.alpha() * 10000.0).round() / 10000.0,
            gc_policy: d.ftl.policy_name().to_string(),
            firmware: {
                let mut o = serde_json::Map::new();
                o.insert("design".into(), json!(dc.ftl.design));
                for ((k, v), (_, v0)) in now.firmware.iter().zip(&w0.firmware) {
                    o.insert((*k).into(), json!(v - v0));
                }
                serde_json::Value::Object(o)
            },
            placement: now.superblocks.as_ref().map(|sb| {
                let sb = sb.since(w0.superblocks.as_ref().expect("superblocks from the start"));
                let mut o = serde_json::Map::new();
                o.insert("policy".into(), json!(dc.placement.policy));
                o.insert("open_superblocks".into(), json!(dc.placement.open_superblocks));
                if dc.placement.policy == "fdp" {
                    o.insert("isolation".into(), json!(dc.placement.isolation));
                    o.insert("reclaim_groups".into(), json!(dc.placement.reclaim_groups));
                }
                o.insert("superblocks_opened".into(), json!(sb.superblocks_opened));
                o.insert("victims".into(), json!(sb.victims));
                for ((k, v), (_, v0)) in now.placement.iter().zip(&w0.placement) {
                    o.insert((*k).into(), json!(v - v0));
                }
                // Host bytes per slot (FDP: per reclaim unit handle), in slot order.
                let per_slot: Vec<u64> = now
                    .slot_host_bytes
                    .iter()
                    .zip(&w0.slot_host_bytes)
                    .map(|(a, b)| a - b)
                    .collect();
                o.insert("host_bytes_per_slot".into(), json!(per_slot));
                // RUs opened and GC's bytes moved out of each slot's superblocks, GC's slot
                // last.
                let unit = d.geo.unit_size;
                o.insert("superblocks_opened_per_slot".into(), json!(sb.opened_per_slot));
                let gc: Vec<u64> = sb.gc_units_per_slot.iter().map(|u| u * unit).collect();
                o.insert("gc_bytes_per_slot".into(), json!(gc));
                if dc.placement.policy == "fdp" {
                    // A handle's own write amplification: its host bytes and the bytes GC
                    // moved out of its reclaim units, over its host bytes (none written: null).
                    let waf: Vec<Option<f64>> = per_slot
                        .iter()
                        .zip(&gc)
                        .map(|(&h, &moved)| (h > 0).then(|| r3((h + moved) as f64 / h as f64)))
                        .collect();
                    o.insert("waf_per_slot".into(), json!(waf));
                    // The FDP statistics log page (NVMe 2.1): host bytes written, media bytes
                    // written (every page programmed: the host's, GC's, padding) and media
                    // bytes erased, over the measured window.
                    let block = g.pages_per_block as u64 * g.page_size;
                    o.insert(
                        "fdp_statistics".into(),
                        json!({
                            "host_bytes_written": per_slot.iter().sum::<u64>(),
                            "media_bytes_written": flash_programs * g.page_size,
                            "media_bytes_erased": f.erases * block,
                        }),
                    );
                    // NVMe's Reclaim Unit Handle Updates received, and the reclaim units they
                    // took off their handles partly written, per handle.
                    let host = |v: &[u64]| {
                        v.iter()
                            .take(dc.placement.placement_handles() as usize)
                            .copied()
                            .collect::<Vec<u64>>()
                    };
                    o.insert("ruh_updates_per_slot".into(), json!(host(&sb.ruh_updates_per_slot)));
                    let nfw = host(&sb.not_fully_written_per_slot);
                    o.insert("ru_not_fully_written_events".into(), json!(nfw.iter().sum::<u64>()));
                    o.insert("ru_not_fully_written_per_slot".into(), json!(nfw));
                }
                o.insert("victim_valid_percent".into(), json!(sb.victim_valid_percent));
                serde_json::Value::Object(o)
            }),
            redundancy: d.scheme().map(|sc| {
                let mut o = serde_json::Map::new();
                o.insert("scheme".into(), json!(sc.name()));
                o.insert("space_cost".into(), json!(sc.space_cost()));
                for ((k, v), (_, v0)) in now.redundancy.iter().zip(&w0.redundancy) {
                    o.insert((*k).into(), json!(v - v0));
                }
                serde_json::Value::Object(o)
            }),
            endurance: dc.nand.endurance,
            scheduler: json!({
                "policy": sc.policy, "suspend": sc.suspend, "max_write_wait_ns": sc.max_write_wait.0,
                "allocation": dc.ftl.allocation, "copyback": dc.nand.copyback,
                "units": d.sched.units(),
            }),
            host: json!({
                "read_units": c.host_read_units, "write_units": c.host_write_units, "trim_units": c.host_trim_units,
                "unmapped_read_units": c.unmapped_read_units, "buffer_read_units": c.buffer_read_units,
                "buffer_stalls": c.buffer_stalls, "unit_bytes": g.unit_size,
            }),
            flash: json!({
                "page_reads": c.host_page_reads + c.rmw_page_reads + f.gc_pages_read,
                "host_page_reads": c.host_page_reads, "rmw_page_reads": c.rmw_page_reads, "gc_page_reads": f.gc_pages_read,
                "rmw_held_programs": c.rmw_held_programs,
                "page_programs": flash_programs, "host_page_programs": f.host_pages_programmed,
                "gc_page_programs": f.gc_pages_programmed, "padded_units": f.padded_units,
                "erases": f.erases,
            }),
            waf,
            gc: json!({
                "runs": f.gc_runs(), "foreground": f.gc_runs_foreground, "background": f.gc_runs_background,
                "finished": f.gc_runs_finished,
                "copied_units": f.gc_units_copied, "victim_valid_histogram": vhist,
            }),
            wear: json!({
                "erase_min": emin, "erase_mean": r3(emean), "erase_max": emax, "erase_histogram": ehist,
                "retired_blocks": d.ftl.stats.retired_blocks, "static_wl_migrations": f.wl_migrations,
                "static_wl_copied_units": f.wl_units_copied,
            }),
            interference: json!({
                "conflicting_reads": conflicting,
                "conflict_wait_ns": conflict_wait,
                "mean_conflict_wait_ns": if conflicting == 0 { 0.0 } else { r3(conflict_wait as f64 / conflicting as f64) },
                "suspensions": suspensions,
                "per_die": {
                    "conflicting_reads": per_die.iter().map(|p| p.conflicting_reads).collect::<Vec<_>>(),
                    "conflict_wait_ns": per_die.iter().map(|p| p.conflict_wait_ns).collect::<Vec<_>>(),
                    "suspensions": per_die.iter().map(|p| p.suspensions).collect::<Vec<_>>(),
                },
            }),
            utilisation: json!({
                "host_link": util(&now.link_busy, &w0.link_busy),
                "channels": util(&now.channel_busy, &w0.channel_busy),
                "planes": util(&now.unit_busy, &w0.unit_busy),
                "controller_cpus": util(&now.cpu_busy, &w0.cpu_busy),
            }),
            span,
            throughput,
            free_blocks_over_time: self.free_samples.clone(),
            waf_over_time: self
                .waf_samples
                .windows(2)
                .map(|w| {
                    let host = w[1].2 - w[0].2;
                    let waf = if host == 0 {
                        0.0
                    } else {
                        r3((w[1].1 - w[0].1) as f64 / host as f64)
                    };
                    (w[1].0, waf)
                })
                .collect(),
            latency_over_time: self.lat_samples.clone(),
            bandwidth_over_time: self.bandwidth_over_time(),
            precondition: serde_json::to_value(pre).expect("serialisable"),
            warnings,
            sim_time_ns: end,
            requests: m.requests,
            wall_time_s: r3(m.wall_s),
            sim_requests_per_wall_s: if m.wall_s > 0.0 {
                (m.requests as f64 / m.wall_s).round()
            } else {
                0.0
            },
        }
    }

    /// Section 4's model from the members' curves, beside the simulated throughput.
    fn array_model(&self, ssd: &SsdResult) -> Option<crate::metrics::ArrayModel> {
        use crate::array::profile::Pattern;
        use crate::array::rodi;
        let curves = self.curves.as_ref()?;
        let job = self.cfg.job.first()?;
        let ios = |op: usize| self.stats.iter().map(|s| s.ops[op].count).sum::<u64>();
        let (reads, writes) = (ios(0), ios(1));
        let share = reads as f64 / (reads + writes).max(1) as f64;
        let pattern = if job.is_random() {
            Pattern::Random
        } else {
            Pattern::Sequential
        };
        let depth: u32 = self.cfg.job.iter().map(|j| j.iodepth * j.numjobs).sum();
        let depth = (depth / curves.len() as u32).max(1);
        let c: Vec<rodi::Curve> = curves.iter().map(|p| p.curve_at(pattern, job.bs.0, depth)).collect();
        let mut readonly = self.volume.layout().readonly_members().to_vec();
        if readonly.is_empty() && c.len() > 1 {
            readonly = rodi::choose_readonly(&c, 1);
        }
        let r3 = crate::metrics::round3;
        let tp0 = c.iter().map(|x| x.at(share)).fold(f64::INFINITY, f64::min);
        let rodi = rodi::model(&c, &readonly, share).ok();
        let t = &ssd.throughput["host_visible"];
        Some(crate::metrics::ArrayModel {
            read_share: r3(share),
            pattern: format!("{pattern:?}").to_lowercase(),
            bs: job.bs.0,
            depth_per_member: depth,
            readonly,
            tp0: r3(tp0),
            raid0_mb_s: r3(tp0 * c.len() as f64),
            tp1: rodi.map(|m| r3(m.tp1)),
            tp2: rodi.map(|m| r3(m.tp2)),
            rodi_mb_s: rodi.map(|m| r3(m.rodi)),
            simulated_mb_s: r3((t["read_bytes_per_s"].as_f64().unwrap_or(0.0)
                + t["write_bytes_per_s"].as_f64().unwrap_or(0.0))
                / 1e6),
        })
    }

    /// Each array member's result over the window.
    fn member_results(&self, end: u64, m: &Measured) -> Vec<crate::metrics::MemberResult> {
        let start = m.first_submit.unwrap_or(m.from).max(m.from);
        let span = end.saturating_sub(start);
        let readonly = self.volume.layout().readonly_members();
        self.volume
            .members
            .iter()
            .enumerate()
            .map(|(i, member)| {
                let (now, then) = (&self.volume.counts[i], &m.counts[i]);
                let req = |op: Op| now.requests[op.index()] - then.requests[op.index()];
                let bytes = |op: Op| now.bytes[op.index()] - then.bytes[op.index()];
                let io = (
                    [bytes(Op::Read), bytes(Op::Write)],
                    req(Op::Read) + req(Op::Write) + req(Op::Trim),
                );
                let (name, sim) = &self.members[i];
                let ssd = match (member.device(), sim, &m.window[i]) {
                    (Some(d), Some((pre, dc)), Some(w0)) => {
                        let mut ssd = self.ssd_of(d, dc, pre, w0, end, m, io);
                        // The time series are the volume's: not repeated per member.
                        ssd.free_blocks_over_time.clear();
                        ssd.waf_over_time.clear();
                        ssd.latency_over_time.clear();
                        ssd.requests = io.1;
                        Some(ssd)
                    }
                    _ => None,
                };
                let rw = req(Op::Read) + req(Op::Write);
                crate::metrics::MemberResult {
                    member: i,
                    name: name.clone(),
                    readonly: readonly.contains(&i),
                    read_requests: req(Op::Read),
                    write_requests: req(Op::Write),
                    trim_requests: req(Op::Trim),
                    read_bytes: bytes(Op::Read),
                    write_bytes: bytes(Op::Write),
                    read_share: if rw == 0 {
                        0.0
                    } else {
                        crate::metrics::round3(req(Op::Read) as f64 / rw as f64)
                    },
                    mb_s: if span == 0 {
                        0.0
                    } else {
                        crate::metrics::round3((io.0[0] + io.0[1]) as f64 * 1e3 / span as f64)
                    },
                    ssd,
                }
            })
            .collect()
    }

    /// An array's `ssd` section: its span and throughput, with the simulated members'
    /// device sections added up ([`crate::metrics::volume_ssd`]).
    fn volume_ssd(
        &self,
        end: u64,
        m: &Measured,
        io: ([u64; 2], u64),
        members: &[crate::metrics::MemberResult],
    ) -> SsdResult {
        let first = self
            .volume
            .members
            .iter()
            .zip(&self.members)
            .zip(&m.window)
            .find_map(|((mem, (_, sim)), w)| Some((mem.device()?, sim.as_ref()?, w.as_ref()?)));
        let base = match first {
            Some((d, (pre, dc), w0)) => self.ssd_of(d, dc, pre, w0, end, m, io),
            None => {
                // Measured drives only: no flash, the volume's span and throughput.
                let (span, throughput) = span_and_throughput(m.from, end, m, io);
                SsdResult {
                    span,
                    throughput,
                    latency_over_time: self.lat_samples.clone(),
                    bandwidth_over_time: self.bandwidth_over_time(),
                    sim_time_ns: end,
                    requests: m.requests,
                    wall_time_s: crate::metrics::round3(m.wall_s),
                    ..SsdResult::default()
                }
            }
        };
        crate::metrics::volume_ssd(base, self.volume.layout().name(), self.volume.logical_bytes(), members)
    }

    fn result(&self, m: Measured) -> RunResult {
        let r3 = crate::metrics::round3;
        // Each reporting group's bandwidth per direction (KiB/s): its bytes over its longest
        // runtime, as fio computes the group's aggregate for `bw_agg`.
        let job_groups = group_ids(&self.cfg.job);
        let groups: Vec<u32> = self.units.iter().map(|u| job_groups[u.first_job]).collect();
        let runtimes: Vec<u64> = self
            .stats
            .iter()
            .map(|st| st.first_issue.map_or(0, |f| st.last_done.saturating_sub(f)))
            .collect();
        let group_kib_s = |g: u32, dir: usize| -> u64 {
            let groups = &groups;
            let members = || (0..self.stats.len()).filter(move |&i| groups[i] == g);
            let bytes: u64 = members().map(|i| self.stats[i].ops[dir].bytes).sum();
            let runtime = members().map(|i| runtimes[i]).max().unwrap_or(0);
            if runtime == 0 {
                0
            } else {
                (bytes as u128 * 1_000_000_000 / runtime as u128 / 1024) as u64
            }
        };
        let jobs: Vec<JobResult> = self
            .units
            .iter()
            .zip(&self.stats)
            .enumerate()
            .map(|(i, (unit, st))| {
                let job = &self.cfg.job[unit.first_job];
                let runtime = st.first_issue.map_or(0, |f| st.last_done.saturating_sub(f));
                let open = self.streams.iter().any(|s| s.unit == i && s.open);
                let mean = |v: &mut dyn Iterator<Item = &u64>| {
                    let (s, n) = v.fold((0u128, 0u64), |(s, n), &x| (s + x as u128, n + 1));
                    if n == 0 {
                        0.0
                    } else {
                        r3(s as f64 / n as f64)
                    }
                };
                let open_loop = open.then(|| {
                    let first = mean(&mut st.first_lat.iter());
                    let last = mean(&mut st.last_lat.iter());
                    OpenLoopReport {
                        first_mean_lat_ns: first,
                        last_mean_lat_ns: last,
                        max_outstanding: st.max_outstanding,
                        keeping_up: last <= 2.0 * first + 1_000_000.0,
                    }
                });
                let mut buckets = st.ops[0].buckets.clone();
                buckets.add(&st.ops[1].buckets);
                buckets.add(&st.ops[2].buckets);
                let g = groups[i];
                let pct = job
                    .percentile_list
                    .clone()
                    .unwrap_or_else(|| crate::metrics::PERCENTILES.to_vec());
                let mut jr = JobResult::new(
                    job.name.clone(),
                    g,
                    st.last_any.saturating_sub(st.start),
                    self.cfg.job[unit.last_job].fio_job_options(),
                    [0, 1, 2].map(|d| st.ops[d].result(runtime, group_kib_s(g, d), &pct)),
                    &buckets,
                    &st.depths,
                    runtime,
                    job.iodepth,
                    JobExtra {
                        start_ns: st.start,
                        last_completion_ns: st.last_any,
                        numjobs: unit.clones,
                        iodepth: job.iodepth,
                        stream: job.stream,
                        source: match (&job.trace, &job.fs) {
                            (Some(t), _) => format!("trace {}", t.file),
                            (None, Some(f)) => format!("fs {}", f.app),
                            (None, None) if job.hpc.is_some() => "hpc".to_string(),
                            (None, None) => format!("{:?}", job.rw).to_lowercase(),
                        },
                        open_loop,
                        ignored_options: ignored_options(&self.cfg.job[unit.first_job..=unit.last_job]),
                        trace: {
                            let reports: Vec<serde_json::Value> = self
                                .streams
                                .iter()
                                .filter(|s| s.unit == i)
                                .filter_map(|s| s.source.report())
                                .collect();
                            match reports.len() {
                                0 => None,
                                1 => reports.into_iter().next(),
                                _ => Some(serde_json::Value::Array(reports)),
                            }
                        },
                    },
                );
                if let Some(m) = &st.mixed {
                    let all = (0..3).map(|d| group_kib_s(g, d)).sum();
                    jr.unify(m.result(runtime, all, &pct), &job.unified_rw_reporting);
                }
                if job.zonemode == "zbd" {
                    jr.zone_resets = Some(st.zone_resets);
                }
                jr
            })
            .collect();
        let end = self.volume.last_activity().max(m.last_host_done).max(m.from);
        let io = (
            [0, 1].map(|op| self.stats.iter().map(|s| s.ops[op].bytes).sum()),
            self.stats
                .iter()
                .map(|s| s.ops.iter().map(|o| o.count).sum::<u64>())
                .sum(),
        );
        let (ssd, members) = if self.members.is_empty() {
            let w0 = m.window[0].as_ref().expect("a device's counters");
            (
                self.ssd_of(self.device(), &self.cfg.device, &self.pre, w0, end, &m, io),
                None,
            )
        } else {
            let members = self.member_results(end, &m);
            (self.volume_ssd(end, &m, io, &members), Some(members))
        };
        let ticks =
            |op: usize| -> u64 { self.stats.iter().map(|s| s.ops[op].lat_sum()).sum::<u128>() as u64 / 1_000_000 };
        let count = |op: usize| -> u64 { self.stats.iter().map(|s| s.ops[op].count).sum() };
        let disk_span = m.last_host_done.saturating_sub(m.from);
        let disk_util = DiskUtil {
            name: ssd.device.clone(),
            read_ios: count(0),
            write_ios: count(1),
            read_merges: 0,
            write_merges: 0,
            read_ticks: ticks(0),
            write_ticks: ticks(1),
            in_queue: ticks(0) + ticks(1) + ticks(2),
            util: if disk_span == 0 {
                0.0
            } else {
                // A percentage, as fio's.
                crate::metrics::round6(100.0 * m.busy_ns.min(disk_span) as f64 / disk_span as f64)
            },
        };
        let global_options = self
            .cfg
            .job
            .first()
            .filter(|j| !j.global_options.is_empty())
            .map(|j| crate::metrics::Ordered(j.global_options.clone()));
        RunResult {
            fio_version: format!(
                "ssdlab-{} ({} JSON)",
                env!("CARGO_PKG_VERSION"),
                crate::metrics::FIO_FORMAT
            ),
            timestamp: 0,
            timestamp_ms: 0,
            time: crate::metrics::EPOCH_TIME.to_string(),
            global_options,
            version: env!("CARGO_PKG_VERSION").to_string(),
            jobs,
            array_model: self.array_model(&ssd),
            disk_util: vec![disk_util],
            ssd,
            members,
        }
    }
}

/// The `span` and `throughput` sections of a window from `from` to `end`, for `io` (bytes
/// read and written, requests).
fn span_and_throughput(
    from: u64,
    end: u64,
    m: &Measured,
    io: ([u64; 2], u64),
) -> (serde_json::Value, serde_json::Value) {
    let r3 = crate::metrics::round3;
    // Throughput over the busy span and over the host-visible span.
    let (bytes, ios) = (|op: usize| io.0[op], io.1);
    let start = m.first_submit.unwrap_or(from).max(from);
    let rate = |n: u64, span: u64| {
        if span == 0 {
            0.0
        } else {
            r3(n as f64 * 1e9 / span as f64)
        }
    };
    let busy_span = end.saturating_sub(start);
    let host_span = m.last_host_done.saturating_sub(start);
    (
        json!({
            "measured_from_ns": from,
            "first_submit_ns": start,
            "last_host_completion_ns": m.last_host_done,
            "last_flash_activity_ns": end,
            "busy_ns": busy_span,
            "host_visible_ns": host_span,
        }),
        json!({
            "busy_span": {
                "read_bytes_per_s": rate(bytes(0), busy_span),
                "write_bytes_per_s": rate(bytes(1), busy_span),
                "iops": rate(ios, busy_span),
            },
            "host_visible": {
                "read_bytes_per_s": rate(bytes(0), host_span),
                "write_bytes_per_s": rate(bytes(1), host_span),
                "iops": rate(ios, host_span),
            },
        }),
    )
}

pub use crate::memory::default_memory_limit;

/// Build, precondition and run a config without progress reporting.
pub fn run_config(cfg: &Config) -> Result<RunResult> {
    Simulation::new(cfg)?.run(&mut |_| {})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_horizon_adds_each_phases_longest_job_and_needs_every_runtime() {
        // Phase 0: a (startdelay 1 ms + runtime 10 ms), b (ramp 2 ms + runtime 5 ms) → 11 ms;
        // phase 1 (stonewall): c, runtime 3 ms → 3 ms. The run ends by 14 ms.
        let text = "[device]\npreset = \"slc-sata\"\n[device.geometry]\nblocks_per_plane = 64\n[precondition]\nmode = \"none\"\n\
            [[job]]\nrw = \"randread\"\nruntime = \"10ms\"\nstartdelay = \"1ms\"\n\
            [[job]]\nrw = \"randread\"\nruntime = \"5ms\"\nramp_time = \"2ms\"\n\
            [[job]]\nrw = \"randread\"\nruntime = \"3ms\"\nstonewall = true\n";
        let cfg = crate::config::parse_config(text, "h.toml", std::path::Path::new(".")).unwrap();
        assert_eq!(time_horizon(&cfg.job, &phases(&cfg.job)), Some(14_000_000));
        let mut last = None;
        Simulation::new(&cfg).unwrap().run(&mut |p| last = Some(p)).unwrap();
        let p = last.unwrap();
        assert_eq!((p.horizon_ns, p.expected), (Some(14_000_000), None));
        // A job without a runtime: no horizon.
        let mut jobs = cfg.job.clone();
        jobs[2].runtime = None;
        assert_eq!(time_horizon(&jobs, &phases(&jobs)), None);
    }

    #[test]
    fn samples_thin_out_by_halves_and_each_interval_has_its_own_write_amplification() {
        // 701 one-page writes, one at a time, on a fresh device, sampled at every completion
        // instead of every 1,024th.
        let text = "[device]\npreset = \"slc-sata\"\n[device.geometry]\nblocks_per_plane = 64\n[precondition]\nmode = \"none\"\n[[job]]\nrw = \"write\"\nbs = \"4KiB\"\nnumber_ios = 701\n";
        let cfg = crate::config::parse_config(text, "s.toml", std::path::Path::new(".")).unwrap();
        let mut sim = Simulation::new(&cfg).unwrap();
        sim.sample_every = 1;
        let r = sim.run(&mut |_| {}).unwrap();
        // The sample at 0 and at completions 1..=511 make 512: every other one is kept (256)
        // and sampling goes on at every 2nd completion, 512..=700 (95 more), below 512 again;
        // then the sample at the end: 352.
        assert_eq!(r.ssd.free_blocks_over_time.len(), 352);
        // Each interval between samples: as many pages programmed as units written.
        assert_eq!(r.ssd.waf_over_time.len(), 351);
        assert!(
            r.ssd.waf_over_time.iter().all(|&(_, w)| w == 1.0),
            "{:?}",
            r.ssd.waf_over_time
        );
        // Bandwidth between the kept samples: rate × interval adds up to the 701 × 4,096
        // bytes, thinning or not.
        let bw = &r.ssd.bandwidth_over_time;
        assert_eq!(bw.len(), 351);
        let times: Vec<u64> = r.ssd.free_blocks_over_time.iter().map(|s| s.0).collect();
        let bytes: f64 = bw
            .iter()
            .zip(times.windows(2))
            .map(|(&(t, rate), w)| {
                assert_eq!(t, w[1]);
                rate * (w[1] - w[0]) as f64 / 1e9
            })
            .sum();
        assert!((bytes - 701.0 * 4096.0).abs() < 1.0, "{bytes}");
    }
}
