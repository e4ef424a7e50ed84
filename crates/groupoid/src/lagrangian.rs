//! Discrete Lagrangians `L: G -> R` on a Lie groupoid, their Legendre transforms, regularity and
//! the discrete Euler–Lagrange flow (docs/math.md §C.3; Marrero, Martín de Diego & Stern,
//! *Symplectic groupoids and discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250,
//! §2–3).
//!
//! * `F^-L(g) ∈ A*_{α(g)} G`, `F^-L(g)(X) = X^→(g)(L)`; `F^+L(g) ∈ A*_{β(g)} G`,
//!   `F^+L(g)(X) = X^←(g)(L)` — components in the basis `e_a` of the fibre chart.
//! * DEL: for composable `(g_k, g_{k+1})`, `F^+L(g_k) = F^-L(g_{k+1})`.
//! * Regularity: the pairing matrix `P_ab = X_a^← Y_b^→ L` (mixed second derivative) is
//!   nonsingular; then `F^-L` and `F^+L` are local diffeomorphisms (Marrero et al. 2015, Thm 2.16).
//!
//! All derivatives are exact: `L` is written once over the scalar and evaluated along the
//! curves `g · exp(ξ)` and `i(exp(-η)) · g` at dual numbers.

use crate::groupoid::LieGroupoid;
use geom_core::function::ad_gradient;
use geom_core::hyper_dual;
use geom_core::lie::Side;
use geom_core::newton::{CarriedJacobian, JacobianUpdate, NewtonOptions, NewtonReport, newton_blocks_carried};
use geom_core::{GeomError, Result, Scalar};
use nalgebra::{SMatrix, SVector};
use num_dual::{Dual64, DualSVec64, HyperDual64, HyperDualSVec64};

/// The groupoid's element and base types at every scalar (a generic associated type), so that a
/// discrete Lagrangian can be written once for all scalars: `Element<S>` is the type of
/// `LieGroupoid<S, R>::Element`.
pub trait GroupoidFamily<const R: usize>: Send + Sync {
    /// Elements at scalar `S`.
    type Element<S: Scalar>: Clone + std::fmt::Debug + Send + Sync;
    /// Base points at scalar `S`.
    type Base<S: Scalar>: Clone + std::fmt::Debug + Send + Sync;

    /// The factor by which the round-off floor of a momentum residual at the base point `x`
    /// exceeds that at a well-conditioned point: the flows of [`crate::integrator`] multiply
    /// their Newton residual tolerance by it
    /// ([`NewtonOptions::with_residual_scale`](geom_core::newton::NewtonOptions::with_residual_scale)).
    /// `1` by default; the pair groupoid of a group, whose arrows `(x, x τ(ξ))` store both
    /// elements absolutely so that `x^{-1} y` loses `ε κ(x)`, gives the group's conditioning
    /// `κ(x)` ([`LieGroupFamily::condition`](geom_core::lie::LieGroupFamily::condition): `‖x‖ ‖x^{-1}‖`
    /// for a matrix group, which grows without bound along the motions of a non-compact group).
    fn roundoff_scale(&self, x: &Self::Base<f64>) -> f64 {
        let _ = x;
        1.0
    }
    /// Optional closed form of the first-order jets of the invariant curves through `g` along
    /// `ξ`, as elements at [`Dual64`] (`ε² = 0`): `g · exp_{β(g)}(εξ)` (`Side::Left`, velocity
    /// `X^←(g)`) or `i(exp_{α(g)}(−εξ)) · g` (`Side::Right`, velocity `X^→(g)`). A Legendre
    /// transform is then `F^±L(g)_a = L(jet along e_a).eps`, with no fibre chart or product at
    /// dual numbers. `None` (the default): the transforms evaluate the curves
    /// ([`LieGroupoid::left_curve`], [`LieGroupoid::right_curve`]) at `Dual64`, which gives the same
    /// jets. On a Lie group, `g + ε g ξ̂` and `g + ε ξ̂ g`
    /// ([`LieGroupFamily::translation_jet`](geom_core::lie::LieGroupFamily::translation_jet)); on the
    /// pair groupoid, `(x, y + εξ)` and `(x − εξ, y)`.
    fn invariant_jet(&self, g: &Self::Element<f64>, xi: &SVector<f64, R>, side: Side) -> Option<Self::Element<Dual64>> {
        let _ = (g, xi, side);
        None
    }
    /// The same jets one derivative up: `g = g₀ + δ g₁` given at [`Dual64`] (a point moving
    /// along a curve), the jet at [`HyperDual64`] with `ε₁ = δ`, `ε₂ = ε`. A mixed second
    /// derivative of `L` along the curve and an invariant vector field is then
    /// `L(jet).eps1eps2`: the Newton Jacobian of the DEL flow
    /// (`∂/∂ξ_b F^-L(exp_x ξ)`) and the pairing matrix without the fibre chart and the product at
    /// hyper-dual numbers. `None` (the default): they are taken along the curves at
    /// `HyperDual64` (`geom_core::hyper_dual`), the same numbers.
    fn invariant_jet_dual(
        &self,
        g: &Self::Element<Dual64>,
        xi: &SVector<f64, R>,
        side: Side,
    ) -> Option<Self::Element<HyperDual64>> {
        let _ = (g, xi, side);
        None
    }
    /// Optional closed form of the fibre chart's first-order jets: `(C, side)` with
    /// `exp_x(ξ + δv) = exp_x(ξ) + δ ·` (the `side` jet of [`invariant_jet`](Self::invariant_jet)
    /// at `exp_x(ξ)` along `C v`) to first order in `δ`, `C` the chart's differential at `ξ`
    /// trivialized by the invariant fields. The DEL Newton Jacobian `∂/∂ξ_b F^-L(exp_x ξ)` then
    /// takes the arrow `exp_x(ξ)` at `f64` and `R` jets along the columns `C e_b`, instead of `R`
    /// fibre charts at [`Dual64`] (the same numbers to round-off). On a Lie group with chart `τ`,
    /// `C = dτ_ξ` right-trivialized (`τ(ξ + δv) = τ(δ dτ_ξ v) τ(ξ)`, the `Right` jet); on the pair
    /// groupoid, `exp_x(ξ) = (x, x + ξ)`: `C = I`, the `Left` jet. `None` (the default): charts at
    /// `Dual64`.
    fn fibre_differential(&self, x: &Self::Base<f64>, xi: &SVector<f64, R>) -> Option<(SMatrix<f64, R, R>, Side)> {
        let _ = (x, xi);
        None
    }
}

/// A groupoid usable at `f64` and at `S`, with the conversion of elements and base points.
pub trait GroupoidLift<S: Scalar, const R: usize>: GroupoidFamily<R>
    + LieGroupoid<
        f64,
        R,
        Element = <Self as GroupoidFamily<R>>::Element<f64>,
        Base = <Self as GroupoidFamily<R>>::Base<f64>,
    > + LieGroupoid<S, R, Element = <Self as GroupoidFamily<R>>::Element<S>, Base = <Self as GroupoidFamily<R>>::Base<S>>
{
    /// `g` at scalar `S` (same value, zero derivative parts).
    fn lift(&self, g: &<Self as GroupoidFamily<R>>::Element<f64>) -> <Self as GroupoidFamily<R>>::Element<S>;
    /// `x` at scalar `S`.
    fn lift_base(&self, x: &<Self as GroupoidFamily<R>>::Base<f64>) -> <Self as GroupoidFamily<R>>::Base<S>;
}

/// The scalars the Legendre transforms, the DEL Newton solve and the constrained, nonholonomic
/// and time-dependent flows use: `Dual64` and `DualSVec64<R>` (first derivatives, one or `R`
/// directions per pass), `HyperDual64` (second derivatives by one-direction passes,
/// [`geom_core::hyper_dual`]) and `HyperDualSVec64<R, R>` (mixed second derivatives in one pass).
/// Every groupoid whose `GroupoidLift` is implemented for all scalars has it.
pub trait AdGroupoid<const R: usize>:
    GroupoidLift<Dual64, R>
    + GroupoidLift<DualSVec64<R>, R>
    + GroupoidLift<HyperDual64, R>
    + GroupoidLift<HyperDualSVec64<R, R>, R>
{
}
impl<T, const R: usize> AdGroupoid<R> for T where
    T: GroupoidLift<Dual64, R>
        + GroupoidLift<DualSVec64<R>, R>
        + GroupoidLift<HyperDual64, R>
        + GroupoidLift<HyperDualSVec64<R, R>, R>
{
}

/// `η ↦ ∂/∂η L(g')|_{η=0}` along a curve `g'(η)` through `g` (`curve` given at both dual types of
/// [`ad_gradient`]: `R` one-direction `Dual64` passes for small `R`, else one `DualSVec64<R>`
/// pass).
fn gradient_along<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    g: &Arrow<Gd, R>,
    left: bool,
) -> SVector<f64, R> {
    let side = if left { Side::Left } else { Side::Right };
    if let Some(grad) = gradient_by_jets(groupoid, lagrangian, g, side) {
        return grad;
    }
    let g1 = GroupoidLift::<Dual64, R>::lift(groupoid, g);
    let gr = GroupoidLift::<DualSVec64<R>, R>::lift(groupoid, g);
    ad_gradient(
        &SVector::zeros(),
        |e: &SVector<Dual64, R>| {
            let moved = if left {
                LieGroupoid::<Dual64, R>::left_curve(groupoid, &g1, e)
            } else {
                LieGroupoid::<Dual64, R>::right_curve(groupoid, &g1, e)
            };
            lagrangian.eval::<Dual64>(groupoid, &moved)
        },
        |e: &SVector<DualSVec64<R>, R>| {
            let moved = if left {
                LieGroupoid::<DualSVec64<R>, R>::left_curve(groupoid, &gr, e)
            } else {
                LieGroupoid::<DualSVec64<R>, R>::right_curve(groupoid, &gr, e)
            };
            lagrangian.eval::<DualSVec64<R>>(groupoid, &moved)
        },
    )
}

/// `∂/∂ξ_a L` along the invariant curves by the groupoid's closed-form jets
/// ([`GroupoidFamily::invariant_jet`]), one `Dual64` evaluation of `L` per direction; `None` if
/// the groupoid has none.
#[inline]
fn gradient_by_jets<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    g: &Arrow<Gd, R>,
    side: Side,
) -> Option<SVector<f64, R>> {
    let mut grad = SVector::<f64, R>::zeros();
    for a in 0..R {
        let jet = groupoid.invariant_jet(g, &unit(a), side)?;
        grad[a] = lagrangian.eval::<Dual64>(groupoid, &jet).eps;
    }
    Some(grad)
}

/// Elements of `Gd` at `f64`.
pub type Arrow<Gd, const R: usize> = <Gd as GroupoidFamily<R>>::Element<f64>;

/// A discrete Lagrangian `L: G -> R`, written once and generic over the scalar.
pub trait DiscreteLagrangian<Gd: GroupoidFamily<R>, const R: usize>: Send + Sync {
    /// `L(g)`.
    fn eval<S: Scalar>(&self, groupoid: &Gd, g: &Gd::Element<S>) -> S;
}

/// `F^-L(g)_a = X_a^→(g)(L) = ∂/∂η_a L(i(exp_{α(g)}(-η)) · g)|_{η=0}`.
pub fn legendre_minus<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    g: &Arrow<Gd, R>,
) -> SVector<f64, R> {
    gradient_along(groupoid, lagrangian, g, false)
}

/// `F^+L(g)_a = X_a^←(g)(L) = ∂/∂ξ_a L(g · exp_{β(g)}(ξ))|_{ξ=0}`.
pub fn legendre_plus<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    g: &Arrow<Gd, R>,
) -> SVector<f64, R> {
    gradient_along(groupoid, lagrangian, g, true)
}

/// The pairing matrix `P_ab = X_a^← Y_b^→ L(g) = ∂²/∂ξ_a∂η_b L(i(exp(-η)) · g · exp(ξ))|_0`
/// (left and right translations commute); on the pair groupoid `P = -D_12 L`... up to the sign
/// conventions of `X^→`: `P_ab = -∂²L/∂q0_b∂q1_a`.
pub fn pairing_matrix<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    g: &Arrow<Gd, R>,
) -> SMatrix<f64, R, R> {
    // by jets: the right jet along e_b (ε₁ = η_b), then its left jet along e_a (ε₂ = ξ_a)
    let by_jets = || {
        let mut p = SMatrix::<f64, R, R>::zeros();
        for b in 0..R {
            let right = groupoid.invariant_jet(g, &unit(b), Side::Right)?;
            for a in 0..R {
                let jet = groupoid.invariant_jet_dual(&right, &unit(a), Side::Left)?;
                p[(a, b)] = lagrangian.eval::<HyperDual64>(groupoid, &jet).eps1eps2;
            }
        }
        Some(p)
    };
    if let Some(p) = by_jets() {
        return p;
    }
    let gd = GroupoidLift::<HyperDual64, R>::lift(groupoid, g);
    let (_, _, _, mixed) = hyper_dual::partial_hessian(
        |xi, eta| {
            let left = LieGroupoid::<HyperDual64, R>::left_curve(groupoid, &gd, xi);
            let moved = LieGroupoid::<HyperDual64, R>::right_curve(groupoid, &left, eta);
            lagrangian.eval::<HyperDual64>(groupoid, &moved)
        },
        &SVector::zeros(),
        &SVector::zeros(),
    );
    mixed
}

/// `e_a`, the `a`-th basis vector of the fibre coordinates.
#[inline]
fn unit<const R: usize>(a: usize) -> SVector<f64, R> {
    SVector::from_fn(|i, _| if i == a { 1.0 } else { 0.0 })
}

/// `F^-L(exp_x ξ)` and its derivative in the fibre coordinates, the Newton Jacobian of the DEL
/// flow: `J_ab = ∂/∂ξ_b F^-L(exp_x ξ)_a = ∂²/∂ξ_b∂η_a L(i(exp(−η)) · exp_x(ξ))|_{η=0}`.
/// With the groupoid's second-order jets ([`GroupoidFamily::invariant_jet_dual`]): for each `b`
/// the arrow `exp_x(ξ + δe_b)` at `Dual64`, then its right jets along `e_a` at `HyperDual64`
/// (`J_ab` the `ε₁ε₂` part, `F^-L_a` the `ε₂` part): `R` charts at `Dual64` and `R²` evaluations
/// of `L`. Without jets: the `R²` one-direction hyper-dual passes of
/// `geom_core::hyper_dual::partial_hessian` through the chart and the product.
pub fn legendre_minus_derivative<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    gd: &Gd,
    lagrangian: &L,
    x: &<Gd as GroupoidFamily<R>>::Base<f64>,
    xi: &SVector<f64, R>,
) -> (SVector<f64, R>, SMatrix<f64, R, R>) {
    let by_jets = || {
        let (mut minus, mut jacobian) = (SVector::<f64, R>::zeros(), SMatrix::<f64, R, R>::zeros());
        // the chart's differential with the arrow `exp_x(ξ)`, where the groupoid gives it
        let differential =
            gd.fibre_differential(x, xi).map(|(c, side)| (c, side, LieGroupoid::<f64, R>::fibre_exp(gd, x, xi)));
        let xd = GroupoidLift::<Dual64, R>::lift_base(gd, x);
        for b in 0..R {
            // `exp_x(ξ + δe_b)` at `Dual64`: by the chart's differential, else by the chart
            let next = match &differential {
                Some((c, side, g)) => gd.invariant_jet(g, &c.column(b).into_owned(), *side)?,
                None => {
                    let seeded =
                        SVector::<Dual64, R>::from_fn(|i, _| Dual64::new(xi[i], if i == b { 1.0 } else { 0.0 }));
                    LieGroupoid::<Dual64, R>::fibre_exp(gd, &xd, &seeded)
                }
            };
            for a in 0..R {
                let v = lagrangian.eval::<HyperDual64>(gd, &gd.invariant_jet_dual(&next, &unit(a), Side::Right)?);
                jacobian[(a, b)] = v.eps1eps2;
                minus[a] = v.eps2;
            }
        }
        Some((minus, jacobian))
    };
    if let Some(done) = by_jets() {
        return done;
    }
    let xh = GroupoidLift::<HyperDual64, R>::lift_base(gd, x);
    let (_, _, grad_eta, mixed) = hyper_dual::partial_hessian(
        |xi, eta| {
            let next = LieGroupoid::<HyperDual64, R>::fibre_exp(gd, &xh, xi);
            let moved = LieGroupoid::<HyperDual64, R>::right_curve(gd, &next, eta);
            lagrangian.eval::<HyperDual64>(gd, &moved)
        },
        xi,
        &SVector::zeros(),
    );
    (grad_eta, mixed.transpose())
}

/// Check a groupoid's [`GroupoidFamily::fibre_differential`] at `(x, ξ)`: the largest
/// `distance` between the jet of `exp_x(ξ)` along `C e_b` (on the returned side) and the fibre
/// chart at [`Dual64`], `exp_x(ξ + δe_b)`, over `b`; `distance` compares two elements at `Dual64`
/// (value and derivative parts). `None` if the groupoid gives no differential (or no jet). A
/// correct closed form gives round-off; a wrong matrix or side gives the size of the derivative.
pub fn check_fibre_differential<Gd: GroupoidLift<Dual64, R>, const R: usize>(
    gd: &Gd,
    x: &<Gd as GroupoidFamily<R>>::Base<f64>,
    xi: &SVector<f64, R>,
    distance: impl Fn(&<Gd as GroupoidFamily<R>>::Element<Dual64>, &<Gd as GroupoidFamily<R>>::Element<Dual64>) -> f64,
) -> Option<f64> {
    let (c, side) = gd.fibre_differential(x, xi)?;
    let g = LieGroupoid::<f64, R>::fibre_exp(gd, x, xi);
    let xd = gd.lift_base(x);
    let mut worst = 0.0f64;
    for b in 0..R {
        let seeded = SVector::<Dual64, R>::from_fn(|i, _| Dual64::new(xi[i], if i == b { 1.0 } else { 0.0 }));
        let chart = LieGroupoid::<Dual64, R>::fibre_exp(gd, &xd, &seeded);
        let jet = gd.invariant_jet(&g, &c.column(b).into_owned(), side)?;
        let d = distance(&jet, &chart);
        // NaN stays NaN (`f64::max` would drop it)
        worst = if d.is_nan() || worst.is_nan() { f64::NAN } else { worst.max(d) };
    }
    Some(worst)
}

/// Regularity of `L` at `g` (docs/math.md §C.3): the pairing matrix and its condition number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Regularity<const R: usize> {
    /// `P_ab = X_a^← Y_b^→ L(g)`.
    pub pairing: SMatrix<f64, R, R>,
    /// The 1-norm condition number `|P|_1 |P^{-1}|_1`.
    pub condition: f64,
}

/// Pairing matrices with a condition number above this make [`check_regularity`] fail.
pub const REGULARITY_MAX_CONDITION: f64 = 1e12;

/// Measure regularity at `g`; [`GeomError::SingularMatrix`] (`what = "pairing matrix (L is not
/// regular)"`) if the LU of `P` finds a vanishing pivot or `cond_1(P) > 1e12`.
pub fn check_regularity<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    groupoid: &Gd,
    lagrangian: &L,
    g: &Arrow<Gd, R>,
) -> Result<Regularity<R>> {
    const WHAT: &str = "pairing matrix (L is not regular)";
    let pairing = pairing_matrix(groupoid, lagrangian, g);
    if !pairing.iter().all(|v| v.is_finite()) {
        return Err(GeomError::NonFinite { what: "pairing matrix" });
    }
    let inverse = geom_core::linalg::invert(&pairing, WHAT)?;
    let norm1 = |m: &SMatrix<f64, R, R>| m.column_iter().map(|c| c.abs().sum()).fold(0.0, f64::max);
    let condition = norm1(&pairing) * norm1(&inverse);
    if condition.is_nan() || condition > REGULARITY_MAX_CONDITION {
        return Err(GeomError::SingularMatrix { what: WHAT, iteration: 0 });
    }
    Ok(Regularity { pairing, condition })
}

/// The discrete Euler–Lagrange flow `g_k ↦ g_{k+1}` of `L` on `Gd`: find
/// `g_{k+1} = exp_{β(g_k)}(ξ)` with `F^-L(g_{k+1}) = F^+L(g_k)` by Newton on the fibre
/// coordinates `ξ` (Jacobian: the exact mixed second derivative), warm-started at
/// `ξ = fibre_log(g_k)`. Residual-only evaluations (the warm-start test) take `F^-L` by
/// first-derivative passes; each Newton iteration takes `F^-L` and its Jacobian together by the
/// `R²` one-direction hyper-dual passes of `geom_core::hyper_dual::partial_hessian`.
#[derive(Debug, Clone)]
pub struct DiscreteFlow<Gd, L> {
    groupoid: Gd,
    lagrangian: L,
    newton: NewtonOptions,
}

impl<Gd, L> DiscreteFlow<Gd, L> {
    /// The flow of `lagrangian` on `groupoid` with [`NewtonOptions::groupoid_flow`] and simplified Newton
    /// ([`JacobianUpdate::Frozen`]: the Jacobian `∂F^-L/∂ξ` at the warm start `ξ = fibre_log(g_k)`,
    /// factored once and re-evaluated only if the iteration contracts slowly; the final polishing
    /// iteration then lands on the same root to round-off as full Newton). The Jacobian is the
    /// expensive part of a step (`R²` hyper-dual passes through the group against `R`
    /// first-order passes for a residual).
    pub fn new(groupoid: Gd, lagrangian: L) -> Self {
        Self { groupoid, lagrangian, newton: NewtonOptions::groupoid_flow().with_jacobian(JacobianUpdate::Frozen) }
    }
    /// The same flow with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { newton, ..self }
    }
    /// The groupoid.
    pub fn groupoid(&self) -> &Gd {
        &self.groupoid
    }
    /// The discrete Lagrangian.
    pub fn lagrangian(&self) -> &L {
        &self.lagrangian
    }
}

impl<Gd, L> DiscreteFlow<Gd, L> {
    /// One DEL step from `g_k`; returns `g_{k+1}` and the Newton report. Errors: Newton
    /// non-convergence or a singular Jacobian (`L` not regular there), non-finite values, an
    /// undefined `fibre_log`.
    pub fn step<const R: usize>(&self, g: &Arrow<Gd, R>) -> Result<(Arrow<Gd, R>, NewtonReport)>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
    {
        let guess = LieGroupoid::<f64, R>::fibre_log(&self.groupoid, g)?;
        let (next, _, report) = self.solve_carried(g, &guess, &mut CarriedJacobian::new())?;
        Ok((next, report))
    }

    /// One step from `g`, Newton from the fibre coordinates `guess` with the Jacobian carried
    /// over from the previous step: the next arrow and its fibre coordinates.
    #[allow(clippy::type_complexity)]
    fn solve_carried<const R: usize>(
        &self,
        g: &Arrow<Gd, R>,
        guess: &SVector<f64, R>,
        carried: &mut CarriedJacobian<R, 1>,
    ) -> Result<(Arrow<Gd, R>, SVector<f64, R>, NewtonReport)>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
    {
        let target = legendre_plus(&self.groupoid, &self.lagrangian, g);
        let x = LieGroupoid::<f64, R>::target(&self.groupoid, g);
        solve_legendre_minus(&self.groupoid, &self.lagrangian, &x, &target, guess, &self.newton, carried)
    }

    /// `n` DEL steps from `*g`, written to `*g` when all have succeeded (on an error `*g` is
    /// left as it was). With the default simplified Newton ([`JacobianUpdate::Frozen`]) the
    /// Jacobian factored at one step serves the next ones, re-evaluated only when the iteration
    /// contracts slowly (the arrows of consecutive steps are close): most steps evaluate no
    /// second derivative at all. Newton starts from the fibre coordinates extrapolated from the
    /// last four arrows by the cubic through them, `4ξ_k − 6ξ_{k−1} + 4ξ_{k−2} − ξ_{k−3}`
    /// (`ξ_k = fibre_log(g_k)`, known from the solve that found `g_k`; fewer points at the
    /// start), an error of `O(h⁵)` instead of the `O(h²)` of `ξ_k`: with the linear convergence
    /// of a carried Jacobian, each order saves about one iteration. A step whose solve fails is solved again from `ξ_k` with a fresh Jacobian before
    /// the error is reported. Each step lands on the root of the same
    /// DEL residual as [`DiscreteFlow::step`], to the Newton tolerance and round-off (the
    /// Jacobian only steers the iteration).
    pub fn step_n<const R: usize>(&self, g: &mut Arrow<Gd, R>, n: usize) -> Result<FlowStats>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
    {
        let gd = &self.groupoid;
        let mut carried = CarriedJacobian::new();
        let mut stats = FlowStats::default();
        let mut work = g.clone();
        // fibre coordinates of the last arrows, newest first, `known` of them valid
        let mut history = [SVector::<f64, R>::zeros(); 4];
        let mut known = 0;
        for _ in 0..n {
            if known == 0 {
                history[0] = LieGroupoid::<f64, R>::fibre_log(gd, &work)?;
                known = 1;
            }
            let guess = extrapolate(&history, known);
            let current = history[0];
            let (next, xi, report) = match self.solve_carried(&work, &guess, &mut carried) {
                Ok(done) => done,
                // again from the plain guess with a fresh Jacobian (the failed solve emptied it)
                Err(_) if stats.steps > 0 => self.solve_carried(&work, &current, &mut carried)?,
                Err(e) => return Err(e),
            };
            stats.steps += 1;
            stats.iterations += report.iterations;
            stats.jacobian_updates += report.jacobian_updates;
            history.rotate_right(1);
            history[0] = xi;
            known = (known + 1).min(4);
            work = next;
        }
        *g = work;
        Ok(stats)
    }
}

/// The fibre coordinates of the next arrow extrapolated from the last `known` ones (`history`,
/// newest first) by the polynomial through them, up to cubic:
/// `4ξ_k − 6ξ_{k−1} + 4ξ_{k−2} − ξ_{k−3}`, an error of `O(h⁴)` along a smooth trajectory
/// (`ξ = O(h)`), so that a Newton iteration with a carried Jacobian starts close.
#[inline]
fn extrapolate<const R: usize>(history: &[SVector<f64, R>; 4], known: usize) -> SVector<f64, R> {
    let [a, b, c, d] = history;
    match known {
        0 | 1 => *a,
        2 => a * 2.0 - b,
        3 => (a - b) * 3.0 + c,
        _ => (a + c) * 4.0 - b * 6.0 - d,
    }
}

/// What [`DiscreteFlow::step_n`] did: steps, Newton iterations and Jacobian evaluations in all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlowStats {
    /// Steps taken.
    pub steps: usize,
    /// Newton iterations over all steps.
    pub iterations: usize,
    /// Jacobians evaluated and factored over all steps.
    pub jacobian_updates: usize,
}

/// `(F^-L)^{-1}`: the arrow `g = exp_x(ξ)` with source `x` and `F^-L(g) = μ` (`μ ∈ A*_x G`), by
/// Newton on the fibre coordinates `ξ` from `guess`, with the exact Jacobian `∂/∂ξ F^-L(exp_x ξ)`
/// (mixed second derivative of `L(i(exp(-η)) · exp_x(ξ))`). Defined where `L` is regular (Marrero
/// et al. 2015, Thm 2.16); errors: Newton non-convergence or a singular Jacobian.
pub fn invert_legendre_minus<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    gd: &Gd,
    lagrangian: &L,
    x: &<Gd as GroupoidFamily<R>>::Base<f64>,
    mu: &SVector<f64, R>,
    guess: &SVector<f64, R>,
    newton: &NewtonOptions,
) -> Result<(Arrow<Gd, R>, NewtonReport)> {
    invert_legendre_minus_carried(gd, lagrangian, x, mu, guess, newton, &mut CarriedJacobian::new())
}

/// [`invert_legendre_minus`] with the Newton Jacobian `carried` over from an earlier solve
/// ([`geom_core::newton::newton_blocks_carried`]: with [`JacobianUpdate::Frozen`] it is used until
/// the iteration contracts slowly); on return `carried` holds the last factored one.
pub fn invert_legendre_minus_carried<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    gd: &Gd,
    lagrangian: &L,
    x: &<Gd as GroupoidFamily<R>>::Base<f64>,
    mu: &SVector<f64, R>,
    guess: &SVector<f64, R>,
    newton: &NewtonOptions,
    carried: &mut CarriedJacobian<R, 1>,
) -> Result<(Arrow<Gd, R>, NewtonReport)> {
    let (g, _, report) = solve_legendre_minus(gd, lagrangian, x, mu, guess, newton, carried)?;
    Ok((g, report))
}

/// [`legendre_minus_derivative`] out of line: called once per Jacobian, it keeps the residual
/// closure of [`solve_legendre_minus`] small, to be inlined into the Newton loop (the
/// first-derivative passes of every iteration).
#[inline(never)]
fn legendre_minus_derivative_outlined<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    gd: &Gd,
    lagrangian: &L,
    x: &<Gd as GroupoidFamily<R>>::Base<f64>,
    xi: &SVector<f64, R>,
) -> (SVector<f64, R>, SMatrix<f64, R, R>) {
    legendre_minus_derivative(gd, lagrangian, x, xi)
}

/// [`invert_legendre_minus_carried`], also returning the fibre coordinates `ξ` of the arrow.
#[allow(clippy::type_complexity)]
fn solve_legendre_minus<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    gd: &Gd,
    lagrangian: &L,
    x: &<Gd as GroupoidFamily<R>>::Base<f64>,
    mu: &SVector<f64, R>,
    guess: &SVector<f64, R>,
    newton: &NewtonOptions,
    carried: &mut CarriedJacobian<R, 1>,
) -> Result<(Arrow<Gd, R>, SVector<f64, R>, NewtonReport)> {
    let target = *mu;
    // Block Newton with one block, so that evaluations without a Jacobian cost first-derivative
    // passes of F^-L(exp_x ξ) only, not the hyper-dual passes that give the Jacobian
    // (geom_core::hyper_dual: R² one-direction passes).
    let ([xi], report) = newton_blocks_carried::<R, 1>(
        #[inline(always)]
        |u: &[SVector<f64, R>; 1], jac: Option<&mut [[SMatrix<f64, R, R>; 1]; 1]>| match jac {
            Some(j) => {
                let (minus, jacobian) = legendre_minus_derivative_outlined(gd, lagrangian, x, &u[0]);
                j[0][0] = jacobian;
                Ok([minus - target])
            }
            None => {
                let next = LieGroupoid::<f64, R>::fibre_exp(gd, x, &u[0]);
                Ok([gradient_along(gd, lagrangian, &next, false) - target])
            }
        },
        &[*guess],
        newton,
        carried,
    )?;
    Ok((LieGroupoid::<f64, R>::fibre_exp(gd, x, &xi), xi, report))
}

/// The discrete Hamiltonian flow on `A*G`, `F^+L ∘ (F^-L)^{-1}` (docs/math.md §C.3, a Poisson map):
/// `(x, μ) ∈ A*_x G ↦ (β(g), F^+L(g))` with `g = (F^-L)^{-1}(x, μ)`.
#[derive(Debug, Clone)]
pub struct DiscreteHamiltonianFlow<Gd, L> {
    flow: DiscreteFlow<Gd, L>,
}

impl<Gd, L> DiscreteHamiltonianFlow<Gd, L> {
    /// The Hamiltonian flow of `lagrangian` on `groupoid` (Newton options of [`DiscreteFlow::new`]).
    pub fn new(groupoid: Gd, lagrangian: L) -> Self {
        Self { flow: DiscreteFlow::new(groupoid, lagrangian) }
    }
    /// The same flow with other Newton options.
    pub fn with_newton(self, newton: NewtonOptions) -> Self {
        Self { flow: self.flow.with_newton(newton) }
    }
    /// The underlying Lagrangian flow.
    pub fn lagrangian_flow(&self) -> &DiscreteFlow<Gd, L> {
        &self.flow
    }
    /// One step `(x, μ) ↦ (β(g), F^+L(g))`, returning also the arrow `g` (`guess`: fibre
    /// coordinates to start Newton from, e.g. the previous arrow's `fibre_log`).
    #[allow(clippy::type_complexity)]
    pub fn step<const R: usize>(
        &self,
        x: &<Gd as GroupoidFamily<R>>::Base<f64>,
        mu: &SVector<f64, R>,
        guess: &SVector<f64, R>,
    ) -> Result<(<Gd as GroupoidFamily<R>>::Base<f64>, SVector<f64, R>, Arrow<Gd, R>)>
    where
        Gd: AdGroupoid<R>,
        L: DiscreteLagrangian<Gd, R>,
    {
        let gd = self.flow.groupoid();
        let (g, _) = invert_legendre_minus(gd, self.flow.lagrangian(), x, mu, guess, &self.flow.newton)?;
        let plus = legendre_plus(gd, self.flow.lagrangian(), &g);
        Ok((LieGroupoid::<f64, R>::target(gd, &g), plus, g))
    }
}
