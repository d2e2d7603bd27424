//! Shared pieces of the property tests: case counts, the real sample files,
//! random damage to bytes, and random valid profiles (`random_profile()`, built
//! row by row with `row!`).
//!
//! The number of cases of every property is `PROFILE_PROPTEST_CASES` when it is
//! set (CI sets 50 000: `dev/test.sh` with `CI=true`), else a count small
//! enough for quick local runs. proptest's own `PROPTEST_CASES`, if set, still
//! overrides every count (proptest applies it after the configuration).

use crate::error::Result;
use crate::io::input;
use crate::model::{ColMut, Profile, StrId, NA_INT};
use crate::resources::limits::Limits;
use proptest::prelude::*;
use std::path::PathBuf;

/// The case count asked for in the environment, if any.
fn cases_from_env() -> Option<u32> {
    std::env::var("PROFILE_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
}

/// Cases per property: `PROFILE_PROPTEST_CASES` if set, else `local`.
pub fn cases(local: u32) -> u32 {
    cases_from_env().unwrap_or(local)
}

/// Configuration of a property with `local` cases by default.
pub fn config(local: u32) -> ProptestConfig {
    ProptestConfig {
        cases: cases(local),
        ..ProptestConfig::default()
    }
}

/// Configuration of a costly property, whose every case reads an input several
/// times over on several threads: a `share`th of the cases the others run when
/// `PROFILE_PROPTEST_CASES` is set (all of them would take minutes for each such
/// property), and `local` cases otherwise.
pub fn config_costly(local: u32, share: u32) -> ProptestConfig {
    let cases = match cases_from_env() {
        Some(all) => (all / share.max(1)).max(local),
        None => local,
    };
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

fn samples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../inst/samples")
}

fn read_all(dir: &str, decompress: bool) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(samples_dir().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        // cut-lines.out.gz: 1.8 MB of lines of 10 000 bytes, too large for the
        // property tests that read damaged copies of these files thousands of
        // times; the tests of R's cut lines read it (rprof/tests.rs).
        .filter(|p| dir != "rprof" || p.extension().is_none_or(|e| e != "gz"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).unwrap();
            if decompress {
                input::decompress(&bytes, &Limits::default())
                    .unwrap()
                    .into_owned()
            } else {
                bytes
            }
        })
        .collect()
}

/// The real OTLP files of the project's shared fixtures (`../shared/otlp`
/// from a clone, `../../shared/otlp` from a worktree, or
/// `PROFILE_OTLP_FILES`), None where they are absent.
pub fn shared_otlp_dir() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("PROFILE_OTLP_FILES") {
        return Some(PathBuf::from(dir)).filter(|d| d.is_dir());
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..");
    ["../shared/otlp", "../../shared/otlp"]
        .iter()
        .map(|rel| root.join(rel))
        .find(|d| d.is_dir())
}

/// The bytes of a file of the shared OTLP fixtures, None where absent.
pub fn shared_otlp(file: &str) -> Option<Vec<u8>> {
    std::fs::read(shared_otlp_dir()?.join(file)).ok()
}

/// The Rprof files R recorded (inst/samples/rprof), but the gzip-compressed one.
pub fn rprof_files() -> &'static [Vec<u8>] {
    static FILES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| read_all("rprof", false))
}

/// The pprof files (Go's and profile 1.0's), as plain protobuf messages.
pub fn pprof_messages() -> &'static [Vec<u8>] {
    static FILES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let mut all = read_all("pprof", true);
        all.extend(read_all("proto", true));
        all
    })
}

/// The same pprof files as they are on disk (gzip-compressed).
pub fn pprof_gz_files() -> &'static [Vec<u8>] {
    static FILES: std::sync::OnceLock<Vec<Vec<u8>>> = std::sync::OnceLock::new();
    FILES.get_or_init(|| {
        let mut all = read_all("pprof", false);
        all.extend(read_all("proto", false));
        all
    })
}

/// One change to a byte string. Positions and lengths are taken modulo the
/// current length, so any edit applies to any input.
#[derive(Debug, Clone)]
pub enum Edit {
    FlipBit(prop::sample::Index, u8),
    SetByte(prop::sample::Index, u8),
    Insert(prop::sample::Index, u8),
    Delete(prop::sample::Index, u16),
    Truncate(prop::sample::Index),
    /// Copies a piece of the input (from the first index) to the second.
    Duplicate(prop::sample::Index, u16, prop::sample::Index),
    /// Inserts a piece of another real file (from the first index) at the second.
    Splice(prop::sample::Index, u16, prop::sample::Index),
    /// Inserts a varint with a large value, as a length or id (protobuf).
    BigVarint(prop::sample::Index, u64),
}

pub fn edit() -> impl Strategy<Value = Edit> {
    use prop::sample::Index;
    prop_oneof![
        3 => (any::<Index>(), 0u8..8).prop_map(|(i, b)| Edit::FlipBit(i, b)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Edit::SetByte(i, b)),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Edit::Insert(i, b)),
        2 => (any::<Index>(), 1u16..64).prop_map(|(i, n)| Edit::Delete(i, n)),
        1 => any::<Index>().prop_map(Edit::Truncate),
        1 => (any::<Index>(), 1u16..512, any::<Index>()).prop_map(|(a, n, b)| Edit::Duplicate(a, n, b)),
        1 => (any::<Index>(), 1u16..512, any::<Index>()).prop_map(|(a, n, b)| Edit::Splice(a, n, b)),
        1 => (any::<Index>(), prop_oneof![Just(u64::MAX), Just(1 << 62), Just(1 << 31), any::<u64>()])
            .prop_map(|(i, v)| Edit::BigVarint(i, v)),
    ]
}

fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

/// `bytes` with `edits` applied in order; `donor` gives the pieces of `Splice`.
pub fn damaged(mut bytes: Vec<u8>, edits: &[Edit], donor: &[u8]) -> Vec<u8> {
    let at = |i: &prop::sample::Index, len: usize| if len == 0 { 0 } else { i.index(len) };
    for e in edits {
        let n = bytes.len();
        match e {
            Edit::FlipBit(i, b) if n > 0 => bytes[at(i, n)] ^= 1 << b,
            Edit::SetByte(i, b) if n > 0 => bytes[at(i, n)] = *b,
            Edit::Insert(i, b) => bytes.insert(at(i, n + 1), *b),
            Edit::Delete(i, len) if n > 0 => {
                let start = at(i, n);
                let end = (start + *len as usize).min(n);
                bytes.drain(start..end);
            }
            Edit::Truncate(i) => bytes.truncate(at(i, n + 1)),
            Edit::Duplicate(from, len, to) if n > 0 => {
                let start = at(from, n);
                let piece = bytes[start..(start + *len as usize).min(n)].to_vec();
                let to = at(to, n + 1);
                bytes.splice(to..to, piece);
            }
            Edit::Splice(from, len, to) if !donor.is_empty() => {
                let start = at(from, donor.len());
                let piece = &donor[start..(start + *len as usize).min(donor.len())];
                let to = at(to, n + 1);
                bytes.splice(to..to, piece.iter().copied());
            }
            Edit::BigVarint(i, v) => {
                let to = at(i, n + 1);
                bytes.splice(to..to, varint(*v));
            }
            _ => {}
        }
    }
    bytes
}

/// A real file of `files` with one to eight edits, and another file as donor.
pub fn damaged_file(files: &'static [Vec<u8>]) -> impl Strategy<Value = Vec<u8>> {
    (
        0..files.len(),
        0..files.len(),
        prop::collection::vec(edit(), 1..8),
    )
        .prop_map(move |(f, d, edits)| damaged(files[f].clone(), &edits, &files[d]))
}

// ---- random valid profiles ---------------------------------------------------------

/// Appends a row to a table whose columns are filled generically; `values` gives
/// some columns by name, every other column gets NA.
pub(crate) fn push_row(
    cols: Vec<(&'static str, ColMut<'_>)>,
    strings: &mut crate::StringPool,
    values: &[(&str, Val)],
) {
    for (name, col) in cols {
        let v = values.iter().find(|(n, _)| *n == name).map(|(_, v)| v);
        match (col, v) {
            (ColMut::Int(d), Some(Val::I(x))) | (ColMut::Lgl(d), Some(Val::I(x))) => d.push(*x),
            (ColMut::Dbl(d), Some(Val::D(x))) => d.push(*x),
            (ColMut::Chr(d), Some(Val::S(s))) => d.push(strings.intern(s)),
            (ColMut::Int(d), None) | (ColMut::Lgl(d), None) => d.push(NA_INT),
            (ColMut::Dbl(d), None) => d.push(f64::NAN),
            (ColMut::Chr(d), None) => d.push(StrId::NA),
            (_, Some(v)) => panic!("wrong value {v:?} for column {name}"),
        }
    }
}

/// A cell value for [`push_row`].
#[derive(Debug, Clone)]
pub(crate) enum Val {
    I(i32),
    D(f64),
    S(String),
}
use Val::{D, I};

/// A string cell.
pub(crate) fn s(x: &str) -> Val {
    Val::S(x.to_string())
}

/// Appends a row to a table of a profile: `row!(&mut p, samples, "sample_id" => I(1), ...)`.
macro_rules! row {
    ($p:expr, $table:ident, $($col:literal => $v:expr),* $(,)?) => {{
        let p: &mut Profile = $p;
        $crate::testing::push_row(p.$table.columns_mut(), &mut p.strings, &[$(($col, $v)),*]);
    }};
}

pub(crate) use row;

/// A small deterministic generator (xorshift), so a random valid profile is one seed.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

/// A random valid profile: every table and extension column used, ids not dense
/// (an offset and a stride, sometimes far apart), inlined chains in random order,
/// values drawn from small sets so that different inputs share functions.
///
/// Longer than the house's 80 lines: it fills every table of a profile for the
/// property tests, one short block per table.
pub(crate) fn random_profile(seed: u64) -> Profile {
    let mut rng = Rng(seed | 1);
    let mut p = Profile::new();
    let stride = 1 + rng.below(3) as i32;
    let base = if rng.chance(20) {
        5_000_000
    } else {
        rng.below(50) as i32
    };
    let id = |k: usize| base + (k as i32 + 1) * stride;
    if rng.chance(50) {
        let tool = rng.pick(&["R", "go"]);
        row!(&mut p, meta, "key" => s("tool"), "value" => s(tool));
    }

    let n_sources = rng.below(3);
    for k in 0..n_sources {
        let kind = rng.pick(&["rprof", "pprof", "manual"]);
        let uri = rng.pick(&["a.out", "b.pb.gz", "x"]);
        let mut values = vec![
            ("source_id", I(id(k))),
            ("source_type", s(kind)),
            ("source_uri", s(uri)),
        ];
        if rng.chance(50) {
            values.push(("source_timestamp", D(1e9 + rng.below(100) as f64)));
        }
        if rng.chance(50) {
            values.push(("period", D(rng.below(10_000) as f64)));
            values.push(("time_nanos", s("123456789012345678")));
        }
        push_row(p.sources.columns_mut(), &mut p.strings, &values);
        for (t, u) in [("samples", "count"), ("cpu", "nanoseconds")] {
            if rng.chance(60) {
                row!(&mut p, sample_types, "source_id" => I(id(k)), "type" => s(t), "unit" => s(u));
            }
        }
        if rng.chance(30) {
            let comment = rng.pick(&["c1", "c2"]);
            row!(&mut p, source_comments, "source_id" => I(id(k)), "comment" => s(comment));
        }
        if rng.chance(30) {
            let text = rng.pick(&["f <- function() {", "}"]);
            row!(&mut p, source_lines, "source_id" => I(id(k)), "filename" => s("a.R"),
                "line" => I(rng.below(3) as i32 + 1), "text" => s(text));
        }
    }
    let n_mappings = if n_sources > 0 { rng.below(3) } else { 0 };
    for k in 0..n_mappings {
        let file = rng.pick(&["/bin/a", "/lib/b.so"]);
        let start = rng.pick(&["0x1000", "0x2000"]);
        let source = id(rng.below(n_sources));
        let flag = rng.below(2) as i32;
        row!(&mut p, mappings, "mapping_id" => I(id(k)), "source_id" => I(source), "filename" => s(file),
            "memory_start" => s(start), "has_functions" => I(flag));
    }
    let n_functions = rng.below(5);
    for k in 0..n_functions {
        let name = rng.pick(&["f", "g", "main", "<GC>"]);
        let system_name = if rng.chance(80) { name } else { "sys" };
        let file = rng.pick(&["", "a.R", "main.go"]);
        let start = rng.below(2) as i32 * 10;
        row!(&mut p, functions, "function_id" => I(id(k)), "name" => s(name), "system_name" => s(system_name),
            "filename" => s(file), "start_line" => I(start));
    }
    // Locations in a random topological order: a frame may only be inlined into a
    // frame of higher rank, so chains never form a cycle.
    let n_locations = rng.below(7);
    let rank: Vec<usize> = (0..n_locations).map(|_| rng.below(1000)).collect();
    for k in 0..n_locations {
        let mut values = vec![("location_id", I(id(k))), ("line", I(rng.below(3) as i32))];
        if n_functions > 0 && rng.chance(90) {
            values.push(("function_id", I(id(rng.below(n_functions)))));
        }
        if rng.chance(40) {
            values.push(("address", s(rng.pick(&["0x1", "0x2"]))));
        }
        if n_mappings > 0 && rng.chance(30) {
            values.push(("mapping_id", I(id(rng.below(n_mappings)))));
        }
        if rng.chance(30) {
            values.push(("is_folded", I(rng.below(2) as i32)));
            values.push(("column", I(rng.below(2) as i32)));
        }
        let targets: Vec<usize> = (0..n_locations).filter(|&t| rank[t] > rank[k]).collect();
        if !targets.is_empty() && rng.chance(50) {
            values.push(("inlined_into", I(id(targets[rng.below(targets.len())]))));
        }
        push_row(p.locations.columns_mut(), &mut p.strings, &values);
    }
    let n_samples = if n_sources > 0 { rng.below(8) } else { 0 };
    for k in 0..n_samples {
        let sample = id(k);
        row!(&mut p, samples, "sample_id" => I(sample), "source_id" => I(id(rng.below(n_sources))));
        for (t, u) in [("samples", "count"), ("cpu", "nanoseconds")] {
            if rng.chance(70) {
                let v = rng.below(5) as f64;
                row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s(t), "unit" => s(u), "value" => D(v));
            }
        }
        if n_locations > 0 {
            for depth in 0..rng.below(5) {
                let loc = id(rng.below(n_locations));
                row!(&mut p, sample_locations, "sample_id" => I(sample), "depth" => I(depth as i32 + 1),
                    "location_id" => I(loc));
            }
        }
        if rng.chance(30) {
            let key = rng.pick(&["worker", "bytes"]);
            row!(&mut p, sample_labels, "sample_id" => I(sample), "key" => s(key), "value" => s("v"));
        }
    }
    p
}

/// Cut positions for [`pieces`]: a few, anywhere.
pub fn cuts() -> impl Strategy<Value = Vec<prop::sample::Index>> {
    prop::collection::vec(any::<prop::sample::Index>(), 0..16)
}

/// `data` cut at `cuts` (taken modulo the length, in any order) into pieces
/// that join to `data`, some of them empty.
pub fn pieces<'a>(data: &'a [u8], cuts: &[prop::sample::Index]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = cuts.iter().map(|i| i.index(data.len() + 1)).collect();
    at.extend([0, data.len()]);
    at.sort_unstable();
    at.windows(2).map(|w| &data[w[0]..w[1]]).collect()
}

/// `data` gzip-compressed.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// An Rprof file read whole (every column written, as the readers without
/// compact columns do): [`crate::formats::rprof::parse`], then `expand()`.
pub fn read_rprof(bytes: &[u8], source_uri: Option<&str>) -> Result<crate::formats::rprof::Parsed> {
    read_rprof_with(bytes, source_uri, &Limits::default(), None)
}

/// A pprof message read whole under the default limits: the test support's
/// door to the pprof reader for the tests of other formats, which never name
/// a sibling format themselves.
pub fn read_pprof(bytes: &[u8], source_uri: Option<&str>) -> Result<crate::model::Profile> {
    crate::formats::pprof::read_bytes(bytes, source_uri, &Limits::default())
}

/// [`read_rprof`] under `limits`, in `chunks` chunks (`None`: as many as the
/// input's size calls for).
pub fn read_rprof_with(
    bytes: &[u8],
    source_uri: Option<&str>,
    limits: &Limits,
    chunks: Option<usize>,
) -> Result<crate::formats::rprof::Parsed> {
    let budget = crate::resources::budget::Budget::new(*limits);
    let options = crate::formats::rprof::ParseOptions {
        source_uri,
        budget: &budget,
        chunks,
    };
    crate::formats::rprof::parse(std::borrow::Cow::Borrowed(bytes), &options)?.expand(&budget)
}
