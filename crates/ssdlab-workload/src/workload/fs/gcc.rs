//! A kernel build with GCC, over and over: each iteration copies a source tree of `fill` of
//! the region in small files (log-normal sizes, σ 1, mean `file_size`), then compiles: reads
//! each source whole and writes its object file (the source's size times a uniform factor
//! from 0.5 to 2), then links: reads every object whole and writes `binaries` binaries that
//! together take a quarter of the objects' bytes, then deletes everything (a TRIM of every
//! file's extents: `make clean` and `rm -r`). Whole-file I/O goes in requests of up to
//! 128 KiB. Streams: sources 1, objects 2, binaries 3.
//!
//! Beside the builds, the user's other files (`long_lived`, a share of the tree; 0 by
//! default): as the copy writes its sources, a long-lived file (log-normal as the sources)
//! follows each time the sources written since the last one reach its size over
//! `long_lived`, so the two interleave in time as on a machine that does more than build.
//! Each lives `long_lived_builds` builds: the files written during build k are deleted as
//! build k + `long_lived_builds` starts. Stream 4.

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
pub const LONG_LIVED_STREAM: u32 = 4;

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
    /// The long-lived files' sizes.
    long_rng: Xoshiro256PlusPlus,
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
    /// The long-lived files' share of the tree, and the builds each lives.
    long_lived: f64,
    keep_builds: u64,
    /// Source bytes owed a long-lived file, and that file's size.
    owed: f64,
    next_long: u64,
    /// The long-lived files, oldest first, with the build that wrote each.
    long: VecDeque<(u64, FileId)>,
}

impl Gcc {
    pub fn boxed(p: &mut Params) -> std::result::Result<Box<dyn Generator>, BadKey> {
        let fill = p.fill(0.2, 0.25)?;
        let mean = p.size("file_size", 16 << 10, BLOCK, BLOCK, 64 << 20)?;
        let binaries = p.count("binaries", 3, 1, 64)?;
        let long_lived = p.share("long_lived", 0.0)?;
        let keep_builds = p.count("long_lived_builds", 4, 1, 64)?;
        let tree = p.share_of_region(fill);
        if tree < 16 * mean {
            return Err(p.too_small("the source tree must hold at least 16 files of file_size"));
        }
        // The last source may pass the tree's size by one file; objects are at most twice the
        // sources, binaries a quarter of the objects (plus a block each). The long-lived files
        // of `keep_builds` builds, each build's at most its share of the tree and one file.
        let cap = (64 * mean).min(tree / 16);
        let long = if long_lived > 0.0 {
            keep_builds * ((long_lived * (tree + cap) as f64) as u64 + cap)
        } else {
            0
        };
        let peak = (tree + cap) / 2 * 7 + binaries * BLOCK + long;
        if peak > p.len {
            return Err(p.too_small(
                "a build takes up to 3.5 times the source tree, besides the long-lived files of long_lived_builds builds",
            ));
        }
        let sigma = 1.0f64;
        let mu = (mean as f64).ln() - sigma * sigma / 2.0;
        let size = rand_distr::LogNormal::new(mu, sigma).expect("finite parameters");
        let rng = p.rng();
        // The first long-lived file's size, drawn from its own stream so that the builds
        // draw as they do without long-lived files.
        let mut long_rng = p.rng();
        long_rng.jump();
        let next_long = draw_size(size.sample(&mut long_rng), cap);
        Ok(Box::new(Gcc {
            fs: p.file_system()?,
            rng,
            long_rng,
            size,
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
            long_lived,
            keep_builds,
            owed: 0.0,
            next_long,
            long: VecDeque::new(),
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
                if self.copied == 0 {
                    // A build starts: the long-lived files of `keep_builds` builds ago go.
                    while let Some(&(b, id)) = self.long.front() {
                        if b + self.keep_builds > self.iterations {
                            break;
                        }
                        self.fs.delete(id, out);
                        self.long.pop_front();
                    }
                }
                let size = draw_size(self.size.sample(&mut self.rng), self.cap);
                let id = self.whole(SOURCE_STREAM, size, out)?;
                self.sources.push(id);
                self.copied += size;
                if self.long_lived > 0.0 {
                    self.owed += size as f64 * self.long_lived;
                    if self.owed >= self.next_long as f64 {
                        self.owed -= self.next_long as f64;
                        let id = self.whole(LONG_LIVED_STREAM, self.next_long, out)?;
                        self.long.push_back((self.iterations, id));
                        self.next_long = draw_size(self.size.sample(&mut self.long_rng), self.cap);
                    }
                }
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
        let files = 2 * (self.tree + self.cap) / BLOCK
            + self.binaries as u64
            + 64
            + (self.keep_builds as f64 * self.long_lived * (self.tree + self.cap) as f64 / BLOCK as f64) as u64;
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

    #[test]
    fn long_lived_files_interleave_with_the_sources_and_outlive_their_builds() {
        let j = job(
            "app = \"gcc\"\nlong_lived = 0.25\nlong_lived_builds = 2",
            "128MiB",
            "number_ios = 300000\noffset = \"64MiB\"",
        );
        let reqs = requests(&j, 6, usize::MAX);
        assert_well_formed(&reqs, 64 << 20, 128 << 20);
        // Per build (which ends with the trims of its own files): source bytes written,
        // long-lived bytes written and trimmed, and whether it has read yet.
        let (mut src, mut written, mut trimmed) = (vec![0u64], vec![0u64], vec![0u64]);
        let (mut build, mut in_clean, mut read) = (0usize, false, false);
        for r in &reqs {
            let own_trim = r.op == Op::Trim && r.stream != LONG_LIVED_STREAM;
            if in_clean && !own_trim {
                build += 1;
                src.push(0);
                written.push(0);
                trimmed.push(0);
                (in_clean, read) = (false, false);
            }
            in_clean |= own_trim;
            match (r.op, r.stream) {
                (Op::Read, _) => read = true,
                (Op::Write, SOURCE_STREAM) => src[build] += r.len,
                (Op::Write, LONG_LIVED_STREAM) => {
                    assert!(!read, "long-lived files are written while the sources are copied");
                    assert!(src[build] > 0, "after a source");
                    written[build] += r.len;
                }
                (Op::Trim, LONG_LIVED_STREAM) => {
                    assert_eq!(src[build], 0, "deleted as a build starts");
                    trimmed[build] += r.len;
                }
                _ => {}
            }
        }
        assert!(build >= 5, "{build} builds");
        let tree = (128u64 << 20) / 5 / BLOCK * BLOCK;
        let cap = (64 * (16u64 << 10)).min(tree / 16);
        let mut owed = 0.0;
        for k in 0..build {
            // A quarter of the sources, the part not yet a whole file carried over.
            owed += 0.25 * src[k] as f64 - written[k] as f64;
            assert!((0.0..cap as f64).contains(&owed), "build {k}: {owed} owed");
            assert!(written[k] > 0);
            // Deleted whole as the build two later starts; none before.
            let due = if k >= 2 { written[k - 2] } else { 0 };
            assert_eq!(trimmed[k], due, "build {k}");
        }
        // Without the key, no stream 4 and the same first build's sources.
        let plain = requests(
            &job("app = \"gcc\"", "128MiB", "number_ios = 300000\noffset = \"64MiB\""),
            6,
            usize::MAX,
        );
        assert!(plain.iter().all(|r| r.stream != LONG_LIVED_STREAM));
        let first = plain.iter().position(|r| r.op == Op::Read).unwrap();
        let plain_src: u64 = plain[..first].iter().map(|r| r.len).sum();
        assert_eq!(plain_src, src[0]);
    }

    #[test]
    fn long_lived_files_must_fit_beside_the_builds() {
        let j = job("app = \"gcc\"\nfill = 0.25\nlong_lived = 0.5", "128MiB", "");
        let e = super::super::check(&j, j.fs.as_ref().unwrap(), 1 << 30).unwrap_err();
        assert_eq!(e.key, "size");
        assert!(e.msg.contains("long_lived_builds"), "{}", e.msg);
        let j = job("app = \"gcc\"\nlong_lived = 1.5", "128MiB", "");
        let e = super::super::check(&j, j.fs.as_ref().unwrap(), 1 << 30).unwrap_err();
        assert_eq!(e.key, "fs.long_lived");
    }
}
