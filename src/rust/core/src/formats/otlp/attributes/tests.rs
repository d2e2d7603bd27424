use super::*;
use crate::resources::budget::Budget;

fn round_trip(v: Value) -> (Cells, proto::AnyValue) {
    let mut pool = StringPool::new();
    let strings: Strings<'_> = &|i, _| Ok(format!("s{i}"));
    let any = proto::AnyValue { value: Some(v) };
    let c = cells(Some(&any), strings, &mut pool, &|| "x".to_string()).unwrap();
    let back = any_value(&pool, c, &Budget::default(), "t", 0).unwrap();
    (c, back)
}

#[test]
fn every_kind_round_trips() {
    let values = vec![
        Value::StringValue(b"us".to_vec()),
        Value::IntValue(42),
        Value::IntValue(i64::MAX),
        Value::IntValue(-(1 << 60) - 1),
        Value::BoolValue(true),
        Value::DoubleValue(0.1),
        Value::DoubleValue(f64::INFINITY),
        Value::BytesValue(vec![0, 1, 255]),
        Value::ArrayValue(proto::ArrayValue {
            values: vec![
                proto::AnyValue {
                    value: Some(Value::IntValue(1)),
                },
                proto::AnyValue {
                    value: Some(Value::StringValue(b"a\"b".to_vec())),
                },
                proto::AnyValue { value: None },
            ],
        }),
        Value::KvlistValue(proto::KeyValueList {
            values: vec![proto::KeyValue {
                key: b"k".to_vec(),
                value: Some(proto::AnyValue {
                    value: Some(Value::DoubleValue(-2.5)),
                }),
                key_strindex: 0,
            }],
        }),
    ];
    for v in values {
        let (_, back) = round_trip(v.clone());
        assert_eq!(back.value, Some(v));
    }
    // A string of the dictionary reads as the string.
    let (c, back) = round_trip(Value::StringValueStrindex(3));
    assert!(c.kind.is_na());
    assert_eq!(back.value, Some(Value::StringValue(b"s3".to_vec())));
}
