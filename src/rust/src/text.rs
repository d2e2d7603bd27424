//! Strings from R without trusting their encoding. extendr-api 0.9.0 hands out an
//! R string as `&str` without checking it (`from_utf8_unchecked`), and an R string
//! can hold any bytes: latin1, "bytes", or invalid UTF-8. So the binding reads the
//! bytes of each string itself and applies the core's rule (invalid bytes become
//! `<xx>`); paths keep their bytes, which is what the file system wants.

use extendr_api::prelude::*;
use profile_core::text::utf8_escaped;
use std::borrow::Cow;
use std::ffi::{c_char, c_void};
use std::path::PathBuf;

// R's API, declared with an opaque pointer for SEXP.
extern "C" {
    fn R_CHAR(x: *mut c_void) -> *const c_char;
    fn Rf_xlength(x: *mut c_void) -> isize;
}

/// The bytes R holds for `s` (without the terminating NUL); None for NA.
pub(crate) fn bytes(s: &Rstr) -> Option<&[u8]> {
    if s.is_na() {
        return None;
    }
    // SAFETY: `s` is a CHARSXP kept alive by `s` itself; R stores its `length`
    // bytes contiguously at R_CHAR.
    unsafe {
        let sexp = s.get().cast::<c_void>();
        let len = usize::try_from(Rf_xlength(sexp)).unwrap_or(0);
        let ptr = R_CHAR(sexp).cast::<u8>();
        if len == 0 || ptr.is_null() {
            return Some(&[]);
        }
        Some(std::slice::from_raw_parts(ptr, len))
    }
}

/// `s` as UTF-8 text (invalid bytes as `<xx>`); None for NA.
pub(crate) fn text(s: &Rstr) -> Option<Cow<'_, str>> {
    bytes(s).map(utf8_escaped)
}

/// `s` as a path: its bytes unchanged on Unix (R passes paths in the native
/// encoding), UTF-8 text elsewhere.
pub(crate) fn path(s: &Rstr) -> Option<PathBuf> {
    let b = bytes(s)?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Some(PathBuf::from(std::ffi::OsStr::from_bytes(b)))
    }
    #[cfg(not(unix))]
    {
        Some(PathBuf::from(utf8_escaped(b).into_owned()))
    }
}

/// The elements of a list with their names as text ("" where there is none).
pub(crate) fn named_elements(list: &List) -> Vec<(String, Robj)> {
    let mut names: Vec<String> = list
        .get_attrib(names_symbol())
        .and_then(|n| Strings::try_from(n).ok())
        .map(|n| {
            n.iter()
                .map(|s| text(s).map(Cow::into_owned).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default();
    names.resize(list.len(), String::new());
    names
        .into_iter()
        .enumerate()
        .map(|(i, name)| (name, list.elt(i).unwrap_or_else(|_| Robj::from(()))))
        .collect()
}
