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
/// (whole numbers in range) or `f64`. The browser decodes it with
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
    let whole = values
        .iter()
        .all(|&v| v == v.trunc() && v.abs() <= i32::MAX as f64);
    let (min, max) = values
        .iter()
        .fold((0.0f64, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let (kind, bytes): (&str, Vec<u8>) = if whole && min >= 0.0 && max <= u8::MAX as f64 {
        ("u8", values.iter().map(|&v| v as u8).collect())
    } else if whole && min >= 0.0 && max <= u16::MAX as f64 {
        (
            "u16",
            values
                .iter()
                .flat_map(|&v| (v as u16).to_le_bytes())
                .collect(),
        )
    } else if whole {
        (
            "i32",
            values
                .iter()
                .flat_map(|&v| (v as i32).to_le_bytes())
                .collect(),
        )
    } else {
        (
            "f64",
            values.iter().flat_map(|&v| v.to_le_bytes()).collect(),
        )
    };
    out.push_str(&format!(
        "{{\"type\":\"{kind}\",\"length\":{n},\"base64\":\""
    ));
    push_base64(out, &bytes);
    out.push_str("\"}");
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
mod tests {
    use super::*;

    fn string(s: &str) -> String {
        let mut out = String::new();
        push_string(&mut out, s);
        out
    }

    fn typed(values: &[f64]) -> String {
        let mut out = String::new();
        push_typed_array(&mut out, values);
        out
    }

    #[test]
    fn strings_are_escaped_for_json_inside_html() {
        assert_eq!(string("a\"b\\c"), r#""a\"b\\c""#);
        assert_eq!(
            string("</script>\n\u{1}"),
            r#""\u003c/script\u003e\n\u0001""#
        );
        assert_eq!(string("é ü 日本"), "\"é ü 日本\"");
    }

    #[test]
    fn numbers() {
        let num = |x: f64| {
            let mut out = String::new();
            push_number(&mut out, x);
            out
        };
        assert_eq!(num(3.0), "3");
        assert_eq!(num(-12.0), "-12");
        assert_eq!(num(0.5), "0.5");
        assert_eq!(num(1e300), "1e300");
        assert_eq!(num(f64::NAN), "null");
        assert_eq!(num(f64::INFINITY), "null");
    }

    #[test]
    fn base64_of_rfc_4648_examples() {
        let b64 = |s: &str| {
            let mut out = String::new();
            push_base64(&mut out, s.as_bytes());
            out
        };
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(b64(plain), coded);
        }
    }

    #[test]
    fn regular_steps_are_sent_as_differences() {
        let stepped = |values: &[f64]| {
            let mut out = String::new();
            push_stepped_array(&mut out, values);
            out
        };
        // 0.004 s ticks: whole steps of 1 and 3, one byte each
        let times: Vec<f64> = [0.0, 1.0, 2.0, 5.0, 6.0]
            .iter()
            .map(|k| k * 0.004)
            .collect();
        assert_eq!(
            stepped(&times),
            r#"{"start":0,"step":0.004,"steps":{"type":"u8","length":5,"base64":"AAEBAwE="}}"#
        );
        // going back (a new source) is a negative difference
        assert!(stepped(&[1.0, 2.0, 0.0]).contains(r#""steps":{"type":"i32""#));
        // not on a grid, or nothing to step: as they are
        assert!(stepped(&[0.0, 1.0, 1.5, 1.7]).starts_with(r#"{"type":"f64""#));
        assert_eq!(stepped(&[2.0, 2.0]), r#"{"const":2,"length":2}"#);
        assert_eq!(stepped(&[]), r#"{"type":"u8","length":0,"base64":""}"#);
        assert!(stepped(&[0.0, f64::NAN]).starts_with(r#"{"type":"f64""#));
    }

    #[test]
    fn typed_arrays_take_the_narrowest_form() {
        assert_eq!(typed(&[]), r#"{"type":"u8","length":0,"base64":""}"#);
        assert_eq!(typed(&[0.0, 0.0]), r#"{"const":0,"length":2}"#);
        assert_eq!(
            typed(&[1.0, 255.0]),
            r#"{"type":"u8","length":2,"base64":"Af8="}"#
        );
        assert_eq!(
            typed(&[1.0, 256.0]),
            r#"{"type":"u16","length":2,"base64":"AQAAAQ=="}"#
        );
        assert_eq!(
            typed(&[-1.0, 2.0]),
            r#"{"type":"i32","length":2,"base64":"/////wIAAAA="}"#
        );
        assert!(typed(&[0.5, 1.0]).starts_with(r#"{"type":"f64","length":2,"#));
        assert!(typed(&[1e10, 1.0]).starts_with(r#"{"type":"f64""#));
        assert!(typed(&[f64::NAN, f64::NAN]).starts_with(r#"{"type":"f64""#));
    }
}
