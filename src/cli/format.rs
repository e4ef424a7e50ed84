//! Numbers as the command line prints them.

/// `x` as a person writes it: the shortest round-trip decimal between `1e-4` and `1e7`, else
/// scientific (`1e-320`, not 320 digits).
pub(crate) fn short(x: f64) -> String {
    if x == 0.0 || (1e-4..1e7).contains(&x.abs()) { format!("{x}") } else { format!("{x:e}") }
}
