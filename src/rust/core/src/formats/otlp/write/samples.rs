//! The samples of each source grouped by identity, with their values per
//! sample type of their source.

use super::internal;
use crate::error::Result;
use crate::model::frames::SampleFrames;
use crate::model::id_index::IdIndex;
use crate::model::identity::{first_equal_samples, LabelRows};
use crate::model::{Profile, StrId, NA_INT};
use crate::resources::alloc::{try_filled, try_with_capacity};
use rustc_hash::FxHashMap;

/// A sample type of a source.
pub(super) struct SourceType {
    pub(super) name: StrId,
    pub(super) unit: StrId,
    pub(super) timestamps_only: Option<bool>,
}

/// The samples of each source, grouped by identity, with their values per
/// sample type of their source.
pub(super) struct SourceSamples {
    pub(super) frames: SampleFrames,
    pub(super) labels: LabelRows,
    /// Per sample position: the position of the first sample of equal
    /// identity (`first_equal_samples`), its own when it is the first.
    pub(super) first: Vec<usize>,
    /// The positions of each group of samples of equal identity, group after
    /// group (`group_ranges` says where each starts and ends).
    members: Vec<usize>,
    /// Per source row: its groups, in order of first appearance, as ranges
    /// of `members`.
    group_ranges: Vec<Vec<std::ops::Range<usize>>>,
    /// Per source row: its sample types.
    pub(super) types: Vec<Vec<SourceType>>,
    /// Per sample position: where its values start in `cells` (one per type
    /// of its source).
    pub(super) offsets: Vec<usize>,
    pub(super) cells: Vec<f64>,
}

impl SourceSamples {
    /// Longer than the house's 80 lines: one pass that builds the three indexes
    /// the writer shares (types per source, groups of equal samples, value cells),
    /// which depend on each other's rows.
    pub(super) fn new(p: &Profile) -> Result<Self> {
        let unique = |table: &str, ids: &[i32]| {
            IdIndex::try_unique_rows(
                ids,
                |_, _| Ok(()),
                |_, id| internal(format!("{table} id {id} occurs more than once")),
            )
        };
        let sources = unique("sources", &p.sources.source_id)?;
        let samples = unique("samples", &p.samples.sample_id)?;
        let locations = unique("locations", &p.locations.location_id)?;
        let source_of: Vec<usize> = p
            .samples
            .source_id
            .iter()
            .map(|&s| {
                sources
                    .row(s)
                    .ok_or_else(|| internal(format!("source {s} is unknown")))
            })
            .collect::<Result<_>>()?;
        // Sample types: declared ones, then those only values name.
        let n_sources = p.sources.nrow();
        let mut types: Vec<Vec<SourceType>> = (0..n_sources).map(|_| Vec::new()).collect();
        let mut col_of: FxHashMap<(usize, StrId), usize> = FxHashMap::default();
        let st = &p.sample_types;
        for r in 0..st.nrow() {
            let (Some(&sid), Some(&name), Some(&unit)) =
                (st.source_id.get(r), st.value_type.get(r), st.unit.get(r))
            else {
                continue;
            };
            let Some(src) = sources.row(sid) else {
                continue;
            };
            let flag = st.timestamps_only.get(r).copied().unwrap_or(NA_INT);
            if let Some(list) = types.get_mut(src) {
                if col_of.insert((src, name), list.len()).is_none() {
                    list.push(SourceType {
                        name,
                        unit,
                        timestamps_only: (flag != NA_INT).then_some(flag != 0),
                    });
                }
            }
        }
        let sv = &p.sample_values;
        let mut sample_row = Vec::with_capacity(sv.nrow());
        for r in 0..sv.nrow() {
            let sid = sv.sample_id.get(r).copied().unwrap_or(NA_INT);
            let pos = samples
                .row(sid)
                .ok_or_else(|| internal(format!("sample {sid} is unknown")))?;
            let src = source_of.get(pos).copied().unwrap_or(0);
            let name = sv.value_type.get(r).copied().unwrap_or(StrId::NA);
            if let (std::collections::hash_map::Entry::Vacant(slot), Some(list)) =
                (col_of.entry((src, name)), types.get_mut(src))
            {
                slot.insert(list.len());
                list.push(SourceType {
                    name,
                    unit: sv.unit.get(r).copied().unwrap_or(StrId::NA),
                    timestamps_only: None,
                });
            }
            sample_row.push(pos);
        }
        let mut offsets = Vec::with_capacity(source_of.len() + 1);
        let mut total = 0usize;
        for &src in &source_of {
            offsets.push(total);
            total += types.get(src).map_or(0, Vec::len);
        }
        offsets.push(total);
        let mut cells = vec![f64::NAN; total];
        for (r, &pos) in sample_row.iter().enumerate() {
            let src = source_of.get(pos).copied().unwrap_or(0);
            let name = sv.value_type.get(r).copied().unwrap_or(StrId::NA);
            if let (Some(&col), Some(&start)) = (col_of.get(&(src, name)), offsets.get(pos)) {
                if let Some(c) = cells.get_mut(start + col) {
                    *c = sv.value.get(r).copied().unwrap_or(f64::NAN);
                }
            }
        }
        let frames = p.sample_frames(&samples, |lid| locations.get(lid))?;
        let labels = LabelRows::new(p, &samples)?;
        // Identity within a source, a link and whether samples have a time.
        let mut scopes: FxHashMap<(usize, bool, StrId, StrId), usize> = FxHashMap::default();
        let scope_of: Vec<usize> = (0..p.samples.nrow())
            .map(|pos| {
                let timed = p.samples.time.get(pos).is_some_and(|t| !t.is_nan());
                let key = (
                    source_of.get(pos).copied().unwrap_or(0),
                    timed,
                    p.samples.trace_id.get(pos).copied().unwrap_or(StrId::NA),
                    p.samples.span_id.get(pos).copied().unwrap_or(StrId::NA),
                );
                let n = scopes.len();
                *scopes.entry(key).or_insert(n)
            })
            .collect();
        let first = first_equal_samples(
            p,
            |pos| frames.of(pos),
            &labels,
            |pos| scope_of.get(pos).copied(),
        )?;
        // Groups are numbered in order of creation; a sample's group and
        // each group's source and size first, then the members in one vector.
        let mut group_source: Vec<usize> = Vec::new();
        let mut group_size: Vec<usize> = Vec::new();
        let mut group_of = try_filled(p.samples.nrow(), usize::MAX, "samples")?;
        // The last sample of each source so far.
        let mut last: Vec<Option<usize>> = vec![None; n_sources];
        for (pos, &f) in first.iter().enumerate() {
            let src = source_of.get(pos).copied().unwrap_or(0);
            if src >= n_sources {
                continue;
            }
            let timed = p.samples.time.get(pos).is_some_and(|t| !t.is_nan());
            // Samples without a time join the equal sample right before them
            // only: the order of the file is all that orders them.
            let joins = if timed {
                Some(f)
            } else {
                last.get(src)
                    .copied()
                    .flatten()
                    .filter(|&prev| first.get(prev) == Some(&f))
            };
            if let Some(slot) = last.get_mut(src) {
                *slot = Some(pos);
            }
            let g = match joins.and_then(|j| group_of.get(j).copied()) {
                Some(g) if g != usize::MAX => g,
                _ => {
                    group_source.push(src);
                    group_size.push(0);
                    group_size.len() - 1
                }
            };
            if let Some(slot) = group_of.get_mut(pos) {
                *slot = g;
            }
            if let Some(size) = group_size.get_mut(g) {
                *size += 1;
            }
        }
        let mut group_ranges: Vec<Vec<std::ops::Range<usize>>> =
            (0..n_sources).map(|_| Vec::new()).collect();
        let mut fill = try_with_capacity(group_size.len(), "samples")?;
        let mut end = 0usize;
        for (&src, &size) in group_source.iter().zip(&group_size) {
            if let Some(list) = group_ranges.get_mut(src) {
                list.push(end..end + size);
            }
            fill.push(end);
            end += size;
        }
        let mut members = try_filled(end, 0usize, "samples")?;
        for (pos, &g) in group_of.iter().enumerate() {
            if let Some(at) = fill.get_mut(g) {
                if let Some(slot) = members.get_mut(*at) {
                    *slot = pos;
                }
                *at += 1;
            }
        }
        Ok(SourceSamples {
            frames,
            labels,
            first,
            members,
            group_ranges,
            types,
            offsets,
            cells,
        })
    }

    /// The groups of samples of equal identity of source row `src`, in order
    /// of first appearance, each its positions in order.
    pub(super) fn groups(&self, src: usize) -> Vec<&[usize]> {
        self.group_ranges
            .get(src)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|r| self.members.get(r.clone()).unwrap_or_default())
            .collect()
    }

    /// The value of sample `pos` of its source's type `col` (0 when it has
    /// none).
    pub(super) fn value(&self, pos: usize, col: usize) -> f64 {
        let v = self
            .offsets
            .get(pos)
            .and_then(|&start| self.cells.get(start + col))
            .copied()
            .unwrap_or(f64::NAN);
        if v.is_nan() {
            0.0
        } else {
            v
        }
    }
}
