//! Decoding a binary OTLP profiles message (`ProfilesData`, or the collector's
//! `ExportProfilesServiceRequest`, which has the same fields) into the
//! messages of `proto.rs`, field by field (`crate::io::wire`), so that a defect is
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
//!
//! (Longer than most files: one method per message of the schema, each
//! short, read best side by side.)

mod traces;

use super::proto;
use crate::io::wire::{nth_name, Decoded, Failure, Field, Fields, Schema, LENGTH_DELIMITED};
use crate::resources::budget::Budget;
pub(crate) use traces::{scan, Traces};

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
        crate::io::wire::reserve_exact(&mut v, n, what)?;
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
        crate::io::wire::reserve_exact(out, additional, what)
    }

    /// Pushes onto a vector reserved by a count pass (or grown, charged).
    pub(crate) fn push<T>(&mut self, out: &mut Vec<T>, value: T, what: &str) -> Decoded<()> {
        if out.len() == out.capacity() {
            // Doubling, from 4 elements.
            self.room(out, out.len().max(4), what)?;
        }
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
        // Its lists are packed: each is reserved exactly when it comes (a
        // count pass would walk every sample twice).
        let mut s = proto::Sample::default();
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
        let mut m = proto::Mapping::default();
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
        let mut s = proto::Stack::default();
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
