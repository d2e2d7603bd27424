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
 * grey "many" block): it costs the pixels, not the samples.
 * Plain JavaScript (ES2019), no library. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});
  const Model = PV.Model;

  // ---- the first index after or before one whose value is below a bound ----

  const GROUP = 16;

  // The minima of groups of 16 values, of groups of 16 of those, and so on.
  function minLevels(values) {
    const levels = [values];
    let at = values;
    while (at.length > 1) {
      const up = new Int32Array(Math.ceil(at.length / GROUP));
      for (let g = 0; g < up.length; g++) {
        const end = Math.min(at.length, (g + 1) * GROUP);
        let m = at[g * GROUP];
        for (let i = g * GROUP + 1; i < end; i++) if (at[i] < m) m = at[i];
        up[g] = m;
      }
      levels.push(up);
      at = up;
    }
    return levels;
  }

  // The first index >= i whose value is below `bound`, or the length.
  function firstBelow(levels, i, bound) {
    const n = levels[0].length;
    let level = 0;
    let at = i;
    for (;;) {
      const v = levels[level];
      if (at >= v.length) return n;
      const end = Math.min(v.length, (Math.floor(at / GROUP) + 1) * GROUP);
      for (let j = at; j < end; j++) {
        if (v[j] < bound) {
          // down to the first value below the bound in this group
          let k = j;
          for (let l = level; l > 0; l--) {
            const below = levels[l - 1];
            k *= GROUP;
            while (below[k] >= bound) k++;
          }
          return k;
        }
      }
      if (level + 1 === levels.length) return n;
      at = Math.floor(at / GROUP) + 1;
      level++;
    }
  }

  // The last index <= i whose value is below `bound`, or -1.
  function lastBelow(levels, i, bound) {
    let level = 0;
    let at = i;
    for (;;) {
      const v = levels[level];
      if (at < 0) return -1;
      const start = Math.floor(at / GROUP) * GROUP;
      for (let j = at; j >= start; j--) {
        if (v[j] < bound) {
          let k = j;
          for (let l = level; l > 0; l--) {
            const below = levels[l - 1];
            k = Math.min(below.length - 1, k * GROUP + GROUP - 1);
            while (below[k] >= bound) k--;
          }
          return k;
        }
      }
      if (level + 1 === levels.length) return -1;
      at = Math.floor(at / GROUP) - 1;
      level++;
    }
  }

  // The depth two nodes of the model share (that of their last common
  // ancestor) in a few steps: its nodes are in depth-first order, so the
  // common ancestor of nodes u < v is the parent of the shallowest node of
  // u + 1 .. v, found with a table of the minimum depths of every stretch of
  // 2^k nodes (a walk up both stacks per run took most of the first drawing).
  function depthTable(depth) {
    const n = depth.length;
    let levels = 1;
    while (1 << levels <= n) levels++;
    // (level k at k * n: the minimum of depths i .. i + 2^k - 1)
    const table = new Int32Array(levels * n);
    table.set(depth);
    for (let k = 1; k < levels; k++) {
      const half = 1 << (k - 1);
      const at = k * n;
      const below = at - n;
      for (let i = 0; i + 2 * half <= n; i++) {
        const x = table[below + i];
        const y = table[below + i + half];
        table[at + i] = x < y ? x : y;
      }
    }
    return table;
  }

  // ---- the chart ---------------------------------------------------------------

  // The flame chart of the runs in view (the refinements applied), built when
  // first needed: blocks of consecutive runs that share a frame at a depth,
  // in time order, on an axis of seconds (each sample stands for its source's
  // step). With several sources each has a lane: a block of its own (labelled
  // by the source, as long as the lane) under which its frames are drawn, the
  // lanes one below the other (a block's row as its depth). A block covers
  // runs r0[b] .. r1[b].
  Model.prototype.chart = function () {
    if (!this.chartTree) this.chartTree = new ChartTree(this, this.runs(), this.lanes());
    return this.chartTree;
  };

  const FIELDS = [
    ["parent", Int32Array], ["key", Int32Array], ["node", Int32Array], ["x0", Float64Array], ["w", Float64Array],
    ["r0", Int32Array], ["r1", Int32Array], ["depth", Int32Array], ["lane", Int32Array], ["level", Int32Array]
  ];

  class ChartTree {
    constructor(model, runs, lanes) {
      this.model = model;
      this.n = 0;
      this.capacity = 0;
      // (every field set here first: an object whose fields come later, by
      // computed names, is slower to read)
      this.parent = this.key = this.node = this.x0 = this.w = null;
      this.r0 = this.r1 = this.depth = this.lane = this.level = null;
      this.runs = this.start = this.reachTo = this.sharedLevels = this.depthLevels = this.sourceRuns = null;
      this.laneRuns = this.labels = this.lanes = null;
      this.waits = null;
      this.matchRuns = null;
      this.maxDepth = 0;
      this.grow(1024);
      this.ids = new Map();
      this.delta = null;
      this.indexRuns(model, runs);
      this.layLanes(runs, lanes);
      this.layWaits(model);
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
    // source's first run, the depth of its stack (negated, to look for depths
    // above a bound as values below one), and the depth it shares with the
    // run before (0: the first of its source); per source number its first
    // and last run and its deepest stack. One pass, typed arrays only: the
    // first drawing of 10^6 samples waits for it.
    indexRuns(model, runs) {
      const n = runs.leaf.length;
      const depthOf = model.depth;
      const { leaf, source, time, count, step } = runs;
      // (the runs' times are their starts: shared, not copied)
      const start = time instanceof Float64Array ? time : Float64Array.from(time);
      const reachTo = new Float64Array(n);
      const negDepth = new Int32Array(n);
      const shared = new Int32Array(n);
      const sources = step.length;
      const first = new Int32Array(sources).fill(-1);
      const last = new Int32Array(sources).fill(-1);
      const deepest = new Int32Array(sources);
      const table = depthTable(depthOf);
      const nodes = depthOf.length;
      // (the floor of log2 of 1 .. nodes: a global's function is slow to
      // call in a loop of node's vm, which the tests run this in)
      const log2 = new Uint8Array(nodes + 1);
      for (let i = 2; i <= nodes; i++) log2[i] = log2[i >> 1] + 1;
      let reach = -Infinity;
      let s = -1;
      let stepOf = 0;
      let before = -1;
      let deep = 0;
      for (let r = 0; r < n; r++) {
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
          reachTo[r] = reach;
          deep = db;
          before = b;
          continue;
        }
        if (stop > reach) reach = stop;
        reachTo[r] = reach;
        if (db > deep) deep = db;
        if (b === before) {
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
      if (s >= 0) {
        last[s] = n - 1;
        if (deep > deepest[s]) deepest[s] = deep;
      }
      this.runs = runs;
      this.start = start;
      this.reachTo = reachTo;
      this.endBlocksAtGaps(runs, shared);
      this.sharedLevels = minLevels(shared);
      this.depthLevels = minLevels(negDepth);
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
          xMax = Math.max(0, lane.start + this.reachTo[rb]);
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

    // The furthest stop of runs a .. b (of one source).
    reach(a, b) {
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
      minPx = Math.max(minPx, 1);
      place(0);
      const pixels = Math.ceil(span * scale);
      for (let j = 0; j < this.laneRuns.length; j++) {
        const lane = this.laneRuns[j];
        if (this.lanes) place(lane.block);
        // (a lane out of view has nothing in view)
        if (lane.offset + this.start[lane.ra] >= from + span || lane.offset + this.reachTo[lane.rb] <= from) continue;
        const columns = this.pixelRuns(lane, from, scale, pixels);
        // the last run at or before x (>= from) on the axis
        const runAt = (x) => {
          const p = Math.min(Math.floor((x - from) * scale), pixels);
          return this.runAt(lane, x, columns[p], p + 1 <= pixels ? columns[p + 1] : lane.rb);
        };
        for (let d = 1; d <= lane.deepest && lane.rowBase + d <= lastRow; d++) {
          this.visitRow(j, d, from, from + span, scale, minPx, runAt, place, many);
        }
      }
      this.visitWaits(from, span, scale, minPx, lastRow, place);
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
        const a = this.blockStart(d, r);
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
        manyB = r > lane.rb ? lane.rb : (-negDepth[r] >= d ? this.blockStart(d, r) : r) - 1;
        if (offset + this.start[manyB] >= to) {
          // (not past the end of the view)
          manyB = this.runAt(lane, to, manyA);
          while (manyB > manyA && offset + this.start[manyB] >= to) manyB--;
        }
        manyTo = Math.max(manyTo, Math.min(offset + this.reachTo[manyB], to));
      }
      flush();
    }

    // What a merged stretch of row d of lane j, runs a .. b, holds: its
    // frames (blocks at depth d), their samples and value of type t
    // (`weights`, per run), and per function key its value, largest first.
    // One pass over the runs (the frame at depth d of each leaf found once).
    mergedSummary(j, d, a, b, weights) {
      const m = this.model;
      const { leaf, count } = this.runs;
      const negDepth = this.depthLevels[0];
      const shared = this.sharedLevels[0];
      const keyAt = new Int32Array(m.n).fill(-1);
      const byKey = new Map();
      let frames = 0;
      let samples = 0;
      let total = 0;
      let open = false;
      for (let r = a; r <= b; r++) {
        if (-negDepth[r] < d) {
          open = false;
          continue;
        }
        // a new frame where the run shares less than d with the one before
        if (!open || shared[r] < d) frames++;
        open = true;
        const node = leaf[r];
        let k = keyAt[node];
        if (k < 0) {
          let up = node;
          for (let depth = m.depth[node]; depth > d; depth--) up = m.parent[up];
          k = keyAt[node] = m.key[up];
        }
        samples += count[r];
        total += weights[r];
        byKey.set(k, (byKey.get(k) || 0) + weights[r]);
      }
      const keys = Array.from(byKey.entries()).sort((x, y) => Math.abs(y[1]) - Math.abs(x[1]) || x[0] - y[0]);
      return { frames, samples, total, keys };
    }

    // Whether a frame at depth d of runs a .. b has a function key marked in
    // `matched` (the search): per depth, the runs with such a frame, sorted,
    // made once per search (`version`).
    mergedMatch(matched, version, d, a, b) {
      if (!this.matchRuns || this.matchRuns.version !== version || this.matchRuns.matched !== matched) {
        this.matchRuns = this.indexMatches(matched, version);
      }
      const list = this.matchRuns.byDepth[d];
      if (!list) return false;
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (list[mid] < a) lo = mid + 1;
        else hi = mid;
      }
      return lo < list.length && list[lo] <= b;
    }

    indexMatches(matched, version) {
      const m = this.model;
      const leaf = this.runs.leaf;
      const n = leaf.length;
      // per node, the depths of its stack's matched frames (shared with its
      // parent's when it does not match itself)
      const depths = new Array(m.n);
      depths[0] = [];
      for (let i = 1; i < m.n; i++) {
        const up = depths[m.parent[i]];
        depths[i] = matched[m.key[i]] === 1 ? up.concat([m.depth[i]]) : up;
      }
      const sizes = new Int32Array(this.maxDepth + 2);
      for (let r = 0; r < n; r++) for (const d of depths[leaf[r]]) sizes[d]++;
      const byDepth = [];
      for (let d = 0; d < sizes.length; d++) if (sizes[d] > 0) byDepth[d] = new Int32Array(sizes[d]);
      const at = new Int32Array(sizes.length);
      for (let r = 0; r < n; r++) for (const d of depths[leaf[r]]) byDepth[d][at[d]++] = r;
      return { matched, version, byDepth };
    }
  }

  // What a merged stretch of the time order (one of FlameCanvas.merged())
  // holds, as lines of text: a title, then its value of sample type t, its
  // samples and extent, and its functions with the largest values.
  function mergedLines(model, tree, t, stretch) {
    const s = tree.mergedSummary(stretch.lane, stretch.depth, stretch.first, stretch.last, model.runWeights(t));
    const unit = model.types[t].unit;
    const base = model.percentBase(t);
    const value = (x) => PV.formatValue(x, unit) + " (" + PV.formatPercent(x, base) + ")";
    const lines = [s.frames + (s.frames === 1 ? " frame" : " frames") + " merged, each narrower than a pixel",
      "total " + value(s.total),
      s.samples + (s.samples === 1 ? " sample" : " samples") + ", from " + PV.formatValue(stretch.from, "seconds") +
        " to " + PV.formatValue(stretch.to, "seconds")];
    const shown = s.keys.slice(0, 5);
    lines.push("top functions:");
    for (const [k, v] of shown) lines.push("  " + model.keyLabel(k) + " " + value(v));
    if (s.keys.length > shown.length) lines.push("  and " + (s.keys.length - shown.length) + " more");
    return lines;
  }

  // ---- the waits of a process, and gaps in time ----------------------------------

  Object.assign(ChartTree.prototype, {
    // A gap in time ends every block: the run after it shares no frame with
    // the run before (a wait of the process, around which R/view-waits.R
    // placed its samples; samples with their own times). A gap is more than
    // half a step between a run's stop and the next run's start among all
    // the runs, so that runs the refinements left out make none.
    endBlocksAtGaps(runs, shared) {
      const all = runs.all || runs;
      const { source, time, count, step } = all;
      // per run of all, the number of gaps up to it
      const gaps = new Int32Array(all.leaf.length);
      let any = false;
      for (let r = 1; r < gaps.length; r++) {
        const s = source[r];
        const gap = s === source[r - 1] && time[r] > time[r - 1] + (count[r - 1] + 0.5) * step[s];
        gaps[r] = gaps[r - 1] + (gap ? 1 : 0);
        any = any || gap;
      }
      if (!any) return;
      const keep = runs.keep;
      for (let r = 1; r < shared.length; r++) {
        if (keep ? gaps[keep[r]] > gaps[keep[r - 1]] : gaps[r] > gaps[r - 1]) shared[r] = 0;
      }
    },

    // The waits of each lane's process (the recording process of a parallel
    // recording: R/view-waits.R), where they happened on the wall clock: a
    // block each in the lane's first row, of no runs (r1 < r0), labelled
    // ("waiting for workers", "waiting"), under the lane's block; `waits`
    // maps each to its wait (start, end, label, detail: what it waited for)
    // for the tooltip, and each drawn lane lists its own. The root spans them.
    layWaits(model) {
      if (!model.waitsOf) return;
      for (let j = 0; j < this.laneRuns.length; j++) {
        const lane = this.laneRuns[j];
        const list = [];
        for (const w of model.waitsOf(this.runs.sourceId[this.runs.source[lane.ra]])) {
          const i = this.add(lane.block, 0, 0, w.start, w.end, lane.ra, lane.ra - 1, lane.rowBase + 1, j, 1);
          if (!this.waits) this.waits = new Map();
          if (!this.labels) this.labels = new Map();
          this.waits.set(i, w);
          this.labels.set(i, w.label);
          list.push({ node: i, label: w.label, detail: w.detail, start: w.start, end: w.end });
          const end = Math.max(this.x0[0] + this.w[0], w.end);
          this.x0[0] = Math.min(this.x0[0], w.start);
          this.w[0] = end - this.x0[0];
        }
        lane.waits = list;
        if (this.lanes) this.lanes[j].waits = list;
      }
    },

    // Adds the waits under block p (a lane's, or the root without lanes) to
    // `out`.
    addWaitsUnder(p, out) {
      if (!this.waits) return;
      for (const lane of this.laneRuns) if (lane.block === p) for (const w of lane.waits) out.push(w.node);
    },

    // `place(i)` for each wait at least `minPx` wide in view (visit()).
    visitWaits(from, span, scale, minPx, lastRow, place) {
      if (!this.waits) return;
      for (const lane of this.laneRuns) {
        if (lane.rowBase + 1 > lastRow) continue;
        for (const w of lane.waits) {
          const lo = Math.max(w.start, from);
          const hi = Math.min(w.end, from + span);
          if ((hi - lo) * scale >= Math.max(minPx, 1)) place(w.node);
        }
      }
    }
  });

  PV.ChartTree = ChartTree;
  PV.mergedLines = mergedLines;
})(typeof window !== "undefined" ? window : this);
