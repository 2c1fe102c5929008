//! A measured drive as an array member (seed 000): a timing model that serves requests at
//! the rates of its [`DeviceProfile`], so that real drives' behaviour can be mixed with
//! simulated ones in an array.
//!
//! The model:
//! - Requests are served one at a time, first in, first out.
//! - A read or write of `s` bytes takes `s / throughput(pattern, s, depth, r)` seconds
//!   (rounded to the nanosecond, at least 1 ns), where
//!   - `r` is the read share, by requests, of the last [`WINDOW`] reads and writes submitted,
//!     this one included (fixed when it is submitted);
//!   - `pattern` is sequential when the request starts where the previous request of the
//!     same operation ended, else random (also fixed at submission);
//!   - `depth` is the number of requests outstanding when its service starts: itself and
//!     those submitted by then and still waiting (at least 1).
//! - A trim completes at the time it is submitted and takes no service time.
//!
//! The service of the next request is an event of its own, at the time the previous one
//! completes (or the request arrives): a caller that submits a new request on a completion
//! does so before that event, so a closed loop of `d` requests runs at depth `d`. With a
//! steady mix such a loop moves bytes at the profile's throughput for that mix, to the
//! rounding of service times to the nanosecond.
//!
//! The drive does not look at offsets beyond sequentiality: `logical_bytes` (the profile's
//! capacity) is for the array to size the member.

use super::profile::{DeviceProfile, Pattern};
use crate::request::Op;
use std::collections::VecDeque;

/// Requests over which the read share is taken.
pub const WINDOW: usize = 64;

/// What a drive did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DriveStats {
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Time spent serving reads and writes, ns.
    pub busy_ns: u64,
}

#[derive(Clone, Copy, Debug)]
struct Waiting {
    tag: u64,
    arrival: u64,
    op: Op,
    len: u64,
    pattern: Pattern,
    read_share: f64,
}

/// A drive whose timing comes from a measured profile.
pub struct ProfileDrive {
    profile: DeviceProfile,
    /// Reads and writes not started yet, in submission order.
    queue: VecDeque<Waiting>,
    /// The request in service: (tag, completion time).
    serving: Option<(u64, u64)>,
    /// When the drive last finished a service (it cannot start one before).
    free_at: u64,
    /// Trims to complete: (tag, time), in submission order.
    trims: VecDeque<(u64, u64)>,
    /// The end of the last read and of the last write submitted (for sequentiality).
    last_end: [Option<u64>; 2],
    /// The last reads and writes submitted: true for a read.
    window: VecDeque<bool>,
    window_reads: usize,
    last_activity: u64,
    stats: DriveStats,
    /// Completions, (tag, time ns), appended by [`ProfileDrive::step`]; the caller drains it.
    pub completions: Vec<(u64, u64)>,
}

impl ProfileDrive {
    pub fn new(profile: DeviceProfile) -> ProfileDrive {
        ProfileDrive {
            profile,
            queue: VecDeque::new(),
            serving: None,
            free_at: 0,
            trims: VecDeque::new(),
            last_end: [None, None],
            window: VecDeque::with_capacity(WINDOW + 1),
            window_reads: 0,
            last_activity: 0,
            stats: DriveStats::default(),
            completions: Vec::new(),
        }
    }

    pub fn name(&self) -> &str {
        &self.profile.name
    }

    pub fn logical_bytes(&self) -> u64 {
        self.profile.capacity
    }

    pub fn profile(&self) -> &DeviceProfile {
        &self.profile
    }

    /// A request arriving at simulated time `t` (ns); `tag` comes back in `completions`.
    /// Requests are expected in order of time.
    pub fn submit(&mut self, t: u64, op: Op, offset: u64, len: u64, tag: u64) {
        self.last_activity = self.last_activity.max(t);
        let i = match op {
            // A measured drive has no zones; a zone command (which only a zoned design's jobs
            // send, and an array's members are never zoned: the config refuses it) would
            // complete at once, as a trim does.
            Op::Trim | Op::Zone(..) => {
                debug_assert!(op == Op::Trim, "zone command to a measured drive");
                self.trims.push_back((tag, t));
                return;
            }
            Op::Read => 0,
            Op::Write | Op::Append => 1,
        };
        let pattern = if self.last_end[i] == Some(offset) {
            Pattern::Sequential
        } else {
            Pattern::Random
        };
        self.last_end[i] = Some(offset.saturating_add(len));
        let read = op == Op::Read;
        self.window.push_back(read);
        self.window_reads += read as usize;
        if self.window.len() > WINDOW {
            let old = self.window.pop_front().expect("window not empty");
            self.window_reads -= old as usize;
        }
        let read_share = self.window_reads as f64 / self.window.len() as f64;
        self.queue.push_back(Waiting {
            tag,
            arrival: t,
            op,
            len,
            pattern,
            read_share,
        });
    }

    /// When the next request can start: when the drive is free and it has arrived.
    fn start_time(&self) -> Option<u64> {
        if self.serving.is_some() {
            return None;
        }
        self.queue.front().map(|w| w.arrival.max(self.free_at))
    }

    /// Time of the next internal event, if any.
    pub fn next_event(&self) -> Option<u64> {
        let service = match self.serving {
            Some((_, end)) => Some(end),
            None => self.start_time(),
        };
        let trim = self.trims.front().map(|&(_, t)| t);
        match (service, trim) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Process the next event: a trim or a service completes (appended to `completions`), or
    /// the next request starts its service. Nothing happens without an event.
    pub fn step(&mut self) {
        let Some(now) = self.next_event() else { return };
        if let Some(&(tag, t)) = self.trims.front() {
            if t == now {
                self.trims.pop_front();
                self.completions.push((tag, t));
                return;
            }
        }
        if let Some((tag, end)) = self.serving.take() {
            self.completions.push((tag, end));
            self.free_at = end;
            self.last_activity = self.last_activity.max(end);
            return;
        }
        let w = self.queue.pop_front().expect("a start event has a request");
        // Itself and the requests that have arrived by now.
        let depth = 1 + self.queue.iter().take_while(|x| x.arrival <= now).count();
        let tp = self.profile.throughput(
            w.pattern,
            w.len.max(1),
            depth.min(u32::MAX as usize) as u32,
            w.read_share,
        );
        let ns = if tp > 0.0 {
            (w.len as f64 * 1e9 / tp).round()
        } else {
            f64::MAX
        };
        // `as` saturates: a service beyond u64 ns ends at u64::MAX.
        let dur = (ns as u64).max(1);
        let end = now.saturating_add(dur);
        self.serving = Some((w.tag, end));
        self.stats.busy_ns = self.stats.busy_ns.saturating_add(dur);
        match w.op {
            Op::Read => {
                self.stats.reads += 1;
                self.stats.read_bytes = self.stats.read_bytes.saturating_add(w.len);
            }
            _ => {
                self.stats.writes += 1;
                self.stats.write_bytes = self.stats.write_bytes.saturating_add(w.len);
            }
        }
    }

    /// The latest time the drive saw a submission or a completion, ns.
    pub fn last_activity(&self) -> u64 {
        self.last_activity
    }

    /// Requests counted when their service starts, with their service time.
    pub fn stats(&self) -> DriveStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::profile::ProfilePoint;

    /// Random 2 MiB at depth 2: 200 MB/s all writes, 400 MB/s all reads; depth 4 twice that;
    /// sequential 1000 MB/s whatever the mix.
    fn profile() -> DeviceProfile {
        let pt = |pattern, depth, r: f64, mb: f64| ProfilePoint {
            pattern,
            bs: 2 << 20,
            depth,
            read_share: r,
            read_bytes_s: mb * 1e6 * r,
            write_bytes_s: mb * 1e6 * (1.0 - r),
            mean_lat_ns: 1.0,
        };
        DeviceProfile {
            name: "test".into(),
            capacity: 1 << 30,
            source: String::new(),
            points: vec![
                pt(Pattern::Random, 2, 0.0, 200.0),
                pt(Pattern::Random, 2, 1.0, 400.0),
                pt(Pattern::Random, 4, 0.0, 400.0),
                pt(Pattern::Random, 4, 1.0, 800.0),
                pt(Pattern::Sequential, 2, 0.5, 1000.0),
            ],
        }
    }

    /// Run every event, returning the completions.
    fn run(d: &mut ProfileDrive) -> Vec<(u64, u64)> {
        while d.next_event().is_some() {
            d.step();
        }
        std::mem::take(&mut d.completions)
    }

    #[test]
    fn a_closed_loop_at_a_steady_mix_moves_the_profiles_throughput() {
        let prof = profile();
        for (depth, share) in [(2usize, 0.35), (4, 0.35), (2, 0.0), (2, 1.0)] {
            let mut d = ProfileDrive::new(prof.clone());
            let bs = 2u64 << 20;
            // Read when the running count of reads at `share` steps up: exactly 35 reads
            // per 100 requests.
            let op = |i: u64| {
                if ((i + 1) as f64 * share).floor() > (i as f64 * share).floor() {
                    Op::Read
                } else {
                    Op::Write
                }
            };
            // Far-apart offsets: every request random.
            let off = |i: u64| (i * 7919 % 400) * bs;
            let mut next = 0u64;
            for _ in 0..depth {
                d.submit(0, op(next), off(next), bs, next);
                next += 1;
            }
            let total = 20_000u64;
            let (mut done, mut warm_end, mut warm_t) = (0u64, 0u64, 0u64);
            while let Some(t) = d.next_event() {
                d.step();
                for (_, c) in std::mem::take(&mut d.completions) {
                    assert_eq!(c, t);
                    done += 1;
                    if done == 1000 {
                        (warm_end, warm_t) = (done, c);
                    }
                    if next < total {
                        d.submit(c, op(next), off(next), bs, next);
                        next += 1;
                    }
                }
            }
            assert_eq!(done, total);
            let bytes = (done - warm_end) * bs;
            let secs = (d.last_activity() - warm_t) as f64 / 1e9;
            let got = bytes as f64 / secs;
            let want = prof.throughput(Pattern::Random, bs, depth as u32, share);
            assert!(
                (got / want - 1.0).abs() < 0.01,
                "depth {depth}, {share}: {got} vs {want}"
            );
            let s = d.stats();
            assert_eq!(s.reads + s.writes, total);
            assert_eq!(s.reads, (total as f64 * share).floor() as u64);
            // One at a time, never idle: busy the whole run.
            assert_eq!(s.busy_ns, d.last_activity());
        }
        // 35 % reads at depth 2: 200 + 0.35 × 200 = 270 MB/s.
        assert!((prof.throughput(Pattern::Random, 2 << 20, 2, 0.35) - 270e6).abs() < 1e-3);
    }

    #[test]
    fn requests_are_served_in_order_one_at_a_time() {
        let mut d = ProfileDrive::new(profile());
        let bs = 2u64 << 20;
        assert_eq!(d.next_event(), None);
        // A random write at t = 0, alone: depth 1 → the depth-2 figure (flat below), all
        // writes: 200 MB/s, 2 MiB in 10,485,760 ns.
        d.submit(0, Op::Write, 0, bs, 7);
        assert_eq!(d.next_event(), Some(0));
        d.step();
        assert!(d.completions.is_empty());
        assert_eq!(d.next_event(), Some(10_485_760));
        // Two more while it is served: a read (random: the first read), then a write that
        // continues the first (sequential: 1000 MB/s).
        d.submit(1_000, Op::Read, 1 << 30, bs, 8);
        d.submit(2_000, Op::Write, bs, bs, 9);
        let c = run(&mut d);
        let t1 = 10_485_760u64;
        // The read starts at t1 with the write waiting: depth 2, read share 1/2: 300 MB/s.
        let t2 = t1 + (bs as f64 * 1e9 / 300e6).round() as u64;
        // The write starts alone: sequential, 1000 MB/s whatever the mix.
        let t3 = t2 + (bs as f64 * 1e9 / 1000e6).round() as u64;
        assert_eq!(c, [(7, t1), (8, t2), (9, t3)]);
        assert_eq!(d.last_activity(), t3);
        let s = d.stats();
        assert_eq!(
            (s.reads, s.writes, s.read_bytes, s.write_bytes, s.busy_ns),
            (1, 2, bs, 2 * bs, t3)
        );
        // Idle until a request arrives later: it starts on arrival.
        d.submit(t3 + 5_000, Op::Write, 0, bs, 10);
        assert_eq!(d.next_event(), Some(t3 + 5_000));
        let c = run(&mut d);
        assert_eq!(c.len(), 1);
        assert_eq!(d.stats().busy_ns, t3 + c[0].1 - (t3 + 5_000));
    }

    #[test]
    fn trims_complete_at_once_and_count_nowhere() {
        let mut d = ProfileDrive::new(profile());
        d.submit(0, Op::Write, 0, 4096, 1);
        d.submit(5, Op::Trim, 0, 1 << 20, 2);
        let c = run(&mut d);
        assert_eq!(c[0], (2, 5));
        assert_eq!(c[1].0, 1);
        assert_eq!((d.stats().reads, d.stats().writes, d.stats().write_bytes), (0, 1, 4096));
        assert_eq!((d.name(), d.logical_bytes()), ("test", 1 << 30));
    }

    #[test]
    fn huge_requests_saturate_instead_of_overflowing() {
        let mut p = profile();
        for q in &mut p.points {
            q.read_bytes_s *= 1e-12;
            q.write_bytes_s *= 1e-12;
        }
        let mut d = ProfileDrive::new(p);
        d.submit(u64::MAX - 10, Op::Read, 0, u64::MAX, 1);
        let c = run(&mut d);
        assert_eq!(c, [(1, u64::MAX)]);
        assert_eq!(d.stats().busy_ns, u64::MAX);
    }
}
