//! Binding for the core's `pprof` module: reading files or raw message bytes into
//! a bundle, writing a bundle as a file or as raw message bytes.

use crate::args::{argument, limits, optional_string, required_path};
use crate::{convert, envelope};
use extendr_api::prelude::*;
use profile_core::pprof::{self, WriteOptions};
use profile_core::ProfileError;

fn write_options(aggregate: &Robj) -> Result<WriteOptions, ProfileError> {
    let aggregate = aggregate
        .as_bool()
        .ok_or_else(|| argument("`aggregate` must be TRUE or FALSE"))?;
    Ok(WriteOptions { aggregate })
}

/// Reads a pprof file (gzip or plain protobuf) into a bundle.
/// @noRd
#[extendr]
fn pprof_read(path: Robj, source_uri: Robj, max_size: Robj) -> Robj {
    envelope(|| {
        let path = required_path(&path, "path")?;
        let uri = optional_string(&source_uri, "source_uri")?;
        let p = pprof::read_file(&path, uri.as_deref(), &limits(&max_size)?)?;
        Ok(convert::profile_to_r(p))
    })
}

/// Reads pprof message bytes (a raw vector, gzip or plain) into a bundle.
/// @noRd
#[extendr]
fn pprof_parse(bytes: Robj, source_uri: Robj, max_size: Robj) -> Robj {
    envelope(|| {
        let bytes = bytes
            .as_raw_slice()
            .ok_or_else(|| argument("`bytes` must be a raw vector"))?;
        let uri = optional_string(&source_uri, "source_uri")?;
        let p = pprof::read_bytes(bytes, uri.as_deref(), &limits(&max_size)?)?;
        Ok(convert::profile_to_r(p))
    })
}

/// Writes a bundle as a gzip-compressed pprof file (atomically).
/// @noRd
#[extendr]
fn pprof_write(bundle: Robj, path: Robj, aggregate: Robj) -> Robj {
    envelope(|| {
        let path = required_path(&path, "path")?;
        let p = convert::profile_from_r(&bundle)?;
        pprof::write_file(&p, &path, &write_options(&aggregate)?)?;
        Ok(Robj::from(true))
    })
}

/// A bundle as uncompressed pprof message bytes (a raw vector).
/// @noRd
#[extendr]
fn pprof_encode(bundle: Robj, aggregate: Robj) -> Robj {
    envelope(|| {
        let p = convert::profile_from_r(&bundle)?;
        let bytes = pprof::encode(&p, &write_options(&aggregate)?)?;
        Ok(Raw::from_bytes(&bytes).into())
    })
}

extendr_module! {
    mod pprof;
    fn pprof_read;
    fn pprof_parse;
    fn pprof_write;
    fn pprof_encode;
}
