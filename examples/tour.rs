//! The guided tour of geomint (docs/tour.md), as one program: from a Hamiltonian to a
//! symmetry-preserving integrator, then a Lie group and a groupoid.
//!
//! 1. Kepler's `H = |p|²/2 - 1/|q|` in R³, written once over the scalar (`PhaseSpaceFunction`),
//!    differentiated by `AutoDiff`;
//! 2. the midpoint map `ThetaMap::midpoint()` (a discretization map, docs/math.md §A.2), checked to be
//!    rotation-equivariant, and its cotangent lift `CotangentLiftIntegrator` (docs/math.md §B.1);
//! 3. Theorem 2 of Barbero-Liñán, Marrero, Martín de Diego, *From retraction maps to
//!    symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800: the angular momentum
//!    `J = x × p` is conserved to round-off;
//! 4. composition (triple jump) for order 4 (docs/math.md §B.3), measured;
//! 5. the free rigid body on SO(3) with the Hamilton–Pontryagin Störmer–Verlet (docs/math.md §D.5);
//! 6. the same rigid body as a discrete Lagrangian on the Lie group seen as a groupoid
//!    `SO(3) ⇉ {e}` (docs/math.md §C.3), which reproduces step 5 to round-off.
//!
//! Run: `cargo run --release --example tour`.

use discretization::checks::check_symmetry_preservation;
use discretization::composition::triple_jump;
use discretization::{Composition, CotangentLiftIntegrator, OneStep, PhaseState, ThetaMap};
use geom_core::action::{GroupAction, RotationAction};
use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction};
use geom_core::lie::{Chart, LieGroup, So3};
use geom_core::newton::NewtonOptions;
use geom_core::{GeomError, Scalar};
use groupoid::{DiscreteFlow, DiscreteLagrangian, GroupAsGroupoid, invert_legendre_minus, legendre_plus};
use integrators::classical::StormerVerlet;
use integrators::hp::{self, LieState};
use integrators::models::FreeRigidBody;
use nalgebra::{Matrix3, SVector, Vector3};

// --- 1. a Hamiltonian, written once over the scalar ------------------------------------------

/// Kepler's problem `H(q, p) = |p|²/2 - 1/|q|` in R³.
#[derive(Debug, Clone, Copy)]
struct Kepler;

impl PhaseSpaceFunction<3> for Kepler {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 3>, p: &SVector<S, 3>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

/// Largest relative errors of `H` and of `J = x × p` over `n` steps.
fn drifts(method: &dyn OneStep<PhaseState<3>>, s0: PhaseState<3>, h: f64, n: usize) -> Result<(f64, f64), GeomError> {
    let ham = AutoDiff(Kepler);
    let (e0, j0) = (ham.value(&s0.q, &s0.p), RotationAction.momentum_map(&s0.q, &s0.p));
    let mut s = s0;
    let (mut de, mut dj) = (0.0f64, 0.0f64);
    for _ in 0..n {
        method.step(&mut s, h)?;
        de = de.max((ham.value(&s.q, &s.p) - e0).abs() / e0.abs());
        dj = dj.max((RotationAction.momentum_map(&s.q, &s.p) - j0).norm() / j0.norm());
    }
    Ok((de, dj))
}

/// Observed order from the errors at `t` with `n` and `2n` steps, against a fine reference.
fn observed_order(method: &dyn OneStep<PhaseState<3>>, s0: PhaseState<3>, t: f64, n: usize) -> Result<f64, GeomError> {
    let run = |m: &dyn OneStep<PhaseState<3>>, steps: usize| -> Result<PhaseState<3>, GeomError> {
        let mut s = s0;
        for _ in 0..steps {
            m.step(&mut s, t / steps as f64)?;
        }
        Ok(s)
    };
    let reference = run(method, 32 * n)?;
    let err = |s: PhaseState<3>| (s.q - reference.q).amax().max((s.p - reference.p).amax());
    Ok((err(run(method, n)?) / err(run(method, 2 * n)?)).log2())
}

// --- 6. a discrete Lagrangian on a groupoid ---------------------------------------------------

/// `L(W) = h ℓ(τ^{-1}(W)/h) = ξᵀ I ξ / (2h)`, `ξ = cay^{-1}(W)`: the free rigid body on the
/// groupoid `SO(3) ⇉ {e}` (the arrow `W = R_k^{-1} R_{k+1}` is one step).
#[derive(Debug, Clone, Copy)]
struct RigidBodyStep {
    h: f64,
    inertia: Vector3<f64>,
}

impl DiscreteLagrangian<GroupAsGroupoid<So3>, 3> for RigidBodyStep {
    #[inline]
    fn eval<S: Scalar>(&self, gd: &GroupAsGroupoid<So3>, w: &Matrix3<S>) -> S {
        // a Lagrangian returns a number: outside the chart's domain it is NaN, which every
        // solver reports as an error
        let xi = gd.group().tau_inv(gd.chart(), w).unwrap_or_else(|_| Vector3::repeat(S::from(f64::NAN)));
        self.inertia.map(S::from).component_mul(&xi).dot(&xi) * S::from(0.5 / self.h)
    }
}

fn main() -> Result<(), GeomError> {
    println!("geomint tour: from a Hamiltonian to a symmetry-preserving integrator\n");

    // --- 2. a discretization map and its cotangent lift -----------------------------------------
    let map = ThetaMap::<3>::midpoint();
    let rotations = [So3.exp(&Vector3::new(0.3, -1.0, 2.0)), So3.exp(&Vector3::new(-1.2, 0.2, 0.7))];
    let samples = [(Vector3::new(1.0, 2.0, 3.0), Vector3::new(-0.5, 0.1, 0.4))];
    let symmetry = check_symmetry_preservation(&map, &RotationAction, &rotations, &samples)?;
    let midpoint = CotangentLiftIntegrator::new(map, AutoDiff(Kepler));

    // perihelion of an inclined Kepler orbit with eccentricity 0.6 and semi-major axis 1
    let plane = So3.exp(&Vector3::new(0.5, 0.2, -0.4));
    let s0 = PhaseState::new(plane * Vector3::new(0.4, 0.0, 0.0), plane * Vector3::new(0.0, 2.0, 0.0));
    let (h, n) = (0.01, 20_000);
    println!("Kepler H = |p|²/2 - 1/|q| in R³ (e = 0.6, inclined orbit), H by AutoDiff; h = {h}, {n} steps");
    println!("  ThetaMap::midpoint() is SO(3)-equivariant: defect {:.1e}", symmetry.max_defect);

    // --- 3. Theorem 2, and 4. composition ----------------------------------------------------------
    let order4 = Composition::new(midpoint.clone(), triple_jump(2))?;
    println!("  {:<60} {:>6} {:>13} {:>13}", "method", "order", "max |dH|/H", "max |dJ|/|J|");
    // the same model declared separable: Störmer–Verlet runs explicitly (kick–drift–kick)
    let verlet = StormerVerlet::new(AutoDiff::separable(Kepler));
    for method in [&midpoint as &dyn OneStep<PhaseState<3>>, &order4, &verlet] {
        let (de, dj) = drifts(method, s0, h, n)?;
        let order = observed_order(method, s0, 1.0, 40)?;
        println!("  {:<60} {order:>6.2} {de:>13.2e} {dj:>13.2e}", method.name());
    }

    // --- 5. the rigid body: Hamilton–Pontryagin on SO(3) --------------------------------------
    let inertia = Vector3::new(2.0, 1.0, 2.0 / 3.0);
    let body = FreeRigidBody::principal(inertia[0], inertia[1], inertia[2])?;
    let sv = hp::stormer_verlet(So3, Chart::Cayley, body)?;
    let s = LieState::new(So3.exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin()));
    let (h, n) = (0.05, 20_000);
    let (e0, c0, m0) = (body.energy(&s), body.casimirs(&s)[0], s.spatial_momentum(&So3));
    let mut state = s;
    let (mut de, mut dc, mut dm) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..n {
        sv.step(&mut state, h)?;
        de = de.max((body.energy(&state) - e0).abs() / e0);
        dc = dc.max((body.casimirs(&state)[0] - c0).abs() / c0);
        dm = dm.max((state.spatial_momentum(&So3) - m0).norm() / m0.norm());
    }
    println!("\nfree rigid body on SO(3), I = diag(2, 1, 2/3), h = {h}, {n} steps: {}", sv.name());
    println!("  max relative errors: energy {de:.2e}, Casimir |Π|² {dc:.2e}, spatial momentum RΠ {dm:.2e}");

    // --- 6. the same body as a discrete Lagrangian on the groupoid SO(3) ⇉ {e} -------------------
    let gd = GroupAsGroupoid::new(So3, Chart::Cayley);
    let flow = DiscreteFlow::new(gd, RigidBodyStep { h, inertia });
    let lagrangian = flow.lagrangian();
    // the first arrow W_0 = R_0^{-1} R_1 solves F^-L(W_0) = Π_0 (discrete Legendre transform)
    let guess = s.mu.component_div(&inertia) * h;
    let (mut w, _) = invert_legendre_minus(&gd, lagrangian, &(), &s.mu, &guess, &NewtonOptions::integrator())?;
    let (mut node, mut hp_run) = (s, s);
    let (mut one_step, mut dc) = (0.0f64, 0.0f64);
    for _ in 0..n {
        // node k + 1 of the groupoid flow: R_{k+1} = R_k W_k, Π_{k+1} = F^+L(W_k)
        let next = LieState::new(node.g * w, legendre_plus(&gd, lagrangian, &w));
        let mut one = node; // one HP step from the same node
        sv.step(&mut one, h)?;
        one_step = one_step.max((one.g - next.g).amax()).max((one.mu - next.mu).amax());
        dc = dc.max((body.casimirs(&next)[0] - c0).abs() / c0);
        sv.step(&mut hp_run, h)?;
        node = next;
        w = flow.step(&w)?.0;
    }
    let run_gap = (node.g - hp_run.g).amax().max((node.mu - hp_run.mu).amax());
    println!("\nthe same body as a DiscreteLagrangian on the groupoid SO(3) => {{e}} (Cayley), L(W) = ξᵀIξ/(2h):");
    println!("  DiscreteFlow vs HP Störmer–Verlet: one step from the same node {one_step:.1e} (max over {n} steps),");
    println!("  whole trajectories {run_gap:.1e} apart after {n} steps (round-off); Casimir |Π|² error {dc:.2e}");
    Ok(())
}
