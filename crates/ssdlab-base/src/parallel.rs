//! Points run in parallel with their results in order: the point runner the experiments and
//! the characterize sweep share, below both.

use crate::{Error, Result};
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Run `f` on every point in parallel on the current thread pool, calling `progress(done,
/// total)` first with 0 and then as points finish; the results come back in the points'
/// order, so they do not depend on the thread count.
pub fn run_points<T: Sync, R: Send>(
    points: &[T],
    progress: &(dyn Fn(usize, usize) + Sync),
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let done = AtomicUsize::new(0);
    let total = points.len();
    progress(0, total);
    points
        .par_iter()
        .map(|p| {
            let r = f(p);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            r
        })
        .collect()
}

/// A pool of `threads` threads (0: one per core) for points run at once.
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| {
            Error::Invalid(format!(
                "--threads: cannot start {threads} threads ({e}); expected fewer"
            ))
        })
}
