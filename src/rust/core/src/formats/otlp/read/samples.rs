//! The samples of each source, one per observation.

use super::{entry, invalid, time_origin, Attr, Reader};
use crate::error::Result;
use crate::formats::otlp::proto;
use crate::formats::otlp::typeless;
use crate::model::{next_id, StrId, NA_INT};

impl Reader<'_, '_> {
    /// The frames (location ids, leaf first) of stack `index`.
    pub(super) fn stack_frames(
        &self,
        index: i32,
        what: &dyn Fn() -> String,
        out: &mut Vec<i32>,
    ) -> Result<()> {
        let stack = entry(
            &self.d.stack_table,
            index,
            "stack_table",
            "Sample",
            "stack_index",
            what,
        )?;
        out.clear();
        for &l in &stack.location_indices {
            let span = usize::try_from(l)
                .ok()
                .and_then(|i| self.spans.get(i).copied().flatten());
            if let Some((start, n)) = span {
                out.extend(
                    self.p
                        .locations
                        .location_id
                        .get(start..start + n)
                        .unwrap_or_default(),
                );
            }
        }
        Ok(())
    }

    /// The samples of every source: one per observation, in the order of
    /// their timestamps when every observation of the source has one (a
    /// writer that combines samples of equal identity lists a time series
    /// by identity), else in the order of the file.
    /// Longer than the house's 80 lines: a sample's values, timestamps, stack,
    /// attributes and link become rows of four tables in one pass, so that each
    /// row is checked where the sample is known (errors name it).
    pub(super) fn samples(&mut self, groups: &[Vec<&proto::Profile>]) -> Result<()> {
        self.check_samples(groups)?;
        self.reserve_samples(groups)?;
        for (g, group) in groups.iter().enumerate() {
            let Some(lead) = group.first() else { continue };
            let source_id = next_id(g, "sources")?;
            let origin = time_origin(lead).unwrap_or(0);
            let types: Vec<(StrId, StrId)> = group
                .iter()
                .map(|p| self.sample_type(p))
                .collect::<Result<_>>()?;
            // Per sample of the file: its frames, labels and link.
            let mut prepared = Vec::with_capacity(lead.samples.len());
            let mut arena: Vec<i32> = Vec::new();
            let mut frames = Vec::new();
            for (i, s) in lead.samples.iter().enumerate() {
                let path = self.sample_path(g, 0, i);
                let what = || path.clone();
                self.stack_frames(s.stack_index, &what, &mut frames)?;
                self.budget
                    .limits()
                    .check_stack_depth(frames.len(), || path.clone())?;
                if let Some(first) = usize::try_from(s.stack_index)
                    .ok()
                    .and_then(|k| self.stack_source.get_mut(k))
                {
                    if *first == NA_INT {
                        *first = source_id;
                    }
                }
                let start = arena.len();
                arena.extend_from_slice(&frames);
                let labels = s
                    .attribute_indices
                    .iter()
                    .map(|&a| self.attr(a, "Sample", &what))
                    .collect::<Result<Vec<Attr>>>()?;
                let link = self.link(s.link_index, &what)?;
                prepared.push((start, frames.len(), labels, link));
            }
            // The observations: (timestamp, sample, k).
            let mut observations: Vec<(u64, usize, usize)> = Vec::new();
            let mut all_timed = true;
            for (i, s) in lead.samples.iter().enumerate() {
                let n = s.values.len().max(s.timestamps_unix_nano.len());
                all_timed &= !s.timestamps_unix_nano.is_empty();
                for k in 0..n {
                    let ts = s.timestamps_unix_nano.get(k).copied().unwrap_or(0);
                    observations.push((ts, i, k));
                }
            }
            if all_timed {
                observations.sort_by_key(|&(ts, _, _)| ts);
            }
            for (ts, i, k) in observations {
                let (Some(s), Some((start, depth, labels, (trace, span)))) =
                    (lead.samples.get(i), prepared.get(i))
                else {
                    continue;
                };
                let sample_id = next_id(self.p.samples.nrow(), "samples")?;
                let t = &mut self.p.samples;
                t.sample_id.push(sample_id);
                t.source_id.push(source_id);
                t.time.push(if s.timestamps_unix_nano.is_empty() {
                    f64::NAN
                } else {
                    ts.saturating_sub(origin) as f64 / 1e9
                });
                t.trace_id.push(*trace);
                t.span_id.push(*span);
                for (profile, &(vt, unit)) in group.iter().zip(&types) {
                    if typeless(profile) {
                        continue;
                    }
                    let value = profile
                        .samples
                        .get(i)
                        .map_or(0, |ps| ps.values.get(k).copied().unwrap_or(1));
                    let v = &mut self.p.sample_values;
                    v.sample_id.push(sample_id);
                    v.value_type.push(vt);
                    v.unit.push(unit);
                    v.value.push(value as f64);
                }
                let sl = &mut self.p.sample_locations;
                let frames = arena.get(*start..*start + *depth).unwrap_or_default();
                for (d, &location_id) in frames.iter().enumerate() {
                    sl.sample_id.push(sample_id);
                    // Within the depth limit, at most i32::MAX.
                    sl.depth.push(d as i32 + 1);
                    sl.location_id.push(location_id);
                }
                for a in labels {
                    push_attribute!(
                        &mut self.p.sample_labels,
                        sample_id = sample_id,
                        a.key,
                        a.unit,
                        a.cells
                    );
                }
            }
        }
        Ok(())
    }

    /// Where sample `i` of Profile `j` of source `g` is in the message.
    pub(super) fn sample_path(&self, g: usize, j: usize, i: usize) -> String {
        let (r, s, k) = self.group_paths.get(g).copied().unwrap_or_default();
        format!(
            "resource_profiles[{r}].scope_profiles[{s}].profiles[{}].samples[{i}]",
            k + j
        )
    }

    /// Every sample of every Profile has observations, as many values as
    /// timestamps when it has both.
    pub(super) fn check_samples(&self, groups: &[Vec<&proto::Profile>]) -> Result<()> {
        for (g, group) in groups.iter().enumerate() {
            for (j, profile) in group.iter().enumerate() {
                for (i, s) in profile.samples.iter().enumerate() {
                    let (nv, nt) = (s.values.len(), s.timestamps_unix_nano.len());
                    let which = || self.sample_path(g, j, i);
                    if nv == 0 && nt == 0 {
                        return Err(invalid(
                            "Sample",
                            "values",
                            format!("{} has neither values nor timestamps_unix_nano; a sample needs one of them", which()),
                        ));
                    }
                    if nv > 0 && nt > 0 && nv != nt {
                        return Err(invalid(
                            "Sample",
                            "timestamps_unix_nano",
                            format!(
                                "{} has {nv} values but {nt} timestamps; they must be as many",
                                which()
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Reserves the rows of the sample tables, charged to the budget first
    /// (and the order of the observations of the largest source).
    pub(super) fn reserve_samples(&mut self, groups: &[Vec<&proto::Profile>]) -> Result<()> {
        let (mut rows, mut values, mut frames, mut labels, mut largest) =
            (0u64, 0u64, 0u64, 0u64, 0u64);
        for group in groups {
            let Some(lead) = group.first() else { continue };
            let mut in_group = 0u64;
            let typed = group.iter().filter(|p| !typeless(p)).count() as u64;
            for s in &lead.samples {
                let n = s.values.len().max(s.timestamps_unix_nano.len()) as u64;
                let depth: u64 = usize::try_from(s.stack_index)
                    .ok()
                    .and_then(|k| self.d.stack_table.get(k))
                    .map_or(0, |st| {
                        st.location_indices
                            .iter()
                            .map(|&l| {
                                usize::try_from(l)
                                    .ok()
                                    .and_then(|i| self.spans.get(i).copied().flatten())
                                    .map_or(0, |(_, n)| n as u64)
                            })
                            .sum()
                    });
                in_group = in_group.saturating_add(n);
                values = values.saturating_add(n.saturating_mul(typed));
                frames = frames.saturating_add(n.saturating_mul(depth));
                labels = labels.saturating_add(n.saturating_mul(s.attribute_indices.len() as u64));
            }
            rows = rows.saturating_add(in_group);
            largest = largest.max(in_group);
        }
        let what = || "the samples of the profile".to_string();
        let count = |x: u64| usize::try_from(x).map_err(|_| crate::model::too_many("samples"));
        // (timestamp, sample, observation) of each observation of a source
        self.budget.charge(largest.saturating_mul(24), what)?;
        let p = &mut self.p;
        self.budget.room(&mut p.samples, count(rows)?, what)?;
        self.budget
            .room(&mut p.sample_values, count(values)?, what)?;
        self.budget
            .room(&mut p.sample_locations, count(frames)?, what)?;
        self.budget.room(&mut p.sample_labels, count(labels)?, what)
    }

    /// Trace and span ids of link `index` (NA, NA for 0: no link).
    pub(super) fn link(&mut self, index: i32, what: &dyn Fn() -> String) -> Result<(StrId, StrId)> {
        if index == 0 && self.zero.link {
            return Ok((StrId::NA, StrId::NA));
        }
        let l = entry(
            &self.d.link_table,
            index,
            "link_table",
            "Sample",
            "link_index",
            what,
        )?;
        let mut id = |b: &[u8]| -> Result<StrId> {
            if b.is_empty() {
                Ok(StrId::NA)
            } else {
                self.p
                    .strings
                    .try_intern(&crate::formats::otlp::hex(b), self.budget)
            }
        };
        Ok((id(&l.trace_id)?, id(&l.span_id)?))
    }
}
