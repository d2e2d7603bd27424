//! The JSON text read value by value, every list counted before it is
//! allocated and charged to the budget.

use super::{decode_base64, draft_key, JsonTraces};
use crate::formats::otlp::decode::{Decoder, MAX_NESTING};
use crate::formats::otlp::unhex;
use crate::io::wire::{Decoded, Failure};

/// An object key with its underscores dropped and in lower case, in a small
/// buffer (keys of the format are short; a longer one is no key of it).
pub(super) struct Key {
    buf: [u8; 32],
    len: usize,
    too_long: bool,
    /// Where the key's text is in the data (between its quotes).
    pub(super) raw: std::ops::Range<usize>,
}

impl Key {
    pub(super) fn is(&self, name: &str) -> bool {
        !self.too_long && self.buf.get(..self.len) == Some(name.as_bytes())
    }
    pub(super) fn bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }
}

pub(super) struct Parser<'a, 'd, 'b> {
    pub(super) data: &'a [u8],
    pub(super) pos: usize,
    pub(super) dec: &'d mut Decoder<'b>,
    pub(super) traces: JsonTraces,
    pub(super) depth: usize,
}

impl Parser<'_, '_, '_> {
    pub(super) fn defect(&self, what: impl Into<String>) -> Failure {
        Failure::Defect(self.pos, what.into())
    }

    pub(super) fn ws(&mut self) {
        while let Some(&b) = self.data.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    pub(super) fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.data.get(self.pos).copied()
    }

    pub(super) fn expect_byte(&mut self, c: u8) -> Decoded<()> {
        if self.peek() == Some(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected(&format!("'{}'", c as char)))
        }
    }

    pub(super) fn unexpected(&self, wanted: &str) -> Failure {
        match self.data.get(self.pos) {
            None => self.defect(format!("the JSON text ends where {wanted} was expected")),
            Some(&b) => self.defect(format!(
                "{wanted} expected, found '{}'",
                if b.is_ascii_graphic() { b as char } else { '?' }
            )),
        }
    }

    pub(super) fn literal(&mut self, word: &str) -> bool {
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
    pub(super) fn null(&mut self) -> bool {
        self.literal("null")
    }

    pub(super) fn enter(&mut self) -> Decoded<()> {
        if self.depth >= MAX_NESTING * 2 + 16 {
            return Err(self.defect("the JSON text nests too deeply"));
        }
        self.depth += 1;
        Ok(())
    }

    /// The members of an object: `member` is given each key (normalised) and
    /// reads its value. `null` reads as an empty object.
    pub(super) fn object(
        &mut self,
        message: &'static str,
        mut member: impl FnMut(&mut Self, &Key) -> Decoded<bool>,
    ) -> Decoded<()> {
        if self.null() {
            return Ok(());
        }
        self.enter()?;
        self.expect_byte(b'{')?;
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok(());
        }
        loop {
            let at = self.pos;
            let key = self.key()?;
            self.expect_byte(b':')?;
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
    pub(super) fn array(
        &mut self,
        mut element: impl FnMut(&mut Self) -> Decoded<()>,
    ) -> Decoded<()> {
        if self.null() {
            return Ok(());
        }
        self.enter()?;
        self.expect_byte(b'[')?;
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

    /// The elements of an array into `out`.
    pub(super) fn list<T>(
        &mut self,
        out: &mut Vec<T>,
        what: &str,
        mut element: impl FnMut(&mut Self) -> Decoded<T>,
    ) -> Decoded<()> {
        // Grown by doubling (charged as it grows): counting the elements
        // first would walk every nested list once per level above it.
        self.array(|p| {
            let v = element(p)?;
            p.dec.push(out, v, what)
        })
    }

    pub(super) fn key(&mut self) -> Decoded<Key> {
        if self.peek() != Some(b'"') {
            return Err(self.unexpected("a key"));
        }
        self.pos += 1;
        let mut key = Key {
            buf: [0; 32],
            len: 0,
            too_long: false,
            raw: self.pos..self.pos,
        };
        loop {
            let Some(&b) = self.data.get(self.pos) else {
                return Err(self.defect("a key is cut off"));
            };
            self.pos += 1;
            match b {
                b'"' => {
                    key.raw.end = self.pos - 1;
                    break;
                }
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
    pub(super) fn string(&mut self) -> Decoded<Vec<u8>> {
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
    pub(super) fn string_end(&mut self) -> Decoded<usize> {
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
    pub(super) fn number_text(&mut self) -> Decoded<(usize, usize)> {
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

    pub(super) fn integer(&mut self, what: &str) -> Decoded<i128> {
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

    pub(super) fn ranged<T: TryFrom<i128>>(&mut self, what: &str) -> Decoded<T> {
        let at = self.pos;
        let v = self.integer(what)?;
        T::try_from(v).map_err(|_| {
            Failure::Defect(
                at,
                format!("{what} is out of the range of its type (found {v})"),
            )
        })
    }

    pub(super) fn int32(&mut self, what: &str) -> Decoded<i32> {
        self.ranged(what)
    }
    pub(super) fn uint32(&mut self, what: &str) -> Decoded<u32> {
        self.ranged(what)
    }
    pub(super) fn int64(&mut self, what: &str) -> Decoded<i64> {
        self.ranged(what)
    }
    pub(super) fn uint64(&mut self, what: &str) -> Decoded<u64> {
        self.ranged(what)
    }

    pub(super) fn double(&mut self) -> Decoded<f64> {
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

    pub(super) fn boolean(&mut self) -> Decoded<bool> {
        if self.literal("true") {
            Ok(true)
        } else if self.literal("false") || self.null() {
            Ok(false)
        } else {
            Err(self.unexpected("true or false"))
        }
    }

    pub(super) fn int32s(&mut self, out: &mut Vec<i32>, what: &str) -> Decoded<()> {
        self.list(out, what, |p| p.int32(what))
    }

    /// Bytes written as base64 (standard or URL-safe, padded or not).
    pub(super) fn base64(&mut self) -> Decoded<Vec<u8>> {
        let at = self.pos;
        let text = self.string()?;
        decode_base64(&text)
            .ok_or_else(|| Failure::Defect(at, "bytes must be base64 text".to_string()))
    }

    /// An id written as hex (OTLP/JSON), or as base64 (plain protobuf JSON)
    /// when it is not `bytes` bytes of hex.
    pub(super) fn id(&mut self, bytes: usize) -> Decoded<Vec<u8>> {
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

    pub(super) fn skip_value(&mut self) -> Decoded<()> {
        match self.peek() {
            Some(b'{') => {
                self.enter()?;
                self.pos += 1;
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.key()?;
                        self.expect_byte(b':')?;
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
}
