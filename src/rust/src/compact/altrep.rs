//! Compact columns as R vectors: the one module that calls the ALTREP
//! constructors of `src/altrep.c` (classes `profile_runs`, `profile_run_seq`,
//! `profile_run_steps` and `profile_cycle`, and the `profile_concat_*`
//! classes of two vectors joined). The C side checks every shape it is given
//! and returns NULL when it does not hold; the caller then sends an ordinary
//! vector.

use super::shape::Runs;
use crate::envelope::envelope;
use crate::rapi::{dbl_vector, int_vector, r_safe, region_values, Region};
use extendr_api::prelude::*;
use extendr_api::{GetSexp, SEXP};
use profile_core::{ProfileError, StrId, StringPool};
use std::os::raw::c_int;

#[allow(improper_ctypes)] // SEXP is a pointer to an opaque struct, as in extendr-ffi
extern "C" {
    // Both return NULL when the shape does not hold.
    fn profile_runs_vector(data: SEXP, within_runs: c_int) -> SEXP;
    fn profile_run_steps_vector(data: SEXP, steps: SEXP, divisor: f64) -> SEXP;
    fn profile_cycle_vector(pattern: SEXP, length: f64) -> SEXP;
    fn profile_concat_vector(first: SEXP, second: SEXP) -> SEXP;
    // NULL unless `x` is an unexpanded concat vector.
    fn profile_concat_parts(x: SEXP) -> SEXP;
    // NULL unless `x` is an unexpanded cycle vector.
    fn profile_cycle_pattern(x: SEXP) -> SEXP;
    fn profile_compact_form(x: SEXP) -> c_int;
}

/// The R data of some runs, `list(values, ends, c(n_runs, each, length))`: the
/// data of a `runs` vector, shared by a `run_seq` vector along the same runs.
pub struct RunsData(Robj);

impl RunsData {
    pub fn new(runs: &Runs) -> Result<RunsData, ProfileError> {
        let values: Robj = match &runs.values {
            Some(v) => int_vector(v)?,
            None => ().into(),
        };
        let ends: Robj = match &runs.ends {
            Some(e) => int_vector(e)?,
            None => ().into(),
        };
        let shape =
            Doubles::from_values([runs.n_runs as f64, runs.each as f64, runs.length as f64]);
        Ok(RunsData(
            List::from_values([values, ends, shape.into()]).into(),
        ))
    }

    /// The `runs` column: each row holds its run's value.
    pub fn runs_vector(&self) -> Option<Robj> {
        self.vector(false)
    }

    /// The `run_seq` column: each row holds its position in its run, from 1.
    pub fn run_seq_vector(&self) -> Option<Robj> {
        self.vector(true)
    }

    /// The `run_steps` column: row `k` (from 0) of run `r` holds
    /// `k * steps[r] / divisor` (see `shape::run_step_value`).
    pub fn run_steps_vector(
        &self,
        steps: &[f64],
        divisor: f64,
    ) -> Result<Option<Robj>, ProfileError> {
        let steps: Robj = dbl_vector(steps)?;
        // SAFETY: as in `vector`; `steps` is protected by its Robj.
        unsafe {
            let sexp = profile_run_steps_vector(self.0.get(), steps.get(), divisor);
            Ok((!sexp.is_null()).then(|| Robj::from_sexp(sexp)))
        }
    }

    fn vector(&self, within_runs: bool) -> Option<Robj> {
        // SAFETY: the data is a live, protected R list; the constructor only reads
        // it and returns a new (unprotected) vector or NULL, which Robj protects
        // at once.
        unsafe {
            let sexp = profile_runs_vector(self.0.get(), c_int::from(within_runs));
            (!sexp.is_null()).then(|| Robj::from_sexp(sexp))
        }
    }
}

/// The `cycle` column of `length` strings repeating `pattern`.
pub fn cycle_vector(pattern: &[StrId], length: usize, pool: &StringPool) -> Option<Robj> {
    let pattern = Strings::from_values(pattern.iter().map(|&id| match pool.get(id) {
        Some(s) if !id.is_na() => Rstr::from(r_safe(s).as_ref()),
        _ => Rstr::na(),
    }));
    let pattern: Robj = pattern.into();
    // SAFETY: as in `RunsData::vector`.
    unsafe {
        let sexp = profile_cycle_vector(pattern.get(), length as f64);
        (!sexp.is_null()).then(|| Robj::from_sexp(sexp))
    }
}

/// The rows of `first`, then those of `second`, as one vector that holds the
/// two (a `concat` column): None unless both are integer, double or character
/// vectors of the same type without attributes.
pub fn concat_vector(first: &Robj, second: &Robj) -> Option<Robj> {
    // SAFETY: as in `RunsData::vector`; both vectors are protected by their
    // Robj, and the new vector protects them in turn.
    unsafe {
        let sexp = profile_concat_vector(first.get(), second.get());
        (!sexp.is_null()).then(|| Robj::from_sexp(sexp))
    }
}

/// The two parts of an unexpanded `concat` column, so that it can be read
/// part by part.
pub fn concat_parts(x: &Robj) -> Option<(Robj, Robj)> {
    // SAFETY: `x` is a live R vector; its parts are held by its data1, and
    // Robj protects them once more.
    let parts = unsafe {
        let parts = profile_concat_parts(x.get());
        if parts.is_null() {
            return None;
        }
        Robj::from_sexp(parts)
    };
    let parts = parts.as_list()?;
    Some((parts.elt(0).ok()?, parts.elt(1).ok()?))
}

/// The `cycle` column of `length` strings repeating `pattern`, a character
/// vector R has (without attributes).
pub fn cycle_of(pattern: &Robj, length: usize) -> Option<Robj> {
    // SAFETY: as in `RunsData::vector`.
    unsafe {
        let sexp = profile_cycle_vector(pattern.get(), length as f64);
        (!sexp.is_null()).then(|| Robj::from_sexp(sexp))
    }
}

/// The pattern and length of an unexpanded `cycle` column, so that it can be
/// read by its pattern.
pub fn cycle_pattern(x: &Robj) -> Option<(Robj, usize)> {
    // SAFETY: `x` is a live R vector; the pattern is held by `x`'s data1, and
    // Robj protects it once more.
    unsafe {
        let pattern = profile_cycle_pattern(x.get());
        (!pattern.is_null()).then(|| (Robj::from_sexp(pattern), x.len()))
    }
}

/// The compact form of a column: "runs", "run_seq", "cycle", "run_steps" or
/// "concat", with " (expanded)" once R has expanded it, or "none". For tests
/// and benchmarks.
/// @noRd
#[extendr]
fn ffi_profile_column_form(x: Robj) -> Robj {
    // SAFETY: `x` is a live R object; the C function only reads its header.
    let form = unsafe { profile_compact_form(x.get()) };
    let name = match form % 10 {
        1 => "runs",
        2 => "run_seq",
        3 => "cycle",
        4 => "run_steps",
        5 => "concat",
        _ => "none",
    };
    let text = if form >= 10 {
        format!("{name} (expanded)")
    } else {
        name.to_string()
    };
    envelope(|| Ok(Robj::from(text)))
}

/// The `concat` column of the rows of `first`, then those of `second`. For
/// tests.
/// @noRd
#[extendr]
fn ffi_profile_concat(first: Robj, second: Robj) -> Robj {
    envelope(|| {
        concat_vector(&first, &second).ok_or_else(|| {
            ProfileError::argument("only two vectors of one type without attributes are joined")
        })
    })
}

/// Rows `from + 1` to `from + n` of an integer or double vector, read as the
/// binding reads columns, by its class's region method (which a compact
/// column has): R's `INTEGER_GET_REGION()` or `REAL_GET_REGION()`. For tests.
/// @noRd
#[extendr]
fn ffi_profile_column_region(x: Robj, from: Robj, n: Robj) -> Robj {
    envelope(|| {
        // (not `args`, which comes after this module)
        let count = |v: &Robj, name: &str| {
            let d = v.as_real().or_else(|| v.as_integer().map(f64::from));
            match d {
                Some(d) if d >= 0.0 && d.fract() == 0.0 && d <= isize::MAX as f64 => Ok(d as usize),
                _ => Err(ProfileError::argument(format!("`{name}` must be a count"))),
            }
        };
        let (from, n) = (count(&from, "from")?, count(&n, "n")?);
        match region_values(&x, from, n)? {
            Some(Region::Integers(v)) => Ok(Robj::from(v)),
            Some(Region::Doubles(v)) => Ok(Robj::from(v)),
            None => Err(ProfileError::argument(
                "only rows an integer or double vector has are read",
            )),
        }
    })
}

extendr_module! {
    mod altrep;
    fn ffi_profile_column_form;
    fn ffi_profile_concat;
    fn ffi_profile_column_region;
}
