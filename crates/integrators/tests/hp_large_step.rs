//! The HP Störmer–Verlet step at huge step sizes (issue 31, item 4): what its Newton solve
//! returns there. The discrete equations of the step (module docs of `integrators::hp`,
//! `stormer_verlet`) with the Cayley chart on SO(3), for `ℓ = ½ ξᵀIξ − V(R)` with the torque
//! `f(R)`,
//!
//! ```text
//!   Π_k + (h/2) f(g_k) = (dcay^{-1}_{hξ})ᵀ Iξ,
//!   g_{k+1} = g_k cay(hξ),
//!   Π_{k+1} = (dcay^{-1}_{-hξ})ᵀ Iξ + (h/2) f(g_{k+1}),
//! ```
//!
//! are evaluated here independently of the library — Cayley's closed forms written out, and
//! `hξ` recovered from `g_kᵀ g_{k+1}` through its unit quaternion (Shepperd, *Quaternion from
//! rotation matrix*, J. Guidance and Control 1, 1978), which stays well conditioned at rotation
//! angles near π where `2 vee(R − Rᵀ)/(1 + tr R)` loses `1/(1 + tr R)` (`1 + tr R ≈ 2.5e-7` at
//! `h = 1e6`). Finding: up to `h = 1e6` every returned state solves these equations to a relative
//! residual of round-off size; the large energy error there is the scheme's (a symplectic
//! method far outside its stability region), not a Newton stall accepted by a loose test. The
//! CLI's divergence exit code reports such a run.

use crate::hp_common::heavy_top;
use discretization::OneStep;
use geom_core::GeomError;
use geom_core::lie::{Chart, LieGroup, So3};
use integrators::hp::{self, LieState};
use integrators::models::HeavyTop;
use integrators::tableau;
use nalgebra::{Matrix3, Vector3};

/// `(dcay^{-1}_x)ᵀ μ = μ + ½ x × μ + ¼ (x·μ) x` (`dcay^{-1}_x = I − x̂/2 + x xᵀ/4`).
fn dcay_inv_transpose(x: &Vector3<f64>, mu: &Vector3<f64>) -> Vector3<f64> {
    mu + x.cross(mu) * 0.5 + x * (x.dot(mu) * 0.25)
}

/// `cay^{-1}(R) = 2 v / w` for the unit quaternion `(w, v)` of `R` (`cay(x)` rotates by
/// `2 atan(|x|/2)` about `x`), from the largest of `tr R, R_00, R_11, R_22` (Shepperd):
/// `tr R`: `w = ½ √(1 + tr R)`, `v = vee(R − Rᵀ)/(4w)`; else `R_ii`:
/// `v_i = ½ √(1 + 2R_ii − tr R)`, `v_j = (R_ij + R_ji)/(4 v_i)`, `w = (R_kj − R_jk)/(4 v_i)`.
fn cayley_inv_quaternion(r: &Matrix3<f64>) -> Vector3<f64> {
    let anti = Vector3::new(r[(2, 1)] - r[(1, 2)], r[(0, 2)] - r[(2, 0)], r[(1, 0)] - r[(0, 1)]);
    let i = (0..3).max_by(|&a, &b| r[(a, a)].total_cmp(&r[(b, b)])).unwrap();
    if r.trace() >= r[(i, i)] {
        let w = 0.5 * (1.0 + r.trace()).sqrt();
        return anti / (4.0 * w) * (2.0 / w);
    }
    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
    let mut v = Vector3::zeros();
    v[i] = 0.5 * (1.0 + 2.0 * r[(i, i)] - r.trace()).sqrt();
    v[j] = (r[(i, j)] + r[(j, i)]) / (4.0 * v[i]);
    v[k] = (r[(i, k)] + r[(k, i)]) / (4.0 * v[i]);
    let w = anti[i] / (4.0 * v[i]);
    v * (2.0 / w)
}

/// The largest residual of the three discrete equations at `(s, next)`, relative to the largest
/// term in them, and what rounding alone explains: `hξ = x` is read off the rounded `g_kᵀ g_{k+1}`,
/// whose rotation angle `θ = 2 atan(|x|/2)` is known to `ε`, so `x` to `ε (4 + |x|²)/4` and the
/// equations (of degree up to 3 in `x`) to a relative `ε (1/|x| + |x|/4)` (small at `|x| ≈ 2`,
/// growing like `1/|x|` for tiny and `|x|` for huge steps); the bound is 16 times that.
fn relative_residual(
    top: &HeavyTop,
    s: &LieState<Matrix3<f64>, 3>,
    next: &LieState<Matrix3<f64>, 3>,
    h: f64,
) -> (f64, f64) {
    let q = s.g.transpose() * next.g;
    let x = cayley_inv_quaternion(&q);
    let m = top.inertia() * (x / h);
    let (kick0, kick1) = (top.torque(&s.g) * (h / 2.0), top.torque(&next.g) * (h / 2.0));
    let (lhs0, lhs1) = (dcay_inv_transpose(&x, &m), dcay_inv_transpose(&(-x), &m));
    let e0 = lhs0 - s.mu - kick0;
    let e1 = next.mu - lhs1 - kick1;
    // g_{k+1} = g_k cay(x): the rotation rebuilt from x, I + (4/(4 + |x|²))(x̂ + x̂²/2)
    let xh = Matrix3::new(0.0, -x[2], x[1], x[2], 0.0, -x[0], -x[1], x[0], 0.0);
    let cay = Matrix3::identity() + (xh + xh * xh * 0.5) * (4.0 / (4.0 + x.norm_squared()));
    let eg = (cay - q).amax();
    let scale = [s.mu.amax(), kick0.amax(), kick1.amax(), next.mu.amax(), lhs0.amax(), lhs1.amax()]
        .into_iter()
        .fold(0.0, f64::max);
    let bound = 16.0 * f64::EPSILON * (1.0 / x.norm() + x.norm() / 4.0);
    ((e0.amax().max(e1.amax()) / scale).max(eg), bound)
}

#[test]
fn huge_steps_return_genuine_solutions_of_the_discrete_equations() {
    let (top, s0) = heavy_top();
    let sv = hp::stormer_verlet(So3, Chart::Cayley, top).unwrap();
    let e0 = top.energy(&s0);
    for h in [0.01, 1.0, 1e2, 1e4, 1e6] {
        let mut s = s0;
        for k in 0..3 {
            let (next, report) = sv.try_step(&s, h).unwrap();
            let (r, bound) = relative_residual(&top, &s, &next, h);
            println!("h = {h:e}, step {k}: relative residual {r:.2e} (rounding bound {bound:.1e}), Newton {report:?}");
            assert!(r <= bound, "h = {h:e}, step {k}: relative residual {r:e} > {bound:e}");
            s = next;
        }
        let drift = ((top.energy(&s) - e0) / e0).abs();
        println!("h = {h:e}: relative energy error after 3 steps {drift:.2e}");
        if h >= 1e4 {
            // the scheme's own answer is useless there: the energy has no digit left
            assert!(drift > 1.0, "h = {h:e}: {drift:e}");
        }
    }
}

/// Negative control: the residual sees a state that does not solve the equations — the returned
/// state with `Π_{k+1}` or `g_{k+1}` moved by a relative 1e-9.
#[test]
fn the_residual_detects_a_state_off_the_discrete_equations() {
    let (top, s0) = heavy_top();
    let sv = hp::stormer_verlet(So3, Chart::Cayley, top).unwrap();
    for h in [0.01, 1e6] {
        let (next, _) = sv.try_step(&s0, h).unwrap();
        let (r, bound) = relative_residual(&top, &s0, &next, h);
        assert!(r <= bound);
        let mut moved = next;
        moved.mu[1] += 1e-9 * (next.mu.amax() + top.torque(&next.g).amax() * h);
        let (r, _) = relative_residual(&top, &s0, &moved, h);
        assert!(r > 100.0 * bound, "h = {h:e}: momentum moved, {r:e}");
        let mut turned = next;
        turned.g *= So3.exp(&Vector3::new(0.0, 0.0, 1e-9));
        let (r, _) = relative_residual(&top, &s0, &turned, h);
        assert!(r > 100.0 * bound, "h = {h:e}: rotation turned, {r:e}");
    }
}

/// Where the equations have no solution near the warm start, the step fails with a Newton error
/// and leaves the state untouched: the exponential chart (Störmer–Verlet) and Gauss–Legendre
/// `s = 2` (exp) at `h = 1e6`.
#[test]
fn unsolvable_huge_steps_fail_with_a_newton_error_and_leave_the_state_untouched() {
    let (top, s0) = heavy_top();
    let sv_exp = hp::stormer_verlet(So3, Chart::Exp, top).unwrap();
    let gauss =
        hp::HpIntegrator::<_, _, 3, 2>::new(So3, &tableau::gauss_legendre(2).unwrap(), Chart::Exp, top).unwrap();
    let methods: [&dyn OneStep<LieState<Matrix3<f64>, 3>>; 2] = [&sv_exp, &gauss];
    for m in methods {
        let mut s = s0;
        let r = m.step(&mut s, 1e6);
        assert!(
            matches!(r, Err(GeomError::NotConverged { .. } | GeomError::SingularMatrix { .. })),
            "{}: {r:?}",
            m.name()
        );
        assert_eq!(format!("{s:?}"), format!("{s0:?}"), "{}", m.name());
    }
}
