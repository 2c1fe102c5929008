//! The `[array]` table: a volume's layout and its members (each a preset, a run file or a
//! measured drive's profile). The loader ([`crate::config`]) resolves the members.

use crate::units::Size;
use serde::{Deserialize, Serialize};

/// `[array]`: a volume over several member devices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrayConfig {
    /// A name of [`REGISTRY`], or `rodi`.
    #[serde(default = "default_layout")]
    pub layout: String,
    /// Chunk size of the striped layouts (Windows software RAID 0, the seed's array, stripes
    /// in 64 KiB).
    #[serde(default = "default_stripe_unit")]
    pub stripe_unit: Size,
    /// Whether the pieces of one volume request that a member gets from consecutive stripes
    /// travel as one member request (true), or as one member request per stripe unit
    /// (false). How Windows' software RAID 0 issues them is not documented; the rodi
    /// experiment runs both.
    #[serde(default = "yes")]
    pub merge_parts: bool,
    /// `rodi`: besides the ranges of jobs with `readonly = true`, the extents (of
    /// `readonly_extent` bytes) that the jobs' traces read and never write are read-only.
    #[serde(default)]
    pub readonly_from_traces: bool,
    /// `rodi`: granularity of the trace analysis.
    #[serde(default = "default_extent")]
    pub readonly_extent: Size,
    #[serde(default)]
    pub member: Vec<MemberConfig>,
}

/// `[[array.member]]`: a member device.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemberConfig {
    /// Name in results (default: the device's own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A built-in device; or
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// a run file whose `[device]` this member is (relative to the run file); or
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// a measured drive: a device profile (`ssdlab profile`, `ssdlab characterize -o`),
    /// relative to the run file. None of the three: the run file's own `[device]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// A simulated member's measured curves (a device profile, e.g. `ssdlab characterize
    /// -o`): with them for every member, the result gives section 4's model beside the
    /// simulated throughput.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curves: Option<String>,
    /// `rodi`: this member holds the read-only extents.
    #[serde(default)]
    pub readonly: bool,
    /// `"run"`: preconditioned as the run's `[precondition]` says; `"own"`: as its preset's
    /// or run file's (a drive in the state its preset describes, e.g. a used one).
    #[serde(default = "default_precondition")]
    pub precondition: String,
}

fn default_precondition() -> String {
    "run".into()
}

fn default_layout() -> String {
    "raid0".into()
}

fn yes() -> bool {
    true
}

fn default_stripe_unit() -> Size {
    Size(64 * 1024)
}

fn default_extent() -> Size {
    Size(1 << 20)
}

/// Most members of an array.
pub const MAX_MEMBERS: usize = 64;
