// The view's refinements (inst/htmlwidgets/lib/profile-view/pv-refine.js)
// against the way profile 2.2 applied them (tests/js/pv-refine-reference.js)
// on random trees: few function keys, so that functions recurse and hide and
// show merge the children of many dropped frames with their grandparent's
// (what the real profiles of pv-refine-same.test.mjs do little of), line keys
// on some nodes, values of both signs, and random chains of verbs added and
// removed. The same tree, map and report, each value equal to the last bit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadProfileView } from "./view-fixture.mjs";

const fast = loadProfileView(["pv-data.js", "pv-pattern.js", "pv-refine.js"]);
const reference = loadProfileView(["pv-data.js", "pv-pattern.js", "tests/js/pv-refine-reference.js"]);

// A deterministic generator of numbers in [0, 1) (mulberry32).
function generator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A random canonical tree (depth-first order, siblings by increasing key,
// each node's line keys increasing) of `nKeys` functions in `nFiles` files,
// each function with three line keys of its file, as the fields a Model
// built from the view's JSON has.
// (`scrambled`: siblings in random order, as the core never writes a tree:
// the refinements make it canonical first)
function randomModel(PV, random, nKeys, nFiles, maxNodes, scrambled = false) {
  const int = (n) => Math.floor(random() * n);
  const files = Array.from({ length: nFiles }, (_, f) => ({ name: f === 0 ? "" : "src/f" + f + ".R" }));
  const keyFile = Int32Array.from({ length: nKeys }, () => int(nFiles));
  const lineFile = [];
  const lineNumber = [];
  const linesOfKey = [];
  for (let k = 1; k <= nKeys; k++) {
    linesOfKey[k] = [];
    if (keyFile[k - 1] === 0) continue;
    for (let j = 0; j < 3; j++) {
      linesOfKey[k].push(lineFile.length);
      lineFile.push(keyFile[k - 1]);
      lineNumber.push(10 * k + j);
    }
  }
  const parent = [0];
  const key = [0];
  const line = [0];
  const start = [0, 0];
  const keys = [];
  const grow = (p, depth) => {
    const children = [];
    for (let k = 1; k <= nKeys; k++) if (random() < (depth < 2 ? 0.6 : 0.35)) children.push(k);
    if (scrambled) {
      for (let j = children.length - 1; j > 0; j--) {
        const r = int(j + 1);
        [children[j], children[r]] = [children[r], children[j]];
      }
    }
    for (const k of children) {
      if (parent.length >= maxNodes || depth > 9) return;
      const i = parent.length;
      parent.push(p);
      key.push(k);
      const mine = linesOfKey[k].filter(() => random() < 0.5);
      line.push(mine.length === 1 ? lineNumber[mine[0]] : 0);
      for (const l of mine) keys.push(l);
      start.push(keys.length);
      if (random() < 0.7) grow(i, depth + 1);
    }
  };
  grow(0, 0);
  const n = parent.length;
  const values = [0, 1].map((t) => {
    const selfPos = new Float64Array(n);
    const selfNeg = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      if (random() < 0.6) selfPos[i] = 1 + int(5 + 10 * t);
      if (random() < 0.3) selfNeg[i] = -(1 + int(4));
    }
    const totalPos = selfPos.slice();
    const totalNeg = selfNeg.slice();
    for (let i = n - 1; i > 0; i--) {
      totalPos[parent[i]] += totalPos[i];
      totalNeg[parent[i]] += totalNeg[i];
    }
    return { totalPos, totalNeg, selfPos, selfNeg };
  });
  const m = Object.create(PV.Model.prototype);
  const strings = Array.from({ length: nKeys }, (_, k) => "f" + (k + 1)).concat(files.map((f) => f.name));
  Object.assign(m, {
    n,
    parent: Int32Array.from(parent),
    key: Int32Array.from(key),
    line: Int32Array.from(line),
    values,
    nodeLines: { start: Int32Array.from(start), keys: Int32Array.from(keys) },
    nKeys,
    strings,
    keyName: Int32Array.from({ length: nKeys }, (_, k) => k),
    keyFile: Int32Array.from(keyFile, (f) => nKeys + f),
    files,
    lineFile: Int32Array.from(lineFile),
    lineNumber: Int32Array.from(lineNumber),
    sourceId: null,
    cache: {}
  });
  Object.assign(m, PV.treeShape(m.parent));
  return m;
}

const COLUMNS = ["parent", "key", "line"];
const VALUES = ["totalPos", "totalNeg", "selfPos", "selfNeg"];

function sameModel(a, b, what) {
  assert.equal(a.n, b.n, `${what}: nodes`);
  for (const c of COLUMNS) assert.deepEqual(Array.from(a[c]), Array.from(b[c]), `${what}: ${c}`);
  assert.deepEqual(Array.from(a.nodeLines.start), Array.from(b.nodeLines.start), `${what}: line keys' starts`);
  assert.deepEqual(Array.from(a.nodeLines.keys), Array.from(b.nodeLines.keys), `${what}: line keys`);
  a.values.forEach((v, t) => {
    for (const c of VALUES) assert.deepEqual(Array.from(v[c]), Array.from(b.values[t][c]), `${what}: ${c} of type ${t}`);
  });
  assert.deepEqual(a.nodeMap && Array.from(a.nodeMap), b.nodeMap && Array.from(b.nodeMap), `${what}: node map`);
  // (the shape the refinement made on the way, as the tree's parents give it)
  const shape = fast.treeShape(a.parent);
  assert.deepEqual(Array.from(a.end), Array.from(shape.end), `${what}: subtree ends`);
  assert.deepEqual(Array.from(a.depth), Array.from(shape.depth), `${what}: depths`);
  assert.equal(a.maxDepth, shape.maxDepth, `${what}: deepest`);
}

// A random pattern: one function or a few, a file, a file's line, or all.
function randomPattern(random, nKeys, nFiles) {
  const int = (n) => Math.floor(random() * n);
  const r = random();
  if (r < 0.45) return "^f" + (1 + int(nKeys)) + "$";
  if (r < 0.7) return "^f(" + (1 + int(nKeys)) + "|" + (1 + int(nKeys)) + ")$";
  if (r < 0.8) return "f" + (1 + int(nFiles - 1)) + "\\.R$";
  if (r < 0.9) {
    const k = 1 + int(nKeys);
    return ":" + (10 * k + int(3)) + "$";
  }
  return r < 0.95 ? "." : "^nothing$";
}

test("random trees and chains of verbs give the trees of profile 2.2's refinements", () => {
  let changed = 0;
  let checked = 0;
  for (let seed = 1; seed <= 60; seed++) {
    const random = generator(seed);
    const nKeys = 3 + (seed % 6);
    const nFiles = 3;
    const a = randomModel(fast, random, nKeys, nFiles, 40 + 30 * (seed % 10));
    const b = randomModel(reference, generator(seed), nKeys, nFiles, 40 + 30 * (seed % 10));
    let steps = [];
    for (let move = 0; move < 12; move++) {
      // mostly a step added at the end; sometimes one removed anywhere
      if (steps.length && random() < 0.35) {
        const j = Math.floor(random() * steps.length);
        steps = steps.filter((s, i) => i !== j);
      } else {
        const verb = fast.VERBS[Math.floor(random() * fast.VERBS.length)];
        steps = steps.concat([{ verb, pattern: randomPattern(random, nKeys, nFiles) }]);
      }
      const what = `seed ${seed}: ` + steps.map((s) => `${s.verb}(${s.pattern})`).join(" |> ");
      assert.deepEqual(JSON.parse(JSON.stringify(a.refine(steps))), JSON.parse(JSON.stringify(b.refine(steps))), `${what}: report`);
      sameModel(a, b, what);
      checked++;
      if (a.n !== a.base.n) changed++;
    }
  }
  // (the random steps change the trees)
  assert.ok(changed > checked / 2, `${changed} of ${checked} refinements change the tree`);
});

test("a tree whose siblings are not in key order is refined as 2.2 did, and shown as it is without steps", () => {
  for (let seed = 1; seed <= 30; seed++) {
    const random = generator(seed);
    const nKeys = 3 + (seed % 5);
    const a = randomModel(fast, random, nKeys, 3, 120, true);
    const b = randomModel(reference, generator(seed), nKeys, 3, 120, true);
    const given = Array.from(a.key);
    for (const steps of [
      [{ verb: "hide", pattern: randomPattern(random, nKeys, 3) }],
      [],
      [{ verb: "focus", pattern: randomPattern(random, nKeys, 3) }, { verb: "show", pattern: "." }],
      [{ verb: "prune_from", pattern: randomPattern(random, nKeys, 3) }],
      []
    ]) {
      const what = `seed ${seed}: ` + (steps.map((s) => `${s.verb}(${s.pattern})`).join(" |> ") || "no steps");
      assert.deepEqual(JSON.parse(JSON.stringify(a.refine(steps))), JSON.parse(JSON.stringify(b.refine(steps))), `${what}: report`);
      sameModel(a, b, what);
      if (!steps.length) assert.deepEqual(Array.from(a.key), given, `${what}: the tree given`);
    }
  }
});

test("a refinement sums a sample type's values when they are first read, in any order, as 2.2 did", () => {
  const VALUES_REVERSED = ["selfNeg", "selfPos", "totalNeg", "totalPos"];
  for (let seed = 1; seed <= 30; seed++) {
    const random = generator(seed);
    const nKeys = 3 + (seed % 6);
    const a = randomModel(fast, random, nKeys, 3, 150);
    const b = randomModel(reference, generator(seed), nKeys, 3, 150);
    let steps = [];
    for (let move = 0; move < 6; move++) {
      const verb = fast.VERBS[Math.floor(random() * fast.VERBS.length)];
      steps = steps.concat([{ verb, pattern: randomPattern(random, nKeys, 3) }]);
      a.refine(steps);
      b.refine(steps);
      // (the steps before this one were never read: each type's values are
      // summed through them when read)
      if (move % 3 !== 2) continue;
      const what = `seed ${seed}: ` + steps.map((s) => `${s.verb}(${s.pattern})`).join(" |> ");
      const descriptor = Object.getOwnPropertyDescriptor(a.values, 0);
      assert.equal(typeof descriptor.get, "function", `${what}: type 0 not summed before it is read`);
      for (const t of [1, 0]) {
        for (const c of VALUES_REVERSED) {
          assert.deepEqual(Array.from(a.values[t][c]), Array.from(b.values[t][c]), `${what}: ${c} of type ${t}`);
        }
      }
      assert.equal(a.values.length, 2);
      assert.equal(a.values[0], a.values[0], `${what}: summed once`);
    }
  }
});
