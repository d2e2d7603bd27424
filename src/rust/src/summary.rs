//! Binding for the core's `summary` module: self and total values per frame key,
//! and call trees.

use crate::args::{bad_argument, optional_string, Fields};
use crate::compact::altrep::cycle_pattern;
use crate::envelope::envelope;
use crate::rapi::{int_vector, r_safe};
use crate::text::intern_strings;
use extendr_api::prelude::*;
use profile_core::ops::summary::{
    key_totals, CallTree, CountedSamples, Derived, StackColumns, StackInput, Stacks,
};
use profile_core::{ProfileError, StrId, StringPool};

/// The stacks described by the list R builds in `stack_input()`:
/// `sample_id`, `depth`, `location_id` (stack rows), `locations`, `location_key`,
/// `n_keys`, the columns `sample_id` and `source_id` of `samples` (`samples`,
/// `sample_source`), and the columns `sample_id`, `type` and `value` of
/// `sample_values` (`value_sample_id`, `value_type`, `value`) with the sample
/// type to look at (`type`); for a derived type (`time` of Rprof ticks),
/// `derived_source` and `derived_factor` (NULL otherwise), by which the values
/// of `type` are multiplied per source. The rows of that type are chosen here:
/// in R that took a comparison and two subsets over every row (six per
/// memory-profiling sample), and expanded a compact `type` column. Rows of
/// samples that are not in `samples` are not counted.
pub(crate) fn stacks_from_r(input: &Robj) -> Result<Stacks, ProfileError> {
    let fields = Fields::of(input)?;
    let value = fields.doubles("value")?;
    let value_sample_id = fields.ints("value_sample_id")?;
    let value_type = fields.get("value_type")?;
    let chosen_type =
        optional_string(fields.get("type")?, "type")?.ok_or_else(|| bad_argument("type"))?;
    if value_type.rtype() != Rtype::Strings
        || value_type.len() != value.len()
        || value_sample_id.len() != value.len()
    {
        return Err(bad_argument("value_type"));
    }
    let chosen = rows_equal_to(value_type, &chosen_type);
    let value_sample_id: Vec<i32> = select(&value_sample_id, &chosen);
    let value: Vec<f64> = select(&value, &chosen);
    let sample_source = fields.ints("sample_source")?;
    let counted = CountedSamples::new(&fields.ints("samples")?, &sample_source)?;
    let derived = if fields.get("derived_source")?.is_null() {
        None
    } else {
        Some((
            fields.ints("derived_source")?,
            fields.doubles("derived_factor")?,
        ))
    };
    let derived = derived
        .as_ref()
        .map(|(source_id, factor)| Derived { source_id, factor });
    let (value_sample_id, value) = counted.values(&value_sample_id, &value, derived.as_ref())?;
    Stacks::build(&StackInput {
        columns: StackColumns {
            sample_id: &fields.ints("sample_id")?,
            depth: &fields.ints("depth")?,
            location_id: &fields.ints("location_id")?,
            locations: &fields.ints("locations")?,
            value_sample_id: &value_sample_id,
            value: &value,
        },
        location_key: &fields.ints("location_key")?,
        n_keys: fields.count("n_keys")?,
    })
}

/// The values of the rows where `chosen` is true.
fn select<T: Copy>(values: &[T], chosen: &[bool]) -> Vec<T> {
    values
        .iter()
        .zip(chosen)
        .filter(|(_, &keep)| keep)
        .map(|(&v, _)| v)
        .collect()
}

/// The distinct pairs of sample type and unit of `sample_values`, in order of
/// first appearance: `list(type, unit)`, strings as valid UTF-8. A compact
/// `type` and `unit` (one pattern per sample) are read by their patterns.
/// @noRd
#[extendr]
fn ffi_profile_value_types(value_type: Robj, unit: Robj) -> Robj {
    envelope(|| {
        if value_type.rtype() != Rtype::Strings
            || unit.rtype() != Rtype::Strings
            || value_type.len() != unit.len()
        {
            return Err(bad_argument("type and unit"));
        }
        let pairs = distinct_string_pairs(&value_type, &unit);
        let (types, units): (Vec<Option<String>>, Vec<Option<String>>) = pairs.into_iter().unzip();
        let strings = |v: Vec<Option<String>>| -> Robj {
            Strings::from_values(v.iter().map(|s| match s {
                Some(s) => Rstr::from(r_safe(s).as_ref()),
                None => Rstr::na(),
            }))
            .into()
        };
        let list = List::from_names_and_values(["type", "unit"], [strings(types), strings(units)])
            .map_err(|_| bad_argument("type and unit"))?;
        Ok(list.into())
    })
}

/// Which rows of a character column hold `text` (strings read by the rules of
/// [`intern_strings`]); NA matches nothing. A compact column is read by its
/// pattern, never expanded.
fn rows_equal_to(col: &Robj, text: &str) -> Vec<bool> {
    let mut pool = StringPool::new();
    let wanted = pool.intern(text);
    if let Some((pattern, n)) = cycle_pattern(col) {
        let in_pattern: Vec<bool> = intern_strings(&pattern, &mut pool)
            .into_iter()
            .map(|id| id == wanted)
            .collect();
        return in_pattern.iter().copied().cycle().take(n).collect();
    }
    intern_strings(col, &mut pool)
        .into_iter()
        .map(|id| id == wanted)
        .collect()
}

/// The distinct pairs `(a[i], b[i])` of two character columns of one length, in
/// order of first appearance, as UTF-8 text (None for NA). Two compact columns
/// that repeat patterns of one length are read by their patterns alone.
fn distinct_string_pairs(a: &Robj, b: &Robj) -> Vec<(Option<String>, Option<String>)> {
    let mut pool = StringPool::new();
    let (ids_a, ids_b) = match cycle_pattern(a).zip(cycle_pattern(b)) {
        Some(((pa, n), (pb, _))) if pa.len() == pb.len() && n >= pa.len() => (
            intern_strings(&pa, &mut pool),
            intern_strings(&pb, &mut pool),
        ),
        _ => (intern_strings(a, &mut pool), intern_strings(b, &mut pool)),
    };
    let mut seen: std::collections::HashSet<(StrId, StrId)> = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut last = None;
    for pair in ids_a.into_iter().zip(ids_b) {
        // Rows come in runs of one type; most are the pair just seen.
        if last == Some(pair) {
            continue;
        }
        last = Some(pair);
        if seen.insert(pair) {
            let text = |id: StrId| (!id.is_na()).then(|| pool.str(id).to_owned());
            out.push((text(pair.0), text(pair.1)));
        }
    }
    out
}

fn u32_vector(values: &[u32]) -> Result<Robj, ProfileError> {
    let ints: Vec<i32> = values.iter().map(|&v| v as i32).collect();
    int_vector(&ints)
}

/// Self and total value per frame key.
/// @noRd
#[extendr]
fn ffi_profile_key_totals(stacks: Robj) -> Robj {
    envelope(|| {
        let t = key_totals(&stacks_from_r(&stacks)?);
        Ok(list!(
            self_value = t.self_value,
            total = t.total,
            grand_total = t.grand_total
        )
        .into())
    })
}

/// The call tree, depth first, root (row 1) included; `parent` is 1-based (0 for
/// the root).
/// @noRd
#[extendr]
fn ffi_profile_call_tree(stacks: Robj) -> Robj {
    envelope(|| {
        let t = CallTree::build(&stacks_from_r(&stacks)?);
        let parent: Vec<u32> = t
            .parent
            .iter()
            .enumerate()
            .map(|(i, &p)| if i == 0 { 0 } else { p + 1 })
            .collect();
        Ok(list!(
            parent = u32_vector(&parent)?,
            key = u32_vector(&t.key)?,
            depth = u32_vector(&t.depth)?,
            start = t.start,
            total = t.total,
            self_value = t.self_value
        )
        .into())
    })
}

extendr_module! {
    mod summary;
    fn ffi_profile_key_totals;
    fn ffi_profile_value_types;
    fn ffi_profile_call_tree;
}
