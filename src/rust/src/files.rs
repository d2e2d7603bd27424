//! What the bindings of the file formats share: a file read into a bundle and
//! a bundle written to a file, in the envelope, with the arguments every
//! reader (path, `source_uri`, the limits, compact columns) and writer (the
//! bundle, the path) takes and the errors they give.

use crate::args::{flag, limits, optional_string, required_path};
use crate::bundle::{profile_from_r, profile_to_r};
use crate::envelope::envelope;
use extendr_api::prelude::*;
use profile_core::resources::budget::Budget;
use profile_core::{Profile, ProfileError};
use std::path::Path;

/// Reads the file at `path` with `read` under the limits `max_size` and
/// `max_memory` (one budget for the read and its copy into R), into a bundle
/// with compact columns if `compact` is TRUE; the envelope of its result.
pub(crate) fn read_envelope(
    path: &Robj,
    source_uri: &Robj,
    max_size: &Robj,
    max_memory: &Robj,
    compact: &Robj,
    read: impl FnOnce(&Path, Option<&str>, &Budget) -> Result<Profile, ProfileError>,
) -> Robj {
    envelope(|| {
        let budget = Budget::new(limits(max_size, max_memory)?);
        let path = required_path(path, "path")?;
        let uri = optional_string(source_uri, "source_uri")?;
        let compact = flag(compact, "compact")?;
        let p = read(&path, uri.as_deref(), &budget)?;
        profile_to_r(p, compact, &budget)
    })
}

/// Writes the profile of `bundle` to `path` with `write`; the envelope of
/// `TRUE` or of the error.
pub(crate) fn write_envelope(
    bundle: &Robj,
    path: &Robj,
    write: impl FnOnce(&Profile, &Path) -> Result<(), ProfileError>,
) -> Robj {
    envelope(|| {
        let path = required_path(path, "path")?;
        let p = profile_from_r(bundle)?;
        write(&p, &path)?;
        Ok(Robj::from(true))
    })
}
