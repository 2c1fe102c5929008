//! A TPC-C-like database: tables of 4 KiB pages (the TPC-C tables at their usual shares of
//! the database) loaded first in sequential 128 KiB writes, and a redo log file of
//! `log_size` written whole at creation. Then transactions: each touches 8 to 16 pages drawn
//! from a zipf distribution over all pages (`theta`; hot pages scattered over the tables),
//! reading a page with probability `read_share` (a buffer-pool miss) and otherwise updating
//! it (the page becomes dirty), and appends 4 to 16 KiB of redo to the log, which is circular:
//! at its end it wraps to its second block, overwriting in place. Every `checkpoint`
//! transactions a checkpoint writes each page dirtied since the last one once, in page order
//! (adjacent pages of a table in one request, up to 128 KiB), then the checkpoint record in
//! the log's first block. Streams: the log 1, the tables 2.

use super::{BadKey, FileId, FileSystem, Generator, Params, BLOCK, SEQ_IO};
use crate::request::Request;
use crate::workload::job::scatter;
use crate::Result;
use rand::Rng;
use rand_distr::Distribution;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// The tables and their shares of the database's pages.
pub const TABLES: [(&str, f64); 8] = [
    ("stock", 0.34),
    ("order_line", 0.30),
    ("customer", 0.20),
    ("history", 0.06),
    ("orders", 0.05),
    ("new_order", 0.02),
    ("item", 0.02),
    ("district", 0.01),
];

pub const LOG_STREAM: u32 = 1;
pub const DATA_STREAM: u32 = 2;

pub struct Tpcc {
    fs: FileSystem,
    rng: Xoshiro256PlusPlus,
    zipf: rand_distr::Zipf<f64>,
    read_share: f64,
    checkpoint: u64,
    /// First page of each table in the database's page numbering, and the total.
    starts: [u64; 9],
    tables: Vec<FileId>,
    log: Option<FileId>,
    log_blocks: u64,
    /// Layout: the file being laid out (the tables, then the log; past it, done) and the
    /// bytes of it written so far.
    lay: usize,
    laid: u64,
    /// Next block of the log to write (1..log_blocks).
    head: u64,
    transactions: u64,
    dirty: Vec<u64>,
    region: u64,
}

impl Tpcc {
    pub fn boxed(p: &mut Params) -> std::result::Result<Box<dyn Generator>, BadKey> {
        let fill = p.fill(0.6, 0.95)?;
        let theta = p.theta(0.9)?;
        let read_share = p.share("read_share", 0.65)?;
        let dflt_log = p.share_of_region(1.0 / 32.0).clamp(64 << 10, 1 << 30);
        let log = p.size("log_size", dflt_log, BLOCK, 2 * BLOCK, 1 << 40)?;
        let checkpoint = p.count("checkpoint", 256, 1, 1_000_000)?;
        let total = p.share_of_region(fill);
        if log * 4 > total {
            return Err(BadKey::new(
                "fs.log_size",
                format!(
                    "got {}; expected at most a quarter of the database's share of the region ({} bytes)",
                    crate::units::fmt_size(log),
                    total / 4
                ),
            ));
        }
        let data_pages = (total - log) / BLOCK;
        let mut starts = [0u64; 9];
        for (i, (_, share)) in TABLES.iter().enumerate() {
            starts[i + 1] = starts[i] + ((data_pages as f64 * share) as u64).max(1);
        }
        let zipf = rand_distr::Zipf::new(starts[8], theta).map_err(|e| BadKey::new("fs.theta", e.to_string()))?;
        Ok(Box::new(Tpcc {
            fs: p.file_system()?,
            rng: p.rng(),
            zipf,
            read_share,
            checkpoint,
            starts,
            tables: Vec::with_capacity(TABLES.len()),
            log: None,
            log_blocks: log / BLOCK,
            lay: 0,
            laid: 0,
            head: 1,
            transactions: 0,
            dirty: Vec::new(),
            region: p.len,
        }))
    }

    /// Table and page within it of page `page` of the database.
    fn locate(&self, page: u64) -> (FileId, u64) {
        let t = self.starts.partition_point(|&s| s <= page) - 1;
        (self.tables[t], page - self.starts[t])
    }

    /// Lay out the next 128 KiB of the tables, then of the log; false once all is laid out.
    fn layout(&mut self, out: &mut VecDeque<Request>) -> Result<bool> {
        let i = self.lay;
        if i > TABLES.len() {
            return Ok(false);
        }
        let size = match i < TABLES.len() {
            true => (self.starts[i + 1] - self.starts[i]) * BLOCK,
            false => self.log_blocks * BLOCK,
        };
        if self.laid == 0 {
            match i < TABLES.len() {
                true => self.tables.push(self.fs.create(DATA_STREAM)),
                false => self.log = Some(self.fs.create(LOG_STREAM)),
            }
        }
        let file = self.log.unwrap_or(self.tables[self.tables.len() - 1]);
        let n = (size - self.laid).min(SEQ_IO);
        self.fs.append(file, n, SEQ_IO, out)?;
        self.laid += n;
        if self.laid == size {
            self.lay += 1;
            self.laid = 0;
        }
        Ok(true)
    }

    fn transaction(&mut self, out: &mut VecDeque<Request>) -> Result<()> {
        let n = self.starts[8];
        for _ in 0..self.rng.gen_range(8..=16) {
            let rank = (self.zipf.sample(&mut self.rng) as u64).saturating_sub(1).min(n - 1);
            let page = scatter(rank, n);
            if self.rng.gen::<f64>() < self.read_share {
                let (file, p) = self.locate(page);
                self.fs.read(file, p * BLOCK, BLOCK, BLOCK, out)?;
            } else {
                self.dirty.push(page);
            }
        }
        // Redo: 1 to 4 blocks at the head of the circular log, past block 0 (the header).
        let log = self.log.expect("laid out");
        let mut left = self.rng.gen_range(1..=4u64).min(self.log_blocks - 1);
        while left > 0 {
            let k = left.min(self.log_blocks - self.head);
            self.fs.overwrite(log, self.head * BLOCK, k * BLOCK, SEQ_IO, out)?;
            self.head += k;
            left -= k;
            if self.head == self.log_blocks {
                self.head = 1;
            }
        }
        self.transactions += 1;
        if self.transactions.is_multiple_of(self.checkpoint) {
            self.dirty.sort_unstable();
            self.dirty.dedup();
            let mut i = 0;
            while i < self.dirty.len() {
                // A run of adjacent pages of one table, up to SEQ_IO.
                let first = self.dirty[i];
                let (file, p) = self.locate(first);
                let table_end = self.starts[self.starts.partition_point(|&s| s <= first)];
                let mut j = i + 1;
                while j < self.dirty.len()
                    && self.dirty[j] == first + (j - i) as u64
                    && self.dirty[j] < table_end
                    && ((j - i + 1) as u64) * BLOCK <= SEQ_IO
                {
                    j += 1;
                }
                self.fs
                    .overwrite(file, p * BLOCK, (j - i) as u64 * BLOCK, SEQ_IO, out)?;
                i = j;
            }
            self.dirty.clear();
            self.fs.overwrite(log, 0, BLOCK, BLOCK, out)?;
        }
        Ok(())
    }
}

impl Generator for Tpcc {
    fn step(&mut self, out: &mut VecDeque<Request>) -> Result<()> {
        if self.layout(out)? {
            return Ok(());
        }
        self.transaction(out)
    }

    /// Four times the region: the load, then about twice the region written.
    fn default_bytes(&self) -> u64 {
        4 * self.region
    }

    fn memory(&self) -> u64 {
        // The dirty pages of a checkpoint interval and the requests writing them back.
        FileSystem::memory(TABLES.len() as u64 + 1) + self.checkpoint * 16 * (8 + 48)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_well_formed, job, requests};
    use super::*;
    use crate::request::Op;

    /// Requests of the load: the sequential writes at the start.
    fn load_len(reqs: &[Request]) -> usize {
        1 + reqs
            .windows(2)
            .take_while(|w| w[1].op == Op::Write && w[1].offset == w[0].offset + w[0].len)
            .count()
    }

    #[test]
    fn load_then_skewed_pages_a_circular_log_and_checkpoints() {
        let j = job(
            "app = \"tpcc\"\nlog_size = \"1MiB\"\ncheckpoint = 50",
            "256MiB",
            "number_ios = 300000",
        );
        let reqs = requests(&j, 4, usize::MAX);
        assert_well_formed(&reqs, 0, 256 << 20);
        let total = (256u64 << 20) * 6 / 10 / BLOCK * BLOCK;
        // The load: every block of the database written once, sequentially, before anything else.
        let load = load_len(&reqs);
        let loaded: u64 = reqs[..load].iter().map(|r| r.len).sum();
        assert!(
            loaded <= total && loaded + SEQ_IO > total - 8 * BLOCK,
            "{loaded} of {total}"
        );
        assert!(reqs[..load].windows(2).all(|w| w[1].offset == w[0].offset + w[0].len));
        let log_start = reqs[load - 1].offset + reqs[load - 1].len - (1 << 20);
        assert!(reqs[..load]
            .iter()
            .all(|r| (r.stream == LOG_STREAM) == (r.offset >= log_start)));
        let run = &reqs[load..];
        assert!(run.iter().all(|r| r.op != Op::Trim));
        // Log writes: stream 1, inside the log, 4 to 16 KiB, circular past the header block.
        let log: Vec<_> = run.iter().filter(|r| r.stream == LOG_STREAM).collect();
        let header = log.iter().filter(|r| r.offset == log_start).count();
        assert!(log
            .iter()
            .all(|r| r.op == Op::Write && r.offset >= log_start && r.len <= 16384));
        let redo: u64 = log.iter().filter(|r| r.offset != log_start).map(|r| r.len).sum();
        assert!(redo > 3 << 20, "the log wraps: {redo}");
        // Data: stream 2, reads of one page, and checkpoint write-backs.
        let data: Vec<_> = run.iter().filter(|r| r.stream == DATA_STREAM).collect();
        assert!(data.iter().all(|r| r.offset < log_start));
        assert!(data.iter().filter(|r| r.op == Op::Read).all(|r| r.len == BLOCK));
        let tx = redo as f64 / 10240.0; // 1 to 4 blocks, 2.5 on average
        assert!(
            (header as f64 - tx / 50.0).abs() < 0.1 * tx / 50.0 + 2.0,
            "{header} checkpoints, {tx} tx"
        );
        // Skew: the hottest 1 % of the pages read take a large share of the reads.
        let mut counts = std::collections::BTreeMap::new();
        for r in data.iter().filter(|r| r.op == Op::Read) {
            *counts.entry(r.offset).or_insert(0u32) += 1;
        }
        let mut v: Vec<u32> = counts.values().copied().collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        let pages = total / BLOCK;
        let top: u32 = v.iter().take(pages as usize / 100).sum();
        let reads: u32 = v.iter().sum();
        assert!(
            top as f64 > 0.25 * reads as f64,
            "top 1 % of pages: {top} of {reads} reads"
        );
    }

    #[test]
    fn read_share_of_page_accesses_holds() {
        // Uniform pages over a large database: checkpoints almost never merge two updates.
        let j = job(
            "app = \"tpcc\"\ntheta = 0.0\nread_share = 0.65\ncheckpoint = 20",
            "1GiB",
            "number_ios = 400000",
        );
        let reqs = requests(&j, 9, usize::MAX);
        let load = load_len(&reqs);
        let data = reqs[load..].iter().filter(|r| r.stream == DATA_STREAM);
        let (mut reads, mut writes) = (0u64, 0u64);
        for r in data {
            match r.op {
                Op::Read => reads += 1,
                _ => writes += r.len / BLOCK,
            }
        }
        let share = reads as f64 / (reads + writes) as f64;
        assert!((share - 0.65).abs() < 0.01, "{share}");
    }
}
