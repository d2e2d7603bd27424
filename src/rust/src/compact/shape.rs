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
mod tests;
