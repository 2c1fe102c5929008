//! MSR Cambridge traces: the SNIA CSV form and the space-separated cuts used by
//! Heimdall-style pipelines.

use super::input::LineDecoder;
use super::parse::{eq_ic, mul, time, uint, uint32, unknown_op, Fields, LineResult, Sep};
use super::{text_opener, Format, FormatInfo, TraceRecord};
use crate::Op;

/// SNIA MSR Cambridge CSV: `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
pub(crate) const MSR: FormatInfo = FormatInfo {
    format: Format::Msr,
    name: "msr",
    description: "MSR Cambridge / SNIA CSV (FILETIME 100 ns ticks, byte offsets and sizes)",
    layout: "`Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` with Type Read or Write",
    rebase: true,
    open: text_opener!(MsrDecoder),
};

/// Heimdall MSR cuts: `time_ms device byte_offset bytes op`, op 1 = read.
pub(crate) const MSR_CUT: FormatInfo = FormatInfo {
    format: Format::MsrCut,
    name: "msr-cut",
    description: "MSR Cambridge cuts, space separated: time_ms device byte_offset bytes op (1 = read)",
    layout: "`time_ms device byte_offset bytes op` with op 1 (read) or 0 (write)",
    rebase: false,
    open: text_opener!(MsrCutDecoder),
};

pub(crate) struct MsrDecoder;

impl LineDecoder for MsrDecoder {
    #[inline]
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>> {
        let mut f = Fields::new(line, Sep::Comma);
        let ts = f.req("timestamp")?;
        if eq_ic(ts, "Timestamp") {
            return Ok(None); // header line
        }
        let ticks = uint(ts, "timestamp")?;
        let _host = f.req("hostname")?;
        let device = uint32(f.req("disk")?, "disk")?;
        let ty = f.req("op")?;
        let op = if eq_ic(ty, "Read") {
            Op::Read
        } else if eq_ic(ty, "Write") {
            Op::Write
        } else {
            return Err(unknown_op(ty, "Read or Write"));
        };
        let offset = uint(f.req("offset")?, "offset")?;
        let len = uint(f.req("size")?, "size")?;
        f.req("response_time")?;
        Ok(Some(TraceRecord {
            time_ns: mul(ticks, 100, "timestamp")?,
            device,
            op,
            offset,
            len,
        }))
    }
}

pub(crate) struct MsrCutDecoder;

impl LineDecoder for MsrCutDecoder {
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>> {
        let mut f = Fields::new(line, Sep::Blank);
        let time_ns = time(f.req("timestamp")?, 1_000_000, "timestamp")?;
        let device = uint32(f.req("device")?, "device")?;
        let offset = uint(f.req("offset")?, "offset")?;
        let len = uint(f.req("size")?, "size")?;
        let op = super::sim::binary_op(f.req("op")?)?;
        Ok(Some(TraceRecord {
            time_ns,
            device,
            op,
            offset,
            len,
        }))
    }
}

/// Writes MSR Cambridge CSV: timestamps as 100 ns ticks from 0, host `ssdlab`, response time
/// 0. Trims are dropped.
pub struct MsrWriter {
    out: std::io::BufWriter<Box<dyn std::io::Write + Send>>,
    name: String,
}

impl MsrWriter {
    pub fn new(out: Box<dyn std::io::Write + Send>, name: &str) -> MsrWriter {
        MsrWriter {
            out: std::io::BufWriter::with_capacity(1 << 16, out),
            name: name.to_string(),
        }
    }
}

impl super::writer::TraceWriter for MsrWriter {
    fn write_record(&mut self, r: &TraceRecord) -> crate::Result<bool> {
        use std::io::Write;
        let ty = match r.op {
            Op::Read => "Read",
            // An append's data went where the device put it: the trace keeps the request.
            Op::Write | Op::Append => "Write",
            Op::Trim | Op::Zone(..) => return Ok(false),
        };
        writeln!(
            self.out,
            "{},ssdlab,{},{ty},{},{},0",
            r.time_ns / 100,
            r.device,
            r.offset,
            r.len
        )
        .map_err(|e| crate::Error::io(&self.name, e))?;
        Ok(true)
    }

    fn finish(&mut self) -> crate::Result<()> {
        use std::io::Write;
        self.out.flush().map_err(|e| crate::Error::io(&self.name, e))
    }
}
