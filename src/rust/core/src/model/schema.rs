//! The rules of the v2 format that are data, not code: which columns are required,
//! which may be NA, the keys. Each column's rules are declared with the column, in
//! `model.rs` ([`crate::model::TABLE_RULES`]); the lists here are derived from
//! those declarations when the crate is compiled, in table and column order (the
//! order in which the validator reports a broken rule). The validator and the R
//! wrapper (for `dm` keys) both read them from here.

use crate::model::{ColType, ColumnRules, TableRules, ValueRange, TABLE_RULES};

/// Single-column primary keys.
pub const PRIMARY_KEYS: &[(&str, &str)] =
    &columns_where::<{ count_where(Rule::PrimaryKey) }>(Rule::PrimaryKey);

/// Columns that must not contain NA.
pub const NOT_NA: &[(&str, &str)] = &columns_where::<{ count_where(Rule::NotNa) }>(Rule::NotNa);

/// Integer columns whose non-NA values must be > 0 (ids).
pub const POSITIVE: &[(&str, &str)] =
    &columns_where::<{ count_where(Rule::Positive) }>(Rule::Positive);

/// Numeric columns whose non-NA values must be >= 0 (lines, where 0 is unknown;
/// times, which must also be finite).
pub const NON_NEGATIVE: &[(&str, &str)] =
    &columns_where::<{ count_where(Rule::NonNegative) }>(Rule::NonNegative);

/// A foreign key: `table.column` refers to `ref_table.ref_column` (NA allowed where
/// the column may be NA).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForeignKey {
    pub table: &'static str,
    pub column: &'static str,
    pub ref_table: &'static str,
    pub ref_column: &'static str,
}

pub const FOREIGN_KEYS: &[ForeignKey] = &foreign_keys::<{ count_where(Rule::References) }>();

/// The values `sources.source_type` may take.
pub const SOURCE_TYPES: &[&str] = &[
    "rprof", "pprof", "v1", "manual", "folded", "otlp", "rprofmem",
];

/// The values of the `kind` column of `sample_labels` and of the OTLP
/// attribute tables (NA: a string `value` or an integer `num`).
pub const ATTRIBUTE_KINDS: &[&str] =
    &["int", "bool", "double", "bytes", "array", "kvlist", "empty"];

/// Sample value types of Rprof's memory profiling, in the order the v2 format
/// lists them, with their units. The first three are the heap sizes at the tick:
/// gauges (see [`GAUGE_TYPES`]).
pub const MEMORY_TYPES: [(&str, &str); 5] = [
    ("small_vector_heap", "bytes"),
    ("large_vector_heap", "bytes"),
    ("node_heap", "bytes"),
    ("duplications", "count"),
    ("alloc_size", "bytes"),
];

/// Sample value types that are gauges (a level at the time of the sample, such as
/// a heap size): summing them over samples means nothing, so writers that aggregate
/// must not present them as summable values.
pub const GAUGE_TYPES: [&str; 3] = [MEMORY_TYPES[0].0, MEMORY_TYPES[1].0, MEMORY_TYPES[2].0];

/// The rules of `table`, if the format has such a table.
pub fn table_rules(table: &str) -> Option<&'static TableRules> {
    TABLE_RULES.iter().find(|t| t.name == table)
}

/// The number of required columns of `table` (0 for an unknown table); they are
/// its first columns.
pub fn required_column_count(table: &str) -> usize {
    table_rules(table).map_or(0, |t| t.columns.iter().filter(|c| c.required).count())
}

/// A rule that the derived lists select columns by.
#[derive(Clone, Copy)]
enum Rule {
    PrimaryKey,
    NotNa,
    Positive,
    NonNegative,
    References,
}

const fn has(column: &ColumnRules, rule: Rule) -> bool {
    match rule {
        Rule::PrimaryKey => column.primary_key,
        Rule::NotNa => column.not_na,
        Rule::Positive => matches!(column.values, ValueRange::Positive),
        Rule::NonNegative => matches!(column.values, ValueRange::NonNegative),
        Rule::References => column.references.is_some(),
    }
}

/// A column that has a rule: its table's name and its rules.
type Selected = (&'static str, &'static ColumnRules);

const NO_COLUMN: ColumnRules = ColumnRules::new("", ColType::Int);

/// The columns of all tables that have `rule`, in table and column order: the
/// first `out.len()` of them are written to `out`; returns how many there are.
#[allow(
    clippy::indexing_slicing,
    reason = "const loops below the lengths they test (get() is not const)"
)]
const fn select(rule: Rule, out: &mut [Selected]) -> usize {
    let mut n = 0;
    let mut t = 0;
    while t < TABLE_RULES.len() {
        let columns = TABLE_RULES[t].columns;
        let mut c = 0;
        while c < columns.len() {
            if has(&columns[c], rule) {
                if n < out.len() {
                    out[n] = (TABLE_RULES[t].name, &columns[c]);
                }
                n += 1;
            }
            c += 1;
        }
        t += 1;
    }
    n
}

const fn count_where(rule: Rule) -> usize {
    select(rule, &mut [])
}

/// (table, column) of the `N` columns that have `rule`.
#[allow(
    clippy::indexing_slicing,
    reason = "const loops below N, the arrays' length"
)]
const fn columns_where<const N: usize>(rule: Rule) -> [(&'static str, &'static str); N] {
    let mut selected = [("", &NO_COLUMN); N];
    select(rule, &mut selected);
    let mut out = [("", ""); N];
    let mut i = 0;
    while i < N {
        out[i] = (selected[i].0, selected[i].1.name);
        i += 1;
    }
    out
}

/// The `N` foreign keys.
#[allow(
    clippy::indexing_slicing,
    reason = "const loops below N, the arrays' length"
)]
const fn foreign_keys<const N: usize>() -> [ForeignKey; N] {
    let mut selected = [("", &NO_COLUMN); N];
    select(Rule::References, &mut selected);
    let mut out = [ForeignKey {
        table: "",
        column: "",
        ref_table: "",
        ref_column: "",
    }; N];
    let mut i = 0;
    while i < N {
        let (table, column) = selected[i];
        if let Some((ref_table, ref_column)) = column.references {
            out[i] = ForeignKey {
                table,
                column: column.name,
                ref_table,
                ref_column,
            };
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests;
