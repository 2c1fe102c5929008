//! Simulator input formats: MQSim, SSDsim (ASCII and the tab-separated "original" form) and
//! DiskSim ASCII. All are blank-separated columns with sector (512-byte) addresses.

use super::input::LineDecoder;
use super::parse::{eq_ic, mul, time, uint, uint32, unknown_op, Fields, LineResult, Sep};
use super::{text_opener, Format, FormatInfo, TraceRecord};
use crate::Op;

/// MQSim trace: `arrival_ns device lba_sectors size_sectors type`, type 1 = read.
pub(crate) const MQSIM: FormatInfo = FormatInfo {
    format: Format::Mqsim,
    name: "mqsim",
    description: "MQSim trace: arrival_ns device lba_sectors size_sectors type (1 = read, 0 = write)",
    layout: "`arrival_ns device lba_sectors size_sectors type` with type 1 (read) or 0 (write)",
    rebase: false,
    open: text_opener!(SectorDecoder),
};

/// SSDsim ASCII: `arrival_ns device lsn size_sectors op`, op 1 = read (same layout as MQSim).
pub(crate) const SSDSIM: FormatInfo = FormatInfo {
    format: Format::Ssdsim,
    name: "ssdsim",
    description: "SSDsim ASCII: arrival_ns device lsn size_sectors op (1 = read, 0 = write)",
    layout: "`arrival_ns device lsn size_sectors op` with op 1 (read) or 0 (write)",
    rebase: false,
    open: text_opener!(SectorDecoder),
};

/// DiskSim ASCII: `time_ms devno blkno blocks flags`, flags bit 0 set = read.
pub(crate) const DISKSIM: FormatInfo = FormatInfo {
    format: Format::Disksim,
    name: "disksim",
    description: "DiskSim ASCII: time_ms devno blkno(512 B) blocks(512 B) flags (bit 0 = read)",
    layout: "`time_ms devno blkno blocks flags` (space or tab separated)",
    rebase: false,
    open: text_opener!(DisksimDecoder),
};

/// SSDsim-Original pre-processed traces (e.g. `fin1`), tab separated:
/// `index time_ns device asu Type lba_sectors size_sectors 1`; Type is Read or Write and the
/// ASU is the device (as in the SPC trace it comes from).
pub(crate) const SSDSIM_ORIGINAL: FormatInfo = FormatInfo {
    format: Format::SsdsimOriginal,
    name: "ssdsim-original",
    description: "SSDsim-Original: index time_ns device asu Type(Read/Write) lba_sectors size_sectors 1",
    layout: "`index time_ns device asu Type lba_sectors size_sectors 1` with Type Read or Write",
    rebase: false,
    open: text_opener!(OriginalDecoder),
};

/// `1` = read, `0` = write.
#[inline]
pub(crate) fn binary_op(f: &[u8]) -> LineResult<Op> {
    match f {
        b"1" => Ok(Op::Read),
        b"0" => Ok(Op::Write),
        _ => Err(unknown_op(f, "1 (read) or 0 (write)")),
    }
}

/// MQSim and SSDsim ASCII.
pub(crate) struct SectorDecoder;

impl LineDecoder for SectorDecoder {
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>> {
        let mut f = Fields::new(line, Sep::Blank);
        let time_ns = uint(f.req("timestamp")?, "timestamp")?;
        let device = uint32(f.req("device")?, "device")?;
        let lba = uint(f.req("offset")?, "offset")?;
        let size = uint(f.req("size")?, "size")?;
        let op = binary_op(f.req("op")?)?;
        Ok(Some(TraceRecord {
            time_ns,
            device,
            op,
            offset: mul(lba, 512, "offset")?,
            len: mul(size, 512, "size")?,
        }))
    }
}

pub(crate) struct DisksimDecoder;

impl LineDecoder for DisksimDecoder {
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>> {
        let mut f = Fields::new(line, Sep::Blank);
        let time_ns = time(f.req("timestamp")?, 1_000_000, "timestamp")?;
        let device = uint32(f.req("device")?, "device")?;
        let blk = uint(f.req("offset")?, "offset")?;
        let blocks = uint(f.req("size")?, "size")?;
        let flags = uint(f.req("op")?, "op")?;
        let op = if flags & 1 == 1 { Op::Read } else { Op::Write };
        Ok(Some(TraceRecord {
            time_ns,
            device,
            op,
            offset: mul(blk, 512, "offset")?,
            len: mul(blocks, 512, "size")?,
        }))
    }
}

pub(crate) struct OriginalDecoder;

impl LineDecoder for OriginalDecoder {
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>> {
        let mut f = Fields::new(line, Sep::Blank);
        uint(f.req("index")?, "index")?;
        let time_ns = uint(f.req("timestamp")?, "timestamp")?;
        uint32(f.req("device")?, "device")?;
        let device = uint32(f.req("asu")?, "asu")?;
        let ty = f.req("op")?;
        let op = if eq_ic(ty, "Read") || ty == b"R" || ty == b"r" {
            Op::Read
        } else if eq_ic(ty, "Write") || ty == b"W" || ty == b"w" {
            Op::Write
        } else {
            return Err(unknown_op(ty, "Read or Write"));
        };
        let lba = uint(f.req("offset")?, "offset")?;
        let size = uint(f.req("size")?, "size")?;
        Ok(Some(TraceRecord {
            time_ns,
            device,
            op,
            offset: mul(lba, 512, "offset")?,
            len: mul(size, 512, "size")?,
        }))
    }
}

/// Writes MQSim traces. Offsets are rounded down and ends up to 512-byte sectors; trims are
/// dropped (MQSim traces have no trim).
pub struct MqsimWriter {
    out: std::io::BufWriter<Box<dyn std::io::Write + Send>>,
    name: String,
}

impl MqsimWriter {
    pub fn new(out: Box<dyn std::io::Write + Send>, name: &str) -> MqsimWriter {
        MqsimWriter {
            out: std::io::BufWriter::with_capacity(1 << 16, out),
            name: name.to_string(),
        }
    }
}

impl super::writer::TraceWriter for MqsimWriter {
    fn write_record(&mut self, r: &TraceRecord) -> crate::Result<bool> {
        use std::io::Write;
        let ty = match r.op {
            Op::Read => 1,
            Op::Write | Op::Append => 0,
            Op::Trim | Op::Zone(..) => return Ok(false),
        };
        let first = r.offset / 512;
        let end = (r.offset as u128 + r.len as u128).div_ceil(512) as u64;
        writeln!(self.out, "{} {} {} {} {ty}", r.time_ns, r.device, first, end - first)
            .map_err(|e| crate::Error::io(&self.name, e))?;
        Ok(true)
    }

    fn finish(&mut self) -> crate::Result<()> {
        use std::io::Write;
        self.out.flush().map_err(|e| crate::Error::io(&self.name, e))
    }
}
