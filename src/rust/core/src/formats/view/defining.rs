//! The file each function is defined in, for the view's Top table (one file
//! per function name).
//!
//! A location's file is that of the line R's profiler wrote in front of the
//! frame: the line running in that function, in its own file, except in the
//! innermost call of a function without source references (a base function
//! evaluating its caller's arguments, perhaps under `<GC>`), where it is the
//! caller's line, the one written after the frame. So a frame whose file and
//! line are its caller's, under another name, tells nothing of where it is
//! defined; a name's file is the one most of its other frames have (the one
//! seen first among equally frequent ones), none where no frame has one.
//! Formats that name the file of a function, as pprof does, give the same file
//! everywhere.

use crate::error::Result;
use crate::model::id_index::IdIndex;
use crate::ops::sample_set::try_filled;
use rustc_hash::FxHashMap;

/// R's NA integer.
const NA: i32 = i32::MIN;

/// The stack rows (`sample_id`, `depth`, `location_id`) and the frames (one
/// per location: `location_id`, and codes of its name, file and line, equal
/// codes for equal values; file code 0 is no file).
#[derive(Debug, Clone, Copy)]
pub struct DefiningInput<'a> {
    pub sample_id: &'a [i32],
    pub depth: &'a [i32],
    pub location_id: &'a [i32],
    pub frame_location_id: &'a [i32],
    pub frame_name: &'a [u32],
    pub frame_file: &'a [u32],
    pub frame_line: &'a [i32],
}

/// For each frame, a frame (row) whose file is the one its name is defined
/// in, `None` where no frame of the name tells.
pub fn defining_files(input: &DefiningInput<'_>) -> Result<Vec<Option<u32>>> {
    let n_frames = input.frame_location_id.len();
    if [input.frame_name, input.frame_file]
        .iter()
        .any(|c| c.len() != n_frames)
        || input.frame_line.len() != n_frames
    {
        return Err(crate::error::ProfileError::invalid(
            "locations",
            "",
            None,
            "columns differ in length",
        ));
    }
    if input.depth.len() != input.sample_id.len()
        || input.location_id.len() != input.sample_id.len()
    {
        return Err(crate::error::ProfileError::invalid(
            "sample_locations",
            "",
            None,
            "columns differ in length",
        ));
    }
    let frame_row = IdIndex::try_first_rows(input.frame_location_id)?;
    let row: Vec<Option<usize>> = input
        .location_id
        .iter()
        .map(|&lid| frame_row.row(lid))
        .collect();
    let caller = caller_rows(input.sample_id, input.depth);
    // the number of trusted frames of each frame row, and the first of them
    let mut count = try_filled(n_frames, 0u64, "frames")?;
    let mut first = try_filled(n_frames, usize::MAX, "frames")?;
    for (i, (&r, &up)) in row.iter().zip(&caller).enumerate() {
        let Some(r) = r else { continue };
        if input.frame_file.get(r).is_none_or(|&f| f == 0) {
            continue;
        }
        if let Some(up) = up {
            // a caller whose location is unknown leaves the frame untrusted
            let Some(u) = row.get(up).copied().flatten() else {
                continue;
            };
            let code = |column: &[u32], at: usize| column.get(at).copied();
            let same_place = code(input.frame_file, r) == code(input.frame_file, u)
                && input.frame_line.get(r) == input.frame_line.get(u);
            if same_place && code(input.frame_name, r) != code(input.frame_name, u) {
                continue;
            }
        }
        if let (Some(c), Some(f)) = (count.get_mut(r), first.get_mut(r)) {
            *c += 1;
            *f = (*f).min(i);
        }
    }
    // each (name, file) with its count, first trusted frame and first frame row
    let mut pairs: FxHashMap<(u32, u32), (u64, usize, usize)> = FxHashMap::default();
    for (r, (&c, &f)) in count.iter().zip(&first).enumerate() {
        if c == 0 {
            continue;
        }
        let key = (
            input.frame_name.get(r).copied().unwrap_or(0),
            input.frame_file.get(r).copied().unwrap_or(0),
        );
        let pair = pairs.entry(key).or_insert((0, usize::MAX, r));
        pair.0 += c;
        pair.1 = pair.1.min(f);
    }
    // per name, the most frequent pair, the first seen among equals
    let mut best: FxHashMap<u32, (u64, usize, usize)> = FxHashMap::default();
    for (&(name, _), &(c, f, r)) in &pairs {
        let entry = best.entry(name).or_insert((c, f, r));
        if (c, std::cmp::Reverse(f)) > (entry.0, std::cmp::Reverse(entry.1)) {
            *entry = (c, f, r);
        }
    }
    Ok(input
        .frame_name
        .iter()
        .map(|name| best.get(name).map(|&(_, _, r)| r as u32))
        .collect())
}

/// For each stack row, the row of its caller (the same sample, one deeper),
/// the first such row; the next row where rows are in sample order with depths
/// increasing within each, as the profile's stacks are. NA matches NA, as in
/// R's `vctrs::vec_match()`; a depth of NA or the largest integer has its
/// caller at NA.
fn caller_rows(sample_id: &[i32], depth: &[i32]) -> Vec<Option<usize>> {
    let n = sample_id.len();
    let next_depth = |d: i32| {
        if d == NA {
            NA
        } else {
            d.checked_add(1).unwrap_or(NA)
        }
    };
    let ordered = sample_id
        .iter()
        .zip(depth)
        .all(|(&s, &d)| s != NA && d != NA)
        && sample_id.windows(2).zip(depth.windows(2)).all(
            |(s, d)| matches!((s, d), ([s0, s1], [d0, d1]) if s0 < s1 || (s0 == s1 && d0 < d1)),
        );
    if ordered {
        return (0..n)
            .map(|i| {
                let next = i + 1;
                let same = sample_id.get(next) == sample_id.get(i);
                let below = depth.get(next).copied() == depth.get(i).map(|&d| next_depth(d));
                (same && below).then_some(next)
            })
            .collect();
    }
    let mut first_row: FxHashMap<(i32, i32), usize> = FxHashMap::default();
    for (i, (&s, &d)) in sample_id.iter().zip(depth).enumerate().rev() {
        first_row.insert((s, d), i);
    }
    sample_id
        .iter()
        .zip(depth)
        .map(|(&s, &d)| first_row.get(&(s, next_depth(d))).copied())
        .collect()
}

#[cfg(test)]
mod tests;
