//! Reading a large Rprof file in chunks on several threads, with exactly the
//! result of the one-pass reader: the same tables and ids, strings in the same
//! order, the same warnings in the same order, the same error.
//!
//! Most of a large read is writing the per-sample columns (about 200 bytes per
//! sample with memory profiling, and each new page of memory costs a fault), so
//! the work is shared out in two steps, each writing every byte once:
//!
//! 1. The text after the first header is cut at line starts into chunks, each read
//!    on a thread of its own without knowing what came before it
//!    ([`ChunkReader`]): it numbers what it meets itself (segments, frames), keeps
//!    one small record per sample, and logs, in file order, each step where the
//!    one-pass reader's state outside the current line matters: headers, `#File`
//!    lines, warnings (each text once), frames met for the first time in the
//!    chunk, the first memory sample of a segment, an error. Merging replays these
//!    logs, chunk after chunk, through the one-pass [`Reader`] itself, which gives
//!    the ids and interns the strings in the order it would have.
//! 2. The per-sample columns are built from the records, each column whole by one
//!    thread, the columns shared out among the threads.
//!
//! Why replaying only the first sight of each frame in a chunk is enough: a frame
//! is named by its bytes and, with a line reference `N#L`, its segment and `N`.
//! The file a reference means is the same wherever it is read in a segment (the
//! first `#File N:` line of the segment, whether before or after the reference,
//! else none), so a later sight of the frame in the chunk means the same location;
//! it interns nothing and warns of nothing that its first sight did not. Where the
//! one-pass reader looks ahead for a `#File` line that comes later, the replay
//! passes it the same rest of the input, which runs past the chunk's end.

use super::reader::Reader;
use super::syntax::{FileRef, Frame, Lines};
use super::{expected_lines_of, read_lines, CompactRead, Header, LineHandler, LineState};
use super::{SampleLine, Start};
use crate::error::{ProfileError, Result};
use crate::model::{too_many, NA_INT};
use crate::resources::budget::Budget;
use crate::resources::threads::{cores, in_parallel, MAX_THREADS};
use memchr::memchr;
use rustc_hash::FxHashMap;
use std::ops::Range;

mod columns;
use columns::write_sample_columns;

/// Inputs smaller than this are read in one pass: for them, chunks save a
/// millisecond or less and cost much more CPU time (measured in
/// `bench/README.md`, item 8).
const MIN_PARALLEL_BYTES: usize = 2 << 20;

/// Largest chunk. A chunk numbers its frames and the locations of its stacks from
/// 0; a frame takes at least 4 bytes, so under 4 GiB no count reaches 2^31.
const MAX_CHUNK_BYTES: usize = 4 << 30;

/// How many chunks to read an input of `len` bytes in: 1 (one pass) for small
/// inputs, else one per core (at most [`MAX_THREADS`]), each of at least half of
/// [`MIN_PARALLEL_BYTES`].
pub(crate) fn chunks_for(len: usize) -> usize {
    if len < MIN_PARALLEL_BYTES {
        return 1;
    }
    let wanted = cores().min(MAX_THREADS).min(len / (MIN_PARALLEL_BYTES / 2));
    wanted.max(len.div_ceil(MAX_CHUNK_BYTES)).max(1)
}

/// Bytes of the record a chunk keeps per sample, reserved for each line it may
/// read (see [`SampleRecord`]).
pub(super) const RECORD_BYTES: u64 = std::mem::size_of::<SampleRecord>() as u64;

/// Reads `lines` (what follows the header `first`) in `chunks` chunks; see the
/// module documentation.
pub(super) fn parse(
    start: Start<'_>,
    source_uri: Option<&str>,
    budget: &Budget,
    chunks: usize,
) -> Result<CompactRead> {
    let (mut parsed, unwritten) = read_and_replay(start, source_uri, budget, chunks)?;
    unwritten.write(&mut parsed, budget)?;
    Ok(parsed)
}

/// [`parse`] of an input it owns (charged to `budget`), which it frees before
/// writing the per-sample columns: those need only the chunks' records, and a
/// read's memory peaks there.
pub(super) fn parse_owned(
    bytes: Vec<u8>,
    source_uri: Option<&str>,
    budget: &Budget,
    chunks: usize,
) -> Result<CompactRead> {
    let (mut parsed, unwritten) =
        read_and_replay(Start::read(&bytes)?, source_uri, budget, chunks)?;
    budget.release(bytes.len() as u64);
    drop(bytes);
    unwritten.write(&mut parsed, budget)?;
    Ok(parsed)
}

/// Steps 1 and 2 of the module documentation, up to the per-sample columns: the
/// profile without them, and what writing them takes (nothing that points into
/// the input).
fn read_and_replay<'a>(
    Start {
        first,
        header,
        lines,
        ..
    }: Start<'a>,
    source_uri: Option<&str>,
    budget: &'a Budget,
    chunks: usize,
) -> Result<(CompactRead, Unwritten)> {
    let mut reader = Reader::new(source_uri, 0, budget)?;
    reader.start_segment(first, header)?;
    // The large vectors are allocated here, on the calling thread: memory that
    // threads allocate comes from arenas of their own, which the allocator (glibc's
    // at least) returns to the system more eagerly, so it costs page faults again
    // on every read. Gauges are reserved when the file starts with memory
    // profiling.
    let what = || "the records of the samples".to_string();
    let mut jobs = Vec::new();
    for (lines, expected) in split(lines, chunks) {
        let records = (
            budget.vec_with_capacity(expected, what)?,
            budget.vec_with_capacity(if header.memory { expected } else { 0 }, what)?,
        );
        jobs.push(move || ChunkReader::read(lines, budget, records));
    }
    let mut chunks = in_parallel(jobs);
    let maps = replay(&mut reader, &mut chunks)?;
    let chunks = chunks
        .into_iter()
        .map(|c| {
            // What the chunk kept to tell frames and stack lines apart ends here.
            budget.release_all(&c.frames);
            budget.release_all(&c.lines.stacks.seen);
            ChunkSamples {
                samples: c.samples,
                gauges: c.gauges,
                locations: c.lines.stacks.locations,
            }
        })
        .collect();
    Ok((reader.finish(), Unwritten { chunks, maps }))
}

/// What the per-sample columns are written from.
struct Unwritten {
    chunks: Vec<ChunkSamples>,
    maps: ChunkIds,
}

impl Unwritten {
    /// Writes the columns, then frees the records (released from `budget`).
    fn write(self, parsed: &mut CompactRead, budget: &Budget) -> Result<()> {
        write_sample_columns(parsed, &self.chunks, &self.maps, budget)?;
        budget.release(self.chunks.iter().map(ChunkSamples::bytes).sum());
        Ok(())
    }
}

/// The samples a chunk read.
struct ChunkSamples {
    samples: Vec<SampleRecord>,
    /// Memory gauges of the samples that have them, in order.
    gauges: Vec<[u64; 4]>,
    /// The location numbers of the chunk's stacks (see [`SampleRecord`]).
    locations: Vec<i32>,
}

impl ChunkSamples {
    /// The memory of the vectors (as charged: their capacity).
    fn bytes(&self) -> u64 {
        fn of<T>(v: &Vec<T>) -> u64 {
            (v.capacity() * std::mem::size_of::<T>()) as u64
        }
        of(&self.samples) + of(&self.gauges) + of(&self.locations)
    }
}

/// `lines` cut at line starts into `chunks` pieces of about the same size (some
/// may be empty), each with the number of samples it may hold.
fn split(lines: Lines<'_>, chunks: usize) -> Vec<(Lines<'_>, usize)> {
    let text = lines.rest;
    let chunks = chunks.max(1);
    let mut bounds: Vec<Range<usize>> = Vec::with_capacity(chunks);
    let mut start = 0;
    for k in 1..=chunks {
        let end = if k == chunks {
            text.len()
        } else {
            line_start_from(text, (text.len() / chunks * k).max(start))
        };
        bounds.push(start..end);
        start = end;
    }
    // The number of each chunk's first line: count the line ends of each chunk.
    let line_ends = in_parallel(bounds.iter().map(|range| {
        let chunk = text.get(range.clone()).unwrap_or_default();
        move || memchr::memchr_iter(b'\n', chunk).count()
    }));
    let mut line_before = lines.number;
    let mut out = Vec::with_capacity(chunks);
    for (range, ends) in bounds.into_iter().zip(line_ends) {
        let rest = text.get(range.start..).unwrap_or_default();
        out.push((
            Lines {
                rest,
                number: line_before,
                stop_at: text.len() - range.end,
            },
            expected_lines_of(ends, range.len()),
        ));
        line_before = line_before.saturating_add(u32::try_from(ends).unwrap_or(u32::MAX));
    }
    out
}

/// The first line start at or after `pos`.
fn line_start_from(text: &[u8], pos: usize) -> usize {
    if pos == 0 || text.get(pos - 1) == Some(&b'\n') {
        return pos.min(text.len());
    }
    match text.get(pos..).and_then(|rest| memchr(b'\n', rest)) {
        Some(i) => pos + i + 1,
        None => text.len(),
    }
}

/// What turns the numbers of each chunk into ids: plain vectors indexed by the
/// chunk's own numbers (0, 1, ...), which are dense by construction, so no
/// lookup by id (see `id_index.rs`) is needed.
struct ChunkIds {
    /// Source id of each segment of the chunk (0: the one going on where it starts).
    source_ids: Vec<Vec<i32>>,
    /// Location id of each frame the chunk numbered.
    location_ids: Vec<Vec<i32>>,
}

/// `maps[chunk][number]`, or NA (never: every number a chunk uses is mapped).
fn lookup(maps: &[Vec<i32>], chunk: usize, number: impl TryInto<usize>) -> i32 {
    let map = maps.get(chunk).map(Vec::as_slice).unwrap_or_default();
    number
        .try_into()
        .ok()
        .and_then(|i| map.get(i))
        .copied()
        .unwrap_or(NA_INT)
}

/// Replays the logs of `chunks`, in order, through `reader` (which has read the
/// first header). The first error in file order is returned.
fn replay<'a>(reader: &mut Reader<'a>, chunks: &mut [ChunkReader<'a>]) -> Result<ChunkIds> {
    let mut maps = ChunkIds {
        source_ids: Vec::new(),
        location_ids: Vec::new(),
    };
    let mut samples_before = 0usize;
    for chunk in chunks.iter_mut() {
        let mut source_ids = vec![reader.segment.source_id];
        let mut location_ids = Vec::new();
        let mut log = std::mem::take(&mut chunk.log);
        let error = chunk.error.take().map(|(samples, e)| Logged {
            samples,
            event: Event::Error(e),
        });
        // The memory of the log is not the chunk's any more (see `ChunkReader::log`).
        reader
            .lines
            .budget
            .release((log.capacity() * std::mem::size_of::<Logged<'_>>()) as u64);
        for Logged { samples, event } in log.drain(..).chain(error) {
            // The one-pass reader fails on the sample after the 2^31 - 1st.
            if samples_before + samples > i32::MAX as usize {
                return Err(too_many("samples"));
            }
            match event {
                Event::Header(line, header) => {
                    reader.start_segment(line, header)?;
                    source_ids.push(reader.segment.source_id);
                }
                Event::File(line) => reader.file_line(line)?,
                Event::Warn(message) => reader.warn_once(message),
                Event::Frame(frame, rest) => {
                    let location_id = reader.location(&frame, rest)?;
                    reader.lines.budget.room(&mut location_ids, 1, || {
                        "the locations and functions".to_string()
                    })?;
                    location_ids.push(location_id);
                }
                Event::MemoryTypes => reader.add_memory_types()?,
                Event::Error(e) => return Err(e),
            }
        }
        samples_before += chunk.samples.len();
        maps.source_ids.push(source_ids);
        maps.location_ids.push(location_ids);
    }
    if samples_before > i32::MAX as usize {
        return Err(too_many("samples"));
    }
    Ok(maps)
}

/// A step of a chunk's reading that the merge replays, with the number of samples
/// the chunk had read before it.
struct Logged<'a> {
    samples: usize,
    event: Event<'a>,
}

enum Event<'a> {
    /// A header line: the chunk's next segment.
    Header(&'a [u8], Header),
    /// A `#File` line.
    File(&'a [u8]),
    /// A warning, the first time the chunk gives it.
    Warn(&'static str),
    /// A frame the chunk meets for the first time (its next number), with the input
    /// after its line.
    Frame(Frame<'a>, &'a [u8]),
    /// The first memory sample of a segment whose header did not announce memory
    /// profiling (in the chunk's first segment: its first memory sample).
    MemoryTypes,
    /// The chunk stopped here (kept apart from the log, see `ChunkReader::error`).
    Error(ProfileError),
}

/// The warning texts a chunk may log (each once): see [`super::WARN_INCOMPLETE`]
/// and the others.
const WARNINGS: usize = 3;

/// A frame as a chunk tells frames apart: its bytes and, with a line reference,
/// its segment and reference.
type FrameKey<'a> = (&'a [u8], Option<(u32, FileRef)>);

/// A sample of a chunk (20 bytes).
struct SampleRecord {
    /// The chunk's number of its segment.
    segment: u32,
    line: u32,
    /// Where its frames are in the chunk's stack cache (below 2^31: see
    /// [`MAX_CHUNK_BYTES`]).
    stack_start: u32,
    stack_len: u32,
    /// Whether it has memory gauges (the next ones of the chunk's `gauges`).
    memory: bool,
}

/// Reader of one chunk, with numbers of its own: segments count from 0 (the one
/// going on where the chunk starts), frames from 0 in order of first sight in the
/// chunk.
struct ChunkReader<'a> {
    lines: LineState<'a>,
    log: Vec<Logged<'a>>,
    segment: u32,
    /// Whether the memory types of the current segment are known to be declared.
    segment_memory: bool,
    /// Number of each frame met, by its bytes and, with a line reference, its
    /// segment and reference (whose file is the same throughout a segment).
    frames: FxHashMap<FrameKey<'a>, u32>,
    samples: Vec<SampleRecord>,
    /// Memory gauges of the samples that have them, in order.
    gauges: Vec<[u64; 4]>,
    /// The error that ended the chunk, after how many samples.
    error: Option<(usize, ProfileError)>,
}

impl<'a> ChunkReader<'a> {
    /// Reads `lines` into the (empty) vectors `samples` and `gauges`; an error
    /// ends the log.
    fn read(
        lines: Lines<'a>,
        budget: &'a Budget,
        (samples, gauges): (Vec<SampleRecord>, Vec<[u64; 4]>),
    ) -> Self {
        let mut reader = ChunkReader {
            lines: LineState::new(budget),
            log: Vec::new(),
            segment: 0,
            segment_memory: false,
            frames: FxHashMap::default(),
            samples,
            gauges,
            error: None,
        };
        if let Err(e) = read_lines(&mut reader, lines) {
            reader.error = Some((reader.samples.len(), e));
        }
        reader
    }

    /// Logs `event` (charged to the budget), keeping room for the warnings
    /// that may follow it (a few fixed texts, each logged once).
    fn log(&mut self, event: Event<'a>) -> Result<()> {
        let room = 1 + WARNINGS;
        self.lines.budget.room(&mut self.log, room, || {
            "the lines of the file that the read replays".to_string()
        })?;
        self.log.push(Logged {
            samples: self.samples.len(),
            event,
        });
        Ok(())
    }
}

impl<'a> LineHandler<'a> for ChunkReader<'a> {
    fn header(&mut self, line: &'a [u8], header: Header) -> Result<()> {
        self.log(Event::Header(line, header))?;
        // A header has more than 4 bytes (see MAX_CHUNK_BYTES).
        self.segment = self.segment.saturating_add(1);
        self.segment_memory = header.memory;
        self.lines.stacks.seen.clear();
        Ok(())
    }

    fn file(&mut self, line: &'a [u8]) -> Result<()> {
        self.log(Event::File(line))
    }

    fn first_warning(&mut self, message: &'static str) {
        // Room for it was made with the step before (see `log`), or here,
        // before anything was logged: a few bytes.
        if self.log.capacity() == 0 {
            self.log.reserve(1 + WARNINGS);
        }
        self.log.push(Logged {
            samples: self.samples.len(),
            event: Event::Warn(message),
        });
    }

    fn state(&mut self) -> &mut LineState<'a> {
        &mut self.lines
    }

    fn frame_location(&mut self, frame: &Frame<'a>, rest: &'a [u8]) -> Result<i32> {
        let key = (frame.name, frame.file_ref.map(|r| (self.segment, r)));
        let number = match self.frames.get(&key) {
            Some(&number) => number,
            None => {
                let number = u32::try_from(self.frames.len()).map_err(|_| too_many("locations"))?;
                self.lines
                    .budget
                    .room(&mut self.frames, 1, || "the distinct frames".to_string())?;
                self.frames.insert(key, number);
                self.log(Event::Frame(*frame, rest))?;
                number
            }
        };
        // Numbers stay below 2^31 (see MAX_CHUNK_BYTES); the stack cache holds i32.
        Ok(number as i32)
    }

    fn sample(&mut self, sample: SampleLine) -> Result<()> {
        let what = || "the records of the samples".to_string();
        if let Some(gauges) = sample.gauges {
            if !self.segment_memory {
                self.segment_memory = true;
                self.log(Event::MemoryTypes)?;
            }
            self.lines.budget.room(&mut self.gauges, 1, what)?;
            self.gauges.push(gauges);
        }
        let index = |n: usize| u32::try_from(n).map_err(|_| too_many("locations"));
        self.lines.budget.room(&mut self.samples, 1, what)?;
        self.samples.push(SampleRecord {
            segment: self.segment,
            line: sample.line_number,
            stack_start: index(sample.start)?,
            stack_len: index(sample.len)?,
            memory: sample.gauges.is_some(),
        });
        Ok(())
    }
}
