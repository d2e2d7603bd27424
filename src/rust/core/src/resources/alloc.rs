//! Vectors whose size the input decides, asked for fallibly: where the memory
//! is not there (a `ulimit -v`, a full machine), an error of kind `limit`
//! instead of Rust's abort, which would end the R process. The verbs, the
//! view and the sample sets make their scratch vectors with these.

use crate::error::{ProfileError, Result};

/// The error for `n` elements of `what` that could not be allocated.
pub(crate) fn no_memory(n: usize, what: &str) -> ProfileError {
    ProfileError::limit(format!("not enough memory for {n} {what}"))
}

/// An empty vector with room for `n` elements.
pub(crate) fn try_with_capacity<T>(n: usize, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| no_memory(n, what))?;
    Ok(v)
}

/// A vector of `n` copies of `value`.
pub(crate) fn try_filled<T: Clone>(n: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut v = try_with_capacity(n, what)?;
    v.resize(n, value);
    Ok(v)
}

/// The items of `items`, of which there are `n` (an exact-size iterator: room
/// for `n` is asked for first, and nothing grows after).
pub(crate) fn try_collect<T>(
    items: impl ExactSizeIterator<Item = T>,
    what: &str,
) -> Result<Vec<T>> {
    let mut v = try_with_capacity(items.len(), what)?;
    v.extend(items);
    Ok(v)
}

/// The values of `items`, at most `n` of them (room for `n` is asked for
/// first), or their first error.
pub(crate) fn try_collect_ok<T>(
    items: impl Iterator<Item = Result<T>>,
    n: usize,
    what: &str,
) -> Result<Vec<T>> {
    let mut v = try_with_capacity(n, what)?;
    for item in items {
        if v.len() == v.capacity() {
            v.try_reserve(1).map_err(|_| no_memory(n, what))?;
        }
        v.push(item?);
    }
    Ok(v)
}

#[cfg(test)]
mod tests;
