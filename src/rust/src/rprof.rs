//! Binding for the core's `rprof` module: reading a file (plain or gzip) or the
//! bytes R decompressed (bzip2, xz), and writing a file atomically.

use crate::args::{flag, limits, optional_string, required_path};
use crate::bundle::{compact_read_to_r, profile_to_r};
use crate::envelope::envelope;
use crate::files::write_envelope;
use crate::rapi::int_vector;
use extendr_api::prelude::*;
use profile_core::formats::rprof;
use profile_core::formats::rprof::{ParseOptions, RprofContent};
use profile_core::io::{input, output};
use profile_core::resources::budget::Budget;
use profile_core::ProfileError;

/// Reads an Rprof file into `list(bundle, warnings, sample_lines)`. `input` is a
/// path (plain or gzip file, read here) or a raw vector (the file's bytes).
/// `sample_lines` (the line of the file each sample comes from) is filled only
/// when `with_lines` is TRUE. `compact` (TRUE or FALSE) says whether columns may
/// be sent compact. With `from_shape` TRUE (what R's read_rprof() passes) the
/// read leaves its compact columns unwritten and makes them from the samples'
/// shape; FALSE writes every column and finds the compact forms in them, the
/// reference the tests compare the other against. The read, and the R copy
/// of its result, stay within `max_memory` bytes (see `profile_core::resources::budget`).
/// @noRd
#[extendr]
fn ffi_rprof_read(
    input: Robj,
    source_uri: Robj,
    max_size: Robj,
    max_memory: Robj,
    with_lines: Robj,
    compact: Robj,
    from_shape: Robj,
) -> Robj {
    envelope(|| {
        let budget = Budget::new(limits(&max_size, &max_memory)?);
        let uri = optional_string(&source_uri, "source_uri")?;
        let compact = flag(&compact, "compact")?;
        let from_shape = flag(&from_shape, "from_shape")?;
        let mut content = RprofContent::new();
        // A file's bytes are handed over to the parser, which frees them once
        // its chunks are read, before the per-sample columns are written (a
        // read's peak memory); bytes R decompressed stay R's.
        let options = ParseOptions::new(&budget).source_uri(uri.as_deref());
        let mut read = match input.as_raw_slice() {
            Some(raw) => {
                budget.charge(raw.len() as u64, || "the decompressed data".to_string())?;
                let data = input::decompress_content(raw, &budget, &mut content)?;
                rprof::parse(data, &options)?
            }
            None => {
                let path = required_path(&input, "path")?;
                let data = input::inflate_file(&path, &budget, &mut content)?.data;
                rprof::parse(data, &options)?
            }
        };
        let lines: Vec<i32> = if with_lines.as_bool() == Some(true) {
            let mut lines = budget.vec_with_capacity(read.parsed.sample_lines.len(), || {
                "the line numbers".to_string()
            })?;
            lines.extend(
                read.parsed
                    .sample_lines
                    .iter()
                    .map(|&l| i32::try_from(l).unwrap_or(i32::MAX)),
            );
            lines
        } else {
            Vec::new()
        };
        let warnings = std::mem::take(&mut read.parsed.warnings);
        let bundle = if from_shape {
            compact_read_to_r(read, compact, &budget)?
        } else {
            profile_to_r(read.expand(&budget)?.profile, compact, &budget)?
        };
        Ok(list!(
            warnings = warnings,
            bundle = bundle,
            sample_lines = int_vector(&lines)?
        )
        .into())
    })
}

/// A check of the data of an Rprof file that R decompresses (bzip2, xz), piece
/// by piece, as inflation checks a gzip file's (see `input::take_piece`).
struct RprofStream {
    budget: Budget,
    content: RprofContent,
    total: u64,
}

/// A new check of decompressed Rprof data (an external pointer for
/// `ffi_rprof_stream_take()`), under the limits `max_size` and `max_memory`.
/// @noRd
#[extendr]
fn ffi_rprof_stream_start(max_size: Robj, max_memory: Robj) -> Robj {
    envelope(|| {
        let stream = RprofStream {
            budget: Budget::new(limits(&max_size, &max_memory)?),
            content: RprofContent::new(),
            total: 0,
        };
        Ok(ExternalPtr::new(stream).into())
    })
}

/// Checks `piece`, the next bytes of the data (a raw vector): an error if the
/// data are not an Rprof file or need more memory than the limit.
/// @noRd
#[extendr]
fn ffi_rprof_stream_take(state: Robj, piece: Robj) -> Robj {
    envelope(|| {
        let not_a_stream =
            |_| ProfileError::argument("`state` must come from ffi_rprof_stream_start()");
        let mut ptr = ExternalPtr::<RprofStream>::try_from(&state).map_err(not_a_stream)?;
        let RprofStream {
            budget,
            content,
            total,
        } = ptr.try_addr_mut().map_err(not_a_stream)?;
        let piece = piece
            .as_raw_slice()
            .ok_or_else(|| ProfileError::argument("`piece` must be a raw vector"))?;
        *total += piece.len() as u64;
        input::take_piece(budget, content, piece, *total, 0)?;
        Ok(Robj::from(true))
    })
}

/// Validates a bundle and writes it as an Rprof file, atomically.
/// @noRd
#[extendr]
fn ffi_rprof_write(bundle: Robj, path: Robj) -> Robj {
    write_envelope(&bundle, &path, |p, path| {
        profile_core::model::validate::validate(p)?;
        output::write_atomic(path, |w| rprof::write(p, w))
    })
}

/// The order in which R's internal `merge()` returns rows with the match codes
/// `xinds` (see `profile_core::formats::rprof::legacy`), for v1 location ids as profile
/// 1.0.4 gave them.
/// @noRd
#[extendr]
fn ffi_rprof_legacy_merge_order(xinds: Robj) -> Robj {
    envelope(|| {
        let xinds = xinds
            .as_integer_slice()
            .ok_or_else(|| ProfileError::argument("`xinds` must be an integer vector"))?;
        int_vector(&rprof::legacy::r_merge_row_order(xinds))
    })
}

extendr_module! {
    mod rprof;
    fn ffi_rprof_read;
    fn ffi_rprof_stream_start;
    fn ffi_rprof_stream_take;
    fn ffi_rprof_write;
    fn ffi_rprof_legacy_merge_order;
}
