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
/// of order `p` with this piece has order `min(p, r)`; it is symmetric when the method is.
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
