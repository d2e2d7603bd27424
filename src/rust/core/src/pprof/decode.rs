//! Decoding the pprof protobuf message by the rules of Go's parser
//! (`github.com/google/pprof/profile`, what `go tool pprof` reads with), so that
//! `read_pprof()` accepts the messages Go accepts (the differential test against
//! Go: `tests/testthat/test-oracle-pprof.R`). A generic protobuf decoder differs
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
pub(crate) use crate::wire::Failure;
use crate::wire::{nth_name, reserve, reserve_exact, Decoded, Field, Fields, Schema};

/// pprof's field names, for error messages.
static PPROF: Schema = Schema {
    format: "pprof",
    field: known_field,
};

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
    nth_name(names, number)
}

/// Decodes a whole pprof message.
pub(crate) fn decode(data: &[u8]) -> Decoded<proto::Profile> {
    let mut p = proto::Profile::default();
    reserve_top_level(data, &mut p)?;
    let mut fields = Fields::new(data, 0, "Profile", &PPROF);
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
    let mut fields = Fields::new(data, 0, "Profile", &PPROF);
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
