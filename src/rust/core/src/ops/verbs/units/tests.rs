use super::*;

fn check(got: (f64, String), value: f64, unit: &str) {
    assert_eq!((got.0, got.1.as_str()), (value, unit));
}

#[test]
fn units_convert_within_their_family() {
    check(scale(3.0, "kb", "kb"), 3.0, "kB");
    check(scale(2048.0, "bytes", "kb"), 2.0, "kB");
    check(scale(1.0, "MB", "kilobyte"), 1024.0, "kB");
    check(scale(1500.0, "ms", "s"), 1.5, "s");
    check(scale(2.0, "hr", "ms"), 7.2e6, "ms");
    check(scale(5.0, "us", "nanoseconds"), 5000.0, "ns");
    check(scale(1.0, "gcu", "milligcu"), 1000.0, "m*GCU");
    // negative values scale as their opposites do
    check(scale(-2048.0, "b", "kb"), -2.0, "kB");
}

#[test]
fn a_unit_of_another_family_gives_the_default_unit() {
    check(scale(2048.0, "bytes", "ms"), 2048.0, "B");
    check(scale(2048.0, "bytes", ""), 2048.0, "B");
    check(scale(3e9, "ns", "kb"), 3.0, "s");
}

#[test]
fn other_units_stay_as_they_are() {
    check(scale(7.0, "requests", ""), 7.0, "");
    check(scale(7.0, "", ""), 7.0, "");
    check(scale(7.0, "count", "count"), 7.0, "");
    check(scale(7.0, "widgets", "widgets"), 7.0, "widgets");
    check(scale(7.0, "widgets", "kb"), 7.0, "kb");
}

#[test]
fn names_are_recognised_as_go_recognises_them() {
    assert_eq!(scale(1.0, "BYTES", "B").1, "B");
    check(scale(1.0, "hrs", "hrs"), 1.0, "hrs");
    check(scale(1.0, "seconds", "sec"), 1.0, "s");
    // two letters keep their "s"; "μs" is three bytes and loses it
    assert_eq!(scale(1.0, "ms", "ms").1, "ms");
    check(scale(1.0, "\u{3bc}s", "ns"), 1.0, "ns");
    // no minutes in Go's table
    check(scale(1.0, "m", "m"), 1.0, "m");
}

#[test]
fn label_keys_without_a_unit_get_go_s_defaults() {
    assert_eq!(default_label_unit("request"), "bytes");
    assert_eq!(default_label_unit("alignment"), "bytes");
    assert_eq!(default_label_unit("bytes"), "bytes");
    assert_eq!(default_label_unit("latency"), "latency");
}
