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
//! that keeps the `LieGroupFamily` chart-derivative defaults; and the chart pieces alone
//! (`dtau_inv_transpose_derivative`, `dtau_inv_transpose`, `dexp_inv`, ns per call).
//!
//! The vehicle with gravity and buoyancy (`models::BuoyantVehicle`, the chaotic regime of
//! `examples/underwater_vehicle_buoyant.rs`, h = 0.05 s): HP Störmer–Verlet (Cayley), which
//! takes the kick–solve–kick step of a separable Lagrangian (`LeftLagrangian::SEPARABLE`),
//! against a hand-written SE(3)/Cayley loop of the same equations (kick, Newton with a
//! closed-form Jacobian, drift, kick), target 1.5, as for the heavy top in `benches/hp.rs`:
//!
//! ```text
//!   ratio buoyant_vehicle_sv_cayley_vs_hand_written <HP ns/step> <hand-written ns/step> <ratio> 1.5
//!   info buoyant_vehicle_sv_cayley_vs_neutral_sv_cayley <buoyant ns/step> <neutral ns/step> <ratio>
//!   info buoyant_vehicle_sv_general_stages_vs_separable <ns/step> <ns/step> <ratio>
//! ```
//!
//! The last line times the same step through the general stage equations (`hp::AutoDiff` of the
//! model, which never claims separability: two stage blocks, Jacobian by dual numbers).
//!
//! `VEHICLE_PROFILE=<route>` runs one route alone (`exp`, `cayley`, `exp_ad`, `buoyant`), for
//! `perf record`.
//!
//! Run: `cargo bench --bench vehicle`.

mod common;

use common::ratio::{Report, interleaved};
use discretization::OneStep;
use geom_core::Result;
use geom_core::Scalar;
use geom_core::lie::{Chart, LieGroup, LieGroupFamily, Se3, se3, so3};
use integrators::hp::{self, AutoDiff, LeftLagrangian, LieFunction, LieState, ad_dtau_inv_transpose_derivative};
use integrators::models::{BuoyantVehicle, UnderwaterVehicle};
use nalgebra::{Matrix3, Matrix4, Matrix6, Vector3, Vector6};
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

/// SE(3) with the `LieGroupFamily` chart-derivative defaults: the 6×6 `dexp^{-1}` (transposed, times `μ`) and
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

/// The scalar plumbing only: the chart derivatives keep the `LieGroupFamily` defaults.
impl LieGroupFamily<6> for Se3Ad {
    type ElementAt<S: Scalar> = Matrix4<S>;
    fn at<S: Scalar>(&self) -> impl LieGroup<S, 6, Element = Matrix4<S>> {
        *self
    }
    fn lift_at<S: Scalar>(&self, g: &Matrix4<f64>) -> Matrix4<S> {
        g.map(S::from)
    }
    fn map_scalar<A: Scalar, B: Scalar, F: Fn(A) -> B>(&self, g: &Matrix4<A>, f: &F) -> Matrix4<B> {
        g.map(f)
    }
}

/// The vehicle on [`Se3Ad`] (delegates to its `Se3` implementation).
#[derive(Debug, Clone, Copy)]
struct VehicleAd(UnderwaterVehicle);

impl<S: Scalar> LieFunction<S, Se3Ad, 6> for VehicleAd {
    fn eval(&self, _: &Se3Ad, g: &Matrix4<S>, xi: &Vector6<S>) -> S {
        LieFunction::<S, Se3, 6>::eval(&self.0, &Se3, g, xi)
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

// ---------------------------------------------------------------------------------------------
// The vehicle with gravity and buoyancy (`models::BuoyantVehicle`, docs/math.md §D.6.1).

/// Steps per round of the general-stage-equation route (~100x the cost of a separable step).
const GENERAL_STEPS: usize = 200;

/// The chaotic regime of `examples/underwater_vehicle_buoyant.rs`: the ellipsoid above with its
/// CG at `r_G = (0.15, -0.1, -0.1)` m, `W = B`, tilted by 1.34 rad and tumbling.
fn buoyant_vehicle() -> (BuoyantVehicle, State) {
    let (veh, _) =
        BuoyantVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0, 1.0, Vector3::new(0.15, -0.1, -0.1), 9.81).unwrap();
    let xi = Vector6::new(0.6, -0.8, 1.2, 0.4, -0.3, 0.2);
    let g0 = Se3.exp(&Vector6::new(1.2, 0.6, 0.3, 0.0, 0.0, 0.0));
    (veh, LieState::new(g0, veh.metric() * xi))
}

fn skew(x: &Vector3<f64>) -> Matrix3<f64> {
    Matrix3::new(0.0, -x[2], x[1], x[2], 0.0, -x[0], -x[1], x[0], 0.0)
}

/// `(dcay^{-1}_{(ω, y)})ᵀ (a, c) = (a + ω×a/2 + ω(ω·a)/4 + y×c/2 + y×(ω×c)/4, c + ω×c/2)`, the
/// transpose of the SE(3) block formula of docs/math.md §D.2.
fn dcay_inv_t(w: &Vector3<f64>, y: &Vector3<f64>, a: &Vector3<f64>, c: &Vector3<f64>) -> Vector6<f64> {
    let wc = w.cross(c);
    let rot = a + w.cross(a) * 0.5 + w * (0.25 * w.dot(a)) + y.cross(c) * 0.5 + y.cross(&wc) * 0.25;
    se3::join(&rot, &(c + wc * 0.5))
}

/// The hand-written buoyant vehicle, SE(3)/Cayley Störmer–Verlet (docs/math.md §D.5, "simplest
/// members"): kick `μ = Π_k + (h/2) f(g_k)`; Newton on `(dcay^{-1}_{hξ})ᵀ 𝕄ξ = μ` from
/// `ξ = 𝕄^{-1}μ` with the Jacobian `(dcay^{-1}_{hξ})ᵀ 𝕄 + h ∂_x[(dcay^{-1}_x)ᵀ m]|_{m = 𝕄ξ}`
/// (closed form) and the convergence tests of `geom_core::newton`; `g_{k+1} = g_k cay(hξ)`,
/// `Π_{k+1} = (dcay^{-1}_{-hξ})ᵀ 𝕄ξ + (h/2) f(g_{k+1})`, `f = (W Γ × r_G, (B - W) Γ)`.
fn hand_buoyant_step(
    metric: &Matrix6<f64>,
    metric_inv: &Matrix6<f64>,
    (weight, buoyancy, r_g): (f64, f64, &Vector3<f64>),
    g: &mut Matrix4<f64>,
    pi: &mut Vector6<f64>,
    h: f64,
) {
    let force = |g: &Matrix4<f64>| {
        let gamma = Vector3::new(g[(2, 0)], g[(2, 1)], g[(2, 2)]);
        se3::join(&(gamma.cross(r_g) * weight), &(gamma * (buoyancy - weight)))
    };
    let tol = geom_core::newton::INTEGRATOR_TOL;
    let mu = *pi + force(g) * (0.5 * h);
    let scale = mu.amax();
    let mut xi = metric_inv * mu;
    let mut previous: Option<f64> = None;
    for _ in 0..50 {
        let m = metric * xi;
        let (w, y) = se3::split(&(xi * h));
        let (a, c) = se3::split(&m);
        let f = dcay_inv_t(&w, &y, &a, &c) - mu;
        if f.amax() <= tol * scale {
            break;
        }
        let (wh, yh, ah, ch) = (skew(&w), skew(&y), skew(&a), skew(&c));
        let half = Matrix3::identity() + wh * 0.5;
        // (dcay^{-1}_x)ᵀ = [[I + ω̂/2 + ωωᵀ/4, ŷ/2 + ŷω̂/4], [0, I + ω̂/2]]
        let mut t = Matrix6::zeros();
        t.fixed_view_mut::<3, 3>(0, 0).copy_from(&(half + w * w.transpose() * 0.25));
        t.fixed_view_mut::<3, 3>(0, 3).copy_from(&((yh + yh * wh * 0.5) * 0.5));
        t.fixed_view_mut::<3, 3>(3, 3).copy_from(&half);
        // ∂_x of (dcay^{-1}_x)ᵀ (a, c), x = (ω, y)
        let mut dx = Matrix6::zeros();
        dx.fixed_view_mut::<3, 3>(0, 0).copy_from(
            &(-ah * 0.5 + (w * a.transpose() + Matrix3::from_diagonal_element(w.dot(&a))) * 0.25 - yh * ch * 0.25),
        );
        dx.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-ch * 0.5 - skew(&w.cross(&c)) * 0.25));
        dx.fixed_view_mut::<3, 3>(3, 0).copy_from(&(-ch * 0.5));
        let j = t * metric + dx * h;
        let step = -(j.lu().solve(&f).expect("nonsingular"));
        xi += step;
        let s = step.amax();
        if let Some(prev) = previous {
            let theta = s / prev;
            if theta < 1.0 && (theta / (1.0 - theta)).max(1.0) * s <= tol * (1.0 + xi.amax()) {
                break;
            }
        }
        previous = Some(s);
    }
    let m = metric * xi;
    let (w, y) = se3::split(&(xi * h));
    let (a, c) = se3::split(&m);
    // cay(ω, y) = [[I + k(ω̂ + ω̂²/2), (I + ω̂/2 + ωωᵀ/4) y / (1 + |ω|²/4)], [0, 1]], k = 4/(4 + |ω|²)
    let n2 = w.norm_squared();
    let wh = skew(&w);
    let rc = Matrix3::identity() + (wh + wh * wh * 0.5) * (4.0 / (4.0 + n2));
    let tc = (y + w.cross(&y) * 0.5 + w * (0.25 * w.dot(&y))) / (1.0 + 0.25 * n2);
    let r = g.fixed_view::<3, 3>(0, 0).into_owned();
    let b = g.fixed_view::<3, 1>(0, 3).into_owned();
    g.fixed_view_mut::<3, 3>(0, 0).copy_from(&(r * rc));
    g.fixed_view_mut::<3, 1>(0, 3).copy_from(&(r * tc + b));
    *pi = dcay_inv_t(&(-w), &(-y), &a, &c) + force(g) * (0.5 * h);
}

/// One step of the generic HP Störmer–Verlet and of [`hand_buoyant_step`] from the same states
/// along 1000 steps agree to round-off (whole trajectories are not compared: the regime is
/// chaotic).
fn check_buoyant_agreement(veh: &BuoyantVehicle, s0: &State) {
    let sv = hp::stormer_verlet(Se3, Chart::Cayley, *veh).unwrap();
    let metric_inv = veh.metric().try_inverse().unwrap();
    let (mut dpi, mut dg) = (0.0f64, 0.0f64);
    let mut s = *s0;
    for _ in 0..1000 {
        let (mut g, mut pi) = (s.g, s.mu);
        sv.step(&mut s, H).unwrap();
        hand_buoyant_step(veh.metric(), &metric_inv, (veh.weight(), veh.buoyancy(), veh.r_g()), &mut g, &mut pi, H);
        dpi = dpi.max((s.mu - pi).amax() / s.mu.amax());
        dg = dg.max((s.g - g).amax() / s.g.amax());
    }
    println!(
        "agreement of one step, buoyant HP-SV vs hand-written, over 1000 steps: |ΔΠ|/|Π| {dpi:.2e}, |Δg|/|g| {dg:.2e}"
    );
    assert!(dpi <= 1e-12 && dg <= 1e-12, "the buoyant routes disagree: {dpi:e} {dg:e}");
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
    let exp = hp::stormer_verlet(Se3, Chart::Exp, veh).unwrap();
    let old = hp::stormer_verlet(Se3Ad, Chart::Exp, VehicleAd(veh)).unwrap();
    let (mut dpi, mut dg) = (0.0f64, 0.0f64);
    let mut s = s0;
    for _ in 0..1000 {
        let mut b = s;
        exp.step(&mut s, H).unwrap();
        old.step(&mut b, H).unwrap();
        dpi = dpi.max((s.mu - b.mu).amax() / s.mu.amax());
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
        "exp" => advance(&hp::stormer_verlet(Se3, Chart::Exp, veh).unwrap(), &mut s, N),
        "cayley" => advance(&hp::stormer_verlet(Se3, Chart::Cayley, veh).unwrap(), &mut s, N),
        "exp_ad" => advance(&hp::stormer_verlet(Se3Ad, Chart::Exp, VehicleAd(veh)).unwrap(), &mut s, N),
        "buoyant" => {
            let (bveh, b0) = buoyant_vehicle();
            s = b0;
            advance(&hp::stormer_verlet(Se3, Chart::Cayley, bveh).unwrap(), &mut s, N);
        }
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
    let exp = hp::stormer_verlet(Se3, Chart::Exp, veh).unwrap();
    let cay = hp::stormer_verlet(Se3, Chart::Cayley, veh).unwrap();
    let old = hp::stormer_verlet(Se3Ad, Chart::Exp, VehicleAd(veh)).unwrap();
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
    let mu = s0.mu;
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

    // the vehicle with gravity and buoyancy: the generic HP-SV (kick–solve–kick, the model is
    // separable) against the hand-written loop, against the neutral vehicle, and through the
    // general stage equations
    let (bveh, b0) = buoyant_vehicle();
    check_buoyant_agreement(&bveh, &b0);
    let bsv = hp::stormer_verlet(Se3, Chart::Cayley, bveh).unwrap();
    let bmetric_inv = bveh.metric().try_inverse().unwrap();
    let hand = |n: usize| {
        let (mut g, mut pi) = (b0.g, b0.mu);
        for _ in 0..n {
            hand_buoyant_step(
                bveh.metric(),
                &bmetric_inv,
                (bveh.weight(), bveh.buoyancy(), bveh.r_g()),
                black_box(&mut g),
                black_box(&mut pi),
                black_box(H),
            );
        }
        black_box((g, pi));
    };
    let buoyant = |n: usize| {
        let mut s = b0;
        advance(&bsv, &mut s, n);
        black_box(s);
    };
    report.case("buoyant_vehicle_sv_cayley_vs_hand_written", 1.5, STEPS, buoyant, hand);
    let (b_ns, n_ns) = interleaved(STEPS, buoyant, |n| run(&cay, n));
    println!("info buoyant_vehicle_sv_cayley_vs_neutral_sv_cayley {b_ns:.1} {n_ns:.1} {:.3}", b_ns / n_ns);
    let general = hp::stormer_verlet(Se3, Chart::Cayley, AutoDiff(bveh)).unwrap();
    let (g_ns, s_ns) = interleaved(
        GENERAL_STEPS,
        |n| {
            let mut s = b0;
            advance(&general, &mut s, n);
            black_box(s);
        },
        buoyant,
    );
    println!("info buoyant_vehicle_sv_general_stages_vs_separable {g_ns:.1} {s_ns:.1} {:.3}", g_ns / s_ns);

    report.print("HP Störmer–Verlet on the underwater vehicle, exp vs Cayley chart (ns/step)");
}
