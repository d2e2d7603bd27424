//! A *compact read*: the Rprof read that leaves its compact columns unwritten.
//!
//! A compact column is a column of a long table kept by the shape of the samples
//! instead of one value per row (see `dev/ARCHITECTURE.md`). Six of the columns
//! a read writes for every frame, value and sample say nothing that the samples'
//! shapes do not: `sample_locations$sample_id` and `depth` (a sample's stack
//! takes rows 1, 2, ... of its run), `sample_values$sample_id`, `type` and
//! `unit` (a tick, then the memory types if the sample has them) and
//! `samples$time` (tick `i` of a source is at `(i - 1)` times its interval).
//! With memory profiling they are most of what a read writes, and the R binding
//! sends them compact anyway, so a compact read ([`CompactRead`]) leaves them
//! empty and keeps the shape instead: one stack length and one memory flag per
//! sample, and the interval of each source.
//! Whoever needs the columns expands them from the shape
//! ([`SampleShape::expand`]); every other reader of the crate returns them
//! written.

use super::{Ids, Parsed};
use crate::model::{ColumnId, Profile, SampleLocations, SampleValues, Samples, StrId};
use crate::rprof::MEMORY_TYPES;

/// Microseconds (the unit of an Rprof interval) in a second (the unit of
/// `samples$time`).
pub const MICROSECONDS: f64 = 1e6;

/// The time in seconds of tick `tick` (from 0) of a source sampled every
/// `interval_us` microseconds: the product is exact, so this is the double
/// nearest to the true time, the one R's `(i - 1) * interval / 1e6` gives.
pub fn tick_time(tick: u64, interval_us: f64) -> f64 {
    tick as f64 * interval_us / MICROSECONDS
}

/// The shape of a read's samples, in `sample_id` order (ids are 1, 2, ...).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SampleShape {
    /// Rows of each sample in `sample_locations` (its stack depth).
    pub(in crate::rprof) stack_lens: Vec<u32>,
    /// Whether each sample has memory values (rows after its tick in
    /// `sample_values`, one per memory type).
    pub(in crate::rprof) memory: Vec<bool>,
    /// Type and unit of a tick's value, then of each memory type's.
    types: [(StrId, StrId); 1 + MEMORY_TYPES.len()],
    /// The sampling interval of each source (by `source_id - 1`), in
    /// microseconds.
    intervals_us: Vec<f64>,
}

/// A column that a compact read leaves empty (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactColumn {
    LocationSampleId,
    Depth,
    ValueSampleId,
    ValueType,
    ValueUnit,
    Time,
}

impl CompactColumn {
    pub const ALL: [CompactColumn; 6] = [
        CompactColumn::LocationSampleId,
        CompactColumn::Depth,
        CompactColumn::ValueSampleId,
        CompactColumn::ValueType,
        CompactColumn::ValueUnit,
        CompactColumn::Time,
    ];

    /// The model's column.
    pub fn id(self) -> ColumnId {
        match self {
            CompactColumn::LocationSampleId => SampleLocations::sample_id,
            CompactColumn::Depth => SampleLocations::depth,
            CompactColumn::ValueSampleId => SampleValues::sample_id,
            CompactColumn::ValueType => SampleValues::value_type,
            CompactColumn::ValueUnit => SampleValues::unit,
            CompactColumn::Time => Samples::time,
        }
    }
}

impl SampleShape {
    pub(super) fn new(ids: &Ids, expected_samples: usize) -> Self {
        let mut types = [(ids.samples, ids.count); 1 + MEMORY_TYPES.len()];
        for (slot, &memory_type) in types.iter_mut().skip(1).zip(&ids.memory) {
            *slot = memory_type;
        }
        SampleShape {
            stack_lens: Vec::with_capacity(expected_samples),
            memory: Vec::with_capacity(expected_samples),
            types,
            intervals_us: Vec::new(),
        }
    }

    /// Adds the next source, sampled every `interval_us` microseconds.
    pub(super) fn push_source(&mut self, interval_us: u32) {
        self.intervals_us.push(f64::from(interval_us));
    }

    /// The sampling interval of source `source_id`, in microseconds (0 for a
    /// source the read has not numbered: never).
    pub fn interval_us(&self, source_id: i32) -> f64 {
        usize::try_from(source_id - 1).ok().and_then(|row| self.intervals_us.get(row)).copied().unwrap_or(0.0)
    }

    /// Adds the next sample.
    pub(super) fn push(&mut self, stack_len: usize, memory: bool) {
        // A stack's depth is bounded by the limits (far below 2^32).
        self.stack_lens.push(u32::try_from(stack_len).unwrap_or(u32::MAX));
        self.memory.push(memory);
    }

    pub fn n_samples(&self) -> usize {
        self.stack_lens.len()
    }

    /// Rows of each sample in `sample_locations`.
    pub fn stack_lens(&self) -> &[u32] {
        &self.stack_lens
    }

    /// Rows of `sample_values` of a sample with or without memory values.
    fn value_rows(memory: bool) -> usize {
        if memory {
            1 + MEMORY_TYPES.len()
        } else {
            1
        }
    }

    /// Rows of each sample in `sample_values`.
    pub fn value_rows_per_sample(&self) -> impl Iterator<Item = usize> + Clone + '_ {
        self.memory.iter().map(|&m| Self::value_rows(m))
    }

    /// The number of `sample_values` rows every sample has, if they all have the
    /// same (all with memory values, or none), and there is a sample.
    pub fn equal_value_rows(&self) -> Option<usize> {
        let first = *self.memory.first()?;
        self.memory.iter().all(|&m| m == first).then(|| Self::value_rows(first))
    }

    /// Type and unit of the first `rows` values of a sample.
    pub fn value_types(&self, rows: usize) -> &[(StrId, StrId)] {
        self.types.get(..rows).unwrap_or(&self.types)
    }

    /// Rows of `sample_locations`.
    fn location_rows(&self) -> usize {
        self.stack_lens.iter().map(|&n| n as usize).sum()
    }

    /// Rows of `sample_values`.
    fn values_rows(&self) -> usize {
        self.value_rows_per_sample().sum()
    }

    /// `sample_locations$depth`: 1, 2, ... along each stack.
    fn depths(&self) -> Vec<i32> {
        let mut out = Vec::with_capacity(self.location_rows());
        for &len in &self.stack_lens {
            out.extend((1..=i32::MAX).take(len as usize));
        }
        out
    }

    /// `samples$time` of samples of the sources `source_ids` (in runs, one per
    /// source): each run counts the ticks of its source.
    fn times(&self, source_ids: &[i32]) -> Vec<f64> {
        let mut out = Vec::with_capacity(source_ids.len());
        let (mut source, mut interval_us, mut tick) = (None, 0.0, 0u64);
        for &id in source_ids {
            if source != Some(id) {
                (source, interval_us, tick) = (Some(id), self.interval_us(id), 0);
            }
            out.push(tick_time(tick, interval_us));
            tick += 1;
        }
        out
    }

    fn string_column(&self, pick: impl Fn(&(StrId, StrId)) -> StrId) -> Vec<StrId> {
        let mut out = Vec::with_capacity(self.values_rows());
        for rows in self.value_rows_per_sample() {
            out.extend(self.value_types(rows).iter().map(&pick));
        }
        out
    }

    /// Writes `column` of `p` from the shape (`samples$time` from
    /// `samples$source_id`, which a compact read writes).
    pub fn expand(&self, column: CompactColumn, p: &mut Profile) {
        let (sl, v) = (&mut p.sample_locations, &mut p.sample_values);
        match column {
            CompactColumn::LocationSampleId => {
                sl.sample_id = sample_ids(self.stack_lens.iter().map(|&n| n as usize), self.location_rows())
            }
            CompactColumn::Depth => sl.depth = self.depths(),
            CompactColumn::ValueSampleId => v.sample_id = sample_ids(self.value_rows_per_sample(), self.values_rows()),
            CompactColumn::ValueType => v.value_type = self.string_column(|&(t, _)| t),
            CompactColumn::ValueUnit => v.unit = self.string_column(|&(_, u)| u),
            CompactColumn::Time => p.samples.time = self.times(&p.samples.source_id),
        }
    }
}

/// Each sample's id (1, 2, ...) repeated over its `rows`, `total` in all.
fn sample_ids(rows: impl Iterator<Item = usize>, total: usize) -> Vec<i32> {
    let mut out = Vec::with_capacity(total);
    for (id, rows) in (1..=i32::MAX).zip(rows) {
        out.extend(std::iter::repeat_n(id, rows));
    }
    out
}

/// A compact read: the [`Parsed`] file without the columns listed in
/// [`CompactColumn`] (they are empty), and the shape they follow from.
#[derive(Debug, Clone)]
pub struct CompactRead {
    pub parsed: Parsed,
    pub shape: SampleShape,
}

impl CompactRead {
    /// The whole read, every column written.
    pub fn expand(self) -> Parsed {
        let CompactRead { mut parsed, shape } = self;
        for column in CompactColumn::ALL {
            shape.expand(column, &mut parsed.profile);
        }
        parsed
    }
}
