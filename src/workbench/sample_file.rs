//! The sample file of a run, `checkpoint-samples.bin`: every sample of `geomint run`, appended as
//! it is taken, so that a run keeps no sample in memory however many it takes, and read back in
//! order, one sample at a time, to check a checkpoint and to write the run's CSV files and plots.
//!
//! A sample is [`Shape::words`] little-endian 64-bit words: the step, `t`, the state coordinates,
//! the quantity values, one error per quantity, a flag (1 if the solution error follows, else 0)
//! and the solution error — every `f64` by its bits, so that a sample reads back bit for bit.
//! The file is hashed with the 64-bit FNV-1a hash ([`Fnv1a`]) as it is written; the checkpoint
//! names how many bytes of it are its own and their hash.

use crate::workbench::WorkbenchError;
use crate::workbench::experiment::Sample;
use crate::workbench::problem::Problem;
use integrators::driver::Fnv1a;
use std::io::{BufReader, BufWriter, Read as _, Write as _};
use std::path::{Path, PathBuf};

/// The sample file's name in the output directory.
pub const FILE: &str = "checkpoint-samples.bin";

/// The sizes of a problem's samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// State coordinates.
    pub states: usize,
    /// Quantity values (the quantities' components together).
    pub values: usize,
    /// Monitored quantities (one error each).
    pub quantities: usize,
}

impl Shape {
    /// The shape of `problem`'s samples.
    pub fn of(problem: &dyn Problem) -> Self {
        let quantities = problem.quantities();
        Self {
            states: problem.state_labels().len(),
            values: quantities.iter().map(|q| q.dim).sum(),
            quantities: quantities.len(),
        }
    }
    /// The 64-bit words of one sample: `2 + states + values + quantities + 2`.
    pub fn words(&self) -> usize {
        2 + self.states + self.values + self.quantities + 2
    }
    /// The bytes of one sample in the sample file, `8 · words`.
    pub fn bytes(&self) -> u64 {
        8 * self.words() as u64
    }
    /// An upper bound on the bytes one sample takes in the run's files: the sample file and one
    /// row of `trajectory.csv` and of `diagnostics.csv` (step and `t`, then the state, resp. the
    /// values, the errors and the solution error), with every number at its longest: a step of
    /// 20 digits, an `f64` written as `{:e}` in at most 24 characters (`-2.2250738585072014e-308`),
    /// each with its separator.
    pub fn output_bytes(&self) -> u64 {
        let row = |numbers: usize| 21 + 25 * (numbers as u64 + 1);
        self.bytes() + row(self.states) + row(self.values + self.quantities + 1)
    }
}

/// Appends the words of `s` to `out`.
pub(crate) fn encode(s: &Sample, out: &mut Vec<u8>) {
    let mut word = |w: u64| out.extend_from_slice(&w.to_le_bytes());
    word(s.step as u64);
    word(s.t.to_bits());
    for v in s.state.iter().chain(&s.values).chain(&s.errors) {
        word(v.to_bits());
    }
    word(u64::from(s.solution_error.is_some()));
    word(s.solution_error.map_or(0, f64::to_bits));
}

/// The sample of `bytes` (exactly one sample of `shape`), or `None` if they are not one.
pub(crate) fn decode(bytes: &[u8], shape: Shape) -> Option<Sample> {
    let w: Vec<u64> = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect();
    if w.len() != shape.words() || !bytes.len().is_multiple_of(8) {
        return None;
    }
    let f = |a: usize, b: usize| w[a..b].iter().map(|&x| f64::from_bits(x)).collect::<Vec<f64>>();
    let Shape { states, values, quantities } = shape;
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

/// The append-only sample file of a run: the samples pushed go through a buffer to the file,
/// and [`SampleLog::sync`] flushes them to the disk (fsync) before a checkpoint names them.
#[derive(Debug)]
pub(crate) struct SampleLog {
    pub(crate) path: PathBuf,
    /// Samples pushed.
    pub(crate) count: usize,
    /// Their bytes.
    pub(crate) bytes: u64,
    /// Their hash.
    pub(crate) hash: Fnv1a,
    file: Option<BufWriter<std::fs::File>>,
    /// Whether this session created the file (so that a failed final commit can remove it).
    pub(crate) created: bool,
    buf: Vec<u8>,
}

impl SampleLog {
    /// An empty log of the file [`FILE`] in `dir` (created at the first push).
    pub(crate) fn new(dir: &Path) -> Self {
        Self::at(dir.join(FILE), 0, 0, Fnv1a::new())
    }

    /// The log of `path`, whose first `bytes` bytes hold `count` samples hashing to `hash` (the
    /// file is opened for appending at the first push).
    pub(crate) fn at(path: PathBuf, count: usize, bytes: u64, hash: Fnv1a) -> Self {
        Self { path, count, bytes, hash, file: None, created: false, buf: Vec::new() }
    }

    fn io(&self, e: std::io::Error) -> WorkbenchError {
        WorkbenchError::Io { path: self.path.display().to_string(), source: e }
    }

    /// Appends to `file` from now on (a resumed run's file, cut back to its checkpoint).
    pub(crate) fn attach(&mut self, file: std::fs::File) {
        self.file = Some(BufWriter::with_capacity(1 << 16, file));
    }

    /// Appends `s` (through the buffer).
    pub(crate) fn push(&mut self, s: &Sample) -> Result<(), WorkbenchError> {
        if self.file.is_none() {
            let file = if self.count == 0 {
                self.created = true;
                std::fs::File::create(&self.path)
            } else {
                std::fs::OpenOptions::new().append(true).open(&self.path)
            };
            let file = file.map_err(|e| self.io(e))?;
            self.attach(file);
        }
        self.buf.clear();
        encode(s, &mut self.buf);
        if let Some(f) = self.file.as_mut()
            && let Err(e) = f.write_all(&self.buf)
        {
            return Err(self.io(e));
        }
        self.hash.write(&self.buf);
        self.count += 1;
        self.bytes += self.buf.len() as u64;
        Ok(())
    }

    /// Writes the buffered samples to the file (not yet to the disk), so that they can be read.
    pub(crate) fn flush(&mut self) -> Result<(), WorkbenchError> {
        match self.file.as_mut().map(BufWriter::flush) {
            Some(Err(e)) => Err(self.io(e)),
            _ => Ok(()),
        }
    }

    /// Flushes the samples pushed so far to the disk (fsync); creates the file if nothing was
    /// pushed yet.
    pub(crate) fn sync(&mut self) -> Result<(), WorkbenchError> {
        self.flush()?;
        match self.file.as_mut().map(|f| f.get_ref().sync_data()) {
            Some(Err(e)) => Err(self.io(e)),
            _ => Ok(()),
        }
    }

    /// Closes the file (a later push opens it again for appending).
    pub(crate) fn close(&mut self) -> Result<(), WorkbenchError> {
        self.flush()?;
        self.file = None;
        Ok(())
    }
}

/// Reads the first `bytes` bytes of a sample file, one sample at a time, hashing them.
pub(crate) struct SampleReader {
    file: BufReader<std::io::Take<std::fs::File>>,
    left: u64,
    shape: Shape,
    hash: Fnv1a,
    buf: Vec<u8>,
}

impl SampleReader {
    /// Opens `path` to read `bytes` bytes of samples of `shape`.
    pub(crate) fn open(path: &Path, bytes: u64, shape: Shape) -> std::io::Result<Self> {
        let file = std::fs::File::open(path)?;
        Ok(Self {
            file: BufReader::with_capacity(1 << 16, file.take(bytes)),
            left: bytes,
            shape,
            hash: Fnv1a::new(),
            buf: vec![0; shape.bytes() as usize],
        })
    }

    /// The next sample: `Ok(None)` after the last, `Ok(Some(None))` for words that are not a
    /// sample, an `UnexpectedEof` error where the file ends before its `bytes`.
    #[allow(clippy::option_option)]
    pub(crate) fn next_sample(&mut self) -> std::io::Result<Option<Option<Sample>>> {
        if self.left == 0 {
            return Ok(None);
        }
        let n = (self.buf.len() as u64).min(self.left) as usize;
        self.file.read_exact(&mut self.buf[..n])?;
        self.left -= n as u64;
        self.hash.write(&self.buf[..n]);
        Ok(Some(if n == self.buf.len() { decode(&self.buf, self.shape) } else { None }))
    }

    /// The hash of the bytes read so far.
    pub(crate) fn hash(&self) -> Fnv1a {
        self.hash
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

    const SHAPE: Shape = Shape { states: 3, values: 2, quantities: 1 };

    #[test]
    fn samples_round_trip_bit_for_bit() {
        for sol in [None, Some(3.5e-12)] {
            let s = sample_of(7, sol);
            let mut buf = Vec::new();
            encode(&s, &mut buf);
            assert_eq!(buf.len() as u64, SHAPE.bytes());
            let back = decode(&buf, SHAPE).unwrap();
            assert_eq!(back, s);
            assert_eq!(back.state[1].to_bits(), (-0.0f64).to_bits());
            assert!(decode(&buf[..buf.len() - 8], SHAPE).is_none());
        }
        let mut buf = Vec::new();
        encode(&sample_of(1, None), &mut buf);
        let tag = 8 * (2 + 3 + 2 + 1);
        buf[tag] = 2;
        assert!(decode(&buf, SHAPE).is_none(), "a tag other than 0 or 1 is accepted");
    }

    /// What the log pushes, the reader reads back in order with the same hash; a file shorter
    /// than the bytes asked for is an `UnexpectedEof`.
    #[test]
    fn the_log_reads_back_in_order() {
        let dir = std::env::temp_dir().join(format!("geomint-sample-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut log = SampleLog::new(&dir);
        let samples: Vec<Sample> = (0..1000).map(|k| sample_of(k, (k % 2 == 0).then_some(k as f64))).collect();
        for s in &samples {
            log.push(s).unwrap();
        }
        log.sync().unwrap();
        assert_eq!((log.count, log.bytes), (1000, 1000 * SHAPE.bytes()));
        let mut r = SampleReader::open(&log.path, log.bytes, SHAPE).unwrap();
        let mut back = Vec::new();
        while let Some(s) = r.next_sample().unwrap() {
            back.push(s.unwrap());
        }
        assert_eq!(back, samples);
        assert_eq!(r.hash().finish(), log.hash.finish());
        let mut r = SampleReader::open(&log.path, log.bytes + SHAPE.bytes(), SHAPE).unwrap();
        let err = loop {
            match r.next_sample() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("read past the end"),
                Err(e) => break e,
            }
        };
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
