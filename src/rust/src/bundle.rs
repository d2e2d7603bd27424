//! Moving a profile between R and the core. A profile crosses the boundary as a
//! "bundle": `list(strings = <chr>, tables = list(<table> = list(<col> = <vec>)))`,
//! where character columns are 1-based integer codes into `strings` (NA stays NA).
//! Each distinct string thus crosses once, and R expands codes with `strings[codes]`.
//! From R to Rust a character column may also come as it is (a character vector):
//! R's strings are cached, so equal strings share one CHARSXP and each distinct
//! one is converted once (see [`intern_strings`]); that saves R a match() over
//! columns of millions of rows.
//!
//! From Rust to R, columns that have a compact form go as compact columns
//! (see `crate::compact`) unless the caller asks for plain vectors.

use crate::compact::altrep::{concat_vector, cycle_of, cycle_pattern, cycle_vector};
use crate::compact::{columns_from_shape, compact_columns};
use crate::rapi::{
    code_vector, dbl_vector, double_values, has_attributes, int_vector, integer_values, is_r_na,
    lgl_vector, owned_copy, string_elements, strings_of_ids, strings_vector,
};
use crate::text::{self, intern_strings, strings_kept};
use extendr_api::prelude::*;
use profile_core::formats::rprof::CompactRead;
use profile_core::model::schema::NOT_NA;
use profile_core::model::{ColMut, ColRef, ColumnId, SampleValues, EXTENSION_TABLES, NA_INT};
use profile_core::resources::budget::Budget;
use profile_core::resources::memory::try_reserve_advised;
use profile_core::{Profile, ProfileError, StrId, StringPool};

// ---- Rust to R -------------------------------------------------------------

/// A profile as a bundle, its columns compact where they have a compact form
/// and `compact` is true. The profile is consumed: each column is freed as soon
/// as its R vector exists, so the Rust and R copies of a large profile are
/// never both whole (a read's peak memory). What R needs beyond the columns
/// is charged to `budget` first (see [`charge_r_copy`]).
pub fn profile_to_r(p: Profile, compact: bool, budget: &Budget) -> Result<Robj, ProfileError> {
    charge_r_copy(&p, compact, 0, budget)?;
    bundle(p, Vec::new(), compact, Vec::new())
}

/// As [`profile_to_r`] (compact), for a profile whose rows of some columns
/// come after those of R vectors `lead` (one per column, from
/// [`columns_sent_back`]): each of these columns goes to R as the lead's rows
/// followed by its own, in a `concat` vector that holds the lead itself. The
/// columns of `lead_ids` (integer columns) are leads given in Rust, in place
/// of those of `lead`: sent as new R vectors, compact where they have a
/// compact form.
pub fn profile_after_to_r(
    p: Profile,
    mut lead: Vec<(ColumnId, Robj)>,
    lead_ids: Vec<(ColumnId, Vec<i32>)>,
    budget: &Budget,
) -> Result<Robj, ProfileError> {
    let id_bytes = lead_ids
        .iter()
        .map(|(_, ids)| std::mem::size_of::<i32>() as u64 * ids.len() as u64)
        .sum();
    charge_r_copy(&p, true, id_bytes, budget)?;
    for (column, ids) in lead_ids {
        let form = compact_columns(
            column.table,
            &[(column.column, ColRef::Int(&ids))],
            &p.strings,
        )?
        .into_iter()
        .next()
        .flatten();
        let vector = match form {
            Some(v) => v,
            None => int_vector(&ids)?,
        };
        match lead.iter_mut().find(|(id, _)| *id == column) {
            Some(slot) => slot.1 = vector,
            None => lead.push((column, vector)),
        }
    }
    bundle(p, Vec::new(), true, lead)
}

/// The R columns of the tables `tables` of `bundle` that R would get back as
/// they are if `p`, read from `bundle`, were sent to R, so that a caller that
/// puts rows after `p`'s can send only those ([`profile_after_to_r`]): for
/// every column of these tables of `p` that has rows, the R vector it was read
/// from, or, for a column the bundle lacks (which `p` has as NA), those NAs;
/// None where one would not come back the same. A column comes back the same
/// where it came as an R vector of its type (a character column as text, each
/// string of which is read as R holds it: [`strings_kept`]) without
/// attributes, holding no value that the way to R changes (a NaN in a double
/// column becomes R's NA); a logical column is never one of them.
pub fn columns_sent_back(
    bundle: &Robj,
    p: &Profile,
    tables: &[&str],
) -> Result<Option<Vec<(ColumnId, Robj)>>, ProfileError> {
    let (_, r_tables) = bundle_parts(bundle)?;
    let r_tables = text::named_elements(&r_tables);
    let mut out = Vec::new();
    for (table, cols) in p.tables() {
        if !tables.contains(&table) {
            continue;
        }
        let r_cols = element(&r_tables, table)
            .and_then(|t| t.as_list())
            .map(|cols| text::named_elements(&cols))
            .unwrap_or_default();
        for (col, data) in cols {
            if data.is_empty() {
                // (nothing of `p` before the rows sent)
                continue;
            }
            let Some(r_col) = element(&r_cols, col) else {
                match na_vector(data, &p.strings)? {
                    Some(na) => out.push((ColumnId { table, column: col }, na)),
                    None => return Ok(None),
                }
                continue;
            };
            let same = r_col.len() == data.len()
                && !has_attributes(&r_col)
                && match data {
                    ColRef::Int(_) => r_col.rtype() == Rtype::Integers,
                    ColRef::Dbl(v) => {
                        r_col.rtype() == Rtype::Doubles
                            && (NOT_NA.contains(&(table, col))
                                || v.iter().all(|&x| !x.is_nan() || is_r_na(x)))
                    }
                    ColRef::Chr(_) => r_col.rtype() == Rtype::Strings && strings_kept(&r_col),
                    ColRef::Lgl(_) => false,
                };
            if !same {
                return Ok(None);
            }
            out.push((ColumnId { table, column: col }, r_col));
        }
    }
    Ok(Some(out))
}

/// A column of NA (as a column the bundle lacks is read) as R gets it: a
/// character column as text (a `cycle` of NA); None for a logical column.
fn na_vector(data: ColRef<'_>, pool: &StringPool) -> Result<Option<Robj>, ProfileError> {
    Ok(match data {
        ColRef::Int(v) => Some(int_vector(v)?),
        ColRef::Dbl(v) => Some(dbl_vector(v)?),
        ColRef::Chr(v) => cycle_vector(&[StrId::NA], v.len(), pool),
        ColRef::Lgl(_) => None,
    })
}

/// A compact read as a bundle, as [`profile_to_r`] gives the whole read: with
/// `compact`, the compact columns are made from the samples' shape and never
/// written; without, they are written and sent as plain vectors.
pub fn compact_read_to_r(
    read: CompactRead,
    compact: bool,
    budget: &Budget,
) -> Result<Robj, ProfileError> {
    if !compact {
        return profile_to_r(read.expand(budget)?.profile, false, budget);
    }
    let CompactRead { parsed, shape } = read;
    let mut p = parsed.profile;
    // The compact columns made from the shape: at most the ends of a run per
    // sample, for each of the two tables.
    let shape_bytes = 2 * std::mem::size_of::<i32>() as u64 * shape.n_samples() as u64;
    charge_r_copy(&p, true, shape_bytes, budget)?;
    let from_shape = columns_from_shape(&shape, &mut p, budget)?;
    drop(shape);
    bundle(p, from_shape, true, Vec::new())
}

/// R's memory for a string beyond its bytes: the CHARSXP's header and the
/// pointer to it in the character vector.
const R_STRING_BYTES: u64 = 56 + 8;

/// Charges `budget` for what R holds, when `p` is sent as a bundle and R
/// decodes it, beyond the memory of `p`'s columns (charged when they were
/// made), before any R vector is allocated. Each R vector of a column takes
/// the place of the Rust column, which is freed as soon as it is copied
/// ([`bundle`]), and is no larger: an R integer, logical or string code takes
/// the 4 bytes of an `i32` or `StrId`, a double 8. So R needs, beyond the
/// columns: one column copied twice (the largest, while it is copied), the
/// character vector of the strings, the character vectors R makes from string
/// codes (`decode_bundle()`: a pointer per row), and `extra` bytes of compact
/// columns made from a shape.
fn charge_r_copy(
    p: &Profile,
    compact: bool,
    extra: u64,
    budget: &Budget,
) -> Result<(), ProfileError> {
    let strings: u64 = p
        .strings
        .as_slice()
        .iter()
        .map(|s| R_STRING_BYTES + (s.len() as u64 + 8) / 8 * 8)
        .sum();
    let mut largest = 0u64;
    let mut codes_decoded = 0u64;
    for (table, cols) in p.tables() {
        for (col, data) in cols {
            let (rows, size) = match data {
                ColRef::Int(v) | ColRef::Lgl(v) => (v.len(), 4),
                ColRef::Dbl(v) => (v.len(), 8),
                ColRef::Chr(v) => {
                    // The sample types repeat a pattern: R gets them compact.
                    let cycles = compact
                        && (SampleValues::value_type.is(table, col)
                            || SampleValues::unit.is(table, col)
                            || crate::compact::single_value_column(table, col, v).is_some());
                    if !cycles {
                        codes_decoded += v.len() as u64 * 8;
                    }
                    (v.len(), 4)
                }
            };
            largest = largest.max(rows as u64 * size);
        }
    }
    let total = strings + largest + codes_decoded + extra;
    budget.charge(total, || "the profile's copy in R".to_string())
}

/// The bundle of `p`, with the R vectors in `given` in place of those columns
/// and, with `compact`, the compact form of every other column that has one;
/// each column of `lead` after the R vector there (see [`profile_after_to_r`]).
fn bundle(
    mut p: Profile,
    mut given: Vec<(ColumnId, Robj)>,
    compact: bool,
    mut lead: Vec<(ColumnId, Robj)>,
) -> Result<Robj, ProfileError> {
    let strings = strings_vector(&p.strings);
    // Tables the profile does not have (of a format that does not fill them)
    // are left out.
    let names: Vec<&'static str> = p
        .tables()
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| p.has_table(name))
        .collect();
    let mut tables = Vec::new();
    for &name in &names {
        let compact_forms = if compact {
            table_compact_columns(&p, name, &given)?
        } else {
            Vec::new()
        };
        let mut col_names = Vec::new();
        let mut col_values = Vec::new();
        let cols = p.table_mut(name).unwrap_or_default();
        let compact_forms = compact_forms.into_iter().chain(std::iter::repeat(None));
        for ((col, data), compact_form) in cols.into_iter().zip(compact_forms) {
            col_names.push(col);
            let given = given
                .iter()
                .position(|(id, _)| id.is(name, col))
                .map(|at| given.swap_remove(at).1);
            let lead = lead
                .iter()
                .position(|(id, _)| id.is(name, col))
                .map(|at| lead.swap_remove(at).1);
            let value = match given.or(compact_form) {
                Some(v) => {
                    drop_column(data);
                    v
                }
                // A lead is text: so are the rows after it.
                None if lead.is_some() => text_or_plain_vector(data, &strings)?,
                None => plain_vector(data)?,
            };
            col_values.push(match lead {
                Some(lead) => joined(lead, value)?,
                None => value,
            });
        }
        tables.push(named_list(col_names, col_values));
    }
    Ok(named_list(
        vec!["strings", "tables"],
        vec![strings, named_list(names, tables)],
    ))
}

/// The compact form of each column of `table` in `p` that has one, except the
/// columns `given` already (they are not looked at again: an empty column has
/// no compact form).
fn table_compact_columns(
    p: &Profile,
    table: &str,
    given: &[(ColumnId, Robj)],
) -> Result<Vec<Option<Robj>>, ProfileError> {
    let Some((_, mut cols)) = p.tables().into_iter().find(|(n, _)| *n == table) else {
        return Ok(Vec::new());
    };
    for (name, col) in &mut cols {
        if given.iter().any(|(id, _)| id.is(table, name)) {
            *col = match col {
                ColRef::Int(_) => ColRef::Int(&[]),
                ColRef::Lgl(_) => ColRef::Lgl(&[]),
                ColRef::Dbl(_) => ColRef::Dbl(&[]),
                ColRef::Chr(_) => ColRef::Chr(&[]),
            };
        }
    }
    compact_columns(table, &cols, &p.strings)
}

/// A column as an ordinary R vector; the column's memory is freed.
fn plain_vector(data: ColMut<'_>) -> Result<Robj, ProfileError> {
    match data {
        ColMut::Int(v) => int_vector(&std::mem::take(v)),
        ColMut::Lgl(v) => lgl_vector(&std::mem::take(v)),
        ColMut::Dbl(v) => dbl_vector(&std::mem::take(v)),
        ColMut::Chr(v) => code_vector(&std::mem::take(v)),
    }
}

/// As [`plain_vector`], with a string column as a character vector (its
/// strings those of `strings`, the pool as R has it) instead of codes.
fn text_or_plain_vector(data: ColMut<'_>, strings: &Robj) -> Result<Robj, ProfileError> {
    match data {
        ColMut::Chr(v) => strings_of_ids(&std::mem::take(v), strings),
        other => plain_vector(other),
    }
}

/// The rows of `first`, then those of `second` (of the same type): either one
/// where the other has none, one `cycle` where both repeat one pattern
/// (`sample_values$type` and `unit`, which R's summaries read by their
/// pattern), else a `concat` vector of both.
fn joined(first: Robj, second: Robj) -> Result<Robj, ProfileError> {
    if second.len() == 0 {
        return Ok(first);
    }
    if first.len() == 0 {
        return Ok(second);
    }
    if let Some(cycle) = one_cycle(&first, &second) {
        return Ok(cycle);
    }
    concat_vector(&first, &second).ok_or_else(|| {
        ProfileError::internal("the rows of a column could not be joined to those before them")
    })
}

/// The `cycle` of the rows of `first` and then `second`, two `cycle` columns
/// of the same strings (the same CHARSXPs) in their patterns, where `first`
/// ends where its pattern does.
fn one_cycle(first: &Robj, second: &Robj) -> Option<Robj> {
    let ((a, n_a), (b, n_b)) = cycle_pattern(first).zip(cycle_pattern(second))?;
    let same = a.len() == b.len()
        && n_a.checked_rem(a.len()) == Some(0)
        && string_elements(&a).0.eq(string_elements(&b).0);
    if !same {
        return None;
    }
    cycle_of(&a, n_a.checked_add(n_b)?)
}

/// Frees a column's memory.
fn drop_column(data: ColMut<'_>) {
    match data {
        ColMut::Int(v) | ColMut::Lgl(v) => drop(std::mem::take(v)),
        ColMut::Dbl(v) => drop(std::mem::take(v)),
        ColMut::Chr(v) => drop(std::mem::take(v)),
    }
}

fn named_list(names: Vec<&str>, values: Vec<Robj>) -> Robj {
    let mut list = List::from_values(values);
    // Setting names only fails for a length mismatch, which cannot happen here.
    let _ = list.set_names(names);
    list.into()
}

// ---- R to Rust -------------------------------------------------------------

/// A bundle as a profile. Known columns missing from a table are filled with NA
/// (extension columns are optional), extension tables missing from the bundle
/// are recorded as absent; unknown tables and columns are ignored.
pub fn profile_from_r(bundle: &Robj) -> Result<Profile, ProfileError> {
    let (strings, tables) = bundle_parts(bundle)?;
    let mut p = Profile::default();
    let code_ids = string_code_ids(strings, &mut p.strings)?;
    // Character columns that came as character vectors are interned first, while
    // the pool can still be borrowed apart from the tables.
    let mut interned = intern_character_columns(&tables, &mut p.strings);
    let mut present = Vec::new();
    for (table, value) in text::named_elements(&tables) {
        let Some(cols) = value.as_list() else {
            return Err(ProfileError::invalid(
                &table,
                "(table)",
                None,
                "is not a list of columns",
            ));
        };
        read_table(
            &mut p,
            &table,
            &text::named_elements(&cols),
            &code_ids,
            &mut interned,
        )?;
        present.push(table);
    }
    p.absent_tables = EXTENSION_TABLES
        .into_iter()
        .filter(|t| !present.iter().any(|name| name == t))
        .collect();
    Ok(p)
}

fn bad_bundle(message: &str) -> ProfileError {
    ProfileError::invalid("(bundle)", "(bundle)", None, message)
}

fn element(elements: &[(String, Robj)], name: &str) -> Option<Robj> {
    elements
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
}

/// The bundle's `strings` and `tables`.
fn bundle_parts(bundle: &Robj) -> Result<(Robj, List), ProfileError> {
    let list: List = bundle
        .as_list()
        .ok_or_else(|| bad_bundle("is not a list"))?;
    let parts = text::named_elements(&list);
    let strings = element(&parts, "strings").ok_or_else(|| bad_bundle("has no strings"))?;
    let tables = element(&parts, "tables")
        .and_then(|t| t.as_list())
        .ok_or_else(|| bad_bundle("has no tables"))?;
    Ok((strings, tables))
}

/// The id in `pool` of each string code: element `k` for code `k`, element 0
/// (no code) NA.
fn string_code_ids(strings: Robj, pool: &mut StringPool) -> Result<Vec<StrId>, ProfileError> {
    let strings = Strings::try_from(strings).map_err(|_| bad_bundle("strings is not character"))?;
    let mut code_ids = vec![StrId::NA];
    for s in strings.iter() {
        code_ids.push(match text::text(s) {
            None => StrId::NA,
            Some(s) => pool.intern(&s),
        });
    }
    Ok(code_ids)
}

/// A character column that came as a character vector, as ids.
struct InternedColumn {
    table: String,
    column: String,
    ids: Vec<StrId>,
}

/// The columns of `tables` that are character vectors, interned into `pool`.
fn intern_character_columns(tables: &List, pool: &mut StringPool) -> Vec<InternedColumn> {
    let mut interned = Vec::new();
    for (table, value) in text::named_elements(tables) {
        let Some(cols) = value.as_list() else {
            continue;
        };
        for (column, c) in text::named_elements(&cols) {
            if c.rtype() == Rtype::Strings {
                let ids = intern_strings(&c, pool);
                interned.push(InternedColumn {
                    table: table.clone(),
                    column,
                    ids,
                });
            }
        }
    }
    interned
}

/// Fills the table `table` of `p` (if the model has it) from the R columns
/// `cols`; a known column that `cols` lacks is filled with NA.
fn read_table(
    p: &mut Profile,
    table: &str,
    cols: &[(String, Robj)],
    code_ids: &[StrId],
    interned: &mut [InternedColumn],
) -> Result<(), ProfileError> {
    let nrow = cols.first().map_or(0, |(_, c)| c.len());
    let Some(targets) = p.table_mut(table) else {
        return Ok(());
    };
    for (col, mut target) in targets {
        match element(cols, col) {
            None => target.fill_na(nrow),
            Some(src) => read_column(&mut target, &src, table, col, code_ids, interned)?,
        }
    }
    Ok(())
}

/// Reads the R column `src` into `target`, the column `col` of `table`.
fn read_column(
    target: &mut ColMut<'_>,
    src: &Robj,
    table: &str,
    col: &str,
    code_ids: &[StrId],
    interned: &mut [InternedColumn],
) -> Result<(), ProfileError> {
    let wrong_type = |expected: &str| {
        ProfileError::invalid(
            table,
            col,
            None,
            format!("must be {expected}, found {:?}", src.rtype()),
        )
    };
    match target {
        ColMut::Int(v) => {
            **v = owned_copy(integer_values(src)?.ok_or_else(|| wrong_type("integer"))?)?;
        }
        ColMut::Lgl(v) => {
            let l = src
                .as_logical_slice()
                .ok_or_else(|| wrong_type("logical"))?;
            let mut values = Vec::new();
            try_reserve_advised(&mut values, l.len()).map_err(|_| {
                ProfileError::limit(format!(
                    "a column of {} values does not fit in memory",
                    l.len()
                ))
            })?;
            values.extend(l.iter().map(|b| b.0));
            **v = values;
        }
        ColMut::Dbl(v) => {
            **v = owned_copy(double_values(src)?.ok_or_else(|| wrong_type("double"))?)?;
        }
        ColMut::Chr(v) if src.rtype() == Rtype::Strings => {
            let column = interned
                .iter_mut()
                .find(|c| c.table == table && c.column == col);
            **v = column
                .map(|c| std::mem::take(&mut c.ids))
                .unwrap_or_default();
        }
        ColMut::Chr(v) => {
            let codes = integer_values(src)?.ok_or_else(|| wrong_type("string codes"))?;
            **v = ids_of_codes(&codes, code_ids, table, col)?;
        }
    }
    Ok(())
}

/// String codes (1-based into the bundle's `strings`, or NA) as ids.
fn ids_of_codes(
    codes: &[i32],
    code_ids: &[StrId],
    table: &str,
    col: &str,
) -> Result<Vec<StrId>, ProfileError> {
    let mut out = Vec::new();
    let n = codes.len();
    try_reserve_advised(&mut out, n).map_err(|_| {
        ProfileError::limit(format!("a column of {n} values does not fit in memory"))
    })?;
    for (row, &c) in codes.iter().enumerate() {
        if c == NA_INT {
            out.push(StrId::NA);
            continue;
        }
        let id = usize::try_from(c)
            .ok()
            .and_then(|c| code_ids.get(c))
            .ok_or_else(|| {
                ProfileError::invalid(table, col, Some(row + 1), "string code out of range")
            })?;
        out.push(*id);
    }
    Ok(out)
}
