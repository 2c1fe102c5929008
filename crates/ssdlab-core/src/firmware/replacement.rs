//! Replacement policies of a write buffer whose slots hold one mapping unit each (scheme
//! one, `scheme_one.rs`): which buffered units leave when a write needs room.
//!
//! The buffer (the design) owns the slots and their data; a policy only orders them. It is
//! told when a slot receives host data ([`Replacement::written`]), when a read hits one, when
//! a clean copy of flash data comes in, and when a slot leaves for another reason (trim); it
//! answers with victims ([`Replacement::evict`]). A victim leaves the policy's lists at once:
//! a clean one is dropped by the design, a dirty one is written to flash and its slot freed
//! when the program ends.
//!
//! - `lru`: unit-level LRU over the dirty units, by write recency (a write buffer: reads that
//!   hit it do not reorder it).
//! - `cflru`: Clean-First LRU (Park et al., CASES 2006). Clean and dirty units share one
//!   recency list (reads and writes reorder it, as in a page cache). The `window` units at the
//!   LRU end are the clean-first region: the clean unit nearest the LRU end in it is dropped
//!   without a flash write; when the region holds none, the LRU unit (dirty) is written. The
//!   window is a constructor parameter; the design uses [`CfLru::DEFAULT_WINDOW_DIVISOR`]: a
//!   quarter of the buffer, at least one unit.
//! - `bplru`: Block-Padding LRU (Kim & Ahn, FAST 2008). Units are grouped by logical block
//!   (`units_per_block` consecutive logical units); a write moves its block to the MRU end;
//!   the victim is the whole LRU block, all its buffered units written together in logical
//!   order. LRU compensation: a block written completely sequentially (its units from the
//!   first to the last, in order, none rewritten) goes to the LRU end, since sequentially
//!   written data is seldom rewritten soon. Block padding, reading the units of a victim block
//!   that are not buffered so the block is written whole, serves a log-block FTL's switch
//!   merge; on this page-mapped FTL a block need not be written whole, so it is left out.
//!   Reads do not reorder blocks (the paper's buffer is managed on writes).
//!
//! Dirty victims are written a page (`per_page` units) at a time: `lru` and `cflru` top an
//! eviction up with further dirty units in LRU order until the last page is full (when there
//! are enough), rather than programming it padded; `bplru` writes whole blocks.

use std::collections::HashMap;

/// "No entry" in the lists.
const NIL: u32 = u32::MAX;

/// A slot the policy gives up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Victim {
    pub slot: u32,
    /// Dirty: to be written to flash; clean: dropped.
    pub dirty: bool,
}

/// A replacement policy over the buffer's slots.
pub trait Replacement: Send {
    fn name(&self) -> &'static str;
    /// The policy keeps clean copies of data read from flash ([`Replacement::insert_clean`]).
    fn keeps_clean(&self) -> bool {
        false
    }
    /// `slot` received host data of logical unit `lpn`: a new slot, or (`hit`) one already
    /// in the lists overwritten in place. It is dirty now.
    fn written(&mut self, slot: u32, lpn: u64, hit: bool);
    /// A host read was served from `slot`.
    fn read_hit(&mut self, _slot: u32) {}
    /// `slot` now holds a clean copy of `lpn` (only policies that keep clean units).
    fn insert_clean(&mut self, _slot: u32, _lpn: u64) {}
    /// `slot` leaves the buffer other than as a victim (its unit was trimmed).
    fn remove(&mut self, slot: u32);
    /// Victims freeing at least `need` slots (fewer when the lists run out), appended to
    /// `out` in the order they are to be written; they leave the lists.
    fn evict(&mut self, need: usize, per_page: usize, out: &mut Vec<Victim>);
    /// A clean unit the policy would drop now to make room for a clean copy (it leaves the
    /// lists), if any: a clean fill never forces a dirty write.
    fn clean_victim(&mut self) -> Option<u32> {
        None
    }
    /// The slots in the lists with their dirty flag, after checking the lists' own links.
    fn members(&self) -> Result<Vec<(u32, bool)>, String>;
}

/// The policy a configuration names, over `slots` slots, with logical blocks of
/// `units_per_block` units.
pub fn make(name: &str, slots: usize, units_per_block: u64) -> Option<Box<dyn Replacement>> {
    match name {
        "lru" => Some(Box::new(Lru::new(slots))),
        "cflru" => Some(Box::new(CfLru::new(
            slots,
            (slots / CfLru::DEFAULT_WINDOW_DIVISOR).max(1),
        ))),
        "bplru" => Some(Box::new(BpLru::new(slots, units_per_block))),
        _ => None,
    }
}

/// Names [`make`] knows.
pub const NAMES: [&str; 3] = ["lru", "cflru", "bplru"];

/// A doubly linked recency list over ids `0..n` (slots or block entries), LRU end to MRU end.
#[derive(Clone, Debug)]
struct Links {
    /// Toward the MRU end.
    newer: Vec<u32>,
    /// Toward the LRU end.
    older: Vec<u32>,
    on: Vec<bool>,
    lru: u32,
    mru: u32,
    len: usize,
}

impl Links {
    fn new(n: usize) -> Links {
        Links {
            newer: vec![NIL; n],
            older: vec![NIL; n],
            on: vec![false; n],
            lru: NIL,
            mru: NIL,
            len: 0,
        }
    }

    fn grow(&mut self, n: usize) {
        if n > self.on.len() {
            self.newer.resize(n, NIL);
            self.older.resize(n, NIL);
            self.on.resize(n, false);
        }
    }

    fn contains(&self, i: u32) -> bool {
        self.on.get(i as usize).copied().unwrap_or(false)
    }

    fn unlink(&mut self, i: u32) {
        if !self.contains(i) {
            return;
        }
        let (o, n) = (self.older[i as usize], self.newer[i as usize]);
        if o == NIL {
            self.lru = n;
        } else {
            self.newer[o as usize] = n;
        }
        if n == NIL {
            self.mru = o;
        } else {
            self.older[n as usize] = o;
        }
        self.newer[i as usize] = NIL;
        self.older[i as usize] = NIL;
        self.on[i as usize] = false;
        self.len -= 1;
    }

    /// Put `i` at the MRU end (moving it if it is in the list).
    fn move_to_mru(&mut self, i: u32) {
        self.unlink(i);
        self.older[i as usize] = self.mru;
        self.newer[i as usize] = NIL;
        if self.mru == NIL {
            self.lru = i;
        } else {
            self.newer[self.mru as usize] = i;
        }
        self.mru = i;
        self.on[i as usize] = true;
        self.len += 1;
    }

    /// Put `i` at the LRU end (moving it if it is in the list).
    fn move_to_lru(&mut self, i: u32) {
        self.unlink(i);
        self.newer[i as usize] = self.lru;
        self.older[i as usize] = NIL;
        if self.lru == NIL {
            self.mru = i;
        } else {
            self.older[self.lru as usize] = i;
        }
        self.lru = i;
        self.on[i as usize] = true;
        self.len += 1;
    }

    fn lru(&self) -> Option<u32> {
        (self.lru != NIL).then_some(self.lru)
    }

    /// Ids from the LRU end to the MRU end.
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(self.lru(), |&i| {
            let n = self.newer[i as usize];
            (n != NIL).then_some(n)
        })
    }

    /// The links agree both ways, the ends are right and `len` is the number of ids on.
    fn check(&self, what: &str) -> Result<Vec<u32>, String> {
        let mut out = Vec::with_capacity(self.len);
        let mut prev = NIL;
        let mut i = self.lru;
        while i != NIL {
            if !self.on[i as usize] {
                return Err(format!("{what} list: {i} is linked but not marked on"));
            }
            if self.older[i as usize] != prev {
                return Err(format!("{what} list: {i}'s older link is not {prev}"));
            }
            out.push(i);
            if out.len() > self.on.len() {
                return Err(format!("{what} list: a cycle"));
            }
            prev = i;
            i = self.newer[i as usize];
        }
        if prev != self.mru {
            return Err(format!("{what} list: MRU end {} but the walk ends at {prev}", self.mru));
        }
        let marked = self.on.iter().filter(|&&b| b).count();
        if out.len() != self.len || marked != self.len {
            return Err(format!(
                "{what} list: {} linked, {marked} marked, length {}",
                out.len(),
                self.len
            ));
        }
        Ok(out)
    }
}

/// Unit-level LRU over dirty units.
pub struct Lru {
    list: Links,
}

impl Lru {
    pub fn new(slots: usize) -> Lru {
        Lru {
            list: Links::new(slots),
        }
    }
}

impl Replacement for Lru {
    fn name(&self) -> &'static str {
        "lru"
    }
    fn written(&mut self, slot: u32, _lpn: u64, _hit: bool) {
        self.list.move_to_mru(slot);
    }
    fn remove(&mut self, slot: u32) {
        self.list.unlink(slot);
    }
    fn evict(&mut self, need: usize, per_page: usize, out: &mut Vec<Victim>) {
        let mut n = 0;
        while n < need || !n.is_multiple_of(per_page) {
            let Some(s) = self.list.lru() else { break };
            self.list.unlink(s);
            out.push(Victim { slot: s, dirty: true });
            n += 1;
        }
    }
    fn members(&self) -> Result<Vec<(u32, bool)>, String> {
        Ok(self.list.check("lru")?.into_iter().map(|s| (s, true)).collect())
    }
}

/// Clean-First LRU.
pub struct CfLru {
    list: Links,
    dirty: Vec<bool>,
    /// Units at the LRU end searched for a clean victim.
    window: usize,
}

impl CfLru {
    /// The design's window: the buffer's slots divided by this (at least one unit).
    pub const DEFAULT_WINDOW_DIVISOR: usize = 4;

    pub fn new(slots: usize, window: usize) -> CfLru {
        CfLru {
            list: Links::new(slots),
            dirty: vec![false; slots],
            window: window.max(1),
        }
    }

    /// The LRU-most dirty unit, taken out of the list.
    fn take_lru_dirty(&mut self) -> Option<u32> {
        let s = self.list.iter().find(|&s| self.dirty[s as usize])?;
        self.list.unlink(s);
        Some(s)
    }
}

impl Replacement for CfLru {
    fn name(&self) -> &'static str {
        "cflru"
    }
    fn keeps_clean(&self) -> bool {
        true
    }
    fn written(&mut self, slot: u32, _lpn: u64, _hit: bool) {
        self.dirty[slot as usize] = true;
        self.list.move_to_mru(slot);
    }
    fn read_hit(&mut self, slot: u32) {
        if self.list.contains(slot) {
            self.list.move_to_mru(slot);
        }
    }
    fn insert_clean(&mut self, slot: u32, _lpn: u64) {
        self.dirty[slot as usize] = false;
        self.list.move_to_mru(slot);
    }
    fn remove(&mut self, slot: u32) {
        self.list.unlink(slot);
    }
    fn clean_victim(&mut self) -> Option<u32> {
        let s = self.list.iter().take(self.window).find(|&s| !self.dirty[s as usize])?;
        self.list.unlink(s);
        Some(s)
    }
    fn evict(&mut self, need: usize, per_page: usize, out: &mut Vec<Victim>) {
        let mut freed = 0;
        let mut dirty = 0;
        while freed < need {
            if let Some(s) = self.clean_victim() {
                out.push(Victim { slot: s, dirty: false });
            } else if let Some(s) = self.list.lru() {
                // No clean unit in the window: the LRU end itself is dirty.
                self.list.unlink(s);
                out.push(Victim {
                    slot: s,
                    dirty: self.dirty[s as usize],
                });
                dirty += usize::from(self.dirty[s as usize]);
            } else {
                break;
            }
            freed += 1;
        }
        while !dirty.is_multiple_of(per_page) {
            let Some(s) = self.take_lru_dirty() else { break };
            out.push(Victim { slot: s, dirty: true });
            dirty += 1;
        }
    }
    fn members(&self) -> Result<Vec<(u32, bool)>, String> {
        Ok(self
            .list
            .check("cflru")?
            .into_iter()
            .map(|s| (s, self.dirty[s as usize]))
            .collect())
    }
}

/// A logical block's buffered units (BPLRU).
#[derive(Clone, Debug, Default)]
struct BlockEntry {
    block: u64,
    slots: Vec<u32>,
    /// Units written in order from the block's first, none rewritten, while `sequential`.
    seq: u64,
    sequential: bool,
}

/// Block-Padding LRU (without the padding: see the module documentation).
pub struct BpLru {
    units_per_block: u64,
    /// Logical unit of each slot in the lists.
    slot_lpn: Vec<u64>,
    entries: Vec<BlockEntry>,
    free_entries: Vec<u32>,
    by_block: HashMap<u64, u32>,
    /// Recency of the block entries.
    list: Links,
}

impl BpLru {
    pub fn new(slots: usize, units_per_block: u64) -> BpLru {
        BpLru {
            units_per_block: units_per_block.max(1),
            slot_lpn: vec![0; slots],
            entries: Vec::new(),
            free_entries: Vec::new(),
            by_block: HashMap::new(),
            list: Links::new(0),
        }
    }

    fn entry_of(&mut self, block: u64) -> u32 {
        if let Some(&e) = self.by_block.get(&block) {
            return e;
        }
        let e = match self.free_entries.pop() {
            Some(e) => e,
            None => {
                self.entries.push(BlockEntry::default());
                self.list.grow(self.entries.len());
                (self.entries.len() - 1) as u32
            }
        };
        self.entries[e as usize] = BlockEntry {
            block,
            slots: Vec::new(),
            seq: 0,
            sequential: true,
        };
        self.by_block.insert(block, e);
        e
    }

    fn drop_entry(&mut self, e: u32) {
        self.list.unlink(e);
        let b = self.entries[e as usize].block;
        self.by_block.remove(&b);
        self.entries[e as usize].slots.clear();
        self.free_entries.push(e);
    }
}

impl Replacement for BpLru {
    fn name(&self) -> &'static str {
        "bplru"
    }
    fn written(&mut self, slot: u32, lpn: u64, hit: bool) {
        let upb = self.units_per_block;
        let e = self.entry_of(lpn / upb);
        let ent = &mut self.entries[e as usize];
        if !hit {
            ent.slots.push(slot);
            self.slot_lpn[slot as usize] = lpn;
        }
        if ent.sequential && !hit && lpn % upb == ent.seq {
            ent.seq += 1;
        } else {
            ent.sequential = false;
        }
        if ent.sequential && ent.seq == upb {
            // LRU compensation: a block written whole in order goes first.
            self.list.move_to_lru(e);
        } else {
            self.list.move_to_mru(e);
        }
    }
    fn remove(&mut self, slot: u32) {
        let b = self.slot_lpn[slot as usize] / self.units_per_block;
        let Some(&e) = self.by_block.get(&b) else { return };
        let ent = &mut self.entries[e as usize];
        if let Some(i) = ent.slots.iter().position(|&s| s == slot) {
            ent.slots.swap_remove(i);
        }
        if ent.slots.is_empty() {
            self.drop_entry(e);
        }
    }
    fn evict(&mut self, need: usize, _per_page: usize, out: &mut Vec<Victim>) {
        let mut freed = 0;
        while freed < need {
            let Some(e) = self.list.lru() else { break };
            let mut slots = std::mem::take(&mut self.entries[e as usize].slots);
            slots.sort_unstable_by_key(|&s| self.slot_lpn[s as usize]);
            freed += slots.len();
            out.extend(slots.iter().map(|&s| Victim { slot: s, dirty: true }));
            self.drop_entry(e);
        }
    }
    fn members(&self) -> Result<Vec<(u32, bool)>, String> {
        let order = self.list.check("bplru blocks")?;
        if order.len() != self.by_block.len() {
            return Err(format!(
                "bplru: {} blocks listed, {} indexed",
                order.len(),
                self.by_block.len()
            ));
        }
        let mut out = Vec::new();
        for e in order {
            let ent = &self.entries[e as usize];
            if self.by_block.get(&ent.block) != Some(&e) {
                return Err(format!("bplru: block {} not indexed at its entry", ent.block));
            }
            if ent.slots.is_empty() {
                return Err(format!("bplru: block {} listed without units", ent.block));
            }
            for &s in &ent.slots {
                if self.slot_lpn[s as usize] / self.units_per_block != ent.block {
                    return Err(format!(
                        "bplru: slot {s} (unit {}) listed under block {}",
                        self.slot_lpn[s as usize], ent.block
                    ));
                }
                out.push((s, true));
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn victims(p: &mut dyn Replacement, need: usize, per_page: usize) -> Vec<(u32, bool)> {
        let mut out = Vec::new();
        p.evict(need, per_page, &mut out);
        out.into_iter().map(|v| (v.slot, v.dirty)).collect()
    }

    #[test]
    fn lru_evicts_by_write_recency_and_fills_the_last_page() {
        let mut p = Lru::new(4);
        // Slots 0..3 hold units 10..13, written in that order; slot 0 is rewritten last.
        for s in 0..4 {
            p.written(s, 10 + s as u64, false);
        }
        p.written(0, 10, true);
        p.read_hit(1); // reads do not reorder a write buffer
        assert_eq!(victims(&mut p, 1, 1), [(1, true)]);
        // One unit needed, two per page: the next LRU unit tops the page up.
        assert_eq!(victims(&mut p, 1, 2), [(2, true), (3, true)]);
        assert_eq!(p.members().unwrap(), [(0, true)]);
        p.remove(0);
        assert_eq!(victims(&mut p, 1, 2), []);
        p.members().unwrap();
    }

    #[test]
    fn cflru_drops_the_clean_unit_in_its_window_before_older_dirty_ones() {
        // Eight slots, a window of two.
        let mut p = CfLru::new(8, 2);
        p.written(0, 100, false); // dirty, LRU end
        p.insert_clean(1, 101); // clean, second
        p.written(2, 102, false);
        p.insert_clean(3, 103); // clean but outside the window
        assert_eq!(victims(&mut p, 1, 1), [(1, false)], "the clean unit in the window");
        // Window now [0, 2]: both dirty: the LRU one is written (clean 3 is outside).
        assert_eq!(victims(&mut p, 1, 1), [(0, true)]);
        // A read hit moves 3 to the MRU end; a write to it makes it dirty.
        p.read_hit(2);
        assert_eq!(
            p.members().unwrap(),
            [(3, false), (2, true)],
            "recency: reads reorder CFLRU"
        );
        assert_eq!(p.clean_victim(), Some(3));
        assert_eq!(p.clean_victim(), None, "no clean unit left");
        p.insert_clean(4, 104);
        p.written(4, 104, true);
        assert_eq!(p.members().unwrap(), [(2, true), (4, true)]);
        // Two per page: a clean victim frees the slot needed, no dirty write starts.
        let mut q = CfLru::new(8, 2);
        q.insert_clean(0, 1);
        q.written(1, 2, false);
        q.written(2, 3, false);
        assert_eq!(victims(&mut q, 1, 2), [(0, false)]);
        // Then a dirty victim is topped up with the next dirty unit to fill its page.
        assert_eq!(victims(&mut q, 1, 2), [(1, true), (2, true)]);
    }

    #[test]
    fn bplru_evicts_whole_blocks_and_sends_sequentially_written_blocks_first() {
        // Blocks of 4 units.
        let mut p = BpLru::new(16, 4);
        p.written(0, 5, false); // block 1
        p.written(1, 0, false); // block 0
        p.written(2, 4, false); // block 1 again: MRU
        p.written(3, 1, false); // block 0 again: MRU
        p.written(4, 8, false); // block 2
                                // LRU block: 1, its units in logical order (unit 4 in slot 2, unit 5 in slot 0).
        assert_eq!(victims(&mut p, 1, 2), [(2, true), (0, true)]);
        // Block 3 written whole in order: compensation puts it at the LRU end.
        for (s, l) in [(5u32, 12u64), (6, 13), (7, 14), (8, 15)] {
            p.written(s, l, false);
        }
        assert_eq!(victims(&mut p, 1, 2), [(5, true), (6, true), (7, true), (8, true)]);
        // A rewrite breaks sequentiality: block 4 written in order, one unit rewritten.
        for (s, l) in [(9u32, 16u64), (10, 17), (11, 18)] {
            p.written(s, l, false);
        }
        p.written(10, 17, true);
        p.written(12, 19, false);
        assert_eq!(
            victims(&mut p, 1, 2),
            [(1, true), (3, true)],
            "block 0 is the LRU block; block 4 is not compensated"
        );
        // Trim of a unit leaves its block's others.
        p.remove(4);
        assert_eq!(victims(&mut p, 1, 2), [(9, true), (10, true), (11, true), (12, true)]);
        assert!(p.members().unwrap().is_empty());
    }
}
