//! Readers of simulator inputs: MQSim, SSDsim, DiskSim, SSDsim-Original: any bytes give records or one-line errors, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab_core::trace::contract::check_reader;
use ssdlab_core::trace::Format;

fuzz_target!(|data: &[u8]| {
    for format in [Format::Mqsim, Format::Ssdsim, Format::Disksim, Format::SsdsimOriginal] {
        check_reader(data, format);
    }
});
