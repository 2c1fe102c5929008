//! The bytes a served device holds, by logical address: what the last write left there, zeros
//! where nothing was written or after a trim or a write of zeros. The flash model moves pages
//! (GC, wear leveling, any FTL scheme) without changing what a logical address reads, so the
//! data is kept by logical address beside the simulation: in memory, 4 KiB blocks allocated
//! on first write up to a limit, or in a backing file (or block device) that outlives the
//! session: an existing file's bytes are the device's, a trim punches a hole in it.

use crate::{Error, Result};
use rustix::fs::{FallocateFlags, FlockOperation, SeekFrom};
use rustix::io::Errno;
use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::{FileExt, FileTypeExt};
use std::path::Path;

/// Block size of the in-memory store, and the alignment of the holes a trim punches.
pub const BLOCK: u64 = 4096;

/// Largest write of zeros at once where holes cannot be punched.
const ZERO_CHUNK: u64 = 1 << 20;

enum Store {
    Memory {
        blocks: HashMap<u64, Box<[u8]>>,
        limit_blocks: u64,
    },
    File {
        file: File,
        path: String,
        /// Zeros become holes; off once the file system says it cannot punch them.
        punch: bool,
    },
}

/// A device's contents.
pub struct BlockData {
    size: u64,
    store: Store,
}

/// What [`BlockData::in_file`] found (or, for [`BlockData::check_file`], would find) at the
/// path, and did with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backing {
    /// Nothing was there: a new file of the device's size, all holes.
    Created,
    /// A file or block device of the device's size: its bytes are the device's.
    Kept,
    /// A regular file of another size, resized as asked (grown with holes, or cut).
    Resized { from: u64 },
}

/// One line saying what is wrong with `path` as a backing file.
fn bad(path: &str, what: impl std::fmt::Display) -> Error {
    Error::Config(format!("{path}: {what}"))
}

fn io_bad(path: &str, e: impl Into<std::io::Error>) -> Error {
    bad(
        path,
        format_args!("{}; expected a file this process can read and write", e.into()),
    )
}

/// What kind of file the metadata describes, for messages.
fn kind(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else {
        "not a regular file"
    }
}

/// Take the exclusive lock that keeps a second server off the same data.
fn lock(file: &File, path: &str) -> Result<()> {
    match rustix::fs::flock(file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(()),
        Err(Errno::WOULDBLOCK) => Err(bad(
            path,
            "in use by another server (locked); expected a file no other server holds",
        )),
        Err(e) => Err(io_bad(path, e)),
    }
}

/// Zeros over `from..to` of `file`, written only where the file holds data: a hole reads
/// as zeros already. A file system that cannot tell holes from data has none.
fn write_zeros(file: &File, from: u64, to: u64) -> std::io::Result<()> {
    let mut zeros = Vec::new();
    let mut at = from;
    while at < to {
        let data = match rustix::fs::seek(file, SeekFrom::Data(at)) {
            Ok(d) => d,
            // No data at or after `at`.
            Err(Errno::NXIO) => return Ok(()),
            Err(_) => at,
        };
        if data >= to {
            return Ok(());
        }
        let hole = match rustix::fs::seek(file, SeekFrom::Hole(data)) {
            Ok(h) if h > data => h.min(to),
            _ => to,
        };
        let mut done = data;
        while done < hole {
            let n = (hole - done).min(ZERO_CHUNK);
            zeros.resize(n as usize, 0);
            file.write_all_at(&zeros, done)?;
            done += n;
        }
        at = hole;
    }
    Ok(())
}

impl BlockData {
    /// In memory, holding at most `limit` bytes of written blocks.
    pub fn in_memory(size: u64, limit: u64) -> BlockData {
        BlockData {
            size,
            store: Store::Memory {
                blocks: HashMap::new(),
                limit_blocks: limit / BLOCK,
            },
        }
    }

    /// In the file (or block device) at `path`, which keeps its contents: created at `size`
    /// bytes (all holes) if missing; kept if it has `size` bytes; resized to `size` if it is a
    /// regular file of another size and `resize` says so, refused otherwise with an error
    /// that names `resize_flag`. Anything but a regular file or block device is refused
    /// untouched, and so is a file another server holds (an exclusive lock, kept while the
    /// store lives). Errors read `PATH: what; expected WHAT`: the caller puts its key before.
    pub fn in_file(size: u64, path: &str, resize: bool, resize_flag: &str) -> Result<(BlockData, Backing)> {
        let (file, backing) = open_backing(size, path, resize, resize_flag, true)?;
        let file = file.expect("opened for use");
        Ok((
            BlockData {
                size,
                store: Store::File {
                    file,
                    path: path.to_string(),
                    punch: true,
                },
            },
            backing,
        ))
    }

    /// What [`BlockData::in_file`] would do with `path`, or its error, changing nothing (a
    /// missing file is not created, none is resized): a front end's check before it starts
    /// a server.
    pub fn check_file(size: u64, path: &str, resize: bool, resize_flag: &str) -> Result<Backing> {
        open_backing(size, path, resize, resize_flag, false).map(|(_, b)| b)
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Bytes of memory the written blocks take (0 for a file).
    pub fn resident_bytes(&self) -> u64 {
        match &self.store {
            Store::Memory { blocks, .. } => blocks.len() as u64 * BLOCK,
            Store::File { .. } => 0,
        }
    }

    fn check(&self, offset: u64, len: u64) -> Result<()> {
        match offset.checked_add(len) {
            Some(end) if end <= self.size => Ok(()),
            _ => Err(Error::Invalid(format!(
                "data: {len} bytes at {offset}; expected a range within the device's {} bytes",
                self.size
            ))),
        }
    }

    /// `data` at `offset`.
    pub fn write(&mut self, offset: u64, data: &[u8]) -> Result<()> {
        self.check(offset, data.len() as u64)?;
        match &mut self.store {
            Store::File { file, path, .. } => file.write_all_at(data, offset).map_err(|e| Error::io(path.as_str(), e)),
            Store::Memory { blocks, limit_blocks } => {
                let mut done = 0usize;
                while done < data.len() {
                    let at = offset + done as u64;
                    let (b, within) = (at / BLOCK, (at % BLOCK) as usize);
                    let n = (BLOCK as usize - within).min(data.len() - done);
                    if !blocks.contains_key(&b) && blocks.len() as u64 >= *limit_blocks {
                        return Err(Error::Invalid(format!(
                            "data: the in-memory store is full ({} bytes written); expected a larger memory limit or a backing file",
                            *limit_blocks * BLOCK
                        )));
                    }
                    let block = blocks
                        .entry(b)
                        .or_insert_with(|| vec![0u8; BLOCK as usize].into_boxed_slice());
                    block[within..within + n].copy_from_slice(&data[done..done + n]);
                    done += n;
                }
                Ok(())
            }
        }
    }

    /// The bytes at `offset` into `buf`.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.check(offset, buf.len() as u64)?;
        match &self.store {
            Store::File { file, path, .. } => file.read_exact_at(buf, offset).map_err(|e| Error::io(path.as_str(), e)),
            Store::Memory { blocks, .. } => {
                let mut done = 0usize;
                while done < buf.len() {
                    let at = offset + done as u64;
                    let (b, within) = (at / BLOCK, (at % BLOCK) as usize);
                    let n = (BLOCK as usize - within).min(buf.len() - done);
                    match blocks.get(&b) {
                        Some(block) => buf[done..done + n].copy_from_slice(&block[within..within + n]),
                        None => buf[done..done + n].fill(0),
                    }
                    done += n;
                }
                Ok(())
            }
        }
    }

    /// Zeros over `len` bytes at `offset` (a trim, or a write of zeros): whole blocks are
    /// freed; in a file, a hole is punched over the whole 4 KiB blocks and the edges are
    /// written as zeros (all of it written, holes skipped, where the file system cannot punch).
    pub fn zero(&mut self, offset: u64, len: u64) -> Result<()> {
        self.check(offset, len)?;
        match &mut self.store {
            Store::File { file, path, punch } => {
                let end = offset + len;
                let (a, b) = (offset.next_multiple_of(BLOCK), end / BLOCK * BLOCK);
                let whole = if *punch && a < b {
                    match rustix::fs::fallocate(
                        &*file,
                        FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE,
                        a,
                        b - a,
                    ) {
                        Ok(()) => Some((a, b)),
                        Err(Errno::OPNOTSUPP | Errno::NOSYS) => {
                            *punch = false;
                            None
                        }
                        Err(e) => return Err(Error::io(path.as_str(), e.into())),
                    }
                } else {
                    None
                };
                let r = match whole {
                    Some((a, b)) => write_zeros(file, offset, a).and_then(|_| write_zeros(file, b, end)),
                    None => write_zeros(file, offset, end),
                };
                r.map_err(|e| Error::io(path.as_str(), e))
            }
            Store::Memory { blocks, .. } => {
                let end = offset + len;
                let mut at = offset;
                while at < end {
                    let (b, within) = (at / BLOCK, at % BLOCK);
                    let n = (BLOCK - within).min(end - at);
                    if n == BLOCK {
                        blocks.remove(&b);
                    } else if let Some(block) = blocks.get_mut(&b) {
                        block[within as usize..(within + n) as usize].fill(0);
                    }
                    at += n;
                }
                Ok(())
            }
        }
    }
}

impl BlockData {
    /// Make what was written durable (a client's flush): the file's data reaches its disk.
    pub fn flush(&self) -> Result<()> {
        match &self.store {
            Store::File { file, path, .. } => file.sync_data().map_err(|e| Error::io(path.as_str(), e)),
            Store::Memory { .. } => Ok(()),
        }
    }

    /// Whether the data is in a file (whose writes a flush makes durable).
    pub fn is_file(&self) -> bool {
        matches!(self.store, Store::File { .. })
    }
}

/// Open (`use_it`) or only inspect the backing file at `path`: see [`BlockData::in_file`].
fn open_backing(
    size: u64,
    path: &str,
    resize: bool,
    resize_flag: &str,
    use_it: bool,
) -> Result<(Option<File>, Backing)> {
    let open = || {
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| io_bad(path, e))
    };
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A link to nothing: creating "it" would fail (the link is there) or create a file
            // somewhere else than the path says.
            if let Ok(to) = std::fs::read_link(path) {
                return Err(bad(
                    path,
                    format_args!(
                        "a link to {}, which does not exist; expected a data file, or a path for a new one",
                        to.display()
                    ),
                ));
            }
            let parent = Path::new(path).parent().filter(|p| !p.as_os_str().is_empty());
            if let Some(dir) = parent.filter(|d| !d.is_dir()) {
                return Err(bad(
                    path,
                    format_args!(
                        "no directory {}; expected a file in a directory that exists",
                        dir.display()
                    ),
                ));
            }
            if !use_it {
                return Ok((None, Backing::Created));
            }
            // New, so no one else's file is ever replaced.
            let file = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create_new(true)
                .open(path)
                .map_err(|e| io_bad(path, e))?;
            let sized = lock(&file, path).and_then(|_| file.set_len(size).map_err(|e| io_bad(path, e)));
            if let Err(e) = sized {
                drop(file);
                let _ = std::fs::remove_file(path);
                return Err(e);
            }
            return Ok((Some(file), Backing::Created));
        }
        Err(e) => return Err(io_bad(path, e)),
    };
    let t = meta.file_type();
    if !t.is_file() && !t.is_block_device() {
        return Err(bad(
            path,
            format_args!(
                "{}; expected a regular file or a block device to keep the device's {size} bytes in",
                kind(t)
            ),
        ));
    }
    let file = open()?;
    lock(&file, path)?;
    let len = if t.is_block_device() {
        rustix::fs::seek(&file, SeekFrom::End(0)).map_err(|e| io_bad(path, e))?
    } else {
        meta.len()
    };
    let backing = if len == size {
        Backing::Kept
    } else if t.is_block_device() {
        return Err(bad(
            path,
            format_args!(
                "a block device of {len} bytes, the device has {size}; expected a block device of exactly the device's size"
            ),
        ));
    } else if !resize {
        return Err(bad(
            path,
            format_args!(
                "{len} bytes, the device has {size}; expected a file of the device's size, or {resize_flag} to resize it (its bytes past the device's size are lost)"
            ),
        ));
    } else {
        if use_it {
            file.set_len(size).map_err(|e| io_bad(path, e))?;
        }
        Backing::Resized { from: len }
    };
    Ok((use_it.then_some(file), backing))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same operations on a plain byte vector: what every store must read back.
    fn model_check(mut d: BlockData, size: u64) {
        assert_eq!(d.size(), size);
        let size = size as usize;
        let mut model = vec![0u8; size];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..3000 {
            let off = (next() % size as u64) as usize;
            let len = 1 + (next() % 9000) as usize;
            let len = len.min(size - off);
            match next() % 3 {
                0 => {
                    let data: Vec<u8> = (0..len).map(|k| (i as u8) ^ (k as u8)).collect();
                    d.write(off as u64, &data).unwrap();
                    model[off..off + len].copy_from_slice(&data);
                }
                1 => {
                    d.zero(off as u64, len as u64).unwrap();
                    model[off..off + len].fill(0);
                }
                _ => {
                    let mut buf = vec![0xAAu8; len];
                    d.read(off as u64, &mut buf).unwrap();
                    assert_eq!(buf, &model[off..off + len], "read {len} at {off} after {i} operations");
                }
            }
        }
        let mut all = vec![0u8; size];
        d.read(0, &mut all).unwrap();
        assert!(all == model, "the whole device");
    }

    #[test]
    fn memory_store_reads_back_what_writes_and_zeros_left() {
        model_check(BlockData::in_memory(256 * 1024 + 100, 1 << 30), 256 * 1024 + 100);
    }

    fn file_store(dir: &tempfile::TempDir, size: u64) -> (BlockData, String) {
        let p = dir.path().join("data").display().to_string();
        let (d, b) = BlockData::in_file(size, &p, false, "--resize").unwrap();
        assert_eq!(b, Backing::Created);
        (d, p)
    }

    /// 512-byte units the file takes on its disk.
    fn allocated(path: &str) -> u64 {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).unwrap().blocks()
    }

    #[test]
    fn file_store_reads_back_what_writes_and_zeros_left() {
        let dir = tempfile::tempdir().unwrap();
        let (d, p) = file_store(&dir, 256 * 1024 + 100);
        model_check(d, 256 * 1024 + 100);
        // Sparse where the file system allows, and exactly the device's size.
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 256 * 1024 + 100);
    }

    #[test]
    fn file_store_without_holes_reads_back_what_writes_and_zeros_left() {
        let dir = tempfile::tempdir().unwrap();
        let (mut d, _) = file_store(&dir, 256 * 1024 + 100);
        if let Store::File { punch, .. } = &mut d.store {
            *punch = false;
        }
        model_check(d, 256 * 1024 + 100);
    }

    #[test]
    fn a_trim_punches_a_hole_and_writes_only_the_unaligned_edges() {
        let dir = tempfile::tempdir().unwrap();
        let (mut d, p) = file_store(&dir, 8 << 20);
        assert_eq!(allocated(&p), 0, "a new file is all holes");
        d.write(0, &vec![0xab; 4 << 20]).unwrap();
        d.flush().unwrap();
        let full = allocated(&p);
        assert!(full >= (4 << 20) / 512, "{full}");
        // 2 MiB from 100 bytes into block 10: blocks 11..=521 become a hole.
        let (at, len) = (10 * BLOCK + 100, 2 << 20);
        d.zero(at, len).unwrap();
        d.flush().unwrap();
        assert!(
            matches!(d.store, Store::File { punch: true, .. }),
            "this file system punches holes"
        );
        let freed = full - allocated(&p);
        assert!(freed >= (len - 2 * BLOCK) / 512, "{freed} units freed of {full}");
        let mut back = vec![0u8; 4 << 20];
        d.read(0, &mut back).unwrap();
        let (at, end) = (at as usize, (at + len) as usize);
        assert!(back[..at].iter().all(|&b| b == 0xab), "before the trim");
        assert!(back[at..end].iter().all(|&b| b == 0), "the trimmed range");
        assert!(back[end..].iter().all(|&b| b == 0xab), "after the trim");
    }

    #[test]
    fn without_holes_zeros_are_written_only_where_data_is() {
        let dir = tempfile::tempdir().unwrap();
        let (mut d, p) = file_store(&dir, 8 << 20);
        if let Store::File { punch, .. } = &mut d.store {
            *punch = false;
        }
        d.write(1 << 20, &[7u8; 65536]).unwrap();
        d.flush().unwrap();
        let before = allocated(&p);
        d.zero(0, 8 << 20).unwrap();
        d.flush().unwrap();
        // The 64 KiB written are zeros now; the holes around it stay holes.
        assert_eq!(allocated(&p), before);
        let mut back = vec![1u8; 8 << 20];
        d.read(0, &mut back).unwrap();
        assert!(back.iter().all(|&b| b == 0));
    }

    #[test]
    fn an_existing_file_of_the_right_size_keeps_its_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("disk.img").display().to_string();
        let mut bytes = vec![0u8; 1 << 20];
        bytes[..9].copy_from_slice(b"precious\n");
        bytes[(1 << 20) - 4..].copy_from_slice(b"tail");
        std::fs::write(&p, &bytes).unwrap();
        assert_eq!(
            BlockData::check_file(1 << 20, &p, false, "--resize").unwrap(),
            Backing::Kept
        );
        let (mut d, b) = BlockData::in_file(1 << 20, &p, false, "--resize").unwrap();
        assert_eq!(b, Backing::Kept);
        let mut back = vec![0u8; 1 << 20];
        d.read(0, &mut back).unwrap();
        assert!(back == bytes);
        d.write(4096, b"new").unwrap();
        drop(d);
        bytes[4096..4099].copy_from_slice(b"new");
        assert!(
            std::fs::read(&p).unwrap() == bytes,
            "a second session sees the first's writes"
        );
    }

    /// A link to a file that does not exist is refused by the check and by the open alike,
    /// and nothing is created where it points.
    #[test]
    fn a_dangling_link_is_refused_before_anything_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("disk.img").display().to_string();
        std::os::unix::fs::symlink("nowhere.img", &p).unwrap();
        let expected =
            format!("{p}: a link to nowhere.img, which does not exist; expected a data file, or a path for a new one");
        assert_eq!(
            BlockData::check_file(1 << 20, &p, false, "-").unwrap_err().to_string(),
            expected
        );
        assert_eq!(
            BlockData::in_file(1 << 20, &p, false, "-").err().unwrap().to_string(),
            expected
        );
        assert!(!dir.path().join("nowhere.img").exists());
    }

    #[test]
    fn a_file_of_another_size_is_refused_untouched_unless_resizing_is_asked() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("disk.img").display().to_string();
        std::fs::write(&p, b"precious\n").unwrap();
        for check in [true, false] {
            let e = if check {
                BlockData::check_file(1 << 20, &p, false, "--data-resize").unwrap_err()
            } else {
                BlockData::in_file(1 << 20, &p, false, "--data-resize").err().unwrap()
            };
            assert_eq!(
                e.to_string(),
                format!("{p}: 9 bytes, the device has 1048576; expected a file of the device's size, or --data-resize to resize it (its bytes past the device's size are lost)")
            );
            assert_eq!(std::fs::read(&p).unwrap(), b"precious\n");
        }
        assert_eq!(
            BlockData::check_file(1 << 20, &p, true, "-").unwrap(),
            Backing::Resized { from: 9 }
        );
        assert_eq!(std::fs::read(&p).unwrap(), b"precious\n", "a check changes nothing");
        let (d, b) = BlockData::in_file(1 << 20, &p, true, "-").unwrap();
        assert_eq!((b, d.size()), (Backing::Resized { from: 9 }, 1 << 20));
        let mut back = vec![1u8; 1 << 20];
        d.read(0, &mut back).unwrap();
        assert_eq!(&back[..9], b"precious\n");
        assert!(back[9..].iter().all(|&b| b == 0));
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 1 << 20);
    }

    #[test]
    fn a_missing_file_is_created_only_for_use_and_a_held_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("disk.img").display().to_string();
        assert_eq!(
            BlockData::check_file(1 << 20, &p, false, "-").unwrap(),
            Backing::Created
        );
        assert!(!Path::new(&p).exists(), "a check creates nothing");
        let (_held, _) = BlockData::in_file(1 << 20, &p, false, "-").unwrap();
        for e in [
            BlockData::check_file(1 << 20, &p, false, "-").unwrap_err(),
            BlockData::in_file(1 << 20, &p, false, "-").err().unwrap(),
        ] {
            assert_eq!(
                e.to_string(),
                format!("{p}: in use by another server (locked); expected a file no other server holds")
            );
        }
        let nowhere = dir.path().join("no/such/dir/disk.img").display().to_string();
        let e = BlockData::check_file(1 << 20, &nowhere, false, "-")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no directory") && e.ends_with("expected a file in a directory that exists"),
            "{e}"
        );
    }

    #[test]
    fn what_is_not_a_regular_file_or_block_device_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        let e = BlockData::in_file(1 << 20, &d, true, "-").err().unwrap().to_string();
        assert_eq!(
            e,
            format!(
                "{d}: a directory; expected a regular file or a block device to keep the device's 1048576 bytes in"
            )
        );
        let e = BlockData::check_file(1 << 20, "/dev/null", true, "-")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("/dev/null: a character device; expected"), "{e}");
    }

    #[test]
    fn whole_blocks_zeroed_are_freed_and_the_limit_holds() {
        let mut d = BlockData::in_memory(64 * BLOCK, 2 * BLOCK);
        d.write(100, &[1u8; 5000]).unwrap(); // blocks 0 and 1
        assert_eq!(d.resident_bytes(), 2 * BLOCK);
        let e = d.write(2 * BLOCK, &[1]).unwrap_err().to_string();
        assert!(e.contains("store is full") && e.contains("8192 bytes"), "{e}");
        d.zero(0, 2 * BLOCK).unwrap();
        assert_eq!(d.resident_bytes(), 0);
        d.write(10 * BLOCK, &[7]).unwrap();
        assert_eq!(d.resident_bytes(), BLOCK);
        // A partial zero keeps the block.
        d.zero(10 * BLOCK + 1, 10).unwrap();
        assert_eq!(d.resident_bytes(), BLOCK);
        let e = d.read(64 * BLOCK - 1, &mut [0u8; 2]).unwrap_err().to_string();
        assert!(e.contains("within the device's 262144 bytes"), "{e}");
        assert!(d.write(u64::MAX, &[1]).is_err());
    }
}
