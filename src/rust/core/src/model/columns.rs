//! Columns and tables in general: borrowed views of columns of any type
//! ([`ColRef`], [`ColMut`]), the rules of the format for each column
//! ([`ColumnRules`]), and the `table!` macro that declares a table's columns
//! with their rules once.

use super::{StrId, NA_INT};

/// A borrowed column, for code that treats tables generically.
#[derive(Debug, Clone, Copy)]
pub enum ColRef<'a> {
    Int(&'a [i32]),
    Dbl(&'a [f64]),
    Chr(&'a [StrId]),
    Lgl(&'a [i32]),
}

impl ColRef<'_> {
    pub fn len(&self) -> usize {
        match self {
            ColRef::Int(v) | ColRef::Lgl(v) => v.len(),
            ColRef::Dbl(v) => v.len(),
            ColRef::Chr(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether row `i` is NA (out-of-range rows count as NA).
    pub fn is_na(&self, i: usize) -> bool {
        match self {
            ColRef::Int(v) | ColRef::Lgl(v) => v.get(i).is_none_or(|&x| x == NA_INT),
            ColRef::Dbl(v) => v.get(i).is_none_or(|x| x.is_nan()),
            ColRef::Chr(v) => v.get(i).is_none_or(|x| x.is_na()),
        }
    }
}

/// A mutable column, for the binding to fill tables generically.
#[derive(Debug)]
pub enum ColMut<'a> {
    Int(&'a mut Vec<i32>),
    Dbl(&'a mut Vec<f64>),
    Chr(&'a mut Vec<StrId>),
    Lgl(&'a mut Vec<i32>),
}

impl ColMut<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            ColMut::Int(v) | ColMut::Lgl(v) => v.len(),
            ColMut::Dbl(v) => v.len(),
            ColMut::Chr(v) => v.len(),
        }
    }

    /// Extends the column with NAs to `n` values.
    pub(crate) fn pad_na(&mut self, n: usize) {
        match self {
            ColMut::Int(v) | ColMut::Lgl(v) => v.resize(n.max(v.len()), NA_INT),
            ColMut::Dbl(v) => v.resize(n.max(v.len()), f64::NAN),
            ColMut::Chr(v) => v.resize(n.max(v.len()), StrId::NA),
        }
    }

    /// Fill the column with `n` NAs (for an optional column absent from the input).
    pub fn fill_na(&mut self, n: usize) {
        match self {
            ColMut::Int(v) | ColMut::Lgl(v) => {
                v.clear();
                v.resize(n, NA_INT)
            }
            ColMut::Dbl(v) => {
                v.clear();
                v.resize(n, f64::NAN)
            }
            ColMut::Chr(v) => {
                v.clear();
                v.resize(n, StrId::NA)
            }
        }
    }
}

/// A column of the model, named as its `table!` definition names it (the names
/// R shows). Each table has one per field, under the field's name: code that
/// picks out a column, such as `SampleValues::value_type`, says which field it
/// means and gets the names from the definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ColumnId {
    pub table: &'static str,
    pub column: &'static str,
}

impl ColumnId {
    /// Whether this is the column `column` of the table `table`.
    pub fn is(self, table: &str, column: &str) -> bool {
        self.table == table && self.column == column
    }
}

/// The type of a column: what R holds it as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColType {
    Int,
    Dbl,
    Chr,
    Lgl,
}

/// Which non-NA values a numeric column may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueRange {
    Any,
    /// Ids, depths: > 0 (integer columns).
    Positive,
    /// Lines (0 is unknown), times: >= 0; a double must also be finite.
    NonNegative,
}

/// The rules of the v2 format for one column, declared with it in [`table!`]
/// (see `schema.rs` for the lists the validator and the R side read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnRules {
    pub name: &'static str,
    pub col_type: ColType,
    /// Required by the format; the others are extension columns, optional in
    /// input, and come after the required ones.
    pub required: bool,
    pub not_na: bool,
    pub values: ValueRange,
    /// The table's (single-column) primary key.
    pub primary_key: bool,
    /// The (table, column) this column is a foreign key to.
    pub references: Option<(&'static str, &'static str)>,
}

impl ColumnRules {
    /// An extension column without rules.
    pub const fn new(name: &'static str, col_type: ColType) -> Self {
        ColumnRules {
            name,
            col_type,
            required: false,
            not_na: false,
            values: ValueRange::Any,
            primary_key: false,
            references: None,
        }
    }
    pub(super) const fn required(self) -> Self {
        ColumnRules {
            required: true,
            ..self
        }
    }
    pub(super) const fn not_na(self) -> Self {
        ColumnRules {
            not_na: true,
            ..self
        }
    }
    pub(super) const fn positive(self) -> Self {
        ColumnRules {
            values: ValueRange::Positive,
            ..self
        }
    }
    pub(super) const fn non_negative(self) -> Self {
        ColumnRules {
            values: ValueRange::NonNegative,
            ..self
        }
    }
    pub(super) const fn primary_key(self) -> Self {
        ColumnRules {
            primary_key: true,
            ..self
        }
    }
    pub(super) const fn references(self, table: &'static str, column: &'static str) -> Self {
        ColumnRules {
            references: Some((table, column)),
            ..self
        }
    }
}

/// A table's name, its columns with their rules (in R column order) and its
/// compound unique keys.
#[derive(Debug, Clone, Copy)]
pub struct TableRules {
    pub name: &'static str,
    pub columns: &'static [ColumnRules],
    pub unique_keys: &'static [&'static [&'static str]],
}

macro_rules! elem_type {
    (Int) => {
        i32
    };
    (Dbl) => {
        f64
    };
    (Chr) => {
        StrId
    };
    (Lgl) => {
        i32
    };
}

/// The rules of a column from the words in its `[...]` in [`table!`].
macro_rules! column_rules {
    ($rules:expr;) => { $rules };
    ($rules:expr; required $($rest:tt)*) => { column_rules!($rules.required(); $($rest)*) };
    ($rules:expr; not_na $($rest:tt)*) => { column_rules!($rules.not_na(); $($rest)*) };
    ($rules:expr; positive $($rest:tt)*) => { column_rules!($rules.positive(); $($rest)*) };
    ($rules:expr; non_negative $($rest:tt)*) => { column_rules!($rules.non_negative(); $($rest)*) };
    ($rules:expr; primary_key $($rest:tt)*) => { column_rules!($rules.primary_key(); $($rest)*) };
    ($rules:expr; references($table:literal, $column:literal) $($rest:tt)*) => {
        column_rules!($rules.references($table, $column); $($rest)*)
    };
}

/// Keeps the values of `column` where `keep` is true, in order; values past the
/// end of `keep` go. Every value is copied forward whether kept or not, so the
/// loop has no branch to mispredict (verbs filter columns of millions of rows).
#[allow(
    clippy::indexing_slicing,
    reason = "row < n <= column.len(), and kept <= row (branch-free copy in a hot loop)"
)]
pub(super) fn retain_rows<T: Copy>(column: &mut Vec<T>, keep: &[bool]) {
    let n = column.len().min(keep.len());
    let values = column.as_mut_slice();
    let mut kept = 0;
    for (row, &k) in keep.iter().enumerate().take(n) {
        values[kept] = values[row];
        kept += usize::from(k);
    }
    column.truncate(kept);
}

/// Defines a table struct whose fields are its columns, in R column order, the
/// generic views over them, and the rules of the format for each column: a
/// column is declared once, as `field: Type = "r_name" [rules]`, where the rules
/// are `required` (else an extension column), `not_na`, `positive` (integers)
/// or `non_negative` (integers and doubles), `primary_key` and `references("table",
/// "column")`. Compound unique keys follow the table name as `unique [...]`.
macro_rules! table {
    (
        $(#[$doc:meta])* $Name:ident = $tname:literal $(, unique [$($ukey:literal),+])* {
            $($(#[$fdoc:meta])* $field:ident: $kind:ident = $col:literal $([$($rule:tt)*])?),+ $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct $Name {
            $($(#[$fdoc])* pub $field: Vec<elem_type!($kind)>,)+
        }

        impl $Name {
            /// The table's name in R.
            pub const NAME: &'static str = $tname;
            /// Column names in R order.
            pub const COLUMNS: &'static [&'static str] = &[$($col),+];
            /// The rules of the format for the table and each column.
            pub const RULES: TableRules = TableRules {
                name: $tname,
                columns: &[$(column_rules!(ColumnRules::new($col, ColType::$kind); $($($rule)*)?)),+],
                unique_keys: &[$(&[$($ukey),+]),*],
            };

            $(
                /// The identity of this field's column (`Table::field`).
                #[allow(non_upper_case_globals)]
                pub const $field: ColumnId = ColumnId { table: $tname, column: $col };
            )+

            /// Number of rows (the length of the first column).
            pub fn nrow(&self) -> usize {
                [$(self.$field.len()),+][0]
            }

            /// Whether all columns have the same length.
            pub fn is_rectangular(&self) -> bool {
                let n = self.nrow();
                true $(&& self.$field.len() == n)+
            }

            pub fn columns(&self) -> Vec<(&'static str, ColRef<'_>)> {
                vec![$(($col, ColRef::$kind(&self.$field))),+]
            }

            pub fn columns_mut(&mut self) -> Vec<(&'static str, ColMut<'_>)> {
                vec![$(($col, ColMut::$kind(&mut self.$field))),+]
            }

            /// Reserve room for `additional` more rows in every column.
            pub fn reserve(&mut self, additional: usize) {
                $(self.$field.reserve(additional);)+
            }

            /// Keep only the rows where `keep` is true (rows past its end go).
            pub fn retain_rows(&mut self, keep: &[bool]) {
                $(retain_rows(&mut self.$field, keep);)+
            }
        }

        impl crate::resources::budget::Growable for $Name {
            fn elements(&self) -> usize {
                self.nrow()
            }

            fn capacity(&self) -> usize {
                [$(self.$field.capacity()),+].into_iter().min().unwrap_or(0)
            }

            /// The bytes of a row: one value of each column.
            fn element_bytes(&self) -> u64 {
                (0 $(+ std::mem::size_of::<elem_type!($kind)>())+) as u64
            }

            fn try_reserve(&mut self, additional: usize) -> std::result::Result<(), std::collections::TryReserveError> {
                $(self.$field.try_reserve_exact(additional)?;)+
                Ok(())
            }
        }
    };
}
