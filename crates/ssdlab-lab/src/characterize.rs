//! Characterising a drive (seed 000, section 3): an Iometer-style sweep of mixed reads and
//! writes, by read share, request size, queue depth and access pattern, over a fixed
//! working range. Each point gives a [`ProfilePoint`]; the result is a [`DeviceProfile`],
//! whose curves ([`DeviceProfile::curve`]) give the read-only gain of section 3.3.
//!
//! The drive is preconditioned once (the base run's `[precondition]`, filling at least the
//! working range so that every read finds data), and every point runs on a copy of that
//! state, in parallel on the current thread pool through the experiment framework's point
//! runner; the points come back in a fixed order, so the profile does not depend on the
//! thread count.
//!
//! A point is one fio-style job: `rw = "rw"` (sequential) or `"randrw"` (random) with
//! `rwmixread` the read share, `bs` the request size, `iodepth` the queue depth, over bytes
//! `0..range`, moving [`Sweep::per_point`] bytes in all (reads and writes together; at
//! least one request per outstanding slot). Its throughput is fio's: each direction's bytes
//! over the job's run time.

use crate::array::profile::{DeviceProfile, Pattern, ProfilePoint};
use crate::config::{Config, PreconditionMode};
use crate::device::Device;
use crate::units::Size;
use crate::workload::job::{JobConfig, Rw, SizeOrShare};
use crate::{Error, Result, Simulation};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// What to sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// Read shares, percent (0..=100).
    pub read_shares: Vec<u32>,
    /// Request sizes, bytes.
    pub sizes: Vec<u64>,
    /// Queue depths (outstanding requests).
    pub depths: Vec<u32>,
    pub patterns: Vec<Pattern>,
    /// Working range, bytes from offset 0.
    pub range: u64,
    /// Bytes moved (read plus written) per point.
    pub per_point: u64,
}

impl Sweep {
    /// The seed's sweep: read shares 0 to 100 % in 5 % steps, 2, 8 and 32 MiB requests,
    /// queue depths 2, 4 and 8, sequential and random, over 20 GiB; 1 GiB per point (32 to
    /// 512 requests, many times the presets' write buffers, so the steady rate dominates).
    pub fn seed_000() -> Sweep {
        Sweep {
            read_shares: (0..=100).step_by(5).collect(),
            sizes: vec![2 * MIB, 8 * MIB, 32 * MIB],
            depths: vec![2, 4, 8],
            patterns: vec![Pattern::Sequential, Pattern::Random],
            range: 20 * GIB,
            per_point: GIB,
        }
    }

    /// A short sweep (a few seconds): 0 to 100 % in 25 % steps, 8 MiB sequential at depth 2,
    /// 256 MiB per point.
    pub fn quick() -> Sweep {
        Sweep {
            read_shares: (0..=100).step_by(25).collect(),
            sizes: vec![8 * MIB],
            depths: vec![2],
            patterns: vec![Pattern::Sequential],
            range: 20 * GIB,
            per_point: 256 * MIB,
        }
    }

    /// The points, in the profile's order: pattern, size, depth, then read share.
    pub fn points(&self) -> Vec<(Pattern, u64, u32, u32)> {
        let mut out = Vec::new();
        for &p in &self.patterns {
            for &bs in &self.sizes {
                for &d in &self.depths {
                    for &r in &self.read_shares {
                        out.push((p, bs, d, r));
                    }
                }
            }
        }
        out
    }

    /// Refuse an empty or impossible sweep on a drive of `capacity` logical bytes.
    pub fn check(&self, capacity: u64) -> Result<()> {
        // Named by the `ssdlab characterize` flag that sets each.
        let bad = |flag: &str, m: String| Err(Error::Invalid(format!("--{flag}: {m}")));
        if self.read_shares.is_empty() || self.sizes.is_empty() || self.depths.is_empty() || self.patterns.is_empty() {
            return bad(
                "sizes",
                "no read shares, sizes, depths or patterns; expected at least one of each".into(),
            );
        }
        if let Some(r) = self.read_shares.iter().find(|&&r| r > 100) {
            return bad("step", format!("read share {r} %; expected 0 to 100"));
        }
        if let Some(s) = self.sizes.iter().find(|&&s| s == 0 || s % 512 != 0) {
            return bad(
                "sizes",
                format!("request size {s} B; expected a positive multiple of 512 bytes"),
            );
        }
        if let Some(d) = self.depths.iter().find(|&&d| d == 0 || d > 1024) {
            return bad("depths", format!("queue depth {d}; expected 1 to 1024"));
        }
        let largest = *self.sizes.iter().max().expect("checked");
        if self.range < largest || self.range > capacity {
            return bad(
                "range",
                format!(
                    "range {}; expected from the largest request ({}) to the drive's logical capacity ({})",
                    crate::units::fmt_size(self.range),
                    crate::units::fmt_size(largest),
                    crate::units::fmt_size(capacity)
                ),
            );
        }
        if self.per_point == 0 {
            return bad("per-point", "0 bytes per point; expected a positive amount".into());
        }
        Ok(())
    }
}

/// The job of one point.
fn job(pattern: Pattern, bs: u64, depth: u32, read_share: u32, sweep: &Sweep) -> JobConfig {
    let rw = match pattern {
        Pattern::Sequential => Rw::Rw,
        Pattern::Random => Rw::RandRw,
    };
    let moved = sweep.per_point.max(bs * depth as u64).div_ceil(bs) * bs;
    JobConfig {
        name: format!(
            "{}-{}-qd{depth}-r{read_share}",
            match pattern {
                Pattern::Sequential => "seq",
                Pattern::Random => "rand",
            },
            crate::units::fmt_size(bs)
        ),
        rw,
        rwmixread: read_share,
        bs: Size(bs),
        iodepth: depth,
        offset: Some(SizeOrShare::Bytes(Size(0))),
        size: Some(SizeOrShare::Bytes(Size(sweep.range))),
        io_size: Some(Size(moved)),
        ..Default::default()
    }
}

/// The preconditioning the sweep runs on: the base run's, with at least the working range
/// written (a fresh drive is filled sequentially up to the range).
pub fn precondition_for(base: &Config, range: u64, capacity: u64) -> crate::config::PreconditionConfig {
    let mut pre = base.precondition.clone();
    let need = (range as f64 / capacity as f64).min(1.0);
    if pre.mode == PreconditionMode::None {
        pre.mode = PreconditionMode::Sequential;
        pre.utilisation = need;
    } else {
        pre.utilisation = pre.utilisation.max(need);
    }
    pre
}

/// Run `sweep` on the drive of `base` (its `[device]` and `[precondition]`; its jobs are
/// ignored), calling `progress(done, total)` as points finish.
pub fn characterize(base: &Config, sweep: &Sweep, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<DeviceProfile> {
    let mut dev = Device::new(&base.device, base.precondition.seed)?;
    let capacity = dev.logical_bytes();
    sweep.check(capacity)?;
    let mut cfg = base.clone();
    cfg.precondition = precondition_for(base, sweep.range, capacity);
    let pre = crate::precondition::precondition(
        &mut dev,
        &cfg.precondition,
        cfg.device.ftl.idle_bg_threshold() as usize,
        &mut |_, _| {},
    )?;
    // The FTL's victim policy is not shareable between threads: copies are taken in turn.
    let ftl = std::sync::Mutex::new(dev.ftl);
    let points = sweep.points();
    let results = crate::parallel::run_points(&points, progress, |&(pattern, bs, depth, share)| {
        // An interrupt stops the points not yet started as well as the running ones.
        crate::interrupt::check_interrupt()?;
        let mut c = cfg.clone();
        let j = job(pattern, bs, depth, share, sweep);
        j.validate(&c.file, "job", capacity)?;
        let name = j.name.clone();
        c.job = vec![j];
        let dev = Device::with_ftl(&c.device, ftl.lock().expect("not poisoned").clone())?;
        let r = Simulation::with_device(&c, dev, pre.clone())?
            .run(&mut |_| {})
            .map_err(|e| match e {
                Error::Interrupted => e,
                e => Error::Invalid(format!("characterize point {name}: {e}")),
            })?;
        let j = &r.jobs[0];
        let ios = j.read.total_ios + j.write.total_ios;
        let lat = j.read.clat_ns.mean * j.read.total_ios as f64 + j.write.clat_ns.mean * j.write.total_ios as f64;
        Ok(ProfilePoint {
            pattern,
            bs,
            depth,
            read_share: share as f64 / 100.0,
            read_bytes_s: j.read.bw_bytes as f64,
            write_bytes_s: j.write.bw_bytes as f64,
            mean_lat_ns: if ios > 0 { lat / ios as f64 } else { 0.0 },
        })
    });
    Ok(DeviceProfile {
        name: base.device.name.clone(),
        capacity,
        source: format!(
            "ssdlab characterize: {} points over {} bytes, {} bytes per point",
            points.len(),
            sweep.range,
            sweep.per_point
        ),
        points: results.into_iter().collect::<Result<Vec<_>>>()?,
    })
}

/// The read-only gain of each (pattern, size, depth) curve of `profile`, MB/s, and as a
/// share of the mean throughput AT (percent), in the profile's order.
pub fn gains(profile: &DeviceProfile) -> Vec<(Pattern, u64, u32, f64, f64)> {
    let mut keys: Vec<(Pattern, u64, u32)> = Vec::new();
    for p in &profile.points {
        if !keys.contains(&(p.pattern, p.bs, p.depth)) {
            keys.push((p.pattern, p.bs, p.depth));
        }
    }
    keys.into_iter()
        .filter_map(|(pat, bs, d)| {
            let c = profile.curve(pat, bs, d).ok()?;
            let g = c.readonly_gain();
            let at = c.at(1.0) - g;
            Some((pat, bs, d, g, if at > 0.0 { 100.0 * g / at } else { 0.0 }))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// mlc-sata shrunk to 8 GiB raw (128 blocks per plane, 25 % spare), filled in order up
    /// to the range.
    fn small_mlc() -> Config {
        let set = [
            "device.geometry.blocks_per_plane=128",
            "device.geometry.overprovisioning=0.25",
            "precondition.mode=none",
        ]
        .map(String::from);
        crate::config::load_config_with("mlc-sata", &set).unwrap()
    }

    fn small(mut s: Sweep) -> Sweep {
        s.per_point = 64 * MIB;
        s.range = 2 * GIB;
        s
    }

    #[test]
    fn the_seed_sweep_has_its_points() {
        let s = Sweep::seed_000();
        let pts = s.points();
        assert_eq!(pts.len(), 21 * 3 * 3 * 2);
        assert_eq!(s.read_shares, (0..=100).step_by(5).collect::<Vec<u32>>());
        assert_eq!(s.sizes, [2 * MIB, 8 * MIB, 32 * MIB]);
        assert_eq!(s.range, 20 * GIB);
        assert_eq!(pts[0], (Pattern::Sequential, 2 * MIB, 2, 0));
        assert_eq!(pts[20], (Pattern::Sequential, 2 * MIB, 2, 100));
        assert_eq!(pts[21], (Pattern::Sequential, 2 * MIB, 4, 0));
        assert_eq!(*pts.last().unwrap(), (Pattern::Random, 32 * MIB, 8, 100));
        let q = Sweep::quick();
        assert_eq!(q.points().len(), 5);
    }

    #[test]
    fn bad_sweeps_are_refused() {
        let mut s = Sweep::quick();
        s.read_shares = vec![101];
        assert!(s.check(100 * GIB).unwrap_err().to_string().contains("read share 101"));
        let mut s = Sweep::quick();
        s.range = 200 * GIB;
        assert!(s.check(100 * GIB).unwrap_err().to_string().contains("range"));
        let mut s = Sweep::quick();
        s.sizes.clear();
        assert!(s.check(100 * GIB).is_err());
    }

    #[test]
    fn a_sweep_gives_one_point_each_whatever_the_threads() {
        let cfg = small_mlc();
        let mut s = small(Sweep::quick());
        s.read_shares = vec![0, 50, 100];
        s.depths = vec![2, 4];
        let run = |threads| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| characterize(&cfg, &s, &|_, _| {})).unwrap()
        };
        let one = run(1);
        assert_eq!(one.points.len(), 6);
        let shares: Vec<f64> = one.points.iter().map(|p| p.read_share).collect();
        assert_eq!(shares, [0.0, 0.5, 1.0, 0.0, 0.5, 1.0]);
        assert!(one.points.iter().all(|p| p.bs == 8 * MIB));
        assert_eq!(one.points[0].read_bytes_s, 0.0);
        assert_eq!(one.points[2].write_bytes_s, 0.0);
        assert!(one.points.iter().all(|p| p.mb_s() > 0.0));
        assert_eq!(
            serde_json::to_string(&one).unwrap(),
            serde_json::to_string(&run(2)).unwrap()
        );
    }
}
