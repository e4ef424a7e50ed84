//! The free rigid body on SO(3) with Hamilton–Pontryagin Störmer–Verlet (Bou-Rabee & Marsden,
//! *Hamilton–Pontryagin integrators on Lie groups, Part I*, 2009, arXiv:0801.0996; docs/math.md
//! §D.5; both charts) and, as the non-variational baseline, RKMK4 on SO(3) × R^3.
//!
//! Run: `cargo run --release --example rigid_body`.

use discretization::OneStep;
use geom_core::GeomError;
use geom_core::lie::{Chart, LieGroup, So3, So3xR3};
use integrators::hp::{self, LieState};
use integrators::models::FreeRigidBody;
use integrators::rkmk::{self, GroupState};
use nalgebra::Vector3;

fn main() -> Result<(), GeomError> {
    let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
    let pi0 = Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin());
    let r0 = So3.exp(&Vector3::new(0.3, -0.2, 0.5));
    let (h, n) = (0.05, 100_000);
    println!(
        "free rigid body: I = diag(2, 1, 2/3), Π0 = (cos 1.1, 0, sin 1.1), h = {h}, {n} steps (T = {})",
        h * n as f64
    );
    println!("max relative errors over the run:");
    println!("{:<30} {:>11} {:>11} {:>11} {:>11}", "method", "energy", "|Π|²", "RΠ", "|RᵀR - I|");

    let s0 = LieState::new(r0, pi0);
    let (e0, c0) = (body.energy(&s0), body.casimirs(&s0)[0]);
    let m0 = r0 * pi0;
    for chart in [Chart::Cayley, Chart::Exp] {
        let sv = hp::stormer_verlet(So3, chart, body)?;
        let mut s = LieState::new(r0, pi0);
        let (mut de, mut dc, mut dm, mut defect) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for _ in 0..n {
            sv.step(&mut s, h)?;
            de = de.max((body.energy(&s) - e0).abs() / e0);
            dc = dc.max((body.casimirs(&s)[0] - c0).abs() / c0);
            dm = dm.max((Vector3::from(body.momenta(&s)) - m0).norm() / m0.norm());
            defect = defect.max((s.g.transpose() * s.g - nalgebra::Matrix3::identity()).norm());
        }
        println!("{:<30} {de:>11.3e} {dc:>11.3e} {dm:>11.3e} {defect:>11.3e}", sv.name());
    }

    let rk = rkmk::rkmk4(So3xR3::default(), body)?;
    let mut s = GroupState::new(0.0, (r0, pi0));
    let (mut de, mut dc, mut dm, mut defect) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for _ in 0..n {
        rk.step(&mut s, h)?;
        let (r, pi) = s.g;
        let state = LieState::new(r, pi);
        de = de.max((body.energy(&state) - e0).abs() / e0);
        dc = dc.max((body.casimirs(&state)[0] - c0).abs() / c0);
        dm = dm.max((r * pi - m0).norm() / m0.norm());
        defect = defect.max((r.transpose() * r - nalgebra::Matrix3::identity()).norm());
    }
    println!("{:<30} {de:>11.3e} {dc:>11.3e} {dm:>11.3e} {defect:>11.3e}", rk.name());
    println!("(HP: momentum and Casimir to round-off, energy bounded at O(h²); RKMK4: O(h⁴) but drifting)");
    Ok(())
}
