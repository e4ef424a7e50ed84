//! Thread pools of a given size for ensembles.

use super::*;

/// Run `job` in a rayon thread pool of `threads` threads (e.g. an ensemble on 1 vs 2 cores);
/// [`GeomError::InvalidParameter`] for `threads = 0` or if the pool cannot be built.
///
/// ```
/// let sum = integrators::driver::with_threads(2, || rayon::current_num_threads())?;
/// assert_eq!(sum, 2);
/// assert!(integrators::driver::with_threads(0, || ()).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn with_threads<R: Send>(threads: usize, job: impl FnOnce() -> R + Send) -> Result<R, GeomError> {
    if threads == 0 {
        return Err(GeomError::InvalidParameter { what: "threads", reason: "must be at least 1".into() });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| GeomError::InvalidParameter { what: "threads", reason: e.to_string() })?;
    Ok(pool.install(job))
}
