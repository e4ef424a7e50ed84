//! Variational equations on `T*G` in the left-trivialized tangent space: the tangent map of the
//! Hamilton–Pontryagin integrators by central differences, the Lyapunov spectrum and MEGNO on the
//! heavy top and the free rigid body (SO(3), `D = 3`, six exponents).

use crate::hp_common::rigid_body;

use geom_core::GeomError;
use geom_core::lie::{Chart, LieGroup, So3, So3xR3};
use integrators::hp::{self, LieState};
use integrators::models::HeavyTop;
use integrators::rkmk::{self, GroupState, Rkmk};
use integrators::variational_equations::{
    LieFiniteDifference, LieLyapunovSpectrum, LieMegno, TangentMap, apply_jacobian, lie_deviation, lie_perturb,
};
use integrators::{OneStep, PhaseState};
use nalgebra::{Matrix3, Vector3};

type State = LieState<Matrix3<f64>, 3>;

/// An asymmetric heavy top, `I = diag(1, 1.6, 2.2)`, its centre of mass off every principal axis
/// (`χ ∝ (1, 0.8, 0.6)`, `mgl = 1`), tilted and spinning with kinetic energy of the order of
/// the potential's range.
fn top() -> HeavyTop {
    HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(1.0, 1.6, 2.2)), 1.0, Vector3::new(1.0, 0.8, 0.6)).unwrap()
}

/// A chaotic orbit of [`top`] (MEGNO `⟨Y⟩` grows without bound, test below).
fn chaotic() -> State {
    LieState::new(So3.exp(&Vector3::new(1.2, 0.4, 0.0)), Vector3::new(0.8, -0.6, 1.0))
}

fn sv() -> LieFiniteDifference<So3, impl OneStep<State>> {
    LieFiniteDifference::new(So3, hp::stormer_verlet(So3, Chart::Cayley, top()).unwrap())
}

fn deviation() -> PhaseState<3> {
    PhaseState::new(Vector3::new(0.3, -0.5, 0.2), Vector3::new(0.4, 0.1, -0.6))
}

fn spectrum<M: TangentMap<State, 3>>(m: &M, x: State, h: f64, t: f64) -> [f64; 6] {
    let mut l = LieLyapunovSpectrum::<_, 3, 6>::start(m, x, h).unwrap();
    l.advance(m, (t / h).round() as usize).unwrap();
    l.exponents()
}

/// RKMK4 (exp) on `SO(3) × R^3` read as a method on `T*SO(3)`: explicit, not symplectic.
struct RkmkTop(Rkmk<So3xR3, HeavyTop, 6, 4>);
impl OneStep<State> for RkmkTop {
    fn name(&self) -> String {
        self.0.name()
    }
    fn order(&self) -> u32 {
        4
    }
    fn step(&self, s: &mut State, h: f64) -> Result<(), GeomError> {
        let mut y = GroupState::new(0.0, (s.g, s.mu));
        self.0.step(&mut y, h)?;
        (s.g, s.mu) = y.g;
        Ok(())
    }
}

/// HP Störmer–Verlet followed by the damping `μ ← (1 − c h) μ`: `det M = (1 − c h)³` per step
/// on top of the symplectic step, so the full spectrum sums to `3 ln(1 − c h) / h`.
struct Damped<M>(M, f64);
impl<M: OneStep<State>> OneStep<State> for Damped<M> {
    fn name(&self) -> String {
        format!("{} damped", self.0.name())
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(&self, s: &mut State, h: f64) -> Result<(), GeomError> {
        let mut y = *s;
        self.0.step(&mut y, h)?;
        y.mu *= 1.0 - self.1 * h;
        *s = y;
        Ok(())
    }
}

#[test]
#[ignore = "exploration: MEGNO over initial conditions"]
fn explore() {
    let fd = sv();
    for (i, a) in [0.3, 0.8, 1.2, 1.6, 2.0].iter().enumerate() {
        for (j, p) in [
            Vector3::new(0.8, -0.6, 1.0),
            Vector3::new(0.2, 0.5, 0.3),
            Vector3::new(1.5, 0.0, -1.0),
            Vector3::new(0.0, 2.0, 0.5),
        ]
        .iter()
        .enumerate()
        {
            let x = LieState::new(So3.exp(&Vector3::new(*a, 0.4, 0.0)), *p);
            let mut m = LieMegno::start(&fd, x, deviation(), 0.05).unwrap();
            m.advance(&fd, 10_000).unwrap();
            println!("{i} {j} a={a} p={p:?} E={:.3} <Y>={:.2} λ={:.4}", top().energy(&x), m.mean(), m.lyapunov());
        }
    }
}
