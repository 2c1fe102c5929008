//! HotR (Wu, Zhang, Mao, Jiang, DATE 2019): hot read data replicated into a scratch space, so
//! that a read blocked by a program or erase on its chip is served from the copy.
//!
//! Following the seed's section III and Figure 4:
//! - **Hot data identification**: an R-LRU list per flash chip, of metadata: an entry holds
//!   the page's D-offset (here its logical unit: the FTL moves pages, the logical address
//!   stays), its R-offset (its slot in the scratch space, or none) and a Count of its reads,
//!   kept "to capture the access frequency pattern". A read of a page without an entry inserts
//!   one at the head with Count 1; a hit moves the entry to the head and counts. Each list
//!   holds at most `track_share` × (host units / chips) entries (the tracking parameter; 10 %
//!   of the pages by default); the entry falling off the tail is forgotten unless its page
//!   holds a copy (below).
//! - **The copy budget**: "not every popular page is migrated; the share that may be is set
//!   through the management interface" (section III.B), the seed's "10 % of the hot read
//!   pages". Each chip's copy set holds at most `hot_share` × its list's length copies
//!   (`hot_share` 0.1 by default), chosen by Count: a hit without a copy earns a place when
//!   the set has room or its Count is above the lowest Count in the set, whose copy it then
//!   replaces (of equal Counts, the least recently read goes: `copies_replaced`). An entry
//!   that falls off the list keeps its copy, and its Count, for as long as the copy keeps its
//!   place; a read of it puts it back at the head of the list.
//! - **Conflict detection**: a read conflicts when its chip is busy with, or holds, a program
//!   or an erase (the flash scheduler's own test).
//! - **Request distribution**: a conflicting read that hits an entry with a valid R-offset
//!   is served from the scratch space when the copy's unit can start it sooner than the home
//!   chip (its queue ends earlier; otherwise the read stays home: a busy spare chip never
//!   makes a read wait longer than the write it avoids). One that hits an entry without one
//!   is served from its chip, and once its data is in the controller the page is written to
//!   the scratch space (the on-demand migrator), without delaying the read. Its R-offset
//!   becomes valid when that program ends.
//! - **Copies are background work**: the seed migrates "without affecting performance". A
//!   copy starts only on a scratch unit with nothing queued or running; when every one is
//!   busy the copy is dropped (counted as `copies_dropped`), never queued, so copies cannot
//!   pile up ahead of the reads redirected to the scratch space. The page is copied again at
//!   a later hit. Reads that do not conflict are served from their chip; with
//!   `migrate = "hit"` (the default) their hits are copied the same way: section III.B has
//!   recent and frequently read pages "proactively migrated" as they are requested, Figure 4
//!   shows the conflicting path (`migrate = "conflict"` keeps to it alone). In the data chips'
//!   over-provisioning (`scratch = "op"`) a copy is one more program on a data unit, which a
//!   later host operation on that unit may wait for: the idle-unit rule does not make it
//!   free there, so a copy is made only when it is expected to save more than it costs
//!   (`op_copies = "payoff"`, the default; [`HotR::pays`] gives the rule; `copies_unpaid`
//!   counts the copies not made; `"idle"` copies as on spare chips).
//! - **Writes** always go to the flash chips; a write (or trim) of a page drops its entry and
//!   invalidates its copy, so a later read gets the new data.
//! - **Counters**: `inserts` (entries made), `migrations` (copies programmed),
//!   `copies_replaced` (copies displaced by a page of higher Count), `copies_kept` (entries
//!   that fell off a list and kept their copy), `copies_evicted` (copies lost to a scratch
//!   erase), `copies_invalidated` (by writes), `copies_dropped`, `copy_busy` and
//!   `copies_unpaid` (below).
//!
//! The scratch space is `spare_chips` dedicated chips, each on a channel of its own, as
//! scheduler units after the FTL's. Each spare unit's pages form a ring written in order;
//! before the ring enters a block that was written before, the block is erased and the copies
//! still in it are dropped (they are copies: nothing is lost). Copies go to an idle scratch
//! unit (of several, the one given fewer copies).

use super::{chip_of_plane, chips, ReadCounters, Scheme, Versions};
use crate::device_config::DeviceConfig;
use crate::ftl::NONE;
use crate::geometry::Geometry;
use crate::mechanisms::{Mechanisms, Token};
use crate::nand::CellType;
use crate::scheduler::Kind;
use crate::Result;
use std::collections::{BTreeSet, HashMap};

const NIL: u32 = u32::MAX;
/// Token of a scratch erase (copies report their slot).
const ERASE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct Entry {
    lpn: u64,
    /// Scratch slot of the copy (R-offset), or NIL.
    slot: u32,
    /// The copy's program has not ended yet.
    copying: bool,
    /// In its chip's R-LRU list (else kept only for its copy).
    listed: bool,
    count: u32,
    /// When it was last read (a running count of reads): the tie-break between equal Counts.
    last: u64,
    /// The (Count, last) it is filed under in its chip's copy set: as they were when last
    /// filed, at most the current ones (a hit does not refile it; see [`HotR::lowest`]).
    filed: (u32, u64),
    chip: u32,
    /// Bumped whenever the entry is dropped, so that late news about its old page is ignored.
    gen: u32,
    /// Version of the data the copy holds (when versions are tracked).
    version: u32,
    /// Time its current copy has saved the reads it served (ns).
    saved: u64,
    prev: u32,
    next: u32,
}

impl Entry {
    /// Its key in its chip's copy set: lowest Count first, then least recently read.
    fn rank(&self, e: u32) -> (u32, u64, u32) {
        (self.filed.0, self.filed.1, e)
    }
}

/// One spare unit's ring of scratch pages.
#[derive(Clone, Debug)]
struct Ring {
    unit: usize,
    /// The data chip the unit belongs to (`usize::MAX` for a spare chip): a page is never
    /// copied to its own chip.
    chip: usize,
    /// Next page of the ring to write.
    next: u32,
    /// Every block has been written once (from now on a block is erased before reuse).
    wrapped: bool,
    /// Copies written so far (ties between idle spare units go to the one with fewer).
    given: u64,
}

pub struct HotR {
    chips: usize,
    spare_chips: usize,
    /// Blocks each plane lends to the scratch space (over-provisioning), their units, and
    /// the host units.
    reserved: usize,
    scratch_units: u64,
    host_units: u64,
    /// Entries per list, copies per chip.
    cap: u32,
    budget: u32,
    migrate_on_hit: bool,
    map: HashMap<u64, u32>,
    entries: Vec<Entry>,
    free: Vec<u32>,
    /// Per chip: (head = most recent, tail, length).
    lists: Vec<(u32, u32, u32)>,
    /// Per chip, the entries holding a copy (or being copied), by [`Entry::rank`] (as filed).
    copies: Vec<BTreeSet<(u32, u64, u32)>>,
    /// Reads so far (the clock of [`Entry::last`]).
    clock: u64,
    rings: Vec<Ring>,
    /// Pages per spare unit, pages per block.
    unit_pages: u32,
    ppb: u32,
    /// SLC-mode scratch: its (read, program) time for every page; None: the chip's own.
    slc: Option<(u64, u64)>,
    /// Per scratch slot, the entry whose copy it holds, or NIL.
    owner: Vec<u32>,
    erase_ns: u64,
    page_bytes: u64,
    /// Reads served from their chip whose page is to be copied when they end:
    /// (request, entry, its generation, version read).
    waiting: Vec<(u32, u32, u32, u32)>,
    versions: Versions,
    read: ReadCounters,
    inserts: u64,
    migrations: u64,
    scratch_reads: u64,
    copies_invalidated: u64,
    copies_evicted: u64,
    copies_replaced: u64,
    copies_kept: u64,
    scratch_erases: u64,
    /// Copies not made because every scratch unit was busy.
    copies_dropped: u64,
    /// Conflicting reads with a copy served home because the copy's unit was no sooner.
    copy_busy: u64,
    /// Scratch in over-provisioning with `op_copies = "payoff"`: copies must pay (below).
    payoff: bool,
    /// Channel time of a copy's page.
    copy_xfer_ns: u64,
    /// Data units (host operations spread over them).
    data_units: u64,
    /// Host units written so far, and the time of the first host operation.
    written: u64,
    first_ns: Option<u64>,
    /// Copies not made because they were not expected to pay for themselves.
    copies_unpaid: u64,
    /// Copies dropped so far (by a write, a replacement or their slot's reuse), and the time
    /// they saved the reads they served (ns): the measured yield of a copy in [`HotR::pays`].
    ended_copies: u64,
    ended_saved: u64,
}

/// Entries per chip list.
fn list_cap(cfg: &DeviceConfig, geo: &Geometry) -> u32 {
    ((cfg.redundancy.track_share() * geo.host_units as f64 / chips(geo) as f64).ceil() as u64)
        .clamp(1, u32::MAX as u64 - 1) as u32
}

/// Copies per chip: `hot_share` of a list's entries, at least one.
fn copy_budget(cfg: &DeviceConfig, geo: &Geometry) -> u32 {
    ((cfg.redundancy.hot_share() * list_cap(cfg, geo) as f64).ceil() as u64).clamp(1, u32::MAX as u64 - 1) as u32
}

/// Planes of a scheduler unit.
fn unit_planes(cfg: &DeviceConfig, geo: &Geometry) -> usize {
    if cfg.nand.plane_parallel {
        1
    } else {
        geo.planes_per_die
    }
}

/// Blocks each plane lends to a scratch space in over-provisioning (0 with spare chips):
/// `scratch_share` of the host capacity, spread evenly.
pub fn reserved_per_plane(cfg: &DeviceConfig, geo: &Geometry) -> usize {
    if !cfg.redundancy.scratch_in_op() {
        return 0;
    }
    let units = cfg.redundancy.scratch_share() * geo.host_units as f64;
    (units / (geo.planes * geo.units_per_block) as f64).ceil() as usize
}

/// Pages per block of the scratch space: a block programmed in SLC mode holds one bit per
/// cell.
fn scratch_ppb(cfg: &DeviceConfig, geo: &Geometry) -> usize {
    if cfg.redundancy.scratch_slc() {
        (geo.pages_per_block / cfg.nand.cell.bits()).max(1)
    } else {
        geo.pages_per_block
    }
}

/// Rings of the scratch space (spare units, or every data unit with over-provisioning) and
/// the pages of each.
fn rings(cfg: &DeviceConfig, geo: &Geometry) -> (usize, u64) {
    let per_unit = unit_planes(cfg, geo);
    if cfg.redundancy.scratch_in_op() {
        let units = geo.planes / per_unit;
        (
            units,
            (reserved_per_plane(cfg, geo) * per_unit * geo.pages_per_block) as u64,
        )
    } else {
        let (units, _) = super::extra_units(cfg);
        (units, (per_unit * geo.blocks_per_plane * scratch_ppb(cfg, geo)) as u64)
    }
}

pub fn memory_estimate(cfg: &DeviceConfig, geo: &Geometry) -> u64 {
    let (units, pages) = rings(cfg, geo);
    let chips = chips(geo) as u64;
    // Entries: the lists' and, beyond them, those kept for their copy.
    let entries = (list_cap(cfg, geo) as u64 + copy_budget(cfg, geo) as u64) * chips;
    // An entry, and its share of the map (a hash table at most 7/8 full, grown by doubling:
    // up to 2.3 slots of 12 bytes per entry, plus control bytes); a copy's key in its set
    // (16 bytes in B-tree nodes at least half full).
    entries * (std::mem::size_of::<Entry>() as u64 + 32)
        + copy_budget(cfg, geo) as u64 * chips * 40
        + units as u64 * pages * 4
}

pub fn make(cfg: &DeviceConfig, geo: &Geometry, units: usize) -> Box<dyn Scheme> {
    let (_, spare_chips) = super::extra_units(cfg);
    let (count, up) = rings(cfg, geo);
    assert!(count as u64 * up < NIL as u64, "scratch slots fit 32 bits");
    let n = chips(geo);
    let op = cfg.redundancy.scratch_in_op();
    // Over-provisioning: a ring on every data unit (its chip's copies go elsewhere); spare
    // chips: a ring on each spare unit, after the data units.
    // A data unit k is plane k (planes in parallel) or die k, whose first plane is k.
    let ring = |k: usize| {
        if op {
            Ring {
                unit: k,
                chip: chip_of_plane(geo, k),
                next: 0,
                wrapped: false,
                given: 0,
            }
        } else {
            Ring {
                unit: units + k,
                chip: usize::MAX,
                next: 0,
                wrapped: false,
                given: 0,
            }
        }
    };
    // SLC mode: the cell table's SLC read and program (as the pSLC mode does); the erase is
    // the block's own.
    let slc = cfg.redundancy.scratch_slc().then(|| {
        let (r, p, _) = CellType::Slc.typical();
        (r.0, p.0)
    });
    Box::new(HotR {
        chips: n,
        spare_chips,
        cap: list_cap(cfg, geo),
        budget: copy_budget(cfg, geo),
        migrate_on_hit: cfg.redundancy.migrate_on_hit(),
        map: HashMap::new(),
        entries: Vec::new(),
        free: Vec::new(),
        lists: vec![(NIL, NIL, 0); n],
        copies: vec![BTreeSet::new(); n],
        clock: 0,
        rings: (0..count).map(ring).collect(),
        reserved: reserved_per_plane(cfg, geo),
        scratch_units: if op {
            (reserved_per_plane(cfg, geo) * geo.planes * geo.units_per_block) as u64
        } else {
            0
        },
        host_units: geo.host_units,
        unit_pages: up as u32,
        ppb: scratch_ppb(cfg, geo) as u32,
        slc,
        owner: vec![NIL; count * up as usize],
        erase_ns: cfg.erase_ns(),
        page_bytes: geo.page_size,
        waiting: Vec::new(),
        versions: Versions::default(),
        read: ReadCounters::default(),
        inserts: 0,
        migrations: 0,
        scratch_reads: 0,
        copies_invalidated: 0,
        copies_evicted: 0,
        copies_replaced: 0,
        copies_kept: 0,
        scratch_erases: 0,
        copies_dropped: 0,
        copy_busy: 0,
        payoff: cfg.redundancy.op_copies_pay(),
        copy_xfer_ns: crate::host::xfer_ns(geo.page_size, cfg.nand.channel_rate.0),
        data_units: units as u64,
        written: 0,
        first_ns: None,
        copies_unpaid: 0,
        ended_copies: 0,
        ended_saved: 0,
    })
}

impl HotR {
    fn unlink(&mut self, e: u32) {
        let Entry { prev, next, chip, .. } = self.entries[e as usize];
        let l = &mut self.lists[chip as usize];
        if prev == NIL {
            l.0 = next;
        } else {
            self.entries[prev as usize].next = next;
        }
        let l = &mut self.lists[chip as usize];
        if next == NIL {
            l.1 = prev;
        } else {
            self.entries[next as usize].prev = prev;
        }
        self.lists[chip as usize].2 -= 1;
        self.entries[e as usize].listed = false;
    }

    fn push_front(&mut self, e: u32) {
        let chip = self.entries[e as usize].chip as usize;
        let head = self.lists[chip].0;
        let ent = &mut self.entries[e as usize];
        ent.prev = NIL;
        ent.next = head;
        ent.listed = true;
        if head == NIL {
            self.lists[chip].1 = e;
        } else {
            self.entries[head as usize].prev = e;
        }
        let l = &mut self.lists[chip];
        l.0 = e;
        l.2 += 1;
    }

    /// Forget entry `e` if it is neither listed nor holds a copy.
    fn release(&mut self, e: u32) {
        let ent = &mut self.entries[e as usize];
        if ent.listed || ent.slot != NIL {
            return;
        }
        ent.copying = false;
        ent.gen = ent.gen.wrapping_add(1);
        self.map.remove(&ent.lpn);
        self.free.push(e);
    }

    /// Drop entry `e`'s copy (its slot keeps the old data, owned by nobody).
    fn drop_copy(&mut self, e: u32) {
        let ent = self.entries[e as usize];
        if ent.slot == NIL {
            return;
        }
        self.copies[ent.chip as usize].remove(&ent.rank(e));
        self.owner[ent.slot as usize] = NIL;
        self.ended_copies += 1;
        self.ended_saved += ent.saved;
        let ent = &mut self.entries[e as usize];
        ent.slot = NIL;
        ent.copying = false;
    }

    /// Drop entry `e` and its copy.
    fn drop_entry(&mut self, e: u32) {
        self.drop_copy(e);
        if self.entries[e as usize].listed {
            self.unlink(e);
        }
        self.release(e);
    }

    /// Make room at the head of `chip`'s list: its tail falls off a full one, keeping its
    /// copy if it has one.
    fn make_room(&mut self, chip: usize) {
        if self.lists[chip].2 >= self.cap {
            let tail = self.lists[chip].1;
            self.unlink(tail);
            if self.entries[tail as usize].slot != NIL {
                self.copies_kept += 1;
            }
            self.release(tail);
        }
    }

    /// A new entry for `lpn` on `chip` at the head of its list.
    fn insert(&mut self, lpn: u64, chip: usize) {
        self.make_room(chip);
        let ent = Entry {
            lpn,
            slot: NIL,
            copying: false,
            listed: false,
            count: 1,
            last: self.clock,
            filed: (0, 0),
            chip: chip as u32,
            gen: 0,
            version: 0,
            saved: 0,
            prev: NIL,
            next: NIL,
        };
        let e = match self.free.pop() {
            Some(e) => {
                let gen = self.entries[e as usize].gen;
                self.entries[e as usize] = Entry { gen, ..ent };
                e
            }
            None => {
                self.entries.push(ent);
                (self.entries.len() - 1) as u32
            }
        };
        self.map.insert(lpn, e);
        self.push_front(e);
        self.inserts += 1;
    }

    /// A read of entry `e`: to the head of its list (back into it if it had fallen off),
    /// counted.
    fn touch(&mut self, e: u32) {
        let ent = self.entries[e as usize];
        if ent.listed {
            self.unlink(e);
        } else {
            self.make_room(ent.chip as usize);
        }
        self.push_front(e);
        // Its place in the copy set is refiled only when it matters (see `lowest`).
        let ent = &mut self.entries[e as usize];
        ent.count = ent.count.saturating_add(1);
        ent.last = self.clock;
    }

    /// The copy of `chip` with the lowest Count (of equal Counts the least recently read):
    /// entries are filed under their (Count, last) when copied and refiled here only. A filed
    /// key is at most the entry's current one, so once the first key is current it is the
    /// lowest of all.
    fn lowest(&mut self, chip: usize) -> Option<u32> {
        loop {
            let &(count, last, e) = self.copies[chip].first()?;
            let ent = &mut self.entries[e as usize];
            if (ent.count, ent.last) == (count, last) {
                return Some(e);
            }
            self.copies[chip].pop_first();
            ent.filed = (ent.count, ent.last);
            let rank = ent.rank(e);
            self.copies[chip].insert(rank);
        }
    }

    /// Whether entry `e` (without a copy) earns a place in its chip's copy set: the set has
    /// room, or its Count is above the set's lowest.
    fn earns(&mut self, e: u32) -> bool {
        let chip = self.entries[e as usize].chip as usize;
        if (self.copies[chip].len() as u32) < self.budget {
            return true;
        }
        let count = self.entries[e as usize].count;
        self.lowest(chip)
            .is_some_and(|low| self.entries[low as usize].count < count)
    }

    /// An idle scratch unit off `chip` (of several, the one given fewer copies), or `None`
    /// when every one has work queued or running at `now`.
    fn idle_ring(&self, dev: &dyn Mechanisms, chip: usize, now: u64) -> Option<usize> {
        let etas = dev.sched().etas();
        (0..self.rings.len())
            .filter(|&r| self.rings[r].chip != chip && etas[self.rings[r].unit] <= now)
            .min_by_key(|&r| self.rings[r].given)
    }

    /// The next scratch slot of ring `r`; erases the block it enters if that was written
    /// before, dropping the copies in it.
    fn next_slot(&mut self, dev: &mut dyn Mechanisms, r: usize) -> u32 {
        let now = dev.now();
        let page = self.rings[r].next;
        let base = r as u32 * self.unit_pages;
        if page.is_multiple_of(self.ppb) && self.rings[r].wrapped {
            for s in base + page..(base + page + self.ppb).min(base + self.unit_pages) {
                let e = self.owner[s as usize];
                if e != NIL {
                    self.copies_evicted += 1;
                    self.drop_copy(e);
                    self.release(e);
                }
            }
            self.scratch_erases += 1;
            let unit = self.rings[r].unit;
            dev.unit_op(unit, Kind::Erase, self.erase_ns, 0, now, Token::Scheme(ERASE));
        }
        let ring = &mut self.rings[r];
        ring.given += 1;
        ring.next += 1;
        if ring.next == self.unit_pages {
            ring.next = 0;
            ring.wrapped = true;
        }
        base + page
    }

    /// Host units `first..=last` were written or trimmed: their entries and copies go.
    fn forget(&mut self, first: u64, last: u64) {
        for lpn in first..=last {
            self.versions.bump(lpn);
            if let Some(&e) = self.map.get(&lpn) {
                if self.entries[e as usize].slot != NIL {
                    self.copies_invalidated += 1;
                }
                self.drop_entry(e);
            }
        }
    }

    /// Whether copying entry `e` to a data unit (scratch in over-provisioning) is expected to
    /// save more host time than it costs, at `now`. A copy holds its unit for the page's
    /// transfer and program, `c`; host operations reach a unit at the rate `l` measured so far
    /// (host units read and written over the time since the first, per data unit), and each
    /// one arriving during the copy waits what is left of it, `c / 2` on average: the copy
    /// costs `l c^2 / 2`. What a copy saves is measured: each read sent to a copy saves the
    /// time between the copy's unit starting it and its home unit starting it, and the copies
    /// that have ended (dropped by a write, replaced, or erased with their block) saved `S` in
    /// all over `m` copies. The page's own prior is what its Count promises: a redirected read
    /// saves what is left of a program, `p / 2` for a mean program `p`, once for each later
    /// read that conflicts at home, the share of reads seen so far to conflict, `q`, and the
    /// page taken to be read again as often as its Count `n` says; that counts as one more
    /// copy's saving, `s = (S + n q p / 2) / (m + 1)`. Before any copy ends it is the Count's
    /// promise alone; as copies end their measured yield takes over, so on a workload whose
    /// copied pages are seldom read again copying stops. The copy pays when `s >= l c^2 / 2`.
    fn pays(&self, dev: &dyn Mechanisms, e: u32, now: u64) -> bool {
        let Some(first) = self.first_ns.filter(|&f| now > f) else {
            return false;
        };
        let prog = dev.array_times().1;
        let p = prog.iter().sum::<u64>() as f64 / prog.len().max(1) as f64;
        let c = self.copy_xfer_ns as f64 + p;
        let ops = (self.read.reads + self.written) as f64;
        let l = ops / ((now - first) as f64 * self.data_units.max(1) as f64);
        let q = self.read.home_conflicts as f64 / self.read.reads.max(1) as f64;
        let n = self.entries[e as usize].count as f64;
        let saves = (self.ended_saved as f64 + n * q * p / 2.0) / (self.ended_copies as f64 + 1.0);
        2.0 * saves >= l * c * c
    }

    /// Spare unit of a slot, and its (read, program) time.
    fn slot_op(&self, dev: &dyn Mechanisms, slot: u32) -> (usize, u64, u64) {
        let r = (slot / self.unit_pages) as usize;
        if let Some((read, prog)) = self.slc {
            return (self.rings[r].unit, read, prog);
        }
        let ptype = ((slot % self.unit_pages) % self.ppb) as usize;
        let (read_ns, prog_ns) = dev.array_times();
        (
            self.rings[r].unit,
            read_ns[ptype % read_ns.len()],
            prog_ns[ptype % prog_ns.len()],
        )
    }
}

impl Scheme for HotR {
    fn name(&self) -> &'static str {
        "hotr"
    }

    fn read(&mut self, dev: &mut dyn Mechanisms, pid: u32, lpn: u64) -> Result<()> {
        self.first_ns.get_or_insert(dev.now());
        let Some(pun) = self.read.mapped(dev, lpn) else {
            return Ok(());
        };
        if dev.buffered(pun) {
            dev.counters_mut().buffer_read_units += 1;
            return Ok(());
        }
        self.clock += 1;
        let geo = dev.geo();
        let chip = chip_of_plane(geo, geo.plane_of_block(geo.block_of_unit(pun)));
        let conflict = dev.sched().conflicts(dev.unit_of_pun(pun));
        self.read.home_conflicts += conflict as u64;
        let Some(&e) = self.map.get(&lpn) else {
            self.insert(lpn, chip);
            dev.scheme_read(pid, pun);
            return Ok(());
        };
        self.touch(e);
        let ent = self.entries[e as usize];
        if conflict && ent.slot != NIL && !ent.copying {
            let now = dev.now();
            let (unit, tr, _) = self.slot_op(&*dev, ent.slot);
            let (there, home) = (
                dev.sched().read_start(unit, now),
                dev.sched().read_start(dev.unit_of_pun(pun), now),
            );
            if there < home {
                // Served from the scratch space.
                self.read.redirected += 1;
                self.entries[e as usize].saved += home - there;
                self.read.avoided += !dev.sched().conflicts(unit) as u64;
                if self.versions.stale(lpn, ent.version) {
                    self.read.stale_reads += 1;
                }
                self.scratch_reads += 1;
                dev.counters_mut().host_page_reads += 1;
                dev.add_part(pid);
                dev.unit_op(unit, Kind::Read, tr, self.page_bytes, now, Token::Request(pid));
                return Ok(());
            }
            // The copy's unit would start it no sooner: the read stays home.
            self.copy_busy += 1;
        }
        if (conflict || self.migrate_on_hit)
            && ent.slot == NIL
            && self.earns(e)
            && !self.waiting.iter().any(|w| w.1 == e && w.2 == ent.gen)
        {
            self.waiting.push((pid, e, ent.gen, self.versions.get(lpn)));
        }
        dev.scheme_read(pid, pun);
        Ok(())
    }

    fn write(&mut self, dev: &mut dyn Mechanisms, _pid: u32, first: u64, last: u64, _ready: u64) -> Result<bool> {
        self.first_ns.get_or_insert(dev.now());
        self.written += last + 1 - first;
        self.forget(first, last);
        Ok(false)
    }

    fn trim(&mut self, _dev: &mut dyn Mechanisms, first: u64, end: u64) {
        if first < end {
            self.forget(first, end - 1);
        }
    }

    fn read_done(&mut self, dev: &mut dyn Mechanisms, pid: u32, time: u64) -> Result<()> {
        let mut i = 0;
        while i < self.waiting.len() {
            let (p, e, gen, version) = self.waiting[i];
            if p != pid {
                i += 1;
                continue;
            }
            self.waiting.swap_remove(i);
            let ent = self.entries[e as usize];
            // Dropped, copied meanwhile, or outranked since the read was issued.
            if ent.gen != gen || ent.slot != NIL || !self.earns(e) {
                continue;
            }
            // In the data units' over-provisioning, only a copy expected to pay for itself.
            if self.payoff && !self.pays(&*dev, e, time) {
                self.copies_unpaid += 1;
                continue;
            }
            // The on-demand migrator: the page, in the controller now, goes to an idle
            // scratch unit, or nowhere.
            let Some(r) = self.idle_ring(dev, ent.chip as usize, time) else {
                self.copies_dropped += 1;
                continue;
            };
            let chip = ent.chip as usize;
            if self.copies[chip].len() as u32 >= self.budget {
                // The set's lowest Count gives its place up.
                let low = self.lowest(chip).expect("a full set has a lowest");
                self.drop_copy(low);
                self.release(low);
                self.copies_replaced += 1;
            }
            let slot = self.next_slot(dev, r);
            let ent = &mut self.entries[e as usize];
            ent.slot = slot;
            ent.copying = true;
            ent.version = version;
            ent.saved = 0;
            ent.filed = (ent.count, ent.last);
            let rank = ent.rank(e);
            self.copies[chip].insert(rank);
            self.owner[slot as usize] = e;
            self.migrations += 1;
            let (unit, _, tp) = self.slot_op(&*dev, slot);
            dev.unit_op(unit, Kind::Program, tp, self.page_bytes, time, Token::Scheme(slot));
        }
        Ok(())
    }

    fn op_done(&mut self, _dev: &mut dyn Mechanisms, token: u32, _time: u64) -> Result<()> {
        if token == ERASE {
            return Ok(());
        }
        let e = self.owner[token as usize];
        if e != NIL && self.entries[e as usize].slot == token {
            self.entries[e as usize].copying = false;
        }
        Ok(())
    }

    fn fill(&self, lpn: u64, out: &mut dyn FnMut(u64)) {
        out(lpn);
    }

    fn counters(&self) -> Vec<(&'static str, u64)> {
        self.read.with(&[
            ("inserts", self.inserts),
            ("migrations", self.migrations),
            ("scratch_reads", self.scratch_reads),
            ("copies_invalidated", self.copies_invalidated),
            ("copies_evicted", self.copies_evicted),
            ("copies_replaced", self.copies_replaced),
            ("copies_kept", self.copies_kept),
            ("copies_held", self.copies.iter().map(|s| s.len() as u64).sum()),
            ("scratch_erases", self.scratch_erases),
            ("copies_dropped", self.copies_dropped),
            ("copy_busy", self.copy_busy),
            ("copies_unpaid", self.copies_unpaid),
        ])
    }

    fn space_cost(&self) -> f64 {
        if self.reserved > 0 {
            1.0 + self.scratch_units as f64 / self.host_units as f64
        } else {
            (self.chips + self.spare_chips) as f64 / self.chips as f64
        }
    }

    fn reserve_per_plane(&self) -> usize {
        self.reserved
    }

    fn check(&self, dev: &dyn Mechanisms) -> std::result::Result<(), String> {
        let mut listed = 0usize;
        for (c, &(head, tail, len)) in self.lists.iter().enumerate() {
            if len > self.cap {
                return Err(format!("chip {c}'s R-LRU holds {len} entries, more than {}", self.cap));
            }
            let (mut e, mut prev, mut n) = (head, NIL, 0u32);
            while e != NIL {
                let ent = &self.entries[e as usize];
                if ent.prev != prev || ent.chip as usize != c || !ent.listed {
                    return Err(format!("chip {c}'s R-LRU is broken at entry {e}"));
                }
                prev = e;
                e = ent.next;
                n += 1;
            }
            if n != len || prev != tail {
                return Err(format!("chip {c}'s R-LRU counts {len} entries, holds {n}"));
            }
            listed += n as usize;
            let set = &self.copies[c];
            if set.len() as u32 > self.budget {
                return Err(format!(
                    "chip {c} holds {} copies, its budget is {}",
                    set.len(),
                    self.budget
                ));
            }
            for &(count, last, e) in set {
                let ent = &self.entries[e as usize];
                if ent.slot == NIL
                    || ent.chip as usize != c
                    || ent.filed != (count, last)
                    || ent.filed > (ent.count, ent.last)
                {
                    return Err(format!("chip {c}'s copy set is broken at entry {e}"));
                }
            }
        }
        let mut held = 0usize;
        for (&lpn, &e) in &self.map {
            let ent = &self.entries[e as usize];
            if ent.lpn != lpn {
                return Err(format!("unit {lpn} maps to entry {e} of unit {}", ent.lpn));
            }
            if !ent.listed && ent.slot == NIL {
                return Err(format!("entry {e} (unit {lpn}) is neither listed nor holds a copy"));
            }
            let pun = dev.ftl().lookup(lpn);
            if pun == NONE {
                return Err(format!("entry for unit {lpn} outlived its data"));
            }
            let geo = dev.geo();
            let have = chip_of_plane(geo, geo.plane_of_block(geo.block_of_unit(pun)));
            if have != ent.chip as usize {
                return Err(format!("unit {lpn} is on chip {have}, its entry on chip {}", ent.chip));
            }
            if ent.slot != NIL {
                held += 1;
                if self.owner[ent.slot as usize] != e {
                    return Err(format!(
                        "entry {e}'s copy slot {} belongs to {}",
                        ent.slot, self.owner[ent.slot as usize]
                    ));
                }
                if self.versions.stale(lpn, ent.version) {
                    return Err(format!("unit {lpn}'s copy is stale"));
                }
            }
        }
        let in_sets: usize = self.copies.iter().map(BTreeSet::len).sum();
        if held != in_sets {
            return Err(format!("{held} entries hold a copy, the copy sets count {in_sets}"));
        }
        let mapped_listed = self.map.values().filter(|&&e| self.entries[e as usize].listed).count();
        if listed != mapped_listed {
            return Err(format!("{mapped_listed} entries mapped as listed, {listed} listed"));
        }
        for (s, &e) in self.owner.iter().enumerate() {
            if e != NIL && self.entries[e as usize].slot != s as u32 {
                return Err(format!("slot {s} is owned by entry {e}, whose copy is elsewhere"));
            }
        }
        Ok(())
    }

    fn track_versions(&mut self, units: u64) {
        self.versions.track(units);
    }
}
