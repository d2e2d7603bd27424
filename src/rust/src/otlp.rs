//! Binding for the core's `otlp` module: reading an OpenTelemetry profiles
//! file into a bundle, writing a bundle as one.

use crate::args::{choice, flag, limits, optional_string, required_path};
use crate::bundle::{profile_from_r, profile_to_r};
use crate::envelope::envelope;
use extendr_api::prelude::*;
use profile_core::formats;
use profile_core::formats::otlp::{self, Format};
use profile_core::resources::budget::Budget;

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
    envelope(|| {
        let budget = Budget::new(limits(&max_size, &max_memory)?);
        let path = required_path(&path, "path")?;
        let uri = optional_string(&source_uri, "source_uri")?;
        let compact = flag(&compact, "compact")?;
        let p = otlp::read_file(
            &path,
            uri.as_deref(),
            &budget,
            &formats::other_format_than_otlp,
        )?;
        profile_to_r(p, compact, &budget)
    })
}

/// Writes a bundle as an OTLP file (atomically): `format` "protobuf" or
/// "json", gzip-compressed if `gzip` is TRUE.
/// @noRd
#[extendr]
fn ffi_otlp_write(bundle: Robj, path: Robj, format: Robj, gzip: Robj) -> Robj {
    envelope(|| {
        let path = required_path(&path, "path")?;
        let format = choice(
            &format,
            "format",
            &[("protobuf", Format::Protobuf), ("json", Format::Json)],
        )?;
        let gzip = flag(&gzip, "gzip")?;
        let p = profile_from_r(&bundle)?;
        otlp::write_file(&p, &path, format, gzip)?;
        Ok(Robj::from(true))
    })
}

extendr_module! {
    mod otlp;
    fn ffi_otlp_read;
    fn ffi_otlp_write;
}
