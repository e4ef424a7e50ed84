//! The Kepler problem `H = |p|²/2 - 1/|q|` (eccentricity 0.6) integrated by the symplectic
//! methods that Barbero-Liñán, Marrero & Martín de Diego (*From retraction maps to
//! symplectic-momentum numerical integrators*, 2024, arXiv:2401.14800) build from discretization
//! maps (docs/math.md §B.1, B.3):
//!
//! * the cotangent lifts of the θ-maps θ = 0 (symplectic Euler), 1/2 (implicit midpoint), 1;
//! * symplectic Euler composed with its adjoint (Störmer–Verlet), McLachlan's order-4 scheme;
//! * compositions of the midpoint rule: triple jump (4), Yoshida 6, Kahan–Li 8.
//!
//! For each: the largest energy and angular-momentum errors over 10^5 steps of h = 0.01 (about 160
//! orbits) — the angular momentum is conserved to round-off by every method (Theorem 2 of
//! Barbero-Liñán et al. 2024: the θ-maps are rotation-equivariant), the energy error is bounded —
//! and an order table against the exact solution from Kepler's equation.
//!
//! Run: `cargo run --release --example kepler`.

use discretization::composition::{CompositionScheme, adjoint_pair, kahan_li8, mclachlan4, triple_jump, yoshida6};
use discretization::{Composition, CotangentLiftIntegrator, OneStep, PhaseState, ThetaMap};
use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction};
use geom_core::{GeomError, Scalar};
use nalgebra::{SVector, Vector2};

const E: f64 = 0.6;

/// Kepler's Hamiltonian, written once over the scalar; `AutoDiff` supplies its derivatives.
struct Kepler;

impl PhaseSpaceFunction<2> for Kepler {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

type Theta = CotangentLiftIntegrator<ThetaMap<2>, AutoDiff<Kepler>>;

fn theta(t: f64) -> Theta {
    CotangentLiftIntegrator::new(ThetaMap::new(t).expect("theta in [0, 1]"), AutoDiff(Kepler))
}

/// Perihelion of the orbit with semi-major axis 1: `q = (1 - e, 0)`, `p = (0, √((1+e)/(1-e)))`.
fn start() -> PhaseState<2> {
    PhaseState::new(Vector2::new(1.0 - E, 0.0), Vector2::new(0.0, ((1.0 + E) / (1.0 - E)).sqrt()))
}

/// The exact orbit at time `t` from Kepler's equation `E - e sin E = t` (period 2π).
fn exact(t: f64) -> PhaseState<2> {
    let mut ecc = t + E * t.sin();
    for _ in 0..60 {
        let d = (ecc - E * ecc.sin() - t) / (1.0 - E * ecc.cos());
        ecc -= d;
        if d.abs() < 1e-16 * (1.0 + ecc.abs()) {
            break;
        }
    }
    let (s, c) = ecc.sin_cos();
    let b = (1.0 - E * E).sqrt();
    let rate = 1.0 / (1.0 - E * c);
    PhaseState::new(Vector2::new(c - E, b * s), Vector2::new(-s * rate, b * c * rate))
}

fn angular_momentum(s: &PhaseState<2>) -> f64 {
    s.q[0] * s.p[1] - s.q[1] * s.p[0]
}

/// Largest |H - H_0| and |L - L_0| (relative to |H_0|, |L_0|) over `steps` steps of `h`.
fn conservation(method: &dyn OneStep<PhaseState<2>>, h: f64, steps: usize) -> Result<(f64, f64), GeomError> {
    let ham = AutoDiff(Kepler);
    let mut s = start();
    let (h0, l0) = (ham.value(&s.q, &s.p), angular_momentum(&s));
    let (mut de, mut dl) = (0.0f64, 0.0f64);
    for _ in 0..steps {
        method.step(&mut s, h)?;
        de = de.max((ham.value(&s.q, &s.p) - h0).abs());
        dl = dl.max((angular_momentum(&s) - l0).abs());
    }
    Ok((de / h0.abs(), dl / l0.abs()))
}

/// Global error at `t_end` with `n` steps.
fn global_error(method: &dyn OneStep<PhaseState<2>>, t_end: f64, n: usize) -> Result<f64, GeomError> {
    let mut s = start();
    let h = t_end / n as f64;
    for _ in 0..n {
        method.step(&mut s, h)?;
    }
    let x = exact(t_end);
    Ok((s.q - x.q).amax().max((s.p - x.p).amax()))
}

fn midpoint_composition(scheme: CompositionScheme) -> Composition<Theta> {
    Composition::new(theta(0.5), scheme).expect("a scheme without adjoint stages")
}

fn main() -> Result<(), GeomError> {
    let s0 = start();
    println!("Kepler problem H = |p|^2/2 - 1/|q|, eccentricity {E}, semi-major axis 1, period 2 pi");
    println!(
        "initial data (perihelion): q = ({:.1}, {:.1}), p = ({:.1}, {:.1}); H_0 = {:.6}, L_0 = {:.6}",
        s0.q[0],
        s0.q[1],
        s0.p[0],
        s0.p[1],
        AutoDiff(Kepler).value(&s0.q, &s0.p),
        angular_momentum(&s0)
    );
    println!("derivatives of H by automatic differentiation (num-dual); Newton to 1e-14 per step\n");

    let methods: Vec<(&str, Box<dyn OneStep<PhaseState<2>>>, usize)> = vec![
        ("theta = 0 (symplectic Euler)", Box::new(theta(0.0)), 1),
        ("theta = 1/2 (implicit midpoint)", Box::new(theta(0.5)), 2),
        ("theta = 1 (adjoint symplectic Euler)", Box::new(theta(1.0)), 1),
        (
            "sympl. Euler + adjoint (Stormer-Verlet)",
            Box::new(Composition::with_adjoint(theta(0.0), theta(1.0), adjoint_pair())),
            2,
        ),
        (
            "McLachlan 4 of theta = 0 and 1",
            Box::new(Composition::with_adjoint(theta(0.0), theta(1.0), mclachlan4())),
            4,
        ),
        ("triple jump of midpoint", Box::new(midpoint_composition(triple_jump(2))), 4),
        ("Yoshida 6 of midpoint", Box::new(midpoint_composition(yoshida6())), 6),
        ("Kahan-Li 8 of midpoint", Box::new(midpoint_composition(kahan_li8())), 8),
    ];

    let (h, steps) = (0.01, 100_000);
    println!(
        "Conservation over {steps} steps of h = {h} (t = {:.0}, {:.0} orbits):",
        h * steps as f64,
        h * steps as f64 / std::f64::consts::TAU
    );
    println!("{:<42} {:>5} {:>16} {:>16}", "method", "order", "max |dH|/|H_0|", "max |dL|/|L_0|");
    for (name, m, order) in &methods {
        let (de, dl) = conservation(m.as_ref(), h, steps)?;
        println!("{name:<42} {order:>5} {de:>16.3e} {dl:>16.3e}");
    }

    let t_end = 7.3; // not a period (2 pi), past the second perihelion passage
    println!(
        "\nGlobal error max(|q - q_exact|, |p - p_exact|) at t = {t_end} (exact solution from Kepler's equation):"
    );
    println!("{:<42} {:>5} {:>11} {:>11} {:>11} {:>13}", "method", "steps", "err(h)", "err(h/2)", "err(h/4)", "orders");
    for (name, m, order) in &methods {
        // fewer steps for higher orders keep the errors far above round-off
        let n = match order {
            1 => 1600,
            2 => 400,
            4 => 100,
            6 => 71,
            _ => 50,
        };
        let errs = [
            global_error(m.as_ref(), t_end, n)?,
            global_error(m.as_ref(), t_end, 2 * n)?,
            global_error(m.as_ref(), t_end, 4 * n)?,
        ];
        println!(
            "{name:<42} {n:>5} {:>11.3e} {:>11.3e} {:>11.3e}   {:.2}, {:.2}",
            errs[0],
            errs[1],
            errs[2],
            (errs[0] / errs[1]).log2(),
            (errs[1] / errs[2]).log2()
        );
    }
    Ok(())
}
