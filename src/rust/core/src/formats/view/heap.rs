//! The heap growth and shrinkage per source line of an Rprof memory profile,
//! as profvis (0.3.7) shows them in its source panel: the view's "memory
//! allocated" and "memory released" columns.
//!
//! A tick's change is its vector heap (the sum of its values of the heap
//! types) minus that of the previous tick of its source with a stack, in the
//! order of source, time, sample id (ticks without a frame are skipped; the
//! first tick of a source changes by 0). Growth and shrinkage are kept apart
//! per tick, and each frame of the tick with a line credits its line, so a
//! line twice on a stack (recursion) counts twice.

use crate::error::{ProfileError, Result};
use crate::model::id_index::IdIndex;
use crate::resources::alloc::{try_filled, try_with_capacity};
use std::cmp::Ordering;

/// The columns the heap changes are computed from: the samples (`samples`
/// with their source and time, `None` without times), the values of which
/// those of the heap types count (`value_is_heap`), the stack rows (sample
/// and location of each), and the line key of each location
/// (`1..=n_line_keys`, 0 or negative for none).
#[derive(Debug, Clone, Copy)]
pub struct HeapInput<'a> {
    pub samples: &'a [i32],
    pub sample_source: &'a [i32],
    pub sample_time: Option<&'a [f64]>,
    pub value_sample_id: &'a [i32],
    pub value_is_heap: &'a [bool],
    pub value: &'a [f64],
    pub stack_sample_id: &'a [i32],
    pub stack_location_id: &'a [i32],
    pub locations: &'a [i32],
    pub location_line_key: &'a [i32],
    pub n_line_keys: usize,
}

/// The bytes the heap grew by (`allocated`) and shrank by (`released`,
/// positive) at each line key (element `k - 1` for key `k`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HeapLines {
    pub allocated: Vec<f64>,
    pub released: Vec<f64>,
}

fn ragged(table: &str) -> ProfileError {
    ProfileError::invalid(table, "", None, "columns differ in length")
}

/// The heap changes per line key; `None` when no value is of a heap type (the
/// profile has no heap sizes).
pub fn heap_lines(input: &HeapInput<'_>) -> Result<Option<HeapLines>> {
    let n = input.samples.len();
    if input.sample_source.len() != n || input.sample_time.is_some_and(|t| t.len() != n) {
        return Err(ragged("samples"));
    }
    if input.value_is_heap.len() != input.value_sample_id.len()
        || input.value.len() != input.value_sample_id.len()
    {
        return Err(ragged("sample_values"));
    }
    if input.stack_location_id.len() != input.stack_sample_id.len() {
        return Err(ragged("sample_locations"));
    }
    if input.location_line_key.len() != input.locations.len() {
        return Err(ragged("locations"));
    }
    if !input.value_is_heap.iter().any(|&h| h) {
        return Ok(None);
    }
    let sample_row = IdIndex::try_unique_rows(
        input.samples,
        |_, _| Ok(()),
        |row, sid| {
            ProfileError::invalid(
                "samples",
                "sample_id",
                Some(row + 1),
                format!("sample {sid} appears twice"),
            )
        },
    )?;
    let heap = tick_heaps(input, &sample_row)?;
    let (ticks, tick_of_sample) = tick_order(input, &sample_row, &heap)?;
    let change = tick_changes(input, &heap, &ticks)?;
    credit_lines(input, &sample_row, &tick_of_sample, &change).map(Some)
}

/// Each sample's heap: the sum of its heap values (NaN where one is NA or
/// where it has none).
fn tick_heaps(input: &HeapInput<'_>, sample_row: &IdIndex) -> Result<Vec<f64>> {
    let n = input.samples.len();
    let mut heap = try_filled(n, 0.0, "heap sizes")?;
    let mut has = try_filled(n, false, "heap sizes")?;
    let rows = input
        .value_sample_id
        .iter()
        .zip(input.value_is_heap)
        .zip(input.value);
    for ((&sid, &is_heap), &value) in rows {
        if !is_heap {
            continue;
        }
        let Some(row) = sample_row.row(sid) else {
            continue;
        };
        if let (Some(h), Some(seen)) = (heap.get_mut(row), has.get_mut(row)) {
            *h += value;
            *seen = true;
        }
    }
    for (h, seen) in heap.iter_mut().zip(&has) {
        if !seen {
            *h = f64::NAN;
        }
    }
    Ok(heap)
}

/// The ticks (samples with a heap and a stack row) in order of source, time
/// (none last), sample id: their sample rows in that order, and each sample's
/// position in it plus 1, 0 for the samples that are not ticks. (Rows and
/// positions are below `u32::MAX`: `sample_row` numbers them.)
fn tick_order(
    input: &HeapInput<'_>,
    sample_row: &IdIndex,
    heap: &[f64],
) -> Result<(Vec<u32>, Vec<u32>)> {
    let n = input.samples.len();
    let mut has_frame = try_filled(n, false, "ticks")?;
    for &sid in input.stack_sample_id {
        if let Some(flag) = sample_row.row(sid).and_then(|row| has_frame.get_mut(row)) {
            *flag = true;
        }
    }
    let mut ticks: Vec<u32> = try_with_capacity(n, "ticks")?;
    ticks.extend(
        (0..n)
            .filter(|&row| {
                has_frame.get(row).copied().unwrap_or(false)
                    && heap.get(row).is_some_and(|h| !h.is_nan())
            })
            .map(|row| row as u32),
    );
    let source = |row: u32| input.sample_source.get(row as usize).copied().unwrap_or(0);
    let time = |row: u32| {
        input
            .sample_time
            .and_then(|t| t.get(row as usize).copied())
            .unwrap_or(f64::NAN)
    };
    let id = |row: u32| input.samples.get(row as usize).copied().unwrap_or(0);
    // (a stable sort by the key of R's order(); rows already in order stay)
    ticks.sort_by(|&a, &b| {
        source(a)
            .cmp(&source(b))
            .then_with(|| {
                let (ta, tb) = (time(a), time(b));
                ta.is_nan()
                    .cmp(&tb.is_nan())
                    .then_with(|| ta.partial_cmp(&tb).unwrap_or(Ordering::Equal))
            })
            .then_with(|| id(a).cmp(&id(b)))
    });
    let mut tick_of_sample = try_filled(n, 0u32, "ticks")?;
    for (position, &row) in ticks.iter().enumerate() {
        if let Some(t) = tick_of_sample.get_mut(row as usize) {
            *t = position as u32 + 1;
        }
    }
    Ok((ticks, tick_of_sample))
}

/// The heap change of each tick (its sample row in `ticks`, in tick order):
/// its heap minus the previous tick's of the same source, 0 for a source's
/// first tick.
fn tick_changes(input: &HeapInput<'_>, heap: &[f64], ticks: &[u32]) -> Result<Vec<f64>> {
    let mut change = try_filled(ticks.len(), 0.0, "ticks")?;
    for (t, pair) in ticks.windows(2).enumerate() {
        let [before, after] = *pair else { continue };
        let (before, after) = (before as usize, after as usize);
        let same_source = input.sample_source.get(before) == input.sample_source.get(after);
        if let (true, Some(c), Some(&h0), Some(&h1)) = (
            same_source,
            change.get_mut(t + 1),
            heap.get(before),
            heap.get(after),
        ) {
            *c = h1 - h0;
        }
    }
    Ok(change)
}

/// Sums each tick's growth and shrinkage into the line keys of its frames, in
/// the order of the stack rows.
fn credit_lines(
    input: &HeapInput<'_>,
    sample_row: &IdIndex,
    tick_of_sample: &[u32],
    change: &[f64],
) -> Result<HeapLines> {
    let n_keys = input.n_line_keys;
    let mut lines = HeapLines {
        allocated: try_filled(n_keys, 0.0, "line keys")?,
        released: try_filled(n_keys, 0.0, "line keys")?,
    };
    let location_row = IdIndex::try_first_rows(input.locations)?;
    let rows = input
        .stack_sample_id
        .iter()
        .zip(input.stack_location_id)
        .enumerate();
    for (stack_row, (&sid, &lid)) in rows {
        let Some(c) = sample_row
            .row(sid)
            .and_then(|row| tick_of_sample.get(row))
            .and_then(|t| t.checked_sub(1))
            .and_then(|t| change.get(t as usize).copied())
        else {
            continue;
        };
        let key = location_row
            .row(lid)
            .and_then(|row| input.location_line_key.get(row).copied())
            .unwrap_or(0);
        if key <= 0 {
            continue;
        }
        let k = (key - 1) as usize;
        let (Some(a), Some(r)) = (lines.allocated.get_mut(k), lines.released.get_mut(k)) else {
            return Err(ProfileError::invalid(
                "sample_locations",
                "location_id",
                Some(stack_row + 1),
                format!("line key {key} of location {lid} is beyond the {n_keys} line keys"),
            ));
        };
        *a += growth(c);
        *r += growth(-c);
    }
    Ok(lines)
}

/// The positive part of a change (R's `pmax(change, 0)`: NaN stays NaN).
fn growth(change: f64) -> f64 {
    if change.is_nan() {
        change
    } else {
        change.max(0.0)
    }
}

#[cfg(test)]
mod tests;
