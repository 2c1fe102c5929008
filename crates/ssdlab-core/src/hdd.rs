//! A hard disk, to set against the SSD: one actuator, one spindle, requests served one at a
//! time in arrival order, driven by the same fio-style jobs and reported in the same fio shape.
//!
//! # Geometry
//!
//! The platter turns `rpm` times a minute; a track holds `sectors_per_track =
//! floor(media_rate · 60 / (rpm · sector_size))` sectors (one zone: the configured media rate
//! is the on-track rate everywhere). Logical sectors fill track 0, then track 1, and so on;
//! the tracks of all surfaces form one sequence, and moving to the next track of that
//! sequence (a head switch or a one-cylinder move) costs the datasheet's track-to-track seek.
//! Sector `i` of track `k` sits at angular slot `(i + k · skew) mod sectors_per_track`, where
//! the track skew is the whole number of sectors that pass under the head during a
//! track-to-track seek, as drives are formatted so that a transfer that runs off the end of a
//! track picks up on the next one without losing a revolution.
//!
//! # Rotation
//!
//! The platter angle is a function of simulated time only: at time `t` the head is over the
//! point `(t mod T_rev) / T_rev` of the track, `T_rev = 60 s / rpm`. A request waits for its
//! first sector's slot to come under the head. Nothing is drawn at random: rewriting a sector
//! right after writing it waits for the platter to bring it round again (one revolution less
//! the transfer and the command overhead), while a request for the sector after the one just
//! transferred finds it under the head at once if it is already waiting in the queue.
//! Positions are kept in ticks of `1 / (rpm · sectors_per_track)` ns, in which a revolution
//! and a sector are whole numbers; a request completes at the first whole nanosecond at or
//! after its last sector has passed.
//!
//! # Seek curve
//!
//! Seek time over `d` tracks, `d ≥ 1`:
//!
//! ```text
//! seek(d) = t1 + a · sqrt(d − 1) + b · (d − 1)
//! ```
//!
//! The square-root term is the short-seek regime (an actuator that accelerates and brakes at
//! constant rates covers `d` in a time ∝ √d), the linear term the long seeks, where the arm
//! coasts at its top speed. `t1` is the datasheet's track-to-track seek; `a` and `b` follow
//! from its other two figures: `seek(D) = full stroke` over the widest distance `D`, and the
//! weighted average the datasheets define, `Σ (D + 1 − n) · seek(n) / Σ (D + 1 − n)` over
//! `n = 1..D` (each distance weighted by the number of track pairs that far apart), equal to
//! the average seek — two linear equations in `a` and `b` ([`SeekCurve::fit`]). A two-piece
//! curve (square root below a knee, a straight line above it, joined smoothly) cannot put the
//! average further than about 8/15 of the way from `t1` to the full stroke (the limit is the
//! pure square root); many datasheets put it further (the preset's: 12 ms between 1 and
//! 20 ms, 0.58 of the way). The sum above reaches any fraction from 1/3 to 11/15 with a
//! curve that rises with distance, which is checked. The datasheets' read figures serve reads
//! and writes alike.
//!
//! # Service
//!
//! Each command costs `command_overhead` of controller time, then the head seeks, waits for
//! the first sector, transfers, and (for a transfer that runs off a track) switches to the
//! next track and waits for its first sector. Commands are served one at a time in arrival
//! order, without the reordering of native command queueing: of the `numjobs × iodepth`
//! requests the jobs keep outstanding, the drive holds the waiting ones in a FIFO. The
//! overhead of a waiting command overlaps the service of the one ahead of it (the controller
//! decodes the next command while the head works), so the mechanism starts on a request at
//! `max(arrival + overhead, end of the previous one)`. The interface transfer is not
//! modelled (it runs alongside the media transfer and is faster).
//!
//! With `write_cache` off (the default, as for synchronous updates) a write completes when
//! its last sector is on the platter. With it on, a write completes after the command
//! overhead once the cache has room for it (`write_cache_size` bytes of data not yet
//! written), and the platter is written in the same FIFO order; a write larger than the cache
//! completes on the platter, and reads are not served from the cache.
//!
//! # Random against in-place updates
//!
//! An application tuned for a hard disk avoids seeks by updating "in place" in the sense of
//! never moving the head: it only appends to the end of one file (a log), so that every
//! update lands on the sector after the previous one. A random update rewrites a record at a
//! uniformly random place in the file. At queue depth 1 with the write cache off:
//!
//! - a random 4 KiB update costs `overhead + mean seek + T_rev / 2 + transfer`, the mean seek
//!   over a uniform random pair of tracks being the datasheet average (less its `1/tracks`
//!   share of zero-length seeks);
//! - an append costs one revolution plus the transfer (and, once a track, the skew), whatever
//!   the overhead (below a revolution less a track-to-track seek): the next sector has just
//!   passed under the head when the command arrives, so it waits for it to come round again
//!   ([`run_jobs`] with `rw = "write"`).
//!
//! With the preset (a 7200 rpm drive, 12 ms average seek, 0.3 ms overhead) that is 60.5
//! random updates a second against 118.9 appends: the log doubles the rate, and no layout
//! does better than one synchronous append per revolution. With `k` appends outstanding the
//! overhead of each hides behind the transfers ahead of it once `(k − 1)` transfers outlast
//! it, and appends stream at the media rate; with fewer, `k` go by per revolution.

use crate::fiolog::CloneLogs;
use crate::metrics::{depth_bucket, round3, JobExtra, JobResult};
use crate::request::{Op, RequestSource};
use crate::sim::{group_ids, JobStats, HORIZON_NS};
use crate::units::{Duration, Rate, Size};
use crate::workload::job::{JobConfig, Rw};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// The built-in 7200 rpm drive (see the sources in the file).
pub const PRESET_TEXT: &str = include_str!("../../../configs/hdd-7200.toml");

/// The built-in hard disks: (name, config text).
pub const PRESETS: &[(&str, &str)] = &[
    ("hdd-7200", PRESET_TEXT),
    (
        "hdd-7200-enterprise",
        include_str!("../../../configs/hdd-7200-enterprise.toml"),
    ),
];

/// The datasheet's three seek figures (without command overhead, including settling).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeekConfig {
    /// To the adjacent track.
    pub track_to_track: Duration,
    /// The weighted average over all seek lengths, as datasheets define it.
    pub average: Duration,
    /// From the outermost track to the innermost.
    pub full_stroke: Duration,
}

/// A hard disk's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HddConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub capacity: Size,
    #[serde(default = "default_sector")]
    pub sector_size: Size,
    pub rpm: u32,
    /// On-track (instantaneous) media transfer rate; sets the sectors per track.
    pub media_rate: Rate,
    pub seek: SeekConfig,
    /// Controller time per command, from its arrival to the start of the seek.
    #[serde(default)]
    pub command_overhead: Duration,
    /// Writes complete once in the drive's cache (off: once on the platter).
    #[serde(default)]
    pub write_cache: bool,
    /// Data the write cache holds before it is on the platter; needed with `write_cache`.
    #[serde(default)]
    pub write_cache_size: Option<Size>,
}

fn default_sector() -> Size {
    Size(512)
}

/// Ticks in a sector's passage under the head: a tick is `1 / (rpm · sectors_per_track)` ns,
/// so that a sector takes 60 s = 6 · 10^10 ns times that.
const SECTOR_TICKS: u128 = 60_000_000_000;

impl HddConfig {
    /// Parse a hard-disk config from TOML text; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<HddConfig> {
        let value: toml::Value = toml::from_str(text)
            .map_err(|e| Error::Config(format!("{file}: {}; expected a TOML table", e.message().trim())))?;
        let cfg: HddConfig = serde_path_to_error::deserialize(value).map_err(|e| {
            let key = e.path().to_string();
            let msg = e.inner().message().trim().to_string();
            if key == "." || key.is_empty() {
                Error::Config(format!("{file}: {msg}"))
            } else {
                Error::config(file, &key, msg)
            }
        })?;
        Geometry::new(&cfg, file)?;
        Ok(cfg)
    }

    /// The built-in 7200 rpm drive, [`PRESET_TEXT`].
    pub fn preset() -> HddConfig {
        HddConfig::parse(PRESET_TEXT, "preset hdd-7200").expect("the built-in hard-disk preset is valid")
    }

    /// The built-in hard disk `name` of [`PRESETS`].
    pub fn named(name: &str) -> Option<HddConfig> {
        let (n, text) = PRESETS.iter().find(|(n, _)| *n == name)?;
        Some(HddConfig::parse(text, &format!("preset {n}")).expect("the built-in hard-disk presets are valid"))
    }
}

/// The seek curve `seek(d) = t1 + a · sqrt(d − 1) + b · (d − 1)` (ns) over `d ≥ 1` tracks.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeekCurve {
    pub track_to_track_ns: f64,
    /// `a`: ns per square root of a track.
    pub sqrt_ns: f64,
    /// `b`: ns per track.
    pub linear_ns: f64,
    /// The widest distance, tracks − 1.
    pub max_distance: u64,
}

impl SeekCurve {
    /// The curve through the datasheet's track-to-track (`t1`), average (`ta`) and full-stroke
    /// (`tf`) seek times (ns) on a disk whose widest seek is `max_distance` tracks.
    pub fn fit(t1: f64, ta: f64, tf: f64, max_distance: u64) -> std::result::Result<SeekCurve, String> {
        if max_distance < 3 {
            return Err(format!(
                "the disk has {} tracks; expected at least 4 for a seek curve",
                max_distance + 1
            ));
        }
        if !(t1 > 0.0 && t1 < ta && ta < tf) {
            return Err(format!(
                "got track-to-track {t1} ns, average {ta} ns, full stroke {tf} ns; expected 0 < track-to-track < average < full stroke"
            ));
        }
        // Moments of sqrt(n − 1) and n − 1 under the datasheets' weights D + 1 − n.
        let (mut w, mut m_sqrt, mut m_lin) = (0.0f64, 0.0f64, 0.0f64);
        for n in 1..=max_distance {
            let wn = (max_distance + 1 - n) as f64;
            let y = (n - 1) as f64;
            w += wn;
            m_sqrt += wn * y.sqrt();
            m_lin += wn * y;
        }
        let (m_sqrt, m_lin) = (m_sqrt / w, m_lin / w);
        let y_max = (max_distance - 1) as f64;
        // a · sqrt(y_max) + b · y_max = tf − t1;  a · m_sqrt + b · m_lin = ta − t1.
        let det = y_max.sqrt() * m_lin - y_max * m_sqrt;
        let a = ((tf - t1) * m_lin - y_max * (ta - t1)) / det;
        let b = (y_max.sqrt() * (ta - t1) - m_sqrt * (tf - t1)) / det;
        // The slope a / (2 sqrt(y)) + b falls with y: rising everywhere if a ≥ 0 and it is
        // not negative at the widest distance.
        if a < 0.0 || a / (2.0 * y_max.sqrt()) + b < 0.0 {
            let share = (ta - t1) / (tf - t1);
            return Err(format!(
                "the average seek is {:.3} of the way from track-to-track to full stroke; expected between 1/3 and about 11/15 for a seek time that rises with distance",
                share
            ));
        }
        Ok(SeekCurve {
            track_to_track_ns: t1,
            sqrt_ns: a,
            linear_ns: b,
            max_distance,
        })
    }

    /// Seek time over `d` tracks, ns (0 for no move).
    pub fn seek_ns(&self, d: u64) -> u64 {
        if d == 0 {
            return 0;
        }
        let y = (d - 1) as f64;
        (self.track_to_track_ns + self.sqrt_ns * y.sqrt() + self.linear_ns * y).round() as u64
    }

    /// The datasheet's weighted average of [`SeekCurve::seek_ns`] over all distances, ns.
    pub fn datasheet_average_ns(&self) -> f64 {
        let d = self.max_distance;
        let (mut w, mut s) = (0.0f64, 0.0f64);
        for n in 1..=d {
            let wn = (d + 1 - n) as f64;
            w += wn;
            s += wn * self.seek_ns(n) as f64;
        }
        s / w
    }
}

/// The layout and timing constants derived from a config.
#[derive(Clone, Debug)]
struct Geometry {
    sector_bytes: u64,
    sectors: u64,
    sectors_per_track: u64,
    tracks: u64,
    skew: u64,
    /// Ticks per ns: rpm · sectors_per_track.
    ticks_per_ns: u128,
    overhead_ns: u64,
    curve: SeekCurve,
}

impl Geometry {
    fn new(cfg: &HddConfig, file: &str) -> Result<Geometry> {
        let e = |k: &str, m: String| Error::config(file, k, m);
        let ss = cfg.sector_size.0;
        if ss < 512 || !ss.is_power_of_two() || ss > 1 << 20 {
            return Err(e(
                "sector_size",
                format!("got {ss}; expected a power of two from 512 to 1 MiB"),
            ));
        }
        if !(60..=100_000).contains(&cfg.rpm) {
            return Err(e("rpm", format!("got {}; expected 60 to 100000", cfg.rpm)));
        }
        // Sectors per track: the media rate over one revolution, in whole sectors.
        let spt = (cfg.media_rate.0 as u128 * 60 / (cfg.rpm as u128 * ss as u128)) as u64;
        if spt == 0 || spt > 1 << 24 {
            return Err(e(
                "media_rate",
                format!(
                    "gives {spt} sectors per track at {} rpm; expected 1 to 2^24 (a rate of at least one sector per revolution)",
                    cfg.rpm
                ),
            ));
        }
        let cap = cfg.capacity.0;
        if cap == 0 || !cap.is_multiple_of(ss) {
            return Err(e(
                "capacity",
                format!("got {cap} bytes; expected a positive multiple of the sector size ({ss})"),
            ));
        }
        let sectors = cap / ss;
        let tracks = sectors.div_ceil(spt);
        // The seek fit sums over every distance: a bound well above real drives' track counts
        // (a few million over all surfaces) keeps it short.
        if tracks > 1 << 27 {
            return Err(e(
                "media_rate",
                format!("gives {tracks} tracks of {spt} sectors; expected at most 2^27 tracks (a higher media rate or a smaller capacity)"),
            ));
        }
        let s = &cfg.seek;
        if s.full_stroke.0 > 60_000_000_000 {
            return Err(e(
                "seek.full_stroke",
                format!("got {} ns; expected at most 60 s", s.full_stroke.0),
            ));
        }
        let curve = SeekCurve::fit(
            s.track_to_track.0 as f64,
            s.average.0 as f64,
            s.full_stroke.0 as f64,
            tracks - 1,
        )
        .map_err(|m| e("seek", m))?;
        if cfg.command_overhead.0 > 1_000_000_000 {
            return Err(e(
                "command_overhead",
                format!("got {} ns; expected at most 1 s", cfg.command_overhead.0),
            ));
        }
        match (cfg.write_cache, cfg.write_cache_size) {
            (true, None) | (true, Some(Size(0))) => {
                return Err(e(
                    "write_cache_size",
                    "not set with write_cache on; expected the cache's size for data not yet on the platter".into(),
                ))
            }
            _ => {}
        }
        let ticks_per_ns = cfg.rpm as u128 * spt as u128;
        // The sectors that pass during a track-to-track seek, rounded up.
        let skew = (curve.seek_ns(1) as u128 * ticks_per_ns).div_ceil(SECTOR_TICKS) as u64;
        Ok(Geometry {
            sector_bytes: ss,
            sectors,
            sectors_per_track: spt,
            tracks,
            skew,
            ticks_per_ns,
            overhead_ns: cfg.command_overhead.0,
            curve,
        })
    }

    /// Ticks in a revolution.
    fn rev_ticks(&self) -> u128 {
        SECTOR_TICKS * self.sectors_per_track as u128
    }
}

/// How one request was served (ns; the parts are rounded down, the times up).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Service {
    /// When the mechanism started on it (rounded up).
    pub start_ns: u64,
    /// When the host sees it complete.
    pub done_ns: u64,
    /// When its last sector passed under the head.
    pub media_end_ns: u64,
    pub seek_ns: u64,
    pub rotation_ns: u64,
    pub transfer_ns: u64,
}

/// Totals over served requests, in ticks.
#[derive(Clone, Copy, Debug, Default)]
struct Totals {
    requests: u64,
    seek: u128,
    rotation: u128,
    transfer: u128,
}

/// The disk's state: where the head is, when it is free, the write cache's contents.
pub struct Disk {
    geo: Geometry,
    head_track: u64,
    /// When the head is free, in ticks: kept exact, so that a request queued behind another
    /// finds its first sector exactly where the other's last one ended.
    head_free: u128,
    write_cache: Option<u64>,
    /// Cached writes not yet on the platter: (media end, bytes), in FIFO order.
    cached: VecDeque<(u64, u64)>,
    dirty: u64,
}

impl Disk {
    /// An idle disk at time 0 with the head over track 0.
    pub fn new(cfg: &HddConfig) -> Result<Disk> {
        let geo = Geometry::new(cfg, &cfg.name)?;
        Ok(Disk {
            geo,
            head_track: 0,
            head_free: 0,
            write_cache: cfg.write_cache.then(|| cfg.write_cache_size.map_or(0, |s| s.0)),
            cached: VecDeque::new(),
            dirty: 0,
        })
    }

    pub fn capacity(&self) -> u64 {
        self.geo.sectors * self.geo.sector_bytes
    }
    pub fn sectors_per_track(&self) -> u64 {
        self.geo.sectors_per_track
    }
    pub fn tracks(&self) -> u64 {
        self.geo.tracks
    }
    /// Sectors of skew between consecutive tracks.
    pub fn track_skew(&self) -> u64 {
        self.geo.skew
    }
    pub fn seek_curve(&self) -> &SeekCurve {
        &self.geo.curve
    }

    /// Serve a request arriving at `arrival_ns` (arrivals in non-decreasing order).
    pub fn submit(&mut self, arrival_ns: u64, op: Op, offset: u64, len: u64) -> Result<Service> {
        let (s, _) = self.serve(arrival_ns, op, offset, len)?;
        Ok(s)
    }

    fn serve(&mut self, arrival_ns: u64, op: Op, offset: u64, len: u64) -> Result<(Service, Totals)> {
        let g = &self.geo;
        if op == Op::Trim {
            return Err(Error::Invalid(
                "a trim on the hard disk; expected reads and writes (a hard disk has no trim)".into(),
            ));
        }
        let end = offset
            .checked_add(len)
            .filter(|&e| len > 0 && e <= self.capacity())
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "a request of {len} bytes at {offset} on a disk of {} bytes; expected a non-empty range inside it",
                    self.capacity()
                ))
            })?;
        let (first, last) = (offset / g.sector_bytes, end.div_ceil(g.sector_bytes));
        let spt = g.sectors_per_track;
        let k = g.ticks_per_ns;
        let rev = g.rev_ticks();
        let ready = arrival_ns
            .checked_add(g.overhead_ns)
            .filter(|&t| t <= HORIZON_NS)
            .ok_or_else(|| horizon(arrival_ns))?;
        let start = (ready as u128 * k).max(self.head_free);
        let mut tot = Totals {
            requests: 1,
            ..Totals::default()
        };
        let mut t = start;
        let mut track = first / spt;
        let mut sector = first;
        let mut seek = g.curve.seek_ns(track.abs_diff(self.head_track)) as u128 * k;
        loop {
            t += seek;
            tot.seek += seek;
            let i = sector % spt;
            let slot = (i as u128 + track as u128 * g.skew as u128) % spt as u128;
            let wait = (slot * SECTOR_TICKS + rev - t % rev) % rev;
            let n = (last - sector).min(spt - i);
            let xfer = n as u128 * SECTOR_TICKS;
            t += wait + xfer;
            tot.rotation += wait;
            tot.transfer += xfer;
            sector += n;
            if sector == last {
                break;
            }
            track += 1;
            seek = g.curve.seek_ns(1) as u128 * k;
        }
        self.head_track = track;
        let media_end = u64::try_from(t.div_ceil(k))
            .ok()
            .filter(|&t| t <= HORIZON_NS)
            .ok_or_else(|| horizon(ready))?;
        self.head_free = t;
        let done = match (op, self.write_cache) {
            (Op::Write, Some(cap)) if len <= cap => {
                // In the cache once there is room: writes ahead of it leave it in FIFO order.
                let mut at = ready;
                while self.cached.front().is_some_and(|&(e, _)| e <= at) {
                    self.dirty -= self.cached.pop_front().expect("a cached write").1;
                }
                while self.dirty + len > cap {
                    let (e, b) = self.cached.pop_front().expect("cached writes fill the cache");
                    at = at.max(e);
                    self.dirty -= b;
                }
                self.cached.push_back((media_end, len));
                self.dirty += len;
                at
            }
            _ => media_end,
        };
        let ns = |ticks: u128| (ticks / k) as u64;
        let s = Service {
            start_ns: start.div_ceil(k) as u64,
            done_ns: done,
            media_end_ns: media_end,
            seek_ns: ns(tot.seek),
            rotation_ns: ns(tot.rotation),
            transfer_ns: ns(tot.transfer),
        };
        Ok((s, tot))
    }
}

fn horizon(t: u64) -> Error {
    Error::Invalid(format!(
        "the disk's work from {t} ns passes the simulated-time horizon; expected times up to 2^62 ns (146 years)"
    ))
}

/// The `hdd` section of a result: the drive and where its time went (measured requests).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HddReport {
    pub device: String,
    pub description: String,
    pub capacity_bytes: u64,
    pub sector_bytes: u64,
    pub rpm: u32,
    pub revolution_ns: f64,
    pub sectors_per_track: u64,
    pub tracks: u64,
    pub track_skew_sectors: u64,
    pub seek_curve: SeekCurve,
    pub command_overhead_ns: u64,
    pub write_cache: bool,
    /// Requests issued at or after their job's ramp time.
    pub requests: u64,
    /// Head time of those requests, by kind, ns.
    pub seek_ns: u64,
    pub rotation_ns: u64,
    pub transfer_ns: u64,
    /// seek + rotation + transfer.
    pub busy_ns: u64,
    /// From the first measured issue to the end of the last measured request's media work.
    pub span_ns: u64,
    /// busy / span, in [0, 1].
    pub utilisation: f64,
    /// When the disk finished its last work.
    pub sim_time_ns: u64,
}

/// A run of jobs on the disk: fio-shaped job results and the `hdd` section.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct HddResult {
    pub jobs: Vec<JobResult>,
    pub hdd: HddReport,
}

/// Host events: a clone slot issues its next request; a request completes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    Issue(u32),
    Done {
        stream: u32,
        issued: u64,
        op: Op,
        offset: u64,
        len: u64,
    },
}

struct Stream {
    job: usize,
    /// Its `jobs[]` entry ([`crate::sim::reporting_units`]).
    unit: usize,
    source: Box<dyn RequestSource>,
    inflight: u64,
    logs: Option<CloneLogs>,
}

/// Check that `job` (number `i`) can run on the disk.
fn check_job(job: &JobConfig, i: usize, capacity: u64) -> Result<()> {
    let key = format!("job[{i}]");
    job.validate("hdd run", &key, capacity)?;
    let refuse = |k: &str, what: &str| -> Result<()> {
        Err(Error::config(
            "hdd run",
            &format!("{key}.{k}"),
            format!("{what}; expected a closed-loop synthetic job of reads and writes"),
        ))
    };
    if job.trace.is_some() {
        return refuse("trace", "trace replay is not modelled on the hard disk");
    }
    if job.rate_iops.is_some() || job.rate.is_some() {
        return refuse("rate_iops", "open-loop jobs are not modelled on the hard disk");
    }
    if job.hpc.is_some() {
        return refuse(
            "hpc",
            "open-loop jobs (an HPC job's Poisson arrivals) are not modelled on the hard disk",
        );
    }
    if job.stonewall {
        return refuse("stonewall", "jobs on the hard disk all start at 0");
    }
    if job.startdelay.is_some() {
        return refuse("startdelay", "jobs on the hard disk all start at 0");
    }
    if job.thinktime.is_some() {
        return refuse("thinktime", "think time is not modelled on the hard disk");
    }
    if job.host_time.is_some() {
        return refuse("host_time", "host time is not modelled on the hard disk");
    }
    if matches!(job.rw, Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite) {
        return refuse("rw", "a hard disk has no trim");
    }
    Ok(())
}

/// Run `jobs` on the disk `cfg` from idle at time 0, all at once (each clone keeps `iodepth`
/// requests outstanding; a job stops as its source does: `number_ios`, `size` / `io_size`, or
/// `runtime` after `ramp_time`), with random streams derived from `seed` as the SSD run does.
pub fn run_jobs(cfg: &HddConfig, jobs: &[JobConfig], seed: u64) -> Result<HddResult> {
    let mut disk = Disk::new(cfg)?;
    let cap = disk.capacity();
    if jobs.is_empty() {
        return Err(Error::Config("hdd run: no job to run; expected at least one".into()));
    }
    let mut streams = Vec::new();
    let (units, unit_of) = crate::sim::reporting_units(jobs);
    for (i, job) in jobs.iter().enumerate() {
        check_job(job, i, cap)?;
        for c in 0..job.numjobs {
            streams.push(Stream {
                job: i,
                unit: unit_of[streams.len()],
                source: crate::workload::generated_source(
                    &job.for_clone(c, cap).map_err(Error::Invalid)?,
                    cap,
                    job.clone_seed(seed, i, c),
                )?,
                inflight: 0,
                logs: CloneLogs::create(job, streams.len() + 1)?,
            });
        }
    }
    // One per reporting unit; each stream measures from its own job's ramp_time.
    let mut stats: Vec<JobStats> = units.iter().map(|u| JobStats::of_unit(jobs, u)).collect();
    let ramp = |s: &Stream| jobs[s.job].ramp_time.map_or(0, |d| d.0);
    let mut heap: BinaryHeap<Reverse<(u64, u64, Ev)>> = BinaryHeap::new();
    let mut seq = 0u64;
    for (si, s) in streams.iter().enumerate() {
        for _ in 0..jobs[s.job].iodepth {
            heap.push(Reverse((0, seq, Ev::Issue(si as u32))));
            seq += 1;
        }
    }
    let mut tot = Totals::default();
    let (mut first_measured, mut measured_end, mut sim_end) = (None::<u64>, 0u64, 0u64);
    while let Some(Reverse((t, _, ev))) = heap.pop() {
        match ev {
            Ev::Issue(si) => {
                let s = &mut streams[si as usize];
                // A file system on a hard disk issues no discard: a file-system job's TRIMs
                // (of deleted files) are dropped.
                let req = loop {
                    match s.source.next_request(t)? {
                        Some(r) if r.op == Op::Trim && jobs[s.job].fs.is_some() => continue,
                        r => break r,
                    }
                };
                let Some(req) = req else {
                    continue;
                };
                let (svc, parts) = disk.serve(t, req.op, req.offset, req.len)?;
                sim_end = sim_end.max(svc.media_end_ns);
                s.inflight += 1;
                let from = ramp(s);
                let st = &mut stats[s.unit];
                if t >= from {
                    st.first_issue.get_or_insert(t);
                    st.depths[depth_bucket(s.inflight)] += 1;
                    first_measured.get_or_insert(t);
                    measured_end = measured_end.max(svc.media_end_ns);
                    tot.requests += 1;
                    tot.seek += parts.seek;
                    tot.rotation += parts.rotation;
                    tot.transfer += parts.transfer;
                }
                let done = Ev::Done {
                    stream: si,
                    issued: t,
                    op: req.op,
                    offset: req.offset,
                    len: req.len,
                };
                heap.push(Reverse((svc.done_ns, seq, done)));
                seq += 1;
            }
            Ev::Done {
                stream,
                issued,
                op,
                offset,
                len,
            } => {
                let s = &mut streams[stream as usize];
                s.inflight -= 1;
                let job = &jobs[s.job];
                let from = ramp(s);
                let st = &mut stats[s.unit];
                st.last_any = st.last_any.max(t);
                if issued >= from {
                    let lat = t - issued;
                    st.ops[op.index()].record(len, lat);
                    if let Some(m) = &mut st.mixed {
                        m.record(len, lat);
                    }
                    st.last_done = st.last_done.max(t);
                    st.sample(job, t, Some((op.index(), len, lat)));
                    if let (Some(l), Some(origin)) = (&mut s.logs, st.first_issue) {
                        l.record(origin, t, op, len, offset, lat)?;
                    }
                }
                heap.push(Reverse((t, seq, Ev::Issue(stream))));
                seq += 1;
            }
        }
    }
    for (st, u) in stats.iter_mut().zip(&units) {
        st.sample(&jobs[u.first_job], st.last_done, None);
    }
    for s in &mut streams {
        if let Some(l) = &mut s.logs {
            l.finish(stats[s.unit].last_done)?;
        }
    }
    let g = &disk.geo;
    let ns = |ticks: u128| (ticks / g.ticks_per_ns) as u64;
    let busy = ns(tot.seek + tot.rotation + tot.transfer);
    let span = first_measured.map_or(0, |f| measured_end - f);
    let hdd = HddReport {
        device: cfg.name.clone(),
        description: cfg.description.clone(),
        capacity_bytes: cap,
        sector_bytes: g.sector_bytes,
        rpm: cfg.rpm,
        revolution_ns: round3(60e9 / cfg.rpm as f64),
        sectors_per_track: g.sectors_per_track,
        tracks: g.tracks,
        track_skew_sectors: g.skew,
        seek_curve: g.curve,
        command_overhead_ns: g.overhead_ns,
        write_cache: cfg.write_cache,
        requests: tot.requests,
        seek_ns: ns(tot.seek),
        rotation_ns: ns(tot.rotation),
        transfer_ns: ns(tot.transfer),
        busy_ns: busy,
        span_ns: span,
        utilisation: if span == 0 {
            0.0
        } else {
            crate::metrics::round6(busy.min(span) as f64 / span as f64)
        },
        sim_time_ns: sim_end,
    };
    Ok(HddResult {
        jobs: job_results(jobs, &units, &stats),
        hdd,
    })
}

/// fio's job results from the runner's statistics.
fn job_results(jobs: &[JobConfig], units: &[crate::sim::Unit], stats: &[JobStats]) -> Vec<JobResult> {
    let job_groups = group_ids(jobs);
    let groups: Vec<u32> = units.iter().map(|u| job_groups[u.first_job]).collect();
    let runtime = |st: &JobStats| st.first_issue.map_or(0, |f| st.last_done.saturating_sub(f));
    // A reporting group's bandwidth in a direction (KiB/s): its bytes over its longest runtime.
    let group_kib_s = |g: u32, dir: usize| -> u64 {
        let members = || {
            stats
                .iter()
                .zip(&groups)
                .filter(move |(_, &gi)| gi == g)
                .map(|(s, _)| s)
        };
        let bytes: u64 = members().map(|s| s.ops[dir].bytes).sum();
        match members().map(runtime).max().unwrap_or(0) {
            0 => 0,
            r => (bytes as u128 * 1_000_000_000 / r as u128 / 1024) as u64,
        }
    };
    units
        .iter()
        .zip(stats)
        .zip(&groups)
        .map(|((unit, st), &g)| {
            let job = &jobs[unit.first_job];
            let mut buckets = st.ops[0].buckets.clone();
            buckets.add(&st.ops[1].buckets);
            buckets.add(&st.ops[2].buckets);
            let pct = job
                .percentile_list
                .clone()
                .unwrap_or_else(|| crate::metrics::PERCENTILES.to_vec());
            let mut jr = JobResult::new(
                job.name.clone(),
                g,
                st.last_any,
                jobs[unit.last_job].fio_job_options(),
                [0, 1, 2].map(|d| st.ops[d].result(runtime(st), group_kib_s(g, d), &pct)),
                &buckets,
                &st.depths,
                runtime(st),
                job.iodepth,
                JobExtra {
                    start_ns: 0,
                    last_completion_ns: st.last_any,
                    numjobs: unit.clones,
                    iodepth: job.iodepth,
                    stream: job.stream,
                    source: match &job.fs {
                        Some(f) => format!("fs {} on a hard disk", f.app),
                        None => format!("{:?} on a hard disk", job.rw).to_lowercase(),
                    },
                    open_loop: None,
                    trace: None,
                    ignored_options: crate::sim::ignored_options(&jobs[unit.first_job..=unit.last_job]),
                },
            );
            if let Some(m) = &st.mixed {
                let all = (0..3).map(|d| group_kib_s(g, d)).sum();
                jr.unify(m.result(runtime(st), all, &pct), &job.unified_rw_reporting);
            }
            jr
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::job::SizeOrShare;

    /// A disk whose times are whole nanoseconds: 6000 rpm (10 ms a revolution), 100 sectors
    /// of 512 bytes a track (100 us a sector), 1000 tracks; seeks 1, 8 and 20 ms; 0.5 ms of
    /// command overhead. The track skew is 1 ms / 100 us = 10 sectors.
    fn exact() -> HddConfig {
        HddConfig::parse(
            r#"
            name = "exact"
            capacity = 51200000
            rpm = 6000
            media_rate = "5.12MB/s"
            command_overhead = "500us"
            [seek]
            track_to_track = "1ms"
            average = "8ms"
            full_stroke = "20ms"
            "#,
            "test",
        )
        .unwrap()
    }

    const T: u64 = 10_000_000;
    const SECTOR: u64 = 100_000;

    #[test]
    fn exact_geometry() {
        let d = Disk::new(&exact()).unwrap();
        assert_eq!(
            (d.sectors_per_track(), d.tracks(), d.track_skew(), d.capacity()),
            (100, 1000, 10, 51_200_000)
        );
        // The preset: 60 MB/s over 8.333 ms is 976.6 sectors: 976; 625,142,448 sectors.
        let p = Disk::new(&HddConfig::preset()).unwrap();
        assert_eq!((p.sectors_per_track(), p.tracks()), (976, 640_515));
        // 1 ms at 7200 rpm is 117.12 sectors of 976: a skew of 118.
        assert_eq!(p.track_skew(), 118);
        assert_eq!(p.capacity(), 320_072_933_376);
    }

    #[test]
    fn the_enterprise_preset_by_hand() {
        // 175 MB/s over 8.333 ms is 2,848.3 sectors: 2,848 a track; 7,814,037,168 sectors
        // over them is 2,743,692.8 tracks: 2,743,693.
        let cfg = HddConfig::named("hdd-7200-enterprise").unwrap();
        let p = Disk::new(&cfg).unwrap();
        assert_eq!((p.sectors_per_track(), p.tracks()), (2848, 2_743_693));
        assert_eq!(p.capacity(), 4_000_787_030_016);
        assert_eq!(cfg.seek.average.0, 8_200_000);
        assert!(HddConfig::named("hdd-9000").is_none());
    }

    #[test]
    fn one_read_on_an_idle_disk_then_a_rewrite_then_an_append() {
        let mut d = Disk::new(&exact()).unwrap();
        // Track 999 (a full stroke from track 0), sector 30: slot (30 + 999 * 10) mod 100 = 20.
        let off = (999 * 100 + 30) * 512;
        let r = d.submit(0, Op::Read, off, 4096).unwrap();
        // Overhead 0.5 ms; full stroke 20 ms: at 20.5 ms the head is over slot 5; 15 sectors
        // to slot 20; 8 sectors of transfer.
        assert_eq!(
            (r.start_ns, r.seek_ns, r.rotation_ns, r.transfer_ns),
            (500_000, 20_000_000, 1_500_000, 800_000)
        );
        assert_eq!(r.done_ns, 500_000 + 20_000_000 + 15 * SECTOR + 8 * SECTOR);
        assert_eq!(r.done_ns, 22_800_000);
        // Rewriting the same sectors as soon as the read completes: the overhead moves the
        // head 5 sectors past their end, and the platter brings them back after a revolution
        // less the transfer and the overhead: the latency is one revolution.
        let w = d.submit(r.done_ns, Op::Write, off, 4096).unwrap();
        assert_eq!((w.seek_ns, w.rotation_ns), (0, T - 800_000 - 500_000));
        assert_eq!(w.done_ns - r.done_ns, T);
        // Appending the next 4 KiB: its first sector has just gone by, one revolution less
        // the overhead to wait, then the transfer.
        let a = d.submit(w.done_ns, Op::Write, off + 4096, 4096).unwrap();
        assert_eq!(a.rotation_ns, T - 500_000);
        assert_eq!(a.done_ns - w.done_ns, T + 800_000);
    }

    #[test]
    fn queued_appends_stream_and_a_transfer_crosses_a_track() {
        let mut d = Disk::new(&exact()).unwrap();
        // Sectors 0-7 of track 0 at time 0: 0.5 ms of overhead is 5 sectors, wait 95.
        let a = d.submit(0, Op::Write, 0, 4096).unwrap();
        assert_eq!(a.done_ns, 500_000 + 95 * SECTOR + 8 * SECTOR);
        // The next one, issued at 0 too, waited in the queue: its overhead is over when the
        // head comes off sector 7, and sector 8 follows at once.
        let b = d.submit(0, Op::Write, 4096, 4096).unwrap();
        assert_eq!(
            (b.start_ns, b.rotation_ns, b.done_ns),
            (a.done_ns, 0, a.done_ns + 8 * SECTOR)
        );
        // Sectors 96-103: 4 on track 0 (slots 96-99), a track-to-track seek of 1 ms, then
        // track 1's sector 0 at slot 10, reached 10 sectors after slot 0: the skew absorbs
        // the seek exactly.
        let mut d = Disk::new(&exact()).unwrap();
        let c = d.submit(0, Op::Read, 96 * 512, 4096).unwrap();
        // Overhead to slot 5; wait 91 sectors to slot 96; 4 sectors; seek 1 ms (10 sectors,
        // to slot 10, where track 1's sector 0 is); 4 sectors.
        assert_eq!(c.seek_ns, 1_000_000);
        assert_eq!(c.rotation_ns, 91 * SECTOR);
        assert_eq!(c.transfer_ns, 8 * SECTOR);
        assert_eq!(c.done_ns, 500_000 + 91 * SECTOR + 4 * SECTOR + 1_000_000 + 4 * SECTOR);
    }

    #[test]
    fn write_cache_completes_writes_once_they_fit() {
        let mut cfg = exact();
        cfg.write_cache = true;
        cfg.write_cache_size = Some(Size(8192));
        let mut d = Disk::new(&cfg).unwrap();
        // Two 4 KiB writes fit: each completes after the overhead.
        let a = d.submit(0, Op::Write, 0, 4096).unwrap();
        let b = d.submit(0, Op::Write, 8 * 512 * 50, 4096).unwrap();
        assert_eq!((a.done_ns, b.done_ns), (500_000, 500_000));
        assert_eq!(a.media_end_ns, 500_000 + 95 * SECTOR + 8 * SECTOR);
        // The third waits for the first to reach the platter.
        let c = d.submit(0, Op::Write, 8192, 4096).unwrap();
        assert_eq!(c.done_ns, a.media_end_ns);
        // Reads wait for the writes ahead of them and complete on the platter.
        let r = d.submit(0, Op::Read, 0, 512).unwrap();
        assert_eq!(r.done_ns, r.media_end_ns);
        assert!(r.start_ns >= c.media_end_ns);
    }

    #[test]
    fn seek_curve_passes_through_the_datasheet_points_and_rises() {
        for cfg in [exact(), HddConfig::preset()] {
            let d = Disk::new(&cfg).unwrap();
            let c = d.seek_curve();
            let m = c.max_distance;
            assert_eq!(c.seek_ns(0), 0);
            assert_eq!(c.seek_ns(1), cfg.seek.track_to_track.0);
            assert_eq!(c.seek_ns(m), cfg.seek.full_stroke.0);
            let avg = c.datasheet_average_ns();
            assert!(
                (avg - cfg.seek.average.0 as f64).abs() < 1.0,
                "{}: average {avg}",
                cfg.name
            );
            let mut prev = 0;
            for n in 1..=m {
                let s = c.seek_ns(n);
                assert!(s >= prev, "{}: seek({n}) = {s} < seek({}) = {prev}", cfg.name, n - 1);
                prev = s;
            }
            // Square root at short distances: the first step is steeper than the mean slope.
            assert!(c.seek_ns(2) - c.seek_ns(1) > (c.seek_ns(m) - c.seek_ns(1)) / m * 2);
        }
        // The preset's curve: 12 ms is 0.579 of the way from 1 to 20 ms, beyond a square
        // root's 8/15: the linear term is negative, the slope positive to the end.
        let c = *Disk::new(&HddConfig::preset()).unwrap().seek_curve();
        assert!(c.sqrt_ns > 0.0 && c.linear_ns < 0.0);
    }

    #[test]
    fn seek_figures_out_of_order_or_out_of_reach_are_errors() {
        let bad = |t1: &str, ta: &str, tf: &str| {
            let text = format!(
                "name = \"x\"\ncapacity = 51200000\nrpm = 6000\nmedia_rate = \"5.12MB/s\"\n[seek]\ntrack_to_track = \"{t1}\"\naverage = \"{ta}\"\nfull_stroke = \"{tf}\"\n"
            );
            HddConfig::parse(&text, "t.toml").unwrap_err().to_string()
        };
        assert!(bad("1ms", "21ms", "20ms").contains("seek"));
        // An average 1/4 of the way (below the straight line's 1/3) would need seeks that
        // shorten with distance.
        assert!(bad("1ms", "5.75ms", "20ms").contains("between 1/3 and about 11/15"));
        let e = HddConfig::parse("name = \"x\"\nrpm = 7200\n", "t.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("t.toml") && e.contains("capacity"), "{e}");
    }

    fn job(rw: Rw, iodepth: u32, n: u64) -> JobConfig {
        JobConfig {
            name: format!("{rw:?}"),
            rw,
            bs: Size(4096),
            iodepth,
            number_ios: Some(n),
            // n requests even past one pass over the disk (number_ios alone stops there).
            io_size: Some(Size(n * 4096)),
            ..Default::default()
        }
    }

    fn write_iops(r: &HddResult) -> f64 {
        r.jobs[0].write.iops
    }

    #[test]
    fn random_updates_at_qd1_match_the_analytic_rate() {
        // Uniform random 4 KiB writes over the whole disk, one at a time: each costs the
        // overhead, a seek between two random tracks (the datasheet average, less the 1/N
        // chance of no seek), half a revolution on average, and 8 sectors.
        for cfg in [exact(), HddConfig::preset()] {
            let d = Disk::new(&cfg).unwrap();
            let n_tracks = d.tracks() as f64;
            let t_rev = 60e9 / cfg.rpm as f64;
            let sector = t_rev / d.sectors_per_track() as f64;
            let per_op = cfg.command_overhead.0 as f64
                + (1.0 - 1.0 / n_tracks) * cfg.seek.average.0 as f64
                + t_rev / 2.0
                + 8.0 * sector;
            let want = 1e9 / per_op;
            let r = run_jobs(&cfg, &[job(Rw::RandWrite, 1, 20_000)], 7).unwrap();
            let got = write_iops(&r);
            assert!(
                (got / want - 1.0).abs() < 0.02,
                "{}: {got} IOPS, expected {want}",
                cfg.name
            );
            assert_eq!(r.hdd.requests, 20_000);
            // Mean seek and rotation per request within 2 % of the datasheet average and of
            // half a revolution.
            let mean_seek = r.hdd.seek_ns as f64 / 20_000.0;
            assert!(
                (mean_seek / cfg.seek.average.0 as f64 - 1.0).abs() < 0.02,
                "{mean_seek}"
            );
            let mean_rot = r.hdd.rotation_ns as f64 / 20_000.0;
            assert!((mean_rot / (t_rev / 2.0) - 1.0).abs() < 0.03, "{mean_rot}");
            // One request at a time: the head is busy all but the overheads.
            let busy = 1.0 - cfg.command_overhead.0 as f64 / per_op;
            assert!((r.hdd.utilisation - busy).abs() < 0.01, "{}", r.hdd.utilisation);
        }
    }

    #[test]
    fn appends_at_qd1_cost_a_revolution_and_queued_appends_stream() {
        let cfg = exact();
        // 100 sectors a track: 12 appends of 8 sectors, the 13th runs off the end (4 + 4).
        // Each append within a track takes T + 8 sectors (its sector has just passed); at a
        // track change the seek and the skew add 10 sectors: 25 appends take 25 (T + 8
        // sectors) + 2 · 10 sectors over 2 tracks.
        let r = run_jobs(&cfg, &[job(Rw::Write, 1, 2500)], 1).unwrap();
        let want = 25.0 * 1e9 / (25.0 * (T + 8 * SECTOR) as f64 + 20.0 * SECTOR as f64);
        let got = write_iops(&r);
        assert!((got / want - 1.0).abs() < 0.002, "{got} IOPS, expected {want}");
        // Every latency is at least a revolution: the in-place update cannot beat the platter.
        assert!(r.jobs[0].write.clat_ns.min >= T);
        assert_eq!(
            r.hdd.seek_ns,
            199 * 1_000_000,
            "one track-to-track seek per track change"
        );
        // The same on the preset, whose sector is not a whole number of ns: one revolution
        // and 8 sectors an append, a skew's worth more every 976 / 8 = 122 appends.
        let p = HddConfig::preset();
        let d = Disk::new(&p).unwrap();
        let t_rev = 60e9 / p.rpm as f64;
        let (spt, skew) = (d.sectors_per_track() as f64, d.track_skew() as f64);
        let sector = t_rev / spt;
        let want = 1e9 / (t_rev + 8.0 * sector + 8.0 / spt * skew * sector);
        let got = write_iops(&run_jobs(&p, &[job(Rw::Write, 1, 3000)], 1).unwrap());
        assert!((got / want - 1.0).abs() < 0.002, "preset: {got} IOPS, expected {want}");
        // Eight outstanding: the overhead hides behind the transfers ahead (exact: 5 sectors
        // behind 56; preset: 35 behind 56), and the head writes whole tracks, a track in a
        // revolution and a skew. A head that lost a fraction of a sector between two queued
        // requests would lose a revolution instead.
        let q = run_jobs(&cfg, &[job(Rw::Write, 8, 2500)], 1).unwrap();
        let want = 12.5 * 1e9 / (T + 10 * SECTOR) as f64;
        let got = write_iops(&q);
        assert!((got / want - 1.0).abs() < 0.01, "{got} IOPS, expected {want}");
        let want = spt / 8.0 * 1e9 / (t_rev + skew * sector);
        let got = write_iops(&run_jobs(&p, &[job(Rw::Write, 8, 20_000)], 1).unwrap());
        assert!((got / want - 1.0).abs() < 0.01, "preset: {got} IOPS, expected {want}");
    }

    #[test]
    fn ramp_runtime_and_jobs_are_honoured() {
        let cfg = exact();
        // runtime: the job stops issuing at ramp + runtime; only post-ramp I/O is counted.
        let j = JobConfig {
            runtime: Some(Duration(1_000_000_000)),
            ramp_time: Some(Duration(200_000_000)),
            number_ios: None,
            io_size: None,
            time_based: true,
            ..job(Rw::RandRead, 1, 1)
        };
        let r = run_jobs(&cfg, &[j], 3).unwrap();
        let rd = &r.jobs[0].read;
        let last = r.jobs[0].ssdlab.last_completion_ns;
        assert!((1_200_000_000..1_260_000_000).contains(&last), "{last}");
        // About 1 s / (0.5 + 8 + 5 + 0.8 ms) requests measured.
        assert!((rd.total_ios as f64 - 1e9 / 14.3e6).abs() < 10.0, "{}", rd.total_ios);
        assert_eq!(r.hdd.requests, rd.total_ios);
        // size: one pass over a 1 MiB region in 4 KiB reads.
        let j = JobConfig {
            size: Some(SizeOrShare::Bytes(Size(1 << 20))),
            number_ios: None,
            io_size: None,
            ..job(Rw::Read, 2, 1)
        };
        let r = run_jobs(&cfg, &[j], 3).unwrap();
        assert_eq!(r.jobs[0].read.total_ios, 256);
        // Two clones of two slots: four requests outstanding, all counted (reported as one
        // entry under group_reporting, as two without).
        let j = JobConfig {
            numjobs: 2,
            group_reporting: true,
            ..job(Rw::RandRw, 2, 500)
        };
        let r = run_jobs(&cfg, std::slice::from_ref(&j), 3).unwrap();
        assert_eq!(r.jobs.len(), 1);
        assert_eq!(r.jobs[0].read.total_ios + r.jobs[0].write.total_ios, 1000);
        let apart = run_jobs(
            &cfg,
            &[JobConfig {
                group_reporting: false,
                ..j
            }],
            3,
        )
        .unwrap();
        let ios = |e: &crate::metrics::JobResult| e.read.total_ios + e.write.total_ios;
        assert_eq!(apart.jobs.iter().map(ios).collect::<Vec<_>>(), [500, 500]);
        assert!(apart.jobs.iter().all(|e| e.ssdlab.numjobs == 1));
        assert_eq!(apart.hdd.requests, r.hdd.requests);
        assert!(r.jobs[0].iodepth_level.0[1].1 > 90.0, "{:?}", r.jobs[0].iodepth_level);
        // Same seed, same result.
        let again = run_jobs(
            &cfg,
            &[JobConfig {
                numjobs: 2,
                group_reporting: true,
                ..job(Rw::RandRw, 2, 500)
            }],
            3,
        )
        .unwrap();
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            serde_json::to_string(&again).unwrap()
        );
        // Trims, traces and open-loop jobs are refused with the key at fault.
        let e = run_jobs(&cfg, &[job(Rw::RandTrim, 1, 1)], 3).unwrap_err().to_string();
        assert!(e.contains("job[0].rw") && e.contains("no trim"), "{e}");
        let e = run_jobs(
            &cfg,
            &[JobConfig {
                rate_iops: Some(10),
                ..job(Rw::Read, 1, 1)
            }],
            3,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("job[0].rate_iops"), "{e}");
        // An HPC job's Poisson arrivals are open loop too.
        let e = run_jobs(
            &cfg,
            &[JobConfig {
                hpc: Some(crate::workload::hpc::HpcJob::default()),
                ..job(Rw::Read, 1, 1)
            }],
            3,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("job[0].hpc: open-loop jobs"), "{e}");
        // A think time is not modelled: refused rather than ignored.
        let e = run_jobs(
            &cfg,
            &[JobConfig {
                thinktime: Some(crate::units::Duration(1_000_000)),
                ..job(Rw::Read, 1, 1)
            }],
            3,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("job[0].thinktime: think time is not modelled"), "{e}");
    }
}
