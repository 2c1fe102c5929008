//! Data placement: which open **superblock** a host write goes to.
//!
//! With `device.placement.policy = "plane"` (the default) there are no superblocks: every
//! plane keeps its own host frontier per stream and the device spreads pages over the planes
//! (see `device.rs`). Any other policy turns on the FTL's superblocks
//! (`crate::ftl::superblock`): `open_superblocks` write classes (slots), each with one open
//! superblock of a fixed width (chips per channel on every channel), and a GC that collects
//! whole superblocks or single blocks. The policy routes each host write to a slot from what
//! the device sees of it (offset, length, stream id, the host data written so far) and may
//! learn from trims.
//!
//! Adding a policy = one file here implementing [`Placement`] plus one line in [`REGISTRY`].

mod autostream;
mod baseline;
pub mod config;
mod fdp;
mod multi_stream;
mod plan;

use crate::device_config::DeviceConfig;
use crate::geometry::Geometry;
use crate::placement::config::PlacementConfig;

/// What the device knows of a host write when it places it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Write {
    pub offset: u64,
    pub len: u64,
    /// The host's stream id (0: none given).
    pub stream: u32,
    /// Host mapping units written before this write (the device's write clock).
    pub clock: u64,
    /// Simulated time of the write, ns.
    pub now_ns: u64,
}

/// A 4 KiB write at offset 0 on `stream`, at time and clock 0: the tests' write.
#[cfg(test)]
pub(crate) fn write_on(stream: u32) -> Write {
    Write {
        offset: 0,
        len: 4096,
        stream,
        clock: 0,
        now_ns: 0,
    }
}

/// A placement policy: routes host writes to write classes (slots).
pub trait Placement: Send {
    /// The slot (below the layout's slot count) a host write goes to.
    fn route(&mut self, w: &Write) -> usize;
    /// The host trimmed `[offset, offset + len)` when `clock` units had been written.
    fn trim(&mut self, _offset: u64, _len: u64, _clock: u64) {}
    /// The policy's counters, cumulative.
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
    /// The slots the controller's own writes without a placement (preconditioning) take in
    /// turn: slot 0, or with FDP's reclaim groups handle 0 of each group.
    fn unplaced_slots(&self) -> Vec<usize> {
        vec![0]
    }
}

/// The superblocks a policy asks the FTL for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Chips per channel of each slot's superblocks (the geometry's `ways` = full
    /// parallelism: one block on every plane of every chip).
    pub widths: Vec<usize>,
    /// GC collects whole superblocks (true) or the single block with the fewest valid units.
    pub whole: bool,
    /// GC's write classes: 1, or one per host slot when each slot's survivors stay apart
    /// (FDP's persistently isolated handles); a victim's survivors go to its slot's.
    pub gc_slots: usize,
    /// FDP's reclaim groups: the chips of every channel split into this many equal sets
    /// (chips `r·ways/R ..` for group `r`); the host slots, then GC's, are so many per group,
    /// group by group, and a slot's superblocks, GC's included, stay in its group. 1: one
    /// group, every chip.
    pub reclaim_groups: usize,
}

/// A policy's constructor: its configuration, the geometry, the layout's slot widths.
type Make = fn(&PlacementConfig, &Geometry) -> Box<dyn Placement>;

/// (name, description, superblock width of the small slots as a fraction 1/n of the chips
/// per channel (1 = full), GC of whole superblocks, constructor).
pub const REGISTRY: &[(&str, &str, usize, bool, Make)] = &[
    (
        "baseline",
        "one full-parallel superblock, no classification, whole-superblock GC",
        1,
        true,
        baseline::make,
    ),
    (
        "partial-gc",
        "as baseline, GC picks the single block with the fewest valid units",
        1,
        false,
        baseline::make,
    ),
    (
        "multi-stream",
        "the host's stream id chooses the superblock",
        1,
        true,
        multi_stream::make,
    ),
    (
        "fdp",
        "NVMe FDP: a write's placement identifier picks its reclaim unit handle (none or an invalid one: handle 0)",
        1,
        true,
        fdp::make,
    ),
    (
        "autostream",
        "AutoStream SFR: stream from each LBA chunk's sequentiality, frequency, recency",
        1,
        true,
        autostream::make,
    ),
    (
        "plan-nopred-1/4",
        "PLAN: large sequential writes full-parallel, small random ones in 1/4-width superblocks",
        4,
        true,
        plan::make_nopred,
    ),
    (
        "plan-nopred-1/8",
        "PLAN: as plan-nopred-1/4 with 1/8-width small superblocks",
        8,
        true,
        plan::make_nopred,
    ),
    (
        "plan-pred-1/4",
        "PLAN: 1/4-width small superblocks, small writes grouped by predicted lifetime",
        4,
        true,
        plan::make_pred,
    ),
    (
        "plan-pred-1/8",
        "PLAN: as plan-pred-1/4 with 1/8-width small superblocks",
        8,
        true,
        plan::make_pred,
    ),
];

/// Every policy name, "plane" first.
pub fn names() -> Vec<&'static str> {
    std::iter::once("plane").chain(REGISTRY.iter().map(|r| r.0)).collect()
}

/// Host write frontiers a plane may hold open: the superblock slots, or the FTL's streams.
pub fn host_frontiers(cfg: &DeviceConfig) -> u32 {
    if cfg.placement.policy == "plane" {
        cfg.ftl.streams
    } else {
        // A plane is in one reclaim group: its handles' open superblocks only.
        cfg.placement.open_superblocks
    }
}

/// Validate `[device.placement]`: `Err((key, message))`.
pub fn check(cfg: &DeviceConfig) -> std::result::Result<(), (String, String)> {
    let p = &cfg.placement;
    let key = |k: &str| format!("device.placement.{k}");
    // A key set (away from its default) under a policy that never reads it does nothing:
    // an error naming it, not a run that silently ignores it.
    let d = crate::placement::config::PlacementConfig::default();
    let (plane, plan, pred, auto) = (
        p.policy == "plane",
        p.policy.starts_with("plan-"),
        p.policy.starts_with("plan-pred"),
        p.policy == "autostream",
    );
    for (k, set, acts, policies) in [
        (
            "open_superblocks",
            p.open_superblocks != d.open_superblocks,
            !plane,
            "a superblock policy",
        ),
        // Under plan-*, width is refused below with the reason.
        ("width", p.width != d.width, !plane, "a superblock policy"),
        ("large_write", p.large_write != d.large_write, plan, "a plan-* policy"),
        (
            "lifetime_chunk",
            p.lifetime_chunk != d.lifetime_chunk,
            pred,
            "a plan-pred-* policy",
        ),
        (
            "lifetime_bounds",
            p.lifetime_bounds != d.lifetime_bounds,
            pred,
            "a plan-pred-* policy",
        ),
        ("chunk", p.chunk != d.chunk, auto, "autostream"),
        ("isolation", p.isolation != d.isolation, p.policy == "fdp", "fdp"),
        (
            "reclaim_groups",
            p.reclaim_groups != d.reclaim_groups,
            p.policy == "fdp",
            "fdp",
        ),
        ("decay", p.decay != d.decay, auto, "autostream"),
    ] {
        if set && !acts {
            return Err((
                key(k),
                format!(
                    "set under placement policy \"{}\", which does not use it; expected policy = {policies}, or no {k}",
                    p.policy
                ),
            ));
        }
    }
    if plane {
        return Ok(());
    }
    // The FTL's streams are per-plane frontiers of policy "plane"; a superblock policy places
    // every host write in its own open superblocks (`host_frontiers`), so they would do nothing.
    if cfg.ftl.streams > 1 {
        return Err((
            "device.ftl.streams".into(),
            format!(
                "{} host write frontiers per plane set under placement policy \"{}\", whose open superblocks place every write instead; expected streams = 1 (device.placement.open_superblocks for more), or policy = \"plane\"",
                cfg.ftl.streams, p.policy
            ),
        ));
    }
    let Some(r) = REGISTRY.iter().find(|r| r.0 == p.policy) else {
        return Err((
            key("policy"),
            format!("got \"{}\"; expected one of {}", p.policy, names().join(", ")),
        ));
    };
    if cfg.ftl.design != "page" {
        return Err((
            key("policy"),
            format!(
                "superblock placement \"{}\" runs on the engine's own FTL, got design \"{}\"; expected device.ftl.design = \"page\" or policy = \"plane\"",
                p.policy, cfg.ftl.design
            ),
        ));
    }
    let min = if p.policy.starts_with("plan-") { 2 } else { 1 };
    if !(min..=64).contains(&p.open_superblocks) {
        return Err((
            key("open_superblocks"),
            format!("got {}; expected {min} to 64 open superblocks", p.open_superblocks),
        ));
    }
    let ways = cfg.geometry.ways as usize;
    let n = match (p.width.as_str(), p.policy.starts_with("plan-")) {
        ("", _) => r.2,
        (_, true) => {
            return Err((
                key("width"),
                format!(
                "got \"{}\" with \"{}\", whose name gives its width; expected no width with a plan-* policy (plan-*-1/8 for 1/8 superblocks)",
                p.width, p.policy
            ),
            ))
        }
        (w, false) => width_fraction(w).ok_or_else(|| {
            (
                key("width"),
                format!("got \"{w}\"; expected \"1\", \"1/2\", \"1/4\" or \"1/8\" of the chips per channel"),
            )
        })?,
    };
    let groups = p.reclaim_groups as usize;
    if groups == 0 || !ways.is_multiple_of(groups) {
        return Err((
            key("reclaim_groups"),
            format!(
                "got {groups} for {ways} chips per channel; expected a divisor of {ways} (a reclaim group takes an equal share of the chips of every channel)"
            ),
        ));
    }
    if groups * p.open_superblocks as usize > 64 {
        return Err((
            key("reclaim_groups"),
            format!(
                "{groups} groups of {} handles make {} placement handles; expected at most 64",
                p.open_superblocks,
                groups * p.open_superblocks as usize
            ),
        ));
    }
    let group_ways = ways / groups;
    if !group_ways.is_multiple_of(n) {
        let got = if groups > 1 {
            format!("{group_ways} chips per channel in each of the {groups} reclaim groups")
        } else {
            format!("{ways} chips per channel")
        };
        return Err((
            "device.geometry.ways".into(),
            format!(
                "got {got}; expected a multiple of {n} for the 1/{n} superblocks of \"{}\"",
                p.policy
            ),
        ));
    }
    if p.policy == "fdp" {
        let gc_slots = match p.isolation.as_str() {
            "initial" => 1,
            "persistent" => p.open_superblocks,
            other => {
                return Err((
                    key("isolation"),
                    format!("got \"{other}\"; expected \"initial\" or \"persistent\""),
                ))
            }
        };
        if gc_slots > 1 && cfg.ftl.gc_frontier == "shared" {
            return Err((
                key("isolation"),
                "persistent with device.ftl.gc_frontier = \"shared\", which writes every survivor into handle 0's unit; expected gc_frontier = \"separate\" or isolation = \"initial\"".into(),
            ));
        }
        // The reserve: while GC runs, each persistently isolated handle may need a GC
        // destination of its own from the free blocks GC keeps, and one more to spare.
        if gc_slots > 1 && cfg.ftl.gc_threshold < gc_slots + 1 {
            return Err((
                "device.ftl.gc_threshold".into(),
                format!(
                    "{} free blocks per plane cannot hold a GC destination for each of the {gc_slots} persistently isolated handles and a spare; expected at least {}",
                    cfg.ftl.gc_threshold,
                    gc_slots + 1
                ),
            ));
        }
    }
    let unit = cfg.geometry.mapping_unit.0;
    for (k, v) in [
        ("large_write", p.large_write.0),
        ("chunk", p.chunk.0),
        ("lifetime_chunk", p.lifetime_chunk.0),
    ] {
        if v == 0 || !v.is_multiple_of(unit) {
            return Err((
                key(k),
                format!("got {v} bytes; expected a positive multiple of the mapping unit ({unit} bytes)"),
            ));
        }
    }
    if p.decay.0 == 0 {
        return Err((key("decay"), "got 0; expected a positive duration".into()));
    }
    let b = &p.lifetime_bounds;
    if b.iter().any(|x| !(x.is_finite() && *x > 0.0)) || b.windows(2).any(|w| w[0] >= w[1]) {
        return Err((
            key("lifetime_bounds"),
            format!("got {b:?}; expected increasing positive shares of the logical capacity"),
        ));
    }
    if p.policy.starts_with("plan-pred") && b.len() + 2 != p.open_superblocks as usize {
        return Err((
            key("lifetime_bounds"),
            format!(
                "got {} bounds with {} open superblocks; expected {} (one large-write superblock and a small one per lifetime class)",
                b.len(),
                p.open_superblocks,
                p.open_superblocks as usize - 2
            ),
        ));
    }
    Ok(())
}

/// `"1/n"` (or `"1"`) as n, for n of 1, 2, 4 or 8.
fn width_fraction(w: &str) -> Option<usize> {
    match w {
        "1" | "1/1" => Some(1),
        "1/2" => Some(2),
        "1/4" => Some(4),
        "1/8" => Some(8),
        _ => None,
    }
}

/// The placement policy of a device and the superblocks it needs (None: per-plane frontiers).
pub fn make(cfg: &DeviceConfig, geo: &Geometry) -> Option<(Box<dyn Placement>, Layout)> {
    let p = &cfg.placement;
    let r = REGISTRY.iter().find(|r| r.0 == p.policy)?;
    let groups = p.reclaim_groups as usize;
    // FDP: each handle has a slot in every reclaim group, group by group.
    let slots = p.open_superblocks as usize * groups;
    let widths = match width_fraction(&p.width) {
        // Every host slot at the chosen width (of its reclaim group's chips).
        Some(n) => vec![geo.ways / groups / n; slots],
        // PLAN: slot 0 takes large sequential writes at full width, the others are small.
        None => (0..slots)
            .map(|s| {
                if s == 0 || r.2 == 1 {
                    geo.ways / groups
                } else {
                    geo.ways / r.2
                }
            })
            .collect(),
    };
    // GC's: one per reclaim group, or one per handle in each.
    let gc_slots = if p.policy == "fdp" && p.isolation == "persistent" {
        slots
    } else {
        groups
    };
    Some((
        (r.4)(p, geo),
        Layout {
            widths,
            whole: r.3,
            gc_slots,
            reclaim_groups: groups,
        },
    ))
}

/// Memory a policy allocates, in bytes: AutoStream's chunk table (16 bytes a chunk) and
/// PLAN-Pred's lifetime table (9 bytes a chunk).
pub fn memory_estimate(cfg: &DeviceConfig, geo: &Geometry) -> u64 {
    let p = &cfg.placement;
    let cap = geo.logical_bytes();
    match p.policy.as_str() {
        "autostream" => cap.div_ceil(p.chunk.0.max(1)) * 16,
        s if s.starts_with("plan-pred") => cap.div_ceil(p.lifetime_chunk.0.max(1)) * 9,
        _ => 0,
    }
}
