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

use crate::error::{ProfileError, Result};
use crate::model::id_index::IdIndex;
use crate::resources::alloc::{no_memory, try_collect, try_filled};
use rustc_hash::FxHashMap;

/// R's NA integer.
const NA: i32 = i32::MIN;

/// No row: the sentinel of the row indices below, which are `u32` (4 bytes a
/// stack row rather than the 16 of an `Option<usize>`: 5·10^6 rows and more at
/// 10^6 samples).
const NO_ROW: u32 = u32::MAX;

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

fn ragged(table: &str) -> ProfileError {
    ProfileError::invalid(table, "", None, "columns differ in length")
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
        return Err(ragged("locations"));
    }
    let n_rows = input.sample_id.len();
    if input.depth.len() != n_rows || input.location_id.len() != n_rows {
        return Err(ragged("sample_locations"));
    }
    if n_rows >= NO_ROW as usize || n_frames >= NO_ROW as usize {
        return Err(ProfileError::limit(format!(
            "{n_rows} stack rows or {n_frames} locations are more than the view can index"
        )));
    }
    if input.frame_file.iter().all(|&f| f == 0) {
        // (no frame has a file: nothing to count, as in most pprof profiles
        // and Rprof files without line profiling)
        return try_filled(n_frames, None, "locations");
    }
    let frame_row = IdIndex::try_first_rows(input.frame_location_id)?;
    let row = try_collect(
        input
            .location_id
            .iter()
            .map(|&lid| frame_row.get(lid).unwrap_or(NO_ROW)),
        "stack rows",
    )?;
    let caller = Callers::of(input.sample_id, input.depth)?;
    let (count, first) = trusted_frames(input, &row, &caller)?;
    // each (name, file) with its count, first trusted frame and first frame row
    let mut pairs: FxHashMap<(u32, u32), (u64, u32, u32)> = FxHashMap::default();
    // (at most a pair per frame, as at most a name per pair below)
    pairs
        .try_reserve(n_frames)
        .map_err(|_| no_memory(n_frames, "locations"))?;
    for (r, (&c, &f)) in count.iter().zip(&first).enumerate() {
        if c == 0 {
            continue;
        }
        let key = (
            input.frame_name.get(r).copied().unwrap_or(0),
            input.frame_file.get(r).copied().unwrap_or(0),
        );
        let pair = pairs.entry(key).or_insert((0, NO_ROW, r as u32));
        pair.0 += c;
        pair.1 = pair.1.min(f);
    }
    // per name, the most frequent pair, the first seen among equals
    let mut best: FxHashMap<u32, (u64, u32, u32)> = FxHashMap::default();
    best.try_reserve(pairs.len())
        .map_err(|_| no_memory(pairs.len(), "functions"))?;
    for (&(name, _), &(c, f, r)) in &pairs {
        let entry = best.entry(name).or_insert((c, f, r));
        if (c, std::cmp::Reverse(f)) > (entry.0, std::cmp::Reverse(entry.1)) {
            *entry = (c, f, r);
        }
    }
    try_collect(
        input
            .frame_name
            .iter()
            .map(|name| best.get(name).map(|&(_, _, r)| r)),
        "locations",
    )
}

/// For each frame row, the number of its stack rows that tell where its name
/// is defined, and the first of them: those with a file, except a frame whose
/// file and line are its caller's under another name (or whose caller's
/// location is unknown).
fn trusted_frames(
    input: &DefiningInput<'_>,
    row: &[u32],
    caller: &Callers<'_>,
) -> Result<(Vec<u64>, Vec<u32>)> {
    let n_frames = input.frame_location_id.len();
    let mut count = try_filled(n_frames, 0u64, "locations")?;
    let mut first = try_filled(n_frames, NO_ROW, "locations")?;
    let code = |column: &[u32], at: usize| column.get(at).copied();
    for (i, &r) in row.iter().enumerate() {
        if r == NO_ROW {
            continue;
        }
        let r = r as usize;
        if code(input.frame_file, r).is_none_or(|f| f == 0) {
            continue;
        }
        let up = caller.of_row(i);
        if up != NO_ROW {
            let u = row.get(up as usize).copied().unwrap_or(NO_ROW);
            if u == NO_ROW {
                continue;
            }
            let u = u as usize;
            let same_place = code(input.frame_file, r) == code(input.frame_file, u)
                && input.frame_line.get(r) == input.frame_line.get(u);
            if same_place && code(input.frame_name, r) != code(input.frame_name, u) {
                continue;
            }
        }
        if let (Some(c), Some(f)) = (count.get_mut(r), first.get_mut(r)) {
            *c += 1;
            // (`i` is below NO_ROW: checked by the caller)
            *f = (*f).min(i as u32);
        }
    }
    Ok((count, first))
}

/// The caller of each stack row: the row of the same sample one deeper, the
/// first such row, `NO_ROW` for none. Where rows are in sample order with
/// depths increasing within each, as the profile's stacks are, it is the next
/// row if any, found as asked; otherwise each row's is matched once, up
/// front. NA matches NA, as in R's `vctrs::vec_match()`; a depth of NA or the
/// largest integer has its caller at NA.
enum Callers<'a> {
    Next {
        sample_id: &'a [i32],
        depth: &'a [i32],
    },
    Matched(Vec<u32>),
}

impl<'a> Callers<'a> {
    /// The caller makes sure there are fewer rows than `NO_ROW`.
    fn of(sample_id: &'a [i32], depth: &'a [i32]) -> Result<Self> {
        let ordered = sample_id
            .iter()
            .zip(depth)
            .all(|(&s, &d)| s != NA && d != NA)
            && sample_id.windows(2).zip(depth.windows(2)).all(
                |(s, d)| matches!((s, d), ([s0, s1], [d0, d1]) if s0 < s1 || (s0 == s1 && d0 < d1)),
            );
        if ordered {
            return Ok(Callers::Next { sample_id, depth });
        }
        let n = sample_id.len();
        let mut first_row: FxHashMap<(i32, i32), u32> = FxHashMap::default();
        first_row
            .try_reserve(n)
            .map_err(|_| no_memory(n, "stack rows"))?;
        for (i, (&s, &d)) in sample_id.iter().zip(depth).enumerate().rev() {
            first_row.insert((s, d), i as u32);
        }
        let callers = try_collect(
            sample_id.iter().zip(depth).map(|(&s, &d)| {
                first_row
                    .get(&(s, next_depth(d)))
                    .copied()
                    .unwrap_or(NO_ROW)
            }),
            "stack rows",
        )?;
        Ok(Callers::Matched(callers))
    }

    /// The caller of row `i`.
    fn of_row(&self, i: usize) -> u32 {
        match self {
            Callers::Next { sample_id, depth } => {
                let next = i + 1;
                let same = sample_id.get(next) == sample_id.get(i);
                let below = depth.get(next).copied() == depth.get(i).map(|&d| next_depth(d));
                if same && below {
                    next as u32
                } else {
                    NO_ROW
                }
            }
            Callers::Matched(rows) => rows.get(i).copied().unwrap_or(NO_ROW),
        }
    }
}

/// The depth of a caller (NA for NA and the largest integer).
fn next_depth(d: i32) -> i32 {
    if d == NA {
        NA
    } else {
        d.checked_add(1).unwrap_or(NA)
    }
}

#[cfg(test)]
mod tests;
