//! Decoding a binary OTLP profiles message (`ProfilesData`, or the collector's
//! `ExportProfilesServiceRequest`, which has the same fields) into the
//! messages of `proto.rs`, field by field (`crate::wire`), so that a defect is
//! named (the field and its byte offset) and memory is asked for only after it
//! is counted:
//!
//! - each message's fields are walked twice: once to count the elements of
//!   its repeated fields, then to fill vectors reserved to exactly that size;
//!   every reservation and every string is charged to the read's [`Budget`]
//!   first, so a hostile count is refused before it is allocated;
//! - a known field with the wrong wire type is a defect (generic protobuf
//!   runtimes file it among the unknown fields; here it is how a file of an
//!   older draft of the signal shows, see below); unknown fields are skipped;
//! - nested values (`AnyValue` arrays and lists) deeper than
//!   [`MAX_NESTING`] are refused.
//!
//! # Drafts
//!
//! The profiles signal changed its messages from release to release, often
//! reusing field numbers. A file of an older draft can decode against the
//! current messages while meaning something else (a v1.9 `Sample` has its
//! values where the current one has attribute indices). The decoder notes
//! the traces each draft leaves ([`Traces`]: fields of the wrong wire type at
//! the numbers a draft used, fields the current messages do not have), and
//! [`Traces::draft`] names the draft they point to; the reader refuses such a
//! file naming it rather than misreading it.

use super::proto;
use crate::budget::Budget;
use crate::wire::{
    nth_name, Decoded, Failure, Field, Fields, Schema, FIXED64, LENGTH_DELIMITED, VARINT,
};

/// Deepest nesting of `AnyValue`s (an array in an array ...) that is read.
pub const MAX_NESTING: usize = 64;

/// What the allocator takes for a heap block beyond its bytes.
const ALLOCATION_BYTES: u64 = 16;

/// The field names of the current messages, for error messages.
pub(crate) static OTLP: Schema = Schema {
    format: "OTLP",
    field: field_name,
};

fn field_name(message: &str, number: u64) -> Option<&'static str> {
    let names: &[&str] = match message {
        "ProfilesData" => &["resource_profiles", "dictionary"],
        "ProfilesDictionary" => &[
            "mapping_table",
            "location_table",
            "function_table",
            "link_table",
            "string_table",
            "attribute_table",
            "stack_table",
        ],
        "ResourceProfiles" => &["resource", "scope_profiles", "schema_url"],
        "ScopeProfiles" => &["scope", "profiles", "schema_url"],
        "Profile" => &[
            "sample_type",
            "samples",
            "time_unix_nano",
            "duration_nano",
            "period_type",
            "period",
            "profile_id",
            "dropped_attributes_count",
            "original_payload_format",
            "original_payload",
            "attribute_indices",
        ],
        "Link" => &["trace_id", "span_id"],
        "ValueType" => &["type_strindex", "unit_strindex"],
        "Sample" => &[
            "stack_index",
            "attribute_indices",
            "link_index",
            "values",
            "timestamps_unix_nano",
        ],
        "Mapping" => &[
            "memory_start",
            "memory_limit",
            "file_offset",
            "filename_strindex",
            "attribute_indices",
        ],
        "Stack" => &["location_indices"],
        "Location" => &["mapping_index", "address", "lines", "attribute_indices"],
        "Line" => &["function_index", "line", "column"],
        "Function" => &[
            "name_strindex",
            "system_name_strindex",
            "filename_strindex",
            "start_line",
        ],
        "KeyValueAndUnit" => &["key_strindex", "value", "unit_strindex"],
        "AnyValue" => &[
            "string_value",
            "bool_value",
            "int_value",
            "double_value",
            "array_value",
            "kvlist_value",
            "bytes_value",
            "string_value_strindex",
        ],
        "ArrayValue" | "KeyValueList" => &["values"],
        "KeyValue" => &["key", "value", "key_strindex"],
        "InstrumentationScope" => &["name", "version", "attributes", "dropped_attributes_count"],
        "EntityRef" => &["schema_url", "type", "id_keys", "description_keys"],
        "Resource" => &["attributes", "dropped_attributes_count", "entity_refs"],
        _ => &[],
    };
    nth_name(names, number)
}

/// Traces of older drafts of the signal met while decoding (see the module
/// documentation). Each is the offset where it was first seen.
#[derive(Debug, Default, Clone)]
pub(crate) struct Traces {
    /// v1.3: `ProfileContainer` (its start time, fixed64, at field 2) where
    /// `Profile` is now.
    container: Option<usize>,
    /// `Profile` field 8 holding bytes: v1.3's pprofextended `Profile` in its
    /// container (a message without a dictionary) or v1.8's `profile_id`.
    field8_bytes: Option<usize>,
    /// `ProfilesData` fields beyond 2 (v1.6: the lookup tables), or 2 of
    /// the wrong kind.
    tables_in_profiles_data: Option<usize>,
    /// `Profile` fields 3 to 6 holding lists or tables (v1.4 to v1.7: lookup
    /// tables in the Profile, `location_indices`).
    tables_in_profile: Option<usize>,
    /// Attribute table entries with a string key (v1.6, v1.7: `KeyValue`).
    string_keyed_attributes: Option<usize>,
    /// `ValueType.aggregation_temporality` (field 3, up to v1.8).
    aggregation_temporality: Option<usize>,
    /// v1.8 `Profile` fields: `profile_id` at 8, `dropped_attributes_count`
    /// at 9, `attribute_indices` at 12.
    profile_v18: Option<usize>,
    /// v1.8/v1.9 `Sample`: attribute indices (a list) at field 3, values at 2.
    sample_v18: Option<usize>,
    /// `Sample` fields beyond 5 (v1.4 to v1.7: timestamps at 6).
    sample_v17: Option<usize>,
    /// `Sample` field 4 as one varint (a v1.8/v1.9 `link_index`; a current
    /// writer packs its values).
    pub(crate) sample_unpacked_value: Option<usize>,
    /// Whether the message has a dictionary.
    pub(crate) dictionary: bool,
}

impl Traces {
    /// The draft the traces point to, if any, and where it shows.
    pub(crate) fn draft(&self) -> Option<(&'static str, usize)> {
        let container = self
            .container
            .or(self.field8_bytes.filter(|_| !self.dictionary));
        if let Some(at) = container {
            return Some((
                "v1.3 (`v1experimental`: a ProfileContainer around a pprofextended Profile)",
                at,
            ));
        }
        if let Some(at) = self.tables_in_profiles_data {
            return Some((
                "v1.6 (lookup tables as fields of ProfilesData, samples with location ranges)",
                at,
            ));
        }
        if let Some(at) = self.string_keyed_attributes {
            return Some((
                "v1.7 (a ProfilesDictionary with attribute tables of KeyValue, samples with \
                 location ranges)",
                at,
            ));
        }
        if let Some(at) = self.tables_in_profile {
            return Some(if self.dictionary {
                (
                    "v1.7 (ProfilesDictionary without stack_table, samples with location ranges)",
                    at,
                )
            } else {
                (
                    "v1.4/v1.5 (lookup tables inside each Profile, samples with location ranges)",
                    at,
                )
            });
        }
        if let Some(at) = self.sample_v17 {
            return Some(("v1.4 to v1.7 (samples with location ranges)", at));
        }
        let v18 = self
            .aggregation_temporality
            .or(self.profile_v18)
            .or(self.field8_bytes);
        if let Some(at) = v18 {
            return Some((
                "v1.8 (ValueType with aggregation_temporality; Sample values at field 2, \
                 attribute_indices at 3, link_index at 4)",
                at,
            ));
        }
        if let Some(at) = self.sample_v18 {
            return Some((
                "v1.8/v1.9 (Sample values at field 2, attribute_indices at 3, link_index at 4)",
                at,
            ));
        }
        None
    }
}

fn note(trace: &mut Option<usize>, at: usize) {
    trace.get_or_insert(at);
}

impl Traces {
    /// Notes what field `number` of wire type `wire_type` at `at` in a
    /// message `message` tells of the drafts; true if it is a trace of one.
    fn observe(&mut self, message: &str, number: u64, wire_type: u64, at: usize) -> bool {
        let trace = match (message, number, wire_type) {
            ("ProfilesData", 2, LENGTH_DELIMITED) => {
                self.dictionary = true;
                return false;
            }
            ("ProfilesData", 1, LENGTH_DELIMITED) => return false,
            ("ProfilesData", 1 | 2, _) | ("ProfilesData", 3..=8, _) => {
                &mut self.tables_in_profiles_data
            }
            ("Profile", 2, FIXED64) => &mut self.container,
            ("Profile", 8, LENGTH_DELIMITED) => &mut self.field8_bytes,
            ("Profile", 3 | 4 | 6, LENGTH_DELIMITED) | ("Profile", 15.., _) => {
                &mut self.tables_in_profile
            }
            ("Profile", 9, VARINT) | ("Profile", 12..=14, _) => &mut self.profile_v18,
            ("ValueType", 3, _) => &mut self.aggregation_temporality,
            ("Sample", 3, LENGTH_DELIMITED) => &mut self.sample_v18,
            ("Sample", 4, VARINT) => &mut self.sample_unpacked_value,
            ("Sample", 6.., _) => &mut self.sample_v17,
            ("KeyValueAndUnit", 1, LENGTH_DELIMITED) => &mut self.string_keyed_attributes,
            _ => return false,
        };
        note(trace, at);
        true
    }

    /// Whether any trace of a draft was seen.
    pub(crate) fn any(&self) -> bool {
        self.draft().is_some() || self.sample_unpacked_value.is_some()
    }
}

/// The traces of drafts in the whole message `data`, walked leniently (a
/// defect ends the walk of its message only), so that they are all known
/// when one is found, whatever the decoder met first.
pub(crate) fn scan(data: &[u8]) -> Traces {
    let mut traces = Traces::default();
    scan_message(&mut traces, data, "ProfilesData");
    traces
}

fn scan_message(traces: &mut Traces, data: &[u8], message: &'static str) {
    let mut fields = Fields::new(data, 0, message, &OTLP);
    while let Ok(Some(f)) = fields.next_field() {
        traces.observe(message, f.number, f.wire_type, f.at);
        let inner = match (message, f.number) {
            ("ProfilesData", 1) => "ResourceProfiles",
            ("ProfilesData", 2) => "ProfilesDictionary",
            ("ResourceProfiles", 2) => "ScopeProfiles",
            ("ScopeProfiles", 2) => "Profile",
            ("Profile", 1 | 5) => "ValueType",
            ("Profile", 2) => "Sample",
            ("ProfilesDictionary", 6) => "KeyValueAndUnit",
            _ => continue,
        };
        if let Ok((content, _)) = f.bytes() {
            scan_message(traces, content, inner);
        }
    }
}

/// The decoder of one message: its budget and what it charged, the traces of
/// drafts.
pub(crate) struct Decoder<'b> {
    budget: &'b Budget,
    /// Bytes charged for the decoded message (released by the caller once it
    /// is dropped).
    pub(crate) charged: u64,
    pub(crate) traces: Traces,
    depth: usize,
}

impl<'b> Decoder<'b> {
    pub(crate) fn new(budget: &'b Budget) -> Self {
        Decoder {
            budget,
            charged: 0,
            traces: Traces::default(),
            depth: 0,
        }
    }

    /// The read's budget.
    pub(crate) fn budget(&self) -> &'b Budget {
        self.budget
    }

    fn charge(&mut self, bytes: u64) -> Decoded<()> {
        self.budget
            .charge(bytes, || "the decoded OTLP message".to_string())
            .map_err(Failure::Memory)?;
        self.charged = self.charged.saturating_add(bytes);
        Ok(())
    }

    /// A vector with room for exactly `n` elements, charged first.
    pub(crate) fn vec_of<T>(&mut self, n: usize, what: &str) -> Decoded<Vec<T>> {
        if n == 0 {
            return Ok(Vec::new());
        }
        let bytes = (n as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        self.charge(bytes.saturating_add(ALLOCATION_BYTES))?;
        let mut v = Vec::new();
        crate::wire::reserve_exact(&mut v, n, what)?;
        Ok(v)
    }

    /// The bytes of a string or bytes field, charged first.
    fn bytes(&mut self, f: &Field<'_>) -> Decoded<Vec<u8>> {
        let (content, _) = f.bytes()?;
        let mut v = self.vec_of::<u8>(content.len(), f.message)?;
        v.extend_from_slice(content);
        Ok(v)
    }

    /// The bytes of a string field, which must be UTF-8 (as protobuf
    /// runtimes require of proto3 strings), charged first.
    fn string(&mut self, f: &Field<'_>) -> Decoded<Vec<u8>> {
        let (content, offset) = f.bytes()?;
        if let Err(e) = std::str::from_utf8(content) {
            return Err(Failure::Defect(
                offset + e.valid_up_to(),
                format!("{} is not valid UTF-8 text", f.name()),
            ));
        }
        self.bytes(f)
    }

    /// Numbers of a repeated varint field, added to `out` (reserved by the
    /// count pass, else charged here).
    fn numbers<T>(
        &mut self,
        f: &Field<'_>,
        out: &mut Vec<T>,
        convert: impl Fn(u64) -> T,
    ) -> Decoded<()> {
        self.room(out, f.varint_count(), f.message)?;
        f.numbers_into(out, convert)
    }

    /// Room for `n` more elements in `out`, charged when it must grow.
    pub(crate) fn room<T>(&mut self, out: &mut Vec<T>, n: usize, what: &str) -> Decoded<()> {
        if out.capacity() - out.len() >= n {
            return Ok(());
        }
        // Exactly what is asked for a vector reserved by a count pass (it is
        // never full then); doubling for one filled element by element.
        let additional = if out.is_empty() { n } else { n.max(out.len()) };
        let grow = out.len() + additional - out.capacity();
        let bytes = (grow as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        self.charge(bytes.saturating_add(ALLOCATION_BYTES))?;
        crate::wire::reserve_exact(out, additional, what)
    }

    /// Pushes onto a vector reserved by a count pass (or grown, charged).
    pub(crate) fn push<T>(&mut self, out: &mut Vec<T>, value: T, what: &str) -> Decoded<()> {
        self.room(out, 1, what)?;
        out.push(value);
        Ok(())
    }

    /// Counts, per field number below `N`, the elements the occurrences of
    /// the message's fields add: 1 per occurrence, or the numbers of a packed
    /// field for the numbers in `packed`.
    fn counts<const N: usize>(
        data: &[u8],
        base: usize,
        message: &'static str,
        packed: &[usize],
    ) -> Decoded<[usize; N]> {
        let mut counts = [0usize; N];
        let mut fields = Fields::new(data, base, message, &OTLP);
        while let Some(f) = fields.next_field()? {
            if let Some(c) = usize::try_from(f.number)
                .ok()
                .and_then(|i| counts.get_mut(i))
            {
                let n = if packed.iter().any(|&p| p as u64 == f.number) {
                    f.varint_count().max(f.fixed64_count())
                } else {
                    1
                };
                *c = c.saturating_add(n);
            }
        }
        Ok(counts)
    }

    /// Decodes a whole message.
    pub(crate) fn decode(&mut self, data: &[u8]) -> Decoded<proto::ProfilesData> {
        let counts = Self::counts::<3>(data, 0, "ProfilesData", &[])?;
        let mut m = proto::ProfilesData {
            resource_profiles: self.vec_of(counts[1], "ProfilesData")?,
            dictionary: None,
        };
        let mut fields = Fields::new(data, 0, "ProfilesData", &OTLP);
        while let Some(f) = fields.next_field()? {
            match (f.number, f.wire_type) {
                (1, LENGTH_DELIMITED) => {
                    let r = self.resource_profiles(&f)?;
                    self.push(&mut m.resource_profiles, r, "ProfilesData")?;
                }
                (2, LENGTH_DELIMITED) => {
                    if m.dictionary.is_some() {
                        return Err(Failure::Defect(
                            f.at,
                            "a second dictionary (field 2): two messages concatenated?".to_string(),
                        ));
                    }
                    self.traces.dictionary = true;
                    m.dictionary = Some(self.dictionary(&f)?);
                }
                (1 | 2, _) => {
                    self.traces
                        .observe("ProfilesData", f.number, f.wire_type, f.at);
                    return Err(f.wrong_type());
                }
                _ => {
                    self.traces
                        .observe("ProfilesData", f.number, f.wire_type, f.at);
                }
            }
        }
        Ok(m)
    }

    fn dictionary(&mut self, f: &Field<'_>) -> Decoded<proto::ProfilesDictionary> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<8>(data, base, "ProfilesDictionary", &[])?;
        let what = "ProfilesDictionary";
        let mut d = proto::ProfilesDictionary {
            mapping_table: self.vec_of(c[1], what)?,
            location_table: self.vec_of(c[2], what)?,
            function_table: self.vec_of(c[3], what)?,
            link_table: self.vec_of(c[4], what)?,
            string_table: self.vec_of(c[5], what)?,
            attribute_table: self.vec_of(c[6], what)?,
            stack_table: self.vec_of(c[7], what)?,
        };
        let mut fields = f.message("ProfilesDictionary")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => {
                    let v = self.mapping(&f)?;
                    self.push(&mut d.mapping_table, v, what)?;
                }
                2 => {
                    let v = self.location(&f)?;
                    self.push(&mut d.location_table, v, what)?;
                }
                3 => {
                    let v = self.function(&f)?;
                    self.push(&mut d.function_table, v, what)?;
                }
                4 => {
                    let v = self.link(&f)?;
                    self.push(&mut d.link_table, v, what)?;
                }
                5 => {
                    let v = self.string(&f)?;
                    self.push(&mut d.string_table, v, what)?;
                }
                6 => {
                    let v = self.key_value_and_unit(&f)?;
                    self.push(&mut d.attribute_table, v, what)?;
                }
                7 => {
                    let v = self.stack(&f)?;
                    self.push(&mut d.stack_table, v, what)?;
                }
                _ => {}
            }
        }
        Ok(d)
    }

    fn resource_profiles(&mut self, f: &Field<'_>) -> Decoded<proto::ResourceProfiles> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<3>(data, base, "ResourceProfiles", &[])?;
        let mut r = proto::ResourceProfiles {
            scope_profiles: self.vec_of(c[2], "ResourceProfiles")?,
            ..Default::default()
        };
        let mut fields = f.message("ResourceProfiles")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => r.resource = Some(self.resource(&f)?),
                2 => {
                    let s = self.scope_profiles(&f)?;
                    self.push(&mut r.scope_profiles, s, "ResourceProfiles")?;
                }
                3 => r.schema_url = self.string(&f)?,
                _ => {}
            }
        }
        Ok(r)
    }

    fn scope_profiles(&mut self, f: &Field<'_>) -> Decoded<proto::ScopeProfiles> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<3>(data, base, "ScopeProfiles", &[])?;
        let mut s = proto::ScopeProfiles {
            profiles: self.vec_of(c[2], "ScopeProfiles")?,
            ..Default::default()
        };
        let mut fields = f.message("ScopeProfiles")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => s.scope = Some(self.scope(&f)?),
                2 => {
                    let p = self.profile(&f)?;
                    self.push(&mut s.profiles, p, "ScopeProfiles")?;
                }
                3 => s.schema_url = self.string(&f)?,
                _ => {}
            }
        }
        Ok(s)
    }

    fn profile(&mut self, f: &Field<'_>) -> Decoded<proto::Profile> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<12>(data, base, "Profile", &[11])?;
        let mut p = proto::Profile {
            samples: self.vec_of(c[2], "Profile")?,
            attribute_indices: self.vec_of(c[11], "Profile")?,
            ..Default::default()
        };
        let mut fields = f.message("Profile")?;
        while let Some(f) = fields.next_field()? {
            self.traces.observe("Profile", f.number, f.wire_type, f.at);
            match f.number {
                1 => p.sample_type = Some(self.value_type(&f)?),
                2 => {
                    let s = self.sample(&f)?;
                    self.push(&mut p.samples, s, "Profile")?;
                }
                3 => p.time_unix_nano = f.fixed64()?,
                4 => p.duration_nano = f.uint64()?,
                5 => p.period_type = Some(self.value_type(&f)?),
                6 => p.period = f.int64()?,
                7 => p.profile_id = self.bytes(&f)?,
                8 => p.dropped_attributes_count = f.uint32()?,
                9 => p.original_payload_format = self.string(&f)?,
                10 => p.original_payload = self.bytes(&f)?,
                11 => self.numbers(&f, &mut p.attribute_indices, |v| v as i32)?,
                _ => {}
            }
        }
        Ok(p)
    }

    fn value_type(&mut self, f: &Field<'_>) -> Decoded<proto::ValueType> {
        let mut v = proto::ValueType::default();
        let mut fields = f.message("ValueType")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => v.type_strindex = f.int32()?,
                2 => v.unit_strindex = f.int32()?,
                3 => {
                    self.traces
                        .observe("ValueType", f.number, f.wire_type, f.at);
                }
                _ => {}
            }
        }
        Ok(v)
    }

    fn sample(&mut self, f: &Field<'_>) -> Decoded<proto::Sample> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<6>(data, base, "Sample", &[2, 4, 5])?;
        let mut s = proto::Sample {
            attribute_indices: self.vec_of(c[2], "Sample")?,
            values: self.vec_of(c[4], "Sample")?,
            timestamps_unix_nano: self.vec_of(c[5], "Sample")?,
            ..Default::default()
        };
        let mut fields = f.message("Sample")?;
        while let Some(f) = fields.next_field()? {
            self.traces.observe("Sample", f.number, f.wire_type, f.at);
            match f.number {
                1 => s.stack_index = f.int32()?,
                2 => self.numbers(&f, &mut s.attribute_indices, |v| v as i32)?,
                3 => s.link_index = f.int32()?,
                4 => self.numbers(&f, &mut s.values, |v| v as i64)?,
                5 => {
                    self.room(&mut s.timestamps_unix_nano, f.fixed64_count(), "Sample")?;
                    f.fixed64s_into(&mut s.timestamps_unix_nano)?;
                }
                _ => {}
            }
        }
        Ok(s)
    }

    fn mapping(&mut self, f: &Field<'_>) -> Decoded<proto::Mapping> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<6>(data, base, "Mapping", &[5])?;
        let mut m = proto::Mapping {
            attribute_indices: self.vec_of(c[5], "Mapping")?,
            ..Default::default()
        };
        let mut fields = f.message("Mapping")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => m.memory_start = f.uint64()?,
                2 => m.memory_limit = f.uint64()?,
                3 => m.file_offset = f.uint64()?,
                4 => m.filename_strindex = f.int32()?,
                5 => self.numbers(&f, &mut m.attribute_indices, |v| v as i32)?,
                _ => {}
            }
        }
        Ok(m)
    }

    fn location(&mut self, f: &Field<'_>) -> Decoded<proto::Location> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<5>(data, base, "Location", &[4])?;
        let mut l = proto::Location {
            lines: self.vec_of(c[3], "Location")?,
            attribute_indices: self.vec_of(c[4], "Location")?,
            ..Default::default()
        };
        let mut fields = f.message("Location")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => l.mapping_index = f.int32()?,
                2 => l.address = f.uint64()?,
                3 => {
                    let line = self.line(&f)?;
                    self.push(&mut l.lines, line, "Location")?;
                }
                4 => self.numbers(&f, &mut l.attribute_indices, |v| v as i32)?,
                _ => {}
            }
        }
        Ok(l)
    }

    fn line(&mut self, f: &Field<'_>) -> Decoded<proto::Line> {
        let mut l = proto::Line::default();
        let mut fields = f.message("Line")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => l.function_index = f.int32()?,
                2 => l.line = f.int64()?,
                3 => l.column = f.int64()?,
                _ => {}
            }
        }
        Ok(l)
    }

    fn function(&mut self, f: &Field<'_>) -> Decoded<proto::Function> {
        let mut x = proto::Function::default();
        let mut fields = f.message("Function")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => x.name_strindex = f.int32()?,
                2 => x.system_name_strindex = f.int32()?,
                3 => x.filename_strindex = f.int32()?,
                4 => x.start_line = f.int64()?,
                _ => {}
            }
        }
        Ok(x)
    }

    fn link(&mut self, f: &Field<'_>) -> Decoded<proto::Link> {
        let mut l = proto::Link::default();
        let mut fields = f.message("Link")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => l.trace_id = self.bytes(&f)?,
                2 => l.span_id = self.bytes(&f)?,
                _ => {}
            }
        }
        Ok(l)
    }

    fn stack(&mut self, f: &Field<'_>) -> Decoded<proto::Stack> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<2>(data, base, "Stack", &[1])?;
        let mut s = proto::Stack {
            location_indices: self.vec_of(c[1], "Stack")?,
        };
        let mut fields = f.message("Stack")?;
        while let Some(f) = fields.next_field()? {
            if f.number == 1 {
                self.numbers(&f, &mut s.location_indices, |v| v as i32)?;
            }
        }
        Ok(s)
    }

    fn key_value_and_unit(&mut self, f: &Field<'_>) -> Decoded<proto::KeyValueAndUnit> {
        let mut a = proto::KeyValueAndUnit::default();
        let mut fields = f.message("KeyValueAndUnit")?;
        while let Some(f) = fields.next_field()? {
            self.traces
                .observe("KeyValueAndUnit", f.number, f.wire_type, f.at);
            match f.number {
                1 => a.key_strindex = f.int32()?,
                2 => a.value = Some(self.any_value(&f)?),
                3 => a.unit_strindex = f.int32()?,
                _ => {}
            }
        }
        Ok(a)
    }

    fn any_value(&mut self, f: &Field<'_>) -> Decoded<proto::AnyValue> {
        use proto::any_value::Value;
        if self.depth >= MAX_NESTING {
            return Err(Failure::Defect(
                f.at,
                format!("attribute values nested more than {MAX_NESTING} levels deep"),
            ));
        }
        self.depth += 1;
        let mut v = proto::AnyValue::default();
        let mut fields = f.message("AnyValue")?;
        while let Some(f) = fields.next_field()? {
            let value = match f.number {
                1 => Value::StringValue(self.string(&f)?),
                2 => Value::BoolValue(f.bool()?),
                3 => Value::IntValue(f.int64()?),
                4 => Value::DoubleValue(f.double()?),
                5 => Value::ArrayValue(self.array_value(&f)?),
                6 => Value::KvlistValue(self.kvlist_value(&f)?),
                7 => Value::BytesValue(self.bytes(&f)?),
                8 => Value::StringValueStrindex(f.int32()?),
                _ => continue,
            };
            // A oneof: the last one set wins, as protobuf runtimes read it.
            v.value = Some(value);
        }
        self.depth -= 1;
        Ok(v)
    }

    fn array_value(&mut self, f: &Field<'_>) -> Decoded<proto::ArrayValue> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<2>(data, base, "ArrayValue", &[])?;
        let mut a = proto::ArrayValue {
            values: self.vec_of(c[1], "ArrayValue")?,
        };
        let mut fields = f.message("ArrayValue")?;
        while let Some(f) = fields.next_field()? {
            if f.number == 1 {
                let v = self.any_value(&f)?;
                self.push(&mut a.values, v, "ArrayValue")?;
            }
        }
        Ok(a)
    }

    fn kvlist_value(&mut self, f: &Field<'_>) -> Decoded<proto::KeyValueList> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<2>(data, base, "KeyValueList", &[])?;
        let mut l = proto::KeyValueList {
            values: self.vec_of(c[1], "KeyValueList")?,
        };
        let mut fields = f.message("KeyValueList")?;
        while let Some(f) = fields.next_field()? {
            if f.number == 1 {
                let v = self.key_value(&f)?;
                self.push(&mut l.values, v, "KeyValueList")?;
            }
        }
        Ok(l)
    }

    fn key_value(&mut self, f: &Field<'_>) -> Decoded<proto::KeyValue> {
        let mut kv = proto::KeyValue::default();
        let mut fields = f.message("KeyValue")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => kv.key = self.string(&f)?,
                2 => kv.value = Some(self.any_value(&f)?),
                3 => kv.key_strindex = f.int32()?,
                _ => {}
            }
        }
        Ok(kv)
    }

    fn key_values(&mut self, out: &mut Vec<proto::KeyValue>, f: &Field<'_>) -> Decoded<()> {
        let kv = self.key_value(f)?;
        self.push(out, kv, f.message)
    }

    fn scope(&mut self, f: &Field<'_>) -> Decoded<proto::InstrumentationScope> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<4>(data, base, "InstrumentationScope", &[])?;
        let mut s = proto::InstrumentationScope {
            attributes: self.vec_of(c[3], "InstrumentationScope")?,
            ..Default::default()
        };
        let mut fields = f.message("InstrumentationScope")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => s.name = self.string(&f)?,
                2 => s.version = self.string(&f)?,
                3 => self.key_values(&mut s.attributes, &f)?,
                4 => s.dropped_attributes_count = f.uint32()?,
                _ => {}
            }
        }
        Ok(s)
    }

    fn resource(&mut self, f: &Field<'_>) -> Decoded<proto::Resource> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<4>(data, base, "Resource", &[])?;
        let mut r = proto::Resource {
            attributes: self.vec_of(c[1], "Resource")?,
            entity_refs: self.vec_of(c[3], "Resource")?,
            ..Default::default()
        };
        let mut fields = f.message("Resource")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => self.key_values(&mut r.attributes, &f)?,
                2 => r.dropped_attributes_count = f.uint32()?,
                3 => {
                    let e = self.entity_ref(&f)?;
                    self.push(&mut r.entity_refs, e, "Resource")?;
                }
                _ => {}
            }
        }
        Ok(r)
    }

    fn entity_ref(&mut self, f: &Field<'_>) -> Decoded<proto::EntityRef> {
        let (data, base) = f.bytes()?;
        let c = Self::counts::<5>(data, base, "EntityRef", &[])?;
        let mut e = proto::EntityRef {
            id_keys: self.vec_of(c[3], "EntityRef")?,
            description_keys: self.vec_of(c[4], "EntityRef")?,
            ..Default::default()
        };
        let mut fields = f.message("EntityRef")?;
        while let Some(f) = fields.next_field()? {
            match f.number {
                1 => e.schema_url = self.string(&f)?,
                2 => e.r#type = self.string(&f)?,
                3 => {
                    let k = self.string(&f)?;
                    self.push(&mut e.id_keys, k, "EntityRef")?;
                }
                4 => {
                    let k = self.string(&f)?;
                    self.push(&mut e.description_keys, k, "EntityRef")?;
                }
                _ => {}
            }
        }
        Ok(e)
    }
}
