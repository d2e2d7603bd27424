//! Shared pieces of the property tests: case counts, the real sample files, and
//! random damage to bytes.
//!
//! The number of cases of every property is `PROFILE_PROPTEST_CASES` when it is
//! set (CI sets 100 000: `dev/test.sh` with `CI=true`), else a count small
//! enough for quick local runs. proptest's own `PROPTEST_CASES`, if set, still
//! overrides every count (proptest applies it after the configuration).

use crate::input::{self, Limits};
use proptest::prelude::*;
use std::path::PathBuf;

/// The case count asked for in the environment, if any.
fn cases_from_env() -> Option<u32> {
    std::env::var("PROFILE_PROPTEST_CASES").ok().and_then(|v| v.parse().ok())
}

/// Cases per property: `PROFILE_PROPTEST_CASES` if set, else `local`.
pub fn cases(local: u32) -> u32 {
    cases_from_env().unwrap_or(local)
}

/// Configuration of a property with `local` cases by default.
pub fn config(local: u32) -> ProptestConfig {
    ProptestConfig { cases: cases(local), ..ProptestConfig::default() }
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
    ProptestConfig { cases, ..ProptestConfig::default() }
}

fn samples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../inst/samples")
}

fn read_all(dir: &str, decompress: bool) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(samples_dir().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).unwrap();
            if decompress {
                input::decompress(&bytes, &Limits::default()).unwrap().into_owned()
            } else {
                bytes
            }
        })
        .collect()
}

/// The Rprof files R recorded (inst/samples/rprof).
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
    (0..files.len(), 0..files.len(), prop::collection::vec(edit(), 1..8))
        .prop_map(move |(f, d, edits)| damaged(files[f].clone(), &edits, &files[d]))
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
