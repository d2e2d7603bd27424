//! Strings from R without trusting their encoding. extendr-api 0.9.0 hands out an
//! R string as `&str` without checking it (`from_utf8_unchecked`), and an R string
//! can hold any bytes: latin1, "bytes", or invalid UTF-8. So the binding reads the
//! bytes of each string itself and applies the core's rule (invalid bytes become
//! `<xx>`); paths keep their bytes, which is what the file system wants.

use crate::compact::altrep::{concat_parts, cycle_pattern};
use crate::rapi::{charsxp_bytes, charsxp_text, charsxp_text_is_bytes, string_elements};
use extendr_api::prelude::*;
use extendr_api::SEXP;
use profile_core::io::text::utf8_escaped;
use profile_core::resources::memory::with_capacity_advised;
use profile_core::{StrId, StringPool};
use std::borrow::Cow;
use std::path::PathBuf;

/// The bytes R holds for `s` (without the terminating NUL); None for NA.
pub(crate) fn bytes(s: &Rstr) -> Option<&[u8]> {
    if s.is_na() {
        return None;
    }
    // SAFETY: `s` is a CHARSXP kept alive by `s` itself.
    Some(unsafe { charsxp_bytes(s.get()) })
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

/// The ids of a character vector's strings, interned into `pool` (strings read
/// by the rules of [`charsxp_text`]: latin1 converted, invalid bytes as `<xx>`).
/// Each distinct CHARSXP is converted once: a short list of the ones seen
/// covers columns such as `sample_values$type`; a hash map takes over when
/// there are many. A compact `cycle` column is read by its pattern, a
/// `concat` column part by part.
///
/// The caller makes sure `strings` is a character vector.
pub(crate) fn intern_strings(strings: &Robj, pool: &mut StringPool) -> Vec<StrId> {
    if let Some((pattern, n)) = cycle_pattern(strings) {
        let ids = intern_strings(&pattern, pool);
        let mut out = with_capacity_advised(n);
        out.extend(ids.iter().copied().cycle().take(n));
        return out;
    }
    if let Some((first, second)) = concat_parts(strings) {
        let mut out = intern_strings(&first, pool);
        out.extend(intern_strings(&second, pool));
        return out;
    }
    let (elements, na) = string_elements(strings);
    let mut recent: Vec<(SEXP, StrId)> = Vec::new();
    let mut many: std::collections::HashMap<usize, StrId> = std::collections::HashMap::new();
    let mut out = with_capacity_advised(strings.len());
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
                // SAFETY: `e` is an element of `strings`, which the caller keeps alive.
                let id = pool.intern(&unsafe { charsxp_text(e) });
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

/// Whether each string of a character vector is one of `wanted` (NA is not),
/// by the rules of [`charsxp_text`]: one pass, each distinct CHARSXP read
/// once (a column such as `sample_values$type`, of a few strings repeated
/// millions of times, costs a pointer comparison a row). `None` when the
/// answer does not fit in memory.
///
/// The caller makes sure `strings` is a character vector.
pub(crate) fn strings_among(strings: &Robj, wanted: &[String]) -> Option<Vec<bool>> {
    let (elements, na) = string_elements(strings);
    let mut recent: Vec<(SEXP, bool)> = Vec::new();
    let mut many: std::collections::HashMap<usize, bool> = std::collections::HashMap::new();
    let mut out = Vec::new();
    out.try_reserve_exact(strings.len()).ok()?;
    for e in elements {
        if e == na {
            out.push(false);
            continue;
        }
        if let Some(&(_, among)) = recent.iter().find(|(s, _)| *s == e) {
            out.push(among);
            continue;
        }
        let among = match many.get(&(e as usize)) {
            Some(&among) => among,
            None => {
                // SAFETY: `e` is an element of `strings`, which the caller keeps alive.
                let text = unsafe { charsxp_text(e) };
                let among = wanted.contains(&text);
                if recent.len() < 16 {
                    recent.push((e, among));
                } else {
                    // (one entry per distinct string: as many as the column's
                    // rows at worst, so asked for fallibly)
                    many.try_reserve(1).ok()?;
                    many.insert(e as usize, among);
                }
                among
            }
        };
        out.push(among);
    }
    Some(out)
}

/// Whether every string of a character vector is read as R holds it (see
/// [`charsxp_text_is_bytes`]), so that the strings R gets back from its text
/// are the same. Each distinct CHARSXP is looked at once, a compact `cycle`
/// column by its pattern, a `concat` column part by part.
///
/// The caller makes sure `strings` is a character vector.
pub(crate) fn strings_kept(strings: &Robj) -> bool {
    if let Some((pattern, _)) = cycle_pattern(strings) {
        return strings_kept(&pattern);
    }
    if let Some((first, second)) = concat_parts(strings) {
        return strings_kept(&first) && strings_kept(&second);
    }
    let (elements, na) = string_elements(strings);
    let mut recent: Vec<SEXP> = Vec::new();
    let mut many: std::collections::HashSet<usize> = std::collections::HashSet::new();
    for e in elements {
        if e == na || recent.contains(&e) || many.contains(&(e as usize)) {
            continue;
        }
        // SAFETY: `e` is an element of `strings`, which the caller keeps alive.
        if !unsafe { charsxp_text_is_bytes(e) } {
            return false;
        }
        if recent.len() < 16 {
            recent.push(e);
        } else {
            many.insert(e as usize);
        }
    }
    true
}
