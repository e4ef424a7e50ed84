//! An underwater vehicle with gravity and buoyancy (Leonard 1997; docs/math.md §D.6.1):
//! `integrators::models::BuoyantVehicle` with Hamilton–Pontryagin Störmer–Verlet on SE(3).
//!
//! A solid ellipsoid a, b, c = 1, 0.5, 0.25 m in water, its centre of gravity moved off the
//! centre of buoyancy by ballast, released tilted and spinning. Two regimes:
//!
//! * **regular**: a small offset straight below the CB and a small tilt, the vehicle rocks
//!   about upright;
//! * **chaotic**: a large offset off every body axis and a large tilt, the vehicle tumbles.
//!
//! The weight equals the buoyancy (`W = B`), so no net force acts: an ideal fluid has no drag,
//! and a heavier vehicle would accelerate downwards without bound (its vertical momentum grows
//! as `(B - W)t`, which `tests/hp_buoyant_vehicle.rs` checks), with no long-time regime to
//! measure a Lyapunov exponent in. The gravity–buoyancy couple `W Γ × r_G` makes the motion
//! non-integrable.
//!
//! For each regime: the energy error (max over the run and over its first and last tenth), the
//! errors of the conserved momenta `e3·(RΠ + b × RP)`, `e1·RP`, `e2·RP`, and the chaos
//! indicators of the library's variational equations on `T*SE(3)`
//! (`integrators::variational_equations::LieMegno`): a deviation vector `(η, δμ)` in the
//! left-trivialized chart `(g exp(η), μ + δμ)`, carried by the tangent map of the same HP step by
//! central differences (`LieFiniteDifference`, 25 steps per step), gives the finite-time Lyapunov
//! estimate `ln|δ(t)| / t` and the MEGNO `⟨Y⟩` (Cincotta & Simó 2000: `→ 2` on a quasi-periodic
//! orbit, `≈ λt/2` on a chaotic one).
//!
//! Last, the chaotic regime made 2% heavier than water runs for 100 s: it sinks, its conserved
//! momenta stay at round-off, and its vertical momentum follows `(B - W)t`.
//!
//! Run: `cargo run --release --example underwater_vehicle_buoyant`.

use discretization::OneStep;
use geom_core::GeomError;
use geom_core::lie::{Chart, LieGroup, Se3};
use integrators::PhaseState;
use integrators::hp::{self, LieState};
use integrators::models::BuoyantVehicle;
use integrators::variational_equations::{LieFiniteDifference, LieMegno};
use nalgebra::{Matrix4, Vector3, Vector6};

type State = LieState<Matrix4<f64>, 6>;

const H: f64 = 0.01;
const T: f64 = 1000.0;

struct Regime {
    name: &'static str,
    r_g: Vector3<f64>,
    /// `log g0` (rotation first).
    x0: Vector6<f64>,
    /// Body velocity `ξ0 = (Ω, v)`.
    xi0: Vector6<f64>,
}

struct Summary {
    energy: f64,
    energy_first: f64,
    energy_last: f64,
    angular: f64,
    linear: f64,
    lyapunov: f64,
    lyapunov_half: f64,
    megno: f64,
    max_tilt: f64,
}

fn run(veh: &BuoyantVehicle, sv: &dyn OneStep<State>, s0: State) -> Result<Summary, GeomError> {
    let n = (T / H).round() as usize;
    // the step and its tangent map in the left-trivialized chart, the deviation along a fixed
    // direction of (η, δμ)
    let tangent = LieFiniteDifference::new(Se3, sv);
    let delta = PhaseState::new(Vector6::new(1.0, -0.7, 0.4, 0.3, 0.9, -0.5), Vector6::repeat(0.5));
    let mut chaos = LieMegno::start(&tangent, s0, delta, H)?;
    let a = s0;
    let e0 = veh.energy(&a);
    let e_scale = 0.5 * a.mu.dot(&veh.velocity(&a.mu)) + veh.weight() * veh.r_g().norm();
    let j0 = Vector3::from(veh.momenta(&a));
    let mut out = Summary {
        energy: 0.0,
        energy_first: 0.0,
        energy_last: 0.0,
        angular: 0.0,
        linear: 0.0,
        lyapunov: 0.0,
        lyapunov_half: 0.0,
        megno: 0.0,
        max_tilt: 0.0,
    };
    for k in 1..=n {
        chaos.advance(&tangent, 1)?;
        let a = *chaos.state();
        let de = (veh.energy(&a) - e0).abs() / e_scale;
        out.energy = out.energy.max(de);
        if k <= n / 10 {
            out.energy_first = out.energy_first.max(de);
        }
        if k > n - n / 10 {
            out.energy_last = out.energy_last.max(de);
        }
        let j = Vector3::from(veh.momenta(&a));
        let (pi, p) = (a.mu.fixed_rows::<3>(0).norm(), a.mu.fixed_rows::<3>(3).norm());
        let pos = a.g.fixed_view::<3, 1>(0, 3).norm();
        out.angular = out.angular.max((j[0] - j0[0]).abs() / (pi + pos * p));
        out.linear = out.linear.max((j.fixed_rows::<2>(1) - j0.fixed_rows::<2>(1)).amax() / p);
        out.max_tilt = out.max_tilt.max(a.g[(2, 2)].clamp(-1.0, 1.0).acos());
        if k == n / 2 {
            out.lyapunov_half = chaos.lyapunov();
        }
    }
    out.lyapunov = chaos.lyapunov();
    out.megno = chaos.mean();
    Ok(out)
}

fn main() -> Result<(), GeomError> {
    let regimes = [
        Regime {
            name: "regular",
            r_g: Vector3::new(0.0, 0.0, -0.05),
            x0: Vector6::new(0.2, 0.1, 0.0, 0.0, 0.0, 0.0),
            xi0: Vector6::new(0.1, -0.1, 0.2, 0.1, 0.0, 0.0),
        },
        Regime {
            name: "chaotic",
            r_g: Vector3::new(0.15, -0.1, -0.1),
            x0: Vector6::new(1.2, 0.6, 0.3, 0.0, 0.0, 0.0),
            xi0: Vector6::new(0.6, -0.8, 1.2, 0.4, -0.3, 0.2),
        },
    ];
    println!("underwater vehicle with gravity and buoyancy (Leonard 1997), HP Störmer–Verlet on SE(3)");
    println!(
        "  solid ellipsoid a, b, c = 1, 0.5, 0.25 m in water (ρ = 1000 kg/m³), W = B, g = 9.81 m/s²; \
         h = {H} s, {} steps (T = {T} s)",
        (T / H).round()
    );
    println!("  energy error relative to E_kin(0) + W|r_G|; e3·(RΠ + b×RP) relative to |Π| + |b||P|, e1,e2·RP to |P|");
    println!(
        "  chaos indicators: MEGNO <Y> and the Lyapunov estimate ln|δ(t)|/t of the variational equations on T*SE(3) (LieMegno)"
    );
    for regime in &regimes {
        let (veh, p) = BuoyantVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0, 1.0, regime.r_g, 9.81)?;
        let s0 = LieState::new(Se3.exp(&regime.x0), veh.metric() * regime.xi0);
        let sv = hp::stormer_verlet(Se3, Chart::Cayley, veh)?;
        let t = std::time::Instant::now();
        let r = run(&veh, &sv, s0)?;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "\n{} regime: r_G = ({:.2}, {:.2}, {:.2}) m, body mass {:.1} kg, initial tilt {:.2} rad, Ω0 = {:.2?} rad/s",
            regime.name,
            regime.r_g[0],
            regime.r_g[1],
            regime.r_g[2],
            p.body_mass,
            s0.g[(2, 2)].acos(),
            regime.xi0.fixed_rows::<3>(0).as_slice()
        );
        println!("  method                {}", sv.name());
        println!(
            "  energy error          max {:.3e}, first tenth {:.3e}, last tenth {:.3e}",
            r.energy, r.energy_first, r.energy_last
        );
        println!("  momenta errors        e3·(RΠ + b×RP) {:.2e}, e1,e2·RP {:.2e}", r.angular, r.linear);
        println!("  max tilt              {:.3} rad", r.max_tilt);
        println!("  Lyapunov estimate     {:.4} 1/s (over T/2: {:.4} 1/s)", r.lyapunov, r.lyapunov_half);
        println!(
            "  MEGNO <Y>             {:.2} (→ 2 if quasi-periodic, ≈ λT/2 = {:.1} if chaotic)",
            r.megno,
            0.5 * r.lyapunov * T
        );
        println!("  wall time             {secs:.1} s (the trajectory and its tangent map)");
    }
    sinking(&regimes[1])?;
    Ok(())
}

/// The chaotic regime made 2% heavier than water, for 100 s: no long-time regime (it accelerates
/// downwards), but the horizontal and angular momenta stay conserved and the vertical momentum
/// follows `e3·RP = e3·RP(0) + (B - W)t`.
fn sinking(regime: &Regime) -> Result<(), GeomError> {
    let (veh, p) = BuoyantVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0, 1.02, regime.r_g, 9.81)?;
    let sv = hp::stormer_verlet(Se3, Chart::Cayley, veh)?;
    let mut s = LieState::new(Se3.exp(&regime.x0), veh.metric() * regime.xi0);
    let (j0, v0, e0, z0) = (Vector3::from(veh.momenta(&s)), s.spatial_momentum(&Se3)[5], veh.energy(&s), s.g[(2, 3)]);
    let n = (100.0 / H).round() as usize;
    let (mut dj, mut dv, mut de) = (0.0f64, 0.0f64, 0.0f64);
    for k in 1..=n {
        sv.step(&mut s, H)?;
        let (pi, pn) = (s.mu.fixed_rows::<3>(0).norm(), s.mu.fixed_rows::<3>(3).norm());
        let pos = s.g.fixed_view::<3, 1>(0, 3).norm();
        let j = Vector3::from(veh.momenta(&s));
        dj = dj.max(
            ((j[0] - j0[0]).abs() / (pi + pos * pn)).max((j.fixed_rows::<2>(1) - j0.fixed_rows::<2>(1)).amax() / pn),
        );
        let vertical = v0 - veh.net_weight() * H * k as f64;
        dv = dv.max((s.spatial_momentum(&Se3)[5] - vertical).abs() / pn);
        de = de.max((veh.energy(&s) - e0).abs());
    }
    let kinetic = 0.5 * s.mu.dot(&veh.velocity(&s.mu));
    println!(
        "\nheavier than water (body mass {:.1} kg, W - B = {:.1} N), the chaotic regime's r_G and start, {n} steps (T = 100 s):",
        p.body_mass,
        veh.net_weight()
    );
    println!("  sank                  {:.1} m", z0 - s.g[(2, 3)]);
    println!("  momenta errors        conserved components {dj:.2e}, e3·RP - (B - W)t {dv:.2e} (relative to |P|)");
    println!("  energy error          {:.3e} relative to the final kinetic energy", de / kinetic);
    Ok(())
}
