//! Checkpoints of a run: the exact state, carries and record, with a format version and a
//! checksum.

use super::*;

/// The format version of [`DriverCheckpoint`]; a checkpoint of another version is refused.
///
/// Format 2 holds the run in a [`RunSection`] (the layout the workbench's checkpoints share);
/// format 1 held its fields at the top level and is refused.
pub const CHECKPOINT_FORMAT: u32 = 2;

/// The streaming 64-bit FNV-1a hash (Fowler–Noll–Vo): the checksum of checkpoints. Any change of
/// a single byte changes it (each step, `h ← (h ⊕ b) · p` with an odd `p`, is a bijection of
/// `h`).
///
/// ```
/// use integrators::driver::Fnv1a;
/// let mut h = Fnv1a::new();
/// h.write(b"foo");
/// h.write(b"bar");
/// assert_eq!(h.finish(), 0x85944171f73967e8);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fnv1a(u64);

impl Fnv1a {
    /// The hash of no bytes.
    pub const fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
    /// Hashes `bytes` after those written so far.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    /// The hash of everything written.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

impl Default for Fnv1a {
    fn default() -> Self {
        Self::new()
    }
}

/// An `f64` kept as its bit pattern, serialised as 16 lowercase hex digits (exact for every value,
/// NaN payloads and `-0.0` included, in any serde format). Used by the driver's checkpoints and
/// by the workbench's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word(pub u64);

impl Word {
    /// The word of `v`.
    pub fn of(v: f64) -> Self {
        Self(v.to_bits())
    }
    /// The value.
    pub fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl serde::Serialize for Word {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{:016x}", self.0))
    }
}

impl<'de> serde::Deserialize<'de> for Word {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text.len() != 16 || !text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(serde::de::Error::custom(format!("'{text}' is not 16 lowercase hex digits")));
        }
        u64::from_str_radix(&text, 16).map(Word).map_err(serde::de::Error::custom)
    }
}

pub(super) fn words(v: &[f64]) -> Vec<Word> {
    v.iter().map(|x| Word(x.to_bits())).collect()
}

pub(super) fn floats(v: &[Word]) -> Vec<f64> {
    v.iter().map(|w| f64::from_bits(w.0)).collect()
}

/// The exact run, as every checkpoint of the workspace holds it ([`DriverCheckpoint`], the
/// workbench's `checkpoint.json`): the step `h`, the sampling interval, the steps taken, the time
/// `t = step · h`, whether the run sums with compensation, and the state words of
/// [`Propagator::save`] (for a compensated run the state and then its Kahan carries; `None` for a
/// run that cannot be saved, which is then replayed), every `f64` as its bits ([`Word`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    h: Word,
    every: usize,
    step: usize,
    t: Word,
    compensated: bool,
    state: Option<Vec<Word>>,
}

impl RunSection {
    /// The section of `run`, sampled every `every` steps.
    pub fn of<P: Propagator + ?Sized>(run: &P, every: usize, compensated: bool) -> Self {
        Self::new(run.h(), every, run.steps(), compensated, run.save().as_deref())
    }
    /// The section of a run of step `h` at step `step` (`t = step · h`) with the state words
    /// `state`.
    pub fn new(h: f64, every: usize, step: usize, compensated: bool, state: Option<&[f64]>) -> Self {
        Self { h: Word::of(h), every, step, t: Word::of(step as f64 * h), compensated, state: state.map(words) }
    }
    /// The step size.
    pub fn h(&self) -> f64 {
        self.h.get()
    }
    /// The sampling interval.
    pub fn every(&self) -> usize {
        self.every
    }
    /// The steps taken.
    pub fn step(&self) -> usize {
        self.step
    }
    /// Whether the run sums its increments with compensation.
    pub fn compensated(&self) -> bool {
        self.compensated
    }
    /// The state words, if the run saved them.
    pub fn state(&self) -> Option<Vec<f64>> {
        self.state.as_deref().map(floats)
    }
    /// The section is one of a run: `h` finite and positive, `every ≥ 1`, `t` the bits of
    /// `step · h`; else what is wrong.
    pub fn check(&self) -> Result<(), String> {
        let h = self.h();
        if !(h.is_finite() && h > 0.0) || self.every == 0 {
            return Err(format!("h = {h}, every = {}", self.every));
        }
        if self.t.0 != (self.step as f64 * h).to_bits() {
            return Err("t is not step · h".into());
        }
        Ok(())
    }
    /// Sets `run` to the saved state at the saved step ([`Propagator::restore`]); an error, with
    /// `run` unchanged, if the section has no state or the words do not fit.
    pub fn restore_into<P: Propagator + ?Sized>(&self, run: &mut P) -> Result<(), GeomError> {
        let words = self.state().ok_or_else(|| GeomError::InvalidParameter {
            what: "state",
            reason: "the checkpoint holds no state (a run that is replayed)".into(),
        })?;
        run.restore(&words, self.step)
    }
    /// Hashes the section (every field, in a fixed order).
    fn digest_into(&self, h: &mut Fnv1a) {
        for v in [self.h.0, self.every as u64, self.step as u64, self.t.0, u64::from(self.compensated)] {
            h.write(&v.to_le_bytes());
        }
        match &self.state {
            None => h.write(&0u64.to_le_bytes()),
            Some(state) => {
                h.write(&1u64.to_le_bytes());
                h.write(&(state.len() as u64).to_le_bytes());
                for w in state {
                    h.write(&w.0.to_le_bytes());
                }
            }
        }
    }
}

/// A [`RunState`] saved: its [`RunSection`] (the step `h` and sampling, the step count, the state
/// and the compensated-summation carries as exact bit patterns) and the samples so far, with a
/// format version and an FNV-1a checksum of the content. Serialisable with serde (`f64`s as 16
/// hex digits of their bits), and as the workspace's checkpoint file ([`Self::to_bytes`], the
/// layout of [`seal`], the same as `geomint run`'s `checkpoint.json`); [`RunState::restore`]
/// refuses one of another version, one whose checksum does not match, or one inconsistent with
/// itself or with the state type.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverCheckpoint {
    pub(super) format: u32,
    pub(super) run: RunSection,
    pub(super) store_states: bool,
    pub(super) observers: Vec<String>,
    pub(super) sample_steps: Vec<usize>,
    pub(super) sample_times: Vec<Word>,
    pub(super) series: Vec<Vec<Word>>,
    pub(super) states: Vec<Vec<Word>>,
    pub(super) checksum: String,
}

/// The version of the workspace that writes [`DriverCheckpoint::to_bytes`].
const VERSION: &str = env!("CARGO_PKG_VERSION");

impl DriverCheckpoint {
    /// The format version it was written with.
    pub fn format(&self) -> u32 {
        self.format
    }
    /// The steps taken when it was saved.
    pub fn step(&self) -> usize {
        self.run.step
    }
    /// The exact run.
    pub fn run(&self) -> &RunSection {
        &self.run
    }
    /// The checkpoint as a file ([`seal`]: magic, format, version, FNV-1a hash of the payload).
    pub fn to_bytes(&self) -> Vec<u8> {
        // a struct of strings, numbers and vectors always serialises
        seal(self, self.format, VERSION).unwrap_or_default()
    }
    /// The checkpoint in a file written by [`Self::to_bytes`]; [`DriverError::Checkpoint`] for
    /// bytes that are truncated, damaged, of another format or version, or not a driver's
    /// checkpoint. [`RunState::restore`] then checks the content.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, DriverError> {
        let sealed = unseal(bytes).map_err(|e| refused(e.to_string()))?;
        if sealed.format != u64::from(CHECKPOINT_FORMAT) || sealed.version != VERSION {
            return Err(refused(format!(
                "format {} of version {}; this is format {CHECKPOINT_FORMAT} of version {VERSION}",
                sealed.format, sealed.version
            )));
        }
        serde_json::from_slice(sealed.payload).map_err(|e| refused(format!("not a driver's checkpoint: {e}")))
    }
    /// The FNV-1a hash of the content (every field but the checksum, in a fixed order).
    pub(super) fn digest(&self) -> u64 {
        let mut h = Fnv1a::new();
        let num = |h: &mut Fnv1a, v: u64| h.write(&v.to_le_bytes());
        let list = |h: &mut Fnv1a, v: &[Word]| {
            h.write(&(v.len() as u64).to_le_bytes());
            for w in v {
                h.write(&w.0.to_le_bytes());
            }
        };
        num(&mut h, u64::from(self.format));
        self.run.digest_into(&mut h);
        num(&mut h, u64::from(self.store_states));
        num(&mut h, self.observers.len() as u64);
        for name in &self.observers {
            num(&mut h, name.len() as u64);
            h.write(name.as_bytes());
        }
        num(&mut h, self.sample_steps.len() as u64);
        for &k in &self.sample_steps {
            num(&mut h, k as u64);
        }
        list(&mut h, &self.sample_times);
        num(&mut h, self.series.len() as u64);
        for s in &self.series {
            list(&mut h, s);
        }
        num(&mut h, self.states.len() as u64);
        for s in &self.states {
            list(&mut h, s);
        }
        h.finish()
    }
}

pub(super) fn refused(reason: impl Into<String>) -> DriverError {
    DriverError::Checkpoint(reason.into())
}

impl<St: Clone + FlatState> RunState<St> {
    /// The run saved (see [`DriverCheckpoint`]).
    pub fn checkpoint(&self) -> DriverCheckpoint {
        let flat = |s: &St| {
            let mut v = Vec::with_capacity(St::WORDS);
            s.write_words(&mut v);
            v
        };
        let mut state = flat(&self.state);
        state.extend(self.carry.iter().flatten());
        let run = RunSection::new(self.driver.h, self.driver.every, self.step, self.carry.is_some(), Some(&state));
        let mut cp = DriverCheckpoint {
            format: CHECKPOINT_FORMAT,
            run,
            store_states: self.driver.store_states,
            observers: self.record.names.clone(),
            sample_steps: self.record.steps.clone(),
            sample_times: words(&self.record.times),
            series: self.record.series.iter().map(|s| words(s)).collect(),
            states: self.states.iter().map(|s| words(&flat(s))).collect(),
            checksum: String::new(),
        };
        cp.checksum = format!("{:016x}", cp.digest());
        cp
    }

    /// The run saved in `cp`, to be continued with the same method and observers.
    /// [`DriverError::Checkpoint`] for another format version (format 1, written before the run
    /// section, is refused: save the run again with this version), a checksum that does not
    /// match, a state or carries of the wrong length, or samples that are not those of the run's
    /// sampling grid up to its step.
    pub fn restore(cp: &DriverCheckpoint) -> Result<Self, DriverError> {
        if cp.format != CHECKPOINT_FORMAT {
            return Err(refused(format!(
                "format version {}, this is version {CHECKPOINT_FORMAT} (format 1 held the run's fields at the top level; \
                 restore it with the geomint that wrote it and save it again)",
                cp.format
            )));
        }
        let digest = format!("{:016x}", cp.digest());
        if cp.checksum != digest {
            return Err(refused(format!("checksum {} does not match the content ({digest})", cp.checksum)));
        }
        cp.run.check().map_err(refused)?;
        let (every, step) = (cp.run.every, cp.run.step);
        let driver = Driver::new(cp.run.h())
            .and_then(|d| d.sample_every(every))
            .map_err(|e| refused(e.to_string()))?
            .store_states(cp.store_states);
        let unflat = |w: &[f64]| {
            St::read_words(w).ok_or_else(|| refused(format!("a state of {} words, expected {}", w.len(), St::WORDS)))
        };
        let words = cp.run.state().ok_or_else(|| refused("no state"))?;
        let (state, carry) = if cp.run.compensated {
            if words.len() != 2 * St::WORDS {
                return Err(refused(format!("{} words for a state and carries of {}", words.len(), 2 * St::WORDS)));
            }
            (unflat(&words[..St::WORDS])?, Some(words[St::WORDS..].to_vec()))
        } else {
            (unflat(&words)?, None)
        };
        let grid: Vec<usize> = (0..=step / every).map(|i| i * every).collect();
        if cp.sample_steps != grid {
            return Err(refused("the sampled steps are not 0, every, 2 every, … up to the step"));
        }
        let n = grid.len();
        let times_ok = cp.sample_times.len() == n
            && cp.sample_steps.iter().zip(&cp.sample_times).all(|(&k, t)| (k as f64 * driver.h).to_bits() == t.0);
        if !times_ok {
            return Err(refused("the sample times are not step · h"));
        }
        if cp.series.len() != cp.observers.len() || cp.series.iter().any(|s| s.len() != n) {
            return Err(refused("the observer series do not match the samples"));
        }
        if cp.states.len() != if cp.store_states { n } else { 0 } {
            return Err(refused("the stored states do not match the samples"));
        }
        let states = cp.states.iter().map(|w| unflat(&floats(w))).collect::<Result<Vec<_>, _>>()?;
        let record = Record {
            names: cp.observers.clone(),
            steps: cp.sample_steps.clone(),
            times: floats(&cp.sample_times),
            series: cp.series.iter().map(|s| floats(s)).collect(),
        };
        Ok(Self { driver, step, state, carry, record, states })
    }
}
