//! An event: a function `g(x)` of the state, the direction of its zero crossings that count, and
//! whether a crossing stops the run.

/// A scalar function `g(x)` of a state `x` (of `T*R^N`, `PhaseState<N>`, of `T*G`, a
/// `LieState`, or any other) whose zeros are events. Every `Fn(&St) -> f64 + Send + Sync` is one.
pub trait EventFunction<St>: Send + Sync {
    /// `g(x)`.
    fn value(&self, x: &St) -> f64;
}

impl<St, F: Fn(&St) -> f64 + Send + Sync> EventFunction<St> for F {
    #[inline]
    fn value(&self, x: &St) -> f64 {
        self(x)
    }
}

/// Which sign changes of `g` over a step `x_k → x_{k+1}` are events.
///
/// With `g_k = g(x_k)`: **rising** `g_k < 0 ≤ g_{k+1}`, **falling** `g_k > 0 ≥ g_{k+1}` (a zero
/// exactly at a step's end counts once, in the step that ends there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `g` crosses from negative to non-negative.
    Rising,
    /// `g` crosses from positive to non-positive.
    Falling,
    /// Either.
    Both,
}

impl Direction {
    /// Whether the pair `(g_k, g_{k+1})` is a crossing of this direction.
    ///
    /// ```
    /// use integrators::events::Direction;
    /// assert!(Direction::Rising.crosses(-1.0, 0.0) && !Direction::Rising.crosses(0.0, 1.0));
    /// assert!(Direction::Falling.crosses(1.0, -1.0) && !Direction::Falling.crosses(-1.0, 1.0));
    /// assert!(Direction::Both.crosses(1.0, -1.0) && Direction::Both.crosses(-1.0, 1.0));
    /// ```
    #[inline]
    pub fn crosses(self, g0: f64, g1: f64) -> bool {
        let rising = g0 < 0.0 && g1 >= 0.0;
        let falling = g0 > 0.0 && g1 <= 0.0;
        match self {
            Direction::Rising => rising,
            Direction::Falling => falling,
            Direction::Both => rising || falling,
        }
    }
}

/// An event: the function `g`, the [`Direction`] of the crossings that count, and whether the
/// first such crossing stops the run (`terminal`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event<G> {
    /// The event function `g(x)`.
    pub g: G,
    /// The crossings that count.
    pub direction: Direction,
    /// Whether a crossing stops the run at the event.
    pub terminal: bool,
}

impl<G> Event<G> {
    /// A non-terminal event: every crossing is reported and the run goes on.
    pub fn new(g: G, direction: Direction) -> Self {
        Self { g, direction, terminal: false }
    }

    /// A terminal event: the run stops at the first crossing, in the located state.
    pub fn terminal(g: G, direction: Direction) -> Self {
        Self { g, direction, terminal: true }
    }
}
