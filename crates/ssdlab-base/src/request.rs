//! Host requests: what workloads (synthetic jobs, trace replays) hand to the simulated device.

use serde::{Deserialize, Serialize};

/// The operation of a host request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Read,
    Write,
    Trim,
}

impl Op {
    pub const ALL: [Op; 3] = [Op::Read, Op::Write, Op::Trim];
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
        }
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
