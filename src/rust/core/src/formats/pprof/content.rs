//! A pprof message as it is inflated (see [`crate::io::input::Content`]): its
//! top-level fields walked as they stream in, without keeping them, so that
//!
//! - data that hold no field of a `Profile` message in their first
//!   [`SNIFF_BYTES`] are refused there (2 GiB of zero bytes are a valid
//!   protobuf message of unknown fields, which Go's parser reads to the end
//!   before it finds no string table);
//! - a field that claims more bytes than the size limit allows is refused at
//!   once (in data that are all there, the decoder says that it runs past
//!   their end instead);
//! - inflation stops shortly after a defect of the wire format at the top
//!   level, which the decoder reports from the data up to there;
//! - the elements are counted (strings, samples, locations, ...) with their
//!   bytes, from which the memory that decoding them takes is known before
//!   anything is decoded ([`PprofContent::decode_memory`]), and a lower bound of
//!   it while the data still stream in.
//!
//! Plain (not compressed) data are walked the same way, whole, so that a file
//! reads the same compressed or not (but for the claims).

use crate::error::{ProfileError, Result};
use crate::io::input::{Content, SNIFF_BYTES};
use crate::resources::limits::Limits;

const VARINT: u8 = 0;
const FIXED64: u8 = 1;
const LENGTH_DELIMITED: u8 = 2;
const FIXED32: u8 = 5;

/// A protobuf varint has at most 10 bytes.
const MAX_VARINT_BYTES: u8 = 10;

/// Bytes past the key of a field with a defect that the decoder may need to
/// name it (a key and a varint of more than 10 bytes each).
const DEFECT_CONTEXT_BYTES: u64 = 32;

/// The fields of `Profile` that hold elements, by field number.
const SAMPLE_TYPE: usize = 1;
const SAMPLE: usize = 2;
const MAPPING: usize = 3;
const LOCATION: usize = 4;
const FUNCTION: usize = 5;
const STRING_TABLE: usize = 6;
const COMMENT: usize = 13;
/// Field numbers 1 to 15 are `Profile`'s; others are skipped by readers.
const KNOWN_FIELDS: usize = 16;

/// Bytes of a decoded element, beyond the heap memory of its repeated fields:
/// the struct of `proto.rs` that holds it.
const fn element_bytes(field: usize) -> u64 {
    (match field {
        SAMPLE_TYPE => std::mem::size_of::<super::proto::ValueType>(),
        SAMPLE => std::mem::size_of::<super::proto::Sample>(),
        MAPPING => std::mem::size_of::<super::proto::Mapping>(),
        LOCATION => std::mem::size_of::<super::proto::Location>(),
        FUNCTION => std::mem::size_of::<super::proto::Function>(),
        STRING_TABLE => std::mem::size_of::<Vec<u8>>(),
        COMMENT => std::mem::size_of::<i64>(),
        _ => 0,
    }) as u64
}

/// What the allocator takes for a heap block beyond its bytes.
const ALLOCATION_BYTES: u64 = 16;

/// Vectors a decoder fills element by element hold at most twice their
/// elements (they double when full).
const GROWTH: u64 = 2;

/// Bytes of a decoded number (a location id, a value; a nested message's
/// share of its vector is no more, see [`PprofContent::decode_memory`]).
const NUMBER_BYTES: u64 = 8;

/// Where the walk is in the top-level fields.
#[derive(Debug, Clone, Copy, PartialEq)]
enum At {
    /// Reading a field's key.
    Key,
    /// Reading the varint value of `field`.
    Varint { field: u64 },
    /// Skipping `left` bytes of a fixed-size value.
    Fixed { left: u8 },
    /// Reading the length of `field`, a length-delimited field whose key
    /// started at `key_at`.
    Length { field: u64, key_at: u64 },
    /// Skipping `left` bytes of the content of a length-delimited field
    /// (counted for `field` if it is one of `Profile`'s).
    Content { field: Option<usize>, left: u64 },
    /// After a defect: the rest is not walked.
    Stopped,
}

/// What is known of a pprof message while it is inflated.
#[derive(Debug)]
pub struct PprofContent {
    max_size: u64,
    /// Bytes walked.
    offset: u64,
    /// Whether the data stream in (else they are all there: see `whole`).
    streaming: bool,
    at: At,
    /// The varint being read: its value so far and its bytes.
    varint: u64,
    varint_bytes: u8,
    /// Where the current field's key started.
    key_at: u64,
    /// Where the first field of `Profile` (numbers 1 to 15) starts.
    first_known: Option<u64>,
    /// Where the walk stopped at a defect (the key of its field).
    stopped_at: Option<u64>,
    /// Per field number of `Profile`: how many times it occurs, the bytes of
    /// its contents (length-delimited occurrences), and the varints that end
    /// in them (the bytes below 0x80: every varint ends with one).
    occurrences: [u64; KNOWN_FIELDS],
    content_bytes: [u64; KNOWN_FIELDS],
    varint_ends: [u64; KNOWN_FIELDS],
    /// String table entries that are not empty (each a heap block).
    nonempty_strings: u64,
    /// The bytes string table entries claim (their lengths), which a read
    /// that goes on needs: the data run to their end, or they are cut off
    /// (and refused).
    claimed_string_bytes: u64,
    /// The first bytes, to name what the data are when they are not pprof.
    head: Vec<u8>,
}

/// Bytes kept to name data that are not pprof (see `crate::io::text::looks_like_text`).
const HEAD_BYTES: usize = 256;

impl PprofContent {
    pub fn new(limits: &Limits) -> Self {
        PprofContent {
            max_size: limits.max_decompressed_bytes,
            offset: 0,
            streaming: true,
            at: At::Key,
            varint: 0,
            varint_bytes: 0,
            key_at: 0,
            first_known: None,
            stopped_at: None,
            occurrences: [0; KNOWN_FIELDS],
            content_bytes: [0; KNOWN_FIELDS],
            varint_ends: [0; KNOWN_FIELDS],
            nonempty_strings: 0,
            claimed_string_bytes: 0,
            head: Vec::new(),
        }
    }

    /// The memory that decoding the message walked so far takes, at most: the
    /// decoded elements (`proto.rs`) in vectors with room for twice as many,
    /// and the repeated fields of samples (location ids, values, labels) and
    /// locations (lines), in blocks of their own. Each number of those is a
    /// varint that ends in the field's content, and so are the two or more
    /// varints of a label or line (key, length, fields), which takes no
    /// more than 8 bytes per varint.
    #[allow(
        clippy::indexing_slicing,
        reason = "field numbers are constants below KNOWN_FIELDS, the arrays' length"
    )]
    pub fn decode_memory(&self) -> u64 {
        let mut total = self.strings_memory();
        for field in [SAMPLE_TYPE, SAMPLE, MAPPING, LOCATION, FUNCTION, COMMENT] {
            let elements = self.occurrences[field].saturating_mul(element_bytes(field));
            total = total.saturating_add(elements.saturating_mul(GROWTH));
        }
        for field in [SAMPLE, LOCATION] {
            let blocks = self.occurrences[field].saturating_mul(3 * ALLOCATION_BYTES);
            let numbers = self.varint_ends[field].saturating_mul(NUMBER_BYTES * GROWTH);
            total = total.saturating_add(blocks).saturating_add(numbers);
        }
        total
    }

    /// The string table: a vector per entry, its bytes in a block of their own.
    fn strings_memory(&self) -> u64 {
        self.occurrences[STRING_TABLE]
            .saturating_mul(element_bytes(STRING_TABLE))
            .saturating_add(self.content_bytes[STRING_TABLE])
            .saturating_add(self.nonempty_strings.saturating_mul(ALLOCATION_BYTES))
    }

    /// Decoding needs at least the elements and the string table, with the
    /// bytes its entries claim; the data themselves are held while they are
    /// decoded.
    #[allow(
        clippy::indexing_slicing,
        reason = "field numbers are constants below KNOWN_FIELDS, the arrays' length"
    )]
    fn least_decode_memory(&self) -> u64 {
        let claimed = self
            .claimed_string_bytes
            .saturating_sub(self.content_bytes[STRING_TABLE]);
        let mut total = self.strings_memory().saturating_add(claimed);
        for field in [SAMPLE_TYPE, SAMPLE, MAPPING, LOCATION, FUNCTION, COMMENT] {
            total =
                total.saturating_add(self.occurrences[field].saturating_mul(element_bytes(field)));
        }
        total
    }

    /// Adds the next byte of a varint; Some(value) when it is complete, an
    /// error (the offset of the defect) when it has more than 10 bytes.
    fn varint_byte(&mut self, byte: u8) -> std::result::Result<Option<u64>, ()> {
        if self.varint_bytes >= MAX_VARINT_BYTES {
            return Err(());
        }
        // As Go reads it: bits past 64 are dropped.
        self.varint |= u64::from(byte & 0x7f)
            .checked_shl(7 * u32::from(self.varint_bytes))
            .unwrap_or(0);
        self.varint_bytes += 1;
        if byte & 0x80 != 0 {
            return Ok(None);
        }
        let value = self.varint;
        self.varint = 0;
        self.varint_bytes = 0;
        Ok(Some(value))
    }

    /// A top-level field begins: its number and wire type.
    #[allow(
        clippy::indexing_slicing,
        reason = "i is filtered to 1..KNOWN_FIELDS, the array's length"
    )]
    fn field_key(&mut self, key: u64) -> Result<At> {
        let (field, wire_type) = (key >> 3, (key & 7) as u8);
        if let Some(i) = usize::try_from(field)
            .ok()
            .filter(|&i| (1..KNOWN_FIELDS).contains(&i))
        {
            self.first_known.get_or_insert(self.key_at);
            self.occurrences[i] += 1;
        }
        Ok(match wire_type {
            VARINT => At::Varint { field },
            FIXED64 => At::Fixed { left: 8 },
            FIXED32 => At::Fixed { left: 4 },
            LENGTH_DELIMITED => At::Length {
                field,
                key_at: self.key_at,
            },
            // Groups and wire types that do not exist: the decoder refuses them.
            _ => At::Stopped,
        })
    }

    /// The length of `field` (whose key started at `key_at`) is known: the
    /// content follows, `end` is the offset after the length.
    fn field_length(&mut self, field: u64, key_at: u64, len: u64, end: u64) -> Result<At> {
        if self.streaming && len > self.max_size.saturating_sub(end) {
            return Err(ProfileError::limit(format!(
                "byte offset {key_at}: field {field} claims {len} bytes, more than the limit of {} bytes \
                 allows (damaged or hostile data?); raise `max_size` to read larger files",
                self.max_size
            )));
        }
        let field = usize::try_from(field).ok().filter(|&i| i < KNOWN_FIELDS);
        if field == Some(STRING_TABLE) && len > 0 {
            self.nonempty_strings += 1;
            self.claimed_string_bytes = self.claimed_string_bytes.saturating_add(len);
        }
        Ok(if len == 0 {
            At::Key
        } else {
            At::Content { field, left: len }
        })
    }

    /// Walks `piece`; Some(offset) of a defect that stopped the walk.
    fn walk(&mut self, piece: &[u8]) -> Result<Option<u64>> {
        let start = self.offset;
        let mut pos = 0usize;
        while let Some(&byte) = piece.get(pos) {
            let here = start + pos as u64;
            match self.at {
                At::Stopped => return Ok(None),
                At::Content { field, left } => {
                    // Skip what the piece holds of the content; only bytes
                    // that are there count (a length may run past the end).
                    let take = left.min((piece.len() - pos) as u64);
                    let content = piece.get(pos..pos + take as usize).unwrap_or_default();
                    pos += take as usize;
                    if let Some(i) = field {
                        self.count_content(i, content);
                    }
                    self.at = if take == left {
                        At::Key
                    } else {
                        At::Content {
                            field,
                            left: left - take,
                        }
                    };
                    continue;
                }
                At::Fixed { left } => {
                    self.at = if left == 1 {
                        At::Key
                    } else {
                        At::Fixed { left: left - 1 }
                    };
                }
                At::Key => {
                    if self.varint_bytes == 0 {
                        self.key_at = here;
                    }
                    match self.varint_byte(byte) {
                        Err(()) => return Ok(Some(self.stop())),
                        Ok(None) => {}
                        Ok(Some(key)) => self.at = self.field_key(key)?,
                    }
                    if self.at == At::Stopped {
                        return Ok(Some(self.stop()));
                    }
                }
                At::Varint { .. } => match self.varint_byte(byte) {
                    Err(()) => return Ok(Some(self.stop())),
                    Ok(None) => {}
                    Ok(Some(_)) => self.at = At::Key,
                },
                At::Length { field, key_at } => match self.varint_byte(byte) {
                    Err(()) => return Ok(Some(self.stop())),
                    Ok(None) => {}
                    Ok(Some(len)) => self.at = self.field_length(field, key_at, len, here + 1)?,
                },
            }
            pos += 1;
        }
        Ok(None)
    }

    /// Counts `content`, bytes of the content of an occurrence of `field`.
    fn count_content(&mut self, field: usize, content: &[u8]) {
        if let Some(bytes) = self.content_bytes.get_mut(field) {
            *bytes += content.len() as u64;
        }
        if matches!(field, SAMPLE | LOCATION) {
            if let Some(ends) = self.varint_ends.get_mut(field) {
                *ends += content.iter().filter(|&&b| b < 0x80).count() as u64;
            }
        }
    }

    /// Stops the walk at a defect of the field whose key is at `key_at`.
    fn stop(&mut self) -> u64 {
        self.at = At::Stopped;
        self.stopped_at = Some(self.key_at);
        self.key_at
    }

    /// The sniff: an error once the walk has passed [`SNIFF_BYTES`] without
    /// meeting a field of `Profile`.
    fn check_sniff(&self) -> Result<()> {
        let walked = self.stopped_at.unwrap_or(self.offset);
        let sniff = SNIFF_BYTES as u64;
        if walked >= sniff && self.first_known.is_none_or(|at| at >= sniff) {
            let nothing = format!(
                "its first {} KiB hold no field of a pprof `Profile` message",
                SNIFF_BYTES >> 10
            );
            return Err(super::not_pprof(
                super::what_it_is(&self.head).unwrap_or(&nothing),
            ));
        }
        Ok(())
    }
}

impl Content for PprofContent {
    fn take(&mut self, piece: &[u8]) -> Result<Option<u64>> {
        if self.head.len() < HEAD_BYTES {
            let more = (HEAD_BYTES - self.head.len()).min(piece.len());
            self.head
                .extend_from_slice(piece.get(..more).unwrap_or_default());
        }
        let defect = self.walk(piece)?;
        self.offset += piece.len() as u64;
        self.check_sniff()?;
        Ok(defect.map(|at| at.saturating_add(DEFECT_CONTEXT_BYTES)))
    }

    fn least_memory(&self) -> u64 {
        self.offset.saturating_add(self.least_decode_memory())
    }

    fn counted(&self) -> String {
        format!(
            "{} bytes of pprof data with {} strings, {} samples, {} locations and {} functions",
            self.offset,
            self.occurrences[STRING_TABLE],
            self.occurrences[SAMPLE],
            self.occurrences[LOCATION],
            self.occurrences[FUNCTION]
        )
    }

    /// Data that were not compressed are walked whole, as inflated ones are
    /// (the same refusals, the counts for [`PprofContent::decode_memory`]).
    fn whole(&mut self, data: &[u8]) -> Result<()> {
        self.streaming = false;
        self.take(data).map(|_| ())
    }
}

#[cfg(test)]
mod tests;
