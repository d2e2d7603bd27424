//! Binding for the core's `transform` module: the verbs from profile to
//! profile (R side: `R/verbs.R`).
//!
//! A verb sends the tables it changes, the per-sample ones, with `locations`
//! (where frames are looked up) as a bundle, and one flag per row of
//! `locations` for the frames its pattern matched; the per-sample tables come
//! back as a bundle, compact where their shape allows. One entry point per
//! primitive, the verb named by its argument: `ffi_profile_filter()` for the
//! verbs given the locations a pattern matched.

use crate::args::{choice, flag};
use crate::bundle::{profile_from_r, profile_to_r};
use crate::envelope::envelope;
use crate::rapi::{code_vector, strings_vector};
use extendr_api::prelude::*;
use profile_core::budget::Budget;
use profile_core::transform::{FrameFilter, LocationTexts, SampleFilter};
use profile_core::{Profile, ProfileError};

/// The texts a pattern is matched against, for each row of `locations` (see
/// `LocationTexts`): `list(texts, name, filename, mapping, file_line)`, the
/// last four integer codes into `texts` (NA where a text does not apply). The
/// bundle holds `locations`, `functions` and `mappings`.
/// @noRd
#[extendr]
fn ffi_profile_location_texts(bundle: Robj) -> Robj {
    envelope(|| {
        let t = LocationTexts::of(&profile_from_r(&bundle)?)?;
        Ok(list!(
            texts = strings_vector(&t.texts),
            name = code_vector(&t.name)?,
            filename = code_vector(&t.filename)?,
            mapping = code_vector(&t.mapping)?,
            file_line = code_vector(&t.file_line)?
        )
        .into())
    })
}

/// The verbs that take the locations a pattern matched, by their R names.
#[derive(Clone, Copy)]
enum LocationVerb {
    Samples(SampleFilter),
    Frames(FrameFilter),
}

const LOCATION_VERBS: [(&str, LocationVerb); 4] = [
    ("focus", LocationVerb::Samples(SampleFilter::Focus)),
    ("ignore", LocationVerb::Samples(SampleFilter::Ignore)),
    ("hide", LocationVerb::Frames(FrameFilter::Hide)),
    ("show", LocationVerb::Frames(FrameFilter::Show)),
];

/// Applies the verb named `verb` (`"focus"`, `"ignore"`, `"hide"`, `"show"`)
/// given the flags of the locations its pattern matched.
/// @noRd
#[extendr]
fn ffi_profile_filter(bundle: Robj, location_match: Robj, verb: Robj, compact: Robj) -> Robj {
    envelope(|| {
        let verb = choice(&verb, "verb", &LOCATION_VERBS)?;
        let matched = location_flags(&location_match)?;
        transformed(&bundle, &compact, |p| match verb {
            LocationVerb::Samples(filter) => filter.apply(p, &matched),
            LocationVerb::Frames(filter) => filter.apply(p, &matched),
        })
    })
}

/// The profile of `bundle`, changed by `change`, as a bundle (with compact
/// columns if `compact` is TRUE).
fn transformed(
    bundle: &Robj,
    compact: &Robj,
    change: impl FnOnce(&mut Profile) -> Result<(), ProfileError>,
) -> Result<Robj, ProfileError> {
    let compact = flag(compact, "compact")?;
    let mut p = profile_from_r(bundle)?;
    change(&mut p)?;
    profile_to_r(p, compact, &Budget::address_space_only())
}

/// One flag per row of `locations` from a logical vector without NA.
fn location_flags(x: &Robj) -> Result<Vec<bool>, ProfileError> {
    let flags = x
        .as_logical_slice()
        .ok_or_else(|| ProfileError::argument("`location_match` must be a logical vector"))?;
    if flags.iter().any(|b| b.is_na()) {
        return Err(ProfileError::argument("`location_match` must not be NA"));
    }
    Ok(flags.iter().map(|b| b.is_true()).collect())
}

extendr_module! {
    mod transform;
    fn ffi_profile_location_texts;
    fn ffi_profile_filter;
}
