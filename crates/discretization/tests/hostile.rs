//! No silent wrong results (issue "reliability", item A): hostile inputs (NaN, ±∞, and finite
//! magnitudes `1e200`, `1e300` whose squares overflow) given to the retractions, the
//! discretization maps and the steps of this crate. A `Result` is an error or a value that is
//! right (a point of `S²` for the sphere retractions); a failed step leaves the state untouched.

use crate::common::{Kepler, kepler_start};
use discretization::lagrangian::LieGroupDiscreteEulerLagrange;
use discretization::lie_function::{LieAutoDiff, LieFunction};
use discretization::retraction::{
    EuclideanRetraction, LieGroupRetraction, Retraction, RetractionMap, SphereExponential, SphereNormalization,
};
use discretization::{
    CotangentLiftIntegrator, DiscretizationMap, LieCotangentLiftIntegrator, LieGroupThetaMap, LieState, OneStep,
    PhaseState, ThetaMap,
};
use geom_core::function::ScalarFunction;
use geom_core::lie::{Chart, So3};
use geom_core::{GeomError, Scalar};
use nalgebra::{Matrix3, SVector, Vector2, Vector3};

const HOSTILE: [f64; 6] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e200, 1e300, -1e300];

fn hostile3() -> Vec<Vector3<f64>> {
    HOSTILE.iter().flat_map(|&v| [Vector3::new(v, 0.0, 0.0), Vector3::new(0.1, v, 0.2), Vector3::repeat(v)]).collect()
}
fn hostile2() -> Vec<Vector2<f64>> {
    HOSTILE.iter().flat_map(|&v| [Vector2::new(v, 0.0), Vector2::new(0.1, v), Vector2::repeat(v)]).collect()
}
fn finite<const N: usize>(v: &SVector<f64, N>) -> bool {
    v.iter().all(|x| x.is_finite())
}

/// `R_d(x, v)` of the retraction maps: an error for a non-finite `v`, and never a non-finite or
/// (on `S²`) off-sphere point.
#[test]
fn retraction_maps_reject_hostile_velocities() {
    let mut silent = Vec::new();
    let euclid = RetractionMap::new(EuclideanRetraction::<3>, 0.5).unwrap();
    let x = Vector3::new(1.0, 2.0, 3.0);
    for v in hostile3() {
        match euclid.apply(&x, &v) {
            Err(GeomError::NonFinite { .. }) => {}
            Ok((a, b)) if finite(&v) && finite(&a) && finite(&b) => {}
            other => silent.push(format!("R^3 retraction map at v = {v:?}: {other:?}")),
        }
        if finite(&v) {
            continue;
        }
        for chart in [Chart::Exp, Chart::Cayley] {
            let lie = RetractionMap::midpoint(LieGroupRetraction::<_, 3>::new(So3, chart));
            if !matches!(lie.apply(&Matrix3::identity(), &v), Err(GeomError::NonFinite { .. })) {
                silent.push(format!("SO(3) {chart:?} retraction map at v = {v:?}: not NonFinite"));
            }
        }
    }
    // the retraction itself, on a hostile base point
    for p in hostile3().into_iter().filter(|p| !finite(p)) {
        if EuclideanRetraction::<3>.retract(&p, &Vector3::zeros()).is_ok() {
            silent.push(format!("R^3 retraction at x = {p:?}: Ok"));
        }
        if EuclideanRetraction::<3>.inverse_retract(&x, &p).is_ok() {
            silent.push(format!("inverse R^3 retraction at y = {p:?}: Ok"));
        }
    }
    // the sphere: tangent vectors at the pole (hostile magnitudes along e1)
    let pole = Vector3::z();
    for s in HOSTILE {
        let v = Vector3::new(s, 0.0, 0.0);
        for (name, r) in [
            ("normalization", SphereNormalization.retract(&pole, &v)),
            ("exponential", SphereExponential.retract(&pole, &v)),
        ] {
            match r {
                Err(_) => {}
                Ok(p) if s.is_finite() && (p.norm() - 1.0).abs() < 1e-12 => {}
                other => silent.push(format!("S^2 {name} at v = {v:?}: {other:?}")),
            }
        }
    }
    assert!(silent.is_empty(), "silent results:\n{}", silent.join("\n"));
}

#[derive(Debug, Clone, Copy)]
struct Top;
impl<S: Scalar> LieFunction<S, So3, 3> for Top {
    fn eval(&self, _: &So3, r: &Matrix3<S>, p: &SVector<S, 3>) -> S {
        (p[0] * p[0] + p[1] * p[1] / S::from(5.0) + p[2] * p[2] / S::from(6.0)) * S::from(0.5) + r[(2, 2)]
    }
}
struct Free;
impl ScalarFunction<3> for Free {
    fn eval<S: Scalar>(&self, w: &SVector<S, 3>) -> S {
        (w[0] * w[0] + w[1] * w[1] * S::from(5.0) + w[2] * w[2] * S::from(6.0)) * S::from(0.5)
    }
}

/// One step from a hostile state: an error, and the state exactly as it was (bitwise, NaN
/// included).
#[test]
fn steps_from_hostile_states_fail_and_leave_the_state() {
    let mut silent = Vec::new();
    let same_phase = |a: &PhaseState<2>, b: &PhaseState<2>| {
        a.q.iter().chain(a.p.iter()).zip(b.q.iter().chain(b.p.iter())).all(|(x, y)| x.to_bits() == y.to_bits())
    };
    let kepler = CotangentLiftIntegrator::new(ThetaMap::<2>::midpoint(), Kepler);
    for v in hostile2() {
        for s0 in [PhaseState::new(v, kepler_start(0.6).p), PhaseState::new(kepler_start(0.6).q, v)] {
            let mut s = s0;
            let r = kepler.step(&mut s, 0.05);
            if r.is_ok() && !(s.is_finite() && finite(&v)) || r.is_err() && !same_phase(&s, &s0) {
                silent.push(format!("Kepler midpoint from {s0:?}: {r:?}, state {s:?}"));
            }
        }
    }
    let same_lie = |a: &LieState<Matrix3<f64>, 3>, b: &LieState<Matrix3<f64>, 3>| {
        a.g.iter().chain(a.mu.iter()).zip(b.g.iter().chain(b.mu.iter())).all(|(x, y)| x.to_bits() == y.to_bits())
    };
    let lift = LieCotangentLiftIntegrator::new(LieGroupThetaMap::midpoint(So3, Chart::Exp), LieAutoDiff(Top));
    let dep = LieGroupDiscreteEulerLagrange::<_, _, 3>::new(So3, Chart::Cayley, Free);
    let methods: [(&str, &dyn OneStep<LieState<Matrix3<f64>, 3>>); 2] =
        [("Lie midpoint cotangent lift", &lift), ("discrete Euler–Poincaré", &dep)];
    for v in hostile3() {
        // the hostile scalar of v in an entry of g
        let mut bad_g = Matrix3::identity();
        bad_g[(0, 1)] = v.iter().copied().find(|x| !x.is_finite() || x.abs() > 1.0).unwrap();
        for s0 in [LieState::new(Matrix3::identity(), v), LieState::new(bad_g, Vector3::new(0.3, 0.2, 0.1))] {
            for (name, m) in methods {
                let mut s = s0;
                let r = m.step(&mut s, 0.05);
                let out_finite = s.g.iter().chain(s.mu.iter()).all(|x| x.is_finite());
                let in_finite = s0.g.iter().chain(s0.mu.iter()).all(|x| x.is_finite());
                if r.is_ok() && !(out_finite && in_finite) || r.is_err() && !same_lie(&s, &s0) {
                    silent.push(format!("{name} from {s0:?}: {r:?}, state {s:?}"));
                }
            }
        }
    }
    assert!(silent.is_empty(), "silent results:\n{}", silent.join("\n"));
}
