/* The browser view of the R package profile, the data layer's third part:
 * refinements. The verbs focus, ignore, hide, show and prune_from, their
 * patterns Go regular expressions (pv-pattern.js), are applied to the merged
 * call tree of the Model (pv-data.js), in order, and the samples in time
 * order follow their nodes. No drawing here: the views read the refined
 * Model as they read the whole one. The verbs work in typed arrays on trees
 * of 1e5 nodes within an interaction's time (bench/view.R): those that merge
 * no frames drop nodes, the others merge stacks in a trie; the values of a
 * sample type are summed when the page first reads them. Plain JavaScript
 * (ES2019), no library. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});
  const { goRegExp, keyMatches, matchingNodes } = PV;

  // ---- refinements -----------------------------------------------------------

  const VERBS = ["focus", "ignore", "hide", "show", "prune_from"];

  // The trees refinements take and give are {n, parent, key, line, values,
  // nodeLines}: nodes in depth-first order (parents first), the children of a
  // node in increasing key order and no two with the same key, each node's
  // line keys increasing. The Rust core writes the whole tree so; every
  // refinement gives its tree so (the refinements below rely on it).

  // focus, ignore and prune_from merge no frames: each node's samples stay
  // (focus: those with a matching frame on their stack; ignore: those
  // without), go (`dest` -1), or go to the innermost matching frame of their
  // stack (prune_from, as Go's PruneFrom); the nodes left are those that keep
  // samples and their callers.
  function filterVerb(tree, matched, verb) {
    const n = tree.n;
    const parent = tree.parent;
    const dest = new Int32Array(n);
    if (verb === "prune_from") {
      const last = new Int32Array(n);
      last[0] = -1;
      for (let i = 1; i < n; i++) {
        last[i] = matched[i] ? i : last[parent[i]];
        dest[i] = last[i] >= 0 ? last[i] : i;
      }
    } else {
      // whether the stack down to the node has a matching frame
      const on = new Uint8Array(n);
      const keep = verb === "focus" ? 1 : 0;
      dest[0] = keep ? -1 : 0;
      for (let i = 1; i < n; i++) {
        on[i] = on[parent[i]] | matched[i];
        dest[i] = on[i] === keep ? i : -1;
      }
    }
    return compact(tree, dest, tree.values);
  }

  // The nodes of `tree` that receive samples (`dest`: where each node's go, an
  // ancestor or itself, -1: dropped) and their ancestors, in their order, with
  // `values` summed into them; `map` is `dest` in the new numbering. The new
  // tree's shape (PV.treeShape()) is made on the way.
  function compact(tree, dest, values) {
    const n = tree.n;
    const g = tree.nodeLines;
    // (the columns read once: the first refinement of a page runs these
    // loops before the JIT has compiled them, a cost per property read)
    const inParent = tree.parent;
    const inKey = tree.key;
    const inLine = tree.line;
    const gStart = g.start;
    const gKeys = g.keys;
    // (from the leaves up: a node's mark is final when it is reached, as
    // nodes send their samples to themselves or to ancestors; so are the
    // sizes of the subtrees of the nodes kept)
    const alive = new Uint8Array(n);
    const subtree = new Int32Array(n);
    alive[0] = 1;
    let size = 1;
    let pairs = gStart[1] - gStart[0];
    for (let i = n - 1; i > 0; i--) {
      const d = dest[i];
      if (d >= 0) alive[d] = 1;
      if (!alive[i]) continue;
      const p = inParent[i];
      alive[p] = 1;
      subtree[p] += ++subtree[i];
      size++;
      pairs += gStart[i + 1] - gStart[i];
    }
    const index = new Int32Array(n);
    const map = new Int32Array(n);
    const parent = new Int32Array(size);
    const key = new Int32Array(size);
    const line = new Int32Array(size);
    const end = new Int32Array(size);
    const depth = new Int32Array(size);
    const start = new Int32Array(size + 1);
    const keys = new Int32Array(pairs);
    let maxDepth = 0;
    let c = 0;
    for (let i = 0; i < n; i++) {
      const d = dest[i];
      map[i] = d < 0 ? -1 : index[d];
      if (!alive[i]) {
        index[i] = -1;
        continue;
      }
      index[i] = c;
      if (d === i) map[i] = c;
      if (i > 0) {
        const p = index[inParent[i]];
        const dc = depth[p] + 1;
        parent[c] = p;
        depth[c] = dc;
        if (dc > maxDepth) maxDepth = dc;
      }
      end[c] = c + subtree[i] + (i === 0 ? 1 : 0);
      key[c] = inKey[i];
      line[c] = inLine[i];
      let at = start[c];
      const to = gStart[i + 1];
      for (let j = gStart[i]; j < to; j++) keys[at++] = gKeys[j];
      start[++c] = at;
    }
    const out = { n: size, parent, key, line, nodeLines: { start, keys }, end, depth, maxDepth, cache: {} };
    out.values = sumValues(values, map, parent, size);
    return { tree: out, map };
  }

  // Values of the new tree's nodes: self values summed from the nodes that
  // `map` sends there, totals from self values up the tree. Each sample
  // type's when it is first read (values[t]): the page shows one type, and
  // the sums are most of a refinement's time on 1e5 nodes.
  function sumValues(values, map, parent, size) {
    return lazyArray(values.length, (t) => sumType(values[t], map, parent, size));
  }

  // An array of `length` elements, element i made by make(i) when it is
  // first read.
  function lazyArray(length, make) {
    const out = new Array(length);
    for (let i = 0; i < length; i++) {
      Object.defineProperty(out, i, {
        configurable: true,
        enumerable: true,
        get() {
          const value = make(i);
          Object.defineProperty(out, i, { value, enumerable: true, configurable: true, writable: true });
          return value;
        }
      });
    }
    return out;
  }

  function sumType(v, map, parent, size) {
    const selfPos = new Float64Array(size);
    const selfNeg = new Float64Array(size);
    const inPos = v.selfPos;
    const inNeg = v.selfNeg;
    const n = map.length;
    for (let i = 0; i < n; i++) {
      const c = map[i];
      if (c < 0) continue;
      selfPos[c] += inPos[i];
      selfNeg[c] += inNeg[i];
    }
    const totalPos = selfPos.slice();
    const totalNeg = selfNeg.slice();
    for (let i = size - 1; i > 0; i--) {
      totalPos[parent[i]] += totalPos[i];
      totalNeg[parent[i]] += totalNeg[i];
    }
    return { totalPos, totalNeg, selfPos, selfNeg };
  }

  // The children of a trie's nodes by parent and key, for the parents whose
  // children do not arrive in increasing key order (few): open addressing,
  // each slot's parent, key and node side by side, grown as it fills.
  class ChildTable {
    constructor() {
      this.grow(64);
    }

    grow(size) {
      const old = this.slots;
      this.mask = size - 1;
      this.slots = new Int32Array(3 * size).fill(-1);
      this.count = 0;
      if (old) for (let at = 0; at < old.length; at += 3) if (old[at + 2] >= 0) this.add(old[at], old[at + 1], old[at + 2]);
    }

    // Where (p, k) is, or the empty slot where it goes. (The multipliers as
    // signed 32-bit numbers: written beyond 2^31 they are doubles.)
    at(p, k) {
      let x = (Math.imul(p, -1640531535) + k) | 0;
      x = Math.imul(x ^ (x >>> 16), -2048144789);
      let h = x ^ (x >>> 13);
      let at = 3 * (h & this.mask);
      while (this.slots[at + 2] >= 0 && (this.slots[at] !== p || this.slots[at + 1] !== k)) at = 3 * (++h & this.mask);
      return at;
    }

    find(p, k) {
      return this.slots[this.at(p, k) + 2];
    }

    // (p, k), not in the table yet, is child c.
    add(p, k, c) {
      if (2 * (this.count + 1) > this.mask + 1) this.grow(2 * (this.mask + 1));
      const at = this.at(p, k);
      this.slots[at] = p;
      this.slots[at + 1] = k;
      this.slots[at + 2] = c;
      this.count++;
    }
  }

  // hide and show drop frames from stacks (hide: the matching ones; show:
  // the others), so that stacks merge: each node's frames go to the node of
  // its new stack in a trie, its samples with them, and the trie is ordered
  // as above. With `matched` null, no frame is dropped (a tree made
  // canonical). The children of a canonical tree's node arrive in increasing
  // key order, each new: only where a dropped frame's children join their
  // grandparent's are they looked up (by key, in a ChildTable), and only
  // then must the trie be ordered again.
  function mergeVerb(tree, matched, verb) {
    const n = tree.n;
    const g = tree.nodeLines;
    const inParent = tree.parent;
    const inKey = tree.key;
    const inLine = tree.line;
    const tParent = new Int32Array(n);
    const tKey = new Int32Array(n);
    const tLine = new Int32Array(n);
    tLine[0] = inLine[0];
    // per trie node: the largest key of its children, the children (a list),
    // whether they are in the table
    const maxKey = new Int32Array(n);
    const firstChild = new Int32Array(n);
    const nextSibling = new Int32Array(n);
    const listed = new Uint8Array(n);
    let table = null;
    let sorted = true;
    const pairNode = new Int32Array(g.keys.length);
    const pairKey = new Int32Array(g.keys.length);
    const pos = new Int32Array(n);
    const drop = matched === null ? -1 : verb === "hide" ? 1 : 0;
    let m = 1;
    let pairs = 0;
    for (let i = 1; i < n; i++) {
      const p = pos[inParent[i]];
      if (drop >= 0 && matched[i] === drop) {
        pos[i] = p;
        continue;
      }
      const k = inKey[i];
      let c = -1;
      if (k <= maxKey[p]) {
        sorted = false;
        if (table === null) table = new ChildTable();
        if (!listed[p]) {
          for (let d = firstChild[p]; d > 0; d = nextSibling[d]) table.add(p, tKey[d], d);
          listed[p] = 1;
        }
        c = table.find(p, k);
      }
      if (c < 0) {
        c = m++;
        tParent[c] = p;
        tKey[c] = k;
        tLine[c] = inLine[i];
        nextSibling[c] = firstChild[p];
        firstChild[p] = c;
        if (k > maxKey[p]) maxKey[p] = k;
        if (listed[p]) table.add(p, k, c);
      } else if (tLine[c] !== inLine[i]) {
        tLine[c] = 0;
      }
      pos[i] = c;
      for (let j = g.start[i]; j < g.start[i + 1]; j++) {
        pairNode[pairs] = c;
        pairKey[pairs++] = g.keys[j];
      }
    }
    const trie = { tParent, tKey, tLine, firstChild, nextSibling, listed };
    const { parent, key, line, index } = trieColumns(trie, m, sorted);
    const map = sorted ? pos : PV.mapTo(Int32Array, pos, (c) => index[c]);
    const out = { n: m, parent, key, line, nodeLines: groupLines(pairNode, pairKey, pairs, index, m) };
    out.values = sumValues(tree.values, map, parent, m);
    return { tree: out, map };
  }

  // The trie's columns in depth-first order, and `index` (trie node -> its
  // place; null: in creation order, when every child arrived in key order,
  // as a canonical tree's with nodes dropped and none merged).
  function trieColumns(trie, m, sorted) {
    const { tParent, tKey, tLine } = trie;
    const index = sorted ? null : new Int32Array(m);
    const parent = new Int32Array(m);
    const key = new Int32Array(m);
    const line = new Int32Array(m);
    line[0] = tLine[0];
    if (sorted) {
      parent.set(tParent.subarray(0, m));
      key.set(tKey.subarray(0, m));
      line.set(tLine.subarray(0, m));
      return { parent, key, line, index };
    }
    const order = trieOrder(trie.firstChild, trie.nextSibling, tKey, trie.listed, m);
    for (let i = 0; i < m; i++) index[order[i]] = i;
    for (let i = 1; i < m; i++) {
      const c = order[i];
      parent[i] = index[tParent[c]];
      key[i] = tKey[c];
      line[i] = tLine[c];
    }
    return { parent, key, line, index };
  }

  // The trie's nodes in depth-first order from the root with siblings by
  // key, walked with a stack. Each node's list of children holds them newest
  // first: in decreasing key order where they arrived in increasing order;
  // the others' (`listed`) are sorted.
  function trieOrder(firstChild, nextSibling, tKey, listed, m) {
    const order = new Int32Array(m);
    const todo = new Int32Array(m);
    const kids = [];
    let size = 0;
    let top = 0;
    todo[top++] = 0;
    while (top > 0) {
      const c = todo[--top];
      order[size++] = c;
      if (!listed[c]) {
        for (let d = firstChild[c]; d > 0; d = nextSibling[d]) todo[top++] = d;
        continue;
      }
      kids.length = 0;
      for (let d = firstChild[c]; d > 0; d = nextSibling[d]) kids.push(d);
      kids.sort((x, y) => tKey[y] - tKey[x]);
      for (const d of kids) todo[top++] = d;
    }
    return order;
  }

  // The line keys of the trie's nodes (pairs of trie node and line key) by
  // node of the new order (`index`; null: the same), each node's increasing
  // and once.
  function groupLines(pairNode, pairKey, pairs, index, m) {
    const start = new Int32Array(m + 1);
    if (pairs === 0) return { start, keys: new Int32Array(0) };
    const nodeOf = (q) => (index ? index[pairNode[q]] : pairNode[q]);
    for (let q = 0; q < pairs; q++) start[nodeOf(q) + 1]++;
    for (let i = 0; i < m; i++) start[i + 1] += start[i];
    const fill = start.slice(0, m);
    const keys = new Int32Array(pairs);
    for (let q = 0; q < pairs; q++) keys[fill[nodeOf(q)]++] = pairKey[q];
    let at = 0;
    for (let i = 0; i < m; i++) {
      const from = start[i];
      const to = start[i + 1];
      start[i] = at;
      if (to - from > 1) keys.subarray(from, to).sort();
      for (let j = from; j < to; j++) if (j === from || keys[j] !== keys[j - 1]) keys[at++] = keys[j];
    }
    start[m] = at;
    return { start, keys: keys.slice(0, at) };
  }

  // Whether a tree is ordered as refinements give theirs (see above).
  function canonical(tree) {
    const n = tree.n;
    const last = new Int32Array(n).fill(-1);
    const path = new Int32Array(n);
    const { parent, key } = tree;
    const { start, keys } = tree.nodeLines;
    let top = 0;
    for (let i = 1; i < n; i++) {
      const p = parent[i];
      const k = key[i];
      while (top > 0 && path[top] !== p) top--;
      if (path[top] !== p || k <= last[p]) return false;
      last[p] = k;
      path[++top] = i;
    }
    for (let i = 0; i < n; i++) {
      const to = start[i + 1];
      for (let j = start[i] + 1; j < to; j++) if (keys[j] <= keys[j - 1]) return false;
    }
    return true;
  }

  // The nodes of `tree` that source's samples reach, with its `values` (the
  // tree's nodes with that source's values, pv-lanes.js).
  function onlySource(tree, values) {
    const n = tree.n;
    const dest = new Int32Array(n);
    for (let i = 1; i < n; i++) {
      const reached = values.some((v) => v.totalPos[i] !== 0 || v.totalNeg[i] !== 0);
      dest[i] = reached ? i : -1;
    }
    return compact(tree, dest, values);
  }

  // The tree the Model was made with (its shape and cache kept with it).
  function baseTree(model) {
    if (!model.base) {
      model.base = {
        n: model.n,
        parent: model.parent,
        key: model.key,
        line: model.line,
        values: model.values,
        nodeLines: model.nodeLines,
        end: model.end,
        depth: model.depth,
        maxDepth: model.maxDepth,
        cache: model.cache
      };
    }
    return model.base;
  }

  // Where refinements start from: the whole tree, or the tree of the source
  // shown alone (pv-lanes.js), made canonical if it is not; kept with the
  // refinements last applied to it, each step's tree and map (node of the
  // start's tree -> node of the step's, or -1), so that a change reapplies
  // only the steps after the first one changed.
  function chainOf(model) {
    const id = model.sourceId;
    if (!model.refined || model.refined.sourceId !== id) {
      const base = baseTree(model);
      let tree = base;
      let map = null;
      if (id !== null) ({ tree, map } = onlySource(base, model.sourceValues(id)));
      if (!canonical(base)) {
        const made = mergeVerb(tree, null, null);
        map = compose(map, made.map);
        tree = made.tree;
      }
      model.refined = { sourceId: id, tree, map, done: [] };
    }
    return model.refined;
  }

  function compose(map, next) {
    return map ? PV.mapTo(Int32Array, map, (c) => (c < 0 ? -1 : next[c])) : next;
  }

  // Refines the model by `steps` ([{verb, pattern}], in order, each applied
  // to the result of those before, as verbs piped in R), starting from the
  // whole profile (or the source shown alone); no steps gives it back.
  // Returns per step {matched: whether the pattern matched a frame,
  // approximate: whether it matched some frames of a node and not others (a
  // file or line pattern where frames of one function name are in several
  // files or lines; see matchingNodes())}.
  // Throws a PatternError for a pattern that is not a Go regular expression.
  PV.Model.prototype.refine = function (steps) {
    const patterns = steps.map((s) => {
      if (VERBS.indexOf(s.verb) < 0) throw new Error("profile view: unknown verb " + s.verb);
      return goRegExp(s.pattern);
    });
    const chain = chainOf(this);
    const done = chain.done;
    let j = 0;
    while (j < steps.length && j < done.length && done[j].verb === steps[j].verb && done[j].pattern === steps[j].pattern) j++;
    done.length = j;
    for (; j < steps.length; j++) {
      const s = steps[j];
      const tree = j ? done[j - 1].tree : chain.tree;
      const map = j ? done[j - 1].map : chain.map;
      const match = matchingNodes(tree, keyMatches(this, patterns[j], s.verb, s.pattern));
      const merges = s.verb === "hide" || s.verb === "show";
      const next = merges ? mergeVerb(tree, match.matched, s.verb) : filterVerb(tree, match.matched, s.verb);
      done.push({ verb: s.verb, pattern: s.pattern, tree: next.tree, map: compose(map, next.map), report: match.report });
    }
    // (no steps: the tree as given, though the steps start from it canonical)
    const whole = this.sourceId === null ? { tree: baseTree(this), map: null } : chain;
    const last = steps.length ? done[steps.length - 1] : whole;
    const tree = last.tree;
    if (!tree.end) Object.assign(tree, PV.treeShape(tree.parent), { cache: {} });
    this.n = tree.n;
    this.parent = tree.parent;
    this.key = tree.key;
    this.line = tree.line;
    this.values = tree.values;
    this.nodeLines = tree.nodeLines;
    this.end = tree.end;
    this.depth = tree.depth;
    this.maxDepth = tree.maxDepth;
    this.nodeMap = last.map;
    this.refinedRuns = null;
    this.chartTree = null;
    // (what is computed from a tree is kept with it: removing the last
    // refinement shows the tree before it as it was)
    this.cache = tree.cache;
    this.steps = steps.slice();
    return done.slice(0, steps.length).map((d) => ({ matched: d.report.matched, approximate: d.report.approximate }));
  };

  // Applies `verb` ("focus": the verbs that drop nodes; "hide": those that
  // merge stacks) to the function of the first node of the tree refinements
  // start from, and drops the result, the model left as it was: a page's
  // first refinement ran these loops over every node before the JIT had
  // compiled them (on 10^5 nodes, twice the time of a later one). The
  // controls call it when the page is idle (pv-refine-ui.js).
  PV.Model.prototype.warmRefinements = function (verb) {
    const tree = chainOf(this).tree;
    if (tree.n < 2) return;
    const byName = new Uint8Array(this.nKeys + 1);
    byName[tree.key[1]] = 1;
    const km = { byName, byFile: new Uint8Array(this.nKeys + 1), byLine: new Uint8Array(this.lineFile.length) };
    const { matched } = matchingNodes(tree, km);
    const next = verb === "hide" ? mergeVerb(tree, matched, verb) : filterVerb(tree, matched, verb);
    if (!next.tree.end) PV.treeShape(next.tree.parent);
    return next.tree.values[0];
  };

  // The runs in time order whose samples the refinements kept, their leaves
  // the nodes of the refined tree (`keep`: their rows in the whole runs).
  PV.Model.prototype.keptRuns = function (all) {
    if (!this.refinedRuns) {
      const keep = [];
      const only = this.sourceId;
      for (let r = 0; r < all.leaf.length; r++) {
        if (this.nodeMap[all.leaf[r]] >= 0 && (only === null || all.sourceId[all.source[r]] === only)) keep.push(r);
      }
      const pick = (a) => PV.mapTo(a.constructor, keep, (r) => a[r]);
      this.refinedRuns = {
        keep: Int32Array.from(keep),
        all,
        leaf: PV.mapTo(Int32Array, keep, (r) => this.nodeMap[all.leaf[r]]),
        count: pick(all.count),
        time: pick(all.time),
        source: pick(all.source),
        sourceId: all.sourceId,
        step: all.step,
        weight: all.weight
      };
    }
    return this.refinedRuns;
  };

  // The R code that gives the refined profile from `x`.
  function rCode(steps, name) {
    const quote = (s) => '"' + s.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
    return [name || "x"].concat(steps.map((s) => "profile_" + s.verb + "(" + quote(s.pattern) + ")")).join(" |>\n  ");
  }

  Object.assign(PV, { rCode, VERBS });
})(typeof window !== "undefined" ? window : this);
