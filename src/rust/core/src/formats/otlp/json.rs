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

mod messages;
mod parse;
mod write;

use super::decode::Decoder;
use super::proto;
use crate::io::wire::{Decoded, Failure};
use parse::Parser;
use write::Writer;

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

// ---- reading ---------------------------------------------------------------

/// Names of older drafts met in JSON (keys the current messages do not have):
/// the draft and where its first key is; and whether the text holds a
/// `ProfilesData` message at all.
#[derive(Debug, Default)]
pub(crate) struct JsonTraces {
    pub(crate) draft: Option<(&'static str, usize)>,
    /// Whether some top-level object has a member of `ProfilesData`
    /// (`resourceProfiles`, `dictionary`): JSON of another kind (a query
    /// result, `{"foo":1}`) has none, and is no OTLP file.
    pub(crate) profiles_member: bool,
    /// The first keys of top-level objects that are no member of
    /// `ProfilesData`, as text safe to show (to say what the data hold).
    pub(crate) other_members: Vec<String>,
}

/// How many of the other top-level keys an error names.
const OTHER_MEMBERS_SHOWN: usize = 4;

impl JsonTraces {
    /// Notes a top-level key that is no member of `ProfilesData`.
    pub(super) fn other_member(&mut self, key: &[u8]) {
        if self.other_members.len() < OTHER_MEMBERS_SHOWN {
            self.other_members.push(shown_key(key));
        }
    }
}

/// A key of the data as text safe to show in a message: letters, digits,
/// `_`, `.` and `-`, others as `?`, at most 32 characters.
fn shown_key(key: &[u8]) -> String {
    key.iter()
        .take(32)
        .map(|&b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-') {
                b as char
            } else {
                '?'
            }
        })
        .collect()
}

/// What a JSON value that starts with `byte` is, for the refusal of a text
/// whose top level is not an object.
fn json_value_kind(byte: u8) -> &'static str {
    match byte {
        b'[' => "an array",
        b'"' => "a string",
        b't' | b'f' => "a boolean",
        b'-' | b'0'..=b'9' => "a number",
        _ => "not JSON",
    }
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
        match p.data.get(p.pos) {
            None => break,
            Some(b'{' | b'n') => {}
            Some(&other) => {
                return Err(p.defect(format!(
                    "the JSON text is {}, where OTLP/JSON is an object (a ProfilesData message)",
                    json_value_kind(other)
                )))
            }
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
    budget: &crate::resources::budget::Budget,
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
    budget: &crate::resources::budget::Budget,
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
mod tests;
