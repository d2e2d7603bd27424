//! Binding for the core's `rprofmem` module: `Rprofmem()` files read (plain or
//! gzip) and written atomically.

use crate::args::{flag, limits, optional_string, required_path};
use crate::bundle::{profile_from_r, profile_to_r};
use crate::envelope::envelope;
use extendr_api::prelude::*;
use profile_core::formats::rprofmem;
use profile_core::io::output;
use profile_core::resources::budget::Budget;

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
    envelope(|| {
        let budget = Budget::new(limits(&max_size, &max_memory)?);
        let path = required_path(&path, "path")?;
        let uri = optional_string(&source_uri, "source_uri")?;
        let compact = flag(&compact, "compact")?;
        let p = rprofmem::read_file(&path, uri.as_deref(), &budget)?;
        profile_to_r(p, compact, &budget)
    })
}

/// Writes the allocation samples of a bundle as an `Rprofmem()` file,
/// atomically.
/// @noRd
#[extendr]
fn ffi_rprofmem_write(bundle: Robj, path: Robj) -> Robj {
    envelope(|| {
        let path = required_path(&path, "path")?;
        let p = profile_from_r(&bundle)?;
        profile_core::model::validate::validate(&p)?;
        output::write_atomic(&path, |w| rprofmem::write(&p, w))?;
        Ok(Robj::from(true))
    })
}

extendr_module! {
    mod rprofmem;
    fn ffi_rprofmem_read;
    fn ffi_rprofmem_write;
}
