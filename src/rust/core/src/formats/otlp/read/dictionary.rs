//! The dictionary's tables: strings, attributes, functions, locations and
//! mappings, every index checked.

use super::{entry, entry_id, invalid, line_number, Attr, Reader};
use crate::error::Result;
use crate::formats::otlp::attributes;
use crate::formats::otlp::keys;
use crate::io::text::utf8_escaped;
use crate::model::address::hex_address;
use crate::model::{next_id, Profile, StrId, NA_INT};
use crate::resources::budget::Growable;

impl Reader<'_, '_> {
    pub(super) fn string(
        &self,
        index: i32,
        holder: &str,
        column: &str,
        what: &dyn Fn() -> String,
    ) -> Result<StrId> {
        entry(&self.strings, index, "string_table", holder, column, what).copied()
    }

    pub(super) fn convert_attributes(&mut self) -> Result<()> {
        let d = self.d;
        let mut attrs = self.budget.vec_with_capacity(d.attribute_table.len(), || {
            "the attribute table".to_string()
        })?;
        for (i, a) in d.attribute_table.iter().enumerate() {
            let what = || format!("attribute_table entry {i}");
            let key = self.string(a.key_strindex, "attribute_table", "key_strindex", &what)?;
            let unit = if a.unit_strindex == 0 && self.zero.unit {
                StrId::NA
            } else {
                self.string(a.unit_strindex, "attribute_table", "unit_strindex", &what)?
            };
            let lookup = |index: i32, what: &dyn Fn() -> String| -> Result<String> {
                entry(
                    &d.string_table,
                    index,
                    "string_table",
                    "attribute_table",
                    "value",
                    what,
                )
                .map(|s| utf8_escaped(s).into_owned())
            };
            let cells = attributes::cells(a.value.as_ref(), &lookup, &mut self.p.strings, &what)?;
            attrs.push(Attr { key, unit, cells });
        }
        self.attrs = attrs;
        Ok(())
    }

    pub(super) fn attr(&self, index: i32, holder: &str, what: &dyn Fn() -> String) -> Result<Attr> {
        entry(
            &self.attrs,
            index,
            "attribute_table",
            holder,
            "attribute_indices",
            what,
        )
        .copied()
    }

    /// Every index of the dictionary's tables points into its table.
    /// Longer than the house's 80 lines: one check per index field of the
    /// dictionary, each a few lines, listed in the message's order.
    pub(super) fn check_dictionary(&self) -> Result<()> {
        let d = self.d;
        for (i, m) in d.mapping_table.iter().enumerate() {
            let what = || format!("mapping_table entry {i}");
            self.string(
                m.filename_strindex,
                "mapping_table",
                "filename_strindex",
                &what,
            )?;
            for &a in &m.attribute_indices {
                self.attr(a, "mapping_table", &what)?;
            }
        }
        for (i, f) in d.function_table.iter().enumerate() {
            let what = || format!("function_table entry {i}");
            self.string(f.name_strindex, "function_table", "name_strindex", &what)?;
            self.string(
                f.system_name_strindex,
                "function_table",
                "system_name_strindex",
                &what,
            )?;
            self.string(
                f.filename_strindex,
                "function_table",
                "filename_strindex",
                &what,
            )?;
        }
        for (i, l) in d.location_table.iter().enumerate() {
            let what = || format!("location_table entry {i}");
            entry(
                &d.mapping_table,
                l.mapping_index,
                "mapping_table",
                "location_table",
                "mapping_index",
                &what,
            )?;
            for line in &l.lines {
                entry(
                    &d.function_table,
                    line.function_index,
                    "function_table",
                    "location_table",
                    "lines.function_index",
                    &what,
                )?;
            }
            for &a in &l.attribute_indices {
                self.attr(a, "location_table", &what)?;
            }
        }
        for (i, s) in d.stack_table.iter().enumerate() {
            let what = || format!("stack_table entry {i}");
            for &l in &s.location_indices {
                entry(
                    &d.location_table,
                    l,
                    "location_table",
                    "stack_table",
                    "location_indices",
                    &what,
                )?;
            }
        }
        for (i, l) in d.link_table.iter().enumerate() {
            for (id, len, name) in [(&l.trace_id, 16, "trace_id"), (&l.span_id, 8, "span_id")] {
                if !id.is_empty() && id.len() != len {
                    return Err(invalid(
                        "link_table",
                        name,
                        format!(
                            "link_table entry {i} has a {name} of {} bytes; it must have {len} (or none)",
                            id.len()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Functions (entries 1.., and 0 if a line refers to it) and locations
    /// (likewise; one row per line, inlined lines after all entries).
    /// Longer than the house's 80 lines: a location's lines need their function
    /// rows, so both tables are filled in one walk of the dictionary.
    pub(super) fn functions_and_locations(&mut self) -> Result<()> {
        let d = self.d;
        let location_zero = d
            .stack_table
            .iter()
            .any(|s| s.location_indices.contains(&0));
        let first_location = usize::from(!location_zero);
        let function_zero = d
            .location_table
            .iter()
            .skip(first_location)
            .any(|l| l.lines.iter().any(|line| line.function_index == 0));
        let p0 = Profile::default();
        let rows: usize = d.location_table.iter().map(|l| l.lines.len().max(1)).sum();
        self.budget.charge(
            (rows as u64).saturating_mul(p0.locations.element_bytes())
                + (d.function_table.len() as u64).saturating_mul(p0.functions.element_bytes()),
            || "the locations and functions".to_string(),
        )?;
        for (i, f) in d
            .function_table
            .iter()
            .enumerate()
            .skip(usize::from(!function_zero))
        {
            let what = || format!("function_table entry {i}");
            let name = self.string(f.name_strindex, "function_table", "name_strindex", &what)?;
            let system_name = self.string(
                f.system_name_strindex,
                "function_table",
                "system_name_strindex",
                &what,
            )?;
            let filename = self.string(
                f.filename_strindex,
                "function_table",
                "filename_strindex",
                &what,
            )?;
            let t = &mut self.p.functions;
            t.function_id
                .push(entry_id(i, d.function_table.len(), "functions")?);
            t.name.push(name);
            t.system_name.push(system_name);
            t.filename.push(filename);
            t.start_line.push(line_number(f.start_line));
        }
        self.spans = vec![None; d.location_table.len()];
        // Inlined lines are numbered after every entry (and entry 0's id).
        let mut next_inlined = d.location_table.len();
        for (i, l) in d.location_table.iter().enumerate().skip(first_location) {
            let outer_id = entry_id(i, d.location_table.len(), "locations")?;
            let mapping_id = if l.mapping_index == 0 && self.zero.mapping {
                NA_INT
            } else {
                let m = usize::try_from(l.mapping_index).unwrap_or(0);
                entry_id(m, d.mapping_table.len(), "mappings")?
            };
            let address = if l.address == 0 {
                StrId::NA
            } else {
                self.p
                    .strings
                    .try_intern(&hex_address(l.address), self.budget)?
            };
            let mut is_folded = NA_INT;
            let mut rest = Vec::new();
            for &a in &l.attribute_indices {
                let attr =
                    self.attr(a, "location_table", &|| format!("location_table entry {i}"))?;
                let value = self.p.str(attr.cells.value);
                if is_folded == NA_INT
                    && self.p.str(attr.key) == keys::IS_FOLDED
                    && self.p.strings.get(attr.cells.kind) == Some("bool")
                    && attr.unit.is_na()
                {
                    is_folded = i32::from(value == "true");
                } else {
                    rest.push(attr);
                }
            }
            let n = l.lines.len().max(1);
            let start = self.p.locations.nrow();
            let mut ids = Vec::with_capacity(n);
            for _ in 1..n {
                ids.push(next_id(next_inlined, "locations")?);
                next_inlined += 1;
            }
            ids.push(outer_id);
            for k in 0..n {
                let (function_id, line, column) = match l.lines.get(k) {
                    None => (NA_INT, NA_INT, NA_INT),
                    Some(line) => (
                        entry_id(
                            usize::try_from(line.function_index).unwrap_or(0),
                            d.function_table.len(),
                            "functions",
                        )?,
                        line_number(line.line),
                        // "0 means unset"
                        if line.column == 0 {
                            NA_INT
                        } else {
                            line_number(line.column)
                        },
                    ),
                };
                self.column_zero
                    .push(l.lines.get(k).is_some_and(|line| line.column == 0));
                let t = &mut self.p.locations;
                t.location_id.push(ids.get(k).copied().unwrap_or(outer_id));
                t.function_id.push(function_id);
                t.line.push(line);
                t.address.push(address);
                t.mapping_id.push(mapping_id);
                t.is_folded.push(is_folded);
                t.column.push(column);
                t.inlined_into
                    .push(ids.get(k + 1).copied().unwrap_or(NA_INT));
            }
            if let Some(span) = self.spans.get_mut(i) {
                *span = Some((start, n));
            }
            for a in rest {
                push_attribute!(
                    &mut self.p.location_attributes,
                    location_id = outer_id,
                    a.key,
                    a.unit,
                    a.cells
                );
            }
        }
        Ok(())
    }

    /// Columns 0 of locations that only sources written from pprof use read
    /// 0, as `read_pprof()` reads them (elsewhere 0 means unset: NA).
    pub(super) fn pprof_columns(&mut self) {
        let p = &mut self.p;
        let pprof: Vec<bool> = p
            .sources
            .source_type
            .iter()
            .map(|&t| p.strings.str(t) == "pprof")
            .collect();
        if !pprof.iter().any(|&x| x) {
            return;
        }
        if pprof.iter().all(|&x| x) {
            // Every location is of a pprof source: no need to look which.
            let zero = self.column_zero.iter().chain(std::iter::repeat(&false));
            for (column, &z) in p.locations.column.iter_mut().zip(zero) {
                if z {
                    *column = 0;
                }
            }
            return;
        }
        let rows = crate::model::id_index::IdIndex::try_first_rows(&p.locations.location_id);
        let samples = crate::model::id_index::IdIndex::try_first_rows(&p.samples.sample_id);
        let (Ok(rows), Ok(samples)) = (rows, samples) else {
            return;
        };
        let mut other = vec![false; p.locations.nrow()];
        let sl = &p.sample_locations;
        for (&sample, &location) in sl.sample_id.iter().zip(&sl.location_id) {
            let source = samples
                .row(sample)
                .and_then(|r| p.samples.source_id.get(r))
                .and_then(|&s| usize::try_from(s - 1).ok());
            let is_pprof = source.and_then(|s| pprof.get(s)).copied().unwrap_or(false);
            if let (false, Some(r)) = (is_pprof, rows.row(location)) {
                if let Some(x) = other.get_mut(r) {
                    *x = true;
                }
            }
        }
        let all_pprof = pprof.iter().all(|&x| x);
        let used = {
            let mut used = vec![false; p.locations.nrow()];
            for &location in &sl.location_id {
                if let Some(x) = rows.row(location).and_then(|r| used.get_mut(r)) {
                    *x = true;
                }
            }
            used
        };
        for (r, column) in p.locations.column.iter_mut().enumerate() {
            let zero = self.column_zero.get(r).copied().unwrap_or(false);
            let by_pprof = if used.get(r) == Some(&true) {
                other.get(r) == Some(&false)
            } else {
                all_pprof
            };
            if zero && by_pprof {
                *column = 0;
            }
        }
    }

    /// Mappings (entries 1.., and 0 unless it is the zero value), each in
    /// the first source whose samples use it (else the first source); none
    /// when there are no sources.
    /// Longer than the house's 80 lines: one walk of the table that also
    /// decides each mapping's source.
    pub(super) fn mappings(&mut self) -> Result<()> {
        let d = self.d;
        let Some(&first_source) = self.p.sources.source_id.first() else {
            self.p
                .locations
                .mapping_id
                .iter_mut()
                .for_each(|m| *m = NA_INT);
            return Ok(());
        };
        let mut source_of = vec![NA_INT; d.mapping_table.len()];
        for (k, &source) in self.stack_source.iter().enumerate() {
            if source == NA_INT {
                continue;
            }
            let Some(stack) = d.stack_table.get(k) else {
                continue;
            };
            for &l in &stack.location_indices {
                let mapping = usize::try_from(l)
                    .ok()
                    .and_then(|i| d.location_table.get(i))
                    .and_then(|loc| usize::try_from(loc.mapping_index).ok());
                if let Some(slot) = mapping.and_then(|m| source_of.get_mut(m)) {
                    if *slot == NA_INT {
                        *slot = source;
                    }
                }
            }
        }
        let first = usize::from(self.zero.mapping);
        for (i, m) in d.mapping_table.iter().enumerate().skip(first) {
            let mapping_id = entry_id(i, d.mapping_table.len(), "mappings")?;
            let what = || format!("mapping_table entry {i}");
            let filename = self.string(
                m.filename_strindex,
                "mapping_table",
                "filename_strindex",
                &what,
            )?;
            let mut build_id = StrId::NA;
            let mut flags = [0i32; 4];
            let mut rest = Vec::new();
            for &a in &m.attribute_indices {
                let attr = self.attr(a, "mapping_table", &what)?;
                let key = self.p.str(attr.key);
                let kind = self.p.strings.get(attr.cells.kind);
                let flag = [
                    keys::HAS_FUNCTIONS,
                    keys::HAS_FILENAMES,
                    keys::HAS_LINE_NUMBERS,
                    keys::HAS_INLINE_FRAMES,
                ]
                .iter()
                .position(|&k| k == key);
                match flag {
                    Some(f)
                        if kind == Some("bool")
                            && self.p.str(attr.cells.value) == "true"
                            && attr.unit.is_na()
                            && flags.get(f) == Some(&0) =>
                    {
                        if let Some(x) = flags.get_mut(f) {
                            *x = 1;
                        }
                    }
                    _ if key == keys::BUILD_ID
                        && build_id.is_na()
                        && kind.is_none()
                        && !attr.cells.value.is_na()
                        && attr.unit.is_na() =>
                    {
                        build_id = attr.cells.value;
                    }
                    _ => rest.push(attr),
                }
            }
            let mut text = |x: u64| self.p.strings.try_intern(&hex_address(x), self.budget);
            let (start, limit, offset) = (
                text(m.memory_start)?,
                text(m.memory_limit)?,
                text(m.file_offset)?,
            );
            let t = &mut self.p.mappings;
            t.mapping_id.push(mapping_id);
            t.source_id.push(match source_of.get(i) {
                Some(&s) if s != NA_INT => s,
                _ => first_source,
            });
            t.memory_start.push(start);
            t.memory_limit.push(limit);
            t.file_offset.push(offset);
            t.filename.push(filename);
            t.build_id.push(build_id);
            t.has_functions.push(flags[0]);
            t.has_filenames.push(flags[1]);
            t.has_line_numbers.push(flags[2]);
            t.has_inline_frames.push(flags[3]);
            for a in rest {
                push_attribute!(
                    &mut self.p.mapping_attributes,
                    mapping_id = mapping_id,
                    a.key,
                    a.unit,
                    a.cells
                );
            }
        }
        Ok(())
    }
}
