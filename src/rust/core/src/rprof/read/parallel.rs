//! Reading a large Rprof file in chunks, one thread each, with exactly the result
//! of the one-pass reader: the same tables and ids, strings in the same order, the
//! same warnings in the same order, the same error.
//!
//! The text after the first header is cut at line starts into chunks. Each chunk is
//! read without knowing what came before it ([`ChunkReader`]): it numbers what it
//! meets itself (segments, frames, samples) and logs, in file order, each step
//! where the one-pass reader's state outside the current line matters: headers,
//! `#File` lines, warnings (each text once), frames met for the first time in the
//! chunk, the first memory sample of a segment, an error. Merging replays these
//! logs, chunk after chunk, through the one-pass [`Reader`] itself, which gives the
//! ids and interns the strings in the order it would have; then one thread per
//! chunk copies the chunk's per-sample columns into their place, with its own
//! numbers turned into those ids.
//!
//! Why replaying only the first sight of each frame in a chunk is enough: a frame
//! is named by its bytes and, with a line reference `N#L`, its segment and `N`.
//! The file a reference means is the same wherever it is read in a segment (the
//! first `#File N:` line of the segment, whether before or after the reference,
//! else none), so a later sight of the frame in the chunk means the same location;
//! it interns nothing and warns of nothing that its first sight did not. Where the
//! one-pass reader looks ahead for a `#File` line that comes later, the replay
//! passes it the same rest of the input, which runs past the chunk's end.

use super::{
    alloc_size, expected_lines_of, next_id, read_lines, too_many, FileRef, Frame, Header, Ids, LineHandler, Lines,
    Parsed, Reader, SampleTables, StackCache,
};
use crate::error::{ProfileError, Result};
use crate::input::Limits;
use crate::model::{SampleLocations, SampleValues, Samples, NA_INT};
use crate::rprof::MEMORY_TYPES;
use memchr::memchr;
use rustc_hash::FxHashMap;
use std::ops::Range;

/// Inputs smaller than this are read in one pass: below it, starting threads and
/// merging cost about what the second core saves (measured on the real recording
/// of `bench/rprof-data.R` and copies of its lines).
const MIN_PARALLEL_BYTES: usize = 4 << 20;

/// Most threads used, however many cores there are: the merge and the copy at the
/// end are partly sequential, so more threads soon stop paying.
const MAX_THREADS: usize = 8;

/// Largest chunk. A chunk numbers its samples and frames from 0 as R integers; a
/// sample takes at least 5 bytes and a frame 4, so under 4 GiB neither count can
/// reach 2^31 within one chunk.
const MAX_CHUNK_BYTES: usize = 4 << 30;

/// How many chunks to read an input of `len` bytes in: 1 (one pass) for small
/// inputs, else one per core (at most [`MAX_THREADS`]), each of at least half of
/// [`MIN_PARALLEL_BYTES`].
pub(crate) fn chunks_for(len: usize) -> usize {
    if len < MIN_PARALLEL_BYTES {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let wanted = cores.min(MAX_THREADS).min(len / (MIN_PARALLEL_BYTES / 2));
    wanted.max(len.div_ceil(MAX_CHUNK_BYTES)).max(1)
}

/// Reads `lines` (what follows the header `first`) in `chunks` chunks, one thread
/// each; see the module documentation. The first chunk is read by the one-pass
/// reader itself, which then goes on with the logs of the others.
pub(super) fn parse(
    first: &[u8],
    header: Header,
    lines: Lines<'_>,
    source_uri: Option<&str>,
    limits: &Limits,
    chunks: usize,
) -> Result<Parsed> {
    let text = lines.rest;
    let bounds = chunk_bounds(text, chunks);
    // The number of each chunk's first line: count the line ends of each chunk.
    let line_ends = in_parallel(bounds.iter().map(|range| {
        let chunk = text.get(range.clone()).unwrap_or_default();
        move || memchr::memchr_iter(b'\n', chunk).count()
    }));
    let mut line_before = lines.number;
    let mut chunk_lines = Vec::with_capacity(bounds.len());
    for (range, &ends) in bounds.iter().zip(&line_ends) {
        let rest = text.get(range.start..).unwrap_or_default();
        chunk_lines.push(Lines { rest, number: line_before, stop_at: text.len() - range.end });
        line_before = line_before.saturating_add(u32::try_from(ends).unwrap_or(u32::MAX));
    }
    let expected = |k: usize| expected_lines_of(line_ends.get(k).copied().unwrap_or(0), bounds.get(k).map_or(0, Range::len));

    let mut reader = Reader::new(source_uri, expected(0), *limits);
    reader.start_segment(first, header)?;
    let (ids, limits) = (reader.ids, *limits);
    let mut chunk_lines = chunk_lines.into_iter();
    let first_lines = chunk_lines.next().unwrap_or(Lines::new(&[], 0));
    let (first_chunk, mut others) = std::thread::scope(|s| {
        let handles: Vec<_> = chunk_lines
            .enumerate()
            .map(|(k, lines)| s.spawn(move || ChunkReader::read(lines, ids, limits, expected(k + 1))))
            .collect();
        let first_chunk = read_lines(&mut reader, first_lines);
        (first_chunk, handles.into_iter().map(join).collect::<Vec<_>>())
    });
    first_chunk?;
    let maps = replay(&mut reader, &mut others)?;
    let mut parsed = reader.finish();
    append_samples(&mut parsed, others, &maps);
    Ok(parsed)
}

/// The result of a thread (its panic, should it panic).
fn join<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Appends the per-sample columns of `chunks` to those of `parsed`, with the
/// chunks' numbers turned into ids; the columns are shared out among threads.
fn append_samples(parsed: &mut Parsed, mut chunks: Vec<ChunkReader<'_>>, maps: &IdMaps) {
    let offsets = &maps.sample_offsets;
    let sample_id = |k: usize, local: i32| local.saturating_add(offsets.get(k).copied().unwrap_or(NA_INT));
    let source_id = |k: usize, local: i32| lookup(&maps.source_ids, k, local);
    let location_id = |k: usize, local: i32| lookup(&maps.location_ids, k, local);
    let mut samples: Vec<Samples> = chunks.iter_mut().map(|c| std::mem::take(&mut c.samples)).collect();
    let mut values: Vec<SampleValues> = chunks.iter_mut().map(|c| std::mem::take(&mut c.values)).collect();
    let mut locations: Vec<SampleLocations> = chunks.iter_mut().map(|c| std::mem::take(&mut c.locations)).collect();
    let lines = chunks.iter_mut().map(|c| std::mem::take(&mut c.sample_lines)).collect();
    let p = &mut parsed.profile;
    let (s, v, sl) = (&mut p.samples, &mut p.sample_values, &mut p.sample_locations);
    let jobs = vec![
        Job::new(&mut s.sample_id, take_each(&mut samples, |t| &mut t.sample_id), sample_id),
        Job::new(&mut s.source_id, take_each(&mut samples, |t| &mut t.source_id), source_id),
        Job::new(&mut v.sample_id, take_each(&mut values, |t| &mut t.sample_id), sample_id),
        Job::new(&mut v.value_type, take_each(&mut values, |t| &mut t.value_type), same),
        Job::new(&mut v.unit, take_each(&mut values, |t| &mut t.unit), same),
        Job::new(&mut v.value, take_each(&mut values, |t| &mut t.value), same),
        Job::new(&mut sl.sample_id, take_each(&mut locations, |t| &mut t.sample_id), sample_id),
        Job::new(&mut sl.depth, take_each(&mut locations, |t| &mut t.depth), same),
        Job::new(&mut sl.location_id, take_each(&mut locations, |t| &mut t.location_id), location_id),
        Job::new(&mut parsed.sample_lines, lines, same),
    ];
    run_jobs(jobs, chunks.len() + 1);
}

/// The value as it is, in any chunk.
fn same<T>(_chunk: usize, value: T) -> T {
    value
}

/// What turns the numbers of the chunks after the first into ids, per chunk.
struct IdMaps {
    /// Samples before the chunk.
    sample_offsets: Vec<i32>,
    /// Source id of each segment of the chunk (0: the one going on where it starts).
    source_ids: Vec<Vec<i32>>,
    /// Location id of each frame the chunk numbered.
    location_ids: Vec<Vec<i32>>,
}

/// `maps[chunk][local]`, or NA (never: every number a chunk uses is mapped).
fn lookup(maps: &[Vec<i32>], chunk: usize, local: i32) -> i32 {
    let map = maps.get(chunk).map(Vec::as_slice).unwrap_or_default();
    usize::try_from(local).ok().and_then(|i| map.get(i)).copied().unwrap_or(NA_INT)
}

/// Replays the logs of `chunks`, in order, through `reader` (which has read what
/// comes before them), and corrects the `alloc_size` of each chunk's first memory
/// sample (which needs the gauges of the tick before, in the chunk before). The
/// first error in file order is returned.
fn replay<'a>(reader: &mut Reader<'a>, chunks: &mut [ChunkReader<'a>]) -> Result<IdMaps> {
    let mut maps = IdMaps { sample_offsets: Vec::new(), source_ids: Vec::new(), location_ids: Vec::new() };
    let mut samples_before = reader.p.samples.nrow();
    for chunk in chunks.iter_mut() {
        maps.sample_offsets.push(check_sample_count(samples_before)?);
        let gauges_before = reader.segment.previous_gauges;
        let mut source_ids = vec![reader.segment.source_id];
        let mut location_ids = Vec::new();
        for Logged { samples, event } in std::mem::take(&mut chunk.log) {
            check_sample_count(samples_before + samples)?;
            match event {
                Event::Header(line, header) => {
                    reader.start_segment(line, header)?;
                    source_ids.push(reader.segment.source_id);
                }
                Event::File(line) => reader.file_line(line),
                Event::Warn(message) => reader.warn(message),
                Event::Frame(frame, rest) => location_ids.push(reader.location(&frame, rest)?),
                Event::MemoryTypes => reader.add_memory_types(),
                Event::Error(e) => return Err(e),
            }
        }
        if let (Some(before), Some((row, gauges))) = (gauges_before, chunk.first_inherited_gauges) {
            if let Some(alloc) = chunk.values.value.get_mut(row) {
                *alloc = alloc_size(Some(before), gauges);
            }
        }
        if chunk.previous_gauges.is_some() {
            reader.segment.previous_gauges = chunk.previous_gauges;
        }
        samples_before += chunk.samples.nrow();
        maps.source_ids.push(source_ids);
        maps.location_ids.push(location_ids);
    }
    check_sample_count(samples_before)?;
    Ok(maps)
}

/// `count` samples as an R integer, or the one-pass reader's error for more
/// samples than a profile can hold.
fn check_sample_count(count: usize) -> Result<i32> {
    i32::try_from(count).map_err(|_| too_many("samples"))
}

/// Cuts `text` at line starts into `chunks` pieces of about the same size (some
/// may be empty).
fn chunk_bounds(text: &[u8], chunks: usize) -> Vec<Range<usize>> {
    let chunks = chunks.max(1);
    let mut bounds = Vec::with_capacity(chunks);
    let mut start = 0;
    for k in 1..=chunks {
        let end = if k == chunks { text.len() } else { line_start_from(text, (text.len() / chunks * k).max(start)) };
        bounds.push(start..end);
        start = end;
    }
    bounds
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

/// Runs each job on a thread of its own; their results in order.
fn in_parallel<T: Send>(jobs: impl IntoIterator<Item = impl FnOnce() -> T + Send>) -> Vec<T> {
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs.into_iter().map(|job| s.spawn(job)).collect();
        handles.into_iter().map(join).collect()
    })
}

/// One column of each table, taken out of it.
fn take_each<T, C: Default>(tables: &mut [T], column: impl Fn(&mut T) -> &mut C) -> Vec<C> {
    tables.iter_mut().map(|t| std::mem::take(column(t))).collect()
}

/// Appending the columns of the chunks to one column, with their values passed
/// through a map.
struct Job<'s> {
    bytes: usize,
    run: Box<dyn FnOnce() + Send + 's>,
}

impl<'s> Job<'s> {
    /// Appends `parts` (one per chunk, in order) to `column`, each value passed
    /// through `map(chunk, value)`.
    fn new<T, F>(column: &'s mut Vec<T>, parts: Vec<Vec<T>>, map: F) -> Self
    where
        T: Copy + Send + 's,
        F: Fn(usize, T) -> T + Send + 's,
    {
        let len: usize = parts.iter().map(Vec::len).sum();
        let run = move || {
            column.reserve_exact(len);
            for (k, part) in parts.into_iter().enumerate() {
                column.extend(part.into_iter().map(|v| map(k, v)));
            }
        };
        Job { bytes: len * std::mem::size_of::<T>(), run: Box::new(run) }
    }
}

/// Runs `jobs` on up to `threads` threads (this one included), the largest first,
/// each on the thread with the least work so far.
fn run_jobs(mut jobs: Vec<Job<'_>>, threads: usize) {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let mut bins: Vec<(usize, Vec<Job<'_>>)> = (0..threads.min(cores).max(1)).map(|_| (0, Vec::new())).collect();
    jobs.sort_by_key(|job| std::cmp::Reverse(job.bytes));
    for job in jobs {
        if let Some(bin) = bins.iter_mut().min_by_key(|(bytes, _)| *bytes) {
            bin.0 += job.bytes;
            bin.1.push(job);
        }
    }
    let run_all = |jobs: Vec<Job<'_>>| jobs.into_iter().for_each(|job| (job.run)());
    let mut bins = bins.into_iter().map(|(_, jobs)| jobs);
    let here = bins.next().unwrap_or_default();
    std::thread::scope(|s| {
        let handles: Vec<_> = bins.map(|jobs| s.spawn(move || run_all(jobs))).collect();
        run_all(here);
        handles.into_iter().for_each(join);
    });
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
    /// The chunk stopped here.
    Error(ProfileError),
}

/// Reader of one chunk, with numbers of its own: segments count from 0 (the one
/// going on where the chunk starts), frames from 0 in order of first sight in the
/// chunk, samples from 1.
struct ChunkReader<'a> {
    limits: Limits,
    ids: Ids,
    log: Vec<Logged<'a>>,
    warned: Vec<&'static str>,
    segment: i32,
    /// Whether the memory types of the current segment are known to be declared.
    segment_memory: bool,
    /// Heap gauges of the previous tick in the current segment (in this chunk).
    previous_gauges: Option<[u64; 3]>,
    /// The row of the `alloc_size` value of the first memory sample of segment 0,
    /// and its gauges: the merge computes that value from the chunk before.
    first_inherited_gauges: Option<(usize, [u64; 3])>,
    /// Number of each frame met, by its bytes and, with a line reference, its
    /// segment and reference (whose file is the same throughout a segment).
    frames: FxHashMap<(&'a [u8], Option<(i32, FileRef)>), i32>,
    stacks: StackCache<'a>,
    samples: Samples,
    values: SampleValues,
    locations: SampleLocations,
    sample_lines: Vec<u32>,
}

impl<'a> ChunkReader<'a> {
    /// Reads `lines`; an error ends the log.
    fn read(lines: Lines<'a>, ids: Ids, limits: Limits, expected_lines: usize) -> Self {
        let mut reader = ChunkReader {
            limits,
            ids,
            log: Vec::new(),
            warned: Vec::new(),
            segment: 0,
            segment_memory: false,
            previous_gauges: None,
            first_inherited_gauges: None,
            frames: FxHashMap::default(),
            stacks: StackCache::default(),
            samples: Samples::default(),
            values: SampleValues::default(),
            locations: SampleLocations::default(),
            sample_lines: Vec::with_capacity(expected_lines),
        };
        // As the one-pass reader: one sample per line is the common case.
        reader.samples.reserve(expected_lines);
        reader.values.reserve(expected_lines);
        if let Err(e) = read_lines(&mut reader, lines) {
            reader.log(Event::Error(e));
        }
        reader
    }

    fn log(&mut self, event: Event<'a>) {
        self.log.push(Logged { samples: self.samples.nrow(), event });
    }
}

impl<'a> LineHandler<'a> for ChunkReader<'a> {
    fn header(&mut self, line: &'a [u8], header: Header) -> Result<()> {
        self.log(Event::Header(line, header));
        // Saturating is safe: a header has more than 4 bytes (see MAX_CHUNK_BYTES).
        self.segment = self.segment.saturating_add(1);
        self.segment_memory = header.memory;
        self.previous_gauges = None;
        self.stacks.seen.clear();
        Ok(())
    }

    fn file(&mut self, line: &'a [u8]) {
        self.log(Event::File(line));
    }

    fn warn(&mut self, message: &'static str) {
        if !self.warned.contains(&message) {
            self.warned.push(message);
            self.log(Event::Warn(message));
        }
    }

    fn limits(&self) -> Limits {
        self.limits
    }

    fn stacks(&mut self) -> &mut StackCache<'a> {
        &mut self.stacks
    }

    fn frame_location(&mut self, frame: &Frame<'a>, rest: &'a [u8]) -> Result<i32> {
        let key = (frame.name, frame.file_ref.map(|r| (self.segment, r)));
        if let Some(&number) = self.frames.get(&key) {
            return Ok(number);
        }
        let number = next_id(self.frames.len(), "locations")? - 1;
        self.frames.insert(key, number);
        self.log(Event::Frame(*frame, rest));
        Ok(number)
    }

    fn sample(&mut self, gauges: Option<[u64; 4]>, start: usize, len: usize, line_number: u32) -> Result<()> {
        self.sample_lines.push(line_number);
        let sample_id = next_id(self.samples.nrow(), "samples")?;
        if let Some([small, large, nodes, _]) = gauges {
            if !self.segment_memory {
                self.segment_memory = true;
                self.log(Event::MemoryTypes);
            }
            if self.segment == 0 && self.previous_gauges.is_none() {
                // Its values follow the tick's own: alloc_size is the last of them.
                let row = self.values.nrow() + MEMORY_TYPES.len();
                self.first_inherited_gauges = Some((row, [small, large, nodes]));
            }
        }
        let stack = self.stacks.locations.get(start..start + len).unwrap_or_default();
        let mut tables =
            SampleTables { samples: &mut self.samples, values: &mut self.values, locations: &mut self.locations };
        tables.push(&self.ids, sample_id, self.segment, gauges, &mut self.previous_gauges, stack);
        Ok(())
    }
}
