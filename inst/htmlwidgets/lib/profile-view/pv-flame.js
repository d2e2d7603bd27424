/* The browser view of the R package profile, part 2 of 4: the flame renderer.
 * Draws a FlameTree (pv-data.js) on a canvas: one row per depth, each node as
 * wide as its extent on the axis, the root at the top (or at the bottom when
 * inverted), the part of the axis in view given by the zoom. Nodes narrower
 * than half a pixel are left out with their subtrees (which are narrower
 * still), so a drawing visits only what can be seen. What was drawn is kept
 * (`frames()`) for hit testing, and for the package's browser tests. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  const ROW = 18;
  const AXIS = 22;
  const MIN_PX = 0.5;
  const FONT = "12px sans-serif";
  const TEXT = "rgb(0,0,0)";
  const MATCH = "rgb(230,0,230)";
  const MANY = "rgb(200,200,200)";
  // The tallest canvas drawn (browsers limit their size); deeper rows are cut.
  const MAX_HEIGHT = 16000;

  // A colour of the flame palette (reds to yellows) for a name, the same for
  // the same name everywhere.
  function nameColour(name) {
    let h = 2166136261;
    for (let i = 0; i < name.length; i++) {
      h ^= name.charCodeAt(i);
      h = Math.imul(h, 16777619);
    }
    h >>>= 0;
    const r = 205 + (h % 50);
    const g = 80 + ((h >>> 8) % 130);
    const b = 40 + ((h >>> 16) % 45);
    return "rgb(" + r + "," + g + "," + b + ")";
  }

  // Growth red, shrinkage blue, the stronger the larger the difference is
  // against the frame's width (both sides); no difference grey.
  function diffColour(delta, width) {
    const share = width > 0 ? Math.min(1, Math.abs(delta) / width) : 0;
    const light = Math.round(220 * (1 - share));
    if (delta > 0) return "rgb(255," + light + "," + light + ")";
    if (delta < 0) return "rgb(" + light + "," + light + ",255)";
    return "rgb(220,220,220)";
  }

  // Steps of a time axis (seconds): 1, 2 and 5 times powers of ten.
  function niceStep(span, pixels) {
    const rough = (span * 90) / Math.max(pixels, 1);
    const power = Math.pow(10, Math.floor(Math.log10(rough)));
    for (const m of [1, 2, 5, 10]) if (m * power >= rough) return m * power;
    return 10 * power;
  }

  // The arguments of a tree's visit() in a drawing of the whole of it (no
  // zoom), `width` pixels wide, with an axis or not: what draw() passes, for
  // the time order's drawing made ahead (PV.prepareChart()).
  function wholeVisit(tree, width, axis) {
    const top = axis ? AXIS : 0;
    const height = Math.min(top + (tree.maxDepth + 1) * ROW, MAX_HEIGHT);
    const span = tree.w[0] > 0 ? tree.w[0] : 1;
    return { from: tree.x0[0], span, scale: width / span, minPx: MIN_PX, lastRow: Math.floor((height - top) / ROW) - 1 };
  }

  class FlameCanvas {
    // options: inverted, axis (a function formatting axis values, or null),
    // label(i), colour(i), state(i) -> {match, selected, dim}, onHover(i,
    // event), onLeave(), onClick(i, event), onContext(i, event) (true when
    // it opened a menu).
    constructor(parent, options) {
      this.options = options;
      this.box = document.createElement("div");
      this.box.className = "pv-flame";
      this.canvas = document.createElement("canvas");
      this.box.appendChild(this.canvas);
      parent.appendChild(this.box);
      this.tree = null;
      this.zoomed = 0;
      // the zooms before this one, for stepping back, and those stepped
      // back from, for stepping forward (pv-navigate.js)
      this.zoomSteps = [];
      this.zoomAhead = [];
      this.drawn = null;
      this.pendingDraw = false;
      this.canvas.addEventListener("mousemove", (e) => this.hover(e));
      this.canvas.addEventListener("mouseleave", () => this.options.onLeave());
      this.canvas.addEventListener("click", (e) => {
        // (the click that ends a drag is no click on a frame)
        if (this.dragged) {
          this.dragged = false;
          return;
        }
        // (the second click of a double click is the double click's)
        if (e.detail > 1) return;
        const i = this.hit(e);
        if (i >= 0) this.options.onClick(i, e);
      });
      this.canvas.addEventListener("dblclick", (e) => {
        const i = this.hit(e);
        if (i >= 0) this.options.onClick(i, e);
      });
      this.canvas.addEventListener("wheel", (e) => this.wheel(e), { passive: false });
      this.canvas.addEventListener("mousedown", (e) => this.dragStart(e));
      this.canvas.addEventListener("contextmenu", (e) => {
        const i = this.hit(e);
        if (i >= 0 && this.options.onContext && this.options.onContext(i, e)) e.preventDefault();
      });
    }

    setTree(tree) {
      this.tree = tree;
      this.zoomed = 0;
      this.window = null;
      this.zoomSteps = [];
      this.zoomAhead = [];
    }

    // The zoom in view kept as a step to go back to, before a new zoom.
    remember() {
      this.zoomSteps.push({ zoomed: this.zoomed, window: this.window });
      this.zoomAhead = [];
    }

    // Shows node i's extent across the whole width (0: everything); draws
    // unless `draw` is false.
    zoom(i, draw = true) {
      this.zoomed = i;
      this.window = null;
      if (draw) this.draw();
    }

    // The part of the axis in view: the zoomed node's extent, or where the
    // wheel and dragging have moved it.
    range() {
      const t = this.tree;
      if (this.window) return this.window;
      const z = this.zoomed;
      return { from: t.x0[z], span: t.w[z] > 0 ? t.w[z] : 1 };
    }

    // The range in view set, kept within the root's extent (no narrower than
    // a millionth of it); drawn.
    setRange(from, span, now = false) {
      const t = this.tree;
      const all = t.w[0] > 0 ? t.w[0] : 1;
      span = Math.min(all, Math.max(span, all * 1e-6));
      from = Math.min(Math.max(from, t.x0[0]), t.x0[0] + all - span);
      if (!this.window) this.remember();
      else this.zoomAhead = [];
      this.window = { from, span };
      // (drawn at the next animation frame, once for all the wheel's and
      // the drag's events before it; at once when `now`)
      if (now) {
        this.draw();
      } else if (!this.pendingDraw) {
        this.pendingDraw = true;
        global.requestAnimationFrame(() => {
          this.pendingDraw = false;
          if (this.tree) this.draw();
        });
      }
      if (this.options.onRange) this.options.onRange();
    }

    // The wheel zooms around the pointer (up: in).
    wheel(event) {
      if (!this.tree) return;
      event.preventDefault();
      const r = this.range();
      const rect = this.canvas.getBoundingClientRect();
      const at = Math.min(Math.max((event.clientX - rect.left) / rect.width, 0), 1);
      const factor = Math.exp(Math.max(-1, Math.min(1, event.deltaY * 0.002)));
      const span = r.span * factor;
      this.setRange(r.from + at * (r.span - span), span);
    }

    // Dragging moves the range in view with the pointer.
    dragStart(event) {
      if (event.button !== 0 || !this.tree) return;
      const startX = event.clientX;
      const start = this.range();
      const width = this.width();
      this.dragged = false;
      const move = (e) => {
        const dx = e.clientX - startX;
        if (!this.dragged && Math.abs(dx) < 3) return;
        this.dragged = true;
        this.setRange(start.from - (dx * start.span) / width, start.span);
      };
      const up = () => {
        global.removeEventListener("mousemove", move);
        global.removeEventListener("mouseup", up);
      };
      global.addEventListener("mousemove", move);
      global.addEventListener("mouseup", up);
    }

    width() {
      return Math.max(this.box.clientWidth || this.box.parentNode.clientWidth || 960, 200);
    }

    // Where node i is drawn (rows from the top).
    rowOf(i) {
      const t = this.tree;
      const row = this.options.inverted ? t.maxDepth - t.depth[i] : t.depth[i];
      return (this.options.axis ? AXIS : 0) + row * ROW;
    }

    draw() {
      const t = this.tree;
      const o = this.options;
      const width = this.width();
      const ratio = global.devicePixelRatio || 1;
      const height = Math.min((o.axis ? AXIS : 0) + (t.maxDepth + 1) * ROW, MAX_HEIGHT);
      const canvas = this.canvas;
      // (a new size reallocates the canvas: only when it changes)
      if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
        canvas.width = Math.round(width * ratio);
        canvas.height = Math.round(height * ratio);
        canvas.style.width = width + "px";
        canvas.style.height = height + "px";
      }
      const ctx = canvas.getContext("2d");
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.clearRect(0, 0, width, height);
      ctx.font = FONT;
      ctx.textBaseline = "middle";
      const charWidth = ctx.measureText("abcdefghijklmnopqrstuvwxyz").width / 26;
      const z = this.zoomed;
      const { from, span } = this.range();
      const scale = width / span;
      const drawn = { node: [], x: [], y: [], w: [], fill: [], faded: [], dim: [], selected: [], rows: new Map(), merged: [] };
      // ancestors of the zoomed node are drawn faded
      const ancestor = new Uint8Array(t.n);
      for (let a = t.parent[z]; z !== 0; a = t.parent[a]) {
        ancestor[a] = 1;
        if (a === 0) break;
      }
      // Draws node i if it is in view and wide enough; false if not (nor its
      // subtree, which is narrower still)
      const place = (i) => {
        const a = t.x0[i];
        const b = a + t.w[i];
        if (!(t.w[i] > 0) || b <= from || a >= from + span) return false;
        let x = (a - from) * scale;
        let w = t.w[i] * scale;
        if (x < 0) {
          w += x;
          x = 0;
        }
        if (x + w > width) w = width - x;
        if (w < MIN_PX) return false;
        const y = this.rowOf(i);
        if (y + ROW > height) return false;
        const state = o.state(i);
        const fill = state.match ? MATCH : o.colour(i);
        const faded = ancestor[i] === 1;
        ctx.globalAlpha = state.dim ? 0.25 : faded ? 0.6 : 1;
        ctx.fillStyle = fill;
        ctx.fillRect(x, y, Math.max(w - (w > 3 ? 1 : 0), MIN_PX), ROW - 1);
        if (state.selected && w > 3) {
          ctx.strokeStyle = "rgb(0,0,0)";
          ctx.lineWidth = 2;
          ctx.strokeRect(x + 1, y + 1, w - 3, ROW - 3);
        }
        if (w > 3 * charWidth + 6) {
          const label = o.label(i);
          const room = Math.floor((w - 6) / charWidth);
          ctx.fillStyle = TEXT;
          ctx.fillText(label.length > room ? label.slice(0, Math.max(room - 1, 1)) + "\u2026" : label, x + 3, y + ROW / 2);
        }
        ctx.globalAlpha = 1;
        const k = drawn.node.length;
        drawn.node.push(i);
        drawn.x.push(x);
        drawn.y.push(y);
        drawn.w.push(w);
        drawn.fill.push(fill);
        drawn.faded.push(faded);
        drawn.dim.push(state.dim);
        drawn.selected.push(state.selected);
        if (!drawn.rows.has(y)) drawn.rows.set(y, []);
        drawn.rows.get(y).push(k);
        return true;
      };
      if (t.visit) {
        // (the time order's chart visits what is in view itself, pv-chart.js;
        // blocks too narrow to draw are drawn merged, in grey)
        const top = o.axis ? AXIS : 0;
        // (each kept with its runs, for the tooltip, the search and the SVG)
        const merged = (drawn.merged = []);
        const many = (row, a, b, j, d, ra, rb) => {
          const x = Math.max(0, (a - from) * scale);
          const w = Math.max(Math.min(width, (b - from) * scale) - x, 1);
          const fill = o.mergedMatch && o.mergedMatch(d, ra, rb) ? MATCH : MANY;
          ctx.globalAlpha = 1;
          ctx.fillStyle = fill;
          ctx.fillRect(x, top + row * ROW, w, ROW - 1);
          merged.push({ x, y: top + row * ROW, w, fill, row, from: a, to: b, lane: j, depth: d, first: ra, last: rb });
        };
        t.visit(from, span, scale, MIN_PX, Math.floor((height - top) / ROW) - 1, place, many);
      } else {
        for (let i = 0; i < t.n; ) i = place(i) ? i + 1 : t.end[i];
      }
      if (o.axis) this.drawAxis(ctx, from, span, width);
      this.drawn = drawn;
    }

    drawAxis(ctx, from, span, width) {
      const step = niceStep(span, width);
      ctx.fillStyle = "rgb(250,250,250)";
      ctx.fillRect(0, 0, width, AXIS - 2);
      ctx.strokeStyle = "rgb(150,150,150)";
      ctx.fillStyle = "rgb(60,60,60)";
      ctx.lineWidth = 1;
      for (let v = Math.ceil(from / step) * step; v <= from + span; v += step) {
        const x = Math.round(((v - from) / span) * width) + 0.5;
        ctx.beginPath();
        ctx.moveTo(x, AXIS - 8);
        ctx.lineTo(x, AXIS - 2);
        ctx.stroke();
        if (x < width - 40) ctx.fillText(this.options.axis(v), x + 3, 8);
      }
    }

    // The node under the pointer, or -1.
    hit(event) {
      if (!this.drawn) return -1;
      const rect = this.canvas.getBoundingClientRect();
      const x = event.clientX - rect.left;
      const y = event.clientY - rect.top;
      const d = this.drawn;
      for (const [top, row] of d.rows) {
        if (y < top || y >= top + ROW) continue;
        let lo = 0;
        let hi = row.length - 1;
        while (lo <= hi) {
          const mid = (lo + hi) >> 1;
          const k = row[mid];
          if (x < d.x[k]) hi = mid - 1;
          else if (x >= d.x[k] + Math.max(d.w[k], 1)) lo = mid + 1;
          else return d.node[k];
        }
      }
      return -1;
    }

    // The merged stretch (of blocks narrower than a pixel, the time
    // order's) under the pointer, or null.
    hitMerged(event) {
      if (!this.drawn || !this.drawn.merged.length) return null;
      const rect = this.canvas.getBoundingClientRect();
      const x = event.clientX - rect.left;
      const y = event.clientY - rect.top;
      return this.drawn.merged.find((s) => y >= s.y && y < s.y + ROW && x >= s.x && x < s.x + s.w) || null;
    }

    hover(event) {
      const i = this.hit(event);
      this.canvas.style.cursor = i >= 0 ? "pointer" : "default";
      if (i >= 0) {
        this.options.onHover(i, event);
        return;
      }
      const stretch = this.options.onHoverMerged ? this.hitMerged(event) : null;
      if (stretch) this.options.onHoverMerged(stretch, event);
      else this.options.onLeave();
    }

    // The merged stretches drawn last (the time order's), for tests and the
    // SVG: place, fill, row, extent on the axis, lane, depth and runs.
    merged() {
      const top = this.options.axis ? AXIS : 0;
      return this.drawn ? this.drawn.merged.map((s) => Object.assign({}, s, { y: s.y - top })) : [];
    }

    // What was drawn last, for tests: per frame its node, label, place and fill.
    frames() {
      const d = this.drawn;
      if (!d) return [];
      return d.node.map((i, k) => ({
        node: i,
        name: this.options.label(i),
        x: d.x[k],
        y: d.y[k] - (this.options.axis ? AXIS : 0),
        width: d.w[k],
        fill: d.fill[k],
        faded: d.faded[k],
        dim: d.dim[k],
        selected: d.selected[k]
      }));
    }
  }

  Object.assign(PV, { FlameCanvas, nameColour, diffColour, wholeVisit, ROW, MANY });
})(typeof window !== "undefined" ? window : this);
