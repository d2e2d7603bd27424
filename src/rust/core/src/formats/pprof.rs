//! pprof: Google's profile format, a protobuf message (`perftools.profiles.Profile`),
//! usually gzip-compressed.
//!
//! Reading maps one file to one `sources` row and keeps everything the file carries
//! (see `read.rs` for the mapping). Writing aggregates samples with equal stacks and
//! labels, turns R frames into something `go tool pprof` shows as they are, and
//! writes gzip-compressed protobuf (see `write.rs`).

mod content;
mod decode;
pub mod proto;
mod read;
mod write;

pub use content::PprofContent;
pub use read::{
    profile_from_message, profile_from_message_with_limits, profile_from_message_within,
    MAX_FRAMES_PER_BYTE, MIN_MAX_FRAMES,
};
pub use write::{message_from_profile, WriteOptions, MAX_VALUES};

use crate::error::{ProfileError, Result};
use crate::io::input::{self, Content, Inflated};
use crate::io::text::looks_like_text;
use crate::model::Profile;
use crate::resources::budget::Budget;
use crate::resources::limits::Limits;
use prost::Message;
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

/// The file name of the mapping the writer puts R frames in. pprof does not try to
/// symbolize a mapping whose name starts with "[" (like "[vdso]"), and the reader
/// recognises it to undo what the writer did to system names.
pub const R_MAPPING_FILENAME: &str = "[R]";

/// Reads the bytes of a pprof file (gzip-compressed or plain) as a v2 profile.
/// The message is decoded as Go's parser decodes it (see `decode.rs`); data that
/// are not a pprof message are named when they look like a legacy profile.
pub fn read_bytes(bytes: &[u8], source_uri: Option<&str>, limits: &Limits) -> Result<Profile> {
    let budget = Budget::new(*limits);
    let mut content = PprofContent::new(limits);
    let data = input::inflate_bytes(bytes, &budget, &mut content)?;
    read_data(data, &content, source_uri, &budget)
}

/// Reads a pprof file as a v2 profile under a memory budget. Files larger than
/// the decompression limit are refused before they are read.
pub fn read_file(path: &Path, source_uri: Option<&str>, budget: &Budget) -> Result<Profile> {
    let mut content = PprofContent::new(budget.limits());
    let data = input::inflate_file(path, budget, &mut content)?;
    read_data(data, &content, source_uri, budget)
}

/// Decodes the (decompressed) message `data`, whose top-level fields `content`
/// has walked, and reads it as a v2 profile. The decoded message is charged to
/// `budget` before it is decoded; data owned here (and charged) are freed once
/// decoded, the message once read.
fn read_data(
    Inflated { data, compressed }: Inflated<'_>,
    content: &PprofContent,
    source_uri: Option<&str>,
    budget: &Budget,
) -> Result<Profile> {
    if data.is_empty() {
        return Err(ProfileError::format(
            None,
            "the file is empty (no pprof data)",
        ));
    }
    let decoded = content.decode_memory();
    budget.charge(decoded, || "the decoded pprof message".to_string())?;
    let message = decode::decode(&data).map_err(|failure| match failure {
        decode::Failure::Memory(e) => e,
        decode::Failure::Defect(offset, what) => {
            if let Some(what) = what_it_is(&data) {
                return not_pprof(what);
            }
            let of_data = if compressed {
                " of the decompressed data"
            } else {
                ""
            };
            ProfileError::format(
                Some(format!("byte offset {offset}{of_data}")),
                format!("not a valid pprof protobuf message: {what}"),
            )
        }
    })?;
    let text = looks_like_text(&data);
    if let Cow::Owned(data) = data {
        budget.release(data.len() as u64);
    }
    let p = profile_from_message_within(&message, source_uri, budget).map_err(|e| {
        if text {
            not_pprof(TEXT_PROFILE)
        } else {
            e
        }
    })?;
    drop(message);
    budget.release(decoded);
    Ok(p)
}

/// The decoded message of (decompressed) pprof data, if they are one; its
/// memory is charged to `budget` while it is decoded (for the refusal of a
/// reader of another format, see `formats::other_format_than_otlp()`).
pub(crate) fn decode_message(data: &[u8], budget: &Budget) -> Option<proto::Profile> {
    let mut content = PprofContent::new(budget.limits());
    content.whole(data).ok()?;
    let need = content.decode_memory();
    budget
        .charge(need, || "the decoded pprof message".to_string())
        .ok()?;
    let m = decode::decode(data).ok();
    budget.release(need);
    m
}

/// The profile as an uncompressed pprof protobuf message.
pub fn encode(p: &Profile, options: &WriteOptions) -> Result<Vec<u8>> {
    Ok(message_from_profile(p, options)?.encode_to_vec())
}

/// Writes the profile as a gzip-compressed pprof file, atomically. Compression
/// is gzip's fastest level, as Go's runtime/pprof uses: much faster than the
/// default level, for a somewhat larger file (`bench/README.md`, pprof).
pub fn write_file(p: &Profile, path: &Path, options: &WriteOptions) -> Result<()> {
    let bytes = encode(p, options)?;
    crate::io::output::write_atomic(path, |w| {
        let mut gz = flate2::write::GzEncoder::new(w, flate2::Compression::fast());
        gz.write_all(&bytes)?;
        gz.finish()?;
        Ok(())
    })
}

/// What text data are, when they are no pprof message.
const TEXT_PROFILE: &str =
    "it is text, perhaps a legacy text profile (gperftools, or Go's debug=1 output)";

/// What the first bytes of data that are no pprof message say they are, if
/// anything: a legacy binary profile, text.
fn what_it_is(head: &[u8]) -> Option<&'static str> {
    looks_like_text(head)
        .then_some(TEXT_PROFILE)
        .or_else(|| legacy_binary_profile(head))
}

fn not_pprof(what: &str) -> ProfileError {
    ProfileError::format(
        None,
        format!("not a pprof protobuf file: {what}; convert it with `go tool pprof -proto` first"),
    )
}

/// gperftools' legacy binary CPU profiles start with the header words 0, 3 (in
/// 32- or 64-bit machine words, either byte order). Asked only of data that are
/// not a pprof message: a protobuf message may start with a zero byte (Go's
/// parser skips field number 0), but pprof writers do not write one.
fn legacy_binary_profile(data: &[u8]) -> Option<&'static str> {
    if data.first() != Some(&0) {
        return None;
    }
    let word = |size: usize, i: usize| -> Option<u64> {
        let b = data.get(i * size..(i + 1) * size)?;
        let le = b.iter().rev().fold(0u64, |acc, &x| (acc << 8) | x as u64);
        let be = b.iter().fold(0u64, |acc, &x| (acc << 8) | x as u64);
        Some(if le == 3 || be == 3 { 3 } else { le.min(be) })
    };
    let header = |size| word(size, 0) == Some(0) && word(size, 1) == Some(3);
    if header(8) || header(4) {
        Some("it is a legacy gperftools CPU profile (binary)")
    } else {
        Some("it starts with a zero byte")
    }
}

#[cfg(test)]
mod tests;
