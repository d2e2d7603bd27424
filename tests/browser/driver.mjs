// The browser side of the package's browser tests (tests/testthat/test-view-*.R)
// and of bench/view.R: drives Debian's chromium, headless, through
// playwright-core. Reads a job (JSON) from the file named by its argument and
// prints the result as JSON on standard output.
//
//   node driver.mjs job.json
//
// Jobs:
//   {"command": "view", "html": FILE, "width": 1200, "height": 800,
//    "actions": [{"search": "re"}, {"type": "cpu"}, {"mode": "chart"},
//                {"click": "name"}, {"hover": "name"}, {"reset": true},
//                {"screenshot": FILE}]}
//     loads a file written by profile_view(file = ), blocks and records every
//     request other than the page itself (and files under "allow_dir", for a
//     widget saved with its libraries beside it), and after loading and after
//     each action reads the drawn frames from the SVG.
//   {"command": "paint", "html": FILE, "runs": 3}
//     times from navigation to the first drawing of the frames.
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

async function withBrowser(options, f) {
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
async function watchedPage(context, allowed) {
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

async function waitDrawn(page) {
  await page.waitForSelector(`${VIEW}[data-state="drawn"]`, { timeout: 30000 });
  // zoom and search animate their frames for 300 ms
  await page.waitForTimeout(400);
}

async function snapshot(page) {
  return page.evaluate((VIEW) => {
    const view = document.querySelector(VIEW);
    const svg = view.querySelector("svg");
    const frames = Array.from(view.querySelectorAll("svg g.frame")).map((g) => {
      const m = /translate\(([-\d.e]+)\s*,\s*([-\d.e]+)\)/.exec(g.getAttribute("transform") || "");
      const rect = g.querySelector("rect");
      return {
        name: g.getAttribute("name"),
        // the node of the view's data that d3 bound to the frame
        node: g.__data__ ? g.__data__.data.id : null,
        x: m ? +m[1] : NaN,
        y: m ? +m[2] : NaN,
        width: rect ? +rect.getAttribute("width") : NaN,
        fill: rect ? rect.getAttribute("fill") : null,
        faded: g.classList.contains("fade"),
      };
    });
    const text = (sel) => (view.querySelector(sel) || {}).textContent || "";
    return {
      mode: view.getAttribute("data-mode"),
      type: view.getAttribute("data-type"),
      heading: text(".pv-heading"),
      status: text(".pv-status"),
      tooltip: view.querySelector(".pv-tooltip").style.display === "block" ? text(".pv-tooltip") : "",
      search_share: +(view.getAttribute("data-search-share") || NaN),
      svg_width: svg ? +svg.getAttribute("width") : NaN,
      types: Array.from(view.querySelectorAll(".pv-type option")).map((o) => o.textContent),
      frames,
    };
  }, VIEW);
}

async function frameElement(page, name) {
  const handle = await page.evaluateHandle(
    ({ VIEW, name }) =>
      Array.from(document.querySelectorAll(`${VIEW} svg g.frame`)).find((g) => g.getAttribute("name") === name),
    { VIEW, name },
  );
  const element = handle.asElement();
  if (!element) throw new Error(`no frame named ${name}`);
  return element;
}

async function act(page, action) {
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
  } else if ("mode" in action) {
    await page.click(`${VIEW} .pv-view-${action.mode}`);
  } else if ("click" in action) {
    await (await frameElement(page, action.click)).click();
  } else if ("hover" in action) {
    await (await frameElement(page, action.hover)).hover();
  } else if ("reset" in action) {
    await page.click(`${VIEW} .pv-reset`);
  } else if ("screenshot" in action) {
    await page.screenshot({ path: action.screenshot });
    return;
  }
  await waitDrawn(page);
}

async function view(job) {
  const pageUrl = pathToFileURL(path.resolve(job.html)).href;
  const dirUrl = job.allow_dir ? pathToFileURL(path.resolve(job.allow_dir)).href + "/" : null;
  const allowed = (url) => url === pageUrl || (dirUrl !== null && url.startsWith(dirUrl));
  return withBrowser(job, async (context) => {
    const { page, log } = await watchedPage(context, allowed);
    await page.goto(pageUrl);
    await waitDrawn(page);
    const states = [await snapshot(page)];
    for (const action of job.actions || []) {
      await act(page, action);
      states.push(await snapshot(page));
    }
    return { ...log, states };
  });
}

async function paint(job) {
  const pageUrl = pathToFileURL(path.resolve(job.html)).href;
  const times = [];
  for (let i = 0; i < (job.runs || 3); i++) {
    times.push(
      await withBrowser(job, async (context) => {
        const { page, log } = await watchedPage(context, (url) => url === pageUrl);
        await page.goto(pageUrl, { timeout: 120000 });
        await page.waitForFunction(() => window.__profileViewDrawnAt !== undefined, null, { timeout: 120000 });
        const ms = await page.evaluate(() => window.__profileViewDrawnAt);
        if (log.errors.length || log.console.length) throw new Error(log.errors.concat(log.console).join("\n"));
        return ms;
      }),
    );
  }
  return { first_paint_ms: times };
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

const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const commands = { view, paint, speedscope };
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
