//! Checkpoints of a run: the exact state, carries and record, with a format version and a
//! checksum.

use super::*;

/// The format version of [`DriverCheckpoint`]; a checkpoint of another version is refused.
pub const CHECKPOINT_FORMAT: u32 = 1;

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

/// A [`RunState`] saved: everything the next step and the record depend on — the step `h` and
/// sampling, the step count, the state and the compensated-summation carries as exact bit
/// patterns, the samples so far — with a format version and an FNV-1a checksum of the content.
/// Serialisable with serde (`f64`s as 16 hex digits of their bits); [`RunState::restore`] refuses
/// one of another version, one whose checksum does not match, or one inconsistent with itself or
/// with the state type.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverCheckpoint {
    pub(super) format: u32,
    pub(super) h: Word,
    pub(super) every: usize,
    pub(super) store_states: bool,
    pub(super) step: usize,
    pub(super) state: Vec<Word>,
    pub(super) carry: Option<Vec<Word>>,
    pub(super) observers: Vec<String>,
    pub(super) sample_steps: Vec<usize>,
    pub(super) sample_times: Vec<Word>,
    pub(super) series: Vec<Vec<Word>>,
    pub(super) states: Vec<Vec<Word>>,
    pub(super) checksum: String,
}

impl DriverCheckpoint {
    /// The format version it was written with.
    pub fn format(&self) -> u32 {
        self.format
    }
    /// The steps taken when it was saved.
    pub fn step(&self) -> usize {
        self.step
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
        num(&mut h, self.h.0);
        num(&mut h, self.every as u64);
        num(&mut h, u64::from(self.store_states));
        num(&mut h, self.step as u64);
        list(&mut h, &self.state);
        match &self.carry {
            None => num(&mut h, 0),
            Some(c) => {
                num(&mut h, 1);
                list(&mut h, c);
            }
        }
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
            words(&v)
        };
        let mut cp = DriverCheckpoint {
            format: CHECKPOINT_FORMAT,
            h: Word(self.driver.h.to_bits()),
            every: self.driver.every,
            store_states: self.driver.store_states,
            step: self.step,
            state: flat(&self.state),
            carry: self.carry.as_deref().map(words),
            observers: self.record.names.clone(),
            sample_steps: self.record.steps.clone(),
            sample_times: words(&self.record.times),
            series: self.record.series.iter().map(|s| words(s)).collect(),
            states: self.states.iter().map(flat).collect(),
            checksum: String::new(),
        };
        cp.checksum = format!("{:016x}", cp.digest());
        cp
    }

    /// The run saved in `cp`, to be continued with the same method and observers.
    /// [`DriverError::Checkpoint`] for another format version, a checksum that does not match,
    /// a state or carries of the wrong length, or samples that are not those of the run's
    /// sampling grid up to its step.
    pub fn restore(cp: &DriverCheckpoint) -> Result<Self, DriverError> {
        if cp.format != CHECKPOINT_FORMAT {
            return Err(refused(format!("format version {}, this is version {CHECKPOINT_FORMAT}", cp.format)));
        }
        let digest = format!("{:016x}", cp.digest());
        if cp.checksum != digest {
            return Err(refused(format!("checksum {} does not match the content ({digest})", cp.checksum)));
        }
        let driver = Driver::new(f64::from_bits(cp.h.0))
            .and_then(|d| d.sample_every(cp.every))
            .map_err(|e| refused(e.to_string()))?
            .store_states(cp.store_states);
        let unflat = |w: &[Word]| {
            St::read_words(&floats(w))
                .ok_or_else(|| refused(format!("a state of {} words, expected {}", w.len(), St::WORDS)))
        };
        let state = unflat(&cp.state)?;
        if let Some(c) = &cp.carry
            && c.len() != St::WORDS
        {
            return Err(refused(format!("{} carries for a state of {} words", c.len(), St::WORDS)));
        }
        let grid: Vec<usize> = (0..=cp.step / cp.every).map(|i| i * cp.every).collect();
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
        let states = cp.states.iter().map(|w| unflat(w)).collect::<Result<Vec<_>, _>>()?;
        let record = Record {
            names: cp.observers.clone(),
            steps: cp.sample_steps.clone(),
            times: floats(&cp.sample_times),
            series: cp.series.iter().map(|s| floats(s)).collect(),
        };
        Ok(Self { driver, step: cp.step, state, carry: cp.carry.as_deref().map(floats), record, states })
    }
}
