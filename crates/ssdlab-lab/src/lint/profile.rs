//! The one streaming pass over a workload that every check reads.
//!
//! Records come from the trace layer's readers (or a run file's jobs), at most
//! `max_requests` of them after the device filter. The pass feeds the trace statistics
//! ([`StatsBuilder`]) and keeps what the checks need besides, all bounded by the options:
//! the footprint packed densely ([`CompactMap`], at most `max_pages` pages) with a write
//! count per page, the writes as pieces of that dense space (at most one per request piece),
//! alignment to the mapping unit, request sizes of small and large requests, and the bytes
//! written per 100 ms window of trace time.

use super::{LintOptions, Workload};
use crate::request::RequestSource;
use crate::trace::replay::{CompactMap, PAGE};
use crate::trace::stats::{StatsBuilder, StatsOptions, TraceStats};
use crate::trace::{TraceReader, TraceRecord};
use crate::{Error, Op, Result};
use std::sync::Arc;

/// Width of the windows in which write bursts are measured.
pub const WINDOW_NS: u64 = 100_000_000;

/// How the workload issues its requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
pub enum Timing {
    /// At the trace's timestamps (open loop).
    Open,
    /// `depth` requests outstanding (closed loop: a run file's jobs).
    Closed { depth: u32 },
}

/// A write's piece in the dense address space: `len` bytes at byte `offset`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    pub offset: u64,
    pub len: u64,
}

/// Requests of one size class (small or large): counts and a power-of-two size histogram
/// with the bytes of each bucket.
#[derive(Clone, Debug, Default)]
pub struct SizeClass {
    pub requests: u64,
    pub reads: u64,
    pub bytes: u64,
    counts: Vec<u64>,
    sums: Vec<u128>,
}

impl SizeClass {
    fn add(&mut self, op: Op, len: u64) {
        if self.counts.is_empty() {
            self.counts = vec![0; 65];
            self.sums = vec![0; 65];
        }
        let b = 64 - len.leading_zeros() as usize;
        self.counts[b] += 1;
        self.sums[b] += len as u128;
        self.requests += 1;
        self.bytes += len;
        if op == Op::Read {
            self.reads += 1;
        }
    }

    /// The typical request size: the mean size of the power-of-two bucket that holds the
    /// median request, rounded up to 512 bytes.
    pub fn typical(&self) -> Option<u64> {
        if self.requests == 0 {
            return None;
        }
        let half = self.requests.div_ceil(2);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if c > 0 && seen >= half {
                let mean = (self.sums[b] / c as u128) as u64;
                return Some(mean.div_ceil(512).max(1) * 512);
            }
        }
        None
    }

    /// Share of its requests that are reads.
    pub fn read_share(&self) -> f64 {
        ratio(self.reads, self.requests)
    }
}

pub(crate) fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// What the pass measured.
pub struct Profile {
    pub stats: TraceStats,
    pub timing: Timing,
    /// Requests analysed (trims included), and whether `max_requests` cut the workload short.
    pub requests: u64,
    pub truncated: bool,
    /// The footprint, packed: trace page → dense page.
    pub map: Arc<CompactMap>,
    /// Writes per dense page.
    pub page_writes: Vec<u32>,
    /// The writes in dense space, in order.
    pub pattern: Vec<Piece>,
    /// Write requests, their bytes, and the bytes of the mapping units they touch.
    pub writes: u64,
    pub write_bytes: u64,
    pub write_unit_bytes: u64,
    /// Writes smaller than a mapping unit; writes whose offset or end is not on a unit
    /// boundary; partly written units of writes (head and tail) that held data written
    /// earlier in the workload (each costs a read-modify-write read).
    pub sub_unit_writes: u64,
    pub unaligned_writes: u64,
    pub rmw_units: u64,
    /// 4 KiB page writes, and those to a page the workload wrote before.
    pub page_writes_total: u64,
    pub page_rewrites: u64,
    /// Requests below the device's large-request size, and the others.
    pub small: SizeClass,
    pub large: SizeClass,
    /// Bytes written in each non-empty [`WINDOW_NS`] window of trace time: (window, bytes).
    pub windows: Vec<(u64, u64)>,
    /// Trace time from the first to the last record analysed.
    pub duration_ns: u64,
}

impl Profile {
    /// Footprint in 4 KiB pages.
    pub fn footprint_pages(&self) -> u64 {
        self.map.len()
    }

    /// Host write rate of the workload at its own pace (bytes over the trace's duration),
    /// when it has timestamps.
    pub fn write_rate(&self) -> Option<f64> {
        (self.timing == Timing::Open && self.duration_ns > 0)
            .then(|| self.write_bytes as f64 * 1e9 / self.duration_ns as f64)
    }
}

/// Records of a workload, as the pass and the replays read them: a trace's (selected
/// devices only) or those a run file's jobs generate, at most `limit`.
pub struct Records {
    inner: Inner,
    limit: u64,
    taken: u64,
}

enum Inner {
    Trace {
        reader: Box<TraceReader>,
        devices: crate::trace::Devices,
    },
    Jobs {
        name: String,
        sources: Vec<Box<dyn RequestSource>>,
        next: usize,
    },
}

impl Records {
    /// Open the workload afresh.
    pub fn open(w: &Workload, limit: u64) -> Result<Records> {
        let inner = match w {
            Workload::Trace { path, options, devices } => Inner::Trace {
                reader: Box::new(TraceReader::open(path, options)?),
                devices: devices.clone(),
            },
            Workload::Jobs { cfg } => {
                let cap = crate::redundancy::geometry_of(&cfg.device, &cfg.file)?.logical_bytes();
                let mut sources = Vec::new();
                for (i, job) in cfg.job.iter().enumerate() {
                    if job.trace.is_some() {
                        return Err(cfg.locate(Error::config(
                            &cfg.file,
                            &format!("job[{i}].trace"),
                            "a trace replay job; expected generated jobs (lint the trace file itself)",
                        )));
                    }
                    for c in 0..job.numjobs {
                        sources.push(crate::workload::generated_source(
                            &job.for_clone(c, cap).map_err(Error::Invalid)?,
                            cap,
                            job.clone_seed(cfg.precondition.seed, i, c),
                        )?);
                    }
                }
                Inner::Jobs {
                    name: cfg.file.clone(),
                    sources,
                    next: 0,
                }
            }
        };
        Ok(Records { inner, limit, taken: 0 })
    }

    /// The file name and the line (record) of the last record, for messages.
    pub fn at(&self) -> (String, u64) {
        match &self.inner {
            Inner::Trace { reader, .. } => (reader.name().to_string(), reader.line()),
            Inner::Jobs { name, .. } => (name.clone(), self.taken),
        }
    }

    /// Malformed lines skipped (`--skip-bad-lines`).
    pub fn skipped(&self) -> u64 {
        match &self.inner {
            Inner::Trace { reader, .. } => reader.skipped(),
            Inner::Jobs { .. } => 0,
        }
    }

    /// The trace's format name, or `jobs`.
    pub fn format(&self) -> String {
        match &self.inner {
            Inner::Trace { reader, .. } => reader.format().name().to_string(),
            Inner::Jobs { .. } => "jobs".into(),
        }
    }

    /// Whether the limit stopped the stream before its end.
    pub fn cut_short(&mut self) -> bool {
        self.taken >= self.limit && self.next_unlimited().is_some()
    }

    fn next_unlimited(&mut self) -> Option<Result<TraceRecord>> {
        match &mut self.inner {
            Inner::Trace { reader, devices } => loop {
                match reader.next()? {
                    Ok(r) if !devices.contains(r.device) => continue,
                    x => return Some(x),
                }
            },
            Inner::Jobs { sources, next, .. } => loop {
                if sources.is_empty() {
                    return None;
                }
                let i = *next % sources.len();
                match sources[i].next_request(0) {
                    Ok(Some(r)) => {
                        *next = i + 1;
                        return Some(Ok(TraceRecord {
                            time_ns: 0,
                            device: 0,
                            op: r.op,
                            offset: r.offset,
                            len: r.len,
                        }));
                    }
                    Ok(None) => {
                        sources.remove(i);
                    }
                    Err(e) => return Some(Err(e)),
                }
            },
        }
    }
}

impl Iterator for Records {
    type Item = Result<TraceRecord>;
    fn next(&mut self) -> Option<Result<TraceRecord>> {
        if self.taken >= self.limit {
            return None;
        }
        let r = self.next_unlimited()?;
        self.taken += 1;
        Some(r)
    }
}

/// Device figures the pass needs.
pub struct PassDevice {
    /// Mapping unit, bytes.
    pub unit: u64,
    /// Requests of at least this many bytes are large.
    pub large_bytes: u64,
    /// Pages the footprint may take (the device's logical pages).
    pub max_pages: u64,
}

/// Read the workload once.
pub fn profile(w: &Workload, opts: &LintOptions, dev: &PassDevice) -> Result<Profile> {
    let mut rec = Records::open(w, opts.max_requests)?;
    let mut stats = StatsBuilder::new(&StatsOptions {
        max_page_runs: opts.max_pages,
        ..Default::default()
    });
    let max_pages = (opts.max_pages as u64).min(dev.max_pages);
    let mut map = CompactMap::default();
    let mut page_writes: Vec<u32> = Vec::new();
    let mut p = Profile {
        stats: StatsBuilder::default().finish("", "", 0),
        timing: match w {
            Workload::Trace { .. } => Timing::Open,
            Workload::Jobs { cfg } => Timing::Closed {
                depth: cfg.job.iter().map(|j| j.iodepth * j.numjobs).sum::<u32>().max(1),
            },
        },
        requests: 0,
        truncated: false,
        map: Arc::new(CompactMap::default()),
        page_writes: Vec::new(),
        pattern: Vec::new(),
        writes: 0,
        write_bytes: 0,
        write_unit_bytes: 0,
        sub_unit_writes: 0,
        unaligned_writes: 0,
        rmw_units: 0,
        page_writes_total: 0,
        page_rewrites: 0,
        small: SizeClass::default(),
        large: SizeClass::default(),
        windows: Vec::new(),
        duration_ns: 0,
    };
    let (mut first, mut last) = (None, 0u64);
    let unit = dev.unit;
    let mut pieces: Vec<Piece> = Vec::new();
    while let Some(r) = rec.next() {
        let r = r?;
        let fail = |rec: &Records, msg: String| {
            let (file, line) = rec.at();
            Error::Parse { file, line, msg }
        };
        if let Err(e) = stats.add(&r) {
            return Err(fail(&rec, e.message(&r, "--max-pages")));
        }
        p.requests += 1;
        let t0 = *first.get_or_insert(r.time_ns);
        last = last.max(r.time_ns);
        if r.op == Op::Trim {
            continue;
        }
        pieces.clear();
        map.map(r.offset, r.len, max_pages, |o, l| pieces.push(Piece { offset: o, len: l }))
            .map_err(|full| {
                fail(
                    &rec,
                    format!(
                        "offset: the footprint ({} pages of 4 KiB so far) exceeds {max_pages} pages; expected a footprint within the device and --max-pages",
                        full.pages
                    ),
                )
            })?;
        if page_writes.len() < map.len() as usize {
            page_writes.resize(map.len() as usize, 0);
        }
        let class = if r.len >= dev.large_bytes {
            &mut p.large
        } else {
            &mut p.small
        };
        class.add(r.op, r.len);
        if r.op != Op::Write {
            continue;
        }
        p.writes += 1;
        p.write_bytes += r.len;
        let (first_unit, end_unit) = (r.offset / unit, (r.offset + r.len).div_ceil(unit));
        p.write_unit_bytes += (end_unit - first_unit) * unit;
        p.sub_unit_writes += (r.len < unit) as u64;
        let (head, tail) = (r.offset % unit != 0, (r.offset + r.len) % unit != 0);
        p.unaligned_writes += (head || tail) as u64;
        let w = r.time_ns.saturating_sub(t0) / WINDOW_NS;
        match p.windows.last_mut() {
            Some((last_w, bytes)) if *last_w == w => *bytes += r.len,
            _ => p.windows.push((w, r.len)),
        }
        // Partly written units that hold data written before: read-modify-write. Counted on
        // the dense pages, before this write's own counts.
        let written = |off: u64| page_writes[(off / PAGE) as usize] > 0;
        let (start, end) = (pieces[0].offset, pieces[pieces.len() - 1]);
        let end = end.offset + end.len - 1;
        if head && written(start) {
            p.rmw_units += 1;
        }
        if tail && (end_unit - first_unit > 1 || !head) && written(end) {
            p.rmw_units += 1;
        }
        for pc in &pieces {
            for d in pc.offset / PAGE..=(pc.offset + pc.len - 1) / PAGE {
                let c = &mut page_writes[d as usize];
                p.page_rewrites += (*c > 0) as u64;
                *c = c.saturating_add(1);
                p.page_writes_total += 1;
            }
        }
        p.pattern.extend_from_slice(&pieces);
    }
    p.truncated = rec.cut_short();
    p.duration_ns = first.map_or(0, |f| last - f);
    p.stats = stats.finish(&rec.at().0, &rec.format(), rec.skipped());
    p.page_writes = page_writes;
    p.map = Arc::new(map);
    Ok(p)
}
