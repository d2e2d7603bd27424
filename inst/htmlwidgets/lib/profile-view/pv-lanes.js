/* The browser view of the R package profile, the data layer's third part: the
 * sources of a profile. The time order draws one lane per source (a process of
 * a parallel recording, or each recording combined) on a common wall-clock
 * axis: a source starts where its start time says, after the earliest source,
 * or (start unknown) after the lanes before it; where a source has no samples
 * its lane is empty. The flame graph, Top and Sandwich show all sources or
 * one (the Model's `sourceId`): the tree made of that source's samples, to
 * which the refinements then apply (pv-refine.js).
 * Plain JavaScript (ES2019), no library. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});
  const Model = PV.Model;

  // The sources, in id order: id, label, start (seconds after the earliest
  // source's; null: unknown) and duration (seconds; null: unknown).
  Model.prototype.sourceList = function () {
    if (!this.decodedSources) {
      const s = this.sourceData || { id: { const: 0, length: 0 }, label: [], start: { const: 0, length: 0 }, duration: { const: 0, length: 0 } };
      const id = PV.decodeArray(s.id);
      const start = PV.decodeArray(s.start);
      const duration = PV.decodeArray(s.duration);
      this.decodedSources = Array.from(id, (sid, i) => ({
        id: sid,
        label: s.label[i],
        start: start[i] >= 0 ? start[i] : null,
        duration: duration[i] >= 0 ? duration[i] : null
      }));
    }
    return this.decodedSources;
  };

  // The waits of source `id` (the recording process of a parallel
  // recording: R/view-waits.R): per wait its start and end on the axis
  // (seconds after the earliest source's start: the wall clock), label and
  // details (what it waited for).
  Model.prototype.waitsOf = function (id) {
    if (!this.waitList) {
      const w = this.waitData;
      this.waitList = new Map();
      if (w) {
        for (let i = 0; i < w.source.length; i++) {
          if (!this.waitList.has(w.source[i])) this.waitList.set(w.source[i], []);
          this.waitList.get(w.source[i]).push({ start: w.start[i], end: w.end[i], label: w.label[i], detail: w.detail[i] });
        }
      }
    }
    return this.waitList.get(id) || [];
  };

  Model.prototype.hasSource = function (id) {
    return this.sourceList().some((s) => s.id === id);
  };

  // The whole tree's nodes with the values of source `id`'s samples only
  // (self values by node from the data, totals summed up the tree).
  Model.prototype.sourceValues = function (id) {
    const base = this.base;
    const n = base.n;
    const data = this.bySourceData;
    const rows = data ? PV.decodeArray(data.source) : new Int32Array(0);
    const nodes = data ? PV.decodeArray(data.node) : new Int32Array(0);
    return base.values.map((whole, t) => {
      const v = {
        totalPos: new Float64Array(n),
        totalNeg: new Float64Array(n),
        selfPos: new Float64Array(n),
        selfNeg: new Float64Array(n)
      };
      if (!data) {
        // one source: it is the whole profile
        v.selfPos.set(whole.selfPos);
        v.selfNeg.set(whole.selfNeg);
      } else {
        const pos = PV.decodeArray(data.values[t].self_pos);
        const neg = PV.decodeArray(data.values[t].self_neg);
        for (let r = 0; r < rows.length; r++) {
          if (rows[r] !== id) continue;
          v.selfPos[nodes[r]] += pos[r];
          v.selfNeg[nodes[r]] += neg[r];
        }
      }
      v.totalPos.set(v.selfPos);
      v.totalNeg.set(v.selfNeg);
      for (let i = n - 1; i > 0; i--) {
        v.totalPos[base.parent[i]] += v.totalPos[i];
        v.totalNeg[base.parent[i]] += v.totalNeg[i];
      }
      return v;
    });
  };

  // The lanes of the time order from all the runs (refinements and the
  // source shown leave them in place): per source number of the runs, its
  // source id, label, first and last run, start on the axis and extent (its
  // samples, or its duration when longer), in the order drawn (by start,
  // then id).
  Model.prototype.lanes = function () {
    if (this.laneList) return this.laneList;
    const runs = this.runs();
    const all = runs.all || runs;
    const ids = all.sourceId;
    const byId = new Map(this.sourceList().map((s) => [s.id, s]));
    const lanes = [];
    for (let r = 0; r < all.leaf.length; r++) {
      const s = all.source[r];
      if (!lanes[s]) {
        const info = byId.get(ids[s]) || { id: ids[s], label: "source " + ids[s], start: null, duration: null };
        lanes[s] = { number: s, id: info.id, label: info.label, start: info.start, extent: info.duration || 0, samples: 0 };
      }
      const lane = lanes[s];
      lane.samples += all.count[r];
      lane.extent = Math.max(lane.extent, all.time[r] + all.count[r] * all.step[s]);
    }
    const placed = lanes.filter((l) => l);
    let end = 0;
    for (const lane of placed) if (lane.start !== null) end = Math.max(end, lane.start + lane.extent);
    // (sources of unknown start after those known, one after the other)
    for (const lane of placed) {
      if (lane.start === null) {
        lane.start = end;
        end += lane.extent;
      }
    }
    placed.sort((a, b) => a.start - b.start || a.id - b.id);
    this.laneList = placed;
    return placed;
  };

  // The flame chart: blocks of consecutive runs that share a frame at a
  // depth, in time order, on an axis of seconds (each sample stands for its
  // source's step). With several sources each has a lane: a block of its own
  // (labelled by the source, as long as the lane) under which its frames are
  // drawn, the lanes one below the other (the block's row as its depth). A
  // block covers runs r0[b] .. r1[b]. Built in one pass over the runs in
  // typed arrays (10^6 runs at once: no per-run walk of the whole stack).
  Model.prototype.chart = function () {
    if (this.chartTree) return this.chartTree;
    const runs = this.runs();
    const lanes = this.lanes();
    const withLanes = lanes.length > 1;
    const b = new Blocks(Math.max(16, runs.leaf.length + lanes.length + 1));
    b.add(0, 0, 0, 0, 0, 0, 0, 0);
    let xMin = Infinity;
    let xMax = -Infinity;
    const labels = new Map();
    const waitBlocks = new Map();
    const drawnLanes = [];
    let top = 1;
    // runs by source number (they come grouped by source)
    const first = [];
    const last = [];
    for (let r = 0; r < runs.leaf.length; r++) {
      const s = runs.source[r];
      if (first[s] === undefined) first[s] = r;
      last[s] = r;
    }
    let maxRow = 0;
    for (const lane of lanes) {
      if (first[lane.number] === undefined) continue;
      const range = [first[lane.number], last[lane.number]];
      let under = 0;
      if (withLanes) {
        under = b.add(0, 0, 0, lane.start, lane.start + lane.extent, range[0], range[1], top);
        labels.set(under, lane.label);
        drawnLanes.push({ node: under, id: lane.id, label: lane.label, start: lane.start, extent: lane.extent, row: top });
        xMin = Math.min(xMin, lane.start);
        xMax = Math.max(xMax, lane.start + lane.extent);
      }
      const rowBase = withLanes ? top : 0;
      // the process's waits where they happened, beside its frames (whose
      // times R placed around them), each a block of its own without samples
      const waits = [];
      for (const w of this.waitsOf(lane.id)) {
        const i = b.add(under, 0, 0, w.start, w.end, range[0], range[0] - 1, rowBase + 1);
        labels.set(i, w.label);
        waitBlocks.set(i, w);
        waits.push({ node: i, label: w.label, detail: w.detail, start: w.start, end: w.end });
        xMin = Math.min(xMin, w.start);
        xMax = Math.max(xMax, w.end);
      }
      if (withLanes) drawnLanes[drawnLanes.length - 1].waits = waits;
      const depth = Math.max(this.laneBlocks(runs, range, lane.start, under, rowBase, b), waits.length ? 1 : 0);
      if (rowBase + depth > maxRow) maxRow = rowBase + depth;
      top += depth + 1;
    }
    if (!withLanes) {
      xMin = Math.min(0, xMin);
      xMax = 0;
      for (let i = 1; i < b.n; i++) if (b.x1[i] > xMax) xMax = b.x1[i];
    }
    b.x0[0] = xMin === Infinity ? 0 : xMin;
    b.x1[0] = xMax === -Infinity ? 0 : xMax;
    b.r1[0] = runs.leaf.length - 1;
    const n = b.n;
    const start = b.x0.slice(0, n);
    const width = new Float64Array(n);
    for (let i = 0; i < n; i++) width[i] = b.x1[i] - start[i];
    const tree = new PV.FlameTree({
      parent: b.parent.slice(0, n),
      key: b.key.slice(0, n),
      node: b.node.slice(0, n),
      x0: start,
      w: width,
      delta: null,
      r0: b.r0.slice(0, n),
      r1: b.r1.slice(0, n)
    });
    tree.waits = waitBlocks;
    if (!withLanes && waitBlocks.size) tree.labels = labels;
    if (withLanes) {
      tree.depth = b.row.slice(0, n);
      tree.maxDepth = maxRow;
      tree.labels = labels;
      tree.lanes = drawnLanes;
    }
    this.chartTree = tree;
    return tree;
  };

  // The blocks of the chart in growable typed arrays.
  class Blocks {
    constructor(capacity) {
      this.n = 0;
      this.alloc(capacity);
    }

    alloc(capacity) {
      const grow = (Type, old) => {
        const a = new Type(capacity);
        if (old) a.set(old.subarray(0, this.n));
        return a;
      };
      this.parent = grow(Int32Array, this.parent);
      this.key = grow(Int32Array, this.key);
      this.node = grow(Int32Array, this.node);
      this.x0 = grow(Float64Array, this.x0);
      this.x1 = grow(Float64Array, this.x1);
      this.r0 = grow(Int32Array, this.r0);
      this.r1 = grow(Int32Array, this.r1);
      this.row = grow(Int32Array, this.row);
      this.capacity = capacity;
    }

    add(parent, key, node, x0, x1, r0, r1, row) {
      if (this.n === this.capacity) this.alloc(this.capacity * 2);
      const i = this.n++;
      this.parent[i] = parent;
      this.key[i] = key;
      this.node[i] = node;
      this.x0[i] = x0;
      this.x1[i] = x1;
      this.r0[i] = r0;
      this.r1[i] = r1;
      this.row[i] = row;
      return i;
    }
  }

  // The blocks of the runs `range` of one source, drawn from `offset` on the
  // axis under block `under`, rows from `rowBase`: appended to `b`. Returns
  // the deepest frame's depth. `open[d]` is the block open at depth d (the
  // frame of the tree's node at depth d on the current run's stack), and
  // `reach[d]` the furthest end of the runs since it opened: a run shares the
  // blocks of the deepest node its stack has in common with the open ones (a
  // node of the tree is its whole path), so each run costs the frames it
  // opens and closes, not its depth.
  Model.prototype.laneBlocks = function (runs, range, offset, under, rowBase, b) {
    const parent = this.parent;
    const depthOf = this.depth;
    const key = this.key;
    const open = [under];
    const reach = [-Infinity];
    const path = [];
    let deepest = 0;
    const step = runs.step[runs.source[range[0]]];
    const close = (to, r) => {
      for (let d = open.length - 1; d > to; d--) {
        const k = open[d];
        if (reach[d] > b.x1[k]) b.x1[k] = reach[d];
        b.r1[k] = r;
        if (reach[d] > reach[d - 1]) reach[d - 1] = reach[d];
      }
      open.length = to + 1;
      reach.length = to + 1;
    };
    let lastStop = -Infinity;
    for (let r = range[0]; r <= range[1]; r++) {
      const start = offset + runs.time[r];
      const stop = start + runs.count[r] * step;
      // a gap in time (a wait of the process, around which R/view-waits.R
      // placed its samples) ends every block open: the frames after it are
      // blocks of their own
      if (start > lastStop + step / 2 && r > range[0]) close(0, r - 1);
      lastStop = stop;
      const leaf = runs.leaf[r];
      const leafDepth = depthOf[leaf];
      // the leaf's ancestors below the open blocks are new frames
      path.length = 0;
      let m = leaf;
      let d = leafDepth;
      while (d > open.length - 1) {
        path.push(m);
        m = parent[m];
        d--;
      }
      while (d > 0 && b.node[open[d]] !== m) {
        path.push(m);
        m = parent[m];
        d--;
      }
      close(d, r - 1);
      for (let i = path.length - 1; i >= 0; i--) {
        const node = path[i];
        open.push(b.add(open[open.length - 1], key[node], node, start, stop, r, r, rowBase + open.length));
        reach.push(stop);
      }
      if (stop > reach[reach.length - 1]) reach[reach.length - 1] = stop;
      if (leafDepth > deepest) deepest = leafDepth;
    }
    close(0, range[1]);
    return deepest;
  };
})(typeof window !== "undefined" ? window : this);

// The source selector of the toolbar (a profile of several sources): all
// sources, or one.
(function (global) {
  "use strict";

  const PV = global.ProfileView;

  // Shows source `id` alone (null: all sources) in every view; the
  // refinements apply to it. Without drawing when `draw` is false (the link
  // restored before the first drawing).
  function show(view, id, draw = true) {
    const m = view.model;
    m.sourceId = id !== null && m.hasSource(id) ? id : null;
    const select = view.bar.querySelector(".pv-source-select");
    if (select) select.value = m.sourceId === null ? "" : String(m.sourceId);
    view.container.setAttribute("data-source", m.sourceId === null ? "" : String(m.sourceId));
    if (draw) view.refine(view.steps);
    else m.refine(view.steps);
  }

  function selector(view) {
    const sources = view.model.sourceList();
    if (sources.length < 2) return null;
    const select = PV.el("select", "pv-source-select");
    select.title = "The samples of all sources, or of one (a process, a recording)";
    const all = PV.el("option", null, "All sources");
    all.value = "";
    select.appendChild(all);
    for (const s of sources) {
      const option = PV.el("option", null, s.label);
      option.value = String(s.id);
      select.appendChild(option);
    }
    select.addEventListener("change", () => show(view, select.value === "" ? null : +select.value));
    return select;
  }

  // The label of the source shown alone, or "".
  function shownLabel(view) {
    const m = view.model;
    if (m.sourceId === null) return "";
    const s = m.sourceList().find((x) => x.id === m.sourceId);
    return s ? s.label : "";
  }

  // The lanes of the time order as drawn (for tests): per lane its node,
  // source id, label, start and extent on the axis, and number of samples.
  function drawn(view) {
    const tree = view.model.runData ? view.model.chart() : null;
    if (!tree || !tree.lanes) return [];
    return tree.lanes.map((l) => ({
      node: l.node, id: l.id, label: l.label, start: l.start, extent: l.extent,
      samples: view.model.chartBlockValues(view.type, l.node).samples,
      waits: l.waits || []
    }));
  }

  PV.lanes = { show, selector, shownLabel, drawn };
})(typeof window !== "undefined" ? window : this);
