use super::UNKNOWN_PROGRAM;
use crate::formats::other_format_than_otlp;
use crate::formats::otlp::read_bytes;
use crate::formats::pprof::{message_from_profile, WriteOptions, R_MAPPING_FILENAME};
use crate::model::Profile;
use crate::resources::limits::Limits;
use crate::testing::shared_otlp;

fn read_shared(file: &str) -> Option<Profile> {
    let bytes = shared_otlp(file)?;
    Some(
        read_bytes(
            &bytes,
            Some("test"),
            &Limits::default(),
            &other_format_than_otlp,
        )
        .unwrap(),
    )
}

/// The file names of the mappings `write_pprof()` writes of `p`.
fn written_mappings(p: &Profile) -> Vec<String> {
    let m = message_from_profile(p, &WriteOptions::default()).unwrap();
    let name = |i: i64| String::from_utf8_lossy(&m.string_table[i as usize]).into_owned();
    m.mapping
        .iter()
        .map(|mapping| name(mapping.filename))
        .collect()
}

#[test]
fn java_frames_go_into_the_program_s_mapping() {
    let Some(mut p) = read_shared("async-profiler-generated/burn.otlp.pb") else {
        return;
    };
    // Every frame without a mapping, in one mapping of their own, not [R].
    assert!(p
        .locations
        .mapping_id
        .iter()
        .all(|&m| m == crate::model::NA_INT));
    assert_eq!(written_mappings(&p), [UNKNOWN_PROGRAM]);
    // A scope's name (the profiler) names it, a resource's program first.
    let scope = p.sources.scope_id[0];
    let row = p.scopes.scope_id.iter().position(|&s| s == scope).unwrap();
    p.scopes.name[row] = p.strings.intern("/opt/async-profiler/bin/asprof");
    assert_eq!(written_mappings(&p), ["asprof"]);
    let a = &mut p.resource_attributes;
    a.resource_id.push(p.scopes.resource_id[row]);
    a.key.push(p.strings.intern("process.executable.path"));
    a.value.push(p.strings.intern("/usr/lib/jvm/bin/java"));
    a.num.push(f64::NAN);
    a.num_unit.push(p.strings.intern_opt(None));
    a.kind.push(p.strings.intern_opt(None));
    assert_eq!(written_mappings(&p), ["java"]);
}

#[test]
fn mapped_frames_keep_their_mappings() {
    let Some(p) = read_shared("pyroscope/otel-ebpf-profile.pb.bin") else {
        return;
    };
    let names = written_mappings(&p);
    assert_eq!(names.len(), p.mappings.nrow());
    assert!(!names
        .iter()
        .any(|n| n == R_MAPPING_FILENAME || n == UNKNOWN_PROGRAM));
    let m = message_from_profile(&p, &WriteOptions::default()).unwrap();
    assert!(m.mapping.iter().all(|mapping| mapping.has_functions));
}
