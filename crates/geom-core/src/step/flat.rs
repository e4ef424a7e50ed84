//! States as flat arrays of `f64` words, for checkpoints and comparisons bit for bit.

use super::{DynPhaseState, LieState, PhaseState};
use nalgebra::{DVector, SVector};

/// A state written as a fixed number of `f64` words and rebuilt from them bit for bit: what a
/// checkpoint stores and what the integrator contract suite ([`super::testing`]) compares
/// (implemented for `f64`, fixed-size matrices and vectors, [`PhaseState`], and [`LieState`]
/// over any such element).
///
/// ```
/// use geom_core::step::{FlatState, PhaseState};
/// use nalgebra::Vector2;
///
/// let s = PhaseState::new(Vector2::new(1.0, -0.0), Vector2::new(f64::MIN_POSITIVE, 3.5));
/// let mut words = Vec::new();
/// s.write_words(&mut words);
/// assert_eq!(words.len(), <PhaseState<2> as FlatState>::WORDS);
/// let back = PhaseState::<2>::read_words(&words).unwrap();
/// assert!(back.q.iter().chain(back.p.iter()).zip(&words).all(|(a, b)| a.to_bits() == b.to_bits()));
/// assert!(PhaseState::<2>::read_words(&words[..3]).is_none());
/// ```
pub trait FlatState: Sized {
    /// Number of words.
    const WORDS: usize;
    /// Appends the [`WORDS`](Self::WORDS) words of `self` to `out`.
    fn write_words(&self, out: &mut Vec<f64>);
    /// The state written as `words`; `None` unless `words.len() == WORDS`.
    fn read_words(words: &[f64]) -> Option<Self>;
    /// Whether every word is finite. The default writes the words (one allocation); the
    /// states of this crate override it without allocating, so that a step can check its
    /// state.
    fn words_finite(&self) -> bool {
        let mut words = Vec::with_capacity(Self::WORDS);
        self.write_words(&mut words);
        words.iter().all(|w| w.is_finite())
    }
}

/// No words: the base point of a groupoid over a point.
impl FlatState for () {
    const WORDS: usize = 0;
    fn write_words(&self, _out: &mut Vec<f64>) {}
    fn read_words(words: &[f64]) -> Option<Self> {
        words.is_empty().then_some(())
    }
    fn words_finite(&self) -> bool {
        true
    }
}

impl FlatState for f64 {
    const WORDS: usize = 1;
    fn write_words(&self, out: &mut Vec<f64>) {
        out.push(*self);
    }
    fn read_words(words: &[f64]) -> Option<Self> {
        match words {
            [w] => Some(*w),
            _ => None,
        }
    }
    fn words_finite(&self) -> bool {
        self.is_finite()
    }
}

/// Column-major, as nalgebra stores the entries.
impl<const R: usize, const C: usize> FlatState for nalgebra::SMatrix<f64, R, C> {
    const WORDS: usize = R * C;
    fn write_words(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(self.as_slice());
    }
    fn read_words(words: &[f64]) -> Option<Self> {
        (words.len() == R * C).then(|| Self::from_column_slice(words))
    }
    fn words_finite(&self) -> bool {
        self.iter().all(|w| w.is_finite())
    }
}

/// `q`, then `p`.
impl<const N: usize> FlatState for PhaseState<N> {
    const WORDS: usize = 2 * N;
    fn write_words(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(self.q.as_slice());
        out.extend_from_slice(self.p.as_slice());
    }
    fn read_words(words: &[f64]) -> Option<Self> {
        (words.len() == 2 * N)
            .then(|| PhaseState::new(SVector::from_column_slice(&words[..N]), SVector::from_column_slice(&words[N..])))
    }
    /// Word by word, `q` then `p`: after a step the compiler tests each word as soon as it is
    /// computed and can branch early, where the `Σ 0·x` sum of [`PhaseState::is_finite`] waits
    /// for a chain of additions over all of them (a splitting step of Hénon–Heiles spends a
    /// quarter of the hand loop's time on that chain).
    #[inline]
    fn words_finite(&self) -> bool {
        self.q.iter().all(|w| w.is_finite()) && self.p.iter().all(|w| w.is_finite())
    }
}

/// `g`, then `μ`.
impl<E: FlatState, const D: usize> FlatState for LieState<E, D> {
    const WORDS: usize = E::WORDS + D;
    fn write_words(&self, out: &mut Vec<f64>) {
        self.g.write_words(out);
        out.extend_from_slice(self.mu.as_slice());
    }
    fn read_words(words: &[f64]) -> Option<Self> {
        if words.len() != Self::WORDS {
            return None;
        }
        let g = E::read_words(&words[..E::WORDS])?;
        Some(Self::new(g, SVector::from_column_slice(&words[E::WORDS..])))
    }
    fn words_finite(&self) -> bool {
        self.g.words_finite() && self.mu.iter().all(|w| w.is_finite())
    }
}

/// A state that a checkpoint saves as `f64` words and restores bit for bit: every
/// [`FlatState`] (a fixed number of words), and states sized at run time ([`DynPhaseState`]: an
/// N-body phase state read from a file), which are read back in the shape of the current state.
///
/// ```
/// use geom_core::step::{DynPhaseState, Words};
///
/// let s = DynPhaseState::from_slices(&[1.0, -0.0, 2.0], &[0.5, 3.0, f64::MIN_POSITIVE])?;
/// let mut words = Vec::new();
/// s.append_words(&mut words);
/// assert_eq!(words.len(), s.word_count());
/// let back = s.read_words_like(&words).unwrap();
/// assert!(back.q.iter().chain(back.p.iter()).zip(&words).all(|(a, b)| a.to_bits() == b.to_bits()));
/// assert!(s.read_words_like(&words[..4]).is_none());
/// # Ok::<(), geom_core::GeomError>(())
/// ```
pub trait Words: Sized {
    /// The number of words of `self`.
    fn word_count(&self) -> usize;
    /// Appends the words of `self` to `out`.
    fn append_words(&self, out: &mut Vec<f64>);
    /// The state written as `words`, shaped like `self`; `None` if they do not fit.
    fn read_words_like(&self, words: &[f64]) -> Option<Self>;
}

impl<St: FlatState> Words for St {
    fn word_count(&self) -> usize {
        St::WORDS
    }
    fn append_words(&self, out: &mut Vec<f64>) {
        FlatState::write_words(self, out);
    }
    fn read_words_like(&self, words: &[f64]) -> Option<Self> {
        St::read_words(words)
    }
}

/// `q`, then `p`, as [`PhaseState`]; read back with the length of `q` of the current state.
impl Words for DynPhaseState {
    fn word_count(&self) -> usize {
        self.q.len() + self.p.len()
    }
    fn append_words(&self, out: &mut Vec<f64>) {
        out.extend_from_slice(self.q.as_slice());
        out.extend_from_slice(self.p.as_slice());
    }
    fn read_words_like(&self, words: &[f64]) -> Option<Self> {
        let n = self.q.len();
        (words.len() == self.word_count())
            .then(|| Self { q: DVector::from_column_slice(&words[..n]), p: DVector::from_column_slice(&words[n..]) })
    }
}
