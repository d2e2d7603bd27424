/* The browser view of the R package profile: the view's state in the page's
 * URL fragment (the view shown, the sample type, the selected function, the
 * range in view, the search, the refinements and the source panel's width), so that the same file
 * opened with the same link shows the same view; and the "Copy link" button.
 * The view (profile-view.js) calls save() after each drawing and restore()
 * before its first. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  // The fragment of a view's state: URL parameters.
  function fragmentOf(view) {
    const m = view.model;
    const p = new URLSearchParams();
    p.set("view", view.mode);
    if (m.types.length) p.set("type", m.types[view.type].name);
    if (view.selected) p.set("select", m.keyLabel(view.selected));
    if (view.term) p.set("search", view.term);
    if (view.steps.length) p.set("refine", JSON.stringify(view.steps));
    const canvas = view.activeCanvas();
    if (canvas && canvas.tree && (canvas.zoomed !== 0 || canvas.window)) {
      const r = canvas.range();
      p.set("range", r.from + "," + r.span);
    }
    // the source panel's width (a share of the view's), once resized
    if (view.showSource && view.source.width) p.set("source", view.source.width.toFixed(3));
    return "#" + p.toString();
  }

  // The state in the page's URL, replaced (not a new entry of the history).
  function save(view) {
    const fragment = fragmentOf(view);
    view.container.setAttribute("data-link", fragment);
    try {
      if (global.location.hash !== fragment) global.history.replaceState(null, "", fragment);
    } catch {
      // (a page that may not change its URL, such as some viewers' frames)
    }
  }

  // The state of the page's URL fragment set on the view (before it draws);
  // what does not apply (an unknown type or function, a refused pattern) is
  // passed over. Returns the range to show once drawn, or null.
  function restore(view) {
    let hash;
    try {
      hash = global.location.hash;
    } catch {
      return null;
    }
    if (!hash || hash.indexOf("view=") < 0) return null;
    const p = new URLSearchParams(hash.slice(1));
    const m = view.model;
    const type = m.typeIndex(p.get("type"));
    if (type >= 0) {
      view.type = type;
      view.bar.querySelector(".pv-type").value = type;
    }
    const mode = p.get("view");
    if (view.bar.querySelector(".pv-view-" + mode)) view.mode = mode;
    if (p.get("refine")) {
      try {
        view.refine(JSON.parse(p.get("refine")));
      } catch {
        // a link edited by hand: no refinements
      }
    }
    const term = p.get("search");
    if (term) {
      view.bar.querySelector(".pv-search").value = term;
      view.search(term);
    }
    const name = p.get("select");
    if (name) {
      for (let k = 1; k <= m.nKeys; k++) {
        if (m.keyLabel(k) === name) view.selected = k;
      }
    }
    if (p.get("source")) view.source.setWidth(+p.get("source"));
    const range = (p.get("range") || "").split(",").map(Number);
    return range.length === 2 && range.every(isFinite) ? { from: range[0], span: range[1] } : null;
  }

  // The button that copies the link of the view shown.
  function copyButton(view) {
    const button = PV.el("button", "pv-copy-link", "Copy link");
    button.type = "button";
    button.title = "Copy a link to this view (the same file opened with it shows the same view)";
    button.addEventListener("click", () => {
      save(view);
      const link = global.location.href;
      const done = () => {
        button.textContent = "Link copied";
        global.setTimeout(() => {
          button.textContent = "Copy link";
        }, 1500);
      };
      if (global.navigator.clipboard) global.navigator.clipboard.writeText(link).then(done, () => global.prompt("Link to this view", link));
      else global.prompt("Link to this view", link);
    });
    return button;
  }

  PV.link = { fragmentOf, save, restore, copyButton };
})(typeof window !== "undefined" ? window : this);
