//! Structure test (issue 33, item 4): the holonomic (RATTLE) flow of the spherical pendulum is a
//! symplectic map of `T*S²` (Marrero, Martín de Diego & Stern, *Symplectic groupoids and discrete
//! constrained Lagrangian mechanics*, 2015, arXiv:1103.6250, §3; Leimkuhler & Skeel, *Symplectic
//! numerical integrators in constrained Hamiltonian systems*, 1994; docs/math.md §C.6.1).
//!
//! The map `(q_0, p_0) ↦ (q_1, p_1)` is [`HolonomicFlow::start`] (the arrow `(q_0, q_1)` with
//! `p_0 = −D_1L̂(q_0, q_1) − Λ_0 q_0`, `|q_1| = 1`) followed by
//! [`HolonomicFlow::projected_momentum`] (`p_1 = P_{q_1} D_2L̂(q_0, q_1)`, tangent), with
//! [`PendulumLd`] and [`UnitSphere`]. It is written in the canonical chart of `T*S²` of the
//! spherical coordinates `q = (sin θ cos φ, sin θ sin φ, cos θ)` and the pulled-back momenta
//! `p_θ = p·∂q/∂θ`, `p_φ = p·∂q/∂φ` (inverse on tangent momenta:
//! `p = p_θ ∂q/∂θ + p_φ ∂q/∂φ / sin²θ`), in which `T*S²` has `J = [[0, I], [−I, 0]]`.
//!
//! Check: `|MᵀJM − J|_∞ ≤ 1e-8` for the 4×4 step Jacobian `M`, by geom-core's contract checker
//! [`check_symplectic`] (central differences with `δ = 1e-5 (1 + |x_i|)`: truncation
//! `O(δ²) ≈ 1e-10`, Newton tolerance `1e-14` entering as `1e-14/δ = 1e-9`).
//!
//! Two charts, polar axis `e_3` and `e_1`, each at the states where `sin θ ≥ 0.5`.
//!
//! Negative controls on the same charts, failing the same check with defect `≥ 1e-3` (`h = 0.1`):
//! * explicit Euler of Hamilton's equations of `H = ½|p|² + g q_3` in the chart. (An ambient
//!   Euler step `q + h p`, `p − h g e_3` projected onto `T*S²` is a weaker control: with a
//!   constant force the ambient step is symplectic Euler, only the projections break it —
//!   measured `4.8e-4` at one of these states);
//! * the RATTLE map itself in a non-canonical chart: the orthonormal-frame components
//!   `(p·e_θ, p·e_φ) = (p_θ, p_φ / sin θ)` in place of the canonical momenta.

use geom_core::step::testing::check_symplectic;
use geom_core::step::{OneStep, PhaseState};
use geom_core::{GeomError, Scalar};
use groupoid::PairGroupoid;
use groupoid::constraints::HolonomicFlow;
use groupoid::models::{GRAVITY, PendulumLd, UnitSphere};
use nalgebra::{Matrix3, SVector, Vector2, Vector3};
use num_dual::DualSVec64;

/// `q(θ, φ)`, `∂q/∂θ`, `∂q/∂φ`.
fn chart<S: Scalar>(theta: S, phi: S) -> (Vector3<S>, Vector3<S>, Vector3<S>) {
    let (st, ct, sp, cp) = (theta.sin(), theta.cos(), phi.sin(), phi.cos());
    (
        Vector3::new(st * cp, st * sp, ct),
        Vector3::new(ct * cp, ct * sp, -st),
        Vector3::new(-st * sp, st * cp, S::from(0.0)),
    )
}

/// The momentum coordinates of a chart of `T*S²`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Momenta {
    /// `(p·∂q/∂θ, p·∂q/∂φ)`: canonical.
    Canonical,
    /// `(p·e_θ, p·e_φ)`, the orthonormal frame: not canonical.
    Orthonormal,
}

/// A chart of `T*S²`: spherical coordinates about the polar axis `axes · e_3` (`q = axes ·
/// q(θ, φ)`, `axes` a rotation), with the momenta `momenta`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Chart {
    axes: Matrix3<f64>,
    momenta: Momenta,
}

impl Chart {
    /// Polar axis `e_3` (the vertical: the hanging pendulum is near the pole `θ = π`).
    fn vertical(momenta: Momenta) -> Self {
        Self { axes: Matrix3::identity(), momenta }
    }
    /// Polar axis `e_1` (horizontal: the bottom of the sphere is on its equator), frame
    /// `(e_2, e_3, e_1)`.
    fn horizontal(momenta: Momenta) -> Self {
        Self { axes: Matrix3::from_columns(&[Vector3::y(), Vector3::z(), Vector3::x()]), momenta }
    }
    /// `(q, p)` (`p` tangent) from the chart state.
    fn ambient(&self, s: &PhaseState<2>) -> (Vector3<f64>, Vector3<f64>) {
        let (q, qt, qp) = chart(s.q[0], s.q[1]);
        let st = s.q[0].sin();
        let p = match self.momenta {
            Momenta::Canonical => qt * s.p[0] + qp * (s.p[1] / (st * st)),
            Momenta::Orthonormal => qt * s.p[0] + qp * (s.p[1] / st),
        };
        (self.axes * q, self.axes * p)
    }
    /// The chart state of `(q, p)`.
    fn coordinates(&self, q: &Vector3<f64>, p: &Vector3<f64>) -> PhaseState<2> {
        let (q, p) = (self.axes.transpose() * q, self.axes.transpose() * p);
        let (theta, phi) = (q.xy().norm().atan2(q[2]), q[1].atan2(q[0]));
        let (_, qt, qp) = chart(theta, phi);
        let p_phi = match self.momenta {
            Momenta::Canonical => p.dot(&qp),
            Momenta::Orthonormal => p.dot(&qp) / theta.sin(),
        };
        PhaseState::new(Vector2::new(theta, phi), Vector2::new(p.dot(&qt), p_phi))
    }
}

/// The RATTLE step of the spherical pendulum in a chart of `T*S²`.
struct Rattle(Chart);

impl OneStep<PhaseState<2>> for Rattle {
    fn name(&self) -> String {
        format!("RATTLE spherical pendulum ({:?})", self.0)
    }
    fn order(&self) -> u32 {
        2
    }
    fn step(&self, s: &mut PhaseState<2>, h: f64) -> Result<(), GeomError> {
        let flow = HolonomicFlow::<_, _, _, 4>::new(PairGroupoid::<3>, PendulumLd::new(h)?, UnitSphere);
        let (q0, p0) = self.0.ambient(s);
        let (g1, _) = flow.start::<3, 1>(&q0, &p0, &(p0 * h))?;
        let p1 = flow.projected_momentum::<3, 1>(&g1)?;
        *s = self.0.coordinates(&g1.1, &p1);
        Ok(())
    }
}

/// Explicit Euler of Hamilton's equations in a canonical chart, `z_1 = z + h J ∇H(z)`,
/// `H = ½|p|² + g q_3` written in the chart (`∇H` by forward AD).
struct ChartEuler(Chart);

impl ChartEuler {
    /// `H(θ, φ, p_θ, p_φ) = ½|p_θ ∂q/∂θ + p_φ ∂q/∂φ / sin²θ|² + g (axes · q)_3`.
    fn hamiltonian<S: Scalar>(&self, z: &SVector<S, 4>) -> S {
        let (q, qt, qp) = chart(z[0], z[1]);
        let st = z[0].sin();
        let p = qt * z[2] + qp * (z[3] / (st * st));
        p.norm_squared() * S::from(0.5) + (self.0.axes.map(S::from) * q)[2] * S::from(GRAVITY)
    }
}

impl OneStep<PhaseState<2>> for ChartEuler {
    fn name(&self) -> String {
        "explicit Euler in the chart".into()
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(&self, s: &mut PhaseState<2>, h: f64) -> Result<(), GeomError> {
        let z = SVector::<f64, 4>::new(s.q[0], s.q[1], s.p[0], s.p[1]);
        let (_, grad) = num_dual::gradient(|w: SVector<DualSVec64<4>, 4>| self.hamiltonian(&w), &z);
        s.q += Vector2::new(grad[2], grad[3]) * h;
        s.p -= Vector2::new(grad[0], grad[1]) * h;
        Ok(())
    }
}

/// Points `(q, p)` of `T*S²` (`p` tangent): the pendulum below the equator, swinging and
/// turning.
fn states() -> Vec<(Vector3<f64>, Vector3<f64>)> {
    [
        (Vector3::new(0.6, 0.0, -0.8), Vector3::new(0.3, 1.2, 0.0)),
        (Vector3::new(0.3, -0.5, -0.7), Vector3::new(-1.5, 0.4, 0.9)),
        (Vector3::new(-0.2, 0.3, -0.9), Vector3::new(0.3, -0.1, 0.6)),
        (Vector3::new(-0.7, -0.6, -0.3), Vector3::new(0.8, -0.4, -0.5)),
    ]
    .into_iter()
    .map(|(q, p)| {
        let q = q.normalize();
        (q, p - q * q.dot(&p))
    })
    .collect()
}

/// The canonical charts of the check, with the states in each where `sin θ ≥ 0.5` (the
/// difference quotients of a chart lose accuracy as `1/sin²θ` towards its poles: at
/// `(θ, φ) = (2.8, 2.0)`, `sin θ = 0.33`, the exact RATTLE map measured `1.6e-8` at `h = 0.1` in
/// the vertical chart, and `1.6e-11` at the same point in the horizontal one, `sin θ = 0.99`).
fn chart_states(momenta: Momenta) -> Vec<(Chart, PhaseState<2>)> {
    let mut out = Vec::new();
    for chart in [Chart::vertical(momenta), Chart::horizontal(momenta)] {
        for (q, p) in states() {
            let x0 = chart.coordinates(&q, &p);
            if x0.q[0].sin() >= 0.5 {
                out.push((chart, x0));
            }
        }
    }
    out
}

#[test]
fn rattle_is_symplectic_on_the_cotangent_bundle_of_the_sphere() {
    let mut worst: f64 = 0.0;
    let cases = chart_states(Momenta::Canonical);
    assert!(cases.len() >= 6, "too few states in the charts: {}", cases.len());
    for h in [0.1, 0.05] {
        for (chart, x0) in &cases {
            let d = check_symplectic(&Rattle(*chart), x0, h).unwrap();
            println!("RATTLE h = {h}, {chart:?}, x0 = {:?}: |MᵀJM − J|_∞ = {d:.2e}", (x0.q, x0.p));
            worst = worst.max(d);
        }
    }
    assert!(worst <= 1e-8, "RATTLE symplecticity defect {worst:e}");
}

#[test]
fn the_controls_are_not_symplectic() {
    // at h = 0.1 (the Euler defect is O(h²))
    let h = 0.1;
    let (mut euler, mut frame) = (f64::INFINITY, f64::INFINITY);
    for (chart, x0) in chart_states(Momenta::Canonical) {
        let e = check_symplectic(&ChartEuler(chart), &x0, h).unwrap();
        let orthonormal = Chart { momenta: Momenta::Orthonormal, ..chart };
        let (q, p) = chart.ambient(&x0);
        let f = check_symplectic(&Rattle(orthonormal), &orthonormal.coordinates(&q, &p), h).unwrap();
        println!("h = {h}: explicit Euler {e:.2e}, RATTLE in orthonormal-frame momenta {f:.2e}");
        (euler, frame) = (euler.min(e), frame.min(f));
    }
    assert!(euler >= 1e-3, "explicit Euler passed the check: {euler:e}");
    assert!(frame >= 1e-3, "non-canonical chart passed the check: {frame:e}");
}

#[test]
fn the_charts_round_trip() {
    // the chart maps are inverse to each other (else the check measures the chart, not the map)
    for m in [Momenta::Canonical, Momenta::Orthonormal] {
        for (chart, x0) in chart_states(m) {
            let (q, p) = chart.ambient(&x0);
            assert!((q.norm() - 1.0).abs() < 1e-15 && p.dot(&q).abs() < 1e-14);
            let back = chart.coordinates(&q, &p);
            assert!((back.q - x0.q).amax() < 1e-14 && (back.p - x0.p).amax() < 1e-14, "{back:?}");
        }
    }
}
