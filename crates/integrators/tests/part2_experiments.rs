//! The two experiments Bou-Rabee and Marsden announce for the second part of "Hamilton–Pontryagin
//! integrators on Lie groups" (2009): a nonreversible mechanical system on a Lie group, and the
//! chaotic dynamics of an underwater vehicle. In both, the Hamilton–Pontryagin Störmer–Verlet
//! method keeps the energy error bounded over long times, while RKMK4 — of higher order, on the
//! group, but not symplectic — lets it drift. Over the times tested RKMK4's error is the smaller
//! (order 4 against 2), but it grows linearly in time and HP's does not grow: measured (the
//! tests print it) `1.4e-3 → 1.4e-3` for HP against `1.0e-6 → 9.6e-6` for RKMK4 from the first
//! to the last tenth of `T = 2000` on the gyrostat, `1.9e-4 → 3.8e-4` against `1.3e-6 → 1.2e-5`
//! over `T = 500` on the chaotic vehicle.
//!
//! * **A gyrostat with an off-axis weight**: `ℓ(R, ξ) = ½ ξᵀIξ + k·ξ − mgl e3·(Rχ)`, a rigid body
//!   carrying a rotor of constant angular momentum `k` (the gyroscopic term linear in `ξ`). It is
//!   not reversible: for `k = 0` the map `ρ(R, ξ) = (R, −ξ)` reverses time (`φ_T ∘ ρ ∘ φ_T ∘ ρ =
//!   id`), which a symmetric method inherits to round-off; for `k ≠ 0` it does not, and the same
//!   round trip misses its start by `O(1)`. Symmetric methods get their long-time energy behaviour
//!   on reversible systems from reversibility; here only symplecticity is left to give it.
//! * **The buoyant vehicle in its chaotic regime** (the example `underwater_vehicle_buoyant`): an
//!   ellipsoid whose centre of gravity sits off every body axis, released tilted and spinning.

use discretization::OneStep;
use geom_core::lie::{Chart, LieGroup, Product, Rn, Se3, So3, So3xR3};
use geom_core::{Result, Scalar};
use integrators::hp::{self, AutoDiff, LieFunction, LieState};
use integrators::models::BuoyantVehicle;
use integrators::rkmk::{GroupState, LieVectorField, rkmk4};
use nalgebra::{Matrix3, Matrix4, SVector, Vector3, Vector6};

const INERTIA: [f64; 3] = [2.0, 1.5, 1.0];
const MGL: f64 = 1.0;
const CHI: [f64; 3] = [0.3, -0.2, 1.0];

/// The gyrostat's `ℓ(R, ξ) = ½ ξᵀIξ + k·ξ − mgl e3·(Rχ)`, written once over the scalar.
#[derive(Debug, Clone, Copy)]
struct Gyrostat {
    k: [f64; 3],
}

impl<S: Scalar> LieFunction<S, So3, 3> for Gyrostat {
    fn eval(&self, _: &So3, r: &Matrix3<S>, xi: &Vector3<S>) -> S {
        let kinetic = (0..3).fold(S::from(0.0), |a, i| a + xi[i] * xi[i] * S::from(0.5 * INERTIA[i]));
        let rotor = (0..3).fold(S::from(0.0), |a, i| a + xi[i] * S::from(self.k[i]));
        let height = (0..3).fold(S::from(0.0), |a, j| a + r[(2, j)] * S::from(CHI[j]));
        kinetic + rotor - height * S::from(MGL)
    }
}

impl Gyrostat {
    /// `ξ = I^{-1}(Π − k)`.
    fn velocity(&self, pi: &Vector3<f64>) -> Vector3<f64> {
        Vector3::from_fn(|i, _| (pi[i] - self.k[i]) / INERTIA[i])
    }
    /// `E = ½ ξᵀIξ + mgl e3·(Rχ)` (the rotor term is linear in `ξ` and drops out of the energy
    /// `Π·ξ − ℓ`).
    fn energy(&self, r: &Matrix3<f64>, pi: &Vector3<f64>) -> f64 {
        let xi = self.velocity(pi);
        let kinetic: f64 = (0..3).map(|i| 0.5 * INERTIA[i] * xi[i] * xi[i]).sum();
        kinetic + MGL * (0..3).map(|j| r[(2, j)] * CHI[j]).sum::<f64>()
    }
    /// The time reversal candidate `ρ(R, ξ) = (R, −ξ)`: `Π = Iξ + k ↦ 2k − Π`.
    fn reverse(&self, s: &LieState<Matrix3<f64>, 3>) -> LieState<Matrix3<f64>, 3> {
        LieState::new(s.g, Vector3::from(self.k) * 2.0 - s.mu)
    }
}

/// The gyrostat on `SO(3) × R^3` for RKMK: `f(R, Π) = (ξ, Π × ξ + mgl Γ × χ)`, `Γ = Rᵀe3`
/// (the left-trivialized Euler–Poincaré equations `Π̇ = ad*_ξ Π + f(R)`).
impl LieVectorField<So3xR3, 6> for Gyrostat {
    fn eval(&self, _: &So3xR3, _t: f64, g: &(Matrix3<f64>, Vector3<f64>)) -> Result<Vector6<f64>> {
        let (r, pi) = g;
        let xi = self.velocity(pi);
        let gamma = r.transpose() * Vector3::z();
        let dpi = pi.cross(&xi) + gamma.cross(&Vector3::from(CHI)) * MGL;
        Ok(Vector6::new(xi[0], xi[1], xi[2], dpi[0], dpi[1], dpi[2]))
    }
}

fn gyrostat_start(top: &Gyrostat) -> LieState<Matrix3<f64>, 3> {
    let xi0 = Vector3::new(0.8, -0.5, 1.5);
    let pi0 = Vector3::from_fn(|i, _| INERTIA[i] * xi0[i] + top.k[i]);
    LieState::new(So3.exp(&Vector3::new(0.7, 0.3, 0.0)), pi0)
}

/// `|R − R'| + |Π − Π'|`.
fn gap(a: &LieState<Matrix3<f64>, 3>, b: &LieState<Matrix3<f64>, 3>) -> f64 {
    (a.g - b.g).amax() + (a.mu - b.mu).amax()
}

/// Forward `T`, reverse, forward `T`, reverse: back at the start iff `ρ` reverses the flow.
fn round_trip(top: &Gyrostat, h: f64, n: usize) -> f64 {
    let sv = hp::stormer_verlet(So3, Chart::Cayley, AutoDiff(*top)).unwrap();
    let s0 = gyrostat_start(top);
    let mut s = s0;
    sv.step_n(&mut s, h, n).unwrap();
    s = top.reverse(&s);
    sv.step_n(&mut s, h, n).unwrap();
    gap(&top.reverse(&s), &s0)
}

#[test]
fn the_gyrostat_is_not_reversible() {
    // k = 0: a heavy top, reversible; HP Störmer–Verlet is symmetric, so the round trip returns
    // to round-off
    let back = round_trip(&Gyrostat { k: [0.0; 3] }, 0.01, 500);
    // k ≠ 0: the same round trip misses by O(1) — not a discretization error: it stays as h
    // is halved
    let top = Gyrostat { k: [0.6, -0.4, 0.9] };
    let (miss, miss_half) = (round_trip(&top, 0.01, 500), round_trip(&top, 0.005, 1000));
    println!("round trip T = 5: k = 0 {back:.2e}; k != 0 {miss:.3e} (h = 0.01), {miss_half:.3e} (h = 0.005)");
    assert!(back < 1e-11, "the heavy top's round trip misses by {back:e}");
    assert!(miss > 0.1 && miss_half > 0.1, "the gyrostat returned: {miss:e}, {miss_half:e}");
    assert!(
        (miss - miss_half).abs() < 0.05 * miss,
        "the miss is not a property of the flow: {miss:e} vs {miss_half:e}"
    );
}

/// `(max over the first tenth, max over the last tenth)` of `|E − E0| / scale` over `n` steps.
fn tenths(n: usize, mut step: impl FnMut() -> f64) -> (f64, f64) {
    let (mut first, mut last) = (0.0f64, 0.0f64);
    for k in 1..=n {
        let de = step();
        if k <= n / 10 {
            first = first.max(de);
        }
        if k > n - n / 10 {
            last = last.max(de);
        }
    }
    (first, last)
}

#[test]
fn hp_keeps_the_gyrostats_energy_where_rkmk4_drifts() {
    let top = Gyrostat { k: [0.6, -0.4, 0.9] };
    let s0 = gyrostat_start(&top);
    let e0 = top.energy(&s0.g, &s0.mu);
    let scale = e0.abs().max(MGL);
    let (h, n) = (0.05, 40_000); // T = 2000
    let sv = hp::stormer_verlet(So3, Chart::Cayley, AutoDiff(top)).unwrap();
    let mut s = s0;
    let (hp_first, hp_last) = tenths(n, || {
        sv.step(&mut s, h).unwrap();
        (top.energy(&s.g, &s.mu) - e0).abs() / scale
    });
    let rk = rkmk4(So3xR3::default(), top).unwrap();
    let mut g = GroupState::new(0.0, (s0.g, s0.mu));
    let (rk_first, rk_last) = tenths(n, || {
        rk.step(&mut g, h).unwrap();
        (top.energy(&g.g.0, &g.g.1) - e0).abs() / scale
    });
    println!(
        "gyrostat, h = {h}, T = {}: HP SV energy error first tenth {hp_first:.2e}, last {hp_last:.2e}; RKMK4 {rk_first:.2e} -> {rk_last:.2e}",
        h * n as f64
    );
    assert!(hp_last <= 2.0 * hp_first, "HP: energy error grows {hp_first:e} -> {hp_last:e}");
    assert!(rk_last >= 5.0 * rk_first, "RKMK4 did not drift: {rk_first:e} -> {rk_last:e}");
}

type Vehicle = LieState<Matrix4<f64>, 6>;
type Se3xR6 = Product<Se3, Rn<6>, 6, 6>;

/// The vehicle on `SE(3) × R^6` for RKMK: `f(g, μ) = (ξ, ad*_ξ μ + f(g))`, `ξ = M^{-1}μ`.
#[derive(Debug, Clone, Copy)]
struct VehicleField(BuoyantVehicle);

impl LieVectorField<Se3xR6, 12> for VehicleField {
    fn eval(&self, _: &Se3xR6, _t: f64, g: &(Matrix4<f64>, SVector<f64, 6>)) -> Result<SVector<f64, 12>> {
        let (x, mu) = g;
        let xi = self.0.velocity(mu);
        let dmu = LieGroup::<f64, 6>::ad_star(&Se3, &xi, mu) + self.0.force(x);
        Ok(SVector::<f64, 12>::from_fn(|i, _| if i < 6 { xi[i] } else { dmu[i - 6] }))
    }
}

#[test]
fn hp_keeps_the_chaotic_vehicles_energy_where_rkmk4_drifts() {
    // the example's chaotic regime: W = B, centre of gravity off every body axis, large tilt
    let (veh, _) =
        BuoyantVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0, 1.0, Vector3::new(0.15, -0.1, -0.1), 9.81).unwrap();
    let s0: Vehicle = LieState::new(
        Se3.exp(&Vector6::new(1.2, 0.6, 0.3, 0.0, 0.0, 0.0)),
        veh.metric() * Vector6::new(0.6, -0.8, 1.2, 0.4, -0.3, 0.2),
    );
    let e0 = veh.energy(&s0);
    // the potential ranges over ±W|r_G|
    let scale = 0.5 * s0.mu.dot(&veh.velocity(&s0.mu)) + veh.weight() * veh.r_g().norm();
    let (h, n) = (0.02, 25_000); // T = 500
    let sv = hp::stormer_verlet(Se3, Chart::Cayley, veh).unwrap();
    let mut s = s0;
    let (hp_first, hp_last) = tenths(n, || {
        sv.step(&mut s, h).unwrap();
        (veh.energy(&s) - e0).abs() / scale
    });
    let rk = rkmk4(Se3xR6::default(), VehicleField(veh)).unwrap();
    let mut g = GroupState::new(0.0, (s0.g, s0.mu));
    let (rk_first, rk_last) = tenths(n, || {
        rk.step(&mut g, h).unwrap();
        (veh.energy(&LieState::new(g.g.0, g.g.1)) - e0).abs() / scale
    });
    println!(
        "chaotic vehicle, h = {h}, T = {}: HP SV energy error first tenth {hp_first:.2e}, last {hp_last:.2e}; RKMK4 {rk_first:.2e} -> {rk_last:.2e}",
        h * n as f64
    );
    // the motion is chaotic (the example measures a positive finite-time Lyapunov exponent): the
    // energy error of a symplectic method still stays within a small factor of its early size
    assert!(hp_last <= 3.0 * hp_first, "HP: energy error grows {hp_first:e} -> {hp_last:e}");
    assert!(rk_last >= 5.0 * rk_first, "RKMK4 did not drift: {rk_first:e} -> {rk_last:e}");
}
