//! [`aggregate`] (`profile_aggregate()`): one sample per distinct source,
//! stack and labels.
//!
//! The result is made from the groups of equal samples directly: the first
//! sample of each group with its labels and frames, and one row of values per
//! group and type, summed in one pass over `sample_values`. Where the readers
//! wrote each stack's rows together and in depth order (every reader does),
//! the stacks are compared where they lie, as location ids, without gathering
//! them first. The merged samples' rows are never copied, and no mask over the
//! stack rows is made, so the cost beyond finding the groups is a pass over
//! `sample_values` and one over the stack rows' sample ids and depths.

use super::keep::{ragged, SampleRows};
use crate::error::{ProfileError, Result};
use crate::model::frames::SampleFrames;
use crate::model::id_index::IdIndex;
use crate::model::identity::{first_equal_samples, LabelRows};
use crate::model::schema::GAUGE_TYPES;
use crate::model::{Profile, SampleLabels, SampleLocations, SampleValues, StrId};
use crate::resources::alloc::{try_collect, try_filled, try_with_capacity};
use rustc_hash::{FxHashMap, FxHashSet};

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
    let stacks = Stacks::of(p, &rows, &locations)?;
    let labels = LabelRows::new(p, rows.index())?;
    // Source ids are compared as they are: the bits of any i32 make a scope.
    let source_id = &p.samples.source_id;
    let scope = |pos: usize| source_id.get(pos).map(|&s| s as u32 as usize);
    let location_ids = &p.sample_locations.location_id;
    let first = match &stacks {
        Stacks::Runs(runs) => {
            first_equal_samples(p, |pos| run_of(runs, location_ids, pos), &labels, scope)?
        }
        Stacks::Gathered(frames) => first_equal_samples(p, |pos| frames.of(pos), &labels, scope)?,
    };
    drop(labels);
    let groups = Groups::of(&first)?;
    if let Stacks::Runs(runs) = &stacks {
        check_locations(p, &rows, &locations, runs, &groups)?;
    }
    if groups.leaders.len() == first.len() {
        return Ok(());
    }
    let values = merged_values(p, &rows, &groups)?;
    let labels_kept = rows.rows_kept(
        SampleLabels::NAME,
        &p.sample_labels.sample_id,
        &groups.is_leader,
    )?;
    let frames = match &stacks {
        Stacks::Runs(runs) => Frames::Made(frames_of_leaders(p, runs, &groups)?),
        Stacks::Gathered(_) => Frames::Kept(rows.rows_kept(
            SampleLocations::NAME,
            &p.sample_locations.sample_id,
            &groups.is_leader,
        )?),
    };
    drop(stacks);
    // Nothing can fail from here on: the profile changes.
    p.samples.retain_rows(&groups.is_leader);
    // A merged sample stands for several moments: it has no time of its own.
    if p.samples.time.len() == groups.leaders.len() {
        for (time, &merged) in p.samples.time.iter_mut().zip(&groups.merged) {
            if merged {
                *time = f64::NAN;
            }
        }
    }
    p.sample_values = values;
    p.sample_labels.retain_rows(&labels_kept);
    match frames {
        Frames::Made(frames) => p.sample_locations = frames,
        Frames::Kept(keep) => p.sample_locations.retain_rows(&keep),
    }
    Ok(())
}

/// The stacks of the samples, as [`aggregate`] compares them.
enum Stacks {
    /// The rows of `sample_locations` come sample by sample, each sample's
    /// rows once and in depth order 1..n, every sample known (as the readers
    /// write them): each sample's range of rows (by row of `samples`; empty
    /// for a sample without frames). Its location ids are its stack.
    Runs(Vec<(u32, u32)>),
    /// Otherwise, the rows of `locations` of each sample's frames.
    Gathered(SampleFrames),
}

impl Stacks {
    fn of(p: &Profile, rows: &SampleRows, locations: &IdIndex) -> Result<Self> {
        if let Some(runs) = sample_runs(rows, &p.sample_locations)? {
            return Ok(Stacks::Runs(runs));
        }
        Ok(Stacks::Gathered(gather(p, rows, locations)?))
    }
}

/// The frames of every sample, gathered in depth order (the general case).
fn gather(p: &Profile, rows: &SampleRows, locations: &IdIndex) -> Result<SampleFrames> {
    let sl = &p.sample_locations;
    SampleFrames::gather(
        &sl.sample_id,
        &sl.depth,
        &sl.location_id,
        rows.index(),
        rows.len(),
        |l| locations.get(l),
    )
}

/// The location ids of the stack of the sample in row `pos` of `samples`.
fn run_of<'a>(runs: &[(u32, u32)], location_ids: &'a [i32], pos: usize) -> &'a [i32] {
    let (start, end) = runs.get(pos).copied().unwrap_or((0, 0));
    location_ids
        .get(start as usize..end as usize)
        .unwrap_or(&[])
}

/// The range of rows of each sample (by row of `samples`) where the rows of
/// `sl` come as [`Stacks::Runs`] says; None where they do not (then the stacks
/// are gathered, as before, and gathering reports what is wrong).
fn sample_runs(rows: &SampleRows, sl: &SampleLocations) -> Result<Option<Vec<(u32, u32)>>> {
    if u32::try_from(sl.nrow()).is_err() {
        return Ok(None);
    }
    let mut runs = try_filled(rows.len(), (0u32, 0u32), "samples")?;
    // Closes the run of sample `sid` over rows start..end: false if the
    // sample is unknown or had a run before.
    let mut close = |sid: i32, start: usize, end: usize| -> bool {
        match rows.index().row(sid).and_then(|s| runs.get_mut(s)) {
            Some(run) if run.1 == 0 => {
                *run = (start as u32, end as u32);
                true
            }
            _ => false,
        }
    };
    let mut start = 0usize;
    let mut current: Option<i32> = None;
    for (row, (&sid, &depth)) in sl.sample_id.iter().zip(&sl.depth).enumerate() {
        if current != Some(sid) {
            if let Some(previous) = current {
                if !close(previous, start, row) {
                    return Ok(None);
                }
            }
            current = Some(sid);
            start = row;
        }
        if usize::try_from(depth).ok() != Some(row - start + 1) {
            return Ok(None);
        }
    }
    if let Some(previous) = current {
        if !close(previous, start, sl.nrow()) {
            return Ok(None);
        }
    }
    Ok(Some(runs))
}

/// An error, as gathering the stacks gives it, unless every location id of
/// the first samples' stacks is in `locations` (the other samples have the
/// same ids as their first sample, so this checks them all).
fn check_locations(
    p: &Profile,
    rows: &SampleRows,
    locations: &IdIndex,
    runs: &[(u32, u32)],
    groups: &Groups,
) -> Result<()> {
    let ids = &p.sample_locations.location_id;
    let known = groups.leaders.iter().all(|&s| {
        run_of(runs, ids, s)
            .iter()
            .all(|&id| locations.get(id).is_some())
    });
    if known {
        return Ok(());
    }
    // Gathering reports the first row (in table order) whose location is not known.
    gather(p, rows, locations)?;
    Err(ProfileError::invalid(
        SampleLocations::NAME,
        "location_id",
        None,
        "a location is not in locations",
    ))
}

/// The groups of samples that [`aggregate`] merges.
struct Groups {
    /// Whether each sample (by row of `samples`) is the first of its group.
    is_leader: Vec<bool>,
    /// The group of each sample, numbered 0, 1, ... in the order of the
    /// first samples.
    group_of: Vec<u32>,
    /// The first sample of each group.
    leaders: Vec<usize>,
    /// Whether each group has more than one sample.
    merged: Vec<bool>,
}

impl Groups {
    /// The groups of `first` (the first equal sample of each sample, which
    /// comes before it or is itself).
    fn of(first: &[usize]) -> Result<Self> {
        let n = first.len();
        let is_leader = try_collect(
            first.iter().enumerate().map(|(pos, &f)| f == pos),
            "samples",
        )?;
        let mut group_of = try_filled(n, 0u32, "samples")?;
        let mut leaders = Vec::new();
        for (pos, &f) in first.iter().enumerate() {
            let group = if f == pos {
                let group = u32::try_from(leaders.len())
                    .map_err(|_| ProfileError::limit("too many samples to aggregate"))?;
                if leaders.len() == leaders.capacity() {
                    leaders
                        .try_reserve(leaders.len().max(64))
                        .map_err(|_| crate::resources::alloc::no_memory(n, "samples"))?;
                }
                leaders.push(pos);
                group
            } else {
                group_of.get(f).copied().unwrap_or(0)
            };
            if let Some(g) = group_of.get_mut(pos) {
                *g = group;
            }
        }
        let mut merged = try_filled(leaders.len(), false, "samples")?;
        for (&g, &leader) in group_of.iter().zip(&is_leader) {
            if !leader {
                if let Some(m) = merged.get_mut(g as usize) {
                    *m = true;
                }
            }
        }
        Ok(Groups {
            is_leader,
            group_of,
            leaders,
            merged,
        })
    }
}

/// The stack rows of the result, where they are known as [`Stacks::Runs`]
/// (made from the first samples' runs) or else (which rows stay).
enum Frames {
    Made(SampleLocations),
    Kept(Vec<bool>),
}

/// The rows of `sample_locations` of the first samples, in table order.
fn frames_of_leaders(p: &Profile, runs: &[(u32, u32)], groups: &Groups) -> Result<SampleLocations> {
    let mut kept: Vec<(u32, u32)> = try_collect(
        groups
            .leaders
            .iter()
            .map(|&s| runs.get(s).copied().unwrap_or((0, 0))),
        "samples",
    )?;
    kept.sort_unstable();
    let n = kept.iter().map(|&(a, b)| (b - a) as usize).sum();
    let sl = &p.sample_locations;
    let mut out = SampleLocations {
        sample_id: try_with_capacity(n, "frames")?,
        depth: try_with_capacity(n, "frames")?,
        location_id: try_with_capacity(n, "frames")?,
    };
    for (start, end) in kept {
        let range = start as usize..end as usize;
        for (to, from) in [
            (&mut out.sample_id, &sl.sample_id),
            (&mut out.depth, &sl.depth),
            (&mut out.location_id, &sl.location_id),
        ] {
            to.extend_from_slice(from.get(range.clone()).unwrap_or(&[]));
        }
    }
    Ok(out)
}

/// No row yet.
const NO_ROW: u32 = u32::MAX;

/// The types of `sample_values` numbered 0, 1, ... in order of first sight
/// (rows come in runs of few types: each run is looked up once), and the
/// (group, type) slots, `type * groups + group`, which grow by a type's
/// groups as types are found.
struct TypeSlots {
    n_groups: usize,
    numbers: FxHashMap<StrId, usize>,
    is_gauge: Vec<bool>,
    gauges: FxHashSet<StrId>,
    last: Option<(StrId, usize)>,
    /// The row of the result of each slot, or [`NO_ROW`].
    row_of: Vec<u32>,
}

impl TypeSlots {
    fn new(p: &Profile, n_groups: usize) -> Self {
        TypeSlots {
            n_groups,
            numbers: FxHashMap::default(),
            is_gauge: Vec::new(),
            gauges: GAUGE_TYPES
                .iter()
                .filter_map(|g| p.strings.lookup(g))
                .collect(),
            last: None,
            row_of: Vec::new(),
        }
    }

    /// The number of type `t`, its slots made if it is new.
    fn number(&mut self, t: StrId) -> Result<usize> {
        match self.last {
            Some((id, n)) if id == t => return Ok(n),
            _ => {}
        }
        let n = match self.numbers.get(&t) {
            Some(&n) => n,
            None => {
                let n = self.numbers.len();
                let slots = (n + 1)
                    .checked_mul(self.n_groups)
                    .filter(|&s| s < NO_ROW as usize)
                    .ok_or_else(|| {
                        ProfileError::limit("too many samples and sample types to aggregate")
                    })?;
                self.row_of
                    .try_reserve_exact(slots - self.row_of.len())
                    .map_err(|_| crate::resources::alloc::no_memory(slots, "sample values"))?;
                self.row_of.resize(slots, NO_ROW);
                self.is_gauge.push(self.gauges.contains(&t));
                self.numbers.insert(t, n);
                n
            }
        };
        self.last = Some((t, n));
        Ok(n)
    }

    fn slot(&self, t: usize, group: u32) -> usize {
        t * self.n_groups + group as usize
    }
}

/// The `sample_values` of the result: the rows of the first samples, in
/// order, then a row for each type that only a later sample of a group has
/// (in the order of those rows), each with the sum of its group's values of
/// the type (a gauge: the largest). Two passes over the rows, as keeping the
/// first samples' rows after adding the others' values to them gives it: a
/// value goes to the first sample's (last) row of its type, wherever that row
/// is. An id not in `samples` is an error, before a type in two units in one
/// group.
#[allow(
    clippy::indexing_slicing,
    reason = "rows below nrow() of sample_values, checked rectangular; slots below row_of's \
              length (the group below n_groups, the type numbered); rows of the result below \
              source_row's length"
)]
fn merged_values(p: &Profile, rows: &SampleRows, groups: &Groups) -> Result<SampleValues> {
    let sv = &p.sample_values;
    let mut slots = TypeSlots::new(p, groups.leaders.len());
    // The row of `sample_values` each row of the result comes from.
    let mut source_row: Vec<u32> = Vec::new();
    // First pass: the first samples' rows, and every row's sample known.
    let mut sample_of_run = SampleOfRun::default();
    for row in 0..sv.nrow() {
        let s = sample_of_run.get(rows, &sv.sample_id, row)?;
        if groups.is_leader[s] {
            let t = slots.number(sv.value_type[row])?;
            let at = slots.slot(t, groups.group_of[s]);
            slots.row_of[at] = u32::try_from(source_row.len())
                .map_err(|_| ProfileError::limit("too many sample values to aggregate"))?;
            push_fallibly(&mut source_row, row as u32, sv.nrow())?;
        }
    }
    let n_kept = source_row.len();
    let mut value: Vec<f64> = try_collect(
        source_row.iter().map(|&r| sv.value[r as usize]),
        "sample values",
    )?;
    // Second pass: the other samples' values added, or rows added for them.
    let mut sample_of_run = SampleOfRun::default();
    for row in 0..sv.nrow() {
        let s = sample_of_run.get(rows, &sv.sample_id, row)?;
        if groups.is_leader[s] {
            continue;
        }
        let t = slots.number(sv.value_type[row])?;
        let at = slots.slot(t, groups.group_of[s]);
        let into = slots.row_of[at];
        if into == NO_ROW {
            // Its first sample has no value of this type: it gets this one.
            slots.row_of[at] = u32::try_from(source_row.len())
                .map_err(|_| ProfileError::limit("too many sample values to aggregate"))?;
            push_fallibly(&mut source_row, row as u32, sv.nrow())?;
            push_fallibly(&mut value, sv.value[row], sv.nrow())?;
            continue;
        }
        let into = into as usize;
        if sv.unit[source_row[into] as usize] != sv.unit[row] {
            return Err(ProfileError::unsupported(format!(
                "sample type \"{}\" comes in two units in samples of one stack (row {} of sample_values): \
                 their values cannot be added up",
                p.str(sv.value_type[row]),
                row + 1
            )));
        }
        if slots.is_gauge[t] {
            value[into] = value[into].max(sv.value[row]);
        } else {
            value[into] += sv.value[row];
        }
    }
    let n = source_row.len();
    let mut out = SampleValues {
        sample_id: try_with_capacity(n, "sample values")?,
        value_type: try_with_capacity(n, "sample values")?,
        unit: try_with_capacity(n, "sample values")?,
        value,
    };
    let sample_ids = &p.samples.sample_id;
    let mut sample_of_run = SampleOfRun::default();
    for (k, &r) in source_row.iter().enumerate() {
        let r = r as usize;
        let id = sv.sample_id[r];
        out.sample_id.push(if k < n_kept {
            id
        } else {
            let s = sample_of_run.get(rows, &sv.sample_id, r)?;
            sample_ids[groups.leaders[groups.group_of[s] as usize]]
        });
        out.value_type.push(sv.value_type[r]);
        out.unit.push(sv.unit[r]);
    }
    Ok(out)
}

/// Pushes `x` onto `v`, growing it fallibly (to at most `limit` elements).
fn push_fallibly<T>(v: &mut Vec<T>, x: T, limit: usize) -> Result<()> {
    if v.len() == v.capacity() {
        let more = v.len().max(64).min(limit.saturating_sub(v.len()).max(1));
        v.try_reserve_exact(more)
            .map_err(|_| crate::resources::alloc::no_memory(limit, "sample values"))?;
    }
    v.push(x);
    Ok(())
}

/// The row in `samples` of a row's sample id, looked up once per run of rows
/// of one sample.
#[derive(Default)]
struct SampleOfRun {
    last: Option<(i32, usize)>,
}

impl SampleOfRun {
    fn get(&mut self, rows: &SampleRows, sample_ids: &[i32], row: usize) -> Result<usize> {
        let sid = sample_ids.get(row).copied().unwrap_or(crate::model::NA_INT);
        match self.last {
            Some((id, s)) if id == sid => Ok(s),
            _ => {
                let s = rows.index().row(sid).ok_or_else(|| {
                    ProfileError::invalid(
                        SampleValues::NAME,
                        "sample_id",
                        Some(row + 1),
                        format!("sample {sid} is not in samples"),
                    )
                })?;
                self.last = Some((sid, s));
                Ok(s)
            }
        }
    }
}
