use super::*;
use crate::model::Profile;

/// The declared rules describe the model's own tables and columns, and hold
/// together: required columns come first, keys are not NA, foreign keys point
/// to primary keys of integer columns.
#[test]
fn rules_agree_with_the_model() {
    let empty = Profile::default();
    let tables = empty.tables();
    assert_eq!(tables.len(), TABLE_RULES.len());
    for ((name, columns), rules) in tables.iter().zip(&TABLE_RULES) {
        assert_eq!(*name, rules.name);
        let names: Vec<&str> = columns.iter().map(|(c, _)| *c).collect();
        let rule_names: Vec<&str> = rules.columns.iter().map(|c| c.name).collect();
        assert_eq!(names, rule_names);
        let required = required_column_count(name);
        assert!(
            required > 0 && rules.columns[..required].iter().all(|c| c.required),
            "{name}"
        );
        assert!(
            rules.columns[required..].iter().all(|c| !c.required),
            "{name}"
        );
        for key in rules.unique_keys {
            assert!(
                key.iter().all(|k| rule_names.contains(k)),
                "{name}: {key:?}"
            );
        }
    }
    for &(table, column) in PRIMARY_KEYS {
        assert!(NOT_NA.contains(&(table, column)), "{table}.{column}");
    }
    for key in FOREIGN_KEYS {
        assert!(
            PRIMARY_KEYS.contains(&(key.ref_table, key.ref_column)),
            "{key:?}"
        );
        let rules = table_rules(key.table)
            .unwrap()
            .columns
            .iter()
            .find(|c| c.name == key.column)
            .unwrap();
        assert_eq!(rules.col_type, ColType::Int, "{key:?}");
    }
    let rules_of = |table: &str, column: &str| {
        *table_rules(table)
            .unwrap()
            .columns
            .iter()
            .find(|c| c.name == column)
            .unwrap()
    };
    for &(table, column) in POSITIVE {
        assert_eq!(
            rules_of(table, column).col_type,
            ColType::Int,
            "{table}.{column}"
        );
    }
    for &(table, column) in NON_NEGATIVE {
        let col_type = rules_of(table, column).col_type;
        assert!(
            matches!(col_type, ColType::Int | ColType::Dbl),
            "{table}.{column}"
        );
    }
    assert_eq!(required_column_count("no_such_table"), 0);
}

/// The keys and rules of the v2 format (`?profile_v2`), in the order the validator
/// checks them.
#[test]
fn derived_lists_are_the_format_rules() {
    assert_eq!(
        PRIMARY_KEYS,
        [
            ("meta", "key"),
            ("sources", "source_id"),
            ("samples", "sample_id"),
            ("locations", "location_id"),
            ("functions", "function_id"),
            ("mappings", "mapping_id"),
            ("resources", "resource_id"),
            ("scopes", "scope_id"),
        ]
    );
    let fk: Vec<String> = FOREIGN_KEYS
        .iter()
        .map(|k| format!("{}.{} {}.{}", k.table, k.column, k.ref_table, k.ref_column))
        .collect();
    assert_eq!(
        fk,
        [
            "sources.scope_id scopes.scope_id",
            "samples.source_id sources.source_id",
            "sample_values.sample_id samples.sample_id",
            "sample_locations.sample_id samples.sample_id",
            "sample_locations.location_id locations.location_id",
            "locations.function_id functions.function_id",
            "locations.mapping_id mappings.mapping_id",
            "locations.inlined_into locations.location_id",
            "sample_types.source_id sources.source_id",
            "sample_labels.sample_id samples.sample_id",
            "mappings.source_id sources.source_id",
            "source_comments.source_id sources.source_id",
            "source_lines.source_id sources.source_id",
            "tasks.source_id sources.source_id",
            "waits.source_id sources.source_id",
            "scopes.resource_id resources.resource_id",
            "resource_attributes.resource_id resources.resource_id",
            "scope_attributes.scope_id scopes.scope_id",
            "source_attributes.source_id sources.source_id",
            "mapping_attributes.mapping_id mappings.mapping_id",
            "location_attributes.location_id locations.location_id",
        ]
    );
    assert_eq!(
        POSITIVE,
        [
            ("sources", "source_id"),
            ("sources", "scope_id"),
            ("sources", "process_id"),
            ("samples", "sample_id"),
            ("sample_locations", "depth"),
            ("locations", "location_id"),
            ("locations", "function_id"),
            ("locations", "mapping_id"),
            ("locations", "inlined_into"),
            ("functions", "function_id"),
            ("mappings", "mapping_id"),
            ("source_lines", "line"),
            ("resources", "resource_id"),
            ("scopes", "scope_id"),
        ]
    );
    assert_eq!(
        NON_NEGATIVE,
        [
            ("sources", "dropped_attributes_count"),
            ("samples", "time"),
            ("locations", "line"),
            ("locations", "column"),
            ("functions", "start_line"),
            ("resources", "dropped_attributes_count"),
            ("scopes", "dropped_attributes_count"),
        ]
    );
    assert_eq!(NOT_NA.len(), 42);
    assert_eq!(
        GAUGE_TYPES,
        ["small_vector_heap", "large_vector_heap", "node_heap"]
    );
    let counts: Vec<usize> = TABLE_RULES
        .iter()
        .map(|t| required_column_count(t.name))
        .collect();
    assert_eq!(
        counts,
        [2, 4, 2, 4, 3, 3, 5, 3, 5, 11, 2, 4, 4, 4, 3, 6, 5, 5, 5, 5, 5]
    );
}
