//! Combining several profiles into one.
//!
//! All inputs are processed in one pass, in order; nothing is merged pairwise, so the
//! cost grows linearly with the total size of the inputs. For each input:
//!
//! - its strings are re-interned once into the new pool (a per-input table from old
//!   to new string ids), so every later string column is translated by indexing;
//! - its `sources`, `samples` and `mappings` rows get new, consecutive ids, and the
//!   rows of the tables that refer to them (`sample_values`, `sample_locations`,
//!   `sample_types`, `sample_labels`, `source_comments`) are appended with their ids
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
use crate::id_index::IdIndex;
use crate::model::{next_id, too_many, ColMut, ColRef, Locations, Profile, StrId, NA_INT};
use rustc_hash::FxHashMap;

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

/// A function row of the result, as the key that identifies it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct FunctionKey {
    name: StrId,
    system_name: StrId,
    filename: StrId,
    start_line: i32,
}

/// A location row of the result, as the key that identifies it: every column but
/// the id, with ids already translated. `inlined_into` holds the *class* of the
/// target (see [`Combiner::location_final`]), since the final id of a location is
/// only known once its input has been resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct LocationKey {
    function_id: i32,
    line: i32,
    address: StrId,
    mapping_id: i32,
    is_folded: i32,
    column: i32,
    inlined_into_class: u32,
}

const NO_CLASS: u32 = u32::MAX;
/// The class of a location row not resolved yet, and of one being resolved (on
/// the `inlined_into` chain being walked).
const UNRESOLVED: u32 = u32::MAX;
const IN_PROGRESS: u32 = u32::MAX - 1;

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
        }
    }

    /// The combined profile.
    pub fn finish(self) -> Profile {
        self.out
    }

    /// Appends one input (the next in order). After an error the combiner holds a
    /// partly added input and is only fit to be dropped.
    pub fn add(&mut self, input: &Profile) -> Result<()> {
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
        append!(sources, "source_id" => &sources, "scope_id" => &scopes)?;
        let mappings = renumber!(mappings, mapping_id)?;
        append!(mappings, "mapping_id" => &mappings, "source_id" => &sources)?;

        let functions = self.add_functions(input, &strings)?;
        let locations = self.add_locations(input, &strings, &functions, &mappings)?;

        let samples = renumber!(samples, sample_id)?;
        append!(samples, "sample_id" => &samples, "source_id" => &sources)?;
        append!(sample_values, "sample_id" => &samples)?;
        append!(sample_locations, "sample_id" => &samples, "location_id" => &locations)?;
        append!(sample_types, "source_id" => &sources)?;
        append!(sample_labels, "sample_id" => &samples)?;
        append!(source_comments, "source_id" => &sources)?;
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
        Ok(Renumbering {
            rows: key_rows("functions", "function_id", &f.function_id)?,
            new_ids: NewIds::Listed(new_ids),
        })
    }

    /// Resolves the input's locations to classes (merging identical ones), numbers
    /// the classes that first appear in this input in row order, appends them, and
    /// returns the translation of the input's location ids to final ids.
    ///
    /// A location's key contains the class of the location it is inlined into, so
    /// that target is resolved first: each unresolved row starts a walk along its
    /// `inlined_into` chain, which is then resolved from the outermost end.
    fn add_locations(
        &mut self,
        input: &Profile,
        strings: &[StrId],
        functions: &Renumbering,
        mappings: &Renumbering,
    ) -> Result<Renumbering> {
        let loc = &input.locations;
        check_rectangular("locations", loc.is_rectangular())?;
        let rows = key_rows("locations", "location_id", &loc.location_id)?;
        let mut classes = InputClasses {
            class_of: vec![UNRESOLVED; loc.nrow()],
            first_new_class: self.location_keys.len(),
            first_row: Vec::new(),
        };
        let mut chain = Vec::new();
        for start in 0..loc.nrow() {
            if classes.class_of[start] != UNRESOLVED {
                continue;
            }
            walk_inline_chain(loc, &rows, &mut classes.class_of, start, &mut chain)?;
            for &row in chain.iter().rev() {
                // Without a `mappings` table, mapping ids name nothing: no mapping.
                let mappings = input.has_table("mappings").then_some(mappings);
                let key = location_key(
                    loc,
                    row,
                    strings,
                    functions,
                    mappings,
                    &rows,
                    &classes.class_of,
                )?;
                classes.class_of[row] = self.location_class(key, row, &mut classes)?;
            }
        }
        self.append_new_locations(&classes)?;
        // Every row has a class now, and every class its final id.
        let final_ids = classes
            .class_of
            .iter()
            .map(|&class| {
                self.location_final
                    .get(class as usize)
                    .copied()
                    .unwrap_or(NA_INT)
            })
            .collect();
        Ok(Renumbering {
            rows,
            new_ids: NewIds::Listed(final_ids),
        })
    }

    /// The class of the location with `key`, found in row `row` of this input: an
    /// existing one (when merging), else a new one.
    fn location_class(
        &mut self,
        key: LocationKey,
        row: usize,
        classes: &mut InputClasses,
    ) -> Result<u32> {
        let existing = if self.options.merge {
            self.location_index.get(&key).copied()
        } else {
            None
        };
        if let Some(class) = existing {
            // Classes only ever meet rows of later inputs after this input is
            // finished, so a class new here has its first row here.
            if let Some(first) = (class as usize)
                .checked_sub(classes.first_new_class)
                .and_then(|k| classes.first_row.get_mut(k))
            {
                *first = (*first).min(row);
            }
            return Ok(class);
        }
        let class = u32::try_from(self.location_keys.len())
            .ok()
            .filter(|&c| c < IN_PROGRESS)
            .ok_or_else(|| too_many("locations"))?;
        self.location_keys.push(key);
        self.location_final.push(NA_INT);
        classes.first_row.push(row);
        if self.options.merge {
            self.location_index.insert(key, class);
        }
        Ok(class)
    }

    /// Numbers the classes new in this input by their first row and appends
    /// them. A counting sort, since each row is the first row of at most one
    /// class. All of them get their id before any is appended, because an inlined
    /// frame may point to a later row.
    fn append_new_locations(&mut self, classes: &InputClasses) -> Result<()> {
        let mut class_at_row = vec![NO_CLASS; classes.class_of.len()];
        for (k, &row) in classes.first_row.iter().enumerate() {
            class_at_row[row] = (classes.first_new_class + k) as u32;
        }
        let new_classes: Vec<u32> = class_at_row
            .into_iter()
            .filter(|&c| c != NO_CLASS)
            .collect();
        let out = &mut self.out.locations;
        for (k, &class) in new_classes.iter().enumerate() {
            self.location_final[class as usize] = next_id(out.nrow() + k, "locations")?;
        }
        for &class in &new_classes {
            let key = self.location_keys[class as usize];
            push_location(
                out,
                self.location_final[class as usize],
                &key,
                &self.location_final,
            );
        }
        Ok(())
    }

    /// Merges the input's meta into the result's. The rule:
    /// - `version` is kept once (the result is "2.0");
    /// - a key seen for the first time is added with its value, in input order;
    /// - a key already present with the same value adds nothing;
    /// - a key already present with a different value keeps the first value, and the
    ///   later one is added under `key@k`, where k is the 1-based position of the
    ///   input (more `@k` are appended while that name is taken by another value).
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

fn push_location(out: &mut Locations, id: i32, key: &LocationKey, location_final: &[i32]) {
    out.location_id.push(id);
    out.function_id.push(key.function_id);
    out.line.push(key.line);
    out.address.push(key.address);
    out.mapping_id.push(key.mapping_id);
    out.is_folded.push(key.is_folded);
    out.column.push(key.column);
    out.inlined_into
        .push(if key.inlined_into_class == NO_CLASS {
            NA_INT
        } else {
            // The target was resolved before the row that points to it, so it has an id.
            location_final
                .get(key.inlined_into_class as usize)
                .copied()
                .unwrap_or(NA_INT)
        });
}

/// The locations of one input as they are resolved to classes.
struct InputClasses {
    /// The class of each row ([`UNRESOLVED`] until resolved).
    class_of: Vec<u32>,
    /// Classes from this one on were created by this input...
    first_new_class: usize,
    /// ...and this is the first row of each of them.
    first_row: Vec<usize>,
}

/// Walks from row `start` along `inlined_into` while the rows are unresolved,
/// marking them in progress; `chain` gets the rows walked, innermost first.
fn walk_inline_chain(
    loc: &Locations,
    rows: &IdIndex,
    class_of: &mut [u32],
    start: usize,
    chain: &mut Vec<usize>,
) -> Result<()> {
    chain.clear();
    let mut row = start;
    loop {
        match class_of[row] {
            IN_PROGRESS => return Err(ProfileError::inline_cycle(row, loc.location_id[row])),
            UNRESOLVED => {
                class_of[row] = IN_PROGRESS;
                chain.push(row);
                let target = loc.inlined_into[row];
                if target == NA_INT {
                    return Ok(());
                }
                row = row_of(rows, "locations", "inlined_into", row, target)?;
            }
            _ => return Ok(()),
        }
    }
}

/// The key of location row `row`, whose `inlined_into` target is resolved.
fn location_key(
    loc: &Locations,
    row: usize,
    strings: &[StrId],
    functions: &Renumbering,
    mappings: Option<&Renumbering>,
    rows: &IdIndex,
    class_of: &[u32],
) -> Result<LocationKey> {
    let target = loc.inlined_into[row];
    let inlined_into_class = if target == NA_INT {
        NO_CLASS
    } else {
        class_of[row_of(rows, "locations", "inlined_into", row, target)?]
    };
    Ok(LocationKey {
        function_id: functions.translate_opt(
            "locations",
            "function_id",
            row,
            loc.function_id[row],
        )?,
        line: loc.line[row],
        address: translate_str("locations", "address", row, loc.address[row], strings)?,
        mapping_id: match mappings {
            Some(m) => m.translate_opt("locations", "mapping_id", row, loc.mapping_id[row])?,
            None => NA_INT,
        },
        is_folded: loc.is_folded[row],
        column: loc.column[row],
        inlined_into_class,
    })
}

fn check_rectangular(table: &str, ok: bool) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(ProfileError::invalid(
            table,
            "(all)",
            None,
            "columns have different lengths",
        ))
    }
}

fn translate_str(
    table: &str,
    col: &str,
    row: usize,
    id: StrId,
    strings: &[StrId],
) -> Result<StrId> {
    strings.get(id.0 as usize).copied().ok_or_else(|| {
        ProfileError::invalid(
            table,
            col,
            Some(row + 1),
            "refers to a string that is not in the pool",
        )
    })
}

/// The row of each id of a primary key column of an input (positive and unique).
fn key_rows(table: &str, col: &str, ids: &[i32]) -> Result<IdIndex> {
    IdIndex::try_unique_rows(
        ids,
        |row, id| {
            if id > 0 {
                Ok(())
            } else {
                Err(ProfileError::invalid(
                    table,
                    col,
                    Some(row + 1),
                    format!("must be a positive id, found {}", fmt_id(id)),
                ))
            }
        },
        |row, id| {
            ProfileError::invalid(
                table,
                col,
                Some(row + 1),
                format!("is a primary key but {id} occurs more than once"),
            )
        },
    )
}

/// The row of id `id`, found in row `row` of `table`.`col`.
fn row_of(rows: &IdIndex, table: &str, col: &str, row: usize, id: i32) -> Result<usize> {
    rows.row(id).ok_or_else(|| dangling(table, col, row, id))
}

fn dangling(table: &str, col: &str, row: usize, id: i32) -> ProfileError {
    ProfileError::invalid(
        table,
        col,
        Some(row + 1),
        format!("refers to id {}, which does not exist", fmt_id(id)),
    )
}

/// Translation of one input's ids of a table to the ids of the result.
struct Renumbering {
    /// The input's row of each id.
    rows: IdIndex,
    new_ids: NewIds,
}

/// The new id of each row of an input's table.
enum NewIds {
    /// Row `r` gets id `offset + r + 1`.
    After(usize),
    /// Row `r` gets id `ids[r]`.
    Listed(Vec<i32>),
}

impl Renumbering {
    /// New ids `offset + 1, offset + 2, ...` for the rows of a primary key column.
    fn consecutive(table: &str, col: &str, old: &[i32], offset: usize) -> Result<Self> {
        let last = offset
            .checked_add(old.len())
            .ok_or_else(|| too_many(table))?;
        if i32::try_from(last).is_err() {
            return Err(too_many(table));
        }
        Ok(Renumbering {
            rows: key_rows(table, col, old)?,
            new_ids: NewIds::After(offset),
        })
    }

    fn get(&self, old: i32) -> Option<i32> {
        let row = self.rows.row(old)?;
        match &self.new_ids {
            // Below i32::MAX: checked by `consecutive`.
            NewIds::After(offset) => Some((offset + row + 1) as i32),
            NewIds::Listed(ids) => ids.get(row).copied(),
        }
    }

    /// The new id of `old`, found in row `row` of `table`.`col`.
    fn translate(&self, table: &str, col: &str, row: usize, old: i32) -> Result<i32> {
        self.get(old).ok_or_else(|| dangling(table, col, row, old))
    }

    /// Like [`translate`](Self::translate), with NA kept as NA.
    fn translate_opt(&self, table: &str, col: &str, row: usize, old: i32) -> Result<i32> {
        if old == NA_INT {
            Ok(NA_INT)
        } else {
            self.translate(table, col, row, old)
        }
    }
}

fn fmt_id(id: i32) -> String {
    if id == NA_INT {
        "NA".to_string()
    } else {
        id.to_string()
    }
}

/// Appends every row of an input table to the same table of the result: string
/// columns through the string table, the integer columns named in `ids` through
/// their id maps (NA stays NA), all other columns as they are. Working on the
/// generic columns keeps every extension column without listing it here.
fn append_rows(
    table: &str,
    out: Vec<(&'static str, ColMut<'_>)>,
    input: Vec<(&'static str, ColRef<'_>)>,
    strings: &[StrId],
    ids: &[(&str, &Renumbering)],
) -> Result<()> {
    let nrow = input.first().map_or(0, |(_, c)| c.len());
    for (_, c) in &input {
        check_rectangular(table, c.len() == nrow)?;
    }
    for ((out_name, out_col), (in_name, in_col)) in out.into_iter().zip(input) {
        let mismatch =
            || ProfileError::invalid(table, in_name, None, "internal: columns do not line up");
        if out_name != in_name {
            return Err(mismatch());
        }
        match (out_col, in_col) {
            (ColMut::Int(dest), ColRef::Int(src)) => {
                match ids.iter().find(|(c, _)| *c == in_name) {
                    Some((_, map)) => {
                        dest.reserve(src.len());
                        for (row, &old) in src.iter().enumerate() {
                            dest.push(map.translate_opt(table, in_name, row, old)?);
                        }
                    }
                    None => dest.extend_from_slice(src),
                }
            }
            (ColMut::Lgl(dest), ColRef::Lgl(src)) => dest.extend_from_slice(src),
            (ColMut::Dbl(dest), ColRef::Dbl(src)) => dest.extend_from_slice(src),
            (ColMut::Chr(dest), ColRef::Chr(src)) => {
                dest.reserve(src.len());
                for (row, &id) in src.iter().enumerate() {
                    dest.push(translate_str(table, in_name, row, id, strings)?);
                }
            }
            _ => return Err(mismatch()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
