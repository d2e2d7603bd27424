use super::*;

static TEST: Schema = Schema {
    format: "test",
    field: |message, number| match message {
        "M" => nth_name(&["a", "b"], number),
        _ => None,
    },
};

fn fields(data: &[u8]) -> Decoded<Vec<(u64, u64)>> {
    let mut f = Fields::new(data, 0, "M", &TEST);
    let mut out = Vec::new();
    while let Some(field) = f.next_field()? {
        out.push((field.number, field.wire_type));
    }
    Ok(out)
}

fn defect(data: &[u8]) -> String {
    match fields(data) {
        Err(Failure::Defect(at, what)) => format!("{at}: {what}"),
        other => panic!("not a defect: {:?}", other.map_err(|_| ())),
    }
}

#[test]
fn fields_and_defects() {
    assert_eq!(
        fields(&[0x08, 0x96, 0x01, 0x12, 0x01, 0xff, 0x19, 1, 2, 3, 4, 5, 6, 7, 8]).unwrap(),
        vec![(1, 0), (2, 2), (3, 1)]
    );
    assert_eq!(
        defect(&[0x12, 0x05, 1]),
        "1: field 2 (M.b) claims 5 bytes, but only 1 remain in its M message (truncated or corrupt data)"
    );
    assert_eq!(
        defect(&[0x0b]),
        "0: field 1 (M.a) uses the group wire type 3, which test does not have"
    );
    assert_eq!(
        defect(&[0x1f]),
        "0: field 3 of a M message has wire type 7, which does not exist"
    );
    assert_eq!(
        defect(&[0x09, 1, 2]),
        "1: the value of field 1 (M.a) is cut off"
    );
}

#[test]
fn packed_numbers() {
    let data = [0x0a, 0x03, 0x01, 0x96, 0x01, 0x11, 1, 0, 0, 0, 0, 0, 0, 0];
    let mut f = Fields::new(&data, 0, "M", &TEST);
    let packed = f.next_field().unwrap().unwrap();
    assert_eq!(packed.varint_count(), 2);
    let mut out = Vec::new();
    packed.numbers_into(&mut out, |v| v).unwrap();
    assert_eq!(out, vec![1, 150]);
    let fixed = f.next_field().unwrap().unwrap();
    let mut t = Vec::new();
    fixed.fixed64s_into(&mut t).unwrap();
    assert_eq!(t, vec![1]);
    assert!(fixed.uint64().is_err());
}
