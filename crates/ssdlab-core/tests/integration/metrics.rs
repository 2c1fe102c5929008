//! Latency statistics against values computed by hand: sample standard deviation, mean,
//! extremes, bandwidth and IOPS over a runtime.

use ssdlab_core::metrics::OpStats;

#[test]
fn latency_summary_of_known_samples() {
    let mut s = OpStats::default();
    for v in 1..=10u64 {
        s.record(4096, v * 1000);
    }
    // 1 + 2 + ... + 10 µs.
    assert_eq!(s.lat_sum(), 55_000);
    let r = s.result(2_000_000_000, 0, &ssdlab_core::metrics::PERCENTILES);
    // Sample standard deviation of 1..10 µs: sqrt(82.5 / 9) µs = 3,027.650 ns.
    assert_eq!(r.clat_ns.stddev, 3027.65);
    assert_eq!(
        (r.clat_ns.mean, r.clat_ns.min, r.clat_ns.max, r.clat_ns.n),
        (5500.0, 1000, 10_000, 10)
    );
    // No submission latency: total latency is completion latency (json+ bins only on clat).
    let mut lat = r.lat_ns.clone();
    lat.bins = r.clat_ns.bins.clone();
    assert_eq!(lat, r.clat_ns);
    // 40,960 bytes in 2 s; 10 requests in 2 s.
    assert_eq!((r.io_bytes, r.io_kbytes, r.bw_bytes, r.bw), (40_960, 40, 20_480, 20));
    assert_eq!((r.iops, r.runtime, r.total_ios), (5.0, 2000, 10));
    let mut two = OpStats::default();
    two.record(512, 1000);
    two.record(512, 3000);
    assert_eq!(
        two.result(1, 0, &ssdlab_core::metrics::PERCENTILES).clat_ns.stddev,
        1414.214
    );
    let mut one = OpStats::default();
    one.record(512, 7);
    let r = one.result(0, 0, &ssdlab_core::metrics::PERCENTILES);
    assert_eq!(
        (r.clat_ns.stddev, r.clat_ns.mean, r.bw_bytes, r.iops),
        (0.0, 7.0, 0, 0.0)
    );
    let r = OpStats::default().result(1_000, 0, &ssdlab_core::metrics::PERCENTILES);
    assert_eq!((r.clat_ns.min, r.clat_ns.max, r.clat_ns.n), (0, 0, 0));
    assert!(r.clat_ns.percentile.0.is_empty());
}
