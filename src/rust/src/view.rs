//! Binding for the core's `sample_set`, `view` and `speedscope` modules: the data
//! of the browser view, its HTML file (written by the core's atomic writer), and
//! speedscope files.

use crate::args::{bad_argument, flag, number, required_path, required_string, strings, Fields};
use crate::envelope::envelope;
use crate::rapi::{dbl_vector, int_vector, r_safe, try_map_column};
use crate::text::{self, intern_strings};
use extendr_api::prelude::*;
use profile_core::formats::speedscope::{self, SpeedscopeLabels};
use profile_core::formats::view::{
    defining_files, heap_lines, line_values, view_json, DefiningInput, HeapInput, SourceSums,
    TimeRuns, ViewData, ViewKeys, ViewLabels, ViewLines, ViewSources, ViewTree,
};
use profile_core::io::output;
use profile_core::io::source_text::{read_source_files, SourceTextLimits};
use profile_core::ops::sample_set::{DerivedType, SampleInput, SampleSet};
use profile_core::ops::summary::StackColumns;
use profile_core::{ProfileError, StringPool};
use std::path::{Path, PathBuf};

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
/// `value`) and the sample types to gather (`types`); a derived type among
/// them (`derived_type`, NULL for none) is the type `derived_from` of
/// `types` multiplied per source (`derived_source`, `derived_factor`).
fn sample_set_from_r(fields: &Fields) -> Result<SampleSet, ProfileError> {
    let types = fields.strings("types")?;
    let value_type = type_codes(fields.get("value_type")?, &types)?;
    let time = match fields.get("sample_time")?.is_null() {
        true => None,
        false => Some(fields.doubles("sample_time")?),
    };
    let derived_source;
    let derived_factor;
    let derived = if fields.get("derived_type")?.is_null() {
        None
    } else {
        let code_of = |name: &str| -> Result<u32, ProfileError> {
            let wanted = required_string(fields.get(name)?, name)?;
            types
                .iter()
                .position(|t| *t == wanted)
                .map(|p| p as u32 + 1)
                .ok_or_else(|| bad_argument(name))
        };
        let (code, from) = (code_of("derived_type")?, code_of("derived_from")?);
        derived_source = fields.ints("derived_source")?;
        derived_factor = fields.doubles("derived_factor")?;
        Some(DerivedType {
            code,
            from,
            source_id: &derived_source,
            factor: &derived_factor,
        })
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
        derived,
    })
}

/// The JSON text of the browser view. Besides the samples: `location_key`,
/// `location_line`, `n_keys`, `location_line_key`, `n_line_keys`, `key_name`,
/// `key_file`, `type_unit`, `default_type` (1-based), `diff`, `title`, the
/// lines' `line_file` (1-based), `line_number`, `file_name` and `file_text` (a
/// list of character vectors or NULL), and the sources' `source_ids`,
/// `source_label`, `source_start` and `source_duration` (seconds, negative
/// for unknown).
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
            location_line_key: &fields.ints("location_line_key")?,
            n_line_keys: fields.count("n_line_keys")?,
        };
        let tree = ViewTree::build(&samples, &keys)?;
        let runs = TimeRuns::build(&samples, &tree);
        let line_sums = line_values(&samples, &keys)?;
        let by_source = SourceSums::build(&samples, &tree)?;
        let line_file: Vec<u32> = fields
            .ints("line_file")?
            .iter()
            .map(|&f| f.saturating_sub(1).max(0) as u32)
            .collect();
        let file_text = optional_texts(fields.get("file_text")?)?;
        let data = ViewData {
            tree: &tree,
            runs: runs.as_ref(),
            line_values: &line_sums,
            lines: ViewLines {
                line_file: &line_file,
                line_number: &fields.ints("line_number")?,
                file_name: &fields.strings("file_name")?,
                file_text: &file_text,
            },
            labels: ViewLabels {
                key_name: &fields.strings("key_name")?,
                key_file: &fields.strings("key_file")?,
                type_name: &fields.strings("types")?,
                type_unit: &fields.strings("type_unit")?,
                default_type: fields.count("default_type")?.saturating_sub(1),
                diff: flag(fields.get("diff")?, "diff")?,
                title: &required_string(fields.get("title")?, "title")?,
                sources: ViewSources {
                    id: &fields.ints("source_ids")?,
                    label: &fields.strings("source_label")?,
                    start: &fields.doubles("source_start")?,
                    duration: &fields.doubles("source_duration")?,
                },
            },
            by_source: by_source.as_ref(),
        };
        Ok(Robj::from(view_json(&data)?))
    })
}

/// The heap growth and shrinkage per line key of a memory profile (see
/// `profile_core::formats::view::heap_lines`): `list(allocated, released)`,
/// or NULL when no value is of one of `heap_types`. The input: `samples`,
/// `sample_source`, `sample_time` (NULL if none), `value_sample_id`,
/// `value_type`, `value`, `heap_types`, `stack_sample_id`,
/// `stack_location_id`, `locations`, `location_line_key` and `n_line_keys`.
/// @noRd
#[extendr]
fn ffi_view_heap_lines(input: Robj) -> Robj {
    envelope(|| {
        let fields = Fields::of(&input)?;
        let heap_types = fields.strings("heap_types")?;
        let value_type = fields.get("value_type")?;
        if value_type.rtype() != Rtype::Strings {
            return Err(bad_argument("value_type"));
        }
        let value_is_heap = text::strings_among(value_type, &heap_types).ok_or_else(|| {
            ProfileError::limit(format!(
                "not enough memory for {} sample values",
                value_type.len()
            ))
        })?;
        if !value_is_heap.contains(&true) {
            return Ok(Robj::from(()));
        }
        let time = match fields.get("sample_time")?.is_null() {
            true => None,
            false => Some(fields.doubles("sample_time")?),
        };
        let lines = heap_lines(&HeapInput {
            samples: &fields.ints("samples")?,
            sample_source: &fields.ints("sample_source")?,
            sample_time: time.as_deref(),
            value_sample_id: &fields.ints("value_sample_id")?,
            value_is_heap: &value_is_heap,
            value: &fields.doubles("value")?,
            stack_sample_id: &fields.ints("stack_sample_id")?,
            stack_location_id: &fields.ints("stack_location_id")?,
            locations: &fields.ints("locations")?,
            location_line_key: &fields.ints("location_line_key")?,
            n_line_keys: fields.count("n_line_keys")?,
        })?;
        Ok(match lines {
            None => Robj::from(()),
            Some(lines) => list!(
                allocated = dbl_vector(&lines.allocated)?,
                released = dbl_vector(&lines.released)?
            )
            .into(),
        })
    })
}

/// For each frame (location), the row (1-based) of a frame whose file is the
/// one its function is defined in, NA where none tells (see
/// `profile_core::formats::view::defining_files`). The input: the stack rows
/// (`sample_id`, `depth`, `location_id`) and the frames' `frame_location_id`,
/// `frame_name` and `frame_file` (codes: equal for equal values, file 0 for
/// none) and `frame_line`.
/// @noRd
#[extendr]
fn ffi_view_defining_files(input: Robj) -> Robj {
    envelope(|| {
        let fields = Fields::of(&input)?;
        let codes = |name: &str| -> Result<Vec<u32>, ProfileError> {
            try_map_column(&fields.ints(name)?, |&code| {
                u32::try_from(code).map_err(|_| bad_argument(name))
            })
        };
        let (frame_name, frame_file) = (codes("frame_name")?, codes("frame_file")?);
        let rows = defining_files(&DefiningInput {
            sample_id: &fields.ints("sample_id")?,
            depth: &fields.ints("depth")?,
            location_id: &fields.ints("location_id")?,
            frame_location_id: &fields.ints("frame_location_id")?,
            frame_name: &frame_name,
            frame_file: &frame_file,
            frame_line: &fields.ints("frame_line")?,
        })?;
        let rows = try_map_column(&rows, |row| {
            Ok(row
                .and_then(|r| i32::try_from(r).ok())
                .and_then(|r| r.checked_add(1))
                .unwrap_or(i32::MIN))
        })?;
        int_vector(&rows)
    })
}

/// A list whose elements are character vectors or NULL.
fn optional_texts(list: &Robj) -> Result<Vec<Option<Vec<String>>>, ProfileError> {
    let list = list.as_list().ok_or_else(|| bad_argument("file_text"))?;
    list.values()
        .map(|text| match text.is_null() {
            true => Ok(None),
            false => strings(&text, "file_text").map(Some),
        })
        .collect()
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

/// The lines of the source files `paths` (a character vector) that can be
/// read within the limits (see `profile_core::io::source_text`): `list(file, line,
/// text)`, `file` the 1-based position in `paths`.
/// @noRd
#[extendr]
fn ffi_source_text(paths: Robj, max_file_bytes: Robj, max_total_bytes: Robj) -> Robj {
    envelope(|| {
        let list = Strings::try_from(paths).map_err(|_| bad_argument("paths"))?;
        let paths: Vec<Option<PathBuf>> = list.iter().map(text::path).collect();
        let missing = PathBuf::new();
        let paths: Vec<&Path> = paths
            .iter()
            .map(|p| p.as_deref().unwrap_or(missing.as_path()))
            .collect();
        let limits = SourceTextLimits {
            max_file_bytes: whole_bytes(&max_file_bytes, "max_file_bytes")?,
            max_total_bytes: whole_bytes(&max_total_bytes, "max_total_bytes")?,
        };
        let text = read_source_files(&paths, limits);
        let file: Vec<i32> = text.file.iter().map(|&f| f as i32 + 1).collect();
        let lines = Strings::from_values(text.text.iter().map(|t| Rstr::from(r_safe(t).as_ref())));
        Ok(list!(
            file = int_vector(&file)?,
            line = int_vector(&text.line)?,
            text = lines
        )
        .into())
    })
}

/// A number of bytes given as a non-negative number.
fn whole_bytes(x: &Robj, name: &str) -> Result<u64, ProfileError> {
    let n = number(x, name)?;
    if !(n >= 0.0 && n.is_finite()) {
        return Err(ProfileError::argument(format!(
            "`{name}` must be a non-negative number"
        )));
    }
    Ok(n as u64)
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
    fn ffi_view_heap_lines;
    fn ffi_view_defining_files;
    fn ffi_profile_write_speedscope;
    fn ffi_source_text;
    fn ffi_profile_write_text;
}
