//! Kirchhoff's neutrally buoyant ellipsoidal underwater vehicle on SE(3) (docs/math.md §D.6) with
//! Hamilton–Pontryagin Störmer–Verlet, both charts.
//!
//! Run: `cargo run --release --example underwater_vehicle`.

use discretization::OneStep;
use geom_core::GeomError;
use geom_core::lie::{Chart, LieGroup, Se3};
use integrators::hp::{self, LieState};
use integrators::models::UnderwaterVehicle;
use nalgebra::Vector6;

fn main() -> Result<(), GeomError> {
    let (veh, p) = UnderwaterVehicle::ellipsoid(1.0, 0.5, 0.25, 1000.0)?;
    println!(
        "underwater vehicle: solid ellipsoid a, b, c = 1, 0.5, 0.25 m in water (ρ = 1000 kg/m³), neutrally buoyant"
    );
    println!(
        "  mass {:.2} kg, added mass {:.2?} kg, Lamb's α0, β0, γ0 = {:.4?}",
        p.mass,
        p.added_mass.as_slice(),
        p.lamb.as_slice()
    );
    println!("  inertia body {:.3?} + added {:.3?} kg m²", p.body_inertia.as_slice(), p.added_inertia.as_slice());
    let xi0 = Vector6::new(0.3, 0.5, -0.2, 1.0, 0.3, -0.2);
    let mu0 = Vector6::from_iterator(
        (veh.inertia() * xi0.fixed_rows::<3>(0)).iter().chain((veh.mass() * xi0.fixed_rows::<3>(3)).iter()).copied(),
    );
    let g0 = Se3.exp(&Vector6::new(0.2, -0.1, 0.4, 1.0, -2.0, 0.5));
    let (h, n) = (0.05, 100_000);
    println!(
        "  initial Ω = (0.3, 0.5, -0.2) rad/s, v = (1, 0.3, -0.2) m/s; h = {h} s, {n} steps (T = {} s)",
        h * n as f64
    );
    println!("max relative errors over the run (Ad*μ relative to |Π| + |x||P|):");
    println!("{:<28} {:>11} {:>11} {:>11} {:>11}", "method", "energy", "|P|²", "Π·P", "Ad*_{g⁻¹}μ");
    let e0 = veh.energy(&LieState::new(g0, mu0));
    let [c1, c2] = veh.casimirs(&LieState::new(g0, mu0));
    let (pi_n, p_n) = (mu0.fixed_rows::<3>(0).norm(), mu0.fixed_rows::<3>(3).norm());
    for chart in [Chart::Cayley, Chart::Exp] {
        let sv = hp::stormer_verlet(Se3, chart, veh)?;
        let mut s = LieState::new(g0, mu0);
        let j0 = s.spatial_momentum(&Se3);
        let (mut de, mut d1, mut d2, mut dj) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for _ in 0..n {
            sv.step(&mut s, h)?;
            let [a, b] = veh.casimirs(&s);
            de = de.max((veh.energy(&s) - e0).abs() / e0);
            d1 = d1.max((a - c1).abs() / c1);
            d2 = d2.max((b - c2).abs() / (pi_n * p_n));
            let x = s.g.fixed_view::<3, 1>(0, 3).norm();
            dj = dj.max((s.spatial_momentum(&Se3) - j0).norm() / (pi_n + (1.0 + x) * p_n));
        }
        println!("{:<28} {de:>11.3e} {d1:>11.3e} {d2:>11.3e} {dj:>11.3e}", sv.name());
    }
    Ok(())
}
