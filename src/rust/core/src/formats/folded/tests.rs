use super::*;
use crate::ops::summary::{StackColumns, StackInput};
use pretty_assertions::assert_eq;
use proptest::prelude::*;

fn source() -> FoldedSource<'static> {
    FoldedSource {
        sample_type: "samples",
        unit: "count",
        source_uri: Some("x.folded"),
    }
}

/// Folded text of a profile, through the same path as the R binding.
fn fold(p: &Profile) -> String {
    let names: Vec<String> = p
        .functions
        .name
        .iter()
        .map(|&n| p.str(n).to_string())
        .collect();
    // Keys in name order, so lines come out sorted.
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| names[a].cmp(&names[b]));
    let mut labels: Vec<String> = Vec::new();
    let mut key_of_function = vec![0i32; names.len()];
    for &i in &order {
        if labels.last() != Some(&names[i]) {
            labels.push(names[i].clone());
        }
        key_of_function[i] = labels.len() as i32;
    }
    let location_key: Vec<i32> = p
        .locations
        .function_id
        .iter()
        .map(|&f| key_of_function[f as usize - 1])
        .collect();
    let stacks = Stacks::build(&StackInput {
        columns: StackColumns {
            sample_id: &p.sample_locations.sample_id,
            depth: &p.sample_locations.depth,
            location_id: &p.sample_locations.location_id,
            locations: &p.locations.location_id,
            value_sample_id: &p.sample_values.sample_id,
            value: &p.sample_values.value,
        },
        location_key: &location_key,
        n_keys: labels.len(),
    })
    .unwrap();
    let mut out = Vec::new();
    write_folded(&CallTree::build(&stacks), &labels, &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn reads_lines_as_samples() {
    let p = read_folded(b"main;f;g 3\nmain;f 2\r\n\nmain;f;g 1\n", &source()).unwrap();
    crate::model::validate::validate(&p).unwrap();
    assert_eq!(p.samples.sample_id, vec![1, 2, 3]);
    assert_eq!(p.sample_values.value, vec![3.0, 2.0, 1.0]);
    let names: Vec<&str> = p.functions.name.iter().map(|&n| p.str(n)).collect();
    assert_eq!(names, vec!["main", "f", "g"]);
    assert_eq!(p.sample_locations.sample_id, vec![1, 1, 1, 2, 2, 3, 3, 3]);
    assert_eq!(p.sample_locations.depth, vec![1, 2, 3, 1, 2, 1, 2, 3]);
    assert_eq!(p.sample_locations.location_id, vec![3, 2, 1, 2, 1, 3, 2, 1]);
    assert_eq!(p.str(p.sources.source_type[0]), "folded");
    assert_eq!(fold(&p), "main;f 2\nmain;f;g 4\n");
}

#[test]
fn names_with_spaces_tabs_and_decimals() {
    let p = read_folded(b"slow sum;x[[\"b c\"]] 1.5\nf\t7\n", &source()).unwrap();
    assert_eq!(p.sample_values.value, vec![1.5, 7.0]);
    let names: Vec<&str> = p.functions.name.iter().map(|&n| p.str(n)).collect();
    assert_eq!(names, vec!["slow sum", "x[[\"b c\"]]", "f"]);
}

#[test]
fn stack_without_frames() {
    let p = read_folded(b" 4\n", &source()).unwrap();
    assert_eq!(p.sample_values.value, vec![4.0]);
    assert!(p.sample_locations.sample_id.is_empty());
}

#[test]
fn malformed_lines_name_the_line() {
    for bad in [
        &b"main;f\n"[..],
        b"a 1\nmain;f x\n",
        b"a 1\n\nb 1e5\n",
        b"a inf\n",
    ] {
        let e = read_folded(bad, &source()).unwrap_err();
        assert_eq!(e.kind(), "format");
        assert!(e.to_string().starts_with("line "), "{e}");
    }
    let e = read_folded(b"a 1\nb x\n", &source()).unwrap_err();
    assert!(e.to_string().starts_with("line 2:"), "{e}");
}

#[test]
fn invalid_utf8_becomes_hex() {
    let p = read_folded(b"a\xff;b\x00 1\n", &source()).unwrap();
    let names: Vec<&str> = p.functions.name.iter().map(|&n| p.str(n)).collect();
    assert_eq!(names, vec!["a<ff>", "b<00>"]);
}

#[test]
fn escapes() {
    assert_eq!(escape_frame("a;b\\c\nd\re"), "a\\x3bb\\\\c\\nd\\re");
    assert_eq!(unescape_frame("C:\\Users\\x"), "C:\\Users\\x");
    assert_eq!(unescape_frame("a\\x3Bb"), "a;b");
    assert_eq!(unescape_frame("trailing\\"), "trailing\\");
}

#[test]
fn values_keep_their_form() {
    let mut out = Vec::new();
    for v in [42.0, 0.5, -3.0, 1e20] {
        write_value(&mut out, v).unwrap();
        out.push(b' ');
    }
    assert_eq!(String::from_utf8(out).unwrap(), "42 0.5 -3 1e20 ");
}

#[test]
fn stacks_deeper_than_the_limit_are_refused() {
    let text = format!("main 1\n{} 2\n", vec!["f"; 101].join(";"));
    let limits = Limits {
        max_stack_depth: 100,
        ..Limits::default()
    };
    let e = read_folded_with_limits(text.as_bytes(), &source(), &limits).unwrap_err();
    assert_eq!(e.kind(), "limit");
    assert!(
        e.to_string()
            .starts_with("line 2: the stack has more than 100 frames"),
        "{e}"
    );
    assert!(read_folded(text.as_bytes(), &source()).is_ok());
}

/// Folded text of the real Rprof files, as damage to start from.
fn folded_files() -> &'static [Vec<u8>] {
    static FILES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        crate::testing::rprof_files()
            .iter()
            .map(|b| {
                let mut p = crate::testing::read_rprof(b, None).unwrap().profile;
                // One value per sample: the time samples (not the memory values).
                let keep: Vec<bool> = p
                    .sample_values
                    .value_type
                    .iter()
                    .map(|&t| p.strings.str(t) == "samples")
                    .collect();
                p.sample_values.retain_rows(&keep);
                fold(&p).into_bytes()
            })
            .collect()
    })
}

/// Whatever is read is a valid profile that folds and reads back.
fn check_any_input(bytes: &[u8]) -> std::result::Result<(), TestCaseError> {
    if let Ok(p) = read_folded(bytes, &source()) {
        prop_assert_eq!(crate::model::validate::validate(&p), Ok(()));
        let again = read_folded(fold(&p).as_bytes(), &source());
        prop_assert!(again.is_ok(), "{:?}", again.err());
    }
    Ok(())
}

proptest! {
    #![proptest_config(crate::testing::config(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..1000)) {
        check_any_input(&bytes)?;
    }

    #[test]
    fn damaged_folded_files_never_panic(bytes in crate::testing::damaged_file(folded_files())) {
        check_any_input(&bytes)?;
    }
}

proptest! {
    #[test]
    fn escape_round_trips(name in "[a-z;\\\\\n\rx3b ]{0,12}") {
        let escaped = escape_frame(&name);
        prop_assert!(!escaped.contains([';', '\n', '\r']));
        prop_assert_eq!(unescape_frame(&escaped).into_owned(), name.clone());
    }

    /// Folded text read and written again is the same text, once it is in the
    /// writer's canonical form (one line per stack, sorted).
    #[test]
    fn folded_round_trips(
        stacks in prop::collection::vec(
            (prop::collection::vec("[a-c;\\\\][a-c;\\\\ ]{0,2}", 1..5), 1u32..100),
            1..20,
        )
    ) {
        let mut text = String::new();
        for (frames, n) in &stacks {
            let escaped: Vec<String> = frames.iter().map(|f| escape_frame(f).into_owned()).collect();
            text.push_str(&format!("{} {n}\n", escaped.join(";")));
        }
        let first = fold(&read_folded(text.as_bytes(), &source()).unwrap());
        let p = read_folded(first.as_bytes(), &source()).unwrap();
        crate::model::validate::validate(&p).unwrap();
        prop_assert_eq!(fold(&p), first.clone());
        let total: f64 = stacks.iter().map(|(_, n)| f64::from(*n)).sum();
        let read_total: f64 = p.sample_values.value.iter().sum();
        prop_assert_eq!(read_total, total);
    }
}
