//! The text of the source files that a profile's frames name, read when the
//! profile is read or recorded (while the files exist) into the extension table
//! `source_lines`, which the browser view's source panel shows.
//!
//! Reading is bounded and cautious, since the names come from the profile:
//! only regular files whose names end in a source-code extension are read (so
//! that a hostile profile naming `~/.ssh/id_rsa` or `/dev/zero` gets nothing),
//! each up to `max_file_bytes`, all of them up to `max_total_bytes`; a file
//! with a NUL byte in it is binary and skipped. Invalid UTF-8 is written as
//! `<xx>` ([`crate::io::text`]).

use crate::io::text::utf8_escaped;
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Extensions (lower case) of the files read: R and the languages whose
/// profilers write pprof or OTLP files.
const SOURCE_EXTENSIONS: &[&str] = &[
    "r",
    "s",
    "q",
    "rmd",
    "qmd",
    "rnw",
    "rmarkdown",
    "c",
    "h",
    "cc",
    "cpp",
    "cxx",
    "c++",
    "hh",
    "hpp",
    "hxx",
    "inl",
    "m",
    "mm",
    "f",
    "for",
    "f77",
    "f90",
    "f95",
    "f03",
    "go",
    "rs",
    "py",
    "pyx",
    "js",
    "mjs",
    "cjs",
    "ts",
    "java",
    "kt",
    "scala",
    "clj",
    "rb",
    "jl",
    "swift",
    "cs",
    "php",
    "pl",
    "pm",
    "lua",
    "zig",
    "d",
    "ml",
    "hs",
    "ex",
    "exs",
    "erl",
    "dart",
    "nim",
    "sql",
    "sh",
];

/// Limits of one reading, in bytes.
#[derive(Debug, Clone, Copy)]
pub struct SourceTextLimits {
    pub max_file_bytes: u64,
    pub max_total_bytes: u64,
}

/// The lines read: the file of each (index into the paths given), its number
/// (1-based) and text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceText {
    pub file: Vec<u32>,
    pub line: Vec<i32>,
    pub text: Vec<String>,
}

/// Whether the name ends in one of the source-code extensions.
pub fn is_source_file_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SOURCE_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// The lines of the files of `paths` that exist, are regular files with a
/// source-code extension, hold text and fit the limits; the others give no
/// lines. Files are taken in order until the total is reached.
pub fn read_source_files(paths: &[&Path], limits: SourceTextLimits) -> SourceText {
    let mut out = SourceText::default();
    let mut total = 0u64;
    for (index, path) in paths.iter().enumerate() {
        let Some(bytes) = read_text_file(path, limits.max_file_bytes) else {
            continue;
        };
        let size = bytes.len() as u64;
        if total.saturating_add(size) > limits.max_total_bytes {
            continue;
        }
        total += size;
        let Ok(index) = u32::try_from(index) else {
            break;
        };
        for (number, line) in split_lines(&bytes).enumerate() {
            let Ok(number) = i32::try_from(number + 1) else {
                break;
            };
            out.file.push(index);
            out.line.push(number);
            out.text.push(utf8_escaped(line).into_owned());
        }
    }
    out
}

/// The bytes of a regular source file of at most `max_bytes` bytes without a
/// NUL byte, or None.
fn read_text_file(path: &Path, max_bytes: u64) -> Option<Vec<u8>> {
    if !is_source_file_name(path) {
        return None;
    }
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > max_bytes {
        return None;
    }
    let mut bytes = Vec::new();
    // The file may have grown since: one byte past the limit tells.
    File::open(path)
        .ok()?
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .ok()?;
    if bytes.len() as u64 > max_bytes || memchr::memchr(0, &bytes).is_some() {
        return None;
    }
    Some(bytes)
}

/// Lines ended by `\n` (a `\r` before it dropped); the text after the last
/// `\n` is a line when it is not empty.
fn split_lines(bytes: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let empty = bytes.is_empty();
    body.split(|&b| b == b'\n')
        .filter(move |_| !empty)
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
}

#[cfg(test)]
mod tests;
