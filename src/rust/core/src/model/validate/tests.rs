//! Tests of validation: each rule broken once, and the messages that name the
//! table, column and row.

use super::*;
use crate::model::ColMut;

/// [`super::validate`] of `p` with the extension columns it lacks (those of
/// OTLP, which the profiles of these tests do not set) filled with NA, as a
/// reader leaves them.
fn validate(p: &Profile) -> Result<()> {
    super::validate(&padded(p))
}

fn padded(p: &Profile) -> Profile {
    let mut p = p.clone();
    p.pad_extension_columns(&[]);
    p
}

fn small() -> Profile {
    let mut p = Profile::new();
    let rprof = p.strings.intern("rprof");
    let samples = p.strings.intern("samples");
    let count = p.strings.intern("count");
    let f = p.strings.intern("f");
    let empty = p.strings.intern("");
    p.sources.source_id.push(1);
    p.sources.source_type.push(rprof);
    p.sources.source_uri.push(StrId::NA);
    p.sources.source_timestamp.push(f64::NAN);
    for col in p.sources.columns_mut().into_iter().skip(4) {
        let (_, mut c) = col;
        c.fill_na(1);
    }
    p.samples.sample_id.extend([1, 2]);
    p.samples.source_id.extend([1, 1]);
    p.samples.time.extend([0.0, 0.02]);
    for s in [1, 2] {
        p.sample_values.sample_id.push(s);
        p.sample_values.value_type.push(samples);
        p.sample_values.unit.push(count);
        p.sample_values.value.push(1.0);
    }
    p.sample_locations.sample_id.extend([1, 1, 2]);
    p.sample_locations.depth.extend([1, 2, 1]);
    p.sample_locations.location_id.extend([1, 1, 1]);
    p.locations.location_id.push(1);
    p.locations.function_id.push(1);
    p.locations.line.push(0);
    for (_, mut c) in p.locations.columns_mut().into_iter().skip(3) {
        c.fill_na(1);
    }
    p.functions.function_id.push(1);
    p.functions.name.push(f);
    p.functions.system_name.push(f);
    p.functions.filename.push(empty);
    p.functions.start_line.push(0);
    p
}

#[test]
fn accepts_small_profile() {
    assert_eq!(validate(&small()), Ok(()));
}

#[test]
fn rejects_depth_gap() {
    let mut p = small();
    p.sample_locations.depth[1] = 3;
    let err = validate(&p).unwrap_err();
    assert_eq!(err.kind(), "invalid");
    assert!(err.to_string().contains("sample_locations"), "{err}");
}

#[test]
fn sample_times_are_non_negative_or_na() {
    let mut p = small();
    p.samples.time[1] = f64::NAN;
    assert_eq!(validate(&p), Ok(()));
    for bad in [-0.001, f64::INFINITY, f64::NEG_INFINITY] {
        p.samples.time[1] = bad;
        let err = validate(&p).unwrap_err();
        assert_eq!(err.kind(), "invalid");
        let message = err.to_string();
        assert!(
            message.contains("samples") && message.contains("time") && message.contains("row 2"),
            "{message}"
        );
    }
}

#[test]
fn rejects_dangling_location() {
    let mut p = small();
    p.sample_locations.location_id[2] = 7;
    let err = validate(&p).unwrap_err().to_string();
    assert!(
        err.contains("row 3") && err.contains("location_id"),
        "{err}"
    );
}

/// The seven required tables of a pprof profile, whose `locations` keep
/// their extension column `mapping_id`, without the `mappings` table.
#[test]
fn references_into_an_absent_extension_table_are_not_checked() {
    let mut p = small();
    p.locations.mapping_id[0] = 5;
    let err = validate(&p).unwrap_err().to_string();
    assert!(
        err.contains("mapping_id") && err.contains("no match in `mappings`"),
        "{err}"
    );
    p.absent_tables = vec!["mappings"];
    assert_eq!(validate(&p), Ok(()));
}

#[test]
fn rejects_duplicate_value_type() {
    let mut p = small();
    p.sample_values.sample_id[1] = 1;
    let err = validate(&p).unwrap_err().to_string();
    assert!(
        err.contains("sample_values") && err.contains("row 2"),
        "{err}"
    );
}

#[test]
fn rejects_inline_cycle_and_bad_addresses() {
    let mut p = small();
    p.locations.inlined_into[0] = 1;
    assert!(validate(&p)
        .unwrap_err()
        .to_string()
        .contains("inlined into itself"));
    let mut p = small();
    p.locations.address[0] = p.strings.intern("4a2f");
    assert!(validate(&p).unwrap_err().to_string().contains("address"));
    let mut p = small();
    p.sources.time_nanos[0] = p.strings.intern("1.5e18");
    assert!(validate(&p).unwrap_err().to_string().contains("time_nanos"));
}

// A sample whose rows are split into two runs (1, 2, 1): caught whether the
// ids have slots in the index (dense) or are hashed (sparse).
#[test]
fn rejects_split_sample_with_dense_and_sparse_ids() {
    for id in [1, 1_000_000_000] {
        let mut p = small();
        p.samples.sample_id[0] = id;
        p.sample_values.sample_id = vec![id, 2, id];
        p.sample_locations.sample_id = vec![id, id, 2];
        p.sample_values
            .value_type
            .push(p.sample_values.value_type[0]);
        p.sample_values.unit.push(p.sample_values.unit[0]);
        p.sample_values.value.push(1.0);
        let err = validate(&p).unwrap_err().to_string();
        assert!(
            err.contains("sample_values") && err.contains("row 3"),
            "{err}"
        );

        let mut p = small();
        p.samples.sample_id[0] = id;
        p.sample_values.sample_id[0] = id;
        p.sample_locations.sample_id = vec![id, 2, id];
        p.sample_locations.depth = vec![1, 1, 2];
        assert!(
            validate(&p).is_ok(),
            "depths 1..2 of a split sample are complete"
        );
        p.sample_locations.depth = vec![1, 1, 1];
        let err = validate(&p).unwrap_err().to_string();
        assert!(
            err.contains("sample_locations") && err.contains("row 3"),
            "{err}"
        );
    }
}

#[test]
fn rejects_wrong_version() {
    let mut p = small();
    p.meta.value[0] = p.strings.intern("1.0");
    assert!(validate(&p).unwrap_err().to_string().contains("version"));
}

/// A profile large enough to be checked on two threads.
fn large() -> Profile {
    let mut text =
        String::from("memory profiling: line profiling: sample.interval=1000\n#File 1: a.R\n");
    for i in 0..12_000 {
        text.push_str(&format!(":{i}:2:3:4:1#{} \"f\" 1#2 \"g\" \"h\" \n", i % 7));
    }
    let p = crate::testing::read_rprof(text.as_bytes(), None)
        .unwrap()
        .profile;
    assert!(p.sample_values.nrow() + p.sample_locations.nrow() >= MIN_PARALLEL_ROWS);
    p
}

/// The checks one after the other, on this thread.
fn validate_in_one_thread(p: &Profile) -> Result<()> {
    let p = &padded(p);
    let tables = p.tables();
    check_rectangular(&tables)?;
    check_columns(p, &tables)?;
    check_rows(p)
}

#[test]
fn two_threads_report_the_first_error_of_one() {
    let base = large();
    assert_eq!(validate(&base), Ok(()));
    // Damage to each column, alone and with damage that only the second group
    // of checks sees (a depth): the first error in check order wins.
    let mut cases = 0;
    for (t, (_, cols)) in base.tables().iter().enumerate() {
        for c in 0..cols.len() {
            for with_depth_error in [false, true] {
                let mut p = base.clone();
                if with_depth_error {
                    p.sample_locations.depth[500] = 7;
                }
                let name = base.tables()[t].0;
                let Some(mut columns) = p.table_mut(name) else {
                    continue;
                };
                let (_, column) = &mut columns[c];
                match column {
                    ColMut::Int(v) | ColMut::Lgl(v) if !v.is_empty() => {
                        let row = v.len() / 2;
                        v[row] = NA_INT;
                    }
                    ColMut::Dbl(v) if !v.is_empty() => {
                        let row = v.len() / 2;
                        v[row] = -1.0;
                    }
                    ColMut::Chr(v) if !v.is_empty() => {
                        let row = v.len() / 2;
                        v[row] = StrId::NA;
                    }
                    _ => {}
                }
                let expected = validate_in_one_thread(&p);
                assert!(expected.is_err() || !with_depth_error);
                assert_eq!(validate(&p), expected, "{name} column {c}");
                cases += 1;
            }
        }
    }
    assert!(cases > 50);
}
