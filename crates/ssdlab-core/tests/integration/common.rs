//! Shared by the tests that compute latencies by hand: the timing of a small SLC device.

/// See `ssdlab_core::config::TEST_SLC_TIMING`.
pub const SLC_TIMING: &str = ssdlab_core::config::TEST_SLC_TIMING;

/// Submit requests at `t` with tags 0.., then run everything; completion time by tag.
#[allow(dead_code)]
pub fn at_once(d: &mut ssdlab_core::Device, t: u64, reqs: &[ssdlab_core::Request]) -> Vec<u64> {
    d.advance_to(t).unwrap();
    for (tag, r) in reqs.iter().enumerate() {
        d.submit(t, r, tag as u64).unwrap();
    }
    d.drain().unwrap();
    let mut done = vec![u64::MAX; reqs.len()];
    for (tag, c) in d.completions.drain(..) {
        done[tag as usize] = c;
    }
    done
}
