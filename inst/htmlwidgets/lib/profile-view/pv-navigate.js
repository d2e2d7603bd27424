/* The browser view of the R package profile: moving about the flame graph
 * and the time order. Zooms are steps a canvas keeps (FlameCanvas's
 * zoomSteps, and zoomAhead for those stepped back from): back and forward
 * walk them, from the keys (Backspace or Alt+Left, Shift+Backspace or
 * Alt+Right) and the toolbar's arrows. The arrow keys move the zoom from the
 * frame in view to its caller (Up), its widest callee (Down) or the frame
 * beside it (Left, Right), each a zoom step as a click on that frame would
 * be; a double click zooms to a frame as one step. The view
 * (profile-view.js) calls key() for its keys. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});

  // The state of a canvas's zoom, to go back to.
  function zoomState(canvas) {
    return { zoomed: canvas.zoomed, window: canvas.window };
  }

  function restore(view, canvas, state) {
    canvas.zoomed = state.zoomed;
    canvas.window = state.window;
    view.container.setAttribute("data-state", "drawing");
    canvas.draw();
    view.finishDrawing();
  }

  // One zoom step back (forward: one ahead again); false when there is none.
  function step(view, ahead) {
    const canvas = view.activeCanvas();
    if (!canvas) return false;
    const from = ahead ? canvas.zoomAhead : canvas.zoomSteps;
    const to = ahead ? canvas.zoomSteps : canvas.zoomAhead;
    if (!from.length) return false;
    to.push(zoomState(canvas));
    restore(view, canvas, from.pop());
    return true;
  }

  // The frame the arrow key `key` moves to from node i of `tree`, or -1:
  // the parent, the widest child, or the sibling before or after (in the
  // time order, the block beside it under the same parent).
  function neighbour(tree, i, key) {
    if (key === "ArrowUp") return i === 0 ? -1 : tree.parent[i];
    const children = (p) => {
      // (the time order's chart makes its blocks when asked, pv-chart.js)
      if (tree.children) return tree.children(p).filter((c) => tree.w[c] > 0);
      const out = [];
      for (let c = p + 1; c < tree.end[p]; c = tree.end[c]) if (tree.w[c] > 0) out.push(c);
      return out;
    };
    if (key === "ArrowDown") {
      const kids = children(i);
      return kids.length ? kids.reduce((a, b) => (tree.w[b] > tree.w[a] ? b : a)) : -1;
    }
    if (i === 0) return -1;
    const siblings = children(tree.parent[i]).sort((a, b) => tree.x0[a] - tree.x0[b]);
    const at = siblings.indexOf(i) + (key === "ArrowRight" ? 1 : -1);
    return at >= 0 && at < siblings.length ? siblings[at] : -1;
  }

  // The view's keys: / to search, Esc to clear, Backspace (Alt+Left) back
  // through the zooms, Shift+Backspace (Alt+Right) forward, arrows to move
  // between frames. Returns whether the key was used.
  function key(view, event) {
    const target = event.target || {};
    const inInput = target.tagName === "INPUT" || target.tagName === "SELECT";
    const inSearch = target.classList && target.classList.contains("pv-search");
    if (event.key === "/" && !inSearch) {
      event.preventDefault();
      view.bar.querySelector(".pv-search").focus();
      return true;
    }
    if (event.key === "Escape") {
      const search = view.bar.querySelector(".pv-search");
      search.value = "";
      view.refineControls.closeMenu();
      view.selected = 0;
      view.search("");
      if (inSearch) search.blur();
      view.container.focus();
      view.draw();
      return true;
    }
    if (inInput) return false;
    const back = (event.key === "Backspace" && !event.shiftKey) || (event.altKey && event.key === "ArrowLeft");
    const forward = (event.key === "Backspace" && event.shiftKey) || (event.altKey && event.key === "ArrowRight");
    if (back || forward) {
      if (step(view, forward)) event.preventDefault();
      return true;
    }
    if (/^Arrow(Up|Down|Left|Right)$/.test(event.key)) {
      const canvas = view.activeCanvas();
      if (!canvas || !canvas.tree) return false;
      const next = neighbour(canvas.tree, canvas.zoomed, event.key);
      event.preventDefault();
      if (next >= 0) view.clicked(canvas, next);
      return true;
    }
    return false;
  }

  // The toolbar's back and forward buttons.
  function buttons(view) {
    const box = PV.el("span", "pv-zoom-steps");
    for (const [className, label, title, ahead] of [
      ["pv-back", "\u25c0", "Back to the zoom before (Backspace)", false],
      ["pv-forward", "\u25b6", "Forward to the zoom stepped back from (Shift+Backspace)", true]
    ]) {
      const button = PV.el("button", className, label);
      button.type = "button";
      button.title = title;
      button.addEventListener("click", () => step(view, ahead));
      box.appendChild(button);
    }
    return box;
  }

  PV.navigate = { key, buttons, step, neighbour, zoomState };
})(typeof window !== "undefined" ? window : this);
