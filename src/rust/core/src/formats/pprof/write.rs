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
//! Frames of other origins (Rprof, v1, manual, folded stacks) that have no
//! mapping go into a mapping named `[R]` with an address per location: `go tool pprof`
//! then does not look for a binary to symbolize. Their functions are written
//! without a system name when it equals the name, because pprof runs names
//! through a C++ demangler whenever the two are equal, and that turns `<GC>`
//! and `<Anonymous>` into `<unknown>`; the reader puts the system name back for
//! functions of the `[R]` mapping.
//!
//! Frames of native profilers (pprof and OTLP files) are written with their own
//! mappings. OTLP frames without a mapping or an address (a Java frame of
//! async-profiler: a function and a line) go into a mapping named after the
//! program the OTLP data name (`write/program.rs`), with an address per
//! location as in `[R]`, so that `go tool pprof` shows that name as the
//! profile's `File:`. The mappings of OTLP sources that do not say what they
//! hold (no `pprof.mapping.has_*` attribute: the eBPF profiler's) are marked
//! as having functions: the profiler symbolized what it could where it ran,
//! and `go tool pprof` would otherwise look for each binary on this machine
//! and report every one it cannot open (`-symbolize=force` still does).

use super::proto;
use crate::error::{ProfileError, Result};
use crate::model::address::address_cell;
use crate::model::id_index::IdIndex;
use crate::model::identity::{first_equal_samples, LabelRows};
use crate::model::validate;
use crate::model::{Profile, StrId, NA_INT};
use rustc_hash::FxHashMap;

mod locations;
mod program;
mod samples;
use locations::{functions_only_in_r, made_mappings, LocationWriter};
use samples::{collect_samples, ValueColumns, ValueMatrix};

/// Most sample values (samples x sample types) a file may hold: every sample has a
/// value of every type in pprof, which a profile uniting many sources with
/// different types could make huge.
pub const MAX_VALUES: u64 = 1 << 28;

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

/// What the writer needs to know about each source.
struct SourceInfo {
    is_pprof: Vec<bool>,
    /// OTLP sources, whose frames are written as they are, without the
    /// `[R]` mapping (in a mapping named after their program when they have
    /// none, see `write/program.rs`).
    is_otlp: Vec<bool>,
    /// The sampling interval in nanoseconds of Rprof sources that have one.
    rprof_interval: Vec<Option<f64>>,
}

impl SourceInfo {
    #[allow(
        clippy::indexing_slicing,
        reason = "rows below nrow() of the validated (rectangular) profile's table"
    )]
    fn new(p: &Profile) -> Self {
        let s = &p.sources;
        let of_type = |types: &[&str]| -> Vec<bool> {
            s.source_type
                .iter()
                .map(|&t| types.contains(&p.str(t)))
                .collect()
        };
        let is_pprof = of_type(&["pprof"]);
        let is_otlp = of_type(&["otlp"]);
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
            is_otlp,
            rprof_interval,
        }
    }
}

/// The error for a state the writer never reaches with a valid profile (it
/// validates the profile first).
fn internal(message: String) -> ProfileError {
    ProfileError::internal(format!("writing pprof: {message}"))
}

/// A value as a pprof integer: rounded, NA as 0, out-of-range values saturated.
fn to_i64(x: f64) -> i64 {
    if x.is_nan() {
        0
    } else {
        x.round() as i64
    }
}

/// The profile as a pprof message. The profile is validated first.
pub fn message_from_profile(p: &Profile, options: &WriteOptions) -> Result<proto::Profile> {
    validate::validate(p)?;
    let labelled;
    let p = match with_process_labels(p)? {
        Some(q) => {
            labelled = q;
            &labelled
        }
        None => p,
    };
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
    let stacks = p.sample_frames(&index.samples, |lid| index.locations.get(lid))?;
    let made = made_mappings(p, &stacks, &source_of_sample, &sources);
    let function_r_only = functions_only_in_r(p, &made, &index.functions)?;
    let mut locations = LocationWriter::new(p, &index.locations, made)?;
    let labels = LabelRows::new(p, &index.samples)?;
    // pprof samples are the profiler's own records (Go writes the same stack
    // and labels twice at times): only raw samples of other formats are summed.
    let is_pprof = |pos: usize| {
        source_of_sample
            .get(pos)
            .and_then(|&source| sources.is_pprof.get(source))
            .is_some_and(|&pprof| pprof)
    };
    let summed = |pos: usize| (options.aggregate && !is_pprof(pos)).then_some(0);
    let first_equal = first_equal_samples(p, |pos| stacks.of(pos), &labels, summed)?;
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
    m.mapping = mappings(p, &index.sources, &sources, &mut strings)?;
    m.mapping
        .extend(locations.made_mappings(&sources.is_otlp, &mut strings));
    m.location = std::mem::take(&mut locations.out);
    m.function = functions(p, &function_r_only, &mut strings);
    add_source_fields(p, &mut m, &mut strings)?;
    m.string_table = strings.into_bytes();
    Ok(m)
}

/// The label keys that say which R process a sample was taken in (sources of
/// a recording of parallel code: `sources.process_id`, `host_name`,
/// `process_role`), as `go tool pprof -tags` shows them.
pub const PROCESS_LABELS: [&str; 3] = ["pid", "host", "process"];

/// `p` with the process of each sample of a source that has one as labels
/// (`pid` a number, `host` and `process`, the role, strings), so that pprof
/// keeps samples of different processes apart and shows which is which; None
/// when no source has a process. (A copy: the writer reads labels from the
/// table, and a recording's tables are small beside what pprof writes.)
fn with_process_labels(p: &Profile) -> Result<Option<Profile>> {
    let s = &p.sources;
    if !s.process_id.iter().any(|&pid| pid != NA_INT) {
        return Ok(None);
    }
    let mut q = p.clone();
    let rows = IdIndex::try_first_rows(&s.source_id)?;
    let [pid_key, host_key, role_key] = PROCESS_LABELS.map(|k| q.strings.intern(k));
    let with_kind = !q.sample_labels.kind.is_empty()
        && q.sample_labels.kind.len() == q.sample_labels.sample_id.len();
    for (&sample_id, &source_id) in p.samples.sample_id.iter().zip(&p.samples.source_id) {
        let Some(src) = rows.row(source_id) else {
            continue;
        };
        let pid = s.process_id.get(src).copied().unwrap_or(NA_INT);
        if pid == NA_INT {
            continue;
        }
        let host = s.host_name.get(src).copied().unwrap_or(StrId::NA);
        let role = s.process_role.get(src).copied().unwrap_or(StrId::NA);
        let t = &mut q.sample_labels;
        let mut push = |key: StrId, value: StrId, num: f64| {
            t.sample_id.push(sample_id);
            t.key.push(key);
            t.value.push(value);
            t.num.push(num);
            t.num_unit.push(StrId::NA);
            if with_kind {
                t.kind.push(StrId::NA);
            }
        };
        push(pid_key, StrId::NA, f64::from(pid));
        for (key, value) in [(host_key, host), (role_key, role)] {
            if !value.is_na() {
                push(key, value, f64::NAN);
            }
        }
    }
    q.absent_tables.retain(|&t| t != "sample_labels");
    Ok(Some(q))
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

#[allow(
    clippy::indexing_slicing,
    reason = "rows below nrow() of the validated (rectangular) profile's table"
)]
fn mappings<'p>(
    p: &'p Profile,
    source_index: &IdIndex,
    sources: &SourceInfo,
    strings: &mut StringTable<'p>,
) -> Result<Vec<proto::Mapping>> {
    let mp = &p.mappings;
    (0..mp.nrow())
        .map(|row| {
            let flag = |v: &[i32]| v[row] != NA_INT && v[row] != 0;
            let says_nothing = !(flag(&mp.has_functions)
                || flag(&mp.has_filenames)
                || flag(&mp.has_line_numbers)
                || flag(&mp.has_inline_frames));
            let of_otlp = source_index
                .row(mp.source_id[row])
                .and_then(|s| sources.is_otlp.get(s))
                .is_some_and(|&otlp| otlp);
            Ok(proto::Mapping {
                id: mp.mapping_id[row] as u64,
                memory_start: address_cell(
                    p,
                    "mappings",
                    "memory_start",
                    row,
                    mp.memory_start[row],
                )?,
                memory_limit: address_cell(
                    p,
                    "mappings",
                    "memory_limit",
                    row,
                    mp.memory_limit[row],
                )?,
                file_offset: address_cell(p, "mappings", "file_offset", row, mp.file_offset[row])?,
                filename: strings.add(p.str(mp.filename[row])),
                build_id: strings.add(p.str(mp.build_id[row])),
                has_functions: flag(&mp.has_functions) || (of_otlp && says_nothing),
                has_filenames: flag(&mp.has_filenames),
                has_line_numbers: flag(&mp.has_line_numbers),
                has_inline_frames: flag(&mp.has_inline_frames),
            })
        })
        .collect()
}

/// The functions; those only R frames use are written without a system name
/// when it equals the name (see the module documentation).
#[allow(
    clippy::indexing_slicing,
    reason = "rows below nrow() of the validated (rectangular) profile's table, and r_only has one \
              flag per function row"
)]
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
#[allow(
    clippy::indexing_slicing,
    reason = "rows below nrow() of the validated (rectangular) profile's table"
)]
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
