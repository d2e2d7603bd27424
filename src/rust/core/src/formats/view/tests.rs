use super::*;
use crate::ops::sample_set::tests::Columns;
use pretty_assertions::assert_eq;
use proptest::prelude::*;

/// Locations 1..=4 are keys 1..=4 (4 = "main"), with lines 10, 20, 30, 40;
/// location 5 is key 1 at line 11. Line keys: 1 for line 10, 2 for 11, 3
/// for 40 (lines 20 and 30 are left out: no file).
fn keys() -> (Vec<i32>, Vec<i32>, Vec<i32>) {
    (
        vec![1, 2, 3, 4, 1],
        vec![10, 20, 30, 40, 11],
        vec![1, 0, 0, 3, 2],
    )
}

fn with_keys<T>(f: impl FnOnce(&ViewKeys<'_>) -> T) -> T {
    let (key, line, line_key) = keys();
    f(&ViewKeys {
        location_key: &key,
        location_line: &line,
        n_keys: 4,
        location_line_key: &line_key,
        n_line_keys: 3,
    })
}

fn view_of(c: &Columns, with_time: bool) -> (SampleSet, ViewTree) {
    let set = SampleSet::build(&c.input(with_time)).unwrap();
    let tree = with_keys(|keys| ViewTree::build(&set, keys)).unwrap();
    (set, tree)
}

#[test]
fn tree_keeps_signs_and_types_apart() {
    // stacks innermost first: f;main, g;main, f;main (base), main
    let c = Columns::of(
        &[
            (1, 0.0, vec![1, 4], vec![3.0, 30.0]),
            (1, 0.1, vec![2, 4], vec![1.0, 0.0]),
            (2, 0.0, vec![5, 4], vec![-2.0, -20.0]),
            (1, 0.2, vec![4], vec![4.0, 40.0]),
        ],
        5,
    );
    let (_, tree) = view_of(&c, true);
    // depth first, siblings by key: root, main, f, g
    assert_eq!(tree.key, vec![0, 4, 1, 2]);
    assert_eq!(tree.parent, vec![0, 0, 1, 1]);
    // f is reached from locations 1 (line 10) and 5 (line 11): mixed
    assert_eq!(tree.line, vec![0, 40, 0, 20]);
    let n = tree.len();
    assert_eq!(&tree.values.total_pos[..n], &[8.0, 8.0, 3.0, 1.0]);
    assert_eq!(&tree.values.total_neg[..n], &[-2.0, -2.0, -2.0, 0.0]);
    assert_eq!(&tree.values.self_pos[n..], &[0.0, 40.0, 30.0, 0.0]);
    assert_eq!(&tree.values.self_neg[n..], &[0.0, 0.0, -20.0, 0.0]);
    assert_eq!(tree.leaf, vec![2, 3, 1, 2]);
    // main has line key 3; f has 1 and 2; g none
    assert_eq!(tree.node_line_node, vec![1, 2, 2]);
    assert_eq!(tree.node_line_key, vec![3, 1, 2]);
}

#[test]
fn lines_count_once_per_sample_self_at_the_innermost_known_line() {
    // stacks innermost first: f@10;main@40, g;main@40 (g has no line key),
    // f@10;f@11;main@40 (base), main@40
    let c = Columns::of(
        &[
            (1, 0.0, vec![1, 4], vec![3.0]),
            (1, 0.1, vec![2, 4], vec![1.0]),
            (2, 0.0, vec![1, 5, 4], vec![-2.0]),
            (1, 0.2, vec![4, 4], vec![4.0]),
        ],
        5,
    );
    let set = SampleSet::build(&c.input(false)).unwrap();
    let sums = with_keys(|keys| line_values(&set, keys)).unwrap();
    assert_eq!(sums.self_pos, vec![3.0, 0.0, 5.0]);
    assert_eq!(sums.self_neg, vec![-2.0, 0.0, 0.0]);
    assert_eq!(sums.total_pos, vec![3.0, 0.0, 8.0]);
    assert_eq!(sums.total_neg, vec![-2.0, -2.0, -2.0]);
}

#[test]
fn a_gap_in_time_ends_a_run_of_equal_stacks() {
    // f at 0, 0.1, then (a wait of 1 s) at 1.2 and 1.3: two runs of f
    let c = Columns::of(
        &[
            (1, 0.0, vec![1, 4], vec![1.0]),
            (1, 0.1, vec![1, 4], vec![1.0]),
            (1, 1.2, vec![1, 4], vec![1.0]),
            (1, 1.3, vec![1, 4], vec![1.0]),
        ],
        5,
    );
    let (set, tree) = view_of(&c, true);
    let runs = TimeRuns::build(&set, &tree).unwrap();
    assert_eq!(runs.count, vec![2, 2]);
    assert_eq!(runs.time, vec![0.0, 1.2]);
    assert!((runs.step[0] - 0.1).abs() < 1e-12);
}

#[test]
fn runs_merge_equal_stacks_of_a_source_in_time_order() {
    let c = Columns::of(
        &[
            (1, 0.3, vec![2, 4], vec![1.0]),
            (1, 0.0, vec![1, 4], vec![1.0]),
            (1, 0.1, vec![1, 4], vec![2.0]),
            (1, f64::NAN, vec![1, 4], vec![5.0]),
            (2, 0.0, vec![1, 4], vec![-1.0]),
            (1, 0.2, vec![4], vec![1.0]),
        ],
        5,
    );
    let (set, tree) = view_of(&c, true);
    let runs = TimeRuns::build(&set, &tree).unwrap();
    // nodes: 0 root, 1 main, 2 f, 3 g
    assert_eq!(runs.leaf, vec![2, 1, 3, 2]);
    assert_eq!(runs.count, vec![2, 1, 1, 1]);
    assert_eq!(runs.time, vec![0.0, 0.2, 0.3, 0.0]);
    assert_eq!(runs.source, vec![0, 0, 0, 1]);
    assert_eq!(runs.source_id, vec![1, 2]);
    assert_eq!(runs.weight, vec![3.0, 1.0, 1.0, 1.0]);
    // source 1 every 0.1 s; source 2 has one sample: the step of source 1
    assert_eq!(runs.step.len(), 2);
    assert!((runs.step[0] - 0.1).abs() < 1e-12 && runs.step[1] == runs.step[0]);
    let (set, tree) = view_of(&c, false);
    assert_eq!(TimeRuns::build(&set, &tree), None);
}

#[test]
fn source_sums_are_the_self_values_of_each_source_by_node() {
    // nodes: 0 root, 1 main, 2 f, 3 g
    let c = Columns::of(
        &[
            (2, 0.0, vec![1, 4], vec![1.0, 10.0]),
            (1, 0.0, vec![1, 4], vec![2.0, 20.0]),
            (1, 0.1, vec![2, 4], vec![3.0, 30.0]),
            (2, 0.1, vec![1, 4], vec![-4.0, 40.0]),
            (1, 0.2, vec![1, 4], vec![5.0, 50.0]),
        ],
        5,
    );
    let (set, tree) = view_of(&c, true);
    let sums = SourceSums::build(&set, &tree).unwrap().unwrap();
    assert_eq!(sums.source, vec![1, 1, 2]);
    assert_eq!(sums.node, vec![2, 3, 2]);
    assert_eq!(sums.values.self_pos, vec![7.0, 3.0, 1.0, 70.0, 30.0, 50.0]);
    assert_eq!(sums.values.self_neg, vec![0.0, 0.0, -4.0, 0.0, 0.0, 0.0]);
    // one source: the whole profile is its
    let one = Columns::of(&[(3, 0.0, vec![1, 4], vec![1.0, 1.0])], 5);
    let (set, tree) = view_of(&one, false);
    assert_eq!(SourceSums::build(&set, &tree).unwrap(), None);
}

#[test]
fn json_of_a_small_view() {
    let c = Columns::of(
        &[
            (1, 0.0, vec![1, 4], vec![3.0]),
            (1, 0.5, vec![4], vec![1.0]),
        ],
        5,
    );
    let (set, tree) = view_of(&c, true);
    let runs = TimeRuns::build(&set, &tree);
    let names: Vec<String> = ["f", "g", "h", "main"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let files: Vec<String> = ["a.R", "", "", "a.R"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let labels = ViewLabels {
        key_name: &names,
        key_file: &files,
        type_name: &["samples".to_string()],
        type_unit: &["count".to_string()],
        default_type: 0,
        diff: false,
        title: "</script>",
        sources: ViewSources {
            id: &[1],
            label: &["a \"run\"".to_string()],
            start: &[0.0],
            duration: &[-1.0],
        },
    };
    let line_sums = with_keys(|keys| line_values(&set, keys)).unwrap();
    let file_name = ["a.R".to_string()];
    let file_text = [Some(vec!["x <- 1".to_string(), "</script>".to_string()])];
    let data = ViewData {
        tree: &tree,
        runs: runs.as_ref(),
        line_values: &line_sums,
        lines: ViewLines {
            line_file: &[0, 0, 0],
            line_number: &[10, 11, 40],
            file_name: &file_name,
            file_text: &file_text,
        },
        labels,
        by_source: None,
    };
    let json = view_json(&data).unwrap();
    assert!(json.starts_with(
        r#"{"format":2,"title":"\u003c/script\u003e","diff":false,"default_type":0,"types":[{"name":"samples","unit":"count"}],"strings":["f","g","h","main","a.R",""],"keys":{"name":{"type":"u8","length":4,"base64":"AAECAw=="},"file":{"type":"u8","length":4,"base64":"BAUFBA=="}},"tree":{"parent":"#
    ));
    assert!(json.contains(r#""total_neg":{"const":0,"length":3}"#));
    assert!(json.contains(
        r#""runs":{"leaf":{"type":"u8","length":2,"base64":"AgE="},"count":{"const":1,"length":2}"#
    ));
    assert!(json.contains(r#""step":{"const":0.5,"length":1}"#));
    assert!(
        json.contains(r#""files":[{"name":"a.R","text":["x \u003c- 1","\u003c/script\u003e"]}]"#)
    );
    let no_runs = view_json(&ViewData { runs: None, ..data }).unwrap();
    assert!(no_runs
        .contains(r#""runs":null,"sources":{"id":{"const":1,"length":1},"label":["a \"run\""]"#));
    assert!(no_runs.ends_with(r#""duration":{"const":-1,"length":1}},"by_source":null}"#));
    assert!(json.contains(r#""source_id":{"const":1,"length":1}"#));
}

#[test]
fn bad_keys_are_errors() {
    let c = Columns::of(&[(1, 0.0, vec![1], vec![1.0])], 1);
    let set = SampleSet::build(&c.input(false)).unwrap();
    let bad = ViewKeys {
        location_key: &[2],
        location_line: &[0],
        n_keys: 1,
        location_line_key: &[0],
        n_line_keys: 0,
    };
    assert_eq!(ViewTree::build(&set, &bad).unwrap_err().kind(), "invalid");
    let bad_line = ViewKeys {
        location_key: &[1],
        location_line_key: &[1],
        ..bad
    };
    assert_eq!(line_values(&set, &bad_line).unwrap_err().kind(), "invalid");
    let ragged = ViewKeys {
        location_key: &[1],
        location_line: &[],
        ..bad
    };
    assert_eq!(
        ViewTree::build(&set, &ragged).unwrap_err().kind(),
        "invalid"
    );
}

fn arb_samples() -> impl Strategy<Value = Vec<(i32, f64, Vec<i32>, Vec<f64>)>> {
    prop::collection::vec(
        (
            1i32..3,
            prop_oneof![Just(f64::NAN), (0u32..20).prop_map(|t| f64::from(t) / 10.0)],
            prop::collection::vec(1i32..6, 0..6),
            prop::collection::vec((-3i32..5).prop_map(f64::from), 2),
        ),
        0..30,
    )
}

proptest! {
    /// Node totals agree with a direct count over the samples whose key path
    /// starts with the node's path, per type and sign, and lines' totals
    /// and selves with a direct count; runs cover every timed sample's
    /// absolute weight once.
    #[test]
    fn view_agrees_with_direct_count(samples in arb_samples()) {
        let c = Columns::of(&samples, 5);
        let (set, tree) = view_of(&c, true);
        let (key_of, _, _) = keys();
        let mut paths: Vec<Vec<u32>> = vec![vec![]];
        for i in 1..tree.len() {
            let mut p = paths[tree.parent[i] as usize].clone();
            p.push(tree.key[i]);
            paths.push(p);
        }
        let n = tree.len();
        for (node, path) in paths.iter().enumerate() {
            for t in 0..2 {
                let (mut pos, mut neg) = (0.0, 0.0);
                for (_, _, stack, values) in &samples {
                    let keys: Vec<u32> = stack.iter().rev().map(|&l| key_of[l as usize - 1] as u32).collect();
                    if keys.starts_with(path) {
                        if values[t] > 0.0 { pos += values[t] } else { neg += values[t] }
                    }
                }
                prop_assert_eq!(tree.values.total_pos[t * n + node], pos);
                prop_assert_eq!(tree.values.total_neg[t * n + node], neg);
            }
        }
        // Lines: total once per sample with a frame at the line, self at
        // the sample's innermost frame with a line.
        let (_, _, line_key_of) = keys();
        let lines = with_keys(|k| line_values(&set, k)).unwrap();
        for key in 1..=3i32 {
            for t in 0..2 {
                let (mut total, mut own) = (0.0, 0.0);
                for (_, _, stack, values) in &samples {
                    let line_keys: Vec<i32> = stack.iter().map(|&l| line_key_of[l as usize - 1]).collect();
                    if line_keys.contains(&key) {
                        total += values[t];
                    }
                    if line_keys.iter().find(|&&k| k > 0) == Some(&key) {
                        own += values[t];
                    }
                }
                let cell = t * 3 + key as usize - 1;
                prop_assert_eq!(lines.total_pos[cell] + lines.total_neg[cell], total);
                prop_assert_eq!(lines.self_pos[cell] + lines.self_neg[cell], own);
            }
        }
        // Each source's self values add up to the whole tree's.
        if let Some(sums) = SourceSums::build(&set, &tree).unwrap() {
            for t in 0..2 {
                let block = |v: &[f64], len: usize| -> f64 { v[t * len..(t + 1) * len].iter().sum() };
                prop_assert_eq!(block(&sums.values.self_pos, sums.len()), block(&tree.values.self_pos, n));
                prop_assert_eq!(block(&sums.values.self_neg, sums.len()), block(&tree.values.self_neg, n));
            }
        }
        if let Some(runs) = TimeRuns::build(&set, &tree) {
            let timed: f64 = samples.iter().filter(|s| !s.1.is_nan()).map(|s| s.3[1].abs()).sum();
            let in_runs: f64 = runs.weight[runs.len()..].iter().sum();
            prop_assert_eq!(in_runs, timed);
            let count: u32 = runs.count.iter().sum();
            prop_assert_eq!(count as usize, samples.iter().filter(|s| !s.1.is_nan()).count());
        } else {
            prop_assert!(samples.iter().all(|s| s.1.is_nan()));
        }
    }
}
