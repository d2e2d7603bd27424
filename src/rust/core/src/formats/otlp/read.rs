//! Decoded OTLP messages as a v2 profile, every index checked.
//!
//! - Each `ResourceProfiles` is a `resources` row, each `ScopeProfiles` a
//!   `scopes` row, their attributes rows of `resource_attributes` and
//!   `scope_attributes`.
//! - Consecutive Profiles of one scope that agree sample by sample (stack,
//!   attributes, link, timestamps, number of observations) and in every
//!   profile-level field but the sample type are one `sources` row with a
//!   sample type each (the collector's pprof translator writes one Profile per
//!   pprof sample type); any other Profile is a source of its own.
//! - Each observation of a `Sample` (a value and/or a timestamp) is a v2
//!   sample; a timestamps-only sample counts 1 per timestamp. `samples$time`
//!   is seconds from the source's start (`time_unix_nano`), or from its first
//!   timestamp when that is earlier or the start is unknown
//!   (`sources$time_origin_nanos` says so).
//! - Dictionary entries become rows with id = index + 1 (inlined lines of a
//!   location after them). Index 0 of `mapping_index` and `link_index` means
//!   none; other indices are taken as they are, 0 included (entry 0 is a row
//!   then, as the collector reads such a file).
//! - Attributes the collector's pprof translator uses for pprof fields fill
//!   the v2 columns of those fields; others go to the attribute tables.

/// Pushes a row of an attribute table (`sample_labels` or one of the OTLP
/// attribute tables, which share their columns): `$id` of the row it belongs
/// to, then the attribute's key, unit and value cells.
macro_rules! push_attribute {
    ($table:expr, $id_column:ident = $id:expr, $key:expr, $unit:expr, $cells:expr) => {{
        let t = $table;
        let cells = $cells;
        t.$id_column.push($id);
        t.key.push($key);
        t.value.push(cells.value);
        t.num.push(cells.num);
        t.num_unit.push($unit);
        t.kind.push(cells.kind);
    }};
}

mod dictionary;
mod samples;
mod sources;

use super::attributes::Cells;
use super::proto;
use crate::error::{ProfileError, Result};
use crate::io::text::utf8_escaped;
use crate::model::{Profile, StrId, NA_INT};
use crate::resources::budget::Budget;

/// Reads decoded messages (one, or several of a file of OTLP/JSON lines) as
/// one v2 profile.
pub fn profile_from_messages(
    messages: &[proto::ProfilesData],
    source_uri: Option<&str>,
    budget: &Budget,
) -> Result<Profile> {
    match messages {
        [one] => read_message(one, source_uri, budget),
        many => {
            let mut combiner =
                crate::ops::combine::Combiner::new(crate::ops::combine::CombineOptions {
                    merge: true,
                });
            for (i, m) in many.iter().enumerate() {
                let p = read_message(m, source_uri, budget).map_err(|e| in_message(e, i))?;
                combiner.add(&p)?;
            }
            let mut p = combiner.finish();
            drop_repeated_attributes(&mut p);
            Ok(p)
        }
    }
}

/// An error of the `i`-th message of a file of several: one about the
/// content (kinds `format` and `invalid`) says which message.
fn in_message(e: ProfileError, i: usize) -> ProfileError {
    match e {
        ProfileError::Invalid { .. } | ProfileError::Format { .. } => {
            e.map_message(|m| format!("message {} of the file: {m}", i + 1))
        }
        other => other,
    }
}

/// Locations and mappings merged when messages are combined keep each
/// attribute once.
fn drop_repeated_attributes(p: &mut Profile) {
    macro_rules! dedupe {
        ($table:ident, $id:ident) => {{
            let t = &p.$table;
            let mut seen = rustc_hash::FxHashSet::default();
            let keep: Vec<bool> = t
                .$id
                .iter()
                .zip(&t.key)
                .zip(&t.value)
                .zip(&t.num)
                .zip(&t.num_unit)
                .zip(&t.kind)
                .map(|(((((id, key), value), num), unit), kind)| {
                    seen.insert((id, key, value, num.to_bits(), unit, kind))
                })
                .collect();
            p.$table.retain_rows(&keep);
        }};
    }
    dedupe!(location_attributes, location_id);
    dedupe!(mapping_attributes, mapping_id);
}

fn invalid(table: &str, column: &str, message: String) -> ProfileError {
    ProfileError::invalid(table, column, None, message)
}

/// The error for an index that is negative or past the end of its table.
fn dangling(
    holder: &str,
    column: &str,
    what: &str,
    index: i64,
    target: &str,
    len: usize,
) -> ProfileError {
    let message = if index < 0 {
        format!("{what} has the negative index {index} into {target}")
    } else {
        let entries = if len == 1 { "entry" } else { "entries" };
        format!("{what} refers to entry {index} of {target}, which has {len} {entries}")
    };
    invalid(holder, column, message)
}

/// The entry `index` of `table`, checked.
fn entry<'t, T>(
    table: &'t [T],
    index: i32,
    target: &str,
    holder: &str,
    column: &str,
    what: &dyn Fn() -> String,
) -> Result<&'t T> {
    usize::try_from(index)
        .ok()
        .and_then(|i| table.get(i))
        .ok_or_else(|| dangling(holder, column, &what(), index.into(), target, table.len()))
}

/// The v2 id of entry `index` of a dictionary table of `len` entries: the
/// index itself, and for entry 0 (read only where it is referred to) `len`,
/// the first index after the table.
fn entry_id(index: usize, len: usize, what: &str) -> Result<i32> {
    let id = if index == 0 { len } else { index };
    i32::try_from(id).map_err(|_| crate::model::too_many(what))
}

/// A line number (or column, start line) as a v2 integer: 0 (unknown) or
/// positive; NA where R's integers cannot hold it.
fn line_number(value: i64) -> i32 {
    i32::try_from(value)
        .ok()
        .filter(|&v| v >= 0)
        .unwrap_or(NA_INT)
}

/// A converted entry of the attribute table.
#[derive(Clone, Copy)]
struct Attr {
    key: StrId,
    unit: StrId,
    cells: Cells,
}

/// The reading of one message.
struct Reader<'m, 'b> {
    p: Profile,
    d: &'m proto::ProfilesDictionary,
    budget: &'b Budget,
    strings: Vec<StrId>,
    attrs: Vec<Attr>,
    /// Per location index: the rows of `locations` its lines became.
    spans: Vec<Option<(usize, usize)>>,
    /// Per stack index: the first source whose samples use it.
    stack_source: Vec<i32>,
    /// Per `locations` row: whether its line's column is 0 (read as NA).
    column_zero: Vec<bool>,
    /// Whether index 0 of `mapping_index`, `link_index` and `unit_strindex`
    /// means none: where entry 0 of its table is the zero value, as the
    /// proto requires (else it is taken as it is, as other indices are).
    zero: ZeroMeansNone,
    /// Per source: where its first Profile is (resource, scope, profile).
    group_paths: Vec<(usize, usize, usize)>,
}

/// See [`Reader::zero`].
#[derive(Clone, Copy)]
struct ZeroMeansNone {
    mapping: bool,
    link: bool,
    unit: bool,
}

impl ZeroMeansNone {
    fn of(d: &proto::ProfilesDictionary) -> Self {
        let zero_bytes = |b: &[u8]| b.iter().all(|&x| x == 0);
        ZeroMeansNone {
            mapping: d
                .mapping_table
                .first()
                .is_none_or(|m| *m == proto::Mapping::default()),
            link: d
                .link_table
                .first()
                .is_none_or(|l| zero_bytes(&l.trace_id) && zero_bytes(&l.span_id)),
            unit: d.string_table.first().is_none_or(|s| s.is_empty()),
        }
    }
}

/// What profile-level attributes carry, beyond `source_attributes`.
#[derive(Default)]
struct ProfileFields {
    drop_frames: StrId,
    keep_frames: StrId,
    doc_url: StrId,
    comments: Vec<(u64, StrId)>,
    source_type: Option<StrId>,
    source_uri: Option<StrId>,
    source_timestamp: Option<f64>,
    rprof_header: StrId,
    source_label: StrId,
    diff_base: i32,
    /// Attribute indices of the rest.
    rest: Vec<i32>,
}

fn read_message(
    m: &proto::ProfilesData,
    source_uri: Option<&str>,
    budget: &Budget,
) -> Result<Profile> {
    // Index 0 into an empty table refers to its zero value (readers of a
    // file give messages whose tables have it, see `super::with_zero_entries`).
    let padded;
    let m = if needs_zero_entries(m) {
        let mut copy = m.clone();
        super::with_zero_entries(&mut copy);
        padded = copy;
        &padded
    } else {
        m
    };
    let empty = proto::ProfilesDictionary::default();
    let d = m.dictionary.as_ref().unwrap_or(&empty);
    let mut p = Profile::new();
    p.absent_tables
        .retain(|t| !crate::model::OTLP_TABLES.contains(t));
    let strings = intern_strings(&mut p, d, budget)?;
    let mut r = Reader {
        p,
        d,
        budget,
        strings,
        attrs: Vec::new(),
        spans: Vec::new(),
        stack_source: vec![NA_INT; d.stack_table.len()],
        column_zero: Vec::new(),
        zero: ZeroMeansNone::of(d),
        group_paths: Vec::new(),
    };
    r.convert_attributes()?;
    r.check_dictionary()?;
    let groups = r.envelopes(m, source_uri)?;
    r.processes();
    r.functions_and_locations()?;
    r.samples(&groups)?;
    r.mappings()?;
    r.pprof_columns();
    Ok(r.p)
}

fn needs_zero_entries(m: &proto::ProfilesData) -> bool {
    m.dictionary.as_ref().is_none_or(|d| {
        d.mapping_table.is_empty()
            || d.location_table.is_empty()
            || d.function_table.is_empty()
            || d.link_table.is_empty()
            || d.string_table.is_empty()
            || d.attribute_table.is_empty()
            || d.stack_table.is_empty()
    })
}

/// The string table interned, charged to the budget.
fn intern_strings(
    p: &mut Profile,
    d: &proto::ProfilesDictionary,
    budget: &Budget,
) -> Result<Vec<StrId>> {
    let mut ids =
        budget.vec_with_capacity(d.string_table.len(), || "the string table".to_string())?;
    for s in &d.string_table {
        ids.push(p.strings.try_intern(&utf8_escaped(s), budget)?);
    }
    Ok(ids)
}

/// The instant `samples$time` counts from for the samples of `lead` (and its
/// group): its `time_unix_nano` when that is at or before every timestamp and
/// the times after it are exact as doubles of nanoseconds; else the first
/// timestamp. None without timestamps.
fn time_origin(lead: &proto::Profile) -> Option<u64> {
    let mut stamps = lead
        .samples
        .iter()
        .flat_map(|s| s.timestamps_unix_nano.iter().copied());
    let first = stamps.next()?;
    let (min, max) = stamps.fold((first, first), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let t0 = lead.time_unix_nano;
    Some(if t0 <= min && max - t0 <= 1 << 52 {
        t0
    } else {
        min
    })
}
