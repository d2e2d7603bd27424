use super::*;

#[test]
fn each_kind_names_its_r_condition_class() {
    let kinds = [
        (ProfileError::io("x"), "io"),
        (ProfileError::format(None, "x"), "format"),
        (ProfileError::invalid("t", "c", None, "x"), "invalid"),
        (ProfileError::limit("x"), "limit"),
        (ProfileError::unsupported("x"), "unsupported"),
        (ProfileError::argument("x"), "argument"),
        (ProfileError::internal("x"), "internal"),
    ];
    for (e, kind) in kinds {
        assert_eq!(e.kind(), kind);
    }
}

#[test]
fn an_internal_error_asks_for_a_report() {
    let e = ProfileError::internal("columns do not line up");
    assert_eq!(
        e.to_string(),
        "internal error (please report): columns do not line up"
    );
}
