//! Binding for the core's `folded` module: folded (collapsed) stacks.

use crate::analysis::stacks_from_r;
use crate::convert::profile_to_r;
use crate::envelope;
use extendr_api::prelude::*;
use profile_core::analysis::CallTree;
use profile_core::folded::{self, FoldedSource};
use profile_core::input::{decompress, Limits};
use profile_core::ProfileError;
use std::path::Path;

/// Writes the folded stacks of `stacks` to `path` (atomically); `labels` are the
/// frame names of the keys.
/// @noRd
#[extendr]
fn profile_write_folded(stacks: Robj, labels: Robj, path: &str) -> Robj {
    envelope(|| {
        let tree = CallTree::build(&stacks_from_r(&stacks)?);
        let labels: Vec<String> = labels
            .as_str_vector()
            .ok_or_else(|| ProfileError::invalid("(labels)", "labels", None, "must be character"))?
            .into_iter()
            .map(str::to_owned)
            .collect();
        profile_core::output::write_atomic(Path::new(path), |w| {
            folded::write_folded(&tree, &labels, w)
        })?;
        Ok(Robj::from(true))
    })
}

/// Reads a folded file (plain or gzip) into a bundle.
/// @noRd
#[extendr]
fn profile_read_folded(
    path: &str,
    sample_type: &str,
    unit: &str,
    source_uri: Robj,
    max_size: f64,
) -> Robj {
    envelope(|| {
        let limits = Limits { max_decompressed_bytes: max_size.max(0.0) as u64 };
        let size = std::fs::metadata(path).map_err(ProfileError::from)?.len();
        if size > limits.max_decompressed_bytes {
            return Err(ProfileError::limit(format!(
                "the file has {size} bytes, over the limit of {} bytes; raise `max_size` to read it",
                limits.max_decompressed_bytes
            )));
        }
        let bytes = std::fs::read(path)?;
        let text = decompress(&bytes, &limits)?;
        let uri = Strings::try_from(source_uri)
            .ok()
            .filter(|s| s.len() == 1)
            .map(|s| s.elt(0))
            .filter(|s| !s.is_na())
            .map(|s| s.to_string());
        let source = FoldedSource { sample_type, unit, source_uri: uri.as_deref() };
        Ok(profile_to_r(&folded::read_folded(&text, &source)?))
    })
}

extendr_module! {
    mod folded;
    fn profile_write_folded;
    fn profile_read_folded;
}
