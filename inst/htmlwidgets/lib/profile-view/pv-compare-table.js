/* The browser view of the R package profile: the table of a comparison with a
 * base (profile_view(x, base = )), beside the view: one row per function of
 * profile_compare() (functions only in the base too), with the means per run
 * of base and x, the difference, the ratio, its interval and the change, in
 * profile_compare()'s order or sorted by a column (a click on its head). A
 * click on a row selects its function in the view (its frames outlined). A
 * button of the toolbar shows and hides the panel. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  const COLUMNS = [
    ["name", "name", "The function"],
    ["base", "base", "Mean per run of the base"],
    ["x", "x", "Mean per run of x"],
    ["delta", "delta", "x minus base, per run"],
    ["ratio", "ratio", "x over base"],
    ["interval", "interval", "The interval of the change (at equal run speed)"],
    ["change", "change", "Whether the change is significant"]
  ];

  // The order of the changes when sorted by them.
  const CHANGE_ORDER = { increase: 0, decrease: 1, none: 2 };

  class ComparePanel {
    // Drawn into `parent` (the view's body, beside the view); `view` is the
    // View, whose `compare` is the Comparison (pv-compare.js).
    constructor(parent, view) {
      const el = PV.el;
      this.view = view;
      this.compare = view.compare;
      this.box = el("div", "pv-compare");
      parent.appendChild(this.box);
      this.note = el("p", "pv-note");
      this.box.appendChild(this.note);
      this.tableBox = el("div", "pv-compare-box");
      this.box.appendChild(this.tableBox);
      this.sort = null;
      this.descending = true;
      this.shown = true;
      // (the table takes the place of the source panel, which its button shows)
      view.showSource = false;
      this.toggle = el("button", "pv-compare-toggle", "Comparison");
      this.toggle.type = "button";
      this.toggle.title = "Show or hide the table of the comparison with the base";
      this.toggle.addEventListener("click", () => {
        this.shown = !this.shown;
        view.draw();
      });
      view.bar.insertBefore(this.toggle, view.status);
    }

    // The rows in the order shown.
    ordered() {
      const rows = this.compare.rows.slice();
      const by = this.sort;
      if (by === null) return rows;
      const sign = this.descending ? -1 : 1;
      const value = (r) => {
        if (by === "name") return r.name;
        if (by === "change") return CHANGE_ORDER[r.change];
        if (by === "interval") return r.lower === null ? -Infinity : r.lower;
        if (by === "ratio" && r.ratio === null) return Infinity;
        return r[by];
      };
      rows.sort((a, b) => {
        const va = value(a);
        const vb = value(b);
        const d = va < vb ? -1 : va > vb ? 1 : 0;
        return d !== 0 ? d * sign : a.index - b.index;
      });
      return rows;
    }

    draw() {
      const el = PV.el;
      const view = this.view;
      const c = this.compare;
      this.box.style.display = this.shown ? "" : "none";
      this.toggle.classList.toggle("pv-active", this.shown);
      if (!this.shown) return;
      const changed = c.rows.filter((r) => r.change !== "none").length;
      this.note.textContent = changed + " of " + c.rows.length + " functions changed (" + c.type + ", " + c.unit +
        ", " + c.value + " value per run)";
      this.tableBox.textContent = "";
      const table = el("table", "pv-compare-table");
      const head = el("tr");
      for (const [id, label, title] of COLUMNS) {
        const th = el("th", "pv-sortable pv-ccol-" + id, label);
        th.title = title;
        if (this.sort === id) th.classList.add(this.descending ? "pv-desc" : "pv-asc");
        th.addEventListener("click", () => {
          this.descending = this.sort === id ? !this.descending : id !== "name" && id !== "change";
          this.sort = id;
          this.draw();
        });
        head.appendChild(th);
      }
      const thead = el("thead");
      thead.appendChild(head);
      table.appendChild(thead);
      const body = el("tbody");
      const f = (v) => PV.formatValue(v, c.unit);
      for (const r of this.ordered()) {
        const tr = el("tr", "pv-change-" + r.change);
        tr.dataset.name = r.name;
        tr.dataset.change = r.change;
        for (const col of ["base", "x", "delta", "ratio", "lower", "upper", "p"]) {
          tr.dataset[col] = r[col] === null ? "" : r[col];
        }
        const name = el("td", "pv-name", r.name);
        name.style.borderLeft = "6px solid " + PV.changeColour(r.change, r.ratio);
        tr.appendChild(name);
        tr.appendChild(el("td", "pv-num", f(r.base)));
        tr.appendChild(el("td", "pv-num", f(r.x)));
        tr.appendChild(el("td", "pv-num", PV.signed(f(r.delta), r.delta)));
        tr.appendChild(el("td", "pv-num", r.ratio === null ? "new" : r.ratio.toFixed(2)));
        tr.appendChild(el("td", "pv-num", c.intervalText(r)));
        tr.appendChild(el("td", "pv-compare-change", r.change === "none" ? "\u2013" : r.change));
        if (r.key === 0) {
          tr.classList.add("pv-base-only");
          tr.title = "Only in the base: no frame of x";
        } else {
          if (r.key === view.selected) tr.classList.add("pv-selected");
          tr.addEventListener("click", () => view.select(r.key, { from: "compare" }));
        }
        body.appendChild(tr);
      }
      table.appendChild(body);
      this.tableBox.appendChild(table);
      const selected = body.querySelector("tr.pv-selected");
      if (selected && selected.scrollIntoView) selected.scrollIntoView({ block: "nearest" });
    }
  }

  PV.ComparePanel = ComparePanel;
})(typeof window !== "undefined" ? window : this);
