//! The ids of one input translated to the ids of the result, and the rows of
//! its tables appended with their ids and strings translated.

use crate::error::{ProfileError, Result};
use crate::id_index::IdIndex;
use crate::model::{too_many, ColMut, ColRef, StrId, NA_INT};

pub(super) fn check_rectangular(table: &str, ok: bool) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(ProfileError::invalid(
            table,
            "(all)",
            None,
            "columns have different lengths",
        ))
    }
}

pub(super) fn translate_str(
    table: &str,
    col: &str,
    row: usize,
    id: StrId,
    strings: &[StrId],
) -> Result<StrId> {
    strings.get(id.0 as usize).copied().ok_or_else(|| {
        ProfileError::invalid(
            table,
            col,
            Some(row + 1),
            "refers to a string that is not in the pool",
        )
    })
}

/// The row of each id of a primary key column of an input (positive and unique).
pub(super) fn key_rows(table: &str, col: &str, ids: &[i32]) -> Result<IdIndex> {
    IdIndex::try_unique_rows(
        ids,
        |row, id| {
            if id > 0 {
                Ok(())
            } else {
                Err(ProfileError::invalid(
                    table,
                    col,
                    Some(row + 1),
                    format!("must be a positive id, found {}", fmt_id(id)),
                ))
            }
        },
        |row, id| {
            ProfileError::invalid(
                table,
                col,
                Some(row + 1),
                format!("is a primary key but {id} occurs more than once"),
            )
        },
    )
}

/// The row of id `id`, found in row `row` of `table`.`col`.
pub(super) fn row_of(rows: &IdIndex, table: &str, col: &str, row: usize, id: i32) -> Result<usize> {
    rows.row(id).ok_or_else(|| dangling(table, col, row, id))
}

pub(super) fn dangling(table: &str, col: &str, row: usize, id: i32) -> ProfileError {
    ProfileError::invalid(
        table,
        col,
        Some(row + 1),
        format!("refers to id {}, which does not exist", fmt_id(id)),
    )
}

/// Translation of one input's ids of a table to the ids of the result.
pub(super) struct Renumbering {
    /// The input's row of each id.
    pub(super) rows: IdIndex,
    pub(super) new_ids: NewIds,
}

/// The new id of each row of an input's table.
pub(super) enum NewIds {
    /// Row `r` gets id `offset + r + 1`.
    After(usize),
    /// Row `r` gets id `ids[r]`.
    Listed(Vec<i32>),
}

impl Renumbering {
    /// New ids `offset + 1, offset + 2, ...` for the rows of a primary key column.
    pub(super) fn consecutive(table: &str, col: &str, old: &[i32], offset: usize) -> Result<Self> {
        let last = offset
            .checked_add(old.len())
            .ok_or_else(|| too_many(table))?;
        if i32::try_from(last).is_err() {
            return Err(too_many(table));
        }
        Ok(Renumbering {
            rows: key_rows(table, col, old)?,
            new_ids: NewIds::After(offset),
        })
    }

    pub(super) fn get(&self, old: i32) -> Option<i32> {
        let row = self.rows.row(old)?;
        match &self.new_ids {
            // Below i32::MAX: checked by `consecutive`.
            NewIds::After(offset) => Some((offset + row + 1) as i32),
            NewIds::Listed(ids) => ids.get(row).copied(),
        }
    }

    /// The new id of `old`, found in row `row` of `table`.`col`.
    pub(super) fn translate(&self, table: &str, col: &str, row: usize, old: i32) -> Result<i32> {
        self.get(old).ok_or_else(|| dangling(table, col, row, old))
    }

    /// Like [`translate`](Self::translate), with NA kept as NA.
    pub(super) fn translate_opt(
        &self,
        table: &str,
        col: &str,
        row: usize,
        old: i32,
    ) -> Result<i32> {
        if old == NA_INT {
            Ok(NA_INT)
        } else {
            self.translate(table, col, row, old)
        }
    }
}

pub(super) fn fmt_id(id: i32) -> String {
    if id == NA_INT {
        "NA".to_string()
    } else {
        id.to_string()
    }
}

/// Appends every row of an input table to the same table of the result: string
/// columns through the string table, the integer columns named in `ids` through
/// their id maps (NA stays NA), all other columns as they are. Working on the
/// generic columns keeps every extension column without listing it here.
pub(super) fn append_rows(
    table: &str,
    out: Vec<(&'static str, ColMut<'_>)>,
    input: Vec<(&'static str, ColRef<'_>)>,
    strings: &[StrId],
    ids: &[(&str, &Renumbering)],
) -> Result<()> {
    let nrow = input.first().map_or(0, |(_, c)| c.len());
    for (_, c) in &input {
        check_rectangular(table, c.len() == nrow)?;
    }
    for ((out_name, out_col), (in_name, in_col)) in out.into_iter().zip(input) {
        let mismatch = || {
            ProfileError::internal(format!(
                "combining: the columns of table `{table}` do not line up at `{in_name}`"
            ))
        };
        if out_name != in_name {
            return Err(mismatch());
        }
        match (out_col, in_col) {
            (ColMut::Int(dest), ColRef::Int(src)) => {
                match ids.iter().find(|(c, _)| *c == in_name) {
                    Some((_, map)) => {
                        dest.reserve(src.len());
                        for (row, &old) in src.iter().enumerate() {
                            dest.push(map.translate_opt(table, in_name, row, old)?);
                        }
                    }
                    None => dest.extend_from_slice(src),
                }
            }
            (ColMut::Lgl(dest), ColRef::Lgl(src)) => dest.extend_from_slice(src),
            (ColMut::Dbl(dest), ColRef::Dbl(src)) => dest.extend_from_slice(src),
            (ColMut::Chr(dest), ColRef::Chr(src)) => {
                dest.reserve(src.len());
                for (row, &id) in src.iter().enumerate() {
                    dest.push(translate_str(table, in_name, row, id, strings)?);
                }
            }
            _ => return Err(mismatch()),
        }
    }
    Ok(())
}
