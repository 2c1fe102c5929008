//! Page-level FTL state: logical→physical map (L2P), its reverse (P2L), the valid bitmap,
//! per-block metadata, per-plane allocation frontiers and free pools, garbage collection and
//! wear leveling. This layer knows no time: it reports the flash operations GC causes as
//! [`GcOp`] records (page reads, page programs, the erase) that the device queues on its
//! flash scheduler.
//!
//! Garbage collection of a plane is a cursor over its victim block: each step copies the
//! valid units of the victim's next page holding any (one page read; a program whenever a
//! destination page fills) and the last step erases the victim. Background GC advances the
//! cursor a step at a time, so host work interleaves with it and host writes that invalidate
//! the victim's units shrink its work. Foreground GC (a plane short of `gc_threshold` free
//! blocks when a host block is needed) and wear leveling run whole collections at that moment,
//! as the analytic models assume; when their flash operations run is the device's business.
//!
//! Memory: 4 bytes per logical unit (L2P) + 4 bytes + 1 bit per physical unit (P2L, bitmap)
//! + about 30 bytes per block, i.e. under 9 bytes per physical unit at α ≥ 1.07.

pub mod after_request;
pub mod config;
pub mod gc;
pub mod superblock;
mod untrusted;

use crate::geometry::Geometry;
use crate::{Error, Result};
use gc::{VictimCtx, VictimPolicy};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// "No unit" in the maps.
pub const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[repr(u8)]
pub enum BlockState {
    Free,
    Open,
    Full,
    /// A GC victim whose collection is under way.
    Victim,
    Retired,
    /// Lent for good to a redundancy scheme (HotR's scratch space in over-provisioning).
    Reserved,
}

/// Static parameters of the FTL.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FtlParams {
    pub gc_policy: String,
    pub gc_d: u32,
    pub gc_threshold: u32,
    pub endurance: u32,
    pub static_wl_threshold: u32,
    /// GC survivors go to the host write frontier (true) or to a GC frontier of their own.
    pub gc_shared_frontier: bool,
    /// Array read / program time per page type, and erase time (ns), to price GC work.
    pub read_ns: Vec<u64>,
    pub program_ns: Vec<u64>,
    pub erase_ns: u64,
    pub seed: u64,
}

impl FtlParams {
    /// Greedy GC, a reserve of 2 blocks, SLC-like times (25 µs, 200 µs, 1.5 ms), no wear
    /// leveling, seed 1: the parameters of the tests' small FTLs.
    #[doc(hidden)]
    pub fn for_tests() -> FtlParams {
        FtlParams {
            gc_policy: "greedy".into(),
            gc_d: 2,
            gc_threshold: 2,
            endurance: 1000,
            static_wl_threshold: 0,
            gc_shared_frontier: false,
            read_ns: vec![25_000],
            program_ns: vec![200_000],
            erase_ns: 1_500_000,
            seed: 1,
        }
    }
}

/// What a garbage-collection (or wear-leveling) flash operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum GcOpKind {
    /// Read a victim page; `units` of it are valid and copied.
    Read,
    /// Read a victim page (`units` valid and copied) and program the destination page its
    /// data completes (`program_ns`): one GC step.
    Copy,
    /// Program a destination page.
    Program,
    Erase,
}

/// One flash operation caused by garbage collection or wear leveling, in the order they must
/// run on the plane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GcOp {
    pub plane: u32,
    pub kind: GcOpKind,
    /// Mapping units read (reads, copies) or written (programs).
    pub units: u32,
    /// Array time (by page type): tR of a read or copy, tPROG of a program, tBERS.
    pub array_ns: u64,
    /// tPROG of a copy's program.
    pub program_ns: u64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct FtlStats {
    pub host_units_written: u64,
    pub host_pages_programmed: u64,
    /// Unused slots of pages programmed partially filled (write-through sub-page writes).
    pub padded_units: u64,
    /// Collections started by foreground GC (a plane short of free blocks for a write).
    pub gc_runs_foreground: u64,
    /// Collections started by background GC (an idle plane below its background threshold).
    pub gc_runs_background: u64,
    /// Collections finished (their victim erased); the others are under way.
    pub gc_runs_finished: u64,
    pub gc_units_copied: u64,
    pub gc_pages_read: u64,
    pub gc_pages_programmed: u64,
    pub wl_migrations: u64,
    pub wl_units_copied: u64,
    pub erases: u64,
    pub retired_blocks: u64,
    pub trimmed_units: u64,
    /// Histogram of valid units in GC victims, index = valid count.
    pub victim_valid_hist: Vec<u64>,
}

impl FtlStats {
    /// Counts since `e` (an earlier snapshot of the same FTL).
    pub fn since(&self, e: &FtlStats) -> FtlStats {
        FtlStats {
            host_units_written: self.host_units_written - e.host_units_written,
            host_pages_programmed: self.host_pages_programmed - e.host_pages_programmed,
            padded_units: self.padded_units - e.padded_units,
            gc_runs_foreground: self.gc_runs_foreground - e.gc_runs_foreground,
            gc_runs_background: self.gc_runs_background - e.gc_runs_background,
            gc_runs_finished: self.gc_runs_finished - e.gc_runs_finished,
            gc_units_copied: self.gc_units_copied - e.gc_units_copied,
            gc_pages_read: self.gc_pages_read - e.gc_pages_read,
            gc_pages_programmed: self.gc_pages_programmed - e.gc_pages_programmed,
            wl_migrations: self.wl_migrations - e.wl_migrations,
            wl_units_copied: self.wl_units_copied - e.wl_units_copied,
            erases: self.erases - e.erases,
            retired_blocks: self.retired_blocks - e.retired_blocks,
            trimmed_units: self.trimmed_units - e.trimmed_units,
            victim_valid_hist: self
                .victim_valid_hist
                .iter()
                .zip(e.victim_valid_hist.iter().chain(std::iter::repeat(&0)))
                .map(|(a, b)| a - b)
                .collect(),
        }
    }

    /// Collections started (foreground + background); wear-leveling migrations are apart.
    pub fn gc_runs(&self) -> u64 {
        self.gc_runs_foreground + self.gc_runs_background
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Frontier {
    block: u32,
    /// Next free unit offset within the block.
    next: u32,
}

const NO_FRONTIER: Frontier = Frontier { block: NONE, next: 0 };

/// Which block a collection takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pick {
    /// The victim policy's choice.
    Policy,
    /// A wear-leveling migration of this block (not counted as GC).
    Wl(u32),
    /// This block, chosen by superblock GC.
    Gc(u32),
}

/// A collection under way in a plane.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct Cursor {
    victim: u32,
    /// Next unit offset in the victim to look at.
    next: u32,
    /// Wear-leveling migration (not counted as a GC run).
    forced: bool,
}

#[derive(Clone, Serialize, Deserialize)]
struct PlaneState {
    free: BinaryHeap<Reverse<(u32, u32)>>,
    gc: Frontier,
    cursor: Option<Cursor>,
}

/// A page that became complete and must be programmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageDone {
    /// First physical unit of the page.
    pub first_unit: u32,
}

/// The whole state; `clone` copies it (maps, blocks, policy index), e.g. to run several
/// workloads from one preconditioned state. Serialised, it is all but the maps, which a
/// snapshot file (`crate::snapshot`) writes as raw arrays beside it ([`Ftl::maps`]).
#[derive(Clone, Serialize, Deserialize)]
pub struct Ftl {
    pub geo: Geometry,
    /// Host write frontiers, `streams` per plane (plane-major): a host write of stream `s`
    /// goes to frontier `s` of its plane, so streams never share a block.
    hosts: Vec<Frontier>,
    streams: usize,
    #[serde(skip)]
    l2p: Maps<u32>,
    #[serde(skip)]
    p2l: Maps<u32>,
    #[serde(skip)]
    bits: Maps<u64>,
    valid: Vec<u32>,
    /// Valid units per plane, and blocks per plane neither retired nor lent: what
    /// [`Ftl::takes_host`] weighs.
    plane_valid: Vec<u64>,
    plane_blocks: Vec<u32>,
    erase: Vec<u32>,
    state: Vec<BlockState>,
    stamp: Vec<u64>,
    planes: Vec<PlaneState>,
    #[serde(with = "gc::boxed")]
    policy: Box<dyn VictimPolicy>,
    rng: Xoshiro256PlusPlus,
    params: FtlParams,
    clock: u64,
    max_erase: u32,
    erases_since_wl: u64,
    wl_interval: u64,
    pub stats: FtlStats,
    /// GC flash operations not yet taken by the device layer (recorded when `record_ops`).
    pub gc_ops: Vec<GcOp>,
    /// Record GC operations (off while preconditioning, which has no timing).
    pub record_ops: bool,
    /// Units GC and wear leveling moved since a design last took them (recorded when
    /// `record_moves` and `record_ops`): a design that keeps copies of flash data (a read
    /// cache) follows its units with them.
    pub moves: Vec<Move>,
    pub record_moves: bool,
    /// Superblocks (placement policies other than per-plane frontiers).
    sb: Option<Box<superblock::Superblocks>>,
}

/// A valid unit GC or wear leveling copied: logical unit `lpn` moved from physical unit
/// `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    pub lpn: u32,
    pub from: u32,
    pub to: u32,
}

/// `x % d` for a unit count within a block and `d` a page's units: a mask where `d` is a power
/// of two, as it almost always is, which spares the fill a division per page.
#[inline]
fn page_rem(x: u32, d: u32) -> u32 {
    if d.is_power_of_two() {
        x & (d - 1)
    } else {
        x % d
    }
}

/// Maps at least this large (bytes) are first written by all the cores at once: the first
/// touch of fresh memory costs a page fault per page (the kernel zeroes it, and a virtual
/// machine's host may back it first), which the cores take in parallel. Writing constants
/// (or copying) in parallel gives the same bytes whatever the thread count.
const PARALLEL_TOUCH: usize = 32 << 20;

/// A vector of `n` copies of `v`, or an error (not an abort) when memory runs out.
fn filled<T: Copy + Send + Sync>(n: usize, v: T) -> Result<Vec<T>> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| {
        Error::Invalid(format!(
            "out of memory allocating {} MiB of FTL tables; expected a smaller device or a larger mapping_unit",
            (n as u64).saturating_mul(std::mem::size_of::<T>() as u64) >> 20
        ))
    })?;
    huge_pages(&out);
    if n * std::mem::size_of::<T>() >= PARALLEL_TOUCH {
        use rayon::prelude::*;
        out.par_extend(rayon::iter::repeat_n(v, n));
    } else {
        out.resize(n, v);
    }
    Ok(out)
}

/// One of the FTL's large maps: a vector whose buffer asks for huge pages ([`huge_pages`]),
/// copies included.
#[derive(Default)]
struct Maps<T>(Vec<T>);

impl<T: Copy + Send + Sync> Clone for Maps<T> {
    fn clone(&self) -> Self {
        let mut v = Vec::with_capacity(self.0.len());
        huge_pages(&v);
        if std::mem::size_of_val(&self.0[..]) >= PARALLEL_TOUCH {
            use rayon::prelude::*;
            v.par_extend(self.0.par_iter().copied());
        } else {
            v.extend_from_slice(&self.0);
        }
        Maps(v)
    }
}

impl<T> std::ops::Deref for Maps<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Maps<T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.0
    }
}

/// Ask the kernel to back `v`'s buffer with huge pages (2 MiB on x86-64) where it offers them
/// on request (transparent huge pages in `madvise` or `always` mode), before the buffer is
/// first touched: the maps of a large device are read at random, and with 4 KiB pages most
/// of those reads also miss the TLB. A hint only: nothing changes where it is refused.
fn huge_pages<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = v.as_ptr() as usize;
        let end = start + v.capacity() * std::mem::size_of::<T>();
        let (from, to) = (start.next_multiple_of(HUGE), end / HUGE * HUGE);
        if to > from {
            // SAFETY: the range lies inside the vector's own allocation, and the advice
            // changes how pages are backed, never their contents.
            let _ = unsafe {
                rustix::mm::madvise(
                    from as *mut std::ffi::c_void,
                    to - from,
                    rustix::mm::Advice::LinuxHugepage,
                )
            };
        }
    }
}

/// Bytes the victim policies keep per block at most (fifo: a queue entry and a stamp).
const POLICY_BYTES_PER_BLOCK: u64 = 24;

impl Ftl {
    /// Memory an FTL of this geometry allocates, in bytes: the maps (4 bytes per logical and
    /// per physical unit, a valid bit per physical unit), per-block arrays and free lists, the
    /// victim policy's per-block and per-plane structures. Checked against the allocator in
    /// tests/memory.rs.
    pub fn memory_estimate(geo: &Geometry) -> u64 {
        let (l, u, b, p) = (
            geo.logical_units,
            geo.physical_units,
            geo.blocks as u64,
            geo.planes as u64,
        );
        let per_block = 4 + 4 + std::mem::size_of::<BlockState>() as u64 + 8 + 8 + POLICY_BYTES_PER_BLOCK;
        let per_plane = (std::mem::size_of::<PlaneState>() + std::mem::size_of::<Frontier>()) as u64
            + 4 * (geo.units_per_block as u64 + 1)
            + 16
            + 12;
        4 * l + 4 * u + 8 * u.div_ceil(64) + per_block * b + per_plane * p
    }

    /// The time of a block erase (ns).
    pub fn erase_ns(&self) -> u64 {
        self.params.erase_ns
    }

    pub fn new(geo: Geometry, params: FtlParams) -> Result<Ftl> {
        Self::with_streams(geo, params, 1)
    }

    /// An FTL with `streams` host write frontiers per plane (at least 1): host writes of
    /// stream `s` ([`Ftl::append_stream`]) fill blocks of their own.
    pub fn with_streams(geo: Geometry, params: FtlParams, streams: usize) -> Result<Ftl> {
        let streams = streams.max(1);
        let upb = geo.units_per_block as u32;
        let policy = gc::make_policy(&params.gc_policy, geo.planes, geo.blocks, upb, params.gc_d)
            .ok_or_else(|| Error::Invalid(format!("unknown GC policy '{}'", params.gc_policy)))?;
        let planes = (0..geo.planes)
            .map(|p| {
                let base = (p * geo.blocks_per_plane) as u32;
                PlaneState {
                    free: (0..geo.blocks_per_plane as u32)
                        .map(|b| Reverse((0, base + b)))
                        .collect(),
                    gc: NO_FRONTIER,
                    cursor: None,
                }
            })
            .collect();
        let wl_interval = (geo.blocks as u64 / 4).clamp(64, 1 << 16);
        Ok(Ftl {
            hosts: vec![NO_FRONTIER; geo.planes * streams],
            streams,
            l2p: Maps(filled(geo.logical_units as usize, NONE)?),
            p2l: Maps(filled(geo.physical_units as usize, NONE)?),
            bits: Maps(filled((geo.physical_units as usize).div_ceil(64), 0)?),
            valid: vec![0; geo.blocks],
            plane_valid: vec![0; geo.planes],
            plane_blocks: vec![geo.blocks_per_plane as u32; geo.planes],
            erase: vec![0; geo.blocks],
            state: vec![BlockState::Free; geo.blocks],
            stamp: vec![0; geo.blocks],
            planes,
            policy,
            rng: Xoshiro256PlusPlus::seed_from_u64(crate::units::mix_seed(params.seed, 0x6c)),
            stats: FtlStats {
                victim_valid_hist: vec![0; geo.units_per_block + 1],
                ..Default::default()
            },
            params,
            clock: 0,
            max_erase: 0,
            erases_since_wl: 0,
            wl_interval,
            geo,
            gc_ops: Vec::new(),
            record_ops: true,
            moves: Vec::new(),
            record_moves: false,
            sb: None,
        })
    }

    /// The maps (L2P, P2L, valid bitmap) as the machine holds them: what a snapshot file
    /// writes beside the rest of the state, which serialises without them.
    pub fn map_bytes(&self) -> [&[u8]; 3] {
        [
            bytemuck::cast_slice(&self.l2p),
            bytemuck::cast_slice(&self.p2l),
            bytemuck::cast_slice(&self.bits),
        ]
    }

    /// Allocate the maps of a deserialised state for its geometry and fill each, in
    /// [`Ftl::map_bytes`]' order, with `read` (which fills the whole slice or fails).
    pub fn load_maps(&mut self, read: &mut dyn FnMut(&mut [u8]) -> Result<()>) -> Result<()> {
        let units = self.geo.physical_units as usize;
        self.l2p = Maps(filled(self.geo.logical_units as usize, NONE)?);
        self.p2l = Maps(filled(units, NONE)?);
        self.bits = Maps(filled(units.div_ceil(64), 0)?);
        read(bytemuck::cast_slice_mut(&mut self.l2p))?;
        read(bytemuck::cast_slice_mut(&mut self.p2l))?;
        read(bytemuck::cast_slice_mut(&mut self.bits))
    }

    pub fn policy_name(&self) -> &'static str {
        self.policy.name()
    }

    /// Physical unit of a logical unit, or [`NONE`].
    #[inline]
    pub fn lookup(&self, lpn: u64) -> u32 {
        self.l2p[lpn as usize]
    }

    /// Hint the memory system that `lpn`'s map entry will be needed soon.
    #[inline]
    pub fn prefetch(&self, lpn: u64) {
        #[cfg(target_arch = "x86_64")]
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            if let Some(p) = self.l2p.get(lpn as usize) {
                _mm_prefetch(p as *const u32 as *const i8, _MM_HINT_T0);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = lpn;
    }

    /// Second prefetch stage: once `lpn`'s map entry is in cache, hint what overwriting it
    /// will touch at its old location (reverse map, valid bit, block counter and state).
    #[inline]
    pub fn prefetch_old(&self, lpn: u64) {
        #[cfg(target_arch = "x86_64")]
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let pun = match self.l2p.get(lpn as usize) {
                Some(&p) if p != NONE => p,
                _ => return,
            };
            let b = pun as usize / self.geo.units_per_block;
            _mm_prefetch(self.p2l.as_ptr().add(pun as usize) as *const i8, _MM_HINT_T0);
            _mm_prefetch(self.bits.as_ptr().add((pun >> 6) as usize) as *const i8, _MM_HINT_T0);
            _mm_prefetch(self.valid.as_ptr().add(b) as *const i8, _MM_HINT_T0);
            _mm_prefetch(self.state.as_ptr().add(b) as *const i8, _MM_HINT_T0);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = lpn;
    }

    pub fn free_blocks(&self, plane: usize) -> usize {
        self.planes[plane].free.len()
    }
    pub fn total_free_blocks(&self) -> usize {
        self.planes.iter().map(|p| p.free.len()).sum()
    }

    /// Host write frontiers per plane (the `streams` of [`Ftl::with_streams`]).
    pub fn streams(&self) -> usize {
        self.streams
    }

    /// Change the number of host write frontiers per plane (at least 1). Frontiers of the
    /// streams kept stay open; those of streams dropped are closed (their blocks become GC
    /// candidates).
    pub fn set_streams(&mut self, streams: usize) {
        let streams = streams.max(1);
        let old = std::mem::replace(&mut self.hosts, vec![NO_FRONTIER; self.geo.planes * streams]);
        let old_n = self.streams;
        self.streams = streams;
        for plane in 0..self.geo.planes {
            for s in 0..old_n {
                let f = old[plane * old_n + s];
                if s < streams {
                    self.hosts[plane * streams + s] = f;
                } else if f.block != NONE {
                    self.close_block(plane, f.block);
                }
            }
        }
    }

    /// Index of a plane's host frontier of a stream in `hosts`.
    #[inline]
    fn host_idx(&self, plane: usize, stream: usize) -> usize {
        plane * self.streams + stream
    }

    /// True when `pun` lies in the partially filled page at a host frontier of its plane
    /// (data still in the controller's buffer).
    #[inline(always)]
    pub fn in_open_page(&self, pun: u32) -> bool {
        let upb = self.geo.units_per_block as u32;
        let upp = self.geo.units_per_page as u32;
        let block = pun / upb;
        let first = self.host_idx(self.geo.plane_of_block(block as usize), 0);
        self.hosts[first..first + self.streams]
            .iter()
            .any(|f| f.block == block && !f.next.is_multiple_of(upp) && (pun % upb) / upp == f.next / upp)
    }

    /// Units filled in the current page of a plane's host frontier (stream 0).
    pub fn open_page_fill(&self, plane: usize) -> usize {
        let f = self.hosts[self.host_idx(plane, 0)];
        if f.block == NONE {
            0
        } else {
            (f.next as usize) % self.geo.units_per_page
        }
    }

    #[inline]
    fn bit(&self, pun: u32) -> bool {
        self.bits[(pun >> 6) as usize] >> (pun & 63) & 1 == 1
    }

    /// Drop the mapping of a physical unit (it no longer holds live data).
    #[inline]
    fn invalidate(&mut self, pun: u32) {
        self.bits[(pun >> 6) as usize] &= !(1u64 << (pun & 63));
        self.p2l[pun as usize] = NONE;
        let b = pun as usize / self.geo.units_per_block;
        let plane = self.geo.plane_of_block(b);
        let old = self.valid[b];
        self.valid[b] = old - 1;
        self.plane_valid[plane] -= 1;
        if self.state[b] == BlockState::Full {
            self.policy.invalidate(plane, b as u32, old);
        }
    }

    /// Map logical unit `lpn` to physical unit `pun`, which lies in `plane`.
    #[inline]
    fn map(&mut self, plane: usize, lpn: u32, pun: u32) {
        self.map_in(plane, pun as usize / self.geo.units_per_block, lpn, pun);
    }

    /// [`Ftl::map`] with `pun`'s block known (no division).
    #[inline]
    fn map_in(&mut self, plane: usize, block: usize, lpn: u32, pun: u32) {
        debug_assert_eq!(pun as usize / self.geo.units_per_block, block);
        debug_assert_eq!(self.geo.plane_of_block(block), plane);
        self.l2p[lpn as usize] = pun;
        self.p2l[pun as usize] = lpn;
        self.bits[(pun >> 6) as usize] |= 1u64 << (pun & 63);
        self.valid[block] += 1;
        self.plane_valid[plane] += 1;
    }

    /// Valid units in `plane`.
    pub fn plane_valid(&self, plane: usize) -> u64 {
        self.plane_valid[plane]
    }

    /// Valid units `plane` may hold and still take host pages: its blocks (neither retired
    /// nor lent) less the foreground GC reserve, one open block per host frontier and one
    /// for GC, the blocks config validation asks the spare area to hold. A plane at this
    /// level that must open a block still has at least two blocks' worth of invalid units
    /// to collect, so its GC progresses; the mean plane never passes it.
    pub fn host_limit(&self, plane: usize) -> u64 {
        let kept = self.params.gc_threshold as u64 + self.streams as u64 + 1;
        (self.plane_blocks[plane] as u64).saturating_sub(kept) * self.geo.units_per_block as u64
    }

    /// Whether `plane` may take another host page: its valid units are below
    /// [`Ftl::host_limit`]. One write stream spreads a logical page's rewrites over the
    /// planes while each plane collects alone, so a plane's valid data drifts; allocation
    /// steers host pages away from a plane at its limit (writes elsewhere then invalidate its
    /// data) so that every plane stays collectable.
    #[inline]
    pub fn takes_host(&self, plane: usize) -> bool {
        self.plane_valid[plane] < self.host_limit(plane)
    }

    /// Drop the map entry of a logical unit whose data the host rewrites into a design's
    /// buffer (not a trim: `trimmed_units` is not counted). Returns whether it was mapped.
    pub fn unmap(&mut self, lpn: u64) -> bool {
        let old = self.l2p[lpn as usize];
        if old == NONE {
            return false;
        }
        self.invalidate(old);
        self.l2p[lpn as usize] = NONE;
        true
    }

    /// Log a GC or wear-leveling move for a design that follows its units.
    #[cold]
    #[inline(never)]
    fn record_move(&mut self, lpn: u32, from: u32, to: u32) {
        self.moves.push(Move { lpn, from, to });
    }

    /// Logical unit whose valid data physical unit `pun` holds, or [`NONE`].
    #[inline]
    pub fn owner(&self, pun: u32) -> u32 {
        self.p2l[pun as usize]
    }

    /// A plane's free blocks as (erase count, block), in the order they will be taken (least
    /// erased first, then lowest block number).
    pub fn free_pool(&self, plane: usize) -> Vec<(u32, u32)> {
        let mut v: Vec<(u32, u32)> = self.planes[plane].free.iter().map(|r| r.0).collect();
        v.sort_unstable();
        v
    }

    /// TRIM one logical unit.
    pub fn trim(&mut self, lpn: u64) {
        let old = self.l2p[lpn as usize];
        if old != NONE {
            self.invalidate(old);
            self.l2p[lpn as usize] = NONE;
            self.stats.trimmed_units += 1;
        }
    }

    fn close_block(&mut self, plane: usize, block: u32) {
        self.clock += 1;
        self.state[block as usize] = BlockState::Full;
        self.stamp[block as usize] = self.clock;
        self.policy.insert(plane, block, self.valid[block as usize]);
    }

    /// Take a free block of `plane` out of the FTL for good (a scheme's scratch space in
    /// over-provisioning): it holds no data and is never allocated, collected or counted
    /// free again.
    pub fn reserve_block(&mut self, plane: usize) -> Result<u32> {
        let b = self.take_free(plane)?;
        self.state[b as usize] = BlockState::Reserved;
        self.plane_blocks[plane] -= 1;
        Ok(b)
    }

    /// Blocks of `plane` lent to a scheme.
    pub fn reserved_blocks(&self, plane: usize) -> usize {
        let g = &self.geo;
        (plane * g.blocks_per_plane..(plane + 1) * g.blocks_per_plane)
            .filter(|&b| self.state[b] == BlockState::Reserved)
            .count()
    }

    fn take_free(&mut self, plane: usize) -> Result<u32> {
        let Reverse((_, b)) = self.planes[plane].free.pop().ok_or_else(|| {
            Error::Invalid(format!(
                "plane {plane} ran out of free blocks (device worn out or over-full)"
            ))
        })?;
        self.state[b as usize] = BlockState::Open;
        Ok(b)
    }

    /// Append one logical unit at the host frontier of `plane` (stream 0), running
    /// foreground GC when the plane's free pool is low. Returns the page when this unit
    /// completed it.
    #[inline]
    pub fn append_host(&mut self, plane: usize, lpn: u64) -> Result<Option<PageDone>> {
        self.append_stream(plane, 0, lpn)
    }

    /// As [`Ftl::append_host`], at the plane's frontier of `stream` (below
    /// [`Ftl::streams`]).
    #[inline]
    pub fn append_stream(&mut self, plane: usize, stream: usize, lpn: u64) -> Result<Option<PageDone>> {
        let upb = self.geo.units_per_block as u32;
        let hi = self.host_idx(plane, stream);
        let mut f = self.hosts[hi];
        if f.block == NONE || f.next == upb {
            f = self.new_host_block(plane, hi, f)?;
        }
        let pun = f.block * upb + f.next;
        let old = self.l2p[lpn as usize];
        if old != NONE {
            self.invalidate(old);
        }
        self.map(plane, lpn as u32, pun);
        f.next += 1;
        self.hosts[hi] = f;
        self.stats.host_units_written += 1;
        if f.next.is_multiple_of(self.geo.units_per_page as u32) {
            self.stats.host_pages_programmed += 1;
            Ok(Some(PageDone {
                first_unit: pun + 1 - self.geo.units_per_page as u32,
            }))
        } else {
            Ok(None)
        }
    }

    /// Where in its page the host frontier of `stream` on `plane` is (units written to the
    /// page so far; 0 at a page's start or with no open block).
    pub fn page_offset(&self, plane: usize, stream: usize) -> u64 {
        let f = self.hosts[self.host_idx(plane, stream)];
        if f.block == NONE {
            0
        } else {
            page_rem(f.next, self.geo.units_per_page as u32) as u64
        }
    }

    /// [`Ftl::append_stream`] of the logical units `first..first + n`, in order, all to the
    /// page the frontier is at (they must not run past its end): the same state, with the
    /// per-unit work done once per run. Returns whether the page was completed. The
    /// preconditioning fill goes through here a page at a time.
    pub fn append_run(&mut self, plane: usize, stream: usize, first: u64, n: u32) -> Result<bool> {
        let upb = self.geo.units_per_block as u32;
        let upp = self.geo.units_per_page as u32;
        let hi = self.host_idx(plane, stream);
        let mut f = self.hosts[hi];
        if f.block == NONE || f.next == upb {
            f = self.new_host_block(plane, hi, f)?;
        }
        let at = page_rem(f.next, upp);
        if n == 0 || at + n > upp {
            return Err(Error::Invalid(format!(
                "plane {plane}: a run of {n} units at unit {at} of a {upp}-unit page; expected at least one unit, within the page"
            )));
        }
        let block = f.block as usize;
        debug_assert_eq!(self.geo.plane_of_block(block), plane);
        let base = f.block * upb + f.next;
        // `map_in` of each unit, its counters added once for the run.
        for k in 0..n {
            let lpn = (first + k as u64) as usize;
            let old = self.l2p[lpn];
            if old != NONE {
                self.invalidate(old);
            }
            let pun = base + k;
            self.l2p[lpn] = pun;
            self.p2l[pun as usize] = lpn as u32;
            self.bits[(pun >> 6) as usize] |= 1u64 << (pun & 63);
        }
        self.valid[block] += n;
        self.plane_valid[plane] += n as u64;
        f.next += n;
        self.hosts[hi] = f;
        self.stats.host_units_written += n as u64;
        let done = at + n == upp;
        self.stats.host_pages_programmed += done as u64;
        Ok(done)
    }

    /// Whole rounds of [`Ftl::append_run`]: page after page of the logical units from `first`
    /// (at most `units` of them), to the host frontiers of `stream` on every plane in turn from
    /// `start`, for as many rounds as that order is certain: every frontier at a page's start
    /// in an open block with room for every round, every plane below its host limit
    /// ([`Ftl::takes_host`]) at each of its turns, and the units unmapped. Returns the rounds
    /// written (0 when not one is certain); the state is the one `append_run` a page at a time
    /// would leave. The maps are written in order (the forward map by logical unit, the
    /// reverse map and valid bits plane by plane) instead of a page in each plane in turn,
    /// more streams of stores than the hardware follows.
    pub fn append_rounds(&mut self, start: usize, stream: usize, first: u64, units: u64) -> u64 {
        let planes = self.geo.planes;
        let upp = self.geo.units_per_page as u32;
        let upb = self.geo.units_per_block as u32;
        let per_round = planes as u64 * upp as u64;
        let mut rounds = units / per_round;
        if self.sb.is_some() || rounds == 0 || start >= planes {
            return 0;
        }
        for q in 0..planes {
            let f = self.hosts[self.host_idx(q, stream)];
            if f.block == NONE || page_rem(f.next, upp) != 0 {
                return 0;
            }
            let (limit, v) = (self.host_limit(q), self.plane_valid[q]);
            if v >= limit {
                return 0;
            }
            // Round r finds the plane below its limit while v + r × upp < limit.
            rounds = rounds
                .min(((upb - f.next) / upp) as u64)
                .min((limit - v).div_ceil(upp as u64));
        }
        let n = (rounds * per_round) as usize;
        let (lo, hi) = (first as usize, first as usize + n);
        if rounds == 0 || hi > self.l2p.len() || self.l2p[lo..hi].iter().any(|&e| e != NONE) {
            return 0;
        }
        // The planes in turn, and each one's first unit.
        let order: Vec<usize> = (start..planes).chain(0..start).collect();
        let bases: Vec<u32> = order
            .iter()
            .map(|&q| {
                let f = self.hosts[self.host_idx(q, stream)];
                f.block * upb + f.next
            })
            .collect();
        let mut lpn = lo;
        for r in 0..rounds as u32 {
            for &b in &bases {
                let first_unit = b + r * upp;
                for (j, e) in self.l2p[lpn..lpn + upp as usize].iter_mut().enumerate() {
                    *e = first_unit + j as u32;
                }
                lpn += upp as usize;
            }
        }
        let span = rounds as u32 * upp;
        for (i, (&q, &b)) in order.iter().zip(&bases).enumerate() {
            for r in 0..rounds as u32 {
                let at = (b + r * upp) as usize;
                let l = (lo + (r as usize * planes + i) * upp as usize) as u32;
                for (j, e) in self.p2l[at..at + upp as usize].iter_mut().enumerate() {
                    *e = l + j as u32;
                }
            }
            self.set_valid_bits(b, b + span);
            let h = self.host_idx(q, stream);
            self.valid[self.hosts[h].block as usize] += span;
            self.plane_valid[q] += span as u64;
            self.hosts[h].next += span;
        }
        self.stats.host_units_written += n as u64;
        self.stats.host_pages_programmed += rounds * planes as u64;
        rounds
    }

    /// Set the valid bits of the physical units `lo..hi`, a word at a time.
    fn set_valid_bits(&mut self, lo: u32, hi: u32) {
        let mut u = lo;
        while u < hi {
            let (w, bit) = ((u >> 6) as usize, u & 63);
            let k = (64 - bit).min(hi - u);
            let mask = if k == 64 { u64::MAX } else { ((1u64 << k) - 1) << bit };
            self.bits[w] |= mask;
            u += k;
        }
    }

    /// A new block for the host frontier `hi` of `plane` (whose current state is `f`).
    #[cold]
    fn new_host_block(&mut self, plane: usize, hi: usize, f: Frontier) -> Result<Frontier> {
        if self.sb.is_some() {
            return Err(Error::Invalid(format!(
                "plane {plane}: a host write outside its superblock (placement out of step)"
            )));
        }
        if f.block != NONE {
            self.close_block(plane, f.block);
            self.hosts[hi] = NO_FRONTIER;
        }
        let threshold = self.params.gc_threshold as usize;
        let shared = self.params.gc_shared_frontier;
        // With a separate GC frontier, collect before the new block is taken. With a shared
        // one, FEMU's order: the host takes its block (collecting only if the plane has
        // none), then GC collects into it, one victim at a time, until the plane has its
        // reserve again, so that GC's survivors and host data share blocks.
        self.collect_until(plane, if shared { 1 } else { threshold })?;
        // A separate frontier takes its block on the first pass and returns on the second;
        // with a shared one, GC may have opened (and page-aligned) a host block, or filled
        // the one just taken.
        for _ in 0..=self.geo.blocks_per_plane {
            let cur = self.hosts[hi];
            if cur.block != NONE && cur.next < self.geo.units_per_block as u32 {
                return Ok(cur);
            }
            if cur.block != NONE {
                self.close_block(plane, cur.block);
            }
            let b = self.take_free(plane)?;
            self.hosts[hi] = Frontier { block: b, next: 0 };
            self.maybe_wear_level()?;
            if shared {
                self.collect_until(plane, threshold)?;
            }
        }
        Err(Error::Invalid(format!(
            "plane {plane}: garbage collection fills every block it frees"
        )))
    }

    /// Foreground GC in `plane` until it has `free` free blocks.
    fn collect_until(&mut self, plane: usize, free: usize) -> Result<()> {
        let mut guard = 0;
        while self.planes[plane].free.len() < free {
            self.collect(plane, Pick::Policy, false)?;
            guard += 1;
            if guard > 4 * self.geo.blocks_per_plane + 16 {
                return Err(Error::Invalid(format!(
                    "garbage collection in plane {plane} makes no progress"
                )));
            }
        }
        Ok(())
    }

    /// Close the partially filled host page of `plane`, stream 0 (write-through of a sub-page
    /// write). Returns the page if one was open.
    pub fn pad_host(&mut self, plane: usize) -> Option<PageDone> {
        self.pad_stream(plane, 0)
    }

    /// As [`Ftl::pad_host`], for the plane's frontier of `stream`.
    pub fn pad_stream(&mut self, plane: usize, stream: usize) -> Option<PageDone> {
        let upp = self.geo.units_per_page as u32;
        let hi = self.host_idx(plane, stream);
        let f = &mut self.hosts[hi];
        let fill = f.next % upp;
        if f.block == NONE || fill == 0 {
            return None;
        }
        let pad = upp - fill;
        f.next += pad;
        let first = f.block * self.geo.units_per_block as u32 + f.next - upp;
        self.stats.padded_units += pad as u64;
        self.stats.host_pages_programmed += 1;
        Some(PageDone { first_unit: first })
    }

    /// Run one whole garbage collection in `plane` (finishing one under way first), as
    /// background GC. Returns false when the plane has nothing to collect.
    pub fn gc_once(&mut self, plane: usize) -> Result<bool> {
        if self.planes[plane].cursor.is_none() && self.policy.len(plane) == 0 {
            return Ok(false);
        }
        if self.sb.is_some() {
            self.reclaim(plane, true)?;
        } else {
            self.collect(plane, Pick::Policy, true)?;
        }
        Ok(true)
    }

    /// Free blocks below which a plane collects before a new host block (foreground GC).
    pub fn gc_threshold(&self) -> u32 {
        self.params.gc_threshold
    }

    /// Change the foreground GC threshold (preconditioning collects as background GC would).
    pub fn set_gc_threshold(&mut self, t: u32) {
        self.params.gc_threshold = t;
    }

    /// GC survivors share the host write frontier.
    pub fn shared_gc_frontier(&self) -> bool {
        self.params.gc_shared_frontier
    }

    /// A collection is under way in `plane`.
    #[inline]
    pub fn gc_in_progress(&self, plane: usize) -> bool {
        self.planes[plane].cursor.is_some()
    }

    /// Full blocks of `plane` the GC policy could collect.
    pub fn gc_candidates(&self, plane: usize) -> usize {
        self.policy.len(plane)
    }

    /// One step of background GC in `plane`: start a collection if none is under way, then
    /// copy one victim page (or erase the emptied victim). Returns false when there is nothing
    /// to collect.
    pub fn gc_step(&mut self, plane: usize) -> Result<bool> {
        if self.planes[plane].cursor.is_none() {
            if self.policy.len(plane) == 0 {
                return Ok(false);
            }
            self.start_collection(plane, Pick::Policy, true)?;
        }
        self.collection_step(plane)?;
        Ok(true)
    }

    /// Reclaim a block to the end: the collection under way, or else the policy's victim, or
    /// the block `pick` names (wear leveling or superblock GC, after finishing any collection
    /// under way).
    fn collect(&mut self, plane: usize, pick: Pick, background: bool) -> Result<()> {
        if self.planes[plane].cursor.is_some() {
            while !self.collection_step(plane)? {}
            if pick == Pick::Policy {
                return Ok(());
            }
        }
        self.start_collection(plane, pick, background)?;
        while !self.collection_step(plane)? {}
        Ok(())
    }

    /// Pick a victim (or take the one `pick` names) and open a cursor on it.
    fn start_collection(&mut self, plane: usize, pick: Pick, background: bool) -> Result<()> {
        let upb = self.geo.units_per_block as u32;
        let victim = match pick {
            Pick::Wl(b) | Pick::Gc(b) => {
                self.policy.remove(plane, b, self.valid[b as usize]);
                b
            }
            Pick::Policy => {
                let ctx = VictimCtx {
                    valid: &self.valid,
                    stamp: &self.stamp,
                    now: self.clock,
                    units_per_block: upb,
                };
                self.policy.select(plane, &ctx, &mut self.rng).ok_or_else(|| {
                    Error::Invalid(format!("plane {plane}: no block to garbage-collect (device over-full)"))
                })?
            }
        };
        self.superblock_gc_owner(victim);
        let forced = matches!(pick, Pick::Wl(_));
        if pick == Pick::Policy {
            self.superblock_victim_block(self.valid[victim as usize]);
        }
        if !forced {
            if background {
                self.stats.gc_runs_background += 1;
            } else {
                self.stats.gc_runs_foreground += 1;
            }
            self.stats.victim_valid_hist[self.valid[victim as usize] as usize] += 1;
        }
        self.stamp[victim as usize] = 0;
        // No longer a candidate: its invalidations must not reach the policy.
        self.state[victim as usize] = BlockState::Victim;
        self.planes[plane].cursor = Some(Cursor {
            victim,
            next: 0,
            forced,
        });
        Ok(())
    }

    #[inline]
    fn record(&mut self, plane: usize, kind: GcOpKind, units: u32, array_ns: u64, program_ns: u64) {
        if self.record_ops {
            self.gc_ops.push(GcOp {
                plane: plane as u32,
                kind,
                units,
                array_ns,
                program_ns,
            });
        }
    }

    /// Advance the plane's collection by one step: copy the valid units of the victim's next
    /// page that holds any, or, when none is left, erase the victim. Returns true when the
    /// victim was erased (the collection is over).
    fn collection_step(&mut self, plane: usize) -> Result<bool> {
        let upb = self.geo.units_per_block as u32;
        let upp = self.geo.units_per_page as u32;
        let bits_n = self.params.read_ns.len();
        let mut c = self.planes[plane].cursor.expect("a collection under way");
        let victim = c.victim;
        let base = victim * upb;
        // Find the next valid unit.
        let mut off = c.next;
        while off < upb && self.valid[victim as usize] > 0 {
            let pun = base + off;
            if pun & 63 == 0 && off + 64 <= upb && self.bits[(pun >> 6) as usize] == 0 {
                off += 64;
                continue;
            }
            if self.bit(pun) {
                break;
            }
            off += 1;
        }
        if off < upb && self.valid[victim as usize] > 0 {
            // Copy the valid units of this page.
            let page = off / upp;
            let page_end = (page + 1) * upp;
            // The map entries the copies of two pages on will update: the reverse map is read
            // in order (cheap), the map itself at random (a cache miss each).
            let ahead = page_end + upp;
            if ahead + upp <= upb {
                for pun in base + ahead..base + ahead + upp {
                    if self.bit(pun) {
                        self.prefetch(self.p2l[pun as usize] as u64);
                    }
                }
            }
            let mut copied = 0u32;
            let mut program_ns = 0u64;
            let mut done_plane = plane;
            let record_moves = self.record_moves && self.record_ops;
            for o in off..page_end {
                let pun = base + o;
                if !self.bit(pun) {
                    continue;
                }
                let lpn = self.p2l[pun as usize];
                let (dst_plane, mut g) = self.gc_dest(plane)?;
                let dst = g.block * upb + g.next;
                g.next += 1;
                self.set_gc_dest(dst_plane, g);
                self.invalidate(pun);
                self.map(dst_plane, lpn, dst);
                if record_moves {
                    self.record_move(lpn, pun, dst);
                }
                copied += 1;
                if g.next.is_multiple_of(upp) {
                    // At most one destination page completes per victim page copied.
                    self.stats.gc_pages_programmed += 1;
                    program_ns = self.params.program_ns[(g.next / upp - 1) as usize % bits_n];
                    done_plane = dst_plane;
                    self.gc_page_done();
                }
            }
            self.stats.gc_pages_read += 1;
            let read_ns = self.params.read_ns[page as usize % bits_n];
            if program_ns > 0 && done_plane != plane {
                // Superblocks: the destination page is on another plane.
                self.record(plane, GcOpKind::Read, copied, read_ns, 0);
                self.record(done_plane, GcOpKind::Program, upp, program_ns, 0);
            } else {
                let kind = if program_ns > 0 { GcOpKind::Copy } else { GcOpKind::Read };
                self.record(plane, kind, copied, read_ns, program_ns);
            }
            if c.forced {
                self.stats.wl_units_copied += copied as u64;
            } else {
                self.stats.gc_units_copied += copied as u64;
            }
            c.next = page_end;
            self.planes[plane].cursor = Some(c);
            return Ok(false);
        }
        // Nothing valid left: finish.
        if self.params.gc_shared_frontier {
            // Keep the host frontier page-aligned: pad the page GC left partly filled (with
            // superblocks, on the plane of GC's page).
            let plane = match self.sb.as_deref() {
                Some(_) => match self.superblock_gc_page_done() {
                    Some(p) => p,
                    None => plane,
                },
                None => plane,
            };
            let hi = self.host_idx(plane, 0);
            let mut g = self.hosts[hi];
            let fill = g.next % upp;
            if g.block != NONE && fill != 0 {
                g.next += upp - fill;
                self.stats.padded_units += (upp - fill) as u64;
                self.stats.gc_pages_programmed += 1;
                let t = self.params.program_ns[(g.next / upp - 1) as usize % bits_n];
                self.record(plane, GcOpKind::Program, fill, t, 0);
                self.hosts[hi] = g;
            }
        }
        self.planes[plane].cursor = None;
        let e = self.params.erase_ns;
        self.record(plane, GcOpKind::Erase, 0, e, 0);
        self.erase_block(plane, victim);
        // Every erase ends a collection or a wear-leveling migration: counted on the same
        // line, so that erases = finished collections + migrations by construction.
        if !c.forced {
            self.stats.gc_runs_finished += 1;
        }
        Ok(true)
    }

    /// Where the next unit GC copies out of `plane` goes: the destination plane and its
    /// frontier (a new block opened when the last one is full). Set it back with
    /// [`Ftl::set_gc_dest`] once advanced.
    #[inline]
    fn gc_dest(&mut self, plane: usize) -> Result<(usize, Frontier)> {
        if self.sb.is_some() {
            return self.superblock_gc_dest();
        }
        let upb = self.geo.units_per_block as u32;
        let mut g = self.gc_frontier(plane);
        if g.block == NONE || g.next == upb {
            if g.block != NONE {
                self.close_block(plane, g.block);
                // Closed: no frontier until a free block is found (a worn-out device
                // fails in take_free and must stay consistent).
                self.set_gc_frontier(plane, NO_FRONTIER);
            }
            g = Frontier {
                block: self.take_free(plane)?,
                next: 0,
            };
        }
        Ok((plane, g))
    }

    #[inline]
    fn set_gc_dest(&mut self, plane: usize, f: Frontier) {
        if self.sb.is_some() {
            let hi = self.host_idx(plane, self.superblock_gc_slot());
            self.hosts[hi] = f;
        } else {
            self.set_gc_frontier(plane, f);
        }
    }

    #[inline]
    fn gc_frontier(&self, plane: usize) -> Frontier {
        if self.params.gc_shared_frontier {
            self.hosts[self.host_idx(plane, 0)]
        } else {
            self.planes[plane].gc
        }
    }

    #[inline]
    fn set_gc_frontier(&mut self, plane: usize, f: Frontier) {
        if self.params.gc_shared_frontier {
            let hi = self.host_idx(plane, 0);
            self.hosts[hi] = f;
        } else {
            self.planes[plane].gc = f;
        }
    }

    fn erase_block(&mut self, plane: usize, b: u32) {
        debug_assert_eq!(self.valid[b as usize], 0);
        self.stats.erases += 1;
        self.erases_since_wl += 1;
        let e = self.erase[b as usize] + 1;
        self.erase[b as usize] = e;
        self.max_erase = self.max_erase.max(e);
        if self.sb.is_some() {
            self.superblock_erased(b);
        }
        if e >= self.params.endurance {
            self.state[b as usize] = BlockState::Retired;
            self.stats.retired_blocks += 1;
            self.plane_blocks[plane] -= 1;
        } else {
            self.state[b as usize] = BlockState::Free;
            self.planes[plane].free.push(Reverse((e, b)));
        }
    }

    /// Static wear leveling: every so many erases, if the erase-count spread exceeds the
    /// threshold, migrate the data of the least-erased full block (cold data) so that block
    /// returns to the free pool.
    fn maybe_wear_level(&mut self) -> Result<()> {
        if self.params.static_wl_threshold == 0 || self.erases_since_wl < self.wl_interval {
            return Ok(());
        }
        self.erases_since_wl = 0;
        let mut coldest: Option<(u32, usize)> = None;
        for b in 0..self.geo.blocks {
            if self.state[b] == BlockState::Full && coldest.is_none_or(|(e, _)| self.erase[b] < e) {
                coldest = Some((self.erase[b], b));
            }
        }
        if let Some((e, b)) = coldest {
            if self.max_erase - e > self.params.static_wl_threshold {
                let plane = self.geo.plane_of_block(b);
                // Counted before: the migration may wear the block out and fail the run.
                self.stats.wl_migrations += 1;
                self.collect(plane, Pick::Wl(b as u32), false)?;
            }
        }
        Ok(())
    }

    /// Erase counts over all blocks: (min, mean, max) and a histogram of 16 equal-width
    /// buckets from 0, as (lowest erase count of the bucket, blocks) pairs.
    pub fn erase_summary(&self) -> (u32, f64, u32, Vec<(u32, u64)>) {
        let mut min = u32::MAX;
        let mut max = 0;
        let mut sum = 0u64;
        for &e in &self.erase {
            min = min.min(e);
            max = max.max(e);
            sum += e as u64;
        }
        let buckets = 16usize;
        let width = (max as usize / buckets) + 1;
        let mut hist = vec![0u64; buckets];
        for &e in &self.erase {
            hist[(e as usize / width).min(buckets - 1)] += 1;
        }
        let hist = hist
            .into_iter()
            .enumerate()
            .map(|(i, n)| ((i * width) as u32, n))
            .collect();
        (min, sum as f64 / self.erase.len() as f64, max, hist)
    }

    pub fn erase_count(&self, block: usize) -> u32 {
        self.erase[block]
    }

    /// Valid units in the whole device.
    pub fn valid_units(&self) -> u64 {
        self.valid.iter().map(|&v| v as u64).sum()
    }

    /// Check every invariant of the FTL state. Costs a full scan.
    pub fn check_invariants(&self) -> std::result::Result<(), String> {
        let g = &self.geo;
        let mut mapped = 0u64;
        for (lpn, &pun) in self.l2p.iter().enumerate() {
            if pun == NONE {
                continue;
            }
            mapped += 1;
            if pun as u64 >= g.physical_units {
                return Err(format!("L2P[{lpn}] = {pun} out of range"));
            }
            if self.p2l[pun as usize] != lpn as u32 {
                return Err(format!(
                    "L2P[{lpn}] = {pun} but P2L[{pun}] = {}",
                    self.p2l[pun as usize]
                ));
            }
            if !self.bit(pun) {
                return Err(format!("L2P[{lpn}] = {pun} but its valid bit is clear"));
            }
        }
        let mut valid_bits = 0u64;
        for b in 0..g.blocks {
            let mut cnt = 0u32;
            for off in 0..g.units_per_block as u32 {
                let pun = (b * g.units_per_block) as u32 + off;
                let p = self.p2l[pun as usize];
                if self.bit(pun) {
                    cnt += 1;
                    if p == NONE || self.l2p[p as usize] != pun {
                        return Err(format!(
                            "unit {pun} is marked valid but its logical unit does not map back"
                        ));
                    }
                } else if p != NONE {
                    return Err(format!("unit {pun} is invalid but P2L still names logical unit {p}"));
                }
            }
            if cnt != self.valid[b] {
                return Err(format!("block {b}: valid count {} but bitmap has {cnt}", self.valid[b]));
            }
            valid_bits += cnt as u64;
            match self.state[b] {
                BlockState::Free | BlockState::Retired | BlockState::Reserved if cnt != 0 => {
                    return Err(format!("block {b} is {:?} but holds {cnt} valid units", self.state[b]))
                }
                _ => {}
            }
        }
        if valid_bits != mapped {
            return Err(format!(
                "{mapped} mapped logical units but {valid_bits} valid physical units"
            ));
        }
        let (mut free, mut open, mut full, mut victims, mut retired, mut reserved) =
            (0usize, 0usize, 0usize, 0usize, 0usize, 0usize);
        for s in &self.state {
            match s {
                BlockState::Free => free += 1,
                BlockState::Open => open += 1,
                BlockState::Full => full += 1,
                BlockState::Victim => victims += 1,
                BlockState::Retired => retired += 1,
                BlockState::Reserved => reserved += 1,
            }
        }
        if free + open + full + victims + retired + reserved != g.blocks {
            return Err(format!(
                "free {free} + open {open} + full {full} + victims {victims} + retired {retired} + reserved {reserved} != {} blocks",
                g.blocks
            ));
        }
        let cursors = self.planes.iter().filter(|p| p.cursor.is_some()).count();
        if cursors != victims {
            return Err(format!(
                "{victims} blocks are victims but {cursors} collections are under way"
            ));
        }
        for (p, ps) in self.planes.iter().enumerate() {
            if let Some(c) = ps.cursor {
                if self.state[c.victim as usize] != BlockState::Victim
                    || self.geo.plane_of_block(c.victim as usize) != p
                {
                    return Err(format!(
                        "plane {p} collects block {} in the wrong state or plane",
                        c.victim
                    ));
                }
            }
        }
        let pooled: usize = self.planes.iter().map(|p| p.free.len()).sum();
        if pooled != free {
            return Err(format!("{free} blocks are free but the free pools hold {pooled}"));
        }
        let frontiers: usize = self.hosts.iter().filter(|f| f.block != NONE).count()
            + self.planes.iter().filter(|p| p.gc.block != NONE).count();
        if frontiers != open {
            return Err(format!("{open} blocks are open but {frontiers} frontiers exist"));
        }
        let candidates: usize = (0..g.planes).map(|p| self.policy.len(p)).sum();
        if candidates != full {
            return Err(format!("{full} full blocks but the GC policy indexes {candidates}"));
        }
        self.check_superblocks()?;
        for (p, ps) in self.planes.iter().enumerate() {
            for Reverse((e, b)) in ps.free.iter() {
                if self.geo.plane_of_block(*b as usize) != p || self.state[*b as usize] != BlockState::Free {
                    return Err(format!(
                        "free pool of plane {p} holds block {b} in the wrong state or plane"
                    ));
                }
                if *e != self.erase[*b as usize] {
                    return Err(format!("free pool key of block {b} is stale"));
                }
            }
        }
        for p in 0..g.planes {
            let blocks = p * g.blocks_per_plane..(p + 1) * g.blocks_per_plane;
            let valid: u64 = self.valid[blocks.clone()].iter().map(|&v| v as u64).sum();
            if valid != self.plane_valid[p] {
                return Err(format!(
                    "plane {p}: valid count {} but its blocks hold {valid}",
                    self.plane_valid[p]
                ));
            }
            let usable = blocks
                .filter(|&b| !matches!(self.state[b], BlockState::Retired | BlockState::Reserved))
                .count();
            if usable != self.plane_blocks[p] as usize {
                return Err(format!(
                    "plane {p}: {} usable blocks counted but {usable} neither retired nor lent",
                    self.plane_blocks[p]
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_config;
    use rand::Rng;

    /// Maps large enough to be written by all the cores hold the same as written by one: `n`
    /// copies of the value, and a copy equal to its original.
    #[test]
    fn large_maps_filled_and_copied_in_parallel_hold_what_one_core_writes() {
        for n in [PARALLEL_TOUCH / 4 - 1, PARALLEL_TOUCH / 4 + 3] {
            let v = filled(n, NONE - 1).unwrap();
            assert_eq!(v.len(), n);
            assert!(v.iter().all(|&x| x == NONE - 1), "{n}");
            let m = Maps(v.iter().enumerate().map(|(i, _)| i as u32 ^ 0x5a5a).collect::<Vec<_>>());
            let c = m.clone();
            assert_eq!(c.len(), n);
            assert!(c.0 == m.0, "{n}: the copy differs");
        }
    }

    /// Two planes of 16 blocks of 4 pages of 2 units (8 units per block), 50 % spare.
    pub(super) fn ftl(policy: &str) -> Ftl {
        ftl_with(policy, false, vec![25_000], vec![200_000])
    }

    /// As [`ftl`], with a shared GC frontier or not and times per page type.
    fn ftl_with(policy: &str, shared: bool, read_ns: Vec<u64>, program_ns: Vec<u64>) -> Ftl {
        let text = format!(
            r#"
[device]
preset = "mlc-sata"
[device.geometry]
channels = 1
ways = 1
dies_per_chip = 1
planes_per_die = 2
blocks_per_plane = 16
pages_per_block = 4
page_size = "8KiB"
mapping_unit = "4KiB"
overprovisioning = 0.5
[device.ftl]
gc_policy = "{policy}"
gc_threshold = 2
"#
        );
        let cfg = parse_config(&text, "ftl.toml", std::path::Path::new(".")).unwrap();
        let geo = crate::redundancy::geometry_of(&cfg.device, "ftl.toml").unwrap();
        Ftl::new(
            geo,
            FtlParams {
                gc_policy: policy.into(),
                gc_shared_frontier: shared,
                read_ns,
                program_ns,
                ..FtlParams::for_tests()
            },
        )
        .unwrap()
    }

    /// An FTL after random overwrites of its whole logical space, GC having run, with a
    /// collection left under way in plane 1.
    fn worked() -> Ftl {
        let mut f = ftl("greedy");
        let n = f.geo.logical_units;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        for lpn in 0..n {
            f.append_host((lpn % 2) as usize, lpn).unwrap();
        }
        for i in 0..(6 * n) {
            f.append_host((i % 2) as usize, rng.gen_range(0..n)).unwrap();
        }
        assert!(f.stats.gc_runs() > 0 && f.stats.erases > 0);
        assert!(f.gc_step(1).unwrap() && f.gc_in_progress(1));
        f.check_invariants().unwrap();
        f
    }

    /// A logical unit mapped now, and where.
    fn mapped(f: &Ftl) -> (usize, u32) {
        f.l2p
            .iter()
            .enumerate()
            .find(|(_, &p)| p != NONE)
            .map(|(l, &p)| (l, p))
            .unwrap()
    }

    /// A physical unit that holds no data, in a block that holds some.
    fn stale(f: &Ftl) -> u32 {
        (0..f.geo.physical_units as u32)
            .find(|&u| !f.bit(u) && f.valid[u as usize / f.geo.units_per_block] > 0)
            .unwrap()
    }

    fn block_in(f: &Ftl, s: BlockState) -> usize {
        f.state.iter().position(|&x| x == s).unwrap()
    }

    fn fails(f: &Ftl, what: &str) {
        match f.check_invariants() {
            Ok(()) => panic!("the checker missed: {what}"),
            Err(e) => assert!(e.contains(what), "expected '{what}', got '{e}'"),
        }
    }

    #[test]
    fn the_checker_reports_each_kind_of_corruption() {
        let mut f = worked();
        let (lpn, _) = mapped(&f);
        f.l2p[lpn] = f.geo.physical_units as u32;
        fails(&f, "out of range");

        let mut f = worked();
        let (lpn, pun) = mapped(&f);
        f.l2p[lpn] = stale(&f);
        let _ = pun;
        fails(&f, "but P2L");

        let mut f = worked();
        let (_, pun) = mapped(&f);
        f.bits[(pun >> 6) as usize] &= !(1u64 << (pun & 63));
        fails(&f, "valid bit is clear");

        let mut f = worked();
        let (lpn, pun) = mapped(&f);
        f.l2p[lpn] = NONE;
        let _ = pun;
        fails(&f, "does not map back");

        let mut f = worked();
        let u = stale(&f);
        f.p2l[u as usize] = 0;
        fails(&f, "invalid but P2L still names");

        let mut f = worked();
        let b = block_in(&f, BlockState::Full);
        f.valid[b] += 1;
        fails(&f, &format!("block {b}: valid count"));

        let mut f = worked();
        let b = (0..f.geo.blocks)
            .find(|&b| f.state[b] == BlockState::Full && f.valid[b] > 0)
            .unwrap();
        f.state[b] = BlockState::Retired;
        fails(&f, &format!("block {b} is Retired but holds"));

        let mut f = worked();
        let b = block_in(&f, BlockState::Free);
        f.state[b] = BlockState::Retired;
        fails(&f, "blocks are free but the free pools hold");

        let mut f = worked();
        f.planes[1].cursor = None;
        fails(&f, "1 blocks are victims but 0 collections are under way");

        let mut f = worked();
        let c = f.planes[1].cursor.unwrap();
        let other = (0..f.geo.blocks)
            .find(|&b| f.state[b] == BlockState::Full && f.geo.plane_of_block(b) == 1)
            .unwrap();
        f.planes[1].cursor = Some(Cursor {
            victim: other as u32,
            ..c
        });
        fails(&f, "in the wrong state or plane");

        let mut f = worked();
        f.planes[0].gc = NO_FRONTIER;
        fails(&f, "blocks are open but");

        let mut f = worked();
        let b = block_in(&f, BlockState::Full);
        let p = f.geo.plane_of_block(b);
        f.policy.remove(p, b as u32, f.valid[b]);
        fails(&f, "full blocks but the GC policy indexes");

        let mut f = worked();
        let Reverse(e) = f.planes[0].free.pop().unwrap();
        f.planes[1].free.push(Reverse(e));
        fails(&f, "free pool of plane 1 holds block");

        let mut f = worked();
        let Reverse((_, b)) = *f.planes[0].free.peek().unwrap();
        f.erase[b as usize] += 1;
        fails(&f, &format!("free pool key of block {b} is stale"));

        let mut f = worked();
        f.plane_valid[1] += 1;
        fails(&f, "plane 1: valid count");

        let mut f = worked();
        f.plane_blocks[0] -= 1;
        fails(&f, "plane 0: 15 usable blocks counted but 16");
    }

    #[test]
    fn trim_drops_the_mapping_and_its_valid_unit() {
        let mut f = ftl("greedy");
        for lpn in 0..6 {
            f.append_host(0, lpn).unwrap();
        }
        let pun = f.lookup(2);
        let b = pun as usize / f.geo.units_per_block;
        assert_eq!((f.valid_units(), f.valid[b]), (6, 6));
        f.trim(2);
        f.trim(2);
        f.trim(40);
        assert_eq!(f.lookup(2), NONE);
        assert_eq!((f.valid_units(), f.valid[b], f.stats.trimmed_units), (5, 5, 1));
        assert!(!f.bit(pun) && f.p2l[pun as usize] == NONE);
        assert_eq!(f.lookup(3), pun + 1);
        f.check_invariants().unwrap();
    }

    #[test]
    fn a_collection_copies_the_valid_units_page_by_page() {
        // Plane 0: block A holds logical units 0..8 (pages of two units), then 1, 2, 3 and 5
        // are overwritten. A keeps 0 | - - | 4 - | 6 7: three pages to read, page 1 skipped.
        // MLC times: page types alternate (25 / 50 us reads, 200 / 900 us programs).
        let mut f = ftl_with("greedy", false, vec![25_000, 50_000], vec![200_000, 900_000]);
        for lpn in [0, 1, 2, 3, 4, 5, 6, 7, 1, 2, 3, 5] {
            f.append_host(0, lpn).unwrap();
        }
        let a = f.lookup(0) / 8;
        assert_eq!(f.valid[a as usize], 4);
        assert!(f.gc_once(0).unwrap());
        let op = |kind, units, array_ns, program_ns| GcOp {
            plane: 0,
            kind,
            units,
            array_ns,
            program_ns,
        };
        // The GC frontier fills its page 0 with units 0 and 4 (A's pages 0 and 2 read: page
        // type 0), its page 1 with 6 and 7 (A's page 3 read: type 1): each program has the
        // type of the destination page it completes.
        assert_eq!(
            f.gc_ops,
            [
                op(GcOpKind::Read, 1, 25_000, 0),
                op(GcOpKind::Copy, 1, 25_000, 200_000),
                op(GcOpKind::Copy, 2, 50_000, 900_000),
                op(GcOpKind::Erase, 0, 1_500_000, 0),
            ]
        );
        let s = &f.stats;
        assert_eq!(
            (s.gc_units_copied, s.gc_pages_read, s.gc_pages_programmed, s.erases),
            (4, 3, 2, 1)
        );
        assert_eq!((s.gc_runs_background, s.gc_runs_foreground, s.gc_runs()), (1, 0, 1));
        assert_eq!(s.victim_valid_hist[4], 1);
        assert_eq!(f.erase_count(a as usize), 1);
        let g = f.lookup(0) / 8;
        assert_ne!(g, a);
        assert_eq!([4, 6, 7].map(|l| f.lookup(l)), [g * 8 + 1, g * 8 + 2, g * 8 + 3]);
        assert_eq!(f.state[a as usize], BlockState::Free);
        assert!(!f.gc_in_progress(0) && !f.gc_once(0).unwrap() && !f.gc_step(0).unwrap());
        f.check_invariants().unwrap();
    }

    #[test]
    fn the_open_page_is_tracked_and_padded() {
        let mut f = ftl("greedy");
        assert_eq!((f.open_page_fill(0), f.pad_host(0)), (0, None));
        assert_eq!(f.append_host(0, 9).unwrap(), None);
        let pun = f.lookup(9);
        assert!(f.in_open_page(pun) && f.in_open_page(pun + 1) && !f.in_open_page(pun + 2));
        assert_eq!(f.open_page_fill(0), 1);
        assert_eq!(f.pad_host(0), Some(PageDone { first_unit: pun }));
        assert!(!f.in_open_page(pun));
        assert_eq!((f.open_page_fill(0), f.pad_host(0)), (0, None));
        assert_eq!((f.stats.padded_units, f.stats.host_pages_programmed), (1, 1));
        // The next unit starts the next page, which a second unit completes.
        assert_eq!(f.append_host(0, 10).unwrap(), None);
        assert_eq!(f.lookup(10), pun + 2);
        assert_eq!(f.append_host(0, 11).unwrap(), Some(PageDone { first_unit: pun + 2 }));
        assert_eq!(f.stats.host_units_written, 3);
        f.check_invariants().unwrap();
    }

    #[test]
    fn erase_summary_and_stats_differences() {
        let mut f = ftl("greedy");
        f.erase[0] = 20;
        f.erase[1] = 3;
        let (min, mean, max, hist) = f.erase_summary();
        assert_eq!((min, max), (0, 20));
        assert_eq!(mean, 23.0 / 32.0);
        // 16 buckets of width 20 / 16 + 1 = 2.
        assert_eq!(hist.len(), 16);
        assert_eq!((hist[0], hist[1], hist[10]), ((0, 30), (2, 1), (20, 1)));
        assert_eq!(hist.iter().map(|h| h.1).sum::<u64>(), 32);
        // Every counter differs between the two snapshots by its own amount.
        let a = FtlStats {
            host_units_written: 10,
            host_pages_programmed: 20,
            padded_units: 30,
            gc_runs_foreground: 40,
            gc_runs_background: 50,
            gc_runs_finished: 140,
            gc_units_copied: 60,
            gc_pages_read: 70,
            gc_pages_programmed: 80,
            wl_migrations: 90,
            wl_units_copied: 100,
            erases: 110,
            retired_blocks: 120,
            trimmed_units: 130,
            victim_valid_hist: vec![1, 2, 3],
        };
        let b = FtlStats {
            host_units_written: 11,
            host_pages_programmed: 22,
            padded_units: 33,
            gc_runs_foreground: 44,
            gc_runs_background: 55,
            gc_runs_finished: 154,
            gc_units_copied: 66,
            gc_pages_read: 77,
            gc_pages_programmed: 88,
            wl_migrations: 99,
            wl_units_copied: 110,
            erases: 121,
            retired_blocks: 132,
            trimmed_units: 143,
            victim_valid_hist: vec![1, 5, 3, 1],
        };
        let d = b.since(&a);
        assert_eq!(
            d,
            FtlStats {
                host_units_written: 1,
                host_pages_programmed: 2,
                padded_units: 3,
                gc_runs_foreground: 4,
                gc_runs_background: 5,
                gc_runs_finished: 14,
                gc_units_copied: 6,
                gc_pages_read: 7,
                gc_pages_programmed: 8,
                wl_migrations: 9,
                wl_units_copied: 10,
                erases: 11,
                retired_blocks: 12,
                trimmed_units: 13,
                victim_valid_hist: vec![0, 3, 0, 1],
            }
        );
        assert_eq!(d.gc_runs(), 9);
        assert_eq!(f.policy_name(), "greedy");
    }

    #[test]
    fn a_shared_frontier_pads_the_page_gc_left_open() {
        // MLC times: page types alternate (25 / 50 us reads, 200 / 900 us programs).
        let mut f = ftl_with("greedy", true, vec![25_000, 50_000], vec![200_000, 900_000]);
        assert!(f.shared_gc_frontier() && !ftl("greedy").shared_gc_frontier());
        // Block A: units 0..8, all but unit 0 trimmed; block B: host units 8..12 (pages 0, 1).
        for lpn in 0..12 {
            f.append_host(0, lpn).unwrap();
        }
        for lpn in 1..8 {
            f.trim(lpn);
        }
        f.gc_ops.clear();
        assert!(f.gc_once(0).unwrap());
        // Unit 0 goes to the host frontier (B, page 2, half full): a read; at the end page 2
        // is programmed padded (page type 0: 200 us), then A is erased.
        let op = |kind, units, array_ns| GcOp {
            plane: 0,
            kind,
            units,
            array_ns,
            program_ns: 0,
        };
        assert_eq!(
            f.gc_ops,
            [
                op(GcOpKind::Read, 1, 25_000),
                op(GcOpKind::Program, 1, 200_000),
                op(GcOpKind::Erase, 0, 1_500_000),
            ]
        );
        assert_eq!((f.stats.padded_units, f.stats.gc_pages_programmed), (1, 1));
        assert_eq!(f.open_page_fill(0), 0);
        assert_eq!(f.lookup(0), f.lookup(8) + 4);
        f.check_invariants().unwrap();
    }

    #[test]
    fn a_shared_frontier_left_page_aligned_or_absent_is_not_padded() {
        let mlc = || ftl_with("greedy", true, vec![25_000, 50_000], vec![200_000, 900_000]);
        let op = |kind, units, array_ns, program_ns| GcOp {
            plane: 0,
            kind,
            units,
            array_ns,
            program_ns,
        };
        // Block A: units 0..8, all but units 0 and 1 (A's page 0) trimmed; block B: host
        // units 8..12 (pages 0, 1). Units 0 and 1 fill B's page 2 (type 0: 200 us): the
        // frontier ends page-aligned and nothing is padded.
        let mut f = mlc();
        for lpn in 0..12 {
            f.append_host(0, lpn).unwrap();
        }
        for lpn in 2..8 {
            f.trim(lpn);
        }
        f.gc_ops.clear();
        assert!(f.gc_once(0).unwrap());
        assert_eq!(
            f.gc_ops,
            [
                op(GcOpKind::Copy, 2, 25_000, 200_000),
                op(GcOpKind::Erase, 0, 1_500_000, 0),
            ]
        );
        assert_eq!((f.stats.padded_units, f.stats.gc_pages_programmed), (0, 1));
        assert_eq!([f.lookup(0), f.lookup(1)], [f.lookup(8) + 4, f.lookup(8) + 5]);
        f.check_invariants().unwrap();
        // Plane 0's 16 blocks: 14 filled with units 0..112, block A (units 0..8) then trimmed
        // whole. The next unit closes the full host block and takes a new one (FEMU's order),
        // leaving one free block: foreground GC then takes A: nothing to copy, nothing to
        // pad, an erase.
        let mut f = mlc();
        for lpn in 0..112 {
            f.append_host(0, lpn).unwrap();
        }
        for lpn in 0..8 {
            f.trim(lpn);
        }
        f.gc_ops.clear();
        assert_eq!(f.free_blocks(0), 2);
        f.append_host(0, 112).unwrap();
        assert_eq!(f.free_blocks(0), 2);
        assert_eq!(f.gc_ops, [op(GcOpKind::Erase, 0, 1_500_000, 0)]);
        assert_eq!((f.stats.gc_runs_foreground, f.stats.padded_units), (1, 0));
        assert_eq!(f.open_page_fill(0), 1);
        f.check_invariants().unwrap();
    }

    #[test]
    fn foreground_gc_that_frees_nothing_gives_up() {
        // Plane 0 holds 11 blocks of valid data only (88 units), 5 blocks free.
        let mut f = ftl("greedy");
        for lpn in 0..88 {
            f.append_host(0, lpn).unwrap();
        }
        assert_eq!(f.free_blocks(0), 5);
        // With 8 free blocks wanted, every collection copies a whole block into a free one and
        // erases its victim: 5 free blocks still. It gives up after more than
        // 4 × 16 blocks per plane + 16 collections.
        f.set_gc_threshold(8);
        let e = f.append_host(0, 88).unwrap_err().to_string();
        assert!(e.contains("plane 0 makes no progress"), "{e}");
        assert_eq!(f.stats.gc_runs_foreground, 4 * 16 + 16 + 1);
        assert_eq!(f.free_blocks(0), 5);
    }

    #[test]
    fn a_plane_takes_host_pages_below_its_blocks_less_the_reserve_and_open_blocks() {
        // 16 blocks of 8 units; gc_threshold 2, one host frontier, GC's block: 12 blocks,
        // 96 units.
        let mut f = ftl("greedy");
        assert_eq!((f.host_limit(0), f.host_limit(1)), (96, 96));
        for lpn in 0..95 {
            f.append_host(0, lpn).unwrap();
        }
        assert!(f.takes_host(0));
        f.append_host(0, 95).unwrap();
        assert_eq!((f.plane_valid(0), f.plane_valid(1)), (96, 0));
        assert!(!f.takes_host(0) && f.takes_host(1));
        // Overwrites in the other plane and trims lower the plane's valid units.
        f.append_host(1, 3).unwrap();
        assert_eq!((f.plane_valid(0), f.plane_valid(1)), (95, 1));
        assert!(f.takes_host(0));
        f.append_host(0, 3).unwrap();
        f.trim(4);
        assert_eq!((f.plane_valid(0), f.plane_valid(1)), (95, 0));
        // A block lent to a scheme, or worn out, lowers the limit by a block.
        f.reserve_block(0).unwrap();
        assert_eq!((f.host_limit(0), f.host_limit(1)), (88, 96));
        assert!(!f.takes_host(0));
        for lpn in 100..170 {
            f.append_host(1, lpn).unwrap();
        }
        // Plane 1's emptied full blocks are one erase from worn out: collected, they retire.
        for b in 16..32 {
            if f.state[b] == BlockState::Full && f.valid[b] == 0 {
                f.erase[b] = f.params.endurance - 1;
            }
        }
        let mut lpn = 100;
        while f.stats.retired_blocks == 0 {
            f.append_host(1, lpn).unwrap();
            lpn = if lpn == 169 { 100 } else { lpn + 1 };
        }
        let worn = f.stats.retired_blocks;
        assert_eq!((f.host_limit(0), f.host_limit(1)), (88, 96 - 8 * worn));
        // More streams, or a larger reserve, keep more blocks out.
        f.set_streams(2);
        f.set_gc_threshold(3);
        assert_eq!(f.host_limit(0), 72);
        f.check_invariants().unwrap();
    }

    #[test]
    fn wear_leveling_moves_the_first_of_the_least_erased_blocks() {
        let mut f = ftl("greedy");
        f.params.static_wl_threshold = 1;
        // Cold data in plane 0's first two blocks (units 0..16), never erased; hot data
        // rewritten after them until the first migration, due after 64 erases (the wear
        // leveling interval of a device this small).
        for lpn in 0..16 {
            f.append_host(0, lpn).unwrap();
        }
        let cold = [f.lookup(0) / 8, f.lookup(8) / 8].map(|b| b as usize);
        let mut lpn = 16;
        while f.stats.wl_migrations == 0 {
            f.append_host(0, lpn).unwrap();
            lpn = if lpn == 23 { 16 } else { lpn + 1 };
        }
        assert!(f.stats.erases >= 64);
        // Both cold blocks are the least erased full blocks (0 erases): the first one moves.
        assert_eq!([f.erase_count(cold[0]), f.erase_count(cold[1])], [1, 0]);
        assert_eq!(f.stats.wl_units_copied, 8);
        assert_ne!(f.lookup(0) as usize / 8, cold[0]);
        f.check_invariants().unwrap();
    }
}
