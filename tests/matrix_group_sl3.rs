//! SL(3, R) written with three functions (`hat`, `vee`, membership: `geom_core::lie::MatrixGroup`)
//! outside the crates runs every Lie-group layer with no other impl: the Hamilton–Pontryagin
//! Störmer–Verlet step, the Lie-group cotangent lift of the midpoint θ-map, its Lie–Poisson
//! reduction, RKMK 4 on the reconstruction equation, and the discrete Euler–Lagrange flows of the Lie group `SL(3) ⇉ {e}` and of the
//! pair groupoid `SL(3) × SL(3) ⇉ SL(3)`, all on the exp chart. The free left-invariant motion
//! `ℓ(ξ) = ½ ξᵀ I ξ` conserves the spatial momentum `Ad*_{g⁻¹} μ`, the Casimirs `tr(A²)`,
//! `tr(A³)` of the body momentum, and keeps the energy bounded; Cayley methods refuse the group
//! with `GeomError::ChartUnavailable`.

use discretization::lie_function::{LieAutoDiff, LieFunction};
use discretization::{
    LieCotangentLiftIntegrator, LieGroupDiscreteEulerLagrange, LieGroupThetaMap, LiePoissonIntegrator,
};
use geom_core::function::ScalarFunction;
use geom_core::lie::{Chart, LieGroup, Linear, MatrixGroup};
use geom_core::step::{LieState, OneStep};
use geom_core::{GeomError, Result, Scalar};
use groupoid::discretization_map::{AlgebroidLagrangian, FibreThetaMap, ReducedLagrangian};
use groupoid::integrator::{CotangentPoint, GroupoidIntegrator, Induced};
use groupoid::{GroupAsGroupoid, PairOfGroup};
use integrators::hp::{self, LeftLagrangian};
use integrators::rkmk::{GroupState, LieVectorField, Rkmk};
use integrators::tableau;
use nalgebra::{Matrix3, SMatrix, SVector};

/// sl(3): `hat(x) = [[x0, x2, x3], [x4, x1 - x0, x5], [x6, x7, -x1]]` (traceless).
#[derive(Debug, Clone, Copy, Default)]
struct Sl3;
impl MatrixGroup<8, 3> for Sl3 {
    fn name(&self) -> String {
        "SL(3,R)".into()
    }
    fn hat<S: Scalar>(&self, x: &SVector<S, 8>) -> Matrix3<S> {
        Matrix3::new(x[0], x[2], x[3], x[4], x[1] - x[0], x[5], x[6], x[7], -x[1])
    }
    /// The coordinates of the traceless part `m - tr(m)/3 I`.
    fn vee<S: Scalar>(&self, m: &Matrix3<S>) -> SVector<S, 8> {
        let t = m.trace() / S::from(3.0);
        SVector::<S, 8>::from([
            m[(0, 0)] - t,
            t - m[(2, 2)],
            m[(0, 1)],
            m[(0, 2)],
            m[(1, 0)],
            m[(1, 2)],
            m[(2, 0)],
            m[(2, 1)],
        ])
    }
    /// `|det g − 1|` relative to the size `max(1, |g|_max)³` of the terms of `det g`: SL(3) is not
    /// compact, free motions grow `|g|` exponentially, and round-off alone moves `det g` by
    /// `~ε |g|³` (at `|g| = 6000`, `det g − 1 = 2e-7` after 1000 steps of any method).
    fn defect(&self, g: &Matrix3<f64>) -> f64 {
        (g.determinant() - 1.0).abs() / g.amax().max(1.0).powi(3)
    }
}

type SL3 = Linear<Sl3, 3>;
const SL3: SL3 = Linear(Sl3);
type State = LieState<Matrix3<f64>, 8>;

const INERTIA: [f64; 8] = [1.0, 1.5, 2.0, 2.5, 0.8, 1.2, 1.7, 0.9];

fn mu0() -> SVector<f64, 8> {
    SVector::from([0.4, -0.3, 0.5, 0.2, -0.6, 0.3, 0.1, -0.2])
}
fn g0() -> Matrix3<f64> {
    SL3.exp(&SVector::from([0.1, -0.05, 0.2, 0.0, -0.1, 0.15, 0.05, 0.1]))
}

/// `ℓ(ξ) = ½ ξᵀ I ξ`, `I = diag(INERTIA)`.
#[derive(Debug, Clone, Copy)]
struct Free;
impl ScalarFunction<8> for Free {
    fn eval<S: Scalar>(&self, xi: &SVector<S, 8>) -> S {
        (0..8).fold(S::from(0.0), |a, i| a + xi[i] * xi[i] * S::from(INERTIA[i])) * S::from(0.5)
    }
}
impl<S: Scalar> LieFunction<S, SL3, 8> for Free {
    fn eval(&self, _: &SL3, _: &Matrix3<S>, xi: &SVector<S, 8>) -> S {
        ScalarFunction::eval(self, xi)
    }
}
impl<S: Scalar> LeftLagrangian<S, SL3, 8> for Free {
    const LEFT_INVARIANT: bool = true;
    fn momentum(&self, _: &SL3, _: &Matrix3<S>, xi: &SVector<S, 8>) -> Result<SVector<S, 8>> {
        Ok(SVector::from_fn(|i, _| xi[i] * S::from(INERTIA[i])))
    }
    fn force(&self, _: &SL3, _: &Matrix3<S>, _: &SVector<S, 8>) -> Result<SVector<S, 8>> {
        Ok(SVector::zeros())
    }
    fn velocity_guess(&self, _: &SL3, _: &Matrix3<S>, pi: &SVector<S, 8>) -> Option<SVector<S, 8>> {
        Some(SVector::from_fn(|i, _| pi[i] / S::from(INERTIA[i])))
    }
}
/// The same `ℓ` on the algebroid `T SL(3)` of the pair groupoid (left-trivialized velocity).
impl AlgebroidLagrangian<PairOfGroup<SL3>, 8> for Free {
    fn eval<S: Scalar>(&self, _: &PairOfGroup<SL3>, _: &Matrix3<S>, xi: &SVector<S, 8>) -> S {
        ScalarFunction::eval(self, xi)
    }
}

/// `H(g, μ) = h(μ) = ½ μᵀ I⁻¹ μ`.
#[derive(Debug, Clone, Copy)]
struct Energy;
impl ScalarFunction<8> for Energy {
    fn eval<S: Scalar>(&self, mu: &SVector<S, 8>) -> S {
        (0..8).fold(S::from(0.0), |a, i| a + mu[i] * mu[i] * S::from(1.0 / INERTIA[i])) * S::from(0.5)
    }
}
impl<S: Scalar> LieFunction<S, SL3, 8> for Energy {
    fn eval(&self, _: &SL3, _: &Matrix3<S>, mu: &SVector<S, 8>) -> S {
        ScalarFunction::eval(self, mu)
    }
}

fn energy(mu: &SVector<f64, 8>) -> f64 {
    ScalarFunction::eval(&Energy, mu)
}

/// The Casimirs `(tr A², tr A³)` of `μ ∈ sl(3)*`, `A ∈ sl(3)` the matrix with
/// `tr(A hat(x)) = μ·x` for every `x`: `Ad*_g μ` is `g⁻¹ A g`, so both are constant on coadjoint
/// orbits.
fn casimirs(mu: &SVector<f64, 8>) -> (f64, f64) {
    let e = |i: usize| Sl3.hat(&SVector::<f64, 8>::from_fn(|j, _| if i == j { 1.0 } else { 0.0 }));
    let k = SMatrix::<f64, 8, 8>::from_fn(|i, j| (e(i) * e(j)).trace());
    let a = Sl3.hat(&k.lu().solve(mu).expect("the trace form of sl(3) is nondegenerate"));
    ((a * a).trace(), (a * a * a).trace())
}

/// Largest drifts over a run: `(|Δ Ad*_{g⁻¹} μ|, |ΔE|/E, |Δ tr A²|, |Δ tr A³|)` and the end state.
fn run(step: &mut dyn FnMut(&mut State) -> Result<()>, n: usize) -> Result<([f64; 4], State)> {
    let mut s = State::new(g0(), mu0());
    let (m0, e0, c0) = (s.spatial_momentum(&SL3), energy(&s.mu), casimirs(&s.mu));
    let mut worst = [0.0f64; 4];
    for _ in 0..n {
        step(&mut s)?;
        let c = casimirs(&s.mu);
        let d = [
            (s.spatial_momentum(&SL3) - m0).amax(),
            (energy(&s.mu) - e0).abs() / e0,
            (c.0 - c0.0).abs(),
            (c.1 - c0.1).abs(),
        ];
        for (w, v) in worst.iter_mut().zip(d) {
            *w = w.max(v);
        }
    }
    assert!((s.g.determinant() - 1.0).abs() < 1e-12, "det g - 1 = {:e}", s.g.determinant() - 1.0);
    Ok((worst, s))
}

const H: f64 = 0.05;
/// `T = 20`: `|g|` grows to about 33 (condition number `‖g‖_∞ ‖g⁻¹‖_∞ ≈ 800`).
const STEPS: usize = 400;

#[test]
fn hp_stormer_verlet_on_sl3_conserves_the_momentum_map_and_bounds_the_energy() -> Result<()> {
    let sv = hp::stormer_verlet(SL3, Chart::Exp, Free)?;
    let ([dm, de, dc2, dc3], end) = run(&mut |s| sv.step(s, H), STEPS)?;
    eprintln!(
        "SL(3) HP Störmer–Verlet (exp), h = {H}, {STEPS} steps: |Δ Ad*μ| {dm:.2e}, |ΔE|/E {de:.2e}, |Δ tr A²| {dc2:.2e}, |Δ tr A³| {dc3:.2e}, |g|∞ {:.1}",
        end.g.amax()
    );
    assert!(dm < 1e-11, "spatial momentum drift {dm:e}");
    assert!(dc2 < 1e-12 && dc3 < 1e-12, "Casimir drift {dc2:e} {dc3:e}");
    assert!(de < 1e-3, "energy error {de:e}");
    // Cayley is refused at construction, with the typed error
    match hp::stormer_verlet(SL3, Chart::Cayley, Free) {
        Err(GeomError::ChartUnavailable { chart: "cayley", group }) => assert_eq!(&*group, "SL(3,R)"),
        other => panic!("HP with Cayley on SL(3): {:?}", other.map(|_| ())),
    }
    Ok(())
}

/// The reconstruction equation of the free motion, `ġ = g I⁻¹ Ad*_g m` (`m` the spatial
/// momentum, so the body momentum is `μ = Ad*_g m`).
struct Reconstruction(SVector<f64, 8>);
impl LieVectorField<SL3, 8> for Reconstruction {
    fn eval(&self, group: &SL3, _: f64, g: &Matrix3<f64>) -> Result<SVector<f64, 8>> {
        let mu = group.coadjoint(g, &self.0);
        Ok(SVector::from_fn(|i, _| mu[i] / INERTIA[i]))
    }
}

#[test]
fn rkmk_4_on_sl3_has_order_4_and_stays_on_the_group() -> Result<()> {
    let m = State::new(g0(), mu0()).spatial_momentum(&SL3);
    let rk = Rkmk::<_, _, 8, 4>::new(SL3, Reconstruction(m), &tableau::rk4(), Chart::Exp)?;
    let solve = |h: f64, n: usize| -> Result<Matrix3<f64>> {
        let mut s = GroupState::new(0.0, g0());
        for _ in 0..n {
            rk.step(&mut s, h)?;
        }
        Ok(s.g)
    };
    // T = 2: h = 0.05 and 0.025 against h = 0.003125
    let reference = solve(0.003125, 640)?;
    let (e1, e2) = ((solve(0.05, 40)? - reference).amax(), (solve(0.025, 80)? - reference).amax());
    let ratio = e1 / e2;
    let end = solve(0.05, STEPS)?;
    let mu = SL3.coadjoint(&end, &m);
    let de = (energy(&mu) - energy(&mu0())).abs() / energy(&mu0());
    eprintln!(
        "SL(3) RKMK 4 (exp): error ratio h -> h/2 {ratio:.2}, |det g - 1| {:.1e}, |ΔE|/E {de:.2e} at T = 20",
        (end.determinant() - 1.0).abs()
    );
    assert!((3.8..4.2).contains(&ratio.log2()), "order 4: error ratio {ratio} ({e1:e}, {e2:e})");
    assert!((end.determinant() - 1.0).abs() < 1e-12);
    assert!(de < 1e-5, "energy error {de:e}");
    assert!(matches!(
        Rkmk::<_, _, 8, 4>::new(SL3, Reconstruction(m), &tableau::rk4(), Chart::Cayley),
        Err(GeomError::ChartUnavailable { chart: "cayley", .. })
    ));
    Ok(())
}

#[test]
fn the_cotangent_lift_and_its_lie_poisson_reduction_run_on_sl3() -> Result<()> {
    let lift = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(SL3, Chart::Exp), LieAutoDiff(Energy));
    let ([dm, de, dc2, dc3], end) = run(&mut |s| lift.step(s, H), STEPS)?;
    eprintln!(
        "SL(3) cotangent lift of the midpoint map (exp): |Δ Ad*μ| {dm:.2e}, |ΔE|/E {de:.2e}, |Δ tr A²| {dc2:.2e}, |Δ tr A³| {dc3:.2e}"
    );
    assert!(dm < 1e-11, "spatial momentum drift {dm:e}");
    assert!(dc2 < 1e-12 && dc3 < 1e-12, "Casimir drift {dc2:e} {dc3:e}");
    assert!(de < 1e-3, "energy error {de:e}");
    // the reduced map on sl(3)* is the lift's momentum, step by step, and keeps the Casimirs
    let lp = LiePoissonIntegrator::new(LieGroupThetaMap::midpoint(SL3, Chart::Exp), Energy);
    let mut mu = mu0();
    let mut s = State::new(g0(), mu0());
    let c0 = casimirs(&mu);
    for _ in 0..200 {
        lp.step(&mut mu, H)?;
        lift.step(&mut s, H)?;
    }
    assert!((mu - s.mu).amax() < 1e-12, "Lie–Poisson vs lift: {:e}", (mu - s.mu).amax());
    let c = casimirs(&mu);
    assert!((c.0 - c0.0).abs() < 1e-13 && (c.1 - c0.1).abs() < 1e-13, "{c:?} vs {c0:?}");
    assert!((end.mu - mu0()).amax() > 1e-2, "the body momentum does move");
    // Cayley: refused on the first step, with the typed error
    let cay = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(SL3, Chart::Cayley), LieAutoDiff(Energy));
    let mut s = State::new(g0(), mu0());
    assert!(matches!(cay.step(&mut s, H), Err(GeomError::ChartUnavailable { .. })));
    assert_eq!(s.g, g0(), "a refused step leaves the state as it was");
    Ok(())
}

#[test]
fn the_del_flow_of_sl3_as_a_groupoid_is_the_discrete_euler_poincare_step() -> Result<()> {
    let gd = GroupAsGroupoid::new(SL3, Chart::Exp);
    let flow = GroupoidIntegrator::new(gd, Induced::new(FibreThetaMap::new(0.0)?, ReducedLagrangian(Free)));
    let dep = LieGroupDiscreteEulerLagrange::new(SL3, Chart::Exp, Free);
    let ([dm, de, dc2, dc3], end) = run(&mut |s| flow.step(s, H), STEPS)?;
    eprintln!(
        "SL(3) ⇉ {{e}} DEL flow (exp): |Δ Ad*μ| {dm:.2e}, |ΔE|/E {de:.2e}, |Δ tr A²| {dc2:.2e}, |Δ tr A³| {dc3:.2e}"
    );
    assert!(dm < 1e-11, "spatial momentum drift {dm:e}");
    assert!(dc2 < 1e-12 && dc3 < 1e-12, "Casimir drift {dc2:e} {dc3:e}");
    assert!(de < 1e-3, "energy error {de:e}");
    let (mut a, mut b) = (State::new(g0(), mu0()), State::new(g0(), mu0()));
    for _ in 0..100 {
        flow.step(&mut a, H)?;
        dep.step(&mut b, H)?;
    }
    let d = (a.g - b.g).amax().max((a.mu - b.mu).amax());
    assert!(d < 1e-12, "groupoid flow vs discrete Euler–Poincaré on SL(3): {d:e}");
    assert!((end.g - g0()).amax() > 0.1, "the configuration does move");
    Ok(())
}

/// The pair groupoid stores both ends of an arrow, `(x, x τ(ξ))`, so its DEL residual, a momentum
/// difference, cannot get below `~ε κ(x) |μ| / h` (`κ(x) = ‖x‖ ‖x⁻¹‖`, which grows without bound
/// on SL(3)): with a residual tolerance that ignored `κ(x)` this flow stalled at step 731
/// (`NotConverged`, residual 1.05e-11, at `κ ≈ 4e4`). It now runs through, to `κ ≈ 2e6`, with the
/// momentum map and the Casimirs kept to the conditioning of the representation.
#[test]
fn the_del_flow_of_the_pair_groupoid_of_sl3_runs_where_it_stalled_and_conserves_the_momentum_map() -> Result<()> {
    let pair = PairOfGroup::new(SL3, Chart::Exp);
    let flow = GroupoidIntegrator::new(pair, Induced::new(FibreThetaMap::midpoint(), Free));
    let mut s = CotangentPoint::new(g0(), mu0());
    let spatial = |s: &CotangentPoint<Matrix3<f64>, 8>| SL3.coadjoint(&SL3.inverse(&s.x), &s.mu);
    let (m0, e0, c0) = (spatial(&s), energy(&s.mu), casimirs(&s.mu));
    let (mut dm, mut de, mut dc) = (0.0f64, 0.0f64, 0.0f64);
    for k in 0..1000 {
        flow.step(&mut s, H).map_err(|e| {
            eprintln!("pair groupoid step {k}: {e}");
            e
        })?;
        let c = casimirs(&s.mu);
        (de, dc) = (de.max((energy(&s.mu) - e0).abs() / e0), dc.max((c.0 - c0.0).abs()).max((c.1 - c0.1).abs()));
        dm = dm.max((spatial(&s) - m0).amax());
        if k + 1 == STEPS {
            // the same horizon as the other flows
            eprintln!(
                "SL(3) × SL(3) ⇉ SL(3) DEL flow (midpoint, exp), {STEPS} steps: |Δ Ad*μ| {dm:.2e}, κ {:.1e}",
                condition(&s.x)
            );
            assert!(dm < 1e-8, "spatial momentum drift {dm:e} after {STEPS} steps");
        }
    }
    let kappa = condition(&s.x);
    eprintln!(
        "SL(3) × SL(3) ⇉ SL(3) DEL flow, 1000 steps: |Δ Ad*μ| {dm:.2e}, |ΔE|/E {de:.2e}, |Δ Casimirs| {dc:.2e}, |g|∞ {:.1}, κ {kappa:.1e}",
        s.x.amax()
    );
    assert!(kappa > 1e6, "the run reaches the ill-conditioned elements where the flow stalled");
    assert!(LieGroup::<f64, 8>::defect(&SL3, &s.x) < 1e-15);
    assert!(dc < 1e-7, "Casimir drift {dc:e}");
    assert!(de < 1e-3, "energy error {de:e}");
    Ok(())
}

/// `‖g‖_∞ ‖g⁻¹‖_∞`.
fn condition(g: &Matrix3<f64>) -> f64 {
    geom_core::lie::matrix_group::condition(g)
}
