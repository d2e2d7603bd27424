//! Writing the allocation samples of a profile as an `Rprofmem()` file.

use super::{ALLOC_OBJECTS, ALLOC_SPACE, NEW_PAGE_LABEL};
use crate::error::{ProfileError, Result};
use crate::model::id_index::{IdIndex, IdSet};
use crate::model::Profile;
use crate::resources::alloc::try_filled;
use std::io::Write;

/// The `alloc_objects` and `alloc_space` values of each row of `samples` (NaN
/// where a sample has none).
struct Values {
    objects: Vec<f64>,
    space: Vec<f64>,
}

fn values(p: &Profile, samples: &IdIndex) -> Result<Values> {
    let n = p.samples.nrow();
    let mut out = Values {
        objects: try_filled(n, f64::NAN, "the values of the samples")?,
        space: try_filled(n, f64::NAN, "the values of the samples")?,
    };
    let (objects, space) = (
        p.strings.lookup(ALLOC_OBJECTS.0),
        p.strings.lookup(ALLOC_SPACE.0),
    );
    let v = &p.sample_values;
    let rows = v.sample_id.iter().zip(&v.value_type).zip(&v.value);
    for ((&sid, &t), &value) in rows {
        let slot = if Some(t) == objects {
            &mut out.objects
        } else if Some(t) == space {
            &mut out.space
        } else {
            continue;
        };
        if let Some(cell) = samples.row(sid).and_then(|r| slot.get_mut(r)) {
            *cell = value;
        }
    }
    Ok(out)
}

/// Whether the profile holds allocation samples (or declares their types).
fn has_allocation_types(p: &Profile) -> bool {
    let known = [ALLOC_OBJECTS.0, ALLOC_SPACE.0].map(|t| p.strings.lookup(t));
    let is_alloc = |t: &crate::model::StrId| known.contains(&Some(*t));
    p.sample_values.value_type.iter().any(is_alloc)
        || p.sample_types.value_type.iter().any(is_alloc)
}

/// The samples marked as new pages (the label [`NEW_PAGE_LABEL`]).
fn new_pages(p: &Profile) -> Result<IdSet> {
    let t = &p.sample_labels;
    let mut set = IdSet::try_for_ids(&t.sample_id)?;
    let (Some(key), Some(value)) = (
        p.strings.lookup(NEW_PAGE_LABEL.0),
        p.strings.lookup(NEW_PAGE_LABEL.1),
    ) else {
        return Ok(set);
    };
    for ((&sid, &k), &v) in t.sample_id.iter().zip(&t.key).zip(&t.value) {
        if k == key && v == value {
            set.insert(sid);
        }
    }
    Ok(set)
}

/// How many lines a sample is and the bytes of each: `alloc_objects` lines
/// (one where only `alloc_space` is given, or where bytes come without
/// objects), the bytes shared out so that they add up to `alloc_space`.
fn lines_of(objects: f64, space: f64, sample_id: i32) -> Result<(u64, u64)> {
    let bad = |what: &str| {
        ProfileError::invalid(
            "sample_values",
            "value",
            None,
            format!(
                "sample {sample_id}: {what} must be a whole number of at least 0 to be written as \
                 an Rprofmem line"
            ),
        )
    };
    let space = if space.is_nan() { 0.0 } else { space.round() };
    if !(0.0..=u64::MAX as f64).contains(&space) {
        return Err(bad(ALLOC_SPACE.0));
    }
    let objects = if objects.is_nan() {
        1.0
    } else {
        objects.round()
    };
    if !(0.0..=u64::MAX as f64).contains(&objects) {
        return Err(bad(ALLOC_OBJECTS.0));
    }
    let lines = if objects == 0.0 && space > 0.0 {
        1.0
    } else {
        objects
    };
    Ok((lines as u64, space as u64))
}

/// Writes one line per allocation of `p`, sample by sample in the order of
/// `samples` (a sample of `k` objects as `k` lines); samples without
/// `alloc_space` or `alloc_objects` values are left out. A profile with
/// neither type is refused.
pub fn write(p: &Profile, w: &mut dyn Write) -> Result<()> {
    if !has_allocation_types(p) {
        return Err(ProfileError::invalid(
            "sample_values",
            "type",
            None,
            "the profile has no allocation samples (sample types alloc_space or alloc_objects)",
        ));
    }
    let samples = IdIndex::try_first_rows(&p.samples.sample_id)?;
    let values = values(p, &samples)?;
    let pages = new_pages(p)?;
    let locations = IdIndex::try_first_rows(&p.locations.location_id)?;
    let functions = IdIndex::try_first_rows(&p.functions.function_id)?;
    let name_of = |location_id: i32| -> Option<u32> {
        let row = locations.row(location_id)?;
        let f = p.locations.function_id.get(row)?;
        let name = functions
            .row(*f)
            .and_then(|r| p.functions.name.get(r))
            .map_or(0, |s| s.0);
        Some(name)
    };
    let frames = p.sample_frames(&samples, name_of)?;
    let mut line = Vec::with_capacity(1024);
    let rows = values.objects.iter().zip(&values.space).enumerate();
    for (row, (&objects, &space)) in rows {
        if objects.is_nan() && space.is_nan() {
            continue;
        }
        let sample_id = p.samples.sample_id.get(row).copied().unwrap_or_default();
        let (n, bytes) = lines_of(objects, space, sample_id)?;
        let page = pages.contains(sample_id);
        let stack = frames.of(row);
        for k in 0..n {
            line.clear();
            if page {
                line.extend_from_slice(b"new page:");
            } else {
                // the bytes shared out: the first lines take the remainder
                let each = bytes / n + u64::from(k < bytes % n);
                line.extend_from_slice(itoa::Buffer::new().format(each).as_bytes());
                line.extend_from_slice(b" :");
            }
            for &name in stack {
                line.push(b'"');
                line.extend_from_slice(p.strings.str(crate::model::StrId(name)).as_bytes());
                line.extend_from_slice(b"\" ");
            }
            line.push(b'\n');
            w.write_all(&line)?;
        }
    }
    Ok(())
}
