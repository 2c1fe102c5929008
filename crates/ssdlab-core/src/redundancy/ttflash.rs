//! TTFlash (Yan et al., FAST'17) as HotR's evaluation uses it: parity across chips (RAID 5,
//! `stripe` data chips and one parity chip, 4+1 by default), and a read to a busy chip
//! rebuilt from the other chips of its stripe ("GC-tolerant read", applied to programs and
//! erases alike, as the seed applies it to write interference).
//!
//! Layout. The configured chips hold the host data; the scheme adds one channel of chips per
//! `stripe` channels. Channels split into `channels / (stripe + 1)` channel groups (group
//! `gc` = channels `gc, gc + G, gc + 2G, …`); a chip group is a channel group at one way.
//! Host units are striped statically: stripe `s` holds host units `s·k … s·k + k − 1` and
//! parity unit `U + s` (an FTL logical unit past the host capacity `U`), in chip group
//! `s mod groups`, the parity member rotating with `s / groups` as RAID 5 rotates it. Each
//! unit lives on its member's chip; inside the chip the FTL places it freely (least busy
//! plane), and GC keeps it in its plane.
//!
//! Writes: every data page, plus one parity program per stripe a request touches. Parity is
//! computed in the controller from the stripe's data held in TTFlash's capacitor-backed RAID
//! buffer, so no old data or parity is read back (the small-write reads RAID 5 would need
//! without it are not modelled; this favours TTFlash). The request completes when its data
//! and parity are programmed.
//!
//! Reads: a read whose chip conflicts (busy with, or holding, a program or erase) reads the
//! other data members and the parity instead (those never written are zero and need no read);
//! the request completes when all of them are in the controller (the XOR is free). A trim
//! unmaps data but leaves parity, so a rebuild skips the trimmed member.

use super::{chip_of_plane, chips, planes_of_chip, ReadCounters, Scheme, Versions};
use crate::device_config::DeviceConfig;
use crate::ftl::NONE;
use crate::geometry::Geometry;
use crate::mechanisms::{Mechanisms, Token};
use crate::Result;

/// The host capacity of `mapped` FTL units in stripes of `k` data units and one parity unit.
pub fn host_units(mapped: u64, k: u64) -> u64 {
    mapped / (k + 1) * k
}

pub struct TtFlash {
    geo: Geometry,
    /// Data units per stripe.
    k: u64,
    /// Host units (a multiple of `k`).
    host: u64,
    /// Channel groups and chip groups.
    channel_groups: usize,
    groups: usize,
    read: ReadCounters,
    rebuilds: u64,
    rebuild_reads: u64,
    parity_programs: u64,
    versions: Versions,
}

pub fn make(cfg: &DeviceConfig, geo: &Geometry, _units: usize) -> Box<dyn Scheme> {
    let k = cfg.redundancy.stripe() as u64;
    let channel_groups = geo.channels / (k as usize + 1);
    Box::new(TtFlash {
        geo: geo.clone(),
        k,
        host: geo.host_units,
        channel_groups,
        groups: channel_groups * geo.ways,
        read: ReadCounters::default(),
        rebuilds: 0,
        rebuild_reads: 0,
        parity_programs: 0,
        versions: Versions::default(),
    })
}

impl TtFlash {
    /// Stripe of FTL logical unit `lpn` and its member (0..=k) in the chip group.
    #[inline]
    fn member(&self, lpn: u64) -> (u64, usize) {
        let n = self.k + 1;
        let (s, parity) = if lpn < self.host {
            (lpn / self.k, false)
        } else {
            (lpn - self.host, true)
        };
        let p = (s / self.groups as u64) % n;
        let m = if parity { p } else { (p + 1 + lpn % self.k) % n };
        (s, m as usize)
    }

    /// The chip of FTL logical unit `lpn`.
    #[inline]
    fn chip(&self, lpn: u64) -> usize {
        let (s, m) = self.member(lpn);
        let g = (s % self.groups as u64) as usize;
        let (gc, way) = (g % self.channel_groups, g / self.channel_groups);
        gc + m * self.channel_groups + way * self.geo.channels
    }

    /// The FTL logical units of stripe `s`: its data, then its parity.
    fn stripe_units(&self, s: u64) -> impl Iterator<Item = u64> {
        (s * self.k..(s + 1) * self.k).chain(std::iter::once(self.host + s))
    }
}

impl Scheme for TtFlash {
    fn name(&self) -> &'static str {
        "ttflash"
    }

    fn read(&mut self, dev: &mut dyn Mechanisms, pid: u32, lpn: u64) -> Result<()> {
        let Some(pun) = self.read.mapped(dev, lpn) else {
            return Ok(());
        };
        if !dev.sched().conflicts(dev.unit_of_pun(pun)) {
            dev.scheme_read(pid, pun);
            return Ok(());
        }
        self.read.home_conflicts += 1;
        self.read.redirected += 1;
        self.rebuilds += 1;
        let mut clean = true;
        let (s, _) = self.member(lpn);
        for l in self.stripe_units(s).filter(|&l| l != lpn) {
            let p = dev.ftl().lookup(l);
            if p == NONE {
                continue;
            }
            clean &= !dev.sched().conflicts(dev.unit_of_pun(p));
            self.rebuild_reads += 1;
            dev.scheme_read(pid, p);
        }
        self.read.avoided += clean as u64;
        Ok(())
    }

    fn write(&mut self, dev: &mut dyn Mechanisms, pid: u32, first: u64, last: u64, ready: u64) -> Result<bool> {
        for lpn in first..=last {
            self.versions.bump(lpn);
        }
        self.parity_programs += last / self.k - first / self.k + 1;
        // The data, then one parity unit per stripe touched.
        let parity = (first / self.k..=last / self.k).map(|s| self.host + s);
        for l in (first..=last).chain(parity) {
            dev.add_part(pid);
            dev.program_on(
                &mut planes_of_chip(&self.geo, self.chip(l)),
                l,
                ready,
                Token::Request(pid),
            )?;
        }
        Ok(true)
    }

    fn trim(&mut self, _dev: &mut dyn Mechanisms, first: u64, end: u64) {
        for lpn in first..end {
            self.versions.bump(lpn);
        }
    }

    fn op_done(&mut self, _dev: &mut dyn Mechanisms, _token: u32, _time: u64) -> Result<()> {
        Ok(())
    }

    fn home_plane(&self, geo: &Geometry, lpn: u64) -> Option<usize> {
        let (s, _) = self.member(lpn);
        let per_chip = geo.dies_per_chip * geo.planes_per_die;
        let k = (s / self.groups as u64) as usize % per_chip;
        Some(self.chip(lpn) + k * chips(geo))
    }

    fn fill(&self, lpn: u64, out: &mut dyn FnMut(u64)) {
        out(lpn);
        if lpn % self.k == self.k - 1 {
            out(self.host + lpn / self.k);
        }
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        self.read.with(&[
            ("rebuilds", self.rebuilds),
            ("rebuild_reads", self.rebuild_reads),
            ("parity_programs", self.parity_programs),
        ])
    }

    fn space_cost(&self) -> f64 {
        (self.k + 1) as f64 / self.k as f64
    }

    fn check(&self, dev: &dyn Mechanisms) -> std::result::Result<(), String> {
        let stripes = self.host / self.k;
        for lpn in 0..self.host + stripes {
            let pun = dev.ftl().lookup(lpn);
            if pun == NONE {
                continue;
            }
            let plane = dev.geo().plane_of_block(dev.geo().block_of_unit(pun));
            let (have, want) = (chip_of_plane(dev.geo(), plane), self.chip(lpn));
            if have != want {
                return Err(format!(
                    "unit {lpn} is on chip {have}, its stripe member's chip is {want}"
                ));
            }
        }
        Ok(())
    }

    fn track_versions(&mut self, units: u64) {
        self.versions.track(units);
    }
}
