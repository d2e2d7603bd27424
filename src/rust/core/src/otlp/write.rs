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

use super::attributes::{self, Cells};
use super::keys;
use super::proto;
use super::{unhex, DEFAULT_SCOPE_NAME};
use crate::budget::Budget;
use crate::error::{ProfileError, Result};
use crate::id_index::IdIndex;
use crate::identity::{first_equal_samples, LabelRows};
use crate::model::{Profile, StrId, NA_INT};
use crate::pprof::parse_hex_address;
use crate::summary::SampleFrames;
use prost::Message;
use rustc_hash::FxHashMap;

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

/// The dictionary being built.
struct Dictionary {
    d: proto::ProfilesDictionary,
    strings: FxHashMap<String, i32>,
    attributes: FxHashMap<(i32, i32, Vec<u8>), i32>,
    stacks: FxHashMap<Vec<i32>, i32>,
    links: FxHashMap<(Vec<u8>, Vec<u8>), i32>,
}

impl Dictionary {
    fn new() -> Self {
        let zero_link = proto::Link {
            trace_id: vec![0; 16],
            span_id: vec![0; 8],
        };
        let mut d = Dictionary {
            d: proto::ProfilesDictionary {
                mapping_table: vec![proto::Mapping::default()],
                location_table: vec![proto::Location::default()],
                function_table: vec![proto::Function::default()],
                link_table: vec![zero_link],
                string_table: vec![Vec::new()],
                attribute_table: vec![proto::KeyValueAndUnit::default()],
                stack_table: vec![proto::Stack::default()],
            },
            strings: FxHashMap::default(),
            attributes: FxHashMap::default(),
            stacks: FxHashMap::default(),
            links: FxHashMap::default(),
        };
        d.strings.insert(String::new(), 0);
        d.attributes.insert((0, 0, Vec::new()), 0);
        d.stacks.insert(Vec::new(), 0);
        d
    }

    fn string(&mut self, s: &str) -> Result<i32> {
        if let Some(&i) = self.strings.get(s) {
            return Ok(i);
        }
        let i = index(self.d.string_table.len(), "string table")?;
        self.d.string_table.push(s.as_bytes().to_vec());
        self.strings.insert(s.to_string(), i);
        Ok(i)
    }

    fn attribute(&mut self, key: &str, value: proto::AnyValue, unit: &str) -> Result<i32> {
        let key = self.string(key)?;
        let unit = if unit.is_empty() {
            0
        } else {
            self.string(unit)?
        };
        let encoded = if value.value.is_none() {
            Vec::new()
        } else {
            value.encode_to_vec()
        };
        let k = (key, unit, encoded);
        if let Some(&i) = self.attributes.get(&k) {
            return Ok(i);
        }
        let i = index(self.d.attribute_table.len(), "attribute table")?;
        self.d.attribute_table.push(proto::KeyValueAndUnit {
            key_strindex: key,
            value: Some(value),
            unit_strindex: unit,
        });
        self.attributes.insert(k, i);
        Ok(i)
    }

    fn string_attribute(&mut self, key: &str, value: &str) -> Result<i32> {
        let v = proto::AnyValue {
            value: Some(proto::any_value::Value::StringValue(
                value.as_bytes().to_vec(),
            )),
        };
        self.attribute(key, v, "")
    }

    fn bool_attribute(&mut self, key: &str, value: bool) -> Result<i32> {
        let v = proto::AnyValue {
            value: Some(proto::any_value::Value::BoolValue(value)),
        };
        self.attribute(key, v, "")
    }

    fn stack(&mut self, locations: Vec<i32>) -> Result<i32> {
        if let Some(&i) = self.stacks.get(&locations) {
            return Ok(i);
        }
        let i = index(self.d.stack_table.len(), "stack table")?;
        self.d.stack_table.push(proto::Stack {
            location_indices: locations.clone(),
        });
        self.stacks.insert(locations, i);
        Ok(i)
    }

    fn link(&mut self, trace: Vec<u8>, span: Vec<u8>) -> Result<i32> {
        let k = (trace, span);
        if let Some(&i) = self.links.get(&k) {
            return Ok(i);
        }
        let i = index(self.d.link_table.len(), "link table")?;
        self.d.link_table.push(proto::Link {
            trace_id: k.0.clone(),
            span_id: k.1.clone(),
        });
        self.links.insert(k, i);
        Ok(i)
    }
}

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
type ResourceSources = (Option<usize>, Vec<(Option<usize>, Vec<usize>)>);

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
}

/// The profile as an OTLP message. The profile is validated first.
pub fn message_from_profile(p: &Profile) -> Result<proto::ProfilesData> {
    crate::validate::validate(p)?;
    let mut w = Writer {
        p,
        budget: Budget::address_space_only(),
        dict: Dictionary::new(),
        function_index: Vec::new(),
        mapping_index: FxHashMap::default(),
        inlined_into: Vec::new(),
        chains: FxHashMap::default(),
        location_attributes: rows_by_id(&p.location_attributes.location_id),
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
                match col.get(r).and_then(|&s| p.strings.get(s)) {
                    None => Ok(0),
                    Some(s) => parse_hex_address(s).ok_or_else(|| {
                        ProfileError::invalid(
                            "mappings",
                            name,
                            Some(r + 1),
                            format!("must be an address like \"0x4a2f\", found \"{s}\""),
                        )
                    }),
                }
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

    /// A Location for each chain of inlined rows, in table order.
    fn locations(&mut self) -> Result<()> {
        let l = &self.p.locations;
        let rows = IdIndex::try_unique_rows(
            &l.location_id,
            |_, _| Ok(()),
            |_, id| internal(format!("locations id {id} occurs more than once")),
        )?;
        self.inlined_into = l.inlined_into.iter().map(|&x| rows.row(x)).collect();
        let mut is_target = vec![false; l.nrow()];
        for t in self.inlined_into.iter().flatten() {
            if let Some(x) = is_target.get_mut(*t) {
                *x = true;
            }
        }
        for row in 0..l.nrow() {
            if is_target.get(row) == Some(&true) {
                continue;
            }
            let chain = self.chain(row)?;
            self.location(&chain)?;
        }
        Ok(())
    }

    /// Rows from `row` outwards along `inlined_into`.
    fn chain(&self, row: usize) -> Result<Vec<usize>> {
        let mut chain = vec![row];
        let mut cur = row;
        while let Some(next) = self.inlined_into.get(cur).copied().flatten() {
            if chain.len() > self.inlined_into.len() {
                return Err(ProfileError::inline_cycle(
                    row,
                    self.p
                        .locations
                        .location_id
                        .get(row)
                        .copied()
                        .unwrap_or(NA_INT),
                ));
            }
            chain.push(next);
            cur = next;
        }
        Ok(chain)
    }

    /// The Location of `rows` (innermost first), added on first use.
    fn location(&mut self, rows: &[usize]) -> Result<i32> {
        let Some(&first) = rows.first() else {
            return Err(internal("a location without rows".to_string()));
        };
        if let Some(&i) = self.chains.get(&(first, rows.len())) {
            return Ok(i);
        }
        let p = self.p;
        let l = &p.locations;
        let at = |col: &[i32], r: usize| col.get(r).copied().unwrap_or(NA_INT);
        let mapping = at(&l.mapping_id, first);
        let mapping_index = if mapping == NA_INT {
            0
        } else {
            self.mapping_index.get(&mapping).copied().unwrap_or(0)
        };
        let address = match l.address.get(first).and_then(|&a| p.strings.get(a)) {
            None => 0,
            Some(s) => parse_hex_address(s).ok_or_else(|| {
                ProfileError::invalid(
                    "locations",
                    "address",
                    Some(first + 1),
                    format!("must be an address like \"0x4a2f\", found \"{s}\""),
                )
            })?,
        };
        let lines = rows
            .iter()
            .filter(|&&r| at(&l.function_id, r) != NA_INT)
            .map(|&r| proto::Line {
                function_index: self.function_index.get(r).copied().unwrap_or(0),
                line: match at(&l.line, r) {
                    NA_INT => 0,
                    x => i64::from(x),
                },
                column: match at(&l.column, r) {
                    NA_INT => 0,
                    x => i64::from(x),
                },
            })
            .collect();
        let mut attrs = Vec::new();
        // FALSE too (pprof's), so that it does not read back as NA (unknown).
        let folded = at(&l.is_folded, first);
        if folded != NA_INT {
            attrs.push(self.dict.bool_attribute(keys::IS_FOLDED, folded != 0)?);
        }
        let mut attribute_rows = Vec::new();
        for &r in rows.iter().rev() {
            if let Some(rs) = self.location_attributes.get(&at(&l.location_id, r)) {
                attribute_rows.extend_from_slice(rs);
            }
        }
        // Each key once, from the outermost row that has it.
        let mut keys_seen = Vec::new();
        attribute_rows.retain(|&r| {
            let k = p.location_attributes.key.get(r).copied();
            if keys_seen.contains(&k) {
                false
            } else {
                keys_seen.push(k);
                true
            }
        });
        self.attribute_rows(
            "location_attributes",
            &attribute_rows,
            |p, r| {
                let t = &p.location_attributes;
                attribute_row!(t, r)
            },
            &mut attrs,
        )?;
        let i = index(self.dict.d.location_table.len(), "location table")?;
        self.dict.d.location_table.push(proto::Location {
            mapping_index,
            address,
            lines,
            attribute_indices: attrs,
        });
        self.chains.insert((first, rows.len()), i);
        Ok(i)
    }

    /// The stack of a sample's frames (rows of `locations`, leaf first):
    /// frames that form a chain of inlined rows are one location.
    fn stack(&mut self, frames: &[u32]) -> Result<i32> {
        let mut out = Vec::with_capacity(frames.len());
        let mut i = 0;
        while let Some(&f) = frames.get(i) {
            let first = f as usize;
            let mut len = 1;
            let mut cur = first;
            while let Some(next) = self.inlined_into.get(cur).copied().flatten() {
                if frames.get(i + len).map(|&x| x as usize) != Some(next) {
                    break;
                }
                len += 1;
                cur = next;
            }
            let rows: Vec<usize> = frames
                .get(i..i + len)
                .unwrap_or_default()
                .iter()
                .map(|&x| x as usize)
                .collect();
            out.push(self.location(&rows)?);
            i += len;
        }
        self.dict.stack(out)
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
            let resource = scope
                .and_then(|r| p.scopes.resource_id.get(r))
                .and_then(|&id| resource_rows.row(id))
                .filter(|_| p.has_table("resources"));
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
                for &src in &sources {
                    self.profiles(src, &samples, &mut sp.profiles)?;
                }
                rp.scope_profiles.push(sp);
            }
            out.push(rp);
        }
        Ok(out)
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

    fn resource(&mut self, row: Option<usize>) -> Result<proto::ResourceProfiles> {
        let p = self.p;
        let Some(r) = row else {
            return Ok(proto::ResourceProfiles {
                resource: Some(proto::Resource::default()),
                ..Default::default()
            });
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

    /// The attribute indices of source `src`'s Profiles.
    fn profile_attributes(&mut self, src: usize) -> Result<Vec<i32>> {
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
    fn profiles(
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
                Some(t) => crate::validate::parse_nanos(t)
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
        let groups = samples
            .groups
            .get(src)
            .map(Vec::as_slice)
            .unwrap_or_default();
        // Per group: stack, attributes, link (the same in every Profile).
        let mut heads = Vec::with_capacity(groups.len());
        for g in groups {
            let Some(&first) = g.first() else { continue };
            let stack = self.stack(samples.frames.of(first))?;
            let mut attrs = Vec::new();
            self.attribute_rows(
                "sample_labels",
                samples.labels.of(first),
                |p, r| {
                    let t = &p.sample_labels;
                    attribute_row!(t, r)
                },
                &mut attrs,
            )?;
            let link = self.sample_link(first)?;
            heads.push((stack, attrs, link));
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
            .flatten()
            .all(|&pos| p.samples.time.get(pos).is_some_and(|t| !t.is_nan()));
        let n_obs: usize = groups.iter().map(Vec::len).sum();
        for (col, ty) in types.iter().enumerate() {
            let value = |pos: usize| if typed { samples.value(pos, col) } else { 0.0 };
            let ts_only = n_obs > 0
                && all_timed
                && groups.iter().flatten().all(|&pos| value(pos) == 1.0)
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
                    attribute_indices: attrs.clone(),
                    link_index: *link,
                    values,
                    timestamps_unix_nano: timestamps,
                });
            }
            out.push(profile);
        }
        Ok(())
    }

    fn sample_link(&mut self, pos: usize) -> Result<i32> {
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

/// An OTLP count from an optional R integer (NA: 0).
fn count(x: Option<&i32>) -> u32 {
    match x {
        Some(&v) if v > 0 => v as u32,
        _ => 0,
    }
}

/// A sample type of a source.
struct SourceType {
    name: StrId,
    unit: StrId,
    timestamps_only: Option<bool>,
}

/// The samples of each source, grouped by identity, with their values per
/// sample type of their source.
struct SourceSamples {
    frames: SampleFrames,
    labels: LabelRows,
    /// Per source row: the groups of samples (positions) of equal identity,
    /// in order of first appearance.
    groups: Vec<Vec<Vec<usize>>>,
    /// Per source row: its sample types.
    types: Vec<Vec<SourceType>>,
    /// Per sample position: where its values start in `cells` (one per type
    /// of its source).
    offsets: Vec<usize>,
    cells: Vec<f64>,
}

impl SourceSamples {
    fn new(p: &Profile) -> Result<Self> {
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
        let sl = &p.sample_locations;
        let frames = SampleFrames::gather(
            &sl.sample_id,
            &sl.depth,
            &sl.location_id,
            &samples,
            p.samples.nrow(),
            |lid| locations.get(lid),
        )?;
        let labels = LabelRows::new(p, &samples);
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
        let first = first_equal_samples(p, &frames, &labels, |pos| scope_of.get(pos).copied());
        let mut groups: Vec<Vec<Vec<usize>>> = (0..n_sources).map(|_| Vec::new()).collect();
        let mut group_of = vec![usize::MAX; p.samples.nrow()];
        // The last sample of each source so far.
        let mut last: Vec<Option<usize>> = vec![None; n_sources];
        for (pos, &f) in first.iter().enumerate() {
            let src = source_of.get(pos).copied().unwrap_or(0);
            let Some(list) = groups.get_mut(src) else {
                continue;
            };
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
                    list.push(Vec::new());
                    list.len() - 1
                }
            };
            if let Some(slot) = group_of.get_mut(pos) {
                *slot = g;
            }
            if let Some(members) = list.get_mut(g) {
                members.push(pos);
            }
        }
        Ok(SourceSamples {
            frames,
            labels,
            groups,
            types,
            offsets,
            cells,
        })
    }

    /// The value of sample `pos` of its source's type `col` (0 when it has
    /// none).
    fn value(&self, pos: usize, col: usize) -> f64 {
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
