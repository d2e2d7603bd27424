// What the tests of the view's scripts share (not a test file itself: node
// --test runs only files named *.test.mjs): the view's scripts evaluated as a
// page would, the JSON that tests/js/view-data.R writes for a sample profile
// (with the package installed where R_LIBS points), and a comparison of sums.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const lib = path.join(root, "inst", "htmlwidgets", "lib", "profile-view");

// The scripts `names` (of the view's lib folder, or paths from the package
// root) evaluated in order in a fresh context that stands for the page's
// window: its window.ProfileView.
export function loadProfileView(names) {
  const context = { atob };
  context.window = context;
  vm.createContext(context);
  for (const name of names) {
    const script = name.includes("/") ? path.join(root, name) : path.join(lib, name);
    vm.runInContext(fs.readFileSync(script, "utf8"), context, { filename: script });
  }
  return context.ProfileView;
}

// The files `names` (view.json, summary.json, refined.json) that
// tests/js/view-data.R writes, parsed, by name.
export function viewData(names) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pv-test-"));
  try {
    execFileSync("Rscript", [path.join(root, "tests", "js", "view-data.R"), dir], { stdio: "inherit" });
    return Object.fromEntries(names.map((name) => [name, JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"))]));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// `actual` equals `expected` up to the rounding of sums taken in another order.
export function near(actual, expected, what) {
  const tolerance = 1e-9 * Math.max(1, Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual}, expected ${expected}`);
}
