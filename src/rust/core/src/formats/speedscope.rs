//! speedscope's JSON file format (<https://www.speedscope.app/file-format-schema.json>):
//! one "sampled" profile per sample type and source, frames shared by all of
//! them. Samples of a source that all have a time keep their time order, runs of
//! equal consecutive stacks merged into one weighted sample (what speedscope's
//! time-ordered view merges anyway); other sources' equal stacks are summed, in
//! order of first appearance. Samples whose value is 0 are left out.
//!
//! speedscope draws no negative weights: the base sources of a diff profile
//! (whose values are negated) are written with their values as they were before
//! negation, in profiles named as the base's.

use crate::error::{ProfileError, Result};
use crate::io::json::{push_number, push_string};
use crate::model::id_index::IdGroups;
use crate::ops::sample_set::SampleSet;
use rustc_hash::FxHashMap;
use std::io::Write;
use std::path::Path;

/// The frames (one per distinct function, file and line) and the names of what
/// the file holds.
#[derive(Debug, Clone, Copy)]
pub struct SpeedscopeLabels<'a> {
    /// Frames: name, file ("" unknown) and line (0 unknown).
    pub frame_name: &'a [String],
    pub frame_file: &'a [String],
    pub frame_line: &'a [i32],
    /// The frame (0-based) of each row of `locations`.
    pub location_frame: &'a [u32],
    /// The gathered sample types (in the sample set's order) and their units.
    pub type_name: &'a [String],
    pub type_unit: &'a [String],
    /// The profile shown first: the first of this type (0-based).
    pub default_type: usize,
    /// Sources: id, the name their profiles carry, and whether a source is the
    /// base of a diff.
    pub source_id: &'a [i32],
    pub source_name: &'a [String],
    pub source_is_base: &'a [bool],
    /// The file's `name` and `exporter`.
    pub name: &'a str,
    pub exporter: &'a str,
}

/// One profile: stacks of frames (root first, as speedscope wants them) with
/// their weights.
#[derive(Debug, Default, PartialEq)]
struct SampledProfile {
    name: String,
    unit: &'static str,
    stack_start: Vec<usize>,
    frames: Vec<u32>,
    weight: Vec<f64>,
}

impl SampledProfile {
    #[allow(
        clippy::indexing_slicing,
        reason = "i is a stack of the profile: stack_start has an entry per stack"
    )]
    fn stack(&self, i: usize) -> &[u32] {
        let end = self
            .stack_start
            .get(i + 1)
            .copied()
            .unwrap_or(self.frames.len());
        self.frames.get(self.stack_start[i]..end).unwrap_or(&[])
    }

    fn push(&mut self, stack: &[u32], weight: f64) {
        self.stack_start.push(self.frames.len());
        self.frames.extend_from_slice(stack);
        self.weight.push(weight);
    }
}

/// speedscope's unit for ours ("none" for counts and anything it lacks).
fn speedscope_unit(unit: &str) -> &'static str {
    match unit {
        "nanoseconds" => "nanoseconds",
        "microseconds" => "microseconds",
        "milliseconds" => "milliseconds",
        "seconds" => "seconds",
        "bytes" => "bytes",
        _ => "none",
    }
}

fn check_labels(samples: &SampleSet, labels: &SpeedscopeLabels<'_>) -> Result<()> {
    let n_frames = labels.frame_name.len();
    let consistent = labels.frame_file.len() == n_frames
        && labels.frame_line.len() == n_frames
        && labels.type_name.len() == samples.n_types
        && labels.type_unit.len() == samples.n_types
        && labels.source_name.len() == labels.source_id.len()
        && labels.source_is_base.len() == labels.source_id.len()
        && labels.location_frame.len() == samples.n_locations;
    if !consistent {
        return Err(ProfileError::argument(
            "labels of frames, types or sources differ in length",
        ));
    }
    if let Some(row) = labels
        .location_frame
        .iter()
        .position(|&f| f as usize >= n_frames)
    {
        return Err(ProfileError::invalid(
            "locations",
            "(frame)",
            Some(row + 1),
            "frame out of range",
        ));
    }
    Ok(())
}

/// The profile of type `t` of the samples at `positions` (one source).
#[allow(
    clippy::indexing_slicing,
    reason = "positions come from the sample set; location rows are checked against location_frame \
              by check_labels; j and last are stacks of the profile"
)]
fn sampled_profile(
    samples: &SampleSet,
    labels: &SpeedscopeLabels<'_>,
    t: usize,
    positions: &[usize],
    negated: bool,
) -> SampledProfile {
    let mut profile = SampledProfile::default();
    let in_time_order = positions.iter().all(|&i| !samples.time[i].is_nan());
    let mut seen: FxHashMap<Vec<u32>, usize> = FxHashMap::default();
    let mut stack: Vec<u32> = Vec::new();
    for &i in positions {
        let w = samples.weight(t, i);
        if w == 0.0 {
            continue;
        }
        let w = if negated { -w } else { w };
        stack.clear();
        // Location rows were checked against `location_frame` by `check_labels`.
        stack.extend(
            samples
                .stack(i)
                .iter()
                .rev()
                .map(|&row| labels.location_frame[row as usize]),
        );
        let last = profile.weight.len().checked_sub(1);
        if in_time_order {
            match last {
                Some(last) if profile.stack(last) == stack.as_slice() => profile.weight[last] += w,
                _ => profile.push(&stack, w),
            }
        } else if let Some(&j) = seen.get(&stack) {
            profile.weight[j] += w;
        } else {
            seen.insert(stack.clone(), profile.weight.len());
            profile.push(&stack, w);
        }
    }
    profile
}

/// Every non-empty profile: for each sample type, one per source.
#[allow(
    clippy::indexing_slicing,
    reason = "t is below n_types and k a source position, whose labels check_labels matched in \
              length"
)]
fn sampled_profiles(
    samples: &SampleSet,
    labels: &SpeedscopeLabels<'_>,
) -> Result<Vec<(usize, SampledProfile)>> {
    // The positions of the samples of each source, sources in order of first
    // appearance.
    let groups = IdGroups::try_of(&samples.source)?.into_groups();
    let mut profiles = Vec::new();
    for t in 0..samples.n_types {
        for (source, positions) in &groups {
            let at = labels.source_id.iter().position(|s| s == source);
            let is_base = at.is_some_and(|k| labels.source_is_base[k]);
            let mut profile = sampled_profile(samples, labels, t, positions, is_base);
            if profile.weight.is_empty() {
                continue;
            }
            let source_name = at.map_or_else(
                || format!("source {source}"),
                |k| labels.source_name[k].clone(),
            );
            profile.name = format!(
                "{} ({}){}: {}",
                labels.type_name[t],
                labels.type_unit[t],
                if is_base { ", diff base" } else { "" },
                source_name
            );
            profile.unit = speedscope_unit(&labels.type_unit[t]);
            profiles.push((t, profile));
        }
    }
    Ok(profiles)
}

/// Writes the speedscope file of `samples`.
#[allow(
    clippy::indexing_slicing,
    reason = "f is below frame_name.len(), which check_labels matched frame_file and frame_line to"
)]
pub fn write_speedscope(
    samples: &SampleSet,
    labels: &SpeedscopeLabels<'_>,
    w: &mut dyn Write,
) -> Result<()> {
    check_labels(samples, labels)?;
    let profiles = sampled_profiles(samples, labels)?;
    let active = profiles
        .iter()
        .position(|(t, _)| *t == labels.default_type)
        .unwrap_or(0);
    let mut out = String::new();
    out.push_str(
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":",
    );
    push_string(&mut out, labels.exporter);
    out.push_str(",\"name\":");
    push_string(&mut out, labels.name);
    out.push_str(&format!(
        ",\"activeProfileIndex\":{active},\"shared\":{{\"frames\":["
    ));
    for (f, name) in labels.frame_name.iter().enumerate() {
        out.push_str(if f == 0 { "{\"name\":" } else { ",{\"name\":" });
        push_string(&mut out, name);
        if !labels.frame_file[f].is_empty() {
            out.push_str(",\"file\":");
            push_string(&mut out, &labels.frame_file[f]);
        }
        if labels.frame_line[f] > 0 {
            out.push_str(&format!(",\"line\":{}", labels.frame_line[f]));
        }
        out.push('}');
    }
    out.push_str("]},\"profiles\":[");
    for (k, (_, profile)) in profiles.iter().enumerate() {
        if k > 0 {
            out.push(',');
        }
        push_profile(&mut out, profile, w)?;
    }
    out.push_str("]}\n");
    w.write_all(out.as_bytes())?;
    Ok(())
}

/// Appends a profile to `out`, handing full chunks of text on to `w`.
fn push_profile(out: &mut String, profile: &SampledProfile, w: &mut dyn Write) -> Result<()> {
    const CHUNK: usize = 1 << 20;
    let total: f64 = profile.weight.iter().sum();
    out.push_str("{\"type\":\"sampled\",\"name\":");
    push_string(out, &profile.name);
    out.push_str(&format!(
        ",\"unit\":\"{}\",\"startValue\":0,\"endValue\":",
        profile.unit
    ));
    push_number(out, total);
    out.push_str(",\"samples\":[");
    for i in 0..profile.weight.len() {
        out.push_str(if i == 0 { "[" } else { ",[" });
        for (d, &frame) in profile.stack(i).iter().enumerate() {
            if d > 0 {
                out.push(',');
            }
            out.push_str(itoa::Buffer::new().format(frame));
        }
        out.push(']');
        if out.len() > CHUNK {
            w.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    out.push_str("],\"weights\":[");
    for (i, &weight) in profile.weight.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_number(out, weight);
        if out.len() > CHUNK {
            w.write_all(out.as_bytes())?;
            out.clear();
        }
    }
    out.push_str("]}");
    Ok(())
}

/// Writes the speedscope file of `samples` to `path` atomically.
pub fn write_file(samples: &SampleSet, labels: &SpeedscopeLabels<'_>, path: &Path) -> Result<()> {
    crate::io::output::write_atomic(path, |w| write_speedscope(samples, labels, w))
}

#[cfg(test)]
mod tests;
