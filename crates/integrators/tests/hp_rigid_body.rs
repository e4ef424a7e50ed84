//! The free rigid body with every HP member and both charts (docs/math.md §D.5 check (ii);
//! Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups, Part I*, 2009,
//! arXiv:0801.0996, §4–§6): coadjoint-orbit (|Π|²) and spatial-momentum (RΠ) conservation to
//! round-off, a bounded energy error without drift that scales like h², and R ∈ SO(3) to round-off.

use crate::hp_common;

use discretization::OneStep;
use geom_core::lie::{Chart, So3};
use hp_common::{orthogonality_defect, rigid_body, slope};
use integrators::hp::{self, HpIntegrator, KineticPotential, LieState, ZeroPotential};
use integrators::models::FreeRigidBody;
use integrators::tableau;
use nalgebra::{Matrix3, Vector3};

type State = LieState<Matrix3<f64>, 3>;

fn members(body: FreeRigidBody) -> Vec<Box<dyn OneStep<State>>> {
    let mut v: Vec<Box<dyn OneStep<State>>> = Vec::new();
    for chart in [Chart::Exp, Chart::Cayley] {
        v.push(Box::new(hp::symplectic_euler_a(So3, chart, body).unwrap()));
        v.push(Box::new(hp::symplectic_euler_b(So3, chart, body).unwrap()));
        v.push(Box::new(hp::stormer_verlet(So3, chart, body).unwrap()));
    }
    v
}

struct Run {
    casimir: f64,
    spatial: f64,
    defect: f64,
    energy_max: f64,
    energy_first_quarter: f64,
    energy_last_quarter: f64,
}

fn run(method: &dyn OneStep<State>, body: &FreeRigidBody, s0: &State, h: f64, n: usize) -> Run {
    let mut s = *s0;
    let (c0, m0, e0) = (body.casimirs(&s)[0], Vector3::from(body.momenta(&s)), body.energy(&s));
    let mut r = Run {
        casimir: 0.0,
        spatial: 0.0,
        defect: 0.0,
        energy_max: 0.0,
        energy_first_quarter: 0.0,
        energy_last_quarter: 0.0,
    };
    for k in 1..=n {
        method.step(&mut s, h).unwrap();
        r.casimir = r.casimir.max((body.casimirs(&s)[0] - c0).abs() / c0);
        r.spatial = r.spatial.max((Vector3::from(body.momenta(&s)) - m0).norm() / m0.norm());
        r.defect = r.defect.max(orthogonality_defect(&s.g));
        let de = (body.energy(&s) - e0).abs() / e0;
        r.energy_max = r.energy_max.max(de);
        if k <= n / 4 {
            r.energy_first_quarter = r.energy_first_quarter.max(de);
        }
        if k > 3 * n / 4 {
            r.energy_last_quarter = r.energy_last_quarter.max(de);
        }
    }
    r
}

/// 10^4 steps of h = 0.05 (T = 500, about 50 periods of Π).
/// Round-off: each step perturbs |Π|² and RΠ by a few ulp; over 10^4 steps a random walk of
/// ~100 ulp ≈ 2e-14 is expected, so 1e-12 (the brief's bound) has a margin of 50 and would
/// still catch a convention error (e.g. Rᵀ for R in Ad*), which breaks them at O(h).
#[test]
fn casimir_spatial_momentum_and_orthogonality_to_round_off() {
    let (body, s0) = rigid_body();
    for m in members(body) {
        let r = run(m.as_ref(), &body, &s0, 0.05, 10_000);
        eprintln!(
            "{:<32} |Π|²: {:.2e}  RΠ: {:.2e}  RᵀR-I: {:.2e}  energy max {:.3e} (first quarter {:.3e}, last {:.3e})",
            m.name(),
            r.casimir,
            r.spatial,
            r.defect,
            r.energy_max,
            r.energy_first_quarter,
            r.energy_last_quarter
        );
        assert!(r.casimir <= 1e-12, "{}: |Π|² drift {:.3e}", m.name(), r.casimir);
        assert!(r.spatial <= 1e-12, "{}: RΠ drift {:.3e}", m.name(), r.spatial);
        assert!(r.defect <= 1e-12, "{}: RᵀR - I = {:.3e}", m.name(), r.defect);
        // no drift: the energy error of the last quarter of the run is that of the first
        assert!(
            r.energy_last_quarter <= 1.05 * r.energy_first_quarter,
            "{}: energy error grows {:.3e} -> {:.3e}",
            m.name(),
            r.energy_first_quarter,
            r.energy_last_quarter
        );
    }
}

/// Max relative energy error over T = 200 at h = 0.1, 0.05, 0.025.
#[test]
fn energy_error_is_second_order() {
    let (body, s0) = rigid_body();
    for m in members(body) {
        let e: Vec<f64> = [0.1, 0.05, 0.025]
            .iter()
            .map(|&h| run(m.as_ref(), &body, &s0, h, (200.0 / h).round() as usize).energy_max)
            .collect();
        let (p1, p2) = (slope(e[0], e[1]), slope(e[1], e[2]));
        eprintln!("{:<32} energy errors {:.3e} {:.3e} {:.3e}, slopes {p1:.3} {p2:.3}", m.name(), e[0], e[1], e[2]);
        for p in [p1, p2] {
            assert!((1.9..=2.1).contains(&p), "{}: energy slope {p}", m.name());
        }
    }
}

/// The general stage equations (KineticPotential with V = 0 never claims left invariance) give
/// the trajectory of the reduced free-body equation, for every tableau and chart.
#[test]
fn general_stage_equations_reproduce_the_reduced_step() {
    let (body, s0) = rigid_body();
    let general = KineticPotential::new(*body.inertia(), ZeroPotential).unwrap();
    for chart in [Chart::Exp, Chart::Cayley] {
        let reduced = hp::stormer_verlet(So3, chart, body).unwrap();
        let pairs: Vec<(Box<dyn OneStep<State>>, &str)> = vec![
            (Box::new(hp::symplectic_euler_a(So3, chart, general).unwrap()), "SE-A"),
            (Box::new(hp::symplectic_euler_b(So3, chart, general).unwrap()), "SE-B"),
            (Box::new(hp::stormer_verlet(So3, chart, general).unwrap()), "SV"),
            (
                Box::new(
                    HpIntegrator::<_, _, 3, 2>::new(So3, &tableau::gauss_legendre(2).unwrap(), chart, general).unwrap(),
                ),
                "Gauss 2",
            ),
            (
                Box::new(
                    HpIntegrator::<_, _, 3, 3>::new(So3, &tableau::lobatto_iiia(3).unwrap(), chart, general).unwrap(),
                ),
                "Lobatto IIIA 3",
            ),
        ];
        for (m, label) in pairs {
            let (mut a, mut b) = (s0, s0);
            let mut diff = 0.0f64;
            for _ in 0..200 {
                reduced.step(&mut a, 0.1).unwrap();
                m.step(&mut b, 0.1).unwrap();
                diff = diff.max((a.g - b.g).norm() + (a.mu - b.mu).norm());
            }
            eprintln!("{label:<16} {:<7} general vs reduced over 200 steps: {diff:.2e}", chart.name());
            assert!(diff <= 1e-12, "{label} ({}): {diff:.3e}", chart.name());
        }
    }
    let _ = Vector3::<f64>::zeros();
}
