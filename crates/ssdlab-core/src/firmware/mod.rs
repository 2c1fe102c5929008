//! Firmware designs: how a controller turns host commands into flash work, beyond the
//! engine's own page-mapped FTL with its write buffer (the design "page", which is
//! `device.rs` itself).
//!
//! A design implements [`Firmware`] and is built on the device's mechanisms: the FTL's map,
//! frontiers, free pools and GC ([`crate::ftl::Ftl`]), plane choice, the flash scheduler
//! (`Device::flash_read`, `Device::flash_program`, `Device::queue_gc_ops`), the host link
//! (`Device::link`, `Device::deliver`) and the controller's CPU (`Device::cpu`,
//! `Device::memcpy`). The device calls it when a command's CPU time has ended
//! ([`Firmware::command`]), when a request's flash parts are all done
//! ([`Firmware::parts_done`]) and when one of the design's own flash operations ends
//! ([`Firmware::op_done`]). One file per design, one line in [`REGISTRY`].

pub mod cosmos_original;
pub mod openssd;
pub mod replacement;
pub mod scheme_one;
pub mod zns;

use crate::device_config::DeviceConfig;
use crate::mechanisms::Mechanisms;
use crate::Result;

/// A firmware design. `Any`: a test (or a tool) can reach a design's own state through
/// `Device::firmware` (`&dyn Firmware` coerces to `&dyn Any`).
pub trait Firmware: Send + std::any::Any {
    fn name(&self) -> &'static str;
    /// Act on host command `pid` (read, write or trim; `Device::pending`) at the device's
    /// current time. The design completes it (`Device::deliver`, `Device::finish_request`)
    /// now or later.
    fn command(&mut self, dev: &mut dyn Mechanisms, pid: u32) -> Result<()>;
    /// Every flash operation queued for request `pid` with `Token::Request` (e.g. by
    /// `Device::read_page`) is done; the last ended at `ready`.
    fn parts_done(&mut self, dev: &mut dyn Mechanisms, pid: u32, ready: u64) -> Result<()>;
    /// A flash operation queued with `Token::Firmware(token)` ended at `time`.
    fn op_done(&mut self, dev: &mut dyn Mechanisms, token: u32, time: u64) -> Result<()>;
    /// The design's own invariants (its buffers and caches against the FTL's map).
    fn check(&self, _dev: &dyn Mechanisms) -> std::result::Result<(), String> {
        Ok(())
    }
    /// The plane logical unit `lpn` is always written to, for a design with static
    /// allocation (preconditioning then places it there too); None: any plane.
    fn home_plane(&self, _geo: &crate::geometry::Geometry, _lpn: u64) -> Option<usize> {
        None
    }
    /// The namespace's zones, for a zoned design (report zones).
    fn zones(&self) -> Option<&crate::zones::Zones> {
        None
    }
    /// The design's counters, cumulative (a run reports their difference over its window).
    fn counters(&self) -> Vec<(&'static str, u64)> {
        Vec::new()
    }
}

/// The error of a zone command (append, zone management) sent to a design without zones.
pub fn no_zones(design: &str) -> crate::Error {
    crate::Error::Invalid(format!(
        "design \"{design}\" has no zones: zone appends and zone management need a zoned design (design = \"zns\")"
    ))
}

/// A design's constructor: the device configuration it runs in.
type Make = fn(&DeviceConfig) -> Result<Box<dyn Firmware>>;

/// Check a configuration for a design: `Err((key under device.ftl, message))`.
type Check = fn(&DeviceConfig) -> std::result::Result<(), (String, String)>;

/// Designs by name ("page" is the engine's own and needs no entry).
pub const REGISTRY: &[(&str, Make, Check)] = &[
    ("cosmos-original", cosmos_original::make, cosmos_original::check),
    ("openssd", openssd::make, openssd::check_config),
    ("scheme-one", scheme_one::make, scheme_one::check),
    ("zns", zns::make, zns::check),
];

/// Names of every design.
pub fn names() -> Vec<&'static str> {
    std::iter::once("page").chain(REGISTRY.iter().map(|r| r.0)).collect()
}

/// Validate `device.ftl.design` and the keys the design reads.
pub fn check(cfg: &DeviceConfig) -> std::result::Result<(), (String, String)> {
    let d = &cfg.ftl.design;
    if cfg.ftl.flush_wait && d != "openssd" {
        return Err((
            "flush_wait".into(),
            format!("got true with design \"{d}\", where it does nothing; expected it only with design \"openssd\""),
        ));
    }
    if cfg.ftl.zones.is_some() && d != "zns" {
        return Err((
            "zones".into(),
            format!("given with design \"{d}\", which has no zones; expected it only with design \"zns\""),
        ));
    }
    if d == "page" {
        return Ok(());
    }
    match REGISTRY.iter().find(|r| r.0 == d) {
        Some(r) => (r.2)(cfg),
        None => Err((
            "design".into(),
            format!("got \"{d}\"; expected one of {}", names().join(", ")),
        )),
    }
}

/// Memory a design allocates besides the FTL, in bytes (an upper bound): per buffer slot and
/// per read-cache unit an entry in its list and in its index (about 64 bytes each).
pub fn memory_estimate(cfg: &DeviceConfig) -> u64 {
    if cfg.ftl.design == "page" {
        return 0;
    }
    let unit = cfg.geometry.mapping_unit.0.max(1);
    let page = cfg.geometry.page_size.0.max(1);
    let slots = cfg.ftl.write_buffer.0 / unit;
    let cache_units = cfg.ftl.read_cache.0 / page;
    slots * 64 + cache_units * (page / unit) * 64 + 4096
}

/// The design a device configuration names (None: the engine's own).
pub fn make(cfg: &DeviceConfig) -> Result<Option<Box<dyn Firmware>>> {
    let d = &cfg.ftl.design;
    if d == "page" {
        return Ok(None);
    }
    match REGISTRY.iter().find(|r| r.0 == d) {
        Some(r) => (r.1)(cfg).map(Some),
        None => Err(crate::Error::Invalid(format!("unknown firmware design '{d}'"))),
    }
}
