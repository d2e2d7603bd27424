//! Binding for the core's `combine` module.
//!
//! Combining streams: R starts a combiner, adds the inputs one bundle at a time and
//! then takes the result. So R never holds the bundles of all inputs at once, each
//! input is converted once (and validated on the way), and R can show progress and
//! name the input that fails.

use crate::args::flag;
use crate::bundle::{profile_from_r, profile_to_r};
use crate::envelope::envelope;
use extendr_api::prelude::*;
use profile_core::ops::combine::{CombineOptions, Combiner};
use profile_core::resources::budget::Budget;
use profile_core::ProfileError;

/// The state behind the external pointer: None once the result has been taken.
type CombinerSlot = Option<Combiner>;

fn with_combiner<T>(
    state: &Robj,
    body: impl FnOnce(&mut CombinerSlot) -> Result<T, ProfileError>,
) -> Result<T, ProfileError> {
    let mut ptr = ExternalPtr::<CombinerSlot>::try_from(state).map_err(|_| {
        ProfileError::invalid("(combiner)", "(combiner)", None, "is not a combiner")
    })?;
    let slot = ptr.try_addr_mut().map_err(|_| {
        ProfileError::invalid("(combiner)", "(combiner)", None, "has been released")
    })?;
    body(slot)
}

fn finished() -> ProfileError {
    ProfileError::invalid(
        "(combiner)",
        "(combiner)",
        None,
        "has already returned its result",
    )
}

/// A new combiner (an external pointer) for `ffi_profile_combine_add()`.
/// @noRd
#[extendr]
fn ffi_profile_combine_start(merge: bool) -> Robj {
    envelope(|| {
        let slot: CombinerSlot = Some(Combiner::new(CombineOptions { merge }));
        Ok(ExternalPtr::new(slot).into())
    })
}

/// Validates one v2 bundle and adds it to the combiner.
/// @noRd
#[extendr]
fn ffi_profile_combine_add(state: Robj, bundle: Robj) -> Robj {
    envelope(|| {
        with_combiner(&state, |slot| {
            let combiner = slot.as_mut().ok_or_else(finished)?;
            let input = profile_from_r(&bundle)?;
            profile_core::model::validate::validate(&input)?;
            combiner.add(&input)?;
            Ok(Robj::from(true))
        })
    })
}

/// The combined profile as a bundle, with compact columns if `compact` is TRUE;
/// the combiner is spent afterwards.
/// @noRd
#[extendr]
fn ffi_profile_combine_finish(state: Robj, compact: Robj) -> Robj {
    envelope(|| {
        let compact = flag(&compact, "compact")?;
        with_combiner(&state, |slot| {
            let combined = slot.take().ok_or_else(finished)?.finish();
            profile_to_r(combined, compact, &Budget::address_space_only())
        })
    })
}

extendr_module! {
    mod combine;
    fn ffi_profile_combine_start;
    fn ffi_profile_combine_add;
    fn ffi_profile_combine_finish;
}
