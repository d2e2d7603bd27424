//! The verbs, as `go tool pprof` applies its flags (`FilterSamplesByName` in
//! Go's `profile/filter.go`), each given the flags of the locations its
//! pattern matched (one per row of `locations`).

use super::keep::{keep_frames, keep_samples, EmptyStacks};
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
    /// `p.locations`.
    pub fn apply(self, p: &mut Profile, matched: &[bool]) -> Result<()> {
        let set = LocationSet::new(&p.locations.location_id, matched)?;
        let mut keep = samples_with_frame_in(p, &set)?;
        if self == SampleFilter::Ignore {
            keep.iter_mut().for_each(|k| *k = !*k);
        }
        keep_samples(p, &keep)
    }
}

/// Verbs that keep some frames of every stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameFilter {
    /// Remove the matching frames (`-hide`).
    Hide,
    /// Keep only the matching frames (`-show`).
    Show,
}

impl FrameFilter {
    /// Applies the filter to `p`, `matched` holding one flag per row of
    /// `p.locations`. As in Go, the samples left without frames are dropped
    /// when the filter removed a whole pprof Location (any frame, for Rprof),
    /// and kept otherwise.
    pub fn apply(self, p: &mut Profile, matched: &[bool]) -> Result<()> {
        let set = LocationSet::new(&p.locations.location_id, matched)?;
        let keep_matching = self == FrameFilter::Show;
        let mut keep = frames_in(p, &set);
        if !keep_matching {
            keep.iter_mut().for_each(|k| *k = !*k);
        }
        let empty = if some_whole_location(p, &set, !keep_matching)? { EmptyStacks::Drop } else { EmptyStacks::Keep };
        keep_frames(p, &keep, empty)
    }
}
