//! The explicit splitting methods for a separable Hamiltonian at run-time size: Störmer–Verlet,
//! the symplectic Euler pair and the compositions of Störmer–Verlet with merged kicks
//! ([`crate::verlet_composition`]), as a [`OneStep<DynPhaseState>`](OneStep) — the methods of
//! [`crate::classical`] and [`crate::verlet_composition`] when the dimension is known only at
//! run time (an N-body system read from a file, [`DynNBody`]).
//!
//! For `H(q, p) = T(p) + V(q)` the flows of `T` and `V` are exact and explicit: the **kick**
//! `K_τ: p ← p − τ V'(q)` and the **drift** `D_τ: q ← q + τ T'(p)`. A splitting method is a
//! product of kicks and drifts (HLW = Hairer, Lubich & Wanner, *Geometric Numerical
//! Integration*, 2006, §II.5, §V.3), symplectic as every factor is:
//!
//! ```text
//!   symplectic Euler A:  Φ_h = D_h ∘ K_h           (p₁ = p − h V'(q),  q₁ = q + h T'(p₁))
//!   symplectic Euler B:  Φ_h = K_h ∘ D_h           (q₁ = q + h T'(p),  p₁ = p − h V'(q₁))
//!   Störmer–Verlet:      Φ_h = K_{h/2} ∘ D_h ∘ K_{h/2}
//!   composition Ψ_h = Φ_{γ_s h} ∘ … ∘ Φ_{γ_1 h} of Störmer–Verlet, kicks merged (K_a ∘ K_b = K_{a+b}):
//!                        Ψ_h = K_{k_s h} ∘ D_{γ_s h} ∘ … ∘ K_{k_1 h} ∘ D_{γ_1 h} ∘ K_{k_0 h},
//!                        k_0 = γ_1/2,  k_i = (γ_i + γ_{i+1})/2,  k_s = γ_s/2.
//! ```
//!
//! The arithmetic is that of [`crate::classical::StormerVerlet`],
//! [`SymplecticEulerA`](crate::classical::SymplecticEulerA)/[`B`](crate::classical::SymplecticEulerB)
//! and [`crate::verlet_composition::VerletComposition`] on `PhaseState<N>` (`p − V'(q)·(c h)`,
//! `q + T'(p)·(c h)`), so for a Hamiltonian that computes `T'` and `V'` as its compiled-size
//! counterpart does ([`DynNBody`] and [`geom_core::pairwise::NBody`]) both give the same bits.
//!
//! The Hamiltonian is a [`DynSeparable`]: the dimension and `T'(p)`, `V'(q)` written into the
//! caller's buffers. A step works on scratch buffers that the method keeps (allocated at the
//! first step, reused after: no heap allocation per step), and writes the state back only when
//! every entry is finite; [`OneStep::step_n`] evaluates the force once per step when the method
//! ends and starts with a kick (Störmer–Verlet and its compositions: the force at the end of a
//! step is the one at the start of the next), with the same bits as `n` calls of
//! [`OneStep::step`].
//!
//! ```
//! use geom_core::pairwise::{DynGravity, DynNBody};
//! use geom_core::step::{DynPhaseState, OneStep};
//! use integrators::separable_dyn::DynSplitting;
//!
//! // a unit mass and a light body on a circular orbit of radius 1 in the plane, G = 1
//! let masses = [1.0, 1e-6];
//! let h = DynNBody::<_, 2>::new(&masses, DynGravity::new(1.0, &masses)?)?;
//! let mut s = DynPhaseState::from_slices(&[0.0, 0.0, 1.0, 0.0], &[0.0, -1e-6, 0.0, 1e-6])?;
//! let e0 = h.energy(s.q.as_slice(), s.p.as_slice());
//! let method = DynSplitting::stormer_verlet(h.clone());
//! method.step_n(&mut s, 0.01, 628)?; // about one orbit
//! assert!((s.q[2] - 1.0).abs() < 1e-3 && s.q[3].abs() < 1e-2);
//! assert!((h.energy(s.q.as_slice(), s.p.as_slice()) - e0).abs() < 1e-9);
//! # Ok::<(), geom_core::GeomError>(())
//! ```

use discretization::CompositionScheme;
use geom_core::GeomError;
use geom_core::pairwise::{DynNBody, PairFunction};
use geom_core::step::{DynPhaseState, OneStep, check_step};
use std::sync::{Mutex, TryLockError};

/// A separable Hamiltonian `H(q, p) = T(p) + V(q)` on `T*R^n` with `n` known at run time,
/// through the derivatives a splitting method needs, written into the caller's buffers (of
/// length [`dim`](Self::dim); nothing to allocate).
pub trait DynSeparable: Send + Sync {
    /// The dimension `n` of `q` and `p`.
    fn dim(&self) -> usize;
    /// `T'(p)` into `out` (the drift's velocity).
    fn kinetic_gradient(&self, p: &[f64], out: &mut [f64]);
    /// `V'(q)` into `out` (the kick's force, with the sign of the gradient).
    fn potential_gradient(&self, q: &[f64], out: &mut [f64]);
}

/// `T'(p)_k = p_k / m_k`, `V'(q)` the pairwise force gradient.
impl<F: PairFunction, const D: usize> DynSeparable for DynNBody<F, D> {
    #[inline]
    fn dim(&self) -> usize {
        DynNBody::dim(self)
    }
    #[inline]
    fn kinetic_gradient(&self, p: &[f64], out: &mut [f64]) {
        self.velocity(p, out);
    }
    #[inline]
    fn potential_gradient(&self, q: &[f64], out: &mut [f64]) {
        self.force_gradient(q, out);
    }
}

impl<H: DynSeparable + ?Sized> DynSeparable for &H {
    fn dim(&self) -> usize {
        (**self).dim()
    }
    fn kinetic_gradient(&self, p: &[f64], out: &mut [f64]) {
        (**self).kinetic_gradient(p, out)
    }
    fn potential_gradient(&self, q: &[f64], out: &mut [f64]) {
        (**self).potential_gradient(q, out)
    }
}

/// One factor of a splitting method, with its coefficient (times `h`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Flow {
    /// `p ← p − c h V'(q)`.
    Kick(f64),
    /// `q ← q + c h T'(p)`.
    Drift(f64),
}

/// An explicit splitting method (module documentation) for the separable Hamiltonian `H` at
/// run-time size, a [`OneStep<DynPhaseState>`](OneStep).
#[derive(Debug)]
pub struct DynSplitting<H> {
    hamiltonian: H,
    /// The kicks and drifts, first applied first.
    flows: Vec<Flow>,
    name: String,
    order: u32,
    symmetric: bool,
    /// `q, p, V'(q), T'(p)`, `4n` words, reused from step to step (a clone starts empty).
    scratch: Mutex<Vec<f64>>,
}

impl<H: Clone> Clone for DynSplitting<H> {
    fn clone(&self) -> Self {
        Self {
            hamiltonian: self.hamiltonian.clone(),
            flows: self.flows.clone(),
            name: self.name.clone(),
            order: self.order,
            symmetric: self.symmetric,
            scratch: Mutex::new(Vec::new()),
        }
    }
}

impl<H> DynSplitting<H> {
    fn with(hamiltonian: H, flows: Vec<Flow>, name: String, order: u32, symmetric: bool) -> Self {
        Self { hamiltonian, flows, name, order, symmetric, scratch: Mutex::new(Vec::new()) }
    }

    /// Störmer–Verlet `Φ_h = K_{h/2} ∘ D_h ∘ K_{h/2}` (order 2, symmetric).
    pub fn stormer_verlet(hamiltonian: H) -> Self {
        let flows = vec![Flow::Kick(0.5), Flow::Drift(1.0), Flow::Kick(0.5)];
        Self::with(hamiltonian, flows, "Störmer–Verlet".into(), 2, true)
    }

    /// Symplectic Euler A `Φ_h = D_h ∘ K_h`: `p₁ = p − h V'(q)`, `q₁ = q + h T'(p₁)` (order 1).
    pub fn symplectic_euler_a(hamiltonian: H) -> Self {
        Self::with(hamiltonian, vec![Flow::Kick(1.0), Flow::Drift(1.0)], "symplectic Euler A".into(), 1, false)
    }

    /// Symplectic Euler B `Φ_h = K_h ∘ D_h`: `q₁ = q + h T'(p)`, `p₁ = p − h V'(q₁)` (order 1).
    pub fn symplectic_euler_b(hamiltonian: H) -> Self {
        Self::with(hamiltonian, vec![Flow::Drift(1.0), Flow::Kick(1.0)], "symplectic Euler B".into(), 1, false)
    }

    /// The composition of Störmer–Verlet by `scheme` with merged kicks (module documentation),
    /// of the scheme's order, symmetric; the same coefficients as
    /// [`VerletComposition::new`](crate::verlet_composition::VerletComposition::new).
    ///
    /// # Errors
    ///
    /// [`GeomError::InvalidParameter`] if the scheme has no stage or adjoint stages
    /// (Störmer–Verlet is symmetric: use base stages).
    pub fn composition(hamiltonian: H, scheme: CompositionScheme) -> Result<Self, GeomError> {
        if scheme.stages.is_empty() {
            return Err(GeomError::InvalidParameter { what: "composition scheme", reason: "no stages".into() });
        }
        if scheme.uses_adjoint() {
            return Err(GeomError::InvalidParameter {
                what: "composition scheme",
                reason: format!(
                    "{} needs the adjoint method: Störmer–Verlet is symmetric, use base stages",
                    scheme.name
                ),
            });
        }
        let drifts: Vec<f64> = scheme.stages.iter().map(|s| s.coefficient()).collect();
        let s = drifts.len();
        let mut flows = vec![Flow::Kick(0.5 * drifts[0])];
        for (i, gamma) in drifts.iter().enumerate() {
            flows.push(Flow::Drift(*gamma));
            flows.push(Flow::Kick(if i + 1 == s { 0.5 * drifts[s - 1] } else { 0.5 * (drifts[i] + drifts[i + 1]) }));
        }
        Ok(Self::with(hamiltonian, flows, format!("{} of Störmer–Verlet", scheme.name), scheme.order, true))
    }

    /// The Hamiltonian.
    pub fn hamiltonian(&self) -> &H {
        &self.hamiltonian
    }
}

impl<H: DynSeparable> DynSplitting<H> {
    /// `steps` steps of size `h` on scratch copies of `state`, written back if every step
    /// ends finite (the state is checked after each step, as `steps` calls of
    /// [`OneStep::step`] would). The force `V'(q)` of a kick is reused by a kick that follows it
    /// with no drift in between (the next step's first kick): the same bits as evaluating it
    /// again.
    fn advance(&self, state: &mut DynPhaseState, h: f64, steps: usize) -> Result<(), GeomError> {
        check_step(h)?;
        let n = self.hamiltonian.dim();
        for (what, got) in [("q", state.q.len()), ("p", state.p.len())] {
            if got != n {
                return Err(GeomError::DimensionMismatch { what, expected: n, got });
            }
        }
        let mut local = Vec::new();
        let mut guard = match self.scratch.try_lock() {
            Ok(guard) => Some(guard),
            // the buffers are overwritten before use: a panic in an earlier step left nothing
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
            // another thread is stepping with this method: buffers of its own for this call
            Err(TryLockError::WouldBlock) => None,
        };
        let buffer = guard.as_deref_mut().unwrap_or(&mut local);
        if buffer.len() < 4 * n {
            buffer.resize(4 * n, 0.0);
        }
        let (q, rest) = buffer[..4 * n].split_at_mut(n);
        let (p, rest) = rest.split_at_mut(n);
        let (force, velocity) = rest.split_at_mut(n);
        q.copy_from_slice(state.q.as_slice());
        p.copy_from_slice(state.p.as_slice());
        let mut force_at_q = false;
        for _ in 0..steps {
            for flow in &self.flows {
                match *flow {
                    Flow::Kick(c) => {
                        if !force_at_q {
                            self.hamiltonian.potential_gradient(q, force);
                            force_at_q = true;
                        }
                        let c = c * h;
                        for (pk, gk) in p.iter_mut().zip(force.iter()) {
                            *pk -= gk * c;
                        }
                    }
                    Flow::Drift(c) => {
                        self.hamiltonian.kinetic_gradient(p, velocity);
                        let c = c * h;
                        for (qk, vk) in q.iter_mut().zip(velocity.iter()) {
                            *qk += vk * c;
                        }
                        force_at_q = false;
                    }
                }
            }
            if !finite(q, p) {
                return Err(GeomError::NonFinite { what: "state after step" });
            }
        }
        state.q.as_mut_slice().copy_from_slice(q);
        state.p.as_mut_slice().copy_from_slice(p);
        Ok(())
    }
}

/// Whether every entry of `q` and `p` is finite (branch-free: `Σ 0·x = 0` exactly then).
#[inline]
fn finite(q: &[f64], p: &[f64]) -> bool {
    let zero = |v: &[f64]| v.iter().fold(0.0, |acc, x| acc + 0.0 * x);
    zero(q) + zero(p) == 0.0
}

impl<H: DynSeparable> OneStep<DynPhaseState> for DynSplitting<H> {
    fn name(&self) -> String {
        format!("{} (explicit, separable H, run-time size)", self.name)
    }
    fn order(&self) -> u32 {
        self.order
    }
    fn is_symmetric(&self) -> bool {
        self.symmetric
    }
    /// One step on the method's scratch buffers; the state changes only if the new one is
    /// finite ([`GeomError::InvalidStep`] for `h` not finite or zero,
    /// [`GeomError::DimensionMismatch`] for a state not of the Hamiltonian's dimension).
    fn step(&self, state: &mut DynPhaseState, h: f64) -> Result<(), GeomError> {
        self.advance(state, h, 1)
    }
    /// `n` steps with one force evaluation per step for Störmer–Verlet and its compositions
    /// (module documentation); bit for bit `n` calls of [`step`](Self::step), all or nothing.
    fn step_n(&self, state: &mut DynPhaseState, h: f64, n: usize) -> Result<(), GeomError> {
        self.advance(state, h, n)
    }
}
