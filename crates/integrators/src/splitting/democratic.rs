//! The Wisdom–Holman splitting of a planetary system in democratic heliocentric coordinates
//! (Duncan, Levison & Lee, *A multiple time step symplectic algorithm for integrating close
//! encounters*, Astron. J. 116, 1998, §2; Rein & Tamayo, *WHFast*, MNRAS 452, 2015,
//! arXiv:1506.01084, §2.2), and the exact flows of its pieces.
//!
//! For a central body `0` and planets `1, …, B − 1` (masses `m_i`, total `M`, inertial
//! positions `x_i`, momenta `p_i = m_i v_i`), the coordinates are the heliocentric positions
//! and the barycentric momenta, a canonical pair:
//!
//! ```text
//!   Q_0 = Σ_j m_j x_j / M,   Q_i = x_i − x_0,        P_0 = Σ_j p_j,   P_i = p_i − m_i P_0 / M   (i ≥ 1);
//!   back:  x_0 = Q_0 − Σ_{i≥1} m_i Q_i / M,  x_i = Q_i + x_0,   p_i = P_i + m_i P_0/M,  p_0 = m_0 P_0/M − Σ_{i≥1} P_i,
//! ```
//!
//! and the gravitational `H = Σ_i |p_i|²/(2m_i) − Σ_{i<j} G m_i m_j / |x_i − x_j|` is
//! `H = H_K + H_I + H_J` with
//!
//! ```text
//!   H_K = |P_0|²/(2M) + Σ_{i≥1} ( |P_i|²/(2 m_i) − G m_0 m_i / |Q_i| )     (Kepler, about μ = G m_0),
//!   H_I = − Σ_{1≤i<j} G m_i m_j / |Q_i − Q_j|                              (the planets' interaction),
//!   H_J = |Σ_{i≥1} P_i|² / (2 m_0)                                         (the Sun's motion, the "jump").
//! ```
//!
//! With the velocities `u_i = P_i / m_i` (`u_0 = P_0 / M`, the centre of mass velocity), every
//! flow is exact:
//!
//! * `H_K` ([`DemocraticHeliocentric::drift`]): `Q_0 ← Q_0 + t u_0` and each planet on its
//!   Kepler orbit about `μ = G m_0`, the [`KeplerDrift`] of `(Q_i, u_i)`;
//! * `H_I` ([`DemocraticHeliocentric::interaction`]) depends on the positions only:
//!   `u_i ← u_i + t Σ_{j≥1, j≠i} G m_j (Q_j − Q_i)/|Q_j − Q_i|³`;
//! * `H_J` ([`DemocraticHeliocentric::jump`]) depends on the momenta only:
//!   `Q_i ← Q_i + t Σ_{j≥1} m_j u_j / m_0` for `i ≥ 1`.
//!
//! The perturbation `H_I + H_J` is `O(ε)` relative to `H_K` for planet masses `O(ε)`; its flow
//! is taken as the symmetric composition `φ^J_{t/2} ∘ φ^I_t ∘ φ^J_{t/2}` (the kick of
//! [`super::PlanetarySplit`], as WHFast does: Rein & Tamayo 2015, §2.2), the flow of
//! `H_I + H_J + O(t² ε²)`, so a Wisdom–Holman step keeps order 2, symmetry and symplecticity,
//! with an energy error `O(ε h²)`. Unlike Jacobi coordinates, the split does not depend on
//! the order of the planets.

use super::bodies::{self, all_finite, drift_planets, flat, rows};
use super::kepler_drift::KeplerDrift;
use super::planetary_split::PlanetarySplit;
use geom_core::GeomError;
use geom_core::pairwise::{Gravity, NBody};
use geom_core::step::{FlatState, PhaseState};
use nalgebra::SVector;

/// A planetary system in democratic heliocentric coordinates: `q[0]`, `v[0]` the centre of mass
/// and its velocity `P_0/M`, `q[i]`, `v[i]` (`i ≥ 1`) the heliocentric position `Q_i` of
/// planet `i` and its barycentric velocity `u_i = P_i/m_i`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeliocentricState<const D: usize, const B: usize> {
    /// `Q_0` (the centre of mass) and the heliocentric positions `Q_i`.
    pub q: [SVector<f64, D>; B],
    /// `u_0 = P_0/M` and the barycentric velocities `u_i = P_i/m_i`.
    pub v: [SVector<f64, D>; B],
}

/// The words `Q_0 … Q_{B−1}, u_0 … u_{B−1}` (`2·B·D`): a checkpoint of a run on democratic
/// heliocentric coordinates ([`super::ProcessedWisdomHolman`]).
impl<const D: usize, const B: usize> FlatState for HeliocentricState<D, B> {
    const WORDS: usize = 2 * B * D;
    fn write_words(&self, out: &mut Vec<f64>) {
        bodies::write_words(&self.q, &self.v, out);
    }
    fn read_words(words: &[f64]) -> Option<Self> {
        bodies::read_words(words).map(|(q, v)| Self { q, v })
    }
    fn words_finite(&self) -> bool {
        all_finite(&self.q, &self.v)
    }
}

/// The split Hamiltonian `H = H_K + (H_I + H_J)` of `B` gravitating bodies in `R^D` in
/// democratic heliocentric coordinates (module documentation), body `0` the central one.
///
/// ```
/// use geom_core::step::PhaseState;
/// use integrators::splitting::{DemocraticHeliocentric, PlanetarySplit};
/// use nalgebra::SVector;
/// let dh = DemocraticHeliocentric::<2, 3>::new(1.0, [1.0, 1e-3, 2e-3])?;
/// let s = PhaseState::new(
///     SVector::from([0.0, 0.0, 1.0, 0.0, -1.6, 0.3]),
///     SVector::from([-1e-3, 1.5e-3, 0.0, 1e-3, 1e-3, -2.5e-3]),
/// );
/// let h = dh.to_split(&s);
/// // heliocentric positions, barycentric velocities (here the total momentum is zero)
/// assert_eq!((h.q[2][0], h.v[1][1]), (-1.6, 1.0));
/// let back: PhaseState<6> = dh.to_inertial(&h);
/// assert!((back.q - s.q).norm() < 1e-15 && (back.p - s.p).norm() < 1e-18);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DemocraticHeliocentric<const D: usize, const B: usize> {
    masses: [f64; B],
    total: f64,
    /// `G m_i`.
    gm: [f64; B],
    /// The Kepler drift about `μ = G m_0`.
    kepler: KeplerDrift,
}

impl<const D: usize, const B: usize> DemocraticHeliocentric<D, B> {
    /// The system of gravitational constant `g` and masses `m_0` (the central body), …,
    /// `m_{B−1}`. [`GeomError::InvalidParameter`] if `B < 2`, `D = 0`, or `G` or a mass is not
    /// finite and positive.
    pub fn new(g: f64, masses: [f64; B]) -> Result<Self, GeomError> {
        if B < 2 || D == 0 {
            return Err(GeomError::InvalidParameter {
                what: "planetary system",
                reason: format!("needs a central body and at least one planet in R^D, D >= 1 (B = {B}, D = {D})"),
            });
        }
        Gravity::new(g, masses)?;
        let gm = masses.map(|m| g * m);
        Ok(Self { masses, total: masses.iter().sum(), gm, kepler: KeplerDrift::new(gm[0])? })
    }

    /// The system of the library's gravitational N-body Hamiltonian
    /// ([`geom_core::pairwise::gravity`]), body 0 the central one;
    /// [`GeomError::DimensionMismatch`] unless `N = B·D`.
    pub fn from_model<const N: usize>(model: &NBody<Gravity<B>, N, D>) -> Result<Self, GeomError> {
        if N != B * D {
            return Err(GeomError::DimensionMismatch { what: "coordinates N = B·D", expected: B * D, got: N });
        }
        let phi = model.potential.0.phi();
        Self::new(phi.g(), *phi.masses())
    }

    /// The masses `m_i`.
    pub fn masses(&self) -> &[f64; B] {
        &self.masses
    }

    /// The flow of `H_K` for time `t`: the centre of mass moves by `t u_0`, planet `i` on its
    /// Kepler orbit about `μ = G m_0`. The errors of [`KeplerDrift::advance`] (the state may
    /// then be partly advanced: callers work on a copy).
    #[inline]
    pub fn drift(&self, s: &mut HeliocentricState<D, B>, t: f64) -> Result<(), GeomError> {
        drift_planets(&mut s.q, &mut s.v, t, |_| self.kepler)
    }

    /// The flow of `H_I` for time `t`: `u_i ← u_i + t Σ_{j≥1, j≠i} G m_j (Q_j − Q_i)/|Q_j − Q_i|³`.
    #[inline]
    pub fn interaction(&self, s: &mut HeliocentricState<D, B>, t: f64) {
        let mut a = [SVector::<f64, D>::zeros(); B];
        for i in 1..B {
            for j in i + 1..B {
                let d = s.q[j] - s.q[i];
                let r2 = d.norm_squared();
                let inv3 = 1.0 / (r2 * r2.sqrt());
                a[i] += d * (self.gm[j] * inv3);
                a[j] -= d * (self.gm[i] * inv3);
            }
        }
        for (v, a) in s.v.iter_mut().zip(&a).skip(1) {
            *v += a * t;
        }
    }

    /// The flow of `H_J` for time `t`: `Q_i ← Q_i + t Σ_{j≥1} m_j u_j / m_0` (`i ≥ 1`).
    #[inline]
    pub fn jump(&self, s: &mut HeliocentricState<D, B>, t: f64) {
        let mut sum = SVector::<f64, D>::zeros();
        for (v, m) in s.v.iter().zip(&self.masses).skip(1) {
            sum += v * *m;
        }
        let shift = sum * (t / self.masses[0]);
        for q in s.q.iter_mut().skip(1) {
            *q += shift;
        }
    }
}

impl<const D: usize, const B: usize> PlanetarySplit<D, B> for DemocraticHeliocentric<D, B> {
    type State = HeliocentricState<D, B>;
    const COORDINATES: &'static str = "democratic heliocentric coordinates";
    const CORRECTOR_KICK: bool = false;

    #[inline]
    fn to_split<const N: usize>(&self, s: &PhaseState<N>) -> HeliocentricState<D, B> {
        let x: [SVector<f64, D>; B] = rows(&s.q, |_| 1.0);
        let p: [SVector<f64, D>; B] = rows(&s.p, |_| 1.0);
        let u: [SVector<f64, D>; B] = rows(&s.p, |i| self.masses[i]);
        let (mut r, mut p0) = (SVector::<f64, D>::zeros(), SVector::<f64, D>::zeros());
        for i in 0..B {
            r += x[i] * self.masses[i];
            p0 += p[i];
        }
        let u0 = p0 / self.total;
        let mut out = HeliocentricState { q: [r / self.total; B], v: [u0; B] };
        for i in 1..B {
            out.q[i] = x[i] - x[0];
            out.v[i] = u[i] - u0;
        }
        out
    }

    #[inline]
    fn to_inertial<const N: usize>(&self, s: &HeliocentricState<D, B>) -> PhaseState<N> {
        let (mut x0, mut p0) = (s.q[0], s.v[0] * self.masses[0]);
        for i in 1..B {
            x0 -= s.q[i] * (self.masses[i] / self.total);
            p0 -= s.v[i] * self.masses[i];
        }
        let x: [SVector<f64, D>; B] = std::array::from_fn(|i| if i == 0 { x0 } else { s.q[i] + x0 });
        let p: [SVector<f64, D>; B] =
            std::array::from_fn(|i| if i == 0 { p0 } else { (s.v[i] + s.v[0]) * self.masses[i] });
        PhaseState::new(flat(&x, |_| 1.0), flat(&p, |_| 1.0))
    }

    #[inline(always)]
    fn drift(&self, s: &mut HeliocentricState<D, B>, t: f64) -> Result<(), GeomError> {
        DemocraticHeliocentric::drift(self, s, t)
    }

    /// `φ^J_{t/2} ∘ φ^I_t ∘ φ^J_{t/2}` (module documentation).
    #[inline(always)]
    fn kick(&self, s: &mut HeliocentricState<D, B>, t: f64) {
        self.jump(s, 0.5 * t);
        self.interaction(s, t);
        self.jump(s, 0.5 * t);
    }

    /// Refused: `{{H_K, H_I + H_J}, H_I + H_J}` depends on the momenta (no kick).
    fn corrector_kick(&self, _s: &mut HeliocentricState<D, B>, _t: f64) -> Result<(), GeomError> {
        Err(GeomError::InvalidParameter {
            what: "SABAC corrector",
            reason: "in democratic heliocentric coordinates {{H_K, H_I}, H_I} is not a kick".into(),
        })
    }
}
