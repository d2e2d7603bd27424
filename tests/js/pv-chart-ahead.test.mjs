// The time order made ahead, in idle time after the page's first drawing
// (PV.prepareChart(): the runs decoded a column at a time, the index in
// slices of runs, the drawing of the whole axis a row at a time and kept),
// judged against the chart made at once when the time order is shown: the
// same blocks, and the same calls of place() and many() in every drawing.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { CHART_SCRIPTS, loadProfileView, viewData } from "./view-fixture.mjs";

let PV;
let data;

before(() => {
  PV = loadProfileView(CHART_SCRIPTS);
  data = viewData(["view.json", "lanes.json"]);
  // (slices of a few runs: the pass's state carried over many of them)
  PV.ChartTree.slice = 7;
});

// What a drawing of `from`, `span` at `width` pixels asks for: each block
// placed with its fields, and each merged stretch.
function drawing(tree, from, span, width, lastRow = 40) {
  const out = [];
  const place = (i) => {
    out.push(["block", i, tree.node[i], tree.key[i], tree.x0[i], tree.w[i], tree.r0[i], tree.r1[i], tree.depth[i],
      tree.parent[i]]);
  };
  tree.visit(from, span, width / span, 0.5, lastRow, place, (...stretch) => out.push(["merged", ...stretch]));
  return out;
}

const wholeAt = (width) => (tree) => ({ from: tree.x0[0], span: tree.w[0], scale: width / tree.w[0], minPx: 0.5, lastRow: 40 });

async function prepared(model, whole) {
  PV.prepareChart(model, whole);
  // (node has no requestIdleCallback: a step per timer)
  for (let i = 0; i < 1e5 && !(model.chartReady && (model.chartReady.ahead || !whole)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (!whole && model.chartReady && model.chartReady.buildSteps.length === 0) break;
  }
}

for (const file of ["view.json", "lanes.json"]) {
  test(`a chart made ahead draws what one made at once draws (${file})`, async () => {
    const atOnce = new PV.Model(data[file]).chart();
    const model = new PV.Model(data[file]);
    // (narrow: merged stretches in every row)
    await prepared(model, wholeAt(90));
    const ready = model.chartReady;
    assert.ok(ready && ready.ahead, "made ahead");
    const tree = model.chart();
    assert.equal(tree, ready);
    // the whole axis: the calls kept, without a search of the runs
    const visitSteps = tree.visitSteps;
    tree.visitSteps = () => {
      throw new Error("the runs searched");
    };
    const whole = drawing(tree, tree.x0[0], tree.w[0], 90);
    tree.visitSteps = visitSteps;
    assert.ok(whole.some((c) => c[0] === "merged") && whole.some((c) => c[0] === "block" && c[1] > 0));
    assert.deepEqual(whole, drawing(atOnce, atOnce.x0[0], atOnce.w[0], 90));
    // other drawings (another width, a window, every row) search the runs
    const w = atOnce.w[0];
    for (const [from, span, width, rows] of [[atOnce.x0[0], w, 1200, 40], [atOnce.x0[0], w, 91, 40], [atOnce.x0[0] + 0.3 * w, 0.05 * w, 800, 1e9],
      [atOnce.x0[0] + 0.71 * w, 0.2 * w, 90, 1e9]]) {
      assert.deepEqual(drawing(tree, from, span, width, rows), drawing(atOnce, from, span, width, rows));
    }
    for (const field of ["start", "reachTo", "maxDepth", "oneStep", "laneRuns", "lanes", "sourceRuns"]) {
      assert.deepEqual(tree[field], atOnce[field], field);
    }
    assert.deepEqual(tree.sharedLevels, atOnce.sharedLevels);
    assert.deepEqual(tree.depthLevels, atOnce.depthLevels);
  });
}

test("a chart made ahead is not used once the refinements changed the runs", async () => {
  const model = new PV.Model(data["view.json"]);
  await prepared(model, wholeAt(1200));
  const ready = model.chartReady;
  assert.ok(ready && ready.ahead);
  const steps = [{ verb: "focus", pattern: "^is\\.odd\\.num$" }];
  model.refine(steps);
  const tree = model.chart();
  assert.notEqual(tree, ready);
  const refined = new PV.Model(data["view.json"]);
  refined.refine(steps);
  const atOnce = refined.chart();
  assert.deepEqual(drawing(tree, tree.x0[0], tree.w[0], 1200), drawing(atOnce, atOnce.x0[0], atOnce.w[0], 1200));
});

test("a chart shown before it is made ahead is made at once, and the preparation stops", async () => {
  const model = new PV.Model(data["lanes.json"]);
  PV.prepareChart(model, wholeAt(1200));
  // (a few steps: some columns decoded)
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  const tree = model.chart();
  for (let i = 0; i < 50; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(model.chart(), tree);
  assert.equal(tree.ahead, null);
  const atOnce = new PV.Model(data["lanes.json"]).chart();
  assert.deepEqual(drawing(tree, tree.x0[0], tree.w[0], 1200), drawing(atOnce, atOnce.x0[0], atOnce.w[0], 1200));
});

test("runs that overlap, indexed in slices: each run's furthest stop as at once", async () => {
  const lengthen = (model) => {
    const runs = model.runs();
    for (let r = 3; r < runs.leaf.length; r += 7) runs.count[r] *= 10;
  };
  const model = new PV.Model(data["view.json"]);
  lengthen(model);
  await prepared(model, wholeAt(700));
  const tree = model.chart();
  const other = new PV.Model(data["view.json"]);
  lengthen(other);
  const atOnce = other.chart();
  assert.ok(atOnce.reachTo !== null);
  assert.deepEqual(tree.reachTo, atOnce.reachTo);
  assert.deepEqual(drawing(tree, tree.x0[0], tree.w[0], 700), drawing(atOnce, atOnce.x0[0], atOnce.w[0], 700));
});
