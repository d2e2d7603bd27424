//! A decoded pprof message as a v2 profile, with every reference checked.
//!
//! The rules are those of Go's parser (`github.com/google/pprof/profile`: its
//! decoding and `CheckValid()`), so that a file is read exactly when `go tool
//! pprof` reads it: the string table starts with ""; string indices are in
//! range; ids are non-zero and unique; samples refer to existing locations and
//! have one value per sample type; lines refer to existing functions. A
//! location's mapping id that names no mapping means no mapping (NA), as in Go.
//! What v2 cannot hold as Go does is read as close as it can and listed in
//! `?read_pprof`: line numbers outside R's integers are NA, a repeated sample
//! type name gets a suffix, labels follow Go's reading (a string label has no
//! number, a label with neither string nor number is dropped).

use super::proto;
use super::R_MAPPING_FILENAME;
use crate::error::{ProfileError, Result};
use crate::io::text::utf8_escaped;
use crate::model::address::hex_address;
use crate::model::id_index::{IdIndex, IdSet};
use crate::model::{next_id, Profile, StrId, NA_INT, TOP_LEVEL_NAME};
use crate::resources::budget::{Budget, Growable};
use crate::resources::limits::Limits;
use prost::Message;
use rustc_hash::{FxHashMap, FxHashSet};

mod stacks;
use stacks::{add_locations, add_samples};

/// Inlined calls make one pprof location several frames. A file whose stacks
/// would have more frames than this many per byte of the message is refused: real
/// profiles have a few lines per location, while a location with thousands of
/// lines referred to by many samples would fill memory from a small file.
pub const MAX_FRAMES_PER_BYTE: u64 = 32;

/// Frames a file's stacks may always have, however small the file.
pub const MIN_MAX_FRAMES: u64 = 1 << 20;

/// The single source row a pprof file becomes.
const SOURCE_ID: i32 = 1;

fn malformed(message: String) -> ProfileError {
    ProfileError::format(None, message)
}

/// The file's string table, interned into the profile's pool.
struct StringTable {
    ids: Vec<StrId>,
}

impl StringTable {
    /// Go's parser refuses a table whose first entry is not "", and a table
    /// without entries (index 0, "not set", must exist).
    fn new(pool: &mut crate::model::StringPool, table: &[Vec<u8>]) -> Result<Self> {
        match table.first() {
            None => {
                return Err(malformed(
                    "the string table is empty; pprof requires the empty string as its first entry"
                        .to_string(),
                ))
            }
            Some(first) if !first.is_empty() => {
                return Err(malformed(format!(
                    "the first entry of the string table is \"{}\", but pprof requires the empty string there",
                    utf8_escaped(first)
                )))
            }
            Some(_) => {}
        }
        Ok(StringTable {
            ids: table
                .iter()
                .map(|b| pool.intern(&utf8_escaped(b)))
                .collect(),
        })
    }

    /// The string at `index`; `what` names the referring field for the error.
    fn get(&self, index: i64, what: impl FnOnce() -> String) -> Result<StrId> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.ids.get(i))
            .copied()
            .ok_or_else(|| {
                malformed(format!(
                    "{} refers to string {index}, but the string table has {} entries",
                    what(),
                    self.ids.len()
                ))
            })
    }

    /// Like [`get`](Self::get) for a field where index 0 means "not set" (NA).
    fn optional(&self, index: i64, what: impl FnOnce() -> String) -> Result<StrId> {
        if index == 0 {
            Ok(StrId::NA)
        } else {
            self.get(index, what)
        }
    }
}

/// v2 ids for elements with pprof ids: the pprof ids themselves when they all fit
/// an R integer, otherwise 1, 2, ... in file order.
fn v2_ids(ids: &[u64], what: &str) -> Result<Vec<i32>> {
    let last = last_id(ids.len(), what)?;
    Ok(if ids.iter().all(|&id| id <= i32::MAX as u64) {
        ids.iter().map(|&id| id as i32).collect()
    } else {
        (1..=last).collect()
    })
}

/// The id of the last of `n` elements numbered 1, 2, ... (0 when there are none).
fn last_id(n: usize, what: &str) -> Result<i32> {
    match n.checked_sub(1) {
        Some(before_last) => next_id(before_last, what),
        None => Ok(0),
    }
}

/// The elements of one kind with their pprof ids, which must be non-zero and
/// unique: the position of each id.
fn index_ids(ids: &[u64], what: &str) -> Result<IdIndex<u64>> {
    IdIndex::try_unique_rows(
        ids,
        |pos, id| {
            if id == 0 {
                Err(malformed(format!(
                    "{what} {} (in file order) has id 0; ids must be non-zero",
                    pos + 1
                )))
            } else {
                Ok(())
            }
        },
        |_, id| malformed(format!("{what} id {id} occurs more than once")),
    )
}

/// A line number (or column, start line) as a v2 integer: 0 (unknown) or
/// positive. Go reads any int64; one that R's integers cannot hold as a line is
/// NA (unknown).
fn line_number(value: i64) -> i32 {
    i32::try_from(value)
        .ok()
        .filter(|&v| v >= 0)
        .unwrap_or(NA_INT)
}

/// Charges `budget` for the tables a message becomes, but the stacks of the
/// samples (charged when their frames are counted, see `add_samples`): the
/// strings (each in the pool, at most, and its id), the rows of every table.
fn charge_tables(m: &proto::Profile, budget: &Budget) -> Result<()> {
    let p = Profile::default();
    let rows = |t: &dyn Growable, n: usize| (n as u64).saturating_mul(t.element_bytes());
    let strings: u64 = m
        .string_table
        .iter()
        .map(|s| STRING_IN_POOL_BYTES + 2 * s.len() as u64 + std::mem::size_of::<StrId>() as u64)
        .sum();
    let location_rows: usize = m.location.iter().map(|l| l.line.len().max(1)).sum();
    let values: usize = m.sample.iter().map(|s| s.value.len()).sum();
    let labels: usize = m.sample.iter().map(|s| s.label.len()).sum();
    let total = strings
        + rows(&p.mappings, m.mapping.len())
        + rows(&p.functions, m.function.len())
        + rows(&p.locations, location_rows)
        + rows(&p.samples, m.sample.len())
        + rows(&p.sample_values, values)
        + rows(&p.sample_labels, labels);
    budget.charge(total, || "the tables of the profile".to_string())
}

/// What the pool takes for a string beyond twice its bytes: two `String`s
/// with their heap blocks, and the index's entry with its slack.
const STRING_IN_POOL_BYTES: u64 = 2 * (24 + 16) + 64;

/// A decoded message as a v2 profile with one source, under the default limits.
pub fn profile_from_message(m: &proto::Profile, source_uri: Option<&str>) -> Result<Profile> {
    profile_from_message_with_limits(m, source_uri, &Limits::default())
}

/// A decoded message as a v2 profile with one source. `limits` bounds the depth
/// of each stack; the stacks together may have at most [`MAX_FRAMES_PER_BYTE`]
/// frames per byte of the encoded message (and [`MIN_MAX_FRAMES`] in any case).
pub fn profile_from_message_with_limits(
    m: &proto::Profile,
    source_uri: Option<&str>,
    limits: &Limits,
) -> Result<Profile> {
    profile_from_message_within(m, source_uri, &Budget::new(*limits))
}

/// [`profile_from_message_with_limits`] under a memory budget, charged for
/// the tables before they are made.
pub fn profile_from_message_within(
    m: &proto::Profile,
    source_uri: Option<&str>,
    budget: &Budget,
) -> Result<Profile> {
    charge_tables(m, budget)?;
    let mut p = Profile::new();
    let strings = StringTable::new(&mut p.strings, &m.string_table)?;

    add_source(&mut p, m, &strings, source_uri)?;
    let types = add_sample_types(&mut p, m, &strings)?;

    let mapping_ids = add_mappings(&mut p, m, &strings)?;
    let function_ids = add_functions(&mut p, m, &strings)?;
    let rows_of_location = add_locations(&mut p, m, &mapping_ids, &function_ids)?;
    let max_frames = (m.encoded_len() as u64)
        .saturating_mul(MAX_FRAMES_PER_BYTE)
        .max(MIN_MAX_FRAMES);
    add_samples(
        &mut p,
        m,
        &strings,
        &types,
        &rows_of_location,
        max_frames,
        budget,
    )?;
    restore_r_system_names(&mut p)?;
    p.pad_extension_columns(&[]);
    Ok(p)
}

fn add_source(
    p: &mut Profile,
    m: &proto::Profile,
    strings: &StringTable,
    source_uri: Option<&str>,
) -> Result<()> {
    let s = &mut p.sources;
    s.source_id.push(SOURCE_ID);
    s.source_type.push(p.strings.intern("pprof"));
    s.source_uri.push(p.strings.intern_opt(source_uri));
    let (timestamp, time_text) = if m.time_nanos == 0 {
        (f64::NAN, StrId::NA)
    } else {
        let mut buf = itoa::Buffer::new();
        (
            m.time_nanos as f64 / 1e9,
            p.strings.intern(buf.format(m.time_nanos)),
        )
    };
    s.source_timestamp.push(timestamp);
    let (period_type, period_unit) = match &m.period_type {
        Some(vt) => (
            strings.get(vt.r#type, || "period_type".to_string())?,
            strings.get(vt.unit, || "the unit of period_type".to_string())?,
        ),
        None => (StrId::NA, StrId::NA),
    };
    s.period_type.push(period_type);
    s.period_unit.push(period_unit);
    let unset_zero = |x: i64| if x == 0 { f64::NAN } else { x as f64 };
    s.period.push(unset_zero(m.period));
    s.duration_nanos.push(unset_zero(m.duration_nanos));
    s.time_nanos.push(time_text);
    s.default_sample_type
        .push(strings.optional(m.default_sample_type, || "default_sample_type".to_string())?);
    s.doc_url
        .push(strings.optional(m.doc_url, || "doc_url".to_string())?);
    s.drop_frames
        .push(strings.optional(m.drop_frames, || "drop_frames".to_string())?);
    s.keep_frames
        .push(strings.optional(m.keep_frames, || "keep_frames".to_string())?);
    s.rprof_header.push(StrId::NA);
    s.diff_base.push(NA_INT);

    for (i, &c) in m.comment.iter().enumerate() {
        let comment = strings.get(c, || format!("comment {}", i + 1))?;
        p.source_comments.source_id.push(SOURCE_ID);
        p.source_comments.comment.push(comment);
    }
    Ok(())
}

/// Adds the declared sample types; returns (type, unit) of each. v2 identifies
/// a type of a source by its name, while Go's parser accepts a name declared
/// twice: a name that occurs again gets the suffix "#k", for the smallest k >= 2
/// that no type of the file has.
fn add_sample_types(
    p: &mut Profile,
    m: &proto::Profile,
    strings: &StringTable,
) -> Result<Vec<(StrId, StrId)>> {
    let mut types = Vec::with_capacity(m.sample_type.len());
    for (i, st) in m.sample_type.iter().enumerate() {
        let t = strings.get(st.r#type, || format!("sample type {}", i + 1))?;
        let u = strings.get(st.unit, || format!("the unit of sample type {}", i + 1))?;
        types.push((t, u));
    }
    let mut taken: FxHashSet<StrId> = types.iter().map(|&(t, _)| t).collect();
    let mut seen = FxHashSet::default();
    // Per name, the k to try next: every smaller one is taken already.
    let mut next_suffix: FxHashMap<StrId, u64> = FxHashMap::default();
    for (t, _) in types.iter_mut() {
        if !seen.insert(*t) {
            let k = next_suffix.entry(*t).or_insert(2);
            let name = p.str(*t).to_string();
            let renamed = loop {
                let candidate = p.strings.intern(&format!("{name}#{k}"));
                *k += 1;
                if taken.insert(candidate) {
                    break candidate;
                }
            };
            seen.insert(renamed);
            *t = renamed;
        }
    }
    for &(t, u) in &types {
        p.sample_types.source_id.push(SOURCE_ID);
        p.sample_types.value_type.push(t);
        p.sample_types.unit.push(u);
    }
    Ok(types)
}

/// Adds the mappings; returns their index and v2 ids (by position).
fn add_mappings(
    p: &mut Profile,
    m: &proto::Profile,
    strings: &StringTable,
) -> Result<(IdIndex<u64>, Vec<i32>)> {
    let pprof_ids: Vec<u64> = m.mapping.iter().map(|x| x.id).collect();
    let index = index_ids(&pprof_ids, "mapping")?;
    let ids = v2_ids(&pprof_ids, "mappings")?;
    let t = &mut p.mappings;
    for (mp, &id) in m.mapping.iter().zip(&ids) {
        let what = |field: &str| format!("the {field} of mapping {}", mp.id);
        t.mapping_id.push(id);
        t.source_id.push(SOURCE_ID);
        t.memory_start
            .push(p.strings.intern(&hex_address(mp.memory_start)));
        t.memory_limit
            .push(p.strings.intern(&hex_address(mp.memory_limit)));
        t.file_offset
            .push(p.strings.intern(&hex_address(mp.file_offset)));
        t.filename
            .push(strings.get(mp.filename, || what("filename"))?);
        t.build_id
            .push(strings.get(mp.build_id, || what("build_id"))?);
        t.has_functions.push(mp.has_functions as i32);
        t.has_filenames.push(mp.has_filenames as i32);
        t.has_line_numbers.push(mp.has_line_numbers as i32);
        t.has_inline_frames.push(mp.has_inline_frames as i32);
    }
    Ok((index, ids))
}

fn add_functions(
    p: &mut Profile,
    m: &proto::Profile,
    strings: &StringTable,
) -> Result<(IdIndex<u64>, Vec<i32>)> {
    let pprof_ids: Vec<u64> = m.function.iter().map(|x| x.id).collect();
    let index = index_ids(&pprof_ids, "function")?;
    let ids = v2_ids(&pprof_ids, "functions")?;
    let t = &mut p.functions;
    for (f, &id) in m.function.iter().zip(&ids) {
        let what = |field: &str| format!("the {field} of function {}", f.id);
        t.function_id.push(id);
        t.name.push(strings.get(f.name, || what("name"))?);
        t.system_name
            .push(strings.get(f.system_name, || what("system_name"))?);
        t.filename
            .push(strings.get(f.filename, || what("filename"))?);
        t.start_line.push(line_number(f.start_line));
    }
    Ok((index, ids))
}

/// The writer leaves out the system name of R functions when it equals the name
/// (see `write.rs`); put it back for functions used only in the R mapping. The
/// top level of an Rprof profile has no system name to put back (see
/// [`TOP_LEVEL_NAME`]).
fn restore_r_system_names(p: &mut Profile) -> Result<()> {
    let r_mapping_ids: Vec<i32> = p
        .mappings
        .filename
        .iter()
        .zip(&p.mappings.mapping_id)
        .filter(|(&f, _)| p.strings.str(f) == R_MAPPING_FILENAME)
        .map(|(_, &id)| id)
        .collect();
    if r_mapping_ids.is_empty() {
        return Ok(());
    }
    let r_mappings = IdSet::try_of(&r_mapping_ids)?;
    let position = IdIndex::try_first_rows(&p.functions.function_id)?;
    // Per function: used by a location in the R mapping, used by any other.
    let mut in_r = vec![false; p.functions.nrow()];
    let mut elsewhere = vec![false; p.functions.nrow()];
    for (f, mapping) in p.locations.function_id.iter().zip(&p.locations.mapping_id) {
        if let Some(pos) = position.row(*f) {
            let flags = if r_mappings.contains(*mapping) {
                &mut in_r
            } else {
                &mut elsewhere
            };
            if let Some(flag) = flags.get_mut(pos) {
                *flag = true;
            }
        }
    }
    let Some(empty) = p.strings.lookup("") else {
        return Ok(());
    };
    let top_level = p.strings.lookup(TOP_LEVEL_NAME);
    let f = &mut p.functions;
    let rows = in_r
        .iter()
        .zip(&elsewhere)
        .zip(f.system_name.iter_mut().zip(&f.name));
    for ((&in_r, &elsewhere), (system_name, &name)) in rows {
        if in_r && !elsewhere && *system_name == empty && name != empty && Some(name) != top_level {
            *system_name = name;
        }
    }
    Ok(())
}
