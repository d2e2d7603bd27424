/* The browser view of the R package profile, part 4 of 4: the view itself.
 * A toolbar (sample type, views, search, zoom, source panel), a heading, the
 * view shown (the flame graph, the flame chart of the samples in time order,
 * the table of functions, the callers and callees of a function), and the
 * source panel beside it. The view keeps the state that all of them share
 * (sample type, search, selected function, selected line) and redraws what
 * depends on it when it changes: selecting a function in any view selects it
 * in all.
 *
 * ProfileView.render(element, data) draws into `element` and returns the
 * view, whose resize() redraws it at its element's new size. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});
  const el = PV.el;

  const MODES = [
    ["graph", "Flame graph", "The stacks of all samples merged, callers above callees; click to zoom"],
    ["chart", "Time order", "The samples in the order they were taken (a flame chart), on a time axis"],
    ["table", "Top", "Functions by self (flat) and total (cum) value"],
    ["sandwich", "Sandwich", "The callers and the callees of the selected function"]
  ];

  class View {
    constructor(container, data) {
      this.model = new PV.Model(data);
      const m = this.model;
      // profile_view(x, base = ): R's comparison (pv-compare.js)
      this.compare = data.compare ? new PV.Comparison(data.compare, m) : null;
      this.container = container;
      this.type = m.defaultType;
      this.mode = "graph";
      this.term = "";
      this.matched = new Uint8Array(m.nKeys + 1);
      this.hasMatch = false;
      // (changes with each search: the time order's index of matches)
      this.searchVersion = 0;
      this.selected = 0;
      this.line = -1;
      this.lineHit = null;
      this.hasLines = m.lineFile.length > 0;
      this.showSource = this.hasLines && m.files.some((f) => f.text);
      container.classList.add("profile-view");
      // focusable, for the keys (see key())
      container.tabIndex = 0;
      container.addEventListener("keydown", (e) => this.key(e));
      container.textContent = "";
      container.__profileView = this;
      this.steps = [];
      this.buildToolbar();
      this.heading = el("div", "pv-heading");
      container.appendChild(this.heading);
      const body = el("div", "pv-body");
      this.main = el("div", "pv-main");
      body.appendChild(this.main);
      container.appendChild(body);
      this.tooltip = el("div", "pv-tooltip");
      container.appendChild(this.tooltip);
      this.panes = {};
      for (const [mode] of MODES) {
        this.panes[mode] = el("div", "pv-pane pv-pane-" + mode);
        this.main.appendChild(this.panes[mode]);
      }
      this.graph = new PV.FlameCanvas(this.panes.graph, this.canvasOptions(() => this.graph, false));
      this.chart = null;
      this.table = new PV.TopTable(this.panes.table, this);
      this.sandwich = new PV.Sandwich(this.panes.sandwich, this);
      this.source = new PV.SourcePanel(body, this);
      this.comparePanel = this.compare ? new PV.ComparePanel(body, this) : null;
      // the state of the link the page was opened with (pv-link.js)
      const range = m.types.length ? PV.link.restore(this) : null;
      this.draw();
      const canvas = this.activeCanvas();
      if (range && canvas) canvas.setRange(range.from, range.span, true);
      if (global.ResizeObserver) {
        let width = container.clientWidth;
        new global.ResizeObserver(() => {
          if (container.clientWidth !== width) {
            width = container.clientWidth;
            this.resize();
          }
        }).observe(container);
      }
    }

    // ---- toolbar -------------------------------------------------------------

    buildToolbar() {
      const m = this.model;
      const bar = el("div", "pv-toolbar");
      const select = el("select", "pv-type");
      select.title = "Sample type";
      m.types.forEach((type, i) => {
        const option = el("option", null, type.name + " (" + type.unit + ")");
        option.value = i;
        select.appendChild(option);
      });
      select.value = this.type;
      select.addEventListener("change", () => {
        this.type = +select.value;
        this.draw();
      });
      bar.appendChild(select);
      const sources = PV.lanes.selector(this);
      if (sources) bar.appendChild(sources);
      const views = el("span", "pv-views");
      for (const [mode, label, title] of MODES) {
        const button = el("button", "pv-view-" + mode, label);
        button.type = "button";
        button.title = mode === "chart" && !m.runData ? "This profile keeps no time order (the view says why)" : title;
        button.addEventListener("click", () => {
          this.mode = mode;
          this.draw();
        });
        views.appendChild(button);
      }
      bar.appendChild(views);
      const search = el("input", "pv-search");
      search.type = "search";
      search.placeholder = "Search (regular expression)";
      search.addEventListener("input", () => this.search(search.value));
      bar.appendChild(search);
      this.refineControls = new PV.RefineControls(this, bar, search);
      const reset = el("button", "pv-reset", "Reset zoom");
      reset.type = "button";
      reset.addEventListener("click", () => {
        const canvas = this.activeCanvas();
        if (canvas) canvas.zoom(0);
        this.finishDrawing();
      });
      bar.appendChild(reset);
      bar.appendChild(PV.navigate.buttons(this));
      if (this.hasLines) {
        const toggle = el("button", "pv-source-toggle", "Source");
        toggle.type = "button";
        toggle.title = "Show or hide the source panel";
        toggle.addEventListener("click", () => {
          this.showSource = !this.showSource;
          this.draw();
        });
        bar.appendChild(toggle);
      }
      bar.appendChild(PV.link.copyButton(this));
      bar.appendChild(PV.exports.exportMenu(this));
      this.status = el("span", "pv-status");
      bar.appendChild(this.status);
      this.container.appendChild(bar);
      this.container.appendChild(this.refineControls.row);
      this.refineControls.draw([], []);
      this.bar = bar;
    }

    // ---- drawing -------------------------------------------------------------

    activeCanvas() {
      return this.mode === "graph" ? this.graph : this.mode === "chart" ? this.chart : null;
    }

    draw() {
      const m = this.model;
      const c = this.container;
      c.setAttribute("data-state", "drawing");
      c.setAttribute("data-mode", this.mode);
      c.setAttribute("data-type", m.types.length ? m.types[this.type].name : "");
      for (const [mode] of MODES) {
        this.panes[mode].style.display = mode === this.mode ? "" : "none";
        const button = this.bar.querySelector(".pv-view-" + mode);
        if (button) button.classList.toggle("pv-active", mode === this.mode);
      }
      this.source.show(this.showSource);
      const toggle = this.bar.querySelector(".pv-source-toggle");
      if (toggle) toggle.classList.toggle("pv-active", this.showSource);
      if (!m.types.length) {
        this.heading.textContent = "The profile has no sample type to show.";
        this.finishDrawing();
        return;
      }
      this.drawHeading();
      this.drawMode();
      if (this.showSource) this.source.draw();
      if (this.comparePanel) this.comparePanel.draw();
      this.reportSearch();
      this.finishDrawing();
    }

    drawMode() {
      if (this.mode === "graph") {
        const tree = this.model.graph(this.type);
        if (this.graph.tree !== tree) this.graph.setTree(tree);
        this.graph.draw();
      } else if (this.mode === "chart") {
        if (!this.model.runData) {
          this.noTimeOrder();
          return;
        }
        if (!this.chart) {
          this.chart = new PV.FlameCanvas(this.panes.chart, this.canvasOptions(() => this.chart, false, true));
        }
        const blocks = this.model.chart();
        if (this.chart.tree !== blocks) this.chart.setTree(blocks);
        this.chart.draw();
      } else if (this.mode === "table") {
        this.table.draw();
      } else {
        this.sandwich.draw();
      }
    }

    // A profile without sample times (a pprof file, a difference) has no
    // time order: the pane says why.
    noTimeOrder() {
      const pane = this.panes.chart;
      if (pane.firstChild) return;
      pane.appendChild(el("p", "pv-note pv-no-time-order", this.model.diff
        ? "A difference of two profiles has no time order: its samples are those of two profiles, merged by stack."
        : "This profile keeps no time order. pprof files (Go's and other profilers') keep each distinct stack " +
          "once with its summed values, without the order or time of its samples, so only the views of merged " +
          "stacks can show them. Profiles whose samples have times, as Rprof recordings, have a time order."));
    }

    // Marks the view drawn once the drawing is on screen (the browser tests
    // and bench/view.R wait for it).
    finishDrawing() {
      const c = this.container;
      global.requestAnimationFrame(() => {
        if (global.__profileViewDrawnAt === undefined) global.__profileViewDrawnAt = performance.now();
        // the link saved after the frame is on screen (replacing the page's
        // URL takes a while, and nobody waits for it)
        global.setTimeout(() => {
          if (this.model.types.length) PV.link.save(this);
          c.setAttribute("data-state", "drawn");
          this.prepareChart();
        }, 0);
      });
    }

    // After the page's first drawing, the time order made in idle time
    // (PV.prepareChart()), with its drawing of the whole axis at the width
    // of the flame graph's canvas (the panes have the same), when that is
    // shown.
    prepareChart() {
      if (this.chartPrepared || !PV.prepareChart) return;
      this.chartPrepared = true;
      const width = this.mode === "graph" ? this.graph.width() : null;
      PV.prepareChart(this.model, (tree) => (width === null ? null : PV.wholeVisit(tree, width, true)));
    }

    drawHeading() {
      const m = this.model;
      const t = this.type;
      const type = m.types[t];
      const v = m.values[t];
      const parts = [];
      if (m.title) parts.push(m.title);
      if (m.sourceId !== null) parts.push("source " + PV.lanes.shownLabel(this));
      parts.push(type.name + " (" + type.unit + ")");
      if (m.diff) {
        const d = v.totalPos[0] + v.totalNeg[0];
        parts.push("difference " + PV.signed(PV.formatValue(d, type.unit), d) + " (profile " +
          PV.formatValue(v.totalPos[0], type.unit) + ", base " + PV.formatValue(-v.totalNeg[0], type.unit) + ")");
      } else {
        parts.push("total " + PV.formatValue(v.totalPos[0] + v.totalNeg[0], type.unit));
      }
      if (this.mode === "chart") parts.push("samples in time order");
      this.heading.textContent = parts.join(" \u00b7 ");
      if (m.diff) {
        const legend = el("span", "pv-legend");
        legend.appendChild(el("span", "pv-grow", "grows"));
        legend.appendChild(el("span", "pv-shrink", "shrinks"));
        this.heading.appendChild(legend);
      }
      if (this.compare) this.heading.appendChild(this.compare.legend(type.name));
    }

    resize() {
      if (this.model.types.length) {
        this.drawMode();
        this.finishDrawing();
      }
    }

    // What a flame canvas asks the view: labels, colours and highlights of its
    // nodes, and what hovering and clicking do.
    canvasOptions(canvas, inverted, timeAxis) {
      const m = this.model;
      // a colour per function name, computed once
      const colours = new Array(m.nKeys + 1);
      const nameColour = (k) => colours[k] || (colours[k] = PV.nameColour(m.keyLabel(k)));
      return {
        inverted,
        axis: timeAxis ? (x) => PV.formatValue(x, "seconds") : null,
        // (the lanes of the time order are labelled by their source)
        label: (i) => {
          const tree = canvas().tree;
          return tree.labels && tree.labels.has(i) ? tree.labels.get(i) : m.keyLabel(tree.key[i]);
        },
        colour: (i) => {
          const tree = canvas().tree;
          if (this.compare && this.compare.applies(m.types[this.type].name)) return this.compare.colour(tree.key[i]);
          if (m.diff && tree.delta) return PV.diffColour(tree.delta[i], tree.w[i]);
          // the call tree's root is grey; a sandwich's root is its function
          return tree.key[i] === 0 ? "rgb(200,200,200)" : nameColour(tree.key[i]);
        },
        state: (i) => {
          const tree = canvas().tree;
          const k = tree.key[i];
          const node = tree.node ? tree.node[i] : i;
          // the sandwich's trees (no `node`) merge frames of several nodes
          const lineDim = this.lineHit !== null && tree.node !== undefined && !this.lineHit[node];
          return {
            match: k !== 0 && this.matched[k] === 1,
            selected: k !== 0 && k === this.selected,
            dim: i !== 0 && lineDim
          };
        },
        // (the time order's stretches of blocks narrower than a pixel:
        // highlighted when a frame in one matches the search)
        mergedMatch: (d, a, b) => {
          const tree = canvas().tree;
          return this.hasMatch && tree.mergedMatch !== undefined && tree.mergedMatch(this.matched, this.searchVersion, d, a, b);
        },
        onHoverMerged: (stretch, event) => this.showMergedTooltip(canvas(), stretch, event),
        mergedTitle: (stretch) => PV.mergedLines(m, canvas().tree, this.type, stretch).join("\n"),
        onHover: (i, event) => this.showTooltip(canvas(), i, event),
        onLeave: () => {
          this.tooltip.style.display = "none";
        },
        onClick: (i) => this.clicked(canvas(), i),
        onRange: () => {
          this.container.setAttribute("data-state", "drawing");
          this.finishDrawing();
        },
        onContext: (i, event) => {
          const k = canvas().tree.key[i];
          if (k === 0) return false;
          this.refineControls.openMenu(m.keyLabel(k), event);
          return true;
        }
      };
    }

    clicked(canvas, i) {
      const tree = canvas.tree;
      if (canvas === this.graph || canvas === this.chart) {
        const node = tree.node ? tree.node[i] : i;
        // (a frame already in view, as a double click's, is no new step)
        if (canvas.zoomed !== i || canvas.window) canvas.remember();
        canvas.zoom(i, i === 0);
        if (i !== 0) this.select(tree.key[i], { from: "frame", node });
        else this.finishDrawing();
      } else if (i !== 0) {
        this.select(tree.key[i], { from: "sandwich" });
      }
    }

    // Keys: pv-navigate.js.
    key(event) {
      PV.navigate.key(this, event);
    }

    // ---- selection -------------------------------------------------------------

    // Selects function key k everywhere; the source panel shows the line of
    // the frame clicked, or the function's hottest line.
    select(k, how) {
      this.selected = k;
      const line = how.node !== undefined ? this.hottestLine([how.node]) : this.hottestLine(this.nodesOf(k));
      if (line >= 0 && this.hasLines) {
        this.source.file = this.model.lineFile[line];
        this.source.current = this.model.lineNumber[line];
      }
      this.draw();
    }

    nodesOf(k) {
      const out = [];
      for (let i = 1; i < this.model.n; i++) if (this.model.key[i] === k) out.push(i);
      return out;
    }

    // The line key of the nodes' frames with the largest total, or -1.
    hottestLine(nodes) {
      const m = this.model;
      const total = m.lines(this.type).total;
      let best = -1;
      for (const node of nodes) {
        for (const k of m.linesOf(node)) {
          if (best < 0 || Math.abs(total[k]) > Math.abs(total[best])) best = k;
        }
      }
      return best;
    }

    // Selects source line key k (-1: none): the frames that ran it stand out.
    selectLine(k) {
      const m = this.model;
      this.line = k;
      this.lineHit = null;
      if (k >= 0) {
        this.lineHit = new Uint8Array(m.n);
        for (let i = 1; i < m.n; i++) {
          if (m.linesOf(i).indexOf(k) >= 0) this.lineHit[i] = 1;
        }
        this.source.current = m.lineNumber[k];
      }
      this.draw();
    }

    // ---- refinements -------------------------------------------------------------

    // Refines every view by `steps` ([{verb, pattern}], as R verbs piped in
    // order; pv-refine.js); a pattern that is not a Go regular expression is
    // refused and the steps stay as they were.
    refine(steps) {
      let report;
      try {
        report = this.model.refine(steps);
      } catch (e) {
        if (e.name !== "PatternError") throw e;
        this.refineControls.say("Not applied: " + e.message + ".");
        return false;
      }
      this.steps = steps.slice();
      this.refineControls.say("");
      this.refineControls.draw(this.steps, report);
      this.container.setAttribute("data-refinements", JSON.stringify(this.steps));
      this.line = -1;
      this.lineHit = null;
      this.draw();
      return true;
    }

    addStep(verb, pattern) {
      return this.refine(this.steps.concat([{ verb, pattern }]));
    }

    removeStep(j) {
      return this.refine(this.steps.filter((s, i) => i !== j));
    }

    // ---- search ----------------------------------------------------------------

    // The search term as a Go regular expression (as the R verbs take it),
    // or as plain text when it is not one; empty matches nothing.
    search(term) {
      const m = this.model;
      this.term = term;
      let pattern = null;
      if (term) {
        try {
          pattern = PV.goRegExp(term);
        } catch {
          pattern = PV.goRegExp("\\Q" + term.replace(/\\E/g, "\\E\\\\E\\Q") + "\\E");
        }
      }
      this.matched.fill(0);
      this.hasMatch = false;
      this.searchVersion++;
      if (pattern) {
        for (let k = 1; k <= m.nKeys; k++) {
          if (pattern.test(m.keyLabel(k))) {
            this.matched[k] = 1;
            this.hasMatch = true;
          }
        }
      }
      // (the heading and the source panel do not show the search)
      if (!m.types.length) return;
      this.container.setAttribute("data-state", "drawing");
      this.drawMode();
      this.reportSearch();
      this.finishDrawing();
    }

    matchesKey(k) {
      return this.matched[k] === 1;
    }

    // The share of the frames that match (outermost matches only, so that
    // nested ones count once) in the flame graph of the type, and in a diff
    // their difference.
    reportSearch() {
      const c = this.container;
      if (!this.term) {
        this.status.textContent = "";
        c.removeAttribute("data-search-share");
        return;
      }
      const m = this.model;
      const tree = m.graph(this.type);
      const unit = m.types[this.type].unit;
      let frames = 0;
      let sum = 0;
      let delta = 0;
      for (let i = 1; i < tree.n; ) {
        if (this.matched[tree.key[i]] === 1 && tree.w[i] > 0) {
          frames++;
          sum += tree.w[i];
          delta += tree.delta[i];
          for (let j = i + 1; j < tree.end[i]; j++) if (this.matched[tree.key[j]] === 1 && tree.w[j] > 0) frames++;
          i = tree.end[i];
        } else {
          i++;
        }
      }
      const total = tree.w[0];
      let text = frames + " frames match: " + PV.formatValue(sum, unit) + " of " + PV.formatValue(total, unit) +
        " (" + PV.formatPercent(sum, total) + ")";
      if (m.diff) text += ", difference " + PV.signed(PV.formatValue(delta, unit), delta);
      this.status.textContent = text;
      c.setAttribute("data-search-share", total > 0 ? sum / total : 0);
    }

    // ---- tooltips --------------------------------------------------------------

    tooltipLines(canvas, i) {
      const m = this.model;
      const tree = canvas.tree;
      const t = this.type;
      const unit = m.types[t].unit;
      const base = m.percentBase(t);
      const k = tree.key[i];
      const lines = [];
      const node = tree.node ? tree.node[i] : tree.node === null ? i : -1;
      const where = this.frameLines(node);
      const file = m.keyFileName(k);
      if (file || where) lines.push((file || "?") + (where ? ":" + where : ""));
      const value = (x) => PV.formatValue(x, unit) + " (" + PV.formatPercent(x, base) + ")";
      if (canvas === this.chart && tree.waits && tree.waits.has(i)) {
        // a wait of the recording process (pv-lanes.js): when, and for what
        const w = tree.waits.get(i);
        lines.push(PV.formatValue(w.end - w.start, "seconds") + " without CPU time, from " +
          PV.formatValue(w.start, "seconds") + " to " + PV.formatValue(w.end, "seconds"));
        if (w.detail) lines.push(w.detail);
        return lines;
      }
      if (canvas === this.chart) {
        const b = m.chartBlockValues(t, i);
        lines.push("total " + value(b.total));
        lines.push("self " + value(b.self));
        lines.push(b.samples + (b.samples === 1 ? " sample" : " samples") + ", from " +
          PV.formatValue(tree.x0[i], "seconds") + " to " + PV.formatValue(tree.x0[i] + tree.w[i], "seconds"));
        return lines;
      }
      const total = tree.totalPos[i] + tree.totalNeg[i];
      const own = tree.selfPos[i] + tree.selfNeg[i];
      if (!m.diff) {
        lines.push("total " + value(total));
        lines.push("self " + value(own));
        return lines;
      }
      const signedValue = (x) => PV.signed(PV.formatValue(x, unit), x) + " (" + PV.signed(PV.formatPercent(x, base), x) + " of base)";
      lines.push("total " + signedValue(total));
      lines.push("self " + signedValue(own));
      lines.push("profile " + PV.formatValue(tree.totalPos[i], unit) + ", base " + PV.formatValue(-tree.totalNeg[i], unit));
      return lines;
    }

    // The lines of a node's frames: its one line, or those its frames ran
    // (the first few), as text; "" when unknown.
    frameLines(node) {
      const m = this.model;
      if (node <= 0) return "";
      if (m.line[node] > 0) return String(m.line[node]);
      const numbers = Array.from(new Set(Array.from(m.linesOf(node), (k) => m.lineNumber[k]))).sort((a, b) => a - b);
      const shown = numbers.slice(0, 6).join(", ");
      return numbers.length > 6 ? shown + " and " + (numbers.length - 6) + " more" : shown;
    }

    showTooltip(canvas, i, event) {
      const lines = this.tooltipLines(canvas, i);
      if (this.compare && this.compare.applies(this.model.types[this.type].name)) {
        lines.push(...this.compare.tooltipLines(canvas.tree.key[i]));
      }
      this.placeTooltip(canvas.options.label(i), lines, event);
    }

    // What a merged stretch of the time order holds (PV.mergedLines()).
    showMergedTooltip(canvas, stretch, event) {
      const lines = PV.mergedLines(this.model, canvas.tree, this.type, stretch);
      this.placeTooltip(lines[0], lines.slice(1), event);
    }

    placeTooltip(name, lines, event) {
      const box = this.tooltip;
      box.textContent = "";
      box.appendChild(el("div", "pv-tooltip-name", name));
      for (const line of lines) box.appendChild(el("div", null, line));
      const bounds = this.container.getBoundingClientRect();
      box.style.display = "block";
      let left = event.clientX - bounds.left + 12;
      if (left + box.offsetWidth > bounds.width) left = Math.max(0, event.clientX - bounds.left - box.offsetWidth - 12);
      box.style.left = left + "px";
      box.style.top = event.clientY - bounds.top + 16 + "px";
    }

    // ---- for tests -------------------------------------------------------------

    // The frames drawn by the canvas of the view shown (the flame graph or
    // chart), or by the sandwich's callers or callees.
    frames(which) {
      const canvas = which === "callers" ? this.sandwich.callers.canvas
        : which === "callees" ? this.sandwich.callees.canvas : this.activeCanvas();
      return canvas ? canvas.frames() : [];
    }
  }

  PV.render = function (element, data) {
    return new View(element, data);
  };
})(typeof window !== "undefined" ? window : this);
