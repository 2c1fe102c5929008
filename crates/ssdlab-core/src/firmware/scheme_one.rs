//! Design "scheme-one": seed 002's scheme one (section 4.1.1, figure 7(b)), the write
//! buffer that classic cache-replacement FTL algorithms assume, on the board that makes it
//! expensive.
//!
//! The host's data is DMA'd into a fixed area of the controller's DRAM (`Device::link`), then
//! copied with `memcpy` into the write buffer (`Device::memcpy`, at
//! `device.controller.memcpy_rate`); the write completes when the copy ends. Because data can
//! be copied anywhere, the buffer is a set of mapping-unit slots (`device.ftl.write_buffer`
//! bytes) under a replacement policy, `device.ftl.buffer_policy` (`replacement.rs`): `lru`,
//! `cflru` (which also keeps clean copies of data read from flash; its clean-first window is
//! a quarter of the buffer) or `bplru`. The seed's point (section 5 (4), figure 14) is that on
//! this board the copy, at about the DMA's speed (60 MB/s), costs more than the policies' hits
//! save; scheme two (the "openssd" design) appends the DMA'd data instead.
//!
//! - write: a unit already buffered (dirty, or clean under `cflru`) is overwritten in place
//!   (a hit: no new slot, no flash write); another takes a free slot. When none is free, the
//!   policy gives victims: clean ones are dropped, dirty ones written `units_per_page` to a
//!   page (policy order) at the plane `Device::choose_plane` gives stream 0, through the FTL
//!   (`Device::program_units`, foreground GC ahead of the program). Their slots are freed
//!   when the program ends; the write waits until its units fit, writes waiting in arrival
//!   order (`buffer_stalls`). As in scheme two, once less than half the buffer is free or
//!   being freed, 16 pages of the policy's victims are written back in the background
//!   (buffers of at least 32 pages; smaller ones evict on demand only). A write larger
//!   than the buffer goes in piece by piece as slots free. A mapping unit a write covers
//!   partly, not buffered but on flash, is read first (read-modify-write) and the write
//!   admitted once the read and the DMA are done.
//! - read: a unit in the buffer (a slot being programmed included) is served from DRAM, one
//!   on flash by a page read, an unmapped one without either; the data then crosses the link
//!   (`Device::deliver`). The DMA works on its fixed area, so the buffered units of a read of
//!   several units are first gathered there by `memcpy` (seed section 3: data spread over
//!   buffer and flash is gathered into the DMA area); a one-unit read is sent from its slot.
//!   Under `cflru` the units read from flash are kept as clean copies (a `memcpy` into free
//!   slots, or in place of a clean unit of the window; never while writes wait for room, and
//!   never forcing a dirty write).
//! - trim: buffered units it covers whole are dropped (a slot being programmed is freed when
//!   its program ends), then the map entries.
//!
//! Counters: `write_hits` (units overwritten in place), `evict_clean` (clean units dropped),
//! `evict_dirty` (dirty units written), `pages_written` (their pages), `stalls` (writes that
//! waited for room), `memcpy_bytes`, `read_hits` (units read from the buffer), `clean_fills`
//! (clean copies kept).

use super::openssd::FLUSH_PAGES;
use super::replacement::{self, Replacement, Victim};
use super::Firmware;
use crate::device_config::DeviceConfig;
use crate::ftl::NONE;
use crate::mechanisms::{partial_units, Mechanisms, PageReads, Stage, Token};
use crate::request::{Op, Request};
use crate::{Error, Result};
use std::collections::{HashMap, VecDeque};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Free,
    /// Host data not on flash.
    Dirty,
    /// A copy of the data on flash (cflru).
    Clean,
    /// Dirty data whose program is under way.
    Flushing,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    lpn: u64,
    state: State,
    /// Its data is in DRAM from this time on.
    ready: u64,
    /// Sequence number of the write whose data it holds (0 for a clean copy).
    version: u64,
}

/// A write admitted to the buffer, its units placed in order.
#[derive(Clone, Copy, Debug)]
struct Write {
    pid: u32,
    /// Its data is in the DMA area (and any read-modify-write read done).
    ready: u64,
    /// Next unit to place.
    next: u64,
    /// End of its latest copy.
    done: u64,
    stalled: bool,
    version: u64,
}

#[derive(Clone, Debug, Default)]
struct Counters {
    write_hits: u64,
    evict_clean: u64,
    evict_dirty: u64,
    pages_written: u64,
    stalls: u64,
    memcpy_bytes: u64,
    read_hits: u64,
    clean_fills: u64,
}

/// What a host read served, for the tests' stale-data oracle: the designs' events in the
/// order they act.
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// A unit of write `version` placed in the buffer.
    Write {
        lpn: u64,
        version: u64,
    },
    /// A read served version `version` of a unit (0: never written or trimmed).
    Read {
        lpn: u64,
        version: u64,
    },
    Trim {
        lpn: u64,
    },
}

#[cfg(test)]
thread_local! {
    pub(crate) static EVENTS: std::cell::RefCell<Vec<Event>> = const { std::cell::RefCell::new(Vec::new()) };
}

#[cfg(test)]
fn log(e: Event) {
    EVENTS.with(|l| l.borrow_mut().push(e));
}

pub struct SchemeOne {
    unit: u64,
    per_page: usize,
    slots: Vec<Slot>,
    free: Vec<u32>,
    /// Logical unit → the slot holding its latest data.
    index: HashMap<u64, u32>,
    policy: Box<dyn Replacement>,
    waiting: VecDeque<Write>,
    /// Slots of each page being programmed, by token.
    groups: Vec<Vec<u32>>,
    free_groups: Vec<u32>,
    flushing: usize,
    /// Units a read fetches from flash (cflru keeps them), by pending id.
    fills: HashMap<u32, Vec<(u64, u32)>>,
    seq: u64,
    scratch: Vec<Victim>,
    c: Counters,
    /// Version of the data the map points to, per logical unit (tests only).
    #[cfg(test)]
    flash_version: HashMap<u64, u64>,
}

/// Build the design for a device configuration.
pub fn make(cfg: &DeviceConfig) -> Result<Box<dyn Firmware>> {
    let geo = crate::redundancy::geometry_of(cfg, &cfg.name)?;
    let n = (cfg.ftl.write_buffer.0 / geo.unit_size) as usize;
    let policy = replacement::make(&cfg.ftl.buffer_policy, n, geo.units_per_block as u64)
        .ok_or_else(|| Error::Invalid(format!("unknown buffer policy '{}'", cfg.ftl.buffer_policy)))?;
    Ok(Box::new(SchemeOne {
        unit: geo.unit_size,
        per_page: geo.units_per_page,
        slots: vec![
            Slot {
                lpn: 0,
                state: State::Free,
                ready: 0,
                version: 0,
            };
            n
        ],
        free: (0..n as u32).rev().collect(),
        index: HashMap::new(),
        policy,
        waiting: VecDeque::new(),
        groups: Vec::new(),
        free_groups: Vec::new(),
        flushing: 0,
        fills: HashMap::new(),
        seq: 0,
        scratch: Vec::new(),
        c: Counters::default(),
        #[cfg(test)]
        flash_version: HashMap::new(),
    }))
}

/// The configuration keys scheme one reads.
pub fn check(cfg: &DeviceConfig) -> std::result::Result<(), (String, String)> {
    let p = &cfg.ftl.buffer_policy;
    if !replacement::NAMES.contains(&p.as_str()) {
        return Err((
            "buffer_policy".into(),
            format!("got \"{p}\"; expected lru, cflru or bplru"),
        ));
    }
    if cfg.controller.memcpy_rate.is_none() {
        return Err((
            "design".into(),
            "scheme-one copies every write from the DMA area into its buffer: expected device.controller.memcpy_rate to be set".into(),
        ));
    }
    let (wb, page) = (cfg.ftl.write_buffer.0, cfg.geometry.page_size.0);
    if wb < page {
        return Err((
            "write_buffer".into(),
            format!("got {wb} bytes; expected at least one page ({page} bytes): scheme one buffers every write"),
        ));
    }
    Ok(())
}

/// Mapping units a request touches (first, last).
fn units(req: &Request, us: u64) -> (u64, u64) {
    (req.offset / us, (req.offset + req.len - 1) / us)
}

/// Bytes of a request inside units `a..b`.
fn overlap(req: &Request, us: u64, a: u64, b: u64) -> u64 {
    (req.offset + req.len).min(b * us) - req.offset.max(a * us)
}

impl SchemeOne {
    fn is_writable_hit(&self, lpn: u64) -> Option<u32> {
        match self.index.get(&lpn) {
            Some(&s) if self.slots[s as usize].state != State::Flushing => Some(s),
            _ => None,
        }
    }

    /// Free a slot that left the policy's lists (dropped clean, trimmed or programmed).
    fn release(&mut self, s: u32) {
        let lpn = self.slots[s as usize].lpn;
        if self.index.get(&lpn) == Some(&s) {
            self.index.remove(&lpn);
        }
        self.slots[s as usize].state = State::Free;
        self.free.push(s);
    }

    fn write(&mut self, dev: &mut dyn Mechanisms, pid: u32) -> Result<()> {
        let req = dev.pending(pid).req;
        let us = self.unit;
        let (first, last) = units(&req, us);
        dev.counters_mut().host_write_units += last - first + 1;
        let link_end = dev.link(0, dev.now(), req.len);
        dev.pending_mut(pid).ready = link_end;
        // Read-modify-write of partly written units that are only on flash.
        for lpn in partial_units(&req, us) {
            if self.index.contains_key(&lpn) {
                continue;
            }
            let pun = dev.ftl().lookup(lpn);
            if pun != NONE {
                dev.counters_mut().rmw_page_reads += 1;
                dev.read_page(pid, pun, 1);
            }
        }
        if dev.pending(pid).remaining == 0 {
            self.admit(dev, pid, link_end)?;
        }
        Ok(())
    }

    /// Write `pid`'s data is in the DMA area at `ready`: it queues for the buffer.
    fn admit(&mut self, dev: &mut dyn Mechanisms, pid: u32, ready: u64) -> Result<()> {
        self.seq += 1;
        let stalled = !self.waiting.is_empty();
        if stalled {
            self.c.stalls += 1;
            dev.counters_mut().buffer_stalls += 1;
        }
        let first = dev.pending(pid).req.offset / self.unit;
        self.waiting.push_back(Write {
            pid,
            ready,
            next: first,
            done: ready,
            stalled,
            version: self.seq,
        });
        self.pump(dev)
    }

    /// Place waiting writes' units, in order, while slots are free; evict when the head
    /// write needs more than is free or being freed.
    fn pump(&mut self, dev: &mut dyn Mechanisms) -> Result<()> {
        let us = self.unit;
        let mut placed = Vec::new();
        while let Some(mut w) = self.waiting.pop_front() {
            let req = dev.pending(w.pid).req;
            let (_, last) = units(&req, us);
            let start = w.next;
            let now = dev.now();
            let from = w.ready.max(now);
            placed.clear();
            while w.next <= last {
                let lpn = w.next;
                let s = match self.is_writable_hit(lpn) {
                    Some(s) => {
                        self.c.write_hits += 1;
                        self.policy.written(s, lpn, true);
                        s
                    }
                    None => {
                        let Some(s) = self.free.pop() else { break };
                        self.index.insert(lpn, s);
                        self.policy.written(s, lpn, false);
                        s
                    }
                };
                self.slots[s as usize] = Slot {
                    lpn,
                    state: State::Dirty,
                    ready: from,
                    version: w.version,
                };
                #[cfg(test)]
                log(Event::Write {
                    lpn,
                    version: w.version,
                });
                placed.push(s);
                w.next += 1;
            }
            if w.next > start {
                let bytes = overlap(&req, us, start, w.next);
                let end = dev.memcpy(from, bytes);
                self.c.memcpy_bytes += bytes;
                for &s in &placed {
                    self.slots[s as usize].ready = end;
                }
                w.done = w.done.max(end);
            }
            if w.next > last {
                dev.finish_request(w.pid, w.done);
                continue;
            }
            if !w.stalled {
                w.stalled = true;
                self.c.stalls += 1;
                dev.counters_mut().buffer_stalls += 1;
            }
            let misses = (w.next..=last)
                .filter(|&l| self.is_writable_hit(l).is_none())
                .count()
                .min(self.slots.len());
            let need = misses.saturating_sub(self.free.len() + self.flushing);
            self.waiting.push_front(w);
            if need > 0 && self.evict(dev, need)? > 0 {
                continue;
            }
            if self.free.is_empty() && self.flushing == 0 {
                return Err(Error::Invalid(
                    "scheme-one: a write waits for buffer room but nothing is being freed".into(),
                ));
            }
            break;
        }
        self.write_back(dev)
    }

    /// Proactive write-back, as scheme two flushes: once less than half of the buffer is free
    /// or being freed, the policy's next victims, [`FLUSH_PAGES`] pages of them, are written
    /// back in the background, so that a write seldom waits for a program. A buffer smaller
    /// than two such batches is left to eviction on demand.
    fn write_back(&mut self, dev: &mut dyn Mechanisms) -> Result<()> {
        let cap = self.slots.len();
        let batch = FLUSH_PAGES * self.per_page;
        if cap >= 2 * batch && self.free.len() + self.flushing < cap / 2 {
            self.evict(dev, batch)?;
        }
        Ok(())
    }

    /// Take victims for `need` slots: clean ones are freed now (returned), dirty ones
    /// programmed a page at a time.
    fn evict(&mut self, dev: &mut dyn Mechanisms, need: usize) -> Result<usize> {
        let mut v = std::mem::take(&mut self.scratch);
        v.clear();
        self.policy.evict(need, self.per_page, &mut v);
        let mut freed = 0;
        let mut dirty = Vec::new();
        for x in &v {
            if x.dirty {
                dirty.push(x.slot);
            } else {
                self.release(x.slot);
                self.c.evict_clean += 1;
                freed += 1;
            }
        }
        for chunk in dirty.chunks(self.per_page) {
            self.flush(dev, chunk)?;
        }
        self.scratch = v;
        Ok(freed)
    }

    /// Program dirty slots `chunk` (at most a page of units) as one page.
    fn flush(&mut self, dev: &mut dyn Mechanisms, chunk: &[u32]) -> Result<()> {
        let mut lpns = Vec::with_capacity(chunk.len());
        let mut ready = dev.now();
        for &s in chunk {
            let sl = &mut self.slots[s as usize];
            debug_assert_eq!(sl.state, State::Dirty);
            sl.state = State::Flushing;
            lpns.push(sl.lpn);
            ready = ready.max(sl.ready);
            #[cfg(test)]
            self.flash_version.insert(sl.lpn, sl.version);
        }
        let g = match self.free_groups.pop() {
            Some(g) => g,
            None => {
                self.groups.push(Vec::new());
                (self.groups.len() - 1) as u32
            }
        };
        self.groups[g as usize] = chunk.to_vec();
        self.flushing += chunk.len();
        self.c.evict_dirty += chunk.len() as u64;
        self.c.pages_written += 1;
        let plane = dev.choose_plane(0);
        dev.program_units(plane, 0, &lpns, ready, Token::Firmware(g))?;
        Ok(())
    }

    fn read(&mut self, dev: &mut dyn Mechanisms, pid: u32) -> Result<()> {
        let req = dev.pending(pid).req;
        let us = self.unit;
        let (first, last) = units(&req, us);
        let now = dev.now();
        let (mut hit_bytes, mut hit_ready) = (0, now);
        let mut fills = Vec::new();
        let mut reads = PageReads::default();
        for lpn in first..=last {
            dev.counters_mut().host_read_units += 1;
            if let Some(&s) = self.index.get(&lpn) {
                let sl = self.slots[s as usize];
                dev.counters_mut().buffer_read_units += 1;
                self.c.read_hits += 1;
                hit_bytes += overlap(&req, us, lpn, lpn + 1);
                hit_ready = hit_ready.max(sl.ready);
                if sl.state != State::Flushing {
                    self.policy.read_hit(s);
                }
                #[cfg(test)]
                log(Event::Read {
                    lpn,
                    version: sl.version,
                });
                continue;
            }
            let pun = dev.ftl().lookup(lpn);
            #[cfg(test)]
            log(Event::Read {
                lpn,
                version: if pun == NONE {
                    0
                } else {
                    self.flash_version.get(&lpn).copied().unwrap_or(0)
                },
            });
            if pun == NONE {
                dev.counters_mut().unmapped_read_units += 1;
                continue;
            }
            if self.policy.keeps_clean() {
                fills.push((lpn, pun));
            }
            reads.add(dev, pid, pun);
        }
        reads.flush(dev, pid);
        let mut ready = now;
        if hit_bytes > 0 {
            ready = if last > first {
                // Gathered into the DMA area.
                self.c.memcpy_bytes += hit_bytes;
                dev.memcpy(hit_ready, hit_bytes)
            } else {
                hit_ready
            };
        }
        dev.pending_mut(pid).ready = ready;
        if dev.pending(pid).remaining == 0 {
            dev.deliver(pid, ready);
        } else if !fills.is_empty() {
            self.fills.insert(pid, fills);
        }
        Ok(())
    }

    /// Keep clean copies of units a read brought from flash (data in the DMA area at `ready`).
    fn fill(&mut self, dev: &mut dyn Mechanisms, fills: Vec<(u64, u32)>, ready: u64) {
        if !self.waiting.is_empty() {
            return;
        }
        let mut placed = Vec::new();
        for (lpn, pun) in fills {
            // Written, trimmed or moved since the read was issued: not this data any more.
            if self.index.contains_key(&lpn) || dev.ftl().lookup(lpn) != pun {
                continue;
            }
            let s = match self.free.pop() {
                Some(s) => s,
                None => match self.policy.clean_victim() {
                    Some(v) => {
                        self.release(v);
                        self.c.evict_clean += 1;
                        self.free.pop().expect("just freed")
                    }
                    None => break,
                },
            };
            #[cfg(test)]
            let version = self.flash_version.get(&lpn).copied().unwrap_or(0);
            #[cfg(not(test))]
            let version = 0;
            self.slots[s as usize] = Slot {
                lpn,
                state: State::Clean,
                ready,
                version,
            };
            self.index.insert(lpn, s);
            self.policy.insert_clean(s, lpn);
            self.c.clean_fills += 1;
            placed.push(s);
        }
        if !placed.is_empty() {
            let bytes = placed.len() as u64 * self.unit;
            let end = dev.memcpy(ready.max(dev.now()), bytes);
            self.c.memcpy_bytes += bytes;
            for s in placed {
                self.slots[s as usize].ready = end;
            }
        }
    }

    fn trim(&mut self, dev: &mut dyn Mechanisms, pid: u32) -> Result<()> {
        let req = dev.pending(pid).req;
        let us = self.unit;
        let mut freed = false;
        for lpn in req.offset.div_ceil(us)..(req.offset + req.len) / us {
            if let Some(&s) = self.index.get(&lpn) {
                match self.slots[s as usize].state {
                    State::Dirty | State::Clean => {
                        self.policy.remove(s);
                        self.release(s);
                        freed = true;
                    }
                    // Freed when its program ends; no longer this unit's data.
                    _ => {
                        self.index.remove(&lpn);
                    }
                }
            }
            #[cfg(test)]
            {
                self.flash_version.remove(&lpn);
                log(Event::Trim { lpn });
            }
        }
        dev.trim(&req);
        let c = dev.link(0, dev.now(), 0);
        dev.finish_request(pid, c);
        if freed {
            self.pump(dev)?;
        }
        Ok(())
    }
}

impl Firmware for SchemeOne {
    fn name(&self) -> &'static str {
        "scheme-one"
    }

    fn command(&mut self, dev: &mut dyn Mechanisms, pid: u32) -> Result<()> {
        match dev.pending(pid).req.op {
            Op::Read => self.read(dev, pid),
            Op::Write => self.write(dev, pid),
            Op::Trim => self.trim(dev, pid),
            Op::Append | Op::Zone(..) => Err(super::no_zones(self.name())),
        }
    }

    fn parts_done(&mut self, dev: &mut dyn Mechanisms, pid: u32, ready: u64) -> Result<()> {
        match dev.pending(pid).stage {
            Stage::Read => {
                let fills = self.fills.remove(&pid);
                dev.deliver(pid, ready);
                if let Some(f) = fills {
                    self.fill(dev, f, ready);
                }
                Ok(())
            }
            // A write's read-modify-write reads are done.
            _ => self.admit(dev, pid, ready),
        }
    }

    fn op_done(&mut self, dev: &mut dyn Mechanisms, token: u32, _time: u64) -> Result<()> {
        let mut slots = std::mem::take(&mut self.groups[token as usize]);
        self.flushing -= slots.len();
        for &s in &slots {
            self.release(s);
        }
        slots.clear();
        self.groups[token as usize] = slots;
        self.free_groups.push(token);
        self.pump(dev)
    }

    fn check(&self, dev: &dyn Mechanisms) -> std::result::Result<(), String> {
        let n = self.slots.len();
        let mut free = vec![false; n];
        for &s in &self.free {
            if self.slots[s as usize].state != State::Free || std::mem::replace(&mut free[s as usize], true) {
                return Err(format!("slot {s} on the free list twice or not free"));
            }
        }
        let mut in_group = vec![false; n];
        let mut grouped = 0;
        for (g, slots) in self.groups.iter().enumerate() {
            for &s in slots {
                if self.slots[s as usize].state != State::Flushing || std::mem::replace(&mut in_group[s as usize], true)
                {
                    return Err(format!("page {g}: slot {s} not being programmed, or in two pages"));
                }
                grouped += 1;
            }
        }
        if grouped != self.flushing {
            return Err(format!(
                "{grouped} slots in pages being programmed, {} counted",
                self.flushing
            ));
        }
        let mut listed = vec![None; n];
        for (s, dirty) in self.policy.members()? {
            if listed[s as usize].replace(dirty).is_some() {
                return Err(format!("{}: slot {s} listed twice", self.policy.name()));
            }
        }
        for (i, sl) in self.slots.iter().enumerate() {
            let s = i as u32;
            let indexed = self.index.get(&sl.lpn) == Some(&s);
            let want = match sl.state {
                State::Free if !free[i] => return Err(format!("slot {s} free but not on the free list")),
                State::Free => None,
                State::Flushing if !in_group[i] => {
                    return Err(format!("slot {s} (unit {}) being programmed in no page", sl.lpn))
                }
                State::Flushing => None,
                State::Dirty => Some(true),
                State::Clean => Some(false),
            };
            if listed[i] != want {
                return Err(format!(
                    "slot {s} (unit {}, {:?}) listed by {} as {:?}",
                    sl.lpn,
                    sl.state,
                    self.policy.name(),
                    listed[i]
                ));
            }
            if want.is_some() && !indexed {
                return Err(format!("slot {s} (unit {}, {:?}) not indexed", sl.lpn, sl.state));
            }
            if sl.state == State::Clean && dev.ftl().lookup(sl.lpn) == NONE {
                return Err(format!("clean slot {s}: unit {} is not on flash", sl.lpn));
            }
            if sl.state == State::Flushing && indexed && dev.ftl().lookup(sl.lpn) == NONE {
                // Its program mapped the unit; only a trim unmaps it, and a trim drops it.
                return Err(format!(
                    "slot {s} (unit {}) being programmed is indexed, its unit trimmed",
                    sl.lpn
                ));
            }
            if sl.state == State::Flushing {
                // Newer data of the unit may only be in the slot the index names.
                if let Some(&d) = self.index.get(&sl.lpn) {
                    let dv = self.slots[d as usize];
                    if d != s && dv.state == State::Dirty && dv.version <= sl.version {
                        return Err(format!(
                            "unit {}: dirty slot {d} (version {}) is not newer than slot {s} being programmed (version {})",
                            sl.lpn, dv.version, sl.version
                        ));
                    }
                }
            }
            #[cfg(test)]
            {
                let fv = self.flash_version.get(&sl.lpn).copied().unwrap_or(0);
                if sl.state == State::Dirty && indexed && sl.version <= fv {
                    return Err(format!(
                        "unit {}: the map points to version {fv}, newer than dirty slot {s}'s {}",
                        sl.lpn, sl.version
                    ));
                }
                if sl.state == State::Clean && sl.version != fv {
                    return Err(format!(
                        "unit {}: clean slot {s} holds version {}, flash {fv}",
                        sl.lpn, sl.version
                    ));
                }
            }
        }
        for (&lpn, &s) in &self.index {
            let sl = self.slots[s as usize];
            if sl.state == State::Free || sl.lpn != lpn {
                return Err(format!(
                    "unit {lpn} indexed at slot {s} holding unit {} ({:?})",
                    sl.lpn, sl.state
                ));
            }
        }
        Ok(())
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let c = &self.c;
        vec![
            ("write_hits", c.write_hits),
            ("evict_clean", c.evict_clean),
            ("evict_dirty", c.evict_dirty),
            ("pages_written", c.pages_written),
            ("stalls", c.stalls),
            ("memcpy_bytes", c.memcpy_bytes),
            ("read_hits", c.read_hits),
            ("clean_fills", c.clean_fills),
        ]
    }
}

#[cfg(test)]
mod tests {
    //! Device: SLC (tR 25 us, tPROG 200 us), 8 KiB pages over 100 MB/s channels (81,920 ns),
    //! a SATA link at 600 MB/s plus 5 us per command, one CPU taking 10 us per command and
    //! copying at 60 MB/s.
    use super::*;
    use crate::config::parse_config;
    use crate::device::Device;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::path::Path;

    const CMD: u64 = 10_000; // command_time
    const CH: u64 = 81_920; // 8 KiB over a channel
    const P: u64 = 200_000; // tPROG
    const LINK4: u64 = 5_000 + 6_827; // 4 KiB at 600 MB/s, rounded up, with the command
    const LINK8: u64 = 5_000 + 13_654;
    const M4: u64 = 68_267; // 4 KiB copied at 60 MB/s, rounded up
    const M8: u64 = 136_534;
    const KIB: u64 = 1024;

    /// A scheme-one device: `channels` channels of one plane, blocks of `ppb` pages.
    fn device_with(channels: u32, ppb: u32, unit: &str, buffer: &str, policy: &str, extra: &str) -> Device {
        let timing = crate::config::TEST_SLC_TIMING;
        let text = format!(
            r#"
[device]
name = "s1"
[device.geometry]
channels = {channels}
ways = 1
blocks_per_plane = 16
pages_per_block = {ppb}
page_size = "8KiB"
mapping_unit = "{unit}"
overprovisioning = 0.5
{timing}design = "scheme-one"
write_buffer = "{buffer}"
buffer_policy = "{policy}"
[device.controller]
cpus = 1
command_time = "10us"
memcpy_rate = "60MB/s"
{extra}
"#
        );
        let cfg = parse_config(&text, "s1.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        Device::new(&cfg.device, 1).unwrap()
    }

    fn device(unit: &str, buffer: &str, policy: &str) -> Device {
        device_with(2, 8, unit, buffer, policy, "")
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

    fn fw(d: &Device, name: &str) -> u64 {
        let s = d.snapshot(d.now());
        s.firmware
            .iter()
            .find(|c| c.0 == name)
            .unwrap_or_else(|| panic!("no counter {name}"))
            .1
    }

    /// Write 8 KiB unit `lpn` at `t`; its completion time.
    fn put(d: &mut Device, t: u64, lpn: u64) -> u64 {
        let c = d.run_request(t, &req(Op::Write, lpn * 8 * KIB, 8 * KIB)).unwrap();
        d.check_firmware().unwrap();
        c
    }

    fn mapped(d: &Device, lpn: u64) -> bool {
        d.ftl.lookup(lpn) != NONE
    }

    #[test]
    fn half_a_buffer_in_use_writes_sixteen_pages_back_in_the_background() {
        // 64 slots of 4 KiB (32 pages): the batch is 16 pages, 32 units.
        let mut d = device_with(2, 64, "4KiB", "256KiB", "lru", "");
        let mut t = 0;
        for lpn in 0..32 {
            t = d.run_request(t, &req(Op::Write, lpn * 4 * KIB, 4 * KIB)).unwrap() + 1;
        }
        assert_eq!(fw(&d, "evict_dirty"), 0, "half the buffer is still free");
        t = d.run_request(t, &req(Op::Write, 32 * 4 * KIB, 4 * KIB)).unwrap() + 1;
        // 31 slots free: the 32 least recently written units go, 16 pages, and no write
        // waited.
        assert_eq!((fw(&d, "evict_dirty"), fw(&d, "pages_written")), (32, 16));
        assert_eq!(fw(&d, "stalls"), 0);
        d.drain().unwrap();
        d.check_firmware().unwrap();
        assert!(
            (0..32).all(|l| mapped(&d, l)) && !mapped(&d, 32),
            "the oldest units went"
        );
        // Their slots are free again: 31 more writes fit without another batch.
        t = t.max(d.now());
        for lpn in 33..64 {
            t = d.run_request(t, &req(Op::Write, lpn * 4 * KIB, 4 * KIB)).unwrap() + 1;
        }
        assert_eq!(fw(&d, "evict_dirty"), 32);
    }

    #[test]
    fn the_copy_adds_its_time_after_the_link() {
        let mut d = device("4KiB", "16KiB", "lru");
        let done = d.run_request(0, &req(Op::Write, 0, 4 * KIB)).unwrap();
        let link_end = CMD + LINK4;
        assert_eq!(done - link_end, M4, "the copy of 4 KiB at 60 MB/s");
        assert_eq!(done, 90_094);
        assert_eq!(fw(&d, "memcpy_bytes"), 4 * KIB);
        // A 6 KiB write straddling two units copies its 6 KiB, not two units.
        let t = 1_000_000;
        let done = d.run_request(t, &req(Op::Write, 10 * KIB, 6 * KIB)).unwrap();
        assert_eq!(done, t + CMD + 5_000 + 10_240 + 102_400);
        assert_eq!(fw(&d, "memcpy_bytes"), 10 * KIB);
        assert_eq!(d.ftl.stats.host_pages_programmed, 0, "all in the buffer");
    }

    #[test]
    fn a_write_hit_overwrites_in_place() {
        let mut d = device("8KiB", "16KiB", "lru");
        put(&mut d, 0, 3);
        let t = 1_000_000;
        assert_eq!(put(&mut d, t, 3), t + CMD + LINK8 + M8);
        assert_eq!(fw(&d, "write_hits"), 1);
        assert_eq!(d.ftl.stats.host_pages_programmed, 0);
        // A third unit fits in the slot the hit did not take: still nothing programmed.
        put(&mut d, 2 * t, 4);
        assert_eq!((d.ftl.stats.host_pages_programmed, fw(&d, "stalls")), (0, 0));
        // A read hit is served from DRAM: the link only (one unit: sent from its slot).
        let r = d.run_request(3 * t, &req(Op::Read, 3 * 8 * KIB, 8 * KIB)).unwrap();
        assert_eq!(r, 3 * t + CMD + LINK8);
        assert_eq!((d.counters.buffer_read_units, d.counters.host_page_reads), (1, 0));
    }

    #[test]
    fn a_read_of_several_units_gathers_the_buffered_ones_by_a_copy() {
        let mut d = device("4KiB", "16KiB", "lru");
        d.run_request(0, &req(Op::Write, 0, 8 * KIB)).unwrap();
        let t = 1_000_000;
        // Two 4 KiB units from the buffer: copied into the DMA area, then over the link.
        let r = d.run_request(t, &req(Op::Read, 0, 8 * KIB)).unwrap();
        assert_eq!(r, t + CMD + M8 + LINK8, "8 KiB copied at 60 MB/s, then the link");
        // One unit: sent from its slot.
        let t = 2_000_000;
        assert_eq!(d.run_request(t, &req(Op::Read, 0, 4 * KIB)).unwrap(), t + CMD + LINK4);
        assert_eq!(fw(&d, "memcpy_bytes"), 16 * KIB);
        assert_eq!((fw(&d, "read_hits"), d.counters.host_page_reads), (3, 0));
    }

    #[test]
    fn a_partly_written_unit_on_flash_is_read_before_the_write_is_copied() {
        // Four 4 KiB slots, two units per page.
        let mut d = device("4KiB", "16KiB", "lru");
        d.run_request(0, &req(Op::Write, 0, 16 * KIB)).unwrap(); // units 0..3
        d.run_request(1_000_000, &req(Op::Write, 16 * KIB, 8 * KIB)).unwrap(); // 0, 1 out
        d.run_request(2_000_000, &req(Op::Trim, 8 * KIB, 8 * KIB)).unwrap(); // room for two
        assert!(mapped(&d, 0) && !mapped(&d, 2));
        // 2 KiB into unit 0 (on flash): its 4 KiB are read (tR, 4 KiB over the channel),
        // which ends after the link; then the 2 KiB are copied.
        let t = 3_000_000;
        let done = d.run_request(t, &req(Op::Write, 0, 2 * KIB)).unwrap();
        assert_eq!(done, t + CMD + 25_000 + 40_960 + 34_134);
        assert_eq!(d.counters.rmw_page_reads, 1);
        // 2 KiB into unit 4 (buffered): no read, the link then the copy.
        let t = 4_000_000;
        let done = d.run_request(t, &req(Op::Write, 16 * KIB, 2 * KIB)).unwrap();
        assert_eq!(done, t + CMD + 5_000 + 3_414 + 34_134);
        assert_eq!((d.counters.rmw_page_reads, fw(&d, "write_hits")), (1, 1));
    }

    #[test]
    fn a_trim_drops_buffered_units_and_data_read_before_it() {
        let mut d = device("8KiB", "16KiB", "cflru");
        put(&mut d, 0, 0);
        put(&mut d, 1_000_000, 1);
        // Unit 2 evicts 0; while 0 is being programmed it is trimmed: reads find nothing.
        let t = 2_000_000;
        d.advance_to(t).unwrap();
        d.submit(t, &req(Op::Write, 2 * 8 * KIB, 8 * KIB), 0).unwrap();
        d.advance_to(t + CMD + 1).unwrap();
        d.submit(t + CMD + 1, &req(Op::Trim, 0, 8 * KIB), 1).unwrap();
        d.advance_to(t + CMD + 2).unwrap();
        d.check_firmware().unwrap();
        let r = t + 100_000;
        d.advance_to(r).unwrap();
        d.submit(r, &req(Op::Read, 0, 8 * KIB), 2).unwrap();
        d.drain().unwrap();
        d.check_firmware().unwrap();
        let read_done = d.completions.iter().find(|c| c.0 == 2).unwrap().1;
        assert_eq!(read_done, r + CMD + LINK8, "unmapped: the link only");
        assert_eq!((d.counters.buffer_read_units, d.counters.unmapped_read_units), (0, 1));
        // Unit 1 goes to flash (written by 3, 4); a read of it and a trim right behind: the
        // read serves the data, the trim wins: no clean copy is kept.
        put(&mut d, 3_000_000, 3);
        put(&mut d, 4_000_000, 4);
        d.run_request(4_500_000, &req(Op::Trim, 3 * 8 * KIB, 8 * KIB)).unwrap(); // a free slot
        assert!(mapped(&d, 1));
        let t = 5_000_000;
        d.advance_to(t).unwrap();
        d.submit(t, &req(Op::Read, 8 * KIB, 8 * KIB), 3).unwrap();
        d.submit(t, &req(Op::Trim, 8 * KIB, 8 * KIB), 4).unwrap();
        d.drain().unwrap();
        d.check_firmware().unwrap();
        assert_eq!(d.counters.host_page_reads, 1);
        assert_eq!(fw(&d, "clean_fills"), 0);
        let t = 6_000_000;
        assert_eq!(
            d.run_request(t, &req(Op::Read, 8 * KIB, 8 * KIB)).unwrap(),
            t + CMD + LINK8
        );
        // Without the trim, the data read is kept in the free slot.
        d.run_request(7_000_000, &req(Op::Read, 2 * 8 * KIB, 8 * KIB)).unwrap();
        d.check_firmware().unwrap();
        assert_eq!(fw(&d, "clean_fills"), 1);
    }

    #[test]
    fn lru_writes_the_least_recently_written_unit() {
        // Two 8 KiB slots: A, B, A, C leaves B as the victim.
        let mut d = device("8KiB", "16KiB", "lru");
        let (a, b, c) = (0, 1, 2);
        for (i, u) in [a, b, a, c].into_iter().enumerate() {
            put(&mut d, i as u64 * 1_000_000, u);
        }
        assert!(mapped(&d, b) && !mapped(&d, a) && !mapped(&d, c));
        assert_eq!(
            (fw(&d, "write_hits"), fw(&d, "evict_dirty"), fw(&d, "pages_written")),
            (1, 1, 1)
        );
        // B is read from flash now, A and C from the buffer.
        d.run_request(5_000_000, &req(Op::Read, 0, 24 * KIB)).unwrap();
        assert_eq!((d.counters.host_page_reads, d.counters.buffer_read_units), (1, 2));
    }

    #[test]
    fn a_write_into_a_full_buffer_waits_for_the_victims_program() {
        let mut d = device("8KiB", "16KiB", "lru");
        put(&mut d, 0, 0);
        put(&mut d, 1_000_000, 1);
        let t = 2_000_000;
        // The victim's program starts when the command is taken (its data is in DRAM):
        // channel, tPROG; then the new unit is copied into the freed slot.
        assert_eq!(put(&mut d, t, 2), t + CMD + CH + P + M8);
        assert_eq!((d.counters.buffer_stalls, fw(&d, "stalls")), (1, 1));
        // Two writes at once into the full buffer: the second waits behind the first, in
        // order, and evicts when its turn comes.
        let t = 3_000_000;
        d.advance_to(t).unwrap();
        d.submit(t, &req(Op::Write, 3 * 8 * KIB, 8 * KIB), 0).unwrap();
        d.submit(t, &req(Op::Write, 4 * 8 * KIB, 8 * KIB), 1).unwrap();
        d.drain().unwrap();
        d.check_firmware().unwrap();
        let mut done = [0; 2];
        for (tag, c) in d.completions.drain(..) {
            done[tag as usize] = c;
        }
        let first = t + CMD + CH + P + M8;
        assert_eq!(done[0], first);
        // The second evicts when its turn comes: once the first has taken the slot the first
        // program freed, the LRU unit (2) is programmed, then the second is copied.
        assert_eq!(done[1], t + CMD + 2 * (CH + P) + M8);
        assert_eq!(d.counters.buffer_stalls, 3);
    }

    #[test]
    fn cflru_drops_a_clean_unit_of_its_window_before_an_older_dirty_one() {
        // Eight 8 KiB slots: a window of two at the LRU end.
        let mut d = device("8KiB", "64KiB", "cflru");
        let mut t = 0;
        let mut next = || {
            t += 1_000_000;
            t
        };
        for u in 0..8 {
            put(&mut d, next(), u);
        }
        put(&mut d, next(), 8); // window [0, 1], both dirty: 0 is written
        assert!(mapped(&d, 0));
        assert_eq!(fw(&d, "evict_dirty"), 1);
        d.run_request(next(), &req(Op::Trim, 8 * KIB, 16 * KIB)).unwrap(); // drops 1, 2
        d.run_request(next(), &req(Op::Read, 0, 8 * KIB)).unwrap(); // 0 from flash, kept clean
        assert_eq!((fw(&d, "clean_fills"), d.counters.host_page_reads), (1, 1));
        d.run_request(next(), &req(Op::Read, 0, 8 * KIB)).unwrap();
        assert_eq!(d.counters.host_page_reads, 1, "the clean copy serves the read");
        put(&mut d, next(), 9);
        for u in 4..=9 {
            put(&mut d, next(), u); // hits: recency 3, 0 (clean), 4, ..., 9
        }
        let programmed = d.ftl.stats.host_pages_programmed;
        let t10 = next();
        // The clean 0 goes, without a flash write and without waiting; 3 stays.
        assert_eq!(put(&mut d, t10, 10), t10 + CMD + LINK8 + M8);
        assert_eq!(d.ftl.stats.host_pages_programmed, programmed);
        assert_eq!((fw(&d, "evict_clean"), fw(&d, "evict_dirty")), (1, 1));
        assert!(!mapped(&d, 3));
        // Window [3, 4], both dirty: the LRU one, 3, is written.
        put(&mut d, next(), 11);
        assert!(mapped(&d, 3) && !mapped(&d, 4));
        assert_eq!(fw(&d, "evict_dirty"), 2);
    }

    #[test]
    fn bplru_writes_the_lru_block_whole_and_sequential_blocks_first() {
        // Blocks of 4 pages (4 logical units of 8 KiB), six slots.
        let mut d = device_with(2, 4, "8KiB", "48KiB", "bplru", "");
        for (i, u) in [5, 0, 4, 1, 8, 9].into_iter().enumerate() {
            put(&mut d, i as u64 * 1_000_000, u);
        }
        // Blocks by recency: 1 (units 5, 4), 0, 2. A seventh unit evicts block 1 whole.
        put(&mut d, 7_000_000, 12);
        assert!(mapped(&d, 4) && mapped(&d, 5));
        assert!(![0, 1, 8, 9, 12].iter().any(|&u| mapped(&d, u)));
        assert_eq!((fw(&d, "evict_dirty"), fw(&d, "pages_written")), (2, 2));
        // Compensation: block 2 written whole in order goes before the older block 0.
        let mut d = device_with(2, 4, "8KiB", "48KiB", "bplru", "");
        for (i, u) in [0, 8, 9, 10, 11, 4, 5].into_iter().enumerate() {
            put(&mut d, i as u64 * 1_000_000, u);
        }
        assert!((8..=11).all(|u| mapped(&d, u)));
        assert!(![0, 4, 5].iter().any(|&u| mapped(&d, u)));
        assert_eq!(fw(&d, "evict_dirty"), 4);
    }

    #[test]
    fn config_checks_name_the_key() {
        let text = |extra: &str, buffer: &str| {
            format!(
                "[device]\npreset = \"slc-sata\"\n[device.ftl]\ndesign = \"scheme-one\"\nwrite_buffer = \"{buffer}\"\n{extra}"
            )
        };
        let err = |t: String| {
            parse_config(&t, "t.toml", Path::new("."))
                .expect_err("refused")
                .to_string()
        };
        let e = err(text(
            "buffer_policy = \"fifo\"\n[device.controller]\nmemcpy_rate = \"60MB/s\"\n",
            "1MiB",
        ));
        assert!(
            e.contains("device.ftl.buffer_policy") && e.contains("got \"fifo\"; expected lru, cflru or bplru"),
            "{e}"
        );
        let e = err(text("", "1MiB"));
        assert!(e.contains("device.ftl.design") && e.contains("memcpy_rate"), "{e}");
        let e = err(text("[device.controller]\nmemcpy_rate = \"60MB/s\"\n", "0"));
        assert!(
            e.contains("device.ftl.write_buffer") && e.contains("at least one page"),
            "{e}"
        );
        parse_config(
            &text("[device.controller]\nmemcpy_rate = \"60MB/s\"\n", "1MiB"),
            "t.toml",
            Path::new("."),
        )
        .unwrap();
    }

    /// Random reads, writes (partial units included) and trims on a small device under GC,
    /// several in flight: every read serves the latest data placed of each unit, and the
    /// design's invariants hold after every event.
    #[test]
    fn reads_never_return_stale_data() {
        const UNITS: u64 = 40; // the logical units used (of 128): rewrites, hits, GC
        for policy in replacement::NAMES {
            for seed in 0..6u64 {
                EVENTS.with(|e| e.borrow_mut().clear());
                let qd = format!("queue_depth = {}", seed % 2);
                let mut d = device_with(2, 4, "4KiB", "24KiB", policy, &qd);
                let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
                let mut t = 0;
                let n = 400;
                let step_all = |d: &mut Device, until: Option<u64>| {
                    while d.next_event().is_some_and(|e| until.is_none_or(|u| e <= u)) {
                        d.step().unwrap();
                        d.check_firmware()
                            .unwrap_or_else(|m| panic!("{policy} seed {seed}: {m}"));
                        d.ftl.check_invariants().unwrap();
                    }
                };
                for tag in 0..n {
                    t += rng.gen_range(0..500_000);
                    step_all(&mut d, Some(t));
                    let sectors = UNITS * 2; // 2 KiB steps
                    let len = rng.gen_range(1..=6u64);
                    let off = rng.gen_range(0..=sectors - len);
                    let op = match rng.gen_range(0..20) {
                        0..=10 => Op::Write,
                        11..=18 => Op::Read,
                        _ => Op::Trim,
                    };
                    d.submit(t, &req(op, off * 2 * KIB, len * 2 * KIB), tag).unwrap();
                    d.check_firmware().unwrap();
                }
                step_all(&mut d, None);
                assert_eq!(d.completions.len(), n as usize, "{policy} seed {seed}: all complete");
                assert!(d.ftl.stats.gc_runs() > 0, "{policy} seed {seed}: GC ran");
                let mut latest: HashMap<u64, u64> = HashMap::new();
                let mut reads = 0;
                for e in EVENTS.with(|e| e.borrow().clone()) {
                    match e {
                        Event::Write { lpn, version } => {
                            latest.insert(lpn, version);
                        }
                        Event::Trim { lpn } => {
                            latest.remove(&lpn);
                        }
                        Event::Read { lpn, version } => {
                            let want = latest.get(&lpn).copied().unwrap_or(0);
                            assert_eq!(version, want, "{policy} seed {seed}: unit {lpn} read stale");
                            reads += 1;
                        }
                    }
                }
                assert!(reads > 100);
                assert!(fw(&d, "evict_dirty") > 0 && fw(&d, "write_hits") > 0);
                if policy == "cflru" {
                    assert!(fw(&d, "clean_fills") > 0 && fw(&d, "evict_clean") > 0, "seed {seed}");
                }
            }
        }
    }
}
