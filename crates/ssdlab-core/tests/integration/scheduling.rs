//! The flash scheduler at the device level, against timelines computed by hand to the
//! nanosecond: a read arriving during a program (fcfs, read priority, suspension), during an
//! erase (with and without erase suspension), during a garbage collection in page steps, and
//! the bound on how long read priority can hold a write back.
//!
//! Device (unless a test says otherwise): one channel, one chip, one plane, SLC (tR 25 us,
//! tPROG 200 us, tBERS 1.5 ms), 8 KiB pages mapped whole, 100 MB/s channel (81,920 ns per
//! page), SATA link at 600 MB/s plus 5 us per command (18,654 ns per 8 KiB), no write buffer.

use ssdlab_core::config::parse_config;
use ssdlab_core::{Device, Op, Request};
use std::collections::HashMap;
use std::path::Path;

const R: u64 = 25_000; // tR
const P: u64 = 200_000; // tPROG
const E: u64 = 1_500_000; // tBERS
const CH: u64 = 81_920; // one page over the channel
const LINK: u64 = 18_654; // 8 KiB over the SATA link, with the command

fn device(blocks: u32, scheduler: &str) -> Device {
    let text = format!(
        r#"
[device]
name = "sched"
[device.geometry]
channels = 1
ways = 1
blocks_per_plane = {blocks}
pages_per_block = 4
page_size = "8KiB"
mapping_unit = "8KiB"
overprovisioning = 1.0
"#
    ) + crate::common::SLC_TIMING
        + &format!(
            r#"[device.scheduler]
{scheduler}
"#
        );
    let cfg = parse_config(&text, "sched.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    Device::new(&cfg.device, 1).unwrap()
}

/// Submits requests at their times and collects completions by tag.
struct Host {
    d: Device,
    done: HashMap<u64, u64>,
    next: u64,
}

impl Host {
    fn new(d: Device) -> Host {
        Host {
            d,
            done: HashMap::new(),
            next: 0,
        }
    }
    fn submit(&mut self, t: u64, op: Op, page: u64) -> u64 {
        self.d.advance_to(t).unwrap();
        let tag = self.next;
        self.next += 1;
        let req = Request {
            time_ns: t,
            op,
            offset: page * 8192,
            len: 8192,
            stream: 0,
        };
        self.d.submit(t, &req, tag).unwrap();
        self.collect();
        tag
    }
    fn collect(&mut self) {
        for (tag, c) in self.d.completions.drain(..) {
            self.done.insert(tag, c);
        }
    }
    /// Run everything queued; the completion time of each tag.
    fn finish(&mut self) -> &HashMap<u64, u64> {
        self.d.drain().unwrap();
        self.collect();
        &self.done
    }
    /// Write `page` far apart from anything else and wait for it.
    fn settle_write(&mut self, t: u64, page: u64) {
        let tag = self.submit(t, Op::Write, page);
        self.d.advance_to(t + 50_000_000).unwrap();
        self.collect();
        assert!(self.done.contains_key(&tag));
    }
    fn conflicting(&self) -> u64 {
        self.d.sched.unit_stats(0).conflicting_reads
    }
    fn suspensions(&self) -> u64 {
        self.d.sched.unit_stats(0).suspensions
    }
}

const T: u64 = 100_000_000;

/// Program P1 of a write arriving at T: link [T, T+LINK], data over the channel
/// [T+LINK, T+LINK+CH], array [T+LINK+CH, T+LINK+CH+P].
const P1_START: u64 = T + LINK + CH;
const P1_END: u64 = P1_START + P;

#[test]
fn a_read_during_a_program_waits_for_it_under_fcfs() {
    let mut h = Host::new(device(64, "policy = \"fcfs\""));
    h.settle_write(0, 0);
    let w = h.submit(T, Op::Write, 1);
    let r = h.submit(T + 150_000, Op::Read, 0);
    let done = h.finish().clone();
    assert_eq!(done[&w], P1_END);
    // The read starts when the program ends: tR, the page over the channel, the link.
    assert_eq!(done[&r], P1_END + R + CH + LINK);
    assert_eq!(h.conflicting(), 1);
}

#[test]
fn read_priority_lets_a_read_overtake_a_queued_program_but_not_a_running_one() {
    for (policy, read_done, w2_done) in [
        // fcfs: P2 (queued first, its data already in the cache register) runs before the read.
        ("fcfs", P1_END + P + R + CH + LINK, P1_END + P),
        // read priority: the read goes right after P1; P2 starts when the read's tR ends.
        ("read-priority", P1_END + R + CH + LINK, P1_END + R + P),
    ] {
        let mut h = Host::new(device(64, &format!("policy = \"{policy}\"")));
        h.settle_write(0, 0);
        let w1 = h.submit(T, Op::Write, 1);
        // Its data crosses the half-duplex link after w1's: [T+LINK, T+2*LINK], then waits in
        // the die's cache register (cache program) once the channel is free at T+LINK+CH.
        let w2 = h.submit(T + 1_000, Op::Write, 2);
        let r = h.submit(T + 150_000, Op::Read, 0);
        let done = h.finish().clone();
        assert_eq!(done[&w1], P1_END, "{policy}");
        assert_eq!(done[&r], read_done, "{policy}");
        assert_eq!(done[&w2], w2_done, "{policy}");
    }
}

#[test]
fn a_read_suspends_a_program() {
    let mut h = Host::new(device(
        64,
        "policy = \"read-priority\"\nsuspend = [\"program\"]\nprogram_suspend_time = \"30us\"\nresume_time = \"10us\"",
    ));
    h.settle_write(0, 0);
    let w = h.submit(T, Op::Write, 1);
    let arrive = T + 150_000;
    let r = h.submit(arrive, Op::Read, 0);
    let done = h.finish().clone();
    // Suspended at the read's arrival for 30 us; the read; resumed 10 us later with what was
    // left of the program.
    let left = P1_END - arrive;
    assert_eq!(done[&r], arrive + 30_000 + R + CH + LINK);
    assert_eq!(done[&w], arrive + 30_000 + R + 10_000 + left);
    assert_eq!(h.suspensions(), 1);
    // Without program suspension the same read waits for the program.
    let mut h = Host::new(device(64, "policy = \"read-priority\"\nsuspend = [\"erase\"]"));
    h.settle_write(0, 0);
    h.submit(T, Op::Write, 1);
    let r = h.submit(arrive, Op::Read, 0);
    assert_eq!(h.finish()[&r], P1_END + R + CH + LINK);
    assert_eq!(h.suspensions(), 0);
}

/// 29 writes on an 8-block plane of 4 pages: page 1 once, then page 0 over and over. The 29th
/// write needs a new block with one free block left: GC collects a block holding only stale
/// copies of page 0, which costs just its erase, queued ahead of the write's program.
fn erase_scenario(scheduler: &str) -> (u64, u64) {
    let mut h = Host::new(device(8, scheduler));
    h.settle_write(0, 1);
    for i in 1..28u64 {
        h.settle_write(i * 10_000_000, 0);
    }
    assert_eq!(h.d.ftl.stats.erases, 0);
    let w = h.submit(T * 10, Op::Write, 0);
    assert_eq!(h.d.ftl.stats.erases, 1, "the 29th write erased a block");
    assert_eq!(h.d.ftl.stats.gc_units_copied, 0);
    let r = h.submit(T * 10 + 100_000, Op::Read, 1);
    let done = h.finish().clone();
    (done[&r] - T * 10, done[&w] - T * 10)
}

#[test]
fn a_read_during_an_erase_with_and_without_erase_suspension() {
    // Erase [0, E]; the write's data waits in the cache register from LINK + CH on.
    let (read, write) = erase_scenario("policy = \"read-priority\"");
    assert_eq!(read, E + R + CH + LINK);
    assert_eq!(write, E + R + P, "the program starts when the read's tR ends");
    let (read, write) = erase_scenario(
        "policy = \"read-priority\"\nsuspend = [\"erase\"]\nerase_suspend_time = \"300us\"\nresume_time = \"10us\"",
    );
    // Suspended at 100 us for 300 us, the read, resumed 10 us later with 1.4 ms left.
    assert_eq!(read, 100_000 + 300_000 + R + CH + LINK);
    assert_eq!(write, 100_000 + 300_000 + R + 10_000 + (E - 100_000) + P);
}

/// Pages 0..15 written, then 0,1,4,5 and 8,9,12,13 overwritten, then page 0 four more times:
/// blocks A-D hold 2 valid pages each, G (page 0's last copies) 1. The next write (page 0)
/// needs a block with one free: GC collects G (one copy: read, data out, data in, program;
/// then its erase), and then a 2-valid block (two copies, an erase). The write's program
/// queues behind all of it.
fn gc_scenario(policy: &str, read_at: u64) -> (u64, u64) {
    let mut h = Host::new(device(8, &format!("policy = \"{policy}\"")));
    let mut t = 0;
    let mut w = |h: &mut Host, page| {
        t += 10_000_000;
        h.settle_write(t, page);
    };
    for p in 0..16 {
        w(&mut h, p);
    }
    for p in [0, 1, 4, 5, 8, 9, 12, 13, 0, 0, 0, 0] {
        w(&mut h, p);
    }
    assert_eq!(h.d.ftl.stats.erases, 0);
    let write = h.submit(T * 10, Op::Write, 0);
    assert_eq!(h.d.ftl.stats.gc_runs(), 2);
    assert_eq!(h.d.ftl.stats.gc_units_copied, 3);
    let read = h.submit(T * 10 + read_at, Op::Read, 14);
    let done = h.finish().clone();
    (done[&read] - T * 10, done[&write] - T * 10)
}

/// One GC copy step started at `t`: tR, the page out, the page in, tPROG.
const fn copy(t: u64) -> u64 {
    t + R + CH + CH + P
}

#[test]
fn a_read_during_gc_in_steps_waits_for_one_step_at_most() {
    let c1 = copy(0); // the first copy step ends: 388,840
                      // Whole GC: copy, erase, copy, copy, erase; then the write's program (its data preloaded).
    let gc_end = copy(copy(c1 + E)) + E;
    let (read, write) = gc_scenario("fcfs", 0);
    assert_eq!(
        write,
        gc_end + P,
        "the program waits for the whole GC: foreground GC holds it"
    );
    // A read arriving during the first copy's program phase.
    let arrive = 200_000;
    assert!(arrive > c1 - P && arrive < c1);
    let (read_rp, write_rp) = gc_scenario("read-priority", arrive);
    // It waits only for the step in progress, then tR, channel, link.
    assert_eq!(read_rp, c1 + R + CH + LINK);
    assert_eq!(write_rp, gc_end + R + P, "the GC resumes after the read's tR");
    // Under fcfs the same read waits for the whole collection and the write.
    let (read_fcfs, _) = gc_scenario("fcfs", arrive);
    assert_eq!(read_fcfs, gc_end + P + R + CH + LINK);
    assert!(read > 0);
}

/// One channel at 800 MB/s (8 KiB in 10,240 ns), an NVMe link without command overhead: reads
/// every 10 us keep the die busy (tR 25 us) with one always queued.
fn starvation(policy: &str, max_write_wait: &str) -> (u64, usize) {
    let text = format!(
        r#"
[device]
name = "starve"
[device.geometry]
channels = 1
ways = 1
blocks_per_plane = 64
pages_per_block = 4
page_size = "8KiB"
mapping_unit = "8KiB"
overprovisioning = 1.0
[device.nand]
cell = "slc"
read = "25us"
program = "200us"
erase = "1.5ms"
channel_rate = "800MB/s"
endurance = 100000
[device.host]
interface = "nvme-gen3x4"
command_overhead = "0ns"
[device.ftl]
gc_threshold = 2
[device.scheduler]
policy = "{policy}"
max_write_wait = "{max_write_wait}"
"#
    );
    let cfg = parse_config(&text, "starve.toml", Path::new(".")).unwrap();
    let mut h = Host::new(Device::new(&cfg.device, 1).unwrap());
    h.settle_write(0, 0);
    // Reads from T - 5 us every 10 us for 20 ms; the write arrives at T.
    let mut t = T - 5_000;
    let mut w = None;
    let mut reads = Vec::new();
    while t < T + 20_000_000 {
        if w.is_none() && t >= T {
            w = Some(h.submit(T, Op::Write, 1));
        }
        reads.push((t, h.submit(t, Op::Read, 0)));
        t += 10_000;
    }
    let done = h.finish().clone();
    let wdone = done[&w.unwrap()];
    let reads_before = reads.iter().filter(|(_, tag)| done[tag] <= wdone).count();
    (wdone - T, reads_before)
}

#[test]
fn write_starvation_is_bounded_under_read_priority() {
    // The write's program waits at the head of the queue until it has waited max_write_wait
    // (2 ms) at a dispatch point: reads end their tR at T + 20 us + k * 25 us, the first at or
    // after T + 2 ms is k = 80. Its data is already in the cache register: tPROG follows.
    let (lat, reads) = starvation("read-priority", "2ms");
    assert_eq!(lat, 20_000 + 80 * 25_000 + P);
    assert!(reads >= 80, "reads went first until then: {reads}");
    // Without a useful bound the write waits for the whole 20 ms read stream.
    let (lat, _) = starvation("read-priority", "1s");
    assert!(lat > 20_000_000, "{lat}");
    // fcfs: the write goes right after the read in progress.
    let (lat, _) = starvation("fcfs", "2ms");
    assert_eq!(lat, 20_000 + P);
}
