//! The readers' contract on arbitrary input, checked by the property tests and the fuzz
//! targets (`fuzz/`): every format, guessed or given, with or without skipping bad lines,
//! returns records or errors and never panics; a record has a size and ends below 2^64; an
//! error is one line, and a parse error names what was expected.

use super::{Format, ReaderOptions, StatsOptions, TraceReader, TraceStats};
use crate::Error;

/// Records read at most per reader, so that a check stays quick on any input.
const MAX_RECORDS: usize = 10_000;

/// Read `data` as `format` (both with and without skipping bad lines) and panic if the
/// contract is broken. Returns the records read.
pub fn check_reader(data: &[u8], format: Format) -> usize {
    let mut n = 0;
    for skip_bad_lines in [false, true] {
        let opts = ReaderOptions { format, skip_bad_lines };
        match TraceReader::from_read("input", Box::new(std::io::Cursor::new(data.to_vec())), &opts) {
            Err(e) => check_error(&e),
            Ok(r) => {
                for x in r.take(MAX_RECORDS) {
                    match x {
                        Ok(rec) => {
                            assert!(rec.len > 0, "zero-length record {rec:?}");
                            assert!(rec.offset.checked_add(rec.len).is_some(), "record past 2^64 {rec:?}");
                            n += 1;
                        }
                        Err(e) => check_error(&e),
                    }
                }
            }
        }
    }
    n
}

/// Compute the statistics of `data` (format guessed) with small caps: never a panic, and the
/// caps hold.
pub fn check_stats(data: &[u8]) {
    let opts = ReaderOptions {
        format: Format::Auto,
        skip_bad_lines: true,
    };
    let Ok(mut r) = TraceReader::from_read("input", Box::new(std::io::Cursor::new(data.to_vec())), &opts) else {
        return;
    };
    let stats_opts = StatsOptions {
        max_page_runs: 64,
        max_volumes: 4,
        ..StatsOptions::default()
    };
    match TraceStats::compute(&mut r, &stats_opts) {
        Ok(s) => {
            assert!(s.volumes.len() <= 4);
            assert_eq!(
                s.volumes.iter().map(|v| v.requests).sum::<u64>() + s.other_volumes_requests,
                s.requests
            );
        }
        Err(e) => check_error(&e),
    }
}

fn check_error(e: &Error) {
    let msg = e.to_string();
    assert!(!msg.contains('\n') && !msg.contains('\r'), "not one line: {msg:?}");
    if let Error::Parse { .. } = e {
        assert!(msg.contains("; expected "), "no expectation: {msg:?}");
    }
}
