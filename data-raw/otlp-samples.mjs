// Writes the OTLP sample files of the package and the damaged files of the
// tests, from our own JSON with protobufjs (the OTLP oracle of tests/otlp; run
// `bash dev/vendor-js.sh` first). From the package root:
//
//   node data-raw/otlp-samples.mjs
//
// - inst/samples/otlp/otep-0239.pb and .json: the worked example of OTEP 0239
//   (samples foo;bar;baz with value 100, attribute region=us, a link to trace
//   01020304... span 9999... and a timestamp, and foo;bar with value 200,
//   region=us, no link, no timestamp), written in the current message shape
//   (opentelemetry-proto v1.10.0 profiles: one dictionary, stacks leaf first)
//   from data-raw/otlp/otep-0239.json.
// - tests/testthat/fixtures/otlp-defects/*.pb: the example with one defect
//   each, listed with the defect a reader must name in DEFECTS.tsv there.

import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ProfilesData, jsonToObject, toJson, checkIndices, walkWire } from "../tests/otlp/otlp-lib.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = JSON.parse(fs.readFileSync(path.join(root, "data-raw/otlp/otep-0239.json"), "utf8"));

const encode = (json) => Buffer.from(ProfilesData.encode(ProfilesData.fromObject(jsonToObject(ProfilesData, json, "", true))).finish());

// Written to a temporary name, then renamed.
function write(file, bytes) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file + ".tmp", bytes);
  fs.renameSync(file + ".tmp", file);
  console.log(`${path.relative(root, file)}: ${bytes.length} bytes`);
}

// ---- the example -------------------------------------------------------------

const example = encode(source);
const problems = checkIndices(toJson(ProfilesData.decode(example)));
if (problems.errors.length || problems.warnings.length) throw new Error(`the example is not clean: ${JSON.stringify(problems)}`);
write(path.join(root, "inst/samples/otlp/otep-0239.pb"), example);
write(path.join(root, "inst/samples/otlp/otep-0239.json"), JSON.stringify(toJson(ProfilesData.decode(example)), null, 2) + "\n");

// ---- damaged copies ------------------------------------------------------------

const copy = () => JSON.parse(JSON.stringify(source));
const profile = (j) => j.resourceProfiles[0].scopeProfiles[0].profiles[0];

// name, defect, table, index, where, change of the JSON
const defects = [
  ["dangling-attribute-index", "dangling index", "attribute_table", "5", "sample 1 attribute_indices",
    (j) => { profile(j).samples[0].attributeIndices = [5]; }],
  ["dangling-location-index", "dangling index", "location_table", "9", "stack_table[1] location_indices",
    (j) => { j.dictionary.stackTable[1].locationIndices = [3, 2, 9]; }],
  ["dangling-function-index", "dangling index", "function_table", "7", "location_table[1] line 1 function_index",
    (j) => { j.dictionary.locationTable[1].lines[0].functionIndex = 7; }],
  ["dangling-mapping-index", "dangling index", "mapping_table", "3", "location_table[2] mapping_index",
    (j) => { j.dictionary.locationTable[2].mappingIndex = 3; }],
  ["dangling-link-index", "dangling index", "link_table", "4", "sample 1 link_index",
    (j) => { profile(j).samples[0].linkIndex = 4; }],
  ["negative-stack-index", "negative index", "stack_table", "-1", "sample 1 stack_index",
    (j) => { profile(j).samples[0].stackIndex = -1; }],
  ["negative-string-index", "negative index", "string_table", "-2", "attribute_table[1] key_strindex",
    (j) => { j.dictionary.attributeTable[1].keyStrindex = -2; }],
  ["stack-index-past-table", "stack index past the table", "stack_table", "3", "sample 2 stack_index",
    (j) => { profile(j).samples[1].stackIndex = 3; }],
  ["string-index-past-table", "string index past the table", "string_table", "8", "function_table[3] name_strindex",
    (j) => { j.dictionary.functionTable[3].nameStrindex = 8; }],
  ["sample-type-string-past-table", "string index past the table", "string_table", "1000000000", "profile sample_type type_strindex",
    (j) => { profile(j).sampleType.typeStrindex = 1000000000; }],
  ["values-timestamps-lengths", "values and timestamps of different lengths", "", "", "sample 1: 2 values, 1 timestamp",
    (j) => { profile(j).samples[0].values = ["100", "1"]; }],
  ["sample-with-neither", "sample with neither values nor timestamps", "", "", "sample 2",
    (j) => { delete profile(j).samples[1].values; }],
];

const dir = path.join(root, "tests/testthat/fixtures/otlp-defects");
const manifest = [["file", "defect", "table", "index", "where"].join("\t")];
for (const [name, defect, table, index, where, change] of defects) {
  const j = copy();
  change(j);
  const bytes = encode(j);
  const found = checkIndices(toJson(ProfilesData.decode(bytes))).errors;
  if (found.length !== 1) throw new Error(`${name}: the oracle finds ${found.length} errors: ${found}`);
  write(path.join(dir, name + ".pb"), bytes);
  manifest.push([name + ".pb", defect, table, index, where].join("\t"));
}

// Wire-level defects, made from the example's bytes: Sample.stack_index
// (field 1, a varint) written as a length-delimited field; a truncated file.
const wrongWire = Buffer.from(example);
const sampleStart = findSample(example);
// The sample's first field is stack_index = 1: tag 0x08, value 0x01. As a
// length-delimited field of one byte: tag 0x0a, length 0x01, byte 0x01 (one
// byte longer: the enclosing lengths are fixed below).
const damaged = Buffer.concat([wrongWire.subarray(0, sampleStart.body), Buffer.from([0x0a, 0x01, 0x01]), wrongWire.subarray(sampleStart.body + 2)]);
fixLengths(damaged, sampleStart.parents, 1);
if (!walkWire(damaged, ProfilesData).errors.some((e) => e.includes("wire type 2 does not fit"))) throw new Error("wrong-wire-type: not what was meant");
write(path.join(dir, "wrong-wire-type.pb"), damaged);
manifest.push(["wrong-wire-type.pb", "wrong wire type", "", "", "sample 1 stack_index as a length-delimited field"].join("\t"));
const truncated = example.subarray(0, Math.floor(example.length / 2));
write(path.join(dir, "truncated.pb"), truncated);
manifest.push(["truncated.pb", "truncated", "", "", `first ${truncated.length} of ${example.length} bytes`].join("\t"));

write(path.join(dir, "DEFECTS.tsv"), manifest.join("\n") + "\n");

// Where the first sample's body starts, and the length prefixes around it
// (ProfilesData.resource_profiles, .scope_profiles, .profiles, .samples).
function findSample(buf) {
  const wire = walkWire(buf, ProfilesData, { keepTree: true });
  const chain = [];
  let nodes = wire.tree;
  for (const name of ["resourceProfiles", "scopeProfiles", "profiles", "samples"]) {
    const node = nodes.find((n) => n.field && n.field.name === name);
    chain.push(node);
    nodes = node.children;
  }
  if (buf[chain[3].valueStart] !== 0x08 || buf[chain[3].valueStart + 1] !== 0x01) throw new Error("unexpected first sample");
  return { body: chain[3].valueStart, parents: chain };
}

// Adds `delta` to each one-byte length prefix of `parents` (all are short
// here; a longer prefix would need re-encoding).
function fixLengths(buf, parents, delta) {
  for (const p of parents) {
    if (p.valueStart - p.lenStart !== 1 || p.len + delta > 127) throw new Error("a length prefix that is not one byte");
    buf[p.lenStart] = p.len + delta;
  }
}
