//! Resumable runs of the driver: a run advanced in pieces, stopped by a flag, saved as a
//! `DriverCheckpoint`, serialised (serde_json), restored and continued ends bit for bit where the
//! uninterrupted run ends — final state, compensated-summation carries, record — and a checkpoint
//! that is corrupted, of another version or of another state type is refused.

use discretization::{OneStep, PhaseState};
use geom_core::function::{AutoDiff, PhaseSpaceFunction};
use geom_core::lie::{Chart, So3};
use geom_core::{GeomError, Scalar};
use integrators::classical::StormerVerlet;
use integrators::driver::{
    Advanced, CHECKPOINT_FORMAT, Driver, DriverCheckpoint, DriverError, Energy, FlatState, FnObserver, Observer,
    RunState, Trajectory,
};
use integrators::hp::{self, LieState};
use integrators::models::FreeRigidBody;
use nalgebra::{Matrix3, SVector, Vector2, Vector3};
use std::sync::atomic::{AtomicBool, Ordering};

/// Kepler `H = |p|²/2 − 1/|q|` (shared with `driver_loop`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kepler;
impl PhaseSpaceFunction<2> for Kepler {
    fn eval<S: Scalar>(&self, q: &SVector<S, 2>, p: &SVector<S, 2>) -> S {
        p.norm_squared() * S::from(0.5) - q.norm().recip()
    }
}

/// Perihelion of the orbit of eccentricity 0.6.
pub(crate) fn start() -> PhaseState<2> {
    let e: f64 = 0.6;
    PhaseState::new(Vector2::new(1.0 - e, 0.0), Vector2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()))
}

fn bits<const N: usize>(s: &PhaseState<N>) -> Vec<u64> {
    s.q.iter().chain(s.p.iter()).map(|v| v.to_bits()).collect()
}

/// Every number of a trajectory as bits (PartialEq on f64 would let -0.0 == 0.0 pass).
fn trajectory_bits<St>(t: &Trajectory<St>, state: impl Fn(&St) -> Vec<u64>) -> Vec<u64> {
    let mut v = state(&t.final_state);
    v.push(t.steps as u64);
    v.push(t.time.to_bits());
    v.extend(t.record.steps().iter().map(|&k| k as u64));
    v.extend(t.record.times().iter().map(|x| x.to_bits()));
    for i in 0..t.record.names().len() {
        v.extend(t.record.series(i).iter().map(|x| x.to_bits()));
    }
    for s in &t.states {
        v.extend(state(s));
    }
    v
}

/// Through serde_json and back, as a file would take it.
fn round_trip(cp: &DriverCheckpoint) -> DriverCheckpoint {
    let text = serde_json::to_string_pretty(cp).expect("serialise");
    serde_json::from_str(&text).expect("deserialise")
}

#[test]
fn a_run_saved_and_continued_equals_the_uninterrupted_run() {
    let sv = StormerVerlet::new(AutoDiff(Kepler));
    let energy = Energy(AutoDiff(Kepler));
    let q1 = FnObserver::new("q1", |s: &PhaseState<2>| s.q[0]);
    let observers = [&energy as &dyn Observer<_>, &q1];
    // `every` divides neither the pieces nor the total: the last sample of a piece is not kept
    let driver = Driver::new(0.01).unwrap().sample_every(7).unwrap().store_states(true);
    let whole = driver.run(&sv, start(), 2000, &observers).unwrap();

    let mut run = driver.start(start(), &observers);
    assert_eq!(run.advance(&sv, 333, &observers, None), Ok(Advanced::Reached));
    assert_eq!(run.advance(&sv, 1000, &observers, None), Ok(Advanced::Reached));
    let cp = round_trip(&run.checkpoint());
    assert_eq!(cp.step(), 1000);
    assert_eq!(cp.format(), CHECKPOINT_FORMAT);
    let mut resumed = RunState::<PhaseState<2>>::restore(&cp).unwrap();
    assert_eq!(resumed, run, "restore(checkpoint(run)) != run");
    assert_eq!(resumed.advance(&sv, 2000, &observers, None), Ok(Advanced::Reached));
    let pieces = resumed.finish(&observers);
    assert_eq!(pieces.record.len(), driver.samples(2000));
    assert_eq!(trajectory_bits(&pieces, bits), trajectory_bits(&whole, bits));
    assert_eq!(pieces, whole);
    // a run finished early samples its last step, as a run of that length does
    let short = driver.run(&sv, start(), 1000, &observers).unwrap();
    assert_eq!(trajectory_bits(&run.finish(&observers), bits), trajectory_bits(&short, bits));
}

#[test]
fn compensated_carries_are_saved_and_matter() {
    let sv = StormerVerlet::new(AutoDiff(Kepler));
    let energy = Energy(AutoDiff(Kepler));
    let observers = [&energy as &dyn Observer<_>];
    let driver = Driver::new(0.01).unwrap().sample_every(100).unwrap();
    let whole = driver.run_compensated(&sv, start(), 5000, &observers).unwrap();

    let mut run = driver.start_compensated(start(), &observers);
    run.advance_compensated(&sv, 2500, &observers, None).unwrap();
    let carries = run.carries().expect("a compensated run has carries").to_vec();
    assert_eq!(carries.len(), 4);
    assert!(carries.iter().any(|&c| c != 0.0), "the carries are all zero after 2500 steps: {carries:?}");
    let cp = round_trip(&run.checkpoint());
    let mut resumed = RunState::<PhaseState<2>>::restore(&cp).unwrap();
    assert_eq!(resumed.carries(), Some(&carries[..]));
    resumed.advance_compensated(&sv, 5000, &observers, None).unwrap();
    let resumed = resumed.finish(&observers);
    assert_eq!(trajectory_bits(&resumed, bits), trajectory_bits(&whole, bits));

    // restarting from the state alone (carries dropped) is not the same run
    let mut restarted = driver.start_compensated(*run.state(), &observers);
    restarted.advance_compensated(&sv, 2500, &observers, None).unwrap();
    assert_ne!(bits(restarted.state()), bits(&whole.final_state), "the carries made no difference");

    // a compensated run does not continue without compensation, nor a plain one with it
    assert!(matches!(run.advance(&sv, 3000, &observers, None), Err(DriverError::Geom(_))));
    let mut plain = driver.start(start(), &observers);
    assert!(matches!(plain.advance_compensated(&sv, 10, &observers, None), Err(DriverError::Geom(_))));
    assert_eq!(plain.step(), 0);
}

#[test]
fn a_stopped_run_resumes_where_it_stopped() {
    let sv = StormerVerlet::new(AutoDiff(Kepler));
    let stop = AtomicBool::new(false);
    // an observer that raises the flag when it samples step 1200 (time 12): the run stops
    // before step 1201, as on an interrupt between two steps
    let alarm = FnObserver::new("alarm", |s: &PhaseState<2>| {
        if s.q[0] < -1.0 {
            stop.store(true, Ordering::Relaxed);
        }
        s.q[0]
    });
    let observers = [&alarm as &dyn Observer<_>];
    let driver = Driver::new(0.01).unwrap().sample_every(10).unwrap();
    let mut run = driver.start(start(), &observers);
    assert_eq!(run.advance(&sv, 100_000, &observers, Some(&stop)), Ok(Advanced::Stopped));
    let stopped_at = run.step();
    assert!(stopped_at > 0 && stopped_at < 100_000 && stopped_at.is_multiple_of(10), "stopped at {stopped_at}");
    // while the flag is up, nothing more happens
    assert_eq!(run.advance(&sv, 100_000, &observers, Some(&stop)), Ok(Advanced::Stopped));
    assert_eq!(run.step(), stopped_at);

    stop.store(false, Ordering::Relaxed);
    let total = stopped_at + 777;
    let mut resumed = RunState::<PhaseState<2>>::restore(&round_trip(&run.checkpoint())).unwrap();
    assert_eq!(resumed.advance(&sv, total, &observers, None), Ok(Advanced::Reached));
    let whole = driver.run(&sv, start(), total, &observers).unwrap();
    assert_eq!(trajectory_bits(&resumed.finish(&observers), bits), trajectory_bits(&whole, bits));
}

/// Explicit Euler on `q' = p, p' = q` (growth `(1 + h)^k`) that fails once `|q|` exceeds 1e3,
/// leaving the state untouched.
struct Blowup;
impl OneStep<PhaseState<1>> for Blowup {
    fn name(&self) -> String {
        "blowup".into()
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(&self, s: &mut PhaseState<1>, h: f64) -> Result<(), GeomError> {
        let next = PhaseState::new(s.q + s.p * h, s.p + s.q * h);
        if next.q[0].abs() > 1e3 {
            return Err(GeomError::NonFinite { what: "state" });
        }
        *s = next;
        Ok(())
    }
}

#[test]
fn a_failed_step_leaves_the_run_at_the_last_good_step() {
    let driver = Driver::new(0.1).unwrap().sample_every(3).unwrap();
    let q = FnObserver::new("q", |s: &PhaseState<1>| s.q[0]);
    let observers = [&q as &dyn Observer<_>];
    let s0 = PhaseState::new(SVector::from([1.0]), SVector::from([1.0]));
    let err = driver.run(&Blowup, s0, 1000, &observers).unwrap_err();
    let mut run = driver.start(s0, &observers);
    let e2 = run.advance(&Blowup, 1000, &observers, None).unwrap_err();
    assert_eq!(e2, err);
    let DriverError::StepFailed { step, .. } = err else { panic!("{err:?}") };
    assert_eq!(run.step(), step - 1);
    // the state is that of a run of step − 1 steps
    let good = driver.run(&Blowup, s0, step - 1, &observers).unwrap();
    assert_eq!(bits(run.state()), bits(&good.final_state));
    let restored = RunState::<PhaseState<1>>::restore(&round_trip(&run.checkpoint())).unwrap();
    assert_eq!(trajectory_bits(&restored.finish(&observers), bits), trajectory_bits(&good, bits));
}

#[test]
fn lie_group_states_round_trip() {
    let body = FreeRigidBody::principal(2.0, 1.0, 2.0 / 3.0).unwrap();
    let sv = hp::stormer_verlet(So3, Chart::Cayley, body).unwrap();
    let s0 = LieState::new(Matrix3::identity(), Vector3::new(1.1f64.cos(), 0.0, 1.1f64.sin()));
    let casimir = FnObserver::new("casimir", |s: &LieState<Matrix3<f64>, 3>| body.casimirs(s)[0]);
    let observers = [&casimir as &dyn Observer<_>];
    let driver = Driver::new(0.1).unwrap().sample_every(5).unwrap().store_states(true);
    let whole = driver.run(&sv, s0, 300, &observers).unwrap();
    let mut run = driver.start(s0, &observers);
    run.advance(&sv, 123, &observers, None).unwrap();
    let mut resumed = RunState::<LieState<Matrix3<f64>, 3>>::restore(&round_trip(&run.checkpoint())).unwrap();
    resumed.advance(&sv, 300, &observers, None).unwrap();
    let lie_bits = |s: &LieState<Matrix3<f64>, 3>| {
        let mut w = Vec::new();
        s.write_words(&mut w);
        w.iter().map(|v| v.to_bits()).collect::<Vec<u64>>()
    };
    assert_eq!(trajectory_bits(&resumed.finish(&observers), lie_bits), trajectory_bits(&whole, lie_bits));
    assert_eq!(<LieState<Matrix3<f64>, 3> as FlatState>::WORDS, 12);
}

/// Replaces the first occurrence of `from` in the JSON text.
fn edit(cp: &DriverCheckpoint, from: &str, to: &str) -> String {
    let text = serde_json::to_string(cp).unwrap();
    assert!(text.contains(from), "'{from}' not in {text}");
    text.replacen(from, to, 1)
}

#[test]
fn corrupted_foreign_and_mismatched_checkpoints_are_refused() {
    let sv = StormerVerlet::new(AutoDiff(Kepler));
    let energy = Energy(AutoDiff(Kepler));
    let observers = [&energy as &dyn Observer<_>];
    let driver = Driver::new(0.01).unwrap().sample_every(10).unwrap();
    let mut run = driver.start(start(), &observers);
    run.advance(&sv, 50, &observers, None).unwrap();
    let cp = run.checkpoint();
    let state_word = format!("{:016x}", run.state().q[0].to_bits());
    let refused = |text: &str| match serde_json::from_str::<DriverCheckpoint>(text) {
        Err(_) => true,
        Ok(cp) => matches!(RunState::<PhaseState<2>>::restore(&cp), Err(DriverError::Checkpoint(_))),
    };
    assert!(!refused(&serde_json::to_string(&cp).unwrap()), "the intact checkpoint is refused");

    // one bit of the state flipped: the checksum no longer matches
    let last = state_word.chars().last().unwrap();
    let flipped = char::from_digit(last.to_digit(16).unwrap() ^ 1, 16).unwrap();
    let bad_state = format!("{}{flipped}", &state_word[..15]);
    assert!(refused(&edit(&cp, &state_word, &bad_state)), "a flipped state bit is accepted");
    // the step changed
    assert!(refused(&edit(&cp, "\"step\":50", "\"step\":51")), "a changed step is accepted");
    // another format version, even with a matching checksum
    let mut foreign = cp.clone();
    for other in [1, 3] {
        let text = serde_json::to_string(&foreign).unwrap().replace("\"format\":2", &format!("\"format\":{other}"));
        foreign = serde_json::from_str(&text).unwrap();
        let err = RunState::<PhaseState<2>>::restore(&foreign).unwrap_err();
        assert!(err.to_string().contains(&format!("format version {other}")), "{err}");
        foreign = cp.clone();
    }
    // truncated text does not parse
    let text = serde_json::to_string(&cp).unwrap();
    assert!(serde_json::from_str::<DriverCheckpoint>(&text[..text.len() / 2]).is_err());
    // upper-case hex is not the format (a bit flip 0x20 in a letter digit)
    let upper = state_word.to_uppercase();
    if upper != state_word {
        assert!(refused(&edit(&cp, &state_word, &upper)), "upper-case hex is accepted");
    }
    // a checkpoint of another state type: 4 words are not a PhaseState<1> nor a PhaseState<3>
    assert!(matches!(RunState::<PhaseState<1>>::restore(&cp), Err(DriverError::Checkpoint(_))));
    assert!(matches!(RunState::<PhaseState<3>>::restore(&cp), Err(DriverError::Checkpoint(_))));
    // other observers than the run's
    let mut resumed = RunState::<PhaseState<2>>::restore(&cp).unwrap();
    let other = FnObserver::new("other", |s: &PhaseState<2>| s.p[0]);
    let err = resumed.advance(&sv, 100, &[&other as &dyn Observer<_>], None).unwrap_err();
    assert!(err.to_string().contains("energy"), "{err}");
    assert_eq!(resumed.step(), 50);
    // and a target below the steps taken
    assert!(resumed.advance(&sv, 49, &observers, None).is_err());
}

/// The checkpoint as a file (`DriverCheckpoint::to_bytes`, the workspace's checkpoint layout):
/// read back it restores the run, which ends bit for bit where the uninterrupted run ends; every
/// bit flip and every truncation of the file is refused.
#[test]
fn the_checkpoint_file_round_trips_and_refuses_damage() {
    let sv = StormerVerlet::new(AutoDiff(Kepler));
    let energy = Energy(AutoDiff(Kepler));
    let observers = [&energy as &dyn Observer<_>];
    let driver = Driver::new(0.01).unwrap().sample_every(10).unwrap();
    let mut run = driver.start_compensated(start(), &observers);
    run.advance_compensated(&sv, 55, &observers, None).unwrap();
    let bytes = run.checkpoint().to_bytes();
    assert!(
        bytes.starts_with(b"{\"magic\": \"geomint-checkpoint\", \"format\": 2"),
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    let back = DriverCheckpoint::from_bytes(&bytes).unwrap();
    assert_eq!(back, run.checkpoint());
    assert!(back.run().compensated() && back.run().step() == 55);
    let mut resumed = RunState::<PhaseState<2>>::restore(&back).unwrap();
    resumed.advance_compensated(&sv, 200, &observers, None).unwrap();
    let whole = driver.run_compensated(&sv, start(), 200, &observers).unwrap();
    assert_eq!(trajectory_bits(&resumed.finish(&observers), bits), trajectory_bits(&whole, bits));
    for i in (0..bytes.len()).step_by(7) {
        let mut b = bytes.clone();
        b[i] ^= 1 << (i % 8);
        assert!(DriverCheckpoint::from_bytes(&b).is_err(), "a flipped bit at byte {i} is accepted");
    }
    for n in (0..bytes.len()).step_by(5) {
        assert!(DriverCheckpoint::from_bytes(&bytes[..n]).is_err(), "cut at {n} is accepted");
    }
}
