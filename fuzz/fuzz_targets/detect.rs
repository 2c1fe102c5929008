//! Format guessing, decompression and statistics: any bytes, read with the format guessed,
//! give records or one-line errors, and statistics within their caps, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab_core::trace::contract::{check_reader, check_stats};
use ssdlab_core::trace::Format;

fuzz_target!(|data: &[u8]| {
    check_reader(data, Format::Auto);
    check_stats(data);
});
