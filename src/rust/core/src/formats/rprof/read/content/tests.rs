use super::*;
use crate::io::input::decompress_owned;
use crate::resources::budget::Budget;
use crate::resources::limits::Limits;
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
        let read = crate::formats::rprof::parse(
            std::borrow::Cow::Owned(data),
            &crate::formats::rprof::ParseOptions::new(&budget),
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
