//! The heavy top as discrete Euler–Poincaré with an advected parameter on the action groupoid
//! `S² × SO(3) ⇉ S²` (docs/math.md §C.1–C.3, action groupoid rows): `Γ = Rᵀ e_3`, `Γ · W = Wᵀ Γ`,
//! and `L(Γ, W) = (1/h) tr((I − W) J_d) − (h/2) (V(Γ) + V(Wᵀ Γ))`, `V(Γ) = m g l χ·Γ`.
//!
//! Tests: the vertical spatial angular momentum `e_3·(R_k Π_k) = Γ_k·Π_k` is conserved to
//! round-off (Noether for rotations about the vertical), `|Γ| = 1` to round-off, the energy
//! `½ Πᵀ I^{-1} Π + V(Γ)` stays bounded; the generic DEL solves the explicit §C.3 form
//! `l*_{W_k} D_W L(Γ_k, W_k) − r*_{W_{k+1}} D_W L(Γ_{k+1}, W_{k+1}) + ⟨D_Γ L(Γ_{k+1}, W_{k+1}), ξ_M(Γ_{k+1})⟩ = 0`
//! with `ξ_M(Γ) = d/dt Γ · exp(tξ) = −ξ × Γ` (right-action generator).

use geom_core::Scalar;
use geom_core::action::SphereRotation;
use geom_core::lie::{Chart, so3};
use groupoid::{ActionGroupoid, DiscreteFlow, DiscreteLagrangian, LieGroupoid, check_regularity, legendre_plus};
use nalgebra::{Matrix3, Vector3};
use num_dual::{Dual64, DualSVec64};

type Top = ActionGroupoid<SphereRotation>;

/// The Moser–Veselov heavy top on the action groupoid.
struct HeavyTop {
    h: f64,
    jd: Matrix3<f64>,
    /// `m g l χ`.
    weight: Vector3<f64>,
}

impl HeavyTop {
    fn new(h: f64, inertia: Vector3<f64>, weight: Vector3<f64>) -> Self {
        let i = Matrix3::from_diagonal(&inertia);
        Self { h, jd: Matrix3::identity() * (0.5 * i.trace()) - i, weight }
    }
    fn value<S: Scalar>(&self, gamma: &Vector3<S>, w: &Matrix3<S>) -> S {
        let kinetic = ((Matrix3::identity() - w) * self.jd.map(S::from)).trace() * S::from(1.0 / self.h);
        let chi = self.weight.map(S::from);
        kinetic - (chi.dot(gamma) + chi.dot(&(w.transpose() * gamma))) * S::from(0.5 * self.h)
    }
}

impl DiscreteLagrangian<Top, 3> for HeavyTop {
    fn eval<S: Scalar>(&self, _: &Top, g: &(Vector3<S>, Matrix3<S>)) -> S {
        self.value(&g.0, &g.1)
    }
}

/// The explicit §C.3 residual at the node shared by `g_k` and `g_{k+1}`, computed without the
/// groupoid code: AD of `L` along `W exp(tξ)`, `exp(tξ) W`, and in `Γ`.
fn c3_residual(top: &HeavyTop, gk: &(Vector3<f64>, Matrix3<f64>), gk1: &(Vector3<f64>, Matrix3<f64>)) -> f64 {
    let lift = |m: &Matrix3<f64>| m.map(DualSVec64::<3>::from_re);
    let grad_w = |g: &(Vector3<f64>, Matrix3<f64>), left: bool| {
        num_dual::gradient(
            |xi: Vector3<DualSVec64<3>>| {
                let e = so3::exp(&xi);
                let w = if left { lift(&g.1) * e } else { e * lift(&g.1) };
                top.value(&g.0.map(DualSVec64::from_re), &w)
            },
            &Vector3::zeros(),
        )
        .1
    };
    let l_star = grad_w(gk, true); // l*_{W_k} D_W L(Γ_k, W_k)
    let r_star = grad_w(gk1, false); // r*_{W_{k+1}} D_W L(Γ_{k+1}, W_{k+1})
    let (_, d_gamma) = num_dual::gradient(|gamma: Vector3<DualSVec64<3>>| top.value(&gamma, &lift(&gk1.1)), &gk1.0);
    // ⟨D_Γ L, ξ_M(Γ)⟩ = ⟨D_Γ L, −ξ × Γ⟩ = −ξ·(Γ × D_Γ L)
    let rho = -gk1.0.cross(&d_gamma);
    (l_star - r_star + rho).norm()
}

#[test]
fn heavy_top_conserves_vertical_momentum_and_solves_the_c3_equations() {
    let (h, inertia, weight) = (0.05, Vector3::new(1.0, 1.5, 2.0), Vector3::new(0.2, 0.1, 1.0));
    for chart in [Chart::Exp, Chart::Cayley] {
        let ag = ActionGroupoid::new(SphereRotation, chart);
        let flow = DiscreteFlow::new(ag, HeavyTop::new(h, inertia, weight));
        let top = flow.lagrangian();
        let gamma0 = Vector3::<f64>::new(0.3, -0.2, 0.9).normalize();
        let mut g = (gamma0, so3::exp(&(Vector3::new(0.5, -1.0, 2.0) * h)));
        // R_0 with R_0ᵀ e_3 = Γ_0: rows (e_1, e_2, Γ_0) of a right-handed frame
        let (e1, e2) = groupoid::SpherePair::frame(&gamma0);
        let mut r = Matrix3::from_rows(&[e1.transpose(), e2.transpose(), gamma0.transpose()]);
        assert!((r.transpose() * Vector3::z() - gamma0).norm() < 1e-15 && (r.determinant() - 1.0).abs() < 1e-14);
        let energy =
            |gamma: &Vector3<f64>, p: &Vector3<f64>| 0.5 * p.component_div(&inertia).dot(p) + weight.dot(gamma);
        r *= g.1;
        let (mut dj, mut dn, mut de, mut dc3, mut dr) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
        let (mut j0, mut e0) = (None, None);
        let mut de_half = 0.0;
        for k in 0..20_000 {
            if k == 10_000 {
                de_half = de;
            }
            let (next, _) = flow.step(&g).unwrap();
            dc3 = dc3.max(c3_residual(top, &g, &next));
            // node k+1 is β(g_k) = α(g_{k+1}), momentum Π = F^+L(g_k)
            let gamma = LieGroupoid::<f64, 3>::target(&ag, &g);
            let pi = legendre_plus(&ag, top, &g);
            let j = gamma.dot(&pi);
            let e = energy(&gamma, &pi);
            let (j0, e0) = (*j0.get_or_insert(j), *e0.get_or_insert(e));
            dj = dj.max((j - j0).abs());
            de = de.max((e - e0).abs());
            dn = dn.max((gamma.norm() - 1.0).abs());
            // reconstruction R_{k+1} = R_k W_{k+1}: Γ = Rᵀ e_3 and e_3·(R Π) = Γ·Π (exact in floating
            // point too: the same sums in the same order)
            dr = dr.max((r.transpose() * Vector3::z() - gamma).norm()).max(((r * pi)[2] - j).abs());
            g = next;
            r *= g.1;
        }
        println!(
            "{chart:?}: 20000 steps, |Π| = {:.3}: vertical momentum {dj:.2e}, |Γ|-1 {dn:.2e}, energy {de:.2e} (E = {:.3}), §C.3 residual {dc3:.2e}, reconstruction {dr:.2e}",
            legendre_plus(&ag, top, &g).norm(),
            e0.unwrap()
        );
        // round-off random walk: ~ sqrt(n) ε |Π| per step of Newton tolerance 1e-14
        assert!(dj < 1e-11 && dn < 1e-13 && dc3 < 1e-12 && dr < 1e-11);
        // bounded, no drift: the second 10^4 steps do not raise the error by more than 10 %
        assert!(de < 1e-2 && de < 1.1 * de_half, "energy error {de}, first half {de_half}");
        assert!(check_regularity(&ag, top, &g).is_ok());
    }
}

#[test]
fn anchor_of_the_heavy_top_groupoid_is_minus_the_rotation_generator() {
    let ag = ActionGroupoid::new(SphereRotation, Chart::Exp);
    let (gamma, xi) = (Vector3::new(0.0, 0.6, 0.8), Vector3::new(0.3, -0.1, 0.5));
    let t = Dual64::new(0.0, 1.0);
    let moved = ag.right_act::<Dual64, 3>(&gamma.map(Dual64::from), &so3::exp(&xi.map(|v| t * v)));
    assert!((moved.map(|v| v.eps) + xi.cross(&gamma)).norm() < 1e-15);
}
