//! "openssd": scheme two of seed 002, the optimised FTL of the Cosmos OpenSSD board
//! (sections 3 and 4), on 4 KiB mapping units and 8 KiB pages.
//!
//! - **Write buffer**: an append-only FIFO of `device.ftl.write_buffer` bytes in mapping-unit
//!   slots. A write's data crosses the host link and its units are appended at the tail in
//!   order; the write completes when its data is in DRAM. A unit already in the buffer is not
//!   overwritten in place (that would need a memcpy, 60 MB/s on the board): its older slot is
//!   marked invalid and the new data appended. An index maps each logical unit to its latest
//!   slot.
//! - **Proactive flush**: whenever the unflushed part of the FIFO reaches half the buffer,
//!   [`FLUSH_PAGES`] pages (128 KiB on the board) are taken from the head, page by page (`units_per_page`
//!   consecutive slots form a page), each to the plane `Device::choose_plane` gives ("whichever
//!   channel and way is idle" with least-busy allocation). A page with invalid slots is
//!   programmed with its valid units only, the rest padded: the invalid data the seed says is
//!   written back. A page whose slots are all invalid is not programmed at all: its slots are
//!   freed at once. A flushed slot's space is freed when its program ends; until then reads of
//!   its unit are served from DRAM. Flushes use the FTL's host frontier of stream 0 (the FIFO
//!   mixes every stream).
//! - **Passive flush**: a write that does not fit in the free space waits, in arrival order,
//!   and is counted in `buffer_stalls`; pages are flushed from the head until the free space
//!   plus the space of programs under way covers it. Its data crosses the link once it has
//!   space (the board stops taking the command's data). A write larger than the whole buffer
//!   could never fit: it goes in pieces of half the buffer, each placed (and its data moved
//!   over the link) when it fits; the request completes with its last piece.
//! - Space is counted, not positioned: a slot whose program ended is free even if older slots
//!   are still being programmed (the board's FIFO is a ring; programs on the planes end in any
//!   order).
//! - **Read cache**: `device.ftl.read_cache` bytes of page-sized units, an ordered index from
//!   logical unit to cache unit (the seed's red-black tree), used units on an LRU list, unused
//!   units in a FIFO (taken from its head, returned at its tail). A host read that goes to
//!   flash reads the whole page; when it completes, the page's units whose map entry still
//!   points there (as when the read was issued) enter the cache, the page's other unit too. A
//!   hit moves its unit to the MRU end; with no free unit the LRU one is evicted.
//! - **Prefetch** (`device.ftl.prefetch` units on each side): each neighbour of a host read
//!   mapped on flash, neither buffered nor cached, whose page sits on a channel idle now, is
//!   read into the cache; the host read is queued first and is not delayed.
//! - **Consistency** (section 4.3): a write drops the unit's older slot, its cache entry and
//!   its flash copy (the map entry, not counted as a trim), then appends; a read looks in the
//!   buffer, then the cache, then the flash; cached data keeps its flash copy. A trim drops the
//!   unit from the buffer index, the cache and the map.
//! - **Flash management** is the core's: free blocks in a min-heap by erase count (least
//!   worn first), greedy GC over per-valid-count bucket lists (valid *units*: 513 lists for
//!   256 pages of 2 units), GC copies through the controller's DRAM (the board has no
//!   copyback: `device.nand.copyback = false`) into each plane's GC frontier (the die's
//!   reserved block, `gc_frontier = "separate"`), `parallel_gc` in `Device::program_units`,
//!   blocks retired at endurance. GC moves of cached units reach the cache through the FTL's
//!   move log (`Ftl::moves`).
//! - A write that covers part of a mapping unit reads the unit's flash copy first
//!   (read-modify-write) unless the unit is buffered or cached.

use super::Firmware;
use crate::device_config::DeviceConfig;
use crate::ftl::NONE;
use crate::mechanisms::{partial_units, Mechanisms, Token};
use crate::request::{Op, Request};
use crate::units::fmt_size;
use crate::{Error, Result};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// Pages a flush takes from the FIFO head (16 × 8 KiB = 128 KiB on the board).
pub const FLUSH_PAGES: usize = 16;

const NIL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    lpn: u64,
    /// Holds its unit's latest data (not superseded by a later write, nor trimmed).
    valid: bool,
    /// Sequence number of the write that brought it.
    version: u64,
    /// When its data is in DRAM (the end of its host transfer).
    at: u64,
}

/// A piece of a write waiting for buffer space (a whole write, or part of one larger than
/// the buffer).
#[derive(Clone, Copy, Debug)]
struct Piece {
    pid: u32,
    first: u64,
    /// Last logical unit (inclusive).
    last: u64,
    bytes: u64,
    version: u64,
    /// The request's last piece: placing it completes the request.
    end: bool,
}

impl Piece {
    fn units(&self) -> usize {
        (self.last - self.first + 1) as usize
    }
}

/// A unit of a flash page as it was when a read of the page was issued.
#[derive(Clone, Copy, Debug)]
struct Owner {
    pun: u32,
    lpn: u64,
    version: u64,
}

/// The design's own flash operations, by token.
#[derive(Debug)]
enum Job {
    /// A flushed page: its slots (valid and invalid), and the write waiting for it
    /// (`flush_wait`).
    Program(Vec<u32>, Option<u32>),
    /// A prefetch read of a page.
    Prefetch(Vec<Owner>),
}

struct WriteBuffer {
    slots: Vec<Slot>,
    /// Free slots.
    free: Vec<u32>,
    /// Unflushed slots, oldest first.
    fifo: VecDeque<u32>,
    /// Slots of pages being programmed.
    inflight: usize,
    /// Logical unit → its latest slot.
    index: HashMap<u64, u32>,
    /// Writes waiting for space, in arrival order.
    waiting: VecDeque<Piece>,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    lpn: u64,
    /// Where the cached data sits on flash (followed through GC moves).
    pun: u32,
    version: u64,
    /// Brought by a prefetch and not hit since.
    prefetched: bool,
}

/// The read cache: page-sized units on an LRU list (used) or in a FIFO (free).
struct Cache {
    entries: Vec<Vec<Entry>>,
    prev: Vec<u32>,
    next: Vec<u32>,
    mru: u32,
    lru: u32,
    free: VecDeque<u32>,
    index: BTreeMap<u64, u32>,
}

impl Cache {
    fn new(units: usize) -> Cache {
        Cache {
            entries: vec![Vec::new(); units],
            prev: vec![NIL; units],
            next: vec![NIL; units],
            mru: NIL,
            lru: NIL,
            free: (0..units as u32).collect(),
            index: BTreeMap::new(),
        }
    }

    fn enabled(&self) -> bool {
        !self.entries.is_empty()
    }

    fn unlink(&mut self, u: u32) {
        let (p, n) = (self.prev[u as usize], self.next[u as usize]);
        if p == NIL {
            self.mru = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NIL {
            self.lru = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.prev[u as usize] = NIL;
        self.next[u as usize] = NIL;
    }

    fn push_mru(&mut self, u: u32) {
        self.prev[u as usize] = NIL;
        self.next[u as usize] = self.mru;
        if self.mru == NIL {
            self.lru = u;
        } else {
            self.prev[self.mru as usize] = u;
        }
        self.mru = u;
    }

    /// A hit on `lpn`: its unit becomes the most recently used.
    fn hit(&mut self, lpn: u64) -> Option<&mut Entry> {
        let u = *self.index.get(&lpn)?;
        if self.mru != u {
            self.unlink(u);
            self.push_mru(u);
        }
        self.entries[u as usize].iter_mut().find(|e| e.lpn == lpn)
    }

    /// Drop `lpn`; a unit left empty returns to the tail of the free FIFO.
    fn remove(&mut self, lpn: u64) -> bool {
        let Some(u) = self.index.remove(&lpn) else {
            return false;
        };
        let es = &mut self.entries[u as usize];
        es.retain(|e| e.lpn != lpn);
        if es.is_empty() {
            self.unlink(u);
            self.free.push_back(u);
        }
        true
    }

    /// Put `es` (units of one flash page) in a unit taken from the head of the free FIFO,
    /// evicting the LRU unit first when none is free. Returns whether it evicted.
    fn insert(&mut self, es: Vec<Entry>) -> bool {
        let evicted = self.free.is_empty();
        if evicted {
            let u = self.lru;
            for e in std::mem::take(&mut self.entries[u as usize]) {
                self.index.remove(&e.lpn);
            }
            self.unlink(u);
            self.free.push_back(u);
        }
        let u = self.free.pop_front().expect("a free cache unit");
        for e in &es {
            self.index.insert(e.lpn, u);
        }
        self.entries[u as usize] = es;
        self.push_mru(u);
        evicted
    }

    /// GC moved `lpn` from `from` to `to`.
    fn follow(&mut self, lpn: u64, from: u32, to: u32) {
        if let Some(&u) = self.index.get(&lpn) {
            for e in self.entries[u as usize].iter_mut() {
                if e.lpn == lpn && e.pun == from {
                    e.pun = to;
                }
            }
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Counters {
    write_buffer_hits: u64,
    slots_flushed: u64,
    pages_flushed: u64,
    pages_skipped: u64,
    invalid_slots_written: u64,
    read_cache_hits: u64,
    read_cache_misses: u64,
    read_cache_evictions: u64,
    prefetch_reads: u64,
    prefetch_useful: u64,
    buffer_stalls: u64,
}

/// Data versions, to check that no read returns stale data (tests): the version each
/// physical unit holds, and what each host read unit was served.
struct Versions {
    phys: Vec<u64>,
    served: Vec<(u64, u64)>,
}

pub struct OpenSsd {
    unit_size: u64,
    upp: usize,
    /// Write-buffer slots.
    capacity: usize,
    prefetch: u64,
    buf: WriteBuffer,
    cache: Cache,
    jobs: Vec<Option<Job>>,
    free_jobs: Vec<u32>,
    /// Pages host reads are bringing into the cache, per pending request.
    reads: HashMap<u32, Vec<Owner>>,
    /// Version of each write waiting for its read-modify-write reads.
    rmw: HashMap<u32, u64>,
    write_seq: u64,
    /// `device.ftl.flush_wait`: a write that starts a proactive flush completes when the
    /// flush's programs have ended.
    flush_wait: bool,
    /// The write whose proactive flush is being issued (`flush_wait`).
    flushing_for: Option<u32>,
    /// Writes waiting for their flush (`flush_wait`): programs left, when their data was in.
    waits: HashMap<u32, (u32, u64)>,
    c: Counters,
    track: Option<Box<Versions>>,
}

/// The design for a device configuration.
pub fn make(cfg: &DeviceConfig) -> Result<Box<dyn Firmware>> {
    Ok(Box::new(OpenSsd::new(cfg)))
}

/// The keys the design reads: `Err((key under device.ftl, message))`.
pub fn check_config(cfg: &DeviceConfig) -> std::result::Result<(), (String, String)> {
    let (page, unit) = (cfg.geometry.page_size.0, cfg.geometry.mapping_unit.0);
    let t = &cfg.ftl;
    if unit == 0 || unit > page || !page.is_multiple_of(unit) {
        return Err((
            "design".into(),
            format!(
                "got mapping_unit {} with page_size {}; expected a mapping unit of a page or a fraction of one (4KiB on the board's 8KiB pages)",
                fmt_size(unit),
                fmt_size(page)
            ),
        ));
    }
    let wb = t.write_buffer.0;
    let min = FLUSH_PAGES as u64 * page;
    if wb < min {
        return Err((
            "write_buffer".into(),
            format!(
                "got {}; expected at least {FLUSH_PAGES} pages ({}) for a {FLUSH_PAGES}-page flush (128 KiB on the board)",
                fmt_size(wb),
                fmt_size(min)
            ),
        ));
    }
    if !wb.is_multiple_of(unit) {
        return Err((
            "write_buffer".into(),
            format!(
                "got {}; expected a multiple of the mapping unit ({})",
                fmt_size(wb),
                fmt_size(unit)
            ),
        ));
    }
    let rc = t.read_cache.0;
    if !rc.is_multiple_of(page) {
        return Err((
            "read_cache".into(),
            format!(
                "got {}; expected a multiple of the page size ({})",
                fmt_size(rc),
                fmt_size(page)
            ),
        ));
    }
    if t.prefetch > 0 && rc == 0 {
        return Err((
            "prefetch".into(),
            format!(
                "got {} with read_cache 0; expected 0 or a read cache to prefetch into",
                t.prefetch
            ),
        ));
    }
    Ok(())
}

impl OpenSsd {
    pub fn new(cfg: &DeviceConfig) -> OpenSsd {
        let unit_size = cfg.geometry.mapping_unit.0;
        let page = cfg.geometry.page_size.0;
        let capacity = (cfg.ftl.write_buffer.0 / unit_size) as usize;
        OpenSsd {
            unit_size,
            upp: (page / unit_size) as usize,
            capacity,
            prefetch: cfg.ftl.prefetch as u64,
            buf: WriteBuffer {
                slots: vec![Slot::default(); capacity],
                free: (0..capacity as u32).rev().collect(),
                fifo: VecDeque::with_capacity(capacity),
                inflight: 0,
                index: HashMap::new(),
                waiting: VecDeque::new(),
            },
            cache: Cache::new((cfg.ftl.read_cache.0 / page) as usize),
            jobs: Vec::new(),
            free_jobs: Vec::new(),
            reads: HashMap::new(),
            rmw: HashMap::new(),
            write_seq: 0,
            flush_wait: cfg.ftl.flush_wait,
            flushing_for: None,
            waits: HashMap::new(),
            c: Counters::default(),
            track: None,
        }
    }

    fn new_job(&mut self, j: Job) -> u32 {
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

    #[inline]
    fn served(&mut self, lpn: u64, version: u64) {
        if let Some(t) = self.track.as_mut() {
            t.served.push((lpn, version));
        }
    }

    #[inline]
    fn phys_version(&self, pun: u32) -> u64 {
        self.track.as_ref().map_or(0, |t| t.phys[pun as usize])
    }

    /// Take the FTL's log of GC moves: cached units follow their data.
    fn take_moves(&mut self, dev: &mut dyn Mechanisms) {
        dev.ftl_mut().record_moves = true;
        if dev.ftl().moves.is_empty() {
            return;
        }
        let mut moves = std::mem::take(&mut dev.ftl_mut().moves);
        for m in &moves {
            if let Some(t) = self.track.as_mut() {
                t.phys[m.to as usize] = t.phys[m.from as usize];
            }
            self.cache.follow(m.lpn as u64, m.from, m.to);
        }
        moves.clear();
        dev.ftl_mut().moves = moves;
    }

    /// The units of the page starting at `page` as they are now.
    fn owners_of(&self, dev: &dyn Mechanisms, page: u32, out: &mut Vec<Owner>) {
        for pun in page..page + self.upp as u32 {
            let lpn = dev.ftl().owner(pun);
            if lpn != NONE {
                out.push(Owner {
                    pun,
                    lpn: lpn as u64,
                    version: self.phys_version(pun),
                });
            }
        }
    }

    /// A read of pages ended: their units still mapped where they were when it was issued,
    /// neither buffered nor cached, enter the cache (one cache unit per page).
    fn insert_owners(&mut self, dev: &dyn Mechanisms, owners: &[Owner], prefetched: bool) {
        let upp = self.upp as u32;
        let mut i = 0;
        while i < owners.len() {
            let page = owners[i].pun / upp;
            let mut es = Vec::new();
            while i < owners.len() && owners[i].pun / upp == page {
                let o = owners[i];
                i += 1;
                if dev.ftl().owner(o.pun) as u64 == o.lpn
                    && !self.buf.index.contains_key(&o.lpn)
                    && !self.cache.index.contains_key(&o.lpn)
                {
                    es.push(Entry {
                        lpn: o.lpn,
                        pun: o.pun,
                        version: o.version,
                        prefetched,
                    });
                }
            }
            if !es.is_empty() && self.cache.insert(es) {
                self.c.read_cache_evictions += 1;
            }
        }
    }

    fn read(&mut self, dev: &mut dyn Mechanisms, pid: u32, req: &Request) -> Result<()> {
        let us = self.unit_size;
        let upp = self.upp as u32;
        let first = req.offset / us;
        let last = (req.offset + req.len - 1) / us;
        let mut ready = dev.now();
        // Pages to read: (first physical unit, units wanted).
        let mut pages: Vec<(u32, u64)> = Vec::new();
        for lpn in first..=last {
            dev.counters_mut().host_read_units += 1;
            if let Some(&s) = self.buf.index.get(&lpn) {
                dev.counters_mut().buffer_read_units += 1;
                let slot = self.buf.slots[s as usize];
                ready = ready.max(slot.at);
                self.served(lpn, slot.version);
                continue;
            }
            if let Some(e) = self.cache.hit(lpn) {
                let useful = std::mem::take(&mut e.prefetched);
                let v = e.version;
                self.c.read_cache_hits += 1;
                self.c.prefetch_useful += useful as u64;
                self.served(lpn, v);
                continue;
            }
            let pun = dev.ftl().lookup(lpn);
            if pun == NONE {
                dev.counters_mut().unmapped_read_units += 1;
                self.served(lpn, 0);
                continue;
            }
            self.c.read_cache_misses += 1;
            let v = self.phys_version(pun);
            self.served(lpn, v);
            let page = pun - pun % upp;
            match pages.iter_mut().find(|p| p.0 == page) {
                Some(p) => p.1 += 1,
                None => pages.push((page, 1)),
            }
        }
        dev.pending_mut(pid).ready = ready;
        let whole = self.cache.enabled();
        let mut owners = Vec::new();
        for &(page, n) in &pages {
            dev.counters_mut().host_page_reads += 1;
            if whole {
                dev.read_page(pid, page, upp as u64);
                self.owners_of(dev, page, &mut owners);
            } else {
                dev.read_page(pid, page, n);
            }
        }
        if !owners.is_empty() {
            self.reads.insert(pid, owners);
        }
        self.prefetch(dev, first, last, &pages);
        if dev.pending(pid).remaining == 0 {
            dev.deliver(pid, ready);
        }
        Ok(())
    }

    /// Read into the cache the neighbours of a host read of `first..=last` whose page sits
    /// on an idle channel (`pages`: the pages the host read itself reads).
    fn prefetch(&mut self, dev: &mut dyn Mechanisms, first: u64, last: u64, pages: &[(u32, u64)]) {
        if self.prefetch == 0 || !self.cache.enabled() {
            return;
        }
        let upp = self.upp as u32;
        let lo = first.saturating_sub(self.prefetch);
        let hi = (last + self.prefetch).min(dev.geo().logical_units - 1);
        let mut issued: Vec<u32> = Vec::new();
        for lpn in (lo..first).chain(last + 1..=hi) {
            if self.buf.index.contains_key(&lpn) || self.cache.index.contains_key(&lpn) {
                continue;
            }
            let pun = dev.ftl().lookup(lpn);
            if pun == NONE {
                continue;
            }
            let page = pun - pun % upp;
            if pages.iter().any(|p| p.0 == page) || issued.contains(&page) {
                continue;
            }
            let plane = dev.geo().plane_of_block(dev.geo().block_of_unit(pun));
            if !dev.channel_idle(dev.geo().channel_of_plane(plane)) {
                continue;
            }
            let mut owners = Vec::new();
            self.owners_of(dev, page, &mut owners);
            let token = self.new_job(Job::Prefetch(owners));
            dev.flash_read(page, upp as u64, Token::Firmware(token));
            self.c.prefetch_reads += 1;
            issued.push(page);
        }
    }

    fn write(&mut self, dev: &mut dyn Mechanisms, pid: u32, req: &Request) -> Result<()> {
        let us = self.unit_size;
        let first = req.offset / us;
        let last = (req.offset + req.len - 1) / us;
        dev.counters_mut().host_write_units += last - first + 1;
        self.write_seq += 1;
        // Read-modify-write of partial units whose data is only on flash.
        for lpn in partial_units(req, us) {
            if self.buf.index.contains_key(&lpn) || self.cache.index.contains_key(&lpn) {
                continue;
            }
            let pun = dev.ftl().lookup(lpn);
            if pun != NONE {
                dev.counters_mut().rmw_page_reads += 1;
                dev.read_page(pid, pun, 1);
            }
        }
        if dev.pending(pid).remaining > 0 {
            self.rmw.insert(pid, self.write_seq);
            return Ok(());
        }
        let now = dev.now();
        self.admit(dev, pid, self.write_seq, now)
    }

    /// Write `pid` (version `version`) can go into the buffer from `t`: now, or once it
    /// waited its turn and for space.
    fn admit(&mut self, dev: &mut dyn Mechanisms, pid: u32, version: u64, t: u64) -> Result<()> {
        let req = dev.pending(pid).req;
        let us = self.unit_size;
        let first = req.offset / us;
        let last = (req.offset + req.len - 1) / us;
        let n = (last - first + 1) as usize;
        let size = if n <= self.capacity { n } else { self.capacity / 2 };
        let blocked = !self.buf.waiting.is_empty() || n > self.buf.free.len();
        if blocked {
            dev.counters_mut().buffer_stalls += 1;
            self.c.buffer_stalls += 1;
        }
        let mut lpn = first;
        let mut bytes = req.len;
        while lpn <= last {
            let end = (lpn + size as u64 - 1).min(last);
            let b = if end == last {
                bytes
            } else {
                ((end - lpn + 1) * us).min(bytes)
            };
            bytes -= b;
            self.buf.waiting.push_back(Piece {
                pid,
                first: lpn,
                last: end,
                bytes: b,
                version,
                end: end == last,
            });
            lpn = end + 1;
        }
        self.serve_waiting(dev, t)
    }

    /// Place the waiting pieces, in order, while they fit; flush to make room for the first
    /// that does not.
    fn serve_waiting(&mut self, dev: &mut dyn Mechanisms, t: u64) -> Result<()> {
        while let Some(&p) = self.buf.waiting.front() {
            let need = p.units();
            if self.buf.free.len() < need {
                self.make_room(dev, need)?;
                if self.buf.free.len() < need {
                    break;
                }
            }
            self.buf.waiting.pop_front();
            self.place(dev, &p, t)?;
        }
        Ok(())
    }

    /// Passive flush: pages from the head until the free space and that of the programs
    /// under way cover `need` slots.
    fn make_room(&mut self, dev: &mut dyn Mechanisms, need: usize) -> Result<()> {
        while self.buf.free.len() + self.buf.inflight < need {
            if !self.flush_page(dev, true)? {
                break;
            }
        }
        Ok(())
    }

    /// Append a piece's units at the FIFO tail; its data crosses the link from `t`.
    fn place(&mut self, dev: &mut dyn Mechanisms, p: &Piece, t: u64) -> Result<()> {
        let ready = dev.link(0, t, p.bytes);
        for lpn in p.first..=p.last {
            if let Some(&old) = self.buf.index.get(&lpn) {
                self.buf.slots[old as usize].valid = false;
                self.c.write_buffer_hits += 1;
            }
            self.cache.remove(lpn);
            dev.ftl_mut().unmap(lpn);
            let s = self.buf.free.pop().expect("room was checked");
            self.buf.slots[s as usize] = Slot {
                lpn,
                valid: true,
                version: p.version,
                at: ready,
            };
            self.buf.fifo.push_back(s);
            self.buf.index.insert(lpn, s);
        }
        // With `flush_wait` the write completes once the flush it starts has been programmed.
        let waiter = (p.end && self.flush_wait).then_some(p.pid);
        match waiter {
            Some(pid) => {
                self.waits.insert(pid, (0, ready));
            }
            None if p.end => dev.finish_request(p.pid, ready),
            None => {}
        }
        // Proactive flush.
        self.flushing_for = waiter;
        while self.buf.fifo.len() * 2 >= self.capacity {
            let mut n = 0;
            while n < FLUSH_PAGES && self.flush_page(dev, false)? {
                n += 1;
            }
            if n == 0 {
                break;
            }
        }
        self.flushing_for = None;
        if let Some(pid) = waiter {
            if self.waits[&pid].0 == 0 {
                self.waits.remove(&pid);
                dev.finish_request(pid, ready);
            }
        }
        Ok(())
    }

    /// Take a page of slots from the FIFO head (a partial one only if `partial`) and program
    /// its valid units; a page of invalid slots only is freed without a program. Returns
    /// false when there was no page to take.
    fn flush_page(&mut self, dev: &mut dyn Mechanisms, partial: bool) -> Result<bool> {
        let k = self.upp.min(self.buf.fifo.len());
        if k == 0 || (k < self.upp && !partial) {
            return Ok(false);
        }
        let slots: Vec<u32> = self.buf.fifo.drain(..k).collect();
        self.c.slots_flushed += k as u64;
        let mut lpns = Vec::with_capacity(k);
        let mut versions = Vec::with_capacity(k);
        let mut ready = dev.now();
        for &s in &slots {
            let sl = self.buf.slots[s as usize];
            if sl.valid {
                lpns.push(sl.lpn);
                versions.push(sl.version);
                ready = ready.max(sl.at);
            }
        }
        if lpns.is_empty() {
            self.buf.free.extend(slots);
            self.c.pages_skipped += 1;
            return Ok(true);
        }
        let plane = dev.choose_plane(0);
        let waiter = self.flushing_for;
        if let Some(pid) = waiter {
            self.waits.get_mut(&pid).expect("a waiting write").0 += 1;
        }
        let token = self.new_job(Job::Program(slots, waiter));
        dev.program_units(plane, 0, &lpns, ready, Token::Firmware(token))?;
        self.buf.inflight += k;
        self.c.pages_flushed += 1;
        self.c.invalid_slots_written += (k - lpns.len()) as u64;
        self.take_moves(dev);
        if let Some(t) = self.track.as_mut() {
            for (&lpn, &v) in lpns.iter().zip(&versions) {
                t.phys[dev.ftl().lookup(lpn) as usize] = v;
            }
        }
        Ok(true)
    }

    fn trim(&mut self, dev: &mut dyn Mechanisms, pid: u32, req: &Request) {
        let us = self.unit_size;
        for lpn in req.offset.div_ceil(us)..(req.offset + req.len) / us {
            if let Some(s) = self.buf.index.remove(&lpn) {
                self.buf.slots[s as usize].valid = false;
            }
            self.cache.remove(lpn);
        }
        dev.trim(req);
        let c = dev.link(0, dev.now(), 0);
        dev.finish_request(pid, c);
    }

    /// Record data versions from now on (tests): what each physical unit holds and what
    /// each host read unit was served. Enable before any request.
    #[cfg(test)]
    fn track_versions(&mut self, physical_units: u64) {
        self.track = Some(Box::new(Versions {
            phys: vec![0; physical_units as usize],
            served: Vec::new(),
        }));
    }

    /// The (logical unit, version) each host read unit was served since the last call.
    #[cfg(test)]
    fn take_served(&mut self) -> Vec<(u64, u64)> {
        self.track
            .as_mut()
            .map_or(Vec::new(), |t| std::mem::take(&mut t.served))
    }
}

impl Firmware for OpenSsd {
    fn name(&self) -> &'static str {
        "openssd"
    }

    fn command(&mut self, dev: &mut dyn Mechanisms, pid: u32) -> Result<()> {
        self.take_moves(dev);
        let req = dev.pending(pid).req;
        match req.op {
            Op::Read => self.read(dev, pid, &req),
            Op::Write => self.write(dev, pid, &req),
            Op::Trim => {
                self.trim(dev, pid, &req);
                Ok(())
            }
            Op::Append | Op::Zone(..) => Err(super::no_zones(self.name())),
        }
    }

    fn parts_done(&mut self, dev: &mut dyn Mechanisms, pid: u32, ready: u64) -> Result<()> {
        self.take_moves(dev);
        match dev.pending(pid).req.op {
            Op::Read => {
                if let Some(owners) = self.reads.remove(&pid) {
                    self.insert_owners(dev, &owners, false);
                }
                dev.deliver(pid, ready);
                Ok(())
            }
            Op::Write => {
                let v = self
                    .rmw
                    .remove(&pid)
                    .ok_or_else(|| Error::Invalid(format!("openssd: write {pid} had no read-modify-write")))?;
                self.admit(dev, pid, v, ready)
            }
            Op::Trim | Op::Append | Op::Zone(..) => {
                Err(Error::Invalid(format!("openssd: trim {pid} queued no flash work")))
            }
        }
    }

    fn op_done(&mut self, dev: &mut dyn Mechanisms, token: u32, time: u64) -> Result<()> {
        self.take_moves(dev);
        let job = self.jobs[token as usize]
            .take()
            .ok_or_else(|| Error::Invalid(format!("openssd: flash operation {token} unknown")))?;
        self.free_jobs.push(token);
        match job {
            Job::Program(slots, waiter) => {
                if let Some(pid) = waiter {
                    let w = self.waits.get_mut(&pid).expect("a waiting write");
                    w.0 -= 1;
                    if w.0 == 0 {
                        let ready = w.1;
                        self.waits.remove(&pid);
                        dev.finish_request(pid, time.max(ready));
                    }
                }
                self.buf.inflight -= slots.len();
                for s in slots {
                    let sl = &mut self.buf.slots[s as usize];
                    if sl.valid {
                        // Its data is on flash now: reads go there (or to the cache).
                        self.buf.index.remove(&sl.lpn);
                        sl.valid = false;
                    }
                    self.buf.free.push(s);
                }
                self.serve_waiting(dev, time)
            }
            Job::Prefetch(owners) => {
                self.insert_owners(dev, &owners, true);
                Ok(())
            }
        }
    }

    fn check(&self, dev: &dyn Mechanisms) -> std::result::Result<(), String> {
        // Every slot is free, unflushed or in a page being programmed, once.
        const FREE: u8 = 1;
        const UNFLUSHED: u8 = 2;
        const INFLIGHT: u8 = 3;
        let b = &self.buf;
        let mut state = vec![0u8; self.capacity];
        let mut mark = |s: u32, st: u8| -> std::result::Result<(), String> {
            let x = state
                .get_mut(s as usize)
                .ok_or_else(|| format!("slot {s} out of range ({} slots)", self.capacity))?;
            if *x != 0 {
                return Err(format!("slot {s} is in two places ({} and {st})", *x));
            }
            *x = st;
            Ok(())
        };
        for &s in &b.free {
            mark(s, FREE)?;
        }
        for &s in &b.fifo {
            mark(s, UNFLUSHED)?;
        }
        let mut inflight = 0;
        for j in self.jobs.iter().flatten() {
            if let Job::Program(slots, _) = j {
                inflight += slots.len();
                for &s in slots {
                    mark(s, INFLIGHT)?;
                }
            }
        }
        if inflight != b.inflight {
            return Err(format!(
                "{} slots counted in flight but programs hold {inflight}",
                b.inflight
            ));
        }
        if b.free.len() + b.fifo.len() + inflight != self.capacity {
            return Err(format!(
                "free {} + unflushed {} + in flight {inflight} != {} slots",
                b.free.len(),
                b.fifo.len(),
                self.capacity
            ));
        }
        let mut valid = 0;
        for (s, st) in state.iter().enumerate() {
            let sl = b.slots[s];
            if *st == FREE || !sl.valid {
                continue;
            }
            valid += 1;
            if b.index.get(&sl.lpn) != Some(&(s as u32)) {
                return Err(format!("valid slot {s} of unit {} is not its index entry", sl.lpn));
            }
            let pun = dev.ftl().lookup(sl.lpn);
            if *st == UNFLUSHED && pun != NONE {
                return Err(format!(
                    "unit {} is unflushed in slot {s} but still mapped on flash ({pun})",
                    sl.lpn
                ));
            }
            if *st == INFLIGHT && pun == NONE {
                return Err(format!(
                    "unit {} is being programmed from slot {s} but is not mapped",
                    sl.lpn
                ));
            }
        }
        for (&lpn, &s) in &b.index {
            let sl = b
                .slots
                .get(s as usize)
                .ok_or_else(|| format!("index: unit {lpn} → slot {s} out of range"))?;
            if state[s as usize] == FREE || !sl.valid || sl.lpn != lpn {
                return Err(format!("index: unit {lpn} → slot {s}, which does not hold it"));
            }
        }
        if valid != b.index.len() {
            return Err(format!("{valid} valid slots but {} index entries", b.index.len()));
        }
        // The cache: LRU list and free FIFO partition the units; every entry indexed, still
        // mapped where it was read (after the GC moves not yet taken), not buffered.
        let c = &self.cache;
        let n = c.entries.len();
        let mut seen = vec![false; n];
        let mut prev = NIL;
        let mut u = c.mru;
        let mut entries = 0;
        while u != NIL {
            if u as usize >= n || seen[u as usize] {
                return Err(format!("LRU list: unit {u} out of range or seen twice"));
            }
            seen[u as usize] = true;
            if c.prev[u as usize] != prev {
                return Err(format!("LRU list: unit {u}'s back link is broken"));
            }
            let es = &c.entries[u as usize];
            if es.is_empty() {
                return Err(format!("LRU list: unit {u} holds nothing"));
            }
            for e in es {
                entries += 1;
                if c.index.get(&e.lpn) != Some(&u) {
                    return Err(format!("cache unit {u} holds unit {} but the index disagrees", e.lpn));
                }
                let mut pun = e.pun;
                for m in dev.ftl().moves.iter().filter(|m| m.lpn as u64 == e.lpn) {
                    if m.from == pun {
                        pun = m.to;
                    }
                }
                if dev.ftl().lookup(e.lpn) != pun {
                    return Err(format!(
                        "cached unit {} was read at {pun} but is mapped at {}",
                        e.lpn,
                        dev.ftl().lookup(e.lpn)
                    ));
                }
                if b.index.contains_key(&e.lpn) {
                    return Err(format!("unit {} is both cached and buffered", e.lpn));
                }
            }
            prev = u;
            u = c.next[u as usize];
        }
        if c.lru != prev {
            return Err(format!("LRU tail is {} but the list ends at {prev}", c.lru));
        }
        if entries != c.index.len() {
            return Err(format!("{entries} cached units but {} index entries", c.index.len()));
        }
        for &u in &c.free {
            if u as usize >= n || seen[u as usize] {
                return Err(format!("free cache unit {u} out of range, used or listed twice"));
            }
            seen[u as usize] = true;
            if !c.entries[u as usize].is_empty() {
                return Err(format!("free cache unit {u} holds data"));
            }
        }
        if let Some(u) = seen.iter().position(|&x| !x) {
            return Err(format!("cache unit {u} is neither used nor free"));
        }
        Ok(())
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        let c = &self.c;
        vec![
            ("write_buffer_hits", c.write_buffer_hits),
            ("slots_flushed", c.slots_flushed),
            ("pages_flushed", c.pages_flushed),
            ("pages_skipped", c.pages_skipped),
            ("invalid_slots_written", c.invalid_slots_written),
            ("read_cache_hits", c.read_cache_hits),
            ("read_cache_misses", c.read_cache_misses),
            ("read_cache_evictions", c.read_cache_evictions),
            ("prefetch_reads", c.prefetch_reads),
            ("prefetch_useful", c.prefetch_useful),
            ("buffer_stalls", c.buffer_stalls),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_config_with;
    use crate::device::Device;
    use crate::host::xfer_ns;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::any::Any;
    use std::path::Path;

    const UNIT: u64 = 4096;

    /// The board's timings on 16 dies (4 channels × 4 ways) of 8 blocks of 16 pages of 8 KiB,
    /// 4 KiB units, a 128 KiB (16-page) write buffer, no read cache; `sets` change keys.
    fn cfg(sets: &[&str]) -> DeviceConfig {
        let text = r#"
[device]
preset = "cosmos-openssd"
[device.geometry]
channels = 4
ways = 4
dies_per_chip = 1
planes_per_die = 1
blocks_per_plane = 16
pages_per_block = 16
page_size = "8KiB"
mapping_unit = "4KiB"
overprovisioning = 0.75
[device.nand]
copyback = false
plane_parallel = false
[device.ftl]
design = "openssd"
allocation = "round-robin"
gc_policy = "greedy"
gc_frontier = "separate"
gc_threshold = 2
bg_gc_threshold = 0
static_wl_threshold = 0
streams = 1
write_buffer = "128KiB"
read_cache = "0"
prefetch = 0
parallel_gc = false
[device.controller]
cpus = 1
queue_depth = 0
command_time = "0ns"
read_command_time = "0ns"
unit_time = "0ns"
flash_op_time = "0ns"
"#;
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        parse_config_with(text, "openssd-test.toml", Path::new("."), &sets)
            .unwrap()
            .device
    }

    /// A device running the design, with data versions recorded.
    fn device(c: &DeviceConfig) -> Device {
        let mut d = Device::new(c, 1).unwrap();
        let units = d.geo.physical_units;
        fw(&mut d).track_versions(units);
        d
    }

    fn fw(d: &mut Device) -> &mut OpenSsd {
        let a: &mut dyn Any = d.firmware_mut().expect("a design");
        a.downcast_mut::<OpenSsd>().expect("openssd")
    }

    fn counter(d: &Device, name: &str) -> u64 {
        let f = d.firmware().expect("a design");
        f.counters().iter().find(|c| c.0 == name).expect(name).1
    }

    fn rq(op: Op, lpn: u64, units: u64) -> Request {
        Request {
            time_ns: 0,
            op,
            offset: lpn * UNIT,
            len: units * UNIT,
            stream: 0,
        }
    }

    /// Run a request now; its completion time.
    fn run(d: &mut Device, op: Op, lpn: u64, units: u64) -> u64 {
        let t = d.now();
        d.run_request(t, &rq(op, lpn, units)).unwrap()
    }

    /// Read and return what each unit was served (logical unit, version).
    fn read(d: &mut Device, lpn: u64, units: u64) -> Vec<(u64, u64)> {
        run(d, Op::Read, lpn, units);
        fw(d).take_served()
    }

    /// Let every flash operation under way end.
    fn settle(d: &mut Device) {
        let t = d.now() + 50_000_000;
        d.advance_to(t).unwrap();
        d.check_firmware().unwrap();
        d.ftl.check_invariants().unwrap();
    }

    /// Units 0..n written (version 1, one request) and programmed: with the 16-page buffer,
    /// n = 16 fills half of it and is flushed at once, unit pairs (2k, 2k + 1) on plane k
    /// (round robin).
    fn on_flash(d: &mut Device, n: u64) {
        run(d, Op::Write, 0, n);
        settle(d);
        assert_eq!(fw(d).buf.index.len(), 0);
    }

    #[test]
    fn a_rewrite_of_a_buffered_unit_invalidates_the_older_slot_and_reads_come_from_the_buffer() {
        let mut d = device(&cfg(&[]));
        run(&mut d, Op::Write, 0, 2);
        let old = fw(&mut d).buf.index[&1];
        run(&mut d, Op::Write, 1, 1);
        let f = fw(&mut d);
        let new = f.buf.index[&1];
        assert_ne!(old, new);
        assert!(!f.buf.slots[old as usize].valid && f.buf.slots[new as usize].valid);
        assert_eq!(f.buf.slots[new as usize].version, 2);
        // Appended, not overwritten: three slots used, the older one invalid.
        assert_eq!((f.buf.fifo.len(), f.buf.index.len()), (3, 2));
        assert_eq!(counter(&d, "write_buffer_hits"), 1);
        assert_eq!(read(&mut d, 0, 2), [(0, 1), (1, 2)]);
        assert_eq!((d.counters.buffer_read_units, d.counters.host_page_reads), (2, 0));
        assert_eq!(d.ftl.lookup(1), NONE);
        d.check_firmware().unwrap();
    }

    #[test]
    fn the_proactive_flush_starts_at_half_the_buffer_and_takes_sixteen_pages_from_the_head() {
        // 512 KiB: 128 slots, half = 64.
        let mut d = device(&cfg(&["device.ftl.write_buffer=\"512KiB\""]));
        for lpn in 0..63 {
            run(&mut d, Op::Write, lpn, 1);
        }
        assert_eq!((counter(&d, "pages_flushed"), fw(&mut d).buf.fifo.len()), (0, 63));
        run(&mut d, Op::Write, 63, 1);
        assert_eq!(counter(&d, "pages_flushed"), 16);
        assert_eq!(counter(&d, "slots_flushed"), 32);
        assert_eq!(d.ftl.stats.host_pages_programmed, 16);
        let f = fw(&mut d);
        assert_eq!((f.buf.fifo.len(), f.buf.inflight, f.buf.free.len()), (32, 32, 64));
        // The head went: units 0..32 are on flash (still read from DRAM until programmed).
        assert!((0..32).all(|l| d.ftl.lookup(l) != NONE));
        assert!((32..64).all(|l| d.ftl.lookup(l) == NONE));
        assert_eq!(read(&mut d, 5, 1), [(5, 5 + 1)]);
        assert_eq!(d.counters.host_page_reads, 0);
        settle(&mut d);
        assert_eq!(fw(&mut d).buf.index.len(), 32);
        assert_eq!(read(&mut d, 5, 1), [(5, 6)]);
        assert_eq!(d.counters.host_page_reads, 1);
    }

    #[test]
    fn with_flush_wait_the_write_that_starts_a_flush_completes_when_its_pages_are_programmed() {
        // 16 units (64 KiB) fill half the 32-slot buffer: their 8 pages are flushed at once,
        // one per die (round robin), two per channel. The data is in at 64 KiB / 180 MB/s =
        // 364,089 ns; the second page on each channel crosses it after the first (2 × 8 KiB
        // at 100 MB/s = 163,840 ns) and is programmed in tPROG 1,450 us: 1,977,929 ns.
        let data_in = 364_089;
        let mut d = device(&cfg(&[]));
        assert_eq!(run(&mut d, Op::Write, 0, 16), data_in);
        assert_eq!(counter(&d, "pages_flushed"), 8);
        let mut d = device(&cfg(&["device.ftl.flush_wait=true"]));
        // A write that starts no flush completes as before: 15 units, 60 KiB at 176.25 MB/s
        // (interpolated in size between 150 MB/s at 32 KiB and 180 at 64 KiB) = 348,596 ns.
        assert_eq!(run(&mut d, Op::Write, 100, 15), 348_596);
        settle(&mut d);
        let mut d = device(&cfg(&["device.ftl.flush_wait=true"]));
        let t = run(&mut d, Op::Write, 0, 16);
        assert_eq!(t, data_in + 2 * 81_920 + 1_450_000);
        assert!(fw(&mut d).waits.is_empty());
        settle(&mut d);
        // The design's invariants hold and every unit is where the FTL says.
        assert_eq!(fw(&mut d).buf.index.len(), 0);
    }

    #[test]
    fn a_page_of_invalid_slots_is_not_programmed_and_a_partly_invalid_one_is_padded() {
        let mut d = device(&cfg(&["device.ftl.write_buffer=\"512KiB\""]));
        run(&mut d, Op::Write, 0, 2); // FIFO page 0: units 0, 1
        run(&mut d, Op::Write, 2, 2); // page 1: 2, 3
        run(&mut d, Op::Write, 0, 2); // page 0 all invalid
        run(&mut d, Op::Write, 2, 1); // page 1 half invalid
        assert_eq!(counter(&d, "write_buffer_hits"), 3);
        // 7 slots used; 57 more reach half the buffer.
        run(&mut d, Op::Write, 100, 57);
        assert_eq!(counter(&d, "slots_flushed"), 32);
        assert_eq!(counter(&d, "pages_skipped"), 1);
        assert_eq!(counter(&d, "pages_flushed"), 15);
        assert_eq!(counter(&d, "invalid_slots_written"), 1);
        assert_eq!((d.ftl.stats.host_pages_programmed, d.ftl.stats.padded_units), (15, 1));
        // The skipped page's slots are free at once; the 15 pages' are in flight.
        let f = fw(&mut d);
        assert_eq!((f.buf.inflight, f.buf.free.len()), (30, 128 - 32 - 30));
        assert_eq!(read(&mut d, 0, 4), [(0, 3), (1, 3), (2, 4), (3, 2)]);
        settle(&mut d);
        assert_eq!(read(&mut d, 0, 4), [(0, 3), (1, 3), (2, 4), (3, 2)]);
        d.check_firmware().unwrap();
    }

    #[test]
    fn a_write_that_finds_the_buffer_full_waits_for_a_program_to_end() {
        let c = cfg(&[]);
        let mut probe = Device::new(&c, 1).unwrap();
        let link_64k = probe.link(0, 0, 64 * 1024);
        let mut probe = Device::new(&c, 1).unwrap();
        let link_4k = probe.link(0, 0, UNIT);
        let xfer = xfer_ns(8192, c.nand.channel_rate.0);
        let t_prog = c.program_ns()[0];
        let mut d = device(&c);
        // 16 units: half the buffer, flushed to planes 0..7 as soon as they are in DRAM.
        assert_eq!(run(&mut d, Op::Write, 0, 16), link_64k);
        let t2 = run(&mut d, Op::Write, 16, 16);
        let f = fw(&mut d);
        assert_eq!((f.buf.free.len(), f.buf.inflight, f.buf.fifo.len()), (0, 32, 0));
        // Planes 0..3 (one per channel) program first: page transfer, then tPROG.
        let first_program_end = link_64k + xfer + t_prog;
        assert!(t2 < first_program_end);
        let done = run(&mut d, Op::Write, 40, 1);
        assert_eq!(d.counters.buffer_stalls, 1);
        assert_eq!(counter(&d, "buffer_stalls"), 1);
        assert_eq!(done, first_program_end + link_4k);
        d.check_firmware().unwrap();
    }

    #[test]
    fn a_write_larger_than_the_buffer_goes_in_pieces() {
        // 32 slots; 40 units go as pieces of 16, each when it fits.
        let mut d = device(&cfg(&[]));
        run(&mut d, Op::Write, 0, 40);
        assert_eq!(d.counters.buffer_stalls, 1);
        // Two pieces flushed as each reached half the buffer; the third (8 units) went in
        // when the first programs ended.
        assert_eq!(counter(&d, "slots_flushed"), 32);
        assert_eq!(fw(&mut d).buf.fifo.len(), 8);
        d.check_firmware().unwrap();
        let got = read(&mut d, 0, 40);
        assert!(
            got.iter().enumerate().all(|(i, &(l, v))| l == i as u64 && v == 1),
            "{got:?}"
        );
        settle(&mut d);
        // The last 8 units stay in the buffer (below half of it); the others are on flash.
        let keys: Vec<u64> = {
            let mut k: Vec<u64> = fw(&mut d).buf.index.keys().copied().collect();
            k.sort_unstable();
            k
        };
        assert_eq!(keys, (32..40).collect::<Vec<u64>>());
        let (pages, buffered) = (d.counters.host_page_reads, d.counters.buffer_read_units);
        assert_eq!(read(&mut d, 30, 4), [(30, 1), (31, 1), (32, 1), (33, 1)]);
        assert_eq!(d.counters.host_page_reads - pages, 1);
        assert_eq!(d.counters.buffer_read_units - buffered, 2);
    }

    #[test]
    fn the_read_cache_evicts_the_least_recently_used_unit() {
        let mut d = device(&cfg(&["device.ftl.read_cache=\"16KiB\""]));
        on_flash(&mut d, 16);
        // A = unit 0, B = unit 2, C = unit 4, each on a page of its own.
        for lpn in [0, 2, 0, 4] {
            assert_eq!(read(&mut d, lpn, 1), [(lpn, 1)]);
        }
        let keys: Vec<u64> = fw(&mut d).cache.index.keys().copied().collect();
        // A's and C's pages (each with its other unit) are cached; B's was evicted.
        assert_eq!(keys, [0, 1, 4, 5]);
        assert_eq!(counter(&d, "read_cache_misses"), 3);
        assert_eq!(counter(&d, "read_cache_hits"), 1);
        assert_eq!(counter(&d, "read_cache_evictions"), 1);
        // C is the most recently used, A next.
        let f = fw(&mut d);
        assert_eq!((f.cache.mru, f.cache.lru), (f.cache.index[&4], f.cache.index[&0]));
        // The other unit of A's page was brought with it: a hit.
        assert_eq!(read(&mut d, 1, 1), [(1, 1)]);
        assert_eq!(counter(&d, "read_cache_hits"), 2);
        assert_eq!(d.counters.host_page_reads, 3);
        d.check_firmware().unwrap();
    }

    #[test]
    fn free_cache_units_are_handed_out_in_the_order_they_were_freed() {
        let mut d = device(&cfg(&["device.ftl.read_cache=\"32KiB\""]));
        on_flash(&mut d, 16);
        for lpn in [0, 2, 4] {
            read(&mut d, lpn, 1);
        }
        let unit = |d: &mut Device, lpn: u64| fw(d).cache.index[&lpn];
        assert_eq!([unit(&mut d, 0), unit(&mut d, 2), unit(&mut d, 4)], [0, 1, 2]);
        // Rewriting a page's two units empties its cache unit: to the free FIFO's tail.
        run(&mut d, Op::Write, 2, 2);
        run(&mut d, Op::Write, 0, 2);
        assert_eq!(fw(&mut d).cache.free, [3, 1, 0]);
        for lpn in [6, 8, 10] {
            read(&mut d, lpn, 1);
        }
        assert_eq!([unit(&mut d, 6), unit(&mut d, 8), unit(&mut d, 10)], [3, 1, 0]);
        assert_eq!(counter(&d, "read_cache_evictions"), 0);
        d.check_firmware().unwrap();
    }

    #[test]
    fn prefetch_reads_neighbours_on_idle_channels_only() {
        let mut d = device(&cfg(&["device.ftl.read_cache=\"64KiB\"", "device.ftl.prefetch=2"]));
        // Units (2k, 2k + 1) on plane k, channel k mod 4.
        on_flash(&mut d, 16);
        let t = d.now();
        assert!((0..4).all(|ch| d.channel_idle(ch)));
        // A read of unit 8 (plane 4, channel 0) keeps channel 0 busy; its own neighbours
        // 6, 7 (channel 3) and 10 (channel 1) are prefetched.
        d.submit(t, &rq(Op::Read, 8, 1), 7).unwrap();
        d.step().unwrap();
        assert!(!d.channel_idle(0) && !d.channel_idle(3) && !d.channel_idle(1) && d.channel_idle(2));
        assert_eq!(counter(&d, "prefetch_reads"), 2);
        // A read of unit 2 (plane 1): neighbours 0 and 1 sit on busy channel 0, 4 on idle
        // channel 2 (3 shares the read's own page).
        d.run_request(t, &rq(Op::Read, 2, 1)).unwrap();
        settle(&mut d);
        assert_eq!(counter(&d, "prefetch_reads"), 3);
        let keys: Vec<u64> = fw(&mut d).cache.index.keys().copied().collect();
        assert_eq!(keys, [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        fw(&mut d).take_served();
        assert_eq!(read(&mut d, 4, 2), [(4, 1), (5, 1)]);
        assert_eq!(counter(&d, "prefetch_useful"), 2);
        assert_eq!(read(&mut d, 0, 1), [(0, 1)]);
        assert_eq!(counter(&d, "read_cache_misses"), 3);
        assert_eq!(d.counters.host_page_reads, 3);
        d.check_firmware().unwrap();
    }

    /// 4 dies (2 channels × 2 ways) of 8 blocks of 8 pages: 512 units, 409 logical.
    fn small(sets: &[&str]) -> DeviceConfig {
        let mut all = vec![
            "device.geometry.channels=2",
            "device.geometry.ways=2",
            "device.geometry.pages_per_block=8",
        ];
        all.extend_from_slice(sets);
        cfg(&all)
    }

    #[test]
    fn free_blocks_are_taken_least_erased_first() {
        // Background GC keeps up to 10 free blocks per plane, erased unequally by random
        // writes: each block a flush or a collection opens is the least erased of its pool.
        let mut d = device(&small(&[
            "device.geometry.overprovisioning=3.0",
            "device.ftl.bg_gc_threshold=10",
            "device.ftl.bg_gc_idle=\"100us\"",
        ]));
        let n = d.geo.logical_units;
        let planes = d.geo.planes;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        let mut ordered_takes = 0;
        for i in 0..4000u64 {
            let before: Vec<Vec<(u32, u32)>> = (0..planes).map(|p| d.ftl.free_pool(p)).collect();
            let lpn = if i < n { i } else { rng.gen_range(0..n) };
            let t = d.now() + if rng.gen_bool(0.05) { 2_000_000 } else { 0 };
            d.run_request(t, &rq(Op::Write, lpn, 1)).unwrap();
            for (p, pool) in before.iter().enumerate() {
                let after = d.ftl.free_pool(p);
                let taken = pool.iter().filter(|e| !after.contains(e)).map(|e| e.0).max();
                let kept = pool.iter().filter(|e| after.contains(e)).map(|e| e.0).min();
                if let (Some(t), Some(k)) = (taken, kept) {
                    assert!(t <= k, "plane {p}: took a block erased {t} times, left one erased {k}");
                    ordered_takes += (t < k) as u32;
                }
            }
        }
        assert!(d.ftl.stats.erases > 100, "{}", d.ftl.stats.erases);
        assert!(
            ordered_takes > 10,
            "{ordered_takes} takes among blocks of different wear"
        );
        d.check_firmware().unwrap();
        d.ftl.check_invariants().unwrap();
    }

    #[test]
    fn an_invalidation_moves_its_block_down_a_bucket_and_greedy_takes_the_emptiest() {
        // One die: blocks of 4 pages (8 units).
        let mut d = device(&cfg(&[
            "device.geometry.channels=1",
            "device.geometry.ways=1",
            "device.geometry.pages_per_block=4",
        ]));
        let upb = d.geo.units_per_block as u32;
        run(&mut d, Op::Write, 0, 16);
        run(&mut d, Op::Write, 16, 16);
        settle(&mut d);
        // Blocks A (0..8), B (8..16), C (16..24) are full with 8 valid units each.
        let [a, b, c] = [0u64, 8, 16].map(|l| (d.ftl.lookup(l) / upb) as usize);
        assert!(a != b && b != c && a != c);
        // A rewrite of unit 9 drops its flash copy: B holds 7 and is the victim.
        run(&mut d, Op::Write, 9, 1);
        assert!(d.ftl.gc_once(0).unwrap());
        assert_eq!([a, b, c].map(|x| d.ftl.erase_count(x)), [0, 1, 0]);
        assert_eq!(d.ftl.stats.victim_valid_hist[7], 1);
        assert_eq!(d.ftl.stats.gc_units_copied, 7);
        // Two rewrites in C, one in A: C (6 valid) goes before A (7).
        run(&mut d, Op::Write, 16, 2);
        run(&mut d, Op::Write, 0, 1);
        assert!(d.ftl.gc_once(0).unwrap());
        assert_eq!([a, b, c].map(|x| d.ftl.erase_count(x)), [0, 1, 1]);
        assert_eq!(d.ftl.stats.victim_valid_hist[6], 1);
        d.queue_gc_ops();
        settle(&mut d);
        assert_eq!(read(&mut d, 8, 3), [(8, 1), (9, 3), (10, 1)]);
    }

    /// Every unit written in order, then rewritten in order, one unit a request, until
    /// the first request that garbage-collects: its (foreground, background) collections.
    /// Round robin fills the planes evenly and the rewrites empty their oldest blocks
    /// whole, so a collection frees a block without copying.
    fn first_gc(c: &DeviceConfig) -> (u64, u64) {
        let mut d = device(c);
        let n = d.geo.logical_units;
        for i in 0.. {
            run(&mut d, Op::Write, i % n, 1);
            let s = &d.ftl.stats;
            if s.gc_runs() > 0 {
                assert_eq!(s.gc_units_copied, 0);
                return (s.gc_runs_foreground, s.gc_runs_background);
            }
        }
        unreachable!()
    }

    #[test]
    fn parallel_gc_collects_a_block_on_every_plane_with_a_candidate() {
        // Plane 0 is first short of free blocks: it collects, and so does every other
        // plane at the same moment; none of them needs its own foreground collection.
        assert_eq!(first_gc(&small(&["device.ftl.parallel_gc=true"])), (1, 3));
        // Without: each plane collects when it runs short itself.
        assert_eq!(first_gc(&small(&[])), (4, 0));
    }

    #[test]
    fn writes_follow_the_four_rules_and_reads_look_in_buffer_cache_then_flash() {
        let mut d = device(&cfg(&["device.ftl.read_cache=\"32KiB\""]));
        on_flash(&mut d, 16);
        // Rule 1: new data is only in the buffer.
        run(&mut d, Op::Write, 100, 1);
        assert!(fw(&mut d).buf.index.contains_key(&100) && d.ftl.lookup(100) == NONE);
        // Rule 2: in the buffer → the older slot invalid, the new data appended.
        run(&mut d, Op::Write, 100, 1);
        assert_eq!((counter(&d, "write_buffer_hits"), fw(&mut d).buf.fifo.len()), (1, 2));
        // Rule 3: only on flash → the flash copy invalid at once (not a trim).
        let valid = d.ftl.valid_units();
        run(&mut d, Op::Write, 6, 1);
        assert_eq!(d.ftl.lookup(6), NONE);
        assert_eq!(d.ftl.valid_units(), valid - 1);
        assert_eq!((d.ftl.stats.trimmed_units, d.counters.host_trim_units), (0, 0));
        assert!(fw(&mut d).buf.index.contains_key(&6));
        // Rule 4: cached → cache entry and flash copy invalid.
        read(&mut d, 8, 1);
        assert!(fw(&mut d).cache.index.contains_key(&8));
        run(&mut d, Op::Write, 8, 1);
        let f = fw(&mut d);
        assert!(!f.cache.index.contains_key(&8) && f.cache.index.contains_key(&9));
        assert!(f.buf.index.contains_key(&8));
        assert_eq!(d.ftl.lookup(8), NONE);
        assert_eq!(d.ftl.valid_units(), valid - 2);
        d.check_firmware().unwrap();
        // Reads: buffer (8, version 5), cache (9), flash (12), never written (200).
        let (buf, hits, pages) = (
            d.counters.buffer_read_units,
            counter(&d, "read_cache_hits"),
            d.counters.host_page_reads,
        );
        assert_eq!(read(&mut d, 8, 2), [(8, 5), (9, 1)]);
        assert_eq!(read(&mut d, 12, 1), [(12, 1)]);
        assert_eq!(read(&mut d, 200, 1), [(200, 0)]);
        assert_eq!(d.counters.buffer_read_units - buf, 1);
        assert_eq!(counter(&d, "read_cache_hits") - hits, 1);
        assert_eq!(d.counters.host_page_reads - pages, 1);
        assert_eq!(d.counters.unmapped_read_units, 1);
        // A trim drops a unit from the buffer (100), the cache (9 and 13) and the map.
        run(&mut d, Op::Trim, 9, 1);
        run(&mut d, Op::Trim, 100, 1);
        run(&mut d, Op::Trim, 13, 1);
        let f = fw(&mut d);
        assert!(!f.buf.index.contains_key(&100));
        assert!(!f.cache.index.contains_key(&9) && !f.cache.index.contains_key(&13));
        assert!([9, 13, 100].iter().all(|&l| d.ftl.lookup(l) == NONE));
        assert_eq!(d.counters.host_trim_units, 3);
        assert_eq!(read(&mut d, 9, 1), [(9, 0)]);
        assert_eq!(read(&mut d, 100, 1), [(100, 0)]);
        assert_eq!(read(&mut d, 12, 2), [(12, 1), (13, 0)]);
        d.check_firmware().unwrap();
    }

    /// Random reads, writes (some larger than the buffer) and trims, up to `qd` at once on
    /// ranges that do not overlap (so that what a read must return is defined), with random
    /// gaps, on a device small enough for GC to run often: every unit a read serves has the
    /// version last written, and the design's and the FTL's invariants hold after every
    /// event. Returns the device.
    fn no_stale_reads(sets: &[&str], seed: u64, ops: usize, qd: usize) -> Device {
        let c = small(sets);
        let mut d = device(&c);
        let n = d.geo.logical_units;
        let mut latest = vec![0u64; n as usize];
        let mut writes = 0u64;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let check = |d: &mut Device, what: &str, latest: &[u64]| {
            d.check_firmware().unwrap_or_else(|e| panic!("{what}: {e}"));
            d.ftl.check_invariants().unwrap_or_else(|e| panic!("{what}: {e}"));
            for (l, v) in fw(d).take_served() {
                assert_eq!(v, latest[l as usize], "{what}: unit {l} served version {v}");
            }
        };
        // In flight: (tag, first unit, end).
        let mut inflight: Vec<(u64, u64, u64)> = Vec::new();
        let mut next: Option<(Op, u64, u64)> = None;
        let mut idle_until = 0u64;
        let mut k = 0usize;
        loop {
            for (tag, _) in d.completions.drain(..) {
                inflight.retain(|f| f.0 != tag);
            }
            if k == ops && inflight.is_empty() {
                break;
            }
            let t = idle_until.max(d.now());
            if k < ops && inflight.len() < qd && d.next_event().is_none_or(|e| e > t) {
                let (op, lpn, len) = *next.get_or_insert_with(|| {
                    let (op, len) = match rng.gen_range(0..100) {
                        0..=44 => (Op::Write, rng.gen_range(1..=4)),
                        45..=46 => (Op::Write, rng.gen_range(30..=48)),
                        47..=51 => (Op::Trim, rng.gen_range(1..=3)),
                        _ => (Op::Read, rng.gen_range(1..=6)),
                    };
                    // A hot region for a third of the requests, to hit buffer and cache.
                    let span = if rng.gen_bool(0.33) { 48 } else { n };
                    (op, rng.gen_range(0..span.min(n - len + 1)), len)
                });
                if inflight.iter().all(|&(_, lo, hi)| lpn + len <= lo || hi <= lpn) {
                    next = None;
                    d.submit(t, &rq(op, lpn, len), k as u64).unwrap();
                    inflight.push((k as u64, lpn, lpn + len));
                    k += 1;
                    match op {
                        Op::Write => {
                            writes += 1;
                            latest[lpn as usize..(lpn + len) as usize].fill(writes);
                        }
                        Op::Trim => latest[lpn as usize..(lpn + len) as usize].fill(0),
                        Op::Read | Op::Append | Op::Zone(..) => {}
                    }
                    check(&mut d, "submit", &latest);
                    idle_until = t + match rng.gen_range(0..10) {
                        0..=5 => 0,
                        6..=8 => rng.gen_range(1..200_000),
                        _ => rng.gen_range(1..10_000_000),
                    };
                    continue;
                }
            }
            assert!(d.step().unwrap(), "requests {inflight:?} never completed");
            check(&mut d, "step", &latest);
        }
        assert_eq!(fw(&mut d).write_seq, writes);
        let s = d.ftl.stats.clone();
        assert!(s.gc_runs() > 20 && s.gc_units_copied > 0, "{s:?}");
        for name in [
            "write_buffer_hits",
            "read_cache_hits",
            "buffer_stalls",
            "pages_flushed",
            "pages_skipped",
        ] {
            assert!(counter(&d, name) > 0, "{name} never counted");
        }
        d
    }

    #[test]
    fn no_read_returns_stale_data() {
        let d = no_stale_reads(
            &[
                "device.ftl.read_cache=\"24KiB\"",
                "device.ftl.prefetch=2",
                "device.ftl.parallel_gc=true",
                "device.ftl.allocation=\"least-busy\"",
            ],
            11,
            4000,
            1,
        );
        assert!(counter(&d, "prefetch_useful") > 0);
    }

    #[test]
    fn no_read_returns_stale_data_with_requests_in_parallel() {
        let d = no_stale_reads(
            &[
                "device.ftl.read_cache=\"24KiB\"",
                "device.ftl.prefetch=2",
                "device.ftl.parallel_gc=true",
            ],
            13,
            4000,
            8,
        );
        assert!(counter(&d, "prefetch_useful") > 0);
    }

    #[test]
    fn no_read_returns_stale_data_with_background_gc_and_wear_leveling() {
        let d = no_stale_reads(
            &[
                "device.ftl.read_cache=\"16KiB\"",
                "device.ftl.prefetch=1",
                "device.ftl.bg_gc_threshold=4",
                "device.ftl.bg_gc_idle=\"50us\"",
                "device.ftl.static_wl_threshold=2",
            ],
            12,
            4000,
            4,
        );
        assert!(d.ftl.stats.gc_runs_background > 0 && d.ftl.stats.wl_migrations > 0);
    }

    #[test]
    fn the_configuration_check_names_the_key_and_what_it_expects() {
        let err = |sets: &[&str]| {
            let sets: Vec<&str> = sets.to_vec();
            check_config(&cfg(&[])).unwrap();
            let mut c = cfg(&[]);
            for s in sets {
                let (k, v) = s.split_once('=').unwrap();
                match k {
                    "write_buffer" => c.ftl.write_buffer.0 = v.parse().unwrap(),
                    "read_cache" => c.ftl.read_cache.0 = v.parse().unwrap(),
                    "prefetch" => c.ftl.prefetch = v.parse().unwrap(),
                    _ => unreachable!(),
                }
            }
            check_config(&c).unwrap_err()
        };
        let (k, m) = err(&["write_buffer=65536"]);
        assert_eq!(k, "write_buffer");
        assert!(m.starts_with("got 64KiB; expected at least 16 pages (128KiB)"), "{m}");
        let (k, m) = err(&["read_cache=12288"]);
        assert_eq!(k, "read_cache");
        assert!(
            m.contains("got 12KiB; expected a multiple of the page size (8KiB)"),
            "{m}"
        );
        let (k, _) = err(&["prefetch=2"]);
        assert_eq!(k, "prefetch");
        // Through the configuration: the key under device.ftl.
        let text =
            "[device]\npreset = \"cosmos-openssd\"\n[device.ftl]\ndesign = \"openssd\"\nwrite_buffer = \"64KiB\"\n";
        let e = crate::config::parse_config(text, "x.toml", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.ftl.write_buffer") && e.contains("16 pages"), "{e}");
        // A 4 KiB unit on an 8 KiB page and a unit of a whole page are both fine.
        check_config(&cfg(&["device.geometry.mapping_unit=\"8KiB\""])).unwrap();
        assert!(crate::firmware::names().contains(&"openssd"));
    }
}
