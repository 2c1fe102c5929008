//! RAID 1: every member holds the whole volume at the same offsets. A write goes to every
//! member; a read to one, by its first stripe unit (`(offset / unit) mod n`), so that reads
//! of different units spread over the mirrors.

use super::{stripes, Layout, Part, Stripes};
use crate::request::Op;

pub struct Raid1(Stripes);

pub fn make(members: usize, stripe_unit: u64) -> Result<Box<dyn Layout>, String> {
    Ok(Box::new(Raid1(stripes(members, stripe_unit, 2)?)))
}

impl Layout for Raid1 {
    fn name(&self) -> &'static str {
        "raid1"
    }
    fn members(&self) -> usize {
        self.0.n as usize
    }
    fn capacity(&self, member_bytes: u64) -> u64 {
        member_bytes
    }
    fn split(&self, op: Op, offset: u64, len: u64, out: &mut Vec<Part>) {
        let part = |member| Part {
            member,
            op,
            offset,
            len,
            phase: 0,
        };
        match op {
            Op::Read => out.push(part((offset / self.0.unit % self.0.n) as usize)),
            _ => out.extend((0..self.0.n as usize).map(part)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_go_everywhere_reads_to_one_mirror() {
        let r = make(2, 4096).unwrap();
        assert_eq!(r.capacity(1 << 30), 1 << 30);
        let mut out = Vec::new();
        r.split(Op::Write, 8192, 4096, &mut out);
        assert_eq!(
            out.iter().map(|p| (p.member, p.offset)).collect::<Vec<_>>(),
            [(0, 8192), (1, 8192)]
        );
        for (offset, member) in [(0, 0), (4096, 1), (8192, 0), (12288 + 100, 1)] {
            out.clear();
            r.split(Op::Read, offset, 512, &mut out);
            assert_eq!(out.len(), 1);
            assert_eq!((out[0].member, out[0].offset, out[0].len), (member, offset, 512));
        }
    }
}
