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

#[test]
fn a_rewritten_message_keeps_the_kind_and_where() {
    let prefixed = |e: ProfileError| e.map_message(|m| format!("message 2: {m}"));
    let e = prefixed(ProfileError::invalid("samples", "depth", Some(3), "is NA"));
    assert_eq!(
        e,
        ProfileError::invalid("samples", "depth", Some(3), "message 2: is NA")
    );
    let e = prefixed(ProfileError::format(Some("byte offset 7".into()), "cut"));
    assert_eq!(e.to_string(), "byte offset 7: message 2: cut");
    let e = prefixed(ProfileError::internal("x"));
    assert_eq!(
        e.to_string(),
        "internal error (please report): message 2: x"
    );
    for e in [
        ProfileError::io("x"),
        ProfileError::limit("x"),
        ProfileError::unsupported("x"),
        ProfileError::argument("x"),
    ] {
        let kind = e.kind();
        let e = prefixed(e);
        assert_eq!(
            (e.kind(), e.to_string()),
            (kind, "message 2: x".to_string())
        );
    }
}
