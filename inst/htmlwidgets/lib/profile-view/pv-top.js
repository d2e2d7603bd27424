/* The browser view of the R package profile: the Top table, the functions
 * with a value by self (flat) and total (cum) value, as go tool pprof's top
 * (drawn into its pane by the view, profile-view.js, which it tells the
 * function the user picks). */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});
  const { el, sortableTable } = PV;

  function cell(row, text, className) {
    const td = el("td", className, text);
    row.appendChild(td);
    return td;
  }

  // ---- Top: a table of functions --------------------------------------------

  // The Top table draws only the rows in (and near) the scrolled view: a
  // spacer row above them and one below keep the table as tall as all its
  // rows, so that the scroll bar is that of the whole table, and the rows
  // are drawn anew as the user scrolls (thousands of rows of cells took the
  // browser most of the view's time to lay out and paint). A row's height
  // is ROW_HEIGHT (the style sheet's line height and padding of its cells),
  // measured again on a drawn row when the table is scrolled; OVERSCAN rows
  // are drawn beyond each edge of the view, so that a scroll of less than
  // that draws nothing.
  const ROW_HEIGHT = 18;
  const OVERSCAN = 10;

  const TOP_COLUMNS = [
    ["flat", "flat", "Self: samples whose innermost frame is the function"],
    ["flat_pct", "flat%", ""],
    ["sum_pct", "sum%", "The flat% of this row and those above it"],
    ["cum", "cum", "Total: samples with the function anywhere on the stack, once per sample"],
    ["cum_pct", "cum%", ""],
    ["name", "name", ""],
    ["file", "file", ""]
  ];

  class TopTable {
    constructor(parent, view) {
      this.view = view;
      this.box = el("div", "pv-table-box");
      parent.appendChild(this.box);
      this.sort = "flat";
      this.descending = true;
      this.rowHeight = ROW_HEIGHT;
      // the first row in view when the table was last scrolled (where a
      // redraw starts drawing)
      this.first = 0;
      this.body = null;
      // (scroll events do not bubble: caught on their way down to the
      // scrolled element, the view's main box or the page)
      document.addEventListener("scroll", () => this.fill(true), true);
    }

    // Function keys with a value, in the table's order: by the absolute value
    // of the sort column (as go tool pprof sorts a diff), then by the other,
    // then by name; or by name.
    rows(t) {
      const m = this.view.model;
      const f = m.functions(t);
      // (kept for the redraws of a selection or a search)
      const last = this.sorted;
      if (last && last.f === f && last.sort === this.sort && last.descending === this.descending) return last.keys;
      const keys = [];
      for (let k = 1; k <= m.nKeys; k++) if (f.flat[k] !== 0 || f.cum[k] !== 0) keys.push(k);
      const by = this.sort === "name" || this.sort === "file" ? this.sort : this.sort.startsWith("cum") ? "cum" : "flat";
      const other = by === "cum" ? "flat" : "cum";
      const text = (k) => (by === "file" ? m.keyFileName(k) : m.keyLabel(k));
      const sign = this.descending ? 1 : -1;
      if (by === "name" || by === "file") {
        keys.sort((a, b) => {
          const ta = text(a);
          const tb = text(b);
          return (ta < tb ? -1 : ta > tb ? 1 : a - b) * -sign;
        });
      } else {
        const first = f[by];
        const second = f[other];
        keys.sort((a, b) => {
          const d = Math.abs(first[b]) - Math.abs(first[a]) || Math.abs(second[b]) - Math.abs(second[a]);
          return d !== 0 ? d * sign : a - b;
        });
      }
      this.sorted = { f, sort: this.sort, descending: this.descending, keys };
      return keys;
    }

    // The table with its head and, in its body, the rows in view (from the
    // first row in view when it was last scrolled, or around the selected
    // function's row, which is then scrolled into view).
    draw() {
      const view = this.view;
      const m = view.model;
      const t = view.type;
      const f = m.functions(t);
      const keys = this.rows(t);
      // the sum% column: the flat values of each row and those above it
      const sums = new Float64Array(keys.length);
      let sum = 0;
      for (let i = 0; i < keys.length; i++) sums[i] = sum += f.flat[keys[i]];
      this.keys = keys;
      this.sums = sums;
      this.box.textContent = "";
      const { table, body } = sortableTable("pv-top", "pv-col-", TOP_COLUMNS, this, () => this.draw(), {
        ascending: ["name", "file"],
        fixed: ["flat_pct", "sum_pct", "cum_pct"]
      });
      const spacer = () => {
        const row = el("tr", "pv-spacer");
        const td = el("td");
        td.colSpan = TOP_COLUMNS.length;
        row.appendChild(td);
        return row;
      };
      this.above = spacer();
      this.below = spacer();
      body.append(this.above, this.below);
      body.addEventListener("click", (e) => {
        const row = e.target.closest("tr[data-row]");
        if (row) view.select(this.keys[+row.dataset.row], { from: "table" });
      });
      this.body = body;
      table.dataset.rows = keys.length;
      const selected = keys.indexOf(view.selected);
      // rows enough for a view as tall as the window (those beyond its edges
      // are drawn once it is scrolled)
      const shown = Math.ceil(window.innerHeight / this.rowHeight);
      let first = Math.min(this.first, Math.max(0, keys.length - shown));
      if (selected >= 0 && (selected < first || selected >= first + shown)) first = Math.max(0, selected - (shown >> 1));
      this.drawRows(first, Math.min(keys.length, first + shown));
      this.box.appendChild(table);
      if (selected >= 0) {
        const row = body.querySelector("tr.pv-selected");
        if (row && row.scrollIntoView) row.scrollIntoView({ block: "nearest" });
      }
      // (the view may not show the rows drawn: another view's scrolling, a
      // new size; checked once laid out for the next frame)
      requestAnimationFrame(() => this.fill());
    }

    // Draws the rows from..to (excluded) between the spacers.
    drawRows(from, to) {
      const view = this.view;
      const m = view.model;
      const t = view.type;
      const unit = m.types[t].unit;
      const f = m.functions(t);
      const base = m.percentBase(t);
      const body = this.body;
      while (body.firstChild.nextSibling !== this.below) body.removeChild(body.firstChild.nextSibling);
      const rows = document.createDocumentFragment();
      for (let i = from; i < to; i++) {
        const k = this.keys[i];
        const row = el("tr");
        row.dataset.row = i;
        row.dataset.name = m.keyLabel(k);
        row.dataset.flat = f.flat[k];
        row.dataset.cum = f.cum[k];
        cell(row, PV.formatValue(f.flat[k], unit), "pv-num");
        cell(row, PV.formatPercent(f.flat[k], base), "pv-num");
        cell(row, PV.formatPercent(this.sums[i], base), "pv-num");
        cell(row, PV.formatValue(f.cum[k], unit), "pv-num");
        cell(row, PV.formatPercent(f.cum[k], base), "pv-num");
        cell(row, m.keyLabel(k), "pv-name");
        cell(row, m.keyFileName(k), "pv-file");
        if (k === view.selected) row.classList.add("pv-selected");
        if (view.matchesKey(k)) row.classList.add("pv-match");
        rows.appendChild(row);
      }
      body.insertBefore(rows, this.below);
      this.from = from;
      this.to = to;
      this.above.firstChild.style.height = from * this.rowHeight + "px";
      this.below.firstChild.style.height = (this.keys.length - to) * this.rowHeight + "px";
    }

    // Draws the rows in view if those drawn do not cover them (after a
    // scroll, a new size, or a drawing while another view's scrolling
    // stood). Reads the layout (as the browser is about to lay out for the
    // frame, or has after a scroll) and changes it only then. Scrolled, the
    // columns keep at least their widths (rows drawn anew do not make them
    // narrower, as the browser fits a table's columns to its rows).
    fill(scrolled) {
      const body = this.body;
      if (!body || !body.isConnected || this.view.mode !== "table") return;
      if (this.to > this.from) {
        const height = this.above.nextSibling.getBoundingClientRect().height;
        if (height > 0 && Math.abs(height - this.rowHeight) > 0.01) {
          this.rowHeight = height;
          this.drawRows(this.from, this.to);
        }
      }
      // the part of the window the view's main box shows
      const box = this.view.main.getBoundingClientRect();
      const top = Math.max(0, box.top);
      const bottom = Math.min(window.innerHeight, box.bottom);
      if (bottom <= top) return;
      // (row i's top is the first spacer's plus i rows)
      const origin = this.above.getBoundingClientRect().top;
      const n = this.keys.length;
      const first = Math.min(n, Math.max(0, Math.floor((top - origin) / this.rowHeight)));
      const last = Math.min(n, Math.max(0, Math.ceil((bottom - origin) / this.rowHeight)));
      this.first = first;
      if (first >= this.from && last <= this.to) return;
      if (scrolled) {
        // (a width set on a cell of a table laid out automatically is its
        // column's least; here, without the cell's padding)
        const heads = body.parentNode.tHead.rows[0].cells;
        const style = getComputedStyle(heads[0]);
        const padding = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
        const widths = Array.from(heads, (th) => th.getBoundingClientRect().width - padding);
        widths.forEach((w, i) => (heads[i].style.width = w + "px"));
      }
      this.drawRows(Math.max(0, first - OVERSCAN), Math.min(n, last + OVERSCAN));
    }
  }

  PV.TopTable = TopTable;
})(typeof window !== "undefined" ? window : this);
