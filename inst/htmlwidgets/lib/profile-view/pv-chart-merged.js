/* The browser view of the R package profile: the time order's merged
 * stretches (pv-chart.js draws blocks narrower than a pixel merged, as grey
 * stretches): what one holds (its tooltip, the SVG's title) and whether a
 * frame in it matches the search.
 * Plain JavaScript (ES2019), no library. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});
  const { orLevels, anyBit } = PV.chartIndex;

  Object.assign(PV.ChartTree.prototype, {
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
    },

    // Whether a frame at depth d of runs a .. b has a function key marked in
    // `matched` (the search; `version` tells its states apart), without
    // visiting the runs: per 32 depths, each run's bits of the depths of its
    // stack whose frames are marked, and their ORs over groups of runs, made
    // once per search and word of depths (a list of the runs with a match per
    // depth took 127-251 ms for a search matching every function at 10^6
    // samples).
    mergedMatch(matched, version, d, a, b) {
      if (!this.matchRuns || this.matchRuns.version !== version || this.matchRuns.matched !== matched) {
        this.matchRuns = { matched, version, words: [] };
      }
      const w = d >> 5;
      const words = this.matchRuns.words;
      if (words[w] === undefined) words[w] = this.matchLevels(matched, w);
      const word = words[w];
      return word !== null && a <= b && anyBit(this.runs.leaf, word.mask, word.levels, a, b, 1 << (d & 31));
    },

    // The levels of mergedMatch() for depths 32 w .. 32 w + 31; null when no
    // frame at those depths is marked.
    matchLevels(matched, w) {
      const m = this.model;
      const n = m.parent.length;
      const mask = new Int32Array(n);
      let any = false;
      // (a node's parent comes before it: its bits are its parent's and its own)
      for (let v = 1; v < n; v++) {
        const dv = m.depth[v];
        const own = matched[m.key[v]] === 1 && dv >> 5 === w ? 1 << (dv & 31) : 0;
        if (own !== 0) any = true;
        mask[v] = mask[m.parent[v]] | own;
      }
      if (!any || this.runs.leaf.length === 0) return null;
      return { mask, levels: orLevels(this.runs.leaf, mask) };
    }
  });

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

  PV.mergedLines = mergedLines;
})(typeof window !== "undefined" ? window : this);
