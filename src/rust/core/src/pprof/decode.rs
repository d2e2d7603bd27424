//! Decoding the pprof protobuf message by the rules of Go's parser
//! (`github.com/google/pprof/profile`, what `go tool pprof` reads with), so that
//! `read_pprof()` accepts the messages Go accepts (the differential test against
//! Go: `tests/testthat/test-pprof-oracle.R`). A generic protobuf decoder differs
//! from Go's in ways files show:
//!
//! - a field number Go does not know is skipped whatever it is: 0, or a key
//!   beyond 32 bits (a generic decoder refuses those);
//! - the group wire types (3, 4) are refused even in unknown fields (Go has no
//!   groups; a generic decoder skips a well-formed group);
//! - a varint of 10 bytes keeps its low 64 bits, whatever its 10th byte holds;
//! - a message field that occurs twice (`period_type`) is replaced by the later
//!   one, not merged with it;
//! - a second non-zero `time_nanos` means concatenated profiles: refused.
//!
//! Repeated numbers are read packed or not, as everywhere. Known fields with the
//! wrong wire type are refused, as are keys, lengths and values cut off or
//! running past their message. `doc_url` (Profile field 15) and `Line.column`
//! (field 3) are decoded as in current Go releases (older ones skip them).
//!
//! A defect is reported with its byte offset in the message; everything here is
//! about the wire format, the content rules are in `read.rs`.

use super::proto;

/// Why a message was not decoded.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A defect of the wire format: its byte offset (0-based) and what it is.
    Defect(usize, String),
    /// Memory for the counted elements could not be reserved.
    Memory(String),
}

type Decoded<T> = std::result::Result<T, Failure>;

const VARINT: u64 = 0;
const FIXED64: u64 = 1;
const LENGTH_DELIMITED: u64 = 2;
const FIXED32: u64 = 5;

/// The value of one field.
#[derive(Clone, Copy)]
enum Value<'a> {
    Varint(u64),
    Fixed,
    /// Content of a length-delimited field, and its offset in the whole message.
    Bytes(&'a [u8], usize),
}

/// One field of a message: number, wire type, value, and where its key is.
struct Field<'a> {
    number: u64,
    wire_type: u64,
    value: Value<'a>,
    at: usize,
    /// "Profile.sample" and the like, for messages.
    message: &'static str,
}

/// A varint as Go reads it: at most 10 bytes, bits past 64 dropped. Returns the
/// value and its length, None if cut off or longer than 10 bytes.
#[inline]
fn varint(data: &[u8]) -> Option<(u64, usize)> {
    // Most keys and numbers of a profile take one byte.
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

/// The fields of one message, in order.
struct Fields<'a> {
    data: &'a [u8],
    pos: usize,
    /// Offset of `data` in the whole message.
    base: usize,
    message: &'static str,
}

impl<'a> Fields<'a> {
    fn new(data: &'a [u8], base: usize, message: &'static str) -> Self {
        Fields {
            data,
            pos: 0,
            base,
            message,
        }
    }

    fn defect(&self, pos: usize, what: String) -> Failure {
        Failure::Defect(self.base + pos, what)
    }

    fn next_field(&mut self) -> Decoded<Option<Field<'a>>> {
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
        let name = || field_name(self.message, number);
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
            FIXED64 | FIXED32 => {
                let size = if wire_type == FIXED64 { 8 } else { 4 };
                if rest.len() < size {
                    return Err(
                        self.defect(value_at, format!("the value of {} is cut off", name()))
                    );
                }
                self.pos += size;
                Value::Fixed
            }
            LENGTH_DELIMITED => self.length_delimited(value_at, number)?,
            3 | 4 => {
                return Err(self.defect(
                    at,
                    format!(
                        "{} uses the group wire type {wire_type}, which pprof does not have",
                        name()
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
        }))
    }

    /// The bytes of a length-delimited value of field `number` starting at
    /// `value_at` (the position of its length), which the reader then passes.
    fn length_delimited(&mut self, value_at: usize, number: u64) -> Decoded<Value<'a>> {
        let rest = self.data.get(value_at..).unwrap_or_default();
        let name = || field_name(self.message, number);
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
fn field_name(message: &str, number: u64) -> String {
    match known_field(message, number) {
        Some(name) => format!("field {number} ({message}.{name})"),
        None => format!("field {number} of a {message} message"),
    }
}

fn known_field(message: &str, number: u64) -> Option<&'static str> {
    const PROFILE: [&str; 15] = [
        "sample_type",
        "sample",
        "mapping",
        "location",
        "function",
        "string_table",
        "drop_frames",
        "keep_frames",
        "time_nanos",
        "duration_nanos",
        "period_type",
        "period",
        "comment",
        "default_sample_type",
        "doc_url",
    ];
    const MAPPING: [&str; 10] = [
        "id",
        "memory_start",
        "memory_limit",
        "file_offset",
        "filename",
        "build_id",
        "has_functions",
        "has_filenames",
        "has_line_numbers",
        "has_inline_frames",
    ];
    let names: &[&str] = match message {
        "Profile" => &PROFILE,
        "ValueType" => &["type", "unit"],
        "Sample" => &["location_id", "value", "label"],
        "Label" => &["key", "str", "num", "num_unit"],
        "Mapping" => &MAPPING,
        "Location" => &["id", "mapping_id", "address", "line", "is_folded"],
        "Line" => &["function_id", "line", "column"],
        "Function" => &["id", "name", "system_name", "filename", "start_line"],
        _ => &[],
    };
    let i = usize::try_from(number).ok()?.checked_sub(1)?;
    names.get(i).copied()
}

impl<'a> Field<'a> {
    fn wrong_type(&self) -> Failure {
        Failure::Defect(
            self.at,
            format!(
                "{} has wire type {}, which it cannot have",
                field_name(self.message, self.number),
                self.wire_type
            ),
        )
    }

    fn uint64(&self) -> Decoded<u64> {
        match self.value {
            Value::Varint(v) => Ok(v),
            _ => Err(self.wrong_type()),
        }
    }

    fn int64(&self) -> Decoded<i64> {
        self.uint64().map(|v| v as i64)
    }

    fn bool(&self) -> Decoded<bool> {
        self.uint64().map(|v| v != 0)
    }

    /// The content of a length-delimited field and its offset.
    fn bytes(&self) -> Decoded<(&'a [u8], usize)> {
        match self.value {
            Value::Bytes(content, offset) => Ok((content, offset)),
            _ => Err(self.wrong_type()),
        }
    }

    /// The fields of the nested message `inner` this field holds.
    fn message(&self, inner: &'static str) -> Decoded<Fields<'a>> {
        let (content, offset) = self.bytes()?;
        Ok(Fields::new(content, offset, inner))
    }

    /// Adds the numbers of a repeated field: one varint, or a packed list.
    fn numbers_into<T>(&self, out: &mut Vec<T>, convert: impl Fn(u64) -> T) -> Decoded<()> {
        match self.value {
            Value::Varint(v) => {
                reserve(out, 1, self.message)?;
                out.push(convert(v));
                Ok(())
            }
            Value::Bytes(content, offset) => {
                // Every varint ends with one byte below 0x80: that many numbers.
                let count = content.iter().filter(|&&b| b < 0x80).count();
                reserve(out, count, self.message)?;
                let mut rest = content;
                while !rest.is_empty() {
                    let Some((v, n)) = varint(rest) else {
                        return Err(Failure::Defect(
                            offset + content.len() - rest.len(),
                            format!(
                                "a number packed in {} is cut off or malformed",
                                field_name(self.message, self.number)
                            ),
                        ));
                    };
                    out.push(convert(v));
                    rest = rest.get(n..).unwrap_or_default();
                }
                Ok(())
            }
            Value::Fixed => Err(self.wrong_type()),
        }
    }
}

fn reserve<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Decoded<()> {
    v.try_reserve(additional)
        .map_err(|_| not_enough_memory(additional, what))
}

/// [`reserve`] of exactly `additional` elements: an empty vector's first
/// reservation would otherwise round up (to 4 elements, or 8 bytes), more than
/// the memory the content walk counted for it.
fn reserve_exact<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Decoded<()> {
    v.try_reserve_exact(additional)
        .map_err(|_| not_enough_memory(additional, what))
}

fn not_enough_memory(additional: usize, what: &str) -> Failure {
    Failure::Memory(format!(
        "not enough memory for the {additional} elements of a {what} message"
    ))
}

/// Decodes a whole pprof message.
pub(crate) fn decode(data: &[u8]) -> Decoded<proto::Profile> {
    let mut p = proto::Profile::default();
    reserve_top_level(data, &mut p)?;
    let mut fields = Fields::new(data, 0, "Profile");
    while let Some(f) = fields.next_field()? {
        match f.number {
            1 => p.sample_type.push(value_type(f.message("ValueType")?)?),
            2 => p.sample.push(sample(f.message("Sample")?)?),
            3 => p.mapping.push(mapping(f.message("Mapping")?)?),
            4 => p.location.push(location(f.message("Location")?)?),
            5 => p.function.push(function(f.message("Function")?)?),
            6 => {
                let (s, _) = f.bytes()?;
                let mut entry = Vec::new();
                reserve_exact(&mut entry, s.len(), "string")?;
                entry.extend_from_slice(s);
                p.string_table.push(entry);
            }
            7 => p.drop_frames = f.int64()?,
            8 => p.keep_frames = f.int64()?,
            9 => {
                // Go's parser: a second time_nanos means two profiles in one file.
                if p.time_nanos != 0 {
                    return Err(Failure::Defect(
                        f.at,
                        "time_nanos occurs a second time: concatenated profiles".to_string(),
                    ));
                }
                p.time_nanos = f.int64()?;
            }
            10 => p.duration_nanos = f.int64()?,
            // Replaced, not merged, when it occurs again.
            11 => p.period_type = Some(value_type(f.message("ValueType")?)?),
            12 => p.period = f.int64()?,
            13 => f.numbers_into(&mut p.comment, |v| v as i64)?,
            14 => p.default_sample_type = f.int64()?,
            15 => p.doc_url = f.int64()?,
            _ => {}
        }
    }
    Ok(p)
}

/// Counts the top-level elements and reserves their vectors exactly, so that
/// neither a hostile count nor doubling growth asks for more than they need.
/// A defect found here is one the decoding finds too.
fn reserve_top_level(data: &[u8], p: &mut proto::Profile) -> Decoded<()> {
    let mut counts = [0usize; 7];
    let mut fields = Fields::new(data, 0, "Profile");
    while let Some(f) = fields.next_field()? {
        if let Some(c) = usize::try_from(f.number)
            .ok()
            .and_then(|i| counts.get_mut(i))
        {
            *c += 1;
        }
    }
    reserve_exact(&mut p.sample_type, counts[1], "Profile")?;
    reserve_exact(&mut p.sample, counts[2], "Profile")?;
    reserve_exact(&mut p.mapping, counts[3], "Profile")?;
    reserve_exact(&mut p.location, counts[4], "Profile")?;
    reserve_exact(&mut p.function, counts[5], "Profile")?;
    reserve_exact(&mut p.string_table, counts[6], "Profile")?;
    Ok(())
}

/// A message from its fields: `set` stores each field it knows in it.
fn fill<T: Default>(
    mut fields: Fields<'_>,
    mut set: impl FnMut(&mut T, &Field<'_>) -> Decoded<()>,
) -> Decoded<T> {
    let mut message = T::default();
    while let Some(f) = fields.next_field()? {
        set(&mut message, &f)?;
    }
    Ok(message)
}

fn value_type(fields: Fields<'_>) -> Decoded<proto::ValueType> {
    fill(fields, |vt: &mut proto::ValueType, f| {
        match f.number {
            1 => vt.r#type = f.int64()?,
            2 => vt.unit = f.int64()?,
            _ => {}
        }
        Ok(())
    })
}

fn sample(fields: Fields<'_>) -> Decoded<proto::Sample> {
    fill(fields, |s: &mut proto::Sample, f| {
        match f.number {
            1 => f.numbers_into(&mut s.location_id, |v| v)?,
            2 => f.numbers_into(&mut s.value, |v| v as i64)?,
            3 => {
                let label = label(f.message("Label")?)?;
                reserve(&mut s.label, 1, "Sample")?;
                s.label.push(label);
            }
            _ => {}
        }
        Ok(())
    })
}

fn label(fields: Fields<'_>) -> Decoded<proto::Label> {
    fill(fields, |l: &mut proto::Label, f| {
        match f.number {
            1 => l.key = f.int64()?,
            2 => l.str = f.int64()?,
            3 => l.num = f.int64()?,
            4 => l.num_unit = f.int64()?,
            _ => {}
        }
        Ok(())
    })
}

fn mapping(fields: Fields<'_>) -> Decoded<proto::Mapping> {
    fill(fields, |m: &mut proto::Mapping, f| {
        match f.number {
            1 => m.id = f.uint64()?,
            2 => m.memory_start = f.uint64()?,
            3 => m.memory_limit = f.uint64()?,
            4 => m.file_offset = f.uint64()?,
            5 => m.filename = f.int64()?,
            6 => m.build_id = f.int64()?,
            7 => m.has_functions = f.bool()?,
            8 => m.has_filenames = f.bool()?,
            9 => m.has_line_numbers = f.bool()?,
            10 => m.has_inline_frames = f.bool()?,
            _ => {}
        }
        Ok(())
    })
}

fn location(fields: Fields<'_>) -> Decoded<proto::Location> {
    fill(fields, |l: &mut proto::Location, f| {
        match f.number {
            1 => l.id = f.uint64()?,
            2 => l.mapping_id = f.uint64()?,
            3 => l.address = f.uint64()?,
            4 => {
                let line = line(f.message("Line")?)?;
                reserve(&mut l.line, 1, "Location")?;
                l.line.push(line);
            }
            5 => l.is_folded = f.bool()?,
            _ => {}
        }
        Ok(())
    })
}

fn line(fields: Fields<'_>) -> Decoded<proto::Line> {
    fill(fields, |l: &mut proto::Line, f| {
        match f.number {
            1 => l.function_id = f.uint64()?,
            2 => l.line = f.int64()?,
            3 => l.column = f.int64()?,
            _ => {}
        }
        Ok(())
    })
}

fn function(fields: Fields<'_>) -> Decoded<proto::Function> {
    fill(fields, |func: &mut proto::Function, f| {
        match f.number {
            1 => func.id = f.uint64()?,
            2 => func.name = f.int64()?,
            3 => func.system_name = f.int64()?,
            4 => func.filename = f.int64()?,
            5 => func.start_line = f.int64()?,
            _ => {}
        }
        Ok(())
    })
}
