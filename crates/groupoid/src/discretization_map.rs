//! Discretization maps `R_d: AG → G` from a Lie algebroid to its Lie groupoid, the discrete
//! Lagrangians `L_d = h L ∘ R_d^{-1}` they induce, and their flows (docs/math.md §C.8.3–C.8.4;
//! M. Barbero Liñán, J. C. Marrero, D. Martín de Diego, *Retraction maps: a seed of geometric
//! integrators. Part II: Symmetry and reduction*, 2025, arXiv:2502.14152; the pair-groupoid case
//! `TQ → Q × Q` is M. Barbero Liñán, D. Martín de Diego, *Retraction maps: a seed of geometric
//! integrators*, 2022, arXiv:2106.00607, and docs/math.md §A.1).
//!
//! # Definition
//!
//! A discretization map on `G ⇉ Q` is a map `R_d: U ⊂ AG → G`, defined near the zero section,
//! with
//!
//! 1. `R_d(0_x) = ε(x)` (the zero vector goes to the identity arrow), and
//! 2. `P_x ∘ T_{0_x}(R_d|_{A_x G}) = Id_{A_x G}`, where `P_x: T_{ε(x)}G → A_xG` is the projection
//!    along the identities, `P_x(V) = V − Tε Tα V`.
//!
//! In the fibre chart, `P_x` is the derivative of `fibre_log` at `ε(x)` (`fibre_log` vanishes on
//! the identities and inverts `exp_x`), so condition 2 reads
//! `∂/∂a fibre_log(R_d(x, a))|_{a=0} = I` — which [`check_discretization_map`] measures by AD. On
//! the pair groupoid, `fibre_log(q_0, q_1) = q_1 − q_0` and the condition is
//! `T R^2 − T R^1 = Id`, that of docs/math.md §A.1. Applying `Tβ` gives
//! `T(β ∘ R_d) − T(α ∘ R_d) = ρ` at `0_x`: the anchor is what the map moves the base by.
//!
//! # Maps
//!
//! * [`FibreThetaMap`]: `R_d(x, a) = exp_x(−θa)^{-1} · exp_x((1 − θ)a)` from the groupoid's own
//!   fibre chart, for every groupoid available at every scalar ([`EveryScalarGroupoid`]). It is the
//!   θ-map `(x − θv, x + (1 − θ)v)` on `R^N × R^N`, the Lie-group θ-map
//!   `(g τ(−θξ), g τ((1 − θ)ξ))` of docs/math.md §A.3 on `G × G`, `τ(θξ) τ((1 − θ)ξ)` on a group
//!   (`= exp ξ` for the exponential chart), `(x · τ(−θξ), τ(θξ) τ((1 − θ)ξ))` on an action
//!   groupoid and `(x − θv, x + (1 − θ)v, τ(θξ) τ((1 − θ)ξ))` on a trivial Atiyah groupoid.
//!   Inverse: `a = fibre_log(g)`, `x = β(exp_{α(g)}(θa))`. It is exact for `θ = 0` with every
//!   fibre chart, and for every θ when the fibre chart is a flow,
//!   `exp_x(sa) · exp(ta) = exp_x((s + t)a)` (every exponential chart, the pair groupoid of
//!   `R^N`); for `θ = 1` it needs `exp_x(−a)^{-1} = exp_{β(exp_x(−a))}(a)`, true for the charts
//!   built from a group chart with `τ(−ξ) = τ(ξ)^{-1}` (Cayley included). Elsewhere (a Cayley chart
//!   with `0 < θ < 1`, the sphere's normalisation chart with `θ > 0`) the round trip of
//!   [`check_discretization_map`] and the checks of [`InducedFlow`] refuse the map.
//! * The `discretization` crate's maps on `R^N` as maps on [`PairGroupoid<N>`]: the θ-maps
//!   [`ThetaMap<N>`] (closed-form inverse) and any map written over the scalar
//!   ([`AutoDiffMap<M, N>`] of a [`MapModel<N>`], retractions included). The inverse of the latter
//!   is `discretization`'s Newton solve at `f64`, continued to dual numbers by two chord-Newton
//!   steps with the `f64` Jacobian, which is exact to second order (the error after a chord step
//!   from the real root is quadratic in the infinitesimal parts).
//!
//! # Induced Lagrangian and flows
//!
//! A Lagrangian `L: AG → R` ([`AlgebroidLagrangian`]) and a step `h` give, with the
//! displacement scaling of docs/math.md §B.1,
//!
//! ```text
//!     L_d(g) = h L(x, a/h),      (x, a) = R_d^{-1}(g)
//! ```
//!
//! ([`InducedLagrangian`]), a [`DiscreteLagrangian`] on `G` for the discrete Euler–Lagrange flow
//! [`DiscreteFlow`] and the discrete Hamiltonian flow [`DiscreteHamiltonianFlow`](crate::DiscreteHamiltonianFlow)
//! on `A*G`. [`InducedFlow`] adds the checks a user's data needs: the first arrow from a base
//! point and a velocity, `R_d(x, h v)`, refused where `R_d` is not invertible; arrows off the
//! groupoid ([`GroupoidMembership`]) or outside the domain of `R_d^{-1}` refused with a typed error
//! and the state left as it was.

use crate::action_groupoid::{ActionFamily, ActionGroupoid, RealDistance};
use crate::algebroid::within;
use crate::atiyah::TrivialAtiyah;
use crate::every_scalar::EveryScalarGroupoid;
use crate::groupoid::LieGroupoid;
use crate::lagrangian::{AdGroupoid, Arrow, DiscreteFlow, DiscreteLagrangian, GroupoidFamily, GroupoidLift};
use crate::lie_group::GroupAsGroupoid;
use crate::morphism::element_distance;
use crate::pair::PairGroupoid;
use crate::pair_manifold::{PairOfGroup, SpherePair};
use discretization::{AutoDiffMap, DiscretizationMap, EuclideanMap, MapModel, ThetaMap};
use geom_core::function::{PhaseSpaceFunction, ScalarFunction};
use geom_core::lie::{GroupChart, LieGroup, LieGroupFamily, MEMBERSHIP_TOLERANCE};
use geom_core::linalg::BlockLu;
use geom_core::newton::NewtonReport;
use geom_core::scalar::AdScalar;
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector, Vector3};
use num_dual::DualSVec64;

/// A discretization map `R_d: AG → G` on the groupoid `Gd` (module documentation), written once
/// for every scalar: `R_d(0_x) = ε(x)` and `∂/∂a fibre_log(R_d(x, a))|_{a=0} = I`, with its
/// inverse. Check a map with [`check_discretization_map`].
pub trait AlgebroidDiscretization<Gd: GroupoidFamily<R>, const R: usize>: Send + Sync {
    /// Name, e.g. `"fibre theta-map (theta = 1/2)"`.
    fn name(&self) -> String;
    /// `R_d(x, a)` for a base point `x` and fibre coordinates `a ∈ A_xG ≅ R^R` (the basis of the
    /// fibre chart).
    fn apply<S: Scalar>(&self, groupoid: &Gd, x: &Gd::Base<S>, a: &SVector<S, R>) -> Result<Gd::Element<S>>;
    /// `R_d^{-1}(g) = (x, a)`; [`GeomError::OutsideDomain`] (or the error of the chart) where it is
    /// not defined.
    fn inverse<S: Scalar>(&self, groupoid: &Gd, g: &Gd::Element<S>) -> Result<(Gd::Base<S>, SVector<S, R>)>;
}

/// A borrowed map is the map (so that a family of discrete Lagrangians can borrow it,
/// `crate::integrator::Induced`).
impl<Gd: GroupoidFamily<R>, T: AlgebroidDiscretization<Gd, R> + ?Sized, const R: usize> AlgebroidDiscretization<Gd, R>
    for &T
{
    fn name(&self) -> String {
        (**self).name()
    }
    #[inline]
    fn apply<S: Scalar>(&self, groupoid: &Gd, x: &Gd::Base<S>, a: &SVector<S, R>) -> Result<Gd::Element<S>> {
        (**self).apply(groupoid, x, a)
    }
    #[inline]
    fn inverse<S: Scalar>(&self, groupoid: &Gd, g: &Gd::Element<S>) -> Result<(Gd::Base<S>, SVector<S, R>)> {
        (**self).inverse(groupoid, g)
    }
}

/// The θ-map of the fibre chart, `R_d(x, a) = exp_x(−θa)^{-1} · exp_x((1 − θ)a)`, `θ ∈ [0, 1]`,
/// with inverse `a = fibre_log(g)`, `x = β(exp_{α(g)}(θa))` (module documentation for its form on
/// each ready-made groupoid and for when the inverse is exact). `θ = 0` is the fibre chart itself,
/// `R_d(x, a) = exp_x(a)`; `θ = 1/2` the midpoint map.
///
/// ```
/// use geom_core::lie::{Chart, So3};
/// use groupoid::discretization_map::{AlgebroidDiscretization, FibreThetaMap};
/// use groupoid::PairOfGroup;
/// use nalgebra::{Matrix3, Vector3};
/// let pg = PairOfGroup::new(So3, Chart::Exp);
/// let (g, xi) = (Matrix3::identity(), Vector3::new(0.2, -0.1, 0.3));
/// let (g0, g1) = FibreThetaMap::midpoint().apply::<f64>(&pg, &g, &xi)?;
/// // the Lie-group midpoint map (g exp(−ξ/2), g exp(ξ/2)) of docs/math.md §A.3
/// assert!((g0 - geom_core::lie::so3::exp(&(-xi / 2.0))).norm() < 1e-15);
/// assert!((g1 - geom_core::lie::so3::exp(&(xi / 2.0))).norm() < 1e-15);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FibreThetaMap {
    theta: f64,
}

impl FibreThetaMap {
    /// The θ-map; [`GeomError::InvalidParameter`] unless `θ ∈ [0, 1]`.
    pub fn new(theta: f64) -> Result<Self> {
        if (0.0..=1.0).contains(&theta) {
            Ok(Self { theta })
        } else {
            Err(GeomError::InvalidParameter { what: "theta", reason: format!("must lie in [0, 1], got {theta}") })
        }
    }
    /// `θ = 0`: the fibre chart `R_d(x, a) = exp_x(a)`.
    pub fn chart() -> Self {
        Self { theta: 0.0 }
    }
    /// `θ = 1/2`: the midpoint map `exp_x(−a/2)^{-1} · exp_x(a/2)`.
    pub fn midpoint() -> Self {
        Self { theta: 0.5 }
    }
    /// θ.
    pub fn theta(&self) -> f64 {
        self.theta
    }
}

impl<Gd: EveryScalarGroupoid<R>, const R: usize> AlgebroidDiscretization<Gd, R> for FibreThetaMap {
    fn name(&self) -> String {
        format!("fibre theta-map (theta = {})", self.theta)
    }
    /// `exp_x(−θa)^{-1} · exp_x((1 − θ)a)` (`exp_x(a)` for `θ = 0`).
    fn apply<S: Scalar>(&self, groupoid: &Gd, x: &Gd::Base<S>, a: &SVector<S, R>) -> Result<Gd::Element<S>> {
        let gd = groupoid.at::<S>();
        if self.theta == 0.0 {
            return Ok(gd.fibre_exp(x, a));
        }
        let back = gd.fibre_exp(x, &(a * S::from(-self.theta)));
        let ahead = gd.fibre_exp(x, &(a * S::from(1.0 - self.theta)));
        Ok(gd.multiply(&gd.inverse(&back), &ahead))
    }
    /// `a = fibre_log(g)`, `x = β(exp_{α(g)}(θa))`.
    fn inverse<S: Scalar>(&self, groupoid: &Gd, g: &Gd::Element<S>) -> Result<(Gd::Base<S>, SVector<S, R>)> {
        let gd = groupoid.at::<S>();
        let a = gd.fibre_log(g)?;
        let source = gd.source(g);
        if self.theta == 0.0 {
            return Ok((source, a));
        }
        let x = gd.target(&gd.fibre_exp(&source, &(a * S::from(self.theta))));
        Ok((x, a))
    }
}

/// The θ-map of the `discretization` crate as a map `TR^N → R^N × R^N` on the pair groupoid:
/// `R_d(x, v) = (x − θv, x + (1 − θ)v)`, `R_d^{-1}(q_0, q_1) = ((1 − θ)q_0 + θq_1, q_1 − q_0)`
/// (docs/math.md §A.2), at every scalar.
impl<const N: usize> AlgebroidDiscretization<PairGroupoid<N>, N> for ThetaMap<N> {
    fn name(&self) -> String {
        DiscretizationMap::name(self)
    }
    fn apply<S: Scalar>(
        &self,
        _: &PairGroupoid<N>,
        x: &SVector<S, N>,
        v: &SVector<S, N>,
    ) -> Result<(SVector<S, N>, SVector<S, N>)> {
        let t = self.value();
        Ok((x - v * S::from(t), x + v * S::from(1.0 - t)))
    }
    fn inverse<S: Scalar>(
        &self,
        _: &PairGroupoid<N>,
        g: &(SVector<S, N>, SVector<S, N>),
    ) -> Result<(SVector<S, N>, SVector<S, N>)> {
        let t = self.value();
        Ok((g.0 * S::from(1.0 - t) + g.1 * S::from(t), g.1 - g.0))
    }
}

/// A `discretization` map written over the scalar ([`MapModel<N>`], e.g. a retraction's map) as
/// a map on the pair groupoid. `apply` evaluates the model; `inverse` solves `R_d(x, v) = (q_0,
/// q_1)` by the crate's Newton at `f64` and continues the root to the scalar `S` by two chord
/// steps `z ← z − J^{-1}(R_d(z) − q)` with the `f64` Jacobian `J` (exact to second order in the
/// infinitesimal parts: the first step leaves an error quadratic in them, the second a cubic one).
impl<M: MapModel<N>, const N: usize> AlgebroidDiscretization<PairGroupoid<N>, N> for AutoDiffMap<M, N> {
    fn name(&self) -> String {
        DiscretizationMap::name(self)
    }
    fn apply<S: Scalar>(
        &self,
        _: &PairGroupoid<N>,
        x: &SVector<S, N>,
        v: &SVector<S, N>,
    ) -> Result<(SVector<S, N>, SVector<S, N>)> {
        Ok(self.model().eval(x, v))
    }
    fn inverse<S: Scalar>(
        &self,
        _: &PairGroupoid<N>,
        g: &(SVector<S, N>, SVector<S, N>),
    ) -> Result<(SVector<S, N>, SVector<S, N>)> {
        let (q0, q1) = (g.0.map(|c| c.re()), g.1.map(|c| c.re()));
        let (x, v) = DiscretizationMap::inverse(self, &q0, &q1)?;
        let j = EuclideanMap::jacobian(self, &x, &v);
        let lift = |m: &SMatrix<f64, N, N>| m.map(S::from);
        let lu =
            BlockLu::<S, N, 2>::factor(&[[lift(&j.dx1), lift(&j.dv1)], [lift(&j.dx2), lift(&j.dv2)]], "R_d Jacobian")?;
        let (mut xs, mut vs) = (x.map(S::from), v.map(S::from));
        for _ in 0..2 {
            let (r1, r2) = self.model().eval(&xs, &vs);
            let [dx, dv] = lu.solve(&[r1 - g.0, r2 - g.1]);
            xs -= dx;
            vs -= dv;
        }
        Ok((xs, vs))
    }
}

// ---------------------------------------------------------------------------------------------

/// Tolerance of [`check_discretization_map`] on the identity, derivative and round-trip defects
/// (relative, `|defect|/(1 + |a|)`): the maps are evaluated in closed form or by Newton to
/// `1e-14`, and the derivatives by AD.
pub const DISCRETIZATION_MAP_TOLERANCE: f64 = 1e-10;

/// What [`check_discretization_map`] measured (largest defects over the sample points).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiscretizationMapReport {
    /// `d(R_d(0_x), ε(x))` (source distance plus fibre-coordinate distance,
    /// [`element_distance`]).
    pub identity: f64,
    /// `|∂/∂a fibre_log(R_d(x, a))|_{a=0} − I|_max` (AD).
    pub derivative: f64,
    /// `|a' − a| + d(x', x)` for `(x', a') = R_d^{-1}(R_d(x, a))` at a random `a`, `|a| <= 0.3`.
    pub round_trip: f64,
    /// `|∂a'/∂a − I|_max` at that `a` (AD through `R_d` and `R_d^{-1}` at dual numbers): the
    /// inverse is differentiated correctly.
    pub inverse_derivative: f64,
}

/// Check the defining properties of a discretization map at each base point of `points`
/// (module documentation): `R_d(0_x) = ε(x)`, `∂/∂a fibre_log(R_d(x, a))|_{a=0} = I`, the round
/// trip `R_d^{-1}(R_d(x, a)) = (x, a)` at a random `a` (`|a| <= 0.3`, from `seed`), and the
/// derivative of that round trip at dual numbers. Returns the defects, or
/// [`GeomError::InvalidParameter`] (`what = "algebroid discretization map"`) naming the first
/// property that fails [`DISCRETIZATION_MAP_TOLERANCE`]; the errors of the map are passed on.
///
/// ```
/// use geom_core::action::SphereRotation;
/// use geom_core::lie::Chart;
/// use groupoid::discretization_map::{FibreThetaMap, check_discretization_map};
/// use groupoid::ActionGroupoid;
/// use nalgebra::Vector3;
/// let top = ActionGroupoid::new(SphereRotation, Chart::Exp);
/// let report = check_discretization_map(&top, &FibreThetaMap::midpoint(), &[Vector3::z()], 7)?;
/// assert!(report.derivative < 1e-14);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn check_discretization_map<Gd, Rd, const R: usize>(
    groupoid: &Gd,
    map: &Rd,
    points: &[<Gd as GroupoidFamily<R>>::Base<f64>],
    seed: u64,
) -> Result<DiscretizationMapReport>
where
    Gd: AdGroupoid<R>,
    Rd: AlgebroidDiscretization<Gd, R>,
{
    type Dv<const R: usize> = DualSVec64<R>;
    let fail = |property: &str, defect: f64| GeomError::InvalidParameter {
        what: "algebroid discretization map",
        reason: format!("{}: {property} fails, defect {defect:.3e} > {DISCRETIZATION_MAP_TOLERANCE:.0e}", map.name()),
    };
    let mut rng = crate::algebroid::Uniform::new(seed);
    let mut report =
        DiscretizationMapReport { identity: 0.0, derivative: 0.0, round_trip: 0.0, inverse_derivative: 0.0 };
    let seeded = |a: &SVector<f64, R>| SVector::<Dv<R>, R>::from_fn(|i, _| <f64 as AdScalar<R>>::up_seeded(a[i], i));
    let jac = |v: &SVector<Dv<R>, R>| SMatrix::<f64, R, R>::from_fn(|i, j| <f64 as AdScalar<R>>::gradient(&v[i])[j]);
    for x in points {
        // 1. R_d(0_x) = ε(x)
        let zero = map.apply::<f64>(groupoid, x, &SVector::zeros())?;
        let unit = LieGroupoid::<f64, R>::identity(groupoid, x);
        let d = element_distance(groupoid, &zero, &unit)?;
        report.identity = report.identity.max(d);
        if !within(d, DISCRETIZATION_MAP_TOLERANCE) {
            return Err(fail("identity at zero R_d(0_x) = eps(x)", d));
        }
        // 2. ∂/∂a fibre_log(R_d(x, a))|_0 = I
        let xd = GroupoidLift::<Dv<R>, R>::lift_base(groupoid, x);
        let g = map.apply::<Dv<R>>(groupoid, &xd, &seeded(&SVector::zeros()))?;
        let l = LieGroupoid::<Dv<R>, R>::fibre_log(groupoid, &g)?;
        let d = (jac(&l) - SMatrix::<f64, R, R>::identity()).amax();
        let d = if d.is_finite() { d } else { f64::INFINITY };
        report.derivative = report.derivative.max(d);
        if !within(d, DISCRETIZATION_MAP_TOLERANCE) {
            return Err(fail("derivative condition d/da fibre_log(R_d(x, a)) = I at a = 0", d));
        }
        // 3. round trip at a random a, and its derivative
        let a: SVector<f64, R> = rng.vector::<R>(1.0);
        let a = if a.norm() > 0.0 { a * (0.3 * rng.next().abs().max(0.1) / a.norm()) } else { a };
        let g = map.apply::<f64>(groupoid, x, &a)?;
        let (xb, ab) = map.inverse::<f64>(groupoid, &g)?;
        let d = ((ab - a).norm() + LieGroupoid::<f64, R>::base_distance(groupoid, &xb, x)) / (1.0 + a.norm());
        let d = if d.is_finite() { d } else { f64::INFINITY };
        report.round_trip = report.round_trip.max(d);
        if !within(d, DISCRETIZATION_MAP_TOLERANCE) {
            return Err(fail("round trip R_d^{-1}(R_d(x, a)) = (x, a)", d));
        }
        let g = map.apply::<Dv<R>>(groupoid, &xd, &seeded(&a))?;
        let (_, ab) = map.inverse::<Dv<R>>(groupoid, &g)?;
        let d = (jac(&ab) - SMatrix::<f64, R, R>::identity()).amax();
        let d = if d.is_finite() { d } else { f64::INFINITY };
        report.inverse_derivative = report.inverse_derivative.max(d);
        if !within(d, DISCRETIZATION_MAP_TOLERANCE) {
            return Err(fail("derivative of the round trip (R_d^{-1} at dual numbers)", d));
        }
    }
    Ok(report)
}

// ---------------------------------------------------------------------------------------------

/// A Lagrangian `L: AG → R` on the algebroid, `L(x, a)` for a base point `x` and fibre
/// coordinates `a ∈ A_xG` (a velocity `v` on `TQ`, a body angular velocity `ξ` on `g`, …),
/// written once over the scalar.
pub trait AlgebroidLagrangian<Gd: GroupoidFamily<R>, const R: usize>: Send + Sync {
    /// `L(x, a)`.
    fn eval<S: Scalar>(&self, groupoid: &Gd, x: &Gd::Base<S>, a: &SVector<S, R>) -> S;
}

/// A borrowed Lagrangian is the Lagrangian.
impl<Gd: GroupoidFamily<R>, T: AlgebroidLagrangian<Gd, R> + ?Sized, const R: usize> AlgebroidLagrangian<Gd, R> for &T {
    #[inline]
    fn eval<S: Scalar>(&self, groupoid: &Gd, x: &Gd::Base<S>, a: &SVector<S, R>) -> S {
        (**self).eval(groupoid, x, a)
    }
}

/// A Lagrangian `L(q, v)` on `TR^N` given as a `geom_core` [`PhaseSpaceFunction<N>`] whose second
/// argument is the velocity (the convention of the `discretization` crate), as a Lagrangian on the
/// algebroid of [`PairGroupoid<N>`].
#[derive(Debug, Clone, Copy)]
pub struct TangentLagrangian<L>(pub L);

impl<L: PhaseSpaceFunction<N>, const N: usize> AlgebroidLagrangian<PairGroupoid<N>, N> for TangentLagrangian<L> {
    /// `L(q, v)`.
    #[inline]
    fn eval<S: Scalar>(&self, _: &PairGroupoid<N>, q: &SVector<S, N>, v: &SVector<S, N>) -> S {
        self.0.eval(q, v)
    }
}

/// A reduced Lagrangian `ℓ(ξ)` on a Lie algebra, given as a `geom_core` [`ScalarFunction<D>`],
/// as a Lagrangian on the algebroid `g` of [`GroupAsGroupoid<G, C>`] (any chart).
#[derive(Debug, Clone, Copy)]
pub struct ReducedLagrangian<L>(pub L);

impl<G, C, L, const D: usize> AlgebroidLagrangian<GroupAsGroupoid<G, C>, D> for ReducedLagrangian<L>
where
    G: LieGroupFamily<D>,
    C: GroupChart<f64, G, D>,
    L: ScalarFunction<D>,
{
    /// `ℓ(ξ)`.
    #[inline]
    fn eval<S: Scalar>(&self, _: &GroupAsGroupoid<G, C>, _x: &(), xi: &SVector<S, D>) -> S {
        self.0.eval(xi)
    }
}

/// The discrete Lagrangian induced by a discretization map `R_d` and a Lagrangian `L` on `AG`,
/// `L_d(g) = h L(x, a/h)` with `(x, a) = R_d^{-1}(g)` (docs/math.md §C.8.4, with the displacement
/// scaling of §B.1). As a [`DiscreteLagrangian`] it evaluates to NaN where `R_d^{-1}` fails, so a
/// flow stepping there reports [`GeomError::NonFinite`]; [`InducedLagrangian::value`] and
/// [`InducedFlow`] report the typed error of the map instead.
#[derive(Debug, Clone, Copy)]
pub struct InducedLagrangian<Rd, L> {
    map: Rd,
    lagrangian: L,
    h: f64,
}

impl<Rd, L> InducedLagrangian<Rd, L> {
    /// `L_d = h L ∘ R_d^{-1}` for the step `h`; [`GeomError::InvalidStep`] unless `h` is finite and
    /// nonzero.
    pub fn new(map: Rd, lagrangian: L, h: f64) -> Result<Self> {
        if h.is_finite() && h != 0.0 { Ok(Self { map, lagrangian, h }) } else { Err(GeomError::InvalidStep { h }) }
    }
    /// The discretization map `R_d`.
    pub fn map(&self) -> &Rd {
        &self.map
    }
    /// The continuous Lagrangian `L`.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
    /// The step `h`.
    pub fn step_size(&self) -> f64 {
        self.h
    }
    /// The base point and velocity `(x, a/h)` of an arrow, `(x, a) = R_d^{-1}(g)`.
    pub fn velocity<Gd: GroupoidFamily<R>, const R: usize>(
        &self,
        groupoid: &Gd,
        g: &Gd::Element<f64>,
    ) -> Result<(Gd::Base<f64>, SVector<f64, R>)>
    where
        Rd: AlgebroidDiscretization<Gd, R>,
    {
        let (x, a) = self.map.inverse::<f64>(groupoid, g)?;
        Ok((x, a / self.h))
    }
    /// `L_d(g) = h L(x, a/h)`, with the error of `R_d^{-1}` where it fails and
    /// [`GeomError::NonFinite`] for a non-finite value.
    pub fn value<Gd: GroupoidFamily<R>, const R: usize>(&self, groupoid: &Gd, g: &Gd::Element<f64>) -> Result<f64>
    where
        Rd: AlgebroidDiscretization<Gd, R>,
        L: AlgebroidLagrangian<Gd, R>,
    {
        let (x, v) = self.velocity(groupoid, g)?;
        let value = self.lagrangian.eval::<f64>(groupoid, &x, &v) * self.h;
        if value.is_finite() { Ok(value) } else { Err(GeomError::NonFinite { what: "induced discrete Lagrangian" }) }
    }
}

impl<Gd, Rd, L, const R: usize> DiscreteLagrangian<Gd, R> for InducedLagrangian<Rd, L>
where
    Gd: GroupoidFamily<R>,
    Rd: AlgebroidDiscretization<Gd, R>,
    L: AlgebroidLagrangian<Gd, R>,
{
    /// `h L(x, a/h)`, `(x, a) = R_d^{-1}(g)`; NaN where `R_d^{-1}` fails.
    #[inline]
    fn eval<S: Scalar>(&self, groupoid: &Gd, g: &Gd::Element<S>) -> S {
        match self.map.inverse::<S>(groupoid, g) {
            Ok((x, a)) => self.lagrangian.eval::<S>(groupoid, &x, &(a * S::from(1.0 / self.h))) * S::from(self.h),
            Err(_) => S::from(f64::NAN),
        }
    }
}

// ---------------------------------------------------------------------------------------------

/// How far an arrow (at `f64`) is from the groupoid: the group defects of its group components
/// ([`LieGroup::defect`]), the distance of sphere points from `S²`, `+∞` for non-finite entries,
/// `0` on the groupoid. Used by [`InducedFlow`] to refuse arrows off the groupoid.
pub trait GroupoidMembership<const R: usize>: GroupoidFamily<R> {
    /// The defect of `g` (`0` on the groupoid).
    fn arrow_defect(&self, g: &Self::Element<f64>) -> f64;
}

fn finite_or_inf(values: impl IntoIterator<Item = f64>, defect: f64) -> f64 {
    if values.into_iter().all(f64::is_finite) { defect } else { f64::INFINITY }
}

/// `0` if finite (every pair of points is an arrow).
impl<const N: usize> GroupoidMembership<N> for PairGroupoid<N> {
    fn arrow_defect(&self, g: &(SVector<f64, N>, SVector<f64, N>)) -> f64 {
        finite_or_inf(g.0.iter().chain(g.1.iter()).copied(), 0.0)
    }
}

/// `||x| − 1| + ||y| − 1|`.
impl GroupoidMembership<2> for SpherePair {
    fn arrow_defect(&self, g: &(Vector3<f64>, Vector3<f64>)) -> f64 {
        finite_or_inf(g.0.iter().chain(g.1.iter()).copied(), (g.0.norm() - 1.0).abs() + (g.1.norm() - 1.0).abs())
    }
}

/// The group defect of the element.
impl<G, C, const D: usize> GroupoidMembership<D> for GroupAsGroupoid<G, C>
where
    G: LieGroupFamily<D> + LieGroup<f64, D, Element = G::ElementAt<f64>>,
    C: GroupChart<f64, G, D>,
{
    fn arrow_defect(&self, g: &G::ElementAt<f64>) -> f64 {
        LieGroup::<f64, D>::defect(self.group(), g)
    }
}

/// The sum of the group defects of both elements.
impl<G, C, const D: usize> GroupoidMembership<D> for PairOfGroup<G, C>
where
    G: LieGroupFamily<D> + LieGroup<f64, D, Element = G::ElementAt<f64>>,
    C: GroupChart<f64, G, D>,
{
    fn arrow_defect(&self, g: &(G::ElementAt<f64>, G::ElementAt<f64>)) -> f64 {
        LieGroup::<f64, D>::defect(self.group(), &g.0) + LieGroup::<f64, D>::defect(self.group(), &g.1)
    }
}

/// The group defect of `g`, `+∞` if a base point is not finite.
impl<G, C, const M: usize, const D: usize, const R: usize> GroupoidMembership<R> for TrivialAtiyah<G, M, D, C>
where
    G: LieGroupFamily<D> + LieGroup<f64, D, Element = G::ElementAt<f64>>,
    C: GroupChart<f64, G, D>,
{
    fn arrow_defect(&self, g: &(SVector<f64, M>, SVector<f64, M>, G::ElementAt<f64>)) -> f64 {
        finite_or_inf(g.0.iter().chain(g.1.iter()).copied(), LieGroup::<f64, D>::defect(self.group(), &g.2))
    }
}

/// The group defect of `h`, `+∞` if the point `x` is not finite (points of a general action's
/// space are not checked further; on `S²` see [`GroupoidMembership`] for [`SpherePair`]).
impl<A, C, const D: usize> GroupoidMembership<D> for ActionGroupoid<A, C>
where
    A: ActionFamily<D>,
    C: GroupChart<f64, A::Acting, D>,
    A::Acting: LieGroup<f64, D, Element = <A::Acting as LieGroupFamily<D>>::ElementAt<f64>>,
    A::PointAt<f64>: RealDistance,
{
    fn arrow_defect(&self, g: &(A::PointAt<f64>, <A::Acting as LieGroupFamily<D>>::ElementAt<f64>)) -> f64 {
        let self_distance = g.0.real_distance(&g.0);
        let group = geom_core::action::GroupAction::<f64, D>::group(self.action());
        finite_or_inf([self_distance], LieGroup::<f64, D>::defect(group, &g.1))
    }
}

/// Tolerance of the round trip `R_d^{-1}(R_d(x, h v)) = (x, h v)` in [`InducedFlow::first_arrow`]
/// (relative to `1 + |h v|`).
pub const ROUND_TRIP_TOLERANCE: f64 = 1e-9;

/// The discrete Euler–Lagrange flow of an [`InducedLagrangian`] with the checks a user's data
/// needs (module documentation): [`first_arrow`](InducedFlow::first_arrow) from continuous
/// initial data, and [`step`](InducedFlow::step) / [`advance`](InducedFlow::advance), which refuse
/// an arrow off the groupoid ([`GeomError::OffManifold`], defect above
/// [`MEMBERSHIP_TOLERANCE`]) or outside the domain of `R_d^{-1}` (the map's error) before and
/// after the solve; `advance` changes the state only when the step succeeds.
#[derive(Debug, Clone)]
pub struct InducedFlow<Gd, Rd, L> {
    flow: DiscreteFlow<Gd, InducedLagrangian<Rd, L>>,
}

impl<Gd, Rd, L> InducedFlow<Gd, Rd, L> {
    /// The flow of `L_d = h L ∘ R_d^{-1}` on `groupoid` ([`DiscreteFlow`] with its Newton options);
    /// [`GeomError::InvalidStep`] unless `h` is finite and nonzero.
    pub fn new(groupoid: Gd, map: Rd, lagrangian: L, h: f64) -> Result<Self> {
        Ok(Self { flow: DiscreteFlow::new(groupoid, InducedLagrangian::new(map, lagrangian, h)?) })
    }
    /// The underlying [`DiscreteFlow`].
    pub fn flow(&self) -> &DiscreteFlow<Gd, InducedLagrangian<Rd, L>> {
        &self.flow
    }
    /// The induced discrete Lagrangian.
    pub fn lagrangian(&self) -> &InducedLagrangian<Rd, L> {
        self.flow.lagrangian()
    }
    /// The groupoid.
    pub fn groupoid(&self) -> &Gd {
        self.flow.groupoid()
    }
}

impl<Gd, Rd, L> InducedFlow<Gd, Rd, L> {
    /// `Ok(())` if `g` is on the groupoid (defect at most [`MEMBERSHIP_TOLERANCE`]) and in the
    /// domain of `R_d^{-1}`; [`GeomError::NonFinite`], [`GeomError::OffManifold`] or the map's
    /// error otherwise.
    pub fn check_arrow<const R: usize>(&self, g: &Arrow<Gd, R>) -> Result<()>
    where
        Gd: AdGroupoid<R> + GroupoidMembership<R>,
        Rd: AlgebroidDiscretization<Gd, R>,
        L: AlgebroidLagrangian<Gd, R>,
    {
        let gd = self.flow.groupoid();
        let defect = gd.arrow_defect(g);
        if !defect.is_finite() {
            return Err(GeomError::NonFinite { what: "arrow" });
        }
        if defect > MEMBERSHIP_TOLERANCE {
            return Err(GeomError::OffManifold {
                what: "arrow of the groupoid",
                defect,
                tolerance: MEMBERSHIP_TOLERANCE,
            });
        }
        let (_, a) = self.lagrangian().map().inverse::<f64>(gd, g)?;
        if a.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(GeomError::NonFinite { what: "R_d^{-1} of the arrow" })
        }
    }

    /// The first arrow `g_0 = R_d(x, h v)` from a base point and a velocity `v ∈ A_xG`. Errors:
    /// [`GeomError::NonFinite`], the map's errors, and [`GeomError::OutsideDomain`] if
    /// `R_d^{-1}(g_0) ≠ (x, h v)` (relative defect above [`ROUND_TRIP_TOLERANCE`]: the velocity is
    /// beyond the domain where `R_d` is invertible, e.g. `|h ξ| > π` for the exponential of SO(3)).
    pub fn first_arrow<const R: usize>(
        &self,
        x: &<Gd as GroupoidFamily<R>>::Base<f64>,
        velocity: &SVector<f64, R>,
    ) -> Result<Arrow<Gd, R>>
    where
        Gd: AdGroupoid<R> + GroupoidMembership<R>,
        Rd: AlgebroidDiscretization<Gd, R>,
        L: AlgebroidLagrangian<Gd, R>,
    {
        if !velocity.iter().all(|v| v.is_finite()) {
            return Err(GeomError::NonFinite { what: "velocity" });
        }
        let gd = self.flow.groupoid();
        let a = velocity * self.lagrangian().step_size();
        let g = self.lagrangian().map().apply::<f64>(gd, x, &a)?;
        self.check_arrow(&g)?;
        let (xb, ab) = self.lagrangian().map().inverse::<f64>(gd, &g)?;
        let defect = ((ab - a).norm() + LieGroupoid::<f64, R>::base_distance(gd, &xb, x)) / (1.0 + a.norm());
        if !within(defect, ROUND_TRIP_TOLERANCE) {
            return Err(GeomError::OutsideDomain {
                map: "discretization map R_d",
                reason: "the velocity is outside the domain where R_d is invertible (R_d^{-1}(R_d(x, h v)) != (x, h v))",
            });
        }
        Ok(g)
    }

    /// One DEL step `g_k ↦ g_{k+1}` ([`DiscreteFlow::step`]) with the arrow checked before and
    /// after ([`InducedFlow::check_arrow`]).
    pub fn step<const R: usize>(&self, g: &Arrow<Gd, R>) -> Result<(Arrow<Gd, R>, NewtonReport)>
    where
        Gd: AdGroupoid<R> + GroupoidMembership<R>,
        Rd: AlgebroidDiscretization<Gd, R>,
        L: AlgebroidLagrangian<Gd, R>,
    {
        self.check_arrow(g)?;
        let (next, report) = self.flow.step(g)?;
        self.check_arrow(&next)?;
        Ok((next, report))
    }

    /// [`InducedFlow::step`] in place: `g` is replaced only when the step succeeds.
    pub fn advance<const R: usize>(&self, g: &mut Arrow<Gd, R>) -> Result<NewtonReport>
    where
        Gd: AdGroupoid<R> + GroupoidMembership<R>,
        Rd: AlgebroidDiscretization<Gd, R>,
        L: AlgebroidLagrangian<Gd, R>,
    {
        let (next, report) = self.step(g)?;
        *g = next;
        Ok(report)
    }
}
