//! `--param NAME=VALUE` options.

use geomint::workbench::WorkbenchError;

/// The `--param NAME=VALUE` options in the order given: a one-line input error for a missing
/// `=`, a value that is not a number, or a name given twice.
pub(crate) fn parse_params(raw: &[String]) -> Result<Vec<(String, f64)>, WorkbenchError> {
    let mut out: Vec<(String, f64)> = Vec::with_capacity(raw.len());
    for s in raw {
        let (k, v) =
            s.split_once('=').ok_or_else(|| WorkbenchError::Input(format!("--param expects NAME=VALUE, got '{s}'")))?;
        let v: f64 =
            v.trim().parse().map_err(|_| WorkbenchError::Input(format!("--param {k}: '{v}' is not a number")))?;
        let k = k.trim().to_string();
        if let Some((_, first)) = out.iter().find(|(name, _)| *name == k) {
            return Err(WorkbenchError::Input(format!("--param {k} given twice ({first} and {v}); give it once")));
        }
        out.push((k, v));
    }
    Ok(out)
}
