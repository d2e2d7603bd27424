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
    // (sums in typed arrays: numbers in an object's fields are boxed anew at
    // each change, which 10^6 runs make slow)
    const samples = new Float64Array(ids.length);
    const reach = new Float64Array(ids.length);
    const has = new Uint8Array(ids.length);
    const { source, count, time, step } = all;
    for (let r = 0; r < all.leaf.length; r++) {
      const s = source[r];
      has[s] = 1;
      samples[s] += count[r];
      const stop = time[r] + count[r] * step[s];
      if (stop > reach[s]) reach[s] = stop;
    }
    const lanes = [];
    for (let s = 0; s < ids.length; s++) {
      if (!has[s]) continue;
      const info = byId.get(ids[s]) || { id: ids[s], label: "source " + ids[s], start: null, duration: null };
      const extent = Math.max(info.duration || 0, reach[s]);
      lanes[s] = { number: s, id: info.id, label: info.label, start: info.start, extent, samples: samples[s] };
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
