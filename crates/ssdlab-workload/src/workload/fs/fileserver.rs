//! Filebench's fileserver: a file set of `fill` of the region in files of `file_size` mean
//! (gamma-distributed, shape 1.5, as Filebench draws them), created and written whole first.
//! Then `instances` instances of the flow run side by side (their operations interleaved one
//! by one), each looping over: create a file and write it whole; open a random file and
//! append `append_size` on average (gamma); read a random file whole; delete a random file
//! (TRIM of its extents); stat a random file (no I/O). Whole-file I/O goes in requests of up
//! to 128 KiB. Creates and appends that would take the file set past a quarter more than its
//! first size (or past halfway to the region's end, whichever is lower) are skipped, so the
//! deletes bring it back. Filebench sets no write-life hint: stream 0 (the job's `stream`).

use super::{draw_size, BadKey, FileId, FileSystem, Generator, Params, BLOCK, SEQ_IO};
use crate::request::Request;
use crate::Result;
use rand::Rng;
use rand_distr::Distribution;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// Filebench's gamma shape for file and append sizes.
const SHAPE: f64 = 1.5;

pub struct FileServer {
    fs: FileSystem,
    rng: Xoshiro256PlusPlus,
    file_size: rand_distr::Gamma<f64>,
    append_size: rand_distr::Gamma<f64>,
    file_cap: u64,
    append_cap: u64,
    /// The file set's first size, and the most it may hold.
    target: u64,
    high: u64,
    live: Vec<FileId>,
    prealloc_done: bool,
    /// Per instance, its next operation (0 to 4).
    ops: Vec<u8>,
    next: usize,
    region: u64,
}

impl FileServer {
    pub fn boxed(p: &mut Params) -> std::result::Result<Box<dyn Generator>, BadKey> {
        let fill = p.fill(0.5, 0.8)?;
        let mean = p.size("file_size", 128 << 10, BLOCK, BLOCK, 1 << 30)?;
        let append = p.size("append_size", 16 << 10, BLOCK, BLOCK, 1 << 30)?;
        let instances = p.count("instances", 16, 1, 4096)?;
        let target = p.share_of_region(fill);
        if target < 8 * mean {
            return Err(p.too_small("the file set must hold at least 8 files of file_size"));
        }
        let high = (target + target / 4).min(target + (p.len - target) / 2) / BLOCK * BLOCK;
        let gamma = |m: u64| rand_distr::Gamma::new(SHAPE, m as f64 / SHAPE).expect("positive parameters");
        Ok(Box::new(FileServer {
            fs: p.file_system()?,
            rng: p.rng(),
            file_size: gamma(mean),
            append_size: gamma(append),
            file_cap: 32 * mean,
            append_cap: 32 * append,
            target,
            high,
            live: Vec::new(),
            prealloc_done: false,
            ops: vec![0; instances as usize],
            next: 0,
            region: p.len,
        }))
    }

    fn random_file(&mut self) -> Option<(usize, FileId)> {
        (!self.live.is_empty()).then(|| {
            let i = self.rng.gen_range(0..self.live.len());
            (i, self.live[i])
        })
    }

    /// Create a file of a drawn size and write it whole, if it fits under `limit`.
    fn create(&mut self, limit: u64, out: &mut VecDeque<Request>) -> Result<bool> {
        let size = draw_size(self.file_size.sample(&mut self.rng), self.file_cap);
        if self.fs.used_bytes() + size > limit {
            return Ok(false);
        }
        let id = self.fs.create(0);
        self.fs.append(id, size, SEQ_IO, out)?;
        self.live.push(id);
        Ok(true)
    }

    /// One operation of one instance.
    fn op(&mut self, out: &mut VecDeque<Request>) -> Result<()> {
        let inst = self.next;
        self.next = (inst + 1) % self.ops.len();
        let op = self.ops[inst];
        self.ops[inst] = (op + 1) % 5;
        match op {
            0 => {
                self.create(self.high, out)?;
            }
            1 => {
                let size = draw_size(self.append_size.sample(&mut self.rng), self.append_cap);
                if let Some((_, id)) = self.random_file() {
                    if self.fs.used_bytes() + size <= self.high {
                        self.fs.append(id, size, SEQ_IO, out)?;
                    }
                }
            }
            2 => {
                if let Some((_, id)) = self.random_file() {
                    self.fs.read(id, 0, self.fs.size(id), SEQ_IO, out)?;
                }
            }
            3 => {
                if let Some((i, id)) = self.random_file() {
                    self.live.swap_remove(i);
                    self.fs.delete(id, out);
                }
            }
            _ => {
                // stat: metadata only.
                self.random_file();
            }
        }
        Ok(())
    }
}

impl Generator for FileServer {
    fn step(&mut self, out: &mut VecDeque<Request>) -> Result<()> {
        if !self.prealloc_done {
            if self.create(self.target, out)? {
                return Ok(());
            }
            self.prealloc_done = true;
        }
        self.op(out)
    }

    /// Three times the region: the file set, then about twice the region written.
    fn default_bytes(&self) -> u64 {
        3 * self.region
    }

    fn memory(&self) -> u64 {
        // Files of a quarter of the mean size at the least likely, and their ids.
        let files = 4 * self.high / (self.file_cap / 32) + 64;
        FileSystem::memory(files) + files * 4 + (self.file_cap + self.append_cap) / SEQ_IO * 48 + self.ops.len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_well_formed, job, requests};
    use super::*;
    use crate::request::Op;
    use std::collections::BTreeMap;

    #[test]
    fn a_file_set_then_the_flow_with_trims_of_deleted_files_only() {
        let j = job("app = \"fileserver\"", "256MiB", "number_ios = 200000");
        let reqs = requests(&j, 2, usize::MAX);
        assert_well_formed(&reqs, 0, 256 << 20);
        assert!(reqs.iter().all(|r| r.stream == 0), "no hint: the job's stream");
        // Track what is written: a TRIM covers only blocks written since the last TRIM of them.
        let mut written: BTreeMap<u64, bool> = BTreeMap::new();
        let mut counts = [0u64; 3];
        for r in &reqs {
            counts[r.op.index()] += 1;
            for b in (r.offset..r.offset + r.len).step_by(BLOCK as usize) {
                match r.op {
                    Op::Write => {
                        written.insert(b, true);
                    }
                    Op::Read => assert!(written.get(&b) == Some(&true), "read of an unwritten block {b}"),
                    Op::Trim => assert!(written.insert(b, false) == Some(true), "trim of a free block {b}"),
                    Op::Append | Op::Zone(..) => panic!("a zone command from a file system"),
                }
            }
        }
        let live: u64 = written.values().filter(|&&w| w).count() as u64 * BLOCK;
        let target = 128u64 << 20;
        assert!(live <= target + target / 4 && live > target / 2, "{live}");
        assert!(counts.iter().all(|&c| c > 1000), "{counts:?}");
        // The first file set: sequential writes only, about half the region.
        let first_trim = reqs.iter().position(|r| r.op == Op::Trim).unwrap();
        let first_read = reqs.iter().position(|r| r.op == Op::Read).unwrap();
        let pre: u64 = reqs[..first_read.min(first_trim)].iter().map(|r| r.len).sum();
        assert!(pre > target - (8 << 20) && pre <= target + (8 << 20), "{pre}");
    }

    #[test]
    fn file_and_append_sizes_follow_their_means() {
        let j = job(
            "app = \"fileserver\"\nfile_size = \"64KiB\"\nappend_size = \"8KiB\"\ninstances = 1",
            "256MiB",
            "number_ios = 100000",
        );
        let reqs = requests(&j, 3, usize::MAX);
        // One instance: create, append, read, delete, stat in turn. The trims of a delete
        // cover a whole file: their sum over deletes is about the mean file size plus appends.
        let pre = reqs.iter().take_while(|r| r.op == Op::Write).count();
        let mut trims = 0u64;
        let mut deletes = 0u64;
        let mut prev_trim = false;
        for r in &reqs[pre..] {
            if r.op == Op::Trim {
                trims += r.len;
                deletes += (!prev_trim) as u64;
            }
            prev_trim = r.op == Op::Trim;
        }
        let mean = trims as f64 / deletes as f64;
        // Gamma mean 64 KiB rounded up to blocks (+2 KiB), and appends of 8 KiB (+2 KiB).
        assert!(mean > 60_000.0 && mean < 90_000.0, "{mean}");
    }
}
