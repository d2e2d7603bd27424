//! Binding for the core's `folded` module: folded (collapsed) stacks.

use crate::args::{required_path, required_string, strings};
use crate::envelope::envelope;
use crate::files::read_envelope;
use crate::summary::stacks_from_r;
use extendr_api::prelude::*;
use profile_core::formats::folded::{self, FoldedSource};

/// Writes the folded stacks of `stacks` to `path` (atomically); `labels` are the
/// frame names of the keys.
/// @noRd
#[extendr]
fn ffi_profile_write_folded(stacks: Robj, labels: Robj, path: Robj) -> Robj {
    envelope(|| {
        let path = required_path(&path, "path")?;
        let labels = strings(&labels, "labels")?;
        folded::write_file(&stacks_from_r(&stacks)?, &labels, &path)?;
        Ok(Robj::from(true))
    })
}

/// Reads a folded file (plain or gzip) into a bundle, with compact columns if
/// `compact` is TRUE.
/// @noRd
#[extendr]
fn ffi_profile_read_folded(
    path: Robj,
    sample_type: Robj,
    unit: Robj,
    source_uri: Robj,
    max_size: Robj,
    max_memory: Robj,
    compact: Robj,
) -> Robj {
    read_envelope(
        &path,
        &source_uri,
        &max_size,
        &max_memory,
        &compact,
        |path, uri, budget| {
            let sample_type = required_string(&sample_type, "type")?;
            let unit = required_string(&unit, "unit")?;
            let source = FoldedSource {
                sample_type: &sample_type,
                unit: &unit,
                source_uri: uri,
            };
            folded::read_file(path, &source, budget.limits())
        },
    )
}

extendr_module! {
    mod folded;
    fn ffi_profile_write_folded;
    fn ffi_profile_read_folded;
}
