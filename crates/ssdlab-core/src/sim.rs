//! The host model and the run loop.
//!
//! Each job clone is a stream. A closed-loop stream keeps `iodepth` requests outstanding: a
//! slot issues its next request when its previous one completes. An open-loop stream (trace
//! timestamps or `rate_iops`) issues each request at its arrival time. Streams are merged on
//! one event heap keyed by (time, sequence), so ties resolve in a fixed order and a run is a
//! pure function of its config and seed.

use crate::config::Config;
use crate::device::Device;
use crate::metrics::{JobExtra, JobResult, OpStats, OpenLoopReport, RunResult, SsdResult};
use crate::precondition::{precondition, PreconditionReport};
use crate::request::{Request, RequestSource};
use crate::trace::TraceSource;
use crate::workload::job::JobSource;
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
}

struct Stream {
    job: usize,
    source: Box<dyn RequestSource>,
    open: bool,
    depth: u32,
    pending: Option<Request>,
    /// Completion times of outstanding requests (open loop).
    outstanding: BinaryHeap<Reverse<u64>>,
}

#[derive(Default)]
struct JobStats {
    ops: [OpStats; 3],
    first_issue: Option<u64>,
    last_done: u64,
    first_lat: Vec<u64>,
    last_lat: VecDeque<u64>,
    max_outstanding: u64,
}

const WINDOW: usize = 1000;

pub struct Simulation {
    pub device: Device,
    cfg: Config,
    streams: Vec<Stream>,
    stats: Vec<JobStats>,
    pre: PreconditionReport,
    free_samples: Vec<(u64, u64)>,
    sample_every: u64,
    expected: Option<u64>,
}

impl Simulation {
    /// Build the device, precondition it and set up the jobs' streams.
    pub fn new(cfg: &Config) -> Result<Simulation> {
        Self::with_progress(cfg, &mut |_, _| {})
    }

    /// As [`Simulation::new`], reporting preconditioning progress as (units written, units
    /// planned at most).
    pub fn with_progress(cfg: &Config, progress: &mut dyn FnMut(u64, u64)) -> Result<Simulation> {
        let seed = cfg.precondition.seed;
        let mut device = Device::new(&cfg.device, seed)?;
        let pre = precondition(
            &mut device,
            &cfg.precondition,
            cfg.device.ftl.bg_gc_threshold as usize,
            progress,
        )?;
        let cap = device.logical_bytes();
        let mut streams = Vec::new();
        let mut expected = Some(0u64);
        for (i, job) in cfg.job.iter().enumerate() {
            for c in 0..job.numjobs {
                let (source, open): (Box<dyn RequestSource>, bool) = match &job.trace {
                    Some(t) => {
                        expected = None;
                        let src = TraceSource::open(t, &cfg.base_dir, cap)?;
                        (Box::new(src), job.replay.as_deref() != Some("closed"))
                    }
                    None => {
                        let src = JobSource::new(job, cap, job.clone_seed(seed, i, c))?;
                        expected = match (expected, job.number_ios, job.runtime) {
                            (Some(e), Some(n), None) => Some(e + n),
                            _ => None,
                        };
                        (Box::new(src), job.rate_iops.is_some())
                    }
                };
                streams.push(Stream {
                    job: i,
                    source,
                    open,
                    depth: job.iodepth,
                    pending: None,
                    outstanding: BinaryHeap::new(),
                });
            }
        }
        if streams.is_empty() {
            return Err(Error::Config(format!("{}: no [[job]] to run", cfg.file)));
        }
        Ok(Simulation {
            device,
            stats: (0..cfg.job.len()).map(|_| JobStats::default()).collect(),
            cfg: cfg.clone(),
            streams,
            pre,
            free_samples: Vec::new(),
            sample_every: 1024,
            expected,
        })
    }

    /// Run all jobs to completion.
    pub fn run(&mut self, progress: &mut dyn FnMut(Progress)) -> Result<RunResult> {
        let wall = std::time::Instant::now();
        let mut heap: BinaryHeap<Reverse<(u64, u64, u32)>> = BinaryHeap::new();
        let mut seq = 0u64;
        for (si, s) in self.streams.iter_mut().enumerate() {
            if s.open {
                if let Some(r) = s.source.next_request(0)? {
                    heap.push(Reverse((r.time_ns, seq, si as u32)));
                    seq += 1;
                    s.pending = Some(r);
                }
            } else {
                for _ in 0..s.depth {
                    heap.push(Reverse((0, seq, si as u32)));
                    seq += 1;
                }
            }
        }
        let mut done = 0u64;
        let mut end = 0u64;
        self.free_samples.push((0, self.device.free_blocks() as u64));
        while let Some(Reverse((t, _, si))) = heap.pop() {
            let s = &mut self.streams[si as usize];
            let req = if s.open {
                match s.pending.take() {
                    Some(r) => r,
                    None => continue,
                }
            } else {
                match s.source.next_request(t)? {
                    Some(r) => r,
                    None => continue,
                }
            };
            let req = Request {
                stream: self.cfg.job[s.job].stream,
                ..req
            };
            let c = self.device.submit(t, &req)?;
            let js = &mut self.stats[s.job];
            js.ops[req.op.index()].record(req.len, c - t);
            js.first_issue.get_or_insert(t);
            js.last_done = js.last_done.max(c);
            end = end.max(c);
            if s.open {
                let lat = c - t;
                if js.first_lat.len() < WINDOW {
                    js.first_lat.push(lat);
                }
                if js.last_lat.len() == WINDOW {
                    js.last_lat.pop_front();
                }
                js.last_lat.push_back(lat);
                while s.outstanding.peek().is_some_and(|&Reverse(x)| x <= t) {
                    s.outstanding.pop();
                }
                s.outstanding.push(Reverse(c));
                js.max_outstanding = js.max_outstanding.max(s.outstanding.len() as u64);
                if let Some(mut r) = s.source.next_request(t)? {
                    r.time_ns = r.time_ns.max(t);
                    heap.push(Reverse((r.time_ns, seq, si)));
                    s.pending = Some(r);
                }
            } else {
                heap.push(Reverse((c, seq, si)));
            }
            seq += 1;
            done += 1;
            if done.is_multiple_of(self.sample_every) {
                self.free_samples.push((t, self.device.free_blocks() as u64));
                if self.free_samples.len() >= 512 {
                    // Keep every other sample and sample half as often: bounded and deterministic.
                    let kept: Vec<_> = self.free_samples.iter().copied().step_by(2).collect();
                    self.free_samples = kept;
                    self.sample_every *= 2;
                }
            }
            if done & 0xFFFF == 0 {
                progress(Progress {
                    requests: done,
                    sim_time_ns: t,
                    expected: self.expected,
                });
            }
        }
        self.free_samples.push((end, self.device.free_blocks() as u64));
        if cfg!(debug_assertions) {
            self.device
                .ftl
                .check_invariants()
                .map_err(|m| Error::Invalid(format!("FTL invariant violated: {m}")))?;
        }
        progress(Progress {
            requests: done,
            sim_time_ns: end,
            expected: self.expected,
        });
        Ok(self.result(done, end, wall.elapsed().as_secs_f64()))
    }

    fn result(&self, requests: u64, end: u64, wall_s: f64) -> RunResult {
        let r3 = crate::metrics::round3;
        let jobs = self
            .cfg
            .job
            .iter()
            .zip(&self.stats)
            .enumerate()
            .map(|(i, (job, st))| {
                let runtime = st.last_done - st.first_issue.unwrap_or(0);
                let open = self.streams.iter().any(|s| s.job == i && s.open);
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
                JobResult {
                    jobname: job.name.clone(),
                    groupid: 0,
                    error: 0,
                    job_runtime: runtime / 1_000_000,
                    read: st.ops[0].result(runtime),
                    write: st.ops[1].result(runtime),
                    trim: st.ops[2].result(runtime),
                    ssdlab: JobExtra {
                        numjobs: job.numjobs,
                        iodepth: job.iodepth,
                        stream: job.stream,
                        source: match &job.trace {
                            Some(t) => format!("trace {}", t.file),
                            None => format!("{:?}", job.rw).to_lowercase(),
                        },
                        open_loop,
                        trace: {
                            let reports: Vec<serde_json::Value> = self
                                .streams
                                .iter()
                                .filter(|s| s.job == i)
                                .filter_map(|s| s.source.report())
                                .collect();
                            match reports.len() {
                                0 => None,
                                1 => reports.into_iter().next(),
                                _ => Some(serde_json::Value::Array(reports)),
                            }
                        },
                    },
                }
            })
            .collect();
        let d = &self.device;
        let f = &d.ftl.stats;
        let c = &d.counters;
        let g = &d.geo;
        let upp = g.units_per_page as u64;
        let flash_programs = f.host_pages_programmed + f.gc_pages_programmed;
        let waf = if c.host_write_units == 0 {
            0.0
        } else {
            r3((flash_programs * upp) as f64 / c.host_write_units as f64)
        };
        let (emin, emean, emax, ehist) = d.ftl.erase_summary();
        let (links, chans, arrays) = d.busy();
        let util = |v: Vec<u64>| -> f64 {
            if end == 0 || v.is_empty() {
                0.0
            } else {
                r3(v.iter().sum::<u64>() as f64 / (v.len() as f64 * end as f64))
            }
        };
        let vhist: Vec<(usize, u64)> = f
            .victim_valid_hist
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(v, &n)| (v, n))
            .collect();
        let ssd = SsdResult {
            device: d.name.clone(),
            logical_bytes: g.logical_bytes(),
            physical_bytes: g.physical_bytes(),
            alpha: (g.alpha() * 10000.0).round() / 10000.0,
            gc_policy: d.ftl.policy_name().to_string(),
            host: json!({
                "read_units": c.host_read_units, "write_units": c.host_write_units, "trim_units": c.host_trim_units,
                "unmapped_read_units": c.unmapped_read_units, "buffer_read_units": c.buffer_read_units,
                "unit_bytes": g.unit_size,
            }),
            flash: json!({
                "page_reads": c.host_page_reads + c.rmw_page_reads + f.gc_pages_read,
                "host_page_reads": c.host_page_reads, "rmw_page_reads": c.rmw_page_reads, "gc_page_reads": f.gc_pages_read,
                "page_programs": flash_programs, "host_page_programs": f.host_pages_programmed,
                "gc_page_programs": f.gc_pages_programmed, "padded_units": f.padded_units,
                "erases": f.erases,
            }),
            waf,
            gc: json!({
                "runs": f.gc_runs, "foreground": c.foreground_gc, "background": c.background_gc,
                "copied_units": f.gc_units_copied, "victim_valid_histogram": vhist,
            }),
            wear: json!({
                "erase_min": emin, "erase_mean": r3(emean), "erase_max": emax, "erase_histogram": ehist,
                "retired_blocks": f.retired_blocks, "static_wl_migrations": f.wl_migrations,
                "static_wl_copied_units": f.wl_units_copied,
            }),
            free_blocks_over_time: self.free_samples.clone(),
            interference_reads: c.interference_reads,
            utilisation: json!({ "host_link": util(links), "channels": util(chans), "planes": util(arrays) }),
            precondition: serde_json::to_value(&self.pre).expect("serialisable"),
            sim_time_ns: end,
            requests,
            wall_time_s: r3(wall_s),
            sim_requests_per_wall_s: if wall_s > 0.0 {
                (requests as f64 / wall_s).round()
            } else {
                0.0
            },
        };
        RunResult {
            version: env!("CARGO_PKG_VERSION").to_string(),
            jobs,
            ssd,
        }
    }
}

/// Build, precondition and run a config without progress reporting.
pub fn run_config(cfg: &Config) -> Result<RunResult> {
    Simulation::new(cfg)?.run(&mut |_| {})
}
