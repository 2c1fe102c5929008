//! The file system's own writes: a journal and metadata blocks, as ext4 issues them.
//!
//! The first blocks of a file system's region hold its metadata: a circular **journal**
//! (1/512 of the region, at least 16 blocks), **block bitmaps** (one block per 128 MiB of data:
//! 32,768 blocks of 4 KiB) and a **table** of inode and directory blocks (1/256 of the region,
//! at least 16 blocks; 16 inodes of 256 bytes per block, 64 files per directory). Creating,
//! growing or deleting a file dirties its inode block, its directory's block and the bitmap
//! blocks of the extents it takes or frees. Every `COMMIT_OPS` such operations the file system
//! commits (ext4's periodic commit): one sequential journal write of the dirty blocks plus a
//! descriptor and a commit block at the journal's head (wrapping around), then each dirty
//! block written in place (the checkpoint). These are the small, hot, in-place writes a file
//! system adds to an application's data; no application tags them with a stream.

use super::{push_io, Extent, BLOCK};
use crate::request::{Op, Request};
use std::collections::{BTreeSet, VecDeque};

/// Metadata-changing operations between two commits.
pub const COMMIT_OPS: u64 = 64;
/// Data bytes one bitmap block covers.
const BITMAP_SPAN: u64 = 8 * BLOCK * BLOCK;

#[derive(Clone, Debug)]
pub struct Metadata {
    /// First block of the journal, of the bitmaps, of the table (byte offsets).
    journal: u64,
    journal_blocks: u64,
    bitmaps: u64,
    bitmap_blocks: u64,
    table: u64,
    table_blocks: u64,
    /// Where the data area starts (bitmaps cover it from there).
    data: u64,
    /// Next journal block to write.
    head: u64,
    dirty: BTreeSet<u64>,
    ops: u64,
    /// Journal and checkpoint writes issued (blocks).
    pub journal_written: u64,
    pub checkpoint_written: u64,
}

impl Metadata {
    /// Metadata at the start of `[start, start + len)` (whole blocks); the data area is what
    /// follows [`Metadata::end`].
    pub fn new(start: u64, len: u64) -> Metadata {
        let blocks = len / BLOCK;
        let journal_blocks = (blocks / 512).max(16);
        let table_blocks = (blocks / 256).max(16);
        let bitmap_blocks = (len.div_ceil(BITMAP_SPAN)).max(1);
        let journal = start;
        let bitmaps = journal + journal_blocks * BLOCK;
        let table = bitmaps + bitmap_blocks * BLOCK;
        Metadata {
            journal,
            journal_blocks,
            bitmaps,
            bitmap_blocks,
            table,
            table_blocks,
            data: table + table_blocks * BLOCK,
            head: 0,
            dirty: BTreeSet::new(),
            ops: 0,
            journal_written: 0,
            checkpoint_written: 0,
        }
    }

    /// End of the metadata area (the data area's start).
    pub fn end(&self) -> u64 {
        self.data
    }

    /// File `id` was created, grown or deleted, taking or freeing `extents`.
    pub fn touch(&mut self, id: u32, extents: &[Extent]) {
        let id = id as u64;
        self.dirty.insert(self.table + (id / 16 % self.table_blocks) * BLOCK);
        // Directories from the table's other end.
        let dir = self.table_blocks - 1 - (id / 64 % self.table_blocks);
        self.dirty.insert(self.table + dir * BLOCK);
        for e in extents {
            let first = (e.offset - self.data) / BITMAP_SPAN;
            let last = (e.offset + e.len - 1 - self.data) / BITMAP_SPAN;
            for b in first..=last {
                self.dirty.insert(self.bitmaps + b.min(self.bitmap_blocks - 1) * BLOCK);
            }
        }
        self.ops += 1;
    }

    /// Commit when due: the journal write, then the checkpoint's in-place writes.
    pub fn maybe_commit(&mut self, out: &mut VecDeque<Request>) {
        if self.ops < COMMIT_OPS || self.dirty.is_empty() {
            return;
        }
        self.ops = 0;
        // Descriptor + blocks + commit, at the head, wrapping.
        let mut n = (self.dirty.len() as u64 + 2).min(self.journal_blocks);
        self.journal_written += n;
        while n > 0 {
            let run = n.min(self.journal_blocks - self.head);
            push_io(
                out,
                Op::Write,
                self.journal + self.head * BLOCK,
                run * BLOCK,
                128 << 10,
                0,
            );
            self.head = (self.head + run) % self.journal_blocks;
            n -= run;
        }
        // Checkpoint: adjacent dirty blocks in one request.
        let mut run: Option<(u64, u64)> = None;
        for b in std::mem::take(&mut self.dirty) {
            self.checkpoint_written += 1;
            run = match run {
                Some((o, l)) if o + l == b => Some((o, l + BLOCK)),
                Some((o, l)) => {
                    push_io(out, Op::Write, o, l, 128 << 10, 0);
                    Some((b, BLOCK))
                }
                None => Some((b, BLOCK)),
            };
        }
        if let Some((o, l)) = run {
            push_io(out, Op::Write, o, l, 128 << 10, 0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_write_the_journal_in_turn_then_the_dirty_blocks_in_place() {
        // 64 MiB: 16384 blocks; journal 32 blocks, 1 bitmap, table 64 blocks.
        let mut m = Metadata::new(1 << 20, 64 << 20);
        assert_eq!((m.journal_blocks, m.bitmap_blocks, m.table_blocks), (32, 1, 64));
        assert_eq!(m.end(), (1 << 20) + 97 * BLOCK);
        let data = m.end();
        let mut out = VecDeque::new();
        for id in 0..COMMIT_OPS as u32 - 1 {
            m.touch(
                id,
                &[Extent {
                    offset: data,
                    len: BLOCK,
                }],
            );
            m.maybe_commit(&mut out);
        }
        assert!(out.is_empty(), "no commit before {COMMIT_OPS} operations");
        m.touch(63, &[]);
        m.maybe_commit(&mut out);
        // Inodes 0..63: 4 inode blocks (table 0–3), one directory block (table 63), the bitmap.
        let dirty = 4 + 1 + 1;
        let w: Vec<(u64, u64)> = out.iter().map(|r| (r.offset, r.len)).collect();
        assert_eq!(
            w,
            vec![
                (1 << 20, (dirty + 2) * BLOCK),
                // The bitmap and the table's first four blocks are adjacent: one request.
                (m.bitmaps, 5 * BLOCK),
                (m.table + 63 * BLOCK, BLOCK)
            ]
        );
        assert!(out
            .iter()
            .all(|r| r.op == Op::Write && r.stream == 0 && r.offset + r.len <= data));
        assert_eq!((m.journal_written, m.checkpoint_written), (dirty + 2, dirty));
        // The journal wraps: 8 blocks used, 4 more commits of 8 take it round.
        out.clear();
        for _ in 0..4 {
            for id in 0..COMMIT_OPS as u32 {
                m.touch(id, &[]);
            }
            m.maybe_commit(&mut out);
        }
        let journal: Vec<(u64, u64)> = out
            .iter()
            .filter(|r| r.offset < m.bitmaps)
            .map(|r| ((r.offset - (1 << 20)) / BLOCK, r.len / BLOCK))
            .collect();
        // Each commit: 5 dirty (4 inodes, 1 directory) + 2 = 7 blocks from block 8 on.
        assert_eq!(journal, vec![(8, 7), (15, 7), (22, 7), (29, 3), (0, 4)]);
    }

    #[test]
    fn a_file_system_with_metadata_keeps_data_out_of_the_metadata_area() {
        use super::super::FileSystem;
        let mut fs = FileSystem::with_metadata(0, 64 << 20);
        let data = Metadata::new(0, 64 << 20).end();
        assert_eq!(fs.capacity(), (64 << 20) - data);
        let mut out = VecDeque::new();
        let mut files = Vec::new();
        for k in 0..200u32 {
            let f = fs.create(1 + k % 3);
            fs.append(f, BLOCK * (1 + k as u64 % 4), 128 << 10, &mut out).unwrap();
            files.push(f);
        }
        for f in files.drain(..100) {
            fs.delete(f, &mut out);
        }
        fs.check().unwrap();
        // 200 creates + 200 appends + 100 deletes: 500 operations, 7 commits.
        let (journal, checkpoint) = fs.metadata_written();
        assert!(journal > 7 * 2 && checkpoint > 7, "{journal} {checkpoint}");
        for r in &out {
            let meta = r.offset + r.len <= data;
            assert_eq!(meta, r.stream == 0, "{r:?}");
            assert!(meta || r.offset >= data, "{r:?}");
        }
        let meta_blocks: u64 = out.iter().filter(|r| r.stream == 0).map(|r| r.len / BLOCK).sum();
        assert_eq!(meta_blocks, journal + checkpoint);
    }
}
