//! Reading Rprof text into the v2 model, in one pass over the lines (`Reader`),
//! or for large inputs in chunks on several threads with the same result (see
//! [`parallel`]).
//!
//! Ids are given in order of first appearance (functions and locations as their
//! frames are first met, reading lines top to bottom and frames innermost first), so
//! the same bytes always give the same tables.

use super::{Header, WARN_INCOMPLETE};
use crate::budget::Budget;
use crate::error::{ProfileError, Result};
use crate::limits::Limits;
use crate::model::Profile;
use memchr::memchr;
use rustc_hash::FxHashMap;

mod compact;
mod content;
mod parallel;
mod reader;
mod syntax;
pub use compact::{tick_time, CompactColumn, CompactRead, SampleShape, MICROSECONDS};
pub use content::RprofContent;
#[cfg(test)]
pub(super) use parallel::chunks_for;
use reader::Reader;
use syntax::{bad_prefix_error, memory_prefix, read_frames, Frame, Lines, PrefixDefect};

/// A parsed file: the profile, the warnings to show the user (each text once, in
/// order of first occurrence), and for each sample (in `sample_id` order) the line
/// of the file it was read from (1-based), which v1 objects use as names.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub profile: Profile,
    pub warnings: Vec<String>,
    pub sample_lines: Vec<u32>,
}

/// Parses the (already decompressed) bytes of an Rprof file under the default
/// [`Limits`]; see [`parse_with_limits`].
pub fn parse(bytes: &[u8], source_uri: Option<&str>) -> Result<Parsed> {
    parse_with_limits(bytes, source_uri, &Limits::default())
}

/// Parses the (already decompressed) bytes of an Rprof file. `source_uri` goes into
/// every `sources` row. A file that does not start with a header, or that holds a
/// NUL byte (binary data: R never writes one), is an error, and so is a stack
/// deeper than the limit or a read that needs more memory than the limit
/// allows; damaged stack lines are read as far as they make sense, with a
/// warning. Large files are read in chunks on all cores (see `parallel`), with
/// the same result.
pub fn parse_with_limits(
    bytes: &[u8],
    source_uri: Option<&str>,
    limits: &Limits,
) -> Result<Parsed> {
    let budget = Budget::new(*limits);
    parse_compact(bytes, source_uri, &budget)?.expand(&budget)
}

/// [`parse_with_limits`] as a compact read (the compact columns are left
/// unwritten, see [`CompactRead`]) under `budget`, which is charged for what
/// the read holds when it ends, the bytes given excepted.
pub fn parse_compact(
    bytes: &[u8],
    source_uri: Option<&str>,
    budget: &Budget,
) -> Result<CompactRead> {
    parse_compact_in_chunks(bytes, source_uri, budget, parallel::chunks_for(bytes.len()))
}

/// [`parse_with_limits`] with the number of chunks read in parallel given (1 reads
/// the file in one pass on this thread). Not part of the API: for tests and timings.
#[doc(hidden)]
pub fn parse_in_chunks(
    bytes: &[u8],
    source_uri: Option<&str>,
    limits: &Limits,
    chunks: usize,
) -> Result<Parsed> {
    let budget = Budget::new(*limits);
    parse_compact_in_chunks(bytes, source_uri, &budget, chunks)?.expand(&budget)
}

fn parse_compact_in_chunks(
    bytes: &[u8],
    source_uri: Option<&str>,
    budget: &Budget,
    chunks: usize,
) -> Result<CompactRead> {
    let start = Start::read(bytes)?;
    if chunks > 1 {
        return parallel::parse(start, source_uri, budget, chunks);
    }
    let Start {
        body,
        first,
        header,
        lines,
    } = start;
    let expected_lines = expected_lines(body);
    let mut reader = Reader::new(source_uri, expected_lines, budget)?;
    reader.start_segment(first, header)?;
    read_lines(&mut reader, lines)?;
    Ok(reader.finish())
}

/// [`parse_compact`] of bytes it owns (charged to `budget`): a large input is
/// freed (and released) as soon as it has been read, before the per-sample
/// columns are written, which lowers the peak memory of a read by the size of
/// the input. What a read that sends the compact columns in compact form (the
/// R binding) calls.
pub fn parse_owned_compact(
    bytes: Vec<u8>,
    source_uri: Option<&str>,
    budget: &Budget,
) -> Result<CompactRead> {
    let chunks = parallel::chunks_for(bytes.len());
    parse_owned_compact_in_chunks(bytes, source_uri, budget, chunks)
}

/// [`parse_owned_compact`] with the number of chunks given; see [`parse_in_chunks`].
#[doc(hidden)]
pub fn parse_owned_compact_in_chunks(
    bytes: Vec<u8>,
    source_uri: Option<&str>,
    budget: &Budget,
    chunks: usize,
) -> Result<CompactRead> {
    if chunks > 1 {
        return parallel::parse_owned(bytes, source_uri, budget, chunks);
    }
    parse_compact_in_chunks(&bytes, source_uri, budget, 1)
}

/// How many samples `text` may hold, for reserving; see [`expected_lines_of`].
fn expected_lines(text: &[u8]) -> usize {
    expected_lines_of(memchr::memchr_iter(b'\n', text).count(), text.len())
}

/// How many samples a text of `len` bytes with `line_ends` line ends may hold:
/// one per line, and a sample line has at least 4 bytes (`"f" ` or `:1:2:3:4:`)
/// plus its line end.
fn expected_lines_of(line_ends: usize, len: usize) -> usize {
    (line_ends + 1).min(len / 5 + 1)
}

/// The checked start of a file: its header line, and the lines after it.
struct Start<'a> {
    /// The bytes without a byte order mark.
    body: &'a [u8],
    first: &'a [u8],
    header: Header,
    lines: Lines<'a>,
}

impl<'a> Start<'a> {
    fn read(bytes: &'a [u8]) -> Result<Start<'a>> {
        let body = without_bom(bytes);
        let mut lines = Lines::new(body, 0);
        let first = lines
            .next()
            .ok_or_else(|| ProfileError::format(None, "the file is empty"))?;
        let header = header_line(first)?;
        if let Some(at) = memchr(0, body) {
            return Err(nul_byte_error(bytes, at + (bytes.len() - body.len())));
        }
        Ok(Start {
            body,
            first,
            header,
            lines,
        })
    }
}

/// The bytes after a UTF-8 byte order mark, if there is one.
fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)
}

/// The header of the first line of a file (without its line end), or the error
/// for a file that is not an Rprof file.
fn header_line(first: &[u8]) -> Result<Header> {
    Header::parse(first).ok_or_else(|| {
        ProfileError::at_line(
            1,
            "not an Rprof file: the first line should be a header such as `sample.interval=20000`",
        )
    })
}

/// What the line loop ([`read_lines`]) hands on: the reader of a whole file, or the
/// reader of one chunk of it, which gives ids of its own (see [`parallel`]).
trait LineHandler<'a> {
    /// A header: a new segment starts.
    fn header(&mut self, line: &'a [u8], header: Header) -> Result<()>;
    /// A `#File N: path` line.
    fn file(&mut self, line: &'a [u8]) -> Result<()>;
    fn warn(&mut self, message: &'static str);
    fn limits(&self) -> Limits;
    /// The read's memory budget, charged for what grows with the input.
    fn budget(&self) -> &'a Budget;
    /// The stack lines of the current segment seen so far.
    fn stacks(&mut self) -> &mut StackCache<'a>;
    /// The id of the location of a frame of a new stack line; `rest` is the input
    /// after that line.
    fn frame_location(&mut self, frame: &Frame<'a>, rest: &'a [u8]) -> Result<i32>;
    /// A sample read from line `line_number`: its memory gauges and its stack, the
    /// locations `stacks().locations[start..start + len]`.
    fn sample(
        &mut self,
        gauges: Option<[u64; 4]>,
        start: usize,
        len: usize,
        line_number: u32,
    ) -> Result<()>;
}

/// Reads `lines` (the lines after a header) into `handler`.
fn read_lines<'a>(handler: &mut impl LineHandler<'a>, mut lines: Lines<'a>) -> Result<()> {
    while let Some(line) = lines.next() {
        if matches!(line.first(), None | Some(b' ' | b'\t'))
            && line.iter().all(|&b| b == b' ' || b == b'\t')
        {
            continue;
        }
        match line.first() {
            Some(b'"' | b':' | b'0'..=b'9') => stack_line(handler, line, lines.number, lines.rest)?,
            _ if line.starts_with(b"#File") => handler.file(line)?,
            _ => match Header::parse(line) {
                Some(h) => handler.header(line, h)?,
                None => stack_line(handler, line, lines.number, lines.rest)?,
            },
        }
    }
    Ok(())
}

/// The error for a NUL byte at `offset` (0-based, as `xxd` counts) of `bytes`.
fn nul_byte_error(bytes: &[u8], offset: usize) -> ProfileError {
    let before = bytes.get(..offset).unwrap_or_default();
    nul_byte_at(
        memchr::memchr_iter(b'\n', before).count() as u64 + 1,
        offset as u64,
    )
}

/// The error for a NUL byte on line `line` (1-based) at byte `offset`.
fn nul_byte_at(line: u64, offset: u64) -> ProfileError {
    ProfileError::format(
        Some(format!("line {line}, byte offset {offset}")),
        "a NUL byte: an Rprof file is text, and this looks like binary data",
    )
}

/// Stack lines of the current segment seen so far (without memory prefix), with
/// the range of `locations` that holds their location ids.
#[derive(Default)]
struct StackCache<'a> {
    seen: FxHashMap<&'a [u8], (usize, usize)>,
    locations: Vec<i32>,
    /// Scratch space for the frames of a line.
    frames: Vec<Frame<'a>>,
}

impl StackCache<'_> {
    /// Releases what the budget was charged for the cache, which is about to
    /// be freed.
    fn release(&self, budget: &Budget) {
        budget.release_all(&self.seen);
        budget.release_all(&self.locations);
    }
}

/// A stack line: optional memory prefix, then frames. `rest` is the input after
/// this line (for a reference whose `#File` line comes later).
fn stack_line<'a>(
    handler: &mut impl LineHandler<'a>,
    line: &'a [u8],
    line_number: u32,
    rest: &'a [u8],
) -> Result<()> {
    let mut gauges = None;
    let mut body = line;
    if line.first() == Some(&b':') {
        match memory_prefix(line) {
            Ok((values, end)) => {
                gauges = Some(values);
                body = line.get(end..).unwrap_or_default();
            }
            // The last line of a file that was cut off (a session killed while
            // writing) is passed over, as a cut stack is.
            Err(PrefixDefect::Cut) if rest.is_empty() => {
                handler.warn(WARN_INCOMPLETE);
                return Ok(());
            }
            Err(_) => return Err(bad_prefix_error(line, line_number)),
        }
    }
    // Profiles repeat the same stacks over and over: a stack line seen before
    // in this segment (where `#File` numbers mean the same files) has the same
    // locations, and its warnings have been given already.
    let (start, len) = match handler.stacks().seen.get(body) {
        Some(&range) => range,
        None => {
            let range = new_stack(handler, body, rest, line_number)?;
            let budget = handler.budget();
            budget.room(&mut handler.stacks().seen, 1, || {
                "the distinct stack lines".to_string()
            })?;
            handler.stacks().seen.insert(body, range);
            range
        }
    };
    if gauges.is_none() && len == 0 {
        return Ok(());
    }
    handler.sample(gauges, start, len, line_number)
}

/// Reads the frames of a stack line (after any memory prefix) and appends their
/// location ids to the stack cache: returns where they start and how many.
fn new_stack<'a>(
    handler: &mut impl LineHandler<'a>,
    body: &'a [u8],
    rest: &'a [u8],
    line_number: u32,
) -> Result<(usize, usize)> {
    let mut frames = std::mem::take(&mut handler.stacks().frames);
    frames.clear();
    let limits = handler.limits();
    read_frames(body, line_number, &limits, &mut frames, |message| {
        handler.warn(message)
    })?;
    let start = handler.stacks().locations.len();
    let budget = handler.budget();
    budget.room(&mut handler.stacks().locations, frames.len(), || {
        "the frames of the distinct stack lines".to_string()
    })?;
    for frame in &frames {
        let location_id = handler.frame_location(frame, rest)?;
        handler.stacks().locations.push(location_id);
    }
    let stacks = handler.stacks();
    stacks.frames = frames;
    Ok((start, stacks.locations.len() - start))
}
