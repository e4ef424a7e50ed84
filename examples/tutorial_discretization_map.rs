//! Tutorial: add a discretization map (docs/tutorials/add_a_discretization_map.md).
//!
//! A new, genuinely nonlinear discretization map on `R^3` is defined **in this file only**,
//!
//! ```text
//!   R_d(x, v) = ( x - a(|v|²) v,  x + (1 - a(|v|²)) v ),     a(s) = θ_0 + κ s/(1 + s),
//! ```
//!
//! written once over the scalar (`discretization::MapModel`) and differentiated exactly by
//! `discretization::AutoDiffMap`. Then, without touching any crate:
//!
//! 1. the checkers of `discretization::checks`: the defining properties (docs/math.md §A.1), the AD
//!    derivatives against finite differences, symmetry preservation under SO(3) (it holds: the map
//!    only sees `|v|`) and under GL(3) (it fails), and the inverse `R_d^{-1}` by Newton;
//! 2. its cotangent lift `CotangentLiftIntegrator` (docs/math.md §B.1, the general 4-block system) on
//!    the Kepler problem in R³: symplecticity `MᵀΩM = Ω`, and Theorem 2 of Barbero-Liñán, Marrero,
//!    Martín de Diego, *From retraction maps to symplectic-momentum numerical integrators*, 2024,
//!    arXiv:2401.14800 — the angular momentum `x × p` is conserved to round-off — against a map
//!    that is not rotation-equivariant;
//! 3. composition (docs/math.md §B.3): the map is not self-adjoint (order 1); with its adjoint
//!    (`AdjointMap`) it gives order 2 (`adjoint_pair`) and order 4 (McLachlan, or the triple
//!    jump of the pair), every one still conserving `x × p`. Orders are measured against the exact
//!    Kepler orbit.
//!
//! Run: `cargo run --release --example tutorial_discretization_map`.

use discretization::checks::{check_euclidean_derivatives, check_euclidean_map, check_symmetry_preservation};
use discretization::composition::{adjoint_pair, mclachlan4, triple_jump};
use discretization::{
    AdjointMap, AutoDiffMap, Composition, CotangentLiftIntegrator, DiscretizationMap, MapModel, OneStep, PhaseState,
};
use geom_core::action::{GroupAction, LinearAction, RotationAction};
use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction};
use geom_core::lie::{LieGroup, So3};
use geom_core::{GeomError, Scalar};
use nalgebra::{DMatrix, Matrix3, SVector, Vector3};

// ------------------------------------------------------------------------------------------
// 1. The map, written once over the scalar
// ------------------------------------------------------------------------------------------

/// `R_d(x, v) = (x - a(|v|²) v, x + (1 - a(|v|²)) v)` with `a(s) = θ_0 + κ s/(1 + s)`.
///
/// * `R_d(x, 0) = (x, x)` and `R^2 - R^1 = v` exactly, so `∂_v R^2 - ∂_v R^1 = I` (docs/math.md §A.1);
/// * `R_d(Q x, Q v) = (Q × Q) R_d(x, v)` for every orthogonal `Q` (only `|v|` enters), so the
///   map is symmetry-preserving for rotations (docs/math.md §A.6), but not for GL(3);
/// * its adjoint `(x - (1 - a) v, x + a v)` differs from it unless `a ≡ 1/2`: order 1.
#[derive(Debug, Clone, Copy)]
struct SpeedDependentTheta {
    theta0: f64,
    kappa: f64,
}

impl SpeedDependentTheta {
    /// `a(s)` at any scalar.
    fn weight<S: Scalar>(&self, s: S) -> S {
        S::from(self.theta0) + s * S::from(self.kappa) / (S::from(1.0) + s)
    }
}

impl MapModel<3> for SpeedDependentTheta {
    fn name(&self) -> String {
        format!("speed-dependent theta (theta0 = {}, kappa = {})", self.theta0, self.kappa)
    }
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, 3>, v: &SVector<S, 3>) -> (SVector<S, 3>, SVector<S, 3>) {
        let a = self.weight(v.norm_squared());
        (x - v * a, x + v * (S::from(1.0) - a))
    }
}

/// The same construction with the weight read from `v_1²` only: still a discretization map, but
/// not rotation-equivariant (the control experiment for Theorem 2).
#[derive(Debug, Clone, Copy)]
struct AxisDependentTheta(SpeedDependentTheta);

impl MapModel<3> for AxisDependentTheta {
    fn name(&self) -> String {
        "axis-dependent theta (not equivariant)".into()
    }
    #[inline]
    fn eval<S: Scalar>(&self, x: &SVector<S, 3>, v: &SVector<S, 3>) -> (SVector<S, 3>, SVector<S, 3>) {
        let a = self.0.weight(v[0] * v[0]);
        (x - v * a, x + v * (S::from(1.0) - a))
    }
}

// ------------------------------------------------------------------------------------------
// 2. The Kepler problem in R^3 and its exact solution
// ------------------------------------------------------------------------------------------

/// `H = |p|²/2 - 1/|q|`, written once over the scalar; `AutoDiff` gives its derivatives.
#[derive(Debug, Clone, Copy)]
struct Kepler;

impl PhaseSpaceFunction<3> for Kepler {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

const ECC: f64 = 0.5;

/// The orbital plane: the planar orbit rotated by a fixed rotation (an inclined orbit).
fn plane() -> Matrix3<f64> {
    So3.exp(&Vector3::new(0.6, -0.3, 0.2))
}

/// The exact orbit with semi-major axis 1 from Kepler's equation `E - e sin E = t`.
fn exact(t: f64) -> PhaseState<3> {
    let mut ecc = t + ECC * t.sin();
    for _ in 0..60 {
        let d = (ecc - ECC * ecc.sin() - t) / (1.0 - ECC * ecc.cos());
        ecc -= d;
        if d.abs() < 1e-16 * (1.0 + ecc.abs()) {
            break;
        }
    }
    let (s, c) = ecc.sin_cos();
    let b = (1.0 - ECC * ECC).sqrt();
    let rate = 1.0 / (1.0 - ECC * c);
    let r = plane();
    PhaseState::new(r * Vector3::new(c - ECC, b * s, 0.0), r * Vector3::new(-s * rate, b * c * rate, 0.0))
}

/// Largest relative errors of `H` and of `x × p` over `n` steps of `h` from the perihelion.
fn conservation(method: &dyn OneStep<PhaseState<3>>, h: f64, n: usize) -> Result<(f64, f64), GeomError> {
    let ham = AutoDiff(Kepler);
    let mut s = exact(0.0);
    let (e0, l0) = (ham.value(&s.q, &s.p), RotationAction.momentum_map(&s.q, &s.p));
    let (mut de, mut dl) = (0.0f64, 0.0f64);
    for _ in 0..n {
        method.step(&mut s, h)?;
        de = de.max((ham.value(&s.q, &s.p) - e0).abs() / e0.abs());
        dl = dl.max((RotationAction.momentum_map(&s.q, &s.p) - l0).norm() / l0.norm());
    }
    Ok((de, dl))
}

/// Global error at `t_end` with `n` steps.
fn global_error(method: &dyn OneStep<PhaseState<3>>, t_end: f64, n: usize) -> Result<f64, GeomError> {
    let mut s = exact(0.0);
    let h = t_end / n as f64;
    for _ in 0..n {
        method.step(&mut s, h)?;
    }
    let x = exact(t_end);
    Ok((s.q - x.q).amax().max((s.p - x.p).amax()))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model = SpeedDependentTheta { theta0: 0.25, kappa: 0.5 };
    let map = AutoDiffMap::<_, 3>(model);
    println!("tutorial: a new discretization map, defined in this example only");
    println!("  R_d(x, v) = (x - a(|v|²) v, x + (1 - a(|v|²)) v),  a(s) = 0.25 + 0.5 s/(1 + s)\n");

    // --- 1. the checkers ------------------------------------------------------------------
    println!("1. discretization::checks");
    let points = [Vector3::new(0.3, -1.2, 0.8), Vector3::new(2.0, 0.0, -1.0), Vector3::new(-0.5, 0.4, 1.5)];
    let report = check_euclidean_map(&map, &points)?;
    report.require(1e-14)?;
    println!(
        "   defining properties (exact, AD Jacobian): R_d(x,0) = (x,x) {:.1e}, dR^2 - dR^1 = I {:.1e}",
        report.zero_defect, report.derivative_defect
    );
    let (x, v) = (Vector3::new(0.3, -1.2, 0.8), Vector3::new(0.5, 0.1, -0.7));
    let (p0, p1) = (Vector3::new(1.0, 2.0, -1.0), Vector3::new(-0.5, 0.3, 0.8));
    let fd = check_euclidean_derivatives(&map, &x, &v, &p0, &p1)?;
    println!("   AD Jacobian blocks and covector Hessian vs central differences:         {fd:.1e}");
    let rotations: Vec<Matrix3<f64>> =
        [Vector3::new(0.3, -1.0, 2.0), Vector3::new(-2.0, 0.4, 0.1)].iter().map(|w| So3.exp(w)).collect();
    let samples = [(x, v), (Vector3::new(1.0, 2.0, 3.0), Vector3::new(-0.5, 0.1, 0.4))];
    let so3 = check_symmetry_preservation(&map, &RotationAction, &rotations, &samples)?;
    so3.require(1e-13)?;
    let linear = [Matrix3::new(2.0, 0.5, 0.0, 0.0, 1.0, 0.3, 0.1, 0.0, 0.7)];
    let gl3 = check_symmetry_preservation(&map, &LinearAction::<3, 9>, &linear, &samples)?;
    println!("   symmetry preservation: SO(3) {:.1e} (preserving); GL(3) {:.1e} (not)", so3.max_defect, gl3.max_defect);
    let (q0, q1) = map.apply(&x, &v)?;
    let (xi, vi) = map.inverse(&q0, &q1)?;
    println!(
        "   inverse R_d^-1 by Newton: |R_d^-1(R_d(x, v)) - (x, v)| = {:.1e}",
        (xi - x).amax().max((vi - v).amax())
    );
    println!("   self-adjoint: {} (adjoint map: x - (1 - a)v, x + a v)", map.is_symmetric());

    // --- 2. the induced integrator ----------------------------------------------------------
    let base = CotangentLiftIntegrator::new(map, AutoDiff(Kepler));
    let adjoint = CotangentLiftIntegrator::new(AdjointMap(map), AutoDiff(Kepler));
    let control = CotangentLiftIntegrator::new(AutoDiffMap::<_, 3>(AxisDependentTheta(model)), AutoDiff(Kepler));
    let m = base.step_jacobian(&exact(0.0), 0.05)?;
    // Ω = [[0, I], [-I, 0]]
    let omega = DMatrix::from_fn(6, 6, |i, j| {
        if j == i + 3 {
            1.0
        } else if i == j + 3 {
            -1.0
        } else {
            0.0
        }
    });
    let symplectic = (m.transpose() * &omega * &m - &omega).amax();
    println!("\n2. CotangentLiftIntegrator (general 4-block system), Kepler in R³, e = {ECC}, inclined orbit");
    println!("   symplecticity of one step (h = 0.05, exact step Jacobian): |MᵀΩM - Ω| = {symplectic:.1e}");

    // --- 3. composition -------------------------------------------------------------------
    let pair = || Composition::with_adjoint(base.clone(), adjoint.clone(), adjoint_pair());
    let methods: Vec<(&str, Box<dyn OneStep<PhaseState<3>>>, usize)> = vec![
        ("R_d (order 1)", Box::new(base.clone()), 1),
        ("adjoint R_d* (order 1)", Box::new(adjoint.clone()), 1),
        ("R_d + R_d*, adjoint pair (order 2)", Box::new(pair()), 2),
        (
            "McLachlan 4 of R_d, R_d*",
            Box::new(Composition::with_adjoint(base.clone(), adjoint.clone(), mclachlan4())),
            4,
        ),
        ("triple jump of the adjoint pair", Box::new(Composition::new(pair(), triple_jump(2))?), 4),
        ("control: axis-dependent map", Box::new(control), 1),
    ];
    let (h, n) = (0.01, 20_000);
    println!(
        "\n3. conservation over {n} steps of h = {h} (t = {:.0}, {:.0} orbits) and measured orders",
        h * n as f64,
        h * n as f64 / std::f64::consts::TAU
    );
    println!("   {:<36} {:>14} {:>16} {:>8}", "method", "max |dH|/|H0|", "max |dL|/|L0|", "order");
    let t_end = 2.5;
    for (name, method, order) in &methods {
        let (de, dl) = conservation(method.as_ref(), h, n)?;
        let steps = match order {
            1 => 800,
            2 => 200,
            _ => 40,
        };
        let (e1, e2) = (global_error(method.as_ref(), t_end, steps)?, global_error(method.as_ref(), t_end, 2 * steps)?);
        println!("   {name:<36} {de:>14.2e} {dl:>16.2e} {:>8.2}", (e1 / e2).log2());
    }
    println!("   (L = x × p: conserved to round-off by every rotation-equivariant method, Theorem 2 of");
    println!("    Barbero-Liñán et al. 2024; the control map is symplectic but not equivariant, and L drifts)");
    Ok(())
}
