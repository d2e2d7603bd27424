//! The columnar v2 model. Every table is a struct of equally long column vectors,
//! laid out the way R stores them so the binding can copy them in one pass:
//! integers and logicals are `i32` with R's NA (`i32::MIN`), doubles are `f64` with
//! NaN as NA, and strings are ids into the profile's [`StringPool`] (0 is NA).
//! Interning keeps repetitive columns (sample value types, units, file names) cheap
//! in Rust and lets the binding hand R each distinct string once.

use crate::error::{ProfileError, Result};
use crate::resources::budget::Budget;

#[macro_use]
mod columns;
pub mod address;
pub(crate) mod frames;
pub(crate) mod id_index;
pub(crate) mod identity;
pub mod schema;
mod strings;
pub mod validate;
use columns::retain_rows;
pub use columns::{ColMut, ColRef, ColType, ColumnId, ColumnRules, TableRules, ValueRange};
pub use strings::{StrId, StringPool};

/// R's `NA_integer_` (and `NA` for logicals stored as integers).
pub const NA_INT: i32 = i32::MIN;

/// The name of the function of the frame that stands for R's top-level code
/// (the Rprof reader makes one from a line reference after the outermost
/// frame, see `formats::rprof`), with an empty system name, which writers and
/// readers of other formats leave empty.
pub const TOP_LEVEL_NAME: &str = "<top level>";

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
        /// A name given to the source by its maker (`profile_record(label = )`).
        source_label: Chr = "source_label",
        /// The id of the process the source was recorded in
        /// (`profile_record()`, one source per R process).
        process_id: Int = "process_id" [positive],
        /// The name of the host the source was recorded on.
        host_name: Chr = "host_name",
        /// Which process of a recording the source is: "main" (the process
        /// that called `profile_record()`) or "worker".
        process_role: Chr = "process_role",
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
        /// `formats::otlp::attributes`).
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

table!(
    /// The text of the source files that frames name, one row per line, as the
    /// files were when the profile was read or recorded (`profile_record()`).
    /// No format carries it: R reads it from the files (`R/source-text.R`).
    SourceLines = "source_lines" {
        source_id: Int = "source_id" [required not_na references("sources", "source_id")],
        filename: Chr = "filename" [required not_na],
        line: Int = "line" [required not_na positive],
        text: Chr = "text" [required not_na],
    }
);

table!(
    /// The tasks of a recording of parallel code (`profile_task()`): each
    /// one's wall-clock start and end (seconds since the epoch, UTC), the
    /// source (process) that ran it, and how it ended ("ok" or "error").
    Tasks = "tasks" {
        source_id: Int = "source_id" [required not_na references("sources", "source_id")],
        start_time: Dbl = "start_time" [required],
        end_time: Dbl = "end_time" [required],
        status: Chr = "status" [required],
    }
);

table!(
    /// The waits of the recording process in a recording of parallel code
    /// (`profile_record()`): stretches of wall-clock time (seconds since the
    /// epoch, UTC) in which it used (almost) no CPU time, each with the CPU
    /// time (seconds) its source's samples had reached when it began, which
    /// places it among them (Rprof samples are ticks of CPU time).
    Waits = "waits" {
        source_id: Int = "source_id" [required not_na references("sources", "source_id")],
        start_time: Dbl = "start_time" [required],
        end_time: Dbl = "end_time" [required],
        cpu_time: Dbl = "cpu_time" [required],
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
    pub source_lines: SourceLines,
    pub tasks: Tasks,
    pub waits: Waits,
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
pub const EXTENSION_TABLES: [&str; 14] = [
    SampleTypes::NAME,
    SampleLabels::NAME,
    Mappings::NAME,
    SourceComments::NAME,
    SourceLines::NAME,
    Tasks::NAME,
    Waits::NAME,
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

/// The extension tables that only recordings of parallel code
/// (`profile_record()` with `profile_task()`) fill: readers leave them out
/// ([`Profile::absent_tables`]).
pub const RECORDING_TABLES: [&str; 2] = [Tasks::NAME, Waits::NAME];

/// The rules of every table, in the order of [`Profile::tables`].
pub const TABLE_RULES: [TableRules; 21] = [
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
    SourceLines::RULES,
    Tasks::RULES,
    Waits::RULES,
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
            absent_tables: OTLP_TABLES.into_iter().chain(RECORDING_TABLES).collect(),
            ..Profile::default()
        };
        let k = p.strings.intern("version");
        let v = p.strings.intern("2.0");
        p.meta.key.push(k);
        p.meta.value.push(v);
        p
    }

    /// Every table as (name, columns), required tables first.
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
            (SourceLines::NAME, self.source_lines.columns()),
            (Tasks::NAME, self.tasks.columns()),
            (Waits::NAME, self.waits.columns()),
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
            SourceLines::NAME => self.source_lines.columns_mut(),
            Tasks::NAME => self.tasks.columns_mut(),
            Waits::NAME => self.waits.columns_mut(),
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

    /// Adds function `id` named `name` (its system name too), in no file
    /// (start line 0), and its one location, of the same id, at line 0
    /// (unknown), with no address, mapping, column or inlining: a frame of the
    /// formats that name functions only (folded stacks, `Rprofmem()`). With a
    /// `budget`, the rows are charged to it first.
    pub(crate) fn add_named_function(
        &mut self,
        id: i32,
        name: StrId,
        budget: Option<&Budget>,
    ) -> Result<()> {
        if let Some(b) = budget {
            b.room(&mut self.functions, 1, || "the functions".to_string())?;
            b.room(&mut self.locations, 1, || "the functions".to_string())?;
        }
        let empty = self.strings.intern("");
        let f = &mut self.functions;
        f.function_id.push(id);
        f.name.push(name);
        f.system_name.push(name);
        f.filename.push(empty);
        f.start_line.push(0);
        let l = &mut self.locations;
        l.location_id.push(id);
        l.function_id.push(id);
        l.line.push(0);
        l.address.push(StrId::NA);
        l.mapping_id.push(NA_INT);
        l.is_folded.push(NA_INT);
        l.column.push(NA_INT);
        l.inlined_into.push(NA_INT);
        Ok(())
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
