use super::*;
use crate::model::{ColRef, StrId, NA_INT};
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use std::path::PathBuf;

fn sample_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../inst/samples")
        .join(name)
}

fn sample_bytes(name: &str) -> Vec<u8> {
    std::fs::read(sample_file(name)).unwrap()
}

const GO_SAMPLES: [&str; 5] = [
    "pprof/cpu.pb.gz",
    "pprof/heap.pb.gz",
    "pprof/goroutine.pb.gz",
    "pprof/mutex.pb.gz",
    "pprof/block.pb.gz",
];

fn read_sample(name: &str) -> Profile {
    read_file(
        &sample_file(name),
        Some(name),
        &crate::resources::budget::Budget::default(),
    )
    .unwrap()
}

fn decode_message(name: &str) -> proto::Profile {
    let data = input::decompress(&sample_bytes(name), &Limits::default())
        .unwrap()
        .into_owned();
    decode::decode(&data).unwrap()
}

/// A table with strings resolved: its name, and each column's name and values.
type TableText = (String, Vec<(String, Vec<String>)>);

/// Every table with strings resolved, for comparing profiles with different pools.
fn tables_as_text(p: &Profile) -> Vec<TableText> {
    p.tables()
        .into_iter()
        .map(|(t, cols)| {
            let cols = cols
                .into_iter()
                .map(|(c, data)| {
                    let values: Vec<String> = match data {
                        ColRef::Int(v) | ColRef::Lgl(v) => {
                            v.iter().map(|x| x.to_string()).collect()
                        }
                        ColRef::Dbl(v) => v.iter().map(|x| format!("{x:?}")).collect(),
                        ColRef::Chr(v) => v
                            .iter()
                            .map(|&x| format!("{:?}", p.strings.get(x)))
                            .collect(),
                    };
                    (c.to_string(), values)
                })
                .collect();
            (t.to_string(), cols)
        })
        .collect()
}

fn roundtrip(p: &Profile, uri: Option<&str>) -> Profile {
    let bytes = encode(p, &WriteOptions::default()).unwrap();
    read_bytes(&bytes, uri, &Limits::default()).unwrap()
}

#[test]
fn go_samples_read_and_validate() {
    for name in GO_SAMPLES {
        let p = read_sample(name);
        crate::model::validate::validate(&p).unwrap();
        let m = decode_message(name);
        assert_eq!(p.samples.nrow(), m.sample.len(), "{name}");
        assert_eq!(p.sample_types.nrow(), m.sample_type.len(), "{name}");
        assert_eq!(
            p.sample_values.nrow(),
            m.sample.len() * m.sample_type.len(),
            "{name}"
        );
        let lines: usize = m.location.iter().map(|l| l.line.len().max(1)).sum();
        assert_eq!(p.locations.nrow(), lines, "{name}");
        assert_eq!(p.functions.nrow(), m.function.len(), "{name}");
        assert_eq!(p.mappings.nrow(), m.mapping.len(), "{name}");
        let labels: usize = m.sample.iter().map(|s| s.label.len()).sum();
        assert_eq!(p.sample_labels.nrow(), labels, "{name}");
        assert_eq!(p.str(p.sources.source_type[0]), "pprof");
        assert_eq!(p.str(p.sources.source_uri[0]), name);
        assert_eq!(p.str(p.sources.time_nanos[0]), m.time_nanos.to_string());
    }
}

#[test]
fn go_samples_roundtrip_to_equal_tables() {
    for name in GO_SAMPLES.iter().chain(&["proto/1.out.prof.pb.gz"]) {
        let p = read_sample(name);
        let q = roundtrip(&p, Some(name));
        assert_eq!(tables_as_text(&p), tables_as_text(&q), "{name}");
    }
}

#[test]
fn go_samples_roundtrip_to_the_same_message() {
    // Go writes each stack and label set once, so nothing is aggregated and the
    // message comes back field by field (the string table may be ordered differently).
    for name in GO_SAMPLES {
        let m = decode_message(name);
        let p = profile_from_message(&m, None).unwrap();
        let m2 = message_from_profile(&p, &WriteOptions::default()).unwrap();
        let s = |m: &proto::Profile, i: i64| m.string_table[i as usize].clone();
        assert_eq!(m.sample.len(), m2.sample.len(), "{name}");
        for (a, b) in m.sample.iter().zip(&m2.sample) {
            assert_eq!(a.location_id, b.location_id);
            assert_eq!(a.value, b.value);
            let labels = |m: &proto::Profile, x: &proto::Sample| -> Vec<_> {
                x.label
                    .iter()
                    .map(|l| (s(m, l.key), s(m, l.str), l.num, s(m, l.num_unit)))
                    .collect()
            };
            assert_eq!(labels(&m, a), labels(&m2, b));
        }
        assert_eq!(m.location, m2.location, "{name}");
        assert_eq!(m.mapping.len(), m2.mapping.len());
        for (a, b) in m.mapping.iter().zip(&m2.mapping) {
            assert_eq!(
                (a.id, a.memory_start, a.memory_limit, a.file_offset),
                (b.id, b.memory_start, b.memory_limit, b.file_offset)
            );
            assert_eq!(s(&m, a.filename), s(&m2, b.filename));
            assert_eq!(s(&m, a.build_id), s(&m2, b.build_id));
            assert_eq!(
                (
                    a.has_functions,
                    a.has_filenames,
                    a.has_line_numbers,
                    a.has_inline_frames
                ),
                (
                    b.has_functions,
                    b.has_filenames,
                    b.has_line_numbers,
                    b.has_inline_frames
                )
            );
        }
        for (a, b) in m.function.iter().zip(&m2.function) {
            assert_eq!(a.id, b.id);
            assert_eq!(s(&m, a.name), s(&m2, b.name));
            assert_eq!(s(&m, a.system_name), s(&m2, b.system_name));
            assert_eq!(s(&m, a.filename), s(&m2, b.filename));
            assert_eq!(a.start_line, b.start_line);
        }
        assert_eq!(
            (m.time_nanos, m.duration_nanos, m.period),
            (m2.time_nanos, m2.duration_nanos, m2.period)
        );
        let vt = |m: &proto::Profile, v: &proto::ValueType| (s(m, v.r#type), s(m, v.unit));
        assert_eq!(
            m.period_type.as_ref().map(|v| vt(&m, v)),
            m2.period_type.as_ref().map(|v| vt(&m2, v))
        );
        let types = |m: &proto::Profile| m.sample_type.iter().map(|v| vt(m, v)).collect::<Vec<_>>();
        assert_eq!(types(&m), types(&m2));
        let comments = |m: &proto::Profile| m.comment.iter().map(|&c| s(m, c)).collect::<Vec<_>>();
        assert_eq!(comments(&m), comments(&m2));
        assert_eq!(s(&m, m.default_sample_type), s(&m2, m2.default_sample_type));
        assert_eq!(m2.string_table[0], b"");
    }
}

#[test]
fn inline_frames_become_rows_linked_outwards() {
    let m = decode_message("pprof/heap.pb.gz");
    let p = profile_from_message(&m, None).unwrap();
    let inlined = m
        .location
        .iter()
        .find(|l| l.line.len() > 1)
        .expect("heap.pb.gz has inlined frames");
    let l = &p.locations;
    // The outermost line keeps the pprof id; the rows before it lead to it.
    let outer = l
        .location_id
        .iter()
        .position(|&id| id == inlined.id as i32)
        .unwrap();
    let n = inlined.line.len();
    let first = outer + 1 - n;
    for k in 0..n {
        assert_eq!(l.function_id[first + k], inlined.line[k].function_id as i32);
        assert_eq!(l.line[first + k], inlined.line[k].line as i32);
        let expected = if k + 1 < n {
            l.location_id[first + k + 1]
        } else {
            NA_INT
        };
        assert_eq!(l.inlined_into[first + k], expected);
    }
    // A sample through that location has all its lines as frames, innermost first.
    let (si, s) = m
        .sample
        .iter()
        .enumerate()
        .find(|(_, s)| s.location_id.contains(&inlined.id))
        .unwrap();
    let frames: Vec<i32> = (0..p.sample_locations.nrow())
        .filter(|&r| p.sample_locations.sample_id[r] == si as i32 + 1)
        .map(|r| p.sample_locations.location_id[r])
        .collect();
    let lines: usize = s
        .location_id
        .iter()
        .map(|id| {
            m.location
                .iter()
                .find(|l| l.id == *id)
                .unwrap()
                .line
                .len()
                .max(1)
        })
        .sum();
    assert_eq!(frames.len(), lines);
    assert!(frames
        .windows(n)
        .any(|w| w == &l.location_id[first..=outer]));
}

#[test]
fn heap_numeric_labels_keep_units() {
    let m = decode_message("pprof/heap.pb.gz");
    let p = profile_from_message(&m, None).unwrap();
    let (i, s) = m
        .sample
        .iter()
        .enumerate()
        .find(|(_, s)| !s.label.is_empty())
        .unwrap();
    let l = &s.label[0];
    let sl = &p.sample_labels;
    let row = sl
        .sample_id
        .iter()
        .position(|&x| x == i as i32 + 1)
        .unwrap();
    assert_eq!(
        p.str(sl.key[row]),
        String::from_utf8(m.string_table[l.key as usize].clone()).unwrap()
    );
    assert_eq!(sl.num[row], l.num as f64);
    assert!(sl.value[row].is_na());
    assert_eq!(sl.num_unit[row].is_na(), l.num_unit == 0);
}

// ---- malformed input ----------------------------------------------------------

/// A small valid message: one sample type, two functions, a location with an
/// inlined frame, one sample with a string and a numeric label.
fn small_message() -> proto::Profile {
    let strings = [
        "", "samples", "count", "f", "g", "file.go", "key", "val", "bytes", "bin",
    ];
    proto::Profile {
        sample_type: vec![proto::ValueType { r#type: 1, unit: 2 }],
        sample: vec![proto::Sample {
            location_id: vec![1, 2],
            value: vec![5],
            label: vec![
                proto::Label {
                    key: 6,
                    str: 7,
                    num: 0,
                    num_unit: 0,
                },
                proto::Label {
                    key: 6,
                    str: 0,
                    num: 42,
                    num_unit: 8,
                },
            ],
        }],
        mapping: vec![proto::Mapping {
            id: 1,
            memory_start: 0x1000,
            memory_limit: 0x2000,
            filename: 9,
            ..Default::default()
        }],
        location: vec![
            proto::Location {
                id: 1,
                mapping_id: 1,
                address: 0x1234,
                line: vec![
                    proto::Line {
                        function_id: 1,
                        line: 10,
                        column: 3,
                    },
                    proto::Line {
                        function_id: 2,
                        line: 20,
                        column: 0,
                    },
                ],
                is_folded: false,
            },
            proto::Location {
                id: 2,
                mapping_id: 1,
                address: 0x1300,
                line: vec![proto::Line {
                    function_id: 2,
                    line: 30,
                    column: 0,
                }],
                is_folded: true,
            },
        ],
        function: vec![
            proto::Function {
                id: 1,
                name: 3,
                system_name: 3,
                filename: 5,
                start_line: 9,
            },
            proto::Function {
                id: 2,
                name: 4,
                system_name: 4,
                filename: 5,
                start_line: 0,
            },
        ],
        string_table: strings.iter().map(|s| s.as_bytes().to_vec()).collect(),
        time_nanos: 1_700_000_000_123_456_789,
        ..Default::default()
    }
}

fn read_message(m: &proto::Profile) -> Result<Profile> {
    read_bytes(&m.encode_to_vec(), None, &Limits::default())
}

fn format_error(m: &proto::Profile) -> String {
    let e = read_message(m).unwrap_err();
    assert_eq!(e.kind(), "format", "{e}");
    e.to_string()
}

#[test]
fn small_message_reads() {
    let p = read_message(&small_message()).unwrap();
    crate::model::validate::validate(&p).unwrap();
    assert_eq!(p.locations.location_id, vec![3, 1, 2]);
    assert_eq!(p.locations.inlined_into, vec![1, NA_INT, NA_INT]);
    assert_eq!(p.locations.column, vec![3, 0, 0]);
    assert_eq!(p.locations.is_folded, vec![0, 0, 1]);
    assert_eq!(p.sample_locations.location_id, vec![3, 1, 2]);
    assert_eq!(p.sample_locations.depth, vec![1, 2, 3]);
    assert_eq!(p.str(p.locations.address[0]), "0x1234");
    assert_eq!(p.str(p.sources.time_nanos[0]), "1700000000123456789");
    assert_eq!(
        p.sources.source_timestamp[0],
        1_700_000_000_123_456_789i64 as f64 / 1e9
    );
    assert_eq!(p.sample_labels.num[0].is_nan(), true);
    assert_eq!(p.sample_labels.num[1], 42.0);
    assert_eq!(p.str(p.sample_labels.num_unit[1]), "bytes");
    assert_eq!(p.functions.start_line, vec![9, 0]);
}

#[test]
fn string_index_out_of_range() {
    let mut m = small_message();
    m.function[1].name = 99;
    let e = format_error(&m);
    assert!(e.contains("name of function 2") && e.contains("99"), "{e}");
    let mut m = small_message();
    m.sample[0].label[0].key = -1;
    assert!(format_error(&m).contains("label 1 of sample 1"));
}

#[test]
fn zero_ids() {
    for what in ["location", "function", "mapping"] {
        let mut m = small_message();
        match what {
            "location" => m.location[1].id = 0,
            "function" => m.function[0].id = 0,
            _ => m.mapping[0].id = 0,
        }
        let e = format_error(&m);
        assert!(e.contains(&format!("{what} ")) && e.contains("id 0"), "{e}");
    }
    let mut m = small_message();
    m.location[0].line[1].function_id = 0;
    assert!(format_error(&m).contains("no function"));
    let mut m = small_message();
    m.sample[0].location_id[0] = 0;
    assert!(format_error(&m).contains("location 0"));
}

#[test]
fn duplicate_ids() {
    let mut m = small_message();
    m.location[1].id = 1;
    assert!(format_error(&m).contains("location id 1 occurs more than once"));
    let mut m = small_message();
    m.function[1].id = 1;
    assert!(format_error(&m).contains("function id 1 occurs more than once"));
}

#[test]
fn dangling_ids() {
    let mut m = small_message();
    m.sample[0].location_id.push(7);
    assert!(format_error(&m).contains("refers to location 7"));
    let mut m = small_message();
    m.location[1].line[0].function_id = 8;
    assert!(format_error(&m).contains("refers to function 8"));
}

/// Go's parser treats a mapping id that no mapping has as no mapping.
#[test]
fn a_location_with_a_dangling_mapping_id_has_no_mapping() {
    let mut m = small_message();
    m.location[0].mapping_id = 5;
    m.location[1].mapping_id = u64::MAX;
    let p = read_message(&m).unwrap();
    crate::model::validate::validate(&p).unwrap();
    assert_eq!(p.locations.mapping_id, vec![NA_INT; 3]);
    assert_eq!(p.mappings.nrow(), 1);
}

#[test]
fn value_count_mismatch() {
    let mut m = small_message();
    m.sample[0].value.push(1);
    let e = format_error(&m);
    assert!(
        e.contains("2 values") && e.contains("1 sample types"),
        "{e}"
    );
}

/// Go's parser accepts a sample type name declared twice; v2 names types
/// uniquely, so the repeats get "#k" suffixes that no type has.
#[test]
fn repeated_sample_type_names_get_suffixes() {
    let mut m = small_message();
    m.string_table.push(b"samples#2".to_vec());
    let taken = m.string_table.len() as i64 - 1;
    m.sample_type = vec![
        proto::ValueType { r#type: 1, unit: 2 },
        proto::ValueType { r#type: 1, unit: 8 },
        proto::ValueType {
            r#type: taken,
            unit: 2,
        },
        proto::ValueType { r#type: 1, unit: 2 },
    ];
    m.sample[0].value = vec![1, 2, 3, 4];
    let p = read_message(&m).unwrap();
    crate::model::validate::validate(&p).unwrap();
    let names: Vec<&str> = p
        .sample_types
        .value_type
        .iter()
        .map(|&t| p.str(t))
        .collect();
    assert_eq!(names, ["samples", "samples#3", "samples#2", "samples#4"]);
    let units: Vec<&str> = p.sample_types.unit.iter().map(|&t| p.str(t)).collect();
    assert_eq!(units, ["count", "bytes", "count", "count"]);
    assert_eq!(p.sample_values.value, vec![1.0, 2.0, 3.0, 4.0]);

    // Many repeats of one name take linear time.
    let mut m = small_message();
    m.sample_type = vec![proto::ValueType { r#type: 1, unit: 2 }; 50_000];
    m.sample[0].value = vec![1; 50_000];
    let started = std::time::Instant::now();
    let p = read_message(&m).unwrap();
    assert_eq!(p.str(p.sample_types.value_type[49_999]), "samples#50000");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

/// Go reads any int64 as a line number; v2 lines are R integers, 0 unknown.
#[test]
fn line_numbers_outside_r_integers_are_na() {
    let mut m = small_message();
    m.location[0].line[0].line = -4;
    m.location[0].line[0].column = -1;
    m.location[0].line[1].line = i64::from(i32::MAX) + 1;
    m.function[0].start_line = i64::MIN;
    m.location[1].line[0].line = i64::from(i32::MAX);
    let p = read_message(&m).unwrap();
    crate::model::validate::validate(&p).unwrap();
    assert_eq!(p.locations.line, vec![NA_INT, NA_INT, i32::MAX]);
    assert_eq!(p.locations.column, vec![NA_INT, 0, 0]);
    assert_eq!(p.functions.start_line, vec![NA_INT, 0]);
}

/// Go's parser refuses a string table without entries or whose first entry is
/// not the empty string.
#[test]
fn the_string_table_must_start_with_the_empty_string() {
    let mut m = small_message();
    m.string_table[0] = b"x".to_vec();
    assert!(format_error(&m).contains("first entry of the string table is \"x\""));
    let m = proto::Profile {
        period: 1,
        ..Default::default()
    };
    assert!(format_error(&m).contains("the string table is empty"));
    let m = proto::Profile {
        period: 1,
        string_table: vec![Vec::new()],
        ..Default::default()
    };
    assert!(read_message(&m).is_ok());
}

/// Go's CheckValid: samples need sample types, also samples without values.
#[test]
fn samples_without_sample_types_are_refused() {
    let mut m = small_message();
    m.sample_type.clear();
    m.sample[0].value.clear();
    assert!(format_error(&m).contains("has samples but declares no sample types"));
    m.sample.clear();
    assert!(read_message(&m).is_ok());
}

/// Labels as Go's parser reads them: str set makes a string label (num and
/// num_unit ignored, unchecked), else num or num_unit a numeric label, else
/// the label is dropped; the key is checked in every case.
#[test]
fn labels_are_read_as_go_reads_them() {
    let mut m = small_message();
    m.sample[0].label = vec![
        proto::Label {
            key: 6,
            str: 7,
            num: 3,
            num_unit: 99,
        },
        proto::Label {
            key: 6,
            str: 0,
            num: 0,
            num_unit: 8,
        },
        proto::Label {
            key: 6,
            str: 0,
            num: 0,
            num_unit: 0,
        },
        proto::Label {
            key: 7,
            str: 0,
            num: -2,
            num_unit: 0,
        },
    ];
    let p = read_message(&m).unwrap();
    crate::model::validate::validate(&p).unwrap();
    let l = &p.sample_labels;
    let text = |ids: &[StrId]| {
        ids.iter()
            .map(|&s| {
                if s.is_na() {
                    "NA".to_string()
                } else {
                    p.str(s).to_string()
                }
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(text(&l.key), ["key", "key", "val"]);
    assert_eq!(text(&l.value), ["val", "NA", "NA"]);
    assert_eq!(format!("{:?}", l.num), "[NaN, 0.0, -2.0]");
    assert_eq!(text(&l.num_unit), ["NA", "bytes", "NA"]);

    m.sample[0].label = vec![proto::Label {
        key: 99,
        str: 0,
        num: 0,
        num_unit: 0,
    }];
    assert!(format_error(&m).contains("the key of label 1 of sample 1 refers to string 99"));
    m.sample[0].label = vec![proto::Label {
        key: 6,
        str: 0,
        num: 1,
        num_unit: 99,
    }];
    assert!(format_error(&m).contains("the unit of label 1 of sample 1 refers to string 99"));
}

// ---- decoding as Go's parser does ------------------------------------------------

fn pb_varint(mut x: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while x >= 0x80 {
        out.push(x as u8 | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
    out
}

fn pb_key(field: u64, wire_type: u64) -> Vec<u8> {
    pb_varint(field << 3 | wire_type)
}

fn pb_len(field: u64, payload: &[u8]) -> Vec<u8> {
    let mut out = pb_key(field, 2);
    out.extend(pb_varint(payload.len() as u64));
    out.extend_from_slice(payload);
    out
}

fn pb_int(field: u64, x: u64) -> Vec<u8> {
    let mut out = pb_key(field, 0);
    out.extend(pb_varint(x));
    out
}

/// The small message's bytes with `extra` appended (a field of the Profile).
fn small_with(extra: &[u8]) -> Vec<u8> {
    let mut bytes = small_message().encode_to_vec();
    bytes.extend_from_slice(extra);
    bytes
}

fn read_raw(bytes: &[u8]) -> Result<Profile> {
    read_bytes(bytes, None, &Limits::default())
}

#[test]
fn unknown_field_numbers_are_skipped_like_go_does() {
    let plain = read_message(&small_message()).unwrap();
    // Field number 0 (Go has no decoder for it and skips it), numbers beyond
    // the protobuf maximum and keys beyond 32 bits, of every wire type.
    let mut fixed64 = pb_key(1 << 40, 1);
    fixed64.extend([0; 8]);
    let mut fixed32 = pb_key(0, 5);
    fixed32.extend([0; 4]);
    for extra in [
        pb_int(0, 7),
        pb_len(0, b""),
        pb_len(1 << 29, b"x"),
        pb_int(1 << 60, 1),
        fixed64,
        fixed32,
        pb_int(16, 3),
    ] {
        let p = read_raw(&small_with(&extra)).unwrap();
        assert_eq!(tables_as_text(&p), tables_as_text(&plain));
    }
    // At the start of the message too: a zero byte first is not a legacy profile.
    let mut bytes = pb_int(0, 0);
    bytes.extend(small_message().encode_to_vec());
    assert_eq!(
        tables_as_text(&read_raw(&bytes).unwrap()),
        tables_as_text(&plain)
    );
    // Inside nested messages.
    let mut m = small_message();
    m.sample.clear();
    let mut sample = pb_int(0, 1);
    sample.extend(pb_len(1, &[1, 2]));
    sample.extend(pb_len(2, &[5]));
    sample.extend(pb_len(99, b"skip"));
    let mut bytes = m.encode_to_vec();
    bytes.extend(pb_len(2, &sample));
    let p = read_raw(&bytes).unwrap();
    assert_eq!(p.sample_values.value, vec![5.0]);
}

#[test]
fn group_and_undefined_wire_types_are_refused_even_in_unknown_fields() {
    // Go's decoder knows wire types 0, 1, 2 and 5 only.
    for wire_type in [3, 4, 6, 7] {
        let e = read_raw(&small_with(&pb_key(21, wire_type))).unwrap_err();
        assert_eq!(e.kind(), "format");
        assert!(
            e.to_string().contains(&format!("wire type {wire_type}")),
            "{e}"
        );
    }
}

#[test]
fn wrong_wire_types_of_known_fields_are_refused_and_located() {
    let at = small_message().encode_to_vec().len();
    let e = read_raw(&small_with(&pb_int(2, 5)))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&format!("byte offset {at}:")), "{e}");
    assert!(
        e.contains("field 2 (Profile.sample) has wire type 0"),
        "{e}"
    );
    // Current Go releases decode doc_url (15) and Line.column (3) as varints.
    let e = read_raw(&small_with(&pb_len(15, b"x")))
        .unwrap_err()
        .to_string();
    assert!(e.contains("Profile.doc_url"), "{e}");
    let mut line = pb_int(1, 1);
    line.extend(pb_len(3, b""));
    let mut location = pb_int(1, 9);
    location.extend(pb_len(4, &line));
    let e = read_raw(&small_with(&pb_len(4, &location)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("field 3 (Line.column) has wire type 2"), "{e}");
    // A repeated number as a fixed64.
    let mut sample = pb_key(1, 1);
    sample.extend([0; 8]);
    let e = read_raw(&small_with(&pb_len(2, &sample)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("Sample.location_id"), "{e}");
}

#[test]
fn ten_byte_varints_keep_their_low_64_bits() {
    // time_nanos = 5 written in 10 bytes whose last holds more than bit 63:
    // Go's decoder drops the overflow.
    let mut m = small_message();
    m.time_nanos = 0;
    let mut extra = pb_key(9, 0);
    extra.extend([0x85, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7e]);
    let mut bytes = m.encode_to_vec();
    bytes.extend(&extra);
    let p = read_raw(&bytes).unwrap();
    assert_eq!(p.str(p.sources.time_nanos[0]), "5");
    // An 11th byte is refused.
    let mut extra = pb_key(9, 0);
    extra.extend([0x80; 10]);
    extra.push(0x01);
    assert_eq!(read_raw(&small_with(&extra)).unwrap_err().kind(), "format");
}

#[test]
fn period_type_occurring_twice_is_replaced_not_merged() {
    let mut m = small_message();
    m.period_type = None;
    let mut bytes = m.encode_to_vec();
    bytes.extend(pb_len(11, &[pb_int(1, 1), pb_int(2, 2)].concat()));
    bytes.extend(pb_len(11, &pb_int(1, 8)));
    let p = read_raw(&bytes).unwrap();
    assert_eq!(p.str(p.sources.period_type[0]), "bytes");
    // The unit of the later message is unset (""), not the earlier "count".
    assert_eq!(p.str(p.sources.period_unit[0]), "");
}

#[test]
fn a_second_time_nanos_means_concatenated_profiles() {
    let e = read_raw(&small_with(&pb_int(9, 7)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("concatenated profiles"), "{e}");
    // After a zero time_nanos, another one is just a value.
    let mut m = small_message();
    m.time_nanos = 0;
    let mut bytes = m.encode_to_vec();
    bytes.extend(pb_int(9, 0));
    bytes.extend(pb_int(9, 7));
    let p = read_raw(&bytes).unwrap();
    assert_eq!(p.str(p.sources.time_nanos[0]), "7");
}

#[test]
fn defects_of_the_wire_format_are_located() {
    // A string table entry whose length runs past the end.
    let mut bytes = pb_len(6, b"");
    bytes.extend([0x32, 0x05, b'a']);
    let e = read_raw(&bytes).unwrap_err().to_string();
    assert!(
        e.starts_with("byte offset 3:")
            && e.contains("Profile.string_table")
            && e.contains("claims 5 bytes"),
        "{e}"
    );
    // A cut-off number packed in Sample.value.
    let bytes = small_with(&pb_len(2, &[0x12, 0x02, 0x05, 0x80]));
    let at = small_message().encode_to_vec().len() + 5;
    let e = read_raw(&bytes).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("byte offset {at}:")) && e.contains("Sample.value"),
        "{e}"
    );
    // A key cut off at the end.
    let e = read_raw(&small_with(&[0x80])).unwrap_err().to_string();
    assert!(e.contains("key of a Profile message is cut off"), "{e}");
}

#[test]
fn truncated_and_garbage_input() {
    let bytes = small_message().encode_to_vec();
    for cut in 1..bytes.len() {
        // Every strict prefix either fails or decodes to a smaller valid message; it
        // must never panic.
        let _ = read_bytes(&bytes[..cut], None, &Limits::default());
    }
    let real = input::decompress(&sample_bytes("pprof/cpu.pb.gz"), &Limits::default())
        .unwrap()
        .into_owned();
    let e = read_bytes(&real[..real.len() / 2], None, &Limits::default()).unwrap_err();
    assert_eq!(e.kind(), "format");
    let gz = sample_bytes("pprof/cpu.pb.gz");
    let e = read_bytes(&gz[..gz.len() / 2], None, &Limits::default()).unwrap_err();
    assert_eq!(e.kind(), "format");
    let e = read_bytes(b"", None, &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("empty"));
}

#[test]
fn truncation_is_reported_at_its_byte_offset() {
    let real = input::decompress(&sample_bytes("pprof/cpu.pb.gz"), &Limits::default())
        .unwrap()
        .into_owned();
    let cut = real.len() / 2;
    let e = read_bytes(&real[..cut], None, &Limits::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("byte offset ") && e.contains("claims") && e.contains("remain"),
        "{e}"
    );
    let offset: usize = e["byte offset ".len()..]
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(offset < cut, "{e}");
}

#[test]
fn a_length_of_2_to_the_62_is_refused_without_allocating() {
    // Profile.sample (field 2) claiming 2^62 bytes.
    let mut bytes = small_message().encode_to_vec();
    let at = bytes.len();
    bytes.push(0x12);
    let mut n: u64 = 1 << 62;
    while n >= 0x80 {
        bytes.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    bytes.push(n as u8);
    bytes.extend_from_slice(b"rest");
    let e = read_bytes(&bytes, None, &Limits::default()).unwrap_err();
    assert_eq!(e.kind(), "format");
    let e = e.to_string();
    assert!(
        e.contains(&format!("byte offset {}", at + 1)) && e.contains("4611686018427387904"),
        "{e}"
    );
}

/// Before the fix, the reader reserved samples x sample types rows before it
/// checked the value counts: 10^5 types and 10^5 empty samples (1 MB) asked for
/// 10^10 rows, and the allocation failure aborted the process.
#[test]
fn many_types_and_samples_without_values_are_refused_cheaply() {
    let n = 100_000usize;
    let mut m = proto::Profile {
        string_table: vec![Vec::new(), b"u".to_vec()],
        ..Default::default()
    };
    for t in 0..n {
        m.string_table.push(format!("t{t}").into_bytes());
        m.sample_type.push(proto::ValueType {
            r#type: t as i64 + 2,
            unit: 1,
        });
    }
    m.sample = vec![proto::Sample::default(); n];
    let started = std::time::Instant::now();
    let e = format_error(&m);
    assert!(
        e.contains("sample 1 has 0 values, but the profile declares 100000 sample types"),
        "{e}"
    );
    // The duplicate check of the types was quadratic too.
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

/// One location with many inlined lines, referred to by many samples: a small
/// file whose stacks would have billions of frames.
#[test]
fn inline_expansion_bomb_is_refused() {
    let mut m = small_message();
    m.location[0].line = vec![
        proto::Line {
            function_id: 1,
            line: 1,
            column: 0
        };
        20_000
    ];
    m.sample = vec![
        proto::Sample {
            location_id: vec![1; 1000],
            value: vec![1],
            label: vec![]
        };
        200
    ];
    let bytes = m.encode_to_vec();
    assert!(bytes.len() < 1 << 20);
    let e = read_bytes(&bytes, None, &Limits::default()).unwrap_err();
    assert_eq!(e.kind(), "limit");
    assert!(e.to_string().contains("frames"), "{e}");
}

#[test]
fn stacks_deeper_than_the_limit_are_refused() {
    let mut m = small_message();
    m.sample[0].location_id = vec![2; 5000];
    let limits = Limits {
        max_stack_depth: 4000,
        ..Limits::default()
    };
    let e = read_bytes(&m.encode_to_vec(), None, &limits).unwrap_err();
    assert_eq!(e.kind(), "limit");
    assert!(
        e.to_string()
            .starts_with("sample 1: the stack has more than 4000 frames"),
        "{e}"
    );
    assert!(read_bytes(&m.encode_to_vec(), None, &Limits::default()).is_ok());
}

/// A valid profile whose `inlined_into` links form a tree: a long chain that many
/// rows are inlined into. Each of them would repeat the chain in the writer.
#[test]
fn writer_refuses_inline_chains_shared_by_many_locations() {
    let mut p = read_message(&small_message()).unwrap();
    let n = 1200i32;
    let l = &mut p.locations;
    for k in 0..2 * n {
        l.location_id.push(100 + k);
        l.function_id.push(1);
        l.line.push(1);
        l.address.push(StrId::NA);
        l.mapping_id.push(NA_INT);
        l.is_folded.push(NA_INT);
        l.column.push(NA_INT);
        // rows 100..100+n: a chain; the next n rows all inlined into its start
        l.inlined_into.push(if k + 1 < n {
            101 + k
        } else if k < n {
            NA_INT
        } else {
            100
        });
    }
    crate::model::validate::validate(&p).unwrap();
    let e = encode(&p, &WriteOptions::default()).unwrap_err();
    assert_eq!(e.kind(), "limit", "{e}");
}

#[test]
fn writer_refuses_more_values_than_the_limit() {
    let mut p = read_message(&small_message()).unwrap();
    // 2^15 samples with a type each: 2^30 cells in pprof's samples x types.
    let n = 1 << 15;
    for k in 0..n {
        let id = 10 + k;
        p.samples.sample_id.push(id);
        p.samples.source_id.push(1);
        p.samples.time.push(f64::NAN);
        let t = p.strings.intern(&format!("type{k}"));
        let u = p.strings.intern("count");
        p.sample_values.sample_id.push(id);
        p.sample_values.value_type.push(t);
        p.sample_values.unit.push(u);
        p.sample_values.value.push(1.0);
    }
    p.pad_extension_columns(&[]);
    crate::model::validate::validate(&p).unwrap();
    let e = encode(&p, &WriteOptions::default()).unwrap_err();
    assert_eq!(e.kind(), "limit", "{e}");
    assert!(e.to_string().contains("sample types"), "{e}");
}

/// Found by the damaged-model property: an Rprof source next to a type "cpu" in
/// another unit made the writer declare "cpu" twice, a file pprof refuses.
#[test]
fn rprof_time_is_not_added_when_cpu_has_another_unit() {
    let mut p = rprof_like();
    let cpu = p.strings.intern("cpu");
    let ms = p.strings.intern("milliseconds");
    p.sample_types.source_id.push(1);
    p.sample_types.value_type.push(cpu);
    p.sample_types.unit.push(ms);
    p.pad_extension_columns(&[]);
    crate::model::validate::validate(&p).unwrap();
    let m = message_from_profile(&p, &WriteOptions::default()).unwrap();
    let names: Vec<&[u8]> = m
        .sample_type
        .iter()
        .map(|t| m.string_table[t.r#type as usize].as_slice())
        .collect();
    assert_eq!(names.iter().filter(|&&n| n == b"cpu").count(), 1);
    assert!(read_bytes(&m.encode_to_vec(), None, &Limits::default()).is_ok());
}

#[test]
fn legacy_profiles_are_named() {
    // gperftools' binary CPU profile: header words 0, 3, 0, period, 0 (64-bit).
    let mut legacy = Vec::new();
    for w in [0u64, 3, 0, 10000, 0, 1, 1, 0x4005d0] {
        legacy.extend_from_slice(&w.to_le_bytes());
    }
    let e = read_bytes(&legacy, None, &Limits::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("legacy gperftools CPU profile"), "{e}");
    let text = b"heap profile:    1:   262144 [     1:   262144] @ heap_v2/524288\n";
    let e = read_bytes(text, None, &Limits::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("legacy text profile"), "{e}");
    let e = read_bytes(b"goroutine profile: total 6\n", None, &Limits::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("legacy text profile"), "{e}");
}

#[test]
fn decompression_bomb_is_refused() {
    let mut big = small_message();
    big.comment = vec![1; 1 << 20];
    let bytes = big.encode_to_vec();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&bytes).unwrap();
    let gz = gz.finish().unwrap();
    let e = read_bytes(&gz, None, &Limits::with_max_bytes(100_000)).unwrap_err();
    assert_eq!(e.kind(), "limit");
    assert!(read_bytes(&gz, None, &Limits::with_max_bytes(10 << 20)).is_ok());
}

#[test]
fn unpacked_repeated_fields_read_like_packed() {
    // Sample { location_id: 1, location_id: 2, value: 5 } written field by field.
    let m = small_message();
    let mut sample = Vec::new();
    for id in [1u8, 2] {
        sample.extend_from_slice(&[0x08, id]);
    }
    sample.extend_from_slice(&[0x10, 5]);
    for l in &m.sample[0].label {
        let b = l.encode_to_vec();
        sample.push(0x1a);
        sample.push(b.len() as u8);
        sample.extend_from_slice(&b);
    }
    let mut without_samples = m.clone();
    without_samples.sample.clear();
    let mut bytes = without_samples.encode_to_vec();
    bytes.push(0x12);
    bytes.push(sample.len() as u8);
    bytes.extend_from_slice(&sample);
    let a = read_bytes(&bytes, None, &Limits::default()).unwrap();
    let b = read_message(&m).unwrap();
    assert_eq!(tables_as_text(&a), tables_as_text(&b));
}

#[test]
fn invalid_utf8_is_repaired() {
    let mut m = small_message();
    m.string_table[3] = b"f\xe9\x00x".to_vec();
    let p = read_message(&m).unwrap();
    assert_eq!(p.str(p.functions.name[0]), "f<e9><00>x");
}

// ---- writing ------------------------------------------------------------------

/// Without its `mappings` table (a profile built from the required tables),
/// a location's mapping id names nothing and is written as no mapping.
#[test]
fn mapping_ids_without_a_mappings_table_are_written_as_none() {
    let mut p = read_message(&small_message()).unwrap();
    p.mappings = Default::default();
    p.absent_tables = vec!["mappings"];
    let m = message_from_profile(&p, &WriteOptions::default()).unwrap();
    assert!(m.mapping.is_empty());
    assert!(m.location.iter().all(|l| l.mapping_id == 0));
    let back = read_bytes(&m.encode_to_vec(), None, &Limits::default()).unwrap();
    assert_eq!(back.locations.mapping_id, vec![NA_INT; 3]);
}

#[test]
fn pprof_samples_are_written_one_to_one() {
    // Go itself writes equal stacks and labels twice at times (heap.pb.gz has such a
    // pair); those are the profiler's records and come back as they were.
    let mut m = small_message();
    let again = m.sample[0].clone();
    m.sample.push(again);
    let p = read_message(&m).unwrap();
    let out = message_from_profile(&p, &WriteOptions::default()).unwrap();
    assert_eq!(out.sample.len(), 2);
}

#[test]
fn writer_aggregates_raw_samples_unless_told_not_to() {
    let p = rprof_like();
    let out = message_from_profile(&p, &WriteOptions::default()).unwrap();
    assert_eq!(out.sample.len(), 3);
    let raw = message_from_profile(&p, &WriteOptions { aggregate: false }).unwrap();
    assert_eq!(raw.sample.len(), 4);
}

#[test]
fn string_table_starts_empty_and_has_no_duplicates() {
    let p = read_sample("pprof/cpu.pb.gz");
    let m = message_from_profile(&p, &WriteOptions::default()).unwrap();
    assert_eq!(m.string_table[0], b"");
    let mut seen = std::collections::HashSet::new();
    assert!(m.string_table.iter().all(|s| seen.insert(s.clone())));
}

#[test]
fn write_file_is_gzip_and_atomic() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.pprof");
    let p = read_sample("pprof/heap.pb.gz");
    write_file(&p, &target, &WriteOptions::default()).unwrap();
    let bytes = std::fs::read(&target).unwrap();
    assert!(input::is_gzip(&bytes));
    let q = read_bytes(&bytes, Some("pprof/heap.pb.gz"), &Limits::default()).unwrap();
    assert_eq!(tables_as_text(&p), tables_as_text(&q));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// A v2 profile as an Rprof reader makes it: time samples with an interval, gauges.
fn rprof_like() -> Profile {
    let mut p = Profile::new();
    let s = |p: &mut Profile, x: &str| p.strings.intern(x);
    let src = &mut p.sources;
    src.source_id.push(1);
    let (rprof, cpu, ns) = (
        s(&mut p, "rprof"),
        s(&mut p, "cpu"),
        s(&mut p, "nanoseconds"),
    );
    let src = &mut p.sources;
    src.source_type.push(rprof);
    src.source_uri.push(StrId::NA);
    src.source_timestamp.push(f64::NAN);
    src.period_type.push(cpu);
    src.period_unit.push(ns);
    src.period.push(20e6);
    for col in [
        &mut src.time_nanos,
        &mut src.default_sample_type,
        &mut src.doc_url,
        &mut src.drop_frames,
        &mut src.keep_frames,
        &mut src.rprof_header,
    ] {
        col.push(StrId::NA);
    }
    src.duration_nanos.push(f64::NAN);
    src.diff_base.push(crate::model::NA_INT);
    let names = ["<GC>", "<Anonymous>", "main", "x[[\"a\"]]"];
    for (i, n) in names.iter().enumerate() {
        let id = s(&mut p, n);
        let empty = s(&mut p, "");
        p.functions.function_id.push(i as i32 + 1);
        p.functions.name.push(id);
        p.functions.system_name.push(id);
        p.functions.filename.push(empty);
        p.functions.start_line.push(0);
        let l = &mut p.locations;
        l.location_id.push(i as i32 + 1);
        l.function_id.push(i as i32 + 1);
        l.line.push(0);
        for c in [
            &mut l.mapping_id,
            &mut l.is_folded,
            &mut l.column,
            &mut l.inlined_into,
        ] {
            c.push(NA_INT);
        }
        l.address.push(StrId::NA);
    }
    let stacks: [&[i32]; 4] = [&[1, 3], &[2, 3], &[1, 3], &[4, 2, 3]];
    let (samples, count, heap, bytes) = (
        s(&mut p, "samples"),
        s(&mut p, "count"),
        s(&mut p, "node_heap"),
        s(&mut p, "bytes"),
    );
    for (t, u) in [(samples, count), (heap, bytes)] {
        p.sample_types.source_id.push(1);
        p.sample_types.value_type.push(t);
        p.sample_types.unit.push(u);
    }
    for (i, stack) in stacks.iter().enumerate() {
        let sid = i as i32 + 1;
        p.samples.sample_id.push(sid);
        p.samples.source_id.push(1);
        p.samples.time.push(f64::NAN);
        for (t, u, v) in [(samples, count, 1.0), (heap, bytes, 1000.0 * sid as f64)] {
            p.sample_values.sample_id.push(sid);
            p.sample_values.value_type.push(t);
            p.sample_values.unit.push(u);
            p.sample_values.value.push(v);
        }
        for (d, &loc) in stack.iter().enumerate() {
            p.sample_locations.sample_id.push(sid);
            p.sample_locations.depth.push(d as i32 + 1);
            p.sample_locations.location_id.push(loc);
        }
    }
    p.pad_extension_columns(&[]);
    crate::model::validate::validate(&p).unwrap();
    p
}

#[test]
fn rprof_samples_get_cpu_time_and_an_r_mapping() {
    let p = rprof_like();
    let m = message_from_profile(&p, &WriteOptions::default()).unwrap();
    let s = |i: i64| String::from_utf8(m.string_table[i as usize].clone()).unwrap();
    let types: Vec<(String, String)> = m
        .sample_type
        .iter()
        .map(|v| (s(v.r#type), s(v.unit)))
        .collect();
    // The gauge is not written; cpu time follows the count.
    assert_eq!(
        types,
        vec![
            ("samples".into(), "count".into()),
            ("cpu".into(), "nanoseconds".into())
        ]
    );
    let pt = m.period_type.as_ref().unwrap();
    assert_eq!(
        (s(pt.r#type), s(pt.unit), m.period),
        ("cpu".into(), "nanoseconds".into(), 20_000_000)
    );
    // Samples 1 and 3 have the same stack.
    assert_eq!(m.sample.len(), 3);
    assert_eq!(m.sample[0].value, vec![2, 40_000_000]);
    let total: i64 = m.sample.iter().map(|x| x.value[1]).sum();
    assert_eq!(total, 4 * 20_000_000);
    assert_eq!(m.mapping.len(), 1);
    assert_eq!(s(m.mapping[0].filename), R_MAPPING_FILENAME);
    assert!(m.mapping[0].has_functions);
    assert!(m
        .location
        .iter()
        .all(|l| l.mapping_id == m.mapping[0].id && l.address != 0));
    // Name differs from system name, so pprof's demangler leaves "<GC>" alone.
    for f in &m.function {
        assert_eq!(f.system_name, 0);
    }
    // Reading it back restores the system names; writing that again leaves them
    // out again (the frames are in the `[R]` mapping now).
    let q = read_message(&m).unwrap();
    assert_eq!(q.functions.name, q.functions.system_name);
    assert_eq!(q.str(q.functions.system_name[0]), "<GC>");
    let m2 = message_from_profile(&q, &WriteOptions::default()).unwrap();
    assert!(m2.function.iter().all(|f| f.system_name == 0));
    assert_eq!(m2.mapping.len(), 1);
    assert_eq!(m2.location, m.location);
}

#[test]
fn combined_sources_unite_sample_types() {
    // A pprof profile (samples/count, cpu/nanoseconds) with an Rprof one.
    let go = read_sample("pprof/cpu.pb.gz");
    let r = rprof_like();
    // Combine by hand: offset the ids of r.
    let mut p = go.clone();
    let map = |p: &mut Profile, q: &Profile, id: StrId| p.strings.intern_opt(q.strings.get(id));
    let (loc_off, fn_off, s_off) = (1_000_000, 1_000_000, p.samples.nrow() as i32);
    for i in 0..r.sources.nrow() {
        p.sources.source_id.push(2);
        let source_type = map(&mut p, &r, r.sources.source_type[i]);
        p.sources.source_type.push(source_type);
        p.sources.source_uri.push(StrId::NA);
        p.sources.source_timestamp.push(f64::NAN);
        let pt = map(&mut p, &r, r.sources.period_type[i]);
        let pu = map(&mut p, &r, r.sources.period_unit[i]);
        p.sources.period_type.push(pt);
        p.sources.period_unit.push(pu);
        p.sources.period.push(r.sources.period[i]);
        p.sources.duration_nanos.push(f64::NAN);
        for c in [
            &mut p.sources.time_nanos,
            &mut p.sources.default_sample_type,
            &mut p.sources.doc_url,
            &mut p.sources.drop_frames,
            &mut p.sources.keep_frames,
            &mut p.sources.rprof_header,
        ] {
            c.push(StrId::NA);
        }
        p.sources.diff_base.push(crate::model::NA_INT);
    }
    for i in 0..r.functions.nrow() {
        p.functions
            .function_id
            .push(r.functions.function_id[i] + fn_off);
        let n = map(&mut p, &r, r.functions.name[i]);
        p.functions.name.push(n);
        p.functions.system_name.push(n);
        let f = map(&mut p, &r, r.functions.filename[i]);
        p.functions.filename.push(f);
        p.functions.start_line.push(0);
    }
    for i in 0..r.locations.nrow() {
        let l = &mut p.locations;
        l.location_id.push(r.locations.location_id[i] + loc_off);
        l.function_id.push(r.locations.function_id[i] + fn_off);
        l.line.push(0);
        l.address.push(StrId::NA);
        for c in [
            &mut l.mapping_id,
            &mut l.is_folded,
            &mut l.column,
            &mut l.inlined_into,
        ] {
            c.push(NA_INT);
        }
    }
    for i in 0..r.samples.nrow() {
        p.samples.sample_id.push(r.samples.sample_id[i] + s_off);
        p.samples.source_id.push(2);
        p.samples.time.push(r.samples.time[i]);
    }
    for i in 0..r.sample_values.nrow() {
        p.sample_values
            .sample_id
            .push(r.sample_values.sample_id[i] + s_off);
        let t = map(&mut p, &r, r.sample_values.value_type[i]);
        let u = map(&mut p, &r, r.sample_values.unit[i]);
        p.sample_values.value_type.push(t);
        p.sample_values.unit.push(u);
        p.sample_values.value.push(r.sample_values.value[i]);
    }
    for i in 0..r.sample_locations.nrow() {
        p.sample_locations
            .sample_id
            .push(r.sample_locations.sample_id[i] + s_off);
        p.sample_locations.depth.push(r.sample_locations.depth[i]);
        p.sample_locations
            .location_id
            .push(r.sample_locations.location_id[i] + loc_off);
    }
    p.pad_extension_columns(&[]);
    crate::model::validate::validate(&p).unwrap();
    let m = message_from_profile(&p, &WriteOptions::default()).unwrap();
    let s = |i: i64| String::from_utf8(m.string_table[i as usize].clone()).unwrap();
    let types: Vec<String> = m.sample_type.iter().map(|v| s(v.r#type)).collect();
    assert_eq!(types, vec!["samples", "cpu"]);
    let go_cpu: i64 = go
        .sample_values
        .value
        .iter()
        .zip(&go.sample_values.value_type)
        .filter(|(_, &t)| go.str(t) == "cpu")
        .map(|(v, _)| *v as i64)
        .sum();
    let total_cpu: i64 = m.sample.iter().map(|x| x.value[1]).sum();
    assert_eq!(total_cpu, go_cpu + 4 * 20_000_000);
    // Go functions keep their system names; R ones drop them.
    let r_mapping = m.mapping.last().unwrap();
    assert_eq!(s(r_mapping.filename), R_MAPPING_FILENAME);
    assert_eq!(m.mapping.len(), go.mappings.nrow() + 1);
    assert!(m
        .function
        .iter()
        .filter(|f| f.id < fn_off as u64)
        .all(|f| f.system_name != 0));
}

// ---- properties ----------------------------------------------------------------

/// Whatever the reader accepts is a valid profile that the writer writes and the
/// reader reads back.
fn check_any_input(bytes: &[u8]) -> std::result::Result<(), TestCaseError> {
    if let Ok(p) = read_bytes(bytes, None, &Limits::default()) {
        prop_assert_eq!(crate::model::validate::validate(&p), Ok(()));
        let written = encode(&p, &WriteOptions::default());
        prop_assert!(written.is_ok(), "{:?}", written.err());
        let back = read_bytes(&written.unwrap(), None, &Limits::default());
        prop_assert!(back.is_ok(), "{:?}", back.err());
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::testing::config(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        check_any_input(&bytes)?;
    }

    /// Real messages (Go's five profiles and profile 1.0's) with bit flips,
    /// changed, inserted and deleted bytes, cuts, duplicated pieces, pieces of
    /// other files and huge varints.
    #[test]
    fn damaged_real_messages_never_panic(bytes in crate::testing::damaged_file(crate::testing::pprof_messages())) {
        check_any_input(&bytes)?;
    }

    /// The same damage to the gzip-compressed files.
    #[test]
    fn damaged_real_gzip_files_never_panic(bytes in crate::testing::damaged_file(crate::testing::pprof_gz_files())) {
        check_any_input(&bytes)?;
    }

    #[test]
    fn write_then_read_is_identity(m in valid_message()) {
        let p = read_message(&m).unwrap();
        crate::model::validate::validate(&p).unwrap();
        let q = roundtrip(&p, None);
        prop_assert_eq!(tables_as_text(&p), tables_as_text(&q));
    }
}

/// Random valid messages: unique ids (sparse and huge ones too), references that
/// exist, unique sample types, and samples whose stacks and labels differ (so the
/// writer has nothing to aggregate).
fn valid_message() -> impl Strategy<Value = proto::Profile> {
    let strings = proptest::collection::vec("[a-z<>.:\\[\\]]{0,6}", 1..12);
    (
        strings,
        1usize..4,
        proptest::collection::vec(any::<u64>(), 1..6),
        proptest::collection::vec(
            (
                any::<u64>(),
                proptest::collection::vec((any::<u8>(), 0i64..500, 0i64..80), 0..4),
                any::<bool>(),
                any::<u64>(),
                any::<u8>(),
            ),
            1..10,
        ),
        proptest::collection::vec(
            (
                proptest::collection::vec(any::<u8>(), 0..7),
                proptest::collection::vec(-1000i64..1000, 4),
                proptest::collection::vec((any::<u8>(), any::<u8>(), -5i64..5, any::<u8>()), 0..3),
            ),
            0..12,
        ),
        (
            any::<i64>(),
            any::<i64>(),
            any::<i64>(),
            proptest::option::of((any::<u8>(), any::<u8>())),
            proptest::collection::vec(any::<u8>(), 0..3),
            any::<[u8; 4]>(),
        ),
    )
        .prop_map(
            |(
                strs,
                n_types,
                fn_ids,
                locs,
                samples,
                (time, duration, period, period_type, comments, extra),
            )| {
                let mut table: Vec<Vec<u8>> = vec![Vec::new()];
                for s in strs {
                    if !table.contains(&s.as_bytes().to_vec()) {
                        table.push(s.into_bytes());
                    }
                }
                for t in 0..n_types {
                    table.push(format!("type{t}").into_bytes());
                }
                let n_str = table.len() as u64;
                let pick = |x: u8| (x as u64 % n_str) as i64;
                let nonzero_unique = |ids: Vec<u64>| {
                    let mut out = Vec::new();
                    for id in ids {
                        let id = if id % 3 == 0 { id % 50 + 1 } else { id.max(1) };
                        if !out.contains(&id) {
                            out.push(id);
                        }
                    }
                    out
                };
                let fn_ids = nonzero_unique(fn_ids);
                let function: Vec<proto::Function> = fn_ids
                    .iter()
                    .enumerate()
                    .map(|(i, &id)| proto::Function {
                        id,
                        name: pick(i as u8),
                        system_name: pick(i as u8 * 3),
                        filename: pick(i as u8 * 7),
                        start_line: i as i64,
                    })
                    .collect();
                let mapping = vec![proto::Mapping {
                    id: 7,
                    memory_start: 0x400000,
                    memory_limit: 0x500000,
                    filename: pick(2),
                    build_id: pick(3),
                    has_functions: true,
                    ..Default::default()
                }];
                let loc_ids = nonzero_unique(locs.iter().map(|l| l.0).collect());
                let location: Vec<proto::Location> = loc_ids
                    .iter()
                    .zip(&locs)
                    .map(
                        |(&id, (_, lines, folded, address, mapped))| proto::Location {
                            id,
                            mapping_id: if mapped % 2 == 0 { 7 } else { 0 },
                            address: if mapped % 3 == 0 { 0 } else { *address },
                            line: lines
                                .iter()
                                .map(|&(f, line, column)| proto::Line {
                                    function_id: fn_ids[f as usize % fn_ids.len()],
                                    line,
                                    column,
                                })
                                .collect(),
                            is_folded: *folded,
                        },
                    )
                    .collect();
                let mut seen = Vec::new();
                let mut sample = Vec::new();
                for (stack, values, labels) in samples {
                    let location_id: Vec<u64> = stack
                        .iter()
                        .map(|&i| loc_ids[i as usize % loc_ids.len()])
                        .collect();
                    let label: Vec<proto::Label> = labels
                        .iter()
                        .map(|&(k, s, num, u)| {
                            if s % 2 == 0 {
                                proto::Label {
                                    key: pick(k),
                                    str: pick(s).max(1),
                                    num: 0,
                                    num_unit: 0,
                                }
                            } else {
                                proto::Label {
                                    key: pick(k),
                                    str: 0,
                                    num,
                                    num_unit: pick(u),
                                }
                            }
                        })
                        .collect();
                    let mut key_labels: Vec<_> = label
                        .iter()
                        .map(|l| (l.key, l.str, l.num, l.num_unit))
                        .collect();
                    key_labels.sort();
                    if seen.contains(&(location_id.clone(), key_labels.clone())) {
                        continue;
                    }
                    seen.push((location_id.clone(), key_labels));
                    sample.push(proto::Sample {
                        location_id,
                        value: values[..n_types].to_vec(),
                        label,
                    });
                }
                let first_type = n_str as i64 - n_types as i64;
                proto::Profile {
                    sample_type: (0..n_types as i64)
                        .map(|t| proto::ValueType {
                            r#type: first_type + t,
                            unit: pick(t as u8 + 1),
                        })
                        .collect(),
                    sample,
                    mapping,
                    location,
                    function,
                    string_table: table,
                    drop_frames: pick(extra[0]),
                    keep_frames: pick(extra[1]),
                    time_nanos: time,
                    duration_nanos: duration,
                    period_type: period_type.map(|(t, u)| proto::ValueType {
                        r#type: pick(t),
                        unit: pick(u),
                    }),
                    period,
                    comment: comments.into_iter().map(pick).collect(),
                    default_sample_type: pick(extra[2]),
                    doc_url: pick(extra[3]),
                }
            },
        )
}
