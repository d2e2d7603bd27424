//! The verbs, as `go tool pprof` applies its flags (`FilterSamplesByName`,
//! `ShowFrom` and `PruneFrom` in Go's `profile/filter.go` and
//! `profile/prune.go`), each given the flags of the locations its pattern
//! matched (one per row of `locations`). Each returns whether the pattern
//! matched a frame of some sample (Go warns when a pattern matches nothing).

use super::keep::{keep_frames, keep_samples, EmptyStacks};
use super::matching::{frames_cut_at_match, location_lines_kept, Cut};
use super::matching::{frames_in, samples_with_frame_in, some_whole_location, LocationSet};
use crate::error::Result;
use crate::model::Profile;

/// Verbs that keep or drop whole samples by their frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleFilter {
    /// Keep the samples that have a matching frame (`-focus`).
    Focus,
    /// Drop the samples that have a matching frame (`-ignore`). A sample
    /// without frames has none, and stays.
    Ignore,
}

impl SampleFilter {
    /// Applies the filter to `p`, `matched` holding one flag per row of
    /// `p.locations`; returns whether some sample has a matching frame.
    pub fn apply(self, p: &mut Profile, matched: &[bool]) -> Result<bool> {
        let set = LocationSet::new(&p.locations.location_id, matched)?;
        let mut keep = samples_with_frame_in(p, &set)?;
        let any_match = keep.contains(&true);
        if self == SampleFilter::Ignore {
            keep.iter_mut().for_each(|k| *k = !*k);
        }
        keep_samples(p, &keep)?;
        Ok(any_match)
    }
}

/// Verbs that keep some frames of every stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameFilter {
    /// Remove the matching frames (`-hide`).
    Hide,
    /// Keep only the matching frames (`-show`).
    Show,
    /// Keep the outermost matching frame and the frames it calls, and drop
    /// the samples without a matching frame (`-show_from`).
    ShowFrom,
    /// Drop the frames the innermost matching frame calls (`-prune_from`).
    PruneFrom,
}

impl FrameFilter {
    /// Applies the filter to `p`, `matched` holding one flag per row of
    /// `p.locations`; returns whether a frame of some sample matched.
    ///
    /// Hide and show: as in Go, the samples left without frames are dropped
    /// when the filter removed a whole pprof Location (any frame, for Rprof),
    /// and kept otherwise. Show from and prune from cut each stack at its
    /// outermost or innermost matching frame, and first cut the lines of each
    /// pprof Location with a matching line as Go does
    /// ([`location_lines_kept`]).
    pub fn apply(self, p: &mut Profile, matched: &[bool]) -> Result<bool> {
        let set = LocationSet::new(&p.locations.location_id, matched)?;
        let matched_frames = frames_in(p, &set)?;
        let any_match = matched_frames.contains(&true);
        let (keep, empty) = match self {
            FrameFilter::Hide | FrameFilter::Show => {
                let keep_matching = self == FrameFilter::Show;
                let mut keep = matched_frames;
                if !keep_matching {
                    keep.iter_mut().for_each(|k| *k = !*k);
                }
                let empty = if some_whole_location(p, &set, !keep_matching)? {
                    EmptyStacks::Drop
                } else {
                    EmptyStacks::Keep
                };
                (keep, empty)
            }
            FrameFilter::ShowFrom => (
                cut_stacks(p, &set, Cut::CallersOfOutermostMatch)?,
                EmptyStacks::Drop,
            ),
            FrameFilter::PruneFrom => (
                cut_stacks(p, &set, Cut::CalleesOfInnermostMatch)?,
                EmptyStacks::Keep,
            ),
        };
        keep_frames(p, &keep, empty)?;
        Ok(any_match)
    }
}

/// The frames that Go's cut of the stacks at their matching frames keeps: on
/// the kept side of the cut, and not cut out of their pprof Location.
fn cut_stacks(p: &Profile, set: &LocationSet, cut: Cut) -> Result<Vec<bool>> {
    let mut keep = frames_cut_at_match(p, set, cut)?;
    let lines = location_lines_kept(p, set, cut)?;
    keep.iter_mut().zip(lines).for_each(|(k, line)| *k &= line);
    Ok(keep)
}
