//! fio iolog, versions 2 and 3 (fio's HOWTO, "Trace file format").
//!
//! v2: header `fio version 2 iolog`, then `filename action` (add, open, close) and
//! `filename action offset length` (read, write, trim, sync, datasync, wait) lines; `wait`
//! advances the time by `offset` microseconds (values below 100 are discarded, as fio does).
//! v3: header `fio version 3 iolog`, every line starts with a timestamp in microseconds since
//! the start of the run (fio writes it with `utime_since_now`); `wait` is not allowed.
//! The device is the index of the file in order of first appearance.

use super::input::LineDecoder;
use super::parse::{show, uint, unknown_op, Fields, LineError, LineResult, Sep};
use super::writer::TraceWriter;
use super::{text_opener, Format, FormatInfo, TraceRecord};
use crate::{Error, Op, Result};
use std::io::Write;

pub(crate) const FIO_IOLOG: FormatInfo = FormatInfo {
    format: Format::FioIolog,
    name: "fio-iolog",
    description: "fio iolog v2 (filename action offset length) or v3 (timestamp_us filename action offset length)",
    layout:
        "a `fio version 2 iolog` / `fio version 3 iolog` header, then `[timestamp_us] filename action [offset length]`",
    rebase: false,
    open: text_opener!(FioDecoder::default()),
};

/// Most distinct file names tracked, and most bytes of names kept (bound memory on hostile
/// input: 65,536 names of up to a whole line each would be 4 GiB).
const MAX_FILES: usize = 65_536;
const MAX_NAME_BYTES: usize = 16 << 20;

#[derive(Default)]
pub(crate) struct FioDecoder {
    version: Option<u8>,
    files: std::collections::HashMap<Vec<u8>, u32>,
    name_bytes: usize,
    time_ns: u64,
}

impl FioDecoder {
    fn file_index(&mut self, name: &[u8]) -> LineResult<u32> {
        if let Some(&i) = self.files.get(name) {
            return Ok(i);
        }
        if self.files.len() >= MAX_FILES || self.name_bytes + name.len() > MAX_NAME_BYTES {
            return Err(LineError::new(
                "filename",
                format!("'{}' is one file too many", show(name)),
                format!(
                    "at most {MAX_FILES} distinct file names of {} MiB in all",
                    MAX_NAME_BYTES >> 20
                ),
            ));
        }
        let i = self.files.len() as u32;
        self.name_bytes += name.len();
        self.files.insert(name.to_vec(), i);
        Ok(i)
    }
}

impl LineDecoder for FioDecoder {
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>> {
        let Some(version) = self.version else {
            self.version = Some(match line {
                b"fio version 2 iolog" => 2,
                b"fio version 3 iolog" => 3,
                _ => {
                    return Err(LineError::new(
                        "header",
                        format!("found '{}'", show(line)),
                        "the header `fio version 2 iolog` or `fio version 3 iolog`",
                    ))
                }
            });
            return Ok(None);
        };
        let mut f = Fields::new(line, Sep::Blank);
        if version == 3 {
            let us = uint(f.req("timestamp")?, "timestamp")?;
            self.time_ns = super::parse::mul(us, 1000, "timestamp")?;
        }
        let name = f.req("filename")?;
        let action = f.req("op")?;
        let op = match action {
            b"add" | b"open" | b"close" => {
                self.file_index(name)?;
                return Ok(None);
            }
            b"sync" | b"datasync" => return Ok(None),
            b"wait" if version == 2 => {
                let us = uint(f.req("wait")?, "wait")?;
                if us >= 100 {
                    self.time_ns = us
                        .checked_mul(1000)
                        .and_then(|ns| self.time_ns.checked_add(ns))
                        .ok_or_else(|| {
                            LineError::new(
                                "wait",
                                format!("waiting {us} us more overflows 64-bit nanoseconds"),
                                "a total wait below 2^64 ns",
                            )
                        })?;
                }
                return Ok(None);
            }
            b"read" => Op::Read,
            b"write" => Op::Write,
            b"trim" => Op::Trim,
            _ => {
                return Err(unknown_op(
                    action,
                    if version == 2 {
                        "add, open, close, read, write, trim, sync, datasync or wait"
                    } else {
                        "add, open, close, read, write, trim, sync or datasync"
                    },
                ))
            }
        };
        let device = self.file_index(name)?;
        let offset = uint(f.req("offset")?, "offset")?;
        let len = uint(f.req("size")?, "size")?;
        Ok(Some(TraceRecord {
            time_ns: self.time_ns,
            device,
            op,
            offset,
            len,
        }))
    }
}

/// Writes fio iolog v3: one file per device, named `{prefix}{device}`, added and opened on
/// first use and closed at the end; timestamps in microseconds.
pub struct FioWriter {
    out: Box<dyn Write + Send>,
    name: String,
    prefix: String,
    /// Devices in order of first use (closed in that order), and the same as a set.
    open: Vec<u32>,
    open_set: std::collections::HashSet<u32>,
    last_us: u64,
}

impl FioWriter {
    pub fn new(out: Box<dyn Write + Send>, name: &str, prefix: &str) -> Result<FioWriter> {
        let mut out: Box<dyn Write + Send> = Box::new(std::io::BufWriter::with_capacity(1 << 16, out));
        writeln!(out, "fio version 3 iolog").map_err(|e| Error::io(name, e))?;
        Ok(FioWriter {
            out,
            name: name.to_string(),
            prefix: prefix.to_string(),
            open: Vec::new(),
            open_set: Default::default(),
            last_us: 0,
        })
    }
}

impl TraceWriter for FioWriter {
    fn write_record(&mut self, r: &TraceRecord) -> Result<bool> {
        let us = r.time_ns / 1000;
        self.last_us = self.last_us.max(us);
        let io = |e| Error::io(&self.name, e);
        if !self.open_set.contains(&r.device) {
            if self.open.len() >= MAX_FILES {
                return Err(Error::Invalid(format!(
                    "{}: device: device {} would be file {} of the iolog; expected at most {MAX_FILES} devices (select some with --device)",
                    self.name,
                    r.device,
                    MAX_FILES + 1
                )));
            }
            self.open.push(r.device);
            self.open_set.insert(r.device);
            write!(
                self.out,
                "{us} {}{} add\n{us} {}{} open\n",
                self.prefix, r.device, self.prefix, r.device
            )
            .map_err(io)?;
        }
        let io = |e| Error::io(&self.name, e);
        writeln!(
            self.out,
            "{us} {}{} {} {} {}",
            self.prefix,
            r.device,
            r.op.name(),
            r.offset,
            r.len
        )
        .map_err(io)?;
        Ok(true)
    }

    fn finish(&mut self) -> Result<()> {
        for d in &self.open {
            writeln!(self.out, "{} {}{} close", self.last_us, self.prefix, d).map_err(|e| Error::io(&self.name, e))?;
        }
        self.out.flush().map_err(|e| Error::io(&self.name, e))
    }
}
