//! The splitting method: the composition of the sub-flows of `H = H_0 + … + H_{K−1}` by a
//! [`SplittingScheme`], `ψ_h = φ^{k_s}_{c_s h} ∘ … ∘ φ^{k_1}_{c_1 h}`, as a [`OneStep`].

use super::exact_flow::{FlowCache, Parts, SubFlows};
use super::schemes::{ORDER_TOLERANCE, SchemeError, SplittingScheme, failed_condition, palindrome_defect};
use geom_core::GeomError;
use geom_core::step::{FlatState, OneStep, check_step};

/// The number of [`FlowCache`]s a step keeps on the stack: one per distinct stage `(piece,
/// coefficient)` of the scheme, for the first `MAX_SLOTS` of them (Blanes–Moan S6 has 7); a
/// stage beyond runs uncached, with the same result.
const MAX_SLOTS: usize = 8;
/// The slot of a stage without a cache.
const NO_SLOT: usize = usize::MAX;

/// One stage `φ^{part}_{c h}` of a step and the slots of its caches (see `Splitting::program`).
#[derive(Debug, Clone, Copy)]
struct Stage {
    part: usize,
    c: f64,
    step_slot: usize,
    run_slot: usize,
}

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
///   built once; the piece is chosen by a `match` on its index);
/// * the stages of one piece with one coefficient share a [`FlowCache`] on the stack
///   ([`super::ExactFlow::flow_cached`]): within a step for the stages that repeat (Strang's
///   two half rotations of the oscillator compute one `sincos`), and for the whole run of a
///   [`OneStep::step_n`] for all of them (the run computes one `sincos` in all), with results
///   bit for bit those of the uncached flows. A step of the form `φ^A_{a h} ∘ φ^B_{b h} ∘
///   φ^A_{a h}` runs as straight-line code.
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
    /// Per stage: `(piece, coefficient, step slot, run slot)`. The run slot is shared by the
    /// stages of equal piece and coefficient (bit for bit), `NO_SLOT` beyond [`MAX_SLOTS`]
    /// distinct ones ([`OneStep::step_n`] keeps their caches for the run); the step slot
    /// numbers only those that occur more than once in a step ([`OneStep::step`] keeps their
    /// caches for one step, and a stage that occurs once gains nothing from one).
    program: Vec<Stage>,
    /// The number of step slots used.
    step_slots: usize,
    /// `Some((A, B, a, b))` when a step is `φ^A_{a h} ∘ φ^B_{b h} ∘ φ^A_{a h}` (Strang's for two
    /// pieces): then it runs as straight-line code with one cache in a local, which the
    /// compiler keeps in registers.
    aba: Option<(usize, usize, f64, f64)>,
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
        let key = |&(part, c): &(usize, f64)| (part, c.to_bits());
        let keys: Vec<(usize, u64)> = stages.iter().map(key).collect();
        let mut run: Vec<(usize, u64)> = Vec::new();
        let mut step: Vec<(usize, u64)> = Vec::new();
        let slot = |slots: &mut Vec<(usize, u64)>, k: (usize, u64)| match slots.iter().position(|&s| s == k) {
            Some(slot) => slot,
            None if slots.len() < MAX_SLOTS => {
                slots.push(k);
                slots.len() - 1
            }
            None => NO_SLOT,
        };
        let program: Vec<Stage> = stages
            .iter()
            .zip(&keys)
            .map(|(&(part, c), &k)| {
                let repeated = keys.iter().filter(|&&other| other == k).count() > 1;
                let step_slot = if repeated { slot(&mut step, k) } else { NO_SLOT };
                Stage { part, c, step_slot, run_slot: slot(&mut run, k) }
            })
            .collect();
        let aba = match *program.as_slice() {
            [s0, s1, s2] if s0.step_slot == 0 && s1.step_slot == NO_SLOT && s2.step_slot == 0 => {
                Some((s0.part, s1.part, s0.c, s1.c))
            }
            _ => None,
        };
        Ok(Self { flows, symmetric: scheme.is_symmetric(), scheme, stages, program, step_slots: step.len(), aba })
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
        match self.aba {
            // the pieces' indices as constants for the two orders of a two-piece split
            Some((0, 1, a, b)) => self.aba::<St, 0, 1>(&mut work, h, a, b)?,
            Some((1, 0, a, b)) => self.aba::<St, 1, 0>(&mut work, h, a, b)?,
            // as few caches as the scheme needs (they are initialised at every step)
            _ if self.step_slots == 0 => self.stages_on::<St, 0, false>(&mut work, h, &mut [])?,
            _ => self.stages_on::<St, MAX_SLOTS, false>(&mut work, h, &mut [FlowCache::new(); MAX_SLOTS])?,
        }
        *state = work;
        Ok(())
    }
    /// `n` steps on one working copy, bit for bit `n` calls of [`OneStep::step`] (each step
    /// still checks its state), with the stages' caches ([`super::ExactFlow::flow_cached`]) kept
    /// for the whole run: the state-independent part of a piece's flow at a stage time is
    /// computed once per run instead of once per step (the oscillator's `sincos` of Strang's
    /// `h/2`). All or nothing, as the trait asks.
    fn step_n(&self, state: &mut St, h: f64, n: usize) -> Result<(), GeomError>
    where
        St: Clone,
    {
        check_step(h)?;
        let mut work = state.clone();
        let mut caches = [FlowCache::new(); MAX_SLOTS];
        for _ in 0..n {
            self.stages_on::<St, MAX_SLOTS, true>(&mut work, h, &mut caches)?;
        }
        *state = work;
        Ok(())
    }
}

impl<P> Splitting<P> {
    /// The stages of one step of size `h` in place on `work`, stage `i` with the cache of its
    /// slot if `slot < C`, then the check that `work` is finite. `work` is a copy: on an error
    /// it is garbage.
    #[inline(always)]
    fn stages_on<St: FlatState, const C: usize, const RUN: bool>(
        &self,
        work: &mut St,
        h: f64,
        caches: &mut [FlowCache; C],
    ) -> Result<(), GeomError>
    where
        P: SubFlows<St>,
    {
        match *self.program.as_slice() {
            // three stages: straight-line code
            [s0, s1, s2] => {
                self.stage::<St, C, RUN>(s0, work, h, caches)?;
                self.stage::<St, C, RUN>(s1, work, h, caches)?;
                self.stage::<St, C, RUN>(s2, work, h, caches)?;
            }
            _ => {
                for &s in &self.program {
                    self.stage::<St, C, RUN>(s, work, h, caches)?;
                }
            }
        }
        finite(work)
    }
    /// `φ^A_{a h} ∘ φ^B_{b h} ∘ φ^A_{a h}` on `work`, one cache for the two `A` stages, then
    /// the check that `work` is finite.
    #[inline(always)]
    fn aba<St: FlatState, const A: usize, const B: usize>(
        &self,
        work: &mut St,
        h: f64,
        a: f64,
        b: f64,
    ) -> Result<(), GeomError>
    where
        P: SubFlows<St>,
    {
        let mut cache = FlowCache::new();
        self.flows.flow_part_cached(A, work, a * h, &mut cache)?;
        self.flows.flow_part(B, work, b * h)?;
        self.flows.flow_part_cached(A, work, a * h, &mut cache)?;
        finite(work)
    }
    /// One stage `φ^{part}_{c h}`, with the cache of its run slot (`RUN`) or step slot if that
    /// is `< C`.
    #[inline(always)]
    fn stage<St, const C: usize, const RUN: bool>(
        &self,
        stage: Stage,
        work: &mut St,
        h: f64,
        caches: &mut [FlowCache; C],
    ) -> Result<(), GeomError>
    where
        P: SubFlows<St>,
    {
        let slot = if RUN { stage.run_slot } else { stage.step_slot };
        match caches.get_mut(slot) {
            Some(cache) => self.flows.flow_part_cached(stage.part, work, stage.c * h, cache),
            None => self.flows.flow_part(stage.part, work, stage.c * h),
        }
    }
}

/// `Ok` if every word of the state after a step is finite, else [`GeomError::NonFinite`].
#[inline(always)]
fn finite<St: FlatState>(work: &St) -> Result<(), GeomError> {
    if work.words_finite() { Ok(()) } else { Err(GeomError::NonFinite { what: "state after a splitting step" }) }
}
