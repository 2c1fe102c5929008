//! Shared by the tests that compute latencies by hand: the timing of a small SLC device.

/// tR 25 µs, tPROG 200 µs, tBERS 1.5 ms, 8 KiB over a 100 MB/s channel in 81,920 ns, a SATA
/// link with 5 µs per command (8 KiB with its command: 18,654 ns), GC at 2 free blocks. Goes
/// after a run file's `[device.geometry]` table; `[device.ftl]` is open at its end.
pub const SLC_TIMING: &str = r#"[device.nand]
cell = "slc"
read = "25us"
program = "200us"
erase = "1.5ms"
channel_rate = "100MB/s"
endurance = 100000
[device.host]
interface = "sata3"
command_overhead = "5us"
[device.ftl]
gc_threshold = 2
"#;
