/* The browser view of the R package profile: the time order's flame chart
 * (its lanes: pv-lanes.js). A block of the chart is a frame that consecutive
 * runs of samples share at a depth; 10^6 samples make millions of them, too
 * many to build when the view switches to the time order. So the chart keeps
 * per run the depth of its stack and the depth it shares with the run before
 * (one pass over the runs), indexed to find the next or previous run below a
 * depth in a few steps, and makes a block (an id whose fields are those of a
 * FlameTree's node) only when it is drawn, hovered, zoomed to or stepped to.
 * A drawing visits the rows one by one, and in each the blocks of the time in
 * view, jumping over those narrower than half a pixel (drawn merged, as one
 * grey "many" block): it costs the pixels, not the samples. The index's
 * searches are in pv-chart-index.js, the merged stretches' contents and
 * search in pv-chart-merged.js, the waits and gaps in time in
 * pv-chart-waits.js.
 * Plain JavaScript (ES2019), no library. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});
  const Model = PV.Model;
  const { minLevels, firstBelow, lastBelow, depthTable, furthestStops } = PV.chartIndex;

  // ---- the chart ---------------------------------------------------------------

  // The flame chart of the runs in view (the refinements applied), built when
  // first needed: blocks of consecutive runs that share a frame at a depth,
  // in time order, on an axis of seconds (each sample stands for its source's
  // step). With several sources each has a lane: a block of its own (labelled
  // by the source, as long as the lane) under which its frames are drawn, the
  // lanes one below the other (a block's row as its depth). A block covers
  // runs r0[b] .. r1[b].
  Model.prototype.chart = function () {
    if (!this.chartTree) {
      const runs = this.runs();
      // (what PV.prepareChart() made of it, if still of these runs)
      const ready = this.chartReady;
      this.chartReady = null;
      const tree = ready && ready.runs === runs ? ready : new ChartTree(this, runs, () => this.lanes(), true);
      tree.finish();
      this.chartTree = tree;
    }
    return this.chartTree;
  };

  // Makes the chart in idle time after the page's first drawing, so that
  // switching to the time order finds it ready: the runs decoded, the
  // lanes, the index (in slices of runs) and, when `whole(tree)` gives the
  // arguments of the visit() that shows the whole axis, that visit (a row at
  // a time). A step at a time while the browser is idle (requestIdleCallback),
  // each a few ms, so that an event waits for one step at most; Model.chart()
  // makes what is left when the time order is shown before. Kept only while
  // the model's runs are those it was made of (a refinement changes them).
  PV.prepareChart = function (model, whole) {
    if (!model.runData || model.chartTree) return;
    let tree = null;
    let ahead = null;
    let done = 0;
    // (one step; true when nothing is left)
    const next = () => {
      if (!model.decodedRuns) return model.decodeRunsStep() && false;
      if (model.chartTree) return true;
      const runs = model.runs();
      if (tree === null || tree.runs !== runs) {
        tree = model.chartReady = new ChartTree(model, runs, () => model.lanes(), true);
        ahead = null;
        return false;
      }
      if (!tree.step()) return false;
      if (ahead === null) {
        const args = whole(tree);
        if (!args) return true;
        ahead = tree.visitAheadSteps(args);
        done = 0;
      }
      ahead[done++]();
      return done === ahead.length;
    };
    const idle = global.requestIdleCallback
      ? (f) => global.requestIdleCallback(f)
      : (f) => global.setTimeout(() => f(null), 0);
    const work = (deadline) => {
      do {
        if (next()) return;
      } while (deadline && deadline.timeRemaining() > 1);
      idle(work);
    };
    idle(work);
  };

  const FIELDS = [
    ["parent", Int32Array], ["key", Int32Array], ["node", Int32Array], ["x0", Float64Array], ["w", Float64Array],
    ["r0", Int32Array], ["r1", Int32Array], ["depth", Int32Array], ["lane", Int32Array], ["level", Int32Array]
  ];

  class ChartTree {
    constructor(model, runs, lanes, later = false) {
      this.model = model;
      this.n = 0;
      this.capacity = 0;
      // (every field set here first: an object whose fields come later, by
      // computed names, is slower to read)
      this.parent = this.key = this.node = this.x0 = this.w = null;
      this.r0 = this.r1 = this.depth = this.lane = this.level = null;
      this.runs = this.start = this.reachTo = this.sharedLevels = this.depthLevels = this.sourceRuns = null;
      this.count = null;
      this.oneStep = 0;
      this.laneRuns = this.labels = this.lanes = null;
      this.waits = null;
      this.matchRuns = null;
      this.ahead = null;
      this.maxDepth = 0;
      this.grow(1024);
      this.ids = new Map();
      this.delta = null;
      // (the runs, for Model.chart() to tell whether a chart made ahead is
      // still of the runs in view)
      this.runs = runs;
      // (what is left to make: indexSteps(), then the lanes and waits; all
      // of it at once unless `later`, PV.prepareChart())
      this.buildSteps = this.indexSteps(model, runs);
      this.buildSteps.push(() => {
        this.layLanes(runs, lanes());
        this.layWaits(model);
      });
      this.built = 0;
      if (!later) this.finish();
    }

    // Makes the next step of the chart; true when every one is made.
    step() {
      if (this.built < this.buildSteps.length) this.buildSteps[this.built++]();
      if (this.built < this.buildSteps.length) return false;
      this.buildSteps = [];
      this.built = 0;
      return true;
    }

    finish() {
      while (!this.step());
    }

    grow(capacity) {
      for (const [name, Type] of FIELDS) {
        const a = new Type(capacity);
        if (this[name]) a.set(this[name].subarray(0, this.n));
        this[name] = a;
      }
      this.capacity = capacity;
    }

    add(parent, key, node, x0, x1, r0, r1, row, lane, level) {
      if (this.n === this.capacity) this.grow(this.capacity * 2);
      const i = this.n++;
      this.parent[i] = parent;
      this.key[i] = key;
      this.node[i] = node;
      this.x0[i] = x0;
      this.w[i] = x1 - x0;
      this.r0[i] = r0;
      this.r1[i] = r1;
      this.depth[i] = row;
      this.lane[i] = lane;
      this.level[i] = level;
      return i;
    }

    // Per run: its start on its source's axis, the furthest stop since its
    // source's first run (reachAt(): kept only where runs overlap), the depth of its stack (negated, to look for depths
    // above a bound as values below one), and the depth it shares with the
    // run before (0: the first of its source, or after a gap in time); per
    // source number its first and last run and its deepest stack. One pass,
    // typed arrays only: the first drawing of 10^6 samples waits for it. As
    // steps (indexSteps(): the pass in slices of runs), so that the page can
    // make it in idle time before the time order is shown (PV.prepareChart()).
    indexSteps(model, runs) {
      const n = runs.leaf.length;
      const depthOf = model.depth;
      // (depths in 16 bits when every stack is shallower than 2^15: half the
      // memory to fill, and to read at each drawing)
      let deepestNode = 0;
      for (let i = 0; i < depthOf.length; i++) if (depthOf[i] > deepestNode) deepestNode = depthOf[i];
      const Depths = deepestNode < 32767 ? Int16Array : Int32Array;
      const sources = runs.step.length;
      const at = {
        // (the runs' times are their starts: shared, not copied)
        start: runs.time instanceof Float64Array ? runs.time : Float64Array.from(runs.time),
        negDepth: new Depths(n),
        shared: new Depths(n),
        first: new Int32Array(sources).fill(-1),
        last: new Int32Array(sources).fill(-1),
        deepest: new Int32Array(sources),
        table: null,
        log2: null,
        // (the pass's state between slices)
        reach: -Infinity, s: -1, stepOf: 0, before: -1, deep: 0,
        // (whether a run stops before one before it of its source: else each
        // run's furthest stop is its own)
        overlap: false
      };
      const steps = [() => {
        at.table = depthTable(depthOf, Depths);
        // (the floor of log2 of 1 .. nodes: a global's function is slow to
        // call in a loop of node's vm, which the tests run this in)
        const log2 = (at.log2 = new Uint8Array(depthOf.length + 1));
        for (let i = 2; i < log2.length; i++) log2[i] = log2[i >> 1] + 1;
      }];
      // (runs per step: a few ms each)
      const slice = ChartTree.slice;
      for (let r = 0; r < n; r += slice) steps.push(() => this.indexSlice(model, runs, at, r, Math.min(n, r + slice)));
      // (the levels of the two indices, a step each)
      steps.push(() => this.indexFinish(runs, at));
      steps.push(() => {
        this.sharedLevels = minLevels(at.shared);
      });
      steps.push(() => {
        this.depthLevels = minLevels(at.negDepth);
      });
      return steps;
    }

    // The index's pass over runs r0 .. r1 - 1 (indexSteps()).
    indexSlice(model, runs, at, r0, r1) {
      const depthOf = model.depth;
      const { leaf, source, count, step } = runs;
      const { start, negDepth, shared, first, last, deepest, table, log2 } = at;
      // (gaps in time judged here, in the same pass, unless the refinements
      // left runs out: endBlocksAtGaps() judges them on all the runs)
      const gapsHere = !runs.keep;
      const nodes = depthOf.length;
      let { reach, s, stepOf, before, deep, overlap } = at;
      for (let r = r0; r < r1; r++) {
        const b = leaf[r];
        const db = depthOf[b];
        negDepth[r] = -db;
        const stop = start[r] + count[r] * stepOf;
        if (source[r] !== s) {
          // the first run of its source (the one before is its source's last)
          if (s >= 0) {
            last[s] = r - 1;
            if (deep > deepest[s]) deepest[s] = deep;
          }
          s = source[r] | 0;
          stepOf = step[s];
          if (first[s] < 0) first[s] = r;
          reach = start[r] + count[r] * stepOf;
          deep = db;
          before = b;
          continue;
        }
        if (stop >= reach) reach = stop;
        else overlap = true;
        if (db > deep) deep = db;
        if (gapsHere && start[r] > start[r - 1] + (count[r - 1] + 0.5) * stepOf) {
          // (a gap in time: endBlocksAtGaps())
          before = b;
        } else if (b === before) {
          shared[r] = db;
        } else {
          // the depth of the common ancestor (depthTable())
          const u = (before < b ? before : b) + 1;
          const v = before < b ? b : before;
          const k = log2[v - u + 1];
          const x = table[k * nodes + u];
          const y = table[k * nodes + v - (1 << k) + 1];
          shared[r] = (x < y ? x : y) - 1;
          before = b;
        }
      }
      Object.assign(at, { reach, s, stepOf, before, deep, overlap });
    }

    // What the index keeps once its pass is over (indexSteps()).
    indexFinish(runs, at) {
      const { start, shared, first, last, deepest, s, deep, overlap } = at;
      const step = runs.step;
      if (s >= 0) {
        last[s] = runs.leaf.length - 1;
        if (deep > deepest[s]) deepest[s] = deep;
      }
      this.runs = runs;
      this.start = start;
      this.reachTo = overlap ? furthestStops(runs, start) : null;
      // (what reachAt() reads, at hand: the step when every source has the
      // same, else -1)
      this.count = runs.count;
      this.oneStep = step.length > 0 && step.every((x) => x === step[0]) ? step[0] : -1;
      if (runs.keep) this.endBlocksAtGaps(runs, shared);
      this.sourceRuns = { first, last, deepest };
    }

    // The root, and a block per lane when there are several; their rows.
    layLanes(runs, lanes) {
      const withLanes = lanes.length > 1;
      const { first, last } = this.sourceRuns;
      this.add(0, 0, 0, 0, 0, 0, runs.leaf.length - 1, 0, -1, 0);
      this.laneRuns = [];
      const labels = new Map();
      const drawn = [];
      let xMin = Infinity;
      let xMax = -Infinity;
      let top = 1;
      let maxRow = 0;
      for (const lane of lanes) {
        const ra = lane.number < first.length ? first[lane.number] : -1;
        if (ra < 0) continue;
        const rb = last[lane.number];
        const j = this.laneRuns.length;
        const deepest = this.sourceRuns.deepest[lane.number];
        let block = 0;
        if (withLanes) {
          block = this.add(0, 0, 0, lane.start, lane.start + lane.extent, ra, rb, top, j, 0);
          labels.set(block, lane.label);
          drawn.push({ node: block, id: lane.id, label: lane.label, start: lane.start, extent: lane.extent, row: top });
          xMin = Math.min(xMin, lane.start);
          xMax = Math.max(xMax, lane.start + lane.extent);
        } else {
          xMin = 0;
          xMax = Math.max(0, lane.start + this.reachAt(rb));
        }
        const rowBase = withLanes ? top : 0;
        this.laneRuns.push({ ra, rb, offset: lane.start, rowBase, block, deepest });
        maxRow = Math.max(maxRow, rowBase + deepest);
        top += deepest + 1;
      }
      this.x0[0] = xMin === Infinity ? 0 : xMin;
      this.w[0] = xMax === -Infinity ? 0 : xMax - this.x0[0];
      this.maxDepth = maxRow;
      if (withLanes) {
        this.labels = labels;
        this.lanes = drawn;
      }
    }

    // The furthest stop of the runs of run r's source up to r.
    reachAt(r) {
      if (this.reachTo !== null) return this.reachTo[r];
      const step = this.oneStep >= 0 ? this.oneStep : this.runs.step[this.runs.source[r] | 0];
      return this.start[r] + this.count[r] * step;
    }

    // The furthest stop of runs a .. b (of one source).
    reach(a, b) {
      if (this.reachTo === null) return this.reachAt(b);
      const before = a > 0 && this.runs.source[a - 1] === this.runs.source[a] ? this.reachTo[a - 1] : -Infinity;
      if (this.reachTo[b] > before) return this.reachTo[b];
      // (a run before a reaches further: the furthest of a .. b itself)
      const runs = this.runs;
      const step = runs.step[runs.source[a]];
      let x = -Infinity;
      for (let r = a; r <= b; r++) x = Math.max(x, runs.time[r] + runs.count[r] * step);
      return x;
    }

    // The first run of the block at depth d around run r, and its last.
    blockStart(d, r) {
      return lastBelow(this.sharedLevels, r, d);
    }

    blockEnd(d, r) {
      return firstBelow(this.sharedLevels, r + 1, d) - 1;
    }

    // The id of the block at depth d (>= 1) of lane j whose runs are a .. b,
    // made (with its parents) when first asked for.
    block(j, d, a, b) {
      const id = a * (this.maxDepth + 1) + d;
      const known = this.ids.get(id);
      if (known !== undefined) return known;
      const lane = this.laneRuns[j];
      const parent = d === 1 ? lane.block : this.block(j, d - 1, this.blockStart(d - 1, a), this.blockEnd(d - 1, a));
      const m = this.model;
      let node = this.runs.leaf[a];
      for (let k = m.depth[node]; k > d; k--) node = m.parent[node];
      const i = this.add(parent, m.key[node], node, lane.offset + this.start[a], lane.offset + this.reach(a, b),
        a, b, lane.rowBase + d, j, d);
      this.ids.set(id, i);
      return i;
    }

    // The blocks one below block p, in time order.
    children(p) {
      if (p === 0 && this.lanes) return this.lanes.map((l) => l.node);
      const out = [];
      const lanes = p === 0 ? this.laneRuns.map((l, j) => j) : [this.lane[p]];
      const d = this.level[p] + 1;
      for (const j of lanes) {
        const lane = this.laneRuns[j];
        const last = p === 0 ? lane.rb : this.r1[p];
        let r = p === 0 ? lane.ra : this.r0[p];
        for (;;) {
          // (the next run as deep as d)
          r = firstBelow(this.depthLevels, r, -d + 1);
          if (r > last) break;
          const b = this.blockEnd(d, r);
          out.push(this.block(j, d, r, b));
          r = b + 1;
        }
      }
      this.addWaitsUnder(p, out);
      return out;
    }

    // The last run of lane j that starts at or before x on the axis (its
    // first if none does), looked for among runs lo .. hi.
    runAt(lane, x, lo = lane.ra, hi = lane.rb) {
      const t = x - lane.offset;
      const start = this.start;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (start[mid] <= t) lo = mid;
        else hi = mid - 1;
      }
      return lo;
    }

    // The run at each pixel's left edge of a drawing (from `from`, at
    // `scale` pixels a second, `pixels` wide) in lane j: where a run at a
    // time in view is looked for, among the few of its pixel (a search over
    // all runs per block drawn would miss the processor's cache each step).
    pixelRuns(lane, from, scale, pixels) {
      const at = new Int32Array(pixels + 2);
      let r = lane.ra;
      for (let p = 0; p <= pixels + 1; p++) {
        r = this.runAt(lane, from + p / scale, r);
        at[p] = r;
      }
      return at;
    }

    // Visits what a drawing of the axis from `from`, `span` long, at `scale`
    // pixels a second, rows 0 .. lastRow, shows: `place(i)` for each block
    // at least a pixel wide in view (or `minPx`, if more), and `many(row, x0,
    // x1, j, d, a, b)` for each stretch of blocks narrower, merged (x on the
    // axis; lane j, depth d, runs a .. b: see mergedSummary()).
    visit(from, span, scale, minPx, lastRow, place, many) {
      const ahead = this.ahead;
      if (ahead !== null && ahead.from === from && ahead.span === span && ahead.scale === scale &&
          ahead.minPx === minPx && ahead.lastRow === lastRow) {
        // (drawn ahead, PV.prepareChart(): its calls again)
        const calls = ahead.calls;
        for (let k = 0; k < calls.length;) {
          if (calls[k] === 0) {
            place(calls[k + 1]);
            k += 2;
          } else {
            many(calls[k + 1], calls[k + 2], calls[k + 3], calls[k + 4], calls[k + 5], calls[k + 6], calls[k + 7]);
            k += 8;
          }
        }
        return;
      }
      for (const step of this.visitSteps(from, span, scale, minPx, lastRow, place, many)) step();
    }

    // visit() as steps, a row each.
    visitSteps(from, span, scale, minPx, lastRow, place, many) {
      minPx = Math.max(minPx, 1);
      const steps = [() => place(0)];
      const pixels = Math.ceil(span * scale);
      for (let j = 0; j < this.laneRuns.length; j++) {
        const lane = this.laneRuns[j];
        if (this.lanes) steps.push(() => place(lane.block));
        // (a lane out of view has nothing in view)
        if (lane.offset + this.start[lane.ra] >= from + span || lane.offset + this.reachAt(lane.rb) <= from) continue;
        let columns = null;
        steps.push(() => {
          columns = this.pixelRuns(lane, from, scale, pixels);
        });
        // the last run at or before x (>= from) on the axis
        const runAt = (x) => {
          const p = Math.min(Math.floor((x - from) * scale), pixels);
          return this.runAt(lane, x, columns[p], p + 1 <= pixels ? columns[p + 1] : lane.rb);
        };
        for (let d = 1; d <= lane.deepest && lane.rowBase + d <= lastRow; d++) {
          steps.push(() => this.visitRow(j, d, from, from + span, scale, minPx, runAt, place, many));
        }
      }
      steps.push(() => this.visitWaits(from, span, scale, minPx, lastRow, place));
      return steps;
    }

    // The steps of a visit() with `args` ({from, span, scale, minPx,
    // lastRow}) made ahead (PV.prepareChart()): its calls of place() and
    // many() kept, which a visit() with the same arguments makes again
    // instead of searching the runs.
    visitAheadSteps(args) {
      const calls = [];
      const place = (i) => {
        calls.push(0, i);
      };
      const many = (row, x0, x1, j, d, a, b) => {
        calls.push(1, row, x0, x1, j, d, a, b);
      };
      const steps = this.visitSteps(args.from, args.span, args.scale, args.minPx, args.lastRow, place, many);
      steps.push(() => {
        this.ahead = Object.assign({}, args, { calls });
      });
      return steps;
    }

    visitRow(j, d, from, to, scale, minPx, runAt, place, many) {
      const lane = this.laneRuns[j];
      const row = lane.rowBase + d;
      const narrow = minPx / scale;
      const offset = lane.offset;
      const negDepth = this.depthLevels[0];
      // the stretch being merged: from, to on the axis, its first and last run
      let manyFrom = null;
      let manyTo = 0;
      let manyA = 0;
      let manyB = 0;
      // (the first run of the block at depth d around run `nextAt`, when
      // found for the stretch: the next step starts there)
      let nextAt = -1;
      let nextStart = 0;
      const flush = () => {
        if (manyFrom !== null) many(row, manyFrom, manyTo, j, d, manyA, manyB);
        manyFrom = null;
      };
      let r = runAt(from);
      while (r <= lane.rb && offset + this.start[r] < to) {
        if (-negDepth[r] < d) {
          // (no frame at this depth: on to the next run as deep; a merged
          // stretch goes on over a gap narrower than it is drawn)
          r = firstBelow(this.depthLevels, r, -d + 1);
          if (manyFrom !== null && (r > lane.rb || offset + this.start[r] - manyTo >= narrow)) flush();
          continue;
        }
        const a = r === nextAt ? nextStart : this.blockStart(d, r);
        const b = this.blockEnd(d, r);
        const x0 = offset + this.start[a];
        const x1 = offset + this.reach(a, b);
        if (x1 <= from) {
          r = b + 1;
          continue;
        }
        const lo = Math.max(x0, from);
        const hi = Math.min(x1, to);
        if ((hi - lo) * scale >= minPx) {
          flush();
          place(this.block(j, d, a, b));
          r = b + 1;
          continue;
        }
        // narrower than drawn: merged with those after it, and every block
        // that ends within the next `narrow` of the axis is narrower still
        if (manyFrom === null) {
          manyFrom = lo;
          manyA = a;
        }
        manyTo = Math.max(manyTo, hi);
        r = Math.max(b + 1, runAt(lo + narrow));
        // (the runs jumped over are merged too, up to the next block)
        if (r > lane.rb) {
          manyB = lane.rb;
        } else if (-negDepth[r] >= d) {
          nextAt = r;
          nextStart = this.blockStart(d, r);
          manyB = nextStart - 1;
        } else {
          manyB = r - 1;
        }
        if (offset + this.start[manyB] >= to) {
          // (not past the end of the view)
          manyB = this.runAt(lane, to, manyA);
          while (manyB > manyA && offset + this.start[manyB] >= to) manyB--;
        }
        manyTo = Math.max(manyTo, Math.min(offset + this.reachAt(manyB), to));
      }
      flush();
    }
  }

  // (runs per step of the index's pass, indexSteps(); the tests set fewer)
  ChartTree.slice = 1 << 16;

  PV.ChartTree = ChartTree;
})(typeof window !== "undefined" ? window : this);
