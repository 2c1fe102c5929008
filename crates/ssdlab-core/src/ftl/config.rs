//! The `[device.ftl]` section: allocation, GC, wear leveling, write buffer, streams, the
//! firmware design and its caches, compression. Read by the FTL, the device and the designs.

use crate::units::{Duration, Size};
use serde::{Deserialize, Serialize};

/// Most host write frontiers per plane (`device.ftl.streams`).
pub const MAX_STREAMS: u32 = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Allocation {
    RoundRobin,
    LeastBusy,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    #[serde(default = "default_alloc")]
    pub allocation: Allocation,
    /// Least-busy allocation: how many pages a plane may get ahead of the plane that received
    /// the fewest (default: a quarter of a block); keeps the long-run spread of writes even
    /// (and so write amplification as with round robin) while short-term choices avoid busy
    /// planes.
    #[serde(default)]
    pub allocation_slack: Option<u32>,
    /// Victim policy: greedy, fifo, random, cost-benefit, d-choices.
    #[serde(default = "default_gc")]
    pub gc_policy: String,
    /// Sample size of the d-choices policy.
    #[serde(default = "default_d")]
    pub gc_d: u32,
    /// Foreground GC runs while a plane has fewer free blocks than this.
    #[serde(default = "default_gc_threshold")]
    pub gc_threshold: u32,
    /// Where GC survivors are written: "separate" (a GC frontier per plane, the default) or
    /// "shared" (appended at the host write frontier, as the analytic WAF models assume and
    /// FEMU does, collecting in FEMU's order: the host's new block is taken first, then GC
    /// copies into it until the plane has its reserve again).
    #[serde(default = "default_frontier")]
    pub gc_frontier: String,
    /// Background GC runs on an idle plane with fewer free blocks than this (0 = off).
    #[serde(default)]
    pub bg_gc_threshold: u32,
    /// How long a plane must be idle before background GC starts.
    #[serde(default = "default_bg_idle")]
    pub bg_gc_idle: Duration,
    /// When background GC runs: "idle" (on a plane idle for `bg_gc_idle`, a page step at a
    /// time; the default) or "after-request" (FEMU's: after each request, one whole
    /// collection if a plane has fewer than `bg_gc_threshold` free blocks and the victim is
    /// at least `bg_gc_min_invalid` invalid; `crate::ftl::after_request`).
    #[serde(default, skip_serializing_if = "BgGc::is_idle")]
    pub bg_gc: BgGc,
    /// "after-request" background GC: the least share of the victim's units that must be
    /// invalid for it to be collected (FEMU: 1/8); 0 = any victim with an invalid unit.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bg_gc_min_invalid: f64,
    /// Static wear leveling: migrate cold data when max − min erase count exceeds this (0 = off).
    #[serde(default)]
    pub static_wl_threshold: u32,
    /// DRAM write buffer (0 = write-through: a write completes when programmed).
    #[serde(default)]
    pub write_buffer: Size,
    /// The write buffer survives a power loss (capacitors flush it): a write is acknowledged
    /// once its data is in the buffer, and the old data of its partial mapping units is read
    /// before their page is programmed, not before the acknowledgement. Without it (the
    /// default) a write with partial units completes only after their old data is read.
    /// The engine's "page" design only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub power_loss_protection: bool,
    /// Host write frontiers per plane: a write of stream id `s` (the job's `stream`, or the
    /// one a source gives its requests) fills blocks of frontier `s mod streams`, so streams
    /// never share a block. 1: every write shares one frontier.
    #[serde(default = "one")]
    pub streams: u32,
    /// Firmware design (`crate::firmware::REGISTRY`): "page" (the engine's page-mapped FTL
    /// with its write buffer, the default), "cosmos-original", "openssd", "scheme-one".
    #[serde(default = "default_design")]
    pub design: String,
    /// Read cache of the designs that keep one (page-sized units; 0 = none).
    #[serde(default)]
    pub read_cache: Size,
    /// Designs with a read cache: on a read, how many logical units on each side of it to
    /// prefetch when their page sits on an idle channel (0 = no prefetch).
    #[serde(default)]
    pub prefetch: u32,
    /// Write-buffer replacement of the designs that choose one: "lru", "cflru", "bplru".
    #[serde(default = "default_buffer_policy")]
    pub buffer_policy: String,
    /// When one plane needs foreground GC, every plane with a candidate collects one block
    /// at the same time (seed 002's parallel GC).
    #[serde(default)]
    pub parallel_gc: bool,
    /// The `openssd` design: a write that starts a proactive flush completes only once the
    /// flush's pages are programmed (the firmware's one CPU waits for the write-back it
    /// triggers), instead of when its data is in the buffer.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flush_wait: bool,
    /// Inline compression of host writes (`crate::compression`): flash bytes per host byte,
    /// above 0 and at most 1 (1: off).
    #[serde(default = "one_f")]
    pub compression: f64,
    /// A zoned namespace (`[device.ftl.zones]`, design "zns"): its zones and their limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zones: Option<ZoneConfig>,
}

/// `[device.ftl.zones]`: the zoned namespace of design "zns" (NVMe ZNS, `crate::zones`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ZoneConfig {
    /// Number of zones; the namespace's address space is `count × size`.
    pub count: u32,
    /// Zone size: the LBA distance from one zone's start to the next.
    pub size: Size,
    /// Zone capacity: the writable part of each zone, from its start (at most `size`).
    pub capacity: Size,
    /// The logical block (LBA) size.
    #[serde(default = "lba_4k")]
    pub lba: Size,
    /// Most open zones (implicitly or explicitly; 0: no limit).
    #[serde(default)]
    pub max_open: u32,
    /// Most active zones (open or closed; 0: no limit). At least `max_open` when both are set.
    #[serde(default)]
    pub max_active: u32,
    /// Firmware time of a reset that empties a zone (its state persisted), beside the time
    /// per LBA the zone held (`reset_lba_time`).
    #[serde(default)]
    pub reset_time: Duration,
    /// Firmware time per LBA the reset zone held (its mapping entries released).
    #[serde(default)]
    pub reset_lba_time: Duration,
    /// Firmware time a zone append takes beside a write's command time (the LBA chosen and
    /// returned with the completion).
    #[serde(default)]
    pub append_time: Duration,
    /// Firmware time a write or append takes beside its own when it opens its zone (an empty
    /// or closed zone opened implicitly).
    #[serde(default)]
    pub open_time: Duration,
}

fn lba_4k() -> Size {
    Size(4096)
}

/// When background GC runs (`device.ftl.bg_gc`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BgGc {
    #[default]
    Idle,
    AfterRequest,
}

impl BgGc {
    fn is_idle(&self) -> bool {
        *self == BgGc::Idle
    }
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

fn default_design() -> String {
    "page".into()
}

fn default_buffer_policy() -> String {
    "lru".into()
}

impl FtlConfig {
    /// The free blocks an idle drive keeps by background GC: `bg_gc_threshold` when it runs
    /// on idle planes, else 0 (after requests it needs requests, and its threshold is a
    /// target the spare blocks need not hold: preconditioning and the reserve ignore it).
    pub fn idle_bg_threshold(&self) -> u32 {
        match self.bg_gc {
            BgGc::Idle => self.bg_gc_threshold,
            BgGc::AfterRequest => 0,
        }
    }
}

impl Default for FtlConfig {
    fn default() -> Self {
        crate::defaults::from_no_keys()
    }
}

fn one() -> u32 {
    1
}

fn one_f() -> f64 {
    1.0
}

fn default_alloc() -> Allocation {
    Allocation::LeastBusy
}

fn default_gc() -> String {
    "greedy".into()
}

fn default_frontier() -> String {
    "separate".into()
}

fn default_d() -> u32 {
    8
}

fn default_gc_threshold() -> u32 {
    3
}

fn default_bg_idle() -> Duration {
    Duration(1_000_000)
}
