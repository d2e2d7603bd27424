//! The syntax of Rprof lines: lines, frames and line references, `#File`
//! lines and memory prefixes, read as R writes them and as far as they make
//! sense when damaged.

use super::super::{parse_u32, parse_u64, Header, WARN_INCOMPLETE, WARN_UNEXPECTED};
use crate::error::{ProfileError, Result};
use crate::io::text::utf8_escaped;
use crate::model::StrId;
use crate::resources::budget::Budget;
use crate::resources::limits::Limits;
use memchr::{memchr, memmem};
use rustc_hash::FxHashMap;

/// Lines without their line end (LF or CRLF); the last line may lack one.
pub(super) struct Lines<'a> {
    pub(super) rest: &'a [u8],
    /// Number of the line last returned (1-based).
    pub(super) number: u32,
    /// The lines end where `rest` has this many bytes left (0: at the end of the
    /// input; a chunk ends before it).
    pub(super) stop_at: usize,
}

impl<'a> Lines<'a> {
    /// The lines of `text`, counted from `after` + 1.
    pub(super) fn new(text: &'a [u8], after: u32) -> Self {
        Lines {
            rest: text,
            number: after,
            stop_at: 0,
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.rest.len() <= self.stop_at {
            return None;
        }
        self.number = self.number.saturating_add(1);
        let (line, rest) = match memchr(b'\n', self.rest) {
            Some(i) => (self.rest.get(..i)?, self.rest.get(i + 1..)?),
            None => (self.rest, &[][..]),
        };
        self.rest = rest;
        Some(line.strip_suffix(b"\r").unwrap_or(line))
    }
}

/// One frame of a stack line: the name between the quotes and the `N#L` reference
/// to its left, if any. A frame with an empty name (which no named frame has: R
/// never writes `""`) is the top level: a reference with no frame to its right,
/// the line of the top-level code that made the outermost call.
#[derive(Debug, Clone, Copy)]
pub(super) struct Frame<'a> {
    pub(super) name: &'a [u8],
    pub(super) file_ref: Option<FileRef>,
}

impl Frame<'_> {
    pub(super) fn top_level(file_ref: FileRef) -> Frame<'static> {
        Frame {
            name: b"",
            file_ref: Some(file_ref),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct FileRef {
    pub(super) file: u32,
    pub(super) line: i32,
}

/// The frames of the stack line `body` (line `line_number`, after any memory
/// prefix), innermost first, into `frames`; damage is passed over with a warning.
/// A reference at the end of a line that R cut (`cut_by_r`) is the call site
/// of a frame that is missing, not the top level: it goes, with the warning.
pub(super) fn read_frames<'a>(
    body: &'a [u8],
    line_number: u32,
    cut_by_r: bool,
    limits: &Limits,
    frames: &mut Vec<Frame<'a>>,
    mut warn: impl FnMut(&'static str),
) -> Result<()> {
    let mut pos = 0;
    let mut pending_ref: Option<FileRef> = None;
    loop {
        while body.get(pos) == Some(&b' ') {
            pos += 1;
        }
        let Some(&first) = body.get(pos) else {
            match pending_ref {
                // R ends a reference with a space, like a frame: without it,
                // or at the end of a line as long as those R cuts, the line
                // was cut.
                Some(_) if cut_by_r || !body.ends_with(b" ") => warn(WARN_INCOMPLETE),
                // A reference with no frame to its right: the line of the
                // top-level code (R writes the srcref of each call after its
                // name, and the outermost call's is that of the top level).
                Some(file_ref) => {
                    frames.push(Frame::top_level(file_ref));
                    limits.check_stack_depth(frames.len(), || format!("line {line_number}"))?;
                }
                None => {}
            }
            return Ok(());
        };
        if first == b'"' {
            let Some(close) = closing_quote(body, pos + 1) else {
                warn(WARN_INCOMPLETE);
                return Ok(());
            };
            let name = body.get(pos + 1..close).unwrap_or_default();
            if name.is_empty() {
                warn(WARN_UNEXPECTED);
                pending_ref = None;
            } else {
                frames.push(Frame {
                    name,
                    file_ref: pending_ref.take(),
                });
                limits.check_stack_depth(frames.len(), || format!("line {line_number}"))?;
            }
            pos = close + 1;
        } else if let Some((file_ref, end)) = line_ref(body, pos) {
            if pending_ref.is_some() {
                warn(WARN_UNEXPECTED);
            }
            pending_ref = Some(file_ref);
            pos = end;
        } else {
            // Unreadable: skip to the end of the next frame, as profile 1.0.4
            // (which splits lines at `" `) drops such a piece.
            let rest_of_line = body.get(pos..).unwrap_or_default();
            match memmem::find(rest_of_line, b"\" ") {
                Some(i) => {
                    warn(WARN_UNEXPECTED);
                    pending_ref = None;
                    pos += i + 2;
                }
                None => {
                    warn(WARN_INCOMPLETE);
                    return Ok(());
                }
            }
        }
    }
}

/// `#File N: path` as (N, path).
pub(super) fn parse_file_line(line: &[u8]) -> Option<(u32, &[u8])> {
    let rest = line.strip_prefix(b"#File ")?;
    let colon = memchr(b':', rest)?;
    let number = parse_u32(rest.get(..colon)?)?;
    let path = rest.get(colon + 1..)?.strip_prefix(b" ")?;
    Some((number, path))
}

/// The `#File` lines between here and the next header.
pub(super) fn files_ahead(
    rest: &[u8],
    strings: &mut crate::StringPool,
    budget: &Budget,
) -> Result<FxHashMap<u32, StrId>> {
    let mut files = FxHashMap::default();
    for line in Lines::new(rest, 0) {
        if line.starts_with(b"#File") {
            if let Some((number, path)) = parse_file_line(line) {
                if !files.contains_key(&number) {
                    let path = strings.try_intern(&utf8_escaped(path), budget)?;
                    budget.room(&mut files, 1, || "the `#File` lines".to_string())?;
                    files.insert(number, path);
                }
            }
        } else if !matches!(line.first(), Some(b'"' | b':' | b'0'..=b'9'))
            && Header::parse(line).is_some()
        {
            break;
        }
    }
    Ok(files)
}

/// What is wrong with a memory prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PrefixDefect {
    /// The line ends inside the prefix, which is whole so far (digits and colons).
    Cut,
    /// A field that is not a whole number (empty, signed, not digits, larger than
    /// 2^64 - 1), or a fifth field.
    Malformed,
}

/// The memory prefix `:small:large:nodes:dups:` at the start of `line` (which
/// starts with `:`): the four numbers and the position after the last colon.
/// Each field is one or more ASCII digits; digits and a colon right after the
/// prefix would be a fifth field.
pub(super) fn memory_prefix(line: &[u8]) -> std::result::Result<([u64; 4], usize), PrefixDefect> {
    let mut values = [0u64; 4];
    let mut pos = 1; // after the leading ':'
    for v in &mut values {
        let rest = line.get(pos..).unwrap_or_default();
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        match rest.get(digits) {
            None => return Err(PrefixDefect::Cut),
            Some(b':') => {}
            Some(_) => return Err(PrefixDefect::Malformed),
        }
        *v = parse_u64(rest.get(..digits).unwrap_or_default()).ok_or(PrefixDefect::Malformed)?;
        pos += digits + 1;
    }
    let after = line.get(pos..).unwrap_or_default();
    let digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 && after.get(digits) == Some(&b':') {
        return Err(PrefixDefect::Malformed);
    }
    Ok((values, pos))
}

/// The error for line `line_number` (`line`), whose memory prefix is not four
/// whole numbers.
pub(super) fn bad_prefix_error(line: &[u8], line_number: u32) -> ProfileError {
    // The prefix and a fifth field if there is one (up to the sixth colon), at
    // most 60 bytes.
    let end = memchr::memchr_iter(b':', line)
        .nth(5)
        .map_or(line.len(), |i| i + 1)
        .min(60);
    let prefix = utf8_escaped(line.get(..end).unwrap_or(line));
    ProfileError::at_line(
        line_number as usize,
        format!(
            "the memory profiling prefix must be four whole numbers, `:small:large:nodes:dups:`, found `{prefix}`"
        ),
    )
}

/// The position of the quote that closes a frame name starting at `start`.
///
/// Names may contain quotes (`x[["a"]]`), so a quote closes the name only where
/// R's format continues after it: followed by a space and then the end of the
/// line, another frame or a line reference. A name such as `x[["a" "b"]]` stays
/// ambiguous; R writes it the same way as two frames. R ends every frame with a
/// space, so a quote at the very end of the line does not close a name: the line
/// was cut there (profile 1.0.4 also took it for incomplete, and its own sample of
/// an incomplete profile has such lines).
pub(super) fn closing_quote(line: &[u8], start: usize) -> Option<usize> {
    let mut from = start;
    loop {
        let q = from + memchr(b'"', line.get(from..)?)?;
        if line.get(q + 1) == Some(&b' ') {
            let mut next = q + 2;
            while line.get(next) == Some(&b' ') {
                next += 1;
            }
            match line.get(next) {
                None | Some(b'"') => return Some(q),
                Some(_) if could_be_line_ref(line, next) => return Some(q),
                Some(_) => {}
            }
        }
        from = q + 1;
    }
}

/// Whether a line reference starts at `pos`: `N#L ` or, at the end of the line,
/// `N#L`, `N#` or `N` (a reference cut off with the line).
pub(super) fn could_be_line_ref(line: &[u8], pos: usize) -> bool {
    let rest = line.get(pos..).unwrap_or_default();
    let file_digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if file_digits == 0 {
        return false;
    }
    match rest.get(file_digits) {
        None => true,
        Some(b'#') => {
            let after = rest.get(file_digits + 1..).unwrap_or_default();
            let line_digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
            match after.get(line_digits) {
                None => true,
                Some(b' ') => line_digits > 0,
                Some(_) => false,
            }
        }
        Some(_) => false,
    }
}

/// A line reference `N#L` at `pos`, followed by a space or the end of the line:
/// the reference and the position after it.
pub(super) fn line_ref(line: &[u8], pos: usize) -> Option<(FileRef, usize)> {
    let rest = line.get(pos..)?;
    let hash = rest.iter().take(11).position(|&b| b == b'#')?;
    let file = parse_u32(rest.get(..hash)?)?;
    let after = rest.get(hash + 1..)?;
    let digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
    let line_no = i32::try_from(parse_u32(after.get(..digits)?)?).ok()?;
    let end = pos + hash + 1 + digits;
    match line.get(end) {
        None => Some((
            FileRef {
                file,
                line: line_no,
            },
            end,
        )),
        Some(b' ') => Some((
            FileRef {
                file,
                line: line_no,
            },
            end + 1,
        )),
        Some(_) => None,
    }
}
