//! Tests of the verbs on values (`values.rs`): scaling, aggregation, differences.

use super::super::*;
use super::{named_stacks, random_input, stacks, stacks_profile};
use crate::model::validate::validate;
use crate::model::Profile;
use crate::testing::{
    random_profile, row, s,
    Val::{D, I},
};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The sum of the values of each (source id, type, unit).
fn totals(p: &Profile) -> BTreeMap<(i32, String, String), f64> {
    let source: BTreeMap<i32, i32> = p
        .samples
        .sample_id
        .iter()
        .copied()
        .zip(p.samples.source_id.iter().copied())
        .collect();
    let sv = &p.sample_values;
    let mut out = BTreeMap::new();
    for r in 0..sv.nrow() {
        let key = (
            source[&sv.sample_id[r]],
            p.str(sv.value_type[r]).to_string(),
            p.str(sv.unit[r]).to_string(),
        );
        *out.entry(key).or_insert(0.0) += sv.value[r];
    }
    out
}

/// The values of each sample by id, as "type/unit=value" in row order.
fn values_by_sample(p: &Profile) -> BTreeMap<i32, Vec<String>> {
    let sv = &p.sample_values;
    let mut out: BTreeMap<i32, Vec<String>> = BTreeMap::new();
    for r in 0..sv.nrow() {
        let text = format!(
            "{}/{}={}",
            p.str(sv.value_type[r]),
            p.str(sv.unit[r]),
            sv.value[r]
        );
        out.entry(sv.sample_id[r]).or_default().push(text);
    }
    out
}

/// The labels of each sample by id, as "key:value:num:unit", sorted.
fn labels_by_sample(p: &Profile) -> BTreeMap<i32, Vec<String>> {
    let l = &p.sample_labels;
    let mut out: BTreeMap<i32, Vec<String>> = p
        .samples
        .sample_id
        .iter()
        .map(|&s| (s, Vec::new()))
        .collect();
    for r in 0..l.nrow() {
        let text = format!(
            "{}:{:?}:{}:{:?}",
            p.str(l.key[r]),
            p.strings.get(l.value[r]),
            l.num[r],
            p.strings.get(l.num_unit[r])
        );
        out.entry(l.sample_id[r]).or_default().push(text);
    }
    out.values_mut().for_each(|v| v.sort());
    out
}

// ---- scale_values ---------------------------------------------------------------------

/// One sample with a value of `samples` (3) and of `cpu` (10).
fn two_types() -> Profile {
    let mut p = stacks_profile(&[&["f"]]);
    row!(&mut p, sample_values, "sample_id" => I(10), "type" => s("cpu"), "unit" => s("nanoseconds"), "value" => D(10.0));
    row!(&mut p, sample_types, "source_id" => I(1), "type" => s("declared"), "unit" => s("count"));
    p.sample_values.value[0] = 3.0;
    p
}

#[test]
fn scale_multiplies_every_type_or_the_named_ones() {
    let mut p = two_types();
    scale_values(&mut p, 2.5, None).unwrap();
    assert_eq!(p.sample_values.value, vec![7.5, 25.0]);
    scale_values(&mut p, -2.0, Some(&["cpu"])).unwrap();
    assert_eq!(p.sample_values.value, vec![7.5, -50.0]);
    // a type only declared has no values to change; a factor of 0 keeps the sample
    scale_values(&mut p, 0.0, Some(&["declared", "samples"])).unwrap();
    assert_eq!(p.sample_values.value, vec![0.0, -50.0]);
    assert_eq!(p.samples.sample_id, vec![10]);
    validate(&p).unwrap();
}

#[test]
fn scale_refuses_unknown_types_and_factors_that_are_not_numbers() {
    let p = two_types();
    for factor in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let err = scale_values(&mut p.clone(), factor, None).unwrap_err();
        assert_eq!(err.kind(), "argument");
        assert!(err.to_string().contains("finite number"), "{err}");
    }
    let mut q = p.clone();
    let err = scale_values(&mut q, 2.0, Some(&["cpu", "alloc_space"])).unwrap_err();
    assert_eq!(err.kind(), "argument");
    assert!(
        err.to_string().contains("no sample type \"alloc_space\""),
        "{err}"
    );
    assert_eq!(q.sample_values, p.sample_values);
    // "nanoseconds" is a unit, not a type
    assert!(scale_values(&mut q, 2.0, Some(&["nanoseconds"])).is_err());
}

// ---- aggregate ------------------------------------------------------------------------

#[test]
fn aggregate_merges_samples_with_the_same_stack_and_labels_into_the_first() {
    // Labels on samples 10, 30, 50 (every other): 10 and 30 are one, 50 has
    // another stack; 20 and 40 are one (no labels), 60 has no frames.
    let mut p = stacks_profile(&[
        &["f", "main"],
        &["g", "main"],
        &["f", "main"],
        &["g", "main"],
        &["g", "main"],
        &[],
    ]);
    p.samples.time = vec![0.0, 0.1, 0.2, 0.3, 0.4, 0.5];
    let before = totals(&p);
    aggregate(&mut p).unwrap();
    validate(&p).unwrap();
    assert_eq!(p.samples.sample_id, vec![10, 20, 50, 60]);
    // merged samples have no time; the others keep theirs
    let time_bits: Vec<u64> = p.samples.time.iter().map(|t| t.to_bits()).collect();
    assert_eq!(time_bits, [f64::NAN, f64::NAN, 0.4, 0.5].map(f64::to_bits));
    assert_eq!(named_stacks(&p), vec!["f main", "g main", "g main", ""]);
    // values 1 + 3 and 2 + 4
    assert_eq!(p.sample_values.value, vec![4.0, 6.0, 5.0, 6.0]);
    assert_eq!(totals(&p), before);
    // once is enough
    let once = p.clone();
    aggregate(&mut p).unwrap();
    assert_eq!(p.samples.sample_id, once.samples.sample_id);
    assert_eq!(p.sample_values, once.sample_values);
}

#[test]
fn aggregate_keeps_sources_apart_and_gauges_at_their_largest() {
    // Three samples of one stack: 10 and 30 in source 1, 20 in source 2; a
    // memory type (summed) and a heap size (a gauge); 30 alone has `extra`.
    let mut p = stacks_profile(&[&["f"], &["f"], &["f"]]);
    row!(&mut p, sources, "source_id" => I(2), "source_type" => s("rprof"), "source_uri" => s("y.out"));
    p.samples.source_id[1] = 2;
    p.sample_labels = Default::default();
    for (sample, heap, alloc) in [(10, 500.0, 8.0), (20, 900.0, 16.0), (30, 700.0, 32.0)] {
        row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s("small_vector_heap"), "unit" => s("bytes"),
            "value" => D(heap));
        row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s("alloc_size"), "unit" => s("bytes"),
            "value" => D(alloc));
    }
    row!(&mut p, sample_values, "sample_id" => I(30), "type" => s("extra"), "unit" => s("count"), "value" => D(1.0));
    aggregate(&mut p).unwrap();
    validate(&p).unwrap();
    assert_eq!(p.samples.sample_id, vec![10, 20]);
    let values = values_by_sample(&p);
    assert_eq!(
        values[&10],
        vec![
            "samples/count=4",
            "small_vector_heap/bytes=700",
            "alloc_size/bytes=40",
            "extra/count=1"
        ]
    );
    assert_eq!(
        values[&20],
        vec![
            "samples/count=2",
            "small_vector_heap/bytes=900",
            "alloc_size/bytes=16"
        ]
    );
}

#[test]
fn aggregate_does_not_add_values_in_different_units() {
    let mut p = stacks_profile(&[&["f"], &["g"], &["f"]]);
    let ms = p.strings.intern("milliseconds");
    p.sample_values.unit[2] = ms;
    let before = p.clone();
    let err = aggregate(&mut p).unwrap_err();
    assert_eq!(err.kind(), "unsupported");
    assert!(
        err.to_string().contains("\"samples\" comes in two units"),
        "{err}"
    );
    assert_eq!(p.sample_values, before.sample_values);
    assert_eq!(p.samples.sample_id, before.samples.sample_id);
}

#[test]
fn aggregate_refuses_broken_profiles_and_leaves_them_as_they_were() {
    // samples 10 and 30 are one
    let p = stacks_profile(&[&["f"], &["g"], &["f"]]);
    let mut q = p.clone();
    q.samples.sample_id[1] = 10;
    let before = q.clone();
    assert!(aggregate(&mut q)
        .unwrap_err()
        .to_string()
        .contains("appears more than once"));
    assert_eq!(q.sample_values, before.sample_values);
    let mut q = p.clone();
    q.sample_locations.depth[0] = 2;
    assert_eq!(aggregate(&mut q).unwrap_err().kind(), "invalid");
    let mut q = p.clone();
    q.sample_values.sample_id[0] = 99;
    assert!(aggregate(&mut q)
        .unwrap_err()
        .to_string()
        .contains("sample 99 is not in samples"));
}

// ---- diff -----------------------------------------------------------------------------

#[test]
fn diff_negates_and_labels_the_base_and_marks_its_sources() {
    let x = stacks_profile(&[&["f", "main"], &["g", "main"]]);
    let base = stacks_profile(&[&["f", "main"], &["h"]]);
    let d = diff(x.clone(), base.clone()).unwrap();
    validate(&d).unwrap();
    assert_eq!(d.sources.diff_base, vec![0, 1]);
    assert_eq!(d.samples.source_id, vec![1, 1, 2, 2]);
    assert_eq!(named_stacks(&d), vec!["f main", "g main", "f main", "h"]);
    let values: Vec<f64> = d.sample_values.value.clone();
    assert_eq!(values, vec![1.0, 2.0, -1.0, -2.0]);
    // f, main merged across the two: 4 functions, not 5
    assert_eq!(d.functions.nrow(), 4);
    let labels = labels_by_sample(&d);
    assert_eq!(labels[&1], vec!["k:Some(\"v\"):NaN:None"]);
    assert_eq!(labels[&2], Vec::<String>::new());
    assert_eq!(
        labels[&3],
        vec![
            "k:Some(\"v\"):NaN:None",
            "pprof::base:Some(\"true\"):NaN:None"
        ]
    );
    assert_eq!(labels[&4], vec!["pprof::base:Some(\"true\"):NaN:None"]);

    // a difference as x: its base stays a base, its label is kept; as a base,
    // the label is replaced, not repeated
    let dd = diff(d.clone(), d.clone()).unwrap();
    validate(&dd).unwrap();
    assert_eq!(dd.sources.diff_base, vec![0, 1, 1, 1]);
    let labels = labels_by_sample(&dd);
    assert_eq!(labels[&4], vec!["pprof::base:Some(\"true\"):NaN:None"]);
    assert_eq!(
        labels[&5],
        vec![
            "k:Some(\"v\"):NaN:None",
            "pprof::base:Some(\"true\"):NaN:None"
        ]
    );
    let sum: f64 = dd.sample_values.value.iter().sum();
    assert_eq!(sum, 0.0);
}

/// The rows of `table` of `p` as text (strings by their text), to compare
/// tables of profiles whose string pools differ.
fn rows_text(p: &Profile, table: &str) -> Vec<String> {
    let cols = p
        .tables()
        .into_iter()
        .find(|(name, _)| *name == table)
        .map(|(_, cols)| cols)
        .unwrap_or_default();
    let nrow = cols.first().map_or(0, |(_, c)| c.len());
    (0..nrow)
        .map(|r| {
            let cell = |c: &crate::model::ColRef<'_>| match c {
                crate::model::ColRef::Int(v) | crate::model::ColRef::Lgl(v) => format!("{}", v[r]),
                crate::model::ColRef::Dbl(v) => format!("{:?}", v[r]),
                crate::model::ColRef::Chr(v) => format!("{:?}", p.strings.get(v[r])),
            };
            cols.iter()
                .map(|(_, c)| cell(c))
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect()
}

/// The tables whose rows [`DiffInputs::combine_after_x`] leaves out for `x`.
const PER_SAMPLE: [&str; 4] = [
    "samples",
    "sample_values",
    "sample_locations",
    "sample_labels",
];

/// Checks that `after` is `whole` (a difference of `x` and a base) without
/// `x`'s per-sample rows.
fn check_after_x(whole: &Profile, after: &Profile, x: &Profile) -> Result<(), TestCaseError> {
    prop_assert_eq!(&whole.absent_tables, &after.absent_tables);
    for (table, _) in whole.tables() {
        let (w, a) = (rows_text(whole, table), rows_text(after, table));
        if PER_SAMPLE.contains(&table) {
            let x_rows = rows_text(x, table);
            prop_assert_eq!(&w[..x_rows.len()], &x_rows[..], "{}", table);
            prop_assert_eq!(&w[x_rows.len()..], &a[..], "{}", table);
        } else {
            prop_assert_eq!(w, a, "{}", table);
        }
    }
    Ok(())
}

/// The difference of `x` and `base` without `x`'s per-sample rows, checked
/// against the whole difference: `x`'s rows (with the ids that change as
/// given) and then those of the difference without them.
fn after_x(x: &Profile, base: &Profile) -> AfterX {
    let after = DiffInputs::new(x.clone(), base.clone())
        .unwrap()
        .combine_after_x()
        .unwrap();
    let whole = diff(x.clone(), base.clone()).unwrap();
    let mut x = x.clone();
    for (column, values) in &after.x_ids {
        for (name, col) in x.table_mut(column.table).unwrap() {
            if let (true, crate::model::ColMut::Int(v)) = (name == column.column, col) {
                *v = values.clone();
            }
        }
    }
    check_after_x(&whole, &after.profile, &x).unwrap();
    after
}

/// The columns of the ids of x's rows that a difference changes.
fn changed_ids(after: &AfterX) -> Vec<String> {
    let mut out: Vec<String> = after
        .x_ids
        .iter()
        .map(|(c, _)| format!("{}${}", c.table, c.column))
        .collect();
    out.sort();
    out
}

#[test]
fn diff_after_x_gives_the_ids_of_x_rows_that_change() {
    let dense = |p: Profile| crate::ops::combine::combine(&[p], &Default::default()).unwrap();
    let x = stacks_profile(&[&["f", "main"], &["g", "main"]]);
    let base = stacks_profile(&[&["f", "main"], &["h"]]);
    // sample ids 10, 20 and location ids 100, 200, 300: they change
    let after = after_x(&x, &base);
    assert_eq!(
        changed_ids(&after),
        vec![
            "sample_labels$sample_id",
            "sample_locations$location_id",
            "sample_locations$sample_id",
            "sample_values$sample_id",
            "samples$sample_id",
        ]
    );
    let sample_ids = &after
        .x_ids
        .iter()
        .find(|(c, _)| *c == crate::model::Samples::sample_id)
        .unwrap()
        .1;
    assert_eq!(sample_ids, &vec![1, 2]);
    // 1..n: none changes; the base's samples are numbered after x's
    let x = dense(x);
    let after = after_x(&x, &base);
    assert!(after.x_ids.is_empty());
    assert_eq!(after.profile.samples.sample_id, vec![3, 4]);
    // a source id that is not 1..n, or locations that merge
    let mut moved = x.clone();
    moved.sources.source_id = vec![2];
    moved.samples.source_id = vec![2, 2];
    assert_eq!(
        changed_ids(&after_x(&moved, &base)),
        vec!["samples$source_id"]
    );
    let mut merged = x.clone();
    let f = merged.locations.function_id[0];
    merged
        .locations
        .function_id
        .iter_mut()
        .for_each(|id| *id = f);
    merged.locations.line.iter_mut().for_each(|l| *l = 1);
    validate(&merged).unwrap();
    let after = after_x(&merged, &base);
    assert_eq!(changed_ids(&after), vec!["sample_locations$location_id"]);
    assert!(after.x_ids[0].1.iter().all(|&id| id == 1));
}

// ---- time_window ----------------------------------------------------------------------

#[test]
fn window_keeps_the_samples_taken_from_its_start_to_before_its_end() {
    let mut p = stacks_profile(&[&["a"], &["b"], &["c"], &["d"], &["e"]]);
    p.samples.time = vec![0.0, 0.02, 0.04, f64::NAN, 0.06];
    let kept = |from, to| {
        let mut q = p.clone();
        time_window(&mut q, from, to).unwrap();
        validate(&q).unwrap();
        named_stacks(&q)
    };
    assert_eq!(kept(Some(0.02), Some(0.06)), vec!["b", "c"]);
    assert_eq!(kept(None, Some(0.02)), vec!["a"]);
    assert_eq!(kept(Some(0.04), None), vec!["c", "e"]);
    assert_eq!(kept(None, None), vec!["a", "b", "c", "e"]);
    assert_eq!(kept(Some(0.03), Some(0.03)), Vec::<String>::new());
}

#[test]
fn window_refuses_reversed_or_missing_bounds_and_profiles_without_times() {
    let mut p = stacks_profile(&[&["a"], &["b"]]);
    p.samples.time = vec![0.0, 0.02];
    for (from, to) in [
        (Some(1.0), Some(0.5)),
        (Some(f64::NAN), None),
        (None, Some(f64::NAN)),
    ] {
        let mut q = p.clone();
        assert_eq!(
            time_window(&mut q, from, to).unwrap_err().kind(),
            "argument",
            "{from:?} {to:?}"
        );
        assert_eq!(q.samples.nrow(), 2);
    }
    p.samples.time = vec![f64::NAN, f64::NAN];
    let e = time_window(&mut p, Some(0.0), None).unwrap_err();
    assert_eq!(e.kind(), "argument");
    assert!(e.to_string().contains("no sample times"), "{e}");
    // no samples: an empty window of an empty profile
    let mut empty = stacks_profile(&[]);
    empty.samples.time.clear();
    time_window(&mut empty, Some(0.0), Some(1.0)).unwrap();
}

// ---- properties -----------------------------------------------------------------------

proptest! {
    #![proptest_config(crate::testing::config(500))]

    /// One sample per distinct (source, stack, labels), each with the sums of
    /// the values of its group, computed here from the tables.
    #[test]
    fn aggregate_gives_one_sample_per_distinct_stack_and_labels(seed in any::<u64>(), shuffle in any::<bool>()) {
        let p = random_input(seed, shuffle);
        type Key = (i32, Vec<i32>, Vec<String>);
        let key_of = |q: &Profile| -> BTreeMap<i32, Key> {
            let (st, lab) = (stacks(q), labels_by_sample(q));
            q.samples.sample_id.iter().zip(&q.samples.source_id).map(|(&id, &src)| (id, (src, st[&id].clone(), lab[&id].clone()))).collect()
        };
        let mut expected: BTreeMap<Key, BTreeMap<String, f64>> = BTreeMap::new();
        let keys = key_of(&p);
        let sv = &p.sample_values;
        for &id in &p.samples.sample_id {
            expected.entry(keys[&id].clone()).or_default();
        }
        for r in 0..sv.nrow() {
            let types = expected.get_mut(&keys[&sv.sample_id[r]]).unwrap();
            *types.entry(format!("{}/{}", p.str(sv.value_type[r]), p.str(sv.unit[r]))).or_insert(0.0) += sv.value[r];
        }
        let mut q = p.clone();
        aggregate(&mut q).unwrap();
        prop_assert_eq!(validate(&q), Ok(()));
        let mut got: BTreeMap<Key, BTreeMap<String, f64>> = BTreeMap::new();
        let keys = key_of(&q);
        for &id in &q.samples.sample_id {
            prop_assert!(got.insert(keys[&id].clone(), BTreeMap::new()).is_none(), "two samples of one key");
        }
        let sv = &q.sample_values;
        for r in 0..sv.nrow() {
            let types = got.get_mut(&keys[&sv.sample_id[r]]).unwrap();
            let type_unit = format!("{}/{}", q.str(sv.value_type[r]), q.str(sv.unit[r]));
            prop_assert!(types.insert(type_unit, sv.value[r]).is_none(), "a type twice in a sample");
        }
        prop_assert_eq!(got, expected);
        // the first sample of each group stays, in its order
        prop_assert!(q.samples.sample_id.iter().all(|id| p.samples.sample_id.contains(id)));
    }

    /// A difference is valid, has the samples of both, and its totals of each
    /// type are x's minus the base's.
    #[test]
    fn diff_is_valid_and_subtracts(seed_x in any::<u64>(), seed_base in any::<u64>()) {
        let (x, base) = (random_profile(seed_x), random_profile(seed_base));
        let d = diff(x.clone(), base.clone()).unwrap();
        prop_assert_eq!(validate(&d), Ok(()));
        prop_assert_eq!(d.samples.nrow(), x.samples.nrow() + base.samples.nrow());
        let by_type = |p: &Profile| -> BTreeMap<String, f64> {
            let mut out = BTreeMap::new();
            for ((_, t, u), v) in totals(p) {
                *out.entry(format!("{t}/{u}")).or_insert(0.0) += v;
            }
            out
        };
        let mut expected = by_type(&x);
        for (t, v) in by_type(&base) {
            *expected.entry(t).or_insert(0.0) -= v;
        }
        prop_assert_eq!(by_type(&d), expected);
        let n_x = x.sources.nrow();
        prop_assert!(d.sources.diff_base.iter().enumerate().all(|(i, &b)| b == i32::from(i >= n_x)));
    }

    /// The difference without x's per-sample rows is the difference whose
    /// rows those are, with the ids that change given (none where x's ids
    /// are 1..n, as combining x alone makes them).
    #[test]
    fn diff_after_x_is_the_difference_without_x_rows(seed_x in any::<u64>(), seed_base in any::<u64>(), dense in any::<bool>()) {
        let mut x = random_profile(seed_x);
        if dense {
            x = crate::ops::combine::combine(&[x], &Default::default()).unwrap();
        }
        let after = after_x(&x, &random_profile(seed_base));
        prop_assert!(after.x_ids.is_empty() || !dense);
    }

    /// Scaling then scaling back gives the values (of powers of two exactly).
    #[test]
    fn scale_is_undone_by_its_inverse(seed in any::<u64>(), power in -4i32..5) {
        let p = random_profile(seed);
        let factor = 2f64.powi(power);
        let mut q = p.clone();
        scale_values(&mut q, factor, None).unwrap();
        prop_assert_eq!(validate(&q), Ok(()));
        for (a, b) in q.sample_values.value.iter().zip(&p.sample_values.value) {
            prop_assert_eq!(*a, b * factor);
        }
        scale_values(&mut q, 1.0 / factor, None).unwrap();
        prop_assert_eq!(&q.sample_values, &p.sample_values);
    }
}
