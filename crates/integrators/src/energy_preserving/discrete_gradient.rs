//! Gonzalez's midpoint discrete gradient (Gonzalez 1996).

use super::scheme::{DIFFERENCE_THRESHOLD, DiscreteGradient, PhaseMatrix, PhaseVector, discrete_gradient_method};
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::newton::NewtonOptions;
use geom_core::step::PhaseState;
use nalgebra::SMatrix;

/// The discrete gradient method of Gonzalez's midpoint discrete gradient (O. Gonzalez, *Time
/// integration and discrete Hamiltonian systems*, J. Nonlinear Sci. 6 (1996) 449–467):
///
/// ```text
///     ∇̄H(x, x') = ∇H(m) + (H(x') − H(x) − ∇H(m)·Δ) / |Δ|² Δ,      m = (x + x')/2,  Δ = x' − x,
///     x₁ = x₀ + h J ∇̄H(x₀, x₁),
/// ```
///
/// with `|Δ|` the Euclidean norm of `R^{2N}`. It is a discrete gradient
/// (`∇̄H·Δ = H(x') − H(x)` for every `H`: the correction removes the part of `∇H(m)·Δ` that
/// misses the energy difference), symmetric in `(x, x')`, so the method conserves `H`, is
/// symmetric and of order 2 (a perturbation of the implicit midpoint rule by
/// `O(|H'''| |Δ|²)`); not symplectic.
///
/// **`Δ → 0`.** The correction is `O(|Δ|²)` but computed as a quotient by `|Δ|²`: when
/// `|Δ| ≤` [`DIFFERENCE_THRESHOLD`]` · (1 + max(|x|_∞, |x'|_∞))` it is dropped and
/// `∇̄H = ∇H(m)` (the midpoint rule), which never divides by zero and misses the energy identity
/// by `|H'''| |Δ|³ / 24`, the rounding level of `H` at that threshold (its documentation).
///
/// The Newton matrix is the exact Jacobian above the threshold,
///
/// ```text
///     ∂∇̄H/∂x' = ½ ∇²H(m) + Δ aᵀ / |Δ|² − 2 (H(x') − H(x) − ∇H(m)·Δ) Δ Δᵀ / |Δ|⁴
///               + (H(x') − H(x) − ∇H(m)·Δ) / |Δ|² I,       a = ∇H(x') − ∇H(m) − ½ ∇²H(m) Δ,
/// ```
///
/// and `½ ∇²H(m)` below it.
///
/// ```
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use integrators::energy_preserving::Gonzalez;
/// use integrators::{OneStep, PhaseState};
/// use nalgebra::SVector;
///
/// /// Pendulum `H = p²/2 − cos q`.
/// struct Pendulum;
/// impl PhaseSpaceFunction<1> for Pendulum {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         p[0] * p[0] * S::from(0.5) - q[0].cos()
///     }
/// }
/// let method = Gonzalez::new(AutoDiff(Pendulum));
/// let mut s = PhaseState::new(SVector::from([2.5]), SVector::from([0.0]));
/// let e0 = Pendulum.eval(&s.q, &s.p);
/// for _ in 0..1000 {
///     method.step(&mut s, 0.25)?;
/// }
/// assert!((Pendulum.eval(&s.q, &s.p) - e0).abs() < 1e-13);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Gonzalez<H> {
    hamiltonian: H,
    newton: NewtonOptions,
}

impl<H> Gonzalez<H> {
    /// The method for `hamiltonian`, with [`NewtonOptions::simplified`].
    pub fn new(hamiltonian: H) -> Self {
        Self { hamiltonian, newton: NewtonOptions::simplified() }
    }
}

/// `(Δ, |Δ|², m, whether |Δ| is below the threshold)` of a pair of states.
#[inline]
fn increment<const N: usize>(x: &PhaseState<N>, x1: &PhaseState<N>) -> (PhaseVector<N>, f64, PhaseState<N>, bool) {
    let delta = [x1.q - x.q, x1.p - x.p];
    let n2 = delta[0].norm_squared() + delta[1].norm_squared();
    let scale = 1.0 + x.q.amax().max(x.p.amax()).max(x1.q.amax()).max(x1.p.amax());
    let mid = PhaseState::new((x.q + x1.q) * 0.5, (x.p + x1.p) * 0.5);
    (delta, n2, mid, below_threshold(n2, scale))
}

/// Whether an increment with `|Δ|² = n2` is below Gonzalez's threshold
/// `|Δ| ≤ DIFFERENCE_THRESHOLD · scale`, `scale = 1 + max(|x|_∞, |x'|_∞)` (the midpoint branch).
/// A NaN increment is not large: it takes the midpoint branch (the Newton iteration then reports
/// the non-finite residual).
#[inline]
pub(crate) fn below_threshold(n2: f64, scale: f64) -> bool {
    let threshold = DIFFERENCE_THRESHOLD * scale;
    let large = n2 > threshold * threshold;
    !large
}

impl<H: PhaseSpaceDerivatives<N>, const N: usize> DiscreteGradient<N> for Gonzalez<H> {
    #[inline]
    fn discrete_gradient(&self, x: &PhaseState<N>, x1: &PhaseState<N>) -> PhaseVector<N> {
        let (delta, n2, mid, small) = increment(x, x1);
        let (gq, gp) = self.hamiltonian.gradient(&mid.q, &mid.p);
        if small {
            return [gq, gp];
        }
        let h = &self.hamiltonian;
        let defect = h.value(&x1.q, &x1.p) - h.value(&x.q, &x.p) - (gq.dot(&delta[0]) + gp.dot(&delta[1]));
        let k = defect / n2;
        [gq + delta[0] * k, gp + delta[1] * k]
    }

    #[inline]
    fn discrete_gradient_and_jacobian(
        &self,
        x: &PhaseState<N>,
        x1: &PhaseState<N>,
    ) -> (PhaseVector<N>, PhaseMatrix<N>) {
        let (delta, n2, mid, small) = increment(x, x1);
        let ((gq, gp), hs) = self.hamiltonian.gradient_and_hessian(&mid.q, &mid.p);
        let half = [[hs.qq * 0.5, hs.qp * 0.5], [hs.qp.transpose() * 0.5, hs.pp * 0.5]];
        if small {
            return ([gq, gp], half);
        }
        let h = &self.hamiltonian;
        let defect = h.value(&x1.q, &x1.p) - h.value(&x.q, &x.p) - (gq.dot(&delta[0]) + gp.dot(&delta[1]));
        let k = defect / n2;
        // a = ∇H(x') − ∇H(m) − ½ ∇²H(m) Δ
        let (g1q, g1p) = h.gradient(&x1.q, &x1.p);
        let (hdq, hdp) = hs.apply(&delta[0], &delta[1]);
        let a = [g1q - gq - hdq * 0.5, g1p - gp - hdp * 0.5];
        let id = SMatrix::<f64, N, N>::identity();
        let mut d = half;
        for (r, row) in d.iter_mut().enumerate() {
            for (c, block) in row.iter_mut().enumerate() {
                *block += (delta[r] * a[c].transpose()) / n2 - (delta[r] * delta[c].transpose()) * (2.0 * k / n2);
                if r == c {
                    *block += id * k;
                }
            }
        }
        ([gq + delta[0] * k, gp + delta[1] * k], d)
    }
}

discrete_gradient_method!(Gonzalez;
    name = |_| "Gonzalez midpoint discrete gradient".into();
    order = |_| 2;
    symmetric = |_| true);
