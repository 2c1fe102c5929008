//! The `[device.redundancy]` section: which scheme keeps copies or parity, and its knobs.

use crate::units::Duration;
use serde::{Deserialize, Serialize};

/// `[device.redundancy]`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedundancyConfig {
    /// "none" (default), or a scheme of [`REGISTRY`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheme: Option<String>,
    /// hotr: share of the host capacity the R-LRU lists track (the entries of recently read
    /// pages and their Counts); default 0.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub track_share: Option<f64>,
    /// hotr: share of the tracked pages that may hold a copy (the copy budget, chosen by
    /// Count); default 0.1, the seed's "10 % of the hot read pages".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hot_share: Option<f64>,
    /// hotr: where the scratch space is: "chips" (default: dedicated spare chips) or "op" (a
    /// share of the over-provisioning: blocks lent by every plane).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch: Option<String>,
    /// hotr with scratch = "op": the scratch space as a share of the host capacity; default
    /// 0.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch_share: Option<f64>,
    /// hotr: dedicated spare chips holding the scratch space, each on a channel of its own;
    /// default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spare_chips: Option<u32>,
    /// hotr with scratch = "op": where the lent blocks come from: "added" (default: blocks
    /// added to every plane, counted in the space cost; the GC keeps the over-provisioning it
    /// had) or "spare" (taken from the over-provisioning: the GC has that much less).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch_blocks: Option<String>,
    /// hotr with spare chips: how the scratch space is programmed: "data" (default: as the
    /// data chips' cells) or "slc" (SLC mode: one bit per cell, the cell table's SLC read and
    /// program times).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scratch_cell: Option<String>,
    /// hotr: which R-LRU hits copy their page to the scratch space: "hit" (default: every
    /// hit of an entry without a copy, the proactive migration of hot pages in the seed's
    /// section III.B) or "conflict" (only conflicting hits, Figure 4's path alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migrate: Option<String>,
    /// hotr with scratch = "op": which copies a data unit takes: "payoff" (default: a copy
    /// only when the reads it is expected to save outweigh the wait it is expected to cause
    /// the host operations arriving at its unit while it programs) or "idle" (any copy to an
    /// idle unit, as on spare chips).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op_copies: Option<String>,
    /// rails: when a write completes: "cache" (default: its data is in Rails' NVRAM cache)
    /// or "flash" (its write-mode copy is programmed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack: Option<String>,
    /// rails: time between role swaps; default 100 ms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period: Option<Duration>,
    /// ttflash: data chips per parity chip (a stripe of `stripe` + 1 chips); default 4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stripe: Option<u32>,
}

pub const DEFAULT_HOT_SHARE: f64 = 0.1;

pub const DEFAULT_TRACK_SHARE: f64 = 0.1;

pub const DEFAULT_SPARE_CHIPS: u32 = 1;

pub const DEFAULT_PERIOD_NS: u64 = 100_000_000;

pub const DEFAULT_STRIPE: u32 = 4;

impl RedundancyConfig {
    /// The scheme's name ("none" without one).
    pub fn scheme(&self) -> &str {
        self.scheme.as_deref().unwrap_or("none")
    }
    pub fn hot_share(&self) -> f64 {
        self.hot_share.unwrap_or(DEFAULT_HOT_SHARE)
    }
    pub fn track_share(&self) -> f64 {
        self.track_share.unwrap_or(DEFAULT_TRACK_SHARE)
    }
    /// hotr with scratch = "op": the lent blocks are added to every plane.
    pub fn scratch_added(&self) -> bool {
        self.scratch_in_op() && self.scratch_blocks.as_deref() != Some("spare")
    }
    /// hotr: the scratch space is programmed in SLC mode.
    pub fn scratch_slc(&self) -> bool {
        self.scratch_cell.as_deref() == Some("slc")
    }
    /// hotr: the scratch space is a share of the over-provisioning.
    pub fn scratch_in_op(&self) -> bool {
        self.scratch.as_deref() == Some("op")
    }
    pub fn scratch_share(&self) -> f64 {
        self.scratch_share.unwrap_or(DEFAULT_HOT_SHARE)
    }
    pub fn spare_chips(&self) -> u32 {
        self.spare_chips.unwrap_or(DEFAULT_SPARE_CHIPS)
    }
    /// hotr: every R-LRU hit without a copy migrates (else only conflicting ones).
    pub fn migrate_on_hit(&self) -> bool {
        self.migrate.as_deref() != Some("conflict")
    }
    /// hotr with scratch = "op": a copy to a data unit must pay for itself.
    pub fn op_copies_pay(&self) -> bool {
        self.scratch_in_op() && self.op_copies.as_deref() != Some("idle")
    }
    /// rails: a write completes when its write-mode copy is programmed.
    pub fn ack_flash(&self) -> bool {
        self.ack.as_deref() == Some("flash")
    }
    pub fn period_ns(&self) -> u64 {
        self.period.map_or(DEFAULT_PERIOD_NS, |d| d.0)
    }
    pub fn stripe(&self) -> u32 {
        self.stripe.unwrap_or(DEFAULT_STRIPE)
    }
}
