//! Combining several profiles into one.
//!
//! All inputs are processed in one pass, in order; nothing is merged pairwise, so the
//! cost grows linearly with the total size of the inputs. For each input:
//!
//! - its strings are re-interned once into the new pool (a per-input table from old
//!   to new string ids), so every later string column is translated by indexing;
//! - its `sources`, `samples` and `mappings` rows get new, consecutive ids, and the
//!   rows of the tables that refer to them (`sample_values`, `sample_locations`,
//!   `sample_types`, `sample_labels`, `source_comments`, `source_lines`) are appended with their ids
//!   translated, keeping every extension column;
//! - its functions and locations are merged with identical rows of earlier inputs
//!   (unless [`CombineOptions::merge`] is off), so per-function analysis across runs
//!   sees one function;
//! - its `meta` rows are merged by [`merge_meta`](Combiner::merge_meta)'s rule.
//!
//! Ids of the result run 1..n in every table, in the order of first appearance
//! (input by input, row by row), so combining one profile whose ids are already
//! 1..n in row order gives back the same tables.
//!
//! The inputs are expected to be valid (the R binding validates each one before
//! adding it, so that the R wrapper can name the offending argument). A dangling or
//! duplicated id is still reported as an error, never a panic.

use crate::error::{ProfileError, Result};
use crate::model::{
    next_id, ColumnId, Profile, SampleLabels, SampleLocations, SampleValues, Samples, StrId,
};
use rustc_hash::FxHashMap;

mod ids;
mod locations;
use ids::{
    append_rows, check_rectangular, is_one_to_n, key_rows, move_rows, translate_str, translated,
    NewIds, Renumbering,
};
use locations::LocationKey;

/// How profiles are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CombineOptions {
    /// Merge identical functions (same name, system name, file name and start line)
    /// into one row, and then identical locations (same function, line and every
    /// extension column). Off: every input keeps its own rows.
    pub merge: bool,
}

impl Default for CombineOptions {
    fn default() -> Self {
        CombineOptions { merge: true }
    }
}

/// Combines `inputs`, in order, into one profile (see the module documentation).
pub fn combine(inputs: &[Profile], options: &CombineOptions) -> Result<Profile> {
    let mut combiner = Combiner::new(*options);
    for input in inputs {
        combiner.add(input)?;
    }
    Ok(combiner.finish())
}

/// Separates a meta key from the position of the input whose conflicting value is
/// kept under `key@k` (see [`Combiner::merge_meta`]).
pub const META_CONFLICT_SEPARATOR: char = '@';

/// The per-sample tables of an input given to [`Combiner::add_owned`].
struct PerSample {
    samples: Samples,
    sample_values: SampleValues,
    sample_locations: SampleLocations,
    sample_labels: SampleLabels,
}

/// What becomes of the rows of an input's per-sample tables.
enum PerSampleRows {
    /// Copied from the input, their ids translated.
    Copied,
    /// Moved out of the tables given (the input's own are empty).
    Moved(Box<PerSample>),
    /// Left out of the result (see [`Combiner::add_first_leaving_per_sample`]).
    Left,
}

/// A function row of the result, as the key that identifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct FunctionKey {
    name: StrId,
    system_name: StrId,
    filename: StrId,
    start_line: i32,
}

/// The one pass over the inputs, for callers that produce inputs one at a time (the
/// R binding converts each input just before adding it, so only one input copy is
/// held at a time): [`new`](Self::new), [`add`](Self::add) each input, then
/// [`finish`](Self::finish).
pub struct Combiner {
    options: CombineOptions,
    out: Profile,
    /// Index of the input being added (0-based).
    input_index: usize,
    functions: FxHashMap<FunctionKey, i32>,
    /// Location classes: one per row of the result's `locations`.
    location_keys: Vec<LocationKey>,
    /// Final id of each location class (NA_INT until its input is finished).
    location_final: Vec<i32>,
    location_index: FxHashMap<LocationKey, u32>,
    /// Meta key -> row in the result's meta.
    meta_rows: FxHashMap<StrId, usize>,
    /// The samples of a first input whose per-sample rows were left out: the
    /// samples of later inputs are numbered after them.
    left_samples: usize,
    /// The ids of those rows that change, until they are handed out.
    left_ids: LeftIds,
}

/// The id columns of the per-sample rows of an input left out of the result
/// ([`Combiner::add_first_leaving_per_sample`]) whose ids change: each
/// column's values translated to the result's ids.
pub type LeftIds = Vec<(ColumnId, Vec<i32>)>;

/// The id columns of the first input's per-sample tables whose ids change
/// when it is combined (first, so that its samples are numbered 1..n), given
/// the renumbering of its sources and locations, translated.
fn left_ids(input: &Profile, sources: &Renumbering, locations: &Renumbering) -> Result<LeftIds> {
    let mut out = Vec::new();
    let mut add = |column: ColumnId, ids: &[i32], map: &Renumbering| -> Result<()> {
        out.push((column, translated(column.table, column.column, ids, map)?));
        Ok(())
    };
    if !is_one_to_n(&input.samples.sample_id) {
        let samples =
            Renumbering::consecutive("samples", "sample_id", &input.samples.sample_id, 0)?;
        add(Samples::sample_id, &input.samples.sample_id, &samples)?;
        add(
            SampleValues::sample_id,
            &input.sample_values.sample_id,
            &samples,
        )?;
        add(
            SampleLocations::sample_id,
            &input.sample_locations.sample_id,
            &samples,
        )?;
        add(
            SampleLabels::sample_id,
            &input.sample_labels.sample_id,
            &samples,
        )?;
    }
    if !sources.is_identity() {
        add(Samples::source_id, &input.samples.source_id, sources)?;
    }
    if !locations.is_identity() {
        add(
            SampleLocations::location_id,
            &input.sample_locations.location_id,
            locations,
        )?;
    }
    Ok(out)
}

impl Combiner {
    pub fn new(options: CombineOptions) -> Self {
        let out = Profile::new();
        let mut meta_rows = FxHashMap::default();
        if let Some(&version_key) = out.meta.key.first() {
            meta_rows.insert(version_key, 0);
        }
        Combiner {
            options,
            out,
            input_index: 0,
            functions: FxHashMap::default(),
            location_keys: Vec::new(),
            location_final: Vec::new(),
            location_index: FxHashMap::default(),
            meta_rows,
            left_samples: 0,
            left_ids: Vec::new(),
        }
    }

    /// The combined profile.
    pub fn finish(self) -> Profile {
        self.out
    }

    /// Appends one input (the next in order). After an error the combiner holds a
    /// partly added input and is only fit to be dropped.
    pub fn add(&mut self, input: &Profile) -> Result<()> {
        self.add_input(input, PerSampleRows::Copied)
    }

    /// As [`add`](Self::add), for an input the caller gives up: the rows of
    /// its per-sample tables (`samples`, `sample_values`, `sample_locations`,
    /// `sample_labels`, most of a profile) are moved into the result where it
    /// has none yet (the first input), their ids translated where they are,
    /// instead of copied.
    pub fn add_owned(&mut self, mut input: Profile) -> Result<()> {
        let per_sample = PerSample {
            samples: std::mem::take(&mut input.samples),
            sample_values: std::mem::take(&mut input.sample_values),
            sample_locations: std::mem::take(&mut input.sample_locations),
            sample_labels: std::mem::take(&mut input.sample_labels),
        };
        self.add_input(&input, PerSampleRows::Moved(Box::new(per_sample)))
    }

    /// As [`add`](Self::add) for the first input, except that the rows of
    /// its per-sample tables are left out of the result (the caller has them
    /// already): the result's per-sample tables hold the rows of the later
    /// inputs, whose samples are numbered after the first input's. The rows
    /// left out would be in the result as they are in the input, but for the
    /// ids that combining changes (samples numbered 1..n; sources and
    /// locations renumbered, merged): the columns of those are returned,
    /// translated (`samples$sample_id` and `source_id`, `sample_id` of the
    /// other per-sample tables, `sample_locations$location_id`; usually none,
    /// where the input's ids are 1..n in row order already).
    pub fn add_first_leaving_per_sample(&mut self, input: &Profile) -> Result<LeftIds> {
        if self.input_index != 0 {
            return Err(ProfileError::internal(
                "combining: only the first input's per-sample rows can be left out",
            ));
        }
        self.add_input(input, PerSampleRows::Left)?;
        Ok(std::mem::take(&mut self.left_ids))
    }

    /// The id of the result's samples before the next input's: those of the
    /// result, after those left out of it.
    fn samples_before(&self) -> usize {
        self.left_samples.saturating_add(self.out.samples.nrow())
    }

    /// Appends `input`, whose per-sample rows go as `per_sample` says.
    fn add_input(&mut self, input: &Profile, per_sample: PerSampleRows) -> Result<()> {
        let strings = self.reintern_strings(input);

        // Appends the rows of one table, translating the named id columns.
        macro_rules! append {
            ($table:ident, $($col:literal => $ids:expr),*) => {
                append_rows(
                    stringify!($table),
                    self.out.$table.columns_mut(),
                    input.$table.columns(),
                    &strings,
                    &[$(($col, $ids)),*],
                )
            };
        }
        // New ids for the rows of a table with a primary key.
        macro_rules! renumber {
            ($table:ident, $key:ident) => {
                Renumbering::consecutive(
                    stringify!($table),
                    stringify!($key),
                    &input.$table.$key,
                    self.out.$table.nrow(),
                )
            };
        }

        let resources = renumber!(resources, resource_id)?;
        append!(resources, "resource_id" => &resources)?;
        let scopes = renumber!(scopes, scope_id)?;
        append!(scopes, "scope_id" => &scopes, "resource_id" => &resources)?;
        let sources = renumber!(sources, source_id)?;
        if input.has_table("scopes") {
            append!(sources, "source_id" => &sources, "scope_id" => &scopes)?;
        } else {
            // Without its scopes table an input's `scope_id` refers to nothing
            // (validation leaves it unchecked): the result has NA there.
            let mut own = input.sources.clone();
            own.scope_id.iter_mut().for_each(|id| *id = crate::NA_INT);
            append_rows(
                "sources",
                self.out.sources.columns_mut(),
                own.columns(),
                &strings,
                &[("source_id", &sources), ("scope_id", &scopes)],
            )?;
        }
        let mappings = renumber!(mappings, mapping_id)?;
        append!(mappings, "mapping_id" => &mappings, "source_id" => &sources)?;

        let functions = self.add_functions(input, &strings)?;
        let locations = self.add_locations(input, &strings, &functions, &mappings)?;

        match per_sample {
            PerSampleRows::Copied => {
                let samples = Renumbering::consecutive(
                    "samples",
                    "sample_id",
                    &input.samples.sample_id,
                    self.samples_before(),
                )?;
                append!(samples, "sample_id" => &samples, "source_id" => &sources)?;
                append!(sample_values, "sample_id" => &samples)?;
                append!(sample_locations, "sample_id" => &samples, "location_id" => &locations)?;
                append!(sample_labels, "sample_id" => &samples)?;
            }
            PerSampleRows::Moved(mut own) => {
                let samples = Renumbering::consecutive(
                    "samples",
                    "sample_id",
                    &own.samples.sample_id,
                    self.samples_before(),
                )?;
                // Moves the rows of one table, translating the named id columns.
                macro_rules! take {
                    ($table:ident, $($col:literal => $ids:expr),*) => {
                        move_rows(
                            stringify!($table),
                            self.out.$table.columns_mut(),
                            own.$table.columns_mut(),
                            &strings,
                            &[$(($col, $ids)),*],
                        )
                    };
                }
                take!(samples, "sample_id" => &samples, "source_id" => &sources)?;
                take!(sample_values, "sample_id" => &samples)?;
                take!(sample_locations, "sample_id" => &samples, "location_id" => &locations)?;
                take!(sample_labels, "sample_id" => &samples)?;
            }
            PerSampleRows::Left => {
                self.left_ids = left_ids(input, &sources, &locations)?;
                self.left_samples = input.samples.nrow();
            }
        }
        append!(sample_types, "source_id" => &sources)?;
        append!(source_comments, "source_id" => &sources)?;
        append!(source_lines, "source_id" => &sources)?;
        append!(tasks, "source_id" => &sources)?;
        append!(waits, "source_id" => &sources)?;
        append!(resource_attributes, "resource_id" => &resources)?;
        append!(scope_attributes, "scope_id" => &scopes)?;
        append!(source_attributes, "source_id" => &sources)?;
        append!(mapping_attributes, "mapping_id" => &mappings)?;
        append!(location_attributes, "location_id" => &locations)?;
        // The tables of OpenTelemetry profiles are in the result if an input
        // has them (the others always are).
        self.out
            .absent_tables
            .retain(|t| input.absent_tables.contains(t));

        self.merge_meta(input, &strings)?;
        self.input_index += 1;
        Ok(())
    }

    /// The input's string ids translated into the result's pool (index = old id).
    fn reintern_strings(&mut self, input: &Profile) -> Vec<StrId> {
        let slots = input.strings.as_slice();
        let mut table = Vec::with_capacity(slots.len());
        table.push(StrId::NA);
        for s in slots.iter().skip(1) {
            table.push(self.out.strings.intern(s));
        }
        table
    }

    /// Appends the input's functions that are new (all of them without merging) and
    /// returns the translation of its function ids.
    #[allow(
        clippy::indexing_slicing,
        reason = "rows below nrow() of the input's functions, checked rectangular"
    )]
    fn add_functions(&mut self, input: &Profile, strings: &[StrId]) -> Result<Renumbering> {
        let f = &input.functions;
        check_rectangular("functions", f.is_rectangular())?;
        let mut new_ids = Vec::with_capacity(f.nrow());
        for row in 0..f.nrow() {
            let key = FunctionKey {
                name: translate_str("functions", "name", row, f.name[row], strings)?,
                system_name: translate_str(
                    "functions",
                    "system_name",
                    row,
                    f.system_name[row],
                    strings,
                )?,
                filename: translate_str("functions", "filename", row, f.filename[row], strings)?,
                start_line: f.start_line[row],
            };
            if self.options.merge {
                if let Some(&id) = self.functions.get(&key) {
                    new_ids.push(id);
                    continue;
                }
            }
            let out = &mut self.out.functions;
            let id = next_id(out.nrow(), "functions")?;
            out.function_id.push(id);
            out.name.push(key.name);
            out.system_name.push(key.system_name);
            out.filename.push(key.filename);
            out.start_line.push(key.start_line);
            if self.options.merge {
                self.functions.insert(key, id);
            }
            new_ids.push(id);
        }
        Ok(Renumbering::new(
            key_rows("functions", "function_id", &f.function_id)?,
            NewIds::Listed(new_ids),
            &f.function_id,
        ))
    }

    /// Merges the input's meta into the result's. The rule:
    /// - `version` is kept once (the result is "2.0");
    /// - a key seen for the first time is added with its value, in input order;
    /// - a key already present with the same value adds nothing;
    /// - a key already present with a different value keeps the first value, and the
    ///   later one is added under `key@k`, where k is the 1-based position of the
    ///   input (more `@k` are appended while that name is taken by another value).
    #[allow(
        clippy::indexing_slicing,
        reason = "rows below nrow() of the input's meta, checked rectangular; at is a row of the \
                  result's meta (meta_rows)"
    )]
    fn merge_meta(&mut self, input: &Profile, strings: &[StrId]) -> Result<()> {
        let meta = &input.meta;
        check_rectangular("meta", meta.is_rectangular())?;
        for row in 0..meta.nrow() {
            let key = translate_str("meta", "key", row, meta.key[row], strings)?;
            let value = translate_str("meta", "value", row, meta.value[row], strings)?;
            if self.out.strings.get(key) == Some("version") {
                continue;
            }
            let mut key = key;
            loop {
                match self.meta_rows.get(&key) {
                    None => {
                        self.meta_rows.insert(key, self.out.meta.nrow());
                        self.out.meta.key.push(key);
                        self.out.meta.value.push(value);
                        break;
                    }
                    Some(&at) if self.out.meta.value[at] == value => break,
                    Some(_) => {
                        let renamed = format!(
                            "{}{META_CONFLICT_SEPARATOR}{}",
                            self.out.strings.str(key),
                            self.input_index + 1
                        );
                        key = self.out.strings.intern(&renamed);
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
