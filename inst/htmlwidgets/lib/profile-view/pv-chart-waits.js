/* The browser view of the R package profile: the time order's waits of a
 * process and gaps in time (pv-chart.js).
 * Plain JavaScript (ES2019), no library. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  Object.assign(PV.ChartTree.prototype, {
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
})(typeof window !== "undefined" ? window : this);
