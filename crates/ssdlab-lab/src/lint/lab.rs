//! The what-if machinery the checks share.
//!
//! - **Timed replays**: the workload's first requests (the pass's prefix), their addresses
//!   packed onto the device as the trace layer's `compact` mode packs them, replayed at their
//!   timestamps (a run file's jobs: closed loop at their total depth) on a copy of one
//!   preconditioned state of the device, as-is or changed by a [`Variant`]: throughput,
//!   latency percentiles, foreground GC, read-modify-write reads.
//! - **Projections**: the write pattern alone, driven into the FTL without timing until its
//!   write amplification is steady (the preconditioning criterion): the steady-state WAF that
//!   the pattern would settle to over the device's life. The pattern is scaled onto the
//!   device's data: copies of the footprint side by side fill the utilised space, each write
//!   going to one copy, so every part of the data is updated at the rate the workload updates
//!   its own. The projection device is the chosen one with fewer planes (same blocks, pages,
//!   over-provisioning and GC settings per plane), so that it settles in well under a second.
//! - **Sweeps**: synthetic fio-style jobs over queue depths.

use super::profile::{self, PassDevice, Piece, Profile, Records, Timing};
use super::{DeviceSummary, Lat, LintOptions, Scenario, SweepPoint, Workload, WorkloadSummary};
use crate::config::{Config, PreconditionMode};
use crate::device::Device;
use crate::ftl::Ftl;
use crate::metrics::{OpResult, RunResult};
use crate::precondition::{overwrite_until_steady, precondition, Placement, PreconditionReport};
use crate::request::{Request, RequestSource};
use crate::trace::replay::{CompactMap, PAGE};
use crate::workload::job::{JobConfig, Rw, SizeOrShare};
use crate::{Error, Op, Result, Simulation};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// A change of the workload that a what-if simulates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Variant {
    AsIs,
    /// Writes that update pages written before go to random pages of the footprint instead.
    RandomUpdates,
    /// Writes to pages updated more often than the mean written page go to stream 1, the
    /// others to stream 0, on a device with two host write frontiers.
    HotCold,
    /// Written bytes appended to a packed log and written in whole mapping units.
    Packed,
    /// Writes held to this many bytes per second (later requests shifted with them).
    Paced(f64),
}

impl Variant {
    fn key(self) -> String {
        format!("{self:?}")
    }
    fn streams(self) -> u32 {
        if self == Variant::HotCold {
            2
        } else {
            1
        }
    }
    /// The variants whose write pattern (and so projection) is the workload's own.
    fn pattern(self) -> Variant {
        match self {
            Variant::Paced(_) => Variant::AsIs,
            v => v,
        }
    }
}

/// Rewrites the workload's writes for a variant. Writes are pieces of the dense address
/// space; the output is `(offset, len, stream)`.
pub struct Transform {
    variant: Variant,
    unit: u64,
    /// Dense pages of the footprint.
    pages: u64,
    hot: Arc<Vec<u64>>,
    seen: Vec<u64>,
    rng: Xoshiro256PlusPlus,
    /// Packed: bytes appended to the log and bytes written out of it.
    log: u64,
    flushed: u64,
    /// Bytes and mapping units of the writes given out.
    pub bytes: u64,
    pub units: u64,
}

fn bit(set: &[u64], i: u64) -> bool {
    set.get((i / 64) as usize).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

impl Transform {
    /// Apply to a write of `len` bytes at dense `offset`.
    pub fn write(&mut self, offset: u64, len: u64, out: &mut dyn FnMut(u64, u64, u32)) {
        let first = offset / PAGE;
        let last = (offset + len - 1) / PAGE;
        let mut emit = |t: &mut Transform, o: u64, l: u64, s: u32| {
            t.bytes += l;
            t.units += (o + l).div_ceil(t.unit) - o / t.unit;
            out(o, l, s);
        };
        match self.variant {
            Variant::AsIs | Variant::Paced(_) => emit(self, offset, len, 0),
            Variant::HotCold => {
                let s = bit(&self.hot, first) as u32;
                emit(self, offset, len, s)
            }
            Variant::RandomUpdates => {
                let update = (first..=last).all(|p| bit(&self.seen, p));
                for p in first..=last {
                    self.seen[(p / 64) as usize] |= 1 << (p % 64);
                }
                let n = last - first + 1;
                if update && self.pages > n {
                    let to = self.rng.gen_range(0..=self.pages - n);
                    emit(self, to * PAGE + offset % PAGE, len, 0)
                } else {
                    emit(self, offset, len, 0)
                }
            }
            Variant::Packed => {
                let region = (self.pages * PAGE / self.unit).max(1) * self.unit;
                self.log += len;
                while self.log - self.flushed >= self.unit {
                    let at = self.flushed % region;
                    let whole = (self.log - self.flushed) / self.unit * self.unit;
                    let chunk = whole.min(region - at);
                    emit(self, at, chunk, 0);
                    self.flushed += chunk;
                }
            }
        }
    }
}

/// What a timed replay measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timed {
    pub throughput_mb_s: f64,
    pub iops: f64,
    pub write_bytes_per_s: f64,
    pub read: Lat,
    pub write: Lat,
    pub foreground_gc: u64,
    pub gc: u64,
    pub rmw_reads: u64,
    /// Requests outstanding on average (Little's law: latency sum over the span).
    pub mean_outstanding: f64,
    /// Share of the span with at least one request outstanding.
    pub busy_share: f64,
    pub span_ns: u64,
}

fn percentile(o: &OpResult, key: &str) -> f64 {
    o.clat_ns
        .percentile
        .0
        .iter()
        .find(|(k, _)| k == key)
        .map_or(0.0, |(_, v)| *v as f64 / 1000.0)
}

fn lat(o: &OpResult) -> Lat {
    let us = |v: f64| crate::metrics::round3(v / 1000.0);
    Lat {
        requests: o.total_ios,
        mean_us: us(o.clat_ns.mean),
        p50_us: percentile(o, "50.000000"),
        p99_us: percentile(o, "99.000000"),
        p999_us: percentile(o, "99.900000"),
        max_us: us(o.clat_ns.max as f64),
    }
}

impl Timed {
    fn from_result(r: &RunResult) -> Timed {
        let j = &r.jobs[0];
        let s = &r.ssd;
        let n = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
        let hv = &s.throughput["host_visible"];
        let span = s.span["host_visible_ns"].as_u64().unwrap_or(0);
        let lat_sum = j.read.clat_ns.mean * j.read.total_ios as f64 + j.write.clat_ns.mean * j.write.total_ios as f64;
        Timed {
            throughput_mb_s: (n(&hv["read_bytes_per_s"]) + n(&hv["write_bytes_per_s"])) / 1e6,
            iops: n(&hv["iops"]),
            write_bytes_per_s: n(&hv["write_bytes_per_s"]),
            read: lat(&j.read),
            write: lat(&j.write),
            foreground_gc: s.gc["foreground"].as_u64().unwrap_or(0),
            gc: s.gc["runs"].as_u64().unwrap_or(0),
            rmw_reads: s.flash["rmw_page_reads"].as_u64().unwrap_or(0),
            mean_outstanding: if span == 0 { 0.0 } else { lat_sum / span as f64 },
            busy_share: r.disk_util.first().map_or(0.0, |d| d.util / 100.0),
            span_ns: span,
        }
    }
}

/// What a projection found.
#[derive(Clone, Copy, Debug)]
pub struct Projection {
    pub waf: f64,
    /// Three windows agreed within 0.5 % (else `waf` is the mean of the last three).
    pub converged: bool,
    /// Mapping-unit bytes written per host byte (rounding writes up to whole units).
    pub inflation: f64,
    pub planes: usize,
    /// Units of data on the projection device, and copies of the footprint stretched over
    /// them (with one copy, a footprint larger than the data is folded onto it).
    pub data_units: u64,
    pub copies: u64,
}

impl Projection {
    /// Bytes programmed per byte written.
    pub fn amplification(&self) -> f64 {
        self.waf * self.inflation
    }
}

/// Figures of the device the checks use.
#[derive(Clone, Debug)]
pub struct Facts {
    pub name: String,
    pub unit: u64,
    pub page: u64,
    pub parallel_units: u64,
    pub large_bytes: u64,
    pub planes: usize,
    pub logical_bytes: u64,
    pub physical_bytes: u64,
    pub endurance: u32,
    pub block_bytes: u64,
    /// Bytes per second the flash can program: parallel units × page / mean program time,
    /// or the channels or the host link if slower.
    pub flash_write_bytes_per_s: f64,
    /// Likewise for reads (mean array read time).
    pub flash_read_bytes_per_s: f64,
    /// Bytes the device takes in after preconditioning before a write waits for foreground
    /// GC: the free blocks background GC keeps above the foreground threshold, and the
    /// write buffer.
    pub headroom_bytes: u64,
    pub gc_threshold: u32,
    /// Free blocks background GC keeps on idle planes (0: none).
    pub bg_gc_threshold: u32,
}

impl Facts {
    fn of(cfg: &Config) -> Result<Facts> {
        let d = &cfg.device;
        let g = crate::redundancy::geometry_of(d, &cfg.file)?;
        let units = if d.nand.plane_parallel { g.planes } else { g.dies } as u64;
        let rate = |times: Vec<u64>| {
            let mean = times.iter().sum::<u64>() as f64 / times.len().max(1) as f64;
            units as f64 * g.page_size as f64 * 1e9 / mean
        };
        let channel_bw = g.channels as f64 * d.nand.channel_rate.0 as f64;
        let link = d.link_bandwidth() as f64;
        let block_bytes = g.pages_per_block as u64 * g.page_size;
        let f = &d.ftl;
        let spare_free = f.idle_bg_threshold().max(f.gc_threshold) - f.gc_threshold;
        Ok(Facts {
            name: d.name.clone(),
            unit: g.unit_size,
            page: g.page_size,
            parallel_units: units,
            large_bytes: g.page_size * units,
            planes: g.planes,
            logical_bytes: g.logical_bytes(),
            physical_bytes: g.physical_bytes(),
            endurance: d.nand.endurance,
            block_bytes,
            flash_write_bytes_per_s: rate(d.program_ns()).min(channel_bw).min(link),
            flash_read_bytes_per_s: rate(d.read_ns()).min(channel_bw).min(link),
            headroom_bytes: g.planes as u64 * spare_free as u64 * block_bytes + f.write_buffer.0,
            gc_threshold: f.gc_threshold,
            bg_gc_threshold: f.idle_bg_threshold(),
        })
    }
}

/// The shared state of a lint: the workload's profile, the device, one preconditioned state
/// to copy, and the results simulated so far.
pub struct Lab<'a> {
    pub workload: &'a Workload,
    pub opts: &'a LintOptions,
    pub profile: Profile,
    /// The device, preconditioned to steady state at `utilisation`; no jobs.
    pub cfg: Config,
    pub utilisation: f64,
    pub facts: Facts,
    /// Pages written more often than the mean written page (bit per dense page).
    pub hot: Arc<Vec<u64>>,
    master: Option<(Ftl, PreconditionReport)>,
    timed: BTreeMap<String, Timed>,
    projections: BTreeMap<String, Option<Projection>>,
    progress: &'a mut dyn FnMut(&str),
}

impl<'a> Lab<'a> {
    /// Read the workload (the pass) for the device of `device`.
    pub fn new(
        workload: &'a Workload,
        device: &Config,
        opts: &'a LintOptions,
        progress: &'a mut dyn FnMut(&str),
    ) -> Result<Lab<'a>> {
        let mut cfg = device.clone();
        cfg.job.clear();
        let u = match opts.utilisation {
            Some(u) => u,
            None if cfg.precondition.mode != PreconditionMode::None => cfg.precondition.utilisation,
            None => 0.8,
        };
        if !(u > 0.0 && u < 1.0) {
            return Err(Error::Config(format!(
                "--utilisation: got {u}; expected a share above 0 and below 1"
            )));
        }
        cfg.precondition.mode = PreconditionMode::Steady;
        cfg.precondition.utilisation = u;
        let facts = Facts::of(&cfg)?;
        progress(&format!(
            "reading the workload (at most {} requests)",
            opts.max_requests
        ));
        let pass = PassDevice {
            unit: facts.unit,
            large_bytes: facts.large_bytes,
            max_pages: facts.logical_bytes / PAGE,
        };
        let profile = profile::profile(workload, opts, &pass)?;
        let written: Vec<u32> = profile.page_writes.iter().copied().filter(|&c| c > 0).collect();
        let mean = written.iter().map(|&c| c as f64).sum::<f64>() / written.len().max(1) as f64;
        let mut hot = vec![0u64; profile.page_writes.len().div_ceil(64)];
        for (i, &c) in profile.page_writes.iter().enumerate() {
            if c as f64 > mean {
                hot[i / 64] |= 1 << (i % 64);
            }
        }
        Ok(Lab {
            workload,
            opts,
            profile,
            cfg,
            utilisation: u,
            facts,
            hot: Arc::new(hot),
            master: None,
            timed: BTreeMap::new(),
            projections: BTreeMap::new(),
            progress,
        })
    }

    /// A progress message.
    pub fn say(&mut self, msg: &str) {
        (self.progress)(msg)
    }

    /// Whether dense page `p` is hot.
    pub fn is_hot(&self, p: u64) -> bool {
        bit(&self.hot, p)
    }

    fn transform(&self, v: Variant) -> Transform {
        let pages = self.profile.footprint_pages();
        Transform {
            variant: v,
            unit: self.facts.unit,
            pages,
            hot: self.hot.clone(),
            seen: vec![0; pages.div_ceil(64) as usize],
            rng: Xoshiro256PlusPlus::seed_from_u64(crate::units::mix_seed(self.cfg.precondition.seed, 0x11a7)),
            log: 0,
            flushed: 0,
            bytes: 0,
            units: 0,
        }
    }

    /// Why the device cannot take `streams` host write frontiers, if it cannot.
    pub fn streams_refused(&self, streams: u32) -> Option<String> {
        let mut c = self.cfg.clone();
        c.device.ftl.streams = streams;
        c.validate().err().map(|e| e.to_string())
    }

    fn device_config(&self, v: Variant) -> crate::config::DeviceConfig {
        let mut d = self.cfg.device.clone();
        d.ftl.streams = d.ftl.streams.max(v.streams());
        d
    }

    /// The device preconditioned at the lint's utilisation (done once, then copied).
    fn master(&mut self) -> Result<&(Ftl, PreconditionReport)> {
        if self.master.is_none() {
            let msg = format!(
                "preconditioning {} to steady state at {:.0} % (state only)",
                self.facts.name,
                100.0 * self.utilisation
            );
            self.say(&msg);
            let cfg = self.cfg.clone();
            let (dev, pre) = preconditioned(&cfg)?;
            self.master = Some((dev.ftl, pre));
        }
        Ok(self.master.as_ref().expect("just built"))
    }

    /// Write amplification of uniform random overwrites at the lint's utilisation.
    pub fn uniform_waf(&mut self) -> Result<f64> {
        Ok(self.master()?.1.steady_waf)
    }

    /// A device for variant `v` at utilisation `u`: a copy of the preconditioned state, or
    /// preconditioned afresh at another utilisation.
    fn device(&mut self, v: Variant, u: f64) -> Result<(Config, Device, PreconditionReport)> {
        let mut cfg = self.cfg.clone();
        cfg.device = self.device_config(v);
        cfg.precondition.utilisation = u;
        if u == self.utilisation {
            let (ftl, pre) = self.master()?;
            let (ftl, pre) = (ftl.clone(), pre.clone());
            let dev = Device::with_ftl(&cfg.device, ftl)?;
            Ok((cfg, dev, pre))
        } else {
            let msg = format!(
                "preconditioning {} to steady state at {:.0} % (state only)",
                self.facts.name,
                100.0 * u
            );
            self.say(&msg);
            let (dev, pre) = preconditioned(&cfg)?;
            Ok((cfg, dev, pre))
        }
    }

    /// A timed replay of the workload, changed by `v`, on the device at utilisation `u`.
    pub fn timed(&mut self, v: Variant, u: f64) -> Result<Timed> {
        let key = format!("{} {u}", v.key());
        if let Some(t) = self.timed.get(&key) {
            return Ok(*t);
        }
        self.say(&format!(
            "replaying {} requests: {}",
            self.profile.requests,
            variant_name(v)
        ));
        let (mut cfg, dev, pre) = self.device(v, u)?;
        let (depth, closed) = match self.profile.timing {
            Timing::Closed { depth } => (depth, !matches!(v, Variant::Paced(_))),
            Timing::Open => (1, false),
        };
        cfg.job = vec![JobConfig {
            name: variant_name(v).into(),
            iodepth: depth,
            ..Default::default()
        }];
        let replay = Replay {
            records: Records::open(self.workload, self.opts.max_requests)?,
            map: self.profile.map.clone(),
            transform: self.transform(v),
            speed: self.opts.speed,
            pace: match v {
                Variant::Paced(r) => Some(r),
                _ => None,
            },
            closed,
            timestamps: self.profile.timing == Timing::Open,
            first: None,
            last: 0,
            delay: 0,
            tokens: match v {
                Variant::Paced(r) => r * profile::WINDOW_NS as f64 / 1e9,
                _ => 0.0,
            },
            filled_at: 0.0,
            pending: VecDeque::new(),
        };
        let mut sim = Simulation::with_sources(&cfg, dev, pre, vec![(Box::new(replay), !closed)])?;
        let r = sim.run(&mut |_| {})?;
        let t = Timed::from_result(&r);
        self.timed.insert(key, t);
        Ok(t)
    }

    /// The steady-state WAF of the workload's write pattern changed by `v`, at utilisation
    /// `u`; `None` without writes.
    pub fn projection(&mut self, v: Variant, u: f64) -> Result<Option<Projection>> {
        let v = v.pattern();
        let key = format!("{} {u}", v.key());
        if let Some(p) = self.projections.get(&key) {
            return Ok(*p);
        }
        if self.profile.pattern.is_empty() {
            return Ok(None);
        }
        let mut cfg = self.cfg.clone();
        cfg.device = self.device_config(v);
        cfg.precondition.utilisation = u;
        // Fewer planes, the same per plane: enough data for ten copies of the footprint
        // when the device holds that much, within 2 to 16 planes.
        let g = crate::redundancy::geometry_of(&cfg.device, &cfg.file)?;
        let f_units = (self.profile.footprint_pages() * PAGE).div_ceil(g.unit_size);
        let per_plane = g.logical_units as f64 / g.planes as f64 * u;
        let want = (10.0 * f_units as f64 / per_plane).ceil() as usize;
        let planes = want.clamp(2.min(g.planes), g.planes.min(16));
        let geo = &mut cfg.device.geometry;
        (geo.channels, geo.ways, geo.dies_per_chip, geo.planes_per_die) = (1, 1, 1, planes as u32);
        self.say(&format!(
            "projecting the write pattern ({}) to steady state on {planes} planes",
            variant_name(v)
        ));
        let (mut dev, _) = preconditioned(&cfg)?;
        let data = ((dev.geo.logical_units as f64 * u) as u64).max(1);
        // Whole copies side by side, stretched over the data: none of it left static.
        let copies = data.div_ceil(f_units.max(1));
        let span = copies * f_units.max(1);
        let unit = dev.geo.unit_size;
        let ftl = &mut dev.ftl;
        ftl.record_ops = false;
        ftl.set_gc_threshold(ftl.gc_threshold().max(cfg.device.ftl.idle_bg_threshold()));
        let mut t = self.transform(v);
        let pattern: &[Piece] = &self.profile.pattern;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(crate::units::mix_seed(cfg.precondition.seed, 0x9a77));
        let mut queue: VecDeque<(u64, usize)> = VecDeque::new();
        let mut i = 0usize;
        let next = |_: &Ftl| loop {
            if let Some(x) = queue.pop_front() {
                return x;
            }
            let pc = pattern[i];
            i = (i + 1) % pattern.len();
            let base = rng.gen_range(0..copies) * f_units;
            t.write(pc.offset, pc.len, &mut |o, l, s| {
                for u in o / unit..=(o + l - 1) / unit {
                    let lpn = ((base + u) as u128 * data as u128 / span as u128) as u64;
                    queue.push_back((lpn, s as usize));
                }
            });
        };
        // Windows of at least 128 blocks' worth of writes, so that each window's victims are
        // many enough for a stable estimate on a small device.
        let per_window = (data / 10).max(128 * dev.geo.units_per_block as u64);
        let units = per_window * 10;
        let p = &cfg.precondition;
        let (min, max) = (
            (p.min_overwrites * units as f64) as u64,
            (p.max_overwrites * units as f64) as u64,
        );
        let mut place = Placement::new(&dev);
        let steady = overwrite_until_steady(&mut dev, &mut place, units, min, max.max(1), next, &mut |_| {})?;
        let proj = Projection {
            waf: steady.waf,
            converged: steady.converged,
            inflation: if t.bytes == 0 {
                1.0
            } else {
                crate::metrics::round3(t.units as f64 * unit as f64 / t.bytes as f64)
            },
            planes,
            data_units: data,
            copies,
        };
        self.projections.insert(key, Some(proj));
        Ok(Some(proj))
    }

    /// Host write rate for lifetimes: the workload's own over its duration, or for a run
    /// file's jobs the as-is replay's.
    pub fn write_rate(&mut self) -> Result<f64> {
        match self.profile.write_rate() {
            Some(r) => Ok(r),
            None => Ok(self.timed(Variant::AsIs, self.utilisation)?.write_bytes_per_s),
        }
    }

    /// A named case: a timed replay of `v` at `u`, its projection, and the lifetime at the
    /// workload's write rate.
    pub fn scenario(&mut self, name: &str, v: Variant, u: f64) -> Result<Scenario> {
        let t = self.timed(v, u)?;
        let p = self.projection(v, u)?;
        let rate = self.write_rate()?;
        let lifetime_s = p.and_then(|p| {
            let s = crate::lifetime::lifetime_seconds(
                self.facts.physical_bytes as f64,
                self.facts.endurance as f64,
                rate,
                p.amplification(),
            );
            s.is_finite().then_some(s)
        });
        let dir = |l: Lat| (l.requests > 0).then_some(l);
        Ok(Scenario {
            name: name.to_string(),
            throughput_mb_s: crate::metrics::round3(t.throughput_mb_s),
            iops: crate::metrics::round3(t.iops),
            read: dir(t.read),
            write: dir(t.write),
            foreground_gc: t.foreground_gc,
            gc: t.gc,
            rmw_reads: t.rmw_reads,
            waf: p.map(|p| p.waf),
            bytes_programmed_per_byte: p.map(|p| crate::metrics::round3(p.amplification())),
            lifetime_s: lifetime_s.map(|s| s.round()),
            lifetime: crate::lifetime::human_duration(lifetime_s.unwrap_or(f64::INFINITY)),
        })
    }

    /// Throughput and latency of a synthetic job (offsets over the data, sequential when
    /// half the workload's requests are, else random; `bs` bytes, a share `read_share` of
    /// reads) at each queue depth. Each depth runs for the sweep
    /// times of the options, or longer when its requests take long: at least 5 (unmeasured)
    /// and 20 (measured) times the time its queue takes to pass through the flash, and with
    /// writes unmeasured until the free space would be full at the steady-state write rate.
    /// Throughput is the depth over the mean latency (Little's law).
    pub fn sweep(&mut self, read_share: f64, bs: u64, depths: &[u32]) -> Result<Vec<SweepPoint>> {
        let data = (self.facts.logical_bytes as f64 * self.utilisation) as u64 / bs * bs;
        let seq = self.profile.stats.sequential_share >= 0.5;
        let (rw, mix) = match (read_share, seq) {
            (r, false) if r >= 0.99 => (Rw::RandRead, 100),
            (r, false) if r <= 0.01 => (Rw::RandWrite, 0),
            (r, false) => (Rw::RandRw, (r * 100.0).round() as u32),
            (r, true) if r >= 0.99 => (Rw::Read, 100),
            (r, true) if r <= 0.01 => (Rw::Write, 0),
            (r, true) => (Rw::Rw, (r * 100.0).round() as u32),
        };
        // Host writes the flash sustains at steady state: its program rate over the WAF.
        let sustain = self.facts.flash_write_bytes_per_s / self.uniform_waf()?.max(1.0);
        let mut out = Vec::new();
        for &d in depths {
            self.say(&format!(
                "sweep: {} x {} at queue depth {d}",
                format!("{rw:?}").to_lowercase(),
                crate::units::fmt_size(bs)
            ));
            let (mut cfg, dev, pre) = self.device(Variant::AsIs, self.utilisation)?;
            let f = &self.facts;
            let bw = read_share * f.flash_read_bytes_per_s + (1.0 - read_share) * f.flash_write_bytes_per_s;
            let queue_ns = (d as f64 * bs as f64 * 1e9 / bw) as u64;
            // Writes: unmeasured until the write buffer and the free blocks above the
            // foreground GC threshold would be full at the flash's rate, so that the
            // measured part is the steady state, not the buffer filling.
            let fill_ns = if read_share < 1.0 {
                (f.headroom_bytes as f64 * 1e9 / sustain) as u64
            } else {
                0
            };
            let job = JobConfig {
                name: format!("qd{d}"),
                rw,
                rwmixread: mix,
                bs: crate::units::Size(bs),
                iodepth: d,
                size: Some(SizeOrShare::Bytes(crate::units::Size(data.max(bs)))),
                time_based: true,
                ramp_time: Some(crate::units::Duration(
                    self.opts.sweep_ramp_ns.max(5 * queue_ns).max(fill_ns),
                )),
                runtime: Some(crate::units::Duration(self.opts.sweep_time_ns.max(20 * queue_ns))),
                ..Default::default()
            };
            job.validate("lint", "sweep", self.facts.logical_bytes)?;
            cfg.job = vec![job];
            let mut sim = Simulation::with_device(&cfg, dev, pre)?;
            let r = sim.run(&mut |_| {})?;
            let j = &r.jobs[0];
            let main = if mix >= 50 { &j.read } else { &j.write };
            // Little's law: d requests always outstanding, each taking the mean latency of
            // the measured ones; unlike bytes over the span, not shortened by requests still
            // queued when the window closes.
            let n = j.read.total_ios + j.write.total_ios;
            let lat = (j.read.clat_ns.mean * j.read.total_ios as f64 + j.write.clat_ns.mean * j.write.total_ios as f64)
                / n.max(1) as f64;
            let iops = if lat > 0.0 { d as f64 * 1e9 / lat } else { 0.0 };
            out.push(SweepPoint {
                depth: d,
                throughput_mb_s: crate::metrics::round3(iops * bs as f64 / 1e6),
                iops: crate::metrics::round3(iops),
                p50_us: percentile(main, "50.000000"),
                p99_us: percentile(main, "99.000000"),
            });
        }
        Ok(out)
    }

    /// What [`Lab::sweep`] runs, for the report.
    pub fn sweep_method(&self, read_share: f64, bs: u64) -> String {
        format!(
            "synthetic jobs: {} requests of {} with {} reads over the data, each depth for at least {} ms after at least {} ms unmeasured (writes: until the free space would be full); throughput = depth / mean latency",
            if self.profile.stats.sequential_share >= 0.5 { "sequential" } else { "random" },
            crate::units::fmt_size(bs),
            super::pct(read_share),
            self.opts.sweep_time_ns / 1_000_000,
            self.opts.sweep_ramp_ns / 1_000_000
        )
    }

    pub fn workload_summary(&self) -> WorkloadSummary {
        let s = &self.profile.stats;
        WorkloadSummary {
            file: s.file.clone(),
            format: s.format.clone(),
            timing: self.profile.timing,
            requests: self.profile.requests,
            truncated: self.profile.truncated,
            reads: s.ops.read,
            writes: s.ops.write,
            read_bytes: s.bytes.read,
            write_bytes: s.bytes.write,
            footprint_bytes: self.profile.footprint_pages().saturating_mul(PAGE),
            duration_s: self.profile.duration_ns as f64 / 1e9,
            write_bytes_per_s: self.profile.write_rate().map(crate::metrics::round3),
        }
    }

    pub fn device_summary(&mut self) -> Result<DeviceSummary> {
        let f = self.facts.clone();
        Ok(DeviceSummary {
            name: f.name,
            logical_bytes: f.logical_bytes,
            physical_bytes: f.physical_bytes,
            utilisation: self.utilisation,
            mapping_unit: f.unit,
            page_size: f.page,
            parallel_units: f.parallel_units,
            large_request_bytes: f.large_bytes,
            endurance: f.endurance,
            uniform_waf: self.uniform_waf()?,
        })
    }

    /// How the what-ifs were simulated, for the report.
    pub fn method(&self) -> Vec<String> {
        let p = &self.profile;
        let timing = match p.timing {
            Timing::Open if self.opts.speed == 1.0 => "at the trace's timestamps".to_string(),
            Timing::Open => format!("at the trace's timestamps sped up {}x", self.opts.speed),
            Timing::Closed { depth } => format!("closed loop at {depth} outstanding"),
        };
        let mut m = vec![format!(
            "timed what-ifs replay the workload's first {} requests ({timing}), their 4 KiB pages packed from 0 in order of first use, on copies of {} preconditioned to steady state at {:.0} % full",
            p.requests, self.facts.name, 100.0 * self.utilisation
        )];
        let unsettled: Vec<&str> = self
            .projections
            .iter()
            .filter(|(_, p)| p.is_some_and(|p| !p.converged))
            .map(|(k, _)| k.split(' ').next().unwrap_or(""))
            .collect();
        if !unsettled.is_empty() {
            m.push(format!(
                "projections that did not settle within {} overwrites of the data (their WAF is the mean of the last three windows): {}",
                self.cfg.precondition.max_overwrites,
                unsettled.join(", ")
            ));
        }
        if let Some(pr) = self.projections.values().flatten().next() {
            m.push(format!(
                "WAF and lifetime: the write pattern driven into the FTL alone until its WAF is steady, on the device cut to {} planes ({} copies of the footprint side by side in the data); lifetime at the workload's write rate, physical capacity x P/E cycles / (rate x bytes programmed per byte)",
                pr.planes, pr.copies
            ));
        }
        m
    }
}

/// A device of `cfg` preconditioned as `cfg` says.
fn preconditioned(cfg: &Config) -> Result<(Device, PreconditionReport)> {
    let mut dev = Device::new(&cfg.device, cfg.precondition.seed)?;
    let pre = precondition(
        &mut dev,
        &cfg.precondition,
        cfg.device.ftl.idle_bg_threshold() as usize,
        &mut |_, _| {},
    )?;
    Ok((dev, pre))
}

/// How a variant is named in reports.
pub fn variant_name(v: Variant) -> &'static str {
    match v {
        Variant::AsIs => "as-is",
        Variant::RandomUpdates => "random updates",
        Variant::HotCold => "hot/cold apart",
        Variant::Packed => "packed",
        Variant::Paced(_) => "paced",
    }
}

/// The workload's requests for a timed replay: packed addresses, a variant's changes, and
/// arrival times.
struct Replay {
    records: Records,
    map: Arc<CompactMap>,
    transform: Transform,
    speed: f64,
    /// Paced: writes at most this many bytes per second.
    pace: Option<f64>,
    /// Closed loop (arrival times 0); requests carry timestamps (a trace).
    closed: bool,
    timestamps: bool,
    first: Option<u64>,
    last: u64,
    /// Pacing: how far requests are shifted, and the token bucket (bytes, as of when).
    delay: u64,
    tokens: f64,
    filled_at: f64,
    pending: VecDeque<Request>,
}

impl Replay {
    /// Arrival time of a record stamped `t` (never earlier than the previous one), shifted
    /// by pacing a write of `bytes`.
    fn arrival(&mut self, t: u64, write: Option<u64>) -> u64 {
        if self.closed {
            return 0;
        }
        let t0 = *self.first.get_or_insert(t);
        // A closed-loop workload paced: arrivals come from the pacing alone.
        let rel = if self.timestamps {
            (t.saturating_sub(t0) as f64 / self.speed) as u64
        } else {
            0
        };
        let mut at = (rel + self.delay).max(self.last);
        if let (Some(rate), Some(bytes)) = (self.pace, write) {
            // A token bucket of a window's worth of bytes: bursts shorter than a window pass,
            // longer ones are held to `rate`.
            let cap = rate * profile::WINDOW_NS as f64 / 1e9;
            let refill = (at as f64 - self.filled_at) * rate / 1e9;
            self.tokens = (self.tokens + refill).min(cap);
            self.filled_at = at as f64;
            self.tokens -= bytes as f64;
            if self.tokens < 0.0 {
                let wait = -self.tokens * 1e9 / rate;
                at += wait.ceil() as u64;
                self.tokens = 0.0;
                self.filled_at = at as f64;
            }
            self.delay = at - rel;
        }
        self.last = at;
        at
    }
}

impl RequestSource for Replay {
    fn next_request(&mut self, _now_ns: u64) -> Result<Option<Request>> {
        loop {
            if let Some(r) = self.pending.pop_front() {
                return Ok(Some(r));
            }
            let Some(r) = self.records.next() else { return Ok(None) };
            let r = r?;
            let time_ns = self.arrival(r.time_ns, (r.op == Op::Write).then_some(r.len));
            let (pending, transform, op) = (&mut self.pending, &mut self.transform, r.op);
            let mut push = |offset, len, stream| {
                pending.push_back(Request {
                    time_ns,
                    op,
                    offset,
                    len,
                    stream,
                })
            };
            self.map.pieces(r.offset, r.len, |o, l| {
                if op == Op::Write {
                    transform.write(o, l, &mut push);
                } else {
                    push(o, l, 0);
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transform over a footprint of 100 pages, pages 0 and 5 hot.
    fn transform(v: Variant) -> Transform {
        let mut hot = vec![0u64; 2];
        hot[0] = 1 | 1 << 5;
        Transform {
            variant: v,
            unit: 4096,
            pages: 100,
            hot: Arc::new(hot),
            seen: vec![0; 2],
            rng: Xoshiro256PlusPlus::seed_from_u64(1),
            log: 0,
            flushed: 0,
            bytes: 0,
            units: 0,
        }
    }

    fn apply(t: &mut Transform, writes: &[(u64, u64)]) -> Vec<(u64, u64, u32)> {
        let mut out = Vec::new();
        for &(o, l) in writes {
            t.write(o, l, &mut |o, l, s| out.push((o, l, s)));
        }
        out
    }

    #[test]
    fn random_updates_move_only_updates() {
        let mut t = transform(Variant::RandomUpdates);
        let w = [(0, 4096), (8192, 8192), (512, 1024), (8192, 4096), (20480, 4096)];
        let out = apply(&mut t, &w);
        // First writes stay; the updates of pages 0 and 2 go elsewhere, in-page offset kept.
        assert_eq!(out[0], (0, 4096, 0));
        assert_eq!(out[1], (8192, 8192, 0));
        assert_eq!(out[4], (20480, 4096, 0));
        for (i, &(o, l, _)) in out.iter().enumerate().skip(2).take(2) {
            assert_eq!(l, w[i].1);
            assert_eq!(o % 4096, w[i].0 % 4096);
            assert!(o + l <= 100 * 4096);
        }
        assert!(out[2].0 / 4096 != 0 || out[3].0 / 4096 != 2, "{out:?}");
        assert_eq!((t.bytes, t.units), (21504, 6));
    }

    #[test]
    fn hot_pages_go_to_stream_1() {
        let mut t = transform(Variant::HotCold);
        let out = apply(
            &mut t,
            &[(0, 4096), (4096, 4096), (5 * 4096 + 100, 10), (99 * 4096, 4096)],
        );
        assert_eq!(out.iter().map(|x| x.2).collect::<Vec<_>>(), [1, 0, 1, 0]);
        assert_eq!(out[2], (5 * 4096 + 100, 10, 1));
    }

    #[test]
    fn packing_writes_whole_units_in_a_log() {
        let mut t = transform(Variant::Packed);
        // 512-byte writes anywhere: every eighth completes a unit at the log's head.
        let w: Vec<(u64, u64)> = (0..20).map(|i| (i * 7 * 4096 + 512, 512)).collect();
        let out = apply(&mut t, &w);
        assert_eq!(out, [(0, 4096, 0), (4096, 4096, 0)]);
        assert_eq!((t.bytes, t.units), (8192, 2));
        // A long write fills whole units and wraps at the end of the footprint.
        // 2048 bytes wait in the log; 99 pages more make 99 whole units from byte 8192.
        let out = apply(&mut t, &[(0, 99 * 4096)]);
        assert_eq!(out, [(8192, 98 * 4096, 0), (0, 4096, 0)]);
        assert_eq!(t.units, 2 + 99);
    }
}
