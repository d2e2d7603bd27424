//! Folded (collapsed) stacks, the text format of flame-graph tools: one line per
//! stack, frames root first separated by `;`, a space, then the value:
//!
//! ```text
//! main;f;g 42
//! ```
//!
//! Frame names are escaped so that any name survives a round trip: a backslash is
//! written `\\`, a semicolon `\x3b`, a line feed `\n` and a carriage return `\r`.
//! Tools that do not know the rule show these sequences as they are; reading turns
//! them back, and keeps any other backslash literally (as other tools write them).

use crate::error::{ProfileError, Result};
use crate::io::input::{decompress_content, AnyContent};
use crate::io::text::utf8_escaped;
use crate::model::{next_id, Profile, StrId, NA_INT};
use crate::ops::summary::{CallTree, Stacks};
use crate::resources::budget::Budget;
use crate::resources::limits::Limits;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::io::Write;
use std::path::Path;

/// A frame name as written in a folded line.
pub fn escape_frame(name: &str) -> Cow<'_, str> {
    if !name.contains(['\\', ';', '\n', '\r']) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\x3b"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// The frame name a folded frame stands for (the inverse of [`escape_frame`]).
pub fn unescape_frame(frame: &str) -> Cow<'_, str> {
    if !frame.contains('\\') {
        return Cow::Borrowed(frame);
    }
    let mut out = String::with_capacity(frame.len());
    let mut rest = frame;
    while let Some(pos) = rest.find('\\') {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        let (replacement, used) = if tail.starts_with("\\\\") {
            ("\\", 2)
        } else if tail.starts_with("\\x3b") || tail.starts_with("\\x3B") {
            (";", 4)
        } else if tail.starts_with("\\n") {
            ("\n", 2)
        } else if tail.starts_with("\\r") {
            ("\r", 2)
        } else {
            ("\\", 1)
        };
        out.push_str(replacement);
        rest = &tail[used..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Writes a value as an integer when it is one (the classic format), otherwise in
/// the shortest decimal form that reads back to the same double.
fn write_value(w: &mut dyn Write, v: f64) -> Result<()> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if v.fract() == 0.0 && v.abs() <= EXACT {
        let mut buf = itoa::Buffer::new();
        w.write_all(buf.format(v as i64).as_bytes())?;
    } else {
        let mut buf = ryu::Buffer::new();
        w.write_all(buf.format(v).as_bytes())?;
    }
    Ok(())
}

/// Writes one line per node of `tree` that ends stacks (a nonzero self value), in
/// the tree's order. `labels[k - 1]` is the frame name of key `k`. Samples without
/// frames (the root's self value) have no line.
#[allow(
    clippy::indexing_slicing,
    reason = "i is a node of the tree, whose columns have one value per node"
)]
pub fn write_folded(tree: &CallTree, labels: &[String], w: &mut dyn Write) -> Result<()> {
    let escaped: Vec<Cow<'_, str>> = labels.iter().map(|l| escape_frame(l)).collect();
    let mut path: Vec<&str> = Vec::new();
    for i in 1..tree.len() {
        let depth = tree.depth[i] as usize;
        let key = tree.key[i] as usize;
        let label = key
            .checked_sub(1)
            .and_then(|k| escaped.get(k))
            .ok_or_else(|| {
                ProfileError::invalid("(call tree)", "key", Some(i), "no label for key")
            })?;
        path.truncate(depth.saturating_sub(1));
        path.push(label);
        let v = tree.self_value[i];
        if v != 0.0 {
            for (j, frame) in path.iter().enumerate() {
                if j > 0 {
                    w.write_all(b";")?;
                }
                w.write_all(frame.as_bytes())?;
            }
            w.write_all(b" ")?;
            write_value(w, v)?;
            w.write_all(b"\n")?;
        }
    }
    Ok(())
}

/// What a folded file does not say: the sample type and unit of its values, and
/// where it came from.
#[derive(Debug, Clone)]
pub struct FoldedSource<'a> {
    pub sample_type: &'a str,
    pub unit: &'a str,
    pub source_uri: Option<&'a str>,
}

fn is_number(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty()
        && digits.bytes().any(|b| b.is_ascii_digit())
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().filter(|&b| b == b'.').count() <= 1
}

/// Splits a folded line into its stack and its value.
fn split_line(line: &str, line_no: usize) -> Result<(&str, f64)> {
    let line = line.trim_end();
    // `pos` is the position of an ASCII character: the split is on a boundary.
    let (stack, count) = match line.rfind([' ', '\t']) {
        Some(pos) => (
            line.get(..pos)
                .unwrap_or_default()
                .trim_end_matches([' ', '\t']),
            line.get(pos + 1..).unwrap_or_default(),
        ),
        None => ("", line),
    };
    if !is_number(count) {
        return Err(ProfileError::at_line(
            line_no,
            "expected frames separated by `;`, a space and a number",
        ));
    }
    let value: f64 = count
        .parse()
        .map_err(|_| ProfileError::at_line(line_no, "the count is not a number"))?;
    Ok((stack, value))
}

/// Parses folded stacks into a v2 profile under the default [`Limits`]; see
/// [`read_folded_with_limits`].
pub fn read_folded(bytes: &[u8], source: &FoldedSource<'_>) -> Result<Profile> {
    read_folded_with_limits(bytes, source, &Limits::default())
}

/// Parses folded stacks into a v2 profile: one sample per non-blank line with the
/// line's count as its value, one function per distinct frame name (ids in order of
/// first appearance) and one location per function, with line 0 (unknown). A
/// stack deeper than `limits.max_stack_depth` is refused.
pub fn read_folded_with_limits(
    bytes: &[u8],
    source: &FoldedSource<'_>,
    limits: &Limits,
) -> Result<Profile> {
    let text = utf8_escaped(bytes);
    let mut p = Profile::new();
    let type_id = p.strings.intern(source.sample_type);
    let unit_id = p.strings.intern(source.unit);
    add_source(&mut p, source, type_id, unit_id);

    // Function ids by frame text as written (one hash per frame), and by name (on
    // first sight of a text: two spellings can unescape to the same name).
    let mut function_of_text: FxHashMap<&str, i32> = FxHashMap::default();
    let mut function_of: FxHashMap<StrId, i32> = FxHashMap::default();
    let mut frames: Vec<i32> = Vec::new();
    for (index, raw) in text.split('\n').enumerate() {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.trim().is_empty() {
            continue;
        }
        let (stack, value) = split_line(line, index + 1)?;
        let sample_id = next_id(p.samples.nrow(), "stacks")?;
        frames.clear();
        if !stack.is_empty() {
            for frame in stack.split(';') {
                limits.check_stack_depth(frames.len() + 1, || format!("line {}", index + 1))?;
                if let Some(&id) = function_of_text.get(frame) {
                    frames.push(id);
                    continue;
                }
                let name = p.strings.intern(&unescape_frame(frame));
                let next = next_id(function_of.len(), "distinct frames")?;
                let id = match function_of.entry(name) {
                    Entry::Occupied(known) => *known.get(),
                    Entry::Vacant(slot) => {
                        p.add_named_function(next, name, None)?;
                        *slot.insert(next)
                    }
                };
                function_of_text.insert(frame, id);
                frames.push(id);
            }
        }
        p.samples.sample_id.push(sample_id);
        p.samples.source_id.push(1);
        // Folded stacks have no time.
        p.samples.time.push(f64::NAN);
        let v = &mut p.sample_values;
        v.sample_id.push(sample_id);
        v.value_type.push(type_id);
        v.unit.push(unit_id);
        v.value.push(value);
        // Root first in the file, innermost first (depth 1) in the model.
        let sl = &mut p.sample_locations;
        for (d, &loc) in frames.iter().rev().enumerate() {
            sl.sample_id.push(sample_id);
            sl.depth.push(d as i32 + 1);
            sl.location_id.push(loc);
        }
    }
    p.pad_extension_columns(&[]);
    Ok(p)
}

/// The one source of a folded file, with its one sample type.
fn add_source(p: &mut Profile, source: &FoldedSource<'_>, type_id: StrId, unit_id: StrId) {
    let folded = p.strings.intern("folded");
    let uri = p.strings.intern_opt(source.source_uri);
    let s = &mut p.sources;
    s.source_id.push(1);
    s.source_type.push(folded);
    s.source_uri.push(uri);
    s.source_timestamp.push(f64::NAN);
    for col in [
        &mut s.period_type,
        &mut s.period_unit,
        &mut s.time_nanos,
        &mut s.doc_url,
        &mut s.drop_frames,
        &mut s.keep_frames,
        &mut s.rprof_header,
    ] {
        col.push(StrId::NA);
    }
    s.default_sample_type.push(type_id);
    s.period.push(f64::NAN);
    s.duration_nanos.push(f64::NAN);
    s.diff_base.push(NA_INT);
    p.sample_types.source_id.push(1);
    p.sample_types.value_type.push(type_id);
    p.sample_types.unit.push(unit_id);
}

/// Writes the folded stacks of `stacks` to `path`, atomically (see [`write_folded`]).
pub fn write_file(stacks: &Stacks, labels: &[String], path: &Path) -> Result<()> {
    let tree = CallTree::build(stacks);
    crate::io::output::write_atomic(path, |w| write_folded(&tree, labels, w))
}

/// Reads a folded file, plain or gzip-compressed, under `limits`.
pub fn read_file(path: &Path, source: &FoldedSource<'_>, limits: &Limits) -> Result<Profile> {
    let budget = Budget::new(*limits);
    let bytes = crate::io::input::read_file(path, &budget)?;
    let data = decompress_content(&bytes, &budget, &mut AnyContent::default())?;
    read_folded_with_limits(&data, source, limits)
}

#[cfg(test)]
mod tests;
