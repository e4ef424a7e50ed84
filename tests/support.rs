//! What the end-to-end tests of the binary share: a fresh temporary directory per test and the
//! text of a child's output.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory under the system's temporary directory, removed when dropped. Its name
/// holds the process id, a counter and the test's label, so two tests never share one.
pub struct TempDir(PathBuf);

impl TempDir {
    /// A new empty directory for the test `label`.
    pub fn new(label: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("geomint-test-{}-{n}-{label}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the temporary directory");
        Self(dir)
    }
    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }
    /// A path inside the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
    /// [`TempDir::join`] as a `String`, for the command line.
    pub fn arg(&self, name: &str) -> String {
        self.join(name).display().to_string()
    }
    /// Writes `text` to the file `name` inside the directory and returns its path.
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.join(name);
        std::fs::write(&path, text).expect("write");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Bytes of a child's stdout or stderr as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
