//! Jacobi coordinates of a planetary system: a central body `0` and planets `1, …, B − 1`,
//! each planet referred to the centre of mass of the bodies before it.
//!
//! With the masses `m_i`, the partial sums `η_i = m_0 + … + m_i` and the centres of mass
//! `R_i = (m_0 x_0 + … + m_i x_i)/η_i` of the first `i + 1` bodies (Jacobi 1843; Wisdom &
//! Holman, *Symplectic maps for the N-body problem*, Astron. J. 102, 1991, §3; Rein & Tamayo,
//! *WHFast: a fast and unbiased implementation of a symplectic Wisdom–Holman integrator for
//! long-term gravitational simulations*, MNRAS 452, 2015, arXiv:1506.01084, §2):
//!
//! ```text
//!   q'_0 = R_{B−1}  (the centre of mass),     q'_i = x_i − R_{i−1}   (i ≥ 1),
//!   recursively R_0 = x_0,  R_i = R_{i−1} + (m_i/η_i) q'_i;
//!   back:  R_{B−1} = q'_0,  R_{i−1} = R_i − (m_i/η_i) q'_i,  x_i = q'_i + R_{i−1},  x_0 = R_0.
//! ```
//!
//! The map `x ↦ q' = J x` is linear, so velocities transform by the same `J`; with the Jacobi
//! masses `m'_0 = η_{B−1}`, `m'_i = m_i η_{i−1}/η_i` the kinetic energy is
//! `Σ_i m_i |v_i|²/2 = Σ_i m'_i |v'_i|²/2` (`M = Jᵀ M' J`), so `p'_i = m'_i v'_i` are the
//! conjugate momenta, and a force `F = −∇_x V` acts on the Jacobi velocities as
//! `M'^{−1} J^{−T} F = J M^{−1} F`: accelerations transform like positions too.

use nalgebra::SVector;

/// The masses of a planetary system and their partial sums: what the Jacobi transform needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JacobiMasses<const B: usize> {
    masses: [f64; B],
    /// `η_i = m_0 + … + m_i`.
    eta: [f64; B],
}

impl<const B: usize> JacobiMasses<B> {
    /// The masses `m_0, …, m_{B−1}` (the caller checks that they are finite and positive).
    pub(crate) fn new(masses: [f64; B]) -> Self {
        let mut eta = [0.0; B];
        let mut sum = 0.0;
        for (e, m) in eta.iter_mut().zip(masses) {
            sum += m;
            *e = sum;
        }
        Self { masses, eta }
    }
    /// `m_i`.
    pub fn masses(&self) -> &[f64; B] {
        &self.masses
    }
    /// `η_i = m_0 + … + m_i` (`η_{B−1}` the total mass).
    pub fn eta(&self) -> &[f64; B] {
        &self.eta
    }
    /// The Jacobi masses `m'_0 = η_{B−1}`, `m'_i = m_i η_{i−1}/η_i`.
    pub fn jacobi_masses(&self) -> [f64; B] {
        std::array::from_fn(|i| if i == 0 { self.eta[B - 1] } else { self.masses[i] * self.eta[i - 1] / self.eta[i] })
    }

    /// `q' = J x`: inertial positions (or velocities, or accelerations) to Jacobi ones.
    #[inline]
    pub fn to_jacobi<const D: usize>(&self, x: &[SVector<f64, D>; B]) -> [SVector<f64, D>; B] {
        let mut out = [SVector::zeros(); B];
        let mut r = x[0];
        for i in 1..B {
            out[i] = x[i] - r;
            r += out[i] * (self.masses[i] / self.eta[i]);
        }
        out[0] = r;
        out
    }

    /// `x = J^{−1} q'`: Jacobi positions (or velocities) to inertial ones.
    #[inline]
    pub fn to_inertial<const D: usize>(&self, q: &[SVector<f64, D>; B]) -> [SVector<f64, D>; B] {
        let mut out = [SVector::zeros(); B];
        let mut r = q[0];
        for i in (1..B).rev() {
            r -= q[i] * (self.masses[i] / self.eta[i]);
            out[i] = q[i] + r;
        }
        out[0] = r;
        out
    }
}
