/* The browser view of the R package profile (profile_view()): a flame graph of
 * the merged call tree and, when samples have a time, a flame chart of the
 * samples in time order, drawn with d3-flame-graph. The data come from the
 * package's Rust core (src/rust/core/src/view.rs) as one JSON object whose
 * number columns are typed arrays (base64 of little-endian bytes), decoded
 * here without a JavaScript object per sample.
 *
 * ProfileView.render(element, data) draws into `element`; it returns an object
 * with resize(width, height). */
(function (global) {
  "use strict";

  var ROOT_NAME = "root";

  // ---- data ------------------------------------------------------------------

  // A typed array of the data: {const, length}, {type, length, base64}, or
  // {start, step, steps} (value i is start + step * the sum of steps[0..i]).
  function decodeArray(a) {
    if (a.steps) {
      var steps = decodeArray(a.steps);
      var out = new Float64Array(steps.length);
      var k = 0;
      for (var j = 0; j < steps.length; j++) {
        k += steps[j];
        out[j] = a.start + a.step * k;
      }
      return out;
    }
    if (Object.prototype.hasOwnProperty.call(a, "const")) {
      return new Float64Array(a.length).fill(a["const"]);
    }
    var text = atob(a.base64);
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    switch (a.type) {
      case "u8":
        return bytes;
      case "u16":
        return new Uint16Array(bytes.buffer);
      case "i32":
        return new Int32Array(bytes.buffer);
      case "f64":
        return new Float64Array(bytes.buffer);
    }
    throw new Error("profile view: unknown array type " + a.type);
  }

  // The decoded profile: node columns, value columns per sample type, runs.
  function Model(data) {
    this.title = data.title;
    this.diff = data.diff;
    this.types = data.types;
    this.defaultType = data.default_type;
    this.strings = data.strings;
    this.keyName = decodeArray(data.keys.name);
    this.keyFile = decodeArray(data.keys.file);
    var tree = data.tree;
    this.parent = decodeArray(tree.parent);
    this.key = decodeArray(tree.key);
    this.line = decodeArray(tree.line);
    this.values = tree.values.map(function (v) {
      return {
        totalPos: decodeArray(v.total_pos),
        totalNeg: decodeArray(v.total_neg),
        selfPos: decodeArray(v.self_pos),
        selfNeg: decodeArray(v.self_neg)
      };
    });
    this.runs = data.runs && {
      leaf: decodeArray(data.runs.leaf),
      count: decodeArray(data.runs.count),
      time: decodeArray(data.runs.time),
      source: decodeArray(data.runs.source),
      weight: data.runs.weight.map(decodeArray)
    };
    this.depth = new Int32Array(this.parent.length);
    for (var i = 1; i < this.parent.length; i++) this.depth[i] = this.depth[this.parent[i]] + 1;
  }

  Model.prototype.name = function (node) {
    return node === 0 ? ROOT_NAME : this.strings[this.keyName[this.key[node] - 1]];
  };

  Model.prototype.file = function (node) {
    return node === 0 ? "" : this.strings[this.keyFile[this.key[node] - 1]];
  };

  // The flame graph's tree for sample type t: {id, v (width: the absolute
  // values), d (difference), c (children)}; nodes without value left out.
  Model.prototype.graphTree = function (t) {
    var v = this.values[t];
    var n = this.parent.length;
    var objects = new Array(n);
    for (var i = 0; i < n; i++) {
      var width = v.totalPos[i] - v.totalNeg[i];
      if (i > 0 && !(width > 0)) continue;
      var node = { id: i, v: width, d: v.totalPos[i] + v.totalNeg[i], c: [] };
      objects[i] = node;
      if (i > 0) objects[this.parent[i]].c.push(node);
    }
    return objects[0];
  };

  // The flame chart's tree for sample type t: blocks of consecutive runs that
  // share a frame at a depth, in time order: {id, v, c, t0, t1, n}.
  Model.prototype.chartTree = function (t) {
    var runs = this.runs;
    var weight = runs.weight[t];
    var root = { id: 0, v: 0, c: [], t0: NaN, t1: NaN, n: 0 };
    var open = [root];
    var path = [];
    var source = -1;
    for (var r = 0; r < runs.leaf.length; r++) {
      var w = weight[r];
      if (!(w > 0)) continue;
      if (runs.source[r] !== source) {
        source = runs.source[r];
        open.length = 1;
      }
      path.length = 0;
      for (var node = runs.leaf[r]; node !== 0; node = this.parent[node]) path.push(node);
      path.reverse();
      var same = 0;
      while (same < path.length && same + 1 < open.length && open[same + 1].id === path[same]) same++;
      open.length = same + 1;
      for (var d = same; d < path.length; d++) {
        var block = { id: path[d], v: 0, c: [], t0: runs.time[r], t1: runs.time[r], n: 0 };
        open[d].c.push(block);
        open.push(block);
      }
      for (var k = 0; k < open.length; k++) {
        var b = open[k];
        b.v += w;
        b.n += runs.count[r];
        if (isNaN(b.t0)) b.t0 = runs.time[r];
        b.t1 = runs.time[r];
      }
    }
    return root;
  };

  // ---- numbers ---------------------------------------------------------------

  function groupDigits(x) {
    var s = Math.abs(x) >= 1e15 ? x.toExponential(3) : (Math.round(x * 1000) / 1000).toString();
    var parts = s.split(".");
    parts[0] = parts[0].replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    return parts.join(".");
  }

  function scaled(x, steps) {
    var a = Math.abs(x);
    for (var i = steps.length - 1; i > 0; i--) {
      if (a >= steps[i][0]) return +(x / steps[i][0]).toPrecision(4) + " " + steps[i][1];
    }
    return groupDigits(x) + " " + steps[0][1];
  }

  var BYTES = [[1, "B"], [1024, "KiB"], [1048576, "MiB"], [1073741824, "GiB"], [1099511627776, "TiB"]];
  var NANOS = [[1, "ns"], [1e3, "\u00b5s"], [1e6, "ms"], [1e9, "s"]];

  function formatValue(x, unit) {
    if (unit === "bytes") return scaled(x, BYTES);
    if (unit === "nanoseconds") return scaled(x, NANOS);
    if (unit === "count") return groupDigits(x);
    return groupDigits(x) + " " + unit;
  }

  function formatPercent(part, whole) {
    if (!(whole !== 0)) return "";
    return (100 * part / whole).toFixed(2) + "%";
  }

  function signed(text, x) {
    return x > 0 ? "+" + text : text;
  }

  // Growth red, shrinkage blue, the stronger the larger the difference is
  // against the frame's width (both sides); no difference grey.
  function diffColour(delta, width) {
    var share = width > 0 ? Math.min(1, Math.abs(delta) / width) : 0;
    var light = Math.round(220 * (1 - share));
    if (delta > 0) return "rgb(255," + light + "," + light + ")";
    if (delta < 0) return "rgb(" + light + "," + light + ",255)";
    return "rgb(220,220,220)";
  }

  // ---- the view --------------------------------------------------------------

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function View(container, data) {
    this.model = new Model(data);
    this.container = container;
    this.type = this.model.defaultType;
    this.mode = "graph";
    this.term = "";
    container.classList.add("profile-view");
    container.textContent = "";
    this.buildToolbar();
    this.heading = el("div", "pv-heading");
    this.chartBox = el("div", "pv-chart");
    this.tooltip = el("div", "pv-tooltip");
    container.appendChild(this.heading);
    container.appendChild(this.chartBox);
    container.appendChild(this.tooltip);
    this.draw();
  }

  View.prototype.buildToolbar = function () {
    var self = this;
    var m = this.model;
    var bar = el("div", "pv-toolbar");
    var select = el("select", "pv-type");
    select.title = "Sample type";
    m.types.forEach(function (type, i) {
      var option = el("option", null, type.name + " (" + type.unit + ")");
      option.value = i;
      select.appendChild(option);
    });
    select.value = this.type;
    select.addEventListener("change", function () {
      self.type = +select.value;
      self.draw();
    });
    bar.appendChild(select);
    if (m.runs) {
      var views = el("span", "pv-views");
      [["graph", "Flame graph"], ["chart", "Time order"]].forEach(function (v) {
        var button = el("button", "pv-view-" + v[0], v[1]);
        button.type = "button";
        button.addEventListener("click", function () {
          self.mode = v[0];
          self.draw();
        });
        views.appendChild(button);
      });
      bar.appendChild(views);
    }
    var search = el("input", "pv-search");
    search.type = "search";
    search.placeholder = "Search (regular expression)";
    search.addEventListener("input", function () {
      self.term = search.value;
      self.search();
    });
    bar.appendChild(search);
    var reset = el("button", "pv-reset", "Reset zoom");
    reset.type = "button";
    reset.addEventListener("click", function () {
      if (self.chart) self.chart.resetZoom();
    });
    bar.appendChild(reset);
    this.status = el("span", "pv-status");
    bar.appendChild(this.status);
    this.container.appendChild(bar);
  };

  View.prototype.unit = function () {
    return this.model.types[this.type].unit;
  };

  View.prototype.drawHeading = function (root) {
    var type = this.model.types[this.type];
    var parts = [];
    if (this.model.title) parts.push(this.model.title);
    parts.push(type.name + " (" + type.unit + ")");
    if (this.model.diff && this.mode === "graph") {
      var v = this.model.values[this.type];
      parts.push("difference " + signed(formatValue(v.totalPos[0] + v.totalNeg[0], type.unit), v.totalPos[0] + v.totalNeg[0]) +
        " (profile " + formatValue(v.totalPos[0], type.unit) + ", base " + formatValue(-v.totalNeg[0], type.unit) + ")");
    } else {
      parts.push("total " + formatValue(root.v, type.unit));
    }
    if (this.mode === "chart") parts.push("samples in time order");
    this.heading.textContent = parts.join(" \u00b7 ");
    if (this.model.diff && this.mode === "graph") {
      var legend = el("span", "pv-legend");
      legend.appendChild(el("span", "pv-grow", "grows"));
      legend.appendChild(el("span", "pv-shrink", "shrinks"));
      this.heading.appendChild(legend);
    }
  };

  View.prototype.draw = function () {
    var self = this;
    var m = this.model;
    this.container.setAttribute("data-state", "drawing");
    this.container.setAttribute("data-mode", this.mode);
    this.container.setAttribute("data-type", m.types.length ? m.types[this.type].name : "");
    if (this.chart) this.chart.destroy();
    this.chartBox.textContent = "";
    if (!m.types.length) {
      this.heading.textContent = "The profile has no sample type to show.";
      this.container.setAttribute("data-state", "drawn");
      return;
    }
    var root = this.mode === "chart" ? m.chartTree(this.type) : m.graphTree(this.type);
    this.drawHeading(root);
    var width = Math.max(this.chartBox.clientWidth || this.container.clientWidth || 960, 200);
    var chart = global.flamegraph["default"]()
      .width(width)
      .cellHeight(18)
      .inverted(true)
      .sort(false)
      .minFrameSize(0.5)
      .transitionDuration(0)
      .getName(function (d) {
        return m.name(d.data.id);
      })
      .tooltip(this.makeTooltip())
      .setSearchMatch(function (d) {
        return self.matches(m.name(d.data.id));
      })
      .setSearchHandler(function (results, sum, total) {
        self.reportSearch(results, sum, total);
      })
      .setDetailsHandler(function () {});
    if (m.diff && this.mode === "graph") {
      chart.setColorMapper(function (d, original) {
        return d.highlight ? original : diffColour(d.data.d, d.data.v);
      });
    }
    this.chart = chart;
    global.d3.select(this.chartBox).datum(root).call(chart);
    if (this.term) this.search();
    // Zooming animates once the first drawing is on screen.
    window.requestAnimationFrame(function () {
      window.requestAnimationFrame(function () {
        chart.transitionDuration(300);
        self.container.setAttribute("data-state", "drawn");
        if (global.__profileViewDrawnAt === undefined) global.__profileViewDrawnAt = performance.now();
      });
    });
  };

  // The search term as a regular expression, or as plain text when it is not
  // one; empty matches nothing.
  View.prototype.matches = function (name) {
    if (!this.pattern) return false;
    return this.pattern.test(name);
  };

  View.prototype.search = function () {
    var term = this.term;
    this.pattern = null;
    if (term) {
      try {
        this.pattern = new RegExp(term);
      } catch (e) {
        var literal = term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        this.pattern = new RegExp(literal);
      }
    }
    if (!this.chart) return;
    if (this.pattern) {
      this.chart.search(term);
    } else {
      this.chart.clear();
      this.status.textContent = "";
    }
  };

  // The share of the matching frames (outermost matches only, so that nested
  // matches count once), and in a diff their difference.
  View.prototype.reportSearch = function (results, sum, total) {
    var unit = this.unit();
    var text = results.length + " frames match: " + formatValue(sum, unit) + " of " +
      formatValue(total, unit) + " (" + formatPercent(sum, total) + ")";
    if (this.model.diff && this.mode === "graph") {
      var delta = 0;
      results.forEach(function (d) {
        for (var a = d.parent; a; a = a.parent) if (a.highlight) return;
        delta += d.data.d;
      });
      text += ", difference " + signed(formatValue(delta, unit), delta);
    }
    this.status.textContent = text;
    this.container.setAttribute("data-search-share", total > 0 ? sum / total : 0);
  };

  View.prototype.tooltipLines = function (d) {
    var m = this.model;
    var unit = this.unit();
    var id = d.data.id;
    var lines = [];
    var file = m.file(id);
    var line = id === 0 ? 0 : m.line[id];
    if (file || line > 0) lines.push((file || "?") + (line > 0 ? ":" + line : ""));
    var rootValue = this.chartRoot().v;
    if (this.mode === "chart") {
      var own = d.data.v - d.data.c.reduce(function (s, c) { return s + c.v; }, 0);
      lines.push("total " + formatValue(d.data.v, unit) + " (" + formatPercent(d.data.v, rootValue) + ")");
      lines.push("self " + formatValue(own, unit) + " (" + formatPercent(own, rootValue) + ")");
      lines.push(d.data.n + (d.data.n === 1 ? " sample" : " samples") + ", from " + d.data.t0.toFixed(3) + " s to " + d.data.t1.toFixed(3) + " s");
      return lines;
    }
    var v = m.values[this.type];
    if (!m.diff) {
      lines.push("total " + formatValue(v.totalPos[id], unit) + " (" + formatPercent(v.totalPos[id], rootValue) + ")");
      lines.push("self " + formatValue(v.selfPos[id], unit) + " (" + formatPercent(v.selfPos[id], rootValue) + ")");
      return lines;
    }
    var base = -v.totalNeg[0];
    var total = v.totalPos[id] + v.totalNeg[id];
    var own = v.selfPos[id] + v.selfNeg[id];
    lines.push("total " + signed(formatValue(total, unit), total) + " (" + signed(formatPercent(total, base), total) + " of base)");
    lines.push("self " + signed(formatValue(own, unit), own) + " (" + signed(formatPercent(own, base), own) + " of base)");
    lines.push("profile " + formatValue(v.totalPos[id], unit) + ", base " + formatValue(-v.totalNeg[id], unit));
    return lines;
  };

  View.prototype.chartRoot = function () {
    return global.d3.select(this.chartBox).datum().data;
  };

  // A tooltip as d3-flame-graph wants one: a function with show() and hide().
  View.prototype.makeTooltip = function () {
    var self = this;
    var box = this.tooltip;
    function tip() {}
    tip.show = function (event, d) {
      box.textContent = "";
      box.appendChild(el("div", "pv-tooltip-name", self.model.name(d.data.id)));
      self.tooltipLines(d).forEach(function (line) {
        box.appendChild(el("div", null, line));
      });
      var bounds = self.container.getBoundingClientRect();
      box.style.display = "block";
      var left = event.clientX - bounds.left + 12;
      if (left + box.offsetWidth > bounds.width) left = Math.max(0, event.clientX - bounds.left - box.offsetWidth - 12);
      box.style.left = left + "px";
      box.style.top = event.clientY - bounds.top + 16 + "px";
      return tip;
    };
    tip.hide = function () {
      box.style.display = "none";
      return tip;
    };
    tip.destroy = tip.hide;
    return tip;
  };

  View.prototype.resize = function () {
    this.draw();
  };

  global.ProfileView = {
    render: function (element, data) {
      return new View(element, data);
    },
    decodeArray: decodeArray
  };
})(typeof window !== "undefined" ? window : this);
