//! ns per step of the Crouch–Grossman CG4a and commutator-free CF4 methods on the free rigid body
//! as an ODE on SO(3) × R³, `f(R, Π) = (Ω, Π × Ω)`, `Ω = I^{-1}Π` (the field of
//! `integrators::models::FreeRigidBody`, as the RKMK tests use it), through the generic code of
//! `integrators::crouch_grossman` / `integrators::commutator_free` versus a hand-written loop of
//! the same equations in the same run (`common::ratio`):
//!
//! ```text
//!   CG4a:  Y_i = (R exp(h a_i1 Ω_1) ··· exp(h a_{i,i−1} Ω_{i−1}),  Π + h Σ_j a_ij Π_j × Ω_j),
//!          R_1 = R exp(h b_1 Ω_1) ··· exp(h b_5 Ω_5),  Π_1 = Π + h Σ_i b_i Π_i × Ω_i;
//!   CF4:   the products of Celledoni, Marthinsen & Owren (2003) on the same pair, Y_4 from Y_2,
//! ```
//!
//! with Rodrigues' formula of `geom_core::lie::so3::exp` for the exponential in both (the ratio
//! measures the generic engine: coefficient loops, the product group's operations, error
//! plumbing) and the stage attitudes `R_i` computed on both sides (`black_box`: the field does
//! not read them, but the method prescribes them); both against RKMK4
//! (`integrators::rkmk::rkmk4`, RK4 with `dexp^{-1}` truncated at `q = 2`) on the same field; and
//! CG4a on SO(3) alone for the time-dependent field `f(t, R) = (1, t/2, R₀₁)` against its hand
//! loop (no product group); the Magnus integrators of orders 4 and 6 (`integrators::magnus`) of
//! the linear equation `ġ = g A(t)` on SO(3), `A(t) = (cos t, t/2, sin 2t)`, against hand loops
//! of their formulas (Gauss nodes, `Ω⁽⁴⁾ = h/2 (A₁ + A₂) + √3h²/12 A₁ × A₂` and Blanes–Casas–Ros'
//! `Ω⁽⁶⁾` with the reversed bracket `(x, y) ↦ y × x` of `ġ = g A`, then `g exp(Ω)`).
//!
//! Run: `cargo bench --bench lie_methods` (target ratio ≤ 1.3 against the hand loops).

mod common;

use common::ratio::Report;
use geom_core::lie::{So3, So3xR3, so3};
use geom_core::step::OneStep;
use integrators::magnus::{AlgebraCurve, Magnus, MagnusOrder};
use integrators::models::FreeRigidBody;
use integrators::rkmk::{self, GroupState, LieVectorField};
use integrators::{commutator_free, crouch_grossman};
use nalgebra::{Matrix3, Vector3};
use std::hint::black_box;

const H: f64 = 0.05;
const STEPS: usize = 20_000;
const INERTIA: [f64; 3] = [2.0, 1.0, 2.0 / 3.0];

type State = GroupState<(Matrix3<f64>, Vector3<f64>)>;

fn initial() -> State {
    GroupState::new(0.0, (Matrix3::identity(), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin())))
}

/// `(Ω, Π × Ω)`, `Ω = I^{-1}Π` (principal axes).
#[inline(always)]
fn field(inertia_inv: &Vector3<f64>, pi: &Vector3<f64>) -> (Vector3<f64>, Vector3<f64>) {
    let omega = pi.component_mul(inertia_inv);
    (omega, pi.cross(&omega))
}

/// CG4a's coefficients (Jackiewicz, Marthinsen & Owren 2000).
const A: [[f64; 5]; 5] = [
    [0.0; 5],
    [0.8177227988124852, 0.0, 0.0, 0.0, 0.0],
    [0.3199876375476427, 0.0659864263556022, 0.0, 0.0, 0.0],
    [0.9214417194464946, 0.4997857776773573, -1.0969984448371582, 0.0, 0.0],
    [0.3552358559023322, 0.2390958372307326, 1.3918565724203246, -1.1092979392113465, 0.0],
];
const B: [f64; 5] =
    [0.1370831520630755, -0.0183698531564020, 0.739781398537078, -0.1907142565505889, 0.3322195591068374];

/// One hand-written CG4a step (the field is autonomous: `c` is not needed). The stage attitudes
/// `R_i` are computed as the method prescribes, though this field does not read them.
#[inline]
fn hand_cg4a(inertia_inv: &Vector3<f64>, r: &mut Matrix3<f64>, pi: &mut Vector3<f64>, h: f64) {
    let mut kw = [Vector3::zeros(); 5];
    let mut kp = [Vector3::zeros(); 5];
    for i in 0..5 {
        let (mut r_i, mut pi_i) = (*r, *pi);
        for j in 0..i {
            r_i *= so3::exp(&(kw[j] * (h * A[i][j])));
            pi_i += kp[j] * (h * A[i][j]);
        }
        black_box(&r_i);
        (kw[i], kp[i]) = field(inertia_inv, &pi_i);
    }
    for i in 0..5 {
        *r *= so3::exp(&(kw[i] * (h * B[i])));
        *pi += kp[i] * (h * B[i]);
    }
}

/// One hand-written CF4 step, stage attitudes as in [`hand_cg4a`].
#[inline]
fn hand_cf4(inertia_inv: &Vector3<f64>, r: &mut Matrix3<f64>, pi: &mut Vector3<f64>, h: f64) {
    let (w1, p1) = field(inertia_inv, pi);
    let (r2, pi2) = (*r * so3::exp(&(w1 * (0.5 * h))), *pi + p1 * (0.5 * h));
    let (w2, p2) = field(inertia_inv, &pi2);
    let (r3, pi3) = (*r * so3::exp(&(w2 * (0.5 * h))), *pi + p2 * (0.5 * h));
    let (w3, p3) = field(inertia_inv, &pi3);
    let (r4, pi4) = (r2 * so3::exp(&((w3 - w1 * 0.5) * h)), pi2 + (p3 - p1 * 0.5) * h);
    black_box((&r3, &r4));
    let (w4, p4) = field(inertia_inv, &pi4);
    let (s, q, t) = (1.0 / 6.0, 0.25, -1.0 / 12.0);
    let e1 = (w1 * q + (w2 + w3) * s + w4 * t) * h;
    let e2 = (w1 * t + (w2 + w3) * s + w4 * q) * h;
    *r = *r * so3::exp(&e1) * so3::exp(&e2);
    *pi += (p1 * (q + t) + (p2 + p3) * (2.0 * s) + p4 * (q + t)) * h;
}

/// A spinning frame on SO(3) alone, `ġ = g f(t, g)`, `f = (1, t/2, g₀₁)` (the field of the
/// contract tests): the same methods without the product group.
struct Spin;
impl LieVectorField<So3, 3> for Spin {
    #[inline]
    fn eval(&self, _: &So3, t: f64, g: &Matrix3<f64>) -> geom_core::Result<Vector3<f64>> {
        Ok(spin(t, g))
    }
}
#[inline(always)]
fn spin(t: f64, g: &Matrix3<f64>) -> Vector3<f64> {
    Vector3::new(1.0, 0.5 * t, g[(0, 1)])
}
const C: [f64; 5] = [0.0, 0.8177227988124852, 0.3859740639032449, 0.3242290522866937, 0.8768903263420429];

/// One hand-written CG4a step of [`Spin`].
#[inline]
fn hand_cg4a_spin(s: &mut GroupState<Matrix3<f64>>, h: f64) {
    let mut k = [Vector3::zeros(); 5];
    for i in 0..5 {
        let mut r_i = s.g;
        for j in 0..i {
            r_i *= so3::exp(&(k[j] * (h * A[i][j])));
        }
        k[i] = spin(s.t + C[i] * h, &r_i);
    }
    for i in 0..5 {
        s.g *= so3::exp(&(k[i] * (h * B[i])));
    }
    s.t += h;
}

/// `A(t) = (cos t, t/2, sin 2t)`: the curve of the Magnus lines.
struct Curve;
impl AlgebraCurve<3> for Curve {
    #[inline]
    fn eval(&self, t: f64) -> geom_core::Result<Vector3<f64>> {
        Ok(curve(t))
    }
}
#[inline(always)]
fn curve(t: f64) -> Vector3<f64> {
    Vector3::new(t.cos(), 0.5 * t, (2.0 * t).sin())
}

/// One hand-written Magnus step of `ġ = g A(t)` on SO(3), order 4 or 6: the bracket of
/// `ẏ = A y`'s formulas reversed, `[x, y] → y × x`.
#[inline]
fn hand_magnus(six: bool, s: &mut GroupState<Matrix3<f64>>, h: f64) {
    let br = |x: &Vector3<f64>, y: &Vector3<f64>| y.cross(x);
    let omega = if six {
        let c = 15f64.sqrt() / 10.0;
        let (a1, a2, a3) = (curve(s.t + (0.5 - c) * h), curve(s.t + 0.5 * h), curve(s.t + (0.5 + c) * h));
        let alpha1 = a2 * h;
        let alpha2 = (a3 - a1) * (15f64.sqrt() / 3.0 * h);
        let alpha3 = (a3 - a2 * 2.0 + a1) * (10.0 / 3.0 * h);
        let c1 = br(&alpha1, &alpha2);
        let c2 = br(&alpha1, &(alpha3 * 2.0 + c1)) * (-1.0 / 60.0);
        alpha1 + alpha3 * (1.0 / 12.0) + br(&(c1 - alpha1 * 20.0 - alpha3), &(alpha2 + c2)) * (1.0 / 240.0)
    } else {
        let c = 3f64.sqrt() / 6.0;
        let (a1, a2) = (curve(s.t + (0.5 - c) * h), curve(s.t + (0.5 + c) * h));
        (a1 + a2) * (0.5 * h) + br(&a2, &a1) * (3f64.sqrt() / 12.0 * h * h)
    };
    s.g *= so3::exp(&omega);
    s.t += h;
}

fn run<M: OneStep<State>>(m: &M, s: &mut State, n: usize) {
    for _ in 0..n {
        m.step(black_box(s), black_box(H)).unwrap();
    }
}

fn main() {
    let mut report = Report::new();
    let body = FreeRigidBody::principal(INERTIA[0], INERTIA[1], INERTIA[2]).unwrap();
    let inertia_inv = Vector3::new(1.0 / INERTIA[0], 1.0 / INERTIA[1], 1.0 / INERTIA[2]);
    let group = So3xR3::default();
    let cg4a = crouch_grossman::cg4a(group, body).unwrap();
    let cf4 = commutator_free::cf4(group, body).unwrap();
    let rkmk4 = rkmk::rkmk4(group, body).unwrap();

    // same trajectories as the hand loops
    type Hand = fn(&Vector3<f64>, &mut Matrix3<f64>, &mut Vector3<f64>, f64);
    let pairs: [(&dyn OneStep<State>, Hand); 2] = [(&cg4a, hand_cg4a), (&cf4, hand_cf4)];
    for (m, hand) in pairs {
        let (mut a, mut b) = (initial(), initial());
        for _ in 0..1000 {
            m.step(&mut a, H).unwrap();
            hand(&inertia_inv, &mut b.g.0, &mut b.g.1, H);
        }
        let d = (a.g.0 - b.g.0).amax().max((a.g.1 - b.g.1).amax());
        assert!(d <= 1e-12, "{}: the hand loop differs by {d:e}", m.name());
    }

    let hand_loop = |step: Hand| {
        move |n: usize, s: &mut State| {
            for _ in 0..n {
                step(&inertia_inv, black_box(&mut s.g.0), black_box(&mut s.g.1), black_box(H));
            }
        }
    };
    let (mut s1, mut s2) = (initial(), initial());
    let hand = hand_loop(hand_cg4a);
    report.case("rigid_body_cg4a_vs_hand", 1.3, STEPS, |n| run(&cg4a, &mut s1, n), |n| hand(n, &mut s2));
    let (mut s1, mut s2) = (initial(), initial());
    let hand = hand_loop(hand_cf4);
    report.case("rigid_body_cf4_vs_hand", 1.3, STEPS, |n| run(&cf4, &mut s1, n), |n| hand(n, &mut s2));
    let (mut s1, mut s2) = (initial(), initial());
    report.case("rigid_body_cg4a_vs_rkmk4", 2.0, STEPS, |n| run(&cg4a, &mut s1, n), |n| run(&rkmk4, &mut s2, n));
    let (mut s1, mut s2) = (initial(), initial());
    report.case("rigid_body_cf4_vs_rkmk4", 1.0, STEPS, |n| run(&cf4, &mut s1, n), |n| run(&rkmk4, &mut s2, n));
    let cg_spin = crouch_grossman::cg4a(So3, Spin).unwrap();
    let (mut a, mut b) = (GroupState::new(0.0, Matrix3::identity()), GroupState::new(0.0, Matrix3::identity()));
    for _ in 0..1000 {
        cg_spin.step(&mut a, H).unwrap();
        hand_cg4a_spin(&mut b, H);
    }
    assert!((a.g - b.g).amax() <= 1e-12 && a.t == b.t);
    report.case(
        "spin_so3_cg4a_vs_hand",
        1.3,
        STEPS,
        |n| {
            for _ in 0..n {
                cg_spin.step(black_box(&mut a), black_box(H)).unwrap();
            }
        },
        |n| {
            for _ in 0..n {
                hand_cg4a_spin(black_box(&mut b), black_box(H));
            }
        },
    );
    for (order, six, case) in
        [(MagnusOrder::Four, false, "spin_so3_magnus4_vs_hand"), (MagnusOrder::Six, true, "spin_so3_magnus6_vs_hand")]
    {
        let magnus = Magnus::new(So3, Curve, order);
        let (mut a, mut b) = (GroupState::new(0.0, Matrix3::identity()), GroupState::new(0.0, Matrix3::identity()));
        for _ in 0..1000 {
            magnus.step(&mut a, H).unwrap();
            hand_magnus(six, &mut b, H);
        }
        let d = (a.g - b.g).amax();
        assert!(d <= 1e-12 && a.t == b.t, "{}: the hand loop differs by {d:e}", magnus.name());
        report.case(
            case,
            1.3,
            STEPS,
            |n| {
                for _ in 0..n {
                    magnus.step(black_box(&mut a), black_box(H)).unwrap();
                }
            },
            |n| {
                for _ in 0..n {
                    hand_magnus(six, black_box(&mut b), black_box(H));
                }
            },
        );
    }
    report.print("lie_methods: generic route / hand-written loop (or RKMK4)");
}
