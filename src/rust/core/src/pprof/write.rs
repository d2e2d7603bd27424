//! A v2 profile as a pprof message.
//!
//! A pprof file has one list of sample types, so the profile's types are united in
//! first-appearance order (`sample_types` rows, then `sample_values`), with 0 where
//! a sample has no value of a type. Gauges (heap sizes at a tick) are left out:
//! pprof sums values, and a sum of levels means nothing. Samples of Rprof sources
//! also get `cpu`/`nanoseconds` (count × sampling interval) so that pprof shows time.
//!
//! Samples with the same stack and labels are summed (v2 holds raw samples, one per
//! Rprof tick); samples read from pprof are written one to one, as they came.
//! Frames that were one pprof Location (linked by `locations.inlined_into`) become
//! one Location again, so a pprof file comes back with the locations it had.
//!
//! Frames of other origins (Rprof, v1, manual) go into a mapping named `[R]` with an
//! address per location: `go tool pprof` then does not look for a binary to
//! symbolize. Their functions are written without a system name when it equals the
//! name, because pprof runs names through a C++ demangler whenever the two are
//! equal, and that turns `<GC>` and `<Anonymous>` into `<unknown>`; the reader puts
//! the system name back for functions of the `[R]` mapping.

use super::proto;
use super::{parse_hex_address, R_MAPPING_FILENAME};
use crate::error::{ProfileError, Result};
use crate::id_index::IdIndex;
use crate::identity::{first_equal_samples, LabelRows};
use crate::model::{Profile, StrId, NA_INT};
use crate::schema::GAUGE_TYPES;
use crate::summary::SampleFrames;
use crate::validate;
use rustc_hash::FxHashMap;

/// Most sample values (samples x sample types) a file may hold: every sample has a
/// value of every type in pprof, which a profile uniting many sources with
/// different types could make huge.
pub const MAX_VALUES: u64 = 1 << 28;

/// How many lines the inlined-frame chains may have in all, beyond one per row:
/// rows read from pprof are in one chain each, while a hand-made tree of
/// `inlined_into` links (many rows inlined into one long chain) would make the
/// writer repeat the long chain for each of them.
const CHAIN_ROWS_PER_ROW: usize = 4;

/// How to write.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    /// Sum samples with the same stack and labels into one pprof sample. Off for
    /// v1 objects: their rows are aggregated already and are written one to one, as
    /// profile 1.0 did, so a v1 object reads back as it was.
    pub aggregate: bool,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions { aggregate: true }
    }
}

/// The string table under construction: "" first, each string once.
struct StringTable<'a> {
    index: FxHashMap<&'a str, i64>,
    strings: Vec<&'a str>,
}

impl<'a> StringTable<'a> {
    fn new() -> Self {
        let mut t = StringTable {
            index: FxHashMap::default(),
            strings: Vec::new(),
        };
        t.add("");
        t
    }

    fn add(&mut self, s: &'a str) -> i64 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.strings.len() as i64;
        self.strings.push(s);
        self.index.insert(s, i);
        i
    }

    fn into_bytes(self) -> Vec<Vec<u8>> {
        self.strings
            .into_iter()
            .map(|s| s.as_bytes().to_vec())
            .collect()
    }
}

fn internal(message: String) -> ProfileError {
    ProfileError::invalid("(profile)", "(profile)", None, message)
}

/// A value as a pprof integer: rounded, NA as 0, out-of-range values saturated.
fn to_i64(x: f64) -> i64 {
    if x.is_nan() {
        0
    } else {
        x.round() as i64
    }
}

fn hex_column(p: &Profile, table: &str, column: &str, row: usize, id: StrId) -> Result<u64> {
    match p.strings.get(id) {
        None => Ok(0),
        Some(s) => parse_hex_address(s).ok_or_else(|| {
            ProfileError::invalid(
                table,
                column,
                Some(row + 1),
                format!("must be an address like \"0x4a2f\", found \"{s}\""),
            )
        }),
    }
}

/// Positions of the sample columns of the pprof file.
struct ValueColumns<'a> {
    /// (type, unit) of each column, in file order.
    types: Vec<(&'a str, &'a str)>,
    /// v2 type -> column.
    of_type: FxHashMap<StrId, usize>,
    /// Column of `samples` and of `cpu`, when Rprof samples need cpu time.
    rprof_cpu: Option<(usize, usize)>,
}

impl<'a> ValueColumns<'a> {
    fn new(p: &'a Profile, any_rprof_time: bool) -> Self {
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

/// What the writer needs to know about each source.
struct SourceInfo {
    is_pprof: Vec<bool>,
    /// The sampling interval in nanoseconds of Rprof sources that have one.
    rprof_interval: Vec<Option<f64>>,
}

impl SourceInfo {
    fn new(p: &Profile) -> Self {
        let s = &p.sources;
        let is_pprof = s.source_type.iter().map(|&t| p.str(t) == "pprof").collect();
        let rprof_interval = (0..s.nrow())
            .map(|i| {
                let period = s.period[i];
                (p.str(s.source_type[i]) == "rprof"
                    && p.str(s.period_type[i]) == "cpu"
                    && p.str(s.period_unit[i]) == "nanoseconds"
                    && period.is_finite()
                    && period > 0.0)
                    .then_some(period)
            })
            .collect();
        SourceInfo {
            is_pprof,
            rprof_interval,
        }
    }
}

/// The pprof Locations being written and how stacks map onto them.
struct LocationWriter<'p> {
    p: &'p Profile,
    /// Row each row is inlined into.
    inlined_into: Vec<Option<usize>>,
    /// Rows written into the `[R]` mapping.
    is_r: Vec<bool>,
    /// For the innermost row of each chain of inlined rows: the chain's length
    /// and pprof id (0 for other rows); the common case, looked up without hashing.
    chain_of_start: Vec<(usize, u64)>,
    /// (first row, number of rows) -> pprof id, for parts of chains.
    ids: FxHashMap<(usize, usize), u64>,
    taken: rustc_hash::FxHashSet<u64>,
    next_free_id: u64,
    r_mapping_id: u64,
    r_address_limit: u64,
    out: Vec<proto::Location>,
}

impl<'p> LocationWriter<'p> {
    fn new(p: &'p Profile, location_index: &IdIndex, is_r: Vec<bool>) -> Result<Self> {
        let l = &p.locations;
        let inlined_into: Vec<Option<usize>> = l
            .inlined_into
            .iter()
            .map(|&x| location_index.row(x))
            .collect();
        let max_id = l.location_id.iter().copied().max().unwrap_or(0).max(0) as u64;
        let max_mapping = p
            .mappings
            .mapping_id
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .max(0) as u64;
        let mut w = LocationWriter {
            p,
            inlined_into,
            is_r,
            chain_of_start: vec![(0, 0); l.nrow()],
            ids: FxHashMap::default(),
            taken: Default::default(),
            next_free_id: max_id + 1,
            r_mapping_id: max_mapping + 1,
            r_address_limit: 0,
            out: Vec::with_capacity(l.nrow()),
        };
        // Every chain of inlined frames, from its innermost row, in table order, so
        // a pprof file's locations come back in their order and with their ids.
        let mut is_target = vec![false; l.nrow()];
        for &t in w.inlined_into.iter().flatten() {
            is_target[t] = true;
        }
        let mut chain_rows = 0usize;
        let max_chain_rows = l.nrow().saturating_mul(CHAIN_ROWS_PER_ROW).max(1 << 20);
        for (row, _) in is_target.iter().enumerate().filter(|(_, &target)| !target) {
            {
                let chain = w.chain(row)?;
                chain_rows += chain.len();
                if chain_rows > max_chain_rows {
                    return Err(ProfileError::limit(format!(
                        "the `inlined_into` links of `locations` make chains of more than \
                         {max_chain_rows} frames in all (long chains shared by many locations)"
                    )));
                }
                let id = w.add(&chain)?;
                w.chain_of_start[row] = (chain.len(), id);
            }
        }
        Ok(w)
    }

    /// Rows from `row` outwards along `inlined_into`.
    fn chain(&self, row: usize) -> Result<Vec<usize>> {
        let mut chain = vec![row];
        let mut cur = row;
        while let Some(next) = self.inlined_into[cur] {
            if chain.len() > self.inlined_into.len() {
                return Err(ProfileError::inline_cycle(
                    row,
                    self.p.locations.location_id[row],
                ));
            }
            chain.push(next);
            cur = next;
        }
        Ok(chain)
    }

    /// Writes a pprof Location for `rows` (innermost first); its id is the v2 id
    /// of the outermost row unless another Location has it already.
    fn add(&mut self, rows: &[usize]) -> Result<u64> {
        let l = &self.p.locations;
        let (Some(&first), Some(&outer)) = (rows.first(), rows.last()) else {
            return Err(internal("a location without rows".to_string()));
        };
        let preferred = u64::try_from(l.location_id[outer]).unwrap_or(0);
        let id = if preferred > 0 && self.taken.insert(preferred) {
            preferred
        } else {
            while !self.taken.insert(self.next_free_id) {
                self.next_free_id += 1;
            }
            self.next_free_id
        };

        let (mapping_id, address) = if self.is_r[first] {
            self.r_address_limit = self.r_address_limit.max(id + 1);
            (self.r_mapping_id, id)
        } else {
            // A mapping id with no mapping (the profile has no `mappings`
            // table) is written as none.
            let m = l.mapping_id[first];
            let written = m != NA_INT && self.p.has_table("mappings");
            (
                if written { m as u64 } else { 0 },
                hex_column(self.p, "locations", "address", first, l.address[first])?,
            )
        };
        let lines = rows
            .iter()
            .filter(|&&r| l.function_id[r] != NA_INT)
            .map(|&r| proto::Line {
                function_id: l.function_id[r] as u64,
                line: if l.line[r] == NA_INT {
                    0
                } else {
                    l.line[r] as i64
                },
                column: if l.column[r] == NA_INT {
                    0
                } else {
                    l.column[r] as i64
                },
            })
            .collect();
        self.out.push(proto::Location {
            id,
            mapping_id,
            address,
            line: lines,
            is_folded: l.is_folded[first] != NA_INT && l.is_folded[first] != 0,
        });
        Ok(id)
    }

    /// The pprof location ids of a stack (rows of `locations`): frames that form
    /// a chain of inlined frames become one location.
    fn stack_ids(&mut self, frames: &[u32], out: &mut Vec<u64>) -> Result<()> {
        out.clear();
        let mut i = 0;
        while i < frames.len() {
            let first = frames[i] as usize;
            let mut len = 1;
            let mut cur = first;
            while let Some(next) = self.inlined_into[cur] {
                if frames.get(i + len).map(|&f| f as usize) != Some(next) {
                    break;
                }
                len += 1;
                cur = next;
            }
            let id = match self.chain_of_start[first] {
                (full, id) if full == len && id != 0 => id,
                _ => match self.ids.get(&(first, len)) {
                    Some(&id) => id,
                    None => {
                        let rows: Vec<usize> =
                            frames[i..i + len].iter().map(|&f| f as usize).collect();
                        let id = self.add(&rows)?;
                        self.ids.insert((first, len), id);
                        id
                    }
                },
            };
            out.push(id);
            i += len;
        }
        Ok(())
    }

    /// The `[R]` mapping, if any location is in it.
    fn r_mapping(&self, strings: &mut StringTable<'_>) -> Option<proto::Mapping> {
        (self.r_address_limit > 0).then(|| proto::Mapping {
            id: self.r_mapping_id,
            memory_start: 0,
            memory_limit: self.r_address_limit,
            file_offset: 0,
            filename: strings.add(R_MAPPING_FILENAME),
            build_id: 0,
            has_functions: true,
            has_filenames: true,
            has_line_numbers: true,
            has_inline_frames: false,
        })
    }
}

/// The profile as a pprof message. The profile is validated first.
pub fn message_from_profile(p: &Profile, options: &WriteOptions) -> Result<proto::Profile> {
    validate::validate(p)?;
    let index = Indexes::new(p)?;
    let sources = SourceInfo::new(p);
    let source_of_sample: Vec<usize> = p
        .samples
        .source_id
        .iter()
        .map(|&s| {
            index
                .sources
                .row(s)
                .ok_or_else(|| internal(format!("source {s} is unknown")))
        })
        .collect::<Result<_>>()?;
    // Decided by the sources, not by their samples: a profile whose samples a
    // verb dropped (all of them, perhaps) keeps its sample types.
    let any_rprof_time = sources.rprof_interval.iter().any(Option::is_some);
    let columns = ValueColumns::new(p, any_rprof_time);
    let values = ValueMatrix::new(p, &columns, &index.samples, &source_of_sample, &sources)?;
    let sl = &p.sample_locations;
    let stacks = SampleFrames::gather(
        &sl.sample_id,
        &sl.depth,
        &sl.location_id,
        &index.samples,
        p.samples.nrow(),
        |lid| index.locations.get(lid),
    )?;
    let loc_is_r = locations_for_r_mapping(p, &stacks, &source_of_sample, &sources);
    let function_r_only = functions_only_in_r(p, &loc_is_r, &index.functions);
    let mut locations = LocationWriter::new(p, &index.locations, loc_is_r)?;
    let labels = LabelRows::new(p, &index.samples);
    // pprof samples are the profiler's own records (Go writes the same stack
    // and labels twice at times): only raw samples of other formats are summed.
    let summed =
        |pos: usize| (options.aggregate && !sources.is_pprof[source_of_sample[pos]]).then_some(0);
    let first_equal = first_equal_samples(p, &stacks, &labels, summed);
    let samples = collect_samples(&stacks, &values, &labels, &first_equal, &mut locations)?;

    // The string table is filled in message order, which fixes its indices.
    let mut strings = StringTable::new();
    let mut m = proto::Profile {
        sample_type: columns
            .types
            .iter()
            .map(|&(t, u)| proto::ValueType {
                r#type: strings.add(t),
                unit: strings.add(u),
            })
            .collect(),
        ..Default::default()
    };
    m.sample = samples
        .into_iter()
        .map(|s| s.into_message(p, &mut strings))
        .collect();
    m.mapping = mappings(p, &mut strings)?;
    m.mapping.extend(locations.r_mapping(&mut strings));
    m.location = std::mem::take(&mut locations.out);
    m.function = functions(p, &function_r_only, &mut strings);
    add_source_fields(p, &mut m, &mut strings)?;
    m.string_table = strings.into_bytes();
    Ok(m)
}

/// The row of each id of the tables the writer looks ids up in (all validated).
struct Indexes {
    sources: IdIndex,
    samples: IdIndex,
    locations: IdIndex,
    functions: IdIndex,
}

impl Indexes {
    fn new(p: &Profile) -> Result<Self> {
        let unique = |table: &str, ids: &[i32]| {
            IdIndex::try_unique_rows(
                ids,
                |_, _| Ok(()),
                |_, id| internal(format!("{table} id {id} occurs more than once")),
            )
        };
        Ok(Indexes {
            sources: unique("sources", &p.sources.source_id)?,
            samples: unique("samples", &p.samples.sample_id)?,
            locations: unique("locations", &p.locations.location_id)?,
            functions: unique("functions", &p.functions.function_id)?,
        })
    }
}

/// The values of the pprof samples, one row per sample of the profile and one
/// column per pprof sample type; NaN where a sample has no value of a type.
struct ValueMatrix {
    cells: Vec<f64>,
    ncol: usize,
}

impl ValueMatrix {
    fn new(
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

    fn row(&self, pos: usize) -> &[f64] {
        &self.cells[pos * self.ncol..(pos + 1) * self.ncol]
    }

    fn row_mut(&mut self, pos: usize) -> &mut [f64] {
        &mut self.cells[pos * self.ncol..(pos + 1) * self.ncol]
    }
}

/// The rows of `locations` that go into the new `[R]` mapping: those without a
/// mapping that only samples of other formats than pprof use.
fn locations_for_r_mapping(
    p: &Profile,
    stacks: &SampleFrames,
    source_of_sample: &[usize],
    sources: &SourceInfo,
) -> Vec<bool> {
    let n_loc = p.locations.nrow();
    let mut loc_pprof = vec![false; n_loc];
    let mut loc_other = vec![false; n_loc];
    for (pos, &source) in source_of_sample.iter().enumerate() {
        let used = if sources.is_pprof[source] {
            &mut loc_pprof
        } else {
            &mut loc_other
        };
        for &row in stacks.of(pos) {
            used[row as usize] = true;
        }
    }
    (0..n_loc)
        .map(|r| loc_other[r] && !loc_pprof[r] && p.locations.mapping_id[r] == NA_INT)
        .collect()
}

/// Functions whose locations are all R frames: in the new `[R]` mapping or in
/// an `[R]` mapping read from a file this writer wrote (the rule the reader
/// undoes).
fn functions_only_in_r(p: &Profile, loc_is_r: &[bool], function_index: &IdIndex) -> Vec<bool> {
    let r_mapping_ids: rustc_hash::FxHashSet<i32> = (0..p.mappings.nrow())
        .filter(|&i| p.str(p.mappings.filename[i]) == R_MAPPING_FILENAME)
        .map(|i| p.mappings.mapping_id[i])
        .collect();
    let mut fn_in_r = vec![false; p.functions.nrow()];
    let mut fn_elsewhere = vec![false; p.functions.nrow()];
    let l = &p.locations;
    for ((&function_id, mapping_id), &is_r) in l.function_id.iter().zip(&l.mapping_id).zip(loc_is_r)
    {
        if let Some(f) = function_index.row(function_id) {
            if is_r || r_mapping_ids.contains(mapping_id) {
                fn_in_r[f] = true;
            } else {
                fn_elsewhere[f] = true;
            }
        }
    }
    fn_in_r
        .iter()
        .zip(&fn_elsewhere)
        .map(|(&r, &elsewhere)| r && !elsewhere)
        .collect()
}

/// A pprof sample before its strings go into the string table.
struct SampleOut<'a> {
    location_ids: Vec<u64>,
    label_rows: &'a [usize],
    values: Vec<f64>,
}

impl SampleOut<'_> {
    fn into_message<'p>(self, p: &'p Profile, strings: &mut StringTable<'p>) -> proto::Sample {
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
fn collect_samples<'a>(
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

fn mappings<'p>(p: &'p Profile, strings: &mut StringTable<'p>) -> Result<Vec<proto::Mapping>> {
    let mp = &p.mappings;
    (0..mp.nrow())
        .map(|row| {
            let flag = |v: &[i32]| v[row] != NA_INT && v[row] != 0;
            Ok(proto::Mapping {
                id: mp.mapping_id[row] as u64,
                memory_start: hex_column(p, "mappings", "memory_start", row, mp.memory_start[row])?,
                memory_limit: hex_column(p, "mappings", "memory_limit", row, mp.memory_limit[row])?,
                file_offset: hex_column(p, "mappings", "file_offset", row, mp.file_offset[row])?,
                filename: strings.add(p.str(mp.filename[row])),
                build_id: strings.add(p.str(mp.build_id[row])),
                has_functions: flag(&mp.has_functions),
                has_filenames: flag(&mp.has_filenames),
                has_line_numbers: flag(&mp.has_line_numbers),
                has_inline_frames: flag(&mp.has_inline_frames),
            })
        })
        .collect()
}

/// The functions; those only R frames use are written without a system name
/// when it equals the name (see the module documentation).
fn functions<'p>(
    p: &'p Profile,
    r_only: &[bool],
    strings: &mut StringTable<'p>,
) -> Vec<proto::Function> {
    let f = &p.functions;
    (0..f.nrow())
        .map(|row| {
            let system_name = if r_only[row] && f.system_name[row] == f.name[row] {
                0
            } else {
                strings.add(p.str(f.system_name[row]))
            };
            proto::Function {
                id: f.function_id[row] as u64,
                name: strings.add(p.str(f.name[row])),
                system_name,
                filename: strings.add(p.str(f.filename[row])),
                start_line: if f.start_line[row] == NA_INT {
                    0
                } else {
                    f.start_line[row] as i64
                },
            }
        })
        .collect()
}

/// Profile-level fields, each from the first source that has it; comments of all
/// sources.
fn add_source_fields<'a>(
    p: &'a Profile,
    m: &mut proto::Profile,
    strings: &mut StringTable<'a>,
) -> Result<()> {
    let s = &p.sources;
    let first_str = |col: &[StrId]| col.iter().copied().find(|x| !x.is_na());
    let first_num = |col: &[f64]| col.iter().copied().find(|x| !x.is_nan());

    if let Some(row) =
        (0..s.nrow()).find(|&i| !s.period_type[i].is_na() || !s.period_unit[i].is_na())
    {
        m.period_type = Some(proto::ValueType {
            r#type: strings.add(p.str(s.period_type[row])),
            unit: strings.add(p.str(s.period_unit[row])),
        });
    }
    m.period = first_num(&s.period).map_or(0, to_i64);
    m.duration_nanos = first_num(&s.duration_nanos).map_or(0, to_i64);
    m.time_nanos = match first_str(&s.time_nanos) {
        Some(t) => {
            let text = p.str(t);
            text.trim().parse::<i64>().map_err(|_| {
                ProfileError::invalid(
                    "sources",
                    "time_nanos",
                    s.time_nanos.iter().position(|&x| x == t).map(|r| r + 1),
                    format!("must be an integer (nanoseconds since the epoch), found \"{text}\""),
                )
            })?
        }
        None => first_num(&s.source_timestamp).map_or(0, |ts| to_i64(ts * 1e9)),
    };
    let optional = |strings: &mut StringTable<'a>, col: &'a [StrId]| {
        first_str(col).map_or(0, |x| strings.add(p.str(x)))
    };
    m.drop_frames = optional(strings, &s.drop_frames);
    m.keep_frames = optional(strings, &s.keep_frames);
    m.default_sample_type = optional(strings, &s.default_sample_type);
    m.doc_url = optional(strings, &s.doc_url);
    m.comment = p
        .source_comments
        .comment
        .iter()
        .map(|&c| strings.add(p.str(c)))
        .collect();
    Ok(())
}
