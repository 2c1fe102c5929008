//! The redundancy schemes against read/write interference (seed 004) on hand-computed cases:
//! HotR's R-LRU (insert, hit, eviction), its copy (served from the chip and copied while a
//! read conflicts, from the copy afterwards, dropped by a write), TTFlash's rebuild (the
//! stripe's other chips read, exact completion), Rails' roles (reads on the read-mode half,
//! the cache for stale copies and for writes, the swap and its flush); and, on random mixes, no read ever
//! served from a stale copy and every scheme's invariants.
//!
//! Device: SLC (tR 25 us, tPROG 200 us), 8 KiB pages (the mapping unit), 100 MB/s channels
//! (81,920 ns per page), a SATA link at 600 MB/s plus 5 us per command (18,654 ns per 8 KiB),
//! one plane per chip, first come first served, write-through.

use ssdlab_core::config::parse_config;
use ssdlab_core::{Device, Op, Request};
use std::path::Path;

const R: u64 = 25_000; // tR
const P: u64 = 200_000; // tPROG
const CH: u64 = 81_920; // one page over a channel
const LINK: u64 = 18_654; // 8 KiB over the SATA link, with the command
const PAGE: u64 = 8192;

/// `channels` data channels of one chip each; `scheme` is the `[device.redundancy]` body.
fn device(channels: u32, scheme: &str, fill: bool) -> Device {
    device_ftl(channels, scheme, fill, "")
}

/// [`device`] with more `[device.ftl]` keys.
fn device_ftl(channels: u32, scheme: &str, fill: bool, ftl: &str) -> Device {
    device_nand(channels, scheme, fill, ftl, crate::common::SLC_TIMING)
}

/// [`device_ftl`] with another `[device.nand]` (and the rest of [`crate::common::SLC_TIMING`]).
fn device_nand(channels: u32, scheme: &str, fill: bool, ftl: &str, nand: &str) -> Device {
    let text = format!(
        r#"
[device]
name = "dev"
[device.geometry]
channels = {channels}
ways = 1
blocks_per_plane = 32
pages_per_block = 16
page_size = "8KiB"
mapping_unit = "8KiB"
overprovisioning = 0.5
"#
    ) + nand
        + &format!(
            "write_buffer = \"0\"\n{ftl}\n[device.scheduler]\npolicy = \"fcfs\"\n[device.redundancy]\n{scheme}\n[precondition]\nmode = \"{}\"\nutilisation = 1.0\n",
            if fill { "sequential" } else { "none" }
        );
    let cfg = parse_config(&text, "dev.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let mut d = Device::new(&cfg.device, 1).unwrap();
    if fill {
        ssdlab_core::precondition::precondition(&mut d, &cfg.precondition, 0, &mut |_, _| {}).unwrap();
    }
    d
}

fn req(op: Op, page: u64) -> Request {
    Request {
        time_ns: 0,
        op,
        offset: page * PAGE,
        len: PAGE,
        stream: 0,
    }
}

use crate::common::at_once as at;

fn counter(d: &Device, name: &str) -> u64 {
    let s = d.scheme().expect("a scheme");
    s.counters()
        .into_iter()
        .find(|(k, _)| *k == name)
        .unwrap_or_else(|| panic!("no counter {name}"))
        .1
}

/// A write arriving at `t` on an idle chip ends at t + LINK + CH + P; a read of the same
/// chip arriving with it waits for it, then takes R + CH + LINK.
const WAIT: u64 = LINK + CH + P + R + CH + LINK;
const CLEAN: u64 = R + CH + LINK;

#[test]
fn hotr_copies_a_conflicting_hit_and_serves_the_next_conflict_from_scratch() {
    let mut d = device(
        1,
        "scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0\nmigrate = \"conflict\"",
        false,
    );
    let mut none = device(1, "", false);
    for dev in [&mut d, &mut none] {
        assert_eq!(at(dev, 0, &[req(Op::Write, 1)]), [LINK + CH + P]);
    }
    // An idle chip: the first read inserts an entry and is served from the chip.
    assert_eq!(at(&mut d, 1_000_000, &[req(Op::Read, 1)]), [1_000_000 + CLEAN]);
    assert_eq!((counter(&d, "inserts"), counter(&d, "home_conflicts")), (1, 0));
    // A program on the chip: a hit without a copy waits for it, and its page is copied to
    // the spare chip once read (the read does not wait for that).
    let t = 2_000_000;
    assert_eq!(
        at(&mut d, t, &[req(Op::Write, 2), req(Op::Read, 1)]),
        [t + LINK + CH + P, t + WAIT]
    );
    assert_eq!((counter(&d, "home_conflicts"), counter(&d, "migrations")), (1, 1));
    assert_eq!(counter(&d, "scratch_reads"), 0);
    // The next conflicting read is served from the copy on the idle spare chip.
    let t = 3_000_000;
    assert_eq!(
        at(&mut d, t, &[req(Op::Write, 3), req(Op::Read, 1)]),
        [t + LINK + CH + P, t + CLEAN]
    );
    assert_eq!(at(&mut none, t, &[req(Op::Write, 3), req(Op::Read, 1)])[1], t + WAIT);
    assert_eq!(
        (
            counter(&d, "scratch_reads"),
            counter(&d, "redirected_reads"),
            counter(&d, "conflicts_avoided")
        ),
        (1, 1, 1)
    );
    // A write drops the entry and its copy: the next conflicting read goes to the chip.
    let t = 4_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 1)]), [t + LINK + CH + P]);
    assert_eq!(counter(&d, "copies_invalidated"), 1);
    let t = 5_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 2), req(Op::Read, 1)])[1], t + WAIT);
    assert_eq!(counter(&d, "scratch_reads"), 1);
    // That read found no entry: it inserted one.
    assert_eq!(counter(&d, "inserts"), 2);
    d.check_invariants().unwrap();
}

#[test]
fn hotr_copies_every_hit_by_default_and_only_conflicting_ones_when_told() {
    for (migrate, copies) in [("", 1), ("migrate = \"conflict\"", 0)] {
        let mut d = device(
            1,
            &format!("scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0\n{migrate}"),
            false,
        );
        at(&mut d, 0, &[req(Op::Write, 1)]);
        // Two reads of page 1 on an idle chip: a miss, then a hit.
        at(&mut d, 1_000_000, &[req(Op::Read, 1)]);
        assert_eq!(at(&mut d, 2_000_000, &[req(Op::Read, 1)]), [2_000_000 + CLEAN]);
        assert_eq!(counter(&d, "migrations"), copies, "{migrate}");
        // A conflicting read: from the copy if there is one.
        let t = 3_000_000;
        let want = if copies == 1 { t + CLEAN } else { t + WAIT };
        assert_eq!(
            at(&mut d, t, &[req(Op::Write, 2), req(Op::Read, 1)])[1],
            want,
            "{migrate}"
        );
        assert_eq!(counter(&d, "scratch_reads"), copies, "{migrate}");
    }
}

#[test]
fn hotr_trim_drops_the_copy_and_reads_count_where_they_went() {
    let mut d = device(1, "scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0", true);
    assert_eq!(d.scheme().unwrap().name(), "hotr");
    at(&mut d, 1_000_000, &[req(Op::Read, 1)]);
    at(&mut d, 2_000_000, &[req(Op::Read, 1)]);
    assert_eq!(counter(&d, "migrations"), 1);
    // Page 3 copied too; a trim of pages 0..3 drops page 1's entry and copy, not page 3's;
    // page 1 reads unmapped.
    at(&mut d, 2_500_000, &[req(Op::Read, 3)]);
    at(&mut d, 2_600_000, &[req(Op::Read, 3)]);
    let trim = Request {
        len: 3 * PAGE,
        ..req(Op::Trim, 0)
    };
    at(&mut d, 3_500_000, &[trim]);
    assert_eq!(counter(&d, "copies_invalidated"), 1);
    assert_eq!(at(&mut d, 4_000_000, &[req(Op::Read, 1)]), [4_000_000 + LINK]);
    let t = 4_500_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 50), req(Op::Read, 3)])[1], t + CLEAN);
    assert_eq!(d.counters.unmapped_read_units, 1);
    // Every read counted once: 6 host reads, one conflict, served from page 3's copy.
    assert_eq!(
        (
            counter(&d, "reads"),
            counter(&d, "home_conflicts"),
            counter(&d, "redirected_reads")
        ),
        (6, 1, 1)
    );
    // A trim of nothing whole (half a page) drops nothing.
    at(&mut d, 5_000_000, &[req(Op::Read, 5)]);
    at(&mut d, 6_000_000, &[req(Op::Read, 5)]);
    let half = Request {
        len: PAGE / 2,
        ..req(Op::Trim, 5)
    };
    at(&mut d, 7_000_000, &[half]);
    assert_eq!(counter(&d, "copies_invalidated"), 1);
    d.check_invariants().unwrap();
}

/// The seed's two structures: a list of recently read pages with their Counts, and a copy
/// budget ("10 % of the hot read pages") filled by Count. One chip of 341 host units:
/// track_share 0.02 gives ceil(6.82) = 7 entries, hot_share 0.1 ceil(0.7) = 1 copy.
#[test]
fn hotr_copies_a_page_when_its_count_earns_a_place() {
    let mut d = device(1, "scheme = \"hotr\"\ntrack_share = 0.02", false);
    for p in 1..=3 {
        at(&mut d, p * 1_000_000, &[req(Op::Write, p)]);
    }
    let mut t = 10_000_000;
    let mut read = |d: &mut Device, p: u64| {
        t += 1_000_000;
        at(d, t, &[req(Op::Read, p)]);
    };
    // Page 1 read twice (Count 2): the empty set has room, it is copied.
    read(&mut d, 1);
    read(&mut d, 1);
    assert_eq!((counter(&d, "migrations"), counter(&d, "copies_held")), (1, 1));
    // Page 2 read twice: Count 2 is not above page 1's, no copy.
    read(&mut d, 2);
    read(&mut d, 2);
    assert_eq!(counter(&d, "migrations"), 1);
    // A third read (Count 3) earns the place: page 1's copy gives it up.
    read(&mut d, 2);
    assert_eq!(
        (
            counter(&d, "migrations"),
            counter(&d, "copies_replaced"),
            counter(&d, "copies_held")
        ),
        (2, 1, 1)
    );
    d.check_invariants().unwrap();
    // A conflicting read of page 1 (Count 3, no copy) waits for the chip and, equal to page
    // 2's Count, is not copied; page 2's is served from its copy.
    let t = 30_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 3), req(Op::Read, 1)])[1], t + WAIT);
    assert_eq!(counter(&d, "migrations"), 2);
    let t = 31_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 3), req(Op::Read, 2)])[1], t + CLEAN);
    // A write of page 2 drops its copy: the set is empty, and the next hit of page 1 is
    // copied.
    at(&mut d, 32_000_000, &[req(Op::Write, 2)]);
    assert_eq!((counter(&d, "copies_invalidated"), counter(&d, "copies_held")), (1, 0));
    at(&mut d, 33_000_000, &[req(Op::Read, 1)]);
    assert_eq!((counter(&d, "migrations"), counter(&d, "copies_held")), (3, 1));
    d.check_invariants().unwrap();
}

/// An entry falling off the R-LRU keeps its copy while the copy keeps its place; it goes
/// when a page of higher Count takes the place. track_share 0.005: ceil(1.705) = 2 entries;
/// hot_share 0.5: 1 copy.
#[test]
fn hotr_an_evicted_entry_keeps_a_copy_that_still_earns_its_place() {
    let mut d = device(1, "scheme = \"hotr\"\ntrack_share = 0.005\nhot_share = 0.5", false);
    for p in 1..=5 {
        at(&mut d, p * 1_000_000, &[req(Op::Write, p)]);
    }
    let mut t = 10_000_000;
    let mut read = |d: &mut Device, p: u64| {
        t += 1_000_000;
        at(d, t, &[req(Op::Read, p)]);
    };
    read(&mut d, 1);
    read(&mut d, 1);
    assert_eq!(counter(&d, "migrations"), 1);
    // Pages 2 and 3 fill the list: page 1 falls off, its copy stays.
    read(&mut d, 2);
    read(&mut d, 3);
    assert_eq!((counter(&d, "inserts"), counter(&d, "copies_kept")), (3, 1));
    d.check_invariants().unwrap();
    // A conflicting read of page 1 is served from the copy, and page 1 is listed again
    // (Count 3), without a new entry.
    let t = 20_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 5), req(Op::Read, 1)])[1], t + CLEAN);
    assert_eq!((counter(&d, "inserts"), counter(&d, "scratch_reads")), (3, 1));
    // Page 4 read three times (Count 3, not above 3) pushes page 1 off again: no copy for 4.
    let mut t = 30_000_000;
    let mut read = |d: &mut Device, p: u64| {
        t += 1_000_000;
        at(d, t, &[req(Op::Read, p)]);
    };
    for _ in 0..3 {
        read(&mut d, 4);
    }
    read(&mut d, 2);
    assert_eq!((counter(&d, "migrations"), counter(&d, "copies_kept")), (1, 2));
    // Its fourth read (Count 4) takes the place; page 1, off the list, is forgotten.
    read(&mut d, 4);
    assert_eq!((counter(&d, "migrations"), counter(&d, "copies_replaced")), (2, 1));
    d.check_invariants().unwrap();
    let inserts = counter(&d, "inserts");
    read(&mut d, 1);
    assert_eq!(counter(&d, "inserts"), inserts + 1);
    d.check_invariants().unwrap();
}

#[test]
fn hotr_scratch_ring_erases_a_block_before_reusing_it() {
    // One spare chip: 32 blocks of 16 pages, a ring of 512 slots. Two rounds of 300 pages,
    // each read twice (the second read copies it) then rewritten (its copy dropped): 600
    // copies: from the 513th the ring reuses blocks, erasing each first: the 88 copies past
    // 512 fill 6 blocks. Two spare chips share the copies: no ring wraps.
    for (spare, erases) in [(1, 6), (2, 0)] {
        let mut d = device(
            1,
            &format!("scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0\nspare_chips = {spare}"),
            true,
        );
        let mut t = 0;
        for _ in 0..2 {
            for p in 0..300 {
                for op in [Op::Read, Op::Read, Op::Write] {
                    // Apart enough for a write's garbage collection to end.
                    t += 10_000_000;
                    at(&mut d, t, &[req(op, p)]);
                }
            }
        }
        assert_eq!(counter(&d, "migrations"), 600);
        assert_eq!(counter(&d, "copies_invalidated"), 600);
        // The copies in the erased block were dropped by writes already.
        assert_eq!(
            (counter(&d, "scratch_erases"), counter(&d, "copies_evicted")),
            (erases, 0),
            "{spare}"
        );
        d.check_invariants().unwrap();
    }
}

#[test]
fn hotr_scratch_erase_drops_the_copies_still_in_the_block() {
    let mut d = device(1, "scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0", true);
    let mut t = 0;
    let mut run = |d: &mut Device, op: Op, p: u64| {
        t += 10_000_000;
        at(d, t, &[req(op, p)]);
    };
    // Pages 0..300 copied: slots 0..300 of the ring hold live copies.
    for p in 0..300 {
        run(&mut d, Op::Read, p);
        run(&mut d, Op::Read, p);
    }
    // 14 rounds of 16 pages rewritten and copied again: slots 300..512, then the ring wraps
    // into block 0 (slots 0..16), whose 16 live copies (pages 0..16) are dropped.
    for _ in 0..14 {
        for p in 300..316 {
            for op in [Op::Write, Op::Read, Op::Read] {
                run(&mut d, op, p);
            }
        }
    }
    assert_eq!(counter(&d, "migrations"), 300 + 224);
    assert_eq!((counter(&d, "scratch_erases"), counter(&d, "copies_evicted")), (1, 16));
    d.check_invariants().unwrap();
    // One more round: the ring enters block 1 (slots 16..32, pages 16..32's copies).
    for p in 300..316 {
        for op in [Op::Write, Op::Read, Op::Read] {
            run(&mut d, op, p);
        }
    }
    assert_eq!((counter(&d, "scratch_erases"), counter(&d, "copies_evicted")), (2, 32));
    d.check_invariants().unwrap();
    // Page 3 lost its copy: a conflicting read waits for the chip; page 40 kept its copy.
    let t = 100_000_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 330), req(Op::Read, 3)])[1], t + WAIT);
    let t = t + 100_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 331), req(Op::Read, 40)])[1], t + CLEAN);
}

#[test]
fn hotr_scratch_in_over_provisioning_copies_to_another_chip() {
    // Two chips, 682 host units; 5 % of them is 34 units: 2 blocks (of 16) lent per plane.
    // Every copy to an idle unit (`op_copies = "idle"`): the test follows the copies' path.
    let scheme = "scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0\nscratch = \"op\"\nscratch_share = 0.05\nop_copies = \"idle\"";
    let mut d = device_ftl(2, scheme, true, "allocation = \"round-robin\"");
    assert_eq!(d.geo.channels, 2);
    assert_eq!((d.ftl.reserved_blocks(0), d.ftl.reserved_blocks(1)), (2, 2));
    let cost = d.scheme().unwrap().space_cost();
    assert!((cost - (1.0 + 64.0 / 682.0)).abs() < 1e-12, "{cost}");
    // Page 0 (chip 0) read twice: copied to chip 1's lent blocks.
    at(&mut d, 1_000_000, &[req(Op::Read, 0)]);
    at(&mut d, 2_000_000, &[req(Op::Read, 0)]);
    assert_eq!(counter(&d, "migrations"), 1);
    // The first write goes to plane 0 (chip 0): the read is served from chip 1.
    let t = 3_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 100), req(Op::Read, 0)])[1], t + CLEAN);
    assert_eq!((counter(&d, "scratch_reads"), counter(&d, "conflicts_avoided")), (1, 1));
    // The next goes to chip 1: the copy is busy there, but page 0's own chip is free.
    let t = 4_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 101), req(Op::Read, 0)])[1], t + CLEAN);
    assert_eq!(counter(&d, "scratch_reads"), 1);
    d.check_invariants().unwrap();
}

/// `op_copies = "payoff"` (the default in over-provisioning): a copy to a data unit is made
/// when Count × conflict share × mean program ≥ host rate per unit × (transfer + program)^2.
#[test]
fn hotr_copies_to_data_units_only_when_they_pay() {
    let scheme = "scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0\nscratch = \"op\"\nscratch_share = 0.05";
    let mut d = device_ftl(2, scheme, true, "allocation = \"round-robin\"");
    // No read has conflicted yet (share 0): a hit pays nothing, whatever its Count.
    at(&mut d, 1_000_000, &[req(Op::Read, 0)]);
    at(&mut d, 2_000_000, &[req(Op::Read, 0)]);
    assert_eq!((counter(&d, "migrations"), counter(&d, "copies_unpaid")), (0, 1));
    // A write to chip 0 and a read of page 0 behind it: 1 conflict in 3 reads, Count 3. When
    // the read ends (at t + WAIT), 4 host units (3 reads, 1 write) in WAIT + 2 ms over 2
    // units; a copy holds a unit for CH + P: 3 × 1/3 × P = 200 us against
    // 4 / ((WAIT + 2 ms) × 2) × (CH + P)^2 = 2 × 281,920^2 / 2,563,840 ns = 62 us: it pays.
    let t = 3_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 100), req(Op::Read, 0)])[1], t + WAIT);
    let (l, c) = (4.0 / ((WAIT + 2_000_000) as f64 * 2.0), (CH + P) as f64);
    assert!(
        P as f64 >= l * c * c && P as f64 <= 4.0 * l * c * c,
        "a case near the line"
    );
    assert_eq!((counter(&d, "migrations"), counter(&d, "copies_unpaid")), (1, 1));
    // The same conflict with 60 reads of other pages (chip 1) beside it: Count 2, 1 conflict
    // in 62 reads, 63 host units in about 1.6 ms: 2/62 × P = 6.5 us against about 1.6 ms.
    let mut d = device_ftl(2, scheme, true, "allocation = \"round-robin\"");
    at(&mut d, 1_000_000, &[req(Op::Read, 0)]);
    let mut burst = vec![req(Op::Write, 100), req(Op::Read, 0)];
    burst.extend((0..60).map(|i| req(Op::Read, 3 + 2 * i)));
    at(&mut d, 2_000_000, &burst);
    assert_eq!((counter(&d, "migrations"), counter(&d, "copies_unpaid")), (0, 1));
    assert_eq!((counter(&d, "reads"), counter(&d, "home_conflicts")), (62, 1));
    d.check_invariants().unwrap();
}

#[test]
fn hotr_stops_copying_to_data_units_when_copies_save_nothing() {
    // Rounds of: page 0 read, then read behind a write on its chip (a conflict: it is copied
    // when that pays), then written (its copy and entry go). When the copy is read behind
    // another write before that (`reread`), it saves the read the rest of the program; when
    // not, the copy ends having saved nothing, and the measured yield weighs against the next.
    let scheme = "scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0\nscratch = \"op\"\nscratch_share = 0.05";
    let rounds = |reread: bool| {
        let mut d = device_ftl(2, scheme, true, "allocation = \"round-robin\"");
        let mut copies = Vec::new();
        for k in 0..10u64 {
            // Page 2k sits on chip 0 (the fill alternates), and so does every write of page
            // 100 here: writes alternate between the chips, four a round.
            let (t, page) = (6_000_000 * (k + 1), 2 * k);
            at(&mut d, t, &[req(Op::Read, page)]);
            at(&mut d, t + 1_000_000, &[req(Op::Write, 100), req(Op::Read, page)]);
            copies.push(counter(&d, "migrations"));
            at(&mut d, t + 2_500_000, &[req(Op::Write, 101)]);
            let other = if reread { page } else { 300 + 2 * k };
            at(&mut d, t + 3_000_000, &[req(Op::Write, 100), req(Op::Read, other)]);
            at(&mut d, t + 5_000_000, &[req(Op::Write, page)]);
        }
        d.check_invariants().unwrap();
        (copies, counter(&d, "redirected_reads"), counter(&d, "copies_unpaid"))
    };
    // Read again from its copy, each copy saves its read the rest of a program: every round
    // copies.
    assert_eq!(rounds(true), ((1..=10).collect::<Vec<u64>>(), 10, 0));
    // Never read again, the copies' yield falls with each that ends. Round k's conflicting
    // read ends at about t + 1.6 ms; Count n = 2, conflicts q = (2k + 1) / (3k + 2), host
    // units l = (7k + 3) over (6k + 1.6) ms and two units, c = CH + P. The copy pays while
    // 2 × (n q P / 2) / (k + 1) >= l c^2: round 4, 2 × 128.6 / 5 = 51.4 us >= 48.1 us;
    // round 5, 2 × 129.4 / 6 = 43.1 us < 47.8 us, and it only falls after.
    assert_eq!(rounds(false), (vec![1, 2, 3, 4, 5, 5, 5, 5, 5, 5], 0, 5));
}

#[test]
fn hotr_reads_a_copy_on_its_spare_chip_not_on_a_busy_data_chip() {
    // Two data chips (units 0 and 1, round-robin writes), the spare chip is unit 2.
    let mut d = device_ftl(
        2,
        "scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0",
        true,
        "allocation = \"round-robin\"",
    );
    at(&mut d, 1_000_000, &[req(Op::Read, 0)]);
    at(&mut d, 2_000_000, &[req(Op::Read, 0)]);
    assert_eq!(counter(&d, "migrations"), 1);
    // Both data chips program; page 0 (chip 0) is read from the idle spare chip.
    let t = 3_000_000;
    let done = at(&mut d, t, &[req(Op::Write, 100), req(Op::Write, 101), req(Op::Read, 0)]);
    assert_eq!(done[2], t + CLEAN);
    assert_eq!(counter(&d, "conflicts_avoided"), 1);
}

#[test]
fn hotr_lists_are_per_chip() {
    // Two chips, 682 host units: track_share 0.006 gives ceil(0.006 × 682 / 2) = 3 entries per
    // chip. Pages 0, 2, 4, 6 sit on chip 0 (the fill alternates), 1, 3, 5 on chip 1.
    let mut d = device(
        2,
        "scheme = \"hotr\"\ntrack_share = 0.006\nmigrate = \"conflict\"",
        true,
    );
    let mut t = 0;
    let mut read = |d: &mut Device, p: u64| {
        t += 1_000_000;
        at(d, t, &[req(Op::Read, p)]);
    };
    for p in [1, 3, 5, 0, 2, 4] {
        read(&mut d, p);
    }
    assert_eq!(counter(&d, "inserts"), 6);
    // Six entries fit: every page hits.
    for p in [1, 3, 5, 0, 2, 4] {
        read(&mut d, p);
    }
    assert_eq!(counter(&d, "inserts"), 6);
    // A fourth page on chip 0 evicts chip 0's least recent (page 0), not chip 1's.
    read(&mut d, 6);
    read(&mut d, 1);
    assert_eq!(counter(&d, "inserts"), 7);
    read(&mut d, 0);
    assert_eq!(counter(&d, "inserts"), 8);
    d.check_invariants().unwrap();
}

#[test]
fn ttflash_rebuilds_a_read_from_the_other_chips_of_its_stripe() {
    // 4 data channels + 1 parity channel: one chip group. Stripe 0 has its parity on chip 0
    // and host units 0..4 on chips 1..5; stripe 1 (units 4..8) its parity on chip 1, unit 4
    // on chip 2.
    let mut d = device(4, "scheme = \"ttflash\"", true);
    assert_eq!(d.geo.channels, 5);
    assert_eq!(d.scheme().unwrap().name(), "ttflash");
    // Unit 4's write programs chip 2 (data) and chip 1 (parity) at once; unit 1 (chip 2) is
    // read meanwhile: rebuilt from units 0 (chip 1, busy with the parity), 2, 3 and parity
    // 0. The busy chip makes the rebuild as slow as waiting.
    let t = 1_000_000;
    assert_eq!(
        at(&mut d, t, &[req(Op::Write, 4), req(Op::Read, 1)]),
        [t + LINK + CH + P, t + WAIT]
    );
    assert_eq!((counter(&d, "rebuilds"), counter(&d, "rebuild_reads")), (1, 4));
    assert_eq!(
        (counter(&d, "home_conflicts"), counter(&d, "conflicts_avoided")),
        (1, 0)
    );
    assert_eq!(counter(&d, "parity_programs"), 1);
    // A read of a chip with nothing to do is read there.
    let t = 2_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Read, 2)]), [t + CLEAN]);
    assert_eq!(counter(&d, "rebuild_reads"), 4);
    // A write of a whole stripe (units 8..12, 4 pages) programs one parity page.
    let four = Request {
        len: 4 * PAGE,
        ..req(Op::Write, 8)
    };
    at(&mut d, 3_000_000, &[four]);
    assert_eq!(counter(&d, "parity_programs"), 2);
    d.check_invariants().unwrap();
}

#[test]
fn ttflash_stripes_stay_in_their_chip_group() {
    // Two chip groups (8 data + 2 parity channels): group 0 on even channels, group 1 on
    // odd ones. Stripe 0 (units 0..4) is in group 0, stripe 1 (units 4..8) in group 1.
    let mut d = device(8, "scheme = \"ttflash\"", true);
    assert_eq!(d.geo.channels, 10);
    // Unit 4's write keeps two chips of group 1 busy; unit 0 (group 0) reads at once.
    let t = 1_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 4), req(Op::Read, 0)])[1], t + CLEAN);
    assert_eq!(counter(&d, "home_conflicts"), 0);
    // Unit 12 (stripe 3, group 1: parity on member (3 / 2) % 5 = 1, channel 3; the unit on
    // member 2, channel 5) and unit 5 (stripe 1: parity member 0, the unit on member 2,
    // channel 5): the read is rebuilt from units 4, 6, 7 and parity 1 (channels 3, 7, 9,
    // 1), and channel 3 holds the other program: as slow as waiting.
    let t = 2_000_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 12), req(Op::Read, 5)])[1], t + WAIT);
    assert_eq!((counter(&d, "rebuilds"), counter(&d, "rebuild_reads")), (1, 4));
    assert_eq!(counter(&d, "conflicts_avoided"), 0);
    d.check_invariants().unwrap();
}

#[test]
fn rails_reads_the_read_half_serves_stale_copies_from_cache_and_swaps_roles() {
    // One data channel mirrored on a second; roles swap every 1 ms.
    let mut d = device(1, "scheme = \"rails\"\nperiod = \"1ms\"", true);
    assert_eq!(d.geo.channels, 2);
    assert_eq!(d.scheme().unwrap().name(), "rails");
    // Group 0 writes: unit 0's write completes in the cache (the link only) and programs
    // chip 0; a read of unit 1 (its home, chip 0, is busy) is served by chip 1 at once.
    let t = 100_000;
    assert_eq!(
        at(&mut d, t, &[req(Op::Write, 0), req(Op::Read, 1)]),
        [t + LINK, t + CLEAN]
    );
    assert_eq!(
        (
            counter(&d, "home_conflicts"),
            counter(&d, "conflicts_avoided"),
            counter(&d, "redirected_reads")
        ),
        (1, 1, 1)
    );
    // Chip 1's copy of unit 0 is stale: read from the cache, the link only.
    let t = 500_000;
    assert_eq!(at(&mut d, t, &[req(Op::Read, 0)]), [t + LINK]);
    assert_eq!(counter(&d, "cache_reads"), 1);
    // After 1 ms the roles swap at the next request: chip 1 gets unit 0 (the flush) and the
    // read goes to chip 0, which is idle.
    let t = 1_500_000;
    assert_eq!(at(&mut d, t, &[req(Op::Read, 0)]), [t + CLEAN]);
    assert_eq!((counter(&d, "swaps"), counter(&d, "flush_programs")), (1, 1));
    // Now chip 1 writes: a write of unit 2 with reads of units 0 and 2 at once. Unit 0 is
    // read on chip 0; unit 2's copy there is stale: from the cache, once the write's data has
    // crossed the (half-duplex) link.
    let t = 1_800_000;
    assert_eq!(
        at(&mut d, t, &[req(Op::Write, 2), req(Op::Read, 0), req(Op::Read, 2)]),
        [t + LINK, t + CLEAN, t + 2 * LINK]
    );
    assert_eq!(counter(&d, "cache_reads"), 2);
    // One unit in the cache at a time: unit 0 left it when its flush ended (1.78 ms).
    assert_eq!(counter(&d, "cache_peak_units"), 1);
    // Three swaps due by 4.2 ms (at 2, 3 and 4 ms): an odd number, so the roles change once
    // more and chip 0 gets unit 2 (the two others would have flushed nothing new).
    let t = 4_200_000;
    at(&mut d, t, &[req(Op::Read, 3)]);
    assert_eq!((counter(&d, "swaps"), counter(&d, "flush_programs")), (4, 2));
    // Chip 0 writes again: a write to it leaves chip 1 free for reads.
    let t = 5_500_000;
    assert_eq!(at(&mut d, t, &[req(Op::Write, 3), req(Op::Read, 2)])[1], t + CLEAN);
    d.check_invariants().unwrap();
}

#[test]
fn rails_acknowledges_a_write_from_its_cache_or_from_flash() {
    for (ack, done) in [("", LINK), ("ack = \"flash\"", LINK + CH + P)] {
        let mut d = device(1, &format!("scheme = \"rails\"\n{ack}"), true);
        let t = 100_000;
        assert_eq!(at(&mut d, t, &[req(Op::Write, 0)]), [t + done], "{ack}");
        d.check_invariants().unwrap();
    }
}

/// Random reads and writes (with bursts that keep chips busy) on a small device, versions
/// tracked: no scheme may serve a stale copy, and every invariant holds.
fn random_mix(scheme: &str, channels: u32) -> Device {
    let mut d = device(channels, scheme, true);
    d.track_versions();
    let pages = d.geo.host_units;
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut t = 0;
    for i in 0..4000u64 {
        t += next() % 150_000;
        d.advance_to(t).unwrap();
        // Reads go to a hot tenth of the pages, writes anywhere (some to the hot pages).
        let r = next();
        let page = if r % 2 == 0 {
            r / 2 % (pages / 10)
        } else {
            r / 2 % pages
        };
        let op = if next() % 3 == 0 { Op::Write } else { Op::Read };
        d.submit(t, &req(op, page), i).unwrap();
        if i % 500 == 0 {
            d.check_invariants().unwrap();
        }
    }
    d.drain().unwrap();
    d.check_invariants().unwrap();
    assert_eq!(counter(&d, "stale_reads"), 0, "{scheme}");
    assert_eq!(d.completions.len(), 4000);
    d
}

#[test]
fn hotr_never_serves_a_stale_copy() {
    let d = random_mix("scheme = \"hotr\"\ntrack_share = 0.2\nhot_share = 1.0", 2);
    // The mix exercises the copies: many served, some dropped by writes.
    assert!(counter(&d, "scratch_reads") > 50, "{}", counter(&d, "scratch_reads"));
    assert!(counter(&d, "copies_invalidated") > 10);
}

#[test]
fn rails_never_serves_a_stale_copy() {
    let d = random_mix("scheme = \"rails\"\nperiod = \"2ms\"", 2);
    assert!(counter(&d, "cache_reads") > 10);
    let d = random_mix("scheme = \"rails\"\nperiod = \"2ms\"\nack = \"flash\"", 2);
    assert!(counter(&d, "cache_reads") > 10);
    assert!(counter(&d, "flush_programs") > 100);
}

#[test]
fn ttflash_keeps_every_unit_on_its_stripe_chip() {
    let d = random_mix("scheme = \"ttflash\"", 4);
    assert!(counter(&d, "rebuilds") > 50);
}

/// Copies are background work: a hit whose read ends while the only scratch unit programs
/// another copy is not copied (nothing queues behind the spare chip); a later hit, with the
/// spare chip idle, is.
#[test]
fn hotr_drops_a_copy_while_the_scratch_unit_is_busy() {
    let mut d = device(1, "scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0", false);
    at(&mut d, 0, &[req(Op::Write, 1), req(Op::Write, 2)]);
    at(&mut d, 1_000_000, &[req(Op::Read, 1), req(Op::Read, 2)]);
    assert_eq!((counter(&d, "inserts"), counter(&d, "migrations")), (2, 0));
    // Two hits at once on the idle chip: page 1's read ends first and its copy takes the
    // spare chip (a channel transfer and a program); page 2's read ends R later, while the
    // copy programs: dropped.
    let t = 2_000_000;
    let done = at(&mut d, t, &[req(Op::Read, 1), req(Op::Read, 2)]);
    assert_eq!(done[0], t + CLEAN);
    assert_eq!((counter(&d, "migrations"), counter(&d, "copies_dropped")), (1, 1));
    // The spare chip is idle again: page 2's next hit is copied.
    at(&mut d, 3_000_000, &[req(Op::Read, 2)]);
    assert_eq!((counter(&d, "migrations"), counter(&d, "copies_dropped")), (2, 1));
    d.check_invariants().unwrap();
}

/// A conflicting read with a copy goes to the copy only when the copy's unit can start it
/// sooner than its own chip: behind a copy that started before the write, the read stays
/// home and ends exactly when it does on a device without the scheme (whose data chip sees
/// the same operations); on an idle spare chip it is served from the copy.
#[test]
fn hotr_redirects_a_read_only_when_the_copy_s_chip_is_sooner() {
    let mut d = device(
        1,
        "scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0\nmigrate = \"conflict\"",
        false,
    );
    let mut none = device(1, "", false);
    for dev in [&mut d, &mut none] {
        at(dev, 0, &[req(Op::Write, 1), req(Op::Write, 2)]);
        at(dev, 1_000_000, &[req(Op::Read, 1), req(Op::Read, 2)]);
    }
    // Page 1 copied: a conflicting hit (a write arrives with it).
    at(&mut d, 2_000_000, &[req(Op::Write, 3), req(Op::Read, 1)]);
    at(&mut none, 2_000_000, &[req(Op::Write, 3), req(Op::Read, 1)]);
    assert_eq!(counter(&d, "migrations"), 1);
    // At t two writes and a read of page 2 arrive: page 2 waits for the first program, is
    // read, and its copy takes the spare chip (a channel transfer and a program) from the
    // moment its data is in the controller, t + WAIT - LINK. The second write's program runs
    // on the data chip meanwhile. Page 1's read, arriving just after, conflicts; its copy's
    // chip is free later than its own (which needs only the rest of that program), so it
    // stays home.
    let t = 3_000_000;
    let both = |dev: &mut Device| {
        dev.advance_to(t).unwrap();
        dev.submit(t, &req(Op::Write, 4), 0).unwrap();
        dev.submit(t, &req(Op::Read, 2), 1).unwrap();
        dev.submit(t, &req(Op::Write, 5), 2).unwrap();
        let t2 = t + WAIT - LINK + 1;
        dev.advance_to(t2).unwrap();
        dev.submit(t2, &req(Op::Read, 1), 3).unwrap();
        dev.drain().unwrap();
        let mut done = [0u64; 4];
        for (tag, c) in dev.completions.drain(..) {
            done[tag as usize] = c;
        }
        done
    };
    let (ours, theirs) = (both(&mut d), both(&mut none));
    assert_eq!(counter(&d, "migrations"), 2);
    assert_eq!(ours, theirs);
    assert_eq!((counter(&d, "copy_busy"), counter(&d, "scratch_reads")), (1, 0));
    // With the spare chip idle, the same conflict is served from the copy: R, the channel,
    // the link.
    let t = 5_000_000;
    let done = at(&mut d, t, &[req(Op::Write, 6), req(Op::Read, 1)]);
    assert_eq!(done[1], t + CLEAN);
    assert_eq!((counter(&d, "copy_busy"), counter(&d, "scratch_reads")), (1, 1));
    d.check_invariants().unwrap();
}

/// Mean and 99th-percentile latency of a read-heavy random mix (82 % reads, as the seed's
/// HPC-like workload, a fifth of them to a hot tenth of the pages, the rest anywhere: many
/// hits on pages read again only later) with exponential-like gaps
/// of mean `gap` ns, under workload seed `seed`.
fn read_heavy_dev(scheme: &str, gap: u64, seed: u64) -> ((f64, u64), Device) {
    let mut d = device(8, scheme, true);
    let pages = d.geo.host_units;
    let mut x: u64 = seed;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let n = 6000u64;
    let mut t = 0;
    let mut arrival = Vec::with_capacity(n as usize);
    for i in 0..n {
        // Uniform on (0, 2·gap): mean `gap`.
        t += next() % (2 * gap) + 1;
        d.advance_to(t).unwrap();
        let r = next();
        let page = if r % 5 == 0 {
            r / 5 % (pages / 10)
        } else {
            r / 5 % pages
        };
        let op = if next() % 100 < 82 { Op::Read } else { Op::Write };
        d.submit(t, &req(op, page), i).unwrap();
        arrival.push(t);
    }
    d.drain().unwrap();
    let mut lat: Vec<u64> = d
        .completions
        .iter()
        .map(|&(tag, c)| c - arrival[tag as usize])
        .collect();
    assert_eq!(lat.len(), n as usize);
    lat.sort_unstable();
    let mean = lat.iter().sum::<u64>() as f64 / n as f64;
    ((mean, lat[(n as usize * 99).div_ceil(100) - 1]), d)
}

/// The seed's migration happens "without affecting performance": on a read-heavy mix, from
/// light load to past the chips' capacity, HotR's mean and p99 (each averaged over three
/// workload seeds) are never worse than the baseline's by more than the noise (the largest
/// distance of one seed's baseline from their average), with its scratch space on a spare
/// chip or in the over-provisioning. On a spare chip it helps at some load beyond the noise;
/// in the over-provisioning, where a copy is made only when it is expected to pay, its copies
/// serve reads at some load (so the never-worse check is not met by copying nothing).
#[test]
fn hotr_is_never_worse_than_the_baseline_on_read_heavy_load() {
    let seeds = [0x9e37_79b9_7f4a_7c15, 0x2545_f491_4f6c_dd1d, 7];
    // Per workload seed: mean, p99, and reads served from copies.
    let runs = |scheme: &str, gap: u64| -> Vec<(f64, f64, u64)> {
        seeds
            .iter()
            .map(|&s| {
                let ((mean, p99), d) = read_heavy_dev(scheme, gap, s);
                let served = if scheme.is_empty() {
                    0
                } else {
                    counter(&d, "redirected_reads")
                };
                (mean, p99 as f64, served)
            })
            .collect()
    };
    type Run = (f64, f64, u64);
    let avg = |v: &[Run], f: fn(&Run) -> f64| v.iter().map(f).sum::<f64>() / v.len() as f64;
    let mut helped = false;
    let mut served_op = false;
    for gap in [100_000, 40_000, 20_000, 15_000, 12_000] {
        let base = runs("", gap);
        // The copies on a spare chip, of every hit or of conflicting ones, and in the data
        // chips' over-provisioning, where a copy is one more program on a data chip and is
        // made only when it is expected to pay (`op_copies = "payoff"`, the default).
        for migrate in ["migrate = \"hit\"", "migrate = \"conflict\"", "scratch = \"op\""] {
            let hotr = runs(&format!("scheme = \"hotr\"\ntrack_share = 0.2\n{migrate}"), gap);
            for (what, f) in [("mean", (|r: &Run| r.0) as fn(&Run) -> f64), ("p99", |r| r.1)] {
                let b = avg(&base, f);
                let noise = base.iter().map(|r| (f(r) - b).abs() / b).fold(0.0, f64::max);
                let h = avg(&hotr, f);
                assert!(
                    h <= b * (1.0 + noise),
                    "gap {gap} ns, {migrate}: {what} {h:.0} ns against the baseline's {b:.0} (noise {:.1} %)",
                    100.0 * noise
                );
                if migrate.contains("op") {
                    served_op |= hotr.iter().all(|r| r.2 > 0);
                } else {
                    helped |= what == "mean" && h < b * (1.0 - noise);
                }
            }
        }
        // Every copy to an idle data unit, paying or not: worse than the baseline at the
        // lightest load (its copies' programs are waited for; 1.1 % on the mean, noise 0.3 %).
        if gap == 100_000 {
            let idle = runs(
                "scheme = \"hotr\"\ntrack_share = 0.2\nscratch = \"op\"\nop_copies = \"idle\"",
                gap,
            );
            let b = avg(&base, |r| r.0);
            let noise = base.iter().map(|r| (r.0 - b).abs() / b).fold(0.0, f64::max);
            assert!(
                avg(&idle, |r| r.0) > b * (1.0 + noise),
                "unguarded copies cost the host"
            );
        }
    }
    assert!(helped, "HotR lowered the mean beyond the noise at some load");
    assert!(
        served_op,
        "HotR with its scratch in over-provisioning served reads from its copies under every workload seed at some load"
    );
}

/// The scratch space in over-provisioning: its blocks added to every plane (the default)
/// leave the GC the over-provisioning the baseline has, so a write-heavy mix collects as much
/// (within 1 %); taken from the over-provisioning (`scratch_blocks = "spare"`) the GC has less
/// room and copies more. (Lent blocks made `hotr-op` up to 94 % slower than the baseline on
/// the experiment's Postmark.)
#[test]
fn hotr_op_scratch_blocks_are_added_beside_the_over_provisioning() {
    let gc = |scheme: &str| {
        let mut d = device(2, scheme, true);
        let pages = d.geo.host_units;
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut t = 0;
        for i in 0..3000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            t += 400_000;
            d.advance_to(t).unwrap();
            let op = if i % 4 == 0 { Op::Read } else { Op::Write };
            d.submit(t, &req(op, x % pages), i).unwrap();
        }
        d.drain().unwrap();
        d.check_invariants().unwrap();
        (d.ftl.stats.gc_units_copied, d.ftl.stats.erases, d.geo.host_units)
    };
    let base = gc("");
    assert!(base.0 > 100, "the mix collects: {base:?}");
    // The same GC but for when a collection runs (a copy program on a data chip moves it).
    let added = gc("scheme = \"hotr\"\nscratch = \"op\"\nmigrate = \"conflict\"");
    assert_eq!(added.2, base.2);
    assert!(
        added.0.abs_diff(base.0) * 100 <= base.0 && added.1.abs_diff(base.1) * 100 <= base.1,
        "{added:?} against {base:?}"
    );
    let spare = gc("scheme = \"hotr\"\nscratch = \"op\"\nscratch_blocks = \"spare\"\nmigrate = \"conflict\"");
    assert_eq!(spare.2, base.2);
    assert!(spare.0 > base.0 * 11 / 10, "{spare:?} against {base:?}");
}

/// `scratch_cell = "slc"`: the spare chip of a TLC device programmed one bit per cell holds a
/// third of the pages (16 / 3 = 5 per block: a ring of 32 × 5 = 160 slots) and reads a copy in
/// the cell table's SLC time (25 us) where the data chips take 60 us.
#[test]
fn hotr_slc_scratch_holds_a_third_and_reads_at_slc_speed() {
    let tlc = crate::common::SLC_TIMING
        .replace("cell = \"slc\"", "cell = \"tlc\"")
        .replace("read = \"25us\"", "read = \"60us\"");
    for (cell, read, erases) in [("data", 60_000, 0), ("slc", 25_000, 8)] {
        let scheme = format!("scheme = \"hotr\"\ntrack_share = 1.0\nhot_share = 1.0\nscratch_cell = \"{cell}\"");
        let mut d = device_nand(1, &scheme, true, "", &tlc);
        // Page 1 copied, then read while its chip programs: from the copy.
        at(&mut d, 1_000_000, &[req(Op::Read, 1)]);
        at(&mut d, 2_000_000, &[req(Op::Read, 1)]);
        let t = 3_000_000;
        assert_eq!(
            at(&mut d, t, &[req(Op::Write, 50), req(Op::Read, 1)])[1],
            t + read + CH + LINK,
            "{cell}"
        );
        // 199 more pages copied and rewritten: 200 copies in a ring of 160 (SLC) wrap it,
        // erasing 40 / 5 = 8 blocks first; 512 slots (TLC) do not.
        let mut t = 10_000_000;
        for p in 100..299 {
            for op in [Op::Read, Op::Read, Op::Write] {
                t += 10_000_000;
                at(&mut d, t, &[req(op, p)]);
            }
        }
        assert_eq!(
            (counter(&d, "migrations"), counter(&d, "scratch_erases")),
            (200, erases),
            "{cell}"
        );
        d.check_invariants().unwrap();
    }
}
