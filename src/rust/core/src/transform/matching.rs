//! Which frames a pattern matches. The pattern itself is matched outside the
//! core (the vendored crates have no regular expressions; R has PCRE): against
//! the distinct texts [`LocationTexts`] lists, which give one flag per row of
//! `locations`, a [`LocationSet`]. The functions here turn a set into the
//! masks the primitives of `keep.rs` take.

use super::keep::{ragged, SampleRows};
use crate::error::{ProfileError, Result};
use crate::id_index::{IdIndex, IdSet};
use crate::model::{Functions, Locations, Mappings, Profile, SampleLocations, StrId, StringPool, NA_INT};

/// The texts a pattern is matched against, for each row of `locations`, as
/// `go tool pprof` matches a frame (`Location.matchesName` in Go's
/// `profile/filter.go`): the name and the file name of its function, and the
/// file of its mapping; and, added for R, `"file:line"` (the function's file
/// and the location's line, when both are known), so that a pattern can pick
/// out one line of R code. A text that does not apply to a location is NA: no
/// function (Go: a Location without lines), no mapping.
#[derive(Debug, Clone, Default)]
pub struct LocationTexts {
    /// Each distinct text once; the columns below are ids into it.
    pub texts: StringPool,
    pub name: Vec<StrId>,
    pub filename: Vec<StrId>,
    pub mapping: Vec<StrId>,
    pub file_line: Vec<StrId>,
}

impl LocationTexts {
    /// The texts of the locations of `p`. A function or mapping id that its
    /// table lacks counts as none (Go treats a Location naming an unknown
    /// mapping as having none); an NA name or file name is matched as "", as
    /// Go has it.
    pub fn of(p: &Profile) -> Result<Self> {
        for (table, ok) in [
            (Locations::NAME, p.locations.is_rectangular()),
            (Functions::NAME, p.functions.is_rectangular()),
            (Mappings::NAME, p.mappings.is_rectangular()),
        ] {
            if !ok {
                return Err(ragged(table));
            }
        }
        let functions = IdIndex::try_first_rows(&p.functions.function_id)?;
        let mappings = IdIndex::try_first_rows(&p.mappings.mapping_id)?;
        let l = &p.locations;
        let mut out = LocationTexts::default();
        for row in 0..l.nrow() {
            let function = l.function_id.get(row).and_then(|&f| functions.row(f));
            let mapping = l.mapping_id.get(row).and_then(|&m| mappings.row(m));
            let line = l.line.get(row).copied().unwrap_or(NA_INT);
            let name = function.map(|f| p.str(p.functions.name[f]));
            let filename = function.map(|f| p.str(p.functions.filename[f]));
            let file_line = filename.filter(|f| !f.is_empty() && line > 0).map(|f| format!("{f}:{line}"));
            out.name.push(out.texts.intern_opt(name));
            out.filename.push(out.texts.intern_opt(filename));
            out.mapping.push(out.texts.intern_opt(mapping.map(|m| p.str(p.mappings.filename[m]))));
            out.file_line.push(out.texts.intern_opt(file_line.as_deref()));
        }
        Ok(out)
    }
}

/// The locations a pattern matched, by location id.
#[derive(Debug, Clone)]
pub struct LocationSet {
    matched: IdSet,
}

impl LocationSet {
    /// The set from one flag per row of `locations` (`location_id` given).
    pub fn new(location_id: &[i32], matched: &[bool]) -> Result<Self> {
        if location_id.len() != matched.len() {
            return Err(ProfileError::argument(format!(
                "{} location flags for {} locations",
                matched.len(),
                location_id.len()
            )));
        }
        let mut set = IdSet::try_for_ids(location_id)?;
        for (&id, _) in location_id.iter().zip(matched).filter(|(_, &m)| m) {
            set.insert(id);
        }
        Ok(LocationSet { matched: set })
    }

    /// Whether the location `location_id` matched.
    pub fn contains(&self, location_id: i32) -> bool {
        self.matched.contains(location_id)
    }
}

/// One flag per row of `sample_locations`: whether its location is in `set`.
pub fn frames_in(p: &Profile, set: &LocationSet) -> Vec<bool> {
    p.sample_locations.location_id.iter().map(|&l| set.contains(l)).collect()
}

/// One flag per row of `samples`: whether the sample has a frame in `set`.
pub fn samples_with_frame_in(p: &Profile, set: &LocationSet) -> Result<Vec<bool>> {
    let rows = SampleRows::new(p)?;
    let sl = &p.sample_locations;
    let mut out = vec![false; rows.len()];
    for (s, &location) in rows.of(SampleLocations::NAME, &sl.sample_id).zip(&sl.location_id) {
        let s = s?;
        if set.contains(location) {
            out[s] = true;
        }
    }
    Ok(out)
}

/// Where [`frames_cut_at_match`] cuts each stack (depth 1 is the innermost frame).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// Drop the frames the innermost matching frame calls (`-prune_from`); a
    /// stack without a matching frame stays whole.
    CalleesOfInnermostMatch,
    /// Drop the callers of the outermost matching frame (`-show_from`); a
    /// stack without a matching frame loses every frame.
    CallersOfOutermostMatch,
}

/// One flag per row of `sample_locations`: whether the frame is on the kept
/// side of the cut that `cut` makes at the stack's matching frames.
pub fn frames_cut_at_match(p: &Profile, set: &LocationSet, cut: Cut) -> Result<Vec<bool>> {
    let rows = SampleRows::new(p)?;
    let sl = &p.sample_locations;
    // The depth of each sample's innermost (or outermost) matching frame; 0: none.
    let mut cut_depth = vec![0i32; rows.len()];
    let row_samples = rows.of(SampleLocations::NAME, &sl.sample_id);
    for ((s, &depth), &location) in row_samples.zip(&sl.depth).zip(&sl.location_id) {
        let s = s?;
        if set.contains(location) {
            let at = &mut cut_depth[s];
            let closer = match cut {
                Cut::CalleesOfInnermostMatch => *at == 0 || depth < *at,
                Cut::CallersOfOutermostMatch => depth > *at,
            };
            if closer {
                *at = depth;
            }
        }
    }
    let row_samples = rows.of(SampleLocations::NAME, &sl.sample_id);
    row_samples
        .zip(&sl.depth)
        .map(|(s, &depth)| {
            let at = cut_depth[s?];
            Ok(match cut {
                Cut::CalleesOfInnermostMatch => at == 0 || depth >= at,
                Cut::CallersOfOutermostMatch => at != 0 && depth <= at,
            })
        })
        .collect()
}

/// Whether some pprof Location has every one of its frames in `set` (with
/// `in_set`) or none of them (without): whether a verb that removes those
/// frames removes a Location entirely, which is when Go's
/// `FilterSamplesByName` drops the samples it leaves without frames. A pprof
/// Location is a chain of `locations` rows, from a row nothing is inlined
/// into, outwards along `inlined_into`; an Rprof frame is a chain of one.
pub fn some_whole_location(p: &Profile, set: &LocationSet, in_set: bool) -> Result<bool> {
    let l = &p.locations;
    if !l.is_rectangular() {
        return Err(ragged(Locations::NAME));
    }
    let rows = IdIndex::try_first_rows(&l.location_id)?;
    let next: Vec<Option<usize>> = l.inlined_into.iter().map(|&id| rows.row(id)).collect();
    let mut is_inlined_into = vec![false; l.nrow()];
    for &target in next.iter().flatten() {
        is_inlined_into[target] = true;
    }
    let wanted = |row: usize| set.contains(l.location_id[row]) == in_set;
    let mut chains = ChainFlags::new(l);
    for (start, _) in is_inlined_into.iter().enumerate().filter(|(_, &target)| !target) {
        if chains.all_outwards(start, &next, &wanted) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Whether the frames from a row outwards all have a property, remembered per
/// row so that each row is looked at once however the chains share rows.
struct ChainFlags {
    state: Vec<ChainState>,
}

#[derive(Clone, Copy, PartialEq)]
enum ChainState {
    Unknown,
    OnPath,
    Known(bool),
}

impl ChainFlags {
    fn new(l: &Locations) -> Self {
        ChainFlags { state: vec![ChainState::Unknown; l.nrow()] }
    }

    fn all_outwards(&mut self, start: usize, next: &[Option<usize>], wanted: &impl Fn(usize) -> bool) -> bool {
        let mut path = Vec::new();
        let mut at = Some(start);
        // What holds beyond the end of the path.
        let mut beyond = true;
        while let Some(row) = at {
            match self.state[row] {
                ChainState::Known(flag) => {
                    beyond = flag;
                    break;
                }
                // A cycle (which validation refuses): the chain ends here.
                ChainState::OnPath => break,
                ChainState::Unknown => {
                    self.state[row] = ChainState::OnPath;
                    path.push(row);
                    at = next[row];
                }
            }
        }
        for &row in path.iter().rev() {
            beyond = beyond && wanted(row);
            self.state[row] = ChainState::Known(beyond);
        }
        beyond
    }
}
