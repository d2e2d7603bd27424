/* The browser view of the R package profile: exports from the page. The flame
 * graph or time order shown as SVG (the frames drawn, as drawn) or PNG (the
 * canvas), the Top table as CSV (every function with a value, flat and
 * cum in the sample type's unit) and the Sandwich of the selected function as
 * CSV, each downloaded as a file. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  function xmlEscape(text) {
    return String(text).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
  }

  // The frames the canvas drew, as an SVG document of the same size.
  function svgOf(canvas) {
    const frames = canvas.frames();
    const width = canvas.canvas.clientWidth;
    const top = canvas.options.axis ? 22 : 0;
    const height = canvas.canvas.clientHeight;
    const out = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<svg xmlns="http://www.w3.org/2000/svg" width="' + width + '" height="' + height + '" font-family="sans-serif" font-size="12">'
    ];
    for (const f of frames) {
      const y = f.y + top;
      const w = Math.max(f.width - (f.width > 3 ? 1 : 0), 0.5);
      out.push('<g><title>' + xmlEscape(f.name) + "</title>" +
        '<rect x="' + f.x.toFixed(2) + '" y="' + y + '" width="' + w.toFixed(2) + '" height="' + (PV.ROW - 1) +
        '" fill="' + f.fill + '"' + (f.faded ? ' fill-opacity="0.6"' : "") + "/>" +
        (f.width > 30 ? '<text x="' + (f.x + 3).toFixed(2) + '" y="' + (y + 13) + '" clip-path="none">' +
          xmlEscape(f.name.length > f.width / 7 ? f.name.slice(0, Math.max(1, Math.floor(f.width / 7) - 1)) + "\u2026" : f.name) +
          "</text>" : "") + "</g>");
    }
    // the time order's stretches of blocks narrower than a pixel, merged: a
    // rect each, titled by what it holds
    const title = canvas.options.mergedTitle;
    for (const s of canvas.merged ? canvas.merged() : []) {
      out.push('<g class="merged"><title>' + xmlEscape(title ? title(s) : "frames merged") + "</title>" +
        '<rect x="' + s.x.toFixed(2) + '" y="' + (s.y + top) + '" width="' + s.w.toFixed(2) + '" height="' + (PV.ROW - 1) +
        '" fill="' + s.fill + '"/></g>');
    }
    out.push("</svg>");
    return out.join("\n");
  }

  function csvField(x) {
    const s = String(x);
    return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  // The Top table as CSV: name, file, flat, cum (numbers in full), largest
  // flat first.
  function topCsv(view) {
    const m = view.model;
    const { flat, cum } = m.functions(view.type);
    const keys = [];
    for (let k = 1; k <= m.nKeys; k++) if (flat[k] !== 0 || cum[k] !== 0) keys.push(k);
    keys.sort((a, b) => Math.abs(flat[b]) - Math.abs(flat[a]) || Math.abs(cum[b]) - Math.abs(cum[a]) || a - b);
    const lines = ["name,file,flat,cum"];
    for (const k of keys) lines.push([m.keyLabel(k), m.keyFileName(k), flat[k], cum[k]].map(csvField).join(","));
    return lines.join("\n") + "\n";
  }

  // The Sandwich of the selected function as CSV: part, name, value. The
  // function (its total), its direct callers and callees with the value of
  // the samples through each (the peek tables), and "(self)" among the
  // callees; numbers in full. Empty without a selected function.
  function sandwichCsv(view) {
    const m = view.model;
    const t = view.type;
    const k = view.selected;
    const lines = ["part,name,value"];
    if (!(k > 0) || m.functions(t).cum[k] === 0) return lines.join("\n") + "\n";
    lines.push(["function", m.keyLabel(k), m.functions(t).cum[k]].map(csvField).join(","));
    for (const [part, tree] of [["caller", m.callers(t, k)], ["callee", m.callees(t, k)]]) {
      const first = [];
      for (let i = 1; i < tree.n; i++) if (tree.parent[i] === 0) first.push(i);
      first.sort((a, b) => Math.abs(tree.delta[b]) - Math.abs(tree.delta[a]) || a - b);
      for (const i of first) lines.push([part, m.keyLabel(tree.key[i]), tree.delta[i]].map(csvField).join(","));
      const own = tree.selfPos[0] + tree.selfNeg[0];
      if (part === "callee" && own !== 0) lines.push(["callee", "(self)", own].map(csvField).join(","));
    }
    return lines.join("\n") + "\n";
  }

  function download(name, url) {
    const a = document.createElement("a");
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  function downloadText(name, text, type) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    download(name, url);
    global.setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  // The export menu of the toolbar: what the view shown can give.
  function exportMenu(view) {
    const select = PV.el("select", "pv-export");
    select.title = "Export the view shown";
    const options = [["", "Export\u2026"], ["svg", "SVG"], ["png", "PNG"], ["csv", "Top as CSV"],
      ["sandwich", "Sandwich as CSV"]];
    for (const [value, label] of options) select.appendChild(PV.el("option", null, label)).value = value;
    select.addEventListener("change", () => {
      const what = select.value;
      select.value = "";
      const canvas = view.activeCanvas();
      const base = view.mode === "chart" ? "time-order" : "flame-graph";
      if (what === "svg" && canvas) downloadText(base + ".svg", svgOf(canvas), "image/svg+xml");
      else if (what === "png" && canvas) download(base + ".png", canvas.canvas.toDataURL("image/png"));
      else if (what === "csv") downloadText("top.csv", topCsv(view), "text/csv");
      else if (what === "sandwich") downloadText("sandwich.csv", sandwichCsv(view), "text/csv");
    });
    return select;
  }

  PV.exports = { svgOf, topCsv, sandwichCsv, exportMenu };
})(typeof window !== "undefined" ? window : this);
