//! The shapes of compact columns, in plain Rust (no R types; unit-tested by
//! `cargo test -p profile`): finding them in a column or making them from
//! per-sample lengths. `super::altrep` turns a shape into an R vector.
//!
//! - [`Runs`]: consecutive runs of equal values, kept as one value and one end
//!   per run (or less); the `runs` kind, and the `run_seq` kind (1, 2, ... along
//!   each run, [`counts_within`]) shares them.
//! - [`cycles`]: a column that repeats its first values; the `cycle` kind.
//! - [`steps_within`]: 0, s, 2s, ... along each run, with a step `s` of each
//!   run's own; the `run_steps` kind (`samples$time`: the ticks of each source).

use profile_core::StrId;

/// Consecutive runs of equal values.
#[derive(Debug, Clone, PartialEq)]
pub struct Runs {
    /// The value of each run; `None` for 1, 2, ..., n_runs.
    pub values: Option<Vec<i32>>,
    /// Where each run ends (cumulative row counts, so an empty run ends where
    /// the one before it does); `None` when every run has `each` rows.
    pub ends: Option<Vec<i32>>,
    pub n_runs: usize,
    pub each: usize,
    pub length: usize,
}

impl Runs {
    /// Rows in run `k`, from its start.
    fn bounds(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.n_runs).map(move |k| match &self.ends {
            None => (k * self.each, (k + 1) * self.each),
            Some(ends) => {
                let end = |k: usize| ends.get(k).map_or(0, |&e| e as usize);
                (if k == 0 { 0 } else { end(k - 1) }, end(k))
            }
        })
    }

    /// The runs of a column that is 1..length: nothing kept.
    pub fn one_to_n(length: usize) -> Option<Runs> {
        (length >= 2 && i32::try_from(length).is_ok()).then_some(Runs {
            values: None,
            ends: None,
            n_runs: length,
            each: 1,
            length,
        })
    }

    /// How many integers this keeps.
    fn kept(&self) -> usize {
        self.values.as_ref().map_or(0, Vec::len) + self.ends.as_ref().map_or(0, Vec::len)
    }
}

/// The runs of `col`, if keeping them takes at most half the bytes of the
/// column (and the column fits the C side's integer ends).
pub fn find_runs(col: &[i32]) -> Option<Runs> {
    let length = col.len();
    if length < 2 || i32::try_from(length).is_err() {
        return None;
    }
    if is_one_to_n(col) {
        return Runs::one_to_n(length);
    }
    let mut values: Vec<i32> = Vec::new();
    let mut ends: Vec<i32> = Vec::new();
    let mut previous = None;
    for (row, &v) in col.iter().enumerate() {
        if previous != Some(v) {
            if values.len() * 2 >= length {
                return None; // no layout would keep less than half
            }
            if row > 0 {
                ends.push(row as i32);
            }
            values.push(v);
            previous = Some(v);
        }
    }
    ends.push(length as i32);
    let n_runs = values.len();
    let each = length / n_runs;
    let equal_runs = ends
        .iter()
        .enumerate()
        .all(|(k, &e)| e as usize == (k + 1) * each);
    let kept_if_explicit = n_runs + if equal_runs { 0 } else { n_runs };
    let increasing = values.first().is_some_and(|&v| v >= 1)
        && values.windows(2).all(|w| matches!(w, [a, b] if a < b));
    let n_ids = values
        .last()
        .and_then(|&v| usize::try_from(v).ok())
        .unwrap_or(0);
    let runs = if is_one_to_n(&values) {
        // one run per value 1..n_runs: the values need not be kept
        Runs {
            values: None,
            ends: (!equal_runs).then_some(ends),
            n_runs,
            each: if equal_runs { each } else { 0 },
            length,
        }
    } else if increasing && n_ids <= length && n_ids <= kept_if_explicit {
        // Increasing ids from 1 with gaps (a sample without stack rows): one run
        // per id, the missing ones empty.
        Runs {
            values: None,
            ends: Some(ends_per_id(&values, &ends, n_ids)),
            n_runs: n_ids,
            each: 0,
            length,
        }
    } else {
        Runs {
            values: Some(values),
            ends: (!equal_runs).then_some(ends),
            n_runs,
            each: if equal_runs { each } else { 0 },
            length,
        }
    };
    (runs.kept() * 2 <= length).then_some(runs)
}

/// The end of each id's run for ids 1..=n_ids, given the runs of the ids that
/// occur (increasing `values`, ending at `ends`): a missing id's run is empty.
fn ends_per_id(values: &[i32], ends: &[i32], n_ids: usize) -> Vec<i32> {
    let mut id_ends = vec![0i32; n_ids];
    let mut previous_end = 0;
    let mut run = 0;
    for (k, slot) in id_ends.iter_mut().enumerate() {
        if values.get(run) == Some(&(k as i32 + 1)) {
            previous_end = ends.get(run).copied().unwrap_or(previous_end);
            run += 1;
        }
        *slot = previous_end;
    }
    id_ends
}

/// Is `col` the integers 1, 2, ..., its length?
pub fn is_one_to_n(col: &[i32]) -> bool {
    col.iter()
        .enumerate()
        .all(|(k, &v)| i64::from(v) == k as i64 + 1)
}

/// Does `col` count 1, 2, ... along each run of `runs`?
pub fn counts_within(col: &[i32], runs: &Runs) -> bool {
    col.len() == runs.length
        && runs.bounds().all(|(start, end)| {
            col.get(start..end).is_some_and(|rows| {
                rows.iter()
                    .enumerate()
                    .all(|(k, &v)| i64::from(v) == k as i64 + 1)
            })
        })
}

/// Row `k` (from 0) of a run whose step is `step`, as the `run_steps` kind gives
/// it: `k * step / divisor`, in this order (the C side computes the same).
pub fn run_step_value(k: usize, step: f64, divisor: f64) -> f64 {
    k as f64 * step / divisor
}

/// The step of each run of `runs`, if `col` holds [`run_step_value`]s along
/// each run (with the step of its second row), the steps being whole numbers
/// `>= 0`.
pub fn steps_within(col: &[f64], runs: &Runs, divisor: f64) -> Option<Vec<f64>> {
    if col.len() != runs.length || !(divisor.is_finite() && divisor > 0.0) {
        return None;
    }
    let mut steps = Vec::with_capacity(runs.n_runs);
    for (start, end) in runs.bounds() {
        let rows = col.get(start..end)?;
        let step = rows
            .get(1)
            .map_or(0.0, |&second| (second * divisor).round());
        if !(step.is_finite() && step >= 0.0) {
            return None;
        }
        if !rows
            .iter()
            .enumerate()
            .all(|(k, &v)| v == run_step_value(k, step, divisor))
        {
            return None;
        }
        steps.push(step);
    }
    Some(steps)
}

/// Does `codes` repeat its first `period` values to the end?
pub fn cycles(codes: &[StrId], period: usize) -> bool {
    period >= 1
        && period < codes.len()
        && codes
            .iter()
            .enumerate()
            .all(|(row, c)| codes.get(row % period) == Some(c))
}

/// The runs of a 1..n id column whose id `k` has `lens[k - 1]` rows, if keeping
/// them takes at most half the bytes of the column (the rule of [`find_runs`]).
pub fn runs_of_lengths(lens: impl Iterator<Item = usize> + Clone) -> Option<Runs> {
    let n_runs = lens.clone().count();
    let length: usize = lens.clone().sum();
    let first = lens.clone().next()?;
    if length < 2 || i32::try_from(length).is_err() {
        return None;
    }
    let runs = if lens.clone().all(|len| len == first) {
        Runs {
            values: None,
            ends: None,
            n_runs,
            each: first,
            length,
        }
    } else {
        let ends = lens
            .scan(0usize, |end, len| {
                *end += len;
                Some(*end as i32) // at most `length`, which fits
            })
            .collect();
        Runs {
            values: None,
            ends: Some(ends),
            n_runs,
            each: 0,
            length,
        }
    };
    (runs.kept() * 2 <= length).then_some(runs)
}

#[cfg(test)]
mod tests {
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
}
