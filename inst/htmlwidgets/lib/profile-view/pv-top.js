/* The browser view of the R package profile: the Top table, the functions
 * with a value by self (flat) and total (cum) value, as go tool pprof's top
 * (drawn into its pane by the view, profile-view.js, which it tells the
 * function the user picks). */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});
  const { el, sortableTable, showSelectedRow } = PV;

  function cell(row, text, className) {
    const td = el("td", className, text);
    row.appendChild(td);
    return td;
  }

  // ---- Top: a table of functions --------------------------------------------

  // The rows the Top table draws at first (the largest first, and down to
  // the selected function), and how many more each click on "Show more"
  // adds: thousands of rows of cells take the browser seconds to lay out.
  const FIRST_ROWS = 200;
  const MORE_ROWS = 1000;

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
    }

    // Function keys with a value, in the table's order: by the absolute value
    // of the sort column (as go tool pprof sorts a diff), then by the other,
    // then by name; or by name.
    rows(t) {
      const m = this.view.model;
      const f = m.functions(t);
      const keys = [];
      for (let k = 1; k <= m.nKeys; k++) if (f.flat[k] !== 0 || f.cum[k] !== 0) keys.push(k);
      const by = this.sort === "name" || this.sort === "file" ? this.sort : this.sort.startsWith("cum") ? "cum" : "flat";
      const other = by === "cum" ? "flat" : "cum";
      const text = (k) => (by === "file" ? m.keyFileName(k) : m.keyLabel(k));
      const sign = this.descending ? 1 : -1;
      keys.sort((a, b) => {
        if (by === "name" || by === "file") {
          const ta = text(a);
          const tb = text(b);
          return (ta < tb ? -1 : ta > tb ? 1 : a - b) * -sign;
        }
        const d = Math.abs(f[by][b]) - Math.abs(f[by][a]) || Math.abs(f[other][b]) - Math.abs(f[other][a]);
        return d !== 0 ? d * sign : a - b;
      });
      return keys;
    }

    draw() {
      const view = this.view;
      const m = view.model;
      const t = view.type;
      const unit = m.types[t].unit;
      const f = m.functions(t);
      const base = m.percentBase(t);
      const keys = this.rows(t);
      this.box.textContent = "";
      const { table, body } = sortableTable("pv-top", "pv-col-", TOP_COLUMNS, this, () => this.draw(), {
        ascending: ["name", "file"],
        fixed: ["flat_pct", "sum_pct", "cum_pct"]
      });
      let sum = 0;
      let next = 0;
      const add = (upTo) => {
        const rows = document.createDocumentFragment();
        for (; next < upTo; next++) {
          const k = keys[next];
          sum += f.flat[k];
          const row = el("tr");
          row.dataset.name = m.keyLabel(k);
          row.dataset.flat = f.flat[k];
          row.dataset.cum = f.cum[k];
          cell(row, PV.formatValue(f.flat[k], unit), "pv-num");
          cell(row, PV.formatPercent(f.flat[k], base), "pv-num");
          cell(row, PV.formatPercent(sum, base), "pv-num");
          cell(row, PV.formatValue(f.cum[k], unit), "pv-num");
          cell(row, PV.formatPercent(f.cum[k], base), "pv-num");
          cell(row, m.keyLabel(k), "pv-name");
          cell(row, m.keyFileName(k), "pv-file");
          if (k === view.selected) row.classList.add("pv-selected");
          if (view.matchesKey(k)) row.classList.add("pv-match");
          row.addEventListener("click", () => view.select(k, { from: "table" }));
          rows.appendChild(row);
        }
        body.appendChild(rows);
      };
      add(Math.min(keys.length, Math.max(FIRST_ROWS, keys.indexOf(view.selected) + 1)));
      this.box.appendChild(table);
      if (next < keys.length) {
        const more = el("button", "pv-more");
        const label = () => {
          more.textContent = "Show " + Math.min(MORE_ROWS, keys.length - next) + " more (" + next + " of " + keys.length + " functions shown)";
        };
        label();
        more.addEventListener("click", () => {
          add(Math.min(keys.length, next + MORE_ROWS));
          if (next < keys.length) label();
          else more.remove();
        });
        this.box.appendChild(more);
      }
      showSelectedRow(body);
    }
  }

  PV.TopTable = TopTable;
})(typeof window !== "undefined" ? window : this);
