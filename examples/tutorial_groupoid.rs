//! Tutorial: add a Lie groupoid (docs/tutorials/add_a_groupoid.md).
//!
//! The **fundamental groupoid of the torus** `T^N × R^N ⇉ T^N` is defined in this file only, by
//! implementing `groupoid::LieGroupoid<S, N>` once for every scalar, plus `GroupoidFamily` and
//! `GroupoidLift` (the element types at every scalar). An arrow `(θ, u)` goes from the angles
//! `θ ∈ [-π, π)^N` to `wrap(θ + u)`, and remembers the displacement `u ∈ R^N` — including the
//! number of turns, which the pair groupoid `T^N × T^N` would forget, so that the discrete
//! Lagrangian `L(θ, u) = ½ uᵀ I u / h - (h/2)(V(θ) + V(θ + u))` is well defined for a periodic `V`.
//! It is the action groupoid of `R^N` acting on `T^N` by translation (docs/math.md §C.1).
//!
//! Then, without touching any crate:
//!
//! 1. the groupoid axioms and the fibre chart;
//! 2. `DiscreteFlow` for a rotating pendulum (`N = 1`): the angle stays in `[-π, π)`, the arrows
//!    carry the winding, and the flow is `integrators::classical::StormerVerlet` (unwrapped) to
//!    round-off;
//! 3. two rotors coupled by `V = -k cos(θ_1 - θ_2)` (`N = 2`): the diagonal rotation acts by
//!    groupoid automorphisms, and the Noether momentum `J = p_1 + p_2` is conserved
//!    (`noether::momentum_map`); with a 2:1 gear `φ(θ, u) = u_1 - 2 u_2 = 0`,
//!    `ConstrainedFlow` and `noether::check_conservation` (the constrained momentum
//!    `F^+L(g, λ)(X)`), and the comparison with Störmer–Verlet on the reduced one-degree system.
//!
//! Run: `cargo run --release --example tutorial_groupoid`.

use std::f64::consts::{PI, TAU};

use discretization::{OneStep, PhaseState};
use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction, ScalarDerivatives, ScalarFunction};
use geom_core::newton::NewtonOptions;
use geom_core::{GeomError, Result, Scalar};
use groupoid::constraints::{Constraints, constraint_residual};
use groupoid::lagrangian::{GroupoidFamily, GroupoidLift};
use groupoid::noether::{ConstantSection, check_conservation, invariance_defect, momentum_map};
use groupoid::{
    ConstrainedFlow, DiscreteFlow, DiscreteLagrangian, LieGroupoid, SigmaPoint, check_regularity,
    invert_legendre_minus, legendre_plus,
};
use integrators::classical::StormerVerlet;
use nalgebra::{SMatrix, SVector, Vector1, Vector2};

// ------------------------------------------------------------------------------------------
// 1. The groupoid
// ------------------------------------------------------------------------------------------

/// The fundamental groupoid `T^N × R^N ⇉ T^N` of the torus, angles in `[-π, π)`.
///
/// | | |
/// | --- | --- |
/// | arrow | `(θ, u)`, `θ ∈ [-π, π)^N`, `u ∈ R^N` |
/// | source, target | `α = θ`, `β = wrap(θ + u)` |
/// | identity, inverse | `ε(θ) = (θ, 0)`, `(θ, u)^{-1} = (wrap(θ + u), -u)` |
/// | product | `(θ, u)(wrap(θ + u), u') = (θ, u + u')` |
/// | fibre chart | `exp_θ(ξ) = (θ, ξ)`, `fibre_log(θ, u) = u` |
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TorusGroupoid<const N: usize>;

/// The representative of an angle in `[-π, π)`; the shift is a constant, so derivatives pass
/// through unchanged at dual numbers.
fn wrap<S: Scalar>(t: S) -> S {
    t - S::from(TAU * (t.re() / TAU + 0.5).floor())
}

fn wrap_all<S: Scalar, const N: usize>(x: &SVector<S, N>) -> SVector<S, N> {
    x.map(wrap)
}

impl<S: Scalar, const N: usize> LieGroupoid<S, N> for TorusGroupoid<N> {
    type Element = (SVector<S, N>, SVector<S, N>);
    type Base = SVector<S, N>;

    fn name(&self) -> String {
        format!("fundamental groupoid of T^{N}")
    }
    fn source(&self, g: &Self::Element) -> SVector<S, N> {
        g.0
    }
    fn target(&self, g: &Self::Element) -> SVector<S, N> {
        wrap_all(&(g.0 + g.1))
    }
    fn identity(&self, x: &SVector<S, N>) -> Self::Element {
        (*x, SVector::zeros())
    }
    fn inverse(&self, g: &Self::Element) -> Self::Element {
        (self.target(g), -g.1)
    }
    /// `(θ, u)(θ', u') = (θ, u + u')` for `θ' = wrap(θ + u)` (unchecked: `compose` checks).
    fn multiply(&self, g: &Self::Element, h: &Self::Element) -> Self::Element {
        (g.0, g.1 + h.1)
    }
    /// The distance on the torus, `|wrap(a - b)|`.
    fn base_distance(&self, a: &SVector<S, N>, b: &SVector<S, N>) -> f64 {
        wrap_all(&(a - b)).map(|v| v.re()).norm()
    }
    fn fibre_exp(&self, x: &SVector<S, N>, xi: &SVector<S, N>) -> Self::Element {
        (*x, *xi)
    }
    fn fibre_log(&self, g: &Self::Element) -> Result<SVector<S, N>> {
        Ok(g.1)
    }
}

/// The element and base types at every scalar, so that a discrete Lagrangian is written once.
impl<const N: usize> GroupoidFamily<N> for TorusGroupoid<N> {
    type Element<S: Scalar> = (SVector<S, N>, SVector<S, N>);
    type Base<S: Scalar> = SVector<S, N>;
}

/// `f64` arrows as arrows at scalar `S` (zero derivative parts): what the Legendre transforms and
/// the Newton Jacobians evaluate at `DualSVec64<N>` and `HyperDualSVec64<N, N>`.
impl<S: Scalar, const N: usize> GroupoidLift<S, N> for TorusGroupoid<N> {
    fn lift(&self, g: &(SVector<f64, N>, SVector<f64, N>)) -> (SVector<S, N>, SVector<S, N>) {
        (g.0.map(S::from), g.1.map(S::from))
    }
    fn lift_base(&self, x: &SVector<f64, N>) -> SVector<S, N> {
        x.map(S::from)
    }
}

// ------------------------------------------------------------------------------------------
// 2. Discrete Lagrangians and a constraint on it
// ------------------------------------------------------------------------------------------

/// `L(θ, u) = ½ uᵀ I u / h - (h/2)(V(θ) + V(θ + u))` (trapezoidal; `V` periodic): its discrete
/// Euler–Lagrange equations are Störmer–Verlet for `H = ½ pᵀ I^{-1} p + V(θ)` (docs/math.md §C.3,
/// pair row: `p_k = -D_1 L`, `p_{k+1} = D_2 L`).
#[derive(Debug, Clone, Copy)]
struct Trapezoidal<V, const N: usize> {
    h: f64,
    inertia: SVector<f64, N>,
    potential: V,
}

impl<V: ScalarFunction<N>, const N: usize> DiscreteLagrangian<TorusGroupoid<N>, N> for Trapezoidal<V, N> {
    #[inline]
    fn eval<S: Scalar>(&self, _: &TorusGroupoid<N>, g: &(SVector<S, N>, SVector<S, N>)) -> S {
        let (theta, u) = g;
        let kinetic = self.inertia.map(S::from).component_mul(u).dot(u) * S::from(0.5 / self.h);
        kinetic - (self.potential.eval(theta) + self.potential.eval(&(theta + u))) * S::from(0.5 * self.h)
    }
}

/// Pendulum `V(θ) = -ω² cos θ`.
#[derive(Debug, Clone, Copy)]
struct Gravity(f64);
impl ScalarFunction<1> for Gravity {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 1>) -> S {
        -q[0].cos() * S::from(self.0)
    }
}

/// Coupling `V(θ) = -k cos(θ_1 - θ_2)`: invariant under the diagonal rotation `θ ↦ θ + t(1, 1)`.
#[derive(Debug, Clone, Copy)]
struct Coupling(f64);
impl ScalarFunction<2> for Coupling {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
        -(q[0] - q[1]).cos() * S::from(self.0)
    }
}

/// A gear `φ(θ, u) = u_1 - ρ u_2 = 0` on the arrows (one multiplier per step, docs/math.md §C.4);
/// invariant under the diagonal rotation (it only sees `u`).
#[derive(Debug, Clone, Copy)]
struct Gear(f64);
impl Constraints<TorusGroupoid<2>, 2, 1> for Gear {
    #[inline]
    fn eval<S: Scalar>(&self, _: &TorusGroupoid<2>, g: &(SVector<S, 2>, SVector<S, 2>)) -> SVector<S, 1> {
        Vector1::new(g.1[0] - g.1[1] * S::from(self.0))
    }
}

/// `H = ½ p²/m + V(q)` on `T*R` (unwrapped angle), for the comparison with Störmer–Verlet.
#[derive(Debug, Clone, Copy)]
struct Rotor<V> {
    mass: f64,
    potential: V,
}
impl<V: ScalarFunction<1>> PhaseSpaceFunction<1> for Rotor<V> {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
        p[0] * p[0] * S::from(0.5 / self.mass) + self.potential.eval(q)
    }
}

/// The geared pair reduced to `θ_2`: `θ_1 = ρ θ_2 + c`, so `V_eff(q) = -k cos((ρ - 1) q + c)`.
#[derive(Debug, Clone, Copy)]
struct GearedCoupling {
    k: f64,
    ratio: f64,
    offset: f64,
}
impl ScalarFunction<1> for GearedCoupling {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 1>) -> S {
        -(q[0] * S::from(self.ratio - 1.0) + S::from(self.offset)).cos() * S::from(self.k)
    }
}

// ------------------------------------------------------------------------------------------
// 3. Checks and runs
// ------------------------------------------------------------------------------------------

type Arrow<const N: usize> = (SVector<f64, N>, SVector<f64, N>);

/// `|wrap(a.θ - b.θ)| + |a.u - b.u|`.
fn distance<const N: usize>(a: &Arrow<N>, b: &Arrow<N>) -> f64 {
    LieGroupoid::<f64, N>::base_distance(&TorusGroupoid::<N>, &a.0, &b.0) + (a.1 - b.1).norm()
}

/// The groupoid axioms on composable triples with long arrows (several turns).
fn axioms() -> Result<f64> {
    let gd = TorusGroupoid::<2>;
    let mut worst = 0.0f64;
    for (t, u, v, w) in [
        (Vector2::new(0.3, -2.9), Vector2::new(7.0, -0.4), Vector2::new(-12.5, 3.3), Vector2::new(0.2, 9.9)),
        (Vector2::new(-3.1, 3.0), Vector2::new(0.5, 0.5), Vector2::new(2.0, -7.0), Vector2::new(-4.0, 1.0)),
    ] {
        let g = (t, u);
        let h = (LieGroupoid::<f64, 2>::target(&gd, &g), v);
        let k = (LieGroupoid::<f64, 2>::target(&gd, &h), w);
        let gh = gd.compose(&g, &h)?;
        let assoc = distance(&gd.compose(&gh, &k)?, &gd.compose(&g, &gd.compose(&h, &k)?)?);
        let ends =
            gd.base_distance(&gd.source(&gh), &gd.source(&g)) + gd.base_distance(&gd.target(&gh), &gd.target(&h));
        let units = distance(&gd.compose(&gd.identity(&gd.source(&g)), &g)?, &g)
            + distance(&gd.compose(&g, &gd.identity(&gd.target(&g)))?, &g);
        let inverses = distance(&gd.compose(&g, &gd.inverse(&g))?, &gd.identity(&gd.source(&g)))
            + distance(&gd.compose(&gd.inverse(&g), &g)?, &gd.identity(&gd.target(&g)));
        let chart = distance(&gd.fibre_exp(&gd.source(&g), &gd.fibre_log(&g)?), &g);
        let in_range = g.0.iter().chain(gd.target(&g).iter()).all(|a| (-PI..PI).contains(a));
        if !in_range || gd.compose(&g, &k).is_ok() {
            return Err(GeomError::InvalidParameter { what: "torus groupoid", reason: "axiom check failed".into() });
        }
        worst = worst.max(assoc).max(ends).max(units).max(inverses).max(chart);
    }
    Ok(worst)
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    println!("tutorial: a new Lie groupoid, the fundamental groupoid T^N x R^N of the torus\n");
    println!("1. groupoid axioms (associativity, source/target of products, units, inverses, chart),");
    println!("   arrows of up to 2 turns, non-composable pairs refused: max defect {:.1e}", axioms()?);

    // --- 2. rotating pendulum vs Störmer–Verlet ------------------------------------------------
    let (h, n) = (0.05, 20_000);
    let pendulum = Trapezoidal { h, inertia: Vector1::new(1.0), potential: Gravity(1.0) };
    let flow = DiscreteFlow::new(TorusGroupoid::<1>, pendulum);
    let (theta0, p0) = (Vector1::new(0.0), Vector1::new(2.2)); // above the separatrix (p = 2)
    // the first arrow: g_0 = (F^-L)^{-1}(θ_0, p_0)
    let (mut g, _) =
        invert_legendre_minus(&TorusGroupoid::<1>, &pendulum, &theta0, &p0, &(p0 * h), &NewtonOptions::integrator())?;
    let ham = AutoDiff(Rotor { mass: 1.0, potential: Gravity(1.0) });
    let sv = StormerVerlet::new(ham);
    let mut s = PhaseState::new(theta0, p0);
    let e0 = ham.value(&s.q, &s.p);
    // node k + 1 of the groupoid flow: the angle β(g_k) and the momentum F^+L(g_k)
    let node = |g: &Arrow<1>| {
        (LieGroupoid::<f64, 1>::target(&TorusGroupoid::<1>, g), legendre_plus(&TorusGroupoid::<1>, &pendulum, g))
    };
    let (mut d1, mut dq, mut dp, mut de) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut winding, mut iters) = (0.0f64, 0usize);
    for _ in 0..n {
        sv.step(&mut s, h)?; // node k + 1 of Störmer–Verlet, from (θ_0, p_0)
        let (theta, p) = node(&g);
        dq = dq.max(wrap(s.q[0] - theta[0]).abs());
        dp = dp.max((s.p - p).amax());
        de = de.max((ham.value(&theta, &p) - e0).abs() / e0.abs());
        winding += g.1[0];
        let (next, report) = flow.step(&g)?;
        iters = iters.max(report.iterations);
        // one Störmer–Verlet step from the same node
        let mut one = PhaseState::new(theta, p);
        sv.step(&mut one, h)?;
        let (theta1, p1) = node(&next);
        d1 = d1.max(wrap(one.q[0] - theta1[0]).abs()).max((one.p - p1).amax());
        g = next;
    }
    println!("\n2. rotating pendulum, V = -cos θ, p0 = 2.2, h = {h}, {n} steps: DiscreteFlow on T x R");
    println!("   angle kept in [-pi, pi); sum of arrow displacements = {winding:.6} = {:.1} turns", winding / TAU);
    println!("   unwrapped Störmer–Verlet angle q_SV(T) - q_0         = {:.6}", s.q[0] - theta0[0]);
    println!("   vs integrators::classical::StormerVerlet: one step from the same node {d1:.1e};");
    println!("   whole run max |wrap(q - θ)| = {dq:.1e}, max |Δp| = {dp:.1e} (round-off, spread along the orbit)");
    println!("   energy error max |ΔE|/E = {de:.1e} (bounded); Newton iterations per step <= {iters}");
    println!(
        "   regularity at the last arrow: cond_1 = {:.3}",
        check_regularity(&TorusGroupoid::<1>, &pendulum, &g)?.condition
    );

    // --- 3. coupled rotors: Noether, then a gear constraint -------------------------------------
    let (k, inertia) = (1.5, Vector2::new(1.0, 3.0));
    let rotors = Trapezoidal { h, inertia, potential: Coupling(k) };
    let gd = TorusGroupoid::<2>;
    let diagonal = ConstantSection(SMatrix::<f64, 2, 1>::new(1.0, 1.0)); // X_ξ = (1, 1) in fibre coordinates
    let mut g: Arrow<2> = (Vector2::new(0.4, -1.0), Vector2::new(2.0, -0.3) * h);
    let flow = DiscreteFlow::new(gd, rotors);
    let j0 = momentum_map(&gd, &rotors, &diagonal, &g)[0];
    let (mut dj, mut inv) = (0.0f64, 0.0f64);
    for _ in 0..n {
        g = flow.step(&g)?.0;
        dj = dj.max((momentum_map(&gd, &rotors, &diagonal, &g)[0] - j0).abs());
        inv = inv.max(invariance_defect(&gd, &rotors, &diagonal, &g));
    }
    println!("\n3. two rotors, I = (1, 3), V = -1.5 cos(θ1 - θ2), {n} steps of h = {h}");
    println!("   unconstrained DiscreteFlow: J = p1 + p2 = {j0:.6}, max |ΔJ| = {dj:.1e} (invariance defect {inv:.1e})");

    let ratio = 2.0;
    let gear = Gear(ratio);
    let constrained = ConstrainedFlow::<_, _, _, 3>::new(gd, rotors, gear);
    let (theta, w) = (Vector2::new(0.4, -1.0), 0.8);
    let start = SigmaPoint::new((theta, Vector2::new(ratio * w, w) * h), Vector1::new(0.0));
    let trajectory = constrained.trajectory(&start, n)?;
    let noether = check_conservation(&gd, &rotors, &gear, &diagonal, &trajectory);
    let residual = trajectory.iter().map(|pt| constraint_residual(&gd, &gear, &pt.g)).fold(0.0, f64::max);
    let regularity = constrained.regularity(&trajectory[n])?;
    println!("   gear u1 = 2 u2, ConstrainedFlow (M = 2 + 1 unknowns per step):");
    println!(
        "   constrained momentum F^+L(g, λ)(X) = {:.6}: max drift {:.1e}, |F^+L(g_k) - F^-L(g_k+1)| {:.1e}",
        noether.momenta[0][0], noether.max_drift, noether.max_mismatch
    );
    println!("   max |φ(g_k)| = {residual:.1e}; step Jacobian cond_1 = {:.2e}", regularity.condition_minus);

    // the geared pair is one rotor θ2 with mass ρ²I1 + I2 in V_eff(q) = -k cos((ρ - 1) q + c)
    let potential = GearedCoupling { k, ratio, offset: theta[0] - ratio * theta[1] };
    let mass = ratio * ratio * inertia[0] + inertia[1];
    let reduced = StormerVerlet::new(AutoDiff(Rotor { mass, potential }));
    // p_0 = -D_1 L_red(q_0, q_0 + w h) = m w + (h/2) V_eff'(q_0)
    let q0 = Vector1::new(theta[1]);
    let mut s = PhaseState::new(q0, Vector1::new(mass * w) + AutoDiff(potential).gradient(&q0) * (0.5 * h));
    let mut dq = 0.0f64;
    for pt in &trajectory {
        reduced.step(&mut s, h)?;
        let node = LieGroupoid::<f64, 2>::target(&gd, &pt.g);
        dq = dq.max(wrap(s.q[0] - node[1]).abs());
    }
    println!("   vs StormerVerlet on the reduced rotor (mass {mass}): max |wrap(q - θ2)| = {dq:.1e}");
    Ok(())
}
