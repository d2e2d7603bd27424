// The view's refinements (inst/htmlwidgets/lib/profile-view/pv-refine.js)
// under node's own test runner: Go regular expressions as the browser runs
// them, and the verbs applied to the view's tree judged against
// profile_summary() of the profile refined by the R verbs of the same name
// (tests/js/view-data.R writes both).
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { CHART_SCRIPTS, loadProfileView, near, viewData } from "./view-fixture.mjs";

let PV;
let data;
let refined;

before(() => {
  PV = loadProfileView(CHART_SCRIPTS);
  ({ "view.json": data, "refined.json": refined } = viewData(["view.json", "refined.json"]));
});

// Flat and cum per function of the model as it is, against a summary's rows:
// every function the summary lists has its numbers, every other has none.
function expectTop(model, t, functions, what) {
  const { flat, cum } = model.functions(t);
  const listed = new Set();
  for (const f of functions) {
    const k = Array.from({ length: model.nKeys }, (_, i) => i + 1).find((j) => model.keyLabel(j) === f.name);
    assert.ok(k !== undefined, `${what}: no key for ${f.name}`);
    listed.add(k);
    near(flat[k], f.self, `${what}: flat of ${f.name}`);
    near(cum[k], f.total, `${what}: cum of ${f.name}`);
  }
  for (let k = 1; k <= model.nKeys; k++) {
    if (listed.has(k)) continue;
    assert.equal(flat[k], 0, `${what}: flat of ${model.keyLabel(k)}, which the summary leaves out`);
    assert.equal(cum[k], 0, `${what}: cum of ${model.keyLabel(k)}, which the summary leaves out`);
  }
}

test("each refinement gives the Top of the R verbs' profile", () => {
  const model = new PV.Model(data);
  let exact = 0;
  let approximate = 0;
  for (const r of refined) {
    const steps = [].concat(r.steps);
    const what = steps.map((s) => `${s.verb}(${s.pattern})`).join(" |> ");
    const t = model.typeIndex(r.type);
    const report = model.refine(steps);
    assert.ok(report.every((s) => s.matched), `${what}: every pattern matches`);
    if (report.some((s) => s.approximate)) approximate++;
    try {
      expectTop(model, t, [].concat(r.functions), what);
    } catch (e) {
      // said so, where the frames of a function merged into one node are
      // in several files or at several lines
      assert.ok(report.some((s) => s.approximate), e.message);
      continue;
    }
    exact++;
    // the tree is a tree: parents first, values summed from the children
    const graph = model.graph(t);
    for (let i = 1; i < graph.n; i++) assert.ok(graph.parent[i] < i);
    let self = 0;
    for (let i = 1; i < graph.n; i++) self += graph.selfPos[i] + graph.selfNeg[i];
    near(self, [].concat(r.functions).reduce((s, f) => s + f.self, 0), `${what}: self summed`);
  }
  // all but the three file and line patterns whose frames the view merges
  assert.equal(exact, refined.length - 3);
  assert.equal(approximate, 3);
  // no refinement: the whole profile again
  const whole = new PV.Model(data);
  model.refine([]);
  assert.equal(model.n, whole.n);
  for (let t = 0; t < whole.types.length; t++) {
    assert.deepEqual(Array.from(model.functions(t).cum), Array.from(whole.functions(t).cum));
  }
});

test("the samples in time order follow the refined tree", () => {
  const model = new PV.Model(data);
  const all = model.runs();
  const t = model.typeIndex("samples");
  model.refine([{ verb: "focus", pattern: "^is\\.odd\\.num$" }]);
  const runs = model.runs();
  assert.ok(runs.leaf.length > 0 && runs.leaf.length < all.leaf.length);
  // the kept samples weigh what the refined tree holds
  const weights = model.runWeights(t);
  near(weights.reduce((a, b) => a + b, 0), model.graph(t).w[0], "kept runs against the tree");
  // (the chart makes its blocks as they are asked for: from the root down)
  const chart = model.chart();
  const blocks = [];
  for (const todo = [0]; todo.length; ) {
    const b = todo.pop();
    if (b > 0) blocks.push(b);
    for (const c of chart.children(b)) todo.push(c);
  }
  for (const b of blocks) {
    assert.equal(model.key[chart.node[b]], chart.key[b]);
  }
  // every block is in a stack through is.odd.num
  assert.ok(blocks.some((b) => model.keyLabel(chart.key[b]) === "is.odd.num"));
});

test("patterns mean what Go's regular expressions mean", () => {
  const re = (p) => PV.goRegExp(p);
  // \d, \w, \s and \b are ASCII
  assert.ok(re("work\\d").test("work3"));
  assert.ok(!re("work\\d").test("work\u0663"));
  assert.ok(!re("^caf\\w$").test("caf\u00e9"));
  assert.ok(!re("a\\sb").test("a\u00a0b"));
  assert.ok(re("a\\sb").test("a\tb"));
  // . is one character; (?i) folds case in Unicode
  assert.ok(re("^caf.$").test("caf\u00e9"));
  assert.ok(re("^.$").test("\u{1F600}"));
  assert.ok(re("(?i)caf\u00e9").test("CAF\u00c9"));
  // Unicode classes, POSIX classes, literal text, Go's escapes and names
  assert.ok(re("^\\pL+$").test("\u00e9t\u00e9"));
  assert.ok(re("^\\p{Greek}+$").test("\u03b1\u03b2"));
  assert.ok(re("^[[:alpha:]_]+$").test("ab_c"));
  assert.ok(!re("^[[:digit:]]+$").test("1a"));
  assert.ok(re("^\\Qa.b(c\\E$").test("a.b(c"));
  assert.ok(!re("^\\Qa.b\\E$").test("axb"));
  assert.ok(re("x\\-y\\:z").test("x-y:z"));
  assert.ok(re("^(?P<fn>main)\\.").test("main.f"));
  assert.ok(re("a{2}").test("aa"));
  assert.ok(re("^\\x{e9}$").test("\u00e9"));
  assert.ok(re("end\\z").test("the end"));
  assert.ok(!re("end\\z").test("end of"));
  assert.ok(re("^[]a]+$").test("]a"));
  // what RE2 refuses
  for (const p of ["(a)\\1", "a(?=b)", "a(?!b)", "(?<=a)b", "(?<!a)b", "(?>a)", "a*+", "a{1001}", "a{1,2000}", ""]) {
    assert.throws(() => re(p), /not a Go regular expression/, p);
  }
});

test("warming the verbs' code (when the page is idle) leaves the model as it was", () => {
  const fields = (m) => [m.n, m.parent, m.key, m.line, m.values, m.nodeLines, m.end, m.cache, m.steps];
  const sums = (m) => m.types.map((_, t) => Array.from(m.functions(t).cum));
  const model = new PV.Model(data);
  const whole = new PV.Model(data);
  for (const steps of [[], [{ verb: "hide", pattern: "^h$" }]]) {
    model.refine(steps);
    const before = fields(model);
    model.warmRefinements("focus");
    model.warmRefinements("hide");
    fields(model).forEach((x, i) => assert.equal(x, before[i]));
    // a refinement after it is the one a fresh model makes
    const next = steps.concat([{ verb: "focus", pattern: "^f$" }]);
    model.refine(next);
    whole.refine(next);
    assert.deepEqual(sums(model), sums(whole));
  }
  model.refine([]);
  assert.deepEqual(sums(model), sums(new PV.Model(data)));
});

test("a pattern that is not one is refused and the model stays as it was", () => {
  const model = new PV.Model(data);
  model.refine([{ verb: "hide", pattern: "^h$" }]);
  const n = model.n;
  assert.throws(() => model.refine([{ verb: "focus", pattern: "(a)\\1" }]), /back-references/);
  assert.equal(model.n, n);
  assert.throws(() => model.refine([{ verb: "drop", pattern: "a" }]), /unknown verb/);
  // a pattern that matches no frame is said so (R's verbs warn)
  assert.deepEqual(
    JSON.parse(JSON.stringify(model.refine([{ verb: "ignore", pattern: "^no such function$" }]))),
    [{ matched: false, approximate: false }]
  );
});

test("the R code of refinements is the verbs piped, patterns as R strings", () => {
  assert.equal(
    PV.rCode([{ verb: "focus", pattern: "^main\\.f$" }, { verb: "prune_from", pattern: 'a"b' }], "x"),
    'x |>\n  profile_focus("^main\\\\.f$") |>\n  profile_prune_from("a\\"b")'
  );
  assert.equal(PV.exactPattern("obj$f"), "^obj\\$f$");
  assert.ok(PV.goRegExp(PV.exactPattern("compiler:::tryCmpfun")).test("compiler:::tryCmpfun"));
});
