//! UMass / SPC traces (Financial, WebSearch): `ASU,LBA,Size,Opcode,Timestamp`.

use super::input::LineDecoder;
use super::parse::{eq_ic, mul, time, uint, uint32, unknown_op, Fields, LineResult, Sep};
use super::{text_opener, Format, FormatInfo, TraceRecord};
use crate::Op;

/// SPC trace format specification (UMass Trace Repository): 512-byte LBAs, sizes in bytes,
/// opcode r/R/w/W, timestamps in seconds from the start of the trace. Extra fields after the
/// fifth are ignored.
pub(crate) const SPC: FormatInfo = FormatInfo {
    format: Format::Spc,
    name: "spc",
    description: "UMass / SPC CSV: ASU,LBA(512 B),Size(bytes),Opcode(r/w),Timestamp(s)",
    layout: "`ASU,LBA,Size,Opcode,Timestamp` with Opcode r or w",
    rebase: false,
    open: text_opener!(SpcDecoder),
};

pub(crate) struct SpcDecoder;

impl LineDecoder for SpcDecoder {
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>> {
        let mut f = Fields::new(line, Sep::Comma);
        let asu = f.req("asu")?;
        if eq_ic(asu, "ASU") {
            return Ok(None);
        }
        let device = uint32(asu, "asu")?;
        let lba = uint(f.req("offset")?, "offset")?;
        let len = uint(f.req("size")?, "size")?;
        let opf = f.req("op")?;
        let op = match opf {
            b"r" | b"R" => Op::Read,
            b"w" | b"W" => Op::Write,
            _ => return Err(unknown_op(opf, "Opcode r or w")),
        };
        let time_ns = time(f.req("timestamp")?, 1_000_000_000, "timestamp")?;
        Ok(Some(TraceRecord {
            time_ns,
            device,
            op,
            offset: mul(lba, 512, "offset")?,
            len,
        }))
    }
}
