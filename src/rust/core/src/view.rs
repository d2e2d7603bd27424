//! The data of the browser view (`profile_view()`): the merged call tree with the
//! values of every sample type at once, and the samples in time order as runs of
//! equal stacks, written as one JSON text whose number columns are typed arrays
//! (see [`crate::json`]).
//!
//! Values are kept apart by sign: a diff profile holds the base's samples with
//! negated values, so a node's positive part is what the profile has and its
//! negative part what the base has; their sum is the difference, their absolute
//! sum the width a view gives the node.

use crate::error::{ProfileError, Result};
use crate::json::{push_stepped_array, push_string, push_typed_array, push_typed_ints};
use crate::sample_set::{try_filled, SampleSet};
use crate::summary::{depth_first, inverse_order, PathTrie};
use rustc_hash::FxHashMap;

/// How frames are grouped into the tree's nodes: the key of each location row
/// (`0..=n_keys`, 0 leaves the frame out) and its line (0 unknown).
#[derive(Debug, Clone, Copy)]
pub struct ViewKeys<'a> {
    pub location_key: &'a [i32],
    pub location_line: &'a [i32],
    pub n_keys: usize,
}

/// The merged call tree in depth-first order, siblings by key (node 0 the root,
/// key 0). Value columns hold one block of nodes per sample type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ViewTree {
    pub parent: Vec<u32>,
    pub key: Vec<u32>,
    /// The line of the node's frames when they all have the same one, else 0.
    pub line: Vec<i32>,
    pub n_types: usize,
    /// Sums of the positive and of the negative values of the samples whose
    /// stacks pass through the node (total) or end at it (self), at
    /// `type * n_nodes + node`.
    pub total_pos: Vec<f64>,
    pub total_neg: Vec<f64>,
    pub self_pos: Vec<f64>,
    pub self_neg: Vec<f64>,
    /// The node each sample's stack ends at, by position in the sample set.
    pub leaf: Vec<u32>,
}

/// A frame's line was not seen yet (lines of nodes are 0 when mixed or unknown).
const LINE_UNSEEN: i32 = i32::MIN;

impl ViewTree {
    pub fn len(&self) -> usize {
        self.key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.key.is_empty()
    }

    #[allow(
        clippy::indexing_slicing,
        reason = "order and new_index are permutations of the trie's nodes, line has one entry per \
                  node, leaves are nodes; a cell t * n + node is below n_types * n"
    )]
    pub fn build(samples: &SampleSet, keys: &ViewKeys<'_>) -> Result<ViewTree> {
        let (trie, line, leaf) = merge_stacks(samples, keys)?;
        let order = depth_first(&trie.parent, &trie.key);
        let new_index = inverse_order(&order);
        let n = order.len();
        let mut tree = ViewTree {
            parent: order
                .iter()
                .map(|&old| new_index[trie.parent[old as usize] as usize])
                .collect(),
            key: order.iter().map(|&old| trie.key[old as usize]).collect(),
            line: order.iter().map(|&old| line[old as usize].max(0)).collect(),
            n_types: samples.n_types,
            leaf: leaf.iter().map(|&old| new_index[old as usize]).collect(),
            ..ViewTree::default()
        };
        let cells = samples.n_types * n;
        tree.self_pos = try_filled(cells, 0.0, "node values")?;
        tree.self_neg = try_filled(cells, 0.0, "node values")?;
        for t in 0..samples.n_types {
            for (i, &node) in tree.leaf.iter().enumerate() {
                let w = samples.weight(t, i);
                let cell = t * n + node as usize;
                if w > 0.0 {
                    tree.self_pos[cell] += w;
                } else if w < 0.0 {
                    tree.self_neg[cell] += w;
                }
            }
        }
        tree.total_pos = subtree_sums(&tree.parent, &tree.self_pos);
        tree.total_neg = subtree_sums(&tree.parent, &tree.self_neg);
        Ok(tree)
    }
}

/// The stacks merged into a trie (frames of key 0 left out), the line of each
/// node (`LINE_UNSEEN`, one line, or 0 when its frames have several) and the
/// node each sample ends at.
#[allow(
    clippy::indexing_slicing,
    reason = "line grows with the trie's nodes; frame is a position in the stack, which \
              stack_lines has a line for"
)]
fn merge_stacks(
    samples: &SampleSet,
    keys: &ViewKeys<'_>,
) -> Result<(PathTrie, Vec<i32>, Vec<u32>)> {
    if keys.location_key.len() != samples.n_locations
        || keys.location_line.len() != samples.n_locations
    {
        return Err(ProfileError::invalid(
            "locations",
            "(table)",
            None,
            "columns differ in length",
        ));
    }
    if let Some(row) = keys
        .location_key
        .iter()
        .position(|&k| k < 0 || k as usize > keys.n_keys)
    {
        return Err(ProfileError::invalid(
            "locations",
            "(key)",
            Some(row + 1),
            "frame key out of range",
        ));
    }
    let mut trie = PathTrie::new();
    let mut line = vec![0];
    let mut leaf = try_filled(samples.len(), 0u32, "samples")?;
    let (mut stack_keys, mut stack_lines) = (Vec::new(), Vec::new());
    for (i, leaf) in leaf.iter_mut().enumerate() {
        stack_keys.clear();
        stack_lines.clear();
        for &row in samples.stack(i) {
            let row = row as usize;
            let key = keys.location_key.get(row).copied().unwrap_or(0);
            if key != 0 {
                stack_keys.push(key as u32);
                stack_lines.push(keys.location_line.get(row).copied().unwrap_or(0));
            }
        }
        *leaf = trie.insert(&stack_keys, |node, frame| {
            if node >= line.len() {
                line.resize(node + 1, LINE_UNSEEN);
            }
            let frame_line = stack_lines[frame];
            if line[node] == LINE_UNSEEN {
                line[node] = frame_line;
            } else if line[node] != frame_line {
                line[node] = 0;
            }
        });
    }
    Ok((trie, line, leaf))
}

/// Per block of nodes (one per sample type), each node's value plus those of its
/// descendants; nodes in depth-first order, so children come after parents.
#[allow(
    clippy::indexing_slicing,
    reason = "parents of nodes are nodes (below n); a block has n values"
)]
fn subtree_sums(parent: &[u32], own: &[f64]) -> Vec<f64> {
    let n = parent.len();
    let mut sums = own.to_vec();
    if n == 0 {
        return sums;
    }
    for block in sums.chunks_mut(n) {
        for node in (1..n).rev() {
            let p = parent[node] as usize;
            block[p] += block[node];
        }
    }
    sums
}

/// The samples that have a time, in time order, as runs of consecutive samples
/// of one source whose stacks end at the same node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeRuns {
    pub leaf: Vec<u32>,
    /// Number of samples in the run.
    pub count: Vec<u32>,
    /// Time of the run's first sample.
    pub time: Vec<f64>,
    /// The source of the run, numbered 0, 1, ... in display order.
    pub source: Vec<u32>,
    /// Sum of the absolute values of the run's samples, at `type * n_runs + run`.
    pub weight: Vec<f64>,
}

impl TimeRuns {
    pub fn len(&self) -> usize {
        self.leaf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.leaf.is_empty()
    }

    /// The runs of `samples`, which end at the nodes of `tree`; None when no
    /// sample has a time.
    #[allow(
        clippy::indexing_slicing,
        reason = "i is below samples.len(), which the tree has a leaf for"
    )]
    pub fn build(samples: &SampleSet, tree: &ViewTree) -> Option<TimeRuns> {
        if !samples.has_time() {
            return None;
        }
        let mut runs = TimeRuns::default();
        let mut first_sample = Vec::new();
        let mut source_number = 0u32;
        let mut prev: Option<(i32, u32)> = None;
        for i in (0..samples.len()).filter(|&i| !samples.time[i].is_nan()) {
            let (source, leaf) = (samples.source[i], tree.leaf[i]);
            if let Some((prev_source, prev_leaf)) = prev {
                if prev_source == source && prev_leaf == leaf {
                    if let Some(count) = runs.count.last_mut() {
                        *count += 1;
                    }
                    continue;
                }
                if prev_source != source {
                    source_number += 1;
                }
            }
            prev = Some((source, leaf));
            first_sample.push(i);
            runs.leaf.push(leaf);
            runs.count.push(1);
            runs.time.push(samples.time[i]);
            runs.source.push(source_number);
        }
        for t in 0..samples.n_types {
            for (&first, &count) in first_sample.iter().zip(&runs.count) {
                // Samples of a run are consecutive among those with a time, and
                // those come before the untimed ones of their source.
                let w: f64 = (first..first + count as usize)
                    .map(|i| samples.weight(t, i).abs())
                    .sum();
                runs.weight.push(w);
            }
        }
        Some(runs)
    }
}

/// What the view shows besides numbers: the name and file of each key (index
/// `k - 1` for key `k`), the sample types with their units, which one to show
/// first (0-based), whether the profile is a diff, and a title.
#[derive(Debug, Clone, Copy)]
pub struct ViewLabels<'a> {
    pub key_name: &'a [String],
    pub key_file: &'a [String],
    pub type_name: &'a [String],
    pub type_unit: &'a [String],
    pub default_type: usize,
    pub diff: bool,
    pub title: &'a str,
}

/// The JSON text the browser view reads (`inst/htmlwidgets/lib/profile-view/`
/// decodes it; the format version is its `"format"`).
pub fn view_json(
    tree: &ViewTree,
    runs: Option<&TimeRuns>,
    labels: &ViewLabels<'_>,
) -> Result<String> {
    if labels.key_name.len() != labels.key_file.len()
        || labels.type_name.len() != labels.type_unit.len()
    {
        return Err(ProfileError::argument(
            "labels of keys or types differ in length",
        ));
    }
    let mut out = String::new();
    out.push_str("{\"format\":1,\"title\":");
    push_string(&mut out, labels.title);
    out.push_str(&format!(
        ",\"diff\":{},\"default_type\":{}",
        labels.diff, labels.default_type
    ));
    out.push_str(",\"types\":[");
    for (i, (name, unit)) in labels.type_name.iter().zip(labels.type_unit).enumerate() {
        out.push_str(if i == 0 { "{\"name\":" } else { ",{\"name\":" });
        push_string(&mut out, name);
        out.push_str(",\"unit\":");
        push_string(&mut out, unit);
        out.push('}');
    }
    out.push(']');
    push_keys(&mut out, labels);
    push_tree(&mut out, tree);
    out.push_str(",\"runs\":");
    match runs {
        Some(runs) => push_runs(&mut out, runs, tree.n_types),
        None => out.push_str("null"),
    }
    out.push('}');
    Ok(out)
}

/// `"strings"` (each distinct name and file once) and `"keys"`: the string of
/// each key's name and file.
fn push_keys<'a>(out: &mut String, labels: &ViewLabels<'a>) {
    let mut strings: Vec<&'a str> = Vec::new();
    let mut index: FxHashMap<&'a str, u32> = FxHashMap::default();
    let mut intern = |s: &'a str| -> f64 {
        let next = strings.len() as u32;
        let id = *index.entry(s).or_insert_with(|| {
            strings.push(s);
            next
        });
        f64::from(id)
    };
    let names: Vec<f64> = labels.key_name.iter().map(|s| intern(s.as_str())).collect();
    let files: Vec<f64> = labels.key_file.iter().map(|s| intern(s.as_str())).collect();
    out.push_str(",\"strings\":[");
    for (i, s) in strings.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_string(out, s);
    }
    out.push_str("],\"keys\":{\"name\":");
    push_typed_array(out, &names);
    out.push_str(",\"file\":");
    push_typed_array(out, &files);
    out.push('}');
}

/// `"tree"`: node columns, then per sample type the value columns.
fn push_tree(out: &mut String, tree: &ViewTree) {
    out.push_str(",\"tree\":{\"parent\":");
    push_typed_ints(out, &tree.parent);
    out.push_str(",\"key\":");
    push_typed_ints(out, &tree.key);
    out.push_str(",\"line\":");
    push_typed_ints(out, &tree.line);
    out.push_str(",\"values\":");
    let n = tree.len();
    push_per_type(out, tree.n_types, |out, t| {
        let block = |v: &Vec<f64>| v.get(t * n..(t + 1) * n).unwrap_or(&[]).to_vec();
        for (i, (name, column)) in [
            ("total_pos", &tree.total_pos),
            ("total_neg", &tree.total_neg),
            ("self_pos", &tree.self_pos),
            ("self_neg", &tree.self_neg),
        ]
        .into_iter()
        .enumerate()
        {
            out.push_str(if i == 0 { "{\"" } else { ",\"" });
            out.push_str(name);
            out.push_str("\":");
            push_typed_array(out, &block(column));
        }
        out.push('}');
    });
    out.push('}');
}

/// A JSON array of one element per sample type, each written by `push_one`.
fn push_per_type(out: &mut String, n_types: usize, mut push_one: impl FnMut(&mut String, usize)) {
    out.push('[');
    for t in 0..n_types {
        if t > 0 {
            out.push(',');
        }
        push_one(out, t);
    }
    out.push(']');
}

/// `"runs"`: run columns, then per sample type the runs' weights.
fn push_runs(out: &mut String, runs: &TimeRuns, n_types: usize) {
    out.push_str("{\"leaf\":");
    push_typed_ints(out, &runs.leaf);
    out.push_str(",\"count\":");
    push_typed_ints(out, &runs.count);
    out.push_str(",\"time\":");
    push_stepped_array(out, &runs.time);
    out.push_str(",\"source\":");
    push_typed_ints(out, &runs.source);
    out.push_str(",\"weight\":");
    let n = runs.len();
    push_per_type(out, n_types, |out, t| {
        push_typed_array(out, runs.weight.get(t * n..(t + 1) * n).unwrap_or(&[]))
    });
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample_set::tests::Columns;
    use pretty_assertions::assert_eq;
    use proptest::prelude::*;

    /// Locations 1..=4 are keys 1..=4 (4 = "main"), with lines 10, 20, 30, 40;
    /// location 5 is key 1 at line 11.
    fn keys() -> (Vec<i32>, Vec<i32>) {
        (vec![1, 2, 3, 4, 1], vec![10, 20, 30, 40, 11])
    }

    fn view_of(c: &Columns, with_time: bool) -> (SampleSet, ViewTree) {
        let set = SampleSet::build(&c.input(with_time)).unwrap();
        let (key, line) = keys();
        let tree = ViewTree::build(
            &set,
            &ViewKeys {
                location_key: &key,
                location_line: &line,
                n_keys: 4,
            },
        )
        .unwrap();
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
        assert_eq!(&tree.total_pos[..n], &[8.0, 8.0, 3.0, 1.0]);
        assert_eq!(&tree.total_neg[..n], &[-2.0, -2.0, -2.0, 0.0]);
        assert_eq!(&tree.self_pos[n..], &[0.0, 40.0, 30.0, 0.0]);
        assert_eq!(&tree.self_neg[n..], &[0.0, 0.0, -20.0, 0.0]);
        assert_eq!(tree.leaf, vec![2, 3, 1, 2]);
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
        assert_eq!(runs.weight, vec![3.0, 1.0, 1.0, 1.0]);
        let (set, tree) = view_of(&c, false);
        assert_eq!(TimeRuns::build(&set, &tree), None);
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
        };
        let json = view_json(&tree, runs.as_ref(), &labels).unwrap();
        assert!(json.starts_with(
            r#"{"format":1,"title":"\u003c/script\u003e","diff":false,"default_type":0,"types":[{"name":"samples","unit":"count"}],"strings":["f","g","h","main","a.R",""],"keys":{"name":{"type":"u8","length":4,"base64":"AAECAw=="},"file":{"type":"u8","length":4,"base64":"BAUFBA=="}},"tree":{"parent":"#
        ));
        assert!(json.contains(r#""total_neg":{"const":0,"length":3}"#));
        assert!(json.contains(r#""runs":{"leaf":{"type":"u8","length":2,"base64":"AgE="},"count":{"const":1,"length":2}"#));
        let no_runs = view_json(&tree, None, &labels).unwrap();
        assert!(no_runs.ends_with(r#""runs":null}"#));
    }

    #[test]
    fn bad_keys_are_errors() {
        let c = Columns::of(&[(1, 0.0, vec![1], vec![1.0])], 1);
        let set = SampleSet::build(&c.input(false)).unwrap();
        let bad = ViewKeys {
            location_key: &[2],
            location_line: &[0],
            n_keys: 1,
        };
        assert_eq!(ViewTree::build(&set, &bad).unwrap_err().kind(), "invalid");
        let ragged = ViewKeys {
            location_key: &[1],
            location_line: &[],
            n_keys: 1,
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
        /// starts with the node's path, per type and sign; runs cover every timed
        /// sample's absolute weight once.
        #[test]
        fn view_agrees_with_direct_count(samples in arb_samples()) {
            let c = Columns::of(&samples, 5);
            let (set, tree) = view_of(&c, true);
            let (key_of, _) = keys();
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
                    prop_assert_eq!(tree.total_pos[t * n + node], pos);
                    prop_assert_eq!(tree.total_neg[t * n + node], neg);
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
}
