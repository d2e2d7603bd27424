//! The messages of the OpenTelemetry profiles signal (`opentelemetry-proto`,
//! `opentelemetry/proto/profiles/v1development/profiles.proto` at commit
//! ac2c4b5d, wire-identical to releases v1.10.0 and v1.11.0), with the common
//! and resource messages they use, written by hand with prost's derive so that
//! building the package needs no protoc.
//!
//! `ProfilesData` and the collector's `ExportProfilesServiceRequest` have the
//! same fields (resource_profiles = 1, dictionary = 2): one struct serves both.
//!
//! Strings are kept as bytes: the decoder (`decode.rs`) repairs a string that
//! is not UTF-8 (`<xx>` for a bad byte) rather than refusing the file; on the
//! wire a `string` and a `bytes` field are the same. Repeated numbers are
//! written packed, as proto3 writers do.

#[derive(Clone, PartialEq, prost::Message)]
pub struct ProfilesData {
    #[prost(message, repeated, tag = "1")]
    pub resource_profiles: Vec<ResourceProfiles>,
    #[prost(message, optional, tag = "2")]
    pub dictionary: Option<ProfilesDictionary>,
}

/// The tables shared by every profile of a `ProfilesData`; entry 0 of each is
/// its zero value, so that index 0 means "not set".
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProfilesDictionary {
    #[prost(message, repeated, tag = "1")]
    pub mapping_table: Vec<Mapping>,
    #[prost(message, repeated, tag = "2")]
    pub location_table: Vec<Location>,
    #[prost(message, repeated, tag = "3")]
    pub function_table: Vec<Function>,
    #[prost(message, repeated, tag = "4")]
    pub link_table: Vec<Link>,
    #[prost(bytes = "vec", repeated, tag = "5")]
    pub string_table: Vec<Vec<u8>>,
    #[prost(message, repeated, tag = "6")]
    pub attribute_table: Vec<KeyValueAndUnit>,
    #[prost(message, repeated, tag = "7")]
    pub stack_table: Vec<Stack>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ResourceProfiles {
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    #[prost(message, repeated, tag = "2")]
    pub scope_profiles: Vec<ScopeProfiles>,
    #[prost(bytes = "vec", tag = "3")]
    pub schema_url: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ScopeProfiles {
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    #[prost(message, repeated, tag = "2")]
    pub profiles: Vec<Profile>,
    #[prost(bytes = "vec", tag = "3")]
    pub schema_url: Vec<u8>,
}

/// One sample type of one source.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Profile {
    #[prost(message, optional, tag = "1")]
    pub sample_type: Option<ValueType>,
    #[prost(message, repeated, tag = "2")]
    pub samples: Vec<Sample>,
    #[prost(fixed64, tag = "3")]
    pub time_unix_nano: u64,
    #[prost(uint64, tag = "4")]
    pub duration_nano: u64,
    #[prost(message, optional, tag = "5")]
    pub period_type: Option<ValueType>,
    #[prost(int64, tag = "6")]
    pub period: i64,
    #[prost(bytes = "vec", tag = "7")]
    pub profile_id: Vec<u8>,
    #[prost(uint32, tag = "8")]
    pub dropped_attributes_count: u32,
    #[prost(bytes = "vec", tag = "9")]
    pub original_payload_format: Vec<u8>,
    #[prost(bytes = "vec", tag = "10")]
    pub original_payload: Vec<u8>,
    /// Indices into the attribute table.
    #[prost(int32, repeated, tag = "11")]
    pub attribute_indices: Vec<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Link {
    #[prost(bytes = "vec", tag = "1")]
    pub trace_id: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    pub span_id: Vec<u8>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueType {
    #[prost(int32, tag = "1")]
    pub type_strindex: i32,
    #[prost(int32, tag = "2")]
    pub unit_strindex: i32,
}

/// Observations of one stack, attribute set and link: `values` and/or
/// `timestamps_unix_nano`, equally long when both are set.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Sample {
    #[prost(int32, tag = "1")]
    pub stack_index: i32,
    #[prost(int32, repeated, tag = "2")]
    pub attribute_indices: Vec<i32>,
    #[prost(int32, tag = "3")]
    pub link_index: i32,
    #[prost(int64, repeated, tag = "4")]
    pub values: Vec<i64>,
    #[prost(fixed64, repeated, tag = "5")]
    pub timestamps_unix_nano: Vec<u64>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Mapping {
    #[prost(uint64, tag = "1")]
    pub memory_start: u64,
    #[prost(uint64, tag = "2")]
    pub memory_limit: u64,
    #[prost(uint64, tag = "3")]
    pub file_offset: u64,
    #[prost(int32, tag = "4")]
    pub filename_strindex: i32,
    #[prost(int32, repeated, tag = "5")]
    pub attribute_indices: Vec<i32>,
}

/// Leaf first.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Stack {
    #[prost(int32, repeated, tag = "1")]
    pub location_indices: Vec<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Location {
    /// 0: no mapping.
    #[prost(int32, tag = "1")]
    pub mapping_index: i32,
    #[prost(uint64, tag = "2")]
    pub address: u64,
    /// Several lines are inlined calls: the last is the caller the ones before
    /// it were inlined into.
    #[prost(message, repeated, tag = "3")]
    pub lines: Vec<Line>,
    #[prost(int32, repeated, tag = "4")]
    pub attribute_indices: Vec<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Line {
    #[prost(int32, tag = "1")]
    pub function_index: i32,
    #[prost(int64, tag = "2")]
    pub line: i64,
    #[prost(int64, tag = "3")]
    pub column: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Function {
    #[prost(int32, tag = "1")]
    pub name_strindex: i32,
    #[prost(int32, tag = "2")]
    pub system_name_strindex: i32,
    #[prost(int32, tag = "3")]
    pub filename_strindex: i32,
    #[prost(int64, tag = "4")]
    pub start_line: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValueAndUnit {
    #[prost(int32, tag = "1")]
    pub key_strindex: i32,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
    /// 0: no unit.
    #[prost(int32, tag = "3")]
    pub unit_strindex: i32,
}

// ---- opentelemetry.proto.common.v1 and .resource.v1 -------------------------

#[derive(Clone, PartialEq, prost::Message)]
pub struct AnyValue {
    #[prost(oneof = "any_value::Value", tags = "1, 2, 3, 4, 5, 6, 7, 8")]
    pub value: Option<any_value::Value>,
}

pub mod any_value {
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        #[prost(bytes, tag = "1")]
        StringValue(Vec<u8>),
        #[prost(bool, tag = "2")]
        BoolValue(bool),
        #[prost(int64, tag = "3")]
        IntValue(i64),
        #[prost(double, tag = "4")]
        DoubleValue(f64),
        #[prost(message, tag = "5")]
        ArrayValue(super::ArrayValue),
        #[prost(message, tag = "6")]
        KvlistValue(super::KeyValueList),
        #[prost(bytes, tag = "7")]
        BytesValue(Vec<u8>),
        /// A string of the profiles dictionary's string table.
        #[prost(int32, tag = "8")]
        StringValueStrindex(i32),
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ArrayValue {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<AnyValue>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValueList {
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<KeyValue>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValue {
    #[prost(bytes = "vec", tag = "1")]
    pub key: Vec<u8>,
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
    /// The key as a string of the profiles dictionary (instead of `key`).
    #[prost(int32, tag = "3")]
    pub key_strindex: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct InstrumentationScope {
    #[prost(bytes = "vec", tag = "1")]
    pub name: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    pub version: Vec<u8>,
    #[prost(message, repeated, tag = "3")]
    pub attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "4")]
    pub dropped_attributes_count: u32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct EntityRef {
    #[prost(bytes = "vec", tag = "1")]
    pub schema_url: Vec<u8>,
    #[prost(bytes = "vec", tag = "2")]
    pub r#type: Vec<u8>,
    #[prost(bytes = "vec", repeated, tag = "3")]
    pub id_keys: Vec<Vec<u8>>,
    #[prost(bytes = "vec", repeated, tag = "4")]
    pub description_keys: Vec<Vec<u8>>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Resource {
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
    #[prost(uint32, tag = "2")]
    pub dropped_attributes_count: u32,
    #[prost(message, repeated, tag = "3")]
    pub entity_refs: Vec<EntityRef>,
}
