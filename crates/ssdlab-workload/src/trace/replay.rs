//! Trace replay: a [`RequestSource`] that feeds a trace to the simulated device.
//!
//! Records pass the filters (device, ops, time window), are counted against
//! `max_requests`, get their arrival times rebased (first replayed request at 0) and divided
//! by `speed`, and their addresses mapped into the logical capacity by the address mode.
//! Arrival times never go backwards: a record stamped earlier than its predecessor (some
//! traces are not sorted) is replayed at the predecessor's time.

use super::{Devices, Format, ReaderOptions, TraceReader, TraceRecord};
use crate::units::Duration;
use crate::{Error, Op, Request, RequestSource, Result};
use serde::Deserialize;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};

/// Page size used by the `wrap` and `compact` address modes.
pub const PAGE: u64 = 4096;

/// Which operations to replay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OpsFilter {
    #[default]
    All,
    Read,
    Write,
}

/// How trace addresses are mapped onto the device's logical capacity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AddressMode {
    /// Use addresses as they are; a request beyond the capacity is an error.
    #[default]
    Keep,
    /// Wrap offsets modulo the capacity (in 4 KiB pages, keeping the offset inside the page);
    /// a request that would cross the end starts over at page 0.
    Wrap,
    /// Map each 4 KiB page, on first touch, to the next unused page from 0: the footprint is
    /// packed densely. Memory is proportional to the footprint.
    Compact,
}

fn one() -> f64 {
    1.0
}

/// The `replay` section of a job.
#[derive(Clone, Debug, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct ReplayConfig {
    /// Trace file; relative paths are resolved against the config file's folder.
    pub file: String,
    /// Trace format name, `auto` (default) guesses.
    #[serde(default)]
    pub format: Format,
    /// Only replay these devices / volumes / LUNs / ASUs: a number or a list (`volumes` is
    /// another name for the key).
    #[serde(default, alias = "volumes", skip_serializing_if = "Devices::is_all")]
    pub device: Devices,
    /// Skip records before this trace time (as read, see [`super::TraceRecord::time_ns`]).
    #[serde(default)]
    pub start: Option<Duration>,
    /// Skip records at or after this trace time.
    #[serde(default)]
    pub end: Option<Duration>,
    /// Stop after this many replayed requests.
    #[serde(default)]
    pub max_requests: Option<u64>,
    /// `all` (default), `read` or `write`.
    #[serde(default)]
    pub ops: OpsFilter,
    /// `keep` (default), `wrap` or `compact`.
    #[serde(default)]
    pub address: AddressMode,
    /// Time compression factor: 2.0 replays twice as fast. Default 1.0.
    #[serde(default = "one")]
    pub speed: f64,
    /// Skip and count malformed lines instead of failing.
    #[serde(default)]
    pub skip_bad_lines: bool,
}

impl ReplayConfig {
    /// A configuration with defaults for `file`.
    pub fn new(file: impl Into<String>) -> ReplayConfig {
        ReplayConfig {
            file: file.into(),
            format: Format::Auto,
            device: Devices::all(),
            start: None,
            end: None,
            max_requests: None,
            ops: OpsFilter::All,
            address: AddressMode::Keep,
            speed: 1.0,
            skip_bad_lines: false,
        }
    }

    /// Check values serde cannot check. `file` is the config file and `key` the table's key
    /// (e.g. `job[0].trace`); errors name the full key.
    pub fn validate(&self, file: &str, key: &str) -> Result<()> {
        let e = |k: &str, msg: String| Error::config(file, &format!("{key}.{k}"), msg);
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return Err(e(
                "speed",
                format!(
                    "must be a positive number, got {}; expected a time compression factor such as 1.0 or 2.5",
                    self.speed
                ),
            ));
        }
        if let (Some(s), Some(end)) = (self.start, self.end) {
            if end.0 <= s.0 {
                return Err(e(
                    "end",
                    format!(
                        "{} ns is not after start ({} ns); expected an end later than the start",
                        end.0, s.0
                    ),
                ));
            }
        }
        if self.max_requests == Some(0) {
            return Err(e(
                "max_requests",
                "must be at least 1, got 0; expected a positive number of requests".to_string(),
            ));
        }
        Ok(())
    }
}

/// The `compact` address mode's map: each 4 KiB page of the trace gets, on first touch, the
/// next unused page from 0, so the footprint is packed densely. Memory is proportional to the
/// footprint.
#[derive(Clone, Debug, Default)]
pub struct CompactMap {
    pages: HashMap<u64, u64>,
}

/// Mapping a request would need more dense pages than allowed: the footprint so far, the
/// page that did not fit included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FootprintFull {
    pub pages: u64,
}

impl CompactMap {
    /// Distinct pages mapped so far (the footprint).
    pub fn len(&self) -> u64 {
        self.pages.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    /// The dense page of a trace page, if mapped.
    pub fn get(&self, page: u64) -> Option<u64> {
        self.pages.get(&page).copied()
    }

    /// Every (trace page, dense page) pair, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.pages.iter().map(|(&p, &d)| (p, d))
    }

    /// Map the `len` bytes at `offset` (`len` > 0), giving pages not seen before the next
    /// dense pages (at most `max_pages` in all), and call `emit(dense offset, len)` for each
    /// dense-contiguous piece in order. Returns the number of pieces.
    pub fn map(
        &mut self,
        offset: u64,
        len: u64,
        max_pages: u64,
        emit: impl FnMut(u64, u64),
    ) -> Result<usize, FootprintFull> {
        for p in offset / PAGE..=(offset + len - 1) / PAGE {
            let next = self.pages.len() as u64;
            if *self.pages.entry(p).or_insert(next) >= max_pages {
                // The page stays counted: the map is of no further use after this.
                return Err(FootprintFull {
                    pages: self.pages.len() as u64,
                });
            }
        }
        Ok(self.pieces(offset, len, emit))
    }

    /// As [`CompactMap::map`] without adding pages: pages never mapped are left out. Returns
    /// the number of pieces.
    pub fn pieces(&self, offset: u64, len: u64, mut emit: impl FnMut(u64, u64)) -> usize {
        let in_page = offset % PAGE;
        // Byte range of page i of the request: its pieces are runs of consecutive dense pages.
        let span = |i: u64| {
            let from = if i == 0 { 0 } else { i * PAGE - in_page };
            let to = ((i + 1) * PAGE - in_page).min(len);
            (from, to)
        };
        let mut run: Option<(u64, u64, u64)> = None; // (dense offset, from, to) in the request
        let mut pieces = 0;
        for (i, p) in (offset / PAGE..=(offset + len - 1) / PAGE).enumerate() {
            let (from, to) = span(i as u64);
            let Some(dense) = self.get(p) else { continue };
            let at = dense * PAGE + if i == 0 { in_page } else { 0 };
            match &mut run {
                Some((d, f, t)) if *t == from && *d + (*t - *f) == at => *t = to,
                _ => {
                    if let Some((d, f, t)) = run.take() {
                        emit(d, t - f);
                        pieces += 1;
                    }
                    run = Some((at, from, to));
                }
            }
        }
        if let Some((d, f, t)) = run {
            emit(d, t - f);
            pieces += 1;
        }
        pieces
    }
}

/// Counters of a replay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ReplayCounters {
    /// Records read from the trace.
    pub read: u64,
    /// Records filtered out (device, ops, time window).
    pub filtered: u64,
    /// Malformed lines skipped (`skip_bad_lines`).
    pub skipped_lines: u64,
    /// Requests handed to the device (after `compact` splitting).
    pub replayed: u64,
    /// Records replayed later than their timestamp because the trace went back in time.
    pub reordered: u64,
    /// Records the `compact` mode split because their pages were not contiguous.
    pub split: u64,
}

/// A trace replay, implementing [`RequestSource`].
pub struct TraceSource {
    reader: TraceReader,
    cfg: ReplayConfig,
    capacity: u64,
    first_time: Option<u64>,
    last_time: u64,
    accepted: u64,
    pending: VecDeque<Request>,
    pages: CompactMap,
    counters: ReplayCounters,
}

impl TraceSource {
    /// Open the trace of `cfg` (relative to `config_dir`) for a device of
    /// `logical_capacity_bytes`.
    pub fn open(cfg: &ReplayConfig, config_dir: &Path, logical_capacity_bytes: u64) -> Result<TraceSource> {
        cfg.validate("replay", "trace")?;
        if logical_capacity_bytes < PAGE {
            return Err(Error::Invalid(format!(
                "replay: logical capacity {logical_capacity_bytes} bytes is below one 4 KiB page"
            )));
        }
        // `@NAME` (the public trace NAME, which the reader finds) as it is; else a path (an
        // absolute one as it is: `join` keeps it).
        let path: PathBuf = match cfg.file.starts_with('@') {
            true => PathBuf::from(&cfg.file),
            false => config_dir.join(&cfg.file),
        };
        let reader = TraceReader::open(
            &path,
            &ReaderOptions {
                format: cfg.format,
                skip_bad_lines: cfg.skip_bad_lines,
            },
        )?;
        Ok(TraceSource {
            reader,
            cfg: cfg.clone(),
            capacity: logical_capacity_bytes,
            first_time: None,
            last_time: 0,
            accepted: 0,
            pending: VecDeque::new(),
            pages: CompactMap::default(),
            counters: ReplayCounters::default(),
        })
    }

    /// The trace format (guessed or given).
    pub fn format(&self) -> Format {
        self.reader.format()
    }

    /// Counters so far.
    pub fn counters(&self) -> ReplayCounters {
        ReplayCounters {
            skipped_lines: self.reader.skipped(),
            ..self.counters
        }
    }

    /// Distinct 4 KiB pages mapped so far by the `compact` mode.
    pub fn compact_pages(&self) -> u64 {
        self.pages.len()
    }

    fn keep(&self, r: &TraceRecord) -> bool {
        let c = &self.cfg;
        c.device.contains(r.device)
            && match c.ops {
                OpsFilter::All => true,
                OpsFilter::Read => r.op == Op::Read,
                OpsFilter::Write => r.op == Op::Write,
            }
            && c.start.is_none_or(|s| r.time_ns >= s.0)
            && c.end.is_none_or(|e| r.time_ns < e.0)
    }

    /// Arrival time of a record stamped `t`: rebased, divided by the speed, never earlier
    /// than the previous one. An arrival beyond 2^64 - 1 ns is an error, not a wrapped or
    /// clamped time.
    fn arrival(&mut self, t: u64) -> Result<u64> {
        let t0 = *self.first_time.get_or_insert(t);
        let rel = t.saturating_sub(t0);
        let scaled = if self.cfg.speed == 1.0 {
            rel
        } else {
            let x = rel as f64 / self.cfg.speed;
            // 2^64 as f64 is the first value that does not fit.
            if x >= 18_446_744_073_709_551_616.0 {
                return Err(Error::Parse {
                    file: self.reader.name().to_string(),
                    line: self.reader.line(),
                    msg: format!(
                        "timestamp: {rel} ns after the first request at speed {} arrives at {x:.3e} ns, beyond 64-bit nanoseconds; expected a larger speed or an earlier end",
                        self.cfg.speed
                    ),
                });
            }
            x as u64
        };
        if scaled < self.last_time {
            self.counters.reordered += 1;
        }
        self.last_time = self.last_time.max(scaled);
        Ok(self.last_time)
    }

    /// A record that does not fit the capacity, as `FILE:LINE: KEY: what; expected ...`.
    fn beyond(&self, key: &str, what: &str, expected: &str) -> Error {
        Error::Parse {
            file: self.reader.name().to_string(),
            line: self.reader.line(),
            msg: format!(
                "{key}: {what} the logical capacity of {} bytes; expected {expected}",
                self.capacity
            ),
        }
    }

    /// Map a record into the capacity, pushing one or more requests to `pending`.
    fn map(&mut self, r: &TraceRecord, time_ns: u64) -> Result<()> {
        let cap = self.capacity;
        let req = |offset, len| Request {
            time_ns,
            op: r.op,
            offset,
            len,
            stream: 0,
        };
        match self.cfg.address {
            AddressMode::Keep => {
                if r.offset.checked_add(r.len).is_none_or(|e| e > cap) {
                    return Err(self.beyond(
                        "offset",
                        &format!("the request at offset {} of {} bytes ends beyond", r.offset, r.len),
                        "address = \"wrap\" or address = \"compact\" in [job.trace], or a larger device",
                    ));
                }
                self.pending.push_back(req(r.offset, r.len));
            }
            AddressMode::Wrap => {
                if r.len > cap {
                    return Err(self.beyond(
                        "size",
                        &format!("{} bytes exceeds", r.len),
                        "requests no larger than the device",
                    ));
                }
                let pages = cap / PAGE;
                let mut off = (r.offset / PAGE % pages) * PAGE + r.offset % PAGE;
                if off + r.len > cap {
                    off = r.offset % PAGE;
                    if off + r.len > cap {
                        off = 0;
                    }
                }
                self.pending.push_back(req(off, r.len));
            }
            AddressMode::Compact => {
                if r.len > cap {
                    return Err(self.beyond(
                        "size",
                        &format!("{} bytes exceeds", r.len),
                        "requests no larger than the device",
                    ));
                }
                let pending = &mut self.pending;
                let mapped = self
                    .pages
                    .map(r.offset, r.len, cap / PAGE, |o, l| pending.push_back(req(o, l)));
                let pieces = match mapped {
                    Ok(n) => n,
                    Err(full) => {
                        return Err(self.beyond(
                            "offset",
                            &format!("the trace footprint ({} pages of 4 KiB so far) exceeds", full.pages),
                            "address = \"wrap\", or a device as large as the footprint",
                        ))
                    }
                };
                if pieces > 1 {
                    self.counters.split += 1;
                }
            }
        }
        Ok(())
    }
}

impl RequestSource for TraceSource {
    fn report(&self) -> Option<serde_json::Value> {
        let mut v = serde_json::to_value(self.counters()).ok()?;
        v["file"] = self.cfg.file.clone().into();
        v["format"] = self.format().name().into();
        Some(v)
    }

    fn next_request(&mut self, _now_ns: u64) -> Result<Option<Request>> {
        loop {
            if let Some(r) = self.pending.pop_front() {
                self.counters.replayed += 1;
                return Ok(Some(r));
            }
            if self.cfg.max_requests.is_some_and(|m| self.accepted >= m) {
                return Ok(None);
            }
            let Some(r) = self.reader.next() else { return Ok(None) };
            let r = r?;
            self.counters.read += 1;
            if !self.keep(&r) {
                self.counters.filtered += 1;
                continue;
            }
            self.accepted += 1;
            let t = self.arrival(r.time_ns)?;
            self.map(&r, t)?;
        }
    }
}
