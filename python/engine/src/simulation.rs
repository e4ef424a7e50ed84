//! Runs that continue: the workbench's checkpointed run loop ([`Session`], the loop of
//! `geomint run` and `geomint resume`) held in memory, on a thread of its own.
//!
//! * [`Simulation`]: a [`Session`] that lives on a worker thread (a session is not `Send`, so
//!   it never leaves that thread); jobs are sent to it and answer on a channel, so that the
//!   caller can wait for them as it likes (Python checks its signals while it waits) and set the
//!   session's stop flag, read by the loop between chunks of steps.
//! * [`advance`], [`save`]: the jobs, on the worker's `&mut Session`. [`save`] writes the
//!   checkpoint of the CLI (`geomint resume DIR` continues it, and [`Simulation::load`] reads
//!   what `geomint run --out DIR` wrote), bit for bit either way.
//! * [`run`]: one run to its end through the same loop (the CLI's run, bit for bit), with the
//!   samples' memory checked first ([`check_room`]).

use crate::{Origin, System, plan};
use geomint::workbench::WorkbenchError;
use geomint::workbench::checkpoint::{Outcome, Session};
use geomint::workbench::config::RunConfig;
use geomint::workbench::experiment::{MAX_SAMPLES, MAX_STEPS, RunResult, Sample};
use geomint::workbench::problem::{Problem, Quantity};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// An error of a run: the workbench's, or samples that would not fit in memory.
#[derive(Debug)]
pub enum RunError {
    /// Bad input, a failed step, an I/O error.
    Workbench(WorkbenchError),
    /// The samples of the run would not fit in the memory this process may allocate.
    Memory(String),
}

impl From<WorkbenchError> for RunError {
    fn from(e: WorkbenchError) -> Self {
        Self::Workbench(e)
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Workbench(e) => write!(f, "{e}"),
            Self::Memory(msg) => write!(f, "{msg}"),
        }
    }
}

fn input(msg: impl Into<String>) -> WorkbenchError {
    WorkbenchError::Input(msg.into())
}

/// The bytes one sample takes while held (the [`Sample`] and its three vectors with an
/// allocator's overhead), once more while a result is copied out, and once as output arrays.
fn sample_bytes(states: usize, values: usize, quantities: usize) -> usize {
    let words = states + values + quantities;
    let held = std::mem::size_of::<Sample>() + 8 * words + 3 * 16;
    2 * held + 8 * (words + 3)
}

/// Whether `samples` more samples of a problem with these sizes fit in memory: the whole amount
/// is reserved once (address space only, nothing is written) and released. A refusal is
/// [`RunError::Memory`], naming the amount and `every`.
pub fn check_room(
    samples: usize,
    states: usize,
    values: usize,
    quantities: usize,
    every: usize,
) -> Result<(), RunError> {
    let bytes = samples.saturating_mul(sample_bytes(states, values, quantities));
    let mut probe: Vec<u8> = Vec::new();
    if probe.try_reserve_exact(bytes).is_err() {
        return Err(RunError::Memory(format!(
            "{samples} samples (every {every} steps) of {states} coordinates need about {:.1} GB, more than this \
             process can allocate: sample less often (a larger every)",
            bytes as f64 / 1e9
        )));
    }
    Ok(())
}

/// The sizes of a problem's samples: coordinates, quantity values, quantities.
fn sizes(p: &dyn Problem) -> (usize, usize, usize) {
    let q = p.quantities();
    (p.state_labels().len(), q.iter().map(|q| q.dim).sum(), q.len())
}

/// What a [`Simulation`] is, read once: problem, method, step, sampling, labels, quantities.
#[derive(Debug, Clone)]
pub struct About {
    /// Problem name.
    pub problem: String,
    /// Method name.
    pub method: String,
    /// Step size.
    pub h: f64,
    /// Sampling interval.
    pub every: usize,
    /// State labels.
    pub labels: Vec<String>,
    /// The monitored quantities.
    pub quantities: Vec<Quantity>,
}

fn about(s: &Session) -> About {
    let c = s.config();
    About {
        problem: s.problem().name().to_string(),
        method: c.method.clone().unwrap_or_default(),
        h: c.h.unwrap_or(0.0),
        every: c.every.unwrap_or(1),
        labels: s.problem().state_labels(),
        quantities: s.problem().quantities(),
    }
}

/// A fresh run, resolved and checked on the caller's thread: the problem (from the system's
/// own initial state or `state`) and the run's configuration, target 1 step until [`advance`]
/// sets it. `method` and `h` default as for `geomint run`; `every ≥ 1`.
pub struct Start {
    problem: Box<dyn Problem>,
    config: RunConfig,
}

impl Start {
    /// Resolves `method` (default: the problem's first) and `h` (default: the problem's), checks
    /// `every` and `state`.
    pub fn new(
        system: &System,
        method: Option<&str>,
        h: Option<f64>,
        every: usize,
        state: Option<&[f64]>,
    ) -> Result<Self, WorkbenchError> {
        let plan = plan(system, method, h, Some(1), None, Some(every))?;
        let base = system.problem();
        let problem = match state {
            Some(s) => base.with_state(s)?,
            None => base.with_state(&base.initial_state()?)?,
        };
        let (name, params) = match system.origin() {
            Origin::Catalogue { name, params } => (name.clone(), params.iter().cloned().collect()),
            Origin::NBody(b) => (problem.name().to_string(), [("G".to_string(), b.g())].into_iter().collect()),
            _ => (problem.name().to_string(), Default::default()),
        };
        let config = RunConfig {
            problem: Some(name),
            method: Some(plan.method),
            h: Some(plan.spec.h),
            steps: Some(1),
            every: Some(every),
            state: state.map(<[f64]>::to_vec),
            params,
            ..RunConfig::default()
        };
        Ok(Self { problem, config })
    }
}

/// A job on the worker's session; the flag is the session's stop flag.
type Job = Box<dyn FnOnce(&mut Session, &AtomicBool) + Send>;

/// A [`Session`] held in memory on a thread of its own (detached: it writes nothing until
/// [`save`]). Dropping it ends the thread once its current job is done.
pub struct Simulation {
    jobs: mpsc::Sender<Job>,
    stop: Arc<AtomicBool>,
    origin: Option<Origin>,
    about: About,
}

/// The placeholder directory of a detached session (never written).
fn nowhere() -> PathBuf {
    PathBuf::from(".geomint-in-memory")
}

impl Simulation {
    /// Starts the worker thread with the session that `build` makes there (`build` reads the
    /// stop flag if it is long, as a replay is).
    fn spawn(
        origin: Option<Origin>,
        build: impl FnOnce(&AtomicBool) -> Result<Session, WorkbenchError> + Send + 'static,
    ) -> Result<Starting, WorkbenchError> {
        let stop = Arc::new(AtomicBool::new(false));
        let (jobs, queue) = mpsc::channel::<Job>();
        let (ready, answer) = mpsc::channel::<Result<About, WorkbenchError>>();
        let flag = Arc::clone(&stop);
        std::thread::Builder::new()
            .name("geomint-simulation".into())
            .spawn(move || {
                let mut session = match build(&flag) {
                    Ok(mut s) => {
                        s.detach();
                        let _ = ready.send(Ok(about(&s)));
                        s
                    }
                    Err(e) => {
                        let _ = ready.send(Err(e));
                        return;
                    }
                };
                for job in queue {
                    job(&mut session, &flag);
                }
            })
            .map_err(|e| input(format!("cannot start the simulation's thread: {e}")))?;
        let ready = Pending { rx: answer, flag: Some(Arc::clone(&stop)) };
        Ok(Starting { jobs, stop, origin, ready })
    }

    /// A fresh simulation of `start` from `origin`.
    pub fn start(start: Start, origin: Origin) -> Result<Starting, WorkbenchError> {
        Self::spawn(Some(origin), move |_| Session::new(start.problem, start.config, &nowhere()))
    }

    /// The run of the checkpoint in `dir` (written by `geomint run --out DIR`, `geomint resume`
    /// or [`save`]), restored exactly ([`Session::open`]: every check of `geomint resume`; a
    /// simulation that cannot be saved is replayed, reading the stop flag).
    pub fn load(dir: &Path) -> Result<Starting, WorkbenchError> {
        let dir = dir.to_path_buf();
        Self::spawn(None, move |stop| Session::open(&dir, stop, &mut |_| {}))
    }

    /// Runs `job` on the session; the answer comes on the returned [`Pending`]. The stop flag is
    /// cleared first.
    pub fn submit<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Session, &AtomicBool) -> T + Send + 'static,
    ) -> Pending<Option<T>> {
        self.stop.store(false, Ordering::SeqCst);
        let (tx, rx) = mpsc::channel();
        let job: Job = Box::new(move |s, stop| {
            let _ = tx.send(Some(job(s, stop)));
        });
        if let Err(mpsc::SendError(_)) = self.jobs.send(job) {
            // the thread is gone: the receiver reports it (its sender was dropped with the job)
        }
        Pending { rx, flag: Some(Arc::clone(&self.stop)) }
    }

    /// What the simulation is.
    pub fn about(&self) -> &About {
        &self.about
    }

    /// The system it was built from (`None` for one loaded from a checkpoint).
    pub fn origin(&self) -> Option<&Origin> {
        self.origin.as_ref()
    }
}

/// A [`Simulation`] whose session is being built on its thread: wait on [`Starting::ready`],
/// then [`Starting::finish`] with what it answered.
pub struct Starting {
    jobs: mpsc::Sender<Job>,
    stop: Arc<AtomicBool>,
    origin: Option<Origin>,
    /// What the session is, or why it could not be built.
    pub ready: Pending<Result<About, WorkbenchError>>,
}

impl Starting {
    /// The simulation, once its session answered `about`.
    pub fn finish(self, about: About) -> Simulation {
        Simulation { jobs: self.jobs, stop: self.stop, origin: self.origin, about }
    }
}

/// The answer of a job on a [`Simulation`]'s thread, to wait for.
pub struct Pending<T> {
    rx: mpsc::Receiver<T>,
    flag: Option<Arc<AtomicBool>>,
}

impl<T> Pending<T> {
    /// Waits up to `timeout` for the answer: `Ok(Some)` with it, `Ok(None)` if it is not there
    /// yet, `Err` if the worker is gone without one.
    pub fn wait(&self, timeout: std::time::Duration) -> Result<Option<T>, WorkbenchError> {
        match self.rx.recv_timeout(timeout) {
            Ok(v) => Ok(Some(v)),
            Err(mpsc::RecvTimeoutError::Timeout) => Ok(None),
            Err(mpsc::RecvTimeoutError::Disconnected) => Err(input("the simulation's thread has ended")),
        }
    }
    /// Asks the job to stop at the next chunk of steps (the session stays at its last whole
    /// step).
    pub fn stop(&self) {
        if let Some(f) = &self.flag {
            f.store(true, Ordering::SeqCst);
        }
    }
}

/// Steps the session until `target` steps in all (the run's target, as `geomint resume --steps`
/// sets it), sampling every `every` steps; stops at the next chunk once `stop` is set. Refused
/// before any step: a target behind the run, beyond [`MAX_STEPS`], with more than
/// [`MAX_SAMPLES`] samples in all, or whose samples would not fit in memory.
pub fn advance(s: &mut Session, target: usize, stop: &AtomicBool) -> Result<Outcome, RunError> {
    let (step, every) = (s.step(), s.config().every.unwrap_or(1));
    if target < step {
        return Err(input(format!("the simulation is at step {step} (t = {}); it cannot go back", s.time())).into());
    }
    if target > MAX_STEPS {
        return Err(input(format!("{target} steps requested; at most {MAX_STEPS} (raise h)")).into());
    }
    let samples = target / every + 1;
    if samples > MAX_SAMPLES {
        let least = target.div_ceil(MAX_SAMPLES - 1);
        return Err(input(format!(
            "{target} steps sampled every {every} give {samples} samples; a simulation keeps at most {MAX_SAMPLES} \
             in memory: sample every {least} steps or more (every={least})"
        ))
        .into());
    }
    let (n, v, k) = sizes(s.problem());
    check_room(target / every - step / every + 1, n, v, k, every)?;
    if target == 0 {
        return Ok(Outcome::Completed);
    }
    s.set_target(target)?;
    Ok(s.advance(stop, &mut |_| {})?)
}

/// The file that names the system of a checkpoint saved in `dir`: none for a catalogue
/// problem; for an N-body or a formula system, its data written in `dir` (`bodies.csv` in the
/// format of `geomint run nbody --system`, every value exact; `system.toml`); for a loaded run,
/// its own file copied there. A rigid body or heavy top built from data is not a problem the
/// checkpoint can name: an input error.
fn system_file(origin: Option<&Origin>, current: Option<&str>, dir: &Path) -> Result<Option<String>, WorkbenchError> {
    let io = |p: &Path| {
        let path = p.display().to_string();
        move |e| WorkbenchError::Io { path, source: e }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let absolute = |p: PathBuf| -> Result<Option<String>, WorkbenchError> {
        Ok(Some(std::fs::canonicalize(&p).map_err(io(&p))?.display().to_string()))
    };
    match origin {
        Some(Origin::Catalogue { .. }) => Ok(None),
        Some(Origin::NBody(b)) => {
            let d = b.dim();
            let mut text = String::from(if d == 3 { "mass, x, y, z, vx, vy, vz\n" } else { "mass, x, y, vx, vy\n" });
            for (i, m) in b.masses().iter().enumerate() {
                let row: Vec<String> = std::iter::once(*m)
                    .chain(b.positions()[i * d..(i + 1) * d].iter().copied())
                    .chain(b.velocities()[i * d..(i + 1) * d].iter().copied())
                    .map(|x| format!("{x:?}"))
                    .collect();
                text += &row.join(", ");
                text.push('\n');
            }
            let p = dir.join("bodies.csv");
            std::fs::write(&p, text).map_err(io(&p))?;
            absolute(p)
        }
        Some(Origin::Formula(spec)) => {
            let p = dir.join("system.toml");
            std::fs::write(&p, spec.to_toml()).map_err(io(&p))?;
            absolute(p)
        }
        Some(Origin::Lie(spec)) => {
            let p = dir.join("system.toml");
            std::fs::write(&p, spec.to_toml()).map_err(io(&p))?;
            absolute(p)
        }
        Some(Origin::Body) => Err(input(
            "a rigid body or heavy top built from data cannot be saved: the CLI's checkpoint names catalogue \
             problems, N-body systems and systems of formulas only (start from the catalogue's 'rigid-body' or \
             'heavy-top' with state= to save one)",
        )),
        Some(Origin::Callback) => Err(input(
            "a system of callbacks cannot be saved: the CLI's checkpoint names catalogue problems, N-body systems \
             and systems of formulas only (write the system as formulas, geomint.hamiltonian, to save it)",
        )),
        Some(Origin::VectorField) => Err(input(
            "a vector field given by a callback cannot be saved: the CLI's checkpoint names catalogue problems, \
             N-body systems and systems of formulas only",
        )),
        None => match current {
            None => Ok(None),
            Some(file) => {
                let from = PathBuf::from(file);
                let name = from.file_name().map_or_else(|| "system".into(), |n| n.to_os_string());
                let to = dir.join(name);
                let same = std::fs::canonicalize(&from).ok() == std::fs::canonicalize(&to).ok();
                if !same {
                    std::fs::copy(&from, &to).map_err(io(&from))?;
                }
                absolute(to)
            }
        },
    }
}

/// Saves the session as a checkpoint in `dir` ([`Session::save_to`]), with its system's file
/// where it needs one (the N-body or formula data written beside it): status `completed` at the
/// target, else `interrupted`.
pub fn save(s: &mut Session, origin: Option<&Origin>, dir: &Path) -> Result<(), WorkbenchError> {
    let system = system_file(origin, s.config().system.as_deref(), dir)?;
    let status = if s.step() >= s.target() { "completed" } else { "interrupted" };
    s.save_to(dir, system, status)
}

/// One run to its end through the session's loop (`geomint run`'s, bit for bit): [`plan`], the
/// samples' memory checked ([`check_room`]), then the steps. `Ok(None)` when `stop` was set.
#[allow(clippy::too_many_arguments)]
pub fn run(
    system: &System,
    method: Option<&str>,
    h: Option<f64>,
    steps: Option<usize>,
    t_end: Option<f64>,
    every: Option<usize>,
    state: Option<&[f64]>,
    stop: &AtomicBool,
) -> Result<Option<RunResult>, RunError> {
    let plan = plan(system, method, h, steps, t_end, every)?;
    let start = Start::new(system, Some(&plan.method), Some(plan.spec.h), plan.spec.every, state)?;
    let (n, v, k) = sizes(start.problem.as_ref());
    check_room(plan.spec.steps / plan.spec.every + 1, n, v, k, plan.spec.every)?;
    let mut session = Session::new(start.problem, start.config, &nowhere())?;
    session.detach();
    match advance(&mut session, plan.spec.steps, stop)? {
        Outcome::Completed => Ok(Some(session.result())),
        Outcome::Interrupted => Ok(None),
        Outcome::Failed(e) => Err(e.into()),
    }
}
