/* The browser view of the R package profile: a profile compared with a base
 * (profile_view(x, base = )). R's profile_compare() compares the runs of the
 * two by function and sends its rows in the view's data (`compare`); this
 * file reads them and says how the flame graphs of x show them: each frame in
 * the colour of its function's change (reds for a significant increase, the
 * stronger the larger the ratio; blues for a significant decrease; grey for a
 * change that is not significant, or a function not compared), the legend,
 * and the lines of a frame's tooltip. Nothing of the comparison is computed
 * here. The table of the rows is pv-compare-table.js. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  const GREY = "rgb(204,204,204)";
  // The ratio (or its inverse) at which the colour is strongest.
  const STRONGEST = 4;

  // The colour of a change: `change` as profile_compare() says it, `ratio`
  // x over base (null: the function is new in x).
  function changeColour(change, ratio) {
    if (change !== "increase" && change !== "decrease") return GREY;
    const factor = ratio === null ? STRONGEST : change === "increase" ? ratio : 1 / Math.max(ratio, 1e-9);
    const share = Math.min(1, Math.max(0, Math.log(factor) / Math.log(STRONGEST)));
    // from light (a small change) to deep (STRONGEST times or more)
    const light = Math.round(190 - 110 * share);
    return change === "increase" ? "rgb(255," + light + "," + light + ")" : "rgb(" + light + "," + light + ",255)";
  }

  // A number sent by R; null stands for NA and the infinities.
  const number = (v) => (v === null ? null : +v);

  class Comparison {
    // `data`: the member `compare` of the view's data (R/view-compare.R);
    // `model`: the view's Model of x, whose function keys the rows name.
    constructor(data, model) {
      this.type = data.type;
      this.unit = data.unit;
      this.value = data.value;
      this.level = data.level;
      this.threshold = data.threshold;
      this.runs = { x: data.runs_x, base: data.runs_base };
      this.method = data.method;
      this.totals = data.totals;
      const r = data.rows;
      this.rows = r.name.map((name, i) => ({
        index: i,
        name,
        base: number(r.base[i]),
        x: number(r.x[i]),
        delta: number(r.delta[i]),
        ratio: number(r.ratio[i]),
        lower: number(r.lower[i]),
        upper: number(r.upper[i]),
        p: number(r.p_value[i]),
        change: r.change[i],
        key: 0
      }));
      // each row's function key in x (0: only in base), and each key's row
      const keyOf = new Map();
      for (let k = 1; k <= model.nKeys; k++) keyOf.set(model.keyLabel(k), k);
      this.rowOfKey = new Int32Array(model.nKeys + 1).fill(-1);
      for (const row of this.rows) {
        row.key = keyOf.get(row.name) || 0;
        if (row.key) this.rowOfKey[row.key] = row.index;
      }
      this.colours = new Array(model.nKeys + 1);
    }

    // Whether the colours apply to sample type `name` (the one compared).
    applies(name) {
      return name === this.type;
    }

    row(k) {
      const i = this.rowOfKey[k];
      return i >= 0 ? this.rows[i] : null;
    }

    // The colour of function key k's frames (the root and functions without
    // a row grey).
    colour(k) {
      if (this.colours[k] === undefined) {
        const row = k > 0 ? this.row(k) : null;
        this.colours[k] = row ? changeColour(row.change, row.ratio) : GREY;
      }
      return this.colours[k];
    }

    // "+0.84 s (+57 %)", as print() of a comparison says it.
    changeText(row) {
      const delta = PV.signed(PV.formatValue(row.delta, this.unit), row.delta);
      const percent = row.ratio === null ? "new" : PV.signed(Math.round(100 * (row.ratio - 1)) + " %", row.ratio - 1);
      return delta + " (" + percent + ")";
    }

    intervalText(row) {
      const one = (v) => (v === null ? "?" : PV.signed(PV.formatValue(v, this.unit), v));
      return one(row.lower) + " to " + one(row.upper);
    }

    // What a frame's tooltip adds: the function's row.
    tooltipLines(k) {
      if (k === 0) return [];
      const row = this.row(k);
      const per = this.value + " per run";
      if (!row) return ["compared with base: no " + this.value + " value in any run"];
      const f = (v) => PV.formatValue(v, this.unit);
      return [
        "compared with base (" + per + "): " + f(row.x) + " vs " + f(row.base) + ", " + this.changeText(row),
        (row.change === "none" ? "no significant change" : row.change) + ", CI " + this.intervalText(row) +
          ", adjusted p = " + (row.p === null ? "?" : +row.p.toPrecision(2))
      ];
    }

    // The legend after the heading: what was compared, and the colours.
    legend(shownType) {
      const el = PV.el;
      const box = el("span", "pv-compare-legend");
      const runs = (n) => n + (n === 1 ? " run" : " runs");
      const text = "vs base: " + runs(this.runs.x) + " vs " + runs(this.runs.base) + ", " + this.type + " " +
        this.value + ", level " + this.level + (this.threshold > 0 ? ", threshold " + this.threshold : "");
      box.appendChild(el("span", "pv-compare-what", text));
      if (!this.applies(shownType)) {
        box.appendChild(el("span", "pv-note", " (colours for " + this.type + " only)"));
        return box;
      }
      const swatch = (cls, label, colour) => {
        const s = el("span", "pv-compare-swatch " + cls, label);
        s.style.background = colour;
        box.appendChild(s);
      };
      swatch("pv-compare-increase", "increase", changeColour("increase", 2));
      swatch("pv-compare-decrease", "decrease", changeColour("decrease", 0.5));
      swatch("pv-compare-none", "no significant change", GREY);
      if (this.method === "sampling") {
        box.appendChild(el("span", "pv-note", " one run a side: sampling noise only"));
      }
      return box;
    }
  }

  Object.assign(PV, { Comparison, changeColour, COMPARE_GREY: GREY });
})(typeof window !== "undefined" ? window : this);
