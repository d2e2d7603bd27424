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
  // drawn, the lanes one below the other (`row`: the row of each block). A
  // block covers runs r0[b] .. r1[b].
  Model.prototype.chart = function () {
    if (this.chartTree) return this.chartTree;
    const runs = this.runs();
    const lanes = this.lanes();
    const withLanes = lanes.length > 1;
    const b = { parent: [0], key: [0], node: [0], x0: [0], x1: [0], r0: [0], r1: [0], row: [0] };
    let xMin = Infinity;
    let xMax = -Infinity;
    const labels = new Map();
    const drawnLanes = [];
    let top = 1;
    // runs by source number (they come grouped by source)
    const ranges = new Map();
    for (let r = 0; r < runs.leaf.length; r++) {
      const s = runs.source[r];
      if (!ranges.has(s)) ranges.set(s, [r, r]);
      ranges.get(s)[1] = r;
    }
    for (const lane of lanes) {
      const range = ranges.get(lane.number);
      if (!range) continue;
      let under = 0;
      if (withLanes) {
        under = b.parent.length;
        b.parent.push(0);
        b.key.push(0);
        b.node.push(0);
        b.x0.push(lane.start);
        b.x1.push(lane.start + lane.extent);
        b.r0.push(range[0]);
        b.r1.push(range[1]);
        b.row.push(top);
        labels.set(under, lane.label);
        drawnLanes.push({ node: under, id: lane.id, label: lane.label, start: lane.start, extent: lane.extent, row: top });
        xMin = Math.min(xMin, lane.start);
        xMax = Math.max(xMax, lane.start + lane.extent);
      }
      const rowBase = withLanes ? top : 0;
      const depth = this.laneBlocks(runs, range, lane.start, under, rowBase, b);
      top += depth + 1;
    }
    if (!withLanes) {
      xMin = 0;
      xMax = 0;
      for (let i = 1; i < b.x1.length; i++) xMax = Math.max(xMax, b.x1[i]);
    }
    b.x0[0] = xMin === Infinity ? 0 : xMin;
    b.x1[0] = xMax === -Infinity ? 0 : xMax;
    b.r1[0] = runs.leaf.length - 1;
    const start = Float64Array.from(b.x0);
    const tree = new PV.FlameTree({
      parent: Int32Array.from(b.parent),
      key: Int32Array.from(b.key),
      node: Int32Array.from(b.node),
      x0: start,
      w: Float64Array.from(b.x1, (x, i) => x - start[i]),
      delta: null,
      r0: Int32Array.from(b.r0),
      r1: Int32Array.from(b.r1)
    });
    if (withLanes) {
      tree.depth = Int32Array.from(b.row);
      tree.maxDepth = Math.max(...b.row);
      tree.labels = labels;
      tree.lanes = drawnLanes;
    }
    this.chartTree = tree;
    return tree;
  };

  // The blocks of the runs `range` of one source, drawn from `offset` on the
  // axis under block `under`, rows from `rowBase`: appended to `b`. Returns
  // the deepest frame's depth.
  Model.prototype.laneBlocks = function (runs, range, offset, under, rowBase, b) {
    const open = [under];
    const path = [];
    let deepest = 0;
    const step = runs.step[runs.source[range[0]]];
    for (let r = range[0]; r <= range[1]; r++) {
      const start = offset + runs.time[r];
      const stop = start + runs.count[r] * step;
      path.length = 0;
      for (let m = runs.leaf[r]; m !== 0; m = this.parent[m]) path.push(m);
      path.reverse();
      let same = 0;
      while (same < path.length && same + 1 < open.length && b.node[open[same + 1]] === path[same]) same++;
      open.length = same + 1;
      for (let d = same; d < path.length; d++) {
        const k = b.parent.length;
        b.parent.push(open[d]);
        b.key.push(this.key[path[d]]);
        b.node.push(path[d]);
        b.x0.push(start);
        b.x1.push(stop);
        b.r0.push(r);
        b.r1.push(r);
        b.row.push(rowBase + d + 1);
        open.push(k);
      }
      if (path.length > deepest) deepest = path.length;
      for (let d = under === 0 ? 0 : 1; d < open.length; d++) {
        b.x1[open[d]] = Math.max(b.x1[open[d]], stop);
        b.r1[open[d]] = r;
      }
    }
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
      samples: view.model.chartBlockValues(view.type, l.node).samples
    }));
  }

  PV.lanes = { show, selector, shownLabel, drawn };
})(typeof window !== "undefined" ? window : this);
