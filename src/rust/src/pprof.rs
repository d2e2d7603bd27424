//! Binding for the core's `pprof` module: reading a file into a bundle, writing
//! a bundle as a file.

use crate::args::{flag, limits, optional_string, required_path};
use crate::bundle::{profile_from_r, profile_to_r};
use crate::envelope::envelope;
use extendr_api::prelude::*;
use profile_core::formats::pprof::{self, WriteOptions};
use profile_core::resources::budget::Budget;

/// Reads a pprof file (gzip or plain protobuf) into a bundle, with compact
/// columns if `compact` is TRUE, within `max_memory` bytes.
/// @noRd
#[extendr]
fn ffi_pprof_read(
    path: Robj,
    source_uri: Robj,
    max_size: Robj,
    max_memory: Robj,
    compact: Robj,
) -> Robj {
    envelope(|| {
        let budget = Budget::new(limits(&max_size, &max_memory)?);
        let path = required_path(&path, "path")?;
        let uri = optional_string(&source_uri, "source_uri")?;
        let compact = flag(&compact, "compact")?;
        let p = pprof::read_file(&path, uri.as_deref(), &budget)?;
        profile_to_r(p, compact, &budget)
    })
}

/// Writes a bundle as a gzip-compressed pprof file (atomically).
/// @noRd
#[extendr]
fn ffi_pprof_write(bundle: Robj, path: Robj, aggregate: Robj) -> Robj {
    envelope(|| {
        let path = required_path(&path, "path")?;
        let p = profile_from_r(&bundle)?;
        let options = WriteOptions {
            aggregate: flag(&aggregate, "aggregate")?,
        };
        pprof::write_file(&p, &path, &options)?;
        Ok(Robj::from(true))
    })
}

extendr_module! {
    mod pprof;
    fn ffi_pprof_read;
    fn ffi_pprof_write;
}
