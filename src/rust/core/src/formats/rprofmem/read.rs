//! Reading an `Rprofmem()` file (see the module's documentation).

use super::{ALLOC_OBJECTS, ALLOC_SPACE, NEW_PAGE_LABEL, SOURCE_TYPE};
use crate::error::{ProfileError, Result};
use crate::io::input::{inflate_file, Content};
use crate::io::text::utf8_escaped;
use crate::model::{next_id, Profile, StrId};
use crate::resources::budget::Budget;
use rustc_hash::FxHashMap;
use std::path::Path;

/// The start of a new page's line.
const NEW_PAGE: &[u8] = b"new page";

/// Memory a record needs at least in the model, beyond its text: a `samples`
/// row (two ids, a time) and two `sample_values` rows (an id, two strings, a
/// value each).
const RECORD_BYTES: u64 = 4 + 4 + 8 + 2 * (4 + 4 + 4 + 8);

/// Memory a frame needs in the model: a `sample_locations` row.
const FRAME_BYTES: u64 = 4 + 4 + 4;

/// Recognises `Rprofmem()` data from their first bytes (a size or `new page`;
/// empty data are a file without allocations) and counts their lines and
/// quotes, which bound the records and frames a read makes (see [`Content`]).
#[derive(Debug, Default)]
pub struct RprofmemContent {
    bytes: u64,
    lines: u64,
    quotes: u64,
    head: Vec<u8>,
}

impl RprofmemContent {
    pub fn new() -> Self {
        Self::default()
    }

    /// An error unless the first bytes seen so far can start an Rprofmem file.
    fn sniff(&mut self, piece: &[u8]) -> Result<()> {
        if self.head.len() >= NEW_PAGE.len() {
            return Ok(());
        }
        let want = NEW_PAGE.len() - self.head.len();
        self.head
            .extend_from_slice(piece.get(..want.min(piece.len())).unwrap_or_default());
        let head = self.head.as_slice();
        let fits = match head.first() {
            None => true,
            Some(b) if b.is_ascii_digit() => true,
            Some(_) => NEW_PAGE.starts_with(head),
        };
        if fits {
            Ok(())
        } else {
            Err(ProfileError::format(
                None,
                "the data do not start like an Rprofmem file (a size and ` :`, or `new page:`)",
            ))
        }
    }
}

impl Content for RprofmemContent {
    fn take(&mut self, piece: &[u8]) -> Result<Option<u64>> {
        self.sniff(piece)?;
        self.bytes += piece.len() as u64;
        self.lines += memchr::memchr_iter(b'\n', piece).count() as u64;
        self.quotes += memchr::memchr_iter(b'"', piece).count() as u64;
        Ok(None)
    }

    fn least_memory(&self) -> u64 {
        self.bytes
            .saturating_add(self.lines.saturating_mul(RECORD_BYTES))
            .saturating_add((self.quotes / 2).saturating_mul(FRAME_BYTES))
    }

    fn counted(&self) -> String {
        format!(
            "{} bytes of text in {} lines with {} frames",
            self.bytes,
            self.lines,
            self.quotes / 2
        )
    }

    fn whole(&mut self, data: &[u8]) -> Result<()> {
        self.sniff(data)
    }
}

/// Reads the `Rprofmem()` file at `path` (plain or gzip) under `budget`.
pub fn read_file(path: &Path, source_uri: Option<&str>, budget: &Budget) -> Result<Profile> {
    let inflated = inflate_file(path, budget, &mut RprofmemContent::new())?;
    read(&inflated.data, source_uri, budget)
}

/// What a line starts with: the size of an allocation, or a new page.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Record {
    Bytes(u64),
    NewPage,
}

/// The record `s` starts with (`N :`, `N:`, `new page:`, `new page :`) and the
/// rest after its colon; `None` if it starts with none.
fn record_prefix(s: &[u8], line_no: usize) -> Result<Option<(Record, &[u8])>> {
    let (record, rest) = if let Some(rest) = s.strip_prefix(NEW_PAGE) {
        (Record::NewPage, rest)
    } else {
        let digits = s.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 {
            return Ok(None);
        }
        let (number, rest) = s.split_at(digits);
        let rest_is_prefix = matches!(rest.first(), Some(b':'))
            || (rest.first() == Some(&b' ') && rest.get(1) == Some(&b':'));
        if !rest_is_prefix {
            return Ok(None);
        }
        let bytes = std::str::from_utf8(number)
            .ok()
            .and_then(|n| n.parse::<u64>().ok())
            .ok_or_else(|| {
                ProfileError::at_line(
                    line_no,
                    "the size of the allocation is larger than 2^64 - 1 bytes",
                )
            })?;
        (Record::Bytes(bytes), rest)
    };
    let rest = rest.strip_prefix(b" ").unwrap_or(rest);
    Ok(rest.strip_prefix(b":").map(|rest| (record, rest)))
}

/// The next frame of `s` (`"name" `, after any spaces): its name and the rest;
/// `None` at the end of the line. A name ends at a quote followed by a space
/// or by the end of the line (names may hold quotes: `"x[["a"]]" `).
fn next_frame(s: &[u8], line_no: usize) -> Result<Option<(&[u8], &[u8])>> {
    let s = s.trim_ascii_start();
    let Some(body) = s.strip_prefix(b"\"") else {
        if s.is_empty() {
            return Ok(None);
        }
        return Err(ProfileError::at_line(
            line_no,
            "expected a function name in double quotes",
        ));
    };
    let mut from = 0;
    while let Some(k) = body.get(from..).and_then(|t| memchr::memchr(b'"', t)) {
        let q = from + k;
        match body.get(q + 1) {
            None | Some(b' ') => {
                let name = body.get(..q).unwrap_or_default();
                return Ok(Some((name, body.get(q + 1..).unwrap_or_default())));
            }
            Some(_) => from = q + 1,
        }
    }
    Err(ProfileError::at_line(
        line_no,
        "a function name has no closing quote (the line was cut?)",
    ))
}

/// The reading of one file into a profile.
struct Reader<'a, 'd> {
    p: Profile,
    budget: &'a Budget,
    function_of: FxHashMap<&'d [u8], i32>,
    frames: Vec<i32>,
    types: [(StrId, StrId); 2],
    label: (StrId, StrId),
}

impl<'a, 'd> Reader<'a, 'd> {
    fn new(budget: &'a Budget, source_uri: Option<&str>) -> Self {
        let mut p = Profile::new();
        let objects = (
            p.strings.intern(ALLOC_OBJECTS.0),
            p.strings.intern(ALLOC_OBJECTS.1),
        );
        let space = (
            p.strings.intern(ALLOC_SPACE.0),
            p.strings.intern(ALLOC_SPACE.1),
        );
        let label = (
            p.strings.intern(NEW_PAGE_LABEL.0),
            p.strings.intern(NEW_PAGE_LABEL.1),
        );
        let source_type = p.strings.intern(SOURCE_TYPE);
        let uri = p.strings.intern_opt(source_uri);
        let s = &mut p.sources;
        s.source_id.push(1);
        s.source_type.push(source_type);
        s.source_uri.push(uri);
        s.source_timestamp.push(f64::NAN);
        s.default_sample_type.push(space.0);
        for (t, u) in [objects, space] {
            p.sample_types.source_id.push(1);
            p.sample_types.value_type.push(t);
            p.sample_types.unit.push(u);
        }
        Reader {
            p,
            budget,
            function_of: FxHashMap::default(),
            frames: Vec::new(),
            types: [objects, space],
            label,
        }
    }

    /// Room for the records and frames that `data` can hold at most (its lines,
    /// half its quotes), charged first.
    fn reserve(&mut self, data: &[u8]) -> Result<()> {
        let lines = memchr::memchr_iter(b'\n', data).count() + 1;
        let frames = memchr::memchr_iter(b'"', data).count() / 2;
        let b = self.budget;
        let what = || "the allocations".to_string();
        let p = &mut self.p;
        b.room(&mut p.samples.sample_id, lines, what)?;
        b.room(&mut p.samples.source_id, lines, what)?;
        b.room(&mut p.sample_values.sample_id, 2 * lines, what)?;
        b.room(&mut p.sample_values.value_type, 2 * lines, what)?;
        b.room(&mut p.sample_values.unit, 2 * lines, what)?;
        b.room(&mut p.sample_values.value, 2 * lines, what)?;
        let what = || "the frames of the allocations".to_string();
        b.room(&mut p.sample_locations.sample_id, frames, what)?;
        b.room(&mut p.sample_locations.depth, frames, what)?;
        b.room(&mut p.sample_locations.location_id, frames, what)
    }

    /// The records of one line (more than one where R wrote a record without
    /// its line end, as `profmem::readRprofmem()` reads such lines).
    fn line(&mut self, line: &'d [u8], line_no: usize) -> Result<()> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.trim_ascii().is_empty() {
            return Ok(());
        }
        let Some((mut record, mut rest)) = record_prefix(line, line_no)? else {
            return Err(ProfileError::at_line(
                line_no,
                "expected a size and ` :`, or `new page:`, at the start of the line",
            ));
        };
        while let Some((next, after)) = record_prefix(rest, line_no)? {
            self.frames.clear();
            self.add_record(record, line_no)?;
            (record, rest) = (next, after);
        }
        self.frames.clear();
        while let Some((name, after)) = next_frame(rest, line_no)? {
            self.budget
                .limits()
                .check_stack_depth(self.frames.len() + 1, || format!("line {line_no}"))?;
            let id = self.function(name)?;
            self.budget
                .room(&mut self.frames, 1, || "the frames of a line".to_string())?;
            self.frames.push(id);
            rest = after;
        }
        self.add_record(record, line_no)
    }

    /// The function (and location, of the same id) of a frame's name.
    fn function(&mut self, name: &'d [u8]) -> Result<i32> {
        if let Some(&id) = self.function_of.get(name) {
            return Ok(id);
        }
        let p = &mut self.p;
        let id = next_id(p.functions.nrow(), "distinct functions")?;
        let text = p.strings.try_intern(&utf8_escaped(name), self.budget)?;
        self.budget
            .room(&mut self.function_of, 1, || "the functions".to_string())?;
        p.add_named_function(id, text, Some(self.budget))?;
        self.function_of.insert(name, id);
        Ok(id)
    }

    /// A sample for `record` with the frames of `self.frames`.
    fn add_record(&mut self, record: Record, line_no: usize) -> Result<()> {
        let p = &mut self.p;
        let b = self.budget;
        let sample_id = next_id(p.samples.nrow(), "allocations")?;
        let what = || format!("the allocations (line {line_no})");
        b.room(&mut p.samples.sample_id, 1, what)?;
        b.room(&mut p.samples.source_id, 1, what)?;
        p.samples.sample_id.push(sample_id);
        p.samples.source_id.push(1);
        let bytes = match record {
            Record::Bytes(n) => n as f64,
            Record::NewPage => {
                let t = &mut p.sample_labels;
                b.room(&mut t.sample_id, 1, what)?;
                b.room(&mut t.key, 1, what)?;
                b.room(&mut t.value, 1, what)?;
                b.room(&mut t.num, 1, what)?;
                b.room(&mut t.num_unit, 1, what)?;
                t.sample_id.push(sample_id);
                t.key.push(self.label.0);
                t.value.push(self.label.1);
                t.num.push(f64::NAN);
                t.num_unit.push(StrId::NA);
                0.0
            }
        };
        let v = &mut p.sample_values;
        b.room(&mut v.sample_id, 2, what)?;
        b.room(&mut v.value_type, 2, what)?;
        b.room(&mut v.unit, 2, what)?;
        b.room(&mut v.value, 2, what)?;
        for ((t, u), value) in self.types.into_iter().zip([1.0, bytes]) {
            v.sample_id.push(sample_id);
            v.value_type.push(t);
            v.unit.push(u);
            v.value.push(value);
        }
        let sl = &mut p.sample_locations;
        let n = self.frames.len();
        b.room(&mut sl.sample_id, n, what)?;
        b.room(&mut sl.depth, n, what)?;
        b.room(&mut sl.location_id, n, what)?;
        for (d, &loc) in self.frames.iter().enumerate() {
            sl.sample_id.push(sample_id);
            sl.depth.push(d as i32 + 1);
            sl.location_id.push(loc);
        }
        Ok(())
    }
}

/// Reads the text of an `Rprofmem()` file into a v2 profile (see the module's
/// documentation): one sample per record, in the order of the file. Blank
/// lines are passed over; a line that starts with neither a size nor
/// `new page`, a frame that is not in double quotes or not closed, a size over
/// 2^64 - 1, a NUL byte are format errors naming the line; a stack deeper than
/// the limit is a limit error.
pub fn read(data: &[u8], source_uri: Option<&str>, budget: &Budget) -> Result<Profile> {
    RprofmemContent::new().whole(data)?;
    if let Some(pos) = memchr::memchr(0, data) {
        let line_no = memchr::memchr_iter(b'\n', data.get(..pos).unwrap_or_default()).count() + 1;
        return Err(ProfileError::at_line(
            line_no,
            "a NUL byte: the data are not an Rprofmem file",
        ));
    }
    let mut reader = Reader::new(budget, source_uri);
    reader.reserve(data)?;
    for (index, line) in data.split(|&b| b == b'\n').enumerate() {
        reader.line(line, index + 1)?;
    }
    let mut p = reader.p;
    p.pad_extension_columns(&[]);
    Ok(p)
}
