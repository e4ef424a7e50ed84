//! What the Lie-group method tests share: a user's group SL(2, R) written outside the crates
//! (`MatrixGroup`, three functions), a nonlinear field with a known solution on any matrix group,
//! and the slope of two errors.

#![allow(dead_code)] // each test file uses part of it

use geom_core::Scalar;
use geom_core::lie::{LieGroup, Linear, MatrixGroup};
use geom_core::step::OneStep;
use integrators::magnus::AlgebraCurve;
use integrators::rkmk::{GroupState, LieVectorField};
use nalgebra::{Matrix2, SMatrix, SVector, Vector3};

/// sl(2): `hat(a, b, c) = [[a, b], [c, −a]]`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sl2;
impl MatrixGroup<3, 2> for Sl2 {
    fn name(&self) -> String {
        "SL(2,R)".into()
    }
    fn hat<S: Scalar>(&self, x: &SVector<S, 3>) -> Matrix2<S> {
        Matrix2::new(x[0], x[1], x[2], -x[0])
    }
    fn vee<S: Scalar>(&self, m: &Matrix2<S>) -> SVector<S, 3> {
        Vector3::new((m[(0, 0)] - m[(1, 1)]) * S::from(0.5), m[(0, 1)], m[(1, 0)])
    }
    fn defect(&self, g: &Matrix2<f64>) -> f64 {
        (g.determinant() - 1.0).abs()
    }
    /// SL(2) = Sp(2): `cay(x)` has determinant 1.
    fn has_cayley(&self) -> bool {
        true
    }
}

/// The user's group.
pub type SL2 = Linear<Sl2, 2>;
/// Its value.
pub const SL2: SL2 = Linear(Sl2);

/// `log₂(e₁/e₂)`: the order measured from errors at `h` and `h/2`.
pub fn slope(e1: f64, e2: f64) -> f64 {
    (e1 / e2).log2()
}

/// A deterministic coefficient in `[−½, ½]`.
fn w(i: usize, j: usize, k: usize, seed: f64) -> f64 {
    0.5 * (1.3 * i as f64 + 2.1 * j as f64 + 0.7 * k as f64 + seed).sin()
}

/// `ġ = g f(t, g)` on a matrix group with the known solution `γ(t) = exp(t a) exp(t b)`:
///
/// `f(t, g) = ξ(t) + κ ψ(γ(t)^{-1} g − I)`, `ξ(t) = γ^{-1} γ̇ = Ad_{exp(−t b)} a + b`, and
/// `ψ(E)_i = Σ_jk W_ijk E_jk + (Σ_jk V_ijk E_jk)²` a fixed nonlinear map with `ψ(0) = 0`, so
/// that `γ` solves it from `g(0) = I` while `f` depends on `g` nonlinearly (every elementary
/// differential of the order conditions is excited).
#[derive(Debug, Clone, Copy)]
pub struct KnownSolution<const D: usize> {
    pub a: SVector<f64, D>,
    pub b: SVector<f64, D>,
    pub kappa: f64,
}

impl<const D: usize> KnownSolution<D> {
    /// A field with deterministic `a`, `b` of unit size.
    pub fn new(kappa: f64) -> Self {
        let a = SVector::<f64, D>::from_fn(|i, _| (0.9 * i as f64 + 0.3).cos());
        let b = SVector::<f64, D>::from_fn(|i, _| (1.7 * i as f64 + 1.1).sin());
        Self { a: a / a.norm(), b: b / b.norm() * 0.8, kappa }
    }
    /// `γ(t)`.
    pub fn solution<G, const N: usize>(&self, group: &G, t: f64) -> SMatrix<f64, N, N>
    where
        G: LieGroup<f64, D, Element = SMatrix<f64, N, N>>,
    {
        group.exp(&(self.a * t)) * group.exp(&(self.b * t))
    }
    /// `ξ(t) = Ad_{exp(−t b)} a + b`.
    pub fn xi<G: LieGroup<f64, D>>(&self, group: &G, t: f64) -> SVector<f64, D> {
        group.adjoint(&group.exp(&(self.b * (-t)))) * self.a + self.b
    }
}

impl<G, const D: usize, const N: usize> LieVectorField<G, D> for KnownSolution<D>
where
    G: LieGroup<f64, D, Element = SMatrix<f64, N, N>>,
{
    fn eval(&self, group: &G, t: f64, g: &SMatrix<f64, N, N>) -> geom_core::Result<SVector<f64, D>> {
        let e = group.inverse(&self.solution(group, t)) * g - SMatrix::<f64, N, N>::identity();
        let mut psi = SVector::<f64, D>::zeros();
        for i in 0..D {
            let (mut lin, mut quad) = (0.0, 0.0);
            for j in 0..N {
                for k in 0..N {
                    lin += w(i, j, k, 0.4) * e[(j, k)];
                    quad += w(i, j, k, 2.9) * e[(j, k)];
                }
            }
            psi[i] = lin + quad * quad;
        }
        Ok(self.xi(group, t) + psi * self.kappa)
    }
}

/// The linear part alone, `ġ = g ξ(t)`, for the Magnus integrators (same solution `γ`).
#[derive(Debug, Clone, Copy)]
pub struct KnownCurve<G, const D: usize>(pub G, pub KnownSolution<D>);

impl<G: LieGroup<f64, D>, const D: usize> AlgebraCurve<D> for KnownCurve<G, D> {
    fn eval(&self, t: f64) -> geom_core::Result<SVector<f64, D>> {
        Ok(self.1.xi(&self.0, t))
    }
}

/// The max-norm error at `t_end` of `n` steps of `method` from `(0, I)` against `γ(t_end)`.
pub fn error<G, M, const D: usize, const N: usize>(
    method: &M,
    group: &G,
    known: &KnownSolution<D>,
    t_end: f64,
    n: usize,
) -> f64
where
    G: LieGroup<f64, D, Element = SMatrix<f64, N, N>>,
    M: OneStep<GroupState<SMatrix<f64, N, N>>> + ?Sized,
{
    let mut s = GroupState::new(0.0, SMatrix::<f64, N, N>::identity());
    method.step_n(&mut s, t_end / n as f64, n).unwrap_or_else(|e| panic!("{}: {e}", method.name()));
    (s.g - known.solution(group, t_end)).amax()
}

/// Errors at `n, 2n, 4n, …` steps and their slopes.
pub fn errors_and_slopes<G, M, const D: usize, const N: usize>(
    method: &M,
    group: &G,
    known: &KnownSolution<D>,
    t_end: f64,
    steps: &[usize],
) -> (Vec<f64>, Vec<f64>)
where
    G: LieGroup<f64, D, Element = SMatrix<f64, N, N>>,
    M: OneStep<GroupState<SMatrix<f64, N, N>>> + ?Sized,
{
    let errors: Vec<f64> = steps.iter().map(|&n| error(method, group, known, t_end, n)).collect();
    let slopes = errors.windows(2).map(|w| slope(w[0], w[1])).collect();
    (errors, slopes)
}

/// Scientific notation of a list.
pub fn sci(v: &[f64]) -> String {
    v.iter().map(|x| format!("{x:.3e}")).collect::<Vec<_>>().join(" ")
}
