//! A fio-style job: what to issue (rw, bs, bssplit, rwmixread, offset/size, distribution) and
//! how (iodepth, numjobs, rate_iops, number_ios / io_size / runtime), or a trace to replay.

use crate::request::{Op, Request, RequestSource};
use crate::trace::ReplayConfig;
use crate::units::{Duration, Size};
use crate::workload::tables::{FsJob, HpcJob};
use crate::{Error, Result};
use rand::{Rng, SeedableRng};
use rand_distr::Distribution;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rw {
    Read,
    Write,
    Trim,
    RandRead,
    RandWrite,
    RandTrim,
    #[serde(alias = "readwrite")]
    Rw,
    RandRw,
    /// fio's `trimwrite`: each block trimmed, then written (sequentially).
    TrimWrite,
    /// fio's `randtrimwrite`: as `trimwrite` at random offsets.
    RandTrimWrite,
}

impl Rw {
    pub fn parse(s: &str) -> Option<Rw> {
        Some(match s {
            "read" => Rw::Read,
            "write" => Rw::Write,
            "trim" => Rw::Trim,
            "randread" => Rw::RandRead,
            "randwrite" => Rw::RandWrite,
            "randtrim" => Rw::RandTrim,
            "rw" | "readwrite" => Rw::Rw,
            "randrw" => Rw::RandRw,
            "trimwrite" => Rw::TrimWrite,
            "randtrimwrite" => Rw::RandTrimWrite,
            _ => return None,
        })
    }
    /// Whether the job's offsets are random.
    pub fn random(self) -> bool {
        matches!(
            self,
            Rw::RandRead | Rw::RandWrite | Rw::RandTrim | Rw::RandRw | Rw::RandTrimWrite
        )
    }
    /// fio's `trimwrite` and `randtrimwrite`: a trim, then a write of the same block.
    pub fn trim_then_write(self) -> bool {
        matches!(self, Rw::TrimWrite | Rw::RandTrimWrite)
    }
}

/// `size` and `offset` accept a size (`"8GiB"`) or a share of the device (`"50%"`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SizeOrShare {
    Bytes(Size),
    Text(String),
}

impl<'de> Deserialize<'de> for SizeOrShare {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::{Error as _, Visitor};
        struct V;
        impl Visitor<'_> for V {
            type Value = SizeOrShare;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a size such as \"8GiB\" or a share of the device such as \"50%\"")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> std::result::Result<SizeOrShare, E> {
                Ok(SizeOrShare::Bytes(Size(v)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> std::result::Result<SizeOrShare, E> {
                u64::try_from(v).map(|v| SizeOrShare::Bytes(Size(v))).map_err(|_| {
                    E::custom(format!(
                        "got {v}; expected a size of at least 0 or a share such as \"50%\""
                    ))
                })
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<SizeOrShare, E> {
                Ok(SizeOrShare::Text(v.to_string()))
            }
        }
        d.deserialize_any(V)
            .map_err(|e: D::Error| D::Error::custom(e.to_string().replace(", expected", "; expected")))
    }
}

impl SizeOrShare {
    pub fn resolve(&self, capacity: u64) -> std::result::Result<u64, String> {
        match self {
            SizeOrShare::Bytes(s) => Ok(s.0),
            SizeOrShare::Text(t) => {
                if let Some(p) = t.trim().strip_suffix('%') {
                    let v: f64 = p
                        .trim()
                        .parse()
                        .map_err(|_| format!("'{t}' is not a percentage; expected e.g. \"50%\""))?;
                    if !(0.0..=100.0).contains(&v) {
                        return Err(format!("got '{t}'; expected a percentage between 0 and 100"));
                    }
                    Ok(((capacity as f64 * v / 100.0) as u64) / 4096 * 4096)
                } else if SizeOrShare::zones_in(t).is_some() {
                    Err(format!(
                        "'{t}' counts zones, which only a job with zonemode=zbd on a zoned device has; expected zonemode=zbd or a size in bytes"
                    ))
                } else {
                    crate::units::parse_size(t)
                }
            }
        }
    }

    /// fio's `z` suffix: `"100z"` is 100 zones.
    pub fn zones_in(t: &str) -> Option<u64> {
        t.trim().strip_suffix(['z', 'Z']).and_then(|n| n.trim().parse().ok())
    }

    /// The value with a count of zones (`"100z"`) made bytes with zones of `zone` bytes.
    pub fn with_zones(&self, zone: u64) -> std::result::Result<SizeOrShare, String> {
        match self {
            SizeOrShare::Text(t) => match SizeOrShare::zones_in(t) {
                Some(n) => n
                    .checked_mul(zone)
                    .map(|b| SizeOrShare::Bytes(Size(b)))
                    .ok_or_else(|| format!("'{t}' of {zone}-byte zones passes 2^64 bytes")),
                None => Ok(self.clone()),
            },
            SizeOrShare::Bytes(_) => Ok(self.clone()),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobConfig {
    #[serde(default = "default_name")]
    pub name: String,
    #[serde(default = "default_rw")]
    pub rw: Rw,
    /// Percentage of reads in mixed jobs.
    #[serde(default = "default_mix")]
    pub rwmixread: u32,
    #[serde(default = "default_bs")]
    pub bs: Size,
    /// `"4k/50:64k/50"`: block sizes with percentages (overrides bs); fio's comma-separated
    /// lists give reads', writes' and trims' ([`by_direction`]).
    #[serde(default)]
    pub bssplit: Option<String>,
    /// fio's `bsrange`: `"4k-16k"`, each I/O's size drawn uniformly among the multiples of
    /// the smallest (of 512 bytes with `bs_unaligned`) from one to the other; comma-separated
    /// by direction as `bssplit`. Overrides `bs` and `bssplit`.
    #[serde(default)]
    pub bsrange: Option<String>,
    /// fio's `bs_unaligned`: `bsrange` sizes in multiples of 512 bytes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bs_unaligned: bool,
    /// fio's `blockalign`: random offsets are multiples of this (default: the smallest
    /// block size).
    #[serde(default)]
    pub blockalign: Option<Size>,
    /// fio's `rw=...:N` suffix: for a sequential job, bytes skipped (negative: gone back)
    /// after each I/O; for a random one, the I/Os from each random offset on (the others
    /// follow it as `rw_sequencer` says).
    #[serde(default)]
    pub rw_modifier: Option<i64>,
    /// fio's `rw_sequencer`: the I/Os of `rw=randread:N` between random offsets are
    /// "sequential" (each after the one before) or "identical" (the same offset again).
    #[serde(default = "default_sequencer")]
    pub rw_sequencer: String,
    /// fio's `random_sequence_stride`: a `sequence` distribution's indices are relative to a
    /// group of blocks that moves on by the sequence's length after each cycle (true), or
    /// absolute and repeated (false, the default).
    #[serde(default)]
    pub random_sequence_stride: bool,
    /// fio's `exitall`: when one of the job's clones ends, the clones named by `exit_what`
    /// issue nothing more.
    #[serde(default)]
    pub exitall: bool,
    /// fio's `exit_what`: which clones `exitall` ends: "group" (its reporting group, the
    /// default), "stonewall" (its phase) or "all".
    #[serde(default = "default_exit_what")]
    pub exit_what: String,
    /// fio's `percentage_random`: the share of a random job's I/Os (per direction: read,
    /// write, trim) at a random offset; the others continue sequentially.
    #[serde(default)]
    pub percentage_random: Option<Vec<u32>>,
    #[serde(default = "one")]
    pub iodepth: u32,
    #[serde(default = "one")]
    pub numjobs: u32,
    /// fio's `loops`: the job runs this many times over (its bytes and `number_ios` times
    /// this, as fio counts them).
    #[serde(default = "one")]
    pub loops: u32,
    #[serde(default)]
    pub offset: Option<SizeOrShare>,
    /// fio's `offset_increment`: clone N (from 0) starts at `offset` + N × this, each on a
    /// range of `size` of its own.
    #[serde(default)]
    pub offset_increment: Option<SizeOrShare>,
    /// fio's `fill_device`: the range runs from `offset` to the end of the device, whatever
    /// `size` says (fio writes until the device is full).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fill_device: bool,
    /// Region the job works on (default: from offset to the end of the device).
    #[serde(default)]
    pub size: Option<SizeOrShare>,
    /// Bytes to transfer per clone (default: `size`, one pass).
    #[serde(default)]
    pub io_size: Option<Size>,
    /// Requests per clone.
    #[serde(default)]
    pub number_ios: Option<u64>,
    /// Simulated run time, after `ramp_time`.
    #[serde(default)]
    pub runtime: Option<Duration>,
    /// Run for `runtime` even when `size` has been covered, looping over it (fio's
    /// `time_based`).
    #[serde(default)]
    pub time_based: bool,
    /// Run this long before statistics start (fio's `ramp_time`); it adds to `runtime`.
    #[serde(default)]
    pub ramp_time: Option<Duration>,
    /// fio's `startdelay`: the job's clones start this long after the job's phase (its
    /// `ramp_time` and `runtime` count from then).
    #[serde(default)]
    pub startdelay: Option<Duration>,
    /// random, zipf:θ, pareto:h, normal[:σ%], zoned:A/R:...
    #[serde(default = "default_dist")]
    pub random_distribution: String,
    #[serde(default)]
    pub seed: Option<u64>,
    /// Open loop: issue at this rate (per clone) regardless of completions.
    #[serde(default)]
    pub rate_iops: Option<u64>,
    /// fio's `rate`: open loop at this many bytes per second (per clone): each request
    /// arrives when the bytes before it are due. By direction as fio's comma list; a job
    /// whose directions would differ is refused.
    #[serde(default)]
    pub rate: Option<String>,
    /// fio's `rate_process`: "linear" (evenly spaced arrivals) or "poisson" (exponential
    /// gaps of the same mean).
    #[serde(default = "default_rate_process")]
    pub rate_process: String,
    /// fio's `thinktime`: once an I/O completes, its queue slot waits this long before the
    /// clone issues the next one (an application's own work between I/Os). Closed loop only.
    #[serde(default)]
    pub thinktime: Option<Duration>,
    /// The host's own time per I/O (the submission and completion path: system call, file
    /// system, block layer, driver, interrupt), spent by the clone's thread: one I/O's host
    /// time does not overlap another's of the same clone, and overlaps other clones'. It
    /// counts in the I/O's latency. Not a fio key (fio measures the host it runs on); closed
    /// loop only.
    #[serde(default)]
    pub host_time: Option<Duration>,
    /// Stream id for placement schemes.
    #[serde(default)]
    pub stream: u32,
    /// fio's `dataplacement`: the directive each write carries, "none", "fdp" (an NVMe FDP
    /// placement identifier) or "streams" (`placement_ids`).
    #[serde(default = "default_dataplacement")]
    pub dataplacement: String,
    /// fio's `plids` (alias `fdp_pli`): the placement identifier indices (FDP) or stream ids
    /// the writes use, values and ranges (`0,2-4`); by default every handle of the device.
    #[serde(default)]
    pub plids: Option<String>,
    /// fio's `plid_select` (alias `fdp_pli_select`): "roundrobin" or "random".
    #[serde(default = "default_plid_select")]
    pub plid_select: String,
    /// fio's `zonemode`: "none", or "zbd" (a zoned block device: writes go to each zone's
    /// write pointer, reads stay below it, full zones are reset before they are written again;
    /// [`crate::workload::zbd`]). Needs a zoned device (design "zns").
    #[serde(default = "default_zonemode", skip_serializing_if = "is_none_mode")]
    pub zonemode: String,
    /// fio's `zonesize` (and `zonerange`, which zbd mode requires equal): the device's zone
    /// size, which the config fills in when unset; a different one is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zonesize: Option<Size>,
    /// fio's `zonecapacity`: the device's zone capacity (filled in as `zonesize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zonecapacity: Option<Size>,
    /// fio's `max_open_zones`: zones all jobs write at once (default the device's open limit;
    /// above it only with `ignore_zone_limits`; 0: no limit where the device has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_open_zones: Option<u32>,
    /// fio's `job_max_open_zones`: zones each clone writes at once (0: no limit).
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub job_max_open_zones: u32,
    /// fio's `ignore_zone_limits`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_zone_limits: bool,
    /// fio's `zone_reset_threshold` and `zone_reset_frequency`: once the zones of the clone's
    /// range hold more than this share of it, every (1 / frequency)-th write resets its zone first.
    #[serde(default, skip_serializing_if = "is_zero_f")]
    pub zone_reset_threshold: f64,
    #[serde(default, skip_serializing_if = "is_zero_f")]
    pub zone_reset_frequency: f64,
    /// fio's `read_beyond_wp`: reads may pass a zone's write pointer (no data there).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_beyond_wp: bool,
    /// fio's `write_zone_remainders`: a zone's tail shorter than the block size is written
    /// with a shorter write instead of the zone being finished.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub write_zone_remainders: bool,
    /// Writes are sent as zone appends (fio's `write_mode=zone_append` of io_uring_cmd, its
    /// SPDK plugin's `zone_append=1`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zone_append: bool,
    /// After every this many bytes a clone writes, it sends the device NVMe's Reclaim Unit
    /// Handle Update (FDP's I/O Management Send) for the placement identifiers its writes
    /// carried since the last one: each such handle's partly written reclaim unit is left
    /// as it is ("reclaim unit not fully written") and the handle's next write opens a new
    /// one. Not a fio key (fio has no option for the command).
    #[serde(default)]
    pub ruh_update_every: Option<Size>,
    /// Replay a trace instead of generating requests.
    #[serde(default)]
    pub trace: Option<ReplayConfig>,
    /// Generate the block I/O of an application on a file system instead (`[job.fs]`, see
    /// docs/workloads.md).
    #[serde(default)]
    pub fs: Option<FsJob>,
    /// Generate an HPC-like workload instead (`[job.hpc]`: read share, Poisson arrivals, read
    /// locality, sequentiality; see docs/workloads.md). Open loop.
    #[serde(default)]
    pub hpc: Option<HpcJob>,
    /// Trace replay timing: "open" (timestamps × speed) or "closed" (iodepth, ignore timestamps).
    #[serde(default)]
    pub replay: Option<String>,
    /// fio's `stonewall`: start when every job before this one has finished, in a new
    /// reporting group.
    #[serde(default)]
    pub stonewall: bool,
    /// fio's `new_group`: a new reporting group, started with the jobs before it.
    #[serde(default)]
    pub new_group: bool,
    /// fio's `group_reporting`: the job's clones (and the jobs after it in its reporting
    /// group that set it too) are reported as one `jobs[]` entry; without it each clone has
    /// its own entry, as fio writes them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub group_reporting: bool,
    /// fio's `readonly`: the job never writes; on a `rodi` array its range holds read-only
    /// data, placed on the read-only members.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub readonly: bool,
    /// Width of the bandwidth samples, ms of simulated time (fio's `bw_avg_time`).
    #[serde(default = "default_avg_time")]
    pub bw_avg_time: u64,
    /// Width of the IOPS samples, ms of simulated time (fio's `iops_avg_time`).
    #[serde(default = "default_avg_time")]
    pub iops_avg_time: u64,
    /// fio's latency logs: `PREFIX_lat.N.log`, `PREFIX_clat.N.log`, `PREFIX_slat.N.log`.
    #[serde(default)]
    pub write_lat_log: Option<String>,
    /// fio's bandwidth log `PREFIX_bw.N.log`.
    #[serde(default)]
    pub write_bw_log: Option<String>,
    /// fio's IOPS log `PREFIX_iops.N.log`.
    #[serde(default)]
    pub write_iops_log: Option<String>,
    /// Average the logs over windows of this many ms (0: a line per I/O).
    #[serde(default)]
    pub log_avg_msec: u64,
    /// fio's `percentile_list`: the completion-latency percentiles reported (fio's 17 by
    /// default).
    #[serde(default)]
    pub percentile_list: Option<Vec<f64>>,
    /// fio's `unified_rw_reporting`: "none" (a section per direction), "mixed" (one `mixed`
    /// section for every direction) or "both".
    #[serde(default = "default_unified")]
    pub unified_rw_reporting: String,
    /// Options of the fio job file that cannot change a simulation, accepted and listed
    /// (fio's option table, `fio_options`); empty for jobs of a run file.
    #[serde(skip)]
    pub ignored_options: Vec<String>,
    /// Log each I/O's offset (an extra column).
    #[serde(default)]
    pub log_offset: bool,
    /// The options as a fio job file's section gave them with a value (fio's `job options`);
    /// None for jobs of a run file.
    #[serde(skip)]
    pub job_options: Option<Vec<(String, String)>>,
    /// The options of the job file's `[global]` sections that have a value, as given (fio's
    /// `global options`, the same for every job of the file); empty for jobs of a run file.
    #[serde(skip)]
    pub global_options: Vec<(String, String)>,
}

fn default_name() -> String {
    "job".into()
}
fn default_rw() -> Rw {
    Rw::RandRead
}
fn default_mix() -> u32 {
    50
}
fn default_bs() -> Size {
    Size(4096)
}
fn one() -> u32 {
    1
}
fn default_avg_time() -> u64 {
    500
}
fn default_dist() -> String {
    "random".into()
}

fn default_dataplacement() -> String {
    "none".into()
}

fn default_plid_select() -> String {
    "roundrobin".into()
}

fn default_zonemode() -> String {
    "none".into()
}

fn is_none_mode(m: &str) -> bool {
    m == "none"
}

fn is_zero_u32(x: &u32) -> bool {
    *x == 0
}

fn is_zero_f(x: &f64) -> bool {
    *x == 0.0
}

fn default_unified() -> String {
    "none".into()
}

fn default_sequencer() -> String {
    "sequential".into()
}

fn default_exit_what() -> String {
    "group".into()
}

fn default_rate_process() -> String {
    "linear".into()
}

/// fio's values given by direction (`bs`, `bssplit`, `bsrange`, `rate`, ...): one value for
/// reads, writes and trims; `a,b` reads a, writes and trims b; three for each; an empty one,
/// or a trailing comma's, leaves that direction's default (None).
pub fn by_direction(s: &str) -> [Option<&str>; 3] {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    fn some<'a>(p: &&'a str) -> Option<&'a str> {
        (!p.is_empty()).then_some(*p)
    }
    match parts.as_slice() {
        [a] => [some(a), some(a), some(a)],
        [a, b] => [some(a), some(b), some(b)],
        [a, b, c, ..] => [some(a), some(b), some(c)],
        [] => [None; 3],
    }
}

impl Default for JobConfig {
    fn default() -> Self {
        crate::defaults::from_no_keys()
    }
}

/// Offset distribution of random jobs.
#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    Uniform,
    Zipf(f64),
    Pareto(f64),
    /// Normal around the middle, σ as a share of the range.
    Normal(f64),
    /// fio's `zoned:A/R:...`: A % of the accesses fall uniformly in the next R % of the range
    /// (zones in order from the start); each pair as (A, R), in whole percent.
    Zoned(Vec<(u32, u32)>),
    /// fio's `zoned_abs:A/SIZE:...`: A % of the accesses fall uniformly in the next SIZE
    /// bytes; each pair as (A, bytes).
    ZonedAbs(Vec<(u32, u64)>),
    /// fio's `sequence:i,j,...`: these block indices in this order, over and over (with
    /// `random_sequence_stride`, relative to a group that moves on after each cycle).
    Sequence(Vec<u64>),
}

pub fn parse_dist(s: &str) -> std::result::Result<Dist, String> {
    let (name, arg) = match s.split_once(':') {
        Some((n, a)) => (n.trim(), Some(a.trim())),
        None => (s.trim(), None),
    };
    let num = |what: &str| -> std::result::Result<f64, String> {
        let a = arg.ok_or_else(|| format!("'{s}': {name} needs a parameter; expected e.g. {name}:{what}"))?;
        a.parse::<f64>()
            .map_err(|_| format!("'{s}': '{a}' is not a number; expected e.g. {name}:{what}"))
    };
    match name {
        "random" | "uniform" => Ok(Dist::Uniform),
        "zipf" => {
            let t = num("1.2")?;
            if !(t > 0.0 && t.is_finite()) || t == 1.0 {
                return Err(format!("'{s}': got θ {t}; expected a positive θ other than 1"));
            }
            Ok(Dist::Zipf(t))
        }
        "pareto" => {
            let h = num("0.9")?;
            if !(h > 0.0 && h < 1.0) {
                return Err(format!("'{s}': got h {h}; expected h between 0 and 1"));
            }
            Ok(Dist::Pareto(h))
        }
        "normal" | "gauss" => {
            let d = if arg.is_some() { num("10")? } else { 10.0 };
            if !(d > 0.0 && d <= 100.0) {
                return Err(format!("'{s}': got deviation {d}; expected a percentage in (0, 100]"));
            }
            Ok(Dist::Normal(d / 100.0))
        }
        "zoned" | "zoned_abs" => {
            let abs = name == "zoned_abs";
            let arg = arg.unwrap_or("");
            let example = if abs { "zoned_abs:60/20g:30/100g:10/500g" } else { "zoned:60/10:30/20:10/70" };
            // As fio's zone_split_ddir: an access share or range left empty gets an equal part
            // of what the others leave.
            let mut zones: Vec<(Option<u32>, Option<u64>)> = Vec::new();
            for part in arg.split(':').filter(|p| !p.trim().is_empty()) {
                let bad = || {
                    format!("'{s}': zone '{part}' is not ACCESS%/RANGE{}; expected e.g. {example}", if abs { "" } else { "% in whole percent" })
                };
                let (a, r) = part.split_once('/').ok_or_else(bad)?;
                let a = match a.trim() {
                    "" => None,
                    a => Some(a.parse::<u32>().ok().filter(|&a| a <= 100).ok_or_else(bad)?),
                };
                let r = match r.trim() {
                    "" if abs => return Err(bad()),
                    "" => None,
                    r if abs => Some(crate::units::parse_size(r).map_err(|_| bad())?),
                    r => Some(r.parse::<u64>().ok().filter(|&r| r <= 100).ok_or_else(bad)?),
                };
                zones.push((a, r));
            }
            if zones.len() > 256 {
                return Err(format!("'{s}': {} zones; expected at most 256 (as fio)", zones.len()));
            }
            let fill = |known: u64, missing: usize| if missing == 0 { 0 } else { 100u64.saturating_sub(known) / missing as u64 };
            let acc_known: u64 = zones.iter().filter_map(|z| z.0).map(u64::from).sum();
            let acc_missing = zones.iter().filter(|z| z.0.is_none()).count();
            let range_known: u64 = if abs { 0 } else { zones.iter().filter_map(|z| z.1).sum() };
            let range_missing = zones.iter().filter(|z| z.1.is_none()).count();
            let (a_fill, r_fill) = (fill(acc_known, acc_missing), fill(range_known, range_missing));
            let zones: Vec<(u32, u64)> = zones
                .into_iter()
                .map(|(a, r)| (a.unwrap_or(a_fill as u32), r.unwrap_or(r_fill)))
                .collect();
            for &(a, r) in &zones {
                if a > 0 && r == 0 {
                    return Err(format!(
                        "'{s}': a zone of {a} % of the accesses has no range; expected a range above 0"
                    ));
                }
            }
            let acc: u64 = zones.iter().map(|z| u64::from(z.0)).sum();
            let range: u64 = zones.iter().map(|z| z.1).sum();
            if acc != 100 || (!abs && range > 100) {
                let ranges = if abs { String::new() } else { format!(" and their ranges to {range} %") };
                return Err(format!(
                    "'{s}': the zones' accesses add up to {acc} %{ranges}; expected accesses of 100 %{} (as fio)",
                    if abs { "" } else { " and ranges of at most 100 %" }
                ));
            }
            Ok(if abs {
                Dist::ZonedAbs(zones)
            } else {
                Dist::Zoned(zones.into_iter().map(|(a, r)| (a, r as u32)).collect())
            })
        }
        "sequence" => {
            let arg = arg.unwrap_or("");
            let idx: Vec<u64> = arg
                .split(',')
                .map(|i| i.trim().parse::<u64>())
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| format!("'{s}': not a list of block indices; expected e.g. sequence:2,0,1"))?;
            if idx.is_empty() || idx.len() > 64 {
                return Err(format!("'{s}': {} indices; expected 1 to 64 (as fio)", idx.len()));
            }
            Ok(Dist::Sequence(idx))
        }
        _ => Err(format!(
            "unknown distribution '{s}'; expected random, zipf:θ, pareto:h, normal[:σ%], zoned:A/R:..., zoned_abs:A/SIZE:... or sequence:I,J,..."
        )),
    }
}

/// Parse a bssplit string into (size, weight) pairs.
pub fn parse_bssplit(s: &str) -> std::result::Result<Vec<(u64, u32)>, String> {
    let mut out = Vec::new();
    for part in s.split(':').filter(|p| !p.trim().is_empty()) {
        let (bs, w) = part
            .split_once('/')
            .ok_or_else(|| format!("'{part}' is not SIZE/PERCENT; expected e.g. 4k/50:64k/50"))?;
        let bs = crate::units::parse_size(bs)?;
        let w: u32 = w
            .trim()
            .parse()
            .map_err(|_| format!("'{w}' is not a whole percentage; expected 0 to 100"))?;
        if bs == 0 || bs % 512 != 0 {
            return Err(format!("got block size {bs}; expected a positive multiple of 512"));
        }
        out.push((bs, w));
    }
    if let Some((_, w)) = out.iter().find(|x| x.1 > 100) {
        return Err(format!("weight {w} is above 100; expected percentages"));
    }
    let total: u64 = out.iter().map(|x| x.1 as u64).sum();
    if out.is_empty() || total == 0 {
        return Err(format!(
            "'{s}' has no weight; expected SIZE/PERCENT entries with a positive total"
        ));
    }
    if total > 100 {
        return Err(format!(
            "the weights add up to {total}; expected a total of at most 100"
        ));
    }
    Ok(out)
}

impl JobConfig {
    /// Which of read, write and trim the job may issue (a trace, an application on a file
    /// system or the HPC-like generator: any).
    pub fn ops(&self) -> [bool; 3] {
        if self.trace.is_some() || self.fs.is_some() || self.hpc.is_some() {
            return [true; 3];
        }
        match self.rw {
            Rw::Read | Rw::RandRead => [true, false, false],
            Rw::Write | Rw::RandWrite => [false, true, false],
            Rw::Trim | Rw::RandTrim => [false, false, true],
            Rw::Rw | Rw::RandRw => [self.rwmixread > 0, self.rwmixread < 100, false],
            Rw::TrimWrite | Rw::RandTrimWrite => [false, true, true],
        }
    }

    /// Resolved region [offset, offset + size) on a device of `capacity` bytes (the first
    /// clone's; see [`JobConfig::for_clone`]).
    pub fn region(&self, capacity: u64) -> std::result::Result<(u64, u64), String> {
        let off = match &self.offset {
            Some(o) => o.resolve(capacity)?,
            None => 0,
        };
        let size = match &self.size {
            Some(s) if !self.fill_device => s.resolve(capacity)?,
            _ => capacity.saturating_sub(off),
        };
        Ok((off, size))
    }

    /// The job as its clone `clone` (from 0) runs it: fio's `offset_increment` moves its
    /// offset by `clone` increments.
    pub fn for_clone(&self, clone: u32, capacity: u64) -> std::result::Result<JobConfig, String> {
        let mut j = self.clone();
        if let Some(inc) = &self.offset_increment {
            let step = inc.resolve(capacity)?;
            let off = match &self.offset {
                Some(o) => o.resolve(capacity)?,
                None => 0,
            };
            let moved = step
                .checked_mul(clone as u64)
                .and_then(|m| m.checked_add(off))
                .ok_or_else(|| format!("clone {clone}'s offset passes 2^64 bytes"))?;
            j.offset = Some(SizeOrShare::Bytes(Size(moved)));
        }
        Ok(j)
    }

    /// Every block size the job may issue, with its weight in its direction (the union of
    /// [`JobConfig::direction_sizes`]; a `bsrange` gives its ends).
    pub fn block_sizes(&self) -> std::result::Result<Vec<(u64, u32)>, String> {
        if let Some(r) = self.direction_ranges()? {
            let mut v: Vec<(u64, u32)> = r.iter().flat_map(|&(lo, hi, _)| [(lo, 100), (hi, 100)]).collect();
            v.sort_unstable();
            v.dedup();
            return Ok(v);
        }
        let dirs = self.direction_sizes()?;
        if dirs[0] == dirs[1] && dirs[1] == dirs[2] {
            return Ok(dirs[0].clone());
        }
        let mut v: Vec<(u64, u32)> = dirs.into_iter().flatten().collect();
        v.sort_unstable();
        v.dedup();
        Ok(v)
    }

    /// The block sizes of reads, writes and trims with their weights: `bssplit` (by
    /// direction, [`by_direction`]), or `bs`.
    pub fn direction_sizes(&self) -> std::result::Result<[Vec<(u64, u32)>; 3], String> {
        let Some(s) = &self.bssplit else {
            return Ok([0, 1, 2].map(|_| vec![(self.bs.0, 100)]));
        };
        if !s.contains(',') {
            let v = parse_bssplit(s)?;
            return Ok([v.clone(), v.clone(), v]);
        }
        let [r, w, t] = by_direction(s).map(|d| d.map_or_else(|| Ok(vec![(self.bs.0, 100)]), parse_bssplit));
        Ok([r?, w?, t?])
    }

    /// fio's `bsrange` by direction: (smallest, largest, step) of reads, writes and trims, or
    /// None without one.
    pub fn direction_ranges(&self) -> std::result::Result<Option<[(u64, u64, u64); 3]>, String> {
        let Some(s) = &self.bsrange else { return Ok(None) };
        let one = |d: Option<&str>| -> std::result::Result<(u64, u64, u64), String> {
            let Some(d) = d else {
                return Ok((self.bs.0, self.bs.0, self.bs.0));
            };
            let (lo, hi) = d
                .split_once('-')
                .ok_or_else(|| format!("'{d}' is not MIN-MAX; expected e.g. 4k-16k"))?;
            let lo = crate::units::parse_size(lo)?;
            let hi = crate::units::parse_size(hi)?;
            if lo == 0 || lo > hi || lo % 512 != 0 || hi % 512 != 0 {
                return Err(format!(
                    "'{d}': got {lo} to {hi} bytes; expected multiples of 512 above 0, the first no larger"
                ));
            }
            let step = if self.bs_unaligned { 512 } else { lo };
            Ok((lo, hi - (hi - lo) % step, step))
        };
        let [r, w, t] = by_direction(s).map(one);
        Ok(Some([r?, w?, t?]))
    }

    /// fio's keys of the job; [`JobConfig::validate`] adds its `[job.fs]` or `[job.hpc]` table.
    pub fn validate_fio(&self, file: &str, key: &str, capacity: u64) -> Result<()> {
        let e = |k: &str, m: String| Error::config(file, &format!("{key}.{k}"), m);
        if self.iodepth == 0 {
            return Err(e("iodepth", "got 0; expected at least 1".into()));
        }
        if self.iodepth > 65536 {
            return Err(e("iodepth", format!("got {}; expected at most 65536", self.iodepth)));
        }
        if self.numjobs == 0 || self.numjobs > 4096 {
            return Err(e("numjobs", format!("got {}; expected 1 to 4096", self.numjobs)));
        }
        if self.readonly
            && (self.trace.is_some()
                || self.fs.is_some()
                || self.hpc.is_some()
                || !matches!(self.rw, Rw::Read | Rw::RandRead))
        {
            return Err(e(
                "readonly",
                "set on a job that may write; expected rw = \"read\" or \"randread\" with generated requests".into(),
            ));
        }
        if self.rwmixread > 100 {
            return Err(e(
                "rwmixread",
                format!("got {}; expected a percentage from 0 to 100", self.rwmixread),
            ));
        }
        // Sample and log widths in ms: positive, and within the simulated-time horizon.
        let max_ms = crate::units::HORIZON_NS / 4 / 1_000_000;
        for (k, v, zero_ok) in [
            ("bw_avg_time", self.bw_avg_time, false),
            ("iops_avg_time", self.iops_avg_time, false),
            ("log_avg_msec", self.log_avg_msec, true),
        ] {
            if (v == 0 && !zero_ok) || v > max_ms {
                let low = if zero_ok { 0 } else { 1 };
                return Err(e(k, format!("got {v}; expected {low} to {max_ms} ms")));
            }
        }
        let directive = super::placement_ids::Directive::parse(&self.dataplacement).ok_or_else(|| {
            e(
                "dataplacement",
                format!("got \"{}\"; expected none, fdp or streams", self.dataplacement),
            )
        })?;
        if super::placement_ids::Select::parse(&self.plid_select).is_none() {
            let why = if self.plid_select == "scheme" {
                "fio's scheme (a dp_scheme file) is not simulated"
            } else {
                "unknown"
            };
            return Err(e(
                "plid_select",
                format!("got \"{}\" ({why}); expected roundrobin or random", self.plid_select),
            ));
        }
        if let Some(ids) = &self.plids {
            super::placement_ids::parse_ids(ids).map_err(|m| e("plids", m))?;
            if directive == super::placement_ids::Directive::None {
                return Err(e(
                    "plids",
                    "set without a data placement directive, so no write would carry one; expected dataplacement = \"fdp\" or \"streams\" with it".into(),
                ));
            }
        } else if directive == super::placement_ids::Directive::Streams {
            return Err(e(
                "plids",
                "missing with dataplacement = \"streams\"; expected the stream ids to use (fio requires them)".into(),
            ));
        }
        if self.ruh_update_every.is_some_and(|s| s.0 == 0) {
            return Err(e(
                "ruh_update_every",
                "got 0; expected a size above 0 (the bytes a clone writes between reclaim unit handle updates)".into(),
            ));
        }
        if self.fs.is_some() && self.trace.is_some() {
            return Err(e(
                "fs",
                "set on a job that replays a trace; expected either [job.fs] or [job.trace], not both".into(),
            ));
        }
        if self.hpc.is_some() && self.trace.is_some() {
            return Err(e(
                "hpc",
                "set on a job that replays a trace; expected either [job.hpc] or [job.trace], not both".into(),
            ));
        }
        if self.hpc.is_some() && self.fs.is_some() {
            return Err(e(
                "hpc",
                "set on a file-system job; expected either [job.hpc] or [job.fs], not both".into(),
            ));
        }
        if let Some(t) = &self.trace {
            t.validate(file, &format!("{key}.trace"))?;
            if let Some(r) = &self.replay {
                if r != "open" && r != "closed" {
                    return Err(e("replay", format!("got \"{r}\"; expected \"open\" or \"closed\"")));
                }
            }
            return Ok(());
        }
        if self.replay.is_some() {
            return Err(e(
                "replay",
                "set on a job without a trace; expected it only with a [job.trace] table".into(),
            ));
        }
        if self.bs.0 == 0 || !self.bs.0.is_multiple_of(512) {
            return Err(e(
                "bs",
                format!("got {}; expected a positive multiple of 512 bytes", self.bs.0),
            ));
        }
        let sizes = self.block_sizes().map_err(|m| e("bssplit", m))?;
        parse_dist(&self.random_distribution).map_err(|m| e("random_distribution", m))?;
        if let Some(o) = &self.offset {
            o.resolve(capacity).map_err(|m| e("offset", m))?;
        }
        let (off, size) = self.region(capacity).map_err(|m| e("size", m))?;
        if off >= capacity {
            let at = if off > capacity { "past" } else { "at" };
            return Err(e(
                "offset",
                format!("offset {off} is {at} the end of the device, which leaves the job no range; expected below the logical capacity of {capacity} bytes"),
            ));
        }
        if off.checked_add(size).is_none_or(|end| end > capacity) {
            return Err(e(
                "size",
                format!("the job's range (offset {off} + size {size} bytes) passes the end of the device; expected offset + size at most the logical capacity of {capacity} bytes"),
            ));
        }
        let max_bs = sizes.iter().map(|x| x.0).max().unwrap_or(0);
        if size < max_bs {
            return Err(e(
                "size",
                format!("the range ({size} bytes) is smaller than the block size; expected at least {max_bs} bytes"),
            ));
        }
        if self.loops == 0 {
            return Err(e("loops", "got 0; expected at least 1".into()));
        }
        if let Some(inc) = &self.offset_increment {
            inc.resolve(capacity).map_err(|m| e("offset_increment", m))?;
            let last = self.numjobs.saturating_sub(1);
            let (off, size) = self
                .for_clone(last, capacity)
                .and_then(|j| j.region(capacity))
                .map_err(|m| e("offset_increment", m))?;
            if off.checked_add(size).is_none_or(|end| end > capacity) {
                return Err(e(
                    "offset_increment",
                    format!("clone {last}'s range (offset {off} + size {size} bytes) passes the end of the device; expected offset + {last} × offset_increment + size at most the logical capacity of {capacity} bytes"),
                ));
            }
        }
        self.direction_ranges().map_err(|m| e("bsrange", m))?;
        if self.blockalign.is_some_and(|b| b.0 == 0 || b.0 % 512 != 0) {
            return Err(e(
                "blockalign",
                format!(
                    "got {}; expected a multiple of 512 bytes above 0",
                    self.blockalign.unwrap().0
                ),
            ));
        }
        if let Some(m) = self.rw_modifier {
            let sizes = self.direction_sizes().map_err(|m| e("bssplit", m))?;
            let fixed = self.bsrange.is_none() && sizes.iter().all(|d| d.len() == 1);
            if !self.is_random() && m > 0 && !fixed {
                return Err(e(
                    "rw_modifier",
                    "a sequential job's gap after each I/O with block sizes that vary is not modelled; expected one block size".into(),
                ));
            }
            if self.is_random() && m <= 0 {
                return Err(e(
                    "rw_modifier",
                    format!("got {m}; expected a random job's I/Os per random offset, at least 1"),
                ));
            }
            if !self.is_random() && m.unsigned_abs() % 512 != 0 {
                return Err(e(
                    "rw_modifier",
                    format!("got {m}; expected bytes skipped after each I/O, a multiple of 512"),
                ));
            }
        }
        if !["sequential", "identical"].contains(&self.rw_sequencer.as_str()) {
            return Err(e(
                "rw_sequencer",
                format!(
                    "got \"{}\"; expected \"sequential\" or \"identical\"",
                    self.rw_sequencer
                ),
            ));
        }
        if !["group", "stonewall", "all"].contains(&self.exit_what.as_str()) {
            return Err(e(
                "exit_what",
                format!(
                    "got \"{}\"; expected \"group\", \"stonewall\" or \"all\"",
                    self.exit_what
                ),
            ));
        }
        if let Some(p) = &self.percentage_random {
            if p.is_empty() || p.len() > 3 || p.iter().any(|&x| x > 100) {
                return Err(e(
                    "percentage_random",
                    format!("got {p:?}; expected one to three percentages (reads, writes, trims) of at most 100"),
                ));
            }
        }
        self.rate_bytes().map_err(|m| e("rate", m))?;
        if self.rate.is_some() && self.rate_iops.is_some() {
            return Err(e(
                "rate",
                "set beside rate_iops; expected one of them (a cap in bytes and one in I/Os at once is not modelled)"
                    .into(),
            ));
        }
        if !["linear", "poisson"].contains(&self.rate_process.as_str()) {
            return Err(e(
                "rate_process",
                format!("got \"{}\"; expected \"linear\" or \"poisson\"", self.rate_process),
            ));
        }
        if let Some(list) = &self.percentile_list {
            if list.is_empty() || list.len() > 20 || list.iter().any(|p| !(*p > 0.0 && *p <= 100.0)) {
                return Err(e(
                    "percentile_list",
                    format!("got {list:?}; expected 1 to 20 percentiles, each above 0 and at most 100"),
                ));
            }
        }
        if !["none", "mixed", "both"].contains(&self.unified_rw_reporting.as_str()) {
            return Err(e(
                "unified_rw_reporting",
                format!(
                    "got \"{}\"; expected \"none\", \"mixed\" or \"both\"",
                    self.unified_rw_reporting
                ),
            ));
        }
        if self.rate_iops == Some(0) {
            return Err(e("rate_iops", "got 0; expected a positive rate".into()));
        }
        if self.number_ios == Some(0) {
            return Err(e("number_ios", "got 0; expected at least 1".into()));
        }
        if self.io_size == Some(Size(0)) {
            return Err(e(
                "io_size",
                "got 0; expected a positive size (or no io_size: one pass over size)".into(),
            ));
        }
        if self.runtime == Some(Duration(0)) {
            return Err(e("runtime", "got 0; expected a positive duration".into()));
        }
        for (k, d) in [
            ("runtime", self.runtime),
            ("ramp_time", self.ramp_time),
            ("startdelay", self.startdelay),
        ] {
            if d.is_some_and(|d| d.0 > crate::units::HORIZON_NS / 4) {
                return Err(e(
                    k,
                    format!(
                        "got {} ns; expected at most {} ns (a quarter of the simulated-time horizon)",
                        d.unwrap().0,
                        crate::units::HORIZON_NS / 4
                    ),
                ));
            }
        }
        // Times a closed-loop clone spends per I/O: fio's think time, the host's time.
        for (k, t, what) in [
            ("thinktime", self.thinktime, "iodepth requests outstanding"),
            ("host_time", self.host_time, "its requests wait for the host"),
        ] {
            let Some(t) = t else { continue };
            if t.0 > crate::units::HORIZON_NS / 4 {
                return Err(e(
                    k,
                    format!(
                        "got {} ns; expected at most {} ns (a quarter of the simulated-time horizon)",
                        t.0,
                        crate::units::HORIZON_NS / 4
                    ),
                ));
            }
            let open_replay = self.trace.is_some() && self.replay.as_deref() != Some("closed");
            if self.open_loop() || open_replay {
                return Err(e(
                    k,
                    format!("set on an open-loop job (rate_iops, [job.hpc] or a trace replayed at its timestamps); expected a closed-loop job ({what})"),
                ));
            }
        }
        if self.time_based && self.runtime.is_none() {
            return Err(e(
                "time_based",
                "set without a runtime; expected a runtime (time_based runs for runtime, looping over the job's range)"
                    .into(),
            ));
        }
        if self.fs.is_some() {
            if self.numjobs > 1 {
                return Err(e(
                    "numjobs",
                    format!(
                        "got {} on a file-system job; expected 1 (clones would run file systems over the same blocks: give each application its own [[job]] and region)",
                        self.numjobs
                    ),
                ));
            }
            if self.rate_iops.is_some() || self.rate.is_some() {
                return Err(e(
                    if self.rate.is_some() { "rate" } else { "rate_iops" },
                    "set on a file-system job; expected none (a [job.fs] job is closed loop: iodepth requests outstanding)"
                        .into(),
                ));
            }
        }
        if self.hpc.is_some() && (self.rate_iops.is_some() || self.rate.is_some()) {
            return Err(e(
                if self.rate.is_some() { "rate" } else { "rate_iops" },
                "set on an HPC job; expected none (a [job.hpc] job is open loop at its own hpc.rate)".into(),
            ));
        }
        Ok(())
    }

    /// Whether the job's generated requests carry arrival times (open loop: `rate_iops`, or
    /// the Poisson arrivals of `[job.hpc]`) rather than keeping `iodepth` outstanding.
    /// Random offsets (`randread`, `randwrite`, `randtrim`, `randrw`).
    pub fn is_random(&self) -> bool {
        self.rw.random()
    }

    pub fn open_loop(&self) -> bool {
        self.rate_iops.is_some() || self.rate.is_some() || self.hpc.is_some()
    }

    /// The bytes per second of fio's `rate` for the directions the job issues (one value:
    /// a job whose directions have different rates is refused).
    pub fn rate_bytes(&self) -> std::result::Result<Option<u64>, String> {
        let Some(r) = &self.rate else { return Ok(None) };
        let dirs = by_direction(r);
        let mut got: Option<u64> = None;
        for (d, used) in dirs.iter().zip(self.ops()) {
            let v = match d {
                Some(t) => crate::units::parse_size(t).map_err(|m| format!("'{t}': {m}"))?,
                None => continue,
            };
            if !used {
                continue;
            }
            if got.is_some_and(|g| g != v) {
                return Err(format!(
                    "got '{r}': different rates for the directions of one job are not modelled; expected one rate"
                ));
            }
            got = Some(v);
        }
        match got {
            Some(0) => Err(format!("got '{r}'; expected a rate above 0")),
            Some(v) => Ok(Some(v)),
            None => Ok(None),
        }
    }

    /// When requests arrive, if not as completions let them (closed loop).
    fn pace(&self) -> std::result::Result<Option<Pace>, String> {
        let poisson = self.rate_process == "poisson";
        let mean = |ns: f64| Pace::Poisson {
            mean_ns: ns,
            next_ns: 0.0,
        };
        Ok(match (self.rate_iops, self.rate_bytes()?) {
            (Some(r), _) if poisson => Some(mean(1e9 / r as f64)),
            (Some(r), _) => Some(Pace::Iops {
                interval_ns: (1_000_000_000 / r).max(1),
            }),
            (None, Some(b)) if poisson => {
                // The mean gap of the job's mean block size.
                let sizes = self.block_sizes()?;
                let w: u64 = sizes.iter().map(|x| x.1 as u64).sum::<u64>().max(1);
                let mean_bs = sizes.iter().map(|x| x.0 * x.1 as u64).sum::<u64>() as f64 / w as f64;
                Some(mean(mean_bs * 1e9 / b as f64))
            }
            (None, Some(b)) => Some(Pace::Bytes { per_s: b, issued: 0 }),
            (None, None) => None,
        })
    }

    /// fio's `percentage_random` of reads, writes and trims (100: every I/O at random).
    pub fn percentages_random(&self) -> [u32; 3] {
        match self.percentage_random.as_deref() {
            None | Some([]) => [100; 3],
            Some([a]) => [*a; 3],
            Some([a, b]) => [*a, *b, *b],
            Some([a, b, c, ..]) => [*a, *b, *c],
        }
    }

    /// fio's `job options` object: the options of the job file's section, or, for a job of a
    /// run file, the keys that differ from their defaults (values as strings, as fio prints
    /// them).
    pub fn fio_job_options(&self) -> Vec<(String, String)> {
        if let Some(given) = &self.job_options {
            return given.clone();
        }
        let (Ok(serde_json::Value::Object(mine)), Ok(serde_json::Value::Object(dflt))) =
            (serde_json::to_value(self), serde_json::to_value(JobConfig::default()))
        else {
            return Vec::new();
        };
        mine.into_iter()
            .filter(|(k, v)| k != "name" && !v.is_null() && dflt.get(k) != Some(v))
            .map(|(k, v)| {
                let text = match v {
                    serde_json::Value::String(s) => s,
                    serde_json::Value::Bool(b) => (b as u8).to_string(),
                    other => other.to_string(),
                };
                (k, text)
            })
            .collect()
    }

    /// Base seed of clone `clone` of job `index`, from the job's `seed` or the run's.
    /// Streams are derived through a hash so that no job replays another job's (or the
    /// preconditioning's) random sequence.
    pub fn clone_seed(&self, run_seed: u64, index: usize, clone: u32) -> u64 {
        let base = self
            .seed
            .unwrap_or_else(|| crate::units::mix_seed(run_seed, 0x4a0b_0000 + index as u64));
        crate::units::mix_seed(base, clone as u64 + 1)
    }
}

/// A bijection on [0, n) that scatters ranks so hot items of skewed distributions do not sit
/// next to each other (as fio does).
pub(crate) fn scatter(rank: u64, n: u64) -> u64 {
    const PRIMES: [u64; 4] = [2_147_483_647, 998_244_353, 1_000_000_007, 1_000_003];
    let m = PRIMES.iter().copied().find(|p| !n.is_multiple_of(*p)).unwrap_or(1);
    ((rank as u128 * m as u128 + 0x5bd1_e995) % n as u128) as u64
}

/// When a clone of a generated job stops, the same rule for every generator: after
/// `number_ios` requests, after `io_size` bytes, or once `runtime` (plus `ramp_time`) of
/// simulated time has passed, whichever comes first. With no `io_size`, a job that gives
/// neither `number_ios` nor `time_based` stops after its default length (one pass over its
/// range for fio-style jobs, as fio does).
#[derive(Clone, Debug)]
pub struct Limits {
    max_ios: Option<u64>,
    max_bytes: Option<u64>,
    runtime_ns: Option<u64>,
    issued: u64,
    bytes: u64,
}

impl Limits {
    pub fn new(job: &JobConfig, default_bytes: u64) -> Limits {
        let max_bytes = match (job.io_size, job.time_based, job.number_ios) {
            (Some(s), _, _) => Some(s.0),
            (None, true, _) | (None, false, Some(_)) => None,
            (None, false, None) => Some(default_bytes),
        };
        Limits::with_bytes(job, max_bytes)
    }

    /// fio's rule for its own jobs (`rw = ...`): `number_ios` only caps the run, it never
    /// extends it past `io_size` (one pass over `size` when no `io_size` is given); only
    /// `time_based` goes on past that (fio(1), `number_ios`: "this does not extend the
    /// amount of I/O that will be done, it will only stop fio if this condition is met
    /// before other end-of-job criteria").
    pub fn fio(job: &JobConfig, range_bytes: u64) -> Limits {
        let max_bytes = match (job.io_size, job.time_based) {
            (Some(s), _) => Some(s.0),
            (None, true) => None,
            (None, false) => Some(range_bytes),
        };
        Limits::with_bytes(job, max_bytes)
    }

    fn with_bytes(job: &JobConfig, max_bytes: Option<u64>) -> Limits {
        let ramp = job.ramp_time.map_or(0, |d| d.0);
        // fio's `loops`: its byte and I/O-count limits times the loops.
        let loops = job.loops.max(1) as u64;
        Limits {
            max_ios: job.number_ios.map(|n| n.saturating_mul(loops)),
            max_bytes: max_bytes.map(|b| b.saturating_mul(loops)),
            runtime_ns: job.runtime.map(|d| d.0.saturating_add(ramp)),
            issued: 0,
            bytes: 0,
        }
    }

    /// Twice the I/Os and bytes: fio's `trimwrite` counts its trims and its writes each up to
    /// the limit.
    pub fn doubled(mut self) -> Limits {
        self.max_ios = self.max_ios.map(|m| m.saturating_mul(2));
        self.max_bytes = self.max_bytes.map(|m| m.saturating_mul(2));
        self
    }

    /// Whether the clone has stopped, asked at simulated time `now_ns`.
    pub fn reached(&self, now_ns: u64) -> bool {
        self.max_ios.is_some_and(|m| self.issued >= m)
            || self.max_bytes.is_some_and(|m| self.bytes >= m)
            || self.runtime_ns.is_some_and(|r| now_ns >= r)
    }

    /// Count a request issued, of `bytes` toward the byte limit.
    pub fn count(&mut self, bytes: u64) {
        self.issued += 1;
        self.bytes += bytes;
    }

    /// Requests issued so far.
    pub fn issued(&self) -> u64 {
        self.issued
    }

    /// Simulated time at which the clone stops, if it has a runtime.
    pub fn runtime_ns(&self) -> Option<u64> {
        self.runtime_ns
    }
}

/// Generator of one clone of a synthetic job.
pub struct JobSource {
    rw: Rw,
    mix: u32,
    /// Block sizes and weights of reads, writes and trims, and their weights' totals.
    sizes: [Vec<(u64, u32)>; 3],
    weight_total: [u32; 3],
    /// fio's `bsrange` by direction: (smallest, largest, step).
    ranges: Option<[(u64, u64, u64); 3]>,
    align: u64,
    start: u64,
    len: u64,
    dist: Dist,
    zipf: Option<rand_distr::Zipf<f64>>,
    rng: Xoshiro256PlusPlus,
    /// The end of the last I/O, relative to the range (fio's `last_pos`): where the next
    /// sequential one starts.
    seq_next: u64,
    /// The last I/O's offset, relative to the range.
    last_off: u64,
    /// fio's `rw=...:N` of a sequential job (`ddir_seq_add`): bytes after each I/O.
    seq_add: i64,
    /// fio's `rw=randread:N` (`ddir_seq_nr`): a random offset every N I/Os, and the count
    /// left to the next; the others at `last_off` (`identical`) or after the last I/O.
    seq_nr: u64,
    seq_left: u64,
    identical: bool,
    /// fio's `percentage_random` of reads, writes and trims.
    perc_random: [u32; 3],
    /// A `sequence` distribution's draws so far, and whether its group moves on.
    seq_k: u64,
    stride: bool,
    /// `trimwrite`: the block just trimmed (size, relative offset), written next.
    then_write: Option<(u64, u64)>,
    limits: Limits,
    /// When each request arrives (open loop), if it does not follow completions.
    pace: Option<Pace>,
    /// Requests drawn ahead of their issue (op, size, offset), in order: the same sequence,
    /// known early enough for the host model to prefetch the device's map entries.
    ahead: std::collections::VecDeque<(Op, u64, u64)>,
}

/// Arrival times of an open-loop job: `rate_iops` (fio's `rate_iops`, a request every
/// interval) or `rate` (bytes per second: a request when the bytes before it are due), evenly
/// spaced or, with fio's `rate_process=poisson`, at exponential gaps of the same mean.
#[derive(Clone, Debug)]
enum Pace {
    Iops { interval_ns: u64 },
    Bytes { per_s: u64, issued: u64 },
    Poisson { mean_ns: f64, next_ns: f64 },
}

/// How many requests a synthetic job draws ahead.
pub(crate) const AHEAD: usize = 16;

impl JobSource {
    pub fn new(job: &JobConfig, capacity: u64, seed: u64) -> Result<JobSource> {
        let sizes = job.direction_sizes().map_err(Error::Invalid)?;
        let ranges = job.direction_ranges().map_err(Error::Invalid)?;
        let weight_total = [0, 1, 2].map(|d| sizes[d].iter().map(|x| x.1).sum());
        let smallest = match ranges {
            Some(r) => r.iter().map(|x| x.0).min().unwrap_or(4096),
            None => sizes.iter().flatten().map(|x| x.0).min().unwrap_or(4096),
        };
        let align = job.blockalign.map_or(smallest, |b| b.0.max(1));
        let (start, len) = job.region(capacity).map_err(Error::Invalid)?;
        let dist = parse_dist(&job.random_distribution).map_err(Error::Invalid)?;
        let slots = (len / align).max(1);
        let zipf = match dist {
            Dist::Zipf(t) => Some(rand_distr::Zipf::new(slots, t).map_err(|e| Error::Invalid(e.to_string()))?),
            _ => None,
        };
        let random = job.rw.random();
        let modifier = job.rw_modifier.unwrap_or(0);
        let seq_add = if random { 0 } else { modifier };
        let seq_nr = if random { modifier.max(1) as u64 } else { 1 };
        // One pass of a sequential job that skips bytes after each I/O ends at the end of its
        // range, as fio's: its I/Os fit with their gaps (fixed sizes only, as validation asks).
        let pass = match (seq_add, &sizes[0][..]) {
            (add, [(bs, _)]) if add > 0 && len >= *bs => ((len - bs) / (bs + add as u64) + 1) * bs,
            _ => len,
        };
        let pace = job.pace().map_err(Error::Invalid)?;
        Ok(JobSource {
            rw: job.rw,
            mix: job.rwmixread,
            sizes,
            weight_total,
            ranges,
            align,
            start,
            len,
            dist,
            zipf,
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            seq_next: 0,
            last_off: 0,
            seq_add,
            seq_nr,
            seq_left: seq_nr,
            identical: job.rw_sequencer == "identical",
            perc_random: job.percentages_random(),
            seq_k: 0,
            stride: job.random_sequence_stride,
            then_write: None,
            // As fio: one pass over the range (or io_size), unless time_based; number_ios
            // stops it earlier, never later. A trimwrite job trims that much and writes it.
            limits: if job.rw.trim_then_write() {
                Limits::fio(job, pass).doubled()
            } else {
                Limits::fio(job, pass)
            },
            pace,
            ahead: std::collections::VecDeque::with_capacity(AHEAD + 1),
        })
    }

    fn pick_size(&mut self, op: Op) -> u64 {
        let d = op.index();
        if let Some(r) = &self.ranges {
            let (lo, hi, step) = r[d];
            return lo + step * self.rng.gen_range(0..=(hi - lo) / step);
        }
        let sizes = &self.sizes[d];
        if sizes.len() == 1 {
            return sizes[0].0;
        }
        let mut x = self.rng.gen_range(0..self.weight_total[d]);
        for &(s, w) in sizes {
            if x < w {
                return s;
            }
            x -= w;
        }
        sizes[0].0
    }

    fn pick_op(&mut self) -> Op {
        match self.rw {
            Rw::Read | Rw::RandRead => Op::Read,
            Rw::Write | Rw::RandWrite => Op::Write,
            Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite => Op::Trim,
            Rw::Rw | Rw::RandRw => {
                if self.rng.gen_range(0..100) < self.mix {
                    Op::Read
                } else {
                    Op::Write
                }
            }
        }
    }

    fn random_slot(&mut self, slots: u64) -> u64 {
        match self.dist {
            Dist::Uniform => self.rng.gen_range(0..slots),
            Dist::Zipf(_) => {
                let r = self.zipf.as_ref().expect("zipf").sample(&mut self.rng) as u64;
                scatter(r.saturating_sub(1).min(slots - 1), slots)
            }
            Dist::Pareto(h) => {
                // Rank from a power law: U^(1/(1-h)) piles mass near rank 0 as h → 1.
                let u: f64 = self.rng.gen();
                let r = ((u.powf(1.0 / (1.0 - h))) * slots as f64) as u64;
                scatter(r.min(slots - 1), slots)
            }
            Dist::Normal(sd) => {
                let n = rand_distr::Normal::new(0.5, sd).expect("valid normal");
                let x: f64 = n.sample(&mut self.rng);
                let x = x.rem_euclid(1.0);
                ((x * slots as f64) as u64).min(slots - 1)
            }
            Dist::Zoned(ref zones) => {
                // As fio's zone index: one of 100 access slots picks the zone, then a slot
                // uniformly in the zone's share of the range.
                let mut v = self.rng.gen_range(0..100u32);
                let mut before = 0u64;
                for &(a, r) in zones {
                    if v < a {
                        let lo = slots * before / 100;
                        let hi = (slots * (before + r as u64) / 100).max(lo + 1).min(slots);
                        return self.rng.gen_range(lo..hi);
                    }
                    v -= a;
                    before += r as u64;
                }
                unreachable!("the zones' accesses add up to 100")
            }
            Dist::ZonedAbs(ref zones) => {
                let mut v = self.rng.gen_range(0..100u32);
                let mut before = 0u64;
                for &(a, bytes) in zones {
                    if v < a {
                        let lo = (before / self.align).min(slots - 1);
                        let hi = ((before + bytes) / self.align).clamp(lo + 1, slots);
                        return self.rng.gen_range(lo..hi);
                    }
                    v -= a;
                    before += bytes;
                }
                unreachable!("the zones' accesses add up to 100")
            }
            Dist::Sequence(ref idx) => {
                let k = self.seq_k;
                self.seq_k += 1;
                let n = idx.len() as u64;
                let base = if self.stride { k / n * n } else { 0 };
                (base + idx[(k % n) as usize]) % slots
            }
        }
    }
}

impl JobSource {
    /// The next sequential offset (relative) for an I/O of `size`: after the last I/O, as
    /// fio's `get_next_seq_offset` (with `rw=...:N`, that many bytes on, or back; a backward
    /// job starts at the end), back at the start when it would pass the end.
    fn sequential(&mut self, size: u64) -> u64 {
        if self.seq_add == 0 {
            return if self.seq_next + size > self.len {
                0
            } else {
                self.seq_next
            };
        }
        let len = self.len as i128;
        let mut last = self.seq_next as i128;
        if last == 0 && self.seq_add < 0 {
            last = len;
        }
        let mut pos = last;
        if pos != 0 {
            pos += self.seq_add as i128;
        }
        if pos < 0 || pos >= len {
            pos = if self.seq_add > 0 {
                0
            } else {
                (len + self.seq_add as i128).max(0)
            };
        }
        (pos as u64).min(self.len - size)
    }

    /// The next request's operation, size and offset (the random streams advance in the
    /// order requests are issued, however far ahead they are drawn).
    fn draw(&mut self) -> (Op, u64, u64) {
        if let Some((size, rel)) = self.then_write.take() {
            return (Op::Write, size, self.start + rel);
        }
        let op = self.pick_op();
        let size = self.pick_size(op).min(self.len);
        let rel = if self.rw.random() {
            // fio's ddir_seq_nr: a random offset every seq_nr I/Os (every one by default).
            let hit = self.seq_nr <= 1 || {
                self.seq_left -= 1;
                let h = self.seq_left == 0;
                if h {
                    self.seq_left = self.seq_nr;
                }
                h
            };
            let d = op.index();
            if !hit {
                if self.identical {
                    self.last_off
                } else {
                    self.sequential(size)
                }
            } else if self.perc_random[d] >= 100 || self.rng.gen_range(0..100) < self.perc_random[d] {
                let slots = ((self.len - size) / self.align) + 1;
                self.random_slot(slots) * self.align
            } else {
                self.sequential(size)
            }
        } else {
            self.sequential(size)
        };
        self.last_off = rel;
        self.seq_next = rel + size;
        if self.rw.trim_then_write() {
            self.then_write = Some((size, rel));
        }
        (op, size, self.start + rel)
    }

    /// The arrival time of the next request (open loop), relative to the job's start.
    fn arrival(&mut self, size: u64) -> Option<u64> {
        match self.pace.as_mut()? {
            Pace::Iops { interval_ns } => Some(self.limits.issued() * *interval_ns),
            Pace::Bytes { per_s, issued } => {
                let t = (*issued as u128 * 1_000_000_000 / *per_s as u128) as u64;
                *issued += size;
                Some(t)
            }
            Pace::Poisson { mean_ns, next_ns } => {
                let t = *next_ns as u64;
                let gap: f64 = rand_distr::Exp1.sample(&mut self.rng);
                *next_ns += gap * *mean_ns;
                Some(t)
            }
        }
    }
}

impl RequestSource for JobSource {
    fn upcoming(&self, k: usize) -> Option<u64> {
        self.ahead.get(k).map(|r| r.2)
    }

    fn next_request(&mut self, now_ns: u64) -> Result<Option<Request>> {
        if self.limits.reached(now_ns) {
            return Ok(None);
        }
        while self.ahead.len() <= AHEAD {
            let r = self.draw();
            self.ahead.push_back(r);
        }
        let size = self.ahead[0].1;
        let time_ns = match self.arrival(size) {
            Some(t) => {
                if self.limits.runtime_ns().is_some_and(|r| t >= r) {
                    return Ok(None);
                }
                t
            }
            None => 0,
        };
        let (op, size, offset) = self.ahead.pop_front().expect("drawn ahead");
        self.limits.count(size);
        Ok(Some(Request {
            time_ns,
            op,
            offset,
            len: size,
            stream: 0,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scatter_is_a_bijection() {
        // 13 and 1,303 are factors of the offset 0x5bd1_e995 (13 × 199 × 457 × 1,303).
        for n in [1u64, 2, 7, 13, 64, 1000, 1303, 4099] {
            let mut seen = vec![false; n as usize];
            for r in 0..n {
                let s = scatter(r, n) as usize;
                assert!(!seen[s]);
                seen[s] = true;
            }
        }
    }

    #[test]
    fn requests_stay_in_range_and_mix_holds() {
        let job = JobConfig {
            rw: Rw::RandRw,
            rwmixread: 70,
            bssplit: Some("4k/50:16k/50".into()),
            number_ios: Some(20_000),
            // 20,000 requests of 10 KiB on average: about three passes over the range.
            io_size: Some(Size(1 << 40)),
            offset: Some(SizeOrShare::Bytes(Size(1 << 20))),
            size: Some(SizeOrShare::Bytes(Size(64 << 20))),
            ..Default::default()
        };
        for dist in [
            "random",
            "zipf:1.2",
            "pareto:0.9",
            "normal:20",
            "zoned:80/20:10/20:10/60",
        ] {
            let job = JobConfig {
                random_distribution: dist.into(),
                ..job.clone()
            };
            let mut s = JobSource::new(&job, 1 << 30, 5).unwrap();
            let mut reads = 0;
            let mut n = 0;
            while let Some(r) = s.next_request(0).unwrap() {
                assert!(
                    r.offset >= 1 << 20 && r.offset + r.len <= (1 << 20) + (64 << 20),
                    "{dist}"
                );
                assert_eq!(r.offset % 4096, 0);
                reads += (r.op == Op::Read) as u32;
                n += 1;
            }
            assert_eq!(n, 20_000);
            assert!((reads as f64 / n as f64 - 0.7).abs() < 0.02, "{dist}: {reads}");
        }
    }

    #[test]
    fn sequential_wraps_and_one_pass_by_default() {
        let job = JobConfig {
            rw: Rw::Write,
            bs: Size(8192),
            size: Some(SizeOrShare::Bytes(Size(81920))),
            ..Default::default()
        };
        let mut s = JobSource::new(&job, 1 << 20, 1).unwrap();
        let offs: Vec<u64> = std::iter::from_fn(|| s.next_request(0).unwrap())
            .map(|r| r.offset)
            .collect();
        assert_eq!(offs, (0..10).map(|i| i * 8192).collect::<Vec<_>>());
    }

    /// WARP's hot/cold overwrite job (`zoned:80/20:10/20:10/60`): 80 % of the accesses in the
    /// first fifth of the range, 10 % in the next fifth, 10 % in the rest; uniform in each.
    #[test]
    fn zoned_sends_each_share_of_accesses_to_its_share_of_the_range() {
        let job = JobConfig {
            rw: Rw::RandWrite,
            random_distribution: "zoned:80/20:10/20:10/60".into(),
            number_ios: Some(100_000),
            // Ten passes over 10,000 slots of 4 KiB.
            io_size: Some(Size(100_000 * 4096)),
            size: Some(SizeOrShare::Bytes(Size(10_000 * 4096))),
            ..Default::default()
        };
        let mut s = JobSource::new(&job, 1 << 30, 9).unwrap();
        // 10,000 slots of 4 KiB: zones [0, 2000), [2000, 4000), [4000, 10000).
        let mut zone = [0u32; 3];
        let mut tenths = [0u32; 10];
        while let Some(r) = s.next_request(0).unwrap() {
            let slot = r.offset / 4096;
            zone[(slot >= 2000) as usize + (slot >= 4000) as usize] += 1;
            tenths[(slot / 1000) as usize] += 1;
        }
        let share = |n: u32| n as f64 / 100_000.0;
        assert!(
            (share(zone[0]) - 0.8).abs() < 0.01 && (share(zone[1]) - 0.1).abs() < 0.01,
            "{zone:?}"
        );
        // Uniform inside a zone: its two tenths within 2 % of each other; the third zone's six
        // tenths each a sixth of its 10 %.
        assert!((share(tenths[0]) - share(tenths[1])).abs() < 0.02, "{tenths:?}");
        for t in &tenths[4..] {
            assert!((share(*t) - 0.1 / 6.0).abs() < 0.004, "{tenths:?}");
        }
        assert_eq!(
            parse_dist("zoned:60/10:40/90"),
            Ok(Dist::Zoned(vec![(60, 10), (40, 90)]))
        );
        for bad in [
            "zoned:60/10:30/20",
            "zoned:50/60:50/60",
            "zoned:100/0",
            "zoned:50/x:50/50",
            "zoned",
        ] {
            assert!(parse_dist(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn zipf_is_skewed() {
        let job = JobConfig {
            random_distribution: "zipf:1.2".into(),
            number_ios: Some(50_000),
            ..Default::default()
        };
        let mut s = JobSource::new(&job, 1 << 30, 3).unwrap();
        let mut counts = std::collections::BTreeMap::new();
        while let Some(r) = s.next_request(0).unwrap() {
            *counts.entry(r.offset).or_insert(0u32) += 1;
        }
        let mut v: Vec<u32> = counts.values().copied().collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        let top: u32 = v.iter().take(v.len() / 100 + 1).sum();
        assert!(top as f64 / 50_000.0 > 0.3, "top 1% got {top}");
    }

    /// Where 50,000 requests of a random 4 KiB job over 16,384 slots fall, as slot / 16,384
    /// (for skewed distributions, the rank before scattering).
    fn positions(dist: &str, rank: bool) -> Vec<f64> {
        let slots = 16_384u64;
        let job = JobConfig {
            rw: Rw::RandRead,
            random_distribution: dist.into(),
            number_ios: Some(50_000),
            // About three passes over the slots.
            io_size: Some(Size(50_000 * 4096)),
            size: Some(SizeOrShare::Bytes(Size(slots * 4096))),
            ..Default::default()
        };
        let mut unscatter = vec![0u64; slots as usize];
        for r in 0..slots {
            unscatter[scatter(r, slots) as usize] = r;
        }
        let mut s = JobSource::new(&job, 1 << 30, 11).unwrap();
        std::iter::from_fn(|| s.next_request(0).unwrap())
            .map(|r| {
                let slot = r.offset / 4096;
                let x = if rank { unscatter[slot as usize] } else { slot };
                x as f64 / slots as f64
            })
            .collect()
    }

    fn share_below(xs: &[f64], x: f64) -> f64 {
        xs.iter().filter(|&&v| v < x).count() as f64 / xs.len() as f64
    }

    #[test]
    fn pareto_ranks_follow_the_power_law() {
        // rank / slots = U^(1/(1-h)): P(rank / slots < x) = x^(1-h).
        for h in [0.9, 0.5] {
            let xs = positions(&format!("pareto:{h}"), true);
            for x in [0.001, 0.01, 0.1, 0.5] {
                let got = share_below(&xs, x);
                let want = f64::powf(x, 1.0 - h);
                assert!(
                    (got - want).abs() < 0.01,
                    "pareto:{h}: P(< {x}) = {got}, expected {want}"
                );
            }
        }
    }

    #[test]
    fn normal_is_centred_with_the_given_deviation() {
        // Normal around the middle, sigma a share of the range, wrapped into it.
        for (dist, sd) in [
            ("normal", 0.1),
            ("normal:10", 0.1),
            ("gauss:20", 0.2),
            ("normal:5", 0.05),
        ] {
            let xs = positions(dist, false);
            let n = xs.len() as f64;
            let mean = xs.iter().sum::<f64>() / n;
            assert!((mean - 0.5).abs() < 0.005, "{dist}: mean {mean}");
            let within = share_below(&xs, 0.5 + sd) - share_below(&xs, 0.5 - sd);
            assert!((within - 0.6827).abs() < 0.01, "{dist}: {within} within one sigma");
            let within2 = share_below(&xs, 0.5 + 2.0 * sd) - share_below(&xs, 0.5 - 2.0 * sd);
            assert!((within2 - 0.9545).abs() < 0.006, "{dist}: {within2} within two sigma");
        }
    }

    #[test]
    fn uniform_covers_the_range_evenly() {
        let xs = positions("random", false);
        for x in [0.1, 0.25, 0.5, 0.9] {
            let got = share_below(&xs, x);
            assert!((got - x).abs() < 0.01, "P(< {x}) = {got}");
        }
    }

    #[test]
    fn the_mix_sets_the_share_of_reads() {
        for mix in [0u32, 25, 90, 100] {
            let job = JobConfig {
                rw: Rw::RandRw,
                rwmixread: mix,
                number_ios: Some(20_000),
                ..Default::default()
            };
            let mut s = JobSource::new(&job, 1 << 30, 2).unwrap();
            let reads = std::iter::from_fn(|| s.next_request(0).unwrap())
                .filter(|r| r.op == Op::Read)
                .count() as f64;
            match mix {
                0 => assert_eq!(reads, 0.0),
                100 => assert_eq!(reads, 20_000.0),
                _ => assert!(
                    (reads / 20_000.0 - mix as f64 / 100.0).abs() < 0.012,
                    "rwmixread {mix}: {reads}"
                ),
            }
        }
    }
}
