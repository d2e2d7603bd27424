use super::*;

fn string(s: &str) -> String {
    let mut out = String::new();
    push_string(&mut out, s);
    out
}

fn typed(values: &[f64]) -> String {
    let mut out = String::new();
    push_typed_array(&mut out, values);
    out
}

#[test]
fn strings_are_escaped_for_json_inside_html() {
    assert_eq!(string("a\"b\\c"), r#""a\"b\\c""#);
    assert_eq!(
        string("</script>\n\u{1}"),
        r#""\u003c/script\u003e\n\u0001""#
    );
    assert_eq!(string("é ü 日本"), "\"é ü 日本\"");
}

#[test]
fn numbers() {
    let num = |x: f64| {
        let mut out = String::new();
        push_number(&mut out, x);
        out
    };
    assert_eq!(num(3.0), "3");
    assert_eq!(num(-12.0), "-12");
    assert_eq!(num(0.5), "0.5");
    assert_eq!(num(1e300), "1e300");
    assert_eq!(num(f64::NAN), "null");
    assert_eq!(num(f64::INFINITY), "null");
}

#[test]
fn base64_of_rfc_4648_examples() {
    let b64 = |s: &str| {
        let mut out = String::new();
        push_base64(&mut out, s.as_bytes());
        out
    };
    for (plain, coded) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("foobar", "Zm9vYmFy"),
    ] {
        assert_eq!(b64(plain), coded);
    }
}

#[test]
fn regular_steps_are_sent_as_differences() {
    let stepped = |values: &[f64]| {
        let mut out = String::new();
        push_stepped_array(&mut out, values);
        out
    };
    // 0.004 s ticks: whole steps of 1 and 3, one byte each
    let times: Vec<f64> = [0.0, 1.0, 2.0, 5.0, 6.0]
        .iter()
        .map(|k| k * 0.004)
        .collect();
    assert_eq!(
        stepped(&times),
        r#"{"start":0,"step":0.004,"steps":{"type":"u8","length":5,"base64":"AAEBAwE="}}"#
    );
    // going back (a new source) is a negative difference
    assert!(stepped(&[1.0, 2.0, 0.0]).contains(r#""steps":{"type":"i32""#));
    // not on a grid, or nothing to step: as they are
    assert!(stepped(&[0.0, 1.0, 1.5, 1.7]).starts_with(r#"{"type":"f64""#));
    assert_eq!(stepped(&[2.0, 2.0]), r#"{"const":2,"length":2}"#);
    assert_eq!(stepped(&[]), r#"{"type":"u8","length":0,"base64":""}"#);
    assert!(stepped(&[0.0, f64::NAN]).starts_with(r#"{"type":"f64""#));
}

#[test]
fn typed_arrays_take_the_narrowest_form() {
    assert_eq!(typed(&[]), r#"{"type":"u8","length":0,"base64":""}"#);
    assert_eq!(typed(&[0.0, 0.0]), r#"{"const":0,"length":2}"#);
    assert_eq!(
        typed(&[1.0, 255.0]),
        r#"{"type":"u8","length":2,"base64":"Af8="}"#
    );
    assert_eq!(
        typed(&[1.0, 256.0]),
        r#"{"type":"u16","length":2,"base64":"AQAAAQ=="}"#
    );
    assert_eq!(
        typed(&[-1.0, 2.0]),
        r#"{"type":"i32","length":2,"base64":"/////wIAAAA="}"#
    );
    assert!(typed(&[0.5, 1.0]).starts_with(r#"{"type":"f64","length":2,"#));
    assert!(typed(&[1e10, 1.0]).starts_with(r#"{"type":"f64""#));
    assert!(typed(&[f64::NAN, f64::NAN]).starts_with(r#"{"type":"f64""#));
}

#[test]
fn long_runs_of_equal_values_are_sent_as_runs() {
    // 1000 ones, a 7, 1000 ones: three runs, far fewer bytes
    let mut values = vec![1.0; 1000];
    values.push(7.0);
    values.extend(vec![1.0; 1000]);
    assert_eq!(
        typed(&values),
        r#"{"length":2001,"values":{"type":"u8","length":3,"base64":"AQcB"},"lengths":{"type":"u16","length":3,"base64":"6AMBAOgD"}}"#
    );
    // values that change often stay dense
    let alternating: Vec<f64> = (0..1000).map(|i| f64::from(i % 2)).collect();
    assert!(typed(&alternating).starts_with(r#"{"type":"u8","length":1000,"base64""#));
    // NaN runs compare by their bits
    let nans = [vec![f64::NAN; 500], vec![0.5; 500]].concat();
    assert!(typed(&nans).starts_with(r#"{"length":1000,"values":{"type":"f64","length":2,"#));
}
