//! Cloud block-storage traces: SNIA SYSTOR'17, Tencent CBS and CloudPhysics vSCSI CSV.

use super::input::LineDecoder;
use super::parse::{eq_ic, hex, mul, time, uint, uint32, unknown_op, Fields, LineResult, Sep};
use super::{text_opener, Format, FormatInfo, TraceRecord};
use crate::Op;

/// SNIA SYSTOR'17: `Timestamp,Response,IOType,LUN,Offset,Size`; Unix seconds, R/W, bytes.
pub(crate) const SYSTOR17: FormatInfo = FormatInfo {
    format: Format::Systor17,
    name: "systor17",
    description: "SNIA SYSTOR'17 CSV: Timestamp(s),Response(s),IOType(R/W),LUN,Offset(bytes),Size(bytes)",
    layout: "`Timestamp,Response,IOType,LUN,Offset,Size` with IOType R or W",
    rebase: true,
    open: text_opener!(Systor17Decoder),
};

/// Tencent CBS (SNIA IOTTA): `Timestamp,Offset,Size,IOType,VolumeID`; Unix seconds, offset
/// and size in 512-byte sectors, IOType 0 = read, 1 = write.
pub(crate) const TENCENT: FormatInfo = FormatInfo {
    format: Format::Tencent,
    name: "tencent",
    description: "Tencent CBS CSV: Timestamp(s),Offset(sectors),Size(sectors),IOType(0 = read),VolumeID",
    layout: "`Timestamp,Offset,Size,IOType,VolumeID` with IOType 0 (read) or 1 (write)",
    rebase: true,
    open: text_opener!(TencentDecoder),
};

/// CloudPhysics vSCSI CSV: `version,time,op,size,lbn`; op is the SCSI opcode in hex, size in
/// bytes, lbn in 512-byte blocks, time in seconds (one-second resolution).
pub(crate) const CLOUDPHYSICS: FormatInfo = FormatInfo {
    format: Format::CloudPhysics,
    name: "cloudphysics",
    description: "CloudPhysics vSCSI CSV: version,time(s),op(SCSI hex opcode),size(bytes),lbn(512 B)",
    layout: "`version,time,op,size,lbn` with op a SCSI opcode in hex (28/88/a8 read, 2a/8a/aa write, 42 unmap)",
    rebase: true,
    open: text_opener!(CloudPhysicsDecoder),
};

pub(crate) struct Systor17Decoder;

impl LineDecoder for Systor17Decoder {
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>> {
        let mut f = Fields::new(line, Sep::Comma);
        let ts = f.req("timestamp")?;
        if eq_ic(ts, "Timestamp") {
            return Ok(None);
        }
        let time_ns = time(ts, 1_000_000_000, "timestamp")?;
        let _response = f.req("response")?;
        let ty = f.req("op")?;
        let op = match ty {
            b"R" | b"r" => Op::Read,
            b"W" | b"w" => Op::Write,
            _ => return Err(unknown_op(ty, "IOType R or W")),
        };
        let device = uint32(f.req("lun")?, "lun")?;
        let offset = uint(f.req("offset")?, "offset")?;
        let len = uint(f.req("size")?, "size")?;
        Ok(Some(TraceRecord {
            time_ns,
            device,
            op,
            offset,
            len,
        }))
    }
}

pub(crate) struct TencentDecoder;

impl LineDecoder for TencentDecoder {
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>> {
        let mut f = Fields::new(line, Sep::Comma);
        let ts = f.req("timestamp")?;
        if eq_ic(ts, "Timestamp") {
            return Ok(None);
        }
        let time_ns = time(ts, 1_000_000_000, "timestamp")?;
        let offset = uint(f.req("offset")?, "offset")?;
        let size = uint(f.req("size")?, "size")?;
        let op = match f.req("op")? {
            b"0" => Op::Read,
            b"1" => Op::Write,
            o => return Err(unknown_op(o, "IOType 0 (read) or 1 (write)")),
        };
        let device = uint32(f.req("volume")?, "volume")?;
        Ok(Some(TraceRecord {
            time_ns,
            device,
            op,
            offset: mul(offset, 512, "offset")?,
            len: mul(size, 512, "size")?,
        }))
    }
}

pub(crate) struct CloudPhysicsDecoder;

impl LineDecoder for CloudPhysicsDecoder {
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>> {
        let mut f = Fields::new(line, Sep::Comma);
        let v = f.req("version")?;
        if eq_ic(v, "version") {
            return Ok(None);
        }
        uint(v, "version")?;
        let time_ns = time(f.req("timestamp")?, 1_000_000_000, "timestamp")?;
        let code = hex(f.req("op")?, "op")?;
        // Every record has all five fields, whatever its command: a line cut short is bad.
        let len = uint(f.req("size")?, "size")?;
        let lbn = uint(f.req("offset")?, "offset")?;
        let op = match code {
            0x28 | 0x88 | 0xa8 => Op::Read,
            0x2a | 0x8a | 0xaa => Op::Write,
            0x42 => Op::Trim,
            // Other SCSI commands (TEST UNIT READY, INQUIRY, SYNCHRONIZE CACHE...) move no data.
            _ => return Ok(None),
        };
        Ok(Some(TraceRecord {
            time_ns,
            device: 0,
            op,
            offset: mul(lbn, 512, "offset")?,
            len,
        }))
    }
}
