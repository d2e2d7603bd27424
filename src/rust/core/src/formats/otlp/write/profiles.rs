//! The Profiles of a source: one per sample type, with the source's fields and
//! attributes.

use super::samples::{SourceSamples, SourceType};
use super::{count, Head, Writer};
use crate::error::{ProfileError, Result};
use crate::formats::otlp::attributes::{self, Cells};
use crate::formats::otlp::{keys, proto, unhex};
use crate::model::{StrId, NA_INT};

impl Writer<'_> {
    /// The attribute indices of source `src`'s Profiles.
    pub(super) fn profile_attributes(&mut self, src: usize) -> Result<Vec<i32>> {
        let p = self.p;
        let s = &p.sources;
        let text = |col: &[StrId]| col.get(src).and_then(|&x| p.strings.get(x));
        let mut attrs = Vec::new();
        for (key, col) in [
            (keys::DROP_FRAMES, &s.drop_frames),
            (keys::KEEP_FRAMES, &s.keep_frames),
        ] {
            if let Some(v) = text(col) {
                attrs.push(self.dict.string_attribute(key, v)?);
            }
        }
        let id = s.source_id.get(src).copied().unwrap_or(NA_INT);
        let comments: Vec<StrId> = (0..p.source_comments.nrow())
            .filter(|&r| p.source_comments.source_id.get(r) == Some(&id))
            .filter_map(|r| p.source_comments.comment.get(r).copied())
            .collect();
        for (k, c) in comments.into_iter().enumerate() {
            let key = format!("{}.{k}", keys::COMMENT);
            attrs.push(self.dict.string_attribute(&key, self.str(c))?);
        }
        if let Some(v) = text(&s.doc_url) {
            attrs.push(self.dict.string_attribute(keys::DOC_URL, v)?);
        }
        let source_type = text(&s.source_type).unwrap_or("");
        if source_type != "otlp" {
            attrs.push(self.dict.string_attribute(keys::SOURCE_TYPE, source_type)?);
            if let Some(u) = text(&s.source_uri) {
                attrs.push(self.dict.string_attribute(keys::SOURCE_URI, u)?);
            }
        }
        if let Some(h) = text(&s.rprof_header) {
            attrs.push(self.dict.string_attribute(keys::RPROF_HEADER, h)?);
        }
        if let Some(l) = text(&s.source_label) {
            attrs.push(self.dict.string_attribute(keys::SOURCE_LABEL, l)?);
        }
        if let Some(&d) = s.diff_base.get(src) {
            if d != NA_INT {
                attrs.push(self.dict.bool_attribute(keys::DIFF_BASE, d != 0)?);
            }
        }
        let timestamp = s.source_timestamp.get(src).copied().unwrap_or(f64::NAN);
        if text(&s.time_nanos).is_none() && timestamp.is_finite() {
            let v = proto::AnyValue {
                value: Some(proto::any_value::Value::DoubleValue(timestamp)),
            };
            attrs.push(self.dict.attribute(keys::SOURCE_TIMESTAMP, v, "")?);
        }
        let rows: Vec<usize> = (0..p.source_attributes.nrow())
            .filter(|&r| p.source_attributes.source_id.get(r) == Some(&id))
            .collect();
        self.attribute_rows(
            "source_attributes",
            &rows,
            |p, r| {
                let t = &p.source_attributes;
                attribute_row!(t, r)
            },
            &mut attrs,
        )?;
        Ok(attrs)
    }

    /// The Profiles of source `src`: one per sample type.
    /// Longer than the house's 80 lines: it fills the fields of one `Profile`
    /// message in the message's order, and its helpers (`text`, `num`, `parse`)
    /// read the one source row all of them need.
    pub(super) fn profiles(
        &mut self,
        src: usize,
        samples: &SourceSamples,
        out: &mut Vec<proto::Profile>,
    ) -> Result<()> {
        let p = self.p;
        let s = &p.sources;
        let text = |col: &[StrId]| col.get(src).and_then(|&x| p.strings.get(x));
        let num = |col: &[f64]| col.get(src).copied().unwrap_or(f64::NAN);
        let parse = |col: &[StrId], name: &str| -> Result<Option<u64>> {
            match text(col) {
                None => Ok(None),
                Some(t) => crate::model::validate::parse_nanos(t)
                    .map(|n| Some(u64::try_from(n.max(0)).unwrap_or(u64::MAX)))
                    .ok_or_else(|| {
                        ProfileError::invalid(
                            "sources",
                            name,
                            Some(src + 1),
                            format!("must be an integer, found \"{t}\""),
                        )
                    }),
            }
        };
        let timestamp = num(&s.source_timestamp);
        let time = match parse(&s.time_nanos, "time_nanos")? {
            Some(t) => t,
            None if timestamp.is_finite() && timestamp > 0.0 => {
                (timestamp * 1e9).round().min(u64::MAX as f64) as u64
            }
            None => 0,
        };
        let origin = parse(&s.time_origin_nanos, "time_origin_nanos")?.unwrap_or(time);
        let whole = |x: f64| if x.is_finite() { x.round() } else { 0.0 };
        let period_type = match (
            s.period_type.get(src).copied().unwrap_or(StrId::NA),
            s.period_unit.get(src).copied().unwrap_or(StrId::NA),
        ) {
            (t, u) if t.is_na() && u.is_na() => None,
            (t, u) => Some(proto::ValueType {
                type_strindex: self.dict.string(self.str(t))?,
                unit_strindex: self.dict.string(self.str(u))?,
            }),
        };
        let unhex_col = |col: &[StrId], name: &str| -> Result<Vec<u8>> {
            match text(col) {
                None => Ok(Vec::new()),
                Some(t) => unhex(t.as_bytes()).ok_or_else(|| {
                    ProfileError::invalid(
                        "sources",
                        name,
                        Some(src + 1),
                        format!("must be hex digits, found \"{t}\""),
                    )
                }),
            }
        };
        let template = proto::Profile {
            sample_type: None,
            samples: Vec::new(),
            time_unix_nano: time,
            duration_nano: whole(num(&s.duration_nanos)).max(0.0) as u64,
            period_type,
            period: whole(num(&s.period)) as i64,
            profile_id: unhex_col(&s.profile_id, "profile_id")?,
            dropped_attributes_count: count(s.dropped_attributes_count.get(src)),
            original_payload_format: text(&s.original_payload_format)
                .map(|t| t.as_bytes().to_vec())
                .unwrap_or_default(),
            original_payload: unhex_col(&s.original_payload, "original_payload")?,
            attribute_indices: self.profile_attributes(src)?,
        };
        let groups = samples.groups(src);
        // Per group: stack, attributes (a range of `self.head_attributes`),
        // link; the same in every Profile.
        let mut heads = Vec::with_capacity(groups.len());
        for g in &groups {
            let Some(&first) = g.first() else { continue };
            heads.push(self.head(samples, first)?);
        }
        let types = samples
            .types
            .get(src)
            .map(Vec::as_slice)
            .unwrap_or_default();
        // A source without sample types: one Profile without one, its
        // samples with the value 0 (see the reader's `typeless`).
        let no_type = [SourceType {
            name: StrId::NA,
            unit: StrId::NA,
            timestamps_only: Some(false),
        }];
        let typed = !types.is_empty();
        let types = if typed { types } else { &no_type[..] };
        let all_timed = groups
            .iter()
            .flat_map(|g| g.iter())
            .all(|&pos| p.samples.time.get(pos).is_some_and(|t| !t.is_nan()));
        let n_obs: usize = groups.iter().map(|g| g.len()).sum();
        for (col, ty) in types.iter().enumerate() {
            let value = |pos: usize| if typed { samples.value(pos, col) } else { 0.0 };
            let ts_only = n_obs > 0
                && all_timed
                && groups
                    .iter()
                    .flat_map(|g| g.iter())
                    .all(|&pos| value(pos) == 1.0)
                && match ty.timestamps_only {
                    Some(flag) => flag,
                    None => self.str(ty.unit) == "count",
                };
            let sample_type = if typed {
                Some(proto::ValueType {
                    type_strindex: self.dict.string(self.str(ty.name))?,
                    unit_strindex: self.dict.string(self.str(ty.unit))?,
                })
            } else {
                None
            };
            let mut profile = proto::Profile {
                sample_type,
                samples: Vec::with_capacity(groups.len()),
                ..template.clone()
            };
            for (g, (stack, attrs, link)) in groups.iter().zip(&heads) {
                let attrs = self.head_attributes.get(attrs.clone()).unwrap_or_default();
                let timed = g
                    .first()
                    .and_then(|&pos| p.samples.time.get(pos))
                    .is_some_and(|t| !t.is_nan());
                let timestamps = if timed {
                    g.iter()
                        .map(|&pos| {
                            let t = p.samples.time.get(pos).copied().unwrap_or(0.0);
                            let ns = (t * 1e9).round();
                            (i128::from(origin) + ns as i128).clamp(0, i128::from(u64::MAX)) as u64
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let values = if ts_only {
                    Vec::new()
                } else {
                    g.iter()
                        .map(|&pos| attributes::to_i64(value(pos)))
                        .collect()
                };
                profile.samples.push(proto::Sample {
                    stack_index: *stack,
                    attribute_indices: attrs.to_vec(),
                    link_index: *link,
                    values,
                    timestamps_unix_nano: timestamps,
                });
            }
            out.push(profile);
        }
        Ok(())
    }

    /// The stack, attributes (a range of `self.head_attributes`) and link of
    /// the samples of a group, whose first sample is at `pos`. Samples of
    /// equal identity share them: they are made once, for the first sample
    /// of that identity, and taken from it for the groups after it whose
    /// label rows list the same cells in the same order (the order of the
    /// attribute indices written).
    fn head(&mut self, samples: &SourceSamples, pos: usize) -> Result<Head> {
        let p = self.p;
        let labels = samples.labels.of(pos);
        let same = samples.first.get(pos).copied().unwrap_or(pos);
        if same != pos {
            if let Some(head) = self.heads.get(&same) {
                let t = &p.sample_labels;
                let cells = |r: usize| {
                    let (key, unit, c) = attribute_row!(t, r);
                    (key, unit, c.value, c.num.to_bits(), c.kind)
                };
                let theirs = samples.labels.of(same);
                if labels.len() == theirs.len()
                    && labels
                        .iter()
                        .zip(theirs)
                        .all(|(&a, &b)| cells(a) == cells(b))
                {
                    return Ok(head.clone());
                }
            }
        }
        let stack = self.stack(samples.frames.of(pos))?;
        let mut attrs = std::mem::take(&mut self.scratch);
        attrs.clear();
        self.attribute_rows(
            "sample_labels",
            labels,
            |p, r| {
                let t = &p.sample_labels;
                attribute_row!(t, r)
            },
            &mut attrs,
        )?;
        let start = self.head_attributes.len();
        self.head_attributes.extend_from_slice(&attrs);
        self.scratch = attrs;
        let head = (
            stack,
            start..self.head_attributes.len(),
            self.sample_link(pos)?,
        );
        if same == pos {
            self.heads.insert(pos, head.clone());
        }
        Ok(head)
    }

    pub(super) fn sample_link(&mut self, pos: usize) -> Result<i32> {
        let p = self.p;
        let id = |col: &[StrId], name: &str| -> Result<Vec<u8>> {
            match col.get(pos).and_then(|&x| p.strings.get(x)) {
                None => Ok(Vec::new()),
                Some(t) => unhex(t.as_bytes()).ok_or_else(|| {
                    ProfileError::invalid(
                        "samples",
                        name,
                        Some(pos + 1),
                        format!("must be hex digits, found \"{t}\""),
                    )
                }),
            }
        };
        let (trace, span) = (
            id(&p.samples.trace_id, "trace_id")?,
            id(&p.samples.span_id, "span_id")?,
        );
        if trace.is_empty() && span.is_empty() {
            return Ok(0);
        }
        self.dict.link(trace, span)
    }
}
