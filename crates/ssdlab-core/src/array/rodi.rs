//! RODI, read-only data isolation (seed 000, section 4): the read-only data of a workload
//! lives on `n` members chosen by their read-only gain, the rest on the other `m`, so the
//! read-only members serve pure reads while the others take the writes.
//!
//! This file holds the seed's model: a member's throughput curve against the read share,
//! its read-only gain (section 3.3: P = RT − AT, pure-read throughput minus the mean over the
//! swept read shares), the members' loads for a total read share (section 5.1: every member
//! has the same number of I/O workers, so the same share of requests; the read-only ones
//! read only, the others take what is left), and the section 4 throughput of RODI against
//! RAID 0 (equations 2–4, RAID 0 held to its slowest member). The layout that places
//! extents on members is not built yet.

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
