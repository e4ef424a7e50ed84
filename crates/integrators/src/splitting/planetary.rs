//! The Wisdom–Holman splitting of a planetary system in Jacobi coordinates,
//! `H = H_K + H_I`, and the exact flows of its pieces.
//!
//! For a central body `0` and planets `1, …, B − 1` with the Jacobi coordinates of
//! [`JacobiMasses`] (`q'_i`, `p'_i = m'_i v'_i`, `η_i = m_0 + … + m_i`), the gravitational
//! `H = Σ_i |p_i|²/(2m_i) − Σ_{i<j} G m_i m_j / |x_i − x_j|` is (Wisdom & Holman 1991, §3;
//! Rein & Tamayo 2015, arXiv:1506.01084, eq. 9–12)
//!
//! ```text
//!   H_K = |p'_0|²/(2 η_{B−1}) + Σ_{i≥1} ( |p'_i|²/(2 m'_i) − G m'_i η_i / |q'_i| )    (Kepler),
//!   H_I = Σ_{i≥1} G m_i η_{i−1} / |q'_i| − Σ_{i<j} G m_i m_j / |x_i − x_j|          (interaction),
//! ```
//!
//! (`m'_i η_i = m_i η_{i−1}`), `H_I = O(ε)` relative to `H_K` for planet masses `O(ε)`:
//!
//! * the flow of `H_K` ([`PlanetarySystem::drift`]) moves the centre of mass uniformly and each
//!   planet on its Kepler orbit about the mass `η_i`: the [`KeplerDrift`] of `μ_i = G η_i` on
//!   `(q'_i, v'_i)`, exactly;
//! * `H_I` depends on the positions only, so its flow ([`PlanetarySystem::kick`]) is the kick
//!   `v'_i ← v'_i + t a'_i` with `a'_i = −∇_{q'_i} H_I / m'_i = (J a)_i + G η_i q'_i/|q'_i|³`,
//!   `a` the inertial accelerations of the pair forces and `J` the Jacobi transform of
//!   accelerations ([`JacobiMasses::to_jacobi`]). The pair `(0, 1)` and the term `i = 1` are
//!   the same function `G m_0 m_1 / |q'_1|` (`q'_1 = x_1 − x_0`) with opposite signs: both are
//!   left out, exactly;
//! * the flow of `C = {{H_K, H_I}, H_I} = Σ_{i≥1} |∇_{q'_i} H_I|² / m'_i` (the corrector of
//!   SABAC_n; `H_I` and the potential of `H_K` commute) is the kick
//!   `v' ← v' + 2t M'^{−1} ∇²H_I a'` ([`PlanetarySystem::corrector_kick`]), with the Hessian–vector
//!   product `M'^{−1}∇²H_I w = J M^{−1} ∇²V (J^{−1} w) + G η_i (3 n nᵀ − I) w_i / |q'_i|³`
//!   and, for the pair `(i, j)` at distance `r` in the direction `n`,
//!   `(M^{−1}∇²V u)_i = Σ_j (G m_j / r³)(I − 3 n nᵀ)(u_i − u_j)`.

use super::bodies::{self, all_finite, drift_planets, flat, rows};
use super::jacobi::JacobiMasses;
use super::kepler_drift::KeplerDrift;
use super::planetary_split::PlanetarySplit;
use geom_core::GeomError;
use geom_core::pairwise::{Gravity, NBody};
use geom_core::step::{FlatState, PhaseState};
use nalgebra::SVector;

/// A planetary system in Jacobi coordinates: `q[0]`, `v[0]` the centre of mass and its
/// velocity, `q[i]`, `v[i]` (`i ≥ 1`) planet `i` relative to the centre of mass of the bodies
/// before it ([`JacobiMasses`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JacobiState<const D: usize, const B: usize> {
    /// Jacobi positions `q'_i`.
    pub q: [SVector<f64, D>; B],
    /// Jacobi velocities `v'_i = p'_i / m'_i`.
    pub v: [SVector<f64, D>; B],
}

/// The words `q'_0 … q'_{B−1}, v'_0 … v'_{B−1}` (`2·B·D`): a checkpoint of a run on Jacobi
/// coordinates ([`super::ProcessedWisdomHolman`]).
impl<const D: usize, const B: usize> FlatState for JacobiState<D, B> {
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

/// The split Hamiltonian `H = H_K + H_I` of `B` gravitating bodies in `R^D` (module
/// documentation), body `0` the central one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanetarySystem<const D: usize, const B: usize> {
    masses: JacobiMasses<B>,
    /// `G m_i`.
    gm: [f64; B],
    /// `G η_i`.
    g_eta: [f64; B],
    /// The Kepler drift of planet `i` about `μ_i = G η_i` (entry 0 unused).
    kepler: [KeplerDrift; B],
}

impl<const D: usize, const B: usize> PlanetarySystem<D, B> {
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
        let jm = JacobiMasses::new(masses);
        let g_eta = jm.eta().map(|e| g * e);
        let mut kepler = [KeplerDrift::new(g_eta[B - 1])?; B];
        for (k, &mu) in kepler.iter_mut().zip(&g_eta).skip(1) {
            *k = KeplerDrift::new(mu)?;
        }
        Ok(Self { masses: jm, gm: masses.map(|m| g * m), g_eta, kepler })
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

    /// The masses and their Jacobi transform.
    pub fn masses(&self) -> &JacobiMasses<B> {
        &self.masses
    }

    /// The Jacobi coordinates of an inertial state `(q, p)` of `T*R^N`, `N = B·D` (body `i` at
    /// rows `D·i .. D·i + D`, `p_i = m_i v_i`).
    #[inline]
    pub fn to_jacobi<const N: usize>(&self, s: &PhaseState<N>) -> JacobiState<D, B> {
        let m = self.masses.masses();
        let (x, v) = (rows(&s.q, |_| 1.0), rows(&s.p, |i| m[i]));
        JacobiState { q: self.masses.to_jacobi(&x), v: self.masses.to_jacobi(&v) }
    }

    /// The inertial state `(q, p)`, `p_i = m_i v_i`, of Jacobi coordinates.
    #[inline]
    pub fn to_inertial<const N: usize>(&self, s: &JacobiState<D, B>) -> PhaseState<N> {
        let m = self.masses.masses();
        let (x, v) = (self.masses.to_inertial(&s.q), self.masses.to_inertial(&s.v));
        PhaseState::new(flat(&x, |_| 1.0), flat(&v, |i| m[i]))
    }

    /// The flow of `H_K` for time `t`: the centre of mass moves by `t v'_0`, planet `i` on its
    /// Kepler orbit about `μ_i = G η_i`. The errors of [`KeplerDrift::advance`] (the state may
    /// then be partly advanced: callers work on a copy).
    #[inline]
    pub fn drift(&self, s: &mut JacobiState<D, B>, t: f64) -> Result<(), GeomError> {
        drift_planets(&mut s.q, &mut s.v, t, |i| self.kepler[i])
    }

    /// The inertial accelerations of the pair forces `a_i = Σ_j G m_j (x_j − x_i)/|x_j − x_i|³`
    /// without the pair `(0, 1)`.
    #[inline(always)]
    fn pair_accelerations(&self, x: &[SVector<f64, D>; B]) -> [SVector<f64, D>; B] {
        let mut a = [SVector::<f64, D>::zeros(); B];
        for i in 0..B {
            for j in (i + 1).max(if i == 0 { 2 } else { 0 })..B {
                let d = x[j] - x[i];
                let r2 = d.norm_squared();
                let inv3 = 1.0 / (r2 * r2.sqrt());
                a[i] += d * (self.gm[j] * inv3);
                a[j] -= d * (self.gm[i] * inv3);
            }
        }
        a
    }

    /// `a'_i = −∇_{q'_i} H_I / m'_i` (`a'_0 = 0`), from the inertial positions `x` and the
    /// Jacobi positions `q`.
    #[inline(always)]
    fn jacobi_accelerations(&self, x: &[SVector<f64, D>; B], q: &[SVector<f64, D>; B]) -> [SVector<f64, D>; B] {
        let mut a = self.masses.to_jacobi(&self.pair_accelerations(x));
        a[0] = SVector::zeros();
        for i in 2..B {
            let r2 = q[i].norm_squared();
            a[i] += q[i] * (self.g_eta[i] / (r2 * r2.sqrt()));
        }
        a
    }

    /// `a'_i = −∇_{q'_i} H_I / m'_i`, the Jacobi accelerations of the interaction (`a'_0 = 0`).
    pub fn interaction_acceleration(&self, s: &JacobiState<D, B>) -> [SVector<f64, D>; B] {
        self.jacobi_accelerations(&self.masses.to_inertial(&s.q), &s.q)
    }

    /// The flow of `H_I` for time `t`: `v'_i ← v'_i + t a'_i` (exact: `H_I` depends on the
    /// positions only).
    #[inline]
    pub fn kick(&self, s: &mut JacobiState<D, B>, t: f64) {
        let a = self.interaction_acceleration(s);
        for (v, a) in s.v.iter_mut().zip(&a).skip(1) {
            *v += a * t;
        }
    }

    /// The flow of `C = Σ_{i≥1} |∇_{q'_i} H_I|²/m'_i` for time `t`: `v' ← v' + 2t M'^{−1}∇²H_I a'`
    /// (module documentation; exact, `C` depends on the positions only).
    pub fn corrector_kick(&self, s: &mut JacobiState<D, B>, t: f64) {
        let x = self.masses.to_inertial(&s.q);
        let w = self.jacobi_accelerations(&x, &s.q);
        let u = self.masses.to_inertial(&w);
        let mut y = [SVector::<f64, D>::zeros(); B];
        for i in 0..B {
            for j in (i + 1).max(if i == 0 { 2 } else { 0 })..B {
                let d = x[j] - x[i];
                let r2 = d.norm_squared();
                let inv3 = 1.0 / (r2 * r2.sqrt());
                let du = u[i] - u[j];
                // (I − 3 n nᵀ) du with n = d/r
                let k = du - d * (3.0 * d.dot(&du) / r2);
                y[i] += k * (self.gm[j] * inv3);
                y[j] -= k * (self.gm[i] * inv3);
            }
        }
        let mut y = self.masses.to_jacobi(&y);
        for i in 2..B {
            let qi = s.q[i];
            let r2 = qi.norm_squared();
            let inv3 = 1.0 / (r2 * r2.sqrt());
            y[i] += (qi * (3.0 * qi.dot(&w[i]) / r2) - w[i]) * (self.g_eta[i] * inv3);
        }
        for (v, y) in s.v.iter_mut().zip(&y).skip(1) {
            *v += y * (2.0 * t);
        }
    }
}

impl<const D: usize, const B: usize> PlanetarySplit<D, B> for PlanetarySystem<D, B> {
    type State = JacobiState<D, B>;
    const COORDINATES: &'static str = "Jacobi coordinates";
    const CORRECTOR_KICK: bool = true;
    #[inline(always)]
    fn to_split<const N: usize>(&self, s: &PhaseState<N>) -> JacobiState<D, B> {
        self.to_jacobi(s)
    }
    #[inline(always)]
    fn to_inertial<const N: usize>(&self, s: &JacobiState<D, B>) -> PhaseState<N> {
        PlanetarySystem::to_inertial(self, s)
    }
    #[inline(always)]
    fn drift(&self, s: &mut JacobiState<D, B>, t: f64) -> Result<(), GeomError> {
        PlanetarySystem::drift(self, s, t)
    }
    #[inline(always)]
    fn kick(&self, s: &mut JacobiState<D, B>, t: f64) {
        PlanetarySystem::kick(self, s, t)
    }
    #[inline(always)]
    fn corrector_kick(&self, s: &mut JacobiState<D, B>, t: f64) -> Result<(), GeomError> {
        PlanetarySystem::corrector_kick(self, s, t);
        Ok(())
    }
}
