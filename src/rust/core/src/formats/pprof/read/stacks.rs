//! The stacks of a pprof message: its Locations as rows of `locations` (one
//! per line, inlined lines linked outwards), and its Samples with their values,
//! frames and labels.

use super::{index_ids, last_id, line_number, malformed, StringTable};
use super::{MAX_FRAMES_PER_BYTE, SOURCE_ID};
use crate::error::{ProfileError, Result};
use crate::formats::pprof::proto;
use crate::model::address::hex_address;
use crate::model::id_index::IdIndex;
use crate::model::{next_id, Profile, StrId, NA_INT};
use crate::resources::budget::{Budget, Growable};
use crate::resources::limits::Limits;

/// Rows of the v2 `locations` table that one pprof Location became.
#[derive(Clone, Copy)]
pub(super) struct RowSpan {
    start: u32,
    len: u32,
}

/// Adds one v2 location per line of each pprof Location, innermost line first,
/// each row `inlined_into` the next. The outermost line (the one pprof 1.x and
/// profile 1.0 show) keeps the pprof id; inlined lines get ids after the largest
/// pprof id. Returns the location index and the rows of each location.
pub(super) fn add_locations(
    p: &mut Profile,
    m: &proto::Profile,
    mappings: &(IdIndex<u64>, Vec<i32>),
    functions: &(IdIndex<u64>, Vec<i32>),
) -> Result<(IdIndex<u64>, Vec<RowSpan>)> {
    let pprof_ids: Vec<u64> = m.location.iter().map(|x| x.id).collect();
    let index = index_ids(&pprof_ids, "location")?;
    let outer_ids = outer_location_ids(m, &pprof_ids)?;
    let mut next_inlined_id = outer_ids.iter().copied().max().unwrap_or(0) as i64 + 1;

    let t = &mut p.locations;
    let mut spans = Vec::with_capacity(m.location.len());
    for (loc, &outer_id) in m.location.iter().zip(&outer_ids) {
        // 0 is "no mapping"; so is an id no mapping has, as in Go's parser.
        let mapping_id = mappings
            .0
            .row(loc.mapping_id)
            .and_then(|pos| mappings.1.get(pos))
            .copied()
            .unwrap_or(NA_INT);
        let address = if loc.address == 0 {
            StrId::NA
        } else {
            p.strings.intern(&hex_address(loc.address))
        };
        let n = loc.line.len().max(1);
        let start = t.location_id.len();
        for k in 0..n {
            let id = if k + 1 == n {
                outer_id
            } else {
                let id = next_inlined_id as i32;
                next_inlined_id += 1;
                id
            };
            t.location_id.push(id);
        }
        for k in 0..n {
            let (function_id, line, column) = match loc.line.get(k) {
                None => (NA_INT, NA_INT, NA_INT),
                Some(l) => line_row(l, k, loc.id, functions)?,
            };
            t.function_id.push(function_id);
            t.line.push(line);
            t.column.push(column);
            t.address.push(address);
            t.mapping_id.push(mapping_id);
            t.is_folded.push(loc.is_folded as i32);
            let next = start + k + 1;
            let into = if k + 1 < n {
                t.location_id.get(next).copied()
            } else {
                None
            };
            t.inlined_into.push(into.unwrap_or(NA_INT));
        }
        spans.push(RowSpan {
            start: start as u32,
            len: n as u32,
        });
    }
    Ok((index, spans))
}

/// The ids of the outermost lines of the Locations: their pprof ids, or 1, 2,
/// ... when those do not leave room for the inlined lines (numbered after them)
/// in an R integer.
fn outer_location_ids(m: &proto::Profile, pprof_ids: &[u64]) -> Result<Vec<i32>> {
    let total_rows: u64 = m.location.iter().map(|l| l.line.len().max(1) as u64).sum();
    if total_rows > i32::MAX as u64 {
        return Err(ProfileError::limit(format!(
            "too many location lines ({total_rows})"
        )));
    }
    let inlined_rows = total_rows - m.location.len() as u64;
    let max_id = pprof_ids.iter().copied().max().unwrap_or(0);
    Ok(if max_id.saturating_add(inlined_rows) <= i32::MAX as u64 {
        pprof_ids.iter().map(|&id| id as i32).collect()
    } else {
        (1..=m.location.len() as i32).collect()
    })
}

/// The function id, line and column of line `k` (0-based) of the Location
/// with id `location`.
fn line_row(
    l: &proto::Line,
    k: usize,
    location: u64,
    functions: &(IdIndex<u64>, Vec<i32>),
) -> Result<(i32, i32, i32)> {
    let which = || format!("line {} of location {location}", k + 1);
    if l.function_id == 0 {
        return Err(malformed(format!(
            "{} has no function (function_id 0)",
            which()
        )));
    }
    let function_id = functions
        .0
        .row(l.function_id)
        .and_then(|pos| functions.1.get(pos))
        .copied()
        .ok_or_else(|| {
            malformed(format!(
                "{} refers to function {}, which is not in the profile",
                which(),
                l.function_id
            ))
        })?;
    Ok((function_id, line_number(l.line), line_number(l.column)))
}

/// The rows of `locations` that the pprof location with id `lid` became.
pub(super) fn span_rows(
    locations: &(IdIndex<u64>, Vec<RowSpan>),
    lid: u64,
) -> Option<std::ops::Range<usize>> {
    let span = locations.0.row(lid).and_then(|pos| locations.1.get(pos))?;
    let start = span.start as usize;
    Some(start..start + span.len as usize)
}

pub(super) fn add_samples(
    p: &mut Profile,
    m: &proto::Profile,
    strings: &StringTable,
    types: &[(StrId, StrId)],
    locations: &(IdIndex<u64>, Vec<RowSpan>),
    max_frames: u64,
    budget: &Budget,
) -> Result<()> {
    let limits = budget.limits();
    last_id(m.sample.len(), "samples")?;
    if types.is_empty() && !m.sample.is_empty() {
        return Err(malformed(
            "the profile has samples but declares no sample types".to_string(),
        ));
    }
    let n_frames = count_frames(m, locations, max_frames)?;
    budget.charge_items(n_frames, p.sample_locations.element_bytes(), || {
        "the stacks of the samples".to_string()
    })?;
    let n_values: usize = m.sample.iter().map(|s| s.value.len()).sum();
    p.samples.reserve(m.sample.len());
    p.sample_values.reserve(n_values);
    p.sample_locations.reserve(n_frames);

    for (i, s) in m.sample.iter().enumerate() {
        let sample_id = next_id(i, "samples")?;
        p.samples.sample_id.push(sample_id);
        p.samples.source_id.push(SOURCE_ID);
        // pprof has no time per sample.
        p.samples.time.push(f64::NAN);

        if s.value.len() != types.len() {
            return Err(malformed(format!(
                "sample {sample_id} has {} values, but the profile declares {} sample types",
                s.value.len(),
                types.len()
            )));
        }
        let sv = &mut p.sample_values;
        for (&v, &(t, u)) in s.value.iter().zip(types) {
            sv.sample_id.push(sample_id);
            sv.value_type.push(t);
            sv.unit.push(u);
            sv.value.push(v as f64);
        }

        add_sample_frames(p, s, sample_id, locations, limits)?;
        add_sample_labels(p, s, sample_id, strings)?;
    }
    Ok(())
}

/// The frames of the samples once inlined lines are expanded, checked against
/// `max_frames` before anything is reserved.
fn count_frames(
    m: &proto::Profile,
    locations: &(IdIndex<u64>, Vec<RowSpan>),
    max_frames: u64,
) -> Result<usize> {
    let mut n_frames: u64 = 0;
    for s in &m.sample {
        for &lid in &s.location_id {
            n_frames += span_rows(locations, lid).map_or(0, |r| r.len() as u64);
        }
        if n_frames > max_frames {
            return Err(ProfileError::limit(format!(
                "the stacks would have more than {} frames, over {MAX_FRAMES_PER_BYTE} per byte \
                 of the file (inlined frames repeated by a damaged or hostile file?)",
                max_frames
            )));
        }
    }
    // At most max_frames, which the file's size bounds.
    Ok(n_frames as usize)
}

/// The rows of `sample_locations` of sample `s` (id `sample_id`): the rows of
/// `locations` each of its Locations became, in order.
fn add_sample_frames(
    p: &mut Profile,
    s: &proto::Sample,
    sample_id: i32,
    locations: &(IdIndex<u64>, Vec<RowSpan>),
    limits: &Limits,
) -> Result<()> {
    let sl = &mut p.sample_locations;
    let mut depth = 0usize;
    for &lid in &s.location_id {
        let rows = span_rows(locations, lid).ok_or_else(|| {
            malformed(if lid == 0 {
                format!("sample {sample_id} refers to location 0; ids must be non-zero")
            } else {
                format!("sample {sample_id} refers to location {lid}, which is not in the profile")
            })
        })?;
        let frames = p.locations.location_id.get(rows).unwrap_or_default();
        limits.check_stack_depth(depth + frames.len(), || format!("sample {sample_id}"))?;
        for &location_id in frames {
            depth += 1;
            sl.sample_id.push(sample_id);
            // Within the depth limit, which is at most i32::MAX.
            sl.depth.push(depth as i32);
            sl.location_id.push(location_id);
        }
    }
    Ok(())
}

/// The rows of `sample_labels` of sample `s` (id `sample_id`), as Go reads
/// labels: a string (str set) is a string label, whatever num and num_unit
/// hold; else a number or a unit make a numeric label; a label with neither is
/// dropped.
fn add_sample_labels(
    p: &mut Profile,
    s: &proto::Sample,
    sample_id: i32,
    strings: &StringTable,
) -> Result<()> {
    for (j, l) in s.label.iter().enumerate() {
        let which = || format!("label {} of sample {sample_id}", j + 1);
        let key = strings.get(l.key, || format!("the key of {}", which()))?;
        let (value, num, num_unit) = if l.str != 0 {
            (
                strings.get(l.str, || format!("the value of {}", which()))?,
                f64::NAN,
                StrId::NA,
            )
        } else if l.num != 0 || l.num_unit != 0 {
            let unit = strings.optional(l.num_unit, || format!("the unit of {}", which()))?;
            (StrId::NA, l.num as f64, unit)
        } else {
            continue;
        };
        let t = &mut p.sample_labels;
        t.sample_id.push(sample_id);
        t.key.push(key);
        t.value.push(value);
        t.num.push(num);
        t.num_unit.push(num_unit);
    }
    Ok(())
}
