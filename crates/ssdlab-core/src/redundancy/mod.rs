//! Redundancy against read/write interference (seed 004): schemes that serve a host read
//! somewhere other than the chip holding its data when that chip is busy with a program or
//! an erase. One file per scheme, registered in [`REGISTRY`]:
//!
//! - `hotr` (`hotr.rs`): hot-read replication into a scratch space on dedicated spare chips,
//!   an R-LRU per chip deciding what is copied;
//! - `rails` (`rails.rs`): every chip mirrored, reads on one half and writes on the other,
//!   the roles swapping periodically;
//! - `ttflash` (`ttflash.rs`): parity across chips, a read to a busy chip rebuilt from the
//!   other chips of its stripe.
//!
//! The mechanism shared by all of them lives here and in the device: the geometry a scheme
//! adds (more channels of chips for mirrors or parity; extra scheduler units for spare chips),
//! the host capacity it leaves, the chips of a plane and the planes of a chip, the one
//! question the flash scheduler answers for all of them ([`crate::scheduler::Scheduler::conflicts`]:
//! is this unit busy with, or holding, a program or an erase), and the device calls a scheme
//! makes: a flash read or program of an FTL logical unit on a chosen set of planes, an
//! operation on a raw unit, a request part done (`Device::scheme_read`, `scheme_program`,
//! `unit_op`, `part_done`). Flash operations a scheme issues report to it
//! ([`crate::mechanisms::Token::Scheme`]).
//!
//! Conflicts are counted the same way for every scheme (and for none): a host read's *home*
//! is the chip its data has without redundancy (HotR and TTFlash: where the FTL maps it;
//! Rails: the primary copy). A read whose home unit conflicts is a home conflict; it is
//! avoided when it was served without touching a conflicting unit (from a copy, a rebuild
//! or the cache).

pub mod config;
mod hotr;
mod rails;
mod ttflash;

use crate::device_config::DeviceConfig;
use crate::geometry::Geometry;
use crate::mechanisms::Mechanisms;
use crate::Result;
pub use config::RedundancyConfig;

/// What a scheme does with the device. Every call gets the device (the scheme is out of it
/// meanwhile), so that it issues its flash operations through the device's mechanisms.
pub trait Scheme: Send {
    fn name(&self) -> &'static str;
    /// Serve host unit `lpn` (a host logical unit; one unit per page) of read `pid`: issue
    /// flash reads as parts of `pid` (`Device::scheme_read`), or nothing when the data is in
    /// the controller.
    fn read(&mut self, dev: &mut dyn Mechanisms, pid: u32, lpn: u64) -> Result<()>;
    /// Place host units `first..=last` of write `pid` (write-through), data in the
    /// controller at `ready`. Returns false to let the device place them its own way.
    fn write(&mut self, dev: &mut dyn Mechanisms, pid: u32, first: u64, last: u64, ready: u64) -> Result<bool>;
    /// Host units `first..end` were trimmed (the device has unmapped them).
    fn trim(&mut self, dev: &mut dyn Mechanisms, first: u64, end: u64);
    /// Read request `pid` has all its data in the controller at `time`.
    fn read_done(&mut self, _dev: &mut dyn Mechanisms, _pid: u32, _time: u64) -> Result<()> {
        Ok(())
    }
    /// A flash operation issued with [`crate::mechanisms::Token::Scheme`]`(token)` ended.
    fn op_done(&mut self, dev: &mut dyn Mechanisms, token: u32, time: u64) -> Result<()>;
    /// A request arrives now (time-driven work, such as a role swap, happens here).
    fn tick(&mut self, _dev: &mut dyn Mechanisms) -> Result<()> {
        Ok(())
    }
    /// The plane FTL logical unit `lpn` must live on during preconditioning, if fixed.
    fn home_plane(&self, _geo: &Geometry, _lpn: u64) -> Option<usize> {
        None
    }
    /// The FTL logical units that hold host unit `lpn` (itself, copies, parity completed
    /// by it), for preconditioning.
    fn fill(&self, lpn: u64, out: &mut dyn FnMut(u64));
    /// Counters (monotonic), in a fixed order.
    fn counters(&self) -> Vec<(&'static str, u64)>;
    /// Free blocks each plane of the FTL lends the scheme for good (HotR's scratch space in
    /// over-provisioning).
    fn reserve_per_plane(&self) -> usize {
        0
    }
    /// Flash the scheme needs per unit of flash without it, for the same host capacity (or
    /// the over-provisioning it takes, as a share of the host capacity, plus 1).
    fn space_cost(&self) -> f64;
    /// The scheme's own invariants against the device.
    fn check(&self, dev: &dyn Mechanisms) -> std::result::Result<(), String>;
    /// Keep a version per host unit from now on, and count every read served from a copy
    /// that is not the latest version (`stale_reads`).
    fn track_versions(&mut self, units: u64);
}

type Ctor = fn(&DeviceConfig, &Geometry, usize) -> Box<dyn Scheme>;

/// (name, description, constructor).
pub const REGISTRY: &[(&str, &str, Ctor)] = &[
    (
        "hotr",
        "hot-read replication into a scratch space on spare chips, chosen by a per-chip R-LRU",
        hotr::make,
    ),
    (
        "rails",
        "mirrored chips; reads on one half, writes on the other, roles swapping periodically",
        rails::make,
    ),
    (
        "ttflash",
        "parity across chips (RAID 5); a read to a busy chip rebuilt from its stripe",
        ttflash::make,
    ),
];

pub fn names() -> Vec<&'static str> {
    std::iter::once("none").chain(REGISTRY.iter().map(|r| r.0)).collect()
}

/// Channels of chips a scheme adds to the configured geometry (whose chips hold the host
/// data): a mirror for every chip (rails), a parity chip per `stripe` (ttflash). The result
/// is only meaningful for a configuration [`check`] accepts.
pub fn extra_channels(cfg: &DeviceConfig) -> u32 {
    let ch = cfg.geometry.channels;
    match cfg.redundancy.scheme() {
        "rails" => ch,
        "ttflash" => ch / cfg.redundancy.stripe().max(1),
        _ => 0,
    }
}

/// The host capacity, in units, of an FTL that maps `mapped` logical units (host data plus
/// the scheme's own: mirror copies, parity).
pub fn host_units(cfg: &DeviceConfig, mapped: u64) -> u64 {
    match cfg.redundancy.scheme() {
        "rails" => mapped / 2,
        "ttflash" => ttflash::host_units(mapped, cfg.redundancy.stripe().max(1) as u64),
        _ => mapped,
    }
}

/// The geometry of device `cfg` (`file` names it in errors): `[device.geometry]` with the
/// scheme's mirror or parity chips as more channels of the same chips, and the host's share of
/// the mapped units.
pub fn geometry_of(cfg: &DeviceConfig, file: &str) -> Result<Geometry> {
    let mut geo = Geometry::new(
        &cfg.geometry,
        extra_channels(cfg),
        |mapped| host_units(cfg, mapped),
        file,
    )?;
    // A zoned namespace's address space is its zones' (count × zone size), whatever the
    // flash holds: the zones' layout places their capacity on the flash (`firmware::zns`).
    if let (Some(z), "zns") = (&cfg.ftl.zones, cfg.ftl.design.as_str()) {
        let units = z.count as u64 * z.size.0 / geo.unit_size;
        if units > crate::geometry::MAX_UNITS {
            return Err(crate::Error::config(
                file,
                "device.ftl.zones.size",
                format!("{units} mapping units of address space do not fit 32-bit numbers; expected a larger mapping_unit or fewer zones"),
            ));
        }
        geo.logical_units = units;
        geo.host_units = units;
    }
    if geo.host_units == 0 {
        return Err(crate::Error::config(
            file,
            "device.redundancy.scheme",
            "leaves no host capacity; expected a larger device",
        ));
    }
    // HotR's scratch blocks added to every plane: the same host and logical capacity (so the
    // same over-provisioning for the GC), more blocks.
    if cfg.redundancy.scheme() == "hotr" && cfg.redundancy.scratch_added() {
        // The share sizes the blocks added: out of range, it is the key to name, not the
        // geometry it would make.
        let v = cfg.redundancy.scratch_share();
        if !(v > 0.0 && v <= 1.0) {
            return Err(crate::Error::config(
                file,
                "device.redundancy.scratch_share",
                format!("got {v}; expected a share above 0 and at most 1"),
            ));
        }
        let added = hotr::reserved_per_plane(cfg, &geo);
        let mut g = cfg.geometry.clone();
        g.blocks_per_plane = g.blocks_per_plane.saturating_add(added as u32);
        let mut more = Geometry::new(&g, extra_channels(cfg), |mapped| host_units(cfg, mapped), file)?;
        more.logical_units = geo.logical_units;
        more.host_units = geo.host_units;
        return Ok(more);
    }
    Ok(geo)
}

/// Check `[device.redundancy]` against the rest of the device: (key, message).
pub fn check(cfg: &DeviceConfig) -> std::result::Result<(), (String, String)> {
    let r = &cfg.redundancy;
    let key = |k: &str| format!("device.redundancy.{k}");
    let scheme = r.scheme();
    if scheme != "none" && !REGISTRY.iter().any(|x| x.0 == scheme) {
        return Err((
            key("scheme"),
            format!("got \"{scheme}\"; expected one of {}", names().join(", ")),
        ));
    }
    // Keys of another scheme than the one chosen.
    for (k, set, owner) in [
        ("hot_share", r.hot_share.is_some(), "hotr"),
        ("track_share", r.track_share.is_some(), "hotr"),
        ("scratch_cell", r.scratch_cell.is_some(), "hotr"),
        ("scratch_blocks", r.scratch_blocks.is_some(), "hotr"),
        ("spare_chips", r.spare_chips.is_some(), "hotr"),
        ("migrate", r.migrate.is_some(), "hotr"),
        ("scratch", r.scratch.is_some(), "hotr"),
        ("scratch_share", r.scratch_share.is_some(), "hotr"),
        ("op_copies", r.op_copies.is_some(), "hotr"),
        ("period", r.period.is_some(), "rails"),
        ("ack", r.ack.is_some(), "rails"),
        ("stripe", r.stripe.is_some(), "ttflash"),
    ] {
        if set && scheme != owner {
            return Err((
                key(k),
                format!(
                    "is a key of scheme \"{owner}\", got scheme \"{scheme}\"; expected scheme = \"{owner}\" or no {k}"
                ),
            ));
        }
    }
    if scheme == "none" {
        return Ok(());
    }
    if cfg.ftl.design != "page" {
        return Err((
            key("scheme"),
            format!(
                "\"{scheme}\" runs on the engine's own FTL, got design \"{}\"; expected device.ftl.design = \"page\"",
                cfg.ftl.design
            ),
        ));
    }
    if cfg.placement.policy != "plane" {
        return Err((
            key("scheme"),
            format!(
                "\"{scheme}\" places data per chip, got superblock placement \"{}\"; expected device.placement.policy = \"plane\"",
                cfg.placement.policy
            ),
        ));
    }
    if cfg.geometry.mapping_unit.0 != cfg.geometry.page_size.0 {
        return Err((
            key("scheme"),
            format!(
                "\"{scheme}\" works on whole pages, got a {} B mapping unit in {} B pages; expected device.geometry.mapping_unit = page_size",
                cfg.geometry.mapping_unit.0, cfg.geometry.page_size.0
            ),
        ));
    }
    if scheme != "hotr" && cfg.ftl.write_buffer.0 > 0 {
        return Err((
            key("scheme"),
            format!("\"{scheme}\" places each copy itself; expected device.ftl.write_buffer = 0 (write-through)"),
        ));
    }
    match scheme {
        "hotr" => {
            for (k, h) in [("hot_share", r.hot_share()), ("track_share", r.track_share())] {
                if !(h > 0.0 && h <= 1.0) {
                    return Err((key(k), format!("got {h}; expected a share above 0 and at most 1")));
                }
            }
            if let Some(m) = r.scratch_cell.as_deref().filter(|m| !matches!(*m, "data" | "slc")) {
                return Err((
                    key("scratch_cell"),
                    format!("got \"{m}\"; expected \"data\" or \"slc\""),
                ));
            }
            if let Some(m) = r.migrate.as_deref().filter(|m| !matches!(*m, "hit" | "conflict")) {
                return Err((key("migrate"), format!("got \"{m}\"; expected \"hit\" or \"conflict\"")));
            }
            if let Some(m) = r.scratch.as_deref().filter(|m| !matches!(*m, "chips" | "op")) {
                return Err((key("scratch"), format!("got \"{m}\"; expected \"chips\" or \"op\"")));
            }
            if let Some(m) = r.op_copies.as_deref() {
                if !matches!(m, "payoff" | "idle") {
                    return Err((
                        key("op_copies"),
                        format!("got \"{m}\"; expected \"payoff\" or \"idle\""),
                    ));
                }
                if !r.scratch_in_op() {
                    return Err((
                        key("op_copies"),
                        "set with the scratch space on spare chips (a copy there costs the data chips nothing); expected scratch = \"op\" or no op_copies"
                            .into(),
                    ));
                }
            }
            if r.scratch_in_op() {
                if r.scratch_cell.is_some() {
                    return Err((
                        key("scratch_cell"),
                        "set with scratch = \"op\" (the lent blocks are data blocks); expected scratch = \"chips\" or no scratch_cell"
                            .into(),
                    ));
                }
                if r.spare_chips.is_some() {
                    return Err((
                        key("spare_chips"),
                        "set with scratch = \"op\" (no spare chips); expected scratch = \"chips\" or no spare_chips"
                            .into(),
                    ));
                }
                if let Some(m) = r.scratch_blocks.as_deref().filter(|m| !matches!(*m, "added" | "spare")) {
                    return Err((
                        key("scratch_blocks"),
                        format!("got \"{m}\"; expected \"added\" or \"spare\""),
                    ));
                }
                let v = r.scratch_share();
                if !(v > 0.0 && v <= 1.0) {
                    return Err((
                        key("scratch_share"),
                        format!("got {v}; expected a share above 0 and at most 1"),
                    ));
                }
                if chips_of(cfg) < 2 {
                    return Err((
                        key("scratch"),
                        "\"op\" copies a page to another chip, got one chip; expected at least 2 chips or scratch = \"chips\"".into(),
                    ));
                }
            } else {
                for (k, set) in [
                    ("scratch_share", r.scratch_share.is_some()),
                    ("scratch_blocks", r.scratch_blocks.is_some()),
                ] {
                    if set {
                        return Err((
                            key(k),
                            format!("set with the scratch space on spare chips; expected scratch = \"op\" or no {k}"),
                        ));
                    }
                }
            }
            if !(1..=64).contains(&r.spare_chips()) {
                return Err((
                    key("spare_chips"),
                    format!("got {}; expected 1 to 64 spare chips", r.spare_chips()),
                ));
            }
        }
        "rails" => {
            if let Some(a) = r.ack.as_deref().filter(|a| !matches!(*a, "cache" | "flash")) {
                return Err((key("ack"), format!("got \"{a}\"; expected \"cache\" or \"flash\"")));
            }
            if r.period_ns() < 1_000 {
                return Err((
                    key("period"),
                    format!("got {} ns; expected at least 1us between role swaps", r.period_ns()),
                ));
            }
        }
        "ttflash" => {
            let k = r.stripe();
            if !(2..=16).contains(&k) {
                return Err((
                    key("stripe"),
                    format!("got {k}; expected 2 to 16 data chips per parity chip"),
                ));
            }
            if !cfg.geometry.channels.is_multiple_of(k) {
                return Err((
                    key("stripe"),
                    format!(
                        "{} channels do not split into stripes of {k} data chips; expected device.geometry.channels to be a multiple of {k}",
                        cfg.geometry.channels
                    ),
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// The scheme of `cfg`, for a device whose FTL geometry is `geo` (already expanded) and whose
/// scheduler has `units` units before any the scheme adds.
pub fn make(cfg: &DeviceConfig, geo: &Geometry, units: usize) -> Option<Box<dyn Scheme>> {
    let s = cfg.redundancy.scheme();
    REGISTRY.iter().find(|r| r.0 == s).map(|r| (r.2)(cfg, geo, units))
}

/// Scheduler units (and channels) a scheme adds outside the FTL's geometry: HotR's spare
/// chips, one channel each.
pub fn extra_units(cfg: &DeviceConfig) -> (usize, usize) {
    if cfg.redundancy.scheme() != "hotr" || cfg.redundancy.scratch_in_op() {
        return (0, 0);
    }
    let chips = cfg.redundancy.spare_chips() as usize;
    let per_chip = cfg.geometry.dies_per_chip as usize
        * if cfg.nand.plane_parallel {
            cfg.geometry.planes_per_die as usize
        } else {
            1
        };
    (chips * per_chip, chips)
}

/// Bytes a scheme keeps besides the FTL (R-LRU entries, scratch owners, pending bitmaps).
pub fn memory_estimate(cfg: &DeviceConfig, geo: &Geometry) -> u64 {
    match cfg.redundancy.scheme() {
        "hotr" => hotr::memory_estimate(cfg, geo),
        // Two stale bitmaps and two counts of programs under way per host unit.
        "rails" => geo.host_units.div_ceil(64) * 8 * 2 + geo.host_units * 2 * 2,
        _ => 0,
    }
}

/// Blocks each plane lends to the scheme (see [`Scheme::reserve_per_plane`]).
pub fn reserved_per_plane(cfg: &DeviceConfig, geo: &Geometry) -> usize {
    match cfg.redundancy.scheme() {
        "hotr" => hotr::reserved_per_plane(cfg, geo),
        _ => 0,
    }
}

/// Chips of the configured geometry.
fn chips_of(cfg: &DeviceConfig) -> u32 {
    cfg.geometry.channels * cfg.geometry.ways
}

/// Chips of the FTL's geometry: (channel, way) pairs; chip `c` is on channel `c % channels`.
#[inline]
pub fn chips(geo: &Geometry) -> usize {
    geo.channels * geo.ways
}

/// The chip of a plane.
#[inline]
pub fn chip_of_plane(geo: &Geometry, plane: usize) -> usize {
    geo.die_of_plane(plane) % chips(geo)
}

/// The planes of chip `c`.
pub fn planes_of_chip(geo: &Geometry, c: usize) -> impl Iterator<Item = usize> {
    let n = chips(geo);
    (0..geo.dies_per_chip * geo.planes_per_die).map(move |k| c + k * n)
}

/// Counters every scheme keeps about where host reads went.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadCounters {
    /// Host units read.
    pub reads: u64,
    /// Reads whose home unit was busy with, or held, a program or an erase.
    pub home_conflicts: u64,
    /// Reads served elsewhere than their home (a copy, a rebuild, the cache).
    pub redirected: u64,
    /// Home conflicts served without touching a conflicting unit.
    pub avoided: u64,
    /// Reads served from a copy that was not the latest version (tracked only when versions
    /// are, see [`Scheme::track_versions`]; always 0 in a correct scheme).
    pub stale_reads: u64,
}

impl ReadCounters {
    /// Host unit `lpn`'s physical unit, counting the read (and, when it was never written,
    /// the device's unmapped read).
    pub fn mapped(&mut self, dev: &mut dyn Mechanisms, lpn: u64) -> Option<u32> {
        self.reads += 1;
        let pun = dev.ftl().lookup(lpn);
        if pun == crate::ftl::NONE {
            dev.counters_mut().unmapped_read_units += 1;
            return None;
        }
        Some(pun)
    }

    /// These counters, then a scheme's own.
    pub fn with(&self, own: &[(&'static str, u64)]) -> Vec<(&'static str, u64)> {
        let mut v = self.list().to_vec();
        v.extend_from_slice(own);
        v
    }

    pub fn list(&self) -> [(&'static str, u64); 5] {
        [
            ("reads", self.reads),
            ("home_conflicts", self.home_conflicts),
            ("redirected_reads", self.redirected),
            ("conflicts_avoided", self.avoided),
            ("stale_reads", self.stale_reads),
        ]
    }
}

/// A version per host unit, when tracked (tests): bumped by every write.
#[derive(Clone, Debug, Default)]
pub struct Versions(Option<Vec<u32>>);

impl Versions {
    pub fn track(&mut self, units: u64) {
        self.0 = Some(vec![0; units as usize]);
    }
    #[inline]
    pub fn bump(&mut self, lpn: u64) {
        if let Some(v) = self.0.as_mut() {
            v[lpn as usize] = v[lpn as usize].wrapping_add(1);
        }
    }
    /// The current version (0 when untracked).
    #[inline]
    pub fn get(&self, lpn: u64) -> u32 {
        self.0.as_ref().map_or(0, |v| v[lpn as usize])
    }
    /// A copy of `lpn` at version `had` is served: true when that is stale.
    #[inline]
    pub fn stale(&self, lpn: u64, had: u32) -> bool {
        self.0.as_ref().is_some_and(|v| v[lpn as usize] != had)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::parse_config;
    use std::path::Path;

    fn err(body: &str) -> String {
        let text = format!("[device]\npreset = \"hotr\"\n{body}\n");
        match parse_config(&text, "r.toml", Path::new(".")) {
            Ok(_) => panic!("accepted: {body}"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn bad_redundancy_keys_are_named() {
        for (body, key, want) in [
            (
                "[device.redundancy]\nscheme = \"raid6\"",
                "device.redundancy.scheme",
                "expected one of none, hotr, rails, ttflash",
            ),
            (
                "[device.redundancy]\nscheme = \"rails\"\nhot_share = 0.2",
                "device.redundancy.hot_share",
                "is a key of scheme \"hotr\"",
            ),
            (
                "[device.redundancy]\nperiod = \"1ms\"",
                "device.redundancy.period",
                "got scheme \"none\"",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nhot_share = 0",
                "device.redundancy.hot_share",
                "above 0",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nspare_chips = 0",
                "device.redundancy.spare_chips",
                "1 to 64",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nmigrate = \"always\"",
                "device.redundancy.migrate",
                "\"hit\" or \"conflict\"",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nscratch = \"op\"\nop_copies = \"always\"",
                "device.redundancy.op_copies",
                "\"payoff\" or \"idle\"",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nop_copies = \"idle\"",
                "device.redundancy.op_copies",
                "expected scratch = \"op\"",
            ),
            (
                "[device.redundancy]\nscheme = \"rails\"\nop_copies = \"idle\"",
                "device.redundancy.op_copies",
                "got scheme \"rails\"",
            ),
            (
                "[device.redundancy]\nscheme = \"rails\"\nperiod = \"10ns\"",
                "device.redundancy.period",
                "at least 1us",
            ),
            (
                "[device.redundancy]\nscheme = \"rails\"\nack = \"disk\"",
                "device.redundancy.ack",
                "\"cache\" or \"flash\"",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nscratch = \"dram\"",
                "device.redundancy.scratch",
                "\"chips\" or \"op\"",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nscratch = \"op\"\nspare_chips = 2",
                "device.redundancy.spare_chips",
                "no spare chips",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nscratch_share = 0.1",
                "device.redundancy.scratch_share",
                "scratch = \"op\"",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nscratch = \"op\"\nscratch_share = 2",
                "device.redundancy.scratch_share",
                "at most 1",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nscratch = \"op\"\n[device.geometry]\nchannels = 1",
                "device.redundancy.scratch",
                "at least 2 chips",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nscratch = \"op\"\nscratch_blocks = \"spare\"\nscratch_share = 0.15",
                "device.redundancy.scratch_share",
                "after 268 lent to the scratch space",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\ntrack_share = 1.5",
                "device.redundancy.track_share",
                "at most 1",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nscratch_cell = \"mlc\"",
                "device.redundancy.scratch_cell",
                "\"data\" or \"slc\"",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nscratch = \"op\"\nscratch_cell = \"slc\"",
                "device.redundancy.scratch_cell",
                "the lent blocks are data blocks",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nscratch = \"op\"\nscratch_blocks = \"borrowed\"",
                "device.redundancy.scratch_blocks",
                "\"added\" or \"spare\"",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nscratch_blocks = \"added\"",
                "device.redundancy.scratch_blocks",
                "scratch = \"op\"",
            ),
            (
                "[device.redundancy]\nscheme = \"rails\"\ntrack_share = 0.2",
                "device.redundancy.track_share",
                "is a key of scheme \"hotr\"",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\nack = \"flash\"",
                "device.redundancy.ack",
                "is a key of scheme \"rails\"",
            ),
            (
                "[device.redundancy]\nscheme = \"ttflash\"\nstripe = 3",
                "device.redundancy.stripe",
                "multiple of 3",
            ),
            (
                "[device.redundancy]\nscheme = \"ttflash\"\nstripe = 1",
                "device.redundancy.stripe",
                "2 to 16",
            ),
            (
                "[device.redundancy]\nscheme = \"rails\"\n[device.ftl]\nwrite_buffer = \"1MiB\"",
                "device.redundancy.scheme",
                "write-through",
            ),
            (
                "[device.redundancy]\nscheme = \"hotr\"\n[device.geometry]\npage_size = \"16KiB\"",
                "device.redundancy.scheme",
                "mapping_unit = page_size",
            ),
            (
                "[device.redundancy]\nscheme = \"ttflash\"\n[device.placement]\npolicy = \"baseline\"",
                "device.redundancy.scheme",
                "policy = \"plane\"",
            ),
            (
                "[device.redundancy]\nscheme = \"rails\"\n[precondition]\nmode = \"steady\"",
                "precondition.mode",
                "\"sequential\" or \"none\"",
            ),
            (
                "[device.redundancy]\nschema = \"rails\"",
                "device.redundancy.schema",
                "unknown key",
            ),
        ] {
            let e = err(body);
            assert!(e.contains(key) && e.contains(want), "{body}: {e}");
            assert!(e.starts_with("r.toml:"), "{e}");
        }
    }

    #[test]
    fn schemes_add_their_chips_and_keep_the_host_capacity() {
        let geo = |body: &str| {
            let text = format!("[device]\npreset = \"hotr\"\n{body}\n");
            let c = parse_config(&text, "r.toml", Path::new(".")).unwrap();
            crate::redundancy::geometry_of(&c.device, "r.toml").unwrap()
        };
        let base = geo("");
        for (scheme, channels) in [("hotr", 8), ("rails", 16), ("ttflash", 10)] {
            let g = geo(&format!("[device.redundancy]\nscheme = \"{scheme}\""));
            assert_eq!(g.channels, channels, "{scheme}");
            // Within a stripe (4 units) of the baseline's capacity.
            assert!(
                g.host_units <= base.host_units + 4 && g.host_units + 4 >= base.host_units,
                "{scheme}"
            );
            assert!(
                g.logical_units >= g.host_units * if scheme == "rails" { 2 } else { 1 },
                "{scheme}"
            );
        }
        assert_eq!(super::ttflash::host_units(10, 4), 8);
        assert_eq!(super::ttflash::host_units(14, 4), 8);
    }
}
