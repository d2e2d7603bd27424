//! The one-pass reader of Rprof lines ([`Reader`]): gives ids in order of
//! first appearance, interns the strings and fills the tables. The parallel
//! read replays the steps of its chunks through it (see `parallel.rs`).

use super::super::{Header, MEMORY_TYPES, SAMPLES_TYPE, TOP_LEVEL_NAME};
use super::super::{WARN_INCOMPLETE, WARN_UNDEFINED_FILE, WARN_UNEXPECTED};
use super::syntax::{files_ahead, parse_file_line, Frame};
use super::{CompactRead, LineHandler, LineState, Parsed, SampleLine, SampleShape};
use crate::error::Result;
use crate::io::text::utf8_escaped;
use crate::model::{next_id, Profile, SampleLocations, SampleValues, Samples, StrId, NA_INT};
use crate::resources::budget::Budget;
use rustc_hash::FxHashMap;

/// State of the segment (header) being read.
#[derive(Default)]
pub(super) struct Segment {
    pub(super) source_id: i32,
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
pub(super) struct Ids {
    empty: StrId,
    pub(super) samples: StrId,
    pub(super) count: StrId,
    pub(super) memory: [(StrId, StrId); 5],
}

/// The per-sample tables being filled (in a compact read: all but the compact
/// columns, whose shape is kept instead, see [`SampleShape`]).
pub(super) struct SampleTables<'t> {
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
pub(super) fn memory_values(
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

pub(super) struct Reader<'a> {
    p: Profile,
    pub(super) lines: LineState<'a>,
    ids: Ids,
    source_uri: StrId,
    functions_by_bytes: FxHashMap<(&'a [u8], StrId), i32>,
    functions_by_name: FxHashMap<(StrId, StrId), i32>,
    locations: FxHashMap<(i32, i32), i32>,
    locations_by_frame: FxHashMap<(&'a [u8], StrId, i32), i32>,
    pub(super) segment: Segment,
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

    fn state(&mut self) -> &mut LineState<'a> {
        &mut self.lines
    }

    fn frame_location(&mut self, frame: &Frame<'a>, rest: &'a [u8]) -> Result<i32> {
        self.location(frame, rest)
    }

    fn sample(&mut self, sample: SampleLine) -> Result<()> {
        self.lines
            .budget
            .room(&mut self.sample_lines, 1, || "the samples".to_string())?;
        self.sample_lines.push(sample.line_number);
        let sample_id = next_id(self.p.samples.nrow(), "samples")?;
        if sample.gauges.is_some() {
            self.add_memory_types()?;
        }
        let stack = self
            .lines
            .stacks
            .locations
            .get(sample.start..sample.start + sample.len)
            .unwrap_or_default();
        let mut tables = SampleTables {
            samples: &mut self.p.samples,
            values: &mut self.p.sample_values,
            locations: &mut self.p.sample_locations,
            shape: &mut self.shape,
            budget: self.lines.budget,
        };
        tables.push(
            sample_id,
            self.segment.source_id,
            sample.gauges,
            &mut self.segment.previous_gauges,
            stack,
        )
    }
}

impl<'a> Reader<'a> {
    /// Gives the warning `message` (each text once, in order).
    pub(super) fn warn_once(&mut self, message: &'static str) {
        self.lines.warned_once(message);
    }

    pub(super) fn new(
        source_uri: Option<&str>,
        expected_lines: usize,
        budget: &'a Budget,
    ) -> Result<Self> {
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
            lines: LineState::new(budget),
            ids,
            source_uri,
            functions_by_bytes: FxHashMap::default(),
            functions_by_name: FxHashMap::default(),
            locations: FxHashMap::default(),
            locations_by_frame: FxHashMap::default(),
            segment: Segment::default(),
            sample_lines,
            shape,
        })
    }

    pub(super) fn start_segment(&mut self, line: &[u8], header: Header) -> Result<()> {
        let source_id = next_id(self.p.sources.nrow(), "headers (sessions)")?;
        self.lines.budget.room(&mut self.p.sources, 1, || {
            "the headers (sessions)".to_string()
        })?;
        let strings = &mut self.p.strings;
        let header_text = strings.try_intern(&utf8_escaped(line), self.lines.budget)?;
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
        self.shape
            .push_source(header.interval_us, self.lines.budget)?;
        self.lines.stacks.seen.clear();
        self.push_sample_type(self.ids.samples, self.ids.count)?;
        if header.memory {
            self.add_memory_types()?;
        }
        Ok(())
    }

    pub(super) fn push_sample_type(&mut self, value_type: StrId, unit: StrId) -> Result<()> {
        let t = &mut self.p.sample_types;
        self.lines
            .budget
            .room(t, 1, || "the sample types".to_string())?;
        t.source_id.push(self.segment.source_id);
        t.value_type.push(value_type);
        t.unit.push(unit);
        Ok(())
    }

    pub(super) fn add_memory_types(&mut self) -> Result<()> {
        if !self.segment.memory_types {
            self.segment.memory_types = true;
            for (t, u) in self.ids.memory {
                self.push_sample_type(t, u)?;
            }
        }
        Ok(())
    }

    /// `#File N: path`. A damaged one (cut off, say) is skipped with a warning.
    pub(super) fn file_line(&mut self, line: &[u8]) -> Result<()> {
        let Some((number, path)) = parse_file_line(line) else {
            self.warn_once(WARN_INCOMPLETE);
            return Ok(());
        };
        let path = self
            .p
            .strings
            .try_intern(&utf8_escaped(path), self.lines.budget)?;
        match self.segment.files.get(&number) {
            Some(&known) if known != path => self.warn_once(WARN_UNEXPECTED),
            Some(_) => {}
            None => {
                self.lines.budget.room(&mut self.segment.files, 1, || {
                    "the `#File` lines".to_string()
                })?;
                self.segment.files.insert(number, path);
            }
        }
        Ok(())
    }

    /// The file name of reference number `file` in the current segment.
    pub(super) fn file_name(&mut self, file: u32, rest: &'a [u8]) -> Result<StrId> {
        if let Some(&path) = self.segment.files.get(&file) {
            return Ok(path);
        }
        if self.segment.files_ahead.is_none() {
            let ahead = files_ahead(rest, &mut self.p.strings, self.lines.budget)?;
            self.segment.files_ahead = Some(ahead);
        }
        if let Some(&path) = self.segment.files_ahead.as_ref().and_then(|m| m.get(&file)) {
            return Ok(path);
        }
        self.warn_once(WARN_UNDEFINED_FILE);
        Ok(self.ids.empty)
    }

    /// The location of a frame: function (name, file) and line, created on first sight.
    /// The line is 0 for a frame without a reference.
    pub(super) fn location(&mut self, frame: &Frame<'a>, rest: &'a [u8]) -> Result<i32> {
        let (file, line) = match frame.file_ref {
            Some(r) => (self.file_name(r.file, rest)?, r.line),
            None => (self.ids.empty, 0),
        };
        // Most frames repeat: one lookup by the bytes of the frame finds them.
        if let Some(&id) = self.locations_by_frame.get(&(frame.name, file, line)) {
            return Ok(id);
        }
        let what = || "the locations and functions".to_string();
        self.lines
            .budget
            .room(&mut self.locations_by_frame, 1, what)?;
        let function_id = match self.functions_by_bytes.get(&(frame.name, file)) {
            Some(&id) => id,
            None => {
                let id = self.function(frame.name, file, line)?;
                self.lines
                    .budget
                    .room(&mut self.functions_by_bytes, 1, what)?;
                self.functions_by_bytes.insert((frame.name, file), id);
                id
            }
        };
        if let Some(&id) = self.locations.get(&(function_id, line)) {
            self.locations_by_frame.insert((frame.name, file, line), id);
            return Ok(id);
        }
        self.lines.budget.room(&mut self.locations, 1, what)?;
        self.lines.budget.room(&mut self.p.locations, 1, what)?;
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
    pub(super) fn function(&mut self, name: &[u8], file: StrId, line: i32) -> Result<i32> {
        let system_name = self
            .p
            .strings
            .try_intern(&utf8_escaped(name), self.lines.budget)?;
        if let Some(&id) = self.functions_by_name.get(&(system_name, file)) {
            return Ok(id);
        }
        let name = if name.is_empty() {
            self.p
                .strings
                .try_intern(TOP_LEVEL_NAME, self.lines.budget)?
        } else {
            system_name
        };
        let what = || "the locations and functions".to_string();
        self.lines
            .budget
            .room(&mut self.functions_by_name, 1, what)?;
        self.lines.budget.room(&mut self.p.functions, 1, what)?;
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

    pub(super) fn finish(self) -> CompactRead {
        // The lookups end with the read: their memory is released.
        let budget = self.lines.budget;
        budget.release_all(&self.functions_by_bytes);
        budget.release_all(&self.functions_by_name);
        budget.release_all(&self.locations);
        budget.release_all(&self.locations_by_frame);
        self.lines.stacks.release(budget);
        let parsed = Parsed {
            profile: self.p,
            warnings: self.lines.warned.into_iter().map(str::to_owned).collect(),
            sample_lines: self.sample_lines,
        };
        CompactRead {
            parsed,
            shape: self.shape,
        }
    }
}
