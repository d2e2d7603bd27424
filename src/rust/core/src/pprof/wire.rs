//! Where a pprof message is broken. prost says what is wrong with a message it
//! refuses, but not where; this walks the protobuf wire format along the messages
//! of `profile.proto` and reports the byte offset of the first defect: a key or
//! value cut off, a length that runs past the end of its message, a field with the
//! wrong wire type, a wire type or field number that does not exist.

/// The messages of `profile.proto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Message {
    Profile,
    ValueType,
    Sample,
    Label,
    Mapping,
    Location,
    Line,
    Function,
}

/// What a known field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// A nested message.
    Nested(Message),
    /// A string (kept as bytes).
    Bytes,
    /// A number or bool: a varint.
    Number,
    /// A repeated number: varints, or packed into one length-delimited field.
    Numbers,
}

impl Message {
    fn name(self) -> &'static str {
        match self {
            Message::Profile => "Profile",
            Message::ValueType => "ValueType",
            Message::Sample => "Sample",
            Message::Label => "Label",
            Message::Mapping => "Mapping",
            Message::Location => "Location",
            Message::Line => "Line",
            Message::Function => "Function",
        }
    }

    /// The field `number` of this message: its name and what it holds (None for a
    /// field `profile.proto` does not have, which readers skip).
    fn field(self, number: u64) -> Option<(&'static str, Field)> {
        use Field::*;
        use Message::*;
        Some(match (self, number) {
            (Profile, 1) => ("sample_type", Nested(ValueType)),
            (Profile, 2) => ("sample", Nested(Sample)),
            (Profile, 3) => ("mapping", Nested(Mapping)),
            (Profile, 4) => ("location", Nested(Location)),
            (Profile, 5) => ("function", Nested(Function)),
            (Profile, 6) => ("string_table", Bytes),
            (Profile, 7) => ("drop_frames", Number),
            (Profile, 8) => ("keep_frames", Number),
            (Profile, 9) => ("time_nanos", Number),
            (Profile, 10) => ("duration_nanos", Number),
            (Profile, 11) => ("period_type", Nested(ValueType)),
            (Profile, 12) => ("period", Number),
            (Profile, 13) => ("comment", Numbers),
            (Profile, 14) => ("default_sample_type", Number),
            (Profile, 15) => ("doc_url", Number),
            (ValueType, 1) => ("type", Number),
            (ValueType, 2) => ("unit", Number),
            (Sample, 1) => ("location_id", Numbers),
            (Sample, 2) => ("value", Numbers),
            (Sample, 3) => ("label", Nested(Label)),
            (Label, 1) => ("key", Number),
            (Label, 2) => ("str", Number),
            (Label, 3) => ("num", Number),
            (Label, 4) => ("num_unit", Number),
            (Mapping, 1) => ("id", Number),
            (Mapping, 2) => ("memory_start", Number),
            (Mapping, 3) => ("memory_limit", Number),
            (Mapping, 4) => ("file_offset", Number),
            (Mapping, 5) => ("filename", Number),
            (Mapping, 6) => ("build_id", Number),
            (Mapping, 7) => ("has_functions", Number),
            (Mapping, 8) => ("has_filenames", Number),
            (Mapping, 9) => ("has_line_numbers", Number),
            (Mapping, 10) => ("has_inline_frames", Number),
            (Location, 1) => ("id", Number),
            (Location, 2) => ("mapping_id", Number),
            (Location, 3) => ("address", Number),
            (Location, 4) => ("line", Nested(Line)),
            (Location, 5) => ("is_folded", Number),
            (Line, 1) => ("function_id", Number),
            (Line, 2) => ("line", Number),
            (Line, 3) => ("column", Number),
            (Function, 1) => ("id", Number),
            (Function, 2) => ("name", Number),
            (Function, 3) => ("system_name", Number),
            (Function, 4) => ("filename", Number),
            (Function, 5) => ("start_line", Number),
            _ => return None,
        })
    }
}

const VARINT: u64 = 0;
const FIXED64: u64 = 1;
const LENGTH_DELIMITED: u64 = 2;
const START_GROUP: u64 = 3;
const END_GROUP: u64 = 4;
const FIXED32: u64 = 5;

/// A defect: its byte offset in the message (0-based) and what it is.
pub type Defect = (usize, String);

/// The first defect of the pprof message `data`, or None if its wire format is
/// sound (then what prost refused is in the content, not in the framing).
pub fn first_defect(data: &[u8]) -> Option<Defect> {
    walk(data, 0, Message::Profile).err()
}

/// A varint at `*pos`, moving past it; None if it is cut off or longer than 10 bytes.
fn varint(data: &[u8], pos: &mut usize) -> Option<u64> {
    let mut value: u64 = 0;
    for shift in (0..70).step_by(7) {
        let byte = *data.get(*pos)?;
        *pos += 1;
        if shift == 63 && byte > 1 {
            return None;
        }
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Checks the fields of one message, `data`, which starts at offset `base`.
fn walk(data: &[u8], base: usize, message: Message) -> Result<(), Defect> {
    let mut pos = 0;
    while pos < data.len() {
        let at = base + pos;
        let key = varint(data, &mut pos).ok_or_else(|| {
            (at, format!("a field key of a {} message is cut off or malformed", message.name()))
        })?;
        let (number, wire_type) = (key >> 3, key & 7);
        if number == 0 || number > (1 << 29) - 1 {
            return Err((at, format!("field number {number} does not exist (this is not protobuf data)")));
        }
        let known = message.field(number);
        let what = || match known {
            Some((name, _)) => format!("field {number} ({}.{name})", message.name()),
            None => format!("field {number} of a {} message", message.name()),
        };
        let expected = match known.map(|(_, f)| f) {
            Some(Field::Nested(_) | Field::Bytes) => Some(&[LENGTH_DELIMITED][..]),
            Some(Field::Number) => Some(&[VARINT][..]),
            Some(Field::Numbers) => Some(&[VARINT, LENGTH_DELIMITED][..]),
            None => None,
        };
        if let Some(expected) = expected {
            if !expected.contains(&wire_type) {
                return Err((at, format!("{} has wire type {wire_type}, which it cannot have", what())));
            }
        }
        let value_at = base + pos;
        match wire_type {
            VARINT => {
                varint(data, &mut pos)
                    .ok_or_else(|| (value_at, format!("the value of {} is cut off or malformed", what())))?;
            }
            FIXED64 | FIXED32 => {
                let size = if wire_type == FIXED64 { 8 } else { 4 };
                if data.len() - pos < size {
                    return Err((value_at, format!("the value of {} is cut off", what())));
                }
                pos += size;
            }
            LENGTH_DELIMITED => {
                let len = varint(data, &mut pos)
                    .ok_or_else(|| (value_at, format!("the length of {} is cut off or malformed", what())))?;
                let remaining = data.len() - pos;
                if len > remaining as u64 {
                    return Err((
                        value_at,
                        format!(
                            "{} claims {len} bytes, but only {remaining} remain in its {} message \
                             (truncated or corrupt data)",
                            what(),
                            message.name()
                        ),
                    ));
                }
                let content = data.get(pos..pos + len as usize).unwrap_or_default();
                match known.map(|(_, f)| f) {
                    Some(Field::Nested(inner)) => walk(content, base + pos, inner)?,
                    Some(Field::Numbers) => {
                        let mut p = 0;
                        while p < content.len() {
                            let number_at = base + pos + p;
                            varint(content, &mut p).ok_or_else(|| {
                                (number_at, format!("a number packed in {} is cut off or malformed", what()))
                            })?;
                        }
                    }
                    _ => {}
                }
                pos += len as usize;
            }
            START_GROUP | END_GROUP => {
                // Groups are long deprecated and no pprof writer emits them.
                return Err((at, format!("{} uses the deprecated group wire type", what())));
            }
            _ => {
                return Err((at, format!("{} has wire type {wire_type}, which does not exist", what())));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn len_field(field: u8, payload: &[u8]) -> Vec<u8> {
        let mut v = vec![field << 3 | 2, payload.len() as u8];
        v.extend_from_slice(payload);
        v
    }

    #[test]
    fn sound_messages_have_no_defect() {
        let mut m = len_field(1, &[0x08, 0x01, 0x10, 0x02]);
        m.extend(len_field(6, b"samples"));
        m.extend([0x48, 0x96, 0x01]); // time_nanos = 150
        m.extend([0xa8, 0x01, 0x07]); // field 21: unknown, skipped
        assert_eq!(first_defect(&m), None);
        assert_eq!(first_defect(&[]), None);
    }

    #[test]
    fn defects_are_located() {
        // A string table entry whose length runs past the end.
        let mut m = len_field(6, b"");
        m.extend([0x32, 0x05, b'a']);
        let (at, what) = first_defect(&m).unwrap();
        assert_eq!(at, 3);
        assert!(what.contains("Profile.string_table") && what.contains("claims 5 bytes"), "{what}");

        // A length claiming 2^62 bytes.
        let mut m = vec![0x12];
        let mut n: u64 = 1 << 62;
        while n >= 0x80 {
            m.push((n as u8 & 0x7f) | 0x80);
            n >>= 7;
        }
        m.push(n as u8);
        let (at, what) = first_defect(&m).unwrap();
        assert_eq!(at, 1);
        assert!(what.contains("4611686018427387904"), "{what}");

        // A cut-off varint inside a nested message: Sample.value packed.
        let m = len_field(2, &[0x12, 0x02, 0x05, 0x80]);
        let (at, what) = first_defect(&m).unwrap();
        assert_eq!(at, 5);
        assert!(what.contains("Sample.value"), "{what}");

        // Wrong wire type, field 0, group.
        assert!(first_defect(&[0x10, 0x01]).unwrap().1.contains("field 2 (Profile.sample) has wire type 0"));
        assert!(first_defect(&[0x00, 0x01]).unwrap().1.contains("field number 0"));
        assert_eq!(first_defect(&[0x48, 0x01, 0xab]).unwrap().0, 2);
        // An 11-byte varint.
        assert!(first_defect(&[0x48, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]).is_some());
    }
}
