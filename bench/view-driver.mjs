// The browser side of bench/view.R: times every interaction of the view in
// headless chromium, driving it with real events through the browser tests'
// driver (tests/browser/driver.mjs, whose actions it uses).
//
//   node bench/view-driver.mjs job.json
//
// Job: {"command": "interactions", "html": FILE, "runs": 3, "width": 1200,
//       "height": 800, "steps": REGEX}
// ("steps", optional: only the steps whose names match, the others null)
// Result: per run, the milliseconds of each step (null where the page lacks
// the interaction: the view of an older version), and what the browser
// reported: console errors, uncaught exceptions and requests (through the
// DevTools protocol's Log.entryAdded, Runtime.exceptionThrown and
// Network.requestWillBeSent, the page's own file excepted), and dialogs.
//
// How a step is timed: a listener on the window, in the capture phase (before
// the page's own), notes the time of every input event (mouse, wheel, keys,
// input, change) and the time when the next frame after it has been drawn (a
// requestAnimationFrame callback, then a task: the page draws synchronously
// in its handlers or in an animation frame asked for after ours). A step's
// time is the longest of its events': how long the page took to answer the
// slowest of them on screen. Opening the page (and reopening it with a copied
// link) is timed from navigation to the first drawing (the page's own
// `__profileViewDrawnAt`).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { act, runJob, waitDrawn, watchedPage, withBrowser } from "../tests/browser/driver.mjs";

const VIEW = ".profile-view";
const EVENTS = ["mousedown", "mouseup", "click", "dblclick", "contextmenu", "mousemove", "wheel", "keydown",
  "input", "change"];

function timingScript(types) {
  window.__benchEvents = [];
  for (const type of types) {
    window.addEventListener(type, () => {
      const event = { type, t0: performance.now(), t1: null };
      window.__benchEvents.push(event);
      requestAnimationFrame(() => setTimeout(() => {
        event.t1 = performance.now();
      }, 0));
    }, true);
  }
}

// What a step needs of the page (a selector, or a part of the page's script),
// so that an older view without it is marked n/a rather than timed.
const has = {
  navigate: "ProfileView.navigate",
  refine: `${VIEW} .pv-refine`,
  export: `${VIEW} .pv-export`,
  link: `${VIEW} .pv-copy-link`,
  splitter: `${VIEW} .pv-splitter`,
  source: `${VIEW} .pv-source-toggle`,
};

// The steps, in order: [name, action(s) timed, what the page needs, actions
// before (not timed)]. `{widest: ...}` is replaced by the widest frame drawn
// below the root (the heaviest path's first call).
function steps(types) {
  const list = [
    ["view: Top", { mode: "table" }],
    ["view: Sandwich", { mode: "sandwich" }],
    ["view: time order", { mode: "chart" }],
    ["view: flame graph", { mode: "graph" }],
  ];
  if (types > 1) {
    list.push(["sample type", { type_index: 1 }]);
    list.push(["sample type back", { type_index: 0 }]);
  }
  list.push(
    ["search", { search: "^fn_0[0-4]|^fib$|lapply" }],
    ["search cleared", { search: "" }],
    ["hover a frame", { hover: "widest" }],
    ["select a frame (click: zoom)", { click: "widest" }],
    ["zoom out (Backspace)", { press: "Backspace" }, has.navigate, [{ focus_view: true }]],
    ["double-click zoom", { dblclick: "widest" }, has.navigate],
    ["back", { button: "pv-back" }, has.navigate],
    ["forward", { button: "pv-forward" }, has.navigate],
    ["wheel zoom", { wheel: -300, at: 0.3 }, has.navigate],
    ["drag pan", { drag: -200 }, has.navigate],
    ["reset zoom", { reset: true }],
    ["time order: wheel zoom", { wheel: -300, at: 0.3 }, has.navigate, [{ mode: "chart" }]],
    ["time order: drag pan", { drag: -200 }, has.navigate],
    // (the whole time order: a search highlights its merged stretches too)
    ["time order: search", { search: "^fn_0[0-4]|^fib$|lapply" }, null, [{ reset: true }]],
    ["time order: search cleared", { search: "" }],
  );
  for (const verb of ["focus", "ignore", "hide", "show", "prune_from"]) {
    list.push([`refine: ${verb}`, { menu: "widest", verb }, has.refine, [{ mode: "graph" }, { reset: true }]]);
    list.push([`refine: ${verb} removed`, { unrefine: 0 }, has.refine]);
  }
  list.push(
    ["export SVG", { export: "svg" }, has.export, [{ mode: "graph" }]],
    ["export PNG", { export: "png" }, has.export],
    ["export Top CSV", { export: "csv" }, has.export],
    ["copy link", { button: "pv-copy-link" }, has.link, [{ click: "widest" }]],
    ["source panel: open", { source: true }, has.source, [{ click: "widest" }, { source_closed: true }]],
    ["source panel: other file", { file_index: 1 }, has.source],
    ["splitter drag", { splitter: -100 }, has.splitter],
  );
  return list.map(([name, action, needs, before]) => ({ name, action, needs, before: before || [] }));
}

// The actions the driver does not know: frames found by their place, the
// sample type and the source file by their index.
async function concrete(page, action) {
  if (action.focus_view) {
    // keys go to the view (which listens on its element), not to the search box
    await page.evaluate((VIEW) => document.querySelector(VIEW).focus(), VIEW);
    return null;
  }
  if (action.source_closed) {
    const shown = await page.$eval(`${VIEW} .pv-source`, (s) => s.style.display !== "none");
    if (shown) await act(page, { source: true });
    return null;
  }
  if (action.type_index !== undefined) {
    await page.selectOption(`${VIEW} .pv-type`, String(action.type_index));
    await waitDrawn(page);
    return null;
  }
  if (action.file_index !== undefined) {
    const values = await page.$$eval(`${VIEW} select.pv-file option`, (os) => os.map((o) => o.value));
    if (values.length <= action.file_index) throw new Error("no other source file");
    await page.selectOption(`${VIEW} select.pv-file`, values[action.file_index]);
    await waitDrawn(page);
    return null;
  }
  const key = ["hover", "click", "dblclick", "menu"].find((k) => action[k] === "widest");
  if (!key) return action;
  const name = await page.evaluate((VIEW) => {
    const frames = document.querySelector(VIEW).__profileView.frames().filter((f) => f.y === 18 && f.name);
    return frames.length ? frames.reduce((a, b) => (b.width > a.width ? b : a)).name : null;
  }, VIEW);
  if (name === null) throw new Error("no frame below the root");
  return { ...action, [key]: name };
}

async function perform(page, action) {
  const a = await concrete(page, action);
  if (a !== null) await act(page, a);
}

// The longest time from one of the events since `start` to the frame after it.
async function stepTime(page) {
  await page.waitForFunction(() => window.__benchEvents.every((e) => e.t1 !== null), null, { timeout: 30000 });
  return page.evaluate(() => {
    const times = window.__benchEvents.map((e) => e.t1 - e.t0);
    return times.length ? Math.max(...times) : null;
  });
}

async function available(page, needs) {
  if (!needs) return true;
  if (needs.startsWith("ProfileView.")) {
    return page.evaluate((name) => window.ProfileView[name] !== undefined, needs.slice("ProfileView.".length));
  }
  // (shown: the splitter of a page without source files is hidden)
  return page.evaluate((sel) => {
    const e = document.querySelector(sel);
    return e !== null && e.getClientRects().length > 0;
  }, needs);
}

// The DevTools protocol's view of the page: errors and requests.
async function protocolLog(context, page, pageUrl) {
  const log = { exceptions: [], log_errors: [], requests: [] };
  const cdp = await context.newCDPSession(page);
  cdp.on("Runtime.exceptionThrown", (e) => log.exceptions.push(e.exceptionDetails.text));
  cdp.on("Log.entryAdded", (e) => {
    if (e.entry.level === "error") log.log_errors.push(e.entry.text);
  });
  cdp.on("Network.requestWillBeSent", (e) => {
    const url = e.request.url;
    if (url.split("#")[0] !== pageUrl && !/^(data|blob):/.test(url)) log.requests.push(url);
  });
  await cdp.send("Runtime.enable");
  await cdp.send("Log.enable");
  await cdp.send("Network.enable");
  return log;
}

async function openPage(context, pageUrl, fragment) {
  const { page, log } = await watchedPage(context, (url) => url.split("#")[0] === pageUrl);
  // (the first drawing of the time order of 1e6 samples takes seconds)
  page.setDefaultTimeout(120000);
  const cdp = await protocolLog(context, page, pageUrl);
  await page.goto(pageUrl + (fragment || ""), { timeout: 120000 });
  await page.waitForFunction(() => window.__profileViewDrawnAt !== undefined, null, { timeout: 120000 });
  const ms = await page.evaluate(() => window.__profileViewDrawnAt);
  await waitDrawn(page);
  return { page, log, cdp, ms };
}

async function oneRun(job) {
  const pageUrl = pathToFileURL(path.resolve(job.html)).href;
  return withBrowser(job, async (context) => {
    await context.addInitScript(timingScript, EVENTS);
    await context.grantPermissions(["clipboard-read", "clipboard-write"]).catch(() => {});
    const first = await openPage(context, pageUrl);
    const { page } = first;
    const times = { "open (first draw)": first.ms };
    const errors = {};
    const types = await page.$$eval(`${VIEW} .pv-type option`, (os) => os.length);
    const wanted = job.steps ? new RegExp(job.steps) : null;
    for (const step of steps(types)) {
      if ((wanted && !wanted.test(step.name)) || !(await available(page, step.needs))) {
        times[step.name] = null;
        continue;
      }
      try {
        for (const a of step.before) await perform(page, a);
        await page.evaluate(() => {
          window.__benchEvents = [];
        });
        await perform(page, step.action);
        times[step.name] = await stepTime(page);
      } catch (e) {
        times[step.name] = null;
        errors[step.name] = String(e.message || e).split("\n")[0];
      }
    }
    // the link of the view shown (a frame selected, the source panel open)
    // opened in a new page
    const reopened = (await available(page, has.link))
      ? await openPage(context, pageUrl, new URL(page.url()).hash) : null;
    times["reopen from link (first draw)"] = reopened ? reopened.ms : null;
    const logs = [first, reopened].filter(Boolean);
    const all = (f) => logs.flatMap((l) => f(l));
    return {
      times,
      errors,
      console_errors: all((l) => l.log.console.concat(l.cdp.log_errors)),
      exceptions: all((l) => l.log.errors.concat(l.cdp.exceptions)),
      requests: all((l) => l.log.requests.concat(l.cdp.requests)),
      dialogs: all((l) => l.log.dialogs),
    };
  });
}

async function interactions(job) {
  const runs = [];
  for (let i = 0; i < (job.runs || 3); i++) runs.push(await oneRun(job));
  return { runs };
}

runJob({ interactions });
