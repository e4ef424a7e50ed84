//! The cubic Hermite interpolant of one step (dense output of order 3 for any one-step method).

use geom_core::step::PhaseState;

/// The cubic Hermite interpolant of a step `x₀ → x₁` of size `h`, with the vector field values
/// `f₀ = f(x₀)`, `f₁ = f(x₁)` (Hairer, Nørsett & Wanner, *Solving ODEs I*, II.6, (6.7)):
///
/// ```text
///     u(θ) = (1 − θ) x₀ + θ x₁ + θ (θ − 1) [ (1 − 2θ)(x₁ − x₀) + (θ − 1) h f₀ + θ h f₁ ],
/// ```
///
/// `θ ∈ [0, 1]`, with `u(0) = x₀`, `u(1) = x₁`, `u'(0) = h f₀`, `u'(1) = h f₁`. For exact
/// end values its error is `h⁴ max|x⁽⁴⁾| / 384` (order 3); with the values of a method of
/// order `p` it is `O(h^{min(p, 3) + 1})` uniformly in `θ`.
///
/// ```
/// use integrators::events::Hermite;
/// use integrators::PhaseState;
/// use nalgebra::Vector1;
///
/// // x(t) = (t³, 3t²) reproduced exactly by a cubic
/// let s = |t: f64| PhaseState::new(Vector1::new(t.powi(3)), Vector1::new(3.0 * t * t));
/// let f = |t: f64| PhaseState::new(Vector1::new(3.0 * t * t), Vector1::new(6.0 * t));
/// let u = Hermite::new(s(1.0), f(1.0), s(1.5), f(1.5), 0.5);
/// assert!((u.eval(0.4).q[0] - 1.2f64.powi(3)).abs() < 1e-14);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hermite<const N: usize> {
    x0: PhaseState<N>,
    x1: PhaseState<N>,
    /// `h f₀`.
    hf0: PhaseState<N>,
    /// `h f₁`.
    hf1: PhaseState<N>,
}

impl<const N: usize> Hermite<N> {
    /// The interpolant of the step `x0 → x1` of size `h` with field values `f0`, `f1`.
    pub fn new(x0: PhaseState<N>, f0: PhaseState<N>, x1: PhaseState<N>, f1: PhaseState<N>, h: f64) -> Self {
        let scale = |f: PhaseState<N>| PhaseState::new(f.q * h, f.p * h);
        Self { x0, x1, hf0: scale(f0), hf1: scale(f1) }
    }

    /// `u(θ)`.
    #[inline]
    pub fn eval(&self, theta: f64) -> PhaseState<N> {
        let t = theta;
        let (a, b, c) = (1.0 - t, t * (t - 1.0), 1.0 - 2.0 * t);
        let comb = |x0: &nalgebra::SVector<f64, N>,
                    x1: &nalgebra::SVector<f64, N>,
                    f0: &nalgebra::SVector<f64, N>,
                    f1: &nalgebra::SVector<f64, N>| {
            x0 * a + x1 * t + ((x1 - x0) * c + f0 * (t - 1.0) + f1 * t) * b
        };
        PhaseState::new(
            comb(&self.x0.q, &self.x1.q, &self.hf0.q, &self.hf1.q),
            comb(&self.x0.p, &self.x1.p, &self.hf0.p, &self.hf1.p),
        )
    }
}
