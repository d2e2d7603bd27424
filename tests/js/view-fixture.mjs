// What the tests of the view's scripts share (not a test file itself: node
// --test runs only files named *.test.mjs): the view's scripts evaluated as a
// page would, the JSON that tests/js/view-data.R writes for a sample profile
// (with the package installed where R_LIBS points), and a comparison of sums.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const lib = path.join(root, "inst", "htmlwidgets", "lib", "profile-view");

// The scripts `names` (of the view's lib folder, or paths from the package
// root) evaluated in order in a fresh context that stands for the page's
// window: its window.ProfileView.
// The scripts of the view's data layer up to the time order, in the order
// the page loads them (R/view.R's view_scripts).
export const CHART_SCRIPTS = ["pv-data.js", "pv-pattern.js", "pv-refine.js", "pv-lanes.js",
  "pv-chart-index.js", "pv-chart.js", "pv-chart-merged.js", "pv-chart-waits.js"];

export function loadProfileView(names) {
  // (timers: PV.prepareChart() steps through them where the page has no
  // requestIdleCallback)
  const context = { atob, setTimeout };
  context.window = context;
  vm.createContext(context);
  for (const name of names) {
    const script = name.includes("/") ? path.join(root, name) : path.join(lib, name);
    vm.runInContext(fs.readFileSync(script, "utf8"), context, { filename: script });
  }
  return context.ProfileView;
}

// The files `names` (view.json, summary.json, refined.json) that
// tests/js/view-data.R writes, parsed, by name.
export function viewData(names) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pv-test-"));
  try {
    execFileSync("Rscript", [path.join(root, "tests", "js", "view-data.R"), dir], { stdio: "inherit" });
    return Object.fromEntries(names.map((name) => [name, JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"))]));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// `actual` equals `expected` up to the rounding of sums taken in another order.
export function near(actual, expected, what) {
  const tolerance = 1e-9 * Math.max(1, Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, expected ${expected}`);
}

// The time order's blocks made the plain way, from each run's whole stack,
// by "row:first run": node, row, extent on the axis, runs, and the parent's
// name in the same terms (a block at depth d: the runs, one after the other
// in a source, whose stacks hold the same node at depth d). A run that starts
// more than half a step after the stop of the run before shares no frame with
// it (the samples of a recording's main process are placed around its waits),
// unless `gaps` is false: the chart judges gaps on all runs, so a refined
// model's runs, some left out, are judged without them.
// The oracle of the node tests of pv-chart.js.
export function plainBlocks(model, { gaps = true } = {}) {
  const runs = model.runs();
  const lanes = model.lanes();
  const withLanes = lanes.length > 1;
  const blocks = new Map();
  let top = 1;
  for (const lane of lanes) {
    const rs = [];
    for (let r = 0; r < runs.leaf.length; r++) if (runs.source[r] === lane.number) rs.push(r);
    if (!rs.length) continue;
    const rowBase = withLanes ? top : 0;
    const laneName = withLanes ? `${top}:${rs[0]}` : "0:0";
    const step = runs.step[lane.number];
    let open = [];
    let deepest = 0;
    let lastStop = -Infinity;
    for (const r of rs) {
      const path = [];
      for (let m = runs.leaf[r]; m !== 0; m = model.parent[m]) path.unshift(m);
      deepest = Math.max(deepest, path.length);
      const start = lane.start + runs.time[r];
      const stop = start + runs.count[r] * step;
      if (gaps && start > lastStop + step / 2) open = [];
      lastStop = stop;
      let same = 0;
      while (same < path.length && same < open.length && open[same].node === path[same]) same++;
      open = open.slice(0, same);
      for (let d = same; d < path.length; d++) {
        const name = `${rowBase + d + 1}:${r}`;
        const parent = d === 0 ? laneName : open[d - 1].name;
        const block = { name, node: path[d], row: rowBase + d + 1, x0: start, x1: stop, r0: r, r1: r, parent };
        blocks.set(name, block);
        open.push(block);
      }
      for (const block of open) {
        block.x1 = Math.max(block.x1, stop);
        block.r1 = r;
      }
    }
    top += deepest + 1;
  }
  return blocks;
}
