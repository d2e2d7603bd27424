//! The protobuf wire format as the decoders of this crate read it (pprof in
//! `pprof/decode.rs`, OpenTelemetry profiles in `otlp/decode.rs`): the fields
//! of a message one by one, each with its number, wire type, value and byte
//! offset, so that a decoder can name a defect (the field, by the names of
//! its format's schema, and where it is) instead of a generic decoder's
//! "invalid wire type".
//!
//! The rules are Go's (what `go tool pprof` reads with, the stricter of the
//! readers of these formats): a varint of 10 bytes keeps its low 64 bits; the
//! group wire types (3, 4) and the wire types that do not exist (6, 7) are
//! refused, even in fields the format does not have; a field number 0 or a
//! key beyond 32 bits is skipped like any unknown field; a length that runs
//! past the end of its message is refused.

/// Why a message was not decoded.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A defect of the wire format (or of what a field holds): its byte
    /// offset (0-based) and what it is.
    Defect(usize, String),
    /// Memory for the counted elements could not be reserved, or the budget
    /// refused it.
    Memory(crate::error::ProfileError),
}

pub(crate) type Decoded<T> = std::result::Result<T, Failure>;

pub(crate) const VARINT: u64 = 0;
pub(crate) const FIXED64: u64 = 1;
pub(crate) const LENGTH_DELIMITED: u64 = 2;
pub(crate) const FIXED32: u64 = 5;

/// A varint as Go reads it: at most 10 bytes, bits past 64 dropped. Returns the
/// value and its length, None if cut off or longer than 10 bytes.
#[inline]
pub(crate) fn varint(data: &[u8]) -> Option<(u64, usize)> {
    // Most keys and numbers take one byte.
    if let Some(&byte) = data.first() {
        if byte < 0x80 {
            return Some((u64::from(byte), 1));
        }
    }
    let mut value: u64 = 0;
    for (i, &byte) in data.iter().take(10).enumerate() {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// The names a format gives its messages' fields, for error messages.
pub(crate) struct Schema {
    /// The format's name ("pprof", "OTLP").
    pub format: &'static str,
    /// The name of field `number` of message `message`, if it has one.
    pub field: fn(message: &str, number: u64) -> Option<&'static str>,
}

/// The value of one field.
#[derive(Clone, Copy)]
pub(crate) enum Value<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32,
    /// Content of a length-delimited field, and its offset in the whole message.
    Bytes(&'a [u8], usize),
}

/// One field of a message: number, wire type, value, and where its key is.
pub(crate) struct Field<'a> {
    pub number: u64,
    pub wire_type: u64,
    pub value: Value<'a>,
    /// Byte offset of the key in the whole message.
    pub at: usize,
    /// The name of the message the field is in ("Profile", "Sample").
    pub message: &'static str,
    schema: &'static Schema,
}

/// The fields of one message, in order.
pub(crate) struct Fields<'a> {
    data: &'a [u8],
    pos: usize,
    /// Offset of `data` in the whole message.
    base: usize,
    message: &'static str,
    schema: &'static Schema,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(
        data: &'a [u8],
        base: usize,
        message: &'static str,
        schema: &'static Schema,
    ) -> Self {
        Fields {
            data,
            pos: 0,
            base,
            message,
            schema,
        }
    }

    fn defect(&self, pos: usize, what: String) -> Failure {
        Failure::Defect(self.base + pos, what)
    }

    /// The next field, None at the end of the message.
    pub(crate) fn next_field(&mut self) -> Decoded<Option<Field<'a>>> {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        if rest.is_empty() {
            return Ok(None);
        }
        let at = self.pos;
        let (key, n) = varint(rest).ok_or_else(|| {
            self.defect(
                at,
                format!(
                    "a field key of a {} message is cut off or malformed",
                    self.message
                ),
            )
        })?;
        self.pos += n;
        let (number, wire_type) = (key >> 3, key & 7);
        let value_at = self.pos;
        let rest = self.data.get(self.pos..).unwrap_or_default();
        let name = || field_name(self.schema, self.message, number);
        let value = match wire_type {
            VARINT => {
                let (v, n) = varint(rest).ok_or_else(|| {
                    self.defect(
                        value_at,
                        format!("the value of {} is cut off or malformed", name()),
                    )
                })?;
                self.pos += n;
                Value::Varint(v)
            }
            FIXED64 | FIXED32 => self.fixed(value_at, number, wire_type == FIXED64)?,
            LENGTH_DELIMITED => self.length_delimited(value_at, number)?,
            3 | 4 => {
                return Err(self.defect(
                    at,
                    format!(
                        "{} uses the group wire type {wire_type}, which {} does not have",
                        name(),
                        self.schema.format
                    ),
                ));
            }
            _ => {
                return Err(self.defect(
                    at,
                    format!("{} has wire type {wire_type}, which does not exist", name()),
                ));
            }
        };
        Ok(Some(Field {
            number,
            wire_type,
            value,
            at: self.base + at,
            message: self.message,
            schema: self.schema,
        }))
    }

    /// The fixed64 (`wide`) or fixed32 value of field `number` starting at
    /// `value_at`, which the reader then passes.
    fn fixed(&mut self, value_at: usize, number: u64, wide: bool) -> Decoded<Value<'a>> {
        let size = if wide { 8 } else { 4 };
        let rest = self.data.get(value_at..).unwrap_or_default();
        let Some(bytes) = rest.get(..size) else {
            let name = field_name(self.schema, self.message, number);
            return Err(self.defect(value_at, format!("the value of {name} is cut off")));
        };
        self.pos = value_at + size;
        let le = bytes
            .iter()
            .rev()
            .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        Ok(if wide {
            Value::Fixed64(le)
        } else {
            Value::Fixed32
        })
    }

    /// The bytes of a length-delimited value of field `number` starting at
    /// `value_at` (the position of its length), which the reader then passes.
    fn length_delimited(&mut self, value_at: usize, number: u64) -> Decoded<Value<'a>> {
        let rest = self.data.get(value_at..).unwrap_or_default();
        let name = || field_name(self.schema, self.message, number);
        let (len, n) = varint(rest).ok_or_else(|| {
            self.defect(
                value_at,
                format!("the length of {} is cut off or malformed", name()),
            )
        })?;
        let remaining = rest.len() - n;
        if len > remaining as u64 {
            return Err(self.defect(
                value_at,
                format!(
                    "{} claims {len} bytes, but only {remaining} remain in its {} message \
                     (truncated or corrupt data)",
                    name(),
                    self.message
                ),
            ));
        }
        let start = value_at + n;
        let content = self
            .data
            .get(start..start + len as usize)
            .unwrap_or_default();
        self.pos = start + len as usize;
        Ok(Value::Bytes(content, self.base + start))
    }
}

/// "field 2 (Profile.sample)" for known fields, "field 21 of a Profile message"
/// for others.
pub(crate) fn field_name(schema: &Schema, message: &str, number: u64) -> String {
    match (schema.field)(message, number) {
        Some(name) => format!("field {number} ({message}.{name})"),
        None => format!("field {number} of a {message} message"),
    }
}

/// The name of a field as an index of a list of names, from 1.
pub(crate) fn nth_name(names: &[&'static str], number: u64) -> Option<&'static str> {
    let i = usize::try_from(number).ok()?.checked_sub(1)?;
    names.get(i).copied()
}

impl<'a> Field<'a> {
    /// The name of the field, for messages.
    pub(crate) fn name(&self) -> String {
        field_name(self.schema, self.message, self.number)
    }

    pub(crate) fn wrong_type(&self) -> Failure {
        Failure::Defect(
            self.at,
            format!(
                "{} has wire type {}, which it cannot have",
                self.name(),
                self.wire_type
            ),
        )
    }

    pub(crate) fn uint64(&self) -> Decoded<u64> {
        match self.value {
            Value::Varint(v) => Ok(v),
            _ => Err(self.wrong_type()),
        }
    }

    pub(crate) fn int64(&self) -> Decoded<i64> {
        self.uint64().map(|v| v as i64)
    }

    /// An `int32` field: its varint's low 32 bits, as the protobuf runtimes
    /// read it (a negative int32 is written as a 10-byte varint).
    pub(crate) fn int32(&self) -> Decoded<i32> {
        self.uint64().map(|v| v as i32)
    }

    /// A `uint32` field: the low 32 bits.
    pub(crate) fn uint32(&self) -> Decoded<u32> {
        self.uint64().map(|v| v as u32)
    }

    pub(crate) fn bool(&self) -> Decoded<bool> {
        self.uint64().map(|v| v != 0)
    }

    pub(crate) fn fixed64(&self) -> Decoded<u64> {
        match self.value {
            Value::Fixed64(v) => Ok(v),
            _ => Err(self.wrong_type()),
        }
    }

    /// A `double` field.
    pub(crate) fn double(&self) -> Decoded<f64> {
        self.fixed64().map(f64::from_bits)
    }

    /// The content of a length-delimited field and its offset.
    pub(crate) fn bytes(&self) -> Decoded<(&'a [u8], usize)> {
        match self.value {
            Value::Bytes(content, offset) => Ok((content, offset)),
            _ => Err(self.wrong_type()),
        }
    }

    /// The fields of the nested message `inner` this field holds.
    pub(crate) fn message(&self, inner: &'static str) -> Decoded<Fields<'a>> {
        let (content, offset) = self.bytes()?;
        Ok(Fields::new(content, offset, inner, self.schema))
    }

    /// How many numbers a repeated varint field adds: 1, or the numbers packed
    /// in it (every varint ends with one byte below 0x80). Wire types other
    /// than varint and length-delimited count 0 (the decoder refuses them).
    pub(crate) fn varint_count(&self) -> usize {
        match self.value {
            Value::Varint(_) => 1,
            Value::Bytes(content, _) => content.iter().filter(|&&b| b < 0x80).count(),
            _ => 0,
        }
    }

    /// Adds the numbers of a repeated varint field, one or packed, to `out`,
    /// which has room for them (see [`varint_count`](Self::varint_count)) or
    /// gets it fallibly.
    pub(crate) fn numbers_into<T>(
        &self,
        out: &mut Vec<T>,
        convert: impl Fn(u64) -> T,
    ) -> Decoded<()> {
        match self.value {
            Value::Varint(v) => {
                reserve(out, 1, self.message)?;
                out.push(convert(v));
                Ok(())
            }
            Value::Bytes(content, offset) => {
                reserve(out, self.varint_count(), self.message)?;
                let mut rest = content;
                while !rest.is_empty() {
                    let Some((v, n)) = varint(rest) else {
                        return Err(Failure::Defect(
                            offset + content.len() - rest.len(),
                            format!("a number packed in {} is cut off or malformed", self.name()),
                        ));
                    };
                    out.push(convert(v));
                    rest = rest.get(n..).unwrap_or_default();
                }
                Ok(())
            }
            _ => Err(self.wrong_type()),
        }
    }

    /// How many numbers a repeated `fixed64` field adds: 1, or the packed ones.
    pub(crate) fn fixed64_count(&self) -> usize {
        match self.value {
            Value::Fixed64(_) => 1,
            Value::Bytes(content, _) => content.len() / 8,
            _ => 0,
        }
    }

    /// Adds the numbers of a repeated `fixed64` field, one or packed.
    pub(crate) fn fixed64s_into(&self, out: &mut Vec<u64>) -> Decoded<()> {
        match self.value {
            Value::Fixed64(v) => {
                reserve(out, 1, self.message)?;
                out.push(v);
                Ok(())
            }
            Value::Bytes(content, offset) => {
                if content.len() % 8 != 0 {
                    return Err(Failure::Defect(
                        offset,
                        format!(
                            "{} packs {} bytes, not a whole number of 8-byte values",
                            self.name(),
                            content.len()
                        ),
                    ));
                }
                reserve(out, content.len() / 8, self.message)?;
                out.extend(content.chunks_exact(8).map(|b| {
                    b.iter()
                        .rev()
                        .fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
                }));
                Ok(())
            }
            _ => Err(self.wrong_type()),
        }
    }
}

/// Room for `additional` more elements in `v`, asked for fallibly.
pub(crate) fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Decoded<()> {
    v.try_reserve(additional)
        .map_err(|_| not_enough_memory(additional, what))
}

/// [`reserve`] of exactly `additional` elements: an empty vector's first
/// reservation would otherwise round up (to 4 elements, or 8 bytes), more than
/// the memory counted for it.
pub(crate) fn reserve_exact<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Decoded<()> {
    v.try_reserve_exact(additional)
        .map_err(|_| not_enough_memory(additional, what))
}

fn not_enough_memory(additional: usize, what: &str) -> Failure {
    Failure::Memory(crate::error::ProfileError::limit(format!(
        "not enough memory for the {additional} elements of a {what} message"
    )))
}

#[cfg(test)]
mod tests;
