//! Parse-speed measurement, for `ssdlab bench` and BENCHMARKS.md.

use super::{Format, ReaderOptions, TraceReader};
use crate::Result;
use std::path::Path;
use std::time::Instant;

/// Result of [`parse_speed`].
#[derive(Clone, Debug, serde::Serialize)]
pub struct ParseSpeed {
    /// Format read (the guess for `Format::Auto`).
    pub format: String,
    /// Records parsed.
    pub records: u64,
    /// Lines (records for binary formats) consumed.
    pub lines: u64,
    pub seconds: f64,
}

impl ParseSpeed {
    /// Lines per second.
    pub fn lines_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.lines as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// Parse the whole file once, timing it (opening and format guessing included).
pub fn parse_speed(path: &Path, format: Format) -> Result<ParseSpeed> {
    let start = Instant::now();
    let mut reader = TraceReader::open(
        path,
        &ReaderOptions {
            format,
            skip_bad_lines: false,
        },
    )?;
    let mut records = 0u64;
    let mut checksum = 0u64;
    for r in reader.by_ref() {
        let r = r?;
        records += 1;
        checksum = checksum.wrapping_add(r.offset ^ r.time_ns);
    }
    std::hint::black_box(checksum);
    Ok(ParseSpeed {
        format: reader.format().name().to_string(),
        records,
        lines: reader.line(),
        seconds: start.elapsed().as_secs_f64(),
    })
}
