// The time order's flame chart (inst/htmlwidgets/lib/profile-view/pv-chart.js)
// under node's own test runner. The chart makes its blocks when they are
// drawn or asked for; here every block is asked for (through children()) and
// judged against the blocks made the plain way, from each run's whole stack
// (a block at depth d: the runs, one after the other in a source, whose
// stacks hold the same node at depth d), on the view data of a real
// recording (tests/js/view-data.R) and of two recordings combined (a lane
// each). What a drawing visits is judged against those blocks too: every
// block at least a pixel wide in view, and no other.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { CHART_SCRIPTS, loadProfileView, near, plainBlocks, viewData } from "./view-fixture.mjs";

let PV;
let data;

before(() => {
  PV = loadProfileView(CHART_SCRIPTS);
  data = viewData(["view.json", "lanes.json"]);
});


// Every block of the chart, asked for from the root down.
function everyBlock(tree) {
  const todo = [0];
  const seen = [];
  while (todo.length) {
    const b = todo.pop();
    seen.push(b);
    for (const c of tree.children(b)) todo.push(c);
  }
  return seen;
}

const name = (tree, b) => `${tree.depth[b]}:${tree.r0[b]}`;

for (const file of ["view.json", "lanes.json"]) {
  test(`the chart's blocks are those of each run's whole stack (${file})`, () => {
    const model = new PV.Model(data[file]);
    const tree = model.chart();
    assert.equal(tree.n, 1 + (tree.lanes ? tree.lanes.length : 0));
    const plain = plainBlocks(model);
    assert.ok(plain.size > 100);
    const all = everyBlock(tree);
    const laneBlocks = new Set(tree.lanes ? tree.lanes.map((l) => l.node) : []);
    assert.equal(laneBlocks.size, file === "lanes.json" ? 2 : 0);
    const frames = all.filter((b) => b !== 0 && !laneBlocks.has(b));
    assert.equal(frames.length, plain.size);
    assert.equal(tree.n, all.length);
    for (const b of frames) {
      const want = plain.get(name(tree, b));
      assert.ok(want, `block ${name(tree, b)}`);
      assert.equal(tree.node[b], want.node);
      assert.equal(tree.key[b], model.key[want.node]);
      assert.equal(tree.r1[b], want.r1);
      assert.equal(tree.x0[b], want.x0);
      assert.equal(tree.x0[b] + tree.w[b], want.x1);
      const p = tree.parent[b];
      assert.equal(p === 0 ? "0:0" : name(tree, p), want.parent);
    }
    // the root spans every block; each lane its own
    let end = 0;
    for (const block of plain.values()) end = Math.max(end, block.x1);
    assert.equal(tree.x0[0] + tree.w[0] >= end, true);
    for (const l of tree.lanes || []) {
      assert.equal(tree.x0[l.node], l.start);
      assert.equal(tree.w[l.node], l.extent);
    }
    // asked for again, the same ids
    assert.deepEqual(everyBlock(tree), all);
  });

  test(`a drawing visits every block at least a pixel wide in view, and no other (${file})`, () => {
    const model = new PV.Model(data[file]);
    const tree = model.chart();
    const plain = plainBlocks(model);
    const whole = tree.w[0];
    const windows = [
      [tree.x0[0], whole, 1200],
      [tree.x0[0], whole, 60],
      [tree.x0[0] + 0.3 * whole, 0.05 * whole, 800],
      [tree.x0[0] + 0.71 * whole, 0.2 * whole, 90]
    ];
    for (const [from, span, width] of windows) {
      const scale = width / span;
      const placed = [];
      let merged = 0;
      tree.visit(from, span, scale, 0.5, 1e9, (b) => placed.push(b), (row, a, b) => {
        assert.ok(a < b || a === b, "a merged stretch");
        merged++;
      });
      const drawn = new Set();
      for (const b of placed) {
        if (b === 0 || (tree.lanes && tree.lanes.some((l) => l.node === b))) continue;
        drawn.add(name(tree, b));
      }
      const expected = new Set();
      for (const block of plain.values()) {
        const lo = Math.max(block.x0, from);
        const hi = Math.min(block.x1, from + span);
        if (block.x1 > from && block.x0 < from + span && (hi - lo) * scale >= 1) expected.add(block.name);
      }
      assert.deepEqual([...drawn].sort(), [...expected].sort(), `window ${from} + ${span} at ${width} pixels`);
      if (width < 100) assert.ok(merged > 0, "narrow blocks merged");
    }
  });
}

test("the chart follows the refinements: the blocks of the runs kept", () => {
  const model = new PV.Model(data["view.json"]);
  model.refine([{ verb: "focus", pattern: "^is\\.odd\\.num$" }]);
  const tree = model.chart();
  const plain = plainBlocks(model, { gaps: false });
  const frames = everyBlock(tree).filter((b) => b !== 0);
  assert.ok(frames.length > 0);
  assert.equal(frames.length, plain.size);
  for (const b of frames) assert.equal(tree.node[b], plain.get(name(tree, b)).node);
});

// A run may stop after runs that start after it (the samples of a source in
// time order, but a long one among them): a block then ends at the furthest
// stop of its runs, which the chart keeps per run only for such runs.
test("the chart's blocks end at the furthest stop of their runs when runs overlap", () => {
  const model = new PV.Model(data["view.json"]);
  const runs = model.runs();
  // (every 7th run ten times as long: it reaches over the next few)
  for (let r = 3; r < runs.leaf.length; r += 7) runs.count[r] *= 10;
  const tree = model.chart();
  assert.ok(tree.reachTo !== null, "runs overlap");
  const plain = plainBlocks(model);
  const frames = everyBlock(tree).filter((b) => b !== 0);
  assert.equal(frames.length, plain.size);
  let shorter = 0;
  for (const b of frames) {
    const want = plain.get(name(tree, b));
    assert.equal(tree.node[b], want.node);
    assert.equal(tree.x0[b] + tree.w[b], want.x1);
    const lastStop = runs.time[want.r1] + runs.count[want.r1] * runs.step[runs.source[want.r1]];
    if (want.x1 > lastStop) shorter++;
  }
  assert.ok(shorter > 0, "blocks whose last run stops before another of theirs");
});

// Merged stretches (blocks narrower than a pixel, drawn as one grey block):
// each holds the narrow blocks of its row between its first and last run, and
// together they hold every narrow block in view; what a stretch holds (its
// frames, samples and value per function) is judged against those blocks.
for (const file of ["view.json", "lanes.json"]) {
  test(`merged stretches hold the blocks narrower than a pixel, and say what they hold (${file})`, () => {
    const model = new PV.Model(data[file]);
    const tree = model.chart();
    const plain = [...plainBlocks(model).values()];
    const runs = model.runs();
    const weights = model.runWeights(0);
    const whole = tree.w[0];
    for (const [from, span, width] of [[tree.x0[0], whole, 60], [tree.x0[0] + 0.2 * whole, 0.5 * whole, 150]]) {
      const scale = width / span;
      const stretches = [];
      tree.visit(from, span, scale, 0.5, 1e9, () => {}, (row, x0, x1, j, d, a, b) => stretches.push({ row, x0, x1, j, d, a, b }));
      assert.ok(stretches.length > 0);
      const narrow = plain.filter((block) => {
        const lo = Math.max(block.x0, from);
        const hi = Math.min(block.x1, from + span);
        return block.x1 > from && block.x0 < from + span && (hi - lo) * scale < 1;
      });
      let frames = 0;
      for (const s of stretches) {
        const inside = narrow.filter((block) => block.row === s.row && block.r0 >= s.a && block.r0 <= s.b);
        const summary = tree.mergedSummary(s.j, s.d, s.a, s.b, weights);
        assert.equal(summary.frames, inside.length, `stretch of row ${s.row} at ${s.x0}`);
        frames += summary.frames;
        // its value per function: the runs of its blocks, by the block's function
        const byKey = new Map();
        let samples = 0;
        for (const block of inside) {
          for (let r = block.r0; r <= Math.min(block.r1, s.b); r++) {
            byKey.set(model.key[block.node], (byKey.get(model.key[block.node]) || 0) + weights[r]);
            samples += runs.count[r];
          }
        }
        assert.equal(summary.samples, samples);
        assert.equal(summary.keys.length, byKey.size);
        for (const [k, v] of summary.keys) near(v, byKey.get(k), `function ${k}`);
        assert.ok(s.x0 <= s.x1);
      }
      assert.equal(frames, narrow.length, `window ${from} + ${span} at ${width} pixels`);
    }
  });
}

// The node at depth d of run r's stack (outermost at depth 1), or -1.
function nodeAt(model, runs, r, d) {
  const path = [];
  for (let m = runs.leaf[r]; m !== 0; m = model.parent[m]) path.unshift(m);
  return d <= path.length ? path[d - 1] : -1;
}

// A search highlights a merged stretch when a frame at its depth in one of
// its runs has a matched function: mergedMatch() (an index of bits per run
// and depth, ORed over groups of runs) judged against each run's whole stack,
// for stretches of a few lengths (within and across groups of 16 runs) at
// every depth, for a few searches made one after the other in the same array.
for (const file of ["view.json", "lanes.json"]) {
  test(`a merged stretch matches a search when a frame at its depth does (${file})`, () => {
    const model = new PV.Model(data[file]);
    const runs = model.runs();
    const tree = model.chart();
    const n = runs.leaf.length;
    const spans = [];
    for (const start of [0, 1, 15, 16, 33, Math.floor(n / 3), n - 40]) {
      for (const length of [1, 2, 15, 16, 17, 31, 257, n]) {
        const a = Math.max(0, start);
        spans.push([a, Math.min(n - 1, a + length - 1)]);
      }
    }
    const matched = new Uint8Array(model.nKeys + 1);
    for (let version = 1; version <= 4; version++) {
      matched.fill(0);
      // (version 4: every function)
      for (let k = version; k <= model.nKeys; k += version === 4 ? 1 : 4 + version) matched[k] = 1;
      let yes = 0;
      let no = 0;
      for (let d = 1; d <= tree.maxDepth + 1; d++) {
        for (const [a, b] of spans) {
          let plain = false;
          for (let r = a; r <= b && !plain; r++) {
            const node = nodeAt(model, runs, r, d);
            plain = node >= 0 && matched[model.key[node]] === 1;
          }
          assert.equal(tree.mergedMatch(matched, version, d, a, b), plain, `depth ${d}, runs ${a}..${b}, search ${version}`);
          if (plain) yes++;
          else no++;
        }
      }
      assert.ok(yes > 0 && no > 0);
    }
  });
}
