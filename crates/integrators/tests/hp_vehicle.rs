//! Kirchhoff's underwater vehicle on SE(3) (docs/math.md §D.6) with HP Störmer–Verlet, both charts:
//! the Casimirs |P|², Π·P and the spatial momentum Ad*_{g^{-1}}μ conserved to round-off (f = 0,
//! so Π_{k+1} = Ad*_{τ(hξ)} Π_k, docs/math.md §D.5 check (ii)); energy bounded and second order.
//! Ellipsoid a = 1 m, b = 0.5 m, c = 0.25 m, ρ = 1000 kg/m³ (hp_common::vehicle).

use crate::hp_common;

use discretization::OneStep;
use geom_core::lie::{Chart, LieGroup, Se3};
use hp_common::{slope, vehicle};
use integrators::hp::{self, AutoDiff, LieState};
use integrators::models::UnderwaterVehicle;
use nalgebra::Matrix4;

type State = LieState<Matrix4<f64>, 6>;

struct Run {
    p2: f64,
    pi_p: f64,
    spatial: f64,
    defect: f64,
    energy: f64,
    first: f64,
    last: f64,
}

fn run(m: &dyn OneStep<State>, veh: &UnderwaterVehicle, s0: &State, h: f64, n: usize) -> Run {
    let mut s = *s0;
    let [c1, c2] = veh.casimirs(&s);
    let pi_norm = s.mu.fixed_rows::<3>(0).norm();
    let p_norm = s.mu.fixed_rows::<3>(3).norm();
    let j0 = s.spatial_momentum(&Se3);
    let e0 = veh.energy(&s);
    let mut r = Run { p2: 0.0, pi_p: 0.0, spatial: 0.0, defect: 0.0, energy: 0.0, first: 0.0, last: 0.0 };
    for k in 1..=n {
        m.step(&mut s, h).unwrap();
        let [d1, d2] = veh.casimirs(&s);
        r.p2 = r.p2.max((d1 - c1).abs() / c1);
        // Π·P is scaled by |Π||P| (it may be small compared with its factors)
        r.pi_p = r.pi_p.max((d2 - c2).abs() / (pi_norm * p_norm));
        // Ad*_{g^{-1}}μ = (RΠ + x × RP, RP) sums terms of size |Π| + |x||P| (the vehicle travels
        // ~500 m, so |x||P| ≈ 3e5 ≫ |j0| ≈ 1e3): round-off in x, one ulp of |x|, times |P| is
        // the floor, and the drift is measured relative to the size of the terms.
        let x = s.g.fixed_view::<3, 1>(0, 3).norm();
        let terms = pi_norm + (1.0 + x) * p_norm;
        r.spatial = r.spatial.max((s.spatial_momentum(&Se3) - j0).norm() / terms);
        r.defect = r.defect.max(LieGroup::<f64, 6>::defect(&Se3, &s.g));
        let de = (veh.energy(&s) - e0).abs() / e0;
        r.energy = r.energy.max(de);
        if k <= n / 4 {
            r.first = r.first.max(de);
        }
        if k > 3 * n / 4 {
            r.last = r.last.max(de);
        }
    }
    r
}

/// 10^4 steps of h = 0.05 s. Bounds as for the rigid body (hp_rigid_body.rs): a random walk of
/// ~100 ulp per invariant is ≈ 2e-14; 1e-12 leaves a factor 50.
#[test]
fn casimirs_and_spatial_momentum_to_round_off() {
    let (veh, s0) = vehicle();
    for chart in [Chart::Exp, Chart::Cayley] {
        let sv = hp::stormer_verlet(Se3, chart, veh).unwrap();
        let r = run(&sv, &veh, &s0, 0.05, 10_000);
        eprintln!(
            "{:<28} |P|²: {:.2e}  Π·P: {:.2e}  Ad*μ: {:.2e}  SE(3) defect: {:.2e}  energy {:.3e} (first quarter {:.3e}, last {:.3e})",
            sv.name(),
            r.p2,
            r.pi_p,
            r.spatial,
            r.defect,
            r.energy,
            r.first,
            r.last
        );
        assert!(r.p2 <= 1e-12 && r.pi_p <= 1e-12, "{}: Casimirs {:.3e} {:.3e}", sv.name(), r.p2, r.pi_p);
        assert!(r.spatial <= 1e-12, "{}: spatial momentum {:.3e}", sv.name(), r.spatial);
        assert!(r.defect <= 1e-12, "{}: SE(3) defect {:.3e}", sv.name(), r.defect);
        // bounded: no growth from the first to the last quarter (the motion is not periodic,
        // so allow the fluctuation seen between quarters, not a drift)
        assert!(r.last <= 2.0 * r.first, "{}: energy error grows {:.3e} -> {:.3e}", sv.name(), r.first, r.last);
    }
}

/// Max relative energy error over T = 100 s at h = 0.1, 0.05, 0.025.
#[test]
fn energy_error_is_second_order() {
    let (veh, s0) = vehicle();
    for chart in [Chart::Exp, Chart::Cayley] {
        let sv = hp::stormer_verlet(Se3, chart, veh).unwrap();
        let e: Vec<f64> =
            [0.1, 0.05, 0.025].iter().map(|&h| run(&sv, &veh, &s0, h, (100.0 / h).round() as usize).energy).collect();
        let (p1, p2) = (slope(e[0], e[1]), slope(e[1], e[2]));
        eprintln!("{:<28} energy errors {:.3e} {:.3e} {:.3e}, slopes {p1:.3} {p2:.3}", sv.name(), e[0], e[1], e[2]);
        for p in [p1, p2] {
            assert!((1.9..=2.1).contains(&p), "{}: energy slope {p}", sv.name());
        }
    }
}

/// The general (non-reduced) stage equations with the Lagrangian differentiated by AD through
/// SE(3) give the same trajectory as the closed-form, reduced path.
#[test]
fn autodiff_general_path_matches_reduced_path() {
    let (veh, s0) = vehicle();
    for chart in [Chart::Exp, Chart::Cayley] {
        let reduced = hp::stormer_verlet(Se3, chart, veh).unwrap();
        let general = hp::stormer_verlet(Se3, chart, AutoDiff(veh)).unwrap();
        let (mut a, mut b) = (s0, s0);
        let mut diff = 0.0f64;
        for _ in 0..100 {
            reduced.step(&mut a, 0.05).unwrap();
            general.step(&mut b, 0.05).unwrap();
            diff = diff.max((a.g - b.g).norm() / a.g.norm() + (a.mu - b.mu).norm() / a.mu.norm());
        }
        eprintln!("{:<28} AD general vs reduced: {diff:.2e}", reduced.name());
        assert!(diff <= 1e-12, "{diff:.3e}");
    }
}
