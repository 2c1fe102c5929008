//! RODI, read-only data isolation (seed 000, section 4): the read-only data of a workload
//! lives on `n` members chosen by their read-only gain, the rest on the other `m`, so the
//! read-only members serve pure reads while the others take the writes.
//!
//! This file holds the seed's model: a member's throughput curve against the read share,
//! its read-only gain (section 3.3: P = RT − AT, pure-read throughput minus the mean over the
//! swept read shares), the members' loads for a total read share (section 5.1: every member
//! has the same number of I/O workers, so the same share of requests; the read-only ones
//! read only, the others take what is left), and the section 4 throughput of RODI against
//! RAID 0 (equations 2–4, RAID 0 held to its slowest member).
//!
//! The layout [`Rodi`]: the volume's read-only extents (given by the jobs that mark their
//! range read-only, or found in a trace as extents read and never written) are packed in
//! order onto the read-only members, striped among them; the rest of the volume, with the
//! read-only extents cut out, is striped over the other members. Both groups stripe as
//! RAID 0 does, in chunks of the stripe unit. The volume is as large as RAID 0 over every
//! member; when the read-only extents leave room on the read-only members, the read-write
//! addresses beyond what the other members hold spill there, after the read-only data
//! (isolation holds for the read-write data that fits; member results show any spill).

use super::{normalise, Layout, Part};
use crate::request::Op;

/// Throughput (MB/s) against the read share, linear between measured points.
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    /// (read share in 0..=1, throughput), by increasing read share.
    pub points: Vec<(f64, f64)>,
}

impl Curve {
    /// A curve from points; at least one, read shares in 0..=1 and increasing.
    pub fn new(points: Vec<(f64, f64)>) -> Result<Curve, String> {
        if points.is_empty() {
            return Err("no points; expected at least one (read share, throughput)".into());
        }
        for w in points.windows(2) {
            if w[1].0 <= w[0].0 {
                return Err(format!(
                    "read shares {} then {}; expected them increasing",
                    w[0].0, w[1].0
                ));
            }
        }
        if let Some(p) = points
            .iter()
            .find(|p| !(0.0..=1.0).contains(&p.0) || p.1.is_nan() || p.1 < 0.0)
        {
            return Err(format!(
                "point ({}, {}); expected a read share in 0..=1 and a throughput of at least 0",
                p.0, p.1
            ));
        }
        Ok(Curve { points })
    }

    /// Throughput at read share `r`, linear between points, flat beyond the ends.
    pub fn at(&self, r: f64) -> f64 {
        let p = &self.points;
        if r <= p[0].0 {
            return p[0].1;
        }
        for w in p.windows(2) {
            if r <= w[1].0 {
                let t = (r - w[0].0) / (w[1].0 - w[0].0);
                return w[0].1 + t * (w[1].1 - w[0].1);
            }
        }
        p[p.len() - 1].1
    }

    /// Read-only gain P = RT − AT: throughput at 100 % reads minus the mean over the 21
    /// read shares 0, 5, …, 100 % (section 3's sweep).
    pub fn readonly_gain(&self) -> f64 {
        let at = (0..=20).map(|i| self.at(i as f64 / 20.0)).sum::<f64>() / 21.0;
        self.at(1.0) - at
    }
}

/// The read-only members: the `n` of highest read-only gain, best first (ties to the lower
/// index).
pub fn choose_readonly(curves: &[Curve], n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..curves.len()).collect();
    order.sort_by(|&a, &b| {
        curves[b]
            .readonly_gain()
            .total_cmp(&curves[a].readonly_gain())
            .then(a.cmp(&b))
    });
    order.truncate(n);
    order
}

/// The read share of each non-read-only member when `n` of `members` read only and the
/// volume's read share is `total` (every member takes the same share of requests):
/// n/N + (N − n)/N · r = total.
pub fn mixed_read_share(total: f64, n: usize, members: usize) -> Result<f64, String> {
    if n == 0 || n >= members {
        return Err(format!(
            "{n} read-only members of {members}; expected 1 to {}",
            members - 1
        ));
    }
    let (n, big_n) = (n as f64, members as f64);
    let r = (total * big_n - n) / (big_n - n);
    if !(-1e-12..=1.0 + 1e-12).contains(&r) {
        return Err(format!(
            "read share {total}: below the {:.1} % that {n} read-only members of {members} make alone; expected at least n/N",
            100.0 * n / big_n
        ));
    }
    Ok(r.clamp(0.0, 1.0))
}

/// Section 4's throughputs for a total read share.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    /// TP_RODI = k·TP1 + (m + n − k)·TP2 (here k = n: the read-only members carry the
    /// read-only load).
    pub rodi: f64,
    /// TP_RAID = (m + n)·TP0, TP0 the slowest member at the volume's read share.
    pub raid0: f64,
    pub tp0: f64,
    pub tp1: f64,
    pub tp2: f64,
}

/// The model for members `curves`, `readonly` of them read-only, at read share `total`.
pub fn model(curves: &[Curve], readonly: &[usize], total: f64) -> Result<Model, String> {
    let big_n = curves.len();
    let r = mixed_read_share(total, readonly.len(), big_n)?;
    let mean = |xs: &mut dyn Iterator<Item = f64>| {
        let v: Vec<f64> = xs.collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let tp1 = mean(&mut readonly.iter().map(|&i| curves[i].at(1.0)));
    let tp2 = mean(&mut (0..big_n).filter(|i| !readonly.contains(i)).map(|i| curves[i].at(r)));
    let tp0 = curves.iter().map(|c| c.at(total)).fold(f64::INFINITY, f64::min);
    let k = readonly.len() as f64;
    Ok(Model {
        rodi: k * tp1 + (big_n as f64 - k) * tp2,
        raid0: big_n as f64 * tp0,
        tp0,
        tp1,
        tp2,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(a: f64, b: f64) -> Curve {
        Curve::new(vec![(0.0, a), (1.0, b)]).unwrap()
    }

    #[test]
    fn curves_interpolate_and_give_their_read_only_gain() {
        let c = Curve::new(vec![(0.0, 100.0), (0.5, 200.0), (1.0, 600.0)]).unwrap();
        assert_eq!(
            (c.at(0.25), c.at(0.75), c.at(-1.0), c.at(2.0)),
            (150.0, 400.0, 100.0, 600.0)
        );
        // A straight line from a to b averages (a + b) / 2 over the symmetric sweep.
        assert!((line(100.0, 600.0).readonly_gain() - 250.0).abs() < 1e-9);
        assert_eq!(line(300.0, 300.0).readonly_gain(), 0.0);
        assert!(Curve::new(vec![]).is_err());
        assert!(Curve::new(vec![(0.5, 1.0), (0.5, 2.0)])
            .unwrap_err()
            .contains("increasing"));
        assert!(Curve::new(vec![(1.5, 1.0)]).unwrap_err().contains("0..=1"));
    }

    #[test]
    fn read_only_members_by_gain_and_the_mixed_read_share() {
        let curves = [line(300.0, 300.0), line(250.0, 280.0), line(100.0, 600.0)];
        assert_eq!(choose_readonly(&curves, 1), [2]);
        assert_eq!(choose_readonly(&curves, 2), [2, 1]);
        // One read-only member of 3: the others read (0.35 × 3 − 1) / 2 = 2.5 %.
        assert!((mixed_read_share(0.35, 1, 3).unwrap() - 0.025).abs() < 1e-12);
        assert_eq!(mixed_read_share(1.0 / 3.0, 1, 3).unwrap(), 0.0);
        assert!((mixed_read_share(0.7, 2, 3).unwrap() - 0.1).abs() < 1e-12);
        assert_eq!(mixed_read_share(1.0, 2, 3).unwrap(), 1.0);
        assert!(mixed_read_share(0.3, 1, 3).unwrap_err().contains("33.3 %"));
        assert!(mixed_read_share(0.5, 3, 3).is_err());
    }

    #[test]
    fn section_4_by_hand() {
        // OCZ-like (100 → 600), 850-like (300 flat), 530-like (250 flat); OCZ reads only.
        let curves = [line(100.0, 600.0), line(300.0, 300.0), line(250.0, 250.0)];
        let m = model(&curves, &[0], 0.35).unwrap();
        // RAID 0 at 35 %: the slowest member is the 530 (250; OCZ 275): 3 × 250.
        assert_eq!((m.tp0, m.raid0), (250.0, 750.0));
        // RODI: OCZ at 600, the others at 2.5 % reads: 600 + 300 + 250.
        assert_eq!((m.tp1, m.tp2, m.rodi), (600.0, 275.0, 1150.0));
        // Equation 4: ΔTP = (m + n − k)(TP2 − TP0) + k(TP1 − TP0).
        assert_eq!(m.rodi - m.raid0, 2.0 * (m.tp2 - m.tp0) + (m.tp1 - m.tp0));
        // At 100 % reads the model still puts RODI ahead: equation 3 holds RAID 0 to its
        // slowest member, RODI's members run at their own pace (the seed's measurements
        // converge there instead). With identical members the two agree.
        let m = model(&curves, &[0], 1.0).unwrap();
        assert_eq!((m.raid0, m.rodi), (750.0, 1150.0));
        let same = [line(100.0, 600.0), line(100.0, 600.0), line(100.0, 600.0)];
        let m = model(&same, &[0], 1.0).unwrap();
        assert_eq!(m.rodi, m.raid0);
    }
}

/// The extents (of `extent` bytes, inside `capacity`) that the traces of `jobs` (of the run
/// file `f`, its trace paths relative to `base_dir`) read and never write, merged into ranges.
/// The traces are read once through, as they will be replayed (the same address mapping onto
/// the volume). It takes the run file's parts, not the run config, so that the layout does not
/// depend on the loader that checks it.
pub fn trace_readonly_extents(
    f: &str,
    jobs: &[crate::workload::job::JobConfig],
    base_dir: &std::path::Path,
    capacity: u64,
    extent: u64,
) -> crate::Result<Vec<(u64, u64)>> {
    use crate::request::RequestSource;
    if extent == 0 || !extent.is_multiple_of(512) {
        return Err(crate::Error::config(
            f,
            "array.readonly_extent",
            format!("{extent} B; expected a positive multiple of 512 bytes"),
        ));
    }
    // Two flags per extent.
    let n = capacity.div_ceil(extent);
    if n > 1 << 28 {
        return Err(crate::Error::config(
            f,
            "array.readonly_extent",
            format!("{extent} B over a volume of {capacity} B is {n} extents, which need {} MiB; expected at most 2^28 extents (a larger readonly_extent)", (2 * n) >> 20),
        ));
    }
    let n = n as usize;
    let (mut read, mut written) = (vec![false; n], vec![false; n]);
    let mut any = false;
    for job in jobs {
        let Some(t) = &job.trace else { continue };
        any = true;
        let mut src = crate::trace::TraceSource::open(t, base_dir, capacity)?;
        let mut now = 0;
        while let Some(r) = src.next_request(now)? {
            now = r.time_ns;
            let end = r.offset.saturating_add(r.len).min(capacity);
            if r.offset >= end {
                continue;
            }
            let map = if r.op == Op::Read { &mut read } else { &mut written };
            for e in (r.offset / extent)..end.div_ceil(extent) {
                map[e as usize] = true;
            }
        }
    }
    if !any {
        return Err(crate::Error::config(
            f,
            "array.readonly_from_traces",
            "set with no job replaying a trace; expected a [job.trace]",
        ));
    }
    let mut out: Vec<(u64, u64)> = Vec::new();
    for e in (0..n).filter(|&e| read[e] && !written[e]) {
        let (s, end) = (e as u64 * extent, ((e as u64 + 1) * extent).min(capacity));
        match out.last_mut() {
            Some(l) if l.1 == s => l.1 = end,
            _ => out.push((s, end)),
        }
    }
    Ok(out)
}

/// RODI's layout: read-only extents on the read-only members, the rest on the others.
pub struct Rodi {
    readonly: Vec<usize>,
    others: Vec<usize>,
    unit: u64,
    /// Read-only extents of the volume (start, end), sorted and disjoint.
    extents: Vec<(u64, u64)>,
    /// Read-only bytes before each extent.
    before: Vec<u64>,
    /// Read-write bytes the other members hold; beyond, read-write data spills onto the
    /// read-only members.
    room: u64,
}

impl Rodi {
    /// `readonly` members (indices below `members`, of `member_bytes` each) hold `extents`
    /// (volume byte ranges, any order, merged where they touch); the others hold the rest.
    pub fn new(
        members: usize,
        unit: u64,
        readonly: &[usize],
        extents: &[(u64, u64)],
        member_bytes: u64,
    ) -> Result<Rodi, String> {
        let mut ro: Vec<usize> = readonly.to_vec();
        ro.sort_unstable();
        ro.dedup();
        if ro.is_empty() || ro.len() >= members || ro.iter().any(|&i| i >= members) {
            return Err(format!(
                "read-only members {readonly:?} of {members}; expected 1 to {} distinct members below {members}",
                members.saturating_sub(1)
            ));
        }
        let mut ex: Vec<(u64, u64)> = extents.iter().copied().filter(|e| e.1 > e.0).collect();
        ex.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(ex.len());
        for e in ex {
            match merged.last_mut() {
                Some(l) if e.0 <= l.1 => l.1 = l.1.max(e.1),
                _ => merged.push(e),
            }
        }
        let mut before = Vec::with_capacity(merged.len());
        let mut acc = 0;
        for e in &merged {
            before.push(acc);
            acc += e.1 - e.0;
        }
        Ok(Rodi {
            room: member_bytes / unit * unit * (members - ro.len()) as u64,
            others: (0..members).filter(|i| !ro.contains(i)).collect(),
            readonly: ro,
            unit,
            extents: merged,
            before,
        })
    }

    /// Bytes of read-only extents.
    pub fn readonly_bytes(&self) -> u64 {
        self.extents.last().map_or(0, |e| e.1 - e.0) + self.before.last().copied().unwrap_or(0)
    }

    /// Whether the read-only data fits its members, and the rest the others, at
    /// `member_bytes` each and a volume of `capacity`.
    pub fn check_fit(&self, member_bytes: u64, capacity: u64) -> Result<(), String> {
        let per = member_bytes / self.unit * self.unit;
        let ro = self.readonly_bytes();
        let ro_room = per * self.readonly.len() as u64;
        if ro > ro_room {
            return Err(format!(
                "{ro} bytes of read-only extents on {} read-only members of {per} bytes; expected at most {ro_room}",
                self.readonly.len()
            ));
        }
        if let Some(e) = self.extents.last().filter(|e| e.1 > capacity) {
            return Err(format!(
                "read-only extent ends at {}; expected it inside the volume's {capacity} bytes",
                e.1
            ));
        }
        Ok(())
    }

    /// Stripe `len` bytes at `at` of a group's own address space over `group`.
    fn stripe(&self, group: &[usize], op: Op, at: u64, len: u64, out: &mut Vec<Part>) {
        let s = super::Stripes {
            n: group.len() as u64,
            unit: self.unit,
        };
        super::raid0::stripe(s, op, at, len, |i| group[i], out);
    }
}

impl Layout for Rodi {
    fn name(&self) -> &'static str {
        "rodi"
    }
    fn readonly_members(&self) -> &[usize] {
        &self.readonly
    }
    fn members(&self) -> usize {
        self.readonly.len() + self.others.len()
    }
    /// As RAID 0 over every member: the read-only members' room the extents may fill, the
    /// other members' the rest.
    fn capacity(&self, member_bytes: u64) -> u64 {
        member_bytes / self.unit * self.unit * self.members() as u64
    }
    fn split(&self, op: Op, offset: u64, len: u64, out: &mut Vec<Part>) {
        let from = out.len();
        let end = offset + len;
        let mut at = offset;
        // The first extent ending after `at`.
        let mut i = self.extents.partition_point(|e| e.1 <= at);
        while at < end {
            match self.extents.get(i) {
                Some(&(s, e)) if at >= s => {
                    let l = e.min(end) - at;
                    self.stripe(&self.readonly, op, self.before[i] + (at - s), l, out);
                    at += l;
                    i += 1;
                }
                next => {
                    let stop = next.map_or(end, |x| x.0.min(end));
                    let ro_before = self.before.get(i).copied().unwrap_or_else(|| self.readonly_bytes());
                    let rw = at - ro_before;
                    let stop = if rw < self.room {
                        let stop = stop.min(at + (self.room - rw));
                        self.stripe(&self.others, op, rw, stop - at, out);
                        stop
                    } else {
                        let spill = self.readonly_bytes() + (rw - self.room);
                        self.stripe(&self.readonly, op, spill, stop - at, out);
                        stop
                    };
                    at = stop;
                }
            }
        }
        normalise(out, from);
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;

    fn split(l: &Rodi, op: Op, off: u64, len: u64) -> Vec<(usize, u64, u64)> {
        let mut out = Vec::new();
        l.split(op, off, len, &mut out);
        out.iter().map(|p| (p.member, p.offset, p.len)).collect()
    }

    #[test]
    fn readonly_extents_go_to_readonly_members_and_the_rest_is_striped_over_the_others() {
        // 3 members, member 2 read-only; extents [1 MiB, 2 MiB) and [3 MiB, 3.5 MiB); 64 KiB
        // chunks.
        const M: u64 = 1 << 20;
        let k = 64 * 1024;
        let l = Rodi::new(3, k, &[2], &[(3 * M, 3 * M + M / 2), (M, 2 * M)], 10 * M).unwrap();
        assert_eq!(l.readonly_bytes(), M + M / 2);
        // Read-only data packs onto member 2 in order: the second extent follows the first.
        assert_eq!(split(&l, Op::Read, M, 4096), [(2, 0, 4096)]);
        assert_eq!(split(&l, Op::Read, 3 * M + 8192, 4096), [(2, M + 8192, 4096)]);
        // Before the first extent: members 0 and 1 in 64 KiB chunks.
        assert_eq!(split(&l, Op::Write, 0, 2 * k), [(0, 0, k), (1, 0, k)]);
        // After it, the read-write address skips the extent: 2 MiB is read-write byte 1 MiB,
        // chunk 16, on member 0 at 8 chunks.
        assert_eq!(split(&l, Op::Write, 2 * M, 4096), [(0, 8 * k, 4096)]);
        // After the second extent: 3.5 MiB is read-write byte 2 MiB, chunk 32 → member 0 at 16 chunks.
        assert_eq!(split(&l, Op::Read, 3 * M + M / 2, 4096), [(0, 16 * k, 4096)]);
        // A request over an extent boundary is cut there.
        assert_eq!(
            split(&l, Op::Read, 2 * M - 4096, 8192),
            [(0, 8 * k, 4096), (2, M - 4096, 4096)]
        );
        assert_eq!(l.capacity(10 * M), 30 * M);
        assert!(l.check_fit(M, 30 * M).unwrap_err().contains("expected at most 1048576"));
        assert!(l.check_fit(2 * M, 3 * M).unwrap_err().contains("inside the volume"));
        assert!(l.check_fit(2 * M, 6 * M).is_ok());
        // Spill: members 0 and 1 hold 20 MiB of read-write data. Volume byte 25 MiB is
        // read-write byte 23.5 MiB, 3.5 MiB past their room: on member 2 after its 1.5 MiB of
        // read-only data; a request over the boundary is cut there.
        assert_eq!(split(&l, Op::Write, 25 * M, 4096), [(2, 5 * M, 4096)]);
        assert_eq!(
            split(&l, Op::Write, 43 * M / 2 - 4096, 8192),
            [(1, 10 * M - 4096, 4096), (2, 3 * M / 2, 4096)]
        );
        assert!(Rodi::new(3, k, &[0, 1, 2], &[], M).is_err());
        assert!(Rodi::new(3, k, &[3], &[], M).is_err());
    }
}
