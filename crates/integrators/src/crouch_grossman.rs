//! Crouch–Grossman methods for `ġ = g f(t, g)` (Crouch & Grossman, *Numerical integration of
//! ordinary differential equations on manifolds*, J. Nonlinear Sci. 3, 1993; Owren & Marthinsen,
//! *Runge–Kutta methods adapted to manifolds and based on rigid frames*, BIT 39, 1999; HLW =
//! Hairer, Lubich & Wanner, *Geometric Numerical Integration*, 2006, §IV.8): an explicit Butcher
//! tableau `(a, b, c)` whose stages are products of exponentials of single stage slopes,
//! left-trivialized as in [`crate::rkmk`] (the frozen flow of `ġ = g K` is `g exp(t K)`, applied
//! first leftmost):
//!
//! ```text
//!   Y_i = g_k exp(h a_i1 K_1) exp(h a_i2 K_2) ··· exp(h a_{i,i−1} K_{i−1}),
//!   K_i = f(t_k + c_i h, Y_i),
//!   g_{k+1} = g_k exp(h b_1 K_1) exp(h b_2 K_2) ··· exp(h b_s K_s).
//! ```
//!
//! They are the commutator-free methods ([`crate::commutator_free`]) with `J = S` exponentials,
//! `α_ij^l = a_il δ_lj`, `β_i^l = b_l δ_li`, and share their implementation. Beyond the classical
//! conditions of `(a, b, c)`, order 3 needs `Σ_i b_i² c_i + 2 Σ_{i<j} b_i c_i b_j = 1/3` (Owren &
//! Marthinsen 1999; it is the bracket condition of [`crate::commutator_free::CfScheme::new`]),
//! and order 4 four more conditions (Owren & Marthinsen 1999), met by the five-stage CG4a of
//! Jackiewicz, Marthinsen & Owren, *Construction of Runge–Kutta methods of Crouch–Grossman type of
//! high order*, Adv. Comput. Math. 13, 2000.

use crate::commutator_free::{CfScheme, CommutatorFree};
use crate::rkmk::LieVectorField;
use crate::tableau::{self, Tableau};
use geom_core::lie::{Chart, GroupChart, LieGroup};
use geom_core::{GeomError, Result};

/// A Crouch–Grossman method with `S` stages: the commutator-free method of its products.
pub type CrouchGrossman<G, F, const D: usize, const S: usize, C = Chart> = CommutatorFree<G, F, D, S, S, C>;

/// The Crouch–Grossman products of an explicit tableau `(a, b, c)` (module documentation), with
/// the tableau's order, checked by [`CfScheme::new`] (an order-3 tableau that misses the
/// Crouch–Grossman condition is [`GeomError::InvalidParameter`], as is an implicit tableau or
/// one of order above 4; `S` stages, else [`GeomError::DimensionMismatch`]).
///
/// ```
/// use integrators::{crouch_grossman, tableau};
/// assert!(crouch_grossman::scheme::<3>(&crouch_grossman::cg3_tableau()).is_ok());
/// // Kutta's third-order tableau is not of Crouch–Grossman order 3
/// assert!(crouch_grossman::scheme::<3>(&tableau::kutta3()).is_err());
/// ```
pub fn scheme<const S: usize>(tableau: &Tableau) -> Result<CfScheme<S, S>> {
    if !tableau.is_explicit() {
        return Err(GeomError::InvalidParameter {
            what: "Crouch–Grossman tableau",
            reason: format!("{} is implicit", tableau.name()),
        });
    }
    let (a, b, c) = tableau.arrays::<S>()?;
    let stages = core::array::from_fn(|i| {
        core::array::from_fn(|l| core::array::from_fn(|j| if j == l { a[i][l] } else { 0.0 }))
    });
    let update = core::array::from_fn(|l| core::array::from_fn(|i| if i == l { b[l] } else { 0.0 }));
    let name =
        if tableau.name().starts_with("CG") { tableau.name().to_string() } else { format!("CG {}", tableau.name()) };
    CfScheme::new(&name, stages, update, c, tableau.order())
}

/// The Crouch–Grossman method of an explicit tableau with the chart `τ` (errors of [`scheme`]
/// and of [`CommutatorFree::new`]).
pub fn new<G, F, const D: usize, const S: usize, C>(
    group: G,
    field: F,
    tableau: &Tableau,
    chart: C,
) -> Result<CrouchGrossman<G, F, D, S, C>>
where
    G: LieGroup<f64, D>,
    F: LieVectorField<G, D>,
    C: GroupChart<f64, G, D>,
{
    CommutatorFree::new(group, field, &scheme::<S>(tableau)?, chart)
}

/// The tableau of CG3 (Crouch & Grossman 1993): `c = (0, 3/4, 17/24)`, `a_21 = 3/4`,
/// `a_31 = 119/216`, `a_32 = 17/108`, `b = (13/51, −2/3, 24/17)`; classical order 3 and the
/// Crouch–Grossman condition of order 3.
pub fn cg3_tableau() -> Tableau {
    let a = vec![vec![0.0; 3], vec![0.75, 0.0, 0.0], vec![119.0 / 216.0, 17.0 / 108.0, 0.0]];
    Tableau::new("CG3", a, vec![13.0 / 51.0, -2.0 / 3.0, 24.0 / 17.0], vec![0.0, 0.75, 17.0 / 24.0], 3)
        .expect("CG3 is a valid tableau")
}

/// The tableau of CG4a (Jackiewicz, Marthinsen & Owren 2000, the five-stage method of order 4,
/// coefficients to 16 digits as published).
pub fn cg4a_tableau() -> Tableau {
    let a = vec![
        vec![0.0; 5],
        vec![0.8177227988124852, 0.0, 0.0, 0.0, 0.0],
        vec![0.3199876375476427, 0.0659864263556022, 0.0, 0.0, 0.0],
        vec![0.9214417194464946, 0.4997857776773573, -1.0969984448371582, 0.0, 0.0],
        vec![0.3552358559023322, 0.2390958372307326, 1.3918565724203246, -1.1092979392113465, 0.0],
    ];
    let b = vec![0.1370831520630755, -0.0183698531564020, 0.739781398537078, -0.1907142565505889, 0.3322195591068374];
    let c = vec![0.0, 0.8177227988124852, 0.3859740639032449, 0.3242290522866937, 0.8768903263420429];
    Tableau::new("CG4a", a, b, c, 4).expect("CG4a is a valid tableau")
}

/// CG2: Heun's tableau in Crouch–Grossman form, `Y_2 = g exp(h K_1)`,
/// `g_1 = g exp(½ h K_1) exp(½ h K_2)` (order 2: no condition beyond the classical ones).
pub fn cg2<G, F, const D: usize>(group: G, field: F) -> Result<CrouchGrossman<G, F, D, 2>>
where
    G: LieGroup<f64, D>,
    F: LieVectorField<G, D>,
{
    Ok(new(group, field, &tableau::heun(), Chart::Exp)?.with_name("CG2 (exp)"))
}

/// CG3 ([`cg3_tableau`]) with `τ = exp`: order 3.
pub fn cg3<G, F, const D: usize>(group: G, field: F) -> Result<CrouchGrossman<G, F, D, 3>>
where
    G: LieGroup<f64, D>,
    F: LieVectorField<G, D>,
{
    Ok(new(group, field, &cg3_tableau(), Chart::Exp)?.with_name("CG3 (exp)"))
}

/// CG4a ([`cg4a_tableau`]) with `τ = exp`: order 4, fifteen exponentials a step.
///
/// ```
/// use geom_core::step::OneStep;
/// use geom_core::lie::So3xR3;
/// use integrators::crouch_grossman;
/// use integrators::models::FreeRigidBody;
/// use integrators::rkmk::GroupState;
/// use nalgebra::{Matrix3, Vector3};
/// let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0)?;
/// let cg = crouch_grossman::cg4a(So3xR3::default(), body)?;
/// assert_eq!(cg.order(), 4);
/// let mut s = GroupState::new(0.0, (Matrix3::identity(), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin())));
/// cg.step(&mut s, 0.1)?;
/// assert!((s.g.0.transpose() * s.g.0 - Matrix3::identity()).amax() < 1e-15);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub fn cg4a<G, F, const D: usize>(group: G, field: F) -> Result<CrouchGrossman<G, F, D, 5>>
where
    G: LieGroup<f64, D>,
    F: LieVectorField<G, D>,
{
    Ok(new(group, field, &cg4a_tableau(), Chart::Exp)?.with_name("CG4a (exp)"))
}
