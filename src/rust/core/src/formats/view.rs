//! The data of the browser view (`profile_view()`): the merged call tree with the
//! values of every sample type at once, the values of each source line, and the
//! samples in time order as runs of equal stacks, written as one JSON text whose
//! number columns are typed arrays (see [`crate::io::json`]).
//!
//! Values are kept apart by sign: a diff profile holds the base's samples with
//! negated values, so a node's positive part is what the profile has and its
//! negative part what the base has; their sum is the difference, their absolute
//! sum the width a view gives the node.
//!
//! The sources (one lane each in the time order, and the values of each
//! alone) are in [`sources`].
//!
//! Longer than the house's 600 lines: the tree, the line values and the time
//! runs are written into one JSON text and share its key tables; apart, each
//! piece would need the others' indexes passed in.

use crate::error::{ProfileError, Result};
use crate::io::json::{push_stepped_array, push_string, push_typed_array, push_typed_ints};
use crate::ops::sample_set::{try_filled, SampleSet};
use crate::ops::summary::{depth_first, inverse_order, PathTrie};
use rustc_hash::{FxHashMap, FxHashSet};

mod defining;
mod heap;
mod sources;
pub use defining::{defining_files, DefiningInput};
pub use heap::{heap_lines, HeapInput, HeapLines};
pub use sources::{SourceSums, ViewSources};

/// How frames are grouped into the tree's nodes and into source lines: the key
/// of each location row (`0..=n_keys`, 0 leaves the frame out of the tree), its
/// line (0 unknown), and its line key (`0..=n_line_keys`: a distinct file and
/// line, 0 for a frame without a known line).
#[derive(Debug, Clone, Copy)]
pub struct ViewKeys<'a> {
    pub location_key: &'a [i32],
    pub location_line: &'a [i32],
    pub n_keys: usize,
    pub location_line_key: &'a [i32],
    pub n_line_keys: usize,
}

/// Sums of the positive and of the negative values of samples, per sample type
/// and item (a node of the tree or a line), at `type * n_items + item`: `total`
/// counts the samples whose stacks pass through the item (once per sample),
/// `self` those whose stacks end at it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SignedSums {
    pub total_pos: Vec<f64>,
    pub total_neg: Vec<f64>,
    pub self_pos: Vec<f64>,
    pub self_neg: Vec<f64>,
}

impl SignedSums {
    fn zeros(cells: usize, what: &str) -> Result<SignedSums> {
        Ok(SignedSums {
            total_pos: try_filled(cells, 0.0, what)?,
            total_neg: try_filled(cells, 0.0, what)?,
            self_pos: try_filled(cells, 0.0, what)?,
            self_neg: try_filled(cells, 0.0, what)?,
        })
    }

    /// Adds `w` to the self (or total) sums of `cell`, on the side of its sign.
    fn add(&mut self, total: bool, cell: usize, w: f64) {
        let column = match (total, w > 0.0) {
            (true, true) => &mut self.total_pos,
            (true, false) => &mut self.total_neg,
            (false, true) => &mut self.self_pos,
            (false, false) => &mut self.self_neg,
        };
        if let Some(x) = column.get_mut(cell) {
            *x += w;
        }
    }
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
    pub values: SignedSums,
    /// The node each sample's stack ends at, by position in the sample set.
    pub leaf: Vec<u32>,
    /// The line keys of the frames of each node: pairs (node, line key), by
    /// node, then by key; nodes whose frames have no known line have none.
    pub node_line_node: Vec<u32>,
    pub node_line_key: Vec<u32>,
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

    pub fn build(samples: &SampleSet, keys: &ViewKeys<'_>) -> Result<ViewTree> {
        let merged = merge_stacks(samples, keys)?;
        let trie = &merged.trie;
        let order = depth_first(&trie.parent, &trie.key);
        let new_index = inverse_order(&order);
        let renumber = |old: u32| new_index.get(old as usize).copied().unwrap_or(0);
        let n = order.len();
        let at = |column: &[u32], old: u32| column.get(old as usize).copied().unwrap_or(0);
        let mut tree = ViewTree {
            parent: order
                .iter()
                .map(|&old| renumber(at(&trie.parent, old)))
                .collect(),
            key: order.iter().map(|&old| at(&trie.key, old)).collect(),
            line: order
                .iter()
                .map(|&old| merged.line.get(old as usize).map_or(0, |&l| l.max(0)))
                .collect(),
            n_types: samples.n_types,
            leaf: merged.leaf.iter().map(|&old| renumber(old)).collect(),
            ..ViewTree::default()
        };
        let mut pairs: Vec<(u32, u32)> = merged
            .first_line_key
            .iter()
            .enumerate()
            .filter(|&(_, &k)| k > 0)
            .map(|(old, &k)| (renumber(old as u32), k))
            .chain(
                merged
                    .more_line_keys
                    .iter()
                    .map(|&(old, k)| (renumber(old), k)),
            )
            .collect();
        pairs.sort_unstable();
        (tree.node_line_node, tree.node_line_key) = pairs.into_iter().unzip();
        tree.values = SignedSums::zeros(samples.n_types * n, "node values")?;
        for t in 0..samples.n_types {
            for (i, &node) in tree.leaf.iter().enumerate() {
                let w = samples.weight(t, i);
                if w != 0.0 {
                    tree.values.add(false, t * n + node as usize, w);
                }
            }
        }
        tree.values.total_pos = subtree_sums(&tree.parent, &tree.values.self_pos);
        tree.values.total_neg = subtree_sums(&tree.parent, &tree.values.self_neg);
        Ok(tree)
    }
}

/// The stacks merged into a trie (frames of key 0 left out), with what each
/// trie node saw of its frames' lines and the node each sample ends at.
struct Merged {
    trie: PathTrie,
    /// `LINE_UNSEEN`, the one line of the node's frames, or 0 when they have
    /// several.
    line: Vec<i32>,
    /// The line key of the node's first frame with one (0: none yet), and the
    /// other line keys of its frames.
    first_line_key: Vec<u32>,
    more_line_keys: FxHashSet<(u32, u32)>,
    leaf: Vec<u32>,
}

fn check_keys(samples: &SampleSet, keys: &ViewKeys<'_>) -> Result<()> {
    let n = samples.n_locations;
    if keys.location_key.len() != n
        || keys.location_line.len() != n
        || keys.location_line_key.len() != n
    {
        return Err(ProfileError::invalid(
            "locations",
            "(table)",
            None,
            "columns differ in length",
        ));
    }
    let out_of_range = |column: &[i32], max: usize| {
        column
            .iter()
            .position(|&k| k < 0 || k as usize > max)
            .map(|row| {
                ProfileError::invalid("locations", "(key)", Some(row + 1), "key out of range")
            })
    };
    match out_of_range(keys.location_key, keys.n_keys)
        .or_else(|| out_of_range(keys.location_line_key, keys.n_line_keys))
    {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn merge_stacks(samples: &SampleSet, keys: &ViewKeys<'_>) -> Result<Merged> {
    check_keys(samples, keys)?;
    let mut merged = Merged {
        trie: PathTrie::new(),
        line: vec![0],
        first_line_key: vec![0],
        more_line_keys: FxHashSet::default(),
        leaf: try_filled(samples.len(), 0u32, "samples")?,
    };
    // Per frame of the stack kept: its key, line and line key.
    let mut stack: Vec<(u32, i32, u32)> = Vec::new();
    let mut stack_keys: Vec<u32> = Vec::new();
    let mut last_other = (0u32, 0u32);
    for i in 0..samples.len() {
        stack.clear();
        for &row in samples.stack(i) {
            let row = row as usize;
            let key = keys.location_key.get(row).copied().unwrap_or(0);
            if key != 0 {
                stack.push((
                    key as u32,
                    keys.location_line.get(row).copied().unwrap_or(0),
                    keys.location_line_key.get(row).copied().unwrap_or(0) as u32,
                ));
            }
        }
        stack_keys.clear();
        stack_keys.extend(stack.iter().map(|f| f.0));
        let Merged {
            trie,
            line,
            first_line_key,
            more_line_keys,
            ..
        } = &mut merged;
        let leaf = trie.insert(&stack_keys, |node, frame| {
            if node >= line.len() {
                line.resize(node + 1, LINE_UNSEEN);
                first_line_key.resize(node + 1, 0);
            }
            let (_, frame_line, line_key) = stack.get(frame).copied().unwrap_or((0, 0, 0));
            if let Some(l) = line.get_mut(node) {
                if *l == LINE_UNSEEN {
                    *l = frame_line;
                } else if *l != frame_line {
                    *l = 0;
                }
            }
            if line_key > 0 {
                if let Some(first) = first_line_key.get_mut(node) {
                    if *first == 0 {
                        *first = line_key;
                    } else if *first != line_key && last_other != (node as u32, line_key) {
                        // (the last pair inserted is not hashed again)
                        last_other = (node as u32, line_key);
                        more_line_keys.insert(last_other);
                    }
                }
            }
        });
        if let Some(l) = merged.leaf.get_mut(i) {
            *l = leaf;
        }
    }
    Ok(merged)
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
        for (node, &p) in parent.iter().enumerate().skip(1).rev() {
            let value = block.get(node).copied().unwrap_or(0.0);
            if let Some(sum) = block.get_mut(p as usize) {
                *sum += value;
            }
        }
    }
    sums
}

/// The values of each source line (a line key of [`ViewKeys`]), per sample
/// type: `total` counts the samples with a frame at the line (once per
/// sample), `self` those whose innermost frame with a known line is at it (the
/// line of your code that was running, as `summaryRprof(lines = "show")` and
/// `profile_summary(by = "line")` count it).
pub fn line_values(samples: &SampleSet, keys: &ViewKeys<'_>) -> Result<SignedSums> {
    check_keys(samples, keys)?;
    let n = keys.n_line_keys;
    let mut sums = SignedSums::zeros(samples.n_types * n, "line values")?;
    // The last sample (position + 1) that counted each line key.
    let mut counted = try_filled(n + 1, 0usize, "line keys")?;
    let mut lines: Vec<usize> = Vec::new();
    for i in 0..samples.len() {
        lines.clear();
        for &row in samples.stack(i) {
            let k = keys
                .location_line_key
                .get(row as usize)
                .copied()
                .unwrap_or(0) as usize;
            if k == 0 {
                continue;
            }
            if let Some(last) = counted.get_mut(k) {
                if *last != i + 1 {
                    *last = i + 1;
                    lines.push(k - 1);
                }
            }
        }
        for t in 0..samples.n_types {
            let w = samples.weight(t, i);
            if w == 0.0 {
                continue;
            }
            if let Some(&innermost) = lines.first() {
                sums.add(false, t * n + innermost, w);
            }
            for &k in &lines {
                sums.add(true, t * n + k, w);
            }
        }
    }
    Ok(sums)
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
    /// The source id of each number of `source`.
    pub source_id: Vec<i32>,
    /// Sum of the absolute values of the run's samples, at `type * n_runs + run`.
    pub weight: Vec<f64>,
    /// Per source (by number): the time a sample stands for, in seconds: the
    /// smallest positive difference of the times of its consecutive samples
    /// (Rprof's interval), else that of all sources, else 1.
    pub step: Vec<f64>,
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
        let mut prev: Option<(i32, u32, f64)> = None;
        let mut step = f64::INFINITY;
        let timed = || {
            (samples.time.iter().zip(&samples.source).zip(&tree.leaf))
                .enumerate()
                .filter(|(_, ((time, _), _))| !time.is_nan())
        };
        // each source's step first: a gap of more than one and a half steps
        // (a wait of the process, drawn where it happened: R/view-waits.R)
        // ends a run
        let steps = source_steps(timed().map(|(_, ((&time, &source), _))| (source, time)));
        for (i, ((&time, &source), &leaf)) in timed() {
            if let Some((prev_source, prev_leaf, prev_time)) = prev {
                if prev_source == source && time > prev_time {
                    step = step.min(time - prev_time);
                }
                if prev_source != source {
                    runs.step.push(step);
                    runs.source_id.push(prev_source);
                    step = f64::INFINITY;
                    source_number += 1;
                }
                let gap = steps
                    .get(source_number as usize)
                    .is_some_and(|&s| time - prev_time > 1.5 * s);
                if prev_source == source && prev_leaf == leaf && !gap {
                    prev = Some((source, leaf, time));
                    if let Some(count) = runs.count.last_mut() {
                        *count += 1;
                    }
                    continue;
                }
            }
            prev = Some((source, leaf, time));
            first_sample.push(i);
            runs.leaf.push(leaf);
            runs.count.push(1);
            runs.time.push(time);
            runs.source.push(source_number);
        }
        runs.step.push(step);
        if let Some(&(last_source, _, _)) = prev.as_ref() {
            runs.source_id.push(last_source);
        }
        let known = runs
            .step
            .iter()
            .copied()
            .filter(|s| s.is_finite())
            .fold(f64::INFINITY, f64::min);
        let fallback = if known.is_finite() { known } else { 1.0 };
        for s in runs.step.iter_mut().filter(|s| !s.is_finite()) {
            *s = fallback;
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

/// Per group of consecutive samples of one source (in `(source, time)`
/// order), the smallest positive difference of consecutive times (infinite
/// when there is none).
fn source_steps(timed: impl Iterator<Item = (i32, f64)>) -> Vec<f64> {
    let mut steps = Vec::new();
    let mut prev: Option<(i32, f64)> = None;
    for (source, time) in timed {
        match prev {
            Some((prev_source, prev_time)) if prev_source == source => {
                if let Some(step) = steps.last_mut() {
                    if time > prev_time {
                        *step = f64::min(*step, time - prev_time);
                    }
                }
            }
            _ => steps.push(f64::INFINITY),
        }
        prev = Some((source, time));
    }
    steps
}

/// The source files of the lines: each line key's file (index into
/// `file_name`, 0-based) and line number, and each file's name and text
/// (`None`: the profile has none; line `l` is element `l - 1`).
#[derive(Debug, Clone, Copy)]
pub struct ViewLines<'a> {
    pub line_file: &'a [u32],
    pub line_number: &'a [i32],
    pub file_name: &'a [String],
    pub file_text: &'a [Option<Vec<String>>],
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
    pub sources: ViewSources<'a>,
}

/// Everything [`view_json`] writes.
#[derive(Debug, Clone, Copy)]
pub struct ViewData<'a> {
    pub tree: &'a ViewTree,
    pub runs: Option<&'a TimeRuns>,
    pub line_values: &'a SignedSums,
    pub lines: ViewLines<'a>,
    pub labels: ViewLabels<'a>,
    /// The self values of each source's samples (None: one source).
    pub by_source: Option<&'a SourceSums>,
}

/// The JSON text the browser view reads (`inst/htmlwidgets/lib/profile-view/`
/// decodes it; the format version is its `"format"`).
pub fn view_json(data: &ViewData<'_>) -> Result<String> {
    let labels = &data.labels;
    let lines = &data.lines;
    if labels.key_name.len() != labels.key_file.len()
        || labels.type_name.len() != labels.type_unit.len()
        || lines.line_file.len() != lines.line_number.len()
        || lines.file_name.len() != lines.file_text.len()
        || !labels.sources.agree()
    {
        return Err(ProfileError::argument(
            "labels of keys, types, lines or files differ in length",
        ));
    }
    let mut out = String::new();
    out.push_str("{\"format\":2,\"title\":");
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
    push_tree(&mut out, data.tree);
    push_lines(&mut out, data.tree, data.line_values, lines);
    out.push_str(",\"runs\":");
    match data.runs {
        Some(runs) => push_runs(&mut out, runs, data.tree.n_types),
        None => out.push_str("null"),
    }
    sources::push_sources(&mut out, &labels.sources, data.by_source, data.tree.n_types);
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

/// Per sample type, an object of the four value columns of `sums` (blocks of
/// `n` items).
fn push_sums(out: &mut String, sums: &SignedSums, n_types: usize, n: usize) {
    push_per_type(out, n_types, |out, t| {
        let block = |v: &Vec<f64>| v.get(t * n..(t + 1) * n).unwrap_or(&[]).to_vec();
        for (i, (name, column)) in [
            ("total_pos", &sums.total_pos),
            ("total_neg", &sums.total_neg),
            ("self_pos", &sums.self_pos),
            ("self_neg", &sums.self_neg),
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
    push_sums(out, &tree.values, tree.n_types, tree.len());
    out.push('}');
}

/// `"lines"`: each line key's file and number and per sample type its values,
/// the (node, line key) pairs (line keys 0-based), and `"files"`: each file's
/// name and text (null when the profile has none).
fn push_lines(out: &mut String, tree: &ViewTree, sums: &SignedSums, lines: &ViewLines<'_>) {
    out.push_str(",\"lines\":{\"file\":");
    push_typed_ints(out, lines.line_file);
    out.push_str(",\"line\":");
    push_typed_ints(out, lines.line_number);
    out.push_str(",\"values\":");
    push_sums(out, sums, tree.n_types, lines.line_file.len());
    out.push_str(",\"node\":");
    push_typed_ints(out, &tree.node_line_node);
    out.push_str(",\"key\":");
    let keys: Vec<u32> = tree
        .node_line_key
        .iter()
        .map(|&k| k.saturating_sub(1))
        .collect();
    push_typed_ints(out, &keys);
    out.push_str("},\"files\":[");
    for (i, (name, text)) in lines.file_name.iter().zip(lines.file_text).enumerate() {
        out.push_str(if i == 0 { "{\"name\":" } else { ",{\"name\":" });
        push_string(out, name);
        out.push_str(",\"text\":");
        match text {
            Some(text) => {
                out.push('[');
                for (j, line) in text.iter().enumerate() {
                    if j > 0 {
                        out.push(',');
                    }
                    push_string(out, line);
                }
                out.push(']');
            }
            None => out.push_str("null"),
        }
        out.push('}');
    }
    out.push(']');
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

/// `"runs"`: run columns, then per sample type the runs' weights, and each
/// source's step.
fn push_runs(out: &mut String, runs: &TimeRuns, n_types: usize) {
    out.push_str("{\"leaf\":");
    push_typed_ints(out, &runs.leaf);
    out.push_str(",\"count\":");
    push_typed_ints(out, &runs.count);
    out.push_str(",\"time\":");
    push_stepped_array(out, &runs.time);
    out.push_str(",\"source\":");
    push_typed_ints(out, &runs.source);
    out.push_str(",\"source_id\":");
    push_typed_ints(out, &runs.source_id);
    out.push_str(",\"step\":");
    push_typed_array(out, &runs.step);
    out.push_str(",\"weight\":");
    let n = runs.len();
    push_per_type(out, n_types, |out, t| {
        push_typed_array(out, runs.weight.get(t * n..(t + 1) * n).unwrap_or(&[]))
    });
    out.push('}');
}

#[cfg(test)]
mod tests;
