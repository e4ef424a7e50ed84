//! The heavy top on SO(3) (docs/math.md §D.1: Π̇ = Π×Ω + mgl Γ×χ) with Hamilton–Pontryagin
//! Störmer–Verlet and symplectic Euler A (both charts), and RKMK4 on SO(3) × R^3.
//!
//! Run: `cargo run --release --example heavy_top`.

use discretization::OneStep;
use geom_core::GeomError;
use geom_core::lie::{Chart, LieGroup, So3, So3xR3};
use integrators::hp::{self, LieState};
use integrators::models::HeavyTop;
use integrators::rkmk::{self, GroupState};
use nalgebra::{Matrix3, Vector3};

fn main() -> Result<(), GeomError> {
    let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0))?;
    let s0 = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
    let (h, n) = (0.01, 100_000);
    println!(
        "heavy top: I = diag(2, 2.5, 1), mgl = 1, χ ∝ (0.1, 0, 1), Π0 = (0.3, -0.4, 2), h = {h}, {n} steps (T = {})",
        h * n as f64
    );
    println!("max errors over the run (energy relative, e3·RΠ relative to |Π0|):");
    println!("{:<32} {:>11} {:>11} {:>11}", "method", "energy", "e3·RΠ", "|RᵀR - I|");
    let (e0, j0) = (top.energy(&s0), top.momenta(&s0)[0]);
    let scale = s0.mu.norm();
    let report = |name: &str, states: &mut dyn FnMut() -> Result<LieState<Matrix3<f64>, 3>, GeomError>| {
        let (mut de, mut dj, mut defect) = (0.0f64, 0.0f64, 0.0f64);
        for _ in 0..n {
            let s = states()?;
            de = de.max((top.energy(&s) - e0).abs() / e0.abs());
            dj = dj.max((top.momenta(&s)[0] - j0).abs() / scale);
            defect = defect.max((s.g.transpose() * s.g - Matrix3::identity()).norm());
        }
        println!("{name:<32} {de:>11.3e} {dj:>11.3e} {defect:>11.3e}");
        Ok::<(), GeomError>(())
    };
    for chart in [Chart::Cayley, Chart::Exp] {
        let sv = hp::stormer_verlet(So3, chart, top)?;
        let mut s = s0;
        report(sv.name(), &mut || sv.step(&mut s, h).map(|_| s))?;
        let se = hp::symplectic_euler_a(So3, chart, top)?;
        let mut s = s0;
        report(se.name(), &mut || se.step(&mut s, h).map(|_| s))?;
    }
    let rk = rkmk::rkmk4(So3xR3::default(), top)?;
    let mut s = GroupState::new(0.0, (s0.g, s0.mu));
    report(&rk.name(), &mut || rk.step(&mut s, h).map(|_| LieState::new(s.g.0, s.g.1)))?;
    Ok(())
}
