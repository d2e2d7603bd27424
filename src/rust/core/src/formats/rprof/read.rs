//! Reading Rprof text into the v2 model, in one pass over the lines (`Reader`),
//! or for large inputs in chunks on several threads with the same result (see
//! [`parallel`]).
//!
//! Ids are given in order of first appearance (functions and locations as their
//! frames are first met, reading lines top to bottom and frames innermost first), so
//! the same bytes always give the same tables.

use super::{Header, WARN_INCOMPLETE};
use crate::error::{ProfileError, Result};
use crate::model::Profile;
use crate::resources::budget::Budget;
use memchr::memchr;
use rustc_hash::FxHashMap;
use std::borrow::Cow;

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

/// How to read an Rprof file ([`parse`]).
#[derive(Debug, Clone, Copy)]
pub struct ParseOptions<'a> {
    /// Goes into every `sources` row.
    pub source_uri: Option<&'a str>,
    /// The read's memory budget (its limits are those of the read), charged
    /// for what the read holds when it ends, the bytes given excepted.
    pub budget: &'a Budget,
    /// How many chunks to read in parallel: `None` for as many as the input's
    /// size calls for (see `parallel`), 1 for one pass on this thread. Other
    /// numbers are for tests and timings.
    pub chunks: Option<usize>,
}

impl<'a> ParseOptions<'a> {
    /// A read under `budget`, without a source URI, in as many chunks as the
    /// input's size calls for.
    pub fn new(budget: &'a Budget) -> Self {
        ParseOptions {
            source_uri: None,
            budget,
            chunks: None,
        }
    }

    /// The same options with the source URI `source_uri`.
    pub fn source_uri(self, source_uri: Option<&'a str>) -> Self {
        ParseOptions { source_uri, ..self }
    }

    /// The same options reading in `chunks` chunks.
    pub fn chunks(self, chunks: usize) -> Self {
        ParseOptions {
            chunks: Some(chunks),
            ..self
        }
    }
}

/// Parses the (already decompressed) bytes of an Rprof file, as a compact read
/// (the compact columns are left unwritten, see [`CompactRead`]; its `expand()`
/// writes them). A file that does not start with a header, or that holds a NUL
/// byte (binary data: R never writes one), is an error, and so is a stack
/// deeper than the limit or a read that needs more memory than the budget
/// allows; damaged stack lines are read as far as they make sense, with a
/// warning. Large files are read in chunks on all cores (see `parallel`), with
/// the same result.
///
/// Bytes given owned (charged to the budget) are freed, and released, as soon
/// as they have been read, before the per-sample columns are written, which
/// lowers the peak memory of a large read by the size of the input.
pub fn parse(bytes: Cow<'_, [u8]>, options: &ParseOptions<'_>) -> Result<CompactRead> {
    padded(parse_unpadded(bytes, options)?, options.budget)
}

/// The read with the extension columns of other formats (OTLP's
/// `samples$trace_id`, ...) filled with NA, charged to `budget` first; the
/// compact column `samples$time` is left to the shape.
fn padded(mut read: CompactRead, budget: &Budget) -> Result<CompactRead> {
    let p = &mut read.parsed.profile;
    let links = 2 * std::mem::size_of::<crate::StrId>() as u64 * p.samples.sample_id.len() as u64;
    budget.charge(links, || "the columns of the samples".to_string())?;
    p.pad_extension_columns(&[crate::model::Samples::time]);
    Ok(read)
}

/// [`parse`] without the extension columns of other formats.
fn parse_unpadded(bytes: Cow<'_, [u8]>, options: &ParseOptions<'_>) -> Result<CompactRead> {
    let ParseOptions {
        source_uri,
        budget,
        chunks,
    } = *options;
    let chunks = chunks.unwrap_or_else(|| parallel::chunks_for(bytes.len()));
    if chunks > 1 {
        return match bytes {
            Cow::Owned(bytes) => parallel::parse_owned(bytes, source_uri, budget, chunks),
            Cow::Borrowed(bytes) => {
                parallel::parse(Start::read(bytes)?, source_uri, budget, chunks)
            }
        };
    }
    let Start {
        body,
        first,
        header,
        lines,
    } = Start::read(&bytes)?;
    let expected_lines = expected_lines(body);
    let mut reader = Reader::new(source_uri, expected_lines, budget)?;
    reader.start_segment(first, header)?;
    read_lines(&mut reader, lines)?;
    Ok(reader.finish())
}

/// How many samples `text` may hold, for reserving; see [`expected_lines_of`].
fn expected_lines(text: &[u8]) -> usize {
    expected_lines_of(memchr::memchr_iter(b'\n', text).count(), text.len())
}

/// How many samples a text of `len` bytes with `line_ends` line ends may hold,
/// for reserving: one per line, and a sample line has at least 4 bytes (`"f" `
/// or `:1:2:3:4:`) plus its line end (a blank line, a tick without frames,
/// has fewer, but R writes none: a file of them grows past the reserve).
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

/// What either reader of lines holds for the line loop: the read's memory
/// budget (charged for what grows with the input), the stack lines of the
/// current segment seen so far, and the warnings given.
struct LineState<'a> {
    budget: &'a Budget,
    stacks: StackCache<'a>,
    /// Each warning text once, in order of first occurrence.
    warned: Vec<&'static str>,
}

impl<'a> LineState<'a> {
    fn new(budget: &'a Budget) -> Self {
        LineState {
            budget,
            stacks: StackCache::default(),
            warned: Vec::new(),
        }
    }

    /// Notes the warning `message`: whether it is the first time.
    fn warned_once(&mut self, message: &'static str) -> bool {
        let first = !self.warned.contains(&message);
        if first {
            self.warned.push(message);
        }
        first
    }
}

/// What the line loop ([`read_lines`]) hands on: the reader of a whole file, or the
/// reader of one chunk of it, which gives ids of its own (see [`parallel`]).
trait LineHandler<'a> {
    /// A header: a new segment starts.
    fn header(&mut self, line: &'a [u8], header: Header) -> Result<()>;
    /// A `#File N: path` line.
    fn file(&mut self, line: &'a [u8]) -> Result<()>;
    /// A warning given for the first time in the read (see [`warn`]); the
    /// one-pass reader has nothing to add to the state's list.
    fn first_warning(&mut self, _message: &'static str) {}
    /// What the line loop keeps in the handler.
    fn state(&mut self) -> &mut LineState<'a>;
    /// The id of the location of a frame of a new stack line; `rest` is the input
    /// after that line.
    fn frame_location(&mut self, frame: &Frame<'a>, rest: &'a [u8]) -> Result<i32>;
    /// A sample.
    fn sample(&mut self, sample: SampleLine) -> Result<()>;
}

/// A sample as the line loop hands it on: its memory gauges, its stack (the
/// locations `state().stacks.locations[start..start + len]`) and the line it
/// was read from (1-based).
#[derive(Debug, Clone, Copy)]
struct SampleLine {
    gauges: Option<[u64; 4]>,
    start: usize,
    len: usize,
    line_number: u32,
}

/// Gives the warning `message`: each text once, in order of first occurrence.
fn warn<'a>(handler: &mut impl LineHandler<'a>, message: &'static str) {
    if handler.state().warned_once(message) {
        handler.first_warning(message);
    }
}

/// Reads `lines` (the lines after a header) into `handler`.
fn read_lines<'a>(handler: &mut impl LineHandler<'a>, mut lines: Lines<'a>) -> Result<()> {
    while let Some(line) = lines.next() {
        if matches!(line.first(), None | Some(b' ' | b'\t'))
            && line.iter().all(|&b| b == b' ' || b == b'\t')
        {
            // A tick without frames: R writes none, but write_rprof() writes
            // a sample without frames as blank lines (a line is a tick), and
            // summaryRprof() counts them.
            handler.sample(SampleLine {
                gauges: None,
                start: 0,
                len: 0,
                line_number: lines.number,
            })?;
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
                warn(handler, WARN_INCOMPLETE);
                return Ok(());
            }
            Err(_) => return Err(bad_prefix_error(line, line_number)),
        }
    }
    // Profiles repeat the same stacks over and over: a stack line seen before
    // in this segment (where `#File` numbers mean the same files) has the same
    // locations, and its warnings have been given already. A line as long as
    // those R cuts is read on its own: whether it was cut depends on its
    // memory prefix too, which the cache does not see.
    let cut_by_r = line.len() >= R_LINE_LIMIT;
    let (start, len) = match handler.state().stacks.seen.get(body) {
        Some(&range) if !cut_by_r => range,
        _ => {
            let range = new_stack(handler, body, rest, line_number, cut_by_r)?;
            if !cut_by_r {
                let state = handler.state();
                state.budget.room(&mut state.stacks.seen, 1, || {
                    "the distinct stack lines".to_string()
                })?;
                state.stacks.seen.insert(body, range);
            }
            range
        }
    };
    if gauges.is_none() && len == 0 {
        return Ok(());
    }
    handler.sample(SampleLine {
        gauges,
        start,
        len,
        line_number,
    })
}

/// The length, in bytes, from which R (4.2 and before) stops writing the frames
/// of a stack line (`PROFLINEMAX` in R's `eval.c`): it writes a frame or a
/// line reference only while the line is shorter, so a line this long was
/// cut, unless its last frame happened to be the outermost.
pub const R_LINE_LIMIT: usize = 10_000;

/// Reads the frames of a stack line (after any memory prefix) and appends their
/// location ids to the stack cache: returns where they start and how many.
/// `cut_by_r`: the line is as long as those R cuts (see [`R_LINE_LIMIT`]).
fn new_stack<'a>(
    handler: &mut impl LineHandler<'a>,
    body: &'a [u8],
    rest: &'a [u8],
    line_number: u32,
    cut_by_r: bool,
) -> Result<(usize, usize)> {
    let state = handler.state();
    let mut frames = std::mem::take(&mut state.stacks.frames);
    frames.clear();
    let budget = state.budget;
    read_frames(
        body,
        line_number,
        cut_by_r,
        budget.limits(),
        &mut frames,
        |message| warn(handler, message),
    )?;
    let stacks = &mut handler.state().stacks;
    let start = stacks.locations.len();
    budget.room(&mut stacks.locations, frames.len(), || {
        "the frames of the distinct stack lines".to_string()
    })?;
    for frame in &frames {
        let location_id = handler.frame_location(frame, rest)?;
        handler.state().stacks.locations.push(location_id);
    }
    let stacks = &mut handler.state().stacks;
    stacks.frames = frames;
    Ok((start, stacks.locations.len() - start))
}
