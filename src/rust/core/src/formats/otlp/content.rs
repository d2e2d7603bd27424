//! OTLP data as they are inflated (see [`crate::io::input::Content`]): recognised
//! from their first bytes as OTLP/JSON (an object) or binary protobuf, whose
//! top-level fields are walked as they stream in, so that
//!
//! - data that hold neither JSON nor a field of `ProfilesData` in their first
//!   [`SNIFF_BYTES`] are refused there (a decompression bomb of zero bytes,
//!   or a file of another kind, stops after a few MB of inflation);
//! - a top-level field that claims more bytes than the size limit allows is
//!   refused at once;
//! - the memory a read needs at least is the data themselves (decoding is
//!   charged to the budget as it goes, see `decode.rs`).

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

/// Where the walk of the top-level protobuf fields is.
#[derive(Debug, Clone, Copy, PartialEq)]
enum At {
    Key,
    Varint,
    Fixed(u8),
    Length { field: u64, key_at: u64 },
    Content(u64),
    Stopped,
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
    /// Where the first field of `ProfilesData` (1 or 2, length-delimited)
    /// starts.
    first_known: Option<u64>,
    /// Top-level fields of other numbers (a pprof file, an older draft).
    pub(crate) other_fields: u64,
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
            first_known: None,
            other_fields: 0,
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

    /// Walks `piece`, which starts at byte offset `start` of the data.
    fn walk(&mut self, piece: &[u8], start: u64) -> Result<()> {
        let mut pos = 0usize;
        while let Some(&byte) = piece.get(pos) {
            let here = start + pos as u64;
            match self.at {
                At::Stopped => return Ok(()),
                At::Content(left) => {
                    let take = left.min((piece.len() - pos) as u64);
                    pos += take as usize;
                    self.at = if take == left {
                        At::Key
                    } else {
                        At::Content(left - take)
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
                    }
                    match self.varint_byte(byte) {
                        None => self.at = At::Stopped,
                        Some(None) => {}
                        Some(Some(key)) => {
                            let (field, wire) = (key >> 3, key & 7);
                            if wire == 2 && (field == 1 || field == 2) {
                                self.first_known.get_or_insert(self.key_at);
                            } else {
                                self.other_fields += 1;
                            }
                            self.at = match wire {
                                0 => At::Varint,
                                1 => At::Fixed(8),
                                5 => At::Fixed(4),
                                2 => At::Length {
                                    field,
                                    key_at: self.key_at,
                                },
                                _ => At::Stopped,
                            };
                        }
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
                    Some(Some(len)) => {
                        if self.streaming && len > self.max_size.saturating_sub(here + 1) {
                            return Err(ProfileError::limit(format!(
                                "byte offset {key_at}: field {field} claims {len} bytes, more than \
                                 the limit of {} bytes allows (damaged or hostile data?); raise \
                                 `max_size` to read larger files",
                                self.max_size
                            )));
                        }
                        self.at = if len == 0 { At::Key } else { At::Content(len) };
                    }
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
                    // JSON starts with `{` (or a byte order mark).
                    let byte = piece.get(i).copied().unwrap_or(0);
                    self.kind = if byte == b'{' || byte == 0xef {
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
        self.offset
    }

    fn counted(&self) -> String {
        format!("{} bytes of OTLP data", self.offset)
    }

    fn whole(&mut self, data: &[u8]) -> Result<()> {
        self.streaming = false;
        self.take(data).map(|_| ())
    }
}

#[cfg(test)]
mod tests;
