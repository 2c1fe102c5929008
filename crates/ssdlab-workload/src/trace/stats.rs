//! Streaming trace statistics (`ssdlab trace stats`).
//!
//! Memory is bounded by the options, never by the trace: per-page counts are kept page by page
//! for small requests and as runs of pages with equal counts for long ones (at most
//! [`StatsOptions::max_page_runs`] pages and runs), volumes up to
//! [`StatsOptions::max_volumes`]. Output is deterministic: pages are summarised in page order
//! and volumes by number.

use super::ranges::{PageCounts, RunLimit, RUN_BYTES};
use super::{Devices, TraceReader, TraceRecord};
use crate::request::RequestSource;
use crate::units::fmt_size;
use crate::{Error, Op, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// Page size for footprint and access classes.
pub const PAGE: u64 = 4096;
/// Share of accesses above which a page is read- or write-intensive.
pub const INTENSIVE: f64 = 0.9;
/// Top shares of pages (percent) for read concentration.
pub const TOP_PERCENTS: [u32; 4] = [1, 5, 10, 20];
/// Default cap on the pages and runs of pages with equal counts (about 160 MiB).
pub const DEFAULT_MAX_PAGE_RUNS: usize = 4 << 20;
/// Default cap on the volumes counted one by one.
pub const DEFAULT_MAX_VOLUMES: usize = 1024;

/// What to count, and the memory caps.
#[derive(Clone, Debug)]
pub struct StatsOptions {
    /// Only these devices (volumes, disks, LUNs, ASUs).
    pub devices: Devices,
    /// Most pages (of small requests) and runs of consecutive 4 KiB pages with equal read and
    /// write counts (of long ones) kept, about 40 bytes each; a trace that needs more stops
    /// with an error.
    pub max_page_runs: usize,
    /// Most volumes counted one by one; requests of further volumes are counted together.
    pub max_volumes: usize,
}

impl Default for StatsOptions {
    fn default() -> Self {
        StatsOptions {
            devices: Devices::all(),
            max_page_runs: DEFAULT_MAX_PAGE_RUNS,
            max_volumes: DEFAULT_MAX_VOLUMES,
        }
    }
}

/// Per-operation totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PerOp {
    pub read: u64,
    pub write: u64,
    pub trim: u64,
}

impl PerOp {
    fn of(&mut self, op: Op) -> &mut u64 {
        match op {
            Op::Read => &mut self.read,
            Op::Write | Op::Append => &mut self.write,
            Op::Trim | Op::Zone(..) => &mut self.trim,
        }
    }

    fn add(&mut self, op: Op, v: u64) {
        *self.of(op) += v;
    }
}

/// Requests with sizes in `[min_bytes, 2 * min_bytes)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SizeBucket {
    pub min_bytes: u64,
    pub count: u64,
}

/// Inter-arrival times between consecutive records (0 for records stamped earlier than their
/// predecessor).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct InterArrival {
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
}

/// One access class (HotR-style): pages whose reads (writes) exceed 90 % of their accesses are
/// read- (write-) intensive, the others mixed. Accesses are page accesses: a request touching
/// n pages counts n accesses; trims are not accesses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ClassShare {
    pub pages: u64,
    /// Share of footprint pages.
    pub page_share: f64,
    pub accesses: u64,
    /// Share of all page accesses.
    pub access_share: f64,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct AccessClasses {
    pub read_intensive: ClassShare,
    pub write_intensive: ClassShare,
    pub mixed: ClassShare,
}

/// Which class a page read `reads` and written `writes` times is in: 0 read-intensive (reads
/// above [`INTENSIVE`] of its accesses), 1 write-intensive (writes above it), 2 mixed.
fn class_of(reads: u32, writes: u32) -> usize {
    let a = reads as f64 + writes as f64;
    if reads as f64 > INTENSIVE * a {
        0
    } else if writes as f64 > INTENSIVE * a {
        1
    } else {
        2
    }
}

/// Per-page read and write counts and the access classes they give: the one implementation
/// behind a trace's statistics ([`StatsBuilder`]) and a generated workload's classes
/// ([`access_classes_of`]).
pub(crate) struct PageAccesses {
    pages: PageCounts,
}

impl PageAccesses {
    /// Counts keeping at most `max_page_runs` pages and runs of pages.
    pub(crate) fn new(max_page_runs: usize) -> Self {
        PageAccesses {
            pages: PageCounts::new(max_page_runs),
        }
    }

    /// Count an access to each 4 KiB page of `[offset, offset + len)` (none for a trim or an
    /// empty request). Fails, counting nothing, past the cap of pages and runs.
    pub(crate) fn add(&mut self, op: Op, offset: u64, len: u64) -> std::result::Result<(), RunLimit> {
        if op == Op::Trim || len == 0 {
            return Ok(());
        }
        let end = offset.saturating_add(len);
        self.pages.add(offset / PAGE, (end - 1) / PAGE + 1, op == Op::Read)
    }

    /// The access classes of the pages counted, and the footprint in pages; `each(pages,
    /// reads, writes)` sees every group of pages with equal counts on the way, in page order.
    pub(crate) fn classes_with(&self, mut each: impl FnMut(u64, u32, u32)) -> (AccessClasses, u64) {
        let mut classes = AccessClasses::default();
        let mut total_accesses = 0u128;
        let mut footprint = 0u64;
        let mut accesses = [0u128; 3];
        let mut pages_of = [0u64; 3];
        self.pages.for_each_group(|pages, r, w| {
            let n = pages as u128 * (r as u128 + w as u128);
            total_accesses += n;
            footprint += pages;
            let i = class_of(r, w);
            pages_of[i] += pages;
            accesses[i] += n;
            each(pages, r, w);
        });
        for (i, c) in [
            &mut classes.read_intensive,
            &mut classes.write_intensive,
            &mut classes.mixed,
        ]
        .into_iter()
        .enumerate()
        {
            c.pages = pages_of[i];
            c.accesses = u64::try_from(accesses[i]).unwrap_or(u64::MAX);
            c.page_share = ratio(c.pages, footprint);
            c.access_share = ratio128(accesses[i], total_accesses);
        }
        (classes, footprint)
    }
}

/// The statistics (`ssdlab trace stats`'s: page classes by HotR's >90 % rule, re-reads, ...)
/// of the first `max_requests` requests of `source`, such as a job's generated source
/// ([`crate::workload::generated_source`]). Each request is asked for at the arrival time of
/// the one before (0 for closed-loop sources), as the host model asks. The page maps grow with
/// the footprint only: by at most a request's pages, or two run boundaries, per request.
pub fn stats_of_source(source: &mut dyn RequestSource, max_requests: u64, name: &str) -> Result<TraceStats> {
    let mut b = StatsBuilder::new(&StatsOptions {
        max_page_runs: usize::MAX,
        ..StatsOptions::default()
    });
    let mut now = 0;
    for _ in 0..max_requests {
        let Some(r) = source.next_request(now)? else {
            break;
        };
        now = r.time_ns;
        if r.len == 0 {
            continue;
        }
        let rec = TraceRecord {
            time_ns: r.time_ns,
            device: 0,
            op: r.op,
            offset: r.offset,
            len: r.len,
        };
        // No cap: the page maps grow with the footprint only.
        b.add(&rec)
            .map_err(|e| Error::Invalid(format!("{name}: {}", e.message(&rec, "--max-page-runs"))))?;
    }
    Ok(b.finish(name, "generated", 0))
}

/// How often pages are read again: each 4 KiB page read is its page's 1st, 2nd, or 3rd or
/// later read since the page was last written (a write starts the count over, as a hot-read
/// list forgets a written page), and the gap since the page's previous read, in requests.
/// Kept per page read; past the page cap the count stops (`requests` says how far it got).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ReReads {
    /// Requests whose page reads were counted (all, unless the page cap was reached).
    pub requests: u64,
    pub first: u64,
    pub second: u64,
    pub later: u64,
    /// Shares of the page reads counted.
    pub second_share: f64,
    pub later_share: f64,
    /// Median gap between two reads of a page (requests), 0 without re-reads.
    pub median_gap_requests: u64,
}

/// Per-page read counts since the last write, and the gaps between reads.
struct ReReadCounter {
    /// Page → (reads since its last write, index of the request that last read it).
    pages: std::collections::HashMap<u64, (u32, u64)>,
    counts: [u64; 3],
    gaps: hdrhistogram::Histogram<u64>,
    requests: u64,
    full: bool,
    max_pages: usize,
}

impl ReReadCounter {
    fn new(max_pages: usize) -> Self {
        let mut gaps = hdrhistogram::Histogram::new(3).expect("3 significant digits is a valid precision");
        gaps.auto(true);
        ReReadCounter {
            pages: Default::default(),
            counts: [0; 3],
            gaps,
            requests: 0,
            full: false,
            max_pages,
        }
    }

    /// Request number `index`: `op` of the pages `[first, end)`.
    fn add(&mut self, index: u64, op: Op, first: u64, end: u64) {
        if self.full {
            return;
        }
        match op {
            Op::Read => {
                if self.pages.len() as u64 + (end - first) > self.max_pages as u64 {
                    self.full = true;
                    return;
                }
                for p in first..end {
                    let e = self.pages.entry(p).or_insert((0, index));
                    e.0 = e.0.saturating_add(1);
                    if e.0 > 1 {
                        let _ = self.gaps.record(index - e.1);
                    }
                    e.1 = index;
                    self.counts[(e.0.min(3) - 1) as usize] += 1;
                }
            }
            Op::Write | Op::Trim | Op::Append | Op::Zone(..) => {
                if end - first > self.pages.len() as u64 {
                    self.pages.retain(|p, _| *p < first || *p >= end);
                } else {
                    for p in first..end {
                        self.pages.remove(&p);
                    }
                }
            }
        }
        self.requests += 1;
    }

    fn result(&self) -> ReReads {
        let total: u64 = self.counts.iter().sum();
        ReReads {
            requests: self.requests,
            first: self.counts[0],
            second: self.counts[1],
            later: self.counts[2],
            second_share: ratio(self.counts[1], total),
            later_share: ratio(self.counts[2], total),
            median_gap_requests: if self.gaps.is_empty() {
                0
            } else {
                self.gaps.value_at_quantile(0.5)
            },
        }
    }
}

/// Share of all page reads that go to the hottest `top_percent` % of the read pages.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Concentration {
    pub top_percent: f64,
    pub pages: u64,
    pub read_share: f64,
}

/// Statistics of a trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceStats {
    pub file: String,
    pub format: String,
    pub requests: u64,
    pub ops: PerOp,
    pub bytes: PerOp,
    /// Malformed lines skipped.
    pub skipped_lines: u64,
    /// Time of the last record minus time of the first (after any rebasing), ns.
    pub duration_ns: u64,
    pub size_histogram: Vec<SizeBucket>,
    /// Distinct 4 KiB pages read or written.
    pub footprint_pages: u64,
    pub footprint_bytes: u64,
    /// Share of requests starting where the previous request of the same op ended.
    pub sequential_share: f64,
    pub interarrival: InterArrival,
    pub access_classes: AccessClasses,
    pub read_concentration: Vec<Concentration>,
    pub rereads: ReReads,
    /// Per volume (device, disk, LUN, ASU), by number; at most `max_volumes` of them.
    pub volumes: Vec<VolumeStats>,
    /// Requests of volumes beyond the first `max_volumes` (0 unless the cap was reached).
    pub other_volumes_requests: u64,
    /// The cap on volumes counted one by one.
    pub max_volumes: usize,
}

/// Counts of one volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct VolumeStats {
    pub volume: u32,
    pub requests: u64,
    pub ops: PerOp,
    pub bytes: PerOp,
    /// Lowest offset and highest end (offset + size) of its requests, bytes.
    pub offset_min: u64,
    pub offset_end: u64,
}

/// Why [`StatsBuilder::add`] could not count a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddError {
    /// Its pages would need more pages and runs than the cap.
    Runs(RunLimit),
    /// Its size would take the bytes of its operation past `u64::MAX` (16 EiB): only a trace
    /// whose sizes are not request sizes gets there.
    Bytes,
}

impl AddError {
    /// The error message for the record `r`, naming the option that raises the cap
    /// (`max_runs_option`, e.g. `--max-page-runs`).
    pub fn message(&self, r: &TraceRecord, max_runs_option: &str) -> String {
        match self {
            AddError::Runs(RunLimit { max_runs }) => format!(
                "offset: the request at offset {} of {} bytes needs more than {max_runs} pages and runs of pages with equal counts; expected at most {max_runs_option} {max_runs} (raise it: about {RUN_BYTES} bytes each)",
                r.offset, r.len
            ),
            AddError::Bytes => format!(
                "size: the {} of {} bytes takes the trace's {} bytes past 2^64 - 1 (16 EiB); expected request sizes in bytes",
                r.op.name(),
                r.len,
                r.op.name()
            ),
        }
    }
}

/// Builds [`TraceStats`] one record at a time.
pub struct StatsBuilder {
    requests: u64,
    ops: PerOp,
    bytes: PerOp,
    sizes: [u64; 65],
    first_time: Option<u64>,
    last_time: u64,
    sequential: u64,
    last_end: [Option<u64>; 3],
    gaps: hdrhistogram::Histogram<u64>,
    gap_sum: u128,
    pages: PageAccesses,
    rereads: ReReadCounter,
    volumes: BTreeMap<u32, VolumeStats>,
    other_volumes_requests: u64,
    max_volumes: usize,
}

impl Default for StatsBuilder {
    fn default() -> Self {
        Self::new(&StatsOptions::default())
    }
}

impl StatsBuilder {
    pub fn new(opts: &StatsOptions) -> Self {
        let mut gaps = hdrhistogram::Histogram::new(3).expect("3 significant digits is a valid precision");
        gaps.auto(true);
        StatsBuilder {
            requests: 0,
            ops: PerOp::default(),
            bytes: PerOp::default(),
            sizes: [0; 65],
            first_time: None,
            last_time: 0,
            sequential: 0,
            last_end: [None; 3],
            gaps,
            gap_sum: 0,
            pages: PageAccesses::new(opts.max_page_runs),
            rereads: ReReadCounter::new(opts.max_page_runs),
            volumes: BTreeMap::new(),
            other_volumes_requests: 0,
            max_volumes: opts.max_volumes,
        }
    }

    /// Account one record. Fails, without counting it, if its pages would need more runs than
    /// the cap or its size would take its operation's bytes past `u64::MAX` (a volume's bytes
    /// are part of the trace's, so they cannot pass it first).
    pub fn add(&mut self, r: &TraceRecord) -> std::result::Result<(), AddError> {
        let end = r.offset.saturating_add(r.len);
        if self.bytes.of(r.op).checked_add(r.len).is_none() {
            return Err(AddError::Bytes);
        }
        self.pages.add(r.op, r.offset, r.len).map_err(AddError::Runs)?;
        if r.len > 0 {
            self.rereads
                .add(self.requests, r.op, r.offset / PAGE, (end - 1) / PAGE + 1);
        }
        self.add_volume(r, end);
        self.requests += 1;
        self.ops.add(r.op, 1);
        self.bytes.add(r.op, r.len);
        self.sizes[64 - r.len.max(1).leading_zeros() as usize] += 1;
        if self.first_time.is_some() {
            let gap = r.time_ns.saturating_sub(self.last_time);
            // Auto-resizing: record only fails beyond u64 range handling, which cannot happen here.
            let _ = self.gaps.record(gap);
            self.gap_sum += gap as u128;
        } else {
            self.first_time = Some(r.time_ns);
        }
        self.last_time = r.time_ns;
        let slot = &mut self.last_end[r.op.index()];
        if *slot == Some(r.offset) {
            self.sequential += 1;
        }
        *slot = Some(end);
        Ok(())
    }

    fn add_volume(&mut self, r: &TraceRecord, end: u64) {
        let full = self.volumes.len() >= self.max_volumes;
        let v = match self.volumes.get_mut(&r.device) {
            Some(v) => v,
            None if full => {
                self.other_volumes_requests += 1;
                return;
            }
            None => self.volumes.entry(r.device).or_insert(VolumeStats {
                volume: r.device,
                requests: 0,
                ops: PerOp::default(),
                bytes: PerOp::default(),
                offset_min: r.offset,
                offset_end: end,
            }),
        };
        v.requests += 1;
        v.ops.add(r.op, 1);
        v.bytes.add(r.op, r.len);
        v.offset_min = v.offset_min.min(r.offset);
        v.offset_end = v.offset_end.max(end);
    }

    /// The statistics so far.
    pub fn finish(&self, file: &str, format: &str, skipped_lines: u64) -> TraceStats {
        let size_histogram = self
            .sizes
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| SizeBucket {
                min_bytes: if i == 0 { 0 } else { 1u64 << (i - 1) },
                count: c,
            })
            .collect();
        let n_gaps = self.gaps.len();
        let q = |p: f64| if n_gaps == 0 { 0 } else { self.gaps.value_at_quantile(p) };
        let interarrival = InterArrival {
            mean_ns: if n_gaps == 0 {
                0.0
            } else {
                self.gap_sum as f64 / n_gaps as f64
            },
            p50_ns: q(0.5),
            p90_ns: q(0.9),
            p99_ns: q(0.99),
            p999_ns: q(0.999),
            max_ns: if n_gaps == 0 { 0 } else { self.gaps.max() },
        };
        // Access classes and read concentration: per group of pages with equal counts, then the
        // groups sorted by read count (a group of n pages stands for n pages).
        let mut reads: Vec<(u32, u64)> = Vec::with_capacity(self.pages.pages.len());
        let (classes, footprint) = self.pages.classes_with(|pages, r, _| {
            if r > 0 {
                reads.push((r, pages));
            }
        });
        reads.sort_unstable_by_key(|&(r, _)| std::cmp::Reverse(r));
        let read_pages: u64 = reads.iter().map(|&(_, n)| n).sum();
        let total_reads: u128 = reads.iter().map(|&(r, n)| r as u128 * n as u128).sum();
        let read_concentration = TOP_PERCENTS
            .iter()
            .map(|&pct| {
                // The hottest ceil(pct % of the read pages), taken run by run.
                let k = (read_pages as u128 * pct as u128).div_ceil(100) as u64;
                let (mut left, mut top) = (k, 0u128);
                for &(r, n) in &reads {
                    if left == 0 {
                        break;
                    }
                    let take = n.min(left);
                    top += r as u128 * take as u128;
                    left -= take;
                }
                Concentration {
                    top_percent: pct as f64,
                    pages: k,
                    read_share: ratio128(top, total_reads),
                }
            })
            .collect();
        TraceStats {
            file: file.to_string(),
            format: format.to_string(),
            requests: self.requests,
            ops: self.ops,
            bytes: self.bytes,
            skipped_lines,
            duration_ns: self.first_time.map(|f| self.last_time.saturating_sub(f)).unwrap_or(0),
            size_histogram,
            footprint_pages: footprint,
            // 2^52 pages (the whole 64-bit address space) is 2^64 bytes: one more than u64 holds.
            footprint_bytes: footprint.saturating_mul(PAGE),
            sequential_share: ratio(self.sequential, self.requests),
            interarrival,
            access_classes: classes,
            read_concentration,
            rereads: self.rereads.result(),
            volumes: self.volumes.values().copied().collect(),
            other_volumes_requests: self.other_volumes_requests,
            max_volumes: self.max_volumes,
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    ratio128(a as u128, b as u128)
}

fn ratio128(a: u128, b: u128) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

impl TraceStats {
    /// Read the whole trace (only the selected devices) and compute its statistics.
    pub fn compute(reader: &mut TraceReader, opts: &StatsOptions) -> Result<TraceStats> {
        let mut b = StatsBuilder::new(opts);
        while let Some(r) = reader.next() {
            let r = r?;
            if !opts.devices.contains(r.device) {
                continue;
            }
            if let Err(e) = b.add(&r) {
                return Err(Error::Parse {
                    file: reader.name().to_string(),
                    line: reader.line(),
                    msg: e.message(&r, "--max-page-runs"),
                });
            }
        }
        Ok(b.finish(reader.name(), reader.format().name(), reader.skipped()))
    }

    /// Share of requests that are reads.
    pub fn read_share(&self) -> f64 {
        ratio(self.ops.read, self.requests)
    }
}

/// A duration with a readable unit and three significant digits.
fn human_ns(ns: f64) -> String {
    let (v, u) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "us")
    } else {
        (ns, "ns")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$}{u}")
}

fn pct(x: f64) -> String {
    format!("{:.2}%", x * 100.0)
}

impl fmt::Display for TraceStats {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        writeln!(f, "file:            {}", self.file)?;
        writeln!(f, "format:          {}", self.format)?;
        writeln!(f, "requests:        {}", self.requests)?;
        if self.skipped_lines > 0 {
            writeln!(f, "skipped lines:   {}", self.skipped_lines)?;
        }
        let n = self.requests;
        for (name, c, b) in [
            ("reads", self.ops.read, self.bytes.read),
            ("writes", self.ops.write, self.bytes.write),
            ("trims", self.ops.trim, self.bytes.trim),
        ] {
            writeln!(
                f,
                "{:<16} {} ({}), {}",
                format!("{name}:"),
                c,
                pct(ratio(c, n)),
                fmt_size(b)
            )?;
        }
        writeln!(f, "duration:        {}", human_ns(self.duration_ns as f64))?;
        writeln!(
            f,
            "footprint:       {} pages of 4KiB ({})",
            self.footprint_pages,
            fmt_size(self.footprint_bytes)
        )?;
        writeln!(f, "sequential:      {}", pct(self.sequential_share))?;
        let ia = &self.interarrival;
        writeln!(
            f,
            "inter-arrival:   mean {} p50 {} p90 {} p99 {} p99.9 {} max {}",
            human_ns(ia.mean_ns),
            human_ns(ia.p50_ns as f64),
            human_ns(ia.p90_ns as f64),
            human_ns(ia.p99_ns as f64),
            human_ns(ia.p999_ns as f64),
            human_ns(ia.max_ns as f64)
        )?;
        writeln!(f, "request sizes:")?;
        for b in &self.size_histogram {
            writeln!(
                f,
                "  >= {:>9}  {:>10} ({})",
                fmt_size(b.min_bytes),
                b.count,
                pct(ratio(b.count, n))
            )?;
        }
        writeln!(f, "page classes (share of pages / share of page accesses):")?;
        let c = &self.access_classes;
        for (name, s) in [
            ("read-intensive", &c.read_intensive),
            ("write-intensive", &c.write_intensive),
            ("mixed", &c.mixed),
        ] {
            writeln!(
                f,
                "  {:<16} {:>8} / {:>8}",
                name,
                pct(s.page_share),
                pct(s.access_share)
            )?;
        }
        writeln!(f, "read concentration (share of page reads to the hottest read pages):")?;
        for c in &self.read_concentration {
            writeln!(
                f,
                "  top {:>4}%  {:>10} pages  {}",
                c.top_percent,
                c.pages,
                pct(c.read_share)
            )?;
        }
        let rr = &self.rereads;
        writeln!(
            f,
            "re-reads:        {} of page reads a page's 2nd since its last write, {} its 3rd or later; median gap {} requests{}",
            pct(rr.second_share),
            pct(rr.later_share),
            rr.median_gap_requests,
            if rr.requests < self.requests {
                format!(" (first {} requests: the page cap was reached)", rr.requests)
            } else {
                String::new()
            }
        )?;
        writeln!(f, "volumes:")?;
        writeln!(
            f,
            "  {:>10} {:>10} {:>10} {:>10} {:>11} {:>11}  offsets",
            "volume", "requests", "reads", "writes", "read bytes", "write bytes"
        )?;
        for v in &self.volumes {
            writeln!(
                f,
                "  {:>10} {:>10} {:>10} {:>10} {:>11} {:>11}  {} .. {}",
                v.volume,
                v.requests,
                v.ops.read,
                v.ops.write,
                fmt_size(v.bytes.read),
                fmt_size(v.bytes.write),
                v.offset_min,
                v.offset_end
            )?;
        }
        if self.other_volumes_requests > 0 {
            writeln!(
                f,
                "  more than {} volumes: {} requests of further volumes are not listed (raise --max-volumes)",
                self.max_volumes, self.other_volumes_requests
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Request;

    /// Requests from a list, then the end.
    struct Listed(std::vec::IntoIter<Request>);

    impl RequestSource for Listed {
        fn next_request(&mut self, _now_ns: u64) -> Result<Option<Request>> {
            Ok(self.0.next())
        }
    }

    fn req(op: Op, offset: u64, len: u64) -> Request {
        Request {
            time_ns: 0,
            op,
            offset,
            len,
            stream: 0,
        }
    }

    /// `reads` reads and `writes` writes of 4 KiB page `page`.
    fn page(page: u64, reads: usize, writes: usize) -> Vec<Request> {
        let mut v = vec![req(Op::Read, page * PAGE, PAGE); reads];
        v.extend(vec![req(Op::Write, page * PAGE, PAGE); writes]);
        v
    }

    fn share(pages: u64, page_share: f64, accesses: u64, access_share: f64) -> ClassShare {
        ClassShare {
            pages,
            page_share,
            accesses,
            access_share,
        }
    }

    /// Re-reads, hand-counted: page 0 read, read, written, read; page 1 read; page 0 read
    /// twice more; then one request reading pages 1 and 2. Page reads: page 0 1st, 2nd, (the
    /// write starts over) 1st, 2nd, 3rd; page 1 1st, then 2nd; page 2 1st: 4 first, 3 second,
    /// 1 later. Gaps (requests): 1, 2, 1, and page 1's 7 − 4 = 3: median 1 (of 1, 1, 2, 3 the
    /// histogram's lower middle).
    #[test]
    fn re_reads_count_each_pages_reads_since_its_last_write() {
        let mut b = StatsBuilder::default();
        let rec = |op: Op, page: u64, pages: u64| TraceRecord {
            time_ns: 0,
            device: 0,
            op,
            offset: page * PAGE,
            len: pages * PAGE,
        };
        for r in [
            rec(Op::Read, 0, 1),
            rec(Op::Read, 0, 1),
            rec(Op::Write, 0, 1),
            rec(Op::Read, 0, 1),
            rec(Op::Read, 1, 1),
            rec(Op::Read, 0, 1),
            rec(Op::Read, 0, 1),
            rec(Op::Read, 1, 2),
        ] {
            b.add(&r).unwrap();
        }
        let rr = b.finish("t", "f", 0).rereads;
        assert_eq!((rr.requests, rr.first, rr.second, rr.later), (8, 4, 3, 1));
        assert_eq!((rr.second_share, rr.later_share), (3.0 / 8.0, 1.0 / 8.0));
        assert_eq!(rr.median_gap_requests, 1);
        // Past the page cap the count stops, and says where.
        let mut c = ReReadCounter::new(3);
        c.add(0, Op::Read, 0, 2);
        c.add(1, Op::Read, 0, 1);
        c.add(2, Op::Read, 5, 7);
        c.add(3, Op::Read, 0, 1);
        let rr = c.result();
        assert_eq!((rr.requests, rr.first, rr.second, rr.later), (2, 2, 1, 0));
        let mut st = b.finish("t", "f", 0);
        st.rereads = rr;
        assert!(st.to_string().contains("(first 2 requests: the page cap was reached)"));
    }

    #[test]
    fn classes_of_a_source_follow_the_90_percent_rule_at_its_boundary() {
        let mut reqs: Vec<Request> = [
            page(0, 10, 1),  // 10 / 11 = 90.9 % reads: read-intensive
            page(1, 9, 1),   // exactly 90 %: mixed
            page(2, 1, 9),   // exactly 90 % writes: mixed
            page(3, 1, 10),  // 90.9 % writes: write-intensive
            page(4, 89, 10), // 89.9 %: mixed
            page(5, 1, 0),   // read-intensive
            page(6, 0, 1),   // write-intensive
            page(7, 5, 5),   // mixed
        ]
        .concat();
        // Trims are not accesses: page 8 is no page of the footprint, page 0 stays as it is.
        reqs.push(req(Op::Trim, 8 * PAGE, PAGE));
        reqs.push(req(Op::Trim, 0, PAGE));
        // A request counts each page it touches: two pages read, two written (unaligned).
        reqs.push(req(Op::Read, 9 * PAGE, 2 * PAGE));
        reqs.push(req(Op::Write, 11 * PAGE + 100, PAGE));
        // Long requests (counted as runs of pages): 32 pages read 10 times and written once
        // (read-intensive), their second half written once more (10 / 12: mixed).
        reqs.extend(vec![req(Op::Read, 100 * PAGE, 32 * PAGE); 10]);
        reqs.push(req(Op::Write, 100 * PAGE, 32 * PAGE));
        reqs.push(req(Op::Write, 116 * PAGE, 16 * PAGE));
        // The order of the requests does not matter.
        let n = reqs.len();
        let shuffled: Vec<Request> = (0..n).map(|i| reqs[(i * 37) % n]).collect();
        assert!(!n.is_multiple_of(37), "37 steps visit every request");
        let want = AccessClasses {
            // Pages 0, 5, 9, 10, 100..116: 11 + 1 + 1 + 1 + 16 × 11 accesses.
            read_intensive: share(20, 20.0 / 44.0, 190, 190.0 / 525.0),
            // Pages 3, 6, 11, 12.
            write_intensive: share(4, 4.0 / 44.0, 14, 14.0 / 525.0),
            // Pages 1, 2, 4, 7, 116..132: 10 + 10 + 99 + 10 + 16 × 12.
            mixed: share(20, 20.0 / 44.0, 321, 321.0 / 525.0),
        };
        for list in [reqs.clone(), shuffled] {
            let got = stats_of_source(&mut Listed(list.into_iter()), u64::MAX, "t")
                .unwrap()
                .access_classes;
            assert_eq!(got, want);
        }
        // The trace statistics count the same requests the same way.
        let mut b = StatsBuilder::default();
        for r in &reqs {
            b.add(&TraceRecord {
                time_ns: 0,
                device: 0,
                op: r.op,
                offset: r.offset,
                len: r.len,
            })
            .unwrap();
        }
        let stats = b.finish("t", "native", 0);
        assert_eq!(stats.access_classes, want);
        assert_eq!(stats.footprint_pages, 44);
        // Only the first max_requests count: page 0 read ten times, then no write.
        let got = stats_of_source(&mut Listed(reqs.clone().into_iter()), 10, "t")
            .unwrap()
            .access_classes;
        assert_eq!(got.read_intensive, share(1, 1.0, 10, 1.0));
        assert_eq!(got.mixed.pages + got.write_intensive.pages, 0);
        assert_eq!(
            stats_of_source(&mut Listed(Vec::new().into_iter()), 5, "t")
                .unwrap()
                .access_classes,
            AccessClasses::default()
        );
    }

    #[test]
    fn hpc_defaults_give_read_and_write_intensive_pages_and_few_mixed() {
        // The seed's HPC setting on 1 MiB (256 pages, a hot read set of 25), long enough for
        // every page to be accessed hundreds of times.
        let job: crate::workload::job::JobConfig =
            toml::from_str("size = \"1MiB\"\nnumber_ios = 200000\n[hpc]\n").unwrap();
        let mut src = crate::workload::generated_source(&job, 1 << 30, 4).unwrap();
        let c = stats_of_source(src.as_mut(), u64::MAX, "t").unwrap().access_classes;
        let pages = c.read_intensive.pages + c.write_intensive.pages + c.mixed.pages;
        assert_eq!(pages, 256);
        // The hot read set is read-intensive; the cold space, written and read 0.6 : 0.046,
        // write-intensive (7 % of its accesses are reads, below the 10 % of the rule).
        assert_eq!(c.read_intensive.pages, 25, "{c:?}");
        assert!(c.mixed.page_share < 0.02, "{c:?}");
        assert!(c.write_intensive.page_share > 0.88, "{c:?}");
        // Accesses to read-intensive pages: the reads of the hot set, 0.46 × (0.9 + 0.1 × 25 / 256).
        let want = 0.46 * (0.9 + 0.1 * 25.0 / 256.0);
        let sd = (want * (1.0 - want) / 200_000.0 * 2.0f64).sqrt();
        assert!((c.read_intensive.access_share - want).abs() < 5.0 * sd, "{c:?}");
        // The same workload run 40 times shorter on a region 64 times larger touches most pages
        // once or not at all: few of them read and written, few mixed.
        let job: crate::workload::job::JobConfig =
            toml::from_str("size = \"64MiB\"\nnumber_ios = 5000\n[hpc]\n").unwrap();
        let mut src = crate::workload::generated_source(&job, 1 << 30, 4).unwrap();
        let c = stats_of_source(src.as_mut(), u64::MAX, "t").unwrap().access_classes;
        assert!(c.mixed.page_share < 0.02, "{c:?}");
    }
}
