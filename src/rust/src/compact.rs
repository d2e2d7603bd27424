//! Compact columns: columns of a profile's long tables sent to R as ALTREP
//! vectors that keep the column's shape instead of a value per row (the idea is
//! described once, in `dev/ARCHITECTURE.md`). Three kinds:
//!
//! - `runs`: a column whose equal values come in consecutive runs (`sample_id`
//!   of `sample_locations`, `sample_values` and `sample_labels`, `source_id` of
//!   `samples`, or any integer column that is 1..n) kept as one value and one
//!   end per run, or just the run length when all runs are equally long, and
//!   nothing at all for values 1, 2, ....
//! - `run_seq`: the `depth` column of `sample_locations`, which counts 1, 2, ...
//!   along the runs of its table's `sample_id`, sharing those runs.
//! - `cycle`: a character column repeating a pattern as long as each run of its
//!   table's `sample_id` (`type` and `unit` of `sample_values`, one row per
//!   sample type).
//! - `run_steps`: the `time` column of `samples`, which goes 0, s, 2s, ... along
//!   the runs of its table's `source_id`, with the step (interval) of each
//!   source, sharing those runs.
//!
//! This module decides which columns of a profile go compact; [`shape`] finds
//! the shapes (plain Rust) and [`altrep`] makes the R vectors.

pub mod altrep;
pub mod shape;

use altrep::{cycle_vector, RunsData};
use extendr_api::prelude::*;
use profile_core::formats::rprof::{CompactColumn, SampleShape, MICROSECONDS};
use profile_core::model::{ColRef, ColumnId, SampleLabels, SampleLocations, SampleValues, Samples};
use profile_core::resources::budget::Budget;
use profile_core::{Profile, ProfileError, StrId, StringPool};
use shape::{counts_within, cycles, find_runs, is_one_to_n, runs_of_lengths, steps_within, Runs};

/// The columns that hold a table's runs, which its `run_seq` and `cycle`
/// columns follow.
const RUNS_COLUMNS: [ColumnId; 4] = [
    SampleLocations::sample_id,
    SampleValues::sample_id,
    SampleLabels::sample_id,
    Samples::source_id,
];

/// The compact form of each column of `table` (`None`: send the column as it
/// is). Integer columns that are 1..n are compact in every table; the runs,
/// and what follows them, are looked for where the long tables have them.
pub fn compact_columns(
    table: &str,
    cols: &[(&str, ColRef<'_>)],
    pool: &StringPool,
) -> Result<Vec<Option<Robj>>, ProfileError> {
    let runs_column = RUNS_COLUMNS
        .iter()
        .find(|c| c.table == table)
        .map(|c| c.column);
    let mut shared: Option<(Runs, RunsData)> = None;
    let mut out: Vec<Option<Robj>> = vec![None; cols.len()];
    for (slot, (name, col)) in out.iter_mut().zip(cols) {
        let ColRef::Int(values) = col else { continue };
        let runs = if Some(*name) == runs_column {
            find_runs(values)
        } else if is_one_to_n(values) {
            Runs::one_to_n(values.len())
        } else {
            None
        };
        let Some(runs) = runs else { continue };
        let data = RunsData::new(&runs)?;
        *slot = data.runs_vector();
        if Some(*name) == runs_column && slot.is_some() {
            shared = Some((runs, data));
        }
    }
    for (slot, (name, col)) in out.iter_mut().zip(cols) {
        if let ColRef::Chr(codes) = col {
            if let Some(value) = single_value_column(table, name, codes) {
                *slot = cycle_vector(&[value], codes.len(), pool);
            }
        }
    }
    let Some((runs, data)) = shared else {
        return Ok(out);
    };
    for (slot, (name, col)) in out.iter_mut().zip(cols) {
        match col {
            ColRef::Int(depths)
                if SampleLocations::depth.is(table, name) && counts_within(depths, &runs) =>
            {
                *slot = data.run_seq_vector();
            }
            ColRef::Chr(codes)
                if (SampleValues::value_type.is(table, name)
                    || SampleValues::unit.is(table, name))
                    && cycles(codes, runs.each) =>
            {
                *slot = codes
                    .get(..runs.each)
                    .and_then(|pattern| cycle_vector(pattern, codes.len(), pool));
            }
            ColRef::Dbl(times) if Samples::time.is(table, name) => {
                if let Some(steps) = steps_within(times, &runs, MICROSECONDS) {
                    *slot = data.run_steps_vector(&steps, MICROSECONDS)?;
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// The one value of a character column that R gets as a `cycle` of it, which
/// takes no memory per row: a column of OTLP links (`samples$trace_id`,
/// `span_id`) that holds no link (NA; profiles of other formats have no
/// links), or a character column of `sample_labels` whose rows all hold one
/// value (as the label `pprof::base=true` of a difference's base: its
/// `key`, `value`, `num_unit` and `kind`).
pub fn single_value_column(table: &str, name: &str, codes: &[StrId]) -> Option<StrId> {
    let &first = codes.first()?;
    let links = Samples::trace_id.is(table, name) || Samples::span_id.is(table, name);
    let candidate = (links && first.is_na()) || table == SampleLabels::NAME;
    (candidate && codes.iter().all(|&c| c == first)).then_some(first)
}

/// The compact columns of a compact read (see [`CompactColumn`]), made from the
/// samples' shape with the rules [`compact_columns`] applies to written columns,
/// and `samples$source_id`, whose runs `samples$time` shares; a column without
/// a compact form is written into `p` from the shape (charged to `budget`), to
/// be sent as it is.
pub fn columns_from_shape(
    shape: &SampleShape,
    p: &mut Profile,
    budget: &Budget,
) -> Result<Vec<(ColumnId, Robj)>, ProfileError> {
    let mut given: Vec<(ColumnId, Robj)> = Vec::new();
    if let Some(runs) = find_runs(&p.samples.source_id) {
        let data = RunsData::new(&runs)?;
        if let Some(ids) = data.runs_vector() {
            given.push((Samples::source_id, ids));
            // Run k holds the samples of source `values[k]` (k + 1 if unset).
            let source_of_run = |k: usize| {
                runs.values
                    .as_ref()
                    .map_or(k as i32 + 1, |v| v.get(k).copied().unwrap_or(0))
            };
            let steps: Vec<f64> = (0..runs.n_runs)
                .map(|k| shape.interval_us(source_of_run(k)))
                .collect();
            given.extend(
                data.run_steps_vector(&steps, MICROSECONDS)?
                    .map(|time| (Samples::time, time)),
            );
        }
    }
    let mut out: Vec<(CompactColumn, Robj)> = Vec::new();
    let stack_lens = shape.stack_lens().iter().map(|&len| len as usize);
    if let Some(runs) = runs_of_lengths(stack_lens) {
        let data = RunsData::new(&runs)?;
        if let Some(ids) = data.runs_vector() {
            out.push((CompactColumn::LocationSampleId, ids));
            out.extend(
                data.run_seq_vector()
                    .map(|depth| (CompactColumn::Depth, depth)),
            );
        }
    }
    if let Some(runs) = runs_of_lengths(shape.value_rows_per_sample()) {
        if let Some(ids) = RunsData::new(&runs)?.runs_vector() {
            out.push((CompactColumn::ValueSampleId, ids));
            // One pattern of types for every sample, as `cycles()` asks.
            if let Some(rows) = shape.equal_value_rows().filter(|_| shape.n_samples() >= 2) {
                let pattern = shape.value_types(rows);
                let types: Vec<StrId> = pattern.iter().map(|&(t, _)| t).collect();
                let units: Vec<StrId> = pattern.iter().map(|&(_, u)| u).collect();
                out.extend(
                    cycle_vector(&types, runs.length, &p.strings)
                        .map(|v| (CompactColumn::ValueType, v)),
                );
                out.extend(
                    cycle_vector(&units, runs.length, &p.strings)
                        .map(|v| (CompactColumn::ValueUnit, v)),
                );
            }
        }
    }
    given.extend(out.into_iter().map(|(column, v)| (column.id(), v)));
    for column in CompactColumn::ALL {
        if !given.iter().any(|(id, _)| *id == column.id()) {
            shape.expand(column, p, budget)?;
        }
    }
    Ok(given)
}

extendr_module! {
    mod compact;
    use altrep;
}
