//! Pairwise potentials of `B` bodies in `R^D` and the mass-weighted kinetic energy: the N-body
//! Hamiltonian `H(q, p) = Σ_i |p_i|²/(2 m_i) + Σ_{i<j} φ_ij(|q_i − q_j|)` with exact first and
//! second derivatives, at the cost of a hand-written loop.
//!
//! The state is `q ∈ R^N`, `N = B·D`, body `i` at rows `D·i .. D·i + D` (and `p` alike). Because
//! `B·D` is not a const-generic expression on stable Rust, the types take `N` and `D` as const
//! parameters and `B = N / D`; the constructors check that `D ≥ 1` and that `D` divides `N`, and
//! report a [`GeomError`] otherwise.
//!
//! The user writes the **scalar** pair function `φ_ij(r)` once, generic over the [`Scalar`]
//! ([`PairFunction`]). Automatic differentiation is applied to that one-variable function only
//! (one [`Dual64`] evaluation per pair for the gradient, one [`Dual2_64`] for the Hessian) and
//! the chain rule through `r_ij = |q_i − q_j|` gives the derivatives of `V` (Hairer, Lubich &
//! Wanner, *Geometric Numerical Integration*, 2006, §I.2.4 for the model; the formulas are those
//! of any molecular-dynamics code):
//!
//! ```text
//!   V(q)        = Σ_{i<j} φ_ij(r_ij),                 r_ij = |q_i − q_j|
//!   ∂V/∂q_i     = Σ_{j≠i} φ'_ij(r_ij) (q_i − q_j) / r_ij
//!   ∂²V/∂q_i∂q_i ⊇ K_ij,   ∂²V/∂q_i∂q_j = −K_ij,     K_ij = φ'' u uᵀ + (φ'/r)(I − u uᵀ),
//!                                                    u = (q_i − q_j)/r
//! ```
//!
//! (`∂²V/∂q_i²` is the sum of `K_ij` over `j ≠ i`). Newton's third law `Σ_i ∂V/∂q_i = 0` and the
//! translation invariance of `V` hold by construction.
//!
//! Nothing is allocated: every method works on fixed-size arrays on the stack, and the loops
//! run over the `B(B−1)/2` pairs with `B`, `D` known at compile time.
//!
//! **Run-time size.** When the number of bodies is known only at run time (a system read from
//! a file), [`DynNBody<F, D>`](DynNBody) is the same Hamiltonian on slices of length `B·D`,
//! for the same [`PairFunction`] (e.g. [`DynGravity`], gravity with the masses in a `Vec`): its
//! potential and force run the very loops of [`Pairwise`] (one kernel, inlined into the
//! compiled size, where `B` is a constant), so both sizes give the same bits, and write the
//! derivatives into the caller's buffers (no allocation after construction). The explicit
//! splitting methods of `integrators::separable_dyn` integrate it.
//!
//! ```
//! use geom_core::function::{PhaseSpaceDerivatives, ScalarDerivatives};
//! use geom_core::pairwise::{self, Gravity, PairFunction, Pairwise};
//! use geom_core::Scalar;
//! use nalgebra::SVector;
//!
//! // Newtonian gravity of three bodies in the plane, as one Hamiltonian:
//! let h = pairwise::gravity::<6, 2, 3>(1.0, [1.0, 1e-3, 1e-6])?;
//! assert!(h.is_separable());
//! let q = SVector::from([0.0, 0.0, 1.0, 0.0, 0.0, 2.0]);
//! let p = SVector::from([0.0, 0.0, 0.0, 1e-3, 0.0, 0.0]);
//! let (hq, hp) = h.gradient(&q, &p);
//! assert!((hq[0] + hq[2] + hq[4]).abs() < 1e-18); // Newton's third law
//! assert_eq!(hp[3], 1.0); // p / m
//!
//! // Any other pair function, written once over the scalar: a spring of rest length 1.
//! struct Spring;
//! impl PairFunction for Spring {
//!     fn eval<S: Scalar>(&self, _i: usize, _j: usize, r: S) -> S {
//!         (r - S::from(1.0)) * (r - S::from(1.0)) * S::from(0.5)
//!     }
//! }
//! let v = Pairwise::<_, 4, 2>::new(Spring)?;
//! let g = v.gradient(&SVector::from([0.0, 0.0, 3.0, 0.0]));
//! assert_eq!(g, SVector::from([-2.0, 0.0, 2.0, 0.0]));
//! # Ok::<(), geom_core::GeomError>(())
//! ```

use crate::function::{Derivatives, ScalarDerivatives, ScalarFunction, Separable};
use crate::{GeomError, Result, Scalar};
use nalgebra::{ArrayStorage, SMatrix, SVector};
use num_dual::{Dual2_64, Dual64};

/// A pair interaction `φ_ij(r)` of bodies `i < j` at distance `r > 0`, written once over the
/// scalar. It may depend on the pair (e.g. through masses: gravity is `φ_ij(r) = −G m_i m_j / r`,
/// [`Gravity`]). [`Pairwise`] evaluates it at `f64` for `V`, at [`Dual64`] for `φ'` and at
/// [`Dual2_64`] for `φ''`, and is only ever called with `i < j < B`.
pub trait PairFunction: Send + Sync {
    /// `φ_ij(r)`, for `i < j`.
    fn eval<S: Scalar>(&self, i: usize, j: usize, r: S) -> S;

    /// The number of bodies `B` the function is defined for (e.g. the length of its mass
    /// table), or `None` if it takes any `i < j` (the default). [`Pairwise::new`] checks it
    /// against `N / D`.
    fn bodies(&self) -> Option<usize> {
        None
    }
}

/// `B = N / D` if `D ≥ 1` divides `N`, else why not.
const fn bodies<const N: usize, const D: usize>() -> std::result::Result<usize, &'static str> {
    if D == 0 {
        Err("the dimension D of a body must be at least 1")
    } else if !N.is_multiple_of(D) {
        Err("the state dimension N must be a multiple of the dimension D of a body")
    } else {
        Ok(N / D)
    }
}

/// [`bodies`] as a [`GeomError::InvalidParameter`].
fn checked_bodies<const N: usize, const D: usize>() -> Result<usize> {
    bodies::<N, D>().map_err(|reason| GeomError::InvalidParameter {
        what: "N, D (bodies × dimension)",
        reason: format!("{reason} (N = {N}, D = {D})"),
    })
}

/// `Ok` if every mass is finite and positive.
const fn check_masses(masses: &[f64]) -> std::result::Result<(), &'static str> {
    let mut i = 0;
    while i < masses.len() {
        if !(masses[i].is_finite() && masses[i] > 0.0) {
            return Err("every mass must be finite and positive");
        }
        i += 1;
    }
    Ok(())
}

/// The coordinates `q_i` of body `i` (rows `D·i .. D·i + D`).
#[inline(always)]
fn body<const N: usize, const D: usize>(x: &[f64; N], i: usize) -> [f64; D] {
    std::array::from_fn(|k| x[D * i + k])
}

/// The offset `d = q_i − q_j` of two bodies and its squared length `|d|²`.
#[inline(always)]
fn offset<const D: usize>(xi: &[f64; D], xj: &[f64]) -> ([f64; D], f64) {
    let mut d = [0.0; D];
    let mut r2 = 0.0;
    for k in 0..D {
        d[k] = xi[k] - xj[k];
        r2 += d[k] * d[k];
    }
    (d, r2)
}

/// `V(q) = Σ_{i<j} φ_ij(|q_i − q_j|)` of the `B = q.len() / D` bodies of `q`: the one loop of
/// [`Pairwise`] (compiled size, always inlined so that `B` is a constant there) and
/// [`DynNBody`] (run-time size).
#[inline(always)]
fn pair_potential<F: PairFunction, const D: usize>(phi: &F, x: &[f64]) -> f64 {
    let mut v = 0.0;
    for i in 0..x.len() / D {
        let (xi, others) = split_body::<D>(x, i);
        for (j, xj) in (i + 1..).zip(others.chunks_exact(D)) {
            v += phi.eval(i, j, offset(&xi, xj).1.sqrt());
        }
    }
    v
}

/// `∇V(q)` added into `g` (of the length of `q`, normally zero on entry):
/// `∂V/∂q_i = Σ_{j≠i} (φ'_ij(r_ij)/r_ij)(q_i − q_j)`, `φ'/r` the derivative part of `φ` at
/// `Dual64(r, 1/r)`. Row `i` accumulates its own terms `f = (φ'/r)(q_i − q_j)` over `j > i` in
/// registers and subtracts each from body `j` in place (no bounds check or copy in the pair
/// loop). The one loop of [`Pairwise`] and [`DynNBody`], so both give the same bits.
#[inline(always)]
fn pair_gradient<F: PairFunction, const D: usize>(phi: &F, x: &[f64], g: &mut [f64]) {
    for i in 0..x.len() / D {
        let (xi, others) = split_body::<D>(x, i);
        let mut gi = [0.0; D];
        let forces = g.get_mut(D * (i + 1)..).unwrap_or_default().chunks_exact_mut(D);
        for (j, (xj, gj)) in (i + 1..).zip(others.chunks_exact(D).zip(forces)) {
            let (d, r2) = offset(&xi, xj);
            let r = r2.sqrt();
            let c = phi.eval(i, j, Dual64::new(r, 1.0 / r)).eps;
            for k in 0..D {
                let f = c * d[k];
                gi[k] += f;
                gj[k] -= f;
            }
        }
        for (k, gik) in gi.iter().enumerate() {
            g[D * i + k] += gik;
        }
    }
}

/// Body `i` of `x` (rows `D·i .. D·i + D`) and the bodies after it.
#[inline(always)]
fn split_body<const D: usize>(x: &[f64], i: usize) -> ([f64; D], &[f64]) {
    (std::array::from_fn(|k| x[D * i + k]), x.get(D * (i + 1)..).unwrap_or_default())
}

// ------------------------------------------------------------------------------------------------

/// The pairwise potential `V(q) = Σ_{i<j} φ_ij(|q_i − q_j|)` of `B = N / D` bodies in `R^D`
/// (`q ∈ R^N`, body `i` at rows `D·i .. D·i + D`), with the derivatives of the module
/// documentation: `∂V/∂q_i = Σ_{j≠i} φ'_ij(r_ij) (q_i − q_j)/r_ij` and the Hessian blocks
/// `±(φ'' u uᵀ + (φ'/r)(I − u uᵀ))`.
///
/// It implements [`ScalarDerivatives<N>`] (AD of the scalar `φ` only, chain rule by hand) and
/// [`ScalarFunction<N>`] (the same `V` written over the scalar, so that the chain rule can be
/// checked against full AD with [`crate::function::check_scalar_against_ad`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pairwise<F, const N: usize, const D: usize> {
    phi: F,
}

impl<F: PairFunction, const N: usize, const D: usize> Pairwise<F, N, D> {
    /// `B = N / D`, the number of bodies (0 if `D = 0`, which [`Pairwise::new`] rejects).
    pub const BODIES: usize = match N.checked_div(D) {
        Some(b) => b,
        None => 0,
    };

    /// `V(q) = Σ_{i<j} φ_ij(|q_i − q_j|)` for the pair function `phi`.
    ///
    /// # Errors
    ///
    /// [`GeomError::InvalidParameter`] if `D = 0` or `D` does not divide `N`;
    /// [`GeomError::DimensionMismatch`] if `phi` is defined for a number of bodies
    /// ([`PairFunction::bodies`]) other than `N / D`.
    pub fn new(phi: F) -> Result<Self> {
        let b = checked_bodies::<N, D>()?;
        match phi.bodies() {
            Some(got) if got != b => {
                Err(GeomError::DimensionMismatch { what: "bodies of the pair function", expected: b, got })
            }
            _ => Ok(Self { phi }),
        }
    }

    /// The pair function `φ`.
    pub fn phi(&self) -> &F {
        &self.phi
    }
}

impl<F: PairFunction, const N: usize, const D: usize> ScalarDerivatives<N> for Pairwise<F, N, D> {
    /// `V(q) = Σ_{i<j} φ_ij(r_ij)` (the loop of [`DynNBody::potential`], one private kernel).
    #[inline]
    fn value(&self, q: &SVector<f64, N>) -> f64 {
        pair_potential::<F, D>(&self.phi, q.as_slice())
    }

    /// `∂V/∂q_i = Σ_{j≠i} (φ'_ij(r)/r) (q_i − q_j)` (the loop of
    /// [`DynNBody::force_gradient`]). The factor `φ'/r` is the derivative part of `φ` evaluated
    /// at the dual number `r + ε/r` (one `Dual64` pass per pair, and no second division when `φ`
    /// computes `1/r`, as gravity does: the compiler shares it). Always inlined, so that the
    /// integrator's kick fuses with it (and the slice lengths of the kernel are the constant
    /// `N`).
    #[inline(always)]
    fn gradient(&self, q: &SVector<f64, N>) -> SVector<f64, N> {
        let mut out = SVector::<f64, N>::zeros();
        pair_gradient::<F, D>(&self.phi, q.as_slice(), out.as_mut_slice());
        out
    }

    /// [`gradient_and_hessian`](Self::gradient_and_hessian)`.1`.
    fn hessian(&self, q: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.gradient_and_hessian(q).1
    }

    /// `(∇V, ∇²V)` from one `Dual2_64` evaluation `(φ, φ', φ'')` per pair: with `d = q_i − q_j`,
    /// `a = φ'/r`, `b = (φ'' − a)/r²`, the block `K = b d dᵀ + a I` is added at `(i, i)` and
    /// `(j, j)` and subtracted at `(i, j)` and `(j, i)`, and `a d` is the pair's gradient.
    fn gradient_and_hessian(&self, q: &SVector<f64, N>) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        let x = &q.data.0[0];
        let mut g = [0.0; N];
        // column-major, as `ArrayStorage`: `h[column][row]` (the matrix is symmetric anyway)
        let mut h = [[0.0; N]; N];
        for i in 0..Self::BODIES {
            let xi = body::<N, D>(x, i);
            for (j, xj) in (i + 1..).zip(x.get(D * (i + 1)..).unwrap_or_default().chunks_exact(D)) {
                let (d, r2) = offset(&xi, xj);
                let r = r2.sqrt();
                let inv = 1.0 / r;
                let y = self.phi.eval(i, j, Dual2_64::new(r, 1.0, 0.0));
                let a = y.v1 * inv;
                let b = (y.v2 - a) * inv * inv;
                for k in 0..D {
                    let f = a * d[k];
                    g[D * i + k] += f;
                    g[D * j + k] -= f;
                    for l in 0..D {
                        let e = if k == l { b * (d[k] * d[l]) + a } else { b * (d[k] * d[l]) };
                        h[D * i + l][D * i + k] += e;
                        h[D * j + l][D * j + k] += e;
                        h[D * j + l][D * i + k] -= e;
                        h[D * i + l][D * j + k] -= e;
                    }
                }
            }
        }
        (SVector::from_array_storage(ArrayStorage([g])), SMatrix::from_array_storage(ArrayStorage(h)))
    }
}

impl<F: PairFunction, const N: usize, const D: usize> ScalarFunction<N> for Pairwise<F, N, D> {
    /// `V(q) = Σ_{i<j} φ_ij(|q_i − q_j|)` over any scalar (for full AD of `V`, e.g. to check
    /// the chain rule of [`ScalarDerivatives`]).
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, N>) -> S {
        let mut v = S::from(0.0);
        for i in 0..Self::BODIES {
            for j in i + 1..Self::BODIES {
                let mut r2 = S::from(0.0);
                for k in 0..D {
                    let d = q[D * i + k] - q[D * j + k];
                    r2 += d * d;
                }
                v += self.phi.eval(i, j, r2.sqrt());
            }
        }
        v
    }
}

// ------------------------------------------------------------------------------------------------

/// Newtonian gravity `φ_ij(r) = −G m_i m_j / r` between `B` bodies of masses `m`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gravity<const B: usize> {
    g: f64,
    masses: [f64; B],
    /// `G m_i`.
    gm: [f64; B],
}

impl<const B: usize> Gravity<B> {
    /// `φ_ij(r) = −G m_i m_j / r`.
    ///
    /// # Errors
    ///
    /// [`GeomError::InvalidParameter`] if `G` or a mass is not finite and positive.
    pub fn new(g: f64, masses: [f64; B]) -> Result<Self> {
        Self::checked(g, masses)
            .map_err(|reason| GeomError::InvalidParameter { what: "gravity (G, masses)", reason: reason.to_string() })
    }

    /// [`Gravity::new`] as a `const fn`, with the reason of a rejection as a `&'static str`: in
    /// a `const` item, invalid constant data are a compile-time error.
    pub const fn checked(g: f64, masses: [f64; B]) -> std::result::Result<Self, &'static str> {
        if !(g.is_finite() && g > 0.0) {
            return Err("the gravitational constant G must be finite and positive");
        }
        if let Err(reason) = check_masses(&masses) {
            return Err(reason);
        }
        let mut gm = [0.0; B];
        let mut i = 0;
        while i < B {
            gm[i] = g * masses[i];
            i += 1;
        }
        Ok(Self { g, masses, gm })
    }

    /// The gravitational constant `G`.
    pub fn g(&self) -> f64 {
        self.g
    }

    /// The masses `m_i`.
    pub fn masses(&self) -> &[f64; B] {
        &self.masses
    }
}

impl<const B: usize> PairFunction for Gravity<B> {
    /// `φ_ij(r) = −G m_i m_j / r`, as `(1/r)·(−(G m_i) m_j)` (`NaN` for an index outside
    /// `0..B`, never a panic).
    #[inline(always)]
    fn eval<S: Scalar>(&self, i: usize, j: usize, r: S) -> S {
        newton(&self.gm, &self.masses, i, j, r)
    }

    fn bodies(&self) -> Option<usize> {
        Some(B)
    }
}

/// `φ_ij(r) = −G m_i m_j / r` as `(1/r)·(−(G m_i) m_j)` from the tables `G m_i` and `m_j`
/// (`NaN` for an index outside them): the one formula of [`Gravity`] and [`DynGravity`].
#[inline(always)]
fn newton<S: Scalar>(gm: &[f64], masses: &[f64], i: usize, j: usize, r: S) -> S {
    let gm_i = gm.get(i).copied().unwrap_or(f64::NAN);
    let m_j = masses.get(j).copied().unwrap_or(f64::NAN);
    r.recip() * -(gm_i * m_j)
}

// ------------------------------------------------------------------------------------------------

/// The kinetic energy `T(p) = Σ_i |p_i|² / (2 m_i)` of `B = N / D` bodies in `R^D`, with exact
/// derivatives `∂T/∂p_i = p_i / m_i` and `∇²T = diag(1/m_i ⊗ I_D)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MassKinetic<const N: usize, const D: usize> {
    /// `1/m_i` repeated for the `D` coordinates of body `i`.
    inverse: SVector<f64, N>,
}

impl<const N: usize, const D: usize> MassKinetic<N, D> {
    /// `T(p) = Σ_i |p_i|²/(2 m_i)` for the masses `m_0 .. m_{B−1}`.
    ///
    /// # Errors
    ///
    /// [`GeomError::InvalidParameter`] if `D = 0`, `D` does not divide `N` or a mass is not
    /// finite and positive; [`GeomError::DimensionMismatch`] if there are not `N / D` masses.
    pub fn new(masses: &[f64]) -> Result<Self> {
        let b = checked_bodies::<N, D>()?;
        if masses.len() != b {
            return Err(GeomError::DimensionMismatch { what: "masses", expected: b, got: masses.len() });
        }
        check_masses(masses)
            .map_err(|reason| GeomError::InvalidParameter { what: "masses", reason: reason.to_string() })?;
        Ok(Self { inverse: SVector::from_fn(|k, _| 1.0 / masses[k / D]) })
    }

    /// [`MassKinetic::new`] as a `const fn` for `B` masses, with the reason of a rejection as a
    /// `&'static str`: in a `const` item, invalid constant data are a compile-time error.
    pub const fn checked<const B: usize>(masses: [f64; B]) -> std::result::Result<Self, &'static str> {
        match bodies::<N, D>() {
            Ok(b) if b == B => {}
            Ok(_) => return Err("the number of masses must be N / D"),
            Err(reason) => return Err(reason),
        }
        if let Err(reason) = check_masses(&masses) {
            return Err(reason);
        }
        let mut inverse = [0.0; N];
        let mut k = 0;
        while k < N {
            inverse[k] = 1.0 / masses[k / D];
            k += 1;
        }
        Ok(Self { inverse: SVector::from_array_storage(ArrayStorage([inverse])) })
    }

    /// `1/m_i` for every coordinate (body `i`'s at rows `D·i .. D·i + D`).
    pub fn inverse_masses(&self) -> &SVector<f64, N> {
        &self.inverse
    }
}

impl<const N: usize, const D: usize> ScalarDerivatives<N> for MassKinetic<N, D> {
    /// `T(p) = ½ Σ_k p_k² / m_k`.
    #[inline]
    fn value(&self, p: &SVector<f64, N>) -> f64 {
        0.5 * p.component_mul(p).dot(&self.inverse)
    }
    /// `∂T/∂p_k = p_k / m_k`.
    #[inline]
    fn gradient(&self, p: &SVector<f64, N>) -> SVector<f64, N> {
        p.component_mul(&self.inverse)
    }
    /// `∇²T = diag(1/m_k)`.
    fn hessian(&self, _p: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        SMatrix::from_diagonal(&self.inverse)
    }
}

impl<const N: usize, const D: usize> ScalarFunction<N> for MassKinetic<N, D> {
    /// `T(p) = Σ_k p_k² / (2 m_k)` over any scalar.
    #[inline]
    fn eval<S: Scalar>(&self, p: &SVector<S, N>) -> S {
        p.iter().zip(self.inverse.iter()).fold(S::from(0.0), |acc, (&pk, &w)| acc + pk * pk * S::from(0.5 * w))
    }
}

// ------------------------------------------------------------------------------------------------

/// The N-body Hamiltonian `H(q, p) = Σ_i |p_i|²/(2 m_i) + Σ_{i<j} φ_ij(|q_i − q_j|)`: a
/// [`Separable`] `T(p) + V(q)` with exact derivatives ([`MassKinetic`], [`Pairwise`]), so
/// symplectic Euler and Störmer–Verlet take their explicit paths.
pub type NBody<F, const N: usize, const D: usize> =
    Separable<Derivatives<MassKinetic<N, D>>, Derivatives<Pairwise<F, N, D>>>;

/// `H(q, p) = Σ_i |p_i|²/(2 m_i) + Σ_{i<j} φ_ij(|q_i − q_j|)` for the masses `m` and the pair
/// function `phi`.
///
/// # Errors
///
/// Those of [`MassKinetic::new`] and [`Pairwise::new`].
pub fn n_body<F: PairFunction, const N: usize, const D: usize>(masses: &[f64], phi: F) -> Result<NBody<F, N, D>> {
    Ok(Separable::from_derivatives(MassKinetic::new(masses)?, Pairwise::new(phi)?))
}

/// The gravitational N-body Hamiltonian
/// `H(q, p) = Σ_i |p_i|²/(2 m_i) − G Σ_{i<j} m_i m_j / |q_i − q_j|` of `B = N / D` bodies.
///
/// # Errors
///
/// [`GeomError::InvalidParameter`] if `D = 0`, `N ≠ B·D`, or `G` or a mass is not finite and
/// positive.
pub fn gravity<const N: usize, const D: usize, const B: usize>(
    g: f64,
    masses: [f64; B],
) -> Result<NBody<Gravity<B>, N, D>> {
    gravity_checked(g, masses).map_err(|reason| GeomError::InvalidParameter {
        what: "gravitational N-body system (N, D, G, masses)",
        reason: format!("{reason} (N = {N}, D = {D}, B = {B})"),
    })
}

/// [`gravity`] as a `const fn`, with the reason of a rejection as a `&'static str`: in a `const`
/// item, invalid constant data (including `N ≠ B·D`) are a compile-time error.
///
/// ```
/// use geom_core::pairwise::{gravity_checked, Gravity, NBody};
///
/// const SUN_EARTH: NBody<Gravity<2>, 6, 3> = match gravity_checked(1.0, [1.0, 3e-6]) {
///     Ok(h) => h,
///     Err(reason) => panic!("{}", reason), // a compile-time error, never a run-time panic
/// };
/// assert_eq!(SUN_EARTH.potential.0.phi().masses()[1], 3e-6);
/// ```
pub const fn gravity_checked<const N: usize, const D: usize, const B: usize>(
    g: f64,
    masses: [f64; B],
) -> std::result::Result<NBody<Gravity<B>, N, D>, &'static str> {
    let kinetic = match MassKinetic::<N, D>::checked(masses) {
        Ok(t) => t,
        Err(reason) => return Err(reason),
    };
    match Gravity::checked(g, masses) {
        Ok(phi) => Ok(Separable { kinetic: Derivatives(kinetic), potential: Derivatives(Pairwise { phi }) }),
        Err(reason) => Err(reason),
    }
}

// ------------------------------------------------------------------------------------------------
// The run-time size: any number of bodies, known when the system is read.

/// Newtonian gravity `φ_ij(r) = −G m_i m_j / r` between bodies whose number and masses are
/// known at run time: [`Gravity`] with the masses in a `Vec`, the same formula (so the same
/// bits).
#[derive(Debug, Clone, PartialEq)]
pub struct DynGravity {
    g: f64,
    masses: Vec<f64>,
    /// `G m_i`.
    gm: Vec<f64>,
}

impl DynGravity {
    /// `φ_ij(r) = −G m_i m_j / r` for the bodies of masses `masses`.
    ///
    /// # Errors
    ///
    /// [`GeomError::InvalidParameter`] if `G` or a mass is not finite and positive.
    pub fn new(g: f64, masses: &[f64]) -> Result<Self> {
        let invalid = |reason: &str| GeomError::InvalidParameter { what: "gravity (G, masses)", reason: reason.into() };
        if !(g.is_finite() && g > 0.0) {
            return Err(invalid("the gravitational constant G must be finite and positive"));
        }
        check_masses(masses).map_err(invalid)?;
        Ok(Self { g, masses: masses.to_vec(), gm: masses.iter().map(|m| g * m).collect() })
    }

    /// The gravitational constant `G`.
    pub fn g(&self) -> f64 {
        self.g
    }

    /// The masses `m_i`.
    pub fn masses(&self) -> &[f64] {
        &self.masses
    }
}

impl PairFunction for DynGravity {
    /// `φ_ij(r) = −G m_i m_j / r`, as `(1/r)·(−(G m_i) m_j)` (`NaN` for an index outside the
    /// bodies, never a panic).
    #[inline(always)]
    fn eval<S: Scalar>(&self, i: usize, j: usize, r: S) -> S {
        newton(&self.gm, &self.masses, i, j, r)
    }

    fn bodies(&self) -> Option<usize> {
        Some(self.masses.len())
    }
}

/// The N-body Hamiltonian of `B` bodies in `R^D` with `B` known at run time,
///
/// ```text
///   H(q, p) = T(p) + V(q) = Σ_i |p_i|²/(2 m_i) + Σ_{i<j} φ_ij(|q_i − q_j|),
///   ∂T/∂p_i = p_i / m_i,      ∂V/∂q_i = Σ_{j≠i} φ'_ij(r_ij) (q_i − q_j) / r_ij,
/// ```
///
/// on slices of length `n = B·D` (body `i` at `D·i .. D·i + D`): [`NBody`] at run-time size.
/// `V` and `∇V` run the very loops of [`Pairwise`] (AD of the pair function only: `φ'/r` is the
/// derivative part of `φ` at `Dual64(r, 1/r)`), so at a size both can take they give the same
/// bits. Nothing is allocated after construction: the derivatives are written into the
/// caller's buffers. The explicit splitting methods of `integrators::separable_dyn` integrate
/// it on a [`crate::step::DynPhaseState`].
///
/// ```
/// use geom_core::pairwise::{DynGravity, DynNBody};
///
/// // the Sun and Jupiter in the plane, G = 1
/// let masses = [1.0, 1e-3];
/// let h = DynNBody::<_, 2>::new(&masses, DynGravity::new(1.0, &masses)?)?;
/// let (q, p) = ([0.0, 0.0, 5.0, 0.0], [0.0, 0.0, 0.0, 0.44e-3]);
/// let mut g = [0.0; 4];
/// h.force_gradient(&q, &mut g);
/// assert!((g[0] + 1e-3 / 25.0).abs() < 1e-18); // −∂V/∂q_0 = G m_0 m_1 / r² towards body 1
/// assert_eq!(g[0] + g[2], 0.0); // Newton's third law
/// assert!((h.kinetic(&p) + h.potential(&q) - (0.5 * 0.44e-3 * 0.44 - 1e-3 / 5.0)).abs() < 1e-18);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DynNBody<F, const D: usize> {
    phi: F,
    /// `1/m_i` for each coordinate of body `i`.
    inverse: Vec<f64>,
}

impl<F: PairFunction, const D: usize> DynNBody<F, D> {
    /// `H(q, p) = Σ_i |p_i|²/(2 m_i) + Σ_{i<j} φ_ij(|q_i − q_j|)` for the masses `m` (one per
    /// body: `B = masses.len()`) and the pair function `phi`.
    ///
    /// # Errors
    ///
    /// [`GeomError::InvalidParameter`] if `D = 0` or a mass is not finite and positive;
    /// [`GeomError::DimensionMismatch`] if `phi` is defined for a number of bodies
    /// ([`PairFunction::bodies`]) other than `masses.len()`.
    pub fn new(masses: &[f64], phi: F) -> Result<Self> {
        if D == 0 {
            return Err(GeomError::InvalidParameter {
                what: "D (dimension of a body)",
                reason: "the dimension D of a body must be at least 1".into(),
            });
        }
        check_masses(masses)
            .map_err(|reason| GeomError::InvalidParameter { what: "masses", reason: reason.to_string() })?;
        match phi.bodies() {
            Some(got) if got != masses.len() => {
                Err(GeomError::DimensionMismatch { what: "bodies of the pair function", expected: masses.len(), got })
            }
            _ => Ok(Self { phi, inverse: (0..masses.len() * D).map(|k| 1.0 / masses[k / D]).collect() }),
        }
    }

    /// The number of bodies `B`.
    pub fn bodies(&self) -> usize {
        self.inverse.len() / D
    }

    /// The dimension `n = B·D` of `q` (and of `p`).
    pub fn dim(&self) -> usize {
        self.inverse.len()
    }

    /// The pair function `φ`.
    pub fn phi(&self) -> &F {
        &self.phi
    }

    /// `1/m_i` for every coordinate (body `i`'s at `D·i .. D·i + D`).
    pub fn inverse_masses(&self) -> &[f64] {
        &self.inverse
    }

    /// `V(q) = Σ_{i<j} φ_ij(|q_i − q_j|)`.
    ///
    /// # Panics
    ///
    /// If `q.len()` is not [`dim`](Self::dim).
    #[inline]
    pub fn potential(&self, q: &[f64]) -> f64 {
        assert_eq!(q.len(), self.dim(), "q of an N-body system of dimension {}", self.dim());
        pair_potential::<F, D>(&self.phi, q)
    }

    /// `T(p) = ½ Σ_k p_k² / m_k`.
    ///
    /// # Panics
    ///
    /// If `p.len()` is not [`dim`](Self::dim).
    #[inline]
    pub fn kinetic(&self, p: &[f64]) -> f64 {
        assert_eq!(p.len(), self.dim(), "p of an N-body system of dimension {}", self.dim());
        0.5 * p.iter().zip(&self.inverse).fold(0.0, |acc, (x, w)| acc + x * x * w)
    }

    /// `H(q, p) = T(p) + V(q)`.
    ///
    /// # Panics
    ///
    /// If `q.len()` or `p.len()` is not [`dim`](Self::dim).
    pub fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        self.kinetic(p) + self.potential(q)
    }

    /// `∇V(q)` written into `out`: `∂V/∂q_i = Σ_{j≠i} (φ'_ij(r_ij)/r_ij)(q_i − q_j)`, in the
    /// order of [`Pairwise`]'s gradient (the same loop: body `i` sums its terms over `j > i` in
    /// registers and subtracts each from body `j`).
    ///
    /// # Panics
    ///
    /// If `q.len()` or `out.len()` is not [`dim`](Self::dim).
    #[inline]
    pub fn force_gradient(&self, q: &[f64], out: &mut [f64]) {
        assert!(
            q.len() == self.dim() && out.len() == self.dim(),
            "q, ∇V of an N-body system of dimension {}",
            self.dim()
        );
        out.fill(0.0);
        pair_gradient::<F, D>(&self.phi, q, out);
    }

    /// `∇T(p)` written into `out`: `∂T/∂p_k = p_k / m_k` (the velocities).
    ///
    /// # Panics
    ///
    /// If `p.len()` or `out.len()` is not [`dim`](Self::dim).
    #[inline]
    pub fn velocity(&self, p: &[f64], out: &mut [f64]) {
        assert!(
            p.len() == self.dim() && out.len() == self.dim(),
            "p, ∇T of an N-body system of dimension {}",
            self.dim()
        );
        for ((v, pk), w) in out.iter_mut().zip(p).zip(&self.inverse) {
            *v = pk * w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::function::{PhaseSpaceDerivatives, PhaseSpaceFunction, check_against_ad, check_scalar_against_ad};

    /// A small deterministic generator (xorshift64*), uniform in `[lo, hi)`.
    struct Rng(u64);
    impl Rng {
        fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            let u = (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64;
            lo + (hi - lo) * u
        }
        fn vector<const N: usize>(&mut self, scale: f64) -> SVector<f64, N> {
            SVector::from_fn(|_, _| self.uniform(-scale, scale))
        }
    }

    const MASSES: [f64; 6] = [1.0, 9.5e-4, 2.9e-4, 4.4e-5, 5.2e-5, 7.7e-9];

    /// Gravity written independently, the way a user would write `V` for full AD.
    struct GravityModel;
    impl ScalarFunction<18> for GravityModel {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 18>) -> S {
            let mut v = S::from(0.0);
            for (i, mi) in MASSES.iter().enumerate() {
                for (j, mj) in MASSES.iter().enumerate().take(i) {
                    let d = q.fixed_rows::<3>(3 * i) - q.fixed_rows::<3>(3 * j);
                    v -= S::from(0.3 * mi * mj) / d.norm();
                }
            }
            v
        }
    }

    /// A pair-dependent Lennard-Jones potential `φ_ij = ε_ij ((s/r)^12 − 2 (s/r)^6)`,
    /// `ε_ij = 1 + i + 2j` (not symmetric in `i, j`: checks that the pair is passed as `i < j`).
    struct LennardJones;
    impl PairFunction for LennardJones {
        #[inline]
        fn eval<S: Scalar>(&self, i: usize, j: usize, r: S) -> S {
            let s6 = (S::from(1.1) / r).powi(6);
            (s6 * s6 - s6 * S::from(2.0)) * S::from((1 + i + 2 * j) as f64)
        }
    }
    struct LennardJonesModel;
    impl ScalarFunction<8> for LennardJonesModel {
        #[inline]
        fn eval<S: Scalar>(&self, q: &SVector<S, 8>) -> S {
            let mut v = S::from(0.0);
            for j in 0..4 {
                for i in 0..j {
                    let (dx, dy) = (q[2 * j] - q[2 * i], q[2 * j + 1] - q[2 * i + 1]);
                    let s6 = (S::from(1.21) / (dx * dx + dy * dy)).powi(3);
                    v += (s6 * s6 - s6 * S::from(2.0)) * S::from((1 + i + 2 * j) as f64);
                }
            }
            v
        }
    }

    /// Whether the four bodies in the plane are pairwise farther apart than 0.9, where the
    /// Lennard-Jones potential is moderate.
    fn apart(q: &SVector<f64, 8>) -> bool {
        (0..4).all(|i| (0..i).all(|j| (q.fixed_rows::<2>(2 * i) - q.fixed_rows::<2>(2 * j)).norm() > 0.9))
    }

    /// The largest magnitude among `V`, `∇V` and `∇²V` (the scale of a relative error).
    fn scale<const N: usize>(v: &dyn ScalarDerivatives<N>, q: &SVector<f64, N>) -> f64 {
        let (g, h) = v.gradient_and_hessian(q);
        v.value(q).abs().max(g.amax()).max(h.amax())
    }

    /// A configuration of six bodies at distances O(1..30), like the outer solar system.
    fn solar_like(rng: &mut Rng) -> SVector<f64, 18> {
        SVector::from_fn(|k, _| rng.uniform(-30.0, 30.0) * (1 + k / 3) as f64 / 6.0)
    }

    #[test]
    fn gravity_matches_full_ad() {
        let v = Pairwise::<_, 18, 3>::new(Gravity::new(0.3, MASSES).unwrap()).unwrap();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..50 {
            let q = solar_like(&mut rng);
            let s = scale(&v, &q);
            // against an independently written V, and against full AD of V's own model form
            let d = check_scalar_against_ad(&v, &GravityModel, &q);
            assert!(d <= 1e-13 * s, "relative difference {:e}", d / s);
            let d = check_scalar_against_ad(&v, &v, &q);
            assert!(d <= 1e-13 * s, "relative difference {:e}", d / s);
            // the fused and separate paths agree
            let (g, h) = v.gradient_and_hessian(&q);
            assert!((g - v.gradient(&q)).amax() <= 1e-14 * g.amax());
            assert_eq!(h, v.hessian(&q));
            assert_eq!(h, h.transpose());
        }
    }

    #[test]
    fn pair_dependent_lennard_jones_in_the_plane_matches_full_ad() {
        let v = Pairwise::<_, 8, 2>::new(LennardJones).unwrap();
        assert_eq!(Pairwise::<LennardJones, 8, 2>::BODIES, 4);
        let mut rng = Rng(42);
        let mut tested = 0;
        while tested < 50 {
            let q = rng.vector::<8>(2.0);
            if !apart(&q) {
                continue;
            }
            tested += 1;
            let s = scale(&v, &q);
            let d = check_scalar_against_ad(&v, &LennardJonesModel, &q);
            assert!(d <= 1e-13 * s, "relative difference {:e}", d / s);
        }
    }

    #[test]
    fn springs_on_a_line_match_full_ad() {
        /// `φ_ij(r) = k_ij (r − 1)²/2` in one dimension (`r = |x_i − x_j|`).
        struct Spring;
        impl PairFunction for Spring {
            #[inline]
            fn eval<S: Scalar>(&self, i: usize, j: usize, r: S) -> S {
                (r - S::from(1.0)).powi(2) * S::from(0.5 * (1.0 + (i * j) as f64))
            }
        }
        let v = Pairwise::<_, 5, 1>::new(Spring).unwrap();
        let mut rng = Rng(7);
        for _ in 0..20 {
            let q = rng.vector::<5>(3.0);
            let d = check_scalar_against_ad(&v, &v, &q);
            assert!(d <= 1e-13 * scale(&v, &q), "{d:e}");
        }
    }

    #[test]
    fn wrong_signs_are_caught() {
        let v = Pairwise::<_, 18, 3>::new(Gravity::new(0.3, MASSES).unwrap()).unwrap();
        let q = solar_like(&mut Rng(3));
        let s = scale(&v, &q);
        // a Hessian with + instead of − on one off-diagonal pair block
        struct FlippedBlock<'a>(&'a Pairwise<Gravity<6>, 18, 3>);
        impl ScalarDerivatives<18> for FlippedBlock<'_> {
            fn value(&self, q: &SVector<f64, 18>) -> f64 {
                self.0.value(q)
            }
            fn gradient(&self, q: &SVector<f64, 18>) -> SVector<f64, 18> {
                self.0.gradient(q)
            }
            fn hessian(&self, q: &SVector<f64, 18>) -> SMatrix<f64, 18, 18> {
                let mut h = self.0.hessian(q);
                for k in 0..3 {
                    for l in 0..3 {
                        h[(k, 3 + l)] = -h[(k, 3 + l)];
                        h[(3 + l, k)] = -h[(3 + l, k)];
                    }
                }
                h
            }
        }
        let d = check_scalar_against_ad(&FlippedBlock(&v), &GravityModel, &q);
        assert!(d > 1e-6 * s, "a flipped pair block went unnoticed: {:e}", d / s);
        // a repulsive force in place of the attractive one
        struct FlippedGradient<'a>(&'a Pairwise<Gravity<6>, 18, 3>);
        impl ScalarDerivatives<18> for FlippedGradient<'_> {
            fn value(&self, q: &SVector<f64, 18>) -> f64 {
                self.0.value(q)
            }
            fn gradient(&self, q: &SVector<f64, 18>) -> SVector<f64, 18> {
                -self.0.gradient(q)
            }
            fn hessian(&self, q: &SVector<f64, 18>) -> SMatrix<f64, 18, 18> {
                self.0.hessian(q)
            }
        }
        let d = check_scalar_against_ad(&FlippedGradient(&v), &GravityModel, &q);
        assert!(d > 1e-6 * s, "a flipped gradient went unnoticed: {:e}", d / s);
        // and the physics: −∂V/∂q_0 points from body 0 towards body 1 (attraction), with
        // magnitude G m_0 m_1 / r², and the Hessian block of the pair along the axis is −2Gm_0m_1/r³
        let two = Pairwise::<_, 6, 3>::new(Gravity::new(2.0, [3.0, 5.0]).unwrap()).unwrap();
        let q = SVector::from([0.0, 0.0, 0.0, 4.0, 0.0, 0.0]);
        let g = two.gradient(&q);
        assert!((g[0] + 2.0 * 3.0 * 5.0 / 16.0).abs() < 1e-15 && g[1] == 0.0 && g[2] == 0.0, "{g}");
        let h = two.hessian(&q);
        assert!((h[(0, 0)] + 2.0 * 2.0 * 15.0 / 64.0).abs() < 1e-15, "{h}");
        assert!((h[(1, 1)] - 2.0 * 15.0 / 64.0).abs() < 1e-15 && (h[(0, 3)] - 2.0 * 2.0 * 15.0 / 64.0).abs() < 1e-15);
    }

    #[test]
    fn construction_errors() {
        let phi = Gravity::new(1.0, [1.0; 6]).unwrap();
        assert!(matches!(Pairwise::<_, 17, 3>::new(phi), Err(GeomError::InvalidParameter { .. })));
        assert!(matches!(Pairwise::<_, 18, 0>::new(LennardJones), Err(GeomError::InvalidParameter { .. })));
        assert_eq!(Pairwise::<LennardJones, 18, 0>::BODIES, 0);
        assert_eq!(
            Pairwise::<_, 15, 3>::new(phi),
            Err(GeomError::DimensionMismatch { what: "bodies of the pair function", expected: 5, got: 6 })
        );
        assert!(Pairwise::<_, 18, 3>::new(phi).is_ok());
        assert!(Pairwise::<_, 18, 2>::new(LennardJones).is_ok());
        for (g, m) in [(f64::NAN, 1.0), (0.0, 1.0), (-1.0, 1.0), (1.0, 0.0), (1.0, -2.0), (1.0, f64::INFINITY)] {
            assert!(matches!(Gravity::new(g, [1.0, m]), Err(GeomError::InvalidParameter { .. })), "{g} {m}");
            assert!(matches!(gravity::<6, 3, 2>(g, [1.0, m]), Err(GeomError::InvalidParameter { .. })));
        }
        assert_eq!(
            MassKinetic::<18, 3>::new(&[1.0; 5]),
            Err(GeomError::DimensionMismatch { what: "masses", expected: 6, got: 5 })
        );
        assert!(matches!(
            MassKinetic::<18, 3>::new(&[1.0, 1.0, 1.0, 1.0, 1.0, 0.0]),
            Err(GeomError::InvalidParameter { .. })
        ));
        assert!(matches!(MassKinetic::<10, 3>::new(&[1.0; 3]), Err(GeomError::InvalidParameter { .. })));
        assert!(MassKinetic::<18, 3>::checked([1.0; 5]).is_err());
        assert!(MassKinetic::<18, 0>::checked([1.0; 5]).is_err());
        assert!(matches!(gravity::<18, 3, 5>(1.0, [1.0; 5]), Err(GeomError::InvalidParameter { .. })));
        assert!(gravity_checked::<19, 3, 6>(1.0, [1.0; 6]).is_err());
        assert!(matches!(n_body::<_, 18, 3>(&[1.0; 5], phi), Err(GeomError::DimensionMismatch { .. })));
        assert!(matches!(n_body::<_, 15, 3>(&[1.0; 5], phi), Err(GeomError::DimensionMismatch { .. })));
        assert!(n_body::<_, 18, 3>(&[1.0; 6], phi).is_ok());
        // an index outside the mass table is NaN, not a panic
        assert!(phi.eval(0, 6, 1.0f64).is_nan());
    }

    #[test]
    fn newtons_third_law_and_translation_invariance() {
        let v = Pairwise::<_, 18, 3>::new(Gravity::new(0.3, MASSES).unwrap()).unwrap();
        let lj = Pairwise::<_, 8, 2>::new(LennardJones).unwrap();
        let mut rng = Rng(11);
        for _ in 0..20 {
            let q = solar_like(&mut rng);
            let (g, h) = v.gradient_and_hessian(&q);
            // Σ_i ∂V/∂q_i = 0 and every row of the Hessian sums to zero over the bodies
            let total: nalgebra::Vector3<f64> = (0..6).map(|i| g.fixed_rows::<3>(3 * i).into_owned()).sum();
            assert!(total.amax() <= 1e-14 * g.amax(), "{total}");
            for row in 0..18 {
                let sum: nalgebra::Vector3<f64> = (0..6).map(|j| h.fixed_view::<1, 3>(row, 3 * j).transpose()).sum();
                assert!(sum.amax() <= 1e-14 * h.amax());
            }
            // V(q + (t, …, t)) = V(q), ∇V too
            let t = rng.vector::<3>(50.0);
            let shifted = SVector::<f64, 18>::from_fn(|k, _| q[k] + t[k % 3]);
            assert!((v.value(&shifted) - v.value(&q)).abs() <= 1e-13 * v.value(&q).abs());
            assert!((v.gradient(&shifted) - g).amax() <= 1e-11 * g.amax());
            let p = rng.vector::<8>(2.0);
            if !apart(&p) {
                continue;
            }
            let shifted = SVector::<f64, 8>::from_fn(|k, _| p[k] + t[k % 2]);
            assert!((lj.value(&shifted) - lj.value(&p)).abs() <= 1e-12 * (1.0 + lj.value(&p).abs()));
        }
    }

    #[test]
    fn kinetic_energy_matches_full_ad() {
        let t = MassKinetic::<18, 3>::new(&MASSES).unwrap();
        assert_eq!(MassKinetic::<18, 3>::checked(MASSES), Ok(t));
        let mut rng = Rng(5);
        for _ in 0..10 {
            let p = rng.vector::<18>(1e-3);
            assert!(check_scalar_against_ad(&t, &t, &p) <= 1e-13 * scale(&t, &p));
        }
        let p = SVector::<f64, 18>::from_fn(|k, _| if k / 3 == 1 { MASSES[1] } else { 0.0 });
        assert!((t.value(&p) - 1.5 * MASSES[1]).abs() < 1e-18);
        assert!((t.gradient(&p)[4] - 1.0).abs() < 1e-15);
    }

    #[test]
    fn n_body_hamiltonian_matches_full_ad() {
        struct Model;
        impl PhaseSpaceFunction<18> for Model {
            #[inline]
            fn eval<S: Scalar>(&self, q: &SVector<S, 18>, p: &SVector<S, 18>) -> S {
                let t = (0..6).fold(S::from(0.0), |acc, i| {
                    acc + p.fixed_rows::<3>(3 * i).norm_squared() * S::from(0.5 / MASSES[i])
                });
                t + GravityModel.eval(q)
            }
        }
        let h = gravity::<18, 3, 6>(0.3, MASSES).unwrap();
        assert!(h.is_separable());
        let mut rng = Rng(13);
        for _ in 0..10 {
            let (q, p) = (solar_like(&mut rng), rng.vector::<18>(1e-3));
            let s = scale(&h.potential.0, &q).max(scale(&h.kinetic.0, &p));
            assert!(check_against_ad(&h, &Model, &q, &p) <= 1e-13 * s);
        }
        const CHECKED: NBody<Gravity<6>, 18, 3> = match gravity_checked(0.3, MASSES) {
            Ok(h) => h,
            Err(reason) => panic!("{}", reason),
        };
        assert_eq!(CHECKED, h);
    }

    /// The run-time size runs the loops of the compiled size: `V`, `∇V` and `∇T` bit for bit,
    /// for gravity in space and a pair-dependent Lennard-Jones potential in the plane.
    #[test]
    fn run_time_size_is_the_compiled_size_bit_for_bit() {
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let fixed = gravity::<18, 3, 6>(0.3, MASSES).unwrap();
        let dynamic = DynNBody::<_, 3>::new(&MASSES, DynGravity::new(0.3, &MASSES).unwrap()).unwrap();
        assert_eq!(
            (dynamic.bodies(), dynamic.dim(), dynamic.phi().masses(), dynamic.phi().g()),
            (6, 18, &MASSES[..], 0.3)
        );
        let mut rng = Rng(17);
        let mut g = [0.0; 18];
        for _ in 0..20 {
            let (q, p) = (solar_like(&mut rng), rng.vector::<18>(1e-3));
            dynamic.force_gradient(q.as_slice(), &mut g);
            assert_eq!(bits(&g), bits(fixed.potential.0.gradient(&q).as_slice()));
            assert_eq!(dynamic.potential(q.as_slice()).to_bits(), fixed.potential.0.value(&q).to_bits());
            dynamic.velocity(p.as_slice(), &mut g);
            assert_eq!(bits(&g), bits(fixed.kinetic.0.gradient(&p).as_slice()));
            let t = dynamic.kinetic(p.as_slice());
            assert!((t - fixed.kinetic.0.value(&p)).abs() <= 1e-15 * t);
        }
        let lj = Pairwise::<_, 8, 2>::new(LennardJones).unwrap();
        let dynamic = DynNBody::<_, 2>::new(&[1.0; 4], LennardJones).unwrap();
        let mut g = [0.0; 8];
        for _ in 0..20 {
            let q = rng.vector::<8>(2.0);
            dynamic.force_gradient(q.as_slice(), &mut g);
            assert_eq!(bits(&g), bits(lj.gradient(&q).as_slice()));
            assert_eq!(dynamic.potential(q.as_slice()).to_bits(), lj.value(&q).to_bits());
        }
        // construction errors, as at the compiled size
        let phi = DynGravity::new(1.0, &[1.0; 6]).unwrap();
        assert_eq!(
            DynNBody::<_, 3>::new(&[1.0; 5], phi.clone()),
            Err(GeomError::DimensionMismatch { what: "bodies of the pair function", expected: 5, got: 6 })
        );
        assert!(matches!(DynNBody::<_, 0>::new(&[1.0; 6], phi.clone()), Err(GeomError::InvalidParameter { .. })));
        assert!(matches!(DynNBody::<_, 3>::new(&[1.0, 0.0], LennardJones), Err(GeomError::InvalidParameter { .. })));
        for (g, m) in [(f64::NAN, 1.0), (0.0, 1.0), (1.0, -2.0), (1.0, f64::INFINITY)] {
            assert!(matches!(DynGravity::new(g, &[1.0, m]), Err(GeomError::InvalidParameter { .. })), "{g} {m}");
        }
        assert!(phi.eval(0, 6, 1.0f64).is_nan());
    }

    #[test]
    fn collisions_are_reported_not_panicked() {
        let v = Pairwise::<_, 6, 3>::new(Gravity::new(1.0, [1.0, 1.0]).unwrap()).unwrap();
        let q = SVector::from([1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
        assert!(v.try_value(&q).is_err());
        assert_eq!(v.try_gradient(&q), Err(GeomError::NonFinite { what: "gradient" }));
        assert_eq!(v.try_hessian(&q), Err(GeomError::NonFinite { what: "Hessian" }));
    }
}

// ------------------------------------------------------------------------------------------------

/// A radial function `φ(r)`, `r > 0`, written once over the scalar (a central potential's
/// profile: Kepler's `φ = −μ/r`, a spring's `k(r − r₀)²/2`).
pub trait RadialFunction: Send + Sync {
    /// `φ(r)`.
    fn eval<S: Scalar>(&self, r: S) -> S;
}

/// The central potential `V(q) = φ(|q|)` in `R^N` (one body about a fixed centre), with AD of
/// the one-variable `φ` only and the chain rule through `r = |q|`:
///
/// ```text
///   ∇V = φ'(r) q / r,        ∇²V = φ''(r) u uᵀ + (φ'(r)/r)(I − u uᵀ),   u = q / r,
/// ```
///
/// `φ'/r` in one [`Dual64`] evaluation at `(r, 1/r)`, `φ''` by one [`Dual2_64`] evaluation. At
/// `q = 0` the derivatives are not finite (and the integrators report
/// [`GeomError::NonFinite`]).
///
/// ```
/// use geom_core::function::ScalarDerivatives;
/// use geom_core::pairwise::{Central, RadialFunction};
/// use geom_core::Scalar;
/// use nalgebra::SVector;
///
/// /// Kepler's `φ(r) = −1/r`.
/// struct Newton;
/// impl RadialFunction for Newton {
///     fn eval<S: Scalar>(&self, r: S) -> S { -r.recip() }
/// }
/// let v = Central::<_, 2>::new(Newton);
/// let q = SVector::from([3.0, 4.0]);
/// assert_eq!(v.value(&q), -0.2);
/// assert!((v.gradient(&q) - q / 125.0).amax() < 1e-16); // q / r³
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Central<F, const N: usize> {
    phi: F,
}

impl<F: RadialFunction, const N: usize> Central<F, N> {
    /// `V(q) = φ(|q|)`.
    pub const fn new(phi: F) -> Self {
        Self { phi }
    }

    /// The radial profile `φ`.
    pub fn phi(&self) -> &F {
        &self.phi
    }
}

impl<F: RadialFunction, const N: usize> ScalarDerivatives<N> for Central<F, N> {
    /// `φ(|q|)`.
    #[inline]
    fn value(&self, q: &SVector<f64, N>) -> f64 {
        self.phi.eval(q.norm())
    }
    /// `φ'(r) q / r`: the derivative part of `φ` at `Dual64(r, 1/r)` is `φ'(r)/r`.
    #[inline]
    fn gradient(&self, q: &SVector<f64, N>) -> SVector<f64, N> {
        let r = q.norm();
        q * self.phi.eval(Dual64::new(r, 1.0 / r)).eps
    }
    /// `φ'' u uᵀ + (φ'/r)(I − u uᵀ)`.
    fn hessian(&self, q: &SVector<f64, N>) -> SMatrix<f64, N, N> {
        self.gradient_and_hessian(q).1
    }
    fn gradient_and_hessian(&self, q: &SVector<f64, N>) -> (SVector<f64, N>, SMatrix<f64, N, N>) {
        let r = q.norm();
        let d = self.phi.eval(Dual2_64::new(r, 1.0, 0.0));
        let (d1, d2) = (d.v1, d.v2);
        let u = q / r;
        let uu = u * u.transpose();
        let hess = uu * d2 + (SMatrix::<f64, N, N>::identity() - uu) * (d1 / r);
        (u * d1, hess)
    }
}

impl<F: RadialFunction, const N: usize> ScalarFunction<N> for Central<F, N> {
    /// `φ(|q|)` over any scalar (the full-AD reference of the chain rule).
    #[inline]
    fn eval<S: Scalar>(&self, q: &SVector<S, N>) -> S {
        self.phi.eval(q.norm())
    }
}

#[cfg(test)]
mod central_tests {
    use super::*;
    use crate::function::check_scalar_against_ad;

    struct Newton;
    impl RadialFunction for Newton {
        #[inline]
        fn eval<S: Scalar>(&self, r: S) -> S {
            -r.recip()
        }
    }
    /// A profile with `φ'' ≠ φ'/r·(…)` structure: `φ = r³/3 − 2 ln r + sin r`.
    struct Mixed;
    impl RadialFunction for Mixed {
        #[inline]
        fn eval<S: Scalar>(&self, r: S) -> S {
            r.powi(3) / S::from(3.0) - r.ln() * S::from(2.0) + r.sin()
        }
    }

    /// The chain rule agrees with full AD of `φ(|q|)`, and Kepler's gradient is `q/r³` with
    /// the attractive sign.
    #[test]
    fn central_derivatives_match_full_ad() {
        let points =
            [SVector::from([0.4, -1.3, 0.2]), SVector::from([-2.0, 0.1, 0.7]), SVector::from([1e-3, 2e-3, 0.0])];
        for q in points {
            let v = Central::<_, 3>::new(Newton);
            let d = check_scalar_against_ad(&v, &v, &q);
            assert!(d <= 1e-12 * (1.0 + q.norm().powi(-3)), "{d:e}");
            let r = q.norm();
            assert!((v.gradient(&q) - q / (r * r * r)).amax() <= 1e-14 * r.powi(-2));
            let w = Central::<_, 3>::new(Mixed);
            let d = check_scalar_against_ad(&w, &w, &q);
            assert!(d <= 1e-9, "{d:e}");
        }
        // at the centre: not finite, never a panic
        let v = Central::<_, 2>::new(Newton);
        assert!(v.try_gradient(&SVector::zeros()).is_err());
    }
}
