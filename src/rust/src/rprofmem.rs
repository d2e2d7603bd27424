//! Binding for the core's `rprofmem` module: `Rprofmem()` files read (plain or
//! gzip) and written atomically.

use crate::files::{read_envelope, write_envelope};
use extendr_api::prelude::*;
use profile_core::formats::rprofmem;
use profile_core::io::output;

/// Reads an `Rprofmem()` file into a bundle, with compact columns if `compact`
/// is TRUE; the read and the R copy stay within `max_memory` bytes.
/// @noRd
#[extendr]
fn ffi_rprofmem_read(
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
        rprofmem::read_file,
    )
}

/// Writes the allocation samples of a bundle as an `Rprofmem()` file,
/// atomically.
/// @noRd
#[extendr]
fn ffi_rprofmem_write(bundle: Robj, path: Robj) -> Robj {
    write_envelope(&bundle, &path, |p, path| {
        profile_core::model::validate::validate(p)?;
        output::write_atomic(path, |w| rprofmem::write(p, w))
    })
}

extendr_module! {
    mod rprofmem;
    fn ffi_rprofmem_read;
    fn ffi_rprofmem_write;
}
