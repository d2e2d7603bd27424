//! A v2 profile as an OTLP `ProfilesData` message.
//!
//! - One dictionary for everything, entry 0 of each table its zero value
//!   (link 0 with all-zero ids of 16 and 8 bytes, as the proto recommends);
//!   strings, attributes, stacks and links each stored once. Every row of
//!   `functions` and `mappings` is an entry, and every chain of
//!   `locations` rows linked by `inlined_into` one Location (its lines
//!   innermost first), in table order, so that a profile reads back with the
//!   rows it had.
//! - Sources are grouped by their scope and its resource (`scopes`,
//!   `resources`); sources without one go into a scope named `profile` of a
//!   resource without attributes.
//! - Each source has one Profile per sample type (`sample_types` order, then
//!   types only `sample_values` names), all with the same samples: samples of
//!   equal identity (stack, labels, link, and whether they have a time) are
//!   one `Sample` whose values and timestamps list their observations in
//!   order. A Profile records timestamps only (each counting 1) when
//!   `sample_types$timestamps_only` says so, or, where it is NA, when every
//!   value is 1, every sample has a time and the unit is `count`.
//! - Timestamps are the source's start (`time_origin_nanos`, else the
//!   Profile's `time_unix_nano`) plus `samples$time`, rounded to the
//!   nanosecond: exact for times read from OTLP within 2^52 ns (52 days) of
//!   the start.
//! - Fields of pprof and of v2 sources that OTLP has no place for travel as
//!   attributes (`super::keys`).

/// Key, unit and value cells of row `r` of an attribute table.
macro_rules! attribute_row {
    ($t:expr, $r:expr) => {
        (
            $t.key.get($r).copied().unwrap_or(StrId::NA),
            $t.num_unit.get($r).copied().unwrap_or(StrId::NA),
            Cells {
                value: $t.value.get($r).copied().unwrap_or(StrId::NA),
                num: $t.num.get($r).copied().unwrap_or(f64::NAN),
                kind: $t.kind.get($r).copied().unwrap_or(StrId::NA),
            },
        )
    };
}

mod dictionary;
mod encode;
mod locations;
mod profiles;
mod samples;

use super::attributes::{self, Cells};
use super::keys;
use super::proto;
use super::DEFAULT_SCOPE_NAME;
use crate::error::{ProfileError, Result};
use crate::model::address::address_cell;
use crate::model::id_index::IdIndex;
use crate::model::{Profile, StrId, NA_INT};
use crate::resources::budget::Budget;
use dictionary::Dictionary;
pub use encode::encode_message;
use rustc_hash::FxHashMap;
use samples::SourceSamples;

fn internal(message: String) -> ProfileError {
    ProfileError::invalid("(profile)", "(profile)", None, message)
}

/// An index of a dictionary table as the message holds it.
fn index(i: usize, table: &str) -> Result<i32> {
    i32::try_from(i).map_err(|_| {
        ProfileError::limit(format!(
            "the {table} of the OTLP dictionary would have more than 2^31 - 1 entries"
        ))
    })
}

/// Rows of a table grouped by an id column: the rows of each id.
fn rows_by_id(ids: &[i32]) -> FxHashMap<i32, Vec<usize>> {
    let mut m: FxHashMap<i32, Vec<usize>> = FxHashMap::default();
    for (r, &id) in ids.iter().enumerate() {
        m.entry(id).or_default().push(r);
    }
    m
}

/// A resource row (None: the default resource) with its scopes, each a
/// scope row (None: the default scope) with its sources (rows).
type ResourceSources = (ResourceKey, Vec<(Option<usize>, Vec<usize>)>);

/// What makes a source's resource: its resource row, or (for sources without
/// one) its process (id, host, role: a recording of parallel code), else the
/// default resource.
#[derive(Clone, Copy, PartialEq)]
enum ResourceKey {
    Row(usize),
    Process(i32, StrId, StrId),
    Default,
}

struct Writer<'p> {
    p: &'p Profile,
    budget: Budget,
    dict: Dictionary,
    /// Dictionary index of each `locations` row's function (0 for NA).
    function_index: Vec<i32>,
    /// Dictionary index of each mapping id.
    mapping_index: FxHashMap<i32, i32>,
    /// Row each `locations` row is inlined into.
    inlined_into: Vec<Option<usize>>,
    /// Location index of (first row, rows) of a chain of inlined rows.
    chains: FxHashMap<(usize, usize), i32>,
    location_attributes: FxHashMap<i32, Vec<usize>>,
    /// The head of the first sample of each identity (by its position).
    heads: FxHashMap<usize, Head>,
    /// The attribute indices of the samples' heads, one after another.
    head_attributes: Vec<i32>,
    /// A buffer of attribute indices, kept for its memory.
    scratch: Vec<i32>,
}

/// What the samples of a group share in every Profile of their source: the
/// stack index, the attribute indices (a range of `Writer::head_attributes`)
/// and the link index.
type Head = (i32, std::ops::Range<usize>, i32);

/// The profile as an OTLP message. The profile is validated first.
pub fn message_from_profile(p: &Profile) -> Result<proto::ProfilesData> {
    crate::model::validate::validate(p)?;
    let mut w = Writer {
        p,
        budget: Budget::address_space_only(),
        dict: Dictionary::new(),
        function_index: Vec::new(),
        mapping_index: FxHashMap::default(),
        inlined_into: Vec::new(),
        chains: FxHashMap::default(),
        location_attributes: rows_by_id(&p.location_attributes.location_id),
        heads: FxHashMap::default(),
        head_attributes: Vec::new(),
        scratch: Vec::new(),
    };
    w.functions()?;
    w.mappings()?;
    w.locations()?;
    let resource_profiles = w.resources()?;
    Ok(proto::ProfilesData {
        resource_profiles,
        dictionary: Some(w.dict.d),
    })
}

impl<'p> Writer<'p> {
    fn str(&self, id: StrId) -> &'p str {
        self.p.strings.str(id)
    }

    /// The attributes of rows `rows` of an attribute table, as indices.
    fn attribute_rows(
        &mut self,
        table: &'static str,
        rows: &[usize],
        row: impl Fn(&Profile, usize) -> (StrId, StrId, Cells),
        out: &mut Vec<i32>,
    ) -> Result<()> {
        let p = self.p;
        for &r in rows {
            let (key, unit, cells) = row(p, r);
            let value = attributes::any_value(&p.strings, cells, &self.budget, table, r)?;
            let i = self.dict.attribute(self.str(key), value, self.str(unit))?;
            if !out.contains(&i) {
                out.push(i);
            }
        }
        Ok(())
    }

    fn functions(&mut self) -> Result<()> {
        let p = self.p;
        let f = &p.functions;
        let mut index_of = FxHashMap::default();
        for r in 0..f.nrow() {
            let get = |col: &[StrId]| col.get(r).copied().unwrap_or(StrId::NA);
            let entry = proto::Function {
                name_strindex: self.dict.string(self.str(get(&f.name)))?,
                system_name_strindex: self.dict.string(self.str(get(&f.system_name)))?,
                filename_strindex: self.dict.string(self.str(get(&f.filename)))?,
                start_line: match f.start_line.get(r) {
                    Some(&x) if x != NA_INT => i64::from(x),
                    _ => 0,
                },
            };
            let i = index(self.dict.d.function_table.len(), "function table")?;
            self.dict.d.function_table.push(entry);
            if let Some(&id) = f.function_id.get(r) {
                index_of.insert(id, i);
            }
        }
        self.function_index = p
            .locations
            .function_id
            .iter()
            .map(|id| index_of.get(id).copied().unwrap_or(0))
            .collect();
        Ok(())
    }

    fn mappings(&mut self) -> Result<()> {
        let p = self.p;
        let m = &p.mappings;
        let attribute_rows = rows_by_id(&p.mapping_attributes.mapping_id);
        for r in 0..m.nrow() {
            let hex = |col: &[StrId], name: &str| -> Result<u64> {
                col.get(r)
                    .map_or(Ok(0), |&id| address_cell(p, "mappings", name, r, id))
            };
            let mut attrs = Vec::new();
            if let Some(&b) = m.build_id.get(r) {
                if !b.is_na() {
                    attrs.push(self.dict.string_attribute(keys::BUILD_ID, self.str(b))?);
                }
            }
            let flags = [
                (&m.has_functions, keys::HAS_FUNCTIONS),
                (&m.has_filenames, keys::HAS_FILENAMES),
                (&m.has_line_numbers, keys::HAS_LINE_NUMBERS),
                (&m.has_inline_frames, keys::HAS_INLINE_FRAMES),
            ];
            for (col, key) in flags {
                if matches!(col.get(r), Some(&x) if x != NA_INT && x != 0) {
                    attrs.push(self.dict.bool_attribute(key, true)?);
                }
            }
            let id = m.mapping_id.get(r).copied().unwrap_or(NA_INT);
            if let Some(rows) = attribute_rows.get(&id) {
                self.attribute_rows(
                    "mapping_attributes",
                    rows,
                    |p, r| {
                        let t = &p.mapping_attributes;
                        attribute_row!(t, r)
                    },
                    &mut attrs,
                )?;
            }
            let entry = proto::Mapping {
                memory_start: hex(&m.memory_start, "memory_start")?,
                memory_limit: hex(&m.memory_limit, "memory_limit")?,
                file_offset: hex(&m.file_offset, "file_offset")?,
                filename_strindex: self
                    .dict
                    .string(self.str(m.filename.get(r).copied().unwrap_or(StrId::NA)))?,
                attribute_indices: attrs,
            };
            let i = index(self.dict.d.mapping_table.len(), "mapping table")?;
            self.dict.d.mapping_table.push(entry);
            self.mapping_index.insert(id, i);
        }
        Ok(())
    }

    /// The resources, with their scopes and the Profiles of their sources.
    fn resources(&mut self) -> Result<Vec<proto::ResourceProfiles>> {
        let p = self.p;
        let s = &p.sources;
        let scope_rows = IdIndex::try_first_rows(&p.scopes.scope_id)?;
        let resource_rows = IdIndex::try_first_rows(&p.resources.resource_id)?;
        // (resource row, scope row) of each source; None: the default.
        let mut order: Vec<ResourceSources> = Vec::new();
        for src in 0..s.nrow() {
            let scope = s
                .scope_id
                .get(src)
                .and_then(|&id| scope_rows.row(id))
                .filter(|_| p.has_table("scopes"));
            let row = scope
                .and_then(|r| p.scopes.resource_id.get(r))
                .and_then(|&id| resource_rows.row(id))
                .filter(|_| p.has_table("resources"));
            let pid = s.process_id.get(src).copied().unwrap_or(NA_INT);
            let resource = match row {
                Some(r) => ResourceKey::Row(r),
                None if pid != NA_INT => ResourceKey::Process(
                    pid,
                    s.host_name.get(src).copied().unwrap_or(StrId::NA),
                    s.process_role.get(src).copied().unwrap_or(StrId::NA),
                ),
                None => ResourceKey::Default,
            };
            let res_pos = match order.iter().position(|(r, _)| *r == resource) {
                Some(i) => i,
                None => {
                    order.push((resource, Vec::new()));
                    order.len() - 1
                }
            };
            if let Some((_, scopes)) = order.get_mut(res_pos) {
                match scopes.iter_mut().find(|(sc, _)| *sc == scope) {
                    Some((_, sources)) => sources.push(src),
                    None => scopes.push((scope, vec![src])),
                }
            }
        }
        let samples = SourceSamples::new(p)?;
        let mut out = Vec::with_capacity(order.len());
        for (resource, scopes) in order {
            let mut rp = self.resource(resource)?;
            for (scope, sources) in scopes {
                let mut sp = self.scope(scope, &sources)?;
                let mut previous = None;
                for (k, &src) in sources.iter().enumerate() {
                    let start = sp.profiles.len();
                    self.profiles(src, &samples, &mut sp.profiles)?;
                    if let Some(before) = previous {
                        self.mark_if_joined(&mut sp.profiles, before, start, k)?;
                    }
                    previous = Some(start);
                }
                rp.scope_profiles.push(sp);
            }
            out.push(rp);
        }
        Ok(out)
    }

    /// Marks the Profiles of the source at `profiles[start..]` (the `k`-th of
    /// its scope) when the reader would read them as more sample types of the
    /// source before, at `profiles[before..start]`: a source's Profiles are
    /// consecutive Profiles that agree in every field but their sample type
    /// (`super::agree`), and two sources can agree so.
    fn mark_if_joined(
        &mut self,
        profiles: &mut [proto::Profile],
        before: usize,
        start: usize,
        k: usize,
    ) -> Result<()> {
        let (Some(earlier), Some(lead)) = (profiles.get(before..start), profiles.get(start)) else {
            return Ok(());
        };
        let type_name = |p: &proto::Profile| p.sample_type.as_ref().map(|t| t.type_strindex);
        let joined = earlier.first().is_some_and(|first| {
            !super::typeless(first)
                && !super::typeless(lead)
                && super::agree(first, lead)
                // The dictionary holds each string once: equal names, equal indices.
                && earlier.iter().all(|p| type_name(p) != type_name(lead))
        });
        if joined {
            let position = proto::AnyValue {
                value: Some(proto::any_value::Value::IntValue(k as i64)),
            };
            let mark = self.dict.attribute(keys::SOURCE_INDEX, position, "")?;
            for p in profiles.iter_mut().skip(start) {
                p.attribute_indices.push(mark);
            }
        }
        Ok(())
    }

    fn key_values(
        &mut self,
        table: &'static str,
        rows: &[usize],
        row: impl Fn(&Profile, usize) -> (StrId, Cells),
    ) -> Result<Vec<proto::KeyValue>> {
        let p = self.p;
        rows.iter()
            .map(|&r| {
                let (key, cells) = row(p, r);
                Ok(proto::KeyValue {
                    key: self.str(key).as_bytes().to_vec(),
                    value: Some(attributes::any_value(
                        &p.strings,
                        cells,
                        &self.budget,
                        table,
                        r,
                    )?),
                    key_strindex: 0,
                })
            })
            .collect()
    }

    fn resource(&mut self, key: ResourceKey) -> Result<proto::ResourceProfiles> {
        let p = self.p;
        let r = match key {
            ResourceKey::Row(r) => r,
            ResourceKey::Process(pid, host, role) => {
                return Ok(self.process_resource(pid, host, role))
            }
            ResourceKey::Default => {
                return Ok(proto::ResourceProfiles {
                    resource: Some(proto::Resource::default()),
                    ..Default::default()
                })
            }
        };
        let t = &p.resources;
        let id = t.resource_id.get(r).copied().unwrap_or(NA_INT);
        let rows: Vec<usize> = (0..p.resource_attributes.nrow())
            .filter(|&x| p.resource_attributes.resource_id.get(x) == Some(&id))
            .collect();
        let attributes = self.key_values("resource_attributes", &rows, |p, r| {
            let t = &p.resource_attributes;
            let (key, _, cells) = attribute_row!(t, r);
            (key, cells)
        })?;
        let entity_refs = match t.entity_refs.get(r).and_then(|&e| p.strings.get(e)) {
            None => Vec::new(),
            Some(text) => super::json::parse_entity_refs(text, &self.budget).ok_or_else(|| {
                ProfileError::invalid(
                    "resources",
                    "entity_refs",
                    Some(r + 1),
                    "must be the OTLP/JSON text of an array of EntityRef objects".to_string(),
                )
            })?,
        };
        Ok(proto::ResourceProfiles {
            resource: Some(proto::Resource {
                attributes,
                dropped_attributes_count: count(t.dropped_attributes_count.get(r)),
                entity_refs,
            }),
            scope_profiles: Vec::new(),
            schema_url: self.bytes_of(t.schema_url.get(r)),
        })
    }

    /// The resource of the sources of one process of a recording of parallel
    /// code: `process.pid`, `host.name` and the process's role.
    fn process_resource(&self, pid: i32, host: StrId, role: StrId) -> proto::ResourceProfiles {
        let attribute = |key: &str, value: proto::any_value::Value| proto::KeyValue {
            key: key.as_bytes().to_vec(),
            value: Some(proto::AnyValue { value: Some(value) }),
            key_strindex: 0,
        };
        let mut attributes = vec![attribute(
            keys::PROCESS_PID,
            proto::any_value::Value::IntValue(i64::from(pid)),
        )];
        for (key, value) in [(keys::HOST_NAME, host), (keys::PROCESS_ROLE, role)] {
            if !value.is_na() {
                let text = self.str(value).as_bytes().to_vec();
                attributes.push(attribute(key, proto::any_value::Value::StringValue(text)));
            }
        }
        proto::ResourceProfiles {
            resource: Some(proto::Resource {
                attributes,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn bytes_of(&self, s: Option<&StrId>) -> Vec<u8> {
        s.map(|&x| self.str(x).as_bytes().to_vec())
            .unwrap_or_default()
    }

    fn scope(&mut self, row: Option<usize>, sources: &[usize]) -> Result<proto::ScopeProfiles> {
        let p = self.p;
        let mut scope = proto::InstrumentationScope::default();
        let mut schema_url = Vec::new();
        match row {
            None => scope.name = DEFAULT_SCOPE_NAME.as_bytes().to_vec(),
            Some(r) => {
                let t = &p.scopes;
                let id = t.scope_id.get(r).copied().unwrap_or(NA_INT);
                scope.name = self.bytes_of(t.name.get(r));
                scope.version = self.bytes_of(t.version.get(r));
                scope.dropped_attributes_count = count(t.dropped_attributes_count.get(r));
                schema_url = self.bytes_of(t.schema_url.get(r));
                let rows: Vec<usize> = (0..p.scope_attributes.nrow())
                    .filter(|&x| p.scope_attributes.scope_id.get(x) == Some(&id))
                    .collect();
                scope.attributes = self.key_values("scope_attributes", &rows, |p, r| {
                    let t = &p.scope_attributes;
                    let (key, _, cells) = attribute_row!(t, r);
                    (key, cells)
                })?;
            }
        }
        let default_type = sources
            .iter()
            .filter_map(|&src| p.sources.default_sample_type.get(src))
            .find(|t| !t.is_na());
        if let Some(&t) = default_type {
            scope.attributes.push(proto::KeyValue {
                key: keys::DEFAULT_SAMPLE_TYPE.as_bytes().to_vec(),
                value: Some(proto::AnyValue {
                    value: Some(proto::any_value::Value::StringValue(
                        self.str(t).as_bytes().to_vec(),
                    )),
                }),
                key_strindex: 0,
            });
        }
        Ok(proto::ScopeProfiles {
            scope: Some(scope),
            profiles: Vec::new(),
            schema_url,
        })
    }
}

/// An OTLP count from an optional R integer (NA: 0).
fn count(x: Option<&i32>) -> u32 {
    match x {
        Some(&v) if v > 0 => v as u32,
        _ => 0,
    }
}
