//! Fast preconditioning: FTL state only, no timing. A sequential fill of the utilised share
//! of the logical space, then (mode `steady`) uniform random overwrites of that share until
//! write amplification settles: two consecutive windows (each a tenth of the filled data)
//! within 1 % of each other after at least one full overwrite, or `max_overwrites`.

use crate::config::{PreconditionConfig, PreconditionMode};
use crate::device::Device;
use crate::ftl::FtlStats;
use crate::Result;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct PreconditionReport {
    pub mode: String,
    pub utilisation: f64,
    pub filled_units: u64,
    pub overwritten_units: u64,
    /// Write amplification of the last window of random overwrites.
    pub steady_waf: f64,
    pub converged: bool,
    pub erases: u64,
    pub wall_time_s: f64,
    /// The run file's word on why it starts from this state.
    pub note: String,
}

/// Writes units to planes a page at a time, round robin, as a buffered drive would.
struct Filler {
    plane: usize,
}

impl Filler {
    #[inline]
    fn put(&mut self, dev: &mut Device, lpn: u64) -> Result<()> {
        if dev.ftl.append_host(self.plane, lpn)?.is_some() {
            self.plane += 1;
            if self.plane == dev.geo.planes {
                self.plane = 0;
            }
        }
        Ok(())
    }
}

/// Precondition `dev`; `progress(units written, units planned at most)` is called now and then.
pub fn precondition(
    dev: &mut Device,
    cfg: &PreconditionConfig,
    bg_threshold: usize,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<PreconditionReport> {
    let start = std::time::Instant::now();
    let mut rep = PreconditionReport {
        mode: format!("{:?}", cfg.mode).to_lowercase(),
        utilisation: cfg.utilisation,
        note: cfg.note.clone(),
        ..Default::default()
    };
    if cfg.mode == PreconditionMode::None || cfg.utilisation == 0.0 {
        return Ok(rep);
    }
    // No timing here: GC operations are not recorded for the flash scheduler.
    dev.ftl.record_ops = false;
    let n = ((dev.geo.logical_units as f64 * cfg.utilisation) as u64).max(1);
    let planned = n + if cfg.mode == PreconditionMode::Steady {
        (cfg.max_overwrites * n as f64) as u64
    } else {
        0
    };
    let mut f = Filler { plane: 0 };
    for lpn in 0..n {
        f.put(dev, lpn)?;
        if lpn & 0xF_FFFF == 0 {
            progress(lpn, planned);
        }
    }
    rep.filled_units = n;
    if cfg.mode == PreconditionMode::Steady {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(crate::units::mix_seed(cfg.seed, 0x9c0d));
        let window = (n / 10).max(1);
        let max = (cfg.max_overwrites * n as f64) as u64;
        let mut prev_waf = f64::NAN;
        let mut written = 0u64;
        const AHEAD: usize = 32;
        let mut ring = [0u64; AHEAD];
        for slot in ring.iter_mut() {
            *slot = rng.gen_range(0..n);
            dev.ftl.prefetch(*slot);
        }
        let mut k = 0usize;
        while written < max {
            let before = dev.ftl.stats.clone();
            let todo = window.min(max - written);
            for _ in 0..todo {
                let lpn = ring[k];
                let next = rng.gen_range(0..n);
                dev.ftl.prefetch(next);
                ring[k] = next;
                k = (k + 1) % AHEAD;
                f.put(dev, lpn)?;
            }
            written += todo;
            progress(n + written, planned);
            let s = &dev.ftl.stats;
            let host = (s.host_units_written - before.host_units_written) as f64;
            let copied = (s.gc_units_copied - before.gc_units_copied) as f64;
            let waf = (host + copied) / host;
            rep.steady_waf = crate::metrics::round3(waf);
            if written >= n && (waf - prev_waf).abs() <= 0.01 * waf {
                rep.converged = true;
                break;
            }
            prev_waf = waf;
        }
        rep.overwritten_units = written;
    }
    for p in 0..dev.geo.planes {
        dev.ftl.pad_host(p);
        // Leave each plane as an idle device would: background GC done.
        while dev.ftl.free_blocks(p) < bg_threshold && dev.ftl.gc_once(p)? {}
    }
    rep.erases = dev.ftl.stats.erases;
    dev.ftl.record_ops = true;
    dev.ftl.gc_ops.clear();
    // The measured run starts from zero counters; wear (erase counts) stays.
    let hist_len = dev.ftl.stats.victim_valid_hist.len();
    let retired = dev.ftl.stats.retired_blocks;
    dev.ftl.stats = FtlStats {
        victim_valid_hist: vec![0; hist_len],
        retired_blocks: retired,
        ..Default::default()
    };
    rep.wall_time_s = crate::metrics::round3(start.elapsed().as_secs_f64());
    Ok(rep)
}
