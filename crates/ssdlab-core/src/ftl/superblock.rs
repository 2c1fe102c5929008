//! Superblocks: host data written in sets of blocks over a chosen group of chips, collected
//! whole or block by block (`crate::placement` chooses which superblock a write goes to).
//!
//! A superblock of width `w` (chips per channel) holds one block on every plane of `w` chips
//! of every channel: chips `g·w .. (g+1)·w` of each channel for a group `g` (full
//! parallelism, `w` = ways: one group, every plane). Each write class (slot) has one open
//! superblock; its pages go to the member planes in the order the device chooses (the
//! member that could start a program first), so that all members fill together. A new
//! superblock is opened on the group whose planes have the most free blocks (ties: the
//! group after the last one used), after foreground GC has given every plane `gc_threshold`
//! free blocks (GC's own superblocks take blocks without collecting, from the planes above
//! that reserve when there are any, so that data moves off the planes short of blocks).
//!
//! GC data goes to a full-width superblock of its own (the last slot), page by page over its
//! members, so a victim page's units may be programmed on another plane (a read on the
//! victim's plane, a program on the destination's); a GC superblock takes a block on every
//! plane that has a free one, without collecting first. With `gc_frontier = "shared"` (FEMU's
//! one write pointer) GC writes into slot 0's open superblock instead, and pads the page it
//! leaves partly filled when a collection ends; it then collects as FEMU does, after the host
//! has taken its new superblock, a victim at a time, so survivors and host data share
//! superblocks. Whole-superblock GC picks, among the
//! full superblocks that hold a block of the plane short of free blocks, the one with the
//! lowest share of valid units (blocks written before superblocks were on count as
//! superblocks of one), and collects every block of it; block GC (`whole = false`) collects
//! the plane's block chosen by the victim policy. Background GC is off: collections run when
//! a superblock is opened, as on FEMU.

use super::{BlockState, Frontier, Ftl, Pick, NONE, NO_FRONTIER};
use crate::placement::Layout;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};

/// Percent bins of the victims' valid share (0 … 100).
pub const RATIO_BINS: usize = 101;

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct SbStats {
    pub superblocks_opened: u64,
    /// GC victims: superblocks (whole GC) or blocks (block GC), GC blocks included.
    pub victims: u64,
    /// Victims by the percentage of their units still valid (floor), 101 bins.
    pub victim_valid_percent: Vec<u64>,
    /// Superblocks opened per slot (the host slots, then GC's).
    #[serde(default)]
    pub opened_per_slot: Vec<u64>,
    /// Valid units whole-superblock GC moved out of each slot's superblocks (the slot that
    /// opened the victim; blocks outside any superblock and block GC's victims are in none).
    #[serde(default)]
    pub gc_units_per_slot: Vec<u64>,
    /// Reclaim unit handle updates received, per slot (NVMe's I/O Management Send, FDP).
    #[serde(default)]
    pub ruh_updates_per_slot: Vec<u64>,
    /// Open superblocks an update took off their slot partly written, per slot: NVMe's
    /// "reclaim unit not fully written" events.
    #[serde(default)]
    pub not_fully_written_per_slot: Vec<u64>,
}

impl SbStats {
    pub fn since(&self, e: &SbStats) -> SbStats {
        let minus = |a: &[u64], b: &[u64]| {
            a.iter()
                .enumerate()
                .map(|(i, x)| x - b.get(i).copied().unwrap_or(0))
                .collect()
        };
        SbStats {
            superblocks_opened: self.superblocks_opened - e.superblocks_opened,
            victims: self.victims - e.victims,
            victim_valid_percent: minus(&self.victim_valid_percent, &e.victim_valid_percent),
            opened_per_slot: minus(&self.opened_per_slot, &e.opened_per_slot),
            gc_units_per_slot: minus(&self.gc_units_per_slot, &e.gc_units_per_slot),
            ruh_updates_per_slot: minus(&self.ruh_updates_per_slot, &e.ruh_updates_per_slot),
            not_fully_written_per_slot: minus(&self.not_fully_written_per_slot, &e.not_fully_written_per_slot),
        }
    }

    /// Add `n` to `slot`'s entry of a per-slot count of `slots` (a snapshot of an earlier
    /// build has none: it starts at zero).
    fn add_to(v: &mut Vec<u64>, slots: usize, slot: usize, n: u64) {
        if v.len() < slots {
            v.resize(slots, 0);
        }
        // Saturating: a count read from an edited snapshot may start anywhere.
        v[slot] = v[slot].saturating_add(n);
    }

    fn victim(&mut self, valid: u64, capacity: u64) {
        self.victims += 1;
        self.victim_valid_percent[(100 * valid / capacity.max(1)) as usize] += 1;
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Superblock {
    /// Member blocks not yet erased, in plane order.
    blocks: Vec<u32>,
    /// The slot that opened it.
    #[serde(default)]
    slot: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Superblocks {
    /// Host slots (the first); GC's follow.
    #[serde(default)]
    host_slots: usize,
    /// GC's slot for the collection under way, past the host slots: 0 with one GC slot, else
    /// the victim's own (persistent isolation).
    #[serde(default)]
    gc_owner: usize,
    /// Chips per channel of each slot.
    widths: Vec<usize>,
    /// Chips per channel of a reclaim group (FDP): a slot's superblocks stay in its group's
    /// chips. 0 (a snapshot of an earlier build): one group, every chip.
    #[serde(default)]
    group_ways: usize,
    whole: bool,
    /// Planes of each group, per width: `groups[width] = [[planes of group 0], …]`.
    groups: Vec<Vec<Vec<usize>>>,
    /// Next group to prefer on a tie, per width.
    next_group: Vec<usize>,
    /// Superblock of each block (NONE: free, a GC block, or opened by the per-plane
    /// frontiers before superblocks were on).
    sb_of: Vec<u32>,
    table: Vec<Superblock>,
    free_ids: Vec<u32>,
    /// Open superblock of each slot (NONE: none yet).
    open: Vec<u32>,
    /// Member index after the last one given a page, per slot.
    cursor: Vec<usize>,
    /// The plane of the GC page being filled (by the collection under way's GC slot).
    gc_page: Option<usize>,
    /// Under persistent isolation, per GC slot, the plane of the page it left partly filled
    /// when another handle's collection began; taken back at its own next collection.
    parked_gc_pages: Vec<Option<usize>>,
    pub stats: SbStats,
}

impl Ftl {
    /// Turn superblocks on with `layout` (slots = its widths); the FTL gets one host frontier
    /// per slot on every plane. Blocks already written stay outside any superblock (each a
    /// candidate on its own).
    pub fn enable_superblocks(&mut self, layout: &Layout) {
        // The host slots, then GC's: full-width superblocks of its own (one, or one per host
        // slot whose survivors stay apart).
        let mut widths = layout.widths.clone();
        let host_slots = widths.len();
        let group_ways = self.geo.ways / layout.reclaim_groups.max(1);
        widths.extend(std::iter::repeat_n(group_ways, layout.gc_slots.max(1)));
        self.set_streams(widths.len());
        let g = &self.geo;
        let way_of = |p: usize| (p / g.channels) % g.ways;
        let mut groups = vec![Vec::new(); g.ways + 1];
        for &w in &widths {
            if groups[w].is_empty() {
                groups[w] = (0..g.ways / w)
                    .map(|k| (0..g.planes).filter(|&p| way_of(p) / w == k).collect())
                    .collect();
            }
        }
        let slots = widths.len();
        self.sb = Some(Box::new(Superblocks {
            host_slots,
            gc_owner: 0,
            widths,
            group_ways,
            gc_page: None,
            parked_gc_pages: vec![None; layout.gc_slots.max(1)],
            whole: layout.whole,
            next_group: vec![0; g.ways + 1],
            groups,
            sb_of: vec![NONE; g.blocks],
            table: Vec::new(),
            free_ids: Vec::new(),
            open: vec![NONE; slots],
            cursor: vec![0; slots],
            stats: SbStats {
                victim_valid_percent: vec![0; RATIO_BINS],
                opened_per_slot: vec![0; slots],
                gc_units_per_slot: vec![0; slots],
                ruh_updates_per_slot: vec![0; slots],
                not_fully_written_per_slot: vec![0; slots],
                ..Default::default()
            },
        }));
    }

    /// Superblocks are on.
    #[inline]
    pub fn superblocks(&self) -> Option<&Superblocks> {
        self.sb.as_deref()
    }

    /// The plane that gets the next page of slot `slot`: the member of its open superblock
    /// with room whose `cost` is lowest (ties: the next in turn; 0 is the lowest there is),
    /// opening a new superblock first when the open one is full.
    pub fn superblock_plane(&mut self, slot: usize, cost: impl Fn(usize) -> u64) -> Result<usize> {
        self.next_member(slot, cost, false)
    }

    /// As [`Ftl::superblock_plane`]; `for_gc`: a page for GC's copies (a new superblock then
    /// opens without collecting).
    fn next_member(&mut self, slot: usize, cost: impl Fn(usize) -> u64, for_gc: bool) -> Result<usize> {
        if let Some(p) = self.pick_member(slot, &cost) {
            return Ok(p);
        }
        // With a shared GC frontier, the collections after opening may fill slot 0's
        // superblock: open another.
        for _ in 0..self.geo.blocks_per_plane {
            self.open_superblock(slot, for_gc)?;
            if let Some(p) = self.pick_member(slot, &cost) {
                return Ok(p);
            }
        }
        Err(Error::Invalid(format!(
            "slot {slot}: a superblock just opened has no room"
        )))
    }

    /// Block `b`, of the slot's open superblock, has room for a page: it is still its
    /// plane's frontier of the slot, not full.
    #[inline]
    fn has_page(&self, slot: usize, b: u32) -> bool {
        let f = self.hosts[self.host_idx(self.geo.plane_of_block(b as usize), slot)];
        f.block == b && f.next < self.geo.units_per_block as u32
    }

    /// The slot's open superblock has a member with room.
    fn has_room(&self, slot: usize) -> bool {
        let sb = self.sb.as_deref().expect("superblocks");
        let id = sb.open[slot];
        id != NONE && sb.table[id as usize].blocks.iter().any(|&b| self.has_page(slot, b))
    }

    fn pick_member(&mut self, slot: usize, cost: &impl Fn(usize) -> u64) -> Option<usize> {
        let sb = self.sb.as_deref()?;
        let id = sb.open[slot];
        if id == NONE {
            return None;
        }
        let members = &sb.table[id as usize].blocks;
        let n = members.len();
        let mut best: Option<(u64, usize, usize)> = None;
        for k in 0..n {
            let i = (sb.cursor[slot] + k) % n;
            let b = members[i];
            if !self.has_page(slot, b) {
                continue;
            }
            let p = self.geo.plane_of_block(b as usize);
            let c = cost(p);
            if best.is_none_or(|(bc, _, _)| c < bc) {
                best = Some((c, i, p));
                if c == 0 {
                    break; // nothing is cheaper
                }
            }
        }
        let (_, i, p) = best?;
        self.sb.as_deref_mut().expect("superblocks").cursor[slot] = (i + 1) % n;
        Some(p)
    }

    /// Close the slot's blocks that are full (its superblock is): they become candidates.
    fn close_slot(&mut self, slot: usize) -> Result<()> {
        let upb = self.geo.units_per_block as u32;
        for p in 0..self.geo.planes {
            let hi = self.host_idx(p, slot);
            let f = self.hosts[hi];
            if f.block != NONE {
                if f.next < upb {
                    return Err(Error::Invalid(format!(
                        "slot {slot}: plane {p}'s block {} is not full but its superblock is",
                        f.block
                    )));
                }
                self.close_block(p, f.block);
                self.hosts[hi] = NO_FRONTIER;
            }
        }
        Ok(())
    }

    /// Close the slot's full blocks and open a new superblock for it (`gc`: for GC's copies,
    /// without collecting first).
    #[cold]
    fn open_superblock(&mut self, slot: usize, gc: bool) -> Result<()> {
        self.close_slot(slot)?;
        let sb = self.sb.as_deref().expect("superblocks");
        let w = sb.widths[slot];
        let n = sb.groups[w].len();
        let rg = sb.reclaim_group_of(slot);
        // The group whose planes have the most free blocks at their lowest, in the slot's
        // reclaim group.
        let start = sb.next_group[w];
        let mut best: Option<(usize, usize)> = None;
        for k in 0..n {
            let g = (start + k) % n;
            if sb.group_ways != 0 && g * w / sb.group_ways != rg {
                continue;
            }
            let free = sb.groups[w][g]
                .iter()
                .map(|&p| self.planes[p].free.len())
                .min()
                .unwrap_or(0);
            if best.is_none_or(|b| free > b.0) {
                best = Some((free, g));
            }
        }
        let g = best.expect("every reclaim group holds a group of every slot width").1;
        let mut planes = sb.groups[w][g].clone();
        // GC's superblock: a block on every plane that has more than its reserve (so that
        // data moves off the planes short of free blocks), else on every plane that has one
        // (GC runs already).
        if gc {
            let reserve = self.params.gc_threshold as usize;
            if planes.iter().any(|&p| self.planes[p].free.len() > reserve) {
                planes.retain(|&p| self.planes[p].free.len() > reserve);
            } else {
                planes.retain(|&p| !self.planes[p].free.is_empty());
            }
            if planes.is_empty() {
                return Err(Error::Invalid(
                    "no free block left for garbage collection (device worn out or over-full)".into(),
                ));
            }
        }
        // Foreground GC until every plane has its reserve: the superblock takes a block from
        // each plane of its group, and GC's superblocks take theirs from every plane without
        // collecting first. With a shared GC frontier, FEMU's order: the host's superblock is
        // taken first (collecting only where a plane has no free block), then GC collects
        // into slot 0's superblock, a victim at a time, until every plane has its reserve.
        let shared = self.params.gc_shared_frontier;
        let threshold = self.params.gc_threshold as usize;
        self.reclaim_until(if gc {
            0
        } else if shared {
            1
        } else {
            threshold
        })?;
        // With a shared GC frontier, the collections may have opened the slot's next
        // superblock already.
        if !gc && self.has_room(slot) {
            return Ok(());
        }
        // ... or opened and filled one.
        self.close_slot(slot)?;
        let mut blocks = Vec::with_capacity(planes.len());
        for &p in &planes {
            blocks.push(self.take_free(p)?);
        }
        let sb = self.sb.as_deref_mut().expect("superblocks");
        sb.next_group[w] = (g + 1) % n;
        let old = sb.open[slot];
        if old != NONE && sb.table[old as usize].blocks.is_empty() {
            sb.free_ids.push(old);
        }
        let id = match sb.free_ids.pop() {
            Some(id) => {
                sb.table[id as usize] = Superblock {
                    blocks: blocks.clone(),
                    slot: slot as u32,
                };
                id
            }
            None => {
                sb.table.push(Superblock {
                    blocks: blocks.clone(),
                    slot: slot as u32,
                });
                sb.table.len() as u32 - 1
            }
        };
        for &b in &blocks {
            sb.sb_of[b as usize] = id;
        }
        sb.open[slot] = id;
        sb.cursor[slot] = 0;
        sb.stats.superblocks_opened += 1;
        SbStats::add_to(&mut sb.stats.opened_per_slot, sb.open.len(), slot, 1);
        for (&p, &b) in planes.iter().zip(&blocks) {
            let hi = self.host_idx(p, slot);
            self.hosts[hi] = Frontier { block: b, next: 0 };
        }
        // Not while GC takes its superblock: that runs inside a collection, and a wear-levelling
        // migration started there would write GC's frontier under the running collection's
        // feet (a block then takes more units than it has).
        if !gc {
            self.maybe_wear_level()?;
        }
        if shared && !gc {
            self.reclaim_until(threshold)?;
        }
        Ok(())
    }

    /// NVMe's Reclaim Unit Handle Update (FDP) of host slot `slot`: its open superblock, when
    /// partly written, leaves the slot as it is: its blocks are closed with their unwritten
    /// pages left unwritten (the superblock becomes a GC candidate, collected and erased
    /// whole), and the slot's next write opens a new one. An empty or full superblock stays
    /// (a full one is left at the next write anyway). Returns whether one left partly
    /// written, NVMe's "reclaim unit not fully written" event. The slot's page being filled
    /// must have been programmed first (padded): a block's pages are programmed whole.
    pub fn retire_open_superblock(&mut self, slot: usize) -> Result<bool> {
        let upb = self.geo.units_per_block as u32;
        let upp = self.geo.units_per_page as u32;
        let sb = self.sb.as_deref().expect("superblocks");
        if slot >= sb.host_slots {
            return Err(Error::Invalid(format!("slot {slot} is not a host slot")));
        }
        let slots = sb.open.len();
        let id = sb.open[slot];
        // Units written to each member still the slot's frontier (a member no longer its
        // frontier is full).
        let mut written = 0u64;
        let mut full = true;
        if id != NONE {
            for &b in &sb.table[id as usize].blocks {
                let p = self.geo.plane_of_block(b as usize);
                let f = self.hosts[self.host_idx(p, slot)];
                let n = if f.block == b { f.next } else { upb };
                if n % upp != 0 {
                    return Err(Error::Invalid(format!(
                        "slot {slot}: block {b} has a page partly filled when its handle is updated"
                    )));
                }
                written += n as u64;
                full &= n == upb;
            }
        }
        let sb = self.sb.as_deref_mut().expect("superblocks");
        SbStats::add_to(&mut sb.stats.ruh_updates_per_slot, slots, slot, 1);
        if written == 0 || full {
            return Ok(false);
        }
        SbStats::add_to(&mut sb.stats.not_fully_written_per_slot, slots, slot, 1);
        sb.open[slot] = NONE;
        sb.cursor[slot] = 0;
        for p in 0..self.geo.planes {
            let hi = self.host_idx(p, slot);
            let f = self.hosts[hi];
            if f.block != NONE {
                self.close_block(p, f.block);
                self.hosts[hi] = NO_FRONTIER;
            }
        }
        Ok(true)
    }

    /// Foreground GC until every plane has `free` free blocks.
    fn reclaim_until(&mut self, free: usize) -> Result<()> {
        let mut guard = 0;
        while let Some(p) = (0..self.geo.planes).find(|&p| self.planes[p].free.len() < free) {
            self.reclaim(p, false)?;
            guard += 1;
            if guard > 4 * self.geo.blocks + 16 {
                return Err(Error::Invalid(format!(
                    "garbage collection in plane {p} makes no progress"
                )));
            }
        }
        Ok(())
    }

    /// The destination of GC's next unit: the plane of the GC page being filled, or a
    /// member of GC's superblock (a new one when it is full), and its frontier.
    pub(super) fn superblock_gc_dest(&mut self) -> Result<(usize, Frontier)> {
        let slot = self.superblock_gc_slot();
        let p = match self.sb.as_deref().expect("superblocks").gc_page {
            Some(p) => p,
            None => {
                let p = self.next_member(slot, |_| 0, true)?;
                self.sb.as_deref_mut().expect("superblocks").gc_page = Some(p);
                p
            }
        };
        Ok((p, self.hosts[self.host_idx(p, slot)]))
    }

    /// The slot GC writes to: its own (the last), or with a shared GC frontier
    /// (`gc_frontier = "shared"`, as FEMU's one write pointer) the host's slot 0.
    #[inline]
    pub(super) fn superblock_gc_slot(&self) -> usize {
        if self.params.gc_shared_frontier {
            0
        } else {
            let sb = self.sb.as_deref().expect("superblocks");
            sb.host_slots + sb.gc_owner
        }
    }

    /// A collection of block `victim` starts: with a GC slot per host slot, its survivors go
    /// to the GC slot of the slot whose superblock holds it (a GC superblock's is the slot it
    /// serves; a block outside any superblock: the first).
    pub(super) fn superblock_gc_owner(&mut self, victim: u32) {
        let Some(sb) = self.sb.as_deref_mut() else {
            return;
        };
        let gc_slots = sb.widths.len() - sb.host_slots;
        if gc_slots <= 1 {
            return;
        }
        let groups = sb.reclaim_groups();
        let (host_per_group, gc_per_group) = (sb.host_slots / groups, gc_slots / groups);
        let id = sb.sb_of[victim as usize];
        let owner = if id == NONE {
            // A block outside any superblock: GC's first slot of its plane's reclaim group.
            let g = &self.geo;
            let way = (g.plane_of_block(victim as usize) / g.channels) % g.ways;
            way / sb.group_ways.max(1) * gc_per_group
        } else {
            let slot = sb.table[id as usize].slot as usize;
            if slot >= sb.host_slots {
                slot - sb.host_slots
            } else {
                // The host slot's reclaim group, and its handle's own GC slot there when
                // each handle has one.
                let own = if gc_per_group > 1 { slot % host_per_group } else { 0 };
                slot / host_per_group * gc_per_group + own
            }
        };
        if owner != sb.gc_owner {
            // The page the previous owner's slot was filling stays with that slot (another
            // slot has no block on its plane, or its own page elsewhere).
            sb.parked_gc_pages[sb.gc_owner] = sb.gc_page.take();
            sb.gc_page = sb.parked_gc_pages[owner].take();
            sb.gc_owner = owner;
        }
    }

    /// A collection ended: GC's page, if one is being filled, is left to be padded; returns
    /// its plane.
    pub(super) fn superblock_gc_page_done(&mut self) -> Option<usize> {
        self.sb.as_deref_mut()?.gc_page.take()
    }

    /// GC's page is complete: the next unit starts a page on the next member.
    #[inline]
    pub(super) fn gc_page_done(&mut self) {
        if let Some(sb) = self.sb.as_deref_mut() {
            sb.gc_page = None;
        }
    }

    /// One garbage collection that frees a block of `plane`: a whole superblock (or GC block)
    /// holding one, or the plane's block the victim policy picks.
    pub(super) fn reclaim(&mut self, plane: usize, background: bool) -> Result<()> {
        let sb = self.sb.as_deref().expect("superblocks");
        if !sb.whole {
            // The victim's share is recorded when the policy has picked it.
            return self.collect(plane, Pick::Policy, background);
        }
        let (valid, cap, b) = self
            .superblock_victim(plane, |_, _| ())
            .ok_or_else(|| Error::Invalid(format!("plane {plane}: no block to garbage-collect (device over-full)")))?;
        if valid >= cap && !background {
            // Collecting a wholly valid superblock copies as much as it frees: GC here can
            // never make room, and would go on copying (and recording) without end.
            return Err(self.no_room(plane));
        }
        self.collect_superblock(valid, cap, b, background)
    }

    /// Foreground GC in `plane` finds only wholly valid superblocks: the data written to its
    /// reclaim group fills the group's flash.
    fn no_room(&self, plane: usize) -> Error {
        let sb = self.sb.as_deref().expect("superblocks");
        let groups = sb.reclaim_groups();
        if groups > 1 {
            let way = (plane / self.geo.channels) % self.geo.ways;
            let g = way / sb.group_ways.max(1);
            Error::Invalid(format!(
                "device.placement.reclaim_groups: garbage collection in reclaim group {g} (plane {plane}) finds only wholly valid superblocks: the data written to that group fills its 1/{groups} of the flash; expected writes whose placement identifiers spread over the groups, or fewer reclaim groups"
            ))
        } else {
            Error::Invalid(format!(
                "garbage collection in plane {plane} finds only wholly valid superblocks: the data written fills the flash; expected more device.geometry.overprovisioning or less data written"
            ))
        }
    }

    /// Whole-superblock GC's victim for `plane`: among the full superblocks (all members
    /// full) holding a block of it, and its full blocks outside any, the lowest share of
    /// valid units; ties to the lowest block. Returns (valid units, capacity in units, a
    /// block of it); `each` sees every candidate's (valid, capacity).
    pub(super) fn superblock_victim(&self, plane: usize, mut each: impl FnMut(u64, u64)) -> Option<(u64, u64, u32)> {
        let sb = self.sb.as_deref().expect("superblocks");
        let upb = self.geo.units_per_block as u64;
        let bpp = self.geo.blocks_per_plane;
        let mut best: Option<(u64, u64, u32)> = None;
        for b in plane * bpp..(plane + 1) * bpp {
            if self.state[b] != BlockState::Full {
                continue;
            }
            let id = sb.sb_of[b];
            let (valid, cap) = if id == NONE {
                (self.valid[b] as u64, upb)
            } else {
                let members = &sb.table[id as usize].blocks;
                if members.iter().any(|&m| self.state[m as usize] != BlockState::Full) {
                    continue;
                }
                (
                    members.iter().map(|&m| self.valid[m as usize] as u64).sum(),
                    members.len() as u64 * upb,
                )
            };
            each(valid, cap);
            if best.is_none_or(|(v, c, _)| valid * c < v * cap) {
                best = Some((valid, cap, b as u32));
            }
        }
        best
    }

    /// Collect the superblock holding block `b` whole (or `b` alone when it is in none), its
    /// `valid` of `cap` units recorded as a victim's.
    pub(super) fn collect_superblock(&mut self, valid: u64, cap: u64, b: u32, background: bool) -> Result<()> {
        let sb = self.sb.as_deref().expect("superblocks");
        let id = sb.sb_of[b as usize];
        let (victims, owner) = if id == NONE {
            (vec![b], None)
        } else {
            let s = &sb.table[id as usize];
            (s.blocks.clone(), Some(s.slot as usize))
        };
        let sb = self.sb.as_deref_mut().expect("superblocks");
        sb.stats.victim(valid, cap);
        if let Some(slot) = owner {
            SbStats::add_to(&mut sb.stats.gc_units_per_slot, sb.open.len(), slot, valid);
        }
        for v in victims {
            let p = self.geo.plane_of_block(v as usize);
            self.collect(p, Pick::Gc(v), background)?;
        }
        Ok(())
    }

    /// Block `b` was erased: it leaves its superblock.
    pub(super) fn superblock_erased(&mut self, b: u32) {
        let Some(sb) = self.sb.as_deref_mut() else {
            return;
        };
        let id = std::mem::replace(&mut sb.sb_of[b as usize], NONE);
        if id == NONE {
            return;
        }
        let members = &mut sb.table[id as usize].blocks;
        members.retain(|&m| m != b);
        if members.is_empty() && !sb.open.contains(&id) {
            sb.free_ids.push(id);
        }
    }

    /// Record the valid share of a block victim the policy picked (block GC).
    pub(super) fn superblock_victim_block(&mut self, valid: u32) {
        let upb = self.geo.units_per_block as u64;
        if let Some(sb) = self.sb.as_deref_mut() {
            if !sb.whole {
                sb.stats.victim(valid as u64, upb);
            }
        }
    }
}

impl Superblocks {
    /// Whether these superblocks are laid out as [`Ftl::enable_superblocks`] lays out
    /// `layout` on `g` (a snapshot's state against its device's placement): the host slots
    /// and their widths, GC's slots after them (one, or one per handle under persistent
    /// isolation), whole-superblock GC, the reclaim groups.
    pub fn check_layout(&self, layout: &crate::placement::Layout, g: &crate::geometry::Geometry) -> Result<(), String> {
        let group_ways = g.ways / layout.reclaim_groups.max(1);
        let mut widths = layout.widths.clone();
        widths.extend(std::iter::repeat_n(group_ways, layout.gc_slots.max(1)));
        // 0: a snapshot of a build before reclaim groups (one group).
        let groups_ok = self.group_ways == group_ways || (self.group_ways == 0 && layout.reclaim_groups <= 1);
        if self.host_slots != layout.widths.len()
            || self.widths != widths
            || self.whole != layout.whole
            || self.parked_gc_pages.len() != layout.gc_slots.max(1)
            || !groups_ok
        {
            return Err(format!(
                "its superblocks are laid out as {} host slot(s) and {} of GC's, widths {:?}, in groups of {} chips per channel, where its device's placement gives {} and {}, widths {widths:?}, in groups of {group_ways}",
                self.host_slots,
                self.widths.len().saturating_sub(self.host_slots),
                self.widths,
                self.group_ways,
                layout.widths.len(),
                layout.gc_slots.max(1),
            ));
        }
        Ok(())
    }

    /// GC collects whole superblocks (else a block at a time).
    pub(super) fn collects_whole(&self) -> bool {
        self.whole
    }

    /// FDP's reclaim groups (1: one group, every chip).
    pub fn reclaim_groups(&self) -> usize {
        match self.group_ways {
            0 => 1,
            w => self.groups.len().saturating_sub(1) / w,
        }
    }

    /// The reclaim group of `slot`: the host slots, then GC's, are equally many per group,
    /// group by group.
    fn reclaim_group_of(&self, slot: usize) -> usize {
        let groups = self.reclaim_groups();
        if groups == 1 {
            return 0;
        }
        let gc_slots = self.widths.len() - self.host_slots;
        if slot < self.host_slots {
            slot / (self.host_slots / groups)
        } else {
            (slot - self.host_slots) / (gc_slots / groups)
        }
    }

    /// Check superblocks read from a file before anything indexes with them: every length
    /// is of `g` (with `streams` slots) and every index within it. [`Ftl::check_superblocks`]
    /// then checks that they agree with the blocks.
    pub(super) fn check_bounds(
        &self,
        g: &crate::geometry::Geometry,
        streams: usize,
    ) -> std::result::Result<(), String> {
        let sb = self;
        let ids = sb.table.len();
        let id_ok = |id: u32| id == NONE || (id as usize) < ids;
        if sb.widths.len() != streams || sb.open.len() != streams || sb.cursor.len() != streams {
            return Err(format!("{} slots where the FTL has {streams} streams", sb.widths.len()));
        }
        if sb.groups.len() != g.ways + 1 || sb.next_group.len() != g.ways + 1 {
            return Err("its groups are not of its geometry".into());
        }
        for &w in &sb.widths {
            let groups = &sb.groups[w.min(g.ways)];
            if w == 0 || w > g.ways || groups.is_empty() || sb.next_group[w] >= groups.len() {
                return Err(format!("a slot of width {w} on {} ways", g.ways));
            }
            if groups
                .iter()
                .any(|gr| gr.is_empty() || gr.iter().any(|&p| p >= g.planes))
            {
                return Err(format!("a group of width {w} names a plane outside its geometry"));
            }
        }
        if sb.group_ways != 0 {
            let groups = g.ways / sb.group_ways.max(1);
            let gc_slots = streams.saturating_sub(sb.host_slots);
            if sb.group_ways > g.ways
                || !g.ways.is_multiple_of(sb.group_ways)
                || !sb.host_slots.is_multiple_of(groups)
                || !gc_slots.is_multiple_of(groups)
                || sb
                    .widths
                    .iter()
                    .any(|&w| w > sb.group_ways || !sb.group_ways.is_multiple_of(w))
            {
                return Err(format!(
                    "its reclaim groups of {} chips per channel do not divide its {} chips or its slots",
                    sb.group_ways, g.ways
                ));
            }
        }
        if sb.sb_of.len() != g.blocks || !sb.sb_of.iter().all(|&i| id_ok(i)) {
            return Err("its block-to-superblock map is not of its geometry".into());
        }
        if sb
            .table
            .iter()
            .any(|s| s.blocks.len() > g.planes || s.blocks.iter().any(|&b| b as usize >= g.blocks))
        {
            return Err("a superblock names a block outside its geometry".into());
        }
        if !sb.free_ids.iter().all(|&i| (i as usize) < ids) || !sb.open.iter().all(|&i| id_ok(i)) {
            return Err("a free or open superblock is not in its table".into());
        }
        if sb.cursor.iter().any(|&c| c > g.planes)
            || sb.gc_page.is_some_and(|p| p >= g.planes)
            || sb.parked_gc_pages.iter().flatten().any(|&p| p >= g.planes)
        {
            return Err("a slot's member or GC's plane is outside its geometry".into());
        }
        if sb.stats.victim_valid_percent.len() != RATIO_BINS {
            return Err("its victim histogram is not of 101 bins".into());
        }
        let slots = sb.open.len();
        if sb.host_slots == 0
            || sb.host_slots >= slots
            || sb.host_slots.checked_add(sb.gc_owner).is_none_or(|s| s >= slots)
            || sb.table.iter().any(|s| s.slot as usize >= slots)
            || sb.parked_gc_pages.len() != slots - sb.host_slots
            || [
                &sb.stats.opened_per_slot,
                &sb.stats.gc_units_per_slot,
                &sb.stats.ruh_updates_per_slot,
                &sb.stats.not_fully_written_per_slot,
            ]
            .iter()
            .any(|v| !v.is_empty() && v.len() != slots)
        {
            return Err("a superblock's slot or a per-slot count is not of its slots".into());
        }
        Ok(())
    }
}

impl Ftl {
    /// The superblock invariants: membership both ways, members in distinct planes of one
    /// group and never free or retired, open superblocks are their slots' frontiers.
    pub(super) fn check_superblocks(&self) -> std::result::Result<(), String> {
        let Some(sb) = self.sb.as_deref() else {
            return Ok(());
        };
        let mut members = 0usize;
        for (id, s) in sb.table.iter().enumerate() {
            if sb.free_ids.contains(&(id as u32)) {
                if !s.blocks.is_empty() {
                    return Err(format!("superblock {id} is free but has members"));
                }
                continue;
            }
            let mut planes: Vec<usize> = s.blocks.iter().map(|&b| self.geo.plane_of_block(b as usize)).collect();
            planes.sort_unstable();
            planes.dedup();
            if planes.len() != s.blocks.len() {
                return Err(format!("superblock {id} has two blocks in one plane"));
            }
            for &b in &s.blocks {
                members += 1;
                if sb.sb_of[b as usize] != id as u32 {
                    return Err(format!(
                        "block {b} is a member of superblock {id} but says {}",
                        sb.sb_of[b as usize]
                    ));
                }
                if matches!(self.state[b as usize], BlockState::Free | BlockState::Retired) {
                    return Err(format!(
                        "superblock {id} holds block {b} in state {:?}",
                        self.state[b as usize]
                    ));
                }
            }
        }
        let tagged = sb.sb_of.iter().filter(|&&i| i != NONE).count();
        if tagged != members {
            return Err(format!(
                "{tagged} blocks name a superblock but superblocks hold {members}"
            ));
        }
        let upb = self.geo.units_per_block as u32;
        for (slot, &id) in sb.open.iter().enumerate() {
            for p in 0..self.geo.planes {
                let f = self.hosts[self.host_idx(p, slot)];
                if f.block == NONE {
                    continue;
                }
                let own = id != NONE && sb.table[id as usize].blocks.contains(&f.block);
                if !own && f.next < upb {
                    return Err(format!(
                        "slot {slot}: plane {p}'s open block {} is not in the slot's superblock",
                        f.block
                    ));
                }
            }
        }
        if sb.stats.victim_valid_percent.iter().sum::<u64>() != sb.stats.victims {
            return Err("superblock victim histogram does not add up to the victims".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_config;
    use crate::ftl::FtlParams;

    /// 2 channels × 4 chips, one plane each (8 planes), 16 blocks of 4 pages of 2 units.
    fn ftl(widths: Vec<usize>, whole: bool) -> Ftl {
        ftl_gc(widths, whole, 1)
    }

    /// As [`ftl`], with `gc_slots` GC write classes.
    fn ftl_gc(widths: Vec<usize>, whole: bool, gc_slots: usize) -> Ftl {
        ftl_layout(Layout {
            widths,
            whole,
            gc_slots,
            reclaim_groups: 1,
        })
    }

    /// As [`ftl`], with superblocks as `layout` asks.
    fn ftl_layout(layout: Layout) -> Ftl {
        let text = r#"
[device]
preset = "mlc-sata"
[device.geometry]
channels = 2
ways = 4
dies_per_chip = 1
planes_per_die = 1
blocks_per_plane = 16
pages_per_block = 4
page_size = "8KiB"
mapping_unit = "4KiB"
overprovisioning = 0.5
"#;
        let cfg = parse_config(text, "sb.toml", std::path::Path::new(".")).unwrap();
        let geo = crate::redundancy::geometry_of(&cfg.device, "sb.toml").unwrap();
        let mut f = Ftl::new(geo, FtlParams::for_tests()).unwrap();
        f.enable_superblocks(&layout);
        f
    }

    /// Write `lpns` as pages of slot `slot`; returns the plane of each page.
    fn write(f: &mut Ftl, slot: usize, lpns: impl IntoIterator<Item = u64>) -> Vec<usize> {
        let mut planes = Vec::new();
        let mut page: Option<usize> = None;
        for l in lpns {
            let p = match page {
                Some(p) => p,
                None => {
                    let p = f.superblock_plane(slot, |_| 0).unwrap();
                    planes.push(p);
                    p
                }
            };
            page = if f.append_stream(p, slot, l).unwrap().is_some() {
                None
            } else {
                Some(p)
            };
        }
        planes
    }

    fn sorted(mut v: Vec<usize>) -> Vec<usize> {
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The slot whose superblock holds each unit of `lpns` (the slot that opened it).
    fn slots_holding(f: &Ftl, lpns: std::ops::Range<u64>) -> Vec<usize> {
        let sb = f.superblocks().unwrap();
        let upb = f.geo.units_per_block as u32;
        let mut slots: Vec<usize> = lpns
            .map(|l| {
                let id = sb.sb_of[(f.lookup(l) / upb) as usize];
                assert_ne!(id, NONE, "unit {l} outside any superblock");
                sb.table[id as usize].slot as usize
            })
            .collect();
        slots.sort_unstable();
        slots.dedup();
        slots
    }

    #[test]
    fn persistently_isolated_survivors_stay_with_their_handle_initially_isolated_ones_mix() {
        for gc_slots in [1, 2] {
            // Two host slots (FDP handles), a superblock each of 64 units; then the even
            // units of both rewritten through their own slot: each first superblock half
            // valid, its odd units the survivors.
            let mut f = ftl_gc(vec![4, 4], true, gc_slots);
            write(&mut f, 0, 0..64);
            write(&mut f, 1, 64..128);
            write(&mut f, 0, (0..64).step_by(2));
            write(&mut f, 1, (64..128).step_by(2));
            f.check_invariants().unwrap();
            // Both half-valid superblocks collected (the emptiest full ones; the rewritten
            // halves are still open).
            f.reclaim(0, false).unwrap();
            f.reclaim(0, false).unwrap();
            f.check_invariants().unwrap();
            let s = f.superblocks().unwrap();
            assert_eq!(s.stats.victims, 2);
            assert_eq!(s.stats.gc_units_per_slot, [32, 32, 0, 0][..2 + gc_slots]);
            let odd = |r: std::ops::Range<u64>| r.step_by(2).collect::<Vec<u64>>();
            // The survivors: handle 0's odd units and handle 1's.
            let (h0, h1) = (odd(1..64), odd(65..128));
            let holder = |units: &[u64]| {
                let mut v: Vec<usize> = units.iter().map(|&l| slots_holding(&f, l..l + 1)[0]).collect();
                v.sort_unstable();
                v.dedup();
                v
            };
            if gc_slots == 1 {
                // Initially isolated: both in GC's one superblock (slot 2), together.
                assert_eq!((holder(&h0), holder(&h1)), (vec![2], vec![2]));
                assert_eq!(s.stats.opened_per_slot, [2, 2, 1]);
            } else {
                // Persistently isolated: each in its handle's GC superblock (slots 2 and 3).
                assert_eq!((holder(&h0), holder(&h1)), (vec![2], vec![3]));
                assert_eq!(s.stats.opened_per_slot, [2, 2, 1, 1]);
            }
            // The rewritten halves stayed in their own slots.
            assert_eq!(slots_holding(&f, 0..1), [0]);
            assert_eq!(slots_holding(&f, 64..65), [1]);
        }
    }

    #[test]
    fn reclaim_groups_keep_each_handle_and_its_survivors_on_their_chips() {
        for gc_slots in [2, 4] {
            // Two reclaim groups (chips 0–1 of both channels: planes 0–3; chips 2–3: planes
            // 4–7), two handles in each: slots 0 and 1 in group 0, 2 and 3 in group 1, each
            // superblock 4 planes × 4 pages × 2 units = 32 units. GC: a slot per group
            // (slots 4, 5), or per handle in each (slots 4–7).
            let mut f = ftl_layout(Layout {
                widths: vec![2; 4],
                whole: true,
                gc_slots,
                reclaim_groups: 2,
            });
            for (slot, base) in [(0, 0), (1, 32), (2, 64), (3, 96)] {
                let planes = sorted(write(&mut f, slot, base..base + 32));
                assert_eq!(
                    planes,
                    if slot < 2 { [0, 1, 2, 3] } else { [4, 5, 6, 7] },
                    "slot {slot}"
                );
            }
            // Group 1's handles rewrite their even units: their first superblocks half valid.
            write(&mut f, 2, (64..96).step_by(2));
            write(&mut f, 3, (96..128).step_by(2));
            f.reclaim(4, false).unwrap();
            f.reclaim(4, false).unwrap();
            f.check_invariants().unwrap();
            let s = f.superblocks().unwrap();
            assert_eq!(s.stats.victims, 2);
            let odd = |r: std::ops::Range<u64>| r.step_by(2).collect::<Vec<u64>>();
            let (h2, h3) = (odd(65..96), odd(97..128));
            let holder = |units: &[u64]| sorted(units.iter().map(|&l| slots_holding(&f, l..l + 1)[0]).collect());
            let planes_of = |units: &[u64]| {
                let upb = f.geo.units_per_block as u32;
                sorted(
                    units
                        .iter()
                        .map(|&l| f.geo.plane_of_block((f.lookup(l) / upb) as usize))
                        .collect(),
                )
            };
            // The survivors stay on group 1's chips, in its GC superblocks.
            assert!(planes_of(&h2)
                .iter()
                .chain(&planes_of(&h3))
                .all(|&p| (4..8).contains(&p)));
            if gc_slots == 2 {
                assert_eq!((holder(&h2), holder(&h3)), (vec![5], vec![5]));
                assert_eq!(s.stats.opened_per_slot, [1, 1, 2, 2, 0, 1]);
            } else {
                assert_eq!((holder(&h2), holder(&h3)), (vec![6], vec![7]));
                assert_eq!(s.stats.opened_per_slot, [1, 1, 2, 2, 0, 0, 1, 1]);
            }
            // Group 0's data never moved.
            assert_eq!(slots_holding(&f, 0..32), [0]);
            assert_eq!(slots_holding(&f, 32..64), [1]);
            assert_eq!(s.reclaim_groups(), 2);
        }
    }

    #[test]
    fn superblocks_span_their_group_of_chips_on_every_channel() {
        // Slot 0 full width (4 chips per channel), slot 1 half width (2 chips per channel).
        let mut f = ftl(vec![4, 2], true);
        // Plane s: channel s % 2, chip (s / 2) % 4. Full width: all 8 planes, 4 pages each,
        // in turn.
        let full = write(&mut f, 0, 0..64);
        assert_eq!(full.len(), 32);
        assert_eq!(&full[..8], &[0, 1, 2, 3, 4, 5, 6, 7]);
        for p in 0..8 {
            assert_eq!(full.iter().filter(|&&x| x == p).count(), 4);
        }
        // Half width: chips 0–1 of both channels (planes 0–3), then chips 2–3 (planes 4–7).
        let half = write(&mut f, 1, 64..96);
        assert_eq!(sorted(half), vec![0, 1, 2, 3]);
        let next = write(&mut f, 1, 96..128);
        assert_eq!(sorted(next), vec![4, 5, 6, 7]);
        let s = f.superblocks().unwrap();
        assert_eq!(s.stats.superblocks_opened, 3);
        // A slot's blocks close when its next superblock opens: slot 1's first four are full,
        // slot 0's eight and slot 1's newest four still open.
        f.check_invariants().unwrap();
        let count = |st| f.state.iter().filter(|&&b| b == st).count();
        assert_eq!((count(BlockState::Full), count(BlockState::Open)), (4, 12));
        // Both groups have 14 free blocks per plane: the tie goes to the group after the
        // last one used.
        let again = write(&mut f, 1, 160..192);
        assert_eq!(sorted(again), vec![0, 1, 2, 3]);
    }

    #[test]
    fn whole_gc_collects_every_block_of_the_emptiest_superblock_block_gc_one_block() {
        for whole in [true, false] {
            let mut f = ftl(vec![4], whole);
            // S1: units 0..64, page k on plane k % 8; then its plane-0 block emptied (pages
            // 0, 8, 16, 24: units 0, 1, 16, 17, 32, 33, 48, 49): S1 is 56/64 valid.
            write(&mut f, 0, 0..64);
            // S2: units 64..128; then one unit of each page rewritten: every block half valid.
            write(&mut f, 0, 64..128);
            let rewrite: Vec<u64> = [0u64, 1, 16, 17, 32, 33, 48, 49]
                .into_iter()
                .chain((64..128).step_by(2))
                .collect();
            write(&mut f, 0, rewrite);
            f.check_invariants().unwrap();
            f.reclaim(0, false).unwrap();
            f.check_invariants().unwrap();
            let s = f.superblocks().unwrap();
            assert_eq!(s.stats.victims, 1);
            let pct: Vec<(usize, u64)> = s
                .stats
                .victim_valid_percent
                .iter()
                .enumerate()
                .filter(|x| *x.1 > 0)
                .map(|(i, &n)| (i, n))
                .collect();
            if whole {
                // GC wrote into a superblock of its own (the last slot).
                assert_ne!(s.open[f.streams - 1], NONE);
                // S2 (50 %) beats S1 (87 %): its eight blocks erased, 32 units copied.
                assert_eq!(f.stats.erases, 8);
                assert_eq!(f.stats.gc_units_copied, 32);
                assert_eq!(f.stats.gc_runs_foreground, 8);
                assert_eq!(pct, vec![(50, 1)]);
                // S2's number is free for the next superblock.
                assert_eq!(s.free_ids.len(), 1);
            } else {
                // Greedy in plane 0: S1's empty block alone.
                assert_eq!(f.stats.erases, 1);
                assert_eq!(f.stats.gc_units_copied, 0);
                assert_eq!(pct, vec![(0, 1)]);
            }
        }
    }

    #[test]
    fn a_shared_gc_frontier_copies_into_the_host_superblock_and_pads_its_page() {
        let mut f = ftl(vec![4], true);
        f.params.gc_shared_frontier = true;
        // As above: S1 (0..64), S2 (64..128), 40 units rewritten into S3 (20 of its 32 pages).
        write(&mut f, 0, 0..64);
        write(&mut f, 0, 64..128);
        let rewrite: Vec<u64> = [0u64, 1, 16, 17, 32, 33, 48, 49]
            .into_iter()
            .chain((64..128).step_by(2))
            .chain([200])
            .collect();
        write(&mut f, 0, rewrite);
        // 41 units: S3's page 20 holds one unit.
        f.reclaim(0, false).unwrap();
        f.check_invariants().unwrap();
        // S2's 32 units: 1 completes the host's page 20, 22 fill pages 21–31 of S3, the rest
        // (9) go to a fourth superblock GC opened, whose last page (one unit) is padded.
        let s = f.superblocks().unwrap();
        assert_eq!(s.stats.superblocks_opened, 4);
        assert_eq!(f.stats.gc_units_copied, 32);
        assert_eq!(f.stats.erases, 8);
        assert_eq!(f.stats.padded_units, 1);
        assert!(f.hosts.iter().all(|h| h.next % 2 == 0), "every frontier page-aligned");
        // GC wrote into slot 0: its own slot never opened, its page was handed back.
        let sb = f.superblocks().unwrap();
        assert_eq!(sb.open[f.streams - 1], NONE);
        assert_eq!(sb.gc_page, None);
        assert!(sb.parked_gc_pages.iter().all(Option::is_none));
        // The host writes on into the superblock GC opened.
        write(&mut f, 0, 300..310);
        assert_eq!(f.superblocks().unwrap().stats.superblocks_opened, 4);
        f.check_invariants().unwrap();
    }

    #[test]
    fn chip_groups_partition_the_planes_per_width() {
        let f = ftl(vec![4, 2, 1], true);
        let sb = f.superblocks().unwrap();
        // 2 channels × 4 chips: width 4 is one group of 8 planes, 2 two of 4, 1 four of 2.
        for (w, n) in [(4, 1), (2, 2), (1, 4)] {
            let groups = &sb.groups[w];
            assert_eq!(groups.len(), n, "width {w}");
            let mut all: Vec<usize> = groups.iter().flatten().copied().collect();
            assert!(groups.iter().all(|g| g.len() == 2 * w), "width {w}: {groups:?}");
            all.sort_unstable();
            assert_eq!(all, (0..8).collect::<Vec<_>>(), "width {w}");
            // Each group has the same chips on both channels: planes 2c and 2c + 1.
            for g in groups {
                assert!(g.chunks(2).all(|c| c[0] % 2 == 0 && c[1] == c[0] + 1), "{g:?}");
            }
        }
    }

    #[test]
    fn the_member_that_costs_least_gets_the_page_ties_go_in_turn() {
        let mut f = ftl(vec![4], true);
        assert_eq!(f.superblock_plane(0, |p| if p == 5 { 1 } else { 3 }).unwrap(), 5);
        f.append_stream(5, 0, 0).unwrap();
        f.append_stream(5, 0, 1).unwrap();
        // Equal costs: the member after the last one chosen.
        assert_eq!(f.superblock_plane(0, |_| 3).unwrap(), 6);
    }

    #[test]
    fn a_slot_whose_superblock_is_not_full_is_not_closed() {
        let mut f = ftl(vec![4], true);
        write(&mut f, 0, 0..3);
        let e = f.close_slot(0).unwrap_err().to_string();
        assert!(e.contains("is not full but its superblock is"), "{e}");
    }

    #[test]
    fn ties_between_groups_go_to_the_next_one_in_turn() {
        // Width 1: four groups (chip 0: planes 0, 1; chip 1: 2, 3; ...). Groups 0 and 2 lose
        // a block per plane; the turn is at group 2: groups 3 and 1 have the most free
        // blocks, and 3 comes first from 2.
        let mut f = ftl(vec![1], true);
        for p in [0, 1, 4, 5] {
            f.take_free(p).unwrap();
        }
        f.sb.as_deref_mut().unwrap().next_group[1] = 2;
        let planes = write(&mut f, 0, 0..4);
        assert_eq!(sorted(planes), vec![6, 7]);
    }

    #[test]
    fn equally_empty_superblocks_go_in_block_order() {
        // S1 (units 0..64) and S2 (64..128), half of each rewritten: both 50 % valid. S1
        // holds block 0 of plane 0, S2 block 1: S1 is collected.
        let mut f = ftl(vec![4], true);
        write(&mut f, 0, 0..128);
        write(&mut f, 0, (0..128).step_by(2));
        f.reclaim(0, false).unwrap();
        assert_eq!(f.state[0], BlockState::Free);
        assert_eq!(f.state[1], BlockState::Full);
        f.check_invariants().unwrap();
    }

    #[test]
    fn the_checker_reports_each_kind_of_superblock_corruption() {
        // S1 full (units 0..64), S2 open with three pages.
        let worked = || {
            let mut f = ftl(vec![4], true);
            write(&mut f, 0, 0..70);
            f.check_invariants().unwrap();
            f
        };
        let fails = |f: &Ftl, what: &str| match f.check_invariants() {
            Ok(()) => panic!("the checker missed: {what}"),
            Err(e) => assert!(e.contains(what), "expected '{what}', got '{e}'"),
        };
        fn sb(f: &mut Ftl) -> &mut Superblocks {
            f.sb.as_deref_mut().unwrap()
        }

        let mut f = worked();
        let b = sb(&mut f).table[0].blocks[3];
        sb(&mut f).sb_of[b as usize] = 1;
        fails(&f, &format!("block {b} is a member of superblock 0 but says 1"));

        let mut f = worked();
        sb(&mut f).free_ids.push(0);
        fails(&f, "superblock 0 is free but has members");

        let mut f = worked();
        let other = sb(&mut f).table[1].blocks[1];
        sb(&mut f).table[0].blocks[0] = other;
        fails(&f, "superblock 0 has two blocks in one plane");

        let mut f = worked();
        let extra = sb(&mut f).table[1].blocks.pop().unwrap();
        sb(&mut f).table[0].blocks.push(extra);
        fails(&f, "superblock 0 has two blocks in one plane");

        let mut f = worked();
        sb(&mut f).sb_of[100] = 0;
        fails(&f, "blocks name a superblock but superblocks hold");

        // An open block of the slot outside its open superblock.
        let mut f = worked();
        sb(&mut f).open[0] = 0;
        fails(&f, "slot 0: plane 0's open block");

        let mut f = worked();
        sb(&mut f).stats.victims += 1;
        fails(&f, "histogram does not add up");
    }

    #[test]
    fn counts_since_a_snapshot_are_differences() {
        let mut before = SbStats {
            victim_valid_percent: vec![0; RATIO_BINS],
            ..Default::default()
        };
        before.superblocks_opened = 3;
        before.victim(40, 100);
        let mut now = before.clone();
        now.superblocks_opened = 10;
        now.victim(40, 100);
        now.victim(99, 100);
        let d = now.since(&before);
        assert_eq!((d.superblocks_opened, d.victims), (7, 2));
        assert_eq!((d.victim_valid_percent[40], d.victim_valid_percent[99]), (1, 1));
        assert_eq!(d.victim_valid_percent.iter().sum::<u64>(), 2);
    }
}
