//! Resources, scopes and sources: the envelopes of the Profiles, and which
//! Profiles are one source.

use super::{entry, time_origin, ProfileFields, Reader};
use crate::error::Result;
use crate::formats::otlp::attributes::{self, Cells};
use crate::formats::otlp::{agree, typeless};
use crate::formats::otlp::{keys, proto};
use crate::io::text::utf8_escaped;
use crate::model::{next_id, StrId, NA_INT};

impl Reader<'_, '_> {
    /// Resources, scopes and sources (with their sample types); returns the
    /// Profiles of each source.
    pub(super) fn envelopes<'m>(
        &mut self,
        m: &'m proto::ProfilesData,
        source_uri: Option<&str>,
    ) -> Result<Vec<Vec<&'m proto::Profile>>> {
        let mut groups: Vec<Vec<&'m proto::Profile>> = Vec::new();
        let mut scope_rows = 0usize;
        for (ri, rp) in m.resource_profiles.iter().enumerate() {
            let resource_id = next_id(ri, "resources")?;
            let res = rp.resource.clone().unwrap_or_default();
            let refs = (!res.entity_refs.is_empty())
                .then(|| crate::formats::otlp::json::entity_refs_text(&res.entity_refs));
            let schema_url = self
                .p
                .strings
                .try_intern(&utf8_escaped(&rp.schema_url), self.budget)?;
            let entity_refs = match refs {
                Some(t) => self.p.strings.try_intern(&t, self.budget)?,
                None => StrId::NA,
            };
            let t = &mut self.p.resources;
            t.resource_id.push(resource_id);
            t.schema_url.push(schema_url);
            t.dropped_attributes_count
                .push(i32::try_from(res.dropped_attributes_count).unwrap_or(NA_INT));
            t.entity_refs.push(entity_refs);
            for kv in &res.attributes {
                let (key, cells) = self.key_value(kv, "resource")?;
                push_attribute!(
                    &mut self.p.resource_attributes,
                    resource_id = resource_id,
                    key,
                    StrId::NA,
                    cells
                );
            }
            for (si, sp) in rp.scope_profiles.iter().enumerate() {
                let scope_id = next_id(scope_rows, "scopes")?;
                scope_rows += 1;
                let default_type = self.scope(sp, scope_id, resource_id)?;
                let mut start = 0usize;
                while let Some(lead) = sp.profiles.get(start) {
                    let mut group = vec![lead];
                    let mut types = vec![self.sample_type(lead)?.0];
                    for next in sp.profiles.iter().skip(start + 1) {
                        let t = self.sample_type(next)?.0;
                        // A Profile without a type is a source of its own.
                        if types.contains(&t)
                            || typeless(lead)
                            || typeless(next)
                            || !agree(lead, next)
                        {
                            break;
                        }
                        types.push(t);
                        group.push(next);
                    }
                    self.group_paths.push((ri, si, start));
                    start += group.len();
                    self.source(&group, scope_id, default_type, source_uri)?;
                    groups.push(group);
                }
            }
        }
        Ok(groups)
    }

    /// The process of each source (`process_id`, `host_name`,
    /// `process_role`) from its resource's attributes `process.pid` (an
    /// integer), `host.name` and `r.profile.process_role` (strings), which
    /// `write_otlp()` writes for a recording of parallel code.
    pub(super) fn processes(&mut self) {
        let p = &mut self.p;
        let a = &p.resource_attributes;
        let mut of_resource: Vec<(i32, i32, StrId, StrId)> = Vec::new();
        for r in 0..a.resource_id.len() {
            let (Some(&id), Some(&key)) = (a.resource_id.get(r), a.key.get(r)) else {
                continue;
            };
            let at = match of_resource.iter().position(|e| e.0 == id) {
                Some(i) => i,
                None => {
                    of_resource.push((id, NA_INT, StrId::NA, StrId::NA));
                    of_resource.len() - 1
                }
            };
            let value = a.value.get(r).copied().unwrap_or(StrId::NA);
            let num = a.num.get(r).copied().unwrap_or(f64::NAN);
            let Some(entry) = of_resource.get_mut(at) else {
                continue;
            };
            match p.strings.str(key) {
                keys::PROCESS_PID
                    if value.is_na()
                        && num.fract() == 0.0
                        && num > 0.0
                        && num <= i32::MAX as f64 =>
                {
                    entry.1 = num as i32;
                }
                keys::HOST_NAME => entry.2 = value,
                keys::PROCESS_ROLE => entry.3 = value,
                _ => {}
            }
        }
        let s = &mut p.sources;
        for src in 0..s.source_id.len() {
            let resource = s
                .scope_id
                .get(src)
                .and_then(|&scope| p.scopes.scope_id.iter().position(|&x| x == scope))
                .and_then(|row| p.scopes.resource_id.get(row));
            let found = resource.and_then(|&id| of_resource.iter().find(|e| e.0 == id));
            if let Some(&(_, pid, host, role)) = found {
                if let Some(x) = s.process_id.get_mut(src) {
                    *x = pid;
                }
                if let Some(x) = s.host_name.get_mut(src) {
                    *x = host;
                }
                if let Some(x) = s.process_role.get_mut(src) {
                    *x = role;
                }
            }
        }
    }

    pub(super) fn key_value(
        &mut self,
        kv: &proto::KeyValue,
        holder: &str,
    ) -> Result<(StrId, Cells)> {
        let what = || format!("a {holder} attribute");
        let d = self.d;
        let lookup = |index: i32, what: &dyn Fn() -> String| -> Result<String> {
            entry(
                &d.string_table,
                index,
                "string_table",
                holder,
                "attributes",
                what,
            )
            .map(|s| utf8_escaped(s).into_owned())
        };
        let key = attributes::key_of(kv, &lookup, &what)?;
        let cells = attributes::cells(kv.value.as_ref(), &lookup, &mut self.p.strings, &what)?;
        let key = self.p.strings.try_intern(&key, self.budget)?;
        Ok((key, cells))
    }

    /// The scope row and its attributes; returns the default sample type its
    /// attributes name (NA if none).
    pub(super) fn scope(
        &mut self,
        sp: &proto::ScopeProfiles,
        scope_id: i32,
        resource_id: i32,
    ) -> Result<StrId> {
        let scope = sp.scope.clone().unwrap_or_default();
        let name = self
            .p
            .strings
            .try_intern(&utf8_escaped(&scope.name), self.budget)?;
        let version = self
            .p
            .strings
            .try_intern(&utf8_escaped(&scope.version), self.budget)?;
        let schema_url = self
            .p
            .strings
            .try_intern(&utf8_escaped(&sp.schema_url), self.budget)?;
        let t = &mut self.p.scopes;
        t.scope_id.push(scope_id);
        t.resource_id.push(resource_id);
        t.name.push(name);
        t.version.push(version);
        t.schema_url.push(schema_url);
        t.dropped_attributes_count
            .push(i32::try_from(scope.dropped_attributes_count).unwrap_or(NA_INT));
        let mut default_type = StrId::NA;
        for kv in &scope.attributes {
            let (key, cells) = self.key_value(kv, "scope")?;
            if default_type.is_na()
                && self.p.str(key) == keys::DEFAULT_SAMPLE_TYPE
                && cells.kind.is_na()
                && !cells.value.is_na()
            {
                default_type = cells.value;
                continue;
            }
            push_attribute!(
                &mut self.p.scope_attributes,
                scope_id = scope_id,
                key,
                StrId::NA,
                cells
            );
        }
        Ok(default_type)
    }

    /// A Profile's sample type and unit (an unset one is entry 0 of the
    /// string table twice, as indices are read).
    pub(super) fn sample_type(&self, profile: &proto::Profile) -> Result<(StrId, StrId)> {
        let vt = profile.sample_type.clone().unwrap_or_default();
        let what = || "a Profile's sample_type".to_string();
        Ok((
            self.string(vt.type_strindex, "Profile", "sample_type", &what)?,
            self.string(vt.unit_strindex, "Profile", "sample_type", &what)?,
        ))
    }

    /// The fields that profile-level attributes carry.
    pub(super) fn profile_fields(&mut self, lead: &proto::Profile) -> Result<ProfileFields> {
        let mut f = ProfileFields {
            diff_base: NA_INT,
            ..Default::default()
        };
        for &index in &lead.attribute_indices {
            let a = self.attr(index, "Profile", &|| "a Profile".to_string())?;
            let key = self.p.str(a.key);
            let string = (a.cells.kind.is_na() && !a.cells.value.is_na() && a.unit.is_na())
                .then_some(a.cells.value);
            let kind = self.p.strings.get(a.cells.kind);
            let taken = match (key, string) {
                (keys::DROP_FRAMES, Some(v)) if f.drop_frames.is_na() => {
                    f.drop_frames = v;
                    true
                }
                (keys::KEEP_FRAMES, Some(v)) if f.keep_frames.is_na() => {
                    f.keep_frames = v;
                    true
                }
                (keys::DOC_URL, Some(v)) if f.doc_url.is_na() => {
                    f.doc_url = v;
                    true
                }
                (keys::SOURCE_TYPE, Some(v))
                    if f.source_type.is_none()
                        && crate::model::schema::SOURCE_TYPES.contains(&self.p.str(v)) =>
                {
                    f.source_type = Some(v);
                    true
                }
                (keys::SOURCE_URI, Some(v)) if f.source_uri.is_none() => {
                    f.source_uri = Some(v);
                    true
                }
                (keys::RPROF_HEADER, Some(v)) if f.rprof_header.is_na() => {
                    f.rprof_header = v;
                    true
                }
                (keys::SOURCE_LABEL, Some(v)) if f.source_label.is_na() => {
                    f.source_label = v;
                    true
                }
                (keys::SOURCE_TIMESTAMP, None)
                    if kind == Some("double") && f.source_timestamp.is_none() =>
                {
                    f.source_timestamp = Some(a.cells.num);
                    true
                }
                // The writer's mark between sources alike: not a field.
                (keys::SOURCE_INDEX, None) if kind.is_none() && !a.cells.num.is_nan() => true,
                (keys::DIFF_BASE, None) if kind == Some("bool") && f.diff_base == NA_INT => {
                    f.diff_base = i32::from(self.p.str(a.cells.value) == "true");
                    true
                }
                (k, Some(v)) => match k
                    .strip_prefix(keys::COMMENT)
                    .and_then(|r| r.strip_prefix('.'))
                    .and_then(|n| n.parse::<u64>().ok())
                {
                    Some(n) if !f.comments.iter().any(|&(m, _)| m == n) => {
                        f.comments.push((n, v));
                        true
                    }
                    _ => false,
                },
                _ => false,
            };
            if !taken {
                f.rest.push(index);
            }
        }
        f.comments.sort_by_key(|&(n, _)| n);
        Ok(f)
    }

    /// The `sources` row of a group of Profiles, its sample types and
    /// attributes.
    /// Longer than the house's 80 lines: the columns of a `sources` row from the
    /// fields of a `Profile`, in the message's order.
    pub(super) fn source(
        &mut self,
        group: &[&proto::Profile],
        scope_id: i32,
        default_type: StrId,
        source_uri: Option<&str>,
    ) -> Result<()> {
        let Some(lead) = group.first() else {
            return Ok(());
        };
        let source_id = next_id(self.p.sources.nrow(), "sources")?;
        let fields = self.profile_fields(lead)?;
        let (period_type, period_unit) = match &lead.period_type {
            Some(vt) => {
                let what = || "a Profile's period_type".to_string();
                (
                    self.string(vt.type_strindex, "Profile", "period_type", &what)?,
                    self.string(vt.unit_strindex, "Profile", "period_type", &what)?,
                )
            }
            None => (StrId::NA, StrId::NA),
        };
        let origin = time_origin(lead);
        let pool = &mut self.p.strings;
        let budget = self.budget;
        let mut text = |s: &str| pool.try_intern(s, budget);
        let source_type = match fields.source_type {
            Some(t) => t,
            None => text("otlp")?,
        };
        let uri = match (fields.source_uri, source_uri) {
            (Some(u), _) => u,
            (None, Some(u)) => text(u)?,
            (None, None) => StrId::NA,
        };
        let t0 = lead.time_unix_nano;
        let (timestamp, time_nanos) = match fields.source_timestamp {
            Some(ts) => (ts, StrId::NA),
            None if t0 == 0 => (f64::NAN, StrId::NA),
            None => (t0 as f64 / 1e9, text(itoa::Buffer::new().format(t0))?),
        };
        let origin_text = match origin {
            Some(o) if o != t0 => text(itoa::Buffer::new().format(o))?,
            _ => StrId::NA,
        };
        let nonempty = |b: &[u8], f: &mut dyn FnMut(&str) -> Result<StrId>| -> Result<StrId> {
            if b.is_empty() {
                Ok(StrId::NA)
            } else {
                f(&utf8_escaped(b))
            }
        };
        let profile_id = nonempty(
            crate::formats::otlp::hex(&lead.profile_id).as_bytes(),
            &mut text,
        )?;
        let format = nonempty(&lead.original_payload_format, &mut text)?;
        let payload = nonempty(
            crate::formats::otlp::hex(&lead.original_payload).as_bytes(),
            &mut text,
        )?;
        let s = &mut self.p.sources;
        s.source_id.push(source_id);
        s.source_type.push(source_type);
        s.source_uri.push(uri);
        s.source_timestamp.push(timestamp);
        s.period_type.push(period_type);
        s.period_unit.push(period_unit);
        let unset = |x: f64| if x == 0.0 { f64::NAN } else { x };
        s.period.push(unset(lead.period as f64));
        s.duration_nanos.push(unset(lead.duration_nano as f64));
        s.time_nanos.push(time_nanos);
        s.default_sample_type.push(default_type);
        s.doc_url.push(fields.doc_url);
        s.drop_frames.push(fields.drop_frames);
        s.keep_frames.push(fields.keep_frames);
        s.rprof_header.push(fields.rprof_header);
        s.source_label.push(fields.source_label);
        s.process_id.push(NA_INT);
        s.host_name.push(StrId::NA);
        s.process_role.push(StrId::NA);
        s.diff_base.push(fields.diff_base);
        s.scope_id.push(scope_id);
        s.profile_id.push(profile_id);
        s.dropped_attributes_count
            .push(match lead.dropped_attributes_count {
                0 => NA_INT,
                n => i32::try_from(n).unwrap_or(NA_INT),
            });
        s.original_payload_format.push(format);
        s.original_payload.push(payload);
        s.time_origin_nanos.push(origin_text);
        for &(_, c) in &fields.comments {
            self.p.source_comments.source_id.push(source_id);
            self.p.source_comments.comment.push(c);
        }
        for &index in &fields.rest {
            let a = self.attr(index, "Profile", &|| "a Profile".to_string())?;
            push_attribute!(
                &mut self.p.source_attributes,
                source_id = source_id,
                a.key,
                a.unit,
                a.cells
            );
        }
        for profile in group {
            if typeless(profile) {
                continue;
            }
            let (t, u) = self.sample_type(profile)?;
            let samples = &profile.samples;
            let ts_only = !samples.is_empty() && samples.iter().all(|s| s.values.is_empty());
            // What the writer does without being told (see `write.rs`): then
            // the column is NA, as in profiles of other formats.
            let by_default = !samples.is_empty()
                && samples.iter().all(|s| {
                    !s.timestamps_unix_nano.is_empty() && s.values.iter().all(|&v| v == 1)
                })
                && self.p.str(u) == "count";
            let st = &mut self.p.sample_types;
            st.source_id.push(source_id);
            st.value_type.push(t);
            st.unit.push(u);
            st.timestamps_only.push(if ts_only == by_default {
                NA_INT
            } else {
                i32::from(ts_only)
            });
        }
        Ok(())
    }
}
