//! Reading Rprof text into the v2 model, in one pass over the lines ([`Reader`]),
//! or for large inputs in chunks on several threads with the same result (see
//! [`parallel`]).
//!
//! Ids are given in order of first appearance (functions and locations as their
//! frames are first met, reading lines top to bottom and frames innermost first), so
//! the same bytes always give the same tables.

use super::{
    parse_u32, parse_u64, Header, MEMORY_TYPES, SAMPLES_TYPE, TOP_LEVEL_NAME, WARN_INCOMPLETE,
    WARN_UNDEFINED_FILE, WARN_UNEXPECTED,
};
use crate::budget::Budget;
use crate::error::{ProfileError, Result};
use crate::limits::Limits;
use crate::model::{next_id, Profile, SampleLocations, SampleValues, Samples, StrId, NA_INT};
use crate::text::utf8_escaped;
use memchr::{memchr, memmem};
use rustc_hash::FxHashMap;

mod compact;
mod content;
mod parallel;
pub use compact::{tick_time, CompactColumn, CompactRead, SampleShape, MICROSECONDS};
pub use content::RprofContent;
#[cfg(test)]
pub(super) use parallel::chunks_for;

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

/// Lines without their line end (LF or CRLF); the last line may lack one.
struct Lines<'a> {
    rest: &'a [u8],
    /// Number of the line last returned (1-based).
    number: u32,
    /// The lines end where `rest` has this many bytes left (0: at the end of the
    /// input; a chunk ends before it).
    stop_at: usize,
}

impl<'a> Lines<'a> {
    /// The lines of `text`, counted from `after` + 1.
    fn new(text: &'a [u8], after: u32) -> Self {
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
struct Frame<'a> {
    name: &'a [u8],
    file_ref: Option<FileRef>,
}

impl Frame<'_> {
    fn top_level(file_ref: FileRef) -> Frame<'static> {
        Frame {
            name: b"",
            file_ref: Some(file_ref),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct FileRef {
    file: u32,
    line: i32,
}

/// State of the segment (header) being read.
#[derive(Default)]
struct Segment {
    source_id: i32,
    /// Whether this source's `sample_types` already list the memory types.
    memory_types: bool,
    /// `#File N:` lines seen so far.
    files: FxHashMap<u32, StrId>,
    /// `#File N:` lines of the rest of the segment, collected the first time a
    /// reference comes before its `#File` line (R never does that, but damaged or
    /// hand-edited files may).
    files_ahead: Option<FxHashMap<u32, StrId>>,
    /// Heap gauges (small, large, nodes) of the previous tick, for `alloc_size`.
    previous_gauges: Option<[u64; 3]>,
}

/// Interned strings used on every sample.
#[derive(Debug, Clone, Copy)]
struct Ids {
    empty: StrId,
    samples: StrId,
    count: StrId,
    memory: [(StrId, StrId); 5],
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

/// The frames of the stack line `body` (line `line_number`, after any memory
/// prefix), innermost first, into `frames`; damage is passed over with a warning.
fn read_frames<'a>(
    body: &'a [u8],
    line_number: u32,
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
                // the line was cut.
                Some(_) if !body.ends_with(b" ") => warn(WARN_INCOMPLETE),
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

/// The per-sample tables being filled (in a compact read: all but the compact
/// columns, whose shape is kept instead, see [`SampleShape`]).
struct SampleTables<'t> {
    samples: &'t mut Samples,
    values: &'t mut SampleValues,
    locations: &'t mut SampleLocations,
    shape: &'t mut SampleShape,
    budget: &'t Budget,
}

impl SampleTables<'_> {
    /// Appends sample `sample_id` of source `source_id`: a tick, the memory
    /// `gauges` if any (`previous_gauges` are those of the tick before in the same
    /// segment, and become these), and the stack `stack` (location ids, innermost
    /// first).
    fn push(
        &mut self,
        sample_id: i32,
        source_id: i32,
        gauges: Option<[u64; 4]>,
        previous_gauges: &mut Option<[u64; 3]>,
        stack: &[i32],
    ) -> Result<()> {
        let what = || "the samples".to_string();
        let values = if gauges.is_some() {
            1 + MEMORY_TYPES.len()
        } else {
            1
        };
        self.budget.room(&mut self.samples.sample_id, 1, what)?;
        self.budget.room(&mut self.samples.source_id, 1, what)?;
        self.budget.room(&mut self.values.value, values, what)?;
        self.budget
            .room(&mut self.locations.location_id, stack.len(), what)?;
        self.shape.make_room(self.budget)?;
        self.samples.sample_id.push(sample_id);
        self.samples.source_id.push(source_id);
        self.values.value.push(1.0);
        if let Some(gauges) = gauges {
            self.values
                .value
                .extend(memory_values(gauges, previous_gauges));
        }
        self.locations.location_id.extend_from_slice(stack);
        self.shape.push(stack.len(), gauges.is_some());
        Ok(())
    }
}

/// The values of the memory types (see [`MEMORY_TYPES`]) of a tick with heap
/// gauges `small`, `large` (vector heaps in 8-byte units) and `nodes` (node heap in
/// bytes) and `dups` duplications. `previous` are the gauges of the tick before in
/// the same segment, and become these. `alloc_size` is the growth of each heap;
/// shrinking (a collection) counts as no allocation, as in utils::summaryRprof(),
/// and the first tick of a segment has allocated nothing.
fn memory_values(
    [small, large, nodes, dups]: [u64; 4],
    previous: &mut Option<[u64; 3]>,
) -> [f64; 5] {
    let alloc = match *previous {
        Some([ps, pl, pn]) => {
            8.0 * small.saturating_sub(ps) as f64
                + 8.0 * large.saturating_sub(pl) as f64
                + nodes.saturating_sub(pn) as f64
        }
        None => 0.0,
    };
    *previous = Some([small, large, nodes]);
    [
        8.0 * small as f64,
        8.0 * large as f64,
        nodes as f64,
        dups as f64,
        alloc,
    ]
}

struct Reader<'a> {
    p: Profile,
    limits: Limits,
    budget: &'a Budget,
    ids: Ids,
    source_uri: StrId,
    warnings: Vec<&'static str>,
    functions_by_bytes: FxHashMap<(&'a [u8], StrId), i32>,
    functions_by_name: FxHashMap<(StrId, StrId), i32>,
    locations: FxHashMap<(i32, i32), i32>,
    locations_by_frame: FxHashMap<(&'a [u8], StrId, i32), i32>,
    segment: Segment,
    stacks: StackCache<'a>,
    sample_lines: Vec<u32>,
    shape: SampleShape,
}

impl<'a> LineHandler<'a> for Reader<'a> {
    fn header(&mut self, line: &'a [u8], header: Header) -> Result<()> {
        self.start_segment(line, header)
    }

    fn file(&mut self, line: &'a [u8]) -> Result<()> {
        self.file_line(line)
    }

    fn warn(&mut self, message: &'static str) {
        if !self.warnings.contains(&message) {
            self.warnings.push(message);
        }
    }

    fn limits(&self) -> Limits {
        self.limits
    }

    fn budget(&self) -> &'a Budget {
        self.budget
    }

    fn stacks(&mut self) -> &mut StackCache<'a> {
        &mut self.stacks
    }

    fn frame_location(&mut self, frame: &Frame<'a>, rest: &'a [u8]) -> Result<i32> {
        self.location(frame, rest)
    }

    fn sample(
        &mut self,
        gauges: Option<[u64; 4]>,
        start: usize,
        len: usize,
        line_number: u32,
    ) -> Result<()> {
        self.budget
            .room(&mut self.sample_lines, 1, || "the samples".to_string())?;
        self.sample_lines.push(line_number);
        let sample_id = next_id(self.p.samples.nrow(), "samples")?;
        if gauges.is_some() {
            self.add_memory_types()?;
        }
        let stack = self
            .stacks
            .locations
            .get(start..start + len)
            .unwrap_or_default();
        let mut tables = SampleTables {
            samples: &mut self.p.samples,
            values: &mut self.p.sample_values,
            locations: &mut self.p.sample_locations,
            shape: &mut self.shape,
            budget: self.budget,
        };
        tables.push(
            sample_id,
            self.segment.source_id,
            gauges,
            &mut self.segment.previous_gauges,
            stack,
        )
    }
}

impl<'a> Reader<'a> {
    fn new(source_uri: Option<&str>, expected_lines: usize, budget: &'a Budget) -> Result<Self> {
        let mut p = Profile::new();
        let s = &mut p.strings;
        let ids = Ids {
            empty: s.intern(""),
            samples: s.intern(SAMPLES_TYPE.0),
            count: s.intern(SAMPLES_TYPE.1),
            memory: MEMORY_TYPES.map(|(t, u)| (s.intern(t), s.intern(u))),
        };
        let source_uri = p.strings.intern_opt(source_uri);
        // One sample per line is the common case; reserving avoids regrowing the
        // per-sample columns. The count is bounded by the input size.
        let what = || "the samples".to_string();
        budget.room(&mut p.samples, expected_lines, what)?;
        budget.room(&mut p.sample_values.value, expected_lines, what)?;
        let shape = SampleShape::new(&ids, expected_lines, budget)?;
        let sample_lines = budget.vec_with_capacity(expected_lines, what)?;
        Ok(Reader {
            p,
            limits: *budget.limits(),
            budget,
            ids,
            source_uri,
            warnings: Vec::new(),
            functions_by_bytes: FxHashMap::default(),
            functions_by_name: FxHashMap::default(),
            locations: FxHashMap::default(),
            locations_by_frame: FxHashMap::default(),
            segment: Segment::default(),
            stacks: StackCache::default(),
            sample_lines,
            shape,
        })
    }

    fn start_segment(&mut self, line: &[u8], header: Header) -> Result<()> {
        let source_id = next_id(self.p.sources.nrow(), "headers (sessions)")?;
        self.budget.room(&mut self.p.sources, 1, || {
            "the headers (sessions)".to_string()
        })?;
        let strings = &mut self.p.strings;
        let header_text = strings.try_intern(&utf8_escaped(line), self.budget)?;
        let (rprof, cpu, nanoseconds) = (
            strings.intern("rprof"),
            strings.intern("cpu"),
            strings.intern("nanoseconds"),
        );
        let s = &mut self.p.sources;
        s.source_id.push(source_id);
        s.source_type.push(rprof);
        s.source_uri.push(self.source_uri);
        s.source_timestamp.push(f64::NAN);
        s.period_type.push(cpu);
        s.period_unit.push(nanoseconds);
        s.period.push(f64::from(header.interval_us) * 1000.0);
        s.duration_nanos.push(f64::NAN);
        s.time_nanos.push(StrId::NA);
        // What users look at in a time profile, also when it has memory types
        // (whose last, which tools show by default, is `alloc_size`).
        s.default_sample_type.push(self.ids.samples);
        s.doc_url.push(StrId::NA);
        s.drop_frames.push(StrId::NA);
        s.keep_frames.push(StrId::NA);
        s.rprof_header.push(header_text);
        s.diff_base.push(NA_INT);

        self.segment = Segment {
            source_id,
            ..Segment::default()
        };
        // Sources are numbered 1, 2, ...: the shape keeps their intervals, which
        // give the samples' times (see `SampleShape`).
        self.shape.push_source(header.interval_us, self.budget)?;
        self.stacks.seen.clear();
        self.push_sample_type(self.ids.samples, self.ids.count)?;
        if header.memory {
            self.add_memory_types()?;
        }
        Ok(())
    }

    fn push_sample_type(&mut self, value_type: StrId, unit: StrId) -> Result<()> {
        let t = &mut self.p.sample_types;
        self.budget.room(t, 1, || "the sample types".to_string())?;
        t.source_id.push(self.segment.source_id);
        t.value_type.push(value_type);
        t.unit.push(unit);
        Ok(())
    }

    fn add_memory_types(&mut self) -> Result<()> {
        if !self.segment.memory_types {
            self.segment.memory_types = true;
            for (t, u) in self.ids.memory {
                self.push_sample_type(t, u)?;
            }
        }
        Ok(())
    }

    /// `#File N: path`. A damaged one (cut off, say) is skipped with a warning.
    fn file_line(&mut self, line: &[u8]) -> Result<()> {
        let Some((number, path)) = parse_file_line(line) else {
            self.warn(WARN_INCOMPLETE);
            return Ok(());
        };
        let path = self
            .p
            .strings
            .try_intern(&utf8_escaped(path), self.budget)?;
        match self.segment.files.get(&number) {
            Some(&known) if known != path => self.warn(WARN_UNEXPECTED),
            Some(_) => {}
            None => {
                self.budget.room(&mut self.segment.files, 1, || {
                    "the `#File` lines".to_string()
                })?;
                self.segment.files.insert(number, path);
            }
        }
        Ok(())
    }

    /// The file name of reference number `file` in the current segment.
    fn file_name(&mut self, file: u32, rest: &'a [u8]) -> Result<StrId> {
        if let Some(&path) = self.segment.files.get(&file) {
            return Ok(path);
        }
        if self.segment.files_ahead.is_none() {
            let ahead = files_ahead(rest, &mut self.p.strings, self.budget)?;
            self.segment.files_ahead = Some(ahead);
        }
        if let Some(&path) = self.segment.files_ahead.as_ref().and_then(|m| m.get(&file)) {
            return Ok(path);
        }
        self.warn(WARN_UNDEFINED_FILE);
        Ok(self.ids.empty)
    }

    /// The location of a frame: function (name, file) and line, created on first sight.
    /// The line is 0 for a frame without a reference.
    fn location(&mut self, frame: &Frame<'a>, rest: &'a [u8]) -> Result<i32> {
        let (file, line) = match frame.file_ref {
            Some(r) => (self.file_name(r.file, rest)?, r.line),
            None => (self.ids.empty, 0),
        };
        // Most frames repeat: one lookup by the bytes of the frame finds them.
        if let Some(&id) = self.locations_by_frame.get(&(frame.name, file, line)) {
            return Ok(id);
        }
        let what = || "the locations and functions".to_string();
        self.budget.room(&mut self.locations_by_frame, 1, what)?;
        let function_id = match self.functions_by_bytes.get(&(frame.name, file)) {
            Some(&id) => id,
            None => {
                let id = self.function(frame.name, file, line)?;
                self.budget.room(&mut self.functions_by_bytes, 1, what)?;
                self.functions_by_bytes.insert((frame.name, file), id);
                id
            }
        };
        if let Some(&id) = self.locations.get(&(function_id, line)) {
            self.locations_by_frame.insert((frame.name, file, line), id);
            return Ok(id);
        }
        self.budget.room(&mut self.locations, 1, what)?;
        self.budget.room(&mut self.p.locations, 1, what)?;
        let l = &mut self.p.locations;
        let location_id = next_id(l.location_id.len(), "locations")?;
        l.location_id.push(location_id);
        l.function_id.push(function_id);
        l.line.push(line);
        l.address.push(StrId::NA);
        l.mapping_id.push(NA_INT);
        l.is_folded.push(NA_INT);
        l.column.push(NA_INT);
        l.inlined_into.push(NA_INT);
        self.locations.insert((function_id, line), location_id);
        self.locations_by_frame
            .insert((frame.name, file, line), location_id);
        // The function's start line is the smallest line seen in it (as profile 1.0.4).
        if let Some(start) = usize::try_from(function_id - 1)
            .ok()
            .and_then(|row| self.p.functions.start_line.get_mut(row))
        {
            *start = (*start).min(line);
        }
        Ok(location_id)
    }

    /// The id of function (`name`, `file`), created if new. Two byte strings that
    /// read the same once invalid bytes are escaped are one function. The name
    /// is what R wrote, so it is the system name too; R writes no name for the
    /// top level (see [`Frame`]), whose system name stays empty, and that tells
    /// it apart from a function that is called `<top level>`.
    fn function(&mut self, name: &[u8], file: StrId, line: i32) -> Result<i32> {
        let system_name = self
            .p
            .strings
            .try_intern(&utf8_escaped(name), self.budget)?;
        if let Some(&id) = self.functions_by_name.get(&(system_name, file)) {
            return Ok(id);
        }
        let name = if name.is_empty() {
            self.p.strings.try_intern(TOP_LEVEL_NAME, self.budget)?
        } else {
            system_name
        };
        let what = || "the locations and functions".to_string();
        self.budget.room(&mut self.functions_by_name, 1, what)?;
        self.budget.room(&mut self.p.functions, 1, what)?;
        let f = &mut self.p.functions;
        let id = next_id(f.function_id.len(), "functions")?;
        f.function_id.push(id);
        f.name.push(name);
        f.system_name.push(system_name);
        f.filename.push(file);
        f.start_line.push(line);
        self.functions_by_name.insert((system_name, file), id);
        Ok(id)
    }

    fn finish(self) -> CompactRead {
        // The lookups end with the read: their memory is released.
        let budget = self.budget;
        budget.release_all(&self.functions_by_bytes);
        budget.release_all(&self.functions_by_name);
        budget.release_all(&self.locations);
        budget.release_all(&self.locations_by_frame);
        self.stacks.release(budget);
        let parsed = Parsed {
            profile: self.p,
            warnings: self.warnings.into_iter().map(str::to_owned).collect(),
            sample_lines: self.sample_lines,
        };
        CompactRead {
            parsed,
            shape: self.shape,
        }
    }
}

/// `#File N: path` as (N, path).
fn parse_file_line(line: &[u8]) -> Option<(u32, &[u8])> {
    let rest = line.strip_prefix(b"#File ")?;
    let colon = memchr(b':', rest)?;
    let number = parse_u32(rest.get(..colon)?)?;
    let path = rest.get(colon + 1..)?.strip_prefix(b" ")?;
    Some((number, path))
}

/// The `#File` lines between here and the next header.
fn files_ahead(
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
enum PrefixDefect {
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
fn memory_prefix(line: &[u8]) -> std::result::Result<([u64; 4], usize), PrefixDefect> {
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
fn bad_prefix_error(line: &[u8], line_number: u32) -> ProfileError {
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
fn closing_quote(line: &[u8], start: usize) -> Option<usize> {
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
fn could_be_line_ref(line: &[u8], pos: usize) -> bool {
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
fn line_ref(line: &[u8], pos: usize) -> Option<(FileRef, usize)> {
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
