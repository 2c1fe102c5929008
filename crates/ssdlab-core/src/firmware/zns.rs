//! Design "zns": a zoned namespace (NVMe ZNS) on the device's flash.
//!
//! The zones' state machine is [`crate::zones`]; this design gives it time and flash work.
//!
//! **Layout.** Zone `z` owns blocks `[z·B, (z+1)·B)` of every plane, `B` the fewest blocks per
//! plane that hold the zone's capacity in pages striped over all planes. The zone's page `j`
//! (its bytes `[j·page, (j+1)·page)` from the zone's start) is on plane `j mod P`, page
//! `⌊j / P⌋` of the zone's blocks there. A zone's data so spreads over every plane from its
//! first pages on, as a drive needs it to for one zone to reach the flash's whole write
//! bandwidth. No map: an LBA's place follows from its zone and offset; no GC: a zone's blocks
//! hold only its data and are erased when it is reset.
//!
//! **Writes and appends.** An append takes `append_time` of firmware time more than a write
//! (the LBA chosen and returned), a write or append that opens its zone `open_time` more (an
//! explicit open is a command of its own, taking the command time). The command is checked by the state machine (write pointer, zone
//! state, open and active limits, boundaries; a failure ends the run with NVMe's status
//! named). Its data crosses the host link into the write buffer (power-loss protected: the
//! write completes there); it waits in arrival order when the buffer is full. A zone's data is
//! programmed page by page as its pages fill, in order; a page's buffer space is freed when its
//! program ends. A zone filled to its capacity programs its last, partial page padded.
//!
//! **Reads.** A page whose program has ended is read from flash (tR and the bytes read over
//! the channel); one still in the buffer is served from DRAM; LBAs at or past the write
//! pointer hold no data and need no flash.
//!
//! **Management.** Open and close change states only: their time is the controller's command
//! time. Finish pads the zone: every page from the end of the data to the capacity's end is
//! programmed (the partial page in the buffer included), the command completes when the last
//! padding program ends; a zone with nothing written is finished without padding. Reset takes
//! firmware time (`reset_time`, plus `reset_lba_time` per LBA the zone held); the zone's
//! written blocks are erased after it, ahead of any later program on their planes (each
//! plane's queue keeps its order); its data still in the buffer is dropped. A full zone's
//! reset completes when the firmware time ends, its erases left to the background. An open or
//! closed zone's blocks are partly programmed: they are erased first and the firmware time
//! follows, so its reset takes an erase longer (the ZN540's resets of open zones take about
//! one erase longer than those of finished zones holding as much, docs/zns.md); one with
//! nothing programmed yet (its data in the buffer) erases nothing.
//!
//! Counters: `zone_pages_programmed` (host data), `zone_padding_pages`, `zone_erases`,
//! `zone_resets`, `zone_finishes`, `zone_implicit_closes`. The flash write amplification is
//! (programmed + padding) / programmed.

use super::Firmware;
use crate::device_config::DeviceConfig;
use crate::error::Error;
use crate::ftl::config::ZoneConfig;
use crate::mechanisms::{Mechanisms, Token};
use crate::request::Op;
use crate::scheduler::Kind;
use crate::zones::{Effect, Zones};
use crate::Result;
use std::collections::{BTreeSet, VecDeque};

/// What one of the design's flash operations is.
#[derive(Clone, Copy, Debug)]
enum Job {
    /// A page of zone data: the buffer bytes it frees, and the page (zone, index).
    Program { bytes: u64, zone: u32, page: u64 },
    /// A padding program of a finish (the command `pid` waits for it); `bytes` of host data
    /// in the buffer it frees (the zone's partial page), and the page.
    Pad { pid: u32, bytes: u64, zone: u32, page: u64 },
    /// An erase of a reset zone's block; `Some(pid)`: the reset command waits for it.
    Erase(Option<u32>),
}

pub struct Zns {
    zones: Zones,
    lba: u64,
    page: u64,
    planes: u64,
    /// Blocks per plane each zone owns.
    blocks: u64,
    pages_per_block: u64,
    units_per_page: u64,
    units_per_block: u64,
    blocks_per_plane: u64,
    /// Pages of a zone's capacity.
    cap_pages: u64,
    /// Pages of each zone programmed or queued for programming.
    programmed: Vec<u64>,
    /// Bytes of each zone's data that entered the buffer (the writes admitted so far).
    admitted: Vec<u64>,
    /// (zone, page) whose programs are under way: their data is still in the buffer.
    in_flight: BTreeSet<(u32, u64)>,
    buffer: u64,
    buffered: u64,
    /// Writes waiting for buffer space: (request, bytes, data in at).
    waiting: VecDeque<(u32, u64, u64)>,
    jobs: Vec<Option<Job>>,
    free_jobs: Vec<u32>,
    /// Flash operations each finish (its padding) or open zone's reset (its erases) still
    /// waits for: (pid, count, latest end, firmware time after the last).
    finishing: Vec<(u32, u64, u64, u64)>,
    reset_time: u64,
    reset_lba_time: u64,
    append_time: u64,
    open_time: u64,
    /// Host bytes written (appends included).
    host_bytes: u64,
    pages_programmed: u64,
    padding_pages: u64,
    erases: u64,
    resets: u64,
    finishes: u64,
    implicit_closes: u64,
}

/// Blocks per plane a zone of `z`'s capacity needs on `cfg`'s geometry.
fn blocks_per_zone(cfg: &DeviceConfig, z: &ZoneConfig) -> u64 {
    let g = &cfg.geometry;
    let planes = g.channels as u64 * g.ways as u64 * g.dies_per_chip as u64 * g.planes_per_die as u64;
    let pages = z.capacity.0.div_ceil(g.page_size.0.max(1));
    pages
        .div_ceil(planes.max(1))
        .div_ceil((g.pages_per_block as u64).max(1))
}

/// The zones' keys against each other and the device.
pub fn check(cfg: &DeviceConfig) -> std::result::Result<(), (String, String)> {
    let Some(z) = &cfg.ftl.zones else {
        return Err((
            "zones".into(),
            "missing; expected a [device.ftl.zones] table (count, size, capacity) with design \"zns\"".into(),
        ));
    };
    let k = |s: &str| format!("zones.{s}");
    let lba = z.lba.0;
    if !(512..=65536).contains(&lba) || !lba.is_power_of_two() {
        return Err((
            k("lba"),
            format!("got {lba} bytes; expected a power of two from 512 B to 64 KiB"),
        ));
    }
    if z.count == 0 {
        return Err((k("count"), "got 0; expected at least one zone".into()));
    }
    let unit = cfg.geometry.mapping_unit.0.max(1);
    if z.size.0 == 0 || z.size.0 % lba != 0 || z.size.0 % unit != 0 {
        return Err((
            k("size"),
            format!("got {} bytes; expected a positive multiple of the LBA size ({lba} B) and of the mapping unit ({unit} B)", z.size.0),
        ));
    }
    if z.capacity.0 == 0 || z.capacity.0 % lba != 0 || z.capacity.0 > z.size.0 {
        return Err((
            k("capacity"),
            format!(
                "got {} bytes; expected a positive multiple of the LBA size ({lba} B) at most the zone size ({} B)",
                z.capacity.0, z.size.0
            ),
        ));
    }
    if z.max_open > 0 && z.max_active > 0 && z.max_open > z.max_active {
        return Err((
            k("max_open"),
            format!(
                "got {} open zones above {} active ones; expected at most max_active (an open zone is active)",
                z.max_open, z.max_active
            ),
        ));
    }
    for (key, d) in [
        ("reset_time", z.reset_time),
        ("reset_lba_time", z.reset_lba_time),
        ("append_time", z.append_time),
        ("open_time", z.open_time),
    ] {
        if d.0 > 1_000_000_000 {
            return Err((k(key), format!("got {} ns; expected at most 1s", d.0)));
        }
    }
    let b = blocks_per_zone(cfg, z);
    let have = cfg.geometry.blocks_per_plane as u64;
    if z.count as u64 * b > have {
        return Err((
            k("count"),
            format!(
                "got {} zones of {b} blocks per plane each, {} blocks; expected at most {} zones on {have} blocks per plane",
                z.count,
                z.count as u64 * b,
                have / b.max(1)
            ),
        ));
    }
    if cfg.ftl.write_buffer.0 < cfg.geometry.page_size.0 {
        return Err((
            "write_buffer".into(),
            format!(
                "got {} bytes; expected at least a page ({} B): the zoned design acknowledges writes from its buffer",
                cfg.ftl.write_buffer.0, cfg.geometry.page_size.0
            ),
        ));
    }
    Ok(())
}

/// The device's zones as a fio job on it sees them (None: the device is not zoned).
pub fn host_view(cfg: &DeviceConfig) -> Option<crate::workload::zbd::DeviceZones> {
    let z = cfg.ftl.zones.as_ref().filter(|_| cfg.ftl.design == "zns")?;
    Some(crate::workload::zbd::DeviceZones {
        size: z.size.0,
        capacity: z.capacity.0,
        count: z.count as u64,
        max_open: z.max_open,
    })
}

/// Build the design for a device configuration.
pub fn make(cfg: &DeviceConfig) -> Result<Box<dyn Firmware>> {
    let z = cfg
        .ftl
        .zones
        .as_ref()
        .ok_or_else(|| Error::Invalid("design \"zns\" without [device.ftl.zones]".into()))?;
    let g = &cfg.geometry;
    let planes = g.channels as u64 * g.ways as u64 * g.dies_per_chip as u64 * g.planes_per_die as u64;
    let lba = z.lba.0;
    let units_per_page = g.page_size.0 / g.mapping_unit.0.max(1);
    Ok(Box::new(Zns {
        zones: Zones::new(z.count, z.size.0 / lba, z.capacity.0 / lba, z.max_open, z.max_active),
        lba,
        page: g.page_size.0,
        planes,
        blocks: blocks_per_zone(cfg, z),
        pages_per_block: g.pages_per_block as u64,
        units_per_page,
        units_per_block: units_per_page * g.pages_per_block as u64,
        blocks_per_plane: g.blocks_per_plane as u64,
        cap_pages: z.capacity.0.div_ceil(g.page_size.0),
        programmed: vec![0; z.count as usize],
        admitted: vec![0; z.count as usize],
        in_flight: BTreeSet::new(),
        buffer: cfg.ftl.write_buffer.0,
        buffered: 0,
        waiting: VecDeque::new(),
        jobs: Vec::new(),
        free_jobs: Vec::new(),
        finishing: Vec::new(),
        reset_time: z.reset_time.0,
        reset_lba_time: z.reset_lba_time.0,
        append_time: z.append_time.0,
        open_time: z.open_time.0,
        host_bytes: 0,
        pages_programmed: 0,
        padding_pages: 0,
        erases: 0,
        resets: 0,
        finishes: 0,
        implicit_closes: 0,
    }))
}

impl Zns {
    /// The first physical unit of zone `z`'s page `j`, and its page index in its block.
    fn place(&self, z: u32, j: u64) -> (u32, u64) {
        let plane = j % self.planes;
        let k = j / self.planes;
        let block = plane * self.blocks_per_plane + z as u64 * self.blocks + k / self.pages_per_block;
        let page_in_block = k % self.pages_per_block;
        (
            (block * self.units_per_block + page_in_block * self.units_per_page) as u32,
            page_in_block,
        )
    }

    fn job(&mut self, j: Job) -> u32 {
        match self.free_jobs.pop() {
            Some(t) => {
                self.jobs[t as usize] = Some(j);
                t
            }
            None => {
                self.jobs.push(Some(j));
                (self.jobs.len() - 1) as u32
            }
        }
    }

    /// Program zone `z`'s page `j` from `ready` on.
    fn program(&mut self, dev: &mut dyn Mechanisms, z: u32, j: u64, ready: u64, job: Job) {
        let (pun, pib) = self.place(z, j);
        let unit = dev.unit_of_pun(pun);
        let t = {
            let p = dev.array_times().1;
            p[pib as usize % p.len()]
        };
        let tok = self.job(job);
        self.in_flight.insert((z, j));
        // The device's flash counters (its write amplification) count every page programmed,
        // padding included.
        dev.ftl_mut().stats.host_pages_programmed += 1;
        dev.unit_op(unit, Kind::Program, t, self.page, ready, Token::Firmware(tok));
    }

    /// Zone `z`'s next page to program (taken).
    fn next_page(&mut self, z: u32) -> u64 {
        let j = self.programmed[z as usize];
        self.programmed[z as usize] += 1;
        j
    }

    /// Program the pages of zone `z` the buffer holds whole, from `ready` on.
    fn program_full_pages(&mut self, dev: &mut dyn Mechanisms, z: u32, ready: u64) {
        let full = (self.admitted[z as usize] / self.page).min(self.cap_pages);
        while self.programmed[z as usize] < full {
            let j = self.next_page(z);
            self.pages_programmed += 1;
            self.program(
                dev,
                z,
                j,
                ready,
                Job::Program {
                    bytes: self.page,
                    zone: z,
                    page: j,
                },
            );
        }
    }

    /// Bytes of zone `z`'s data in the buffer past its programmed pages (its partial page).
    fn partial(&self, z: u32) -> u64 {
        self.admitted[z as usize].saturating_sub(self.programmed[z as usize] * self.page)
    }

    /// Zone `z` was filled: its last, partial page is programmed padded.
    fn program_last(&mut self, dev: &mut dyn Mechanisms, z: u32, ready: u64) {
        let rest = self.partial(z);
        if rest > 0 && self.programmed[z as usize] < self.cap_pages {
            let j = self.next_page(z);
            self.pages_programmed += 1;
            self.program(
                dev,
                z,
                j,
                ready,
                Job::Program {
                    bytes: rest,
                    zone: z,
                    page: j,
                },
            );
        }
    }

    fn zone_error(e: crate::zones::ZoneError) -> Error {
        Error::Invalid(format!("zoned namespace: {e}"))
    }

    fn write(&mut self, dev: &mut dyn Mechanisms, pid: u32) -> Result<()> {
        let req = dev.pending(pid).req;
        if req.offset % self.lba != 0 || req.len % self.lba != 0 {
            return Err(Error::Invalid(format!(
                "zoned namespace: {} of {} bytes at offset {} is not in whole LBAs of {} bytes",
                req.op.name(),
                req.len,
                req.offset,
                self.lba
            )));
        }
        let (lba, n) = (req.offset / self.lba, req.len / self.lba);
        let effect = if req.op == Op::Append {
            let (at, e) = self.zones.append(lba, n).map_err(Self::zone_error)?;
            // The request now names where its data went (what the completion returns).
            dev.pending_mut(pid).req.offset = at * self.lba;
            e
        } else {
            self.zones.write(lba, n).map_err(Self::zone_error)?
        };
        self.implicit_closes += effect.closed.len() as u64;
        // Host data in mapping units, counted as the bytes add up (a 4 KiB write is a quarter
        // of a 16 KiB unit), so the device's write amplification is flash bytes / host bytes.
        let unit = dev.geo().unit_size;
        let before = self.host_bytes / unit;
        self.host_bytes += req.len;
        dev.counters_mut().host_write_units += self.host_bytes / unit - before;
        // An append's own firmware time, and an implicit open's, come before its data is
        // taken.
        let extra =
            if req.op == Op::Append { self.append_time } else { 0 } + self.open_time * effect.opened.len() as u64;
        let start = if extra > 0 {
            dev.cpu(dev.now(), extra)
        } else {
            dev.now()
        };
        let ready = dev.link(0, start, req.len);
        self.waiting.push_back((pid, req.len, ready));
        self.admit(dev);
        Ok(())
    }

    /// Writes that fit the buffer enter it, in order, and complete; their full pages are
    /// programmed.
    fn admit(&mut self, dev: &mut dyn Mechanisms) {
        while let Some(&(pid, bytes, ready)) = self.waiting.front() {
            if self.buffered + bytes > self.buffer && self.buffered > 0 {
                break;
            }
            self.waiting.pop_front();
            self.buffered += bytes;
            let req = dev.pending(pid).req;
            let z = (req.offset / self.lba / self.zones.size) as u32;
            self.admitted[z as usize] += bytes;
            dev.finish_request(pid, ready.max(dev.now()));
            self.program_full_pages(dev, z, ready);
            if self.admitted[z as usize] == self.zones.capacity * self.lba {
                self.program_last(dev, z, ready);
            }
        }
    }

    fn read(&mut self, dev: &mut dyn Mechanisms, pid: u32) -> Result<()> {
        let req = dev.pending(pid).req;
        let unit = dev.geo().unit_size;
        let zone_bytes = self.zones.size * self.lba;
        dev.counters_mut().host_read_units += (req.offset + req.len).div_ceil(unit) - req.offset / unit;
        // Page by page: the bytes of the request in each page (its LBAs, not whole mapping
        // units, cross the channel).
        let mut at = req.offset;
        let end = req.offset + req.len;
        while at < end {
            let z = (at / zone_bytes) as u32;
            let off = at % zone_bytes;
            let j = off / self.page;
            let next = (at - off % self.page + self.page).min(end);
            let bytes = next - at;
            let written = self.zones.zone(z).written * self.lba;
            let on_flash = off < written && j < self.programmed[z as usize] && !self.in_flight.contains(&(z, j));
            if on_flash {
                let (pun, pib) = self.place(z, j);
                let unit_no = dev.unit_of_pun(pun);
                let t = {
                    let r = dev.array_times().0;
                    r[pib as usize % r.len()]
                };
                dev.counters_mut().host_page_reads += 1;
                dev.add_part(pid);
                dev.unit_op(unit_no, Kind::Read, t, bytes, dev.now(), Token::Request(pid));
            } else if off < written {
                dev.counters_mut().buffer_read_units += bytes.div_ceil(unit);
            } else {
                dev.counters_mut().unmapped_read_units += bytes.div_ceil(unit);
            }
            at = next;
        }
        if dev.pending(pid).remaining == 0 {
            dev.deliver(pid, dev.now());
        }
        Ok(())
    }

    /// One of the flash operations command `pid` waits for (a finish's padding, an open zone's
    /// erase at its reset) ended at `time`; the command completes after the last.
    fn waited(&mut self, dev: &mut dyn Mechanisms, pid: u32, time: u64) -> Result<()> {
        let i = self
            .finishing
            .iter()
            .position(|f| f.0 == pid)
            .ok_or_else(|| Error::Invalid(format!("zns: flash work of an unknown command {pid}")))?;
        let f = &mut self.finishing[i];
        f.1 -= 1;
        f.2 = f.2.max(time);
        if f.1 == 0 {
            let (end, after) = (f.2, f.3);
            self.finishing.swap_remove(i);
            let end = if after > 0 { dev.cpu(end, after) } else { end };
            let c = dev.link(0, end, 0);
            dev.finish_request(pid, c);
        }
        Ok(())
    }

    fn manage(&mut self, dev: &mut dyn Mechanisms, pid: u32, action: crate::zones::Action, all: bool) -> Result<()> {
        let req = dev.pending(pid).req;
        let z = self.zones.zone_of(req.offset / self.lba).map_err(Self::zone_error)?;
        if !all && req.offset != self.zones.start(z) * self.lba {
            return Err(Error::Invalid(format!(
                "zoned namespace: zone {} at offset {}, which is not a zone's start ({} bytes)",
                action.name(),
                req.offset,
                self.zones.start(z) * self.lba
            )));
        }
        let e: Effect = self.zones.send(action, z, all).map_err(Self::zone_error)?;
        let now = dev.now();
        let mut done = now;
        let mut erasing = 0;
        // The firmware time of open zones' resets, charged once their blocks are erased.
        let mut after = 0;
        for &(zone, written, active) in &e.reset {
            self.resets += 1;
            // An open or closed zone's blocks are partly programmed: they are erased first
            // and the reset's firmware time follows. A full zone's firmware time comes first,
            // its erases are left to the background.
            let wait = (active && self.programmed[zone as usize] > 0).then_some(pid);
            let cpu = self.reset_time + written * self.reset_lba_time;
            if wait.is_some() {
                after += cpu;
            } else {
                done = dev.cpu(done, cpu);
            }
            // The zone's data still in the buffer is dropped; its written blocks erased.
            let partial = self.partial(zone);
            self.buffered -= partial.min(self.buffered);
            self.admitted[zone as usize] = 0;
            let pages = self.programmed[zone as usize];
            for plane in 0..self.planes.min(pages) {
                let on_plane = (pages - plane).div_ceil(self.planes);
                for b in 0..on_plane.div_ceil(self.pages_per_block) {
                    let (pun, _) = self.place(zone, plane + b * self.pages_per_block * self.planes);
                    let unit = dev.unit_of_pun(pun);
                    let t = dev.ftl().erase_ns();
                    let tok = self.job(Job::Erase(wait));
                    erasing += wait.is_some() as u64;
                    self.erases += 1;
                    dev.ftl_mut().stats.erases += 1;
                    dev.unit_op(unit, Kind::Erase, t, 0, done, Token::Firmware(tok));
                }
            }
            self.programmed[zone as usize] = 0;
        }
        let mut pads = 0;
        for &(zone, written) in &e.finished {
            self.finishes += 1;
            if written == 0 {
                continue;
            }
            // The partial page (if any) and every page after it to the capacity's end.
            let mut partial = self.partial(zone);
            while self.programmed[zone as usize] < self.cap_pages {
                let j = self.next_page(zone);
                let bytes = std::mem::take(&mut partial);
                if bytes == 0 {
                    self.padding_pages += 1;
                } else {
                    self.pages_programmed += 1;
                }
                pads += 1;
                self.program(
                    dev,
                    zone,
                    j,
                    now,
                    Job::Pad {
                        pid,
                        bytes,
                        zone,
                        page: j,
                    },
                );
            }
        }
        // The completion crosses the link as any command's does (its per-command overhead).
        if pads + erasing > 0 {
            self.finishing.push((pid, pads + erasing, done, after));
        } else {
            let c = dev.link(0, done, 0);
            dev.finish_request(pid, c);
        }
        Ok(())
    }
}

impl Firmware for Zns {
    fn name(&self) -> &'static str {
        "zns"
    }

    fn command(&mut self, dev: &mut dyn Mechanisms, pid: u32) -> Result<()> {
        match dev.pending(pid).req.op {
            Op::Read => self.read(dev, pid),
            Op::Write | Op::Append => self.write(dev, pid),
            Op::Zone(action, all) => self.manage(dev, pid, action, all),
            Op::Trim => Err(Error::Invalid(
                "zoned namespace: a trim (deallocate); expected zone resets, which free a zone's data".into(),
            )),
        }
    }

    fn parts_done(&mut self, dev: &mut dyn Mechanisms, pid: u32, ready: u64) -> Result<()> {
        dev.deliver(pid, ready);
        Ok(())
    }

    fn op_done(&mut self, dev: &mut dyn Mechanisms, token: u32, time: u64) -> Result<()> {
        let job = self.jobs[token as usize]
            .take()
            .ok_or_else(|| Error::Invalid(format!("zns: flash operation {token} unknown")))?;
        self.free_jobs.push(token);
        match job {
            Job::Program { bytes, zone, page } => {
                self.in_flight.remove(&(zone, page));
                self.buffered -= bytes.min(self.buffered);
                self.admit(dev);
            }
            Job::Erase(None) => {}
            Job::Erase(Some(pid)) => self.waited(dev, pid, time)?,
            Job::Pad { pid, bytes, zone, page } => {
                self.in_flight.remove(&(zone, page));
                self.buffered -= bytes.min(self.buffered);
                self.waited(dev, pid, time)?;
                self.admit(dev);
            }
        }
        Ok(())
    }

    fn check(&self, _dev: &dyn Mechanisms) -> std::result::Result<(), String> {
        self.zones.check()?;
        // The buffer holds each zone's partial page and the pages whose programs are under way.
        let partial: u64 = (0..self.programmed.len() as u32).map(|z| self.partial(z)).sum();
        let programming: u64 = self
            .jobs
            .iter()
            .flatten()
            .map(|j| match *j {
                Job::Program { bytes, .. } | Job::Pad { bytes, .. } => bytes,
                Job::Erase(_) => 0,
            })
            .sum();
        if self.buffered != partial + programming {
            return Err(format!(
                "zns: {} bytes counted in the buffer, {partial} in partial pages and {programming} being programmed",
                self.buffered
            ));
        }
        Ok(())
    }

    fn zones(&self) -> Option<&Zones> {
        Some(&self.zones)
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("zone_pages_programmed", self.pages_programmed),
            ("zone_padding_pages", self.padding_pages),
            ("zone_erases", self.erases),
            ("zone_resets", self.resets),
            ("zone_finishes", self.finishes),
            ("zone_implicit_closes", self.implicit_closes),
        ]
    }
}

#[cfg(test)]
mod tests {
    //! Device: 2 channels of one SLC plane each (tR 25 µs, tPROG 200 µs, erase 1.5 ms), 8 KiB
    //! pages of 4 KiB units over 100 MB/s channels, 4 pages per block, 12 blocks per plane; a
    //! SATA link at 600 MB/s plus 5 µs per command; one CPU taking 10 µs per command, one
    //! command at a time. Zones: 4 KiB LBAs, capacity 128 KiB (16 pages: 8 per plane, 2 blocks
    //! per plane), size 256 KiB, 4 zones; a 32 KiB write buffer; reset 100 µs + 1 µs per LBA.
    use super::*;
    use crate::config::parse_config;
    use crate::device::Device;
    use crate::request::{Request, ZoneAction};
    use crate::zones::State;
    use std::path::Path;

    const CMD: u64 = 10_000;
    const R: u64 = 25_000;
    const P: u64 = 200_000;
    const E: u64 = 1_500_000;
    const CH4: u64 = 40_960; // 4 KiB at 100 MB/s
    const CH8: u64 = 81_920;
    const LINK4: u64 = 5_000 + 6_827;
    const ZONE: u64 = 256 * 1024;

    fn text(zones: &str, extra: &str) -> String {
        let timing = crate::config::TEST_SLC_TIMING;
        format!(
            r#"
[device]
name = "zoned"
[device.geometry]
channels = 2
ways = 1
blocks_per_plane = 12
pages_per_block = 4
page_size = "8KiB"
mapping_unit = "4KiB"
overprovisioning = 0.1
{timing}design = "zns"
write_buffer = "32KiB"
{extra}
[device.ftl.zones]
{zones}
[device.controller]
cpus = 1
command_time = "10us"
queue_depth = 1
"#
        )
    }

    const ZONES: &str = r#"count = 4
size = "256KiB"
capacity = "128KiB"
max_open = 2
max_active = 3
reset_time = "100us"
reset_lba_time = "1us""#;

    fn device() -> Device {
        let cfg = parse_config(&text(ZONES, ""), "z.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        Device::new(&cfg.device, 1).unwrap()
    }

    fn req(op: Op, offset: u64, len: u64) -> Request {
        Request {
            time_ns: 0,
            op,
            offset,
            len,
            stream: 0,
        }
    }

    fn counter(d: &Device, name: &str) -> u64 {
        d.snapshot(d.now()).firmware.iter().find(|c| c.0 == name).unwrap().1
    }

    #[test]
    fn a_write_completes_in_the_buffer_and_a_full_page_is_programmed() {
        let mut d = device();
        // 4 KiB: the command, the link; the page is not full, nothing programmed.
        assert_eq!(d.run_request(0, &req(Op::Write, 0, 4096)).unwrap(), CMD + LINK4);
        let z = d.zones().unwrap().zone(0);
        assert_eq!((z.state, z.wp, z.written), (State::ImplicitlyOpened, 1, 1));
        assert_eq!(counter(&d, "zone_pages_programmed"), 0);
        // The second 4 KiB fills page 0: programmed on plane 0, the write still done in DRAM.
        let t = 1_000_000;
        assert_eq!(d.run_request(t, &req(Op::Write, 4096, 4096)).unwrap(), t + CMD + LINK4);
        assert_eq!(counter(&d, "zone_pages_programmed"), 1);
        // Read at once: the page's program is under way, its data served from DRAM.
        let t2 = t + CMD + LINK4;
        let read = d.run_request(t2, &req(Op::Read, 0, 4096)).unwrap();
        assert_eq!(read, t2 + CMD + LINK4);
        assert_eq!(d.counters.buffer_read_units, 1);
        // Once programmed (data ready at t + CMD + LINK4, 8 KiB over the channel, tPROG), from
        // flash: tR, 4 KiB over the channel, the link.
        let t3 = 5_000_000;
        assert_eq!(
            d.run_request(t3, &req(Op::Read, 4096, 4096)).unwrap(),
            t3 + CMD + R + CH4 + LINK4
        );
        // Past the write pointer: no data, no flash.
        let t4 = 6_000_000;
        assert_eq!(d.run_request(t4, &req(Op::Read, 8192, 4096)).unwrap(), t4 + CMD + LINK4);
        assert_eq!(d.counters.unmapped_read_units, 1);
        d.check_firmware().unwrap();
    }

    #[test]
    fn finish_pads_the_zone_to_its_capacity_on_every_plane() {
        let mut d = device();
        // Three LBAs: page 0 programmed, 4 KiB of page 1 in the buffer.
        d.run_request(0, &req(Op::Write, 0, 3 * 4096)).unwrap();
        let t = 5_000_000;
        let done = d
            .run_request(t, &req(Op::Zone(ZoneAction::Finish, false), 0, 4096))
            .unwrap();
        // Pages 1..15: page 1 (the partial one) and 14 of padding; plane 1 (channel 1) takes
        // pages 1, 3, .., 15 (8), plane 0 pages 2, .., 14 (7). Plane 1's first page crosses its
        // channel, then each program's data crosses while the one before it programs: 8 tPROG.
        assert_eq!(done, t + CMD + CH8 + 8 * P + 5_000);
        assert_eq!(counter(&d, "zone_padding_pages"), 14);
        assert_eq!(counter(&d, "zone_pages_programmed"), 2);
        let z = d.zones().unwrap().zone(0);
        assert_eq!((z.state, z.wp, z.written), (State::Full, 32, 3));
        // An empty zone is finished without padding: the command's time alone.
        let t = 10_000_000;
        assert_eq!(
            d.run_request(t, &req(Op::Zone(ZoneAction::Finish, false), ZONE, 4096))
                .unwrap(),
            t + CMD + 5_000
        );
        assert_eq!(counter(&d, "zone_padding_pages"), 14);
        d.check_firmware().unwrap();
    }

    #[test]
    fn reset_takes_its_firmware_time_and_erases_the_written_blocks_after_it() {
        let mut d = device();
        // 5 pages (10 LBAs): plane 0 holds pages 0, 2, 4 (its first block), plane 1 pages 1, 3.
        d.run_request(0, &req(Op::Write, 0, 10 * 4096)).unwrap();
        let t = 5_000_000;
        let done = d
            .run_request(t, &req(Op::Zone(ZoneAction::Reset, false), 0, 4096))
            .unwrap();
        // The zone is open: its two blocks erased (both planes at once), then the firmware
        // time, then the completion over the link.
        assert_eq!(done, t + CMD + E + 100_000 + 10 * 1_000 + 5_000);
        assert_eq!(counter(&d, "zone_erases"), 2);
        let z = d.zones().unwrap().zone(0);
        assert_eq!((z.state, z.wp, z.written), (State::Empty, 0, 0));
        // The zone written again at once: its first page's program is under way, so a read
        // right after the write is served from DRAM, and one after the program from flash.
        d.run_request(done, &req(Op::Write, 0, 8192)).unwrap();
        let r = d.run_request(done + CMD + 30_000, &req(Op::Read, 0, 4096)).unwrap();
        assert_eq!(d.counters.buffer_read_units, 1, "read at {r}");
        let later = done + E + CH8 + P + 100_000;
        assert_eq!(
            d.run_request(later, &req(Op::Read, 0, 4096)).unwrap(),
            later + CMD + R + CH4 + LINK4
        );
        // A full zone resets with its data counted: 32 LBAs.
        for i in 0..4 {
            d.run_request(10_000_000 + i * 1_000_000, &req(Op::Write, ZONE + i * 32_768, 32_768))
                .unwrap();
        }
        let t = 20_000_000;
        let done = d
            .run_request(t, &req(Op::Zone(ZoneAction::Reset, false), ZONE, 4096))
            .unwrap();
        assert_eq!(done, t + CMD + 100_000 + 32 * 1_000 + 5_000);
        // 16 pages: 2 blocks on each plane, 4 more erases.
        assert_eq!(counter(&d, "zone_erases"), 6);
        // An open zone with nothing programmed (one LBA, in the buffer): nothing to erase.
        d.run_request(30_000_000, &req(Op::Write, 2 * ZONE, 4096)).unwrap();
        let t = 35_000_000;
        let done = d
            .run_request(t, &req(Op::Zone(ZoneAction::Reset, false), 2 * ZONE, 4096))
            .unwrap();
        assert_eq!(done, t + CMD + 100_000 + 1_000 + 5_000);
        assert_eq!(counter(&d, "zone_erases"), 6);
        d.check_firmware().unwrap();
    }

    #[test]
    fn appends_go_to_the_write_pointer_and_errors_end_the_run_with_nvme_status() {
        let mut d = device();
        d.run_request(0, &req(Op::Append, ZONE, 4096)).unwrap();
        d.run_request(100_000, &req(Op::Append, ZONE, 8192)).unwrap();
        assert_eq!(d.zones().unwrap().zone(1).wp, 64 + 3);
        let err = |d: &mut Device, r: Request| d.run_request(1_000_000, &r).unwrap_err().to_string();
        let mut d2 = device();
        d2.run_request(0, &req(Op::Write, 0, 4096)).unwrap();
        assert!(err(&mut d2, req(Op::Write, 8192, 4096)).contains("Zone Invalid Write"));
        let mut d3 = device();
        assert!(err(&mut d3, req(Op::Append, 4096, 4096)).contains("Invalid Field"));
        let mut d4 = device();
        assert!(err(&mut d4, req(Op::Write, 0, 132 * 1024)).contains("Zone Boundary Error"));
        let mut d5 = device();
        assert!(err(&mut d5, req(Op::Trim, 0, 4096)).contains("expected zone resets"));
        let mut d6 = device();
        assert!(err(&mut d6, req(Op::Write, 100, 4096)).contains("whole LBAs"));
        let mut d7 = device();
        assert!(err(&mut d7, req(Op::Zone(ZoneAction::Close, false), 0, 4096)).contains("Invalid State Transition"));
        // Three zones opened implicitly: the open limit (2) closes the first; a fourth active
        // zone is refused.
        let mut d8 = device();
        for (i, z) in [0, 1, 2].iter().enumerate() {
            d8.run_request(i as u64 * 100_000, &req(Op::Write, z * ZONE, 4096))
                .unwrap();
        }
        assert_eq!(counter(&d8, "zone_implicit_closes"), 1);
        assert!(err(&mut d8, req(Op::Write, 3 * ZONE, 4096)).contains("Too Many Active Zones"));
    }

    #[test]
    fn the_address_space_is_the_zones() {
        let d = device();
        assert_eq!(d.logical_bytes(), 4 * ZONE);
    }

    #[test]
    fn bad_zone_keys_are_named() {
        let bad = |zones: &str, extra: &str| {
            parse_config(&text(zones, extra), "z.toml", Path::new("."))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        let e = bad(&ZONES.replace("\"128KiB\"", "\"512KiB\""), "");
        assert!(
            e.contains("device.ftl.zones.capacity") && e.contains("at most the zone size"),
            "{e}"
        );
        let e = bad(&ZONES.replace("max_open = 2", "max_open = 5"), "");
        assert!(
            e.contains("device.ftl.zones.max_open") && e.contains("expected at most max_active"),
            "{e}"
        );
        let e = bad(&ZONES.replace("count = 4", "count = 7"), "");
        assert!(
            e.contains("device.ftl.zones.count") && e.contains("expected at most 6 zones"),
            "{e}"
        );
        let e = bad(ZONES, "").is_empty();
        assert!(e);
        // Preconditioning writes through the page FTL, which a zoned drive has not.
        let t = format!("{}\n[precondition]\nmode = \"sequential\"\n", text(ZONES, ""));
        let e = parse_config(&t, "z.toml", Path::new(".")).unwrap_err().to_string();
        assert!(
            e.contains("precondition.mode") && e.contains("expected \"none\""),
            "{e}"
        );
        // Zone keys on a design without zones.
        let t = text(ZONES, "").replace("design = \"zns\"", "design = \"page\"");
        let e = parse_config(&t, "z.toml", Path::new(".")).unwrap_err().to_string();
        assert!(
            e.contains("device.ftl.zones") && e.contains("expected it only with design \"zns\""),
            "{e}"
        );
    }

    #[test]
    fn zone_commands_to_a_design_without_zones_fail() {
        let t = text(ZONES, "")
            .replace("design = \"zns\"", "design = \"page\"")
            .replace("overprovisioning = 0.1", "overprovisioning = 0.5")
            .replace("[device.ftl.zones]", "[unused]");
        let t: String = t
            .lines()
            .filter(|l| {
                !l.starts_with("count")
                    && !l.starts_with("size")
                    && !l.starts_with("capacity")
                    && !l.starts_with("max_")
                    && !l.starts_with("reset_")
                    && *l != "[unused]"
            })
            .collect::<Vec<_>>()
            .join("\n");
        let cfg = parse_config(&t, "p.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        let mut d = Device::new(&cfg.device, 1).unwrap();
        let e = d.run_request(0, &req(Op::Append, 0, 4096)).unwrap_err().to_string();
        assert!(e.contains("has no zones"), "{e}");
    }
}
