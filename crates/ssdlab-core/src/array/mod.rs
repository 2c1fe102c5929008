//! Arrays of SSDs (seed 000): the layouts that map a request to a volume onto requests to its
//! member devices. One file per layout, registered in [`REGISTRY`]:
//! `single` (one member), `raid0` (striping), `raid1` (mirroring), `raid5` (rotating parity,
//! read-modify-write on partial-stripe writes).
//!
//! A layout is arithmetic only: [`Layout::split`] turns one volume request into member
//! requests ([`Part`]s), each in a phase. The parts of phase 0 go first; those of phase 1
//! wait until every part of phase 0 is done (RAID 5's new data and parity wait for the old
//! ones to be read). The request completes when its last part does.
//!
//! `characterize.rs` sweeps a simulated drive by read share, request size, queue depth and
//! pattern (section 3) into a profile.
//! `profile.rs` reads a real drive's measured points from fio's JSON output into curves.
//! `rodi.rs` holds the seed's RODI model (member curves, read-only gain, the members' loads,
//! section 4's throughputs).
//!
//! Status: this is the first piece of the array layer. The volume that drives member devices
//! through the host model, the `rodi` layout, and the per-member results are not built yet.

pub mod characterize;
pub mod profile;
mod raid0;
mod raid1;
mod raid5;
pub mod rodi;

use crate::request::Op;

/// A member request of a volume request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub member: usize,
    pub op: Op,
    /// Byte offset on the member.
    pub offset: u64,
    pub len: u64,
    /// 0: issued at once; 1: issued when every part of phase 0 is done.
    pub phase: u8,
}

pub trait Layout: Send + Sync {
    fn name(&self) -> &'static str;
    fn members(&self) -> usize;
    /// The volume's capacity over members of `member_bytes` each.
    fn capacity(&self, member_bytes: u64) -> u64;
    /// The member requests of a volume request (`len` > 0, inside the capacity), appended to
    /// `out` in order of phase, then member, then offset.
    fn split(&self, op: Op, offset: u64, len: u64, out: &mut Vec<Part>);
}

/// A layout over one member: the volume is the device.
pub struct Single;

impl Layout for Single {
    fn name(&self) -> &'static str {
        "single"
    }
    fn members(&self) -> usize {
        1
    }
    fn capacity(&self, member_bytes: u64) -> u64 {
        member_bytes
    }
    fn split(&self, op: Op, offset: u64, len: u64, out: &mut Vec<Part>) {
        out.push(Part {
            member: 0,
            op,
            offset,
            len,
            phase: 0,
        });
    }
}

type Ctor = fn(members: usize, stripe_unit: u64) -> Result<Box<dyn Layout>, String>;

/// (name, description, constructor).
pub const REGISTRY: &[(&str, &str, Ctor)] = &[
    ("single", "one member: the volume is the device", |m, _| {
        if m != 1 {
            return Err(format!("got {m} members; expected 1"));
        }
        Ok(Box::new(Single))
    }),
    ("raid0", "striping in units of stripe_unit", raid0::make),
    (
        "raid1",
        "every member a mirror; reads spread by stripe unit",
        raid1::make,
    ),
    (
        "raid5",
        "rotating parity (left-symmetric); partial-stripe writes read old data and parity first",
        raid5::make,
    ),
];

/// The layout `name` over `members` devices with stripe unit `stripe_unit` bytes.
pub fn make(name: &str, members: usize, stripe_unit: u64) -> Result<Box<dyn Layout>, String> {
    let Some(r) = REGISTRY.iter().find(|r| r.0 == name) else {
        let names: Vec<&str> = REGISTRY.iter().map(|r| r.0).collect();
        return Err(format!("got \"{name}\"; expected one of {}", names.join(", ")));
    };
    if stripe_unit == 0 || !stripe_unit.is_multiple_of(512) {
        return Err(format!(
            "stripe unit {stripe_unit} B; expected a positive multiple of 512 bytes"
        ));
    }
    (r.2)(members, stripe_unit)
}

/// Members and stripe unit of a striped layout.
#[derive(Clone, Copy, Debug)]
struct Stripes {
    n: u64,
    unit: u64,
}

/// [`Stripes`] over `members` devices, at least `min` of them.
fn stripes(members: usize, stripe_unit: u64, min: usize) -> Result<Stripes, String> {
    if members < min {
        return Err(format!("got {members} members; expected at least {min}"));
    }
    Ok(Stripes {
        n: members as u64,
        unit: stripe_unit,
    })
}

/// Append `p` to `out`, merged into the last part when it continues it on the same member.
fn push_merged(out: &mut Vec<Part>, p: Part) {
    if let Some(last) = out.last_mut() {
        if last.member == p.member && last.op == p.op && last.phase == p.phase && last.offset + last.len == p.offset {
            last.len += p.len;
            return;
        }
    }
    out.push(p);
}

/// Sort parts by phase, member and offset, merging those that continue one another.
fn normalise(out: &mut Vec<Part>, from: usize) {
    let mut parts: Vec<Part> = out.drain(from..).collect();
    parts.sort_by_key(|p| (p.phase, p.member, p.offset, p.op == Op::Write));
    for p in parts {
        push_merged(out, p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every layout covers a read exactly once with data parts inside the members, and
        /// a raid0 or raid5 write's data parts too; RAID 5 adds parity on the stripe's
        /// parity member and reads only before it writes.
        #[test]
        fn parts_cover_the_request(n in 3usize..7, unit_k in 1u64..17, off in 0u64..1_000_000, len in 1u64..400_000, write: bool) {
            let unit = unit_k * 512;
            let member = 64 * 1024 * 1024;
            for name in ["raid0", "raid1", "raid5"] {
                let l = make(name, n, unit).unwrap();
                let op = if write { Op::Write } else { Op::Read };
                let (off, len) = (off / 512 * 512, len.div_ceil(512) * 512);
                prop_assume!(off + len <= l.capacity(member));
                let mut out = Vec::new();
                l.split(op, off, len, &mut out);
                prop_assert!(out.iter().all(|p| p.member < n && p.offset + p.len <= member && p.len > 0));
                prop_assert!(out.windows(2).all(|w| w[0].phase <= w[1].phase));
                let data: u64 = match (name, write) {
                    ("raid1", true) => out.iter().map(|p| p.len).sum::<u64>() / n as u64,
                    ("raid5", true) => {
                        // The data, plus per stripe touched a parity write of at least
                        // a sector and at most a chunk; reads only in phase 0.
                        let stripe = unit * (n as u64 - 1);
                        let stripes = (off + len).div_ceil(stripe) - off / stripe;
                        let written: u64 = out.iter().filter(|p| p.op == Op::Write).map(|p| p.len).sum();
                        prop_assert!(written >= len + 512 * stripes && written <= len + unit * stripes);
                        prop_assert!(out.iter().all(|p| p.op == Op::Write || p.phase == 0));
                        len
                    }
                    _ => out.iter().map(|p| p.len).sum(),
                };
                prop_assert_eq!(data, len, "{}", name);
            }
        }
    }

    #[test]
    fn layouts_are_made_by_name_with_their_rules() {
        assert_eq!(make("raid0", 3, 65536).unwrap().name(), "raid0");
        let err = |name, m, unit| make(name, m, unit).err().expect("refused");
        assert!(err("raid6", 3, 65536).contains("expected one of single, raid0, raid1, raid5"));
        assert!(err("raid0", 3, 1000).contains("multiple of 512"));
        assert!(err("single", 2, 4096).contains("expected 1"));
        assert!(err("raid5", 2, 4096).contains("at least 3"));
        assert!(err("raid0", 1, 4096).contains("at least 2"));
        let mut out = Vec::new();
        Single.split(Op::Read, 4096, 8192, &mut out);
        assert_eq!(
            out,
            [Part {
                member: 0,
                op: Op::Read,
                offset: 4096,
                len: 8192,
                phase: 0
            }]
        );
        assert_eq!(Single.capacity(10), 10);
    }
}
