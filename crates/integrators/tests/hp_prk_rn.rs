//! docs/math.md §D.5 check (i): on G = R^n (τ = id, dτ = I, Ad = I) with ℓ = ½|ξ|² - V(q), the HP
//! scheme of a tableau (A, b) is the variational partitioned RK method with
//! `Q^i = q_k + h Σ_j a_ij P^j`, `P^i = p_k + h Σ_j â_ij F(Q^j)`, `â_ij = b_j - b_j a_ji / b_i`,
//! `q_{k+1} = q_k + h Σ b_i P^i`, `p_{k+1} = p_k + h Σ b_i F(Q^i)`, `F = -∇V` — here written out
//! independently and solved by fixed-point iteration. For Lobatto IIIA s = 2 (â = Lobatto IIIB)
//! it is Störmer–Verlet; for Gauss s = 2, â = a (Gauss is symplectic).

use discretization::OneStep;
use geom_core::lie::{Chart, Rn};
use geom_core::{Result, Scalar};
use integrators::hp::{AutoDiff, HpIntegrator, KineticPotential, LieState, Potential, PotentialGradient};
use integrators::tableau::{self, Tableau};
use nalgebra::{Matrix2, Vector2};

/// Hénon–Heiles: V = ½(q1² + q2²) + q1² q2 - q2³/3.
#[derive(Debug, Clone, Copy)]
struct HenonHeiles;
impl<S: Scalar> Potential<S, Rn<2>, 2> for HenonHeiles {
    fn value(&self, _: &Rn<2>, q: &Vector2<S>) -> S {
        let (x, y) = (q[0], q[1]);
        (x * x + y * y) * S::from(0.5) + x * x * y - y * y * y / S::from(3.0)
    }
}
impl<S: Scalar> PotentialGradient<S, Rn<2>, 2> for HenonHeiles {
    fn left_gradient(&self, _: &Rn<2>, q: &Vector2<S>) -> Result<Vector2<S>> {
        let (x, y) = (q[0], q[1]);
        Ok(Vector2::new(x + x * y * S::from(2.0), y + x * x - y * y))
    }
}
/// The same potential given by its value only (its gradient comes from AD).
#[derive(Debug, Clone, Copy)]
struct HenonHeilesValue;
impl<S: Scalar> Potential<S, Rn<2>, 2> for HenonHeilesValue {
    fn value(&self, g: &Rn<2>, q: &Vector2<S>) -> S {
        HenonHeiles.value(g, q)
    }
}

fn force(q: &Vector2<f64>) -> Vector2<f64> {
    -Vector2::new(q[0] + 2.0 * q[0] * q[1], q[1] + q[0] * q[0] - q[1] * q[1])
}

/// One PRK step (q, p) -> (q1, p1) with (A, â, b), fixed-point iteration to a fixed point.
fn prk_step<const S: usize>(t: &Tableau, q: Vector2<f64>, p: Vector2<f64>, h: f64) -> (Vector2<f64>, Vector2<f64>) {
    let (a, b, _) = t.arrays::<S>().unwrap();
    let ahat: [[f64; S]; S] = core::array::from_fn(|i| core::array::from_fn(|j| b[j] - b[j] * a[j][i] / b[i]));
    let mut qs = [q; S];
    let mut ps = [p; S];
    for _ in 0..1000 {
        let fs: [Vector2<f64>; S] = core::array::from_fn(|j| force(&qs[j]));
        let new_p: [Vector2<f64>; S] =
            core::array::from_fn(|i| p + (0..S).map(|j| fs[j] * (h * ahat[i][j])).sum::<Vector2<f64>>());
        let new_q: [Vector2<f64>; S] =
            core::array::from_fn(|i| q + (0..S).map(|j| new_p[j] * (h * a[i][j])).sum::<Vector2<f64>>());
        let change = (0..S).map(|i| (new_q[i] - qs[i]).amax().max((new_p[i] - ps[i]).amax())).fold(0.0, f64::max);
        qs = new_q;
        ps = new_p;
        if change == 0.0 {
            break;
        }
    }
    let q1 = q + (0..S).map(|i| ps[i] * (h * b[i])).sum::<Vector2<f64>>();
    let p1 = p + (0..S).map(|i| force(&qs[i]) * (h * b[i])).sum::<Vector2<f64>>();
    (q1, p1)
}

/// Explicit Störmer–Verlet (kick–drift–kick is the p-first form; this is HP's q-first form
/// `q1 = q + h(p + h/2 F(q))`, `p1 = p + h/2 (F(q) + F(q1))`).
fn verlet(q: Vector2<f64>, p: Vector2<f64>, h: f64) -> (Vector2<f64>, Vector2<f64>) {
    let ph = p + force(&q) * (0.5 * h);
    let q1 = q + ph * h;
    (q1, ph + force(&q1) * (0.5 * h))
}

fn compare<const S: usize, M: OneStep<LieState<Vector2<f64>, 2>>>(m: &M, t: &Tableau, with_verlet: bool) -> f64 {
    let h = 0.05;
    let (mut q, mut p) = (Vector2::new(0.1, -0.2), Vector2::new(0.3, 0.1));
    let mut s = LieState::new(q, p);
    let (mut qv, mut pv) = (q, p);
    let mut diff = 0.0f64;
    for _ in 0..400 {
        (q, p) = prk_step::<S>(t, q, p, h);
        m.step(&mut s, h).unwrap();
        diff = diff.max((s.g - q).amax().max((s.mu - p).amax()));
        if with_verlet {
            (qv, pv) = verlet(qv, pv, h);
            diff = diff.max((qv - q).amax().max((pv - p).amax()));
        }
    }
    diff
}

/// 400 steps of h = 0.05 (T = 20) from |q|, |p| ~ 0.3. Both sides solve their implicit
/// equations to round-off; the per-step discrepancy is a few ulp and the motion is bounded and
/// regular at this energy, so the accumulated difference stays ~1e-15; 1e-13 bounds it
/// with a margin of 10-100 while any wrong weight (e.g. â = a for Lobatto) gives O(h²) = 1e-3.
#[test]
fn hp_on_rn_is_the_partitioned_rk_method() {
    let l = KineticPotential::new(Matrix2::identity(), HenonHeiles).unwrap();
    let l_ad = AutoDiff(KineticPotential::new(Matrix2::identity(), HenonHeilesValue).unwrap());
    let lob = tableau::lobatto_iiia(2).unwrap();
    let gauss = tableau::gauss_legendre(2).unwrap();
    for chart in [Chart::Exp, Chart::Cayley] {
        let cases = [
            (
                "Lobatto IIIA 2",
                compare::<2, _>(&HpIntegrator::<_, _, 2, 2>::new(Rn::<2>, &lob, chart, l).unwrap(), &lob, true),
            ),
            (
                "Lobatto IIIA 2 (AD)",
                compare::<2, _>(&HpIntegrator::<_, _, 2, 2>::new(Rn::<2>, &lob, chart, l_ad).unwrap(), &lob, true),
            ),
            (
                "Gauss 2",
                compare::<2, _>(&HpIntegrator::<_, _, 2, 2>::new(Rn::<2>, &gauss, chart, l).unwrap(), &gauss, false),
            ),
            (
                "Gauss 2 (AD)",
                compare::<2, _>(&HpIntegrator::<_, _, 2, 2>::new(Rn::<2>, &gauss, chart, l_ad).unwrap(), &gauss, false),
            ),
        ];
        for (label, diff) in cases {
            eprintln!("R^2 {:<7} {label:<20} HP vs PRK (and Verlet): {diff:.2e}", chart.name());
            assert!(diff <= 1e-13, "{label} ({}): {diff:.3e}", chart.name());
        }
    }
}

/// The same with a wrong reference (â = a for Lobatto IIIA): the test can fail.
#[test]
fn a_wrong_reference_is_detected() {
    let l = KineticPotential::new(Matrix2::identity(), HenonHeiles).unwrap();
    let lob = tableau::lobatto_iiia(2).unwrap();
    let hp = HpIntegrator::<_, _, 2, 2>::new(Rn::<2>, &lob, Chart::Exp, l).unwrap();
    // Lobatto IIIA applied to both q and p (not symplectic) differs at O(h^3) per step
    let mut s = LieState::new(Vector2::new(0.1, -0.2), Vector2::new(0.3, 0.1));
    let (q, p) = (s.g, s.mu);
    hp.step(&mut s, 0.05).unwrap();
    let (a, b, _) = lob.arrays::<2>().unwrap();
    let h = 0.05;
    // IIIA for both: Q1 = q, Q2 = q1, P1 = p, P2 = p1 (trapezoidal rule, implicit)
    let (mut q1, mut p1) = (q, p);
    for _ in 0..200 {
        let nq = q + (p * b[0] + p1 * b[1]) * h;
        let np = p + (force(&q) * a[1][0] + force(&q1) * a[1][1]) * h;
        (q1, p1) = (nq, np);
    }
    let diff = (s.g - q1).amax().max((s.mu - p1).amax());
    eprintln!("HP Lobatto IIIA 2 vs trapezoidal rule (not the PRK): {diff:.2e}");
    // one step already differs by O(h^3) ≈ 1e-5, far above the 1e-13 of the test above
    assert!(diff > 1e-9, "{diff:.3e}");
}
