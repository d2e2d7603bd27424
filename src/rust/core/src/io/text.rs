//! Bytes from files as UTF-8 text. Profiles name functions and files in whatever
//! encoding the program used; the v2 model holds UTF-8 only. Invalid bytes are
//! written as `<xx>` (lower-case hex), the rule of R's `iconv(sub = "byte")`, so
//! the text stays readable and the R side never sees an invalid string. NUL, which
//! an R string cannot hold, becomes `<00>` as well.

use std::borrow::Cow;

/// `bytes` as UTF-8, with invalid bytes and NUL written as `<xx>`.
pub fn utf8_escaped(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.contains('\0') => Cow::Borrowed(s),
        _ => Cow::Owned(escape_slow(bytes)),
    }
}

#[allow(clippy::indexing_slicing, reason = "a nibble is below 16")]
fn push_byte_escape(out: &mut String, b: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('<');
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 0x0f)]));
    out.push('>');
}

fn push_valid(out: &mut String, s: &str) {
    for (i, part) in s.split('\0').enumerate() {
        if i > 0 {
            push_byte_escape(out, 0);
        }
        out.push_str(part);
    }
}

fn escape_slow(mut bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 8);
    loop {
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                push_valid(&mut out, s);
                return out;
            }
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                // `valid` is valid UTF-8 by construction of `valid_up_to`.
                push_valid(&mut out, std::str::from_utf8(valid).unwrap_or_default());
                // An incomplete sequence at the end has no error_len; escape the rest.
                let bad = e.error_len().unwrap_or(rest.len()).max(1).min(rest.len());
                for &b in rest.get(..bad).unwrap_or_default() {
                    push_byte_escape(&mut out, b);
                }
                bytes = rest.get(bad..).unwrap_or_default();
            }
        }
    }
}

/// Whether data start like text (a legacy text profile, a log, ...): their
/// first 256 bytes are UTF-8 (a character cut at the end of the window is
/// fine) of at least 4 bytes, without control characters other than line
/// breaks and tabs. The readers of binary formats name such data in their
/// refusal.
pub fn looks_like_text(data: &[u8]) -> bool {
    let head = data.get(..data.len().min(256)).unwrap_or_default();
    let text = match std::str::from_utf8(head) {
        Ok(s) => s,
        Err(e) if e.error_len().is_none() => {
            std::str::from_utf8(head.get(..e.valid_up_to()).unwrap_or_default()).unwrap_or("")
        }
        Err(_) => return false,
    };
    text.len() >= 4
        && text
            .chars()
            .all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t'))
}

#[cfg(test)]
mod tests;
