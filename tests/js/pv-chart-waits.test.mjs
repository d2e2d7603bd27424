// The time order's flame chart (pv-chart.js) of a process that waited: a
// gap in time between two runs of a source ends every block (the samples of a
// recording's main process are placed around its waits, R/view-waits.R), and
// the waits of the view's data (`waits`) are blocks of their own in their
// lane's first row. The blocks are judged against those made the plain way,
// from each run's whole stack, a gap closing every frame open.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { CHART_SCRIPTS, loadProfileView, plainBlocks, viewData } from "./view-fixture.mjs";

let PV;
let data;

before(() => {
  PV = loadProfileView(CHART_SCRIPTS);
  data = viewData(["view.json", "lanes.json"]);
});


// Every block under the root, asked for from the root down, but the lanes'.
function frames(tree) {
  const todo = [0];
  const seen = [];
  while (todo.length) {
    const b = todo.pop();
    if (b !== 0 && !(tree.lanes && tree.lanes.some((l) => l.node === b))) seen.push(b);
    for (const c of tree.children(b)) todo.push(c);
  }
  return seen;
}

// The outermost frame of run r's stack.
function outermost(model, r) {
  let m = model.runs().leaf[r];
  while (model.parent[m] !== 0) m = model.parent[m];
  return m;
}

// The model of `file` with the runs of its first lane after one in its
// second half moved `by` seconds later (a gap in its time), and that run
// (one whose outermost frame the next run shares).
function withGap(file, by) {
  const model = new PV.Model(data[file]);
  const runs = model.runs();
  const number = model.lanes()[0].number;
  const rs = [];
  for (let r = 0; r < runs.leaf.length; r++) if (runs.source[r] === number) rs.push(r);
  let k = Math.floor(rs.length / 2);
  while (outermost(model, rs[k]) !== outermost(model, rs[k + 1])) k++;
  const middle = rs[k];
  for (const r of rs) if (r > middle) runs.time[r] += by;
  return { model, middle };
}

for (const file of ["view.json", "lanes.json"]) {
  test(`a gap in time ends every block (${file})`, () => {
    const { model, middle } = withGap(file, 5);
    const tree = model.chart();
    const plain = plainBlocks(model);
    const blocks = frames(tree);
    assert.equal(blocks.length, plain.size);
    for (const b of blocks) {
      const want = plain.get(`${tree.depth[b]}:${tree.r0[b]}`);
      assert.ok(want, `block ${tree.depth[b]}:${tree.r0[b]}`);
      assert.equal(tree.node[b], want.node);
      assert.equal(tree.r1[b], want.r1);
    }
    // no block holds runs on both sides of the gap: the outermost frame of
    // the runs on both sides is two blocks
    assert.ok(blocks.every((b) => tree.r1[b] <= middle || tree.r0[b] > middle));
    const outer = blocks.filter((b) => tree.node[b] === outermost(model, middle) && tree.level[b] === 1);
    assert.ok(outer.some((b) => tree.r1[b] === middle));
    assert.ok(outer.some((b) => tree.r0[b] === middle + 1));
  });
}

test("runs the refinements left out make no gap", () => {
  // (the same profile refined: blocks as if the runs left out were not there)
  const model = new PV.Model(data["view.json"]);
  model.refine([{ verb: "ignore", pattern: "cmp" }]);
  const tree = model.chart();
  const runs = model.runs();
  let gaps = 0;
  for (let r = 1; r < runs.leaf.length; r++) {
    if (runs.time[r] > runs.time[r - 1] + (runs.count[r - 1] + 0.5) * runs.step[runs.source[r]]) gaps++;
  }
  assert.ok(gaps > 0, "the runs left out leave gaps in time");
  const merged = new Map();
  for (const b of frames(tree)) merged.set(`${tree.depth[b]}:${tree.r0[b]}`, tree.r1[b]);
  // the plain blocks without the gap rule: every run's stack, one after the other
  let open = [];
  let count = 0;
  for (let r = 0; r < runs.leaf.length; r++) {
    const path = [];
    for (let m = runs.leaf[r]; m !== 0; m = model.parent[m]) path.unshift(m);
    let same = 0;
    while (same < path.length && same < open.length && open[same] === path[same]) same++;
    open = path;
    for (let d = same; d < path.length; d++) {
      count++;
      assert.ok(merged.has(`${d + 1}:${r}`), `block ${d + 1}:${r}`);
    }
  }
  assert.equal(merged.size, count);
});

// The data of `file` with a wait of the source of its first lane from `from`
// to `to` (seconds on the axis).
function withWait(file, from, to) {
  const d = JSON.parse(JSON.stringify(data[file]));
  const id = new PV.Model(d).lanes()[0].id;
  d.waits = { source: [id], start: [from], end: [to], label: ["waiting for workers"], detail: ["while worker pid 7 ran"] };
  return d;
}

for (const file of ["view.json", "lanes.json"]) {
  test(`a wait is a block of its own in its lane's first row (${file})`, () => {
    const plain = new PV.Model(data[file]).chart();
    const end = plain.x0[0] + plain.w[0];
    // (a wait up to after the last sample: the root spans it)
    const model = new PV.Model(withWait(file, end * 0.4, end * 1.5));
    const tree = model.chart();
    assert.equal(tree.waits.size, 1);
    const [[i, w]] = [...tree.waits];
    assert.equal(w.detail, "while worker pid 7 ran");
    assert.equal(tree.labels.get(i), "waiting for workers");
    assert.equal(tree.x0[i], end * 0.4);
    assert.equal(tree.x0[i] + tree.w[i], end * 1.5);
    assert.ok(tree.x0[0] + tree.w[0] >= end * 1.5);
    const lane = tree.lanes ? tree.lanes[0] : null;
    assert.equal(tree.depth[i], lane ? lane.row + 1 : 1);
    assert.equal(tree.parent[i], lane ? lane.node : 0);
    if (lane) assert.deepEqual(Array.from(lane.waits, (x) => x.node), [i]);
    assert.ok(tree.children(tree.parent[i]).includes(i));
    assert.equal(tree.children(i).length, 0);
    assert.equal(model.chartBlockValues(0, i).samples, 0);
    // the other blocks are those without the wait
    assert.equal(frames(tree).length, frames(plain).length + 1);
    // drawn where it is in view, at least a pixel wide
    const visited = (from, span, width) => {
      const placed = [];
      tree.visit(from, span, width / span, 0.5, 1e9, (b) => placed.push(b), () => {});
      return placed.includes(i);
    };
    assert.ok(visited(0, end, 1000));
    assert.ok(!visited(0, end * 0.3, 1000));
    assert.ok(!visited(0, end, 1));
  });
}
