//! Structure and contract details of the Crouch–Grossman, commutator-free and Magnus methods:
//!
//! * they keep the group: over 10³ steps on SO(3) the orthogonality defect `|RᵀR − I|` stays
//!   below 1e-13, while RK4 on the matrix entries (the summed tableau of CF4) leaves it;
//! * the engine computes the printed formulas: CF3, CF4 and CG4a written out by hand here give
//!   the same step to round-off (CF4's `Y_4 = Y_2 exp(…)` and CF3's update from `Y_2` included);
//! * a step that fails (the field's error, a non-finite field) leaves the state bit for bit;
//! * a user's chart with `dτ_0 ≠ I` and a shipped chart the group lacks are typed errors.

use crate::lie_methods_common::{KnownCurve, KnownSolution, SL2, Sl2};
use geom_core::lie::{Chart, GroupChart, LieGroup, Linear, MatrixGroup, So3};
use geom_core::step::{FlatState, OneStep};
use geom_core::{GeomError, Scalar};
use integrators::commutator_free::{self, CommutatorFree};
use integrators::crouch_grossman;
use integrators::magnus::{Magnus, MagnusOrder};
use integrators::rkmk::{GroupState, LieVectorField};
use nalgebra::{Matrix2, Matrix3, SMatrix, SVector, Vector3};

type State = GroupState<Matrix3<f64>>;

fn orthogonality(r: &Matrix3<f64>) -> f64 {
    (r.transpose() * r - Matrix3::identity()).amax()
}

#[test]
fn so3_is_kept_to_round_off_over_a_thousand_steps() {
    let known = KnownSolution::<3>::new(1.0);
    let methods: Vec<Box<dyn OneStep<State>>> = vec![
        Box::new(crouch_grossman::cg2(So3, known).unwrap()),
        Box::new(crouch_grossman::cg3(So3, known).unwrap()),
        Box::new(crouch_grossman::cg4a(So3, known).unwrap()),
        Box::new(commutator_free::cf3(So3, known).unwrap()),
        Box::new(commutator_free::cf4(So3, known).unwrap()),
        Box::new(Magnus::new(So3, KnownCurve(So3, known), MagnusOrder::Four)),
        Box::new(Magnus::new(So3, KnownCurve(So3, known), MagnusOrder::Six)),
    ];
    for m in &methods {
        let mut s = GroupState::new(0.0, Matrix3::identity());
        let mut worst = 0.0f64;
        for _ in 0..1000 {
            m.step(&mut s, 0.05).unwrap();
            worst = worst.max(orthogonality(&s.g));
        }
        eprintln!("{}: orthogonality defect over 10³ steps {worst:.2e}", m.name());
        assert!(worst < 1e-13, "{}: {worst:e}", m.name());
    }
    // negative control: classical RK4 on the entries of R (ṙ = R hat(f)), the same field and steps
    let f = |t: f64, r: &Matrix3<f64>| r * So3.hat(&LieVectorField::<So3, 3>::eval(&known, &So3, t, r).unwrap());
    let (mut r, h) = (Matrix3::identity(), 0.05);
    for k in 0..1000 {
        let t = k as f64 * h;
        let k1 = f(t, &r);
        let k2 = f(t + h / 2.0, &(r + k1 * (h / 2.0)));
        let k3 = f(t + h / 2.0, &(r + k2 * (h / 2.0)));
        let k4 = f(t + h, &(r + k3 * h));
        r += (k1 + k2 * 2.0 + k3 * 2.0 + k4) * (h / 6.0);
    }
    eprintln!("RK4 on the entries: orthogonality defect {:.2e}", orthogonality(&r));
    assert!(orthogonality(&r) > 1e-9);
}

/// `g exp(x_1) exp(x_2) ···` on SO(3).
fn prod(g: &Matrix3<f64>, xs: &[Vector3<f64>]) -> Matrix3<f64> {
    xs.iter().fold(*g, |acc, x| acc * So3.exp(x))
}

#[test]
fn the_engine_computes_the_printed_formulas() {
    let known = KnownSolution::<3>::new(1.0);
    let f = |t: f64, g: &Matrix3<f64>| LieVectorField::<So3, 3>::eval(&known, &So3, t, g).unwrap();
    let (t, h) = (0.3, 0.2);
    let g = So3.exp(&Vector3::new(0.3, -0.4, 0.8));
    let s0 = GroupState::new(t, g);
    let close = |a: &Matrix3<f64>, b: &Matrix3<f64>| (a - b).amax() < 1e-15;

    // CF3
    let k1 = f(t, &g);
    let k2 = f(t + h / 3.0, &prod(&g, &[k1 * (h / 3.0)]));
    let k3 = f(t + 2.0 * h / 3.0, &prod(&g, &[k2 * (2.0 * h / 3.0)]));
    let want = prod(&g, &[k1 * (h / 3.0), (k1 * (-1.0 / 12.0) + k3 * 0.75) * h]);
    let got = commutator_free::cf3(So3, known).unwrap().try_step(&s0, h).unwrap();
    assert!(close(&got.g, &want) && got.t == t + h);

    // CF4
    let k1 = f(t, &g);
    let y2 = prod(&g, &[k1 * (h / 2.0)]);
    let k2 = f(t + h / 2.0, &y2);
    let k3 = f(t + h / 2.0, &prod(&g, &[k2 * (h / 2.0)]));
    let k4 = f(t + h, &prod(&y2, &[(k3 - k1 * 0.5) * h]));
    let e1 = (k1 * 0.25 + (k2 + k3) / 6.0 - k4 / 12.0) * h;
    let e2 = (k4 * 0.25 + (k2 + k3) / 6.0 - k1 / 12.0) * h;
    let got = commutator_free::cf4(So3, known).unwrap().try_step(&s0, h).unwrap();
    assert!(close(&got.g, &prod(&g, &[e1, e2])));

    // CG4a
    let tab = crouch_grossman::cg4a_tableau();
    let mut k = [Vector3::zeros(); 5];
    for i in 0..5 {
        let xs: Vec<Vector3<f64>> = (0..i).map(|j| k[j] * (h * tab.a(i, j))).collect();
        k[i] = f(t + tab.c(i) * h, &prod(&g, &xs));
    }
    let xs: Vec<Vector3<f64>> = (0..5).map(|i| k[i] * (h * tab.b(i))).collect();
    let got = crouch_grossman::cg4a(So3, known).unwrap().try_step(&s0, h).unwrap();
    assert!(close(&got.g, &prod(&g, &xs)));
}

/// Fails (an error) from `t >= 0.55` on, or returns NaN there.
struct Failing {
    nan: bool,
}
impl LieVectorField<So3, 3> for Failing {
    fn eval(&self, _: &So3, t: f64, g: &Matrix3<f64>) -> geom_core::Result<Vector3<f64>> {
        match (t >= 0.55, self.nan) {
            (false, _) => Ok(Vector3::new(1.0, g[(0, 1)], 0.5)),
            (true, false) => Err(GeomError::InvalidParameter { what: "test field", reason: "t >= 0.55".into() }),
            (true, true) => Ok(Vector3::new(f64::NAN, 0.0, 0.0)),
        }
    }
}

fn bits(s: &State) -> Vec<u64> {
    let mut w = Vec::new();
    s.write_words(&mut w);
    w.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn a_failed_step_leaves_the_state_untouched() {
    for nan in [false, true] {
        let methods: Vec<Box<dyn OneStep<State>>> = vec![
            Box::new(crouch_grossman::cg3(So3, Failing { nan }).unwrap()),
            Box::new(crouch_grossman::cg4a(So3, Failing { nan }).unwrap()),
            Box::new(commutator_free::cf4(So3, Failing { nan }).unwrap()),
        ];
        for m in &methods {
            let mut s = GroupState::new(0.5, So3.exp(&Vector3::new(0.1, 0.2, 0.3)));
            let before = bits(&s);
            let err = m.step(&mut s, 0.1).unwrap_err();
            assert!(matches!(err, GeomError::InvalidParameter { .. } | GeomError::NonFinite { .. }), "{err}");
            assert_eq!(bits(&s), before, "{}", m.name());
            // a non-finite state is refused
            let mut bad = GroupState::new(0.0, Matrix3::from_element(f64::NAN));
            assert!(matches!(m.step(&mut bad, 0.1), Err(GeomError::NonFinite { .. })));
        }
    }
}

/// Cayley on SO(3) with its derivative scaled by 2: it passes `check_chart` only if `τ` is
/// scaled as well, so `τ(x) = cay(2x)`, `dτ_0 = 2 I`.
#[derive(Debug, Clone, Copy)]
struct DoubleCayley;
impl<S: Scalar> GroupChart<S, So3, 3> for DoubleCayley {
    fn name(&self) -> String {
        "double-cayley".into()
    }
    fn tau(&self, g: &So3, x: &SVector<S, 3>) -> geom_core::Result<Matrix3<S>> {
        g.cayley(&(x * S::from(2.0)))
    }
    fn tau_inv(&self, g: &So3, r: &Matrix3<S>) -> geom_core::Result<SVector<S, 3>> {
        Ok(g.cayley_inv(r)? * S::from(0.5))
    }
    fn dtau(&self, g: &So3, x: &SVector<S, 3>) -> geom_core::Result<SMatrix<S, 3, 3>> {
        Ok(g.dcay(&(x * S::from(2.0)))? * S::from(2.0))
    }
}

/// SL(2) without its Cayley map (the default of `MatrixGroup`).
#[derive(Debug, Clone, Copy)]
struct Sl2NoCayley;
impl MatrixGroup<3, 2> for Sl2NoCayley {
    fn name(&self) -> String {
        "SL(2,R) without Cayley".into()
    }
    fn hat<S: Scalar>(&self, x: &SVector<S, 3>) -> Matrix2<S> {
        Sl2.hat(x)
    }
    fn vee<S: Scalar>(&self, m: &Matrix2<S>) -> SVector<S, 3> {
        Sl2.vee(m)
    }
    fn defect(&self, g: &Matrix2<f64>) -> f64 {
        Sl2.defect(g)
    }
}

#[test]
fn charts_are_checked_at_construction() {
    let known = KnownSolution::<3>::new(1.0);
    let err = CommutatorFree::new(So3, known, &commutator_free::cf4_scheme(), DoubleCayley).unwrap_err();
    assert!(err.to_string().contains("dtau at 0"), "{err}");
    let err =
        CommutatorFree::new(Linear(Sl2NoCayley), known, &commutator_free::cf4_scheme(), Chart::Cayley).unwrap_err();
    assert!(matches!(err, GeomError::ChartUnavailable { .. }), "{err}");
    // the user's SL(2) has Cayley: order 2 with it
    let m = CommutatorFree::new(SL2, known, &commutator_free::cf4_scheme(), Chart::Cayley).unwrap();
    assert_eq!(m.order(), 2);
}
