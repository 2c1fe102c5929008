//! Fast preconditioning: FTL state only, no timing. A sequential fill of the utilised share
//! of the logical space, then (mode `steady`) uniform random overwrites of that share until
//! write amplification settles, or `max_overwrites`.
//!
//! Steady state is judged on windows of a tenth of the filled data. A window's write
//! amplification counted as (host + copied) / host is lumpy: GC runs when blocks fill, so a
//! window catches a whole number of collection rounds per plane (on the 64 GiB bench device
//! windows alternate between 6.72 and 7.24 around a true 7.05). The estimate used instead is
//! b / (b − v), with b the units per block and v the mean valid units of the window's victims:
//! at steady state every collection frees b − v units for host data and copies v, so this is
//! the write amplification, and it moves smoothly. The device is steady once at least
//! `min_overwrites` of the data has been overwritten and the last three windows' estimates
//! agree within 0.5 %; `steady_waf` is their mean.

use crate::device::Device;
use crate::ftl::FtlStats;
use crate::Result;
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PreconditionReport {
    pub mode: String,
    pub utilisation: f64,
    pub filled_units: u64,
    pub overwritten_units: u64,
    /// Write amplification at steady state: the mean of the last windows' b / (b − v) (see the
    /// module notes), or of the last window's host and copy counts if GC never ran.
    pub steady_waf: f64,
    /// Three consecutive windows collected victims and agreed within 0.5 % (steady GC was
    /// observed); false for a `steady` precondition that stopped at `max_overwrites`.
    pub converged: bool,
    /// `max_overwrites` it stopped at, and whether any window collected a victim: what the
    /// warning of a precondition that did not converge says.
    #[serde(skip)]
    pub max_overwrites: f64,
    #[serde(skip)]
    pub gc_seen: bool,
    pub erases: u64,
    pub wall_time_s: f64,
    /// The run file's word on why it starts from this state.
    pub note: String,
}

/// Writes units to planes a page at a time, round robin, as a buffered drive striping pages
/// would; each stream (host write frontier) goes round the planes on its own.
/// A design with a fixed plane per logical unit (static allocation) has its units written
/// there instead.
/// With superblocks, each stream's pages go round the members of its open superblock.
pub struct Placement {
    plane: Vec<usize>,
    fixed: bool,
    superblocks: bool,
}

/// No page of the stream is being filled (superblocks).
const NO_PAGE: usize = usize::MAX;

impl Placement {
    pub fn new(dev: &Device) -> Placement {
        let superblocks = dev.ftl.superblocks().is_some();
        Placement {
            plane: vec![if superblocks { NO_PAGE } else { 0 }; dev.ftl.streams()],
            fixed: dev.home_plane(0).is_some(),
            superblocks,
        }
    }

    /// Write logical unit `lpn` of host write frontier `stream`.
    #[inline]
    pub fn put(&mut self, dev: &mut Device, stream: usize, lpn: u64) -> Result<()> {
        if self.fixed {
            let p = dev.home_plane(lpn).expect("a fixed plane for every unit");
            dev.ftl.append_stream(p, stream, lpn)?;
            return Ok(());
        }
        if self.superblocks {
            let p = match self.plane[stream] {
                NO_PAGE => dev.ftl.superblock_plane(stream, |_| 0)?,
                p => p,
            };
            let done = dev.ftl.append_stream(p, stream, lpn)?.is_some();
            self.plane[stream] = if done { NO_PAGE } else { p };
            return Ok(());
        }
        let p = self.plane[stream];
        if dev.ftl.append_stream(p, stream, lpn)?.is_some() {
            self.plane[stream] = next_plane(dev, p);
        }
        Ok(())
    }
}

/// The plane after `p` round robin that can take host pages (as the device's allocation
/// steers them: a plane at its valid-data limit is passed over), or simply the next.
fn next_plane(dev: &Device, p: usize) -> usize {
    let planes = dev.geo.planes;
    (1..=planes)
        .map(|k| (p + k) % planes)
        .find(|&q| dev.ftl.takes_host(q))
        .unwrap_or((p + 1) % planes)
}

impl Placement {
    /// [`Placement::put`] of the logical units `first..first + n` in order: a page at a time
    /// where the placement is round robin (no fixed planes, no superblocks), unit by unit
    /// otherwise. The same state either way.
    pub fn put_run(&mut self, dev: &mut Device, stream: usize, first: u64, n: u64) -> Result<()> {
        if self.fixed || self.superblocks {
            for lpn in first..first + n {
                self.put(dev, stream, lpn)?;
            }
            return Ok(());
        }
        let upp = dev.geo.units_per_page as u64;
        let planes = dev.geo.planes;
        let (mut lpn, end) = (first, first + n);
        // Where whole rounds over the planes are next worth trying: after one fails, a round on.
        let mut try_rounds = lpn;
        while lpn < end {
            let p = self.plane[stream];
            if lpn >= try_rounds {
                let rounds = dev.ftl.append_rounds(p, stream, lpn, end - lpn);
                if rounds > 0 {
                    lpn += rounds * planes as u64 * upp;
                    // As after the round's last page, on the plane before `p`.
                    self.plane[stream] = next_plane(dev, (p + planes - 1) % planes);
                    continue;
                }
                try_rounds = lpn + planes as u64 * upp;
            }
            let at = dev.ftl.page_offset(p, stream);
            let k = (upp - at).min(end - lpn);
            if dev.ftl.append_run(p, stream, lpn, k as u32)? {
                self.plane[stream] = next_plane(dev, p);
            }
            lpn += k;
        }
        Ok(())
    }
}

/// Where a stream of overwrites settled: the victim-based write amplification of the last
/// windows (see the module notes), whether three windows of steady collection agreed, and the
/// units written.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Steady {
    pub waf: f64,
    /// The last three windows all collected victims and agreed within 0.5 %.
    pub converged: bool,
    /// Some window collected a victim.
    pub gc_seen: bool,
    pub written: u64,
}

/// Overwrite logical units of `dev`, placed by `f`, until the write amplification is steady:
/// `next(ftl)` gives each write's logical unit and stream (it may prefetch with `ftl`). Windows are a
/// tenth of `data_units`; at least `min` (or `max`, if lower) and at most `max` units are
/// written; steady means three windows that collected within 0.5 % once `min` is written. `progress(units written)` after each
/// window.
pub fn overwrite_until_steady(
    dev: &mut Device,
    f: &mut Placement,
    data_units: u64,
    min: u64,
    max: u64,
    mut next: impl FnMut(&crate::ftl::Ftl) -> (u64, usize),
    progress: &mut dyn FnMut(u64),
) -> Result<Steady> {
    let window = (data_units / 10).max(1);
    let upb = dev.geo.units_per_block as f64;
    let mut estimates: Vec<f64> = Vec::new();
    let mut out = Steady {
        waf: 0.0,
        converged: false,
        gc_seen: false,
        written: 0,
    };
    let mut collected = 0;
    while out.written < max {
        let before = dev.ftl.stats.clone();
        let todo = window.min(max - out.written);
        for i in 0..todo {
            let (lpn, stream) = next(&dev.ftl);
            f.put(dev, stream, lpn)?;
            // Ctrl-C acts within 2^16 writes (tens of milliseconds), not at the window's end.
            if i & 0xFFFF == 0xFFFF {
                crate::interrupt::check_interrupt()?;
            }
        }
        out.written += todo;
        crate::interrupt::check_interrupt()?;
        progress(out.written);
        let s = &dev.ftl.stats;
        let (mut victims, mut valid) = (0u64, 0u64);
        for (v, (a, b)) in s.victim_valid_hist.iter().zip(&before.victim_valid_hist).enumerate() {
            victims += a - b;
            valid += (a - b) * v as u64;
        }
        let estimate = if victims == 0 {
            // No GC yet (or ever, at low utilisation): count what was written.
            let host = (s.host_units_written - before.host_units_written) as f64;
            let copied = (s.gc_units_copied - before.gc_units_copied) as f64;
            (host + copied) / host
        } else {
            upb / (upb - valid as f64 / victims as f64)
        };
        estimates.push(estimate);
        // Steady means steady collection: a window without victims (GC has not started, or
        // paused) estimates nothing, and the three windows judged must all have collected.
        collected = if victims == 0 { 0 } else { collected + 1 };
        out.gc_seen |= victims > 0;
        let last = &estimates[estimates.len().saturating_sub(3)..];
        let mean = last.iter().sum::<f64>() / last.len() as f64;
        out.waf = crate::metrics::round3(mean);
        let spread = last.iter().fold(f64::MIN, |m, &x| m.max(x)) - last.iter().fold(f64::MAX, |m, &x| m.min(x));
        if out.written >= min.min(max).max(1) && collected >= 3 && spread <= 0.005 * mean {
            out.converged = true;
            break;
        }
    }
    Ok(out)
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
    // A drive with background GC keeps `bg_threshold` blocks free whenever it has idle time:
    // collect to that level here, so that the state reached is the one the run keeps.
    let fg_threshold = dev.ftl.gc_threshold();
    dev.ftl.set_gc_threshold(fg_threshold.max(bg_threshold as u32));
    let n = ((dev.geo.host_units as f64 * cfg.utilisation) as u64).max(1);
    // The units the random overwrites cover: the first `m` (all `n` unless a region is set).
    let m = cfg
        .overwrite_share
        .map_or(n, |s| ((dev.geo.host_units as f64 * s) as u64).clamp(1, n));
    let planned = n + if cfg.mode == PreconditionMode::Steady {
        (cfg.max_overwrites * m as f64) as u64
    } else {
        0
    };
    let mut f = Placement::new(dev);
    // Unplaced writes in turn over the slots the device gives them (FDP's reclaim groups:
    // handle 0 of each), a run or a write at a time.
    let slots = dev.unplaced_slots();
    let mut turn = 0usize;
    let mut next_slot = move || {
        turn += 1;
        slots[(turn - 1) % slots.len()]
    };
    let redundant = dev.scheme().is_some();
    let mut units = Vec::with_capacity(4);
    if redundant {
        for lpn in 0..n {
            // A redundancy scheme's copies and parity are written with the data.
            units.clear();
            dev.fill_units(lpn, &mut |l| units.push(l));
            let slot = next_slot();
            for &l in &units {
                f.put(dev, slot, l)?;
            }
            if lpn & 0xFFFF == 0 {
                crate::interrupt::check_interrupt()?;
                if lpn & 0xF_FFFF == 0 {
                    progress(lpn, planned);
                }
            }
        }
    } else {
        // In runs of 65,536 units, pages at a time.
        let mut lpn = 0;
        while lpn < n {
            let k = (n - lpn).min(0x1_0000);
            f.put_run(dev, next_slot(), lpn, k)?;
            crate::interrupt::check_interrupt()?;
            if lpn & 0xF_FFFF == 0 {
                progress(lpn, planned);
            }
            lpn += k;
        }
    }
    rep.filled_units = n;
    if cfg.mode == PreconditionMode::Steady {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(crate::units::mix_seed(cfg.seed, 0x9c0d));
        let max = (cfg.max_overwrites * m as f64) as u64;
        let min = (cfg.min_overwrites * m as f64) as u64;
        const AHEAD: usize = 32;
        let mut ring = [0u64; AHEAD];
        for slot in ring.iter_mut() {
            *slot = rng.gen_range(0..m);
            dev.ftl.prefetch(*slot);
        }
        let mut k = 0usize;
        let uniform = |ftl: &crate::ftl::Ftl| {
            let lpn = ring[k];
            let next = rng.gen_range(0..m);
            // Two prefetch stages: the map entry AHEAD writes ahead, and half way there
            // (its map entry arrived by then) what overwriting it will touch.
            ftl.prefetch(next);
            ftl.prefetch_old(ring[(k + AHEAD / 2) % AHEAD]);
            ring[k] = next;
            k = (k + 1) % AHEAD;
            (lpn, next_slot())
        };
        let steady = overwrite_until_steady(dev, &mut f, m, min, max, uniform, &mut |w| progress(n + w, planned))?;
        rep.steady_waf = steady.waf;
        rep.converged = steady.converged;
        rep.gc_seen = steady.gc_seen;
        rep.max_overwrites = cfg.max_overwrites;
        let written = steady.written;
        rep.overwritten_units = written;
        // Round robin leaves every plane's host block at the same offset: all planes would
        // then collect in step for the whole run, and a measured window would catch a whole
        // number of synchronized GC rounds. A random number of pages (under one block) more
        // per plane puts each at its own point of the cycle, as on a drive in use.
        // Superblocks fill their members in turn already, and take writes only through them.
        let upp = dev.geo.units_per_page;
        let planes = dev.geo.planes as u64;
        let staggered = if f.superblocks { 0 } else { dev.geo.planes };
        for p in 0..staggered {
            let pages = rng.gen_range(0..dev.geo.pages_per_block);
            for _ in 0..pages * upp {
                let lpn = if f.fixed {
                    // Static allocation: a unit whose home is this plane.
                    match rng.gen_range(0..m.div_ceil(planes)) * planes + p as u64 {
                        l if l < m && dev.home_plane(l) == Some(p) => l,
                        _ => continue,
                    }
                } else {
                    rng.gen_range(0..m)
                };
                dev.ftl.append_host(p, lpn)?;
            }
        }
    }
    for p in 0..dev.geo.planes {
        dev.ftl.pad_host(p);
        // Leave each plane as an idle device would: background GC done.
        while dev.ftl.free_blocks(p) < bg_threshold && dev.ftl.gc_once(p)? {}
    }
    rep.erases = dev.ftl.stats.erases;
    dev.ftl.set_gc_threshold(fg_threshold);
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

impl PreconditionReport {
    /// What to tell the user of a `steady` precondition that stopped at `max_overwrites`
    /// without converging; `None` when it converged or did not try.
    pub fn warning(&self) -> Option<String> {
        if self.mode != "none" && self.utilisation == 0.0 {
            return Some(format!(
                "precondition.mode = \"{}\" at precondition.utilisation = 0 writes nothing: the device starts fresh, and the report's converged and steady_waf say nothing; expected a utilisation above 0, or mode = \"none\"",
                self.mode
            ));
        }
        if self.mode != "steady" || self.converged || self.filled_units == 0 {
            return None;
        }
        let done = self.overwritten_units as f64 / self.filled_units as f64;
        let why = if self.gc_seen {
            format!(
                "the last three windows did not agree within 0.5 % (write amplification about {:.3})",
                self.steady_waf
            )
        } else {
            "garbage collection had not started".to_string()
        };
        Some(format!(
            "preconditioning did not reach steady state: it stopped at precondition.max_overwrites = {} ({done:.2} overwrites of the filled data) and {why}, so the run starts from a state that is still changing; raise precondition.max_overwrites (or give the device more blocks per plane, device.geometry.blocks_per_plane, for a smoother estimate)",
            self.max_overwrites
        ))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum PreconditionMode {
    /// A fresh device.
    #[default]
    None,
    /// Sequential fill of `utilisation` × logical capacity.
    Sequential,
    /// Sequential fill, then uniform random overwrites until write amplification settles.
    Steady,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreconditionConfig {
    #[serde(default)]
    pub mode: PreconditionMode,
    /// Share of the logical capacity that holds data (the rest stays trimmed).
    #[serde(default = "one_f")]
    pub utilisation: f64,
    /// Cap on random overwrites in multiples of the data written by the fill.
    #[serde(default = "default_max_overwrites")]
    pub max_overwrites: f64,
    /// Overwrite at least this much (in multiples of the filled data) before judging steady
    /// state.
    #[serde(default = "one_f")]
    pub min_overwrites: f64,
    /// `steady` only: the share of the logical capacity, from its start, that the random
    /// overwrites cover (at most `utilisation`): the whole share filled, then a region of it
    /// overwritten to steady state, as a drive whose workload keeps to a region ages. The
    /// overwrite counts are then in multiples of this region. Unset: all the filled data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overwrite_share: Option<f64>,
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Why the run starts from this state (printed with the result), e.g. why a preset's job
    /// runs on a fresh device.
    #[serde(default)]
    pub note: String,
}

impl Default for PreconditionConfig {
    fn default() -> Self {
        crate::defaults::from_no_keys()
    }
}

fn one_f() -> f64 {
    1.0
}

fn default_max_overwrites() -> f64 {
    4.0
}

fn default_seed() -> u64 {
    1
}
