//! The bytes a served device holds, by logical address: what the last write left there, zeros
//! where nothing was written or after a trim or a write of zeros. The flash model moves pages
//! (GC, wear leveling, any FTL scheme) without changing what a logical address reads, so the
//! data is kept by logical address beside the simulation: in memory, 4 KiB blocks allocated
//! on first write up to a limit, or in a sparse backing file.

use crate::{Error, Result};
use std::collections::HashMap;
use std::os::unix::fs::FileExt;

/// Block size of the in-memory store.
pub const BLOCK: u64 = 4096;

enum Store {
    Memory {
        blocks: HashMap<u64, Box<[u8]>>,
        limit_blocks: u64,
    },
    File(std::fs::File, String),
}

/// A device's contents.
pub struct BlockData {
    size: u64,
    store: Store,
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

    /// In the file at `path`, created or truncated to `size` bytes (sparse where the file
    /// system allows).
    pub fn in_file(size: u64, path: &str) -> Result<BlockData> {
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(|e| Error::io(path, e))?;
        f.set_len(size).map_err(|e| Error::io(path, e))?;
        Ok(BlockData {
            size,
            store: Store::File(f, path.to_string()),
        })
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// Bytes of memory the written blocks take (0 for a file).
    pub fn resident_bytes(&self) -> u64 {
        match &self.store {
            Store::Memory { blocks, .. } => blocks.len() as u64 * BLOCK,
            Store::File(..) => 0,
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
            Store::File(f, path) => f.write_all_at(data, offset).map_err(|e| Error::io(path.as_str(), e)),
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
            Store::File(f, path) => f.read_exact_at(buf, offset).map_err(|e| Error::io(path.as_str(), e)),
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
    /// freed.
    pub fn zero(&mut self, offset: u64, len: u64) -> Result<()> {
        self.check(offset, len)?;
        match &mut self.store {
            Store::File(f, path) => {
                let zeros = vec![0u8; (1 << 20).min(len) as usize];
                let mut done = 0u64;
                while done < len {
                    let n = (len - done).min(zeros.len() as u64) as usize;
                    f.write_all_at(&zeros[..n], offset + done)
                        .map_err(|e| Error::io(path.as_str(), e))?;
                    done += n as u64;
                }
                Ok(())
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

    #[test]
    fn file_store_reads_back_what_writes_and_zeros_left() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("data");
        model_check(
            BlockData::in_file(256 * 1024 + 100, p.to_str().unwrap()).unwrap(),
            256 * 1024 + 100,
        );
        // Sparse where the file system allows, and exactly the device's size.
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 256 * 1024 + 100);
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
