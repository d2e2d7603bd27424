//! Compact R columns for the long tables: the shapes are found here (plain Rust,
//! unit-tested) and handed to the ALTREP constructors of `src/altrep.c`.
//!
//! - *runs*: a column whose equal values come in consecutive runs (`sample_id`
//!   of `sample_locations` and `sample_values`, `source_id` of `samples`, or any
//!   id column that is 1..n) is kept as one value and one end per run, or just
//!   the run length when all runs are equally long, and nothing at all for
//!   values 1, 2, ....
//! - *run sequence*: a `depth` column that counts 1, 2, ... along the runs of its
//!   table's `sample_id` shares those runs.
//! - *cycle*: a character column repeating a pattern as long as each run of its
//!   table's `sample_id` (`type` and `unit` of `sample_values`, one row per
//!   sample type) is kept as the pattern.

use extendr_api::prelude::*;
use extendr_api::{GetSexp, SEXP};
use profile_core::model::ColRef;
use profile_core::rprof::{DerivedColumn, SampleShape};
use profile_core::{Profile, StrId, StringPool};

#[allow(improper_ctypes)] // SEXP is a pointer to an opaque struct, as in extendr-ffi
extern "C" {
    // src/altrep.c; both return NULL when the shape does not hold.
    fn profile_runs_vector(data: SEXP, within_runs: std::os::raw::c_int) -> SEXP;
    fn profile_cycle_vector(pattern: SEXP, length: f64) -> SEXP;
    // NULL unless `x` is an unexpanded cycle vector.
    fn profile_cycle_pattern(x: SEXP) -> SEXP;
    fn profile_compact_form(x: SEXP) -> std::os::raw::c_int;
}

/// The compact form of a column: "runs", "run_seq" or "cycle", with
/// " (expanded)" once R has expanded it, or "none". For tests and benchmarks.
/// @noRd
#[extendr]
fn profile_column_form(x: Robj) -> Robj {
    // SAFETY: `x` is a live R object; the C function only reads its header.
    let form = unsafe { profile_compact_form(x.get()) };
    let name = match form % 10 {
        1 => "runs",
        2 => "run_seq",
        3 => "cycle",
        _ => "none",
    };
    let text = if form >= 10 { format!("{name} (expanded)") } else { name.to_string() };
    crate::envelope(|| Ok(Robj::from(text)))
}

extendr_module! {
    mod compact;
    fn profile_column_form;
}

/// The pattern and length of a compact (unexpanded) cycle column.
pub fn cycle_pattern(x: &Robj) -> Option<(Robj, usize)> {
    // SAFETY: `x` is a live R vector; the pattern is held by `x`'s data1, and
    // Robj protects it once more.
    unsafe {
        let pattern = profile_cycle_pattern(x.get());
        (!pattern.is_null()).then(|| (Robj::from_sexp(pattern), x.len()))
    }
}

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
}

impl Runs {
    /// The runs of a column that is 1..length: nothing kept.
    fn one_to_n(length: usize) -> Option<Runs> {
        (length >= 2 && i32::try_from(length).is_ok())
            .then_some(Runs { values: None, ends: None, n_runs: length, each: 1, length })
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
    let equal_runs = ends.iter().enumerate().all(|(k, &e)| e as usize == (k + 1) * each);
    let kept_if_explicit = n_runs + if equal_runs { 0 } else { n_runs };
    let increasing = values.first().is_some_and(|&v| v >= 1) && values.windows(2).all(|w| w[0] < w[1]);
    let n_ids = values.last().and_then(|&v| usize::try_from(v).ok()).unwrap_or(0);
    let runs = if is_one_to_n(&values) {
        // one run per value 1..n_runs: the values need not be kept
        Runs { values: None, ends: (!equal_runs).then_some(ends), n_runs, each: if equal_runs { each } else { 0 }, length }
    } else if increasing && n_ids <= length && n_ids <= kept_if_explicit {
        // Increasing ids from 1 with gaps (a sample without stack rows): one run
        // per id, the missing ones empty.
        Runs { values: None, ends: Some(ends_per_id(&values, &ends, n_ids)), n_runs: n_ids, each: 0, length }
    } else {
        Runs { values: Some(values), ends: (!equal_runs).then_some(ends), n_runs, each: if equal_runs { each } else { 0 }, length }
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
    col.iter().enumerate().all(|(k, &v)| i64::from(v) == k as i64 + 1)
}

/// Does `col` count 1, 2, ... along each run of `runs`?
pub fn counts_within(col: &[i32], runs: &Runs) -> bool {
    col.len() == runs.length
        && runs.bounds().all(|(start, end)| {
            col.get(start..end).is_some_and(|rows| {
                rows.iter().enumerate().all(|(k, &v)| i64::from(v) == k as i64 + 1)
            })
        })
}

/// Does `codes` repeat its first `period` values to the end?
pub fn cycles(codes: &[StrId], period: usize) -> bool {
    period >= 1
        && period < codes.len()
        && codes.iter().enumerate().all(|(row, c)| codes.get(row % period) == Some(c))
}

/// R's data for the runs classes: `list(values, ends, c(n_runs, each, length))`.
fn runs_data(runs: &Runs) -> Robj {
    let values: Robj = match &runs.values {
        Some(v) => crate::convert::int_vector(v),
        None => ().into(),
    };
    let ends: Robj = match &runs.ends {
        Some(e) => crate::convert::int_vector(e),
        None => ().into(),
    };
    let shape = Doubles::from_values([runs.n_runs as f64, runs.each as f64, runs.length as f64]);
    List::from_values([values, ends, shape.into()]).into()
}

/// A compact integer column from runs data (`within_runs`: the depth column);
/// `None` if the C side refuses the shape.
fn runs_vector(data: &Robj, within_runs: bool) -> Option<Robj> {
    // SAFETY: `data` is a live, protected R list; the constructor only reads it
    // and returns a new (unprotected) vector or NULL, which Robj protects at once.
    unsafe {
        let sexp = profile_runs_vector(data.get(), std::os::raw::c_int::from(within_runs));
        (!sexp.is_null()).then(|| Robj::from_sexp(sexp))
    }
}

/// A compact character column of `length` strings repeating `pattern`.
fn cycle_vector(pattern: &[StrId], length: usize, pool: &StringPool) -> Option<Robj> {
    let pattern = Strings::from_values(pattern.iter().map(|&id| match pool.get(id) {
        Some(s) if !id.is_na() => Rstr::from(crate::convert::r_safe(s).as_ref()),
        _ => Rstr::na(),
    }));
    let pattern: Robj = pattern.into();
    // SAFETY: as in `runs_vector`.
    unsafe {
        let sexp = profile_cycle_vector(pattern.get(), length as f64);
        (!sexp.is_null()).then(|| Robj::from_sexp(sexp))
    }
}

/// The compact form of each column of a table that has one (`None`: send the
/// column as it is). Id columns that are 1..n are compact in every table; the
/// per-sample shapes are looked for where the long tables have them.
pub fn compact_columns(table: &str, cols: &[(&str, ColRef<'_>)], pool: &StringPool) -> Vec<Option<Robj>> {
    let runs_column = match table {
        "sample_locations" | "sample_values" | "sample_labels" => Some("sample_id"),
        "samples" => Some("source_id"),
        _ => None,
    };
    let mut shared: Option<(Runs, Robj)> = None;
    let mut out: Vec<Option<Robj>> = vec![None; cols.len()];
    for (slot, (name, col)) in out.iter_mut().zip(cols) {
        let ColRef::Int(values) = col else { continue };
        let runs = if Some(*name) == runs_column {
            find_runs(values)
        } else if is_one_to_n(values) {
            Runs::one_to_n(values.len())
        } else {
            None
        };
        let Some(runs) = runs else { continue };
        let data = runs_data(&runs);
        *slot = runs_vector(&data, false);
        if Some(*name) == runs_column && slot.is_some() {
            shared = Some((runs, data));
        }
    }
    let Some((runs, data)) = shared else { return out };
    for (slot, (name, col)) in out.iter_mut().zip(cols) {
        match (table, *name, col) {
            ("sample_locations", "depth", ColRef::Int(depths)) if counts_within(depths, &runs) => {
                *slot = runs_vector(&data, true);
            }
            ("sample_values", "type" | "unit", ColRef::Chr(codes)) if cycles(codes, runs.each) => {
                *slot = codes.get(..runs.each).and_then(|pattern| cycle_vector(pattern, codes.len(), pool));
            }
            _ => {}
        }
    }
    out
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
        Runs { values: None, ends: None, n_runs, each: first, length }
    } else {
        let ends = lens
            .scan(0usize, |end, len| {
                *end += len;
                Some(*end as i32) // at most `length`, which fits
            })
            .collect();
        Runs { values: None, ends: Some(ends), n_runs, each: 0, length }
    };
    (runs.kept() * 2 <= length).then_some(runs)
}

/// The compact forms of the columns a lean read left out (see
/// [`SampleShape`]), made from the shape with the rules [`compact_columns`]
/// applies to written columns; a column without one is written into `p` from
/// the shape, to be sent as it is.
pub fn shape_columns(shape: &SampleShape, p: &mut Profile) -> Vec<(DerivedColumn, Robj)> {
    let mut out = Vec::new();
    let stack_lens = shape.stack_lens().iter().map(|&len| len as usize);
    if let Some(runs) = runs_of_lengths(stack_lens) {
        let data = runs_data(&runs);
        if let Some(ids) = runs_vector(&data, false) {
            out.push((DerivedColumn::LocationSampleId, ids));
            out.extend(runs_vector(&data, true).map(|depth| (DerivedColumn::Depth, depth)));
        }
    }
    if let Some(runs) = runs_of_lengths(shape.value_rows_per_sample()) {
        if let Some(ids) = runs_vector(&runs_data(&runs), false) {
            out.push((DerivedColumn::ValueSampleId, ids));
            // One pattern of types for every sample, as `cycles()` asks.
            if let Some(rows) = shape.equal_value_rows().filter(|_| shape.n_samples() >= 2) {
                let pattern = shape.value_types(rows);
                let types: Vec<StrId> = pattern.iter().map(|&(t, _)| t).collect();
                let units: Vec<StrId> = pattern.iter().map(|&(_, u)| u).collect();
                out.extend(cycle_vector(&types, runs.length, &p.strings).map(|v| (DerivedColumn::ValueType, v)));
                out.extend(cycle_vector(&units, runs.length, &p.strings).map(|v| (DerivedColumn::ValueUnit, v)));
            }
        }
    }
    for column in DerivedColumn::ALL {
        if !out.iter().any(|(c, _)| *c == column) {
            shape.fill(column, p);
        }
    }
    out
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
        assert_eq!((one_to_n.values, one_to_n.ends, one_to_n.each), (None, None, 1));
        // sample 2 has no rows: an empty run
        let gap = find_runs(&[1, 1, 1, 3, 3, 4, 4, 4]).unwrap();
        assert_eq!((gap.values, gap.ends, gap.n_runs), (None, Some(vec![3, 3, 5, 8]), 4));
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
            lens.iter().enumerate().flat_map(|(k, &n)| std::iter::repeat_n(k as i32 + 1, n)).collect()
        };
        for lens in [&[3, 1, 2][..], &[2, 2, 2], &[1, 1, 1], &[3, 0, 2, 3], &[6], &[1, 2, 0]] {
            let from_lengths = runs_of_lengths(lens.iter().copied());
            let found = find_runs(&column(lens));
            match (&from_lengths, &found) {
                // Trailing empty runs: the column cannot show them, the lengths can.
                (Some(a), Some(b)) => {
                    assert_eq!((a.length, a.each, a.values.is_none()), (b.length, b.each, b.values.is_none()), "{lens:?}");
                    assert_eq!(a.bounds().filter(|(s, e)| s < e).collect::<Vec<_>>(), b.bounds().filter(|(s, e)| s < e).collect::<Vec<_>>());
                }
                _ => assert_eq!(from_lengths, found, "{lens:?}"),
            }
        }
        assert_eq!(runs_of_lengths([1usize, 1, 2, 1, 1].into_iter()), None); // ends for most rows
        assert_eq!(runs_of_lengths(std::iter::empty()), None);
        assert_eq!(runs_of_lengths([0usize, 0].into_iter()), None);
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
