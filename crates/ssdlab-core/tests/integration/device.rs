//! The device layer against values computed by hand: the write buffer (completion when the
//! data is in DRAM, stalls when it is full, reads served from it, and from flash for the GC
//! copies a shared frontier puts beside its pages), reads by flash page, read-modify-write,
//! TRIM of whole mapping units only, least-busy allocation within its slack (planes or dies as
//! units), busy times in snapshots, and background GC (the idle wait, armed at the start of a
//! run, none while draining), and streaming host transfers (a read's pages sent as they
//! arrive, a write's pages programmed as their data arrives) against store and forward.
//!
//! Device (unless a test says otherwise): SLC (tR 25 us, tPROG 200 us, tBERS 1.5 ms), 8 KiB
//! pages, 100 MB/s channels (81,920 ns per page), SATA link at 600 MB/s plus 5 us per command
//! (18,654 ns per 8 KiB).

use ssdlab_core::config::{parse_config, Config};
use ssdlab_core::device::DeviceCounters;
use ssdlab_core::ftl::NONE;
use ssdlab_core::{Device, Op, Request};
use std::path::Path;

const R: u64 = 25_000; // tR
const P: u64 = 200_000; // tPROG
const CH: u64 = 81_920; // one page over a channel
const LINK: u64 = 18_654; // 8 KiB over the SATA link, with the command
const CMD: u64 = 5_000; // a command without data over the link

/// `channels` channels of one plane each, blocks of 16 pages.
fn device(channels: u32, mapping_unit: &str, ftl: &str) -> Device {
    Device::new(&config(channels, mapping_unit, ftl).device, 1).unwrap()
}

/// The run file of [`device`], for a test to change what its text does not set.
fn config(channels: u32, mapping_unit: &str, ftl: &str) -> Config {
    let text = format!(
        r#"
[device]
name = "dev"
[device.geometry]
channels = {channels}
ways = 1
blocks_per_plane = 64
pages_per_block = 16
page_size = "8KiB"
mapping_unit = "{mapping_unit}"
overprovisioning = 0.5
"#
    ) + crate::common::SLC_TIMING
        + ftl
        + "\n";
    parse_config(&text, "dev.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"))
}

fn req(op: Op, offset: u64, len: u64) -> Request {
    Request {
        time_ns: 0,
        op,
        offset,
        len,
        stream: 0,
    }
}

use crate::common::at_once;

#[test]
fn buffered_writes_complete_in_dram_and_wait_when_it_is_full() {
    // A buffer of two pages; three one-page writes at once.
    let mut d = device(1, "8KiB", "write_buffer = \"16KiB\"");
    let w = |page: u64| req(Op::Write, page * 8192, 8192);
    d.advance_to(0).unwrap();
    for (tag, page) in [0u64, 1, 2].into_iter().enumerate() {
        d.submit(0, &w(page), tag as u64).unwrap();
    }
    // Page 1 is in DRAM, its program not ended: read from the buffer, no flash access.
    d.advance_to(3 * LINK).unwrap();
    d.submit(3 * LINK, &req(Op::Read, 8192, 8192), 3).unwrap();
    // Page 0 programmed (at LINK + CH + P = 300,574 ns), page 1 programming until 500,574 ns:
    // still read from the buffer.
    d.advance_to(400_000).unwrap();
    d.submit(400_000, &req(Op::Read, 8192, 8192), 4).unwrap();
    d.drain().unwrap();
    let mut done = [0u64; 5];
    for (tag, c) in d.completions.drain(..) {
        done[tag as usize] = c;
    }
    // The first two complete once their data has crossed the link; the third waits for the
    // first page's program to end (link, channel, tPROG) to have room.
    let first_program_end = LINK + CH + P;
    assert_eq!(done[..3], [LINK, 2 * LINK, first_program_end]);
    assert_eq!(done[3], 3 * LINK + LINK, "read from the buffer: the link only");
    assert_eq!(done[4], 400_000 + LINK, "read from the buffer: the link only");
    let c = &d.counters;
    assert_eq!((c.buffer_stalls, c.buffer_read_units, c.host_page_reads), (1, 2, 0));
    assert_eq!(d.ftl.stats.host_pages_programmed, 3);
    // Programmed, the page is read from flash.
    let t = 10_000_000;
    assert_eq!(at_once(&mut d, t, &[req(Op::Read, 8192, 8192)]), [t + R + CH + LINK]);
    assert_eq!(d.counters.host_page_reads, 1);
    d.ftl.check_invariants().unwrap();
}

#[test]
fn write_through_completes_when_the_program_ends() {
    let mut d = device(1, "8KiB", "");
    assert_eq!(at_once(&mut d, 0, &[req(Op::Write, 0, 8192)]), [LINK + CH + P]);
}

#[test]
fn trim_drops_only_whole_mapping_units() {
    // 4 KiB mapping units; units 0..8 written, then a trim over [2 KiB, 14 KiB + 4 KiB):
    // units 1, 2 and 3 lie wholly inside it, 0 and 4 only partly.
    let mut d = device(1, "4KiB", "");
    at_once(&mut d, 0, &[req(Op::Write, 0, 8 * 4096)]);
    let t = 10_000_000;
    assert_eq!(at_once(&mut d, t, &[req(Op::Trim, 2048, 4 * 4096)]), [t + CMD]);
    let mapped: Vec<bool> = (0..8).map(|u| d.ftl.lookup(u) != NONE).collect();
    assert_eq!(mapped, [true, false, false, false, true, true, true, true]);
    assert_eq!(d.counters.host_trim_units, 3);
    assert_eq!(d.ftl.stats.trimmed_units, 3);
    assert_eq!(d.ftl.valid_units(), 5);
    // A trim inside one unit drops nothing.
    at_once(&mut d, 2 * t, &[req(Op::Trim, 4096 * 5 + 512, 3072)]);
    assert_eq!((d.counters.host_trim_units, d.ftl.valid_units()), (3, 5));
    // Reading the range back finds the three units unmapped.
    at_once(&mut d, 3 * t, &[req(Op::Read, 0, 8 * 4096)]);
    assert_eq!(d.counters.unmapped_read_units, 3);
    d.ftl.check_invariants().unwrap();
}

fn plane_of(d: &Device, page: u64) -> usize {
    let pun = d.ftl.lookup(page * 2);
    d.geo.plane_of_block(d.geo.block_of_unit(pun))
}

#[test]
fn least_busy_allocation_avoids_a_busy_plane_within_its_slack() {
    // Two planes on two channels, 8 KiB pages of two 4 KiB units, slack of 3 pages.
    let mut d = device(2, "4KiB", "allocation = \"least-busy\"\nallocation_slack = 3");
    // Idle planes: ties go round robin.
    for page in 0..2 {
        at_once(&mut d, page * 10_000_000, &[req(Op::Write, page * 8192, 8192)]);
    }
    assert_eq!((plane_of(&d, 0), plane_of(&d, 1)), (0, 1));
    // Plane 1 busy with 32 reads of page 1 (2.6 ms of channel time); four page writes then.
    let t = 100_000_000;
    let mut reqs: Vec<Request> = (0..32).map(|_| req(Op::Read, 8192, 8192)).collect();
    reqs.extend((2..6).map(|page| req(Op::Write, page * 8192, 8192)));
    at_once(&mut d, t, &reqs);
    // Plane 0 takes pages until it is `slack` pages ahead of plane 1; then plane 1 must.
    let planes: Vec<usize> = (2..6).map(|p| plane_of(&d, p)).collect();
    assert_eq!(planes, [0, 0, 0, 1]);
    d.ftl.check_invariants().unwrap();
}

#[test]
fn background_gc_starts_after_the_unit_has_been_idle_for_bg_gc_idle() {
    // One plane; 8 KiB pages mapped whole; background GC below 4 free blocks after 1 ms idle.
    let mut d = device(1, "8KiB", "bg_gc_threshold = 4\nbg_gc_idle = \"1ms\"");
    let logical = d.geo.logical_units;
    let mut t = 0;
    let mut last = 0;
    // Fill the logical space, then overwrite until the plane is below its background
    // threshold, each write issued when the previous one completes (the unit never idles).
    for i in 0..2 * logical {
        last = d.run_request(t, &req(Op::Write, (i % logical) * 8192, 8192)).unwrap();
        t = last;
        if d.free_blocks() < 4 {
            break;
        }
    }
    assert!(d.free_blocks() < 4, "{} free blocks", d.free_blocks());
    assert_eq!(d.ftl.stats.gc_runs_background, 0);
    // The unit is idle from `last`: nothing before last + 1 ms, a collection then.
    d.advance_to(last + 1_000_000 - 1).unwrap();
    assert_eq!(d.ftl.stats.gc_runs_background, 0);
    assert_eq!(d.ftl.stats.gc_pages_read, 0);
    d.advance_to(last + 1_000_000).unwrap();
    assert_eq!(d.ftl.stats.gc_runs_background, 1);
    // Left alone, it collects up to the threshold and stops.
    d.advance_to(last + 1_000_000_000).unwrap();
    assert!(d.free_blocks() >= 4, "{}", d.free_blocks());
    assert_eq!(d.next_event(), None);
    d.ftl.check_invariants().unwrap();
}

#[test]
fn counters_since_a_snapshot_and_the_device_clock() {
    let mut d = device(1, "8KiB", "");
    assert_eq!(d.now(), 0);
    let done = d.run_request(7_000, &req(Op::Write, 0, 8192)).unwrap();
    assert_eq!(done, 7_000 + LINK + CH + P);
    assert_eq!(d.now(), done);
    d.advance_to(done + 5).unwrap();
    assert_eq!(d.now(), done, "no event after the program");
    let a = DeviceCounters {
        host_read_units: 10,
        host_write_units: 20,
        host_trim_units: 30,
        host_page_reads: 40,
        rmw_page_reads: 50,
        unmapped_read_units: 60,
        buffer_read_units: 70,
        buffer_stalls: 80,
        rmw_held_programs: 90,
    };
    let b = DeviceCounters {
        host_read_units: 11,
        host_write_units: 22,
        host_trim_units: 33,
        host_page_reads: 44,
        rmw_page_reads: 55,
        unmapped_read_units: 66,
        buffer_read_units: 77,
        buffer_stalls: 88,
        rmw_held_programs: 99,
    };
    assert_eq!(
        b.since(&a),
        DeviceCounters {
            host_read_units: 1,
            host_write_units: 2,
            host_trim_units: 3,
            host_page_reads: 4,
            rmw_page_reads: 5,
            unmapped_read_units: 6,
            buffer_read_units: 7,
            buffer_stalls: 8,
            rmw_held_programs: 9,
        }
    );
}

#[test]
fn host_work_during_the_idle_wait_restarts_it() {
    let mut d = device(1, "8KiB", "bg_gc_threshold = 4\nbg_gc_idle = \"1ms\"");
    let logical = d.geo.logical_units;
    let mut last = 0;
    for i in 0..2 * logical {
        last = d
            .run_request(last, &req(Op::Write, (i % logical) * 8192, 8192))
            .unwrap();
        if d.free_blocks() < 4 {
            break;
        }
    }
    // A write half-way through the wait: the timer armed at `last` must not fire.
    let t2 = d.run_request(last + 500_000, &req(Op::Write, 0, 8192)).unwrap();
    assert!(t2 < last + 1_000_000);
    d.advance_to(t2 + 1_000_000 - 1).unwrap();
    assert_eq!(d.ftl.stats.gc_runs_background, 0);
    d.advance_to(t2 + 1_000_000).unwrap();
    assert_eq!(d.ftl.stats.gc_runs_background, 1);
}

#[test]
fn a_snapshot_holds_every_units_busy_time_so_far() {
    // Two planes on two channels, round robin: pages 0 and 2 to plane 0, page 1 to plane 1,
    // all submitted at 0, their data over the half-duplex link one after another.
    let mut d = device(2, "8KiB", "");
    for (tag, page) in [0u64, 1, 2].into_iter().enumerate() {
        d.submit(0, &req(Op::Write, page * 8192, 8192), tag as u64).unwrap();
    }
    // Plane 0 programs page 0 in [LINK + CH, LINK + CH + P] = [100,574, 300,574], then page 2
    // (its data sent meanwhile, cache program) until 500,574. Plane 1: page 1's data from
    // 2 LINK, programmed in [2 LINK + CH, 2 LINK + CH + P] = [119,228, 319,228].
    let t = 400_574;
    d.advance_to(t).unwrap();
    let s = d.snapshot(t);
    assert_eq!(s.unit_busy, [P + 100_000, P]);
    assert_eq!(s.channel_busy, [2 * CH, CH]);
    assert_eq!(s.link_busy, [3 * LINK]);
    d.drain().unwrap();
    assert_eq!(d.last_activity(), LINK + CH + 2 * P);
    assert_eq!(d.snapshot(d.last_activity()).unit_busy, [2 * P, P]);
}

#[test]
fn a_read_takes_one_flash_read_per_page() {
    // 4 KiB mapping units, two to a page: 16 KiB written at 0 fill pages A and B.
    let mut d = device(1, "4KiB", "");
    at_once(&mut d, 0, &[req(Op::Write, 0, 16384)]);
    let t = 10_000_000;
    // A's tR, then its data over the channel while B's tR runs and B's data after A's; then
    // 16 KiB over the link (5 us + 27,307 ns).
    let done = at_once(&mut d, t, &[req(Op::Read, 0, 16384)]);
    assert_eq!(done, [t + R + 2 * CH + CMD + 27_307]);
    assert_eq!((d.counters.host_read_units, d.counters.host_page_reads), (4, 2));
}

#[test]
fn a_partial_write_reads_old_data_only_where_there_is_some() {
    // 8 KiB mapping units; 4 KiB writes (5 us + 6,827 ns over the link).
    let link4 = CMD + 6_827;
    let mut d = device(1, "8KiB", "");
    // Unit 0 never written: nothing to read, the page is programmed at once.
    assert_eq!(at_once(&mut d, 0, &[req(Op::Write, 0, 4096)]), [link4 + CH + P]);
    assert_eq!(d.counters.rmw_page_reads, 0);
    // Now on flash: its old half is read first (tR, the unit over the channel).
    let t = 10_000_000;
    let done = at_once(&mut d, t, &[req(Op::Write, 4096, 4096)]);
    assert_eq!(done, [t + R + CH + CH + P]);
    assert_eq!(d.counters.rmw_page_reads, 1);
    // The first half of the unit, which ends 4 KiB short of the unit's end: its old second
    // half is read first as well.
    let t = 20_000_000;
    assert_eq!(at_once(&mut d, t, &[req(Op::Write, 0, 4096)]), [t + R + CH + CH + P]);
    assert_eq!(d.counters.rmw_page_reads, 2);
}

/// A buffered device of 8 KiB units with unit 0 on flash (programmed, the buffer empty),
/// the buffer power-protected or not.
fn unit_0_on_flash(protected: bool) -> Device {
    let plp = if protected {
        "\npower_loss_protection = true"
    } else {
        ""
    };
    let mut d = device(1, "8KiB", &format!("write_buffer = \"16KiB\"{plp}"));
    at_once(&mut d, 0, &[req(Op::Write, 0, 8192)]);
    d
}

#[test]
fn a_buffered_partial_write_waits_for_its_old_data_without_power_loss_protection() {
    // 4 KiB into unit 0: its old half is read (tR, the unit over the channel) before the
    // write is acknowledged; then the page is programmed (channel, tPROG).
    let mut d = unit_0_on_flash(false);
    let t = 10_000_000;
    assert_eq!(at_once(&mut d, t, &[req(Op::Write, 4096, 4096)]), [t + R + CH]);
    assert_eq!(d.last_activity(), t + R + CH + CH + P);
    assert_eq!((d.counters.rmw_page_reads, d.counters.rmw_held_programs), (1, 0));
}

#[test]
fn a_power_protected_buffer_acknowledges_before_the_old_data_is_read() {
    // The same write, acknowledged once its 4 KiB have crossed the link; its page is held
    // until the old half is in (t + tR + CH), then programmed: the flash ends as before.
    let link4 = CMD + 6_827;
    let mut d = unit_0_on_flash(true);
    let t = 10_000_000;
    assert_eq!(at_once(&mut d, t, &[req(Op::Write, 4096, 4096)]), [t + link4]);
    assert_eq!(d.last_activity(), t + R + CH + CH + P);
    assert_eq!((d.counters.rmw_page_reads, d.counters.rmw_held_programs), (1, 1));
    // A unit never written needs no read: nothing is held.
    let t = 20_000_000;
    assert_eq!(at_once(&mut d, t, &[req(Op::Write, 65536 + 4096, 4096)]), [t + link4]);
    assert_eq!(d.last_activity(), t + link4 + CH + P);
    assert_eq!((d.counters.rmw_page_reads, d.counters.rmw_held_programs), (1, 1));
    d.ftl.check_invariants().unwrap();
}

#[test]
fn a_held_page_holds_the_later_pages_of_its_block() {
    // The partial write of unit 0, then a whole write of unit 1 into the next page of the
    // same block: both acknowledged from DRAM; unit 1's page waits behind unit 0's (a
    // block's pages are programmed in order), both released when the read ends at
    // t + tR + CH: unit 0's page crosses the channel and programs, unit 1's crosses during
    // that program and follows it (cache program). Programmed out of order, unit 1's page
    // would have ended first and the flash at t + 512,401 ns.
    let link4 = CMD + 6_827;
    let mut d = unit_0_on_flash(true);
    let t = 10_000_000;
    let w = [req(Op::Write, 4096, 4096), req(Op::Write, 8192, 8192)];
    d.advance_to(t).unwrap();
    for (tag, r) in w.iter().enumerate() {
        d.submit(t, r, tag as u64).unwrap();
    }
    // Before the read ends, unit 1 is still in the buffer: read without a flash access.
    d.advance_to(t + 100_000).unwrap();
    d.submit(t + 100_000, &req(Op::Read, 8192, 8192), 2).unwrap();
    d.drain().unwrap();
    let mut done = [0u64; 3];
    for (tag, c) in d.completions.drain(..) {
        done[tag as usize] = c;
    }
    assert_eq!(done, [t + link4, t + link4 + LINK, t + 100_000 + LINK]);
    assert_eq!(d.last_activity(), t + R + CH + CH + 2 * P);
    let c = &d.counters;
    assert_eq!((c.rmw_held_programs, c.buffer_read_units, c.host_page_reads), (2, 1, 0));
    d.ftl.check_invariants().unwrap();
}

#[test]
fn a_protected_write_that_waits_for_room_is_acknowledged_when_it_gets_in() {
    // A buffer of two pages holding two fresh writes; the partial write of unit 0 behind
    // them waits for room (the first program ends at LINK + CH + P), its old half read
    // meanwhile: the die programs the first page (its data came first), reads, programs the
    // second. The write is acknowledged when it gets in, before its read has ended; its page
    // is held until then, and programmed after the second (its data crossing meanwhile).
    let mut d = device(1, "8KiB", "write_buffer = \"16KiB\"\npower_loss_protection = true");
    at_once(&mut d, 0, &[req(Op::Write, 0, 8192)]);
    let t = 10_000_000;
    let w = [
        req(Op::Write, 16384, 8192),
        req(Op::Write, 24576, 8192),
        req(Op::Write, 4096, 4096),
    ];
    let done = at_once(&mut d, t, &w);
    assert_eq!(done, [t + LINK, t + 2 * LINK, t + LINK + CH + P]);
    assert_eq!((d.counters.buffer_stalls, d.counters.rmw_held_programs), (1, 1));
    let first_program_end = t + LINK + CH + P;
    assert_eq!(d.last_activity(), first_program_end + R + P + P);
    d.ftl.check_invariants().unwrap();
}

#[test]
fn waiting_writes_enter_the_buffer_in_order_as_programs_free_space() {
    // A buffer of two pages; four one-page writes at once: the last two wait.
    let mut d = device(1, "8KiB", "write_buffer = \"16KiB\"");
    let reqs: Vec<Request> = (0..4).map(|page| req(Op::Write, page * 8192, 8192)).collect();
    let done = at_once(&mut d, 0, &reqs);
    // Page 0 is programmed at LINK + CH + P and frees room for one page: the third write
    // goes in, the fourth waits for page 1's program, which follows at once (cache program).
    assert_eq!(done, [LINK, 2 * LINK, LINK + CH + P, LINK + CH + 2 * P]);
    assert_eq!(d.counters.buffer_stalls, 2);
}

#[test]
fn a_write_of_two_units_takes_room_for_both_in_the_buffer() {
    // A buffer of two pages of one 8 KiB unit each: a 16 KiB write fills it, so a one-page
    // write behind it waits for room.
    let mut d = device(1, "8KiB", "write_buffer = \"16KiB\"");
    let link16 = CMD + 27_307; // 16 KiB over the link, with the command
    let done = at_once(&mut d, 0, &[req(Op::Write, 0, 16384), req(Op::Write, 16384, 8192)]);
    // The first completes once its data is in DRAM; the second's data follows it over the
    // link but the buffer is full until the first page's program ends (channel, tPROG).
    assert_eq!(done, [link16, link16 + CH + P]);
    assert_eq!(d.counters.buffer_stalls, 1);
}

#[test]
fn the_last_activity_of_a_buffered_write_is_its_program() {
    // The write completes once its data is in DRAM; the flash works on until its program ends.
    let mut d = device(1, "8KiB", "write_buffer = \"16KiB\"");
    assert_eq!(at_once(&mut d, 0, &[req(Op::Write, 0, 8192)]), [LINK]);
    assert_eq!(d.last_activity(), LINK + CH + P);
}

#[test]
fn data_garbage_collection_moved_to_a_fresh_block_is_read_from_flash() {
    // A buffered device, fifo victims: logical unit 1 written once, then unit 0 over and over
    // until foreground GC takes the oldest block, which holds unit 1 and stale copies of 0.
    let mut d = device(1, "8KiB", "write_buffer = \"16KiB\"\ngc_policy = \"fifo\"");
    let mut t = d.run_request(0, &req(Op::Write, 8192, 8192)).unwrap();
    let first = d.geo.block_of_unit(d.ftl.lookup(1));
    while d.ftl.stats.gc_runs() == 0 {
        t = d.run_request(t, &req(Op::Write, 0, 8192)).unwrap();
    }
    d.drain().unwrap();
    // Unit 1 went to page 0 of a block the host never wrote.
    let pun = d.ftl.lookup(1);
    assert_ne!(d.geo.block_of_unit(pun), first);
    assert_eq!((d.geo.page_in_block(pun), d.ftl.stats.gc_units_copied), (0, 1));
    let before = d.counters.clone();
    let t = d.now() + 10_000_000;
    assert_eq!(at_once(&mut d, t, &[req(Op::Read, 8192, 8192)]), [t + R + CH + LINK]);
    let c = d.counters.since(&before);
    assert_eq!((c.host_page_reads, c.buffer_read_units), (1, 0));
}

#[test]
fn least_busy_allocation_with_dies_as_units_avoids_a_busy_die() {
    // Two dies on two channels, two planes each working as one unit: planes 0 and 2 on die 0,
    // 1 and 3 on die 1. Default slack: 16 / 4 = 4 pages.
    let mut cfg = config(2, "4KiB", "allocation = \"least-busy\"");
    cfg.device.geometry.planes_per_die = 2;
    cfg.device.nand.plane_parallel = false;
    let mut d = Device::new(&cfg.device, 1).unwrap();
    for page in 0..2 {
        at_once(&mut d, page * 10_000_000, &[req(Op::Write, page * 8192, 8192)]);
    }
    assert_eq!((plane_of(&d, 0), plane_of(&d, 1)), (0, 1));
    // Die 1 busy with 64 reads of page 1 (1.6 ms of tR); four page writes then.
    let t = 100_000_000;
    let mut reqs: Vec<Request> = (0..64).map(|_| req(Op::Read, 8192, 8192)).collect();
    reqs.extend((2..6).map(|page| req(Op::Write, page * 8192, 8192)));
    at_once(&mut d, t, &reqs);
    // All four go to die 0, whose queue of programs stays shorter; between its two planes,
    // equally busy, round robin.
    let planes: Vec<usize> = (2..6).map(|p| plane_of(&d, p)).collect();
    assert_eq!(planes, [2, 0, 2, 0]);
    d.ftl.check_invariants().unwrap();
}

/// A one-plane device below its background GC threshold (4 free blocks, 1 ms idle), filled
/// through the FTL alone as preconditioning does: nothing queued, the clock at 0.
fn below_background_threshold() -> Device {
    let mut d = device(1, "8KiB", "bg_gc_threshold = 4\nbg_gc_idle = \"1ms\"");
    d.ftl.record_ops = false;
    let logical = d.geo.logical_units;
    let mut lpn = 0;
    while d.free_blocks() >= 4 {
        d.ftl.append_host(0, lpn % logical).unwrap();
        lpn += 1;
    }
    d.ftl.record_ops = true;
    d
}

#[test]
fn background_gc_is_armed_at_the_start_of_a_run_but_not_while_draining() {
    let mut d = below_background_threshold();
    assert_eq!(d.next_event(), None);
    d.kick_background().unwrap();
    d.advance_to(1_000_000 - 1).unwrap();
    assert_eq!(d.ftl.stats.gc_runs_background, 0);
    d.advance_to(1_000_000).unwrap();
    assert_eq!(d.ftl.stats.gc_runs_background, 1);
    // The host is done: the armed wait ends, and no collection starts.
    let mut d = below_background_threshold();
    d.kick_background().unwrap();
    d.set_draining();
    d.advance_to(1_000_000_000).unwrap();
    assert_eq!(d.ftl.stats.gc_runs_background, 0);
    assert_eq!(d.next_event(), None);
}

/// A buffered device with a shared GC frontier and fifo victims: logical unit 1 written once,
/// then unit 0 over and over, each write on an idle device, until a write's foreground GC has
/// copied unit 1 for the `n`-th time. Blocks are collected in the order they were filled, and
/// every victim but the one holding unit 1 holds only stale copies of unit 0; the collection
/// that takes unit 1's block copies it alone to page 0 of a free block, where the write that
/// needed the block then takes page 1. Returns the device and the time `t` that write was
/// submitted (it is in DRAM at `t + LINK`; no event after that processed yet).
fn until_unit_1_is_copied(n: u64) -> (Device, u64) {
    let ftl = "write_buffer = \"16KiB\"\ngc_policy = \"fifo\"\ngc_frontier = \"shared\"";
    let mut d = device(1, "8KiB", ftl);
    d.run_request(0, &req(Op::Write, 8192, 8192)).unwrap();
    loop {
        d.drain().unwrap();
        let t = d.now();
        assert_eq!(d.run_request(t, &req(Op::Write, 0, 8192)).unwrap(), t + LINK);
        if d.ftl.stats.gc_units_copied == n {
            let (host, gc) = (d.ftl.lookup(0), d.ftl.lookup(1));
            let b = d.geo.block_of_unit(host);
            assert_eq!(d.geo.block_of_unit(gc), b);
            assert_eq!((d.geo.page_in_block(gc), d.geo.page_in_block(host)), (0, 1));
            return (d, t);
        }
    }
}

/// The foreground GC of [`until_unit_1_is_copied`] on an idle unit from `t`: the copy of unit
/// 1 (tR, its data out and back over the channel, tPROG) ends at `t` + 388,840 ns; the erase
/// of the victim (1.5 ms) and the program of the host page wait behind it.
const COPY: u64 = R + 2 * CH + P;

#[test]
fn a_host_page_after_gc_copies_in_a_reused_block_is_read_from_the_buffer() {
    // The second copy of unit 1 goes to a block erased once, whose first life held 16 host
    // pages programmed through the buffer.
    let (mut d, t) = until_unit_1_is_copied(2);
    let b = d.geo.block_of_unit(d.ftl.lookup(0));
    assert_eq!(d.ftl.erase_count(b), 1);
    // Unit 0 is in DRAM at t + LINK = t + 18,654 ns, its program still behind the copy and
    // the erase (it ends after t + 1.8 ms): a read then is served from the buffer, the data
    // crossing the link alone: t + 2 LINK = t + 37,308 ns. (Read from flash it would wait for
    // the copy, then tR, channel and link: t + 388,840 + 25,000 + 81,920 + 18,654 =
    // t + 514,414 ns.)
    let before = d.counters.clone();
    assert_eq!(at_once(&mut d, t + LINK, &[req(Op::Read, 0, 8192)]), [t + 2 * LINK]);
    let c = d.counters.since(&before);
    assert_eq!((c.buffer_read_units, c.host_page_reads), (1, 0));
    d.ftl.check_invariants().unwrap();
}

#[test]
fn a_page_gc_copied_ahead_of_the_hosts_first_page_is_read_from_flash() {
    // The first copy of unit 1 goes to a block never written; the host's page 1 behind it is
    // in the buffer, but the copy of unit 1 in page 0 never was.
    let (mut d, t) = until_unit_1_is_copied(1);
    let b = d.geo.block_of_unit(d.ftl.lookup(1));
    assert_eq!(d.ftl.erase_count(b), 0);
    // A read of unit 1 at t + LINK goes to flash: it waits for the copy to end (read priority
    // puts it ahead of the erase), then tR, the channel and the link:
    // t + 388,840 + 25,000 + 81,920 + 18,654 = t + 514,414 ns.
    let before = d.counters.clone();
    let done = at_once(&mut d, t + LINK, &[req(Op::Read, 8192, 8192)]);
    assert_eq!(done, [t + COPY + R + CH + LINK]);
    let c = d.counters.since(&before);
    assert_eq!((c.buffer_read_units, c.host_page_reads), (0, 1));
    d.ftl.check_invariants().unwrap();
}

#[test]
fn a_page_background_gc_copied_between_host_pages_is_read_from_flash() {
    // A shared GC frontier, fifo victims, background GC below 4 free blocks after 1 ms idle:
    // unit 1 written once, then unit 0 over and over, each write as the previous completes,
    // until the plane is below its background threshold.
    let ftl = "write_buffer = \"16KiB\"\ngc_policy = \"fifo\"\ngc_frontier = \"shared\"\n\
               bg_gc_threshold = 4\nbg_gc_idle = \"1ms\"";
    let mut d = device(1, "8KiB", ftl);
    let mut t = d.run_request(0, &req(Op::Write, 8192, 8192)).unwrap();
    while d.free_blocks() >= 4 {
        t = d.run_request(t, &req(Op::Write, 0, 8192)).unwrap();
    }
    // Idle, the unit collects the oldest block, which holds unit 1 among stale copies of
    // unit 0: unit 1 goes to the host frontier, the page after unit 0's.
    d.advance_to(t + 1_000_000_000).unwrap();
    assert_eq!((d.ftl.stats.gc_runs_background, d.next_event()), (1, None));
    let (host, gc) = (d.ftl.lookup(0), d.ftl.lookup(1));
    assert_eq!(d.geo.block_of_unit(gc), d.geo.block_of_unit(host));
    let copied = d.geo.page_in_block(gc);
    assert_eq!(copied, d.geo.page_in_block(host) + 1);
    // Unit 0 written again on the idle device at t takes the page after the copy; the unit
    // takes its program at once (its data over the channel from t + LINK, tPROG until
    // t + LINK + CH + P = t + 300,574 ns).
    let t = d.now();
    assert_eq!(d.run_request(t, &req(Op::Write, 0, 8192)).unwrap(), t + LINK);
    assert_eq!(d.geo.page_in_block(d.ftl.lookup(0)), copied + 1);
    // Unit 1 was never in the buffer: read at t + LINK, it waits for that program, then tR,
    // the channel and the link: t + 300,574 + 25,000 + 81,920 + 18,654 = t + 426,148 ns.
    let before = d.counters.clone();
    let done = at_once(&mut d, t + LINK, &[req(Op::Read, 8192, 8192)]);
    assert_eq!(done, [t + LINK + CH + P + R + CH + LINK]);
    let c = d.counters.since(&before);
    assert_eq!((c.buffer_read_units, c.host_page_reads), (0, 1));
    d.ftl.check_invariants().unwrap();
}

#[test]
fn a_buffered_page_programmed_before_the_next_was_issued_is_read_from_flash() {
    // A buffer of two pages. Page 0 is programmed by t = 10 ms; page 1 written then is in
    // DRAM at t + LINK, its data over the channel and tPROG until t + LINK + CH + P.
    let mut d = device(1, "8KiB", "write_buffer = \"16KiB\"");
    at_once(&mut d, 0, &[req(Op::Write, 0, 8192)]);
    let t = 10_000_000;
    d.advance_to(t).unwrap();
    d.submit(t, &req(Op::Write, 8192, 8192), 0).unwrap();
    // Page 0, read at t + LINK, is on flash only: it waits for page 1's program, then tR, the
    // channel and the link: t + 300,574 + 25,000 + 81,920 + 18,654 = t + 426,148 ns.
    d.advance_to(t + LINK).unwrap();
    d.submit(t + LINK, &req(Op::Read, 0, 8192), 1).unwrap();
    d.drain().unwrap();
    let done: Vec<(u64, u64)> = d.completions.drain(..).collect();
    assert_eq!(done, [(0, t + LINK), (1, t + LINK + CH + P + R + CH + LINK)]);
    assert_eq!((d.counters.buffer_read_units, d.counters.host_page_reads), (0, 1));
}

/// Blocks of `plane` filled with copies of logical unit `lpn`, `appends` units in all, each
/// closed block collected (emptied, erased) before the next unit goes in, through the FTL
/// alone; the last closed block is left when the last append closed it.
fn fill_and_collect(d: &mut Device, plane: usize, lpn: u64, appends: u64) {
    for _ in 0..appends {
        if d.ftl.gc_candidates(plane) > 0 {
            assert!(d.ftl.gc_once(plane).unwrap());
        }
        d.ftl.append_host(plane, lpn).unwrap();
    }
}

#[test]
fn background_gc_skips_a_plane_of_its_die_that_has_nothing_to_collect() {
    // One die of two planes working as one unit (planes 0 and 1), blocks that wear out at
    // their first erase, background GC below 4 free blocks after 1 ms idle.
    let mut cfg = config(1, "8KiB", "bg_gc_threshold = 4\nbg_gc_idle = \"1ms\"");
    cfg.device.geometry.planes_per_die = 2;
    cfg.device.nand.plane_parallel = false;
    cfg.device.nand.endurance = 1;
    let mut d = Device::new(&cfg.device, 1).unwrap();
    d.ftl.record_ops = false;
    // Plane 0: 61 blocks of 16 copies of unit 0, the first 60 collected and retired, the
    // 61st full but still the open block: 64 - 60 - 1 = 3 free blocks, below the threshold,
    // and nothing to collect.
    fill_and_collect(&mut d, 0, 0, 61 * 16);
    // Plane 1 likewise with unit 1, and one unit more: the 61st block closes, holding only
    // stale copies, and a 62nd opens: 2 free blocks and one block to collect.
    fill_and_collect(&mut d, 1, 1, 61 * 16 + 1);
    d.ftl.record_ops = true;
    assert_eq!((d.ftl.free_blocks(0), d.ftl.gc_candidates(0)), (3, 0));
    assert_eq!((d.ftl.free_blocks(1), d.ftl.gc_candidates(1)), (2, 1));
    let before = d.ftl.stats.clone();
    // Idle for 1 ms, the die collects plane 1's block (no valid units: one erase, which
    // retires it), then has nothing left to collect anywhere.
    d.kick_background().unwrap();
    d.advance_to(1_000_000_000).unwrap();
    let s = d.ftl.stats.since(&before);
    assert_eq!((s.gc_runs_background, s.erases, s.retired_blocks), (1, 1, 1));
    assert_eq!(d.next_event(), None);
    d.ftl.check_invariants().unwrap();
}

/// [`device`] with `device.host.streaming` set as given.
fn streaming_device(channels: u32, ftl: &str, streaming: bool) -> Device {
    let mut c = config(channels, "8KiB", ftl);
    c.device.host.streaming = streaming;
    Device::new(&c.device, 1).unwrap()
}

#[test]
fn a_streaming_read_sends_each_page_as_it_reaches_the_controller() {
    // Three pages on one unit: page k's data is in the controller at R + (k + 1) CH (each
    // page's tR runs while the one before crosses the channel).
    let t = 10_000_000;
    let read = [req(Op::Read, 0, 3 * 8192)];
    let mut done = Vec::new();
    for streaming in [false, true] {
        let mut d = streaming_device(1, "", streaming);
        at_once(&mut d, 0, &[req(Op::Write, 0, 3 * 8192)]);
        done.push(at_once(&mut d, t, &read)[0]);
    }
    // Store and forward: 24 KiB over the link (5 us + 40,960 ns) after the last page.
    assert_eq!(done[0], t + R + 3 * CH + CMD + 40_960);
    // Streaming: pages 1 and 2 cross (13,654 ns each) while the channel brings the next;
    // the last crosses with the command's 5 us.
    assert_eq!(done[1], t + R + 3 * CH + LINK);
}

#[test]
fn a_streaming_write_programs_each_page_once_its_data_has_crossed() {
    // Three pages written through on one unit. The 24 KiB cross the link from 5 us (after
    // the command) to 45,960 ns at an even rate: page 0's data is in at 18,654 ns (LINK),
    // page 1's at 32,307, page 2's at 45,960. Each page's data crosses the channel (CH) as
    // soon as it is in and the channel is free (the next page's during the program before:
    // cache program), then the programs follow one another.
    let write = [req(Op::Write, 0, 3 * 8192)];
    let s = at_once(&mut streaming_device(1, "", false), 0, &write)[0];
    let st = at_once(&mut streaming_device(1, "", true), 0, &write)[0];
    // Store and forward: every program waits for the whole transfer.
    assert_eq!(s, CMD + 40_960 + CH + 3 * P);
    assert_eq!(st, LINK + CH + 3 * P);
    // Buffered: the write completes when its data is in DRAM either way; the pages program
    // as their data arrives.
    let buf = "write_buffer = \"64KiB\"";
    let mut d = streaming_device(1, buf, true);
    assert_eq!(at_once(&mut d, 0, &write), [CMD + 40_960]);
    assert_eq!(d.last_activity(), LINK + CH + 3 * P);
    let mut d = streaming_device(1, buf, false);
    at_once(&mut d, 0, &write);
    assert_eq!(d.last_activity(), CMD + 40_960 + CH + 3 * P);
}

#[test]
fn streaming_is_refused_with_a_firmware_design() {
    let mut c = config(1, "8KiB", "");
    c.device.host.streaming = true;
    c.device.ftl.design = "cosmos-original".into();
    assert!(Device::new(&c.device, 1).is_err());
}

#[test]
fn after_request_background_gc_collects_once_a_victim_is_invalid_enough_and_queues_its_work_at_once() {
    // One plane of 64 blocks of 16 pages, pages mapped whole; FEMU's background GC with
    // every free-block count short (below 61) and half of a victim to be invalid; flash
    // operations in arrival order, as FEMU's per-LUN timelines.
    let mut d = device(
        1,
        "8KiB",
        "bg_gc = \"after-request\"\nbg_gc_threshold = 61\nbg_gc_min_invalid = 0.5\n[device.scheduler]\npolicy = \"fcfs\"",
    );
    let w = |page: u64| req(Op::Write, page * 8192, 8192);
    let mut t = 0;
    for page in 0..64 {
        t = d.run_request(t, &w(page)).unwrap();
    }
    // Blocks 0..4 full and wholly valid: nothing worth collecting.
    assert_eq!(d.ftl.stats.gc_runs(), 0);
    // Pages 0..7 of block 0 overwritten: 7 of 16 invalid is not half.
    for page in 0..7 {
        t = d.run_request(t, &w(page)).unwrap();
    }
    assert_eq!(d.ftl.stats.gc_runs(), 0);
    // The 8th makes it half invalid: collected as soon as the write is handled (no idle
    // wait), its 8 valid pages copied and the block erased, queued behind the write's
    // program and ahead of a read that arrives at the same moment.
    d.advance_to(t).unwrap();
    d.submit(t, &w(7), 0).unwrap();
    assert_eq!(
        (
            d.ftl.stats.gc_runs_background,
            d.ftl.stats.gc_units_copied,
            d.ftl.stats.erases
        ),
        (1, 8, 1)
    );
    d.submit(t, &req(Op::Read, 20 * 8192, 8192), 1).unwrap();
    d.drain().unwrap();
    let mut done = [0u64; 2];
    for (tag, c) in d.completions.drain(..) {
        done[tag as usize] = c;
    }
    const ERASE: u64 = 1_500_000;
    let copy = R + 2 * CH + P;
    assert_eq!(done[0], t + LINK + CH + P);
    assert_eq!(done[1], t + LINK + CH + P + 8 * copy + ERASE + R + CH + LINK);
    d.ftl.check_invariants().unwrap();
}
