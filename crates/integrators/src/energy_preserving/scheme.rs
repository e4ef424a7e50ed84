//! The discrete gradient method `x₁ = x₀ + h J ∇̄H(x₀, x₁)`: the trait of a discrete gradient and
//! the one Newton solve every method of the module shares.

use geom_core::GeomError;
use geom_core::linalg::{BlockMatrix, BlockVector};
use geom_core::newton::{NewtonOptions, newton_blocks};
use geom_core::step::PhaseState;
use nalgebra::{SMatrix, SVector};

/// A vector of `R^{2N}` in its two halves `[q-part, p-part]` (a discrete gradient
/// `[∇̄_q H, ∇̄_p H]`).
pub type PhaseVector<const N: usize> = [SVector<f64, N>; 2];

/// A `2N × 2N` matrix in `N × N` blocks, `m[a][b]` with `a, b ∈ {0 = q, 1 = p}`: the Jacobian
/// `∂∇̄H/∂x'` as `m[a][b] = ∂∇̄_a H/∂x'_b`.
pub type PhaseMatrix<const N: usize> = [[SMatrix<f64, N, N>; 2]; 2];

/// `ε^{1/3}` (`ε = 2⁻⁵²`), the relative size below which a discrete gradient replaces a
/// difference quotient by a derivative ([`crate::energy_preserving::Gonzalez`],
/// [`crate::energy_preserving::ItohAbe`]).
///
/// Why this size: a difference quotient `(H(x') − H(x))/δ` over an increment `δ` carries the
/// rounding error `ε |H| / δ` of the two values, while the derivative at the middle of the
/// increment differs from it by `|H'''| δ² / 24` and breaks the identity
/// `∇̄H·Δ = H(x') − H(x)` by `|H'''| δ³ / 24`. At `δ = ε^{1/3} s` (`s = 1 + |x|`, the scale of the
/// coordinates) both errors of the gradient are `O(ε^{2/3})` (the two balance), and the energy
/// error of a step that takes the derivative is `|H'''| ε s³ / 24`, the rounding level of `H`
/// itself: a larger threshold would give up energy conservation, a smaller one would only add
/// rounding noise to the difference quotients.
///
/// ```
/// let t = integrators::energy_preserving::DIFFERENCE_THRESHOLD;
/// assert!((t - f64::EPSILON.cbrt()).abs() < 1e-20);
/// ```
pub const DIFFERENCE_THRESHOLD: f64 = 6.055454452393343e-6;

/// A discrete gradient `∇̄H(x, x')` of a Hamiltonian on `T*R^N` (module documentation):
/// `∇̄H(x, x')·(x' − x) = H(x') − H(x)` and `∇̄H(x, x) = ∇H(x)`. Object-safe.
///
/// Implemented by [`crate::energy_preserving::Gonzalez`], [`crate::energy_preserving::ItohAbe`]
/// and [`crate::energy_preserving::Avf`] (a discrete gradient when its quadrature is exact).
pub trait DiscreteGradient<const N: usize>: Send + Sync {
    /// `∇̄H(x, x')` as `[q-part, p-part]`.
    fn discrete_gradient(&self, x: &PhaseState<N>, x1: &PhaseState<N>) -> PhaseVector<N>;

    /// `(∇̄H(x, x'), D)` with `D ≈ ∂∇̄H/∂x'` in blocks ([`PhaseMatrix`]), the matrix of the
    /// Newton iteration (each implementation states whether it is exact).
    fn discrete_gradient_and_jacobian(&self, x: &PhaseState<N>, x1: &PhaseState<N>)
    -> (PhaseVector<N>, PhaseMatrix<N>);

    /// `(∇̄H(x, x'), M)` with `M` the matrix the method's Newton iteration factors at its first
    /// iterate (every method of the module uses a simplified Newton by default, so `M` need only
    /// approximate `∂∇̄H/∂x'` to the order of the change of the Jacobian over the iteration):
    /// [`discrete_gradient_and_jacobian`](Self::discrete_gradient_and_jacobian) unless an
    /// implementation has a cheaper one (each states it).
    #[inline]
    fn discrete_gradient_and_newton_matrix(
        &self,
        x: &PhaseState<N>,
        x1: &PhaseState<N>,
    ) -> (PhaseVector<N>, PhaseMatrix<N>) {
        self.discrete_gradient_and_jacobian(x, x1)
    }
}

/// One step `x₁ = x₀ + h J ∇̄H(x₀, x₁)` from `state`: Newton on the increment `z = x₁ − x₀`,
/// `F(z) = (z_q − h ∇̄_p H, z_p + h ∇̄_q H)`, from `z = h J g` (`g = [H_q, H_p]` at `x₀`, given by
/// the caller, who also validated `h` and the state), with the block Jacobian
/// (`D` from [`DiscreteGradient::discrete_gradient_and_newton_matrix`])
///
/// ```text
///     ∂F_q/∂z_q = I − h D_pq,    ∂F_q/∂z_p = −h D_pp,
///     ∂F_p/∂z_q = h D_qq,        ∂F_p/∂z_p = I + h D_qp,      D = ∂∇̄H/∂x'.
/// ```
///
/// Returns `x₀ + z` (not `x₀ + h J ∇̄H` at the solution: the identity
/// `H(x₀ + z) − H(x₀) = ∇̄H(x₀, x₀ + z)·z` holds at the point the discrete gradient was taken at).
#[inline]
pub(crate) fn solve<D: DiscreteGradient<N> + ?Sized, const N: usize>(
    dg: &D,
    state: &PhaseState<N>,
    gradient: &PhaseVector<N>,
    h: f64,
    newton: &NewtonOptions,
) -> Result<PhaseState<N>, GeomError> {
    let id = SMatrix::<f64, N, N>::identity();
    let guess: BlockVector<f64, N, 2> = [gradient[1] * h, gradient[0] * -h];
    let (z, _) = newton_blocks(
        |z: &BlockVector<f64, N, 2>, jac: Option<&mut BlockMatrix<f64, N, 2>>| {
            let x1 = PhaseState::new(state.q + z[0], state.p + z[1]);
            let g = match jac {
                Some(j) => {
                    let (g, d) = dg.discrete_gradient_and_newton_matrix(state, &x1);
                    *j = [[id - d[1][0] * h, d[1][1] * -h], [d[0][0] * h, id + d[0][1] * h]];
                    g
                }
                None => dg.discrete_gradient(state, &x1),
            };
            Ok([z[0] - g[1] * h, z[1] + g[0] * h])
        },
        &guess,
        newton,
    )?;
    let next = PhaseState::new(state.q + z[0], state.p + z[1]);
    if next.is_finite() { Ok(next) } else { Err(GeomError::NonFinite { what: "state after step" }) }
}

/// The methods' shared constructors, accessors and `OneStep` implementation: `$ty<H $(, const
/// $c)?>` holds `hamiltonian: H` and `newton: NewtonOptions` and implements [`DiscreteGradient`];
/// `$order` and `$symmetric` are expressions of `self`.
macro_rules! discrete_gradient_method {
    ($ty:ident $(, $c:ident)?; name = $name:expr; order = $order:expr; symmetric = $symmetric:expr) => {
        impl<H $(, const $c: usize)?> $ty<H $(, $c)?> {
            /// The same method with other Newton options (default
            /// [`NewtonOptions::simplified`](geom_core::newton::NewtonOptions::simplified)).
            pub fn with_newton(self, newton: geom_core::newton::NewtonOptions) -> Self {
                Self { newton, ..self }
            }
            /// The Hamiltonian.
            pub fn hamiltonian(&self) -> &H {
                &self.hamiltonian
            }
            /// The Newton options.
            pub fn newton_options(&self) -> &geom_core::newton::NewtonOptions {
                &self.newton
            }
        }

        impl<H: geom_core::function::PhaseSpaceDerivatives<N>, const N: usize $(, const $c: usize)?>
            geom_core::step::OneStep<geom_core::step::PhaseState<N>> for $ty<H $(, $c)?>
        {
            fn name(&self) -> String {
                let f: fn(&Self) -> String = $name;
                f(self)
            }
            fn order(&self) -> u32 {
                let f: fn(&Self) -> u32 = $order;
                f(self)
            }
            fn is_symmetric(&self) -> bool {
                let f: fn(&Self) -> bool = $symmetric;
                f(self)
            }
            fn step(&self, state: &mut geom_core::step::PhaseState<N>, h: f64) -> Result<(), geom_core::GeomError> {
                geom_core::step::check_step(h)?;
                // the gradient at x₀ for the guess; `try_` validates the state and the model there
                let (gq, gp) = self.hamiltonian.try_gradient(&state.q, &state.p)?;
                *state = $crate::energy_preserving::scheme::solve(self, state, &[gq, gp], h, &self.newton)?;
                Ok(())
            }
        }
    };
}
pub(crate) use discrete_gradient_method;
