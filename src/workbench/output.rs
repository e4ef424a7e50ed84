//! Writing a run's files so that a failure never leaves a set of files that looks complete:
//! every file is first written as `NAME.partial` in the output directory and flushed to the disk
//! (fsync), and only when all of them are written are they renamed to their final names (a
//! rename within one directory is atomic). On failure the partial files are removed.
//!
//! Small files are collected in memory ([`OutputSet::add`]); the CSV files of a run, which grow
//! with its samples, are written row by row to their partial files ([`CsvFile`]) and join the set
//! written ([`OutputSet::add_written`]). [`check_space`] refuses a run whose files would not fit
//! on the disk before it starts.

use crate::workbench::WorkbenchError;
use crate::workbench::experiment::{RunResult, Sample};
use crate::workbench::problem::Problem;
use crate::workbench::solution::SolutionError;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The files of one command, collected in memory (or written already as `NAME.partial`) and
/// committed together.
#[derive(Debug, Default)]
pub struct OutputSet {
    /// Each file's name and its contents (`None`: written as `NAME.partial` already).
    files: Vec<(String, Option<Vec<u8>>)>,
}

fn io(path: &Path, source: std::io::Error) -> WorkbenchError {
    WorkbenchError::Io { path: path.display().to_string(), source }
}

/// The contents of the input file `path`, read only if it is a regular file (after following
/// links) of at most `limit` bytes: a FIFO would block the read forever and a device such as
/// `/dev/zero` never ends, so both are refused before they are opened (`InvalidInput`), and a file
/// that is or grows larger than `limit` is refused (`InvalidData`) having read at most
/// `limit + 1` bytes.
pub fn read_bounded(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(Error::new(ErrorKind::InvalidInput, "not a regular file"));
    }
    let too_large = || Error::new(ErrorKind::InvalidData, format!("larger than {limit} bytes"));
    if meta.len() > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)?.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read_bounded`] as UTF-8 text (`InvalidData` if it is not).
pub fn read_bounded_text(path: &Path, limit: u64) -> std::io::Result<String> {
    String::from_utf8(read_bounded(path, limit)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))
}

/// The largest `checkpoint.json`, config or N-body system file the workbench reads: 256 MiB.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Writes `bytes` to `path` and flushes them to the disk (fsync) before returning.
pub fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), WorkbenchError> {
    write_synced_with(path, |file| file.write_all(bytes))
}

/// [`write_synced`] with the writing done by `write`: the file is created, written and synced,
/// and removed again if writing or syncing fails (a full disk leaves no empty or truncated file
/// behind).
pub(crate) fn write_synced_with(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), WorkbenchError> {
    let mut file = std::fs::File::create(path).map_err(|e| io(path, e))?;
    let written = write(&mut file).and_then(|()| file.sync_all());
    drop(file);
    written.map_err(|e| {
        let _ = std::fs::remove_file(path);
        io(path, e)
    })
}

/// Flushes a directory's entries (renames, new files) to the disk. Best effort: some file
/// systems cannot open or sync a directory, and the renames are atomic either way.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// The directories [`check_writable`] created, deepest first.
#[derive(Debug, Default)]
#[must_use = "remove the directories again if the command fails before writing"]
pub struct Created(Vec<PathBuf>);

impl Created {
    /// Removes the created directories that are still empty (after a command failed before
    /// writing anything).
    pub fn remove_if_empty(&self) {
        for d in &self.0 {
            let _ = std::fs::remove_dir(d);
        }
    }
}

/// Checks, before any integration, that files can be written in `dir`: creates it (and its
/// missing parents), then creates and removes a probe file in it. A directory that cannot be
/// created or written (`/proc/x`, a path through a file, a read-only file system) is an I/O error
/// at once, not after the run.
pub fn check_writable(dir: &Path) -> Result<Created, WorkbenchError> {
    let mut missing = Vec::new();
    let mut d = Some(dir);
    while let Some(p) = d.filter(|p| !p.as_os_str().is_empty() && std::fs::symlink_metadata(p).is_err()) {
        missing.push(p.to_path_buf());
        d = p.parent();
    }
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let created = Created(missing);
    let probe = dir.join(format!(".geomint-probe-{}", std::process::id()));
    let result = std::fs::File::create(&probe).and_then(|mut f| f.write_all(b"probe"));
    let _ = std::fs::remove_file(&probe);
    if let Err(e) = result {
        created.remove_if_empty();
        return Err(io(dir, e));
    }
    Ok(created)
}

/// Refuses, with a one-line input error, an output directory that exists and is not empty,
/// unless `force`: a new run there would replace the files (and the checkpoint) of the run it
/// holds. A missing directory passes, and so does a path that is not a directory, which
/// [`check_writable`] then reports. The lock file ([`crate::workbench::lock::FILE`]) does not
/// count.
pub fn check_fresh(dir: &Path, force: bool) -> Result<(), WorkbenchError> {
    if force {
        return Ok(());
    }
    let occupied = std::fs::read_dir(dir)
        .is_ok_and(|mut entries| entries.any(|e| e.is_ok_and(|e| e.file_name() != crate::workbench::lock::FILE)));
    if occupied {
        return Err(WorkbenchError::Input(format!(
            "output directory {} is not empty; pass --force to replace the run in it, or choose another --out",
            dir.display()
        )));
    }
    Ok(())
}

impl OutputSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds a file `name` (relative to the output directory).
    pub fn add(&mut self, name: &str, contents: impl Into<Vec<u8>>) {
        self.files.push((name.into(), Some(contents.into())));
    }
    /// Adds a file `name` that is written already, as `NAME.partial` in the directory the set is
    /// committed to (a finished [`CsvFile`]); the commit flushes it to the disk.
    pub fn add_written(&mut self, name: &str) {
        self.files.push((name.into(), None));
    }
    /// The names added so far.
    pub fn names(&self) -> Vec<&str> {
        self.files.iter().map(|(n, _)| n.as_str()).collect()
    }
    /// Creates `dir` if needed and writes every file, all or nothing: each to `NAME.partial`, all
    /// flushed to the disk together (one thread per file), then renamed, then the directory flushed;
    /// returns the final paths.
    pub fn commit(self, dir: &Path) -> Result<Vec<PathBuf>, WorkbenchError> {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let mut partial = Vec::new();
        let mut done = Vec::new();
        let result = (|| {
            // the files written already are partial files too, removed on failure
            partial
                .extend(self.files.iter().filter(|(_, b)| b.is_none()).map(|(n, _)| dir.join(format!("{n}.partial"))));
            for (name, bytes) in &self.files {
                if let Some(bytes) = bytes {
                    let tmp = dir.join(format!("{name}.partial"));
                    partial.push(tmp.clone());
                    std::fs::write(&tmp, bytes).map_err(|e| io(&tmp, e))?;
                }
            }
            sync_files(&partial)?;
            for (name, _) in &self.files {
                let (tmp, fin) = (dir.join(format!("{name}.partial")), dir.join(name));
                std::fs::rename(&tmp, &fin).map_err(|e| io(&fin, e))?;
                done.push(fin);
            }
            sync_dir(dir);
            Ok(())
        })();
        match result {
            Ok(()) => Ok(done),
            Err(e) => {
                // all or nothing: neither the partial files nor those already renamed remain
                for p in partial.iter().chain(&done) {
                    let _ = std::fs::remove_file(p);
                }
                Err(e)
            }
        }
    }
}

/// Flushes each file of `paths` to the disk (fsync), all at once from threads of their own: the
/// file system then commits them together, where one fsync after another waits for one journal
/// commit each (the nine fsyncs of `geomint run`, 3–10 ms each on a virtual disk, took 50 ms in
/// turn: 500 ns per step of a run of 10^5 steps). Falls back to syncing in turn where a thread
/// cannot be started.
fn sync_files(paths: &[PathBuf]) -> Result<(), WorkbenchError> {
    let sync = |p: &PathBuf| std::fs::File::open(p).and_then(|f| f.sync_all()).map_err(|e| io(p, e));
    std::thread::scope(|scope| {
        let mut inline = Vec::new();
        let mut threads = Vec::new();
        for p in paths {
            match std::thread::Builder::new().name("geomint-fsync".into()).spawn_scoped(scope, move || sync(p)) {
                Ok(t) => threads.push((p, t)),
                Err(_) => inline.push(p),
            }
        }
        for p in inline {
            sync(p)?;
        }
        for (p, t) in threads {
            t.join().unwrap_or_else(|_| Err(io(p, std::io::Error::other("the fsync thread panicked"))))?;
        }
        Ok(())
    })
}

/// Formats a float for CSV: shortest round-trip representation.
fn num(v: f64) -> String {
    format!("{v:e}")
}

/// Appends the CSV row `step,t,v1,v2,…` (each number in its shortest round-trip form, `{:e}`).
fn row<'a>(s: &mut String, step: usize, t: f64, numbers: impl IntoIterator<Item = &'a f64>) {
    let _ = write!(s, "{step},{t:e}");
    for v in numbers {
        let _ = write!(s, ",{v:e}");
    }
    s.push('\n');
}

/// The header of `trajectory.csv`: `step,t,` and the state labels.
pub fn trajectory_header(labels: &[String]) -> String {
    format!("step,t,{}\n", labels.join(","))
}

/// Appends the row of `x` in `trajectory.csv`.
pub fn trajectory_row(s: &mut String, x: &Sample) {
    row(s, x.step, x.t, &x.state);
}

/// `trajectory.csv`: `step,t,` and the state coordinates, one row per sample.
pub fn trajectory_csv(r: &RunResult) -> String {
    let mut s = trajectory_header(&r.labels);
    for x in &r.samples {
        trajectory_row(&mut s, x);
    }
    s
}

/// The header of `diagnostics.csv`: `step,t,` and [`diagnostic_columns`].
pub fn diagnostics_header(quantities: &[crate::workbench::problem::Quantity], solution: bool) -> String {
    format!("step,t,{}\n", diagnostic_columns_of(quantities, solution).join(","))
}

/// Appends the row of `x` in `diagnostics.csv`.
pub fn diagnostics_row(s: &mut String, x: &Sample) {
    row(s, x.step, x.t, x.values.iter().chain(&x.errors).chain(x.solution_error.iter()));
}

/// A CSV file written row by row: to `NAME.partial` in the output directory, through a buffer,
/// finished by [`CsvFile::finish`] and committed (and flushed to the disk) with the other files
/// ([`OutputSet::add_written`]). Dropped before it is finished (an error on the way), it removes
/// its partial file.
#[derive(Debug)]
pub struct CsvFile {
    path: PathBuf,
    file: Option<std::io::BufWriter<std::fs::File>>,
    line: String,
}

impl CsvFile {
    /// Creates `NAME.partial` in `dir` and writes `header` (a whole line).
    pub fn create(dir: &Path, name: &str, header: &str) -> Result<Self, WorkbenchError> {
        let path = dir.join(format!("{name}.partial"));
        let file = std::fs::File::create(&path).map_err(|e| io(&path, e))?;
        let mut csv = Self { path, file: Some(std::io::BufWriter::with_capacity(1 << 16, file)), line: String::new() };
        csv.line.push_str(header);
        csv.write_line()?;
        Ok(csv)
    }

    fn write_line(&mut self) -> Result<(), WorkbenchError> {
        let written = match self.file.as_mut() {
            Some(f) => f.write_all(self.line.as_bytes()),
            None => Ok(()),
        };
        self.line.clear();
        written.map_err(|e| io(&self.path, e))
    }

    /// Appends the row that `write` appends to its string (one line).
    pub fn row(&mut self, write: impl FnOnce(&mut String)) -> Result<(), WorkbenchError> {
        write(&mut self.line);
        self.write_line()
    }

    /// Writes the rest of the file; it stays as `NAME.partial` for the commit, which flushes it
    /// to the disk with the other files ([`OutputSet::commit`]).
    pub fn finish(mut self) -> Result<(), WorkbenchError> {
        if let Some(f) = self.file.take()
            && let Err(e) = f.into_inner()
        {
            let _ = std::fs::remove_file(&self.path);
            return Err(io(&self.path, e.into_error()));
        }
        Ok(())
    }
}

impl Drop for CsvFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// The bytes available to this user on the file system of `dir` (`statvfs`: available blocks
/// times the fragment size), where the system says (on Unix); `None` otherwise.
pub fn available_bytes(dir: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        let v = nix::sys::statvfs::statvfs(dir).ok()?;
        #[allow(clippy::useless_conversion)]
        Some(u64::from(v.blocks_available()).saturating_mul(u64::from(v.fragment_size())))
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// Refuses, before a run starts, an output whose files need more than the disk has left: an I/O
/// error on `dir` of kind [`std::io::ErrorKind::StorageFull`], with both amounts. Passes where the
/// free space is unknown ([`available_bytes`]).
pub fn check_space(dir: &Path, needed: u64) -> Result<(), WorkbenchError> {
    match available_bytes(dir) {
        Some(free) if needed > free => Err(io(
            dir,
            std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                format!(
                    "the run's files need up to {} but the file system has {} free; sample less often (--every), \
                     take fewer steps, or choose another --out",
                    human_bytes(needed),
                    human_bytes(free)
                ),
            ),
        )),
        _ => Ok(()),
    }
}

/// `bytes` in B, kB, MB, GB or TB (powers of 1000), three significant digits.
fn human_bytes(bytes: u64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB", "PB", "EB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1000.0 && u + 1 < units.len() {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 { format!("{bytes} B") } else { format!("{v:.3} {}", units[u]) }
}

/// The diagnostics columns: each quantity's components (`NAME` or `NAME_i`), then one error
/// column `err_NAME` per quantity, then `err_solution` where an exact solution is known.
pub fn diagnostic_columns(r: &RunResult) -> Vec<String> {
    diagnostic_columns_of(&r.quantities, r.samples.first().is_some_and(|s| s.solution_error.is_some()))
}

/// [`diagnostic_columns`] of a run of `quantities`, with `err_solution` if `solution`.
pub fn diagnostic_columns_of(quantities: &[crate::workbench::problem::Quantity], solution: bool) -> Vec<String> {
    let mut cols = Vec::new();
    for q in quantities {
        if q.dim == 1 {
            cols.push(q.name.to_string());
        } else {
            cols.extend((1..=q.dim).map(|i| format!("{}_{i}", q.name)));
        }
    }
    cols.extend(quantities.iter().map(|q| format!("err_{}", q.name)));
    if solution {
        cols.push("err_solution".into());
    }
    cols
}

/// `diagnostics.csv`: `step,t,` and [`diagnostic_columns`].
pub fn diagnostics_csv(r: &RunResult) -> String {
    let mut s = format!("step,t,{}\n", diagnostic_columns(r).join(","));
    for x in &r.samples {
        diagnostics_row(&mut s, x);
    }
    s
}

/// `summary.json` of a run: problem, method, step, wall time, and per quantity its formula,
/// initial value, largest and final error.
pub fn run_summary(r: &RunResult) -> serde_json::Value {
    let first = r.samples.first();
    let mut k = 0;
    let quantities: Vec<serde_json::Value> = r
        .quantities
        .iter()
        .enumerate()
        .map(|(i, q)| {
            let v0 = first.map(|s| s.values[k..k + q.dim].to_vec()).unwrap_or_default();
            k += q.dim;
            serde_json::json!({
                "name": q.name, "kind": q.kind, "formula": q.formula, "initial": v0,
                "max_error": r.max_error(i), "final_error": r.final_error(i),
            })
        })
        .collect();
    let info = crate::workbench::methods::find(&r.method);
    serde_json::json!({
        "geomint": env!("CARGO_PKG_VERSION"),
        "problem": r.problem,
        "method": r.method,
        "method_order": info.map(|m| m.order),
        "method_structure": info.map(|m| m.structure),
        "h": r.spec.h,
        "steps": r.spec.steps,
        "every": r.spec.every,
        "t_end": r.samples.last().map_or(0.0, |s| s.t),
        "samples": r.samples.len(),
        "wall_seconds": r.wall_seconds,
        "quantities": quantities,
        "max_solution_error": r.max_solution_error(),
    })
}

/// [`run_summary`] with how the run ended: `status` (`"completed"`, `"interrupted"` or
/// `"failed at step K"`) and the number of steps it was asked for, `target_steps` (`steps` is
/// the number taken).
pub fn run_summary_with_status(r: &RunResult, status: &str, target_steps: usize) -> serde_json::Value {
    let mut v = run_summary(r);
    if let Some(map) = v.as_object_mut() {
        map.insert("status".into(), status.into());
        map.insert("target_steps".into(), target_steps.into());
    }
    v
}

/// How a run of `geomint run` / `resume` ended and how it summed: the fields of
/// [`run_summary_for`] beyond the result.
#[derive(Debug, Clone, Copy)]
pub struct RunStatus<'a> {
    /// `completed`, `interrupted` or `failed at step K`.
    pub status: &'a str,
    /// The number of steps the run was asked for.
    pub target_steps: usize,
    /// Whether the increments were summed with compensation.
    pub compensated: bool,
    /// The number of samples the run took (its result may hold a digest of them,
    /// [`crate::workbench::digest`]).
    pub samples: usize,
}

/// The `summary.json` of `geomint run` and `resume`: [`run_summary_with_status`], with
/// `method_order` the method's order on this problem ([`Problem::order_of`], which a problem's
/// data may lower below the registry's), `compensated`, `samples` the number of samples taken
/// ([`RunStatus::samples`]), and the solution error at the final time:
/// `final_solution_error` (a number, or null where it is not available) and `solution_reference`
/// (`exact solution`, `reference: HOW`, or `n/a (no reference: WHY)`).
pub fn run_summary_for(
    problem: &dyn Problem,
    r: &RunResult,
    run: &RunStatus,
    solution: &SolutionError,
) -> serde_json::Value {
    let mut v = run_summary_with_status(r, run.status, run.target_steps);
    if let Some(map) = v.as_object_mut() {
        if let Some(info) = crate::workbench::methods::find(&r.method) {
            map.insert("method_order".into(), problem.order_of(info).into());
        }
        map.insert("compensated".into(), run.compensated.into());
        map.insert("samples".into(), run.samples.into());
        map.insert("final_solution_error".into(), solution.last().into());
        map.insert("solution_reference".into(), solution.against().into());
    }
    v
}

/// `ensemble.csv`: one row per member, `member,status,steps,t`, then `max_err_NAME` per
/// quantity (when the ensemble sampled its errors), `err_NAME` per quantity (at the final
/// state), the final state (the problem's labels) and the initial state (`init_LABEL`). Every
/// number is written so that it reads back to the same bits.
pub fn ensemble_csv(e: &crate::workbench::experiment::Ensemble) -> String {
    let mut cols = vec!["member".to_string(), "status".into(), "steps".into(), "t".into()];
    if e.every.is_some() {
        cols.extend(e.quantities.iter().map(|q| format!("max_err_{}", q.name)));
    }
    cols.extend(e.quantities.iter().map(|q| format!("err_{}", q.name)));
    cols.extend(e.labels.iter().cloned());
    cols.extend(e.labels.iter().map(|l| format!("init_{l}")));
    let mut s = cols.join(",") + "\n";
    for (i, m) in e.members.iter().enumerate() {
        let _ = write!(s, "{i},{},{},{}", m.status(), m.steps, num(m.t));
        for v in m.max_errors.iter().flatten().chain(&m.errors).chain(&m.state).chain(&m.initial) {
            let _ = write!(s, ",{}", num(*v));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    /// A write that fails half-way (a full disk) leaves no file behind, and says which.
    #[test]
    fn a_failed_write_removes_its_file() {
        let dir = std::env::temp_dir().join(format!("geomint-write-synced-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("c.json.partial");
        let r = super::write_synced_with(&path, |f| {
            use std::io::Write as _;
            f.write_all(b"half")?;
            Err(std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left on device"))
        });
        let Err(WorkbenchError::Io { path: named, .. }) = r else { panic!("not an I/O error: {r:?}") };
        assert!(named.ends_with("c.json.partial"));
        assert!(!path.exists(), "the partial file is left behind");
        write_synced(&path, b"whole").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"whole");
        let _ = std::fs::remove_dir_all(&dir);
    }

    use super::*;

    #[test]
    fn commit_is_all_or_nothing() {
        let dir = std::env::temp_dir().join(format!("geomint-output-{}", std::process::id()));
        let mut files = OutputSet::new();
        files.add("a.csv", "x\n");
        files.add("b.json", "{}");
        let written = files.commit(&dir).unwrap();
        assert_eq!(written.len(), 2);
        assert_eq!(std::fs::read_to_string(dir.join("a.csv")).unwrap(), "x\n");
        // a file name that cannot be created: nothing of the second set is left behind
        let mut bad = OutputSet::new();
        bad.add("c.csv", "y\n");
        bad.add("no/such/dir/d.csv", "z\n");
        assert!(bad.commit(&dir).is_err());
        assert!(!dir.join("c.csv").exists() && !dir.join("c.csv.partial").exists());
        // a rename that fails after others succeeded: those are removed again
        std::fs::create_dir_all(dir.join("f.json")).unwrap();
        let mut late = OutputSet::new();
        late.add("e.csv", "e\n");
        late.add("f.json", "{}");
        assert!(late.commit(&dir).is_err());
        assert!(!dir.join("e.csv").exists() && !dir.join("e.csv.partial").exists());
        assert!(!dir.join("f.json.partial").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn check_writable_creates_probes_and_cleans_up() {
        let root = std::env::temp_dir().join(format!("geomint-probe-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let dir = root.join("a/b");
        let created = check_writable(&dir).unwrap();
        assert!(dir.is_dir());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "the probe file was left");
        created.remove_if_empty();
        assert!(!root.exists(), "the created directories were not removed");
        // a path through a file, and /proc: errors naming the path, nothing created
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("file"), "x").unwrap();
        let err = check_writable(&root.join("file/sub")).unwrap_err();
        assert!(err.to_string().contains("file/sub"), "{err}");
        assert!(check_writable(Path::new("/proc/geomint-probe-test")).is_err());
        assert!(!Path::new("/proc/geomint-probe-test").exists());
        std::fs::remove_dir_all(&root).unwrap();
    }
}
