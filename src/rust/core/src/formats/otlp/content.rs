//! OTLP data as they are inflated (see [`crate::io::input::Content`]): recognised
//! from their first bytes as OTLP/JSON (an object) or binary protobuf, whose
//! fields are walked as they stream in, so that
//!
//! - data that hold neither JSON nor a field of `ProfilesData` in their first
//!   [`SNIFF_BYTES`] are refused there (a decompression bomb of zero bytes,
//!   or a file of another kind, stops after a few MB of inflation);
//! - a top-level field that claims more bytes than the size limit allows is
//!   refused at once;
//! - the memory a read needs at least is the data themselves and what
//!   decoding them takes at least (`decode.rs` charges it to the budget as it
//!   goes): the walk goes down into the messages that hold the file's bulk
//!   (resources, scopes, profiles, samples, the dictionary's tables) and
//!   counts each element of a repeated message field, each byte of a string
//!   and each packed number with the bytes its decoded vector takes, so that a
//!   decompression bomb (gigabytes of packed varints, a billion empty samples)
//!   is refused while it is inflated, as soon as that passes the budget, and
//!   not after inflating it whole. The count is never more than what the
//!   decoder charges, so a file the budget allows still reads.
//!
//! Data that were not compressed are all in memory already: only their
//! top-level fields are walked (the sniff), and the decoder charges the rest.

use super::proto;
use crate::error::{ProfileError, Result};
use crate::io::input::{Content, SNIFF_BYTES};
use crate::resources::limits::Limits;

/// What the data are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Not known yet (no byte seen but white space).
    Unknown,
    Json,
    Protobuf,
}

/// The messages the walk goes down into: those whose repeated fields hold the
/// bulk of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Message {
    ProfilesData,
    Dictionary,
    ResourceProfiles,
    ScopeProfiles,
    Profile,
    Sample,
    Mapping,
    Location,
    Stack,
}

/// What the content of a length-delimited field takes once decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holds {
    /// A message walked in turn; its entry in the vector of a repeated field
    /// takes `element` bytes (0 for a field that is not repeated).
    Message(Message, u64),
    /// A message not walked (its fields are small), an `element` of a
    /// repeated field.
    Element(u64),
    /// Bytes copied into a vector of their own (strings, ids), an `element`
    /// of a repeated field or not (0).
    Bytes(u64),
    /// Packed varints, each decoded into a number of `size` bytes.
    Varints(u64),
    /// Nothing that this walk counts.
    Nothing,
}

const fn size<T>() -> u64 {
    std::mem::size_of::<T>() as u64
}

/// What field `field` (length-delimited) of `message` holds, as `decode.rs`
/// decodes it.
fn holds(message: Message, field: u64) -> Holds {
    use Holds::{Bytes, Element, Varints};
    use Message as M;
    let i32s = Varints(size::<i32>());
    match (message, field) {
        (M::ProfilesData, 1) => {
            Holds::Message(M::ResourceProfiles, size::<proto::ResourceProfiles>())
        }
        (M::ProfilesData, 2) => Holds::Message(M::Dictionary, 0),
        (M::Dictionary, 1) => Holds::Message(M::Mapping, size::<proto::Mapping>()),
        (M::Dictionary, 2) => Holds::Message(M::Location, size::<proto::Location>()),
        (M::Dictionary, 3) => Element(size::<proto::Function>()),
        (M::Dictionary, 4) => Element(size::<proto::Link>()),
        (M::Dictionary, 5) => Bytes(size::<Vec<u8>>()),
        (M::Dictionary, 6) => Element(size::<proto::KeyValueAndUnit>()),
        (M::Dictionary, 7) => Holds::Message(M::Stack, size::<proto::Stack>()),
        (M::ResourceProfiles, 2) => {
            Holds::Message(M::ScopeProfiles, size::<proto::ScopeProfiles>())
        }
        (M::ResourceProfiles | M::ScopeProfiles, 3) => Bytes(0),
        (M::ScopeProfiles, 2) => Holds::Message(M::Profile, size::<proto::Profile>()),
        (M::Profile, 2) => Holds::Message(M::Sample, size::<proto::Sample>()),
        (M::Profile, 7 | 9 | 10) => Bytes(0),
        (M::Profile, 11) | (M::Sample, 2) | (M::Mapping, 5) | (M::Location, 4) => i32s,
        (M::Stack, 1) => i32s,
        (M::Sample, 4) => Varints(size::<i64>()),
        // Packed fixed64 numbers take their bytes once decoded.
        (M::Sample, 5) => Bytes(0),
        (M::Location, 3) => Element(size::<proto::Line>()),
        _ => Holds::Nothing,
    }
}

/// The bytes of the number a field of `message` holds when it comes with the
/// wire type of one number (not packed): the element it adds to a repeated
/// field.
fn one_number(message: Message, field: u64, wire: u64) -> u64 {
    match (holds(message, field), wire) {
        (Holds::Varints(size), 0) => size,
        (Holds::Bytes(0), 1) if (message, field) == (Message::Sample, 5) => size::<u64>(),
        _ => 0,
    }
}

/// How the bytes of a field's content count.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Count {
    /// Not at all.
    Not,
    /// One byte each.
    Bytes,
    /// Each byte below 0x80 ends a varint, decoded into `size` bytes.
    Varints(u64),
}

/// Where the walk of the protobuf fields is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum At {
    Key,
    Varint,
    Fixed(u8),
    Length { field: u64, key_at: u64 },
    Content { left: u64, count: Count },
    Stopped,
}

/// A message the walk is in (below the top level): which, and the offset
/// where it ends.
#[derive(Debug, Clone, Copy)]
struct Frame {
    message: Message,
    end: u64,
}

/// What is known of OTLP data while they are inflated.
#[derive(Debug)]
pub struct OtlpContent {
    max_size: u64,
    streaming: bool,
    offset: u64,
    pub(crate) kind: Kind,
    at: At,
    varint: u64,
    varint_bytes: u32,
    key_at: u64,
    /// The messages the walk is in, outermost first (empty at the top level).
    frames: Vec<Frame>,
    /// Where the first field of `ProfilesData` (1 or 2, length-delimited)
    /// starts.
    first_known: Option<u64>,
    /// Top-level fields of other numbers (a pprof file, an older draft).
    pub(crate) other_fields: u64,
    /// What decoding the data walked so far takes at least, in bytes.
    decoded: u64,
    /// Samples and numbers (packed or not) met so far, for the message of a
    /// refusal.
    samples: u64,
    numbers: u64,
    head: Vec<u8>,
    /// The white space seen before the kind is known (less than the sniff).
    white: Vec<u8>,
}

const HEAD_BYTES: usize = 256;

impl OtlpContent {
    pub fn new(limits: &Limits) -> Self {
        OtlpContent {
            max_size: limits.max_decompressed_bytes,
            streaming: true,
            offset: 0,
            kind: Kind::Unknown,
            at: At::Key,
            varint: 0,
            varint_bytes: 0,
            key_at: 0,
            frames: Vec::new(),
            first_known: None,
            other_fields: 0,
            decoded: 0,
            samples: 0,
            numbers: 0,
            head: Vec::new(),
            white: Vec::new(),
        }
    }

    /// The first bytes of the data.
    pub(crate) fn head(&self) -> &[u8] {
        &self.head
    }

    fn varint_byte(&mut self, byte: u8) -> Option<Option<u64>> {
        if self.varint_bytes >= 10 {
            return None;
        }
        self.varint |= u64::from(byte & 0x7f)
            .checked_shl(7 * self.varint_bytes)
            .unwrap_or(0);
        self.varint_bytes += 1;
        if byte & 0x80 != 0 {
            return Some(None);
        }
        let v = self.varint;
        self.varint = 0;
        self.varint_bytes = 0;
        Some(Some(v))
    }

    /// The message the walk is in.
    fn message(&self) -> Message {
        self.frames
            .last()
            .map_or(Message::ProfilesData, |f| f.message)
    }

    /// Counts `bytes` more bytes of what decoding takes.
    fn decodes(&mut self, bytes: u64) {
        self.decoded = self.decoded.saturating_add(bytes);
    }

    /// A field's key: where the walk goes next.
    fn key(&mut self, key: u64) -> At {
        let (field, wire) = (key >> 3, key & 7);
        if self.frames.is_empty() {
            if wire == 2 && (field == 1 || field == 2) {
                self.first_known.get_or_insert(self.key_at);
            } else {
                self.other_fields += 1;
            }
        }
        if self.streaming {
            let one = one_number(self.message(), field, wire);
            if one > 0 {
                self.numbers += 1;
                self.decodes(one);
            }
        }
        match wire {
            0 => At::Varint,
            1 => At::Fixed(8),
            5 => At::Fixed(4),
            2 => At::Length {
                field,
                key_at: self.key_at,
            },
            _ => At::Stopped,
        }
    }

    /// The length `len` of `field` is known, `end` is the offset after it:
    /// where the walk goes next.
    fn length(&mut self, field: u64, key_at: u64, len: u64, end: u64) -> Result<At> {
        if self.streaming && self.frames.is_empty() && len > self.max_size.saturating_sub(end) {
            return Err(ProfileError::limit(format!(
                "byte offset {key_at}: field {field} claims {len} bytes, more than \
                 the limit of {} bytes allows (damaged or hostile data?); raise \
                 `max_size` to read larger files",
                self.max_size
            )));
        }
        let holds = if self.streaming {
            holds(self.message(), field)
        } else {
            Holds::Nothing
        };
        let content = |count| {
            if len == 0 {
                At::Key
            } else {
                At::Content { left: len, count }
            }
        };
        Ok(match holds {
            Holds::Message(message, element) => {
                self.decodes(element);
                if message == Message::Sample {
                    self.samples += 1;
                }
                let content_end = end.saturating_add(len);
                if self.frames.last().is_some_and(|f| content_end > f.end) {
                    // Past the end of the message it is in: a defect the
                    // decoder names; nothing more is counted.
                    At::Stopped
                } else {
                    if len > 0 {
                        self.frames.push(Frame {
                            message,
                            end: content_end,
                        });
                    }
                    At::Key
                }
            }
            Holds::Element(element) => {
                self.decodes(element);
                content(Count::Not)
            }
            Holds::Bytes(element) => {
                self.decodes(element);
                content(Count::Bytes)
            }
            Holds::Varints(size) => content(Count::Varints(size)),
            Holds::Nothing => content(Count::Not),
        })
    }

    /// Counts what a piece of a field's content takes once decoded.
    fn count(&mut self, content: &[u8], count: Count) {
        match count {
            Count::Not => {}
            Count::Bytes => self.decodes(content.len() as u64),
            Count::Varints(size) => {
                let n = content.iter().filter(|&&b| b < 0x80).count() as u64;
                self.numbers += n;
                self.decodes(n.saturating_mul(size));
            }
        }
    }

    /// Walks `piece`, which starts at byte offset `start` of the data.
    fn walk(&mut self, piece: &[u8], start: u64) -> Result<()> {
        let mut pos = 0usize;
        while let Some(&byte) = piece.get(pos) {
            let here = start + pos as u64;
            match self.at {
                At::Stopped => return Ok(()),
                At::Content { left, count } => {
                    let take = left.min((piece.len() - pos) as u64);
                    let content = piece.get(pos..pos + take as usize).unwrap_or_default();
                    self.count(content, count);
                    pos += take as usize;
                    self.at = if take == left {
                        At::Key
                    } else {
                        At::Content {
                            left: left - take,
                            count,
                        }
                    };
                    continue;
                }
                At::Fixed(left) => {
                    self.at = if left <= 1 {
                        At::Key
                    } else {
                        At::Fixed(left - 1)
                    };
                }
                At::Key => {
                    if self.varint_bytes == 0 {
                        self.key_at = here;
                        // The messages that end here are done.
                        while self.frames.last().is_some_and(|f| here >= f.end) {
                            self.frames.pop();
                        }
                    }
                    match self.varint_byte(byte) {
                        None => self.at = At::Stopped,
                        Some(None) => {}
                        Some(Some(key)) => self.at = self.key(key),
                    }
                }
                At::Varint => match self.varint_byte(byte) {
                    None => self.at = At::Stopped,
                    Some(None) => {}
                    Some(Some(_)) => self.at = At::Key,
                },
                At::Length { field, key_at } => match self.varint_byte(byte) {
                    None => self.at = At::Stopped,
                    Some(None) => {}
                    Some(Some(len)) => self.at = self.length(field, key_at, len, here + 1)?,
                },
            }
            pos += 1;
        }
        Ok(())
    }

    fn check_sniff(&self) -> Result<()> {
        let sniff = SNIFF_BYTES as u64;
        if self.kind == Kind::Protobuf
            && self.offset >= sniff
            && self.first_known.is_none_or(|at| at >= sniff)
        {
            return Err(super::not_otlp(
                &self.head,
                &format!(
                    "its first {} KiB hold no field of an OTLP `ProfilesData` message",
                    SNIFF_BYTES >> 10
                ),
            ));
        }
        Ok(())
    }
}

impl Content for OtlpContent {
    fn take(&mut self, piece: &[u8]) -> Result<Option<u64>> {
        if self.head.len() < HEAD_BYTES {
            let more = (HEAD_BYTES - self.head.len()).min(piece.len());
            self.head
                .extend_from_slice(piece.get(..more).unwrap_or_default());
        }
        if self.kind == Kind::Unknown {
            let first = piece
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
            let sniff = SNIFF_BYTES as u64;
            match first {
                Some(i) if self.offset + (i as u64) < sniff => {
                    // JSON starts with `{` (or a byte order mark); `[` is
                    // JSON too (refused by the JSON reader, naming it), and
                    // no binary message (field 11 with a group's wire type).
                    let byte = piece.get(i).copied().unwrap_or(0);
                    self.kind = if matches!(byte, b'{' | b'[' | 0xef) {
                        Kind::Json
                    } else {
                        Kind::Protobuf
                    };
                    if self.kind == Kind::Protobuf {
                        // White space is protobuf too (0x0a is field 1): the
                        // bytes before this piece are walked first.
                        let before = std::mem::take(&mut self.white);
                        let at = self.offset.saturating_sub(before.len() as u64);
                        self.walk(&before, at)?;
                    }
                }
                Some(_) => {
                    return Err(super::not_otlp(
                        &self.head,
                        "it starts with white space only",
                    ))
                }
                None if self.offset + piece.len() as u64 >= sniff => {
                    return Err(super::not_otlp(
                        &self.head,
                        "it starts with white space only",
                    ));
                }
                None => self.white.extend_from_slice(piece),
            }
        }
        if self.kind == Kind::Protobuf {
            self.walk(piece, self.offset)?;
        }
        self.offset += piece.len() as u64;
        self.check_sniff()?;
        Ok(None)
    }

    fn least_memory(&self) -> u64 {
        self.offset.saturating_add(self.decoded)
    }

    fn counted(&self) -> String {
        format!(
            "{} bytes of OTLP data with {} samples and {} numbers, whose decoding takes \
             at least {} bytes",
            self.offset, self.samples, self.numbers, self.decoded
        )
    }

    fn whole(&mut self, data: &[u8]) -> Result<()> {
        self.streaming = false;
        self.take(data).map(|_| ())
    }
}

#[cfg(test)]
mod tests;
