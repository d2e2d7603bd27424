use super::*;
use crate::model::validate::validate;
use crate::model::{ColumnId, Profile, StrId, NA_INT};
use crate::resources::budget::Budget;
use crate::resources::limits::Limits;
use pretty_assertions::assert_eq;
use proptest::prelude::*;

/// A sample file recorded by R (inst/samples/rprof of the R package).
fn sample_file(name: &str) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../inst/samples/rprof")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

const REAL_FILES: [&str; 8] = [
    "1.out",
    "memory.out",
    "gc.out",
    "line.out",
    "all.out",
    "append.out",
    "incomplete.out",
    "toplevel.out",
];

fn read(text: &[u8]) -> Parsed {
    let parsed = crate::testing::read_rprof(text, Some("test.out")).unwrap();
    validate(&parsed.profile).unwrap();
    parsed
}

fn written(p: &Profile) -> String {
    String::from_utf8(write_to_vec(p).unwrap()).unwrap()
}

/// The stack of each sample as "name@file:line" strings, innermost first.
fn stacks(p: &Profile) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new(); p.samples.nrow()];
    for i in 0..p.sample_locations.nrow() {
        let s = p.sample_locations.sample_id[i] as usize - 1;
        let l = p.sample_locations.location_id[i] as usize - 1;
        let f = p.locations.function_id[l] as usize - 1;
        out[s].push(format!(
            "{}@{}:{}",
            p.str(p.functions.name[f]),
            p.str(p.functions.filename[f]),
            p.locations.line[l]
        ));
    }
    out
}

/// Values of one type, per sample that has it.
fn values(p: &Profile, value_type: &str) -> Vec<f64> {
    let sv = &p.sample_values;
    (0..sv.nrow())
        .filter(|&i| p.str(sv.value_type[i]) == value_type)
        .map(|i| sv.value[i])
        .collect()
}

fn assert_same_tables(a: &Profile, b: &Profile) {
    let strings = |p: &Profile| {
        p.tables()
            .into_iter()
            .map(|(t, cols)| {
                let cols: Vec<String> = cols
                    .into_iter()
                    .map(|(c, col)| match col {
                        crate::model::ColRef::Chr(v) => {
                            format!(
                                "{c}: {:?}",
                                v.iter().map(|&s| p.strings.get(s)).collect::<Vec<_>>()
                            )
                        }
                        crate::model::ColRef::Int(v) | crate::model::ColRef::Lgl(v) => {
                            format!("{c}: {v:?}")
                        }
                        crate::model::ColRef::Dbl(v) => format!("{c}: {v:?}"),
                    })
                    .collect();
                format!("{t}\n{}", cols.join("\n"))
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strings(a), strings(b));
}

#[test]
fn real_files_read_without_warnings_and_write_back_byte_for_byte() {
    for name in REAL_FILES.iter().filter(|n| **n != "incomplete.out") {
        let bytes = sample_file(name);
        let parsed = read(&bytes);
        assert_eq!(parsed.warnings, Vec::<String>::new(), "{name}");
        let out = write_to_vec(&parsed.profile).unwrap();
        assert!(out == bytes, "{name} is not written back as it was");
        assert_same_tables(&parsed.profile, &read(&out).profile);
    }
}

#[test]
fn one_sample_per_stack_line_of_real_files() {
    for name in REAL_FILES {
        let text = String::from_utf8(sample_file(name)).unwrap();
        let stack_lines = text
            .lines()
            .filter(|l| {
                l.starts_with('"')
                    || l.starts_with(':')
                    || l.starts_with(|c: char| c.is_ascii_digit())
            })
            .count();
        let headers = text
            .lines()
            .filter(|l| l.contains("sample.interval="))
            .count();
        let p = read(text.as_bytes()).profile;
        assert_eq!(p.samples.nrow(), stack_lines, "{name}");
        assert_eq!(p.sources.nrow(), headers, "{name}");
    }
}

#[test]
fn sample_lines_are_the_lines_of_the_file() {
    let text = "line profiling: sample.interval=5000\n#File 1: a.R\n1#1 \"f\" \n\n\"g\" \nsample.interval=1\n\"h\" \n";
    // (a blank line is a tick without frames, as summaryRprof() counts it)
    assert_eq!(read(text.as_bytes()).sample_lines, vec![3, 4, 5, 7]);
}

#[test]
fn truncated_real_file_warns_and_keeps_the_complete_frames() {
    let bytes = sample_file("incomplete.out");
    let parsed = read(&bytes);
    assert_eq!(parsed.warnings, vec![WARN_INCOMPLETE.to_string()]);
    let text = String::from_utf8(bytes).unwrap();
    let last = text.lines().last().unwrap();
    let complete_frames = last.matches("\" ").count();
    let st = stacks(&parsed.profile);
    assert_eq!(st.last().unwrap().len(), complete_frames);
}

#[test]
fn header_flags_and_interval() {
    let h = Header::parse(b"memory profiling: GC profiling: line profiling: sample.interval=4000")
        .unwrap();
    assert_eq!(
        h,
        Header {
            memory: true,
            gc: true,
            line: true,
            interval_us: 4000
        }
    );
    assert_eq!(
        h.to_line(),
        "memory profiling: GC profiling: line profiling: sample.interval=4000"
    );
    let h = Header::parse(b"line profiling: memory profiling: sample.interval=20000").unwrap();
    assert!(h.memory && h.line && !h.gc);
    // A flag this version does not know is accepted (and kept in the header text).
    assert!(Header::parse(b"elapsed profiling: sample.interval=1000").is_some());
    for bad in [
        &b"sample.interval="[..],
        b"sample.interval=12x",
        b"sample.interval=99999999999",
        b"\"f\" \"g\" ",
        b"memory: sample.interval=10",
        b"",
    ] {
        assert_eq!(Header::parse(bad), None, "{}", String::from_utf8_lossy(bad));
    }
}

#[test]
fn sources_rows_carry_header_interval_and_uri() {
    let p = read(b"GC profiling: sample.interval=4000\n\"f\" \n").profile;
    assert_eq!(p.str(p.sources.source_type[0]), "rprof");
    assert_eq!(p.str(p.sources.source_uri[0]), "test.out");
    assert!(p.sources.source_timestamp[0].is_nan());
    assert_eq!(p.str(p.sources.period_type[0]), "cpu");
    assert_eq!(p.str(p.sources.period_unit[0]), "nanoseconds");
    assert_eq!(p.sources.period[0], 4_000_000.0);
    assert_eq!(
        p.str(p.sources.rprof_header[0]),
        "GC profiling: sample.interval=4000"
    );
    let no_uri = crate::testing::read_rprof(b"sample.interval=1\n", None)
        .unwrap()
        .profile;
    assert!(no_uri.sources.source_uri[0].is_na());
}

#[test]
fn quoted_names_are_taken_verbatim() {
    let text = "sample.interval=20000\n\"x[[\"a\"]]\" \"x[[\"b c\"]]\" \"slow sum\" \"utils::head\" \"stats:::median.default\" \"obj$f\" \"<Anonymous>\" \"FUN\" \n\"x[[\" a\"]]\" \"f\" \n";
    let p = read(text.as_bytes()).profile;
    assert_eq!(
        stacks(&p),
        vec![
            vec![
                "x[[\"a\"]]@:0",
                "x[[\"b c\"]]@:0",
                "slow sum@:0",
                "utils::head@:0",
                "stats:::median.default@:0",
                "obj$f@:0",
                "<Anonymous>@:0",
                "FUN@:0"
            ],
            vec!["x[[\" a\"]]@:0", "f@:0"],
        ]
    );
    assert_eq!(p.str(p.functions.system_name[0]), "x[[\"a\"]]");
}

#[test]
fn line_references_belong_to_the_frame_on_their_right() {
    let text = "line profiling: sample.interval=5000\n#File 1: R/a.R\n\"runif\" 1#12 \"big\" 1#3 \"main\" \n#File 2: R/b.R\n2#7 \"g\" 1#5 \"big\" \"main\" \n";
    let p = read(text.as_bytes()).profile;
    assert_eq!(
        stacks(&p),
        vec![
            vec!["runif@:0", "big@R/a.R:12", "main@R/a.R:3"],
            vec!["g@R/b.R:7", "big@R/a.R:5", "main@:0"],
        ]
    );
    // Functions are (name, file); the start line is the smallest line seen.
    let big: Vec<usize> = (0..p.functions.nrow())
        .filter(|&i| p.str(p.functions.name[i]) == "big")
        .collect();
    assert_eq!(big.len(), 1);
    assert_eq!(p.functions.start_line[big[0]], 5);
    let mains = (0..p.functions.nrow())
        .filter(|&i| p.str(p.functions.name[i]) == "main")
        .count();
    assert_eq!(mains, 2);
    // Ids by first appearance.
    assert_eq!(p.functions.function_id, vec![1, 2, 3, 4, 5]);
    assert_eq!(p.str(p.functions.name[3]), "g");
    assert_eq!(written(&p), text);
}

#[test]
fn file_lines_are_matched_by_number_and_may_come_late() {
    // Numbers out of order, and a reference before its #File line.
    let text = "line profiling: sample.interval=5000\n#File 2: two.R\n2#4 \"f\" 1#9 \"g\" \n#File 1: one.R\n1#1 \"g\" \n";
    let parsed = read(text.as_bytes());
    assert!(parsed.warnings.is_empty());
    assert_eq!(
        stacks(&parsed.profile),
        vec![vec!["f@two.R:4", "g@one.R:9"], vec!["g@one.R:1"]]
    );
    // Written back in R's order: numbered by first use, before first use.
    assert_eq!(
        written(&parsed.profile),
        "line profiling: sample.interval=5000\n#File 1: two.R\n#File 2: one.R\n1#4 \"f\" 2#9 \"g\" \n2#1 \"g\" \n"
    );
}

#[test]
fn undefined_file_number_warns_and_round_trips() {
    let text = "line profiling: sample.interval=5000\n3#4 \"f\" \n";
    let parsed = read(text.as_bytes());
    assert_eq!(parsed.warnings, vec![WARN_UNDEFINED_FILE.to_string()]);
    assert_eq!(stacks(&parsed.profile), vec![vec!["f@:4"]]);
    let again = read(written(&parsed.profile).as_bytes());
    assert_same_tables(&parsed.profile, &again.profile);
}

#[test]
fn append_segments_have_their_own_file_numbers() {
    let text = "sample.interval=2000\n\"f\" \n\"f\" \"g\" \nline profiling: sample.interval=5000\n#File 1: b.R\n1#2 \"f\" \nline profiling: sample.interval=5000\n#File 1: a.R\n#File 2: b.R\n1#1 \"h\" 2#2 \"f\" \n";
    let parsed = read(text.as_bytes());
    assert!(parsed.warnings.is_empty());
    let p = &parsed.profile;
    assert_eq!(p.sources.source_id, vec![1, 2, 3]);
    assert_eq!(p.samples.source_id, vec![1, 1, 2, 3]);
    assert_eq!(p.sources.period, vec![2e6, 5e6, 5e6]);
    // f in b.R line 2 is one location in segments 2 and 3.
    let st = stacks(p);
    assert_eq!(st[2], vec!["f@b.R:2"]);
    assert_eq!(st[3], vec!["h@a.R:1", "f@b.R:2"]);
    let f_b = p.sample_locations.location_id[3];
    assert_eq!(p.sample_locations.location_id[5], f_b);
    assert_eq!(written(p), text);
}

#[test]
fn memory_prefix_gives_five_values_and_alloc_size() {
    let text = "memory profiling: sample.interval=5000\n:100:200:3000:4:\"f\" \n:110:150:3500:0:\n:90:260:3400:7:\"<GC>\" \"f\" \n";
    let parsed = read(text.as_bytes());
    assert!(parsed.warnings.is_empty());
    let p = &parsed.profile;
    assert_eq!(p.samples.nrow(), 3);
    assert_eq!(
        stacks(p),
        vec![vec!["f@:0"], vec![], vec!["<GC>@:0", "f@:0"]]
    );
    assert_eq!(values(p, "samples"), vec![1.0; 3]);
    assert_eq!(values(p, "small_vector_heap"), vec![800.0, 880.0, 720.0]);
    assert_eq!(values(p, "large_vector_heap"), vec![1600.0, 1200.0, 2080.0]);
    assert_eq!(values(p, "node_heap"), vec![3000.0, 3500.0, 3400.0]);
    assert_eq!(values(p, "duplications"), vec![4.0, 0.0, 7.0]);
    // 8 * 10 + 0 + 500; then 0 + 8 * 110 + 0.
    assert_eq!(values(p, "alloc_size"), vec![0.0, 580.0, 880.0]);
    let types: Vec<&str> = p
        .sample_types
        .value_type
        .iter()
        .map(|&s| p.str(s))
        .collect();
    assert_eq!(
        types,
        [
            "samples",
            "small_vector_heap",
            "large_vector_heap",
            "node_heap",
            "duplications",
            "alloc_size"
        ]
    );
    assert_eq!(written(p), text);
}

#[test]
fn alloc_size_restarts_in_each_segment() {
    let text = "memory profiling: sample.interval=5000\n:100:200:3000:4:\"f\" \nmemory profiling: sample.interval=5000\n:200:200:3000:4:\"f\" \n:300:200:3000:4:\"f\" \n";
    let p = read(text.as_bytes()).profile;
    assert_eq!(values(&p, "alloc_size"), vec![0.0, 0.0, 800.0]);
}

#[test]
fn line_ends_and_encodings() {
    let lf = "line profiling: sample.interval=5000\n#File 1: a.R\n1#2 \"f\" \"g\" \n\"g\" \n";
    let reference = read(lf.as_bytes()).profile;
    let crlf = lf.replace('\n', "\r\n");
    assert_same_tables(&reference, &read(crlf.as_bytes()).profile);
    let no_final_newline = lf.trim_end_matches('\n');
    assert_same_tables(&reference, &read(no_final_newline.as_bytes()).profile);
    let bom = format!("\u{feff}{lf}");
    assert_same_tables(&reference, &read(bom.as_bytes()).profile);

    let latin1 = b"sample.interval=5000\n\"caf\xe9\" \n";
    let p = read(latin1).profile;
    assert_eq!(p.str(p.functions.name[0]), "caf<e9>");
}

#[test]
fn damaged_lines_warn_like_profile_1_0_4() {
    // Cut in the middle of a frame name.
    let parsed = read(b"sample.interval=5000\n\"f\" \"g\" \n\"f\" \"gg");
    assert_eq!(parsed.warnings, vec![WARN_INCOMPLETE.to_string()]);
    assert_eq!(
        stacks(&parsed.profile),
        vec![vec!["f@:0", "g@:0"], vec!["f@:0"]]
    );
    // Cut right after a closing quote: R ends every frame with a space.
    let parsed = read(b"sample.interval=5000\n\"f\" \"g\"\n\"f\" \n");
    assert_eq!(parsed.warnings, vec![WARN_INCOMPLETE.to_string()]);
    assert_eq!(stacks(&parsed.profile), vec![vec!["f@:0"], vec!["f@:0"]]);
    // Cut inside or right after a line reference: the frame before it is
    // complete. (A reference and its space there is the top level's, see
    // top_level_references_are_frames_of_their_own.)
    for cut in ["1#3", "1#", "1"] {
        let text = format!("line profiling: sample.interval=5000\n#File 1: a.R\n\"f\" \"g\" {cut}");
        let parsed = read(text.as_bytes());
        assert_eq!(parsed.warnings, vec![WARN_INCOMPLETE.to_string()], "{cut}");
        assert_eq!(stacks(&parsed.profile), vec![vec!["f@:0", "g@:0"]], "{cut}");
    }
    // Cut inside the memory prefix of the last line: nothing is left of it.
    let parsed = read(b"memory profiling: sample.interval=5000\n:1:2:3:4:\"f\" \n:1:2");
    assert_eq!(parsed.warnings, vec![WARN_INCOMPLETE.to_string()]);
    assert_eq!(parsed.profile.samples.nrow(), 1);
    // Unreadable text where a frame should start drops that piece (up to the end of
    // the next frame, as 1.0.4 does), with 1.0.4's other warning.
    let parsed = read(b"sample.interval=5000\ngarbage \"g\" \"h\" \n\"f\" \n");
    assert_eq!(parsed.warnings, vec![WARN_UNEXPECTED.to_string()]);
    assert_eq!(stacks(&parsed.profile), vec![vec!["h@:0"], vec!["f@:0"]]);
    // After `" `, text that cannot start a frame is part of the name (R writes
    // names such as `x[[" a"]]` verbatim).
    let parsed = read(b"sample.interval=5000\n\"f\" garbage \"g\" \n");
    assert!(parsed.warnings.is_empty());
    assert_eq!(stacks(&parsed.profile), vec![vec!["f\" garbage \"g@:0"]]);
    // A cut #File line.
    let parsed = read(b"line profiling: sample.interval=5000\n\"f\" \n#File 1");
    assert_eq!(parsed.warnings, vec![WARN_INCOMPLETE.to_string()]);
    // Blank lines are not damage: each is a tick without frames (R writes
    // none; write_rprof() writes a sample without frames so, one line a tick,
    // and summaryRprof() counts them).
    let parsed = read(b"sample.interval=5000\n\n\"f\" \n   \n");
    assert!(parsed.warnings.is_empty());
    assert_eq!(parsed.profile.samples.nrow(), 3);
    assert_eq!(stacks(&parsed.profile), vec![vec![], vec!["f@:0"], vec![]]);
    assert_eq!(values(&parsed.profile, "samples"), vec![1.0, 1.0, 1.0]);
}

/// The function rows of `p` named `name`: (system name, file).
fn functions_named(p: &Profile, name: &str) -> Vec<(String, String)> {
    let f = &p.functions;
    (0..f.nrow())
        .filter(|&i| p.str(f.name[i]) == name)
        .map(|i| {
            (
                p.str(f.system_name[i]).to_owned(),
                p.str(f.filename[i]).to_owned(),
            )
        })
        .collect()
}

#[test]
fn top_level_references_are_frames_of_their_own() {
    // After the outermost frame (the call site of the top-level call), alone on
    // a line (top-level code running without a frame), after a memory prefix;
    // the console's file has no name.
    let text = "memory profiling: line profiling: sample.interval=5000\n#File 1: a.R\n#File 2: \n\
                :1:2:3:4:1#3 \"f\" 1#10 \"g\" 2#20 \n:1:2:3:4:2#21 \n:1:2:3:4:\"h\" 2#20 \n:1:2:3:4:\"h\" \n";
    let parsed = read(text.as_bytes());
    assert_eq!(parsed.warnings, Vec::<String>::new());
    let p = &parsed.profile;
    assert_eq!(
        stacks(p),
        vec![
            vec!["f@a.R:3", "g@a.R:10", "<top level>@:20"],
            vec!["<top level>@:21"],
            vec!["h@:0", "<top level>@:20"],
            vec!["h@:0"],
        ]
    );
    // One function for the top level of a file, with no system name: R wrote none.
    assert_eq!(
        functions_named(p, TOP_LEVEL_NAME),
        vec![(String::new(), String::new())]
    );
    assert_eq!(written(p), text);

    // A function that is called `<top level>` is another function, written by name.
    let text = "line profiling: sample.interval=5000\n#File 1: a.R\n\"<top level>\" 1#2 \n1#2 \"<top level>\" \n";
    let p = read(text.as_bytes()).profile;
    assert_eq!(
        stacks(&p),
        vec![
            vec!["<top level>@:0", "<top level>@a.R:2"],
            vec!["<top level>@a.R:2"]
        ]
    );
    assert_eq!(
        functions_named(&p, TOP_LEVEL_NAME),
        vec![
            (TOP_LEVEL_NAME.to_owned(), String::new()),
            (String::new(), "a.R".to_owned()),
            (TOP_LEVEL_NAME.to_owned(), "a.R".to_owned())
        ]
    );
    assert_eq!(written(&p), text);

    // Where the top level is not the outermost frame (a hand-made profile), a
    // reference alone would mean another frame's line: it is written by name.
    let mut p = read(b"line profiling: sample.interval=5000\n#File 1: a.R\n\"f\" 1#7 \n").profile;
    p.sample_locations.depth.swap(0, 1);
    assert_eq!(
        written(&p),
        "line profiling: sample.interval=5000\n#File 1: a.R\n1#7 \"<top level>\" \"f\" \n"
    );
}

#[test]
fn a_reference_that_ends_a_line_r_cut_is_no_top_level() {
    // R stops writing frames once a line has R_LINE_LIMIT bytes: a reference
    // at the end of a line that long is the call site of a frame R left out.
    let frame = "\"descend\" 1#4 ";
    let deep = |bytes: usize, prefix: &str| {
        let mut line = String::from(prefix);
        while line.len() + 2 * frame.len() <= bytes {
            line.push_str(frame);
        }
        line.push_str(&" ".repeat(bytes - frame.len() - line.len()));
        line.push_str(frame);
        assert_eq!(line.len(), bytes);
        line
    };
    for (bytes, cut) in [
        (R_LINE_LIMIT - 1, false),
        (R_LINE_LIMIT, true),
        (R_LINE_LIMIT + 6, true),
    ] {
        let text = format!(
            "line profiling: sample.interval=5000\n#File 1: a.R\n{}\n",
            deep(bytes, "")
        );
        let parsed = read(text.as_bytes());
        let stack = stacks(&parsed.profile).remove(0);
        let outermost = stack.last().cloned().unwrap_or_default();
        if cut {
            assert_eq!(
                parsed.warnings,
                vec![WARN_INCOMPLETE.to_string()],
                "{bytes}"
            );
            assert_eq!(outermost, "descend@a.R:4", "{bytes}");
        } else {
            assert!(parsed.warnings.is_empty(), "{bytes}");
            assert_eq!(outermost, "<top level>@a.R:4", "{bytes}");
        }
        assert_same_in_any_chunks(text.as_bytes(), &Limits::default());
    }
    // The memory prefix counts (R writes it into the same line), so the same
    // frames are cut behind a longer prefix and complete behind a shorter one,
    // in either order.
    let short = deep(R_LINE_LIMIT - 1, ":1:2:3:4:");
    let body = short.strip_prefix(":1:2:3:4:").unwrap_or_default();
    let long = format!(":10:2:3:4:{body}");
    for lines in [[&short, &long], [&long, &short]] {
        let text = format!(
            "memory profiling: line profiling: sample.interval=5000\n#File 1: a.R\n{}\n{}\n",
            lines[0], lines[1]
        );
        let parsed = read(text.as_bytes());
        assert_eq!(parsed.warnings, vec![WARN_INCOMPLETE.to_string()]);
        let outermost: Vec<String> = stacks(&parsed.profile)
            .into_iter()
            .map(|s| s.last().cloned().unwrap_or_default())
            .collect();
        let expected = |line: &String| {
            if line.len() >= R_LINE_LIMIT {
                "descend@a.R:4"
            } else {
                "<top level>@a.R:4"
            }
        };
        assert_eq!(outermost, vec![expected(lines[0]), expected(lines[1])]);
    }
}

#[test]
fn the_lines_r_cut_in_a_real_file_have_no_top_level() {
    let bytes = sample_file("cut-lines.out.gz");
    let text = crate::io::input::decompress(&bytes, &Limits::default()).unwrap();
    let lines: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .filter(|l| l.first().is_some_and(|b| *b == b'"' || b.is_ascii_digit()))
        .collect();
    let ends_in_reference = |l: &[u8]| {
        let l = l.strip_suffix(b" ").unwrap_or_default();
        let last = l.rsplit(|&b| b == b' ').next().unwrap_or_default();
        last.contains(&b'#') && last.iter().all(|b| b.is_ascii_digit() || *b == b'#')
    };
    let complete_top_level = lines
        .iter()
        .filter(|l| l.len() < R_LINE_LIMIT && ends_in_reference(l))
        .count();
    let cut_after_reference = lines
        .iter()
        .filter(|l| l.len() >= R_LINE_LIMIT && ends_in_reference(l))
        .count();
    assert!(complete_top_level > 0 && cut_after_reference > 0);
    let parsed = read(&text);
    assert_eq!(parsed.warnings, vec![WARN_INCOMPLETE.to_string()]);
    let top_level = stacks(&parsed.profile)
        .iter()
        .filter(|s| s.last().is_some_and(|f| f.starts_with("<top level>@")))
        .count();
    assert_eq!(top_level, complete_top_level);
    assert_same_in_any_chunks(&text, &Limits::default());
}

#[test]
fn top_level_references_read_the_same_in_chunks() {
    let mut text = String::from("line profiling: sample.interval=1000\n#File 1: a.R\n#File 2: \n");
    for i in 0..30 {
        text.push_str(&format!("1#{i} \"f\" 2#{} \n2#{} \n", i % 4 + 1, i % 3 + 1));
    }
    assert_same_in_any_chunks(text.as_bytes(), &Limits::default());
    let p = crate::testing::read_rprof_with(text.as_bytes(), None, &Limits::default(), Some(4))
        .unwrap()
        .profile;
    assert_eq!(stacks(&p)[58], vec!["f@a.R:29", "<top level>@:2"]);
    assert_eq!(stacks(&p)[59], vec!["<top level>@:3"]);
    assert_eq!(functions_named(&p, TOP_LEVEL_NAME).len(), 1);
}

/// Memory prefixes that are not four whole numbers, each on line 3 of a file.
const BAD_PREFIXES: [&str; 12] = [
    ":12:abc:3:4:\"f\" ",
    "::2:3:4:\"f\" ",
    ":1:2:3::\"f\" ",
    ":-1:2:3:4:\"f\" ",
    ":+1:2:3:4:\"f\" ",
    ":1: 2:3:4:\"f\" ",
    ":1.5:2:3:4:\"f\" ",
    ":18446744073709551616:2:3:4:\"f\" ",
    ":1:2:3:\"f\" ",
    ":1:2:3:4:5:\"f\" ",
    ":1:2:3:4:5:",
    ":1:2:3",
];

#[test]
fn memory_prefixes_that_are_not_four_whole_numbers_are_format_errors() {
    for bad in BAD_PREFIXES {
        let text = format!(
            "memory profiling: sample.interval=5000\n:1:2:3:4:\"f\" \n{bad}\n:1:2:3:4:\"f\" \n"
        );
        for chunks in [1, 2, 3] {
            let err = crate::testing::read_rprof_with(
                text.as_bytes(),
                Some("x.out"),
                &Limits::default(),
                Some(chunks),
            )
            .unwrap_err();
            assert_eq!(err.kind(), "format", "{bad}");
            let message = err.to_string();
            assert!(
                message
                    .starts_with("line 3: the memory profiling prefix must be four whole numbers"),
                "{bad}: {message}"
            );
            assert!(
                message.contains(&format!("found `{}", &bad[..6])),
                "{bad}: {message}"
            );
        }
        assert_same_in_any_chunks(text.as_bytes(), &Limits::default());
    }
    // The largest numbers R can write are whole numbers.
    let text = "memory profiling: sample.interval=5000\n:18446744073709551615:0:0:0:\"f\" \n";
    assert_eq!(
        values(&read(text.as_bytes()).profile, "small_vector_heap"),
        vec![8.0 * u64::MAX as f64]
    );
    // Only the last line of a file may end inside its prefix: the file was cut
    // off there, and the line is passed over with the warning for cut lines.
    for cut in [":", ":1", ":1:2:3", ":1:2:3:4", ":1:2:3:\n", ":1:2:3:4\r\n"] {
        let text = format!("memory profiling: sample.interval=5000\n:1:2:3:4:\"f\" \n{cut}");
        let parsed = read(text.as_bytes());
        assert_eq!(
            parsed.warnings,
            vec![WARN_INCOMPLETE.to_string()],
            "{cut:?}"
        );
        assert_eq!(parsed.profile.samples.nrow(), 1);
        assert_same_in_any_chunks(text.as_bytes(), &Limits::default());
    }
}

/// `samples$time` of a file worked out from its text alone: within each
/// segment, the k-th stack line (from 0) is at k times the header's interval.
fn times_from_text(text: &str) -> Vec<f64> {
    let mut times = Vec::new();
    let (mut interval_us, mut tick) = (0u64, 0u64);
    for line in text.lines() {
        if let Some(at) = line.find("sample.interval=") {
            interval_us = line[at + "sample.interval=".len()..].parse().unwrap();
            tick = 0;
        } else if line.starts_with(['"', ':']) || line.starts_with(|c: char| c.is_ascii_digit()) {
            times.push((tick * interval_us) as f64 / 1e6);
            tick += 1;
        }
    }
    times
}

#[test]
fn sample_times_count_the_ticks_of_each_source() {
    let text =
        "sample.interval=2000\n\"f\" \n\"g\" \n\"f\" \nsample.interval=5000\n\"f\" \n\"f\" \n";
    let p = read(text.as_bytes()).profile;
    assert_eq!(p.samples.time, vec![0.0, 0.002, 0.004, 0.0, 0.005]);
    for name in REAL_FILES.iter().filter(|n| **n != "incomplete.out") {
        let bytes = sample_file(name);
        let expected = times_from_text(std::str::from_utf8(&bytes).unwrap());
        for chunks in [1, 3] {
            let p = crate::testing::read_rprof_with(&bytes, None, &Limits::default(), Some(chunks))
                .unwrap()
                .profile;
            assert_eq!(p.samples.time, expected, "{name}, {chunks} chunks");
        }
    }
    // Time is the order of the lines: it is not written, and comes back.
    let p = read(&sample_file("append.out")).profile;
    assert_eq!(
        read(written(&p).as_bytes()).profile.samples.time,
        p.samples.time
    );
}

#[test]
fn not_an_rprof_file_is_a_format_error() {
    for bad in [
        &b""[..],
        b"\n",
        b"\"f\" \"g\" \n",
        b"\x1f\x8b\x08\x00",
        b"hello world\n",
    ] {
        let err = crate::testing::read_rprof(bad, None).unwrap_err();
        assert_eq!(err.kind(), "format", "{}", String::from_utf8_lossy(bad));
    }
    let err = crate::testing::read_rprof(b"\"f\" \n", None).unwrap_err();
    assert!(
        err.to_string().starts_with("line 1: not an Rprof file"),
        "{err}"
    );
}

#[test]
fn header_only_file_is_an_empty_profile() {
    let text = "memory profiling: line profiling: sample.interval=20000\n";
    let p = read(text.as_bytes()).profile;
    assert_eq!(p.samples.nrow(), 0);
    assert_eq!(p.sample_types.nrow(), 6);
    assert_eq!(written(&p), text);
}

/// A hand-made profile of another origin: one source, no Rprof header.
fn manual_profile(period_unit: &str, counts: &[f64]) -> Profile {
    let mut p = Profile::new();
    let s = &mut p.strings;
    let (manual, ns, samples, count) = (
        s.intern("manual"),
        s.intern(period_unit),
        s.intern("samples"),
        s.intern("count"),
    );
    let (main, fib, file, empty) = (
        s.intern("main.main"),
        s.intern("main.fib"),
        s.intern("/src/fib.go"),
        s.intern(""),
    );
    let src = &mut p.sources;
    src.source_id.push(7);
    src.source_type.push(manual);
    src.source_uri.push(StrId::NA);
    src.source_timestamp.push(f64::NAN);
    src.period_type.push(StrId::NA);
    src.period_unit.push(ns);
    src.period.push(4e6);
    src.duration_nanos.push(f64::NAN);
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
    src.diff_base.push(crate::model::NA_INT);
    for (i, &c) in counts.iter().enumerate() {
        let id = 10 + i as i32;
        p.samples.sample_id.push(id);
        p.samples.source_id.push(7);
        p.samples.time.push(f64::NAN);
        p.sample_values.sample_id.push(id);
        p.sample_values.value_type.push(samples);
        p.sample_values.unit.push(count);
        p.sample_values.value.push(c);
        // Depths given outermost first: the writer orders them.
        for (depth, loc) in [(2, 1), (1, 2)] {
            p.sample_locations.sample_id.push(id);
            p.sample_locations.depth.push(depth);
            p.sample_locations.location_id.push(loc);
        }
    }
    let l = &mut p.locations;
    l.location_id.extend([1, 2]);
    l.function_id.extend([1, 2]);
    l.line.extend([10, 0]);
    l.address.extend([StrId::NA; 2]);
    l.mapping_id.extend([NA_INT; 2]);
    l.is_folded.extend([NA_INT; 2]);
    l.column.extend([NA_INT; 2]);
    l.inlined_into.extend([NA_INT; 2]);
    let f = &mut p.functions;
    f.function_id.extend([1, 2]);
    f.name.extend([main, fib]);
    f.system_name.extend([main, fib]);
    f.filename.extend([file, empty]);
    f.start_line.extend([1, 0]);
    p
}

#[test]
fn other_profiles_get_a_header_and_one_line_per_tick() {
    let p = manual_profile("nanoseconds", &[2.0, 1.0]);
    assert_eq!(
        written(&p),
        "line profiling: sample.interval=4000\n#File 1: /src/fib.go\n\"main.fib\" 1#10 \"main.main\" \n\"main.fib\" 1#10 \"main.main\" \n\"main.fib\" 1#10 \"main.main\" \n"
    );
    let p = manual_profile("bytes", &[1.0]);
    assert!(written(&p).starts_with("line profiling: sample.interval=20000\n"));
    let p = manual_profile("nanoseconds", &[0.0]);
    assert_eq!(written(&p), "sample.interval=4000\n");
    for bad in [-1.0, 1.5, f64::INFINITY] {
        let err = write_to_vec(&manual_profile("nanoseconds", &[bad])).unwrap_err();
        assert_eq!(err.kind(), "invalid");
    }
}

#[test]
fn broken_references_are_errors_not_panics() {
    let mut p = manual_profile("nanoseconds", &[1.0]);
    p.samples.source_id[0] = 99;
    assert_eq!(write_to_vec(&p).unwrap_err().kind(), "invalid");
    let mut p = manual_profile("nanoseconds", &[1.0]);
    p.sample_locations.sample_id[0] = 99;
    assert_eq!(write_to_vec(&p).unwrap_err().kind(), "invalid");
    // A location or function that does not exist is written as a placeholder.
    let mut p = manual_profile("nanoseconds", &[1.0]);
    p.sample_locations.location_id[0] = 99;
    p.locations.function_id[1] = 42;
    assert!(written(&p).contains("\"<unknown>\" \"<unknown>\" "));
    assert_eq!(written(&Profile::new()), "sample.interval=20000\n");
}

#[test]
fn stored_header_is_rebuilt_when_it_no_longer_fits() {
    let text = "memory profiling: GC profiling: sample.interval=5000\n:1:2:3:4:\"f\" \n";
    let mut p = read(text.as_bytes()).profile;
    // Without the memory values the memory flag must go, GC stays.
    let keep: Vec<bool> = p
        .sample_values
        .value_type
        .iter()
        .map(|&t| p.str(t) == "samples")
        .collect();
    p.sample_values.retain_rows(&keep);
    assert_eq!(written(&p), "GC profiling: sample.interval=5000\n\"f\" \n");
    // A changed period changes the interval.
    p.sources.period[0] = 1e7;
    assert_eq!(written(&p), "GC profiling: sample.interval=10000\n\"f\" \n");
}

// ---------------------------------------------------------------------------
// Properties

/// Frame names R may write, including the awkward ones.
const NAMES: [&str; 10] = [
    "f",
    "fib",
    "x[[\"a\"]]",
    "x[[\"b c\"]]",
    "slow sum",
    "pkg::f",
    "pkg:::g",
    "obj$f",
    "<Anonymous>",
    "<GC>",
];

prop_compose! {
    /// One well-formed segment as R writes it; `#File` lines are emitted before
    /// first use, numbered by first use.
    fn segment()(
        memory in any::<bool>(),
        gc in any::<bool>(),
        line in any::<bool>(),
        interval in 1u32..100_000,
        lines in prop::collection::vec(
            (prop::collection::vec((0usize..NAMES.len(), prop::option::of((0usize..3, 1i32..500))), 0..6),
             (0u64..1 << 40, 0u64..1 << 40, 0u64..1 << 40, 0u64..1000),
             prop::option::of((0usize..3, 1i32..500))),
            0..8),
    ) -> String {
        let mut s = Header { memory, gc, line, interval_us: interval }.to_line();
        s.push('\n');
        let mut numbered: Vec<usize> = Vec::new();
        for (frames, (a, b, c, d), top_level) in lines {
            // A reference after the outermost frame: the top level's.
            let top_level = top_level.filter(|_| line);
            if frames.is_empty() && top_level.is_none() && !memory {
                continue; // R writes no line for an empty stack without memory profiling
            }
            let mut text = if memory { format!(":{a}:{b}:{c}:{d}:") } else { String::new() };
            let mut reference = |s: &mut String, text: &mut String, (file, l): (usize, i32)| {
                let n = match numbered.iter().position(|&f| f == file) {
                    Some(k) => k + 1,
                    None => {
                        numbered.push(file);
                        s.push_str(&format!("#File {}: dir/file {file}.R\n", numbered.len()));
                        numbered.len()
                    }
                };
                text.push_str(&format!("{n}#{l} "));
            };
            for (name, file_ref) in frames {
                if let (true, Some(file_ref)) = (line, file_ref) {
                    reference(&mut s, &mut text, file_ref);
                }
                text.push_str(&format!("\"{}\" ", NAMES[name]));
            }
            if let Some(file_ref) = top_level {
                reference(&mut s, &mut text, file_ref);
            }
            s.push_str(&text);
            s.push('\n');
        }
        s
    }
}

/// Whatever `parse` accepts gives a valid profile, and writing it gives a file
/// that reads back to the same text when written again.
fn check_any_input(bytes: &[u8]) -> Result<(), TestCaseError> {
    if let Ok(parsed) = crate::testing::read_rprof(bytes, Some("x")) {
        prop_assert!(validate(&parsed.profile).is_ok());
        let once = write_to_vec(&parsed.profile).unwrap();
        let reread = crate::testing::read_rprof(&once, Some("x")).unwrap();
        prop_assert!(validate(&reread.profile).is_ok());
        let twice = write_to_vec(&reread.profile).unwrap();
        prop_assert_eq!(
            String::from_utf8_lossy(&once),
            String::from_utf8_lossy(&twice)
        );
    }
    Ok(())
}

/// One source of a random model: memory profiling, line profiling, interval.
type ModelSource = (bool, bool, u32);
/// One sample: its source, its frames (name, file, line) as indices, the heap
/// gauges (in R's units) and duplications, and the (file, line) of the top
/// level, if any.
type ModelSample = (
    prop::sample::Index,
    Vec<(prop::sample::Index, prop::sample::Index, i32)>,
    [u64; 4],
    Option<(prop::sample::Index, i32)>,
);

fn model_name() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(NAMES.to_vec()).prop_map(str::to_owned),
        "[A-Za-z.][A-Za-z0-9._é$:<>]{0,7}",
    ]
}

prop_compose! {
    /// A random valid v2 profile that Rprof can hold, built table by table:
    /// Rprof sources (each with a header), one `samples` count per sample, the
    /// five memory values where the source profiles memory (`alloc_size` by the
    /// rule of the format), frames with a file and line where the source
    /// profiles lines, then now and then the top level (see `TOP_LEVEL_NAME`),
    /// a time per sample. Ids are given in the model's own order, not the
    /// reader's.
    fn rprof_model()(
        sources in prop::collection::vec((any::<bool>(), any::<bool>(), 1u32..1_000_000), 1..4),
        names in prop::collection::vec(model_name(), 1..8),
        files in prop::collection::vec("[a-z]{1,6}/[a-z_ ]{1,6}\\.R", 1..4),
        samples in prop::collection::vec(
            (any::<prop::sample::Index>(),
             prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), 1i32..5000), 0..7),
             [0u64..1 << 40, 0u64..1 << 40, 0u64..1 << 40, 0u64..1000],
             prop::option::of((any::<prop::sample::Index>(), 1i32..5000))),
            0..25),
        shuffle in any::<u64>(),
    ) -> Profile {
        build_model(&sources, &names, &files, &samples, shuffle)
    }
}

/// A function of a model: (name, system name, file).
type ModelFunction = (StrId, StrId, StrId);
/// A location of a model: (function, line).
type ModelLocation = (usize, i32);

/// The string ids the tables of a model use.
struct ModelStrings {
    rprof: StrId,
    cpu: StrId,
    ns: StrId,
    empty: StrId,
    samples: StrId,
    count: StrId,
    top_level: StrId,
    memory_types: Vec<(StrId, StrId)>,
}

fn build_model(
    sources: &[ModelSource],
    names: &[String],
    files: &[String],
    samples: &[ModelSample],
    shuffle: u64,
) -> Profile {
    let mut p = Profile::new();
    let s = |p: &mut Profile, x: &str| p.strings.intern(x);
    let (rprof, cpu, ns, empty) = (
        s(&mut p, "rprof"),
        s(&mut p, "cpu"),
        s(&mut p, "nanoseconds"),
        s(&mut p, ""),
    );
    let (samples_t, count) = (s(&mut p, SAMPLES_TYPE.0), s(&mut p, SAMPLES_TYPE.1));
    let memory_types: Vec<(StrId, StrId)> = MEMORY_TYPES
        .iter()
        .map(|(t, u)| (s(&mut p, t), s(&mut p, u)))
        .collect();
    let top_level = s(&mut p, TOP_LEVEL_NAME);
    let strings = ModelStrings {
        rprof,
        cpu,
        ns,
        empty,
        samples: samples_t,
        count,
        top_level,
        memory_types,
    };
    add_model_sources(&mut p, sources, &strings);
    let (functions, locations) =
        add_model_samples(&mut p, sources, names, files, samples, &strings);
    add_model_frames(&mut p, &functions, &locations, shuffle);
    // The OTLP columns, as a reader leaves them: NA.
    p.pad_extension_columns(&[]);
    p
}

/// Source ids in reverse order of the rows, to show ids are not positions.
fn model_source_id(sources: &[ModelSource], row: usize) -> i32 {
    (sources.len() - row) as i32 * 10
}

/// The `sources` rows of a model and their declared sample types.
fn add_model_sources(p: &mut Profile, sources: &[ModelSource], strings: &ModelStrings) {
    for (row, &(memory, line, interval)) in sources.iter().enumerate() {
        let header = Header {
            memory,
            gc: false,
            line,
            interval_us: interval,
        }
        .to_line();
        let header = p.strings.intern(&header);
        let src = &mut p.sources;
        src.source_id.push(model_source_id(sources, row));
        src.source_type.push(strings.rprof);
        src.source_uri.push(StrId::NA);
        src.source_timestamp.push(f64::NAN);
        src.period_type.push(strings.cpu);
        src.period_unit.push(strings.ns);
        src.period.push(f64::from(interval) * 1000.0);
        src.duration_nanos.push(f64::NAN);
        for c in [
            &mut src.time_nanos,
            &mut src.doc_url,
            &mut src.drop_frames,
            &mut src.keep_frames,
        ] {
            c.push(StrId::NA);
        }
        src.default_sample_type.push(strings.samples);
        src.rprof_header.push(header);
        src.diff_base.push(crate::model::NA_INT);
        let memory_types = if memory {
            strings.memory_types.clone()
        } else {
            vec![]
        };
        for (t, u) in std::iter::once((strings.samples, strings.count)).chain(memory_types) {
            p.sample_types.source_id.push(model_source_id(sources, row));
            p.sample_types.value_type.push(t);
            p.sample_types.unit.push(u);
        }
    }
}

/// The samples of a model with their values and stacks; returns the functions
/// and locations the stacks use, in order of first appearance.
fn add_model_samples(
    p: &mut Profile,
    sources: &[ModelSource],
    names: &[String],
    files: &[String],
    samples: &[ModelSample],
    strings: &ModelStrings,
) -> (Vec<ModelFunction>, Vec<ModelLocation>) {
    let mut functions: Vec<ModelFunction> = Vec::new();
    let mut locations: Vec<ModelLocation> = Vec::new();
    let mut previous: Vec<Option<[u64; 3]>> = vec![None; sources.len()];
    let mut ticks = vec![0u64; sources.len()];
    let mut next_sample = 0;
    for (src, frames, [small, large, nodes, dups], top_level) in samples {
        let row = src.index(sources.len());
        let (memory, line_profiling, interval) = sources[row];
        let top_level = top_level.filter(|_| line_profiling);
        if frames.is_empty() && top_level.is_none() && !memory {
            continue; // an empty stack is a line only with memory profiling
        }
        next_sample += 1;
        // Sample ids with gaps, in increasing order (the order of the file).
        let sid = next_sample * 3;
        p.samples.sample_id.push(sid);
        p.samples.source_id.push(model_source_id(sources, row));
        p.samples
            .time
            .push((ticks[row] * u64::from(interval)) as f64 / 1e6);
        ticks[row] += 1;
        let mut values = vec![(strings.samples, strings.count, 1.0)];
        if memory {
            let alloc = match previous[row] {
                Some([ps, pl, pn]) => {
                    8.0 * small.saturating_sub(ps) as f64
                        + 8.0 * large.saturating_sub(pl) as f64
                        + nodes.saturating_sub(pn) as f64
                }
                None => 0.0,
            };
            previous[row] = Some([*small, *large, *nodes]);
            let v = [
                8.0 * *small as f64,
                8.0 * *large as f64,
                *nodes as f64,
                *dups as f64,
                alloc,
            ];
            values.extend(
                strings
                    .memory_types
                    .iter()
                    .zip(v)
                    .map(|(&(t, u), v)| (t, u, v)),
            );
        }
        for (t, u, v) in values {
            p.sample_values.sample_id.push(sid);
            p.sample_values.value_type.push(t);
            p.sample_values.unit.push(u);
            p.sample_values.value.push(v);
        }
        let mut stack: Vec<(ModelFunction, i32)> = Vec::new();
        for (name, file, line) in frames {
            let name = p.strings.intern(&names[name.index(names.len())]);
            let (file, line) = if line_profiling {
                (p.strings.intern(&files[file.index(files.len())]), *line)
            } else {
                (strings.empty, 0)
            };
            stack.push(((name, name, file), line));
        }
        if let Some((file, line)) = top_level {
            let file = p.strings.intern(&files[file.index(files.len())]);
            stack.push(((strings.top_level, strings.empty, file), line));
        }
        for (depth, (function, line)) in stack.into_iter().enumerate() {
            let f = match functions.iter().position(|&x| x == function) {
                Some(f) => f,
                None => {
                    functions.push(function);
                    functions.len() - 1
                }
            };
            let l = match locations.iter().position(|&x| x == (f, line)) {
                Some(l) => l,
                None => {
                    locations.push((f, line));
                    locations.len() - 1
                }
            };
            p.sample_locations.sample_id.push(sid);
            p.sample_locations.depth.push(depth as i32 + 1);
            p.sample_locations.location_id.push(l as i32 + 100);
        }
    }
    (functions, locations)
}

/// Functions and locations in a shuffled row order with ids that are not the
/// reader's (first appearance).
fn add_model_frames(
    p: &mut Profile,
    functions: &[ModelFunction],
    locations: &[ModelLocation],
    shuffle: u64,
) {
    let order = |n: usize| {
        let mut rows: Vec<usize> = (0..n).collect();
        rows.sort_by_key(|&r| (r as u64).wrapping_mul(shuffle | 1).rotate_left(17));
        rows
    };
    for f in order(functions.len()) {
        let (name, system_name, file) = functions[f];
        p.functions.function_id.push(f as i32 + 7);
        p.functions.name.push(name);
        p.functions.system_name.push(system_name);
        p.functions.filename.push(file);
        p.functions.start_line.push(0);
    }
    for l in order(locations.len()) {
        let (f, line) = locations[l];
        let t = &mut p.locations;
        t.location_id.push(l as i32 + 100);
        t.function_id.push(f as i32 + 7);
        t.line.push(line);
        t.address.push(StrId::NA);
        for c in [
            &mut t.mapping_id,
            &mut t.is_folded,
            &mut t.column,
            &mut t.inlined_into,
        ] {
            c.push(NA_INT);
        }
    }
}

/// What a profile says, without its ids: per source (in row order) its header,
/// period and declared types; per sample (by source row, then `sample_id`) its
/// source's row, its time, its values and its stack as (name, system name,
/// file, line), innermost first.
#[allow(clippy::type_complexity)]
fn meaning(
    p: &Profile,
) -> (
    Vec<(String, String, Vec<(String, String)>)>,
    Vec<(
        usize,
        String,
        Vec<(String, String, String)>,
        Vec<(String, String, String, i32)>,
    )>,
) {
    let sources = (0..p.sources.nrow())
        .map(|r| {
            let id = p.sources.source_id[r];
            let types = (0..p.sample_types.nrow())
                .filter(|&i| p.sample_types.source_id[i] == id)
                .map(|i| {
                    (
                        p.str(p.sample_types.value_type[i]).to_owned(),
                        p.str(p.sample_types.unit[i]).to_owned(),
                    )
                })
                .collect();
            (
                p.str(p.sources.rprof_header[r]).to_owned(),
                format!("{:?}", p.sources.period[r]),
                types,
            )
        })
        .collect();
    // A file holds a source's samples together (one segment per source).
    let source_row = |r: usize| {
        p.sources
            .source_id
            .iter()
            .position(|&s| s == p.samples.source_id[r])
    };
    let mut order: Vec<usize> = (0..p.samples.nrow()).collect();
    order.sort_by_key(|&r| (source_row(r), p.samples.sample_id[r]));
    let samples = order
        .iter()
        .map(|&r| {
            let sid = p.samples.sample_id[r];
            let source = p
                .sources
                .source_id
                .iter()
                .position(|&s| s == p.samples.source_id[r])
                .unwrap();
            let mut values: Vec<(String, String, String)> = (0..p.sample_values.nrow())
                .filter(|&i| p.sample_values.sample_id[i] == sid)
                .map(|i| {
                    let sv = &p.sample_values;
                    (
                        p.str(sv.value_type[i]).to_owned(),
                        p.str(sv.unit[i]).to_owned(),
                        format!("{:?}", sv.value[i]),
                    )
                })
                .collect();
            values.sort();
            let mut frames: Vec<(i32, (String, String, String, i32))> =
                (0..p.sample_locations.nrow())
                    .filter(|&i| p.sample_locations.sample_id[i] == sid)
                    .map(|i| {
                        let sl = &p.sample_locations;
                        let l = p
                            .locations
                            .location_id
                            .iter()
                            .position(|&x| x == sl.location_id[i])
                            .unwrap();
                        let f = p
                            .functions
                            .function_id
                            .iter()
                            .position(|&x| x == p.locations.function_id[l])
                            .unwrap();
                        let fs = &p.functions;
                        let frame = (
                            p.str(fs.name[f]).to_owned(),
                            p.str(fs.system_name[f]).to_owned(),
                            p.str(fs.filename[f]).to_owned(),
                            p.locations.line[l],
                        );
                        (sl.depth[i], frame)
                    })
                    .collect();
            frames.sort_by_key(|f| f.0);
            (
                source,
                format!("{:?}", p.samples.time[r]),
                values,
                frames.into_iter().map(|(_, f)| f).collect(),
            )
        })
        .collect();
    (sources, samples)
}

proptest! {
    #![proptest_config(crate::testing::config(1500))]

    #[test]
    fn well_formed_files_round_trip_exactly(segments in prop::collection::vec(segment(), 1..4)) {
        let text = segments.concat();
        let parsed = crate::testing::read_rprof(text.as_bytes(), None).unwrap();
        prop_assert!(parsed.warnings.is_empty(), "{:?}", parsed.warnings);
        prop_assert!(validate(&parsed.profile).is_ok());
        let out = String::from_utf8(write_to_vec(&parsed.profile).unwrap()).unwrap();
        prop_assert_eq!(out, text);
    }

    /// For valid random models, write -> read is the identity (up to ids, which
    /// the reader gives in order of first appearance).
    #[test]
    fn random_models_write_then_read_to_the_same_profile(model in rprof_model()) {
        prop_assert_eq!(validate(&model), Ok(()));
        let text = write_to_vec(&model).unwrap();
        let read = crate::testing::read_rprof(&text, None).unwrap();
        prop_assert!(read.warnings.is_empty(), "{:?}", read.warnings);
        prop_assert_eq!(validate(&read.profile), Ok(()));
        prop_assert_eq!(meaning(&read.profile), meaning(&model));
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        check_any_input(&bytes)?;
    }

    #[test]
    fn random_bytes_after_a_header_never_panic(bytes in prop::collection::vec(
        prop::sample::select(b"\"#: 0123456789abFile\n\r\xff".to_vec()), 0..3000)) {
        let mut input = b"memory profiling: line profiling: sample.interval=20000\n".to_vec();
        input.extend(bytes);
        check_any_input(&input)?;
    }

    /// Real files with bit flips, changed, inserted and deleted bytes, cuts,
    /// duplicated pieces and pieces of other files spliced in.
    #[test]
    fn damaged_real_files_never_panic(bytes in crate::testing::damaged_file(crate::testing::rprof_files())) {
        check_any_input(&bytes)?;
    }
}

#[test]
fn nul_bytes_are_a_format_error_with_their_position() {
    let text = b"sample.interval=20000\n\"f\" \n\"g\x00\" \n";
    let err = crate::testing::read_rprof(text, None).unwrap_err();
    assert_eq!(err.kind(), "format");
    assert!(
        err.to_string()
            .starts_with("line 3, byte offset 29: a NUL byte"),
        "{err}"
    );
}

#[test]
fn stacks_deeper_than_the_limit_are_refused() {
    let mut text = b"sample.interval=20000\n\"f\" \n".to_vec();
    text.extend(b"\"g\" ".repeat(101));
    text.push(b'\n');
    let limits = Limits {
        max_stack_depth: 100,
        ..Limits::default()
    };
    let err = crate::testing::read_rprof_with(&text, None, &limits, None).unwrap_err();
    assert_eq!(err.kind(), "limit");
    assert!(
        err.to_string()
            .starts_with("line 3: the stack has more than 100 frames"),
        "{err}"
    );
    assert!(crate::testing::read_rprof(&text, None).is_ok());
}

// ---------------------------------------------------------------------------
// Reading in chunks on several threads gives the one-pass result

/// Everything a parse gives, as text (so that NaN equals NaN): every table, the
/// string pool in order, the warnings and the sample lines; or the error.
fn outcome(result: &crate::Result<Parsed>) -> String {
    match result {
        Ok(p) => format!(
            "{:?}",
            (
                p.profile.tables(),
                p.profile.strings.as_slice(),
                &p.warnings,
                &p.sample_lines
            )
        ),
        Err(e) => format!("error {e:?}: {e}"),
    }
}

/// Whether `text` reads the same in one pass and in each of `chunks` chunks.
fn same_in_chunks(text: &[u8], limits: &Limits, chunks: &[usize]) -> Result<(), TestCaseError> {
    let once = outcome(&crate::testing::read_rprof_with(
        text,
        Some("x"),
        limits,
        Some(1),
    ));
    for &n in chunks {
        let split = outcome(&crate::testing::read_rprof_with(
            text,
            Some("x"),
            limits,
            Some(n),
        ));
        prop_assert!(split == once, "{n} chunks:\n{split}\none pass:\n{once}");
        // Reading bytes it owns (and frees early) changes nothing either.
        let budget = Budget::new(*limits);
        let owned = outcome(
            &crate::formats::rprof::parse(
                std::borrow::Cow::Owned(text.to_vec()),
                &crate::formats::rprof::ParseOptions::new(&budget)
                    .source_uri(Some("x"))
                    .chunks(n),
            )
            .and_then(|read| read.expand(&budget)),
        );
        prop_assert!(
            owned == once,
            "{n} chunks, owned input:\n{owned}\none pass:\n{once}"
        );
    }
    Ok(())
}

/// Every chunk count from 2 to 12: the cuts fall on many different lines.
fn assert_same_in_any_chunks(text: &[u8], limits: &Limits) {
    same_in_chunks(text, limits, &(2..=12).collect::<Vec<_>>()).unwrap();
}

#[test]
fn small_inputs_are_read_in_one_pass() {
    assert_eq!(read::chunks_for(0), 1);
    assert_eq!(read::chunks_for(1 << 20), 1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert_eq!(read::chunks_for(1 << 30), cores.min(8));
}

#[test]
fn real_files_read_the_same_in_chunks() {
    for name in REAL_FILES {
        let bytes = sample_file(name);
        assert_same_in_any_chunks(&bytes, &Limits::default());
        // Reading in chunks is not a no-op: more than one chunk has samples.
        let parsed =
            crate::testing::read_rprof_with(&bytes, None, &Limits::default(), Some(3)).unwrap();
        assert!(parsed.profile.samples.nrow() > 10, "{name}");
    }
}

#[test]
fn what_a_chunk_cannot_know_comes_from_the_chunks_before() {
    let limits = Limits::default();
    // A `#File` line in one chunk and references to it in later ones.
    let mut text =
        String::from("line profiling: sample.interval=1000\n#File 1: a.R\n#File 2: b.R\n");
    for i in 0..20 {
        text.push_str(&format!("1#{i} \"f\" 2#3 \"g\" \n"));
    }
    assert_same_in_any_chunks(text.as_bytes(), &limits);
    let parsed = crate::testing::read_rprof_with(text.as_bytes(), None, &limits, Some(4)).unwrap();
    assert_eq!(stacks(&parsed.profile)[19], vec!["f@a.R:19", "g@b.R:3"]);

    // A reference whose `#File` line comes later, in another chunk; one that
    // never comes (warned once); the same number declared again with another path.
    let mut text = String::from("line profiling: sample.interval=1000\n");
    text.push_str(&"\"a\" \n".repeat(20));
    for i in 0..10 {
        text.push_str(&format!("3#{i} \"f\" 9#1 \"h\" \n"));
    }
    text.push_str("#File 3: late.R\n#File 3: other.R\n\"g\" \n");
    assert_same_in_any_chunks(text.as_bytes(), &limits);
    let parsed = crate::testing::read_rprof_with(text.as_bytes(), None, &limits, Some(3)).unwrap();
    assert_eq!(
        parsed.warnings,
        vec![WARN_UNDEFINED_FILE.to_string(), WARN_UNEXPECTED.to_string()]
    );
    assert_eq!(stacks(&parsed.profile)[20], vec!["f@late.R:0", "h@:1"]);

    // Appended segments: numbers mean other files in each; memory types declared
    // by a sample, and `alloc_size` from the tick before, in the chunk before.
    let mut text = String::new();
    for (k, header) in [
        "line profiling: sample.interval=1000",
        "memory profiling: line profiling: sample.interval=2000",
        "line profiling: sample.interval=3000",
    ]
    .iter()
    .enumerate()
    {
        text.push_str(&format!("{header}\n#File 1: seg{k}.R\n"));
        for i in 0..8u64 {
            let k = k as u64;
            text.push_str(&format!(
                ":{}:{}:{}:{i}:1#{i} \"f\" \"g\" \n",
                100 + 7 * i + 1000 * k,
                50 * (i % 3),
                1000 + i * i
            ));
        }
    }
    assert_same_in_any_chunks(text.as_bytes(), &limits);
    let parsed = crate::testing::read_rprof_with(text.as_bytes(), None, &limits, Some(5)).unwrap();
    let p = &parsed.profile;
    assert_eq!(p.sources.nrow(), 3);
    assert_eq!(p.sample_types.nrow(), 18);
    let alloc = values(p, "alloc_size");
    assert_eq!(alloc.len(), 24);
    // 8 bytes per unit of the small heap (7) and large heap, plus node bytes.
    assert_eq!(alloc[1], 8.0 * 7.0 + 8.0 * 50.0 + 1.0);
    // Each segment starts afresh, though its heaps are larger than before.
    assert_eq!(alloc[8], 0.0);
    assert_eq!(alloc[16], 0.0);
}

#[test]
fn the_first_error_in_the_file_wins_with_its_line() {
    let mut text = String::from("sample.interval=1000\n");
    for i in 1..40 {
        text.push_str(&"\"f\" ".repeat(if i % 9 == 0 { 5 } else { 1 }));
        text.push('\n');
    }
    let limits = Limits {
        max_stack_depth: 4,
        ..Limits::default()
    };
    assert_same_in_any_chunks(text.as_bytes(), &limits);
    for chunks in [2, 3, 7] {
        let err = crate::testing::read_rprof_with(text.as_bytes(), None, &limits, Some(chunks))
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("line 10: the stack has more than 4 frames"),
            "{err}"
        );
    }
}

#[test]
fn chunks_may_be_empty_or_hold_only_blank_lines() {
    let limits = Limits::default();
    assert_same_in_any_chunks(b"sample.interval=1000", &limits);
    assert_same_in_any_chunks(b"sample.interval=1000\n", &limits);
    assert_same_in_any_chunks(b"sample.interval=1000\n\n\n  \n\"f\" \r\n\n", &limits);
    assert_same_in_any_chunks(b"\xef\xbb\xbfsample.interval=1000\n\"f\" \n\"g\" ", &limits);
    assert_same_in_any_chunks(b"sample.interval=1000\n\"f\" \n\"g\x00\" \n", &limits);
}

const ROUGH_NAMES: [&str; 4] = ["f", "g", "x[[\"a\"]]", "h i"];

/// A line of a rough Rprof text: any kind of line R writes, in any order, with
/// file numbers that may be declared late, twice, differently or never, and some
/// damage.
fn rough_line() -> impl Strategy<Value = String> {
    let frame = (0..ROUGH_NAMES.len(), prop::option::of((1u32..5, 0i32..3)));
    let gauges = prop::option::of([0u64..40, 0u64..40, 0u64..40, 0u64..3]);
    prop_oneof![
        1 => (any::<bool>(), any::<bool>(), 1u32..3).prop_map(|(memory, line, i)| {
            Header { memory, gc: false, line, interval_us: i * 1000 }.to_line()
        }),
        2 => (1u32..5, 0..3).prop_map(|(n, f)| format!("#File {n}: f{f}.R")),
        10 => (gauges, prop::collection::vec(frame, 0..6)).prop_map(|(gauges, frames)| {
            let mut s = gauges.map(|[a, b, c, d]| format!(":{a}:{b}:{c}:{d}:")).unwrap_or_default();
            for (name, file_ref) in frames {
                if let Some((file, line)) = file_ref {
                    s.push_str(&format!("{file}#{line} "));
                }
                s.push_str(&format!("\"{}\" ", ROUGH_NAMES[name]));
            }
            s
        }),
        1 => prop::sample::select(vec!["", "  ", "\"cut", "1#2", "\"\" \"f\" ", "junk \"g\" ", "#File 2", "5"])
            .prop_map(str::to_owned),
    ]
}

prop_compose! {
    /// A rough Rprof text: a header, then rough lines, with LF or CRLF ends.
    fn rough_text()(
        first in (any::<bool>(), any::<bool>()),
        lines in prop::collection::vec(rough_line(), 0..60),
        crlf in any::<bool>(),
        last_end in any::<bool>(),
    ) -> Vec<u8> {
        let header = Header { memory: first.0, gc: false, line: first.1, interval_us: 1000 }.to_line();
        let end = if crlf { "\r\n" } else { "\n" };
        let mut text = std::iter::once(header).chain(lines).collect::<Vec<_>>().join(end);
        if last_end {
            text.push_str(end);
        }
        text.into_bytes()
    }
}

proptest! {
    #![proptest_config(crate::testing::config_costly(1000, 20))]

    /// Well-formed files as R writes them, several segments, read in chunks.
    #[test]
    fn well_formed_files_read_the_same_in_chunks(segments in prop::collection::vec(segment(), 1..5)) {
        same_in_chunks(segments.concat().as_bytes(), &Limits::default(), &[2, 3, 7])?;
    }

    /// Rough texts, under a small stack depth limit now and then (errors in
    /// several chunks: the first in the file is the one reported).
    #[test]
    fn rough_texts_read_the_same_in_chunks(text in rough_text(), small_limit in any::<bool>()) {
        let limits = if small_limit { Limits { max_stack_depth: 4, ..Limits::default() } } else { Limits::default() };
        same_in_chunks(&text, &limits, &[2, 3, 7])?;
    }

    /// Real files with bit flips, changed, inserted and deleted bytes, cuts,
    /// duplicated pieces and pieces of other files spliced in.
    #[test]
    fn damaged_real_files_read_the_same_in_chunks(bytes in crate::testing::damaged_file(crate::testing::rprof_files())) {
        same_in_chunks(&bytes, &Limits::default(), &[2, 3, 7])?;
    }
}

/// The column of `p` that `id` names.
fn column_named(p: &Profile, id: ColumnId) -> crate::model::ColRef<'_> {
    let cols = p
        .tables()
        .into_iter()
        .find(|(t, _)| *t == id.table)
        .unwrap()
        .1;
    cols.into_iter().find(|(c, _)| *c == id.column).unwrap().1
}

#[test]
fn compact_read_keeps_the_shape_instead_of_the_compact_columns() {
    // A memory segment (one tick without a stack), then one without memory.
    let text = "memory profiling: sample.interval=5000\n:100:200:3000:4:\"g\" \"f\" \n:110:150:3500:0:\nsample.interval=5000\n\"f\" \n";
    let budget = Budget::default();
    let compact = crate::formats::rprof::parse(
        std::borrow::Cow::Borrowed(text.as_bytes()),
        &crate::formats::rprof::ParseOptions::new(&budget),
    )
    .unwrap();
    let p = &compact.parsed.profile;
    for column in CompactColumn::ALL {
        let ColumnId {
            table,
            column: name,
        } = column.id();
        assert!(
            column_named(p, column.id()).is_empty(),
            "{table}.{name} was written"
        );
        // ... and expanding it writes that column
        let mut one = p.clone();
        compact.shape.expand(column, &mut one, &budget).unwrap();
        assert!(
            !column_named(&one, column.id()).is_empty(),
            "{table}.{name} was not written"
        );
    }
    assert_eq!(p.sample_locations.location_id.len(), 3);
    assert_eq!(p.sample_values.value.len(), 6 + 6 + 1);
    assert_eq!(compact.shape.stack_lens(), [2, 0, 1]);
    assert_eq!(
        compact.shape.value_rows_per_sample().collect::<Vec<_>>(),
        [6, 6, 1]
    );
    assert_eq!(compact.shape.equal_value_rows(), None);

    let full = compact.expand(&budget).unwrap().profile;
    assert_eq!(full.sample_locations.sample_id, [1, 1, 3]);
    assert_eq!(full.sample_locations.depth, [1, 2, 1]);
    assert_eq!(
        full.sample_values.sample_id,
        [1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3]
    );
    let types: Vec<&str> = full
        .sample_values
        .value_type
        .iter()
        .map(|&t| full.str(t))
        .collect();
    let memory = [
        "samples",
        "small_vector_heap",
        "large_vector_heap",
        "node_heap",
        "duplications",
        "alloc_size",
    ];
    assert_eq!(types, [&memory[..], &memory[..], &["samples"]].concat());
    let units: Vec<&str> = full
        .sample_values
        .unit
        .iter()
        .map(|&u| full.str(u))
        .collect();
    assert_eq!(
        units,
        [
            "count", "bytes", "bytes", "bytes", "count", "bytes", "count", "bytes", "bytes",
            "bytes", "count", "bytes", "count"
        ]
    );
    validate(&full).unwrap();

    // Every sample with memory values: one pattern of six rows.
    let all_memory = crate::formats::rprof::parse(
        std::borrow::Cow::Borrowed(sample_file("memory.out").as_slice()),
        &crate::formats::rprof::ParseOptions::new(&budget),
    )
    .unwrap();
    assert_eq!(all_memory.shape.equal_value_rows(), Some(6));
    assert_eq!(all_memory.shape.value_types(6).len(), 6);
    let plain = crate::formats::rprof::parse(
        std::borrow::Cow::Borrowed(sample_file("1.out").as_slice()),
        &crate::formats::rprof::ParseOptions::new(&budget),
    )
    .unwrap();
    assert_eq!(plain.shape.equal_value_rows(), Some(1));
}

#[test]
fn compact_reads_in_chunks_have_the_same_shape() {
    for name in REAL_FILES {
        let bytes = sample_file(name);
        let one = crate::formats::rprof::parse(
            std::borrow::Cow::Owned(bytes.clone()),
            &crate::formats::rprof::ParseOptions::new(&Budget::default()).chunks(1),
        )
        .unwrap();
        let three = crate::formats::rprof::parse(
            std::borrow::Cow::Owned(bytes),
            &crate::formats::rprof::ParseOptions::new(&Budget::default()).chunks(3),
        )
        .unwrap();
        assert_eq!(one.shape, three.shape, "{name}");
        assert_same_tables(&one.parsed.profile, &three.parsed.profile);
    }
}
