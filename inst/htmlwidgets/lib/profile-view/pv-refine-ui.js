/* The browser view of the R package profile: the controls of refinements
 * (pv-refine.js computes them). A menu beside the search box applies a verb
 * to the pattern typed; a frame's context menu applies one to its function;
 * the refinements in force are listed as chips, each removable, with a button
 * that shows the R code giving the same profile. The view (profile-view.js)
 * owns the list of steps and redraws every view when it changes. */
(function (global) {
  "use strict";

  const PV = (global.ProfileView = global.ProfileView || {});
  const el = PV.el;

  // [verb, label of the search box's menu, label of a frame's menu, tooltip]
  const VERB_LABELS = [
    ["focus", "Focus on matches", "Focus on", "Keep the samples with a matching frame (profile_focus())"],
    ["ignore", "Ignore matches", "Ignore", "Drop the samples with a matching frame (profile_ignore())"],
    ["hide", "Hide matches", "Hide", "Remove the matching frames from every stack (profile_hide())"],
    ["show", "Show only matches", "Show only", "Keep only the matching frames of every stack (profile_show())"],
    ["prune_from", "Prune from matches", "Prune below", "Drop the frames called from a matching frame (profile_prune_from())"]
  ];

  class RefineControls {
    // Builds the search box's menu into `bar` and the row of chips after it.
    constructor(view, bar, search) {
      this.view = view;
      this.search = search;
      const select = el("select", "pv-refine");
      select.title = "Refine the profile by the pattern in the search box (a Go regular expression, as the R verbs take)";
      select.appendChild(el("option", null, "Refine\u2026")).value = "";
      for (const [verb, label, , title] of VERB_LABELS) {
        const option = el("option", null, label);
        option.value = verb;
        option.title = title;
        select.appendChild(option);
      }
      select.addEventListener("change", () => {
        const verb = select.value;
        select.value = "";
        if (verb && search.value) view.addStep(verb, search.value);
      });
      // the verbs' code run once on the page's tree, a second after it opens
      // and when the page is idle, one kind of verb per task, so that the
      // user's first refinement finds it compiled (pv-refine.js)
      const idle = global.requestIdleCallback || ((f) => global.setTimeout(f, 0));
      global.setTimeout(() => idle(() => {
        view.model.warmRefinements("focus");
        idle(() => view.model.warmRefinements("hide"));
      }), 1000);
      bar.appendChild(select);
      this.row = el("div", "pv-refinements");
      this.chips = el("span", "pv-chips");
      this.row.appendChild(this.chips);
      this.codeButton = el("button", "pv-rcode-button", "R code");
      this.codeButton.type = "button";
      this.codeButton.title = "The R code that gives the refined profile";
      this.codeButton.addEventListener("click", () => {
        this.code.style.display = this.code.style.display === "none" ? "" : "none";
      });
      this.row.appendChild(this.codeButton);
      this.message = el("span", "pv-refine-message");
      this.row.appendChild(this.message);
      this.code = el("pre", "pv-rcode");
      this.code.style.display = "none";
      this.row.appendChild(this.code);
      this.menu = el("div", "pv-menu");
      this.menu.style.display = "none";
      view.container.appendChild(this.menu);
      document.addEventListener("mousedown", (e) => {
        if (!this.menu.contains(e.target)) this.closeMenu();
      });
    }

    // The chips of the steps in force (`report`: per step whether its pattern
    // matched a frame, as the R verbs warn when not, and whether the match is
    // approximate), and the R code.
    draw(steps, report) {
      this.chips.textContent = "";
      this.row.style.display = steps.length || this.message.textContent ? "" : "none";
      this.codeButton.style.display = steps.length ? "" : "none";
      steps.forEach((step, j) => {
        const chip = el("span", "pv-chip");
        chip.dataset.verb = step.verb;
        chip.dataset.pattern = step.pattern;
        chip.appendChild(el("span", "pv-chip-verb", step.verb + ": "));
        chip.appendChild(el("code", null, step.pattern));
        if (report[j] && !report[j].matched) {
          chip.classList.add("pv-no-match");
          chip.title = "The pattern matches no frame";
        } else if (report[j] && report[j].approximate) {
          chip.classList.add("pv-approximate");
          chip.title = "Approximate: the pattern matches the file or line of some frames of a function and not others, " +
            "which the view merges by name; the R code gives the exact profile";
        }
        const remove = el("button", "pv-chip-remove", "\u00d7");
        remove.type = "button";
        remove.title = "Remove this refinement";
        remove.addEventListener("click", () => this.view.removeStep(j));
        chip.appendChild(remove);
        this.chips.appendChild(chip);
      });
      this.code.textContent = PV.rCode(steps, "x");
      if (!steps.length) this.code.style.display = "none";
    }

    // A pattern refused: said beside the chips until the next change.
    say(text) {
      this.message.textContent = text;
      this.row.style.display = "";
    }

    // The context menu of a frame of function `name` at the pointer.
    openMenu(name, event) {
      const menu = this.menu;
      menu.textContent = "";
      menu.appendChild(el("div", "pv-menu-title", name));
      for (const [verb, , label, title] of VERB_LABELS) {
        const item = el("button", "pv-menu-" + verb, label);
        item.type = "button";
        item.title = title;
        item.addEventListener("click", () => {
          this.closeMenu();
          this.view.addStep(verb, PV.exactPattern(verb === "prune_from" ? withoutArguments(name) : name));
        });
        menu.appendChild(item);
      }
      const bounds = this.view.container.getBoundingClientRect();
      menu.style.display = "block";
      menu.style.left = Math.min(event.clientX - bounds.left, bounds.width - menu.offsetWidth) + "px";
      menu.style.top = event.clientY - bounds.top + "px";
    }

    closeMenu() {
      this.menu.style.display = "none";
    }
  }

  // A name as prune_from matches it (Go matches names without their
  // argument lists).
  function withoutArguments(name) {
    const paren = name.indexOf("(");
    return paren > 0 ? name.slice(0, paren) : name;
  }

  PV.RefineControls = RefineControls;
})(typeof window !== "undefined" ? window : this);
