//! Thread pools of a given size for ensembles.

use super::*;

/// The most threads a pool of [`with_threads`] starts: the machine's parallelism
/// (`std::thread::available_parallelism`, 1 if it cannot be read).
pub fn max_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Run `job` in a rayon thread pool of `min(threads, max_threads())` threads (e.g. an ensemble
/// on 1 vs 2 cores). More threads than cores would only compete for them, and the trajectories of
/// an ensemble do not depend on the thread count (each is computed by the serial code), so a
/// larger request is capped, never honoured with a thread storm. [`GeomError::InvalidParameter`]
/// for `threads = 0` or if the pool cannot be built.
///
/// ```
/// use integrators::driver::{max_threads, with_threads};
/// assert_eq!(with_threads(2, || rayon::current_num_threads())?, 2.min(max_threads()));
/// assert_eq!(with_threads(64, || rayon::current_num_threads())?, 64.min(max_threads()));
/// assert!(with_threads(0, || ()).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn with_threads<R: Send>(threads: usize, job: impl FnOnce() -> R + Send) -> Result<R, GeomError> {
    if threads == 0 {
        return Err(GeomError::InvalidParameter { what: "threads", reason: "must be at least 1".into() });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.min(max_threads()))
        .build()
        .map_err(|e| GeomError::InvalidParameter { what: "threads", reason: e.to_string() })?;
    Ok(pool.install(job))
}
