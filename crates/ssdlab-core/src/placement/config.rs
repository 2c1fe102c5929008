//! The `[device.placement]` section: which open superblock a host write goes to
//! ([`crate::placement`]).

use crate::units::{Duration, Size};
use serde::{Deserialize, Serialize};

/// Data placement (`crate::placement`): which open superblock a host write goes to. The
/// default, "plane", is the engine's per-plane frontiers (no superblocks).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlacementConfig {
    /// "plane" (per-plane frontiers), or a superblock policy of `crate::placement::REGISTRY`:
    /// baseline, partial-gc, multi-stream, fdp, autostream, plan-nopred-1/4, plan-nopred-1/8,
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
    /// FDP: "initial" (GC survivors of every handle share GC's reclaim unit) or "persistent"
    /// (each handle's survivors go to a GC reclaim unit of its own).
    #[serde(default = "default_isolation")]
    pub isolation: String,
    /// FDP: reclaim groups of the endurance group, each an equal share of the chips of every
    /// channel; every handle has an open reclaim unit in each, and fio's placement identifier
    /// index `r·open_superblocks + h` names handle `h` in group `r`.
    #[serde(default = "default_reclaim_groups")]
    pub reclaim_groups: u32,
}

fn default_reclaim_groups() -> u32 {
    1
}

impl PlacementConfig {
    /// The placement handles a write may name: a handle in each reclaim group (FDP), else
    /// the open superblocks.
    pub fn placement_handles(&self) -> u32 {
        self.open_superblocks * self.reclaim_groups
    }
}

fn default_isolation() -> String {
    "initial".into()
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
        crate::defaults::from_no_keys()
    }
}
