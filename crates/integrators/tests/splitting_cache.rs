//! The sub-flows' caches (`ExactFlow::flow_cached`, `FlowCache`): the oscillator's cached flow
//! is its flow bit for bit whatever the cache held before (and a memo keyed on the wrong time
//! fails the same check), a splitting of a user's flow that implements `flow` only steps bit for
//! bit as the one of the cached flow for every scheme, and the splitting computes the
//! state-independent part of a piece once per repeated stage in a step and once per distinct
//! stage in a `step_n` run, through `&F`, `Box<F>`, `Arc<F>`, tuples and arrays.

use crate::splitting_models::{Cubic, Fussy, hh0};
use geom_core::GeomError;
use geom_core::function::AutoDiff;
use geom_core::step::{OneStep, PhaseState};
use integrators::splitting::{
    ExactFlow, FlowCache, Harmonic, Kick, Splitting, SplittingScheme, all_schemes, blanes_moan_s6, lie_trotter, strang,
};
use nalgebra::Vector2;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

fn bits(s: &PhaseState<2>) -> Vec<u64> {
    s.q.iter().chain(s.p.iter()).map(|x| x.to_bits()).collect()
}

/// A user's sub-flow that implements `flow` only (the default `flow_cached` ignores the cache):
/// the wrapped flow without its cache.
struct Uncached<F>(F);
impl<F: ExactFlow<PhaseState<2>>> ExactFlow<PhaseState<2>> for Uncached<F> {
    fn name(&self) -> String {
        self.0.name()
    }
    fn flow(&self, s: &mut PhaseState<2>, t: f64) -> Result<(), GeomError> {
        self.0.flow(s, t)
    }
}

/// The rotation of the oscillator `ω = 1` with a memo keyed on the wrong time (`|t|`): what the
/// check below must catch.
struct StaleRotation;
impl ExactFlow<PhaseState<2>> for StaleRotation {
    fn name(&self) -> String {
        "stale rotation".into()
    }
    fn flow(&self, s: &mut PhaseState<2>, t: f64) -> Result<(), GeomError> {
        let (sin, cos) = t.sin_cos();
        let q = s.q * cos + s.p * sin;
        s.p = s.p * cos - s.q * sin;
        s.q = q;
        Ok(())
    }
    fn flow_cached(&self, s: &mut PhaseState<2>, t: f64, cache: &mut FlowCache) -> Result<(), GeomError> {
        let [sin, cos, ..] = cache.get_or_insert_with(t.abs(), || {
            let (sin, cos) = t.sin_cos();
            [sin, cos, 0.0, 0.0]
        });
        let q = s.q * cos + s.p * sin;
        s.p = s.p * cos - s.q * sin;
        s.q = q;
        Ok(())
    }
}

/// Whether `flow_cached` with one cache carried through a sequence of times (repeats, sign
/// changes, `±0`) gives the state of `flow` bit for bit at every call.
fn cached_agrees_with_flow(f: &impl ExactFlow<PhaseState<2>>) -> bool {
    let times = [0.05, 0.05, -0.05, 0.3, 0.025, 0.05, 0.0, -0.0, 7.3, -7.3, 1e-9, 0.3];
    let states = [hh0(), PhaseState::new(Vector2::new(-1.5, 0.25), Vector2::new(0.75, -2.0))];
    let mut cache = FlowCache::new();
    times.iter().zip(states.iter().cycle()).all(|(&t, &x)| {
        let (mut a, mut b) = (x, x);
        f.flow(&mut a, t).unwrap();
        f.flow_cached(&mut b, t, &mut cache).unwrap();
        bits(&a) == bits(&b)
    })
}

#[test]
fn the_cached_flow_is_the_flow_bit_for_bit() {
    for omega in [1.0, 0.7, 2.5, 0.0] {
        let osc = Harmonic::new(omega).unwrap();
        assert!(cached_agrees_with_flow(&osc), "omega = {omega}");
        // the oscillator does keep its rotation (so the hits above were hits)
        let mut cache = FlowCache::new();
        let mut s = hh0();
        osc.flow_cached(&mut s, 0.3, &mut cache).unwrap();
        assert_eq!(cache.get(0.3).is_some(), omega > 0.0);
        assert!(cache.get(-0.3).is_none());
    }
    // a memo keyed on |t| fails the same check (the rotation by −t reuses sin t)
    assert!(!cached_agrees_with_flow(&StaleRotation));
    // ... and is right as long as every time is new
    let mut cache = FlowCache::new();
    let (mut a, mut b) = (hh0(), hh0());
    StaleRotation.flow(&mut a, 0.2).unwrap();
    StaleRotation.flow_cached(&mut b, 0.2, &mut cache).unwrap();
    assert_eq!(bits(&a), bits(&b));
}

/// Twenty steps one by one and one `step_n(20)` of both methods, compared bit for bit.
fn same_steps(cached: &dyn OneStep<PhaseState<2>>, plain: &dyn OneStep<PhaseState<2>>, h: f64) {
    let (mut a, mut b) = (hh0(), hh0());
    for k in 0..20 {
        cached.step(&mut a, h).unwrap();
        plain.step(&mut b, h).unwrap();
        assert_eq!(bits(&a), bits(&b), "{} step {k}, h = {h}", cached.name());
    }
    let (mut c, mut d) = (hh0(), hh0());
    cached.step_n(&mut c, h, 20).unwrap();
    plain.step_n(&mut d, h, 20).unwrap();
    assert_eq!(bits(&c), bits(&a), "{} step_n, h = {h}", cached.name());
    assert_eq!(bits(&d), bits(&a), "{} step_n, h = {h}", cached.name());
}

#[test]
fn a_user_flow_without_the_cache_steps_as_the_cached_one() {
    let osc = Harmonic::new(1.0).unwrap();
    let fast = Harmonic::new(2.0).unwrap();
    for scheme in all_schemes() {
        for h in [0.05, -0.05] {
            let cached = Splitting::new((osc, Kick(AutoDiff(Cubic))), scheme.clone()).unwrap();
            let plain = Splitting::new((Uncached(osc), Kick(AutoDiff(Cubic))), scheme.clone()).unwrap();
            same_steps(&cached, &plain, h);
            // the kick first: the oscillator is the middle piece of Strang
            let cached = Splitting::new((Kick(AutoDiff(Cubic)), osc), scheme.clone()).unwrap();
            let plain = Splitting::new((Kick(AutoDiff(Cubic)), Uncached(osc)), scheme.clone()).unwrap();
            same_steps(&cached, &plain, h);
        }
    }
    // two oscillators of different frequencies at the same stage times (Lie–Trotter: every
    // stage at t = h): a cache shared between pieces would rotate the second by the first's ω
    let schemes: [SplittingScheme; 3] = [lie_trotter(), strang(), blanes_moan_s6()];
    for scheme in schemes {
        let cached = Splitting::new((osc, Kick(AutoDiff(Cubic)), fast), scheme.clone()).unwrap();
        let plain = Splitting::new((Uncached(osc), Kick(AutoDiff(Cubic)), Uncached(fast)), scheme.clone()).unwrap();
        same_steps(&cached, &plain, 0.05);
        let cached = Splitting::new([osc, fast], scheme.clone()).unwrap();
        let plain = Splitting::new([Uncached(osc), Uncached(fast)], scheme.clone()).unwrap();
        same_steps(&cached, &plain, 0.05);
    }
}

/// The oscillator `ω = 1` counting the `sincos` it computes.
#[derive(Default)]
struct CountingRotation {
    computed: AtomicUsize,
}
impl CountingRotation {
    fn words(&self, t: f64) -> [f64; FlowCache::WORDS] {
        self.computed.fetch_add(1, Ordering::Relaxed);
        let (sin, cos) = t.sin_cos();
        [sin, cos, 0.0, 0.0]
    }
    fn rotate(s: &mut PhaseState<2>, [sin, cos, ..]: [f64; FlowCache::WORDS]) {
        let q = s.q * cos + s.p * sin;
        s.p = s.p * cos - s.q * sin;
        s.q = q;
    }
    fn take(&self) -> usize {
        self.computed.swap(0, Ordering::Relaxed)
    }
}
impl ExactFlow<PhaseState<2>> for CountingRotation {
    fn name(&self) -> String {
        "counting rotation".into()
    }
    fn flow(&self, s: &mut PhaseState<2>, t: f64) -> Result<(), GeomError> {
        Self::rotate(s, self.words(t));
        Ok(())
    }
    fn flow_cached(&self, s: &mut PhaseState<2>, t: f64, cache: &mut FlowCache) -> Result<(), GeomError> {
        Self::rotate(s, cache.get_or_insert_with(t, || self.words(t)));
        Ok(())
    }
}

/// The number of distinct coefficients of piece `part` among the stages of `method`, and the
/// number of its stages.
fn stage_counts<P>(method: &Splitting<P>, part: usize) -> (usize, usize) {
    let mut cs: Vec<u64> = method.stages().iter().filter(|s| s.0 == part).map(|s| s.1.to_bits()).collect();
    let stages = cs.len();
    cs.sort_unstable();
    cs.dedup();
    (cs.len(), stages)
}

/// `sincos` per `step` and per `step_n(10)` of `method`, whose piece 0 is `rot`.
fn counts(method: &dyn OneStep<PhaseState<2>>, rot: &CountingRotation) -> (usize, usize) {
    let mut s = hh0();
    rot.take();
    method.step(&mut s, 0.05).unwrap();
    let per_step = rot.take();
    method.step_n(&mut s, 0.05, 10).unwrap();
    (per_step, rot.take())
}

#[test]
fn one_sincos_per_repeated_stage_in_a_step_and_per_distinct_stage_in_a_run() {
    let rot = Arc::new(CountingRotation::default());
    // Strang: two half rotations a step, one `sincos`; a run computes it once
    let by_ref = Splitting::new((&*rot, Kick(AutoDiff(Cubic))), strang()).unwrap();
    assert_eq!(counts(&by_ref, &rot), (1, 1));
    let by_arc = Splitting::new((rot.clone(), Kick(AutoDiff(Cubic))), strang()).unwrap();
    assert_eq!(counts(&by_arc, &rot), (1, 1));
    // the rotation as the middle piece (one stage a step): one per step, one per run
    let middle = Splitting::new((Kick(AutoDiff(Cubic)), &*rot), strang()).unwrap();
    rot.take();
    let mut s = hh0();
    middle.step(&mut s, 0.05).unwrap();
    middle.step(&mut s, 0.05).unwrap();
    assert_eq!(rot.take(), 2);
    middle.step_n(&mut s, 0.05, 10).unwrap();
    assert_eq!(rot.take(), 1);
    // Blanes–Moan S6: 7 rotations a step at 4 distinct times
    let s6 = Splitting::new((&*rot, Kick(AutoDiff(Cubic))), blanes_moan_s6()).unwrap();
    assert_eq!(stage_counts(&s6, 0), (4, 7));
    assert_eq!(counts(&s6, &rot), (4, 4));
    // through boxed trait objects in an array
    let boxed: [Box<dyn ExactFlow<PhaseState<2>> + '_>; 2] = [Box::new(&*rot), Box::new(Kick(AutoDiff(Cubic)))];
    let by_box = Splitting::new(boxed, blanes_moan_s6()).unwrap();
    assert_eq!(counts(&by_box, &rot), (4, 4));
    // and a user's flow without the cache computes at every stage
    let plain = Splitting::new((Uncached(&*rot), Kick(AutoDiff(Cubic))), blanes_moan_s6()).unwrap();
    assert_eq!(counts(&plain, &rot), (7, 70));
}

/// A kick of an unbounded force, `∇V = (1/q_x, 0)`, non-finite at `q_x = 0`.
struct Singular;
impl ExactFlow<PhaseState<2>> for Singular {
    fn name(&self) -> String {
        "singular kick".into()
    }
    fn flow(&self, s: &mut PhaseState<2>, t: f64) -> Result<(), GeomError> {
        s.p[0] -= t / s.q[0];
        Ok(())
    }
}

#[test]
fn failed_steps_of_the_straight_line_strang_leave_the_state_untouched() {
    // `φ^A_{h/2} ∘ φ^B_h ∘ φ^A_{h/2}` runs as straight-line code: a non-finite state after the
    // first stage (the singular kick at q_x = 0) is refused and the state is left as it was
    let x0 = PhaseState::new(Vector2::new(0.0, 0.5), Vector2::new(1.0, 0.0));
    let m = Splitting::new((Singular, Harmonic::new(1.0).unwrap()), strang()).unwrap();
    let mut s = x0;
    assert!(matches!(m.step(&mut s, 0.1), Err(GeomError::NonFinite { .. })));
    assert_eq!(bits(&s), bits(&x0));
    assert!(matches!(m.step_n(&mut s, 0.1, 5), Err(GeomError::NonFinite { .. })));
    assert_eq!(bits(&s), bits(&x0));
    // q_x = sin t under the rotation (the kick moves p_y only): the kick at t = 0.35 of the
    // fourth step sees q_x > 0.3 and fails; a run of three steps is three steps bit for bit, a
    // run of four fails and leaves the state where it was (all or nothing)
    let m = Splitting::new((Harmonic::new(1.0).unwrap(), Fussy { limit: 0.3 }), strang()).unwrap();
    let mut one_by_one = x0;
    for _ in 0..3 {
        m.step(&mut one_by_one, 0.1).unwrap();
    }
    let before = one_by_one;
    assert!(matches!(m.step(&mut one_by_one, 0.1), Err(GeomError::OutsideDomain { .. })));
    assert_eq!(bits(&one_by_one), bits(&before));
    let mut s = x0;
    m.step_n(&mut s, 0.1, 3).unwrap();
    assert_eq!(bits(&s), bits(&before));
    let mut s = x0;
    assert!(matches!(m.step_n(&mut s, 0.1, 4), Err(GeomError::OutsideDomain { .. })));
    assert_eq!(bits(&s), bits(&x0));
}
