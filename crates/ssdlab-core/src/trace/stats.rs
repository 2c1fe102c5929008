//! Streaming trace statistics (`ssdlab trace stats`).
//!
//! Memory is bounded by the options, never by the trace: per-page counts are kept page by page
//! for small requests and as runs of pages with equal counts for long ones (at most
//! [`StatsOptions::max_page_runs`] pages and runs), volumes up to
//! [`StatsOptions::max_volumes`]. Output is deterministic: pages are summarised in page order
//! and volumes by number.

use super::ranges::{PageCounts, RunLimit, RUN_BYTES};
use super::{Devices, TraceReader, TraceRecord};
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
    fn add(&mut self, op: Op, v: u64) {
        match op {
            Op::Read => self.read += v,
            Op::Write => self.write += v,
            Op::Trim => self.trim += v,
        }
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
    pages: PageCounts,
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
            pages: PageCounts::new(opts.max_page_runs),
            volumes: BTreeMap::new(),
            other_volumes_requests: 0,
            max_volumes: opts.max_volumes,
        }
    }

    /// Account one record. Fails, without counting it, if its pages would need more runs than
    /// the cap.
    pub fn add(&mut self, r: &TraceRecord) -> std::result::Result<(), RunLimit> {
        let end = r.offset.saturating_add(r.len);
        if r.op != Op::Trim && r.len > 0 {
            self.pages
                .add(r.offset / PAGE, (end - 1) / PAGE + 1, r.op == Op::Read)?;
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
        let mut classes = AccessClasses::default();
        let mut reads: Vec<(u32, u64)> = Vec::with_capacity(self.pages.len());
        let mut total_accesses = 0u128;
        let mut footprint = 0u64;
        let mut accesses = [0u128; 3];
        self.pages.for_each_group(|pages, r, w| {
            let a = r as u64 + w as u64;
            let n = pages as u128 * a as u128;
            total_accesses += n;
            footprint += pages;
            let (c, i) = if r as f64 > INTENSIVE * a as f64 {
                (&mut classes.read_intensive, 0)
            } else if w as f64 > INTENSIVE * a as f64 {
                (&mut classes.write_intensive, 1)
            } else {
                (&mut classes.mixed, 2)
            };
            c.pages += pages;
            accesses[i] += n;
            if r > 0 {
                reads.push((r, pages));
            }
        });
        for (i, c) in [
            &mut classes.read_intensive,
            &mut classes.write_intensive,
            &mut classes.mixed,
        ]
        .into_iter()
        .enumerate()
        {
            c.accesses = u64::try_from(accesses[i]).unwrap_or(u64::MAX);
            c.page_share = ratio(c.pages, footprint);
            c.access_share = ratio128(accesses[i], total_accesses);
        }
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
            footprint_bytes: footprint * PAGE,
            sequential_share: ratio(self.sequential, self.requests),
            interarrival,
            access_classes: classes,
            read_concentration,
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
            if let Err(RunLimit { max_runs }) = b.add(&r) {
                return Err(Error::Parse {
                    file: reader.name().to_string(),
                    line: reader.line(),
                    msg: format!(
                        "offset: the request at offset {} of {} bytes needs more than {max_runs} pages and runs of pages with equal counts; expected at most --max-page-runs {max_runs} (raise it: about {RUN_BYTES} bytes each)",
                        r.offset, r.len
                    ),
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
