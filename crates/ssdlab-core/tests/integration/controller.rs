//! The controller model at the device level, against latencies computed by hand to the
//! nanosecond: firmware CPU time per command, per mapping unit and per flash operation,
//! command admission (queue depth), and host DMA speed by transfer size.
//!
//! Device: the SLC timing of `common` (tR 25 us, tPROG 200 us, 8 KiB over the channel in
//! 81,920 ns, SATA link with 5 us per command: 8 KiB in 18,654 ns), one channel, one plane,
//! 8 KiB pages mapped whole, no write buffer.

use ssdlab_core::config::parse_config;
use ssdlab_core::{Device, Op, Request};
use std::path::Path;

const R: u64 = 25_000;
const P: u64 = 200_000;
const CH: u64 = 81_920;
const LINK: u64 = 18_654;
const T: u64 = 10_000_000;

/// The test device's run file, `extra` appended (`[device.ftl]` is open before it).
fn text(extra: &str) -> String {
    r#"
[device]
name = "ctl"
[device.geometry]
channels = 1
ways = 1
blocks_per_plane = 32
pages_per_block = 4
page_size = "8KiB"
mapping_unit = "8KiB"
overprovisioning = 1.0
"#
    .to_string()
        + crate::common::SLC_TIMING
        + extra
}

fn device(controller: &str) -> Device {
    let text = text(&format!("[device.controller]\n{controller}"));
    let cfg = parse_config(&text, "ctl.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    Device::new(&cfg.device, 1).unwrap()
}

fn req(t: u64, op: Op, page: u64, pages: u64) -> Request {
    Request {
        time_ns: t,
        op,
        offset: page * 8192,
        len: pages * 8192,
        stream: 0,
    }
}

/// Submit requests (time, op, page, pages) and return their completion times in order.
fn run(d: &mut Device, reqs: &[(u64, Op, u64, u64)]) -> Vec<u64> {
    for (i, &(t, op, page, n)) in reqs.iter().enumerate() {
        d.advance_to(t).unwrap();
        d.submit(t, &req(t, op, page, n), i as u64).unwrap();
    }
    d.drain().unwrap();
    let mut c = std::mem::take(&mut d.completions);
    c.sort();
    assert_eq!(c.len(), reqs.len());
    c.into_iter().map(|(_, t)| t).collect()
}

#[test]
fn a_command_waits_for_its_firmware_time_before_its_data_moves() {
    // 10 us per command, 2 us per mapping unit: a one-page write acts 12 us after arrival;
    // its data then crosses the link, the channel, and is programmed.
    let mut d = device("command_time = \"10us\"\nunit_time = \"2us\"\n");
    let c = run(&mut d, &[(T, Op::Write, 0, 1)]);
    assert_eq!(c[0], T + 12_000 + LINK + CH + P);
    // Two pages: 14 us of firmware time, 16 KiB over the link (5 us + 27,307 ns), then both
    // pages cross the one channel in turn; the second program ends last.
    let mut d = device("command_time = \"10us\"\nunit_time = \"2us\"\n");
    let c = run(&mut d, &[(T, Op::Write, 0, 2)]);
    let link2 = 5_000 + 27_307;
    assert_eq!(c[0], T + 14_000 + link2 + CH + P + P);
    // The firmware's busy time is reported: 14 us on its one CPU.
    assert_eq!(d.snapshot(d.now()).cpu_busy, vec![14_000]);
}

#[test]
fn issuing_a_flash_operation_takes_cpu_time_a_program_waits_for() {
    // 30 us to issue the program, longer than the link (18,654 ns): the page's data is ready
    // for the flash only when the CPU has issued it.
    let mut d = device("command_time = \"10us\"\nflash_op_time = \"30us\"\n");
    let c = run(&mut d, &[(T, Op::Write, 0, 1)]);
    assert_eq!(c[0], T + 10_000 + 30_000 + CH + P);
    // A read whose issue takes longer than the read itself: the device is busy (its CPU)
    // until the issue ends, after the request has completed.
    let mut d = device("command_time = \"10us\"\nflash_op_time = \"1ms\"\n");
    run(&mut d, &[(0, Op::Write, 0, 1)]);
    let c = run(&mut d, &[(T, Op::Read, 0, 1)]);
    assert_eq!(c[0], T + 10_000 + R + CH + LINK);
    assert_eq!(d.last_activity(), T + 10_000 + 1_000_000);
    // 5 us to issue it: the link is the longer, the CPU time is hidden.
    let mut d = device("command_time = \"10us\"\nflash_op_time = \"5us\"\n");
    let c = run(&mut d, &[(T, Op::Write, 0, 1)]);
    assert_eq!(c[0], T + 10_000 + LINK + CH + P);
}

#[test]
fn with_queue_depth_one_a_command_starts_when_the_previous_one_completes() {
    let prep = |ctl: &str| {
        let mut d = device(ctl);
        run(&mut d, &[(0, Op::Write, 0, 1), (1_000_000, Op::Write, 1, 1)]);
        d
    };
    // Two reads of written pages arrive together. One at a time: the second's firmware time
    // starts at the first's completion.
    let one = R + CH + LINK;
    let mut d = prep("command_time = \"12us\"\nqueue_depth = 1\n");
    let c = run(&mut d, &[(T, Op::Read, 0, 1), (T, Op::Read, 1, 1)]);
    assert_eq!(c, vec![T + 12_000 + one, T + 2 * (12_000 + one)]);
    // Without the limit the second command's firmware time follows the first's on the one
    // CPU, its tR follows the first's, its data follows the first's on the channel, and its
    // link transfer follows its data.
    let mut d = prep("command_time = \"12us\"\n");
    let c = run(&mut d, &[(T, Op::Read, 0, 1), (T, Op::Read, 1, 1)]);
    assert_eq!(c[0], T + 12_000 + one);
    assert_eq!(c[1], T + 12_000 + R + CH + CH + LINK);
    // Two CPUs: both commands act after 12 us; the same flash and link order follows.
    let mut d = prep("cpus = 2\ncommand_time = \"12us\"\n");
    let c = run(&mut d, &[(T, Op::Read, 0, 1), (T, Op::Read, 1, 1)]);
    assert_eq!(c, vec![T + 12_000 + one, T + 12_000 + R + CH + CH + LINK]);
}

/// Command concurrency: a drive that works on at most `queue_depth` commands at once (link
/// and flash of those overlapped) while the host keeps more queued. Four channels, one page
/// written on each, then four one-page reads arriving together.
#[test]
fn with_queue_depth_two_at_most_two_commands_overlap_their_flash_and_link_work() {
    let four = |ctl: &str| {
        let text = text(&format!("allocation = \"round-robin\"\n[device.controller]\n{ctl}"))
            .replace("channels = 1", "channels = 4");
        let cfg = parse_config(&text, "ctl4.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
        let mut d = Device::new(&cfg.device, 1).unwrap();
        run(
            &mut d,
            &[
                (0, Op::Write, 0, 1),
                (1, Op::Write, 1, 1),
                (2, Op::Write, 2, 1),
                (3, Op::Write, 3, 1),
            ],
        );
        let c = run(
            &mut d,
            &[
                (T, Op::Read, 0, 1),
                (T, Op::Read, 1, 1),
                (T, Op::Read, 2, 1),
                (T, Op::Read, 3, 1),
            ],
        );
        // The four pages sit on four channels: each read's tR and transfer run alone.
        assert_eq!(d.snapshot(d.now()).channel_busy.iter().filter(|&&b| b > 0).count(), 4);
        c
    };
    let one = R + CH + LINK;
    // No limit: the four tR and channel transfers overlap; the link takes the data in turn.
    assert_eq!(
        four("cpus = 1\n"),
        vec![
            T + R + CH + LINK,
            T + R + CH + 2 * LINK,
            T + R + CH + 3 * LINK,
            T + R + CH + 4 * LINK
        ]
    );
    // Two in service: reads 0 and 1 overlap; read 2 starts when read 0 completes, read 3 when
    // read 1 does, each then paying its own tR, transfer and link.
    let c0 = T + R + CH + LINK;
    let c1 = T + R + CH + 2 * LINK;
    assert_eq!(four("queue_depth = 2\n"), vec![c0, c1, c0 + one, c1 + one]);
    // One in service: every read waits for the previous one.
    assert_eq!(
        four("queue_depth = 1\n"),
        vec![T + one, T + 2 * one, T + 3 * one, T + 4 * one]
    );
}

#[test]
fn host_dma_speed_is_interpolated_from_the_table_by_transfer_size() {
    let text = r#"
[device]
name = "dma"
[device.geometry]
channels = 1
ways = 1
blocks_per_plane = 32
pages_per_block = 4
page_size = "8KiB"
mapping_unit = "8KiB"
overprovisioning = 1.0
"#;
    let text = format!("{text}{}", ssdlab_core::config::TEST_SLC_TIMING);
    let dma = r#"device.host.dma=[["4KiB", "40MB/s"], ["12KiB", "80MB/s"]]"#.to_string();
    let cfg = ssdlab_core::config::parse_config_with(&text, "dma.toml", Path::new("."), &[dma])
        .unwrap_or_else(|e| panic!("{e}"));
    let mut d = Device::new(&cfg.device, 1).unwrap();
    // 8 KiB is half way between the points: 60 MB/s, 136,534 ns (rounded up) plus 5 us.
    let c = run(&mut d, &[(T, Op::Write, 0, 1)]);
    assert_eq!(c[0], T + 5_000 + 136_534 + CH + P);
    // 24 KiB is past the last point: 80 MB/s, 307,200 ns; three pages over the one channel.
    let c = run(&mut d, &[(2 * T, Op::Write, 4, 3)]);
    assert_eq!(c[0], 2 * T + 5_000 + 307_200 + CH + 2 * P + P);
}

#[test]
fn garbage_collection_books_its_time_and_its_copies_through_dram_on_the_cpu() {
    // 10 us per command; 20 us per collection; 8 KiB copied through DRAM at 80 MB/s is
    // 102,400 ns. The 64 logical pages written, then rewritten at random until GC has copied:
    // the CPU's busy time is the commands' plus each erase's 20 us plus each copied page's
    // 102,400 ns, to the nanosecond.
    let ctl = "command_time = \"10us\"\ngc_time = \"20us\"\ngc_copy_rate = \"80MB/s\"\n";
    let mut d = device(ctl);
    let mut reqs: Vec<(u64, Op, u64, u64)> = (0..64).map(|p| (p * 1_000_000, Op::Write, p, 1)).collect();
    let mut x = 12345u64;
    for i in 0..400u64 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        reqs.push(((64 + i) * 1_000_000, Op::Write, (x >> 33) % 64, 1));
    }
    run(&mut d, &reqs);
    let s = d.ftl.stats.clone();
    let copied = s.gc_units_copied + s.wl_units_copied;
    assert!(s.erases > 10 && copied > 10, "{s:?}");
    let busy: u64 = d.snapshot(d.now()).cpu_busy.iter().sum();
    assert_eq!(busy, 464 * 10_000 + s.erases * 20_000 + copied * 102_400);
    // The same run without the two settings: the commands' time alone, and the same GC.
    let mut d = device("command_time = \"10us\"\n");
    run(&mut d, &reqs);
    assert_eq!(d.snapshot(d.now()).cpu_busy, vec![464 * 10_000]);
    assert_eq!(d.ftl.stats.erases, s.erases);
}

#[test]
fn controller_settings_out_of_range_are_refused_with_their_key() {
    let bad = |ctl: &str, want: &str| {
        let e = parse_config(&text(ctl), "ctl.toml", Path::new("."))
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{e}\nwanted {want}");
    };
    bad(
        "[device.controller]\ncpus = 0\n",
        "device.controller.cpus: got 0; expected 1 to 64",
    );
    bad(
        "[device.controller]\ncommand_time = \"20ms\"\n",
        "device.controller.command_time: got 20000000 ns; expected at most 10ms",
    );
    bad(
        "[device.controller]\nmemcpy_rate = \"1KB/s\"\n",
        "device.controller.memcpy_rate: got 1000 bytes/s",
    );
    bad(
        "[device.controller]\ngc_copy_rate = \"1KB/s\"\n",
        "device.controller.gc_copy_rate: got 1000 bytes/s",
    );
    bad(
        "[device.controller]\ngc_time = \"11ms\"\n",
        "device.controller.gc_time: got 11000000 ns; expected at most 10ms",
    );
    let e = parse_config(
        "[device]\npreset = \"cosmos-openssd\"\n[device.host]\ninterface = \"sata3\"\ncommand_overhead = \"0us\"\ndma = [[\"8KiB\", \"60MB/s\"], [\"4KiB\", \"90MB/s\"]]\n",
        "d.toml",
        Path::new("."),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("device.host.dma[1]") && e.contains("increasing order"),
        "{e}"
    );
    bad(
        "design = \"fast\"\n",
        "device.ftl.design: got \"fast\"; expected one of page",
    );
}
