//! The rules of the v2 format that are data, not code: which columns are required,
//! which may be NA, the keys. The validator and the R wrapper (for `dm` keys) both
//! read them from here, so there is one definition.

/// How many leading columns of each table the format requires; the rest of a table's
/// known columns are extension columns, optional in input.
pub const REQUIRED_COLUMN_COUNT: &[(&str, usize)] = &[
    ("meta", 2),
    ("sources", 4),
    ("samples", 2),
    ("sample_values", 4),
    ("sample_locations", 3),
    ("locations", 3),
    ("functions", 5),
    ("sample_types", 3),
    ("sample_labels", 5),
    ("mappings", 11),
    ("source_comments", 2),
];

/// Single-column primary keys.
pub const PRIMARY_KEYS: &[(&str, &str)] = &[
    ("meta", "key"),
    ("sources", "source_id"),
    ("samples", "sample_id"),
    ("locations", "location_id"),
    ("functions", "function_id"),
    ("mappings", "mapping_id"),
];

/// Compound unique keys.
pub const UNIQUE_KEYS: &[(&str, &[&str])] = &[
    ("sample_values", &["sample_id", "type"]),
    ("sample_locations", &["sample_id", "depth"]),
    ("sample_types", &["source_id", "type"]),
];

/// A foreign key: `table.column` refers to `ref_table.ref_column` (NA allowed where
/// the column may be NA).
#[derive(Debug, Clone, Copy)]
pub struct ForeignKey {
    pub table: &'static str,
    pub column: &'static str,
    pub ref_table: &'static str,
    pub ref_column: &'static str,
}

const fn fk(
    table: &'static str,
    column: &'static str,
    ref_table: &'static str,
    ref_column: &'static str,
) -> ForeignKey {
    ForeignKey { table, column, ref_table, ref_column }
}

pub const FOREIGN_KEYS: &[ForeignKey] = &[
    fk("samples", "source_id", "sources", "source_id"),
    fk("sample_values", "sample_id", "samples", "sample_id"),
    fk("sample_locations", "sample_id", "samples", "sample_id"),
    fk("sample_locations", "location_id", "locations", "location_id"),
    fk("locations", "function_id", "functions", "function_id"),
    fk("locations", "mapping_id", "mappings", "mapping_id"),
    fk("locations", "inlined_into", "locations", "location_id"),
    fk("sample_types", "source_id", "sources", "source_id"),
    fk("sample_labels", "sample_id", "samples", "sample_id"),
    fk("mappings", "source_id", "sources", "source_id"),
    fk("source_comments", "source_id", "sources", "source_id"),
];

/// Columns that must not contain NA.
pub const NOT_NA: &[(&str, &str)] = &[
    ("meta", "key"),
    ("sources", "source_id"),
    ("sources", "source_type"),
    ("samples", "sample_id"),
    ("samples", "source_id"),
    ("sample_values", "sample_id"),
    ("sample_values", "type"),
    ("sample_values", "unit"),
    ("sample_values", "value"),
    ("sample_locations", "sample_id"),
    ("sample_locations", "depth"),
    ("sample_locations", "location_id"),
    ("locations", "location_id"),
    ("functions", "function_id"),
    ("sample_types", "source_id"),
    ("sample_types", "type"),
    ("sample_types", "unit"),
    ("sample_labels", "sample_id"),
    ("sample_labels", "key"),
    ("mappings", "mapping_id"),
    ("mappings", "source_id"),
    ("source_comments", "source_id"),
    ("source_comments", "comment"),
];

/// Integer columns whose non-NA values must be > 0 (ids).
pub const POSITIVE: &[(&str, &str)] = &[
    ("sources", "source_id"),
    ("samples", "sample_id"),
    ("sample_locations", "depth"),
    ("locations", "location_id"),
    ("locations", "function_id"),
    ("locations", "mapping_id"),
    ("locations", "inlined_into"),
    ("functions", "function_id"),
    ("mappings", "mapping_id"),
];

/// Integer columns whose non-NA values must be >= 0 (lines; 0 is unknown).
pub const NON_NEGATIVE: &[(&str, &str)] = &[
    ("locations", "line"),
    ("locations", "column"),
    ("functions", "start_line"),
];

/// The values `sources.source_type` may take.
pub const SOURCE_TYPES: &[&str] = &["rprof", "pprof", "v1", "manual", "folded"];

/// Sample value types that are gauges (a level at the time of the sample, such as
/// a heap size): summing them over samples means nothing, so writers that aggregate
/// must not present them as summable values.
pub const GAUGE_TYPES: &[&str] = &["small_vector_heap", "large_vector_heap", "node_heap"];

/// The number of required columns of `table` (0 for an unknown table).
pub fn required_column_count(table: &str) -> usize {
    REQUIRED_COLUMN_COUNT.iter().find(|(t, _)| *t == table).map_or(0, |(_, n)| *n)
}
