/* The browser view of the R package profile, part 3 of 4: the views made of
 * HTML rather than a canvas: the callers and callees of a function
 * (speedscope's Sandwich, go tool pprof's Peek), the source panel (lines of
 * a file with their values), and the helpers of tables (the Top table of
 * functions is pv-top.js).
 * Each is a class drawn into an element and told the view's state (the
 * sample type, the selected function, the selected line) by the view
 * (profile-view.js), which it tells back what the user picks. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function cell(row, text, className) {
    const td = el("td", className, text);
    row.appendChild(td);
    return td;
  }

  // ---- tables sorted by a click on a column's head ---------------------------

  // A table of class `className` whose heads sort it, as the Top table and the
  // comparison's table do: `columns` are [id, label, title] (a head of class
  // `prefix` + id); `order` is {sort, descending}, the column sorted by and
  // its direction, which a click on a head sets (on a new column, descending
  // but for the text columns `ascending` lists; on the same one, reversed)
  // before `redraw()`. Heads whose id is in `fixed` do not sort. Returns the
  // table and its empty body, for the rows.
  function sortableTable(className, prefix, columns, order, redraw, { ascending = [], fixed = [] } = {}) {
    const table = el("table", className);
    const head = el("tr");
    for (const [id, label, title] of columns) {
      const th = el("th", prefix + id, label);
      if (title) th.title = title;
      if (!fixed.includes(id)) {
        th.classList.add("pv-sortable");
        if (order.sort === id) th.classList.add(order.descending ? "pv-desc" : "pv-asc");
        th.addEventListener("click", () => {
          order.descending = order.sort === id ? !order.descending : !ascending.includes(id);
          order.sort = id;
          redraw();
        });
      }
      head.appendChild(th);
    }
    const thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    const body = el("tbody");
    table.appendChild(body);
    return { table, body };
  }

  // Scrolls the selected row of a table's body into view.
  function showSelectedRow(body) {
    const selected = body.querySelector("tr.pv-selected");
    if (selected && selected.scrollIntoView) selected.scrollIntoView({ block: "nearest" });
  }

  // ---- Sandwich: the callers and callees of one function ---------------------

  class Sandwich {
    constructor(parent, view) {
      this.view = view;
      this.box = el("div", "pv-sandwich");
      parent.appendChild(this.box);
      this.message = el("p", "pv-note");
      this.box.appendChild(this.message);
      this.heading = el("div", "pv-sandwich-heading");
      this.box.appendChild(this.heading);
      const half = (className, title, inverted) => {
        const part = el("div", "pv-sandwich-part " + className);
        part.appendChild(el("div", "pv-sandwich-title", title));
        const peek = el("table", "pv-peek");
        part.appendChild(peek);
        this.box.appendChild(part);
        const canvas = new PV.FlameCanvas(part, view.canvasOptions(() => canvas, inverted));
        return { part, peek, canvas };
      };
      this.callers = half("pv-callers", "Callers (outermost call in each sample; the function at the bottom)", true);
      this.callees = half("pv-callees", "Callees (what the function calls; the function at the top)", false);
    }

    draw() {
      const view = this.view;
      const m = view.model;
      const k = view.selected;
      const has = k > 0 && m.functions(view.type).cum[k] !== 0;
      this.message.textContent = has ? "" : "Select a function (click a frame, or a row of the table) to see its callers and callees.";
      for (const part of [this.callers, this.callees]) part.part.style.display = has ? "" : "none";
      this.heading.textContent = "";
      if (!has) return;
      const t = view.type;
      const unit = m.types[t].unit;
      const f = m.functions(t);
      this.heading.textContent = m.keyLabel(k) + ": total " + PV.formatValue(f.cum[k], unit) + " (" +
        PV.formatPercent(f.cum[k], m.percentBase(t)) + "), self " + PV.formatValue(f.flat[k], unit);
      this.drawHalf(this.callers, m.callers(t, k), "caller");
      this.drawHalf(this.callees, m.callees(t, k), "callee");
    }

    // The tree of one half and its first level as a table (go tool pprof's
    // Peek): each direct caller or callee with its value and share.
    drawHalf(half, tree, what) {
      const view = this.view;
      const m = view.model;
      const t = view.type;
      const unit = m.types[t].unit;
      half.peek.textContent = "";
      const head = el("tr");
      for (const label of [what, "value", "%"]) head.appendChild(el("th", null, label));
      half.peek.appendChild(head);
      const first = [];
      for (let i = 1; i < tree.n; i++) if (tree.parent[i] === 0) first.push(i);
      first.sort((a, b) => Math.abs(tree.delta[b]) - Math.abs(tree.delta[a]) || a - b);
      const rootValue = tree.delta[0];
      if (what === "callee" && tree.selfPos[0] + tree.selfNeg[0] !== 0) first.push(0);
      for (const i of first) {
        const value = i === 0 ? tree.selfPos[0] + tree.selfNeg[0] : tree.delta[i];
        const row = el("tr", "pv-peek-row");
        const name = i === 0 ? "(self)" : m.keyLabel(tree.key[i]);
        row.dataset.name = name;
        row.dataset.value = value;
        cell(row, name, "pv-name");
        cell(row, PV.formatValue(value, unit), "pv-num");
        cell(row, PV.formatPercent(value, rootValue), "pv-num");
        if (i > 0) row.addEventListener("click", () => view.select(tree.key[i], { from: "sandwich" }));
        half.peek.appendChild(row);
      }
      half.canvas.setTree(tree);
      half.canvas.draw();
    }
  }

  // ---- Source: the lines of a file with their values -------------------------

  // Files longer than this show the lines with values and some around them.
  const MAX_FULL_LINES = 3000;
  const CONTEXT = 8;
  const HOT_LINES = 3;
  // The panel's width and line wrapping are remembered by the browser
  // (localStorage, per page origin: every file:// view shares them).
  const STORE = "profile-view.source.";

  // Files of a runtime, a standard library or installed packages rather than
  // the program's own: Go's standard library (its packages' paths, as
  // -trimpath writes them, or under GOROOT), Go's module cache, R's
  // libraries, Python's packages, system headers.
  const GO_STD = "archive|bufio|bytes|cmp|compress|container|context|crypto|database|debug|embed|encoding|" +
    "errors|expvar|flag|fmt|go|hash|html|image|index|internal|io|iter|log|maps|math|mime|net|os|path|plugin|" +
    "reflect|regexp|runtime|slices|sort|strconv|strings|structs|sync|syscall|testing|text|time|unicode|" +
    "unique|unsafe|vendor|weak";
  const LIBRARY_FILE = new RegExp("^(" + GO_STD + ")/|/go/src/|/libexec/src/|/pkg/mod/|/R/library/|/lib/R/|" +
    "site-library/|site-packages/|dist-packages/|/lib/python[0-9.]*/|^/usr/include/|^<(built-in|frozen)");

  // What the memory columns measure (see ?profile_view).
  const HEAP_LEGEND = "growth and shrinkage of R's vector heaps between ticks (Rprof memory profiling, as profvis " +
    "shows them), not exact allocations";
  const COLUMN_TITLES = {
    memory: "alloc_size: growth of R's heaps since the previous tick, of the ticks that ran the line (total)",
    allocated: "Heap growth (Rprof memory profiling): how much R's vector heaps grew between a tick and the one " +
      "before, summed over the ticks whose stack holds the line (once per frame at it), as profvis shows it. " +
      "Not exact allocations: a tick is credited with what ran since the one before.",
    released: "Heap shrinkage (Rprof memory profiling): how much R's vector heaps shrank between a tick and the " +
      "one before (memory freed by the garbage collector), summed over the ticks whose stack holds the line, as " +
      "profvis shows it."
  };
  const EXACT_TITLE = "alloc_space of R's allocation profiler (Rprofmem): every allocation with its bytes, " +
    "credited to the functions on its stack (self: the innermost; total: once per allocation). Rprofmem records " +
    "function names, not lines.";

  function isLibraryFile(name) {
    return LIBRARY_FILE.test(name || "");
  }

  function remembered(name, fallback) {
    try {
      const value = global.localStorage.getItem(STORE + name);
      return value === null ? fallback : value;
    } catch {
      return fallback;
    }
  }

  function remember(name, value) {
    try {
      global.localStorage.setItem(STORE + name, String(value));
    } catch {
      // (a page without storage forgets)
    }
  }

  class SourcePanel {
    constructor(parent, view) {
      this.view = view;
      this.splitter = el("div", "pv-splitter");
      this.splitter.title = "Drag to resize the source panel";
      this.splitter.addEventListener("mousedown", (e) => this.dragStart(e));
      parent.appendChild(this.splitter);
      this.box = el("div", "pv-source");
      parent.appendChild(this.box);
      this.setWidth(+remembered("width", 0));
      const bar = el("div", "pv-source-bar");
      this.select = el("select", "pv-file");
      this.select.title = "Source file: the program's files first, then the runtime's and libraries', " +
        "each the hottest first (the largest total of one of its lines)";
      this.select.addEventListener("change", () => {
        this.file = +this.select.value;
        this.current = -1;
        this.draw();
      });
      bar.appendChild(this.select);
      const wrap = el("label", "pv-wrap-toggle");
      this.wrap = el("input", "pv-wrap");
      this.wrap.type = "checkbox";
      this.wrap.checked = remembered("wrap", "1") === "1";
      this.wrap.addEventListener("change", () => {
        remember("wrap", this.wrap.checked ? 1 : 0);
        this.applyWrap();
      });
      wrap.appendChild(this.wrap);
      wrap.appendChild(document.createTextNode(" Wrap lines"));
      wrap.title = "Wrap long lines of code, or scroll them inside the panel";
      bar.appendChild(wrap);
      this.box.appendChild(bar);
      this.note = el("p", "pv-note");
      this.box.appendChild(this.note);
      this.legend = el("p", "pv-note pv-source-legend");
      this.box.appendChild(this.legend);
      this.exact = el("div", "pv-exact-alloc");
      this.box.appendChild(this.exact);
      this.lines = el("div", "pv-lines-box");
      this.box.appendChild(this.lines);
      this.applyWrap();
      this.file = -1;
      this.current = -1;
    }

    show(visible) {
      this.box.style.display = visible ? "" : "none";
      this.splitter.style.display = visible ? "" : "none";
    }

    applyWrap() {
      this.lines.classList.toggle("pv-wrap", this.wrap.checked);
    }

    // The panel's width as a share of the view's (0: the stylesheet's).
    setWidth(share) {
      this.width = share >= 0.1 && share <= 0.9 ? share : 0;
      this.box.style.flexBasis = this.width ? (100 * this.width).toFixed(2) + "%" : "";
    }

    // Dragging the splitter resizes the panel; the width is remembered and
    // the view redrawn at its new width when the button is released.
    dragStart(event) {
      if (event.button !== 0) return;
      event.preventDefault();
      const body = this.box.parentNode;
      // (the panel's edge follows the pointer from where it took hold)
      const grip = body.getBoundingClientRect().right - event.clientX - this.box.getBoundingClientRect().width;
      const move = (e) => {
        const r = body.getBoundingClientRect();
        this.setWidth(Math.min(0.9, Math.max(0.1, (r.right - e.clientX - grip) / r.width)));
      };
      const up = () => {
        global.removeEventListener("mousemove", move);
        global.removeEventListener("mouseup", up);
        remember("width", this.width);
        this.view.container.setAttribute("data-state", "drawing");
        this.view.resize();
      };
      global.addEventListener("mousemove", move);
      global.addEventListener("mouseup", up);
    }

    // Files with values of the type: the program's own first, then those of
    // runtimes and libraries, each the hottest first (by the largest total of
    // one of its lines). `weight` per file.
    filesOf(t) {
      const m = this.view.model;
      const v = m.lines(t);
      const weight = m.fileLines().map((keys) => keys.reduce((s, k) => Math.max(s, Math.abs(v.total[k])), 0));
      const library = m.files.map((f) => (isLibraryFile(f.name) ? 1 : 0));
      const files = [];
      for (let f = 0; f < weight.length; f++) if (weight[f] !== 0) files.push(f);
      files.sort((a, b) => library[a] - library[b] || weight[b] - weight[a] || a - b);
      return { files, weight, library };
    }

    // The menu of files, in groups (the program's, the libraries'), each
    // named with its weight.
    drawMenu(files, weight, library, t) {
      const m = this.view.model;
      const unit = m.types[t].unit;
      this.select.textContent = "";
      const groups = [el("optgroup"), el("optgroup")];
      groups[0].label = "Program";
      groups[1].label = "Runtime and libraries";
      for (const f of files) {
        const name = m.files[f].name || "(no file name)";
        const option = el("option", null, name + " \u2014 " + PV.formatValue(weight[f], unit));
        option.value = f;
        option.dataset.file = name;
        groups[library[f]].appendChild(option);
      }
      for (const g of groups) if (g.children.length) this.select.appendChild(g);
      this.select.value = this.file;
    }

    // The sample type of the line values: the type shown, or, when none of
    // its values has a line (the exact bytes of Rprofmem, recorded with
    // function names only), the type the view opened at.
    lineType() {
      const m = this.view.model;
      const has = (u) => u >= 0 && m.lines(u).total.some((v) => v !== 0);
      return has(this.view.type) || !has(m.defaultType) ? this.view.type : m.defaultType;
    }

    draw() {
      const view = this.view;
      const m = view.model;
      const t = this.lineType();
      const { files, weight, library } = this.filesOf(t);
      // (the first file: the program's hottest)
      if (this.file < 0 || files.indexOf(this.file) < 0) this.file = files.length ? files[0] : -1;
      // (nothing it shows changed: the view redraws for other reasons, and
      // rebuilding the lines' rows took most of a redraw's time; the current
      // line is brought into view as a rebuild did, scrolled away or hidden)
      const shown = [t, view.type, this.file, this.current, view.line].join(" ");
      if (this.shown === shown && this.shownValues === m.values) {
        this.scrollToCurrent();
        return;
      }
      this.shown = shown;
      this.shownValues = m.values;
      this.currentRow = null;
      this.drawMenu(files, weight, library, t);
      this.lines.textContent = "";
      this.legend.textContent = "";
      this.drawExact();
      if (this.file < 0) {
        this.note.textContent = m.lineFile.length
          ? "No line has a value of this sample type."
          : "The profile has no line information.";
        return;
      }
      const text = m.files[this.file].text;
      const notes = [];
      if (!text) notes.push("The text of this file is not in the profile (it was not found when the profile was read): lines and their values only.");
      if (m.nodeMap) notes.push("Line values are those of the whole profile: the refinements apply to the other views.");
      if (t !== view.type) {
        notes.push("Lines show " + m.types[t].name + ": " + m.types[view.type].name + " has no lines.");
      }
      this.note.textContent = notes.join(" ");
      this.drawLines(text, t);
    }

    drawLines(text, t) {
      const view = this.view;
      const m = view.model;
      const unit = m.types[t].unit;
      const v = m.lines(t);
      const base = m.percentBase(t, true);
      const heap = m.heapLines;
      const memoryType = m.typeIndex("alloc_size");
      // (alloc_size per line where the heap changes per tick are not known)
      const memory = !heap && memoryType >= 0 && memoryType !== t ? m.lines(memoryType) : null;
      this.legend.textContent = "self, total: " + m.types[t].name + " (" + unit + ")" +
        (heap ? "; allocated, released: " + HEAP_LEGEND : "");
      // the lines of the file with a value of the type
      const keyOf = new Map();
      for (const k of m.fileLines()[this.file]) if (v.total[k] !== 0) keyOf.set(m.lineNumber[k], k);
      let maxTotal = 0;
      for (const k of keyOf.values()) maxTotal = Math.max(maxTotal, Math.abs(v.total[k]));
      const hot = Array.from(keyOf.values())
        .filter((k) => v.self[k] !== 0)
        .sort((a, b) => Math.abs(v.self[b]) - Math.abs(v.self[a]))
        .slice(0, HOT_LINES);
      const numbers = this.lineNumbers(text, keyOf);
      const table = el("table", "pv-lines");
      const head = el("tr");
      const columns = ["line", "self", "total"].concat(memory ? ["memory"] : [], heap ? ["allocated", "released"] : [], ["code"]);
      for (const c of columns) {
        const th = el("th", "pv-col-" + c, c);
        if (c in COLUMN_TITLES) th.title = COLUMN_TITLES[c];
        head.appendChild(th);
      }
      table.appendChild(head);
      let previous = 0;
      let currentRow = null;
      for (const n of numbers) {
        if (previous && n > previous + 1) {
          const gap = el("tr", "pv-gap");
          cell(gap, "\u22ee", "pv-ln");
          gap.lastChild.colSpan = columns.length;
          table.appendChild(gap);
        }
        previous = n;
        const k = keyOf.has(n) ? keyOf.get(n) : -1;
        const row = el("tr");
        row.dataset.line = n;
        cell(row, String(n), "pv-ln");
        const self = k >= 0 ? v.self[k] : 0;
        const total = k >= 0 ? v.total[k] : 0;
        cell(row, self !== 0 ? PV.formatValue(self, unit) : "", "pv-num pv-self");
        const totalCell = cell(row, total !== 0 ? PV.formatValue(total, unit) : "", "pv-num pv-total");
        if (memory) cell(row, k >= 0 && memory.total[k] !== 0 ? PV.formatValue(memory.total[k], "bytes") : "", "pv-num pv-mem");
        if (heap) {
          const allocated = k >= 0 ? heap.allocated[k] : 0;
          const released = k >= 0 ? heap.released[k] : 0;
          cell(row, allocated !== 0 ? PV.formatValue(allocated, "bytes") : "", "pv-num pv-heap-allocated");
          cell(row, released !== 0 ? PV.formatValue(released, "bytes") : "", "pv-num pv-heap-released");
          if (k >= 0) {
            row.dataset.allocated = allocated;
            row.dataset.released = released;
          }
        }
        cell(row, text && n <= text.length ? text[n - 1] : "", "pv-code");
        if (k >= 0) {
          row.dataset.key = k;
          row.dataset.self = self;
          row.dataset.total = total;
          row.title = "self " + PV.formatValue(self, unit) + " (" + PV.formatPercent(self, base) + "), total " +
            PV.formatValue(total, unit) + " (" + PV.formatPercent(total, base) + ")";
          if (maxTotal > 0) {
            const share = Math.round((100 * Math.abs(total)) / maxTotal);
            totalCell.style.background = "linear-gradient(to left, rgba(230,90,40,0.35) " + share + "%, transparent " + share + "%)";
          }
          row.classList.add("pv-has-value");
          row.addEventListener("click", () => view.selectLine(view.line === k ? -1 : k));
        }
        if (hot.indexOf(k) >= 0) row.classList.add("pv-hot");
        if (k >= 0 && k === view.line) row.classList.add("pv-line-selected");
        if (n === this.current) {
          row.classList.add("pv-current");
          currentRow = row;
        }
        table.appendChild(row);
      }
      this.lines.appendChild(table);
      this.currentRow = currentRow;
      this.scrollToCurrent();
    }

    // The current line's row a third down the panel's lines, if it has one.
    scrollToCurrent() {
      const row = this.currentRow;
      if (!row) return;
      const box = this.lines;
      box.scrollTop = Math.max(0, row.offsetTop - box.clientHeight / 3);
    }

    // The exact bytes that R's allocation profiler (Rprofmem) recorded, per
    // function defined in the file shown (Rprofmem writes function names, no
    // lines): self and total of alloc_space, as the Top table gives them.
    drawExact() {
      const m = this.view.model;
      const t = m.typeIndex("alloc_space");
      this.exact.textContent = "";
      if (!m.exactAlloc || t < 0 || this.file < 0) return;
      const f = m.functions(t);
      const name = m.files[this.file].name;
      const keys = [];
      for (let k = 1; k <= m.nKeys; k++) if (f.cum[k] !== 0 && m.keyFileName(k) === name) keys.push(k);
      keys.sort((a, b) => Math.abs(f.cum[b]) - Math.abs(f.cum[a]) || a - b);
      const title = el("div", "pv-exact-title", "Exact bytes allocated (Rprofmem), per function of this file");
      title.title = EXACT_TITLE;
      this.exact.appendChild(title);
      if (!keys.length) {
        this.exact.appendChild(el("p", "pv-note", "No function of this file allocated."));
        return;
      }
      const table = el("table", "pv-exact");
      const head = el("tr");
      for (const label of ["function", "self", "total"]) head.appendChild(el("th", null, label));
      table.appendChild(head);
      for (const k of keys) {
        const row = el("tr", "pv-exact-row");
        row.dataset.name = m.keyLabel(k);
        row.dataset.flat = f.flat[k];
        row.dataset.cum = f.cum[k];
        cell(row, m.keyLabel(k), "pv-name");
        cell(row, PV.formatValue(f.flat[k], "bytes"), "pv-num");
        cell(row, PV.formatValue(f.cum[k], "bytes"), "pv-num");
        row.addEventListener("click", () => this.view.select(k, { from: "table" }));
        table.appendChild(row);
      }
      this.exact.appendChild(table);
    }

    // The numbers of the lines shown: all lines of a text of moderate length
    // (and lines with values past it), else those with values and some
    // around them.
    lineNumbers(text, keyOf) {
      const valued = Array.from(keyOf.keys()).sort((a, b) => a - b);
      const last = Math.max(text ? text.length : 0, valued.length ? valued[valued.length - 1] : 0);
      if (text && text.length <= MAX_FULL_LINES) {
        const out = [];
        for (let n = 1; n <= text.length; n++) out.push(n);
        return out.concat(valued.filter((n) => n > text.length));
      }
      if (!text) return valued;
      const keep = new Set();
      for (const n of valued) {
        for (let j = Math.max(1, n - CONTEXT); j <= Math.min(last, n + CONTEXT); j++) keep.add(j);
      }
      return Array.from(keep).sort((a, b) => a - b);
    }
  }

  Object.assign(PV, { Sandwich, SourcePanel, isLibraryFile, el, sortableTable, showSelectedRow });
})(typeof window !== "undefined" ? window : this);
