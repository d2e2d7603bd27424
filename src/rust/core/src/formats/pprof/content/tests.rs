use super::*;
use crate::formats::pprof::{decode::decode, proto};
use crate::testing::{self, cuts, damaged_file, pieces, pprof_messages};
use proptest::prelude::*;

fn content() -> PprofContent {
    PprofContent::new(&Limits::default())
}

/// What a content shown `pieces` says: its error, where it stopped, its counts.
fn streamed(pieces: &[&[u8]]) -> String {
    let mut c = content();
    let mut stop = None;
    for piece in pieces {
        match c.take(piece) {
            Err(e) => return format!("error {e:?}"),
            Ok(s) => stop = stop.or(s),
        }
    }
    format!(
        "stop {stop:?}, {} {} {} {:?} {:?} {:?}",
        c.least_memory(),
        c.decode_memory(),
        c.counted(),
        c.occurrences,
        c.content_bytes,
        c.varint_ends
    )
}

fn vec_bytes<T>(v: &Vec<T>) -> u64 {
    (v.capacity() * std::mem::size_of::<T>()) as u64
}

/// The memory of a decoded message: its vectors' capacities.
fn decoded_bytes(m: &proto::Profile) -> u64 {
    let samples: u64 = m
        .sample
        .iter()
        .map(|s| vec_bytes(&s.location_id) + vec_bytes(&s.value) + vec_bytes(&s.label))
        .sum();
    let strings: u64 = m.string_table.iter().map(vec_bytes).sum();
    let lines: u64 = m.location.iter().map(|l| vec_bytes(&l.line)).sum();
    vec_bytes(&m.sample_type)
        + vec_bytes(&m.sample)
        + vec_bytes(&m.mapping)
        + vec_bytes(&m.location)
        + vec_bytes(&m.function)
        + vec_bytes(&m.string_table)
        + vec_bytes(&m.comment)
        + samples
        + strings
        + lines
}

proptest! {
    #![proptest_config(testing::config(2000))]

    /// The verdict, the counts and where inflation may stop do not depend on
    /// how the data are cut.
    #[test]
    fn pieces_do_not_matter(data in damaged_file(pprof_messages()), cuts in cuts()) {
        prop_assert_eq!(streamed(&pieces(&data, &cuts)), streamed(&[&data]));
    }

    /// A message that decodes: the elements counted are its elements, and
    /// decoding took no more memory than counted.
    #[test]
    fn decoded_messages_take_what_was_counted(data in damaged_file(pprof_messages())) {
        let mut c = content();
        if c.whole(&data).is_ok() {
            if let Ok(m) = decode(&data) {
                prop_assert_eq!(c.occurrences[STRING_TABLE], m.string_table.len() as u64);
                prop_assert_eq!(c.occurrences[SAMPLE], m.sample.len() as u64);
                prop_assert_eq!(c.occurrences[LOCATION], m.location.len() as u64);
                prop_assert!(decoded_bytes(&m) <= c.decode_memory(), "{} > {}", decoded_bytes(&m), c.decode_memory());
                prop_assert!(c.least_memory() <= c.offset + c.decode_memory());
            }
        }
    }
}

#[test]
fn real_messages_are_counted_as_they_decode() {
    for data in pprof_messages() {
        let mut c = content();
        c.whole(data).unwrap();
        let m = decode(data).unwrap();
        assert_eq!(c.occurrences[SAMPLE], m.sample.len() as u64);
        assert_eq!(c.occurrences[FUNCTION], m.function.len() as u64);
        assert_eq!(c.occurrences[MAPPING], m.mapping.len() as u64);
        assert_eq!(
            c.content_bytes[STRING_TABLE],
            m.string_table.iter().map(|s| s.len() as u64).sum::<u64>()
        );
        assert!(decoded_bytes(&m) <= c.decode_memory());
    }
}

/// Unknown fields (field 0 here) before the first field of `Profile`: read
/// as Go reads them within the first 64 KiB, refused past that.
#[test]
fn a_message_must_show_a_profile_field_early() {
    let real = &pprof_messages()[0];
    for (zeros, refused) in [(SNIFF_BYTES - 2, false), (SNIFF_BYTES, true)] {
        let mut data = vec![0u8; zeros];
        data.extend_from_slice(real);
        let whole = content().whole(&data);
        assert_eq!(whole.is_err(), refused, "{zeros} zero bytes first");
        assert_eq!(
            streamed(&[&data[..100], &data[100..]]).starts_with("error"),
            refused
        );
    }
    let e = content().whole(&[0u8; SNIFF_BYTES]).unwrap_err();
    assert!(
        e.to_string()
            .contains("not a pprof protobuf file: it starts with a zero byte"),
        "{e}"
    );
}

#[test]
fn a_field_claiming_more_than_the_size_limit_is_refused_while_streaming() {
    // The string table (field 6) claiming 2^40 bytes, after a valid start.
    let mut data = pprof_messages()[0].clone();
    let at = data.len() as u64;
    data.extend_from_slice(&[0x32, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
    let e = content().take(&data).unwrap_err();
    assert_eq!(e.kind(), "limit");
    assert!(
        e.to_string().contains(&format!(
            "byte offset {at}: field 6 claims 1099511627776 bytes"
        )),
        "{e}"
    );
    // All of the data known: the decoder says it runs past their end.
    content().whole(&data).unwrap();
    // A claim within the limits counts for the memory a read needs.
    let mut c = content();
    c.take(&[0x32, 0x80, 0x80, 0x80, 0x80, 0x08, b'a']).unwrap();
    assert!(c.least_memory() > 2 << 30);
}

#[test]
fn inflation_may_stop_soon_after_a_defect() {
    let mut data = pprof_messages()[0].clone();
    let at = data.len() as u64;
    data.push(0x0f); // field 1, wire type 7: no such type
    data.extend(vec![b'x'; 1000]);
    assert_eq!(
        content().take(&data).unwrap(),
        Some(at + DEFECT_CONTEXT_BYTES)
    );
    // A varint of 11 bytes.
    let mut data = pprof_messages()[0].clone();
    data.push(0x08);
    data.extend([0xff; 11]);
    assert_eq!(
        content().take(&data).unwrap(),
        Some(at + DEFECT_CONTEXT_BYTES)
    );
}
