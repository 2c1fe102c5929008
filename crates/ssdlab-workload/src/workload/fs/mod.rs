//! Applications on a file system: generators that issue the block I/O an application running
//! on a file system with TRIM (discard) issues, through a small file layer.
//!
//! [`FileSystem`] lays files out as lists of extents in 4 KiB blocks over the job's region;
//! creating, appending, overwriting in place, reading and deleting a file give the block
//! requests (a delete gives TRIMs covering exactly the file's extents). Each application
//! (one file here, one line in [`REGISTRY`]) is a [`Generator`] that drives its own file system
//! and sizes its data set from the region and `fill`, so that the same run file works on a
//! 4 GiB and a 1 TiB device. [`make_source`] turns one into the request stream of a job clone.
//!
//! Adding an application = one file here (a type implementing [`Generator`] and a constructor
//! reading its keys through [`Params`]) plus one line in [`REGISTRY`] and its keys in
//! [`FsJob`].

mod fileserver;
mod fio;
mod gcc;
mod meta;
mod tpcc;
mod ycsb;

use crate::request::{Op, Request, RequestSource};
use crate::units::Size;
use crate::workload::job::{JobConfig, Limits, AHEAD};
use crate::{Error, Result};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use std::collections::{BTreeMap, VecDeque};

/// The file system's block: every extent, and so every request, is a multiple of it.
pub const BLOCK: u64 = 4096;

/// The largest request of sequential file I/O (a whole-file read or write is cut into
/// requests of at most this many bytes, as the block layer's request size limit does).
pub const SEQ_IO: u64 = 128 << 10;

pub use crate::workload::tables::{BadKey, Discard, FsJob};

/// What an application's constructor reads: the 4 KiB-aligned region, the seed and the keys
/// of `[job.fs]`. Reading a key marks it as the application's; a key set but never read is
/// an error. Every accessor checks the value and names the key when it is out of range.
pub struct Params<'a> {
    fs: &'a FsJob,
    used: Vec<&'static str>,
    /// First byte of the region (a multiple of [`BLOCK`]).
    pub start: u64,
    /// Bytes of the region (a multiple of [`BLOCK`]).
    pub len: u64,
    pub seed: u64,
}

impl Params<'_> {
    /// `fill`, default `default`, at most `max` (the application needs the rest of the region
    /// for what it writes besides its data set).
    pub fn fill(&mut self, default: f64, max: f64) -> std::result::Result<f64, BadKey> {
        self.used.push("fill");
        let v = self.fs.fill.unwrap_or(default);
        if !(v > 0.0 && v <= max) {
            return Err(BadKey::new(
                "fs.fill",
                format!(
                    "got {v}; expected a share of the region above 0 and at most {max} for application '{}'",
                    self.fs.app
                ),
            ));
        }
        Ok(v)
    }

    /// A share in [0, 1] (`read_share`, `long_lived`).
    pub fn share(&mut self, key: &'static str, default: f64) -> std::result::Result<f64, BadKey> {
        self.used.push(key);
        let v = match key {
            "read_share" => self.fs.read_share,
            "long_lived" => self.fs.long_lived,
            _ => unreachable!("{key} is not a share"),
        }
        .unwrap_or(default);
        if !(0.0..=1.0).contains(&v) {
            return Err(BadKey::new(
                &format!("fs.{key}"),
                format!("got {v}; expected a share from 0 to 1"),
            ));
        }
        Ok(v)
    }

    /// The zipf exponent `theta`: 0 (uniform) to 10.
    pub fn theta(&mut self, default: f64) -> std::result::Result<f64, BadKey> {
        self.used.push("theta");
        let v = self.fs.theta.unwrap_or(default);
        if !(0.0..=10.0).contains(&v) {
            return Err(BadKey::new(
                "fs.theta",
                format!("got {v}; expected a zipf exponent from 0 (uniform) to 10"),
            ));
        }
        Ok(v)
    }

    /// A size in bytes: a multiple of `multiple`, from `min` to `max`.
    pub fn size(
        &mut self,
        key: &'static str,
        default: u64,
        multiple: u64,
        min: u64,
        max: u64,
    ) -> std::result::Result<u64, BadKey> {
        self.used.push(key);
        let v = match key {
            "bs" => self.fs.bs,
            "log_size" => self.fs.log_size,
            "value_size" => self.fs.value_size,
            "memtable" => self.fs.memtable,
            "sst_size" => self.fs.sst_size,
            "file_size" => self.fs.file_size,
            "append_size" => self.fs.append_size,
            _ => unreachable!("{key} is not a size"),
        }
        .map_or(default, |s| s.0);
        let fmt = crate::units::fmt_size;
        if v < min || v > max || !v.is_multiple_of(multiple) {
            let of = match multiple {
                0 | 1 => "a size".to_string(),
                m => format!("a multiple of {}", fmt(m)),
            };
            return Err(BadKey::new(
                &format!("fs.{key}"),
                format!("got {}; expected {of} from {} to {}", fmt(v), fmt(min), fmt(max)),
            ));
        }
        Ok(v)
    }

    /// A whole number from `min` to `max`.
    pub fn count(&mut self, key: &'static str, default: u64, min: u64, max: u64) -> std::result::Result<u64, BadKey> {
        self.used.push(key);
        let v = match key {
            "checkpoint" => self.fs.checkpoint,
            "instances" => self.fs.instances,
            "binaries" => self.fs.binaries,
            "long_lived_builds" => self.fs.long_lived_builds,
            _ => unreachable!("{key} is not a count"),
        }
        .unwrap_or(default);
        if v < min || v > max {
            return Err(BadKey::new(
                &format!("fs.{key}"),
                format!("got {v}; expected {min} to {max}"),
            ));
        }
        Ok(v)
    }

    /// An error about the region being too small for what the application needs.
    pub fn too_small(&self, what: &str) -> BadKey {
        BadKey::new(
            "size",
            format!(
                "the job's region of {} is too small for application '{}' ({what}); expected a larger size or fill",
                crate::units::fmt_size(self.len),
                self.fs.app
            ),
        )
    }

    /// The application's random stream.
    pub fn rng(&self) -> Xoshiro256PlusPlus {
        Xoshiro256PlusPlus::seed_from_u64(self.seed)
    }

    /// An empty file system over the region, with its journal and metadata writes unless
    /// `metadata = false`, trimming deleted files as `discard` says.
    pub fn file_system(&mut self) -> std::result::Result<FileSystem, BadKey> {
        self.used.extend(["metadata", "discard", "fstrim_every"]);
        let mut fs = if self.fs.metadata.unwrap_or(true) {
            FileSystem::with_metadata(self.start, self.len)
        } else {
            FileSystem::new(self.start, self.len)
        };
        let discard = self.fs.discard.unwrap_or_default();
        let every = match (discard, self.fs.fstrim_every) {
            (Discard::Periodic, Some(Size(0))) => {
                return Err(BadKey::new(
                    "fs.fstrim_every",
                    "got 0; expected a positive size of new file data between two fstrims",
                ))
            }
            (Discard::Periodic, e) => e.map_or(fs.capacity().max(BLOCK), |e| e.0),
            (_, Some(_)) => {
                return Err(BadKey::new(
                    "fs.fstrim_every",
                    "set without discard = \"periodic\"; expected discard = \"periodic\" or no fstrim_every",
                ))
            }
            (_, None) => 0,
        };
        fs.set_discard(discard, every);
        Ok(fs)
    }

    /// `share` of the region, in whole blocks.
    pub fn share_of_region(&self, share: f64) -> u64 {
        ((self.len as f64 * share) as u64) / BLOCK * BLOCK
    }
}

/// One application on its file system: an endless stream of block requests.
pub trait Generator {
    /// Queue the application's next requests in `out`: none for an operation without I/O
    /// (the source steps again until it has requests enough).
    fn step(&mut self, out: &mut VecDeque<Request>) -> Result<()>;

    /// Bytes of host reads and writes a clone issues when the job gives no length
    /// (`io_size`, `number_ios`, `time_based`).
    fn default_bytes(&self) -> u64;

    /// An upper bound of the memory the generator holds (its file table, free-extent map,
    /// and the longest batch of requests it queues at once), for the run's estimate.
    fn memory(&self) -> u64;
}

/// Builds an application's generator from its parameters.
pub type Ctor = fn(&mut Params) -> std::result::Result<Box<dyn Generator>, BadKey>;

/// The applications: (name, description, constructor).
pub const REGISTRY: &[(&str, &str, Ctor)] = &[
    (
        "fio",
        "4 fio jobs on 4 files (1:10:30:64), random 4 KiB 50/50 read/write after a sequential layout",
        fio::Fio::boxed,
    ),
    (
        "tpcc",
        "TPC-C-like database: zipf page reads and updates, checkpoints, circular redo log",
        tpcc::Tpcc::boxed,
    ),
    (
        "ycsb",
        "YCSB-A on an LSM store: WAL, memtable flushes, leveled compaction, 50/50 zipf reads/updates",
        ycsb::Ycsb::boxed,
    ),
    (
        "fileserver",
        "Filebench fileserver: instances creating, appending, reading and deleting files",
        fileserver::FileServer::boxed,
    ),
    (
        "gcc",
        "kernel build: copy a source tree, compile to objects, link binaries, delete everything",
        gcc::Gcc::boxed,
    ),
];

/// The names of the applications, for messages.
pub fn app_names() -> Vec<&'static str> {
    REGISTRY.iter().map(|r| r.0).collect()
}

/// The generator of one clone of `job` (its region on a device of `capacity` bytes).
fn generator(job: &JobConfig, fs: &FsJob, capacity: u64, seed: u64) -> std::result::Result<Box<dyn Generator>, BadKey> {
    let Some((_, _, ctor)) = REGISTRY.iter().find(|r| r.0 == fs.app) else {
        return Err(BadKey::new(
            "fs.app",
            format!(
                "unknown application '{}'; expected one of {}",
                fs.app,
                app_names().join(", ")
            ),
        ));
    };
    let (off, len) = job.region(capacity).map_err(|m| BadKey::new("size", m))?;
    let start = off.next_multiple_of(BLOCK);
    let end = (off + len) / BLOCK * BLOCK;
    let mut p = Params {
        fs,
        used: Vec::new(),
        start,
        len: end.saturating_sub(start),
        seed,
    };
    if p.len < 64 * BLOCK {
        return Err(p.too_small("a file system needs at least 256 KiB"));
    }
    let g = ctor(&mut p)?;
    if let Some((k, _)) = fs.keys().into_iter().find(|(k, set)| *set && !p.used.contains(k)) {
        let mut mine = p.used.clone();
        mine.dedup();
        return Err(BadKey::new(
            &format!("fs.{k}"),
            format!(
                "not a key of application '{}'; expected one of {}",
                fs.app,
                mine.join(", ")
            ),
        ));
    }
    Ok(g)
}

/// Check `[job.fs]` of `job` against a device of `capacity` bytes (the application, its
/// keys, and that its data set fits the region).
pub fn check(job: &JobConfig, fs: &FsJob, capacity: u64) -> std::result::Result<(), BadKey> {
    generator(job, fs, capacity, 0).map(|_| ())
}

/// Memory one clone of the job holds at most, bytes.
pub fn memory_estimate(job: &JobConfig, fs: &FsJob, capacity: u64) -> u64 {
    generator(job, fs, capacity, 0).map_or(0, |g| g.memory()) + (AHEAD as u64 + 1) * 64
}

/// The request stream of one clone of `job` (seeded `seed`) running the application of its
/// `[job.fs]` table on a device of `capacity` bytes: closed loop (`time_ns` 0), requests in
/// 4 KiB blocks inside the job's region, streams as the application sets them (0 where it
/// sets none: the host gives those the job's `stream`). It ends as a fio-style job does
/// ([`Limits`]: `number_ios`, `io_size` bytes of reads and writes, `runtime`), or after the
/// application's default length.
pub fn make_source(job: &JobConfig, fs: &FsJob, capacity: u64, seed: u64) -> Result<Box<dyn RequestSource>> {
    let gen = generator(job, fs, capacity, seed)
        .map_err(|b| Error::Invalid(format!("job '{}': {}: {}", job.name, b.key, b.msg)))?;
    let limits = Limits::new(job, gen.default_bytes());
    Ok(Box::new(FsSource {
        gen,
        queue: VecDeque::with_capacity(4 * AHEAD),
        limits,
    }))
}

/// A generator behind the job's limits.
struct FsSource {
    gen: Box<dyn Generator>,
    queue: VecDeque<Request>,
    limits: Limits,
}

impl RequestSource for FsSource {
    fn next_request(&mut self, now_ns: u64) -> Result<Option<Request>> {
        if self.limits.reached(now_ns) {
            return Ok(None);
        }
        while self.queue.len() <= AHEAD {
            self.gen.step(&mut self.queue)?;
        }
        let r = self.queue.pop_front().expect("queued ahead");
        self.limits.count(if r.op == Op::Trim { 0 } else { r.len });
        Ok(Some(r))
    }

    fn upcoming(&self, k: usize) -> Option<u64> {
        self.queue.get(k).map(|r| r.offset)
    }
}

/// A run of blocks: byte offset on the device and length, both multiples of [`BLOCK`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    pub offset: u64,
    pub len: u64,
}

/// A file of a [`FileSystem`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileId(u32);

struct File {
    /// Extents in file order, adjacent ones merged.
    extents: Vec<Extent>,
    size: u64,
    stream: u32,
}

/// Files as lists of extents over the region `[start, start + len)`, allocated in 4 KiB
/// blocks next-fit over a map of free extents (the search goes on from where the last
/// allocation ended, wrapping around; a file takes as many free extents as it needs, so files
/// fragment as the free space does). Deterministic: the same calls give the same extents.
pub struct FileSystem {
    start: u64,
    len: u64,
    /// Free extents, offset → length; never two adjacent.
    free: BTreeMap<u64, u64>,
    free_bytes: u64,
    cursor: u64,
    files: Vec<Option<File>>,
    unused_ids: Vec<u32>,
    live: usize,
    /// The file system's own journal and metadata writes (None: data only).
    meta: Option<meta::Metadata>,
    discard: Discard,
    /// With [`Discard::Periodic`]: new file data between two fstrims, and since the last.
    fstrim_every: u64,
    appended_since_fstrim: u64,
    /// TRIM requests queued so far (deletes' or fstrims'), and fstrims run.
    pub trims: u64,
    pub fstrims: u64,
}

/// Bytes a file takes at most in the file table (its entry, an extent, a free extent beside
/// it), for estimates.
pub const FILE_BYTES: u64 = 48 + 16 + 64;

impl FileSystem {
    /// An empty file system over the whole blocks of `[start, start + len)`.
    pub fn new(start: u64, len: u64) -> FileSystem {
        let s = start.next_multiple_of(BLOCK);
        let e = (start + len) / BLOCK * BLOCK;
        let len = e.saturating_sub(s);
        let mut free = BTreeMap::new();
        if len > 0 {
            free.insert(s, len);
        }
        FileSystem {
            start: s,
            len,
            free,
            free_bytes: len,
            cursor: s,
            files: Vec::new(),
            unused_ids: Vec::new(),
            live: 0,
            meta: None,
            discard: Discard::Immediate,
            fstrim_every: 0,
            appended_since_fstrim: 0,
            trims: 0,
            fstrims: 0,
        }
    }

    /// A file system whose region starts with its journal and metadata blocks
    /// ([`meta::Metadata`]); creating, growing and deleting files adds their writes.
    pub fn with_metadata(start: u64, len: u64) -> FileSystem {
        let s = start.next_multiple_of(BLOCK);
        let e = (start + len) / BLOCK * BLOCK;
        let m = meta::Metadata::new(s, e.saturating_sub(s));
        let mut fs = FileSystem::new(m.end(), e.saturating_sub(m.end()));
        fs.meta = Some(m);
        fs
    }

    /// Blocks the journal and the checkpoints wrote so far.
    pub fn metadata_written(&self) -> (u64, u64) {
        self.meta
            .as_ref()
            .map_or((0, 0), |m| (m.journal_written, m.checkpoint_written))
    }

    pub fn capacity(&self) -> u64 {
        self.len
    }

    /// Trim deleted files as `discard` says; with [`Discard::Periodic`], an fstrim after
    /// every `every` bytes of new file data (positive).
    pub fn set_discard(&mut self, discard: Discard, every: u64) {
        self.discard = discard;
        self.fstrim_every = every;
    }

    /// fstrim: queue a TRIM of every free extent.
    fn fstrim(&mut self, out: &mut VecDeque<Request>) {
        self.fstrims += 1;
        for (&offset, &len) in &self.free {
            out.push_back(Request {
                time_ns: 0,
                op: Op::Trim,
                offset,
                len,
                stream: 0,
            });
        }
        self.trims += self.free.len() as u64;
    }
    pub fn free_bytes(&self) -> u64 {
        self.free_bytes
    }
    pub fn used_bytes(&self) -> u64 {
        self.len - self.free_bytes
    }
    /// Files that exist.
    pub fn files(&self) -> usize {
        self.live
    }
    /// Free extents (a fragmented free space has many).
    pub fn free_extents(&self) -> usize {
        self.free.len()
    }

    fn file(&self, id: FileId) -> &File {
        self.files[id.0 as usize].as_ref().expect("a live file")
    }

    /// A new empty file whose requests carry `stream`.
    pub fn create(&mut self, stream: u32) -> FileId {
        let f = File {
            extents: Vec::new(),
            size: 0,
            stream,
        };
        self.live += 1;
        let id = match self.unused_ids.pop() {
            Some(i) => {
                self.files[i as usize] = Some(f);
                FileId(i)
            }
            None => {
                self.files.push(Some(f));
                FileId(self.files.len() as u32 - 1)
            }
        };
        if let Some(m) = self.meta.as_mut() {
            m.touch(id.0, &[]);
        }
        id
    }

    pub fn size(&self, id: FileId) -> u64 {
        self.file(id).size
    }
    pub fn stream(&self, id: FileId) -> u32 {
        self.file(id).stream
    }
    pub fn extents(&self, id: FileId) -> &[Extent] {
        &self.file(id).extents
    }

    /// Take `want` bytes (at most) from the free extent `[off, off + flen)` at `at`, which lies
    /// inside it; returns the bytes taken.
    fn take(&mut self, off: u64, flen: u64, at: u64, want: u64) -> u64 {
        let end = off + flen;
        let take = want.min(end - at);
        self.free.remove(&off);
        if at > off {
            self.free.insert(off, at - off);
        }
        if at + take < end {
            self.free.insert(at + take, end - at - take);
        }
        self.free_bytes -= take;
        take
    }

    /// Grow file `id` by `bytes` (a positive multiple of [`BLOCK`]) and queue the writes of
    /// the new blocks, in requests of at most `max_io` bytes.
    pub fn append(&mut self, id: FileId, bytes: u64, max_io: u64, out: &mut VecDeque<Request>) -> Result<()> {
        if bytes == 0 || !bytes.is_multiple_of(BLOCK) {
            return Err(Error::Invalid(format!(
                "an append of {bytes} bytes; expected a positive multiple of {BLOCK}"
            )));
        }
        if bytes > self.free_bytes {
            return Err(Error::Invalid(format!(
                "the file system of {} bytes at offset {} is full: {bytes} bytes to write, {} free; expected a lower fill",
                self.len, self.start, self.free_bytes
            )));
        }
        let stream = self.file(id).stream;
        let mut need = bytes;
        while need > 0 {
            // Next fit: the free extent holding the cursor, else the next one, else the first.
            let (off, flen, at) = match self.free.range(..=self.cursor).next_back() {
                Some((&o, &l)) if o + l > self.cursor => (o, l, self.cursor),
                _ => match self
                    .free
                    .range(self.cursor..)
                    .next()
                    .or_else(|| self.free.iter().next())
                {
                    Some((&o, &l)) => (o, l, o),
                    None => unreachable!("free bytes counted but no free extent"),
                },
            };
            let took = self.take(off, flen, at, need);
            self.cursor = at + took;
            need -= took;
            let f = self.files[id.0 as usize].as_mut().expect("a live file");
            match f.extents.last_mut() {
                Some(last) if last.offset + last.len == at => last.len += took,
                _ => f.extents.push(Extent { offset: at, len: took }),
            }
            f.size += took;
            push_io(out, Op::Write, at, took, max_io, stream);
            if let Some(m) = self.meta.as_mut() {
                m.touch(id.0, &[Extent { offset: at, len: took }]);
            }
        }
        if self.cursor >= self.start + self.len {
            self.cursor = self.start;
        }
        if let Some(m) = self.meta.as_mut() {
            m.maybe_commit(out);
        }
        if self.discard == Discard::Periodic {
            self.appended_since_fstrim += bytes;
            if self.appended_since_fstrim >= self.fstrim_every {
                self.appended_since_fstrim = 0;
                self.fstrim(out);
            }
        }
        Ok(())
    }

    /// Queue `op` over bytes `[off, off + len)` of file `id`, in place, in requests of at
    /// most `max_io` bytes (a request never spans two extents).
    fn io(&self, op: Op, id: FileId, off: u64, len: u64, max_io: u64, out: &mut VecDeque<Request>) -> Result<()> {
        let f = self.file(id);
        if len == 0 || !off.is_multiple_of(BLOCK) || !len.is_multiple_of(BLOCK) || off + len > f.size {
            return Err(Error::Invalid(format!(
                "{} of bytes {off}..{} of a file of {} bytes; expected whole blocks inside the file",
                op.name(),
                off + len,
                f.size
            )));
        }
        let (mut skip, mut left) = (off, len);
        for e in &f.extents {
            if skip >= e.len {
                skip -= e.len;
                continue;
            }
            let n = (e.len - skip).min(left);
            push_io(out, op, e.offset + skip, n, max_io, f.stream);
            left -= n;
            skip = 0;
            if left == 0 {
                break;
            }
        }
        Ok(())
    }

    /// Queue reads of bytes `[off, off + len)` of file `id`.
    pub fn read(&self, id: FileId, off: u64, len: u64, max_io: u64, out: &mut VecDeque<Request>) -> Result<()> {
        self.io(Op::Read, id, off, len, max_io, out)
    }

    /// Queue writes over bytes `[off, off + len)` of file `id`, in place.
    pub fn overwrite(&self, id: FileId, off: u64, len: u64, max_io: u64, out: &mut VecDeque<Request>) -> Result<()> {
        self.io(Op::Write, id, off, len, max_io, out)
    }

    /// Delete file `id`: free its extents, with a TRIM of each queued if `discard` is
    /// immediate.
    pub fn delete(&mut self, id: FileId, out: &mut VecDeque<Request>) {
        let f = self.files[id.0 as usize].take().expect("a live file");
        self.live -= 1;
        self.unused_ids.push(id.0);
        for e in &f.extents {
            if self.discard == Discard::Immediate {
                out.push_back(Request {
                    time_ns: 0,
                    op: Op::Trim,
                    offset: e.offset,
                    len: e.len,
                    stream: f.stream,
                });
                self.trims += 1;
            }
            self.release(*e);
        }
        if let Some(m) = self.meta.as_mut() {
            m.touch(id.0, &f.extents);
            m.maybe_commit(out);
        }
    }

    /// Return an extent to the free map, merged with free neighbours.
    fn release(&mut self, e: Extent) {
        let (mut off, mut len) = (e.offset, e.len);
        if let Some((&po, &pl)) = self.free.range(..off).next_back() {
            debug_assert!(po + pl <= off, "freeing a free extent");
            if po + pl == off {
                self.free.remove(&po);
                off = po;
                len += pl;
            }
        }
        if let Some(nl) = self.free.remove(&(e.offset + e.len)) {
            len += nl;
        }
        self.free.insert(off, len);
        self.free_bytes += e.len;
    }

    /// Check the layout: free extents and the files' extents inside the region, in whole
    /// blocks, never overlapping one another, together covering the region exactly; free
    /// extents never adjacent; each file's size the sum of its extents.
    pub fn check(&self) -> std::result::Result<(), String> {
        let mut all: Vec<(u64, u64, Option<u32>)> = self.free.iter().map(|(&o, &l)| (o, l, None)).collect();
        let mut live = 0;
        for (i, f) in self.files.iter().enumerate() {
            let Some(f) = f else { continue };
            live += 1;
            let sum: u64 = f.extents.iter().map(|e| e.len).sum();
            if sum != f.size {
                return Err(format!("file {i}: size {} but extents of {sum} bytes", f.size));
            }
            all.extend(f.extents.iter().map(|e| (e.offset, e.len, Some(i as u32))));
        }
        if live != self.live {
            return Err(format!("{live} files, {} counted", self.live));
        }
        all.sort_unstable();
        let mut at = self.start;
        let mut prev_free = false;
        for &(o, l, owner) in &all {
            if o != at || l == 0 || !o.is_multiple_of(BLOCK) || !l.is_multiple_of(BLOCK) {
                return Err(format!(
                    "extent {o}+{l} ({owner:?}) expected at {at}: extents overlap or leave a hole"
                ));
            }
            if owner.is_none() && prev_free {
                return Err(format!("free extent at {o} adjacent to another"));
            }
            prev_free = owner.is_none();
            at = o + l;
        }
        if at != self.start + self.len {
            return Err(format!("extents end at {at}; expected {}", self.start + self.len));
        }
        let free: u64 = self.free.values().sum();
        if free != self.free_bytes {
            return Err(format!("{free} bytes free, {} counted", self.free_bytes));
        }
        Ok(())
    }

    /// Memory the file system holds with `files` files and as many free extents, bytes.
    pub fn memory(files: u64) -> u64 {
        files * FILE_BYTES + 4096
    }
}

/// Queue `op` over `[offset, offset + len)` in requests of at most `max_io` bytes.
fn push_io(out: &mut VecDeque<Request>, op: Op, offset: u64, len: u64, max_io: u64, stream: u32) {
    let max_io = max_io.max(BLOCK) / BLOCK * BLOCK;
    let mut o = offset;
    while o < offset + len {
        let n = (offset + len - o).min(max_io);
        out.push_back(Request {
            time_ns: 0,
            op,
            offset: o,
            len: n,
            stream,
        });
        o += n;
    }
}

/// `bytes` rounded up to whole blocks, at least one block.
pub fn round_up(bytes: u64) -> u64 {
    bytes.max(1).next_multiple_of(BLOCK)
}

/// A size drawn around `mean` bytes (rounded up to whole blocks, at most `cap`).
fn draw_size(x: f64, cap: u64) -> u64 {
    let b = if x.is_finite() && x > 0.0 { x as u64 } else { 1 };
    round_up(b.min(cap))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::workload::job::JobConfig;
    use crate::Request;
    use rand::Rng;

    fn drain(q: &mut VecDeque<Request>) -> Vec<Request> {
        q.drain(..).collect()
    }

    #[test]
    fn appends_allocate_next_fit_and_never_overlap() {
        let mut fs = FileSystem::new(1 << 20, 1 << 20); // 256 blocks
        let mut q = VecDeque::new();
        let a = fs.create(1);
        let b = fs.create(2);
        fs.append(a, 40 * BLOCK, SEQ_IO, &mut q).unwrap();
        let w = drain(&mut q);
        // 160 KiB as one 128 KiB and one 32 KiB write from the start, stream 1.
        assert_eq!(
            w.iter().map(|r| (r.offset, r.len, r.stream)).collect::<Vec<_>>(),
            vec![(1 << 20, SEQ_IO, 1), ((1 << 20) + SEQ_IO, 8 * BLOCK, 1)]
        );
        fs.append(b, 10 * BLOCK, SEQ_IO, &mut q).unwrap();
        fs.append(a, 10 * BLOCK, SEQ_IO, &mut q).unwrap();
        assert_eq!(
            fs.extents(b),
            &[Extent {
                offset: (1 << 20) + 40 * BLOCK,
                len: 10 * BLOCK
            }]
        );
        // a's second append follows b: two extents.
        assert_eq!(fs.extents(a).len(), 2);
        assert_eq!(fs.size(a), 50 * BLOCK);
        fs.check().unwrap();
        // Deleting b leaves a hole; next fit goes on after a, then wraps into the hole.
        q.clear();
        fs.delete(b, &mut q);
        let c = fs.create(3);
        fs.append(c, 200 * BLOCK, SEQ_IO, &mut q).unwrap();
        fs.check().unwrap();
        assert_eq!(
            fs.extents(c)[0].offset,
            (1 << 20) + 60 * BLOCK,
            "next fit after the last allocation"
        );
        assert_eq!(
            fs.extents(c)[1],
            Extent {
                offset: (1 << 20) + 40 * BLOCK,
                len: 4 * BLOCK
            }
        );
        assert_eq!(fs.free_bytes(), 6 * BLOCK);
        // Out of space is an error, and changes nothing.
        let e = fs.append(c, 7 * BLOCK, SEQ_IO, &mut q).unwrap_err().to_string();
        assert!(e.contains("is full") && e.contains("expected"), "{e}");
        fs.check().unwrap();
    }

    #[test]
    fn discard_decides_when_deleted_blocks_are_trimmed() {
        // Four files of 4 blocks, the second and third deleted: immediate trims their extents
        // at once; none never; periodic trims every free extent once 16 new blocks were
        // written since the last fstrim.
        let run = |d: Discard| {
            let mut fs = FileSystem::new(0, 64 * BLOCK);
            fs.set_discard(d, 16 * BLOCK);
            let mut q = VecDeque::new();
            let ids: Vec<FileId> = (0..4).map(|i| fs.create(i + 1)).collect();
            for &id in &ids {
                fs.append(id, 4 * BLOCK, SEQ_IO, &mut q).unwrap();
            }
            let first = drain(&mut q);
            fs.delete(ids[1], &mut q);
            fs.delete(ids[2], &mut q);
            let deletes = drain(&mut q);
            let id = fs.create(9);
            fs.append(id, BLOCK, SEQ_IO, &mut q).unwrap();
            let after = drain(&mut q);
            (fs, first, deletes, after)
        };
        let trims = |v: &[Request]| -> Vec<(u64, u64)> {
            v.iter()
                .filter(|r| r.op == Op::Trim)
                .map(|r| (r.offset / BLOCK, r.len / BLOCK))
                .collect()
        };
        let (fs, first, deletes, after) = run(Discard::Immediate);
        assert!(trims(&first).is_empty() && trims(&after).is_empty());
        assert_eq!(trims(&deletes), [(4, 4), (8, 4)]);
        assert_eq!((fs.trims, fs.fstrims), (2, 0));
        let (fs, first, deletes, after) = run(Discard::None);
        assert!(trims(&first).is_empty() && trims(&deletes).is_empty() && trims(&after).is_empty());
        assert_eq!((fs.trims, fs.fstrims), (0, 0));
        // The freed blocks are reused without a trim: next fit goes on from block 16.
        assert_eq!(after.iter().find(|r| r.op == Op::Write).unwrap().offset, 16 * BLOCK);
        // Periodic: the 16th block written (the fourth file's last) runs an fstrim of the free
        // space then (blocks 16..64); the deletes trim nothing; the next fstrim is 16 blocks
        // away.
        let (fs, first, deletes, after) = run(Discard::Periodic);
        assert_eq!(trims(&first), [(16, 48)]);
        assert!(trims(&deletes).is_empty() && trims(&after).is_empty());
        assert_eq!((fs.trims, fs.fstrims), (1, 1));
        // 15 more blocks reach the period again: the free space, now with the deleted files'
        // blocks, is trimmed extent by extent.
        let (mut fs, ..) = run(Discard::Periodic);
        let mut q = VecDeque::new();
        let id = fs.create(7);
        fs.append(id, 14 * BLOCK, SEQ_IO, &mut q).unwrap();
        assert!(trims(&drain(&mut q)).is_empty());
        fs.append(id, BLOCK, SEQ_IO, &mut q).unwrap();
        assert_eq!(trims(&drain(&mut q)), [(4, 8), (32, 32)]);
        assert_eq!(fs.fstrims, 2);
    }

    #[test]
    fn delete_trims_exactly_the_extents_and_frees_them() {
        let mut fs = FileSystem::new(0, 64 * BLOCK);
        let mut q = VecDeque::new();
        let ids: Vec<FileId> = (0..4).map(|i| fs.create(i + 1)).collect();
        // Interleaved appends fragment every file.
        for round in 0..3 {
            for &id in &ids {
                fs.append(id, (round + 1) * BLOCK, SEQ_IO, &mut q).unwrap();
            }
        }
        let before = fs.free_bytes();
        let ext: Vec<Extent> = fs.extents(ids[1]).to_vec();
        assert_eq!(ext.len(), 3);
        q.clear();
        fs.delete(ids[1], &mut q);
        let trims = drain(&mut q);
        assert!(trims.iter().all(|r| r.op == Op::Trim && r.stream == 2));
        assert_eq!(
            trims
                .iter()
                .map(|r| Extent {
                    offset: r.offset,
                    len: r.len
                })
                .collect::<Vec<_>>(),
            ext
        );
        assert_eq!(fs.free_bytes(), before + 6 * BLOCK);
        assert_eq!(fs.files(), 3);
        fs.check().unwrap();
        // Freeing every file coalesces the free space into one extent.
        for id in [ids[0], ids[2], ids[3]] {
            fs.delete(id, &mut q);
        }
        assert_eq!(fs.free_extents(), 1);
        assert_eq!(fs.free_bytes(), 64 * BLOCK);
        fs.check().unwrap();
    }

    #[test]
    fn reads_and_overwrites_map_file_offsets_across_extents() {
        let mut fs = FileSystem::new(0, 64 * BLOCK);
        let mut q = VecDeque::new();
        let a = fs.create(0);
        let b = fs.create(0);
        fs.append(a, 2 * BLOCK, SEQ_IO, &mut q).unwrap();
        fs.append(b, BLOCK, SEQ_IO, &mut q).unwrap();
        fs.append(a, 2 * BLOCK, SEQ_IO, &mut q).unwrap();
        q.clear();
        // File bytes 4K..12K: block 1 of the first extent, then the second extent's first block.
        fs.read(a, BLOCK, 2 * BLOCK, SEQ_IO, &mut q).unwrap();
        fs.overwrite(a, 3 * BLOCK, BLOCK, SEQ_IO, &mut q).unwrap();
        let r = drain(&mut q);
        assert_eq!(
            r.iter().map(|r| (r.op, r.offset, r.len)).collect::<Vec<_>>(),
            vec![
                (Op::Read, BLOCK, BLOCK),
                (Op::Read, 3 * BLOCK, BLOCK),
                (Op::Write, 4 * BLOCK, BLOCK)
            ]
        );
        assert!(
            fs.read(a, 2 * BLOCK, 3 * BLOCK, SEQ_IO, &mut q).is_err(),
            "past the end"
        );
        assert!(fs.read(a, 100, BLOCK, SEQ_IO, &mut q).is_err(), "unaligned");
    }

    #[test]
    fn random_churn_keeps_the_layout_consistent() {
        let mut fs = FileSystem::new(3 * BLOCK + 100, 1000 * BLOCK);
        assert_eq!(fs.capacity(), 1000 * BLOCK - BLOCK, "whole blocks only");
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let mut q = VecDeque::new();
        let mut live: Vec<FileId> = Vec::new();
        for i in 0..5000 {
            if live.is_empty() || rng.gen_bool(0.55) {
                let n = rng.gen_range(1..20) * BLOCK;
                if n <= fs.free_bytes() {
                    let id = if !live.is_empty() && rng.gen_bool(0.3) {
                        live[rng.gen_range(0..live.len())]
                    } else {
                        let id = fs.create(0);
                        live.push(id);
                        id
                    };
                    q.clear();
                    fs.append(id, n, SEQ_IO, &mut q).unwrap();
                    let total: u64 = q.iter().map(|r| r.len).sum();
                    assert_eq!(total, n);
                } else if let Some(pos) = (!live.is_empty()).then(|| rng.gen_range(0..live.len())) {
                    let id = live.swap_remove(pos);
                    q.clear();
                    let ext = fs.extents(id).to_vec();
                    fs.delete(id, &mut q);
                    assert_eq!(q.len(), ext.len());
                }
            } else {
                let id = live.swap_remove(rng.gen_range(0..live.len()));
                fs.delete(id, &mut q);
            }
            if i % 97 == 0 {
                fs.check().unwrap();
            }
        }
        fs.check().unwrap();
        assert!(fs.free_extents() > 1, "churn fragments the free space");
    }

    /// A job on `size` bytes of a device of 1 GiB, with `[job.fs]` from TOML text.
    /// A job running an application's data I/O alone (`metadata = false` unless `fs` says).
    pub(crate) fn job(fs: &str, size: &str, extra: &str) -> JobConfig {
        let meta = if fs.contains("metadata") {
            ""
        } else {
            "metadata = false\n"
        };
        let text = format!("size = \"{size}\"\n{extra}\n[fs]\n{fs}\n{meta}");
        toml::from_str(&text).unwrap()
    }

    /// The requests of a clone until it ends (at most `max`).
    pub(crate) fn requests(job: &JobConfig, seed: u64, max: usize) -> Vec<Request> {
        let mut s = make_source(job, job.fs.as_ref().unwrap(), 1 << 30, seed).unwrap();
        let mut v = Vec::new();
        while let Some(r) = s.next_request(0).unwrap() {
            v.push(r);
            if v.len() >= max {
                break;
            }
        }
        v
    }

    /// Requests in the region, whole aligned blocks, never empty.
    pub(crate) fn assert_well_formed(reqs: &[Request], start: u64, len: u64) {
        for r in reqs {
            assert!(
                r.len > 0 && r.len.is_multiple_of(BLOCK) && r.offset.is_multiple_of(BLOCK),
                "{r:?}"
            );
            assert!(r.offset >= start && r.offset + r.len <= start + len, "{r:?}");
            assert_eq!(r.time_ns, 0);
        }
    }

    #[test]
    fn every_application_is_deterministic_and_ends_at_io_size() {
        for (name, _, _) in REGISTRY {
            // Long enough to pass the load of every application (YCSB's load has no randomness).
            let j = job(&format!("app = \"{name}\""), "16MiB", "io_size = \"96MiB\"");
            let a = requests(&j, 7, usize::MAX);
            let b = requests(&j, 7, usize::MAX);
            assert!(a == b, "{name}: same seed, same requests");
            let long = job(&format!("app = \"{name}\""), "16MiB", "number_ios = 100000");
            assert!(
                requests(&long, 7, usize::MAX) != requests(&long, 8, usize::MAX),
                "{name}: another seed, other requests"
            );
            assert_well_formed(&a, 0, 16 << 20);
            let rw = |v: &[Request]| v.iter().filter(|r| r.op != Op::Trim).map(|r| r.len).sum::<u64>();
            let bytes = rw(&a);
            let last = a.iter().rev().find(|r| r.op != Op::Trim).unwrap().len;
            // It stops at the first request that reaches io_size (trims count no bytes).
            assert!(bytes >= 96 << 20 && bytes - last < 96 << 20, "{name}: {bytes}");
            // number_ios counts every request, trims too.
            let j = job(&format!("app = \"{name}\""), "16MiB", "number_ios = 1234");
            assert_eq!(requests(&j, 1, usize::MAX).len(), 1234, "{name}");
        }
    }

    #[test]
    fn default_length_and_runtime_follow_the_job_rule() {
        for (name, _, _) in REGISTRY {
            let j = job(&format!("app = \"{name}\""), "16MiB", "");
            let fsj = j.fs.as_ref().unwrap();
            let dflt = generator(&j, fsj, 1 << 30, 0).unwrap().default_bytes();
            assert!(dflt >= 2 * (16 << 20), "{name}: {dflt}");
            let reqs = requests(&j, 3, usize::MAX);
            let bytes: u64 = reqs.iter().filter(|r| r.op != Op::Trim).map(|r| r.len).sum();
            assert!(bytes >= dflt && bytes < dflt + SEQ_IO, "{name}: {bytes} for {dflt}");
            // A runtime stops the source at that simulated time.
            let j = job(
                &format!("app = \"{name}\""),
                "16MiB",
                "runtime = \"1ms\"\ntime_based = true",
            );
            let mut s = make_source(&j, j.fs.as_ref().unwrap(), 1 << 30, 1).unwrap();
            assert!(s.next_request(999_999).unwrap().is_some());
            assert!(s.next_request(1_000_000).unwrap().is_none());
        }
    }

    #[test]
    fn the_key_list_is_the_tables_keys() {
        let all = FsJob::KEYS.iter().map(|k| match *k {
            "app" => "app = \"fio\"".to_string(),
            k if ["fill", "read_share", "theta", "long_lived"].contains(&k) => format!("{k} = 0.5"),
            "metadata" => "metadata = true".to_string(),
            "discard" => "discard = \"periodic\"".to_string(),
            k => format!("{k} = 4096"),
        });
        let fs: FsJob = toml::from_str(&all.collect::<Vec<_>>().join("\n")).unwrap();
        let v = toml::Value::try_from(&fs).unwrap();
        let keys: Vec<&str> = v.as_table().unwrap().keys().map(|k| k.as_str()).collect();
        let mut want = FsJob::KEYS.to_vec();
        want.sort_unstable();
        assert_eq!(keys, want);
        assert!(fs.keys().iter().all(|(_, set)| *set));
        assert_eq!(fs.keys().map(|k| k.0), FsJob::KEYS[1..]);
    }

    #[test]
    fn keys_are_checked_per_application() {
        let bad = |fs: &str, size: &str| {
            let j = job(fs, size, "");
            check(&j, j.fs.as_ref().unwrap(), 1 << 30).unwrap_err()
        };
        let e = bad("app = \"x\"", "1GiB");
        assert_eq!(e.key, "fs.app");
        assert_eq!(
            e.msg,
            "unknown application 'x'; expected one of fio, tpcc, ycsb, fileserver, gcc"
        );
        let e = bad("app = \"fio\"\ntheta = 0.5", "1GiB");
        assert_eq!(e.key, "fs.theta");
        assert!(
            e.msg
                .starts_with("not a key of application 'fio'; expected one of fill, bs"),
            "{}",
            e.msg
        );
        let e = bad("app = \"tpcc\"\nfill = 1.0", "1GiB");
        assert_eq!(e.key, "fs.fill");
        assert!(e.msg.contains("; expected"), "{}", e.msg);
        let e = bad("app = \"fio\"\nbs = 1000", "1GiB");
        assert_eq!(e.key, "fs.bs");
        let e = bad("app = \"gcc\"\nfstrim_every = \"1GiB\"", "1GiB");
        assert_eq!(e.key, "fs.fstrim_every");
        assert!(e.msg.contains("without discard = \"periodic\"; expected"), "{}", e.msg);
        let e = bad("app = \"gcc\"\ndiscard = \"periodic\"\nfstrim_every = 0", "1GiB");
        assert_eq!(e.key, "fs.fstrim_every");
        for d in ["immediate", "periodic", "none"] {
            let j = job(&format!("app = \"gcc\"\ndiscard = \"{d}\""), "1GiB", "");
            assert_eq!(check(&j, j.fs.as_ref().unwrap(), 1 << 30), Ok(()), "{d}");
        }
        let e = bad("app = \"ycsb\"", "128KiB");
        assert_eq!(e.key, "size");
        assert!(e.msg.contains("too small") && e.msg.contains("; expected"), "{}", e.msg);
        for (name, _, _) in REGISTRY {
            let j = job(&format!("app = \"{name}\""), "4MiB", "");
            assert_eq!(check(&j, j.fs.as_ref().unwrap(), 1 << 30), Ok(()), "{name} on 4 MiB");
            let j = job(&format!("app = \"{name}\""), "1TiB", "");
            assert_eq!(check(&j, j.fs.as_ref().unwrap(), 1 << 41), Ok(()), "{name} on 1 TiB");
        }
    }
}
