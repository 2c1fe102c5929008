//! A kernel build with GCC, over and over: each iteration copies a source tree of `fill` of
//! the region in small files (log-normal sizes, σ 1, mean `file_size`), then compiles: reads
//! each source whole and writes its object file (the source's size times a uniform factor
//! from 0.5 to 2), then links: reads every object whole and writes `binaries` binaries that
//! together take a quarter of the objects' bytes, then deletes everything (a TRIM of every
//! file's extents: `make clean` and `rm -r`). Whole-file I/O goes in requests of up to
//! 128 KiB. Streams: sources 1, objects 2, binaries 3.

use super::{draw_size, round_up, BadKey, FileId, FileSystem, Generator, Params, BLOCK, SEQ_IO};
use crate::request::Request;
use crate::Result;
use rand::Rng;
use rand_distr::Distribution;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::VecDeque;

pub const SOURCE_STREAM: u32 = 1;
pub const OBJECT_STREAM: u32 = 2;
pub const BINARY_STREAM: u32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Copy,
    Compile(usize),
    LinkRead(usize),
    LinkWrite(usize),
    Clean(usize),
}

pub struct Gcc {
    fs: FileSystem,
    rng: Xoshiro256PlusPlus,
    size: rand_distr::LogNormal<f64>,
    cap: u64,
    tree: u64,
    binaries: usize,
    phase: Phase,
    copied: u64,
    sources: Vec<FileId>,
    objects: Vec<FileId>,
    objects_bytes: u64,
    bins: Vec<FileId>,
    /// Builds finished.
    iterations: u64,
    region: u64,
}

impl Gcc {
    pub fn boxed(p: &mut Params) -> std::result::Result<Box<dyn Generator>, BadKey> {
        let fill = p.fill(0.2, 0.25)?;
        let mean = p.size("file_size", 16 << 10, BLOCK, BLOCK, 64 << 20)?;
        let binaries = p.count("binaries", 3, 1, 64)?;
        let tree = p.share_of_region(fill);
        if tree < 16 * mean {
            return Err(p.too_small("the source tree must hold at least 16 files of file_size"));
        }
        // The last source may pass the tree's size by one file; objects are at most twice the
        // sources, binaries a quarter of the objects (plus a block each).
        let cap = (64 * mean).min(tree / 16);
        let peak = (tree + cap) / 2 * 7 + binaries * BLOCK;
        if peak > p.len {
            return Err(p.too_small("a build takes up to 3.5 times the source tree"));
        }
        let sigma = 1.0f64;
        let mu = (mean as f64).ln() - sigma * sigma / 2.0;
        Ok(Box::new(Gcc {
            fs: p.file_system()?,
            rng: p.rng(),
            size: rand_distr::LogNormal::new(mu, sigma).expect("finite parameters"),
            cap,
            tree,
            binaries: binaries as usize,
            phase: Phase::Copy,
            copied: 0,
            sources: Vec::new(),
            objects: Vec::new(),
            objects_bytes: 0,
            bins: Vec::new(),
            iterations: 0,
            region: p.len,
        }))
    }

    fn whole(&mut self, stream: u32, size: u64, out: &mut VecDeque<Request>) -> Result<FileId> {
        let id = self.fs.create(stream);
        self.fs.append(id, size, SEQ_IO, out)?;
        Ok(id)
    }
}

impl Generator for Gcc {
    fn step(&mut self, out: &mut VecDeque<Request>) -> Result<()> {
        match self.phase {
            Phase::Copy => {
                let size = draw_size(self.size.sample(&mut self.rng), self.cap);
                let id = self.whole(SOURCE_STREAM, size, out)?;
                self.sources.push(id);
                self.copied += size;
                if self.copied >= self.tree {
                    self.phase = Phase::Compile(0);
                }
            }
            Phase::Compile(i) => {
                let src = self.sources[i];
                let n = self.fs.size(src);
                self.fs.read(src, 0, n, SEQ_IO, out)?;
                let size = round_up((n as f64 * self.rng.gen_range(0.5..=2.0)) as u64).min(2 * n);
                let id = self.whole(OBJECT_STREAM, size, out)?;
                self.objects.push(id);
                self.objects_bytes += size;
                self.phase = match i + 1 == self.sources.len() {
                    true => Phase::LinkRead(0),
                    false => Phase::Compile(i + 1),
                };
            }
            Phase::LinkRead(i) => {
                let obj = self.objects[i];
                self.fs.read(obj, 0, self.fs.size(obj), SEQ_IO, out)?;
                self.phase = match i + 1 == self.objects.len() {
                    true => Phase::LinkWrite(0),
                    false => Phase::LinkRead(i + 1),
                };
            }
            Phase::LinkWrite(b) => {
                let size = round_up(self.objects_bytes / 4 / self.binaries as u64);
                let id = self.whole(BINARY_STREAM, size, out)?;
                self.bins.push(id);
                self.phase = match b + 1 == self.binaries {
                    true => Phase::Clean(0),
                    false => Phase::LinkWrite(b + 1),
                };
            }
            Phase::Clean(i) => {
                let (s, o) = (self.sources.len(), self.objects.len());
                let id = match i {
                    i if i < s => self.sources[i],
                    i if i < s + o => self.objects[i - s],
                    i => self.bins[i - s - o],
                };
                self.fs.delete(id, out);
                if i + 1 == s + o + self.bins.len() {
                    self.sources.clear();
                    self.objects.clear();
                    self.bins.clear();
                    self.copied = 0;
                    self.objects_bytes = 0;
                    self.iterations += 1;
                    self.phase = Phase::Copy;
                } else {
                    self.phase = Phase::Clean(i + 1);
                }
            }
        }
        Ok(())
    }

    /// Four times the region: a build writes about 2.6 times its tree and reads 2.25 times.
    fn default_bytes(&self) -> u64 {
        4 * self.region
    }

    fn memory(&self) -> u64 {
        // At most a source per block of the tree, and as many objects.
        let files = 2 * (self.tree + self.cap) / BLOCK + self.binaries as u64 + 64;
        FileSystem::memory(files) + files * 4 + self.cap * 4 / SEQ_IO * 48
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{assert_well_formed, job, requests};
    use super::*;
    use crate::request::Op;

    #[test]
    fn builds_copy_compile_link_and_delete_everything() {
        let j = job("app = \"gcc\"", "128MiB", "number_ios = 100000\noffset = \"64MiB\"");
        let reqs = requests(&j, 6, usize::MAX);
        assert_well_formed(&reqs, 64 << 20, 128 << 20);
        let tree = (128u64 << 20) / 5 / BLOCK * BLOCK;
        // Per iteration: sources written, then read, objects written; trims end it.
        let mut it = 0;
        let mut i = 0;
        while i < reqs.len() {
            let end = reqs[i..]
                .iter()
                .position(|r| r.op == Op::Trim)
                .map(|p| i + p)
                .unwrap_or(reqs.len());
            let trims_end = reqs[end..]
                .iter()
                .position(|r| r.op != Op::Trim)
                .map(|p| end + p)
                .unwrap_or(reqs.len());
            if trims_end == reqs.len() {
                break; // the last, unfinished build
            }
            let build = &reqs[i..end];
            let bytes = |op: Op, s: u32| -> u64 {
                build
                    .iter()
                    .filter(|r| r.op == op && r.stream == s)
                    .map(|r| r.len)
                    .sum()
            };
            let src = bytes(Op::Write, SOURCE_STREAM);
            let obj = bytes(Op::Write, OBJECT_STREAM);
            let bin = bytes(Op::Write, BINARY_STREAM);
            assert!(src >= tree && src < tree + tree / 16, "{src}");
            assert_eq!(bytes(Op::Read, SOURCE_STREAM), src, "every source read once");
            assert_eq!(
                bytes(Op::Read, OBJECT_STREAM),
                obj,
                "every object read once by the linker"
            );
            assert!(
                obj > src && obj < 2 * src,
                "objects 0.5 to 2 times their source: {obj} for {src}"
            );
            assert!(
                bin + 3 * BLOCK > obj / 4 && bin < obj / 4 + 3 * BLOCK,
                "{bin} for {obj}"
            );
            // The sources are copied before anything is read or compiled.
            let first_read = build.iter().position(|r| r.op == Op::Read).unwrap();
            assert_eq!(
                build[..first_read].iter().map(|r| r.len).sum::<u64>(),
                src,
                "the copy writes the tree first"
            );
            // Everything written is trimmed, file by file.
            let trims = &reqs[end..trims_end];
            let trimmed = |s: u32| -> u64 { trims.iter().filter(|r| r.stream == s).map(|r| r.len).sum() };
            assert_eq!((trimmed(1), trimmed(2), trimmed(3)), (src, obj, bin));
            it += 1;
            i = trims_end;
        }
        assert!(it >= 2, "{it} builds");
    }

    #[test]
    fn source_sizes_are_skewed_around_their_mean() {
        let j = job("app = \"gcc\"\nfile_size = \"32KiB\"", "512MiB", "number_ios = 20000");
        let reqs = requests(&j, 2, usize::MAX);
        // The sources: the writes before the first read, grouped by file.
        let first_read = reqs.iter().position(|r| r.op == Op::Read).unwrap();
        let mut sizes: Vec<u64> = Vec::new();
        let mut more = false;
        for r in &reqs[..first_read] {
            match sizes.last_mut() {
                Some(s) if more => *s += r.len,
                _ => sizes.push(r.len),
            }
            // A file's writes are full requests but its last.
            more = r.len == SEQ_IO;
        }
        let n = sizes.len() as f64;
        let mean = sizes.iter().sum::<u64>() as f64 / n;
        assert!(mean > 30_000.0 && mean < 40_000.0, "{mean}");
        sizes.sort_unstable();
        let median = sizes[sizes.len() / 2] as f64;
        assert!(median < 0.75 * mean, "skewed: median {median}, mean {mean}");
    }
}
