//! Address-only binary traces (CloudPhysics w106 style): one 32-bit block key per access, no
//! operation and no time. Each key is read as a 4 KiB read of block `key` (offset
//! `key * 4096`), device 0, and the record index as its time in nanoseconds.
//!
//! `keys` reads little-endian keys: on the w106 sample, consecutive accesses read as
//! little-endian give consecutive block numbers (0x0009c83d, 0x0009c83e), which big-endian
//! decoding scatters. `keys-be` reads big-endian keys.

use super::input::{Input, RecordStream, StreamError};
use super::{Format, FormatInfo, TraceRecord};
use crate::Op;
use std::io::{self, Read};

/// Block size of a key.
pub const KEY_BLOCK: u64 = 4096;

pub(crate) const KEYS: FormatInfo = FormatInfo {
    format: Format::Keys,
    name: "keys",
    description: "binary little-endian u32 block keys (4 KiB blocks), all reads, time = index (ns)",
    layout: "4-byte little-endian block keys",
    rebase: false,
    open: |i| {
        Ok(Box::new(KeyStream {
            input: i,
            index: 0,
            big_endian: false,
            done: false,
        }))
    },
};

pub(crate) const KEYS_BE: FormatInfo = FormatInfo {
    format: Format::KeysBe,
    name: "keys-be",
    description: "binary big-endian u32 block keys (4 KiB blocks), all reads, time = index (ns)",
    layout: "4-byte big-endian block keys",
    rebase: false,
    open: |i| {
        Ok(Box::new(KeyStream {
            input: i,
            index: 0,
            big_endian: true,
            done: false,
        }))
    },
};

struct KeyStream {
    input: Input,
    index: u64,
    big_endian: bool,
    done: bool,
}

impl RecordStream for KeyStream {
    fn next_record(&mut self) -> Option<Result<TraceRecord, StreamError>> {
        if self.done {
            return None;
        }
        let mut b = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match self.input.read(&mut b[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(StreamError::Fatal(e)));
                }
            }
        }
        if got == 0 {
            return None;
        }
        self.index += 1;
        if got < 4 {
            self.done = true;
            return Some(Err(StreamError::Bad {
                line: self.index,
                err: super::parse::LineError::new(
                    "key",
                    format!("truncated: the file ends {got} byte(s) into this key"),
                    "whole 4-byte keys",
                ),
            }));
        }
        let key = if self.big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        };
        Some(Ok(TraceRecord {
            time_ns: self.index - 1,
            device: 0,
            op: Op::Read,
            offset: key as u64 * KEY_BLOCK,
            len: KEY_BLOCK,
        }))
    }

    fn line(&self) -> u64 {
        self.index
    }
}
