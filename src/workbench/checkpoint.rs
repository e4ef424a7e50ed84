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
use crate::workbench::{WorkbenchError, catalogue};
pub use integrators::driver::Fnv1a;
use integrators::driver::{Cadence, Ended, EnvelopeError, Plan, RunSection, drive, seal, unseal};
use std::collections::BTreeMap;
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// The checkpoint's file name in the output directory.
pub const FILE: &str = "checkpoint.json";
/// The file of the samples so far.
pub const SAMPLES_FILE: &str = "checkpoint-samples.bin";
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

// --- samples --------------------------------------------------------------------------------------

/// The number of 64-bit words of one sample.
fn sample_words(states: usize, values: usize, quantities: usize) -> usize {
    2 + states + values + quantities + 2
}

fn encode_sample(s: &Sample, out: &mut Vec<u8>) {
    let mut word = |w: u64| out.extend_from_slice(&w.to_le_bytes());
    word(s.step as u64);
    word(s.t.to_bits());
    for v in s.state.iter().chain(&s.values).chain(&s.errors) {
        word(v.to_bits());
    }
    word(u64::from(s.solution_error.is_some()));
    word(s.solution_error.map_or(0, f64::to_bits));
}

fn decode_sample(bytes: &[u8], states: usize, values: usize, quantities: usize) -> Option<Sample> {
    let w: Vec<u64> = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect();
    if w.len() != sample_words(states, values, quantities) {
        return None;
    }
    let f = |a: usize, b: usize| w[a..b].iter().map(|&x| f64::from_bits(x)).collect::<Vec<f64>>();
    let (s0, v0, e0, tag) = (2, 2 + states, 2 + states + values, 2 + states + values + quantities);
    let solution_error = match w[tag] {
        0 => None,
        1 => Some(f64::from_bits(w[tag + 1])),
        _ => return None,
    };
    Some(Sample {
        step: usize::try_from(w[0]).ok()?,
        t: f64::from_bits(w[1]),
        state: f(s0, v0),
        values: f(v0, e0),
        errors: f(e0, tag),
        solution_error,
    })
}

/// The append-only file of the samples: how many are in it (fsynced), and their hash.
#[derive(Debug)]
struct SampleLog {
    path: PathBuf,
    persisted: usize,
    bytes: u64,
    hash: Fnv1a,
    file: Option<std::fs::File>,
    /// Whether this session created the file (so that a failed final commit can remove it).
    created: bool,
}

impl SampleLog {
    fn new(dir: &Path) -> Self {
        Self { path: dir.join(SAMPLES_FILE), persisted: 0, bytes: 0, hash: Fnv1a::new(), file: None, created: false }
    }

    /// Appends `samples[persisted..]` and flushes them to the disk.
    fn append(&mut self, samples: &[Sample]) -> Result<(), WorkbenchError> {
        let path = self.path.display().to_string();
        let io = |e| WorkbenchError::Io { path: path.clone(), source: e };
        if self.file.is_none() {
            let file = if self.persisted == 0 {
                self.created = true;
                std::fs::File::create(&self.path)
            } else {
                std::fs::OpenOptions::new().append(true).open(&self.path)
            };
            self.file = Some(file.map_err(io)?);
        }
        if self.persisted == samples.len() {
            return Ok(());
        }
        let mut buf = Vec::new();
        for s in &samples[self.persisted..] {
            encode_sample(s, &mut buf);
        }
        if let Some(f) = self.file.as_mut() {
            f.write_all(&buf).and_then(|()| f.sync_data()).map_err(io)?;
        }
        self.hash.write(&buf);
        self.persisted = samples.len();
        self.bytes += buf.len() as u64;
        Ok(())
    }
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
    samples: Vec<Sample>,
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

/// The largest error of each quantity over `samples`.
fn max_errors(samples: &[Sample], n: usize) -> Vec<f64> {
    (0..n).map(|i| samples.iter().map(|s| s.errors[i]).fold(0.0, f64::max)).collect()
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
        RunSpec::new(h, Some(target), None, every)?;
        check_options(&config)?;
        let sim = problem::start_with(problem.as_ref(), &method, h, config.compensated == Some(true))?;
        let quantities = problem.quantities();
        let v0 = sim.quantities();
        let first = sample(problem.as_ref(), sim.as_ref(), &quantities, &v0);
        let book = Book {
            keep: true,
            problem,
            quantities,
            method,
            h,
            every,
            target,
            dir: dir.to_path_buf(),
            samples: vec![first],
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
    /// steps replayed to `progress`). Every check is made before anything in `dir` changes; the
    /// errors are [`CheckpointError`]s, turned into one-line [`WorkbenchError`]s.
    pub fn open(dir: &Path, stop: &AtomicBool, progress: &mut dyn FnMut(usize)) -> Result<Self, WorkbenchError> {
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
        let states = problem.state_labels().len();
        let values: usize = quantities.iter().map(|q| q.dim).sum();
        let per = sample_words(states, values, quantities.len());
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

        // the samples: the recorded prefix of the sample file, hashed
        let log_path = dir.join(SAMPLES_FILE);
        let lp = || log_path.display().to_string();
        let mut file = std::fs::File::open(&log_path).map_err(|source| {
            if source.kind() == std::io::ErrorKind::NotFound {
                WorkbenchError::from(CheckpointError::Truncated { path: lp() })
            } else {
                WorkbenchError::from(CheckpointError::Io { path: lp(), source })
            }
        })?;
        let mut data = Vec::new();
        (&mut file)
            .take(info.bytes)
            .read_to_end(&mut data)
            .map_err(|source| WorkbenchError::from(CheckpointError::Io { path: lp(), source }))?;
        if (data.len() as u64) < info.bytes {
            return Err(CheckpointError::Truncated { path: lp() }.into());
        }
        let mut hash = Fnv1a::new();
        hash.write(&data);
        if hex(hash.finish()) != info.fnv1a64 {
            let reason = format!(
                "checksum {} in {FILE}, {} of its first {} bytes",
                info.fnv1a64,
                hex(hash.finish()),
                data.len()
            );
            return Err(CheckpointError::Corrupted { path: lp(), reason }.into());
        }
        let samples: Vec<Sample> = data
            .chunks_exact(per * 8)
            .map(|c| decode_sample(c, states, values, quantities.len()))
            .collect::<Option<_>>()
            .ok_or_else(|| bad("a sample that does not decode".into()))?;
        let grid = samples
            .iter()
            .enumerate()
            .all(|(i, s)| s.step == i * every && s.t.to_bits() == (s.step as f64 * h).to_bits());
        if samples.len() != count || !grid {
            return Err(bad("the samples are not those of steps 0, every, 2 every, …".into()));
        }
        let maxima = max_errors(&samples, quantities.len());
        if bits(&maxima) != cp.max_errors.iter().map(|w| w.0).collect::<Vec<_>>() {
            return Err(bad("the maxima of the errors are not those of the samples".into()));
        }

        // the simulation: its initial data must be the run's, its state the checkpoint's
        let sim0 = problem::start_with(problem.as_ref(), &cp.method, h, compensated).map_err(|e| bad(e.to_string()))?;
        if bits(&sim0.quantities()) != bits(&samples[0].values) {
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
        let log = SampleLog { path: log_path, persisted: count, bytes: info.bytes, hash, file: None, created: false };
        let book = Book {
            problem,
            quantities,
            method: cp.method,
            h,
            every,
            target: cp.target_steps,
            dir: dir.to_path_buf(),
            samples,
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
    /// file back to its checkpoint's samples (bytes written after that checkpoint). Returns the
    /// directories created.
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
            self.book.log.file = Some(f);
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
        let v0 = self.book.samples[0].values.clone();
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
        let mut log = SampleLog::new(dir);
        log.path = partial.clone();
        log.append(&self.book.samples)?;
        log.file = None;
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
    /// off the sampling grid (as a run of that many steps samples its last step).
    pub fn result(&self) -> RunResult {
        let mut samples = self.book.samples.clone();
        if samples.last().is_none_or(|s| s.step != self.sim.steps()) {
            samples.push(sample(
                self.book.problem.as_ref(),
                self.sim.as_ref(),
                &self.book.quantities,
                &self.book.samples[0].values,
            ));
        }
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

    /// Appends the new samples and returns the checkpoint's text.
    fn checkpoint_bytes(&mut self, sim: &dyn Simulation, status: &str) -> Result<Vec<u8>, WorkbenchError> {
        self.log.append(&self.samples)?;
        self.payload_bytes(sim, status, &self.log, &self.config)
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
                count: log.persisted,
                words: sample_words(self.samples[0].state.len(), self.samples[0].values.len(), self.quantities.len()),
                bytes: log.bytes,
                fnv1a64: hex(log.hash.finish()),
            },
            max_errors: words(&max_errors(&self.samples, self.quantities.len())),
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
        self.book.samples.push(s);
        Ok(())
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

    fn sample_of(step: usize, sol: Option<f64>) -> Sample {
        Sample {
            step,
            t: step as f64 * 0.1,
            state: vec![1.0, -0.0, f64::MIN_POSITIVE],
            values: vec![0.5, 2.0],
            errors: vec![1e-17],
            solution_error: sol,
        }
    }

    #[test]
    fn samples_round_trip_bit_for_bit() {
        for sol in [None, Some(3.5e-12)] {
            let s = sample_of(7, sol);
            let mut buf = Vec::new();
            encode_sample(&s, &mut buf);
            assert_eq!(buf.len(), 8 * sample_words(3, 2, 1));
            let back = decode_sample(&buf, 3, 2, 1).unwrap();
            assert_eq!(back, s);
            assert_eq!(back.state[1].to_bits(), (-0.0f64).to_bits());
            assert!(decode_sample(&buf[..buf.len() - 8], 3, 2, 1).is_none());
        }
        let mut buf = Vec::new();
        encode_sample(&sample_of(1, None), &mut buf);
        let tag = 8 * (2 + 3 + 2 + 1);
        buf[tag] = 2;
        assert!(decode_sample(&buf, 3, 2, 1).is_none(), "a tag other than 0 or 1 is accepted");
    }

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
