use super::*;

#[test]
fn runs_of_sample_ids() {
    let r = find_runs(&[1, 1, 1, 2, 3, 3]).unwrap();
    assert_eq!(r.values, None);
    assert_eq!(r.ends, Some(vec![3, 4, 6]));
    assert_eq!((r.n_runs, r.length), (3, 6));
    let equal = find_runs(&[4, 4, 7, 7, 9, 9]).unwrap();
    assert_eq!(equal.values, Some(vec![4, 7, 9]));
    assert_eq!((equal.ends.clone(), equal.each), (None, 2));
    let one_to_n = find_runs(&[1, 2, 3]).unwrap();
    assert_eq!(
        (one_to_n.values, one_to_n.ends, one_to_n.each),
        (None, None, 1)
    );
    // sample 2 has no rows: an empty run
    let gap = find_runs(&[1, 1, 1, 3, 3, 4, 4, 4]).unwrap();
    assert_eq!(
        (gap.values, gap.ends, gap.n_runs),
        (None, Some(vec![3, 3, 5, 8]), 4)
    );
}

#[test]
fn runs_not_worth_keeping() {
    assert_eq!(find_runs(&[5, 6, 7, 8]), None); // one value per row, not 1..n
    assert_eq!(find_runs(&[1, 1, 2, 3, 4, 5]), None); // ends for nearly every row
    assert_eq!(find_runs(&[1]), None);
    assert_eq!(find_runs(&[]), None);
}

#[test]
fn runs_from_lengths_are_the_runs_found_in_the_column() {
    let column = |lens: &[usize]| -> Vec<i32> {
        lens.iter()
            .enumerate()
            .flat_map(|(k, &n)| std::iter::repeat_n(k as i32 + 1, n))
            .collect()
    };
    for lens in [
        &[3, 1, 2][..],
        &[2, 2, 2],
        &[1, 1, 1],
        &[3, 0, 2, 3],
        &[6],
        &[1, 2, 0],
    ] {
        let from_lengths = runs_of_lengths(lens.iter().copied());
        let found = find_runs(&column(lens));
        match (&from_lengths, &found) {
            // Trailing empty runs: the column cannot show them, the lengths can.
            (Some(a), Some(b)) => {
                assert_eq!(
                    (a.length, a.each, a.values.is_none()),
                    (b.length, b.each, b.values.is_none()),
                    "{lens:?}"
                );
                assert_eq!(
                    a.bounds().filter(|(s, e)| s < e).collect::<Vec<_>>(),
                    b.bounds().filter(|(s, e)| s < e).collect::<Vec<_>>()
                );
            }
            _ => assert_eq!(from_lengths, found, "{lens:?}"),
        }
    }
    assert_eq!(runs_of_lengths([1usize, 1, 2, 1, 1].into_iter()), None); // ends for most rows
    assert_eq!(runs_of_lengths(std::iter::empty()), None);
    assert_eq!(runs_of_lengths([0usize, 0].into_iter()), None);
}

#[test]
fn steps_along_runs() {
    let runs = find_runs(&[1, 1, 1, 2, 2, 3]).unwrap();
    let time = [0.0, 0.02, 0.04, 0.0, 0.005, 0.0];
    assert_eq!(
        steps_within(&time, &runs, 1e6),
        Some(vec![20000.0, 5000.0, 0.0])
    );
    // R's (i - 1) * 4000 / 1e6 for a long run: the same doubles.
    let long = find_runs(&[1; 1000]).unwrap();
    let time: Vec<f64> = (0..1000).map(|k| f64::from(k) * 4000.0 / 1e6).collect();
    assert_eq!(steps_within(&time, &long, 1e6), Some(vec![4000.0]));
    assert_eq!(time[999], run_step_value(999, 4000.0, 1e6));
    // not steps: NA, a bend, a start other than 0, a negative step, a length
    assert_eq!(
        steps_within(&[0.0, 0.02, f64::NAN, 0.0, 0.005, 0.0], &runs, 1e6),
        None
    );
    assert_eq!(
        steps_within(&[0.0, 0.02, 0.05, 0.0, 0.005, 0.0], &runs, 1e6),
        None
    );
    assert_eq!(
        steps_within(&[0.01, 0.02, 0.03, 0.0, 0.005, 0.0], &runs, 1e6),
        None
    );
    assert_eq!(
        steps_within(&[0.0, -0.02, -0.04, 0.0, 0.005, 0.0], &runs, 1e6),
        None
    );
    assert_eq!(steps_within(&[0.0, 0.02, 0.04], &runs, 1e6), None);
    // an empty run (a source without samples) has no rows to check
    let gap = find_runs(&[1, 1, 3, 3, 3, 4, 4, 4]).unwrap();
    let time = [0.0, 1.0, 0.0, 2.0, 4.0, 0.0, 3.0, 6.0];
    assert_eq!(
        steps_within(&time, &gap, 1.0),
        Some(vec![1.0, 0.0, 2.0, 3.0])
    );
}

#[test]
fn depths_and_cycles() {
    let r = find_runs(&[1, 1, 1, 2, 3, 3]).unwrap();
    assert!(counts_within(&[1, 2, 3, 1, 1, 2], &r));
    assert!(!counts_within(&[1, 2, 3, 1, 2, 1], &r));
    assert!(!counts_within(&[1, 2, 3, 1, 1], &r));
    let gap = find_runs(&[1, 1, 3, 3, 3, 4, 4, 4]).unwrap();
    assert!(counts_within(&[1, 2, 1, 2, 3, 1, 2, 3], &gap));
    let ids = |v: &[u32]| v.iter().map(|&i| StrId(i)).collect::<Vec<_>>();
    assert!(cycles(&ids(&[1, 2, 1, 2, 1, 2]), 2));
    assert!(!cycles(&ids(&[1, 2, 1, 2, 2, 2]), 2));
    assert!(!cycles(&ids(&[1, 2]), 2));
    assert!(!cycles(&ids(&[1, 1]), 0));
}
