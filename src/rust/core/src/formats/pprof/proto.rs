//! The messages of pprof's `profile.proto` (package `perftools.profiles`), written
//! by hand with prost's derive so that building the package needs no protoc.
//!
//! Field numbers follow github.com/google/pprof/proto/profile.proto, including the
//! fields added after Go's own copy (`doc_url`, `Location.is_folded`,
//! `Line.column`); readers that predate them skip them as unknown fields.
//!
//! Strings are kept as bytes: prost would refuse a whole file over one string that
//! is not UTF-8, while the reader wants to repair it (`<xx>` for a bad byte).
//! Repeated numbers are written packed (as Go does) and read packed or not.

#[derive(Clone, PartialEq, prost::Message)]
pub struct Profile {
    #[prost(message, repeated, tag = "1")]
    pub sample_type: Vec<ValueType>,
    #[prost(message, repeated, tag = "2")]
    pub sample: Vec<Sample>,
    #[prost(message, repeated, tag = "3")]
    pub mapping: Vec<Mapping>,
    #[prost(message, repeated, tag = "4")]
    pub location: Vec<Location>,
    #[prost(message, repeated, tag = "5")]
    pub function: Vec<Function>,
    /// Entry 0 must be "" (the writer guarantees it; the reader does not insist).
    #[prost(bytes = "vec", repeated, tag = "6")]
    pub string_table: Vec<Vec<u8>>,
    /// Index into the string table: a regular expression of frames to drop.
    #[prost(int64, tag = "7")]
    pub drop_frames: i64,
    /// Index into the string table: a regular expression of frames to keep.
    #[prost(int64, tag = "8")]
    pub keep_frames: i64,
    #[prost(int64, tag = "9")]
    pub time_nanos: i64,
    #[prost(int64, tag = "10")]
    pub duration_nanos: i64,
    #[prost(message, optional, tag = "11")]
    pub period_type: Option<ValueType>,
    #[prost(int64, tag = "12")]
    pub period: i64,
    /// Indices into the string table.
    #[prost(int64, repeated, tag = "13")]
    pub comment: Vec<i64>,
    /// Index into the string table: the type shown by default.
    #[prost(int64, tag = "14")]
    pub default_sample_type: i64,
    /// Index into the string table: documentation of the profile's sample types.
    #[prost(int64, tag = "15")]
    pub doc_url: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueType {
    /// Index into the string table.
    #[prost(int64, tag = "1")]
    pub r#type: i64,
    /// Index into the string table.
    #[prost(int64, tag = "2")]
    pub unit: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Sample {
    /// Innermost frame first.
    #[prost(uint64, repeated, tag = "1")]
    pub location_id: Vec<u64>,
    /// One value per `Profile.sample_type`.
    #[prost(int64, repeated, tag = "2")]
    pub value: Vec<i64>,
    #[prost(message, repeated, tag = "3")]
    pub label: Vec<Label>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Label {
    /// Index into the string table.
    #[prost(int64, tag = "1")]
    pub key: i64,
    /// Index into the string table; 0 for a numeric label.
    #[prost(int64, tag = "2")]
    pub str: i64,
    #[prost(int64, tag = "3")]
    pub num: i64,
    /// Index into the string table.
    #[prost(int64, tag = "4")]
    pub num_unit: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Mapping {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    #[prost(uint64, tag = "2")]
    pub memory_start: u64,
    #[prost(uint64, tag = "3")]
    pub memory_limit: u64,
    #[prost(uint64, tag = "4")]
    pub file_offset: u64,
    /// Index into the string table.
    #[prost(int64, tag = "5")]
    pub filename: i64,
    /// Index into the string table.
    #[prost(int64, tag = "6")]
    pub build_id: i64,
    #[prost(bool, tag = "7")]
    pub has_functions: bool,
    #[prost(bool, tag = "8")]
    pub has_filenames: bool,
    #[prost(bool, tag = "9")]
    pub has_line_numbers: bool,
    #[prost(bool, tag = "10")]
    pub has_inline_frames: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Location {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// 0 for none.
    #[prost(uint64, tag = "2")]
    pub mapping_id: u64,
    #[prost(uint64, tag = "3")]
    pub address: u64,
    /// Several lines mean inlined calls: the last one is the caller into which the
    /// ones before it were inlined (so line 0 is the innermost frame).
    #[prost(message, repeated, tag = "4")]
    pub line: Vec<Line>,
    #[prost(bool, tag = "5")]
    pub is_folded: bool,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Line {
    #[prost(uint64, tag = "1")]
    pub function_id: u64,
    #[prost(int64, tag = "2")]
    pub line: i64,
    #[prost(int64, tag = "3")]
    pub column: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct Function {
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// Index into the string table: the name shown (demangled).
    #[prost(int64, tag = "2")]
    pub name: i64,
    /// Index into the string table: the name as the system knows it (mangled).
    #[prost(int64, tag = "3")]
    pub system_name: i64,
    /// Index into the string table.
    #[prost(int64, tag = "4")]
    pub filename: i64,
    #[prost(int64, tag = "5")]
    pub start_line: i64,
}
