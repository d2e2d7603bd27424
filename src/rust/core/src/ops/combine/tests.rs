use super::*;
use crate::model::validate::validate;
use crate::model::{ColRef, Functions, Locations, NA_INT};
use crate::testing::{
    random_profile, row, s,
    Val::{D, I},
};
use proptest::prelude::*;

// ---- building inputs --------------------------------------------------------------

/// An Rprof-like profile: one source, one sample per stack (innermost first), one
/// function and one location per distinct name, ids as in the order of appearance
/// times `stride` (so ids are not dense when stride > 1).
fn rprof_like(uri: &str, stacks: &[&[&str]], stride: i32) -> Profile {
    let mut p = Profile::new();
    row!(&mut p, sources, "source_id" => I(7), "source_type" => s("rprof"), "source_uri" => s(uri),
        "source_timestamp" => D(1.5e9), "period" => D(5e6), "rprof_header" => s("sample.interval=5000"));
    row!(&mut p, sample_types, "source_id" => I(7), "type" => s("samples"), "unit" => s("count"));
    let mut names: Vec<&str> = Vec::new();
    for (k, stack) in stacks.iter().enumerate() {
        let sample = (k as i32 + 1) * stride;
        row!(&mut p, samples, "sample_id" => I(sample), "source_id" => I(7));
        row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s("samples"), "unit" => s("count"), "value" => D(1.0));
        for (depth, name) in stack.iter().enumerate() {
            let pos = match names.iter().position(|n| n == name) {
                Some(pos) => pos,
                None => {
                    names.push(name);
                    let id = names.len() as i32 * stride;
                    row!(&mut p, functions, "function_id" => I(id), "name" => s(name), "system_name" => s(name),
                        "filename" => s(""), "start_line" => I(0));
                    row!(&mut p, locations, "location_id" => I(id), "function_id" => I(id), "line" => I(0));
                    names.len() - 1
                }
            };
            row!(&mut p, sample_locations, "sample_id" => I(sample), "depth" => I(depth as i32 + 1),
                "location_id" => I((pos as i32 + 1) * stride));
        }
    }
    p
}

/// A pprof-like profile with a mapping, labels, a comment and one location with an
/// inlined frame: location 30 (inlined `inner`) is inlined into location 20
/// (`outer`), listed in this order so that the target comes after its user.
fn pprof_like(uri: &str) -> Profile {
    let mut p = Profile::new();
    row!(&mut p, meta, "key" => s("tool"), "value" => s("go"));
    row!(&mut p, sources, "source_id" => I(3), "source_type" => s("pprof"), "source_uri" => s(uri),
        "source_timestamp" => D(1.7e9), "period_type" => s("space"), "period_unit" => s("bytes"),
        "period" => D(524288.0), "time_nanos" => s("1700000000123456789"), "default_sample_type" => s("inuse_space"));
    for (t, u) in [("alloc_space", "bytes"), ("inuse_space", "bytes")] {
        row!(&mut p, sample_types, "source_id" => I(3), "type" => s(t), "unit" => s(u));
    }
    row!(&mut p, source_comments, "source_id" => I(3), "comment" => s("a comment"));
    row!(&mut p, mappings, "mapping_id" => I(9), "source_id" => I(3), "memory_start" => s("0x400000"),
        "memory_limit" => s("0x500000"), "file_offset" => s("0x0"), "filename" => s("/bin/prog"),
        "build_id" => s("abc"), "has_functions" => I(1));
    for (id, name) in [(1, "main.main"), (2, "main.inner"), (3, "main.outer")] {
        row!(&mut p, functions, "function_id" => I(id), "name" => s(name), "system_name" => s(name),
            "filename" => s("main.go"), "start_line" => I(id * 10));
    }
    row!(&mut p, locations, "location_id" => I(30), "function_id" => I(2), "line" => I(21), "address" => s("0x401000"),
        "mapping_id" => I(9), "is_folded" => I(0), "column" => I(0), "inlined_into" => I(20));
    row!(&mut p, locations, "location_id" => I(20), "function_id" => I(3), "line" => I(31), "address" => s("0x401000"),
        "mapping_id" => I(9), "is_folded" => I(0), "column" => I(0));
    row!(&mut p, locations, "location_id" => I(10), "function_id" => I(1), "line" => I(11), "address" => s("0x402000"),
        "mapping_id" => I(9), "is_folded" => I(0), "column" => I(0));
    for (sample, alloc) in [(5, 1024.0), (6, 4096.0)] {
        row!(&mut p, samples, "sample_id" => I(sample), "source_id" => I(3));
        row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s("alloc_space"), "unit" => s("bytes"), "value" => D(alloc));
        row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s("inuse_space"), "unit" => s("bytes"), "value" => D(0.0));
        for (depth, loc) in [(1, 30), (2, 20), (3, 10)] {
            row!(&mut p, sample_locations, "sample_id" => I(sample), "depth" => I(depth), "location_id" => I(loc));
        }
        row!(&mut p, sample_labels, "sample_id" => I(sample), "key" => s("bytes"), "num" => D(alloc), "num_unit" => s("bytes"));
    }
    p
}

// ---- describing results independently of ids --------------------------------------

fn describe_function(p: &Profile, id: i32) -> String {
    let f = &p.functions;
    match f.function_id.iter().position(|&x| x == id) {
        Some(r) => format!(
            "{}/{}/{}/{}",
            p.str(f.name[r]),
            p.str(f.system_name[r]),
            p.str(f.filename[r]),
            f.start_line[r]
        ),
        None => "NA".to_string(),
    }
}

fn describe_location(p: &Profile, id: i32) -> String {
    let l = &p.locations;
    let r = l
        .location_id
        .iter()
        .position(|&x| x == id)
        .expect("location exists");
    let mapping = match p
        .mappings
        .mapping_id
        .iter()
        .position(|&m| m == l.mapping_id[r])
    {
        Some(m) => format!(
            "{}@{}@{}",
            p.str(p.mappings.filename[m]),
            p.str(p.mappings.memory_start[m]),
            p.mappings.has_functions[m]
        ),
        None => "-".to_string(),
    };
    let inlined = if l.inlined_into[r] == NA_INT {
        String::new()
    } else {
        format!(" in [{}]", describe_location(p, l.inlined_into[r]))
    };
    format!(
        "{} l{} {:?} {} f{} c{}{}",
        describe_function(p, l.function_id[r]),
        l.line[r],
        p.strings.get(l.address[r]),
        mapping,
        l.is_folded[r],
        l.column[r],
        inlined
    )
}

/// Everything a sample carries, without ids: stack (innermost first), values and
/// labels.
fn describe_sample(p: &Profile, sample: i32) -> String {
    let sl = &p.sample_locations;
    let mut frames: Vec<(i32, String)> = (0..sl.nrow())
        .filter(|&r| sl.sample_id[r] == sample)
        .map(|r| (sl.depth[r], describe_location(p, sl.location_id[r])))
        .collect();
    frames.sort();
    let sv = &p.sample_values;
    let mut values: Vec<String> = (0..sv.nrow())
        .filter(|&r| sv.sample_id[r] == sample)
        .map(|r| {
            format!(
                "{}={}{}",
                p.str(sv.value_type[r]),
                sv.value[r],
                p.str(sv.unit[r])
            )
        })
        .collect();
    values.sort();
    let lab = &p.sample_labels;
    let labels: Vec<String> = (0..lab.nrow())
        .filter(|&r| lab.sample_id[r] == sample)
        .map(|r| {
            format!(
                "{}:{:?}:{}:{:?}",
                p.str(lab.key[r]),
                p.strings.get(lab.value[r]),
                lab.num[r],
                p.strings.get(lab.num_unit[r])
            )
        })
        .collect();
    let stack: Vec<String> = frames.into_iter().map(|(_, f)| f).collect();
    format!(
        "{} | {} | {}",
        stack.join(" < "),
        values.join(","),
        labels.join(",")
    )
}

/// Per source (in row order): the source row, its declared types, comments,
/// mappings, and its samples in order; all without ids.
fn describe_sources(p: &Profile) -> Vec<String> {
    let src = &p.sources;
    (0..src.nrow())
        .map(|r| {
            let id = src.source_id[r];
            let row: Vec<String> = src
                .columns()
                .into_iter()
                .skip(1)
                .map(|(_, c)| match c {
                    ColRef::Chr(v) => format!("{:?}", p.strings.get(v[r])),
                    ColRef::Dbl(v) => format!("{}", v[r]),
                    ColRef::Int(v) | ColRef::Lgl(v) => format!("{}", v[r]),
                })
                .collect();
            let types: Vec<String> = (0..p.sample_types.nrow())
                .filter(|&t| p.sample_types.source_id[t] == id)
                .map(|t| {
                    format!(
                        "{}/{}",
                        p.str(p.sample_types.value_type[t]),
                        p.str(p.sample_types.unit[t])
                    )
                })
                .collect();
            let comments: Vec<&str> = (0..p.source_comments.nrow())
                .filter(|&t| p.source_comments.source_id[t] == id)
                .map(|t| p.str(p.source_comments.comment[t]))
                .collect();
            let mappings: Vec<String> = (0..p.mappings.nrow())
                .filter(|&m| p.mappings.source_id[m] == id)
                .map(|m| {
                    format!(
                        "{}:{}",
                        p.str(p.mappings.filename[m]),
                        p.str(p.mappings.build_id[m])
                    )
                })
                .collect();
            let samples: Vec<String> = (0..p.samples.nrow())
                .filter(|&k| p.samples.source_id[k] == id)
                .map(|k| describe_sample(p, p.samples.sample_id[k]))
                .collect();
            format!(
                "{}\n types {:?}\n comments {:?}\n mappings {:?}\n{}",
                row.join(","),
                types,
                comments,
                mappings,
                samples.join("\n")
            )
        })
        .collect()
}

fn meta_pairs(p: &Profile) -> Vec<(String, Option<String>)> {
    (0..p.meta.nrow())
        .map(|r| {
            (
                p.str(p.meta.key[r]).to_string(),
                p.strings.get(p.meta.value[r]).map(str::to_string),
            )
        })
        .collect()
}

/// Self counts (value of type `samples` at depth 1) per function description.
fn self_counts(p: &Profile) -> std::collections::BTreeMap<String, f64> {
    let mut out = std::collections::BTreeMap::new();
    let sl = &p.sample_locations;
    for r in (0..sl.nrow()).filter(|&r| sl.depth[r] == 1) {
        let loc = p
            .locations
            .location_id
            .iter()
            .position(|&l| l == sl.location_id[r])
            .unwrap();
        let f = describe_function(p, p.locations.function_id[loc]);
        let value: f64 = (0..p.sample_values.nrow())
            .filter(|&v| p.sample_values.sample_id[v] == sl.sample_id[r])
            .filter(|&v| p.str(p.sample_values.value_type[v]) == "samples")
            .map(|v| p.sample_values.value[v])
            .sum();
        *out.entry(f).or_insert(0.0) += value;
    }
    out
}

fn is_one_to_n(ids: &[i32]) -> bool {
    ids.iter().enumerate().all(|(k, &id)| id == k as i32 + 1)
}

fn assert_dense(p: &Profile) {
    assert!(is_one_to_n(&p.sources.source_id));
    assert!(is_one_to_n(&p.samples.sample_id));
    assert!(is_one_to_n(&p.locations.location_id));
    assert!(is_one_to_n(&p.functions.function_id));
    assert!(is_one_to_n(&p.mappings.mapping_id));
}

const MERGE: CombineOptions = CombineOptions { merge: true };
const NO_MERGE: CombineOptions = CombineOptions { merge: false };

// ---- unit tests ---------------------------------------------------------------------

#[test]
fn merge_keys_cover_every_column() {
    // The merge keys list the columns of these tables by hand; a new column must be
    // added to FunctionKey / LocationKey (and push_location) too.
    assert_eq!(
        Functions::COLUMNS,
        [
            "function_id",
            "name",
            "system_name",
            "filename",
            "start_line"
        ]
    );
    assert_eq!(
        Locations::COLUMNS,
        [
            "location_id",
            "function_id",
            "line",
            "address",
            "mapping_id",
            "is_folded",
            "column",
            "inlined_into"
        ]
    );
}

#[test]
fn inputs_are_valid() {
    validate(&rprof_like(
        "a.out",
        &[&["f", "main"], &["g", "f", "main"]],
        3,
    ))
    .unwrap();
    validate(&pprof_like("heap.pb.gz")).unwrap();
}

#[test]
fn combines_samples_and_sources_in_input_order() {
    let a = rprof_like(
        "a.out",
        &[&["f", "main"], &["g", "f", "main"], &["main"]],
        1,
    );
    let b = rprof_like("b.out", &[&["h", "main"], &["f", "main"]], 5);
    let out = combine(&[a.clone(), b.clone()], &MERGE).unwrap();
    validate(&out).unwrap();
    assert_dense(&out);
    assert_eq!(out.samples.nrow(), 5);
    let uris: Vec<&str> = out.sources.source_uri.iter().map(|&u| out.str(u)).collect();
    assert_eq!(uris, ["a.out", "b.out"]);
    assert_eq!(out.samples.source_id, [1, 1, 1, 2, 2]);
    // f, main, g from a; h from b; b's f and main are merged into a's.
    let names: Vec<&str> = out.functions.name.iter().map(|&n| out.str(n)).collect();
    assert_eq!(names, ["f", "main", "g", "h"]);
    assert_eq!(out.locations.nrow(), 4);
    let mut expected = describe_sources(&a);
    expected.extend(describe_sources(&b));
    assert_eq!(describe_sources(&out), expected);
    // Strings are interned once in the result.
    let mut pool: Vec<&String> = out.strings.as_slice().iter().skip(1).collect();
    let n = pool.len();
    pool.sort();
    pool.dedup();
    assert_eq!(pool.len(), n);
}

#[test]
fn merging_can_be_turned_off() {
    let a = rprof_like("a.out", &[&["f", "main"]], 1);
    let out = combine(&[a.clone(), a.clone()], &NO_MERGE).unwrap();
    validate(&out).unwrap();
    assert_dense(&out);
    assert_eq!(out.functions.nrow(), 4);
    assert_eq!(out.locations.nrow(), 4);
    assert_eq!(out.sample_locations.location_id, [1, 2, 3, 4]);
    assert_eq!(out.locations.function_id, [1, 2, 3, 4]);
}

#[test]
fn combining_a_profile_with_itself_doubles_self_counts() {
    let a = rprof_like(
        "a.out",
        &[&["f", "main"], &["g", "f", "main"], &["f", "main"]],
        2,
    );
    let out = combine(&[a.clone(), a.clone()], &MERGE).unwrap();
    validate(&out).unwrap();
    assert_eq!(out.functions.nrow(), a.functions.nrow());
    assert_eq!(out.locations.nrow(), a.locations.nrow());
    let single = self_counts(&a);
    let double = self_counts(&out);
    assert_eq!(
        single.keys().collect::<Vec<_>>(),
        double.keys().collect::<Vec<_>>()
    );
    for (f, n) in single {
        assert_eq!(double[&f], 2.0 * n, "{f}");
    }
}

#[test]
fn one_dense_profile_comes_back_unchanged() {
    let a = rprof_like("a.out", &[&["f", "main"], &["g", "f", "main"]], 1);
    let mut a = a;
    a.sources.source_id[0] = 1;
    a.sample_types.source_id[0] = 1;
    a.samples.source_id.iter_mut().for_each(|s| *s = 1);
    let out = combine(std::slice::from_ref(&a), &MERGE).unwrap();
    for ((name, theirs), (_, ours)) in a.tables().into_iter().zip(out.tables()) {
        for ((col, x), (_, y)) in theirs.into_iter().zip(ours) {
            match (x, y) {
                (ColRef::Chr(x), ColRef::Chr(y)) => {
                    let x: Vec<Option<&str>> = x.iter().map(|&i| a.strings.get(i)).collect();
                    let y: Vec<Option<&str>> = y.iter().map(|&i| out.strings.get(i)).collect();
                    assert_eq!(x, y, "{name}.{col}");
                }
                (ColRef::Dbl(x), ColRef::Dbl(y)) => {
                    let x: Vec<u64> = x.iter().map(|v| v.to_bits()).collect();
                    let y: Vec<u64> = y.iter().map(|v| v.to_bits()).collect();
                    assert_eq!(x, y, "{name}.{col}");
                }
                (ColRef::Int(x), ColRef::Int(y)) | (ColRef::Lgl(x), ColRef::Lgl(y)) => {
                    assert_eq!(x, y, "{name}.{col}")
                }
                _ => panic!("column types differ in {name}.{col}"),
            }
        }
    }
}

#[test]
fn mixed_formats_keep_their_own_value_types_and_extension_tables() {
    let a = rprof_like("a.out", &[&["f", "main"]], 1);
    let b = pprof_like("heap.pb.gz");
    let out = combine(&[a.clone(), b.clone(), b.clone()], &MERGE).unwrap();
    validate(&out).unwrap();
    assert_dense(&out);
    let mut expected = describe_sources(&a);
    expected.extend(describe_sources(&b));
    expected.extend(describe_sources(&b));
    assert_eq!(describe_sources(&out), expected);
    // Mappings belong to a source, so they are never merged; locations that use
    // them are not merged either; functions are.
    assert_eq!(out.mappings.nrow(), 2);
    assert_eq!(out.mappings.source_id, [2, 3]);
    assert_eq!(out.functions.nrow(), 2 + 3);
    assert_eq!(out.locations.nrow(), 2 + 3 + 3);
    // Each sample keeps the value types of its own source.
    let types_of = |sample: i32| -> Vec<&str> {
        (0..out.sample_values.nrow())
            .filter(|&r| out.sample_values.sample_id[r] == sample)
            .map(|r| out.str(out.sample_values.value_type[r]))
            .collect()
    };
    assert_eq!(types_of(1), ["samples"]);
    assert_eq!(types_of(2), ["alloc_space", "inuse_space"]);
    assert_eq!(out.sample_labels.sample_id, [2, 3, 4, 5]);
    assert_eq!(out.source_comments.source_id, [2, 3]);
    assert_eq!(out.sample_types.source_id, [1, 2, 2, 3, 3]);
}

#[test]
fn inlined_frames_keep_row_order_and_merge_as_chains() {
    let b = pprof_like("heap.pb.gz");
    let out = combine(std::slice::from_ref(&b), &MERGE).unwrap();
    // Rows keep the input's order although the target of row 1 is resolved first.
    assert_eq!(out.locations.location_id, [1, 2, 3]);
    assert_eq!(out.locations.inlined_into, [2, NA_INT, NA_INT]);

    // Without the mapping, locations of two copies are identical and merge, chain
    // included.
    let mut c = b.clone();
    c.mappings = Default::default();
    c.locations.mapping_id.iter_mut().for_each(|m| *m = NA_INT);
    let out = combine(&[c.clone(), c.clone()], &MERGE).unwrap();
    validate(&out).unwrap();
    assert_eq!(out.locations.nrow(), 3);
    assert_eq!(out.locations.inlined_into, [2, NA_INT, NA_INT]);
    assert_eq!(
        out.sample_locations.location_id,
        [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]
    );

    // Same frame, but inlined into a different place: not the same location.
    let mut d = c.clone();
    d.locations.line[1] = 99;
    let out = combine(&[c, d], &MERGE).unwrap();
    validate(&out).unwrap();
    assert_eq!(out.locations.nrow(), 5);
    assert_eq!(out.locations.inlined_into, [2, NA_INT, NA_INT, 5, NA_INT]);
}

#[test]
fn meta_keeps_version_once_and_resolves_conflicts() {
    let mut a = rprof_like("a.out", &[&["f"]], 1);
    row!(&mut a, meta, "key" => s("tool"), "value" => s("R"));
    row!(&mut a, meta, "key" => s("host"), "value" => s("x"));
    let mut b = rprof_like("b.out", &[&["f"]], 1);
    row!(&mut b, meta, "key" => s("host"), "value" => s("x"));
    row!(&mut b, meta, "key" => s("tool"), "value" => s("go"));
    row!(&mut b, meta, "key" => s("tool@3"), "value" => s("taken"));
    let mut c = rprof_like("c.out", &[&["f"]], 1);
    row!(&mut c, meta, "key" => s("tool"), "value" => s("perf"));
    let out = combine(&[a, b, c], &MERGE).unwrap();
    validate(&out).unwrap();
    let pairs = meta_pairs(&out);
    let expected: Vec<(String, Option<String>)> = [
        ("version", "2.0"),
        ("tool", "R"),
        ("host", "x"),
        ("tool@2", "go"),
        ("tool@3", "taken"),
        ("tool@3@3", "perf"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), Some(v.to_string())))
    .collect();
    assert_eq!(pairs, expected);
}

#[test]
fn no_inputs_give_an_empty_valid_profile() {
    let out = combine(&[], &MERGE).unwrap();
    validate(&out).unwrap();
    assert_eq!(out.sources.nrow(), 0);
    assert_eq!(
        meta_pairs(&out),
        [("version".to_string(), Some("2.0".to_string()))]
    );
}

#[test]
fn sparse_ids_are_remapped() {
    let mut a = rprof_like("a.out", &[&["f", "main"], &["main"]], 1);
    // Ids far apart, so that the hash map is used.
    for id in a
        .locations
        .location_id
        .iter_mut()
        .chain(a.sample_locations.location_id.iter_mut())
    {
        *id *= 1_000_000;
    }
    validate(&a).unwrap();
    let out = combine(&[a.clone(), a.clone()], &NO_MERGE).unwrap();
    validate(&out).unwrap();
    assert_dense(&out);
    assert_eq!(
        describe_sources(&out),
        [describe_sources(&a), describe_sources(&a)].concat()
    );
}

#[test]
fn broken_inputs_are_errors_not_panics() {
    let mut dangling = rprof_like("a.out", &[&["f", "main"]], 1);
    dangling.sample_locations.location_id[1] = 77;
    let err = combine(&[dangling], &MERGE).unwrap_err();
    assert_eq!(err.kind(), "invalid");
    assert!(
        err.to_string().contains("sample_locations") && err.to_string().contains("77"),
        "{err}"
    );

    let mut cycle = pprof_like("heap.pb.gz");
    cycle.locations.inlined_into[1] = 30;
    let err = combine(&[cycle], &MERGE).unwrap_err();
    assert!(err.to_string().contains("cycle"), "{err}");

    let mut duplicate = rprof_like("a.out", &[&["f"], &["f"]], 1);
    duplicate.samples.sample_id[1] = 1;
    let err = combine(&[duplicate], &MERGE).unwrap_err();
    assert!(err.to_string().contains("more than once"), "{err}");

    let mut bad_string = rprof_like("a.out", &[&["f"]], 1);
    bad_string.functions.name[0] = StrId(10_000);
    assert_eq!(
        combine(&[bad_string], &MERGE).unwrap_err().kind(),
        "invalid"
    );

    let mut ragged = rprof_like("a.out", &[&["f"]], 1);
    ragged.samples.source_id.push(7);
    assert_eq!(combine(&[ragged], &MERGE).unwrap_err().kind(), "invalid");
}

// ---- property test -------------------------------------------------------------------

fn check_combined(inputs: &[Profile], options: &CombineOptions) {
    for input in inputs {
        validate(input).expect("generated input is valid");
    }
    let out = combine(inputs, options).unwrap();
    validate(&out).unwrap();
    assert_dense(&out);
    let expected: Vec<String> = inputs.iter().flat_map(describe_sources).collect();
    assert_eq!(describe_sources(&out), expected);
    assert_eq!(
        out.samples.nrow(),
        inputs.iter().map(|p| p.samples.nrow()).sum::<usize>()
    );
    assert_eq!(
        out.sample_values.nrow(),
        inputs.iter().map(|p| p.sample_values.nrow()).sum::<usize>()
    );
    let versions = out
        .meta
        .key
        .iter()
        .filter(|&&k| out.str(k) == "version")
        .count();
    assert_eq!(versions, 1);
    if options.merge {
        // Nothing identical is left twice.
        let mut functions: Vec<String> = out
            .functions
            .function_id
            .iter()
            .map(|&f| describe_function(&out, f))
            .collect();
        let n = functions.len();
        functions.sort();
        functions.dedup();
        assert_eq!(functions.len(), n, "functions merged");
        // Locations: unique as rows of ids (inlined targets are merged first, so
        // equal content means equal ids).
        let l = &out.locations;
        let mut keys: Vec<_> = (0..l.nrow())
            .map(|r| {
                (
                    l.function_id[r],
                    l.line[r],
                    l.address[r],
                    l.mapping_id[r],
                    l.is_folded[r],
                    l.column[r],
                    l.inlined_into[r],
                )
            })
            .collect();
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "locations merged");
    } else {
        assert_eq!(
            out.functions.nrow(),
            inputs.iter().map(|p| p.functions.nrow()).sum::<usize>()
        );
        assert_eq!(
            out.locations.nrow(),
            inputs.iter().map(|p| p.locations.nrow()).sum::<usize>()
        );
    }
}

proptest! {
    #![proptest_config(crate::testing::config(300))]

    #[test]
    fn combining_random_profiles_keeps_every_source(
        seeds in proptest::collection::vec(any::<u64>(), 0..5),
        repeat_first in any::<bool>(),
        merge in any::<bool>(),
    ) {
        let mut inputs: Vec<Profile> = seeds.iter().map(|&seed| random_profile(seed)).collect();
        if repeat_first && !inputs.is_empty() {
            inputs.push(inputs[0].clone());
        }
        check_combined(&inputs, &CombineOptions { merge });
    }
}

/// A profile without its `mappings` table (built from the required tables):
/// its locations' mapping ids name nothing, so they combine as no mapping.
#[test]
fn mapping_ids_of_an_input_without_mappings_become_na() {
    let mut a = pprof_like("heap.pb.gz");
    a.mappings = Default::default();
    a.absent_tables = vec!["mappings"];
    let out = combine(&[a, pprof_like("other.pb.gz")], &NO_MERGE).unwrap();
    crate::model::validate::validate(&out).unwrap();
    assert_eq!(out.mappings.nrow(), 1);
    assert_eq!(
        out.locations
            .mapping_id
            .iter()
            .filter(|&&m| m == NA_INT)
            .count(),
        3
    );
    assert_eq!(
        out.locations
            .mapping_id
            .iter()
            .filter(|&&m| m != NA_INT)
            .count(),
        3
    );
}
