//! Binding for the core's `otlp` module: reading an OpenTelemetry profiles
//! file into a bundle, writing a bundle as one.

use crate::args::{choice, flag};
use crate::files::{read_envelope, write_envelope};
use extendr_api::prelude::*;
use profile_core::formats;
use profile_core::formats::otlp::{self, Format};

/// Reads an OTLP file (binary or JSON, gzip or plain) into a bundle, with
/// compact columns if `compact` is TRUE, within `max_memory` bytes.
/// @noRd
#[extendr]
fn ffi_otlp_read(
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
        |path, uri, budget| otlp::read_file(path, uri, budget, &formats::other_format_than_otlp),
    )
}

/// Writes a bundle as an OTLP file (atomically): `format` "protobuf" or
/// "json", gzip-compressed if `gzip` is TRUE.
/// @noRd
#[extendr]
fn ffi_otlp_write(bundle: Robj, path: Robj, format: Robj, gzip: Robj) -> Robj {
    write_envelope(&bundle, &path, |p, path| {
        let format = choice(
            &format,
            "format",
            &[("protobuf", Format::Protobuf), ("json", Format::Json)],
        )?;
        let gzip = flag(&gzip, "gzip")?;
        otlp::write_file(p, path, format, gzip)
    })
}

extendr_module! {
    mod otlp;
    fn ffi_otlp_read;
    fn ffi_otlp_write;
}
