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

use super::reader::Ids;
use super::Parsed;
use crate::error::Result;
use crate::formats::rprof::MEMORY_TYPES;
use crate::model::{ColumnId, Profile, SampleLocations, SampleValues, Samples, StrId};
use crate::resources::budget::Budget;

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
    pub(in crate::formats::rprof) stack_lens: Vec<u32>,
    /// Whether each sample has memory values (rows after its tick in
    /// `sample_values`, one per memory type).
    pub(in crate::formats::rprof) memory: Vec<bool>,
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
    pub(super) fn new(ids: &Ids, expected_samples: usize, budget: &Budget) -> Result<Self> {
        let mut types = [(ids.samples, ids.count); 1 + MEMORY_TYPES.len()];
        for (slot, &memory_type) in types.iter_mut().skip(1).zip(&ids.memory) {
            *slot = memory_type;
        }
        let mut shape = SampleShape {
            stack_lens: Vec::new(),
            memory: Vec::new(),
            types,
            intervals_us: Vec::new(),
        };
        shape.make_room_for(expected_samples, budget)?;
        Ok(shape)
    }

    /// Room for `samples` more samples, charged to `budget`.
    fn make_room_for(&mut self, samples: usize, budget: &Budget) -> Result<()> {
        let what = || "the samples".to_string();
        budget.room(&mut self.stack_lens, samples, what)?;
        budget.room(&mut self.memory, samples, what)
    }

    /// Room for the next sample (see [`push`](Self::push)).
    pub(super) fn make_room(&mut self, budget: &Budget) -> Result<()> {
        self.make_room_for(1, budget)
    }

    /// Adds the next source, sampled every `interval_us` microseconds.
    pub(super) fn push_source(&mut self, interval_us: u32, budget: &Budget) -> Result<()> {
        budget.room(&mut self.intervals_us, 1, || "the sources".to_string())?;
        self.intervals_us.push(f64::from(interval_us));
        Ok(())
    }

    /// The sampling interval of source `source_id`, in microseconds (0 for a
    /// source the read has not numbered: never).
    pub fn interval_us(&self, source_id: i32) -> f64 {
        usize::try_from(source_id - 1)
            .ok()
            .and_then(|row| self.intervals_us.get(row))
            .copied()
            .unwrap_or(0.0)
    }

    /// Adds the next sample.
    pub(super) fn push(&mut self, stack_len: usize, memory: bool) {
        // A stack's depth is bounded by the limits (far below 2^32).
        self.stack_lens
            .push(u32::try_from(stack_len).unwrap_or(u32::MAX));
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
        self.memory
            .iter()
            .all(|&m| m == first)
            .then(|| Self::value_rows(first))
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

    /// `sample_locations$depth`: 1, 2, ... along each stack, into `out`
    /// (empty, with room for all).
    fn depths(&self, mut out: Vec<i32>) -> Vec<i32> {
        for &len in &self.stack_lens {
            out.extend((1..=i32::MAX).take(len as usize));
        }
        out
    }

    /// `samples$time` of samples of the sources `source_ids` (in runs, one per
    /// source): each run counts the ticks of its source; into `out` (empty, with
    /// room for all).
    fn times(&self, source_ids: &[i32], mut out: Vec<f64>) -> Vec<f64> {
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

    fn string_column(
        &self,
        mut out: Vec<StrId>,
        pick: impl Fn(&(StrId, StrId)) -> StrId,
    ) -> Vec<StrId> {
        for rows in self.value_rows_per_sample() {
            out.extend(self.value_types(rows).iter().map(&pick));
        }
        out
    }

    /// Writes `column` of `p` from the shape (`samples$time` from
    /// `samples$source_id`, which a compact read writes), its memory charged to
    /// `budget`.
    pub fn expand(&self, column: CompactColumn, p: &mut Profile, budget: &Budget) -> Result<()> {
        let rows = match column {
            CompactColumn::LocationSampleId | CompactColumn::Depth => self.location_rows(),
            CompactColumn::Time => p.samples.source_id.len(),
            _ => self.values_rows(),
        };
        let what = || "the columns of the samples".to_string();
        let (sl, v) = (&mut p.sample_locations, &mut p.sample_values);
        match column {
            CompactColumn::LocationSampleId => {
                let out = budget.vec_with_capacity(rows, what)?;
                sl.sample_id = sample_ids(self.stack_lens.iter().map(|&n| n as usize), out)
            }
            CompactColumn::Depth => sl.depth = self.depths(budget.vec_with_capacity(rows, what)?),
            CompactColumn::ValueSampleId => {
                v.sample_id = sample_ids(
                    self.value_rows_per_sample(),
                    budget.vec_with_capacity(rows, what)?,
                )
            }
            CompactColumn::ValueType => {
                v.value_type =
                    self.string_column(budget.vec_with_capacity(rows, what)?, |&(t, _)| t)
            }
            CompactColumn::ValueUnit => {
                v.unit = self.string_column(budget.vec_with_capacity(rows, what)?, |&(_, u)| u)
            }
            CompactColumn::Time => {
                let out = budget.vec_with_capacity(rows, what)?;
                p.samples.time = self.times(&p.samples.source_id, out)
            }
        }
        Ok(())
    }
}

/// Each sample's id (1, 2, ...) repeated over its `rows`, into `out` (empty,
/// with room for all).
fn sample_ids(rows: impl Iterator<Item = usize>, mut out: Vec<i32>) -> Vec<i32> {
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
    /// The whole read, every column written (charged to `budget`).
    pub fn expand(self, budget: &Budget) -> Result<Parsed> {
        let CompactRead { mut parsed, shape } = self;
        for column in CompactColumn::ALL {
            shape.expand(column, &mut parsed.profile, budget)?;
        }
        Ok(parsed)
    }
}
