//! A resource timeline: the busy intervals of one resource (host link, channel, plane or die).
//!
//! Operations reserve the first idle gap at or after their earliest start, so a resource
//! serves work in the order it becomes ready and never idles while ready work waits
//! (work-conserving FCFS). Intervals that end before the current host time are dropped, and
//! back-to-back intervals are merged, so a timeline holds only the work queued on it.

use std::collections::VecDeque;

/// Kinds of work, as bits (merged intervals keep the union).
pub const READ: u8 = 1;
pub const XFER: u8 = 2;
pub const PROGRAM: u8 = 4;
pub const ERASE: u8 = 8;
/// Program or erase work (what a read waiting behind counts as interference).
pub const WRITE_KINDS: u8 = PROGRAM | ERASE;

#[derive(Clone, Copy, Debug)]
struct Interval {
    start: u64,
    end: u64,
    kinds: u8,
}

#[derive(Clone, Debug, Default)]
pub struct Timeline {
    iv: VecDeque<Interval>,
    /// Total busy time booked.
    pub busy_ns: u64,
    last_end: u64,
}

impl Timeline {
    /// End of the last booked work (the resource is idle from then on).
    pub fn last_end(&self) -> u64 {
        self.last_end
    }

    /// Book `dur` ns of work of kind `kind` at or after `earliest`; `now` is the host time
    /// (no later booking can start before it). Returns the start time and the kinds of the
    /// work it had to wait behind.
    #[inline]
    pub fn reserve(&mut self, now: u64, earliest: u64, dur: u64, kind: u8) -> (u64, u8) {
        while let Some(f) = self.iv.front() {
            if f.end <= now {
                self.iv.pop_front();
            } else {
                break;
            }
        }
        if dur == 0 {
            return (earliest, 0);
        }
        self.busy_ns += dur;
        // Fast path: after everything booked.
        match self.iv.back_mut() {
            None => {
                self.push(earliest, dur, kind);
                return (earliest, 0);
            }
            Some(b) if b.end <= earliest => {
                if b.end == earliest {
                    b.end += dur;
                    b.kinds |= kind;
                    self.last_end = b.end;
                } else {
                    self.push(earliest, dur, kind);
                }
                return (earliest, 0);
            }
            _ => {}
        }
        let mut i = self.iv.partition_point(|x| x.end <= earliest);
        let mut t = earliest;
        let mut waited = 0u8;
        while i < self.iv.len() {
            let x = self.iv[i];
            if x.start >= t + dur {
                break;
            }
            if x.start > t || x.end > t {
                waited |= x.kinds;
            }
            t = t.max(x.end);
            i += 1;
        }
        let end = t + dur;
        // Merge with neighbours that touch.
        let merge_prev = i > 0 && self.iv[i - 1].end == t;
        let merge_next = i < self.iv.len() && self.iv[i].start == end;
        match (merge_prev, merge_next) {
            (true, true) => {
                let n = self.iv.remove(i).expect("next");
                let p = &mut self.iv[i - 1];
                p.end = n.end;
                p.kinds |= kind | n.kinds;
            }
            (true, false) => {
                let p = &mut self.iv[i - 1];
                p.end = end;
                p.kinds |= kind;
            }
            (false, true) => {
                let n = &mut self.iv[i];
                n.start = t;
                n.kinds |= kind;
            }
            (false, false) => self.iv.insert(
                i,
                Interval {
                    start: t,
                    end,
                    kinds: kind,
                },
            ),
        }
        self.last_end = self.last_end.max(end);
        (t, waited)
    }

    fn push(&mut self, start: u64, dur: u64, kind: u8) {
        self.iv.push_back(Interval {
            start,
            end: start + dur,
            kinds: kind,
        });
        self.last_end = start + dur;
    }

    /// Number of intervals held (queued work fragments).
    pub fn queued(&self) -> usize {
        self.iv.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fcfs_and_gap_filling() {
        let mut t = Timeline::default();
        assert_eq!(t.reserve(0, 0, 10, READ), (0, 0));
        assert_eq!(t.reserve(0, 0, 10, PROGRAM), (10, READ));
        // Booked later in the future...
        assert_eq!(t.reserve(0, 100, 10, READ), (100, 0));
        // ...an earlier-ready op fills the gap before it.
        assert_eq!(t.reserve(0, 20, 50, READ), (20, 0));
        // No room between 70 and 100 for 40 ns: goes after 110.
        assert_eq!(t.reserve(0, 60, 40, READ), (110, READ | PROGRAM));
        assert_eq!(t.busy_ns, 120);
        assert_eq!(t.last_end(), 150);
        // Pruning drops finished work.
        t.reserve(200, 200, 1, READ);
        assert_eq!(t.queued(), 1);
    }

    #[test]
    fn waits_behind_program_are_reported() {
        let mut t = Timeline::default();
        t.reserve(0, 0, 1000, PROGRAM);
        let (s, w) = t.reserve(0, 5, 50, READ);
        assert_eq!(s, 1000);
        assert!(w & WRITE_KINDS != 0);
    }
}
