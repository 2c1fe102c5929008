//! Host requests: what workloads (synthetic jobs, trace replays) hand to the simulated device.

use serde::{Deserialize, Serialize};

/// The operation of a host request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
    Trim,
    /// Zone append (NVMe ZNS): a write to the zone starting at the request's offset, at the
    /// LBA the device picks (the zone's write pointer). fio counts it as a write.
    Append,
    /// Zone Management Send: an action on the zone starting at the request's offset, or with
    /// `true` (Select All) on every zone the action selects. Not an I/O: no statistics count it.
    Zone(ZoneAction, bool),
}

/// A zone management action (Zone Management Send, NVMe ZNS).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ZoneAction {
    Open,
    Close,
    Finish,
    Reset,
}

impl ZoneAction {
    pub fn name(self) -> &'static str {
        match self {
            ZoneAction::Open => "open",
            ZoneAction::Close => "close",
            ZoneAction::Finish => "finish",
            ZoneAction::Reset => "reset",
        }
    }
}

impl Op {
    /// The I/O directions, as fio reports them.
    pub const ALL: [Op; 3] = [Op::Read, Op::Write, Op::Trim];
    /// The direction fio counts the operation in: an append is a write. A zone management
    /// command is counted in none; the trim slot is returned so that no index is out of range,
    /// and the host model never records one (a debug build checks).
    pub fn index(self) -> usize {
        match self {
            Op::Read => 0,
            Op::Write | Op::Append => 1,
            Op::Trim => 2,
            Op::Zone(..) => {
                debug_assert!(false, "a zone management command has no I/O direction");
                2
            }
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
            Op::Append => "append",
            Op::Zone(a, _) => a.name(),
        }
    }
    /// Whether the operation writes data (a write or a zone append).
    pub fn writes(self) -> bool {
        matches!(self, Op::Write | Op::Append)
    }
}

/// One host request. `time_ns` is the arrival time for open-loop sources (trace timestamps,
/// rate-limited jobs); closed-loop sources leave it 0 and the host issues the request when a
/// queue slot frees up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub time_ns: u64,
    pub op: Op,
    /// Byte offset on the device's logical address space.
    pub offset: u64,
    /// Length in bytes (> 0).
    pub len: u64,
    /// Stream id, for data-placement schemes (`device.ftl.streams` gives each stream its
    /// own write frontier). Sources leave it 0 and the host model stamps the request with its
    /// job's `stream`; a source that separates data itself (hot from cold) sets it, and keeps it.
    pub stream: u32,
}

/// A stream of host requests for one job.
pub trait RequestSource {
    /// The next request, `Ok(None)` at the end. `now_ns` is the simulated time at which the
    /// host asks (useful for time-limited jobs).
    fn next_request(&mut self, now_ns: u64) -> crate::Result<Option<Request>>;

    /// The offset of the request `k` places after the one last returned, if the source knows
    /// it already (a hint: the host model prefetches the device's map entries for it).
    fn upcoming(&self, _k: usize) -> Option<u64> {
        None
    }

    /// What the source has to say about itself once the run is over (a trace replay's
    /// counters: records read, filtered out, skipped lines), merged into the job's result.
    fn report(&self) -> Option<serde_json::Value> {
        None
    }
}
