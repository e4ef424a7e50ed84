//! Long runs that can be checkpointed, interrupted and resumed bit for bit: the loop of
//! `geomint run` and `geomint resume`.
//!
//! A [`Session`] is one run of one method on one problem (fresh with [`Session::new`], or
//! continued from the checkpoint in a directory with [`Session::open`]). [`Session::advance`]
//! steps it towards its target, reads an interrupt flag ([`AtomicBool`], relaxed) before each
//! step, samples every `every` steps, and keeps a checkpoint in the output directory:
//!
//! * `checkpoint.json`: a small file, replaced atomically (written to `checkpoint.json.partial`,
//!   fsync, rename, fsync of the directory) every `checkpoint_every` steps — by default whenever
//!   [`AUTO_INTERVAL`] of integration has passed since the last one (or 100 times as long as the
//!   last one took, if that is longer), so that checkpoints cost well under 1 % of the run — and
//!   at the end: always for an interrupted or failed run, and for a completed run that kept one
//!   (an explicit `checkpoint_every`, a resumed run, or a run long enough for a periodic one);
//! * `checkpoint-samples.bin`: the samples so far, appended (and fsynced) before each
//!   `checkpoint.json` is written; the checkpoint names how many bytes of it are its own and
//!   their checksum, so bytes appended after it (a crash between the two writes) are ignored.
//!
//! # The format (version [`FORMAT`])
//!
//! `checkpoint.json` is the workspace's checkpoint file (`integrators::driver::seal`, the layout
//! of the driver's `DriverCheckpoint::to_bytes` too), one JSON object written as
//!
//! ```text
//! {"magic": "geomint-checkpoint", "format": 3, "geomint": "0.1.0", "fnv1a64": "<16 hex digits>",
//! "payload": { … }}
//! ```
//!
//! where `fnv1a64` is the 64-bit FNV-1a hash ([`Fnv1a`]) of the exact bytes of the payload (from
//! its `{` to its `}`). The payload holds the run: `problem`, `method`, `params`,
//! `target_steps`, `out`, `checkpoint_every`, `max_error` (the resolved configuration), `status`
//! (`running`, `completed`, `interrupted`, `failed at step K`), `run` (the library's
//! `RunSection`, as in the driver's checkpoints: `h`, `every`, `step`, `t = step · h`,
//! `compensated`, and `state`, the simulation's exact state ([`Propagator::save`]: for a
//! compensated run the state and then its Kahan carries; `null` for a simulation that cannot be
//! saved, which is then replayed from its initial data)), `coordinates` (the state in the
//! problem's coordinates, checked after a restore or replay), `samples` (the sample file's name,
//! sample count, words per sample, bytes and FNV-1a hash), `max_errors` (the largest error of
//! each monitored quantity over the samples, checked against them) and `wall_seconds`. Every
//! `f64` that decides a bit of the result is written as the 16 lowercase hex digits of its bit
//! pattern (`f64::to_bits`).
//!
//! A sample in `checkpoint-samples.bin` is a fixed number of little-endian 64-bit words: the step,
//! `t`, the state coordinates, the quantity values, one error per quantity, a flag (1 if the
//! solution error follows, else 0) and the solution error — every `f64` by its bits.
//!
//! Format 3 moved the run's fields (`h`, `every`, `step`, `t`, `state`, `compensated`) into the
//! `run` section. Formats 1 and 2 (the fields at the top level; format 1 without `compensated`,
//! read as the plain run it is) are still read and resumed; the next checkpoint of a resumed run
//! is written as format 3.
//!
//! [`Session::open`] refuses, with a [`CheckpointError`] and before changing anything in the
//! directory, a missing or truncated file, a corrupted one (bad JSON, a header or checksum that
//! does not match, a sample file shorter than its record or whose hash differs), one of another
//! format or geomint version, and one inconsistent with itself (samples off the sampling grid,
//! maxima that are not those of the samples, a state that does not reproduce the coordinates).

use crate::workbench::config::RunConfig;
use crate::workbench::experiment::{self, MAX_STEPS, RunResult, RunSpec, Sample};
use crate::workbench::output;
use crate::workbench::problem::{self, Problem, Propagator, Quantity, Simulation};
use crate::workbench::sample_file::{self, SampleLog, SampleReader, Shape};
use crate::workbench::{WorkbenchError, catalogue};
pub use integrators::driver::Fnv1a;
use integrators::driver::{Cadence, Ended, EnvelopeError, Plan, RunSection, drive, seal, unseal};
use std::collections::BTreeMap;
use std::io::Seek as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The checkpoint's file name in the output directory.
pub const FILE: &str = "checkpoint.json";
/// The file of the samples so far.
pub const SAMPLES_FILE: &str = sample_file::FILE;
/// The first field of every checkpoint.
pub use integrators::driver::MAGIC;
/// The format version written. Format 3 holds the run in the library's `RunSection`; formats 1
/// (no `compensated`) and 2 (the run's fields at the top level) are read and converted. Any other
/// version is refused.
pub const FORMAT: u32 = 3;
/// The oldest format read.
pub const OLDEST_FORMAT: u32 = 1;
/// The geomint version that writes (and alone reads) the checkpoints: another build may round
/// differently, and a resumed run must equal the uninterrupted one bit for bit.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The default interval between periodic checkpoints, in wall time of integration.
pub const AUTO_INTERVAL: Duration = Duration::from_secs(30);
/// With the default schedule, the clock is read at least every this many steps.
const AUTO_STRIDE: usize = 1 << 14;

/// Why a checkpoint was refused. Nothing in the directory has been changed when one is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// The directory holds no checkpoint.
    #[error("no checkpoint in {dir} (every `geomint run --out DIR` keeps one there)")]
    Missing {
        /// The directory.
        dir: String,
    },
    /// The file ends early.
    #[error("checkpoint {path} refused: it is truncated")]
    Truncated {
        /// The file.
        path: String,
    },
    /// The content is damaged: bad JSON, a header or checksum that does not match.
    #[error("checkpoint {path} refused: it is corrupted ({reason})")]
    Corrupted {
        /// The file.
        path: String,
        /// What does not match.
        reason: String,
    },
    /// Written by another format or geomint version.
    #[error(
        "checkpoint {path} refused: it is {found}; this is format {FORMAT} of geomint {VERSION} (which reads formats {OLDEST_FORMAT} to {FORMAT})"
    )]
    Foreign {
        /// The file.
        path: String,
        /// Its format and version.
        found: String,
    },
    /// Intact, but not a run this build can continue (an unknown problem, samples off the grid, a
    /// state that does not reproduce its coordinates, …).
    #[error("checkpoint {path} refused: {reason}")]
    Inconsistent {
        /// The file.
        path: String,
        /// What is inconsistent.
        reason: String,
    },
    /// The file cannot be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
}

impl From<CheckpointError> for WorkbenchError {
    /// An unreadable file is an I/O error (exit 1); a refused checkpoint is bad input (exit 2).
    fn from(e: CheckpointError) -> Self {
        match e {
            CheckpointError::Io { path, source } => WorkbenchError::Read { path, source },
            other => WorkbenchError::Input(format!("{other}; nothing was changed")),
        }
    }
}

// --- exact words ----------------------------------------------------------------------------------

use integrators::driver::Word;

fn words(v: &[f64]) -> Vec<Word> {
    v.iter().map(|&x| Word::of(x)).collect()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn hex(hash: u64) -> String {
    format!("{hash:016x}")
}

// --- the payload ----------------------------------------------------------------------------------

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SamplesInfo {
    file: String,
    count: usize,
    words: usize,
    bytes: u64,
    fnv1a64: String,
}

/// The payload of format 3: the run's configuration, its status, the exact run (the library's
/// [`RunSection`], shared with the driver's checkpoints) and the sample record.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Payload {
    problem: String,
    method: String,
    params: BTreeMap<String, Word>,
    target_steps: usize,
    out: String,
    checkpoint_every: Option<usize>,
    max_error: Option<Word>,
    /// The initial state the run was given (`--state`), absent for the problem's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    initial_state: Option<Vec<Word>>,
    /// The N-body system file of problem `nbody` (`--system`), absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    status: String,
    run: RunSection,
    coordinates: Vec<Word>,
    samples: SamplesInfo,
    max_errors: Vec<Word>,
    wall_seconds: f64,
}

/// The payload of formats 1 and 2, read and converted to format 3: the run's fields at the top
/// level (`h`, `every`, `step`, `t`, `state`, and from format 2 `compensated`).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LegacyPayload {
    problem: String,
    method: String,
    params: BTreeMap<String, Word>,
    h: Word,
    every: usize,
    target_steps: usize,
    out: String,
    checkpoint_every: Option<usize>,
    max_error: Option<Word>,
    #[serde(default)]
    compensated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    initial_state: Option<Vec<Word>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    system: Option<String>,
    status: String,
    step: usize,
    t: Word,
    state: Option<Vec<Word>>,
    coordinates: Vec<Word>,
    samples: SamplesInfo,
    max_errors: Vec<Word>,
    wall_seconds: f64,
}

impl LegacyPayload {
    /// The same run as format 3 (`t` must be `step · h`, as format 3 checks).
    fn upgrade(self) -> Result<Payload, String> {
        let state = self.state.as_ref().map(|s| s.iter().map(|w| w.get()).collect::<Vec<f64>>());
        let run = RunSection::new(self.h.get(), self.every, self.step, self.compensated, state.as_deref());
        if self.t.0 != (self.step as f64 * self.h.get()).to_bits() {
            return Err("t is not step · h".into());
        }
        Ok(Payload {
            problem: self.problem,
            method: self.method,
            params: self.params,
            target_steps: self.target_steps,
            out: self.out,
            checkpoint_every: self.checkpoint_every,
            max_error: self.max_error,
            initial_state: self.initial_state,
            system: self.system,
            status: self.status,
            run,
            coordinates: self.coordinates,
            samples: self.samples,
            max_errors: self.max_errors,
            wall_seconds: self.wall_seconds,
        })
    }
}

/// The file's text for a payload ([`seal`]).
fn encode_checkpoint(payload: &Payload) -> Result<Vec<u8>, WorkbenchError> {
    seal(payload, FORMAT, VERSION).map_err(|e| WorkbenchError::Input(format!("cannot write the checkpoint: {e}")))
}

/// Parses and checks a checkpoint file's bytes ([`unseal`]: magic, layout, checksum; then the
/// format and version), converting formats 1 and 2 to format 3.
fn decode_checkpoint(bytes: &[u8], path: &Path) -> Result<Payload, CheckpointError> {
    let p = || path.display().to_string();
    let corrupted = |reason: String| CheckpointError::Corrupted { path: p(), reason };
    let sealed = unseal(bytes).map_err(|e| match e {
        EnvelopeError::Truncated => CheckpointError::Truncated { path: p() },
        EnvelopeError::Corrupted(reason) => corrupted(reason),
        other => corrupted(other.to_string()),
    })?;
    let (format, version) = (sealed.format, sealed.version.as_str());
    if !(u64::from(OLDEST_FORMAT)..=u64::from(FORMAT)).contains(&format) || version != VERSION {
        return Err(CheckpointError::Foreign { path: p(), found: format!("format {format} of geomint {version}") });
    }
    if format == u64::from(FORMAT) {
        return serde_json::from_slice(sealed.payload).map_err(|e| corrupted(format!("payload: {e}")));
    }
    let legacy: LegacyPayload =
        serde_json::from_slice(sealed.payload).map_err(|e| corrupted(format!("payload: {e}")))?;
    legacy.upgrade().map_err(|reason| CheckpointError::Inconsistent { path: p(), reason })
}

// --- the session ----------------------------------------------------------------------------------

/// How [`Session::advance`] ended.
#[derive(Debug)]
pub enum Outcome {
    /// The run reached its target.
    Completed,
    /// The interrupt flag was set; the run stopped after a whole step.
    Interrupted,
    /// A step failed ([`WorkbenchError::Step`]); the run is at the last good step.
    Failed(WorkbenchError),
}

impl Outcome {
    /// `completed`, `interrupted` or `failed at step K` (K the step that failed).
    pub fn status(&self, step: usize) -> String {
        match self {
            Outcome::Completed => "completed".into(),
            Outcome::Interrupted => "interrupted".into(),
            Outcome::Failed(_) => format!("failed at step {}", step + 1),
        }
    }
}

/// One run of `geomint run` / `geomint resume`: the simulation, its samples, and its checkpoint
/// in the output directory. The steps are taken by the driver's one loop
/// (`integrators::driver::drive`); the session is its hooks (samples, progress, checkpoints).
///
/// A session keeps its samples in memory ([`Session::new`], [`Session::open`]; a detached
/// session, [`Session::detach`], always does) until it is claimed ([`Session::claim`]) or when it
/// is resumed for streaming ([`Session::resume`]): from then on every sample is appended to the
/// sample file as it is taken, and only the first sample and the largest error of each quantity
/// stay in memory, so that the memory of a run does not grow with its samples.
/// [`Session::for_each_sample`] reads them back in order.
pub struct Session {
    sim: Box<dyn Simulation>,
    book: Book,
}

/// Everything of a [`Session`] but the simulation: what the loop's hooks write to.
struct Book {
    problem: Box<dyn Problem>,
    quantities: Vec<Quantity>,
    config: RunConfig,
    method: String,
    h: f64,
    every: usize,
    target: usize,
    dir: PathBuf,
    /// The samples taken (all of them when kept in memory; none when streamed to the log).
    samples: Vec<Sample>,
    /// Whether the samples go to the log as they are taken rather than to `samples`.
    streamed: bool,
    /// The first sample (the initial values of the quantities, the samples' shape).
    first: Sample,
    /// The number of samples taken.
    count: usize,
    /// The largest error of each quantity over the samples taken.
    maxima: Vec<f64>,
    wall: f64,
    log: SampleLog,
    /// Whether the directory keeps a checkpoint to the end (every run does, so that any run can
    /// be resumed; the flag stays for the library's callers that want outputs only).
    keep: bool,
    resumed: bool,
    /// A run held in memory ([`Session::detach`]): no periodic checkpoints in `dir`.
    detached: bool,
}

/// The sample of the simulation's current state; the same numbers as the samples of
/// [`experiment::run`].
fn sample(problem: &dyn Problem, sim: &dyn Simulation, quantities: &[Quantity], v0: &[f64]) -> Sample {
    let (state, values) = (sim.state(), sim.quantities());
    let mut errors = Vec::with_capacity(quantities.len());
    let mut k = 0;
    for q in quantities {
        errors.push(q.error(&values[k..k + q.dim], &v0[k..k + q.dim]));
        k += q.dim;
    }
    let solution_error = problem.exact(sim.time()).map(|y| experiment::distance(&state, &y));
    Sample { step: sim.steps(), t: sim.time(), state, values, errors, solution_error }
}

fn input(msg: impl Into<String>) -> WorkbenchError {
    WorkbenchError::Input(msg.into())
}

/// `maxima` with the errors of `s`: the largest error of each quantity so far (`f64::max`, from 0:
/// a NaN is ignored, as [`RunResult::max_error`] ignores it).
fn fold_maxima(maxima: &mut [f64], s: &Sample) {
    for (m, e) in maxima.iter_mut().zip(&s.errors) {
        *m = m.max(*e);
    }
}

impl Session {
    /// A fresh run of `config` (resolved: problem, method, `h`, `steps`, `every` set) on
    /// `problem`, writing to `dir`. Nothing is written until [`Session::claim`].
    pub fn new(problem: Box<dyn Problem>, config: RunConfig, dir: &Path) -> Result<Self, WorkbenchError> {
        let missing = |what: &str| input(format!("the run's {what} is not resolved"));
        let method = config.method.clone().ok_or_else(|| missing("method"))?;
        let h = config.h.ok_or_else(|| missing("h"))?;
        let target = config.steps.ok_or_else(|| missing("steps"))?;
        let every = config.every.ok_or_else(|| missing("every"))?;
        RunSpec::streamed(h, Some(target), None, every)?;
        check_options(&config)?;
        let sim = problem::start_with(problem.as_ref(), &method, h, config.compensated == Some(true))?;
        let quantities = problem.quantities();
        let v0 = sim.quantities();
        let first = sample(problem.as_ref(), sim.as_ref(), &quantities, &v0);
        let mut maxima = vec![0.0; quantities.len()];
        fold_maxima(&mut maxima, &first);
        let book = Book {
            keep: true,
            problem,
            quantities,
            method,
            h,
            every,
            target,
            dir: dir.to_path_buf(),
            samples: vec![first.clone()],
            streamed: false,
            first,
            count: 1,
            maxima,
            wall: 0.0,
            log: SampleLog::new(dir),
            resumed: false,
            detached: false,
            config,
        };
        Ok(Self { sim, book })
    }

    /// The run whose checkpoint is in `dir`, restored exactly (or replayed from its initial data
    /// where the simulation cannot be saved, reading `stop` between chunks of steps and reporting the
    /// steps replayed to `progress`), its samples read into memory. Every check is made before
    /// anything in `dir` changes; the errors are [`CheckpointError`]s, turned into one-line
    /// [`WorkbenchError`]s.
    pub fn open(dir: &Path, stop: &AtomicBool, progress: &mut dyn FnMut(usize)) -> Result<Self, WorkbenchError> {
        Self::open_with(dir, stop, progress, true)
    }

    /// [`Session::open`] for a run that streams its samples (`geomint resume`): the sample file is
    /// read once, one sample at a time, to check it, and only the first sample and the maxima of
    /// the errors are kept; the samples taken from now on are appended to it.
    pub fn resume(dir: &Path, stop: &AtomicBool, progress: &mut dyn FnMut(usize)) -> Result<Self, WorkbenchError> {
        Self::open_with(dir, stop, progress, false)
    }

    fn open_with(
        dir: &Path,
        stop: &AtomicBool,
        progress: &mut dyn FnMut(usize),
        in_memory: bool,
    ) -> Result<Self, WorkbenchError> {
        let path = dir.join(FILE);
        let p = || path.display().to_string();
        let bad = |reason: String| WorkbenchError::from(CheckpointError::Inconsistent { path: p(), reason });
        let bytes = match crate::workbench::output::read_bounded(&path, crate::workbench::output::MAX_INPUT_BYTES) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(CheckpointError::Missing { dir: dir.display().to_string() }.into());
            }
            Err(source) => return Err(CheckpointError::Io { path: p(), source }.into()),
        };
        let cp = decode_checkpoint(&bytes, &path)?;

        // the run it describes
        let run = &cp.run;
        run.check().map_err(bad)?;
        let (h, every, step, compensated) = (run.h(), run.every(), run.step(), run.compensated());
        if cp.target_steps == 0 || cp.target_steps > MAX_STEPS {
            return Err(bad(format!("h = {h}, every = {every}, target {} steps", cp.target_steps)));
        }
        let params: Vec<(String, f64)> = cp.params.iter().map(|(k, v)| (k.clone(), v.get())).collect();
        let initial: Option<Vec<f64>> = cp.initial_state.as_ref().map(|s| s.iter().map(|w| w.get()).collect());
        let problem = catalogue::resolve(&cp.problem, &params, cp.system.as_deref().map(Path::new), initial.as_deref())
            .map_err(|e| bad(e.to_string()))?;
        let quantities = problem.quantities();
        let shape = Shape::of(problem.as_ref());
        let per = shape.words();
        let count = step / every + 1;
        let info = &cp.samples;
        if info.file != SAMPLES_FILE
            || info.words != per
            || info.count != count
            || info.bytes != (count * per * 8) as u64
        {
            return Err(bad(format!(
                "its sample record ({} samples of {} words in {}) does not fit {} samples of {per} words in {SAMPLES_FILE}",
                info.count, info.words, info.file, count
            )));
        }

        // the samples: the recorded prefix of the sample file, read in order and hashed; the
        // first sample that does not decode or lies off the grid is reported after the checksum
        let log_path = dir.join(SAMPLES_FILE);
        let lp = || log_path.display().to_string();
        let read_error = |source: std::io::Error| match source.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::UnexpectedEof => {
                WorkbenchError::from(CheckpointError::Truncated { path: lp() })
            }
            _ => WorkbenchError::from(CheckpointError::Io { path: lp(), source }),
        };
        let mut reader = SampleReader::open(&log_path, info.bytes, shape).map_err(read_error)?;
        let (mut samples, mut first, mut problem_found) = (Vec::new(), None, None);
        let mut maxima = vec![0.0; quantities.len()];
        let mut seen = 0;
        while let Some(decoded) = reader.next_sample().map_err(read_error)? {
            let i = seen;
            seen += 1;
            if problem_found.is_some() {
                continue;
            }
            let Some(s) = decoded else {
                problem_found = Some("a sample that does not decode".to_string());
                continue;
            };
            if s.step != i * every || s.t.to_bits() != (s.step as f64 * h).to_bits() {
                problem_found = Some("the samples are not those of steps 0, every, 2 every, …".into());
                continue;
            }
            fold_maxima(&mut maxima, &s);
            if first.is_none() {
                first = Some(s.clone());
            }
            if in_memory {
                samples.push(s);
            }
        }
        let hash = reader.hash();
        if hex(hash.finish()) != info.fnv1a64 {
            let reason = format!(
                "checksum {} in {FILE}, {} of its first {} bytes",
                info.fnv1a64,
                hex(hash.finish()),
                info.bytes
            );
            return Err(CheckpointError::Corrupted { path: lp(), reason }.into());
        }
        if let Some(reason) = problem_found {
            return Err(bad(reason));
        }
        let Some(first) = first.filter(|_| seen == count) else {
            return Err(bad("the samples are not those of steps 0, every, 2 every, …".into()));
        };
        if bits(&maxima) != cp.max_errors.iter().map(|w| w.0).collect::<Vec<_>>() {
            return Err(bad("the maxima of the errors are not those of the samples".into()));
        }

        // the simulation: its initial data must be the run's, its state the checkpoint's
        let sim0 = problem::start_with(problem.as_ref(), &cp.method, h, compensated).map_err(|e| bad(e.to_string()))?;
        if bits(&sim0.quantities()) != bits(&first.values) {
            return Err(bad("the problem's initial data differ from the run's".into()));
        }
        let sim = match run.state() {
            Some(_) => {
                let mut sim = sim0;
                run.restore_into(sim.as_mut()).map_err(|e| bad(format!("the state does not restore: {e}")))?;
                sim
            }
            None => replay(sim0, step, stop, progress)?,
        };
        if sim.steps() != step || bits(&sim.state()) != cp.coordinates.iter().map(|w| w.0).collect::<Vec<_>>() {
            return Err(bad("the restored state does not reproduce the checkpoint's coordinates".into()));
        }

        let config = RunConfig {
            problem: Some(cp.problem.clone()),
            method: Some(cp.method.clone()),
            h: Some(h),
            steps: Some(cp.target_steps),
            t_end: None,
            every: Some(every),
            out: Some(dir.display().to_string()),
            checkpoint_every: cp.checkpoint_every,
            max_error: cp.max_error.map(Word::get),
            compensated: compensated.then_some(true),
            state: cp.initial_state.as_ref().map(|s| s.iter().map(|w| w.get()).collect()),
            system: cp.system.clone(),
            params: params.into_iter().collect(),
        };
        check_options(&config).map_err(|e| bad(e.to_string()))?;
        let log = SampleLog::at(log_path, count, info.bytes, hash);
        let book = Book {
            problem,
            quantities,
            method: cp.method,
            h,
            every,
            target: cp.target_steps,
            dir: dir.to_path_buf(),
            samples,
            streamed: !in_memory,
            first,
            count,
            maxima,
            wall: cp.wall_seconds,
            log,
            keep: true,
            resumed: true,
            detached: false,
            config,
        };
        Ok(Self { sim, book })
    }

    /// Sets the total number of steps to reach (at least the steps taken).
    pub fn set_target(&mut self, steps: usize) -> Result<(), WorkbenchError> {
        if steps < self.step() {
            return Err(input(format!(
                "the run is already at step {} (t = {}); --steps must be at least {}",
                self.step(),
                self.time(),
                self.step()
            )));
        }
        if steps > MAX_STEPS {
            return Err(input(format!("{steps} steps requested; at most {MAX_STEPS}")));
        }
        self.book.target = steps;
        self.book.config.steps = Some(steps);
        Ok(())
    }

    /// Replaces the checkpoint interval and the error threshold (where given).
    pub fn set_options(
        &mut self,
        checkpoint_every: Option<usize>,
        max_error: Option<f64>,
    ) -> Result<(), WorkbenchError> {
        let mut config = self.book.config.clone();
        config.checkpoint_every = checkpoint_every.or(config.checkpoint_every);
        config.max_error = max_error.or(config.max_error);
        check_options(&config)?;
        self.book.keep |= config.checkpoint_every.is_some();
        self.book.config = config;
        Ok(())
    }

    /// Takes the output directory for this run, before any step: a fresh run checks that it can
    /// write there and removes the checkpoint of a run it replaces; a resumed run cuts the sample
    /// file back to its checkpoint's samples (bytes written after that checkpoint). From then on
    /// the session streams its samples to the sample file. Returns the directories created.
    pub fn claim(&mut self) -> Result<output::Created, WorkbenchError> {
        let created = output::check_writable(&self.book.dir)?;
        if self.book.resumed {
            let path = self.book.log.path.clone();
            let io = |e| WorkbenchError::Io { path: path.display().to_string(), source: e };
            let mut f = std::fs::OpenOptions::new().write(true).open(&path).map_err(io)?;
            if f.metadata().map_err(io)?.len() > self.book.log.bytes {
                f.set_len(self.book.log.bytes).and_then(|()| f.sync_all()).map_err(io)?;
            }
            f.seek(std::io::SeekFrom::End(0)).map_err(io)?;
            self.book.log.attach(f);
        } else {
            for name in [FILE, SAMPLES_FILE, &format!("{FILE}.partial")] {
                let p = self.book.dir.join(name);
                match std::fs::remove_file(&p) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(WorkbenchError::Io { path: p.display().to_string(), source: e });
                    }
                    _ => {}
                }
            }
        }
        // from now on the samples stream to the sample file
        self.book.log_pending()?;
        self.book.samples = Vec::new();
        self.book.streamed = true;
        Ok(created)
    }

    /// Steps the run to its target through the driver's loop: sampling every `every` steps,
    /// reading `stop` between chunks of steps and writing the periodic checkpoints (every
    /// `checkpoint_every` steps, else by wall time, [`AUTO_INTERVAL`]); `progress` gets the steps
    /// taken after each segment. A failed step is [`Outcome::Failed`] (the run stays at the last
    /// good step); an I/O error of a checkpoint is an error.
    pub fn advance(&mut self, stop: &AtomicBool, progress: &mut dyn FnMut(usize)) -> Result<Outcome, WorkbenchError> {
        let cadence = match self.book.config.checkpoint_every {
            _ if self.book.detached => Cadence::Never,
            Some(n) => Cadence::Steps(n),
            None => Cadence::Wall { interval: AUTO_INTERVAL, stride: AUTO_STRIDE },
        };
        let plan = Plan::new(self.book.target, self.book.every)?.with_cadence(cadence)?;
        let v0 = self.book.first.values.clone();
        let mut hooks = SessionHooks { book: &mut self.book, v0, progress };
        Ok(match drive(self.sim.as_mut(), &plan, Some(stop), &mut hooks)? {
            Ended::Reached => Outcome::Completed,
            Ended::Stopped => Outcome::Interrupted,
            Ended::Failed { step, time, error } => Outcome::Failed(experiment::step_error(step, time, error)),
        })
    }

    /// The checkpoint to write with the final outputs (last in the set, so that a failed commit
    /// leaves the previous one): for an interrupted or failed run always, for a completed one if
    /// the directory keeps a checkpoint. Appends the new samples first.
    pub fn final_checkpoint(&mut self, status: &str) -> Result<Option<Vec<u8>>, WorkbenchError> {
        if !self.book.keep && status == "completed" {
            return Ok(None);
        }
        self.book.checkpoint_bytes(self.sim.as_ref(), status).map(Some)
    }

    /// Holds the run in memory: [`Session::advance`] writes no periodic checkpoint (nor anything
    /// else) in the session's directory; [`Session::save_to`] writes one where asked. For a
    /// library's simulation that lives in a program's memory (Python's `geomint.Simulation`).
    pub fn detach(&mut self) {
        self.book.detached = true;
    }

    /// Writes the run so far as a whole checkpoint in `dir` (created if missing), with `status`:
    /// the sample file written anew, then `checkpoint.json`, each to a temporary name, synced and
    /// renamed (a crash in between leaves a checkpoint that [`Session::open`] refuses or one
    /// that continues the same run, never a wrong one). `system` replaces the run's system file
    /// (problems `nbody` and `system`), e.g. by a copy written in `dir`. The session's own
    /// directory and sample file are not touched. [`Session::open`] on `dir` (and `geomint resume
    /// DIR`) continues the run bit for bit.
    pub fn save_to(&mut self, dir: &Path, system: Option<String>, status: &str) -> Result<(), WorkbenchError> {
        let io = |p: &Path| {
            let path = p.display().to_string();
            move |e| WorkbenchError::Io { path, source: e }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let partial = dir.join(format!("{SAMPLES_FILE}.partial"));
        let log = if self.book.streamed {
            let book = &mut self.book;
            book.log.flush()?;
            copy_prefix(&book.log.path, &partial, book.log.bytes)?;
            SampleLog::at(partial.clone(), book.log.count, book.log.bytes, book.log.hash)
        } else {
            let mut log = SampleLog::at(partial.clone(), 0, 0, Fnv1a::new());
            for s in &self.book.samples {
                log.push(s)?;
            }
            log.sync()?;
            log.close()?;
            log
        };
        let mut config = self.book.config.clone();
        config.out = Some(dir.display().to_string());
        config.system = system.or(config.system);
        let bytes = self.book.payload_bytes(self.sim.as_ref(), status, &log, &config)?;
        let samples = dir.join(SAMPLES_FILE);
        std::fs::rename(&partial, &samples).map_err(io(&samples))?;
        let (tmp, fin) = (dir.join(format!("{FILE}.partial")), dir.join(FILE));
        output::write_synced(&tmp, &bytes)?;
        std::fs::rename(&tmp, &fin).map_err(io(&fin))?;
        output::sync_dir(dir);
        Ok(())
    }

    /// After a failed commit of the final outputs: removes a sample file that this session
    /// created and that no checkpoint names.
    pub fn abandon(&self) {
        if self.book.log.created && !self.book.dir.join(FILE).exists() {
            let _ = std::fs::remove_file(&self.book.log.path);
        }
    }

    /// The run so far as a [`RunResult`]: the samples, and the current step sampled too if it is
    /// off the sampling grid (as a run of that many steps samples its last step). A session that
    /// streams its samples holds only the first one in memory: its result has the first sample
    /// and the current one ([`Session::for_each_sample`] reads them all, [`Session::result_with`]
    /// makes the result of a digest of them).
    pub fn result(&self) -> RunResult {
        let mut samples = if self.book.streamed { vec![self.book.first.clone()] } else { self.book.samples.clone() };
        if let Some(last) = self.off_grid(samples.last().map(|s| s.step)) {
            samples.push(last);
        }
        self.result_with(samples)
    }

    /// The sample of the current step if `last` (the step of the last sample taken) is not it.
    fn off_grid(&self, last: Option<usize>) -> Option<Sample> {
        (last != Some(self.sim.steps())).then(|| {
            sample(self.book.problem.as_ref(), self.sim.as_ref(), &self.book.quantities, &self.book.first.values)
        })
    }

    /// The number of samples of [`Session::result`] of a session that keeps them in memory, and
    /// that [`Session::for_each_sample`] gives: those taken, and the current step if it is off
    /// the sampling grid.
    pub fn sample_count(&self) -> usize {
        self.book.count + usize::from(!self.sim.steps().is_multiple_of(self.book.every))
    }

    /// Calls `each` with every sample of the run so far in order (those of [`Session::result`] of
    /// a session that keeps them in memory): from memory, or read back one at a time from the
    /// sample file (flushed first) for a session that streams them. Stops at the first error.
    pub fn for_each_sample(
        &mut self,
        each: &mut dyn FnMut(&Sample) -> Result<(), WorkbenchError>,
    ) -> Result<(), WorkbenchError> {
        let mut last = None;
        if self.book.streamed {
            let log = &mut self.book.log;
            log.flush()?;
            let io = |e| WorkbenchError::Io { path: log.path.display().to_string(), source: e };
            let shape = Shape::of(self.book.problem.as_ref());
            let mut reader = SampleReader::open(&log.path, log.bytes, shape).map_err(io)?;
            while let Some(s) = reader.next_sample().map_err(io)? {
                let s = s.ok_or_else(|| io(std::io::Error::new(std::io::ErrorKind::InvalidData, "not a sample")))?;
                each(&s)?;
                last = Some(s.step);
            }
        } else {
            for s in &self.book.samples {
                each(s)?;
                last = Some(s.step);
            }
        }
        match self.off_grid(last) {
            Some(s) => each(&s),
            None => Ok(()),
        }
    }

    /// The run so far as a [`RunResult`] with `samples` (e.g. a
    /// [`Digest`](crate::workbench::digest::Digest) of [`Session::for_each_sample`]).
    pub fn result_with(&self, samples: Vec<Sample>) -> RunResult {
        RunResult {
            problem: self.book.problem.name().into(),
            method: self.book.method.clone(),
            spec: RunSpec { h: self.book.h, steps: self.sim.steps(), every: self.book.every },
            labels: self.book.problem.state_labels(),
            quantities: self.book.quantities.clone(),
            samples,
            wall_seconds: self.book.wall,
        }
    }

    /// The run's first sample (step 0).
    pub fn first_sample(&self) -> &Sample {
        &self.book.first
    }

    /// An upper bound on the bytes the run's files still need on the disk to reach the target:
    /// the samples still to be appended to the sample file, the CSV files of every sample (written
    /// anew at the end, [`Shape::output_bytes`]), and 1 MiB for the summary, plots and checkpoint.
    pub fn output_bytes(&self) -> u64 {
        let shape = Shape::of(self.book.problem.as_ref());
        // the samples on the grid and the last step off it
        let total = (self.book.target / self.book.every) as u64 + 2;
        let new = total.saturating_sub(self.book.count as u64);
        new.saturating_mul(shape.bytes())
            .saturating_add(total.saturating_mul(shape.output_bytes() - shape.bytes()))
            .saturating_add(1 << 20)
    }

    /// The problem.
    pub fn problem(&self) -> &dyn Problem {
        self.book.problem.as_ref()
    }
    /// The resolved configuration (its `steps` is the target).
    pub fn config(&self) -> &RunConfig {
        &self.book.config
    }
    /// The output directory.
    pub fn dir(&self) -> &Path {
        &self.book.dir
    }
    /// Steps taken.
    pub fn step(&self) -> usize {
        self.sim.steps()
    }
    /// The time `step · h`.
    pub fn time(&self) -> f64 {
        self.sim.time()
    }
    /// The number of steps the run is to reach.
    pub fn target(&self) -> usize {
        self.book.target
    }
    /// Whether the run sums its increments with compensation (`--compensated`).
    pub fn compensated(&self) -> bool {
        self.book.config.compensated == Some(true)
    }
    /// The threshold of the error warning (default 1).
    pub fn max_error(&self) -> f64 {
        self.book.config.max_error.unwrap_or(1.0)
    }
    /// The simulation's exact state ([`Propagator::save`]) and its coordinates.
    pub fn state(&self) -> (Option<Vec<f64>>, Vec<f64>) {
        (self.sim.save(), self.sim.state())
    }
}

impl Book {
    /// Writes a checkpoint now: the new samples, then `checkpoint.json` (atomically).
    fn write_checkpoint(&mut self, sim: &dyn Simulation, status: &str) -> Result<(), WorkbenchError> {
        let bytes = self.checkpoint_bytes(sim, status)?;
        let (tmp, fin) = (self.dir.join(format!("{FILE}.partial")), self.dir.join(FILE));
        output::write_synced(&tmp, &bytes)?;
        std::fs::rename(&tmp, &fin).map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            WorkbenchError::Io { path: fin.display().to_string(), source: e }
        })?;
        output::sync_dir(&self.dir);
        self.keep = true;
        Ok(())
    }

    /// Appends the samples held in memory that the log lacks (none when they stream).
    fn log_pending(&mut self) -> Result<(), WorkbenchError> {
        for s in self.samples.get(self.log.count..).unwrap_or(&[]) {
            self.log.push(s)?;
        }
        Ok(())
    }

    /// Flushes the new samples to the disk and returns the checkpoint's text.
    fn checkpoint_bytes(&mut self, sim: &dyn Simulation, status: &str) -> Result<Vec<u8>, WorkbenchError> {
        self.log_pending()?;
        self.log.sync()?;
        self.payload_bytes(sim, status, &self.log, &self.config)
    }

    /// Records a sample taken: in memory, or appended to the log.
    fn record(&mut self, s: Sample) -> Result<(), WorkbenchError> {
        fold_maxima(&mut self.maxima, &s);
        self.count += 1;
        if self.streamed {
            self.log.push(&s)
        } else {
            self.samples.push(s);
            Ok(())
        }
    }

    /// The checkpoint's text for the samples recorded in `log` and the configuration `c`.
    fn payload_bytes(
        &self,
        sim: &dyn Simulation,
        status: &str,
        log: &SampleLog,
        c: &RunConfig,
    ) -> Result<Vec<u8>, WorkbenchError> {
        let payload = Payload {
            problem: self.problem.name().to_string(),
            method: self.method.clone(),
            params: c.params.iter().map(|(k, v)| (k.clone(), Word::of(*v))).collect(),
            target_steps: self.target,
            out: c.out.clone().unwrap_or_default(),
            checkpoint_every: c.checkpoint_every,
            max_error: c.max_error.map(Word::of),
            initial_state: c.state.as_deref().map(words),
            system: c.system.clone(),
            status: status.to_string(),
            run: RunSection::of(sim, self.every, c.compensated == Some(true)),
            coordinates: words(&sim.state()),
            samples: SamplesInfo {
                file: SAMPLES_FILE.into(),
                count: log.count,
                words: Shape {
                    states: self.first.state.len(),
                    values: self.first.values.len(),
                    quantities: self.quantities.len(),
                }
                .words(),
                bytes: log.bytes,
                fnv1a64: hex(log.hash.finish()),
            },
            max_errors: words(&self.maxima),
            wall_seconds: self.wall,
        };
        encode_checkpoint(&payload)
    }
}

/// The session's hooks in the driver's loop: a sample at every multiple of `every`, the wall time
/// and the progress after each segment, the periodic checkpoints.
struct SessionHooks<'a> {
    book: &'a mut Book,
    v0: Vec<f64>,
    progress: &'a mut dyn FnMut(usize),
}

impl integrators::driver::Hooks<dyn Simulation + '_> for SessionHooks<'_> {
    type Error = WorkbenchError;
    fn sample(&mut self, sim: &(dyn Simulation + '_)) -> Result<(), WorkbenchError> {
        let s = sample(self.book.problem.as_ref(), sim, &self.book.quantities, &self.v0);
        self.book.record(s)
    }
    fn progress(&mut self, sim: &(dyn Simulation + '_), integrating: Duration) {
        self.book.wall += integrating.as_secs_f64();
        (self.progress)(sim.steps());
    }
    fn checkpoint(&mut self, sim: &(dyn Simulation + '_)) -> Result<(), WorkbenchError> {
        self.book.write_checkpoint(sim, "running")
    }
}

/// `checkpoint_every ≥ 1`, `max_error > 0`.
fn check_options(c: &RunConfig) -> Result<(), WorkbenchError> {
    if c.checkpoint_every == Some(0) {
        return Err(input("--checkpoint-every must be at least 1"));
    }
    if let Some(m) = c.max_error
        && (m.is_nan() || m <= 0.0)
    {
        return Err(input(format!("--max-error must be positive, got {m}")));
    }
    Ok(())
}

/// Copies the first `bytes` bytes of `from` to a new file `to`, synced.
fn copy_prefix(from: &Path, to: &Path, bytes: u64) -> Result<(), WorkbenchError> {
    let mut src =
        std::fs::File::open(from).map_err(|e| WorkbenchError::Io { path: from.display().to_string(), source: e })?;
    output::write_synced_with(to, |dst| {
        let copied = std::io::copy(&mut std::io::Read::take(&mut src, bytes), dst)?;
        if copied < bytes {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the sample file is short"));
        }
        Ok(())
    })
}

/// Replays `steps` steps of a fresh simulation (for one that cannot be saved) through the
/// driver's loop, reporting progress every 1024 steps.
fn replay(
    mut sim: Box<dyn Simulation>,
    steps: usize,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(usize),
) -> Result<Box<dyn Simulation>, WorkbenchError> {
    match experiment::drive_sampled(sim.as_mut(), steps, 1024, Some(stop), |s| progress(s.steps()))?.1 {
        Ended::Reached => Ok(sim),
        Ended::Stopped => {
            Err(input(format!("interrupted while replaying the run to step {steps}; nothing was changed")))
        }
        Ended::Failed { step, time, error } => Err(experiment::step_error(step, time, error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fnv(bytes: &[u8]) -> u64 {
        let mut h = Fnv1a::new();
        h.write(bytes);
        h.finish()
    }

    fn legacy() -> LegacyPayload {
        LegacyPayload {
            problem: "kepler".into(),
            method: "stormer-verlet".into(),
            params: BTreeMap::from([("e".to_string(), Word::of(0.9))]),
            h: Word::of(0.01),
            every: 10,
            target_steps: 100,
            out: "runs/k".into(),
            checkpoint_every: Some(50),
            max_error: None,
            compensated: false,
            initial_state: None,
            system: None,
            status: "running".into(),
            step: 50,
            t: Word::of(0.5),
            state: Some(words(&[0.1, 0.2, 0.3, 0.4])),
            coordinates: words(&[0.1, 0.2, 0.3, 0.4]),
            samples: SamplesInfo { file: SAMPLES_FILE.into(), count: 6, words: 13, bytes: 624, fnv1a64: hex(1) },
            max_errors: words(&[1e-5, 0.0]),
            wall_seconds: 0.25,
        }
    }

    fn payload() -> Payload {
        legacy().upgrade().unwrap()
    }

    /// The bytes a format-1 or format-2 writer wrote for `body` (the header of the time, its own
    /// hash).
    fn sealed_as(format: u64, body: &str) -> Vec<u8> {
        let mut old = format!(
            "{{\"magic\": \"{MAGIC}\", \"format\": {format}, \"geomint\": \"{VERSION}\", \"fnv1a64\": \"{}\",\n\"payload\": ",
            hex(fnv(body.as_bytes()))
        )
        .into_bytes();
        old.extend_from_slice(body.as_bytes());
        old.extend_from_slice(b"}\n");
        old
    }

    #[test]
    fn every_bit_flip_and_every_truncation_is_refused() {
        let path = Path::new("D/checkpoint.json");
        let bytes = encode_checkpoint(&payload()).unwrap();
        let back = decode_checkpoint(&bytes, path).unwrap();
        assert_eq!(back.run.h(), 0.01);
        assert_eq!(back.run, payload().run);
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                assert!(decode_checkpoint(&b, path).is_err(), "flipping bit {bit} of byte {i} is not detected");
            }
        }
        for n in 0..bytes.len() {
            let err = decode_checkpoint(&bytes[..n], path).unwrap_err();
            assert!(matches!(err, CheckpointError::Truncated { .. }), "cut at {n}: {err}");
        }
    }

    /// Format 3 writes the run in its `run` section; a format-2 checkpoint (the run's fields at
    /// the top level) and a format-1 one (also without `compensated`) still read, as the same run;
    /// a legacy one whose `t` is not `step · h` is inconsistent.
    #[test]
    fn formats_1_and_2_read_as_the_same_run() {
        let path = Path::new("checkpoint.json");
        let mut l = legacy();
        l.compensated = true;
        let p = l.clone().upgrade().unwrap();
        let bytes = encode_checkpoint(&p).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.contains("\"format\": 3") && text.contains("\"compensated\": true"), "{text}");
        assert!(text.contains("\"run\": {"), "{text}");
        let back = decode_checkpoint(&bytes, path).unwrap();
        assert_eq!(back.run, p.run);
        assert!(back.run.compensated());
        // format 2: the legacy payload as it was written
        let body = serde_json::to_string_pretty(&l).unwrap();
        let from2 = decode_checkpoint(&sealed_as(2, &body), path).unwrap();
        assert_eq!(from2.run, p.run);
        assert_eq!(from2.run.state(), Some(vec![0.1, 0.2, 0.3, 0.4]));
        // format 1: no `compensated` field
        let body = serde_json::to_string_pretty(&legacy()).unwrap().replace("  \"compensated\": false,\n", "");
        assert!(!body.contains("compensated"), "{body}");
        let from1 = decode_checkpoint(&sealed_as(1, &body), path).unwrap();
        assert!(!from1.run.compensated());
        assert_eq!(from1.run, payload().run);
        // a format-2 payload under the format-3 header is corrupted, and the other way round
        assert!(matches!(decode_checkpoint(&sealed_as(3, &body), path), Err(CheckpointError::Corrupted { .. })));
        let body3 = serde_json::to_string_pretty(&payload()).unwrap();
        assert!(matches!(decode_checkpoint(&sealed_as(2, &body3), path), Err(CheckpointError::Corrupted { .. })));
        // t off step · h in a legacy payload
        let mut off = legacy();
        off.t = Word::of(0.6);
        let body = serde_json::to_string_pretty(&off).unwrap();
        assert!(matches!(decode_checkpoint(&sealed_as(2, &body), path), Err(CheckpointError::Inconsistent { .. })));
    }

    /// Every groupoid simulation saves its exact state and is restored from it: a fresh
    /// simulation restored at step k and advanced with the original stays equal to it bit for
    /// bit; words of the wrong length, or not a state, are refused and change nothing.
    #[test]
    fn groupoid_simulations_save_and_restore_exactly() {
        let cases = [
            ("spherical-pendulum", "rattle"),
            ("plate-ball", "del"),
            ("so3-optimal-control", "del"),
            ("so3-optimal-control", "del-cayley"),
        ];
        for (name, method) in cases {
            let problem = catalogue::problem(name, &[]).unwrap();
            let h = problem.defaults().0;
            let mut sim = problem::start(problem.as_ref(), method, h).unwrap();
            let fresh = problem::start(problem.as_ref(), method, h).unwrap().save().unwrap();
            for _ in 0..7 {
                sim.advance_by(1).unwrap();
            }
            let saved = sim.save().expect("a groupoid simulation saves its state");
            assert_ne!(bits(&saved), bits(&fresh), "{name}: the saved state is the initial one");
            let mut other = problem::start(problem.as_ref(), method, h).unwrap();
            assert!(other.restore(&saved[1..], 7).is_err(), "{name}: a short state restores");
            assert_eq!((other.steps(), bits(&other.save().unwrap())), (0, bits(&fresh)), "{name}: changed");
            other.restore(&saved, 7).unwrap();
            assert_eq!((other.steps(), bits(&other.state())), (7, bits(&sim.state())), "{name}");
            for _ in 0..5 {
                sim.advance_by(1).unwrap();
                other.advance_by(1).unwrap();
            }
            assert_eq!(bits(&other.save().unwrap()), bits(&sim.save().unwrap()), "{name}: diverged after restore");
            assert_eq!(bits(&other.quantities()), bits(&sim.quantities()), "{name}");
        }
        // the optimal control's flag word (after W, λ and the attitude) must be 0 or 1
        let problem = catalogue::problem("so3-optimal-control", &[]).unwrap();
        let mut sim = problem::start(problem.as_ref(), "del", 0.1).unwrap();
        let mut words = sim.save().unwrap();
        assert_eq!(words.len(), 23);
        words[19] = 0.5;
        assert!(sim.restore(&words, 3).is_err());
        assert_eq!(sim.steps(), 0);
    }

    /// A detached session writes nothing in its directory, however long it runs; saved with
    /// [`Session::save_to`] at an interruption, it is opened and continued to the end bit for bit
    /// equal to the run that went through.
    #[test]
    fn a_detached_session_saved_anywhere_continues_bit_for_bit() {
        let root = std::env::temp_dir().join(format!("geomint-save-to-{}", std::process::id()));
        let (home, saved) = (root.join("home"), root.join("saved"));
        let config = |steps| RunConfig {
            problem: Some("kepler".into()),
            method: Some("stormer-verlet".into()),
            h: Some(0.01),
            steps: Some(steps),
            every: Some(7),
            checkpoint_every: Some(1),
            ..RunConfig::default()
        };
        let session = |steps| {
            let mut s = Session::new(catalogue::problem("kepler", &[]).unwrap(), config(steps), &home).unwrap();
            s.detach();
            s
        };
        let stop = AtomicBool::new(false);
        let mut whole = session(100);
        assert!(matches!(whole.advance(&stop, &mut |_| {}).unwrap(), Outcome::Completed));
        assert!(!home.exists(), "a detached session wrote in its directory");

        let mut part = session(100);
        part.set_target(40).unwrap();
        assert!(matches!(part.advance(&stop, &mut |_| {}).unwrap(), Outcome::Completed));
        part.save_to(&saved, None, "interrupted").unwrap();
        assert!(!home.exists());
        let mut back = Session::open(&saved, &stop, &mut |_| {}).unwrap();
        assert_eq!((back.step(), bits(&back.state().1)), (40, bits(&part.state().1)));
        back.detach();
        back.set_target(100).unwrap();
        assert!(matches!(back.advance(&stop, &mut |_| {}).unwrap(), Outcome::Completed));
        let (a, b) = (whole.result(), back.result());
        assert_eq!(a.samples.len(), b.samples.len());
        for (x, y) in a.samples.iter().zip(&b.samples) {
            assert_eq!((x.step, bits(&x.state), bits(&x.errors)), (y.step, bits(&y.state), bits(&y.errors)));
        }
        // saved again over itself, and opened once more
        back.save_to(&saved, None, "completed").unwrap();
        let again = Session::open(&saved, &stop, &mut |_| {}).unwrap();
        assert_eq!((again.step(), bits(&again.state().1)), (100, bits(&whole.state().1)));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn another_version_is_foreign() {
        let path = Path::new("checkpoint.json");
        let text = String::from_utf8(encode_checkpoint(&payload()).unwrap()).unwrap();
        for (from, to) in [("\"format\": 3", "\"format\": 4"), ("\"format\": 3", "\"format\": 0"), (VERSION, "9.9.9")] {
            let foreign = text.replacen(from, to, 1);
            let err = decode_checkpoint(foreign.as_bytes(), path).unwrap_err();
            assert!(matches!(err, CheckpointError::Foreign { .. }), "{err}");
            assert!(err.to_string().contains("this is format 3"), "{err}");
        }
        let err = decode_checkpoint(b"{\"hello\": 1}\n", path).unwrap_err();
        assert!(matches!(err, CheckpointError::Corrupted { .. }), "{err}");
    }
}
