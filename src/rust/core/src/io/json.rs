//! Writing JSON text: strings, numbers, and arrays of numbers packed as
//! little-endian bytes in base64 (typed arrays; see [`push_typed_array`] and
//! [`push_stepped_array`] for their forms), for the browser view's data and
//! speedscope files.
//!
//! Strings escape `<`, `>` and `&` as well, so that JSON text can be placed in an
//! HTML `<script>` element as it is.

/// Appends `s` as a JSON string.
pub fn push_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends `x` as a JSON number: integers without a fraction, others in the
/// shortest form that reads back the same; `null` for NaN and infinities
/// (which JSON cannot hold).
pub fn push_number(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push_str("null");
    } else if x == x.trunc() && x.abs() < 9.0e15 {
        out.push_str(itoa::Buffer::new().format(x as i64));
    } else {
        out.push_str(ryu::Buffer::new().format_finite(x));
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends `bytes` in base64 (RFC 4648, with padding).
#[allow(
    clippy::indexing_slicing,
    reason = "i & 63 is below 64; chunks_exact(3) gives chunks of 3 bytes"
)]
pub fn push_base64(out: &mut String, bytes: &[u8]) {
    out.reserve(bytes.len().div_ceil(3) * 4);
    let sym = |i: u32| BASE64[(i & 63) as usize] as char;
    let mut chunks = bytes.chunks_exact(3);
    for c in &mut chunks {
        let n = (c[0] as u32) << 16 | (c[1] as u32) << 8 | c[2] as u32;
        out.extend([sym(n >> 18), sym(n >> 12), sym(n >> 6), sym(n)]);
    }
    match *chunks.remainder() {
        [a] => {
            let n = (a as u32) << 16;
            out.extend([sym(n >> 18), sym(n >> 12), '=', '=']);
        }
        [a, b] => {
            let n = (a as u32) << 16 | (b as u32) << 8;
            out.extend([sym(n >> 18), sym(n >> 12), sym(n >> 6), '=']);
        }
        _ => {}
    }
}

/// Appends numbers as a typed array object, in the narrowest form that holds
/// them exactly: `{"const":v,"length":n}` when all are equal, else
/// `{"type":t,"length":n,"base64":...}` with `t` one of `u8`, `u16`, `i32`
/// (whole numbers in range) or `f64`, or, when it takes fewer bytes, the runs
/// of equal values `{"length":n,"values":...,"lengths":...}` (two typed
/// arrays: each run's value and length). The browser decodes it with
/// `Uint8Array` & co. on the bytes.
pub fn push_typed_array(out: &mut String, values: &[f64]) {
    let n = values.len();
    if let Some(&first) = values.first() {
        if values.iter().all(|&v| v.to_bits() == first.to_bits()) && first.is_finite() {
            out.push_str("{\"const\":");
            push_number(out, first);
            out.push_str(&format!(",\"length\":{n}}}"));
            return;
        }
    }
    let width = Width::of(values);
    if let Some((run_values, run_lengths)) = shorter_as_runs(values, width) {
        out.push_str(&format!("{{\"length\":{n},\"values\":"));
        push_typed_array(out, &run_values);
        out.push_str(",\"lengths\":");
        push_typed_array(out, &run_lengths);
        out.push('}');
        return;
    }
    let bytes: Vec<u8> = match width {
        Width::U8 => values.iter().map(|&v| v as u8).collect(),
        Width::U16 => values
            .iter()
            .flat_map(|&v| (v as u16).to_le_bytes())
            .collect(),
        Width::I32 => values
            .iter()
            .flat_map(|&v| (v as i32).to_le_bytes())
            .collect(),
        Width::F64 => values.iter().flat_map(|&v| v.to_le_bytes()).collect(),
    };
    out.push_str(&format!(
        "{{\"type\":\"{}\",\"length\":{n},\"base64\":\"",
        width.name()
    ));
    push_base64(out, &bytes);
    out.push_str("\"}");
}

/// The narrowest type of a typed array that holds numbers exactly.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Width {
    U8,
    U16,
    I32,
    F64,
}

impl Width {
    fn of(values: &[f64]) -> Width {
        let whole = values
            .iter()
            .all(|&v| v == v.trunc() && v.abs() <= i32::MAX as f64);
        let (min, max) = values
            .iter()
            .fold((0.0f64, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        match (whole, min >= 0.0, max) {
            (true, true, max) if max <= u8::MAX as f64 => Width::U8,
            (true, true, max) if max <= u16::MAX as f64 => Width::U16,
            (true, _, _) => Width::I32,
            _ => Width::F64,
        }
    }

    fn bytes(self) -> usize {
        match self {
            Width::U8 => 1,
            Width::U16 => 2,
            Width::I32 => 4,
            Width::F64 => 8,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Width::U8 => "u8",
            Width::U16 => "u16",
            Width::I32 => "i32",
            Width::F64 => "f64",
        }
    }
}

/// The runs of equal values (each run's value and length) when writing them
/// takes fewer bytes than writing every value (by a margin that pays for the
/// second array's JSON), else None. Values are compared by their bits.
fn shorter_as_runs(values: &[f64], width: Width) -> Option<(Vec<f64>, Vec<f64>)> {
    let dense = values.len() * width.bytes();
    let mut run_values: Vec<f64> = Vec::new();
    let mut run_lengths: Vec<f64> = Vec::new();
    for &v in values {
        match (run_values.last(), run_lengths.last_mut()) {
            (Some(last), Some(length)) if last.to_bits() == v.to_bits() => *length += 1.0,
            _ => {
                // give up as soon as the runs cannot be shorter
                if (run_values.len() + 1) * (width.bytes() + 1) + 64 >= dense {
                    return None;
                }
                run_values.push(v);
                run_lengths.push(1.0);
            }
        }
    }
    let size =
        run_values.len() * width.bytes() + run_lengths.len() * Width::of(&run_lengths).bytes();
    (size + 64 < dense).then_some((run_values, run_lengths))
}

/// Appends numbers that grow in steps of one size, such as the times of
/// samples taken at a fixed interval: when every value is `start + step * k`
/// (within a billionth of itself) for whole numbers `k`, as a typed array of
/// the differences of the `k` with `"start"` and `"step"` (the browser adds
/// them up), else as [`push_typed_array`] does. Times of a million samples
/// then take a byte each instead of eight.
pub fn push_stepped_array(out: &mut String, values: &[f64]) {
    match stepped(values) {
        Some((start, step, k_steps)) => {
            out.push_str("{\"start\":");
            push_number(out, start);
            out.push_str(",\"step\":");
            push_number(out, step);
            out.push_str(",\"steps\":");
            push_typed_array(out, &k_steps);
            out.push('}');
        }
        None => push_typed_array(out, values),
    }
}

/// `values` as `start`, `step` and the differences of the whole numbers `k`
/// with `values[i] = start + step * k[i]`: the step is the smallest positive
/// difference of neighbours.
fn stepped(values: &[f64]) -> Option<(f64, f64, Vec<f64>)> {
    let (&start, _) = values.split_first()?;
    if !values.iter().all(|v| v.is_finite()) {
        return None;
    }
    let step = values
        .windows(2)
        .filter_map(|w| match w {
            [a, b] => Some((b - a).abs()),
            _ => None,
        })
        .filter(|&d| d > 0.0)
        .fold(f64::INFINITY, f64::min);
    if !step.is_finite() {
        return None;
    }
    let mut k_steps = Vec::with_capacity(values.len());
    let mut k = 0.0f64;
    for (i, &v) in values.iter().enumerate() {
        let next = ((v - start) / step).round();
        if next.abs() > 2f64.powi(52) || (start + step * next - v).abs() > 1e-9 * v.abs().max(1.0) {
            return None;
        }
        k_steps.push(if i == 0 { 0.0 } else { next - k });
        k = next;
    }
    Some((start, step, k_steps))
}

/// [`push_typed_array`] of whole numbers.
pub fn push_typed_ints<T: Copy + Into<f64>>(out: &mut String, values: &[T]) {
    let values: Vec<f64> = values.iter().map(|&v| v.into()).collect();
    push_typed_array(out, &values);
}

#[cfg(test)]
mod tests;
