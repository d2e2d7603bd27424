//! Verbs on the values of samples: [`scale_values`] (`profile_scale()`),
//! [`aggregate`](super::aggregate) (`profile_aggregate()`, in `aggregate.rs`)
//! and [`diff`] (`profile_diff()`: the base's values negated and
//! combined with the other profile, as `go tool pprof -diff_base` does) and
//! [`time_window`] (`profile_window()`: the samples taken in an interval of time).

use super::keep::{keep_samples, ragged};
use crate::error::{ProfileError, Result};
use crate::model::{Profile, SampleValues, Samples, StrId, NA_INT};
use crate::ops::combine::{CombineOptions, Combiner, LeftIds};
use crate::resources::alloc::try_collect;
use crate::resources::budget::Growable;
use rustc_hash::FxHashSet;

/// Multiplies the values of the sample types named in `types` (every type
/// when None) by `factor`, which must be a finite number. Each type must be one
/// the profile has (in `sample_values` or declared in `sample_types`). Samples
/// keep their values as doubles: nothing is rounded, and a sample whose
/// values become 0 stays (Go's `Scale` rounds to integers and drops it).
pub fn scale_values(p: &mut Profile, factor: f64, types: Option<&[&str]>) -> Result<()> {
    if !factor.is_finite() {
        return Err(ProfileError::argument(format!(
            "the factor must be a finite number, not {factor}"
        )));
    }
    if !p.sample_values.is_rectangular() {
        return Err(ragged(SampleValues::NAME));
    }
    let chosen = match types {
        None => None,
        Some(names) => Some(type_ids(p, names)?),
    };
    let sv = &mut p.sample_values;
    match chosen {
        None => sv.value.iter_mut().for_each(|v| *v *= factor),
        Some(ids) => {
            for (v, t) in sv.value.iter_mut().zip(&sv.value_type) {
                if ids.contains(t) {
                    *v *= factor;
                }
            }
        }
    }
    Ok(())
}

/// Gives the sample types named in `types` (every type when None) the unit
/// `unit`, in `sample_values` and in `sample_types`: what a type's values are
/// in after [`scale_values`] changed them (counts of 5 ms ticks times 5 are
/// milliseconds). Each type must be one the profile has.
pub fn set_unit(p: &mut Profile, types: Option<&[&str]>, unit: &str) -> Result<()> {
    if !p.sample_values.is_rectangular() {
        return Err(ragged(SampleValues::NAME));
    }
    let chosen = match types {
        None => None,
        Some(names) => Some(type_ids(p, names)?),
    };
    let unit = p.strings.intern(unit);
    let is_chosen = |t: &StrId| chosen.as_ref().is_none_or(|ids| ids.contains(t));
    let sv = &mut p.sample_values;
    for (u, t) in sv.unit.iter_mut().zip(&sv.value_type) {
        if is_chosen(t) {
            *u = unit;
        }
    }
    let st = &mut p.sample_types;
    for (u, t) in st.unit.iter_mut().zip(&st.value_type) {
        if is_chosen(t) {
            *u = unit;
        }
    }
    Ok(())
}

/// The string ids of the sample types `names`, each of which the profile has.
fn type_ids(p: &Profile, names: &[&str]) -> Result<FxHashSet<StrId>> {
    let mut present: FxHashSet<StrId> = p.sample_types.value_type.iter().copied().collect();
    let mut last = StrId::NA;
    for &t in &p.sample_values.value_type {
        // Rows come in runs of few types: insert each change only.
        if t != last {
            present.insert(t);
            last = t;
        }
    }
    names
        .iter()
        .map(|&name| {
            p.strings
                .lookup(name)
                .filter(|id| present.contains(id))
                .ok_or_else(|| {
                    ProfileError::argument(format!("the profile has no sample type \"{name}\""))
                })
        })
        .collect()
}

/// The label that marks the samples of the base in a difference, as `go tool
/// pprof -diff_base` marks them (its reports take their percentages from the
/// base's samples).
pub const DIFF_BASE_LABEL: (&str, &str) = ("pprof::base", "true");

/// `x` minus `base`, as `go tool pprof -diff_base=base x` makes it: the base's
/// values negated (every type), its samples labelled `pprof::base=true`
/// (replacing such a label), and both combined as `combine` combines them (x
/// first; functions and locations merged). The sources of the base have
/// `diff_base` TRUE, those of `x` FALSE (or TRUE where `x` is a difference
/// itself). Both must be valid.
pub fn diff(x: Profile, base: Profile) -> Result<Profile> {
    DiffInputs::new(x, base)?.combine()
}

/// The two profiles of a difference made ready to be combined (see [`diff`]):
/// the base's values negated and its samples labelled, the sources of both
/// marked. Combined whole ([`combine`](Self::combine)), or without `x`'s
/// per-sample rows, which a caller that holds them already (the R binding,
/// which has them in R) need not get back ([`combine_after_x`](Self::combine_after_x)).
pub struct DiffInputs {
    x: Profile,
    base: Profile,
}

/// A difference without `x`'s per-sample rows ([`DiffInputs::combine_after_x`]).
pub struct AfterX {
    /// The difference, whose per-sample tables hold only the rows that come
    /// after `x`'s (the base's), their samples numbered after `x`'s.
    pub profile: Profile,
    /// The id columns of `x`'s per-sample rows whose ids the difference
    /// changes, as they are in the difference (usually none: see
    /// [`Combiner::add_first_leaving_per_sample`]); the other columns of
    /// those rows are in the difference as they are in `x`.
    pub x_ids: LeftIds,
}

impl DiffInputs {
    pub fn new(mut x: Profile, mut base: Profile) -> Result<DiffInputs> {
        scale_values(&mut base, -1.0, None)?;
        mark_sources(&mut x, false);
        mark_sources(&mut base, true);
        label_samples(&mut base, DIFF_BASE_LABEL)?;
        Ok(DiffInputs { x, base })
    }

    /// The difference.
    pub fn combine(self) -> Result<Profile> {
        // x comes first: its per-sample tables become the result's, not copied.
        let mut combiner = Combiner::new(CombineOptions::default());
        combiner.add_owned(self.x)?;
        combiner.add_owned(self.base)?;
        Ok(combiner.finish())
    }

    /// The difference without `x`'s per-sample rows. The base's rows are
    /// moved into it, not copied.
    pub fn combine_after_x(self) -> Result<AfterX> {
        let mut combiner = Combiner::new(CombineOptions::default());
        let x_ids = combiner.add_first_leaving_per_sample(&self.x)?;
        drop(self.x);
        combiner.add_owned(self.base)?;
        Ok(AfterX {
            profile: combiner.finish(),
            x_ids,
        })
    }
}

/// Sets `diff_base` of every source to `is_base`, except that a source already
/// marked as a base stays one.
fn mark_sources(p: &mut Profile, is_base: bool) {
    let n = p.sources.nrow();
    let marks = &mut p.sources.diff_base;
    marks.resize(n, NA_INT);
    for mark in marks.iter_mut() {
        if is_base || *mark == NA_INT {
            *mark = i32::from(is_base);
        }
    }
}

/// Gives every sample the string label `key` = `value`, replacing the labels
/// of that key it has.
fn label_samples(p: &mut Profile, (key, value): (&str, &str)) -> Result<()> {
    let key = p.strings.intern(key);
    let value = p.strings.intern(value);
    let sl = &mut p.sample_labels;
    if sl.key.contains(&key) {
        let other_keys = try_collect(sl.key.iter().map(|&k| k != key), "labels")?;
        sl.retain_rows(&other_keys);
    }
    let n = p.samples.nrow();
    sl.try_reserve(n).map_err(|_| {
        ProfileError::limit(format!("not enough memory for the labels of {n} samples"))
    })?;
    for &sample in &p.samples.sample_id {
        sl.sample_id.push(sample);
        sl.key.push(key);
        sl.value.push(value);
        sl.num.push(f64::NAN);
        sl.num_unit.push(StrId::NA);
    }
    p.pad_extension_columns(&[]);
    Ok(())
}

/// Keeps the samples whose `time` (seconds from the start of their source) is
/// in `[from, to)`; a bound that is None is open. A sample without a time (NA)
/// is in no interval, and goes. The bounds must not be NaN and `from` must not
/// be after `to`; a profile with samples, none of which has a time, is an
/// error of kind `argument` (there is nothing to select by).
pub fn time_window(p: &mut Profile, from: Option<f64>, to: Option<f64>) -> Result<()> {
    if from.is_some_and(f64::is_nan) || to.is_some_and(f64::is_nan) {
        return Err(ProfileError::argument(
            "the bounds of a time window must be numbers, not NA",
        ));
    }
    let (from, to) = (
        from.unwrap_or(f64::NEG_INFINITY),
        to.unwrap_or(f64::INFINITY),
    );
    if from > to {
        return Err(ProfileError::argument(format!(
            "the window starts ({from} s) after it ends ({to} s)"
        )));
    }
    if !p.samples.is_rectangular() {
        return Err(ragged(Samples::NAME));
    }
    let times = &p.samples.time;
    if !times.is_empty() && times.iter().all(|t| t.is_nan()) {
        return Err(ProfileError::argument(
            "the profile has no sample times (`samples$time` is NA): only Rprof files record when samples were taken",
        ));
    }
    let keep = try_collect(times.iter().map(|&t| t >= from && t < to), "samples")?;
    keep_samples(p, &keep)
}
