#!/usr/bin/env node
// The OTLP profiles oracle of the R package profile's tests (see README.md).
//
//   node otlp-oracle.mjs to-json [--pretty] IN [OUT]
//   node otlp-oracle.mjs to-binary [--strict] [--line K] IN OUT
//   node otlp-oracle.mjs canonical [--literal] [--merge] [--sort] [--implicit-values] [--pretty] IN [OUT]
//   node otlp-oracle.mjs check [--strict] IN...      (or --paths: file names on standard input)
//   node otlp-oracle.mjs proto DIR        our schema as .proto files (for protoc --decode)
//   node otlp-oracle.mjs drafts IN...     which drafts' wire layouts each file parses under
//
// IN is binary OTLP (ProfilesData or ExportProfilesServiceRequest: the same
// wire), OTLP/JSON (one message or one per line), either gzip-compressed or
// not; "-" reads standard input. OUT defaults to standard output.
// Exit status: 0 done, 1 `check` found a problem, 2 the input could not be
// used (the message on standard error says why), 64 bad usage.

import fs from "node:fs";
import protobuf from "protobufjs";
import {
  OracleError, ProfilesData, readInput, inputMessages, toJson, canonical, checkIndices, walkWire,
  jsonToObject, stringify, root,
} from "./otlp-lib.mjs";
import { draftTypes } from "./otlp-drafts.mjs";

function usage(msg) {
  process.stderr.write(`otlp-oracle: ${msg}\n`);
  process.exit(64);
}

function parseArgs(argv, flags, valued = []) {
  const opts = {};
  const files = [];
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k];
    if (a.startsWith("--") && a.length > 2) {
      const name = a.slice(2);
      if (valued.includes(name)) opts[name] = argv[++k];
      else if (flags.includes(name)) opts[name] = true;
      else usage(`unknown option ${a}`);
    } else {
      files.push(a);
    }
  }
  return { opts, files };
}

function output(text, file) {
  if (!file || file === "-") process.stdout.write(text);
  else fs.writeFileSync(file, text);
}

function toJsonCommand(argv) {
  const { opts, files } = parseArgs(argv, ["pretty", "strict"]);
  if (files.length < 1 || files.length > 2) usage("to-json [--pretty] IN [OUT]");
  const messages = inputMessages(readInput(files[0]), { strict: !!opts.strict }).map(toJson);
  const text = messages.length === 1
    ? stringify(messages[0], opts.pretty) + "\n"
    : messages.map((m) => stringify(m) + "\n").join("");
  output(text, files[1]);
}

function toBinaryCommand(argv) {
  const { opts, files } = parseArgs(argv, ["strict"], ["line"]);
  if (files.length !== 2) usage("to-binary [--strict] [--line K] IN OUT");
  const input = readInput(files[0]);
  if (input.format !== "json") throw new OracleError(`${files[0]} is not OTLP/JSON`);
  let json = input.json;
  if (opts.line !== undefined) {
    const k = Number(opts.line);
    if (!Number.isInteger(k) || k < 1 || k > json.length) usage(`--line ${opts.line}: the file has ${json.length} messages`);
    json = [json[k - 1]];
  }
  if (json.length !== 1) throw new OracleError(`${files[0]} holds ${json.length} messages: choose one with --line`);
  const msg = ProfilesData.fromObject(jsonToObject(ProfilesData, json[0], "", !!opts.strict));
  const problem = ProfilesData.verify(msg);
  if (problem) throw new OracleError("verify: " + problem);
  output(Buffer.from(ProfilesData.encode(msg).finish()), files[1]);
}

function canonicalCommand(argv) {
  const { opts, files } = parseArgs(argv, ["literal", "merge", "sort", "implicit-values", "pretty", "strict"]);
  if (files.length < 1 || files.length > 2) usage("canonical [--literal] [--merge] [--sort] [--implicit-values] [--pretty] IN [OUT]");
  const messages = inputMessages(readInput(files[0]), { strict: !!opts.strict }).map(toJson);
  let result;
  if (opts.literal) {
    result = messages.length === 1 ? messages[0] : messages;
  } else {
    const o = { merge: !!opts.merge, sort: !!opts.sort, implicitValues: !!opts["implicit-values"] };
    result = { resourceProfiles: messages.flatMap((m) => canonical(m, o).resourceProfiles) };
  }
  output(stringify(result, opts.pretty) + "\n", files[1]);
}

// The report of one file (see README.md).
export function checkFile(file, strict) {
  const report = { file, ok: false };
  let input;
  try {
    input = readInput(file);
  } catch (e) {
    report.readError = e.message;
    return report;
  }
  Object.assign(report, { format: input.format, gzip: input.gzip, bytes: input.bytes.length });
  report.wireErrors = [];
  report.unknownFields = [];
  report.jsonErrors = [];
  let messages = [];
  if (input.format === "protobuf") {
    const wire = walkWire(input.bytes, ProfilesData);
    report.wireErrors = wire.errors;
    report.unknownFields = wire.unknown;
    if (!wire.errors.length) messages = [ProfilesData.decode(input.bytes)];
  } else {
    input.json.forEach((obj, k) => {
      try {
        messages.push(ProfilesData.fromObject(jsonToObject(ProfilesData, obj, input.json.length > 1 ? `[${k}]` : "", strict)));
      } catch (e) {
        report.jsonErrors.push(e.message);
      }
    });
  }
  report.verifyErrors = messages.map((m) => ProfilesData.verify(m)).filter((x) => x);
  report.indexErrors = [];
  report.warnings = [];
  report.counts = { messages: messages.length, resourceProfiles: 0, profiles: 0, samples: 0, observations: 0, tables: {} };
  for (const m of messages) {
    const json = toJson(m);
    const { errors, warnings } = checkIndices(json);
    report.indexErrors.push(...errors);
    report.warnings.push(...warnings);
    const c = report.counts;
    for (const rp of json.resourceProfiles || []) {
      c.resourceProfiles++;
      for (const sp of rp.scopeProfiles || []) {
        for (const p of sp.profiles || []) {
          c.profiles++;
          for (const x of p.samples || []) {
            c.samples++;
            c.observations += Math.max((x.values || []).length, (x.timestampsUnixNano || []).length);
          }
        }
      }
    }
    for (const [name, table] of Object.entries(json.dictionary || {})) {
      c.tables[name] = (c.tables[name] || 0) + table.length;
    }
  }
  report.ok = !report.wireErrors.length && !report.unknownFields.length && !report.jsonErrors.length &&
    !report.verifyErrors.length && !report.indexErrors.length;
  return report;
}

function checkCommand(argv) {
  const { opts, files } = parseArgs(argv, ["strict", "paths"]);
  let list = files;
  if (opts.paths) list = fs.readFileSync(0, "utf8").split("\n").filter((l) => l !== "");
  if (!list.length) usage("check [--strict] IN... | check --paths < LIST");
  let allOk = true;
  for (const f of list) {
    const r = checkFile(f, !!opts.strict);
    allOk = allOk && r.ok;
    process.stdout.write(JSON.stringify(r) + "\n");
  }
  if (!allOk) process.exitCode = 1;
}

// Our schema as .proto text, one file per package, written into DIR (made at
// test time for protoc --decode; not committed).
function protoCommand(argv) {
  const { files } = parseArgs(argv, []);
  if (files.length !== 1) usage("proto DIR");
  fs.mkdirSync(files[0], { recursive: true });
  const packages = [];
  const visit = (ns) => {
    if (ns.nestedArray.some((x) => x instanceof protobuf.Type)) packages.push(ns);
    for (const x of ns.nestedArray) if (x instanceof protobuf.Namespace && !(x instanceof protobuf.Type)) visit(x);
  };
  visit(root);
  const fileOf = (ns) => ns.fullName.slice(1).replace(/\./g, "_") + ".proto";
  for (const ns of packages) {
    const imports = new Set();
    const body = [];
    for (const type of ns.nestedArray.filter((x) => x instanceof protobuf.Type)) {
      body.push(`message ${type.name} {`);
      const inOneof = new Set();
      for (const oneof of type.oneofsArray) {
        body.push(`  oneof ${oneof.name} {`);
        for (const f of oneof.fieldsArray) {
          inOneof.add(f.name);
          body.push(`    ${typeName(f, ns, imports)} ${snake(f.name)} = ${f.id};`);
        }
        body.push("  }");
      }
      for (const f of type.fieldsArray) {
        if (inOneof.has(f.name)) continue;
        body.push(`  ${f.repeated ? "repeated " : ""}${typeName(f, ns, imports)} ${snake(f.name)} = ${f.id};`);
      }
      body.push("}");
    }
    imports.delete(fileOf(ns));
    const text = ['syntax = "proto3";', `package ${ns.fullName.slice(1)};`,
      ...[...imports].map((i) => `import "${i}";`), ...body].join("\n") + "\n";
    fs.writeFileSync(`${files[0]}/${fileOf(ns)}`, text);
    process.stdout.write(fileOf(ns) + "\n");
  }
  function typeName(f, ns, imports) {
    if (!f.resolvedType) return f.type;
    imports.add(fileOf(f.resolvedType.parent));
    return f.resolvedType.fullName;
  }
}

// For each file, one JSON line: for each draft of the signal (v1.3, v1.5,
// v1.7, v1.8, v1.9 and the current v1.10), the number of wire errors and
// unknown fields when the bytes are walked with that draft's layout, and
// `clean`: the drafts under which there are none. More than one clean draft
// means the bytes alone cannot tell (see README.md).
function draftsCommand(argv) {
  const { opts, files } = parseArgs(argv, ["paths"]);
  let list = files;
  if (opts.paths) list = fs.readFileSync(0, "utf8").split("\n").filter((l) => l !== "");
  if (!list.length) usage("drafts IN... | drafts --paths < LIST");
  const types = draftTypes();
  for (const file of list) {
    const report = { file, drafts: {}, clean: [] };
    let input;
    try {
      input = readInput(file);
    } catch (e) {
      report.readError = e.message;
      process.stdout.write(JSON.stringify(report) + "\n");
      continue;
    }
    if (input.format !== "protobuf") {
      report.readError = "not a binary file";
    } else {
      for (const [name, type] of Object.entries(types)) {
        const wire = walkWire(input.bytes, type);
        report.drafts[name] = {
          wireErrors: wire.errors.length, unknownFields: wire.unknown.length,
          first: wire.errors[0] || (wire.unknown[0] && `unknown field ${wire.unknown[0].path}`) || null,
        };
        if (!wire.errors.length && !wire.unknown.length) report.clean.push(name);
      }
    }
    process.stdout.write(JSON.stringify(report) + "\n");
  }
}

const snake = (s) => s.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());

const commands = { drafts: draftsCommand, proto: protoCommand, "to-json": toJsonCommand, "to-binary": toBinaryCommand, canonical: canonicalCommand, check: checkCommand };
const [command, ...rest] = process.argv.slice(2);
if (!commands[command]) usage(`command must be one of ${Object.keys(commands).join(", ")}`);
try {
  commands[command](rest);
} catch (e) {
  if (e instanceof OracleError || e instanceof Error) {
    process.stderr.write(`otlp-oracle ${command}: ${e.message}\n`);
    process.exit(2);
  }
  throw e;
}
