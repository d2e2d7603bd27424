//! The merged call tree of flame graphs and folded stacks: stacks merged into
//! paths ([`PathTrie`], also used by the browser view), ordered depth first
//! with siblings by key.

use super::Stacks;
use rustc_hash::FxHashMap;

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
    #[allow(
        clippy::indexing_slicing,
        reason = "total and self_value grow with the trie's nodes (resized in visit); the root is \
                  node 0, a leaf a node visited"
    )]
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
    #[allow(
        clippy::indexing_slicing,
        reason = "prev_nodes is as long as prev_keys, whose element d exists"
    )]
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
#[allow(
    clippy::indexing_slicing,
    reason = "a tree of n nodes: parents and children are nodes below n, first_child has n + 1 \
              slots"
)]
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
#[allow(
    clippy::indexing_slicing,
    reason = "order is a permutation of the nodes 0..n"
)]
pub(crate) fn inverse_order(order: &[u32]) -> Vec<u32> {
    let mut new_index = vec![0u32; order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old as usize] = new as u32;
    }
    new_index
}

/// Renumbers the nodes depth-first, siblings by key, and computes depths and starts.
#[allow(
    clippy::indexing_slicing,
    reason = "order and new_index are permutations of the nodes, parents and the per-node vectors \
              have one slot per node"
)]
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
