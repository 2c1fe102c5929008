//! fio with four jobs on four files, as in the PLAN paper's FIO workload: file sizes in the
//! ratio 1:10:30:64 (together `fill` of the region), each job doing random `bs` I/O, half
//! reads and half writes (`read_share`), uniform over its own file, every job issuing the same
//! number of bytes. The files are laid out first, one after the other, in sequential 128 KiB
//! writes (fio's layout phase). Job `j` (0-based) tags its requests with stream `j + 1`.

use super::{BadKey, FileId, FileSystem, Generator, Params, BLOCK, SEQ_IO};
use crate::request::Request;
use crate::Result;
use rand::Rng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

/// The files' sizes relative to one another.
pub const RATIO: [u64; 4] = [1, 10, 30, 64];

pub struct Fio {
    fs: FileSystem,
    rng: Xoshiro256PlusPlus,
    sizes: [u64; 4],
    files: Vec<FileId>,
    bs: u64,
    read_share: f64,
    /// Layout: bytes of the file being laid out written so far.
    laid: u64,
    /// Random phase: the job issuing next.
    next_job: usize,
    region: u64,
}

impl Fio {
    pub fn boxed(p: &mut Params) -> std::result::Result<Box<dyn Generator>, BadKey> {
        let fill = p.fill(0.5, 0.95)?;
        let bs = p.size("bs", 4096, BLOCK, BLOCK, 16 << 20)?;
        let read_share = p.share("read_share", 0.5)?;
        let total = p.share_of_region(fill);
        let sum: u64 = RATIO.iter().sum();
        let sizes = RATIO.map(|r| (total as u128 * r as u128 / sum as u128) as u64 / bs * bs);
        if sizes[0] == 0 {
            return Err(BadKey::new(
                "fs.bs",
                format!(
                    "the smallest of the four files ({} bytes, 1/105 of fill x region) holds no block of {bs} bytes; expected a smaller bs or a larger region",
                    total / sum
                ),
            ));
        }
        Ok(Box::new(Fio {
            fs: p.file_system()?,
            rng: p.rng(),
            sizes,
            files: Vec::with_capacity(4),
            bs,
            read_share,
            laid: 0,
            next_job: 0,
            region: p.len,
        }))
    }
}

impl Generator for Fio {
    fn step(&mut self, out: &mut VecDeque<Request>) -> Result<()> {
        // Layout: the files in job order, each written sequentially from its start.
        if self.files.len() < 4 || self.laid < self.sizes[3] {
            if self.files.is_empty() || self.laid == self.sizes[self.files.len() - 1] {
                let j = self.files.len();
                self.files.push(self.fs.create(j as u32 + 1));
                self.laid = 0;
            }
            let j = self.files.len() - 1;
            let n = (self.sizes[j] - self.laid).min(SEQ_IO);
            self.fs.append(self.files[j], n, SEQ_IO, out)?;
            self.laid += n;
            return Ok(());
        }
        let j = self.next_job;
        self.next_job = (j + 1) % 4;
        let slot = self.rng.gen_range(0..self.sizes[j] / self.bs);
        let file = self.files[j];
        if self.rng.gen::<f64>() < self.read_share {
            self.fs.read(file, slot * self.bs, self.bs, self.bs, out)
        } else {
            self.fs.overwrite(file, slot * self.bs, self.bs, self.bs, out)
        }
    }

    /// Four times the region: the layout, then about twice the region written.
    fn default_bytes(&self) -> u64 {
        4 * self.region
    }

    fn memory(&self) -> u64 {
        FileSystem::memory(4) + 1024
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_well_formed, job, requests};
    use super::*;
    use crate::request::Op;

    #[test]
    fn four_files_in_ratio_laid_out_then_equal_random_io_per_job() {
        let j = job(
            "app = \"fio\"\nfill = 0.5",
            "210MiB",
            "number_ios = 200000\noffset = \"1MiB\"",
        );
        let reqs = requests(&j, 5, usize::MAX);
        assert_well_formed(&reqs, 1 << 20, 210 << 20);
        // The layout: sequential 128 KiB writes, file by file, streams 1 to 4.
        let total = 105 << 20; // fill x region
        let sizes: Vec<u64> = RATIO.iter().map(|r| r * total / 105).collect();
        assert_eq!(sizes, vec![1 << 20, 10 << 20, 30 << 20, 64 << 20]);
        let layout_n = (total / SEQ_IO) as usize;
        let mut at = 1 << 20;
        let mut per_stream = [0u64; 5];
        for r in &reqs[..layout_n] {
            assert_eq!((r.op, r.offset, r.len), (Op::Write, at, SEQ_IO));
            at += SEQ_IO;
            per_stream[r.stream as usize] += r.len;
        }
        assert_eq!(&per_stream[1..], &sizes[..], "files in the ratio 1:10:30:64");
        // Then round robin over the jobs, 4 KiB each, inside the job's file, half reads.
        let rand = &reqs[layout_n..];
        let mut bytes = [0u64; 5];
        let mut reads = 0;
        let mut file_start = [0u64; 5];
        let mut s = 1 << 20;
        for (j, size) in sizes.iter().enumerate() {
            file_start[j + 1] = s;
            s += size;
        }
        for (i, r) in rand.iter().enumerate() {
            let stream = i % 4 + 1;
            assert_eq!(r.stream as usize, stream);
            assert_eq!(r.len, 4096);
            assert!(r.offset >= file_start[stream] && r.offset < file_start[stream] + sizes[stream - 1]);
            bytes[stream] += r.len;
            reads += (r.op == Op::Read) as usize;
        }
        let n = rand.len() - rand.len() % 4;
        assert!(bytes[1..].iter().all(|&b| b.abs_diff(bytes[1]) <= 4096), "{bytes:?}");
        assert!(bytes[1] >= (n as u64 / 4) * 4096);
        let share = reads as f64 / rand.len() as f64;
        assert!((share - 0.5).abs() < 0.01, "{share}");
        // Offsets cover the largest file evenly: its two halves get about the same.
        let (lo, hi) = rand.iter().filter(|r| r.stream == 4).fold((0, 0), |(lo, hi), r| {
            if r.offset < file_start[4] + sizes[3] / 2 {
                (lo + 1, hi)
            } else {
                (lo, hi + 1)
            }
        });
        assert!((lo as f64 / (lo + hi) as f64 - 0.5).abs() < 0.02, "{lo} {hi}");
    }

    #[test]
    fn block_size_and_read_share_are_parameters() {
        let j = job(
            "app = \"fio\"\nbs = \"16KiB\"\nread_share = 0.8",
            "64MiB",
            "number_ios = 20000",
        );
        let reqs = requests(&j, 2, usize::MAX);
        // The layout: the four files, each a whole number of 16 KiB blocks.
        let total = 32u64 << 20;
        let laid: u64 = RATIO.iter().map(|r| total * r / 105 / 16384 * 16384).sum();
        let mut sum = 0;
        let layout = reqs.iter().take_while(|r| {
            sum += r.len;
            sum <= laid
        });
        assert!(layout.count() > 0);
        let n = reqs.iter().scan(0, |s, r| {
            *s += r.len;
            Some(*s)
        });
        let first = n.take_while(|&s| s <= laid).count();
        let rand: Vec<_> = reqs[first..].iter().collect();
        assert!(rand.iter().all(|r| r.len == 16384 && r.offset % 16384 == 0));
        let reads = rand.iter().filter(|r| r.op == Op::Read).count() as f64 / rand.len() as f64;
        assert!((reads - 0.8).abs() < 0.02, "{reads}");
    }
}
