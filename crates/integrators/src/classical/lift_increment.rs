//! The [`Increment`] of the cotangent-lift integrators of `discretization`, for compensated
//! summation.

use super::kernels::{Delta, Matrix, Vector, checked};
use crate::driver::Increment;
use discretization::{CotangentLiftIntegrator, EuclideanMap};
use geom_core::GeomError;
use geom_core::function::PhaseSpaceDerivatives;
use geom_core::newton::newton_blocks;
use geom_core::step::{PhaseState, check_step};

/// The increment of the integrator induced by a discretization map (docs/math.md §B.1). For the
/// θ-maps the reduced system is solved for the offsets `(q̄ − q_k, p̄ − p_k)`,
/// ```text
///   X = θ h H_p(q_k + X, p_k + Y),   Y = −(1−θ) h H_q(q_k + X, p_k + Y),
///   Δq = h H_p(q̄, p̄),               Δp = −h H_q(q̄, p̄),
/// ```
/// (Newton matrix `[[I − θh H_pq, −θh H_pp], [(1−θ)h H_qq, I + (1−θ)h H_qp]]`), so the
/// increment is accurate to its own last bit; for a general map it is the difference
/// `Ψ_h(y) − y` of the states, which already carries the round-off of the new state (compensated
/// summation then cannot improve on the plain step).
impl<R: EuclideanMap<N>, H: PhaseSpaceDerivatives<N>, const N: usize> Increment<N> for CotangentLiftIntegrator<R, H> {
    fn increment(&self, state: &PhaseState<N>, h: f64) -> Result<Delta<N>, GeomError> {
        check_step(h)?;
        let ham = self.hamiltonian();
        let Some(theta) = self.map().theta() else {
            let next = self.advance(state, h)?;
            return Ok((next.q - state.q, next.p - state.p));
        };
        let (gq, gp) = ham.try_gradient(&state.q, &state.p)?;
        let (a, b) = (theta * h, (1.0 - theta) * h);
        let id = Matrix::<N>::identity();
        let ([x, y], _) = newton_blocks(
            |z: &[Vector<N>; 2], jac: Option<&mut [[Matrix<N>; 2]; 2]>| {
                let (q, p) = (state.q + z[0], state.p + z[1]);
                let (gq, gp) = match jac {
                    Some(j) => {
                        let (g, hs) = ham.gradient_and_hessian(&q, &p);
                        *j = [[id - hs.qp.transpose() * a, hs.pp * -a], [hs.qq * b, id + hs.qp * b]];
                        g
                    }
                    None => ham.gradient(&q, &p),
                };
                Ok([z[0] - gp * a, z[1] + gq * b])
            },
            &[gp * a, gq * -b],
            self.newton_options(),
        )?;
        let (gq, gp) = ham.gradient(&(state.q + x), &(state.p + y));
        checked(state, (gp * h, gq * -h))
    }
}
