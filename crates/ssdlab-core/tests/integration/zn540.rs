//! The `zn540` preset's zone management against the drive's own per-operation measurements
//! (NVMeBenchmarks' data/custom/zns-a/partial_finish, as data/zn540/measured.csv holds them):
//! finish pads the rest of a zone at the flash's program rate, so its time falls with the
//! data the zone holds; these points are predictions (the preset's inputs are the write
//! ceiling, reads, command times and the reset line), each within 5 % of the measured mean.

use ssdlab_core::device::Device;
use ssdlab_core::request::{Op, Request, ZoneAction};

const ZONE: u64 = 2 << 30;
const LBA: u64 = 4096;

fn req(op: Op, offset: u64, len: u64) -> Request {
    Request {
        time_ns: 0,
        op,
        offset,
        len,
        stream: 0,
    }
}

/// A finish of a zone holding `lbas` LBAs on a fresh zn540: its time (ns) from submission,
/// once the writes are programmed.
fn finish_after(lbas: u64) -> u64 {
    let cfg = ssdlab_core::load_config("zn540").unwrap();
    let mut d = Device::new(&cfg.device, 1).unwrap();
    let mut t = 0;
    let mut left = lbas * LBA;
    let mut off = 0;
    while left > 0 {
        let n = left.min(128 << 10);
        t = d.run_request(t, &req(Op::Write, off, n)).unwrap();
        off += n;
        left -= n;
    }
    // Long after the buffer has drained.
    let start = t + 2_000_000_000;
    d.run_request(start, &req(Op::Zone(ZoneAction::Finish, false), 0, LBA))
        .unwrap()
        - start
}

#[test]
fn finish_pads_at_the_flash_rate_as_the_zn540_does() {
    // Measured means (partial_finish run1, run2): 907.6 and 907.4 ms with one LBA, 457.0 and
    // 456.7 ms with half the capacity (137,856 LBAs).
    for (lbas, measured_ms) in [(1, 907.5), (137_856, 456.8)] {
        let ours = finish_after(lbas) as f64 / 1e6;
        let err = ours / measured_ms - 1.0;
        assert!(
            err.abs() < 0.05,
            "finish after {lbas} LBAs: {ours:.1} ms, measured {measured_ms} ms ({:+.1} %)",
            err * 100.0
        );
    }
    // A zone never written is finished without padding: the command's time (measured 13.5 us;
    // the preset's write command time, 5.381 us, the link's 1 us and the command latency,
    // 4.15 us, are what it charges, a miss docs/zns.md names).
    let cfg = ssdlab_core::load_config("zn540").unwrap();
    let mut d = Device::new(&cfg.device, 1).unwrap();
    let done = d
        .run_request(0, &req(Op::Zone(ZoneAction::Finish, false), ZONE, LBA))
        .unwrap();
    assert_eq!(done, 5_381 + 1_000 + 4_150);
}
