// The view's refinements (inst/htmlwidgets/lib/profile-view/pv-refine.js),
// which filter and merge the tree in typed arrays, against the way profile
// 2.2 applied them (tests/js/pv-refine-reference.js: each verb through a trie
// of every node's new stack): on the view data of real profiles (an Rprof
// recording with lines, a Go CPU profile; tests/js/view-data.R), for many
// patterns and chains of verbs, the same tree (parents, keys, lines, line
// keys, every value of every type), the same map of the samples' nodes and
// the same report, each value equal to the last bit. (pv-refine.test.mjs
// judges the refinements against the R verbs themselves.)
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { loadProfileView, near, viewData } from "./view-fixture.mjs";

let fast;
let reference;
let inputs;

before(() => {
  fast = loadProfileView(["pv-data.js", "pv-pattern.js", "pv-refine.js", "pv-lanes.js"]);
  reference = loadProfileView(["pv-data.js", "pv-pattern.js", "tests/js/pv-refine-reference.js", "pv-lanes.js"]);
  const files = viewData(["view.json", "view-go.json", "view-diff.json", "lanes.json", "view-nolines.json"]);
  inputs = [
    ["Rprof with lines", files["view.json"]],
    ["Go CPU profile", files["view-go.json"]],
    ["a diff of two Rprof recordings", files["view-diff.json"]],
    ["two recordings combined", files["lanes.json"]],
    ["Rprof without lines", files["view-nolines.json"]]
  ];
});

const COLUMNS = ["parent", "key", "line"];
// (objects of two contexts: compared as plain data)
const plain = (x) => JSON.parse(JSON.stringify(x));
const VALUES = ["totalPos", "totalNeg", "selfPos", "selfNeg"];

// (`close`: values equal up to the rounding of sums taken in another order)
function sameModel(a, b, what, close = false) {
  assert.equal(a.n, b.n, `${what}: nodes`);
  for (const c of COLUMNS) assert.deepEqual(Array.from(a[c]), Array.from(b[c]), `${what}: ${c}`);
  assert.deepEqual(Array.from(a.nodeLines.start), Array.from(b.nodeLines.start), `${what}: line keys' starts`);
  assert.deepEqual(Array.from(a.nodeLines.keys), Array.from(b.nodeLines.keys), `${what}: line keys`);
  assert.equal(a.values.length, b.values.length);
  a.values.forEach((v, t) => {
    for (const c of VALUES) {
      const label = `${what}: ${c} of type ${t}`;
      if (!close) assert.deepEqual(Array.from(v[c]), Array.from(b.values[t][c]), label);
      else v[c].forEach((x, i) => near(x, b.values[t][c][i], `${label}, node ${i}`));
    }
  });
  assert.deepEqual(a.nodeMap && Array.from(a.nodeMap), b.nodeMap && Array.from(b.nodeMap), `${what}: node map`);
}

// Patterns of the profile's own functions (the heaviest below the root, one
// deep in the tree, one that calls nothing, a few spread over the keys),
// their files and lines, and patterns that match several functions or none.
function patterns(model, PV) {
  const g = model.graph(model.defaultType);
  let widest = 0;
  let deepest = 0;
  let leaf = 0;
  for (let i = 1; i < model.n; i++) {
    if (model.parent[i] === 0 && (!widest || g.w[i] > g.w[widest])) widest = i;
    if (model.depth[i] > model.depth[deepest]) deepest = i;
    if (!leaf && model.end[i] === i + 1) leaf = i;
  }
  const names = [widest, model.parent[deepest], leaf].map((i) => model.name(i));
  for (const share of [0.2, 0.5, 0.8]) names.push(model.keyLabel(1 + Math.floor(share * (model.nKeys - 1))));
  const out = names.map((name) => PV.exactPattern(name));
  const escape = (text) => text.replace(/[.]/g, "\\.");
  const file = model.files.find((f) => f.name);
  if (file) out.push(escape(file.name));
  // the file of a function whose frames have no line (it matches by its file)
  for (let i = 1; i < model.n; i++) {
    if (model.linesOf(i).length === 0 && model.keyFileName(model.key[i])) {
      out.push(escape(model.keyFileName(model.key[i])));
      break;
    }
  }
  if (model.lineFile.length) {
    const l = model.lineFile.length >> 1;
    out.push(escape(model.files[model.lineFile[l]].name) + ":" + model.lineNumber[l] + "$");
  }
  out.push("^[a-f]", "(?i)RUNTIME|^main\\.", "^no such function$");
  return out;
}

test("each verb and chains of them give the trees of profile 2.2's refinements", () => {
  for (const [name, data] of inputs) {
    const a = new fast.Model(data);
    const b = new reference.Model(data);
    const pats = patterns(a, fast);
    const chains = [];
    for (const verb of fast.VERBS) for (const pattern of pats) chains.push([{ verb, pattern }]);
    // chains of two and three verbs, each pattern after another
    pats.forEach((pattern, j) => {
      const next = pats[(j + 1) % pats.length];
      const third = pats[(j + 2) % pats.length];
      fast.VERBS.forEach((verb, v) => {
        const then = fast.VERBS[(v + 1 + j) % fast.VERBS.length];
        chains.push([{ verb, pattern }, { verb: then, pattern: next }]);
        chains.push([{ verb: "hide", pattern: third }, { verb, pattern }, { verb: then, pattern: next }]);
      });
    });
    let refined = 0;
    for (const steps of chains) {
      const what = name + ": " + steps.map((s) => `${s.verb}(${s.pattern})`).join(" |> ");
      assert.deepEqual(plain(a.refine(steps)), plain(b.refine(steps)), `${what}: report`);
      sameModel(a, b, what);
      if (a.n !== b.base.n) refined++;
    }
    // (the patterns change the trees)
    assert.ok(refined > chains.length / 2, `${name}: ${refined} of ${chains.length} refinements change the tree`);
    // the steps removed one by one from the end, and all at once
    const steps = chains[chains.length - 1];
    for (let k = steps.length - 1; k >= 0; k--) {
      assert.deepEqual(plain(a.refine(steps.slice(0, k))), plain(b.refine(steps.slice(0, k))));
      sameModel(a, b, `${name}: ${k} steps left`);
    }
  }
});

// Both models refined by `steps`: the same reports and models.
function sameRefined(a, b, steps, what, close = false) {
  const label = what + ": " + (steps.map((s) => `${s.verb}(${s.pattern})`).join(" |> ") || "no steps");
  assert.deepEqual(plain(a.refine(steps)), plain(b.refine(steps)), `${label}: report`);
  sameModel(a, b, label, close);
}

test("patterns that match every frame or none, and trees left with the root alone", () => {
  for (const [name, data] of inputs) {
    const a = new fast.Model(data);
    const b = new reference.Model(data);
    const some = fast.exactPattern(a.name(a.n - 1));
    for (const verb of fast.VERBS) {
      for (const pattern of [".", "^no such function$"]) {
        sameRefined(a, b, [{ verb, pattern }], name);
        // (a step after it, on what it left: the root alone for some)
        for (const then of fast.VERBS) {
          sameRefined(a, b, [{ verb, pattern }, { verb: then, pattern: some }], name);
          sameRefined(a, b, [{ verb, pattern }, { verb: then, pattern: "." }], name);
        }
      }
    }
    // (hide of every frame, focus on none: the root alone)
    a.refine([{ verb: "hide", pattern: "." }]);
    assert.equal(a.n, 1, `${name}: hide(.) leaves the root`);
    a.refine([{ verb: "focus", pattern: "^no such function$" }]);
    assert.equal(a.n, 1, `${name}: focus on nothing leaves the root`);
  }
});

test("refinements added and removed in any order, one source shown alone and all again", () => {
  for (const [name, data] of inputs) {
    const a = new fast.Model(data);
    const b = new reference.Model(data);
    const pats = patterns(a, fast);
    const steps = [
      { verb: "hide", pattern: pats[2] },
      { verb: "focus", pattern: pats[0] },
      { verb: "show", pattern: pats[1] + "|" + pats[0].slice(1, -1) },
      { verb: "prune_from", pattern: pats[3] },
      { verb: "ignore", pattern: pats[5] }
    ];
    // every subset of the steps in order, visited so that each differs from
    // the one before at any place (the middle removed, the first, added back)
    const orders = [];
    for (let bits = 0; bits < 1 << steps.length; bits++) orders.push(steps.filter((s, j) => bits & (1 << j)));
    const shuffled = orders.map((o, j) => orders[(j * 7) % orders.length]);
    const sources = a.sourceList().map((s) => s.id);
    for (const id of [null].concat(sources, [null])) {
      a.sourceId = id;
      b.sourceId = id;
      for (const o of shuffled) sameRefined(a, b, o, `${name} (source ${id})`);
      // the same steps in another order
      sameRefined(a, b, steps.slice().reverse(), `${name} (source ${id})`);
    }
    if (name === "two recordings combined") assert.ok(sources.length === 2, "two sources");
  }
});

// The model's tree with the children of every node in decreasing key order
// (a tree the core does not write: the refinements order it first).
function reversedSiblings(model) {
  const n = model.n;
  const kids = Array.from({ length: n }, () => []);
  for (let i = 1; i < n; i++) kids[model.parent[i]].push(i);
  const order = [];
  const todo = [0];
  while (todo.length) {
    const i = todo.pop();
    order.push(i);
    // (pushed smallest key first: the largest is visited first)
    for (const c of kids[i].slice().sort((x, y) => model.key[x] - model.key[y])) todo.push(c);
  }
  const index = new Int32Array(n);
  order.forEach((i, j) => (index[i] = j));
  const pick = (a) => a.constructor.from(order, (i) => a[i]);
  const g = model.nodeLines;
  const start = new Int32Array(n + 1);
  const keys = [];
  order.forEach((i, j) => {
    keys.push(...g.keys.subarray(g.start[i], g.start[i + 1]));
    start[j + 1] = keys.length;
  });
  model.parent = Int32Array.from(order, (i) => (i === 0 ? 0 : index[model.parent[i]]));
  model.key = pick(model.key);
  model.line = pick(model.line);
  model.values = model.values.map((v) => ({
    totalPos: pick(v.totalPos),
    totalNeg: pick(v.totalNeg),
    selfPos: pick(v.selfPos),
    selfNeg: pick(v.selfNeg)
  }));
  model.nodeLines = { start, keys: Int32Array.from(keys) };
  return model;
}

test("a tree whose siblings are not in key order is ordered before it is refined", () => {
  for (const [name, data] of inputs.slice(0, 3)) {
    const a = reversedSiblings(new fast.Model(data));
    const b = reversedSiblings(new reference.Model(data));
    Object.assign(a, fast.treeShape(a.parent));
    Object.assign(b, reference.treeShape(b.parent));
    const pats = patterns(a, fast);
    const what = name + " (siblings reversed)";
    // (the tree is not in the order the refinements rely on)
    const lastKey = new Int32Array(a.n);
    let swapped = 0;
    for (let i = 1; i < a.n; i++) {
      if (a.key[i] < lastKey[a.parent[i]]) swapped++;
      lastKey[a.parent[i]] = a.key[i];
    }
    assert.ok(swapped > 0, `${what}: siblings out of key order`);
    // (the values summed in the order of the tree's nodes: another order)
    for (const verb of fast.VERBS) {
      for (const pattern of pats) sameRefined(a, b, [{ verb, pattern }], what, true);
    }
    sameRefined(a, b, [{ verb: "hide", pattern: pats[2] }, { verb: "focus", pattern: pats[0] }], what, true);
  }
});
