//! The SABA_n methods of Laskar & Robutel for a perturbed problem `H = A + εB`, and the
//! corrector of SABAC_n.
//!
//! SABA_n (Laskar & Robutel, *High order symplectic integrators for perturbed Hamiltonian
//! systems*, Celest. Mech. Dyn. Astron. 80, 2001, §3, Table 1) is the symmetric splitting
//!
//! ```text
//!   φ^A_{c_1 h}, φ^B_{d_1 h}, φ^A_{c_2 h}, …, φ^B_{d_n h}, φ^A_{c_{n+1} h}      (in the order applied)
//! ```
//!
//! whose kicks sit at the `n` Gauss–Legendre nodes `τ_j = c_1 + … + c_j` of `[0, 1]` with the
//! Gauss weights `d_j`: the conditions at first order in `ε` are the moments
//! `Σ_j d_j τ_j^k = 1/(k + 1)` ([`super::perturbed_order_defects`]), which Gauss' rule meets
//! for `k < 2n`, so the error is `O(ε h^{2n} + ε² h²)` (order 2 in general). E.g. SABA_1 is
//! Strang's `c_1 = c_2 = 1/2`, `d_1 = 1`; SABA_2 has `c_1 = 1/2 − √3/6`, `c_2 = √3/3`,
//! `d_1 = d_2 = 1/2`; SABA_3 `c_1 = 1/2 − √15/10`, `c_2 = √15/10`, `d_1 = 5/18`, `d_2 = 4/9`.
//! The nodes and weights are those of [`crate::tableau::gauss_legendre`].
//!
//! SABAC_n removes the `ε² h²` term: the modified Hamiltonian of SABA_n is
//! `A + εB + ε² h² g_n {{A, B}, B} + O(ε h^{2n} + ε² h⁴ + ε³ h²)` with `g_n` the coefficient of
//! `[B, [B, A]]` in the logarithm of the composition ([`super::bba_coefficient`]; Laskar &
//! Robutel 2001 give `g_1 = 1/12`, `g_2 = (2 − √3)/24`, …), and
//! `SABAC_n = φ^C_{−g_n h³/2} ∘ SABA_n ∘ φ^C_{−g_n h³/2}` with `C = {{A, B}, B}`, symmetric, of
//! error `O(ε h^{2n} + ε² h⁴)`.

use super::order_conditions::bba_coefficient;
use super::schemes::{SchemeError, SplittingScheme};
use crate::tableau::gauss_legendre;
use geom_core::GeomError;

/// The largest `n` of SABA_n (the Gauss–Legendre rules of [`crate::tableau::gauss_legendre`]).
pub const SABA_MAX: usize = 5;

/// SABA_n, `n = 1, …, `[`SABA_MAX`] (module documentation), as a [`SplittingScheme`] of
/// `A` (first and last) and `B`: declared order 2 and symmetric, checked by
/// [`SplittingScheme::new`]. [`GeomError::InvalidParameter`] for another `n`.
///
/// ```
/// use integrators::splitting::{perturbed_order_defects, saba};
/// let saba3 = saba(3)?;
/// assert_eq!((saba3.order(), saba3.a().len(), saba3.b().len()), (2, 4, 3));
/// // Gauss' rule with 3 nodes: the conditions at first order in ε hold to degree 6
/// let d = perturbed_order_defects(&saba3.stages(2), 7);
/// assert!(d[..6].iter().all(|x| *x < 1e-15) && d[6] > 1e-6);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn saba(n: usize) -> Result<SplittingScheme, GeomError> {
    if !(1..=SABA_MAX).contains(&n) {
        return Err(GeomError::InvalidParameter {
            what: "SABA_n",
            reason: format!("n = {n} is not in 1..={SABA_MAX}"),
        });
    }
    let rule = gauss_legendre(n)?;
    let nodes: Vec<f64> = (0..n).map(|j| rule.c(j)).collect();
    // symmetrize the nodes and weights (c_j + c_{n+1−j} = 1, d_j = d_{n+1−j}) to the last bit
    let c: Vec<f64> = (0..n).map(|j| 0.5 * (nodes[j] + 1.0 - nodes[n - 1 - j])).collect();
    let d: Vec<f64> = (0..n).map(|j| 0.5 * (rule.b(j) + rule.b(n - 1 - j))).collect();
    let mut a = Vec::with_capacity(n + 1);
    a.push(c[0]);
    a.extend(c.windows(2).map(|w| w[1] - w[0]));
    a.push(c[0]);
    SplittingScheme::new(format!("SABA{n}"), &a, &d, 2, true).map_err(|e: SchemeError| e.into())
}

/// `g_n` of SABAC_n: the coefficient of `[B, [B, A]]` in the logarithm of SABA_n
/// ([`super::bba_coefficient`]); the corrector is `φ^C_{−g_n h³/2}` at each end.
pub fn sabac_corrector(scheme: &SplittingScheme) -> f64 {
    bba_coefficient(&scheme.stages(2))
}
