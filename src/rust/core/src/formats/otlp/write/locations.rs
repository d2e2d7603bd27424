//! Locations: a chain of `locations` rows linked by `inlined_into` is one
//! Location, its lines innermost first; stacks of them.

use super::{index, internal, Writer};
use crate::error::{ProfileError, Result};
use crate::formats::otlp::attributes::Cells;
use crate::formats::otlp::{keys, proto};
use crate::model::address::address_cell;
use crate::model::id_index::IdIndex;
use crate::model::{StrId, NA_INT};

impl Writer<'_> {
    /// A Location for each chain of inlined rows, in table order.
    pub(super) fn locations(&mut self) -> Result<()> {
        let l = &self.p.locations;
        let rows = IdIndex::try_unique_rows(
            &l.location_id,
            |_, _| Ok(()),
            |_, id| internal(format!("locations id {id} occurs more than once")),
        )?;
        self.inlined_into = l.inlined_into.iter().map(|&x| rows.row(x)).collect();
        let mut is_target = vec![false; l.nrow()];
        for t in self.inlined_into.iter().flatten() {
            if let Some(x) = is_target.get_mut(*t) {
                *x = true;
            }
        }
        for row in 0..l.nrow() {
            if is_target.get(row) == Some(&true) {
                continue;
            }
            let chain = self.chain(row)?;
            self.location(&chain)?;
        }
        Ok(())
    }

    /// Rows from `row` outwards along `inlined_into`.
    pub(super) fn chain(&self, row: usize) -> Result<Vec<usize>> {
        let mut chain = vec![row];
        let mut cur = row;
        while let Some(next) = self.inlined_into.get(cur).copied().flatten() {
            if chain.len() > self.inlined_into.len() {
                return Err(ProfileError::inline_cycle(
                    row,
                    self.p
                        .locations
                        .location_id
                        .get(row)
                        .copied()
                        .unwrap_or(NA_INT),
                ));
            }
            chain.push(next);
            cur = next;
        }
        Ok(chain)
    }

    /// The Location of `rows` (innermost first), added on first use.
    /// Longer than the house's 80 lines: a location's lines, function, mapping
    /// and attributes become one dictionary entry, in the message's order.
    pub(super) fn location(&mut self, rows: &[usize]) -> Result<i32> {
        let Some(&first) = rows.first() else {
            return Err(internal("a location without rows".to_string()));
        };
        if let Some(&i) = self.chains.get(&(first, rows.len())) {
            return Ok(i);
        }
        let p = self.p;
        let l = &p.locations;
        let at = |col: &[i32], r: usize| col.get(r).copied().unwrap_or(NA_INT);
        let mapping = at(&l.mapping_id, first);
        let mapping_index = if mapping == NA_INT {
            0
        } else {
            self.mapping_index.get(&mapping).copied().unwrap_or(0)
        };
        let address = match l.address.get(first) {
            None => 0,
            Some(&id) => address_cell(p, "locations", "address", first, id)?,
        };
        let lines = rows
            .iter()
            .filter(|&&r| at(&l.function_id, r) != NA_INT)
            .map(|&r| proto::Line {
                function_index: self.function_index.get(r).copied().unwrap_or(0),
                line: match at(&l.line, r) {
                    NA_INT => 0,
                    x => i64::from(x),
                },
                column: match at(&l.column, r) {
                    NA_INT => 0,
                    x => i64::from(x),
                },
            })
            .collect();
        let mut attrs = Vec::new();
        // FALSE too (pprof's), so that it does not read back as NA (unknown).
        let folded = at(&l.is_folded, first);
        if folded != NA_INT {
            attrs.push(self.dict.bool_attribute(keys::IS_FOLDED, folded != 0)?);
        }
        let mut attribute_rows = Vec::new();
        for &r in rows.iter().rev() {
            if let Some(rs) = self.location_attributes.get(&at(&l.location_id, r)) {
                attribute_rows.extend_from_slice(rs);
            }
        }
        // Each key once, from the outermost row that has it.
        let mut keys_seen = Vec::new();
        attribute_rows.retain(|&r| {
            let k = p.location_attributes.key.get(r).copied();
            if keys_seen.contains(&k) {
                false
            } else {
                keys_seen.push(k);
                true
            }
        });
        self.attribute_rows(
            "location_attributes",
            &attribute_rows,
            |p, r| {
                let t = &p.location_attributes;
                attribute_row!(t, r)
            },
            &mut attrs,
        )?;
        let i = index(self.dict.d.location_table.len(), "location table")?;
        self.dict.d.location_table.push(proto::Location {
            mapping_index,
            address,
            lines,
            attribute_indices: attrs,
        });
        self.chains.insert((first, rows.len()), i);
        Ok(i)
    }

    /// The stack of a sample's frames (rows of `locations`, leaf first):
    /// frames that form a chain of inlined rows are one location.
    pub(super) fn stack(&mut self, frames: &[u32]) -> Result<i32> {
        let mut out = Vec::with_capacity(frames.len());
        let mut i = 0;
        while let Some(&f) = frames.get(i) {
            let first = f as usize;
            let mut len = 1;
            let mut cur = first;
            while let Some(next) = self.inlined_into.get(cur).copied().flatten() {
                if frames.get(i + len).map(|&x| x as usize) != Some(next) {
                    break;
                }
                len += 1;
                cur = next;
            }
            let rows: Vec<usize> = frames
                .get(i..i + len)
                .unwrap_or_default()
                .iter()
                .map(|&x| x as usize)
                .collect();
            out.push(self.location(&rows)?);
            i += len;
        }
        self.dict.stack(out)
    }
}
