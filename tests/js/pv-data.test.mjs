// The view's data layer (inst/htmlwidgets/lib/profile-view/pv-data.js) under
// node's own test runner: `node --test tests/js/` (dev/test.sh runs it after
// the R tests). pv-data.js is a browser script; it runs here as it ships, in a
// vm context that stands for the page's window. Its input is the JSON the
// package makes for a sample profile, and its numbers are judged against
// profile_summary() of the same profile: tests/js/view-data.R writes both,
// with the package installed where R_LIBS points.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { loadProfileView, near, viewData } from "./view-fixture.mjs";

let PV;
let data;
let summary;

before(() => {
  PV = loadProfileView(["pv-data.js"]);
  ({ "view.json": data, "summary.json": summary } = viewData(["view.json", "summary.json"]));
});

function base64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

test("typed arrays decode from each of their forms", () => {
  const i32 = Int32Array.of(0, -1, 2147483647, 7);
  assert.deepEqual(Array.from(PV.decodeArray({ type: "i32", length: 4, base64: base64(i32) })), Array.from(i32));
  const f64 = Float64Array.of(0.1, -2.5e300, 3);
  assert.deepEqual(Array.from(PV.decodeArray({ type: "f64", length: 3, base64: base64(f64) })), Array.from(f64));
  const u16 = Uint16Array.of(65535, 1);
  assert.deepEqual(Array.from(PV.decodeArray({ type: "u16", length: 2, base64: base64(u16) })), [65535, 1]);
  assert.deepEqual(Array.from(PV.decodeArray({ type: "u8", length: 3, base64: base64(Uint8Array.of(1, 2, 255)) })), [1, 2, 255]);
  assert.deepEqual(Array.from(PV.decodeArray({ const: 2.5, length: 3 })), [2.5, 2.5, 2.5]);
  const runs = {
    length: 5,
    values: { type: "u8", length: 2, base64: base64(Uint8Array.of(4, 9)) },
    lengths: { type: "u8", length: 2, base64: base64(Uint8Array.of(3, 2)) }
  };
  assert.deepEqual(Array.from(PV.decodeArray(runs)), [4, 4, 4, 9, 9]);
  const steps = { start: 10, step: 0.5, steps: { type: "u8", length: 3, base64: base64(Uint8Array.of(0, 2, 1)) } };
  assert.deepEqual(Array.from(PV.decodeArray(steps)), [10, 11, 11.5]);
  assert.throws(() => PV.decodeArray({ type: "i64", length: 1, base64: "" }), /unknown array type/);
});

test("the model decodes the package's JSON into a tree of depth-first nodes", () => {
  const model = new PV.Model(data);
  assert.deepEqual(
    model.types.map((t) => t.name),
    summary.map((s) => s.type)
  );
  assert.ok(model.n > 1);
  assert.equal(model.parent.length, model.n);
  assert.equal(model.key.length, model.n);
  assert.equal(model.name(0), "root");
  for (let i = 1; i < model.n; i++) {
    // parents come first, and a subtree is a run of nodes
    assert.ok(model.parent[i] < i, `node ${i}: parent ${model.parent[i]}`);
    assert.ok(model.end[i] <= model.end[model.parent[i]]);
    assert.equal(model.depth[i], model.depth[model.parent[i]] + 1);
  }
  assert.throws(() => new PV.Model({ ...data, format: 3 }), /unknown data format 3/);
});

test("the flame graph's totals are profile_summary()'s", () => {
  const model = new PV.Model(data);
  summary.forEach((expected, t) => {
    const graph = model.graph(t);
    near(graph.w[0], expected.total, `${expected.type}: the root's width`);
    near(model.percentBase(t), expected.total, `${expected.type}: what percentages are of`);
    for (let i = 0; i < graph.n; i++) {
      // a node's value is its own plus its children's, side by side from its start
      let children = 0;
      for (let c = i + 1; c < graph.end[i]; c = graph.end[c]) {
        near(graph.x0[c], graph.x0[i] + children, `${expected.type}: start of node ${c}`);
        children += graph.w[c];
      }
      near(graph.w[i], graph.selfPos[i] + children, `${expected.type}: node ${i}`);
    }
  });
});

test("Top's numbers (flat and cum per function) are profile_summary()'s", () => {
  const model = new PV.Model(data);
  summary.forEach((expected, t) => {
    const { flat, cum } = model.functions(t);
    const byName = new Map();
    for (let k = 1; k <= model.nKeys; k++) byName.set(model.keyLabel(k), k);
    assert.equal(byName.size, expected.functions.length, `${expected.type}: functions`);
    for (const f of expected.functions) {
      const k = byName.get(f.name);
      assert.ok(k !== undefined, `${expected.type}: no key for ${f.name}`);
      near(flat[k], f.self, `${expected.type}: self of ${f.name}`);
      near(cum[k], f.total, `${expected.type}: total of ${f.name}`);
      // the callees of a function start from its total, its callers too
      near(model.callees(t, k).w[0], f.total, `${expected.type}: callees of ${f.name}`);
      near(model.callers(t, k).w[0], f.total, `${expected.type}: callers of ${f.name}`);
    }
  });
});

test("per-line values are profile_summary(by = \"line\")'s", () => {
  const model = new PV.Model(data);
  summary.forEach((expected, t) => {
    const { self, total } = model.lines(t);
    const byLine = new Map();
    for (let k = 0; k < model.lineNumber.length; k++) {
      byLine.set(model.files[model.lineFile[k]].name + ":" + model.lineNumber[k], k);
    }
    const located = expected.lines.filter((l) => l.line > 0);
    assert.ok(located.length > 10, `${expected.type}: lines`);
    assert.equal(byLine.size, located.length, `${expected.type}: lines with a value`);
    for (const l of located) {
      const k = byLine.get(l.filename + ":" + l.line);
      assert.ok(k !== undefined, `${expected.type}: no key for ${l.filename}:${l.line}`);
      near(self[k], l.self, `${expected.type}: self of ${l.filename}:${l.line}`);
      near(total[k], l.total, `${expected.type}: total of ${l.filename}:${l.line}`);
    }
    // each file's lines are grouped under it
    const grouped = model.fileLines().reduce((n, keys) => n + keys.length, 0);
    assert.equal(grouped, located.length);
  });
});

test("values are formatted by their unit", () => {
  assert.equal(PV.formatValue(1234567, "count"), "1,234,567");
  assert.equal(PV.formatValue(0.0015, "seconds"), "1.5 ms");
  assert.equal(PV.formatValue(2500, "nanoseconds"), "2.5 \u00b5s");
  assert.equal(PV.formatValue(1536, "bytes"), "1.5 KiB");
  assert.equal(PV.formatValue(3, "widgets"), "3 widgets");
  assert.equal(PV.formatPercent(1, 4), "25.00%");
  assert.equal(PV.formatPercent(1, 0), "");
  assert.equal(PV.signed("5", 5), "+5");
});

test("base64 arrays decode to the bytes node's Buffer encoded, at every length's padding", () => {
  for (let n = 0; n < 50; n++) {
    const bytes = new Uint8Array(n);
    for (let i = 0; i < n; i++) bytes[i] = (i * 97 + n * 13) & 255;
    const got = PV.decodeArray({ type: "u8", length: n, base64: Buffer.from(bytes).toString("base64") });
    assert.deepEqual(Array.from(got), Array.from(bytes), `${n} bytes`);
  }
  const ints = Int32Array.from([0, -1, 2 ** 31 - 1, -(2 ** 31), 123456]);
  const got = PV.decodeArray({ type: "i32", length: 5, base64: Buffer.from(ints.buffer).toString("base64") });
  assert.deepEqual(Array.from(got), Array.from(ints));
});

test("times as steps decode the same whether the steps come in runs or plain", () => {
  const steps = [0, 1, 1, 1, 3, 3, 1, 0, 2, 2, 2, 2];
  const plain = PV.decodeArray({ start: 0.5, step: 0.25, steps: { type: "u8", length: steps.length,
    base64: Buffer.from(Uint8Array.from(steps)).toString("base64") } });
  const values = [0, 1, 3, 1, 0, 2];
  const lengths = [1, 3, 2, 1, 1, 4];
  const encode = (a) => ({ type: "u8", length: a.length, base64: Buffer.from(Uint8Array.from(a)).toString("base64") });
  const runs = PV.decodeArray({ start: 0.5, step: 0.25, steps: { length: steps.length, values: encode(values), lengths: encode(lengths) } });
  let k = 0;
  const expected = steps.map((s) => 0.5 + 0.25 * (k += s));
  assert.deepEqual(Array.from(plain), expected);
  assert.deepEqual(Array.from(runs), expected);
});
