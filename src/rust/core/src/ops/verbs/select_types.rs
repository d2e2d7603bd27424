//! Keeping some sample types (`profile_select_types()`; in `go tool pprof`,
//! `-sample_index` picks the one type a report shows).

use super::keep::ragged;
use crate::error::{ProfileError, Result};
use crate::model::{Profile, SampleTypes, SampleValues, Sources, StrId};
use crate::resources::alloc::try_collect;
use rustc_hash::FxHashSet;

/// Keeps the sample types named in `types`: their rows of `sample_values`
/// and of `sample_types`; a source's `default_sample_type` that is not kept
/// becomes NA. Samples stay, with the values of the kept types (Go keeps a
/// sample whatever its values). A type that neither `sample_types` nor
/// `sample_values` has is an error of kind `argument` that lists the types
/// the profile has.
pub fn keep_sample_types(p: &mut Profile, types: &[&str]) -> Result<()> {
    for (table, ok) in [
        (SampleValues::NAME, p.sample_values.is_rectangular()),
        (SampleTypes::NAME, p.sample_types.is_rectangular()),
        (Sources::NAME, p.sources.is_rectangular()),
    ] {
        if !ok {
            return Err(ragged(table));
        }
    }
    let kept = kept_type_ids(p, types)?;
    let keeps = |ids: &[StrId]| try_collect(ids.iter().map(|t| kept.contains(t)), "sample values");
    let values = keeps(&p.sample_values.value_type)?;
    let declared = keeps(&p.sample_types.value_type)?;
    p.sample_values.retain_rows(&values);
    p.sample_types.retain_rows(&declared);
    for default in &mut p.sources.default_sample_type {
        if !kept.contains(default) {
            *default = StrId::NA;
        }
    }
    Ok(())
}

/// The string ids of `types`, all of which the profile must have.
fn kept_type_ids(p: &Profile, types: &[&str]) -> Result<FxHashSet<StrId>> {
    let mut has: Vec<StrId> = Vec::new();
    let mut seen = FxHashSet::default();
    // Declared types first, then those of values, each once: the order the
    // message lists them in.
    for &t in p
        .sample_types
        .value_type
        .iter()
        .chain(&p.sample_values.value_type)
    {
        if seen.insert(t) {
            has.push(t);
        }
    }
    let missing: Vec<&str> = types
        .iter()
        .copied()
        .filter(|t| p.strings.lookup(t).is_none_or(|id| !seen.contains(&id)))
        .collect();
    if !missing.is_empty() {
        let quoted = |names: &mut dyn Iterator<Item = &str>| {
            names
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let available = if has.is_empty() {
            "none".to_string()
        } else {
            quoted(&mut has.iter().map(|&t| p.str(t)))
        };
        let plural = if missing.len() == 1 { "" } else { "s" };
        return Err(ProfileError::argument(format!(
            "the profile has no sample type{plural} {}; its types are {available}",
            quoted(&mut missing.into_iter())
        )));
    }
    Ok(types.iter().filter_map(|t| p.strings.lookup(t)).collect())
}

#[cfg(test)]
mod tests;
