//! Which values a summary counts. Only those of the samples in `samples`: a
//! row of `sample_values` (and of `sample_locations`) whose sample is not there
//! is not counted, so that a profile whose `samples` table was filtered (with
//! dplyr, `dm::dm_zoom_to()`, which leaves the other tables as they were) is
//! summarised over the samples it still has. And a sample type may be derived
//! from another: `time` in seconds from the `samples` counts of Rprof ticks,
//! each count multiplied by its source's interval ([`Derived`]).

use crate::error::{ProfileError, Result};
use crate::model::id_index::IdIndex;

/// The samples of a profile (`samples.sample_id`), with their source
/// (`samples.source_id`).
#[derive(Debug)]
pub struct CountedSamples<'a> {
    index: IdIndex,
    source: &'a [i32],
}

/// A sample type derived from another: each value of that type (the rows the
/// caller chose) multiplied by the factor of its sample's source; a sample of
/// a source without a factor has no value of the derived type.
#[derive(Debug, Clone, Copy)]
pub struct Derived<'a> {
    pub source_id: &'a [i32],
    pub factor: &'a [f64],
}

impl<'a> CountedSamples<'a> {
    pub fn new(sample_id: &[i32], source_id: &'a [i32]) -> Result<Self> {
        if sample_id.len() != source_id.len() {
            return Err(ProfileError::invalid(
                "samples",
                "(table)",
                None,
                "columns differ in length",
            ));
        }
        Ok(CountedSamples {
            index: IdIndex::try_first_rows(sample_id)?,
            source: source_id,
        })
    }

    /// Whether `sample_id` is a sample of the profile.
    pub fn contains(&self, sample_id: i32) -> bool {
        self.index.get(sample_id).is_some()
    }

    /// The source of sample `sample_id`, if it is a sample of the profile.
    pub fn source_of(&self, sample_id: i32) -> Option<i32> {
        self.index
            .row(sample_id)
            .and_then(|row| self.source.get(row).copied())
    }

    /// The value rows (`sample_id`, `value`, of one sample type) of the
    /// samples of the profile, in their order; with `derived`, each value
    /// multiplied by the factor of its sample's source (rows of sources
    /// without one left out).
    pub fn values(
        &self,
        value_sample_id: &[i32],
        value: &[f64],
        derived: Option<&Derived<'_>>,
    ) -> Result<(Vec<i32>, Vec<f64>)> {
        if value_sample_id.len() != value.len() {
            return Err(ProfileError::invalid(
                "sample_values",
                "(table)",
                None,
                "columns differ in length",
            ));
        }
        let factors = derived.map(source_factors).transpose()?;
        let mut ids = try_vec(value.len())?;
        let mut values = try_vec(value.len())?;
        for (&sid, &v) in value_sample_id.iter().zip(value) {
            let Some(row) = self.index.row(sid) else {
                continue;
            };
            let v = match &factors {
                None => v,
                Some((index, factor)) => {
                    let source = self.source.get(row).copied();
                    let at = source.and_then(|s| index.row(s));
                    match at.and_then(|i| factor.get(i)) {
                        Some(f) => v * f,
                        None => continue,
                    }
                }
            };
            ids.push(sid);
            values.push(v);
        }
        Ok((ids, values))
    }
}

/// The sources of `derived` by id, with their factors.
fn source_factors<'d>(derived: &Derived<'d>) -> Result<(IdIndex, &'d [f64])> {
    if derived.source_id.len() != derived.factor.len() {
        return Err(ProfileError::argument(
            "a derived sample type needs one factor per source",
        ));
    }
    Ok((IdIndex::try_first_rows(derived.source_id)?, derived.factor))
}

/// An empty vector with room for `n` elements, or a limit error.
fn try_vec<T>(n: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| ProfileError::limit(format!("not enough memory for {n} sample values")))?;
    Ok(v)
}

#[cfg(test)]
mod tests;
