//! Looking at a profile: the self and total value of each frame key (a function,
//! a location or a source file, as the caller groups frames), and the call tree
//! that flame graphs and folded stacks are drawn from.
//!
//! The input is the long form of the v2 tables: stack rows as in
//! `sample_locations`, a key per location, and one value per sample (the chosen
//! sample type). Keys are codes `1..=n_keys` chosen by the caller (0 leaves a frame
//! out, as if it were not on the stack); the call tree
//! orders siblings by key code, so a caller that numbers keys in label order gets
//! alphabetical flame graphs and sorted folded output.

use crate::error::{ProfileError, Result};
use crate::id_index::IdIndex;
use rustc_hash::FxHashMap;

/// The columns a summary or call tree is computed from.
#[derive(Debug, Clone, Copy)]
pub struct StackInput<'a> {
    /// `sample_locations.sample_id`.
    pub sample_id: &'a [i32],
    /// `sample_locations.depth` (1 = innermost).
    pub depth: &'a [i32],
    /// `sample_locations.location_id`.
    pub location_id: &'a [i32],
    /// `locations.location_id`, with the key of each location in `location_key`.
    pub locations: &'a [i32],
    pub location_key: &'a [i32],
    /// Number of keys; every key is in `0..=n_keys`, and frames whose location has
    /// key 0 are left out of the stacks.
    pub n_keys: usize,
    /// The samples that have a value of the chosen type, and that value.
    pub value_sample_id: &'a [i32],
    pub value: &'a [f64],
}

/// Weighted stacks, one per sample that has a value: the frame keys of sample
/// `i` (innermost first) and its weight.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stacks {
    frames: SampleFrames,
    pub weight: Vec<f64>,
    pub n_keys: usize,
}

fn invalid(table: &str, column: &str, row: usize, message: impl Into<String>) -> ProfileError {
    ProfileError::invalid(table, column, Some(row + 1), message)
}

impl Stacks {
    /// Gathers the stacks of the samples in `input.value_sample_id` (in that order).
    /// Stack rows of samples without a value are ignored. Depths must run 1..n per
    /// sample; rows may come in any order.
    pub fn build(input: &StackInput<'_>) -> Result<Stacks> {
        check_lengths(input)?;
        let sample_index = IdIndex::try_unique_rows(
            input.value_sample_id,
            |row, _| match input.value.get(row) {
                Some(v) if v.is_nan() => Err(invalid("sample_values", "value", row, "is NA")),
                _ => Ok(()),
            },
            |row, sid| {
                invalid(
                    "sample_values",
                    "sample_id",
                    row,
                    format!("sample {sid} has two values of the chosen type"),
                )
            },
        )?;
        let key_of_location = location_keys(input)?;
        let frames = SampleFrames::gather(
            input.sample_id,
            input.depth,
            input.location_id,
            &sample_index,
            input.value_sample_id.len(),
            |lid| key_of_location.get(lid),
        )?;
        let mut stacks = Stacks {
            frames,
            weight: input.value.to_vec(),
            n_keys: input.n_keys,
        };
        if stacks.frames.frames.contains(&0) {
            stacks.frames.retain(|key| key != 0);
        }
        Ok(stacks)
    }

    pub fn len(&self) -> usize {
        self.weight.len()
    }

    pub fn is_empty(&self) -> bool {
        self.weight.is_empty()
    }

    /// Keys of sample `i`, innermost first.
    pub fn stack(&self, i: usize) -> &[u32] {
        self.frames.of(i)
    }

    /// The sum of all weights, stacks or not.
    pub fn grand_total(&self) -> f64 {
        self.weight.iter().sum()
    }
}

/// The columns of `input` that make one table have the same length, and the
/// keys can be numbered.
fn check_lengths(input: &StackInput<'_>) -> Result<()> {
    let same_length = [
        (
            "sample_values",
            input.value_sample_id.len() == input.value.len(),
        ),
        (
            "sample_locations",
            input.sample_id.len() == input.depth.len()
                && input.sample_id.len() == input.location_id.len(),
        ),
        (
            "locations",
            input.locations.len() == input.location_key.len(),
        ),
    ];
    if let Some((table, _)) = same_length.iter().find(|(_, ok)| !ok) {
        return Err(ProfileError::invalid(
            table,
            "(table)",
            None,
            "columns differ in length",
        ));
    }
    if input.n_keys >= u32::MAX as usize {
        return Err(ProfileError::limit("too many frame keys"));
    }
    Ok(())
}

/// The key of each location id (of the last row with that id), each key checked
/// to be in `0..=n_keys`.
fn location_keys(input: &StackInput<'_>) -> Result<IdIndex> {
    let mut key_of_location = IdIndex::try_for_ids(input.locations)?;
    for (row, (&lid, &key)) in input.locations.iter().zip(input.location_key).enumerate() {
        let key = u32::try_from(key)
            .ok()
            .filter(|&k| k as usize <= input.n_keys)
            .ok_or_else(|| invalid("locations", "(key)", row, "frame key out of range"))?;
        key_of_location.insert(lid, key);
    }
    Ok(key_of_location)
}

/// The frames of samples, innermost first, in compressed rows: the frames of
/// sample `i` are `frames[offsets[i]..offsets[i + 1]]`. A frame is whatever the
/// caller numbers locations by (a key for summaries, a row of `locations` for the
/// pprof writer).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SampleFrames {
    offsets: Vec<usize>,
    frames: Vec<u32>,
}

impl SampleFrames {
    /// Places the stack rows (`sample_locations` columns) sample by sample: the
    /// sample of a row is its position in `samples` (rows of samples not in it are
    /// left out), the frame the number `frame_of` gives its location. A counting
    /// pass, then each row goes straight to its slot: O(rows), no sort. Depths
    /// must run 1..n per sample.
    pub(crate) fn gather(
        sample_id: &[i32],
        depth: &[i32],
        location_id: &[i32],
        samples: &IdIndex,
        n_samples: usize,
        frame_of: impl Fn(i32) -> Option<u32>,
    ) -> Result<SampleFrames> {
        let (offsets, row_sample) = Self::count(sample_id, samples, n_samples);
        const UNSET: u32 = u32::MAX;
        let mut frames = vec![UNSET; offsets.last().copied().unwrap_or(0)];
        let rows = row_sample.iter().zip(depth).zip(location_id).enumerate();
        for (row, ((s, &depth), &lid)) in rows {
            let Some(s) = *s else { continue };
            let s = s as usize;
            let (start, end) = (offsets[s], offsets[s + 1]);
            let slot = usize::try_from(depth)
                .ok()
                .filter(|d| (1..=end - start).contains(d))
                .map(|d| start + d - 1)
                .ok_or_else(|| {
                    invalid(
                        "sample_locations",
                        "depth",
                        row,
                        "the depths of a sample must run 1..n",
                    )
                })?;
            if frames[slot] != UNSET {
                return Err(invalid(
                    "sample_locations",
                    "depth",
                    row,
                    "depth repeated within a sample",
                ));
            }
            frames[slot] = frame_of(lid).ok_or_else(|| {
                invalid(
                    "sample_locations",
                    "location_id",
                    row,
                    format!("location {lid} is not in locations"),
                )
            })?;
        }
        Ok(SampleFrames { offsets, frames })
    }

    /// The start of each sample's frames (and the end of the last), and the
    /// sample of each row.
    fn count(
        sample_id: &[i32],
        samples: &IdIndex,
        n_samples: usize,
    ) -> (Vec<usize>, Vec<Option<u32>>) {
        let mut counts = vec![0usize; n_samples];
        let mut row_sample = Vec::with_capacity(sample_id.len());
        // Rows of a sample usually come together: look each sample up once.
        let mut last: Option<(i32, Option<u32>)> = None;
        for &sid in sample_id {
            let s = match last {
                Some((id, s)) if id == sid => s,
                _ => {
                    let s = samples.get(sid);
                    last = Some((sid, s));
                    s
                }
            };
            if let Some(c) = s.and_then(|s| counts.get_mut(s as usize)) {
                *c += 1;
            }
            row_sample.push(s);
        }
        let mut offsets = Vec::with_capacity(n_samples + 1);
        let mut total = 0usize;
        offsets.push(0);
        for &c in &counts {
            total += c;
            offsets.push(total);
        }
        (offsets, row_sample)
    }

    /// Frames of sample `i`, innermost first.
    pub(crate) fn of(&self, i: usize) -> &[u32] {
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => self.frames.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Keeps the frames for which `keep` is true, in their order.
    fn retain(&mut self, keep: impl Fn(u32) -> bool) {
        let mut kept = Vec::with_capacity(self.frames.len());
        let mut offsets = Vec::with_capacity(self.offsets.len());
        offsets.push(0);
        for i in 0..self.offsets.len().saturating_sub(1) {
            kept.extend(self.of(i).iter().copied().filter(|&f| keep(f)));
            offsets.push(kept.len());
        }
        self.frames = kept;
        self.offsets = offsets;
    }
}

/// Self and total value per key (index `k - 1` for key `k`).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyTotals {
    /// Value of samples whose innermost frame has the key.
    pub self_value: Vec<f64>,
    /// Value of samples with the key anywhere in the stack, once per sample however
    /// often it recurs (as `go tool pprof` and `summaryRprof()` count).
    pub total: Vec<f64>,
    /// Value of all samples, including those without frames.
    pub grand_total: f64,
}

pub fn key_totals(stacks: &Stacks) -> KeyTotals {
    let n = stacks.n_keys;
    let mut self_value = vec![0.0; n];
    let mut total = vec![0.0; n];
    // last_seen[k] = 1 + the sample that last added to total[k]: counts recursion once.
    let mut last_seen = vec![0usize; n];
    for i in 0..stacks.len() {
        let w = stacks.weight[i];
        let stack = stacks.stack(i);
        if let Some(&innermost) = stack.first() {
            self_value[innermost as usize - 1] += w;
        }
        for &k in stack {
            let k = k as usize - 1;
            if last_seen[k] != i + 1 {
                last_seen[k] = i + 1;
                total[k] += w;
            }
        }
    }
    KeyTotals {
        self_value,
        total,
        grand_total: stacks.grand_total(),
    }
}

/// The merged call tree (root first), in depth-first order with siblings ordered by
/// key. Node 0 is the root: it has no key (0) and holds the grand total; its self
/// value is the value of samples without frames.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallTree {
    /// Index of the parent node (the root is its own parent).
    pub parent: Vec<u32>,
    pub key: Vec<u32>,
    /// 0 for the root, 1 for outermost frames, ...
    pub depth: Vec<u32>,
    /// Value of the samples whose stacks pass through the node.
    pub total: Vec<f64>,
    /// Value of the samples whose stacks end at the node.
    pub self_value: Vec<f64>,
    /// Sum of the totals of the node's earlier siblings and its ancestors' earlier
    /// siblings: where the node starts on a flame graph's axis.
    pub start: Vec<f64>,
}

impl CallTree {
    pub fn len(&self) -> usize {
        self.key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.key.is_empty()
    }

    /// Merges the stacks. Samples with a zero value are left out, so nodes reached
    /// only by them do not appear.
    pub fn build(stacks: &Stacks) -> CallTree {
        let mut trie = PathTrie::new();
        let mut total: Vec<f64> = vec![0.0];
        let mut self_value: Vec<f64> = vec![0.0];
        for i in 0..stacks.len() {
            let w = stacks.weight[i];
            if w == 0.0 {
                continue;
            }
            total[0] += w;
            let leaf = trie.insert(stacks.stack(i), |node, _| {
                if node >= total.len() {
                    total.resize(node + 1, 0.0);
                    self_value.resize(node + 1, 0.0);
                }
                total[node] += w;
            });
            self_value[leaf as usize] += w;
        }
        order_depth_first(&trie.parent, &trie.key, &total, &self_value)
    }
}

/// Stacks merged into a tree of paths: node 0 is the root (key 0), and each
/// other node is a frame key reached from its parent. Nodes are numbered in order
/// of creation, so a parent always comes before its children.
#[derive(Debug, Clone)]
pub(crate) struct PathTrie {
    pub(crate) parent: Vec<u32>,
    pub(crate) key: Vec<u32>,
    child: FxHashMap<(u32, u32), u32>,
    // The previous stack's path (root first), reused while the stacks agree:
    // consecutive samples usually share most of their frames.
    prev_keys: Vec<u32>,
    prev_nodes: Vec<u32>,
}

impl PathTrie {
    pub(crate) fn new() -> PathTrie {
        PathTrie {
            parent: vec![0],
            key: vec![0],
            child: FxHashMap::default(),
            prev_keys: Vec::new(),
            prev_nodes: Vec::new(),
        }
    }

    /// The node of a stack (keys innermost first), created with the ancestors it
    /// lacks; the root for an empty stack. `visit(node, i)` is called for each
    /// frame on the path, root first, with the frame's position `i` in `stack`.
    pub(crate) fn insert(&mut self, stack: &[u32], mut visit: impl FnMut(usize, usize)) -> u32 {
        let mut node = 0u32;
        let mut shared = 0;
        for (d, &k) in stack.iter().rev().enumerate() {
            if shared == d && self.prev_keys.get(d) == Some(&k) {
                shared += 1;
                node = self.prev_nodes[d];
            } else {
                let next = self.parent.len() as u32;
                let (parent, key) = (&mut self.parent, &mut self.key);
                node = *self.child.entry((node, k)).or_insert_with(|| {
                    parent.push(node);
                    key.push(k);
                    next
                });
                self.prev_keys.truncate(d);
                self.prev_nodes.truncate(d);
                self.prev_keys.push(k);
                self.prev_nodes.push(node);
            }
            visit(node as usize, stack.len() - 1 - d);
        }
        self.prev_keys.truncate(stack.len());
        self.prev_nodes.truncate(stack.len());
        node
    }
}

/// The nodes of a tree whose parents come before their children (node 0 the
/// root) in depth-first order, siblings by key: the old number of each node in
/// its new place.
pub(crate) fn depth_first(parent: &[u32], key: &[u32]) -> Vec<u32> {
    let n = parent.len();
    // Children of each node, as slices of one array (node 0 is not its own child).
    let mut first_child = vec![0usize; n + 1];
    for &p in parent.iter().skip(1) {
        first_child[p as usize + 1] += 1;
    }
    for i in 0..n {
        first_child[i + 1] += first_child[i];
    }
    let mut children = vec![0u32; n.saturating_sub(1)];
    let mut fill = first_child.clone();
    for (node, &p) in parent.iter().enumerate().skip(1) {
        children[fill[p as usize]] = node as u32;
        fill[p as usize] += 1;
    }
    for p in 0..n {
        children[first_child[p]..first_child[p + 1]].sort_unstable_by_key(|&c| key[c as usize]);
    }
    let mut order = Vec::with_capacity(n);
    // Explicit stack instead of recursion: stacks can be thousands of frames deep.
    let mut todo: Vec<u32> = if n > 0 { vec![0] } else { Vec::new() };
    while let Some(node) = todo.pop() {
        order.push(node);
        let node = node as usize;
        todo.extend(
            children[first_child[node]..first_child[node + 1]]
                .iter()
                .rev(),
        );
    }
    order
}

/// The new number of each node, given the old number of each new place.
pub(crate) fn inverse_order(order: &[u32]) -> Vec<u32> {
    let mut new_index = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old as usize] = new as u32;
    }
    new_index
}

/// Renumbers the nodes depth-first, siblings by key, and computes depths and starts.
fn order_depth_first(parent: &[u32], key: &[u32], total: &[f64], self_value: &[f64]) -> CallTree {
    let order = depth_first(parent, key);
    let new_index = inverse_order(&order);
    let mut out = CallTree::default();
    // Where the next child of each node (by new number) starts.
    let mut next_start = vec![0.0f64; order.len()];
    for (new, &old) in order.iter().enumerate() {
        let old = old as usize;
        let p = new_index[parent[old] as usize];
        let (depth, start) = if new == 0 {
            (0, 0.0)
        } else {
            let start = next_start[p as usize];
            next_start[p as usize] += total[old];
            (out.depth[p as usize] + 1, start)
        };
        next_start[new] = start;
        out.parent.push(p);
        out.key.push(key[old]);
        out.depth.push(depth);
        out.total.push(total[old]);
        out.self_value.push(self_value[old]);
        out.start.push(start);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use proptest::prelude::*;

    /// Stacks from (value, keys innermost first) pairs, through `Stacks::build` with
    /// one location per key.
    fn stacks_of(samples: &[(f64, Vec<u32>)], n_keys: usize) -> Stacks {
        let mut sid = Vec::new();
        let mut depth = Vec::new();
        let mut loc = Vec::new();
        for (i, (_, keys)) in samples.iter().enumerate() {
            for (d, &k) in keys.iter().enumerate() {
                sid.push(i as i32 + 1);
                depth.push(d as i32 + 1);
                loc.push(k as i32 * 10);
            }
        }
        let locations: Vec<i32> = (1..=n_keys as i32).map(|k| k * 10).collect();
        let location_key: Vec<i32> = (1..=n_keys as i32).collect();
        let value_sample_id: Vec<i32> = (1..=samples.len() as i32).collect();
        let value: Vec<f64> = samples.iter().map(|(v, _)| *v).collect();
        Stacks::build(&StackInput {
            sample_id: &sid,
            depth: &depth,
            location_id: &loc,
            locations: &locations,
            location_key: &location_key,
            n_keys,
            value_sample_id: &value_sample_id,
            value: &value,
        })
        .unwrap()
    }

    #[test]
    fn recursion_counts_once_in_total() {
        // keys: 1 = f, 2 = main; f recurses.
        let s = stacks_of(&[(1.0, vec![1, 1, 1, 2]), (2.0, vec![2]), (4.0, vec![])], 2);
        let t = key_totals(&s);
        assert_eq!(t.self_value, vec![1.0, 2.0]);
        assert_eq!(t.total, vec![1.0, 3.0]);
        assert_eq!(t.grand_total, 7.0);
    }

    #[test]
    fn rows_in_any_order_and_samples_without_value() {
        let input = StackInput {
            sample_id: &[2, 1, 2, 9],
            depth: &[2, 1, 1, 1],
            location_id: &[5, 6, 6, 5],
            locations: &[5, 6],
            location_key: &[2, 1],
            n_keys: 2,
            value_sample_id: &[1, 2],
            value: &[3.0, 5.0],
        };
        let s = Stacks::build(&input).unwrap();
        assert_eq!(s.stack(0), &[1]);
        assert_eq!(s.stack(1), &[1, 2]);
        let t = key_totals(&s);
        assert_eq!(t.self_value, vec![8.0, 0.0]);
        assert_eq!(t.total, vec![8.0, 5.0]);
    }

    #[test]
    fn frames_with_key_zero_are_left_out() {
        // locations 5 and 7 have key 0: the innermost counted frame takes the self value
        let input = StackInput {
            sample_id: &[1, 1, 1, 2],
            depth: &[1, 2, 3, 1],
            location_id: &[5, 6, 7, 5],
            locations: &[5, 6, 7],
            location_key: &[0, 1, 0],
            n_keys: 1,
            value_sample_id: &[1, 2],
            value: &[3.0, 5.0],
        };
        let s = Stacks::build(&input).unwrap();
        assert_eq!(s.stack(0), &[1]);
        assert_eq!(s.stack(1), &[] as &[u32]);
        let t = key_totals(&s);
        assert_eq!(t.self_value, vec![3.0]);
        assert_eq!(t.total, vec![3.0]);
        assert_eq!(t.grand_total, 8.0);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let base = StackInput {
            sample_id: &[1, 1],
            depth: &[1, 2],
            location_id: &[5, 5],
            locations: &[5],
            location_key: &[1],
            n_keys: 1,
            value_sample_id: &[1],
            value: &[1.0],
        };
        assert!(Stacks::build(&base).is_ok());
        let gap = StackInput {
            depth: &[1, 3],
            ..base
        };
        assert_eq!(Stacks::build(&gap).unwrap_err().kind(), "invalid");
        let twice = StackInput {
            depth: &[1, 1],
            ..base
        };
        assert_eq!(Stacks::build(&twice).unwrap_err().kind(), "invalid");
        let negative = StackInput {
            depth: &[-1, 1],
            ..base
        };
        assert_eq!(Stacks::build(&negative).unwrap_err().kind(), "invalid");
        let dangling = StackInput {
            location_id: &[5, 7],
            ..base
        };
        assert_eq!(Stacks::build(&dangling).unwrap_err().kind(), "invalid");
        let bad_key = StackInput {
            location_key: &[2],
            ..base
        };
        assert_eq!(Stacks::build(&bad_key).unwrap_err().kind(), "invalid");
        let dup_value = StackInput {
            value_sample_id: &[1, 1],
            value: &[1.0, 2.0],
            ..base
        };
        assert_eq!(Stacks::build(&dup_value).unwrap_err().kind(), "invalid");
        let ragged = StackInput {
            depth: &[1],
            ..base
        };
        assert_eq!(Stacks::build(&ragged).unwrap_err().kind(), "invalid");
        let na_value = StackInput {
            value: &[f64::NAN],
            ..base
        };
        assert_eq!(Stacks::build(&na_value).unwrap_err().kind(), "invalid");
    }

    #[test]
    fn call_tree_merges_prefixes_in_key_order() {
        // root-first stacks: main;g (2), main;f (1), main;f;g (4), main (0: dropped)
        // keys: 1 = f, 2 = g, 3 = main
        let s = stacks_of(
            &[
                (2.0, vec![2, 3]),
                (1.0, vec![1, 3]),
                (4.0, vec![2, 1, 3]),
                (0.0, vec![3, 3]),
            ],
            3,
        );
        let t = CallTree::build(&s);
        assert_eq!(t.key, vec![0, 3, 1, 2, 2]);
        assert_eq!(t.parent, vec![0, 0, 1, 2, 1]);
        assert_eq!(t.depth, vec![0, 1, 2, 3, 2]);
        assert_eq!(t.total, vec![7.0, 7.0, 5.0, 4.0, 2.0]);
        assert_eq!(t.self_value, vec![0.0, 0.0, 1.0, 4.0, 2.0]);
        assert_eq!(t.start, vec![0.0, 0.0, 0.0, 0.0, 5.0]);
    }

    fn arb_samples() -> impl Strategy<Value = Vec<(f64, Vec<u32>)>> {
        prop::collection::vec(
            (
                (0u32..5).prop_map(f64::from),
                prop::collection::vec(1u32..5, 0..6),
            ),
            0..30,
        )
    }

    proptest! {
        /// The tree agrees with a direct count: every node's total is the value of
        /// the samples whose root-first stack starts with the node's path, children
        /// fit inside their parent, and self values add up to the grand total.
        #[test]
        fn call_tree_agrees_with_direct_count(samples in arb_samples()) {
            let s = stacks_of(&samples, 4);
            let t = CallTree::build(&s);
            let mut paths: Vec<Vec<u32>> = vec![vec![]];
            for i in 1..t.len() {
                let mut p = paths[t.parent[i] as usize].clone();
                p.push(t.key[i]);
                paths.push(p);
            }
            for (i, path) in paths.iter().enumerate() {
                let direct: f64 = samples.iter().filter(|(_, st)| {
                    let root_first: Vec<u32> = st.iter().rev().copied().collect();
                    root_first.starts_with(path)
                }).map(|(v, _)| *v).sum();
                prop_assert_eq!(t.total[i], direct);
                prop_assert_eq!(t.depth[i] as usize, path.len());
                if i > 0 {
                    let p = t.parent[i] as usize;
                    prop_assert!(p < i);
                    prop_assert!(t.start[i] >= t.start[p]);
                    prop_assert!(t.start[i] + t.total[i] <= t.start[p] + t.total[p] + 1e-9);
                }
            }
            let self_sum: f64 = t.self_value.iter().sum();
            prop_assert_eq!(self_sum, s.grand_total());
            // Paths are unique.
            let mut sorted = paths.clone();
            sorted.sort();
            sorted.dedup();
            prop_assert_eq!(sorted.len(), paths.len());
        }

        /// Key totals agree with a direct count over the samples.
        #[test]
        fn key_totals_agree_with_direct_count(samples in arb_samples()) {
            let s = stacks_of(&samples, 4);
            let t = key_totals(&s);
            for k in 1..=4u32 {
                let self_direct: f64 = samples.iter().filter(|(_, st)| st.first() == Some(&k)).map(|(v, _)| *v).sum();
                let total_direct: f64 = samples.iter().filter(|(_, st)| st.contains(&k)).map(|(v, _)| *v).sum();
                prop_assert_eq!(t.self_value[k as usize - 1], self_direct);
                prop_assert_eq!(t.total[k as usize - 1], total_direct);
            }
        }
    }
}
