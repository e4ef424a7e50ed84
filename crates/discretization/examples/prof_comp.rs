use discretization::composition::adjoint_pair;
use discretization::{Composition, CotangentLiftIntegrator, OneStep, PhaseState, ThetaMap};
use geom_core::function::{Hessian, PhaseSpaceDerivatives};
use nalgebra::{Matrix2, Vector2};
use std::hint::black_box;
#[derive(Clone, Copy)]
pub struct Kepler;
impl PhaseSpaceDerivatives<2> for Kepler {
    fn value(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> f64 {
        0.5 * p.norm_squared() - 1.0 / q.norm()
    }
    #[inline]
    fn gradient(&self, q: &Vector2<f64>, p: &Vector2<f64>) -> (Vector2<f64>, Vector2<f64>) {
        (grad_v(q), *p)
    }
    #[inline]
    fn gradient_q(&self, q: &Vector2<f64>, _p: &Vector2<f64>) -> Vector2<f64> {
        grad_v(q)
    }
    #[inline]
    fn gradient_p(&self, _q: &Vector2<f64>, p: &Vector2<f64>) -> Vector2<f64> {
        *p
    }
    fn is_separable(&self) -> bool {
        true
    }
    fn hessian(&self, _q: &Vector2<f64>, _p: &Vector2<f64>) -> Hessian<2> {
        unimplemented!()
    }
    fn gradient_and_hessian(&self, _q: &Vector2<f64>, _p: &Vector2<f64>) -> ((Vector2<f64>, Vector2<f64>), Hessian<2>) {
        unimplemented!()
    }
}
#[inline]
pub fn grad_v(q: &Vector2<f64>) -> Vector2<f64> {
    let r2 = q.norm_squared();
    q / (r2 * r2.sqrt())
}
fn leapfrog_by_hand(s: &PhaseState<2>, h: f64) -> PhaseState<2> {
    let p_half = s.p - grad_v(&s.q) * (0.5 * h);
    let q1 = s.q + p_half * h;
    PhaseState::new(q1, p_half - grad_v(&q1) * (0.5 * h))
}
#[inline(never)]
fn run_route<M: OneStep<PhaseState<2>>>(m: &M, s: &mut PhaseState<2>, n: usize) {
    for _ in 0..n {
        m.step(black_box(s), 0.01).unwrap();
    }
}
#[inline(never)]
fn run_hand(s: &mut PhaseState<2>, n: usize) {
    for _ in 0..n {
        *s = leapfrog_by_hand(black_box(s), 0.01);
    }
}
fn main() {
    let _ = Matrix2::<f64>::zeros();
    let theta = |t: f64| CotangentLiftIntegrator::new(ThetaMap::<2>::new(t).unwrap(), Kepler);
    let verlet = Composition::with_adjoint(theta(0.0), theta(1.0), adjoint_pair());
    let n = 50_000_000;
    for _ in 0..2 {
        let mut s = PhaseState::new(Vector2::new(0.4, 0.0), Vector2::new(0.0, 2.0));
        let t = std::time::Instant::now();
        run_route(&verlet, &mut s, n);
        println!("route {:.2} ns", t.elapsed().as_nanos() as f64 / n as f64);
        let mut s = PhaseState::new(Vector2::new(0.4, 0.0), Vector2::new(0.0, 2.0));
        let t = std::time::Instant::now();
        run_hand(&mut s, n);
        println!("hand {:.2} ns", t.elapsed().as_nanos() as f64 / n as f64);
    }
}
