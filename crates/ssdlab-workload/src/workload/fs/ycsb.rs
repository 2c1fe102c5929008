//! YCSB workload A on an LSM key-value store (RocksDB-like), over `N = fill × region /
//! value_size` keys of `value_size` bytes.
//!
//! A write (an insert or an update) goes to the write-ahead log and the memtable: the WAL is
//! appended a block at a time as whole blocks of records accumulate; when the memtable holds
//! `memtable` bytes of records, the partial WAL block is written, the memtable is flushed as an
//! L0 SST (its distinct keys, in one sequential write), and the WAL file is deleted and a new
//! one started. Leveled compaction keeps L0 below 4 files and each level below its target
//! (dynamic level sizes: the last level holds the data set, each level above a tenth of the
//! next, none below 4 memtables): four L0 files are compacted with all of L1; a level over its
//! target compacts its SSTs in turn, each with the SSTs of the next level whose key ranges
//! overlap it (levels are kept in key order, an SST covering its share of its level's bytes).
//! A compaction reads its inputs whole, writes its output SSTs (`sst_size` each) sequentially,
//! then deletes the inputs (TRIM). The output drops the versions the input from the level above
//! replaces: a key of the upper SST is also in the lower level with the probability that
//! level's share of the data set (none while loading, when every key is new).
//!
//! First the load inserts every key once, then the run: zipfian keys (`theta`), a read with
//! probability `read_share` (one block of an SST: a level chosen with probability proportional
//! to its bytes, a random SST of it, a random block of that), otherwise an update. Streams as
//! RocksDB tags its files' write-life hints: WAL 1, L0 2, L1 3, L2 and deeper 4.

use super::{round_up, BadKey, FileId, FileSystem, Generator, Params, BLOCK, SEQ_IO};
use crate::request::Request;
use crate::Result;
use rand::Rng;
use rand_distr::Distribution;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

pub const WAL_STREAM: u32 = 1;
/// L0 files before a compaction into L1.
const L0_TRIGGER: usize = 4;
/// Size ratio of adjacent levels.
const RATIO: u64 = 10;

/// Stream of an SST of `level`.
pub fn level_stream(level: usize) -> u32 {
    (level as u32 + 2).min(4)
}

#[derive(Clone, Copy, Debug)]
struct Sst {
    id: FileId,
    bytes: u64,
}

pub struct Ycsb {
    fs: FileSystem,
    rng: Xoshiro256PlusPlus,
    zipf: rand_distr::Zipf<f64>,
    read_share: f64,
    value: u64,
    memtable: u64,
    sst: u64,
    keys: u64,
    /// Bytes of the data set (distinct keys × value size).
    unique: u64,
    /// Keys inserted by the load so far.
    loaded: u64,
    wal: FileId,
    /// Record bytes in the WAL's block not yet written.
    wal_pending: u64,
    mem: Vec<u64>,
    mem_bytes: u64,
    levels: Vec<Vec<Sst>>,
    level_bytes: Vec<u64>,
    targets: Vec<u64>,
    /// Per level, the next SST to compact (round robin in key order).
    cursor: Vec<usize>,
    inputs: Vec<Sst>,
    outputs: Vec<Sst>,
    region: u64,
}

impl Ycsb {
    pub fn boxed(p: &mut Params) -> std::result::Result<Box<dyn Generator>, BadKey> {
        Ok(Box::new(Ycsb::new(p)?))
    }

    fn new(p: &mut Params) -> std::result::Result<Ycsb, BadKey> {
        let fill = p.fill(0.5, 0.7)?;
        let theta = p.theta(0.99)?;
        let read_share = p.share("read_share", 0.5)?;
        let value = p.size("value_size", 1024, 1, 64, 1 << 20)?;
        let dflt_sst = (p.len / 256 / BLOCK * BLOCK).clamp(16 << 10, 64 << 20);
        let sst = p.size("sst_size", dflt_sst, BLOCK, 4 * BLOCK, 1 << 30)?;
        let memtable = p.size("memtable", sst, BLOCK, 4 * BLOCK, 256 << 20)?;
        if value > memtable {
            return Err(BadKey::new(
                "fs.value_size",
                format!("got {value} bytes, more than the memtable ({memtable}); expected at most memtable"),
            ));
        }
        let unique = p.share_of_region(fill);
        let keys = unique / value;
        if keys == 0 || unique < 8 * sst.max(memtable) {
            return Err(p.too_small("the data set must hold at least 8 SSTs and 8 memtables"));
        }
        let unique = keys * value;
        // Levels: the last holds the data set, each above a tenth of the next, at least the base.
        let base = L0_TRIGGER as u64 * memtable;
        let mut k = 1;
        while k < 12 && base.saturating_mul(RATIO.pow(k as u32 - 1)) < unique {
            k += 1;
        }
        let mut targets = vec![0; k + 1];
        targets[k] = unique;
        for i in (1..k).rev() {
            targets[i] = (targets[i + 1] / RATIO).max(base);
        }
        // At the peak: the levels (a tenth more than the data set, and the overshoot of the
        // small ones), L0, the WAL and the outputs of the largest compaction.
        let peak = unique + unique / 8 + 6 * memtable + 2 * base.max(12 * sst);
        if peak > p.len {
            return Err(BadKey::new(
                "fs.fill",
                format!(
                    "the LSM tree needs about {} at its peak on a region of {}; expected a lower fill or smaller sst_size and memtable",
                    crate::units::fmt_size(peak),
                    crate::units::fmt_size(p.len)
                ),
            ));
        }
        let zipf = rand_distr::Zipf::new(keys, theta).map_err(|e| BadKey::new("fs.theta", e.to_string()))?;
        let mut fs = p.file_system()?;
        let wal = fs.create(WAL_STREAM);
        Ok(Ycsb {
            fs,
            rng: p.rng(),
            zipf,
            read_share,
            value,
            memtable,
            sst,
            keys,
            unique,
            loaded: 0,
            wal,
            wal_pending: 0,
            mem: Vec::new(),
            mem_bytes: 0,
            levels: vec![Vec::new(); k + 1],
            level_bytes: vec![0; k + 1],
            targets,
            cursor: vec![0; k + 1],
            inputs: Vec::new(),
            outputs: Vec::new(),
            region: p.len,
        })
    }

    /// One operation of the load or the run.
    fn op(&mut self, out: &mut VecDeque<Request>) -> Result<()> {
        if self.loaded < self.keys {
            // Counted once in: the compactions this insert sets off still move new keys only.
            self.put(self.loaded, out)?;
            self.loaded += 1;
            return Ok(());
        }
        if self.rng.gen::<f64>() < self.read_share {
            return self.read(out);
        }
        let key = (self.zipf.sample(&mut self.rng) as u64).saturating_sub(1);
        self.put(key, out)
    }

    /// A block of an SST of a level chosen by its share of the tree's bytes.
    fn read(&mut self, out: &mut VecDeque<Request>) -> Result<()> {
        let total: u64 = self.level_bytes.iter().sum();
        if total == 0 {
            return Ok(()); // all in the memtable
        }
        let mut x = self.rng.gen_range(0..total);
        let level = self
            .level_bytes
            .iter()
            .position(|&b| {
                if x < b {
                    true
                } else {
                    x -= b;
                    false
                }
            })
            .expect("within the total");
        let ssts = &self.levels[level];
        let s = ssts[self.rng.gen_range(0..ssts.len())];
        let block = self.rng.gen_range(0..s.bytes / BLOCK);
        self.fs.read(s.id, block * BLOCK, BLOCK, BLOCK, out)
    }

    fn put(&mut self, key: u64, out: &mut VecDeque<Request>) -> Result<()> {
        self.mem.push(key);
        self.mem_bytes += self.value;
        self.wal_pending += self.value;
        if self.wal_pending >= BLOCK {
            let whole = self.wal_pending / BLOCK * BLOCK;
            self.fs.append(self.wal, whole, SEQ_IO, out)?;
            self.wal_pending -= whole;
        }
        if self.mem_bytes >= self.memtable {
            self.flush(out)?;
        }
        Ok(())
    }

    /// The memtable to a new L0 SST; a new WAL; then the compactions that it calls for.
    fn flush(&mut self, out: &mut VecDeque<Request>) -> Result<()> {
        if self.wal_pending > 0 {
            self.fs.append(self.wal, BLOCK, SEQ_IO, out)?;
            self.wal_pending = 0;
        }
        self.mem.sort_unstable();
        self.mem.dedup();
        let bytes = round_up(self.mem.len() as u64 * self.value);
        let id = self.fs.create(level_stream(0));
        self.fs.append(id, bytes, SEQ_IO, out)?;
        self.levels[0].push(Sst { id, bytes });
        self.level_bytes[0] += bytes;
        self.mem.clear();
        self.mem_bytes = 0;
        self.fs.delete(self.wal, out);
        self.wal = self.fs.create(WAL_STREAM);
        self.compact(out)
    }

    fn compact(&mut self, out: &mut VecDeque<Request>) -> Result<()> {
        let last = self.levels.len() - 1;
        loop {
            if self.levels[0].len() >= L0_TRIGGER {
                let (upper, lower) = (self.level_bytes[0], self.level_bytes[1]);
                let n1 = self.levels[1].len();
                self.merge(0, 0..self.levels[0].len(), 0..n1, upper, lower, out)?;
                continue;
            }
            let Some(n) = (1..last).find(|&n| self.level_bytes[n] > self.targets[n]) else {
                return Ok(());
            };
            // The next SST of level n in key order, and the SSTs of n + 1 its key range
            // overlaps: an SST covers its share of its level's bytes.
            let i = self.cursor[n] % self.levels[n].len();
            let before: u64 = self.levels[n][..i].iter().map(|s| s.bytes).sum();
            let s = self.levels[n][i];
            let (bn, bm) = (self.level_bytes[n] as u128, self.level_bytes[n + 1] as u128);
            let (a, b) = (before as u128 * bm, (before + s.bytes) as u128 * bm);
            let (mut lo, mut hi, mut cum) = (0, 0, 0u128);
            for (j, t) in self.levels[n + 1].iter().enumerate() {
                let (c, d) = (cum * bn, (cum + t.bytes as u128) * bn);
                if d <= a {
                    lo = j + 1;
                }
                if c < b {
                    hi = j + 1;
                }
                cum += t.bytes as u128;
            }
            let hi = hi.max(lo);
            let lower: u64 = self.levels[n + 1][lo..hi].iter().map(|t| t.bytes).sum();
            self.cursor[n] = i;
            self.merge(n, i..i + 1, lo..hi, s.bytes, lower, out)?;
        }
    }

    /// Compact SSTs `from` of level `n` with SSTs `into` of level `n + 1`: read them, write
    /// the merged output as SSTs of `n + 1` in their place, delete the inputs.
    fn merge(
        &mut self,
        n: usize,
        from: std::ops::Range<usize>,
        into: std::ops::Range<usize>,
        upper: u64,
        lower: u64,
        out: &mut VecDeque<Request>,
    ) -> Result<()> {
        self.inputs.clear();
        self.inputs.extend(self.levels[n].drain(from.clone()));
        self.inputs.extend_from_slice(&self.levels[n + 1][into.clone()]);
        for s in &self.inputs {
            self.fs.read(s.id, 0, s.bytes, SEQ_IO, out)?;
        }
        // The upper input's keys found in the lower level are older versions dropped.
        let dup = if self.loaded < self.keys {
            0.0
        } else {
            (self.level_bytes[n + 1] as f64 / self.unique as f64).min(1.0)
        };
        let mut left = (lower + (upper as f64 * (1.0 - dup)) as u64).next_multiple_of(BLOCK);
        self.outputs.clear();
        while left > 0 {
            let bytes = left.min(self.sst);
            let id = self.fs.create(level_stream(n + 1));
            self.fs.append(id, bytes, SEQ_IO, out)?;
            self.outputs.push(Sst { id, bytes });
            left -= bytes;
        }
        for s in &self.inputs {
            self.fs.delete(s.id, out);
        }
        let written: u64 = self.outputs.iter().map(|s| s.bytes).sum();
        self.level_bytes[n] -= upper;
        self.level_bytes[n + 1] = self.level_bytes[n + 1] - lower + written;
        self.levels[n + 1].splice(into, self.outputs.iter().copied());
        Ok(())
    }
}

impl Generator for Ycsb {
    fn step(&mut self, out: &mut VecDeque<Request>) -> Result<()> {
        self.op(out)
    }

    /// Three times the region: the load, then about twice the region written.
    fn default_bytes(&self) -> u64 {
        3 * self.region
    }

    fn memory(&self) -> u64 {
        let files = 2 * (self.unique + self.unique / 4) / self.sst + 64;
        let largest = self.targets[1] + L0_TRIGGER as u64 * self.memtable + 24 * self.sst;
        FileSystem::memory(files) + files * 32 + (self.memtable / self.value) * 8 + 3 * largest / SEQ_IO * 48
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_well_formed, job, requests};
    use super::super::Params;
    use super::*;
    use crate::request::Op;

    fn ycsb(fs: &str, size: u64, seed: u64) -> Ycsb {
        let j = job(fs, "1GiB", "");
        let mut p = Params {
            fs: j.fs.as_ref().unwrap(),
            used: Vec::new(),
            start: 0,
            len: size,
            seed,
        };
        Ycsb::new(&mut p).unwrap()
    }

    /// Bytes of the tree's files and the WAL: what the file system holds.
    fn check_tree(g: &Ycsb) {
        let last = g.levels.len() - 1;
        for (n, l) in g.levels.iter().enumerate() {
            assert_eq!(l.iter().map(|s| s.bytes).sum::<u64>(), g.level_bytes[n], "level {n}");
            for s in l {
                assert_eq!(g.fs.size(s.id), s.bytes);
                assert_eq!(g.fs.stream(s.id), level_stream(n));
            }
            if (1..last).contains(&n) {
                assert!(g.level_bytes[n] <= g.targets[n], "level {n} over its target");
            }
        }
        assert!(g.levels[0].len() < L0_TRIGGER);
        // Rounding each output up to a block lets the last level pass the data set a little.
        assert!(g.level_bytes[last] <= g.unique + g.unique / 64);
        let tree: u64 = g.level_bytes.iter().sum();
        assert_eq!(g.fs.used_bytes(), tree + g.fs.size(g.wal), "no file leaks");
        assert_eq!(g.fs.files(), g.levels.iter().map(|l| l.len()).sum::<usize>() + 1);
    }

    #[test]
    fn the_load_inserts_every_key_and_compaction_keeps_the_levels_within_target() {
        let mut g = ycsb("app = \"ycsb\"", 64 << 20, 3);
        // 32 MiB of data, 256 KiB SSTs and memtable: L1 of 1 MiB, L2 of 3.2 MiB, L3 the rest.
        assert_eq!(g.levels.len(), 4);
        assert_eq!(g.targets, vec![0, 1 << 20, 3_355_443, 32 << 20]);
        let mut q = VecDeque::new();
        while g.loaded < g.keys {
            g.step(&mut q).unwrap();
            check_tree(&g);
        }
        // Loading drops nothing: the tree and the memtable hold the data set exactly.
        let tree: u64 = g.level_bytes.iter().sum();
        assert_eq!(tree + g.mem_bytes, g.unique);
        assert!(q
            .iter()
            .all(|r| r.op != Op::Read || r.len > BLOCK || r.stream > WAL_STREAM));
        let mut by_stream = [0u64; 5];
        let mut trims = [0u64; 5];
        for r in q.drain(..) {
            match r.op {
                Op::Write => by_stream[r.stream as usize] += r.len,
                Op::Trim => trims[r.stream as usize] += r.len,
                Op::Read => {}
                Op::Append | Op::Zone(..) => panic!("a zone command from a file system"),
            }
        }
        // The WAL logged every record; the flushes wrote them all to L0 once.
        assert!(
            by_stream[1] >= g.unique && by_stream[2] >= g.unique - g.mem_bytes,
            "{by_stream:?}"
        );
        assert!(by_stream[3] > 0 && by_stream[4] > 0, "{by_stream:?}");
        assert!(
            trims[1] > 0 && trims[2] > 0 && trims[3] > 0,
            "WAL, L0 and L1 files deleted: {trims:?}"
        );
        // The run: updates replace versions, so the tree stays near the data set.
        for _ in 0..200_000 {
            g.step(&mut q).unwrap();
            q.clear();
            check_tree(&g);
        }
        let tree: u64 = g.level_bytes.iter().sum();
        assert!(tree < g.unique + g.unique / 4, "{tree} for {}", g.unique);
        assert!(
            g.level_bytes[3] > g.unique * 8 / 10,
            "the last level holds the data set"
        );
    }

    #[test]
    fn half_of_the_run_reads_one_block() {
        let mut g = ycsb("app = \"ycsb\"", 64 << 20, 5);
        let mut q = VecDeque::new();
        while g.loaded < g.keys {
            g.step(&mut q).unwrap();
        }
        q.clear();
        let (mut point_reads, mut wal_blocks) = (0u64, 0u64);
        for _ in 0..100_000 {
            g.step(&mut q).unwrap();
            for r in q.drain(..) {
                point_reads += (r.op == Op::Read && r.len == BLOCK) as u64;
                if r.op == Op::Write && r.stream == WAL_STREAM {
                    wal_blocks += r.len / BLOCK;
                }
            }
        }
        // 1 KiB records: four updates to a WAL block.
        let updates = wal_blocks as f64 * 4.0;
        let share = point_reads as f64 / (point_reads as f64 + updates);
        assert!((share - 0.5).abs() < 0.03, "{share}");
    }

    #[test]
    fn requests_in_range_with_large_values_and_small_ssts() {
        let j = job(
            "app = \"ycsb\"\nvalue_size = \"8KiB\"\nsst_size = \"64KiB\"\nmemtable = \"128KiB\"\ntheta = 0.5",
            "16MiB",
            "number_ios = 50000\noffset = \"16MiB\"",
        );
        let reqs = requests(&j, 1, usize::MAX);
        assert_well_formed(&reqs, 16 << 20, 16 << 20);
        let wal: Vec<_> = reqs
            .iter()
            .filter(|r| r.stream == WAL_STREAM && r.op == Op::Write)
            .collect();
        // A record is two blocks, in one request unless the free space is fragmented there.
        assert!(wal.iter().all(|r| r.len <= 8192));
        assert!(wal.iter().filter(|r| r.len == 8192).count() * 10 > wal.len() * 9);
        assert!(reqs
            .iter()
            .filter(|r| r.op == Op::Write && r.stream > 2)
            .all(|r| r.len <= 64 << 10));
    }
}
