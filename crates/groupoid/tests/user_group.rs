//! A Lie group written outside the workspace crates — SL(2, R) — passes the public group test
//! suite, enters every ready-made groupoid (the group over a point, the pair groupoid, the action
//! groupoid of left multiplication, the trivial Atiyah groupoid) with no wrapper, and drives the
//! discretization layer's induced integrator on T*G. A deliberately wrong `ad` fails the suite.

use discretization::lie_function::{LieAutoDiff, LieFunction};
use discretization::{LieCotangentLiftIntegrator, LieGroupThetaMap, LieState, OneStep};
use geom_core::action::LeftMultiplication;
use geom_core::lie::testing::{check_group, check_matrix_group};
use geom_core::lie::{Chart, Gl, LieGroup, LieGroupFamily, Side, matrix_group};
use geom_core::{GeomError, Result, Scalar};
use groupoid::{
    ActionGroupoid, DiscreteFlow, DiscreteLagrangian, GroupAsGroupoid, LieGroupoid, PairOfGroup, TrivialAtiyah,
    legendre_minus, legendre_plus,
};
use nalgebra::{Matrix2, SMatrix, SVector, Vector1, Vector3};
use num_dual::{Dual64, HyperDual64};

/// SL(2, R): `X = [[a, b], [c, -a]]` for `x = (a, b, c)`. `flip_ad` makes `ad` wrong by a sign.
/// `jets` gives the closed-form translation jets (`LieGroupFamily::translation_jet` and
/// `translation_jet_dual`, the fast path of the groupoid's Legendre transforms and DEL Jacobian);
/// `swap_jets` gives them with the sides swapped (wrong).
#[derive(Debug, Clone, Copy, Default)]
struct Sl2 {
    flip_ad: bool,
    jets: bool,
    swap_jets: bool,
}

impl<S: Scalar> LieGroup<S, 3> for Sl2 {
    type Element = Matrix2<S>;
    type Matrix = Matrix2<S>;
    fn name(&self) -> String {
        "SL(2,R)".into()
    }
    fn identity(&self) -> Matrix2<S> {
        Matrix2::identity()
    }
    fn compose(&self, a: &Matrix2<S>, b: &Matrix2<S>) -> Matrix2<S> {
        a * b
    }
    fn inverse(&self, g: &Matrix2<S>) -> Matrix2<S> {
        let det = g[(0, 0)] * g[(1, 1)] - g[(0, 1)] * g[(1, 0)];
        Matrix2::new(g[(1, 1)], -g[(0, 1)], -g[(1, 0)], g[(0, 0)]) / det
    }
    fn exp(&self, x: &SVector<S, 3>) -> Matrix2<S> {
        Gl::<2, 4>::expm(&self.hat(x))
    }
    fn log(&self, g: &Matrix2<S>) -> Result<SVector<S, 3>> {
        Ok(self.vee(&Gl::<2, 4>::logm(g)?))
    }
    fn hat(&self, x: &SVector<S, 3>) -> Matrix2<S> {
        Matrix2::new(x[0], x[1], x[2], -x[0])
    }
    fn vee(&self, m: &Matrix2<S>) -> SVector<S, 3> {
        Vector3::new((m[(0, 0)] - m[(1, 1)]) * S::from(0.5), m[(0, 1)], m[(1, 0)])
    }
    fn to_matrix(&self, g: &Matrix2<S>) -> Matrix2<S> {
        *g
    }
    fn adjoint(&self, g: &Matrix2<S>) -> SMatrix<S, 3, 3> {
        matrix_group::adjoint(self, g)
    }
    fn ad(&self, x: &SVector<S, 3>) -> SMatrix<S, 3, 3> {
        let ad = matrix_group::ad(self, x);
        if self.flip_ad { -ad } else { ad }
    }
    fn dcay_inv(&self, x: &SVector<S, 3>) -> SMatrix<S, 3, 3> {
        matrix_group::dcay_inv(self, x)
    }
    fn cayley(&self, x: &SVector<S, 3>) -> Result<Matrix2<S>> {
        matrix_group::cayley(self, x)
    }
    fn cayley_inv(&self, g: &Matrix2<S>) -> Result<SVector<S, 3>> {
        matrix_group::cayley_inv(self, g)
    }
    fn defect(&self, g: &Matrix2<S>) -> f64 {
        let det = g[(0, 0)] * g[(1, 1)] - g[(0, 1)] * g[(1, 0)];
        (det.re() - 1.0).abs() + if g.iter().all(|v| v.re().is_finite()) { 0.0 } else { f64::NAN }
    }
}

/// The group at every scalar (what every layer needs besides `LieGroup<S, 3>`): the element
/// type, the group at `S`, the entrywise moves between scalars, and closed-form jets.
impl LieGroupFamily<3> for Sl2 {
    type ElementAt<S: Scalar> = Matrix2<S>;
    fn at<S: Scalar>(&self) -> impl LieGroup<S, 3, Element = Matrix2<S>> {
        *self
    }
    fn lift_at<S: Scalar>(&self, g: &Matrix2<f64>) -> Matrix2<S> {
        g.map(S::from)
    }
    fn map_scalar<A: Scalar, B: Scalar, F: Fn(A) -> B>(&self, g: &Matrix2<A>, f: &F) -> Matrix2<B> {
        g.map(f)
    }
    /// `g + ε g x̂` (left) or `g + ε x̂ g` (right).
    fn translation_jet(&self, g: &Matrix2<f64>, x: &SVector<f64, 3>, side: Side) -> Option<Matrix2<Dual64>> {
        let t = self.translated(g, x, side)?;
        Some(g.zip_map(&t, Dual64::new))
    }
    /// `g₀ + δ g₁` moved the same way: entries `(g₀, g₁, g₀x̂ or x̂g₀, g₁x̂ or x̂g₁)`.
    fn translation_jet_dual(
        &self,
        g: &Matrix2<Dual64>,
        x: &SVector<f64, 3>,
        side: Side,
    ) -> Option<Matrix2<HyperDual64>> {
        let (g0, g1) = (g.map(|v| v.re), g.map(|v| v.eps));
        let (t0, t1) = (self.translated(&g0, x, side)?, self.translated(&g1, x, side)?);
        Some(Matrix2::from_fn(|i, j| HyperDual64::new(g0[(i, j)], g1[(i, j)], t0[(i, j)], t1[(i, j)])))
    }
}

impl Sl2 {
    /// `g x̂` or `x̂ g` (sides swapped with `swap_jets`), `None` without `jets`.
    fn translated(&self, g: &Matrix2<f64>, x: &SVector<f64, 3>, side: Side) -> Option<Matrix2<f64>> {
        let xh = LieGroup::<f64, 3>::hat(self, x);
        self.jets.then(|| if (side == Side::Left) != self.swap_jets { g * xh } else { xh * g })
    }
}

const SL2: Sl2 = Sl2 { flip_ad: false, jets: false, swap_jets: false };

fn samples() -> Vec<SVector<f64, 3>> {
    vec![Vector3::new(0.3, -0.2, 0.5), Vector3::new(-0.4, 0.7, 0.1), Vector3::new(0.1, 0.2, -0.6)]
}

#[test]
fn sl2_passes_the_public_group_suite() {
    check_group(&SL2, &samples(), 1e-11);
    check_matrix_group(&SL2, &samples(), 1e-11);
}

#[test]
fn a_wrong_ad_fails_the_suite() {
    let wrong = Sl2 { flip_ad: true, ..SL2 };
    let result = std::panic::catch_unwind(|| check_group(&wrong, &samples(), 1e-11));
    assert!(result.is_err(), "a sign error in ad must fail the suite");
}

/// `½ |W - I|²_M / h` with `M = diag(1, 2)` on the columns: a kinetic discrete Lagrangian of `W`.
fn kinetic<S: Scalar>(w: &Matrix2<S>, h: f64) -> S {
    let d = w - Matrix2::identity();
    (d.column(0).norm_squared() + d.column(1).norm_squared() * S::from(2.0)) * S::from(0.5 / h)
}

struct OnGroup(f64);
impl DiscreteLagrangian<GroupAsGroupoid<Sl2>, 3> for OnGroup {
    fn eval<S: Scalar>(&self, _: &GroupAsGroupoid<Sl2>, w: &Matrix2<S>) -> S {
        kinetic(w, self.0)
    }
}
struct OnPairs(f64);
impl DiscreteLagrangian<PairOfGroup<Sl2>, 3> for OnPairs {
    fn eval<S: Scalar>(&self, _: &PairOfGroup<Sl2>, g: &(Matrix2<S>, Matrix2<S>)) -> S {
        kinetic(&(LieGroup::<S, 3>::inverse(&SL2, &g.0) * g.1), self.0)
    }
}
struct OnAction(f64);
impl DiscreteLagrangian<ActionGroupoid<LeftMultiplication<Sl2>>, 3> for OnAction {
    fn eval<S: Scalar>(&self, _: &ActionGroupoid<LeftMultiplication<Sl2>>, g: &(Matrix2<S>, Matrix2<S>)) -> S {
        // kinetic in the arrow, a potential of the base point
        kinetic(&g.1, self.0) - g.0[(0, 1)] * g.0[(0, 1)] * S::from(0.1 * self.0)
    }
}
struct OnAtiyah(f64);
impl DiscreteLagrangian<TrivialAtiyah<Sl2, 1, 3>, 4> for OnAtiyah {
    fn eval<S: Scalar>(&self, _: &TrivialAtiyah<Sl2, 1, 3>, g: &(Vector1<S>, Vector1<S>, Matrix2<S>)) -> S {
        let v = (g.1[0] - g.0[0]) / S::from(self.0);
        v * v * S::from(0.5 * self.0) + kinetic(&g.2, self.0)
    }
}

/// `C(μ) = μ_a²/4 + μ_b μ_c`, the Casimir of sl(2)* (`-det` of the matrix paired with `μ` by the
/// trace), conserved by the discrete Lie–Poisson map `μ_{k+1} = Ad*_{W} μ_k`.
fn casimir(mu: &SVector<f64, 3>) -> f64 {
    mu[0] * mu[0] / 4.0 + mu[1] * mu[2]
}

#[test]
fn sl2_runs_the_del_flow_of_every_ready_made_groupoid() -> Result<()> {
    let h = 0.1;
    let w0 = SL2.exp(&Vector3::new(0.05, 0.1, -0.08));
    // the group over a point: discrete Euler–Poincaré, Casimir conserved
    for chart in [Chart::Exp, Chart::Cayley] {
        let gd = GroupAsGroupoid::new(SL2, chart);
        let flow = DiscreteFlow::new(gd, OnGroup(h));
        let mut w = w0;
        let c0 = casimir(&legendre_plus(&gd, flow.lagrangian(), &w));
        for _ in 0..200 {
            let (next, _) = flow.step(&w)?;
            // the step solves the DEL: F^+L(w_k) = F^-L(w_{k+1})
            let d = (legendre_plus(&gd, flow.lagrangian(), &w) - legendre_minus(&gd, flow.lagrangian(), &next)).amax();
            assert!(d < 1e-10, "{chart:?}: DEL residual {d:e}");
            w = next;
        }
        assert!(LieGroup::<f64, 3>::defect(&SL2, &w) < 1e-12);
        let dc = (casimir(&legendre_plus(&gd, flow.lagrangian(), &w)) - c0).abs();
        assert!(dc < 1e-10, "{chart:?}: Casimir drift {dc:e}");
    }
    // the pair groupoid SL(2) × SL(2)
    let pair = PairOfGroup::new(SL2, Chart::Cayley);
    let flow = DiscreteFlow::new(pair, OnPairs(h));
    let mut g = (SL2.identity(), w0);
    for _ in 0..100 {
        g = flow.step(&g)?.0;
    }
    assert!(LieGroup::<f64, 3>::defect(&SL2, &g.1) < 1e-12);
    // the action groupoid of left multiplication
    let action = ActionGroupoid::new(LeftMultiplication::new(SL2), Chart::Exp);
    let flow = DiscreteFlow::new(action, OnAction(h));
    let mut g = (SL2.exp(&Vector3::new(0.2, 0.1, 0.0)), w0);
    for _ in 0..100 {
        let (next, _) = flow.step(&g)?;
        assert!(
            LieGroupoid::<f64, 3>::base_distance(&action, &LieGroupoid::<f64, 3>::target(&action, &g), &next.0) < 1e-12
        );
        g = next;
    }
    // the trivial Atiyah groupoid R × R × SL(2) ⇉ R
    let atiyah = TrivialAtiyah::<Sl2, 1, 3>::new(SL2, Chart::Cayley);
    let flow = DiscreteFlow::new(atiyah, OnAtiyah(h));
    let mut g = (Vector1::new(0.0), Vector1::new(0.1), w0);
    for _ in 0..100 {
        g = flow.step(&g)?.0;
    }
    assert!((g.1[0] - g.0[0] - 0.1).abs() < 1e-12, "free motion in the base keeps its velocity");
    Ok(())
}

/// `H(g, μ) = ½ |μ|² + ε g_{01}` on SL(2): not invariant, any group.
#[derive(Debug)]
struct Hamiltonian;
impl<S: Scalar> LieFunction<S, Sl2, 3> for Hamiltonian {
    fn eval(&self, _: &Sl2, g: &Matrix2<S>, mu: &SVector<S, 3>) -> S {
        mu.norm_squared() * S::from(0.5) + g[(0, 1)] * S::from(0.1)
    }
}

#[test]
fn sl2_drives_the_induced_integrator_on_t_star_g() -> std::result::Result<(), GeomError> {
    let integ =
        LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(SL2, Chart::Cayley), LieAutoDiff(Hamiltonian));
    let mut s = LieState::new(SL2.exp(&Vector3::new(0.1, 0.0, 0.2)), Vector3::new(0.1, -0.05, 0.05));
    let e = |s: &LieState<Matrix2<f64>, 3>| LieFunction::<f64, Sl2, 3>::eval(&Hamiltonian, &SL2, &s.g, &s.mu);
    let e0 = e(&s);
    for _ in 0..100 {
        integ.step(&mut s, 0.05)?;
    }
    // (SL(2) is not compact: over long times this motion grows; T = 5 stays near the identity)
    assert!(s.g.amax() < 3.0, "{}", s.g);
    assert!(LieGroup::<f64, 3>::defect(&SL2, &s.g) < 1e-12);
    assert!((e(&s) - e0).abs() < 1e-3, "energy bounded: {:e}", (e(&s) - e0).abs());
    Ok(())
}

/// A user's group with closed-form jets (outside the crates): it passes the public jet check, a
/// jet with its sides swapped fails it, and the groupoid layer takes the jets with no wrapper,
/// landing on the same Legendre transforms, pairing matrix and DEL arrows as without them.
#[test]
fn a_users_translation_jets_reach_the_groupoid_layer() -> Result<()> {
    use geom_core::lie::testing::check_translation_jet;
    use groupoid::pairing_matrix;
    let with = Sl2 { jets: true, ..SL2 };
    check_translation_jet(&with, &samples(), 1e-12);
    let swapped = Sl2 { jets: true, swap_jets: true, ..SL2 };
    let result = std::panic::catch_unwind(|| check_translation_jet(&swapped, &samples(), 1e-12));
    assert!(result.is_err(), "jets with the sides swapped must fail the check");
    let h = 0.1;
    let w0 = SL2.exp(&Vector3::new(0.05, 0.1, -0.08));
    for chart in [Chart::Exp, Chart::Cayley] {
        let (fast, plain) = (GroupAsGroupoid::new(with, chart), GroupAsGroupoid::new(SL2, chart));
        let l = OnGroup(h);
        let d_plus = (legendre_plus(&fast, &l, &w0) - legendre_plus(&plain, &l, &w0)).amax();
        let d_minus = (legendre_minus(&fast, &l, &w0) - legendre_minus(&plain, &l, &w0)).amax();
        let d_pair = (pairing_matrix(&fast, &l, &w0) - pairing_matrix(&plain, &l, &w0)).amax();
        assert!(d_plus < 1e-13 && d_minus < 1e-13 && d_pair < 1e-11, "{chart:?}: {d_plus:e} {d_minus:e} {d_pair:e}");
        // the layer does take the user's jets: swapped ones change the transform
        let wrong = GroupAsGroupoid::new(swapped, chart);
        assert!((legendre_plus(&wrong, &l, &w0) - legendre_plus(&plain, &l, &w0)).amax() > 1e-4);
        let (ff, fp) = (DiscreteFlow::new(fast, OnGroup(h)), DiscreteFlow::new(plain, OnGroup(h)));
        let (mut a, mut b) = (w0, w0);
        for _ in 0..100 {
            a = ff.step(&a)?.0;
            b = fp.step(&b)?.0;
        }
        assert!((a - b).amax() < 1e-12, "{chart:?}: jets and curves give different arrows");
    }
    Ok(())
}
