//! The sources of the browser view: each source's label and place on a common
//! wall-clock axis (the time order draws one lane per source), and the self
//! values of each source's samples per node of the merged tree, from which the
//! view makes the tree, Top and Sandwich of one source alone.

use super::{push_per_type, SignedSums, ViewTree};
use crate::error::Result;
use crate::io::json::{push_string, push_typed_array, push_typed_ints};
use crate::ops::sample_set::{try_filled, SampleSet};
use rustc_hash::FxHashMap;

/// What the view says of each source of the profile, in source id order: its
/// id, a label, its start in seconds after the earliest start of a source
/// (negative: unknown) and how long it ran in seconds (negative: unknown).
#[derive(Debug, Clone, Copy, Default)]
pub struct ViewSources<'a> {
    pub id: &'a [i32],
    pub label: &'a [String],
    pub start: &'a [f64],
    pub duration: &'a [f64],
}

impl ViewSources<'_> {
    pub(super) fn agree(&self) -> bool {
        let n = self.id.len();
        self.label.len() == n && self.start.len() == n && self.duration.len() == n
    }
}

/// The self values of the samples of each source, per node where its stacks
/// end: rows of (source id, node) in that order, the sums at `type * rows +
/// row` (only `self_pos` and `self_neg` are filled).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceSums {
    pub source: Vec<i32>,
    pub node: Vec<u32>,
    pub values: SignedSums,
}

impl SourceSums {
    pub fn len(&self) -> usize {
        self.node.len()
    }

    pub fn is_empty(&self) -> bool {
        self.node.is_empty()
    }

    /// The sums of `samples`, whose stacks end at the nodes of `tree`; None
    /// when the samples come from one source or none (the whole profile is
    /// that source's).
    pub fn build(samples: &SampleSet, tree: &ViewTree) -> Result<Option<SourceSums>> {
        let first = samples.source.first().copied();
        if samples.source.iter().all(|&s| Some(s) == first) {
            return Ok(None);
        }
        let mut row_of: FxHashMap<(i32, u32), u32> = FxHashMap::default();
        let mut pairs: Vec<(i32, u32)> = Vec::new();
        let mut position_row = try_filled(samples.len(), 0u32, "samples")?;
        let mut last: Option<((i32, u32), u32)> = None;
        for (i, (&source, &leaf)) in samples.source.iter().zip(&tree.leaf).enumerate() {
            let pair = (source, leaf);
            let row = match last {
                // (samples of a source come together, runs of a leaf often)
                Some((p, row)) if p == pair => row,
                _ => *row_of.entry(pair).or_insert_with(|| {
                    pairs.push(pair);
                    pairs.len() as u32 - 1
                }),
            };
            last = Some((pair, row));
            if let Some(r) = position_row.get_mut(i) {
                *r = row;
            }
        }
        let n = pairs.len();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_unstable_by_key(|&r| pairs.get(r).copied());
        let mut rank = try_filled(n, 0usize, "source rows")?;
        for (sorted, &r) in order.iter().enumerate() {
            if let Some(x) = rank.get_mut(r) {
                *x = sorted;
            }
        }
        let cells = samples.n_types * n;
        let mut values = SignedSums {
            self_pos: try_filled(cells, 0.0, "source values")?,
            self_neg: try_filled(cells, 0.0, "source values")?,
            ..SignedSums::default()
        };
        for t in 0..samples.n_types {
            for (i, &row) in position_row.iter().enumerate() {
                let w = samples.weight(t, i);
                let cell = t * n + rank.get(row as usize).copied().unwrap_or(0);
                values.add(false, cell, w);
            }
        }
        let (source, node) = order.iter().filter_map(|&r| pairs.get(r).copied()).unzip();
        Ok(Some(SourceSums {
            source,
            node,
            values,
        }))
    }
}

/// `"sources"`: each source's id, label, start and duration, and `"by_source"`:
/// the rows of `sums` with per sample type their self values (null for a
/// profile of one source).
pub(super) fn push_sources(
    out: &mut String,
    sources: &ViewSources<'_>,
    sums: Option<&SourceSums>,
    n_types: usize,
) {
    out.push_str(",\"sources\":{\"id\":");
    push_typed_ints(out, sources.id);
    out.push_str(",\"label\":[");
    for (i, label) in sources.label.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_string(out, label);
    }
    out.push_str("],\"start\":");
    push_typed_array(out, sources.start);
    out.push_str(",\"duration\":");
    push_typed_array(out, sources.duration);
    out.push_str("},\"by_source\":");
    let Some(sums) = sums else {
        out.push_str("null");
        return;
    };
    out.push_str("{\"source\":");
    push_typed_ints(out, &sums.source);
    out.push_str(",\"node\":");
    push_typed_ints(out, &sums.node);
    out.push_str(",\"values\":");
    let n = sums.len();
    push_per_type(out, n_types, |out, t| {
        let block = |v: &Vec<f64>| v.get(t * n..(t + 1) * n).unwrap_or(&[]).to_vec();
        out.push_str("{\"self_pos\":");
        push_typed_array(out, &block(&sums.values.self_pos));
        out.push_str(",\"self_neg\":");
        push_typed_array(out, &block(&sums.values.self_neg));
        out.push('}');
    });
    out.push('}');
}
