// The OTLP profiles oracle's library: the schema (our own protobufjs JSON
// descriptor, otlp-profiles.schema.json), reading files of any form (binary,
// gzip, OTLP/JSON, JSON lines), an independent wire walker that checks wire
// types and finds unknown fields, OTLP/JSON in both directions, the index
// checks of the dictionary, and the canonical (index-resolved) form.
//
// It shares no code with the package's reader and writer (src/rust, R/): it is
// the judge of them. See README.md for the conventions of every output.

import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import Long from "long";

const here = path.dirname(fileURLToPath(import.meta.url));
const P = "opentelemetry.proto.profiles.v1development.";

export const root = protobuf.Root.fromJSON(
  JSON.parse(fs.readFileSync(path.join(here, "otlp-profiles.schema.json"), "utf8")),
);
root.resolveAll();
export const ProfilesData = root.lookupType(P + "ProfilesData");

// Fields whose bytes OTLP/JSON writes as hex instead of base64.
const HEX_FIELDS = new Set([P + "Link.traceId", P + "Link.spanId", P + "Profile.profileId"]);
const isHexField = (field) => HEX_FIELDS.has(field.parent.fullName.slice(1) + "." + field.name);

const LONG_TYPES = new Set(["int64", "uint64", "sint64", "fixed64", "sfixed64"]);
const UNSIGNED = new Set(["uint64", "fixed64", "uint32", "fixed32"]);
const VARINT_TYPES = new Set(["int32", "int64", "uint32", "uint64", "sint32", "sint64", "bool", "enum"]);
const FIXED64_TYPES = new Set(["fixed64", "sfixed64", "double"]);
const FIXED32_TYPES = new Set(["fixed32", "sfixed32", "float"]);

export class OracleError extends Error {}

// ---------------------------------------------------------------------------
// Reading files

export function readInput(file) {
  let buf = file === "-" ? fs.readFileSync(0) : fs.readFileSync(file);
  let gzip = false;
  if (buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b) {
    buf = zlib.gunzipSync(buf);
    gzip = true;
  }
  let i = 0;
  while (i < buf.length && [0x20, 0x09, 0x0a, 0x0d].includes(buf[i])) i++;
  if (i < buf.length && (buf[i] === 0x7b || buf[i] === 0x5b)) {
    return { format: "json", gzip, bytes: buf, json: parseJsonMessages(buf.toString("utf8")) };
  }
  return { format: "protobuf", gzip, bytes: buf };
}

// One JSON message, or one message per line (the collector's file exporter).
export function parseJsonMessages(text) {
  try {
    const value = JSON.parse(text);
    return Array.isArray(value) ? value : [value];
  } catch (whole) {
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    if (lines.length < 2) throw new OracleError("invalid JSON: " + whole.message);
    return lines.map((l, k) => {
      try {
        return JSON.parse(l);
      } catch (e) {
        throw new OracleError(`invalid JSON on line ${k + 1}: ${e.message}`);
      }
    });
  }
}

// The decoded messages of an input (protobufjs messages of ProfilesData).
export function inputMessages(input, { strict = false } = {}) {
  if (input.format === "protobuf") {
    const wire = walkWire(input.bytes, ProfilesData);
    if (wire.errors.length) throw new OracleError("wire: " + wire.errors[0]);
    return [ProfilesData.decode(input.bytes)];
  }
  return input.json.map((obj, k) =>
    ProfilesData.fromObject(jsonToObject(ProfilesData, obj, input.json.length > 1 ? `[${k}]` : "", strict)),
  );
}

// ---------------------------------------------------------------------------
// The wire walker: reads the bytes field by field with the schema; records
// wire errors (truncation, bad varints, wire types that do not fit the field,
// invalid UTF-8) and unknown fields with their path. Returns the tree as well
// (used by the mutation generator).

export function readVarint(buf, pos, end) {
  let value = 0n;
  for (let k = 0; k < 10; k++) {
    if (pos >= end) return { error: "truncated varint" };
    const b = buf[pos++];
    if (k === 9 && b > 1) return { error: "varint longer than 64 bits" };
    value |= BigInt(b & 0x7f) << BigInt(7 * k);
    if (b < 0x80) return { value, pos, bytes: k + 1 };
  }
  return { error: "varint longer than 10 bytes" };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

// Which wire types a field accepts.
export function acceptsWireType(field, wt) {
  const t = field.resolvedType ? "message" : field.type;
  if (t === "message" || t === "string" || t === "bytes") return wt === 2;
  if (field.repeated && wt === 2) return true;
  if (VARINT_TYPES.has(t) || field.resolvedType instanceof protobuf.Enum) return wt === 0;
  if (FIXED64_TYPES.has(t)) return wt === 1;
  if (FIXED32_TYPES.has(t)) return wt === 5;
  return false;
}

export function walkWire(buf, type, { keepTree = false } = {}) {
  const out = { errors: [], unknown: [], tree: null };
  out.tree = walkMessage(buf, 0, buf.length, type, type.name, out, keepTree, 0);
  return out;
}

function walkMessage(buf, start, end, type, where, out, keepTree, depth) {
  const fields = [];
  let pos = start;
  if (depth > 100) {
    out.errors.push(`${where}: nesting deeper than 100`);
    return fields;
  }
  while (pos < end) {
    const tagStart = pos;
    const tag = readVarint(buf, pos, end);
    if (tag.error) {
      out.errors.push(`${where} at byte ${pos}: ${tag.error} (tag)`);
      return fields;
    }
    pos = tag.pos;
    const num = Number(tag.value >> 3n);
    const wt = Number(tag.value & 7n);
    if (num === 0 || tag.value >> 3n > 0x1fffffffn) {
      out.errors.push(`${where} at byte ${tagStart}: invalid field number ${tag.value >> 3n}`);
      return fields;
    }
    const field = type ? type.fieldsById[num] : undefined;
    const label = field ? `${where}.${field.name}` : `${where}.#${num}`;
    const node = { num, wt, tagStart, valueStart: pos, end: 0, field: field || null };
    if (wt === 0) {
      const v = readVarint(buf, pos, end);
      if (v.error) {
        out.errors.push(`${label} at byte ${pos}: ${v.error}`);
        return fields;
      }
      node.value = v.value;
      pos = v.pos;
    } else if (wt === 1 || wt === 5) {
      const n = wt === 1 ? 8 : 4;
      if (pos + n > end) {
        out.errors.push(`${label} at byte ${pos}: truncated fixed${n * 8}`);
        return fields;
      }
      node.value = wt === 1 ? buf.readBigUInt64LE(pos) : BigInt(buf.readUInt32LE(pos));
      pos += n;
    } else if (wt === 2) {
      const len = readVarint(buf, pos, end);
      if (len.error) {
        out.errors.push(`${label} at byte ${pos}: ${len.error} (length)`);
        return fields;
      }
      if (len.value > BigInt(end - len.pos)) {
        out.errors.push(`${label} at byte ${pos}: length ${len.value} past the end of its message (${end - len.pos} bytes left)`);
        return fields;
      }
      node.lenStart = pos;
      node.valueStart = len.pos;
      pos = len.pos + Number(len.value);
      node.len = Number(len.value);
    } else if (wt === 3) {
      // A group (no proto3 field is one): skipped up to its end-group tag.
      const skipped = skipGroup(buf, pos, end, num);
      if (skipped.error) {
        out.errors.push(`${label} at byte ${pos}: ${skipped.error}`);
        return fields;
      }
      pos = skipped.pos;
    } else {
      out.errors.push(`${label} at byte ${tagStart}: invalid wire type ${wt}`);
      return fields;
    }
    node.end = pos;
    if (!field) {
      out.unknown.push({ path: label, number: num, wireType: wt });
    } else if (!acceptsWireType(field, wt)) {
      out.errors.push(`${label} at byte ${tagStart}: wire type ${wt} does not fit a field of type ${field.type}${field.repeated ? " (repeated)" : ""}`);
    } else if (wt === 2) {
      checkLengthDelimited(buf, node, field, label, out, keepTree, depth);
    } else if (wt === 0 && field.type === "int32" && (node.value >= 1n << 31n && node.value < (1n << 64n) - (1n << 31n))) {
      out.errors.push(`${label} at byte ${tagStart}: varint ${node.value} out of the int32 range`);
    }
    if (keepTree) fields.push(node);
  }
  return fields;
}

function checkLengthDelimited(buf, node, field, label, out, keepTree, depth) {
  const s = node.valueStart;
  const e = node.end;
  if (field.resolvedType instanceof protobuf.Type) {
    node.children = walkMessage(buf, s, e, field.resolvedType, label, out, keepTree, depth + 1);
  } else if (field.type === "string") {
    try {
      utf8.decode(buf.subarray(s, e));
    } catch {
      out.errors.push(`${label} at byte ${node.tagStart}: invalid UTF-8 in a string`);
    }
  } else if (field.type !== "bytes") {
    // A packed run of numbers.
    node.packed = [];
    let p = s;
    const width = FIXED64_TYPES.has(field.type) ? 8 : FIXED32_TYPES.has(field.type) ? 4 : 0;
    while (p < e) {
      if (width) {
        if (p + width > e) {
          out.errors.push(`${label} at byte ${p}: packed fixed${width * 8} run not a multiple of ${width} bytes`);
          return;
        }
        node.packed.push({ start: p, end: p + width, value: width === 8 ? buf.readBigUInt64LE(p) : BigInt(buf.readUInt32LE(p)) });
        p += width;
      } else {
        const v = readVarint(buf, p, e);
        if (v.error) {
          out.errors.push(`${label} at byte ${p}: ${v.error} in a packed run`);
          return;
        }
        node.packed.push({ start: p, end: v.pos, value: v.value });
        p = v.pos;
      }
    }
  }
}

function skipGroup(buf, pos, end, num) {
  for (let depth = 0; depth < 100; ) {
    const tag = readVarint(buf, pos, end);
    if (tag.error) return tag;
    pos = tag.pos;
    const wt = Number(tag.value & 7n);
    if (wt === 4) {
      if (Number(tag.value >> 3n) !== num) return { error: "end-group tag of another group" };
      return { pos };
    }
    if (wt === 0) {
      const v = readVarint(buf, pos, end);
      if (v.error) return v;
      pos = v.pos;
    } else if (wt === 1 || wt === 5) {
      pos += wt === 1 ? 8 : 4;
    } else if (wt === 2) {
      const len = readVarint(buf, pos, end);
      if (len.error) return len;
      pos = len.pos + Number(len.value);
    } else if (wt === 3) {
      const inner = skipGroup(buf, pos, end, Number(tag.value >> 3n));
      if (inner.error) return inner;
      pos = inner.pos;
    } else {
      return { error: `invalid wire type ${wt} in a group` };
    }
    if (pos > end) return { error: "group past the end of its message" };
  }
  return { error: "groups nested too deeply" };
}

// ---------------------------------------------------------------------------
// OTLP/JSON -> an object for Type.fromObject. Keys: lowerCamelCase or the
// proto's snake_case names; ids in hex; 64-bit integers as strings or numbers.
// strict: unknown keys, wrong value kinds and two members of a oneof are errors.

const snakeToCamel = (s) => s.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

export function jsonToObject(type, obj, where, strict) {
  const at = where || type.name;
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    throw new OracleError(`${at}: expected an object for ${type.name}`);
  }
  const out = {};
  const oneofSeen = {};
  for (const [key, value] of Object.entries(obj)) {
    const field = type.fields[key] || type.fields[snakeToCamel(key)];
    if (!field) {
      if (strict) throw new OracleError(`${at}: unknown field "${key}" in ${type.name}`);
      continue;
    }
    if (value === null) continue;
    if (field.partOf) {
      if (oneofSeen[field.partOf.name]) {
        throw new OracleError(`${at}: two members of oneof ${field.partOf.name} ("${oneofSeen[field.partOf.name]}" and "${key}")`);
      }
      oneofSeen[field.partOf.name] = key;
    }
    const here = `${at}.${field.name}`;
    if (field.repeated) {
      if (!Array.isArray(value)) throw new OracleError(`${here}: expected an array`);
      out[field.name] = value.map((v, k) => jsonValue(field, v, `${here}[${k}]`, strict));
    } else {
      out[field.name] = jsonValue(field, value, here, strict);
    }
  }
  return out;
}

function jsonValue(field, v, where, strict) {
  if (field.resolvedType instanceof protobuf.Type) return jsonToObject(field.resolvedType, v, where, strict);
  const t = field.type;
  if (t === "bytes") {
    if (typeof v !== "string") throw new OracleError(`${where}: expected a string of bytes`);
    if (isHexField(field)) {
      if (!/^([0-9a-fA-F]{2})*$/.test(v)) throw new OracleError(`${where}: not a hex string: "${v}"`);
      return Buffer.from(v, "hex");
    }
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(v)) throw new OracleError(`${where}: not base64: "${v}"`);
    return Buffer.from(v.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  }
  if (t === "string") {
    if (typeof v !== "string") throw new OracleError(`${where}: expected a string`);
    return v;
  }
  if (t === "bool") {
    if (typeof v !== "boolean") throw new OracleError(`${where}: expected true or false`);
    return v;
  }
  if (t === "double" || t === "float") {
    if (typeof v === "number") return v;
    if (v === "NaN") return NaN;
    if (v === "Infinity") return Infinity;
    if (v === "-Infinity") return -Infinity;
    if (typeof v === "string" && /^-?[0-9.eE+-]+$/.test(v) && !Number.isNaN(Number(v))) return Number(v);
    throw new OracleError(`${where}: expected a number`);
  }
  // Integers: a JSON number (exact) or a decimal string.
  let text;
  if (typeof v === "number") {
    if (!Number.isInteger(v)) throw new OracleError(`${where}: not an integer: ${v}`);
    if (!Number.isSafeInteger(v) && LONG_TYPES.has(t)) {
      throw new OracleError(`${where}: ${v} is a JSON number past 2^53 (64-bit integers must be strings)`);
    }
    text = BigInt(v).toString();
  } else if (typeof v === "string" && /^-?[0-9]+$/.test(v)) {
    text = BigInt(v).toString();
  } else {
    throw new OracleError(`${where}: expected an integer, found ${JSON.stringify(v)}`);
  }
  const big = BigInt(text);
  const unsigned = UNSIGNED.has(t);
  const bits = LONG_TYPES.has(t) ? 64n : 32n;
  const lo = unsigned ? 0n : -(1n << (bits - 1n));
  const hi = unsigned ? (1n << bits) - 1n : (1n << (bits - 1n)) - 1n;
  if (big < lo || big > hi) throw new OracleError(`${where}: ${text} out of the range of ${t}`);
  if (LONG_TYPES.has(t)) return Long.fromString(text, unsigned);
  return Number(big);
}

// ---------------------------------------------------------------------------
// A decoded message -> OTLP/JSON: proto3 JSON (lowerCamelCase, scalars at their
// default value left out except in a oneof, 64-bit integers as decimal strings,
// bytes in base64) with trace, span and profile ids in hex.

export function messageToJson(type, msg) {
  const out = {};
  for (const field of type.fieldsArray.slice().sort((a, b) => a.id - b.id)) {
    const v = msg[field.name];
    if (v === undefined || v === null) continue;
    if (field.repeated) {
      if (v.length) out[field.name] = Array.from(v, (x) => scalarToJson(field, x));
      continue;
    }
    if (field.partOf) {
      if (msg[field.partOf.name] !== field.name) continue;
      out[field.name] = scalarToJson(field, v);
      continue;
    }
    if (!(field.resolvedType instanceof protobuf.Type) && isDefault(field, v)) continue;
    if (field.resolvedType instanceof protobuf.Type && !Object.prototype.hasOwnProperty.call(msg, field.name)) continue;
    out[field.name] = scalarToJson(field, v);
  }
  return out;
}

function isDefault(field, v) {
  if (LONG_TYPES.has(field.type)) return Long.fromValue(v).isZero();
  if (field.type === "bytes") return v.length === 0;
  if (field.type === "double" || field.type === "float") return v === 0 && 1 / v > 0;
  return v === 0 || v === "" || v === false;
}

function scalarToJson(field, v) {
  if (field.resolvedType instanceof protobuf.Type) return messageToJson(field.resolvedType, v);
  const t = field.type;
  if (LONG_TYPES.has(t)) {
    const l = typeof v === "number" ? Long.fromNumber(v, UNSIGNED.has(t)) : Long.fromValue(v);
    return Long.fromBits(l.low, l.high, UNSIGNED.has(t)).toString();
  }
  if (t === "bytes") return isHexField(field) ? Buffer.from(v).toString("hex") : Buffer.from(v).toString("base64");
  if (t === "double" || t === "float") {
    if (Number.isNaN(v)) return "NaN";
    if (v === Infinity) return "Infinity";
    if (v === -Infinity) return "-Infinity";
    return v;
  }
  return v;
}

export const toJson = (msg) => messageToJson(ProfilesData, msg);

// ---------------------------------------------------------------------------
// The index checks of the dictionary, on a message in its OTLP/JSON form.
// Errors: an index outside its table (or negative), values and timestamps of
// different lengths, a sample with neither. Warnings: an entry 0 that is not
// the zero value, or absent while referenced.

const TABLES = {
  mapping: "mappingTable", location: "locationTable", function: "functionTable", link: "linkTable",
  string: "stringTable", attribute: "attributeTable", stack: "stackTable",
};

export function checkIndices(data) {
  const d = data.dictionary || {};
  const errors = [];
  const warnings = [];
  const size = (t) => (d[TABLES[t]] || []).length;
  const ref = (t, i, where) => {
    if (i === undefined) i = 0;
    if (i < 0) errors.push(`${where}: negative index ${i} into ${TABLES[t]}`);
    else if (i >= size(t) && !(i === 0 && size(t) === 0)) {
      errors.push(`${where}: index ${i} past the end of ${TABLES[t]} (${size(t)} entries)`);
    }
  };
  for (const t of Object.keys(TABLES)) {
    const table = d[TABLES[t]] || [];
    if (table.length === 0) warnings.push(`${TABLES[t]} is empty (entry 0 must be present)`);
    else if (t === "string" ? table[0] !== "" : Object.keys(table[0]).length !== 0 && !zeroLink(t, table[0])) {
      warnings.push(`${TABLES[t]}[0] is not the zero value`);
    }
  }
  const anyValue = (v, where) => {
    if (!v) return;
    if (v.stringValueStrindex !== undefined) ref("string", v.stringValueStrindex, `${where}.stringValueStrindex`);
    (v.arrayValue?.values || []).forEach((x, k) => anyValue(x, `${where}.arrayValue.values[${k}]`));
    (v.kvlistValue?.values || []).forEach((x, k) => keyValue(x, `${where}.kvlistValue.values[${k}]`));
  };
  const keyValue = (kv, where) => {
    if (kv.keyStrindex !== undefined) ref("string", kv.keyStrindex, `${where}.keyStrindex`);
    anyValue(kv.value, `${where}.value`);
  };
  const attrs = (list, where) => (list || []).forEach((i, k) => ref("attribute", i, `${where}[${k}]`));
  (d.mappingTable || []).forEach((m, k) => {
    ref("string", m.filenameStrindex, `mappingTable[${k}].filenameStrindex`);
    attrs(m.attributeIndices, `mappingTable[${k}].attributeIndices`);
  });
  (d.locationTable || []).forEach((l, k) => {
    ref("mapping", l.mappingIndex, `locationTable[${k}].mappingIndex`);
    attrs(l.attributeIndices, `locationTable[${k}].attributeIndices`);
    (l.lines || []).forEach((ln, j) => ref("function", ln.functionIndex, `locationTable[${k}].lines[${j}].functionIndex`));
  });
  (d.functionTable || []).forEach((f, k) => {
    for (const s of ["nameStrindex", "systemNameStrindex", "filenameStrindex"]) ref("string", f[s], `functionTable[${k}].${s}`);
  });
  (d.attributeTable || []).forEach((a, k) => {
    ref("string", a.keyStrindex, `attributeTable[${k}].keyStrindex`);
    ref("string", a.unitStrindex, `attributeTable[${k}].unitStrindex`);
    anyValue(a.value, `attributeTable[${k}].value`);
  });
  (d.stackTable || []).forEach((s, k) => {
    (s.locationIndices || []).forEach((i, j) => ref("location", i, `stackTable[${k}].locationIndices[${j}]`));
  });
  (data.resourceProfiles || []).forEach((rp, r) => {
    (rp.resource?.attributes || []).forEach((kv, k) => keyValue(kv, `resourceProfiles[${r}].resource.attributes[${k}]`));
    (rp.scopeProfiles || []).forEach((sp, s) => {
      (sp.scope?.attributes || []).forEach((kv, k) => keyValue(kv, `resourceProfiles[${r}].scopeProfiles[${s}].scope.attributes[${k}]`));
      (sp.profiles || []).forEach((p, q) => {
        const at = `resourceProfiles[${r}].scopeProfiles[${s}].profiles[${q}]`;
        for (const vt of ["sampleType", "periodType"]) {
          ref("string", p[vt]?.typeStrindex, `${at}.${vt}.typeStrindex`);
          ref("string", p[vt]?.unitStrindex, `${at}.${vt}.unitStrindex`);
        }
        attrs(p.attributeIndices, `${at}.attributeIndices`);
        (p.samples || []).forEach((x, k) => {
          const w = `${at}.samples[${k}]`;
          ref("stack", x.stackIndex, `${w}.stackIndex`);
          ref("link", x.linkIndex, `${w}.linkIndex`);
          attrs(x.attributeIndices, `${w}.attributeIndices`);
          const nv = (x.values || []).length;
          const nt = (x.timestampsUnixNano || []).length;
          if (nv === 0 && nt === 0) errors.push(`${w}: neither values nor timestamps`);
          else if (nv && nt && nv !== nt) errors.push(`${w}: ${nv} values but ${nt} timestamps`);
        });
      });
    });
  });
  return { errors, warnings };
}

const zeroLink = (t, link) =>
  t === "link" && /^0*$/.test(link.traceId || "") && /^0*$/.test(link.spanId || "") &&
  Object.keys(link).every((k) => k === "traceId" || k === "spanId");

// ---------------------------------------------------------------------------
// The canonical form: every index resolved into its value, so that two
// messages that differ only in the order (or duplication) of dictionary
// entries give equal dumps. See README.md for the rules.

export function canonical(data, { merge = false, sort = false, implicitValues = false } = {}) {
  const d = data.dictionary || {};
  const at = (t, i, where) => {
    const table = d[TABLES[t]] || [];
    const k = i || 0;
    if (k < 0 || k >= table.length) {
      if (k === 0 && table.length === 0) return t === "string" ? "" : {};
      throw new OracleError(`${where}: index ${k} not in ${TABLES[t]} (${table.length} entries)`);
    }
    return table[k];
  };
  const str = (i, where) => at("string", i, where);
  const anyValue = (v, where) => {
    if (!v) return null;
    if (v.stringValueStrindex !== undefined) return { stringValue: str(v.stringValueStrindex, where) };
    if (v.arrayValue) return { arrayValue: (v.arrayValue.values || []).map((x) => anyValue(x, where)) };
    if (v.kvlistValue) return { kvlistValue: keyValues(v.kvlistValue.values, where) };
    return { ...v };
  };
  const keyValues = (list, where) =>
    sortByKey((list || []).map((kv) => ({
      key: kv.keyStrindex !== undefined ? str(kv.keyStrindex, where) : kv.key || "",
      value: anyValue(kv.value, where),
    })));
  const attributes = (indices, where) =>
    sortByKey((indices || []).map((i) => {
      const a = at("attribute", i, where);
      const out = { key: str(a.keyStrindex, where), value: anyValue(a.value, where) };
      const unit = str(a.unitStrindex, where);
      if (unit !== "") out.unit = unit;
      return out;
    }));
  const valueType = (vt, where) => ({ type: str(vt?.typeStrindex, where), unit: str(vt?.unitStrindex, where) });
  const mapping = (i, where) => {
    const m = at("mapping", i, where);
    return dropEmpty({
      memoryStart: m.memoryStart, memoryLimit: m.memoryLimit, fileOffset: m.fileOffset,
      filename: str(m.filenameStrindex, where), attributes: attributes(m.attributeIndices, where),
    });
  };
  const func = (i, where) => {
    const f = at("function", i, where);
    return dropEmpty({
      name: str(f.nameStrindex, where), systemName: str(f.systemNameStrindex, where),
      filename: str(f.filenameStrindex, where), startLine: f.startLine,
    });
  };
  const location = (i, where) => {
    const l = at("location", i, where);
    return dropEmpty({
      mapping: mapping(l.mappingIndex, where), address: l.address,
      lines: (l.lines || []).map((ln) => dropEmpty({ function: func(ln.functionIndex, where), line: ln.line, column: ln.column })),
      attributes: attributes(l.attributeIndices, where),
    });
  };
  const link = (i, where) => {
    const l = at("link", i, where);
    const trace = l.traceId || "";
    const span = l.spanId || "";
    if (/^0*$/.test(trace) && /^0*$/.test(span)) return null;
    return { traceId: trace.toLowerCase(), spanId: span.toLowerCase() };
  };
  const sample = (x, where) => {
    const values = x.values || [];
    const times = x.timestampsUnixNano || [];
    return {
      stack: (at("stack", x.stackIndex, where).locationIndices || []).map((i) => location(i, where)),
      attributes: attributes(x.attributeIndices, where),
      link: link(x.linkIndex, where),
      values: implicitValues && values.length === 0 ? times.map(() => "1") : values,
      timestampsUnixNano: times,
    };
  };
  const profile = (p, where) => {
    let samples = (p.samples || []).map((x, k) => sample(x, `${where}.samples[${k}]`));
    if (merge) samples = mergeSamples(samples);
    if (sort) samples = sortSamples(samples);
    return dropEmpty({
      sampleType: valueType(p.sampleType, where), periodType: valueType(p.periodType, where),
      period: p.period, timeUnixNano: p.timeUnixNano, durationNano: p.durationNano,
      profileId: /^0*$/.test(p.profileId || "") ? undefined : p.profileId.toLowerCase(),
      droppedAttributesCount: p.droppedAttributesCount, originalPayloadFormat: p.originalPayloadFormat,
      originalPayload: p.originalPayload, attributes: attributes(p.attributeIndices, where),
    }, {}, samples);
  };
  return {
    resourceProfiles: (data.resourceProfiles || []).map((rp, r) => dropEmpty({
      resource: dropEmpty({
        attributes: keyValues(rp.resource?.attributes, `resourceProfiles[${r}].resource`),
        droppedAttributesCount: rp.resource?.droppedAttributesCount,
        entityRefs: rp.resource?.entityRefs,
      }),
      schemaUrl: rp.schemaUrl,
      scopeProfiles: (rp.scopeProfiles || []).map((sp, s) => dropEmpty({
        scope: dropEmpty({
          name: sp.scope?.name, version: sp.scope?.version,
          attributes: keyValues(sp.scope?.attributes, `resourceProfiles[${r}].scopeProfiles[${s}].scope`),
          droppedAttributesCount: sp.scope?.droppedAttributesCount,
        }),
        schemaUrl: sp.schemaUrl,
        profiles: (sp.profiles || []).map((p, q) => profile(p, `resourceProfiles[${r}].scopeProfiles[${s}].profiles[${q}]`)),
      }, { keep: ["resource", "scope", "profiles", "scopeProfiles"] })),
    }, { keep: ["resource", "scopeProfiles"] })),
  };
}

// Leaves out undefined, "", "0", 0 and empty arrays (proto3 defaults), except
// the names in keep; appends extra's entries.
function dropEmpty(obj, { keep = [] } = {}, extra) {
  const out = {};
  for (const [k, v] of Object.entries(obj)) {
    if (!keep.includes(k) && (v === undefined || v === null || v === "" || v === "0" || v === 0 ||
      (Array.isArray(v) && v.length === 0))) continue;
    out[k] = v;
  }
  return extra ? { ...out, samples: extra } : out;
}

const compareText = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const sortByKey = (list) =>
  list.map((x) => [x.key + "\u0000" + JSON.stringify(x), x]).sort((a, b) => compareText(a[0], b[0])).map((x) => x[1]);

function sampleIdentity(x) {
  return JSON.stringify([x.stack, x.attributes, x.link]);
}

// Samples of equal identity (stack, attributes, link) combined, their
// observations appended in file order; the first occurrence keeps its place.
function mergeSamples(samples) {
  const byId = new Map();
  const out = [];
  for (const x of samples) {
    const id = sampleIdentity(x);
    const prev = byId.get(id);
    if (!prev) {
      const copy = { ...x, values: [...x.values], timestampsUnixNano: [...x.timestampsUnixNano] };
      byId.set(id, copy);
      out.push(copy);
    } else {
      prev.values.push(...x.values);
      prev.timestampsUnixNano.push(...x.timestampsUnixNano);
    }
  }
  return out;
}

// Samples in the order of their identity; observations in the order of
// (timestamp, value).
function sortSamples(samples) {
  return samples.map((x) => {
    const n = Math.max(x.values.length, x.timestampsUnixNano.length);
    const obs = Array.from({ length: n }, (_, k) => [x.timestampsUnixNano[k], x.values[k]]);
    const key = (v) => (v === undefined ? "" : (BigInt(v) + (1n << 64n)).toString().padStart(21, "0"));
    obs.sort((a, b) => compareText(key(a[0]), key(b[0])) || compareText(key(a[1]), key(b[1])));
    return {
      ...x,
      values: x.values.length ? obs.map((o) => o[1]) : [],
      timestampsUnixNano: x.timestampsUnixNano.length ? obs.map((o) => o[0]) : [],
    };
  }).map((x) => [sampleIdentity(x), x]).sort((a, b) => compareText(a[0], b[0])).map((x) => x[1]);
}

// Canonical JSON text: keys in the order given above, two-space indent.
export const stringify = (x, pretty) => JSON.stringify(x, null, pretty ? 2 : undefined);
