//! Structure test (issue 33, item 4): the constrained `Σ_L` is a Lagrangian submanifold of the
//! symplectic groupoid `T*G` for a proper constraint submanifold `N ⊊ G` (Marrero, Martín de
//! Diego & Stern, *Symplectic groupoids and discrete constrained Lagrangian mechanics*, 2015,
//! arXiv:1103.6250, Thm 3.1; docs/math.md §C.4).
//!
//! `G = R³ × R³` (the pair groupoid), `L̂` the spherical pendulum's [`PendulumLd`], and two proper
//! constraint submanifolds:
//!
//! * `N = S² × S²`, `φ = (c(q_0), c(q_1))`, `c = (|q|² − 1)/2` (`K = 2`, `dim N = 4`; the naive
//!   holonomic `N`, not regular, but `Σ_L` is Lagrangian all the same);
//! * `N = {|q_1 − q_0| = d}`, `φ = (|q_1 − q_0|² − d²)/2` (`K = 1`, `dim N = 5`, not a product).
//!
//! `Σ_L = {dL̂(g) + λ_a dφ^a(g) : g ∈ N}` is parametrised by `s ∈ R⁶` (`dim N` coordinates of `N`
//! and the `K` multipliers) and mapped through the crate's constrained Legendre transforms
//! ([`legendre_minus_constrained`], [`legendre_plus_constrained`]): on the pair groupoid the
//! covector is `(a_0, a_1) = (−F^-L(g, λ), F^+L(g, λ)) = (D_1, D_2)(L̂ + λ·φ)`, a point
//! `z = (q_0, q_1, a_0, a_1)` of `T*R⁶`. The canonical form `Ω(t, t') = t_q·t'_a − t'_q·t_a` of
//! `T*R⁶` is, in the groupoid's momenta `p_0 = F^-L = −a_0`, `p_1 = F^+L = a_1`, the form
//! `ω(q_1, p_1) − ω(q_0, p_0)` under which the graph of a symplectic map is Lagrangian.
//!
//! Check: the six tangent vectors `t_j = ∂z/∂s_j` (central differences, `δ = 1e-5`) have
//! `max_{i<j} |Ω(t_i, t_j)| / (|t_i| |t_j|) ≤ 1e-8` (isotropic) and span six dimensions
//! (`σ_min/σ_max` of `[t_j/|t_j|]` bounded away from 0: Lagrangian, `dim Σ_L = dim G`).
//! Error of the difference quotient per component: truncation `δ² |z'''|/6 ≈ 2e-11 |z'''|`,
//! round-off `ε |z|/δ ≈ 2e-11 |z|`; with `|z|, |z'''| ≲ 20` (momenta `~ |q_1 − q_0|/h`,
//! `h = 0.1`) and `|t_j| ≳ 1`, the normalized defect of the exact `Σ_L` is below `1e-9`.
//!
//! Negative controls, each failing the same check:
//!
//! * the wrong sign of `F^-L` (`a_0 = +F^-L`, the sum form `ω_0 + ω_1` in the groupoid's momenta):
//!   `|Ω| ≥ 1e-3`;
//! * the multipliers paired with covectors that do not annihilate `TN` (`L̂ + λ·ψ` with
//!   `ψ = φ + ½ ℓ·q`, `ℓ` a fixed vector): `|Ω| ≥ 1e-3`;
//! * the multiplier term dropped (the unconstrained `F^±L̂` at points of `N`): the image
//!   `dL̂(N)` lies in the Lagrangian `dL̂(G)`, so it is isotropic (`Ω` at round-off) — but only
//!   `dim N`-dimensional: the rank part of the check fails (`σ_min/σ_max` at round-off).

use geom_core::Scalar;
use groupoid::constraints::{Constraints, SigmaPoint, legendre_minus_constrained, legendre_plus_constrained};
use groupoid::models::PendulumLd;
use groupoid::{PairGroupoid, SpherePair};
use nalgebra::{DMatrix, SVector, Vector2, Vector3};

type Pair = (Vector3<f64>, Vector3<f64>);
type Z = SVector<f64, 12>;

/// The pendulum's step.
const H: f64 = 0.1;
/// Central-difference increment in the parameters of `Σ_L`.
const DELTA: f64 = 1e-5;

/// `c(q) = (|q|² − 1)/2`.
fn sphere<S: Scalar>(q: &Vector3<S>) -> S {
    (q.norm_squared() - S::from(1.0)) * S::from(0.5)
}

/// `N = S² × S²`: `φ = (c(q_0), c(q_1))`.
struct BothEnds;
impl Constraints<PairGroupoid<3>, 3, 2> for BothEnds {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, g: &(Vector3<S>, Vector3<S>)) -> SVector<S, 2> {
        SVector::from([sphere(&g.0), sphere(&g.1)])
    }
}

/// Fixed vectors `ℓ` of the tilted (non-conormal) covectors.
const TILT: [f64; 3] = [0.5, -0.3, 0.4];

/// `ψ = φ + ½ ℓ·q` on `N = S² × S²`: the same zero set is not claimed (`ψ ≠ 0` on `N`), only
/// the covectors `dψ` matter: they do not annihilate `T(S² × S²)`.
struct TiltedBothEnds;
impl Constraints<PairGroupoid<3>, 3, 2> for TiltedBothEnds {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, g: &(Vector3<S>, Vector3<S>)) -> SVector<S, 2> {
        let l = Vector3::from(TILT).map(S::from);
        SVector::from([sphere(&g.0) + l.dot(&g.0) * S::from(0.5), sphere(&g.1) + l.dot(&g.1) * S::from(0.5)])
    }
}

/// `N = {|q_1 − q_0| = d}`: `φ = (|q_1 − q_0|² − d²)/2`.
struct StepLength(f64);
impl Constraints<PairGroupoid<3>, 3, 1> for StepLength {
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, g: &(Vector3<S>, Vector3<S>)) -> SVector<S, 1> {
        SVector::from([((g.1 - g.0).norm_squared() - S::from(self.0 * self.0)) * S::from(0.5)])
    }
}

/// `ψ = φ + ½ ℓ·q_1` for [`StepLength`].
struct TiltedStepLength(f64);
impl Constraints<PairGroupoid<3>, 3, 1> for TiltedStepLength {
    fn eval<S: Scalar>(&self, gd: &PairGroupoid<3>, g: &(Vector3<S>, Vector3<S>)) -> SVector<S, 1> {
        let l = Vector3::from(TILT).map(S::from);
        StepLength(self.0).eval(gd, g) + SVector::from([l.dot(&g.1) * S::from(0.5)])
    }
}

/// How a point of `Σ_L` is turned into `z = (q_0, q_1, a_0, a_1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Construction {
    /// `a_0 = −F^-L(g, λ)`, `a_1 = F^+L(g, λ)`: `Σ_L` itself.
    Sigma,
    /// `a_0 = +F^-L(g, λ)`: the wrong sign.
    WrongSign,
    /// `λ = 0`: the unconstrained Legendre transforms at points of `N`.
    NoMultipliers,
}

/// `z(g, λ)` through the crate's constrained Legendre transforms.
fn lift<C: Constraints<PairGroupoid<3>, 3, K>, const K: usize>(
    ld: &PendulumLd,
    constraints: &C,
    g: &Pair,
    lambda: &SVector<f64, K>,
    construction: Construction,
) -> Z {
    let lambda = if construction == Construction::NoMultipliers { SVector::zeros() } else { *lambda };
    let point = SigmaPoint::new(*g, lambda);
    let minus = legendre_minus_constrained(&PairGroupoid::<3>, ld, constraints, &point);
    let plus = legendre_plus_constrained(&PairGroupoid::<3>, ld, constraints, &point);
    let a0 = if construction == Construction::WrongSign { minus } else { -minus };
    let mut z = Z::zeros();
    z.fixed_rows_mut::<3>(0).copy_from(&g.0);
    z.fixed_rows_mut::<3>(3).copy_from(&g.1);
    z.fixed_rows_mut::<3>(6).copy_from(&a0);
    z.fixed_rows_mut::<3>(9).copy_from(&plus);
    z
}

/// What the check measured on six tangent vectors.
#[derive(Debug, Clone, Copy)]
struct Measured {
    /// `max_{i<j} |Ω(t_i, t_j)| / (|t_i| |t_j|)`.
    form: f64,
    /// `σ_min / σ_max` of the normalized tangent vectors.
    rank: f64,
}

/// The tangent vectors `∂z/∂s_j` of a parametrisation `s ↦ z(s)` of a 6-dimensional submanifold
/// of `T*R⁶` at `s = 0` (central differences), and the measured isotropy and rank.
fn measure(z: impl Fn(&SVector<f64, 6>) -> Z) -> Measured {
    let tangents: Vec<Z> = (0..6)
        .map(|j| {
            let e = SVector::<f64, 6>::from_fn(|i, _| if i == j { DELTA } else { 0.0 });
            (z(&e) - z(&-e)) / (2.0 * DELTA)
        })
        .collect();
    // the canonical form of T*R⁶ in (q, a): Ω(t, t') = t_q·t'_a − t'_q·t_a
    let omega = |t: &Z, u: &Z| {
        t.fixed_rows::<6>(0).dot(&u.fixed_rows::<6>(6)) - u.fixed_rows::<6>(0).dot(&t.fixed_rows::<6>(6))
    };
    // a vanishing tangent vector (a parameter the construction ignores) is kept as 0
    let scale = |t: &Z| if t.norm() > 0.0 { t.norm() } else { 1.0 };
    let mut form: f64 = 0.0;
    for i in 0..6 {
        for j in i + 1..6 {
            let (ti, tj) = (&tangents[i], &tangents[j]);
            form = form.max(omega(ti, tj).abs() / (scale(ti) * scale(tj)));
        }
    }
    let m = DMatrix::from_fn(12, 6, |r, c| tangents[c][r] / scale(&tangents[c]));
    let s = m.singular_values();
    Measured { form, rank: s.min() / s.max() }
}

/// The unit vector `N(x + E(x) b)` on the sphere near the unit vector `x` (gnomonic chart).
fn on_sphere(x: &Vector3<f64>, b: &Vector2<f64>) -> Vector3<f64> {
    let (e1, e2) = SpherePair::frame(x);
    (x + e1 * b[0] + e2 * b[1]).normalize()
}

/// Base arrows of the pendulum on `S² × S²`: `q_0` on the sphere and a first step of size
/// `~ h |v|` along a tangent direction.
fn base_arrows() -> Vec<Pair> {
    let starts = [
        (Vector3::new(0.6, 0.0, -0.8), Vector3::new(0.0, 1.2, 0.0)),
        (Vector3::new(0.2, -0.5, -0.6), Vector3::new(1.0, 0.7, 0.3)),
        (Vector3::new(-0.7, 0.4, 0.1), Vector3::new(0.2, 0.9, -1.5)),
    ];
    starts
        .iter()
        .map(|(q, v)| {
            let q0 = q.normalize();
            let v = v - q0 * q0.dot(v);
            (q0, (q0 + v * H).normalize())
        })
        .collect()
}

/// `Σ_L` (or a perturbed construction) of `N = S² × S²` near `(g, λ)`: `s = (b_0, b_1, δλ)`,
/// `q_0 = N(q_0 + E b_0)`, `q_1 = N(q_1 + E b_1)`, `λ + δλ`.
fn both_ends<C: Constraints<PairGroupoid<3>, 3, 2>>(
    constraints: &C,
    g: &Pair,
    lambda: &SVector<f64, 2>,
    construction: Construction,
) -> Measured {
    let ld = PendulumLd::new(H).unwrap();
    measure(|s| {
        let q0 = on_sphere(&g.0, &Vector2::new(s[0], s[1]));
        let q1 = on_sphere(&g.1, &Vector2::new(s[2], s[3]));
        lift(&ld, constraints, &(q0, q1), &(lambda + Vector2::new(s[4], s[5])), construction)
    })
}

/// The same for `N = {|q_1 − q_0| = d}`: `s = (a, b, δλ)`, `q_0 + a`,
/// `q_1 = q_0 + a + d N(n + E(n) b)`, `n = (q_1 − q_0)/d`.
fn step_length<C: Constraints<PairGroupoid<3>, 3, 1>>(
    constraints: &C,
    g: &Pair,
    lambda: f64,
    construction: Construction,
) -> Measured {
    let ld = PendulumLd::new(H).unwrap();
    let d = (g.1 - g.0).norm();
    let n = (g.1 - g.0) / d;
    measure(|s| {
        let q0 = g.0 + Vector3::new(s[0], s[1], s[2]);
        let q1 = q0 + on_sphere(&n, &Vector2::new(s[3], s[4])) * d;
        lift(&ld, constraints, &(q0, q1), &SVector::from([lambda + s[5]]), construction)
    })
}

/// Print what was measured.
fn report(what: &str, m: Measured) {
    println!("{what}: max |Ω(t_i, t_j)|/(|t_i||t_j|) = {:.2e}, σ_min/σ_max = {:.2e}", m.form, m.rank);
}

#[test]
fn sigma_is_lagrangian_on_the_sphere_pair() {
    let lambda = Vector2::new(0.7, -1.3);
    let (mut worst, mut min_rank, mut sign, mut tilt, mut dropped_form, mut dropped_rank) =
        (0.0f64, f64::INFINITY, f64::INFINITY, f64::INFINITY, 0.0f64, 0.0f64);
    for g in base_arrows() {
        let exact = both_ends(&BothEnds, &g, &lambda, Construction::Sigma);
        report("N = S²×S², Σ_L", exact);
        worst = worst.max(exact.form);
        min_rank = min_rank.min(exact.rank);
        let wrong = both_ends(&BothEnds, &g, &lambda, Construction::WrongSign);
        report("N = S²×S², wrong sign of F^-L", wrong);
        sign = sign.min(wrong.form);
        let tilted = both_ends(&TiltedBothEnds, &g, &lambda, Construction::Sigma);
        report("N = S²×S², multipliers on non-conormal covectors", tilted);
        tilt = tilt.min(tilted.form);
        let dropped = both_ends(&BothEnds, &g, &lambda, Construction::NoMultipliers);
        report("N = S²×S², multipliers dropped", dropped);
        dropped_form = dropped_form.max(dropped.form);
        dropped_rank = dropped_rank.max(dropped.rank);
    }
    assert!(worst <= 1e-8, "Σ_L not isotropic: {worst:e}");
    assert!(min_rank > 1e-3, "Σ_L tangent vectors dependent: {min_rank:e}");
    assert!(sign >= 1e-3, "wrong-sign control passed: {sign:e}");
    assert!(tilt >= 1e-3, "non-conormal control passed: {tilt:e}");
    // dropping the multipliers: isotropic (dL̂(N) ⊂ dL̂(G)) but of dimension 4 < 6
    assert!(dropped_form <= 1e-8, "{dropped_form:e}");
    assert!(dropped_rank < 1e-8, "multiplier-free image not rank deficient: {dropped_rank:e}");
}

#[test]
fn sigma_is_lagrangian_for_a_coupled_constraint() {
    let lambda = -2.1;
    let (mut worst, mut min_rank, mut sign, mut tilt, mut dropped_form, mut dropped_rank) =
        (0.0f64, f64::INFINITY, f64::INFINITY, f64::INFINITY, 0.0f64, 0.0f64);
    for g in base_arrows() {
        let d = (g.1 - g.0).norm();
        let exact = step_length(&StepLength(d), &g, lambda, Construction::Sigma);
        report("N = {|q1 − q0| = d}, Σ_L", exact);
        worst = worst.max(exact.form);
        min_rank = min_rank.min(exact.rank);
        let wrong = step_length(&StepLength(d), &g, lambda, Construction::WrongSign);
        report("N = {|q1 − q0| = d}, wrong sign of F^-L", wrong);
        sign = sign.min(wrong.form);
        let tilted = step_length(&TiltedStepLength(d), &g, lambda, Construction::Sigma);
        report("N = {|q1 − q0| = d}, multiplier on a non-conormal covector", tilted);
        tilt = tilt.min(tilted.form);
        let dropped = step_length(&StepLength(d), &g, lambda, Construction::NoMultipliers);
        report("N = {|q1 − q0| = d}, multiplier dropped", dropped);
        dropped_form = dropped_form.max(dropped.form);
        dropped_rank = dropped_rank.max(dropped.rank);
    }
    assert!(worst <= 1e-8, "Σ_L not isotropic: {worst:e}");
    assert!(min_rank > 1e-3, "Σ_L tangent vectors dependent: {min_rank:e}");
    assert!(sign >= 1e-3, "wrong-sign control passed: {sign:e}");
    assert!(tilt >= 1e-3, "non-conormal control passed: {tilt:e}");
    assert!(dropped_form <= 1e-8, "{dropped_form:e}");
    assert!(dropped_rank < 1e-8, "multiplier-free image not rank deficient: {dropped_rank:e}");
}
