//! Example 4 of Barbero-Liñán, Marrero & Martín de Diego, *From retraction maps to
//! symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800 (docs/math.md §A.6): GL(n)
//! acting linearly on R^n, `x ↦ M x`, cotangent lift `(x, p) ↦ (M x, M^{-T} p)`, momentum map
//! `J_m(x, p) = pᵀ m x` for `m ∈ gl(n)` — all of them at once: `J = p xᵀ` (geom-core's
//! `LinearAction<3, 9>`, `J = vec(p xᵀ)`). Every θ-map is GL(n)-equivariant, hence (Theorem 2) its
//! cotangent-lift integrator conserves every `J_m` that is a first integral, to round-off.
//!
//! 1. `H(x, p) = f(xᵀp)`, `f(s) = s²/2 + cos(s)/10`, is invariant under the whole GL(3) action,
//!    so all nine `J_m` are first integrals (`ẋ = f' x`, `ṗ = -f' p`: `x` shrinks, `p` grows,
//!    `p xᵀ` stays). θ-maps and Störmer–Verlet against a nonlinear discretization map that is NOT
//!    GL-equivariant, `R^{1,2}(x, v) = x ∓ v/2 + ε |v|² a` with a fixed vector `a` (still
//!    symplectic).
//! 2. `H = |p|²/2 + |x|²/2 + |x|⁴/4` is invariant under O(3) ⊂ GL(3) only: `J_m` for skew `m`
//!    (the angular momentum) is a first integral. θ-maps against the same non-equivariant map and
//!    the classical explicit RK4 (not symplectic).
//!
//! Run: `cargo run --release --example gl_momentum`.

use discretization::composition::adjoint_pair;
use discretization::{
    Composition, CotangentLiftIntegrator, CovectorHessian, DiscretizationMap, EuclideanMap, MapJacobian, OneStep,
    PhaseState, ThetaMap,
};
use geom_core::action::{GroupAction, LinearAction};
use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction};
use geom_core::{GeomError, Scalar};
use nalgebra::{Matrix3, SVector, Vector3};

/// `H(x, p) = f(xᵀp)`, `f(s) = s²/2 + cos(s)/10`: GL(3)-invariant.
struct GlInvariant;

/// `H(x, p) = |p|²/2 + |x|²/2 + |x|⁴/4`: invariant under O(3) ⊂ GL(3) only, so `J_m` is a first
/// integral for skew `m` (the angular momentum `p_i x_j - p_j x_i`), not for the others.
struct Anharmonic;

impl PhaseSpaceFunction<3> for Anharmonic {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        let r2 = q.norm_squared();
        p.norm_squared() * S::from(0.5) + r2 * S::from(0.5) + r2 * r2 * S::from(0.25)
    }
}

impl PhaseSpaceFunction<3> for GlInvariant {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        let s = q.dot(p);
        s * s * S::from(0.5) + s.cos() * S::from(0.1)
    }
}

/// The non-equivariant map `R^{1,2}(x, v) = x ∓ v/2 + ε |v|² a` (a discretization map: the
/// quadratic term has zero derivative at `v = 0`; self-adjoint; not GL-equivariant since `a` is
/// fixed).
#[derive(Debug, Clone, Copy)]
struct ShiftedMidpoint {
    eps: f64,
    a: Vector3<f64>,
}

impl DiscretizationMap for ShiftedMidpoint {
    type Point = Vector3<f64>;
    type Tangent = Vector3<f64>;
    fn name(&self) -> String {
        format!("shifted midpoint (eps = {})", self.eps)
    }
    fn apply(&self, x: &Vector3<f64>, v: &Vector3<f64>) -> Result<(Vector3<f64>, Vector3<f64>), GeomError> {
        let shift = self.a * (self.eps * v.norm_squared());
        Ok((x - v * 0.5 + shift, x + v * 0.5 + shift))
    }
    fn inverse(&self, q0: &Vector3<f64>, q1: &Vector3<f64>) -> Result<(Vector3<f64>, Vector3<f64>), GeomError> {
        let v = q1 - q0;
        Ok(((q0 + q1) * 0.5 - self.a * (self.eps * v.norm_squared()), v))
    }
    fn distance(&self, a: &Vector3<f64>, b: &Vector3<f64>) -> f64 {
        (a - b).norm()
    }
    fn is_symmetric(&self) -> bool {
        true
    }
}

impl EuclideanMap<3> for ShiftedMidpoint {
    fn jacobian(&self, _x: &Vector3<f64>, v: &Vector3<f64>) -> MapJacobian<3> {
        let id = Matrix3::identity();
        let outer = self.a * v.transpose() * (2.0 * self.eps);
        MapJacobian { dx1: id, dv1: outer - id * 0.5, dx2: id, dv2: outer + id * 0.5 }
    }
    fn covector_hessian(
        &self,
        _x: &Vector3<f64>,
        _v: &Vector3<f64>,
        p0: &Vector3<f64>,
        p1: &Vector3<f64>,
    ) -> CovectorHessian<3> {
        let vv = Matrix3::identity() * (2.0 * self.eps * (p0 + p1).dot(&self.a));
        CovectorHessian { xx: Matrix3::zeros(), xv: Matrix3::zeros(), vv }
    }
}

/// The classical explicit RK4 on `ż = (H_p, -H_q)`: not symplectic.
struct Rk4<H>(H);

impl<H: PhaseSpaceDerivatives<3>> OneStep<PhaseState<3>> for Rk4<H> {
    fn name(&self) -> String {
        "explicit RK4".into()
    }
    fn order(&self) -> u32 {
        4
    }
    fn step(&self, s: &mut PhaseState<3>, h: f64) -> Result<(), GeomError> {
        discretization::check_step(h)?;
        let f = |q: &Vector3<f64>, p: &Vector3<f64>| {
            let (hq, hp) = self.0.gradient(q, p);
            (hp, -hq)
        };
        let (k1q, k1p) = f(&s.q, &s.p);
        let (k2q, k2p) = f(&(s.q + k1q * (h / 2.0)), &(s.p + k1p * (h / 2.0)));
        let (k3q, k3p) = f(&(s.q + k2q * (h / 2.0)), &(s.p + k2p * (h / 2.0)));
        let (k4q, k4p) = f(&(s.q + k3q * h), &(s.p + k3p * h));
        s.q += (k1q + k2q * 2.0 + k3q * 2.0 + k4q) * (h / 6.0);
        s.p += (k1p + k2p * 2.0 + k3p * 2.0 + k4p) * (h / 6.0);
        Ok(())
    }
}

fn theta<F: PhaseSpaceFunction<3>>(t: f64, f: F) -> CotangentLiftIntegrator<ThetaMap<3>, AutoDiff<F>> {
    CotangentLiftIntegrator::new(ThetaMap::new(t).expect("theta in [0, 1]"), AutoDiff(f))
}

/// The momenta `J_m = pᵀ m x` that are watched: all of `vec(p xᵀ)` (GL(3)), or the three skew
/// combinations `p_i x_j - p_j x_i` (O(3)).
fn momenta(s: &PhaseState<3>, skew_only: bool) -> SVector<f64, 9> {
    let j = LinearAction::<3, 9>.momentum_map(&s.q, &s.p); // j[r + 3c] = p_r x_c
    if skew_only {
        let l = |r: usize, c: usize| j[r + 3 * c] - j[c + 3 * r];
        SVector::<f64, 9>::from_column_slice(&[l(0, 1), l(1, 2), l(2, 0), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    } else {
        j
    }
}

/// `max_k |J_k - J_0|_∞ / |J_0|_∞` and `max_k |H_k - H_0|` over `steps` steps.
fn drift(
    method: &dyn OneStep<PhaseState<3>>,
    ham: &dyn PhaseSpaceDerivatives<3>,
    skew_only: bool,
    start: PhaseState<3>,
    h: f64,
    steps: usize,
) -> Result<(f64, f64, PhaseState<3>), GeomError> {
    let (j0, h0) = (momenta(&start, skew_only), ham.value(&start.q, &start.p));
    let mut s = start;
    let (mut dj, mut dh) = (0.0f64, 0.0f64);
    for _ in 0..steps {
        method.step(&mut s, h)?;
        dj = dj.max((momenta(&s, skew_only) - j0).amax());
        dh = dh.max((ham.value(&s.q, &s.p) - h0).abs());
    }
    Ok((dj / j0.amax(), dh, s))
}

fn main() -> Result<(), GeomError> {
    let start = PhaseState::new(Vector3::new(1.0, 0.5, -0.3), Vector3::new(0.3, -0.4, 0.5));
    let s0 = start.q.dot(&start.p);
    println!(
        "Example 4 of Barbero-Liñán et al. 2024: GL(3) acting on R^3, J_m(x, p) = p^T m x for all m in gl(3), i.e. J = p x^T"
    );
    println!("H(x, p) = f(x.p), f(s) = s^2/2 + cos(s)/10 (GL(3)-invariant: every J_m is a first integral)");
    println!(
        "x_0 = ({}, {}, {}), p_0 = ({}, {}, {}), s = x.p = {s0}, f'(s) = {:.4}",
        start.q[0],
        start.q[1],
        start.q[2],
        start.p[0],
        start.p[1],
        start.p[2],
        s0 - 0.1 * s0.sin()
    );
    let (h, steps) = (0.005, 20_000);
    println!("{steps} steps of h = {h} (t = {}): x shrinks by e^(f' t), p grows, p x^T stays\n", h * steps as f64);

    let shifted = ShiftedMidpoint { eps: 200.0, a: Vector3::new(1.0, 0.5, -0.2) };
    let g = || GlInvariant;
    let methods: Vec<(String, Box<dyn OneStep<PhaseState<3>>>, &str)> = vec![
        ("theta = 0 (symplectic Euler)".into(), Box::new(theta(0.0, g())), "GL-equivariant map"),
        ("theta = 0.25".into(), Box::new(theta(0.25, g())), "GL-equivariant map"),
        ("theta = 1/2 (midpoint)".into(), Box::new(theta(0.5, g())), "GL-equivariant map"),
        ("theta = 0.75".into(), Box::new(theta(0.75, g())), "GL-equivariant map"),
        ("theta = 1".into(), Box::new(theta(1.0, g())), "GL-equivariant map"),
        (
            "theta = 0 + adjoint (Stormer-Verlet)".into(),
            Box::new(Composition::with_adjoint(theta(0.0, g()), theta(1.0, g()), adjoint_pair())),
            "composition of equivariant",
        ),
        (shifted.name(), Box::new(CotangentLiftIntegrator::new(shifted, AutoDiff(g()))), "symplectic, NOT equivariant"),
    ];
    println!("{:<38} {:<28} {:>16} {:>12} {:>8}", "method", "kind", "max |dJ|/|J_0|", "max |dH|", "|x_end|");
    for (name, m, kind) in &methods {
        let (dj, dh, end) = drift(m.as_ref(), &AutoDiff(g()), false, start, h, steps)?;
        println!("{name:<38} {kind:<28} {dj:>16.3e} {dh:>12.3e} {:>8.4}", end.q.norm());
    }
    println!(
        "(|J_0| = |p_0 x_0^T|_max = {:.3}; the shift eps |v|^2 a needs a large eps here because |v| = h |f'| |x| ~ 2e-4)",
        momenta(&start, false).amax()
    );

    // Part 2: a Hamiltonian with O(1) dynamics whose symmetry is the subgroup O(3) of GL(3).
    let (h, steps) = (0.05, 20_000);
    let start = PhaseState::new(Vector3::new(1.0, 0.2, -0.3), Vector3::new(0.1, 0.8, 0.5));
    println!("\nH(x, p) = |p|^2/2 + |x|^2/2 + |x|^4/4 (O(3)-invariant): J_m for skew m, i.e. p_i x_j - p_j x_i");
    println!(
        "x_0 = ({}, {}, {}), p_0 = ({}, {}, {}); {steps} steps of h = {h} (t = {})\n",
        start.q[0],
        start.q[1],
        start.q[2],
        start.p[0],
        start.p[1],
        start.p[2],
        h * steps as f64
    );
    let a = || Anharmonic;
    let shifted = ShiftedMidpoint { eps: 0.5, a: Vector3::new(1.0, 0.5, -0.2) };
    let methods: Vec<(String, Box<dyn OneStep<PhaseState<3>>>, &str)> = vec![
        ("theta = 0 (symplectic Euler)".into(), Box::new(theta(0.0, a())), "GL-equivariant map"),
        ("theta = 1/2 (midpoint)".into(), Box::new(theta(0.5, a())), "GL-equivariant map"),
        ("theta = 1".into(), Box::new(theta(1.0, a())), "GL-equivariant map"),
        (shifted.name(), Box::new(CotangentLiftIntegrator::new(shifted, AutoDiff(a()))), "symplectic, NOT equivariant"),
        ("explicit RK4".into(), Box::new(Rk4(AutoDiff(a()))), "not symplectic"),
    ];
    println!("{:<38} {:<28} {:>16} {:>12}", "method", "kind", "max |dJ|/|J_0|", "max |dH|");
    for (name, m, kind) in &methods {
        let (dj, dh, _) = drift(m.as_ref(), &AutoDiff(a()), true, start, h, steps)?;
        println!("{name:<38} {kind:<28} {dj:>16.3e} {dh:>12.3e}");
    }
    println!("\nround-off level: ~1e-16 relative per step, ~1e-14 after 10^4 steps");
    Ok(())
}
