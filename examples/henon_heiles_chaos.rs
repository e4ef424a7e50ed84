//! Chaos indicators and a Poincaré section of the Hénon–Heiles system (Hénon & Heiles 1964),
//! `H = |p|²/2 + |q|²/2 + q₁² q₂ − q₂³/3`, with Störmer–Verlet:
//!
//! * MEGNO `⟨Y⟩` (Cincotta & Simó 2000) of a quasi-periodic orbit (→ 2) and of a chaotic one
//!   (≈ λ t / 2);
//! * the Lyapunov spectrum of the chaotic orbit by repeated QR (Benettin et al. 1980): pairs ±λ,
//!   sum zero to round-off (the method is symplectic);
//! * the Poincaré section `q₁ = 0`, `p₁ > 0` of the chaotic orbit, located by events (Hermite
//!   estimate refined by re-stepping), with the energy error at the crossings.
//!
//! Run: `cargo run --release --example henon_heiles_chaos`.

use geom_core::Scalar;
use geom_core::function::{AutoDiff, PhaseSpaceDerivatives, PhaseSpaceFunction};
use integrators::PhaseState;
use integrators::classical::{HamiltonianField, StormerVerlet};
use integrators::events::{Direction, Event, EventRunner, poincare_section};
use integrators::variational_equations::{LyapunovSpectrum, Megno};
use nalgebra::{SVector, Vector2};

/// Hénon–Heiles, written once over the scalar.
#[derive(Clone, Copy)]
struct HenonHeiles;
impl PhaseSpaceFunction<2> for HenonHeiles {
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        let (x, y) = (q[0], q[1]);
        (p.norm_squared() + q.norm_squared()) * S::from(0.5) + x * x * y - y * y * y * S::from(1.0 / 3.0)
    }
}

/// The point `(0, y; p_x, 0)` of energy `e`, `p_x > 0`.
fn state(e: f64, y: f64) -> PhaseState<2> {
    let px = (2.0 * e - y * y + 2.0 * y * y * y / 3.0).sqrt();
    PhaseState::new(Vector2::new(0.0, y), Vector2::new(px, 0.0))
}

fn main() -> Result<(), geom_core::GeomError> {
    let ham = AutoDiff::separable(HenonHeiles);
    let sv = StormerVerlet::new(ham);
    let h = 0.05;
    let delta = PhaseState::new(Vector2::new(1.0, 0.3), Vector2::new(0.2, -0.5));
    let (regular, chaotic) = (state(1.0 / 12.0, 0.0), state(0.125, -0.2));

    for (label, x) in [("quasi-periodic (E = 1/12, y = 0)", regular), ("chaotic (E = 1/8, y = -0.2)", chaotic)] {
        let mut m = Megno::new(x, delta, h)?;
        m.advance(&sv, 200_000)?;
        println!(
            "MEGNO {label}: <Y>(t = {:.0}) = {:.3}, lambda_1 = {:.4}, lambda t / 2 = {:.1}",
            m.time(),
            m.mean(),
            m.lyapunov(),
            0.5 * m.lyapunov() * m.time()
        );
    }

    let mut l = LyapunovSpectrum::<2, 4>::new(chaotic, h)?;
    l.advance(&sv, 200_000)?;
    let e = l.exponents();
    println!(
        "Lyapunov spectrum (t = {:.0}): [{:.4}, {:.2e}, {:.2e}, {:.4}], sum {:.1e}",
        l.time(),
        e[0],
        e[1],
        e[2],
        e[3],
        e.iter().sum::<f64>()
    );

    let runner = EventRunner::new(sv, HamiltonianField(ham));
    let (mut x, mut t) = (chaotic, 0.0);
    let section = |x: &PhaseState<2>| x.q[0];
    let points =
        poincare_section(&runner, &mut x, &mut t, h, Event::new(section, Direction::Rising), 2_000, 10_000_000)?;
    let e0 = ham.value(&chaotic.q, &chaotic.p);
    let err = points.iter().map(|c| (ham.value(&c.state.q, &c.state.p) - e0).abs()).fold(0.0, f64::max);
    let off = points.iter().map(|c| c.state.q[0].abs()).fold(0.0, f64::max);
    println!(
        "Poincare section q1 = 0, p1 > 0: {} crossings up to t = {t:.0}, max |H - E| {err:.2e}, max |q1| {off:.1e}",
        points.len()
    );
    for c in points.iter().take(3) {
        println!("  t = {:10.5}  (q2, p2) = ({:+.6}, {:+.6})", c.t, c.state.q[1], c.state.p[1]);
    }
    Ok(())
}
