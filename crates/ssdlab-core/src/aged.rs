//! Preconditioned drives shared between the runs of one process. Preconditioning writes
//! only the FTL's state (`precondition.rs` touches nothing else of the device), so a run whose
//! device (in all that shapes the FTL, [`key`]) and `[precondition]` equal an earlier run's
//! starts from a copy of that run's
//! preconditioned FTL, in a device built around it ([`Device::with_ftl`]), instead of
//! preconditioning again: the same state, and so the same result, byte for byte (the
//! experiments' tests compare both ways).
//!
//! Sharing is on while a [`Shared`] guard lives (an experiment holds one for its points).
//! Runs with the same key wait for the first to precondition, then copy. Kept states are
//! bounded in memory: beyond [`budget`], the oldest not in use are dropped.

use crate::device::Device;
use crate::device_config::DeviceConfig;
use crate::ftl::Ftl;
use crate::precondition::{precondition, PreconditionConfig, PreconditionMode, PreconditionReport};
use crate::Result;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Runs that started from a copy, since the process started.
static COPIES: AtomicU64 = AtomicU64::new(0);

/// How many runs have started from a copy of a kept state (in this process).
pub fn copies() -> u64 {
    COPIES.load(Ordering::Relaxed)
}

/// A kept state: the preconditioned FTL and what preconditioning reported.
type Slot = Arc<Mutex<Option<(Ftl, PreconditionReport)>>>;

#[derive(Default)]
struct Kept {
    /// Live [`Shared`] guards; states are kept while there is one.
    guards: usize,
    /// (key, estimated bytes, slot), oldest first.
    states: Vec<(String, u64, Slot)>,
}

static KEPT: Mutex<Kept> = Mutex::new(Kept {
    guards: 0,
    states: Vec::new(),
});

fn kept() -> std::sync::MutexGuard<'static, Kept> {
    KEPT.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sharing of preconditioned states, on while it lives; the states go when the last guard does.
/// A guard from [`keep`] also keeps its state from being dropped for memory.
#[must_use = "sharing stops when the guard is dropped"]
pub struct Shared(#[allow(dead_code)] Option<Slot>);

/// Turn sharing on until the guard is dropped (guards nest).
pub fn share() -> Shared {
    kept().guards += 1;
    Shared(None)
}

/// The key of a device preconditioned as `pc`: runs with equal keys start from one state.
/// Only what the FTL's state depends on counts: the geometry, the NAND (its timings are in the
/// FTL's parameters), the FTL, placement and redundancy; not the host link, the controller's
/// CPU or the flash scheduler, which preconditioning never uses (points that differ only in
/// those start from one state; the experiments' tests compare with points that precondition
/// their own).
pub fn key(dc: &DeviceConfig, pc: &PreconditionConfig) -> String {
    serde_json::to_string(&(&dc.geometry, &dc.nand, &dc.ftl, &dc.placement, &dc.redundancy, pc))
        .expect("configs serialise")
}

/// Turn sharing on with `ftl` (what preconditioning `dc` as `pc` left, and reported as `pre`)
/// kept as that key's state until the guard is dropped, e.g. a state read from a snapshot file:
/// runs with that device and precondition start from a copy of it.
pub fn keep(dc: &DeviceConfig, pc: &PreconditionConfig, ftl: Ftl, pre: PreconditionReport) -> Shared {
    let slot: Slot = Arc::new(Mutex::new(Some((ftl, pre))));
    let mut k = kept();
    k.guards += 1;
    let key = key(dc, pc);
    k.states.retain(|(k, ..)| *k != key);
    k.states.push((key, 0, slot.clone()));
    Shared(Some(slot))
}

impl Drop for Shared {
    fn drop(&mut self) {
        let mut k = kept();
        k.guards -= 1;
        if k.guards == 0 {
            k.states.clear();
        }
    }
}

/// Whether sharing is on.
pub fn sharing() -> bool {
    kept().guards > 0
}

/// Memory the kept states may take: a quarter of the default memory limit (three quarters of
/// physical memory), or 2 GiB where it is unknown.
pub fn budget() -> u64 {
    crate::memory::default_memory_limit().map_or(2 << 30, |l| l / 4)
}

/// The device `dc` preconditioned as `pc` says: built and preconditioned here, or, while
/// sharing is on and an earlier run had the same device and precondition, a copy of its state.
/// `progress` as [`precondition`]'s (not called for a copy).
pub fn preconditioned(
    dc: &DeviceConfig,
    pc: &PreconditionConfig,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<(Device, PreconditionReport)> {
    let fresh = |progress: &mut dyn FnMut(u64, u64)| -> Result<(Device, PreconditionReport)> {
        let mut device = Device::new(dc, pc.seed)?;
        let pre = precondition(&mut device, pc, dc.ftl.idle_bg_threshold() as usize, progress)?;
        Ok((device, pre))
    };
    if pc.mode == PreconditionMode::None || pc.utilisation == 0.0 || !sharing() {
        return fresh(progress);
    }
    let key = key(dc, pc);
    let slot = {
        let mut k = kept();
        match k.states.iter().find(|(k, ..)| *k == key) {
            Some((_, _, s)) => s.clone(),
            None => {
                let bytes = crate::ftl::Ftl::memory_estimate(&crate::redundancy::geometry_of(dc, &dc.name)?);
                let s: Slot = Arc::default();
                k.states.push((key, bytes, s.clone()));
                // The oldest states nobody is copying go first.
                let budget = budget();
                while k.states.iter().map(|e| e.1).sum::<u64>() > budget {
                    match k.states.iter().position(|e| Arc::strong_count(&e.2) == 1) {
                        Some(i) => drop(k.states.remove(i)),
                        None => break,
                    }
                }
                s
            }
        }
    };
    // Runs of the same key wait here while the first preconditions.
    let mut state = slot.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((ftl, pre)) = state.as_ref() {
        let start = std::time::Instant::now();
        let device = Device::with_ftl(dc, ftl.clone())?;
        COPIES.fetch_add(1, Ordering::Relaxed);
        // What this run spent on its state: the copy.
        let pre = PreconditionReport {
            wall_time_s: crate::metrics::round3(start.elapsed().as_secs_f64()),
            ..pre.clone()
        };
        return Ok((device, pre));
    }
    let (device, pre) = fresh(progress)?;
    *state = Some((device.ftl.clone(), pre.clone()));
    Ok((device, pre))
}
