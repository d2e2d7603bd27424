//! Binding for the core's `folded` module: folded (collapsed) stacks.

use crate::analysis::stacks_from_r;
use crate::args::{limits, optional_string, required_path, required_string, strings};
use crate::convert::profile_to_r;
use crate::envelope;
use extendr_api::prelude::*;
use profile_core::folded::{self, FoldedSource};

/// Writes the folded stacks of `stacks` to `path` (atomically); `labels` are the
/// frame names of the keys.
/// @noRd
#[extendr]
fn profile_write_folded(stacks: Robj, labels: Robj, path: Robj) -> Robj {
    envelope(|| {
        let path = required_path(&path, "path")?;
        let labels = strings(&labels, "labels")?;
        folded::write_file(&stacks_from_r(&stacks)?, &labels, &path)?;
        Ok(Robj::from(true))
    })
}

/// Reads a folded file (plain or gzip) into a bundle.
/// @noRd
#[extendr]
fn profile_read_folded(
    path: Robj,
    sample_type: Robj,
    unit: Robj,
    source_uri: Robj,
    max_size: Robj,
) -> Robj {
    envelope(|| {
        let path = required_path(&path, "path")?;
        let sample_type = required_string(&sample_type, "type")?;
        let unit = required_string(&unit, "unit")?;
        let uri = optional_string(&source_uri, "source_uri")?;
        let source = FoldedSource {
            sample_type: &sample_type,
            unit: &unit,
            source_uri: uri.as_deref(),
        };
        let p = folded::read_file(&path, &source, &limits(&max_size)?)?;
        Ok(profile_to_r(p))
    })
}

extendr_module! {
    mod folded;
    fn profile_write_folded;
    fn profile_read_folded;
}
