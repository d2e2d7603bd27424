// The browser side of the package's browser tests (tests/testthat/test-view-*.R)
// and of bench/view.R: drives Debian's chromium, headless, through
// playwright-core. Reads a job (JSON) from the file named by its argument and
// prints the result as JSON on standard output.
//
//   node driver.mjs job.json
//
// Jobs:
//   {"command": "view", "html": FILE, "width": 1200, "height": 800,
//    "fragment": "#view=..." (opened with this link, optional),
//    "actions": [{"search": "re"}, {"type": "cpu"}, {"mode": "chart"},
//                {"click": "name", "in": "callers"}, {"hover": "name"},
//                {"hover_merged": 2} (the widest merged stretch of row 2
//                of the time order), {"dblclick": "name"}, {"button": "pv-back"} (a button
//                of the view by its class),
//                {"source_id": 2} (the source selector; "" for all),
//                {"row": "name"} (the Top table scrolled to it first),
//                {"table_scroll": 900} (the Top table scrolled to 900 px),
//                {"sort": "cum"}, {"line": 12},
//                {"file": "a.R"}, {"source": true}, {"reset": true},
//                {"splitter": -100} (the source panel's splitter dragged,
//                pixels), {"wrap": true} (the source panel's wrap box
//                clicked), {"reload": "link" | "fresh"} (the page reloaded in the
//                same browser, with its link or without),
//                {"refine": "focus", "pattern": "re"} (the search box's menu),
//                {"menu": "name", "verb": "hide"} (a frame's context menu),
//                {"unrefine": 0} (a chip's remove button), {"rcode": true},
//                {"wheel": -300, "at": 0.25} (over the canvas, at that share
//                of its width), {"drag": -200} (pixels, from its middle),
//                {"press": "Backspace"}, {"keys": "text"} (typed),
//                {"wait": "expression", "timeout": 5000} (until it is true),
//                {"export": "svg" | "png" | "csv" | "sandwich"} (the file's text, or
//                base64 of a PNG, in the next state's `exported`),
//                {"compare_row": "name"}, {"compare_sort": "delta"} (the
//                comparison's table, profile_view(x, base = )),
//                {"screenshot": FILE}]}
//     loads a file written by profile_view(file = ), blocks and records every
//     request other than the page itself (and files under "allow_dir", for a
//     widget saved with its libraries beside it), and after loading and after
//     each action takes a snapshot of what the view shows: the frames its
//     canvases drew (checked against their pixels), the Top table (`table`:
//     all its rows, read by scrolling it through, as it draws only the rows
//     in view; `table_drawn`: the rows drawn at the moment), the sandwich
//     and the source panel. Frames are clicked and hovered with the mouse.
//   {"command": "evaluate", "html": FILE, "allow_dir": DIR, "ready": "js",
//    "expression": "js"}
//     loads a page (another tool's widget, saved with its libraries in
//     allow_dir), waits until `ready` is true and returns `expression`'s value.
//   {"command": "paint", "html": FILE, "runs": 3, "fragment": "#view=chart"}
//     times from navigation to the first drawing of the frames (of the view
//     the optional link opens).
//   {"command": "interact", "html": FILE, "runs": 5, "search": "re"}
//     times a search and a zoom (a click on the widest frame below the root)
//     from the event to the next frame on screen, and until the zoom's
//     animation (2.1's) has settled: medians of `runs` fresh pages. Works
//     with the views of 2.1 (SVG) and 2.2 (canvas).
//   {"command": "speedscope", "files": [FILE, ...], "schema": FILE, "viewer": FILE}
//     validates speedscope files against speedscope's schema (ajv) and opens
//     each in speedscope's own viewer.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import Ajv from "ajv";

const CHROMIUM = process.env.PROFILE_CHROMIUM || "/usr/bin/chromium";
// The machine has no network: background traffic would only fail (and count
// as requests).
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export async function withBrowser(options, f) {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "profile-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS.concat(options.args || []),
    viewport: { width: options.width || 1200, height: options.height || 800 },
  });
  try {
    return await f(context);
  } finally {
    await context.close();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

// A page that records console errors, uncaught errors, dialogs and requests;
// requests to anything but the files allowed are aborted.
export async function watchedPage(context, allowed) {
  const page = await context.newPage();
  const log = { console: [], errors: [], requests: [], dialogs: [] };
  page.on("console", (m) => {
    if (m.type() === "error") log.console.push(m.text());
  });
  page.on("pageerror", (e) => log.errors.push(String(e)));
  page.on("dialog", (d) => {
    log.dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (allowed(url)) return route.continue();
    log.requests.push(url);
    return route.abort();
  });
  return { page, log };
}

const VIEW = ".profile-view";

export async function waitDrawn(page) {
  await page.waitForSelector(`${VIEW}[data-state="drawn"]`, { timeout: 30000 });
}

// What the view shows: its state, the frames its canvases drew (each checked
// against the canvas's pixels), the table, the sandwich and the source panel.
async function snapshot(page) {
  return page.evaluate((VIEW) => {
    const root = document.querySelector(VIEW);
    const view = root.__profileView;
    const text = (el, sel) => ((el || root).querySelector(sel) || {}).textContent || "";
    // A frame's fill must be the colour of the canvas just inside its left
    // edge (before any label), where it is wide enough, neither faded nor
    // outlined.
    const framesOf = (which) => {
      const frames = view.frames(which);
      const canvas = which === "callers" ? view.sandwich.callers.canvas
        : which === "callees" ? view.sandwich.callees.canvas : view.activeCanvas();
      if (!canvas || !frames.length) return { frames, pixels_checked: 0, pixels_wrong: 0 };
      const ctx = canvas.canvas.getContext("2d");
      const ratio = canvas.canvas.width / canvas.canvas.clientWidth;
      const offset = canvas.options.axis ? 22 : 0;
      let checked = 0;
      let wrong = 0;
      for (const f of frames) {
        if (f.width < 4 || f.faded || f.dim || f.selected) continue;
        const px = ctx.getImageData(Math.floor((Math.floor(f.x) + 1) * ratio), Math.floor((f.y + offset + 2) * ratio), 1, 1).data;
        checked++;
        if (`rgb(${px[0]},${px[1]},${px[2]})` !== f.fill) wrong++;
      }
      return { frames, pixels_checked: checked, pixels_wrong: wrong };
    };
    const main = framesOf(null);
    const rows = (sel, f) => Array.from(root.querySelectorAll(sel)).map(f);
    const cells = (tr) => Array.from(tr.querySelectorAll("td")).map((td) => td.textContent);
    const mode = root.getAttribute("data-mode");
    return {
      mode,
      type: root.getAttribute("data-type"),
      heading: text(null, ".pv-heading"),
      status: text(null, ".pv-status"),
      tooltip: root.querySelector(".pv-tooltip").style.display === "block" ? text(null, ".pv-tooltip") : "",
      search_share: +(root.getAttribute("data-search-share") || NaN),
      refinements: rows(".pv-chip", (c) => ({
        verb: c.dataset.verb, pattern: c.dataset.pattern,
        no_match: c.classList.contains("pv-no-match"), approximate: c.classList.contains("pv-approximate"),
      })),
      rcode: (root.querySelector(".pv-rcode") || { style: {} }).style.display === "none" ? "" : text(null, ".pv-rcode"),
      refine_message: text(null, ".pv-refine-message"),
      link: location.hash,
      exported: window.__profileViewExported || "",
      // an SVG exported, parsed as XML by the browser: whether it parses, and
      // the names of its frames
      exported_svg: (() => {
        const text = window.__profileViewExported || "";
        if (!text.startsWith("<?xml")) return null;
        const doc = new DOMParser().parseFromString(text, "application/xml");
        return {
          parses: doc.getElementsByTagName("parsererror").length === 0 && doc.documentElement.tagName === "svg",
          titles: Array.from(doc.getElementsByTagName("title")).map((t) => t.textContent),
          rects: doc.getElementsByTagName("rect").length,
        };
      })(),
      focus: document.activeElement ? String(document.activeElement.className) : "",
      search_text: root.querySelector(".pv-search").value,
      range: view.activeCanvas() && view.activeCanvas().tree ? view.activeCanvas().range() : null,
      types: rows(".pv-type option", (o) => o.textContent),
      frames: main.frames,
      // the time order's stretches of blocks narrower than a pixel, merged
      // (row, place, fill, extent on the axis), each checked against the
      // canvas's pixel at its middle
      merged: (() => {
        const canvas = view.activeCanvas();
        if (!canvas || !canvas.merged) return [];
        const ctx = canvas.canvas.getContext("2d");
        const ratio = canvas.canvas.width / canvas.canvas.clientWidth;
        const offset = canvas.options.axis ? 22 : 0;
        return canvas.merged().map((m) => {
          const px = ctx.getImageData(Math.floor((m.x + m.w / 2) * ratio), Math.floor((m.y + offset + 9) * ratio), 1, 1).data;
          return { row: m.row, x: m.x, y: m.y, width: m.w, fill: m.fill, from: m.from, to: m.to,
            pixel: `rgb(${px[0]},${px[1]},${px[2]})` };
        });
      })(),
      pixels_checked: main.pixels_checked,
      pixels_wrong: main.pixels_wrong,
      // the Top table's rows drawn now (the table draws those in view; all
      // its rows, read by scrolling it through, are `table`, added below),
      // each with its place in the table's order, whether it is drawn where
      // that row belongs and whether it is in view
      table_drawn: mode !== "table" ? [] : (() => {
        const body = root.querySelector(".pv-top tbody");
        const origin = body.firstChild.getBoundingClientRect().top;
        const box = view.main.getBoundingClientRect();
        return rows(".pv-top tbody tr[data-row]", (tr) => {
          const r = tr.getBoundingClientRect();
          return {
            row: +tr.dataset.row, name: tr.dataset.name, flat: +tr.dataset.flat, cum: +tr.dataset.cum,
            cells: cells(tr), selected: tr.classList.contains("pv-selected"),
            placed: Math.abs(r.top - (origin + +tr.dataset.row * r.height)) < 0.5,
            in_view: r.bottom > Math.max(box.top, 0) && r.top < Math.min(box.bottom, innerHeight),
          };
        });
      })(),
      table_rows: mode !== "table" ? 0 : +root.querySelector(".pv-top").dataset.rows,
      table_sort: text(null, ".pv-top th.pv-desc, .pv-top th.pv-asc"),
      // the comparison with a base: its legend and the rows of its table
      compare_legend: text(null, ".pv-compare-legend"),
      compare: rows(".pv-compare-table tbody tr", (tr) => ({
        name: tr.dataset.name, change: tr.dataset.change, base: +tr.dataset.base, x: +tr.dataset.x,
        delta: +tr.dataset.delta, ratio: tr.dataset.ratio === "" ? null : +tr.dataset.ratio,
        selected: tr.classList.contains("pv-selected"), base_only: tr.classList.contains("pv-base-only"),
        cells: cells(tr),
      })),
      sandwich: mode !== "sandwich" ? null : {
        heading: text(null, ".pv-sandwich-heading"),
        callers: rows(".pv-callers .pv-peek-row", (tr) => ({ name: tr.dataset.name, value: +tr.dataset.value })),
        callees: rows(".pv-callees .pv-peek-row", (tr) => ({ name: tr.dataset.name, value: +tr.dataset.value })),
        callers_frames: framesOf("callers").frames,
        callees_frames: framesOf("callees").frames,
      },
      no_time_order: mode === "chart" ? text(null, ".pv-no-time-order") : "",
      // the time order's lanes (one per source) and the source shown alone
      lanes: mode === "chart" && ProfileView.lanes ? ProfileView.lanes.drawn(view) : [],
      source_id: root.getAttribute("data-source") || "",
      source: root.querySelector(".pv-source").style.display === "none" ? null : {
        file: ((o) => (o ? o.dataset.file || o.textContent : ""))(root.querySelector(".pv-file option:checked")),
        files: rows(".pv-file option", (o) => o.dataset.file || o.textContent),
        file_groups: rows(".pv-file option", (o) => o.parentNode.label || ""),
        file_labels: rows(".pv-file option", (o) => o.textContent),
        note: text(null, ".pv-source .pv-note"),
        // the panel's width, and whether lines overflow the panel (then it
        // scrolls them) or the page
        width: root.querySelector(".pv-source").getBoundingClientRect().width,
        view_width: root.querySelector(".pv-body").getBoundingClientRect().width,
        wrap: (root.querySelector(".pv-source .pv-wrap") || {}).checked ?? null,
        lines_overflow: (() => {
          const box = root.querySelector(".pv-lines-box");
          return box.scrollWidth > box.clientWidth + 1;
        })(),
        page_overflow: document.documentElement.scrollWidth > window.innerWidth + 1,
        current: +((root.querySelector(".pv-lines tr.pv-current") || { dataset: {} }).dataset.line || NaN),
        // whether the current line's row is within the panel's scrolled box
        current_in_view: (() => {
          const row = root.querySelector(".pv-lines tr.pv-current");
          if (!row) return null;
          const box = root.querySelector(".pv-lines-box").getBoundingClientRect();
          const r = row.getBoundingClientRect();
          return r.bottom > box.top && r.top < box.bottom;
        })(),
        lines: rows(".pv-lines tr[data-line]", (tr) => ({
          line: +tr.dataset.line,
          self: tr.dataset.self === undefined ? 0 : +tr.dataset.self,
          total: tr.dataset.total === undefined ? 0 : +tr.dataset.total,
          has_value: tr.dataset.key !== undefined,
          hot: tr.classList.contains("pv-hot"),
          selected: tr.classList.contains("pv-line-selected"),
          cells: cells(tr),
          // the heap's growth and shrinkage at the line (bytes), if shown
          allocated: tr.dataset.allocated === undefined ? null : +tr.dataset.allocated,
          released: tr.dataset.released === undefined ? null : +tr.dataset.released,
        })),
        headers: rows(".pv-lines th", (th) => ({ label: th.textContent, title: th.title })),
        legend: text(null, ".pv-source .pv-source-legend"),
        exact_title: text(null, ".pv-source .pv-exact-title"),
        exact: rows(".pv-exact-row", (tr) => ({ name: tr.dataset.name, flat: +tr.dataset.flat, cum: +tr.dataset.cum })),
      },
    };
  }, VIEW);
}

// The page coordinates of the middle of the first frame drawn with `name`
// (in the view shown, or in the sandwich's "callers" or "callees").
async function framePoint(page, name, which) {
  const point = await page.evaluate(
    ({ VIEW, name, which }) => {
      const view = document.querySelector(VIEW).__profileView;
      const canvas = which === "callers" ? view.sandwich.callers.canvas
        : which === "callees" ? view.sandwich.callees.canvas : view.activeCanvas();
      const frame = view.frames(which || null).find((f) => f.name === name);
      if (!frame) return null;
      const rect = canvas.canvas.getBoundingClientRect();
      const offset = canvas.options.axis ? 22 : 0;
      return { x: rect.left + frame.x + Math.min(frame.width / 2, 20), y: rect.top + frame.y + offset + 9 };
    },
    { VIEW, name, which },
  );
  if (!point) throw new Error(`no frame named ${name}`);
  return point;
}

export async function act(page, action) {
  if ("search" in action) {
    await page.fill(`${VIEW} .pv-search`, action.search);
  } else if ("type" in action) {
    const index = await page.evaluate(
      ({ VIEW, type }) =>
        Array.from(document.querySelectorAll(`${VIEW} .pv-type option`)).findIndex((o) =>
          o.textContent.startsWith(type + " (")),
      { VIEW, type: action.type },
    );
    if (index < 0) throw new Error(`no sample type ${action.type}`);
    await page.selectOption(`${VIEW} .pv-type`, String(index));
  } else if ("source_id" in action) {
    await page.selectOption(`${VIEW} .pv-source-select`, String(action.source_id));
  } else if ("mode" in action) {
    await page.click(`${VIEW} .pv-view-${action.mode}`);
  } else if ("click" in action) {
    const p = await framePoint(page, action.click, action.in);
    await page.mouse.click(p.x, p.y);
  } else if ("dblclick" in action) {
    const p = await framePoint(page, action.dblclick, action.in);
    await page.mouse.dblclick(p.x, p.y);
  } else if ("button" in action) {
    await page.click(`${VIEW} .${action.button}`);
  } else if ("hover_merged" in action) {
    // the middle of the widest merged stretch of a row (the time order's)
    const p = await page.evaluate(({ VIEW, row }) => {
      const canvas = document.querySelector(VIEW).__profileView.activeCanvas();
      const stretches = canvas.merged().filter((m) => m.row === row);
      if (!stretches.length) return null;
      const m = stretches.reduce((a, b) => (b.w > a.w ? b : a));
      const rect = canvas.canvas.getBoundingClientRect();
      const offset = canvas.options.axis ? 22 : 0;
      return { x: rect.left + m.x + m.w / 2, y: rect.top + m.y + offset + 9 };
    }, { VIEW, row: action.hover_merged });
    if (!p) throw new Error(`no merged stretch in row ${action.hover_merged}`);
    await page.mouse.move(p.x, p.y);
  } else if ("wait" in action) {
    // (until the page's expression `wait` is true, within `timeout` ms)
    await page.waitForFunction(action.wait, null, { timeout: action.timeout || 30000 });
  } else if ("hover" in action) {
    const p = await framePoint(page, action.hover, action.in);
    await page.mouse.move(p.x, p.y);
  } else if ("row" in action) {
    // (scrolled to first: the table draws only the rows in view)
    if (!(await scanTable(page, action.row))) throw new Error(`no row ${action.row} in the table`);
    await page.click(`${VIEW} .pv-top tbody tr[data-name="${action.row}"] td.pv-name`);
  } else if ("table_scroll" in action) {
    // the Top table scrolled (the view's main box, to this many pixels from
    // its top), as the user's wheel would
    await page.evaluate(({ VIEW, top }) => {
      document.querySelector(VIEW).__profileView.main.scrollTop = top;
    }, { VIEW, top: action.table_scroll });
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  } else if ("compare_row" in action) {
    await page.click(`${VIEW} .pv-compare-table tbody tr[data-name="${action.compare_row}"] td.pv-name`);
  } else if ("compare_sort" in action) {
    await page.click(`${VIEW} .pv-compare-table th.pv-ccol-${action.compare_sort}`);
  } else if ("sort" in action) {
    await page.click(`${VIEW} .pv-top th.pv-col-${action.sort}`);
  } else if ("line" in action) {
    await page.click(`${VIEW} .pv-lines tr[data-line="${action.line}"] td.pv-ln`);
  } else if ("file" in action) {
    const index = await page.evaluate(
      ({ VIEW, file }) => {
        const options = Array.from(document.querySelectorAll(`${VIEW} .pv-file option`));
        const option = options.find((o) => (o.dataset.file || o.textContent) === file);
        return option ? option.value : null;
      },
      { VIEW, file: action.file },
    );
    if (index === null) throw new Error(`no source file ${action.file}`);
    await page.selectOption(`${VIEW} .pv-file`, index);
  } else if ("source" in action) {
    await page.click(`${VIEW} .pv-source-toggle`);
  } else if ("source_scroll" in action) {
    // the source panel's lines scrolled (to this many pixels from their top)
    // as the user's wheel would, without a redraw
    await page.evaluate(({ VIEW, top }) => {
      document.querySelector(`${VIEW} .pv-lines-box`).scrollTop = top;
    }, { VIEW, top: action.source_scroll });
  } else if ("splitter" in action) {
    const box = await page.locator(`${VIEW} .pv-splitter`).boundingBox();
    const x = box.x + box.width / 2;
    const y = box.y + Math.min(box.height / 2, 40);
    await page.mouse.move(x, y);
    await page.mouse.down();
    for (let k = 1; k <= 5; k++) await page.mouse.move(x + (action.splitter * k) / 5, y);
    await page.mouse.up();
  } else if ("wrap" in action) {
    await page.click(`${VIEW} .pv-source .pv-wrap`);
  } else if ("reload" in action) {
    // "link": with the view's link in the URL; else without it
    if (action.reload !== "link") await page.evaluate(() => history.replaceState(null, "", location.pathname));
    await page.reload();
  } else if ("refine" in action) {
    await page.fill(`${VIEW} .pv-search`, action.pattern);
    await waitDrawn(page);
    await page.selectOption(`${VIEW} .pv-refine`, action.refine);
  } else if ("menu" in action) {
    const p = await framePoint(page, action.menu, action.in);
    await page.mouse.click(p.x, p.y, { button: "right" });
    await page.click(`${VIEW} .pv-menu .pv-menu-${action.verb}`);
  } else if ("unrefine" in action) {
    await page.click(`${VIEW} .pv-chip:nth-child(${action.unrefine + 1}) .pv-chip-remove`);
  } else if ("wheel" in action || "drag" in action) {
    const box = await page.evaluate((VIEW) => {
      const r = document.querySelector(VIEW).__profileView.activeCanvas().canvas.getBoundingClientRect();
      return { left: r.left, top: r.top, width: r.width, height: r.height };
    }, VIEW);
    const y = box.top + Math.min(box.height / 2, 30);
    if ("wheel" in action) {
      await page.mouse.move(box.left + box.width * (action.at ?? 0.5), y);
      await page.mouse.wheel(0, action.wheel);
    } else {
      const x = box.left + box.width / 2;
      await page.mouse.move(x, y);
      await page.mouse.down();
      for (let k = 1; k <= 5; k++) await page.mouse.move(x + (action.drag * k) / 5, y);
      await page.mouse.up();
    }
    await page.waitForTimeout(100);
  } else if ("press" in action) {
    await page.keyboard.press(action.press);
    await page.waitForTimeout(50);
  } else if ("keys" in action) {
    await page.keyboard.type(action.keys);
    await page.waitForTimeout(50);
  } else if ("export" in action) {
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.selectOption(`${VIEW} .pv-export`, action.export),
    ]);
    const file = await download.path();
    await page.evaluate((text) => {
      window.__profileViewExported = text;
    }, action.export === "png" ? fs.readFileSync(file).toString("base64") : fs.readFileSync(file, "utf8"));
  } else if ("rcode" in action) {
    await page.click(`${VIEW} .pv-rcode-button`);
  } else if ("reset" in action) {
    await page.click(`${VIEW} .pv-reset`);
  } else if ("screenshot" in action) {
    await page.screenshot({ path: action.screenshot });
    return;
  }
  await waitDrawn(page);
}

// The Top table's rows as the user sees them by scrolling the table through
// from its top (the table draws only the rows in view): each row once, in
// the table's order, as it was drawn when in view; `misplaced` counts the
// rows seen in view at another place than their row's (the first spacer's
// top plus their place times a row's height), `unseen` the rows never drawn
// in view. With `name`, stops at the first row of that name, scrolled into
// view (null when none). The scroll position is restored after reading.
async function scanTable(page, name) {
  return page.evaluate(async ({ VIEW, name }) => {
    const root = document.querySelector(VIEW);
    const view = root.__profileView;
    const table = root.querySelector(".pv-top");
    const body = table.querySelector("tbody");
    const n = +table.dataset.rows;
    const main = view.main;
    const frames = () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
    const scrolled = (dy) => {
      const before = main.scrollTop;
      main.scrollTop = before + dy;
      if (main.scrollTop !== before) return true;
      const page = window.scrollY;
      window.scrollBy(0, dy);
      return window.scrollY !== page;
    };
    const start = { main: main.scrollTop, page: window.scrollY };
    main.scrollTop = 0;
    window.scrollTo(0, 0);
    const seen = new Array(n).fill(null);
    let misplaced = 0;
    let found = null;
    for (;;) {
      await frames();
      const box = main.getBoundingClientRect();
      const head = table.querySelector("thead").getBoundingClientRect();
      const top = Math.max(box.top, 0, head.bottom);
      const bottom = Math.min(box.bottom, innerHeight);
      const origin = body.firstChild.getBoundingClientRect().top;
      let height = 0;
      for (const tr of body.querySelectorAll("tr[data-row]")) {
        const r = tr.getBoundingClientRect();
        if (r.bottom <= top || r.top >= bottom) continue;
        height = r.height;
        const k = +tr.dataset.row;
        if (Math.abs(r.top - (origin + k * r.height)) >= 0.5) misplaced++;
        if (name !== undefined && tr.dataset.name === name) {
          found = tr;
          break;
        }
        seen[k] = {
          row: k, name: tr.dataset.name, flat: +tr.dataset.flat, cum: +tr.dataset.cum,
          cells: Array.from(tr.querySelectorAll("td")).map((td) => td.textContent),
          selected: tr.classList.contains("pv-selected"),
        };
      }
      if (found || (name === undefined && seen.every((r) => r !== null))) break;
      if (!scrolled(Math.max(height, bottom - top - 2 * height))) break;
    }
    if (name !== undefined) {
      if (found) {
        found.scrollIntoView({ block: "nearest" });
        await frames();
      }
      return found !== null;
    }
    main.scrollTop = start.main;
    window.scrollTo(0, start.page);
    await frames();
    return { rows: seen.filter((r) => r !== null), misplaced, unseen: seen.filter((r) => r === null).length };
  }, { VIEW, name });
}

async function view(job) {
  const pageUrl = pathToFileURL(path.resolve(job.html)).href;
  const dirUrl = job.allow_dir ? pathToFileURL(path.resolve(job.allow_dir)).href + "/" : null;
  const allowed = (url) => url === pageUrl || (dirUrl !== null && url.startsWith(dirUrl));
  return withBrowser(job, async (context) => {
    const { page, log } = await watchedPage(context, allowed);
    await page.goto(pageUrl + (job.fragment || ""));
    await waitDrawn(page);
    const state = async () => {
      const now = await snapshot(page);
      if (now.mode !== "table") return { ...now, table: [], table_misplaced: 0, table_unseen: 0 };
      const all = await scanTable(page);
      return { ...now, table: all.rows, table_misplaced: all.misplaced, table_unseen: all.unseen };
    };
    const states = [await state()];
    for (const action of job.actions || []) {
      await act(page, action);
      states.push(await state());
    }
    return { ...log, states };
  });
}

// Loads a page (and the files under "allow_dir"), waits until the expression
// `ready` is true and returns the value of `expression` (JSON), as `value`.
async function evaluate(job) {
  const pageUrl = pathToFileURL(path.resolve(job.html)).href;
  const dirUrl = job.allow_dir ? pathToFileURL(path.resolve(job.allow_dir)).href + "/" : null;
  const allowed = (url) => url === pageUrl || (dirUrl !== null && url.startsWith(dirUrl));
  return withBrowser(job, async (context) => {
    const { page, log } = await watchedPage(context, allowed);
    await page.goto(pageUrl);
    await page.waitForFunction(job.ready, null, { timeout: 30000 });
    const value = await page.evaluate(job.expression);
    return { ...log, value };
  });
}

async function paint(job) {
  const pageUrl = pathToFileURL(path.resolve(job.html)).href;
  const times = [];
  for (let i = 0; i < (job.runs || 3); i++) {
    times.push(
      await withBrowser(job, async (context) => {
        const { page, log } = await watchedPage(context, (url) => url === pageUrl);
        await page.goto(pageUrl + (job.fragment || ""), { timeout: 120000 });
        await page.waitForFunction(() => window.__profileViewDrawnAt !== undefined, null, { timeout: 120000 });
        const ms = await page.evaluate(() => window.__profileViewDrawnAt);
        if (log.errors.length || log.console.length) throw new Error(log.errors.concat(log.console).join("\n"));
        return ms;
      }),
    );
  }
  return { first_paint_ms: times };
}

// Milliseconds from an event to the next frame on screen (the frame after the
// next animation frame's callbacks), and for an element that animates until a
// condition holds, until it holds.
async function timeEvent(page, action) {
  return page.evaluate(async (action) => {
    const root = document.querySelector(".profile-view");
    const nextFrame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    let target;
    let settled = () => true;
    if (action.search !== undefined) {
      target = root.querySelector(".pv-search");
    } else if (root.querySelector("svg")) {
      // 2.1: the widest frame below the root, an SVG group d3 listens on
      const frames = Array.from(root.querySelectorAll("svg g.frame")).filter((g) =>
        /translate\([-\d.e]+\s*,\s*18\)/.test(g.getAttribute("transform") || ""));
      const width = (g) => +g.querySelector("rect").getAttribute("width");
      target = frames.reduce((a, b) => (width(b) > width(a) ? b : a));
      const full = +root.querySelector("svg").getAttribute("width");
      settled = () => Math.abs(width(target) - full) < 1;
    } else {
      const view = root.__profileView;
      const frame = view.frames().filter((f) => f.y === 18).reduce((a, b) => (b.width > a.width ? b : a));
      target = view.activeCanvas().canvas;
      const rect = target.getBoundingClientRect();
      action.point = { clientX: rect.left + frame.x + frame.width / 2, clientY: rect.top + frame.y + 9 };
    }
    const t0 = performance.now();
    if (action.search !== undefined) {
      target.value = action.search;
      target.dispatchEvent(new Event("input", { bubbles: true }));
    } else {
      target.dispatchEvent(new MouseEvent("click", { bubbles: true, ...(action.point || {}) }));
    }
    await nextFrame();
    const painted = performance.now() - t0;
    while (!settled() && performance.now() - t0 < 5000) await nextFrame();
    return { painted, settled: performance.now() - t0 };
  }, action);
}

// Times a search and a zoom `runs` times each on a fresh page: the medians.
async function interact(job) {
  const pageUrl = pathToFileURL(path.resolve(job.html)).href;
  const median = (x) => x.slice().sort((a, b) => a - b)[Math.floor(x.length / 2)];
  return withBrowser(job, async (context) => {
    const search = [];
    const zoom = [];
    const zoomSettled = [];
    for (let i = 0; i < (job.runs || 5); i++) {
      const { page, log } = await watchedPage(context, (url) => url === pageUrl);
      await page.goto(pageUrl, { timeout: 120000 });
      await page.waitForSelector(`${VIEW}[data-state="drawn"]`, { timeout: 120000 });
      // 2.1 animates from the first drawing on
      await page.waitForTimeout(500);
      search.push((await timeEvent(page, { search: job.search })).painted);
      await timeEvent(page, { search: "" });
      const z = await timeEvent(page, { zoom: true });
      zoom.push(z.painted);
      zoomSettled.push(z.settled);
      if (log.errors.length || log.console.length) throw new Error(log.errors.concat(log.console).join("\n"));
      await page.close();
    }
    return { search_ms: median(search), zoom_ms: median(zoom), zoom_settled_ms: median(zoomSettled) };
  });
}

// Per profile: name, unit, number of samples, sum of the weights.
function profileSums(file) {
  return file.profiles.map((p) => ({
    name: p.name,
    unit: p.unit,
    samples: p.samples.length,
    weight: p.weights.reduce((a, b) => a + b, 0),
    end_value: p.endValue,
  }));
}

async function speedscope(job) {
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile(JSON.parse(fs.readFileSync(job.schema, "utf8")));
  const viewerUrl = pathToFileURL(path.resolve(job.viewer)).href;
  const viewerDir = path.dirname(path.resolve(job.viewer));
  const scriptDir = fs.mkdtempSync(path.join(os.tmpdir(), "profile-speedscope-"));
  try {
    return await withBrowser(job, async (context) => {
      const results = [];
      for (const [i, file] of job.files.entries()) {
        const text = fs.readFileSync(file, "utf8");
        const parsed = JSON.parse(text);
        const valid = validate(parsed);
        const result = {
          file,
          valid,
          schema_errors: valid ? [] : validate.errors.map((e) => `${e.instancePath} ${e.message}`),
          profiles: profileSums(parsed),
        };
        // As speedscope's command line tool does: a script that hands the file
        // to the viewer, named in the URL's hash.
        const script = path.join(scriptDir, `load-${i}.js`);
        const b64 = Buffer.from(text).toString("base64");
        fs.writeFileSync(script, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(file))}, "${b64}")`);
        const allowed = (url) => {
          if (!url.startsWith("file://")) return false;
          const p = decodeURIComponent(new URL(url).pathname).replace(/^\/+/, "/");
          return p.startsWith(viewerDir + "/") || p === script;
        };
        const { page, log } = await watchedPage(context, allowed);
        await page.goto(`${viewerUrl}#localProfilePath=${encodeURIComponent(script)}`);
        let title = "";
        try {
          await page.waitForFunction(() => / - speedscope$/.test(document.title), null, { timeout: 30000 });
          title = await page.title();
        } catch (e) {
          log.errors.push(`speedscope did not load the file: ${e.message}`);
        }
        if (await page.evaluate(() => document.body.innerText.includes("Something went wrong"))) {
          log.errors.push("speedscope: Something went wrong");
        }
        if (job.screenshot_dir) {
          await page.screenshot({ path: path.join(job.screenshot_dir, path.basename(file) + ".png") });
        }
        await page.close();
        results.push({ ...result, ...log, title });
      }
      return { results };
    });
  } finally {
    fs.rmSync(scriptDir, { recursive: true, force: true });
  }
}

// Runs the job named by the command line with one of `commands`, printing its
// result as JSON (also for bench/view-driver.mjs, which has jobs of its own).
export function runJob(commands) {
  const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  if (!commands[job.command]) {
    console.error(`unknown command ${job.command}`);
    process.exit(2);
  }
  commands[job.command](job)
    .then((result) => {
      process.stdout.write(JSON.stringify(result));
    })
    .catch((e) => {
      console.error(e && e.stack ? e.stack : String(e));
      process.exit(1);
    });
}

// Imported by another script, the driver only lends its functions.
if (import.meta.url === pathToFileURL(path.resolve(process.argv[1] || "")).href) {
  runJob({ view, evaluate, paint, interact, speedscope });
}
