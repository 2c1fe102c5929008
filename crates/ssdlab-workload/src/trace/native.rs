//! The native binary trace format, written by `ssdlab trace convert --to native`.
//!
//! Layout: a 16-byte header — magic `SSDLABTR`, version byte (1), 7 reserved zero bytes —
//! then one variable-length record per request. Every field is stored as the zigzag-encoded
//! wrapping difference to the previous record (time to previous time, device to previous
//! device, offset to the previous record's end, length to previous length), in as few
//! little-endian bytes as it needs. A record is a 16-bit little-endian descriptor followed by
//! the field bytes in this order: time, device, offset, length.
//!
//! Descriptor bits: 0–1 op (0 read, 1 write, 2 trim); 2–5 time byte count (0–8); 6–7 device
//! byte class (0, 1, 2 or 4 bytes); 8–11 offset byte count (0–8); 12–15 length byte count
//! (0–8). A count of 0 means a difference of 0: same time, same device, sequential offset,
//! same length. The "previous record" of the first one is all zeros.
//!
//! Byte counts in the descriptor make decoding branch-light (one unaligned load and a mask
//! per field), which is what makes it parse much faster than text. A stream ends at end of
//! file; a partial record is an error.

use super::input::{Input, RecordStream, StreamError};
use super::writer::TraceWriter;
use super::{Format, FormatInfo, TraceRecord};
use crate::{Error, Op, Result};
use std::io::{self, Read, Write};

/// File magic.
pub const MAGIC: &[u8; 8] = b"SSDLABTR";
/// Current version.
pub const VERSION: u8 = 1;
const HEADER_LEN: usize = 16;

pub(crate) const NATIVE: FormatInfo = FormatInfo {
    format: Format::Native,
    name: "native",
    description: "ssdlab native binary trace (magic SSDLABTR, delta-encoded records)",
    layout: "native records (see docs/traces.md)",
    rebase: false,
    open: open_native,
};

#[derive(Default, Clone, Copy)]
struct Prev {
    time: u64,
    device: u32,
    end: u64,
    len: u64,
}

#[inline]
fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}
#[inline]
fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Bytes needed for `v` (0 for 0).
#[inline]
fn byte_len(v: u64) -> u32 {
    (64 - v.leading_zeros()).div_ceil(8)
}

/// Device byte classes.
const DEV_BYTES: [usize; 4] = [0, 1, 2, 4];

fn open_native(mut input: Input) -> io::Result<Box<dyn RecordStream>> {
    let mut h = [0u8; HEADER_LEN];
    input.read_exact(&mut h).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("header: the file is shorter than the {HEADER_LEN}-byte header; expected an ssdlab native trace"),
        )
    })?;
    if &h[..8] != MAGIC {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "header: bad magic; expected SSDLABTR (an ssdlab native trace)",
        ));
    }
    if h[8] != VERSION {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "header: native trace version {} is not supported; expected {VERSION}",
                h[8]
            ),
        ));
    }
    Ok(Box::new(NativeStream {
        input,
        // Larger than the input's buffer, so reads go straight into it.
        buf: vec![0; 1 << 20],
        pos: 0,
        end: 0,
        eof: false,
        prev: Prev::default(),
        batch: Vec::with_capacity(BATCH),
        next: 0,
        returned: 0,
        error: None,
        io_error: None,
        done: false,
    }))
}

/// Longest encoded record (descriptor + 8 + 4 + 8 + 8 bytes), and the slack that lets each
/// field be read with one 8-byte load.
const MAX_RECORD: usize = 2 + 8 + 4 + 8 + 8 + 8;
/// Records decoded per batch.
const BATCH: usize = 1024;

struct NativeStream {
    input: Input,
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    prev: Prev,
    /// Decoded records not yet returned, and the next one to return.
    batch: Vec<TraceRecord>,
    next: usize,
    /// Records returned so far.
    returned: u64,
    /// A corrupt record found after the batch: (record number, message).
    error: Option<(u64, String)>,
    /// An input error met while batching, reported by the next `next_record`.
    io_error: Option<io::Error>,
    done: bool,
}

/// Masks keeping the low `n` bytes, n = 0..=8.
const MASKS: [u64; 9] = [
    0,
    0xff,
    0xffff,
    0xff_ffff,
    0xffff_ffff,
    0xff_ffff_ffff,
    0xffff_ffff_ffff,
    0xff_ffff_ffff_ffff,
    u64::MAX,
];

/// `n` (<= 8) little-endian bytes at `p`; `buf` must hold 8 bytes from `p`.
#[inline(always)]
fn load(buf: &[u8], p: usize, n: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&buf[p..p + 8]);
    u64::from_le_bytes(w) & MASKS[n]
}

/// Operation of each 2-bit code (3 is invalid and rejected before use).
const OPS: [Op; 4] = [Op::Read, Op::Write, Op::Trim, Op::Read];

/// Decode one record at `*pos`; `buf` must hold [`MAX_RECORD`] bytes from `*pos` (zero padded
/// past the real data, which the caller checks against the returned position).
#[inline(always)]
fn decode(buf: &[u8], pos: &mut usize, prev: &mut Prev) -> std::result::Result<TraceRecord, &'static str> {
    let p = *pos;
    let d = u16::from_le_bytes([buf[p], buf[p + 1]]);
    let nt = ((d >> 2) & 15) as usize;
    let nd = DEV_BYTES[((d >> 6) & 3) as usize];
    let no = ((d >> 8) & 15) as usize;
    let nl = ((d >> 12) & 15) as usize;
    if (d & 3 == 3) | (nt > 8) | (no > 8) | (nl > 8) {
        return Err(if d & 3 == 3 {
            "bad operation code 3"
        } else {
            "bad field size in record descriptor"
        });
    }
    let op = OPS[(d & 3) as usize];
    let mut q = p + 2;
    let time_ns = prev.time.wrapping_add(unzigzag(load(buf, q, nt)) as u64);
    q += nt;
    let device = prev.device.wrapping_add(unzigzag(load(buf, q, nd)) as u32);
    q += nd;
    let offset = prev.end.wrapping_add(unzigzag(load(buf, q, no)) as u64);
    q += no;
    let len = prev.len.wrapping_add(unzigzag(load(buf, q, nl)) as u64);
    q += nl;
    *pos = q;
    *prev = Prev {
        time: time_ns,
        device,
        end: offset.wrapping_add(len),
        len,
    };
    Ok(TraceRecord {
        time_ns,
        device,
        op,
        offset,
        len,
    })
}

impl NativeStream {
    /// Make sure at least [`MAX_RECORD`] bytes are buffered unless at end of input.
    fn refill(&mut self) -> io::Result<()> {
        if self.end - self.pos >= MAX_RECORD || self.eof {
            return Ok(());
        }
        self.buf.copy_within(self.pos..self.end, 0);
        self.end -= self.pos;
        self.pos = 0;
        while self.end < self.buf.len() {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    break;
                }
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Decode the next batch of records.
    fn fill_batch(&mut self) -> io::Result<()> {
        self.batch.clear();
        self.next = 0;
        while self.batch.len() < BATCH {
            self.refill()?;
            if self.pos == self.end {
                break;
            }
            let mut failed = None;
            if self.end - self.pos >= MAX_RECORD {
                // Fast path: a whole record (plus load slack) is surely buffered.
                let mut pos = self.pos;
                let mut prev = self.prev;
                let limit = self.end - MAX_RECORD;
                let buf = &self.buf[..self.end];
                while pos <= limit && self.batch.len() < BATCH {
                    match decode(buf, &mut pos, &mut prev) {
                        Ok(r) => self.batch.push(r),
                        Err(m) => {
                            failed = Some(m);
                            break;
                        }
                    }
                }
                self.pos = pos;
                self.prev = prev;
            } else {
                // Tail of the file: decode from a zero-padded copy.
                let avail = self.end - self.pos;
                let mut tmp = [0u8; 2 * MAX_RECORD];
                tmp[..avail].copy_from_slice(&self.buf[self.pos..self.end]);
                let mut pos = 0;
                let mut prev = self.prev;
                if avail < 2 {
                    failed = Some("truncated record");
                } else {
                    match decode(&tmp, &mut pos, &mut prev) {
                        Ok(_) if pos > avail => failed = Some("truncated record"),
                        Ok(r) => {
                            self.batch.push(r);
                            self.pos += pos;
                            self.prev = prev;
                        }
                        Err(m) => failed = Some(m),
                    }
                }
            }
            if let Some(m) = failed {
                let n = self.returned + self.batch.len() as u64 + 1;
                self.error = Some((n, m.to_string()));
                break;
            }
        }
        Ok(())
    }
}

/// A corrupt record (the line number is the record number).
#[cold]
fn record_error(msg: String) -> super::parse::LineError {
    super::parse::LineError::new("record", msg, "a native record (see docs/traces.md)")
}

impl RecordStream for NativeStream {
    #[inline]
    fn next_record(&mut self) -> Option<std::result::Result<TraceRecord, StreamError>> {
        if self.next == self.batch.len() {
            if let Some(e) = self.io_error.take() {
                return Some(Err(StreamError::Fatal(e)));
            }
            if self.done {
                return None;
            }
            if let Some((line, msg)) = self.error.take() {
                // Records have no resynchronisation point: stop after a corrupt one.
                self.done = true;
                return Some(Err(StreamError::Bad {
                    line,
                    err: record_error(msg),
                }));
            }
            if let Err(e) = self.fill_batch() {
                self.done = true;
                return Some(Err(StreamError::Fatal(e)));
            }
            if self.batch.is_empty() {
                if let Some((line, msg)) = self.error.take() {
                    self.done = true;
                    return Some(Err(StreamError::Bad {
                        line,
                        err: record_error(msg),
                    }));
                }
                self.done = true;
                return None;
            }
        }
        let r = self.batch[self.next];
        self.next += 1;
        self.returned += 1;
        Some(Ok(r))
    }

    fn line(&self) -> u64 {
        self.returned
    }

    fn take_batch(&mut self, out: &mut Vec<TraceRecord>) -> bool {
        if self.next == self.batch.len() {
            if self.done || self.error.is_some() {
                return false;
            }
            if let Err(e) = self.fill_batch() {
                self.done = true;
                self.error = None;
                self.io_error = Some(e);
                return false;
            }
        }
        if self.next == self.batch.len() {
            return false;
        }
        if self.next == 0 {
            // Hand the whole batch over without copying; `out` becomes the next batch buffer.
            std::mem::swap(out, &mut self.batch);
            self.batch.clear();
            self.next = 0;
        } else {
            out.clear();
            out.extend_from_slice(&self.batch[self.next..]);
            self.next = self.batch.len();
        }
        self.returned += out.len() as u64;
        true
    }
}

/// Writes the native format.
pub struct NativeWriter {
    out: Box<dyn Write + Send>,
    name: String,
    prev: Prev,
    buf: Vec<u8>,
}

impl NativeWriter {
    pub fn new(mut out: Box<dyn Write + Send>, name: &str) -> Result<NativeWriter> {
        let mut h = [0u8; HEADER_LEN];
        h[..8].copy_from_slice(MAGIC);
        h[8] = VERSION;
        out.write_all(&h).map_err(|e| Error::io(name, e))?;
        Ok(NativeWriter {
            out,
            name: name.to_string(),
            prev: Prev::default(),
            buf: Vec::with_capacity(1 << 16),
        })
    }

    fn put(&mut self, v: u64, n: usize) {
        self.buf.extend_from_slice(&v.to_le_bytes()[..n]);
    }
}

impl TraceWriter for NativeWriter {
    fn flush(&mut self) -> Result<()> {
        self.out.write_all(&self.buf).map_err(|e| Error::io(&self.name, e))?;
        self.buf.clear();
        self.out.flush().map_err(|e| Error::io(&self.name, e))
    }

    fn write_record(&mut self, r: &TraceRecord) -> Result<bool> {
        if matches!(r.op, Op::Zone(..)) {
            return Ok(false);
        }
        let p = self.prev;
        let t = zigzag(r.time_ns.wrapping_sub(p.time) as i64);
        let dv = zigzag(r.device.wrapping_sub(p.device) as i32 as i64);
        let o = zigzag(r.offset.wrapping_sub(p.end) as i64);
        let l = zigzag(r.len.wrapping_sub(p.len) as i64);
        let (nt, no, nl) = (byte_len(t), byte_len(o), byte_len(l));
        let dclass = match byte_len(dv) {
            0 => 0u16,
            1 => 1,
            2 => 2,
            _ => 3,
        };
        let op = match r.op {
            Op::Read => 0u16,
            Op::Write | Op::Append => 1,
            Op::Trim | Op::Zone(..) => 2,
        };
        let d = op | (nt as u16) << 2 | dclass << 6 | (no as u16) << 8 | (nl as u16) << 12;
        self.buf.extend_from_slice(&d.to_le_bytes());
        self.put(t, nt as usize);
        self.put(dv, DEV_BYTES[dclass as usize]);
        self.put(o, no as usize);
        self.put(l, nl as usize);
        self.prev = Prev {
            time: r.time_ns,
            device: r.device,
            end: r.offset.wrapping_add(r.len),
            len: r.len,
        };
        if self.buf.len() >= (1 << 16) - MAX_RECORD {
            self.out.write_all(&self.buf).map_err(|e| Error::io(&self.name, e))?;
            self.buf.clear();
        }
        Ok(true)
    }

    fn finish(&mut self) -> Result<()> {
        self.out.write_all(&self.buf).map_err(|e| Error::io(&self.name, e))?;
        self.buf.clear();
        self.out.flush().map_err(|e| Error::io(&self.name, e))
    }
}
