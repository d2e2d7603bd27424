//! The Locations of a pprof file: chains of inlined frames written as one
//! Location again, the `[R]` mapping of frames from other formats, and the
//! mapping of OTLP frames that have none (see `program.rs`).

use super::program::otlp_program_name;
use super::{internal, SourceInfo, StringTable};
use crate::error::{ProfileError, Result};
use crate::formats::pprof::{proto, R_MAPPING_FILENAME};
use crate::model::address::address_cell;
use crate::model::frames::SampleFrames;
use crate::model::id_index::{IdIndex, IdSet};
use crate::model::{Profile, NA_INT};
use rustc_hash::FxHashMap;

/// How many lines the inlined-frame chains may have in all, beyond one per row:
/// rows read from pprof are in one chain each, while a hand-made tree of
/// `inlined_into` links (many rows inlined into one long chain) would make the
/// writer repeat the long chain for each of them.
pub(super) const CHAIN_ROWS_PER_ROW: usize = 4;

/// The mapping the writer makes for a location that has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MadeMapping {
    /// None: the location is written as it is.
    No,
    /// `[R]`, for frames of Rprof, v1, manual and folded sources.
    R,
    /// The program of OTLP sources, for their frames without a mapping.
    Otlp,
}

/// A mapping the writer makes: its id and the end of the addresses given to
/// its locations (0 while it has none).
#[derive(Debug, Clone, Copy)]
pub(super) struct Made {
    pub(super) id: u64,
    pub(super) address_limit: u64,
}

impl Made {
    /// The address of the location `id` in this mapping: its id.
    fn place(&mut self, id: u64) -> (u64, u64) {
        self.address_limit = self.address_limit.max(id + 1);
        (self.id, id)
    }

    /// The mapping named `filename`, if any location is in it; its frames
    /// have functions, so `go tool pprof` does not look for the binary.
    fn message(&self, filename: i64, has_filenames: bool) -> Option<proto::Mapping> {
        (self.address_limit > 0).then_some(proto::Mapping {
            id: self.id,
            memory_start: 0,
            memory_limit: self.address_limit,
            file_offset: 0,
            filename,
            build_id: 0,
            has_functions: true,
            has_filenames,
            has_line_numbers: has_filenames,
            has_inline_frames: false,
        })
    }
}

/// The pprof Locations being written and how stacks map onto them.
pub(super) struct LocationWriter<'p> {
    pub(super) p: &'p Profile,
    /// Row each row is inlined into.
    pub(super) inlined_into: Vec<Option<usize>>,
    /// The mapping made for each row, if any.
    pub(super) made: Vec<MadeMapping>,
    /// For the innermost row of each chain of inlined rows: the chain's length
    /// and pprof id (0 for other rows); the common case, looked up without hashing.
    pub(super) chain_of_start: Vec<(usize, u64)>,
    /// (first row, number of rows) -> pprof id, for parts of chains.
    pub(super) ids: FxHashMap<(usize, usize), u64>,
    pub(super) taken: rustc_hash::FxHashSet<u64>,
    pub(super) next_free_id: u64,
    pub(super) r_mapping: Made,
    pub(super) otlp_mapping: Made,
    pub(super) out: Vec<proto::Location>,
}

impl<'p> LocationWriter<'p> {
    #[allow(
        clippy::indexing_slicing,
        reason = "rows of locations, from location_index or below nrow(), index its columns and \
                  the per-row vectors (validated profile)"
    )]
    pub(super) fn new(
        p: &'p Profile,
        location_index: &IdIndex,
        made: Vec<MadeMapping>,
    ) -> Result<Self> {
        let l = &p.locations;
        let inlined_into: Vec<Option<usize>> = l
            .inlined_into
            .iter()
            .map(|&x| location_index.row(x))
            .collect();
        let max_id = l.location_id.iter().copied().max().unwrap_or(0).max(0) as u64;
        let max_mapping = p
            .mappings
            .mapping_id
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .max(0) as u64;
        let mut w = LocationWriter {
            p,
            inlined_into,
            made,
            chain_of_start: vec![(0, 0); l.nrow()],
            ids: FxHashMap::default(),
            taken: Default::default(),
            next_free_id: max_id + 1,
            r_mapping: Made {
                id: max_mapping + 1,
                address_limit: 0,
            },
            otlp_mapping: Made {
                id: max_mapping + 2,
                address_limit: 0,
            },
            out: Vec::with_capacity(l.nrow()),
        };
        // Every chain of inlined frames, from its innermost row, in table order, so
        // a pprof file's locations come back in their order and with their ids.
        let mut is_target = vec![false; l.nrow()];
        for &t in w.inlined_into.iter().flatten() {
            is_target[t] = true;
        }
        let mut chain_rows = 0usize;
        let max_chain_rows = l.nrow().saturating_mul(CHAIN_ROWS_PER_ROW).max(1 << 20);
        for (row, _) in is_target.iter().enumerate().filter(|(_, &target)| !target) {
            {
                let chain = w.chain(row)?;
                chain_rows += chain.len();
                if chain_rows > max_chain_rows {
                    return Err(ProfileError::limit(format!(
                        "the `inlined_into` links of `locations` make chains of more than \
                         {max_chain_rows} frames in all (long chains shared by many locations)"
                    )));
                }
                let id = w.add(&chain)?;
                w.chain_of_start[row] = (chain.len(), id);
            }
        }
        Ok(w)
    }

    /// Rows from `row` outwards along `inlined_into`.
    #[allow(
        clippy::indexing_slicing,
        reason = "rows of locations, from location_index; the profile is validated"
    )]
    pub(super) fn chain(&self, row: usize) -> Result<Vec<usize>> {
        let mut chain = vec![row];
        let mut cur = row;
        while let Some(next) = self.inlined_into[cur] {
            if chain.len() > self.inlined_into.len() {
                return Err(ProfileError::inline_cycle(
                    row,
                    self.p.locations.location_id[row],
                ));
            }
            chain.push(next);
            cur = next;
        }
        Ok(chain)
    }

    /// Writes a pprof Location for `rows` (innermost first); its id is the v2 id
    /// of the outermost row unless another Location has it already.
    #[allow(
        clippy::indexing_slicing,
        reason = "rows of locations (the caller's chains) index its columns and `made`; the \
                  profile is validated"
    )]
    pub(super) fn add(&mut self, rows: &[usize]) -> Result<u64> {
        let l = &self.p.locations;
        let (Some(&first), Some(&outer)) = (rows.first(), rows.last()) else {
            return Err(internal("a location without rows".to_string()));
        };
        let preferred = u64::try_from(l.location_id[outer]).unwrap_or(0);
        let id = if preferred > 0 && self.taken.insert(preferred) {
            preferred
        } else {
            while !self.taken.insert(self.next_free_id) {
                self.next_free_id += 1;
            }
            self.next_free_id
        };

        let (mapping_id, address) = match self.made[first] {
            MadeMapping::R => self.r_mapping.place(id),
            MadeMapping::Otlp => self.otlp_mapping.place(id),
            MadeMapping::No => {
                // A mapping id with no mapping (the profile has no `mappings`
                // table) is written as none.
                let m = l.mapping_id[first];
                let written = m != NA_INT && self.p.has_table("mappings");
                (
                    if written { m as u64 } else { 0 },
                    address_cell(self.p, "locations", "address", first, l.address[first])?,
                )
            }
        };
        let lines = rows
            .iter()
            .filter(|&&r| l.function_id[r] != NA_INT)
            .map(|&r| proto::Line {
                function_id: l.function_id[r] as u64,
                line: if l.line[r] == NA_INT {
                    0
                } else {
                    l.line[r] as i64
                },
                column: if l.column[r] == NA_INT {
                    0
                } else {
                    l.column[r] as i64
                },
            })
            .collect();
        self.out.push(proto::Location {
            id,
            mapping_id,
            address,
            line: lines,
            is_folded: l.is_folded[first] != NA_INT && l.is_folded[first] != 0,
        });
        Ok(id)
    }

    /// The pprof location ids of a stack (rows of `locations`): frames that form
    /// a chain of inlined frames become one location.
    #[allow(
        clippy::indexing_slicing,
        reason = "frames are rows of locations (stacks gathered through its index); i + len stays \
                  within frames"
    )]
    pub(super) fn stack_ids(&mut self, frames: &[u32], out: &mut Vec<u64>) -> Result<()> {
        out.clear();
        let mut i = 0;
        while i < frames.len() {
            let first = frames[i] as usize;
            let mut len = 1;
            let mut cur = first;
            while let Some(next) = self.inlined_into[cur] {
                if frames.get(i + len).map(|&f| f as usize) != Some(next) {
                    break;
                }
                len += 1;
                cur = next;
            }
            let id = match self.chain_of_start[first] {
                (full, id) if full == len && id != 0 => id,
                _ => match self.ids.get(&(first, len)) {
                    Some(&id) => id,
                    None => {
                        let rows: Vec<usize> =
                            frames[i..i + len].iter().map(|&f| f as usize).collect();
                        let id = self.add(&rows)?;
                        self.ids.insert((first, len), id);
                        id
                    }
                },
            };
            out.push(id);
            i += len;
        }
        Ok(())
    }

    /// The mappings the writer made (`[R]`, the OTLP program's), those that
    /// any location is in. The OTLP program's is named after what the
    /// sources `is_otlp` marks say of it (see `program.rs`).
    pub(super) fn made_mappings(
        &self,
        is_otlp: &[bool],
        strings: &mut StringTable<'p>,
    ) -> Vec<proto::Mapping> {
        let mut out = Vec::new();
        if self.r_mapping.address_limit > 0 {
            out.extend(
                self.r_mapping
                    .message(strings.add(R_MAPPING_FILENAME), true),
            );
        }
        if self.otlp_mapping.address_limit > 0 {
            let name = otlp_program_name(self.p, is_otlp);
            out.extend(self.otlp_mapping.message(strings.add(name), false));
        }
        out
    }
}

/// The mapping the writer makes for each row of `locations`: `[R]` for rows
/// without a mapping that only samples of sources other than native
/// profilers' files (pprof, OTLP) use; the OTLP program's for rows without a
/// mapping or an address that only samples of OTLP sources use.
#[allow(
    clippy::indexing_slicing,
    reason = "stack frames are rows of locations, sources rows of sources (gathered through their \
              indexes)"
)]
pub(super) fn made_mappings(
    p: &Profile,
    stacks: &SampleFrames,
    source_of_sample: &[usize],
    sources: &SourceInfo,
) -> Vec<MadeMapping> {
    let n_loc = p.locations.nrow();
    let mut loc_pprof = vec![false; n_loc];
    let mut loc_otlp = vec![false; n_loc];
    let mut loc_other = vec![false; n_loc];
    for (pos, &source) in source_of_sample.iter().enumerate() {
        let used = if sources.is_pprof[source] {
            &mut loc_pprof
        } else if sources.is_otlp[source] {
            &mut loc_otlp
        } else {
            &mut loc_other
        };
        for &row in stacks.of(pos) {
            used[row as usize] = true;
        }
    }
    let l = &p.locations;
    (0..n_loc)
        .map(|r| {
            if l.mapping_id[r] != NA_INT || loc_pprof[r] {
                MadeMapping::No
            } else if loc_other[r] && !loc_otlp[r] {
                MadeMapping::R
            } else if loc_otlp[r]
                && !loc_other[r]
                && address_cell(p, "locations", "address", r, l.address[r]).is_ok_and(|a| a == 0)
            {
                MadeMapping::Otlp
            } else {
                MadeMapping::No
            }
        })
        .collect()
}

/// Functions whose locations are all R frames: in the new `[R]` mapping or in
/// an `[R]` mapping read from a file this writer wrote (the rule the reader
/// undoes).
#[allow(
    clippy::indexing_slicing,
    reason = "function rows from function_index index the per-function vectors; mapping rows below \
              nrow()"
)]
pub(super) fn functions_only_in_r(
    p: &Profile,
    made: &[MadeMapping],
    function_index: &IdIndex,
) -> Result<Vec<bool>> {
    let r_mapping_ids: Vec<i32> = (0..p.mappings.nrow())
        .filter(|&i| p.str(p.mappings.filename[i]) == R_MAPPING_FILENAME)
        .map(|i| p.mappings.mapping_id[i])
        .collect();
    let r_mapping_ids = IdSet::try_of(&r_mapping_ids)?;
    let mut fn_in_r = vec![false; p.functions.nrow()];
    let mut fn_elsewhere = vec![false; p.functions.nrow()];
    let l = &p.locations;
    for ((&function_id, mapping_id), &made) in l.function_id.iter().zip(&l.mapping_id).zip(made) {
        if let Some(f) = function_index.row(function_id) {
            if made == MadeMapping::R || r_mapping_ids.contains(*mapping_id) {
                fn_in_r[f] = true;
            } else {
                fn_elsewhere[f] = true;
            }
        }
    }
    Ok(fn_in_r
        .iter()
        .zip(&fn_elsewhere)
        .map(|(&r, &elsewhere)| r && !elsewhere)
        .collect())
}
