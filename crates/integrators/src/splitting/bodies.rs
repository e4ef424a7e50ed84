//! Body by body: what the two planetary splits ([`super::PlanetarySystem`],
//! [`super::DemocraticHeliocentric`]) share in their coordinate changes, drifts and state words.
//!
//! A state `(q, p)` of `T*R^N`, `N = B·D`, holds body `i` at rows `D·i .. D·i + D`; a split state
//! holds `B` positions and `B` velocities in `R^D`. The helpers:
//!
//! * [`rows`] reads body `i` as `x_i / s_i` (`s_i = 1` for positions, `m_i` for velocities
//!   from momenta), [`flat`] writes `s_i x_i` back;
//! * [`drift_planets`] is the flow of `H_K = |P_0|²/(2M) + Σ_{i≥1} (|p_i|²/(2 m'_i) − μ_i m'_i/|q_i|)`
//!   in both splits: `q_0 ← q_0 + t v_0` and each planet on its Kepler orbit about `μ_i`;
//! * [`write_words`], [`read_words`], [`all_finite`]: the words `q_0 … q_{B−1}, v_0 … v_{B−1}`
//!   (each `D` words) of a split state, for [`geom_core::step::FlatState`].

use super::kepler_drift::KeplerDrift;
use geom_core::GeomError;
use geom_core::step::PhaseState;
use nalgebra::SVector;

/// `[x_0 / s_0, …, x_{B−1} / s_{B−1}]`, `x_i` the rows `D·i .. D·i + D` of `x`.
#[inline(always)]
pub(crate) fn rows<const N: usize, const D: usize, const B: usize>(
    x: &SVector<f64, N>,
    s: impl Fn(usize) -> f64,
) -> [SVector<f64, D>; B] {
    std::array::from_fn(|i| SVector::from_fn(|k, _| x[D * i + k] / s(i)))
}

/// The vector of `T*R^N` whose rows `D·i .. D·i + D` are `s_i x_i`.
#[inline(always)]
pub(crate) fn flat<const N: usize, const D: usize, const B: usize>(
    x: &[SVector<f64, D>; B],
    s: impl Fn(usize) -> f64,
) -> SVector<f64, N> {
    SVector::from_fn(|r, _| x[r / D][r % D] * s(r / D))
}

/// The Kepler part of a split for time `t`: `q_0 ← q_0 + t v_0`, and planet `i ≥ 1` on its
/// Kepler orbit ([`KeplerDrift::advance`] of `(q_i, v_i)` with `kepler(i)`). The errors of the
/// Kepler drift (the state may then be partly advanced: callers work on a copy).
#[inline(always)]
pub(crate) fn drift_planets<const D: usize, const B: usize>(
    q: &mut [SVector<f64, D>; B],
    v: &mut [SVector<f64, D>; B],
    t: f64,
    kepler: impl Fn(usize) -> KeplerDrift,
) -> Result<(), GeomError> {
    q[0] += v[0] * t;
    for i in 1..B {
        let mut orbit = PhaseState::new(q[i], v[i]);
        kepler(i).advance(&mut orbit, t)?;
        (q[i], v[i]) = (orbit.q, orbit.p);
    }
    Ok(())
}

/// Appends `q_0 … q_{B−1}, v_0 … v_{B−1}` to `out`.
pub(crate) fn write_words<const D: usize, const B: usize>(
    q: &[SVector<f64, D>; B],
    v: &[SVector<f64, D>; B],
    out: &mut Vec<f64>,
) {
    for x in q.iter().chain(v) {
        out.extend_from_slice(x.as_slice());
    }
}

/// The positions and velocities of `2·B·D` words written by [`write_words`]; `None` for another
/// length.
#[allow(clippy::type_complexity)]
pub(crate) fn read_words<const D: usize, const B: usize>(
    words: &[f64],
) -> Option<([SVector<f64, D>; B], [SVector<f64, D>; B])> {
    (words.len() == 2 * B * D).then(|| {
        let body = |i: usize| SVector::from_column_slice(&words[D * i..D * i + D]);
        (std::array::from_fn(body), std::array::from_fn(|i| body(B + i)))
    })
}

/// Whether every position and velocity is finite (no allocation, no early exit: the `2·B·D`
/// tests vectorize).
#[inline(always)]
pub(crate) fn all_finite<const D: usize, const B: usize>(q: &[SVector<f64, D>; B], v: &[SVector<f64, D>; B]) -> bool {
    let mut finite = true;
    for i in 0..B {
        for k in 0..D {
            finite &= q[i][k].is_finite() & v[i][k].is_finite();
        }
    }
    finite
}
