//! Theorem 2.16 of Marrero, Martín de Diego & Stern, *Symplectic groupoids and discrete
//! constrained Lagrangian mechanics*, 2015, arXiv:1103.6250 (docs/math.md §C.3, regularity),
//! numerically: `F^-L` is a local
//! diffeomorphism at `g` iff `F^+L` is. Since `F^-L` preserves the source (`F^-L(g) ∈ A*_{α(g)}`)
//! and `F^+L` the target, they are local diffeomorphisms iff their restrictions to the α-fibre,
//! resp. β-fibre, through `g` are, i.e. iff the Jacobians
//!
//! * `J^-(g) = ∂/∂ξ F^-L(exp_{α(g)}(ξ))` at `ξ = fibre_log(g)` (α-fibre chart), and
//! * `J^+(g) = ∂/∂η F^+L(i(exp_{β(g)}(η)))` at `η = fibre_log(g^{-1})` (β-fibre chart)
//!
//! are nonsingular. They are computed here independently, through different fibre charts (at
//! `α(g)`, resp. `β(g)`) and different invariant vector fields (exact second derivatives by
//! hyper-dual numbers); the theorem says they vanish together. We follow one-parameter families
//! that cross a fold of `L` and check that both determinants change sign at the same parameter,
//! that their ratio stays finite and nonzero across the fold, and that `check_regularity` refuses
//! the fold. (In the three examples `|det J^+ / det J^-| = 1` to `3e-13` along the whole family:
//! both are `det P` times chart Jacobians of equal determinant, `P` the pairing matrix. The
//! theorem itself only needs that they vanish together.)

use geom_core::Scalar;
use geom_core::action::SphereRotation;
use geom_core::lie::{Chart, so3};
use groupoid::lagrangian::Arrow;
use groupoid::{
    ActionGroupoid, AdGroupoid, DiscreteLagrangian, GroupoidLift, LieGroupoid, PairGroupoid, SpherePair,
    check_regularity,
};
use nalgebra::{DMatrix, Matrix3, SMatrix, SVector, Vector2, Vector3};
use num_dual::HyperDualSVec64;

type H<const R: usize> = HyperDualSVec64<R, R>;

/// `J^-(g)` (module documentation).
fn jacobian_minus<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    gd: &Gd,
    l: &L,
    g: &Arrow<Gd, R>,
) -> SMatrix<f64, R, R> {
    let x = GroupoidLift::<H<R>, R>::lift_base(gd, &LieGroupoid::<f64, R>::source(gd, g));
    let xi0 = LieGroupoid::<f64, R>::fibre_log(gd, g).unwrap();
    let (_, _, _, mixed) = num_dual::partial_hessian(
        |(xi, eta): (SVector<H<R>, R>, SVector<H<R>, R>)| {
            let e = LieGroupoid::<H<R>, R>::fibre_exp(gd, &x, &xi);
            l.eval::<H<R>>(gd, &LieGroupoid::<H<R>, R>::right_curve(gd, &e, &eta))
        },
        (&xi0, &SVector::zeros()),
    );
    mixed.transpose()
}

/// `J^+(g)` (module documentation).
fn jacobian_plus<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    gd: &Gd,
    l: &L,
    g: &Arrow<Gd, R>,
) -> SMatrix<f64, R, R> {
    let y = GroupoidLift::<H<R>, R>::lift_base(gd, &LieGroupoid::<f64, R>::target(gd, g));
    let eta0 = LieGroupoid::<f64, R>::fibre_log(gd, &LieGroupoid::<f64, R>::inverse(gd, g)).unwrap();
    let (_, _, _, mixed) = num_dual::partial_hessian(
        |(eta, xi): (SVector<H<R>, R>, SVector<H<R>, R>)| {
            let e = LieGroupoid::<H<R>, R>::inverse(gd, &LieGroupoid::<H<R>, R>::fibre_exp(gd, &y, &eta));
            l.eval::<H<R>>(gd, &LieGroupoid::<H<R>, R>::left_curve(gd, &e, &xi))
        },
        (&eta0, &SVector::zeros()),
    );
    mixed.transpose()
}

/// Bisect a sign change of `f` in `[a, b]` to `|b − a| < 1e-13`.
fn root(f: impl Fn(f64) -> f64, mut a: f64, mut b: f64) -> f64 {
    let fa = f(a);
    assert!(fa * f(b) < 0.0);
    while b - a > 1e-13 {
        let m = 0.5 * (a + b);
        if f(m) * fa > 0.0 { a = m } else { b = m }
    }
    0.5 * (a + b)
}

/// Follow `s ↦ g(s)` on `[s0, s1]`: every sign change of `det J^-` is one of `det J^+` at the same
/// parameter; away from them both are nonzero and their ratio is bounded. Returns the roots.
fn check_family<Gd: AdGroupoid<R>, L: DiscreteLagrangian<Gd, R>, const R: usize>(
    gd: &Gd,
    l: &L,
    family: impl Fn(f64) -> Arrow<Gd, R>,
    (s0, s1): (f64, f64),
) -> Vec<(f64, f64, f64)> {
    let det = |m: SMatrix<f64, R, R>| DMatrix::from_column_slice(R, R, m.as_slice()).determinant();
    let dm = |s: f64| det(jacobian_minus(gd, l, &family(s)));
    let dp = |s: f64| det(jacobian_plus(gd, l, &family(s)));
    let n = 400;
    let mut roots = Vec::new();
    let (mut rmin, mut rmax) = (f64::INFINITY, 0.0f64);
    for k in 0..n {
        let (a, b) = (s0 + (s1 - s0) * k as f64 / n as f64, s0 + (s1 - s0) * (k + 1) as f64 / n as f64);
        let (ma, mb, pa, pb) = (dm(a), dm(b), dp(a), dp(b));
        let ratio = (pa / ma).abs();
        (rmin, rmax) = (rmin.min(ratio), rmax.max(ratio));
        assert_eq!(ma * mb < 0.0, pa * pb < 0.0, "det J^- and det J^+ change sign together on [{a}, {b}]");
        if ma * mb < 0.0 {
            let (rm, rp) = (root(dm, a, b), root(dp, a, b));
            roots.push((rm, rp, (rm - rp).abs()));
            // regularity is refused at the fold and accepted next to it
            assert!(check_regularity(gd, l, &family(rm)).is_err());
            assert!(check_regularity(gd, l, &family(a)).is_ok() && check_regularity(gd, l, &family(b)).is_ok());
        }
    }
    assert!(rmin > 1e-6 && rmax < 1e6, "ratio det J^+/det J^- in [{rmin}, {rmax}]");
    println!("|det J^+ / det J^-| stays in [{rmin:.15}, {rmax:.15}] along the family");
    roots
}

/// A heavy-top-like `L(Γ, W) = (1/h) tr((I − W) J) − (h/2)(χ·Γ + χ·WᵀΓ) + ε |Γ − WᵀΓ|²` on the
/// action groupoid; `W ↦ vee(W J − J Wᵀ)` folds where the rotation angle is near π/2.
struct Folded {
    h: f64,
}
impl DiscreteLagrangian<ActionGroupoid<SphereRotation>, 3> for Folded {
    fn eval<S: Scalar>(&self, _: &ActionGroupoid<SphereRotation>, g: &(Vector3<S>, Matrix3<S>)) -> S {
        let j = Matrix3::from_diagonal(&Vector3::new(1.0, 1.2, 0.9)).map(S::from);
        let chi = Vector3::new(0.2, 0.1, 1.0).map(S::from);
        let moved = g.1.transpose() * g.0;
        ((Matrix3::identity() - g.1) * j).trace() * S::from(1.0 / self.h)
            - (chi.dot(&g.0) + chi.dot(&moved)) * S::from(0.5 * self.h)
            + (g.0 - moved).norm_squared() * S::from(0.3)
    }
}

#[test]
fn theorem_2_16_on_the_heavy_top_action_groupoid() {
    let ag = ActionGroupoid::new(SphereRotation, Chart::Exp);
    let l = Folded { h: 0.1 };
    let gamma = Vector3::new(0.3, -0.4, 0.8).normalize();
    let axis = Vector3::new(0.2, 1.0, -0.3).normalize();
    let roots = check_family(&ag, &l, |s| (gamma, so3::exp(&(axis * s))), (0.3, 2.8));
    println!("action groupoid: folds (det J^- root, det J^+ root, difference) = {roots:?}");
    assert!(!roots.is_empty());
    assert!(roots.iter().all(|r| r.2 < 1e-10));
    // regular points: both Jacobians nonsingular
    for s in [0.1, 0.5, 1.0] {
        let g = (gamma, so3::exp(&(axis * s)));
        assert!(jacobian_minus(&ag, &l, &g).determinant().abs() > 1e-3);
        assert!(jacobian_plus(&ag, &l, &g).determinant().abs() > 1e-3);
    }
}

/// `L(q_0, q_1) = h (v_1³/3 − v_1 + ½ v_2² + v_1 v_2 q̄_1) − h V(q̄)`, `v = (q_1 − q_0)/h`: a
/// kinetic term with a fold at `v_1 = ±1`-ish (cubic), coupled to the position.
struct CubicPair {
    h: f64,
}
impl DiscreteLagrangian<PairGroupoid<2>, 2> for CubicPair {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<2>, g: &(Vector2<S>, Vector2<S>)) -> S {
        let h = S::from(self.h);
        let v = (g.1 - g.0) / h;
        let q = (g.0 + g.1) * S::from(0.5);
        (v[0] * v[0] * v[0] / S::from(3.0) - v[0] + v[1] * v[1] * S::from(0.5) + v[0] * v[1] * q[0] * S::from(0.3)
            - q.norm_squared() * S::from(0.5))
            * h
    }
}

#[test]
fn theorem_2_16_on_a_pair_groupoid_with_a_fold() {
    let l = CubicPair { h: 0.1 };
    let q0 = Vector2::new(0.4, -0.2);
    let roots = check_family(&PairGroupoid::<2>, &l, |s| (q0, q0 + Vector2::new(s, 0.05)), (-0.3, 0.3));
    println!("pair groupoid R^2: folds = {roots:?}");
    assert!(!roots.is_empty() && roots.iter().all(|r| r.2 < 1e-10));
}

/// `L(x, y) = (x·y − cos 0.5)²/(2h) − (h/2)(e_3·x + e_3·y)` on `S² × S²`: the mixed derivative
/// `f'(c) P_x P_y + f''(c) (P_x y)(P_y x)ᵀ` (`c = x·y`) folds where `f'(c) = 0`, i.e. at the angle
/// 0.5 between `x` and `y`. The fibre charts are the normalisation retraction at `x`, resp. at `y`.
struct SphereFold {
    h: f64,
}
impl DiscreteLagrangian<SpherePair, 2> for SphereFold {
    fn eval<S: Scalar>(&self, _: &SpherePair, g: &(Vector3<S>, Vector3<S>)) -> S {
        let c = g.0.dot(&g.1) - S::from(0.5f64.cos());
        c * c * S::from(0.5 / self.h) - (g.0[2] + g.1[2]) * S::from(0.5 * self.h)
    }
}

#[test]
fn theorem_2_16_on_the_sphere_pair_groupoid() {
    let l = SphereFold { h: 0.1 };
    let x = Vector3::new(0.2, 0.3, 0.9).normalize();
    let (e1, e2) = SpherePair::frame(&x);
    let dir = (e1 * 0.8 + e2 * 0.6).normalize();
    let roots = check_family(&SpherePair, &l, |s| (x, x * s.cos() + dir * s.sin()), (0.2, 0.9));
    println!("pair groupoid S^2: folds = {roots:?}");
    // the fold f'(c) = 0 at angle 0.5, and a second one where the rank-one term cancels f' P_x P_y
    assert!(roots.iter().all(|r| r.2 < 1e-10) && roots.iter().any(|r| (r.0 - 0.5).abs() < 1e-10));
}
