//! Binding for the core's `sample_set`, `view` and `speedscope` modules: the data
//! of the browser view, its HTML file (written by the core's atomic writer), and
//! speedscope files.

use crate::args::{bad_argument, flag, required_path, required_string, Fields};
use crate::envelope::envelope;
use crate::text::{self, intern_strings};
use extendr_api::prelude::*;
use profile_core::sample_set::{SampleInput, SampleSet};
use profile_core::speedscope::{self, SpeedscopeLabels};
use profile_core::summary::StackColumns;
use profile_core::view::{view_json, TimeRuns, ViewKeys, ViewLabels, ViewTree};
use profile_core::{output, ProfileError, StringPool};

/// The code of each `sample_values` row's type: its position (1-based) in
/// `types`, 0 for the other types and NA. A compact `type` column is read by
/// its pattern.
fn type_codes(value_type: &Robj, types: &[String]) -> Result<Vec<u32>, ProfileError> {
    if value_type.rtype() != Rtype::Strings {
        return Err(bad_argument("value_type"));
    }
    let mut pool = StringPool::new();
    let wanted: Vec<_> = types.iter().map(|t| pool.intern(t)).collect();
    let ids = intern_strings(value_type, &mut pool);
    Ok(ids
        .iter()
        .map(|id| {
            wanted
                .iter()
                .position(|w| w == id)
                .map_or(0, |p| p as u32 + 1)
        })
        .collect())
}

/// The samples described by the list: stack rows (`sample_id`, `depth`,
/// `location_id`), `locations`, `samples`, `sample_source`, `sample_time` (NULL
/// if none), the `sample_values` columns (`value_sample_id`, `value_type`,
/// `value`) and the sample types to gather (`types`).
fn sample_set_from_r(fields: &Fields) -> Result<SampleSet, ProfileError> {
    let types = fields.strings("types")?;
    let value_type = type_codes(fields.get("value_type")?, &types)?;
    let time = match fields.get("sample_time")?.is_null() {
        true => None,
        false => Some(fields.doubles("sample_time")?),
    };
    SampleSet::build(&SampleInput {
        columns: StackColumns {
            sample_id: &fields.ints("sample_id")?,
            depth: &fields.ints("depth")?,
            location_id: &fields.ints("location_id")?,
            locations: &fields.ints("locations")?,
            value_sample_id: &fields.ints("value_sample_id")?,
            value: &fields.doubles("value")?,
        },
        samples: &fields.ints("samples")?,
        sample_source: &fields.ints("sample_source")?,
        sample_time: time.as_deref(),
        value_type: &value_type,
        n_types: types.len(),
    })
}

/// The JSON text of the browser view. Besides the samples: `location_key`,
/// `location_line`, `n_keys`, `key_name`, `key_file`, `type_unit`,
/// `default_type` (1-based), `diff` and `title`.
/// @noRd
#[extendr]
fn ffi_profile_view_data(input: Robj) -> Robj {
    envelope(|| {
        let fields = Fields::of(&input)?;
        let samples = sample_set_from_r(&fields)?;
        let keys = ViewKeys {
            location_key: &fields.ints("location_key")?,
            location_line: &fields.ints("location_line")?,
            n_keys: fields.count("n_keys")?,
        };
        let tree = ViewTree::build(&samples, &keys)?;
        let runs = TimeRuns::build(&samples, &tree);
        let labels = ViewLabels {
            key_name: &fields.strings("key_name")?,
            key_file: &fields.strings("key_file")?,
            type_name: &fields.strings("types")?,
            type_unit: &fields.strings("type_unit")?,
            default_type: fields.count("default_type")?.saturating_sub(1),
            diff: flag(fields.get("diff")?, "diff")?,
            title: &required_string(fields.get("title")?, "title")?,
        };
        Ok(Robj::from(view_json(&tree, runs.as_ref(), &labels)?))
    })
}

/// The 0-based frame of a 1-based code; out of range (refused by the core) for
/// codes below 1 and NA.
fn frame_index(code: i32) -> u32 {
    code.checked_sub(1)
        .and_then(|f| u32::try_from(f).ok())
        .unwrap_or(u32::MAX)
}

/// Writes a speedscope file. Besides the samples: `location_frame` (1-based),
/// `frame_name`, `frame_file`, `frame_line`, `type_unit`, `default_type`
/// (1-based), `source_id`, `source_name`, `source_is_base`, `name`, `exporter`.
/// @noRd
#[extendr]
fn ffi_profile_write_speedscope(input: Robj, path: Robj) -> Robj {
    envelope(|| {
        let path = required_path(&path, "path")?;
        let fields = Fields::of(&input)?;
        let samples = sample_set_from_r(&fields)?;
        let location_frame: Vec<u32> = fields
            .ints("location_frame")?
            .iter()
            .map(|&f| frame_index(f))
            .collect();
        let labels = SpeedscopeLabels {
            frame_name: &fields.strings("frame_name")?,
            frame_file: &fields.strings("frame_file")?,
            frame_line: &fields.ints("frame_line")?,
            location_frame: &location_frame,
            type_name: &fields.strings("types")?,
            type_unit: &fields.strings("type_unit")?,
            default_type: fields.count("default_type")?.saturating_sub(1),
            source_id: &fields.ints("source_id")?,
            source_name: &fields.strings("source_name")?,
            source_is_base: &fields.flags("source_is_base")?,
            name: &required_string(fields.get("name")?, "name")?,
            exporter: &required_string(fields.get("exporter")?, "exporter")?,
        };
        speedscope::write_file(&samples, &labels, &path)?;
        Ok(Robj::from(true))
    })
}

/// Writes the bytes of the strings `pieces` (a character vector without NA),
/// one after the other, to `path` with the core's atomic writer: the file of a
/// view (`profile_view(file =)`) is complete or not there, and a file it
/// replaces keeps its permissions.
/// @noRd
#[extendr]
fn ffi_profile_write_text(pieces: Robj, path: Robj) -> Robj {
    envelope(|| {
        let path = required_path(&path, "path")?;
        let pieces = Strings::try_from(pieces).map_err(|_| bad_argument("pieces"))?;
        output::write_atomic(&path, |w| {
            for piece in pieces.iter() {
                let bytes = text::bytes(piece)
                    .ok_or_else(|| ProfileError::argument("`pieces` must not hold NA"))?;
                w.write_all(bytes)?;
            }
            Ok(())
        })?;
        Ok(Robj::from(true))
    })
}

extendr_module! {
    mod view;
    fn ffi_profile_view_data;
    fn ffi_profile_write_speedscope;
    fn ffi_profile_write_text;
}
