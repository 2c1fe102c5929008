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
//! `profile.rs` reads a real drive's measured points from fio's JSON output into curves and
//! profile files, and interpolates between them; `drive.rs` is a member drive whose timing
//! comes from such a profile (`ssdlab profile` measures one). `characterize.rs` sweeps a
//! simulated drive by read share, request size, queue depth and pattern (section 3) into a
//! profile.
//! `rodi.rs` holds the seed's RODI model (member curves, read-only gain, the members' loads,
//! section 4's throughputs).
//!
//! `volume.rs` is what the host model submits to: member devices under a layout (a lone
//! device is a volume of one). A run file's `[array]` ([`ArrayConfig`]) names the layout and
//! the members.

pub mod config;
pub mod drive;
pub mod profile;
mod raid0;
mod raid1;
mod raid5;
pub mod rodi;
pub mod volume;

use crate::request::Op;
use crate::run_config::Config;
use crate::{Error, Result};
pub use config::{ArrayConfig, MemberConfig, MAX_MEMBERS};

/// Every member's curves (its profile, or its `curves` file), when every member has them.
pub fn member_curves(cfg: &Config) -> Result<Option<Vec<profile::DeviceProfile>>> {
    let Some(a) = &cfg.array else { return Ok(None) };
    let mut out = Vec::new();
    for (i, m) in a.member.iter().enumerate() {
        let Some(file) = m.profile.as_ref().or(m.curves.as_ref()) else {
            return Ok(None);
        };
        let key = if m.profile.is_some() { "profile" } else { "curves" };
        out.push(
            profile::DeviceProfile::load(&cfg.base_dir.join(file))
                .map_err(|e| cfg.locate(Error::config(&cfg.file, &format!("array.member[{i}].{key}"), e)))?,
        );
    }
    Ok(Some(out))
}

/// The layout of an array run over members of `member_bytes` each (the smallest), with the
/// volume's read-only extents for `rodi`.
pub fn layout_of(cfg: &Config, member_bytes: u64) -> Result<Box<dyn Layout>> {
    let a = cfg.array.as_ref().expect("an array run");
    let l = merged_layout_of(cfg, member_bytes)?;
    Ok(if a.merge_parts {
        l
    } else {
        Box::new(PerUnit {
            inner: l,
            unit: a.stripe_unit.0,
        })
    })
}

/// [`layout_of`] with the pieces a member gets from consecutive stripes merged.
fn merged_layout_of(cfg: &Config, member_bytes: u64) -> Result<Box<dyn Layout>> {
    let a = cfg.array.as_ref().expect("an array run");
    let f = cfg.file.as_str();
    let n = a.member.len();
    let unit = a.stripe_unit.0;
    let readonly: Vec<usize> = (0..n).filter(|&i| a.member[i].readonly).collect();
    if unit == 0 || !unit.is_multiple_of(512) {
        return Err(Error::config(
            f,
            "array.stripe_unit",
            format!("{unit} B; expected a positive multiple of 512 bytes"),
        ));
    }
    // Mirrors and a lone member do not stripe.
    if !matches!(a.layout.as_str(), "single" | "raid1") && unit > member_bytes {
        return Err(Error::config(
            f,
            "array.stripe_unit",
            format!("{unit} B is more than a member holds ({member_bytes} B), which leaves the volume no whole stripe; expected at most the smallest member's capacity"),
        ));
    }
    if a.layout != "rodi" {
        if let Some(&i) = readonly.first() {
            return Err(Error::config(
                f,
                &format!("array.member[{i}].readonly"),
                format!(
                    "set with layout \"{}\"; expected it with layout \"rodi\" only",
                    a.layout
                ),
            ));
        }
        return make(&a.layout, n, unit).map_err(|m| Error::config(f, "array.layout", m));
    }
    let bare =
        rodi::Rodi::new(n, unit, &readonly, &[], member_bytes).map_err(|m| Error::config(f, "array.member", m))?;
    let capacity = bare.capacity(member_bytes);
    let mut extents = Vec::new();
    for (i, j) in cfg.job.iter().enumerate().filter(|(_, j)| j.readonly) {
        let (off, len) = j
            .region(capacity)
            .map_err(|m| Error::config(f, &format!("job[{i}].size"), m))?;
        extents.push((off, off.saturating_add(len)));
    }
    if a.readonly_from_traces {
        extents.extend(rodi::trace_readonly_extents(
            f,
            &cfg.job,
            &cfg.base_dir,
            capacity,
            a.readonly_extent.0,
        )?);
    }
    let l =
        rodi::Rodi::new(n, unit, &readonly, &extents, member_bytes).map_err(|m| Error::config(f, "array.member", m))?;
    l.check_fit(member_bytes, capacity)
        .map_err(|m| Error::config(f, "array.member", m))?;
    Ok(Box::new(l))
}

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
    /// Members that hold read-only data only (`rodi`'s).
    fn readonly_members(&self) -> &[usize] {
        &[]
    }
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

/// A layout whose member requests are cut at the member's stripe-unit boundaries: one member
/// request per stripe unit (`array.merge_parts = false`). `rodi`'s read-only members are not
/// cut: in the seed they are drives of their own, each read by its own Iometer worker.
pub struct PerUnit {
    pub inner: Box<dyn Layout>,
    pub unit: u64,
}

impl Layout for PerUnit {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn members(&self) -> usize {
        self.inner.members()
    }
    fn capacity(&self, member_bytes: u64) -> u64 {
        self.inner.capacity(member_bytes)
    }
    fn split(&self, op: Op, offset: u64, len: u64, out: &mut Vec<Part>) {
        let from = out.len();
        self.inner.split(op, offset, len, out);
        // The cut pieces go after the merged parts, which are then removed: no allocation.
        let end = out.len();
        for k in from..end {
            let p = out[k];
            if self.inner.readonly_members().contains(&p.member) {
                out.push(p);
                continue;
            }
            for (c, within, l) in raid0::chunks(p.offset, p.len, self.unit) {
                out.push(Part {
                    offset: c * self.unit + within,
                    len: l,
                    ..p
                });
            }
        }
        out.drain(from..end);
    }
    fn readonly_members(&self) -> &[usize] {
        self.inner.readonly_members()
    }
}

type Ctor = fn(members: usize, stripe_unit: u64) -> std::result::Result<Box<dyn Layout>, String>;

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
    (
        "rodi",
        "read-only data isolation: read-only extents on the read-only members, the rest striped over the others",
        |_, _| Err("rodi is built from a run's read-only members and extents; expected it in [array]".into()),
    ),
];

/// The layout `name` over `members` devices with stripe unit `stripe_unit` bytes.
pub fn make(name: &str, members: usize, stripe_unit: u64) -> std::result::Result<Box<dyn Layout>, String> {
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
fn stripes(members: usize, stripe_unit: u64, min: usize) -> std::result::Result<Stripes, String> {
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

    /// One member request per stripe unit: a 2 MiB read at 32 KiB into a 3-member RAID 0 of
    /// 64 KiB units gives member 0 the unit pieces 32 KiB..64 KiB, 192..256, ... (by hand:
    /// chunks 0..32 with chunk 0 half-read and chunk 32 reaching 32 KiB in), where the
    /// merged layout gives each member one request.
    #[test]
    fn per_unit_cuts_member_requests_at_stripe_units() {
        let k = 1024;
        let (merged, cut) = (
            make("raid0", 3, 64 * k).unwrap(),
            PerUnit {
                inner: make("raid0", 3, 64 * k).unwrap(),
                unit: 64 * k,
            },
        );
        let (mut a, mut b) = (Vec::new(), Vec::new());
        merged.split(Op::Read, 32 * k, 2048 * k, &mut a);
        cut.split(Op::Read, 32 * k, 2048 * k, &mut b);
        assert_eq!(a.len(), 3);
        // Chunks 0..=32 (33 chunks): member 0 gets 0, 3, ..., 30 (11), member 1 gets 1, ..., 31
        // (11), member 2 gets 2, ..., 32 (11).
        assert_eq!(b.len(), 33);
        assert_eq!(b.iter().map(|p| p.len).sum::<u64>(), 2048 * k);
        assert_eq!((b[0].member, b[0].offset, b[0].len), (0, 32 * k, 32 * k));
        assert_eq!((b[1].member, b[1].offset, b[1].len), (0, 64 * k, 64 * k));
        let last = b.last().unwrap();
        assert_eq!((last.member, last.offset, last.len), (2, 10 * 64 * k, 32 * k));
        assert!(b
            .iter()
            .all(|p| p.len <= 64 * k && p.offset / (64 * k) == (p.offset + p.len - 1) / (64 * k)));
        for m in 0..3 {
            let total = |v: &[Part]| v.iter().filter(|p| p.member == m).map(|p| p.len).sum::<u64>();
            assert_eq!(total(&a), total(&b), "member {m} moves the same bytes");
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
