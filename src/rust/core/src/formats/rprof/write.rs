//! Writing a v2 profile as Rprof text.
//!
//! Each row of `sources` becomes a segment (a header and its lines, as
//! `Rprof(append = TRUE)` writes them), in the order of the `sources` table, with
//! that source's samples in `sample_id` order. For a profile read from Rprof this
//! gives back the bytes R wrote: the stored header, `#File` lines just before the
//! first line that uses them (numbered per segment in order of first use), `N#L`
//! references, the memory prefix from the stored gauges, frame names verbatim, and
//! an outermost top-level frame as the bare line reference R wrote for it.
//!
//! Other profiles (pprof, converted v1, hand-made) get a header made from their
//! content, and each sample is written as many times as its `samples` count says,
//! since an Rprof line is one timer tick.

use super::{Header, DEFAULT_INTERVAL_US, MEMORY_TYPES, SAMPLES_TYPE, TOP_LEVEL_NAME};
use crate::error::{ProfileError, Result};
use crate::model::id_index::{IdGroups, IdIndex, IdSet};
use crate::model::{Profile, StrId, NA_INT};
use rustc_hash::FxHashMap;
use std::io::Write;

/// Most lines one write may produce (samples repeated by their counts); protects
/// the disk from a profile whose counts are absurd.
const MAX_LINES: u64 = i32::MAX as u64;

/// Writes `p` as Rprof text to `w`.
pub fn write(p: &Profile, w: &mut dyn Write) -> Result<()> {
    let plan = Plan::new(p)?;
    if p.sources.nrow() == 0 {
        // Nothing to write but a file must still start with a header.
        writeln!(
            w,
            "{}",
            Header {
                interval_us: DEFAULT_INTERVAL_US,
                ..Header::default()
            }
            .to_line()
        )?;
        return Ok(());
    }
    let mut lines_written: u64 = 0;
    let mut line = Vec::with_capacity(1024);
    for source_row in 0..p.sources.nrow() {
        // Samples with a count of 0 stand for no tick: they get no line.
        let mut samples = Vec::new();
        for &row in plan.samples_of_source(p, source_row) {
            let repeat = plan.repeat_count(row)?;
            if repeat > 0 {
                samples.push((row, repeat));
            }
        }
        let rows: Vec<usize> = samples.iter().map(|&(row, _)| row).collect();
        let header = plan.header(p, source_row, &rows);
        w.write_all(header.as_bytes())?;
        w.write_all(b"\n")?;

        let memory = Header::parse(header.as_bytes()).is_some_and(|h| h.memory);
        let mut gauges = plan.first_gauges(&rows);
        let mut file_numbers: FxHashMap<StrId, u32> = FxHashMap::default();
        for (row, repeat) in samples {
            lines_written = lines_written.saturating_add(repeat);
            if lines_written > MAX_LINES {
                return Err(ProfileError::limit(format!(
                    "the `samples` counts add up to more than {MAX_LINES} lines"
                )));
            }
            line.clear();
            if memory {
                let g = plan.gauges.get(row).copied().unwrap_or([f64::NAN; 4]);
                for (carried, v) in gauges.iter_mut().zip(g) {
                    if !v.is_nan() {
                        *carried = v;
                    }
                }
                write_memory_prefix(&mut line, gauges, g[3]);
            }
            push_frames(&mut line, p, &plan, row, &mut file_numbers, w)?;
            line.push(b'\n');
            for _ in 0..repeat {
                w.write_all(&line)?;
            }
        }
    }
    w.flush()?;
    Ok(())
}

/// Appends the frames of sample row `row` to the stack line `line`. A frame
/// whose file has no number yet in this segment gets the next one, and its
/// `#File` line is written to `w` (R writes it just before the first stack
/// line that refers to the file).
fn push_frames(
    line: &mut Vec<u8>,
    p: &Profile,
    plan: &Plan<'_>,
    row: usize,
    file_numbers: &mut FxHashMap<StrId, u32>,
    w: &mut dyn Write,
) -> Result<()> {
    let mut frames = plan.stack(row).peekable();
    while let Some(frame) = frames.next() {
        if frame.has_ref() {
            let number = match file_numbers.get(&frame.file) {
                Some(&n) => n,
                None => {
                    let n = file_numbers.len() as u32 + 1;
                    write!(w, "#File {n}: ")?;
                    w.write_all(&one_line_path(p.str(frame.file)))?;
                    w.write_all(b"\n")?;
                    file_numbers.insert(frame.file, n);
                    n
                }
            };
            line.extend_from_slice(itoa::Buffer::new().format(number).as_bytes());
            line.push(b'#');
            line.extend_from_slice(itoa::Buffer::new().format(frame.line).as_bytes());
            line.push(b' ');
            if frame.top_level && frames.peek().is_none() {
                // R writes the top level as a reference alone, after the
                // outermost frame (see `TOP_LEVEL_NAME`).
                break;
            }
        }
        line.push(b'"');
        line.extend_from_slice(&one_line(frame.name));
        line.extend_from_slice(b"\" ");
    }
    Ok(())
}

/// The Rprof text of `p` in memory.
pub fn write_to_vec(p: &Profile) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write(p, &mut out)?;
    Ok(out)
}

/// `:small:large:nodes:dups:`, the vector heaps in R's 8-byte units.
fn write_memory_prefix(line: &mut Vec<u8>, gauges: [f64; 3], duplications: f64) {
    let fields = [gauges[0] / 8.0, gauges[1] / 8.0, gauges[2], duplications];
    for v in fields {
        line.push(b':');
        line.extend_from_slice(itoa::Buffer::new().format(whole(v)).as_bytes());
    }
    line.push(b':');
}

/// A non-negative whole number for a field R writes as `%lu` (NA and negative
/// values as 0; `as` saturates above u64::MAX).
fn whole(v: f64) -> u64 {
    if v.is_finite() && v > 0.0 {
        v.round() as u64
    } else {
        0
    }
}

/// Text for a single line of the file: a line feed inside a name or path would
/// break the format, so it becomes a space. Nothing read from a file has one, so
/// this never changes a profile that was read.
fn one_line(s: &str) -> std::borrow::Cow<'_, [u8]> {
    if s.contains('\n') {
        std::borrow::Cow::Owned(s.replace('\n', " ").into_bytes())
    } else {
        std::borrow::Cow::Borrowed(s.as_bytes())
    }
}

/// A path for a `#File` line, which ends the line: a carriage return at its end
/// would be read as part of a CRLF line end, so it becomes a space as well.
fn one_line_path(s: &str) -> std::borrow::Cow<'_, [u8]> {
    match one_line(s) {
        std::borrow::Cow::Borrowed(b) if !b.ends_with(b"\r") => std::borrow::Cow::Borrowed(b),
        other => {
            let mut v = other.into_owned();
            if let Some(last) = v.last_mut().filter(|b| **b == b'\r') {
                *last = b' ';
            }
            std::borrow::Cow::Owned(v)
        }
    }
}

/// What a frame is written as.
#[derive(Debug, Clone, Copy)]
struct Frame<'p> {
    name: &'p str,
    file: StrId,
    file_is_empty: bool,
    line: i32,
    /// Whether it stands for the top-level code (see `TOP_LEVEL_NAME`): as the
    /// outermost frame, and with a reference, it is written as the reference
    /// alone.
    top_level: bool,
}

impl Frame<'_> {
    /// Whether the frame gets an `N#L` reference: it has a file or a line.
    fn has_ref(&self) -> bool {
        !self.file_is_empty || self.line > 0
    }
}

/// A stack entry whose location does not exist.
const UNKNOWN_FRAME: Frame<'static> = Frame {
    name: "<unknown>",
    file: StrId::NA,
    file_is_empty: true,
    line: 0,
    top_level: false,
};

/// Indexes over the tables, built once per write.
struct Plan<'p> {
    /// Sample rows of each source id, in `sample_id` order.
    samples_by_source: IdGroups,
    stacks: StackRows<'p>,
    /// What each row of `locations` is written as, and the row of each id.
    location_frames: Vec<Frame<'p>>,
    location_row: IdIndex,
    /// `samples` value of each sample row (NaN if it has none).
    counts: Vec<f64>,
    /// small, large, nodes, duplications of each sample row (NaN where absent).
    gauges: Vec<[f64; 4]>,
}

fn invalid(table: &str, column: &str, row: usize, message: &str) -> ProfileError {
    ProfileError::invalid(table, column, Some(row + 1), message)
}

impl<'p> Plan<'p> {
    fn new(p: &'p Profile) -> Result<Plan<'p>> {
        // Rows by id: vector slots for the dense ids readers give keep the
        // millions of lookups below in cache.
        let sample_row = IdIndex::try_first_rows(&p.samples.sample_id)?;
        let samples_by_source = samples_by_source(p)?;
        let stacks = StackRows::new(p, &sample_row)?;
        // What each location is written as, worked out once per location.
        let location_row = IdIndex::try_first_rows(&p.locations.location_id)?;
        let function_row = IdIndex::try_first_rows(&p.functions.function_id)?;
        let location_frames: Vec<Frame<'p>> = (0..p.locations.nrow())
            .map(|row| location_frame(p, row, &function_row))
            .collect();
        let (counts, gauges) = counts_and_gauges(p, &sample_row)?;
        Ok(Plan {
            samples_by_source,
            stacks,
            location_frames,
            location_row,
            counts,
            gauges,
        })
    }

    fn samples_of_source(&self, p: &Profile, source_row: usize) -> &[usize] {
        p.sources
            .source_id
            .get(source_row)
            .map_or(&[], |&id| self.samples_by_source.rows_of(id))
    }

    /// The frames of sample row `row`, innermost first.
    fn stack(&self, row: usize) -> impl Iterator<Item = Frame<'p>> + '_ {
        self.stacks.location_ids(row).map(|id| {
            id.and_then(|id| self.location_row.row(id))
                .and_then(|r| self.location_frames.get(r))
                .copied()
                .unwrap_or(UNKNOWN_FRAME)
        })
    }

    /// How many lines sample `row` stands for: its `samples` count, 1 if it has none.
    fn repeat_count(&self, row: usize) -> Result<u64> {
        let c = self.counts.get(row).copied().unwrap_or(f64::NAN);
        if c.is_nan() {
            return Ok(1);
        }
        if !(c >= 0.0 && c.fract() == 0.0 && c <= MAX_LINES as f64) {
            return Err(ProfileError::invalid(
                "sample_values",
                "value",
                None,
                format!("a `samples` count must be a whole number >= 0 to be written as Rprof lines, found {c}"),
            ));
        }
        Ok(c as u64)
    }

    /// Gauges to carry forward for samples that lack them: those of the first sample
    /// that has them, so the heap does not seem to jump.
    #[allow(
        clippy::indexing_slicing,
        reason = "k < 3 indexes arrays of 3 and 4 gauges"
    )]
    fn first_gauges(&self, samples: &[usize]) -> [f64; 3] {
        let mut out = [0.0; 3];
        for k in 0..3 {
            if let Some(v) = samples
                .iter()
                .filter_map(|&r| self.gauges.get(r).map(|g| g[k]))
                .find(|v| !v.is_nan())
            {
                out[k] = v;
            }
        }
        out
    }

    /// The header of source `source_row`: the stored one when it agrees with what is
    /// written, else one made from the content (flags R writes, in R's order).
    fn header(&self, p: &Profile, source_row: usize, samples: &[usize]) -> String {
        let stored_text = p
            .sources
            .rprof_header
            .get(source_row)
            .and_then(|&s| p.strings.get(s));
        let stored = stored_text.and_then(|t| {
            if t.contains(['\n', '\r']) {
                None
            } else {
                Header::parse(t.as_bytes())
            }
        });
        let has_gauges = samples.iter().any(|&r| {
            self.gauges
                .get(r)
                .is_some_and(|g| g.iter().take(3).any(|v| !v.is_nan()))
        });
        let mut has_ref = false;
        let mut has_gc = false;
        for &r in samples {
            for f in self.stack(r) {
                has_ref |= f.has_ref();
                has_gc |= f.name == "<GC>";
            }
        }
        let interval = self
            .interval(p, source_row)
            .or(stored.map(|h| h.interval_us));
        let wanted = Header {
            memory: has_gauges || (samples.is_empty() && stored.is_some_and(|h| h.memory)),
            gc: stored.map_or(has_gc, |h| h.gc),
            line: has_ref || stored.is_some_and(|h| h.line),
            interval_us: interval.unwrap_or(DEFAULT_INTERVAL_US),
        };
        match (stored, stored_text) {
            (Some(h), Some(text)) if h == wanted => text.to_owned(),
            _ => wanted.to_line(),
        }
    }

    /// The sampling interval in microseconds from `period`, when it is in nanoseconds.
    fn interval(&self, p: &Profile, source_row: usize) -> Option<u32> {
        let unit = p
            .sources
            .period_unit
            .get(source_row)
            .and_then(|&s| p.strings.get(s))?;
        let period = p.sources.period.get(source_row).copied()?;
        if unit != "nanoseconds" || !period.is_finite() || period < 1000.0 {
            return None;
        }
        let us = (period / 1000.0).round();
        (us <= f64::from(u32::MAX)).then_some(us as u32)
    }
}

/// The sample rows of each source id, each in `sample_id` order.
fn samples_by_source(p: &Profile) -> Result<IdGroups> {
    let source_ids = IdSet::try_of(&p.sources.source_id)?;
    if let Some(row) = p
        .samples
        .source_id
        .iter()
        .position(|&source| !source_ids.contains(source))
    {
        return Err(invalid(
            "samples",
            "source_id",
            row,
            "refers to a source that does not exist",
        ));
    }
    let mut groups = IdGroups::try_of(&p.samples.source_id)?;
    groups.sort_rows_by_key(|r| p.samples.sample_id.get(r).copied().unwrap_or(NA_INT));
    Ok(groups)
}

/// The stacks as rows of `sample_locations`: positions `start[r]..start[r + 1]`
/// of the stack order hold the frames of sample row `r`, innermost first (by
/// depth, whatever the depths are). Unlike the stacks of summaries this copies
/// nothing when the rows already come sample after sample, each by depth (as
/// readers write them), and accepts any depths, as the writer always has.
struct StackRows<'p> {
    start: Vec<usize>,
    /// The `sample_locations` row at each position of the stack order; `None`
    /// when that is the table's own order.
    order: Option<Vec<u32>>,
    /// `location_id` of each `sample_locations` row.
    location_ids: &'p [i32],
}

impl<'p> StackRows<'p> {
    /// Counts the rows of each sample and, unless they are in order already,
    /// places each row and orders each sample's rows by depth.
    #[allow(clippy::indexing_slicing, reason = "i in 1..start.len()")]
    fn new(p: &'p Profile, sample_row: &IdIndex) -> Result<Self> {
        let n_samples = p.samples.nrow();
        let sl = &p.sample_locations;
        let mut owner: Vec<u32> = Vec::with_capacity(sl.nrow());
        let mut start = vec![0usize; n_samples + 1];
        let mut in_order = true;
        let mut before = (0u32, NA_INT);
        for (row, &id) in sl.sample_id.iter().enumerate() {
            // Sample rows fit in u32 (the index numbers them so).
            let s = sample_row.get(id).ok_or_else(|| {
                invalid(
                    "sample_locations",
                    "sample_id",
                    row,
                    "refers to a sample that does not exist",
                )
            })?;
            let depth = sl.depth.get(row).copied().unwrap_or(NA_INT);
            in_order &= before <= (s, depth);
            before = (s, depth);
            owner.push(s);
            if let Some(c) = start.get_mut(s as usize + 1) {
                *c += 1;
            }
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let order = (!in_order).then(|| Self::order_by_depth(p, &owner, &start));
        Ok(StackRows {
            start,
            order,
            location_ids: &sl.location_id,
        })
    }

    /// The rows of each sample (by `owner`, the sample row of each row) in
    /// their slots from `start`, each sample's rows sorted by depth.
    #[allow(clippy::indexing_slicing, reason = "s + 1 < start.len()")]
    fn order_by_depth(p: &Profile, owner: &[u32], start: &[usize]) -> Vec<u32> {
        let sl = &p.sample_locations;
        let mut fill = start.to_vec();
        let mut order = vec![0u32; sl.nrow()];
        for (row, &s) in owner.iter().enumerate() {
            if let Some(slot) = fill.get_mut(s as usize).and_then(|at| {
                let i = *at;
                *at += 1;
                order.get_mut(i)
            }) {
                *slot = row as u32;
            }
        }
        let depth = |&row: &u32| sl.depth.get(row as usize).copied().unwrap_or(NA_INT);
        for s in 0..start.len().saturating_sub(1) {
            if let Some(rows) = order.get_mut(start[s]..start[s + 1]) {
                if !rows.is_sorted_by_key(depth) {
                    rows.sort_by_key(depth);
                }
            }
        }
        order
    }

    /// The location ids of the stack of sample row `row`, innermost first (None
    /// where the column is too short).
    fn location_ids(&self, row: usize) -> impl Iterator<Item = Option<i32>> + '_ {
        let positions = match (self.start.get(row), self.start.get(row + 1)) {
            (Some(&a), Some(&b)) => a..b,
            _ => 0..0,
        };
        positions.map(|k| {
            let row = match &self.order {
                Some(order) => order.get(k).map(|&r| r as usize),
                None => Some(k),
            };
            row.and_then(|r| self.location_ids.get(r)).copied()
        })
    }
}

/// The `samples` count and the gauges of each sample row, from `sample_values`.
#[allow(
    clippy::indexing_slicing,
    reason = "k < 4 indexes the four memory types"
)]
fn counts_and_gauges(p: &Profile, sample_row: &IdIndex) -> Result<(Vec<f64>, Vec<[f64; 4]>)> {
    let n_samples = p.samples.nrow();
    let lookup = |s: &str| p.strings.lookup(s);
    let samples_type = lookup(SAMPLES_TYPE.0);
    // The four numbers of the memory prefix: the three heap gauges and the
    // duplications.
    let prefix_types: [Option<StrId>; 4] = [0, 1, 2, 3].map(|k| lookup(MEMORY_TYPES[k].0));
    let mut counts = vec![f64::NAN; n_samples];
    let mut gauges = vec![[f64::NAN; 4]; n_samples];
    let sv = &p.sample_values;
    for (row, &id) in sv.sample_id.iter().enumerate() {
        let Some(s) = sample_row.row(id) else {
            return Err(invalid(
                "sample_values",
                "sample_id",
                row,
                "refers to a sample that does not exist",
            ));
        };
        let t = sv.value_type.get(row).copied();
        let v = sv.value.get(row).copied().unwrap_or(f64::NAN);
        if t.is_some() && t == samples_type {
            if let Some(c) = counts.get_mut(s) {
                *c = v;
            }
        } else if let Some(k) = prefix_types.iter().position(|g| g.is_some() && *g == t) {
            if let Some(g) = gauges.get_mut(s).and_then(|g| g.get_mut(k)) {
                *g = v;
            }
        }
    }
    Ok((counts, gauges))
}

/// What the location in row `row` is written as.
fn location_frame<'p>(p: &'p Profile, row: usize, function_row: &IdIndex) -> Frame<'p> {
    let line = p.locations.line.get(row).copied().unwrap_or(0);
    let line = if line == NA_INT { 0 } else { line.max(0) };
    let function = p
        .locations
        .function_id
        .get(row)
        .and_then(|&id| function_row.row(id));
    let non_empty =
        |id: Option<&StrId>| id.and_then(|&s| p.strings.get(s)).filter(|s| !s.is_empty());
    let (name, file, top_level) = match function {
        Some(r) => {
            let system_name = non_empty(p.functions.system_name.get(r));
            let top_level = system_name.is_none()
                && p.functions.name.get(r).and_then(|&s| p.strings.get(s)) == Some(TOP_LEVEL_NAME);
            let name = system_name.or_else(|| non_empty(p.functions.name.get(r)));
            (
                name,
                p.functions.filename.get(r).copied().unwrap_or(StrId::NA),
                top_level,
            )
        }
        None => (None, StrId::NA, false),
    };
    // A frame without a function name: its address (pprof), else a placeholder.
    let name = name
        .or_else(|| non_empty(p.locations.address.get(row)))
        .unwrap_or(UNKNOWN_FRAME.name);
    let file_is_empty = p.strings.get(file).is_none_or(str::is_empty);
    Frame {
        name,
        file,
        file_is_empty,
        line,
        top_level,
    }
}
