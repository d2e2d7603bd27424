//! Decoded OTLP messages as a v2 profile, every index checked.
//!
//! - Each `ResourceProfiles` is a `resources` row, each `ScopeProfiles` a
//!   `scopes` row, their attributes rows of `resource_attributes` and
//!   `scope_attributes`.
//! - Consecutive Profiles of one scope that agree sample by sample (stack,
//!   attributes, link, timestamps, number of observations) and in every
//!   profile-level field but the sample type are one `sources` row with a
//!   sample type each (the collector's pprof translator writes one Profile per
//!   pprof sample type); any other Profile is a source of its own.
//! - Each observation of a `Sample` (a value and/or a timestamp) is a v2
//!   sample; a timestamps-only sample counts 1 per timestamp. `samples$time`
//!   is seconds from the source's start (`time_unix_nano`), or from its first
//!   timestamp when that is earlier or the start is unknown
//!   (`sources$time_origin_nanos` says so).
//! - Dictionary entries become rows with id = index + 1 (inlined lines of a
//!   location after them). Index 0 of `mapping_index` and `link_index` means
//!   none; other indices are taken as they are, 0 included (entry 0 is a row
//!   then, as the collector reads such a file).
//! - Attributes the collector's pprof translator uses for pprof fields fill
//!   the v2 columns of those fields; others go to the attribute tables.

use super::attributes::{self, Cells};
use super::keys;
use super::proto;
use crate::budget::{Budget, Growable};
use crate::error::{ProfileError, Result};
use crate::model::{next_id, Profile, StrId, NA_INT};
use crate::pprof::hex_address;
use crate::text::utf8_escaped;

/// Reads decoded messages (one, or several of a file of OTLP/JSON lines) as
/// one v2 profile.
pub fn profile_from_messages(
    messages: &[proto::ProfilesData],
    source_uri: Option<&str>,
    budget: &Budget,
) -> Result<Profile> {
    match messages {
        [one] => read_message(one, source_uri, budget),
        many => {
            let mut combiner =
                crate::combine::Combiner::new(crate::combine::CombineOptions { merge: true });
            for (i, m) in many.iter().enumerate() {
                let p = read_message(m, source_uri, budget).map_err(|e| in_message(e, i))?;
                combiner.add(&p)?;
            }
            let mut p = combiner.finish();
            drop_repeated_attributes(&mut p);
            Ok(p)
        }
    }
}

/// An error of the `i`-th message of a file of several.
fn in_message(e: ProfileError, i: usize) -> ProfileError {
    let prefix = format!("message {} of the file: ", i + 1);
    match e {
        ProfileError::Invalid {
            table,
            column,
            row,
            message,
        } => ProfileError::Invalid {
            table,
            column,
            row,
            message: prefix + &message,
        },
        ProfileError::Format { position, message } => ProfileError::Format {
            position,
            message: prefix + &message,
        },
        other => other,
    }
}

/// Locations and mappings merged when messages are combined keep each
/// attribute once.
fn drop_repeated_attributes(p: &mut Profile) {
    macro_rules! dedupe {
        ($table:ident, $id:ident) => {{
            let t = &p.$table;
            let mut seen = rustc_hash::FxHashSet::default();
            let keep: Vec<bool> = t
                .$id
                .iter()
                .zip(&t.key)
                .zip(&t.value)
                .zip(&t.num)
                .zip(&t.num_unit)
                .zip(&t.kind)
                .map(|(((((id, key), value), num), unit), kind)| {
                    seen.insert((id, key, value, num.to_bits(), unit, kind))
                })
                .collect();
            p.$table.retain_rows(&keep);
        }};
    }
    dedupe!(location_attributes, location_id);
    dedupe!(mapping_attributes, mapping_id);
}

fn invalid(table: &str, column: &str, message: String) -> ProfileError {
    ProfileError::invalid(table, column, None, message)
}

/// The error for an index that is negative or past the end of its table.
fn dangling(
    holder: &str,
    column: &str,
    what: &str,
    index: i64,
    target: &str,
    len: usize,
) -> ProfileError {
    let message = if index < 0 {
        format!("{what} has the negative index {index} into {target}")
    } else {
        let entries = if len == 1 { "entry" } else { "entries" };
        format!("{what} refers to entry {index} of {target}, which has {len} {entries}")
    };
    invalid(holder, column, message)
}

/// The entry `index` of `table`, checked.
fn entry<'t, T>(
    table: &'t [T],
    index: i32,
    target: &str,
    holder: &str,
    column: &str,
    what: &dyn Fn() -> String,
) -> Result<&'t T> {
    usize::try_from(index)
        .ok()
        .and_then(|i| table.get(i))
        .ok_or_else(|| dangling(holder, column, &what(), index.into(), target, table.len()))
}

/// The v2 id of entry `index` of a dictionary table of `len` entries: the
/// index itself, and for entry 0 (read only where it is referred to) `len`,
/// the first index after the table.
fn entry_id(index: usize, len: usize, what: &str) -> Result<i32> {
    let id = if index == 0 { len } else { index };
    i32::try_from(id).map_err(|_| crate::model::too_many(what))
}

/// A line number (or column, start line) as a v2 integer: 0 (unknown) or
/// positive; NA where R's integers cannot hold it.
fn line_number(value: i64) -> i32 {
    i32::try_from(value)
        .ok()
        .filter(|&v| v >= 0)
        .unwrap_or(NA_INT)
}

/// A converted entry of the attribute table.
#[derive(Clone, Copy)]
struct Attr {
    key: StrId,
    unit: StrId,
    cells: Cells,
}

/// The reading of one message.
struct Reader<'m, 'b> {
    p: Profile,
    d: &'m proto::ProfilesDictionary,
    budget: &'b Budget,
    strings: Vec<StrId>,
    attrs: Vec<Attr>,
    /// Per location index: the rows of `locations` its lines became.
    spans: Vec<Option<(usize, usize)>>,
    /// Per stack index: the first source whose samples use it.
    stack_source: Vec<i32>,
    /// Per `locations` row: whether its line's column is 0 (read as NA).
    column_zero: Vec<bool>,
    /// Whether index 0 of `mapping_index`, `link_index` and `unit_strindex`
    /// means none: where entry 0 of its table is the zero value, as the
    /// proto requires (else it is taken as it is, as other indices are).
    zero: ZeroMeansNone,
    /// Per source: where its first Profile is (resource, scope, profile).
    group_paths: Vec<(usize, usize, usize)>,
}

/// See [`Reader::zero`].
#[derive(Clone, Copy)]
struct ZeroMeansNone {
    mapping: bool,
    link: bool,
    unit: bool,
}

impl ZeroMeansNone {
    fn of(d: &proto::ProfilesDictionary) -> Self {
        let zero_bytes = |b: &[u8]| b.iter().all(|&x| x == 0);
        ZeroMeansNone {
            mapping: d
                .mapping_table
                .first()
                .is_none_or(|m| *m == proto::Mapping::default()),
            link: d
                .link_table
                .first()
                .is_none_or(|l| zero_bytes(&l.trace_id) && zero_bytes(&l.span_id)),
            unit: d.string_table.first().is_none_or(|s| s.is_empty()),
        }
    }
}

/// What profile-level attributes carry, beyond `source_attributes`.
#[derive(Default)]
struct ProfileFields {
    drop_frames: StrId,
    keep_frames: StrId,
    doc_url: StrId,
    comments: Vec<(u64, StrId)>,
    source_type: Option<StrId>,
    source_uri: Option<StrId>,
    source_timestamp: Option<f64>,
    rprof_header: StrId,
    diff_base: i32,
    /// Attribute indices of the rest.
    rest: Vec<i32>,
}

fn read_message(
    m: &proto::ProfilesData,
    source_uri: Option<&str>,
    budget: &Budget,
) -> Result<Profile> {
    // Index 0 into an empty table refers to its zero value (readers of a
    // file give messages whose tables have it, see `super::with_zero_entries`).
    let padded;
    let m = if needs_zero_entries(m) {
        let mut copy = m.clone();
        super::with_zero_entries(&mut copy);
        padded = copy;
        &padded
    } else {
        m
    };
    let empty = proto::ProfilesDictionary::default();
    let d = m.dictionary.as_ref().unwrap_or(&empty);
    let mut p = Profile::new();
    p.absent_tables.clear();
    let strings = intern_strings(&mut p, d, budget)?;
    let mut r = Reader {
        p,
        d,
        budget,
        strings,
        attrs: Vec::new(),
        spans: Vec::new(),
        stack_source: vec![NA_INT; d.stack_table.len()],
        column_zero: Vec::new(),
        zero: ZeroMeansNone::of(d),
        group_paths: Vec::new(),
    };
    r.convert_attributes()?;
    r.check_dictionary()?;
    let groups = r.envelopes(m, source_uri)?;
    r.functions_and_locations()?;
    r.samples(&groups)?;
    r.mappings()?;
    r.pprof_columns();
    Ok(r.p)
}

fn needs_zero_entries(m: &proto::ProfilesData) -> bool {
    m.dictionary.as_ref().is_none_or(|d| {
        d.mapping_table.is_empty()
            || d.location_table.is_empty()
            || d.function_table.is_empty()
            || d.link_table.is_empty()
            || d.string_table.is_empty()
            || d.attribute_table.is_empty()
            || d.stack_table.is_empty()
    })
}

/// The string table interned, charged to the budget.
fn intern_strings(
    p: &mut Profile,
    d: &proto::ProfilesDictionary,
    budget: &Budget,
) -> Result<Vec<StrId>> {
    let mut ids =
        budget.vec_with_capacity(d.string_table.len(), || "the string table".to_string())?;
    for s in &d.string_table {
        ids.push(p.strings.try_intern(&utf8_escaped(s), budget)?);
    }
    Ok(ids)
}

impl Reader<'_, '_> {
    fn string(
        &self,
        index: i32,
        holder: &str,
        column: &str,
        what: &dyn Fn() -> String,
    ) -> Result<StrId> {
        entry(&self.strings, index, "string_table", holder, column, what).copied()
    }

    fn convert_attributes(&mut self) -> Result<()> {
        let d = self.d;
        let mut attrs = self.budget.vec_with_capacity(d.attribute_table.len(), || {
            "the attribute table".to_string()
        })?;
        for (i, a) in d.attribute_table.iter().enumerate() {
            let what = || format!("attribute_table entry {i}");
            let key = self.string(a.key_strindex, "attribute_table", "key_strindex", &what)?;
            let unit = if a.unit_strindex == 0 && self.zero.unit {
                StrId::NA
            } else {
                self.string(a.unit_strindex, "attribute_table", "unit_strindex", &what)?
            };
            let lookup = |index: i32, what: &dyn Fn() -> String| -> Result<String> {
                entry(
                    &d.string_table,
                    index,
                    "string_table",
                    "attribute_table",
                    "value",
                    what,
                )
                .map(|s| utf8_escaped(s).into_owned())
            };
            let cells = attributes::cells(a.value.as_ref(), &lookup, &mut self.p.strings, &what)?;
            attrs.push(Attr { key, unit, cells });
        }
        self.attrs = attrs;
        Ok(())
    }

    fn attr(&self, index: i32, holder: &str, what: &dyn Fn() -> String) -> Result<Attr> {
        entry(
            &self.attrs,
            index,
            "attribute_table",
            holder,
            "attribute_indices",
            what,
        )
        .copied()
    }

    /// Every index of the dictionary's tables points into its table.
    fn check_dictionary(&self) -> Result<()> {
        let d = self.d;
        for (i, m) in d.mapping_table.iter().enumerate() {
            let what = || format!("mapping_table entry {i}");
            self.string(
                m.filename_strindex,
                "mapping_table",
                "filename_strindex",
                &what,
            )?;
            for &a in &m.attribute_indices {
                self.attr(a, "mapping_table", &what)?;
            }
        }
        for (i, f) in d.function_table.iter().enumerate() {
            let what = || format!("function_table entry {i}");
            self.string(f.name_strindex, "function_table", "name_strindex", &what)?;
            self.string(
                f.system_name_strindex,
                "function_table",
                "system_name_strindex",
                &what,
            )?;
            self.string(
                f.filename_strindex,
                "function_table",
                "filename_strindex",
                &what,
            )?;
        }
        for (i, l) in d.location_table.iter().enumerate() {
            let what = || format!("location_table entry {i}");
            entry(
                &d.mapping_table,
                l.mapping_index,
                "mapping_table",
                "location_table",
                "mapping_index",
                &what,
            )?;
            for line in &l.lines {
                entry(
                    &d.function_table,
                    line.function_index,
                    "function_table",
                    "location_table",
                    "lines.function_index",
                    &what,
                )?;
            }
            for &a in &l.attribute_indices {
                self.attr(a, "location_table", &what)?;
            }
        }
        for (i, s) in d.stack_table.iter().enumerate() {
            let what = || format!("stack_table entry {i}");
            for &l in &s.location_indices {
                entry(
                    &d.location_table,
                    l,
                    "location_table",
                    "stack_table",
                    "location_indices",
                    &what,
                )?;
            }
        }
        for (i, l) in d.link_table.iter().enumerate() {
            for (id, len, name) in [(&l.trace_id, 16, "trace_id"), (&l.span_id, 8, "span_id")] {
                if !id.is_empty() && id.len() != len {
                    return Err(invalid(
                        "link_table",
                        name,
                        format!(
                            "link_table entry {i} has a {name} of {} bytes; it must have {len} (or none)",
                            id.len()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Resources, scopes and sources (with their sample types); returns the
    /// Profiles of each source.
    fn envelopes<'m>(
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
                .then(|| super::json::entity_refs_text(&res.entity_refs));
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
                let t = &mut self.p.resource_attributes;
                t.resource_id.push(resource_id);
                push_attribute(
                    &mut t.key,
                    &mut t.value,
                    &mut t.num,
                    &mut t.num_unit,
                    &mut t.kind,
                    key,
                    StrId::NA,
                    cells,
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

    fn key_value(&mut self, kv: &proto::KeyValue, holder: &str) -> Result<(StrId, Cells)> {
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
    fn scope(
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
            let t = &mut self.p.scope_attributes;
            t.scope_id.push(scope_id);
            push_attribute(
                &mut t.key,
                &mut t.value,
                &mut t.num,
                &mut t.num_unit,
                &mut t.kind,
                key,
                StrId::NA,
                cells,
            );
        }
        Ok(default_type)
    }

    /// A Profile's sample type and unit (an unset one is entry 0 of the
    /// string table twice, as indices are read).
    fn sample_type(&self, profile: &proto::Profile) -> Result<(StrId, StrId)> {
        let vt = profile.sample_type.clone().unwrap_or_default();
        let what = || "a Profile's sample_type".to_string();
        Ok((
            self.string(vt.type_strindex, "Profile", "sample_type", &what)?,
            self.string(vt.unit_strindex, "Profile", "sample_type", &what)?,
        ))
    }

    /// The fields that profile-level attributes carry.
    fn profile_fields(&mut self, lead: &proto::Profile) -> Result<ProfileFields> {
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
                        && crate::schema::SOURCE_TYPES.contains(&self.p.str(v)) =>
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
                (keys::SOURCE_TIMESTAMP, None)
                    if kind == Some("double") && f.source_timestamp.is_none() =>
                {
                    f.source_timestamp = Some(a.cells.num);
                    true
                }
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
    fn source(
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
        let profile_id = nonempty(super::hex(&lead.profile_id).as_bytes(), &mut text)?;
        let format = nonempty(&lead.original_payload_format, &mut text)?;
        let payload = nonempty(super::hex(&lead.original_payload).as_bytes(), &mut text)?;
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
            let t = &mut self.p.source_attributes;
            t.source_id.push(source_id);
            push_attribute(
                &mut t.key,
                &mut t.value,
                &mut t.num,
                &mut t.num_unit,
                &mut t.kind,
                a.key,
                a.unit,
                a.cells,
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

    /// Functions (entries 1.., and 0 if a line refers to it) and locations
    /// (likewise; one row per line, inlined lines after all entries).
    fn functions_and_locations(&mut self) -> Result<()> {
        let d = self.d;
        let location_zero = d
            .stack_table
            .iter()
            .any(|s| s.location_indices.contains(&0));
        let first_location = usize::from(!location_zero);
        let function_zero = d
            .location_table
            .iter()
            .skip(first_location)
            .any(|l| l.lines.iter().any(|line| line.function_index == 0));
        let p0 = Profile::default();
        let rows: usize = d.location_table.iter().map(|l| l.lines.len().max(1)).sum();
        self.budget.charge(
            (rows as u64).saturating_mul(p0.locations.element_bytes())
                + (d.function_table.len() as u64).saturating_mul(p0.functions.element_bytes()),
            || "the locations and functions".to_string(),
        )?;
        for (i, f) in d
            .function_table
            .iter()
            .enumerate()
            .skip(usize::from(!function_zero))
        {
            let what = || format!("function_table entry {i}");
            let name = self.string(f.name_strindex, "function_table", "name_strindex", &what)?;
            let system_name = self.string(
                f.system_name_strindex,
                "function_table",
                "system_name_strindex",
                &what,
            )?;
            let filename = self.string(
                f.filename_strindex,
                "function_table",
                "filename_strindex",
                &what,
            )?;
            let t = &mut self.p.functions;
            t.function_id
                .push(entry_id(i, d.function_table.len(), "functions")?);
            t.name.push(name);
            t.system_name.push(system_name);
            t.filename.push(filename);
            t.start_line.push(line_number(f.start_line));
        }
        self.spans = vec![None; d.location_table.len()];
        // Inlined lines are numbered after every entry (and entry 0's id).
        let mut next_inlined = d.location_table.len();
        for (i, l) in d.location_table.iter().enumerate().skip(first_location) {
            let outer_id = entry_id(i, d.location_table.len(), "locations")?;
            let mapping_id = if l.mapping_index == 0 && self.zero.mapping {
                NA_INT
            } else {
                let m = usize::try_from(l.mapping_index).unwrap_or(0);
                entry_id(m, d.mapping_table.len(), "mappings")?
            };
            let address = if l.address == 0 {
                StrId::NA
            } else {
                self.p
                    .strings
                    .try_intern(&hex_address(l.address), self.budget)?
            };
            let mut is_folded = NA_INT;
            let mut rest = Vec::new();
            for &a in &l.attribute_indices {
                let attr =
                    self.attr(a, "location_table", &|| format!("location_table entry {i}"))?;
                let value = self.p.str(attr.cells.value);
                if is_folded == NA_INT
                    && self.p.str(attr.key) == keys::IS_FOLDED
                    && self.p.strings.get(attr.cells.kind) == Some("bool")
                    && attr.unit.is_na()
                {
                    is_folded = i32::from(value == "true");
                } else {
                    rest.push(attr);
                }
            }
            let n = l.lines.len().max(1);
            let start = self.p.locations.nrow();
            let mut ids = Vec::with_capacity(n);
            for _ in 1..n {
                ids.push(next_id(next_inlined, "locations")?);
                next_inlined += 1;
            }
            ids.push(outer_id);
            for k in 0..n {
                let (function_id, line, column) = match l.lines.get(k) {
                    None => (NA_INT, NA_INT, NA_INT),
                    Some(line) => (
                        entry_id(
                            usize::try_from(line.function_index).unwrap_or(0),
                            d.function_table.len(),
                            "functions",
                        )?,
                        line_number(line.line),
                        // "0 means unset"
                        if line.column == 0 {
                            NA_INT
                        } else {
                            line_number(line.column)
                        },
                    ),
                };
                self.column_zero
                    .push(l.lines.get(k).is_some_and(|line| line.column == 0));
                let t = &mut self.p.locations;
                t.location_id.push(ids.get(k).copied().unwrap_or(outer_id));
                t.function_id.push(function_id);
                t.line.push(line);
                t.address.push(address);
                t.mapping_id.push(mapping_id);
                t.is_folded.push(is_folded);
                t.column.push(column);
                t.inlined_into
                    .push(ids.get(k + 1).copied().unwrap_or(NA_INT));
            }
            if let Some(span) = self.spans.get_mut(i) {
                *span = Some((start, n));
            }
            for a in rest {
                let t = &mut self.p.location_attributes;
                t.location_id.push(outer_id);
                push_attribute(
                    &mut t.key,
                    &mut t.value,
                    &mut t.num,
                    &mut t.num_unit,
                    &mut t.kind,
                    a.key,
                    a.unit,
                    a.cells,
                );
            }
        }
        Ok(())
    }

    /// Columns 0 of locations that only sources written from pprof use read
    /// 0, as `read_pprof()` reads them (elsewhere 0 means unset: NA).
    fn pprof_columns(&mut self) {
        let p = &mut self.p;
        let pprof: Vec<bool> = p
            .sources
            .source_type
            .iter()
            .map(|&t| p.strings.str(t) == "pprof")
            .collect();
        if !pprof.iter().any(|&x| x) {
            return;
        }
        let rows = crate::id_index::IdIndex::try_first_rows(&p.locations.location_id);
        let samples = crate::id_index::IdIndex::try_first_rows(&p.samples.sample_id);
        let (Ok(rows), Ok(samples)) = (rows, samples) else {
            return;
        };
        let mut other = vec![false; p.locations.nrow()];
        let sl = &p.sample_locations;
        for (&sample, &location) in sl.sample_id.iter().zip(&sl.location_id) {
            let source = samples
                .row(sample)
                .and_then(|r| p.samples.source_id.get(r))
                .and_then(|&s| usize::try_from(s - 1).ok());
            let is_pprof = source.and_then(|s| pprof.get(s)).copied().unwrap_or(false);
            if let (false, Some(r)) = (is_pprof, rows.row(location)) {
                if let Some(x) = other.get_mut(r) {
                    *x = true;
                }
            }
        }
        let all_pprof = pprof.iter().all(|&x| x);
        let used = {
            let mut used = vec![false; p.locations.nrow()];
            for &location in &sl.location_id {
                if let Some(x) = rows.row(location).and_then(|r| used.get_mut(r)) {
                    *x = true;
                }
            }
            used
        };
        for (r, column) in p.locations.column.iter_mut().enumerate() {
            let zero = self.column_zero.get(r).copied().unwrap_or(false);
            let by_pprof = if used.get(r) == Some(&true) {
                other.get(r) == Some(&false)
            } else {
                all_pprof
            };
            if zero && by_pprof {
                *column = 0;
            }
        }
    }

    /// The frames (location ids, leaf first) of stack `index`.
    fn stack_frames(
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
    fn samples(&mut self, groups: &[Vec<&proto::Profile>]) -> Result<()> {
        self.check_samples(groups)?;
        self.charge_samples(groups)?;
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
                    let t = &mut self.p.sample_labels;
                    t.sample_id.push(sample_id);
                    push_attribute(
                        &mut t.key,
                        &mut t.value,
                        &mut t.num,
                        &mut t.num_unit,
                        &mut t.kind,
                        a.key,
                        a.unit,
                        a.cells,
                    );
                }
            }
        }
        Ok(())
    }

    /// Where sample `i` of Profile `j` of source `g` is in the message.
    fn sample_path(&self, g: usize, j: usize, i: usize) -> String {
        let (r, s, k) = self.group_paths.get(g).copied().unwrap_or_default();
        format!(
            "resource_profiles[{r}].scope_profiles[{s}].profiles[{}].samples[{i}]",
            k + j
        )
    }

    /// Every sample of every Profile has observations, as many values as
    /// timestamps when it has both.
    fn check_samples(&self, groups: &[Vec<&proto::Profile>]) -> Result<()> {
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

    /// Charges the budget for the rows of the sample tables.
    fn charge_samples(&self, groups: &[Vec<&proto::Profile>]) -> Result<()> {
        let p0 = Profile::default();
        let mut total: u64 = 0;
        for group in groups {
            let Some(lead) = group.first() else { continue };
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
                // A sample's row of each table, and its place in the order of
                // the observations.
                let per = 24
                    + p0.samples.element_bytes()
                    + group.len() as u64 * p0.sample_values.element_bytes()
                    + depth * p0.sample_locations.element_bytes()
                    + s.attribute_indices.len() as u64 * p0.sample_labels.element_bytes();
                total = total.saturating_add(n.saturating_mul(per));
            }
        }
        // The columns grow by doubling: up to twice their rows.
        self.budget.charge(total.saturating_mul(2), || {
            "the samples of the profile".to_string()
        })
    }

    /// Trace and span ids of link `index` (NA, NA for 0: no link).
    fn link(&mut self, index: i32, what: &dyn Fn() -> String) -> Result<(StrId, StrId)> {
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
                self.p.strings.try_intern(&super::hex(b), self.budget)
            }
        };
        Ok((id(&l.trace_id)?, id(&l.span_id)?))
    }

    /// Mappings (entries 1.., and 0 unless it is the zero value), each in
    /// the first source whose samples use it (else the first source); none
    /// when there are no sources.
    fn mappings(&mut self) -> Result<()> {
        let d = self.d;
        let Some(&first_source) = self.p.sources.source_id.first() else {
            self.p
                .locations
                .mapping_id
                .iter_mut()
                .for_each(|m| *m = NA_INT);
            return Ok(());
        };
        let mut source_of = vec![NA_INT; d.mapping_table.len()];
        for (k, &source) in self.stack_source.iter().enumerate() {
            if source == NA_INT {
                continue;
            }
            let Some(stack) = d.stack_table.get(k) else {
                continue;
            };
            for &l in &stack.location_indices {
                let mapping = usize::try_from(l)
                    .ok()
                    .and_then(|i| d.location_table.get(i))
                    .and_then(|loc| usize::try_from(loc.mapping_index).ok());
                if let Some(slot) = mapping.and_then(|m| source_of.get_mut(m)) {
                    if *slot == NA_INT {
                        *slot = source;
                    }
                }
            }
        }
        let first = usize::from(self.zero.mapping);
        for (i, m) in d.mapping_table.iter().enumerate().skip(first) {
            let mapping_id = entry_id(i, d.mapping_table.len(), "mappings")?;
            let what = || format!("mapping_table entry {i}");
            let filename = self.string(
                m.filename_strindex,
                "mapping_table",
                "filename_strindex",
                &what,
            )?;
            let mut build_id = StrId::NA;
            let mut flags = [0i32; 4];
            let mut rest = Vec::new();
            for &a in &m.attribute_indices {
                let attr = self.attr(a, "mapping_table", &what)?;
                let key = self.p.str(attr.key);
                let kind = self.p.strings.get(attr.cells.kind);
                let flag = [
                    keys::HAS_FUNCTIONS,
                    keys::HAS_FILENAMES,
                    keys::HAS_LINE_NUMBERS,
                    keys::HAS_INLINE_FRAMES,
                ]
                .iter()
                .position(|&k| k == key);
                match flag {
                    Some(f)
                        if kind == Some("bool")
                            && self.p.str(attr.cells.value) == "true"
                            && attr.unit.is_na()
                            && flags.get(f) == Some(&0) =>
                    {
                        if let Some(x) = flags.get_mut(f) {
                            *x = 1;
                        }
                    }
                    _ if key == keys::BUILD_ID
                        && build_id.is_na()
                        && kind.is_none()
                        && !attr.cells.value.is_na()
                        && attr.unit.is_na() =>
                    {
                        build_id = attr.cells.value;
                    }
                    _ => rest.push(attr),
                }
            }
            let mut text = |x: u64| self.p.strings.try_intern(&hex_address(x), self.budget);
            let (start, limit, offset) = (
                text(m.memory_start)?,
                text(m.memory_limit)?,
                text(m.file_offset)?,
            );
            let t = &mut self.p.mappings;
            t.mapping_id.push(mapping_id);
            t.source_id.push(match source_of.get(i) {
                Some(&s) if s != NA_INT => s,
                _ => first_source,
            });
            t.memory_start.push(start);
            t.memory_limit.push(limit);
            t.file_offset.push(offset);
            t.filename.push(filename);
            t.build_id.push(build_id);
            t.has_functions.push(flags[0]);
            t.has_filenames.push(flags[1]);
            t.has_line_numbers.push(flags[2]);
            t.has_inline_frames.push(flags[3]);
            for a in rest {
                let t = &mut self.p.mapping_attributes;
                t.mapping_id.push(mapping_id);
                push_attribute(
                    &mut t.key,
                    &mut t.value,
                    &mut t.num,
                    &mut t.num_unit,
                    &mut t.kind,
                    a.key,
                    a.unit,
                    a.cells,
                );
            }
        }
        Ok(())
    }
}

#[allow(clippy::too_many_arguments)]
fn push_attribute(
    key: &mut Vec<StrId>,
    value: &mut Vec<StrId>,
    num: &mut Vec<f64>,
    num_unit: &mut Vec<StrId>,
    kind: &mut Vec<StrId>,
    k: StrId,
    unit: StrId,
    cells: Cells,
) {
    key.push(k);
    value.push(cells.value);
    num.push(cells.num);
    num_unit.push(unit);
    kind.push(cells.kind);
}

/// The instant `samples$time` counts from for the samples of `lead` (and its
/// group): its `time_unix_nano` when that is at or before every timestamp and
/// the times after it are exact as doubles of nanoseconds; else the first
/// timestamp. None without timestamps.
fn time_origin(lead: &proto::Profile) -> Option<u64> {
    let mut stamps = lead
        .samples
        .iter()
        .flat_map(|s| s.timestamps_unix_nano.iter().copied());
    let first = stamps.next()?;
    let (min, max) = stamps.fold((first, first), |(lo, hi), t| (lo.min(t), hi.max(t)));
    let t0 = lead.time_unix_nano;
    Some(if t0 <= min && max - t0 <= 1 << 52 {
        t0
    } else {
        min
    })
}

/// Whether a Profile measures nothing: no sample type and every value 0 (what
/// the writer makes of a source without sample types, whose samples have no
/// values).
fn typeless(p: &proto::Profile) -> bool {
    p.sample_type.is_none()
        && p.samples
            .iter()
            .all(|s| !s.values.is_empty() && s.values.iter().all(|&v| v == 0))
}

/// Whether Profile `b` can be a sample type of the source whose first
/// Profile is `a`: every field but the sample type and the values agrees.
fn agree(a: &proto::Profile, b: &proto::Profile) -> bool {
    a.time_unix_nano == b.time_unix_nano
        && a.duration_nano == b.duration_nano
        && a.period_type == b.period_type
        && a.period == b.period
        && a.profile_id == b.profile_id
        && a.dropped_attributes_count == b.dropped_attributes_count
        && a.original_payload_format == b.original_payload_format
        && a.original_payload == b.original_payload
        && a.attribute_indices == b.attribute_indices
        && a.samples.len() == b.samples.len()
        && a.samples.iter().zip(&b.samples).all(|(x, y)| {
            x.stack_index == y.stack_index
                && x.attribute_indices == y.attribute_indices
                && x.link_index == y.link_index
                && x.timestamps_unix_nano == y.timestamps_unix_nano
                && x.values.len().max(x.timestamps_unix_nano.len())
                    == y.values.len().max(y.timestamps_unix_nano.len())
        })
}
