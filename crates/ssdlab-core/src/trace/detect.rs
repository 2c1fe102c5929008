//! `Format::Auto`: guess the format from the first bytes and lines of the content.
//!
//! Binary: the native magic, else any NUL byte or invalid UTF-8 in the first 64 KiB means
//! address-only keys. Text: a known header line wins; otherwise each candidate decoder is run
//! on the first non-empty lines (at most 32) and the first candidate, in a fixed priority
//! order, that decodes all of them (a first header line may fail) and yields at least one
//! request is chosen. MQSim and SSDsim ASCII have the same layout and units; such files are
//! reported as `mqsim`.

use super::input::{peek, Input, LineDecoder};
use super::parse::{trim, Fields, Sep};
use super::{blkparse, cloud, msr, native, sim, spc, Format, TraceRecord};
use crate::{Error, Result};

/// Builds a fresh decoder for a trial.
type MakeDecoder = fn() -> Box<dyn LineDecoder>;

const PEEK: usize = 64 * 1024;
const SAMPLE_LINES: usize = 32;

/// Guess the format of `input`; returns an input that still yields the whole stream.
pub(crate) fn guess(name: &str, input: Input) -> Result<(Format, Input)> {
    let (prefix, input) = peek(input, PEEK).map_err(|e| Error::io(name, e))?;
    let f = guess_bytes(&prefix).ok_or_else(|| {
        Error::Invalid(format!(
            "{name}: cannot guess the trace format from its first lines; pass a format explicitly (see `ssdlab trace formats`)"
        ))
    })?;
    Ok((f, input))
}

/// Guess from the first bytes of a (decompressed) trace.
pub fn guess_bytes(prefix: &[u8]) -> Option<Format> {
    if prefix.starts_with(native::MAGIC) {
        return Some(Format::Native);
    }
    if prefix.is_empty() {
        return None;
    }
    // The last line may be cut by the peek window: drop it unless the prefix is the whole file.
    let text = match std::str::from_utf8(prefix) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() && e.valid_up_to() + 4 > prefix.len() => {
            std::str::from_utf8(&prefix[..e.valid_up_to()]).unwrap_or("")
        }
        Err(_) => return Some(Format::Keys),
    };
    if text.contains('\0') {
        return Some(Format::Keys);
    }
    let mut lines: Vec<&[u8]> = text
        .split('\n')
        .map(|l| trim(l.as_bytes()))
        .filter(|l| !l.is_empty() && l[0] != b'#')
        .take(SAMPLE_LINES + 1)
        .collect();
    if prefix.len() >= PEEK && lines.len() > 1 {
        lines.pop();
    }
    lines.truncate(SAMPLE_LINES);
    let first = *lines.first()?;
    if first.starts_with(b"fio version 2 iolog") || first.starts_with(b"fio version 3 iolog") {
        return Some(Format::FioIolog);
    }
    let header: String = String::from_utf8_lossy(first)
        .to_ascii_lowercase()
        .split_whitespace()
        .collect();
    const HEADERS: &[(&str, Format)] = &[
        (
            "timestamp,hostname,disknumber,type,offset,size,responsetime",
            Format::Msr,
        ),
        ("timestamp,response,iotype,lun,offset,size", Format::Systor17),
        ("timestamp,offset,size,iotype,volumeid", Format::Tencent),
        ("version,time,op,size,lbn", Format::CloudPhysics),
        ("asu,lba,size,opcode,timestamp", Format::Spc),
    ];
    if let Some((_, f)) = HEADERS.iter().find(|(h, _)| header.starts_with(h)) {
        return Some(*f);
    }
    let candidates: [(Format, MakeDecoder); 10] = [
        (Format::Msr, || Box::new(msr::MsrDecoder)),
        (Format::Systor17, || Box::new(cloud::Systor17Decoder)),
        (Format::Spc, || Box::new(spc::SpcDecoder)),
        (Format::Tencent, || Box::new(cloud::TencentDecoder)),
        (Format::CloudPhysics, || Box::new(cloud::CloudPhysicsDecoder)),
        (Format::Blkparse, || {
            Box::new(blkparse::BlkparseDecoder { action: b'Q' })
        }),
        (Format::SsdsimOriginal, || Box::new(sim::OriginalDecoder)),
        (Format::Mqsim, || Box::new(sim::SectorDecoder)),
        (Format::MsrCut, || Box::new(msr::MsrCutDecoder)),
        (Format::Disksim, || Box::new(sim::DisksimDecoder)),
    ];
    for (format, make) in candidates {
        let mut d = make();
        let mut records = Vec::new();
        let mut ok = true;
        for (i, l) in lines.iter().enumerate() {
            match d.decode(l) {
                Ok(Some(r)) if r.len > 0 => records.push(r),
                Ok(Some(_)) => ok = false,
                Ok(None) => {}
                Err(_) if i == 0 => {}
                Err(_) => ok = false,
            }
            if !ok {
                break;
            }
        }
        if ok && !records.is_empty() && plausible(format, &lines, &records) {
            return Some(format);
        }
    }
    None
}

/// Extra checks where layouts overlap.
fn plausible(format: Format, lines: &[&[u8]], records: &[TraceRecord]) -> bool {
    match format {
        // Comma formats must really be comma separated.
        Format::Msr | Format::Systor17 | Format::Spc | Format::Tencent | Format::CloudPhysics => {
            lines.iter().any(|l| l.contains(&b','))
        }
        // Byte offsets and sizes: whole sectors; DiskSim block counts are usually not.
        Format::MsrCut => records.iter().all(|r| r.offset % 512 == 0 && r.len % 512 == 0),
        // A blank-separated line of exactly 5 fields.
        Format::Mqsim | Format::Disksim => lines.iter().all(|l| {
            let mut f = Fields::new(l, Sep::Blank);
            (0..6).filter(|_| f.next_field().is_some()).count() == 5
        }),
        _ => true,
    }
}
