//! An Rprof file as it is inflated (see [`crate::io::input::Content`]): refused
//! from its first line when that is not a header, at its first NUL byte, and
//! as soon as the lines and frames counted so far need more memory than the
//! budget allows, before the rest is inflated.

use super::{expected_lines_of, header_line, nul_byte_at, without_bom};
use crate::error::Result;
use crate::io::input::{Content, SNIFF_BYTES};
use memchr::memchr;

/// Bytes a read reserves per line of the file at least, before it knows
/// which lines are samples: a record of the chunk reader (a file read in one
/// pass reserves more, see `Reader::new`).
const LEAST_BYTES_PER_LINE: u64 = super::parallel::RECORD_BYTES;

/// Bytes per frame of a sample: its location id in `sample_locations`. A frame
/// is a name in quotes; quotes inside names (`x[["a"]]`) are rare enough for
/// half the quotes to count the frames.
const BYTES_PER_FRAME: u64 = std::mem::size_of::<i32>() as u64;

/// What is known of an Rprof file while it is inflated.
#[derive(Debug, Default)]
pub struct RprofContent {
    /// The first bytes, kept until the first line is complete.
    head: Vec<u8>,
    /// Whether the first line was found to be a header.
    sniffed: bool,
    bytes: u64,
    line_ends: u64,
    quotes: u64,
}

impl RprofContent {
    pub fn new() -> Self {
        RprofContent::default()
    }

    /// Looks for the header in the first bytes, `piece` being the next ones.
    fn sniff(&mut self, piece: &[u8]) -> Result<()> {
        let room = SNIFF_BYTES.saturating_sub(self.head.len());
        self.head
            .extend_from_slice(piece.get(..room.min(piece.len())).unwrap_or_default());
        // A byte order mark may be cut: a head of 1 or 2 of its bytes waits.
        if self.head.len() < 3 && b"\xef\xbb\xbf".starts_with(&self.head) {
            return Ok(());
        }
        let body = without_bom(&self.head);
        match memchr(b'\n', body) {
            Some(end) => {
                let first = body.get(..end).unwrap_or_default();
                header_line(first.strip_suffix(b"\r").unwrap_or(first))?;
                self.sniffed = true;
                self.head = Vec::new();
            }
            // A NUL byte in the first line, or a first line longer than any
            // header: refused as the parser refuses a first line that is not a
            // header.
            None if memchr(0, body).is_some() || self.head.len() >= SNIFF_BYTES => {
                header_line(body)?;
            }
            None => {}
        }
        Ok(())
    }
}

impl Content for RprofContent {
    fn take(&mut self, piece: &[u8]) -> Result<Option<u64>> {
        if !self.sniffed {
            self.sniff(piece)?;
        }
        // Once the header is known, a NUL byte anywhere is the parser's error
        // (a header holds none), found here without inflating the rest.
        if self.sniffed {
            if let Some(at) = memchr(0, piece) {
                let before =
                    memchr::memchr_iter(b'\n', piece.get(..at).unwrap_or_default()).count() as u64;
                return Err(nul_byte_at(
                    self.line_ends + before + 1,
                    self.bytes + at as u64,
                ));
            }
        }
        self.line_ends += memchr::memchr_iter(b'\n', piece).count() as u64;
        self.quotes += memchr::memchr_iter(b'"', piece).count() as u64;
        self.bytes += piece.len() as u64;
        Ok(None)
    }

    fn least_memory(&self) -> u64 {
        let len = usize::try_from(self.bytes).unwrap_or(usize::MAX);
        let lines =
            expected_lines_of(usize::try_from(self.line_ends).unwrap_or(usize::MAX), len) as u64;
        let frames = self.quotes / 2;
        let records = lines.saturating_mul(LEAST_BYTES_PER_LINE);
        let frame_column = frames.saturating_mul(BYTES_PER_FRAME);
        // A read's three phases (see `parallel`): the text with the records of
        // the samples; the records with the columns (the text freed); the
        // columns with their copy in R, of which the largest is made while
        // its column still exists (see the binding's `charge_r_copy`).
        let reading = self.bytes.saturating_add(records);
        let writing = records.saturating_add(frame_column);
        let copying = frame_column.saturating_mul(2);
        reading.max(writing).max(copying)
    }

    fn counted(&self) -> String {
        format!(
            "{} bytes of Rprof text in {} lines, with about {} frames",
            self.bytes,
            self.line_ends.saturating_add(1),
            self.quotes / 2
        )
    }

    /// The parser checks plain data itself (header, NUL bytes) and charges the
    /// budget as it reads: nothing to do before.
    fn whole(&mut self, _data: &[u8]) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests;
