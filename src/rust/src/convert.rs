//! Moving a profile between R and the core. A profile crosses the boundary as a
//! "bundle": `list(strings = <chr>, tables = list(<table> = list(<col> = <vec>)))`,
//! where character columns are 1-based integer codes into `strings` (NA stays NA).
//! Each distinct string thus crosses once, and R expands codes with `strings[codes]`.
//! From R to Rust a character column may also come as it is (a character vector):
//! R's strings are cached, so equal strings share one CHARSXP and each distinct
//! one is converted once (see [`intern_r_strings`]); that saves R a match() over
//! columns of millions of rows.

use crate::text;
use std::borrow::Cow;
use extendr_api::prelude::*;
use extendr_api::{GetSexp, SEXP};
use profile_core::memory::advise_huge_pages;
use profile_core::model::{ColMut, NA_INT};
use profile_core::rprof::{DerivedColumn, LeanParsed};
use profile_core::{Profile, ProfileError, StrId, StringPool};

/// A new R vector of `n` values of `rtype` (integer or double) that are not
/// written yet: R leaves a new vector's memory as it is, and the caller writes
/// each value once. Huge pages are advised first, so that writing a large
/// column into fresh memory takes few page faults.
fn unwritten_vector(rtype: Rtype, n: usize) -> Robj {
    let doubles = rtype == Rtype::Doubles;
    let mut robj = Robj::alloc_vector(extendr_api::rtype_to_sxp(rtype), n);
    if doubles {
        robj.as_real_slice_mut().map(advise_huge_pages);
    } else {
        robj.as_integer_slice_mut().map(advise_huge_pages);
    }
    robj
}

/// Copies `values` into a new R integer vector.
pub fn int_vector(values: &[i32]) -> Robj {
    let mut robj = unwritten_vector(Rtype::Integers, values.len());
    if let Some(dest) = robj.as_integer_slice_mut() {
        dest.copy_from_slice(values);
    }
    robj
}

fn lgl_vector(values: &[i32]) -> Robj {
    Logicals::from_values(values.iter().map(|&x| {
        if x == NA_INT {
            Rbool::na()
        } else {
            Rbool::from(x != 0)
        }
    }))
    .into()
}

/// R's NA_real_: a NaN with payload 1954.
const R_NA_REAL: f64 = f64::from_bits(0x7FF0_0000_0000_07A2);

fn dbl_vector(values: &[f64]) -> Robj {
    let mut robj = unwritten_vector(Rtype::Doubles, values.len());
    if let Some(dest) = robj.as_real_slice_mut() {
        for (d, &v) in dest.iter_mut().zip(values) {
            // NaN is how the core spells NA; R wants its own NA payload.
            *d = if v.is_nan() { R_NA_REAL } else { v };
        }
    }
    robj
}

fn code_vector(values: &[StrId]) -> Robj {
    let mut robj = unwritten_vector(Rtype::Integers, values.len());
    if let Some(dest) = robj.as_integer_slice_mut() {
        for (d, v) in dest.iter_mut().zip(values) {
            *d = if v.is_na() { NA_INT } else { v.0 as i32 };
        }
    }
    robj
}

/// R cannot hold NUL inside a string; the core never produces one, but the last
/// line of defence is here.
pub(crate) fn r_safe(s: &str) -> Cow<'_, str> {
    if s.contains('\0') {
        Cow::Owned(s.replace('\0', "<00>"))
    } else {
        Cow::Borrowed(s)
    }
}

/// The pool as an R character vector (without the NA slot), so `StrId(k)` is
/// element `k` in R.
pub fn strings_vector(pool: &StringPool) -> Robj {
    let slots = pool.as_slice();
    let rest = slots.get(1..).unwrap_or(&[]);
    Strings::from_values(rest.iter().map(|s| r_safe(s).into_owned())).into()
}

fn named_list(names: Vec<&str>, values: Vec<Robj>) -> Robj {
    let mut list = List::from_values(values);
    // Setting names only fails for a length mismatch, which cannot happen here.
    let _ = list.set_names(names);
    list.into()
}

/// A profile as a bundle. The profile is consumed: each column is freed as soon
/// as its R vector exists, so the Rust and R copies of a large profile are
/// never both whole (a read's peak memory).
pub fn profile_to_r(p: Profile) -> Robj {
    bundle(p, Vec::new())
}

/// A lean read (see [`LeanParsed`]) as a bundle, as [`profile_to_r`] gives the
/// whole read, without ever writing the derived columns that have a compact form.
pub fn lean_to_r(lean: LeanParsed) -> Robj {
    let LeanParsed { parsed, shape } = lean;
    let mut p = parsed.profile;
    let derived = crate::compact::shape_columns(&shape, &mut p);
    drop(shape);
    bundle(p, derived)
}

/// The bundle of `p`, with the R vectors in `given` in place of those columns.
fn bundle(mut p: Profile, mut given: Vec<(DerivedColumn, Robj)>) -> Robj {
    let strings = strings_vector(&p.strings);
    let names: Vec<&'static str> = p.tables().iter().map(|(name, _)| *name).collect();
    let mut tables = Vec::new();
    for &name in &names {
        let compact = p
            .tables()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, cols)| crate::compact::compact_columns(name, &cols, &p.strings))
            .unwrap_or_default();
        let mut col_names = Vec::new();
        let mut col_values = Vec::new();
        let cols = p.table_mut(name).unwrap_or_default();
        let compact = compact.into_iter().chain(std::iter::repeat(None));
        for ((col, data), compact) in cols.into_iter().zip(compact) {
            col_names.push(col);
            let given = given
                .iter()
                .position(|(c, _)| c.name() == (name, col))
                .map(|at| given.swap_remove(at).1);
            col_values.push(match (given.or(compact), data) {
                (Some(v), data) => {
                    drop_column(data);
                    v
                }
                (None, ColMut::Int(v)) => int_vector(&std::mem::take(v)),
                (None, ColMut::Lgl(v)) => lgl_vector(&std::mem::take(v)),
                (None, ColMut::Dbl(v)) => dbl_vector(&std::mem::take(v)),
                (None, ColMut::Chr(v)) => code_vector(&std::mem::take(v)),
            });
        }
        tables.push(named_list(col_names, col_values));
    }
    named_list(vec!["strings", "tables"], vec![strings, named_list(names, tables)])
}

/// Frees a column's memory.
fn drop_column(data: ColMut<'_>) {
    match data {
        ColMut::Int(v) | ColMut::Lgl(v) => drop(std::mem::take(v)),
        ColMut::Dbl(v) => drop(std::mem::take(v)),
        ColMut::Chr(v) => drop(std::mem::take(v)),
    }
}

fn element(elements: &[(String, Robj)], name: &str) -> Option<Robj> {
    elements
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
}

fn bad_bundle(message: &str) -> ProfileError {
    ProfileError::invalid("(bundle)", "(bundle)", None, message)
}

// R's C API for reading a character vector without an R object per element
// (extendr's Rstr would protect each of millions of elements).
#[allow(improper_ctypes)] // SEXP is a pointer to an opaque struct, as in extendr-ffi
extern "C" {
    fn STRING_PTR_RO(x: SEXP) -> *const SEXP;
    fn R_CHAR(x: SEXP) -> *const std::os::raw::c_char;
    fn Rf_xlength(x: SEXP) -> isize;
    fn Rf_getCharCE(x: SEXP) -> std::os::raw::c_int;
    fn STRING_ELT(x: SEXP, i: isize) -> SEXP;
    fn ALTREP(x: SEXP) -> std::os::raw::c_int;
    fn DATAPTR_OR_NULL(x: SEXP) -> *const std::os::raw::c_void;
    fn INTEGER_GET_REGION(x: SEXP, i: isize, n: isize, buf: *mut i32) -> isize;
    fn REAL_GET_REGION(x: SEXP, i: isize, n: isize, buf: *mut f64) -> isize;
    static R_NaString: SEXP;
}

/// Is `x` an ALTREP vector whose data is not in memory: a compact column of
/// ours (src/altrep.c) or one of R's compact sequences? Reading those through a
/// data pointer would expand them in R for good; they are read by regions.
fn is_unexpanded_altrep(x: &Robj) -> bool {
    // SAFETY: `x` is a live vector passed in by R.
    unsafe { ALTREP(x.get()) != 0 && DATAPTR_OR_NULL(x.get()).is_null() }
}

/// The values of an R vector read by regions into a new Rust vector, with the
/// memory asked for first (an ALTREP vector's length says nothing of its size).
fn read_regions<T: Copy>(
    x: &Robj,
    read: unsafe extern "C" fn(SEXP, isize, isize, *mut T) -> isize,
) -> Result<Vec<T>, ProfileError> {
    let n = x.len();
    let mut out: Vec<T> = Vec::new();
    profile_core::memory::try_reserve_advised(&mut out, n)
        .map_err(|_| ProfileError::limit(format!("a column of {n} values does not fit in memory")))?;
    let spare = out.spare_capacity_mut();
    // SAFETY: `spare` has room for `n` values; `read` writes at most that many,
    // from the start, and says how many.
    let got = unsafe { read(x.get(), 0, n as isize, spare.as_mut_ptr().cast::<T>()) };
    if usize::try_from(got).ok() != Some(n) {
        return Err(ProfileError::limit(format!("read {got} of {n} values of a column")));
    }
    // SAFETY: the first `n` values were written just now.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// `values` copied into a new vector (huge pages advised for a large one).
fn owned_copy<T: Copy>(values: Cow<'_, [T]>) -> Vec<T> {
    match values {
        Cow::Owned(v) => v,
        Cow::Borrowed(v) => {
            let mut out = profile_core::memory::with_capacity_advised(v.len());
            out.extend_from_slice(v);
            out
        }
    }
}

/// An integer column's values (borrowed from R when they are in memory, read
/// by regions when the column is compact), or None if `src` is not an integer
/// vector.
pub(crate) fn integer_values(src: &Robj) -> Result<Option<Cow<'_, [i32]>>, ProfileError> {
    if src.rtype() != Rtype::Integers {
        return Ok(None);
    }
    if is_unexpanded_altrep(src) {
        return read_regions(src, INTEGER_GET_REGION).map(|v| Some(Cow::Owned(v)));
    }
    Ok(src.as_integer_slice().map(Cow::Borrowed))
}

/// A double column's values, as [`integer_values`] gives an integer column's.
pub(crate) fn double_values(src: &Robj) -> Result<Option<Cow<'_, [f64]>>, ProfileError> {
    if src.rtype() != Rtype::Doubles {
        return Ok(None);
    }
    if is_unexpanded_altrep(src) {
        return read_regions(src, REAL_GET_REGION).map(|v| Some(Cow::Owned(v)));
    }
    Ok(src.as_real_slice().map(Cow::Borrowed))
}

/// R's `CE_LATIN1` (the other encodings are UTF-8, ASCII, native or bytes).
const CE_LATIN1: std::os::raw::c_int = 2;

/// The text of a CHARSXP as UTF-8, by R's rules for strings crossing to Rust:
/// latin1 is converted (as `enc2utf8()` does), invalid bytes become `<xx>`.
fn charsxp_text(charsxp: SEXP) -> String {
    // SAFETY: `charsxp` is an element of a character vector R passed us and
    // keeps alive; R_CHAR points to Rf_xlength bytes.
    let bytes = unsafe {
        let len = usize::try_from(Rf_xlength(charsxp)).unwrap_or(0);
        std::slice::from_raw_parts(R_CHAR(charsxp).cast::<u8>(), len)
    };
    if unsafe { Rf_getCharCE(charsxp) } == CE_LATIN1 {
        bytes.iter().map(|&b| char::from(b)).collect()
    } else {
        profile_core::text::utf8_escaped(bytes).into_owned()
    }
}

/// The ids of a character vector's strings, interned into `pool`. Each distinct
/// CHARSXP is converted once: a short list of the ones seen covers columns such
/// as `sample_values$type`; a hash map takes over when there are many.
fn intern_r_strings(strings: &Robj, pool: &mut StringPool) -> Vec<StrId> {
    if let Some((pattern, n)) = crate::compact::cycle_pattern(strings) {
        let ids = intern_r_strings(&pattern, pool);
        let mut out = profile_core::memory::with_capacity_advised(n);
        if !ids.is_empty() {
            out.extend((0..n).map(|row| ids[row % ids.len()]));
        }
        return out;
    }
    // SAFETY: `strings` is a character vector (checked by the caller), kept
    // alive by the bundle for the duration of this call. A compact column is
    // read element by element, so that reading it does not expand it in R.
    let x = unsafe { strings.get() };
    let n = usize::try_from(unsafe { Rf_xlength(x) }).unwrap_or(0);
    let expanded: &[SEXP] = if n == 0 || is_unexpanded_altrep(strings) {
        &[]
    } else {
        unsafe { std::slice::from_raw_parts(STRING_PTR_RO(x), n) }
    };
    let elements = (0..n).map(|i| match expanded.get(i) {
        Some(&e) => e,
        None => unsafe { STRING_ELT(x, i as isize) },
    });
    let na = unsafe { R_NaString };
    let mut recent: Vec<(SEXP, StrId)> = Vec::new();
    let mut many: std::collections::HashMap<usize, StrId> = std::collections::HashMap::new();
    let mut out = profile_core::memory::with_capacity_advised(n);
    for e in elements {
        if e == na {
            out.push(StrId::NA);
            continue;
        }
        if let Some(&(_, id)) = recent.iter().find(|(s, _)| *s == e) {
            out.push(id);
            continue;
        }
        let id = match many.get(&(e as usize)) {
            Some(&id) => id,
            None => {
                let id = pool.intern(&charsxp_text(e));
                if recent.len() < 16 {
                    recent.push((e, id));
                } else {
                    many.insert(e as usize, id);
                }
                id
            }
        };
        out.push(id);
    }
    out
}

/// Which rows of a character column hold `text` (strings read by the rules of
/// [`charsxp_text`]); NA matches nothing. A compact column is read by its
/// pattern, never expanded.
pub(crate) fn rows_equal_to(col: &Robj, text: &str) -> Vec<bool> {
    let mut pool = StringPool::new();
    let wanted = pool.intern(text);
    if let Some((pattern, n)) = crate::compact::cycle_pattern(col) {
        let in_pattern: Vec<bool> = intern_r_strings(&pattern, &mut pool).into_iter().map(|id| id == wanted).collect();
        return match in_pattern.len() {
            0 => Vec::new(),
            period => (0..n).map(|row| in_pattern[row % period]).collect(),
        };
    }
    intern_r_strings(col, &mut pool).into_iter().map(|id| id == wanted).collect()
}

/// The distinct pairs `(a[i], b[i])` of two character columns of one length, in
/// order of first appearance, as UTF-8 text (None for NA). Two compact columns
/// that repeat patterns of one length are read by their patterns alone.
pub(crate) fn distinct_string_pairs(a: &Robj, b: &Robj) -> Vec<(Option<String>, Option<String>)> {
    let mut pool = StringPool::new();
    let patterns = crate::compact::cycle_pattern(a).zip(crate::compact::cycle_pattern(b));
    let (ids_a, ids_b) = match patterns {
        Some(((pa, n), (pb, _))) if pa.len() == pb.len() && n >= pa.len() => {
            (intern_r_strings(&pa, &mut pool), intern_r_strings(&pb, &mut pool))
        }
        _ => (intern_r_strings(a, &mut pool), intern_r_strings(b, &mut pool)),
    };
    let mut seen: std::collections::HashSet<(StrId, StrId)> = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut last = None;
    for pair in ids_a.into_iter().zip(ids_b) {
        // Rows come in runs of one type; most are the pair just seen.
        if last == Some(pair) {
            continue;
        }
        last = Some(pair);
        if seen.insert(pair) {
            let text = |id: StrId| (!id.is_na()).then(|| pool.str(id).to_owned());
            out.push((text(pair.0), text(pair.1)));
        }
    }
    out
}

/// A bundle as a profile. Known columns missing from a table are filled with NA
/// (extension columns are optional), extension tables missing from the bundle
/// are recorded as absent; unknown tables and columns are ignored.
pub fn profile_from_r(bundle: &Robj) -> Result<Profile, ProfileError> {
    let list: List = bundle
        .as_list()
        .ok_or_else(|| bad_bundle("is not a list"))?;
    let parts = text::named_elements(&list);
    let strings = element(&parts, "strings").ok_or_else(|| bad_bundle("has no strings"))?;
    let tables = element(&parts, "tables")
        .and_then(|t| t.as_list())
        .ok_or_else(|| bad_bundle("has no tables"))?;

    let mut p = Profile::default();
    let mut code_to_id = vec![StrId::NA];
    let strs = Strings::try_from(strings).map_err(|_| bad_bundle("strings is not character"))?;
    for s in strs.iter() {
        code_to_id.push(match text::text(s) {
            None => StrId::NA,
            Some(s) => p.strings.intern(&s),
        });
    }

    // Character columns that came as character vectors: interned first, while
    // the pool can still be borrowed.
    let mut interned: Vec<(String, String, Vec<StrId>)> = Vec::new();
    for (table, value) in text::named_elements(&tables) {
        if let Some(cols) = value.as_list() {
            for (col, c) in text::named_elements(&cols) {
                if c.rtype() == Rtype::Strings {
                    let ids = intern_r_strings(&c, &mut p.strings);
                    interned.push((table.clone(), col, ids));
                }
            }
        }
    }

    for (table, value) in text::named_elements(&tables) {
        let table = table.as_str();
        let Some(cols) = value.as_list() else {
            return Err(ProfileError::invalid(
                table,
                "(table)",
                None,
                "is not a list of columns",
            ));
        };
        let cols = text::named_elements(&cols);
        let nrow = cols.first().map_or(0, |(_, c)| c.len());
        let Some(targets) = p.table_mut(table) else {
            continue;
        };
        for (col, mut target) in targets {
            let Some(src) = element(&cols, col) else {
                target.fill_na(nrow);
                continue;
            };
            let wrong_type = |expected: &str| {
                ProfileError::invalid(
                    table,
                    col,
                    None,
                    format!("must be {expected}, found {:?}", src.rtype()),
                )
            };
            match &mut target {
                ColMut::Int(v) => {
                    **v = owned_copy(integer_values(&src)?.ok_or_else(|| wrong_type("integer"))?)
                }
                ColMut::Lgl(v) => {
                    let l = src
                        .as_logical_slice()
                        .ok_or_else(|| wrong_type("logical"))?;
                    **v = l.iter().map(|b| b.0).collect();
                }
                ColMut::Dbl(v) => {
                    **v = owned_copy(double_values(&src)?.ok_or_else(|| wrong_type("double"))?)
                }
                ColMut::Chr(v) if src.rtype() == Rtype::Strings => {
                    let at = interned.iter().position(|(t, c, _)| t == table && c == col);
                    **v = at.map(|i| std::mem::take(&mut interned[i].2)).unwrap_or_default();
                }
                ColMut::Chr(v) => {
                    let codes = integer_values(&src)?.ok_or_else(|| wrong_type("string codes"))?;
                    let mut out = profile_core::memory::with_capacity_advised(codes.len());
                    for (row, &c) in codes.iter().enumerate() {
                        if c == NA_INT {
                            out.push(StrId::NA);
                        } else {
                            let id = usize::try_from(c)
                                .ok()
                                .and_then(|c| code_to_id.get(c))
                                .ok_or_else(|| {
                                    ProfileError::invalid(
                                        table,
                                        col,
                                        Some(row + 1),
                                        "string code out of range",
                                    )
                                })?;
                            out.push(*id);
                        }
                    }
                    **v = out;
                }
            }
        }
    }
    let present: Vec<String> = text::named_elements(&tables).into_iter().map(|(t, _)| t).collect();
    p.absent_tables = profile_core::model::EXTENSION_TABLES
        .into_iter()
        .filter(|t| !present.iter().any(|name| name == t))
        .collect();
    Ok(p)
}
