//! RAID 0: chunk `c` of `stripe_unit` bytes lives on member `c mod n`, at member offset
//! `(c / n) × stripe_unit`. A request is cut at chunk boundaries; the pieces a member gets
//! from consecutive stripes are contiguous there and travel as one member request.

use super::{normalise, stripes, Layout, Part, Stripes};
use crate::request::Op;

pub struct Raid0(Stripes);

pub fn make(members: usize, stripe_unit: u64) -> Result<Box<dyn Layout>, String> {
    Ok(Box::new(Raid0(stripes(members, stripe_unit, 2)?)))
}

/// The pieces of `offset..offset + len` in chunks of `unit`: (chunk, offset in it, length).
pub(super) fn chunks(offset: u64, len: u64, unit: u64) -> impl Iterator<Item = (u64, u64, u64)> {
    let end = offset + len;
    let mut at = offset;
    std::iter::from_fn(move || {
        if at >= end {
            return None;
        }
        let (c, within) = (at / unit, at % unit);
        let l = (unit - within).min(end - at);
        at += l;
        Some((c, within, l))
    })
}

/// The parts of `offset..offset + len` striped RAID 0 style over `s.n` members, the `i`-th
/// of them being member `member(i)` of the volume.
pub(super) fn stripe(s: Stripes, op: Op, offset: u64, len: u64, member: impl Fn(usize) -> usize, out: &mut Vec<Part>) {
    for (c, within, l) in chunks(offset, len, s.unit) {
        out.push(Part {
            member: member((c % s.n) as usize),
            op,
            offset: c / s.n * s.unit + within,
            len: l,
            phase: 0,
        });
    }
}

impl Layout for Raid0 {
    fn name(&self) -> &'static str {
        "raid0"
    }
    fn members(&self) -> usize {
        self.0.n as usize
    }
    fn capacity(&self, member_bytes: u64) -> u64 {
        member_bytes / self.0.unit * self.0.unit * self.0.n
    }
    fn split(&self, op: Op, offset: u64, len: u64, out: &mut Vec<Part>) {
        let from = out.len();
        stripe(self.0, op, offset, len, |i| i, out);
        normalise(out, from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(l: &dyn Layout, op: Op, offset: u64, len: u64) -> Vec<(usize, u64, u64)> {
        let mut out = Vec::new();
        l.split(op, offset, len, &mut out);
        assert!(out.iter().all(|p| p.op == op && p.phase == 0));
        out.iter().map(|p| (p.member, p.offset, p.len)).collect()
    }

    #[test]
    fn stripes_and_merges_by_hand() {
        // 3 members, 64 KiB chunks.
        let r = make(3, 65536).unwrap();
        assert_eq!(r.capacity(1_000_000), 15 * 65536 * 3);
        // Inside one chunk: chunk 4 → member 1, its second chunk (offset 64 KiB).
        assert_eq!(split(&*r, Op::Read, 4 * 65536 + 100, 1000), [(1, 65536 + 100, 1000)]);
        // Across a boundary: chunk 0's tail on member 0, chunk 1's head on member 1.
        assert_eq!(
            split(&*r, Op::Write, 65536 - 512, 1024),
            [(0, 65536 - 512, 512), (1, 0, 512)]
        );
        // Two whole stripes from chunk 1: members 1, 2, 0, 1, 2, 0; member 0 gets chunks 3
        // and 6 (member offsets 64 KiB and 128 KiB: one request), member 1 chunks 1 and 4.
        assert_eq!(
            split(&*r, Op::Read, 65536, 6 * 65536),
            [(0, 65536, 2 * 65536), (1, 0, 2 * 65536), (2, 0, 2 * 65536)]
        );
        // The pieces add up to the request.
        let mut out = Vec::new();
        r.split(Op::Read, 12345 * 512, 777 * 4096, &mut out);
        assert_eq!(out.iter().map(|p| p.len).sum::<u64>(), 777 * 4096);
    }
}
