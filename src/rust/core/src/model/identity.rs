//! When two samples are one: the same stack (the same rows of `locations` at
//! every depth) and the same labels, in any order. The pprof writer sums such
//! samples of Rprof sources into one pprof sample (as `go tool pprof` merges
//! samples by their locations and labels); `profile_aggregate()` merges them
//! within each source (`verbs::aggregate`). Both ask
//! [`first_equal_samples`], so the two agree on what "the same" is.

use crate::error::Result;
use crate::model::id_index::IdIndex;
use crate::model::{Profile, StrId};
use crate::resources::alloc::{try_collect, try_filled, try_with_capacity};
use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};

/// A label as a comparable key: key, string value, the number by its bits (NA
/// as one NaN), unit, kind (of an OTLP attribute).
pub(crate) type LabelKey = (StrId, StrId, u64, StrId, StrId);

/// The rows of `sample_labels` of each sample (by its row in `samples`), in
/// table order; rows of unknown samples are left out.
#[derive(Debug, Clone, Default)]
pub(crate) struct LabelRows {
    offsets: Vec<usize>,
    rows: Vec<usize>,
}

impl LabelRows {
    /// The label rows of `p`'s samples, `samples` giving the row of each id.
    #[allow(
        clippy::indexing_slicing,
        reason = "positions come from the index of n samples; offsets has n + 1 entries and fill \
                  stays below the rows counted"
    )]
    pub(crate) fn new(p: &Profile, samples: &IdIndex) -> Result<Self> {
        let n = p.samples.nrow();
        let sample_of: Vec<Option<usize>> = try_collect(
            p.sample_labels.sample_id.iter().map(|&id| samples.row(id)),
            "labels",
        )?;
        let mut offsets = try_filled(n + 1, 0usize, "samples")?;
        for s in sample_of.iter().flatten() {
            offsets[s + 1] += 1;
        }
        for s in 0..n {
            offsets[s + 1] += offsets[s];
        }
        let mut fill = try_with_capacity(n + 1, "samples")?;
        fill.extend_from_slice(&offsets);
        let mut rows = try_filled(offsets[n], 0usize, "labels")?;
        for (row, s) in sample_of.iter().enumerate() {
            if let Some(s) = *s {
                rows[fill[s]] = row;
                fill[s] += 1;
            }
        }
        Ok(LabelRows { offsets, rows })
    }

    /// The label rows of the sample in row `pos` of `samples`.
    pub(crate) fn of(&self, pos: usize) -> &[usize] {
        match (self.offsets.get(pos), self.offsets.get(pos + 1)) {
            (Some(&a), Some(&b)) => self.rows.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// The labels of `rows` as keys in an order that does not depend on the rows'
/// (a cell missing from a ragged table counts as NA).
fn label_keys(p: &Profile, rows: &[usize], out: &mut Vec<LabelKey>) {
    let sl = &p.sample_labels;
    out.clear();
    out.extend(rows.iter().map(|&row| {
        let num = sl.num.get(row).copied().unwrap_or(f64::NAN);
        let bits = if num.is_nan() {
            f64::NAN.to_bits()
        } else {
            num.to_bits()
        };
        let text = |col: &[StrId]| col.get(row).copied().unwrap_or(StrId::NA);
        (
            text(&sl.key),
            text(&sl.value),
            bits,
            text(&sl.num_unit),
            text(&sl.kind),
        )
    }));
    out.sort_unstable();
}

/// For each sample (by row of `samples`), the row of the first sample that is
/// the same as it, or its own row. `stack_of(pos)` is the stack of a sample,
/// its frames as any numbers that are equal where the frames are (rows of
/// `locations` gathered by `model::frames::SampleFrames`, or location ids).
/// Samples are compared only with samples of the same scope: `scope(pos)` is
/// None for a sample that stays on its own, else a number (a source, or one
/// number for all).
#[allow(
    clippy::indexing_slicing,
    reason = "candidates and positions are below the number of samples, which next_same_hash has \
              an entry for"
)]
pub(crate) fn first_equal_samples<'s, F: Hash + Eq + 's>(
    p: &Profile,
    stack_of: impl Fn(usize) -> &'s [F],
    labels: &LabelRows,
    scope: impl Fn(usize) -> Option<usize>,
) -> Result<Vec<usize>> {
    let n = p.samples.nrow();
    let mut first = try_with_capacity(n, "samples")?;
    // The first sample of each hash, and the next sample of the same hash after
    // each first sample (different samples whose hashes collide).
    let mut by_hash: FxHashMap<u64, usize> = FxHashMap::default();
    let mut next_same_hash: Vec<usize> = try_filled(n, usize::MAX, "samples")?;
    let (mut keys, mut other_keys) = (Vec::new(), Vec::new());
    for pos in 0..n {
        let Some(scope_of_pos) = scope(pos) else {
            first.push(pos);
            continue;
        };
        label_keys(p, labels.of(pos), &mut keys);
        let mut hasher = FxHasher::default();
        let stack = stack_of(pos);
        (scope_of_pos, stack, &keys).hash(&mut hasher);
        let hash = hasher.finish();
        let mut candidate = match by_hash.get(&hash) {
            Some(&c) => c,
            None => {
                if by_hash.len() == by_hash.capacity() {
                    by_hash
                        .try_reserve(by_hash.len().max(64))
                        .map_err(|_| crate::resources::alloc::no_memory(n, "distinct samples"))?;
                }
                by_hash.insert(hash, pos);
                first.push(pos);
                continue;
            }
        };
        let found = loop {
            label_keys(p, labels.of(candidate), &mut other_keys);
            if scope(candidate) == Some(scope_of_pos)
                && stack_of(candidate) == stack
                && other_keys == keys
            {
                break candidate;
            }
            match next_same_hash[candidate] {
                usize::MAX => {
                    next_same_hash[candidate] = pos;
                    break pos;
                }
                next => candidate = next,
            }
        };
        first.push(found);
    }
    Ok(first)
}

#[cfg(test)]
mod tests;
