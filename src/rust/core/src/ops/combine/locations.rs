//! Locations merged across inputs: each location row resolved to a class (a
//! row of the result), identical rows (same function, line and extension
//! columns, same inlined chain) to the same class, chains resolved from their
//! outermost end.

use super::ids::{check_rectangular, key_rows, row_of, translate_str, NewIds, Renumbering};
use super::Combiner;
use crate::error::{ProfileError, Result};
use crate::model::id_index::IdIndex;
use crate::model::{next_id, too_many, Locations, Profile, StrId, NA_INT};

/// A location row of the result, as the key that identifies it: every column but
/// the id, with ids already translated. `inlined_into` holds the *class* of the
/// target (see [`Combiner::location_final`]), since the final id of a location is
/// only known once its input has been resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct LocationKey {
    function_id: i32,
    line: i32,
    address: StrId,
    mapping_id: i32,
    is_folded: i32,
    column: i32,
    inlined_into_class: u32,
}

pub(super) const NO_CLASS: u32 = u32::MAX;
/// The class of a location row not resolved yet, and of one being resolved (on
/// the `inlined_into` chain being walked).
pub(super) const UNRESOLVED: u32 = u32::MAX;
pub(super) const IN_PROGRESS: u32 = u32::MAX - 1;

impl Combiner {
    /// Resolves the input's locations to classes (merging identical ones), numbers
    /// the classes that first appear in this input in row order, appends them, and
    /// returns the translation of the input's location ids to final ids.
    ///
    /// A location's key contains the class of the location it is inlined into, so
    /// that target is resolved first: each unresolved row starts a walk along its
    /// `inlined_into` chain, which is then resolved from the outermost end.
    #[allow(
        clippy::indexing_slicing,
        reason = "rows below nrow() of the input's locations (checked rectangular), class_of has \
                  one per row"
    )]
    pub(super) fn add_locations(
        &mut self,
        input: &Profile,
        strings: &[StrId],
        functions: &Renumbering,
        mappings: &Renumbering,
    ) -> Result<Renumbering> {
        let loc = &input.locations;
        check_rectangular("locations", loc.is_rectangular())?;
        let rows = key_rows("locations", "location_id", &loc.location_id)?;
        let mut classes = InputClasses {
            class_of: vec![UNRESOLVED; loc.nrow()],
            first_new_class: self.location_keys.len(),
            first_row: Vec::new(),
        };
        let mut chain = Vec::new();
        for start in 0..loc.nrow() {
            if classes.class_of[start] != UNRESOLVED {
                continue;
            }
            walk_inline_chain(loc, &rows, &mut classes.class_of, start, &mut chain)?;
            for &row in chain.iter().rev() {
                // Without a `mappings` table, mapping ids name nothing: no mapping.
                let mappings = input.has_table("mappings").then_some(mappings);
                let key = location_key(
                    loc,
                    row,
                    strings,
                    functions,
                    mappings,
                    &rows,
                    &classes.class_of,
                )?;
                classes.class_of[row] = self.location_class(key, row, &mut classes)?;
            }
        }
        self.append_new_locations(&classes)?;
        // Every row has a class now, and every class its final id.
        let final_ids = classes
            .class_of
            .iter()
            .map(|&class| {
                self.location_final
                    .get(class as usize)
                    .copied()
                    .unwrap_or(NA_INT)
            })
            .collect();
        Ok(Renumbering::new(
            rows,
            NewIds::Listed(final_ids),
            &loc.location_id,
        ))
    }

    /// The class of the location with `key`, found in row `row` of this input: an
    /// existing one (when merging), else a new one.
    #[allow(
        clippy::indexing_slicing,
        reason = "rows below nrow() of the input's locations (checked rectangular); classes are \
                  below location_keys.len()"
    )]
    pub(super) fn location_class(
        &mut self,
        key: LocationKey,
        row: usize,
        classes: &mut InputClasses,
    ) -> Result<u32> {
        let existing = if self.options.merge {
            self.location_index.get(&key).copied()
        } else {
            None
        };
        if let Some(class) = existing {
            // Classes only ever meet rows of later inputs after this input is
            // finished, so a class new here has its first row here.
            if let Some(first) = (class as usize)
                .checked_sub(classes.first_new_class)
                .and_then(|k| classes.first_row.get_mut(k))
            {
                *first = (*first).min(row);
            }
            return Ok(class);
        }
        let class = u32::try_from(self.location_keys.len())
            .ok()
            .filter(|&c| c < IN_PROGRESS)
            .ok_or_else(|| too_many("locations"))?;
        self.location_keys.push(key);
        self.location_final.push(NA_INT);
        classes.first_row.push(row);
        if self.options.merge {
            self.location_index.insert(key, class);
        }
        Ok(class)
    }

    /// Numbers the classes new in this input by their first row and appends
    /// them. A counting sort, since each row is the first row of at most one
    /// class. All of them get their id before any is appended, because an inlined
    /// frame may point to a later row.
    #[allow(
        clippy::indexing_slicing,
        reason = "first rows are rows of the input's locations; classes are below \
                  location_keys.len(), which location_final matches"
    )]
    pub(super) fn append_new_locations(&mut self, classes: &InputClasses) -> Result<()> {
        let mut class_at_row = vec![NO_CLASS; classes.class_of.len()];
        for (k, &row) in classes.first_row.iter().enumerate() {
            class_at_row[row] = (classes.first_new_class + k) as u32;
        }
        let new_classes: Vec<u32> = class_at_row
            .into_iter()
            .filter(|&c| c != NO_CLASS)
            .collect();
        let out = &mut self.out.locations;
        for (k, &class) in new_classes.iter().enumerate() {
            self.location_final[class as usize] = next_id(out.nrow() + k, "locations")?;
        }
        for &class in &new_classes {
            let key = self.location_keys[class as usize];
            push_location(
                out,
                self.location_final[class as usize],
                &key,
                &self.location_final,
            );
        }
        Ok(())
    }
}

pub(super) fn push_location(
    out: &mut Locations,
    id: i32,
    key: &LocationKey,
    location_final: &[i32],
) {
    out.location_id.push(id);
    out.function_id.push(key.function_id);
    out.line.push(key.line);
    out.address.push(key.address);
    out.mapping_id.push(key.mapping_id);
    out.is_folded.push(key.is_folded);
    out.column.push(key.column);
    out.inlined_into
        .push(if key.inlined_into_class == NO_CLASS {
            NA_INT
        } else {
            // The target was resolved before the row that points to it, so it has an id.
            location_final
                .get(key.inlined_into_class as usize)
                .copied()
                .unwrap_or(NA_INT)
        });
}

/// The locations of one input as they are resolved to classes.
pub(super) struct InputClasses {
    /// The class of each row ([`UNRESOLVED`] until resolved).
    class_of: Vec<u32>,
    /// Classes from this one on were created by this input...
    first_new_class: usize,
    /// ...and this is the first row of each of them.
    first_row: Vec<usize>,
}

/// Walks from row `start` along `inlined_into` while the rows are unresolved,
/// marking them in progress; `chain` gets the rows walked, innermost first.
#[allow(
    clippy::indexing_slicing,
    reason = "rows come from the index of location_id of the checked (rectangular) locations, \
              class_of has one per row"
)]
pub(super) fn walk_inline_chain(
    loc: &Locations,
    rows: &IdIndex,
    class_of: &mut [u32],
    start: usize,
    chain: &mut Vec<usize>,
) -> Result<()> {
    chain.clear();
    let mut row = start;
    loop {
        match class_of[row] {
            IN_PROGRESS => return Err(ProfileError::inline_cycle(row, loc.location_id[row])),
            UNRESOLVED => {
                class_of[row] = IN_PROGRESS;
                chain.push(row);
                let target = loc.inlined_into[row];
                if target == NA_INT {
                    return Ok(());
                }
                row = row_of(rows, "locations", "inlined_into", row, target)?;
            }
            _ => return Ok(()),
        }
    }
}

/// The key of location row `row`, whose `inlined_into` target is resolved.
#[allow(
    clippy::indexing_slicing,
    reason = "row is a row of the checked (rectangular) locations; the target's row comes from its \
              index"
)]
pub(super) fn location_key(
    loc: &Locations,
    row: usize,
    strings: &[StrId],
    functions: &Renumbering,
    mappings: Option<&Renumbering>,
    rows: &IdIndex,
    class_of: &[u32],
) -> Result<LocationKey> {
    let target = loc.inlined_into[row];
    let inlined_into_class = if target == NA_INT {
        NO_CLASS
    } else {
        class_of[row_of(rows, "locations", "inlined_into", row, target)?]
    };
    Ok(LocationKey {
        function_id: functions.translate_opt(
            "locations",
            "function_id",
            row,
            loc.function_id[row],
        )?,
        line: loc.line[row],
        address: translate_str("locations", "address", row, loc.address[row], strings)?,
        mapping_id: match mappings {
            Some(m) => m.translate_opt("locations", "mapping_id", row, loc.mapping_id[row])?,
            None => NA_INT,
        },
        is_folded: loc.is_folded[row],
        column: loc.column[row],
        inlined_into_class,
    })
}
