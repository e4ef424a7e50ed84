//! The integrator contract (`geom_core::step::testing`) over every integrator of the workspace
//! that implements `OneStep`, listed here one by one, and over a user's integrator written
//! outside the crates; deliberately broken integrators fail it, each at the check it breaks.
//!
//! Symplecticity (`MᵀJM = J` of the finite-difference step Jacobian, ≤ 1e-8) is checked for the
//! methods on `T*R^N` in canonical coordinates; the Lie–Poisson integrator preserves the
//! Lie–Poisson tensor of so(3)*. The Lie-group states `(g, μ)` and the states on `T*S²` are not
//! canonical coordinates of their flat words: their symplecticity is checked by their crates'
//! own tests with the symplectic form of `T*G` and of the sphere.

use discretization::composition::{kahan_li8, triple_jump};
use discretization::sphere_lift::sphere_state;
use discretization::{
    AdvectedFunction, AdvectedLiePoissonIntegrator, AdvectedState, Composition, CotangentLiftIntegrator,
    DiscreteEulerLagrange, LieAutoDiff, LieCotangentLiftIntegrator, LieFunction, LieGroupThetaMap,
    LieLagrangianIntegrator, LiePoissonIntegrator, SphereCotangentLiftIntegrator, SphereDiscreteEulerLagrange,
    SphereThetaMap, ThetaMap,
};
use geom_core::action::SphereRotation;
use geom_core::function::{AutoDiff, PhaseSpaceFunction, ScalarFunction};
use geom_core::lie::{Chart, LieGroup, So3};
use geom_core::step::testing::{
    Contract, ContractViolation, check_integrator, check_poisson_map, check_symplectic, lie_poisson_tensor,
};
use geom_core::step::{FlatState, LieState, OneStep, PhaseState, check_step};
use geom_core::{GeomError, Scalar};
use groupoid::discretization_map::{FibreThetaMap, ReducedLagrangian, TangentLagrangian};
use groupoid::integrator::{GroupoidIntegrator, Induced, RattleIntegrator, Stepped};
use groupoid::models::{RollingDisk, UnitSphere};
use groupoid::time_dependent;
use groupoid::{GroupAsGroupoid, PairGroupoid};
use integrators::classical::{
    ExplicitRk, Gauss2, HamiltonianField, LobattoIIIAIIIB3, StormerVerlet, SymplecticEulerA, SymplecticEulerB,
};
use integrators::dop853::{Dop853, Dop853Flow};
use integrators::energy_preserving::{Avf, Gonzalez, Invariant, ItohAbe, SymmetricProjection};
use integrators::hp;
use integrators::lgvi::Lgvi;
use integrators::lie_poisson_baselines::ReducedTop;
use integrators::magnus::{AlgebraCurve, LinearMagnus, Magnus, MagnusOrder, MatrixCurve};
use integrators::models::FreeRigidBody;
use integrators::rkmk::{GroupState, LieVectorField, Rkmk};
use integrators::splitting::{Harmonic, Kick, ProcessedWisdomHolman, Splitting, WisdomHolman, blanes_moan_s6};
use integrators::tableau;
use integrators::variational::VariationalIntegrator;
use integrators::verlet_composition::VerletComposition;
use integrators::{commutator_free, crouch_grossman};
use nalgebra::{Matrix3, SVector, Vector2, Vector3};

/// Hénon–Heiles, `H = ½|p|² + ½(x² + y²) + x²y − y³/3`, at energy 0.05.
#[derive(Debug, Clone, Copy)]
struct HenonHeiles;
impl PhaseSpaceFunction<2> for HenonHeiles {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        let (x, y) = (q[0], q[1]);
        (p.norm_squared() + x * x + y * y) * S::from(0.5) + x * x * y - y * y * y / S::from(3.0)
    }
}
/// Its Lagrangian `L = ½|v|² − V(q)`.
#[derive(Debug, Clone, Copy)]
struct HenonHeilesL;
impl PhaseSpaceFunction<2> for HenonHeilesL {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
        let (x, y) = (q[0], q[1]);
        v.norm_squared() * S::from(0.5) - (x * x + y * y) * S::from(0.5) - x * x * y + y * y * y / S::from(3.0)
    }
}
/// Its cubic part `x²y − y³/3`, the kick of the splitting (harmonic oscillator | cubic kick).
struct HenonHeilesCubic;
impl ScalarFunction<2> for HenonHeilesCubic {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
        q[0] * q[0] * q[1] - q[1] * q[1] * q[1] / S::from(3.0)
    }
}
fn hh0() -> PhaseState<2> {
    PhaseState::new(Vector2::new(0.1, -0.15), Vector2::new(0.2, 0.15))
}

/// Spherical pendulum on S² (unit mass, length and gravity), `H = ½|p|² + q₃`, and its `L`.
struct SpherePendulum;
impl PhaseSpaceFunction<3> for SpherePendulum {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        p.norm_squared() * S::from(0.5) + q[2]
    }
}
struct SpherePendulumL;
impl PhaseSpaceFunction<3> for SpherePendulumL {
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, v: &SVector<S, 3>) -> S {
        v.norm_squared() * S::from(0.5) - q[2]
    }
}
fn sphere0() -> PhaseState<3> {
    let (q, p) = sphere_state(2.2, 0.0, 0.3, 1.1);
    PhaseState::new(q, p)
}

const INERTIA: [f64; 3] = [2.0, 1.0, 2.0 / 3.0];
/// Reduced free rigid body, `h(μ) = ½ μᵀ I⁻¹ μ`.
#[derive(Debug, Clone, Copy)]
struct Body;
impl ScalarFunction<3> for Body {
    fn eval<S: Scalar>(&self, m: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |a, i| a + m[i] * m[i] / S::from(INERTIA[i])) * S::from(0.5)
    }
}
/// `ℓ(ξ) = ½ ξᵀ I ξ`.
struct Inertia;
impl ScalarFunction<3> for Inertia {
    fn eval<S: Scalar>(&self, xi: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |a, i| a + xi[i] * xi[i] * S::from(INERTIA[i])) * S::from(0.5)
    }
}
/// Heavy top on the group, `H(R, μ) = h(μ) + e₃·R e₃`.
#[derive(Debug, Clone, Copy)]
struct TopH;
impl<S: Scalar> LieFunction<S, So3, 3> for TopH {
    fn eval(&self, _: &So3, r: &Matrix3<S>, m: &SVector<S, 3>) -> S {
        Body.eval(m) + r[(2, 2)]
    }
}
/// Its Lagrangian, `L(R, ξ) = ½ ξᵀ I ξ − e₃·R e₃`.
#[derive(Debug, Clone, Copy)]
struct TopL;
impl<S: Scalar> LieFunction<S, So3, 3> for TopL {
    fn eval(&self, _: &So3, r: &Matrix3<S>, xi: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |a, i| a + xi[i] * xi[i] * S::from(INERTIA[i])) * S::from(0.5) - r[(2, 2)]
    }
}
/// Reduced heavy top, `h(μ, Γ) = ½ μᵀ I⁻¹ μ + Γ₃`.
struct TopAdvected;
impl AdvectedFunction<3, 3> for TopAdvected {
    fn eval<S: Scalar>(&self, m: &SVector<S, 3>, gamma: &SVector<S, 3>) -> S {
        Body.eval(m) + gamma[2]
    }
}
/// A spinning frame, `ġ = g f(t, g)` with `f = (1, t/2, g₁₂)`.
struct Spin;
impl LieVectorField<So3, 3> for Spin {
    fn eval(&self, _: &So3, t: f64, g: &Matrix3<f64>) -> geom_core::Result<SVector<f64, 3>> {
        Ok(Vector3::new(1.0, 0.5 * t, g[(0, 1)]))
    }
}
/// `A(t) = (1, t/2, sin 2t)`: the spinning frame of `Spin` without its dependence on `g`.
struct SpinCurve;
impl AlgebraCurve<3> for SpinCurve {
    fn eval(&self, t: f64) -> geom_core::Result<SVector<f64, 3>> {
        Ok(Vector3::new(1.0, 0.5 * t, (2.0 * t).sin()))
    }
}
/// Mathieu's equation `x'' + (1.5 − 1.4 cos 2t) x = 0` as `ẏ = A(t) y`.
struct Mathieu;
impl MatrixCurve<2> for Mathieu {
    fn eval(&self, t: f64) -> geom_core::Result<nalgebra::Matrix2<f64>> {
        Ok(nalgebra::Matrix2::new(0.0, 1.0, -(1.5 - 1.4 * (2.0 * t).cos()), 0.0))
    }
}
fn body() -> FreeRigidBody {
    FreeRigidBody::principal(INERTIA[0], INERTIA[1], INERTIA[2]).unwrap()
}
fn lie0() -> LieState<Matrix3<f64>, 3> {
    LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(0.4, 0.9, -0.3))
}

/// The contract, and symplecticity where the state is canonical.
fn phase<M: OneStep<PhaseState<2>>>(method: &M, symplectic: bool, contract: &Contract) {
    let report = check_integrator(method, &hh0(), contract).unwrap_or_else(|e| panic!("{e}"));
    println!("{}: order {:.2}, reversibility {:?}", report.name, report.measured_order, report.reversibility_defect);
    if symplectic {
        let defect = check_symplectic(method, &hh0(), 0.1).unwrap();
        assert!(defect < 1e-8, "{}: |MᵀJM − J| = {defect:e}", method.name());
    }
}

fn contract() -> Contract {
    Contract::default()
}

#[test]
fn every_integrator_on_t_star_rn_keeps_the_contract() {
    let c = contract();
    // discretization: the cotangent lift of the θ-maps, its Lagrangian route, compositions
    phase(&CotangentLiftIntegrator::new(ThetaMap::midpoint(), AutoDiff(HenonHeiles)), true, &c);
    phase(&CotangentLiftIntegrator::new(ThetaMap::new(0.3).unwrap(), AutoDiff(HenonHeiles)), true, &c);
    phase(&CotangentLiftIntegrator::new(ThetaMap::new(0.0).unwrap(), AutoDiff::separable(HenonHeiles)), true, &c);
    phase(&DiscreteEulerLagrange::new(ThetaMap::midpoint(), HenonHeilesL), true, &c);
    let midpoint = CotangentLiftIntegrator::new(ThetaMap::midpoint(), AutoDiff(HenonHeiles));
    phase(&Composition::new(midpoint, triple_jump(2)).unwrap(), true, &c);
    // integrators: classical symplectic families, Verlet compositions, explicit RK, DOP853
    phase(&SymplecticEulerA::new(AutoDiff(HenonHeiles)), true, &c);
    phase(&SymplecticEulerB::new(AutoDiff(HenonHeiles)), true, &c);
    phase(&StormerVerlet::new(AutoDiff(HenonHeiles)), true, &c);
    phase(&StormerVerlet::new(AutoDiff::separable(HenonHeiles)), true, &c);
    phase(&Gauss2::new(AutoDiff(HenonHeiles)).unwrap(), true, &c);
    phase(&LobattoIIIAIIIB3::new(AutoDiff(HenonHeiles)).unwrap(), true, &c);
    // order 8: at h = 0.1 the differences are at round-off, so measure from h = 0.5 over T = 5
    let high = Contract { order_h: 0.5, order_time: 5.0, ..contract() };
    phase(&VerletComposition::new(AutoDiff::separable(HenonHeiles), kahan_li8()).unwrap(), true, &high);
    let split = (Harmonic::new(1.0).unwrap(), Kick(AutoDiff(HenonHeilesCubic)));
    phase(&Splitting::new(split, blanes_moan_s6()).unwrap(), true, &high);
    phase(&VariationalIntegrator::generalized_midpoint(HenonHeilesL, 0.5).unwrap(), true, &c);
    // groupoid: the discrete Euler–Lagrange flow of the pair groupoid, of an induced family
    let induced = Induced::new(FibreThetaMap::midpoint(), TangentLagrangian(HenonHeilesL));
    phase(&GroupoidIntegrator::new(PairGroupoid::<2>, induced).with_properties(2, true), true, &c);
    phase(&VariationalIntegrator::generalized_midpoint(HenonHeilesL, 0.3).unwrap(), true, &c);
    phase(&ExplicitRk::<_, 4>::new(&tableau::rk4(), HamiltonianField(AutoDiff(HenonHeiles))).unwrap(), false, &c);
    // energy-preserving (not symplectic)
    phase(&Avf::<_, 2>::new(AutoDiff(HenonHeiles)).unwrap(), false, &c);
    phase(&Gonzalez::new(AutoDiff(HenonHeiles)), false, &c);
    phase(&ItohAbe::new(AutoDiff(HenonHeiles)), false, &c);
    phase(&ItohAbe::symmetrized(AutoDiff(HenonHeiles)), false, &c);
    phase(
        &SymmetricProjection::new(Gauss2::new(AutoDiff(HenonHeiles)).unwrap(), Invariant(HenonHeiles)).unwrap(),
        false,
        &c,
    );
    // adaptive: its error is set by the tolerances, not by h
    let dop = Dop853Flow::new(Dop853::hamiltonian(AutoDiff(HenonHeiles)), 1e-12, 1e-12).unwrap();
    phase(&dop, false, &Contract { measure_order: false, ..contract() });
}

/// The Wisdom–Holman family (Jacobi and democratic heliocentric coordinates) on a star and two
/// planets of masses 0.05 and 0.025 in the plane.
#[test]
fn the_wisdom_holman_family_keeps_the_contract() {
    let model = geom_core::pairwise::gravity::<6, 2, 3>(1.0, [1.0, 0.05, 0.025]).unwrap();
    let x0 = PhaseState::new(
        SVector::from([0.0, 0.0, 1.0, 0.1, -1.5, 0.3]),
        SVector::from([-0.0015, -0.029, 0.0, 0.05, 0.0015, -0.021]),
    );
    fn check<M: OneStep<PhaseState<6>>>(m: &M, x0: &PhaseState<6>) {
        // SABAC4 is of order 4: measured from h = 0.3 over T = 9
        let c = if m.order() == 4 { Contract { order_h: 0.3, order_time: 9.0, ..contract() } } else { contract() };
        let report = check_integrator(m, x0, &c).unwrap_or_else(|e| panic!("{e}"));
        println!(
            "{}: order {:.2}, reversibility {:?}",
            report.name, report.measured_order, report.reversibility_defect
        );
        let defect = check_symplectic(m, x0, 0.1).unwrap();
        assert!(defect < 1e-8, "{}: |MᵀJM − J| = {defect:e}", m.name());
    }
    check(&WisdomHolman::whfast(&model).unwrap(), &x0);
    check(&WisdomHolman::whfast(&model).unwrap().with_corrector(17).unwrap(), &x0);
    check(&WisdomHolman::saba(&model, 4).unwrap(), &x0);
    check(&WisdomHolman::sabac(&model, 4).unwrap(), &x0);
    check(&WisdomHolman::whfast_democratic(&model).unwrap(), &x0);
    // the processed methods on their mapping variable (Jacobi, democratic heliocentric states):
    // of order 1 as maps of that state (the processed trajectory has the method's order)
    let whfast = ProcessedWisdomHolman::new(WisdomHolman::whfast(&model).unwrap().with_corrector(17).unwrap()).unwrap();
    let report = check_integrator(&whfast, &whfast.to_mapping(&x0, 0.05).unwrap(), &contract());
    println!("{:?}", report.unwrap_or_else(|e| panic!("{e}")));
    let dh = ProcessedWisdomHolman::new(WisdomHolman::whfast_democratic(&model).unwrap()).unwrap();
    check_integrator(&dh, &dh.to_mapping(&x0, 0.05).unwrap(), &contract()).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn every_integrator_on_t_star_s2_keeps_the_contract() {
    let c = contract();
    let lift = SphereCotangentLiftIntegrator::<_, _, 1, 3, 2>::new(SphereThetaMap::midpoint(), SpherePendulum);
    check_integrator(&lift, &sphere0(), &c).unwrap_or_else(|e| panic!("{e}"));
    let del = SphereDiscreteEulerLagrange::<_, _, 1, 3, 2>::new(SphereThetaMap::midpoint(), SpherePendulumL);
    check_integrator(&del, &sphere0(), &c).unwrap_or_else(|e| panic!("{e}"));
    // the groupoid layer's RATTLE: the pair groupoid of R³ with the node constraint |q| = 1
    let midpoint = Stepped(time_dependent::Midpoint(SpherePendulumL));
    let rattle =
        RattleIntegrator::<_, _, _, 3, 1, 4>::new(PairGroupoid::<3>, midpoint, UnitSphere).with_properties(2, true);
    check_integrator(&rattle, &sphere0(), &c).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_nonholonomic_integrator_keeps_the_contract() {
    // the discrete Lagrange–d'Alembert flow of the rolling disk (symmetric, order 2, not symplectic)
    let disk = RollingDisk::new(1.0, 0.5, 0.125, 0.0625).unwrap();
    let q0 = SVector::from([0.1, -0.2, 0.0, 0.3]);
    let x0 = PhaseState::new(q0, disk.momentum(&disk.velocity(&q0, 2.0, 0.7)));
    let report = check_integrator(&disk.integrator(), &x0, &contract()).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.reversibility_defect.is_some());
}

#[test]
fn the_time_dependent_flow_keeps_the_contract() {
    // the fixed-step flow on the time groupoid, a OneStep of its arrows (q_k, q_(k+1), Δt_k) and
    // multiplier: its order is measured from a first arrow built for each h (groupoid tests)
    use groupoid::constraints::SigmaPoint;
    use groupoid::time_dependent::{FixedStepFlow, TimeArrow};
    let flow = FixedStepFlow::new(time_dependent::Midpoint(SpherePendulumL), 0.05).unwrap().with_order(2);
    let x0 = SigmaPoint::new(
        TimeArrow::new(SVector::from([0.6, 0.0, -0.8]), SVector::from([0.6, 0.06, -0.8]), 0.0, 0.05),
        SVector::from([0.0]),
    );
    let c = Contract { h: 0.05, measure_order: false, ..contract() };
    let report = check_integrator(&flow, &x0, &c).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.measured_order.is_nan() && report.reversibility_defect.is_none());
}

#[test]
fn every_integrator_on_t_star_g_keeps_the_contract() {
    let c = contract();
    let check = |m: &dyn OneStep<LieState<Matrix3<f64>, 3>>| {
        let r = check_integrator(m, &lie0(), &c).unwrap_or_else(|e| panic!("{e}"));
        println!("{}: order {:.2}", r.name, r.measured_order);
    };
    // Hamilton–Pontryagin RKMK, both charts; the LGVI
    check(&hp::stormer_verlet(So3, Chart::Cayley, body()).unwrap());
    check(&hp::stormer_verlet(So3, Chart::Exp, body()).unwrap());
    check(&hp::symplectic_euler_a(So3, Chart::Cayley, body()).unwrap());
    check(&Lgvi::new(body()).unwrap());
    // the discretization layer's Lie-group routes
    check(&LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Exp), LieAutoDiff(TopH)));
    check(&LieCotangentLiftIntegrator::new(LieGroupThetaMap::new(So3, 0.3, Chart::Cayley).unwrap(), LieAutoDiff(TopH)));
    check(&LieLagrangianIntegrator::new(So3, 0.5, Chart::Cayley, LieAutoDiff(TopL)).unwrap());
    // the cotangent lift of a model's own Hamiltonian (`integrators::models::Hamiltonian`), whose
    // value is the model's energy
    let h = body().hamiltonian();
    assert_eq!(LieFunction::<f64, So3, 3>::eval(&h, &So3, &lie0().g, &lie0().mu), body().energy(&lie0()));
    check(&LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Cayley), LieAutoDiff(h)));
    check(&discretization::LieGroupDiscreteEulerLagrange::new(So3, Chart::Cayley, Body));
    // the Lie–Poisson integrator on (g, μ): reduced step and reconstruction g W
    check(&LiePoissonIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Exp), Body));
    // the Part I baselines: Engø–Faltinsen, Lewis–Simo, Simo–Wong
    check(&integrators::lie_poisson_baselines::CoadjointEnergy::new(So3, Chart::Cayley, Body));
    check(&integrators::lie_poisson_baselines::EnergyMomentum::new(ReducedTop::free(&body())));
    check(&integrators::lie_poisson_baselines::LieNewmark::new(ReducedTop::free(&body())));
    // the groupoid layer's flow on G ⇉ {e}, the configuration reconstructed
    let midpoint = Induced::new(FibreThetaMap::midpoint(), ReducedLagrangian(Inertia));
    check(&GroupoidIntegrator::new(GroupAsGroupoid::new(So3, Chart::Exp), midpoint).with_properties(2, true));
}

#[test]
fn lie_poisson_and_rkmk_keep_the_contract() {
    let c = contract();
    let lp = LiePoissonIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Cayley), Body);
    let mu0 = Vector3::new(0.4, 0.9, -0.3);
    check_integrator(&lp, &mu0, &c).unwrap_or_else(|e| panic!("{e}"));
    let tensor = lie_poisson_tensor(|x: &Vector3<f64>, y: &Vector3<f64>| LieGroup::<f64, 3>::bracket(&So3, x, y));
    let defect = check_poisson_map(&lp, &mu0, 0.1, tensor).unwrap();
    assert!(defect < 1e-8, "Lie–Poisson tensor defect {defect:e}");

    let top =
        AdvectedLiePoissonIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Cayley), TopAdvected, SphereRotation);
    let x0 = AdvectedState::new(mu0, Vector3::new(0.6, 0.0, 0.8));
    check_integrator(&top, &x0, &c).unwrap_or_else(|e| panic!("{e}"));

    let rk4 = Rkmk::<_, _, 3, 4>::new(So3, Spin, &tableau::rk4(), Chart::Exp).unwrap();
    check_integrator(&rk4, &GroupState::new(0.0, So3.exp(&Vector3::new(0.1, 0.2, 0.3))), &c)
        .unwrap_or_else(|e| panic!("{e}"));
    // Crouch–Grossman, commutator-free and Magnus methods on (t, g) and (t, y)
    let g0 = GroupState::new(0.0, So3.exp(&Vector3::new(0.1, 0.2, 0.3)));
    let check = |m: &dyn OneStep<GroupState<Matrix3<f64>>>| {
        // order 6: at h = 0.1 the differences are at round-off, so measure from h = 0.25 over T = 2
        let c = if m.order() >= 6 { Contract { order_h: 0.25, order_time: 2.0, ..c.clone() } } else { c.clone() };
        let r = check_integrator(m, &g0, &c).unwrap_or_else(|e| panic!("{e}"));
        println!("{}: order {:.2}, reversibility {:?}", r.name, r.measured_order, r.reversibility_defect);
    };
    check(&crouch_grossman::cg2(So3, Spin).unwrap());
    check(&crouch_grossman::cg3(So3, Spin).unwrap());
    check(&crouch_grossman::cg4a(So3, Spin).unwrap());
    check(&commutator_free::cf3(So3, Spin).unwrap());
    check(&commutator_free::cf4(So3, Spin).unwrap());
    check(&Magnus::new(So3, SpinCurve, MagnusOrder::Four));
    check(&Magnus::new(So3, SpinCurve, MagnusOrder::Six));
    let y0 = GroupState::new(0.0, nalgebra::Vector2::new(1.0, 0.3));
    check_integrator(&LinearMagnus::new(Mathieu, MagnusOrder::Four), &y0, &c).unwrap_or_else(|e| panic!("{e}"));
    let c6 = Contract { order_h: 0.25, order_time: 2.0, ..c.clone() };
    check_integrator(&LinearMagnus::new(Mathieu, MagnusOrder::Six), &y0, &c6).unwrap_or_else(|e| panic!("{e}"));
}

// ---------------------------------------------------------------------------------------------
// A user's integrator, outside the crates, and broken ones

/// How a [`UserLeapfrog`] is broken.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Flaw {
    None,
    /// Writes the half kick into the state before it checks `h`.
    WritesBeforeChecking,
    /// `step_n` takes one step of `n h`.
    FusedStepN,
    /// Declares order 2 but takes symplectic Euler.
    WrongOrder,
    /// Says it is symmetric, but is symplectic Euler (order 1 declared, so only reversibility fails).
    NotReversible,
    /// Damps the momentum by `1 − h/20` after the step (not symplectic).
    NotSymplectic,
}

/// Störmer–Verlet for Hénon–Heiles, written by a user against `geom_core::step` alone.
struct UserLeapfrog(Flaw);
fn force(q: &Vector2<f64>) -> Vector2<f64> {
    Vector2::new(q[0] + 2.0 * q[0] * q[1], q[1] + q[0] * q[0] - q[1] * q[1])
}
impl OneStep<PhaseState<2>> for UserLeapfrog {
    fn name(&self) -> String {
        format!("user leapfrog ({:?})", self.0)
    }
    fn order(&self) -> u32 {
        if self.0 == Flaw::NotReversible { 1 } else { 2 }
    }
    fn is_symmetric(&self) -> bool {
        true
    }
    fn step(&self, s: &mut PhaseState<2>, h: f64) -> Result<(), GeomError> {
        if self.0 == Flaw::WritesBeforeChecking {
            s.p -= force(&s.q) * (0.5 * h);
        }
        check_step(h)?;
        match self.0 {
            Flaw::WrongOrder | Flaw::NotReversible => {
                s.p -= force(&s.q) * h;
                s.q += s.p * h;
            }
            _ => {
                let p = s.p - force(&s.q) * (0.5 * h);
                let q = s.q + p * h;
                let damping = if self.0 == Flaw::NotSymplectic { 1.0 - h / 20.0 } else { 1.0 };
                *s = PhaseState::new(q, (p - force(&q) * (0.5 * h)) * damping);
            }
        }
        Ok(())
    }
    fn step_n(&self, s: &mut PhaseState<2>, h: f64, n: usize) -> Result<(), GeomError> {
        if self.0 == Flaw::FusedStepN {
            return self.step(s, h * n as f64);
        }
        geom_core::step::step_repeatedly(self, s, h, n)
    }
}

fn violation(flaw: Flaw) -> ContractViolation {
    check_integrator(&UserLeapfrog(flaw), &hh0(), &contract()).expect_err("a broken integrator passed")
}

#[test]
fn a_users_integrator_keeps_the_contract_and_broken_ones_fail_it() {
    let report = check_integrator(&UserLeapfrog(Flaw::None), &hh0(), &contract()).unwrap();
    assert!((report.measured_order - 2.0).abs() < 0.1, "{report:?}");
    assert!(report.reversibility_defect.unwrap() < 1e-14);
    assert!(check_symplectic(&UserLeapfrog(Flaw::None), &hh0(), 0.1).unwrap() < 1e-8);
    // the same method through a trait object and a box
    let boxed: Box<dyn OneStep<PhaseState<2>>> = Box::new(UserLeapfrog(Flaw::None));
    check_integrator(&boxed, &hh0(), &contract()).unwrap();

    assert_eq!(violation(Flaw::WritesBeforeChecking).check, "failed step leaves the state untouched");
    assert_eq!(violation(Flaw::FusedStepN).check, "step_n equals n steps bit for bit");
    assert_eq!(violation(Flaw::WrongOrder).check, "order");
    assert_eq!(violation(Flaw::NotReversible).check, "reversibility of a symmetric method");
    // symplecticity is a separate check (|det M| = (1 − h/20)² ≠ 1)
    let defect = check_symplectic(&UserLeapfrog(Flaw::NotSymplectic), &hh0(), 0.1).unwrap();
    assert!(defect > 1e-4, "{defect:e}");
    // an order measured in the round-off floor is refused, not reported
    let tiny = Contract { order_h: 1e-9, order_time: 1e-8, ..contract() };
    let e = check_integrator(&UserLeapfrog(Flaw::None), &hh0(), &tiny).unwrap_err();
    assert!(e.detail.contains("round-off"), "{e}");
}

#[test]
fn flat_words_of_every_state_read_back_bit_for_bit() {
    fn round_trip<St: FlatState>(s: &St) {
        let mut w = Vec::new();
        s.write_words(&mut w);
        assert_eq!(w.len(), St::WORDS);
        let mut back = Vec::new();
        St::read_words(&w).unwrap().write_words(&mut back);
        assert!(w.iter().zip(&back).all(|(a, b)| a.to_bits() == b.to_bits()));
        assert!(St::read_words(&w[1..]).is_none());
    }
    round_trip(&hh0());
    round_trip(&lie0());
    round_trip(&AdvectedState::new(Vector3::new(1.0, -0.0, 2.0), Vector3::new(f64::MIN_POSITIVE, 0.0, 1.0)));
    round_trip(&GroupState::new(0.5, Matrix3::identity()));
}
