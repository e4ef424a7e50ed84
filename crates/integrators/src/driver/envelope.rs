//! The checkpoint file of every run of the workspace: one JSON object in one exact layout,
//!
//! ```text
//! {"magic": "geomint-checkpoint", "format": F, "geomint": "V", "fnv1a64": "<16 hex digits>",
//! "payload": { … }}
//! ```
//!
//! where `fnv1a64` is the 64-bit FNV-1a hash ([`Fnv1a`]) of the exact bytes of the payload (from
//! its `{` to its `}`), and the payload holds a [`RunSection`] (the exact run) beside what its
//! writer adds (the driver's record in [`DriverCheckpoint::to_bytes`], the workbench's problem,
//! configuration and sample file). [`seal`] writes it; [`unseal`] refuses bytes that are
//! truncated or damaged (any changed byte: the header must be in the written layout and the hash
//! must match) before anything reads the payload, and leaves the format and version to the
//! reader.

use super::*;

/// The first field of every checkpoint file.
pub const MAGIC: &str = "geomint-checkpoint";

/// The bytes before the payload.
fn header(format: u64, version: &str, hash: &str) -> String {
    format!(
        "{{\"magic\": \"{MAGIC}\", \"format\": {format}, \"geomint\": \"{version}\", \"fnv1a64\": \"{hash}\",\n\"payload\": "
    )
}

const TRAILER: &[u8] = b"}\n";

/// The checkpoint file of `payload` (pretty JSON) with format `format` written by version
/// `version`; an error only if the payload does not serialise.
pub fn seal<T: serde::Serialize>(payload: &T, format: u32, version: &str) -> Result<Vec<u8>, String> {
    let body = serde_json::to_string_pretty(payload).map_err(|e| e.to_string())?;
    let mut hash = Fnv1a::new();
    hash.write(body.as_bytes());
    let mut out = header(u64::from(format), version, &format!("{:016x}", hash.finish())).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out.extend_from_slice(TRAILER);
    Ok(out)
}

/// A checkpoint file's header and the exact bytes of its payload, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed<'a> {
    /// The format it declares.
    pub format: u64,
    /// The version that wrote it.
    pub version: String,
    /// The payload's bytes (their hash matched).
    pub payload: &'a [u8],
}

/// Why [`unseal`] refused a file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// The bytes end early (or there are none).
    #[error("it is truncated")]
    Truncated,
    /// Not JSON, no magic, a header out of layout, or a hash that does not match.
    #[error("it is corrupted ({0})")]
    Corrupted(String),
}

/// The header and payload of a checkpoint file's `bytes` (module documentation).
pub fn unseal(bytes: &[u8]) -> Result<Sealed<'_>, EnvelopeError> {
    let corrupted = |reason: String| EnvelopeError::Corrupted(reason);
    if bytes.is_empty() {
        return Err(EnvelopeError::Truncated);
    }
    let v: serde_json::Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) if e.is_eof() => return Err(EnvelopeError::Truncated),
        Err(e) => return Err(corrupted(format!("not JSON: {e}"))),
    };
    if v.get("magic").and_then(|m| m.as_str()) != Some(MAGIC) {
        return Err(corrupted(format!("no \"magic\": \"{MAGIC}\"")));
    }
    let format = v.get("format").and_then(|f| f.as_u64());
    let version = v.get("geomint").and_then(|g| g.as_str());
    let (Some(format), Some(version)) = (format, version) else {
        return Err(corrupted("no format or geomint version".into()));
    };
    let hash = v.get("fnv1a64").and_then(|h| h.as_str()).unwrap_or_default();
    let head = header(format, version, hash);
    if !bytes.starts_with(head.as_bytes()) {
        return Err(corrupted("the header is not in the written layout".into()));
    }
    if !bytes.ends_with(TRAILER) || bytes.len() < head.len() + TRAILER.len() {
        return Err(EnvelopeError::Truncated);
    }
    let payload = &bytes[head.len()..bytes.len() - TRAILER.len()];
    let mut actual = Fnv1a::new();
    actual.write(payload);
    let actual = format!("{:016x}", actual.finish());
    if hash != actual {
        return Err(corrupted(format!("checksum {hash} in the header, {actual} of the content")));
    }
    Ok(Sealed { format, version: version.to_string(), payload })
}
