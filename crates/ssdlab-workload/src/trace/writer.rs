//! The interface every trace writer implements (one file per format, registered in
//! `write.rs`).

use super::TraceRecord;
use crate::Result;

/// Writes records in one output format.
pub trait TraceWriter {
    /// Write one record. `Ok(false)` if the format cannot represent it (e.g. a trim in a format
    /// without trims) and it was dropped.
    fn write_record(&mut self, r: &TraceRecord) -> Result<bool>;
    /// Write any trailer and flush.
    fn finish(&mut self) -> Result<()>;
    /// Hand the records written so far, whole, to the output (a trace still being written,
    /// read meanwhile). Writers that pass records straight through need nothing.
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
}
