// The wire layouts of the older drafts of the OTLP profiles signal, written
// here from reading opentelemetry-proto's history (tags v1.3.2, v1.5.0,
// v1.7.0, v1.8.0, v1.9.0; no upstream file copied), for the `drafts` command:
// which drafts' layouts a file parses under without a wire error or an
// unknown field. Only numbers and wire types matter here; names are ours.
// Enums are int32 (the same wire). Messages of common/ and resource/ are the
// main schema's.

import protobuf from "protobufjs";
import { root as current } from "./otlp-lib.mjs";

const C = "opentelemetry.proto.common.v1.";
const R = "opentelemetry.proto.resource.v1.";

// A message from [name, type, id, "repeated"?] rows.
const msg = (rows) => ({
  fields: Object.fromEntries(rows.map(([name, type, id, rule]) => [name, rule ? { type, id, rule } : { type, id }])),
});
const rep = "repeated";

const envelope = (dictionary) => ({
  ProfilesData: msg([["resourceProfiles", "ResourceProfiles", 1, rep], ...(dictionary ? [["dictionary", "ProfilesDictionary", 2]] : [])]),
  ResourceProfiles: msg([["resource", R + "Resource", 1], ["scopeProfiles", "ScopeProfiles", 2, rep], ["schemaUrl", "string", 3]]),
  ScopeProfiles: msg([["scope", C + "InstrumentationScope", 1], ["profiles", "Profile", 2, rep], ["schemaUrl", "string", 3]]),
});
const line = msg([["functionIndex", "int32", 1], ["line", "int64", 2], ["column", "int64", 3]]);
const func = msg([["nameStrindex", "int32", 1], ["systemNameStrindex", "int32", 2], ["filenameStrindex", "int32", 3], ["startLine", "int64", 4]]);
const link = msg([["traceId", "bytes", 1], ["spanId", "bytes", 2]]);
const valueType3 = msg([["typeStrindex", "int32", 1], ["unitStrindex", "int32", 2], ["aggregationTemporality", "int32", 3]]);
const attributeUnit = msg([["attributeKeyStrindex", "int32", 1], ["unitStrindex", "int32", 2]]);
const mappingFlags = msg([
  ["memoryStart", "uint64", 1], ["memoryLimit", "uint64", 2], ["fileOffset", "uint64", 3], ["filenameStrindex", "int32", 4],
  ["attributeIndices", "int32", 5, rep], ["hasFunctions", "bool", 6], ["hasFilenames", "bool", 7], ["hasLineNumbers", "bool", 8],
  ["hasInlineFrames", "bool", 9],
]);
const locationFolded = msg([["mappingIndex", "int32", 1], ["address", "uint64", 2], ["line", "Line", 3, rep], ["isFolded", "bool", 4], ["attributeIndices", "int32", 5, rep]]);
const sampleRanges = msg([
  ["locationsStartIndex", "int32", 1], ["locationsLength", "int32", 2], ["value", "int64", 3, rep], ["attributeIndices", "int32", 4, rep],
  ["linkIndex", "int32", 5], ["timestampsUnixNano", "uint64", 6, rep],
]);
const sampleV18 = msg([
  ["stackIndex", "int32", 1], ["values", "int64", 2, rep], ["attributeIndices", "int32", 3, rep], ["linkIndex", "int32", 4],
  ["timestampsUnixNano", "fixed64", 5, rep],
]);

// The current layout's messages of the profiles package, as JSON, to start from.
const currentMessages = current.lookup("opentelemetry.proto.profiles.v1development").toJSON().nested;

const v1_9 = { ...currentMessages, Sample: sampleV18 };

const v1_8 = {
  ...v1_9,
  Profile: msg([
    ["sampleType", "ValueType", 1], ["sample", "Sample", 2, rep], ["timeUnixNano", "fixed64", 3], ["durationNano", "uint64", 4],
    ["periodType", "ValueType", 5], ["period", "int64", 6], ["commentStrindices", "int32", 7, rep], ["profileId", "bytes", 8],
    ["droppedAttributesCount", "uint32", 9], ["originalPayloadFormat", "string", 10], ["originalPayload", "bytes", 11],
    ["attributeIndices", "int32", 12, rep],
  ]),
  ValueType: valueType3,
};

const v1_7 = {
  ...envelope(true),
  ProfilesDictionary: msg([
    ["mappingTable", "Mapping", 1, rep], ["locationTable", "Location", 2, rep], ["functionTable", "Function", 3, rep],
    ["linkTable", "Link", 4, rep], ["stringTable", "string", 5, rep], ["attributeTable", C + "KeyValue", 6, rep],
    ["attributeUnits", "AttributeUnit", 7, rep],
  ]),
  Profile: msg([
    ["sampleType", "ValueType", 1, rep], ["sample", "Sample", 2, rep], ["locationIndices", "int32", 3, rep], ["timeNanos", "int64", 4],
    ["durationNanos", "int64", 5], ["periodType", "ValueType", 6], ["period", "int64", 7], ["commentStrindices", "int32", 8, rep],
    ["defaultSampleTypeIndex", "int32", 9], ["profileId", "bytes", 10], ["droppedAttributesCount", "uint32", 11],
    ["originalPayloadFormat", "string", 12], ["originalPayload", "bytes", 13], ["attributeIndices", "int32", 14, rep],
  ]),
  AttributeUnit: attributeUnit, Link: link, ValueType: valueType3, Sample: sampleRanges, Mapping: mappingFlags,
  Location: locationFolded, Line: line, Function: func,
};

const v1_5 = {
  ...envelope(false),
  Profile: msg([
    ["sampleType", "ValueType", 1, rep], ["sample", "Sample", 2, rep], ["mappingTable", "Mapping", 3, rep],
    ["locationTable", "Location", 4, rep], ["locationIndices", "int32", 5, rep], ["functionTable", "Function", 6, rep],
    ["attributeTable", C + "KeyValue", 7, rep], ["attributeUnits", "AttributeUnit", 8, rep], ["linkTable", "Link", 9, rep],
    ["stringTable", "string", 10, rep], ["timeNanos", "int64", 11], ["durationNanos", "int64", 12], ["periodType", "ValueType", 13],
    ["period", "int64", 14], ["commentStrindices", "int32", 15, rep], ["defaultSampleTypeStrindex", "int32", 16],
    ["profileId", "bytes", 17], ["droppedAttributesCount", "uint32", 19], ["originalPayloadFormat", "string", 20],
    ["originalPayload", "bytes", 21], ["attributeIndices", "int32", 22, rep],
  ]),
  AttributeUnit: attributeUnit, Link: link, ValueType: valueType3, Sample: sampleRanges, Mapping: mappingFlags,
  Location: locationFolded, Line: line, Function: func,
};

// v1.3 (v1experimental): a ProfileContainer around pprofextended's Profile.
const v1_3 = {
  ...envelope(false),
  ScopeProfiles: msg([["scope", C + "InstrumentationScope", 1], ["profiles", "ProfileContainer", 2, rep], ["schemaUrl", "string", 3]]),
  ProfileContainer: msg([
    ["profileId", "bytes", 1], ["startTimeUnixNano", "fixed64", 2], ["endTimeUnixNano", "fixed64", 3],
    ["attributes", C + "KeyValue", 4, rep], ["droppedAttributesCount", "uint32", 5], ["originalPayloadFormat", "string", 6],
    ["originalPayload", "bytes", 7], ["profile", "Profile", 8],
  ]),
  Profile: msg([
    ["sampleType", "ValueType", 1, rep], ["sample", "Sample", 2, rep], ["mapping", "Mapping", 3, rep], ["location", "Location", 4, rep],
    ["locationIndices", "int64", 15, rep], ["function", "Function", 5, rep], ["attributeTable", C + "KeyValue", 16, rep],
    ["attributeUnits", "AttributeUnit", 17, rep], ["linkTable", "Link", 18, rep], ["stringTable", "string", 6, rep],
    ["dropFrames", "int64", 7], ["keepFrames", "int64", 8], ["timeNanos", "int64", 9], ["durationNanos", "int64", 10],
    ["periodType", "ValueType", 11], ["period", "int64", 12], ["comment", "int64", 13, rep], ["defaultSampleType", "int64", 14],
  ]),
  AttributeUnit: msg([["attributeKey", "int64", 1], ["unit", "int64", 2]]),
  Link: link,
  ValueType: msg([["type", "int64", 1], ["unit", "int64", 2], ["aggregationTemporality", "int32", 3]]),
  Sample: msg([
    ["locationIndex", "uint64", 1, rep], ["locationsStartIndex", "uint64", 7], ["locationsLength", "uint64", 8],
    ["stacktraceIdIndex", "uint32", 9], ["value", "int64", 2, rep], ["label", "Label", 3, rep], ["attributes", "uint64", 10, rep],
    ["link", "uint64", 12], ["timestampsUnixNano", "uint64", 13, rep],
  ]),
  Label: msg([["key", "int64", 1], ["str", "int64", 2], ["num", "int64", 3], ["numUnit", "int64", 4]]),
  Mapping: msg([
    ["id", "uint64", 1], ["memoryStart", "uint64", 2], ["memoryLimit", "uint64", 3], ["fileOffset", "uint64", 4],
    ["filename", "int64", 5], ["buildId", "int64", 6], ["buildIdKind", "int32", 11], ["attributes", "uint64", 12, rep],
    ["hasFunctions", "bool", 7], ["hasFilenames", "bool", 8], ["hasLineNumbers", "bool", 9], ["hasInlineFrames", "bool", 10],
  ]),
  Location: msg([
    ["id", "uint64", 1], ["mappingIndex", "uint64", 2], ["address", "uint64", 3], ["line", "Line", 4, rep], ["isFolded", "bool", 5],
    ["typeIndex", "uint32", 6], ["attributes", "uint64", 7, rep],
  ]),
  Line: msg([["functionIndex", "uint64", 1], ["line", "int64", 2], ["column", "int64", 3]]),
  Function: msg([["id", "uint64", 1], ["name", "int64", 2], ["systemName", "int64", 3], ["filename", "int64", 4], ["startLine", "int64", 5]]),
};

export const DRAFTS = { "v1.3": v1_3, "v1.5": v1_5, "v1.7": v1_7, "v1.8": v1_8, "v1.9": v1_9 };

// A Root with the common and resource messages of the main schema and one
// namespace per draft; returns { draft name: its ProfilesData type }, the
// current layout last (as "v1.10").
export function draftTypes() {
  const json = current.toJSON();
  json.nested.drafts = {
    nested: Object.fromEntries(Object.entries(DRAFTS).map(([name, nested]) => [
      name.replace(".", "_"), { edition: "proto3", nested: JSON.parse(JSON.stringify(nested)) },
    ])),
  };
  const r = protobuf.Root.fromJSON(json);
  r.resolveAll();
  const out = {};
  for (const name of Object.keys(DRAFTS)) out[name] = r.lookupType(`drafts.${name.replace(".", "_")}.ProfilesData`);
  out["v1.10"] = r.lookupType("opentelemetry.proto.profiles.v1development.ProfilesData");
  return out;
}
