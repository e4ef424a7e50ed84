//! The averaged vector field method (Quispel & McLaren 2008) with a `Q`-point Gauss–Legendre
//! quadrature of the average.

use super::scheme::{DiscreteGradient, PhaseMatrix, PhaseVector, discrete_gradient_method};
use crate::tableau;
use geom_core::GeomError;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::newton::NewtonOptions;
use geom_core::step::PhaseState;
use nalgebra::SMatrix;

/// The averaged vector field (AVF) method of Quispel & McLaren, *A new class of
/// energy-preserving numerical integration methods*, J. Phys. A 41 (2008) 045206:
///
/// ```text
///     x₁ = x₀ + h J ∫₀¹ ∇H((1 − ξ) x₀ + ξ x₁) dξ
///        ≈ x₀ + h J Σ_{i=1}^{Q} b_i ∇H(x₀ + c_i (x₁ − x₀)),
/// ```
///
/// the integral by the `Q`-point Gauss–Legendre rule on `[0, 1]` (nodes `c_i`, weights `b_i` of
/// [`tableau::gauss_legendre`], `Q = 1..=5`, which validates them by the order conditions).
/// Order 2, symmetric (the nodes are symmetric, `c_{Q+1−i} = 1 − c_i`), not symplectic (module
/// documentation).
///
/// The rule integrates polynomials of degree `≤ 2Q − 1` exactly, so for a polynomial `H` of
/// degree `≤ 2Q` the sum is the exact average, a discrete gradient, and `H` is conserved to
/// round-off; for other `H` the energy error of a step is the quadrature error,
/// `O(|x₁ − x₀|^{2Q+1})`. `Q = 1` is the implicit midpoint rule (symplectic, exact energy only
/// for quadratic `H`); Hénon–Heiles (cubic) needs `Q ≥ 2`.
///
/// The Jacobian of the sum, `D = ∂/∂x₁ Σ b_i ∇H(y_i) = Σ b_i c_i ∇²H(y_i)`
/// ([`DiscreteGradient::discrete_gradient_and_jacobian`], with the Hessians of
/// [`PhaseSpaceDerivatives::gradient_and_hessian`], by AD for
/// [`geom_core::function::AutoDiff`]) takes `Q` Hessians; the Newton matrix of a step
/// ([`DiscreteGradient::discrete_gradient_and_newton_matrix`]) takes one, at the point
/// `x₀ + s (x₁ − x₀)`, `s = Σ b_i c_i² / Σ b_i c_i = 2/3`, where `(Σ b_i c_i) ∇²H` equals `D`
/// for a cubic `H` and is within `O(|x₁ − x₀|²)` of it otherwise (no more than the simplified
/// iteration's own change of the matrix between the guess and the root).
///
/// ```
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use integrators::energy_preserving::Avf;
/// use integrators::{OneStep, PhaseState};
/// use nalgebra::SVector;
///
/// /// Hénon–Heiles, `H = ½|p|² + ½(x² + y²) + x²y − y³/3` (degree 3).
/// struct HenonHeiles;
/// impl PhaseSpaceFunction<2> for HenonHeiles {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
///         let (x, y) = (q[0], q[1]);
///         (p.norm_squared() + x * x + y * y) * S::from(0.5) + x * x * y - y * y * y / S::from(3.0)
///     }
/// }
/// let avf = Avf::<_, 2>::new(AutoDiff(HenonHeiles))?;
/// let mut s = PhaseState::new(SVector::from([0.3, -0.2]), SVector::from([0.1, 0.25]));
/// let energy = |s: &PhaseState<2>| HenonHeiles.eval(&s.q, &s.p);
/// let e0 = energy(&s);
/// for _ in 0..1000 {
///     avf.step(&mut s, 0.2)?;
/// }
/// assert!((energy(&s) - e0).abs() < 1e-14);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Avf<H, const Q: usize> {
    hamiltonian: H,
    nodes: [f64; Q],
    weights: [f64; Q],
    newton: NewtonOptions,
}

impl<H, const Q: usize> Avf<H, Q> {
    /// The AVF method for `hamiltonian` with the `Q`-point Gauss–Legendre rule and
    /// [`NewtonOptions::simplified`]; [`GeomError::InvalidParameter`] unless `Q` is in `1..=5`.
    ///
    /// ```
    /// use geom_core::function::AutoDiff;
    /// # struct H;
    /// # impl geom_core::function::PhaseSpaceFunction<1> for H {
    /// #     fn eval<S: geom_core::Scalar>(&self, q: &nalgebra::SVector<S, 1>, p: &nalgebra::SVector<S, 1>) -> S {
    /// #         q[0] * p[0]
    /// #     }
    /// # }
    /// assert!(integrators::energy_preserving::Avf::<_, 0>::new(AutoDiff(H)).is_err());
    /// assert!(integrators::energy_preserving::Avf::<_, 6>::new(AutoDiff(H)).is_err());
    /// ```
    pub fn new(hamiltonian: H) -> Result<Self, GeomError> {
        let (_, weights, nodes) = tableau::gauss_legendre(Q)?.arrays::<Q>()?;
        Ok(Self { hamiltonian, nodes, weights, newton: NewtonOptions::simplified() })
    }

    /// `(c, b)`: the quadrature nodes on `[0, 1]` and the weights.
    pub fn quadrature(&self) -> ([f64; Q], [f64; Q]) {
        (self.nodes, self.weights)
    }
}

impl<H: PhaseSpaceDerivatives<N>, const N: usize, const Q: usize> DiscreteGradient<N> for Avf<H, Q> {
    /// `Σ b_i ∇H(x + c_i (x' − x))`.
    #[inline]
    fn discrete_gradient(&self, x: &PhaseState<N>, x1: &PhaseState<N>) -> PhaseVector<N> {
        let (dq, dp) = (x1.q - x.q, x1.p - x.p);
        let mut g = [nalgebra::SVector::zeros(); 2];
        for (c, b) in self.nodes.iter().zip(&self.weights) {
            let (gq, gp) = self.hamiltonian.gradient(&(x.q + dq * *c), &(x.p + dp * *c));
            g[0] += gq * *b;
            g[1] += gp * *b;
        }
        g
    }

    /// The sum and its exact Jacobian `Σ b_i c_i ∇²H(x + c_i (x' − x))` (`Q` Hessians).
    #[inline]
    fn discrete_gradient_and_jacobian(
        &self,
        x: &PhaseState<N>,
        x1: &PhaseState<N>,
    ) -> (PhaseVector<N>, PhaseMatrix<N>) {
        let (dq, dp) = (x1.q - x.q, x1.p - x.p);
        let mut g = [nalgebra::SVector::zeros(); 2];
        let mut d = [[SMatrix::<f64, N, N>::zeros(); 2]; 2];
        for (c, b) in self.nodes.iter().zip(&self.weights) {
            let ((gq, gp), hs) = self.hamiltonian.gradient_and_hessian(&(x.q + dq * *c), &(x.p + dp * *c));
            g[0] += gq * *b;
            g[1] += gp * *b;
            let w = b * c;
            d[0][0] += hs.qq * w;
            d[0][1] += hs.qp * w;
            d[1][0] += hs.qp.transpose() * w;
            d[1][1] += hs.pp * w;
        }
        (g, d)
    }

    /// The sum and, for `Q >= 2`, the Newton matrix from one Hessian,
    /// `(Σ b_i c_i) ∇²H(x + s (x' − x))` with `s = Σ b_i c_i² / Σ b_i c_i` (`= 2/3`: the
    /// rule is exact for degree 2): it equals the exact Jacobian when `∇²H` is affine along the
    /// segment (`H` cubic, Hénon–Heiles) and differs from it by `O(|x' − x|²)` otherwise, the
    /// order by which the Jacobian changes between the guess and the root (`O(h²)`), so the
    /// simplified Newton iteration contracts as fast as with the exact matrix; `Q = 1` is the
    /// exact one.
    #[inline]
    fn discrete_gradient_and_newton_matrix(
        &self,
        x: &PhaseState<N>,
        x1: &PhaseState<N>,
    ) -> (PhaseVector<N>, PhaseMatrix<N>) {
        if Q == 1 {
            return self.discrete_gradient_and_jacobian(x, x1);
        }
        let g = self.discrete_gradient(x, x1);
        let (w, w2) =
            self.nodes.iter().zip(&self.weights).fold((0.0, 0.0), |(w, w2), (c, b)| (w + b * c, w2 + b * c * c));
        let s = w2 / w;
        let hs = self.hamiltonian.hessian(&(x.q + (x1.q - x.q) * s), &(x.p + (x1.p - x.p) * s));
        (g, [[hs.qq * w, hs.qp * w], [hs.qp.transpose() * w, hs.pp * w]])
    }
}

discrete_gradient_method!(Avf, Q;
    name = |_| format!("averaged vector field ({Q}-point Gauss)");
    order = |_| 2;
    symmetric = |_| true);
