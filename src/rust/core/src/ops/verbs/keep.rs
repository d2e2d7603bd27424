//! The two primitives: keeping some samples, and keeping some frames of the
//! stacks. Each first works out every row it keeps (which is where an input
//! that breaks the rules it relies on is an error), then changes the profile.

use crate::error::{ProfileError, Result};
use crate::model::id_index::IdIndex;
use crate::model::{Profile, SampleLabels, SampleLocations, SampleValues, Samples};
use crate::resources::alloc::{try_collect, try_collect_ok, try_filled, try_with_capacity};

/// What becomes of a sample that [`keep_frames`] leaves without frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmptyStacks {
    /// It stays, with an empty stack: its values still count in totals.
    Keep,
    /// It is dropped, with its rows in every per-sample table. A sample that
    /// had no frames to begin with is dropped too, as Go drops it.
    Drop,
}

fn invalid(table: &str, column: &str, row: usize, message: impl Into<String>) -> ProfileError {
    ProfileError::invalid(table, column, Some(row + 1), message)
}

/// The error for a table whose columns differ in length.
pub(super) fn ragged(table: &str) -> ProfileError {
    ProfileError::invalid(table, "(table)", None, "columns differ in length")
}

fn wrong_mask_length(table: &str, mask: usize, rows: usize) -> ProfileError {
    ProfileError::invalid(
        table,
        "(mask)",
        None,
        format!("a mask of {mask} rows for a table of {rows} rows"),
    )
}

/// The row in `samples` of each sample id, for the per-sample tables.
pub(crate) struct SampleRows {
    index: IdIndex,
    len: usize,
}

impl SampleRows {
    /// The rows of `p.samples`, whose ids must be unique.
    pub(crate) fn new(p: &Profile) -> Result<Self> {
        let ids = &p.samples.sample_id;
        let index = IdIndex::try_unique_rows(
            ids,
            |_, _| Ok(()),
            |row, id| {
                invalid(
                    Samples::NAME,
                    "sample_id",
                    row,
                    format!("sample {id} appears more than once"),
                )
            },
        )?;
        Ok(SampleRows {
            index,
            len: ids.len(),
        })
    }

    /// The row of each sample id.
    pub(crate) fn index(&self) -> &IdIndex {
        &self.index
    }

    /// Number of samples.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The `samples` row of each value of `sample_ids`, the `sample_id` column
    /// of the per-sample table `table`; an id that `samples` lacks is an error.
    pub(crate) fn of<'a>(
        &'a self,
        table: &'static str,
        sample_ids: &'a [i32],
    ) -> impl Iterator<Item = Result<usize>> + 'a {
        // Rows of a sample usually come together: each run is looked up once.
        let mut last: Option<(i32, usize)> = None;
        sample_ids
            .iter()
            .enumerate()
            .map(move |(row, &sid)| match last {
                Some((id, s)) if id == sid => Ok(s),
                _ => {
                    let s = self.index.row(sid).ok_or_else(|| {
                        invalid(
                            table,
                            "sample_id",
                            row,
                            format!("sample {sid} is not in samples"),
                        )
                    })?;
                    last = Some((sid, s));
                    Ok(s)
                }
            })
    }

    /// Which rows of a per-sample table belong to a kept sample.
    #[allow(
        clippy::indexing_slicing,
        reason = "positions come from SampleRows, below the samples' mask length (checked by the \
                  caller)"
    )]
    pub(crate) fn rows_kept(
        &self,
        table: &'static str,
        sample_ids: &[i32],
        keep: &[bool],
    ) -> Result<Vec<bool>> {
        let mut out = try_with_capacity(sample_ids.len(), "rows")?;
        for s in self.of(table, sample_ids) {
            out.push(keep[s?]);
        }
        Ok(out)
    }
}

/// Keeps the samples whose row in `samples` is true in `keep` (one flag per
/// row), and the rows of `sample_values`, `sample_locations` and
/// `sample_labels` that belong to them.
pub fn keep_samples(p: &mut Profile, keep: &[bool]) -> Result<()> {
    if keep.len() != p.samples.nrow() {
        return Err(wrong_mask_length(
            Samples::NAME,
            keep.len(),
            p.samples.nrow(),
        ));
    }
    if keep.iter().all(|&k| k) {
        return Ok(());
    }
    let rows = SampleRows::new(p)?;
    let kept = KeptRows::of_samples(p, &rows, keep)?;
    let frames = rows.rows_kept(SampleLocations::NAME, &p.sample_locations.sample_id, keep)?;
    p.sample_locations.retain_rows(&frames);
    kept.apply(p, keep);
    Ok(())
}

/// The rows of `sample_values` and `sample_labels` that belong to kept samples.
struct KeptRows {
    values: Vec<bool>,
    labels: Vec<bool>,
}

impl KeptRows {
    fn of_samples(p: &Profile, rows: &SampleRows, keep: &[bool]) -> Result<Self> {
        Ok(KeptRows {
            values: rows.rows_kept(SampleValues::NAME, &p.sample_values.sample_id, keep)?,
            labels: rows.rows_kept(SampleLabels::NAME, &p.sample_labels.sample_id, keep)?,
        })
    }

    /// Filters `samples` by `keep` and the two tables by these rows.
    fn apply(self, p: &mut Profile, keep: &[bool]) {
        p.samples.retain_rows(keep);
        p.sample_values.retain_rows(&self.values);
        p.sample_labels.retain_rows(&self.labels);
    }
}

/// Keeps the frames whose row in `sample_locations` is true in `keep` (one
/// flag per row); the depths of each stack's remaining frames are renumbered
/// 1..n, innermost first, in their old order. A sample without frames
/// afterwards stays or goes as `empty` says.
pub fn keep_frames(p: &mut Profile, keep: &[bool], empty: EmptyStacks) -> Result<()> {
    let sl = &p.sample_locations;
    if !sl.is_rectangular() {
        return Err(ragged(SampleLocations::NAME));
    }
    if keep.len() != sl.nrow() {
        return Err(wrong_mask_length(
            SampleLocations::NAME,
            keep.len(),
            sl.nrow(),
        ));
    }
    let rows = SampleRows::new(p)?;
    let Renumbered { depth, frames_left } = renumber_depths(&rows, sl, keep)?;
    let dropped_samples: Option<(Vec<bool>, KeptRows)> = match empty {
        EmptyStacks::Drop if frames_left.contains(&0) => {
            let keep_sample = try_collect(frames_left.iter().map(|&n| n > 0), "samples")?;
            let kept = KeptRows::of_samples(p, &rows, &keep_sample)?;
            Some((keep_sample, kept))
        }
        _ => None,
    };
    // Frames of a dropped sample are none of them kept: `keep` covers them.
    let sl = &mut p.sample_locations;
    sl.retain_rows(keep);
    sl.depth = depth;
    if let Some((keep_sample, kept)) = dropped_samples {
        kept.apply(p, &keep_sample);
    }
    Ok(())
}

/// The new depths of the kept frames (in row order) and the number of frames
/// each sample keeps (by `samples` row).
struct Renumbered {
    depth: Vec<i32>,
    frames_left: Vec<u32>,
}

/// Renumbers the depths of the frames `keep` keeps. The readers write each
/// stack's rows in depth order, which one pass handles; other orders are
/// placed by (sample, depth) first.
fn renumber_depths(rows: &SampleRows, sl: &SampleLocations, keep: &[bool]) -> Result<Renumbered> {
    match renumber_in_depth_order(rows, sl, keep)? {
        Some(done) => Ok(done),
        None => renumber_in_any_order(rows, sl, keep),
    }
}

/// One pass, when every row's depth is one more than the rows of its sample
/// seen before it (each stack's rows in depth order; stacks may interleave).
/// None if a row breaks that order.
#[allow(
    clippy::indexing_slicing,
    reason = "positions of samples come from SampleRows (below rows.len()); rows below nrow() of a \
              table checked rectangular; keep has one flag per row (checked by the caller)"
)]
fn renumber_in_depth_order(
    rows: &SampleRows,
    sl: &SampleLocations,
    keep: &[bool],
) -> Result<Option<Renumbered>> {
    let mut seen = try_filled(rows.len(), 0u32, "samples")?;
    let mut frames_left = try_filled(rows.len(), 0u32, "samples")?;
    let mut depth = try_with_capacity(keep.iter().filter(|&&k| k).count(), "frames")?;
    for (row, s) in rows.of(SampleLocations::NAME, &sl.sample_id).enumerate() {
        let s = s?;
        seen[s] += 1;
        if i64::from(sl.depth[row]) != i64::from(seen[s]) {
            return Ok(None);
        }
        if keep[row] {
            frames_left[s] += 1;
            depth.push(frames_left[s] as i32);
        }
    }
    Ok(Some(Renumbered { depth, frames_left }))
}

/// Walks each stack in depth order, whatever the order of its rows.
#[allow(
    clippy::indexing_slicing,
    reason = "rows come from StackOrder (rows of sample_locations), positions below rows.len(); \
              keep has one flag per row"
)]
fn renumber_in_any_order(
    rows: &SampleRows,
    sl: &SampleLocations,
    keep: &[bool],
) -> Result<Renumbered> {
    let order = StackOrder::new(rows, sl)?;
    let mut new_depth = try_filled(sl.nrow(), 0i32, "frames")?;
    let mut frames_left = try_filled(rows.len(), 0u32, "samples")?;
    for (s, left) in frames_left.iter_mut().enumerate() {
        for &row in order.stack(s) {
            if keep[row] {
                *left += 1;
                new_depth[row] = *left as i32;
            }
        }
    }
    let mut depth = try_with_capacity(keep.iter().filter(|&&k| k).count(), "frames")?;
    depth.extend(
        new_depth
            .into_iter()
            .zip(keep)
            .filter(|(_, &k)| k)
            .map(|(d, _)| d),
    );
    Ok(Renumbered { depth, frames_left })
}

/// The rows of `sample_locations` of each sample in depth order, innermost
/// frame first, whatever the order of the rows.
pub(crate) struct StackOrder {
    /// Where each sample's rows start in `rows` (by `samples` row; one more
    /// entry at the end).
    start: Vec<usize>,
    rows: Vec<usize>,
}

impl StackOrder {
    /// Places each row by (sample, depth); the depths of each sample must run
    /// 1..n.
    #[allow(
        clippy::indexing_slicing,
        reason = "positions below rows.len() (start has one more); slots below the rows (start[s] \
                  + depth - 1, the depth checked against the sample's frames)"
    )]
    pub(crate) fn new(rows: &SampleRows, sl: &SampleLocations) -> Result<Self> {
        if !sl.is_rectangular() {
            return Err(ragged(SampleLocations::NAME));
        }
        let row_sample: Vec<usize> = try_collect_ok(
            rows.of(SampleLocations::NAME, &sl.sample_id),
            sl.nrow(),
            "frames",
        )?;
        let mut start = try_filled(rows.len() + 1, 0usize, "samples")?;
        for &s in &row_sample {
            start[s + 1] += 1;
        }
        for s in 0..rows.len() {
            start[s + 1] += start[s];
        }
        const UNSET: usize = usize::MAX;
        let mut by_depth = try_filled(row_sample.len(), UNSET, "frames")?;
        for (row, &s) in row_sample.iter().enumerate() {
            let frames = start[s + 1] - start[s];
            let slot = usize::try_from(sl.depth[row])
                .ok()
                .filter(|d| (1..=frames).contains(d))
                .map(|d| start[s] + d - 1)
                .ok_or_else(|| {
                    invalid(
                        SampleLocations::NAME,
                        "depth",
                        row,
                        "the depths of a sample must run 1..n",
                    )
                })?;
            if by_depth[slot] != UNSET {
                return Err(invalid(
                    SampleLocations::NAME,
                    "depth",
                    row,
                    "depth repeated within a sample",
                ));
            }
            by_depth[slot] = row;
        }
        Ok(StackOrder {
            start,
            rows: by_depth,
        })
    }

    /// The rows of the sample at row `s` of `samples`, by depth.
    #[allow(
        clippy::indexing_slicing,
        reason = "s is a position of a sample; start has one entry more than the samples"
    )]
    pub(crate) fn stack(&self, s: usize) -> &[usize] {
        &self.rows[self.start[s]..self.start[s + 1]]
    }
}
