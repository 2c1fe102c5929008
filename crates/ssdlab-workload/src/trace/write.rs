//! The trace writers' registry (`OutputFormat`) and conversion; the writers implement
//! [`TraceWriter`] from `writer.rs`, which imports none of them.

use super::{Devices, TraceReader};
use crate::{Error, Result};
use std::io::Write;

pub use super::writer::TraceWriter;

/// Formats `ssdlab trace convert` can write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// Native binary (see [`super::native`]).
    Native,
    /// fio iolog v3, replayable with `fio --read_iolog`.
    FioIolog,
    /// MQSim trace text (sector units; trims dropped).
    Mqsim,
    /// MSR Cambridge CSV (trims dropped).
    Msr,
}

impl OutputFormat {
    pub const ALL: [OutputFormat; 4] = [
        OutputFormat::Native,
        OutputFormat::FioIolog,
        OutputFormat::Mqsim,
        OutputFormat::Msr,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Native => "native",
            OutputFormat::FioIolog => "fio-iolog",
            OutputFormat::Mqsim => "mqsim",
            OutputFormat::Msr => "msr",
        }
    }

    pub fn from_name(s: &str) -> Result<OutputFormat> {
        let k = s.trim().to_ascii_lowercase().replace('_', "-");
        Self::ALL.into_iter().find(|f| f.name() == k).ok_or_else(|| {
            Error::Invalid(format!(
                "cannot write trace format '{s}'; expected native, fio-iolog, mqsim or msr"
            ))
        })
    }

    /// Whether the output is binary (not for a terminal).
    pub fn is_binary(self) -> bool {
        self == OutputFormat::Native
    }

    /// A writer to `out`; `name` is used in error messages. fio iologs name their files
    /// `ssdlab-dev{N}` (redirect with fio's `replay_redirect`).
    pub fn writer(self, out: Box<dyn Write + Send>, name: &str) -> Result<Box<dyn TraceWriter + Send>> {
        Ok(match self {
            OutputFormat::Native => Box::new(super::native::NativeWriter::new(out, name)?),
            OutputFormat::FioIolog => Box::new(super::fio::FioWriter::new(out, name, "ssdlab-dev")?),
            OutputFormat::Mqsim => Box::new(super::sim::MqsimWriter::new(out, name)),
            OutputFormat::Msr => Box::new(super::msr::MsrWriter::new(out, name)),
        })
    }
}

/// Result of a conversion.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ConvertSummary {
    /// Records written.
    pub written: u64,
    /// Records the output format cannot represent (trims in MQSim or MSR output).
    pub dropped: u64,
    /// Malformed input lines skipped.
    pub skipped_lines: u64,
}

/// Copy every record of `reader` of the selected devices to `writer`.
pub fn convert(reader: &mut TraceReader, writer: &mut dyn TraceWriter, devices: &Devices) -> Result<ConvertSummary> {
    let mut s = ConvertSummary::default();
    for (i, r) in reader.by_ref().enumerate() {
        let r = r?;
        // Ctrl-C (`sim::interrupt`) stops a conversion too, every 2^16 records.
        if i & 0xFFFF == 0 {
            crate::interrupt::check_interrupt()?;
        }
        if !devices.contains(r.device) {
            continue;
        }
        if writer.write_record(&r)? {
            s.written += 1;
        } else {
            s.dropped += 1;
        }
    }
    writer.finish()?;
    s.skipped_lines = reader.skipped();
    Ok(s)
}
