//! Orders that profile 1.0.4 produced as a side effect of the R functions it used,
//! needed to give `read_rprof(version = "1.0")` the same location ids.
//!
//! 1.0.4 numbered locations after `merge()`-ing the frames of all samples with the
//! functions table. R's `merge()` first sorts the frame rows by key with a Shell
//! sort (`isort_with_index()` in R's `src/main/util.c`), which is not stable, so
//! the frames of one function come out in an order that is neither the file order
//! nor sorted by line. That order decides which of a function's locations gets the
//! smaller id. It depends only on the data, so it can be reproduced.

/// The row order (1-based row numbers) in which R's internal `merge()` returns the
/// rows of `x` whose match codes are `xinds`: Shell sort with Knuth's gaps, as R
/// does it, moving the row numbers along with the codes.
#[allow(
    clippy::indexing_slicing,
    reason = "Shell sort: i < n and j - h >= 0 within keys and rows, both of length n"
)]
pub fn r_merge_row_order(xinds: &[i32]) -> Vec<i32> {
    let n = xinds.len();
    let mut keys = xinds.to_vec();
    let mut rows: Vec<i32> = (1..=n)
        .map(|i| i32::try_from(i).unwrap_or(i32::MAX))
        .collect();
    let mut h = 1usize;
    while h <= n / 9 {
        h = 3 * h + 1;
    }
    while h > 0 {
        for i in h..n {
            let (key, row) = (keys[i], rows[i]);
            let mut j = i;
            while j >= h && keys[j - h] > key {
                keys[j] = keys[j - h];
                rows[j] = rows[j - h];
                j -= h;
            }
            keys[j] = key;
            rows[j] = row;
        }
        h /= 3;
    }
    rows
}

#[cfg(test)]
mod tests;
