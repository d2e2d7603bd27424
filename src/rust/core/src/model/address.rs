//! Addresses as v2 text: the `address` of `locations` and the `memory_start`,
//! `memory_limit` and `file_offset` of `mappings` are "0x..." text, which the
//! validator checks and every format with addresses (pprof, OTLP) reads and
//! writes.

use crate::error::{ProfileError, Result};
use crate::model::{Profile, StrId};

/// An address or offset as v2 text: lower-case hex with a `0x` prefix.
pub fn hex_address(x: u64) -> String {
    format!("{x:#x}")
}

/// The number in `0x...` text (also accepts upper-case digits and `0X`).
pub fn parse_hex_address(s: &str) -> Option<u64> {
    let digits = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

/// The error for the text `found` in an address column (row `row`, from 0).
pub(crate) fn not_an_address(table: &str, column: &str, row: usize, found: &str) -> ProfileError {
    ProfileError::invalid(
        table,
        column,
        Some(row + 1),
        format!("must be an address like \"0x4a2f\", found \"{found}\""),
    )
}

/// The address in the cell `id` of an address column (row `row`, from 0), as
/// a writer puts it in a file: NA is 0, which pprof and OTLP read as none.
pub(crate) fn address_cell(
    p: &Profile,
    table: &str,
    column: &str,
    row: usize,
    id: StrId,
) -> Result<u64> {
    match p.strings.get(id) {
        None => Ok(0),
        Some(s) => parse_hex_address(s).ok_or_else(|| not_an_address(table, column, row, s)),
    }
}
