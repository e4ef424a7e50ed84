//! What a run returns: the record of the samples, the trajectory, the errors.

use super::*;

/// The sampled observer values of a run: sample `k` was taken after `steps()[k]` steps at time
/// `times()[k]`; `series(i)[k]` is observer `i` there.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub(super) names: Vec<String>,
    pub(super) steps: Vec<usize>,
    pub(super) times: Vec<f64>,
    pub(super) series: Vec<Vec<f64>>,
}

impl Record {
    /// Room for `samples` samples, or [`GeomError::InvalidParameter`] if they cannot be
    /// allocated (a step count whose record does not fit in memory is an input error, not an
    /// abort).
    pub(super) fn try_with_capacity(names: Vec<String>, samples: usize) -> Result<Self, GeomError> {
        let mut record =
            Self { series: names.iter().map(|_| Vec::new()).collect(), names, steps: Vec::new(), times: Vec::new() };
        let mut ok = record.steps.try_reserve_exact(samples).is_ok() && record.times.try_reserve_exact(samples).is_ok();
        for series in &mut record.series {
            ok = ok && series.try_reserve_exact(samples).is_ok();
        }
        if ok { Ok(record) } else { Err(too_many_samples(samples)) }
    }
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.steps.len()
    }
    /// Whether nothing was sampled.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }
    /// Observer names, in the order they were given.
    pub fn names(&self) -> &[String] {
        &self.names
    }
    /// Step index of each sample.
    pub fn steps(&self) -> &[usize] {
        &self.steps
    }
    /// Time of each sample.
    pub fn times(&self) -> &[f64] {
        &self.times
    }
    /// The samples of observer `i` (panics if `i` is out of range, like slice indexing).
    pub fn series(&self, i: usize) -> &[f64] {
        &self.series[i]
    }
    /// Index of the observer called `name`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
    /// The samples of the observer called `name`.
    pub fn series_named(&self, name: &str) -> Option<&[f64]> {
        self.index_of(name).map(|i| self.series(i))
    }
    /// `max_k |obs_k − obs_0|` of observer `i` (0 for an empty record).
    pub fn max_deviation(&self, i: usize) -> f64 {
        let s = self.series(i);
        s.first().map_or(0.0, |&v0| s.iter().fold(0.0f64, |m, &v| m.max((v - v0).abs())))
    }
    /// `max_k |obs_k − obs_0| / |obs_0|` of observer `i` (the absolute deviation if `obs_0 = 0`).
    pub fn max_relative_deviation(&self, i: usize) -> f64 {
        let v0 = self.series(i).first().map_or(0.0, |v| v.abs());
        let d = self.max_deviation(i);
        if v0 > 0.0 { d / v0 } else { d }
    }
    /// [`max_deviation`](Self::max_deviation) of the observer called `name`.
    pub fn max_deviation_named(&self, name: &str) -> Option<f64> {
        self.index_of(name).map(|i| self.max_deviation(i))
    }
}

/// The result of a run: the final state, the number of steps and the final time, the observer
/// [`Record`], and the sampled states if [`Driver::store_states`] was set (else empty).
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory<St> {
    /// State after the last step.
    pub final_state: St,
    /// Steps taken.
    pub steps: usize,
    /// Final time.
    pub time: f64,
    /// Observer samples.
    pub record: Record,
    /// The state at every sample (empty unless [`Driver::store_states`]).
    pub states: Vec<St>,
}

impl<St> Trajectory<St> {
    /// `max_k |obs_k − obs_0|` of the observer called `name`.
    pub fn max_deviation(&self, name: &str) -> Option<f64> {
        self.record.max_deviation_named(name)
    }
}

/// What can go wrong in a run.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Error)]
pub enum DriverError {
    /// Invalid input (step size, step count, sampling interval, final time, thread count).
    #[error(transparent)]
    Geom(#[from] GeomError),
    /// Step `step` (from time `time`) failed; the run stops there.
    #[error("step {step} from t = {time} failed: {source}")]
    StepFailed {
        /// 1-based index of the failed step.
        step: usize,
        /// Time at the start of the failed step.
        time: f64,
        /// The method's error.
        source: GeomError,
    },
    /// A [`DriverCheckpoint`] that cannot be restored: another format version, a checksum that
    /// does not match its content, or content inconsistent with itself or with the state type.
    #[error("checkpoint refused: {0}")]
    Checkpoint(String),
}

/// The error for a record of `samples` samples that cannot be allocated.
pub(super) fn too_many_samples(samples: usize) -> GeomError {
    GeomError::InvalidParameter {
        what: "steps",
        reason: format!("{samples} samples do not fit in memory: sample less often (every) or run fewer steps"),
    }
}
