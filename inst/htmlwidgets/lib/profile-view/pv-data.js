/* The browser view of the R package profile (profile_view()), part 1 of 4:
 * the data. The package's Rust core (src/rust/core/src/view.rs) sends one JSON
 * object whose number columns are typed arrays (base64 of little-endian
 * bytes); this file decodes them into typed arrays, without a JavaScript object
 * per sample or node, and computes what the views show from them: the flame
 * graph's tree, the flame chart's blocks, the table of functions, the callers
 * and callees of a function, and the values of source lines. It also formats
 * numbers by their unit. Plain JavaScript (ES2019), no library. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  // ---- typed arrays ----------------------------------------------------------

  // A typed array of the data: {const, length}, {type, length, base64},
  // {length, values, lengths} (runs of equal values), or {start, step, steps}
  // (value i is start + step * the sum of steps[0..i]).
  function decodeArray(a) {
    if (a.lengths) {
      const values = decodeArray(a.values);
      const lengths = decodeArray(a.lengths);
      const out = new values.constructor(a.length);
      let at = 0;
      for (let r = 0; r < values.length; r++) {
        out.fill(values[r], at, at + lengths[r]);
        at += lengths[r];
      }
      return out;
    }
    if (a.steps) {
      // (the object's fields read once: a loop of 10^6 reads them slowly)
      const start = a.start;
      const step = a.step;
      let k = 0;
      if (a.steps.lengths) {
        // runs of equal steps summed as they are, not expanded first
        const values = decodeArray(a.steps.values);
        const lengths = decodeArray(a.steps.lengths);
        const out = new Float64Array(a.steps.length);
        let j = 0;
        for (let r = 0; r < values.length; r++) {
          const v = values[r];
          for (const end = j + lengths[r]; j < end; j++) {
            k += v;
            out[j] = start + step * k;
          }
        }
        return out;
      }
      const steps = decodeArray(a.steps);
      const out = new Float64Array(steps.length);
      for (let j = 0; j < steps.length; j++) {
        k += steps[j];
        out[j] = start + step * k;
      }
      return out;
    }
    if (Object.prototype.hasOwnProperty.call(a, "const")) {
      // (a new array is zeros already: filled only with another value, as
      // filling touches every page of 10^6 values)
      const out = new Float64Array(a.length);
      return a["const"] === 0 ? out : out.fill(a["const"]);
    }
    const bytes = fromBase64(a.base64);
    switch (a.type) {
      case "u8":
        return bytes;
      case "u16":
        return new Uint16Array(bytes.buffer);
      case "i32":
        return new Int32Array(bytes.buffer);
      case "f64":
        return new Float64Array(bytes.buffer);
      default:
        throw new Error("profile view: unknown array type " + a.type);
    }
  }

  // The bytes of base64 text, decoded straight from its characters (atob's
  // string of a million bytes, read back a character at a time, took twice
  // as long).
  const BASE64 = new Uint8Array(128);
  for (let i = 0; i < 64; i++) {
    BASE64["ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".charCodeAt(i)] = i;
  }

  function fromBase64(text) {
    let end = text.length;
    while (end > 0 && text.charCodeAt(end - 1) === 61) end--;
    const bytes = new Uint8Array((end * 3) >> 2);
    let j = 0;
    let i = 0;
    for (; i + 4 <= end; i += 4) {
      const v = (BASE64[text.charCodeAt(i)] << 18) | (BASE64[text.charCodeAt(i + 1)] << 12) |
        (BASE64[text.charCodeAt(i + 2)] << 6) | BASE64[text.charCodeAt(i + 3)];
      bytes[j++] = v >> 16;
      bytes[j++] = (v >> 8) & 255;
      bytes[j++] = v & 255;
    }
    // the last two or three characters (one or two bytes)
    if (end - i >= 2) {
      const v = (BASE64[text.charCodeAt(i)] << 18) | (BASE64[text.charCodeAt(i + 1)] << 12) |
        (end - i === 3 ? BASE64[text.charCodeAt(i + 2)] << 6 : 0);
      bytes[j++] = v >> 16;
      if (end - i === 3) bytes[j] = (v >> 8) & 255;
    }
    return bytes;
  }

  // ---- numbers and units -----------------------------------------------------

  function groupDigits(x) {
    const s = Math.abs(x) >= 1e15 ? x.toExponential(3) : (Math.round(x * 1000) / 1000).toString();
    const parts = s.split(".");
    parts[0] = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return parts.join(".");
  }

  // Up to four significant digits (no trailing zeros), grouped when large.
  function short(x) {
    const a = Math.abs(x);
    if (a >= 1000) return groupDigits(Math.round(x));
    return String(+x.toPrecision(4));
  }

  // Seconds per unit of the time units profilers write.
  const SECONDS = {
    nanoseconds: 1e-9,
    ns: 1e-9,
    microseconds: 1e-6,
    us: 1e-6,
    milliseconds: 1e-3,
    ms: 1e-3,
    seconds: 1,
    s: 1,
    minutes: 60,
    hours: 3600
  };
  const BYTES = [
    [1, "B"],
    [1024, "KiB"],
    [1048576, "MiB"],
    [1073741824, "GiB"],
    [1099511627776, "TiB"],
    [1125899906842624, "PiB"]
  ];
  const BYTE_UNITS = { bytes: 1, byte: 1, b: 1, kilobytes: 1024, megabytes: 1048576 };

  function formatSeconds(s) {
    const a = Math.abs(s);
    if (a === 0) return "0 s";
    if (a >= 1) return short(s) + " s";
    if (a >= 1e-3) return short(s * 1e3) + " ms";
    if (a >= 1e-6) return short(s * 1e6) + " \u00b5s";
    return short(s * 1e9) + " ns";
  }

  function formatBytes(b) {
    const a = Math.abs(b);
    for (let i = BYTES.length - 1; i > 0; i--) {
      if (a >= BYTES[i][0]) return short(b / BYTES[i][0]) + " " + BYTES[i][1];
    }
    return groupDigits(b) + " B";
  }

  // A value in its unit: time units as s, ms, µs or ns; bytes in binary units;
  // counts as plain numbers; other units after the number.
  function formatValue(x, unit) {
    const u = String(unit || "").toLowerCase();
    if (Object.prototype.hasOwnProperty.call(SECONDS, u)) return formatSeconds(x * SECONDS[u]);
    if (Object.prototype.hasOwnProperty.call(BYTE_UNITS, u)) return formatBytes(x * BYTE_UNITS[u]);
    if (u === "count" || u === "") return groupDigits(x);
    return groupDigits(x) + " " + unit;
  }

  function formatPercent(part, whole) {
    if (!(whole !== 0) || !isFinite(part / whole)) return "";
    return ((100 * part) / whole).toFixed(2) + "%";
  }

  function signed(text, x) {
    return x > 0 ? "+" + text : text;
  }

  // ---- trees for the flame renderer ------------------------------------------

  // A typed array of `Type` holding f(a[i], i) for each element of `a`.
  // (TypedArray.from() with a mapping function iterates its source the
  // generic way: on 1e5 nodes it took six times as long as this loop.)
  function mapTo(Type, a, f) {
    const out = new Type(a.length);
    for (let i = 0; i < a.length; i++) out[i] = f(a[i], i);
    return out;
  }

  function anyNonZero(a) {
    for (let i = 0; i < a.length; i++) if (a[i] !== 0) return true;
    return false;
  }

  // Subtree ends and depths of nodes in depth-first order (parents first):
  // the subtree of node i is nodes i .. end[i] - 1.
  function treeShape(parent) {
    const n = parent.length;
    const size = new Int32Array(n).fill(1);
    for (let i = n - 1; i > 0; i--) size[parent[i]] += size[i];
    const end = new Int32Array(n);
    const depth = new Int32Array(n);
    let maxDepth = 0;
    for (let i = 0; i < n; i++) {
      end[i] = i + size[i];
      if (i > 0) {
        depth[i] = depth[parent[i]] + 1;
        if (depth[i] > maxDepth) maxDepth = depth[i];
      }
    }
    return { end, depth, maxDepth };
  }

  // A tree the flame renderer draws: nodes in depth-first order, each with its
  // function key, its extent [x0, x0 + w) on the axis, and a `delta` for the
  // colours of a diff. `x0` is laid out from the widths (children side by side
  // from their parent's start) unless given (the flame chart's times).
  class FlameTree {
    constructor(fields) {
      Object.assign(this, fields);
      this.n = this.parent.length;
      // (the shape of the Model's tree is given: computed once per tree)
      if (!this.end) Object.assign(this, treeShape(this.parent));
      if (!this.x0) this.x0 = layout(this.parent, this.w);
    }
  }

  // Each node starts where its previous sibling ends, the first at its
  // parent's start.
  function layout(parent, w) {
    const n = parent.length;
    const x0 = new Float64Array(n);
    const next = new Float64Array(n);
    for (let i = 1; i < n; i++) {
      const p = parent[i];
      x0[i] = next[p];
      next[p] += w[i];
      next[i] = x0[i];
    }
    return x0;
  }

  // Builds a tree of paths of keys (a trie) with signed values, for the
  // callers and callees of a function; then as a FlameTree in depth-first
  // order, siblings by key (keys are numbered in byte order of the names).
  class TrieBuilder {
    constructor(rootKey) {
      this.parent = [0];
      this.key = [rootKey];
      this.children = [new Map()];
      this.totalPos = [0];
      this.totalNeg = [0];
      this.selfPos = [0];
      this.selfNeg = [0];
    }

    child(node, key) {
      let c = this.children[node].get(key);
      if (c === undefined) {
        c = this.parent.length;
        this.parent.push(node);
        this.key.push(key);
        this.children.push(new Map());
        this.totalPos.push(0);
        this.totalNeg.push(0);
        this.selfPos.push(0);
        this.selfNeg.push(0);
        this.children[node].set(key, c);
      }
      return c;
    }

    finish() {
      const order = [];
      const todo = [0];
      while (todo.length) {
        const node = todo.pop();
        order.push(node);
        const kids = Array.from(this.children[node].entries());
        kids.sort((a, b) => b[0] - a[0]);
        for (const kid of kids) todo.push(kid[1]);
      }
      const n = order.length;
      const index = new Int32Array(n);
      order.forEach((old, i) => {
        index[old] = i;
      });
      const pick = (column) => mapTo(Float64Array, order, (old) => column[old]);
      const totalPos = pick(this.totalPos);
      const totalNeg = pick(this.totalNeg);
      return new FlameTree({
        parent: mapTo(Int32Array, order, (old) => (old === 0 ? 0 : index[this.parent[old]])),
        key: mapTo(Int32Array, order, (old) => this.key[old]),
        w: totalPos.map((p, i) => p - totalNeg[i]),
        delta: totalPos.map((p, i) => p + totalNeg[i]),
        totalPos,
        totalNeg,
        selfPos: pick(this.selfPos),
        selfNeg: pick(this.selfNeg)
      });
    }
  }

  // ---- the model -------------------------------------------------------------

  class Model {
    constructor(data) {
      if (data.format !== 2) throw new Error("profile view: unknown data format " + data.format);
      this.title = data.title;
      this.diff = data.diff;
      this.types = data.types;
      this.defaultType = data.default_type;
      this.strings = data.strings;
      this.keyName = decodeArray(data.keys.name);
      this.keyFile = decodeArray(data.keys.file);
      this.nKeys = this.keyName.length;
      const tree = data.tree;
      this.parent = decodeArray(tree.parent);
      this.key = decodeArray(tree.key);
      this.line = decodeArray(tree.line);
      this.values = tree.values.map(decodeSums);
      this.n = this.parent.length;
      Object.assign(this, treeShape(this.parent));
      const lines = data.lines;
      this.lineFile = decodeArray(lines.file);
      this.lineNumber = decodeArray(lines.line);
      this.lineValues = lines.values.map(decodeSums);
      this.nodeLines = groupPairs(decodeArray(lines.node), decodeArray(lines.key), this.n);
      this.files = data.files;
      // the source panel's memory (R/view-memory.R): per line key, the
      // growth and shrinkage of the vector heaps between ticks (Rprof memory
      // profiling, as profvis shows them); whether alloc_space holds the
      // exact bytes of R's allocation profiler (Rprofmem)
      const heap = data.heap_lines;
      this.heapLines = heap ? { allocated: Float64Array.from(heap.allocated), released: Float64Array.from(heap.released) } : null;
      this.exactAlloc = data.exact_alloc === true;
      this.runData = data.runs;
      // the sources, and the values of each alone (pv-lanes.js)
      this.sourceData = data.sources;
      this.bySourceData = data.by_source;
      // the waits of the recording process (R/view-waits.R), drawn in its lane
      this.waitData = data.waits || null;
      this.sourceId = null;
      this.cache = {};
    }

    keyLabel(k) {
      return k === 0 ? "root" : this.strings[this.keyName[k - 1]];
    }

    keyFileName(k) {
      return k === 0 ? "" : this.strings[this.keyFile[k - 1]];
    }

    name(node) {
      return this.keyLabel(this.key[node]);
    }

    // The line keys of a node's frames.
    linesOf(node) {
      const g = this.nodeLines;
      return g.keys.subarray(g.start[node], g.start[node + 1]);
    }

    cached(name, t, make) {
      const id = name + ":" + t;
      if (!(id in this.cache)) this.cache[id] = make();
      return this.cache[id];
    }

    // What percentages of type t are of: the base's total in a diff (as go
    // tool pprof -diff_base), else the total; of the refined profile unless
    // `whole`.
    percentBase(t, whole) {
      const v = whole && this.base ? this.base.values[t] : this.values[t];
      return this.diff ? -v.totalNeg[0] : v.totalPos[0] + v.totalNeg[0];
    }

    // The flame graph of type t: the merged call tree, widths the absolute
    // values of both sides of a diff.
    graph(t) {
      return this.cached("graph", t, () => {
        const v = this.values[t];
        // (without negative values, as a profile that is no diff, both are
        // the positive totals: not copied)
        let w = v.totalPos;
        let delta = v.totalPos;
        if (anyNonZero(v.totalNeg)) {
          w = new Float64Array(this.n);
          delta = new Float64Array(this.n);
          for (let i = 0; i < this.n; i++) {
            w[i] = v.totalPos[i] - v.totalNeg[i];
            delta[i] = v.totalPos[i] + v.totalNeg[i];
          }
        }
        return new FlameTree({
          parent: this.parent,
          key: this.key,
          node: null,
          end: this.end,
          depth: this.depth,
          maxDepth: this.maxDepth,
          w,
          delta,
          totalPos: v.totalPos,
          totalNeg: v.totalNeg,
          selfPos: v.selfPos,
          selfNeg: v.selfNeg
        });
      });
    }

    // Per function key of type t: flat (self) and cum (total, counted once
    // per sample however deep the function recurses: the nodes of the key
    // that have no ancestor of the same key), both signed.
    functions(t) {
      return this.cached("functions", t, () => {
        const v = this.values[t];
        const { selfPos, selfNeg, totalPos, totalNeg } = v;
        const { key, end, n } = this;
        const flat = new Float64Array(this.nKeys + 1);
        const cum = new Float64Array(this.nKeys + 1);
        const open = new Int32Array(this.nKeys + 1);
        // the nodes open at node i (its ancestors), innermost last (the
        // Top table's first drawing waits for this pass over every node)
        const stack = new Int32Array(n);
        let depth = 0;
        for (let i = 1; i < n; i++) {
          while (depth > 0 && end[stack[depth - 1]] <= i) open[key[stack[--depth]]]--;
          const k = key[i];
          flat[k] += selfPos[i] + selfNeg[i];
          if (open[k] === 0) cum[k] += totalPos[i] + totalNeg[i];
          open[k]++;
          stack[depth++] = i;
        }
        return { flat, cum };
      });
    }

    // The nodes of key k that have no ancestor of the same key.
    outermostNodes(k) {
      const out = [];
      for (let i = 1; i < this.n; ) {
        if (this.key[i] === k) {
          out.push(i);
          i = this.end[i];
        } else {
          i++;
        }
      }
      return out;
    }

    // The callers of function k (speedscope's Sandwich, go tool pprof's
    // Peek): the stacks that lead to its outermost call in each sample, merged
    // from k outwards (k is the root; its children are its direct callers).
    callers(t, k) {
      const v = this.values[t];
      const trie = new TrieBuilder(k);
      for (const node of this.outermostNodes(k)) {
        const pos = v.totalPos[node];
        const neg = v.totalNeg[node];
        let at = 0;
        trie.totalPos[0] += pos;
        trie.totalNeg[0] += neg;
        for (let a = this.parent[node]; a !== 0; a = this.parent[a]) {
          at = trie.child(at, this.key[a]);
          trie.totalPos[at] += pos;
          trie.totalNeg[at] += neg;
        }
        trie.selfPos[at] += pos;
        trie.selfNeg[at] += neg;
      }
      return trie.finish();
    }

    // The callees of function k: the subtrees of its outermost calls merged
    // (k is the root; its children are what it calls directly).
    callees(t, k) {
      const v = this.values[t];
      const trie = new TrieBuilder(k);
      const at = new Int32Array(this.n);
      for (const node of this.outermostNodes(k)) {
        at[node] = 0;
        for (let m = node; m < this.end[node]; m++) {
          const here = m === node ? 0 : trie.child(at[this.parent[m]], this.key[m]);
          at[m] = here;
          trie.totalPos[here] += v.totalPos[m];
          trie.totalNeg[here] += v.totalNeg[m];
          trie.selfPos[here] += v.selfPos[m];
          trie.selfNeg[here] += v.selfNeg[m];
        }
      }
      return trie.finish();
    }

    // The runs of the samples in time order, decoded when first needed.
    runs() {
      if (!this.runData) return null;
      while (!this.decodedRuns) this.decodeRunsStep();
      // (refined: the runs whose samples the refinements kept, pv-refine.js)
      return this.nodeMap ? this.keptRuns(this.decodedRuns) : this.decodedRuns;
    }

    // Decodes the next column of the runs (one at a time: the page decodes
    // them in idle time before the time order is shown, PV.prepareChart());
    // true when every one is.
    decodeRunsStep() {
      if (this.decodedRuns) return true;
      const r = this.runData;
      if (!this.decodingRuns) {
        this.decodingRuns = { leaf: null, count: null, time: null, source: null, sourceId: null, step: null, weight: r.weight };
      }
      const d = this.decodingRuns;
      if (d.leaf === null) d.leaf = decodeArray(r.leaf);
      else if (d.count === null) d.count = decodeArray(r.count);
      else if (d.time === null) d.time = decodeArray(r.time);
      else if (d.source === null) d.source = decodeArray(r.source);
      else if (d.sourceId === null) d.sourceId = decodeArray(r.source_id);
      else d.step = decodeFloat(r.step);
      if (d.step === null) return false;
      this.decodedRuns = d;
      this.decodingRuns = null;
      return true;
    }

    runWeights(t) {
      const runs = this.runs();
      if (!runs.decodedWeight) runs.decodedWeight = [];
      if (!runs.decodedWeight[t]) {
        if (runs.keep) {
          const all = runs.all;
          if (!all.decodedWeight) all.decodedWeight = [];
          if (!all.decodedWeight[t]) all.decodedWeight[t] = decodeFloat(all.weight[t]);
          runs.decodedWeight[t] = mapTo(Float64Array, runs.keep, (r) => all.decodedWeight[t][r]);
        } else {
          runs.decodedWeight[t] = decodeFloat(runs.weight[t]);
        }
      }
      return runs.decodedWeight[t];
    }

    // (the flame chart of the time order, chart(), is in pv-chart.js)

    // The value of type t and the number of samples of a block of the chart,
    // and the part of them whose stacks end at the block's frame.
    chartBlockValues(t, b) {
      const runs = this.runs();
      const tree = this.chart();
      const weight = this.runWeights(t);
      const prefix = this.cached("runPrefix", t, () => {
        const out = new Float64Array(weight.length + 1);
        for (let r = 0; r < weight.length; r++) out[r + 1] = out[r] + weight[r];
        return out;
      });
      let own = 0;
      let samples = 0;
      const leafNode = tree.node[b];
      for (let r = tree.r0[b]; r <= tree.r1[b]; r++) {
        samples += runs.count[r];
        if (b !== 0 && runs.leaf[r] === leafNode) own += weight[r];
      }
      return { total: prefix[tree.r1[b] + 1] - prefix[tree.r0[b]], self: own, samples };
    }

    // Per line key of type t: self and total, signed.
    lines(t) {
      return this.cached("lines", t, () => {
        const v = this.lineValues[t];
        return {
          self: v.selfPos.map((p, i) => p + v.selfNeg[i]),
          total: v.totalPos.map((p, i) => p + v.totalNeg[i])
        };
      });
    }

    // The line keys of each file (index into `files`).
    fileLines() {
      if (!this.byFile) {
        this.byFile = this.files.map(() => []);
        for (let k = 0; k < this.lineFile.length; k++) this.byFile[this.lineFile[k]].push(k);
      }
      return this.byFile;
    }

    typeIndex(name) {
      return this.types.findIndex((type) => type.name === name);
    }
  }

  // Values as doubles (sums of both signs must not wrap around).
  function decodeFloat(a) {
    const x = decodeArray(a);
    return x instanceof Float64Array ? x : Float64Array.from(x);
  }

  function decodeSums(v) {
    return {
      totalPos: decodeFloat(v.total_pos),
      totalNeg: decodeFloat(v.total_neg),
      selfPos: decodeFloat(v.self_pos),
      selfNeg: decodeFloat(v.self_neg)
    };
  }

  // (node, key) pairs sorted by node as an index: the keys of node i are
  // keys[start[i] .. start[i + 1]].
  function groupPairs(nodes, keys, n) {
    const start = new Int32Array(n + 1);
    for (let j = 0; j < nodes.length; j++) start[nodes[j] + 1]++;
    for (let i = 0; i < n; i++) start[i + 1] += start[i];
    return { start, keys: Int32Array.from(keys) };
  }

  Object.assign(PV, {
    decodeArray,
    formatValue,
    formatPercent,
    signed,
    FlameTree,
    Model,
    treeShape,
    mapTo
  });
})(typeof window !== "undefined" ? window : this);
