//! The frames of many samples in one vector (compressed rows): what the
//! summaries, the writers (pprof, OTLP, Rprofmem) and the verbs on values
//! place stack rows into, in linear time; [`Profile::sample_frames`] walks the
//! stacks of a profile's `sample_locations` into it.

use crate::error::{ProfileError, Result};
use crate::model::id_index::IdIndex;
use crate::model::Profile;
use crate::resources::alloc::{try_filled, try_with_capacity};

/// The error of a bad row of `sample_locations` (rows numbered from 1, as R's).
fn invalid(table: &str, column: &str, row: usize, message: impl Into<String>) -> ProfileError {
    ProfileError::invalid(table, column, Some(row + 1), message)
}

impl Profile {
    /// The frames of the samples of the profile (each sample at its row of
    /// `samples`, indexed by `samples`), innermost first, from
    /// `sample_locations`: a frame is the number `frame_of` gives its location
    /// id (a row of `locations`, a function's name; `None` for a location that
    /// is not in the profile, an error). The stack walk of the writers.
    pub(crate) fn sample_frames(
        &self,
        samples: &IdIndex,
        frame_of: impl Fn(i32) -> Option<u32>,
    ) -> Result<SampleFrames> {
        let sl = &self.sample_locations;
        SampleFrames::gather(
            &sl.sample_id,
            &sl.depth,
            &sl.location_id,
            samples,
            self.samples.nrow(),
            frame_of,
        )
    }
}

/// The frames of samples, innermost first, in compressed rows: the frames of
/// sample `i` are `frames[offsets[i]..offsets[i + 1]]`. A frame is whatever the
/// caller numbers locations by (a key for summaries, a row of `locations` for the
/// pprof writer).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SampleFrames {
    offsets: Vec<usize>,
    pub(crate) frames: Vec<u32>,
}

impl SampleFrames {
    /// Places the stack rows (`sample_locations` columns) sample by sample: the
    /// sample of a row is its position in `samples` (rows of samples not in it are
    /// left out), the frame the number `frame_of` gives its location. A counting
    /// pass, then each row goes straight to its slot: O(rows), no sort. Depths
    /// must run 1..n per sample.
    #[allow(
        clippy::indexing_slicing,
        reason = "a sample position s below n_samples has offsets s and s + 1; slots are below the \
                  rows counted"
    )]
    pub(crate) fn gather(
        sample_id: &[i32],
        depth: &[i32],
        location_id: &[i32],
        samples: &IdIndex,
        n_samples: usize,
        frame_of: impl Fn(i32) -> Option<u32>,
    ) -> Result<SampleFrames> {
        let (offsets, row_sample) = Self::count(sample_id, samples, n_samples)?;
        const UNSET: u32 = u32::MAX;
        let mut frames = try_filled(offsets.last().copied().unwrap_or(0), UNSET, "frames")?;
        let rows = row_sample.iter().zip(depth).zip(location_id).enumerate();
        for (row, ((s, &depth), &lid)) in rows {
            let Some(s) = *s else { continue };
            let s = s as usize;
            let (start, end) = (offsets[s], offsets[s + 1]);
            let slot = usize::try_from(depth)
                .ok()
                .filter(|d| (1..=end - start).contains(d))
                .map(|d| start + d - 1)
                .ok_or_else(|| {
                    invalid(
                        "sample_locations",
                        "depth",
                        row,
                        "the depths of a sample must run 1..n",
                    )
                })?;
            if frames[slot] != UNSET {
                return Err(invalid(
                    "sample_locations",
                    "depth",
                    row,
                    "depth repeated within a sample",
                ));
            }
            frames[slot] = frame_of(lid).ok_or_else(|| {
                invalid(
                    "sample_locations",
                    "location_id",
                    row,
                    format!("location {lid} is not in locations"),
                )
            })?;
        }
        Ok(SampleFrames { offsets, frames })
    }

    /// The start of each sample's frames (and the end of the last), and the
    /// sample of each row.
    fn count(
        sample_id: &[i32],
        samples: &IdIndex,
        n_samples: usize,
    ) -> Result<(Vec<usize>, Vec<Option<u32>>)> {
        let mut counts = try_filled(n_samples, 0usize, "samples")?;
        let mut row_sample = try_with_capacity(sample_id.len(), "frames")?;
        // Rows of a sample usually come together: look each sample up once.
        let mut last: Option<(i32, Option<u32>)> = None;
        for &sid in sample_id {
            let s = match last {
                Some((id, s)) if id == sid => s,
                _ => {
                    let s = samples.get(sid);
                    last = Some((sid, s));
                    s
                }
            };
            if let Some(c) = s.and_then(|s| counts.get_mut(s as usize)) {
                *c += 1;
            }
            row_sample.push(s);
        }
        let mut offsets = try_with_capacity(n_samples + 1, "samples")?;
        let mut total = 0usize;
        offsets.push(0);
        for &c in &counts {
            total += c;
            offsets.push(total);
        }
        Ok((offsets, row_sample))
    }

    /// Frames of sample `i`, innermost first.
    pub(crate) fn of(&self, i: usize) -> &[u32] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => self.frames.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Keeps the frames for which `keep` is true, in their order.
    pub(crate) fn retain(&mut self, keep: impl Fn(u32) -> bool) {
        let mut kept = Vec::with_capacity(self.frames.len());
        let mut offsets = Vec::with_capacity(self.offsets.len());
        offsets.push(0);
        for i in 0..self.offsets.len().saturating_sub(1) {
            kept.extend(self.of(i).iter().copied().filter(|&f| keep(f)));
            offsets.push(kept.len());
        }
        self.frames = kept;
        self.offsets = offsets;
    }
}
