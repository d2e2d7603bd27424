//! An Rprof file as it is inflated (see [`crate::input::Content`]): refused
//! from its first line when that is not a header, at its first NUL byte, and
//! as soon as the lines and frames counted so far need more memory than the
//! budget allows, before the rest is inflated.

use super::{expected_lines_of, header_line, nul_byte_at, without_bom};
use crate::error::Result;
use crate::input::{Content, SNIFF_BYTES};
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
mod tests {
    use super::*;
    use crate::budget::Budget;
    use crate::input::decompress_owned;
    use crate::limits::Limits;
    use crate::testing::{self, cuts, damaged_file, gzip, pieces, rprof_files};
    use proptest::prelude::*;

    /// What a content made of `data` shown in `pieces`: its error, or its counts.
    fn streamed(pieces: &[&[u8]]) -> String {
        let mut content = RprofContent::new();
        for piece in pieces {
            if let Err(e) = content.take(piece) {
                return format!("error {e:?}");
            }
        }
        format!(
            "{} bytes need {}: {}",
            content.bytes,
            content.least_memory(),
            content.counted()
        )
    }

    proptest! {
        #![proptest_config(testing::config(2000))]

        /// The verdict and the counts do not depend on how the data are cut.
        #[test]
        fn pieces_do_not_matter(data in damaged_file(rprof_files()), cuts in cuts()) {
            prop_assert_eq!(streamed(&pieces(&data, &cuts)), streamed(&[&data]));
        }

        #[test]
        fn pieces_of_random_bytes_do_not_matter(data in prop::collection::vec(any::<u8>(), 0..200), cuts in cuts()) {
            let data: Vec<u8> = data.into_iter().map(|b| if b > 200 { b'\n' } else { b }).collect();
            prop_assert_eq!(streamed(&pieces(&data, &cuts)), streamed(&[&data]));
        }

        /// A refusal while inflating is the parser's own error for the data.
        #[test]
        fn a_refusal_is_the_parsers(data in damaged_file(rprof_files()), cuts in cuts()) {
            let mut content = RprofContent::new();
            let refused = pieces(&data, &cuts).iter().find_map(|piece| content.take(piece).err());
            if let Some(e) = refused {
                prop_assert_eq!(crate::testing::read_rprof(&data, None).err(), Some(e));
            }
        }
    }

    #[test]
    fn the_header_is_recognised_however_the_first_bytes_come() {
        let text = b"\xef\xbb\xbfmemory profiling: sample.interval=20000\r\n\"f\" \n";
        for cut in 0..text.len() {
            let (a, b) = text.split_at(cut);
            assert!(
                streamed(&[a, b]).starts_with("49 bytes"),
                "cut at {cut}: {}",
                streamed(&[a, b])
            );
        }
        for bad in [
            &b"sample.interval=x\n"[..],
            b"\"f\" \n",
            b"sample.interval=20000\x00\n",
        ] {
            assert!(
                streamed(&[bad]).contains("not an Rprof file"),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        // Undecided until the first line ends, or cannot be a header any more.
        let mut content = RprofContent::new();
        content.take(b"sample.interval=200").unwrap();
        let long = vec![b'x'; SNIFF_BYTES];
        assert!(content.take(&long).is_err());
    }

    #[test]
    fn a_nul_byte_is_found_with_its_line_and_offset() {
        let text = b"sample.interval=20000\n\"f\" \n\"g\x00\" \n";
        let from_parser = crate::testing::read_rprof(text, None).unwrap_err();
        assert_eq!(from_parser.to_string(), "line 3, byte offset 29: a NUL byte: an Rprof file is text, and this looks like binary data");
        for cut in 0..text.len() {
            let (a, b) = text.split_at(cut);
            assert_eq!(
                streamed(&[a, b]),
                format!("error {from_parser:?}"),
                "cut at {cut}"
            );
        }
    }

    /// The memory counted while inflating is at most what the read is then
    /// charged at its peak (a file read in one pass, and one read in chunks),
    /// with the copy of its largest column that the binding charges when it
    /// makes the R vectors.
    #[test]
    fn what_is_counted_is_at_most_what_a_read_charges() {
        let large: Vec<u8> = {
            let file = &rprof_files()[0];
            let body_at = file.iter().position(|&b| b == b'\n').unwrap() + 1;
            let mut large = file.clone();
            while large.len() < 3 << 20 {
                large.extend_from_slice(&file[body_at..]);
            }
            large
        };
        for text in rprof_files().iter().chain([&large]) {
            let budget = Budget::new(Limits::default());
            let mut content = RprofContent::new();
            let data = decompress_owned(gzip(text), &budget, &mut content).unwrap();
            let read = crate::rprof::parse(
                std::borrow::Cow::Owned(data),
                &crate::rprof::ParseOptions::new(&budget),
            )
            .unwrap();
            let p = &read.parsed.profile;
            let largest =
                (p.sample_locations.location_id.len() * 4).max(p.sample_values.value.len() * 8);
            budget.charge(largest as u64, String::new).unwrap();
            assert!(
                content.least_memory() <= budget.peak(),
                "{} > {}",
                content.least_memory(),
                budget.peak()
            );
        }
    }
}
