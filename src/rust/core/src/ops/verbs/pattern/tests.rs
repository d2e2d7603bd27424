use super::*;

fn matches(pattern: &str, text: &str) -> bool {
    Pattern::new(pattern).unwrap().is_match(text)
}

fn refusal(pattern: &str) -> String {
    match Pattern::new(pattern) {
        Err(ProfileError::Argument { message }) => message,
        other => panic!("{pattern}: {other:?}"),
    }
}

#[test]
fn perl_classes_and_word_boundaries_are_ascii_as_in_go() {
    // U+0663 ARABIC-INDIC DIGIT THREE, é, U+2003 EM SPACE
    assert!(!matches(r"work\d", "work\u{663}"));
    assert!(matches(r"work\d", "work3"));
    assert!(matches(r"work\D", "work\u{663}"));
    assert!(!matches(r"^caf\w$", "café"));
    assert!(matches(r"^caf\W$", "café"));
    assert!(matches(r"^caf[\w\x{e9}]$", "café"));
    assert!(!matches(r"^caf[\w]$", "café"));
    assert!(matches(r"^caf[^\w]$", "café"));
    assert!(!matches(r"a\sb", "a\u{2003}b"));
    assert!(!matches(r"a\sb", "a\u{b}b"), "no vertical tab in Go's \\s");
    assert!(matches(r"a\sb", "a\tb"));
    assert!(matches(r"a[\S]b", "a\u{2003}b"));
    // é is no word character in Go: a boundary between it and a letter
    assert!(matches(r"caf\b", "cafébabe"));
    assert!(!matches(r"caf\B", "cafébabe"));
    assert!(matches(r"\bé", "café"));
}

#[test]
fn dots_case_and_unicode_classes_are_unicode_as_in_go() {
    assert!(matches(r"^caf.$", "café"));
    assert!(!matches(r"^caf..$", "café"));
    assert!(matches(r"(?i)CAFÉ", "café"));
    assert!(matches(r"(?i)k", "\u{212A}"), "the Kelvin sign folds to k");
    assert!(matches(r"^\pL+$", "größe"));
    assert!(matches(r"[[:alpha:]]", "x"));
    assert!(!matches(r"^[[:alpha:]]$", "é"));
}

#[test]
fn what_go_reads_as_literals_is_literal() {
    assert!(matches(r"a{,3}", "a{,3}"));
    assert!(!matches(r"a{,3}", "aaa"));
    assert!(matches(r"f{x}", "f{x}"));
    assert!(matches(r"a{", "a{"));
    assert!(matches(r"a{2}", "aa"));
    assert!(matches(r"a{2,}b", "aaab"));
    assert!(matches(r"^a{1,2}$", "aa"));
    assert!(matches(r"\Qa.b(c\E+", "a.b(cc"));
    assert!(!matches(r"\Qa.b\E", "axb"));
    assert!(matches(r"x\Q[y", "x[y"));
    assert!(matches(r"^[a&&b]+$", "a&&b"));
    assert!(matches(r"^[a~~b]+$", "~"));
    assert!(matches(r"^[[a]+$", "[a["));
    assert!(matches(r"^[[:digit:]x]+$", "1x2"));
    assert!(matches(r"^[]a]+$", "]a"));
    assert!(matches(r"^[^]a]$", "b"));
    assert!(matches(r"^[!--]$", ","), "a range from ! to -");
    assert!(matches(r"\\Q", "\\Q"));
}

#[test]
fn what_go_refuses_is_refused_naming_the_construct() {
    assert!(refusal(r"(a)\1").contains("back-reference"));
    assert!(refusal(r"a(?=b)").contains("look-around"));
    assert!(refusal(r"(?<!a)b").contains("look-around"));
    assert!(refusal(r"(?>a)").contains("atomic group"));
    assert!(refusal(r"a**").contains("repetition operator"));
    assert!(refusal(r"a*+").contains("possessive"));
    assert!(refusal(r"a{1001}").contains("1000"));
    assert!(matches(r"^a{1000}$", &"a".repeat(1000)));
    assert!(refusal(r"(?x)a b").contains("flag `x`"));
    assert!(refusal(r"(?u:a)").contains("flag `u`"));
    assert!(refusal(r"\<a").contains("word boundary"));
    assert!(refusal(r"\u0041").contains("\\u"));
    assert!(refusal(r"a(").contains("is not valid"));
    assert!(refusal(r"[a").contains("is not valid"));
    // every message names the pattern
    assert!(refusal(r"(a)\1").contains(r"`(a)\1`"));
}

#[test]
fn nested_repetitions_match_long_texts() {
    // What takes exponential time with backtracking (PCRE); its time here
    // is measured by bench/patterns.R.
    let text = format!("{}b", "a".repeat(100_000));
    assert!(!Pattern::new(r"(a+)+$").unwrap().is_match(&text));
    assert!(Pattern::new(r"(a+)+b$").unwrap().is_match(&text));
}

#[test]
fn texts_are_matched_once_each_and_na_never() {
    let mut pool = StringPool::new();
    let a = pool.intern("main.f");
    let b = pool.intern("g");
    let found = matching_texts(&pool, &Pattern::new("^").unwrap()).unwrap();
    assert_eq!(found, vec![false, true, true]);
    let found = matching_texts(&pool, &Pattern::new(r"\.").unwrap()).unwrap();
    assert_eq!((found[a.0 as usize], found[b.0 as usize]), (true, false));
}
