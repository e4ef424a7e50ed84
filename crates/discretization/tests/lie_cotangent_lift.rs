//! The integrator that a discretization map on a Lie group induces on T*G (Barbero-Liñán,
//! Marrero, Martín de Diego, "From retraction maps to symplectic-momentum numerical
//! integrators", 2024, arXiv:2401.14800): momentum preservation (their Theorem 2) with a negative control, the
//! Hamiltonian and Lagrangian routes, equality with the discrete Euler–Poincaré flow, and
//! symplecticity of the one-step map in left-trivialized coordinates. The user maps below live
//! outside the crate: they reach the integrator with no change to it.

use discretization::LieState;
use discretization::lagrangian::LieGroupDiscreteEulerLagrange;
use discretization::lie_function::{LieAutoDiff, LieFunction};
use discretization::lie_map::{LieCovectorDerivative, LieMapJacobian};
use discretization::{
    DiscretizationMap, LieAutoDiffMap, LieCotangentLiftIntegrator, LieGroupMap, LieGroupThetaMap,
    LieLagrangianIntegrator, LieMapModel, OneStep,
};
use geom_core::function::ScalarFunction;
use geom_core::lie::{Chart, LieGroup, So3};
use geom_core::newton::{JacobianUpdate, NewtonOptions};
use geom_core::{GeomError, Scalar};
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

type State = LieState<Matrix3<f64>, 3>;
const INERTIA: [f64; 3] = [1.0, 5.0, 6.0];

/// Heavy top, `H(R, Π) = ½ Πᵀ I⁻¹ Π + mgl e3 · R χ`, `I = diag(1, 5, 6)`, `mgl = 1`, `χ = e3`.
#[derive(Debug, Clone, Copy)]
struct HeavyTop {
    weight: f64,
}
impl<S: Scalar> LieFunction<S, So3, 3> for HeavyTop {
    fn eval(&self, _: &So3, r: &Matrix3<S>, pi: &SVector<S, 3>) -> S {
        let kinetic = (0..3).fold(S::from(0.0), |acc, i| acc + pi[i] * pi[i] / S::from(INERTIA[i]));
        kinetic * S::from(0.5) + r[(2, 2)] * S::from(self.weight)
    }
}

/// The same body as a Lagrangian `L(R, Ω) = ½ Ωᵀ I Ω - mgl e3 · R χ`.
#[derive(Debug, Clone, Copy)]
struct HeavyTopLagrangian {
    weight: f64,
}
impl<S: Scalar> LieFunction<S, So3, 3> for HeavyTopLagrangian {
    fn eval(&self, _: &So3, r: &Matrix3<S>, w: &SVector<S, 3>) -> S {
        let kinetic = (0..3).fold(S::from(0.0), |acc, i| acc + w[i] * w[i] * S::from(INERTIA[i]));
        kinetic * S::from(0.5) - r[(2, 2)] * S::from(self.weight)
    }
}

/// The reduced free-body Lagrangian `ℓ(Ω) = ½ Ωᵀ I Ω`.
struct FreeBody;
impl ScalarFunction<3> for FreeBody {
    fn eval<S: Scalar>(&self, w: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |acc, i| acc + w[i] * w[i] * S::from(INERTIA[i])) * S::from(0.5)
    }
}

fn energy(top: &HeavyTop, s: &State) -> f64 {
    LieFunction::<f64, So3, 3>::eval(top, &So3, &s.g, &s.mu)
}
/// `e3 · R Π`, the vertical component of the spatial angular momentum.
fn vertical_momentum(s: &State) -> f64 {
    (s.g * s.mu)[2]
}

fn initial() -> State {
    LieState::new(So3.exp(&Vector3::new(0.4, -0.2, 0.1)), Vector3::new(0.6, 1.5, 2.5))
}

/// `R_d(g, ξ) = (g exp(-ξ/2 + c|ξ|² gᵀ a), g exp(ξ/2 + c|ξ|² gᵀ a))` for a fixed spatial axis
/// `a`: a discretization map (the correction is quadratic in ξ), equivariant under the rotations
/// that fix `a` and under no other.
#[derive(Debug, Clone, Copy)]
struct Tilted {
    c: f64,
    axis: Vector3<f64>,
}
impl<S: Scalar> LieMapModel<S, So3, 3> for Tilted {
    fn name(&self) -> String {
        format!("midpoint tilted towards {:?}", self.axis)
    }
    fn eval(&self, group: &So3, g: &Matrix3<S>, xi: &SVector<S, 3>) -> Result<(Matrix3<S>, Matrix3<S>), GeomError> {
        let bias = g.tr_mul(&self.axis.map(S::from)) * (xi.norm_squared() * S::from(self.c));
        let half = xi * S::from(0.5);
        Ok((g * group.exp(&(bias - half)), g * group.exp(&(bias + half))))
    }
    fn is_symmetric(&self) -> bool {
        false
    }
}

/// A user's map on SO(3), defined here: the exp midpoint written by hand, derivatives included,
/// but not declared a θ-map, so the integrator takes the general four-block path.
#[derive(Debug, Clone, Copy)]
struct HandMidpoint(LieGroupThetaMap<So3, 3>);
impl DiscretizationMap for HandMidpoint {
    type Point = Matrix3<f64>;
    type Tangent = Vector3<f64>;
    fn name(&self) -> String {
        "hand-written midpoint".into()
    }
    fn apply(&self, g: &Matrix3<f64>, xi: &Vector3<f64>) -> Result<(Matrix3<f64>, Matrix3<f64>), GeomError> {
        self.0.apply(g, xi)
    }
    fn inverse(&self, g0: &Matrix3<f64>, g1: &Matrix3<f64>) -> Result<(Matrix3<f64>, Vector3<f64>), GeomError> {
        self.0.inverse(g0, g1)
    }
    fn distance(&self, a: &Matrix3<f64>, b: &Matrix3<f64>) -> f64 {
        self.0.distance(a, b)
    }
    fn is_symmetric(&self) -> bool {
        true
    }
}
impl LieGroupMap<So3, 3> for HandMidpoint {
    fn group(&self) -> &So3 {
        &So3
    }
    fn lie_jacobian(&self, g: &Matrix3<f64>, xi: &Vector3<f64>) -> Result<LieMapJacobian<3>, GeomError> {
        self.0.lie_jacobian(g, xi)
    }
    fn covector_derivative(
        &self,
        g: &Matrix3<f64>,
        xi: &Vector3<f64>,
        p0: &Vector3<f64>,
        p1: &Vector3<f64>,
    ) -> Result<LieCovectorDerivative<3>, GeomError> {
        self.0.covector_derivative(g, xi, p0, p1)
    }
}

fn run<M: OneStep<State>>(method: &M, s0: State, h: f64, steps: usize, mut observe: impl FnMut(&State)) -> State {
    let mut s = s0;
    for _ in 0..steps {
        method.step(&mut s, h).unwrap();
        observe(&s);
    }
    s
}

#[test]
fn heavy_top_midpoint_conserves_the_vertical_momentum_and_bounds_the_energy() {
    let top = HeavyTop { weight: 1.0 };
    let s0 = initial();
    let (e0, j0) = (energy(&top, &s0), vertical_momentum(&s0));
    let mut max_energy = [0.0f64; 2];
    for (k, h) in [0.02, 0.01].into_iter().enumerate() {
        let integ = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Exp), LieAutoDiff(top));
        let (mut dj, mut ortho) = (0.0f64, 0.0f64);
        let steps = (200.0 / h) as usize;
        run(&integ, s0, h, steps, |s| {
            dj = dj.max((vertical_momentum(s) - j0).abs());
            max_energy[k] = max_energy[k].max((energy(&top, s) - e0).abs());
            ortho = ortho.max((s.g.transpose() * s.g - Matrix3::identity()).amax());
        });
        assert!(dj <= 1e-12, "h = {h}: vertical momentum drift {dj:e} over {steps} steps");
        assert!(ortho <= 1e-12, "h = {h}: |RᵀR - I| = {ortho:e}");
        assert!(max_energy[k] < 1e-2, "h = {h}: energy error {:e}", max_energy[k]);
    }
    let order = (max_energy[0] / max_energy[1]).log2();
    assert!((order - 2.0).abs() < 0.3, "energy error order {order} ({max_energy:?})");
}

#[test]
fn a_map_that_is_not_left_equivariant_drifts_in_the_vertical_momentum() {
    let top = HeavyTop { weight: 1.0 };
    let s0 = initial();
    let j0 = vertical_momentum(&s0);
    let drift = |axis: Vector3<f64>| {
        let map = LieAutoDiffMap::<_, _, 3>::new(So3, Tilted { c: 0.5, axis });
        let integ = LieCotangentLiftIntegrator::new(map, LieAutoDiff(top));
        let mut dj = 0.0f64;
        run(&integ, s0, 0.05, 2000, |s| dj = dj.max((vertical_momentum(s) - j0).abs()));
        dj
    };
    // tilted towards the vertical: equivariant under rotations about e3, Theorem 2 applies
    let vertical = drift(Vector3::z());
    assert!(vertical <= 1e-12, "map equivariant under rotations about e3: drift {vertical:e}");
    // tilted towards e1: not equivariant, the momentum is not conserved
    let horizontal = drift(Vector3::x());
    assert!(horizontal > 1e-6, "non-equivariant map: drift {horizontal:e}");
}

#[test]
fn general_path_equals_the_theta_path_for_the_same_map() {
    let top = HeavyTop { weight: 1.0 };
    let s0 = initial();
    let (h, steps) = (0.05, 200);
    let fast = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Cayley), LieAutoDiff(top));
    let hand =
        LieCotangentLiftIntegrator::new(HandMidpoint(LieGroupThetaMap::midpoint(So3, Chart::Cayley)), LieAutoDiff(top));
    let retraction =
        discretization::RetractionMap::midpoint(discretization::LieGroupRetraction::<_, 3>::new(So3, Chart::Cayley));
    let ad = LieCotangentLiftIntegrator::new(LieAutoDiffMap::<_, _, 3>::new(So3, retraction), LieAutoDiff(top));
    let boxed: Box<dyn LieGroupMap<So3, 3, Point = Matrix3<f64>, Tangent = Vector3<f64>>> = Box::new(retraction);
    let dynamic = LieCotangentLiftIntegrator::new(boxed, LieAutoDiff(top));
    let a = run(&fast, s0, h, steps, |_| {});
    for (label, b) in [
        ("hand", run(&hand, s0, h, steps, |_| {})),
        ("AD", run(&ad, s0, h, steps, |_| {})),
        ("boxed", run(&dynamic, s0, h, steps, |_| {})),
    ] {
        let d = (a.g - b.g).amax().max((a.mu - b.mu).amax());
        assert!(d < 1e-11, "{label}: {d:e}");
    }
}

#[test]
fn hamiltonian_and_lagrangian_routes_agree() {
    for (weight, chart, theta) in [(0.0, Chart::Exp, 0.5), (1.0, Chart::Cayley, 0.5), (1.0, Chart::Exp, 0.3)] {
        let s0 = initial();
        let map = LieGroupThetaMap::new(So3, theta, chart).unwrap();
        let ham = LieCotangentLiftIntegrator::new(map, LieAutoDiff(HeavyTop { weight }));
        let lag = LieLagrangianIntegrator::new(So3, theta, chart, LieAutoDiff(HeavyTopLagrangian { weight })).unwrap();
        let (a, b) = (run(&ham, s0, 0.05, 200, |_| {}), run(&lag, s0, 0.05, 200, |_| {}));
        let d = (a.g - b.g).amax().max((a.mu - b.mu).amax());
        assert!(d < 1e-12, "weight {weight}, {chart:?}, θ = {theta}: {d:e}");
    }
}

#[test]
fn free_body_lie_midpoint_is_the_discrete_euler_poincare_flow() {
    let s0 = initial();
    let free = HeavyTop { weight: 0.0 };
    let integ = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Exp), LieAutoDiff(free));
    let dep = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(So3, Chart::Exp, FreeBody);
    let (casimir0, spatial0) = (s0.mu.norm_squared(), s0.g * s0.mu);
    let (mut dc, mut ds) = (0.0f64, 0.0f64);
    let mut b = s0;
    let a = run(&integ, s0, 0.1, 200, |s| {
        dc = dc.max((s.mu.norm_squared() - casimir0).abs());
        ds = ds.max((s.g * s.mu - spatial0).amax());
        dep.step(&mut b, 0.1).unwrap();
    });
    let d = (a.g - b.g).amax().max((a.mu - b.mu).amax());
    assert!(d <= 1e-11, "Lie midpoint vs DEP: {d:e}");
    assert!(dc <= 1e-12 && ds <= 1e-12, "Casimir {dc:e}, spatial momentum {ds:e}");
}

/// `ω_{(g, μ)}((η_1, ν_1), (η_2, ν_2)) = <ν_2, η_1> - <ν_1, η_2> + <μ, [η_1, η_2]>`, the canonical
/// symplectic form in left-trivialized coordinates (`δg = g η`).
fn omega(mu: &Vector3<f64>, x: &SVector<f64, 6>, y: &SVector<f64, 6>) -> f64 {
    let (e1, n1) = (x.fixed_rows::<3>(0).into_owned(), x.fixed_rows::<3>(3).into_owned());
    let (e2, n2) = (y.fixed_rows::<3>(0).into_owned(), y.fixed_rows::<3>(3).into_owned());
    n2.dot(&e1) - n1.dot(&e2) + mu.dot(&LieGroup::<f64, 3>::bracket(&So3, &e1, &e2))
}

/// The largest `|ω_{Φ(x)}(DΦ a, DΦ b) - ω_x(a, b)|` over basis pairs, `DΦ` by central differences
/// in left-trivialized coordinates.
fn symplectic_defect(step: impl Fn(&State) -> State, s: &State) -> f64 {
    let eps = 1e-5;
    let out = step(s);
    let mut cols = SMatrix::<f64, 6, 6>::zeros();
    for k in 0..6 {
        let d = SVector::<f64, 6>::from_fn(|i, _| if i == k { eps } else { 0.0 });
        let perturb = |sign: f64| {
            let eta = d.fixed_rows::<3>(0) * sign;
            LieState::new(s.g * So3.exp(&eta.into_owned()), s.mu + d.fixed_rows::<3>(3) * sign)
        };
        let (p, m) = (step(&perturb(1.0)), step(&perturb(-1.0)));
        let eta =
            (So3.log(&(out.g.transpose() * p.g)).unwrap() - So3.log(&(out.g.transpose() * m.g)).unwrap()) / (2.0 * eps);
        let nu = (p.mu - m.mu) / (2.0 * eps);
        cols.fixed_view_mut::<3, 1>(0, k).copy_from(&eta);
        cols.fixed_view_mut::<3, 1>(3, k).copy_from(&nu);
    }
    let mut worst = 0.0f64;
    for a in 0..6 {
        for b in 0..6 {
            let (ea, eb) = (
                SVector::<f64, 6>::from_fn(|i, _| (i == a) as u8 as f64),
                SVector::<f64, 6>::from_fn(|i, _| (i == b) as u8 as f64),
            );
            let lhs = omega(&out.mu, &cols.column(a).into_owned(), &cols.column(b).into_owned());
            worst = worst.max((lhs - omega(&s.mu, &ea, &eb)).abs());
        }
    }
    worst
}

#[test]
fn the_one_step_map_is_symplectic_on_t_star_so3() {
    let top = HeavyTop { weight: 1.0 };
    let states = [
        initial(),
        LieState::new(So3.exp(&Vector3::new(-1.0, 0.5, 2.0)), Vector3::new(-2.0, 0.3, 1.0)),
        LieState::new(So3.exp(&Vector3::new(0.1, 1.2, -0.7)), Vector3::new(0.2, -1.0, -3.0)),
    ];
    let h = 0.1;
    let theta =
        LieCotangentLiftIntegrator::new(LieGroupThetaMap::new(So3, 0.3, Chart::Cayley).unwrap(), LieAutoDiff(top));
    let tilted = LieCotangentLiftIntegrator::new(
        LieAutoDiffMap::<_, _, 3>::new(So3, Tilted { c: 0.5, axis: Vector3::x() }),
        LieAutoDiff(top),
    );
    for s in &states {
        let d1 = symplectic_defect(|x| theta.advance(x, h).unwrap(), s);
        assert!(d1 <= 1e-8, "θ = 0.3 Cayley map: defect {d1:e}");
        let d2 = symplectic_defect(|x| tilted.advance(x, h).unwrap(), s);
        assert!(d2 <= 1e-8, "non-equivariant user map (symplectic all the same): defect {d2:e}");
    }
    // negative control: explicit Lie–Euler, g₁ = g exp(hΩ), Π₁ = Π + h(Π × Ω - D_g H)
    let lie_euler = |s: &State| {
        let omega = s.mu.component_div(&Vector3::from(INERTIA));
        let force = {
            // D_g H for e3·R e3: d/dε (R exp(ε ê_i))_{33} = (R ê_i)_{3,3}
            Vector3::from_fn(|i, _| (s.g * So3.hat(&Vector3::from_fn(|k, _| (k == i) as u8 as f64)))[(2, 2)])
        };
        LieState::new(s.g * So3.exp(&(omega * h)), s.mu + (s.mu.cross(&omega) - force) * h)
    };
    let bad = symplectic_defect(lie_euler, &states[1]);
    assert!(bad > 1e-4, "Lie–Euler must fail the check: {bad:e}");
}

#[test]
fn bad_input_is_a_typed_error_and_leaves_the_state() {
    let integ = LieCotangentLiftIntegrator::new(
        LieGroupThetaMap::midpoint(So3, Chart::Cayley),
        LieAutoDiff(HeavyTop { weight: 1.0 }),
    );
    let s0 = initial();
    let mut s = s0;
    assert!(matches!(integ.step(&mut s, 0.0), Err(GeomError::InvalidStep { .. })));
    assert!(integ.step(&mut s, f64::NAN).is_err());
    assert_eq!(s, s0);
    let mut off = LieState::new(s0.g * 1.01, s0.mu);
    assert!(matches!(integ.step(&mut off, 0.1), Err(GeomError::OffManifold { .. })));
    let mut nan = LieState::new(s0.g, Vector3::new(f64::NAN, 0.0, 0.0));
    assert!(matches!(integ.step(&mut nan, 0.1), Err(GeomError::NonFinite { .. })));
    // a step so large that Cayley's ξ reaches its singularity or Newton fails: an error, no panic
    let mut fast = LieState::new(s0.g, Vector3::new(400.0, 0.0, 0.0));
    let before = fast;
    if integ.step(&mut fast, 10.0).is_err() {
        assert_eq!(fast, before);
    }
}

/// A map defined only for `|ξ| <= 1` (a user's chart with a bounded domain).
#[derive(Debug, Clone, Copy)]
struct Bounded;
impl<S: Scalar> LieMapModel<S, So3, 3> for Bounded {
    fn name(&self) -> String {
        "bounded midpoint".into()
    }
    fn eval(&self, group: &So3, g: &Matrix3<S>, xi: &SVector<S, 3>) -> Result<(Matrix3<S>, Matrix3<S>), GeomError> {
        if xi.norm_squared().re() > 1.0 {
            return Err(GeomError::OutsideDomain { map: "bounded midpoint", reason: "|ξ| > 1" });
        }
        let half = xi * S::from(0.5);
        Ok((g * group.exp(&(-half)), g * group.exp(&half)))
    }
}

#[test]
fn a_map_undefined_at_the_velocity_is_a_typed_error_and_the_state_is_untouched() {
    let integ = LieCotangentLiftIntegrator::new(
        LieAutoDiffMap::<_, _, 3>::new(So3, Bounded),
        LieAutoDiff(HeavyTop { weight: 1.0 }),
    );
    let s0 = LieState::new(So3.exp(&Vector3::new(0.1, 0.2, 0.3)), Vector3::new(30.0, 0.0, 0.0));
    let mut s = s0;
    // ξ ≈ h I⁻¹Π = (3, 0, 0) at h = 0.1: outside the map's domain
    assert!(matches!(integ.step(&mut s, 0.1), Err(GeomError::OutsideDomain { .. })));
    assert_eq!(s, s0);
    // a small step is inside
    integ.step(&mut s, 0.01).unwrap();
}

/// The default θ-step (simplified Newton whose matrix takes `H`'s AD Hessian at the start of the
/// step, one per step, and a final correction) solves the same equations as the exact Newton
/// matrix at every iterate (the former formula) and as the general four-block system of the same
/// map (`HandMidpoint`: its blocks through `lie_jacobian` / `covector_derivative`): the same
/// trajectory to round-off over 1000 steps, both charts. Negative control: the θ = 0.3 map of the
/// same chart is a different method, far away.
#[test]
fn the_default_theta_step_is_the_exact_newton_and_general_path_trajectory() {
    let top = LieAutoDiff(HeavyTop { weight: 1.0 });
    let exact = NewtonOptions::lie_group().with_jacobian(JacobianUpdate::EveryIteration);
    let (h, steps) = (0.01, 1000);
    for chart in [Chart::Exp, Chart::Cayley] {
        let map = LieGroupThetaMap::midpoint(So3, chart);
        let fast = LieCotangentLiftIntegrator::new(map, top);
        let a = run(&fast, initial(), h, steps, |_| {});
        for (label, b) in [
            (
                "exact Newton matrix",
                run(&LieCotangentLiftIntegrator::new(map, top).with_newton(exact), initial(), h, steps, |_| {}),
            ),
            (
                "general path",
                run(&LieCotangentLiftIntegrator::new(HandMidpoint(map), top), initial(), h, steps, |_| {}),
            ),
        ] {
            let d = (a.g - b.g).amax().max((a.mu - b.mu).amax());
            assert!(d < 1e-12, "{chart:?}, {label}: {d:e}");
        }
        let other = LieCotangentLiftIntegrator::new(LieGroupThetaMap::new(So3, 0.3, chart).unwrap(), top);
        let c = run(&other, initial(), h, steps, |_| {});
        assert!((a.mu - c.mu).amax() > 1e-6, "{chart:?}: θ = 0.3 must differ");
    }
}

/// Issue 31 item 6 at the step boundary: NaN or `1e300` in the configuration, the momentum or the
/// step size of a Lie-group step (SO(3) exp and Cayley charts, Hamiltonian and Lagrangian routes)
/// is a typed error (never a panic, never a NaN state), and the state keeps its bits.
#[test]
fn nan_and_huge_inputs_are_typed_errors_at_the_step_boundary() {
    let s0 = initial();
    let mut bad_states = vec![
        LieState::new(s0.g, Vector3::new(f64::NAN, 1.0, 0.0)),
        LieState::new(s0.g, Vector3::new(1e300, 1.0, 0.0)),
        LieState::new(s0.g, Vector3::new(f64::INFINITY, 1.0, 0.0)),
    ];
    for (i, j) in [(0, 0), (1, 2), (2, 1)] {
        for v in [f64::NAN, 1e300] {
            let mut g = s0.g;
            g[(i, j)] = v;
            bad_states.push(LieState::new(g, s0.mu));
        }
    }
    for chart in [Chart::Exp, Chart::Cayley] {
        let ham = LieCotangentLiftIntegrator::new(
            LieGroupThetaMap::midpoint(So3, chart),
            LieAutoDiff(HeavyTop { weight: 1.0 }),
        );
        let lag =
            LieLagrangianIntegrator::new(So3, 0.5, chart, LieAutoDiff(HeavyTopLagrangian { weight: 1.0 })).unwrap();
        let methods: [&dyn OneStep<State>; 2] = [&ham, &lag];
        for m in methods {
            for bad in &bad_states {
                let mut s = *bad;
                let e = m.step(&mut s, 0.01).expect_err("a bad state must be refused");
                assert!(matches!(e, GeomError::NonFinite { .. } | GeomError::OffManifold { .. }), "{chart:?}: {e:?}");
                assert_eq!(format!("{:?}", s), format!("{:?}", bad), "{chart:?}: state touched");
            }
            for h in [f64::NAN, f64::INFINITY, 1e300, -1e300, 0.0] {
                let mut s = s0;
                let e = m.step(&mut s, h).expect_err("a bad step size must be refused");
                assert!(
                    matches!(
                        e,
                        GeomError::InvalidStep { .. }
                            | GeomError::NonFinite { .. }
                            | GeomError::OutsideDomain { .. }
                            | GeomError::NotConverged { .. }
                            | GeomError::SingularMatrix { .. }
                    ),
                    "{chart:?}, h = {h:e}: {e:?}"
                );
                assert_eq!(s, s0, "{chart:?}, h = {h:e}: state touched");
            }
            // a good step still works after the refusals
            let mut s = s0;
            m.step(&mut s, 0.01).unwrap();
        }
    }
}
