//! The heavy top through the discretization-map route of Barbero-Liñán, Marrero and Martín de
//! Diego ("From retraction maps to symplectic-momentum numerical integrators", 2024,
//! arXiv:2401.14800): the Lie-group midpoint map `R_d(g, ξ) = (g exp(-ξ/2), g exp(ξ/2))` on SO(3),
//! its cotangent lift applied to `H(R, Π) = ½ Πᵀ I⁻¹ Π + mgl e3·R χ` written once (derivatives by
//! AD), next to the same map with Cayley, the Lagrangian route, a map that is not left-equivariant
//! (the negative control of Theorem 2) and Hamilton–Pontryagin Störmer–Verlet.
//!
//! `I = diag(1, 5, 6)`, `mgl = 1`, `χ = e3`; printed: the largest errors of the energy, of the
//! vertical spatial angular momentum `e3·RΠ` (conserved by every left-equivariant map) and of
//! `RᵀR = I`, and the cost per step.
//!
//! Run: `cargo run --release --example heavy_top_discretization_map`.

use discretization::lie_function::{LieAutoDiff, LieFunction};
use discretization::{
    LieAutoDiffMap, LieCotangentLiftIntegrator, LieGroupThetaMap, LieLagrangianIntegrator, LieMapModel, LieState,
    OneStep,
};
use geom_core::lie::{Chart, LieGroup, So3};
use geom_core::{GeomError, Scalar};
use integrators::hp;
use integrators::models::HeavyTop;
use nalgebra::{Matrix3, SVector, Vector3};
use std::time::Instant;

const INERTIA: [f64; 3] = [1.0, 5.0, 6.0];

/// `H(R, Π) = ½ Πᵀ I⁻¹ Π + e3·R e3`.
#[derive(Debug, Clone, Copy)]
struct Top;
impl<S: Scalar> LieFunction<S, So3, 3> for Top {
    #[inline]
    fn eval(&self, _: &So3, r: &Matrix3<S>, pi: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |a, i| a + pi[i] * pi[i] / S::from(INERTIA[i])) * S::from(0.5) + r[(2, 2)]
    }
}
/// `L(R, Ω) = ½ Ωᵀ I Ω - e3·R e3`.
#[derive(Debug, Clone, Copy)]
struct TopL;
impl<S: Scalar> LieFunction<S, So3, 3> for TopL {
    #[inline]
    fn eval(&self, _: &So3, r: &Matrix3<S>, w: &SVector<S, 3>) -> S {
        (0..3).fold(S::from(0.0), |a, i| a + w[i] * w[i] * S::from(INERTIA[i])) * S::from(0.5) - r[(2, 2)]
    }
}
/// `(g exp(-ξ/2 + c|ξ|² gᵀe1), g exp(ξ/2 + c|ξ|² gᵀe1))`: a discretization map that does not
/// commute with rotations about the vertical.
#[derive(Debug, Clone, Copy)]
struct Tilted;
impl<S: Scalar> LieMapModel<S, So3, 3> for Tilted {
    fn name(&self) -> String {
        "midpoint tilted towards a spatial axis".into()
    }
    #[inline]
    fn eval(&self, group: &So3, g: &Matrix3<S>, xi: &SVector<S, 3>) -> Result<(Matrix3<S>, Matrix3<S>), GeomError> {
        let bias = g.tr_mul(&Vector3::x().map(S::from)) * (xi.norm_squared() * S::from(0.5));
        let half = xi * S::from(0.5);
        Ok((g * group.exp(&(bias - half)), g * group.exp(&(bias + half))))
    }
}

type State = LieState<Matrix3<f64>, 3>;

fn main() -> Result<(), GeomError> {
    let (h, n) = (0.01, 20_000);
    let s0: State = LieState::new(So3.exp(&Vector3::new(0.4, -0.2, 0.1)), Vector3::new(0.6, 1.5, 2.5));
    let energy = |s: &State| LieFunction::<f64, So3, 3>::eval(&Top, &So3, &s.g, &s.mu);
    let vertical = |s: &State| (s.g * s.mu)[2];
    let (e0, j0) = (energy(&s0), vertical(&s0));
    println!("heavy top on SO(3): I = diag(1, 5, 6), mgl = 1, χ = e3, h = {h}, {n} steps (T = {})", h * n as f64);
    println!("{:<46} {:>10} {:>10} {:>10} {:>9}", "method", "energy", "e3·RΠ", "|RᵀR-I|", "ns/step");
    let report = |name: &str, step: &dyn Fn(&mut State) -> Result<(), GeomError>| -> Result<(), GeomError> {
        let mut s = s0;
        let (mut de, mut dj, mut ortho) = (0.0f64, 0.0f64, 0.0f64);
        let start = Instant::now();
        for _ in 0..n {
            step(&mut s)?;
            de = de.max((energy(&s) - e0).abs());
            dj = dj.max((vertical(&s) - j0).abs());
            ortho = ortho.max((s.g.transpose() * s.g - Matrix3::identity()).amax());
        }
        let ns = start.elapsed().as_nanos() as f64 / n as f64;
        println!("{name:<46} {de:>10.2e} {dj:>10.2e} {ortho:>10.2e} {ns:>9.0}");
        Ok(())
    };
    let midpoint = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Exp), LieAutoDiff(Top));
    report("Lie midpoint map (exp), Hamiltonian route", &|s| midpoint.step(s, h))?;
    let cayley = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Cayley), LieAutoDiff(Top));
    report("Lie midpoint map (Cayley), Hamiltonian route", &|s| cayley.step(s, h))?;
    let lagrangian = LieLagrangianIntegrator::new(So3, 0.5, Chart::Exp, LieAutoDiff(TopL))?;
    report("Lie midpoint map (exp), Lagrangian route", &|s| lagrangian.step(s, h))?;
    let tilted = LieCotangentLiftIntegrator::new(LieAutoDiffMap::<_, _, 3>::new(So3, Tilted), LieAutoDiff(Top));
    report("tilted map (not left-equivariant; control)", &|s| tilted.step(s, h))?;
    let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::from(INERTIA)), 1.0, Vector3::z())?;
    let sv = hp::stormer_verlet(So3, Chart::Exp, top)?;
    report("HP Störmer–Verlet (exp), integrators crate", &|s| {
        let mut st = hp::LieState::new(s.g, s.mu);
        sv.step(&mut st, h)?;
        *s = LieState::new(st.g, st.mu);
        Ok(())
    })?;
    println!("every left-equivariant map keeps e3·RΠ at round-off (Theorem 2); the tilted map does not");
    Ok(())
}
