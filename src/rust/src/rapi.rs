//! The binding's one room for R's C API: every `extern "C"` declaration of R's
//! functions, and what is built directly on them: new vectors written once,
//! columns read by regions (so that a compact column is never expanded in R),
//! and the bytes and text of R strings (CHARSXPs).
//!
//! extendr covers most of R's API; these are the calls it lacks, or makes
//! costly: reading a character vector without an R object per element
//! (extendr's `Rstr` would protect each of millions), a string's bytes without
//! trusting its encoding, and ALTREP regions.

use extendr_api::prelude::*;
use extendr_api::{AsTypedSlice, GetSexp, SEXP};
use profile_core::model::NA_INT;
use profile_core::resources::memory::{advise_huge_pages, try_reserve_advised};
use profile_core::{ProfileError, StrId, StringPool};
use std::borrow::Cow;
use std::os::raw::{c_char, c_int, c_void};

#[allow(improper_ctypes)] // SEXP is a pointer to an opaque struct, as in extendr-ffi
extern "C" {
    fn STRING_PTR_RO(x: SEXP) -> *const SEXP;
    fn STRING_ELT(x: SEXP, i: isize) -> SEXP;
    fn SET_STRING_ELT(x: SEXP, i: isize, v: SEXP);
    fn ATTRIB(x: SEXP) -> SEXP;
    fn R_CHAR(x: SEXP) -> *const c_char;
    fn Rf_xlength(x: SEXP) -> isize;
    fn Rf_getCharCE(x: SEXP) -> c_int;
    fn ALTREP(x: SEXP) -> c_int;
    fn DATAPTR_OR_NULL(x: SEXP) -> *const c_void;
    fn INTEGER_GET_REGION(x: SEXP, i: isize, n: isize, buf: *mut i32) -> isize;
    fn REAL_GET_REGION(x: SEXP, i: isize, n: isize, buf: *mut f64) -> isize;
    static R_NaString: SEXP;
    // src/allocate.c: R_NilValue when R cannot allocate the vector.
    fn profile_try_alloc_vector(sexptype: c_int, length: f64) -> SEXP;
    fn Rf_isNull(x: SEXP) -> c_int;
}

// ---- vectors to R ----------------------------------------------------------

/// A new R vector of `n` values of `rtype` (integer or double) that are not
/// written yet: R leaves a new vector's memory as it is, and the caller writes
/// each value once. Huge pages are advised first, so that writing a large
/// column into fresh memory takes few page faults. A vector R cannot allocate
/// is an error of kind `limit` (R's own error would jump over Rust's frames).
fn unwritten_vector(rtype: Rtype, n: usize) -> Result<Robj, ProfileError> {
    let doubles = rtype == Rtype::Doubles;
    let sexptype = extendr_api::rtype_to_sxp(rtype) as c_int;
    // SAFETY: the allocator returns a new vector or R_NilValue, unprotected;
    // Robj protects it at once.
    let mut robj = unsafe {
        let sexp = profile_try_alloc_vector(sexptype, n as f64);
        if Rf_isNull(sexp) != 0 {
            return Err(ProfileError::limit(format!(
                "R could not allocate a vector of {n} values"
            )));
        }
        Robj::from_sexp(sexp)
    };
    if doubles {
        robj.as_real_slice_mut().map(advise_huge_pages);
    } else {
        robj.as_integer_slice_mut().map(advise_huge_pages);
    }
    Ok(robj)
}

/// A new R double vector of `n` values, not written (see `unwritten_vector`).
pub(crate) fn dbl_vector_of_length(n: usize) -> Result<Robj, ProfileError> {
    unwritten_vector(Rtype::Doubles, n)
}

/// Copies `values` into a new R integer vector.
pub(crate) fn int_vector(values: &[i32]) -> Result<Robj, ProfileError> {
    let mut robj = unwritten_vector(Rtype::Integers, values.len())?;
    if let Some(dest) = robj.as_integer_slice_mut() {
        dest.copy_from_slice(values);
    }
    Ok(robj)
}

/// Logicals stored as the core stores them (`i32`, NA = `NA_INT`) as an R
/// logical vector.
pub(crate) fn lgl_vector(values: &[i32]) -> Result<Robj, ProfileError> {
    let mut robj = unwritten_vector(Rtype::Logicals, values.len())?;
    let dest: Option<&mut [Rbool]> = robj.as_typed_slice_mut();
    if let Some(dest) = dest {
        for (d, &x) in dest.iter_mut().zip(values) {
            *d = if x == NA_INT {
                Rbool::na()
            } else {
                Rbool::from(x != 0)
            };
        }
    }
    Ok(robj)
}

/// R's NA_real_: a NaN with payload 1954.
const R_NA_REAL: f64 = f64::from_bits(0x7FF0_0000_0000_07A2);

/// Whether R takes `v` for NA (`R_IsNA()`: a NaN whose low word is 1954), as
/// [`dbl_vector`] writes every NaN.
pub(crate) fn is_r_na(v: f64) -> bool {
    v.is_nan() && v.to_bits() & 0xFFFF_FFFF == 1954
}

/// Doubles as an R double vector; NaN (how the core spells NA) becomes R's NA.
pub(crate) fn dbl_vector(values: &[f64]) -> Result<Robj, ProfileError> {
    let mut robj = unwritten_vector(Rtype::Doubles, values.len())?;
    if let Some(dest) = robj.as_real_slice_mut() {
        for (d, &v) in dest.iter_mut().zip(values) {
            *d = if v.is_nan() { R_NA_REAL } else { v };
        }
    }
    Ok(robj)
}

/// Whether `x` has attributes.
pub(crate) fn has_attributes(x: &Robj) -> bool {
    // SAFETY: `x` is a live R object; ATTRIB only reads its header, and
    // Rf_isNull the object it points to.
    unsafe { Rf_isNull(ATTRIB(x.get())) == 0 }
}

/// String ids as an R character vector: element `k` of `strings` (the pool
/// as [`strings_vector`] gives it) for `StrId(k)`, NA for NA. As R's
/// `strings[codes]` gives the strings of [`code_vector`]'s codes.
pub(crate) fn strings_of_ids(values: &[StrId], strings: &Robj) -> Result<Robj, ProfileError> {
    let n = values.len();
    let sexptype = extendr_api::rtype_to_sxp(Rtype::Strings) as c_int;
    // SAFETY: as in `unwritten_vector` (R fills a new character vector with "").
    let robj = unsafe {
        let sexp = profile_try_alloc_vector(sexptype, n as f64);
        if Rf_isNull(sexp) != 0 {
            return Err(ProfileError::limit(format!(
                "R could not allocate a vector of {n} strings"
            )));
        }
        Robj::from_sexp(sexp)
    };
    let (pool, na) = string_elements(strings);
    let pool: Vec<SEXP> = pool.collect();
    // SAFETY: `robj` is the live vector made above.
    let out = unsafe { robj.get() };
    for (i, id) in values.iter().enumerate() {
        let element = if id.is_na() {
            na
        } else {
            *(id.0 as usize)
                .checked_sub(1)
                .and_then(|k| pool.get(k))
                .ok_or_else(|| ProfileError::internal("a string id outside the pool"))?
        };
        // SAFETY: `out` is the new character vector of `n` elements, protected
        // by `robj`; `element` is a CHARSXP of `strings` (kept alive by the
        // caller) or R's NA; SET_STRING_ELT allocates nothing.
        unsafe { SET_STRING_ELT(out, i as isize, element) };
    }
    Ok(robj)
}

/// String ids as R integer codes (`StrId(k)` is code `k`, NA stays NA).
pub(crate) fn code_vector(values: &[StrId]) -> Result<Robj, ProfileError> {
    let mut robj = unwritten_vector(Rtype::Integers, values.len())?;
    if let Some(dest) = robj.as_integer_slice_mut() {
        for (d, v) in dest.iter_mut().zip(values) {
            *d = if v.is_na() { NA_INT } else { v.0 as i32 };
        }
    }
    Ok(robj)
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
pub(crate) fn strings_vector(pool: &StringPool) -> Robj {
    let slots = pool.as_slice();
    let rest = slots.get(1..).unwrap_or(&[]);
    Strings::from_values(rest.iter().map(|s| r_safe(s).into_owned())).into()
}

// ---- columns from R --------------------------------------------------------

/// Is `x` an ALTREP vector whose data is not in memory: a compact column of
/// ours (src/altrep.c) or one of R's compact sequences? Reading those through a
/// data pointer would expand them in R for good; they are read by regions.
pub(crate) fn is_unexpanded_altrep(x: &Robj) -> bool {
    // SAFETY: `x` is a live vector passed in by R.
    unsafe { ALTREP(x.get()) != 0 && DATAPTR_OR_NULL(x.get()).is_null() }
}

/// The values of an R vector read by regions into a new Rust vector, with the
/// memory asked for first (an ALTREP vector's length says nothing of its size).
fn read_regions<T: Copy>(
    x: &Robj,
    read: unsafe extern "C" fn(SEXP, isize, isize, *mut T) -> isize,
) -> Result<Vec<T>, ProfileError> {
    read_region(x, read, 0, x.len())
}

/// Rows `[from, from + n)` of an R vector (which has them) read by regions, as
/// [`read_regions`] reads all.
fn read_region<T: Copy>(
    x: &Robj,
    read: unsafe extern "C" fn(SEXP, isize, isize, *mut T) -> isize,
    from: usize,
    n: usize,
) -> Result<Vec<T>, ProfileError> {
    let mut out: Vec<T> = Vec::new();
    try_reserve_advised(&mut out, n).map_err(|_| {
        ProfileError::limit(format!("a column of {n} values does not fit in memory"))
    })?;
    let spare = out.spare_capacity_mut();
    // SAFETY: `spare` has room for `n` values; `read` writes at most that many,
    // from the start, and says how many.
    let got = unsafe {
        read(
            x.get(),
            from as isize,
            n as isize,
            spare.as_mut_ptr().cast::<T>(),
        )
    };
    if usize::try_from(got).ok() != Some(n) {
        return Err(ProfileError::limit(format!(
            "read {got} of {n} values of a column"
        )));
    }
    // SAFETY: the first `n` values were written just now.
    unsafe { out.set_len(n) };
    Ok(out)
}

/// Rows of an integer or a double vector.
pub(crate) enum Region {
    Integers(Vec<i32>),
    Doubles(Vec<f64>),
}

/// Rows `[from, from + n)` of an integer or a double vector as its class's
/// region method gives them (R's `INTEGER_GET_REGION()` and
/// `REAL_GET_REGION()`, which read a compact column without expanding it).
/// None for another type or rows it lacks.
pub(crate) fn region_values(
    x: &Robj,
    from: usize,
    n: usize,
) -> Result<Option<Region>, ProfileError> {
    if from.checked_add(n).is_none_or(|end| end > x.len()) {
        return Ok(None);
    }
    Ok(match x.rtype() {
        Rtype::Integers => Some(Region::Integers(read_region(
            x,
            INTEGER_GET_REGION,
            from,
            n,
        )?)),
        Rtype::Doubles => Some(Region::Doubles(read_region(x, REAL_GET_REGION, from, n)?)),
        _ => None,
    })
}

/// An integer column's values (borrowed from R when they are in memory, read
/// by regions when the column is compact), or None if `src` is not an integer
/// vector.
pub(crate) fn integer_values(src: &Robj) -> Result<Option<Cow<'_, [i32]>>, ProfileError> {
    column_values(
        src,
        Rtype::Integers,
        INTEGER_GET_REGION,
        Robj::as_integer_slice,
    )
}

/// A double column's values, as [`integer_values`] gives an integer column's.
pub(crate) fn double_values(src: &Robj) -> Result<Option<Cow<'_, [f64]>>, ProfileError> {
    column_values(src, Rtype::Doubles, REAL_GET_REGION, Robj::as_real_slice)
}

/// The values of `src` if it is of type `rtype`: its data (`in_memory`), or read
/// by regions (`read`) when it is an unexpanded ALTREP vector.
fn column_values<'r, T: Copy>(
    src: &'r Robj,
    rtype: Rtype,
    read: unsafe extern "C" fn(SEXP, isize, isize, *mut T) -> isize,
    in_memory: fn(&'r Robj) -> Option<&'r [T]>,
) -> Result<Option<Cow<'r, [T]>>, ProfileError> {
    if src.rtype() != rtype {
        return Ok(None);
    }
    if is_unexpanded_altrep(src) {
        return read_regions(src, read).map(|v| Some(Cow::Owned(v)));
    }
    Ok(in_memory(src).map(Cow::Borrowed))
}

/// `values` copied into a new vector (asked for fallibly, huge pages advised
/// for a large one); owned values are taken as they are.
pub(crate) fn owned_copy<T: Copy>(values: Cow<'_, [T]>) -> Result<Vec<T>, ProfileError> {
    match values {
        Cow::Owned(v) => Ok(v),
        Cow::Borrowed(v) => {
            let mut out = Vec::new();
            let n = v.len();
            try_reserve_advised(&mut out, n).map_err(|_| {
                ProfileError::limit(format!("a column of {n} values does not fit in memory"))
            })?;
            out.extend_from_slice(v);
            Ok(out)
        }
    }
}

/// `f` of each of `values`, in a vector asked for fallibly (a column the
/// size of the input, made in the binding), or the first error of `f`.
pub(crate) fn try_map_column<T, U>(
    values: &[T],
    mut f: impl FnMut(&T) -> Result<U, ProfileError>,
) -> Result<Vec<U>, ProfileError> {
    let mut out = Vec::new();
    let n = values.len();
    try_reserve_advised(&mut out, n).map_err(|_| {
        ProfileError::limit(format!("a column of {n} values does not fit in memory"))
    })?;
    for value in values {
        out.push(f(value)?);
    }
    Ok(out)
}

// ---- strings from R --------------------------------------------------------

/// The elements (CHARSXPs) of a character vector, without an R object per
/// element, and R's NA string to compare them with. A compact column is read
/// element by element, so that reading it does not expand it in R.
///
/// The caller makes sure `strings` is a character vector.
pub(crate) fn string_elements(strings: &Robj) -> (impl Iterator<Item = SEXP> + '_, SEXP) {
    // SAFETY: `strings` is a character vector, kept alive by the caller for as
    // long as the iterator lives.
    let x = unsafe { strings.get() };
    // SAFETY: `x` is a live vector; `Rf_xlength` only reads its length (for an
    // ALTREP vector, through its class's method, which allocates nothing).
    let n = usize::try_from(unsafe { Rf_xlength(x) }).unwrap_or(0);
    let expanded: &[SEXP] = if n == 0 || is_unexpanded_altrep(strings) {
        &[]
    } else {
        // SAFETY: `x` is a character vector whose data exist (not an ALTREP
        // vector without them: that case reads by `STRING_ELT` below, so R
        // never expands it here): `STRING_PTR_RO` points at its `n` CHARSXPs,
        // which stay in place while `x` lives and is not modified.
        unsafe { std::slice::from_raw_parts(STRING_PTR_RO(x), n) }
    };
    let elements = (0..n).map(move |i| match expanded.get(i) {
        Some(&e) => e,
        // SAFETY: `i < n`, the length of the live character vector `x`; for a
        // compact column `STRING_ELT` calls its `Elt` method, which returns a
        // CHARSXP of its pattern without allocating (`src/altrep.c`).
        None => unsafe { STRING_ELT(x, i as isize) },
    });
    // SAFETY: `R_NaString` is R's global NA CHARSXP, set when R starts and
    // never changed; reading the pointer is all this does.
    (elements, unsafe { R_NaString })
}

/// The bytes R holds for the CHARSXP `charsxp` (without the terminating NUL).
///
/// # Safety
/// `charsxp` is a CHARSXP that stays alive (and unchanged: R never changes one)
/// for `'a`.
pub(crate) unsafe fn charsxp_bytes<'a>(charsxp: SEXP) -> &'a [u8] {
    // SAFETY: R stores a CHARSXP's `length` bytes contiguously at R_CHAR.
    let len = usize::try_from(Rf_xlength(charsxp)).unwrap_or(0);
    let ptr = R_CHAR(charsxp).cast::<u8>();
    if len == 0 || ptr.is_null() {
        return &[];
    }
    std::slice::from_raw_parts(ptr, len)
}

/// R's `CE_LATIN1` (the other encodings are UTF-8, ASCII, native or bytes).
const CE_LATIN1: c_int = 2;

/// R's `CE_UTF8` (`CE_NATIVE` is 0).
const CE_UTF8: c_int = 1;

/// Whether [`charsxp_text`] gives the bytes R holds, unchanged, as a string
/// that R holds alike: marked UTF-8 or native (UTF-8 in a UTF-8 session,
/// the only kind in which R sends strings as they are) and valid UTF-8.
/// A latin1 string is converted, one of bytes or invalid UTF-8 escaped.
///
/// # Safety
/// As for [`charsxp_bytes`], for the duration of the call.
pub(crate) unsafe fn charsxp_text_is_bytes(charsxp: SEXP) -> bool {
    let ce = Rf_getCharCE(charsxp);
    (ce == 0 || ce == CE_UTF8) && std::str::from_utf8(charsxp_bytes(charsxp)).is_ok()
}

/// The text of a CHARSXP as UTF-8, by R's rules for strings crossing to Rust:
/// latin1 is converted (as `enc2utf8()` does), invalid bytes become `<xx>`.
///
/// # Safety
/// As for [`charsxp_bytes`], for the duration of the call.
pub(crate) unsafe fn charsxp_text(charsxp: SEXP) -> String {
    let bytes = charsxp_bytes(charsxp);
    if Rf_getCharCE(charsxp) == CE_LATIN1 {
        bytes.iter().map(|&b| char::from(b)).collect()
    } else {
        profile_core::io::text::utf8_escaped(bytes).into_owned()
    }
}
