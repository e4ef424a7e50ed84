//! Hamilton–Pontryagin Störmer–Verlet preserves the canonical symplectic form of T*G in left
//! trivialization on non-abelian groups (SO(3): heavy top; SE(3): underwater vehicle), measured on
//! the one-step map by central differences; explicit Lie–Euler is the negative control.
//!
//! `ω_{(g, μ)}((η_1, ν_1), (η_2, ν_2)) = <ν_2, η_1> - <ν_1, η_2> + <μ, [η_1, η_2]>` with
//! `δg = g η` (the pull-back of `-dθ`, `θ = <μ, g^{-1} dg>`).

use discretization::OneStep;
use geom_core::lie::{Chart, LieGroup, Se3, So3};
use integrators::hp::{self, LieState};
use integrators::models::{HeavyTop, UnderwaterVehicle};
use nalgebra::{Matrix3, SVector, Vector3, Vector6};

fn omega<G: LieGroup<f64, D>, const D: usize>(
    group: &G,
    mu: &SVector<f64, D>,
    e1: &SVector<f64, D>,
    n1: &SVector<f64, D>,
    e2: &SVector<f64, D>,
    n2: &SVector<f64, D>,
) -> f64 {
    n2.dot(e1) - n1.dot(e2) + mu.dot(&group.bracket(e1, e2))
}

/// `max |ω_{Φ(x)}(DΦ a, DΦ b) - ω_x(a, b)|` over basis pairs (`2D` directions).
fn defect<G, const D: usize>(
    group: &G,
    step: impl Fn(&LieState<G::Element, D>) -> LieState<G::Element, D>,
    s: &LieState<G::Element, D>,
) -> f64
where
    G: LieGroup<f64, D>,
    G::Element: Copy,
{
    let eps = 1e-5;
    let out = step(s);
    let out_inv = group.inverse(&out.g);
    let mut cols: Vec<(SVector<f64, D>, SVector<f64, D>)> = Vec::new();
    for k in 0..2 * D {
        let dir = |sign: f64| {
            let mut eta = SVector::<f64, D>::zeros();
            let mut nu = SVector::<f64, D>::zeros();
            if k < D {
                eta[k] = eps * sign
            } else {
                nu[k - D] = eps * sign
            }
            LieState::new(group.compose(&s.g, &group.exp(&eta)), s.mu + nu)
        };
        let (p, m) = (step(&dir(1.0)), step(&dir(-1.0)));
        let eta = (group.log(&group.compose(&out_inv, &p.g)).unwrap()
            - group.log(&group.compose(&out_inv, &m.g)).unwrap())
            / (2.0 * eps);
        cols.push((eta, (p.mu - m.mu) / (2.0 * eps)));
    }
    let unit = |k: usize| {
        let mut eta = SVector::<f64, D>::zeros();
        let mut nu = SVector::<f64, D>::zeros();
        if k < D {
            eta[k] = 1.0
        } else {
            nu[k - D] = 1.0
        }
        (eta, nu)
    };
    let mut worst = 0.0f64;
    for a in 0..2 * D {
        for b in 0..2 * D {
            let lhs = omega(group, &out.mu, &cols[a].0, &cols[a].1, &cols[b].0, &cols[b].1);
            let (ua, ub) = (unit(a), unit(b));
            worst = worst.max((lhs - omega(group, &s.mu, &ua.0, &ua.1, &ub.0, &ub.1)).abs());
        }
    }
    worst
}

#[test]
fn hp_stormer_verlet_is_symplectic_on_so3_and_se3() {
    let h = 0.1;
    let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(1.0, 5.0, 6.0)), 1.0, Vector3::z()).unwrap();
    let s = LieState::new(So3.exp(&Vector3::new(0.4, -0.2, 0.1)), Vector3::new(0.6, 1.5, 2.5));
    for chart in [Chart::Exp, Chart::Cayley] {
        let sv = hp::stormer_verlet(So3, chart, top).unwrap();
        let d = defect(
            &So3,
            |x| {
                let mut y = *x;
                sv.step(&mut y, h).unwrap();
                y
            },
            &s,
        );
        assert!(d <= 1e-8, "heavy top, {chart:?}: symplecticity defect {d:e}");
    }
    let veh = UnderwaterVehicle::new(
        Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0)),
        Matrix3::from_diagonal(&Vector3::new(2.0, 3.0, 4.0)),
    )
    .unwrap();
    let s = LieState::new(
        Se3.exp(&Vector6::new(0.1, 0.2, -0.1, 0.5, 0.0, 0.3)),
        Vector6::new(0.3, -0.2, 0.5, 1.0, 0.4, -0.6),
    );
    for chart in [Chart::Exp, Chart::Cayley] {
        let sv = hp::stormer_verlet(Se3, chart, veh).unwrap();
        let d = defect(
            &Se3,
            |x| {
                let mut y = *x;
                sv.step(&mut y, h).unwrap();
                y
            },
            &s,
        );
        assert!(d <= 1e-8, "vehicle, {chart:?}: symplecticity defect {d:e}");
    }
    // negative control: explicit Lie–Euler for the free body, g₁ = g exp(hΩ), Π₁ = Π + h Π × Ω
    let inv = Vector3::new(1.0, 5.0, 6.0);
    let s = LieState::new(So3.exp(&Vector3::new(0.4, -0.2, 0.1)), Vector3::new(0.6, 1.5, 2.5));
    let bad = defect(
        &So3,
        |x| {
            let w = x.mu.component_div(&inv);
            LieState::new(x.g * So3.exp(&(w * h)), x.mu + x.mu.cross(&w) * h)
        },
        &s,
    );
    assert!(bad > 1e-4, "Lie–Euler must fail: {bad:e}");
}

/// The truncated members (`q ≥ 1`, docs/math.md §D.11) are variational too: Gauss `s = 2` with
/// `q = 2` on the heavy top (both charts) and on the underwater vehicle.
#[test]
fn hp_gauss2_with_truncation_index_2_is_symplectic_on_so3_and_se3() {
    let h = 0.1;
    let gauss = integrators::tableau::gauss_legendre(2).unwrap();
    let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(1.0, 5.0, 6.0)), 1.0, Vector3::z()).unwrap();
    let s = LieState::new(So3.exp(&Vector3::new(0.4, -0.2, 0.1)), Vector3::new(0.6, 1.5, 2.5));
    for chart in [Chart::Exp, Chart::Cayley] {
        let m = hp::HpIntegrator::<_, _, 3, 2>::new(So3, &gauss, chart, top).unwrap().with_truncation(2).unwrap();
        let d = defect(
            &So3,
            |x| {
                let mut y = *x;
                m.step(&mut y, h).unwrap();
                y
            },
            &s,
        );
        assert!(d <= 1e-8, "heavy top, {chart:?}, q = 2: symplecticity defect {d:e}");
    }
    let veh = UnderwaterVehicle::new(
        Matrix3::from_diagonal(&Vector3::new(1.0, 2.0, 3.0)),
        Matrix3::from_diagonal(&Vector3::new(2.0, 3.0, 4.0)),
    )
    .unwrap();
    let s = LieState::new(
        Se3.exp(&Vector6::new(0.1, 0.2, -0.1, 0.5, 0.0, 0.3)),
        Vector6::new(0.3, -0.2, 0.5, 1.0, 0.4, -0.6),
    );
    let m = hp::HpIntegrator::<_, _, 6, 2>::new(Se3, &gauss, Chart::Exp, veh).unwrap().with_truncation(2).unwrap();
    let d = defect(
        &Se3,
        |x| {
            let mut y = *x;
            m.step(&mut y, h).unwrap();
            y
        },
        &s,
    );
    assert!(d <= 1e-8, "vehicle, q = 2: symplecticity defect {d:e}");
}
