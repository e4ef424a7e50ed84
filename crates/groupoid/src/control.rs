//! Optimal control on any Lie group as constrained discrete mechanics on `G ⇉ {e}`
//! (docs/math.md §C.6.2; Marrero, Martín de Diego & Stern, *Symplectic groupoids and discrete
//! constrained Lagrangian mechanics*, 2015, arXiv:1103.6250, §6).
//!
//! The kinematic control system `ġ = g u`, `u ∈ g`, with running cost `½ uᵀ Q u` and the
//! unactuated directions `A u = 0`, is discretised with the arrows `W_k = g_k^{-1} g_{k+1}` of the
//! groupoid `G ⇉ {e}` and the control `u_k = τ^{-1}(W_k)/h` of the groupoid's chart:
//!
//! ```text
//!   minimise  Σ_k L(W_k),   L(W) = (h/2) uᵀ Q u = (1/2h) τ^{-1}(W)ᵀ Q τ^{-1}(W)   (ControlCost)
//!   subject to  φ(W_k) = A τ^{-1}(W_k) = 0                                         (Unactuated)
//!   and  W_0 W_1 ⋯ W_{n-1} = g_0^{-1} g_n .
//! ```
//!
//! The necessary conditions are the constrained discrete Euler–Lagrange equations of
//! [`ConstrainedFlow`](crate::ConstrainedFlow) on the constraint submanifold `N = φ^{-1}(0)`, and
//! the endpoint condition is met by shooting ([`Shooting`](crate::Shooting),
//! [`Shooting::solve_robust`](crate::Shooting::solve_robust)). Both models are written once for
//! every group ([`LieGroupFamily`]): SO(3) with an unactuated body axis, SE(2) with the
//! no-slip constraint of a kinematic car (the lateral body velocity `v_2 = 0`, [`no_slip_se2`]),
//! SE(3), or a user's group.

use crate::constraints::Constraints;
use crate::lagrangian::DiscreteLagrangian;
use crate::lie_group::GroupAsGroupoid;
use geom_core::lie::{EveryScalarChart, GroupChart, LieGroupFamily};
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// `u = τ^{-1}(W)` at scalar `S` (the control times `h`); a chart failure gives NaN entries, so the
/// solvers see a non-finite residual and report it.
fn chart_log<G: LieGroupFamily<D>, C: EveryScalarChart<G, D>, S: Scalar, const D: usize>(
    gd: &GroupAsGroupoid<G, C>,
    w: &G::ElementAt<S>,
) -> SVector<S, D> {
    gd.chart().tau_inv_at(gd.group(), w).unwrap_or_else(|_| SVector::repeat(S::from(f64::NAN)))
}

/// The running cost `L(W) = (1/2h) τ^{-1}(W)ᵀ Q τ^{-1}(W)` with diagonal weights
/// `Q = diag(q_1, …, q_D)`, `q_i > 0` (module documentation): `Σ_k L(W_k)` is the midpoint-free
/// quadrature `Σ_k h ½ u_kᵀ Q u_k` of `∫ ½ uᵀ Q u dt`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ControlCost<const D: usize> {
    h: f64,
    weights: SVector<f64, D>,
}

impl<const D: usize> ControlCost<D> {
    /// The cost with step `h` and weights `q` (all finite and positive, `h` finite and positive;
    /// else [`GeomError::InvalidStep`] / [`GeomError::InvalidParameter`]).
    ///
    /// ```
    /// use groupoid::control::ControlCost;
    /// use nalgebra::Vector3;
    /// assert!(ControlCost::new(0.1, Vector3::new(1.0, 1.0, 2.0)).is_ok());
    /// assert!(ControlCost::new(0.1, Vector3::new(1.0, 0.0, 2.0)).is_err());
    /// assert!(ControlCost::new(f64::NAN, Vector3::repeat(1.0)).is_err());
    /// ```
    pub fn new(h: f64, weights: SVector<f64, D>) -> Result<Self> {
        if !(h.is_finite() && h > 0.0) {
            return Err(GeomError::InvalidStep { h });
        }
        if let Some(q) = weights.iter().find(|q| !(q.is_finite() && **q > 0.0)) {
            return Err(GeomError::InvalidParameter {
                what: "control cost weights",
                reason: format!("every weight must be finite and positive, got {q}"),
            });
        }
        Ok(Self { h, weights })
    }
    /// The cost with unit weights, `L(W) = |τ^{-1}(W)|²/2h`.
    pub fn uniform(h: f64) -> Result<Self> {
        Self::new(h, SVector::repeat(1.0))
    }
    /// The time step `h`.
    pub fn h(&self) -> f64 {
        self.h
    }
    /// The weights `q_i`.
    pub fn weights(&self) -> &SVector<f64, D> {
        &self.weights
    }
}

impl<G, C, const D: usize> DiscreteLagrangian<GroupAsGroupoid<G, C>, D> for ControlCost<D>
where
    G: LieGroupFamily<D>,
    C: EveryScalarChart<G, D> + GroupChart<f64, G, D>,
{
    #[inline]
    fn eval<S: Scalar>(&self, gd: &GroupAsGroupoid<G, C>, w: &G::ElementAt<S>) -> S {
        let u = chart_log(gd, w);
        let mut sum = S::from(0.0);
        for i in 0..D {
            sum += u[i] * u[i] * S::from(self.weights[i]);
        }
        sum * S::from(0.5 / self.h)
    }
}

/// Unactuated directions: `φ(W) = A τ^{-1}(W) ∈ R^K`, with the rows of `A` the directions in the
/// algebra coordinates that the controls cannot move (module documentation). Built from explicit
/// rows ([`Unactuated::new`]) or from coordinate axes ([`Unactuated::axes`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unactuated<const D: usize, const K: usize> {
    rows: SMatrix<f64, K, D>,
}

impl<const D: usize, const K: usize> Unactuated<D, K> {
    /// `φ = A τ^{-1}(W)` with finite rows of full rank `K` (else [`GeomError::InvalidParameter`]:
    /// dependent rows make the multipliers undetermined).
    pub fn new(rows: SMatrix<f64, K, D>) -> Result<Self> {
        if !rows.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "unactuated directions" });
        }
        let gram = rows * rows.transpose();
        if K > 0 && geom_core::linalg::Lu::factor(&gram, "unactuated directions").is_err() {
            return Err(GeomError::InvalidParameter {
                what: "unactuated directions",
                reason: "the rows of A must be linearly independent".into(),
            });
        }
        Ok(Self { rows })
    }
    /// The coordinate axes `axes` of the algebra are unactuated (`φ_j = τ^{-1}(W)_{axes[j]}`);
    /// [`GeomError::DimensionMismatch`] for an axis `>= D`, [`GeomError::InvalidParameter`] for a
    /// repeated one.
    ///
    /// ```
    /// use groupoid::control::Unactuated;
    /// // SO(3) with no control about body axis 3
    /// assert!(Unactuated::<3, 1>::axes([2]).is_ok());
    /// assert!(Unactuated::<3, 1>::axes([3]).is_err());
    /// assert!(Unactuated::<3, 2>::axes([1, 1]).is_err());
    /// ```
    pub fn axes(axes: [usize; K]) -> Result<Self> {
        if let Some(&a) = axes.iter().find(|&&a| a >= D) {
            return Err(GeomError::DimensionMismatch { what: "unactuated axis", expected: D, got: a });
        }
        let mut rows = SMatrix::<f64, K, D>::zeros();
        for (j, &a) in axes.iter().enumerate() {
            rows[(j, a)] = 1.0;
        }
        Self::new(rows)
    }
    /// The matrix `A`.
    pub fn rows(&self) -> &SMatrix<f64, K, D> {
        &self.rows
    }
}

impl<G, C, const D: usize, const K: usize> Constraints<GroupAsGroupoid<G, C>, D, K> for Unactuated<D, K>
where
    G: LieGroupFamily<D>,
    C: EveryScalarChart<G, D> + GroupChart<f64, G, D>,
{
    #[inline]
    fn eval<S: Scalar>(&self, gd: &GroupAsGroupoid<G, C>, w: &G::ElementAt<S>) -> SVector<S, K> {
        let u = chart_log(gd, w);
        SVector::from_fn(|j, _| {
            let mut v = S::from(0.0);
            for i in 0..D {
                if self.rows[(j, i)] != 0.0 {
                    v += u[i] * S::from(self.rows[(j, i)]);
                }
            }
            v
        })
    }
}

/// The no-slip constraint of a kinematic car (unicycle) on SE(2): in the algebra coordinates
/// `(θ, v_1, v_2)` of `geom_core::lie::Se2` the lateral body velocity `v_2` is zero, so the car
/// moves only along its heading and turns.
pub fn no_slip_se2() -> Unactuated<3, 1> {
    Unactuated { rows: SMatrix::<f64, 1, 3>::new(0.0, 0.0, 1.0) }
}
