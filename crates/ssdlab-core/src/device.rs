//! One simulated SSD: host interface, DRAM write buffer, FTL and the NAND back end with a
//! timeline per resource (host link direction, channel, plane or die).
//!
//! Requests are submitted in arrival order; each reserves the resources it needs in the order
//! the hardware would use them and gets its completion time back:
//! - read: per flash page, array read tR on its plane (cache read: the array is free again
//!   after tR), then the data out on the channel; then the whole request on the host link.
//! - write: the data over the host link (with a read-modify-write read first for a partial
//!   mapping unit); then, per page, data in on the channel and tPROG on the plane. With a
//!   write buffer the request completes once its data is in DRAM (waiting for space if the
//!   buffer is full) and pages are programmed when full; without one it completes when its
//!   last page is programmed, a partly filled page being programmed padded.
//! - trim: the command over the link; the map entries are dropped.
//!
//! GC work is booked on the plane's timeline as one interval (copyback reads, programs, erase).

use crate::config::{Allocation, DeviceConfig};
use crate::ftl::{Ftl, FtlParams, PageDone, NONE};
use crate::geometry::Geometry;
use crate::request::{Op, Request};
use crate::timeline::{self, Timeline};
use crate::{Error, Result};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Counters of the device layer (the FTL keeps its own).
#[derive(Clone, Debug, Default, Serialize)]
pub struct DeviceCounters {
    pub host_read_units: u64,
    pub host_write_units: u64,
    pub host_trim_units: u64,
    /// Flash page reads serving host reads.
    pub host_page_reads: u64,
    /// Flash page reads for read-modify-write of partial mapping units.
    pub rmw_page_reads: u64,
    /// Host read units never written (served without flash access).
    pub unmapped_read_units: u64,
    /// Host read units served from the write buffer.
    pub buffer_read_units: u64,
    /// Flash reads that waited behind a program or erase on their plane/die.
    pub interference_reads: u64,
    pub foreground_gc: u64,
    pub background_gc: u64,
    /// Writes that waited for write-buffer space.
    pub buffer_stalls: u64,
}

struct WriteBuffer {
    capacity: u64,
    used: u64,
    releases: BinaryHeap<Reverse<(u64, u64)>>,
}

impl WriteBuffer {
    /// Take `bytes` of buffer at or after `t`; returns when the space was available.
    fn acquire(&mut self, mut t: u64, bytes: u64) -> (u64, bool) {
        let mut stalled = false;
        while let Some(&Reverse((rt, rb))) = self.releases.peek() {
            if rt <= t || self.used + bytes > self.capacity {
                if rt > t {
                    t = rt;
                    stalled = true;
                }
                self.releases.pop();
                self.used -= rb;
            } else {
                break;
            }
        }
        self.used += bytes;
        (t, stalled)
    }
}

pub struct Device {
    pub name: String,
    pub geo: Geometry,
    pub ftl: Ftl,
    read_ns: Vec<u64>,
    program_ns: Vec<u64>,
    channel_rate: u64,
    link_rate: u64,
    overhead_ns: u64,
    /// [host→device, device→host]; one shared timeline when half duplex.
    links: Vec<Timeline>,
    duplex: bool,
    channels: Vec<Timeline>,
    arrays: Vec<Timeline>,
    plane_parallel: bool,
    allocation: Allocation,
    cursor: usize,
    /// Plane whose open page the write buffer is filling.
    filling: Option<usize>,
    wbuf: Option<WriteBuffer>,
    bg_threshold: usize,
    bg_idle_ns: u64,
    now: u64,
    pub counters: DeviceCounters,
}

/// ceil(bytes / rate) in ns.
#[inline]
pub fn xfer_ns(bytes: u64, rate: u64) -> u64 {
    ((bytes as u128 * 1_000_000_000).div_ceil(rate as u128)) as u64
}

impl Device {
    pub fn new(cfg: &DeviceConfig, seed: u64) -> Result<Device> {
        let geo = Geometry::from_config(cfg, &cfg.name)?;
        let read_ns = cfg.read_ns();
        let program_ns = cfg.program_ns();
        let params = FtlParams {
            gc_policy: cfg.ftl.gc_policy.clone(),
            gc_d: cfg.ftl.gc_d,
            gc_threshold: cfg.ftl.gc_threshold,
            endurance: cfg.nand.endurance,
            static_wl_threshold: cfg.ftl.static_wl_threshold,
            gc_shared_frontier: cfg.ftl.gc_frontier == "shared",
            read_ns: read_ns.clone(),
            program_ns: program_ns.clone(),
            erase_ns: cfg.nand.erase.0,
            seed,
        };
        let ftl = Ftl::new(geo.clone(), params)?;
        let duplex = cfg.host.interface.full_duplex();
        let arrays = if cfg.nand.plane_parallel { geo.planes } else { geo.dies };
        let wb = cfg.ftl.write_buffer.0;
        if wb > 0 && wb < geo.page_size {
            return Err(Error::Config(format!(
                "device.ftl.write_buffer: at least one page ({} bytes) or 0",
                geo.page_size
            )));
        }
        Ok(Device {
            name: cfg.name.clone(),
            read_ns,
            program_ns,
            channel_rate: cfg.nand.channel_rate.0,
            link_rate: cfg.link_bandwidth(),
            overhead_ns: cfg.host.command_overhead.0,
            links: vec![Timeline::default(); if duplex { 2 } else { 1 }],
            duplex,
            channels: vec![Timeline::default(); geo.channels],
            arrays: vec![Timeline::default(); arrays],
            plane_parallel: cfg.nand.plane_parallel,
            allocation: cfg.ftl.allocation,
            cursor: 0,
            filling: None,
            wbuf: (wb > 0).then(|| WriteBuffer {
                capacity: wb,
                used: 0,
                releases: BinaryHeap::new(),
            }),
            bg_threshold: cfg.ftl.bg_gc_threshold as usize,
            bg_idle_ns: cfg.ftl.bg_gc_idle.0,
            now: 0,
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

    #[inline]
    fn array_of(&self, plane: usize) -> usize {
        if self.plane_parallel {
            plane
        } else {
            self.geo.die_of_plane(plane)
        }
    }

    #[inline]
    fn page_type(&self, pun: u32) -> usize {
        self.geo.page_in_block(pun) % self.read_ns.len()
    }

    /// Busy time of every timeline: (links, channels, arrays).
    pub fn busy(&self) -> (Vec<u64>, Vec<u64>, Vec<u64>) {
        let f = |v: &Vec<Timeline>| v.iter().map(|t| t.busy_ns).collect();
        (f(&self.links), f(&self.channels), f(&self.arrays))
    }

    /// Submit a request arriving at `now` (non-decreasing across calls); returns its
    /// completion time.
    pub fn submit(&mut self, now: u64, req: &Request) -> Result<u64> {
        if now < self.now {
            return Err(Error::Invalid(format!(
                "request at {now} ns submitted after {} ns",
                self.now
            )));
        }
        self.now = now;
        let cap = self.geo.logical_bytes();
        if req.len == 0 || req.offset.checked_add(req.len).is_none_or(|e| e > cap) {
            return Err(Error::Invalid(format!(
                "request at offset {} of {} bytes is outside the logical capacity ({cap} bytes)",
                req.offset, req.len
            )));
        }
        match req.op {
            Op::Read => self.read(now, req),
            Op::Write => self.write(now, req),
            Op::Trim => self.trim(now, req),
        }
    }

    #[inline]
    fn link(&mut self, dir: usize, earliest: u64, bytes: u64) -> u64 {
        let d = self.overhead_ns + xfer_ns(bytes, self.link_rate);
        let idx = if self.duplex { dir } else { 0 };
        let (s, _) = self.links[idx].reserve(self.now, earliest, d, timeline::XFER);
        s + d
    }

    /// Background GC: a plane idle for `bg_gc_idle` with few free blocks collects in the idle
    /// time (checked lazily when the plane is next used).
    #[inline]
    fn background_gc(&mut self, plane: usize) -> Result<()> {
        if self.bg_threshold == 0 {
            return Ok(());
        }
        let a = self.array_of(plane);
        let mut guard = 0;
        while self.ftl.free_blocks(plane) < self.bg_threshold && guard < 64 {
            let start = self.arrays[a].last_end() + self.bg_idle_ns;
            if start > self.now || !self.ftl.gc_once(plane)? {
                break;
            }
            self.counters.background_gc += 1;
            for w in std::mem::take(&mut self.ftl.gc_work) {
                let a = self.array_of(w.plane);
                self.arrays[a].reserve(self.now, start, w.busy_ns, timeline::ERASE);
            }
            guard += 1;
        }
        Ok(())
    }

    /// Book pending GC work (foreground) at the current time.
    #[inline]
    fn book_gc(&mut self) {
        if self.ftl.gc_work.is_empty() {
            return;
        }
        for w in std::mem::take(&mut self.ftl.gc_work) {
            self.counters.foreground_gc += 1;
            let a = self.array_of(w.plane);
            self.arrays[a].reserve(self.now, self.now, w.busy_ns, timeline::ERASE);
        }
    }

    /// Read `units` units of one flash page starting at `pun` no earlier than `t`; returns
    /// when the data is in the controller.
    #[inline]
    fn read_page(&mut self, t: u64, pun: u32, units: u64) -> Result<u64> {
        let plane = self.geo.plane_of_block(self.geo.block_of_unit(pun));
        self.background_gc(plane)?;
        let tr = self.read_ns[self.page_type(pun)];
        let a = self.array_of(plane);
        let (s, waited) = self.arrays[a].reserve(self.now, t, tr, timeline::READ);
        if waited & timeline::WRITE_KINDS != 0 {
            self.counters.interference_reads += 1;
        }
        let x = xfer_ns(units * self.geo.unit_size, self.channel_rate);
        let ch = self.geo.channel_of_plane(plane);
        let (cs, _) = self.channels[ch].reserve(self.now, s + tr, x, timeline::XFER);
        Ok(cs + x)
    }

    fn read(&mut self, now: u64, req: &Request) -> Result<u64> {
        let us = self.geo.unit_size;
        let first = req.offset / us;
        let last = (req.offset + req.len - 1) / us;
        let upp = self.geo.units_per_page as u64;
        let mut done = now;
        let mut cur_page = u64::MAX;
        let mut cur_first = 0u32;
        let mut cur_units = 0u64;
        for lpn in first..=last {
            self.counters.host_read_units += 1;
            let pun = self.ftl.lookup(lpn);
            if pun == NONE {
                self.counters.unmapped_read_units += 1;
                continue;
            }
            if self.wbuf.is_some() && self.ftl.in_open_page(pun) {
                self.counters.buffer_read_units += 1;
                continue;
            }
            let page = pun as u64 / upp;
            if page == cur_page {
                cur_units += 1;
                continue;
            }
            if cur_units > 0 {
                done = done.max(self.host_read_page(now, cur_first, cur_units)?);
            }
            cur_page = page;
            cur_first = pun;
            cur_units = 1;
        }
        if cur_units > 0 {
            done = done.max(self.host_read_page(now, cur_first, cur_units)?);
        }
        Ok(self.link(1, done, req.len))
    }

    /// A flash page read serving a host read.
    #[inline]
    fn host_read_page(&mut self, now: u64, pun: u32, units: u64) -> Result<u64> {
        self.counters.host_page_reads += 1;
        self.read_page(now, pun, units)
    }

    fn choose_plane(&mut self) -> usize {
        match self.allocation {
            Allocation::RoundRobin => {
                let p = self.cursor;
                self.cursor = if p + 1 == self.geo.planes { 0 } else { p + 1 };
                p
            }
            Allocation::LeastBusy => {
                // The plane whose array frees up first; ties go round robin.
                let n = self.geo.planes;
                let mut best = self.cursor;
                let mut best_t = u64::MAX;
                for i in 0..n {
                    let p = (self.cursor + i) % n;
                    let t = self.arrays[self.array_of(p)].last_end();
                    if t < best_t {
                        best_t = t;
                        best = p;
                    }
                }
                self.cursor = (best + 1) % n;
                best
            }
        }
    }

    /// Program a completed page no earlier than `t`; returns when the program ends.
    #[inline]
    fn program_page(&mut self, t: u64, page: PageDone) -> u64 {
        let plane = self.geo.plane_of_block(self.geo.block_of_unit(page.first_unit));
        let x = xfer_ns(self.geo.page_size, self.channel_rate);
        let ch = self.geo.channel_of_plane(plane);
        let (cs, _) = self.channels[ch].reserve(self.now, t, x, timeline::XFER);
        let tp = self.program_ns[self.page_type(page.first_unit)];
        let a = self.array_of(plane);
        let (ps, _) = self.arrays[a].reserve(self.now, cs + x, tp, timeline::PROGRAM);
        ps + tp
    }

    fn write(&mut self, now: u64, req: &Request) -> Result<u64> {
        let us = self.geo.unit_size;
        let first = req.offset / us;
        let last = (req.offset + req.len - 1) / us;
        let units = last - first + 1;
        self.counters.host_write_units += units;
        let mut ready = self.link(0, now, req.len);
        // Read-modify-write of partially written mapping units that hold data.
        let head_partial = !req.offset.is_multiple_of(us);
        let tail_partial = !(req.offset + req.len).is_multiple_of(us);
        for (partial, lpn) in [
            (head_partial, first),
            (tail_partial && (last != first || !head_partial), last),
        ] {
            if !partial {
                continue;
            }
            let pun = self.ftl.lookup(lpn);
            if pun != NONE && !(self.wbuf.is_some() && self.ftl.in_open_page(pun)) {
                let t = self.read_page(now, pun, 1)?;
                self.counters.rmw_page_reads += 1;
                ready = ready.max(t);
            }
        }
        if self.wbuf.is_some() {
            let wb = self.wbuf.as_mut().expect("buffer");
            let (t, stalled) = wb.acquire(ready, units * us);
            self.counters.buffer_stalls += stalled as u64;
            for lpn in first..=last {
                let plane = match self.filling {
                    Some(p) => p,
                    None => {
                        let p = self.choose_plane();
                        self.background_gc(p)?;
                        self.filling = Some(p);
                        p
                    }
                };
                let done = self.ftl.append_host(plane, lpn)?;
                self.book_gc();
                if let Some(page) = done {
                    let end = self.program_page(t, page);
                    let wb = self.wbuf.as_mut().expect("buffer");
                    wb.releases.push(Reverse((end, self.geo.page_size)));
                    self.filling = None;
                }
            }
            Ok(t)
        } else {
            let upp = self.geo.units_per_page as u64;
            let mut done = ready;
            let mut lpn = first;
            while lpn <= last {
                let n = (last - lpn + 1).min(upp);
                let plane = self.choose_plane();
                self.background_gc(plane)?;
                let mut page = None;
                for l in lpn..lpn + n {
                    page = self.ftl.append_host(plane, l)?;
                    self.book_gc();
                }
                let page = match page {
                    Some(p) => p,
                    None => self.ftl.pad_host(plane).ok_or_else(|| {
                        Error::Invalid(format!(
                            "plane {plane}: write-through page neither completed nor open (FTL frontier out of step)"
                        ))
                    })?,
                };
                done = done.max(self.program_page(ready, page));
                lpn += n;
            }
            Ok(done)
        }
    }

    fn trim(&mut self, now: u64, req: &Request) -> Result<u64> {
        let us = self.geo.unit_size;
        // Only whole mapping units are dropped.
        let first = req.offset.div_ceil(us);
        let end = (req.offset + req.len) / us;
        for lpn in first..end {
            self.ftl.trim(lpn);
            self.counters.host_trim_units += 1;
        }
        Ok(self.link(0, now, 0))
    }

    /// Utilisation of the device's free pools: free blocks in the whole device.
    pub fn free_blocks(&self) -> usize {
        self.ftl.total_free_blocks()
    }
}
