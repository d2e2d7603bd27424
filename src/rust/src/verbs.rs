//! Binding for the core's `verbs` module: the verbs from profile to
//! profile (R side: `R/verbs.R`).
//!
//! A verb sends the tables it changes, the per-sample ones, with `locations`
//! (where frames are looked up) as a bundle, and one flag per row of
//! `locations` for the frames its pattern matched; the per-sample tables come
//! back as a bundle, compact where their shape allows. One entry point per
//! primitive, the verb named by its argument: `ffi_profile_filter()` for the
//! verbs given the locations a pattern matched. The verbs with patterns
//! return `list(bundle, matched)`, `matched` saying for each pattern (or
//! label filter) whether it matched some sample (R warns when one matched
//! none).

use crate::args::{
    choice, choice_of, flag, number, optional_number, optional_string, required_string, strings,
};
use crate::bundle::{columns_sent_back, profile_after_to_r, profile_from_r, profile_to_r};
use crate::envelope::envelope;
use extendr_api::prelude::*;
use profile_core::model::{SampleLabels, SampleLocations, SampleValues, Samples};
use profile_core::ops::verbs::{
    aggregate, scale_values, set_unit, time_window, AfterX, DiffInputs,
};
use profile_core::ops::verbs::{
    filter_by_labels, keep_sample_types, FrameFilter, LabelCondition, LabelFilter, LabelPairs,
    LocationTexts, Pattern, SampleFilter, TextKind,
};
use profile_core::resources::budget::Budget;
use profile_core::{Profile, ProfileError};

/// One flag per row of the bundle's `locations` (the bundle holds
/// `locations`, `functions` and `mappings`): whether the regular expression
/// `pattern` (Go's syntax and meaning, see the core's `Pattern`) is found in
/// one of the location's texts of the kinds `kinds` (a character vector of
/// `"name"`, `"filename"`, `"mapping"`, `"file_line"`, `"simple_name"`; see
/// `LocationTexts`). Each distinct text is matched once.
/// @noRd
#[extendr]
fn ffi_profile_locations_matching(bundle: Robj, pattern: Robj, kinds: Robj) -> Robj {
    envelope(|| {
        let pattern = Pattern::new(&required_string(&pattern, "pattern")?)?;
        let kinds = strings(&kinds, "kinds")?
            .iter()
            .map(|k| choice_of(k, "kinds", &TextKind::NAMED))
            .collect::<Result<Vec<_>, _>>()?;
        let texts = LocationTexts::of(&profile_from_r(&bundle)?)?;
        Ok(texts.matching(&pattern, &kinds)?.into())
    })
}

/// `TRUE` if `pattern` is a regular expression Go's `regexp` accepts; an
/// error of kind `argument` naming what is wrong otherwise.
/// @noRd
#[extendr]
fn ffi_profile_check_pattern(pattern: Robj) -> Robj {
    envelope(|| {
        Pattern::new(&required_string(&pattern, "pattern")?)?;
        Ok(Robj::from(true))
    })
}

/// The verbs that take the locations a pattern matched, by their R names.
#[derive(Clone, Copy)]
enum LocationVerb {
    Samples(SampleFilter),
    Frames(FrameFilter),
}

const LOCATION_VERBS: [(&str, LocationVerb); 6] = [
    ("focus", LocationVerb::Samples(SampleFilter::Focus)),
    ("ignore", LocationVerb::Samples(SampleFilter::Ignore)),
    ("hide", LocationVerb::Frames(FrameFilter::Hide)),
    ("show", LocationVerb::Frames(FrameFilter::Show)),
    ("show_from", LocationVerb::Frames(FrameFilter::ShowFrom)),
    ("prune_from", LocationVerb::Frames(FrameFilter::PruneFrom)),
];

/// Applies the verb named `verb` (`"focus"`, `"ignore"`, `"hide"`, `"show"`,
/// `"show_from"`, `"prune_from"`) given the flags of the locations its
/// pattern matched.
/// @noRd
#[extendr]
fn ffi_profile_filter(bundle: Robj, location_match: Robj, verb: Robj, compact: Robj) -> Robj {
    envelope(|| {
        let verb = choice(&verb, "verb", &LOCATION_VERBS)?;
        let matched = location_flags(&location_match)?;
        transformed_matching(&bundle, &compact, |p| {
            let any = match verb {
                LocationVerb::Samples(filter) => filter.apply(p, &matched)?,
                LocationVerb::Frames(filter) => filter.apply(p, &matched)?,
            };
            Ok(vec![any])
        })
    })
}

/// Keeps the samples that meet the label filter `focus` and not `ignore`
/// (each a string, or NA for none; regular expressions in them are Go's,
/// matched here against the profile's string labels).
/// @noRd
#[extendr]
fn ffi_profile_apply_label_filter(bundle: Robj, focus: Robj, ignore: Robj, compact: Robj) -> Robj {
    envelope(|| {
        let focus = label_filter(&focus)?;
        let ignore = label_filter(&ignore)?;
        transformed_matching(&bundle, &compact, |p| {
            let pairs = LabelPairs::of(p)?;
            let condition =
                |f: Option<LabelFilter>| f.map(|f| LabelCondition::compile(f, &pairs)).transpose();
            let (focus, ignore) = (condition(focus)?, condition(ignore)?);
            let matches = filter_by_labels(p, focus.as_ref(), ignore.as_ref())?;
            Ok(vec![matches.focus, matches.ignore])
        })
    })
}

/// Keeps the sample types named in `types` (a character vector).
/// @noRd
#[extendr]
fn ffi_profile_select_types(bundle: Robj, types: Robj, compact: Robj) -> Robj {
    envelope(|| {
        let types = strings(&types, "types")?;
        let types: Vec<&str> = types.iter().map(String::as_str).collect();
        transformed(&bundle, &compact, |p| keep_sample_types(p, &types))
    })
}

/// A label filter from a single string (None for NA).
fn label_filter(x: &Robj) -> Result<Option<LabelFilter>, ProfileError> {
    optional_string(x, "filter")?
        .map(|text| LabelFilter::parse(&text))
        .transpose()
}

/// Multiplies the values of the sample types `types` (a character vector, or
/// NULL for every type) by `factor`, and gives them the unit `unit` (a string,
/// or NA to keep theirs). The bundle holds `sample_values` and `sample_types`
/// (where declared types are looked up).
/// @noRd
#[extendr]
fn ffi_profile_scale(bundle: Robj, factor: Robj, types: Robj, unit: Robj, compact: Robj) -> Robj {
    envelope(|| {
        let factor = number(&factor, "factor")?;
        let types = if types.is_null() {
            None
        } else {
            Some(strings(&types, "types")?)
        };
        let types: Option<Vec<&str>> = types
            .as_ref()
            .map(|t| t.iter().map(String::as_str).collect());
        let unit = optional_string(&unit, "unit")?;
        transformed(&bundle, &compact, |p| {
            scale_values(p, factor, types.as_deref())?;
            match &unit {
                Some(unit) => set_unit(p, types.as_deref(), unit),
                None => Ok(()),
            }
        })
    })
}

/// One sample per distinct source, stack and labels (see the core's
/// `aggregate`). The bundle holds the per-sample tables and `locations`.
/// @noRd
#[extendr]
fn ffi_profile_aggregate(bundle: Robj, compact: Robj) -> Robj {
    envelope(|| transformed(&bundle, &compact, aggregate))
}

/// Keeps the samples whose `time` is in `[from, to)` (each bound a number,
/// or NULL for none). The bundle holds the per-sample tables.
/// @noRd
#[extendr]
fn ffi_profile_window(bundle: Robj, from: Robj, to: Robj, compact: Robj) -> Robj {
    envelope(|| {
        let (from, to) = (optional_number(&from, "from")?, optional_number(&to, "to")?);
        transformed(&bundle, &compact, |p| time_window(p, from, to))
    })
}

/// The tables whose rows a difference holds first as they are in `x`.
const PER_SAMPLE_TABLES: [&str; 4] = [
    Samples::NAME,
    SampleValues::NAME,
    SampleLocations::NAME,
    SampleLabels::NAME,
];

/// The difference `x` minus `base` of two whole profiles (bundles), each
/// validated first: an invalid one is an error of kind `invalid` whose message
/// starts with its name (`x` or `base`).
///
/// With compact columns, where R would get back the very vectors of `x`'s
/// per-sample columns (`columns_sent_back()`), only the base's rows are sent,
/// each column after `x`'s own in a `concat` vector: `x`'s rows are neither
/// copied into the result nor written again, except for the id columns that
/// the difference renumbers (`DiffInputs::combine_after_x()`: none where
/// `x`'s ids are 1..n in row order, as a read makes them).
/// @noRd
#[extendr]
fn ffi_profile_diff(x: Robj, base: Robj, compact: Robj) -> Robj {
    envelope(|| {
        let compact = flag(&compact, "compact")?;
        let x_bundle = x;
        let x = profile_from_r(&x_bundle).map_err(|e| of_input(e, "x"))?;
        profile_core::model::validate::validate(&x).map_err(|e| of_input(e, "x"))?;
        let base = profile_from_r(&base).map_err(|e| of_input(e, "base"))?;
        profile_core::model::validate::validate(&base).map_err(|e| of_input(e, "base"))?;
        let budget = Budget::address_space_only();
        let x_columns = if compact {
            columns_sent_back(&x_bundle, &x, &PER_SAMPLE_TABLES)?
        } else {
            None
        };
        let inputs = DiffInputs::new(x, base)?;
        let Some(x_columns) = x_columns else {
            return profile_to_r(inputs.combine()?, compact, &budget);
        };
        let AfterX { profile, x_ids } = inputs.combine_after_x()?;
        profile_after_to_r(profile, x_columns, x_ids, &budget)
    })
}

/// An error about the input `name` of several: a table named as R names it
/// (`base$samples`), other messages prefixed with the name.
fn of_input(e: ProfileError, name: &str) -> ProfileError {
    match e {
        ProfileError::Invalid {
            table,
            column,
            row,
            message,
        } => ProfileError::Invalid {
            table: format!("{name}${table}"),
            column,
            row,
            message,
        },
        other => other.map_message(|m| format!("`{name}`: {m}")),
    }
}

/// The profile of `bundle`, changed by `change`, as a bundle (with compact
/// columns if `compact` is TRUE). The verbs ask for their scratch memory
/// fallibly (an error of kind `limit` where it is not there, as under a
/// `ulimit -v`), and the copy R gets is charged to the address space left
/// before it is made.
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

/// As [`transformed`], for a verb with patterns: `list(bundle, matched)`,
/// `matched` what `change` returned (whether each pattern matched).
fn transformed_matching(
    bundle: &Robj,
    compact: &Robj,
    change: impl FnOnce(&mut Profile) -> Result<Vec<bool>, ProfileError>,
) -> Result<Robj, ProfileError> {
    let mut matched = Vec::new();
    let bundle = transformed(bundle, compact, |p| {
        matched = change(p)?;
        Ok(())
    })?;
    Ok(list!(bundle = bundle, matched = matched).into())
}

/// One flag per row of `locations` from a logical vector without NA.
fn location_flags(x: &Robj) -> Result<Vec<bool>, ProfileError> {
    logical_flags(x, "`location_match`")
}

/// Flags from a logical vector without NA (`what` names it in errors).
fn logical_flags(x: &Robj, what: &str) -> Result<Vec<bool>, ProfileError> {
    let flags = x
        .as_logical_slice()
        .ok_or_else(|| ProfileError::argument(format!("{what} must be a logical vector")))?;
    if flags.iter().any(|b| b.is_na()) {
        return Err(ProfileError::argument(format!("{what} must not be NA")));
    }
    Ok(flags.iter().map(|b| b.is_true()).collect())
}

extendr_module! {
    mod verbs;
    fn ffi_profile_locations_matching;
    fn ffi_profile_check_pattern;
    fn ffi_profile_filter;
    fn ffi_profile_scale;
    fn ffi_profile_aggregate;
    fn ffi_profile_diff;
    fn ffi_profile_window;
    fn ffi_profile_apply_label_filter;
    fn ffi_profile_select_types;
}
