//! Verbs on the values of samples: [`scale_values`] (`profile_scale()`),
//! [`aggregate`] (`profile_aggregate()`: one sample per distinct stack and
//! labels) and [`diff`] (`profile_diff()`: the base's values negated and
//! combined with the other profile, as `go tool pprof -diff_base` does) and
//! [`time_window`] (`profile_window()`: the samples taken in an interval of time).

use super::keep::{keep_samples, ragged, SampleRows};
use crate::combine::{combine, CombineOptions};
use crate::error::{ProfileError, Result};
use crate::id_index::IdIndex;
use crate::identity::{first_equal_samples, LabelRows};
use crate::model::{Profile, SampleLabels, SampleLocations, SampleValues, Samples, StrId, NA_INT};
use crate::schema::GAUGE_TYPES;
use crate::summary::SampleFrames;
use rustc_hash::{FxHashMap, FxHashSet};

/// Multiplies the values of the sample types named in `types` (every type
/// when None) by `factor`, which must be a finite number. Each type must be one
/// the profile has (in `sample_values` or declared in `sample_types`). Samples
/// keep their values as doubles: nothing is rounded, and a sample whose
/// values become 0 stays (Go's `Scale` rounds to integers and drops it).
pub fn scale_values(p: &mut Profile, factor: f64, types: Option<&[&str]>) -> Result<()> {
    if !factor.is_finite() {
        return Err(ProfileError::argument(format!(
            "the factor must be a finite number, not {factor}"
        )));
    }
    if !p.sample_values.is_rectangular() {
        return Err(ragged(SampleValues::NAME));
    }
    let chosen = match types {
        None => None,
        Some(names) => Some(type_ids(p, names)?),
    };
    let sv = &mut p.sample_values;
    match chosen {
        None => sv.value.iter_mut().for_each(|v| *v *= factor),
        Some(ids) => {
            for (v, t) in sv.value.iter_mut().zip(&sv.value_type) {
                if ids.contains(t) {
                    *v *= factor;
                }
            }
        }
    }
    Ok(())
}

/// The string ids of the sample types `names`, each of which the profile has.
fn type_ids(p: &Profile, names: &[&str]) -> Result<FxHashSet<StrId>> {
    let mut present: FxHashSet<StrId> = p.sample_types.value_type.iter().copied().collect();
    let mut last = StrId::NA;
    for &t in &p.sample_values.value_type {
        // Rows come in runs of few types: insert each change only.
        if t != last {
            present.insert(t);
            last = t;
        }
    }
    names
        .iter()
        .map(|&name| {
            p.strings
                .lookup(name)
                .filter(|id| present.contains(id))
                .ok_or_else(|| {
                    ProfileError::argument(format!("the profile has no sample type \"{name}\""))
                })
        })
        .collect()
}

/// Merges the samples of each source that have the same stack and labels
/// (the writers' rule, `identity.rs`) into the first of them, which keeps its
/// id and row; the others go. Values of a type are summed, except gauges (the
/// heap sizes of Rprof's memory profiling, a level at each sample), which
/// keep the largest value. A type that only a later sample of a group has is
/// added to the first sample. A merged sample's `time` is NA (it was taken at
/// several times); a sample merged with no other keeps its time. The result
/// has the same total of each summable type. A type in two units within one
/// group (samples of one stack) is an error of kind `unsupported`: such
/// values cannot be added.
pub fn aggregate(p: &mut Profile) -> Result<()> {
    let rows = SampleRows::new(p)?;
    let locations = IdIndex::try_first_rows(&p.locations.location_id)?;
    for (table, rectangular) in [
        (SampleLocations::NAME, p.sample_locations.is_rectangular()),
        (SampleValues::NAME, p.sample_values.is_rectangular()),
        (SampleLabels::NAME, p.sample_labels.is_rectangular()),
    ] {
        if !rectangular {
            return Err(ragged(table));
        }
    }
    let sl = &p.sample_locations;
    let stacks = SampleFrames::gather(
        &sl.sample_id,
        &sl.depth,
        &sl.location_id,
        rows.index(),
        rows.len(),
        |l| locations.get(l),
    )?;
    let labels = LabelRows::new(p, rows.index());
    // Source ids are compared as they are: the bits of any i32 make a scope.
    let source_id = &p.samples.source_id;
    let first = first_equal_samples(p, &stacks, &labels, |pos| {
        source_id.get(pos).map(|&s| s as u32 as usize)
    });
    drop(stacks);
    if first.iter().enumerate().all(|(pos, &f)| f == pos) {
        return Ok(());
    }
    let value_samples: Vec<usize> = rows
        .of(SampleValues::NAME, &p.sample_values.sample_id)
        .collect::<Result<_>>()?;
    merge_values(p, &first, &value_samples)?;
    let keep: Vec<bool> = first.iter().enumerate().map(|(pos, &f)| f == pos).collect();
    // A merged sample stands for several moments: it has no time of its own.
    if p.samples.time.len() == keep.len() {
        for (pos, &f) in first.iter().enumerate() {
            if let Some(time) = p.samples.time.get_mut(f).filter(|_| f != pos) {
                *time = f64::NAN;
            }
        }
    }
    keep_samples(p, &keep)
}

/// Adds the values of each merged sample (`first[pos] != pos`) to those of its
/// first sample, by type; `value_samples` is the sample of each row of
/// `sample_values`. The merged samples' rows stay, for `keep_samples` to drop
/// with their samples. A type in two units in one group is an error, and
/// leaves the profile as it was.
fn merge_values(p: &mut Profile, first: &[usize], value_samples: &[usize]) -> Result<()> {
    let (row_type, distinct_types) = dense_types(&p.sample_values.value_type);
    let slots = MergeSlots::new(first, row_type, distinct_types.len())?;
    // First pass: where each merged row goes, and the errors (nothing changes).
    let targets = merge_targets(p, &slots, value_samples)?;
    let gauges: FxHashSet<StrId> = GAUGE_TYPES
        .iter()
        .filter_map(|g| p.strings.lookup(g))
        .collect();
    let is_gauge: Vec<bool> = distinct_types.iter().map(|t| gauges.contains(t)).collect();
    // Second pass: the added rows, then the other merged rows' values.
    add_merged_values(p, &slots, value_samples, &targets, &is_gauge);
    Ok(())
}

/// Dense numbers for the types and for the groups of samples (their first
/// samples), so that the row of (group, type) is an index, not a hash lookup
/// per row.
struct MergeSlots<'a> {
    /// The first sample of each sample's group (positions of samples).
    first: &'a [usize],
    /// The group of each first sample ([`NO_ROW`] for the others).
    group: Vec<u32>,
    /// The type of each row of `sample_values`, below `n_types`.
    row_type: Vec<u32>,
    n_types: usize,
    /// Groups times types.
    n_slots: usize,
}

impl<'a> MergeSlots<'a> {
    fn new(first: &'a [usize], row_type: Vec<u32>, n_types: usize) -> Result<Self> {
        let mut group = vec![NO_ROW; first.len()];
        let mut n_groups = 0u32;
        for ((pos, &f), g) in first.iter().enumerate().zip(&mut group) {
            if f == pos {
                *g = n_groups;
                n_groups += 1;
            }
        }
        let n_slots = (n_groups as usize)
            .checked_mul(n_types)
            .filter(|&n| n <= u32::MAX as usize)
            .ok_or_else(|| ProfileError::limit("too many samples and sample types to aggregate"))?;
        Ok(MergeSlots {
            first,
            group,
            row_type,
            n_types,
            n_slots,
        })
    }

    /// Whether sample `s` is the first of its group.
    fn is_first(&self, s: usize) -> bool {
        self.first.get(s) == Some(&s)
    }

    /// The first sample of sample `s`'s group.
    fn first_of(&self, s: usize) -> usize {
        self.first.get(s).copied().unwrap_or(s)
    }

    /// The slot of row `row` of `sample_values`, a row of sample `s`.
    #[allow(
        clippy::indexing_slicing,
        reason = "s is a position of a sample and first[s] the position of a first sample, \
                  which has a group; row is a row of sample_values"
    )]
    fn slot(&self, s: usize, row: usize) -> usize {
        self.group[self.first[s]] as usize * self.n_types + self.row_type[row] as usize
    }
}

/// Where the values of the merged rows go: the row of each (group, type) slot,
/// one of the first sample's rows or one added after the last row, and the
/// merged row each added row is copied from.
struct MergeTargets {
    row_of: Vec<u32>,
    added_from: Vec<usize>,
}

/// The first pass of [`merge_values`]: the targets, or the error of a type in
/// two units within a group.
#[allow(
    clippy::indexing_slicing,
    reason = "slots are below n_slots; rows of sample_values below n_rows, and the targets \
              past them index added_from, which holds one row per target added"
)]
fn merge_targets(
    p: &Profile,
    slots: &MergeSlots<'_>,
    value_samples: &[usize],
) -> Result<MergeTargets> {
    let sv = &p.sample_values;
    let mut row_of = vec![NO_ROW; slots.n_slots];
    for (row, &s) in value_samples.iter().enumerate() {
        if slots.is_first(s) {
            row_of[slots.slot(s, row)] = row as u32;
        }
    }
    let n_rows = sv.nrow();
    let mut added_from: Vec<usize> = Vec::new();
    for (row, &s) in value_samples.iter().enumerate() {
        if slots.is_first(s) {
            continue;
        }
        let at = slots.slot(s, row);
        if row_of[at] == NO_ROW {
            // Its first sample has no value of this type: it gets this one.
            row_of[at] = u32::try_from(n_rows + added_from.len())
                .map_err(|_| ProfileError::limit("too many sample values to aggregate"))?;
            added_from.push(row);
            continue;
        }
        let into = row_of[at] as usize;
        let unit_of_into = if into < n_rows {
            sv.unit[into]
        } else {
            sv.unit[added_from[into - n_rows]]
        };
        if unit_of_into != sv.unit[row] {
            return Err(ProfileError::unsupported(format!(
                "sample type \"{}\" comes in two units in samples of one stack (row {} of sample_values): \
                 their values cannot be added up",
                p.str(sv.value_type[row]),
                row + 1
            )));
        }
    }
    Ok(MergeTargets { row_of, added_from })
}

/// The second pass of [`merge_values`]: the added rows (copies), then every
/// other merged row's value added to (or, for a gauge, compared with) its
/// group's row.
#[allow(
    clippy::indexing_slicing,
    reason = "as in merge_targets; the first samples' positions index samples, and the \
              types of rows index is_gauge (one per distinct type)"
)]
fn add_merged_values(
    p: &mut Profile,
    slots: &MergeSlots<'_>,
    value_samples: &[usize],
    targets: &MergeTargets,
    is_gauge: &[bool],
) {
    let sample_ids = &p.samples.sample_id;
    let sv = &mut p.sample_values;
    let n_rows = sv.nrow();
    sv.reserve(targets.added_from.len());
    for &row in &targets.added_from {
        sv.sample_id
            .push(sample_ids[slots.first_of(value_samples[row])]);
        sv.value_type.push(sv.value_type[row]);
        sv.unit.push(sv.unit[row]);
        sv.value.push(sv.value[row]);
    }
    for (row, &s) in value_samples.iter().enumerate() {
        if slots.is_first(s) {
            continue;
        }
        let into = targets.row_of[slots.slot(s, row)] as usize;
        if into >= n_rows && targets.added_from[into - n_rows] == row {
            continue;
        }
        let value = sv.value[row];
        if is_gauge[slots.row_type[row] as usize] {
            sv.value[into] = sv.value[into].max(value);
        } else {
            sv.value[into] += value;
        }
    }
}

/// No row (or no group) yet.
const NO_ROW: u32 = u32::MAX;

/// The number of each row's type among the distinct types (0, 1, ... in order
/// of first sight), and the distinct types in that order.
fn dense_types(types: &[StrId]) -> (Vec<u32>, Vec<StrId>) {
    let mut number: FxHashMap<StrId, u32> = FxHashMap::default();
    let mut distinct: Vec<StrId> = Vec::new();
    let mut last: Option<(StrId, u32)> = None;
    let numbers = types
        .iter()
        .map(|&t| match last {
            Some((id, n)) if id == t => n,
            _ => {
                let n = *number.entry(t).or_insert_with(|| {
                    distinct.push(t);
                    distinct.len() as u32 - 1
                });
                last = Some((t, n));
                n
            }
        })
        .collect();
    (numbers, distinct)
}

/// The label that marks the samples of the base in a difference, as `go tool
/// pprof -diff_base` marks them (its reports take their percentages from the
/// base's samples).
pub const DIFF_BASE_LABEL: (&str, &str) = ("pprof::base", "true");

/// `x` minus `base`, as `go tool pprof -diff_base=base x` makes it: the base's
/// values negated (every type), its samples labelled `pprof::base=true`
/// (replacing such a label), and both combined as `combine` combines them (x
/// first; functions and locations merged). The sources of the base have
/// `diff_base` TRUE, those of `x` FALSE (or TRUE where `x` is a difference
/// itself). Both must be valid.
pub fn diff(mut x: Profile, mut base: Profile) -> Result<Profile> {
    scale_values(&mut base, -1.0, None)?;
    mark_sources(&mut x, false);
    mark_sources(&mut base, true);
    label_samples(&mut base, DIFF_BASE_LABEL);
    combine(&[x, base], &CombineOptions::default())
}

/// Sets `diff_base` of every source to `is_base`, except that a source already
/// marked as a base stays one.
fn mark_sources(p: &mut Profile, is_base: bool) {
    let n = p.sources.nrow();
    let marks = &mut p.sources.diff_base;
    marks.resize(n, NA_INT);
    for mark in marks.iter_mut() {
        if is_base || *mark == NA_INT {
            *mark = i32::from(is_base);
        }
    }
}

/// Gives every sample the string label `key` = `value`, replacing the labels
/// of that key it has.
fn label_samples(p: &mut Profile, (key, value): (&str, &str)) {
    let key = p.strings.intern(key);
    let value = p.strings.intern(value);
    let sl = &mut p.sample_labels;
    let other_keys: Vec<bool> = sl.key.iter().map(|&k| k != key).collect();
    sl.retain_rows(&other_keys);
    let n = p.samples.nrow();
    sl.reserve(n);
    for &sample in &p.samples.sample_id {
        sl.sample_id.push(sample);
        sl.key.push(key);
        sl.value.push(value);
        sl.num.push(f64::NAN);
        sl.num_unit.push(StrId::NA);
    }
}

/// Keeps the samples whose `time` (seconds from the start of their source) is
/// in `[from, to)`; a bound that is None is open. A sample without a time (NA)
/// is in no interval, and goes. The bounds must not be NaN and `from` must not
/// be after `to`; a profile with samples, none of which has a time, is an
/// error of kind `argument` (there is nothing to select by).
pub fn time_window(p: &mut Profile, from: Option<f64>, to: Option<f64>) -> Result<()> {
    if from.is_some_and(f64::is_nan) || to.is_some_and(f64::is_nan) {
        return Err(ProfileError::argument(
            "the bounds of a time window must be numbers, not NA",
        ));
    }
    let (from, to) = (
        from.unwrap_or(f64::NEG_INFINITY),
        to.unwrap_or(f64::INFINITY),
    );
    if from > to {
        return Err(ProfileError::argument(format!(
            "the window starts ({from} s) after it ends ({to} s)"
        )));
    }
    if !p.samples.is_rectangular() {
        return Err(ragged(Samples::NAME));
    }
    let times = &p.samples.time;
    if !times.is_empty() && times.iter().all(|t| t.is_nan()) {
        return Err(ProfileError::argument(
            "the profile has no sample times (`samples$time` is NA): only Rprof files record when samples were taken",
        ));
    }
    let keep: Vec<bool> = times.iter().map(|&t| t >= from && t < to).collect();
    keep_samples(p, &keep)
}
