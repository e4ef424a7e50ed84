//! Reduction by groupoid morphisms (Marrero, Martín de Diego & Stern, *Symplectic groupoids and
//! discrete constrained Lagrangian mechanics*, 2015, arXiv:1103.6250, §4): the image under `Ψ` of a
//! trajectory computed by `DiscreteFlow` on the big groupoid is the trajectory computed by
//! `DiscreteFlow` on the reduced groupoid, to round-off, for
//!
//! * `SO(3) × SO(3) → SO(3)`, `(R_0, R_1) ↦ R_0ᵀ R_1` (discrete Euler–Poincaré; Moser–Veselov);
//! * `(R² × SO(3))² → (R² × R²) × SO(3)`, `((x_0, R_0), (x_1, R_1)) ↦ (x_0, x_1, R_0ᵀ R_1)`
//!   (discrete Lagrange–Poincaré on the trivialized Atiyah groupoid; shape-dependent inertia);
//! * `SO(3) × SO(3) → S² × SO(3)`, `(R_0, R_1) ↦ (R_0ᵀ e_3, R_0ᵀ R_1)` (heavy top, advected
//!   parameter, action groupoid).
//!
//! The unreduced Lagrangians are written directly on `Q × Q` (not as pull-backs), and
//! `L' ∘ Ψ = L` is checked numerically ([`groupoid::morphism::lagrangian_defect`]).

use geom_core::Scalar;
use geom_core::action::SphereRotation;
use geom_core::lie::{Chart, Product, Rn, So3, so3};
use groupoid::morphism::{element_distance, lagrangian_defect, morphism_defect};
use groupoid::{
    ActionGroupoid, AdvectedReduction, AtiyahQuotient, DiscreteFlow, DiscreteLagrangian, GroupAsGroupoid,
    GroupoidMorphism, LeftTrivialization, LieGroupoid, PairOfGroup, TrivialAtiyah, legendre_plus,
};
use nalgebra::{Matrix3, SVector, Vector2, Vector3};

fn jd<S: Scalar>(inertia: &Vector3<S>) -> Matrix3<S> {
    let i = Matrix3::from_diagonal(inertia);
    Matrix3::identity() * (i.trace() * S::from(0.5)) - i
}

/// Moser–Veselov `(1/h) tr((I − W) J_d)` of the relative rotation `W`.
fn mv<S: Scalar>(h: f64, inertia: &Vector3<S>, w: &Matrix3<S>) -> S {
    ((Matrix3::identity() - w) * jd(inertia)).trace() * S::from(1.0 / h)
}

const H: f64 = 0.1;
fn inertia<S: Scalar>() -> Vector3<S> {
    Vector3::new(1.0, 2.0, 2.5).map(S::from)
}

struct PairRigidBody;
impl DiscreteLagrangian<PairOfGroup<So3>, 3> for PairRigidBody {
    fn eval<S: Scalar>(&self, _: &PairOfGroup<So3>, g: &(Matrix3<S>, Matrix3<S>)) -> S {
        mv(H, &inertia(), &(g.0.transpose() * g.1))
    }
}
struct ReducedRigidBody;
impl DiscreteLagrangian<GroupAsGroupoid<So3>, 3> for ReducedRigidBody {
    fn eval<S: Scalar>(&self, _: &GroupAsGroupoid<So3>, w: &Matrix3<S>) -> S {
        mv(H, &inertia(), w)
    }
}

#[test]
fn euler_poincare_reduction_on_so3() {
    for chart in [Chart::Exp, Chart::Cayley] {
        let psi = LeftTrivialization::new(So3, chart);
        let (pg, gd) = (*psi.source_groupoid(), *psi.target_groupoid());
        let big = DiscreteFlow::new(pg, PairRigidBody);
        let small = DiscreteFlow::new(gd, ReducedRigidBody);
        let r0 = so3::exp(&Vector3::new(0.4, -0.3, 1.2));
        let mut g = LieGroupoid::<f64, 3>::fibre_exp(&pg, &r0, &Vector3::new(0.1, 0.03, -0.06));
        let mut w = psi.map::<f64>(&g);
        let (mut dist, mut dmom, mut dl, mut dm) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for _ in 0..1000 {
            let next = big.step(&g).unwrap().0;
            dm = dm.max(morphism_defect(&psi, &g, &next).unwrap());
            g = next;
            w = small.step(&w).unwrap().0;
            dist = dist.max(element_distance(&gd, &psi.map::<f64>(&g), &w).unwrap());
            // left-trivialized momenta agree (AΨ = Id)
            dmom = dmom
                .max((legendre_plus(&pg, big.lagrangian(), &g) - legendre_plus(&gd, small.lagrangian(), &w)).norm());
            dl = dl.max(lagrangian_defect(&psi, big.lagrangian(), small.lagrangian(), &g));
        }
        println!(
            "SO(3)xSO(3) -> SO(3) ({chart:?}), 1000 steps: trajectory {dist:.2e}, momenta {dmom:.2e}, L' o Psi - L {dl:.2e}, morphism {dm:.2e}"
        );
        // momenta F^+L = (1/h) vee(J_d W − Wᵀ J_d) amplify the trajectory's round-off by ~ |J_d|/h
        assert!(dist < 1e-11 && dmom < 1e-10 && dl < 1e-13 && dm < 1e-14);
    }
}

type Q = Product<Rn<2>, So3, 2, 3>;
type Atiyah = TrivialAtiyah<So3, 2, 3>;

/// Shape-dependent inertia `I(x̄)` and potential `V(x̄) = ½|x̄|² + x̄_1² x̄_2²`.
fn shape<S: Scalar>(x0: &Vector2<S>, x1: &Vector2<S>, w: &Matrix3<S>) -> S {
    let xm = (x0 + x1) * S::from(0.5);
    let v = (x1 - x0) / S::from(H);
    let i = Vector3::new(
        S::from(1.0) + xm[0] * xm[0] * S::from(0.1),
        S::from(2.0),
        S::from(2.5) + xm[1].sin() * S::from(0.2),
    );
    let pot = xm.norm_squared() * S::from(0.5) + xm[0] * xm[0] * xm[1] * xm[1];
    (v.norm_squared() * S::from(0.5) - pot) * S::from(H) + mv(H, &i, w)
}

struct Unreduced;
impl DiscreteLagrangian<PairOfGroup<Q>, 5> for Unreduced {
    fn eval<S: Scalar>(&self, _: &PairOfGroup<Q>, g: &((Vector2<S>, Matrix3<S>), (Vector2<S>, Matrix3<S>))) -> S {
        shape(&g.0.0, &g.1.0, &(g.0.1.transpose() * g.1.1))
    }
}
struct LagrangePoincare;
impl DiscreteLagrangian<Atiyah, 5> for LagrangePoincare {
    fn eval<S: Scalar>(&self, _: &Atiyah, g: &(Vector2<S>, Vector2<S>, Matrix3<S>)) -> S {
        shape(&g.0, &g.1, &g.2)
    }
}

#[test]
fn lagrange_poincare_reduction_on_the_atiyah_groupoid() {
    let psi = AtiyahQuotient::<So3, 2, 3>::new(So3, Chart::Cayley);
    let (pg, at) = (*GroupoidMorphism::<5, 5>::source_groupoid(&psi), *GroupoidMorphism::<5, 5>::target_groupoid(&psi));
    let big = DiscreteFlow::new(pg, Unreduced);
    let small = DiscreteFlow::new(at, LagrangePoincare);
    let q0 = (Vector2::new(0.3, -0.2), so3::exp(&Vector3::new(0.2, 0.5, -0.1)));
    let xi = SVector::<f64, 5>::from([0.05, 0.02, 0.1, 0.03, -0.06]);
    let mut g = LieGroupoid::<f64, 5>::fibre_exp(&pg, &q0, &xi);
    let mut a = GroupoidMorphism::<5, 5>::map::<f64>(&psi, &g);
    let (mut dist, mut dmom, mut dl, mut dm, mut d1) = (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut growth = Vec::new();
    for k in 0..500 {
        let next = big.step::<5>(&g).unwrap().0;
        // one step commutes with Ψ: step(Ψ(g_k)) = Ψ(step(g_k)) from the same unreduced point
        let one = small.step::<5>(&GroupoidMorphism::<5, 5>::map::<f64>(&psi, &g)).unwrap().0;
        d1 = d1.max(element_distance::<_, 5>(&at, &GroupoidMorphism::<5, 5>::map::<f64>(&psi, &next), &one).unwrap());
        dm = dm.max(morphism_defect::<_, 5, 5>(&psi, &g, &next).unwrap());
        g = next;
        a = small.step::<5>(&a).unwrap().0;
        let image = GroupoidMorphism::<5, 5>::map::<f64>(&psi, &g);
        dist = dist.max(element_distance::<_, 5>(&at, &image, &a).unwrap());
        if k % 100 == 99 {
            growth.push(format!("{dist:.1e}"));
        }
        dmom = dmom.max(
            (legendre_plus::<_, _, 5>(&pg, big.lagrangian(), &g)
                - legendre_plus::<_, _, 5>(&at, small.lagrangian(), &a))
            .norm(),
        );
        dl = dl.max(lagrangian_defect::<_, _, _, 5, 5>(&psi, big.lagrangian(), small.lagrangian(), &g));
    }
    // reconstruction: the arrow over Ψ(g) with source (x_0, R_0) is g
    let back = psi.reconstruct(&g.0.1, &GroupoidMorphism::<5, 5>::map::<f64>(&psi, &g));
    println!(
        "(R2xSO(3))^2 -> Atiyah, 500 steps: one step {d1:.2e}, trajectory {dist:.2e} (after 100, 200, ... steps: {growth:?}), momenta {dmom:.2e}, L' o Psi - L {dl:.2e}, morphism {dm:.2e}"
    );
    assert!(d1 < 1e-14 && dist < 1e-11 && dmom < 1e-11 && dl < 1e-13 && dm < 1e-14);
    assert!((back.1.1 - g.1.1).norm() < 1e-14 && (back.1.0 - g.1.0).norm() < 1e-15);
}

/// `ℓ(Γ, W)`: Moser–Veselov plus the heavy-top potential `V(Γ) = χ·Γ`, trapezoidal.
fn top<S: Scalar>(gamma: &Vector3<S>, w: &Matrix3<S>) -> S {
    let chi = Vector3::new(0.2, 0.1, 1.0).map(S::from);
    mv(H, &inertia(), w) - (chi.dot(gamma) + chi.dot(&(w.transpose() * gamma))) * S::from(0.5 * H)
}
struct PairTop;
impl DiscreteLagrangian<PairOfGroup<So3>, 3> for PairTop {
    fn eval<S: Scalar>(&self, _: &PairOfGroup<So3>, g: &(Matrix3<S>, Matrix3<S>)) -> S {
        top(&(g.0.transpose() * Vector3::z()), &(g.0.transpose() * g.1))
    }
}
struct ActionTop;
impl DiscreteLagrangian<ActionGroupoid<SphereRotation>, 3> for ActionTop {
    fn eval<S: Scalar>(&self, _: &ActionGroupoid<SphereRotation>, g: &(Vector3<S>, Matrix3<S>)) -> S {
        top(&g.0, &g.1)
    }
}

#[test]
fn heavy_top_reduction_to_the_action_groupoid() {
    let psi = AdvectedReduction::new(SphereRotation, Vector3::z(), Chart::Exp);
    let (pg, ag) = (*psi.source_groupoid(), *psi.target_groupoid());
    let big = DiscreteFlow::new(pg, PairTop);
    let small = DiscreteFlow::new(ag, ActionTop);
    let mut g =
        LieGroupoid::<f64, 3>::fibre_exp(&pg, &so3::exp(&Vector3::new(0.3, 0.2, 0.0)), &Vector3::new(0.05, -0.1, 0.2));
    let mut a = psi.map::<f64>(&g);
    let (mut dist, mut dl) = (0.0f64, 0.0f64);
    for _ in 0..1000 {
        g = big.step(&g).unwrap().0;
        a = small.step(&a).unwrap().0;
        dist = dist.max(element_distance(&ag, &psi.map::<f64>(&g), &a).unwrap());
        dl = dl.max(lagrangian_defect(&psi, big.lagrangian(), small.lagrangian(), &g));
    }
    println!("SO(3)xSO(3) -> S^2xSO(3), 1000 steps: trajectory {dist:.2e}, L' o Psi - L {dl:.2e}");
    assert!(dist < 1e-11 && dl < 1e-13);
}

/// `ℓ(W) = (h/2)|cay^{-1}(W)/h|²` (kinematic optimal control, docs/math.md §C.6.2).
struct Control;
impl DiscreteLagrangian<GroupAsGroupoid<So3>, 3> for Control {
    fn eval<S: Scalar>(&self, _: &GroupAsGroupoid<So3>, w: &Matrix3<S>) -> S {
        let xi = so3::cayley_inv(w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        xi.norm_squared() * S::from(0.5 / H)
    }
}
/// `φ'(W) = e_3·cay^{-1}(W)` (no control about body axis 3).
struct Underactuated;
impl groupoid::constraints::Constraints<GroupAsGroupoid<So3>, 3, 1> for Underactuated {
    fn eval<S: Scalar>(&self, _: &GroupAsGroupoid<So3>, w: &Matrix3<S>) -> SVector<S, 1> {
        let xi = so3::cayley_inv(w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        SVector::from([xi[2]])
    }
}

#[test]
fn constrained_systems_reduce_along_the_pulled_back_constraint() {
    // (G × G, Ψ^{-1}(N'), ℓ ∘ Ψ) → (G, N', ℓ) is a morphism of discrete constrained Lagrangian
    // systems (Marrero et al. 2015, §4): both the Lagrangian and the constraint are pulled back.
    use groupoid::Pullback;
    use groupoid::constraints::{ConstrainedFlow, SigmaPoint};
    let psi = LeftTrivialization::new(So3, Chart::Cayley);
    let (pg, gd) = (*psi.source_groupoid(), *psi.target_groupoid());
    let big = ConstrainedFlow::<_, _, _, 4>::new(pg, Pullback::new(psi, Control), Pullback::new(psi, Underactuated));
    let small = ConstrainedFlow::<_, _, _, 4>::new(gd, Control, Underactuated);
    let w0 = so3::cayley(&Vector3::new(0.08, -0.05, 0.0));
    let mut up = SigmaPoint::new(psi.reconstruct(&so3::exp(&Vector3::new(0.3, 0.1, -0.2)), &w0), SVector::from([0.1]));
    let mut down = SigmaPoint::new(w0, SVector::from([0.1]));
    let (mut dist, mut dlam, mut dphi) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..300 {
        up = big.step::<3, 1>(&up).unwrap().0;
        down = small.step::<3, 1>(&down).unwrap().0;
        dist = dist.max(element_distance(&gd, &psi.map::<f64>(&up.g), &down.g).unwrap());
        dlam = dlam.max((up.lambda - down.lambda).norm());
        dphi = dphi.max(so3::cayley_inv(&(up.g.0.transpose() * up.g.1)).unwrap()[2].abs());
    }
    println!(
        "constrained SO(3)xSO(3) -> SO(3), 300 steps: trajectory {dist:.2e}, multipliers {dlam:.2e}, |φ| {dphi:.2e}"
    );
    assert!(dist < 1e-13 && dlam < 1e-12 && dphi < 1e-13);
}
