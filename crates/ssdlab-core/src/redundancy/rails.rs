//! Rails ("Flash on Rails", Skourtis et al., USENIX ATC'14) inside one SSD, as HotR's
//! evaluation uses it: every chip mirrored (RAID 1 across two halves of the chips; HotR's
//! "4+4" is one such pair of four-chip groups), reads and writes physically separated.
//!
//! The configured chips (group 0) hold the primary copies, host unit `l` as FTL unit `l`; the
//! scheme adds as many channels of chips (group 1), holding the mirror copies as FTL units
//! `U + l`. At any time one group is in write mode and the other in read mode; the roles
//! swap every `period` of simulated time (at the first request after it is due).
//!
//! - A write completes once its data is in Rails' cache (NVRAM, in the controller), where it
//!   stays until both copies are on flash (`ack = "flash"`: once its write-mode copy is
//!   programmed, as a device without the NVRAM would). Its copy in the write-mode group is programmed at
//!   once; the other copy is stale until that group's next turn in write mode. The cache's
//!   high-water mark (units held) is a counter: its size is part of Rails' cost, not of the
//!   flash space cost.
//! - At a swap, the group entering write mode is brought up to date first: a program for each
//!   unit written while it was in read mode (in the order first written), then the new writes.
//! - A read goes to the read-mode group; when that group's copy is stale or still being
//!   programmed, it is served from the cache (the controller) with no flash read.
//!
//! Every program is a host program on its group's least busy plane; GC keeps data in its
//! plane, so each copy stays in its group.

use super::{ReadCounters, Scheme, Versions};
use crate::device_config::DeviceConfig;
use crate::ftl::NONE;
use crate::geometry::Geometry;
use crate::mechanisms::{Mechanisms, Token};
use crate::Result;

const NO_PID: u32 = u32::MAX;

pub struct Rails {
    /// Host units.
    host: u64,
    period: u64,
    next_swap: u64,
    /// The group in write mode (0 or 1).
    write: usize,
    /// Planes of each group.
    planes: [Vec<usize>; 2],
    /// Per group, a bit per host unit: the group's copy is not the latest.
    stale: [Vec<u64>; 2],
    /// Per group, units whose copy went stale while it was in read mode, first write first.
    pending: [Vec<u64>; 2],
    /// Per group, programs of each unit's copy under way.
    inflight: [Vec<u16>; 2],
    /// Programs under way: (group, host unit, request waiting for it or NO_PID), by token.
    ops: Vec<(u8, u64, u32)>,
    /// A write completes when its write-mode copy is programmed (else: in the cache).
    ack_flash: bool,
    free_ops: Vec<u32>,
    versions: Versions,
    /// Per group, the version each copy holds (when versions are tracked).
    copy_version: [Vec<u32>; 2],
    read: ReadCounters,
    swaps: u64,
    flush_programs: u64,
    cache_reads: u64,
    /// Units in the cache now (a copy stale or being programmed), and the most ever.
    cached: u64,
    cache_peak: u64,
}

pub fn make(cfg: &DeviceConfig, geo: &Geometry, _units: usize) -> Box<dyn Scheme> {
    let half = geo.channels / 2;
    let group = |g: usize| -> Vec<usize> {
        (0..geo.planes)
            .filter(|&p| (geo.channel_of_plane(p) >= half) as usize == g)
            .collect()
    };
    let n = geo.host_units as usize;
    let period = cfg.redundancy.period_ns();
    Box::new(Rails {
        host: geo.host_units,
        period,
        next_swap: period,
        write: 0,
        planes: [group(0), group(1)],
        stale: [vec![0; n.div_ceil(64)], vec![0; n.div_ceil(64)]],
        pending: [Vec::new(), Vec::new()],
        inflight: [vec![0; n], vec![0; n]],
        ops: Vec::new(),
        ack_flash: cfg.redundancy.ack_flash(),
        free_ops: Vec::new(),
        versions: Versions::default(),
        copy_version: [Vec::new(), Vec::new()],
        read: ReadCounters::default(),
        swaps: 0,
        flush_programs: 0,
        cache_reads: 0,
        cached: 0,
        cache_peak: 0,
    })
}

#[inline]
fn bit(v: &[u64], i: u64) -> bool {
    v[(i / 64) as usize] >> (i % 64) & 1 == 1
}
#[inline]
fn set_bit(v: &mut [u64], i: u64, on: bool) {
    let w = &mut v[(i / 64) as usize];
    if on {
        *w |= 1 << (i % 64);
    } else {
        *w &= !(1 << (i % 64));
    }
}

impl Rails {
    /// The group now in read mode.
    pub fn read_group(&self) -> usize {
        1 - self.write
    }

    /// The unit is in the cache: a copy stale or being programmed.
    fn in_cache(&self, lpn: u64) -> bool {
        (0..2).any(|g| bit(&self.stale[g], lpn) || self.inflight[g][lpn as usize] > 0)
    }

    /// Program group `g`'s copy of host unit `lpn`, its data in the cache at `ready`; request
    /// `pid` (or NO_PID) waits for it.
    fn program(&mut self, dev: &mut dyn Mechanisms, g: usize, lpn: u64, ready: u64, pid: u32) -> Result<()> {
        let op = (g as u8, lpn, pid);
        let token = match self.free_ops.pop() {
            Some(t) => {
                self.ops[t as usize] = op;
                t
            }
            None => {
                self.ops.push(op);
                (self.ops.len() - 1) as u32
            }
        };
        self.inflight[g][lpn as usize] += 1;
        if !self.copy_version[g].is_empty() {
            self.copy_version[g][lpn as usize] = self.versions.get(lpn);
        }
        let planes = std::mem::take(&mut self.planes[g]);
        let r = dev.program_on(
            &mut planes.iter().copied(),
            lpn + g as u64 * self.host,
            ready,
            Token::Scheme(token),
        );
        self.planes[g] = planes;
        r
    }

    /// Swap the roles: the group entering write mode first receives what it missed.
    fn swap(&mut self, dev: &mut dyn Mechanisms) -> Result<()> {
        self.swaps += 1;
        self.write = 1 - self.write;
        let w = self.write;
        let now = dev.now();
        for lpn in std::mem::take(&mut self.pending[w]) {
            if bit(&self.stale[w], lpn) {
                // Still cached: the program below is under way.
                set_bit(&mut self.stale[w], lpn, false);
                self.flush_programs += 1;
                self.program(dev, w, lpn, now, NO_PID)?;
            }
        }
        Ok(())
    }
}

impl Scheme for Rails {
    fn name(&self) -> &'static str {
        "rails"
    }

    fn read(&mut self, dev: &mut dyn Mechanisms, pid: u32, lpn: u64) -> Result<()> {
        self.read.reads += 1;
        let r = self.read_group();
        let home = dev.ftl().lookup(lpn);
        let home_conflict = home != NONE && dev.sched().conflicts(dev.unit_of_pun(home));
        self.read.home_conflicts += home_conflict as u64;
        if bit(&self.stale[r], lpn) || self.inflight[r][lpn as usize] > 0 {
            // The latest data is still in the cache.
            self.cache_reads += 1;
            self.read.redirected += 1;
            self.read.avoided += home_conflict as u64;
            return Ok(());
        }
        let pun = dev.ftl().lookup(lpn + r as u64 * self.host);
        if pun == NONE {
            dev.counters_mut().unmapped_read_units += 1;
            return Ok(());
        }
        if !self.copy_version[r].is_empty() && self.versions.stale(lpn, self.copy_version[r][lpn as usize]) {
            self.read.stale_reads += 1;
        }
        if r == 1 {
            self.read.redirected += 1;
            self.read.avoided += (home_conflict && !dev.sched().conflicts(dev.unit_of_pun(pun))) as u64;
        }
        dev.scheme_read(pid, pun);
        Ok(())
    }

    fn write(&mut self, dev: &mut dyn Mechanisms, pid: u32, first: u64, last: u64, ready: u64) -> Result<bool> {
        let (w, r) = (self.write, self.read_group());
        for lpn in first..=last {
            self.versions.bump(lpn);
            if !self.in_cache(lpn) {
                self.cached += 1;
                self.cache_peak = self.cache_peak.max(self.cached);
            }
            set_bit(&mut self.stale[w], lpn, false);
            if !bit(&self.stale[r], lpn) {
                set_bit(&mut self.stale[r], lpn, true);
                self.pending[r].push(lpn);
            }
            let pid = if self.ack_flash {
                dev.add_part(pid);
                pid
            } else {
                NO_PID
            };
            self.program(dev, w, lpn, ready, pid)?;
        }
        // Without parts to wait for, the device completes the request at its data-ready
        // time: the data is in the cache.
        Ok(true)
    }

    fn trim(&mut self, dev: &mut dyn Mechanisms, first: u64, end: u64) {
        for lpn in first..end {
            self.versions.bump(lpn);
            dev.ftl_mut().trim(lpn + self.host);
            let had = self.in_cache(lpn);
            for g in 0..2 {
                set_bit(&mut self.stale[g], lpn, false);
            }
            if had && !self.in_cache(lpn) {
                self.cached -= 1;
            }
        }
    }

    fn op_done(&mut self, dev: &mut dyn Mechanisms, token: u32, time: u64) -> Result<()> {
        let (g, lpn, pid) = self.ops[token as usize];
        self.free_ops.push(token);
        self.inflight[g as usize][lpn as usize] -= 1;
        if !self.in_cache(lpn) {
            self.cached -= 1;
        }
        if pid != NO_PID {
            dev.part_done(pid, time)?;
        }
        Ok(())
    }

    fn tick(&mut self, dev: &mut dyn Mechanisms) -> Result<()> {
        let now = dev.now();
        if now < self.next_swap {
            return Ok(());
        }
        // Swaps due since the last request; two in a row bring both groups up to date and
        // leave the roles as they were, so at most two are carried out.
        let due = (now - self.next_swap) / self.period + 1;
        self.next_swap += due * self.period;
        let times = if due % 2 == 1 { 1 } else { 2 };
        self.swaps += due - times;
        for _ in 0..times {
            self.swap(dev)?;
        }
        Ok(())
    }

    fn home_plane(&self, _geo: &Geometry, lpn: u64) -> Option<usize> {
        let g = (lpn / self.host) as usize;
        let planes = &self.planes[g.min(1)];
        Some(planes[(lpn % self.host) as usize % planes.len()])
    }

    fn fill(&self, lpn: u64, out: &mut dyn FnMut(u64)) {
        out(lpn);
        out(lpn + self.host);
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        self.read.with(&[
            ("swaps", self.swaps),
            ("flush_programs", self.flush_programs),
            ("cache_reads", self.cache_reads),
            ("cache_peak_units", self.cache_peak),
        ])
    }

    fn space_cost(&self) -> f64 {
        2.0
    }

    fn check(&self, dev: &dyn Mechanisms) -> std::result::Result<(), String> {
        let geo = dev.geo();
        let half = geo.channels / 2;
        for lpn in 0..2 * self.host {
            let pun = dev.ftl().lookup(lpn);
            if pun == NONE {
                continue;
            }
            let g = (geo.channel_of_plane(geo.plane_of_block(geo.block_of_unit(pun))) >= half) as u64;
            if g != lpn / self.host {
                return Err(format!("FTL unit {lpn} is in group {g}, not in its copy's group"));
            }
        }
        for g in 0..2 {
            let listed: std::collections::HashSet<u64> = self.pending[g].iter().copied().collect();
            if let Some(l) = (0..self.host).find(|&l| bit(&self.stale[g], l) && !listed.contains(&l)) {
                return Err(format!(
                    "unit {l}'s copy in group {g} is stale but not waiting for a flush"
                ));
            }
            if g == self.write && !self.pending[g].is_empty() {
                return Err(format!(
                    "group {g} is in write mode with {} units not flushed",
                    self.pending[g].len()
                ));
            }
        }
        let cached = (0..self.host).filter(|&l| self.in_cache(l)).count() as u64;
        if cached != self.cached {
            return Err(format!("{cached} units in the cache, {} counted", self.cached));
        }
        let inflight: u64 = self.inflight.iter().flatten().map(|&n| n as u64).sum();
        let ops = (self.ops.len() - self.free_ops.len()) as u64;
        if inflight != ops {
            return Err(format!("{inflight} copies being programmed, {ops} programs under way"));
        }
        Ok(())
    }

    fn track_versions(&mut self, units: u64) {
        self.versions.track(units);
        self.copy_version = [vec![0; units as usize], vec![0; units as usize]];
    }
}
