use super::*;

fn content() -> OtlpContent {
    OtlpContent::new(&Limits::default())
}

#[test]
fn recognises_json_and_protobuf() {
    let mut c = content();
    c.whole(b"  \n{\"resourceProfiles\":[]}").unwrap();
    assert_eq!(c.kind, Kind::Json);
    let mut c = content();
    c.whole(&[0x0a, 0x00, 0x12, 0x00]).unwrap();
    assert_eq!(c.kind, Kind::Protobuf);
    assert_eq!(c.first_known, Some(0));
}

#[test]
fn refuses_data_without_a_profiles_field_early() {
    let e = content().take(&vec![0u8; SNIFF_BYTES]).unwrap_err();
    assert!(e.to_string().contains("not an OTLP"), "{e}");
    // A claim beyond the size limit while streaming.
    let mut data = vec![0x0a];
    data.extend([0x80, 0x80, 0x80, 0x80, 0x80, 0x20]);
    let e = content().take(&data).unwrap_err();
    assert_eq!(e.kind(), "limit");
}

/// Varint bytes of `x`.
fn varint(mut x: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while x >= 0x80 {
        out.push((x as u8) | 0x80);
        x >>= 7;
    }
    out.push(x as u8);
    out
}

/// The head of a message whose fields `path` (outermost first, each
/// length-delimited) nest one in the other, the innermost claiming `n` bytes.
fn nested_claims(path: &[u64], n: u64) -> Vec<u8> {
    let mut head = Vec::new();
    let mut len = n;
    for &field in path.iter().rev() {
        let mut claim = varint(field << 3 | 2);
        claim.extend(varint(len));
        len += claim.len() as u64;
        claim.extend(head);
        head = claim;
    }
    head
}

/// Streams `head` then `unit` repeated up to `total` bytes through a content,
/// in 1 MiB pieces; the content then.
fn streamed(head: &[u8], unit: &[u8], total: usize) -> OtlpContent {
    let mut c = content();
    c.take(head).unwrap();
    let block: Vec<u8> = unit.iter().copied().cycle().take(1 << 20).collect();
    let mut sent = 0;
    while sent < total {
        c.take(&block).unwrap();
        sent += block.len();
    }
    c
}

#[test]
fn packed_numbers_count_as_they_decode() {
    // ProfilesData > ResourceProfiles > ScopeProfiles > Profile > Sample,
    // whose values (field 4) are 2 GiB of one-byte varints: each becomes an
    // i64, so 8 MiB of them take 64 MiB decoded.
    let head = nested_claims(&[1, 2, 2, 2, 4], 1 << 31);
    let c = streamed(&head, &[1], 8 << 20);
    assert_eq!(c.numbers, 8 << 20);
    assert_eq!(c.samples, 1);
    let elements = size::<proto::ResourceProfiles>()
        + size::<proto::ScopeProfiles>()
        + size::<proto::Profile>()
        + size::<proto::Sample>();
    assert_eq!(c.decoded, (8 << 23) + elements);
    assert_eq!(c.least_memory(), c.offset + c.decoded);
    // The dictionary's stacks: i32 each.
    let head = nested_claims(&[2, 7, 1], 1 << 31);
    let c = streamed(&head, &[1], 4 << 20);
    assert_eq!(c.decoded, (4 << 22) + size::<proto::Stack>());
    // Empty samples: one Sample each, two bytes apiece.
    let head = nested_claims(&[1, 2, 2], 1 << 31);
    let c = streamed(&head, &[0x12, 0x00], 2 << 20);
    assert_eq!(c.samples, 1 << 20);
}

#[test]
fn data_all_there_are_walked_at_the_top_only() {
    // Plain data are in memory already: the decoder charges what they hold.
    let mut data = nested_claims(&[1, 2, 2, 2, 4], 1000);
    data.extend([1u8; 1000]);
    let mut c = content();
    c.whole(&data).unwrap();
    assert_eq!(c.decoded, 0);
    assert_eq!(c.first_known, Some(0));
}

#[test]
fn a_message_past_its_parents_end_stops_the_count() {
    // A Profile claiming more than its ScopeProfiles holds.
    let mut data = varint(1 << 3 | 2);
    data.extend(varint(10));
    data.extend(varint(2 << 3 | 2));
    data.extend(varint(1000));
    data.extend([1u8; 100]);
    let mut c = content();
    c.take(&data).unwrap();
    assert_eq!(c.at, At::Stopped);
    assert_eq!(c.frames.len(), 1);
}
