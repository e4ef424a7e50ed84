//! The Itoh–Abe coordinate-increment discrete gradient (Itoh & Abe 1988) and its symmetrization.

use super::scheme::{DIFFERENCE_THRESHOLD, DiscreteGradient, PhaseMatrix, PhaseVector, discrete_gradient_method};
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::newton::NewtonOptions;
use geom_core::step::PhaseState;
use nalgebra::{SMatrix, SVector};

/// The discrete gradient method of the coordinate-increment discrete gradient of T. Itoh and
/// K. Abe, *Hamiltonian-conserving discrete canonical equations based on variational difference
/// quotients*, J. Comput. Phys. 76 (1988) 85–102. With the coordinates of `x ∈ R^{2N}` ordered
/// `(q₁, …, q_N, p₁, …, p_N)` and `y_k` the point whose first `k` coordinates are those of `x'`
/// and the others those of `x` (`y₀ = x`, `y_{2N} = x'`),
///
/// ```text
///     ∇̄_k H(x, x') = (H(y_k) − H(y_{k−1})) / (x'_k − x_k),        k = 1..2N,
///     x₁ = x₀ + h J ∇̄H(x₀, x₁).
/// ```
///
/// The sum `Σ_k ∇̄_k H Δ_k` telescopes to `H(x') − H(x)`, so `H` is conserved; it needs values
/// of `H` only (`2N + 1` per evaluation). Two forms:
///
/// * [`ItohAbe::new`]: the discrete gradient above. Order **1** and not symmetric for a general
///   `H` (the coordinates are visited in one order); for `N = 1` and a separable
///   `H = p²/2 + V(q)` it is the symmetric order-2 method below.
/// * [`ItohAbe::symmetrized`]: `½ (∇̄H(x, x') + ∇̄H(x', x))` (McLachlan, Quispel & Robidoux,
///   *Geometric integration using discrete gradients*, Phil. Trans. R. Soc. A 357 (1999)
///   1021–1045: the mean of a discrete gradient and its adjoint is a symmetric discrete
///   gradient). `∇̄H(x', x)` is the same difference quotients along the path that changes the
///   coordinates in the reverse order, so this costs `4N` values. Order 2, symmetric.
///
/// Neither is symplectic.
///
/// **Tiny increments.** When `|x'_k − x_k| ≤` [`DIFFERENCE_THRESHOLD`]
/// `· (1 + max(|x_k|, |x'_k|))` (a turning point, a coordinate that does not move) the quotient is
/// replaced by the partial derivative `∂_k H` at the middle of the segment from `y_{k−1}` to
/// `y_k`. The telescoping identity then fails by `|∂_k³H| |Δ_k|³ / 24`, which at this threshold
/// is `≈ ε |∂_k³H| (1 + |x_k|)³ / 24`, the rounding level of `H`: the energy error of a run is
/// unchanged (the tests run a coordinate that never moves, which takes the derivative at every
/// step), and the gradient error of the quotients stays `O(ε^{2/3})` (the threshold's
/// documentation gives the balance).
///
/// The Newton matrix is the limit of `∂∇̄H/∂x'` as `x' → x`, at `m = (x + x')/2`: the strictly
/// lower triangle of `∇²H(m)` plus half its diagonal (in the coordinate order above; the upper
/// triangle for the reverse order, `½ ∇²H(m)` for the symmetrized form). It differs from the
/// exact Jacobian by `O(|x' − x|)`, so the iteration contracts by `O(h |x' − x|) = O(h²)` per
/// step.
///
/// ```
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use integrators::energy_preserving::ItohAbe;
/// use integrators::{OneStep, PhaseState};
/// use nalgebra::SVector;
///
/// /// Hénon–Heiles.
/// struct HenonHeiles;
/// impl PhaseSpaceFunction<2> for HenonHeiles {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
///         let (x, y) = (q[0], q[1]);
///         (p.norm_squared() + x * x + y * y) * S::from(0.5) + x * x * y - y * y * y / S::from(3.0)
///     }
/// }
/// let (plain, symmetric) = (ItohAbe::new(AutoDiff(HenonHeiles)), ItohAbe::symmetrized(AutoDiff(HenonHeiles)));
/// assert_eq!((plain.order(), symmetric.order()), (1, 2));
/// let mut s = PhaseState::new(SVector::from([0.3, -0.2]), SVector::from([0.1, 0.25]));
/// let e0 = HenonHeiles.eval(&s.q, &s.p);
/// for _ in 0..1000 {
///     symmetric.step(&mut s, 0.2)?;
/// }
/// assert!((HenonHeiles.eval(&s.q, &s.p) - e0).abs() < 1e-14);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ItohAbe<H> {
    hamiltonian: H,
    symmetrized: bool,
    newton: NewtonOptions,
}

impl<H> ItohAbe<H> {
    /// The Itoh–Abe discrete gradient method (order 1), with [`NewtonOptions::simplified`].
    pub fn new(hamiltonian: H) -> Self {
        Self { hamiltonian, symmetrized: false, newton: NewtonOptions::simplified() }
    }

    /// The symmetrized Itoh–Abe method (order 2, symmetric), with [`NewtonOptions::simplified`].
    pub fn symmetrized(hamiltonian: H) -> Self {
        Self { hamiltonian, symmetrized: true, newton: NewtonOptions::simplified() }
    }

    /// Whether this is the symmetrized form.
    pub fn is_symmetrized(&self) -> bool {
        self.symmetrized
    }
}

/// Coordinate `k` of `x ∈ R^{2N}` (`q` first).
#[inline(always)]
fn coordinate<const N: usize>(x: &PhaseState<N>, k: usize) -> f64 {
    if k < N { x.q[k] } else { x.p[k - N] }
}

#[inline(always)]
fn set_coordinate<const N: usize>(x: &mut PhaseState<N>, k: usize, v: f64) {
    if k < N { x.q[k] = v } else { x.p[k - N] = v }
}

/// The coordinate-increment quotients of `h` from `x` to `x1`, adding `weight ×` each into
/// `out`, visiting the coordinates in increasing (`reverse = false`) or decreasing order.
#[inline]
fn accumulate<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    h: &H,
    x: &PhaseState<N>,
    x1: &PhaseState<N>,
    reverse: bool,
    weight: f64,
    out: &mut PhaseVector<N>,
) {
    let mut y = *x;
    let mut before = h.value(&y.q, &y.p);
    for i in 0..2 * N {
        let k = if reverse { 2 * N - 1 - i } else { i };
        let (a, b) = (coordinate(x, k), coordinate(x1, k));
        let d = b - a;
        set_coordinate(&mut y, k, b);
        let after = h.value(&y.q, &y.p);
        // a NaN increment also takes the derivative (Newton reports it)
        let g = if d.abs() > DIFFERENCE_THRESHOLD * (1.0 + a.abs().max(b.abs())) {
            (after - before) / d
        } else {
            partial_at_middle(h, &y, k, 0.5 * (a + b))
        };
        if k < N {
            out[0][k] += g * weight;
        } else {
            out[1][k - N] += g * weight;
        }
        before = after;
    }
}

/// `∂_k H` at `y` with coordinate `k` set to `v` (out of line: the rare tiny increments).
#[cold]
#[inline(never)]
fn partial_at_middle<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize>(
    h: &H,
    y: &PhaseState<N>,
    k: usize,
    v: f64,
) -> f64 {
    let mut m = *y;
    set_coordinate(&mut m, k, v);
    if k < N { h.gradient_q(&m.q, &m.p)[k] } else { h.gradient_p(&m.q, &m.p)[k - N] }
}

impl<H: PhaseSpaceDerivatives<N>, const N: usize> DiscreteGradient<N> for ItohAbe<H> {
    #[inline]
    fn discrete_gradient(&self, x: &PhaseState<N>, x1: &PhaseState<N>) -> PhaseVector<N> {
        let mut g = [SVector::zeros(); 2];
        if self.symmetrized {
            accumulate(&self.hamiltonian, x, x1, false, 0.5, &mut g);
            accumulate(&self.hamiltonian, x, x1, true, 0.5, &mut g);
        } else {
            accumulate(&self.hamiltonian, x, x1, false, 1.0, &mut g);
        }
        g
    }

    #[inline]
    fn discrete_gradient_and_jacobian(
        &self,
        x: &PhaseState<N>,
        x1: &PhaseState<N>,
    ) -> (PhaseVector<N>, PhaseMatrix<N>) {
        let g = self.discrete_gradient(x, x1);
        let hs = self.hamiltonian.hessian(&((x.q + x1.q) * 0.5), &((x.p + x1.p) * 0.5));
        let half = |m: &SMatrix<f64, N, N>| m * 0.5;
        if self.symmetrized {
            return (g, [[half(&hs.qq), half(&hs.qp)], [half(&hs.qp.transpose()), half(&hs.pp)]]);
        }
        // strictly lower triangle plus half the diagonal, in the order (q, p)
        let lower = |m: &SMatrix<f64, N, N>| {
            SMatrix::<f64, N, N>::from_fn(|i, j| match i.cmp(&j) {
                core::cmp::Ordering::Greater => m[(i, j)],
                core::cmp::Ordering::Equal => 0.5 * m[(i, j)],
                core::cmp::Ordering::Less => 0.0,
            })
        };
        (g, [[lower(&hs.qq), SMatrix::zeros()], [hs.qp.transpose(), lower(&hs.pp)]])
    }
}

discrete_gradient_method!(ItohAbe;
    name = |m| (if m.symmetrized { "symmetrized Itoh–Abe discrete gradient" } else { "Itoh–Abe discrete gradient" }).into();
    order = |m| if m.symmetrized { 2 } else { 1 };
    symmetric = |m| m.symmetrized);
