//! The partitioned Runge–Kutta collocation methods: Gauss–Legendre and Lobatto IIIA–IIIB with `S`
//! stages (`B = 2 S` Newton blocks), their aliases, and the stage solve and step Jacobian they share.

use super::jacobian::{PhaseJacobian, StepJacobian};
use super::kernels::{Delta, Matrix, Vector, apply, checked};
use crate::driver::Increment;
use crate::tableau::{self, Tableau};
use geom_core::GeomError;
use geom_core::function::{Hessian, PhaseSpaceDerivatives};
use geom_core::linalg::{BlockLu, BlockMatrix, BlockVector};
use geom_core::newton::{NewtonOptions, newton_blocks};
use geom_core::step::{OneStep, PhaseState, check_step};

/// Coefficients of an `S`-stage partitioned RK method: `a` for `q`, `â` for `p`, common `b`, `c`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Prk<const S: usize> {
    aq: [[f64; S]; S],
    ap: [[f64; S]; S],
    b: [f64; S],
    c: [f64; S],
}

impl<const S: usize> Prk<S> {
    /// Stage residual `G(Z)` (module documentation) at the stage increments `x`, and its block
    /// Jacobian if asked for.
    #[inline]
    fn residual<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize, const B: usize>(
        &self,
        ham: &H,
        state: &PhaseState<N>,
        h: f64,
        x: &BlockVector<f64, N, B>,
        jac: Option<&mut BlockMatrix<f64, N, B>>,
    ) -> BlockVector<f64, N, B> {
        let mut gq = [Vector::<N>::zeros(); S];
        let mut gp = [Vector::<N>::zeros(); S];
        match jac {
            Some(j) => {
                let mut hess = [Hessian::<N>::zeros(); S];
                for s in 0..S {
                    ((gq[s], gp[s]), hess[s]) = ham.gradient_and_hessian(&(state.q + x[s]), &(state.p + x[S + s]));
                }
                self.jacobian(&hess, h, j);
            }
            None => {
                for s in 0..S {
                    (gq[s], gp[s]) = ham.gradient(&(state.q + x[s]), &(state.p + x[S + s]));
                }
            }
        }
        let mut r = [Vector::<N>::zeros(); B];
        for i in 0..S {
            let (mut rq, mut rp) = (x[i], x[S + i]);
            for j in 0..S {
                rq -= gp[j] * (h * self.aq[i][j]);
                rp += gq[j] * (h * self.ap[i][j]);
            }
            r[i] = rq;
            r[S + i] = rp;
        }
        r
    }

    /// The block Jacobian `G_Z` from the stage Hessians (module documentation).
    #[inline]
    fn jacobian<const N: usize, const B: usize>(&self, hess: &[Hessian<N>; S], h: f64, j: &mut BlockMatrix<f64, N, B>) {
        let id = Matrix::<N>::identity();
        for i in 0..S {
            for k in 0..S {
                let d = if i == k { id } else { Matrix::zeros() };
                let (ha, hb) = (h * self.aq[i][k], h * self.ap[i][k]);
                j[i][k] = d - hess[k].qp.transpose() * ha;
                j[i][S + k] = hess[k].pp * -ha;
                j[S + i][k] = hess[k].qq * hb;
                j[S + i][S + k] = d + hess[k].qp * hb;
            }
        }
    }

    /// Solve the stage equations; returns the stage increments `Z`.
    #[inline]
    fn solve<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize, const B: usize>(
        &self,
        ham: &H,
        state: &PhaseState<N>,
        h: f64,
        newton: &NewtonOptions,
    ) -> Result<BlockVector<f64, N, B>, GeomError> {
        let (gq, gp) = ham.try_gradient(&state.q, &state.p)?;
        let mut guess = [Vector::<N>::zeros(); B];
        for s in 0..S {
            guess[s] = gp * (self.c[s] * h);
            guess[S + s] = gq * (-self.c[s] * h);
        }
        let (z, _) = newton_blocks(|x, jac| Ok(self.residual(ham, state, h, x, jac)), &guess, newton)?;
        Ok(z)
    }

    /// `(Δq, Δp) = h Σ b_i (H_p, −H_q)(Y_i)` at the stages `Y_i = y + Z_i`.
    #[inline]
    fn update<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize, const B: usize>(
        &self,
        ham: &H,
        state: &PhaseState<N>,
        h: f64,
        z: &BlockVector<f64, N, B>,
    ) -> Delta<N> {
        let (mut dq, mut dp) = (Vector::<N>::zeros(), Vector::<N>::zeros());
        for s in 0..S {
            let (gq, gp) = ham.gradient(&(state.q + z[s]), &(state.p + z[S + s]));
            dq += gp * (h * self.b[s]);
            dp -= gq * (h * self.b[s]);
        }
        (dq, dp)
    }

    fn increment<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize, const B: usize>(
        &self,
        ham: &H,
        state: &PhaseState<N>,
        h: f64,
        newton: &NewtonOptions,
    ) -> Result<Delta<N>, GeomError> {
        check_step(h)?;
        let z: BlockVector<f64, N, B> = self.solve(ham, state, h, newton)?;
        checked(state, self.update(ham, state, h, &z))
    }

    /// Step and exact Jacobian by implicit differentiation: `dZ/dy = −G_Z⁻¹ G_y` with
    /// `G_y` the derivative of the stage residual with respect to `y = (q, p)` at fixed `Z`
    /// (`∂G_q,i/∂q = −h Σ_j a_ij H_pq(Y_j)`, `∂G_q,i/∂p = −h Σ_j a_ij H_pp(Y_j)`,
    /// `∂G_p,i/∂q = h Σ_j â_ij H_qq(Y_j)`, `∂G_p,i/∂p = h Σ_j â_ij H_qp(Y_j)`), then
    /// `M = I + h Σ_i b_i Df(Y_i) (I + dZ_i/dy)`, `Df = [[H_pq, H_pp], [−H_qq, −H_qp]]`.
    fn step_jacobian<H: PhaseSpaceDerivatives<N> + ?Sized, const N: usize, const B: usize>(
        &self,
        ham: &H,
        state: &PhaseState<N>,
        h: f64,
        newton: &NewtonOptions,
    ) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
        check_step(h)?;
        let z: BlockVector<f64, N, B> = self.solve(ham, state, h, newton)?;
        let next = apply(state, &self.update(ham, state, h, &z))?;
        let mut hess = [Hessian::<N>::zeros(); S];
        for s in 0..S {
            hess[s] = ham.try_hessian(&(state.q + z[s]), &(state.p + z[S + s]))?;
        }
        let mut gz = [[Matrix::<N>::zeros(); B]; B];
        self.jacobian(&hess, h, &mut gz);
        let lu = BlockLu::factor(&gz, "partitioned RK stage Jacobian")?;
        // G_y in block rows, separately for the q- and the p-columns
        let mut gy_q = [Matrix::<N>::zeros(); B];
        let mut gy_p = [Matrix::<N>::zeros(); B];
        for i in 0..S {
            for (j, hs) in hess.iter().enumerate() {
                let (ha, hb) = (h * self.aq[i][j], h * self.ap[i][j]);
                gy_q[i] -= hs.qp.transpose() * ha;
                gy_p[i] -= hs.pp * ha;
                gy_q[S + i] += hs.qq * hb;
                gy_p[S + i] += hs.qp * hb;
            }
        }
        let mut m = PhaseJacobian::identity();
        for (part, gy) in [gy_q, gy_p].iter().enumerate() {
            for k in 0..N {
                let rhs: BlockVector<f64, N, B> = core::array::from_fn(|i| -gy[i].column(k).into_owned());
                let dz = lu.solve(&rhs);
                let (mut dq, mut dp) = (Vector::<N>::zeros(), Vector::<N>::zeros());
                for s in 0..S {
                    let (mut yq, mut yp) = (dz[s], dz[S + s]);
                    if part == 0 {
                        yq[k] += 1.0;
                    } else {
                        yp[k] += 1.0;
                    }
                    dq += (hess[s].qp.tr_mul(&yq) + hess[s].pp * yp) * (h * self.b[s]);
                    dp -= (hess[s].qq * yq + hess[s].qp * yp) * (h * self.b[s]);
                }
                let (cq, cp): (&mut Matrix<N>, &mut Matrix<N>) =
                    if part == 0 { (&mut m.qq, &mut m.pq) } else { (&mut m.qp, &mut m.pp) };
                for i in 0..N {
                    cq[(i, k)] += dq[i];
                    cp[(i, k)] += dp[i];
                }
            }
        }
        Ok((next, m))
    }
}

/// The `S`-stage Gauss–Legendre collocation method (HLW II.1.3, Table II.1.1 for `s = 1, 2, 3`;
/// coefficients from [`tableau::gauss_legendre`]) for a general Hamiltonian: order `2s`,
/// symmetric, symplectic (`b_i a_ij + b_j a_ji = b_i b_j`, HLW Thm VI.4.3), conserves every
/// quadratic invariant (HLW Thm IV.2.1). `s = 1` is the implicit midpoint rule.
///
/// `B` must be `2 S` (checked at compile time; use the aliases [`Gauss1`] … [`Gauss5`]): the
/// stage unknowns are `2S` blocks of size `N` (module documentation).
///
/// The stage system is solved by simplified Newton ([`NewtonOptions::simplified`]): the block
/// Jacobian `G_Z` (module documentation) is evaluated and factored at the guess
/// `Z_i = c_i h f(y)`, from the `S` stage Hessians (the `N(2N + 1)` hyper-dual passes of an
/// [`AutoDiff`](geom_core::function::AutoDiff) model per stage, `N(N + 1)` of
/// [`AutoDiff::separable`](geom_core::function::AutoDiff::separable), whose mixed block is zero),
/// and reused by every iteration of the step (re-evaluated only after a step that contracts by
/// less than half); an iterate accepted on the residual gets one more correction with the
/// factored Jacobian, so that the quadratic invariants hold to round-off over long runs (Kepler's
/// angular momentum drifts 5e-15 over 20 000 steps of `h = 0.05` against 1.4e-13 with full
/// Newton, whose Jacobian costs `S` Hessians per iteration; the trajectories agree to 1e-12
/// after 2000 steps of `h = 0.01`: `crates/integrators/tests/ad_implicit.rs`). Full Newton
/// remains available with [`with_newton`](Self::with_newton)`(NewtonOptions::integrator())`.
///
/// ```
/// use geom_core::function::{AutoDiff, PhaseSpaceFunction};
/// use geom_core::Scalar;
/// use integrators::classical::Gauss2;
/// use integrators::{OneStep, PhaseState};
/// use nalgebra::SVector;
///
/// struct Oscillator;
/// impl PhaseSpaceFunction<1> for Oscillator {
///     fn eval<S: Scalar>(&self, q: &SVector<S, 1>, p: &SVector<S, 1>) -> S {
///         (q[0] * q[0] + p[0] * p[0]) * S::from(0.5)
///     }
/// }
/// let gauss = Gauss2::new(AutoDiff(Oscillator))?;
/// assert_eq!(gauss.order(), 4);
/// let mut s = PhaseState::new(SVector::from([1.0]), SVector::from([0.0]));
/// for _ in 0..10 {
///     gauss.step(&mut s, 0.1)?;
/// }
/// assert!((s.q[0] - 1f64.cos()).abs() < 1e-6);
/// # Ok::<(), geom_core::GeomError>(())
/// ```
#[derive(Debug, Clone)]
pub struct GaussCollocation<H, const S: usize, const B: usize> {
    hamiltonian: H,
    prk: Prk<S>,
    newton: NewtonOptions,
}

/// The partitioned Runge–Kutta pair Lobatto IIIA (for `q`) – Lobatto IIIB (for `p`) with `S`
/// stages (HLW II.2.2, Table II.2.2; VI.4, Thm VI.4.6; coefficients from
/// [`tableau::lobatto_iiia`] and [`tableau::lobatto_iiib`]) for a general Hamiltonian:
/// order `2s − 2`, symmetric, symplectic (`b_i â_ij + b_j a_ji = b_i b_j`). `s = 2` is
/// Störmer–Verlet.
///
/// `B` must be `2 S` (compile-time check; aliases [`LobattoIIIAIIIB2`] … [`LobattoIIIAIIIB5`]).
#[derive(Debug, Clone)]
pub struct LobattoIIIAIIIB<H, const S: usize, const B: usize> {
    hamiltonian: H,
    prk: Prk<S>,
    newton: NewtonOptions,
}

/// Gauss–Legendre with 1 stage (implicit midpoint, order 2).
pub type Gauss1<H> = GaussCollocation<H, 1, 2>;
/// Gauss–Legendre with 2 stages (order 4).
pub type Gauss2<H> = GaussCollocation<H, 2, 4>;
/// Gauss–Legendre with 3 stages (order 6).
pub type Gauss3<H> = GaussCollocation<H, 3, 6>;
/// Gauss–Legendre with 4 stages (order 8).
pub type Gauss4<H> = GaussCollocation<H, 4, 8>;
/// Gauss–Legendre with 5 stages (order 10).
pub type Gauss5<H> = GaussCollocation<H, 5, 10>;
/// Lobatto IIIA–IIIB with 2 stages (Störmer–Verlet, order 2).
pub type LobattoIIIAIIIB2<H> = LobattoIIIAIIIB<H, 2, 4>;
/// Lobatto IIIA–IIIB with 3 stages (order 4).
pub type LobattoIIIAIIIB3<H> = LobattoIIIAIIIB<H, 3, 6>;
/// Lobatto IIIA–IIIB with 4 stages (order 6).
pub type LobattoIIIAIIIB4<H> = LobattoIIIAIIIB<H, 4, 8>;
/// Lobatto IIIA–IIIB with 5 stages (order 8).
pub type LobattoIIIAIIIB5<H> = LobattoIIIAIIIB<H, 5, 10>;

macro_rules! prk_method {
    ($ty:ident, $label:literal, $newton:literal, $default:expr, $build:expr) => {
        impl<H, const S: usize, const B: usize> $ty<H, S, B> {
            const BLOCKS: () = assert!(B == 2 * S, "the number of stage blocks B must be 2 S");

            #[doc = concat!("The ", $label, " method with `S` stages for `hamiltonian`, with ", $newton, ";")]
            /// [`GeomError::InvalidParameter`] if no tableau with `S` stages exists (Gauss:
            /// `1..=5`, Lobatto: `2..=5`). `B != 2 S` does not compile.
            pub fn new(hamiltonian: H) -> Result<Self, GeomError> {
                let () = Self::BLOCKS;
                let build: fn(usize) -> Result<(Tableau, Tableau), GeomError> = $build;
                let (tq, tp) = build(S)?;
                let (aq, b, c) = tq.arrays::<S>()?;
                let (ap, _, _) = tp.arrays::<S>()?;
                let newton: fn() -> NewtonOptions = $default;
                Ok(Self { hamiltonian, prk: Prk { aq, ap, b, c }, newton: newton() })
            }
            /// The same method with other Newton options (e.g. simplified Newton,
            /// [`geom_core::newton::JacobianUpdate::Frozen`]).
            pub fn with_newton(self, newton: NewtonOptions) -> Self {
                Self { newton, ..self }
            }
            /// The Hamiltonian.
            pub fn hamiltonian(&self) -> &H {
                &self.hamiltonian
            }
            /// The Newton options.
            pub fn newton_options(&self) -> &NewtonOptions {
                &self.newton
            }
            /// `(a, â, b, c)`: the coefficients for `q`, for `p`, the weights and the nodes.
            #[allow(clippy::type_complexity)]
            pub fn coefficients(&self) -> ([[f64; S]; S], [[f64; S]; S], [f64; S], [f64; S]) {
                (self.prk.aq, self.prk.ap, self.prk.b, self.prk.c)
            }
        }
        impl<H: PhaseSpaceDerivatives<N>, const N: usize, const S: usize, const B: usize> OneStep<PhaseState<N>>
            for $ty<H, S, B>
        {
            fn name(&self) -> String {
                format!("{} {}", $label, S)
            }
            fn order(&self) -> u32 {
                Self::ORDER
            }
            fn is_symmetric(&self) -> bool {
                true
            }
            fn step(&self, state: &mut PhaseState<N>, h: f64) -> Result<(), GeomError> {
                let delta = Increment::increment(self, state, h)?;
                *state = apply(state, &delta)?;
                Ok(())
            }
        }
        impl<H: PhaseSpaceDerivatives<N>, const N: usize, const S: usize, const B: usize> Increment<N>
            for $ty<H, S, B>
        {
            fn increment(&self, state: &PhaseState<N>, h: f64) -> Result<Delta<N>, GeomError> {
                let () = Self::BLOCKS;
                self.prk.increment::<H, N, B>(&self.hamiltonian, state, h, &self.newton)
            }
        }
        impl<H: PhaseSpaceDerivatives<N>, const N: usize, const S: usize, const B: usize> StepJacobian<N>
            for $ty<H, S, B>
        {
            fn step_jacobian(
                &self,
                state: &PhaseState<N>,
                h: f64,
            ) -> Result<(PhaseState<N>, PhaseJacobian<N>), GeomError> {
                let () = Self::BLOCKS;
                self.prk.step_jacobian::<H, N, B>(&self.hamiltonian, state, h, &self.newton)
            }
        }
    };
}

prk_method!(
    GaussCollocation,
    "Gauss–Legendre",
    "simplified Newton ([`NewtonOptions::simplified`], see [`GaussCollocation`])",
    NewtonOptions::simplified,
    |s| {
        let t = tableau::gauss_legendre(s)?;
        Ok((t.clone(), t))
    }
);
prk_method!(
    LobattoIIIAIIIB,
    "Lobatto IIIA–IIIB",
    "full Newton ([`NewtonOptions::integrator`])",
    NewtonOptions::integrator,
    |s| Ok((tableau::lobatto_iiia(s)?, tableau::lobatto_iiib(s)?))
);

impl<H, const S: usize, const B: usize> GaussCollocation<H, S, B> {
    const ORDER: u32 = 2 * S as u32;
}
impl<H, const S: usize, const B: usize> LobattoIIIAIIIB<H, S, B> {
    const ORDER: u32 = 2 * S as u32 - 2;
}
