//! The heavy top on the action groupoid `S² × SO(3) ⇉ S²` (docs/math.md §C.1–C.3, action groupoid
//! rows): discrete Euler–Poincaré with the advected parameter `Γ = Rᵀe_3`, `Γ · W = WᵀΓ`, for
//! `L(Γ, W) = (1/h) tr((I − W) J_d) − (h/2)(V(Γ) + V(WᵀΓ))`, `V(Γ) = m g l χ·Γ`.
//!
//! Printed: the vertical spatial angular momentum `e_3·(R_kΠ_k) = Γ_k·Π_k` (conserved to round-off:
//! Noether for rotations about the vertical), `|Γ_k|` and the energy `½ΠᵀI⁻¹Π + V(Γ)` (bounded),
//! and a few samples of the nutation `Γ_3`.
//!
//! Run: `cargo run --release --example heavy_top_groupoid`.

use geom_core::action::SphereRotation;
use geom_core::lie::{Chart, so3};
use geom_core::{GeomError, Scalar};
use groupoid::{ActionGroupoid, DiscreteFlow, DiscreteLagrangian, LieGroupoid, check_regularity, legendre_plus};
use nalgebra::{Matrix3, Vector3};

const H: f64 = 0.02;

fn inertia() -> Vector3<f64> {
    Vector3::new(1.0, 1.0, 0.4) // a symmetric (Lagrange) top, slightly flattened
}
fn weight() -> Vector3<f64> {
    Vector3::new(0.05, 0.0, 1.0) // m g l χ, centre of mass slightly off the symmetry axis
}

type Top = ActionGroupoid<SphereRotation>;

struct HeavyTop;
impl DiscreteLagrangian<Top, 3> for HeavyTop {
    #[inline]
    fn eval<S: Scalar>(&self, _: &Top, g: &(Vector3<S>, Matrix3<S>)) -> S {
        let i = Matrix3::from_diagonal(&inertia());
        let jd = (Matrix3::identity() * (0.5 * i.trace()) - i).map(S::from);
        let chi = weight().map(S::from);
        ((Matrix3::identity() - g.1) * jd).trace() * S::from(1.0 / H)
            - (chi.dot(&g.0) + chi.dot(&(g.1.transpose() * g.0))) * S::from(0.5 * H)
    }
}

fn main() -> Result<(), GeomError> {
    let steps = 50_000;
    let ag = ActionGroupoid::new(SphereRotation, Chart::Cayley);
    let flow = DiscreteFlow::new(ag, HeavyTop);
    let gamma0 = Vector3::new(0.0, 0.5, 1.0).normalize();
    // fast spin about the body symmetry axis plus a small transverse rate
    let mut g = (gamma0, so3::exp(&(Vector3::new(0.3, 0.0, 8.0) * H)));
    let energy =
        |gamma: &Vector3<f64>, p: &Vector3<f64>| 0.5 * p.component_div(&inertia()).dot(p) + weight().dot(gamma);
    let node = |g: &(Vector3<f64>, Matrix3<f64>)| {
        (LieGroupoid::<f64, 3>::target(&ag, g), legendre_plus(&ag, flow.lagrangian(), g))
    };
    let (gamma, pi) = node(&g);
    let (j0, e0) = (gamma.dot(&pi), energy(&gamma, &pi));
    let (mut dj, mut dn, mut emin, mut emax) = (0.0f64, 0.0f64, e0, e0);
    println!("heavy top on the action groupoid S^2 x SO(3) (Cayley fibre chart), h = {H}, {steps} steps");
    println!("  Γ·Π = {j0:.12} (vertical spatial angular momentum), E = {e0:.9}");
    print!("  nutation Γ_3 every 5000 steps:");
    for k in 0..steps {
        g = flow.step(&g)?.0;
        let (gamma, pi) = node(&g);
        dj = dj.max((gamma.dot(&pi) - j0).abs());
        dn = dn.max((gamma.norm() - 1.0).abs());
        let e = energy(&gamma, &pi);
        (emin, emax) = (emin.min(e), emax.max(e));
        if k % 5000 == 0 {
            print!(" {:.4}", gamma[2]);
        }
    }
    println!();
    println!("  max |Δ(Γ·Π)| = {dj:.2e}, max ||Γ| − 1| = {dn:.2e}");
    println!("  energy in [{emin:.9}, {emax:.9}]: oscillation {:.2e} (bounded, O(h²))", emax - emin);
    println!("  regularity at the last step: cond_1 = {:.3}", check_regularity(&ag, flow.lagrangian(), &g)?.condition);
    Ok(())
}
