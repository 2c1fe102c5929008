//! blkparse default text output:
//! `maj,min cpu seq time_s pid action RWBS sector + count [process]`.
//!
//! Only queue (`Q`) events are requests by default (`blkparse-d` uses dispatch `D` events
//! instead); every other line — other actions, plug/unplug notes, per-CPU summaries — is
//! ignored, not an error. RWBS containing `D` is a discard (trim), else `R` a read, else `W` a
//! write; events without data (pure flushes, `N`) are ignored. The device number is
//! `major << 20 | minor` (the kernel's internal dev_t encoding).

use super::input::LineDecoder;
use super::parse::{mul, show, time, uint, Fields, LineError, LineResult, Sep};
use super::{text_opener, Format, FormatInfo, TraceRecord};
use crate::Op;

pub(crate) const BLKPARSE: FormatInfo = FormatInfo {
    format: Format::Blkparse,
    name: "blkparse",
    description: "blkparse default text output, queue (Q) events; device = major<<20 | minor",
    layout: "`maj,min cpu seq time_s pid action RWBS sector + count [process]`",
    rebase: false,
    open: text_opener!(BlkparseDecoder { action: b'Q' }),
};

pub(crate) const BLKPARSE_D: FormatInfo = FormatInfo {
    format: Format::BlkparseD,
    name: "blkparse-d",
    description: "blkparse default text output, dispatch (D) events instead of queue events",
    layout: "`maj,min cpu seq time_s pid action RWBS sector + count [process]`",
    rebase: false,
    open: text_opener!(BlkparseDecoder { action: b'D' }),
};

pub(crate) struct BlkparseDecoder {
    pub(crate) action: u8,
}

/// `maj,min` → (maj, min), `None` if the token is not a device number.
fn dev(tok: &[u8]) -> Option<(u32, u32)> {
    let i = tok.iter().position(|&b| b == b',')?;
    let maj = uint(&tok[..i], "").ok()?;
    let min = uint(&tok[i + 1..], "").ok()?;
    Some((u32::try_from(maj).ok()?, u32::try_from(min).ok()?))
}

impl LineDecoder for BlkparseDecoder {
    fn decode(&mut self, line: &[u8]) -> LineResult<Option<TraceRecord>> {
        let mut f = Fields::new(line, Sep::Blank);
        let Some((maj, min)) = f.next_field().and_then(dev) else {
            return Ok(None); // summary or other non-event line
        };
        // A line that starts with a device number is an event: it has all of these.
        f.req("cpu")?;
        f.req("sequence")?;
        let t = f.req("timestamp")?;
        f.req("pid")?;
        let action = f.req("action")?;
        if action != [self.action] {
            return Ok(None);
        }
        let time_ns = time(t, 1_000_000_000, "timestamp")?;
        let rwbs = f.req("rwbs")?;
        // The kernel's letters (blk_fill_rwbs): the operation (F flush, W, R, D discard, E
        // secure erase, N none), then F (FUA), A (read-ahead), S (sync), M (metadata).
        if let Some(&b) = rwbs.iter().find(|b| !b"RWDEFNASM".contains(b)) {
            return Err(LineError::new(
                "rwbs",
                format!("found '{}' in '{}'", b as char, show(rwbs)),
                "the letters R, W, D, E, F, N, A, S, M",
            ));
        }
        let op = if rwbs.contains(&b'D') {
            Op::Trim
        } else if rwbs.contains(&b'R') {
            Op::Read
        } else if rwbs.contains(&b'W') {
            Op::Write
        } else {
            return Ok(None); // no data transfer (flush, N)
        };
        let sector = match f.req("offset")? {
            s if s.starts_with(b"[") => return Ok(None), // flush without data
            s => uint(s, "offset")?,
        };
        let plus = f.req("+")?;
        if plus != b"+" {
            return Err(LineError::new(
                "+",
                format!("found '{}'", show(plus)),
                "'+' between the sector and the count",
            ));
        }
        let count = uint(f.req("size")?, "size")?;
        if count == 0 && rwbs.contains(&b'F') {
            return Ok(None);
        }
        if maj >= 1 << 12 || min >= 1 << 20 {
            return Err(LineError::new(
                "device",
                format!("{maj},{min} is out of range"),
                "a major number below 4096 and a minor number below 1048576",
            ));
        }
        Ok(Some(TraceRecord {
            time_ns,
            device: maj << 20 | min,
            op,
            offset: mul(sector, 512, "offset")?,
            len: mul(count, 512, "size")?,
        }))
    }
}
