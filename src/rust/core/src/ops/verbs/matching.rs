//! Which frames a pattern matches. A [`Pattern`] (Go's regular expressions,
//! `pattern.rs`) is matched once against each distinct text that
//! [`LocationTexts`] lists, which gives one flag per row of `locations`
//! ([`LocationTexts::matching`]), and then a [`LocationSet`]. The functions
//! here turn a set into the masks the primitives of `keep.rs` take.

use super::keep::{ragged, SampleRows, StackOrder};
use super::pattern::{matching_texts, Pattern};
use crate::error::{ProfileError, Result};
use crate::model::id_index::{IdIndex, IdSet};
use crate::model::{
    Functions, Locations, Mappings, Profile, SampleLocations, StrId, StringPool, NA_INT,
};
use crate::resources::alloc::{try_collect, try_collect_ok, try_filled};

/// The texts a pattern is matched against, for each row of `locations`, as
/// `go tool pprof` matches a frame (`Location.matchesName` in Go's
/// `profile/filter.go`): the name and the file name of its function, and the
/// file of its mapping; and, added for R, `"file:line"` (the function's file
/// and the location's line, when both are known), so that a pattern can pick
/// out one line of R code. A text that does not apply to a location is NA: no
/// function (Go: a Location without lines), no mapping.
///
/// `simple_name` is the text `-prune_from` matches, and nothing else: the
/// function's name as Go's `simplifyFunc()` shortens it ([`simple_name`]);
/// NA for a function without a name, which Go does not match.
#[derive(Debug, Clone, Default)]
pub struct LocationTexts {
    /// Each distinct text once; the columns below are ids into it.
    pub texts: StringPool,
    pub name: Vec<StrId>,
    pub filename: Vec<StrId>,
    pub mapping: Vec<StrId>,
    pub file_line: Vec<StrId>,
    pub simple_name: Vec<StrId>,
}

impl LocationTexts {
    /// The texts of the locations of `p`. A function or mapping id that its
    /// table lacks counts as none (Go treats a Location naming an unknown
    /// mapping as having none); an NA name or file name is matched as "", as
    /// Go has it.
    #[allow(
        clippy::indexing_slicing,
        reason = "function and mapping rows come from their indexes; the tables are checked \
                  rectangular"
    )]
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
            let file_line = filename
                .filter(|f| !f.is_empty() && line > 0)
                .map(|f| format!("{f}:{line}"));
            out.name.push(out.texts.intern_opt(name));
            out.filename.push(out.texts.intern_opt(filename));
            out.mapping.push(
                out.texts
                    .intern_opt(mapping.map(|m| p.str(p.mappings.filename[m]))),
            );
            out.file_line
                .push(out.texts.intern_opt(file_line.as_deref()));
            out.simple_name.push(
                out.texts
                    .intern_opt(name.filter(|n| !n.is_empty()).map(simple_name)),
            );
        }
        Ok(out)
    }
}

/// The texts of a location a pattern may be matched against (see
/// [`LocationTexts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    Name,
    Filename,
    Mapping,
    FileLine,
    SimpleName,
}

impl TextKind {
    /// The kinds by the names R gives them (`frame_texts` in `R/verbs.R`).
    pub const NAMED: [(&'static str, TextKind); 5] = [
        ("name", TextKind::Name),
        ("filename", TextKind::Filename),
        ("mapping", TextKind::Mapping),
        ("file_line", TextKind::FileLine),
        ("simple_name", TextKind::SimpleName),
    ];
}

impl LocationTexts {
    fn column(&self, kind: TextKind) -> &[StrId] {
        match kind {
            TextKind::Name => &self.name,
            TextKind::Filename => &self.filename,
            TextKind::Mapping => &self.mapping,
            TextKind::FileLine => &self.file_line,
            TextKind::SimpleName => &self.simple_name,
        }
    }

    /// One flag per row of `locations`: whether `pattern` is found in one of
    /// the location's texts of the kinds `kinds`. Each distinct text is
    /// matched once; a text that does not apply (NA) matches nothing.
    pub fn matching(&self, pattern: &Pattern, kinds: &[TextKind]) -> Result<Vec<bool>> {
        let found = matching_texts(&self.texts, pattern)?;
        let rows = self.name.len();
        let mut out = Vec::new();
        out.try_reserve_exact(rows)
            .map_err(|_| ProfileError::limit("not enough memory to match the locations"))?;
        out.resize(rows, false);
        for &kind in kinds {
            for (flag, id) in out.iter_mut().zip(self.column(kind)) {
                *flag |= found.get(id.0 as usize).copied().unwrap_or(false);
            }
        }
        Ok(out)
    }
}

/// A function name as Go's `simplifyFunc()` (`profile/prune.go`) shortens it
/// for `-prune_from`: without one leading "." (PowerPC's ELF v1 ABI), and cut
/// at the first "(" that does not begin `(anonymous namespace)` and is not
/// part of `operator()` (C++ argument lists; in Go names, a method's
/// receiver: `sync.(*Mutex).Lock` becomes `sync.`).
pub fn simple_name(name: &str) -> &str {
    const RESERVED: [&str; 2] = ["(anonymous namespace)", "operator()"];
    let name = name.strip_prefix('.').unwrap_or(name);
    let mut at = 0;
    while at < name.len() {
        let rest = &name[at..];
        if let Some(reserved) = RESERVED.iter().find(|r| rest.starts_with(*r)) {
            at += reserved.len();
        } else if rest.starts_with('(') {
            return &name[..at];
        } else {
            at += rest.chars().next().map_or(1, char::len_utf8);
        }
    }
    name
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
pub fn frames_in(p: &Profile, set: &LocationSet) -> Result<Vec<bool>> {
    try_collect(
        p.sample_locations
            .location_id
            .iter()
            .map(|&l| set.contains(l)),
        "frames",
    )
}

/// One flag per row of `samples`: whether the sample has a frame in `set`.
#[allow(
    clippy::indexing_slicing,
    reason = "positions of samples come from SampleRows (below rows.len()); rows below nrow() of a \
              table checked rectangular"
)]
pub fn samples_with_frame_in(p: &Profile, set: &LocationSet) -> Result<Vec<bool>> {
    let rows = SampleRows::new(p)?;
    let sl = &p.sample_locations;
    let mut out = try_filled(rows.len(), false, "samples")?;
    for (s, &location) in rows
        .of(SampleLocations::NAME, &sl.sample_id)
        .zip(&sl.location_id)
    {
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
#[allow(
    clippy::indexing_slicing,
    reason = "positions of samples come from SampleRows (below rows.len()); rows below nrow() of a \
              table checked rectangular"
)]
pub fn frames_cut_at_match(p: &Profile, set: &LocationSet, cut: Cut) -> Result<Vec<bool>> {
    let rows = SampleRows::new(p)?;
    let sl = &p.sample_locations;
    // The depth of each sample's innermost (or outermost) matching frame; 0: none.
    let mut cut_depth = try_filled(rows.len(), 0i32, "samples")?;
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
    let kept = row_samples.zip(&sl.depth).map(|(s, &depth)| {
        let at = cut_depth[s?];
        Ok(match cut {
            Cut::CalleesOfInnermostMatch => at == 0 || depth >= at,
            Cut::CallersOfOutermostMatch => at != 0 && depth <= at,
        })
    });
    try_collect_ok(kept, sl.nrow(), "frames")
}

/// Whether some pprof Location has every one of its frames in `set` (with
/// `in_set`) or none of them (without): whether a verb that removes those
/// frames removes a Location entirely, which is when Go's
/// `FilterSamplesByName` drops the samples it leaves without frames. A pprof
/// Location is a chain of `locations` rows, from a row nothing is inlined
/// into, outwards along `inlined_into`; an Rprof frame is a chain of one.
#[allow(
    clippy::indexing_slicing,
    reason = "rows below nrow() of locations, which Chains::of checks rectangular; all_wanted has \
              one value per row"
)]
pub fn some_whole_location(p: &Profile, set: &LocationSet, in_set: bool) -> Result<bool> {
    let chains = Chains::of(&p.locations)?;
    let l = &p.locations;
    let all_wanted = chains.fold_outwards(true, |row, beyond| {
        beyond && set.contains(l.location_id[row]) == in_set
    })?;
    Ok((0..l.nrow()).any(|row| !chains.is_inlined_into[row] && all_wanted[row]))
}

/// One flag per row of `sample_locations`: false for the lines that Go cuts
/// out of a pprof Location with a line in `set` before it cuts the stacks
/// (`filterShowFromLocation()` and `PruneFrom()` in Go's `profile/`): with
/// [`Cut::CallersOfOutermostMatch`] (`-show_from`), the lines outward of the
/// Location's outermost matching line; with [`Cut::CalleesOfInnermostMatch`]
/// (`-prune_from`), those inward of its innermost matching line. Go cuts the
/// Location itself, so this holds in every stack the Location is in, also
/// where the stack is cut at another Location.
///
/// The lines of one Location are the frames of a stack that follow one
/// another outwards along one chain of `inlined_into` links; a frame that an
/// earlier verb removed leaves a gap, as it leaves the Location shorter in Go.
#[allow(
    clippy::indexing_slicing,
    reason = "frames come from StackOrder (rows of sample_locations, checked rectangular) and \
              index its columns; location rows index places (one per row); start..end stays within \
              the stack"
)]
pub fn location_lines_kept(p: &Profile, set: &LocationSet, cut: Cut) -> Result<Vec<bool>> {
    let sl = &p.sample_locations;
    let mut keep = try_filled(sl.nrow(), true, "frames")?;
    let chains = Chains::of(&p.locations)?;
    let l = &p.locations;
    let in_chain = |row: usize| chains.next[row].is_some() || chains.is_inlined_into[row];
    if !(0..l.nrow()).any(|row| in_chain(row) && set.contains(l.location_id[row])) {
        return Ok(keep);
    }
    let places = chains.places()?;
    let location_rows = IdIndex::try_first_rows(&l.location_id)?;
    let place_of = |frame: usize| {
        location_rows
            .row(sl.location_id[frame])
            .map(|row| places[row])
    };
    let matched = |frame: usize| set.contains(sl.location_id[frame]);
    let rows = SampleRows::new(p)?;
    let order = StackOrder::new(&rows, sl)?;
    for s in 0..rows.len() {
        let stack = order.stack(s);
        let mut start = 0;
        while start < stack.len() {
            let mut end = start + 1;
            while end < stack.len()
                && ChainPlace::continues(place_of(stack[end - 1]), place_of(stack[end]))
            {
                end += 1;
            }
            let lines = &stack[start..end];
            let cut_away = match cut {
                Cut::CallersOfOutermostMatch => lines
                    .iter()
                    .rposition(|&f| matched(f))
                    .map(|k| &lines[k + 1..]),
                Cut::CalleesOfInnermostMatch => {
                    lines.iter().position(|&f| matched(f)).map(|k| &lines[..k])
                }
            };
            for &frame in cut_away.unwrap_or_default() {
                keep[frame] = false;
            }
            start = end;
        }
    }
    Ok(keep)
}

/// The chains of inlined lines of `locations`: the row each row is inlined
/// into, and whether a row has rows inlined into it.
struct Chains {
    next: Vec<Option<usize>>,
    is_inlined_into: Vec<bool>,
}

/// Where a row of `locations` is in its chain: the row of the chain's
/// outermost line, and how many lines lie beyond the row up to it.
#[derive(Clone, Copy)]
struct ChainPlace {
    outermost: usize,
    beyond: usize,
}

impl ChainPlace {
    /// Whether the frame at `outer` is a line of the same Location as the
    /// frame at `inner`, further out (the frames next to each other in a
    /// stack; None: a location the table lacks).
    fn continues(inner: Option<ChainPlace>, outer: Option<ChainPlace>) -> bool {
        match (inner, outer) {
            (Some(i), Some(o)) => i.outermost == o.outermost && o.beyond < i.beyond,
            _ => false,
        }
    }
}

impl Chains {
    #[allow(
        clippy::indexing_slicing,
        reason = "targets are rows from the index of location_id, below nrow()"
    )]
    fn of(l: &Locations) -> Result<Self> {
        if !l.is_rectangular() {
            return Err(ragged(Locations::NAME));
        }
        let rows = IdIndex::try_first_rows(&l.location_id)?;
        let next: Vec<Option<usize>> =
            try_collect(l.inlined_into.iter().map(|&id| rows.row(id)), "locations")?;
        let mut is_inlined_into = try_filled(l.nrow(), false, "locations")?;
        for &target in next.iter().flatten() {
            is_inlined_into[target] = true;
        }
        Ok(Chains {
            next,
            is_inlined_into,
        })
    }

    fn places(&self) -> Result<Vec<ChainPlace>> {
        let places = self.fold_outwards(None, |row, beyond: Option<ChainPlace>| {
            Some(match beyond {
                None => ChainPlace {
                    outermost: row,
                    beyond: 0,
                },
                Some(b) => ChainPlace {
                    outermost: b.outermost,
                    beyond: b.beyond + 1,
                },
            })
        })?;
        // Every row gets a place: the fold's step never gives None.
        let places = places.into_iter().enumerate().map(|(row, p)| {
            p.unwrap_or(ChainPlace {
                outermost: row,
                beyond: 0,
            })
        });
        try_collect(places, "locations")
    }

    /// A value for each row, made by `step` from the row and the value of the
    /// row it is inlined into (`end` past the end of its chain, or where the
    /// links make a cycle, which validation refuses). Each row is looked at
    /// once, however many chains share it.
    #[allow(
        clippy::indexing_slicing,
        reason = "rows are below next.len() (starts, and targets of next, which are rows)"
    )]
    fn fold_outwards<T: Copy>(&self, end: T, step: impl Fn(usize, T) -> T) -> Result<Vec<T>> {
        #[derive(Clone, Copy)]
        enum State<T> {
            Unknown,
            OnPath,
            Known(T),
        }
        let mut state = try_filled(self.next.len(), State::Unknown, "locations")?;
        let mut path = Vec::new();
        for start in 0..self.next.len() {
            let mut at = Some(start);
            let mut beyond = end;
            while let Some(row) = at {
                match state[row] {
                    State::Known(value) => {
                        beyond = value;
                        break;
                    }
                    State::OnPath => break,
                    State::Unknown => {
                        state[row] = State::OnPath;
                        path.push(row);
                        at = self.next[row];
                    }
                }
            }
            while let Some(row) = path.pop() {
                beyond = step(row, beyond);
                state[row] = State::Known(beyond);
            }
        }
        let values = state.into_iter().map(|s| match s {
            State::Known(value) => value,
            State::Unknown | State::OnPath => end,
        });
        try_collect(values, "locations")
    }
}
