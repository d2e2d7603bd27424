//! Verbs from profile to profile (`profile_focus()`, `profile_hide()` and the
//! others in R), with `go tool pprof`'s semantics.
//!
//! A verb decides which samples stay and which frames of their stacks stay;
//! two primitives apply the decision to the columns, in linear time:
//!
//! - [`keep_samples`]: a mask over the rows of `samples`. The rows of the
//!   per-sample tables (`sample_values`, `sample_locations`, `sample_labels`)
//!   go with their sample, and every column of `samples` is filtered alike
//!   (extension columns included).
//! - [`keep_frames`]: a mask over the rows of `sample_locations`. Stacks lose
//!   the other frames, the depths of what is left are renumbered 1..n in their
//!   order, and a sample left without frames stays or goes as [`EmptyStacks`]
//!   says (Go keeps it in some verbs and drops it in others).
//!
//! Which frames a verb looks at comes from a pattern ([`Pattern`]: Go's
//! regular expressions, RE2), matched once against each distinct text that
//! [`LocationTexts`] lists for the locations, which gives one flag per row of
//! `locations`: a [`LocationSet`]. [`samples_with_frame_in`], [`frames_in`] and
//! [`frames_cut_at_match`] turn a set into the masks the primitives take, and
//! [`some_whole_location`] answers Go's question of whether a verb removed a
//! pprof Location entirely (then Go drops the samples left without frames).
//!
//! The verbs themselves ([`SampleFilter`], [`FrameFilter`]) are a few lines
//! each on top of these. A new verb is a new variant there (or a new filter
//! of the same shape) built from the same primitives; see "Adding a verb" in
//! `dev/ARCHITECTURE.md`.
//!
//! Rows of `locations`, `functions` and `mappings` are never dropped, even
//! when no sample uses them any more: ids stay those of the input, so a result
//! can be joined with its input, and the tables are not copied. The writers
//! and summaries only look at the frames samples use.
//!
//! Nothing is validated beforehand (that would cost as much again as the
//! verb): the primitives check what they rely on (sample ids unique and known,
//! depths 1..n per sample, mask lengths) and return an error, leaving the
//! profile unchanged, when that does not hold. A valid profile gives a valid
//! result.

mod aggregate;
mod keep;
mod labels;
mod matching;
mod pattern;
mod pattern_verbs;
mod select_types;
pub mod units;
mod values;

pub use aggregate::aggregate;
pub use keep::{keep_frames, keep_samples, EmptyStacks};
pub use labels::{
    filter_by_labels, LabelCondition, LabelFilter, LabelMatches, LabelPairs, LabelTest,
    NumericRange,
};
pub use matching::{
    frames_cut_at_match, frames_in, samples_with_frame_in, some_whole_location, Cut, LocationSet,
    LocationTexts, TextKind,
};
pub use matching::{location_lines_kept, simple_name};
pub use pattern::{matching_texts, Pattern};
pub use pattern_verbs::{FrameFilter, SampleFilter};
pub use select_types::keep_sample_types;
pub use values::{diff, scale_values, set_unit, time_window, AfterX, DiffInputs, DIFF_BASE_LABEL};

#[cfg(test)]
mod tests;
