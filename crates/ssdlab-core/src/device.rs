//! One simulated SSD: host interface, DRAM write buffer, FTL, and the NAND back end driven by
//! the flash scheduler ([`crate::scheduler`]).
//!
//! A request is submitted at its arrival time and completes later, through events: the device
//! turns it into flash operations, queues them on their units, and reports `(tag, completion
//! time)` in [`Device::completions`] once its last part is done.
//! - read: per flash page, a host read on the page's unit (its data then crosses the channel);
//!   once all pages are in the controller, the data crosses the host link. Units never written
//!   and units still in the write buffer need no flash access. With `device.host.streaming`
//!   (the engine's own design only), each page's data crosses the link as soon as it is in
//!   the controller (`send_piece`), and a write's pages may be programmed as soon as their
//!   own data has crossed (`page_arrival`).
//! - write: the data crosses the host link (a partial mapping unit first reads its old data:
//!   read-modify-write). With a write buffer the request completes once its data is in DRAM
//!   (waiting, in order, for space when the buffer is full) and a page is programmed when it
//!   fills; buffer space is freed when its program ends. Without one, the request completes
//!   when its last page is programmed, a partly filled page being programmed padded. A
//!   buffer with `device.ftl.power_loss_protection` takes the write before the old data of
//!   its partial units is read: the request completes once its data is in DRAM, and the
//!   page holding such a unit (with every later page of its block, programmed in order) is
//!   programmed once the read has ended (`rmw_held_programs`). A host read of the unit in
//!   between is served from the buffer at once.
//! - trim: the command over the link; the map entries are dropped.
//!
//! Garbage collection is queued as the page reads, programs and erase it consists of
//! (`ftl::GcOp`). Foreground GC, which a write that needs a free block triggers, queues its
//! operations ahead of that write's program; background GC runs a step at a time on a unit that
//! has been idle for `bg_gc_idle`, and only while it stays free of host work.

use crate::controller::{Cpu, Dma};
use crate::device_config::DeviceConfig;
use crate::firmware::{self, Firmware};
use crate::ftl::config::Allocation;
use crate::ftl::superblock::SbStats;
use crate::ftl::{FtlParams, FtlStats, GcOpKind, PageDone, NONE};
use crate::geometry::Geometry;
use crate::host::xfer_ns;
pub use crate::mechanisms::{partial_units, DeviceCounters, Mechanisms, PageReads, Pending, Stage, Token};
use crate::placement::Placement;
use crate::redundancy::Scheme;
use crate::request::{Op, Request};
use crate::scheduler::Suspendable;
use crate::scheduler::{self, Class, Kind, Notice, OpSpec, Scheduler, UnitStats};
use crate::timeline::{self, Timeline};
use crate::{ftl::Ftl, Error, Result};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

/// Every counter and busy time of the device at one moment, to report a measured window.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub time: u64,
    pub counters: DeviceCounters,
    pub ftl: FtlStats,
    /// Array busy time per unit (plane or die).
    pub unit_busy: Vec<u64>,
    pub unit_stats: Vec<UnitStats>,
    pub channel_busy: Vec<u64>,
    pub link_busy: Vec<u64>,
    /// Busy time per controller CPU (empty when firmware time is not modelled).
    pub cpu_busy: Vec<u64>,
    /// The firmware design's own counters.
    pub firmware: Vec<(&'static str, u64)>,
    /// The placement policy's counters.
    pub placement: Vec<(&'static str, u64)>,
    /// Host bytes written to each placement slot (empty with per-plane frontiers).
    pub slot_host_bytes: Vec<u64>,
    /// The redundancy scheme's counters (empty without one).
    pub redundancy: Vec<(&'static str, u64)>,
    /// Superblock counters (None: per-plane frontiers).
    pub superblocks: Option<SbStats>,
}

/// Where the pages of one host write frontier go (see [`Allocation`]).
#[derive(Clone)]
struct PlaneAlloc {
    /// Next plane in turn (round robin; least-busy starts its scan there).
    cursor: usize,
    /// Least-busy: pages given to each plane, the fewest any plane got, how many planes have
    /// that few.
    plane_pages: Vec<u64>,
    min_pages: u64,
    at_min: usize,
}

impl PlaneAlloc {
    /// Least-busy allocation's choice: the plane that could start a program first (`eta`,
    /// never before `now`), among the planes fewer than `slack` pages ahead of the
    /// least-written one (and, with `steer`, taking host pages); ties go round robin.
    /// `usize::MAX` when no plane qualifies.
    #[inline(always)]
    fn least_busy(&self, ftl: &Ftl, slack: u64, now: u64, eta: &impl Fn(usize) -> u64, steer: bool) -> usize {
        let n = self.plane_pages.len();
        let limit = self.min_pages + slack;
        let mut best = usize::MAX;
        let mut best_t = u64::MAX;
        for p in (self.cursor..n).chain(0..self.cursor) {
            if self.plane_pages[p] < limit && (!steer || ftl.takes_host(p)) {
                let t = eta(p);
                if t < best_t {
                    best_t = t;
                    best = p;
                    if t == now {
                        break; // idle: nothing starts earlier
                    }
                }
            }
        }
        best
    }

    /// Least-busy allocation when every plane within the slack is at its valid-data limit:
    /// the planes at their limit that fell behind the least-written plane taking host pages
    /// are counted as served up to it (they could not take pages, and must neither hold the
    /// others back nor get a burst of pages once below their limit again), then the choice
    /// is made again; with no plane taking host pages, among all planes.
    #[cold]
    #[inline(never)]
    fn least_busy_steered(&mut self, ftl: &Ftl, slack: u64, now: u64, eta: &impl Fn(usize) -> u64) -> usize {
        let n = self.plane_pages.len();
        let Some(m) = (0..n).filter(|&p| ftl.takes_host(p)).map(|p| self.plane_pages[p]).min() else {
            return self.least_busy(ftl, slack, now, eta, false);
        };
        for p in 0..n {
            if !ftl.takes_host(p) {
                self.plane_pages[p] = self.plane_pages[p].max(m);
            }
        }
        self.min_pages = m;
        self.at_min = self.plane_pages.iter().filter(|&&x| x == m).count();
        self.least_busy(ftl, slack, now, eta, true)
    }
}

struct WriteBuffer {
    capacity: u64,
    used: u64,
    /// Pages handed to the flash and not yet programmed.
    inflight: u32,
    /// Writes waiting for space, in arrival order.
    waiting: VecDeque<u32>,
}

/// The controller model's state: firmware CPUs, command admission, commands waiting for
/// their CPU time.
struct Control {
    cpu: Cpu,
    /// Commands the firmware works on at once (0: no limit).
    queue_depth: u32,
    active: u32,
    /// Commands waiting for the firmware to take them, in arrival order.
    waiting: VecDeque<u32>,
    /// Commands whose CPU time ends at a time: (time, sequence, pending id).
    due: BinaryHeap<Reverse<(u64, u64, u32)>>,
    seq: u64,
}

pub struct Device {
    pub name: String,
    pub geo: Geometry,
    pub ftl: Ftl,
    pub sched: Scheduler,
    read_ns: Vec<u64>,
    program_ns: Vec<u64>,
    channel_rate: u64,
    overhead_ns: u64,
    /// `device.host.command_latency`: added to every completion, holding nothing.
    latency_ns: u64,
    /// Host DMA by direction: host to device (writes' data), device to host (reads').
    dma: [Dma; 2],
    /// Firmware time and command admission; None: commands act at arrival.
    control: Option<Control>,
    firmware: Option<Box<dyn Firmware>>,
    /// Superblock placement policy (None: per-plane frontiers).
    placement: Option<Box<dyn Placement>>,
    /// Host bytes written to each placement slot (FDP's reclaim unit handles), cumulative.
    slot_host_bytes: Vec<u64>,
    /// Redundancy scheme (None: none; also None while one of its own calls runs).
    scheme: Option<Box<dyn Scheme>>,
    /// Scheduler units of the FTL's geometry (a scheme's spare chips come after them).
    base_units: usize,
    /// Pages [`Device::least_busy`] gave each plane.
    given: Vec<u64>,
    /// [host→device, device→host]; one shared timeline when half duplex.
    links: Vec<Timeline>,
    duplex: bool,
    /// Host data crosses the link page by page (`device.host.streaming`).
    streaming: bool,
    /// Streaming reads' page reads under way: (pending id, bytes), and free entries.
    pieces: Vec<(u32, u64)>,
    free_pieces: Vec<u32>,
    plane_parallel: bool,
    copyback: bool,
    allocation: Allocation,
    parallel_gc: bool,
    /// Per host write frontier (stream), where its pages go: each stream is spread evenly
    /// over the planes on its own, so that every plane's GC sees its share of each stream.
    alloc: Vec<PlaneAlloc>,
    /// Least-busy allocation: how far behind the others a plane may fall.
    slack: u64,
    /// Per host write frontier (stream), the plane whose open page the write buffer is filling.
    filling: Vec<Option<usize>>,
    wbuf: Option<WriteBuffer>,
    /// The write buffer is power-protected (`device.ftl.power_loss_protection`): writes are
    /// taken before their read-modify-write reads end.
    merge_late: bool,
    /// Power-protected buffer: per write (pending id), its partial units whose old data is
    /// being read: (logical unit, physical unit in the buffer, or NONE before placement).
    merging: HashMap<u32, Vec<(u64, u32)>>,
    /// Power-protected buffer: per page (its first physical unit), how many of its units
    /// wait for their old data.
    merge_pages: HashMap<u32, u32>,
    /// Power-protected buffer: per block, its filled pages held until their merges end, in
    /// order, with the time their data was in the controller.
    held: HashMap<usize, VecDeque<(PageDone, u64)>>,
    /// Host pages handed to the flash / programmed, per block (write buffer only): a page in
    /// between is still in the buffer. Both restart at a host page that does not follow the
    /// last one (GC copies before or between host pages are not in the buffer).
    prog_issued: Vec<u32>,
    prog_done: Vec<u32>,
    bg_threshold: usize,
    bg_idle_ns: u64,
    /// FEMU's background GC after each request (`bg_gc = "after-request"`): its threshold
    /// (free blocks) and the victim's least invalid share.
    after_request: Option<(usize, f64)>,
    /// Checks after requests are skipped while the FTL's block clock stays at `.0` and fewer
    /// than `.1` host units were written or trimmed in all: no victim can qualify before.
    after_skip: Option<(u64, u64)>,
    /// Background GC is running on the unit (it has been idle long enough).
    bg_active: Vec<bool>,
    draining: bool,
    /// Pseudo-SLC performance mode (`device.nand.pslc_fold`).
    pslc: Option<crate::pslc::Pslc>,
    /// Flash bytes per host byte of host page programs (`device.ftl.compression`).
    compression: f64,
    pending: Vec<Pending>,
    free_pending: Vec<u32>,
    notices: Vec<Notice>,
    now: u64,
    last_host_done: u64,
    /// `(tag, completion time)` of finished requests, for the caller to drain.
    pub completions: Vec<(u64, u64)>,
    pub counters: DeviceCounters,
}

impl Device {
    pub fn new(cfg: &DeviceConfig, seed: u64) -> Result<Device> {
        let geo = crate::redundancy::geometry_of(cfg, &cfg.name)?;
        let ftl = Ftl::with_streams(geo, Self::ftl_params(cfg, seed), cfg.ftl.streams as usize)?;
        Self::with_ftl(cfg, ftl)
    }

    /// The FTL parameters `cfg` gives, its generator seeded with `seed`.
    pub fn ftl_params(cfg: &DeviceConfig, seed: u64) -> FtlParams {
        FtlParams {
            gc_policy: cfg.ftl.gc_policy.clone(),
            gc_d: cfg.ftl.gc_d,
            gc_threshold: cfg.ftl.gc_threshold,
            endurance: cfg.nand.endurance,
            static_wl_threshold: cfg.ftl.static_wl_threshold,
            gc_shared_frontier: cfg.ftl.gc_frontier == "shared",
            read_ns: cfg.read_ns(),
            program_ns: cfg.program_ns(),
            erase_ns: cfg.erase_ns(),
            seed,
        }
    }

    /// A device around an FTL built for `cfg`'s geometry (e.g. a copy of a preconditioned
    /// one); it gets `cfg`'s number of streams.
    pub fn with_ftl(cfg: &DeviceConfig, mut ftl: Ftl) -> Result<Device> {
        let mut slot_host_bytes = Vec::new();
        let placement = match crate::placement::make(cfg, &ftl.geo) {
            Some((policy, layout)) => {
                if ftl.superblocks().is_none() {
                    ftl.enable_superblocks(&layout);
                }
                slot_host_bytes = vec![0; layout.widths.len()];
                Some(policy)
            }
            None => {
                if ftl.streams() != cfg.ftl.streams as usize {
                    ftl.set_streams(cfg.ftl.streams as usize);
                }
                None
            }
        };
        let geo = ftl.geo.clone();
        let read_ns = cfg.read_ns();
        let program_ns = cfg.program_ns();
        let duplex = cfg.host.interface.full_duplex();
        let plane_parallel = cfg.nand.plane_parallel;
        let base_units = if plane_parallel { geo.planes } else { geo.dies };
        // A scheme's spare chips: more units, each chip on a channel of its own.
        let (extra_units, extra_channels) = crate::redundancy::extra_units(cfg);
        let units = base_units + extra_units;
        let per_spare = extra_units / extra_channels.max(1);
        let unit_channel = (0..units)
            .map(|u| {
                if u < base_units {
                    u % geo.channels
                } else {
                    geo.channels + (u - base_units) / per_spare
                }
            })
            .collect();
        let wb = cfg.ftl.write_buffer.0;
        let sc = &cfg.scheduler;
        // Superblocks collect when one is opened (foreground only), unless after requests.
        let after_request = (cfg.ftl.bg_gc == crate::ftl::config::BgGc::AfterRequest)
            .then_some((cfg.ftl.bg_gc_threshold as usize, cfg.ftl.bg_gc_min_invalid));
        let bg_threshold = if placement.is_some() || after_request.is_some() {
            0
        } else {
            cfg.ftl.bg_gc_threshold as usize
        };
        let sched = Scheduler::new(
            scheduler::Params {
                policy: sc.policy,
                max_write_wait_ns: sc.max_write_wait.0,
                program_suspend_ns: sc
                    .suspend
                    .contains(&Suspendable::Program)
                    .then_some(sc.program_suspend_time.0),
                erase_suspend_ns: sc
                    .suspend
                    .contains(&Suspendable::Erase)
                    .then_some(sc.erase_suspend_time.0),
                resume_ns: sc.resume_time.0,
                max_suspensions: sc.max_suspensions,
                notify_idle: bg_threshold > 0,
                page_xfer_ns: if cfg.nand.copyback {
                    0
                } else {
                    xfer_ns(geo.page_size, cfg.nand.channel_rate.0)
                },
            },
            unit_channel,
            geo.channels + extra_channels,
        );
        let scheme = crate::redundancy::make(cfg, &geo, base_units);
        // Blocks lent to the scheme for good (kept when the FTL comes preconditioned).
        let lend = scheme.as_ref().map_or(0, |s| s.reserve_per_plane());
        for p in 0..if lend > 0 { geo.planes } else { 0 } {
            while ftl.reserved_blocks(p) < lend {
                ftl.reserve_block(p)?;
            }
        }
        let fw = firmware::make(cfg)?;
        if cfg.host.streaming && (fw.is_some() || scheme.is_some()) {
            return Err(Error::Invalid(
                "device.host.streaming applies to the engine's own page design without a redundancy scheme".into(),
            ));
        }
        // A design keeps its own buffer: the engine's is for the "page" design only.
        let wb = if fw.is_some() { 0 } else { wb };
        let blocks_tracked = if wb > 0 { geo.blocks } else { 0 };
        let control =
            (cfg.controller.active() || fw.is_some() || cfg.controller.memcpy_rate.is_some()).then(|| Control {
                cpu: Cpu::new(&cfg.controller),
                queue_depth: cfg.controller.queue_depth,
                active: 0,
                waiting: VecDeque::new(),
                due: BinaryHeap::new(),
                seq: 0,
            });
        Ok(Device {
            name: cfg.name.clone(),
            sched,
            read_ns,
            program_ns,
            channel_rate: cfg.nand.channel_rate.0,
            overhead_ns: cfg.host.command_overhead.0,
            latency_ns: cfg.host.command_latency.0,
            dma: Dma::from_config(&cfg.host),
            control,
            firmware: fw,
            placement,
            slot_host_bytes,
            scheme,
            base_units,
            given: vec![
                0;
                if cfg.redundancy.scheme() == "none" {
                    0
                } else {
                    geo.planes
                }
            ],
            links: vec![Timeline::default(); if duplex { 2 } else { 1 }],
            duplex,
            streaming: cfg.host.streaming,
            pieces: Vec::new(),
            free_pieces: Vec::new(),
            plane_parallel,
            copyback: cfg.nand.copyback,
            allocation: cfg.ftl.allocation,
            parallel_gc: cfg.ftl.parallel_gc,
            alloc: vec![
                PlaneAlloc {
                    cursor: 0,
                    plane_pages: vec![0; geo.planes],
                    min_pages: 0,
                    at_min: geo.planes,
                };
                ftl.streams()
            ],
            slack: cfg
                .ftl
                .allocation_slack
                .map_or((geo.pages_per_block as u64 / 4).max(1), u64::from),
            filling: vec![None; ftl.streams()],
            wbuf: (wb > 0).then(|| WriteBuffer {
                capacity: wb,
                used: 0,
                inflight: 0,
                waiting: VecDeque::new(),
            }),
            merge_late: cfg.ftl.power_loss_protection && wb > 0,
            merging: HashMap::new(),
            merge_pages: HashMap::new(),
            held: HashMap::new(),
            prog_issued: vec![0; blocks_tracked],
            prog_done: vec![0; blocks_tracked],
            bg_threshold,
            bg_idle_ns: cfg.ftl.bg_gc_idle.0,
            after_request,
            after_skip: None,
            bg_active: vec![false; units],
            draining: false,
            pslc: crate::pslc::Pslc::from_config(cfg, geo.host_units),
            compression: cfg.ftl.compression,
            pending: Vec::new(),
            free_pending: Vec::new(),
            notices: Vec::new(),
            now: 0,
            last_host_done: 0,
            completions: Vec::new(),
            counters: DeviceCounters::default(),
            geo,
            ftl,
        })
    }

    pub fn logical_bytes(&self) -> u64 {
        self.geo.logical_bytes()
    }
    pub fn now(&self) -> u64 {
        self.now
    }

    /// Flash array unit (plane or die) of a plane.
    #[inline]
    pub fn unit_of(&self, plane: usize) -> usize {
        if self.plane_parallel {
            plane
        } else {
            self.geo.die_of_plane(plane)
        }
    }

    /// Die of a unit (a scheme's spare chips' dies are numbered after the FTL's).
    pub fn die_of_unit(&self, unit: usize) -> usize {
        if !self.plane_parallel {
            unit
        } else if unit < self.base_units {
            self.geo.die_of_plane(unit)
        } else {
            self.geo.dies + (unit - self.base_units) / self.geo.planes_per_die
        }
    }

    /// Dies of every unit the scheduler has (the FTL's and a scheme's spare chips').
    pub fn dies_total(&self) -> usize {
        match self.sched.units() {
            0 => 0,
            n => self.die_of_unit(n - 1) + 1,
        }
    }

    #[inline]
    fn page_type(&self, pun: u32) -> usize {
        self.geo.page_in_block(pun) % self.read_ns.len()
    }

    /// Time of the next device event, if any.
    #[inline]
    pub fn next_event(&self) -> Option<u64> {
        let s = self.sched.next_event();
        match &self.control {
            None => s,
            Some(c) => match c.due.peek() {
                Some(Reverse((t, _, _))) => Some(s.map_or(*t, |s| s.min(*t))),
                None => s,
            },
        }
    }

    /// Process the earliest device event. Returns false when there is none.
    pub fn step(&mut self) -> Result<bool> {
        // A command whose CPU time ends first (flash events at the same time go first).
        if self.control.is_some() && self.step_due()? {
            return Ok(true);
        }
        if let Some(t) = self.sched.next_event() {
            self.now = self.now.max(t);
        }
        if !self.sched.step() {
            return Ok(false);
        }
        self.handle_notices()?;
        Ok(true)
    }

    /// Act on the command whose CPU time ends first, if that comes before the next flash
    /// event; false when it does not.
    #[cold]
    #[inline(never)]
    fn step_due(&mut self) -> Result<bool> {
        let c = self.control.as_mut().expect("controller model");
        let Some(&Reverse((t, _, pid))) = c.due.peek() else {
            return Ok(false);
        };
        if self.sched.next_event().is_some_and(|s| s <= t) {
            return Ok(false);
        }
        c.due.pop();
        self.now = self.now.max(t);
        self.act(pid)?;
        self.handle_notices()?;
        Ok(true)
    }

    /// Process every event up to and including time `t`.
    pub fn advance_to(&mut self, t: u64) -> Result<()> {
        while self.next_event().is_some_and(|e| e <= t) {
            self.step()?;
        }
        Ok(())
    }

    /// From now on, start no background GC: the host is done and the device finishes what is
    /// queued.
    pub fn set_draining(&mut self) {
        self.draining = true;
    }

    /// Process events until none is left (background GC starts no more).
    pub fn drain(&mut self) -> Result<()> {
        self.draining = true;
        while self.step()? {}
        Ok(())
    }

    /// Submit one request at `t` and process events until it completes; returns its completion
    /// time. Earlier requests' completions stay in [`Device::completions`].
    pub fn run_request(&mut self, t: u64, req: &Request) -> Result<u64> {
        self.advance_to(t)?;
        let tag = u64::MAX - 1;
        self.submit(t, req, tag)?;
        loop {
            if let Some(i) = self.completions.iter().position(|c| c.0 == tag) {
                return Ok(self.completions.swap_remove(i).1);
            }
            if !self.step()? {
                return Err(Error::Invalid("request never completed".into()));
            }
        }
    }

    /// End of the last flash operation, channel transfer or link transfer booked.
    pub fn last_activity(&self) -> u64 {
        let links = self.links.iter().map(Timeline::last_end).max().unwrap_or(0);
        let cpu = self.control.as_ref().map_or(0, |c| c.cpu.last_end());
        links.max(self.sched.last_busy()).max(self.last_host_done).max(cpu)
    }

    /// Every counter and busy time at `t` (no event after `t` processed yet).
    pub fn snapshot(&self, t: u64) -> Snapshot {
        let units = self.sched.units();
        Snapshot {
            time: t,
            counters: self.counters.clone(),
            ftl: self.ftl.stats.clone(),
            unit_busy: (0..units).map(|u| self.sched.busy_at(u, t)).collect(),
            unit_stats: (0..units).map(|u| self.sched.unit_stats(u)).collect(),
            channel_busy: self.sched.channels.iter().map(|c| c.busy_ns).collect(),
            link_busy: self.links.iter().map(|l| l.busy_ns).collect(),
            cpu_busy: self.control.as_ref().map_or(Vec::new(), |c| c.cpu.busy()),
            firmware: self.firmware.as_ref().map_or(Vec::new(), |f| f.counters()),
            placement: self.placement.as_ref().map_or(Vec::new(), |p| p.counters()),
            slot_host_bytes: self.slot_host_bytes.clone(),
            redundancy: self.scheme.as_ref().map_or(Vec::new(), |s| s.counters()),
            superblocks: self.ftl.superblocks().map(|s| s.stats.clone()),
        }
    }

    /// Submit a request arriving at `now` (non-decreasing across calls, and after every event
    /// processed); its completion arrives in [`Device::completions`] under `tag`.
    pub fn submit(&mut self, now: u64, req: &Request, tag: u64) -> Result<()> {
        if now < self.now {
            return Err(Error::Invalid(format!(
                "request at {now} ns submitted after {} ns",
                self.now
            )));
        }
        self.now = now;
        if self.scheme.is_some() {
            self.scheme_call(|s, d| s.tick(d))?;
        }
        let cap = self.geo.logical_bytes();
        if req.len == 0 || req.offset.checked_add(req.len).is_none_or(|e| e > cap) {
            return Err(Error::Invalid(format!(
                "request at offset {} of {} bytes is outside the logical capacity ({cap} bytes)",
                req.offset, req.len
            )));
        }
        if matches!(req.op, Op::Append | Op::Zone(..)) && self.zones().is_none() {
            let design = self.firmware.as_ref().map_or("page", |f| f.name());
            return Err(firmware::no_zones(design));
        }
        if self.control.is_none() {
            // Without the controller model there is no design either (a design implies it):
            // the engine's own FTL acts at once.
            match req.op {
                Op::Read => self.read_now(now, req, tag)?,
                Op::Write => self.write_now(now, req, tag)?,
                Op::Trim => {
                    let pid = self.new_pending(tag, req, Stage::Rmw, now);
                    self.act(pid)?;
                }
                Op::Append | Op::Zone(..) => unreachable!("refused above: no zoned design"),
            }
            if self.after_request.is_some() {
                self.after_request()?;
            }
            return self.handle_notices();
        }
        let stage = match req.op {
            Op::Read => Stage::Read,
            _ => Stage::Rmw,
        };
        let pid = self.new_pending(tag, req, stage, now);
        match self.control.as_mut() {
            None => unreachable!("handled above"),
            Some(c) => {
                if c.queue_depth == 0 || c.active < c.queue_depth {
                    c.active += 1;
                    self.start_command(pid, now);
                } else {
                    c.waiting.push_back(pid);
                }
            }
        }
        self.handle_notices()
    }

    /// The firmware takes command `pid` at `t`: its CPU time is booked, and it acts on the
    /// command when that time ends (through the device's event queue).
    fn start_command(&mut self, pid: u32, t: u64) {
        let req = &self.pending[pid as usize].req;
        let (units, read) = (self.units_of(req), req.op == Op::Read);
        let now = self.now;
        let c = self.control.as_mut().expect("controller model");
        let cost = c.cpu.command_cost(units, read);
        let end = c.cpu.book(now, t, cost);
        c.seq += 1;
        c.due.push(Reverse((end, c.seq, pid)));
    }

    /// Act on command `pid` now: by the firmware design, or the engine's own FTL.
    fn act(&mut self, pid: u32) -> Result<()> {
        self.pending[pid as usize].ready = self.now;
        if self.firmware.is_some() {
            return self.firmware_call(|fw, d| fw.command(d, pid));
        }
        let req = self.pending[pid as usize].req;
        match req.op {
            Op::Read => self.read(pid)?,
            Op::Write => self.write(pid)?,
            Op::Trim => {
                self.trim(&req);
                let c = self.link(0, self.now, 0);
                self.free_pending.push(pid);
                self.complete(self.pending[pid as usize].tag, c);
            }
            Op::Append | Op::Zone(..) => return Err(firmware::no_zones("page")),
        }
        if self.after_request.is_some() && self.control.is_some() {
            self.after_request()?;
        }
        Ok(())
    }

    /// FEMU's background GC once a request has been handled: at most one collection
    /// (`Ftl::collect_if_worth`), its flash operations queued now, ahead of later requests.
    #[cold]
    #[inline(never)]
    fn after_request(&mut self) -> Result<()> {
        let Some((threshold, min_invalid)) = self.after_request else {
            return Ok(());
        };
        let clock = self.ftl.block_clock();
        let written = self.ftl.stats.host_units_written + self.ftl.stats.trimmed_units;
        if self.after_skip.is_some_and(|(c, until)| c == clock && written < until) {
            return Ok(());
        }
        self.after_skip = None;
        match self.ftl.collect_if_worth(threshold, min_invalid)? {
            crate::ftl::after_request::Check::Collected => self.queue_gc_ops(),
            crate::ftl::after_request::Check::Short { needed } => {
                self.after_skip = Some((clock, written.saturating_add(needed)));
            }
            crate::ftl::after_request::Check::Plenty => {}
        }
        Ok(())
    }

    /// Call the firmware design with the device (the design is out of the device meanwhile).
    #[cold]
    fn firmware_call(&mut self, f: impl FnOnce(&mut dyn Firmware, &mut Device) -> Result<()>) -> Result<()> {
        let mut fw = self.firmware.take().expect("a firmware design");
        let r = f(fw.as_mut(), self);
        self.firmware = Some(fw);
        r
    }

    /// Call the redundancy scheme with the device (the scheme is out of it meanwhile).
    #[cold]
    fn scheme_call<T>(&mut self, f: impl FnOnce(&mut dyn Scheme, &mut Device) -> Result<T>) -> Result<T> {
        let mut s = self.scheme.take().expect("a redundancy scheme");
        let r = f(s.as_mut(), self);
        self.scheme = Some(s);
        r
    }

    /// The redundancy scheme, if the device runs one.
    pub fn scheme(&self) -> Option<&dyn Scheme> {
        self.scheme.as_deref()
    }

    /// Keep a version per host unit in the scheme and count stale reads (tests).
    pub fn track_versions(&mut self) {
        let n = self.geo.host_units;
        if let Some(s) = self.scheme.as_mut() {
            s.track_versions(n);
        }
    }

    /// Report request `tag` complete at `t`; with the controller model, the firmware takes
    /// the next waiting command.
    #[inline]
    pub fn complete(&mut self, tag: u64, t: u64) {
        self.last_host_done = self.last_host_done.max(t);
        self.completions.push((tag, t + self.latency_ns));
        if self.control.is_some() {
            self.command_done(t);
        }
    }

    /// A command completed at `t`: the firmware takes the next waiting one.
    #[cold]
    #[inline(never)]
    fn command_done(&mut self, t: u64) {
        let c = self.control.as_mut().expect("controller model");
        if c.queue_depth > 0 {
            match c.waiting.pop_front() {
                Some(next) => self.start_command(next, t),
                None => c.active -= 1,
            }
        }
    }

    /// The request of pending id `pid`.
    pub fn pending(&self, pid: u32) -> &Pending {
        &self.pending[pid as usize]
    }
    pub fn pending_mut(&mut self, pid: u32) -> &mut Pending {
        &mut self.pending[pid as usize]
    }

    /// The firmware design, if the device runs one (None while one of its own calls runs).
    pub fn firmware(&self) -> Option<&dyn Firmware> {
        self.firmware.as_deref()
    }
    pub fn firmware_mut(&mut self) -> Option<&mut dyn Firmware> {
        self.firmware.as_deref_mut()
    }

    /// The zones of the namespace, when the design is zoned.
    pub fn zones(&self) -> Option<&crate::zones::Zones> {
        self.firmware.as_deref().and_then(|f| f.zones())
    }

    /// The firmware design's invariants against the device ([`Firmware::check`]).
    pub fn check_firmware(&self) -> std::result::Result<(), String> {
        match self.firmware.as_deref() {
            Some(f) => f.check(self),
            None => Ok(()),
        }
    }

    /// The plane the firmware design always writes logical unit `lpn` to (static
    /// allocation), if it has one.
    pub fn home_plane(&self, lpn: u64) -> Option<usize> {
        match (self.firmware.as_deref(), self.scheme.as_deref()) {
            (Some(f), _) => f.home_plane(&self.geo, lpn),
            (None, Some(s)) => s.home_plane(&self.geo, lpn),
            (None, None) => None,
        }
    }

    /// The FTL logical units holding host unit `lpn` (a scheme's copies and parity too).
    pub fn fill_units(&self, lpn: u64, out: &mut dyn FnMut(u64)) {
        match self.scheme.as_deref() {
            Some(s) => s.fill(lpn, out),
            None => out(lpn),
        }
    }

    /// Nothing is booked on channel `ch` after now and every flash unit on it is idle.
    pub fn channel_idle(&self, ch: usize) -> bool {
        self.sched.channels[ch].last_end() <= self.now
            && (ch..self.sched.units())
                .step_by(self.geo.channels)
                .all(|u| self.sched.is_idle(u))
    }

    /// Request `pid` is done at `t`: its id is freed and its completion reported.
    #[inline]
    pub fn finish_request(&mut self, pid: u32, t: u64) {
        let tag = self.pending[pid as usize].tag;
        self.free_pending.push(pid);
        self.complete(tag, t);
    }

    /// A read's data, in the controller at `ready`, crosses the host link; the request
    /// completes when it has.
    #[inline]
    pub fn deliver(&mut self, pid: u32, ready: u64) {
        let len = self.pending[pid as usize].req.len;
        let c = self.link(1, ready, len);
        self.finish_request(pid, c);
    }

    /// Book `dur` ns of firmware CPU work at or after `earliest`; returns its end (`earliest`
    /// without the controller model).
    pub fn cpu(&mut self, earliest: u64, dur: u64) -> u64 {
        let now = self.now;
        match self.control.as_mut() {
            Some(c) => c.cpu.book(now, earliest, dur),
            None => earliest,
        }
    }

    /// Book a DRAM copy of `bytes` at or after `earliest`; returns its end.
    pub fn memcpy(&mut self, earliest: u64, bytes: u64) -> u64 {
        let now = self.now;
        match self.control.as_mut() {
            Some(c) => c.cpu.memcpy(now, earliest, bytes),
            None => earliest,
        }
    }

    /// CPU time of issuing one flash operation now; returns when it ends.
    #[inline]
    fn flash_op_cpu(&mut self) -> u64 {
        let now = self.now;
        match self.control.as_mut() {
            Some(c) if c.cpu.flash_op_ns > 0 => {
                let d = c.cpu.flash_op_ns;
                c.cpu.book(now, now, d)
            }
            _ => now,
        }
    }

    /// Host data of `bytes` crosses the link host→device (dir 0) or device→host (dir 1) at or
    /// after `earliest`; returns when it has.
    #[inline(always)]
    pub fn link(&mut self, dir: usize, earliest: u64, bytes: u64) -> u64 {
        let d = self.overhead_ns + self.dma[dir].ns(bytes);
        let idx = if self.duplex { dir } else { 0 };
        let (s, _) = self.links[idx].reserve(self.now, earliest, d, timeline::XFER);
        s + d
    }

    fn new_pending(&mut self, tag: u64, req: &Request, stage: Stage, ready: u64) -> u32 {
        let p = Pending {
            tag,
            req: *req,
            stage,
            remaining: 0,
            ready,
            stream: 0,
        };
        match self.free_pending.pop() {
            Some(i) => {
                self.pending[i as usize] = p;
                i
            }
            None => {
                self.pending.push(p);
                (self.pending.len() - 1) as u32
            }
        }
    }

    /// Queue a host operation on a plane's unit; its completion goes to `token`.
    #[inline]
    pub fn host_op(&mut self, plane: usize, kind: Kind, array_ns: u64, xfer_bytes: u64, data_ready: u64, token: Token) {
        self.unit_op(self.unit_of(plane), kind, array_ns, xfer_bytes, data_ready, token);
    }

    /// Queue a host operation on scheduler unit `unit` (one of the FTL's, or a scheme's
    /// spare chip's); its completion goes to `token`.
    #[inline]
    pub fn unit_op(&mut self, unit: usize, kind: Kind, array_ns: u64, xfer_bytes: u64, data_ready: u64, token: Token) {
        self.bg_active[unit] = false;
        let data_ready = if self.control.is_some() {
            data_ready.max(self.flash_op_cpu())
        } else {
            data_ready
        };
        let (token, tag) = token.split();
        let spec = OpSpec {
            kind,
            class: Class::Host,
            unit,
            array_ns,
            program_ns: 0,
            xfer_ns: xfer_ns(xfer_bytes, self.channel_rate),
            data_ready,
            token,
            tag,
        };
        self.sched.submit(self.now, spec);
    }

    /// Queue the flash operations garbage collection (or wear leveling) has recorded.
    #[inline]
    pub fn queue_gc_ops(&mut self) {
        if self.ftl.gc_ops.is_empty() {
            return;
        }
        let ops = std::mem::take(&mut self.ftl.gc_ops);
        for o in &ops {
            let data = o.units as u64 * self.geo.unit_size;
            let data_ready = if self.control.is_some() {
                let issued = self.flash_op_cpu();
                // The firmware's own GC work: the copied units through DRAM before their
                // program, and the collection's time with its erase.
                let copied = match o.kind {
                    GcOpKind::Read | GcOpKind::Copy => data,
                    GcOpKind::Program | GcOpKind::Erase => 0,
                };
                let now = self.now;
                let c = &mut self.control.as_mut().expect("control").cpu;
                let cost = c.gc_cost(copied, o.kind == GcOpKind::Erase);
                c.book(now, issued, cost)
            } else {
                self.now
            };
            let (kind, out) = match o.kind {
                GcOpKind::Read => (Kind::Read, data),
                GcOpKind::Copy => (Kind::Copy, data),
                GcOpKind::Program => (Kind::Program, self.geo.page_size),
                GcOpKind::Erase => (Kind::Erase, 0),
            };
            let spec = OpSpec {
                kind,
                class: Class::Internal,
                unit: self.unit_of(o.plane as usize),
                array_ns: o.array_ns,
                program_ns: o.program_ns,
                xfer_ns: if self.copyback {
                    0
                } else {
                    xfer_ns(out, self.channel_rate)
                },
                data_ready,
                token: 0,
                tag: scheduler::TAG_REQUEST,
            };
            self.sched.submit(self.now, spec);
        }
        let mut ops = ops;
        ops.clear();
        self.ftl.gc_ops = ops;
    }

    /// True when the unit `pun` is still in the write buffer: in the page being filled, or in
    /// a page handed to the flash whose program has not ended.
    #[inline(always)]
    pub fn buffered(&self, pun: u32) -> bool {
        if self.wbuf.is_none() {
            return false;
        }
        if self.ftl.in_open_page(pun) {
            return true;
        }
        let b = self.geo.block_of_unit(pun);
        let page = self.geo.page_in_block(pun) as u32;
        page < self.prog_issued[b] && page >= self.prog_done[b]
    }

    /// Queue a flash read of `units` units of the page holding `pun` for pending request `pid`.
    #[inline(always)]
    pub fn read_page(&mut self, pid: u32, pun: u32, units: u64) {
        self.flash_read(pun, units, Token::Request(pid));
        self.pending[pid as usize].remaining += 1;
    }

    /// Streaming: queue a flash read of `units` units of the page holding `pun` for read
    /// `pid`, whose data crosses the link once it is in the controller.
    fn read_piece(&mut self, pid: u32, pun: u32, units: u64) {
        let piece = (pid, units * self.geo.unit_size);
        let i = match self.free_pieces.pop() {
            Some(i) => {
                self.pieces[i as usize] = piece;
                i
            }
            None => {
                self.pieces.push(piece);
                (self.pieces.len() - 1) as u32
            }
        };
        self.flash_read(pun, units, Token::Piece(i));
        self.pending[pid as usize].remaining += 1;
    }

    /// Streaming: `bytes` of read `pid`, in the controller at `ready`, cross the link. The
    /// last piece (no page read left) takes what is left of the request's bytes (its
    /// partial first and last units are not whole) and the command overhead, and completes
    /// the request.
    fn send_piece(&mut self, pid: u32, ready: u64, bytes: u64) {
        let p = &mut self.pending[pid as usize];
        let last = p.remaining == 0;
        let bytes = if last { p.stream } else { bytes.min(p.stream) };
        p.stream -= bytes;
        let d = self.dma[1].part_ns(bytes, p.req.len) + if last { self.overhead_ns } else { 0 };
        let idx = if self.duplex { 1 } else { 0 };
        let (s, _) = self.links[idx].reserve(self.now, ready, d, timeline::XFER);
        let p = &mut self.pending[pid as usize];
        p.ready = p.ready.max(s + d);
        if last {
            let done = p.ready;
            self.finish_request(pid, done);
        }
    }

    /// Queue a host-class flash read of `units` units of the page holding `pun`, reported to
    /// `token`.
    #[inline(always)]
    pub fn flash_read(&mut self, pun: u32, units: u64, token: Token) {
        let plane = self.geo.plane_of_block(self.geo.block_of_unit(pun));
        let mut tr = self.read_ns[self.page_type(pun)];
        let mut bytes = units * self.geo.unit_size;
        if self.compression < 1.0 {
            (tr, bytes) = crate::compression::scale(self.compression, tr, bytes);
        }
        let now = self.now;
        self.host_op(plane, Kind::Read, tr, bytes, now, token);
    }

    /// A read arriving now, acted on at once (the engine's own FTL without firmware time).
    #[inline(always)]
    fn read_now(&mut self, now: u64, req: &Request, tag: u64) -> Result<()> {
        let pid = self.new_pending(tag, req, Stage::Read, now);
        self.read_units(pid, req)
    }

    fn read(&mut self, pid: u32) -> Result<()> {
        let req = self.pending[pid as usize].req;
        self.read_units(pid, &req)
    }

    #[inline(always)]
    fn read_units(&mut self, pid: u32, req: &Request) -> Result<()> {
        let us = self.geo.unit_size;
        let first = req.offset / us;
        let last = (req.offset + req.len - 1) / us;
        if self.scheme.is_some() {
            return self.read_scheme(pid, first, last);
        }
        let mut reads = PageReads::default();
        let mut at_once = 0;
        for lpn in first..=last {
            self.counters.host_read_units += 1;
            let pun = self.ftl.lookup(lpn);
            if pun == NONE {
                self.counters.unmapped_read_units += 1;
                at_once += 1;
                continue;
            }
            if self.buffered(pun) {
                self.counters.buffer_read_units += 1;
                at_once += 1;
                continue;
            }
            reads.add(self, pid, pun);
        }
        reads.flush(self, pid);
        if self.pending[pid as usize].remaining == 0 {
            self.finish(pid)?;
        } else if self.streaming {
            // The units that need no flash access cross at once.
            self.pending[pid as usize].stream = req.len;
            if at_once > 0 {
                let ready = self.pending[pid as usize].ready;
                self.send_piece(pid, ready, at_once * us);
            }
        }
        Ok(())
    }

    /// A scheme's host read of unit `lpn` for read `pid` (`read_units` without a scheme).
    fn read_scheme(&mut self, pid: u32, first: u64, last: u64) -> Result<()> {
        for lpn in first..=last {
            self.counters.host_read_units += 1;
            self.scheme_call(|s, d| s.read(d, pid, lpn))?;
        }
        if self.pending[pid as usize].remaining == 0 {
            self.finish(pid)?;
        }
        Ok(())
    }

    /// A flash read of the page holding `pun`, as a part of read `pid` (for a scheme).
    pub fn scheme_read(&mut self, pid: u32, pun: u32) {
        self.counters.host_page_reads += 1;
        self.read_page(pid, pun, self.geo.units_per_page as u64);
    }

    /// Scheduler unit of a physical unit of the FTL.
    #[inline]
    pub fn unit_of_pun(&self, pun: u32) -> usize {
        self.unit_of(self.geo.plane_of_block(self.geo.block_of_unit(pun)))
    }

    /// Scheduler units of the FTL's geometry (a scheme's spare chips' come after).
    pub fn base_units(&self) -> usize {
        self.base_units
    }

    /// Array read and program times per page type (ns).
    pub fn array_times(&self) -> (&[u64], &[u64]) {
        (&self.read_ns, &self.program_ns)
    }

    /// One more part for pending request `pid` to wait for.
    pub fn add_part(&mut self, pid: u32) {
        self.pending[pid as usize].remaining += 1;
    }

    /// Write FTL logical unit `lpn` as one page on the least busy of `planes` (host frontier
    /// 0), its data in the controller at `ready`; the program reports to `token`. Foreground
    /// GC the page needs is queued ahead of it.
    pub fn program_on(
        &mut self,
        planes: impl Iterator<Item = usize>,
        lpn: u64,
        ready: u64,
        token: Token,
    ) -> Result<()> {
        let plane = self.least_busy(planes);
        let page = self.append_page(plane, 0, std::iter::once(lpn))?;
        self.queue_gc_ops();
        self.flash_program(page, ready, token);
        Ok(())
    }

    /// The plane among `planes` whose unit could start a program first; ties go to the one
    /// given the fewest pages so far, then to the first.
    pub fn least_busy(&mut self, planes: impl Iterator<Item = usize>) -> usize {
        let etas = self.sched.etas();
        let now = self.now;
        let counts = &self.given;
        let (pp, dies) = (self.plane_parallel, self.geo.dies);
        let best = planes
            .min_by_key(|&p| (etas[if pp { p } else { p % dies }].max(now), counts[p]))
            .expect("at least one plane");
        self.given[best] += 1;
        best
    }

    /// The plane that receives the next page of host frontier `stream`. A plane at its
    /// valid-data limit ([`Ftl::takes_host`]) is passed over while another plane takes host
    /// pages, so that every plane stays collectable; with none at its limit the choice is
    /// the allocation policy's alone.
    pub fn choose_plane(&mut self, stream: usize) -> usize {
        let ftl = &self.ftl;
        let a = &mut self.alloc[stream];
        let n = self.geo.planes;
        match self.allocation {
            Allocation::RoundRobin => {
                // The next plane in turn that takes host pages (the next in turn when none does).
                let mut p = a.cursor;
                for _ in 1..n {
                    if ftl.takes_host(p) {
                        break;
                    }
                    p = if p + 1 == n { 0 } else { p + 1 };
                }
                if !ftl.takes_host(p) {
                    p = a.cursor;
                }
                a.cursor = if p + 1 == n { 0 } else { p + 1 };
                p
            }
            Allocation::LeastBusy => {
                let etas = self.sched.etas();
                let (now, pp, dies, slack) = (self.now, self.plane_parallel, self.geo.dies, self.slack);
                let eta = |p: usize| etas[if pp { p } else { p % dies }].max(now);
                let mut best = a.least_busy(ftl, slack, now, &eta, true);
                if best == usize::MAX {
                    best = a.least_busy_steered(ftl, slack, now, &eta);
                }
                debug_assert!(best < n, "a plane at the minimum is always eligible");
                a.cursor = if best + 1 == n { 0 } else { best + 1 };
                let had = a.plane_pages[best];
                a.plane_pages[best] = had + 1;
                if had == a.min_pages {
                    a.at_min -= 1;
                    if a.at_min == 0 {
                        a.min_pages += 1;
                        let m = a.min_pages;
                        a.at_min = a.plane_pages.iter().filter(|&&x| x == m).count();
                    }
                }
                best
            }
        }
    }

    /// Queue the program of a completed host page whose data is in the controller at `ready`;
    /// its completion is reported for pending request `pid`, or (buffered) as the page's.
    fn program_page(&mut self, page: PageDone, ready: u64, pid: Option<u32>) {
        let token = match pid {
            Some(p) => Token::Request(p),
            None => Token::Page(page.first_unit),
        };
        self.flash_program(page, ready, token);
    }

    /// Queue the program of a page whose data is in the controller at `ready`, reported to
    /// `token`.
    pub fn flash_program(&mut self, page: PageDone, ready: u64, token: Token) {
        let plane = self.geo.plane_of_block(self.geo.block_of_unit(page.first_unit));
        let mut tp = self.program_ns[self.page_type(page.first_unit)];
        let mut bytes = self.geo.page_size;
        if let Some(m) = self.pslc.as_mut() {
            tp = m.program_ns(&self.ftl, tp);
        }
        if self.compression < 1.0 {
            (tp, bytes) = crate::compression::scale(self.compression, tp, bytes);
        }
        self.host_op(plane, Kind::Program, tp, bytes, ready, token);
    }

    /// Whether host writes fold out of a pseudo-SLC mode (`device.nand.pslc_fold`), as
    /// last counted; None without the mode.
    pub fn pslc_folding(&self) -> Option<bool> {
        self.pslc.as_ref().map(|m| m.folding())
    }

    /// A write arriving now, acted on at once (the engine's own FTL without firmware time):
    /// its data crosses the link first.
    #[inline(always)]
    fn write_now(&mut self, now: u64, req: &Request, tag: u64) -> Result<()> {
        let ready = self.link(0, now, req.len);
        let pid = self.new_pending(tag, req, Stage::Rmw, ready);
        self.pending[pid as usize].stream = ready;
        self.write_units(pid, req, ready)
    }

    fn write(&mut self, pid: u32) -> Result<()> {
        let req = self.pending[pid as usize].req;
        let ready = self.link(0, self.now, req.len);
        self.pending[pid as usize].ready = ready;
        self.pending[pid as usize].stream = ready;
        self.write_units(pid, &req, ready)
    }

    /// The data of write `pid` is in the controller at `ready`.
    #[inline(always)]
    fn write_units(&mut self, pid: u32, req: &Request, ready: u64) -> Result<()> {
        let us = self.geo.unit_size;
        let first = req.offset / us;
        let last = (req.offset + req.len - 1) / us;
        self.counters.host_write_units += last - first + 1;
        // Read-modify-write of partially written mapping units that hold data.
        for lpn in partial_units(req, us) {
            let pun = self.ftl.lookup(lpn);
            if pun != NONE && !self.buffered(pun) {
                self.counters.rmw_page_reads += 1;
                self.read_page(pid, pun, 1);
                if self.merge_late {
                    self.merging.entry(pid).or_default().push((lpn, NONE));
                }
            }
        }
        if self.pending[pid as usize].remaining == 0 {
            self.admit(pid, ready)?;
        } else if self.merge_late {
            // A power-protected buffer takes the data now; the reads end before the programs.
            self.pending[pid as usize].stage = Stage::Merge;
            self.admit(pid, ready)?;
        }
        Ok(())
    }

    /// The data of write `pid` is in the controller at `ready`: place it in the write buffer
    /// (or wait for space), or program it through.
    fn admit(&mut self, pid: u32, ready: u64) -> Result<()> {
        let p = self.pending[pid as usize];
        let bytes = self.units_of(&p.req) * self.geo.unit_size;
        let Some(wb) = self.wbuf.as_mut() else {
            return self.write_through(pid, ready);
        };
        // A request larger than the buffer is taken alone; with nothing in flight nothing
        // would free space, so the write goes in.
        if wb.waiting.is_empty() && (wb.used + bytes <= wb.capacity || wb.inflight == 0) {
            wb.used += bytes;
            self.place_buffered(pid, ready)
        } else {
            wb.waiting.push_back(pid);
            self.counters.buffer_stalls += 1;
            Ok(())
        }
    }

    /// Write logical units `lpns` (at most a page of them) as one page at plane `plane`'s
    /// frontier of `stream`, padding what they leave of the page, with their data in the
    /// controller at `ready`; the program is reported to `token`. Foreground GC the page
    /// needs is queued ahead of it; with `parallel_gc`, every other plane with a candidate
    /// collects one block at the same time.
    pub fn program_units(
        &mut self,
        plane: usize,
        stream: usize,
        lpns: &[u64],
        ready: u64,
        token: Token,
    ) -> Result<PageDone> {
        debug_assert!(!lpns.is_empty() && lpns.len() <= self.geo.units_per_page);
        let fg = self.ftl.stats.gc_runs_foreground;
        let page = self.append_page(plane, stream, lpns.iter().copied())?;
        if self.parallel_gc && self.ftl.stats.gc_runs_foreground > fg {
            for p in 0..self.geo.planes {
                if p != plane && self.ftl.gc_candidates(p) > 0 {
                    self.ftl.gc_once(p)?;
                }
            }
        }
        self.queue_gc_ops();
        self.flash_program(page, ready, token);
        Ok(page)
    }

    /// Append logical units (at most a page of them) at plane `plane`'s frontier of `stream`
    /// as one page, padding what they leave of it.
    fn append_page(&mut self, plane: usize, stream: usize, lpns: impl Iterator<Item = u64>) -> Result<PageDone> {
        let mut page = None;
        for l in lpns {
            page = self.ftl.append_stream(plane, stream, l)?;
        }
        match page {
            Some(p) => Ok(p),
            None => self.ftl.pad_stream(plane, stream).ok_or_else(|| {
                Error::Invalid(format!(
                    "plane {plane}: page neither completed nor open (FTL frontier out of step)"
                ))
            }),
        }
    }

    /// Mapping units a request touches.
    pub fn units_of(&self, req: &Request) -> u64 {
        let us = self.geo.unit_size;
        (req.offset + req.len - 1) / us - req.offset / us + 1
    }

    /// When a page of write `pid` whose last unit is `lpn` may be programmed, its data in the
    /// controller at `ready`. Streaming, that is as soon as the data up to the end of `lpn`
    /// has crossed the link (the request's data arriving at an even rate over its transfer,
    /// after the command overhead), and not before now (read-modify-write reads, or buffer
    /// space, the write waited for).
    #[inline(always)]
    fn page_arrival(&self, pid: u32, lpn: u64, ready: u64) -> u64 {
        if !self.streaming {
            return ready;
        }
        let p = &self.pending[pid as usize];
        let (off, len) = (p.req.offset, p.req.len);
        let bytes = ((lpn + 1) * self.geo.unit_size).min(off + len) - off;
        let d = self.dma[0].ns(len);
        let start = p.stream - d;
        let at = start + (d as u128 * bytes as u128).div_ceil(len as u128) as u64;
        at.max(self.now)
    }

    /// The slots the device's own unplaced writes (preconditioning) take in turn.
    pub fn unplaced_slots(&self) -> Vec<usize> {
        self.placement.as_ref().map_or(vec![0], |p| p.unplaced_slots())
    }

    /// The host write frontier of a write: the placement policy's slot, or its stream modulo
    /// the FTL's streams. Called once per write.
    #[inline]
    fn stream_of(&mut self, req: &Request) -> usize {
        match self.placement.as_mut() {
            None => req.stream as usize % self.filling.len(),
            Some(p) => {
                let slot = p.route(&crate::placement::Write {
                    offset: req.offset,
                    len: req.len,
                    stream: req.stream,
                    clock: self.counters.host_write_units,
                    now_ns: self.now,
                });
                self.slot_host_bytes[slot] += req.len;
                slot
            }
        }
    }

    /// The plane that receives the next page of host frontier `stream`: from the allocation
    /// policy, or a member of the stream's open superblock.
    #[inline]
    fn next_plane(&mut self, stream: usize) -> Result<usize> {
        if self.placement.is_none() {
            return Ok(self.choose_plane(stream));
        }
        let etas = self.sched.etas();
        let now = self.now;
        let (pp, dies) = (self.plane_parallel, self.geo.dies);
        match self.allocation {
            Allocation::RoundRobin => self.ftl.superblock_plane(stream, |_| 0),
            Allocation::LeastBusy => self
                .ftl
                .superblock_plane(stream, |p| etas[if pp { p } else { p % dies }].saturating_sub(now)),
        }
    }

    /// Put a write's units into the buffer's pages; the request completes at `t`.
    fn place_buffered(&mut self, pid: u32, t: u64) -> Result<()> {
        let p = self.pending[pid as usize];
        let us = self.geo.unit_size;
        let first = p.req.offset / us;
        let last = (p.req.offset + p.req.len - 1) / us;
        if self.scheme.is_some() && self.scheme_call(|s, d| s.write(d, pid, first, last, t))? {
            return Ok(());
        }
        let stream = self.stream_of(&p.req);
        for lpn in first..=last {
            let plane = match self.filling[stream] {
                Some(pl) => pl,
                None => {
                    let pl = self.next_plane(stream)?;
                    self.filling[stream] = Some(pl);
                    pl
                }
            };
            let done = self.ftl.append_stream(plane, stream, lpn)?;
            self.queue_gc_ops();
            if p.stage == Stage::Merge {
                if let Some(units) = self.merging.get_mut(&pid) {
                    let pun = self.ftl.lookup(lpn);
                    let upp = self.geo.units_per_page as u32;
                    for m in units.iter_mut().filter(|m| m.0 == lpn) {
                        m.1 = pun;
                        *self.merge_pages.entry(pun - pun % upp).or_default() += 1;
                    }
                }
            }
            if let Some(page) = done {
                let ready = self.page_arrival(pid, lpn, t);
                self.program_buffered(page, ready);
                self.filling[stream] = None;
            }
        }
        if p.stage == Stage::Merge && self.pending[pid as usize].remaining > 0 {
            // Acknowledged; the request stays pending until its reads end.
            self.pending[pid as usize].stage = Stage::Merged;
        } else {
            self.free_pending.push(pid);
        }
        self.complete(p.tag, t);
        Ok(())
    }

    /// Program a page the write buffer has filled, its data in the controller at `ready` (or
    /// hold it while a unit of it is being merged).
    fn program_buffered(&mut self, page: PageDone, ready: u64) {
        let b = self.geo.block_of_unit(page.first_unit);
        let pg = self.geo.page_in_block(page.first_unit) as u32;
        // A host page that does not follow the block's last one starts its buffered
        // pages afresh: the block is in a new life (erased, maybe its first pages
        // filled by GC), or, with a shared frontier, background GC copied pages in
        // between on the idle unit, every earlier host page programmed. The pages
        // before it hold no host data in the buffer.
        if pg != self.prog_issued[b] {
            self.prog_done[b] = pg;
        }
        self.prog_issued[b] = pg + 1;
        self.wbuf.as_mut().expect("buffer").inflight += 1;
        if self.merge_late && self.must_hold(page) {
            self.counters.rmw_held_programs += 1;
            self.held.entry(b).or_default().push_back((page, ready));
        } else {
            self.program_page(page, ready, None);
        }
    }

    /// NVMe's Reclaim Unit Handle Update (FDP; I/O Management Send) at `now` for the
    /// placement identifiers set in `plids` (bit `i`: identifier `i`): each named handle's
    /// open reclaim unit, when partly written, leaves the handle (its page being filled in
    /// the write buffer programmed padded first) and the handle's next write opens a new
    /// one. Identifiers that name no handle are ignored. The reclaim units that left not
    /// fully written are counted in the superblocks' statistics.
    pub fn ruh_update(&mut self, now: u64, plids: u64) -> Result<()> {
        // A placement policy runs on superblocks: slot h is handle h's.
        if self.placement.is_none() {
            return Err(Error::Invalid(
                "a reclaim unit handle update on a device without FDP".into(),
            ));
        }
        // Its data is in the controller from `now` (the host sends it once the writes before
        // it have completed; their completion may lie ahead of the device's clock).
        let ready = self.now.max(now);
        let handles = self.slot_host_bytes.len().min(64);
        for h in (0..handles).filter(|h| plids >> h & 1 == 1) {
            if let Some(plane) = self.filling[h].take() {
                if let Some(page) = self.ftl.pad_stream(plane, h) {
                    self.program_buffered(page, ready);
                }
            }
            self.ftl.retire_open_superblock(h)?;
        }
        Ok(())
    }

    /// Power-protected buffer: whether filled page `page` must wait before its program: it
    /// holds a unit whose old data is being read, or an earlier page of its block is held
    /// (a block's pages are programmed in order).
    fn must_hold(&self, page: PageDone) -> bool {
        self.merge_pages.contains_key(&page.first_unit)
            || self.held.contains_key(&self.geo.block_of_unit(page.first_unit))
    }

    /// Power-protected buffer: write `pid`'s read-modify-write reads have ended; program
    /// the held pages of its units' blocks that no longer wait, in order.
    fn merged(&mut self, pid: u32) {
        let Some(units) = self.merging.remove(&pid) else { return };
        let upp = self.geo.units_per_page as u32;
        for (_, pun) in units.into_iter().filter(|m| m.1 != NONE) {
            let page = pun - pun % upp;
            let n = self.merge_pages.get_mut(&page).expect("a merging page");
            *n -= 1;
            if *n > 0 {
                continue;
            }
            self.merge_pages.remove(&page);
            let b = self.geo.block_of_unit(page);
            let Some(mut q) = self.held.remove(&b) else { continue };
            while let Some(&(h, ready)) = q.front() {
                if self.merge_pages.contains_key(&h.first_unit) {
                    break;
                }
                q.pop_front();
                self.program_page(h, ready.max(self.now), None);
            }
            if !q.is_empty() {
                self.held.insert(b, q);
            }
        }
    }

    /// Program a write's pages directly; the request completes when the last program ends.
    fn write_through(&mut self, pid: u32, ready: u64) -> Result<()> {
        let p = self.pending[pid as usize];
        let us = self.geo.unit_size;
        let upp = self.geo.units_per_page as u64;
        let first = p.req.offset / us;
        let last = (p.req.offset + p.req.len - 1) / us;
        self.pending[pid as usize].stage = Stage::Through;
        self.pending[pid as usize].ready = ready;
        if self.scheme.is_some() && self.scheme_call(|s, d| s.write(d, pid, first, last, ready))? {
            if self.pending[pid as usize].remaining == 0 {
                self.finish(pid)?;
            }
            return Ok(());
        }
        let stream = self.stream_of(&p.req);
        let mut lpn = first;
        while lpn <= last {
            let n = (last - lpn + 1).min(upp);
            let plane = self.next_plane(stream)?;
            let page = self.append_page(plane, stream, lpn..lpn + n)?;
            self.queue_gc_ops();
            self.pending[pid as usize].remaining += 1;
            let at = self.page_arrival(pid, lpn + n - 1, ready);
            self.program_page(page, at, Some(pid));
            lpn += n;
        }
        Ok(())
    }

    /// Every part of pending request `pid` is done.
    fn finish(&mut self, pid: u32) -> Result<()> {
        let p = self.pending[pid as usize];
        if self.firmware.is_some() {
            return self.firmware_call(|fw, d| fw.parts_done(d, pid, p.ready));
        }
        match p.stage {
            Stage::Read => {
                if self.scheme.is_some() {
                    self.scheme_call(|s, d| s.read_done(d, pid, p.ready))?;
                }
                let c = self.link(1, p.ready, p.req.len);
                self.free_pending.push(pid);
                self.complete(p.tag, c);
            }
            Stage::Rmw => self.admit(pid, p.ready)?,
            // Not yet in the buffer: it is placed (and its pages programmed) as any write.
            Stage::Merge => {
                self.merging.remove(&pid);
            }
            Stage::Merged => {
                self.merged(pid);
                self.free_pending.push(pid);
            }
            Stage::Through => {
                self.free_pending.push(pid);
                self.complete(p.tag, p.ready);
            }
        }
        Ok(())
    }

    /// Drop the map entries of the whole mapping units a trim covers.
    pub fn trim(&mut self, req: &Request) {
        let us = self.geo.unit_size;
        // Only whole mapping units are dropped.
        let first = req.offset.div_ceil(us);
        let end = (req.offset + req.len) / us;
        if let Some(p) = self.placement.as_mut() {
            p.trim(req.offset, req.len, self.counters.host_write_units);
        }
        for lpn in first..end {
            self.ftl.trim(lpn);
            self.counters.host_trim_units += 1;
        }
        if self.scheme.is_some() && first < end {
            let _ = self.scheme_call(|s, d| {
                s.trim(d, first, end);
                Ok(())
            });
        }
    }

    /// Act on what the scheduler reported.
    fn handle_notices(&mut self) -> Result<()> {
        while !self.sched.notices.is_empty() {
            std::mem::swap(&mut self.notices, &mut self.sched.notices);
            let mut notices = std::mem::take(&mut self.notices);
            for n in notices.drain(..) {
                match n {
                    Notice::Done { token, tag, time } => self.op_done(token, tag, time)?,
                    Notice::Idle { unit, time } => {
                        if self.bg_active[unit] {
                            self.bg_step(unit)?;
                        } else if !self.draining && self.bg_wanted(unit).is_some() {
                            self.sched.set_timer(unit, time + self.bg_idle_ns);
                        }
                    }
                    Notice::Wake { unit, .. } => {
                        self.bg_active[unit] = true;
                        self.bg_step(unit)?;
                    }
                }
            }
            self.notices = notices;
        }
        Ok(())
    }

    fn op_done(&mut self, token: u32, tag: u8, time: u64) -> Result<()> {
        if tag == scheduler::TAG_FIRMWARE {
            return self.firmware_call(|fw, d| fw.op_done(d, token, time));
        }
        if tag == scheduler::TAG_SCHEME {
            return self.scheme_call(|s, d| s.op_done(d, token, time));
        }
        if tag == scheduler::TAG_PIECE {
            // A streaming read's page is in the controller: its data crosses the link.
            let (pid, bytes) = self.pieces[token as usize];
            self.free_pieces.push(token);
            self.pending[pid as usize].remaining -= 1;
            self.send_piece(pid, time, bytes);
            return Ok(());
        }
        if tag == scheduler::TAG_PAGE {
            // A buffered page is programmed: its buffer space is free.
            let first_unit = token;
            let b = self.geo.block_of_unit(first_unit);
            self.prog_done[b] = self.geo.page_in_block(first_unit) as u32 + 1;
            let page = self.geo.page_size;
            let wb = self.wbuf.as_mut().expect("buffer");
            wb.used -= page.min(wb.used);
            wb.inflight -= 1;
            // Admit waiting writes, in order, while they fit.
            loop {
                let wb = self.wbuf.as_mut().expect("buffer");
                let Some(&pid) = wb.waiting.front() else { break };
                let bytes = self.units_of(&self.pending[pid as usize].req) * self.geo.unit_size;
                let wb = self.wbuf.as_mut().expect("buffer");
                if wb.used + bytes > wb.capacity && wb.inflight > 0 {
                    break;
                }
                wb.waiting.pop_front();
                wb.used += bytes;
                let t = time.max(self.pending[pid as usize].ready);
                self.place_buffered(pid, t)?;
            }
            return Ok(());
        }
        self.part_done(token, time)
    }

    /// One part of pending request `pid` ended at `time`.
    pub fn part_done(&mut self, pid: u32, time: u64) -> Result<()> {
        let p = &mut self.pending[pid as usize];
        if !matches!(p.stage, Stage::Merge | Stage::Merged) {
            // A power-protected buffer's write was acknowledged at its own ready time.
            p.ready = p.ready.max(time);
        }
        p.remaining -= 1;
        if p.remaining == 0 {
            self.finish(pid)?;
        }
        Ok(())
    }

    /// Planes of a unit.
    fn unit_planes(&self, unit: usize) -> impl Iterator<Item = usize> {
        let (step, n) = if self.plane_parallel {
            (1, 1)
        } else {
            (self.geo.dies, self.geo.planes_per_die)
        };
        (0..n).map(move |k| unit + k * step)
    }

    /// A plane of the unit that background GC should work on.
    fn bg_wanted(&self, unit: usize) -> Option<usize> {
        if self.bg_threshold == 0 || unit >= self.base_units {
            return None;
        }
        self.unit_planes(unit).find(|&p| {
            self.ftl.gc_in_progress(p) || (self.ftl.free_blocks(p) < self.bg_threshold && self.ftl.gc_candidates(p) > 0)
        })
    }

    /// One step of background GC on an idle unit.
    fn bg_step(&mut self, unit: usize) -> Result<()> {
        let plane = match self.bg_wanted(unit) {
            Some(p) if !self.draining => p,
            _ => {
                self.bg_active[unit] = false;
                return Ok(());
            }
        };
        if self.ftl.shared_gc_frontier() {
            // GC shares the host frontier: a collection runs whole, so that host units and
            // copies never share a page.
            self.ftl.gc_once(plane)?;
        } else {
            self.ftl.gc_step(plane)?;
        }
        self.queue_gc_ops();
        Ok(())
    }

    /// Arm background GC on idle units that need it (at the start of a run).
    pub fn kick_background(&mut self) -> Result<()> {
        if self.bg_threshold == 0 {
            return Ok(());
        }
        for u in 0..self.sched.units() {
            if self.sched.is_idle(u) && self.bg_wanted(u).is_some() {
                self.sched.set_timer(u, self.now + self.bg_idle_ns);
            }
        }
        Ok(())
    }

    /// Hints that requests at these offsets come soon: prefetch the map entry of `far`, and
    /// what overwriting the data at `near` will touch (its map entry arrived by now).
    #[inline]
    pub fn prefetch(&self, far: Option<u64>, near: Option<u64>) {
        let cap = self.geo.logical_bytes();
        if let Some(o) = far.filter(|&o| o < cap) {
            self.ftl.prefetch(o / self.geo.unit_size);
        }
        if let Some(o) = near.filter(|&o| o < cap) {
            self.ftl.prefetch_old(o / self.geo.unit_size);
        }
    }

    /// The FTL's invariants, then the firmware design's own (its buffers and caches against
    /// the map).
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        self.ftl.check_invariants()?;
        if let Some(s) = self.scheme.as_deref() {
            s.check(self).map_err(|m| format!("{} scheme: {m}", s.name()))?;
        }
        self.check_firmware()
            .map_err(|m| format!("{} design: {m}", self.firmware.as_deref().map_or("", |f| f.name())))
    }

    /// Free blocks in the whole device.
    pub fn free_blocks(&self) -> usize {
        self.ftl.total_free_blocks()
    }
}

/// The device's mechanisms as designs and schemes see them: each its inherent method.
impl Mechanisms for Device {
    #[inline]
    fn now(&self) -> u64 {
        Device::now(self)
    }
    #[inline]
    fn pending(&self, pid: u32) -> &Pending {
        Device::pending(self, pid)
    }
    #[inline]
    fn pending_mut(&mut self, pid: u32) -> &mut Pending {
        Device::pending_mut(self, pid)
    }
    #[inline]
    fn geo(&self) -> &Geometry {
        &self.geo
    }
    #[inline]
    fn ftl(&self) -> &Ftl {
        &self.ftl
    }
    #[inline]
    fn ftl_mut(&mut self) -> &mut Ftl {
        &mut self.ftl
    }
    #[inline]
    fn sched(&self) -> &Scheduler {
        &self.sched
    }
    #[inline]
    fn counters_mut(&mut self) -> &mut DeviceCounters {
        &mut self.counters
    }
    #[inline]
    fn streaming(&self) -> bool {
        self.streaming
    }
    #[inline]
    fn unit_of_pun(&self, pun: u32) -> usize {
        Device::unit_of_pun(self, pun)
    }
    #[inline]
    fn read_page(&mut self, pid: u32, pun: u32, units: u64) {
        Device::read_page(self, pid, pun, units)
    }
    #[inline]
    fn read_piece(&mut self, pid: u32, pun: u32, units: u64) {
        Device::read_piece(self, pid, pun, units)
    }
    fn scheme_read(&mut self, pid: u32, pun: u32) {
        Device::scheme_read(self, pid, pun)
    }
    fn flash_read(&mut self, pun: u32, units: u64, token: Token) {
        Device::flash_read(self, pun, units, token)
    }
    fn link(&mut self, dir: usize, earliest: u64, bytes: u64) -> u64 {
        Device::link(self, dir, earliest, bytes)
    }
    fn deliver(&mut self, pid: u32, ready: u64) {
        Device::deliver(self, pid, ready)
    }
    fn finish_request(&mut self, pid: u32, t: u64) {
        Device::finish_request(self, pid, t)
    }
    fn unit_op(&mut self, unit: usize, kind: Kind, array_ns: u64, xfer_bytes: u64, data_ready: u64, token: Token) {
        Device::unit_op(self, unit, kind, array_ns, xfer_bytes, data_ready, token)
    }
    fn trim(&mut self, req: &Request) {
        Device::trim(self, req)
    }
    fn program_units(
        &mut self,
        plane: usize,
        stream: usize,
        lpns: &[u64],
        ready: u64,
        token: Token,
    ) -> Result<PageDone> {
        Device::program_units(self, plane, stream, lpns, ready, token)
    }
    fn program_on(
        &mut self,
        planes: &mut dyn Iterator<Item = usize>,
        lpn: u64,
        ready: u64,
        token: Token,
    ) -> Result<()> {
        Device::program_on(self, planes, lpn, ready, token)
    }
    fn memcpy(&mut self, earliest: u64, bytes: u64) -> u64 {
        Device::memcpy(self, earliest, bytes)
    }
    fn cpu(&mut self, earliest: u64, dur: u64) -> u64 {
        Device::cpu(self, earliest, dur)
    }
    fn home_plane(&self, lpn: u64) -> Option<usize> {
        Device::home_plane(self, lpn)
    }
    fn add_part(&mut self, pid: u32) {
        Device::add_part(self, pid)
    }
    fn part_done(&mut self, pid: u32, time: u64) -> Result<()> {
        Device::part_done(self, pid, time)
    }
    fn choose_plane(&mut self, stream: usize) -> usize {
        Device::choose_plane(self, stream)
    }
    fn array_times(&self) -> (&[u64], &[u64]) {
        Device::array_times(self)
    }
    fn fill_units(&self, lpn: u64, out: &mut dyn FnMut(u64)) {
        Device::fill_units(self, lpn, out)
    }
    fn channel_idle(&self, ch: usize) -> bool {
        Device::channel_idle(self, ch)
    }
    fn buffered(&self, pun: u32) -> bool {
        Device::buffered(self, pun)
    }
}
