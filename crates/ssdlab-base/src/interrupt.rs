//! Stopping every simulation in the process (a front end's Ctrl-C): a flag the long loops
//! check at their progress reports.

use crate::{Error, Result};

/// Set by [`interrupt`]: every simulation in the process stops at its next progress report.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Ask every simulation running in this process to stop (a front end's Ctrl-C): each returns
/// [`Error::Interrupted`] at its next check (every 65,536 requests, every 65,536
/// preconditioning writes). Stays set until [`clear_interrupt`].
pub fn interrupt() {
    INTERRUPTED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Let simulations run again after an [`interrupt`].
pub fn clear_interrupt() {
    INTERRUPTED.store(false, std::sync::atomic::Ordering::Relaxed);
}

/// [`Error::Interrupted`] if [`interrupt`] was called.
pub fn check_interrupt() -> Result<()> {
    if INTERRUPTED.load(std::sync::atomic::Ordering::Relaxed) {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}
