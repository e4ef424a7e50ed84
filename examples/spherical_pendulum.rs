//! The spherical pendulum by Lagrange multipliers on the pair groupoid of R³ (docs/math.md §C.4,
//! C.6.1; Marrero, Martín de Diego & Stern, *Symplectic groupoids and discrete constrained
//! Lagrangian mechanics*, 2015, arXiv:1103.6250, §6):
//! `L̂ = |q1 − q0|²/(2h) − (h/2)(V(q0) + V(q1))`, `V = g e3·q`, constraint `c(q) = ½(|q|² − 1)`.
//!
//! Imposed as `N = S × S` the system is not regular (the step Jacobian is singular: only the node
//! multiplier `Λ_k` is determined), so it is integrated in the SHAKE/RATTLE form
//! `D_2L̂(q_{k−1},q_k) + D_1L̂(q_k,q_{k+1}) + Λ_k ∇c(q_k) = 0`, `c(q_{k+1}) = 0`
//! ([`HolonomicFlow`]), whose well-defined outputs are the positions and the projected momenta.
//! Printed: the constraint error, the vertical angular momentum `e3·(q × p)` (Noether, rotations
//! about e3) and the energy error over 10^5 steps.
//!
//! Run: `cargo run --release --example spherical_pendulum`.

use geom_core::action::RotationAction;
use geom_core::{GeomError, Scalar};
use groupoid::PairGroupoid;
use groupoid::constraints::{ConstrainedFlow, Constraints, HolonomicFlow, SigmaPoint};
use groupoid::models::{GRAVITY, PendulumLd as Pendulum, UnitSphere};
use groupoid::noether::{PairDiagonal, momentum_map};
use nalgebra::{SVector, Vector3};

struct BothEnds;
impl Constraints<PairGroupoid<3>, 3, 2> for BothEnds {
    #[inline]
    fn eval<S: Scalar>(&self, _: &PairGroupoid<3>, g: &(Vector3<S>, Vector3<S>)) -> SVector<S, 2> {
        let c = |q: &Vector3<S>| (q.norm_squared() - S::from(1.0)) * S::from(0.5);
        SVector::from([c(&g.0), c(&g.1)])
    }
}

fn main() -> Result<(), GeomError> {
    let (h, n) = (0.01, 100_000);
    let q0 = Vector3::new(0.6, 0.0, -0.8);
    let mut g = (q0, (q0 + Vector3::new(0.0, 1.2, 0.0) * h).normalize());

    // the naive formulation is refused with a typed error (docs/math.md §C.4 warning)
    let naive = ConstrainedFlow::<_, _, _, 5>::new(PairGroupoid::<3>, Pendulum::new(h)?, BothEnds);
    let refused = naive.step(&SigmaPoint::new(g, SVector::zeros())).err();

    let flow = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, Pendulum::new(h)?, UnitSphere);
    let vertical = PairDiagonal(RotationAction);
    let energy = |g: &(Vector3<f64>, Vector3<f64>)| -> Result<f64, GeomError> {
        let p = flow.projected_momentum(g)?;
        Ok(0.5 * p.norm_squared() + GRAVITY * g.1[2])
    };
    let j0 = momentum_map(&PairGroupoid::<3>, flow.lagrangian(), &vertical, &g)[2];
    let e0 = energy(&g)?;
    let (mut max_c, mut max_dj, mut max_de, mut iterations) = (0.0f64, 0.0f64, 0.0f64, 0usize);
    for _ in 0..n {
        let (next, report) = flow.step(&g)?;
        iterations += report.iterations;
        g = next;
        max_c = max_c.max((0.5 * (g.1.norm_squared() - 1.0)).abs());
        max_dj = max_dj.max((momentum_map(&PairGroupoid::<3>, flow.lagrangian(), &vertical, &g)[2] - j0).abs());
        max_de = max_de.max((energy(&g)? - e0).abs());
    }

    println!("spherical pendulum on the pair groupoid of R^3, |q| = 1 by a node multiplier (SHAKE/RATTLE)");
    println!(
        "  naive N = S x S as a constrained system:      refused ({})",
        refused.map_or("accepted?!".into(), |e| e.to_string())
    );
    println!(
        "  steps: {n} of h = {h} (t = {}), mean Newton iterations {:.2}",
        n as f64 * h,
        iterations as f64 / n as f64
    );
    println!("  constraint max |c(q_k)|:                      {max_c:.2e}");
    println!("  Noether e3·(q x p) = {j0:.6}, max drift:     {max_dj:.2e}");
    println!("  energy E = {e0:.6}, max |E_k − E_0|:         {max_de:.2e} (bounded, O(h²))");
    Ok(())
}
