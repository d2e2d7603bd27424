//! OTLP attribute values (`AnyValue`) as the columns of the v2 attribute
//! tables (`sample_labels`, `resource_attributes`, `scope_attributes`,
//! `source_attributes`, `mapping_attributes`, `location_attributes`):
//! `value` (text), `num` (a double), `num_unit` (the unit, of any kind) and
//! `kind`.
//!
//! | AnyValue | kind | value | num |
//! |---|---|---|---|
//! | string (or a string of the dictionary) | NA | the string | NA |
//! | int, within ±2^53 | NA | NA | the number |
//! | int, beyond ±2^53 | `"int"` | the exact decimal text | the number (rounded) |
//! | bool | `"bool"` | `"true"` / `"false"` | NA |
//! | double | `"double"` | NA | the number (NaN: NA) |
//! | bytes | `"bytes"` | lower-case hex | NA |
//! | array | `"array"` | its OTLP/JSON text | NA |
//! | key-value list | `"kvlist"` | its OTLP/JSON text | NA |
//! | no value | `"empty"` | NA | NA |
//!
//! A string or an integer thus reads as a pprof label does (kind NA), and
//! pprof labels write as string and integer attributes. Strings of the
//! dictionary inside arrays and lists are written out as strings.

use super::proto::{self, any_value::Value};
use super::{hex, unhex};
use crate::error::{ProfileError, Result};
use crate::model::{StrId, StringPool};

/// Integers whose magnitude is at most this are exact as doubles.
const EXACT_INTEGER: i64 = 1 << 53;

/// The attribute columns of one value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Cells {
    pub value: StrId,
    pub num: f64,
    pub kind: StrId,
}

/// Resolves a string index of the dictionary ("what" names the referring
/// field for the error).
pub(crate) type Strings<'a> = &'a dyn Fn(i32, &dyn Fn() -> String) -> Result<String>;

/// The columns of `value` (None: an attribute without a value).
pub(crate) fn cells(
    value: Option<&proto::AnyValue>,
    strings: Strings<'_>,
    pool: &mut StringPool,
    what: &dyn Fn() -> String,
) -> Result<Cells> {
    let na = |kind: StrId| Cells {
        value: StrId::NA,
        num: f64::NAN,
        kind,
    };
    let Some(value) = value.and_then(|v| v.value.as_ref()) else {
        return Ok(na(pool.intern("empty")));
    };
    Ok(match value {
        Value::StringValue(s) => Cells {
            value: pool.intern(&crate::io::text::utf8_escaped(s)),
            num: f64::NAN,
            kind: StrId::NA,
        },
        Value::StringValueStrindex(i) => Cells {
            value: pool.intern(&strings(*i, what)?),
            num: f64::NAN,
            kind: StrId::NA,
        },
        Value::IntValue(i) if (-EXACT_INTEGER..=EXACT_INTEGER).contains(i) => Cells {
            value: StrId::NA,
            num: *i as f64,
            kind: StrId::NA,
        },
        Value::IntValue(i) => Cells {
            value: pool.intern(itoa::Buffer::new().format(*i)),
            num: *i as f64,
            kind: pool.intern("int"),
        },
        Value::BoolValue(b) => Cells {
            value: pool.intern(if *b { "true" } else { "false" }),
            num: f64::NAN,
            kind: pool.intern("bool"),
        },
        Value::DoubleValue(d) => Cells {
            value: StrId::NA,
            num: *d,
            kind: pool.intern("double"),
        },
        Value::BytesValue(b) => Cells {
            value: pool.intern(&hex(b)),
            num: f64::NAN,
            kind: pool.intern("bytes"),
        },
        Value::ArrayValue(_) | Value::KvlistValue(_) => {
            let kind = if matches!(value, Value::ArrayValue(_)) {
                "array"
            } else {
                "kvlist"
            };
            let resolved = resolve(value, strings, what, 0)?;
            let text = super::json::any_value_text(&proto::AnyValue {
                value: Some(resolved),
            });
            Cells {
                value: pool.intern(&text),
                num: f64::NAN,
                kind: pool.intern(kind),
            }
        }
    })
}

/// `value` with the dictionary's strings it refers to written out.
fn resolve(
    value: &Value,
    strings: Strings<'_>,
    what: &dyn Fn() -> String,
    depth: usize,
) -> Result<Value> {
    if depth > super::decode::MAX_NESTING {
        return Err(ProfileError::format(
            None,
            format!("{}: values nested too deeply", what()),
        ));
    }
    let any = |v: &proto::AnyValue| -> Result<proto::AnyValue> {
        Ok(proto::AnyValue {
            value: v
                .value
                .as_ref()
                .map(|v| resolve(v, strings, what, depth + 1))
                .transpose()?,
        })
    };
    Ok(match value {
        Value::StringValueStrindex(i) => Value::StringValue(strings(*i, what)?.into_bytes()),
        Value::ArrayValue(a) => Value::ArrayValue(proto::ArrayValue {
            values: a.values.iter().map(any).collect::<Result<_>>()?,
        }),
        Value::KvlistValue(l) => Value::KvlistValue(proto::KeyValueList {
            values: l
                .values
                .iter()
                .map(|kv| {
                    Ok(proto::KeyValue {
                        key: key_of(kv, strings, what)?.into_bytes(),
                        value: kv.value.as_ref().map(any).transpose()?,
                        key_strindex: 0,
                    })
                })
                .collect::<Result<_>>()?,
        }),
        other => other.clone(),
    })
}

/// The key of a `KeyValue`: `key`, or the dictionary's string `key_strindex`.
pub(crate) fn key_of(
    kv: &proto::KeyValue,
    strings: Strings<'_>,
    what: &dyn Fn() -> String,
) -> Result<String> {
    if kv.key_strindex != 0 && kv.key.is_empty() {
        strings(kv.key_strindex, what)
    } else {
        Ok(crate::io::text::utf8_escaped(&kv.key).into_owned())
    }
}

/// The `AnyValue` of the attribute columns of a row (`table` and `row` name
/// it in errors).
pub(crate) fn any_value(
    pool: &StringPool,
    cells: Cells,
    budget: &crate::resources::budget::Budget,
    table: &str,
    row: usize,
) -> Result<proto::AnyValue> {
    let text = pool.get(cells.value);
    let bad = |what: &str| ProfileError::invalid(table, "value", Some(row + 1), what.to_string());
    let value = match pool.get(cells.kind) {
        None => match text {
            Some(s) => Some(Value::StringValue(s.as_bytes().to_vec())),
            None if !cells.num.is_nan() => Some(Value::IntValue(to_i64(cells.num))),
            None => None,
        },
        Some("int") => Some(Value::IntValue(match text {
            Some(s) => s.trim().parse::<i64>().map_err(|_| {
                bad(&format!(
                    "must be an integer for kind \"int\", found \"{s}\""
                ))
            })?,
            None => to_i64(cells.num),
        })),
        Some("bool") => Some(Value::BoolValue(match text {
            Some("true") | Some("TRUE") => true,
            Some("false") | Some("FALSE") | None => false,
            Some(s) => {
                return Err(bad(&format!(
                    "must be \"true\" or \"false\" for kind \"bool\", found \"{s}\""
                )))
            }
        })),
        Some("double") => Some(Value::DoubleValue(cells.num)),
        Some("bytes") => Some(Value::BytesValue(match text {
            Some(s) => unhex(s.as_bytes())
                .ok_or_else(|| bad(&format!("must be hex for kind \"bytes\", found \"{s}\"")))?,
            None => Vec::new(),
        })),
        Some("array") | Some("kvlist") => {
            let s = text.unwrap_or("");
            let parsed = super::json::parse_any_value(s, budget)
                .and_then(|v| v.value)
                .filter(|v| {
                    matches!(
                        (v, pool.get(cells.kind)),
                        (Value::ArrayValue(_), Some("array"))
                            | (Value::KvlistValue(_), Some("kvlist"))
                    )
                })
                .ok_or_else(|| {
                    bad(&format!(
                        "must be the OTLP/JSON text of an AnyValue of kind \"{}\", found \"{s}\"",
                        pool.str(cells.kind)
                    ))
                })?;
            Some(parsed)
        }
        Some(_) => None,
    };
    Ok(proto::AnyValue { value })
}

/// A double as an OTLP integer: rounded, NA as 0, saturated.
pub(crate) fn to_i64(x: f64) -> i64 {
    if x.is_nan() {
        0
    } else {
        x.round() as i64
    }
}

#[cfg(test)]
mod tests;
