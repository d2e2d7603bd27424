//! The name of the mapping the writer makes for frames of OTLP sources that
//! have no mapping (a Java frame of async-profiler has a function and a line,
//! no binary). `go tool pprof` shows the first mapping as the profile's
//! `File:`; without one it prints "Main binary filename not available".
//!
//! The name is what the OTLP data know of the program, in this order:
//!
//! 1. the resource attribute `process.executable.name` (the profiled program,
//!    as a pprof mapping names its binary);
//! 2. the file name of the resource attribute `process.executable.path`;
//! 3. the file name of the instrumentation scope's name (the profiler that
//!    wrote the data: the eBPF profiler gives its path);
//! 4. else [`UNKNOWN_PROGRAM`], in brackets as pprof's pseudo-mappings are
//!    (`[vdso]`, the writer's `[R]`).
//!
//! When the OTLP sources of a profile name different programs (one resource
//! per process), none of them is the profile's: [`UNKNOWN_PROGRAM`] again.

use crate::model::{Profile, NA_INT};
use rustc_hash::FxHashMap;

/// The mapping's name when the data name no program (or several).
pub const UNKNOWN_PROGRAM: &str = "[otlp]";

/// The name of the mapping of OTLP frames without one, from the sources
/// `is_otlp` marks (see the module's documentation).
pub(super) fn otlp_program_name<'p>(p: &'p Profile, is_otlp: &[bool]) -> &'p str {
    let programs = Programs::new(p);
    let mut names = (0..p.sources.nrow())
        .filter(|&row| is_otlp.get(row).is_some_and(|&otlp| otlp))
        .map(|row| programs.of_source(p, row));
    let Some(Some(first)) = names.next() else {
        return UNKNOWN_PROGRAM;
    };
    if names.all(|name| name == Some(first)) {
        first
    } else {
        UNKNOWN_PROGRAM
    }
}

/// What the scopes and resources of a profile name as their program.
struct Programs<'p> {
    /// The row of each scope id.
    scope_rows: FxHashMap<i32, usize>,
    /// Per resource id: the values of `process.executable.name` and of
    /// `process.executable.path`, when not empty.
    executables: FxHashMap<i32, [Option<&'p str>; 2]>,
}

impl<'p> Programs<'p> {
    fn new(p: &'p Profile) -> Self {
        let mut scope_rows = FxHashMap::default();
        if p.has_table("scopes") {
            for (row, &id) in p.scopes.scope_id.iter().enumerate() {
                scope_rows.entry(id).or_insert(row);
            }
        }
        let mut executables: FxHashMap<i32, [Option<&'p str>; 2]> = FxHashMap::default();
        if p.has_table("resource_attributes") {
            let a = &p.resource_attributes;
            for ((&resource, &key), &value) in a.resource_id.iter().zip(&a.key).zip(&a.value) {
                let slot = match p.str(key) {
                    "process.executable.name" => 0,
                    "process.executable.path" => 1,
                    _ => continue,
                };
                let value = p.str(value);
                if !value.is_empty() {
                    let entry = executables.entry(resource).or_default();
                    if let Some(cell) = entry.get_mut(slot) {
                        cell.get_or_insert(value);
                    }
                }
            }
        }
        Programs {
            scope_rows,
            executables,
        }
    }

    /// What the OTLP source at `row` of `sources` names as its program.
    fn of_source(&self, p: &'p Profile, row: usize) -> Option<&'p str> {
        let scope_id = *p.sources.scope_id.get(row)?;
        if scope_id == NA_INT {
            return None;
        }
        let scope = *self.scope_rows.get(&scope_id)?;
        let resource_id = *p.scopes.resource_id.get(scope)?;
        let [name, path] = self
            .executables
            .get(&resource_id)
            .copied()
            .unwrap_or_default();
        name.or_else(|| path.and_then(base_name))
            .or_else(|| p.scopes.name.get(scope).and_then(|&n| base_name(p.str(n))))
    }
}

/// The last part of a path (after `/` or `\`), if it is not empty.
fn base_name(path: &str) -> Option<&str> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or_default().trim();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests;
