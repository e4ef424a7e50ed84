//! ns per step of HP Störmer–Verlet on Kirchhoff's underwater vehicle on SE(3) (Bou-Rabee and
//! Marsden, "Hamilton–Pontryagin integrators on Lie groups", 2009) with the exponential chart
//! against the same integrator with the Cayley chart, interleaved in one process
//! (`common::ratio`), target 1.5:
//!
//! ```text
//!   ratio vehicle_sv_exp_vs_cayley <exp ns/step> <cayley ns/step> <ratio> 1.5
//! ```
//!
//! Same vehicle and initial data as `crates/integrators/tests/hp_vehicle.rs` (ellipsoid
//! a, b, c = 1, 0.5, 0.25 m, ρ = 1000 kg/m³, ξ_0 = (0.3, 0.5, -0.2, 1, 0.3, -0.2)), h = 0.05 s.
//!
//! Also printed, for information (`info <case> <ns/step> <reference ns/step> <ratio>`): the exp
//! chart through the former route, the 6×6 `dexp^{-1}` (lower-left block `-J^{-1} Q J^{-1}` with
//! Barfoot's `Q`) transposed times `μ` and the derivative `D_x[(dexp^{-1}_x)ᵀ μ]` by forward AD
//! over 6 directions (`ad_dtau_inv_transpose_derivative`), reached through a newtype of `Se3`
//! that keeps the `ChartDerivative` defaults; and the chart pieces alone
//! (`dtau_inv_transpose_derivative`, `dtau_inv_transpose`, `dexp_inv`, ns per call).
//!
//! `VEHICLE_PROFILE=<route>` runs one route alone (`exp`, `cayley`, `exp_ad`), for `perf record`.
//!
//! Run: `cargo bench --bench vehicle`.

mod common;

use common::ratio::{Report, interleaved};
use discretization::OneStep;
use geom_core::Result;
use geom_core::Scalar;
use geom_core::lie::{Chart, LieGroup, MapScalar, Se3, so3};
use integrators::hp::{self, ChartDerivative, Lagrangian, LeftLagrangian, LieState, ad_dtau_inv_transpose_derivative};
use integrators::models::UnderwaterVehicle;
use nalgebra::{Matrix4, Matrix6, Vector6};
use std::hint::black_box;

const H: f64 = 0.05;
const STEPS: usize = 20_000;

type State = LieState<Matrix4<f64>, 6>;

/// The vehicle and initial state of `crates/integrators/tests/hp_common::vehicle`.
fn vehicle() -> (UnderwaterVehicle, State) {
    let (veh, _) = UnderwaterVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0).unwrap();
    let xi = Vector6::new(0.3, 0.5, -0.2, 1.0, 0.3, -0.2);
    let mu = Vector6::from_iterator(
        (veh.inertia() * xi.fixed_rows::<3>(0)).iter().chain((veh.mass() * xi.fixed_rows::<3>(3)).iter()).copied(),
    );
    let g0 = Se3.exp(&Vector6::new(0.2, -0.1, 0.4, 1.0, -2.0, 0.5));
    (veh, LieState::new(g0, mu))
}

/// SE(3) with the `ChartDerivative` defaults: the 6×6 `dexp^{-1}` (transposed, times `μ`) and
/// the AD derivative, with the former `dexp^{-1}` through Barfoot's `Q` — the exp route before
/// the closed forms.
#[derive(Debug, Clone, Copy, Default)]
struct Se3Ad;

impl<S: Scalar> LieGroup<S, 6> for Se3Ad {
    type Element = Matrix4<S>;
    type Matrix = Matrix4<S>;
    fn name(&self) -> String {
        "SE(3) (AD chart derivative)".into()
    }
    fn identity(&self) -> Matrix4<S> {
        LieGroup::<S, 6>::identity(&Se3)
    }
    fn compose(&self, a: &Matrix4<S>, b: &Matrix4<S>) -> Matrix4<S> {
        LieGroup::<S, 6>::compose(&Se3, a, b)
    }
    fn inverse(&self, a: &Matrix4<S>) -> Matrix4<S> {
        LieGroup::<S, 6>::inverse(&Se3, a)
    }
    fn exp(&self, x: &Vector6<S>) -> Matrix4<S> {
        LieGroup::<S, 6>::exp(&Se3, x)
    }
    fn log(&self, g: &Matrix4<S>) -> Result<Vector6<S>> {
        LieGroup::<S, 6>::log(&Se3, g)
    }
    fn hat(&self, x: &Vector6<S>) -> Matrix4<S> {
        LieGroup::<S, 6>::hat(&Se3, x)
    }
    fn vee(&self, m: &Matrix4<S>) -> Vector6<S> {
        LieGroup::<S, 6>::vee(&Se3, m)
    }
    fn to_matrix(&self, g: &Matrix4<S>) -> Matrix4<S> {
        LieGroup::<S, 6>::to_matrix(&Se3, g)
    }
    fn adjoint(&self, g: &Matrix4<S>) -> Matrix6<S> {
        LieGroup::<S, 6>::adjoint(&Se3, g)
    }
    fn ad(&self, x: &Vector6<S>) -> Matrix6<S> {
        LieGroup::<S, 6>::ad(&Se3, x)
    }
    fn dcay_inv(&self, x: &Vector6<S>) -> Matrix6<S> {
        LieGroup::<S, 6>::dcay_inv(&Se3, x)
    }
    fn cayley(&self, x: &Vector6<S>) -> Result<Matrix4<S>> {
        LieGroup::<S, 6>::cayley(&Se3, x)
    }
    fn cayley_inv(&self, g: &Matrix4<S>) -> Result<Vector6<S>> {
        LieGroup::<S, 6>::cayley_inv(&Se3, g)
    }
    fn defect(&self, g: &Matrix4<S>) -> f64 {
        LieGroup::<S, 6>::defect(&Se3, g)
    }
    fn bracket(&self, x: &Vector6<S>, y: &Vector6<S>) -> Vector6<S> {
        LieGroup::<S, 6>::bracket(&Se3, x, y)
    }
    fn coadjoint(&self, g: &Matrix4<S>, mu: &Vector6<S>) -> Vector6<S> {
        LieGroup::<S, 6>::coadjoint(&Se3, g, mu)
    }
    fn ad_star(&self, x: &Vector6<S>, mu: &Vector6<S>) -> Vector6<S> {
        LieGroup::<S, 6>::ad_star(&Se3, x, mu)
    }
    fn dexp(&self, x: &Vector6<S>) -> Matrix6<S> {
        LieGroup::<S, 6>::dexp(&Se3, x)
    }
    /// The former `Se3::dexp_inv`, `[[J^{-1}, 0], [-J^{-1} Q J^{-1}, J^{-1}]]` with Barfoot's `Q`
    /// (read off `dexp`, which also forms `J`).
    fn dexp_inv(&self, x: &Vector6<S>) -> Result<Matrix6<S>> {
        let ji = so3::dexp_inv(&x.fixed_rows::<3>(0).into_owned())?;
        let q = LieGroup::<S, 6>::dexp(&Se3, x).fixed_view::<3, 3>(3, 0).into_owned();
        let mut m = Matrix6::zeros();
        m.fixed_view_mut::<3, 3>(0, 0).copy_from(&ji);
        m.fixed_view_mut::<3, 3>(3, 0).copy_from(&(-(ji * q * ji)));
        m.fixed_view_mut::<3, 3>(3, 3).copy_from(&ji);
        Ok(m)
    }
    fn dcay(&self, x: &Vector6<S>) -> Result<Matrix6<S>> {
        LieGroup::<S, 6>::dcay(&Se3, x)
    }
}

impl<A: Scalar, B: Scalar> MapScalar<A, B, 6> for Se3Ad {
    fn map_scalar<F: Fn(A) -> B>(&self, g: &Matrix4<A>, f: &F) -> Matrix4<B> {
        g.map(f)
    }
}

impl ChartDerivative<6> for Se3Ad {}

/// The vehicle on [`Se3Ad`] (delegates to its `Se3` implementation).
#[derive(Debug, Clone, Copy)]
struct VehicleAd(UnderwaterVehicle);

impl<S: Scalar> Lagrangian<S, Se3Ad, 6> for VehicleAd {
    fn lagrangian(&self, _: &Se3Ad, g: &Matrix4<S>, xi: &Vector6<S>) -> Result<S> {
        Lagrangian::<S, Se3, 6>::lagrangian(&self.0, &Se3, g, xi)
    }
}

impl<S: Scalar> LeftLagrangian<S, Se3Ad, 6> for VehicleAd {
    const LEFT_INVARIANT: bool = true;
    fn momentum(&self, _: &Se3Ad, g: &Matrix4<S>, xi: &Vector6<S>) -> Result<Vector6<S>> {
        LeftLagrangian::<S, Se3, 6>::momentum(&self.0, &Se3, g, xi)
    }
    fn force(&self, _: &Se3Ad, g: &Matrix4<S>, xi: &Vector6<S>) -> Result<Vector6<S>> {
        LeftLagrangian::<S, Se3, 6>::force(&self.0, &Se3, g, xi)
    }
    fn velocity_guess(&self, _: &Se3Ad, g: &Matrix4<S>, pi: &Vector6<S>) -> Option<Vector6<S>> {
        LeftLagrangian::<S, Se3, 6>::velocity_guess(&self.0, &Se3, g, pi)
    }
    fn momentum_jacobian(&self, _: &Se3Ad, g: &Matrix4<S>, xi: &Vector6<S>) -> Option<Matrix6<S>> {
        LeftLagrangian::<S, Se3, 6>::momentum_jacobian(&self.0, &Se3, g, xi)
    }
}

/// `n` calls of `f`.
fn calls(f: &impl Fn()) -> impl FnMut(usize) + '_ {
    move |n| (0..n).for_each(|_| f())
}

fn advance(m: &dyn OneStep<State>, s: &mut State, n: usize) {
    for _ in 0..n {
        m.step(black_box(s), black_box(H)).unwrap();
    }
}

/// The exp routes compute the same step map: the chart derivative and `dexp^{-1}` only change
/// the Newton iterates (and round-off), so one step of each from the same state agrees to
/// round-off, here along 1000 steps of the trajectory. (Whole trajectories are not compared:
/// the vehicle's motion is sensitive, one ulp in `Π_0` grows to ~3e-6 in 1000 steps.)
fn check_agreement() {
    let (veh, s0) = vehicle();
    let exp = hp::stormer_verlet(Se3, veh, Chart::Exp).unwrap();
    let old = hp::stormer_verlet(Se3Ad, VehicleAd(veh), Chart::Exp).unwrap();
    let (mut dpi, mut dg) = (0.0f64, 0.0f64);
    let mut s = s0;
    for _ in 0..1000 {
        let mut b = s;
        exp.step(&mut s, H).unwrap();
        old.step(&mut b, H).unwrap();
        dpi = dpi.max((s.pi - b.pi).amax() / s.pi.amax());
        dg = dg.max((s.g - b.g).amax() / s.g.amax());
    }
    println!("agreement of one step, new exp route vs former, over 1000 steps: |ΔΠ|/|Π| {dpi:.2e}, |Δg|/|g| {dg:.2e}");
    assert!(dpi <= 1e-13 && dg <= 1e-13, "the exp routes disagree: {dpi:e} {dg:e}");
}

/// `VEHICLE_PROFILE=<route>`: one route alone for a while (for `perf record`).
fn profile(route: &str) {
    const N: usize = 1_000_000;
    let (veh, s0) = vehicle();
    let mut s = s0;
    let t = std::time::Instant::now();
    match route {
        "exp" => advance(&hp::stormer_verlet(Se3, veh, Chart::Exp).unwrap(), &mut s, N),
        "cayley" => advance(&hp::stormer_verlet(Se3, veh, Chart::Cayley).unwrap(), &mut s, N),
        "exp_ad" => advance(&hp::stormer_verlet(Se3Ad, VehicleAd(veh), Chart::Exp).unwrap(), &mut s, N),
        other => panic!("unknown VEHICLE_PROFILE route {other}"),
    }
    println!("{route}: {:.1} ns per step", t.elapsed().as_nanos() as f64 / N as f64);
}

fn main() {
    if let Ok(route) = std::env::var("VEHICLE_PROFILE") {
        return profile(&route);
    }
    check_agreement();
    let (veh, s0) = vehicle();
    let exp = hp::stormer_verlet(Se3, veh, Chart::Exp).unwrap();
    let cay = hp::stormer_verlet(Se3, veh, Chart::Cayley).unwrap();
    let old = hp::stormer_verlet(Se3Ad, VehicleAd(veh), Chart::Exp).unwrap();
    let mut report = Report::new();

    // each route restarts from s0 every round, so every round times the same stretch of the
    // trajectory (|hξ| ≈ 0.03, the vehicle's own)
    let run = |m: &dyn OneStep<State>, n: usize| {
        let mut s = s0;
        advance(m, &mut s, n);
        black_box(s);
    };
    report.case("vehicle_sv_exp_vs_cayley", 1.5, STEPS, |n| run(&exp, n), |n| run(&cay, n));

    let (old_ns, cay_ns) = interleaved(STEPS, |n| run(&old, n), |n| run(&cay, n));
    println!("info vehicle_sv_exp_ad_derivative_vs_cayley {old_ns:.1} {cay_ns:.1} {:.3}", old_ns / cay_ns);

    // the chart pieces alone, at the vehicle's hξ and μ
    let x = Vector6::new(0.3, 0.5, -0.2, 1.0, 0.3, -0.2) * H;
    let mu = s0.pi;
    const CALLS: usize = 200_000;
    let closed = || {
        black_box(Se3.dtau_inv_transpose_derivative(Chart::Exp, black_box(&x), black_box(&mu)).unwrap());
    };
    let ad = || {
        black_box(ad_dtau_inv_transpose_derivative(&Se3Ad, Chart::Exp, black_box(&x), black_box(&mu)).unwrap());
    };
    let (c_ns, a_ns) = interleaved(CALLS, calls(&closed), calls(&ad));
    println!("info chart_derivative_exp_closed_vs_ad {c_ns:.1} {a_ns:.1} {:.3}", c_ns / a_ns);
    let cay_d = || {
        black_box(Se3.dtau_inv_transpose_derivative(Chart::Cayley, black_box(&x), black_box(&mu)).unwrap());
    };
    let (c_ns, k_ns) = interleaved(CALLS, calls(&closed), calls(&cay_d));
    println!("info chart_derivative_exp_closed_vs_cayley {c_ns:.1} {k_ns:.1} {:.3}", c_ns / k_ns);
    let vec_closed = || {
        black_box(Se3.dtau_inv_transpose(Chart::Exp, black_box(&x), black_box(&mu)).unwrap());
    };
    let vec_matrix = || {
        black_box(LieGroup::<f64, 6>::dexp_inv(&Se3Ad, black_box(&x)).unwrap().tr_mul(black_box(&mu)));
    };
    let (c_ns, m_ns) = interleaved(CALLS, calls(&vec_closed), calls(&vec_matrix));
    println!("info chart_transpose_exp_closed_vs_former_matrix {c_ns:.1} {m_ns:.1} {:.3}", c_ns / m_ns);
    // the 6×6 dexp^{-1} that the Newton Jacobian still forms (integrators::hp), new against former
    let new_inv = || {
        black_box(LieGroup::<f64, 6>::dexp_inv(&Se3, black_box(&x)).unwrap());
    };
    let former_inv = || {
        black_box(LieGroup::<f64, 6>::dexp_inv(&Se3Ad, black_box(&x)).unwrap());
    };
    let (n_ns, f_ns) = interleaved(CALLS, calls(&new_inv), calls(&former_inv));
    println!("info dexp_inv_matrix_new_vs_former {n_ns:.1} {f_ns:.1} {:.3}", n_ns / f_ns);
    let cay_inv = || {
        black_box(LieGroup::<f64, 6>::dcay_inv(&Se3, black_box(&x)));
    };
    let (n_ns, k_ns) = interleaved(CALLS, calls(&new_inv), calls(&cay_inv));
    println!("info dexp_inv_matrix_new_vs_dcay_inv {n_ns:.1} {k_ns:.1} {:.3}", n_ns / k_ns);

    report.print("HP Störmer–Verlet on the underwater vehicle, exp vs Cayley chart (ns/step)");
}
