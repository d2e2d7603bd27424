/* The view's refinements as profile 2.2 applied them (pv-refine.js of
 * commit 4475c21): each verb through a trie of every node's new stack. Not
 * shipped: kept as the reference that tests/js/pv-refine-same.test.mjs judges
 * the faster pv-refine.js against (the same trees, maps and reports);
 * tests/js/pv-refine.test.mjs judges the shipped one against the R verbs. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  // (patterns: the shipped pv-pattern.js, loaded before this file; the
  // translation of Go's regular expressions is judged on its own in
  // pv-refine.test.mjs, and was the same code in 2.2)
  const { goRegExp } = PV;

  // ---- refinements -----------------------------------------------------------

  const VERBS = ["focus", "ignore", "hide", "show", "prune_from"];

  // Which nodes of `tree` match `re`, as the R verbs match frames: the
  // function name, its file, or "file:line" (the files and lines of a node's
  // frames are those of its line keys; a node without one has its function's
  // file); prune_from matches names only, with their argument lists removed
  // (as Go does). The view's nodes merge the frames of a function name: a
  // node with frames of several files or lines matches when one of them
  // does, and the result is marked `approximate` when some of them do not.
  function matchingNodes(model, tree, re, verb) {
    const nKeys = model.nKeys;
    const byName = new Uint8Array(nKeys + 1);
    const byFile = new Uint8Array(nKeys + 1);
    for (let k = 1; k <= nKeys; k++) {
      const name = model.keyLabel(k);
      if (verb === "prune_from") {
        const paren = name.indexOf("(");
        byName[k] = re.test(paren > 0 ? name.slice(0, paren) : name) ? 1 : 0;
      } else {
        const file = model.keyFileName(k);
        byName[k] = re.test(name) ? 1 : 0;
        byFile[k] = file && re.test(file) ? 1 : 0;
      }
    }
    const byLine = new Uint8Array(model.lineFile.length);
    if (verb !== "prune_from") {
      const fileMatch = model.files.map((f) => (f.name && re.test(f.name) ? 1 : 0));
      for (let l = 0; l < byLine.length; l++) {
        const file = model.files[model.lineFile[l]].name;
        byLine[l] = fileMatch[model.lineFile[l]] || (file && re.test(file + ":" + model.lineNumber[l])) ? 1 : 0;
      }
    }
    const out = new Uint8Array(tree.n);
    const g = tree.nodeLines;
    let approximate = false;
    for (let i = 1; i < tree.n; i++) {
      const k = tree.key[i];
      let m = byName[k];
      if (g.start[i + 1] === g.start[i]) m = m || byFile[k];
      let lines = 0;
      for (let j = g.start[i]; !byName[k] && j < g.start[i + 1]; j++) lines += byLine[g.keys[j]];
      if (lines > 0) {
        m = 1;
        if (lines < g.start[i + 1] - g.start[i]) approximate = true;
      }
      out[i] = m;
    }
    return { matched: out, approximate };
  }

  // The children of a trie's nodes by parent and key: open addressing in
  // typed arrays, room for `capacity` nodes. (A Map keyed by parent * 2^32 +
  // key boxes every key, a number beyond 2^31: on a tree of 1e5 nodes that
  // and the garbage it left were most of a refinement's time.)
  class ChildIndex {
    constructor(capacity) {
      let size = 16;
      while (size < 2 * capacity) size *= 2;
      this.mask = size - 1;
      this.parent = new Int32Array(size);
      this.key = new Int32Array(size);
      this.node = new Int32Array(size).fill(-1);
    }

    // The slot of (p, k): where it is, or the empty slot where it goes.
    slot(p, k) {
      let x = (Math.imul(p, 0x9e3779b1) + k) | 0;
      x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
      let h = (x ^ (x >>> 13)) & this.mask;
      while (this.node[h] >= 0 && (this.parent[h] !== p || this.key[h] !== k)) h = (h + 1) & this.mask;
      return h;
    }
  }

  // One verb applied to `tree` ({n, parent, key, line, values, nodeLines}):
  // each node's stack becomes a new stack (or none), the stacks are merged
  // into a new tree in depth-first order (siblings by key), and `map` says
  // where the samples of each node went (-1: dropped).
  function applyVerb(tree, matched, verb) {
    const n = tree.n;
    const tParent = [0];
    const tKey = [0];
    const tLine = [tree.line[0]];
    const tLines = [null];
    const children = new ChildIndex(n);
    const child = (p, i) => {
      const h = children.slot(p, tree.key[i]);
      let c = children.node[h];
      if (c < 0) {
        c = tParent.length;
        children.parent[h] = p;
        children.key[h] = tree.key[i];
        children.node[h] = c;
        tParent.push(p);
        tKey.push(tree.key[i]);
        tLine.push(tree.line[i]);
        tLines.push(null);
      } else if (tLine[c] !== tree.line[i]) {
        tLine[c] = 0;
      }
      const g = tree.nodeLines;
      if (g.start[i + 1] > g.start[i]) {
        if (!tLines[c]) tLines[c] = new Set();
        for (let j = g.start[i]; j < g.start[i + 1]; j++) tLines[c].add(g.keys[j]);
      }
      return c;
    };
    const pos = new Int32Array(n);
    const dest = new Int32Array(n);
    const onPath = new Uint8Array(n);
    const last = new Int32Array(n).fill(-1);
    dest[0] = verb === "focus" ? -1 : 0;
    for (let i = 1; i < n; i++) {
      const p = tree.parent[i];
      const m = matched[i];
      onPath[i] = onPath[p] | m;
      if (verb === "hide") pos[i] = m ? pos[p] : child(pos[p], i);
      else if (verb === "show") pos[i] = m ? child(pos[p], i) : pos[p];
      else pos[i] = child(pos[p], i);
      last[i] = m ? i : last[p];
      if (verb === "focus") dest[i] = onPath[i] ? pos[i] : -1;
      else if (verb === "ignore") dest[i] = onPath[i] ? -1 : pos[i];
      else if (verb === "prune_from") dest[i] = last[i] >= 0 ? pos[last[i]] : pos[i];
      else dest[i] = pos[i];
    }
    return finishTree(tree, { tParent, tKey, tLine, tLines }, dest);
  }

  // The trie's nodes marked `alive`, in depth-first order from the root with
  // siblings by key: the children of each node gathered in typed arrays (the
  // nodes ordered by key with a counting sort, then placed under their parent),
  // and walked with a stack.
  function depthFirst(trie, alive) {
    const m = trie.tParent.length;
    let maxKey = 0;
    for (let c = 1; c < m; c++) if (trie.tKey[c] > maxKey) maxKey = trie.tKey[c];
    const byKey = new Int32Array(maxKey + 2);
    const first = new Int32Array(m + 1);
    for (let c = 1; c < m; c++) {
      if (!alive[c]) continue;
      byKey[trie.tKey[c] + 1]++;
      first[trie.tParent[c] + 1]++;
    }
    for (let k = 1; k < byKey.length; k++) byKey[k] += byKey[k - 1];
    for (let p = 1; p <= m; p++) first[p] += first[p - 1];
    const sorted = new Int32Array(byKey[maxKey + 1]);
    for (let c = 1; c < m; c++) if (alive[c]) sorted[byKey[trie.tKey[c]]++] = c;
    // each node's children by key, largest first (the stack pops the smallest)
    const kids = new Int32Array(sorted.length);
    const fill = first.slice(0, m);
    for (let j = sorted.length - 1; j >= 0; j--) {
      const c = sorted[j];
      kids[fill[trie.tParent[c]]++] = c;
    }
    const order = new Int32Array(sorted.length + 1);
    const todo = new Int32Array(sorted.length + 1);
    let size = 0;
    let top = 0;
    todo[top++] = 0;
    while (top > 0) {
      const c = todo[--top];
      order[size++] = c;
      for (let j = first[c]; j < first[c + 1]; j++) todo[top++] = kids[j];
    }
    return order;
  }

  // The trie as a tree: nodes that received samples and their ancestors, in
  // depth-first order with siblings by key; values summed from the samples.
  function finishTree(tree, trie, dest) {
    const m = trie.tParent.length;
    const alive = new Uint8Array(m);
    alive[0] = 1;
    for (let i = 0; i < tree.n; i++) {
      for (let c = dest[i]; c > 0 && !alive[c]; c = trie.tParent[c]) alive[c] = 1;
    }
    const order = depthFirst(trie, alive);
    const size = order.length;
    const index = new Int32Array(m).fill(-1);
    for (let i = 0; i < size; i++) index[order[i]] = i;
    const parent = PV.mapTo(Int32Array, order, (c) => (c === 0 ? 0 : index[trie.tParent[c]]));
    const map = PV.mapTo(Int32Array, dest, (c) => (c < 0 ? -1 : index[c]));
    const values = tree.values.map((v) => {
      const out = {
        totalPos: new Float64Array(size),
        totalNeg: new Float64Array(size),
        selfPos: new Float64Array(size),
        selfNeg: new Float64Array(size)
      };
      for (let i = 0; i < tree.n; i++) {
        if (map[i] < 0) continue;
        out.selfPos[map[i]] += v.selfPos[i];
        out.selfNeg[map[i]] += v.selfNeg[i];
      }
      out.totalPos.set(out.selfPos);
      out.totalNeg.set(out.selfNeg);
      for (let i = size - 1; i > 0; i--) {
        out.totalPos[parent[i]] += out.totalPos[i];
        out.totalNeg[parent[i]] += out.totalNeg[i];
      }
      return out;
    });
    const start = new Int32Array(size + 1);
    const keys = [];
    for (let i = 0; i < size; i++) {
      const set = trie.tLines[order[i]];
      if (set) for (const k of Array.from(set).sort((a, b) => a - b)) keys.push(k);
      start[i + 1] = keys.length;
    }
    return {
      tree: {
        n: size,
        parent,
        key: PV.mapTo(Int32Array, order, (c) => trie.tKey[c]),
        line: PV.mapTo(Int32Array, order, (c) => trie.tLine[c]),
        values,
        nodeLines: { start, keys: Int32Array.from(keys) }
      },
      map
    };
  }

  // The nodes of `tree` that source's samples reach, with its `values` (the
  // tree's nodes with that source's values, pv-lanes.js).
  function onlySource(tree, values) {
    const n = tree.n;
    const dest = new Int32Array(n);
    const g = tree.nodeLines;
    const tLines = new Array(n).fill(null);
    for (let i = 1; i < n; i++) {
      const reached = values.some((v) => v.totalPos[i] !== 0 || v.totalNeg[i] !== 0);
      dest[i] = reached ? i : -1;
      if (g.start[i + 1] > g.start[i]) tLines[i] = new Set(g.keys.subarray(g.start[i], g.start[i + 1]));
    }
    const trie = { tParent: Array.from(tree.parent), tKey: Array.from(tree.key), tLine: Array.from(tree.line), tLines };
    return finishTree(Object.assign({}, tree, { values }), trie, dest);
  }

  // The tree the Model was made with.
  function baseTree(model) {
    if (!model.base) {
      model.base = {
        n: model.n,
        parent: model.parent,
        key: model.key,
        line: model.line,
        values: model.values,
        nodeLines: model.nodeLines
      };
    }
    return model.base;
  }

  // Refines the model by `steps` ([{verb, pattern}], in order, each applied
  // to the result of those before, as verbs piped in R), starting from the
  // whole profile each time; no steps gives the whole profile back. Returns
  // per step {matched: whether the pattern matched a frame, approximate:
  // whether it matched some frames of a node and not others (a file or line
  // pattern where frames of one function name are in several files or lines;
  // see matchingNodes())}.
  // Throws a PatternError for a pattern that is not a Go regular expression.
  PV.Model.prototype.refine = function (steps) {
    const patterns = steps.map((s) => {
      if (VERBS.indexOf(s.verb) < 0) throw new Error("profile view: unknown verb " + s.verb);
      return goRegExp(s.pattern);
    });
    let tree = baseTree(this);
    let map = null;
    if (this.sourceId !== null) {
      const one = onlySource(tree, this.sourceValues(this.sourceId));
      tree = one.tree;
      map = one.map;
    }
    const report = [];
    steps.forEach((s, j) => {
      const match = matchingNodes(this, tree, patterns[j], s.verb);
      report.push({ matched: match.matched.indexOf(1) >= 0, approximate: match.approximate });
      const next = applyVerb(tree, match.matched, s.verb);
      map = map ? PV.mapTo(Int32Array, map, (c) => (c < 0 ? -1 : next.map[c])) : next.map;
      tree = next.tree;
    });
    this.n = tree.n;
    this.parent = tree.parent;
    this.key = tree.key;
    this.line = tree.line;
    this.values = tree.values;
    this.nodeLines = tree.nodeLines;
    const shape = PV.treeShape(tree.parent);
    this.end = shape.end;
    this.depth = shape.depth;
    this.nodeMap = map;
    this.refinedRuns = null;
    this.chartTree = null;
    this.cache = {};
    this.steps = steps.slice();
    return report;
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
