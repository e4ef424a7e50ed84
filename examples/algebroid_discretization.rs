//! Lie algebroids and discretization maps on Lie groupoids (docs/math.md §C.8): the algebroids of
//! a few ready-made groupoids are checked, discretization maps `R_d: AG → G` are checked (one
//! broken map is refused), and three systems are integrated with the induced discrete Lagrangian
//! `L_d = h L ∘ R_d^{-1}`:
//!
//! * the free rigid body on `SO(3) ⇉ {e}` with the exponential chart, against the discrete
//!   Euler–Poincaré flow of the `discretization` crate;
//! * the heavy top on the action groupoid `S² × SO(3) ⇉ S²` with the fibre midpoint map;
//! * Kepler on `R² × R²` with the `discretization` crate's midpoint map, against that crate's
//!   induced integrator.
//!
//! Run: `cargo run --release --example algebroid_discretization`.

use discretization::LieState;
use discretization::lagrangian::{DiscreteEulerLagrange, LieGroupDiscreteEulerLagrange};
use discretization::{PhaseState, ThetaMap};
use geom_core::action::SphereRotation;
use geom_core::function::{PhaseSpaceFunction, ScalarFunction};
use geom_core::lie::{Chart, So3, so3};
use geom_core::{GeomError, Scalar};
use groupoid::discretization_map::{ReducedLagrangian, TangentLagrangian};
use groupoid::{
    ActionGroupoid, AlgebroidLagrangian, FibreThetaMap, GroupAsGroupoid, InducedFlow, PairGroupoid, PairOfGroup,
    TrivialAtiyah, check_algebroid, check_discretization_map, check_groupoid_algebroid, legendre_minus, legendre_plus,
};
use nalgebra::{Matrix3, SVector, Vector2, Vector3};

const INERTIA: [f64; 3] = [1.0, 2.0, 3.5];
const CHI: [f64; 3] = [0.2, 0.1, 1.0];

/// `ℓ(Ω) = ½ Ωᵀ I Ω`.
struct Body;
impl ScalarFunction<3> for Body {
    #[inline]
    fn eval<S: Scalar>(&self, w: &SVector<S, 3>) -> S {
        (0..3).map(|i| w[i] * w[i] * S::from(INERTIA[i])).fold(S::from(0.0), |a, b| a + b) * S::from(0.5)
    }
}

/// `L(Γ, Ω) = ½ Ωᵀ I Ω − χ·Γ` on the action algebroid `S² × so(3)`.
struct Top;
impl AlgebroidLagrangian<ActionGroupoid<SphereRotation>, 3> for Top {
    #[inline]
    fn eval<S: Scalar>(&self, _: &ActionGroupoid<SphereRotation>, gamma: &Vector3<S>, omega: &SVector<S, 3>) -> S {
        Body.eval(omega) - gamma.dot(&Vector3::from(CHI).map(S::from))
    }
}

/// Kepler `L(q, v) = |v|²/2 + 1/|q|`.
#[derive(Clone, Copy)]
struct Kepler;
impl PhaseSpaceFunction<2> for Kepler {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, v: &SVector<S, 2>) -> S {
        v.norm_squared() * S::from(0.5) + q.norm().recip()
    }
}

fn kinetic(pi: &Vector3<f64>) -> f64 {
    (0..3).map(|i| pi[i] * pi[i] / INERTIA[i]).sum::<f64>() * 0.5
}

fn main() -> Result<(), GeomError> {
    println!("Lie algebroids of ready-made groupoids (largest defect over axioms and groupoid derivatives):");
    let worst = |a: groupoid::algebroid::AlgebroidReport, g: groupoid::algebroid::GroupoidAlgebroidReport| {
        a.antisymmetry.max(a.jacobi).max(a.leibniz).max(a.anchor_morphism).max(g.anchor).max(g.structure)
    };
    let (x3, r0) = (Vector3::new(0.3, -0.2, 0.9).normalize(), so3::exp(&Vector3::new(0.3, -0.2, 0.5)));
    let top_gd = ActionGroupoid::new(SphereRotation, Chart::Exp);
    let at = TrivialAtiyah::<So3, 2, 3>::new(So3, Chart::Cayley);
    let pair_so3 = PairOfGroup::new(So3, Chart::Exp);
    let so3_gd = GroupAsGroupoid::new(So3, Chart::Exp);
    let rows = [
        ("TR^3 (pair groupoid R^3 x R^3)", {
            let x = Vector3::new(0.5, -1.0, 2.0);
            worst(
                check_algebroid::<_, 3, 3>(&PairGroupoid::<3>, &x, 1)?,
                check_groupoid_algebroid(&PairGroupoid::<3>, &x, 1)?,
            )
        }),
        ("T SO(3) (pair groupoid SO(3) x SO(3))", {
            worst(check_algebroid::<_, 3, 3>(&pair_so3, &r0, 1)?, check_groupoid_algebroid(&pair_so3, &r0, 1)?)
        }),
        ("so(3) (SO(3) over a point)", {
            worst(check_algebroid::<_, 3, 0>(&so3_gd, &(), 1)?, check_groupoid_algebroid(&so3_gd, &(), 1)?)
        }),
        ("S^2 x so(3) (heavy-top action groupoid)", {
            worst(check_algebroid::<_, 3, 2>(&top_gd, &x3, 1)?, check_groupoid_algebroid(&top_gd, &x3, 1)?)
        }),
        ("TR^2 + so(3) (trivial Atiyah groupoid)", {
            let x = Vector2::new(0.1, 0.7);
            worst(check_algebroid::<_, 5, 2>(&at, &x, 1)?, check_groupoid_algebroid::<_, 5, 2>(&at, &x, 1)?)
        }),
    ];
    for (name, d) in rows {
        println!("  {name:<46} {d:.1e}");
    }

    println!("discretization maps R_d: AG -> G (largest defect of R_d(0) = eps, d fibre_log(R_d) = I, round trip):");
    let report = |r: groupoid::discretization_map::DiscretizationMapReport| {
        r.identity.max(r.derivative).max(r.round_trip).max(r.inverse_derivative)
    };
    println!(
        "  {:<46} {:.1e}",
        "fibre midpoint on SO(3) (exp chart)",
        report(check_discretization_map(&so3_gd, &FibreThetaMap::midpoint(), &[()], 1)?)
    );
    println!(
        "  {:<46} {:.1e}",
        "fibre midpoint on S^2 x SO(3)",
        report(check_discretization_map(&top_gd, &FibreThetaMap::midpoint(), &[x3], 1)?)
    );
    println!(
        "  {:<46} {:.1e}",
        "discretization::ThetaMap midpoint on R^2 x R^2",
        report(check_discretization_map(&PairGroupoid::<2>, &ThetaMap::<2>::midpoint(), &[Vector2::new(1.0, 0.0)], 1)?)
    );
    let cayley = GroupAsGroupoid::new(So3, Chart::Cayley);
    match check_discretization_map(&cayley, &FibreThetaMap::midpoint(), &[()], 1) {
        Err(e) => println!("  refused (fibre midpoint on SO(3), Cayley chart): {e}"),
        Ok(_) => println!("  (the Cayley fibre midpoint map was unexpectedly accepted)"),
    }

    // the free rigid body
    let (h, steps) = (0.05, 1000);
    let flow = InducedFlow::new(so3_gd, FibreThetaMap::midpoint(), ReducedLagrangian(Body), h)?;
    let reference = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(So3, Chart::Exp, Body);
    let mut state = LieState::new(Matrix3::identity(), Vector3::new(1.0, 0.6, -0.4));
    let mut w = flow.first_arrow(&(), &Vector3::new(1.0, 0.3, -0.1))?;
    state.mu = legendre_minus(&so3_gd, flow.lagrangian(), &w);
    let (c0, s0, e0) = (state.mu.norm(), state.mu, kinetic(&state.mu));
    let mut r = Matrix3::identity();
    let (mut dc, mut ds, mut de, mut dref) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for _ in 0..steps {
        state = reference.advance(&state, h)?;
        r *= w;
        let pi = legendre_plus(&so3_gd, flow.lagrangian(), &w);
        dref = dref.max((pi - state.mu).amax()).max((r - state.g).amax());
        dc = dc.max((pi.norm() - c0).abs());
        ds = ds.max((r * pi - s0).amax());
        de = de.max((kinetic(&pi) - e0).abs());
        flow.advance(&mut w)?;
    }
    println!(
        "free rigid body on SO(3) => {{e}}, R_d(xi) = exp(xi) (fibre midpoint, exp chart), h = {h}, {steps} steps:"
    );
    println!("  |Pi| error {dc:.1e}, spatial momentum error {ds:.1e}, energy error {de:.1e} (bounded, O(h^2))");
    println!("  difference from discretization::LieGroupDiscreteEulerLagrange (same L_d): {dref:.1e}");

    // the heavy top
    let flow = InducedFlow::new(top_gd, FibreThetaMap::midpoint(), Top, h)?;
    let mut g = flow.first_arrow(&x3, &Vector3::new(0.5, -1.0, 2.0))?;
    let node = |g: &(Vector3<f64>, Matrix3<f64>)| (g.0, legendre_minus(&top_gd, flow.lagrangian(), g));
    let energy = |(gamma, pi): (Vector3<f64>, Vector3<f64>)| kinetic(&pi) + gamma.dot(&Vector3::from(CHI));
    let (gamma, pi) = node(&g);
    let (j0, e0) = (gamma.dot(&pi), energy((gamma, pi)));
    let (mut dj, mut dn, mut de) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..steps {
        flow.advance(&mut g)?;
        let (gamma, pi) = node(&g);
        dj = dj.max((gamma.dot(&pi) - j0).abs());
        dn = dn.max((gamma.norm() - 1.0).abs());
        de = de.max((energy((gamma, pi)) - e0).abs());
    }
    println!(
        "heavy top on S^2 x SO(3) => S^2, R_d(G, xi) = (G . exp(-xi/2), exp(xi)) (fibre midpoint), h = {h}, {steps} steps:"
    );
    println!("  Gamma.Pi error {dj:.1e}, |Gamma| error {dn:.1e}, energy error {de:.1e} (bounded)");

    // Kepler
    let map = ThetaMap::<2>::midpoint();
    let flow = InducedFlow::new(PairGroupoid::<2>, map, TangentLagrangian(Kepler), h)?;
    let reference = DiscreteEulerLagrange::new(map, Kepler);
    let mut s = PhaseState::new(Vector2::new(0.4, 0.0), Vector2::new(0.0, 2.0));
    let mut g = (s.q, reference.advance(&s, h)?.q);
    let momentum = |q: &Vector2<f64>, p: &Vector2<f64>| q[0] * p[1] - q[1] * p[0];
    let hamiltonian = |q: &Vector2<f64>, p: &Vector2<f64>| 0.5 * p.norm_squared() - 1.0 / q.norm();
    let (l0, e0) = (momentum(&s.q, &s.p), hamiltonian(&s.q, &s.p));
    let (mut dl, mut de, mut dref) = (0.0f64, 0.0f64, 0.0f64);
    for k in 0..steps {
        s = reference.advance(&s, h)?;
        if k > 0 {
            flow.advance(&mut g)?;
        }
        let p = legendre_plus(&PairGroupoid::<2>, flow.lagrangian(), &g);
        dref = dref.max((g.1 - s.q).amax()).max((p - s.p).amax());
        dl = dl.max((momentum(&g.1, &p) - l0).abs());
        de = de.max((hamiltonian(&g.1, &p) - e0).abs());
    }
    println!("Kepler (e = 0.6) on R^2 x R^2 => R^2, R_d = discretization::ThetaMap midpoint, h = {h}, {steps} steps:");
    println!("  angular momentum error {dl:.1e}, energy error {de:.1e} (bounded)");
    println!("  difference from discretization::DiscreteEulerLagrange (same L_d): {dref:.1e}");
    Ok(())
}
