//! `Format::Auto`: guess the format from the first bytes and lines of the content.
//!
//! Binary: the native magic, else NUL bytes or control bytes (more than 1 % of the first
//! 64 KiB) mean address-only keys; text with an invalid UTF-8 byte is an error naming the
//! byte. Text: a known header line wins; otherwise each candidate decoder is run on the first
//! non-empty lines (at most 32) and the first candidate, in a fixed priority order, that
//! decodes all of them (a first header line may fail) and yields at least one request is
//! chosen; failing that, the candidate that decodes most of them (at least half), so that the
//! reader reports the bad lines. MQSim and SSDsim ASCII have the same layout and units; such
//! files are reported as `mqsim`.

use super::input::{non_utf8, peek, read_error, Compression, Input, LineDecoder};
use super::parse::{trim, Fields, LineError, Sep};
use super::{blkparse, cloud, msr, native, sim, spc, Format, TraceRecord};
use crate::{Error, Result};

/// Builds a fresh decoder for a trial.
type MakeDecoder = fn() -> Box<dyn LineDecoder>;

const PEEK: usize = 64 * 1024;
const SAMPLE_LINES: usize = 32;

/// Guess the format of `input`; returns an input that still yields the whole stream.
pub(crate) fn guess(name: &str, compression: Compression, input: Input) -> Result<(Format, Input)> {
    let (prefix, input) = peek(input, PEEK).map_err(|e| read_error(name, compression, 1, e))?;
    if prefix.is_empty() {
        return Err(Error::Invalid(format!(
            "{name}: the file is empty; expected a trace in one of the formats of `ssdlab trace formats`"
        )));
    }
    match guess_prefix(&prefix) {
        Ok(Some(f)) => Ok((f, input)),
        Ok(None) => Err(Error::Invalid(format!(
            "{name}: cannot guess the trace format from its first lines; expected one of the formats of `ssdlab trace formats` (pass --format)"
        ))),
        Err((line, err)) => Err(Error::Parse {
            file: name.to_string(),
            line,
            msg: err.render("text"),
        }),
    }
}

/// Whether a prefix without the native magic is binary: NUL bytes, or control bytes other
/// than tabs and line breaks making up more than 1 % of it.
fn is_binary(prefix: &[u8]) -> bool {
    let control = prefix
        .iter()
        .filter(|&&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')) || b == 0x7f)
        .count();
    prefix.contains(&0) || control * 100 > prefix.len()
}

/// Guess from the first bytes of a (decompressed) trace; `None` if no format fits. Text with
/// an invalid UTF-8 byte is an error at its line.
fn guess_prefix(prefix: &[u8]) -> std::result::Result<Option<Format>, (u64, LineError)> {
    if prefix.starts_with(native::MAGIC) {
        return Ok(Some(Format::Native));
    }
    if prefix.is_empty() {
        return Ok(None);
    }
    if is_binary(prefix) {
        return Ok(Some(Format::Keys));
    }
    // The last line may be cut by the peek window: drop it unless the prefix is the whole file.
    let text = match std::str::from_utf8(prefix) {
        Ok(t) => t,
        Err(e) if e.error_len().is_none() && e.valid_up_to() + 4 > prefix.len() => {
            std::str::from_utf8(&prefix[..e.valid_up_to()]).unwrap_or("")
        }
        Err(e) => {
            let at = e.valid_up_to();
            let start = prefix[..at].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let line = prefix[..start].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            return Err((line, non_utf8(&prefix[start..], at - start)));
        }
    };
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
    let Some(&first) = lines.first() else {
        return Ok(None);
    };
    if first.starts_with(b"fio version 2 iolog") || first.starts_with(b"fio version 3 iolog") {
        return Ok(Some(Format::FioIolog));
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
        return Ok(Some(*f));
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
    // A candidate that reads every sampled line wins; failing that, the one that reads most of
    // them (at least half), so that the reader reports the malformed lines at their place.
    let mut best: Option<(usize, Format)> = None;
    for (format, make) in candidates {
        let mut d = make();
        let mut records = Vec::new();
        let mut strict = true;
        let mut read_lines = Vec::new();
        for (i, &l) in lines.iter().enumerate() {
            match d.decode(l) {
                Ok(Some(r)) => {
                    strict &= r.len > 0;
                    read_lines.push(l);
                    records.push(r);
                }
                Ok(None) => read_lines.push(l),
                Err(_) if i == 0 => {}
                Err(_) => strict = false,
            }
        }
        let decoded = read_lines.len() + usize::from(read_lines.first() != lines.first());
        if records.is_empty() || !plausible(format, &read_lines, &records) {
            continue;
        }
        if strict {
            return Ok(Some(format));
        }
        if 2 * decoded >= lines.len() && best.is_none_or(|(n, _)| decoded > n) {
            best = Some((decoded, format));
        }
    }
    Ok(best.map(|(_, f)| f))
}

/// Extra checks where layouts overlap, on the lines a candidate read.
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
