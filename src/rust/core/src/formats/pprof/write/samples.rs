//! The Samples of a pprof file: the sample types of all sources united into
//! one list of columns, the value of every sample in each, and samples summed
//! where they are one.

use super::locations::LocationWriter;
use super::{internal, to_i64, SourceInfo, StringTable, MAX_VALUES};
use crate::error::{ProfileError, Result};
use crate::formats::pprof::proto;
use crate::model::frames::SampleFrames;
use crate::model::id_index::IdIndex;
use crate::model::identity::LabelRows;
use crate::model::schema::GAUGE_TYPES;
use crate::model::{Profile, StrId};
use rustc_hash::FxHashMap;

/// Positions of the sample columns of the pprof file.
pub(super) struct ValueColumns<'a> {
    /// (type, unit) of each column, in file order.
    pub(super) types: Vec<(&'a str, &'a str)>,
    /// v2 type -> column.
    pub(super) of_type: FxHashMap<StrId, usize>,
    /// Column of `samples` and of `cpu`, when Rprof samples need cpu time.
    pub(super) rprof_cpu: Option<(usize, usize)>,
}

impl<'a> ValueColumns<'a> {
    pub(super) fn new(p: &'a Profile, any_rprof_time: bool) -> Self {
        let mut order: Vec<(StrId, StrId)> = Vec::new();
        let rows = p
            .sample_types
            .value_type
            .iter()
            .zip(&p.sample_types.unit)
            .chain(p.sample_values.value_type.iter().zip(&p.sample_values.unit));
        let mut seen = rustc_hash::FxHashSet::default();
        for (&t, &u) in rows {
            if seen.insert(t) && !GAUGE_TYPES.contains(&p.str(t)) {
                order.push((t, u));
            }
        }
        let mut types: Vec<(&str, &str)> =
            order.iter().map(|&(t, u)| (p.str(t), p.str(u))).collect();
        let mut of_type: FxHashMap<StrId, usize> = order
            .iter()
            .enumerate()
            .map(|(i, &(t, _))| (t, i))
            .collect();
        let mut rprof_cpu = None;
        let samples_col = types
            .iter()
            .position(|&(t, u)| t == "samples" && u == "count");
        // A type named "cpu" in another unit (from some other profiler) leaves no
        // room for the Rprof time: pprof type names must be unique.
        let cpu_elsewhere = types.iter().any(|&(t, u)| t == "cpu" && u != "nanoseconds");
        if let (true, Some(samples_col), false) = (any_rprof_time, samples_col, cpu_elsewhere) {
            let cpu_col = match types
                .iter()
                .position(|&(t, u)| t == "cpu" && u == "nanoseconds")
            {
                Some(c) => c,
                None => {
                    let c = samples_col + 1;
                    types.insert(c, ("cpu", "nanoseconds"));
                    for col in of_type.values_mut() {
                        if *col >= c {
                            *col += 1;
                        }
                    }
                    c
                }
            };
            rprof_cpu = Some((samples_col, cpu_col));
        }
        ValueColumns {
            types,
            of_type,
            rprof_cpu,
        }
    }
}

/// The values of the pprof samples, one row per sample of the profile and one
/// column per pprof sample type; NaN where a sample has no value of a type.
pub(super) struct ValueMatrix {
    pub(super) cells: Vec<f64>,
    pub(super) ncol: usize,
}

impl ValueMatrix {
    #[allow(
        clippy::indexing_slicing,
        reason = "positions of samples and sample rows come from their indexes; a cell is below \
                  n_samples * ncol"
    )]
    pub(super) fn new(
        p: &Profile,
        columns: &ValueColumns<'_>,
        sample_index: &IdIndex,
        source_of_sample: &[usize],
        sources: &SourceInfo,
    ) -> Result<Self> {
        let n_samples = p.samples.nrow();
        let ncol = columns.types.len();
        let n_cells = n_samples
            .checked_mul(ncol)
            .filter(|&n| n as u64 <= MAX_VALUES)
            .ok_or_else(|| {
                ProfileError::limit(format!(
                    "a pprof file of these {n_samples} samples and {ncol} sample types would hold more \
                     than {MAX_VALUES} values"
                ))
            })?;
        let mut cells = Vec::new();
        cells
            .try_reserve_exact(n_cells)
            .map_err(|_| ProfileError::limit("not enough memory for the sample values"))?;
        cells.resize(n_cells, f64::NAN);
        let sv = &p.sample_values;
        for row in 0..sv.nrow() {
            if let Some(&col) = columns.of_type.get(&sv.value_type[row]) {
                let pos = sample_index
                    .row(sv.sample_id[row])
                    .ok_or_else(|| internal(format!("sample {} is unknown", sv.sample_id[row])))?;
                cells[pos * ncol + col] = sv.value[row];
            }
        }
        let mut matrix = ValueMatrix { cells, ncol };
        if let Some((samples_col, cpu_col)) = columns.rprof_cpu {
            for (pos, &source) in source_of_sample.iter().enumerate() {
                if let Some(interval) = sources.rprof_interval[source] {
                    let row = matrix.row_mut(pos);
                    if row[cpu_col].is_nan() && !row[samples_col].is_nan() {
                        row[cpu_col] = row[samples_col] * interval;
                    }
                }
            }
        }
        Ok(matrix)
    }

    #[allow(clippy::indexing_slicing, reason = "positions below the matrix's rows")]
    pub(super) fn row(&self, pos: usize) -> &[f64] {
        &self.cells[pos * self.ncol..(pos + 1) * self.ncol]
    }

    #[allow(clippy::indexing_slicing, reason = "positions below the matrix's rows")]
    pub(super) fn row_mut(&mut self, pos: usize) -> &mut [f64] {
        &mut self.cells[pos * self.ncol..(pos + 1) * self.ncol]
    }
}

/// A pprof sample before its strings go into the string table.
pub(super) struct SampleOut<'a> {
    pub(super) location_ids: Vec<u64>,
    pub(super) label_rows: &'a [usize],
    pub(super) values: Vec<f64>,
}

impl SampleOut<'_> {
    #[allow(
        clippy::indexing_slicing,
        reason = "label rows come from LabelRows, rows of sample_labels"
    )]
    pub(super) fn into_message<'p>(
        self,
        p: &'p Profile,
        strings: &mut StringTable<'p>,
    ) -> proto::Sample {
        let sl = &p.sample_labels;
        proto::Sample {
            location_id: self.location_ids,
            value: self.values.into_iter().map(to_i64).collect(),
            label: self
                .label_rows
                .iter()
                .map(|&r| proto::Label {
                    key: strings.add(p.str(sl.key[r])),
                    str: if sl.value[r].is_na() {
                        0
                    } else {
                        strings.add(p.str(sl.value[r]))
                    },
                    num: to_i64(sl.num[r]),
                    num_unit: if sl.num_unit[r].is_na() {
                        0
                    } else {
                        strings.add(p.str(sl.num_unit[r]))
                    },
                })
                .collect(),
        }
    }
}

/// The pprof samples, in sample order: a sample that `first_equal` gives an
/// earlier sample for is added to that one's pprof sample.
pub(super) fn collect_samples<'a>(
    stacks: &SampleFrames,
    values: &ValueMatrix,
    labels: &'a LabelRows,
    first_equal: &[usize],
    locations: &mut LocationWriter<'_>,
) -> Result<Vec<SampleOut<'a>>> {
    let mut out: Vec<SampleOut<'a>> = Vec::new();
    // The pprof sample of each sample written so far (by position).
    let mut written_as: Vec<usize> = Vec::with_capacity(first_equal.len());
    for (pos, &first) in first_equal.iter().enumerate() {
        let row_values = values.row(pos);
        if first != pos {
            // `first` is an earlier position, whose pprof sample exists.
            let target = written_as
                .get(first)
                .copied()
                .ok_or_else(|| internal("samples out of order".to_string()))?;
            let sample = out
                .get_mut(target)
                .ok_or_else(|| internal("samples out of order".to_string()))?;
            for (t, v) in sample.values.iter_mut().zip(row_values) {
                if !v.is_nan() {
                    *t += v;
                }
            }
            written_as.push(target);
            continue;
        }
        let mut ids = Vec::new();
        locations.stack_ids(stacks.of(pos), &mut ids)?;
        let values = row_values
            .iter()
            .map(|v| if v.is_nan() { 0.0 } else { *v })
            .collect();
        written_as.push(out.len());
        out.push(SampleOut {
            location_ids: ids,
            label_rows: labels.of(pos),
            values,
        });
    }
    Ok(out)
}
