use super::*;
use crate::model::validate::validate;
use crate::testing::{
    row, s,
    Val::{D, I},
};

fn range(unit: &str, low: f64, high: f64) -> LabelTest {
    LabelTest::Range(NumericRange {
        unit: unit.to_string(),
        low,
        high,
    })
}

fn patterns(p: &[&str]) -> LabelTest {
    LabelTest::Patterns(p.iter().map(|x| x.to_string()).collect())
}

fn parsed(text: &str) -> (Option<String>, LabelTest) {
    let f = LabelFilter::parse(text).unwrap();
    (f.key, f.test)
}

#[test]
fn filters_are_read_as_go_reads_them() {
    let inf = f64::INFINITY;
    let key = |k: &str| Some(k.to_string());
    // Go's examples (parseTagFilterRange)
    assert_eq!(parsed("32kb"), (None, range("kB", 32.0, 32.0)));
    assert_eq!(parsed(":64kb"), (None, range("kB", -inf, 64.0)));
    assert_eq!(parsed("4mb:"), (None, range("MB", 4.0, inf)));
    assert_eq!(
        parsed("12kb:64mb"),
        (None, range("kB", 12.0, 64.0 * 1024.0))
    );
    assert_eq!(
        parsed("bytes=1kb:1mb"),
        (key("bytes"), range("kB", 1.0, 1024.0))
    );
    assert_eq!(
        parsed("ms=-5ms:+2s"),
        (key("ms"), range("ms", -5.0, 2000.0))
    );
    // numbers without units; a key that is no unit
    assert_eq!(parsed("id=1"), (key("id"), range("", 1.0, 1.0)));
    assert_eq!(parsed("n=3:2count"), (key("n"), range("", 3.0, 2.0)));
    // units of different kinds, or text around the numbers: regular expressions
    assert_eq!(parsed("1kb:1s"), (None, patterns(&["1kb:1s"])));
    assert_eq!(parsed("id=^1$"), (key("id"), patterns(&["^1$"])));
    assert_eq!(parsed("v1.2"), (None, patterns(&["v1.2"])));
    assert_eq!(
        parsed("worker=fib,hash"),
        (key("worker"), patterns(&["fib", "hash"]))
    );
    assert_eq!(parsed("worker:fib"), (None, patterns(&["worker:fib"])));
    // only the first "=" separates the key; an empty key is none
    assert_eq!(parsed("k=a=b"), (key("k"), patterns(&["a=b"])));
    assert_eq!(parsed("=fib"), (None, patterns(&["fib"])));
    assert_eq!(parsed("worker="), (key("worker"), patterns(&[""])));
}

#[test]
fn a_range_beyond_64_bits_is_an_argument_error() {
    let err = LabelFilter::parse("bytes=99999999999999999999kb").unwrap_err();
    assert_eq!(err.kind(), "argument");
    assert!(err.to_string().contains("99999999999999999999"), "{err}");
    // as a regular expression the number is never read
    assert_eq!(
        parsed("x99999999999999999999y").1,
        patterns(&["x99999999999999999999y"])
    );
}

/// Samples 1..=5: string labels worker (fib, fib, hash, -, text) and phase;
/// numeric labels `bytes` (no unit), `latency` (in ms on sample 3 only,
/// so in ms for all), `request` (no unit: bytes) and `count` (no unit).
fn labelled() -> Profile {
    let mut p = Profile::new();
    row!(&mut p, sources, "source_id" => I(1), "source_type" => s("pprof"));
    for sample in 1..=5 {
        row!(&mut p, samples, "sample_id" => I(sample), "source_id" => I(1));
        row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s("cpu"), "unit" => s("ns"),
            "value" => D(sample as f64));
    }
    let text = |p: &mut Profile, sample: i32, key: &str, value: &str| {
        row!(p, sample_labels, "sample_id" => I(sample), "key" => s(key), "value" => s(value));
    };
    let num = |p: &mut Profile, sample: i32, key: &str, num: f64, unit: Option<&str>| match unit {
        Some(u) => {
            row!(p, sample_labels, "sample_id" => I(sample), "key" => s(key), "num" => D(num),
            "num_unit" => s(u))
        }
        None => {
            row!(p, sample_labels, "sample_id" => I(sample), "key" => s(key), "num" => D(num))
        }
    };
    for (sample, worker) in [(1, "fib"), (2, "fib"), (3, "hash"), (5, "text")] {
        text(&mut p, sample, "worker", worker);
    }
    text(&mut p, 1, "phase", "compute");
    text(&mut p, 3, "phase", "compute");
    num(&mut p, 1, "bytes", 512.0, None);
    num(&mut p, 2, "bytes", 4096.0, None);
    num(&mut p, 2, "latency", 2.0, None);
    num(&mut p, 3, "latency", 1500.0, Some("ms"));
    num(&mut p, 4, "request", 2048.0, None);
    num(&mut p, 5, "count", 7.0, None);
    validate(&p).unwrap();
    p
}

/// The samples kept by filters given as text, with regular expressions
/// matched as plain substrings here (R matches them in the package).
fn kept(p: &Profile, focus: Option<&str>, ignore: Option<&str>) -> (Vec<i32>, LabelMatches) {
    let pairs = LabelPairs::of(p).unwrap();
    let condition = |text: &str| {
        let filter = LabelFilter::parse(text).unwrap();
        let pair_text = |i: usize| {
            (
                pairs.texts.str(pairs.key[i]),
                pairs.texts.str(pairs.value[i]),
            )
        };
        let clauses: Vec<Vec<bool>> = match (&filter.test, &filter.key) {
            (LabelTest::Range(_), _) => Vec::new(),
            (LabelTest::Patterns(res), Some(key)) => vec![(0..pairs.len())
                .map(|i| {
                    pair_text(i).0 == key
                        && res.iter().any(|re| pair_text(i).1.contains(re.as_str()))
                })
                .collect()],
            (LabelTest::Patterns(res), None) => res
                .iter()
                .map(|re| {
                    (0..pairs.len())
                        .map(|i| {
                            format!("{}:{}", pair_text(i).0, pair_text(i).1).contains(re.as_str())
                        })
                        .collect()
                })
                .collect(),
        };
        LabelCondition::new(filter, clauses).unwrap()
    };
    let focus = focus.map(condition);
    let ignore = ignore.map(condition);
    let mut q = p.clone();
    let matches = filter_by_labels(&mut q, focus.as_ref(), ignore.as_ref()).unwrap();
    validate(&q).unwrap();
    (q.samples.sample_id.clone(), matches)
}

#[test]
fn string_labels_are_matched_by_key_or_as_key_colon_value() {
    let p = labelled();
    let (ids, m) = kept(&p, Some("worker=fib"), None);
    assert_eq!((ids, m.focus, m.ignore), (vec![1, 2], true, false));
    assert_eq!(kept(&p, Some("worker=fib,hash"), None).0, vec![1, 2, 3]);
    assert_eq!(kept(&p, None, Some("worker=fib,hash")).0, vec![4, 5]);
    // without a key, every expression must match a label of the sample
    assert_eq!(kept(&p, Some("worker:fib"), None).0, vec![1, 2]);
    assert_eq!(kept(&p, Some("compute,fib"), None).0, vec![1]);
    assert_eq!(kept(&p, Some("compute"), Some("hash")).0, vec![1]);
    // a key's empty expression: the samples that have the key
    assert_eq!(kept(&p, Some("phase="), None).0, vec![1, 3]);
    let (ids, m) = kept(&p, Some("worker=nothing"), Some("nothing"));
    assert_eq!((ids, m.focus, m.ignore), (Vec::<i32>::new(), false, false));
}

#[test]
fn numeric_labels_are_compared_in_their_key_s_unit() {
    let p = labelled();
    // bytes: no unit, the key names it
    assert_eq!(kept(&p, Some("bytes=1kb:"), None).0, vec![2]);
    assert_eq!(kept(&p, Some("bytes=512b"), None).0, vec![1]);
    assert_eq!(kept(&p, Some("bytes=:4kb"), None).0, vec![1, 2]);
    // a bound without a unit is in no unit, and bytes are in one (as in Go)
    assert_eq!(kept(&p, Some("bytes=512"), None).0, Vec::<i32>::new());
    // latency: in ms on sample 3, so in ms on sample 2 too
    assert_eq!(kept(&p, Some("latency=1s:2s"), None).0, vec![3]);
    assert_eq!(kept(&p, Some("latency=:5ms"), None).0, vec![2]);
    // request: bytes by Go's default
    assert_eq!(kept(&p, Some("request=2kb"), None).0, vec![4]);
    // count: no unit
    assert_eq!(kept(&p, Some("count=7"), None).0, vec![5]);
    assert_eq!(kept(&p, Some("count=5:9"), None).0, vec![5]);
    // without a key: any numeric label (in its own key's unit)
    assert_eq!(kept(&p, Some("2kb:4kb"), None).0, vec![2, 4]);
    assert_eq!(kept(&p, None, Some("2kb:4kb")).0, vec![1, 3, 5]);
    // a key no label has
    assert!(!kept(&p, Some("nothing=1:2"), None).1.focus);
}

#[test]
fn conditions_check_their_matches() {
    let p = labelled();
    let pairs = LabelPairs::of(&p).unwrap();
    // worker: fib, hash, text; phase: compute
    assert_eq!(pairs.len(), 4);
    let err =
        LabelCondition::new(LabelFilter::parse("a,b").unwrap(), vec![vec![true; 4]]).unwrap_err();
    assert_eq!(err.kind(), "argument");
    let short =
        LabelCondition::new(LabelFilter::parse("k=a").unwrap(), vec![vec![true; 3]]).unwrap();
    let err = filter_by_labels(&mut p.clone(), Some(&short), None).unwrap_err();
    assert!(
        err.to_string().contains("3 label match flags for 4"),
        "{err}"
    );
}
