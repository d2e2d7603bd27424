//! The ids of one input translated to the ids of the result, and the rows of
//! its tables appended with their ids and strings translated.

use crate::error::{ProfileError, Result};
use crate::model::id_index::IdIndex;
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

/// Whether `ids` are 1, 2, ..., n in order.
pub(super) fn is_one_to_n(ids: &[i32]) -> bool {
    ids.iter()
        .zip(1i64..)
        .all(|(&id, expected)| i64::from(id) == expected)
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
    /// The number of ids, and whether they are 1..n in row order.
    pub(super) n_ids: usize,
    pub(super) in_row_order: bool,
}

/// A [`Renumbering`] of ids 1..n in row order (as the readers number rows),
/// which translates an id with an addition or one load, no lookup.
#[derive(Clone, Copy)]
pub(super) struct DenseIds<'a> {
    n: i32,
    new_ids: &'a NewIds,
}

impl DenseIds<'_> {
    /// Whether every id of `ids` is NA or one of 1..n (then [`translate`](Self::translate)
    /// is the renumbering's translation of each).
    pub(super) fn covers(&self, ids: &[i32]) -> bool {
        let n = self.n;
        ids.iter().all(|&id| id == NA_INT || (1..=n).contains(&id))
    }

    /// The new id of `old`, NA or one of 1..n.
    #[allow(
        clippy::indexing_slicing,
        reason = "old is in 1..=n (covers), and a listed renumbering has n ids"
    )]
    pub(super) fn translate(&self, old: i32) -> i32 {
        if old == NA_INT {
            return NA_INT;
        }
        match self.new_ids {
            // Below i32::MAX: checked by `consecutive`.
            NewIds::After(offset) => (*offset as i32).wrapping_add(old),
            NewIds::Listed(ids) => ids[(old - 1) as usize],
        }
    }

    /// Whether every id keeps its number.
    pub(super) fn is_identity(&self) -> bool {
        match self.new_ids {
            NewIds::After(offset) => *offset == 0,
            NewIds::Listed(ids) => ids.iter().enumerate().all(|(r, &id)| id as usize == r + 1),
        }
    }
}

/// The new id of each row of an input's table.
pub(super) enum NewIds {
    /// Row `r` gets id `offset + r + 1`.
    After(usize),
    /// Row `r` gets id `ids[r]`.
    Listed(Vec<i32>),
}

impl Renumbering {
    /// The renumbering of the ids `old` (the input's key column), whose rows
    /// `rows` gives, to `new_ids`.
    pub(super) fn new(rows: IdIndex, new_ids: NewIds, old: &[i32]) -> Self {
        Renumbering {
            rows,
            new_ids,
            n_ids: old.len(),
            in_row_order: is_one_to_n(old),
        }
    }

    /// New ids `offset + 1, offset + 2, ...` for the rows of a primary key column.
    pub(super) fn consecutive(table: &str, col: &str, old: &[i32], offset: usize) -> Result<Self> {
        let last = offset
            .checked_add(old.len())
            .ok_or_else(|| too_many(table))?;
        if i32::try_from(last).is_err() {
            return Err(too_many(table));
        }
        Ok(Renumbering::new(
            key_rows(table, col, old)?,
            NewIds::After(offset),
            old,
        ))
    }

    /// The renumbering as [`DenseIds`], where the input's ids are 1..n in row order.
    pub(super) fn dense(&self) -> Option<DenseIds<'_>> {
        let n = i32::try_from(self.n_ids).ok()?;
        let listed_all = match &self.new_ids {
            NewIds::After(_) => true,
            NewIds::Listed(ids) => ids.len() == self.n_ids,
        };
        (listed_all && self.in_row_order).then_some(DenseIds {
            n,
            new_ids: &self.new_ids,
        })
    }

    /// Whether every id keeps its number (the input's ids are 1..n in row
    /// order and each is translated to itself).
    pub(super) fn is_identity(&self) -> bool {
        self.dense().is_some_and(|d| d.is_identity())
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
    let input: Vec<(&'static str, Source<'_>)> = input
        .into_iter()
        .map(|(name, col)| (name, Source::Borrowed(col)))
        .collect();
    add_rows(table, out, input, strings, ids)
}

/// As [`append_rows`], for an input table the caller gives up: where the
/// result's column is still empty, the input's column takes its place and is
/// translated where it is (no copy, no new memory).
pub(super) fn move_rows(
    table: &str,
    out: Vec<(&'static str, ColMut<'_>)>,
    input: Vec<(&'static str, ColMut<'_>)>,
    strings: &[StrId],
    ids: &[(&str, &Renumbering)],
) -> Result<()> {
    let input: Vec<(&'static str, Source<'_>)> = input
        .into_iter()
        .map(|(name, col)| (name, Source::Owned(col)))
        .collect();
    add_rows(table, out, input, strings, ids)
}

/// An input column: borrowed (copied), or given up (moved where it can be).
enum Source<'a> {
    Borrowed(ColRef<'a>),
    Owned(ColMut<'a>),
}

impl Source<'_> {
    fn len(&self) -> usize {
        match self {
            Source::Borrowed(c) => c.len(),
            Source::Owned(c) => c.len(),
        }
    }
}

fn add_rows(
    table: &str,
    out: Vec<(&'static str, ColMut<'_>)>,
    input: Vec<(&'static str, Source<'_>)>,
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
        let id_map = ids.iter().find(|(c, _)| *c == in_name).map(|&(_, m)| m);
        let column = Column {
            table,
            name: in_name,
            strings,
            id_map,
        };
        match (out_col, in_col) {
            (ColMut::Int(dest), Source::Borrowed(ColRef::Int(src))) => column.ints(dest, src)?,
            (ColMut::Int(dest), Source::Owned(ColMut::Int(src))) => {
                if dest.is_empty() {
                    std::mem::swap(dest, src);
                    column.ints_in_place(dest)?;
                } else {
                    column.ints(dest, src)?;
                }
            }
            (ColMut::Lgl(dest), Source::Borrowed(ColRef::Lgl(src))) => extend(dest, src, table)?,
            (ColMut::Lgl(dest), Source::Owned(ColMut::Lgl(src)))
            | (ColMut::Int(dest), Source::Owned(ColMut::Lgl(src))) => {
                move_or_extend(dest, src, table)?;
            }
            (ColMut::Dbl(dest), Source::Borrowed(ColRef::Dbl(src))) => extend(dest, src, table)?,
            (ColMut::Dbl(dest), Source::Owned(ColMut::Dbl(src))) => {
                move_or_extend(dest, src, table)?;
            }
            (ColMut::Chr(dest), Source::Borrowed(ColRef::Chr(src))) => column.strs(dest, src)?,
            (ColMut::Chr(dest), Source::Owned(ColMut::Chr(src))) => {
                if dest.is_empty() {
                    std::mem::swap(dest, src);
                    column.strs_in_place(dest)?;
                } else {
                    column.strs(dest, src)?;
                }
            }
            _ => return Err(mismatch()),
        }
    }
    Ok(())
}

/// Room for `n` more values in `dest`, or an error of kind `limit`.
fn room<T>(dest: &mut Vec<T>, n: usize, table: &str) -> Result<()> {
    dest.try_reserve(n).map_err(|_| {
        ProfileError::limit(format!(
            "not enough memory to combine {n} rows of table `{table}`"
        ))
    })
}

fn extend<T: Copy>(dest: &mut Vec<T>, src: &[T], table: &str) -> Result<()> {
    room(dest, src.len(), table)?;
    dest.extend_from_slice(src);
    Ok(())
}

fn move_or_extend<T: Copy>(dest: &mut Vec<T>, src: &mut Vec<T>, table: &str) -> Result<()> {
    if dest.is_empty() {
        std::mem::swap(dest, src);
        Ok(())
    } else {
        extend(dest, src, table)
    }
}

/// The ids `src` of the column `table`.`col` translated by `map` (NA stays
/// NA), in a new vector.
pub(super) fn translated(
    table: &str,
    col: &str,
    src: &[i32],
    map: &Renumbering,
) -> Result<Vec<i32>> {
    let mut out = Vec::new();
    let column = Column {
        table,
        name: col,
        strings: &[],
        id_map: Some(map),
    };
    column.ints(&mut out, src)?;
    Ok(out)
}

/// One column being added: how its values are translated.
struct Column<'a> {
    table: &'a str,
    name: &'a str,
    strings: &'a [StrId],
    id_map: Option<&'a Renumbering>,
}

impl Column<'_> {
    fn ints(&self, dest: &mut Vec<i32>, src: &[i32]) -> Result<()> {
        room(dest, src.len(), self.table)?;
        let Some(map) = self.id_map else {
            dest.extend_from_slice(src);
            return Ok(());
        };
        if let Some(dense) = map.dense().filter(|d| d.covers(src)) {
            dest.extend(src.iter().map(|&old| dense.translate(old)));
            return Ok(());
        }
        for (row, &old) in src.iter().enumerate() {
            dest.push(map.translate_opt(self.table, self.name, row, old)?);
        }
        Ok(())
    }

    fn ints_in_place(&self, col: &mut [i32]) -> Result<()> {
        let Some(map) = self.id_map else {
            return Ok(());
        };
        if let Some(dense) = map.dense().filter(|d| d.covers(col)) {
            if !dense.is_identity() {
                col.iter_mut().for_each(|v| *v = dense.translate(*v));
            }
            return Ok(());
        }
        // Checked before anything changes: an error leaves the column whole.
        for (row, &old) in col.iter().enumerate() {
            map.translate_opt(self.table, self.name, row, old)?;
        }
        for (row, v) in col.iter_mut().enumerate() {
            *v = map.translate_opt(self.table, self.name, row, *v)?;
        }
        Ok(())
    }

    fn strs(&self, dest: &mut Vec<StrId>, src: &[StrId]) -> Result<()> {
        room(dest, src.len(), self.table)?;
        if let Some(max) = src.iter().map(|id| id.0).max() {
            if (max as usize) < self.strings.len() {
                #[allow(
                    clippy::indexing_slicing,
                    reason = "every id is at most max, below the length of strings"
                )]
                dest.extend(src.iter().map(|id| self.strings[id.0 as usize]));
                return Ok(());
            }
        }
        for (row, &id) in src.iter().enumerate() {
            dest.push(translate_str(self.table, self.name, row, id, self.strings)?);
        }
        Ok(())
    }

    fn strs_in_place(&self, col: &mut [StrId]) -> Result<()> {
        for (row, &id) in col.iter().enumerate() {
            translate_str(self.table, self.name, row, id, self.strings)?;
        }
        let identity = self
            .strings
            .iter()
            .enumerate()
            .all(|(i, s)| s.0 as usize == i);
        if !identity {
            for id in col.iter_mut() {
                *id = self
                    .strings
                    .get(id.0 as usize)
                    .copied()
                    .unwrap_or(StrId::NA);
            }
        }
        Ok(())
    }
}
