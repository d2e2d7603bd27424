//! Step 2 of a parallel read: the per-sample columns written from the records
//! of the chunks, each column whole by one thread.

use super::{lookup, ChunkIds, ChunkSamples};
use crate::error::Result;
use crate::formats::rprof::read::reader::memory_values;
use crate::formats::rprof::read::CompactRead;
use crate::formats::rprof::MEMORY_TYPES;
use crate::model::NA_INT;
use crate::resources::budget::Budget;
use crate::resources::threads::{cores, in_parallel, MAX_THREADS};

/// A sample of a chunk as the column writers see it.
struct SampleView<'c> {
    sample_id: i32,
    source_id: i32,
    line: u32,
    /// The memory gauges, if the sample has them, and those of the tick before in
    /// the same segment.
    gauges: Option<[u64; 4]>,
    gauges_before: Option<[u64; 3]>,
    /// The frames, innermost first, as numbers of the chunk.
    stack: &'c [i32],
    chunk: usize,
}

impl SampleView<'_> {
    /// The values of the memory types, if the sample has them (worked out only by
    /// the writer of the `value` column).
    fn memory_values(&self) -> Option<[f64; 5]> {
        self.gauges
            .map(|g| memory_values(g, &mut self.gauges_before.clone()))
    }
}

/// Calls `f` on each sample of `chunks`, in order, with its ids.
fn for_each_sample<'c>(
    chunks: &'c [ChunkSamples],
    maps: &ChunkIds,
    mut f: impl FnMut(SampleView<'c>),
) {
    let mut sample_id = 0i32;
    // Memory gauges of the tick before, in the same segment (source).
    let (mut source_before, mut gauges_before) = (NA_INT, None);
    for (k, chunk) in chunks.iter().enumerate() {
        let mut gauges = chunk.gauges.iter();
        for record in &chunk.samples {
            sample_id = sample_id.saturating_add(1);
            let source_id = lookup(&maps.source_ids, k, record.segment);
            if source_id != source_before {
                (source_before, gauges_before) = (source_id, None);
            }
            let sample_gauges = if record.memory {
                gauges.next().copied()
            } else {
                None
            };
            let (start, len) = (record.stack_start as usize, record.stack_len as usize);
            let stack = chunk.locations.get(start..start + len).unwrap_or_default();
            f(SampleView {
                sample_id,
                source_id,
                line: record.line,
                gauges: sample_gauges,
                gauges_before,
                stack,
                chunk: k,
            });
            if let Some([small, large, nodes, _]) = sample_gauges {
                gauges_before = Some([small, large, nodes]);
            }
        }
    }
}

/// Writes the per-sample columns of a compact read (see [`CompactRead`]) from the
/// records of `chunks`: each column by one thread, the largest first, on the
/// thread with the least work. The columns are charged to `budget` before
/// anything is written.
pub(super) fn write_sample_columns(
    read: &mut CompactRead,
    chunks: &[ChunkSamples],
    maps: &ChunkIds,
    budget: &Budget,
) -> Result<()> {
    let samples: usize = chunks.iter().map(|c| c.samples.len()).sum();
    let values =
        samples + MEMORY_TYPES.len() * chunks.iter().map(|c| c.gauges.len()).sum::<usize>();
    let frames: usize = chunks
        .iter()
        .flat_map(|c| &c.samples)
        .map(|r| r.stack_len as usize)
        .sum();
    let CompactRead { parsed, shape } = read;
    let p = &mut parsed.profile;
    let (s, v, sl) = (
        &mut p.samples,
        &mut p.sample_values,
        &mut p.sample_locations,
    );
    let jobs = vec![
        Column::new(&mut s.sample_id, samples, budget, |x, out| {
            out.push(x.sample_id)
        })?,
        Column::new(&mut s.source_id, samples, budget, |x, out| {
            out.push(x.source_id)
        })?,
        Column::new(&mut parsed.sample_lines, samples, budget, |x, out| {
            out.push(x.line)
        })?,
        Column::new(&mut shape.stack_lens, samples, budget, |x, out| {
            out.push(u32::try_from(x.stack.len()).unwrap_or(u32::MAX));
        })?,
        Column::new(&mut shape.memory, samples, budget, |x, out| {
            out.push(x.gauges.is_some())
        })?,
        Column::new(&mut v.value, values, budget, |x, out| {
            out.push(1.0);
            out.extend(x.memory_values().into_iter().flatten());
        })?,
        Column::new(&mut sl.location_id, frames, budget, |x, out| {
            out.extend(
                x.stack
                    .iter()
                    .map(|&n| lookup(&maps.location_ids, x.chunk, n)),
            );
        })?,
    ];
    let threads = cores().min(MAX_THREADS).min(chunks.len()).max(1);
    let mut shares: Vec<(usize, Vec<Column<'_>>)> = (0..threads).map(|_| (0, Vec::new())).collect();
    let mut jobs = jobs;
    jobs.sort_by_key(|job| std::cmp::Reverse(job.bytes));
    for job in jobs {
        if let Some(share) = shares.iter_mut().min_by_key(|(bytes, _)| *bytes) {
            share.0 += job.bytes;
            share.1.push(job);
        }
    }
    in_parallel(shares.into_iter().map(|(_, share)| {
        move || {
            for job in share {
                (job.write)(chunks, maps);
            }
        }
    }));
    Ok(())
}

/// The writing of one per-sample column.
struct Column<'s> {
    bytes: usize,
    write: WriteColumn<'s>,
}

/// Writes a column from the records of the chunks.
type WriteColumn<'s> = Box<dyn FnOnce(&[ChunkSamples], &ChunkIds) + Send + 's>;

impl<'s> Column<'s> {
    /// Fills `column` (which will hold `rows` values, charged to `budget`) by
    /// `push(sample, column)` for each sample in order.
    fn new<T: Send + 's>(
        column: &'s mut Vec<T>,
        rows: usize,
        budget: &Budget,
        push: impl Fn(SampleView<'_>, &mut Vec<T>) + Send + 's,
    ) -> Result<Self> {
        // Allocated on the calling thread (see `parse`).
        budget.release((column.capacity() * std::mem::size_of::<T>()) as u64);
        *column = budget.vec_with_capacity(rows, || "the columns of the samples".to_string())?;
        let write = move |chunks: &[ChunkSamples], maps: &ChunkIds| {
            for_each_sample(chunks, maps, |x| push(x, column));
        };
        Ok(Column {
            bytes: rows * std::mem::size_of::<T>(),
            write: Box::new(write),
        })
    }
}
