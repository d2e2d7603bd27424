//! Checks of scalar arguments passed from R. The R wrappers check arguments first,
//! so these errors are a last line of defence; they never panic.

use crate::rapi::{double_values, integer_values};
use crate::text::{self, named_elements};
use extendr_api::prelude::*;
use profile_core::resources::limits::Limits;
use profile_core::ProfileError;
use std::borrow::Cow;
use std::path::PathBuf;

/// `TRUE` or `FALSE`.
pub(crate) fn flag(x: &Robj, name: &str) -> Result<bool, ProfileError> {
    x.as_bool()
        .ok_or_else(|| ProfileError::argument(format!("`{name}` must be TRUE or FALSE")))
}

fn single_string(x: &Robj, name: &str) -> Result<Rstr, ProfileError> {
    Strings::try_from(x.clone())
        .ok()
        .filter(|s| s.len() == 1)
        .map(|s| s.elt(0))
        .ok_or_else(|| ProfileError::argument(format!("`{name}` must be a single string")))
}

/// A single string as UTF-8 text (invalid bytes as `<xx>`); NA gives None.
pub(crate) fn optional_string(x: &Robj, name: &str) -> Result<Option<String>, ProfileError> {
    Ok(text::text(&single_string(x, name)?).map(|s| s.into_owned()))
}

/// A single string that is not NA, as UTF-8 text.
pub(crate) fn required_string(x: &Robj, name: &str) -> Result<String, ProfileError> {
    optional_string(x, name)?
        .ok_or_else(|| ProfileError::argument(format!("`{name}` must not be NA")))
}

/// A single string that must be one of the names in `choices`, as the value
/// paired with it.
pub(crate) fn choice<T: Copy>(
    x: &Robj,
    name: &str,
    choices: &[(&str, T)],
) -> Result<T, ProfileError> {
    choice_of(&required_string(x, name)?, name, choices)
}

/// The value paired with `given` in `choices` (an error naming the argument
/// `name` when it is none of them).
pub(crate) fn choice_of<T: Copy>(
    given: &str,
    name: &str,
    choices: &[(&str, T)],
) -> Result<T, ProfileError> {
    choices
        .iter()
        .find(|(n, _)| *n == given)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let names: Vec<String> = choices.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            ProfileError::argument(format!(
                "`{name}` must be one of {}, not \"{given}\"",
                names.join(", ")
            ))
        })
}

/// A character vector as UTF-8 text; NA becomes "NA" (R's own rendering).
pub(crate) fn strings(x: &Robj, name: &str) -> Result<Vec<String>, ProfileError> {
    let s = Strings::try_from(x.clone())
        .map_err(|_| ProfileError::argument(format!("`{name}` must be a character vector")))?;
    Ok(s.iter()
        .map(|s| text::text(s).map_or_else(|| "NA".to_string(), |t| t.into_owned()))
        .collect())
}

/// A single number (a double or an integer) that is not NA; whether it must
/// be finite is the caller's rule.
pub(crate) fn number(x: &Robj, name: &str) -> Result<f64, ProfileError> {
    let value = match x.rtype() {
        Rtype::Doubles if x.len() == 1 => x.as_real(),
        Rtype::Integers if x.len() == 1 => x.as_integer().map(f64::from),
        _ => None,
    };
    value
        .filter(|v| !v.is_nan())
        .ok_or_else(|| ProfileError::argument(format!("`{name}` must be a single number")))
}

/// `NULL` (None) or a single number, as [`number`].
pub(crate) fn optional_number(x: &Robj, name: &str) -> Result<Option<f64>, ProfileError> {
    if x.is_null() {
        Ok(None)
    } else {
        number(x, name).map(Some)
    }
}

/// A single string that is not NA, as a path (its bytes unchanged on Unix).
pub(crate) fn required_path(x: &Robj, name: &str) -> Result<PathBuf, ProfileError> {
    text::path(&single_string(x, name)?)
        .ok_or_else(|| ProfileError::argument(format!("`{name}` must not be NA")))
}

/// `max_size` and `max_memory` (bytes, non-negative numbers) as read limits.
pub(crate) fn limits(max_size: &Robj, max_memory: &Robj) -> Result<Limits, ProfileError> {
    Ok(Limits {
        max_decompressed_bytes: bytes(max_size, "max_size")?,
        max_memory: bytes(max_memory, "max_memory")?,
        ..Limits::default()
    })
}

/// A number of bytes: a finite, non-negative number.
fn bytes(x: &Robj, name: &str) -> Result<u64, ProfileError> {
    let bytes = x
        .as_real()
        .or_else(|| x.as_integer().map(f64::from))
        .filter(|x| x.is_finite() && *x >= 0.0)
        .ok_or_else(|| ProfileError::argument(format!("`{name}` must be a non-negative number")))?;
    Ok(bytes.min(u64::MAX as f64) as u64)
}

/// The error for an element of a list of arguments that is missing or of the
/// wrong type.
pub(crate) fn bad_argument(what: &str) -> ProfileError {
    ProfileError::argument(format!("`{what}` is missing or of the wrong type"))
}

/// The elements of a list of arguments R builds (`stack_input()` in R/stacks.R,
/// `sample_set_input()` in R/view.R), by name.
pub(crate) struct Fields(Vec<(String, Robj)>);

impl Fields {
    pub(crate) fn of(input: &Robj) -> Result<Fields, ProfileError> {
        let list = input.as_list().ok_or_else(|| bad_argument("(list)"))?;
        Ok(Fields(named_elements(&list)))
    }

    pub(crate) fn get(&self, name: &str) -> Result<&Robj, ProfileError> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| bad_argument(name))
    }

    /// Borrowed from R, or read by regions when compact (never expanded in R).
    pub(crate) fn ints(&self, name: &str) -> Result<Cow<'_, [i32]>, ProfileError> {
        integer_values(self.get(name)?)?.ok_or_else(|| bad_argument(name))
    }

    pub(crate) fn doubles(&self, name: &str) -> Result<Cow<'_, [f64]>, ProfileError> {
        double_values(self.get(name)?)?.ok_or_else(|| bad_argument(name))
    }

    pub(crate) fn strings(&self, name: &str) -> Result<Vec<String>, ProfileError> {
        strings(self.get(name)?, name)
    }

    pub(crate) fn count(&self, name: &str) -> Result<usize, ProfileError> {
        self.get(name)?
            .as_integer()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| bad_argument(name))
    }

    pub(crate) fn flags(&self, name: &str) -> Result<Vec<bool>, ProfileError> {
        let values = self.get(name)?;
        let logicals = values
            .as_logical_slice()
            .ok_or_else(|| bad_argument(name))?;
        Ok(logicals.iter().map(|v| v.is_true()).collect())
    }
}
