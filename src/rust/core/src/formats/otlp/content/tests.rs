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
