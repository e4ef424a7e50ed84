//! The block-bidiagonal Jacobian of multiple shooting and its structured Levenberg–Marquardt
//! step (docs/groupoid.md, "Boundary-value problems").
//!
//! With the unknowns in segment blocks `U_0, …, U_{S−1}` (widths `w_0 = M`, `w_j = R + M`) and
//! the residual rows in the blocks `T` (`φ(g_1)`, `K` rows), `N_1, …, N_{S−1}` (continuity at
//! node `j`, `R + M` rows) and `B` (the end condition, `R` rows), the Jacobian is
//!
//! ```text
//!         U_0   U_1   U_2  …  U_{S−1}
//! T     [ J_T                          ]
//! N_1   [ C_1   D_1                    ]
//! N_2   [       C_2   D_2              ]
//! …
//! B     [                     J_B      ]
//! ```
//!
//! Memory and work are `O(S (R + M)²)` and `O(S (R + M)³)`: no dense `n_u × n_u` matrix is formed.
//!
//! **Damped step.** `δ(μ) = argmin |E + Jδ|² + μ|δ|²` (the Levenberg step
//! `(JᵀJ + μI)δ = −JᵀE`) is computed by a block Householder QR sweep of the augmented matrix
//! `[J; √μ I]` (never the normal equations, whose condition number is squared; Björck,
//! *Numerical Methods for Least Squares Problems*, 1996, §6.3). At column block `j` the rows
//! that involve `U_j` are stacked,
//!
//! ```text
//! [ P_j     0        p_j ]      P_j: the rows carried from block j − 1 (J_T for j = 0),
//! [ √μ I    0        0   ]
//! [ C_{j+1} D_{j+1}  e_{j+1} ]  (J_B and e_B, with no D, for j = S − 1)
//! ```
//!
//! and factored `Qᵀ[·] = [[R_j, S_j, g_j], [0, P_{j+1}, p_{j+1}], …]`: the first `w_j` rows give
//! `R_j δ_j + S_j δ_{j+1} + g_j = 0`, the next `w_{j+1}` rows are carried to block `j + 1`. Back
//! substitution from `δ_{S−1} = −R_{S−1}^{-1} g_{S−1}` gives the step. `R_j` is nonsingular for
//! `μ > 0` (the `√μ I` rows), so the step is defined also where `J` is rank deficient.
//!
//! **Null space (gauge) by condensing** (Bock & Plitt, 1984). The continuity blocks `D_j` are
//! invertible (block diagonal: a chart Jacobian and two identities), so `Jδ = 0` forces
//! `δ_j = Φ_j δ_0` with `Φ_0 = I`, `Φ_j = −D_j^{-1} C_j Φ_{j−1}`, and
//! `null(J) = {(v, Φ_1 v, …, Φ_{S−1} v) : A_c v = 0}` for the **condensed** `M × M` matrix
//! `A_c = [J_T; J_B Φ_{S−1}]`. The gauge directions are its right singular vectors with
//! `σ_i <= rank_rtol σ_max(A_c)`, expanded and orthonormalized in the full coordinates.

use geom_core::error::all_finite;
use geom_core::linalg::PIVOT_RTOL;
use geom_core::{GeomError, Result};
use nalgebra::{DMatrix, DVector, Dyn, LU};

/// The Jacobian of multiple shooting in block form (module documentation).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BlockBidiagonal {
    /// `J_T` (`K × w_0`).
    pub(crate) top: DMatrix<f64>,
    /// `(C_j, D_j)` for `j = 1..S−1` (each with `R + M` rows; `C_j` has `w_{j−1}` columns).
    pub(crate) nodes: Vec<(DMatrix<f64>, DMatrix<f64>)>,
    /// `J_B` (`R × w_{S−1}`).
    pub(crate) end: DMatrix<f64>,
}

impl BlockBidiagonal {
    /// Zero blocks for `segments >= 1` segments of a system with `r` fibre and `k` constraint
    /// coordinates (`m = r + k` first-segment unknowns); `None` if the list of blocks cannot be
    /// allocated.
    pub(crate) fn zeros(r: usize, k: usize, segments: usize) -> Option<Self> {
        let m = r + k;
        let w = r + m;
        let mut nodes = Vec::new();
        nodes.try_reserve_exact(segments.saturating_sub(1)).ok()?;
        nodes.extend((1..segments).map(|j| (DMatrix::zeros(w, if j == 1 { m } else { w }), DMatrix::zeros(w, w))));
        Some(Self { top: DMatrix::zeros(k, m), nodes, end: DMatrix::zeros(r, if segments == 1 { m } else { w }) })
    }

    /// Set every entry to zero.
    pub(crate) fn clear(&mut self) {
        self.top.fill(0.0);
        for (c, d) in &mut self.nodes {
            c.fill(0.0);
            d.fill(0.0);
        }
        self.end.fill(0.0);
    }

    /// The widths `w_j` of the column blocks.
    fn widths(&self) -> impl Iterator<Item = usize> + '_ {
        std::iter::once(self.top.ncols()).chain(self.nodes.iter().map(|(_, d)| d.ncols()))
    }

    /// The number of unknowns (columns).
    pub(crate) fn ncols(&self) -> usize {
        self.widths().sum()
    }

    /// The number of residual rows.
    pub(crate) fn nrows(&self) -> usize {
        self.top.nrows() + self.nodes.iter().map(|(c, _)| c.nrows()).sum::<usize>() + self.end.nrows()
    }

    /// Whether every entry is finite.
    pub(crate) fn is_finite(&self) -> bool {
        all_finite(self.top.iter())
            && all_finite(self.end.iter())
            && self.nodes.iter().all(|(c, d)| all_finite(c.iter()) && all_finite(d.iter()))
    }

    /// `J δ`.
    pub(crate) fn apply(&self, delta: &DVector<f64>) -> DVector<f64> {
        let mut out = DVector::zeros(self.nrows());
        let w0 = self.top.ncols();
        let kt = self.top.nrows();
        out.rows_mut(0, kt).copy_from(&(&self.top * delta.rows(0, w0)));
        let (mut row, mut col) = (kt, 0);
        let mut width = w0;
        for (c, d) in &self.nodes {
            let next = d.ncols();
            let y = c * delta.rows(col, width) + d * delta.rows(col + width, next);
            out.rows_mut(row, c.nrows()).copy_from(&y);
            row += c.nrows();
            col += width;
            width = next;
        }
        out.rows_mut(row, self.end.nrows()).copy_from(&(&self.end * delta.rows(col, width)));
        out
    }

    /// `Jᵀ y`.
    fn apply_transpose(&self, y: &DVector<f64>) -> DVector<f64> {
        let mut out = DVector::zeros(self.ncols());
        let w0 = self.top.ncols();
        let kt = self.top.nrows();
        out.rows_mut(0, w0).copy_from(&self.top.tr_mul(&y.rows(0, kt)));
        let (mut row, mut col) = (kt, 0);
        let mut width = w0;
        for (c, d) in &self.nodes {
            let next = d.ncols();
            let yr = y.rows(row, c.nrows());
            let a = c.tr_mul(&yr);
            let b = d.tr_mul(&yr);
            let mut prev = out.rows_mut(col, width);
            prev += a;
            let mut here = out.rows_mut(col + width, next);
            here += b;
            row += c.nrows();
            col += width;
            width = next;
        }
        let mut last = out.rows_mut(col, width);
        last += self.end.tr_mul(&y.rows(row, self.end.nrows()));
        out
    }

    /// An estimate of `σ_max(J)` by power iteration on `JᵀJ` (from below, relative accuracy
    /// `1e-6` or 100 iterations; `O(S (R+M)²)` each).
    pub(crate) fn sigma_max(&self) -> f64 {
        let n = self.ncols();
        let mut x = DVector::from_element(n, 1.0 / (n as f64).sqrt());
        let mut lambda = 0.0f64;
        for _ in 0..100 {
            let y = self.apply_transpose(&self.apply(&x));
            let next = y.norm();
            if next == 0.0 || !next.is_finite() {
                return next.sqrt();
            }
            x = y / next;
            let done = (next - lambda).abs() <= 1e-6 * next;
            lambda = next;
            if done {
                break;
            }
        }
        lambda.sqrt()
    }

    /// The damped least-squares step `δ = argmin |E + Jδ|² + μ|δ|²` by the block QR sweep of
    /// the module documentation (`μ > 0`). [`GeomError::SingularMatrix`] if a diagonal block
    /// `R_j` is singular (only for `μ = 0` or non-finite data).
    pub(crate) fn damped_step(&self, e: &DVector<f64>, mu: f64, iteration: usize) -> Result<DVector<f64>> {
        if e.len() != self.nrows() {
            return Err(GeomError::DimensionMismatch {
                what: "multiple-shooting residual",
                expected: self.nrows(),
                got: e.len(),
            });
        }
        let sq = mu.sqrt();
        let widths: Vec<usize> = self.widths().collect();
        let segments = widths.len();
        // P_0 = [J_T | e_T]
        let kt = self.top.nrows();
        let mut carried = DMatrix::zeros(kt, widths[0] + 1);
        carried.view_mut((0, 0), (kt, widths[0])).copy_from(&self.top);
        carried.view_mut((0, widths[0]), (kt, 1)).copy_from(&e.rows(0, kt));
        let mut factors: Vec<(DMatrix<f64>, DMatrix<f64>, DVector<f64>)> = Vec::with_capacity(segments);
        let mut row = kt;
        for (j, &wj) in widths.iter().enumerate() {
            let (next_rows, wn) = match self.nodes.get(j) {
                Some((c, _)) => (c.nrows(), c.nrows()),
                None => (self.end.nrows(), 0),
            };
            let p = carried.nrows();
            let mut a = DMatrix::zeros(p + wj + next_rows, wj + wn + 1);
            a.view_mut((0, 0), (p, wj)).copy_from(&carried.columns(0, wj));
            a.view_mut((0, wj + wn), (p, 1)).copy_from(&carried.columns(wj, 1));
            for i in 0..wj {
                a[(p + i, i)] = sq;
            }
            let base = p + wj;
            match self.nodes.get(j) {
                Some((c, d)) => {
                    a.view_mut((base, 0), (next_rows, wj)).copy_from(c);
                    a.view_mut((base, wj), (next_rows, wn)).copy_from(d);
                }
                None => a.view_mut((base, 0), (next_rows, wj)).copy_from(&self.end),
            }
            a.view_mut((base, wj + wn), (next_rows, 1)).copy_from(&e.rows(row, next_rows));
            row += next_rows;
            let r = a.qr().r();
            let rj = r.view((0, 0), (wj, wj)).into_owned();
            let sj = r.view((0, wj), (wj, wn)).into_owned();
            let gj = r.view((0, wj + wn), (wj, 1)).column(0).into_owned();
            // the rows carried to block j + 1 (zero-padded if the stack was short)
            let mut next = DMatrix::zeros(wn, wn + 1);
            let avail = r.nrows().saturating_sub(wj).min(wn);
            next.view_mut((0, 0), (avail, wn + 1)).copy_from(&r.view((wj, wj), (avail, wn + 1)));
            carried = next;
            factors.push((rj, sj, gj));
        }
        // back substitution
        let total: usize = widths.iter().sum();
        let mut delta = DVector::zeros(total);
        let mut col = total;
        let mut later: Option<DVector<f64>> = None;
        for (j, (rj, sj, gj)) in factors.iter().enumerate().rev() {
            col -= widths[j];
            let rhs = match &later {
                Some(dn) => -(gj + sj * dn),
                None => -gj,
            };
            let dj = rj
                .solve_upper_triangular(&rhs)
                .filter(|d| all_finite(d.iter()))
                .ok_or(GeomError::SingularMatrix { what: "block QR of the multiple-shooting Jacobian", iteration })?;
            delta.rows_mut(col, widths[j]).copy_from(&dj);
            later = Some(dj);
        }
        Ok(delta)
    }

    /// The gauge directions (orthonormal, full coordinates) and the singular values (descending)
    /// of the condensed matrix `A_c` (module documentation). [`GeomError::SingularMatrix`] if a
    /// continuity block `D_j` is singular or the SVD does not converge.
    pub(crate) fn null_space(&self, rank_rtol: f64) -> Result<(Vec<DVector<f64>>, DVector<f64>)> {
        let w0 = self.top.ncols();
        let mut lus = Vec::with_capacity(self.nodes.len());
        let mut phi = DMatrix::<f64>::identity(w0, w0);
        for (c, d) in &self.nodes {
            let lu = lu_of(d)?;
            phi = -solve(&lu, &(c * &phi))?;
            lus.push(lu);
        }
        let (kt, rb) = (self.top.nrows(), self.end.nrows());
        let mut condensed = DMatrix::zeros(kt + rb, w0);
        condensed.view_mut((0, 0), (kt, w0)).copy_from(&self.top);
        condensed.view_mut((kt, 0), (rb, w0)).copy_from(&(&self.end * &phi));
        let svd = condensed.try_svd(true, true, f64::EPSILON, 10_000).ok_or(GeomError::SingularMatrix {
            what: "SVD of the condensed multiple-shooting Jacobian (no convergence)",
            iteration: 0,
        })?;
        let (sv, v_t) = match svd.v_t.as_ref() {
            Some(v_t) => (svd.singular_values.clone(), v_t),
            None => {
                return Err(GeomError::SingularMatrix { what: "SVD of the condensed Jacobian", iteration: 0 });
            }
        };
        let smax = sv.max();
        let mut order: Vec<usize> = (0..sv.len()).collect();
        order.sort_by(|&a, &b| sv[b].total_cmp(&sv[a]));
        let singular_values = DVector::from_iterator(order.len(), order.iter().map(|&i| sv[i]));
        let mut gauge: Vec<DVector<f64>> = Vec::new();
        for &i in order.iter().filter(|&&i| sv[i] <= rank_rtol * smax) {
            let mut full = DVector::zeros(self.ncols());
            let mut prev = v_t.row(i).transpose();
            full.rows_mut(0, w0).copy_from(&prev);
            let mut col = w0;
            for ((c, d), lu) in self.nodes.iter().zip(&lus) {
                let next = -lu.solve(&(c * &prev)).ok_or(GeomError::SingularMatrix {
                    what: "continuity block D_j of multiple shooting",
                    iteration: 0,
                })?;
                full.rows_mut(col, d.ncols()).copy_from(&next);
                col += d.ncols();
                prev = next;
            }
            // modified Gram–Schmidt against the directions found so far
            for g in &gauge {
                let proj = g.dot(&full);
                full -= g * proj;
            }
            let norm = full.norm();
            if norm > 0.0 && norm.is_finite() {
                gauge.push(full / norm);
            }
        }
        Ok((gauge, singular_values))
    }

    /// The dense matrix (for checks; `O(n_u²)` memory).
    pub(crate) fn to_dense(&self) -> DMatrix<f64> {
        let mut out = DMatrix::zeros(self.nrows(), self.ncols());
        let (kt, w0) = self.top.shape();
        out.view_mut((0, 0), (kt, w0)).copy_from(&self.top);
        let (mut row, mut col) = (kt, 0);
        let mut width = w0;
        for (c, d) in &self.nodes {
            out.view_mut((row, col), c.shape()).copy_from(c);
            out.view_mut((row, col + width), d.shape()).copy_from(d);
            row += c.nrows();
            col += width;
            width = d.ncols();
        }
        out.view_mut((row, col), self.end.shape()).copy_from(&self.end);
        out
    }
}

/// `P D = L U` of a continuity block; [`GeomError::SingularMatrix`] if a pivot is below
/// `PIVOT_RTOL · max|D|`.
fn lu_of(d: &DMatrix<f64>) -> Result<LU<f64, Dyn, Dyn>> {
    let scale = d.amax();
    let lu = d.clone().lu();
    let u = lu.u();
    if !scale.is_finite()
        || scale <= 0.0
        || (0..u.nrows()).any(|i| u[(i, i)].abs() <= PIVOT_RTOL * scale || u[(i, i)].is_nan())
    {
        return Err(GeomError::SingularMatrix { what: "continuity block D_j of multiple shooting", iteration: 0 });
    }
    Ok(lu)
}

/// `D^{-1} B` from [`lu_of`].
fn solve(lu: &LU<f64, Dyn, Dyn>, b: &DMatrix<f64>) -> Result<DMatrix<f64>> {
    lu.solve(b).ok_or(GeomError::SingularMatrix { what: "continuity block D_j of multiple shooting", iteration: 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic entries in `[−1, 1)`.
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
        fn fill(&mut self, m: &mut DMatrix<f64>) {
            m.iter_mut().for_each(|v| *v = self.next());
        }
    }

    /// Random blocks with well-conditioned `D_j = 2I + noise`.
    fn random(r: usize, k: usize, segments: usize, seed: u64) -> BlockBidiagonal {
        let mut rng = Lcg(seed);
        let mut j = BlockBidiagonal::zeros(r, k, segments).unwrap();
        rng.fill(&mut j.top);
        for (c, d) in &mut j.nodes {
            rng.fill(c);
            rng.fill(d);
            *d *= 0.3;
            for i in 0..d.nrows() {
                d[(i, i)] += 2.0;
            }
        }
        rng.fill(&mut j.end);
        j
    }

    #[test]
    fn products_and_damped_step_agree_with_the_dense_matrix() {
        for &(r, k, segments) in &[(3, 2, 5), (2, 0, 4), (3, 1, 1), (5, 3, 2)] {
            let j = random(r, k, segments, 7 + segments as u64);
            let a = j.to_dense();
            assert_eq!(a.nrows(), a.ncols());
            assert_eq!(a.ncols(), r + k + (segments - 1) * (2 * r + k));
            let mut rng = Lcg(99);
            let x = DVector::from_fn(a.ncols(), |_, _| rng.next());
            assert!((j.apply(&x) - &a * &x).amax() <= 1e-14);
            assert!((j.apply_transpose(&x) - a.tr_mul(&x)).amax() <= 1e-14);
            let sv = a.clone().singular_values();
            assert!((j.sigma_max() - sv.max()).abs() <= 1e-5 * sv.max(), "{} vs {}", j.sigma_max(), sv.max());
            for &mu in &[1e-6, 0.3, 40.0] {
                let delta = j.damped_step(&x, mu, 0).unwrap();
                let normal = a.tr_mul(&a) + DMatrix::<f64>::identity(a.ncols(), a.ncols()) * mu;
                let dense = -normal.lu().solve(&a.tr_mul(&x)).unwrap();
                let err = (&delta - &dense).amax() / dense.amax();
                assert!(err <= 1e-9, "r = {r}, k = {k}, S = {segments}, μ = {mu}: {err:e}");
            }
        }
    }

    #[test]
    fn condensing_finds_a_designed_null_direction_and_no_other() {
        let (r, k, segments) = (3, 2, 6);
        let full_rank = random(r, k, segments, 3);
        let (gauge, sv) = full_rank.null_space(1e-9).unwrap();
        assert!(gauge.is_empty(), "{sv}");
        // remove the component along v from J_T and along y = Φ_{S−1} v from J_B: then
        // (v, Φ_1 v, …) spans null(J)
        let mut j = full_rank.clone();
        let m = r + k;
        let v = DVector::from_fn(m, |i, _| 1.0 + i as f64).normalize();
        let mut phi = DVector::clone(&v);
        for (c, d) in &j.nodes {
            phi = -d.clone().lu().solve(&(c * &phi)).unwrap();
        }
        let top_v = &j.top * &v;
        j.top -= top_v * v.transpose();
        let end_y = &j.end * &phi;
        j.end -= end_y * phi.transpose() / phi.norm_squared();
        let (gauge, sv) = j.null_space(1e-9).unwrap();
        assert_eq!(gauge.len(), 1, "{sv}");
        let g = &gauge[0];
        assert!((g.norm() - 1.0).abs() <= 1e-12);
        assert!(j.apply(g).amax() <= 1e-12, "{:e}", j.apply(g).amax());
        assert!((g.rows(0, m).normalize().dot(&v).abs() - 1.0).abs() <= 1e-12);
        assert!(sv[m - 1] <= 1e-12 * sv[0] && sv[m - 2] > 1e-6 * sv[0], "{sv}");
    }

    #[test]
    fn a_singular_continuity_block_is_reported() {
        let mut j = random(2, 1, 3, 5);
        j.nodes[1].1.fill(0.0);
        assert!(matches!(j.null_space(1e-9), Err(GeomError::SingularMatrix { .. })));
        assert!(matches!(j.damped_step(&DVector::zeros(3), 0.1, 0), Err(GeomError::DimensionMismatch { .. })));
    }
}
