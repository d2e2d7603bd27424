//! Folded (collapsed) stacks, the text format of flame-graph tools: one line per
//! stack, frames root first separated by `;`, a space, then the value:
//!
//! ```text
//! main;f;g 42
//! ```
//!
//! Frame names are escaped so that any name survives a round trip: a backslash is
//! written `\\`, a semicolon `\x3b`, a line feed `\n` and a carriage return `\r`.
//! Tools that do not know the rule show these sequences as they are; reading turns
//! them back, and keeps any other backslash literally (as other tools write them).

use crate::budget::Budget;
use crate::error::{ProfileError, Result};
use crate::input::{decompress_content, AnyContent};
use crate::limits::Limits;
use crate::model::{next_id, Profile, StrId, NA_INT};
use crate::summary::{CallTree, Stacks};
use crate::text::utf8_escaped;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

/// A frame name as written in a folded line.
pub fn escape_frame(name: &str) -> Cow<'_, str> {
    if !name.contains(['\\', ';', '\n', '\r']) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\x3b"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The frame name a folded frame stands for (the inverse of [`escape_frame`]).
pub fn unescape_frame(frame: &str) -> Cow<'_, str> {
    if !frame.contains('\\') {
        return Cow::Borrowed(frame);
    }
    let mut out = String::with_capacity(frame.len());
    let mut rest = frame;
    while let Some(pos) = rest.find('\\') {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        let (replacement, used) = if tail.starts_with("\\\\") {
            ("\\", 2)
        } else if tail.starts_with("\\x3b") || tail.starts_with("\\x3B") {
            (";", 4)
        } else if tail.starts_with("\\n") {
            ("\n", 2)
        } else if tail.starts_with("\\r") {
            ("\r", 2)
        } else {
            ("\\", 1)
        };
        out.push_str(replacement);
        rest = &tail[used..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Writes a value as an integer when it is one (the classic format), otherwise in
/// the shortest decimal form that reads back to the same double.
fn write_value(w: &mut dyn Write, v: f64) -> Result<()> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if v.fract() == 0.0 && v.abs() <= EXACT {
        let mut buf = itoa::Buffer::new();
        w.write_all(buf.format(v as i64).as_bytes())?;
    } else {
        let mut buf = ryu::Buffer::new();
        w.write_all(buf.format(v).as_bytes())?;
    }
    Ok(())
}

/// Writes one line per node of `tree` that ends stacks (a nonzero self value), in
/// the tree's order. `labels[k - 1]` is the frame name of key `k`. Samples without
/// frames (the root's self value) have no line.
#[allow(
    clippy::indexing_slicing,
    reason = "i is a node of the tree, whose columns have one value per node"
)]
pub fn write_folded(tree: &CallTree, labels: &[String], w: &mut dyn Write) -> Result<()> {
    let escaped: Vec<Cow<'_, str>> = labels.iter().map(|l| escape_frame(l)).collect();
    let mut path: Vec<&str> = Vec::new();
    for i in 1..tree.len() {
        let depth = tree.depth[i] as usize;
        let key = tree.key[i] as usize;
        let label = key
            .checked_sub(1)
            .and_then(|k| escaped.get(k))
            .ok_or_else(|| {
                ProfileError::invalid("(call tree)", "key", Some(i), "no label for key")
            })?;
        path.truncate(depth.saturating_sub(1));
        path.push(label);
        let v = tree.self_value[i];
        if v != 0.0 {
            for (j, frame) in path.iter().enumerate() {
                if j > 0 {
                    w.write_all(b";")?;
                }
                w.write_all(frame.as_bytes())?;
            }
            w.write_all(b" ")?;
            write_value(w, v)?;
            w.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// What a folded file does not say: the sample type and unit of its values, and
/// where it came from.
#[derive(Debug, Clone)]
pub struct FoldedSource<'a> {
    pub sample_type: &'a str,
    pub unit: &'a str,
    pub source_uri: Option<&'a str>,
}

fn is_number(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty()
        && digits.bytes().any(|b| b.is_ascii_digit())
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().filter(|&b| b == b'.').count() <= 1
}

/// Splits a folded line into its stack and its value.
fn split_line(line: &str, line_no: usize) -> Result<(&str, f64)> {
    let line = line.trim_end();
    // `pos` is the position of an ASCII character: the split is on a boundary.
    let (stack, count) = match line.rfind([' ', '\t']) {
        Some(pos) => (
            line.get(..pos)
                .unwrap_or_default()
                .trim_end_matches([' ', '\t']),
            line.get(pos + 1..).unwrap_or_default(),
        ),
        None => ("", line),
    };
    if !is_number(count) {
        return Err(ProfileError::at_line(
            line_no,
            "expected frames separated by `;`, a space and a number",
        ));
    }
    let value: f64 = count
        .parse()
        .map_err(|_| ProfileError::at_line(line_no, "the count is not a number"))?;
    Ok((stack, value))
}

/// Parses folded stacks into a v2 profile under the default [`Limits`]; see
/// [`read_folded_with_limits`].
pub fn read_folded(bytes: &[u8], source: &FoldedSource<'_>) -> Result<Profile> {
    read_folded_with_limits(bytes, source, &Limits::default())
}

/// Parses folded stacks into a v2 profile: one sample per non-blank line with the
/// line's count as its value, one function per distinct frame name (ids in order of
/// first appearance) and one location per function, with line 0 (unknown). A
/// stack deeper than `limits.max_stack_depth` is refused.
pub fn read_folded_with_limits(
    bytes: &[u8],
    source: &FoldedSource<'_>,
    limits: &Limits,
) -> Result<Profile> {
    let text = utf8_escaped(bytes);
    let mut p = Profile::new();
    let type_id = p.strings.intern(source.sample_type);
    let unit_id = p.strings.intern(source.unit);
    add_source(&mut p, source, type_id, unit_id);
    let empty = p.strings.intern("");

    // Function ids by frame text as written (one hash per frame), and by name (on
    // first sight of a text: two spellings can unescape to the same name).
    let mut function_of_text: FxHashMap<&str, i32> = FxHashMap::default();
    let mut function_of: FxHashMap<StrId, i32> = FxHashMap::default();
    let mut frames: Vec<i32> = Vec::new();
    for (index, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            continue;
        }
        let (stack, value) = split_line(line, index + 1)?;
        let sample_id = next_id(p.samples.nrow(), "stacks")?;
        frames.clear();
        if !stack.is_empty() {
            for frame in stack.split(';') {
                limits.check_stack_depth(frames.len() + 1, || format!("line {}", index + 1))?;
                if let Some(&id) = function_of_text.get(frame) {
                    frames.push(id);
                    continue;
                }
                let name = p.strings.intern(&unescape_frame(frame));
                let next = next_id(function_of.len(), "distinct frames")?;
                let id = *function_of.entry(name).or_insert_with(|| {
                    add_function(&mut p, next, name, empty);
                    next
                });
                function_of_text.insert(frame, id);
                frames.push(id);
            }
        }
        p.samples.sample_id.push(sample_id);
        p.samples.source_id.push(1);
        // Folded stacks have no time.
        p.samples.time.push(f64::NAN);
        let v = &mut p.sample_values;
        v.sample_id.push(sample_id);
        v.value_type.push(type_id);
        v.unit.push(unit_id);
        v.value.push(value);
        // Root first in the file, innermost first (depth 1) in the model.
        let sl = &mut p.sample_locations;
        for (d, &loc) in frames.iter().rev().enumerate() {
            sl.sample_id.push(sample_id);
            sl.depth.push(d as i32 + 1);
            sl.location_id.push(loc);
        }
    }
    Ok(p)
}

/// The one source of a folded file, with its one sample type.
fn add_source(p: &mut Profile, source: &FoldedSource<'_>, type_id: StrId, unit_id: StrId) {
    let folded = p.strings.intern("folded");
    let uri = p.strings.intern_opt(source.source_uri);
    let s = &mut p.sources;
    s.source_id.push(1);
    s.source_type.push(folded);
    s.source_uri.push(uri);
    s.source_timestamp.push(f64::NAN);
    for col in [
        &mut s.period_type,
        &mut s.period_unit,
        &mut s.time_nanos,
        &mut s.doc_url,
        &mut s.drop_frames,
        &mut s.keep_frames,
        &mut s.rprof_header,
    ] {
        col.push(StrId::NA);
    }
    s.default_sample_type.push(type_id);
    s.period.push(f64::NAN);
    s.duration_nanos.push(f64::NAN);
    s.diff_base.push(NA_INT);
    p.sample_types.source_id.push(1);
    p.sample_types.value_type.push(type_id);
    p.sample_types.unit.push(unit_id);
}

/// Function `id` named `name` (in no file), and its one location, of the same
/// id, with line 0 (unknown).
fn add_function(p: &mut Profile, id: i32, name: StrId, empty: StrId) {
    let f = &mut p.functions;
    f.function_id.push(id);
    f.name.push(name);
    f.system_name.push(name);
    f.filename.push(empty);
    f.start_line.push(0);
    let l = &mut p.locations;
    l.location_id.push(id);
    l.function_id.push(id);
    l.line.push(0);
    l.address.push(StrId::NA);
    l.mapping_id.push(NA_INT);
    l.is_folded.push(NA_INT);
    l.column.push(NA_INT);
    l.inlined_into.push(NA_INT);
}

/// Writes the folded stacks of `stacks` to `path`, atomically (see [`write_folded`]).
pub fn write_file(stacks: &Stacks, labels: &[String], path: &Path) -> Result<()> {
    let tree = CallTree::build(stacks);
    crate::output::write_atomic(path, |w| write_folded(&tree, labels, w))
}

/// Reads a folded file, plain or gzip-compressed, under `limits`.
pub fn read_file(path: &Path, source: &FoldedSource<'_>, limits: &Limits) -> Result<Profile> {
    let budget = Budget::new(*limits);
    let bytes = crate::input::read_file(path, &budget)?;
    let data = decompress_content(&bytes, &budget, &mut AnyContent::default())?;
    read_folded_with_limits(&data, source, limits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::{StackColumns, StackInput};
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
        crate::validate::validate(&p).unwrap();
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
            prop_assert_eq!(crate::validate::validate(&p), Ok(()));
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
            crate::validate::validate(&p).unwrap();
            prop_assert_eq!(fold(&p), first.clone());
            let total: f64 = stacks.iter().map(|(_, n)| f64::from(*n)).sum();
            let read_total: f64 = p.sample_values.value.iter().sum();
            prop_assert_eq!(read_total, total);
        }
    }
}
