use super::*;
use crate::resources::budget::Budget;

#[test]
fn base64_reads_both_alphabets() {
    assert_eq!(decode_base64(b"AQID").unwrap(), vec![1, 2, 3]);
    assert_eq!(decode_base64(b"AQI=").unwrap(), vec![1, 2]);
    assert_eq!(decode_base64(b"_-8").unwrap(), vec![0xff, 0xef]);
    assert!(decode_base64(b"A").is_none());
}

#[test]
fn messages_read_in_both_key_styles() {
    let budget = Budget::default();
    let mut dec = Decoder::new(&budget);
    let text = br#"{"resource_profiles":[{"scopeProfiles":[{"profiles":[
        {"sampleType":{"typeStrindex":1},"samples":[{"values":["3",4],
        "timestamps_unix_nano":[5]}],"profileId":"0102"}]}]}],
        "dictionary":{"stringTable":["","cpu"],"linkTable":[{"traceId":
        "0102030405060708090a0b0c0d0e0f10","spanId":"AQIDBAUGBwg="}]}}
        {"resourceProfiles":null}"#;
    let (ms, traces) = read_messages(text, &mut dec).unwrap();
    assert!(traces.draft.is_none());
    assert_eq!(ms.len(), 2);
    let p = &ms[0].resource_profiles[0].scope_profiles[0].profiles[0];
    assert_eq!(p.samples[0].values, vec![3, 4]);
    assert_eq!(p.samples[0].timestamps_unix_nano, vec![5]);
    assert_eq!(p.profile_id, vec![1, 2]);
    let d = ms[0].dictionary.as_ref().unwrap();
    assert_eq!(d.link_table[0].span_id, vec![1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(d.link_table[0].trace_id.len(), 16);
    // written and read back: the same message
    let again = write_message(&ms[0]);
    let (back, _) = read_messages(again.as_bytes(), &mut dec).unwrap();
    assert_eq!(back[0], ms[0]);
}

#[test]
fn draft_keys_are_noticed() {
    let budget = Budget::default();
    let mut dec = Decoder::new(&budget);
    let text = br#"{"resourceProfiles":[{"scopeProfiles":[{"profiles":[
        {"sample":[{"locationsStartIndex":0}]}]}]}]}"#;
    let (_, traces) = read_messages(text, &mut dec).unwrap();
    assert!(traces.draft.unwrap().0.starts_with("v1.8"));
}
