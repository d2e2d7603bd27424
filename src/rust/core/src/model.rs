//! The columnar v2 model. Every table is a struct of equally long column vectors,
//! laid out the way R stores them so the binding can copy them in one pass:
//! integers and logicals are `i32` with R's NA (`i32::MIN`), doubles are `f64` with
//! NaN as NA, and strings are ids into the profile's [`StringPool`] (0 is NA).
//! Interning keeps repetitive columns (sample value types, units, file names) cheap
//! in Rust and lets the binding hand R each distinct string once.

use crate::budget::Budget;
use crate::error::{ProfileError, Result};
use rustc_hash::FxHashMap;

/// What the allocator takes for a string's heap block beyond its bytes
/// (header and rounding), for the memory budget.
const STRING_ALLOCATION_BYTES: u64 = 16;

/// R's `NA_integer_` (and `NA` for logicals stored as integers).
pub const NA_INT: i32 = i32::MIN;

/// The id of the row after the first `rows` rows of a table of `what`: ids are
/// R integers, numbered from 1.
pub(crate) fn next_id(rows: usize, what: &str) -> Result<i32> {
    rows.checked_add(1)
        .and_then(|id| i32::try_from(id).ok())
        .ok_or_else(|| too_many(what))
}

/// The error for more rows of `what` than R integers can number.
pub(crate) fn too_many(what: &str) -> ProfileError {
    ProfileError::limit(format!("more {what} than a profile can hold (2^31 - 1)"))
}

/// Id of a string in a [`StringPool`]; `StrId::NA` is R's `NA_character_`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

impl StrId {
    pub const NA: StrId = StrId(0);
    pub fn is_na(self) -> bool {
        self.0 == 0
    }
}

/// Insertion-ordered set of strings; slot 0 stands for NA.
#[derive(Debug, Clone)]
pub struct StringPool {
    strings: Vec<String>,
    index: FxHashMap<String, StrId>,
}

impl Default for StringPool {
    fn default() -> Self {
        StringPool {
            strings: vec![String::new()],
            index: FxHashMap::default(),
        }
    }
}

impl StringPool {
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of `s`, adding it on first sight.
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = StrId(self.strings.len() as u32);
        self.strings.push(s.to_owned());
        self.index.insert(s.to_owned(), id);
        id
    }

    /// [`intern`](Self::intern) of a string from the input: a new string's
    /// memory (its two copies, in the list and in the index) is charged to
    /// `budget` and asked for fallibly first.
    pub fn try_intern(&mut self, s: &str, budget: &Budget) -> Result<StrId> {
        if let Some(&id) = self.index.get(s) {
            return Ok(id);
        }
        let what = || "the names and other strings of the profile".to_string();
        budget.room(&mut self.strings, 1, what)?;
        budget.room(&mut self.index, 1, what)?;
        budget.charge_items(2, s.len() as u64 + STRING_ALLOCATION_BYTES, what)?;
        Ok(self.intern(s))
    }

    /// Like [`intern`](Self::intern) for an optional string (None is NA).
    pub fn intern_opt(&mut self, s: Option<&str>) -> StrId {
        match s {
            Some(s) => self.intern(s),
            None => StrId::NA,
        }
    }

    /// The id of `s` if it is in the pool.
    pub fn lookup(&self, s: &str) -> Option<StrId> {
        self.index.get(s).copied()
    }

    /// The string of `id`; None for NA or an id that is not in the pool.
    pub fn get(&self, id: StrId) -> Option<&str> {
        if id.is_na() {
            return None;
        }
        self.strings.get(id.0 as usize).map(|s| s.as_str())
    }

    /// Like [`get`](Self::get), with NA and unknown ids as "".
    pub fn str(&self, id: StrId) -> &str {
        self.get(id).unwrap_or("")
    }

    /// All slots in id order; slot 0 (NA) is an empty placeholder.
    pub fn as_slice(&self) -> &[String] {
        &self.strings
    }

    /// Number of slots including the NA slot.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.len() <= 1
    }
}

/// A borrowed column, for code that treats tables generically.
#[derive(Debug, Clone, Copy)]
pub enum ColRef<'a> {
    Int(&'a [i32]),
    Dbl(&'a [f64]),
    Chr(&'a [StrId]),
    Lgl(&'a [i32]),
}

impl ColRef<'_> {
    pub fn len(&self) -> usize {
        match self {
            ColRef::Int(v) | ColRef::Lgl(v) => v.len(),
            ColRef::Dbl(v) => v.len(),
            ColRef::Chr(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of the column's values.
    pub fn bytes(&self) -> u64 {
        let width = match self {
            ColRef::Int(_) | ColRef::Lgl(_) => std::mem::size_of::<i32>(),
            ColRef::Dbl(_) => std::mem::size_of::<f64>(),
            ColRef::Chr(_) => std::mem::size_of::<StrId>(),
        };
        self.len() as u64 * width as u64
    }

    /// Whether row `i` is NA (out-of-range rows count as NA).
    pub fn is_na(&self, i: usize) -> bool {
        match self {
            ColRef::Int(v) | ColRef::Lgl(v) => v.get(i).is_none_or(|&x| x == NA_INT),
            ColRef::Dbl(v) => v.get(i).is_none_or(|x| x.is_nan()),
            ColRef::Chr(v) => v.get(i).is_none_or(|x| x.is_na()),
        }
    }
}

/// A mutable column, for the binding to fill tables generically.
#[derive(Debug)]
pub enum ColMut<'a> {
    Int(&'a mut Vec<i32>),
    Dbl(&'a mut Vec<f64>),
    Chr(&'a mut Vec<StrId>),
    Lgl(&'a mut Vec<i32>),
}

impl ColMut<'_> {
    fn len(&self) -> usize {
        match self {
            ColMut::Int(v) | ColMut::Lgl(v) => v.len(),
            ColMut::Dbl(v) => v.len(),
            ColMut::Chr(v) => v.len(),
        }
    }

    /// Extends the column with NAs to `n` values.
    fn pad_na(&mut self, n: usize) {
        match self {
            ColMut::Int(v) | ColMut::Lgl(v) => v.resize(n.max(v.len()), NA_INT),
            ColMut::Dbl(v) => v.resize(n.max(v.len()), f64::NAN),
            ColMut::Chr(v) => v.resize(n.max(v.len()), StrId::NA),
        }
    }

    /// Fill the column with `n` NAs (for an optional column absent from the input).
    pub fn fill_na(&mut self, n: usize) {
        match self {
            ColMut::Int(v) | ColMut::Lgl(v) => {
                v.clear();
                v.resize(n, NA_INT)
            }
            ColMut::Dbl(v) => {
                v.clear();
                v.resize(n, f64::NAN)
            }
            ColMut::Chr(v) => {
                v.clear();
                v.resize(n, StrId::NA)
            }
        }
    }
}

/// A column of the model, named as its `table!` definition names it (the names
/// R shows). Each table has one per field, under the field's name: code that
/// picks out a column, such as `SampleValues::value_type`, says which field it
/// means and gets the names from the definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColumnId {
    pub table: &'static str,
    pub column: &'static str,
}

impl ColumnId {
    /// Whether this is the column `column` of the table `table`.
    pub fn is(self, table: &str, column: &str) -> bool {
        self.table == table && self.column == column
    }
}

/// The type of a column: what R holds it as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColType {
    Int,
    Dbl,
    Chr,
    Lgl,
}

/// Which non-NA values a numeric column may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueRange {
    Any,
    /// Ids, depths: > 0 (integer columns).
    Positive,
    /// Lines (0 is unknown), times: >= 0; a double must also be finite.
    NonNegative,
}

/// The rules of the v2 format for one column, declared with it in [`table!`]
/// (see `schema.rs` for the lists the validator and the R side read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnRules {
    pub name: &'static str,
    pub col_type: ColType,
    /// Required by the format; the others are extension columns, optional in
    /// input, and come after the required ones.
    pub required: bool,
    pub not_na: bool,
    pub values: ValueRange,
    /// The table's (single-column) primary key.
    pub primary_key: bool,
    /// The (table, column) this column is a foreign key to.
    pub references: Option<(&'static str, &'static str)>,
}

impl ColumnRules {
    /// An extension column without rules.
    pub const fn new(name: &'static str, col_type: ColType) -> Self {
        ColumnRules {
            name,
            col_type,
            required: false,
            not_na: false,
            values: ValueRange::Any,
            primary_key: false,
            references: None,
        }
    }
    const fn required(self) -> Self {
        ColumnRules {
            required: true,
            ..self
        }
    }
    const fn not_na(self) -> Self {
        ColumnRules {
            not_na: true,
            ..self
        }
    }
    const fn positive(self) -> Self {
        ColumnRules {
            values: ValueRange::Positive,
            ..self
        }
    }
    const fn non_negative(self) -> Self {
        ColumnRules {
            values: ValueRange::NonNegative,
            ..self
        }
    }
    const fn primary_key(self) -> Self {
        ColumnRules {
            primary_key: true,
            ..self
        }
    }
    const fn references(self, table: &'static str, column: &'static str) -> Self {
        ColumnRules {
            references: Some((table, column)),
            ..self
        }
    }
}

/// A table's name, its columns with their rules (in R column order) and its
/// compound unique keys.
#[derive(Debug, Clone, Copy)]
pub struct TableRules {
    pub name: &'static str,
    pub columns: &'static [ColumnRules],
    pub unique_keys: &'static [&'static [&'static str]],
}

macro_rules! elem_type {
    (Int) => {
        i32
    };
    (Dbl) => {
        f64
    };
    (Chr) => {
        StrId
    };
    (Lgl) => {
        i32
    };
}

/// The rules of a column from the words in its `[...]` in [`table!`].
macro_rules! column_rules {
    ($rules:expr;) => { $rules };
    ($rules:expr; required $($rest:tt)*) => { column_rules!($rules.required(); $($rest)*) };
    ($rules:expr; not_na $($rest:tt)*) => { column_rules!($rules.not_na(); $($rest)*) };
    ($rules:expr; positive $($rest:tt)*) => { column_rules!($rules.positive(); $($rest)*) };
    ($rules:expr; non_negative $($rest:tt)*) => { column_rules!($rules.non_negative(); $($rest)*) };
    ($rules:expr; primary_key $($rest:tt)*) => { column_rules!($rules.primary_key(); $($rest)*) };
    ($rules:expr; references($table:literal, $column:literal) $($rest:tt)*) => {
        column_rules!($rules.references($table, $column); $($rest)*)
    };
}

/// Keeps the values of `column` where `keep` is true, in order; values past the
/// end of `keep` go. Every value is copied forward whether kept or not, so the
/// loop has no branch to mispredict (verbs filter columns of millions of rows).
fn retain_rows<T: Copy>(column: &mut Vec<T>, keep: &[bool]) {
    let n = column.len().min(keep.len());
    let values = column.as_mut_slice();
    let mut kept = 0;
    for (row, &k) in keep.iter().enumerate().take(n) {
        values[kept] = values[row];
        kept += usize::from(k);
    }
    column.truncate(kept);
}

/// Defines a table struct whose fields are its columns, in R column order, the
/// generic views over them, and the rules of the format for each column: a
/// column is declared once, as `field: Type = "r_name" [rules]`, where the rules
/// are `required` (else an extension column), `not_na`, `positive` (integers)
/// or `non_negative` (integers and doubles), `primary_key` and `references("table",
/// "column")`. Compound unique keys follow the table name as `unique [...]`.
macro_rules! table {
    (
        $(#[$doc:meta])* $Name:ident = $tname:literal $(, unique [$($ukey:literal),+])* {
            $($(#[$fdoc:meta])* $field:ident: $kind:ident = $col:literal $([$($rule:tt)*])?),+ $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct $Name {
            $($(#[$fdoc])* pub $field: Vec<elem_type!($kind)>,)+
        }

        impl $Name {
            /// The table's name in R.
            pub const NAME: &'static str = $tname;
            /// Column names in R order.
            pub const COLUMNS: &'static [&'static str] = &[$($col),+];
            /// The rules of the format for the table and each column.
            pub const RULES: TableRules = TableRules {
                name: $tname,
                columns: &[$(column_rules!(ColumnRules::new($col, ColType::$kind); $($($rule)*)?)),+],
                unique_keys: &[$(&[$($ukey),+]),*],
            };

            $(
                /// The identity of this field's column (`Table::field`).
                #[allow(non_upper_case_globals)]
                pub const $field: ColumnId = ColumnId { table: $tname, column: $col };
            )+

            /// Number of rows (the length of the first column).
            pub fn nrow(&self) -> usize {
                [$(self.$field.len()),+][0]
            }

            /// Whether all columns have the same length.
            pub fn is_rectangular(&self) -> bool {
                let n = self.nrow();
                true $(&& self.$field.len() == n)+
            }

            pub fn columns(&self) -> Vec<(&'static str, ColRef<'_>)> {
                vec![$(($col, ColRef::$kind(&self.$field))),+]
            }

            pub fn columns_mut(&mut self) -> Vec<(&'static str, ColMut<'_>)> {
                vec![$(($col, ColMut::$kind(&mut self.$field))),+]
            }

            /// Reserve room for `additional` more rows in every column.
            pub fn reserve(&mut self, additional: usize) {
                $(self.$field.reserve(additional);)+
            }

            /// Keep only the rows where `keep` is true (rows past its end go).
            pub fn retain_rows(&mut self, keep: &[bool]) {
                $(retain_rows(&mut self.$field, keep);)+
            }
        }

        impl crate::budget::Growable for $Name {
            fn elements(&self) -> usize {
                self.nrow()
            }

            fn capacity(&self) -> usize {
                [$(self.$field.capacity()),+].into_iter().min().unwrap_or(0)
            }

            /// The bytes of a row: one value of each column.
            fn element_bytes(&self) -> u64 {
                (0 $(+ std::mem::size_of::<elem_type!($kind)>())+) as u64
            }

            fn try_reserve(&mut self, additional: usize) -> std::result::Result<(), std::collections::TryReserveError> {
                $(self.$field.try_reserve_exact(additional)?;)+
                Ok(())
            }
        }
    };
}

table!(
    /// Free-form key/value metadata; the row `version` = "2.0" is required.
    Meta = "meta" {
        key: Chr = "key" [required not_na primary_key],
        value: Chr = "value" [required],
    }
);

table!(
    /// Provenance: one row per profile a sample came from (a pprof file, an Rprof
    /// segment, a converted v1 object). The columns after `source_timestamp` carry the
    /// per-profile fields of the source formats.
    Sources = "sources" {
        source_id: Int = "source_id" [required not_na positive primary_key],
        source_type: Chr = "source_type" [required not_na],
        source_uri: Chr = "source_uri" [required],
        /// Seconds since the epoch (UTC); NaN (NA) if unknown.
        source_timestamp: Dbl = "source_timestamp" [required],
        /// pprof `period_type`; for Rprof "cpu".
        period_type: Chr = "period_type",
        /// unit of `period`; for Rprof "nanoseconds".
        period_unit: Chr = "period_unit",
        /// pprof `period`; for Rprof the sampling interval in nanoseconds.
        period: Dbl = "period",
        duration_nanos: Dbl = "duration_nanos",
        /// pprof `time_nanos` as exact decimal text (a double cannot hold it).
        time_nanos: Chr = "time_nanos",
        default_sample_type: Chr = "default_sample_type",
        doc_url: Chr = "doc_url",
        drop_frames: Chr = "drop_frames",
        keep_frames: Chr = "keep_frames",
        /// The Rprof header line as written by R, e.g.
        /// "memory profiling: sample.interval=20000".
        rprof_header: Chr = "rprof_header",
        /// In a difference of two profiles (`profile_diff()`): TRUE for the
        /// sources of the base, whose values are negated, FALSE for the others;
        /// NA outside a difference.
        diff_base: Lgl = "diff_base",
        /// OTLP: the `scopes` row (instrumentation scope, in a resource) of
        /// the Profiles the source was read from.
        scope_id: Int = "scope_id" [positive references("scopes", "scope_id")],
        /// OTLP `Profile.profile_id` as lower-case hex text.
        profile_id: Chr = "profile_id",
        /// OTLP `Profile.dropped_attributes_count`.
        dropped_attributes_count: Int = "dropped_attributes_count" [non_negative],
        /// OTLP `Profile.original_payload_format` ("jfr", "pprof", ...).
        original_payload_format: Chr = "original_payload_format",
        /// OTLP `Profile.original_payload` as lower-case hex text.
        original_payload: Chr = "original_payload",
        /// The instant `samples$time` counts from, in nanoseconds since the
        /// epoch as exact text, where it is not `time_nanos` (OTLP sample
        /// timestamps before the profile's start time, or a start time of 0).
        time_origin_nanos: Chr = "time_origin_nanos",
    }
);

table!(
    /// One row per raw sample.
    Samples = "samples" {
        sample_id: Int = "sample_id" [required not_na positive primary_key],
        source_id: Int = "source_id" [required not_na references("sources", "source_id")],
        /// Seconds from the start of the sample's source (Rprof: tick `i` of a
        /// segment is at `(i - 1) * interval`); NaN (NA) where the format has
        /// no time.
        time: Dbl = "time" [non_negative],
        /// OTLP: the trace the sample is linked to (`Link.trace_id`), 32 hex digits.
        trace_id: Chr = "trace_id",
        /// OTLP: the span the sample is linked to (`Link.span_id`), 16 hex digits.
        span_id: Chr = "span_id",
    }
);

table!(
    /// Measurements of samples in long form; unique per (sample_id, type).
    SampleValues = "sample_values", unique ["sample_id", "type"] {
        sample_id: Int = "sample_id" [required not_na references("samples", "sample_id")],
        value_type: Chr = "type" [required not_na],
        unit: Chr = "unit" [required not_na],
        value: Dbl = "value" [required not_na],
    }
);

table!(
    /// Stacks: depth 1 is the innermost frame; depths of a sample run 1..n.
    SampleLocations = "sample_locations", unique ["sample_id", "depth"] {
        sample_id: Int = "sample_id" [required not_na references("samples", "sample_id")],
        depth: Int = "depth" [required not_na positive],
        location_id: Int = "location_id" [required not_na references("locations", "location_id")],
    }
);

table!(
    /// A frame: a function and a line in it. A pprof Location with inlined calls
    /// becomes one row per line, linked innermost to outermost by `inlined_into`.
    Locations = "locations" {
        location_id: Int = "location_id" [required not_na positive primary_key],
        function_id: Int = "function_id" [required positive references("functions", "function_id")],
        line: Int = "line" [required non_negative],
        /// pprof instruction address as "0x..." text (u64 does not fit a double).
        address: Chr = "address",
        mapping_id: Int = "mapping_id" [positive references("mappings", "mapping_id")],
        is_folded: Lgl = "is_folded",
        /// pprof `Line.column`.
        column: Int = "column" [non_negative],
        /// The location (row) this frame is inlined into: the next line of the same
        /// pprof Location. NA for the outermost line and for non-pprof frames.
        inlined_into: Int = "inlined_into" [positive references("locations", "location_id")],
    }
);

table!(
    Functions = "functions" {
        function_id: Int = "function_id" [required not_na positive primary_key],
        name: Chr = "name" [required],
        system_name: Chr = "system_name" [required],
        filename: Chr = "filename" [required],
        start_line: Int = "start_line" [required non_negative],
    }
);

table!(
    /// The sample types each source declares, in the source's order (kept even when
    /// a source has no samples, so an empty profile round-trips).
    SampleTypes = "sample_types", unique ["source_id", "type"] {
        source_id: Int = "source_id" [required not_na references("sources", "source_id")],
        value_type: Chr = "type" [required not_na],
        unit: Chr = "unit" [required not_na],
        /// OTLP: TRUE when the Profile of this type records observations by
        /// their timestamps only (each counts 1), FALSE when it has values.
        timestamps_only: Lgl = "timestamps_only",
    }
);

table!(
    /// pprof sample labels: a string `value` or a number `num` with `num_unit`;
    /// OTLP sample attributes, whose other kinds `kind` names.
    SampleLabels = "sample_labels" {
        sample_id: Int = "sample_id" [required not_na references("samples", "sample_id")],
        key: Chr = "key" [required not_na],
        value: Chr = "value" [required],
        num: Dbl = "num" [required],
        num_unit: Chr = "num_unit" [required],
        /// NA for a string (`value`) or an integer (`num`), as pprof labels
        /// are; else the kind of an OTLP attribute value (see
        /// [`crate::otlp::attributes`]).
        kind: Chr = "kind",
    }
);

table!(
    /// pprof mappings (binaries and shared libraries); addresses as "0x..." text.
    Mappings = "mappings" {
        mapping_id: Int = "mapping_id" [required not_na positive primary_key],
        source_id: Int = "source_id" [required not_na references("sources", "source_id")],
        memory_start: Chr = "memory_start" [required],
        memory_limit: Chr = "memory_limit" [required],
        file_offset: Chr = "file_offset" [required],
        filename: Chr = "filename" [required],
        build_id: Chr = "build_id" [required],
        has_functions: Lgl = "has_functions" [required],
        has_filenames: Lgl = "has_filenames" [required],
        has_line_numbers: Lgl = "has_line_numbers" [required],
        has_inline_frames: Lgl = "has_inline_frames" [required],
    }
);

table!(
    /// pprof comments, in order.
    SourceComments = "source_comments" {
        source_id: Int = "source_id" [required not_na references("sources", "source_id")],
        comment: Chr = "comment" [required not_na],
    }
);

/// Declares an attribute table of OTLP: attributes of the rows of `$holder`,
/// one row per attribute, as `sample_labels` holds a sample's.
macro_rules! attribute_table {
    ($(#[$doc:meta])* $Name:ident = $tname:literal, $id:ident = $idcol:literal -> $holder:literal) => {
        table!(
            $(#[$doc])*
            $Name = $tname {
                $id: Int = $idcol [required not_na references($holder, $idcol)],
                key: Chr = "key" [required not_na],
                value: Chr = "value" [required],
                num: Dbl = "num" [required],
                num_unit: Chr = "num_unit" [required],
                kind: Chr = "kind",
            }
        );
    };
}

table!(
    /// OTLP resources (`ResourceProfiles` with their `Resource`).
    Resources = "resources" {
        resource_id: Int = "resource_id" [required not_na positive primary_key],
        schema_url: Chr = "schema_url" [required],
        dropped_attributes_count: Int = "dropped_attributes_count" [required non_negative],
        /// `Resource.entity_refs` as OTLP/JSON text (NA when there are none).
        entity_refs: Chr = "entity_refs",
    }
);

table!(
    /// OTLP instrumentation scopes (`ScopeProfiles` with their
    /// `InstrumentationScope`), each in a resource.
    Scopes = "scopes" {
        scope_id: Int = "scope_id" [required not_na positive primary_key],
        resource_id: Int = "resource_id" [required not_na references("resources", "resource_id")],
        name: Chr = "name" [required],
        version: Chr = "version" [required],
        schema_url: Chr = "schema_url" [required],
        dropped_attributes_count: Int = "dropped_attributes_count" [required non_negative],
    }
);

attribute_table!(
    /// OTLP resource attributes.
    ResourceAttributes = "resource_attributes", resource_id = "resource_id" -> "resources"
);
attribute_table!(
    /// OTLP instrumentation scope attributes.
    ScopeAttributes = "scope_attributes", scope_id = "scope_id" -> "scopes"
);
attribute_table!(
    /// OTLP profile attributes (of the Profiles a source was read from).
    SourceAttributes = "source_attributes", source_id = "source_id" -> "sources"
);
attribute_table!(
    /// OTLP mapping attributes.
    MappingAttributes = "mapping_attributes", mapping_id = "mapping_id" -> "mappings"
);
attribute_table!(
    /// OTLP location attributes (on the outermost row of a location's lines).
    LocationAttributes = "location_attributes", location_id = "location_id" -> "locations"
);

/// A whole v2 profile.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub strings: StringPool,
    pub meta: Meta,
    pub sources: Sources,
    pub samples: Samples,
    pub sample_values: SampleValues,
    pub sample_locations: SampleLocations,
    pub locations: Locations,
    pub functions: Functions,
    pub sample_types: SampleTypes,
    pub sample_labels: SampleLabels,
    pub mappings: Mappings,
    pub source_comments: SourceComments,
    pub resources: Resources,
    pub scopes: Scopes,
    pub resource_attributes: ResourceAttributes,
    pub scope_attributes: ScopeAttributes,
    pub source_attributes: SourceAttributes,
    pub mapping_attributes: MappingAttributes,
    pub location_attributes: LocationAttributes,
    /// Extension tables the profile does not have (one built in R from the
    /// required tables alone). Readers make every table, so it is empty for
    /// them. An extension column may refer to an absent table: validation
    /// checks references into a table only when it is present.
    pub absent_tables: Vec<&'static str>,
}

/// Names of the seven required tables, in the order the v2 format fixes.
pub const REQUIRED_TABLES: [&str; 7] = [
    Meta::NAME,
    Sources::NAME,
    Samples::NAME,
    SampleValues::NAME,
    SampleLocations::NAME,
    Locations::NAME,
    Functions::NAME,
];

/// Names of the extension tables, in the order they follow the required ones.
pub const EXTENSION_TABLES: [&str; 11] = [
    SampleTypes::NAME,
    SampleLabels::NAME,
    Mappings::NAME,
    SourceComments::NAME,
    Resources::NAME,
    Scopes::NAME,
    ResourceAttributes::NAME,
    ScopeAttributes::NAME,
    SourceAttributes::NAME,
    MappingAttributes::NAME,
    LocationAttributes::NAME,
];

/// The extension tables that only OpenTelemetry profiles fill: readers of
/// other formats leave them out ([`Profile::absent_tables`]).
pub const OTLP_TABLES: [&str; 7] = [
    Resources::NAME,
    Scopes::NAME,
    ResourceAttributes::NAME,
    ScopeAttributes::NAME,
    SourceAttributes::NAME,
    MappingAttributes::NAME,
    LocationAttributes::NAME,
];

/// The rules of every table, in the order of [`Profile::tables`].
pub const TABLE_RULES: [TableRules; 18] = [
    Meta::RULES,
    Sources::RULES,
    Samples::RULES,
    SampleValues::RULES,
    SampleLocations::RULES,
    Locations::RULES,
    Functions::RULES,
    SampleTypes::RULES,
    SampleLabels::RULES,
    Mappings::RULES,
    SourceComments::RULES,
    Resources::RULES,
    Scopes::RULES,
    ResourceAttributes::RULES,
    ScopeAttributes::RULES,
    SourceAttributes::RULES,
    MappingAttributes::RULES,
    LocationAttributes::RULES,
];

impl Profile {
    /// An empty profile whose meta holds `version` = "2.0", without the
    /// tables of OpenTelemetry profiles ([`OTLP_TABLES`]: the OTLP reader
    /// adds them).
    pub fn new() -> Self {
        let mut p = Profile {
            absent_tables: OTLP_TABLES.to_vec(),
            ..Profile::default()
        };
        let k = p.strings.intern("version");
        let v = p.strings.intern("2.0");
        p.meta.key.push(k);
        p.meta.value.push(v);
        p
    }

    /// Every table as (name, columns), required tables first.
    /// The bytes of every column's values (not the strings): the measure of
    /// the working memory of work on the whole profile.
    pub fn column_bytes(&self) -> u64 {
        self.tables()
            .iter()
            .flat_map(|(_, cols)| cols.iter().map(|(_, c)| c.bytes()))
            .sum()
    }

    pub fn tables(&self) -> Vec<(&'static str, Vec<(&'static str, ColRef<'_>)>)> {
        vec![
            (Meta::NAME, self.meta.columns()),
            (Sources::NAME, self.sources.columns()),
            (Samples::NAME, self.samples.columns()),
            (SampleValues::NAME, self.sample_values.columns()),
            (SampleLocations::NAME, self.sample_locations.columns()),
            (Locations::NAME, self.locations.columns()),
            (Functions::NAME, self.functions.columns()),
            (SampleTypes::NAME, self.sample_types.columns()),
            (SampleLabels::NAME, self.sample_labels.columns()),
            (Mappings::NAME, self.mappings.columns()),
            (SourceComments::NAME, self.source_comments.columns()),
            (Resources::NAME, self.resources.columns()),
            (Scopes::NAME, self.scopes.columns()),
            (ResourceAttributes::NAME, self.resource_attributes.columns()),
            (ScopeAttributes::NAME, self.scope_attributes.columns()),
            (SourceAttributes::NAME, self.source_attributes.columns()),
            (MappingAttributes::NAME, self.mapping_attributes.columns()),
            (LocationAttributes::NAME, self.location_attributes.columns()),
        ]
    }

    /// Mutable columns of the table called `name`, if there is one.
    pub fn table_mut(&mut self, name: &str) -> Option<Vec<(&'static str, ColMut<'_>)>> {
        Some(match name {
            Meta::NAME => self.meta.columns_mut(),
            Sources::NAME => self.sources.columns_mut(),
            Samples::NAME => self.samples.columns_mut(),
            SampleValues::NAME => self.sample_values.columns_mut(),
            SampleLocations::NAME => self.sample_locations.columns_mut(),
            Locations::NAME => self.locations.columns_mut(),
            Functions::NAME => self.functions.columns_mut(),
            SampleTypes::NAME => self.sample_types.columns_mut(),
            SampleLabels::NAME => self.sample_labels.columns_mut(),
            Mappings::NAME => self.mappings.columns_mut(),
            SourceComments::NAME => self.source_comments.columns_mut(),
            Resources::NAME => self.resources.columns_mut(),
            Scopes::NAME => self.scopes.columns_mut(),
            ResourceAttributes::NAME => self.resource_attributes.columns_mut(),
            ScopeAttributes::NAME => self.scope_attributes.columns_mut(),
            SourceAttributes::NAME => self.source_attributes.columns_mut(),
            MappingAttributes::NAME => self.mapping_attributes.columns_mut(),
            LocationAttributes::NAME => self.location_attributes.columns_mut(),
            _ => return None,
        })
    }

    /// Extends every extension column shorter than its table's first column
    /// with NAs, but the columns in `except`: readers leave the extension
    /// columns of other formats unset (`samples$trace_id` in an Rprof read)
    /// and call this once at the end.
    pub fn pad_extension_columns(&mut self, except: &[ColumnId]) {
        for rules in TABLE_RULES {
            let Some(mut cols) = self.table_mut(rules.name) else {
                continue;
            };
            let n = cols.first().map_or(0, |(_, c)| c.len());
            for ((name, col), rule) in cols.iter_mut().zip(rules.columns) {
                let skip = rule.required || except.iter().any(|id| id.is(rules.name, name));
                if !skip && col.len() < n {
                    col.pad_na(n);
                }
            }
        }
    }

    /// Whether the profile has the table `name` (see `absent_tables`).
    pub fn has_table(&self, name: &str) -> bool {
        !self.absent_tables.contains(&name)
    }

    /// The string of `id` ("" for NA).
    pub fn str(&self, id: StrId) -> &str {
        self.strings.str(id)
    }
}
