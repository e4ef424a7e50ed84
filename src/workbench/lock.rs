//! The exclusive lock of an output directory: one command at a time writes into a directory.
//!
//! The lock is the file [`FILE`] in the directory, holding the holder's process id and command
//! line, locked with the operating system's advisory file lock (`flock` on Unix, through
//! [`std::fs::File::try_lock`]). The system releases that lock when the holder's process ends,
//! however it ends, so a lock file left behind by a killed process is stale and the next command
//! takes it over; a [`DirLock`] removes its file when it is released or dropped.

use crate::workbench::WorkbenchError;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};

/// The name of the lock file in an output directory.
pub const FILE: &str = ".geomint.lock";

/// A held lock of an output directory ([module docs](self)); released when dropped.
#[derive(Debug)]
pub struct DirLock {
    path: PathBuf,
    file: Option<File>,
}

impl DirLock {
    /// Locks the existing directory `dir` for `command` (written to the lock file with this
    /// process's id), or fails with [`WorkbenchError::Locked`] naming the holder if another
    /// process holds it.
    pub fn acquire(dir: &Path, command: &str) -> Result<Self, WorkbenchError> {
        let path = dir.join(FILE);
        let io = |e| WorkbenchError::Io { path: path.display().to_string(), source: e };
        // a holder that releases the lock removes its file: a file locked after that removal is
        // no longer the lock file, so lock again (a few times at most: each retry follows a
        // release by another process)
        for _ in 0..8 {
            let mut file =
                OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io)?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => {
                    let mut holder = String::new();
                    let _ = file.read_to_string(&mut holder);
                    let holder = holder.trim();
                    return Err(WorkbenchError::Locked {
                        dir: dir.display().to_string(),
                        holder: if holder.is_empty() { "another process".into() } else { holder.to_string() },
                    });
                }
                Err(TryLockError::Error(e)) => return Err(io(e)),
            }
            if !same_file(&file, &path) {
                continue;
            }
            let holder = format!("pid {}: {command}", std::process::id());
            file.set_len(0).and_then(|()| file.rewind()).and_then(|()| writeln!(file, "{holder}")).map_err(io)?;
            return Ok(Self { path, file: Some(file) });
        }
        Err(WorkbenchError::Locked { dir: dir.display().to_string(), holder: "other processes, in turn".into() })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Removes the lock file and releases the lock (also done on drop); idempotent.
    pub fn release(&mut self) {
        if let Some(file) = self.file.take() {
            let _ = std::fs::remove_file(&self.path);
            drop(file);
        }
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        self.release();
    }
}

/// Whether the open `file` is the file at `path` now (not one removed since it was opened).
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether the open `file` is the file at `path` now: elsewhere a locked file cannot be removed,
/// so it always is.
#[cfg(not(unix))]
fn same_file(_file: &File, _path: &Path) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_fails_naming_the_holder_and_a_released_one_is_taken_again() {
        let dir = std::env::temp_dir().join(format!("geomint-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut first = DirLock::acquire(&dir, "geomint run kepler").unwrap();
        assert!(first.path().is_file());
        // a second open file description of the same file: flock refuses it, as for a process
        let err = DirLock::acquire(&dir, "geomint run other").unwrap_err();
        assert!(
            matches!(&err, WorkbenchError::Locked { holder, .. }
            if *holder == format!("pid {}: geomint run kepler", std::process::id())),
            "{err}"
        );
        first.release();
        assert!(!dir.join(FILE).exists());
        // a stale lock file (its holder gone) is taken over
        std::fs::write(dir.join(FILE), "pid 1: gone\n").unwrap();
        let second = DirLock::acquire(&dir, "geomint run again").unwrap();
        assert!(std::fs::read_to_string(second.path()).unwrap().ends_with(": geomint run again\n"));
        drop(second);
        assert!(!dir.join(FILE).exists());
        std::fs::remove_dir(&dir).unwrap();
    }
}
