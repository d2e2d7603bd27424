//! Content rules of a v2 profile: NA, ranges, keys, foreign keys, stack depths and
//! the version row. The R wrapper checks what only R can see (that the object is a
//! `dm`, table order, column types) before handing the columns here.
//!
//! Each check reports the first offending row (1-based, as R users count).

use crate::error::{ProfileError, Result};
use crate::model::address::{not_an_address, parse_hex_address};
use crate::model::id_index::{IdIndex, IdSet};
use crate::model::schema;
use crate::model::{ColRef, Profile, StrId, NA_INT};
use rustc_hash::FxHashSet;

/// Profiles with at least this many rows of `sample_values` and
/// `sample_locations` are checked on two threads; below it, starting a thread
/// costs more than it saves (validation of many small profiles, as when
/// combining, would slow down).
const MIN_PARALLEL_ROWS: usize = 1 << 16;

/// Validates a whole profile; Ok(()) when every rule holds, else the error of the
/// first check that fails, in the order below.
pub fn validate(p: &Profile) -> Result<()> {
    let tables = p.tables();
    // First, as the other checks index the columns of a table by the same rows.
    check_rectangular(&tables)?;
    // The checks of single columns and keys, and those of pairs, depths and the
    // rest, are independent: on a large profile they run at the same time (each
    // about half of the work), and the error of the first group still wins.
    let rows = p.sample_values.nrow() + p.sample_locations.nrow();
    if rows >= MIN_PARALLEL_ROWS && crate::resources::threads::cores() > 1 {
        let mut results = crate::resources::threads::in_parallel([
            Box::new(|| check_columns(p, &tables)) as Box<dyn FnOnce() -> Result<()> + Send>,
            Box::new(|| check_rows(p)),
        ])
        .into_iter();
        results.next().unwrap_or(Ok(()))?;
        results.next().unwrap_or(Ok(()))
    } else {
        check_columns(p, &tables)?;
        check_rows(p)
    }
}

type Tables<'p> = [(&'static str, Vec<(&'static str, ColRef<'p>)>)];

/// Every column of a table has as many values as the table has rows.
fn check_rectangular(tables: &Tables<'_>) -> Result<()> {
    for (name, cols) in tables {
        let n = cols.first().map_or(0, |(_, c)| c.len());
        for (col, c) in cols {
            if c.len() != n {
                return Err(ProfileError::invalid(
                    name,
                    col,
                    None,
                    format!("has {} values but the table has {n} rows", c.len()),
                ));
            }
        }
    }
    Ok(())
}

/// NA, ranges, primary and foreign keys.
fn check_columns(p: &Profile, tables: &Tables<'_>) -> Result<()> {
    check_not_na(tables)?;
    check_ranges(tables)?;
    check_primary_keys(p, tables)?;
    check_foreign_keys(p, tables)
}

/// The column `col` of `table`, if the profile has it.
fn column<'p>(tables: &Tables<'p>, table: &str, col: &str) -> Option<ColRef<'p>> {
    tables
        .iter()
        .find(|(t, _)| *t == table)
        .and_then(|(_, cols)| cols.iter().find(|(c, _)| *c == col).map(|(_, c)| *c))
}

/// The first row of `values` where `bad` holds, with its value.
fn first_bad<T: Copy>(values: &[T], mut bad: impl FnMut(T) -> bool) -> Option<(usize, T)> {
    values
        .iter()
        .enumerate()
        .find(|&(_, &x)| bad(x))
        .map(|(row, &x)| (row, x))
}

fn check_not_na(tables: &Tables<'_>) -> Result<()> {
    for &(table, col) in schema::NOT_NA {
        if let Some(c) = column(tables, table, col) {
            if let Some(row) = (0..c.len()).find(|&i| c.is_na(i)) {
                return Err(ProfileError::invalid(
                    table,
                    col,
                    Some(row + 1),
                    "must not be NA",
                ));
            }
        }
    }
    Ok(())
}

/// Positive ids; lines and times that are zero or positive.
fn check_ranges(tables: &Tables<'_>) -> Result<()> {
    for &(table, col) in schema::POSITIVE {
        if let Some(ColRef::Int(v)) = column(tables, table, col) {
            if let Some((row, x)) = first_bad(v, |x| x != NA_INT && x <= 0) {
                return Err(ProfileError::invalid(
                    table,
                    col,
                    Some(row + 1),
                    format!("must be a positive id, found {x}"),
                ));
            }
        }
    }
    for &(table, col) in schema::NON_NEGATIVE {
        let bad = match column(tables, table, col) {
            Some(ColRef::Int(v)) => first_bad(v, |x| x != NA_INT && x < 0).map(|(row, x)| {
                (
                    row,
                    format!("must be zero (unknown) or positive, found {x}"),
                )
            }),
            Some(ColRef::Dbl(v)) => first_bad(v, |x| !x.is_nan() && (x < 0.0 || x.is_infinite()))
                .map(|(row, x)| {
                    (
                        row,
                        format!("must be a finite number >= 0 or NA, found {x}"),
                    )
                }),
            _ => None,
        };
        if let Some((row, message)) = bad {
            return Err(ProfileError::invalid(table, col, Some(row + 1), message));
        }
    }
    Ok(())
}

fn check_primary_keys(p: &Profile, tables: &Tables<'_>) -> Result<()> {
    for &(table, col) in schema::PRIMARY_KEYS {
        let repeated = match column(tables, table, col) {
            Some(ColRef::Int(v)) => {
                IdSet::first_repeated(v)?.map(|(row, id)| (row, id.to_string()))
            }
            Some(ColRef::Chr(v)) => {
                let mut seen = FxHashSet::default();
                first_bad(v, |s| !seen.insert(s)).map(|(row, s)| (row, format!("\"{}\"", p.str(s))))
            }
            _ => None,
        };
        if let Some((row, key)) = repeated {
            return Err(ProfileError::invalid(
                table,
                col,
                Some(row + 1),
                format!("is the primary key but {key} occurs more than once"),
            ));
        }
    }
    Ok(())
}

fn check_foreign_keys(p: &Profile, tables: &Tables<'_>) -> Result<()> {
    for key in schema::FOREIGN_KEYS {
        // An extension column may refer to an extension table the profile does
        // not have (`locations.mapping_id` without `mappings`).
        if !p.has_table(key.ref_table) {
            continue;
        }
        let (Some(ColRef::Int(child)), Some(ColRef::Int(parent))) = (
            column(tables, key.table, key.column),
            column(tables, key.ref_table, key.ref_column),
        ) else {
            continue;
        };
        let ids = IdSet::try_of(parent)?;
        if let Some((row, x)) = first_bad(child, |x| x != NA_INT && !ids.contains(x)) {
            return Err(ProfileError::invalid(
                key.table,
                key.column,
                Some(row + 1),
                format!(
                    "value {x} has no match in `{}`.`{}`",
                    key.ref_table, key.ref_column
                ),
            ));
        }
    }
    Ok(())
}

/// Unique pairs, stack depths, inline chains, numbers kept as text, source types
/// and the version.
fn check_rows(p: &Profile) -> Result<()> {
    check_unique_pairs_str(
        "sample_values",
        "type",
        &p.sample_values.sample_id,
        &p.sample_values.value_type,
        p,
    )?;
    check_unique_pairs_str(
        "sample_types",
        "type",
        &p.sample_types.source_id,
        &p.sample_types.value_type,
        p,
    )?;
    check_depths(&p.sample_locations.sample_id, &p.sample_locations.depth)?;
    check_inline_chains(&p.locations.location_id, &p.locations.inlined_into)?;
    check_pprof_numbers(p)?;
    check_otlp_text(p)?;
    check_source_types(p)?;
    check_version(p)?;
    Ok(())
}

/// (id, string) pairs must be unique. Rows of one id usually stand together, which
/// allows a pass without hashing; otherwise fall back to a hash set.
#[allow(
    clippy::indexing_slicing,
    reason = "rows below ids.len(), which values has too (tables are rectangular, checked first)"
)]
fn check_unique_pairs_str(
    table: &str,
    col: &str,
    ids: &[i32],
    values: &[StrId],
    p: &Profile,
) -> Result<()> {
    let report = |row: usize| {
        ProfileError::invalid(
            table,
            col,
            Some(row + 1),
            format!(
                "(`{}`, `{col}`) must be unique but ({}, \"{}\") occurs more than once",
                if table == "sample_types" {
                    "source_id"
                } else {
                    "sample_id"
                },
                ids[row],
                p.str(values[row])
            ),
        )
    };
    // Groups are small (a few sample types per sample); a large one goes to the
    // hash set, so that a hostile profile cannot make this quadratic.
    const LINEAR_GROUP: usize = 32;
    let mut group_start = 0;
    // Ids of the groups passed (looked up once per group, not per row).
    let mut finished = IdSet::try_for_ids(ids)?;
    let mut contiguous = true;
    for row in 0..ids.len() {
        if row > 0 && ids[row] != ids[row - 1] {
            if !finished.insert(ids[row - 1]) {
                contiguous = false;
                break;
            }
            group_start = row;
        }
        if row - group_start > LINEAR_GROUP {
            contiguous = false;
            break;
        }
        if values[group_start..row].contains(&values[row]) {
            return Err(report(row));
        }
    }
    if contiguous {
        if let Some(&last) = ids.last() {
            if finished.contains(last) {
                contiguous = false;
            }
        }
    }
    if !contiguous {
        let mut seen = FxHashSet::default();
        if let Some(row) = (0..ids.len()).find(|&r| !seen.insert((ids[r], values[r]))) {
            return Err(report(row));
        }
    }
    Ok(())
}

/// The depths of each sample must be exactly 1..n.
fn check_depths(sample_id: &[i32], depth: &[i32]) -> Result<()> {
    let bad = |row: usize, message: String| {
        Err(ProfileError::invalid(
            "sample_locations",
            "depth",
            Some(row + 1),
            message,
        ))
    };
    // The rows: the tables are rectangular (checked first).
    let rows = || sample_id.iter().copied().zip(depth.iter().copied());
    // Fast path: rows sorted by sample, depths counting up from 1.
    let mut previous: Option<(i32, i32)> = None;
    let sorted = rows().all(|(s, d)| {
        let expected = match previous {
            Some((ps, pd)) if ps == s => pd.saturating_add(1),
            _ => 1,
        };
        previous = Some((s, d));
        d == expected
    });
    if sorted {
        // Consecutive runs are fine; a sample split over two runs is not.
        let mut seen = IdSet::try_for_ids(sample_id)?;
        let mut previous = None;
        for (row, &s) in sample_id.iter().enumerate() {
            if previous != Some(s) && !seen.insert(s) {
                return bad(row, format!("sample {s} has depth 1 more than once"));
            }
            previous = Some(s);
        }
        return Ok(());
    }
    // General case: per sample, the depths must be unique and within 1..=count.
    // The number of rows of each sample (below u32::MAX: an index numbers them).
    let mut count = IdIndex::try_for_ids(sample_id)?;
    for &s in sample_id {
        count.insert(s, count.get(s).unwrap_or(0) + 1);
    }
    let mut seen = FxHashSet::default();
    for (row, (s, d)) in rows().enumerate() {
        let n = i32::try_from(count.get(s).unwrap_or(0)).unwrap_or(i32::MAX);
        if d < 1 || d > n {
            return bad(
                row,
                format!(
                    "sample {s} has {n} frames, so depths must run 1..{n} without gaps, found {d}"
                ),
            );
        }
        if !seen.insert((s, d)) {
            return bad(
                row,
                format!(
                    "(`sample_id`, `depth`) must be unique but ({s}, {d}) occurs more than once"
                ),
            );
        }
    }
    Ok(())
}

/// Following `inlined_into` from any location must end (at a location that is not
/// inlined), not run in a circle.
#[allow(
    clippy::indexing_slicing,
    reason = "rows are below location_id.len() (from `position`, an index of it), which \
              state and inlined_into have too (tables are rectangular, checked first)"
)]
fn check_inline_chains(location_id: &[i32], inlined_into: &[i32]) -> Result<()> {
    if inlined_into.iter().all(|&x| x == NA_INT) {
        return Ok(());
    }
    let position = IdIndex::try_first_rows(location_id)?;
    const UNSEEN: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![UNSEEN; location_id.len()];
    let mut path = Vec::new();
    for start in 0..location_id.len() {
        let mut row = start;
        while state[row] == UNSEEN {
            state[row] = ON_PATH;
            path.push(row);
            match position.row(inlined_into[row]) {
                Some(next) => row = next,
                None => break,
            }
        }
        if state[row] == ON_PATH && position.get(inlined_into[row]).is_some() {
            return Err(ProfileError::inline_cycle(row, location_id[row]));
        }
        for r in path.drain(..) {
            state[r] = DONE;
        }
    }
    Ok(())
}

/// pprof numbers kept as text must parse: addresses as "0x..." hex, `time_nanos`
/// as a decimal integer.
fn check_pprof_numbers(p: &Profile) -> Result<()> {
    let hex_columns: [(&str, &str, &[StrId]); 4] = [
        ("locations", "address", &p.locations.address),
        ("mappings", "memory_start", &p.mappings.memory_start),
        ("mappings", "memory_limit", &p.mappings.memory_limit),
        ("mappings", "file_offset", &p.mappings.file_offset),
    ];
    for (table, col, values) in hex_columns {
        if let Some((row, v)) = first_bad(values, |v| {
            !v.is_na() && parse_hex_address(p.str(v)).is_none()
        }) {
            return Err(not_an_address(table, col, row, p.str(v)));
        }
    }
    for (col, times) in [
        ("time_nanos", &p.sources.time_nanos),
        ("time_origin_nanos", &p.sources.time_origin_nanos),
    ] {
        if let Some((row, &v)) = times
            .iter()
            .enumerate()
            .find(|(_, &v)| !v.is_na() && parse_nanos(p.str(v)).is_none())
        {
            return Err(ProfileError::invalid(
                "sources",
                col,
                Some(row + 1),
                format!(
                    "must be nanoseconds since the epoch as an integer, found \"{}\"",
                    p.str(v)
                ),
            ));
        }
    }
    Ok(())
}

/// Nanoseconds since the epoch as text: pprof's `int64` or OTLP's `fixed64`.
pub fn parse_nanos(text: &str) -> Option<i128> {
    let n: i128 = text.parse().ok()?;
    (i128::from(i64::MIN)..=i128::from(u64::MAX))
        .contains(&n)
        .then_some(n)
}

/// Whether `text` is lower- or upper-case hex digits, `digits` of them (any
/// even number when None).
fn is_hex(text: &str, digits: Option<usize>) -> bool {
    text.bytes().all(|b| b.is_ascii_hexdigit())
        && digits.map_or(text.len() % 2 == 0, |d| text.len() == d)
}

/// What OTLP fields kept as text must be: ids and payloads as hex, attribute
/// kinds from the list of [`schema::ATTRIBUTE_KINDS`].
fn check_otlp_text(p: &Profile) -> Result<()> {
    let hex: [(&str, &str, &[StrId], Option<usize>); 4] = [
        ("samples", "trace_id", &p.samples.trace_id, Some(32)),
        ("samples", "span_id", &p.samples.span_id, Some(16)),
        ("sources", "profile_id", &p.sources.profile_id, None),
        (
            "sources",
            "original_payload",
            &p.sources.original_payload,
            None,
        ),
    ];
    for (table, col, values, digits) in hex {
        if let Some((row, v)) = values
            .iter()
            .enumerate()
            .find(|(_, v)| !v.is_na() && !is_hex(p.str(**v), digits))
        {
            let what = digits.map_or("an even number of".to_string(), |d| d.to_string());
            return Err(ProfileError::invalid(
                table,
                col,
                Some(row + 1),
                format!("must be {what} hex digits, found \"{}\"", p.str(*v)),
            ));
        }
    }
    let kinds: [(&str, &[StrId]); 6] = [
        ("sample_labels", &p.sample_labels.kind),
        ("resource_attributes", &p.resource_attributes.kind),
        ("scope_attributes", &p.scope_attributes.kind),
        ("source_attributes", &p.source_attributes.kind),
        ("mapping_attributes", &p.mapping_attributes.kind),
        ("location_attributes", &p.location_attributes.kind),
    ];
    for (table, values) in kinds {
        if let Some((row, v)) = values
            .iter()
            .enumerate()
            .find(|(_, v)| !v.is_na() && !schema::ATTRIBUTE_KINDS.contains(&p.str(**v)))
        {
            return Err(ProfileError::invalid(
                table,
                "kind",
                Some(row + 1),
                format!(
                    "must be NA or one of {}, found \"{}\"",
                    schema::ATTRIBUTE_KINDS
                        .iter()
                        .map(|t| format!("\"{t}\""))
                        .collect::<Vec<_>>()
                        .join(", "),
                    p.str(*v)
                ),
            ));
        }
    }
    Ok(())
}

fn check_source_types(p: &Profile) -> Result<()> {
    for (row, &t) in p.sources.source_type.iter().enumerate() {
        let s = p.str(t);
        if !schema::SOURCE_TYPES.contains(&s) {
            return Err(ProfileError::invalid(
                "sources",
                "source_type",
                Some(row + 1),
                format!(
                    "must be one of {}, found \"{s}\"",
                    schema::SOURCE_TYPES
                        .iter()
                        .map(|t| format!("\"{t}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    Ok(())
}

fn check_version(p: &Profile) -> Result<()> {
    let row = p
        .meta
        .key
        .iter()
        .position(|&k| p.str(k) == "version" && !k.is_na());
    match row {
        None => Err(ProfileError::invalid(
            "meta",
            "key",
            None,
            "needs a row with key \"version\"",
        )),
        Some(r) => {
            let v = p.meta.value.get(r).copied().unwrap_or(StrId::NA);
            if p.strings.get(v) == Some("2.0") {
                Ok(())
            } else {
                Err(ProfileError::invalid(
                    "meta",
                    "value",
                    Some(r + 1),
                    format!(
                        "the version must be \"2.0\", found {}",
                        p.strings
                            .get(v)
                            .map_or("NA".to_string(), |s| format!("\"{s}\""))
                    ),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests;
