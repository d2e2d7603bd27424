use super::*;
use crate::error::ProfileError;
use crate::model::validate::validate;
use crate::model::Profile;
use crate::resources::budget::Budget;
use crate::resources::limits::Limits;
use pretty_assertions::assert_eq;
use proptest::prelude::*;

/// Lines as R 4.2 wrote them (`Rprofmem()` of a vector grown in a loop, a
/// `lapply()` of `paste0()`, an allocation at top level).
const R_LINES: &str = "608 :\"grow\" \n\
new page:\"grow\" \n\
1800 :\"doTryCatch\" \"tryCatchOne\" \"<Anonymous>\" \"grow\" \n\
80040 :\n\
new page:\"paste0\" \"FUN\" \"lapply\" \"f\" \n\
3736 :\"c\" \"grow\" \n";

fn budget() -> Budget {
    Budget::new(Limits::default())
}

fn parse(text: &str) -> crate::error::Result<Profile> {
    read(text.as_bytes(), Some("x.out"), &budget())
}

/// Each sample's (bytes, objects, new page?, frames innermost first).
fn records(p: &Profile) -> Vec<(f64, f64, bool, Vec<String>)> {
    p.samples
        .sample_id
        .iter()
        .map(|&sid| {
            let value = |t: &str| {
                let rows = p
                    .sample_values
                    .sample_id
                    .iter()
                    .zip(&p.sample_values.value_type);
                let row = rows
                    .enumerate()
                    .find(|(_, (&s, &ty))| s == sid && p.str(ty) == t)
                    .map(|(row, _)| row)
                    .unwrap();
                p.sample_values.value[row]
            };
            let page = p.sample_labels.sample_id.contains(&sid);
            let mut frames: Vec<(i32, String)> = p
                .sample_locations
                .sample_id
                .iter()
                .enumerate()
                .filter(|(_, &s)| s == sid)
                .map(|(row, _)| {
                    let lid = p.sample_locations.location_id[row];
                    let fid = p.locations.function_id[lid as usize - 1];
                    let name = p.functions.name[fid as usize - 1];
                    (p.sample_locations.depth[row], p.str(name).to_string())
                })
                .collect();
            frames.sort();
            (
                value(ALLOC_SPACE.0),
                value(ALLOC_OBJECTS.0),
                page,
                frames.into_iter().map(|(_, n)| n).collect(),
            )
        })
        .collect()
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn reads_what_r_writes() {
    let p = parse(R_LINES).unwrap();
    validate(&p).unwrap();
    assert_eq!(
        records(&p),
        vec![
            (608.0, 1.0, false, strings(&["grow"])),
            (0.0, 1.0, true, strings(&["grow"])),
            (
                1800.0,
                1.0,
                false,
                strings(&["doTryCatch", "tryCatchOne", "<Anonymous>", "grow"])
            ),
            (80040.0, 1.0, false, vec![]),
            (0.0, 1.0, true, strings(&["paste0", "FUN", "lapply", "f"])),
            (3736.0, 1.0, false, strings(&["c", "grow"])),
        ]
    );
    assert_eq!(p.str(p.sources.source_type[0]), SOURCE_TYPE);
    assert_eq!(p.str(p.sources.source_uri[0]), "x.out");
    assert_eq!(p.str(p.sources.default_sample_type[0]), ALLOC_SPACE.0);
    // one function (and location) per distinct name
    assert_eq!(p.functions.nrow(), 9);
    assert_eq!(p.sample_labels.nrow(), 2);
    assert_eq!(p.str(p.sample_labels.key[0]), NEW_PAGE_LABEL.0);
    assert_eq!(p.str(p.sample_labels.value[0]), NEW_PAGE_LABEL.1);
}

#[test]
fn an_empty_file_is_a_profile_without_samples() {
    let p = parse("").unwrap();
    validate(&p).unwrap();
    assert_eq!(p.samples.nrow(), 0);
    assert_eq!(p.sample_types.nrow(), 2);
}

#[test]
fn records_without_line_ends_are_split_as_profmem_does() {
    // profmem::readRprofmem() splits `N :M :` and `new page:N :` at the start
    let p = parse("40 :new page:48 :\"f\" \n").unwrap();
    assert_eq!(
        records(&p),
        vec![
            (40.0, 1.0, false, vec![]),
            (0.0, 1.0, true, vec![]),
            (48.0, 1.0, false, strings(&["f"])),
        ]
    );
}

#[test]
fn names_with_quotes_spaces_and_colons_are_kept() {
    let p = parse("8 :\"x[[\"a b\"]]\" \"base:::f\" \"obj$g\" \r\n").unwrap();
    assert_eq!(
        records(&p)[0].3,
        strings(&["x[[\"a b\"]]", "base:::f", "obj$g"])
    );
}

#[test]
fn bad_lines_are_format_errors_naming_the_line() {
    let cases = [
        ("8 :\"f\" \nhello\n", "line 2"),
        ("8 :\"f\" \n16 :\"g\" \"h\n", "line 2"),
        ("8 :f\n", "line 1"),
        ("8 :\"f\" \n\n99999999999999999999999 :\n", "line 3"),
        ("8 :\"f\" \n\0", "line 2"),
    ];
    for (text, line) in cases {
        let err = parse(text).unwrap_err();
        assert_eq!(err.kind(), "format", "{text:?}");
        assert!(err.to_string().contains(line), "{text:?}: {err}");
    }
    // data that start like no Rprofmem file
    assert_eq!(
        parse("sample.interval=20000\n").unwrap_err().kind(),
        "format"
    );
}

#[test]
fn a_stack_deeper_than_the_limit_is_refused() {
    let text = format!("8 :{}\n", "\"f\" ".repeat(11));
    let limits = Limits {
        max_stack_depth: 10,
        ..Limits::default()
    };
    let err = read(text.as_bytes(), None, &Budget::new(limits)).unwrap_err();
    assert!(matches!(err, ProfileError::Limit { .. }), "{err}");
}

#[test]
fn the_memory_budget_is_kept() {
    let text = "8 :\"f\" \"g\" \n".repeat(10_000);
    let limits = Limits {
        max_memory: 100_000,
        ..Limits::default()
    };
    let err = read(text.as_bytes(), None, &Budget::new(limits)).unwrap_err();
    assert!(matches!(err, ProfileError::Limit { .. }), "{err}");
}

#[test]
fn a_compressed_bomb_is_refused_while_inflating() {
    use flate2::write::GzEncoder;
    use std::io::Write as _;
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::best());
    let line = "8 :\"f\" \n".repeat(1000);
    for _ in 0..20_000 {
        gz.write_all(line.as_bytes()).unwrap();
    }
    let bytes = gz.finish().unwrap();
    let limits = Limits {
        max_memory: 20 << 20,
        ..Limits::default()
    };
    let budget = Budget::new(limits);
    let err = crate::io::input::decompress_content(&bytes, &budget, &mut RprofmemContent::new())
        .unwrap_err();
    assert!(matches!(err, ProfileError::Limit { .. }), "{err}");
    // data of another kind stop after their first bytes
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(b"sample.interval=20000\n").unwrap();
    let bytes = gz.finish().unwrap();
    let err = crate::io::input::decompress_content(&bytes, &budget, &mut RprofmemContent::new())
        .unwrap_err();
    assert_eq!(err.kind(), "format");
}

fn written(p: &Profile) -> String {
    let mut out = Vec::new();
    write(p, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn writing_gives_back_the_lines_r_wrote() {
    let p = parse(R_LINES).unwrap();
    assert_eq!(written(&p), R_LINES);
}

#[test]
fn samples_of_several_objects_are_several_lines() {
    let mut p = parse("10 :\"f\" \n").unwrap();
    // 3 objects of 10 bytes together
    p.sample_values.value[0] = 3.0;
    assert_eq!(written(&p), "4 :\"f\" \n3 :\"f\" \n3 :\"f\" \n");
    p.sample_values.value[1] = -1.0;
    let mut out = Vec::new();
    assert_eq!(write(&p, &mut out).unwrap_err().kind(), "invalid");
}

#[test]
fn a_profile_without_allocation_types_is_refused() {
    let mut p = parse("10 :\"f\" \n").unwrap();
    let other = p.strings.intern("samples");
    for t in p.sample_values.value_type.iter_mut() {
        *t = other;
    }
    for t in p.sample_types.value_type.iter_mut() {
        *t = other;
    }
    let mut out = Vec::new();
    assert_eq!(write(&p, &mut out).unwrap_err().kind(), "invalid");
}

/// A line as R could write it: a size or a new page, then frames.
fn r_line() -> impl Strategy<Value = String> {
    let size = prop_oneof![
        Just("new page:".to_string()),
        (0u64..1_000_000_000).prop_map(|n| format!("{n} :")),
    ];
    let name = prop_oneof![
        Just("<Anonymous>".to_string()),
        "[a-zA-Z.][a-zA-Z0-9._$:\\[\\]\"]{0,12}",
    ];
    (size, prop::collection::vec(name, 0..6)).prop_map(|(size, names)| {
        let mut line = size;
        for n in names {
            line.push('"');
            line.push_str(&n);
            line.push_str("\" ");
        }
        line
    })
}

proptest! {
    #![proptest_config(crate::testing::config(300))]

    #[test]
    fn read_write_read_is_equal(lines in prop::collection::vec(r_line(), 0..30)) {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let p = parse(&text).unwrap();
        validate(&p).unwrap();
        prop_assert_eq!(p.samples.nrow(), lines.len());
        let again = written(&p);
        prop_assert_eq!(&again, &text);
        let q = parse(&again).unwrap();
        prop_assert_eq!(records(&p), records(&q));
    }

    #[test]
    fn damaged_data_give_a_profile_or_an_error(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        lines in prop::collection::vec(r_line(), 0..10),
        cut in 0usize..400,
    ) {
        let _ = read(&bytes, None, &budget());
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let cut = text.as_bytes().get(..cut.min(text.len())).unwrap_or_default();
        if let Ok(p) = read(cut, None, &budget()) {
            validate(&p).unwrap();
        }
    }
}
