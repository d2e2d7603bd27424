//! OTLP/JSON: the JSON encoding of the OTLP messages (the protobuf JSON
//! mapping with OTLP's exceptions), read and written.
//!
//! - Keys are lowerCamelCase when written; lowerCamelCase and snake_case are
//!   read (the names compared without underscores and case).
//! - 64-bit integers are written as strings and read as strings or numbers;
//!   32-bit integers are written as numbers and read as either.
//! - Trace, span and profile ids are hex (OTLP's exception to the protobuf
//!   mapping, which has base64); other bytes (`original_payload`,
//!   `bytesValue`) base64. An id that is not hex of its length is read as
//!   base64 (a file written by a plain protobuf JSON encoder).
//! - Fields with their default value are left out when written; `null` reads
//!   as the default.
//! - A file may hold several messages, one after the other (the collector's
//!   file exporter writes one per line).
//!
//! The parser reads into the messages of `proto.rs`, charging every vector
//! and string to the read's budget first, as the binary decoder does (it
//! shares its [`Decoder`]). JSON of an older draft of the signal is recognised
//! by names the current messages do not have (`sample` for `samples`,
//! `aggregationTemporality`, `locationsStartIndex`, ...) and refused naming it.

use super::decode::{Decoder, MAX_NESTING};
use super::proto;
use super::{hex, unhex};
use crate::wire::{Decoded, Failure};

// ---- writing ---------------------------------------------------------------

/// OTLP/JSON text of `m`, on one line.
pub fn write_message(m: &proto::ProfilesData) -> String {
    let mut w = Writer::default();
    w.profiles_data(m);
    w.out
}

/// The JSON text of an `AnyValue` (for attribute values kept as text).
pub fn any_value_text(v: &proto::AnyValue) -> String {
    let mut w = Writer::default();
    w.any_value(v);
    w.out
}

/// Entity references as OTLP/JSON text: an array of EntityRef objects.
pub(crate) fn entity_refs_text(refs: &[proto::EntityRef]) -> String {
    let mut w = Writer::default();
    w.out.push('[');
    for (i, e) in refs.iter().enumerate() {
        if i > 0 {
            w.out.push(',');
        }
        w.entity_ref(e);
    }
    w.out.push(']');
    w.out
}

#[derive(Default)]
struct Writer {
    out: String,
    /// Whether the object being written has a member already.
    first: Vec<bool>,
}

impl Writer {
    fn open(&mut self) {
        self.out.push('{');
        self.first.push(true);
    }

    fn close(&mut self) {
        self.out.push('}');
        self.first.pop();
    }

    fn key(&mut self, key: &str) {
        if let Some(first) = self.first.last_mut() {
            if !*first {
                self.out.push(',');
            }
            *first = false;
        }
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
    }

    fn string(&mut self, key: &str, s: &[u8]) {
        if !s.is_empty() {
            self.key(key);
            crate::json::push_string(&mut self.out, &String::from_utf8_lossy(s));
        }
    }

    fn hex(&mut self, key: &str, b: &[u8]) {
        if !b.is_empty() {
            self.key(key);
            self.out.push('"');
            self.out.push_str(&hex(b));
            self.out.push('"');
        }
    }

    fn base64(&mut self, key: &str, b: &[u8]) {
        if !b.is_empty() {
            self.key(key);
            self.out.push('"');
            crate::json::push_base64(&mut self.out, b);
            self.out.push('"');
        }
    }

    fn int32(&mut self, key: &str, v: i64) {
        if v != 0 {
            self.key(key);
            self.out.push_str(itoa::Buffer::new().format(v));
        }
    }

    fn int64(&mut self, key: &str, v: i64) {
        if v != 0 {
            self.key(key);
            self.quoted(v);
        }
    }

    fn uint64(&mut self, key: &str, v: u64) {
        if v != 0 {
            self.key(key);
            self.out.push('"');
            self.out.push_str(itoa::Buffer::new().format(v));
            self.out.push('"');
        }
    }

    fn quoted(&mut self, v: i64) {
        self.out.push('"');
        self.out.push_str(itoa::Buffer::new().format(v));
        self.out.push('"');
    }

    fn int32s(&mut self, key: &str, v: &[i32]) {
        if !v.is_empty() {
            self.key(key);
            self.out.push('[');
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                self.out.push_str(itoa::Buffer::new().format(*x));
            }
            self.out.push(']');
        }
    }

    fn list<T>(&mut self, key: &str, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        if !items.is_empty() {
            self.key(key);
            self.out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                each(self, x);
            }
            self.out.push(']');
        }
    }

    fn message<T>(&mut self, key: &str, m: &Option<T>, each: impl FnOnce(&mut Self, &T)) {
        if let Some(m) = m {
            self.key(key);
            each(self, m);
        }
    }

    fn profiles_data(&mut self, m: &proto::ProfilesData) {
        self.open();
        self.list(
            "resourceProfiles",
            &m.resource_profiles,
            Self::resource_profiles,
        );
        self.message("dictionary", &m.dictionary, Self::dictionary);
        self.close();
    }

    fn dictionary(&mut self, d: &proto::ProfilesDictionary) {
        self.open();
        self.list("mappingTable", &d.mapping_table, |w, m| {
            w.open();
            w.uint64("memoryStart", m.memory_start);
            w.uint64("memoryLimit", m.memory_limit);
            w.uint64("fileOffset", m.file_offset);
            w.int32("filenameStrindex", m.filename_strindex.into());
            w.int32s("attributeIndices", &m.attribute_indices);
            w.close();
        });
        self.list("locationTable", &d.location_table, |w, l| {
            w.open();
            w.int32("mappingIndex", l.mapping_index.into());
            w.uint64("address", l.address);
            w.list("lines", &l.lines, |w, line| {
                w.open();
                w.int32("functionIndex", line.function_index.into());
                w.int64("line", line.line);
                w.int64("column", line.column);
                w.close();
            });
            w.int32s("attributeIndices", &l.attribute_indices);
            w.close();
        });
        self.list("functionTable", &d.function_table, |w, f| {
            w.open();
            w.int32("nameStrindex", f.name_strindex.into());
            w.int32("systemNameStrindex", f.system_name_strindex.into());
            w.int32("filenameStrindex", f.filename_strindex.into());
            w.int64("startLine", f.start_line);
            w.close();
        });
        self.list("linkTable", &d.link_table, |w, l| {
            w.open();
            w.hex("traceId", &l.trace_id);
            w.hex("spanId", &l.span_id);
            w.close();
        });
        self.list("stringTable", &d.string_table, |w, s| {
            crate::json::push_string(&mut w.out, &String::from_utf8_lossy(s));
        });
        self.list("attributeTable", &d.attribute_table, |w, a| {
            w.open();
            w.int32("keyStrindex", a.key_strindex.into());
            w.message("value", &a.value, Self::any_value);
            w.int32("unitStrindex", a.unit_strindex.into());
            w.close();
        });
        self.list("stackTable", &d.stack_table, |w, s| {
            w.open();
            w.int32s("locationIndices", &s.location_indices);
            w.close();
        });
        self.close();
    }

    fn resource_profiles(&mut self, r: &proto::ResourceProfiles) {
        self.open();
        self.message("resource", &r.resource, |w, res| {
            w.open();
            w.list("attributes", &res.attributes, Self::key_value);
            w.int32(
                "droppedAttributesCount",
                res.dropped_attributes_count.into(),
            );
            w.list("entityRefs", &res.entity_refs, Self::entity_ref);
            w.close();
        });
        self.list("scopeProfiles", &r.scope_profiles, |w, s| {
            w.open();
            w.message("scope", &s.scope, |w, scope| {
                w.open();
                w.string("name", &scope.name);
                w.string("version", &scope.version);
                w.list("attributes", &scope.attributes, Self::key_value);
                w.int32(
                    "droppedAttributesCount",
                    scope.dropped_attributes_count.into(),
                );
                w.close();
            });
            w.list("profiles", &s.profiles, Self::profile);
            w.string("schemaUrl", &s.schema_url);
            w.close();
        });
        self.string("schemaUrl", &r.schema_url);
        self.close();
    }

    fn entity_ref(&mut self, e: &proto::EntityRef) {
        self.open();
        self.string("schemaUrl", &e.schema_url);
        self.string("type", &e.r#type);
        for (key, list) in [
            ("idKeys", &e.id_keys),
            ("descriptionKeys", &e.description_keys),
        ] {
            self.list(key, list, |w, k| {
                crate::json::push_string(&mut w.out, &String::from_utf8_lossy(k));
            });
        }
        self.close();
    }

    fn value_type(&mut self, v: &proto::ValueType) {
        self.open();
        self.int32("typeStrindex", v.type_strindex.into());
        self.int32("unitStrindex", v.unit_strindex.into());
        self.close();
    }

    fn profile(&mut self, p: &proto::Profile) {
        self.open();
        self.message("sampleType", &p.sample_type, Self::value_type);
        self.list("samples", &p.samples, |w, s| {
            w.open();
            w.int32("stackIndex", s.stack_index.into());
            w.int32s("attributeIndices", &s.attribute_indices);
            w.int32("linkIndex", s.link_index.into());
            w.list("values", &s.values, |w, v| w.quoted(*v));
            w.list("timestampsUnixNano", &s.timestamps_unix_nano, |w, t| {
                w.out.push('"');
                w.out.push_str(itoa::Buffer::new().format(*t));
                w.out.push('"');
            });
            w.close();
        });
        self.uint64("timeUnixNano", p.time_unix_nano);
        self.uint64("durationNano", p.duration_nano);
        self.message("periodType", &p.period_type, Self::value_type);
        self.int64("period", p.period);
        self.hex("profileId", &p.profile_id);
        self.int32("droppedAttributesCount", p.dropped_attributes_count.into());
        self.string("originalPayloadFormat", &p.original_payload_format);
        self.base64("originalPayload", &p.original_payload);
        self.int32s("attributeIndices", &p.attribute_indices);
        self.close();
    }

    fn key_value(&mut self, kv: &proto::KeyValue) {
        self.open();
        self.string("key", &kv.key);
        self.message("value", &kv.value, Self::any_value);
        self.int32("keyStrindex", kv.key_strindex.into());
        self.close();
    }

    fn any_value(&mut self, v: &proto::AnyValue) {
        use proto::any_value::Value;
        self.open();
        match &v.value {
            None => {}
            Some(Value::StringValue(s)) => {
                self.key("stringValue");
                crate::json::push_string(&mut self.out, &String::from_utf8_lossy(s));
            }
            Some(Value::BoolValue(b)) => {
                self.key("boolValue");
                self.out.push_str(if *b { "true" } else { "false" });
            }
            Some(Value::IntValue(i)) => {
                self.key("intValue");
                self.quoted(*i);
            }
            Some(Value::DoubleValue(d)) => {
                self.key("doubleValue");
                if d.is_nan() {
                    self.out.push_str("\"NaN\"");
                } else if d.is_infinite() {
                    self.out.push_str(if *d > 0.0 {
                        "\"Infinity\""
                    } else {
                        "\"-Infinity\""
                    });
                } else {
                    self.out.push_str(ryu::Buffer::new().format_finite(*d));
                }
            }
            Some(Value::ArrayValue(a)) => {
                self.key("arrayValue");
                self.open();
                self.list("values", &a.values, Self::any_value);
                self.close();
            }
            Some(Value::KvlistValue(l)) => {
                self.key("kvlistValue");
                self.open();
                self.list("values", &l.values, Self::key_value);
                self.close();
            }
            Some(Value::BytesValue(b)) => {
                self.key("bytesValue");
                self.out.push('"');
                crate::json::push_base64(&mut self.out, b);
                self.out.push('"');
            }
            Some(Value::StringValueStrindex(i)) => {
                self.key("stringValueStrindex");
                self.out.push_str(itoa::Buffer::new().format(*i));
            }
        }
        self.close();
    }
}

// ---- reading ---------------------------------------------------------------

/// Names of older drafts met in JSON (keys the current messages do not have):
/// the draft and where its first key is.
#[derive(Debug, Default)]
pub(crate) struct JsonTraces {
    pub(crate) draft: Option<(&'static str, usize)>,
}

/// The draft a key that the current message `message` does not have belongs
/// to (the key without underscores, lower case).
fn draft_key(message: &str, key: &[u8]) -> Option<&'static str> {
    const V13: &str = "v1.3 (`v1experimental`: a ProfileContainer around a pprofextended Profile)";
    const V17: &str = "v1.7 or older (samples with location ranges)";
    const V18: &str = "v1.8 or older (`sample`, `aggregationTemporality`, `commentStrindices`)";
    const TABLES: &str = "v1.6 or older (lookup tables outside a ProfilesDictionary)";
    let key = std::str::from_utf8(key).ok()?;
    Some(match (message, key) {
        ("ProfilesData", "mappingtable" | "locationtable" | "functiontable" | "stringtable")
        | ("ProfilesData", "attributetable" | "attributeunits" | "linktable") => TABLES,
        ("ProfilesDictionary", "attributeunits") => V17,
        ("Profile", "profile" | "starttimeunixnano" | "endtimeunixnano" | "attributes") => V13,
        ("Profile", "mappingtable" | "locationtable" | "functiontable" | "stringtable")
        | ("Profile", "attributetable" | "attributeunits" | "linktable") => TABLES,
        ("Profile", "locationindices" | "timenanos" | "durationnanos") => V17,
        ("Profile", "defaultsampletypeindex" | "defaultsampletypestrindex") => V17,
        ("Profile", "sample" | "commentstrindices") => V18,
        ("ValueType", "aggregationtemporality") => V18,
        ("Sample", "locationsstartindex" | "locationslength" | "value" | "locationindex") => V17,
        ("Sample", "stacktraceidindex" | "label" | "attributes" | "link") => V17,
        ("Location", "line") => V18,
        ("Location", "isfolded" | "typeindex" | "id") => V17,
        ("Mapping", "hasfunctions" | "hasfilenames" | "haslinenumbers" | "hasinlineframes") => V17,
        ("Mapping", "buildid" | "id" | "buildidkind") => V17,
        ("KeyValueAndUnit", "key") => V17,
        _ => return None,
    })
}

/// Reads the messages of OTLP/JSON text `data` (one or several, one after the
/// other), charging `decoder`'s budget.
pub(crate) fn read_messages(
    data: &[u8],
    decoder: &mut Decoder<'_>,
) -> Decoded<(Vec<proto::ProfilesData>, JsonTraces)> {
    let mut p = Parser {
        data,
        pos: 0,
        dec: decoder,
        traces: JsonTraces::default(),
        depth: 0,
    };
    if p.data.starts_with(b"\xef\xbb\xbf") {
        p.pos = 3;
    }
    let mut out = Vec::new();
    loop {
        p.ws();
        if p.pos >= p.data.len() {
            break;
        }
        let m = p.profiles_data()?;
        p.dec.push(&mut out, m, "JSON")?;
    }
    if out.is_empty() {
        return Err(Failure::Defect(
            0,
            "the JSON text holds no message".to_string(),
        ));
    }
    Ok((out, p.traces))
}

/// An object key with its underscores dropped and in lower case, in a small
/// buffer (keys of the format are short; a longer one is no key of it).
struct Key {
    buf: [u8; 32],
    len: usize,
    too_long: bool,
}

impl Key {
    fn is(&self, name: &str) -> bool {
        !self.too_long && self.buf.get(..self.len) == Some(name.as_bytes())
    }
    fn bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }
}

struct Parser<'a, 'd, 'b> {
    data: &'a [u8],
    pos: usize,
    dec: &'d mut Decoder<'b>,
    traces: JsonTraces,
    depth: usize,
}

impl Parser<'_, '_, '_> {
    fn defect(&self, what: impl Into<String>) -> Failure {
        Failure::Defect(self.pos, what.into())
    }

    fn ws(&mut self) {
        while let Some(&b) = self.data.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.data.get(self.pos).copied()
    }

    fn expect(&mut self, c: u8) -> Decoded<()> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(&format!("'{}'", c as char)))
        }
    }

    fn unexpected(&self, wanted: &str) -> Failure {
        match self.data.get(self.pos) {
            None => self.defect(format!("the JSON text ends where {wanted} was expected")),
            Some(&b) => self.defect(format!(
                "{wanted} expected, found '{}'",
                if b.is_ascii_graphic() { b as char } else { '?' }
            )),
        }
    }

    fn literal(&mut self, word: &str) -> bool {
        self.ws();
        let end = self.pos + word.len();
        if self.data.get(self.pos..end) == Some(word.as_bytes()) {
            self.pos = end;
            true
        } else {
            false
        }
    }

    /// `null` (a default value) next.
    fn null(&mut self) -> bool {
        self.literal("null")
    }

    fn enter(&mut self) -> Decoded<()> {
        if self.depth >= MAX_NESTING * 2 + 16 {
            return Err(self.defect("the JSON text nests too deeply"));
        }
        self.depth += 1;
        Ok(())
    }

    /// The members of an object: `member` is given each key (normalised) and
    /// reads its value. `null` reads as an empty object.
    fn object(
        &mut self,
        message: &'static str,
        mut member: impl FnMut(&mut Self, &Key) -> Decoded<bool>,
    ) -> Decoded<()> {
        if self.null() {
            return Ok(());
        }
        self.enter()?;
        self.expect(b'{')?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            let at = self.pos;
            let key = self.key()?;
            self.expect(b':')?;
            if !member(self, &key)? {
                if self.traces.draft.is_none() {
                    if let Some(draft) = draft_key(message, key.bytes()) {
                        self.traces.draft = Some((draft, at));
                    }
                }
                self.skip_value()?;
            }
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.unexpected("',' or '}'")),
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// The elements of an array, each read by `element`; `null` reads as an
    /// empty array.
    fn array(&mut self, mut element: impl FnMut(&mut Self) -> Decoded<()>) -> Decoded<()> {
        if self.null() {
            return Ok(());
        }
        self.enter()?;
        self.expect(b'[')?;
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            element(self)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                _ => return Err(self.unexpected("',' or ']'")),
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// The elements of an array of messages or strings into `out`, counted
    /// first (the array is walked once to count its elements, then read).
    fn list<T>(
        &mut self,
        out: &mut Vec<T>,
        what: &str,
        mut element: impl FnMut(&mut Self) -> Decoded<T>,
    ) -> Decoded<()> {
        let start = self.pos;
        let mut n = 0usize;
        self.array(|p| {
            n += 1;
            p.skip_value()
        })?;
        self.dec.room(out, n, what)?;
        self.pos = start;
        self.array(|p| {
            let v = element(p)?;
            p.dec.push(out, v, what)
        })
    }

    fn key(&mut self) -> Decoded<Key> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("a key"));
        }
        self.pos += 1;
        let mut key = Key {
            buf: [0; 32],
            len: 0,
            too_long: false,
        };
        loop {
            let Some(&b) = self.data.get(self.pos) else {
                return Err(self.defect("a key is cut off"));
            };
            self.pos += 1;
            match b {
                b'"' => break,
                b'\\' => {
                    // Keys of the format have no escapes: skip it (the key is
                    // no key of the format then).
                    key.too_long = true;
                    self.pos += 1;
                }
                b'_' => {}
                _ => {
                    match key.buf.get_mut(key.len) {
                        Some(slot) => *slot = b.to_ascii_lowercase(),
                        None => key.too_long = true,
                    }
                    key.len += 1;
                }
            }
        }
        Ok(key)
    }

    /// A string's bytes (escapes resolved), charged.
    fn string(&mut self) -> Decoded<Vec<u8>> {
        if self.null() {
            return Ok(Vec::new());
        }
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("a string"));
        }
        self.pos += 1;
        let start = self.pos;
        // The raw length bounds the decoded one.
        let end = self.string_end()?;
        let raw = self.data.get(start..end).unwrap_or_default();
        let mut out = self.dec.vec_of::<u8>(raw.len(), "JSON string")?;
        let mut i = 0;
        while let Some(&b) = raw.get(i) {
            i += 1;
            if b != b'\\' {
                out.push(b);
                continue;
            }
            let Some(&e) = raw.get(i) else { break };
            i += 1;
            let c = match e {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let hex4 = |at: usize| -> Option<u32> {
                        let h = raw.get(at..at + 4)?;
                        u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
                    };
                    let Some(hi) = hex4(i) else {
                        self.pos = start + i;
                        return Err(self.defect("a \\u escape is malformed"));
                    };
                    i += 4;
                    let code =
                        if (0xd800..0xdc00).contains(&hi) && raw.get(i..i + 2) == Some(b"\\u") {
                            match hex4(i + 2) {
                                Some(lo) if (0xdc00..0xe000).contains(&lo) => {
                                    i += 6;
                                    0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
                                }
                                _ => hi,
                            }
                        } else {
                            hi
                        };
                    char::from_u32(code).unwrap_or('\u{fffd}')
                }
                _ => {
                    self.pos = start + i;
                    return Err(self.defect("a string has an unknown escape"));
                }
            };
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        }
        if std::str::from_utf8(&out).is_err() {
            self.pos = start;
            return Err(self.defect("a string is not valid UTF-8 text"));
        }
        self.pos = end + 1;
        Ok(out)
    }

    /// The position of the closing quote of the string that starts at `pos`.
    fn string_end(&mut self) -> Decoded<usize> {
        let mut i = self.pos;
        loop {
            match self.data.get(i) {
                None => return Err(self.defect("a string is cut off")),
                Some(b'"') => return Ok(i),
                Some(b'\\') => i += 2,
                Some(&b) if b < 0x20 => {
                    self.pos = i;
                    return Err(self.defect("a string holds a control character"));
                }
                Some(_) => i += 1,
            }
        }
    }

    /// The text of a number, or of a string holding one.
    fn number_text(&mut self) -> Decoded<(usize, usize)> {
        self.ws();
        let quoted = self.data.get(self.pos) == Some(&b'"');
        if quoted {
            self.pos += 1;
        }
        let start = self.pos;
        while let Some(&b) = self.data.get(self.pos) {
            if b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E') {
                self.pos += 1;
            } else {
                break;
            }
        }
        let end = self.pos;
        if quoted {
            if self.data.get(self.pos) != Some(&b'"') {
                return Err(self.unexpected("a number in a string"));
            }
            self.pos += 1;
        }
        if start == end {
            return Err(self.unexpected("a number"));
        }
        Ok((start, end))
    }

    fn integer(&mut self, what: &str) -> Decoded<i128> {
        if self.null() {
            return Ok(0);
        }
        let (start, end) = self.number_text()?;
        let text = std::str::from_utf8(self.data.get(start..end).unwrap_or_default()).unwrap_or("");
        if let Ok(v) = text.parse::<i128>() {
            return Ok(v);
        }
        // An integer written as a number with an exponent or a zero fraction.
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() && x == x.trunc() && x.abs() < 1.9e19 => Ok(x as i128),
            _ => {
                self.pos = start;
                Err(self.defect(format!("{what} must be an integer, found \"{text}\"")))
            }
        }
    }

    fn ranged<T: TryFrom<i128>>(&mut self, what: &str) -> Decoded<T> {
        let at = self.pos;
        let v = self.integer(what)?;
        T::try_from(v).map_err(|_| {
            Failure::Defect(
                at,
                format!("{what} is out of the range of its type (found {v})"),
            )
        })
    }

    fn int32(&mut self, what: &str) -> Decoded<i32> {
        self.ranged(what)
    }
    fn uint32(&mut self, what: &str) -> Decoded<u32> {
        self.ranged(what)
    }
    fn int64(&mut self, what: &str) -> Decoded<i64> {
        self.ranged(what)
    }
    fn uint64(&mut self, what: &str) -> Decoded<u64> {
        self.ranged(what)
    }

    fn double(&mut self) -> Decoded<f64> {
        if self.null() {
            return Ok(0.0);
        }
        for (word, v) in [
            ("\"NaN\"", f64::NAN),
            ("\"Infinity\"", f64::INFINITY),
            ("\"-Infinity\"", f64::NEG_INFINITY),
        ] {
            if self.literal(word) {
                return Ok(v);
            }
        }
        let (start, end) = self.number_text()?;
        let text = std::str::from_utf8(self.data.get(start..end).unwrap_or_default()).unwrap_or("");
        text.parse::<f64>()
            .map_err(|_| Failure::Defect(start, format!("a double is malformed: \"{text}\"")))
    }

    fn boolean(&mut self) -> Decoded<bool> {
        if self.literal("true") {
            Ok(true)
        } else if self.literal("false") || self.null() {
            Ok(false)
        } else {
            Err(self.unexpected("true or false"))
        }
    }

    fn int32s(&mut self, out: &mut Vec<i32>, what: &str) -> Decoded<()> {
        self.list(out, what, |p| p.int32(what))
    }

    /// Bytes written as base64 (standard or URL-safe, padded or not).
    fn base64(&mut self) -> Decoded<Vec<u8>> {
        let at = self.pos;
        let text = self.string()?;
        decode_base64(&text)
            .ok_or_else(|| Failure::Defect(at, "bytes must be base64 text".to_string()))
    }

    /// An id written as hex (OTLP/JSON), or as base64 (plain protobuf JSON)
    /// when it is not `bytes` bytes of hex.
    fn id(&mut self, bytes: usize) -> Decoded<Vec<u8>> {
        let at = self.pos;
        let text = self.string()?;
        if text.len() == 2 * bytes || (bytes == 0 && text.len() % 2 == 0) {
            if let Some(v) = unhex(&text) {
                return Ok(v);
            }
        }
        decode_base64(&text)
            .ok_or_else(|| Failure::Defect(at, "an id must be hex text".to_string()))
    }

    fn skip_value(&mut self) -> Decoded<()> {
        match self.peek() {
            Some(b'{') => {
                self.enter()?;
                self.pos += 1;
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.key()?;
                        self.expect(b':')?;
                        self.skip_value()?;
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.unexpected("',' or '}'")),
                        }
                    }
                }
                self.depth -= 1;
                Ok(())
            }
            Some(b'[') => self.array(|p| p.skip_value()),
            Some(b'"') => {
                self.pos += 1;
                let end = self.string_end()?;
                self.pos = end + 1;
                Ok(())
            }
            Some(b't') if self.literal("true") => Ok(()),
            Some(b'f') if self.literal("false") => Ok(()),
            Some(b'n') if self.literal("null") => Ok(()),
            _ => self.number_text().map(|_| ()),
        }
    }

    // -- messages --

    fn profiles_data(&mut self) -> Decoded<proto::ProfilesData> {
        let mut m = proto::ProfilesData::default();
        let mut dictionaries = 0;
        self.object("ProfilesData", |p, k| {
            if k.is("resourceprofiles") {
                p.list(&mut m.resource_profiles, "ProfilesData", |p| {
                    p.resource_profiles()
                })?;
            } else if k.is("dictionary") {
                dictionaries += 1;
                m.dictionary = Some(p.dictionary()?);
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        if dictionaries > 1 {
            return Err(self.defect("a message has two dictionaries"));
        }
        Ok(m)
    }

    fn dictionary(&mut self) -> Decoded<proto::ProfilesDictionary> {
        let mut d = proto::ProfilesDictionary::default();
        let what = "ProfilesDictionary";
        self.object(what, |p, k| {
            if k.is("mappingtable") {
                p.list(&mut d.mapping_table, what, Self::mapping)?;
            } else if k.is("locationtable") {
                p.list(&mut d.location_table, what, Self::location)?;
            } else if k.is("functiontable") {
                p.list(&mut d.function_table, what, Self::function)?;
            } else if k.is("linktable") {
                p.list(&mut d.link_table, what, Self::link)?;
            } else if k.is("stringtable") {
                p.list(&mut d.string_table, what, Self::string)?;
            } else if k.is("attributetable") {
                p.list(&mut d.attribute_table, what, Self::key_value_and_unit)?;
            } else if k.is("stacktable") {
                p.list(&mut d.stack_table, what, |p| {
                    let mut s = proto::Stack::default();
                    p.object("Stack", |p, k| {
                        if k.is("locationindices") {
                            p.int32s(&mut s.location_indices, "Stack.location_indices")?;
                            return Ok(true);
                        }
                        Ok(false)
                    })?;
                    Ok(s)
                })?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(d)
    }

    fn mapping(&mut self) -> Decoded<proto::Mapping> {
        let mut m = proto::Mapping::default();
        self.object("Mapping", |p, k| {
            if k.is("memorystart") {
                m.memory_start = p.uint64("Mapping.memory_start")?;
            } else if k.is("memorylimit") {
                m.memory_limit = p.uint64("Mapping.memory_limit")?;
            } else if k.is("fileoffset") {
                m.file_offset = p.uint64("Mapping.file_offset")?;
            } else if k.is("filenamestrindex") {
                m.filename_strindex = p.int32("Mapping.filename_strindex")?;
            } else if k.is("attributeindices") {
                p.int32s(&mut m.attribute_indices, "Mapping.attribute_indices")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(m)
    }

    fn location(&mut self) -> Decoded<proto::Location> {
        let mut l = proto::Location::default();
        self.object("Location", |p, k| {
            if k.is("mappingindex") {
                l.mapping_index = p.int32("Location.mapping_index")?;
            } else if k.is("address") {
                l.address = p.uint64("Location.address")?;
            } else if k.is("lines") {
                p.list(&mut l.lines, "Location", |p| {
                    let mut line = proto::Line::default();
                    p.object("Line", |p, k| {
                        if k.is("functionindex") {
                            line.function_index = p.int32("Line.function_index")?;
                        } else if k.is("line") {
                            line.line = p.int64("Line.line")?;
                        } else if k.is("column") {
                            line.column = p.int64("Line.column")?;
                        } else {
                            return Ok(false);
                        }
                        Ok(true)
                    })?;
                    Ok(line)
                })?;
            } else if k.is("attributeindices") {
                p.int32s(&mut l.attribute_indices, "Location.attribute_indices")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(l)
    }

    fn function(&mut self) -> Decoded<proto::Function> {
        let mut f = proto::Function::default();
        self.object("Function", |p, k| {
            if k.is("namestrindex") {
                f.name_strindex = p.int32("Function.name_strindex")?;
            } else if k.is("systemnamestrindex") {
                f.system_name_strindex = p.int32("Function.system_name_strindex")?;
            } else if k.is("filenamestrindex") {
                f.filename_strindex = p.int32("Function.filename_strindex")?;
            } else if k.is("startline") {
                f.start_line = p.int64("Function.start_line")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(f)
    }

    fn link(&mut self) -> Decoded<proto::Link> {
        let mut l = proto::Link::default();
        self.object("Link", |p, k| {
            if k.is("traceid") {
                l.trace_id = p.id(16)?;
            } else if k.is("spanid") {
                l.span_id = p.id(8)?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(l)
    }

    fn key_value_and_unit(&mut self) -> Decoded<proto::KeyValueAndUnit> {
        let mut a = proto::KeyValueAndUnit::default();
        self.object("KeyValueAndUnit", |p, k| {
            if k.is("keystrindex") {
                a.key_strindex = p.int32("KeyValueAndUnit.key_strindex")?;
            } else if k.is("value") {
                a.value = Some(p.any_value()?);
            } else if k.is("unitstrindex") {
                a.unit_strindex = p.int32("KeyValueAndUnit.unit_strindex")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(a)
    }

    fn resource_profiles(&mut self) -> Decoded<proto::ResourceProfiles> {
        let mut r = proto::ResourceProfiles::default();
        self.object("ResourceProfiles", |p, k| {
            if k.is("resource") {
                let mut res = proto::Resource::default();
                p.object("Resource", |p, k| {
                    if k.is("attributes") {
                        p.list(&mut res.attributes, "Resource", Self::key_value)?;
                    } else if k.is("droppedattributescount") {
                        res.dropped_attributes_count =
                            p.uint32("Resource.dropped_attributes_count")?;
                    } else if k.is("entityrefs") {
                        p.list(&mut res.entity_refs, "Resource", Self::entity_ref)?;
                    } else {
                        return Ok(false);
                    }
                    Ok(true)
                })?;
                r.resource = Some(res);
            } else if k.is("scopeprofiles") {
                p.list(
                    &mut r.scope_profiles,
                    "ResourceProfiles",
                    Self::scope_profiles,
                )?;
            } else if k.is("schemaurl") {
                r.schema_url = p.string()?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(r)
    }

    fn entity_ref(&mut self) -> Decoded<proto::EntityRef> {
        let mut e = proto::EntityRef::default();
        self.object("EntityRef", |p, k| {
            if k.is("schemaurl") {
                e.schema_url = p.string()?;
            } else if k.is("type") {
                e.r#type = p.string()?;
            } else if k.is("idkeys") {
                p.list(&mut e.id_keys, "EntityRef", Self::string)?;
            } else if k.is("descriptionkeys") {
                p.list(&mut e.description_keys, "EntityRef", Self::string)?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(e)
    }

    fn scope_profiles(&mut self) -> Decoded<proto::ScopeProfiles> {
        let mut s = proto::ScopeProfiles::default();
        self.object("ScopeProfiles", |p, k| {
            if k.is("scope") {
                let mut scope = proto::InstrumentationScope::default();
                p.object("InstrumentationScope", |p, k| {
                    if k.is("name") {
                        scope.name = p.string()?;
                    } else if k.is("version") {
                        scope.version = p.string()?;
                    } else if k.is("attributes") {
                        p.list(
                            &mut scope.attributes,
                            "InstrumentationScope",
                            Self::key_value,
                        )?;
                    } else if k.is("droppedattributescount") {
                        scope.dropped_attributes_count =
                            p.uint32("InstrumentationScope.dropped_attributes_count")?;
                    } else {
                        return Ok(false);
                    }
                    Ok(true)
                })?;
                s.scope = Some(scope);
            } else if k.is("profiles") {
                p.list(&mut s.profiles, "ScopeProfiles", Self::profile)?;
            } else if k.is("schemaurl") {
                s.schema_url = p.string()?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(s)
    }

    fn value_type(&mut self) -> Decoded<proto::ValueType> {
        let mut v = proto::ValueType::default();
        self.object("ValueType", |p, k| {
            if k.is("typestrindex") {
                v.type_strindex = p.int32("ValueType.type_strindex")?;
            } else if k.is("unitstrindex") {
                v.unit_strindex = p.int32("ValueType.unit_strindex")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(v)
    }

    fn profile(&mut self) -> Decoded<proto::Profile> {
        let mut m = proto::Profile::default();
        self.object("Profile", |p, k| {
            if k.is("sampletype") {
                if p.peek() == Some(b'[') {
                    // Up to v1.7, a list of sample types.
                    if p.traces.draft.is_none() {
                        p.traces.draft =
                            Some(("v1.7 or older (a list of sample types per Profile)", p.pos));
                    }
                    return Ok(false);
                }
                m.sample_type = Some(p.value_type()?);
            } else if k.is("samples") {
                p.list(&mut m.samples, "Profile", Self::sample)?;
            } else if k.is("timeunixnano") {
                m.time_unix_nano = p.uint64("Profile.time_unix_nano")?;
            } else if k.is("durationnano") {
                m.duration_nano = p.uint64("Profile.duration_nano")?;
            } else if k.is("periodtype") {
                m.period_type = Some(p.value_type()?);
            } else if k.is("period") {
                m.period = p.int64("Profile.period")?;
            } else if k.is("profileid") {
                m.profile_id = p.id(0)?;
            } else if k.is("droppedattributescount") {
                m.dropped_attributes_count = p.uint32("Profile.dropped_attributes_count")?;
            } else if k.is("originalpayloadformat") {
                m.original_payload_format = p.string()?;
            } else if k.is("originalpayload") {
                m.original_payload = p.base64()?;
            } else if k.is("attributeindices") {
                p.int32s(&mut m.attribute_indices, "Profile.attribute_indices")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(m)
    }

    fn sample(&mut self) -> Decoded<proto::Sample> {
        let mut s = proto::Sample::default();
        self.object("Sample", |p, k| {
            if k.is("stackindex") {
                s.stack_index = p.int32("Sample.stack_index")?;
            } else if k.is("attributeindices") {
                p.int32s(&mut s.attribute_indices, "Sample.attribute_indices")?;
            } else if k.is("linkindex") {
                s.link_index = p.int32("Sample.link_index")?;
            } else if k.is("values") {
                p.list(&mut s.values, "Sample", |p| p.int64("Sample.values"))?;
            } else if k.is("timestampsunixnano") {
                p.list(&mut s.timestamps_unix_nano, "Sample", |p| {
                    p.uint64("Sample.timestamps_unix_nano")
                })?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(s)
    }

    fn key_value(&mut self) -> Decoded<proto::KeyValue> {
        let mut kv = proto::KeyValue::default();
        self.object("KeyValue", |p, k| {
            if k.is("key") {
                kv.key = p.string()?;
            } else if k.is("value") {
                kv.value = Some(p.any_value()?);
            } else if k.is("keystrindex") {
                kv.key_strindex = p.int32("KeyValue.key_strindex")?;
            } else {
                return Ok(false);
            }
            Ok(true)
        })?;
        Ok(kv)
    }

    fn any_value(&mut self) -> Decoded<proto::AnyValue> {
        use proto::any_value::Value;
        let mut v = proto::AnyValue::default();
        self.object("AnyValue", |p, k| {
            let value = if k.is("stringvalue") {
                Value::StringValue(p.string()?)
            } else if k.is("boolvalue") {
                Value::BoolValue(p.boolean()?)
            } else if k.is("intvalue") {
                Value::IntValue(p.int64("AnyValue.int_value")?)
            } else if k.is("doublevalue") {
                Value::DoubleValue(p.double()?)
            } else if k.is("arrayvalue") {
                let mut a = proto::ArrayValue::default();
                p.object("ArrayValue", |p, k| {
                    if k.is("values") {
                        p.list(&mut a.values, "ArrayValue", Self::any_value)?;
                        return Ok(true);
                    }
                    Ok(false)
                })?;
                Value::ArrayValue(a)
            } else if k.is("kvlistvalue") {
                let mut l = proto::KeyValueList::default();
                p.object("KeyValueList", |p, k| {
                    if k.is("values") {
                        p.list(&mut l.values, "KeyValueList", Self::key_value)?;
                        return Ok(true);
                    }
                    Ok(false)
                })?;
                Value::KvlistValue(l)
            } else if k.is("bytesvalue") {
                Value::BytesValue(p.base64()?)
            } else if k.is("stringvaluestrindex") {
                Value::StringValueStrindex(p.int32("AnyValue.string_value_strindex")?)
            } else {
                return Ok(false);
            };
            v.value = Some(value);
            Ok(true)
        })?;
        Ok(v)
    }
}

/// Base64 text (standard or URL-safe alphabet, padding optional) as bytes.
pub(crate) fn decode_base64(text: &[u8]) -> Option<Vec<u8>> {
    let digits: Vec<u32> = text
        .iter()
        .filter(|&&c| c != b'=')
        .map(|&c| match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' | b'-' => Some(62),
            b'/' | b'_' => Some(63),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if digits.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &d)| acc | (d << (18 - 6 * i)));
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend(bytes.iter().take(chunk.len() - 1));
    }
    Some(out)
}

/// An AnyValue from its JSON text (the attribute tables keep arrays and
/// lists as such text), or None if it is not one.
pub(crate) fn parse_any_value(
    text: &str,
    budget: &crate::budget::Budget,
) -> Option<proto::AnyValue> {
    let mut dec = Decoder::new(budget);
    let data = text.as_bytes();
    let mut p = Parser {
        data,
        pos: 0,
        dec: &mut dec,
        traces: JsonTraces::default(),
        depth: 0,
    };
    let v = p.any_value().ok();
    p.ws();
    let whole = p.pos == data.len();
    budget.release(dec.charged);
    v.filter(|_| whole)
}

/// Entity references from their OTLP/JSON text, or None if it is not.
pub(crate) fn parse_entity_refs(
    text: &str,
    budget: &crate::budget::Budget,
) -> Option<Vec<proto::EntityRef>> {
    let mut dec = Decoder::new(budget);
    let data = text.as_bytes();
    let mut p = Parser {
        data,
        pos: 0,
        dec: &mut dec,
        traces: JsonTraces::default(),
        depth: 0,
    };
    let mut out = Vec::new();
    let read = p.list(&mut out, "entity_refs", Parser::entity_ref).is_ok();
    p.ws();
    let whole = p.pos == data.len();
    budget.release(dec.charged);
    (read && whole).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::budget::Budget;

    #[test]
    fn base64_reads_both_alphabets() {
        assert_eq!(decode_base64(b"AQID").unwrap(), vec![1, 2, 3]);
        assert_eq!(decode_base64(b"AQI=").unwrap(), vec![1, 2]);
        assert_eq!(decode_base64(b"_-8").unwrap(), vec![0xff, 0xef]);
        assert!(decode_base64(b"A").is_none());
    }

    #[test]
    fn messages_read_in_both_key_styles() {
        let budget = Budget::default();
        let mut dec = Decoder::new(&budget);
        let text = br#"{"resource_profiles":[{"scopeProfiles":[{"profiles":[
            {"sampleType":{"typeStrindex":1},"samples":[{"values":["3",4],
            "timestamps_unix_nano":[5]}],"profileId":"0102"}]}]}],
            "dictionary":{"stringTable":["","cpu"],"linkTable":[{"traceId":
            "0102030405060708090a0b0c0d0e0f10","spanId":"AQIDBAUGBwg="}]}}
            {"resourceProfiles":null}"#;
        let (ms, traces) = read_messages(text, &mut dec).unwrap();
        assert!(traces.draft.is_none());
        assert_eq!(ms.len(), 2);
        let p = &ms[0].resource_profiles[0].scope_profiles[0].profiles[0];
        assert_eq!(p.samples[0].values, vec![3, 4]);
        assert_eq!(p.samples[0].timestamps_unix_nano, vec![5]);
        assert_eq!(p.profile_id, vec![1, 2]);
        let d = ms[0].dictionary.as_ref().unwrap();
        assert_eq!(d.link_table[0].span_id, vec![1, 2, 3, 4, 5, 6, 7, 8]);
        assert_eq!(d.link_table[0].trace_id.len(), 16);
        // written and read back: the same message
        let again = write_message(&ms[0]);
        let (back, _) = read_messages(again.as_bytes(), &mut dec).unwrap();
        assert_eq!(back[0], ms[0]);
    }

    #[test]
    fn draft_keys_are_noticed() {
        let budget = Budget::default();
        let mut dec = Decoder::new(&budget);
        let text = br#"{"resourceProfiles":[{"scopeProfiles":[{"profiles":[
            {"sample":[{"locationsStartIndex":0}]}]}]}]}"#;
        let (_, traces) = read_messages(text, &mut dec).unwrap();
        assert!(traces.draft.unwrap().0.starts_with("v1.8"));
    }
}
