use super::*;
use crate::model::validate::validate;
use crate::testing::{
    row, s,
    Val::{D, I},
};

/// Two sources: 1 declares alloc and inuse (default inuse), 2 declares
/// cpu (default cpu); samples 1 and 2 of source 1, 3 of source 2.
fn typed() -> Profile {
    let mut p = Profile::new();
    for (source, default) in [(1, "inuse"), (2, "cpu")] {
        row!(&mut p, sources, "source_id" => I(source), "source_type" => s("pprof"),
            "default_sample_type" => s(default));
    }
    for (source, t) in [(1, "alloc"), (1, "inuse"), (2, "cpu")] {
        row!(&mut p, sample_types, "source_id" => I(source), "type" => s(t), "unit" => s("bytes"));
    }
    for (sample, source) in [(1, 1), (2, 1), (3, 2)] {
        row!(&mut p, samples, "sample_id" => I(sample), "source_id" => I(source));
    }
    for (sample, t, v) in [
        (1, "alloc", 1.0),
        (1, "inuse", 2.0),
        (2, "alloc", 3.0),
        (2, "inuse", 4.0),
        (3, "cpu", 5.0),
    ] {
        row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s(t), "unit" => s("bytes"), "value" => D(v));
    }
    validate(&p).unwrap();
    p
}

fn type_names(p: &Profile, ids: &[StrId]) -> Vec<String> {
    ids.iter().map(|&t| p.str(t).to_string()).collect()
}

#[test]
fn kept_types_keep_their_values_and_declarations() {
    let mut p = typed();
    keep_sample_types(&mut p, &["alloc", "cpu"]).unwrap();
    validate(&p).unwrap();
    assert_eq!(
        type_names(&p, &p.sample_values.value_type),
        vec!["alloc", "alloc", "cpu"]
    );
    assert_eq!(p.sample_values.value, vec![1.0, 3.0, 5.0]);
    assert_eq!(p.sample_values.sample_id, vec![1, 2, 3]);
    assert_eq!(
        type_names(&p, &p.sample_types.value_type),
        vec!["alloc", "cpu"]
    );
    // inuse is gone: source 1 has no default any more
    assert_eq!(p.sources.default_sample_type[0], StrId::NA);
    assert_eq!(p.str(p.sources.default_sample_type[1]), "cpu");
    // samples stay, with the values of the kept types or none
    assert_eq!(p.samples.sample_id, vec![1, 2, 3]);
    let mut q = typed();
    keep_sample_types(&mut q, &["inuse"]).unwrap();
    validate(&q).unwrap();
    assert_eq!(q.samples.sample_id, vec![1, 2, 3]);
    assert_eq!(q.sample_values.value, vec![2.0, 4.0]);
}

#[test]
fn a_type_the_profile_lacks_is_an_argument_error_naming_those_it_has() {
    let mut p = typed();
    let before = p.clone();
    let err = keep_sample_types(&mut p, &["alloc", "wall", "x"]).unwrap_err();
    assert_eq!(err.kind(), "argument");
    assert_eq!(
        err.to_string(),
        "the profile has no sample types \"wall\", \"x\"; its types are \"alloc\", \"inuse\", \"cpu\""
    );
    assert_eq!(format!("{p:?}"), format!("{before:?}"));
    // a string of the profile that is no type
    let err = keep_sample_types(&mut p, &["bytes"]).unwrap_err();
    assert!(
        err.to_string().contains("no sample type \"bytes\""),
        "{err}"
    );
}
