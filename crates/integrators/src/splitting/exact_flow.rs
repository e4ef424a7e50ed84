//! Sub-flows: the exact flow `φ^A_t` of one piece `A` of a Hamiltonian `H = A + B + …`, the
//! adapter that lets any one-step method stand in for it, and the list of pieces a splitting
//! composes.

use geom_core::GeomError;
use geom_core::step::OneStep;

/// The exact flow `φ^A_t: x ↦ x(t)` of `ẋ = X_A(x)`, the Hamiltonian vector field of one piece
/// `A` of a split Hamiltonian, on states `St` (`PhaseState<N>` on `T*R^N`, or any other state,
/// e.g. a Lie-group state `(g, μ)`).
///
/// Contract of [`ExactFlow::flow`]:
/// * `t` is any finite real: negative times are the backward flow, `t = 0` is the identity;
/// * the flow property `φ_s ∘ φ_t = φ_{s+t}` and `φ_{−t} = φ_t^{−1}` hold to round-off (the
///   default [`ExactFlow::order`] `None` says so; an approximation says `Some(r)`);
/// * on an error the state is left exactly as it was.
///
/// A splitting method ([`super::Splitting`]) composes such flows; its order conditions assume
/// that they are exact, so a sub-flow that is only an approximation of order `r`
/// ([`StepFlow`]) caps the order of the composition at `r`.
pub trait ExactFlow<St>: Send + Sync {
    /// Name of the flow, e.g. `"harmonic oscillator (ω = 1)"`.
    fn name(&self) -> String;
    /// `state ← φ_t(state)`.
    fn flow(&self, state: &mut St, t: f64) -> Result<(), GeomError>;
    /// `state ← φ_t(state)`, as [`ExactFlow::flow`], with `cache` a memo of the part of `φ_t`
    /// that depends only on `t` and on the flow's own parameters, not on the state (the
    /// oscillator's `sin ωt` and `cos ωt`, see [`super::Harmonic`]); the default ignores the
    /// cache and calls [`ExactFlow::flow`], so an implementation of `flow` alone is complete.
    ///
    /// Contract (for an implementation that overrides it):
    /// * the result (state or error) is bit for bit that of [`ExactFlow::flow`] at the same
    ///   `state` and `t`, whatever the cache holds, provided the cache is fresh
    ///   ([`FlowCache::new`]) or has only been written by `flow_cached` of this same flow;
    /// * an entry is looked up by its time compared bit for bit ([`FlowCache::get`]), so a
    ///   value kept for another `t` (including `−0.0` for `0.0`) is never used;
    /// * the cache holds no state-dependent value, so reusing it between states (the stages of
    ///   a splitting step, consecutive steps) changes nothing but the work done.
    ///
    /// [`super::Splitting`] keeps one fresh cache per stage `(piece, coefficient)` that
    /// repeats within a step, for that step, and one per distinct stage for the whole run of a
    /// [`OneStep::step_n`], so that the stages of a piece at one time (the two half rotations
    /// of Strang's `φ^A_{h/2} ∘ φ^B_h ∘ φ^A_{h/2}`, the same stage in consecutive steps)
    /// compute that part once.
    #[inline]
    fn flow_cached(&self, state: &mut St, t: f64, cache: &mut FlowCache) -> Result<(), GeomError> {
        let _ = cache;
        self.flow(state, t)
    }
    /// `None` for an exact flow (to round-off); `Some(r)` for a one-step approximation of
    /// order `r`.
    fn order(&self) -> Option<u32> {
        None
    }
    /// Whether `φ_{−t} = φ_t^{−1}`: true of every exact flow, and of a symmetric method.
    fn is_symmetric(&self) -> bool {
        true
    }
}

/// A memo of at most [`FlowCache::WORDS`] words that one [`ExactFlow`] computed for one time
/// `t` and may reuse at the same `t` ([`ExactFlow::flow_cached`]): a fixed-size value on the
/// stack, no allocation. It holds one entry `(t, words)`; [`FlowCache::insert`] replaces it.
///
/// ```
/// use integrators::splitting::FlowCache;
/// let mut cache = FlowCache::new();
/// assert!(cache.get(0.5).is_none());
/// cache.insert(0.5, [0.25, 1.0, 0.0, 0.0]);
/// assert_eq!(cache.get(0.5), Some([0.25, 1.0, 0.0, 0.0]));
/// assert!(cache.get(0.25).is_none());
/// cache.insert(0.0, [1.0; 4]);
/// assert!(cache.get(-0.0).is_none() && cache.get(0.5).is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowCache {
    /// The bits of the entry's time, `None` when empty.
    time: Option<u64>,
    words: [f64; FlowCache::WORDS],
}

impl FlowCache {
    /// The number of words an entry holds.
    pub const WORDS: usize = 4;

    /// An empty cache.
    #[inline]
    pub const fn new() -> Self {
        Self { time: None, words: [0.0; Self::WORDS] }
    }
    /// The words stored for time `t` (compared bit for bit: `−0.0 ≠ 0.0`), if the entry is
    /// for `t`.
    #[inline]
    pub fn get(&self, t: f64) -> Option<[f64; Self::WORDS]> {
        (self.time == Some(t.to_bits())).then_some(self.words)
    }
    /// Store `words` as the entry for time `t`, replacing the previous entry.
    #[inline]
    pub fn insert(&mut self, t: f64, words: [f64; Self::WORDS]) {
        self.time = Some(t.to_bits());
        self.words = words;
    }
    /// The words for time `t`: the stored ones if the entry is for `t` ([`FlowCache::get`]),
    /// else `compute()`, stored as the entry for `t` and returned.
    #[inline]
    pub fn get_or_insert_with(&mut self, t: f64, compute: impl FnOnce() -> [f64; Self::WORDS]) -> [f64; Self::WORDS] {
        match self.get(t) {
            Some(words) => words,
            None => {
                let words = compute();
                self.insert(t, words);
                words
            }
        }
    }
    /// Forget the entry.
    #[inline]
    pub fn clear(&mut self) {
        self.time = None;
    }
}

impl Default for FlowCache {
    fn default() -> Self {
        Self::new()
    }
}

macro_rules! forward_exact_flow {
    ($($ptr:ty),*) => {$(
        impl<St, F: ExactFlow<St> + ?Sized> ExactFlow<St> for $ptr {
            fn name(&self) -> String {
                (**self).name()
            }
            #[inline]
            fn flow(&self, state: &mut St, t: f64) -> Result<(), GeomError> {
                (**self).flow(state, t)
            }
            #[inline]
            fn flow_cached(&self, state: &mut St, t: f64, cache: &mut FlowCache) -> Result<(), GeomError> {
                (**self).flow_cached(state, t, cache)
            }
            fn order(&self) -> Option<u32> {
                (**self).order()
            }
            fn is_symmetric(&self) -> bool {
                (**self).is_symmetric()
            }
        }
    )*};
}
forward_exact_flow!(&F, Box<F>, std::sync::Arc<F>);

/// Any one-step method `Φ_h` used as a sub-flow: `φ_t ≈ Φ_t` (and `φ_0 = id`, which a one-step
/// method refuses as a step). Its [`ExactFlow::order`] is the method's order `r`, so a splitting
/// of order `p` with this piece has order `min(p, r)`; it is symmetric when the method is. It
/// memoises nothing ([`ExactFlow::flow_cached`] is the default, `flow`): a one-step method's
/// work depends on the state throughout.
///
/// ```
/// use geom_core::function::AutoDiff;
/// use geom_core::step::{OneStep, PhaseState};
/// use integrators::classical::StormerVerlet;
/// use integrators::splitting::{ExactFlow, StepFlow};
/// # use geom_core::{Scalar, function::PhaseSpaceFunction};
/// # use nalgebra::{SVector, Vector1};
/// # struct Pendulum;
/// # impl PhaseSpaceFunction<1> for Pendulum {
/// #     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S { p[0] * p[0] * S::from(0.5) - q[0].cos() }
/// # }
/// let sv = StepFlow(StormerVerlet::new(AutoDiff(Pendulum)));
/// assert_eq!((ExactFlow::<PhaseState<1>>::order(&sv), ExactFlow::<PhaseState<1>>::is_symmetric(&sv)), (Some(2), true));
/// let mut s = PhaseState::new(Vector1::new(1.0), Vector1::new(0.0));
/// sv.flow(&mut s, 0.0)?; // the identity, not an invalid step
/// assert_eq!(s.q[0], 1.0);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepFlow<M>(pub M);

impl<St, M: OneStep<St>> ExactFlow<St> for StepFlow<M> {
    fn name(&self) -> String {
        self.0.name()
    }
    #[inline]
    fn flow(&self, state: &mut St, t: f64) -> Result<(), GeomError> {
        if t == 0.0 { Ok(()) } else { self.0.step(state, t) }
    }
    fn order(&self) -> Option<u32> {
        Some(self.0.order())
    }
    fn is_symmetric(&self) -> bool {
        self.0.is_symmetric()
    }
}

/// The number of pieces of a list of sub-flows, independent of the state type (so that a
/// splitting can be built before its state is named).
pub trait Parts {
    /// `K`, the number of pieces `H = H_1 + … + H_K`.
    const PARTS: usize;
}

/// A list of `K = PARTS` sub-flows `φ^1, …, φ^K` on states `St`, addressed by index without
/// dynamic dispatch: the tuples `(A, B)`, `(A, B, C)`, `(A, B, C, D)` of [`ExactFlow`]s of any
/// types, and arrays `[F; K]` of one type (e.g. `[Box<dyn ExactFlow<St>>; K]`, one dynamic
/// call per sub-flow, if the user wants it).
pub trait SubFlows<St>: Parts + Send + Sync {
    /// `state ← φ^{part}_t(state)`; [`GeomError::InvalidParameter`] for `part ≥ PARTS`.
    fn flow_part(&self, part: usize, state: &mut St, t: f64) -> Result<(), GeomError>;
    /// `state ← φ^{part}_t(state)` through [`ExactFlow::flow_cached`] of piece `part` with
    /// `cache` (which must be fresh or have been used with piece `part` only); bit for bit
    /// [`SubFlows::flow_part`]. The default ignores the cache and calls `flow_part`.
    #[inline]
    fn flow_part_cached(&self, part: usize, state: &mut St, t: f64, cache: &mut FlowCache) -> Result<(), GeomError> {
        let _ = cache;
        self.flow_part(part, state, t)
    }
    /// The name of piece `part` (empty for `part ≥ PARTS`).
    fn part_name(&self, part: usize) -> String;
    /// [`ExactFlow::order`] of piece `part`.
    fn part_order(&self, part: usize) -> Option<u32>;
    /// [`ExactFlow::is_symmetric`] of piece `part`.
    fn part_is_symmetric(&self, part: usize) -> bool;
}

fn no_such_part(part: usize, parts: usize) -> GeomError {
    GeomError::InvalidParameter { what: "sub-flow index", reason: format!("{part} >= {parts} pieces") }
}

macro_rules! tuple_sub_flows {
    ($n:expr; $($idx:tt $ty:ident),*) => {
        impl<$($ty),*> Parts for ($($ty,)*) {
            const PARTS: usize = $n;
        }
        impl<St, $($ty: ExactFlow<St>),*> SubFlows<St> for ($($ty,)*) {
            #[inline(always)]
            fn flow_part(&self, part: usize, state: &mut St, t: f64) -> Result<(), GeomError> {
                match part {
                    $($idx => self.$idx.flow(state, t),)*
                    _ => Err(no_such_part(part, $n)),
                }
            }
            #[inline(always)]
            fn flow_part_cached(
                &self,
                part: usize,
                state: &mut St,
                t: f64,
                cache: &mut FlowCache,
            ) -> Result<(), GeomError> {
                match part {
                    $($idx => self.$idx.flow_cached(state, t, cache),)*
                    _ => Err(no_such_part(part, $n)),
                }
            }
            fn part_name(&self, part: usize) -> String {
                match part {
                    $($idx => self.$idx.name(),)*
                    _ => String::new(),
                }
            }
            fn part_order(&self, part: usize) -> Option<u32> {
                match part {
                    $($idx => self.$idx.order(),)*
                    _ => None,
                }
            }
            fn part_is_symmetric(&self, part: usize) -> bool {
                match part {
                    $($idx => self.$idx.is_symmetric(),)*
                    _ => false,
                }
            }
        }
    };
}
tuple_sub_flows!(2; 0 A, 1 B);
tuple_sub_flows!(3; 0 A, 1 B, 2 C);
tuple_sub_flows!(4; 0 A, 1 B, 2 C, 3 D);

impl<F, const K: usize> Parts for [F; K] {
    const PARTS: usize = K;
}

impl<St, F: ExactFlow<St>, const K: usize> SubFlows<St> for [F; K] {
    #[inline(always)]
    fn flow_part(&self, part: usize, state: &mut St, t: f64) -> Result<(), GeomError> {
        match self.get(part) {
            Some(f) => f.flow(state, t),
            None => Err(no_such_part(part, K)),
        }
    }
    #[inline(always)]
    fn flow_part_cached(&self, part: usize, state: &mut St, t: f64, cache: &mut FlowCache) -> Result<(), GeomError> {
        match self.get(part) {
            Some(f) => f.flow_cached(state, t, cache),
            None => Err(no_such_part(part, K)),
        }
    }
    fn part_name(&self, part: usize) -> String {
        self.get(part).map(|f| f.name()).unwrap_or_default()
    }
    fn part_order(&self, part: usize) -> Option<u32> {
        self.get(part).and_then(|f| f.order())
    }
    fn part_is_symmetric(&self, part: usize) -> bool {
        self.get(part).is_some_and(|f| f.is_symmetric())
    }
}
