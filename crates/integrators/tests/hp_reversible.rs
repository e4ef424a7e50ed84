//! Symmetric HP members are reversible (`Φ_{-h} ∘ Φ_h = id`): Störmer–Verlet with -h undoes
//! Störmer–Verlet with h, for both charts, on the heavy top (f ≠ 0, general stage equations)
//! and on the free rigid body (reduced equation). Symplectic Euler B with -h undoes symplectic
//! Euler A with h (they are adjoint, docs/math.md §D.5).

use crate::hp_common;

use discretization::OneStep;
use geom_core::lie::{Chart, So3};
use hp_common::{heavy_top, rigid_body};
use integrators::hp::{self, LieState};
use nalgebra::Matrix3;

type State = LieState<Matrix3<f64>, 3>;

fn there_and_back(fwd: &dyn OneStep<State>, back: &dyn OneStep<State>, s0: &State, h: f64, n: usize) -> f64 {
    let mut s = *s0;
    for _ in 0..n {
        fwd.step(&mut s, h).unwrap();
    }
    for _ in 0..n {
        back.step(&mut s, -h).unwrap();
    }
    (s.g - s0.g).norm() + (s.mu - s0.mu).norm() / s0.mu.norm()
}

/// One step there and back: both Newton solves are converged to round-off, so the
/// difference is a few ulp (≤ 1e-14 for |R| = √3, |Π| ~ 2). Over 1000 steps each way
/// (T = 10) the round-off of each step is propagated by the flow (the heavy top's
/// linearised flow grows errors at most polynomially over this span): ≤ 1e-11.
#[test]
fn stormer_verlet_is_reversible() {
    let (top, s_top) = heavy_top();
    let (body, s_body) = rigid_body();
    for chart in [Chart::Exp, Chart::Cayley] {
        let sv_top = hp::stormer_verlet(So3, chart, top).unwrap();
        let sv_body = hp::stormer_verlet(So3, chart, body).unwrap();
        assert!(sv_top.is_symmetric() && sv_body.is_symmetric());
        for (label, m, s0) in [("heavy top", &sv_top as &dyn OneStep<State>, &s_top), ("rigid body", &sv_body, &s_body)]
        {
            let one = there_and_back(m, m, s0, 0.1, 1);
            let many = there_and_back(m, m, s0, 0.01, 1000);
            eprintln!("SV {:<7} {label:<10}: one step {one:.2e}, 1000 steps {many:.2e}", chart.name());
            assert!(one <= 1e-14, "{label} ({}): {one:.3e}", chart.name());
            assert!(many <= 1e-11, "{label} ({}): {many:.3e}", chart.name());
        }
    }
}

#[test]
fn symplectic_euler_b_undoes_symplectic_euler_a() {
    let (top, s0) = heavy_top();
    for chart in [Chart::Exp, Chart::Cayley] {
        let a = hp::symplectic_euler_a(So3, chart, top).unwrap();
        let b = hp::symplectic_euler_b(So3, chart, top).unwrap();
        assert!(!a.is_symmetric() && !b.is_symmetric());
        let one = there_and_back(&a, &b, &s0, 0.1, 1);
        // and SE-A alone is not reversible: Φ_{-h} ∘ Φ_h - id = O(h^2)
        let not = there_and_back(&a, &a, &s0, 0.1, 1);
        eprintln!("SE-B(-h) ∘ SE-A(h) ({}): {one:.2e};  SE-A(-h) ∘ SE-A(h): {not:.2e}", chart.name());
        assert!(one <= 1e-14, "{one:.3e}");
        assert!(not > 1e-4, "{not:.3e}");
    }
}
