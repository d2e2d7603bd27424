#!/usr/bin/env node
// Damaged variants of OTLP profiles files, for the tests that read_otlp()
// refuses bad input with a classed error and never aborts (issue 23), like
// tests/oracle/pprof-mutate for pprof.
//
//   node otlp-mutate.mjs -seed S -from I -to J -out DIR FILE...
//
// writes cases I..J-1 (case numbers are global, so a run can be split into
// batches) into DIR as NNNNNNN.pb, and prints one line per case:
//
//   <case file>\t<seed file>\t<kind>\t<detail>
//
// Each case is a function of (S, case number, the seed files) only: its own
// random generator, seeded with both, picks a seed file (case number modulo
// their count), a kind (by weight) and the details. Seed files may be binary
// or OTLP/JSON (converted to binary first), gzip or not. About one case in
// twenty is gzip-compressed afterwards (kind suffix "+gzip").
//
// Kinds (see README.md): byte level (truncate, bitflip, overwrite, insert,
// delete, splice); protobuf aware, on the message walked with our schema:
// index (an index field set to -1, the table's size, size+1, 2^31-1, 10^9, ...:
// stack_index, link_index, *_strindex, mapping_index, function_index and the
// elements of attribute_indices / location_indices), varint (any number
// changed to an edge value), lengths (a sample's values or timestamps given
// one element more or less, or removed both: "neither"), drop, dup, wiretype,
// length (a length prefix changed), overlong (a varint padded), unknown (a new
// field), string (a string-table entry made invalid UTF-8, or entry 0
// non-empty); and gzip-truncate, gzip-bitflip, gzip-trailing.

import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { ProfilesData, readInput, walkWire, jsonToObject, acceptsWireType } from "./otlp-lib.mjs";

// ---- a small deterministic generator (splitmix64 on BigInt) -----------------

class Rng {
  constructor(seed) {
    this.state = BigInt.asUintN(64, BigInt(seed));
  }
  next64() {
    this.state = BigInt.asUintN(64, this.state + 0x9e3779b97f4a7c15n);
    let z = this.state;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    return z ^ (z >> 31n);
  }
  int(n) {
    if (n <= 0) return 0;
    return Number(this.next64() % BigInt(n));
  }
  pick(list) {
    return list[this.int(list.length)];
  }
}

// ---- encoding helpers --------------------------------------------------------

function varint(value, minBytes = 1) {
  let v = BigInt.asUintN(64, BigInt(value));
  const out = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n || out.length + 1 < minBytes) b |= 0x80;
    out.push(b);
  } while (v !== 0n || out.length < minBytes);
  return Buffer.from(out);
}
const tag = (num, wt) => varint((BigInt(num) << 3n) | BigInt(wt));
const splice = (buf, start, end, insert) => Buffer.concat([buf.subarray(0, start), insert, buf.subarray(end)]);

// Every field node of a walked tree, with the chain of its ancestors.
function allNodes(tree) {
  const out = [];
  const visit = (nodes, parents) => {
    for (const n of nodes) {
      out.push({ node: n, parents });
      if (n.children) visit(n.children, [...parents, n]);
    }
  };
  visit(tree, []);
  return out;
}

// A change of the bytes [start, end) of a message nested in `parents` (the
// length-delimited fields around it, outermost first): the new bytes put in
// and the length prefixes of the parents rewritten, innermost first (a prefix
// that grows makes its parents longer too).
function replaceIn(buf, parents, start, end, insert) {
  let out = splice(buf, start, end, insert);
  let delta = insert.length - (end - start);
  for (let k = parents.length - 1; k >= 0; k--) {
    const p = parents[k];
    const prefix = varint(p.len + delta);
    out = splice(out, p.lenStart, p.valueStart, prefix);
    delta += prefix.length - (p.valueStart - p.lenStart);
  }
  return out;
}

// ---- the dictionary's table sizes and index fields --------------------------

const INDEX_FIELDS = {
  stackIndex: "stackTable", linkIndex: "linkTable", mappingIndex: "mappingTable",
  functionIndex: "functionTable", locationIndices: "locationTable", attributeIndices: "attributeTable",
};
const tableOf = (field) => (field.name.endsWith("Strindex") ? "stringTable" : INDEX_FIELDS[field.name]);

function tableSizes(tree) {
  const sizes = {};
  const dict = tree.find((n) => n.num === 2 && n.children);
  for (const n of dict ? dict.children : []) {
    if (n.field) sizes[n.field.name] = (sizes[n.field.name] || 0) + 1;
  }
  return sizes;
}

function indexValue(rng, size) {
  return rng.pick([-1n, -2n, BigInt(size), BigInt(size) + 1n, 2147483647n, -2147483648n, 1000000000n,
    BigInt(Math.max(size - 1, 0)), 0n, 4294967295n]);
}
function edgeValue(rng) {
  return rng.pick([0n, 1n, -1n, 127n, 128n, 2147483647n, 2147483648n, 4294967296n, (1n << 63n) - 1n,
    1n << 63n, (1n << 64n) - 1n, 1000000000n, BigInt(rng.int(1000))]);
}

// ---- the kinds -----------------------------------------------------------

const kinds = [
  ["truncate", 6, truncate], ["bitflip", 8, bitflip], ["overwrite", 4, overwrite],
  ["insert", 2, insertBytes], ["delete", 2, deleteBytes], ["splice", 2, spliceFiles],
  ["index", 22, rewriteIndex], ["varint", 10, rewriteVarint], ["lengths", 8, changeLengths],
  ["drop", 5, dropField], ["dup", 4, dupField], ["wiretype", 5, changeWireType],
  ["length", 5, changeLength], ["overlong", 3, overlongVarint], ["unknown", 3, addUnknown],
  ["string", 3, changeString], ["gzip-truncate", 1, gzipTruncate], ["gzip-bitflip", 1, gzipBitflip],
  ["gzip-trailing", 1, gzipTrailing],
];

function truncate(c) {
  const n = c.rng.int(c.data.length);
  c.data = c.data.subarray(0, n);
  return `to ${n} of ${c.seed.data.length} bytes`;
}
function bitflip(c) {
  const flips = 1 + c.rng.int(3);
  const out = Buffer.from(c.data);
  const where = [];
  for (let k = 0; k < flips && out.length; k++) {
    const i = c.rng.int(out.length);
    const bit = c.rng.int(8);
    out[i] ^= 1 << bit;
    where.push(`${i}.${bit}`);
  }
  c.data = out;
  return `bits ${where.join(",")}`;
}
function overwrite(c) {
  const out = Buffer.from(c.data);
  const i = c.rng.int(out.length);
  const v = c.rng.pick([0x00, 0xff, 0x80, 0x7f, c.rng.int(256)]);
  if (out.length) out[i] = v;
  c.data = out;
  return `byte ${i} = ${v}`;
}
function insertBytes(c) {
  const i = c.rng.int(c.data.length + 1);
  const n = 1 + c.rng.int(8);
  const bytes = Buffer.from(Array.from({ length: n }, () => c.rng.int(256)));
  c.data = splice(c.data, i, i, bytes);
  return `${n} bytes at ${i}`;
}
function deleteBytes(c) {
  const i = c.rng.int(c.data.length);
  const n = 1 + c.rng.int(16);
  c.data = splice(c.data, i, Math.min(i + n, c.data.length), Buffer.alloc(0));
  return `${n} bytes at ${i}`;
}
function spliceFiles(c) {
  const other = c.rng.pick(c.seeds);
  const a = c.rng.int(c.data.length);
  const b = c.rng.int(other.data.length);
  c.data = Buffer.concat([c.data.subarray(0, a), other.data.subarray(b)]);
  return `${a} bytes + ${other.name} from ${b}`;
}

// Fields of the walked tree that hold numbers: a varint field, or one element
// of a packed run.
function numberSlots(c, filter) {
  const out = [];
  for (const { node, parents } of allNodes(c.tree)) {
    if (!node.field || node.children) continue;
    if (!filter(node.field)) continue;
    if (node.wt === 0) out.push({ node, parents, start: node.valueStart, end: node.end, value: node.value });
    if (node.packed && !["fixed64", "fixed32", "double", "float", "sfixed64", "sfixed32"].includes(node.field.type)) {
      for (const e of node.packed) out.push({ node, parents: [...parents, node], start: e.start, end: e.end, value: e.value });
    }
  }
  return out;
}

function rewriteIndex(c) {
  const slots = numberSlots(c, (f) => tableOf(f) !== undefined);
  if (!slots.length) return null;
  const s = c.rng.pick(slots);
  const table = tableOf(s.node.field);
  const size = c.sizes[table] || 0;
  const v = indexValue(c.rng, size);
  c.data = replaceIn(c.data, s.parents, s.start, s.end, varint(v));
  c.defect = v < 0n ? "negative index" : v >= BigInt(size) ? "index past the table" : "";
  return `${path1(s)} ${s.value} -> ${v} (${table} has ${size})`;
}
function rewriteVarint(c) {
  const slots = numberSlots(c, () => true);
  if (!slots.length) return null;
  const s = c.rng.pick(slots);
  const v = edgeValue(c.rng);
  c.data = replaceIn(c.data, s.parents, s.start, s.end, varint(v));
  return `${path1(s)} ${s.value} -> ${v}`;
}
const path1 = (s) => [...s.parents.filter((p) => p !== s.node), s.node].map((n) => (n.field ? n.field.name : `#${n.num}`)).join(".");

// A sample's values or timestamps one longer or shorter, or both removed.
function changeLengths(c) {
  const samples = allNodes(c.tree).filter(({ node }) => node.field && node.field.name === "samples" && node.children);
  if (!samples.length) return null;
  const { node, parents } = c.rng.pick(samples);
  const series = node.children.filter((n) => n.field && (n.field.name === "values" || n.field.name === "timestampsUnixNano"));
  const what = c.rng.int(3);
  const inner = [...parents, node];
  if (what === 0 || !series.length) {
    // Neither: the sample rewritten without its values and timestamps.
    const kept = node.children.filter((n) => !series.includes(n)).map((n) => c.data.subarray(n.tagStart, n.end));
    const body = Buffer.concat(kept);
    const field = Buffer.concat([tag(node.num, 2), varint(body.length), body]);
    c.data = replaceIn(c.data, parents, node.tagStart, node.end, field);
    c.defect = "sample with neither values nor timestamps";
    return `sample at ${node.tagStart}: values and timestamps removed`;
  }
  const n = c.rng.pick(series);
  const isTime = n.field.name === "timestampsUnixNano";
  const count = (name) => series.filter((x) => x.field.name === name).reduce((k, x) => k + (x.packed ? x.packed.length : 1), 0);
  let nv = count("values");
  let nt = count("timestampsUnixNano");
  if (what === 1) {
    // One more element: a new unpacked element after the field.
    const extra = isTime ? Buffer.concat([tag(5, 1), Buffer.alloc(8, 0x11)]) : Buffer.concat([tag(4, 0), varint(7)]);
    c.data = replaceIn(c.data, inner, n.end, n.end, extra);
    if (isTime) nt++;
    else nv++;
  } else if (n.packed && n.packed.length) {
    // One fewer element: the last of a packed run, or the unpacked field.
    const last = n.packed[n.packed.length - 1];
    c.data = replaceIn(c.data, [...inner, n], last.start, last.end, Buffer.alloc(0));
    if (isTime) nt--;
    else nv--;
  } else {
    c.data = replaceIn(c.data, inner, n.tagStart, n.end, Buffer.alloc(0));
    if (isTime) nt -= n.packed ? 0 : 1;
    else nv -= n.packed ? 0 : 1;
  }
  if (nv === 0 && nt === 0) c.defect = "sample with neither values nor timestamps";
  else if (nv > 0 && nt > 0 && nv !== nt) c.defect = "values and timestamps of different lengths";
  return `sample at ${node.tagStart}: ${what === 1 ? "one more" : "one fewer"} ${n.field.name} (now ${nv} values, ${nt} timestamps)`;
}

function dropField(c) {
  const nodes = allNodes(c.tree);
  if (!nodes.length) return null;
  const { node, parents } = c.rng.pick(nodes);
  c.data = replaceIn(c.data, parents, node.tagStart, node.end, Buffer.alloc(0));
  return `${node.field ? node.field.name : node.num} at ${node.tagStart}`;
}
function dupField(c) {
  const nodes = allNodes(c.tree);
  if (!nodes.length) return null;
  const { node, parents } = c.rng.pick(nodes);
  c.data = replaceIn(c.data, parents, node.end, node.end, c.data.subarray(node.tagStart, node.end));
  return `${node.field ? node.field.name : node.num} at ${node.tagStart}`;
}
function changeWireType(c) {
  const nodes = allNodes(c.tree);
  if (!nodes.length) return null;
  const { node, parents } = c.rng.pick(nodes);
  const wt = c.rng.pick([0, 1, 2, 3, 5, 6, 7].filter((w) => w !== node.wt));
  const body = wt === 0 ? varint(c.rng.int(300)) : wt === 1 ? Buffer.alloc(8, 1) : wt === 5 ? Buffer.alloc(4, 1)
    : wt === 2 ? Buffer.concat([varint(2), Buffer.from([8, 1])]) : wt === 3 ? tag(node.num, 4) : Buffer.alloc(0);
  c.data = replaceIn(c.data, parents, node.tagStart, node.end, Buffer.concat([tag(node.num, wt), body]));
  if (node.field ? !acceptsWireType(node.field, wt) : wt >= 6) c.defect = "wrong wire type";
  return `${node.field ? node.field.name : node.num} at ${node.tagStart}: wire type ${node.wt} -> ${wt}`;
}
function changeLength(c) {
  const nodes = allNodes(c.tree).filter(({ node }) => node.wt === 2);
  if (!nodes.length) return null;
  const { node, parents } = c.rng.pick(nodes);
  const v = c.rng.pick([BigInt(node.len) + 1n, BigInt(Math.max(node.len - 1, 0)), 0n, 0x7fffffffn, 0xffffffffn,
    (1n << 63n), (1n << 64n) - 1n, BigInt(node.len) + 1000n]);
  // Only this prefix changes; the ancestors keep theirs (the damage is local).
  c.data = splice(c.data, node.lenStart, node.valueStart, varint(v));
  return `${node.field ? node.field.name : node.num} at ${node.tagStart}: length ${node.len} -> ${v}`;
}
function overlongVarint(c) {
  const slots = numberSlots(c, () => true);
  if (!slots.length) return null;
  const s = c.rng.pick(slots);
  const bytes = c.rng.pick([10, 11, 6]);
  let enc = varint(s.value, Math.min(bytes, 10));
  if (bytes === 11) enc = Buffer.concat([enc.subarray(0, 9), Buffer.from([0x80 | enc[9], 0x00])]);
  c.data = replaceIn(c.data, s.parents, s.start, s.end, enc);
  return `${path1(s)} ${s.value} in ${bytes} bytes`;
}
function addUnknown(c) {
  const messages = [{ node: null, parents: [], children: c.tree, start: 0 }].concat(
    allNodes(c.tree).filter(({ node }) => node.children).map(({ node, parents }) => ({ node, parents: [...parents, node], start: node.valueStart })),
  );
  const m = c.rng.pick(messages);
  const num = c.rng.pick([15, 16, 100, 1000, 536870911, 19000]);
  const wt = c.rng.pick([0, 1, 2, 5, 3]);
  const body = wt === 0 ? varint(1) : wt === 1 ? Buffer.alloc(8) : wt === 5 ? Buffer.alloc(4)
    : wt === 2 ? Buffer.concat([varint(3), Buffer.from("abc")]) : tag(num, 4);
  c.data = replaceIn(c.data, m.parents, m.start, m.start, Buffer.concat([tag(num, wt), body]));
  return `field ${num} wire type ${wt} in ${m.node ? m.node.field?.name : "ProfilesData"}`;
}
function changeString(c) {
  const strings = allNodes(c.tree).filter(({ node }) => node.field && node.field.name === "stringTable");
  if (!strings.length) return null;
  const k = c.rng.int(strings.length);
  const { node, parents } = strings[k];
  const what = c.rng.pick([Buffer.from([0xff, 0xfe]), Buffer.from([0xc3]), Buffer.from("x"), Buffer.from("a\u0000b")]);
  c.data = replaceIn(c.data, [...parents, node], node.valueStart, node.end, what);
  if (what[0] >= 0x80) c.defect = "invalid UTF-8";
  return `stringTable[${k}] = ${what.toString("hex")}`;
}
function gzipTruncate(c) {
  const gz = zlib.gzipSync(c.data);
  c.data = gz.subarray(0, c.rng.int(gz.length));
  c.gzip = true;
  return `gzip cut to ${c.data.length} of ${gz.length}`;
}
function gzipBitflip(c) {
  const gz = Buffer.from(zlib.gzipSync(c.data));
  const i = 10 + c.rng.int(Math.max(gz.length - 10, 1));
  if (i < gz.length) gz[i] ^= 1 << c.rng.int(8);
  c.data = gz;
  c.gzip = true;
  return `gzip bit flip at ${i}`;
}
function gzipTrailing(c) {
  c.data = Buffer.concat([zlib.gzipSync(c.data), Buffer.from([0, 1, 2, 3])]);
  c.gzip = true;
  return "4 bytes after the gzip stream";
}

// ---- main ----------------------------------------------------------------

function readSeeds(files) {
  return files.map((f) => {
    const input = readInput(f);
    let data = input.bytes;
    if (input.format === "json") {
      if (input.json.length !== 1) throw new Error(`${f}: one JSON message expected`);
      data = Buffer.from(ProfilesData.encode(ProfilesData.fromObject(jsonToObject(ProfilesData, input.json[0], "", false))).finish());
    }
    const wire = walkWire(data, ProfilesData, { keepTree: true });
    if (wire.errors.length) throw new Error(`${f}: not a valid seed: ${wire.errors[0]}`);
    return { name: path.basename(f), data, tree: wire.tree, sizes: tableSizes(wire.tree) };
  });
}

function main() {
  const args = process.argv.slice(2);
  const opt = { seed: 1, from: 0, to: 100, out: "" };
  const files = [];
  for (let k = 0; k < args.length; k++) {
    const a = args[k];
    if (a === "-seed" || a === "-from" || a === "-to" || a === "-out") opt[a.slice(1)] = args[++k];
    else files.push(a);
  }
  const from = Number(opt.from);
  const to = Number(opt.to);
  if (!opt.out || !files.length || !(from >= 0) || !(to >= from)) {
    process.stderr.write("usage: otlp-mutate.mjs -seed S -from I -to J -out DIR FILE...\n");
    process.exit(64);
  }
  const seeds = readSeeds(files);
  const total = kinds.reduce((s, k) => s + k[1], 0);
  const lines = [];
  for (let i = from; i < to; i++) {
    const rng = new Rng(BigInt(opt.seed) * 1000003n + BigInt(i));
    const seed = seeds[i % seeds.length];
    const c = { rng, seed, seeds, data: seed.data, tree: seed.tree, sizes: seed.sizes, gzip: false, defect: "" };
    let pick = rng.int(total);
    let kind = kinds[0];
    for (kind of kinds) {
      if (pick < kind[1]) break;
      pick -= kind[1];
    }
    let name = kind[0];
    let detail = kind[2](c);
    if (detail === null) {
      name = "bitflip";
      detail = bitflip(c);
    }
    if (!c.gzip && rng.int(20) === 0) {
      c.data = zlib.gzipSync(c.data);
      name += "+gzip";
    }
    const file = path.join(opt.out, String(i).padStart(7, "0") + ".pb");
    fs.writeFileSync(file, c.data);
    lines.push(`${file}\t${seed.name}\t${name}\t${detail}${c.defect ? ` [${c.defect}]` : ""}\n`);
  }
  process.stdout.write(lines.join(""));
}

main();
