//! A bounded digest of a long run: the samples that decide every number of its summary and the
//! shape of its plots, chosen in one pass over the samples in order, so that a run of any length
//! is summarised and plotted in bounded memory.
//!
//! A run of at most [`KEEP_ALL`] samples keeps them all (its plots are those of every sample).
//! A longer run of `n` samples is cut into `b` buckets of `⌈n/b⌉` consecutive samples, and each
//! bucket keeps, in their order,
//!
//! * its first sample;
//! * for every state coordinate, a sample where it is smallest and one where it is largest (the
//!   envelope of every trajectory plot);
//! * for every monitored error and the solution error, a sample where it is smallest, one where it
//!   is largest (ignoring NaN, as `f64::max` does) and the first where it is NaN;
//!
//! and the last sample of the run is kept. With `c = 1 + 2·states + 3·(quantities + 1)` samples
//! per bucket at most, `b = min(800, ⌊BUDGET/c⌋)` (at least 1), so a digest holds at most about
//! [`BUDGET`] samples. The largest error of each quantity over the digest, its NaNs, the largest
//! solution error, the first and the last sample are those of the whole run exactly: the summary,
//! the divergence test and `summary.json` read them off the digest. The plots thin each curve to
//! its extrema per bucket in the same way (`plot::thin`), from the digest's points.

use crate::workbench::experiment::Sample;
use crate::workbench::sample_file::Shape;

/// Runs of at most this many samples keep every one: the plots thin longer curves
/// ([`crate::workbench::plot::MAX_POINTS_PER_CURVE`]), so shorter runs are drawn as they are.
pub const KEEP_ALL: usize = crate::workbench::plot::MAX_POINTS_PER_CURVE;

/// About the most samples a digest keeps.
pub const BUDGET: usize = 16_384;

/// The most buckets (those of `plot::thin` for a curve of the plots' length).
const MAX_BUCKETS: usize = KEEP_ALL / 5;

/// What a slot of a bucket looks for.
#[derive(Debug, Clone, Copy)]
enum Pick {
    /// The bucket's first sample.
    First,
    /// The smallest value of a column.
    Min(Column),
    /// The largest value of a column (NaN ignored).
    Max(Column),
    /// The first NaN of a column.
    Nan(Column),
}

/// A number of a sample.
#[derive(Debug, Clone, Copy)]
enum Column {
    State(usize),
    Error(usize),
    Solution,
}

impl Column {
    fn of(self, s: &Sample) -> Option<f64> {
        match self {
            Column::State(i) => s.state.get(i).copied(),
            Column::Error(i) => s.errors.get(i).copied(),
            Column::Solution => s.solution_error,
        }
    }
}

impl Pick {
    /// Whether `s` replaces `best` (`None`: the slot is empty).
    fn better(self, s: &Sample, best: Option<&Sample>) -> bool {
        match self {
            Pick::First => best.is_none(),
            Pick::Min(c) => c.of(s).is_some_and(|v| best.and_then(|b| c.of(b)).is_none_or(|b| v < b || b.is_nan())),
            Pick::Max(c) => c.of(s).is_some_and(|v| best.and_then(|b| c.of(b)).is_none_or(|b| v > b || b.is_nan())),
            Pick::Nan(c) => best.is_none() && c.of(s).is_some_and(f64::is_nan),
        }
    }
}

/// The digest of a run, fed its samples in order ([`Digest::push`]).
#[derive(Debug)]
pub struct Digest {
    total: usize,
    size: usize,
    seen: usize,
    picks: Vec<Pick>,
    /// Per pick: the index of its sample in the run and the sample.
    slots: Vec<Option<(usize, Sample)>>,
    last: Option<Sample>,
    kept: Vec<Sample>,
}

impl Digest {
    /// The digest of a run of `total` samples of `shape`.
    pub fn new(total: usize, shape: Shape) -> Self {
        let mut picks = vec![Pick::First];
        let columns = (0..shape.states)
            .map(Column::State)
            .chain((0..shape.quantities).map(Column::Error))
            .chain(std::iter::once(Column::Solution));
        for c in columns {
            picks.extend([Pick::Min(c), Pick::Max(c)]);
            if !matches!(c, Column::State(_)) {
                picks.push(Pick::Nan(c));
            }
        }
        let buckets = (BUDGET / picks.len()).clamp(1, MAX_BUCKETS);
        let size = if total <= KEEP_ALL { 1 } else { total.div_ceil(buckets) };
        let slots = vec![None; picks.len()];
        Self { total, size, seen: 0, picks, slots, last: None, kept: Vec::new() }
    }

    /// Takes the next sample of the run into account.
    pub fn push(&mut self, s: &Sample) {
        if self.size == 1 {
            self.kept.push(s.clone());
            self.seen += 1;
            return;
        }
        for (pick, slot) in self.picks.iter().zip(self.slots.iter_mut()) {
            if pick.better(s, slot.as_ref().map(|(_, b)| b)) {
                match slot {
                    Some((i, b)) => {
                        *i = self.seen;
                        copy(b, s);
                    }
                    None => *slot = Some((self.seen, s.clone())),
                }
            }
        }
        match &mut self.last {
            Some(l) => copy(l, s),
            None => self.last = Some(s.clone()),
        }
        self.seen += 1;
        if self.seen.is_multiple_of(self.size) {
            self.close_bucket();
        }
    }

    /// Keeps the samples of the bucket's slots, in their order, once each.
    fn close_bucket(&mut self) {
        let mut chosen: Vec<(usize, Sample)> = self.slots.iter_mut().filter_map(Option::take).collect();
        chosen.sort_by_key(|(i, _)| *i);
        chosen.dedup_by_key(|(i, _)| *i);
        self.kept.extend(chosen.into_iter().map(|(_, s)| s));
    }

    /// The samples kept, in the run's order, the last sample of the run last. `total` is what
    /// [`Digest::new`] was told; fewer samples pushed give a digest of those.
    pub fn finish(mut self) -> Vec<Sample> {
        if self.size > 1 {
            self.close_bucket();
            if let Some(l) = self.last.take()
                && self.kept.last().is_none_or(|k| k.step != l.step)
            {
                self.kept.push(l);
            }
        }
        self.kept
    }

    /// The samples the digest was told the run has.
    pub fn total(&self) -> usize {
        self.total
    }
}

/// Copies `src` into `dst`, reusing its vectors' memory.
fn copy(dst: &mut Sample, src: &Sample) {
    dst.step = src.step;
    dst.t = src.t;
    dst.state.clone_from(&src.state);
    dst.values.clone_from(&src.values);
    dst.errors.clone_from(&src.errors);
    dst.solution_error = src.solution_error;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::experiment::{RunResult, RunSpec};

    /// A run of `n` samples: a slow orbit, errors that grow with a spike and a dip, a NaN.
    fn samples(n: usize) -> Vec<Sample> {
        (0..n)
            .map(|k| {
                let t = k as f64 * 0.01;
                let mut e = 1e-10 * (1.0 + t) * (1.0 + (3.7 * t).sin().abs());
                if k == n / 3 {
                    e = 5e-3;
                }
                if k == n / 2 {
                    e = 0.0;
                }
                let second = if k == 2 * n / 3 { f64::NAN } else { 1e-12 * t };
                Sample {
                    step: k,
                    t,
                    state: vec![t.cos(), t.sin(), (7.0 * t).sin()],
                    values: vec![-0.5, 1.0],
                    errors: vec![e, second],
                    solution_error: Some(1e-8 * t * (1.0 + (0.1 * t).cos())),
                }
            })
            .collect()
    }

    fn result(samples: Vec<Sample>) -> RunResult {
        let quantities = vec![
            crate::workbench::problem::Quantity::new("energy", crate::workbench::problem::Kind::Energy, 1, "H"),
            crate::workbench::problem::Quantity::new("m", crate::workbench::problem::Kind::Momentum, 1, "m"),
        ];
        RunResult {
            problem: "p".into(),
            method: "m".into(),
            spec: RunSpec { h: 0.01, steps: samples.len(), every: 1 },
            labels: vec!["q1".into(), "q2".into(), "q3".into()],
            quantities,
            samples,
            wall_seconds: 0.0,
        }
    }

    const SHAPE: Shape = Shape { states: 3, values: 2, quantities: 2 };

    /// The samples' bits (a NaN equals itself).
    fn bits(v: &[Sample]) -> Vec<u8> {
        let mut out = Vec::new();
        for s in v {
            crate::workbench::sample_file::encode(s, &mut out);
        }
        out
    }

    fn digest(all: &[Sample]) -> Vec<Sample> {
        let mut d = Digest::new(all.len(), SHAPE);
        for s in all {
            d.push(s);
        }
        d.finish()
    }

    /// Short runs keep every sample; long ones at most about BUDGET, in order, with the first
    /// and last sample, every largest error, NaN and solution error of the whole run, and each
    /// state coordinate's extremes.
    #[test]
    fn a_digest_keeps_what_decides_the_summary_and_the_plots() {
        let short = samples(KEEP_ALL);
        assert!(bits(&digest(&short)) == bits(&short), "a short run is not kept whole");
        for n in [KEEP_ALL + 1, 12_345, 1_000_003] {
            let all = samples(n);
            let kept = digest(&all);
            assert!(kept.len() <= BUDGET + 1 && kept.len() < n, "{n}: {} kept", kept.len());
            assert!(kept.windows(2).all(|w| w[0].step < w[1].step), "{n}: out of order or repeated");
            assert!(bits(&kept[..1]) == bits(&all[..1]) && bits(&kept[kept.len() - 1..]) == bits(&all[n - 1..]), "{n}");
            let (a, d) = (result(all.clone()), result(kept.clone()));
            for i in 0..2 {
                assert_eq!(a.max_error(i).to_bits(), d.max_error(i).to_bits(), "{n}: quantity {i}");
                assert_eq!(a.final_error(i).to_bits(), d.final_error(i).to_bits(), "{n}: quantity {i}");
            }
            assert_eq!(
                crate::workbench::divergence::largest_errors(&a).iter().map(|e| e.to_bits()).collect::<Vec<_>>(),
                crate::workbench::divergence::largest_errors(&d).iter().map(|e| e.to_bits()).collect::<Vec<_>>(),
                "{n}: the NaN is lost"
            );
            assert_eq!(a.max_solution_error(), d.max_solution_error(), "{n}");
            assert!(kept.iter().any(|s| s.errors[0] == 0.0), "{n}: the dip is lost");
            for c in 0..3 {
                let ext = |v: &[Sample], max: bool| {
                    v.iter()
                        .map(|s| s.state[c])
                        .fold(if max { f64::MIN } else { f64::MAX }, |m, x| if max { m.max(x) } else { m.min(x) })
                };
                assert_eq!((ext(&kept, false), ext(&kept, true)), (ext(&all, false), ext(&all, true)), "{n}: {c}");
            }
        }
    }
}
