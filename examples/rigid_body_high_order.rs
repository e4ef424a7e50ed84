//! High-order variational integrators on SO(3), by composition: Hamilton–Pontryagin Störmer–Verlet
//! (Cayley chart, order 2; Bou-Rabee & Marsden, *Hamilton–Pontryagin integrators on Lie groups*,
//! 2009, arXiv:0801.0996) composed with the triple jump (order 4), Yoshida's 6 and Kahan–Li's 8
//! and 10 coefficient sets (docs/math.md §D.7), next to the Lee–Leok–McClamroch integrator (order
//! 2). A work–precision table on the free rigid body and on the heavy top: for each method and
//! step, the error at `t = 10` against a tight reference, the wall time, and the largest drift of
//! the first integrals that every method keeps at round-off (Casimir `|Π|²` and spatial momentum
//! `RΠ` of the free body, the vertical momentum `e3·RΠ` of the heavy top).
//!
//! Run: `cargo run --release --example rigid_body_high_order`.

use discretization::composition::{CompositionScheme, kahan_li8, kahan_li10, triple_jump, yoshida6};
use discretization::{Composition, OneStep};
use geom_core::lie::{Chart, So3, so3};
use integrators::hp::{self, HpLagrangian, LieState};
use integrators::lgvi::Lgvi;
use integrators::models::{FreeRigidBody, HeavyTop};
use nalgebra::{Matrix3, Vector3};
use std::time::Instant;

type State = LieState<Matrix3<f64>, 3>;

const T: f64 = 10.0;

fn run(method: &dyn OneStep<State>, s0: State, n: usize, invariant: &dyn Fn(&State) -> f64) -> (State, f64, f64) {
    let mut s = s0;
    let h = T / n as f64;
    let (i0, mut drift) = (invariant(&s0), 0.0f64);
    let start = Instant::now();
    for _ in 0..n {
        method.step(&mut s, h).expect("step");
        drift = drift.max((invariant(&s) - i0).abs());
    }
    (s, start.elapsed().as_secs_f64(), drift)
}

fn distance(a: &State, b: &State) -> f64 {
    (a.g - b.g).amax().max((a.mu - b.mu).amax())
}

fn table<L>(title: &str, lagrangian: L, lgvi: &dyn OneStep<State>, s0: State, invariant: &dyn Fn(&State) -> f64)
where
    L: HpLagrangian<So3, 3> + Clone + 'static,
{
    let sv = || hp::stormer_verlet(So3, Chart::Cayley, lagrangian.clone()).expect("HP-SV");
    let reference = run(&Composition::new(sv(), kahan_li10()).expect("scheme"), s0, 4000, invariant).0;
    println!("{title}, t = {T}: error of (R, Π) at t against Kahan–Li 10 with 4000 steps");
    println!("  {:<28} {:>6} {:>10} {:>11} {:>11}", "method (order)", "steps", "error", "time [ms]", "invariant");
    let composed = |scheme: CompositionScheme| -> Box<dyn OneStep<State>> {
        Box::new(Composition::new(sv(), scheme).expect("scheme"))
    };
    type Row<'a> = (String, Box<dyn OneStep<State> + 'a>, &'a [usize]);
    let methods: Vec<Row> = vec![
        ("HP Störmer–Verlet (2)".into(), Box::new(sv()), &[100, 400, 1600]),
        ("LGVI (2)".into(), Box::new(lgvi), &[100, 400, 1600]),
        ("triple jump (4)".into(), composed(triple_jump(2)), &[50, 100, 200, 400]),
        ("Yoshida 6 (6)".into(), composed(yoshida6()), &[25, 50, 100, 200]),
        ("Kahan–Li 8 (8)".into(), composed(kahan_li8()), &[20, 40, 80]),
        ("Kahan–Li 10 (10)".into(), composed(kahan_li10()), &[10, 20, 40]),
    ];
    for (name, method, steps) in &methods {
        for &n in *steps {
            let (s, seconds, drift) = run(method.as_ref(), s0, n, invariant);
            println!(
                "  {:<28} {:>6} {:>10.2e} {:>11.3} {:>11.1e}",
                name,
                n,
                distance(&s, &reference),
                seconds * 1e3,
                drift
            );
        }
    }
    println!();
}

fn main() {
    let body = FreeRigidBody::principal(1.0, 2.0, 3.0).expect("inertia");
    let s0 = LieState::new(so3::exp(&Vector3::new(0.3, -0.2, 0.5)), Vector3::new(0.8, -0.5, 1.2));
    let spatial =
        move |s: &State| (s.g * s.mu - s0.g * s0.mu).norm() + (s.mu.norm_squared() - s0.mu.norm_squared()).abs();
    let lgvi = Lgvi::new(body).expect("LGVI");
    table("free rigid body, I = diag(1, 2, 3); invariant column: |Δ(RΠ)| + |Δ|Π|²|", body, &lgvi, s0, &spatial);

    let top = HeavyTop::new(Matrix3::from_diagonal(&Vector3::new(2.0, 2.5, 1.0)), 1.0, Vector3::new(0.1, 0.0, 1.0))
        .expect("top");
    let t0 = LieState::new(so3::exp(&Vector3::new(0.5, 0.2, 0.0)), Vector3::new(0.3, -0.4, 2.0));
    let lgvi = Lgvi::new(top).expect("LGVI");
    table("heavy top, I = diag(2, 2.5, 1), mgl = 1; invariant column: |Δ(e3·RΠ)|", top, &lgvi, t0, &|s: &State| {
        top.momenta(s)[0]
    });
}
