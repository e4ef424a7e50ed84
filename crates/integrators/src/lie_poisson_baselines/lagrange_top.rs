//! Bobenko and Suris's discrete Lagrange top on `T*SO(3) ∋ (R, Π)`: the integrable
//! discretization of the symmetric heavy top (`I = diag(I₁, I₁, I₃)`, centre of mass on the
//! symmetry axis, `χ = ±e3`).
//!
//! In the rest frame, with the spatial angular momentum `m = RΠ` and the symmetry axis
//! `p = Rχ`, the Lagrange top reads `ṁ = mgl e3 × p`, `ṗ = (m/I₁) × p`: the axis moves as the
//! spherical top of inertia `I₁`, whatever `I₃`, and the body spins about its axis at the
//! constant rate `(1/I₃ − 1/I₁) Π₃`. A. I. Bobenko and Yu. B. Suris, *Discrete time Lagrangian
//! mechanics on Lie groups, with an application to the Lagrange top*, Comm. Math. Phys. 204
//! (1999) 147–188 (arXiv:solv-int/9810018), discretize it by a discrete Lagrangian on SO(3)
//! whose rest-frame map is
//!
//! ```text
//!     m_{k+1} = m_k + h mgl e3 × p_k,
//!     p_{k+1} − p_k = (h/I₁) m_{k+1} × (p_k + p_{k+1})/2,   i.e.  p_{k+1} = cay(h m_{k+1}/I₁) p_k,
//! ```
//!
//! explicit, Poisson for the Lie–Poisson bracket of `e(3)*` and completely integrable (its
//! integrals deform the Lagrange top's). Read at integer times, that map is a kick by the full
//! step followed by a rotation: first order. [`BobenkoSuris`] steps the same map conjugated by
//! half a kick, `Φ_h = K_{h/2} ∘ Φ_BS ∘ K_{h/2}^{-1}` (`K_τ: m ↦ m + τ mgl e3 × p`), which is
//! the paper's orbit sampled half a kick later: symmetric and of order 2 on `(R, Π)`.
//!
//! Conserved (tests `crates/integrators/tests/bobenko_suris.rs`):
//!
//! * the **axial momentum** `Π₃ = m·p` bit for bit (the kick's third component is
//!   `mgl (Γ × χ)₃ = 0`, the drift rotates `Π` about `e3`);
//! * the **vertical momentum** `e3·RΠ = Π·Γ` (a Casimir of `e(3)*`) and `|Γ| = 1` to round-off;
//! * the **deformed energy** `H̃_h = H(R, Π) − h² (mgl)² |Γ × χ|² / (8 I₁)` to round-off, with
//!   `H = ½ Π·I⁻¹Π + mgl Γ·χ` the energy of [`HeavyTop`]: the paper's map conserves
//!   `|m|²/(2I₁) + mgl e3·p − h mgl e3·(m × p)/(2I₁)` (derived here and checked in the tests),
//!   which the half kick turns into `H̃_h`; `H` itself oscillates with an `O(h²)` amplitude.

use crate::models::HeavyTop;
use geom_core::GeomError;
use geom_core::error::all_finite;
use geom_core::lie::su2;
use geom_core::step::{LieState, OneStep, check_step};
use nalgebra::{Matrix3, Vector3, Vector4};

/// The discrete Lagrange top of Bobenko & Suris (1999, module documentation) as a symmetric,
/// explicit, second-order step of `(R, Π)`: with `Γ = Rᵀe3`, `χ = s e3` (`s = ±1`),
/// `c = s mgl` and the axial rate `κ = 1/I₃ − 1/I₁`,
///
/// ```text
///     Π⁺      = Π_k + ½h mgl Γ_k × χ                      (half kick; Π⁺₃ = Π_k,3)
///     W       = cay(h Π⁺/I₁) · exp(φ ê3),   φ = h κ Π⁺₃      (rest frame: p ↦ cay(h m/I₁) p)
///     R_{k+1} = R_k W,    Π⁻ = Wᵀ Π⁺ = exp(−φ ê3) Π⁺
///     Π_{k+1} = Π⁻ + ½h mgl Γ_{k+1} × χ,   Γ_{k+1} = R_{k+1}ᵀ e3
/// ```
///
/// (`cay(x) = (I − x̂/2)⁻¹(I + x̂/2)` fixes `x`, so `cay(hΠ⁺/I₁)ᵀ Π⁺ = Π⁺`; `W` is computed
/// from the quaternion `(1, hΠ⁺/(2I₁)) ⊗ (cos ½φ, sin ½φ e3)`, and `Π⁻₃` is set to `Π⁺₃`). The
/// drift is the exact time-one flow of the integrable Hamiltonian `G(|Π|) + ½hκ Π₃²`,
/// `G'(s) = 2 arctan(hs/(2I₁))` (the angle of `cay(hΠ/I₁)`; `|Π|` and `Π₃` Poisson-commute), and
/// the kicks are exact flows of the potential: the step is symplectic on `T*SO(3)` and
/// Lie–Poisson on `e(3)*`. It conserves `Π₃` exactly, `e3·RΠ`, `|Γ|` and
/// [`BobenkoSuris::discrete_energy`] to round-off. No Newton, no allocation.
///
/// ```
/// use geom_core::lie::{LieGroup, So3};
/// use geom_core::step::{LieState, OneStep};
/// use integrators::lie_poisson_baselines::BobenkoSuris;
/// use integrators::models::HeavyTop;
/// use nalgebra::{Matrix3, Vector3};
///
/// let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.0, 1.0)), 1.0, Vector3::z())?;
/// let method = BobenkoSuris::new(&top)?;
/// let mut s = LieState::new(So3.exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
/// let (e0, axial) = (method.discrete_energy(&s, 0.05), s.mu[2]);
/// for _ in 0..1000 {
///     method.step(&mut s, 0.05)?;
/// }
/// assert!((method.discrete_energy(&s, 0.05) - e0).abs() < 1e-13 && s.mu[2] == axial);
/// // a top that is not a Lagrange top is refused
/// let euler = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::z())?;
/// assert!(BobenkoSuris::new(&euler).is_err());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BobenkoSuris {
    top: HeavyTop,
    /// `1/I₁`.
    i1_inv: f64,
    /// `κ = 1/I₃ − 1/I₁`.
    axial_rate: f64,
    /// `c = s mgl`: the body torque is `mgl Γ × χ = c (Γ₂, −Γ₁, 0)`.
    c: f64,
}

impl BobenkoSuris {
    /// The scheme for the Lagrange top `top`; [`GeomError::InvalidParameter`] for a heavy top
    /// that is not one: an inertia tensor other than `diag(I₁, I₁, I₃)` in the body frame
    /// (off-diagonal entries or `I₁ ≠ I₂`, compared exactly), or a centre of mass off the
    /// symmetry axis (`χ ≠ ±e3`).
    pub fn new(top: &HeavyTop) -> Result<Self, GeomError> {
        let i = top.inertia();
        if i[(0, 1)] != 0.0 || i[(0, 2)] != 0.0 || i[(1, 2)] != 0.0 || i[(0, 0)] != i[(1, 1)] {
            return Err(GeomError::InvalidParameter {
                what: "inertia",
                reason: format!(
                    "the discrete Lagrange top needs I = diag(I1, I1, I3) (a symmetric top, axis e3), got {:?}",
                    i.as_slice()
                ),
            });
        }
        let chi = top.chi();
        if chi[0] != 0.0 || chi[1] != 0.0 {
            return Err(GeomError::InvalidParameter {
                what: "chi",
                reason: format!(
                    "the discrete Lagrange top needs the centre of mass on the symmetry axis (chi = ±e3), got {:?}",
                    chi.as_slice()
                ),
            });
        }
        // the model's own I⁻¹ (the rounding of its energy and velocity)
        let i1_inv = top.velocity(&Vector3::x())[0];
        let i3_inv = top.velocity(&Vector3::z())[2];
        Ok(Self { top: *top, i1_inv, axial_rate: i3_inv - i1_inv, c: top.mgl() * chi[2] })
    }

    /// The top.
    pub fn top(&self) -> &HeavyTop {
        &self.top
    }

    /// The deformed energy the step conserves, `H̃_h(R, Π) = H(R, Π) − h² (mgl)² |Γ × χ|² / (8 I₁)`
    /// (`H` the energy of [`HeavyTop`], `Γ = Rᵀe3`, `|Γ × χ|² = Γ₁² + Γ₂²`).
    pub fn discrete_energy(&self, state: &LieState<Matrix3<f64>, 3>, h: f64) -> f64 {
        let gamma = HeavyTop::gamma(&state.g);
        let tilt = gamma[0] * gamma[0] + gamma[1] * gamma[1];
        self.top.energy(state) - h * h * self.c * self.c * self.i1_inv * tilt / 8.0
    }

    /// One step from `(R_k, Π_k)`: `(R_{k+1}, Π_{k+1})` (the formula of [`BobenkoSuris`]).
    /// Errors: [`GeomError::InvalidStep`] for `h` zero or not finite, [`GeomError::NonFinite`]
    /// for a non-finite result (a non-finite state).
    #[inline]
    pub fn advance(
        &self,
        r: &Matrix3<f64>,
        pi: &Vector3<f64>,
        h: f64,
    ) -> Result<(Matrix3<f64>, Vector3<f64>), GeomError> {
        check_step(h)?;
        let (r1, pi1) = self.kernel(r, pi, h);
        if !(all_finite(r1.as_slice()) & all_finite(pi1.as_slice())) {
            return Err(GeomError::NonFinite { what: "state after step" });
        }
        Ok((r1, pi1))
    }

    /// The step's formula, unchecked.
    #[inline(always)]
    fn kernel(&self, r: &Matrix3<f64>, pi: &Vector3<f64>, h: f64) -> (Matrix3<f64>, Vector3<f64>) {
        let k = 0.5 * h * self.c;
        let pi_half = Vector3::new(pi[0] + k * r[(2, 1)], pi[1] - k * r[(2, 0)], pi[2]);
        let w = rotation(&(pi_half * (0.5 * h * self.i1_inv)), 0.5 * h * self.axial_rate * pi_half[2]);
        let r1 = r * w;
        let minus = w.tr_mul(&pi_half);
        let pi1 = Vector3::new(minus[0] + k * r1[(2, 1)], minus[1] - k * r1[(2, 0)], pi_half[2]);
        (r1, pi1)
    }
}

/// `W = cay(2y) · exp(2ψ ê3)` from the quaternion `q = (1, y) ⊗ (cos ψ, sin ψ e3) = (q0, v)`,
/// not normalised: `W = I + (2/|q|²)(q0 v̂ + v vᵀ − |v|² I)` ([`su2::rotation_unnormalized`];
/// `cay(x)` has the quaternion
/// `(1, x/2)`). One rotation matrix from one quaternion each step: composing `cay(2y)` with the
/// matrix of the axial rotation, the same every step (`Π₃` is constant), repeats the same rounding
/// of `cos² + sin²` every step, a drift of `|Γ|` of 5e-17 per step (measured), where this one
/// keeps it at round-off.
#[inline]
fn rotation(y: &Vector3<f64>, psi: f64) -> Matrix3<f64> {
    let (s, c) = psi.sin_cos();
    su2::rotation_unnormalized(&Vector4::new(c - y[2] * s, y[0] * c + y[1] * s, y[1] * c - y[0] * s, y[2] * c + s))
}

impl OneStep<LieState<Matrix3<f64>, 3>> for BobenkoSuris {
    fn name(&self) -> String {
        "Bobenko–Suris discrete Lagrange top (Cayley, half-kick symmetric)".into()
    }
    fn order(&self) -> u32 {
        2
    }
    fn is_symmetric(&self) -> bool {
        true
    }
    /// `(R, Π) ↦ (R W, Π_{k+1})`; on an error the state is untouched.
    #[inline]
    fn step(&self, state: &mut LieState<Matrix3<f64>, 3>, h: f64) -> Result<(), GeomError> {
        let (r, pi) = self.advance(&state.g, &state.mu, h)?;
        state.g = r;
        state.mu = pi;
        Ok(())
    }
}
