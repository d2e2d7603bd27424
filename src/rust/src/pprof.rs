//! Binding for the core's `pprof` module: reading a file into a bundle, writing
//! a bundle as a file.

use crate::args::flag;
use crate::files::{read_envelope, write_envelope};
use extendr_api::prelude::*;
use profile_core::formats::pprof::{self, WriteOptions};

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
    read_envelope(
        &path,
        &source_uri,
        &max_size,
        &max_memory,
        &compact,
        pprof::read_file,
    )
}

/// Writes a bundle as a gzip-compressed pprof file (atomically).
/// @noRd
#[extendr]
fn ffi_pprof_write(bundle: Robj, path: Robj, aggregate: Robj) -> Robj {
    write_envelope(&bundle, &path, |p, path| {
        let options = WriteOptions {
            aggregate: flag(&aggregate, "aggregate")?,
        };
        pprof::write_file(p, path, &options)
    })
}

extendr_module! {
    mod pprof;
    fn ffi_pprof_read;
    fn ffi_pprof_write;
}
