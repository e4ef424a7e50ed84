//! Spherical pendulum by Lagrange multipliers on the pair groupoid of R³ (docs/math.md §C.4
//! warning, §C.6.1): the SHAKE/RATTLE node-multiplier form, its well-defined outputs, Noether,
//! energy, and the non-regularity of the naive `N = S × S`.

use geom_core::action::RotationAction;
use geom_core::{GeomError, Scalar};
use groupoid::constraints::{BaseConstraints, ConstrainedFlow, Constraints, HolonomicFlow, SigmaPoint};
use groupoid::noether::{PairDiagonal, invariance_defect, momentum_map};
use groupoid::{DiscreteLagrangian, PairGroupoid};
use nalgebra::{SVector, Vector3};

const GRAVITY: f64 = 9.81;
type Pair = (Vector3<f64>, Vector3<f64>);

/// `L̂ = |q1 − q0|²/(2h) − (h/2)(V(q0) + V(q1))`, `V = g e3·q` (docs/math.md §C.6.1).
struct Pendulum {
    h: f64,
}
impl DiscreteLagrangian<PairGroupoid<3>, 3> for Pendulum {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, g: &(Vector3<S>, Vector3<S>)) -> S {
        let h = S::from(self.h);
        (g.1 - g.0).norm_squared() / (h * S::from(2.0)) - h * S::from(0.5 * GRAVITY) * (g.0[2] + g.1[2])
    }
}

/// `c(q) = ½(|q|² − 1)`.
struct UnitSphere;
impl BaseConstraints<PairGroupoid<3>, 3, 1> for UnitSphere {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, q: &Vector3<S>) -> SVector<S, 1> {
        SVector::from([(q.norm_squared() - S::from(1.0)) * S::from(0.5)])
    }
}

/// The same sphere imposed on both ends, `N = S × S`, `φ = (c(q0), c(q1))` (not regular).
struct BothEnds;
impl Constraints<PairGroupoid<3>, 3, 2> for BothEnds {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, g: &(Vector3<S>, Vector3<S>)) -> SVector<S, 2> {
        let c = |q: &Vector3<S>| (q.norm_squared() - S::from(1.0)) * S::from(0.5);
        SVector::from([c(&g.0), c(&g.1)])
    }
}

fn initial(h: f64) -> Pair {
    // q0 on the sphere, first step along a tangent direction, projected back to the sphere
    let q0 = Vector3::new(0.6, 0.0, -0.8);
    let v = Vector3::new(0.0, 1.2, 0.0);
    let q1 = (q0 + v * h).normalize();
    (q0, q1)
}

fn energy(q: &Vector3<f64>, p: &Vector3<f64>) -> f64 {
    0.5 * p.norm_squared() + GRAVITY * q[2]
}

/// Independent reference: SHAKE for `q'' = −∇V − Λ q` in closed form,
/// `q_{k+1} = a + μ q_k`, `a = 2q_k − q_{k−1} − h²∇V`, `|q_{k+1}| = 1` (root nearest to 0).
fn shake_reference(g: &Pair, h: f64) -> Vector3<f64> {
    let (qm, q) = g;
    let a = q * 2.0 - qm - Vector3::new(0.0, 0.0, GRAVITY) * (h * h);
    let b = a.dot(q);
    let mu = -b + (b * b - a.norm_squared() + q.norm_squared()).sqrt();
    a + q * mu
}

#[test]
fn shake_step_matches_closed_form_reference() {
    // Same scheme, two implementations: differences are round-off amplified by the (integrable,
    // non-chaotic) flow; 1e-11 over 2000 steps of h = 0.01 (t = 20) leaves a margin of ~10x over
    // the measured 5e-13 and fails for any error in the DEL (an O(h²) change gives ~1e-4).
    let h = 0.01;
    let flow = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, Pendulum { h }, UnitSphere);
    let mut g = initial(h);
    let mut reference = g;
    let mut worst: f64 = 0.0;
    for _ in 0..2000 {
        let (next, report) = flow.step(&g).unwrap();
        assert!(report.iterations <= 5, "{report:?}");
        let r1 = shake_reference(&reference, h);
        reference = (reference.1, r1);
        worst = worst.max((next.1 - reference.1).norm());
        g = next;
    }
    println!("SHAKE vs closed form: max |q_k − q_k^ref| = {worst:.3e}");
    assert!(worst < 1e-11, "{worst:e}");
}

#[test]
fn constraint_noether_momentum_and_bounded_energy() {
    let h = 0.01;
    let n = 100_000; // t = 1000, ~ 500 periods of small oscillation
    let flow = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, Pendulum { h }, UnitSphere);
    let sym = PairDiagonal(RotationAction);
    let mut g = initial(h);
    let j0 = momentum_map(&PairGroupoid::<3>, flow.lagrangian(), &sym, &g)[2];
    let p0 = flow.projected_momentum(&g).unwrap();
    let e0 = energy(&g.1, &p0);
    let (mut max_c, mut max_dj, mut max_de, mut max_inv) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let (mut first_half, mut second_half) = (0.0f64, 0.0f64);
    for k in 0..n {
        let (next, _) = flow.step(&g).unwrap();
        g = next;
        let q = g.1;
        max_c = max_c.max((0.5 * (q.norm_squared() - 1.0)).abs());
        // Noether: J_k = <D_2 L̂, e3 × q_k> through the generic momentum map (docs/math.md §C.5)
        // ...
        let j = momentum_map(&PairGroupoid::<3>, flow.lagrangian(), &sym, &g)[2];
        max_dj = max_dj.max((j - j0).abs());
        // ... equals e3·(q_k × P p_k) with the projected (well-defined) momentum
        let p = flow.projected_momentum(&g).unwrap();
        assert!(p.dot(&q).abs() < 1e-12, "projected momentum not tangent");
        if k % 1000 == 0 {
            assert!((q.cross(&p)[2] - j).abs() < 1e-12);
            max_inv = max_inv.max(invariance_defect::<_, _, _, 3, 3>(
                &PairGroupoid::<3>,
                flow.lagrangian(),
                &PairDiagonal(VerticalOnly),
                &g,
            ));
        }
        let de = (energy(&q, &p) - e0).abs();
        max_de = max_de.max(de);
        if k < n / 2 {
            first_half = first_half.max(de);
        } else {
            second_half = second_half.max(de);
        }
    }
    println!(
        "spherical pendulum, {n} SHAKE steps h = {h}: max|c(q)| = {max_c:.2e}, max|ΔJ_3| = {max_dj:.2e}, \
         max|ΔE| = {max_de:.2e} (first half {first_half:.2e}, second half {second_half:.2e}), invariance defect {max_inv:.1e}"
    );
    // constraint: Newton solves c(q_{k+1}) = 0 to residual 1e-14 (|c| ~ eps near |q| = 1)
    assert!(max_c < 1e-14, "{max_c:e}");
    // Noether: each step changes J by (DEL residual ≤ 1e-14)·|e3 × q| + round-off; 1e5 steps
    // with random-sign errors give ~ sqrt(n)·1e-15 ≈ 3e-13, bound 1e-11
    assert!(max_dj < 1e-11, "{max_dj:e}");
    assert!(max_inv < 1e-12, "{max_inv:e}");
    // energy: bounded, O(h²) oscillation (measured 3.7e-4 = 3.7 h² for E ~ 10), and no drift: the second
    // half of the run does not exceed the first by more than 20 % (a drifting energy, e.g. from a
    // non-symplectic projection, grows linearly and fails this)
    assert!(max_de < 1e-3, "{max_de:e}");
    assert!(second_half < 1.2 * first_half, "{first_half:e} vs {second_half:e}");
}

/// Rotations about e3 only: the symmetry of the pendulum in gravity (the `SO(3)` action restricted
/// to its third generator; the other two columns are zero).
#[derive(Debug)]
struct VerticalOnly;
impl geom_core::action::GroupAction<f64, 3> for VerticalOnly {
    type Group = geom_core::lie::So3;
    type Point = Vector3<f64>;
    type Tangent = Vector3<f64>;
    type Covector = Vector3<f64>;
    fn name(&self) -> String {
        "rotations about e3".into()
    }
    fn group(&self) -> &geom_core::lie::So3 {
        &geom_core::lie::So3
    }
    fn act(&self, g: &nalgebra::Matrix3<f64>, q: &Vector3<f64>) -> Vector3<f64> {
        g * q
    }
    fn infinitesimal_generator(&self, xi: &Vector3<f64>, q: &Vector3<f64>) -> Vector3<f64> {
        Vector3::new(0.0, 0.0, xi[2]).cross(q)
    }
    fn tangent_lift(
        &self,
        g: &nalgebra::Matrix3<f64>,
        q: &Vector3<f64>,
        v: &Vector3<f64>,
    ) -> (Vector3<f64>, Vector3<f64>) {
        (g * q, g * v)
    }
    fn cotangent_lift(
        &self,
        g: &nalgebra::Matrix3<f64>,
        q: &Vector3<f64>,
        p: &Vector3<f64>,
    ) -> (Vector3<f64>, Vector3<f64>) {
        (g * q, g * p)
    }
    fn pairing(&self, p: &Vector3<f64>, v: &Vector3<f64>) -> f64 {
        p.dot(v)
    }
}

#[test]
fn the_full_rotation_group_is_not_a_symmetry_in_gravity() {
    // sanity check that invariance_defect can fail: rotations about e1 change V = g e3·q
    let h = 0.01;
    let g = initial(h);
    let d = invariance_defect::<_, _, _, 3, 3>(&PairGroupoid::<3>, &Pendulum { h }, &PairDiagonal(RotationAction), &g);
    assert!(d > 1e-3, "{d:e}");
}

#[test]
fn naive_s_times_s_is_not_regular() {
    // docs/math.md §C.4 warning: N = S × S with φ = (c(q0), c(q1)) has a singular step Jacobian
    // (the row of c(q0) does not depend on the unknowns (q_{k+1}, λ_{k+1})), and so has the F^+L
    // Jacobian (Marrero, Martín de Diego & Stern 2015, Thm 2.16: both or neither).
    let h = 0.01;
    let flow = ConstrainedFlow::<_, _, _, 5>::new(PairGroupoid::<3>, Pendulum { h }, BothEnds);
    let point = SigmaPoint::new(initial(h), SVector::from([0.0, 0.0]));
    assert!(matches!(flow.step(&point), Err(GeomError::SingularMatrix { .. })));
    assert!(matches!(flow.regularity(&point), Err(GeomError::SingularMatrix { .. })));
    let (minus, plus) = flow.legendre_jacobians(&point).unwrap();
    let sv = |m: nalgebra::SMatrix<f64, 5, 5>| {
        let s = nalgebra::DMatrix::from_column_slice(5, 5, m.as_slice()).singular_values();
        s.min() / s.max()
    };
    let (rm, rp) = (sv(minus), sv(plus));
    println!("N = S×S: smallest/largest singular value of the F^-L / F^+L step Jacobians: {rm:.1e} / {rp:.1e}");
    assert!(rm < 1e-14 && rp < 1e-14);
    // and the SHAKE form refuses initial data off the sphere with a typed error
    let holo = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, Pendulum { h }, UnitSphere);
    let off = (Vector3::new(0.0, 0.0, -1.0), Vector3::new(0.0, 0.1, -1.0));
    assert!(matches!(holo.step(&off), Err(GeomError::OffManifold { .. })));
}

/// RATTLE started from `(q_0, p_0)`: the first arrow `(q_0, q_1)` has `|q_1| = 1`, its Legendre
/// transform at `q_0`, projected on `T*S`, is `p_0`; the run that follows keeps `|q| = 1`, the
/// vertical angular momentum `e3·(q × p)` at its initial value `e3·(q_0 × p_0)` and the energy
/// near `H(q_0, p_0)`. A normal component added to `p_0` is absorbed by the multiplier.
#[test]
fn rattle_starts_from_a_point_and_a_momentum() {
    let h = 0.01;
    let flow = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, Pendulum { h }, UnitSphere);
    let q0 = Vector3::new(0.6, 0.0, -0.8);
    let p0 = Vector3::new(0.0, 1.2, 0.0); // tangent at q0
    let (g1, _) = flow.start::<3, 1>(&q0, &p0, &(p0 * h)).unwrap();
    assert_eq!(g1.0, q0);
    assert!((g1.1.norm() - 1.0).abs() < 1e-14);
    // p_0 = −D_1L̂(q_0, q_1) projected on T_{q_0}S
    let d1 = -((g1.1 - g1.0) / (-h) - Vector3::new(0.0, 0.0, 0.5 * GRAVITY * h));
    let projected = d1 - q0 * q0.dot(&d1);
    assert!((projected - p0).amax() < 1e-13, "{projected:?}");
    // a normal component in μ_0 changes nothing
    let (g1b, _) = flow.start::<3, 1>(&q0, &(p0 + q0 * 3.0), &(p0 * h)).unwrap();
    assert!((g1b.1 - g1.1).amax() < 1e-14);
    // the run from there
    let (lz0, e0) = (q0.cross(&p0)[2], energy(&q0, &p0));
    let (mut g, mut dlz, mut de, mut dq) = (g1, 0.0f64, 0.0f64, 0.0f64);
    for _ in 0..10_000 {
        g = flow.step::<3, 1>(&g).unwrap().0;
        let p = flow.projected_momentum::<3, 1>(&g).unwrap();
        dlz = dlz.max((g.1.cross(&p)[2] - lz0).abs());
        de = de.max((energy(&g.1, &p) - e0).abs());
        dq = dq.max((g.1.norm() - 1.0).abs());
    }
    assert!(dq < 1e-12 && dlz < 1e-11, "|q| − 1: {dq:e}, e3 angular momentum {dlz:e}");
    assert!(de < 1e-2, "energy {de:e}");
    // off the sphere: a typed error
    assert!(matches!(flow.start::<3, 1>(&(q0 * 1.1), &p0, &(p0 * h)), Err(GeomError::OffManifold { .. })));
}
