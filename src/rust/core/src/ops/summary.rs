//! Looking at a profile: the self and total value of each frame key (a function,
//! a location or a source file, as the caller groups frames), and the call tree
//! that flame graphs and folded stacks are drawn from.
//!
//! The input is the long form of the v2 tables: stack rows as in
//! `sample_locations`, a key per location, and one value per sample (the chosen
//! sample type). Keys are codes `1..=n_keys` chosen by the caller (0 leaves a frame
//! out, as if it were not on the stack); the call tree
//! orders siblings by key code, so a caller that numbers keys in label order gets
//! alphabetical flame graphs and sorted folded output.

use crate::error::{ProfileError, Result};
use crate::model::id_index::IdIndex;

mod counted;
mod tree;
use crate::model::frames::SampleFrames;
pub use counted::{CountedSamples, Derived};
pub use tree::CallTree;
pub(crate) use tree::{depth_first, inverse_order, PathTrie};

/// The columns of the long tables that stacks and their values are gathered
/// from: by the summaries ([`StackInput`]) and by the sample sets of the
/// browser view and speedscope files ([`crate::ops::sample_set::SampleInput`]).
#[derive(Debug, Clone, Copy)]
pub struct StackColumns<'a> {
    /// `sample_locations.sample_id`, `depth` (1 = innermost) and `location_id`.
    pub sample_id: &'a [i32],
    pub depth: &'a [i32],
    pub location_id: &'a [i32],
    /// `locations.location_id`.
    pub locations: &'a [i32],
    /// `sample_values.sample_id` and `value` (of the rows the caller chose).
    pub value_sample_id: &'a [i32],
    pub value: &'a [f64],
}

impl StackColumns<'_> {
    /// Whether the columns of `sample_values` have one length.
    pub(crate) fn values_agree(&self) -> bool {
        self.value_sample_id.len() == self.value.len()
    }

    /// Whether the columns of `sample_locations` have one length.
    pub(crate) fn stack_rows_agree(&self) -> bool {
        self.sample_id.len() == self.depth.len() && self.sample_id.len() == self.location_id.len()
    }
}

/// The error for the first table (in the order given) whose columns differ in
/// length.
pub(crate) fn first_ragged(tables: &[(&str, bool)]) -> Result<()> {
    match tables.iter().find(|(_, ok)| !ok) {
        Some((table, _)) => Err(ProfileError::invalid(
            table,
            "(table)",
            None,
            "columns differ in length",
        )),
        None => Ok(()),
    }
}

/// What a summary or call tree is computed from: the stack rows, the
/// locations and the values of the chosen sample type, and a key per location.
#[derive(Debug, Clone, Copy)]
pub struct StackInput<'a> {
    pub columns: StackColumns<'a>,
    /// The key of each location (row of `columns.locations`).
    pub location_key: &'a [i32],
    /// Number of keys; every key is in `0..=n_keys`, and frames whose location has
    /// key 0 are left out of the stacks.
    pub n_keys: usize,
}

/// Weighted stacks, one per sample that has a value: the frame keys of sample
/// `i` (innermost first) and its weight.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stacks {
    frames: SampleFrames,
    pub weight: Vec<f64>,
    pub n_keys: usize,
}

fn invalid(table: &str, column: &str, row: usize, message: impl Into<String>) -> ProfileError {
    ProfileError::invalid(table, column, Some(row + 1), message)
}

impl Stacks {
    /// Gathers the stacks of the samples in `input.value_sample_id` (in that order).
    /// Stack rows of samples without a value are ignored. Depths must run 1..n per
    /// sample; rows may come in any order.
    pub fn build(input: &StackInput<'_>) -> Result<Stacks> {
        check_lengths(input)?;
        let columns = &input.columns;
        let sample_index = IdIndex::try_unique_rows(
            columns.value_sample_id,
            |row, _| match columns.value.get(row) {
                Some(v) if v.is_nan() => Err(invalid("sample_values", "value", row, "is NA")),
                _ => Ok(()),
            },
            |row, sid| {
                invalid(
                    "sample_values",
                    "sample_id",
                    row,
                    format!("sample {sid} has two values of the chosen type"),
                )
            },
        )?;
        let key_of_location = location_keys(input)?;
        let frames = SampleFrames::gather(
            columns.sample_id,
            columns.depth,
            columns.location_id,
            &sample_index,
            columns.value_sample_id.len(),
            |lid| key_of_location.get(lid),
        )?;
        let mut stacks = Stacks {
            frames,
            weight: input.columns.value.to_vec(),
            n_keys: input.n_keys,
        };
        if stacks.frames.frames.contains(&0) {
            stacks.frames.retain(|key| key != 0);
        }
        Ok(stacks)
    }

    pub fn len(&self) -> usize {
        self.weight.len()
    }

    pub fn is_empty(&self) -> bool {
        self.weight.is_empty()
    }

    /// Keys of sample `i`, innermost first.
    pub fn stack(&self, i: usize) -> &[u32] {
        self.frames.of(i)
    }

    /// The sum of all weights, stacks or not.
    pub fn grand_total(&self) -> f64 {
        self.weight.iter().sum()
    }
}

/// The columns of `input` that make one table have the same length, and the
/// keys can be numbered.
fn check_lengths(input: &StackInput<'_>) -> Result<()> {
    let columns = &input.columns;
    first_ragged(&[
        ("sample_values", columns.values_agree()),
        ("sample_locations", columns.stack_rows_agree()),
        (
            "locations",
            columns.locations.len() == input.location_key.len(),
        ),
    ])?;
    if input.n_keys >= u32::MAX as usize {
        return Err(ProfileError::limit("too many frame keys"));
    }
    Ok(())
}

/// The key of each location id (of the last row with that id), each key checked
/// to be in `0..=n_keys`.
fn location_keys(input: &StackInput<'_>) -> Result<IdIndex> {
    let locations = input.columns.locations;
    let mut key_of_location = IdIndex::try_for_ids(locations)?;
    for (row, (&lid, &key)) in locations.iter().zip(input.location_key).enumerate() {
        let key = u32::try_from(key)
            .ok()
            .filter(|&k| k as usize <= input.n_keys)
            .ok_or_else(|| invalid("locations", "(key)", row, "frame key out of range"))?;
        key_of_location.insert(lid, key);
    }
    Ok(key_of_location)
}

/// Self and total value per key (index `k - 1` for key `k`).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyTotals {
    /// Value of samples whose innermost frame has the key.
    pub self_value: Vec<f64>,
    /// Value of samples with the key anywhere in the stack, once per sample however
    /// often it recurs (as `go tool pprof` and `summaryRprof()` count).
    pub total: Vec<f64>,
    /// Value of all samples, including those without frames.
    pub grand_total: f64,
}

#[allow(
    clippy::indexing_slicing,
    reason = "keys are in 1..=n_keys (checked when the stacks were built), i below the stacks"
)]
pub fn key_totals(stacks: &Stacks) -> KeyTotals {
    let n = stacks.n_keys;
    let mut self_value = vec![0.0; n];
    let mut total = vec![0.0; n];
    // last_seen[k] = 1 + the sample that last added to total[k]: counts recursion once.
    let mut last_seen = vec![0usize; n];
    for i in 0..stacks.len() {
        let w = stacks.weight[i];
        let stack = stacks.stack(i);
        if let Some(&innermost) = stack.first() {
            self_value[innermost as usize - 1] += w;
        }
        for &k in stack {
            let k = k as usize - 1;
            if last_seen[k] != i + 1 {
                last_seen[k] = i + 1;
                total[k] += w;
            }
        }
    }
    KeyTotals {
        self_value,
        total,
        grand_total: stacks.grand_total(),
    }
}

#[cfg(test)]
mod tests;
