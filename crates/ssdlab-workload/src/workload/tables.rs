//! The tables of a job that select a generator other than fio's: `[job.fs]` (an application
//! on a file system, `crate::workload::fs`) and `[job.hpc]` (the HPC-like generator,
//! `crate::workload::hpc`). Here, below both the job and the generators, so that a job holds
//! them and each generator reads the job without an import loop.

use crate::units::Size;
use serde::{Deserialize, Serialize};

/// `[job.fs]`: the application and its parameters. Every key but `app` is optional; each
/// application reads its own keys (docs/workloads.md), and a key it does not read is an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FsJob {
    /// The application: a name of [`crate::workload::fs::REGISTRY`].
    pub app: String,
    /// Share of the job's region the application's data set occupies (0 < fill < 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill: Option<f64>,
    /// fio: block size of the random I/O.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs: Option<Size>,
    /// fio, tpcc, ycsb: share of the operations that read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_share: Option<f64>,
    /// tpcc, ycsb: zipf exponent of the page or key popularity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theta: Option<f64>,
    /// tpcc: size of the circular redo log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_size: Option<Size>,
    /// tpcc: transactions between checkpoints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<u64>,
    /// ycsb: size of a record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_size: Option<Size>,
    /// ycsb: size of the memtable (and of an L0 SST before deduplication).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memtable: Option<Size>,
    /// ycsb: target size of an SST written by compaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sst_size: Option<Size>,
    /// fileserver, gcc: mean size of a file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_size: Option<Size>,
    /// fileserver: mean size of an append.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append_size: Option<Size>,
    /// fileserver: concurrent instances of the flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instances: Option<u64>,
    /// gcc: linked binaries per build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binaries: Option<u64>,
    /// gcc: the user's other files written beside each build, as a share of its source tree.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_lived: Option<f64>,
    /// gcc: builds a long-lived file outlives (it is deleted as that many builds later start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long_lived_builds: Option<u64>,
    /// All: the file system's journal and metadata writes (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<bool>,
    /// All: when a deleted file's blocks are trimmed (default immediate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard: Option<Discard>,
    /// All, with `discard = "periodic"`: bytes of new file data between two fstrims (default:
    /// the file system's size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fstrim_every: Option<Size>,
}

/// When the file system tells the device that a deleted file's blocks are free.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Discard {
    /// At the delete, a TRIM of each of the file's extents (ext4's `-o discard`).
    #[default]
    Immediate,
    /// Every `fstrim_every` bytes of new file data, a TRIM of every free extent (`fstrim`
    /// run periodically, as a timer does).
    Periodic,
    /// Never: the device learns a block is free only when the file system writes it again
    /// (ext4's default `nodiscard` without `fstrim`).
    None,
}

impl FsJob {
    /// The keys of the table.
    pub const KEYS: [&'static str; 19] = [
        "app",
        "fill",
        "bs",
        "read_share",
        "theta",
        "log_size",
        "checkpoint",
        "value_size",
        "memtable",
        "sst_size",
        "file_size",
        "append_size",
        "instances",
        "binaries",
        "long_lived",
        "long_lived_builds",
        "metadata",
        "discard",
        "fstrim_every",
    ];

    /// The keys of the table other than `app`, with whether each is set.
    pub(crate) fn keys(&self) -> [(&'static str, bool); 18] {
        [
            ("fill", self.fill.is_some()),
            ("bs", self.bs.is_some()),
            ("read_share", self.read_share.is_some()),
            ("theta", self.theta.is_some()),
            ("log_size", self.log_size.is_some()),
            ("checkpoint", self.checkpoint.is_some()),
            ("value_size", self.value_size.is_some()),
            ("memtable", self.memtable.is_some()),
            ("sst_size", self.sst_size.is_some()),
            ("file_size", self.file_size.is_some()),
            ("append_size", self.append_size.is_some()),
            ("instances", self.instances.is_some()),
            ("binaries", self.binaries.is_some()),
            ("long_lived", self.long_lived.is_some()),
            ("long_lived_builds", self.long_lived_builds.is_some()),
            ("metadata", self.metadata.is_some()),
            ("discard", self.discard.is_some()),
            ("fstrim_every", self.fstrim_every.is_some()),
        ]
    }
}

/// A bad value: the key at fault, relative to the job (`fs.theta`, `size`), and
/// `what was wrong; expected WHAT`.
#[derive(Clone, Debug, PartialEq)]
pub struct BadKey {
    pub key: String,
    pub msg: String,
}

impl BadKey {
    pub fn new(key: &str, msg: impl Into<String>) -> BadKey {
        BadKey {
            key: key.to_string(),
            msg: msg.into(),
        }
    }
}

/// `[job.hpc]`: the generator's knobs, every one optional (docs/workloads.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HpcJob {
    /// Share of the requests that read (0 to 1). The seed's setting "HPC 46" read as 0.46.
    #[serde(default = "default_read_share")]
    pub read_share: f64,
    /// Mean arrival rate, requests per second per clone: a Poisson process (open loop).
    #[serde(default = "default_rate")]
    pub rate: f64,
    /// Probability that a read goes to the hot read set (0 to 1).
    #[serde(default = "default_read_locality")]
    pub read_locality: f64,
    /// Size of the hot read set, a share of the job's region (above 0, below 1).
    #[serde(default = "default_hot_share")]
    pub hot_share: f64,
    /// Popularity inside the hot read set: Zipf with this exponent θ over its blocks (0, the
    /// default: uniform; at most 4).
    #[serde(default)]
    pub hot_zipf: f64,
    /// Probability that a request continues where the previous one of its kind ended (0 to 1).
    #[serde(default = "default_sequentiality")]
    pub sequentiality: f64,
    /// Size of every request; offsets are multiples of it.
    #[serde(default = "default_bs")]
    pub bs: Size,
}

fn default_read_share() -> f64 {
    0.46
}
fn default_rate() -> f64 {
    2000.0
}
fn default_read_locality() -> f64 {
    0.9
}
fn default_hot_share() -> f64 {
    0.1
}
fn default_sequentiality() -> f64 {
    0.3
}
fn default_bs() -> Size {
    Size(4096)
}

impl Default for HpcJob {
    fn default() -> Self {
        crate::defaults::from_no_keys()
    }
}

impl HpcJob {
    /// The keys of the table.
    pub const KEYS: [&'static str; 7] = [
        "read_share",
        "rate",
        "read_locality",
        "hot_share",
        "hot_zipf",
        "sequentiality",
        "bs",
    ];
}
