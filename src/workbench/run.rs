//! The generic [`Simulation`]s: a library run ([`Propagation`] of a boxed one-step method, or
//! [`CompensatedPropagation`] of a boxed increment) with an observer that reads coordinates and
//! invariants off its state. Every problem whose state type has a [`OneStep`] method uses them;
//! the stepping, the compensated arithmetic and the exact state words are the library's
//! (`integrators::driver`), not copies.

use crate::workbench::WorkbenchError;
use crate::workbench::problem::Simulation;
use discretization::{OneStep, PhaseState};
use geom_core::GeomError;
use integrators::driver::{CompensatedPropagation, Increment, Propagation, Propagator};
use nalgebra::SVector;

pub use integrators::driver::Words;

/// Reads output coordinates and monitored quantities off a state.
pub trait Observe<St>: Send + Sync {
    /// The state in the problem's coordinates.
    fn coordinates(&self, state: &St) -> Vec<f64>;
    /// The problem's quantities at `state`, concatenated.
    fn quantities(&self, state: &St) -> Vec<f64>;
}

/// A library run `P` and an observer `O` of its state: a [`Simulation`]. It advances, saves and
/// restores as `P` does (one dynamic call per chunk of steps).
pub struct Observed<P, O> {
    run: P,
    observe: O,
}

/// A boxed [`OneStep`] method on `St` with an observer: the [`Simulation`] of a plain run.
pub type Run<St, O> = Observed<Propagation<Box<dyn OneStep<St>>, St>, O>;

/// A boxed [`Increment`] on `T*R^N` with compensated summation and an observer: the
/// [`Simulation`] of `geomint run --compensated` (the arithmetic of
/// `integrators::driver::Driver::run_compensated`, bit for bit; its exact state is `q, p` and the
/// carries `e_q, e_p`, so that a resumed run continues with the carries it stopped with).
pub type CompensatedRun<const N: usize, O> = Observed<CompensatedPropagation<Box<dyn Increment<N>>, N>, O>;

impl<St, O> Run<St, O> {
    /// Starts `method` at `state` with step `h`; [`WorkbenchError::Geom`] (`InvalidStep`) unless
    /// `h` is finite and nonzero.
    pub fn new(method: Box<dyn OneStep<St>>, state: St, h: f64, observe: O) -> Result<Self, WorkbenchError> {
        Ok(Observed { run: Propagation::new(method, state, h)?, observe })
    }
}

impl<const N: usize, O> CompensatedRun<N, O> {
    /// Starts `method` at `state` with step `h` and zero carries; [`WorkbenchError::Geom`]
    /// (`InvalidStep`) unless `h` is finite and nonzero.
    pub fn new(
        method: Box<dyn Increment<N>>,
        state: PhaseState<N>,
        h: f64,
        observe: O,
    ) -> Result<Self, WorkbenchError> {
        Ok(Observed { run: CompensatedPropagation::new(method, state, h)?, observe })
    }
    /// The carries `(e_q, e_p)`: what the state lacks of the exact sum of the increments.
    pub fn carries(&self) -> (SVector<f64, N>, SVector<f64, N>) {
        self.run.carries()
    }
}

impl<P: Propagator, O> Propagator for Observed<P, O> {
    fn h(&self) -> f64 {
        self.run.h()
    }
    fn steps(&self) -> usize {
        self.run.steps()
    }
    #[inline]
    fn advance_by(&mut self, n: usize) -> Result<(), GeomError> {
        self.run.advance_by(n)
    }
    fn save(&self) -> Option<Vec<f64>> {
        self.run.save()
    }
    fn restore(&mut self, words: &[f64], steps: usize) -> Result<(), GeomError> {
        self.run.restore(words, steps)
    }
}

impl<St: Words + Clone, O: Observe<St>> Simulation for Run<St, O> {
    fn state(&self) -> Vec<f64> {
        self.observe.coordinates(self.run.state())
    }
    fn quantities(&self) -> Vec<f64> {
        self.observe.quantities(self.run.state())
    }
}

impl<const N: usize, O: Observe<PhaseState<N>>> Simulation for CompensatedRun<N, O> {
    fn state(&self) -> Vec<f64> {
        self.observe.coordinates(self.run.state())
    }
    fn quantities(&self) -> Vec<f64> {
        self.observe.quantities(self.run.state())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adds `h` to the state, or fails (leaving it untouched, as the `OneStep` contract asks)
    /// when the result would exceed 2.5.
    struct Scribbler;
    impl OneStep<f64> for Scribbler {
        fn name(&self) -> String {
            "scribbler".into()
        }
        fn order(&self) -> u32 {
            1
        }
        fn step(&self, state: &mut f64, h: f64) -> Result<(), GeomError> {
            if *state + h > 2.5 {
                return Err(GeomError::InvalidStep { h });
            }
            *state += h;
            Ok(())
        }
    }

    struct Identity;
    impl Observe<f64> for Identity {
        fn coordinates(&self, s: &f64) -> Vec<f64> {
            vec![*s]
        }
        fn quantities(&self, s: &f64) -> Vec<f64> {
            vec![2.0 * s]
        }
    }

    /// `advance_by(n)` is `n` calls of `advance`: the same state and count, and on a failure
    /// at step `k` of the `n` the state after step `k − 1`, its count and the step's error.
    #[test]
    fn advance_by_is_n_advances() {
        let mut run = Run::new(Box::new(Scribbler), 0.0, 0.5, Identity).unwrap();
        run.advance_by(3).unwrap();
        assert_eq!((run.state(), run.steps()), (vec![1.5], 3));
        run.advance_by(0).unwrap();
        assert_eq!(run.steps(), 3);
        assert_eq!(run.advance_by(4), Err(GeomError::InvalidStep { h: 0.5 }));
        assert_eq!((run.state(), run.steps()), (vec![2.5], 5));
        // the outer solar system: one call of Störmer–Verlet's step_n (the force shared between
        // steps) against single steps, bit for bit
        let problem = crate::workbench::catalogue::problem("outer-solar-system", &[]).unwrap();
        let start = || crate::workbench::problem::start(problem.as_ref(), "stormer-verlet", 10.0).unwrap();
        let (mut one, mut all) = (start(), start());
        for _ in 0..1000 {
            one.advance_by(1).unwrap();
        }
        all.advance_by(1000).unwrap();
        assert_eq!((all.state(), all.steps()), (one.state(), one.steps()));
        assert_eq!(all.save(), one.save());
    }

    /// A failed step leaves the state and the step count untouched, and the run can be asked
    /// again.
    #[test]
    fn a_failed_step_leaves_the_state_untouched() {
        for start in [0.0, 1.0] {
            let mut run = Run::new(Box::new(Scribbler), start, 1.0, Identity).unwrap();
            let mut expected = start;
            while expected + 1.0 <= 2.5 {
                run.advance_by(1).unwrap();
                expected += 1.0;
                assert_eq!(run.state(), vec![expected]);
            }
            let steps = run.steps();
            for _ in 0..2 {
                assert_eq!(run.advance_by(1), Err(GeomError::InvalidStep { h: 1.0 }));
                assert_eq!((run.state(), run.quantities(), run.steps()), (vec![expected], vec![2.0 * expected], steps));
            }
        }
    }

    /// The compensated run is the driver's compensated summation bit for bit (state and
    /// carries), differs from the plain run, and `save`/`restore` continue it exactly, carries
    /// included; words of a plain state are refused.
    #[test]
    fn compensated_run_is_the_drivers_and_resumes_exactly() {
        use crate::workbench::catalogue::canonical::{Canonical, CanonicalSystem, Kepler};
        use integrators::classical::StormerVerlet;
        use integrators::driver::Driver;
        let kepler = Kepler { e: 0.6 };
        let h = 0.01;
        let start = |k: &Kepler| {
            CompensatedRun::new(
                Box::new(StormerVerlet::new(k.hamiltonian())),
                k.initial(),
                h,
                Canonical::<_, 2>::new(*k),
            )
            .unwrap()
        };
        let mut sim = start(&kepler);
        for _ in 0..3000 {
            sim.advance_by(1).unwrap();
        }
        let driver = Driver::new(h).unwrap();
        let mut reference = driver.start_compensated(kepler.initial(), &[]);
        reference.advance_compensated(&StormerVerlet::new(kepler.hamiltonian()), 3000, &[], None).unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        let s = reference.state();
        assert_eq!(bits(&sim.state()), bits(&[s.q[0], s.q[1], s.p[0], s.p[1]]));
        let (eq, ep) = sim.carries();
        assert_eq!(bits(&[eq[0], eq[1], ep[0], ep[1]]), bits(reference.carries().unwrap()));
        assert!(eq.iter().chain(ep.iter()).any(|c| *c != 0.0), "the carries are all zero");
        let mut plain =
            Run::new(Box::new(StormerVerlet::new(kepler.hamiltonian())), kepler.initial(), h, Canonical::new(kepler))
                .unwrap();
        for _ in 0..3000 {
            plain.advance_by(1).unwrap();
        }
        assert_ne!(bits(&plain.state()), bits(&sim.state()), "compensated and plain runs agree bit for bit");

        let saved = sim.save().unwrap();
        assert_eq!(saved.len(), 8);
        let mut resumed = start(&kepler);
        assert!(resumed.restore(&saved[..4], 3000).is_err(), "a plain state restores a compensated run");
        assert_eq!(resumed.steps(), 0);
        resumed.restore(&saved, 3000).unwrap();
        for _ in 0..1000 {
            sim.advance_by(1).unwrap();
            resumed.advance_by(1).unwrap();
        }
        assert_eq!((bits(&resumed.save().unwrap()), resumed.steps()), (bits(&sim.save().unwrap()), 4000));
        // a restore without the carries (zeros) continues differently: the carries matter
        let mut no_carry = start(&kepler);
        no_carry.restore(&[&saved[..4], &[0.0; 4][..]].concat(), 3000).unwrap();
        for _ in 0..1000 {
            no_carry.advance_by(1).unwrap();
        }
        assert_ne!(bits(&no_carry.state()), bits(&sim.state()));
    }

    /// `save` and `restore` carry the exact state and the step count; words that do not fit
    /// change nothing.
    #[test]
    fn save_and_restore_are_exact() {
        let mut run = Run::new(Box::new(Scribbler), 0.1, 0.3, Identity).unwrap();
        run.advance_by(1).unwrap();
        let saved = run.save().unwrap();
        assert_eq!(saved.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), vec![(0.1f64 + 0.3).to_bits()]);
        let mut other = Run::new(Box::new(Scribbler), 0.0, 0.3, Identity).unwrap();
        assert!(other.restore(&[1.0, 2.0], 5).is_err());
        assert_eq!((other.state(), other.steps()), (vec![0.0], 0));
        other.restore(&saved, run.steps()).unwrap();
        assert_eq!((other.state(), other.steps(), other.time()), (run.state(), run.steps(), run.time()));
        run.advance_by(1).unwrap();
        other.advance_by(1).unwrap();
        assert_eq!(other.save(), run.save());
    }
}
