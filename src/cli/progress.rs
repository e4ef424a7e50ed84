//! The progress bar of a command (hidden with `--quiet`).

use indicatif::{ProgressBar, ProgressStyle};
use std::time::Duration;

/// A progress bar of `total` steps labelled `what`, hidden when `quiet`; it shows only for runs
/// longer than a moment.
pub(crate) fn progress(total: u64, quiet: bool, what: &str) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{msg:>24} [{bar:40}] {pos}/{len} ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(what.to_string());
    // only runs longer than a moment show the bar
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
