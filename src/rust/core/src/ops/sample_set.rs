//! Every sample of a profile with its stack and its values of several sample
//! types at once, in the order a time-ordered view shows them: by source, then by
//! time where samples have one. The browser view (`formats::view`) and the
//! speedscope writer (`formats::speedscope`) are made from it; summaries and flame
//! graphs of one type use [`crate::ops::summary::Stacks`] instead.

use crate::error::{ProfileError, Result};
use crate::model::frames::SampleFrames;
use crate::model::id_index::IdIndex;
use crate::ops::summary::{first_ragged, StackColumns};
pub(crate) use crate::resources::alloc::try_filled;

/// What a [`SampleSet`] is gathered from: the stack rows, the locations (a
/// frame is the row of its location) and the values of every type, the
/// `samples` table, and the sample type of each value row.
#[derive(Debug, Clone, Copy)]
pub struct SampleInput<'a> {
    pub columns: StackColumns<'a>,
    /// `samples.sample_id` and `source_id`, and the samples' times in seconds
    /// from the start of their source (NaN: none), if the profile has them.
    pub samples: &'a [i32],
    pub sample_source: &'a [i32],
    pub sample_time: Option<&'a [f64]>,
    /// The sample type of each row of `columns.value` as a code: `1..=n_types`
    /// for the types to gather, 0 for rows left out.
    pub value_type: &'a [u32],
    pub n_types: usize,
    /// A gathered type derived from another (`time` from the `samples` of
    /// Rprof ticks), if any.
    pub derived: Option<DerivedType<'a>>,
}

/// A gathered type (`code`, 1-based) whose values are those of another
/// (`from`, 1-based), each multiplied by the factor of its sample's source
/// (`source_id`, `factor`); samples of other sources have none.
#[derive(Debug, Clone, Copy)]
pub struct DerivedType<'a> {
    pub code: u32,
    pub from: u32,
    pub source_id: &'a [i32],
    pub factor: &'a [f64],
}

/// The samples in display order (their *positions*), each with its frames (rows
/// of `locations`, innermost first), its source, its time and one weight per
/// gathered type (0 where it has no value of the type).
#[derive(Debug, Clone)]
pub struct SampleSet {
    frames: SampleFrames,
    /// Source id of each position.
    pub source: Vec<i32>,
    /// Time of each position (NaN: none).
    pub time: Vec<f64>,
    weight: Vec<f64>,
    pub n_types: usize,
    /// The number of rows of `locations` (frames are below it).
    pub n_locations: usize,
}

fn invalid(table: &str, column: &str, row: usize, message: impl Into<String>) -> ProfileError {
    ProfileError::invalid(table, column, Some(row + 1), message)
}

impl SampleSet {
    #[allow(
        clippy::indexing_slicing,
        reason = "order holds rows of samples (0..samples.len()), whose columns check_lengths \
                  matched"
    )]
    pub fn build(input: &SampleInput<'_>) -> Result<SampleSet> {
        check_lengths(input)?;
        let order = display_order(input);
        let ordered_ids: Vec<i32> = order.iter().map(|&row| input.samples[row]).collect();
        let position = IdIndex::try_unique_rows(
            &ordered_ids,
            |_, _| Ok(()),
            |pos, sid| {
                invalid(
                    "samples",
                    "sample_id",
                    order[pos],
                    format!("sample {sid} appears twice"),
                )
            },
        )?;
        let columns = &input.columns;
        let location_row = IdIndex::try_first_rows(columns.locations)?;
        let frames = SampleFrames::gather(
            columns.sample_id,
            columns.depth,
            columns.location_id,
            &position,
            order.len(),
            |lid| location_row.get(lid),
        )?;
        let source: Vec<i32> = order.iter().map(|&row| input.sample_source[row]).collect();
        let weight = gather_weights(input, &position, &source)?;
        Ok(SampleSet {
            frames,
            source,
            time: match input.sample_time {
                Some(time) => order.iter().map(|&row| time[row]).collect(),
                None => vec![f64::NAN; order.len()],
            },
            weight,
            n_types: input.n_types,
            n_locations: columns.locations.len(),
        })
    }

    pub fn len(&self) -> usize {
        self.source.len()
    }

    pub fn is_empty(&self) -> bool {
        self.source.is_empty()
    }

    /// The frames of the sample at position `i` (rows of `locations`), innermost
    /// first.
    pub fn stack(&self, i: usize) -> &[u32] {
        self.frames.of(i)
    }

    /// The value of type `t` (0-based) of the sample at position `i`.
    pub fn weight(&self, t: usize, i: usize) -> f64 {
        self.weight.get(t * self.len() + i).copied().unwrap_or(0.0)
    }

    /// Whether any sample has a time.
    pub fn has_time(&self) -> bool {
        self.time.iter().any(|t| !t.is_nan())
    }
}

fn check_lengths(input: &SampleInput<'_>) -> Result<()> {
    let n = input.samples.len();
    let columns = &input.columns;
    first_ragged(&[
        (
            "samples",
            input.sample_source.len() == n && input.sample_time.is_none_or(|t| t.len() == n),
        ),
        (
            "sample_values",
            columns.values_agree() && input.value_type.len() == columns.value.len(),
        ),
        ("sample_locations", columns.stack_rows_agree()),
    ])?;
    if let Some(row) = input
        .value_type
        .iter()
        .position(|&t| t as usize > input.n_types)
    {
        return Err(invalid(
            "sample_values",
            "type",
            row,
            "sample type code out of range",
        ));
    }
    if input
        .n_types
        .checked_mul(n)
        .is_none_or(|cells| cells >= u32::MAX as usize)
    {
        return Err(ProfileError::limit(format!(
            "{n} samples of {} sample types are too many",
            input.n_types
        )));
    }
    Ok(())
}

/// Rows of `samples` in display order: by source id, then by time (samples
/// without one after those with one), then as they come. Without times, as
/// they come.
#[allow(
    clippy::indexing_slicing,
    reason = "a and b are rows of samples, whose columns check_lengths matched"
)]
fn display_order(input: &SampleInput<'_>) -> Vec<usize> {
    let mut order: Vec<usize> = (0..input.samples.len()).collect();
    if let Some(time) = input.sample_time {
        let by_source_and_time = |&a: &usize, &b: &usize| {
            input.sample_source[a]
                .cmp(&input.sample_source[b])
                .then_with(|| time[a].is_nan().cmp(&time[b].is_nan()))
                .then_with(|| {
                    time[a]
                        .partial_cmp(&time[b])
                        .unwrap_or(std::cmp::Ordering::Equal)
                })
        };
        // Readers write samples in this order already; a stable sort (equal
        // keys keep their order) only where they are not.
        if !order.is_sorted_by(|a, b| by_source_and_time(a, b).is_le()) {
            order.sort_by(by_source_and_time);
        }
    }
    order
}

/// The weight of each (type, position): the value of the row of that sample and
/// type; a sample may have one value of each type. Rows of samples that are not
/// in `samples` are not counted (see `summary::CountedSamples`). `source` is
/// the source of each position, for a derived type.
fn gather_weights(input: &SampleInput<'_>, position: &IdIndex, source: &[i32]) -> Result<Vec<f64>> {
    let n = source.len();
    let cells = input.n_types * n;
    let mut weight = try_filled(cells, 0.0, "sample values")?;
    let mut seen = try_filled(cells, false, "sample values")?;
    let derived = match input.derived {
        Some(d)
            if d.source_id.len() == d.factor.len()
                && [d.code, d.from]
                    .iter()
                    .all(|&c| (1..=input.n_types).contains(&(c as usize))) =>
        {
            Some((d, IdIndex::try_first_rows(d.source_id)?))
        }
        Some(_) => {
            return Err(ProfileError::argument(
                "a derived sample type needs gathered types and one factor per source",
            ))
        }
        None => None,
    };
    let rows = input
        .columns
        .value_sample_id
        .iter()
        .zip(input.value_type)
        .zip(input.columns.value)
        .enumerate();
    for (row, ((&sid, &t), &value)) in rows {
        if t == 0 {
            continue;
        }
        let Some(pos) = position.row(sid) else {
            continue;
        };
        if value.is_nan() {
            return Err(invalid("sample_values", "value", row, "is NA"));
        }
        // `code` is in 1..=n_types (checked above for `t` and the derived type)
        let mut set = |code: u32, value: f64| -> Result<()> {
            let cell = (code as usize).saturating_sub(1) * n + pos;
            match (seen.get_mut(cell), weight.get_mut(cell)) {
                (Some(seen), Some(weight)) => {
                    if std::mem::replace(seen, true) {
                        return Err(invalid(
                            "sample_values",
                            "sample_id",
                            row,
                            format!("sample {sid} has two values of the same type"),
                        ));
                    }
                    *weight = value;
                    Ok(())
                }
                _ => Err(invalid(
                    "sample_values",
                    "type",
                    row,
                    "sample type code out of range",
                )),
            }
        };
        set(t, value)?;
        if let Some((d, sources)) = &derived {
            let factor = source
                .get(pos)
                .and_then(|&s| sources.row(s))
                .and_then(|i| d.factor.get(i));
            if let (true, Some(f)) = (t == d.from, factor) {
                set(d.code, value * f)?;
            }
        }
    }
    Ok(weight)
}

#[cfg(test)]
pub(crate) mod tests;
