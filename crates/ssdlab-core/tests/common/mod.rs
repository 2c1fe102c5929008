//! Shared by the tests that compute latencies by hand: the timing of a small SLC device.

/// See `ssdlab_core::config::TEST_SLC_TIMING`.
pub const SLC_TIMING: &str = ssdlab_core::config::TEST_SLC_TIMING;
