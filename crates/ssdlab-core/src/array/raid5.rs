//! RAID 5, left-symmetric: stripe `s` holds `n − 1` data chunks and one parity chunk; its
//! parity is on member `n − 1 − (s mod n)` and its data chunk `i` on member
//! `(parity + 1 + i) mod n`, all at member offset `s × stripe_unit`.
//!
//! Reads touch data chunks only. A write covering whole stripes writes their data and
//! parity at once. A write covering part of a stripe reads first (phase 0) the old data of
//! the ranges it writes and the old parity over the span of those ranges within their
//! chunks, then (phase 1) writes the new data and the new parity over that span: k chunks
//! touched cost k + 1 reads and k + 1 writes.

use super::raid0::chunks;
use super::{normalise, stripes, Layout, Part, Stripes};
use crate::request::Op;

pub struct Raid5(Stripes);

pub fn make(members: usize, stripe_unit: u64) -> Result<Box<dyn Layout>, String> {
    Ok(Box::new(Raid5(stripes(members, stripe_unit, 3)?)))
}

impl Raid5 {
    /// Member of data chunk `c` (volume numbering) and its stripe.
    fn place(&self, c: u64) -> (usize, u64) {
        let d = self.0.n - 1;
        let (s, i) = (c / d, c % d);
        let parity = self.parity(s) as u64;
        (((parity + 1 + i) % self.0.n) as usize, s)
    }
    fn parity(&self, s: u64) -> usize {
        (self.0.n - 1 - s % self.0.n) as usize
    }
}

impl Layout for Raid5 {
    fn name(&self) -> &'static str {
        "raid5"
    }
    fn members(&self) -> usize {
        self.0.n as usize
    }
    fn capacity(&self, member_bytes: u64) -> u64 {
        member_bytes / self.0.unit * self.0.unit * (self.0.n - 1)
    }
    fn split(&self, op: Op, offset: u64, len: u64, out: &mut Vec<Part>) {
        let from = out.len();
        let part = |member, offset, len, op, phase| Part {
            member,
            op,
            offset,
            len,
            phase,
        };
        if op != Op::Write {
            for (c, within, l) in chunks(offset, len, self.0.unit) {
                let (m, s) = self.place(c);
                out.push(part(m, s * self.0.unit + within, l, op, 0));
            }
            normalise(out, from);
            return;
        }
        let stripe = self.0.unit * (self.0.n - 1);
        let end = offset + len;
        let mut s = offset / stripe;
        while s * stripe < end {
            let (lo, hi) = ((s * stripe).max(offset), ((s + 1) * stripe).min(end));
            let base = s * self.0.unit;
            let pm = self.parity(s);
            if hi - lo == stripe {
                // Full stripe: new data and parity at once.
                for (c, within, l) in chunks(lo, hi - lo, self.0.unit) {
                    out.push(part(self.place(c).0, base + within, l, Op::Write, 0));
                }
                out.push(part(pm, base, self.0.unit, Op::Write, 0));
            } else {
                // Read-modify-write over the span of the touched ranges within their chunks.
                let (mut a, mut b) = (u64::MAX, 0);
                for (c, within, l) in chunks(lo, hi - lo, self.0.unit) {
                    let m = self.place(c).0;
                    out.push(part(m, base + within, l, Op::Read, 0));
                    out.push(part(m, base + within, l, Op::Write, 1));
                    (a, b) = (a.min(within), b.max(within + l));
                }
                out.push(part(pm, base + a, b - a, Op::Read, 0));
                out.push(part(pm, base + a, b - a, Op::Write, 1));
            }
            s += 1;
        }
        normalise(out, from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(l: &dyn Layout, op: Op, offset: u64, len: u64) -> Vec<(usize, Op, u64, u64, u8)> {
        let mut out = Vec::new();
        l.split(op, offset, len, &mut out);
        out.iter().map(|p| (p.member, p.op, p.offset, p.len, p.phase)).collect()
    }

    #[test]
    fn parity_rotates_left_symmetric() {
        // 4 members, 4 KiB chunks: stripe 0's parity on member 3, data chunks 0, 1, 2 on
        // members 0, 1, 2; stripe 1's parity on member 2, data 3, 4, 5 on members 3, 0, 1.
        let r = Raid5(Stripes { n: 4, unit: 4096 });
        assert_eq!((r.parity(0), r.parity(1), r.parity(2), r.parity(4)), (3, 2, 1, 3));
        let places: Vec<(usize, u64)> = (0..6).map(|c| r.place(c)).collect();
        assert_eq!(places, [(0, 0), (1, 0), (2, 0), (3, 1), (0, 1), (1, 1)]);
        assert_eq!(Raid5(Stripes { n: 4, unit: 4096 }).capacity(10 * 4096 + 5), 30 * 4096);
    }

    #[test]
    fn reads_touch_data_only() {
        let r = make(4, 4096).unwrap();
        // Chunks 2 and 3: member 2 at 0 (stripe 0), member 3 at 4096 (stripe 1).
        assert_eq!(
            split(&*r, Op::Read, 2 * 4096, 8192),
            [(2, Op::Read, 0, 4096, 0), (3, Op::Read, 4096, 4096, 0)]
        );
    }

    #[test]
    fn full_stripes_write_at_once_partial_ones_read_first() {
        let r = make(4, 4096).unwrap();
        // Stripe 1 whole (chunks 3, 4, 5 on members 3, 0, 1; parity on member 2): 4 writes,
        // no read.
        let w = split(&*r, Op::Write, 3 * 4096, 3 * 4096);
        assert_eq!(
            w,
            [
                (0, Op::Write, 4096, 4096, 0),
                (1, Op::Write, 4096, 4096, 0),
                (2, Op::Write, 4096, 4096, 0),
                (3, Op::Write, 4096, 4096, 0)
            ]
        );
        // 1 KiB inside chunk 1 (member 1): read old data and parity (member 3) over that
        // KiB, then write both: 2 reads, 2 writes.
        let w = split(&*r, Op::Write, 4096 + 1024, 1024);
        assert_eq!(
            w,
            [
                (1, Op::Read, 1024, 1024, 0),
                (3, Op::Read, 1024, 1024, 0),
                (1, Op::Write, 1024, 1024, 1),
                (3, Op::Write, 1024, 1024, 1)
            ]
        );
        // The tail of chunk 0 and the head of chunk 1: 2 chunks touched, parity over their
        // span within a chunk (the whole 4 KiB): 3 reads and 3 writes.
        let w = split(&*r, Op::Write, 3072, 2048);
        let count = |op, phase| w.iter().filter(|p| p.1 == op && p.4 == phase).count();
        assert_eq!((count(Op::Read, 0), count(Op::Write, 1), w.len()), (3, 3, 6));
        assert!(w.contains(&(3, Op::Read, 0, 4096, 0)) && w.contains(&(3, Op::Write, 0, 4096, 1)));
        // One stripe and a half: a full stripe at once, the partial one read first.
        let w = split(&*r, Op::Write, 0, 3 * 4096 + 4096);
        let reads = w.iter().filter(|p| p.1 == Op::Read).count();
        let writes = w.iter().filter(|p| p.1 == Op::Write).count();
        assert_eq!((reads, writes), (2, 4 + 2));
    }
}
