//! Left-trivialized Lagrangians `ℓ(g, ξ) = L(g, gξ)` on a Lie group (Bou-Rabee & Marsden,
//! *Hamilton–Pontryagin integrators on Lie groups, Part I*, 2009, arXiv:0801.0996, §3;
//! docs/math.md §D.1)
//! and the derivatives the Hamilton–Pontryagin step needs:
//!
//! * the fibre derivative (body momentum) `∂ℓ/∂ξ(g, ξ) ∈ g*`;
//! * the left-trivialized force `f = g ∂ℓ/∂g ∈ g*`, `<f, η> = d/dε ℓ(g exp(εη), ξ)|_{ε=0}`
//!   (docs/math.md §0.3; Bou-Rabee & Marsden 2009, eq. (3.3)); for `ℓ = ½ξᵀIξ - V(g)` it is minus
//!   the left-trivialized gradient of `V`, the body torque.
//!
//! The traits are generic over the scalar **at the trait level**, `LieFunction<S, G, D>` (the
//! Lagrangian `ℓ`, the discretization layer's trait: one model trait on `G × g` for the whole
//! workspace), and a model implements them once for every `S: Scalar`
//! (`impl<S: Scalar> LieFunction<S, So3, 3> for ..`). (With the scalar as a method parameter and a `where G: LieGroup<S, D>` clause, the
//! element type `<So3 as LieGroup<S, 3>>::Element` stays an unnormalised projection inside a
//! concrete implementation, so a model could not use its rotation matrix as a `Matrix3<S>`.)
//! The integrator evaluates them at `f64` and at `DualSVec64<D>` (exact Newton Jacobian).
//!
//! Derivatives come either in closed form (implement [`LeftLagrangian`]) or by forward AD
//! through the group from `ℓ` alone ([`AutoDiff`]); [`KineticPotential`] is the ready-made
//! `ℓ = ½ ξᵀ I ξ - V(g)`.

use super::scalar::AdScalar;
use geom_core::lie::{LieGroup, LieGroupFamily};
use geom_core::linalg::Lu;
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector};

/// A left-trivialized Lagrangian `ℓ(g, ξ)`, `g ∈ G`, `ξ ∈ g ≅ R^D`, at scalar `S`
/// (docs/math.md §D.1; Bou-Rabee & Marsden 2009, eq. (1.4)) is a [`LieFunction`] `F(g, ξ)`: the
/// one trait of the workspace for a scalar function on `G × g` written once over the scalar, so
/// that the same model serves these integrators (with [`AutoDiff`], or [`LeftLagrangian`] in
/// closed form), the discretization layer's Lie-group Lagrangian route and cotangent lifts, and
/// its Lie–Poisson reduction.
pub use discretization::LieFunction;

/// A left-trivialized Lagrangian with the two derivatives of the Hamilton–Pontryagin
/// equations `ġ = gξ`, `μ = ∂ℓ/∂ξ`, `μ̇ = ad*_ξ μ + g ∂ℓ/∂g` (Bou-Rabee & Marsden 2009, eq. (3.5)).
///
/// Closed forms are checked against [`AutoDiff`] in the tests of every model.
///
/// ```
/// use geom_core::lie::{LieGroup, So3};
/// use geom_core::{Result, Scalar};
/// use integrators::hp::{LeftLagrangian, LieFunction};
/// use nalgebra::{Matrix3, Vector3};
///
/// /// A spherical body with a torsion spring about e3: ℓ = ½|ξ|² - ½ k (e1·R e2)².
/// struct Spring(f64);
/// impl<S: Scalar> LieFunction<S, So3, 3> for Spring {
///     fn eval(&self, _: &So3, r: &Matrix3<S>, xi: &Vector3<S>) -> S {
///         let c = r[(0, 1)];
///         xi.norm_squared() * S::from(0.5) - c * c * S::from(0.5 * self.0)
///     }
/// }
/// impl<S: Scalar> LeftLagrangian<S, So3, 3> for Spring {
///     fn momentum(&self, _: &So3, _: &Matrix3<S>, xi: &Vector3<S>) -> Result<Vector3<S>> {
///         Ok(*xi)
///     }
///     fn force(&self, _: &So3, r: &Matrix3<S>, _: &Vector3<S>) -> Result<Vector3<S>> {
///         // <f, η> = -k c d/dε (e1·R exp(εη) e2) = -k c e1·R (η × e2) = -k c (e2 × Rᵀe1)·η
///         let c = r[(0, 1)];
///         let rte1 = r.transpose().column(0).into_owned();
///         Ok(Vector3::<S>::y().cross(&rte1) * (-c * S::from(self.0)))
///     }
/// }
/// let f = Spring(2.0).force(&So3, &So3.exp(&Vector3::new(0.1, 0.2, 0.3)), &Vector3::zeros())?;
/// assert!(f.norm() > 0.0);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub trait LeftLagrangian<S: Scalar, G: LieGroup<S, D>, const D: usize>: LieFunction<S, G, D> {
    /// `true` promises `ℓ(g, ξ) = ℓ(e, ξ)` for all `g` (left invariance): then `f ≡ 0`,
    /// `∂ℓ/∂ξ` does not depend on `g`, and the integrator solves the reduced equation
    /// `(dτ^{-1}_{hξ})* ∂ℓ/∂ξ(ξ) = Π_k` for one `ξ` (every stage of docs/math.md §D.5 then has
    /// `Ξ^i = ξ`). The `g` passed to [`momentum`](Self::momentum) is then `g_k`.
    const LEFT_INVARIANT: bool = false;
    /// `true` promises that `ℓ` is separable, `ℓ(g, ξ) = K(ξ) − V(g)`: the momentum
    /// `∂ℓ/∂ξ` does not depend on `g` and the force `f` does not depend on `ξ`. Then the stages
    /// of Störmer–Verlet and of the symplectic Euler pair coincide and the integrator takes the
    /// kick–solve–kick form (docs/math.md §D.5, "simplest members"): one `D`-dimensional Newton
    /// solve per step instead of the `sD`-dimensional stage system. A wrong promise gives a
    /// wrong method; tests compare a model's separable path against [`AutoDiff`] of it, which
    /// never claims separability.
    const SEPARABLE: bool = false;
    /// The body momentum `∂ℓ/∂ξ(g, ξ) ∈ g*`.
    fn momentum(&self, group: &G, g: &G::Element, xi: &SVector<S, D>) -> Result<SVector<S, D>>;
    /// The left-trivialized force `f = g ∂ℓ/∂g(g, ξ) ∈ g*`,
    /// `<f, η> = d/dε ℓ(g exp(εη), ξ)|_{ε=0}`.
    fn force(&self, group: &G, g: &G::Element, xi: &SVector<S, D>) -> Result<SVector<S, D>>;
    /// An approximation of the inverse Legendre transform `ξ ≈ (∂ℓ/∂ξ(g, ·))^{-1}(Π)`, the
    /// Newton warm start of a step (`I^{-1} Π` for a kinetic energy `½ξᵀIξ`). `None` (the
    /// default) lets the integrator linearise `∂ℓ/∂ξ(g, ·)` at `ξ = 0` by AD and solve.
    fn velocity_guess(&self, group: &G, g: &G::Element, pi: &SVector<S, D>) -> Option<SVector<S, D>> {
        let _ = (group, g, pi);
        None
    }
    /// The Jacobian `∂/∂ξ (∂ℓ/∂ξ)(g, ξ)` (the inertia `I` for `½ξᵀIξ`) in closed form, if
    /// known; used by the reduced Newton iteration of a left-invariant `ℓ`. `None` (the
    /// default) lets the integrator compute it by AD from [`momentum`](Self::momentum) at
    /// `DualSVec64<D>`.
    fn momentum_jacobian(&self, group: &G, g: &G::Element, xi: &SVector<S, D>) -> Option<SMatrix<S, D, D>> {
        let _ = (group, g, xi);
        None
    }
}

/// A potential `V(g)` at scalar `S`.
pub trait Potential<S: Scalar, G: LieGroup<S, D>, const D: usize>: Send + Sync {
    /// `V(g)`.
    fn value(&self, group: &G, g: &G::Element) -> S;
}

/// A potential with its left-trivialized gradient in closed form.
pub trait PotentialGradient<S: Scalar, G: LieGroup<S, D>, const D: usize>: Potential<S, G, D> {
    /// `dV ∈ g*` with `<dV, η> = d/dε V(g exp(εη))|_{ε=0}`.
    fn left_gradient(&self, group: &G, g: &G::Element) -> Result<SVector<S, D>>;
}

/// The potential `V = 0`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ZeroPotential;

impl<S: Scalar, G: LieGroup<S, D>, const D: usize> Potential<S, G, D> for ZeroPotential {
    fn value(&self, _: &G, _: &G::Element) -> S {
        S::from(0.0)
    }
}
impl<S: Scalar, G: LieGroup<S, D>, const D: usize> PotentialGradient<S, G, D> for ZeroPotential {
    fn left_gradient(&self, _: &G, _: &G::Element) -> Result<SVector<S, D>> {
        Ok(SVector::zeros())
    }
}

/// `ℓ(g, ξ) = ½ ξᵀ I ξ - V(g)` with a constant symmetric positive definite inertia `I`
/// (docs/math.md §D.5, "simplest members"): `∂ℓ/∂ξ = Iξ`, `f = -dV` (left-trivialized gradient).
///
/// It implements [`LieFunction`] (the Lagrangian) whenever `P: Potential`, and [`LeftLagrangian`] whenever
/// `P: PotentialGradient`; with a potential given by its value only, use
/// `AutoDiff(KineticPotential::new(..))`. It is separable ([`LeftLagrangian::SEPARABLE`]:
/// Störmer–Verlet and symplectic Euler take the kick–solve–kick step) but never claims left
/// invariance (even with [`ZeroPotential`]), so other tableaux exercise the general stage
/// equations.
///
/// ```
/// use geom_core::lie::Rn;
/// use integrators::hp::{KineticPotential, LeftLagrangian, ZeroPotential};
/// use nalgebra::{Matrix2, Vector2};
/// let l = KineticPotential::new(Matrix2::new(2.0, 0.0, 0.0, 1.0), ZeroPotential)?;
/// let m = LeftLagrangian::<f64, Rn<2>, 2>::momentum(&l, &Rn::<2>, &Vector2::zeros(), &Vector2::new(1.0, 1.0))?;
/// assert_eq!(m, Vector2::new(2.0, 1.0));
/// assert!(KineticPotential::new(Matrix2::new(1.0, 2.0, 0.0, 1.0), ZeroPotential).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KineticPotential<P, const D: usize> {
    inertia: SMatrix<f64, D, D>,
    inertia_inv: SMatrix<f64, D, D>,
    /// The potential `V`.
    pub potential: P,
}

impl<P, const D: usize> KineticPotential<P, D> {
    /// `ℓ = ½ ξᵀ I ξ - V(g)`; [`GeomError::InvalidParameter`] unless `I` is finite, symmetric
    /// (to `1e-12` relative) and positive definite (Cholesky).
    pub fn new(inertia: SMatrix<f64, D, D>, potential: P) -> Result<Self> {
        let inertia_inv = check_inertia(&inertia, "inertia")?;
        Ok(Self { inertia, inertia_inv, potential })
    }
    /// The inertia `I`.
    pub fn inertia(&self) -> &SMatrix<f64, D, D> {
        &self.inertia
    }
    /// `I^{-1}`.
    pub fn inertia_inverse(&self) -> &SMatrix<f64, D, D> {
        &self.inertia_inv
    }
}

/// `I^{-1}` if `I` is finite, symmetric and positive definite, else
/// [`GeomError::InvalidParameter`] / [`GeomError::NonFinite`].
pub(crate) fn check_inertia<const D: usize>(i: &SMatrix<f64, D, D>, what: &'static str) -> Result<SMatrix<f64, D, D>> {
    if !i.iter().all(|v| v.is_finite()) {
        return Err(GeomError::NonFinite { what });
    }
    let scale = i.amax();
    if (i - i.transpose()).amax() > 1e-12 * scale {
        return Err(GeomError::InvalidParameter { what, reason: "not symmetric".into() });
    }
    if i.cholesky().is_none() {
        return Err(GeomError::InvalidParameter { what, reason: "not positive definite".into() });
    }
    Ok(Lu::factor(i, what)?.inverse())
}

impl<S, G, P, const D: usize> LieFunction<S, G, D> for KineticPotential<P, D>
where
    S: Scalar,
    G: LieGroup<S, D>,
    P: Potential<S, G, D>,
{
    fn eval(&self, group: &G, g: &G::Element, xi: &SVector<S, D>) -> S {
        let p = self.inertia.map(S::from) * xi;
        p.dot(xi) * S::from(0.5) - self.potential.value(group, g)
    }
}

impl<S, G, P, const D: usize> LeftLagrangian<S, G, D> for KineticPotential<P, D>
where
    S: Scalar,
    G: LieGroup<S, D>,
    P: PotentialGradient<S, G, D>,
{
    const SEPARABLE: bool = true;
    fn momentum(&self, _: &G, _: &G::Element, xi: &SVector<S, D>) -> Result<SVector<S, D>> {
        Ok(self.inertia.map(S::from) * xi)
    }
    fn force(&self, group: &G, g: &G::Element, _: &SVector<S, D>) -> Result<SVector<S, D>> {
        Ok(-self.potential.left_gradient(group, g)?)
    }
    fn velocity_guess(&self, _: &G, _: &G::Element, pi: &SVector<S, D>) -> Option<SVector<S, D>> {
        Some(self.inertia_inv.map(S::from) * pi)
    }
    fn momentum_jacobian(&self, _: &G, _: &G::Element, _: &SVector<S, D>) -> Option<SMatrix<S, D, D>> {
        Some(self.inertia.map(S::from))
    }
}

/// The derivatives of a Lagrangian given by its value only, by forward AD through the group:
///
/// * `∂ℓ/∂ξ`: `ℓ(g, ξ + Σ_k ε_k e_k)`;
/// * `f`: `ℓ(g exp(Σ_k ε_k e_k), ξ)` (the definition `<f, η> = d/dε ℓ(g exp(εη), ξ)`);
///
/// both at the scalar [`AdScalar::Up`] of `S` (`DualSVec64<D>` at `f64`, the hyper-dual
/// `HyperDualSVec64<M, D>` at `DualSVec64<M>`, which gives the exact Newton Jacobian). The
/// inner `F` must implement [`LieFunction`] at both scalars (a model written once over
/// `S: Scalar` does). Never claims left invariance.
///
/// ```
/// use geom_core::lie::{LieGroup, So3};
/// use integrators::hp::{AutoDiff, KineticPotential, LeftLagrangian, Potential};
/// use integrators::models::HeavyTop;
/// use nalgebra::{Matrix3, Vector3};
/// let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0)), 0.8, Vector3::new(0.1, 0.2, 1.0))?;
/// let r = So3.exp(&Vector3::new(0.3, -0.2, 0.5));
/// let xi = Vector3::new(0.1, 0.4, -0.3);
/// let closed = LeftLagrangian::<f64, So3, 3>::force(&top, &So3, &r, &xi)?;
/// let ad = LeftLagrangian::<f64, So3, 3>::force(&AutoDiff(top), &So3, &r, &xi)?;
/// assert!((closed - ad).norm() < 1e-15);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AutoDiff<F>(pub F);

impl<S, G, F, const D: usize> LieFunction<S, G, D> for AutoDiff<F>
where
    S: Scalar,
    G: LieGroup<S, D>,
    F: LieFunction<S, G, D>,
{
    #[inline]
    fn eval(&self, group: &G, g: &G::Element, xi: &SVector<S, D>) -> S {
        self.0.eval(group, g, xi)
    }
}

impl<S, G, F, const D: usize> LeftLagrangian<S, G, D> for AutoDiff<F>
where
    S: AdScalar<D>,
    G: LieGroupFamily<D>
        + LieGroup<S, D, Element = <G as LieGroupFamily<D>>::ElementAt<S>>
        + LieGroup<S::Up, D, Element = <G as LieGroupFamily<D>>::ElementAt<S::Up>>,
    F: LieFunction<S, G, D> + LieFunction<S::Up, G, D>,
{
    fn momentum(&self, group: &G, g: &<G as LieGroup<S, D>>::Element, xi: &SVector<S, D>) -> Result<SVector<S, D>> {
        let gu = group.map_scalar(g, &S::up);
        let xu = SVector::<S::Up, D>::from_fn(|k, _| xi[k].up_seeded(k));
        let l = LieFunction::<S::Up, G, D>::eval(&self.0, group, &gu, &xu);
        Ok(S::gradient(&l))
    }
    fn force(&self, group: &G, g: &<G as LieGroup<S, D>>::Element, xi: &SVector<S, D>) -> Result<SVector<S, D>> {
        let gu = group.map_scalar(g, &S::up);
        let eta = SVector::<S::Up, D>::from_fn(|k, _| S::from(0.0).up_seeded(k));
        let moved = LieGroup::<S::Up, D>::compose(group, &gu, &LieGroup::<S::Up, D>::exp(group, &eta));
        let xu = xi.map(S::up);
        let l = LieFunction::<S::Up, G, D>::eval(&self.0, group, &moved, &xu);
        Ok(S::gradient(&l))
    }
}
