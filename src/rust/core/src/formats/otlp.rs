//! OpenTelemetry profiles (OTLP, the `profiles/v1development` signal of
//! `opentelemetry-proto`, current shape since release v1.10.0): a
//! `ProfilesData` message (or the collector's `ExportProfilesServiceRequest`,
//! the same fields), binary protobuf or OTLP/JSON, gzip-compressed or not.
//!
//! Reading (`read.rs`) maps each group of Profiles of one scope that agree
//! sample by sample to one `sources` row with a sample type per Profile, and
//! each observation (value and/or timestamp) of a `Sample` to one v2 sample;
//! resources, scopes and attributes go to extension tables. Writing
//! (`write.rs`) does the reverse: one shared dictionary, stacks stored once,
//! samples of equal identity combined, one Profile per sample type of each
//! source. See `?read_otlp` in R for the whole mapping.
//!
//! What the files share with pprof's machinery: the input (`crate::io::input`:
//! size limits, streamed gzip inflation with a sniff), the memory budget,
//! the protobuf wire reader (`crate::io::wire`), stacks (`analysis::SampleFrames`)
//! and sample identity (`identity`), atomic writing (`crate::io::output`).

pub mod attributes;
mod content;
mod decode;
mod json;
pub mod proto;
mod read;
mod write;

pub use content::OtlpContent;
pub use read::profile_from_messages;
pub use write::{encode_message, message_from_profile};

use crate::error::{ProfileError, Result};
use crate::io::input::{self, Inflated};
use crate::io::text::looks_like_text;
use crate::io::wire::Failure;
use crate::model::Profile;
use crate::resources::budget::Budget;
use crate::resources::limits::Limits;
use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

/// Attribute keys that carry fields of pprof (those of the OpenTelemetry
/// collector's pprof translator and of the semantic conventions' `pprof.*`
/// registry), and of v2 sources written by this package.
pub mod keys {
    pub const BUILD_ID: &str = "process.executable.build_id.gnu";
    pub const HAS_FUNCTIONS: &str = "pprof.mapping.has_functions";
    pub const HAS_FILENAMES: &str = "pprof.mapping.has_filenames";
    pub const HAS_LINE_NUMBERS: &str = "pprof.mapping.has_line_numbers";
    pub const HAS_INLINE_FRAMES: &str = "pprof.mapping.has_inline_frames";
    pub const IS_FOLDED: &str = "pprof.location.is_folded";
    pub const DROP_FRAMES: &str = "pprof.profile.drop_frames";
    pub const KEEP_FRAMES: &str = "pprof.profile.keep_frames";
    pub const DOC_URL: &str = "pprof.profile.doc_url";
    /// Followed by `.k`, k = 0, 1, ... for the k-th comment.
    pub const COMMENT: &str = "pprof.profile.comment";
    pub const DEFAULT_SAMPLE_TYPE: &str = "pprof.scope.default_sample_type";
    /// v2 source fields that OTLP has no place for (profile attributes).
    pub const SOURCE_TYPE: &str = "r.profile.source_type";
    pub const SOURCE_URI: &str = "r.profile.source_uri";
    pub const SOURCE_TIMESTAMP: &str = "r.profile.source_timestamp";
    pub const RPROF_HEADER: &str = "r.profile.rprof_header";
    pub const SOURCE_LABEL: &str = "r.profile.source_label";
    pub const DIFF_BASE: &str = "r.profile.diff_base";
    /// The process of a recording of parallel code (`sources.process_id`,
    /// `host_name`, `process_role`): resource attributes, the first two of
    /// OpenTelemetry's semantic conventions.
    pub const PROCESS_PID: &str = "process.pid";
    pub const HOST_NAME: &str = "host.name";
    pub const PROCESS_ROLE: &str = "r.profile.process_role";
    /// The position of a source in its scope, written only where the reader
    /// would otherwise take the source's Profiles for more sample types of
    /// the source before it (sources alike in every field, one after the
    /// other, with other types); the reader drops it.
    pub const SOURCE_INDEX: &str = "r.profile.source_index";
}

/// Whether a Profile measures nothing: no sample type and every value 0 (what
/// the writer makes of a source without sample types, whose samples have no
/// values).
pub(crate) fn typeless(p: &proto::Profile) -> bool {
    p.sample_type.is_none()
        && p.samples
            .iter()
            .all(|s| !s.values.is_empty() && s.values.iter().all(|&v| v == 0))
}

/// Whether Profile `b` can be a sample type of the source whose first
/// Profile is `a`: every field but the sample type and the values agrees.
pub(crate) fn agree(a: &proto::Profile, b: &proto::Profile) -> bool {
    a.time_unix_nano == b.time_unix_nano
        && a.duration_nano == b.duration_nano
        && a.period_type == b.period_type
        && a.period == b.period
        && a.profile_id == b.profile_id
        && a.dropped_attributes_count == b.dropped_attributes_count
        && a.original_payload_format == b.original_payload_format
        && a.original_payload == b.original_payload
        && a.attribute_indices == b.attribute_indices
        && a.samples.len() == b.samples.len()
        && a.samples.iter().zip(&b.samples).all(|(x, y)| {
            x.stack_index == y.stack_index
                && x.attribute_indices == y.attribute_indices
                && x.link_index == y.link_index
                && x.timestamps_unix_nano == y.timestamps_unix_nano
                && x.values.len().max(x.timestamps_unix_nano.len())
                    == y.values.len().max(y.timestamps_unix_nano.len())
        })
}

/// The name of the scope that sources without one are written in.
pub const DEFAULT_SCOPE_NAME: &str = "profile";

/// How to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Protobuf,
    Json,
}

/// Bytes as lower-case hex text.
pub fn hex(bytes: &[u8]) -> String {
    let digit = |x: u8| char::from_digit(u32::from(x), 16).unwrap_or('0');
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(digit(b >> 4));
        s.push(digit(b & 15));
    }
    s
}

/// Hex text (either case) as bytes; None if it is not.
pub fn unhex(text: &[u8]) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16);
    text.chunks_exact(2)
        .map(|p| match p {
            [a, b] => Some((digit(*a)? << 4 | digit(*b)?) as u8),
            _ => None,
        })
        .collect()
}

/// The error for data that are no OTLP: what they look like, if known.
pub(crate) fn not_otlp(head: &[u8], otherwise: &str) -> ProfileError {
    let what = if head.starts_with(&input::GZIP_MAGIC) {
        "it is gzip data inside gzip data".to_string()
    } else if looks_like_text(head) {
        "it is text, but not OTLP/JSON (which starts with `{`)".to_string()
    } else {
        otherwise.to_string()
    };
    ProfileError::format(None, format!("not an OTLP profiles file: {what}"))
}

/// What data that hold no OTLP message are when they are a file of another
/// format ("it is a pprof file; read it with read_pprof()"), for the message
/// of the refusal; `None` when they are none of those. A format imports no
/// other: the caller passes what knows them
/// ([`crate::formats::other_format_than_otlp`]).
pub type OtherFormats<'a> = &'a dyn Fn(&[u8], &Budget) -> Option<&'static str>;

/// Reads the bytes of an OTLP file as a v2 profile, under `limits`.
pub fn read_bytes(
    bytes: &[u8],
    source_uri: Option<&str>,
    limits: &Limits,
    others: OtherFormats<'_>,
) -> Result<Profile> {
    let budget = Budget::new(*limits);
    let mut content = OtlpContent::new(limits);
    let data = input::inflate_bytes(bytes, &budget, &mut content)?;
    read_data(data, &content, source_uri, &budget, others)
}

/// Reads an OTLP file as a v2 profile under a memory budget.
pub fn read_file(
    path: &Path,
    source_uri: Option<&str>,
    budget: &Budget,
    others: OtherFormats<'_>,
) -> Result<Profile> {
    let mut content = OtlpContent::new(budget.limits());
    let data = input::inflate_file(path, budget, &mut content)?;
    read_data(data, &content, source_uri, budget, others)
}

/// Decodes the (decompressed) data and reads them as a v2 profile; the data
/// (if owned, they were charged) and the decoded messages are released when
/// done with.
fn read_data(
    Inflated { data, compressed }: Inflated<'_>,
    content: &OtlpContent,
    source_uri: Option<&str>,
    budget: &Budget,
    others: OtherFormats<'_>,
) -> Result<Profile> {
    if data.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(ProfileError::format(
            None,
            "the file is empty (no OTLP data)",
        ));
    }
    let mut decoder = decode::Decoder::new(budget);
    let messages = match content.kind {
        content::Kind::Json => match json::read_messages(&data, &mut decoder) {
            Ok((messages, traces)) => {
                if let Some((draft, at)) = traces.draft {
                    return Err(draft_error(draft, &line_column(&data, at)));
                }
                if !traces.profiles_member {
                    return Err(no_profiles_member(&traces.other_members));
                }
                messages
            }
            // Binary data can look like JSON at first: a ProfilesData whose
            // first field (0x0a, a new line) has 123 bytes ("{").
            Err(Failure::Defect(..)) if data.first() == Some(&0x0a) => {
                budget.release(decoder.charged);
                decoder = decode::Decoder::new(budget);
                let binary = decode_binary(&data, content, compressed, &mut decoder, others);
                match binary {
                    Ok(m) => vec![m],
                    Err(_) => {
                        budget.release(decoder.charged);
                        decoder = decode::Decoder::new(budget);
                        let e = json::read_messages(&data, &mut decoder).err();
                        return Err(e.map_or_else(
                            || ProfileError::format(None, "not valid OTLP/JSON"),
                            |f| json_failure(f, &data),
                        ));
                    }
                }
            }
            Err(f) => return Err(json_failure(f, &data)),
        },
        _ => vec![decode_binary(
            &data,
            content,
            compressed,
            &mut decoder,
            others,
        )?],
    };
    let mut messages = messages;
    for m in &mut messages {
        with_zero_entries(m);
    }
    let sample_hint = decoder.traces.sample_unpacked_value.is_some();
    if let Cow::Owned(data) = data {
        budget.release(data.len() as u64);
    }
    let p = read::profile_from_messages(&messages, source_uri, budget).map_err(|e| {
        if sample_hint {
            with_v19_hint(e)
        } else {
            e
        }
    })?;
    drop(messages);
    budget.release(decoder.charged);
    Ok(p)
}

/// `m` with a dictionary whose every table has at least its entry 0, the
/// zero value: index 0 into a table the message leaves out or empty refers to
/// it.
pub(crate) fn with_zero_entries(m: &mut proto::ProfilesData) {
    let d = m.dictionary.get_or_insert_with(Default::default);
    fn zero<T: Default>(t: &mut Vec<T>) {
        if t.is_empty() {
            t.push(T::default());
        }
    }
    zero(&mut d.mapping_table);
    zero(&mut d.location_table);
    zero(&mut d.function_table);
    zero(&mut d.link_table);
    zero(&mut d.string_table);
    zero(&mut d.attribute_table);
    zero(&mut d.stack_table);
}

/// A content error of a file whose samples look like those of the v1.8/v1.9
/// drafts (a lone varint at field 4) says so.
fn with_v19_hint(e: ProfileError) -> ProfileError {
    const HINT: &str = " (its samples have a single varint at field 4, as the link_index of \
                        the v1.8/v1.9 drafts of the signal, whose values are at field 2)";
    match e {
        ProfileError::Invalid { .. } | ProfileError::Format { .. } => e.map_message(|m| m + HINT),
        other => other,
    }
}

fn draft_error(draft: &str, position: &str) -> ProfileError {
    ProfileError::unsupported(format!(
        "{position}: this is a file of the {draft} draft of the OpenTelemetry profiles signal, \
         which read against the current messages (v1.10.0 and later) would mean something else; \
         convert it with a collector of the current release"
    ))
}

fn decode_binary(
    data: &[u8],
    content: &OtlpContent,
    compressed: bool,
    decoder: &mut decode::Decoder<'_>,
    others: OtherFormats<'_>,
) -> Result<proto::ProfilesData> {
    let of_data = if compressed {
        " of the decompressed data"
    } else {
        ""
    };
    let result = decoder.decode(data);
    if let Err(Failure::Memory(e)) = result {
        return Err(e);
    }
    // Defects and traces of drafts: named with the whole message walked.
    if result.is_err() || decoder.traces.any() || content.other_fields > 0 {
        if let Some(what) = others(data, decoder.budget()) {
            return Err(not_otlp(content.head(), what));
        }
        let traces = decode::scan(data);
        if let Some((draft, at)) = traces.draft() {
            return Err(draft_error(draft, &format!("byte offset {at}{of_data}")));
        }
    }
    match result {
        Ok(m) => Ok(m),
        Err(Failure::Memory(e)) => Err(e),
        Err(Failure::Defect(..)) if looks_like_text(content.head()) => {
            Err(not_otlp(content.head(), "it is text, but not OTLP/JSON"))
        }
        Err(Failure::Defect(at, what)) => Err(ProfileError::format(
            Some(format!("byte offset {at}{of_data}")),
            format!("not a valid OTLP protobuf message: {what}"),
        )),
    }
}

/// The error for JSON text whose objects have no member of `ProfilesData`
/// (Pyroscope's query results, `{"foo":1}`, `{}`): JSON of another kind, as an
/// empty binary file is no OTLP file either.
fn no_profiles_member(others: &[String]) -> ProfileError {
    let has = if others.is_empty() {
        "it has no member".to_string()
    } else {
        let keys: Vec<String> = others.iter().map(|k| format!("`{k}`")).collect();
        format!("it has {}", keys.join(", "))
    };
    ProfileError::format(
        None,
        format!(
            "not an OTLP profiles file: the JSON text is no OTLP/JSON ProfilesData message, \
             whose members are `resourceProfiles` and `dictionary` ({has})"
        ),
    )
}

fn json_failure(f: Failure, data: &[u8]) -> ProfileError {
    match f {
        Failure::Memory(e) => e,
        Failure::Defect(at, what) => ProfileError::format(
            Some(line_column(data, at)),
            format!("not valid OTLP/JSON: {what}"),
        ),
    }
}

/// "line 3, column 14" of byte offset `at` in text.
fn line_column(data: &[u8], at: usize) -> String {
    let before = data.get(..at.min(data.len())).unwrap_or_default();
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    format!("line {line}, column {column}")
}

/// The profile as an OTLP message (binary protobuf, not compressed).
pub fn encode(p: &Profile, format: Format) -> Result<Vec<u8>> {
    let m = message_from_profile(p)?;
    Ok(match format {
        Format::Protobuf => encode_message(&m)?,
        Format::Json => {
            let mut text = json::write_message(&m);
            text.push('\n');
            text.into_bytes()
        }
    })
}

/// Writes the profile as an OTLP file, atomically: binary protobuf or
/// OTLP/JSON, gzip-compressed (at gzip's fastest level) when `gzip`.
pub fn write_file(p: &Profile, path: &Path, format: Format, gzip: bool) -> Result<()> {
    let bytes = encode(p, format)?;
    crate::io::output::write_atomic(path, |w| {
        if gzip {
            let mut gz = flate2::write::GzEncoder::new(w, flate2::Compression::fast());
            gz.write_all(&bytes)?;
            gz.finish()?;
        } else {
            w.write_all(&bytes)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests;
