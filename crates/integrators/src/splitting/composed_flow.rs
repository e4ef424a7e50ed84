//! The splitting method: the composition of the sub-flows of `H = H_0 + … + H_{K−1}` by a
//! [`SplittingScheme`], `ψ_h = φ^{k_s}_{c_s h} ∘ … ∘ φ^{k_1}_{c_1 h}`, as a [`OneStep`].

use super::exact_flow::{Parts, SubFlows};
use super::schemes::{ORDER_TOLERANCE, SchemeError, SplittingScheme, failed_condition, palindrome_defect};
use geom_core::GeomError;
use geom_core::step::{FlatState, OneStep, check_step};

/// The splitting method `ψ_h = φ^{k_s}_{c_s h} ∘ … ∘ φ^{k_1}_{c_1 h}` of a list of sub-flows
/// `P` (a tuple `(A, B)`, `(A, B, C)`, … or an array of [`super::ExactFlow`]s) by a
/// [`SplittingScheme`], with the stages `(k_i, c_i)` of [`SplittingScheme::stages`] for `K`
/// pieces, computed and checked once.
///
/// * order: the scheme's order `p` if every sub-flow is exact, else `min(p, r)` over the orders
///   `r` of the approximate ones ([`super::StepFlow`]);
/// * symmetric when the scheme is and every sub-flow is;
/// * a step works on a copy of the state and writes it back only if every sub-flow succeeded
///   and the result is finite ([`FlatState::words_finite`]): a failed step leaves the state
///   untouched. No allocation and no dynamic dispatch per step (the stages live in a vector
///   built once; the piece is chosen by a `match` on its index).
///
/// ```
/// use geom_core::step::{OneStep, PhaseState};
/// use integrators::splitting::{Harmonic, Kick, Splitting, strang};
/// # use geom_core::{Scalar, function::{AutoDiff, ScalarFunction}};
/// # use nalgebra::{SVector, Vector2};
/// /// The cubic part of Hénon–Heiles, `V₃ = x²y − y³/3`.
/// struct Cubic;
/// impl ScalarFunction<2> for Cubic {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 2>) -> S {
///         q[0] * q[0] * q[1] - q[1] * q[1] * q[1] / S::from(3.0)
///     }
/// }
/// // H = (|p|² + |q|²)/2 + V₃(q): the oscillator's exact rotation and the kick of V₃
/// let method = Splitting::new((Harmonic::new(1.0)?, Kick(AutoDiff(Cubic))), strang())?;
/// let mut s = PhaseState::new(Vector2::new(0.1, -0.15), Vector2::new(0.2, 0.15));
/// method.step_n(&mut s, 0.05, 100)?;
/// assert_eq!((method.order(), method.is_symmetric()), (2, true));
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Splitting<P> {
    flows: P,
    scheme: SplittingScheme,
    stages: Vec<(usize, f64)>,
    symmetric: bool,
}

impl<P: Parts> Splitting<P> {
    /// The splitting of the `K = P::PARTS` sub-flows `flows` by `scheme`. For `K ≠ 2` the
    /// scheme's stages for `K` pieces are checked again: the order conditions on `K` letters up
    /// to the scheme's order ([`SchemeError::OrderConditions`]) and the palindrome of a
    /// symmetric scheme ([`SchemeError::Symmetry`]).
    pub fn new(flows: P, scheme: SplittingScheme) -> Result<Self, SchemeError> {
        let parts = P::PARTS;
        let stages = scheme.stages(parts);
        if parts != 2
            && let Some((degree, defect)) = failed_condition(parts, &stages, scheme.order())
        {
            return Err(SchemeError::OrderConditions {
                order: scheme.order(),
                degree,
                defect,
                tolerance: ORDER_TOLERANCE,
            });
        }
        let scale: f64 = stages.iter().map(|s| s.1.abs()).sum();
        let palindrome = palindrome_defect(&stages) <= 1e-14 * scale;
        if scheme.is_symmetric() && !palindrome {
            return Err(SchemeError::Symmetry { declared: true, defect: palindrome_defect(&stages) });
        }
        Ok(Self { flows, symmetric: scheme.is_symmetric(), scheme, stages })
    }
}

impl<P> Splitting<P> {
    /// The scheme.
    pub fn scheme(&self) -> &SplittingScheme {
        &self.scheme
    }
    /// The sub-flows.
    pub fn flows(&self) -> &P {
        &self.flows
    }
    /// The stages `(k, c)`: apply `φ^k_{c h}`, in this order.
    pub fn stages(&self) -> &[(usize, f64)] {
        &self.stages
    }
}

impl<St: FlatState + Clone, P: SubFlows<St>> OneStep<St> for Splitting<P> {
    fn name(&self) -> String {
        let parts: Vec<String> = (0..P::PARTS).map(|k| self.flows.part_name(k)).collect();
        format!("{} splitting of {}", self.scheme.name(), parts.join(" | "))
    }
    fn order(&self) -> u32 {
        (0..P::PARTS).filter_map(|k| self.flows.part_order(k)).fold(self.scheme.order(), u32::min)
    }
    fn is_symmetric(&self) -> bool {
        self.symmetric && (0..P::PARTS).all(|k| self.flows.part_is_symmetric(k))
    }
    #[inline]
    fn step(&self, state: &mut St, h: f64) -> Result<(), GeomError> {
        check_step(h)?;
        let mut work = state.clone();
        for &(part, c) in &self.stages {
            self.flows.flow_part(part, &mut work, c * h)?;
        }
        if !work.words_finite() {
            return Err(GeomError::NonFinite { what: "state after a splitting step" });
        }
        *state = work;
        Ok(())
    }
}
