//! Streaming trace statistics (`ssdlab trace stats`).
//!
//! Memory is proportional to the footprint (one hash-map entry per distinct 4 KiB page), never
//! to the trace length. Output is deterministic: page maps are only summarised through sorted
//! vectors, never iterated into output order.

use super::{TraceReader, TraceRecord};
use crate::units::fmt_size;
use crate::{Op, Result};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt;

/// Page size for footprint and access classes.
pub const PAGE: u64 = 4096;
/// Share of accesses above which a page is read- or write-intensive.
pub const INTENSIVE: f64 = 0.9;
/// Top shares of pages (percent) for read concentration.
pub const TOP_PERCENTS: [f64; 4] = [1.0, 5.0, 10.0, 20.0];

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
    pages: HashMap<u64, (u32, u32)>,
}

impl Default for StatsBuilder {
    fn default() -> Self {
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
            pages: HashMap::new(),
        }
    }
}

impl StatsBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// Account one record.
    pub fn add(&mut self, r: &TraceRecord) {
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
        let end = r.offset.saturating_add(r.len);
        let slot = &mut self.last_end[r.op.index()];
        if *slot == Some(r.offset) {
            self.sequential += 1;
        }
        *slot = Some(end);
        if r.op != Op::Trim && r.len > 0 {
            let (first, last) = (r.offset / PAGE, (end - 1) / PAGE);
            for p in first..=last {
                let e = self.pages.entry(p).or_insert((0, 0));
                if r.op == Op::Read {
                    e.0 = e.0.saturating_add(1);
                } else {
                    e.1 = e.1.saturating_add(1);
                }
            }
        }
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
        // Access classes and read concentration: only counts, then sorted read counts.
        let mut classes = AccessClasses::default();
        let mut reads: Vec<u32> = Vec::with_capacity(self.pages.len());
        let mut total_accesses = 0u64;
        for &(r, w) in self.pages.values() {
            let a = r as u64 + w as u64;
            total_accesses += a;
            let c = if r as f64 > INTENSIVE * a as f64 {
                &mut classes.read_intensive
            } else if w as f64 > INTENSIVE * a as f64 {
                &mut classes.write_intensive
            } else {
                &mut classes.mixed
            };
            c.pages += 1;
            c.accesses += a;
            if r > 0 {
                reads.push(r);
            }
        }
        let footprint = self.pages.len() as u64;
        for c in [
            &mut classes.read_intensive,
            &mut classes.write_intensive,
            &mut classes.mixed,
        ] {
            c.page_share = ratio(c.pages, footprint);
            c.access_share = ratio(c.accesses, total_accesses);
        }
        reads.sort_unstable_by(|a, b| b.cmp(a));
        let total_reads: u64 = reads.iter().map(|&r| r as u64).sum();
        let read_concentration = TOP_PERCENTS
            .iter()
            .map(|&pct| {
                let k = ((reads.len() as f64 * pct / 100.0).ceil() as usize).min(reads.len());
                let top: u64 = reads[..k].iter().map(|&r| r as u64).sum();
                Concentration {
                    top_percent: pct,
                    pages: k as u64,
                    read_share: ratio(top, total_reads),
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
        }
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

impl TraceStats {
    /// Read the whole trace (only `device` if given) and compute its statistics.
    pub fn compute(reader: &mut TraceReader, device: Option<u32>) -> Result<TraceStats> {
        let mut b = StatsBuilder::new();
        for r in reader.by_ref() {
            let r = r?;
            if device.is_none_or(|d| d == r.device) {
                b.add(&r);
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
        Ok(())
    }
}
