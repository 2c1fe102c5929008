//! Configuration: device presets and run files in TOML, with units (`"8KiB"`, `"75us"`).
//!
//! A run file has a `[device]` table (usually `preset = "NAME"` plus overrides), an optional
//! `[precondition]` table and one or more `[[job]]` tables. Every table rejects unknown keys;
//! every error names the file and the key (and, for syntax errors, the line).

use crate::units::{Duration, Rate, Size};
use crate::workload::job::JobConfig;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Built-in presets, embedded from `configs/` at build time.
pub const PRESETS: &[(&str, &str)] = &[
    ("tlc-nvme", include_str!("../../../configs/tlc-nvme.toml")),
    ("mlc-sata", include_str!("../../../configs/mlc-sata.toml")),
    ("cosmos-openssd", include_str!("../../../configs/cosmos-openssd.toml")),
    ("qlc-nvme", include_str!("../../../configs/qlc-nvme.toml")),
    ("slc-sata", include_str!("../../../configs/slc-sata.toml")),
    ("femu-bbssd", include_str!("../../../configs/femu-bbssd.toml")),
    ("hotr", include_str!("../../../configs/hotr.toml")),
    ("samsung-830", include_str!("../../../configs/samsung-830.toml")),
    ("samsung-850pro", include_str!("../../../configs/samsung-850pro.toml")),
    ("ocz-vector150", include_str!("../../../configs/ocz-vector150.toml")),
    ("intel-530", include_str!("../../../configs/intel-530.toml")),
    ("intel-750", include_str!("../../../configs/intel-750.toml")),
];

/// Longest NAND array operation or page transfer accepted (operation times are kept in 32
/// bits of nanoseconds by the flash scheduler).
pub const MAX_NAND_NS: u64 = 1_000_000_000;

/// Most host write frontiers per plane (`device.ftl.streams`).
pub const MAX_STREAMS: u32 = 256;

/// The preset used by `ssdlab run` without arguments.
pub const DEFAULT_PRESET: &str = "tlc-nvme";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub fn bits(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }

    /// The typical array timing of the cell type, `(read, program, erase)`: what
    /// `[device.nand]` takes for each of `read`, `program` and `erase` it does not set. One
    /// value per cell type (every page type alike), as the HotR paper's Figure 1(a) gives one
    /// read and one write latency per cell type. "White paper" is the vendor white paper row
    /// of the design notes' NAND timing references (DESIGN.md, "NAND timing references":
    /// SLC / MLC / TLC read 25 / 50 / ~75 us, program 200-300 / 600-900 / ~900-1350 us, erase
    /// 1.5-2 / 3 / ~4.5 ms).
    ///
    /// - SLC: read 25 us, program 200 us, erase 1.5 ms: the white paper's figures (the low
    ///   end of its program and erase ranges), which are also the DiskSim SSD extension's SLC
    ///   parameters (Agrawal et al., USENIX ATC'08).
    /// - MLC: read 50 us and erase 3 ms: the white paper's; program 750 us, the middle of its
    ///   600-900 us.
    /// - TLC: read 75 us and erase 4.5 ms: the white paper's; program 1125 us, the middle of
    ///   its ~900-1350 us.
    /// - QLC: read 130 us, 1.75x TLC's 75 us rounded (the middle of the design notes' "reads
    ///   roughly 1.5-2x TLC"); program 2800 us, 2.5x TLC's 1125 us rounded (the middle of
    ///   "programs 2-3x TLC"); erase 4.5 ms, TLC's: no source we cite gives a QLC erase time.
    pub fn typical(self) -> (Duration, Duration, Duration) {
        const US: u64 = 1_000;
        let (read, program, erase) = match self {
            CellType::Slc => (25 * US, 200 * US, 1_500 * US),
            CellType::Mlc => (50 * US, 750 * US, 3_000 * US),
            CellType::Tlc => (75 * US, 1_125 * US, 4_500 * US),
            CellType::Qlc => (130 * US, 2_800 * US, 4_500 * US),
        };
        (Duration(read), Duration(program), Duration(erase))
    }

    /// The name used in config files (`"tlc"`).
    pub fn name(self) -> &'static str {
        match self {
            CellType::Slc => "slc",
            CellType::Mlc => "mlc",
            CellType::Tlc => "tlc",
            CellType::Qlc => "qlc",
        }
    }
}

/// One duration, or one per page type (LSB, CSB, MSB, TSB) for multi-level cells.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PerPageType {
    One(Duration),
    PerType(Vec<Duration>),
}

impl<'de> Deserialize<'de> for PerPageType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::{IntoDeserializer, SeqAccess, Visitor};
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PerPageType;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a duration such as \"75us\", or a list of durations, one per page type")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<PerPageType, E> {
                Ok(PerPageType::One(Duration(v)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<PerPageType, E> {
                Duration::deserialize(v.into_deserializer()).map(PerPageType::One)
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<PerPageType, E> {
                Duration::deserialize(v.into_deserializer()).map(PerPageType::One)
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<PerPageType, E> {
                Duration::deserialize(v.into_deserializer()).map(PerPageType::One)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<PerPageType, A::Error> {
                let mut out = Vec::new();
                while let Some(d) = seq.next_element::<Duration>()? {
                    out.push(d);
                }
                Ok(PerPageType::PerType(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl PerPageType {
    fn resolve(&self, bits: usize, file: &str, key: &str) -> Result<Vec<u64>> {
        let v: Vec<u64> = match self {
            PerPageType::One(d) => vec![d.0; bits],
            PerPageType::PerType(v) => v.iter().map(|d| d.0).collect(),
        };
        if v.len() != bits {
            return Err(Error::config(
                file,
                key,
                format!(
                    "got {} durations; expected one, or {bits} (one per page type of a {}-bit cell)",
                    v.len(),
                    bits
                ),
            ));
        }
        if v.contains(&0) {
            return Err(Error::config(
                file,
                key,
                "got a zero duration; expected positive durations",
            ));
        }
        if v.iter().any(|&d| d > MAX_NAND_NS) {
            return Err(Error::config(
                file,
                key,
                "got a duration above 1s; expected at most 1s per operation",
            ));
        }
        Ok(v)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometryConfig {
    pub channels: u32,
    /// Chips (ways) per channel.
    pub ways: u32,
    #[serde(default = "one")]
    pub dies_per_chip: u32,
    #[serde(default = "one")]
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size: Size,
    /// Mapping unit of the FTL (sub-page mapping when smaller than the page).
    #[serde(default = "default_unit")]
    pub mapping_unit: Size,
    /// Over-provisioning: (physical − logical) / logical. α = 1 + overprovisioning.
    pub overprovisioning: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NandConfig {
    pub cell: CellType,
    /// Array read time tR, one value or one per page type; unset: the cell type's typical
    /// value ([`CellType::typical`]), which follows `cell` when an override changes it.
    #[serde(default)]
    pub read: Option<PerPageType>,
    /// Program time tPROG, one value or one per page type; unset: as `read`.
    #[serde(default)]
    pub program: Option<PerPageType>,
    /// Block erase time tBERS; unset: as `read`.
    #[serde(default)]
    pub erase: Option<Duration>,
    /// Channel (flash bus) transfer rate.
    pub channel_rate: Rate,
    /// Program/erase cycles before a block is retired.
    pub endurance: u32,
    /// Planes of a die work in parallel (multi-plane operation); otherwise the die is the unit.
    #[serde(default = "yes")]
    pub plane_parallel: bool,
    /// Garbage collection copies pages inside the die (copyback) instead of through the
    /// controller over the channel.
    #[serde(default)]
    pub copyback: bool,
    /// Pseudo-SLC performance mode (`crate::pslc`): host pages are programmed one bit per
    /// cell, and once this share of the logical capacity holds data they are folded into the
    /// cell's own mode as well (0: off).
    #[serde(default)]
    pub pslc_fold: f64,
    /// Where the numbers come from.
    #[serde(default)]
    pub source: String,
}

/// The timing keys of `[device.nand]` that may be left to the cell type.
pub const CELL_TIMING_KEYS: [&str; 3] = ["read", "program", "erase"];

impl NandConfig {
    /// The array timing in force, `(read, program, erase)`: each as written, or, unset, the
    /// cell type's typical value ([`CellType::typical`]). Resolved here, at use, so a value
    /// a file or preset left to the cell follows a `cell` changed by a run file or `--set`,
    /// while one written explicitly stays.
    pub fn timing(&self) -> (PerPageType, PerPageType, Duration) {
        let (read, program, erase) = self.cell.typical();
        (
            self.read.clone().unwrap_or(PerPageType::One(read)),
            self.program.clone().unwrap_or(PerPageType::One(program)),
            self.erase.unwrap_or(erase),
        )
    }

    /// Which of [`CELL_TIMING_KEYS`] are unset and so take the cell type's typical value.
    pub fn typical_keys(&self) -> Vec<&'static str> {
        let unset = [self.read.is_none(), self.program.is_none(), self.erase.is_none()];
        CELL_TIMING_KEYS
            .iter()
            .zip(unset)
            .filter(|(_, u)| *u)
            .map(|(k, _)| *k)
            .collect()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Interface {
    #[serde(rename = "sata3")]
    Sata3,
    #[serde(rename = "nvme-gen3x4")]
    NvmeGen3x4,
    #[serde(rename = "nvme-gen4x4")]
    NvmeGen4x4,
    #[serde(rename = "pcie-gen2x8")]
    PcieGen2x8,
}

impl Interface {
    /// Usable link bandwidth in bytes/s (after line encoding).
    pub fn bandwidth(self) -> u64 {
        match self {
            Interface::Sata3 => 600_000_000,
            Interface::NvmeGen3x4 => 3_938_000_000,
            Interface::NvmeGen4x4 => 7_877_000_000,
            Interface::PcieGen2x8 => 4_000_000_000,
        }
    }
    pub fn full_duplex(self) -> bool {
        !matches!(self, Interface::Sata3)
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    pub interface: Interface,
    /// Overrides the interface's bandwidth.
    #[serde(default)]
    pub bandwidth: Option<Rate>,
    /// Link time taken by each command besides its data.
    pub command_overhead: Duration,
    /// Host DMA speed by transfer size, as `[size, rate]` points in increasing size: a
    /// transfer's rate is interpolated linearly in size between the two points around it
    /// (the first or last point's rate outside them). Empty: the link's bandwidth for every
    /// size.
    #[serde(default)]
    pub dma: Vec<(Size, Rate)>,
    /// A request's data crosses the link piece by piece: a read's per flash page as each
    /// reaches the controller, a write's in order with each page programmable once its own
    /// data is in (false: a request's data crosses whole, after a read's last page and before
    /// a write's first program).
    #[serde(default)]
    pub streaming: bool,
}

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
    /// Static wear leveling: migrate cold data when max − min erase count exceeds this (0 = off).
    #[serde(default)]
    pub static_wl_threshold: u32,
    /// DRAM write buffer (0 = write-through: a write completes when programmed).
    #[serde(default)]
    pub write_buffer: Size,
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
    /// Inline compression of host writes (`crate::compression`): flash bytes per host byte,
    /// above 0 and at most 1 (1: off).
    #[serde(default = "one_f")]
    pub compression: f64,
}

fn default_design() -> String {
    "page".into()
}

fn default_buffer_policy() -> String {
    "lru".into()
}

/// The controller's embedded CPU(s) running the firmware, and how many host commands the
/// firmware takes at once. All zero (the default): firmware time is not modelled.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerConfig {
    /// CPUs running firmware code; each piece of work goes to the one free first.
    #[serde(default = "one")]
    pub cpus: u32,
    /// CPU time per host command (fetch, decode, completion), before its flash work is issued.
    #[serde(default)]
    pub command_time: Duration,
    /// CPU time per mapping unit of a command (map lookups and updates, buffer bookkeeping).
    #[serde(default)]
    pub unit_time: Duration,
    /// CPU time per flash operation issued (host, GC, prefetch).
    #[serde(default)]
    pub flash_op_time: Duration,
    /// Speed of a copy inside the controller's DRAM (`memcpy`), for designs that copy from the
    /// DMA area into their buffer; unset: such designs are refused.
    #[serde(default)]
    pub memcpy_rate: Option<Rate>,
    /// Host commands the firmware works on at once (0 = no limit): with 1, a command starts
    /// only when the previous one has completed (a host interface without command queueing).
    #[serde(default)]
    pub queue_depth: u32,
    /// Where the numbers come from.
    #[serde(default)]
    pub source: String,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        toml::from_str("").expect("defaults")
    }
}

impl ControllerConfig {
    /// Whether any of it changes a run (otherwise the device takes its direct path).
    pub fn active(&self) -> bool {
        self.command_time.0 > 0 || self.unit_time.0 > 0 || self.flash_op_time.0 > 0 || self.queue_depth > 0
    }
}

impl Default for FtlConfig {
    fn default() -> Self {
        toml::from_str("").expect("defaults")
    }
}

/// Operations a host read may suspend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Suspendable {
    Program,
    Erase,
}

/// The flash scheduler: per-unit queues, dispatch policy, suspension.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerConfig {
    /// `read-priority` (queued host reads before programs, erases and GC work) or `fcfs`.
    #[serde(default = "default_policy")]
    pub policy: crate::scheduler::Policy,
    /// A program or erase that has waited this long at the head of its queue (or suspended)
    /// goes before queued reads.
    #[serde(default = "default_max_write_wait")]
    pub max_write_wait: Duration,
    /// Operations a host read may suspend: `[]`, `["program"]`, `["erase"]` or both.
    #[serde(default)]
    pub suspend: Vec<Suspendable>,
    /// Time from a suspend command until the die can read, for a program.
    #[serde(default = "default_program_suspend")]
    pub program_suspend_time: Duration,
    /// Likewise for an erase.
    #[serde(default = "default_erase_suspend")]
    pub erase_suspend_time: Duration,
    /// Extra time to resume a suspended operation.
    #[serde(default)]
    pub resume_time: Duration,
    /// Most suspensions of one operation.
    #[serde(default = "default_max_suspensions")]
    pub max_suspensions: u32,
    /// Where the choices come from.
    #[serde(default)]
    pub source: String,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        toml::from_str("").expect("defaults")
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub geometry: GeometryConfig,
    pub nand: NandConfig,
    pub host: HostConfig,
    #[serde(default)]
    pub ftl: FtlConfig,
    #[serde(default)]
    pub scheduler: SchedulerConfig,
    #[serde(default)]
    pub controller: ControllerConfig,
    #[serde(default)]
    pub placement: PlacementConfig,
    #[serde(default)]
    pub redundancy: crate::redundancy::RedundancyConfig,
}

/// Data placement (`crate::placement`): which open superblock a host write goes to. The
/// default, "plane", is the engine's per-plane frontiers (no superblocks).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementConfig {
    /// "plane" (per-plane frontiers), or a superblock policy of `crate::placement::REGISTRY`:
    /// baseline, partial-gc, multi-stream, autostream, plan-nopred-1/4, plan-nopred-1/8,
    /// plan-pred-1/4, plan-pred-1/8.
    #[serde(default = "default_placement")]
    pub policy: String,
    /// Host superblocks open at once (write classes), the same for every policy.
    #[serde(default = "default_open_superblocks")]
    pub open_superblocks: u32,
    /// PLAN: a write request this large is "large sequential" (smaller ones are small random).
    #[serde(default = "default_large_write")]
    pub large_write: Size,
    /// AutoStream: the LBA chunk whose history assigns a stream.
    #[serde(default = "default_autostream_chunk")]
    pub chunk: Size,
    /// AutoStream: decay period, in simulated time (an access count halves per period).
    #[serde(default = "default_decay")]
    pub decay: Duration,
    /// PLAN-Pred: the LBA chunk whose write history predicts a lifetime.
    #[serde(default = "default_lifetime_chunk")]
    pub lifetime_chunk: Size,
    /// PLAN-Pred: lifetime class boundaries, in host data written between a chunk's write and
    /// its next write or trim, as shares of the logical capacity (increasing; one fewer than
    /// the small superblocks).
    #[serde(default = "default_lifetime_bounds")]
    pub lifetime_bounds: Vec<f64>,
    /// Superblock width of every host slot as a share of the chips per channel ("1", "1/2",
    /// "1/4", "1/8"; empty: the policy's own). Not for PLAN, whose name says its width.
    #[serde(default)]
    pub width: String,
}

fn default_placement() -> String {
    "plane".into()
}
fn default_open_superblocks() -> u32 {
    4
}
fn default_large_write() -> Size {
    Size(128 << 10)
}
fn default_autostream_chunk() -> Size {
    Size(2 << 20)
}
fn default_decay() -> Duration {
    // zhxq/AutoStream's example (`…:2097152:10:16`: 2 MiB chunks, 10 s, 16 streams).
    Duration(10_000_000_000)
}
fn default_lifetime_chunk() -> Size {
    Size(16 << 10)
}
fn default_lifetime_bounds() -> Vec<f64> {
    vec![0.125, 0.5]
}

impl Default for PlacementConfig {
    fn default() -> Self {
        toml::from_str("").expect("defaults")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum PreconditionMode {
    /// A fresh device.
    #[default]
    None,
    /// Sequential fill of `utilisation` × logical capacity.
    Sequential,
    /// Sequential fill, then uniform random overwrites until write amplification settles.
    Steady,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreconditionConfig {
    #[serde(default)]
    pub mode: PreconditionMode,
    /// Share of the logical capacity that holds data (the rest stays trimmed).
    #[serde(default = "one_f")]
    pub utilisation: f64,
    /// Cap on random overwrites in multiples of the data written by the fill.
    #[serde(default = "default_max_overwrites")]
    pub max_overwrites: f64,
    /// Overwrite at least this much (in multiples of the filled data) before judging steady
    /// state.
    #[serde(default = "one_f")]
    pub min_overwrites: f64,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Why the run starts from this state (printed with the result), e.g. why a preset's job
    /// runs on a fresh device.
    #[serde(default)]
    pub note: String,
}

impl Default for PreconditionConfig {
    fn default() -> Self {
        toml::from_str("").expect("defaults")
    }
}

/// A whole run: one device, its preconditioning, and the jobs that drive it.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    pub device: DeviceConfig,
    #[serde(default)]
    pub precondition: PreconditionConfig,
    #[serde(default)]
    pub job: Vec<JobConfig>,
    /// A volume over several devices (absent: the device alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub array: Option<crate::array::ArrayConfig>,
    /// Directory that relative paths in the config (traces) are resolved against.
    #[serde(skip)]
    pub base_dir: PathBuf,
    /// Name of the file the config came from, for error messages.
    #[serde(skip)]
    pub file: String,
    /// Where each key was written, for error messages.
    #[serde(skip)]
    pub origins: KeyOrigins,
}

fn one() -> u32 {
    1
}
fn one_f() -> f64 {
    1.0
}
fn yes() -> bool {
    true
}
fn default_unit() -> Size {
    Size(4096)
}
fn default_alloc() -> Allocation {
    Allocation::LeastBusy
}
fn default_policy() -> crate::scheduler::Policy {
    crate::scheduler::Policy::ReadPriority
}
fn default_max_write_wait() -> Duration {
    Duration(5_000_000)
}
fn default_program_suspend() -> Duration {
    Duration(100_000)
}
fn default_erase_suspend() -> Duration {
    Duration(700_000)
}
fn default_max_suspensions() -> u32 {
    4
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
fn default_max_overwrites() -> f64 {
    4.0
}
fn default_seed() -> u64 {
    1
}

/// The text of a built-in preset.
pub fn preset_text(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(n, _)| *n).collect()
}

fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> Error {
    let msg = e.message().trim().replace('\n', "; ");
    let msg = if msg.contains("expected") {
        msg
    } else {
        format!("{msg}; expected valid TOML")
    };
    let msg = msg.replace(
        "number too large to fit in target type; expected valid TOML",
        "number too large to fit in target type; expected a whole number from -2^63 to 2^63 - 1",
    );
    match e.span() {
        Some(span) => {
            let (l, c) = crate::source::line_col(text, span.start);
            match key_on_line(text, l) {
                Some(key) => Error::Config(format!("{file}:{l}:{c}: {key}: {msg}")),
                None => Error::Config(format!("{file}:{l}:{c}: {msg}")),
            }
        }
        None => Error::Config(format!("{file}: {msg}")),
    }
}

/// The key path (`job[0].iodepth`) of a `key = value` line of TOML text that does not
/// parse, from the table headers above it; `None` for a line that sets no key.
fn key_on_line(text: &str, line: usize) -> Option<String> {
    let mut table = String::new();
    let mut arrays: Vec<(String, usize)> = Vec::new();
    // `a.b` under arrays of tables seen so far: `a[i].b` with `i` the last entry of `a`.
    let indexed = |path: &str, arrays: &[(String, usize)]| {
        let mut out = String::new();
        for seg in path.split('.').map(str::trim) {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(seg.trim_matches('"'));
            let bare = out.replace(|c: char| c == '[' || c.is_ascii_digit() || c == ']', "");
            if let Some((_, n)) = arrays.iter().rev().find(|(a, _)| *a == bare) {
                out = format!("{out}[{}]", n - 1);
            }
        }
        out
    };
    for (n, l) in text.lines().enumerate().take(line) {
        let t = l.trim();
        if let Some(h) = t.strip_prefix("[[").and_then(|h| h.split("]]").next()) {
            let h = h.trim().to_string();
            match arrays.iter_mut().find(|(a, _)| *a == h) {
                Some((_, c)) => *c += 1,
                None => arrays.push((h.clone(), 1)),
            }
            table = indexed(&h, &arrays);
        } else if let Some(h) = t.strip_prefix('[').and_then(|h| h.split(']').next()) {
            table = indexed(h.trim(), &arrays);
        } else if n + 1 == line {
            let key = t.split('=').next()?.trim();
            if key.is_empty() || !t.contains('=') || key.starts_with('#') {
                return None;
            }
            let key: Vec<&str> = key.split('.').map(|k| k.trim().trim_matches('"')).collect();
            let key = key.join(".");
            return Some(if table.is_empty() {
                key
            } else {
                format!("{table}.{key}")
            });
        }
    }
    None
}

/// Merge `over` into `base` (tables recursively; other values replace).
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// Parse a run config from text. `file` names it in errors; `base_dir` resolves relative paths.
pub fn parse_config(text: &str, file: &str, base_dir: &Path) -> Result<Config> {
    parse_config_with(text, file, base_dir, &[])
}

/// Set `path` (dotted keys; a number indexes an array, as in `job.0.iodepth`) to `value`
/// (a TOML value; anything that does not parse as one is taken as a string).
fn set_key(table: &mut toml::Table, path: &str, value: &str) -> Result<()> {
    use crate::source::Segment;
    let err = |m: String| Error::config("--set", path, m);
    let v = match toml::from_str::<toml::Table>(&format!("v = {value}")) {
        Ok(mut t) => t.remove("v").expect("v"),
        Err(_) => toml::Value::String(value.to_string()),
    };
    if path.split('.').any(|k| k.trim().is_empty()) {
        return Err(err("empty key segment; expected KEY.KEY...=VALUE".into()));
    }
    let segs = crate::source::split_key(path);
    let mut root = toml::Value::Table(std::mem::take(table));
    let res = (|| {
        let mut cur = &mut root;
        let mut prev = String::from("the config");
        for (n, seg) in segs.iter().enumerate() {
            let last = n + 1 == segs.len();
            cur = match (seg, cur) {
                (Segment::Key(k), toml::Value::Table(t)) => {
                    if last {
                        t.insert(k.to_string(), v);
                        return Ok(());
                    }
                    t.entry(k.to_string())
                        .or_insert_with(|| toml::Value::Table(toml::Table::new()))
                }
                (Segment::Index(i), toml::Value::Array(a)) => {
                    let len = a.len();
                    let slot = a
                        .get_mut(*i)
                        .ok_or_else(|| err(format!("'{prev}' has {len} entries; expected an index below {len}")))?;
                    if last {
                        *slot = v;
                        return Ok(());
                    }
                    slot
                }
                (Segment::Key(_), toml::Value::Array(_)) => {
                    return Err(err(format!("'{prev}' is a list; expected an index after it")))
                }
                (_, other) => {
                    return Err(err(format!(
                        "'{prev}' is a {}; expected a table or list to set a key in",
                        other.type_str()
                    )))
                }
            };
            prev = match seg {
                Segment::Key(k) => k.to_string(),
                Segment::Index(i) => format!("{prev}[{i}]"),
            };
        }
        Ok(())
    })();
    if let toml::Value::Table(t) = root {
        *table = t;
    }
    res
}

/// As [`parse_config`], then apply `KEY=VALUE` overrides (the command line's `--set`) on top
/// of the file and its preset.
pub fn parse_config_with(text: &str, file: &str, base_dir: &Path, overrides: &[String]) -> Result<Config> {
    let mut origins = KeyOrigins {
        file: file.to_string(),
        text: text.to_string(),
        ..Default::default()
    };
    match build_config(text, file, base_dir, overrides, &mut origins) {
        Ok(mut cfg) => {
            cfg.origins = origins;
            Ok(cfg)
        }
        Err(e) => Err(origins.locate(e)),
    }
}

/// Where the keys of a run config came from: the file, its preset, `--set`, or a fio job
/// file that replaced the jobs.
#[derive(Clone, Debug, Default)]
pub struct KeyOrigins {
    file: String,
    text: String,
    preset: Option<(String, &'static str)>,
    /// Canonical keys set with `--set`, with their `KEY=VALUE` text.
    overrides: Vec<(String, String)>,
    /// A fio job file (name, text) whose jobs replaced the config's.
    jobs_file: Option<(String, String)>,
}

impl KeyOrigins {
    /// Add the position of a key error's key: `--set` when the command line set it, else
    /// its line in the file (or the fio job file, for jobs), else its line in the preset,
    /// else the line of its nearest enclosing table in the file.
    pub fn locate(&self, e: Error) -> Error {
        e.locate(|key| {
            if let Some((_, o)) = self.overrides.iter().rev().find(|(k, _)| k == key) {
                return Some((format!("--set {o}"), None, 0));
            }
            if let Some((name, text)) = &self.jobs_file {
                if key.starts_with("job[") {
                    let p = crate::workload::fio::position(text, key);
                    return Some((name.clone(), p, 1));
                }
            }
            let in_file = crate::source::toml_position(&self.text, key);
            if let Ok(p) = in_file {
                return Some((self.file.clone(), Some(p), 1));
            }
            if let Some((name, ptext)) = &self.preset {
                if let Ok(p) = crate::source::toml_position(ptext, key) {
                    return Some((format!("preset {name}"), Some(p), 2));
                }
            }
            Some((self.file.clone(), in_file.err().flatten(), 3))
        })
    }
}

impl KeyOrigins {
    /// Whether the user's file, its preset or `--set` wrote `key` (canonical), rather than
    /// it taking its default.
    pub fn written(&self, key: &str) -> bool {
        self.overrides.iter().any(|(k, _)| k == key)
            || crate::source::toml_position(&self.text, key).is_ok()
            || self
                .preset
                .as_ref()
                .is_some_and(|(_, t)| crate::source::toml_position(t, key).is_ok())
    }
}

impl Config {
    /// Replace the jobs with those of a fio job file (`name`, `text`) and check the result;
    /// errors about jobs name the job file's lines.
    pub fn set_jobs_from_fio(&mut self, name: &str, text: &str) -> Result<()> {
        self.job = crate::workload::fio::parse_job_file(text, name)?;
        self.origins.jobs_file = Some((name.to_string(), text.to_string()));
        self.validate()
    }

    /// Add where an error's key was written (see [`KeyOrigins::locate`]).
    pub fn locate(&self, e: Error) -> Error {
        self.origins.locate(e)
    }
}

/// Rephrase a serde message in the project's `what was wrong; expected WHAT` form.
fn serde_message(m: &str) -> String {
    let m = m
        .replace('\n', " ")
        .replace("expected u32", "expected a whole number from 0 to 4294967295")
        .replace("expected u64", "expected a whole number from 0 to 2^64-1")
        .replace("expected f64", "expected a number");
    if let Some(f) = m.strip_prefix("missing field ") {
        return format!("missing key {f}; expected it to be set (it has no default)");
    }
    let m = m.replacen("unknown field", "unknown key", 1);
    if m.starts_with("wanted exactly 1 element") {
        return "got a table; expected a name (a string)".into();
    }
    if m.contains("; expected") {
        m
    } else if m.contains(", expected") {
        m.replacen(", expected", "; expected", 1)
    } else {
        format!("{m}; expected a value as docs/config.md describes for this key")
    }
}

fn build_config(
    text: &str,
    file: &str,
    base_dir: &Path,
    overrides: &[String],
    origins: &mut KeyOrigins,
) -> Result<Config> {
    let mut table: toml::Table = toml::from_str(text).map_err(|e| toml_error(file, text, &e))?;
    // An array without `[device]`: its first member with a preset gives the device (the
    // template of members that name none), else the default preset.
    if !table.contains_key("device") && table.contains_key("array") {
        let first = table
            .get("array")
            .and_then(|a| a.get("member"))
            .and_then(|m| m.as_array())
            .and_then(|m| m.iter().find_map(|x| x.get("preset").cloned()))
            .unwrap_or_else(|| toml::Value::String(DEFAULT_PRESET.into()));
        {
            let p = first;
            let mut d = toml::Table::new();
            d.insert("preset".into(), p);
            table.insert("device".into(), toml::Value::Table(d));
        }
    }
    // `[device] preset = "NAME"` (or a bare top-level `preset`) pulls in a built-in device.
    let preset = match table.get_mut("device") {
        Some(toml::Value::Table(d)) => d.remove("preset"),
        Some(_) => {
            return Err(Error::config(
                file,
                "device",
                "not a table; expected [device] with keys",
            ))
        }
        None => None,
    };
    if let Some(p) = preset {
        let name = p
            .as_str()
            .ok_or_else(|| Error::config(file, "device.preset", "not a string; expected a preset name"))?
            .to_string();
        let ptext = preset_text(&name).ok_or_else(|| {
            Error::config(
                file,
                "device.preset",
                format!("unknown preset '{name}'; expected one of {}", preset_names().join(", ")),
            )
        })?;
        origins.preset = Some((name.clone(), ptext));
        let mut pt: toml::Table =
            toml::from_str(ptext).map_err(|e| toml_error(&format!("preset {name}"), ptext, &e))?;
        let pdev = match pt.remove("device") {
            Some(toml::Value::Table(t)) => t,
            _ => return Err(Error::Config(format!("preset {name}: no [device] table; expected one"))),
        };
        let mut dev = pdev;
        if let Some(toml::Value::Table(user)) = table.remove("device") {
            merge(&mut dev, user);
        }
        table.insert("device".into(), toml::Value::Table(dev));
        // A preset's jobs and preconditioning apply only when the run file gives none.
        for key in ["job", "precondition"] {
            if !table.contains_key(key) {
                if let Some(v) = pt.remove(key) {
                    table.insert(key.into(), v);
                }
            }
        }
    }
    for key in ["job", "array.member"] {
        let mut at = Some(&table);
        for k in key.split('.') {
            at = at.and_then(|t| t.get(k)).and_then(|v| v.as_table());
        }
        if at.is_some() {
            return Err(Error::config(
                file,
                key,
                format!("a single [{key}] table; expected [[{key}]] (a list of tables, one per entry)"),
            ));
        }
    }
    for o in overrides {
        let (k, v) = o
            .split_once('=')
            .ok_or_else(|| Error::Config(format!("--set {o}: not KEY=VALUE; expected e.g. job.0.iodepth=8")))?;
        origins
            .overrides
            .push((crate::source::canonical_key(k.trim()), o.trim().to_string()));
        set_key(&mut table, k.trim(), v.trim())?;
    }
    let mut cfg: Config = serde_path_to_error::deserialize(toml::Value::Table(table)).map_err(|e| {
        let key = e.path().to_string();
        let msg = serde_message(e.inner().message().trim());
        if key == "." || key.is_empty() {
            Error::Config(format!("{file}: {msg}"))
        } else {
            Error::config(file, &key, msg)
        }
    })?;
    cfg.file = file.to_string();
    cfg.base_dir = base_dir.to_path_buf();
    // Validation asks which keys the user wrote.
    cfg.origins = origins.clone();
    cfg.validate_keys()?;
    Ok(cfg)
}

/// Keys that serialise to nothing while unset, with what unset means.
pub const UNSET_KEYS: &[(&str, &str)] = &[
    ("device.nand.read", "the cell type's typical value"),
    ("device.nand.program", "the cell type's typical value"),
    ("device.nand.erase", "the cell type's typical value"),
    ("device.host.bandwidth", "the interface's bandwidth"),
    ("device.ftl.allocation_slack", "a quarter of a block"),
    ("device.redundancy.scheme", "none; its keys are in docs/config.md"),
    ("job.offset", "0"),
    ("job.size", "from offset to the end of the device"),
    ("job.io_size", "size: one pass"),
    ("job.number_ios", "no limit"),
    ("job.runtime", "no limit"),
    ("job.ramp_time", "0"),
    ("job.seed", "derived from the run's seed"),
    ("job.rate_iops", "closed loop"),
    ("job.thinktime", "0: the next I/O at once"),
    ("job.bssplit", "bs only"),
    ("job.trace", "generated requests; its keys are in docs/traces.md"),
    (
        "job.fs",
        "no file-system application; its keys are in docs/workloads.md",
    ),
    ("job.hpc", "no HPC-like generator; its keys are in docs/workloads.md"),
    ("job.replay", "open"),
    ("job.write_lat_log", "no latency log"),
    ("job.write_bw_log", "no bandwidth log"),
    ("job.write_iops_log", "no IOPS log"),
];

/// Every leaf of a config as TOML, with its key path (`device.ftl.gc_d`, `job.0.bs`): the
/// schema's keys that have a value.
pub fn leaf_keys(v: &toml::Value) -> Vec<(String, &toml::Value)> {
    fn walk<'a>(prefix: &str, v: &'a toml::Value, out: &mut Vec<(String, &'a toml::Value)>) {
        match v {
            toml::Value::Table(t) => {
                for (k, v) in t {
                    walk(
                        &if prefix.is_empty() {
                            k.clone()
                        } else {
                            format!("{prefix}.{k}")
                        },
                        v,
                        out,
                    );
                }
            }
            toml::Value::Array(a) if !a.is_empty() && a.iter().all(|x| x.is_table()) => {
                for (i, x) in a.iter().enumerate() {
                    walk(&format!("{prefix}.{i}"), x, out);
                }
            }
            v => out.push((prefix.to_string(), v)),
        }
    }
    let mut out = Vec::new();
    walk("", v, &mut out);
    out
}

/// The keys a preset does not write, with the values they take (defaults), as commented
/// TOML to append to the preset's text: with it, `config show` lists every key.
pub fn preset_defaults(name: &str) -> Option<String> {
    let text = preset_text(name)?;
    let cfg = load_config(name).ok()?;
    let value = toml::Value::try_from(&cfg).ok()?;
    let mut out = String::from("\n# Every other key, at the value it takes when not written (see docs/config.md):\n");
    let mut leaves: Vec<(String, String, String)> = leaf_keys(&value)
        .into_iter()
        .filter(|(k, _)| crate::source::toml_position(text, k).is_err())
        .map(|(k, v)| {
            let (table, key) = k.rsplit_once('.').unwrap_or(("", k.as_str()));
            (table.to_string(), key.to_string(), v.to_string())
        })
        .collect();
    // Timings left to the cell type: the value in force, and that the cell gives it.
    let nand = &cfg.device.nand;
    let (read, program, erase) = nand.timing();
    let timing = [
        toml::Value::try_from(&read).ok()?,
        toml::Value::try_from(&program).ok()?,
        toml::Value::try_from(erase).ok()?,
    ];
    let typical = nand.typical_keys();
    for (key, v) in CELL_TIMING_KEYS.iter().zip(timing) {
        if typical.contains(key) {
            leaves.push((
                "device.nand".into(),
                key.to_string(),
                format!("{v} (unset: typical for cell = \"{}\")", nand.cell.name()),
            ));
        }
    }
    for (key, meaning) in UNSET_KEYS {
        let (table, leaf) = key.rsplit_once('.').expect("dotted");
        let tables: Vec<String> = if table == "job" {
            (0..cfg.job.len()).map(|i| format!("job.{i}")).collect()
        } else {
            vec![table.to_string()]
        };
        for t in tables {
            if crate::source::toml_position(text, &format!("{t}.{leaf}")).is_err()
                && !leaves.iter().any(|(a, b, _)| *a == t && b == leaf)
            {
                leaves.push((t, leaf.to_string(), format!("(unset: {meaning})")));
            }
        }
    }
    leaves.sort_by(|a, b| a.0.cmp(&b.0));
    let mut current = None;
    for (table, key, v) in leaves {
        if current.as_ref() != Some(&table) {
            let header = match table.strip_prefix("job.") {
                Some(i) => format!("[[job]] (job {i})"),
                None => format!("[{table}]"),
            };
            out.push_str(&format!("# {header}\n"));
            current = Some(table);
        }
        out.push_str(&format!("#   {key} = {v}\n"));
    }
    Some(out)
}

/// Load a run config from a file, or a preset by name.
pub fn load_config(path_or_preset: &str) -> Result<Config> {
    load_config_with(path_or_preset, &[])
}

/// As [`load_config`], with `KEY=VALUE` overrides.
pub fn load_config_with(path_or_preset: &str, overrides: &[String]) -> Result<Config> {
    let p = Path::new(path_or_preset);
    if !p.exists() {
        if let Some(t) = preset_text(path_or_preset) {
            return parse_config_with(t, &format!("preset {path_or_preset}"), Path::new("."), overrides);
        }
    }
    if !p.exists() {
        return Err(Error::Config(format!(
            "{path_or_preset}: no such file or preset; expected a config file or one of the presets {}",
            preset_names().join(", ")
        )));
    }
    if p.is_dir() {
        return Err(Error::Config(format!(
            "{path_or_preset}: is a directory; expected a config file or a preset name"
        )));
    }
    let text = std::fs::read_to_string(p).map_err(|e| Error::io(path_or_preset, e))?;
    let base = p.parent().map(Path::to_path_buf).unwrap_or_default();
    parse_config_with(&text, path_or_preset, &base, overrides)
}

/// The default run: the default preset with its built-in job.
pub fn default_config() -> Config {
    load_config(DEFAULT_PRESET).expect("the default preset is valid")
}

impl Config {
    /// Check what serde cannot: ranges, and keys against each other. Errors name the line
    /// of the key at fault.
    pub fn validate(&self) -> Result<()> {
        self.validate_keys().map_err(|e| self.locate(e))
    }

    fn validate_keys(&self) -> Result<()> {
        let f = self.file.as_str();
        let geo = crate::geometry::Geometry::from_config(&self.device, f)?;
        self.device.validate(f)?;
        let scheme = self.device.redundancy.scheme();
        if scheme != "none" && self.precondition.mode == PreconditionMode::Steady {
            return Err(Error::config(
                f,
                "precondition.mode",
                format!("\"steady\" overwrites the FTL directly, which would bypass scheme \"{scheme}\"'s copies; expected \"sequential\" or \"none\" with a redundancy scheme"),
            ));
        }
        // Spare blocks per plane must cover the free-block reserve and the open frontiers.
        let lent = crate::redundancy::reserved_per_plane(&self.device, &geo);
        let spare =
            (geo.physical_units - geo.logical_units) as f64 / (geo.planes * geo.units_per_block) as f64 - lent as f64;
        // The reserve, plus one open block per host frontier and one for GC.
        let ftl = &self.device.ftl;
        let frontiers = crate::placement::host_frontiers(&self.device);
        // Superblocks collect in the foreground only.
        let reserve = if self.device.placement.policy == "plane" {
            ftl.gc_threshold.max(ftl.bg_gc_threshold)
        } else {
            ftl.gc_threshold
        };
        let need = reserve as f64 + 1.0 + frontiers as f64;
        if spare < need {
            let mut keys = vec![
                "device.geometry.overprovisioning",
                "device.geometry.blocks_per_plane",
                "device.ftl.gc_threshold",
                "device.ftl.bg_gc_threshold",
            ];
            // Streams asked for are what the spare blocks cannot hold, when the user wrote them.
            keys.insert(if ftl.streams > 1 { 0 } else { keys.len() }, "device.ftl.streams");
            // A scratch space in over-provisioning is what takes the blocks, when there is one.
            let lent_note = if lent > 0 {
                keys.insert(0, "device.redundancy.scratch_share");
                format!(" after {lent} lent to the scratch space")
            } else {
                String::new()
            };
            return Err(Error::config_keys(
                f,
                &keys,
                format!(
                    "{spare:.1} spare blocks per plane{lent_note} cannot hold the GC reserve and open blocks ({need}); expected more overprovisioning or blocks_per_plane, or a lower gc_threshold, scratch_share or fewer streams"
                ),
            ));
        }
        let p = &self.precondition;
        if !(0.0..=1.0).contains(&p.utilisation) {
            return Err(Error::config(
                f,
                "precondition.utilisation",
                format!("got {}; expected a share between 0 and 1", p.utilisation),
            ));
        }
        if !(p.max_overwrites >= 0.0 && p.max_overwrites <= 1000.0) {
            return Err(Error::config(
                f,
                "precondition.max_overwrites",
                format!("got {}; expected a number between 0 and 1000", p.max_overwrites),
            ));
        }
        if !(p.min_overwrites >= 0.0 && p.min_overwrites <= 1000.0) {
            return Err(Error::config(
                f,
                "precondition.min_overwrites",
                format!(
                    "got {}; expected a number between 0 and 1000 (the run stops at max_overwrites in any case)",
                    p.min_overwrites
                ),
            ));
        }
        // A default min_overwrites above a lower max_overwrites gives way to it (the
        // precondition judges steady state from max_overwrites on); one written is an error.
        if p.min_overwrites > p.max_overwrites && self.origins.written("precondition.min_overwrites") {
            return Err(Error::config_keys(
                f,
                &["precondition.min_overwrites", "precondition.max_overwrites"],
                format!(
                    "{} is above max_overwrites = {}, so steady state would never be judged; expected at most max_overwrites",
                    p.min_overwrites, p.max_overwrites
                ),
            ));
        }
        let capacity = match &self.array {
            None => geo.logical_bytes(),
            Some(_) => crate::array::check(self)?,
        };
        for (i, j) in self.job.iter().enumerate() {
            j.validate(f, &format!("job[{i}]"), capacity)?;
            if j.readonly && self.array.as_ref().is_some_and(|a| a.layout != "rodi") {
                return Err(Error::config(
                    f,
                    &format!("job[{i}].readonly"),
                    "marks read-only data, which only a rodi array places apart; expected [array] layout = \"rodi\" or no readonly".to_string(),
                ));
            }
        }
        Ok(())
    }
}

impl DeviceConfig {
    pub fn validate(&self, f: &str) -> Result<()> {
        crate::pslc::validate(self, f)?;
        crate::compression::validate(self, f)?;
        let n = &self.nand;
        let bits = n.cell.bits();
        let (read, program, erase) = n.timing();
        read.resolve(bits, f, "device.nand.read")?;
        program.resolve(bits, f, "device.nand.program")?;
        if erase.0 == 0 || erase.0 > MAX_NAND_NS {
            return Err(Error::config(
                f,
                "device.nand.erase",
                format!("got {} ns; expected a positive duration of at most 1s", erase.0),
            ));
        }
        let page = self.geometry.page_size.0 as u128;
        if n.channel_rate.0 == 0 || page * 1_000_000_000 > MAX_NAND_NS as u128 * n.channel_rate.0 as u128 {
            return Err(Error::config(
                f,
                "device.nand.channel_rate",
                format!(
                    "got {} bytes/s; expected a rate at which a {page}-byte page crosses the channel in at most 1s",
                    n.channel_rate.0
                ),
            ));
        }
        if n.endurance == 0 {
            return Err(Error::config(
                f,
                "device.nand.endurance",
                "got 0; expected at least 1 P/E cycle",
            ));
        }
        if self.host.command_overhead.0 > MAX_NAND_NS {
            return Err(Error::config(
                f,
                "device.host.command_overhead",
                format!(
                    "got {} ns; expected at most 1s per command",
                    self.host.command_overhead.0
                ),
            ));
        }
        if self.ftl.bg_gc_idle.0 > 3_600_000_000_000 {
            return Err(Error::config(
                f,
                "device.ftl.bg_gc_idle",
                format!("got {} ns; expected at most one hour", self.ftl.bg_gc_idle.0),
            ));
        }
        if self.scheduler.max_write_wait.0 > MAX_NAND_NS {
            return Err(Error::config(
                f,
                "device.scheduler.max_write_wait",
                format!("got {} ns; expected at most 1s", self.scheduler.max_write_wait.0),
            ));
        }
        if let Some(Rate(r)) = self.host.bandwidth {
            if r < 1_000_000 {
                return Err(Error::config(
                    f,
                    "device.host.bandwidth",
                    format!("got {r} bytes/s; expected at least 1MB/s"),
                ));
            }
        }
        if let Some(Rate(0)) = self.host.bandwidth {
            return Err(Error::config(
                f,
                "device.host.bandwidth",
                "got 0; expected a positive rate",
            ));
        }
        let mut last = 0u64;
        for (i, &(Size(sz), Rate(r))) in self.host.dma.iter().enumerate() {
            if sz == 0 || sz <= last || r < 1_000_000 {
                return Err(Error::config(
                    f,
                    &format!("device.host.dma[{i}]"),
                    format!(
                        "got [{sz} bytes, {r} bytes/s]; expected sizes above 0 in increasing order and rates of at least 1MB/s"
                    ),
                ));
            }
            last = sz;
        }
        let c = &self.controller;
        if c.cpus == 0 || c.cpus > 64 {
            return Err(Error::config(
                f,
                "device.controller.cpus",
                format!("got {}; expected 1 to 64", c.cpus),
            ));
        }
        for (key, d) in [
            ("command_time", c.command_time),
            ("unit_time", c.unit_time),
            ("flash_op_time", c.flash_op_time),
        ] {
            if d.0 > 10_000_000 {
                return Err(Error::config(
                    f,
                    &format!("device.controller.{key}"),
                    format!("got {} ns; expected at most 10ms", d.0),
                ));
            }
        }
        if let Some(Rate(r)) = c.memcpy_rate {
            if r < 1_000_000 {
                return Err(Error::config(
                    f,
                    "device.controller.memcpy_rate",
                    format!("got {r} bytes/s; expected at least 1MB/s"),
                ));
            }
        }
        let t = &self.ftl;
        crate::firmware::check(self).map_err(|(key, m)| Error::config(f, &format!("device.ftl.{key}"), m))?;
        crate::placement::check(self).map_err(|(key, m)| Error::config(f, &key, m))?;
        crate::redundancy::check(self).map_err(|(key, m)| Error::config(f, &key, m))?;
        crate::ftl::gc::check_policy_name(&t.gc_policy).map_err(|m| Error::config(f, "device.ftl.gc_policy", m))?;
        if t.gc_frontier != "separate" && t.gc_frontier != "shared" {
            return Err(Error::config(
                f,
                "device.ftl.gc_frontier",
                format!("got \"{}\"; expected \"separate\" or \"shared\"", t.gc_frontier),
            ));
        }
        if t.gc_frontier == "shared" && t.write_buffer.0 > 0 && self.geometry.mapping_unit.0 < self.geometry.page_size.0
        {
            return Err(Error::config(
                f,
                "device.ftl.gc_frontier",
                "\"shared\" with a write buffer and sub-page mapping units would let GC fill pages whose host data still sits in the buffer; expected write_buffer = 0 or mapping_unit = page_size",
            ));
        }
        let wb = t.write_buffer.0;
        if wb > 0 && wb < self.geometry.page_size.0 {
            return Err(Error::config(
                f,
                "device.ftl.write_buffer",
                format!(
                    "got {wb} bytes; expected 0 (write-through) or at least one page ({} bytes)",
                    self.geometry.page_size.0
                ),
            ));
        }
        if t.gc_d == 0 {
            return Err(Error::config(
                f,
                "device.ftl.gc_d",
                "got 0; expected a sample of at least 1 block",
            ));
        }
        if t.gc_threshold < 2 {
            return Err(Error::config(
                f,
                "device.ftl.gc_threshold",
                format!(
                    "got {}; expected at least 2 free blocks (one is the GC destination)",
                    t.gc_threshold
                ),
            ));
        }
        if t.bg_gc_threshold != 0 && t.bg_gc_threshold <= t.gc_threshold {
            return Err(Error::config(
                f,
                "device.ftl.bg_gc_threshold",
                format!(
                    "got {} with gc_threshold {}; expected 0 (off) or above gc_threshold",
                    t.bg_gc_threshold, t.gc_threshold
                ),
            ));
        }
        if !(1..=MAX_STREAMS).contains(&t.streams) {
            return Err(Error::config(
                f,
                "device.ftl.streams",
                format!(
                    "got {}; expected 1 to {MAX_STREAMS} host write frontiers per plane",
                    t.streams
                ),
            ));
        }
        if t.allocation_slack == Some(0) {
            return Err(Error::config(
                f,
                "device.ftl.allocation_slack",
                "got 0; expected at least 1 page (1 = strict rounds over the planes)",
            ));
        }
        let sc = &self.scheduler;
        if sc.max_write_wait.0 == 0 {
            return Err(Error::config(
                f,
                "device.scheduler.max_write_wait",
                "got 0; expected a positive duration (how long a program or erase may wait behind reads)",
            ));
        }
        for (key, d) in [
            ("program_suspend_time", sc.program_suspend_time),
            ("erase_suspend_time", sc.erase_suspend_time),
            ("resume_time", sc.resume_time),
        ] {
            if d.0 > 1_000_000_000 {
                return Err(Error::config(
                    f,
                    &format!("device.scheduler.{key}"),
                    format!("got {} ns; expected at most 1s", d.0),
                ));
            }
        }
        if sc.max_suspensions > 255 {
            return Err(Error::config(
                f,
                "device.scheduler.max_suspensions",
                format!("got {}; expected at most 255", sc.max_suspensions),
            ));
        }
        if !sc.suspend.is_empty() && sc.max_suspensions == 0 {
            return Err(Error::config(
                f,
                "device.scheduler.max_suspensions",
                "got 0 while `suspend` names operations; expected at least 1 (or `suspend = []`)",
            ));
        }
        if self.geometry.blocks_per_plane as u64 <= t.gc_threshold.max(t.bg_gc_threshold) as u64 + 2 {
            return Err(Error::config(
                f,
                "device.geometry.blocks_per_plane",
                format!(
                    "got {}; expected more than the GC thresholds + 2 ({})",
                    self.geometry.blocks_per_plane,
                    t.gc_threshold.max(t.bg_gc_threshold) as u64 + 2
                ),
            ));
        }
        Ok(())
    }

    /// Read times per page type (ns), as written or the cell type's typical value.
    pub fn read_ns(&self) -> Vec<u64> {
        self.nand
            .timing()
            .0
            .resolve(self.nand.cell.bits(), "", "")
            .unwrap_or_default()
    }
    /// Program times per page type (ns), as written or the cell type's typical value.
    pub fn program_ns(&self) -> Vec<u64> {
        self.nand
            .timing()
            .1
            .resolve(self.nand.cell.bits(), "", "")
            .unwrap_or_default()
    }
    /// Block erase time (ns), as written or the cell type's typical value.
    pub fn erase_ns(&self) -> u64 {
        self.nand.timing().2 .0
    }
    pub fn link_bandwidth(&self) -> u64 {
        self.host
            .bandwidth
            .map(|r| r.0)
            .unwrap_or_else(|| self.host.interface.bandwidth())
    }
}

/// The timing of the small SLC device the hand-computed latency tests use (unit tests and
/// integration tests alike): tR 25 µs, tPROG 200 µs, tBERS 1.5 ms, 8 KiB over a 100 MB/s
/// channel in 81,920 ns, a SATA link with 5 µs per command (8 KiB with its command: 18,654
/// ns), GC at 2 free blocks. Goes after a run file's `[device.geometry]` table;
/// `[device.ftl]` is open at its end.
#[doc(hidden)]
pub const TEST_SLC_TIMING: &str = r#"[device.nand]
cell = "slc"
read = "25us"
program = "200us"
erase = "1.5ms"
channel_rate = "100MB/s"
endurance = 100000
[device.host]
interface = "sata3"
command_overhead = "5us"
[device.ftl]
gc_threshold = 2
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse(text: &str) -> Result<Config> {
        parse_config(text, "t.toml", Path::new("."))
    }

    #[test]
    fn presets_are_valid_and_complete() {
        for name in preset_names() {
            let c = load_config(name).unwrap();
            assert!(
                !c.device.nand.source.is_empty(),
                "{name}: preset must state its sources"
            );
            assert!(
                !c.device.scheduler.source.is_empty(),
                "{name}: preset must say which scheduling features it enables and why"
            );
            assert!(!c.job.is_empty(), "{name}: a preset carries a default job");
            assert!(
                c.precondition.mode != PreconditionMode::None || !c.precondition.note.is_empty(),
                "{name}: the built-in job preconditions or says why it starts fresh"
            );
        }
        // The NVMe presets model modern controllers: read priority with both suspensions.
        for name in ["tlc-nvme", "qlc-nvme"] {
            let s = load_config(name).unwrap().device.scheduler;
            assert_eq!(s.policy, crate::scheduler::Policy::ReadPriority, "{name}");
            assert_eq!(s.suspend, vec![Suspendable::Program, Suspendable::Erase], "{name}");
        }
    }

    #[test]
    fn overrides_set_keys_on_top_of_file_and_preset() {
        let text = "[device]\npreset = \"mlc-sata\"\n[[job]]\nrw = \"randread\"\n";
        let set = |o: &[&str]| {
            let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
            parse_config_with(text, "t.toml", Path::new("."), &o)
        };
        let c = set(&[
            "device.scheduler.policy=fcfs",
            "job.0.iodepth=7",
            "device.scheduler.suspend=[\"erase\"]",
        ])
        .unwrap();
        assert_eq!(c.device.scheduler.policy, crate::scheduler::Policy::Fcfs);
        assert_eq!(c.device.scheduler.suspend, vec![Suspendable::Erase]);
        assert_eq!(c.job[0].iodepth, 7);
        assert_eq!(c.device.geometry.channels, 8, "the preset still applies");
        let e = set(&["device.scheduler.policy=lifo"]).unwrap_err().to_string();
        assert!(e.contains("lifo"), "{e}");
        let e = set(&["job.3.iodepth=1"]).unwrap_err().to_string();
        assert_eq!(
            e,
            "--set job.3.iodepth=1: job[3].iodepth: 'job' has 1 entries; expected an index below 1"
        );
        let e = set(&["nonsense"]).unwrap_err().to_string();
        assert!(e.starts_with("--set nonsense: not KEY=VALUE; expected"), "{e}");
        // A key set on the command line is blamed on the command line.
        let e = set(&["job.0.iodepth=0"]).unwrap_err().to_string();
        assert!(e.starts_with("--set job.0.iodepth=0: job[0].iodepth: "), "{e}");
    }

    #[test]
    fn scheduler_keys_are_checked() {
        let base = "[device]\npreset = \"mlc-sata\"\n[device.scheduler]\n";
        let c = parse(&format!(
            "{base}policy = \"fcfs\"\nsuspend = [\"program\"]\nprogram_suspend_time = \"80us\"\n"
        ))
        .unwrap();
        assert_eq!(c.device.scheduler.policy, crate::scheduler::Policy::Fcfs);
        assert_eq!(c.device.scheduler.program_suspend_time, Duration(80_000));
        for (text, key) in [
            ("policy = \"lifo\"", "lifo"),
            ("suspend = [\"read\"]", "read"),
            ("max_write_wait = \"0s\"", "device.scheduler.max_write_wait"),
            (
                "suspend = [\"erase\"]\nmax_suspensions = 0",
                "device.scheduler.max_suspensions",
            ),
            ("max_suspensions = 1000", "device.scheduler.max_suspensions"),
            ("resume_time = \"2s\"", "device.scheduler.resume_time"),
            ("warp = 1", "warp"),
        ] {
            let e = parse(&format!("{base}{text}\n")).unwrap_err().to_string();
            assert!(e.contains(key) && !e.contains('\n'), "{text}: {e}");
        }
        let e = parse("[device]\npreset = \"mlc-sata\"\n[device.ftl]\nallocation_slack = 0\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.ftl.allocation_slack"), "{e}");
        let e = parse("[device]\npreset = \"mlc-sata\"\n[device.nand]\nchannel_rate = \"1KB/s\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.nand.channel_rate"), "{e}");
        let e = parse("[device]\npreset = \"mlc-sata\"\n[device.nand]\nprogram = \"2s\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.nand.program"), "{e}");
    }

    #[test]
    fn config_show_lists_every_key_of_every_preset() {
        for name in preset_names() {
            let text = preset_text(name).unwrap();
            let shown = preset_defaults(name).unwrap();
            let cfg = load_config(name).unwrap();
            let v = toml::Value::try_from(&cfg).unwrap();
            let mut keys: Vec<String> = UNSET_KEYS.iter().map(|(k, _)| k.replace("job.", "job.0.")).collect();
            keys.extend(leaf_keys(&v).into_iter().map(|(k, _)| k));
            assert!(keys.len() > 60, "{name}: {} keys", keys.len());
            for k in keys {
                let leaf = k.rsplit('.').next().unwrap();
                assert!(
                    crate::source::toml_position(text, &k).is_ok() || shown.contains(&format!("#   {leaf} = ")),
                    "{name}: config show does not list {k}"
                );
            }
        }
    }

    #[test]
    fn overrides_merge_into_presets() {
        let c = parse("[device]\npreset = \"tlc-nvme\"\n[device.geometry]\nblocks_per_plane = 200\n").unwrap();
        assert_eq!(c.device.geometry.blocks_per_plane, 200);
        assert_eq!(c.device.geometry.channels, 8);
        assert_eq!(c.job.len(), 1, "the preset's job applies when none is given");
    }

    #[test]
    fn shared_gc_frontier_with_a_sub_page_buffer_is_rejected() {
        let e = parse("[device]\npreset = \"tlc-nvme\"\n[device.ftl]\ngc_frontier = \"shared\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.ftl.gc_frontier"), "{e}");
        parse("[device]\npreset = \"tlc-nvme\"\n[device.ftl]\ngc_frontier = \"shared\"\nwrite_buffer = 0\n").unwrap();
    }

    /// A device without a preset whose `[device.nand]` gives `cell` and `nand` (more keys),
    /// but no timing unless `nand` does.
    fn cell_device(cell: &str, nand: &str) -> String {
        format!(
            "[device.geometry]\nchannels = 2\nways = 1\nblocks_per_plane = 64\npages_per_block = 64\n\
             page_size = \"4KiB\"\noverprovisioning = 0.25\n\
             [device.nand]\ncell = \"{cell}\"\nchannel_rate = \"40MB/s\"\nendurance = 1000\n{nand}\
             [device.host]\ninterface = \"sata3\"\ncommand_overhead = \"5us\"\n"
        )
    }

    /// (read per page type, program per page type, erase), ns.
    fn timing_ns(c: &Config) -> (Vec<u64>, Vec<u64>, u64) {
        (c.device.read_ns(), c.device.program_ns(), c.device.erase_ns())
    }

    #[test]
    fn cell_alone_gives_its_typical_timing() {
        for (cell, bits, read, program, erase) in [
            ("slc", 1, 25_000, 200_000, 1_500_000),
            ("mlc", 2, 50_000, 750_000, 3_000_000),
            ("tlc", 3, 75_000, 1_125_000, 4_500_000),
            ("qlc", 4, 130_000, 2_800_000, 4_500_000),
        ] {
            let c = parse(&cell_device(cell, "")).unwrap_or_else(|e| panic!("{cell}: {e}"));
            assert_eq!(timing_ns(&c), (vec![read; bits], vec![program; bits], erase), "{cell}");
            assert_eq!(c.device.nand.typical_keys(), CELL_TIMING_KEYS, "{cell}");
        }
    }

    #[test]
    fn timing_keys_not_written_come_from_the_cell() {
        // Only the program time written: read and erase are the MLC cell's.
        let c = parse(&cell_device("mlc", "program = [\"500us\", \"1.5ms\"]\n")).unwrap();
        assert_eq!(timing_ns(&c), (vec![50_000; 2], vec![500_000, 1_500_000], 3_000_000));
        assert_eq!(c.device.nand.typical_keys(), ["read", "erase"]);
        // Only the erase time written.
        let c = parse(&cell_device("slc", "erase = \"2ms\"\n")).unwrap();
        assert_eq!(timing_ns(&c), (vec![25_000], vec![200_000], 2_000_000));
    }

    #[test]
    fn timing_left_to_the_cell_follows_a_cell_set_on_top() {
        let text = cell_device("tlc", "read = \"60us\"\n");
        let o = vec!["device.nand.cell=qlc".to_string()];
        let c = parse_config_with(&text, "t.toml", Path::new("."), &o).unwrap();
        // The written read time stays (one value for every page type of the new cell); the
        // program and erase times are QLC's, not TLC's.
        assert_eq!(timing_ns(&c), (vec![60_000; 4], vec![2_800_000; 4], 4_500_000));
        // A written per-page-type list does not follow the cell: it no longer fits.
        let text = cell_device("mlc", "read = [\"50us\", \"60us\"]\n");
        let e = parse_config_with(&text, "t.toml", Path::new("."), &o)
            .unwrap_err()
            .to_string();
        assert!(e.contains("device.nand.read: got 2 durations"), "{e}");
    }

    #[test]
    fn explicit_preset_timing_stays_when_the_cell_changes() {
        // slc-sata writes its SLC timing: a run file setting cell = "mlc" keeps it.
        let c = parse("[device]\npreset = \"slc-sata\"\n[device.nand]\ncell = \"mlc\"\n").unwrap();
        assert_eq!(c.device.nand.cell, CellType::Mlc);
        assert_eq!(timing_ns(&c), (vec![25_000; 2], vec![200_000; 2], 1_500_000));
        assert!(c.device.nand.typical_keys().is_empty());
    }

    #[test]
    fn hotr_preset_takes_its_timing_from_its_cell() {
        let c = load_config("hotr").unwrap();
        assert_eq!(timing_ns(&c), (vec![75_000; 3], vec![1_125_000; 3], 4_500_000));
        // The DiskSim SSD extension's device: 16 GiB raw, die-level operations, write-through,
        // FCFS without suspension.
        let g = &c.device.geometry;
        let raw = (g.channels * g.ways * g.dies_per_chip * g.planes_per_die * g.blocks_per_plane) as u64
            * g.pages_per_block as u64
            * g.page_size.0;
        assert_eq!(raw, 16 << 30);
        assert!(!c.device.nand.plane_parallel);
        assert_eq!(c.device.ftl.write_buffer, Size(0));
        assert_eq!(c.device.scheduler.policy, crate::scheduler::Policy::Fcfs);
        assert!(c.device.scheduler.suspend.is_empty());
        // A run file's cell switches the whole timing.
        let c = parse("[device]\npreset = \"hotr\"\n[device.nand]\ncell = \"qlc\"\n").unwrap();
        assert_eq!(timing_ns(&c), (vec![130_000; 4], vec![2_800_000; 4], 4_500_000));
        // So does --set.
        let c = load_config_with("hotr", &["device.nand.cell=slc".to_string()]).unwrap();
        assert_eq!(timing_ns(&c), (vec![25_000], vec![200_000], 1_500_000));
        // A timing the run file writes stays; the others follow the cell.
        let c = parse("[device]\npreset = \"hotr\"\n[device.nand]\ncell = \"mlc\"\nprogram = \"1ms\"\n").unwrap();
        assert_eq!(timing_ns(&c), (vec![50_000; 2], vec![1_000_000; 2], 3_000_000));
        // `config show` gives the values in force and where they come from.
        let shown = preset_defaults("hotr").unwrap();
        for line in [
            "#   read = \"75us\" (unset: typical for cell = \"tlc\")",
            "#   program = \"1.125ms\" (unset: typical for cell = \"tlc\")",
            "#   erase = \"4.5ms\" (unset: typical for cell = \"tlc\")",
        ] {
            assert!(shown.contains(line), "{line} not in:\n{shown}");
        }
    }

    #[test]
    fn errors_name_file_key_and_line() {
        let e = parse("[device]\npreset = \"tlc-nvme\"\n[device.nand]\nerase = \"3 furlongs\"\n")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("t.toml") && e.contains("furlongs"), "{e}");
        let e = parse("[device]\npreset = \"tlc-nvme\"\nwarp = 9\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("warp"), "{e}");
        let e = parse("[device\n").unwrap_err().to_string();
        assert!(e.starts_with("t.toml:1:"), "{e}");
        assert!(!e.contains('\n'), "one line: {e}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Replace one value of a preset with arbitrary text: an error or a valid config, never a panic.
        #[test]
        fn mutated_configs_never_panic(line in 0usize..60, junk in "\\PC{0,12}") {
            let text = preset_text("mlc-sata").unwrap();
            let mut lines: Vec<String> = text.lines().map(String::from).collect();
            let i = line % lines.len();
            if let Some((k, _)) = lines[i].clone().split_once('=') {
                lines[i] = format!("{k}= {junk}");
            } else {
                lines[i] = junk.clone();
            }
            let _ = parse(&lines.join("\n"));
        }

        #[test]
        fn numeric_extremes_never_panic(key in proptest::sample::select(vec![
            "channels", "ways", "dies_per_chip", "planes_per_die", "blocks_per_plane", "pages_per_block",
            "page_size", "mapping_unit", "overprovisioning"]), v in proptest::num::i64::ANY) {
            let text = format!("[device]\npreset = \"mlc-sata\"\n[device.geometry]\n{key} = {v}\n");
            let _ = parse(&text);
        }
    }
}
