use super::*;

#[test]
fn valid_text_is_borrowed() {
    assert!(matches!(
        utf8_escaped("fib ü".as_bytes()),
        Cow::Borrowed("fib ü")
    ));
}

#[test]
fn invalid_bytes_and_nul_are_escaped() {
    assert_eq!(utf8_escaped(b"a\xffb\0c"), "a<ff>b<00>c");
    // A truncated multi-byte sequence at the end.
    assert_eq!(utf8_escaped(b"x\xc3"), "x<c3>");
    assert_eq!(utf8_escaped(b"\xe2\x82"), "<e2><82>");
}
