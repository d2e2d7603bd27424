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

use crate::args::{choice, flag, number, optional_number, optional_string, strings};
use crate::bundle::{profile_from_r, profile_to_r};
use crate::envelope::envelope;
use crate::rapi::{code_vector, strings_vector};
use extendr_api::prelude::*;
use profile_core::budget::Budget;
use profile_core::verbs::{aggregate, diff, scale_values, time_window};
use profile_core::verbs::{
    filter_by_labels, keep_sample_types, FrameFilter, LabelCondition, LabelFilter, LabelPairs,
    LabelTest, LocationTexts, SampleFilter,
};
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
            file_line = code_vector(&t.file_line)?,
            simple_name = code_vector(&t.simple_name)?
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

/// The distinct (key, value) pairs of the string labels of the bundle's
/// `sample_labels`: `list(texts, key, value)`, the last two integer codes
/// into `texts`.
/// @noRd
#[extendr]
fn ffi_profile_label_pairs(bundle: Robj) -> Robj {
    envelope(|| {
        let pairs = LabelPairs::of(&profile_from_r(&bundle)?)?;
        Ok(list!(
            texts = strings_vector(&pairs.texts),
            key = code_vector(&pairs.key),
            value = code_vector(&pairs.value)
        )
        .into())
    })
}

/// A label filter as Go reads it: `list(key, patterns)`, `key` NA without
/// one, `patterns` NULL for a numeric range (the regular expressions to match
/// otherwise).
/// @noRd
#[extendr]
fn ffi_profile_parse_label_filter(filter: Robj) -> Robj {
    envelope(|| {
        let filter = label_filter(&filter)?
            .ok_or_else(|| ProfileError::argument("`filter` must not be NA"))?;
        let patterns = match &filter.test {
            LabelTest::Range(_) => Robj::from(()),
            LabelTest::Patterns(p) => Strings::from_values(p.iter()).into(),
        };
        Ok(list!(key = filter.key, patterns = patterns).into())
    })
}

/// Keeps the samples that meet the label filter `focus` and not `ignore`
/// (each a string, or NA for none), with, for regular expressions, the flags
/// of the label pairs they matched (`focus_clauses`, `ignore_clauses`: lists
/// of logical vectors, see `LabelCondition::new()`).
/// @noRd
#[extendr]
fn ffi_profile_apply_label_filter(
    bundle: Robj,
    focus: Robj,
    focus_clauses: Robj,
    ignore: Robj,
    ignore_clauses: Robj,
    compact: Robj,
) -> Robj {
    envelope(|| {
        let focus = label_condition(&focus, &focus_clauses)?;
        let ignore = label_condition(&ignore, &ignore_clauses)?;
        transformed_matching(&bundle, &compact, |p| {
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

/// The condition of the label filter `filter` (None for NA) with the flags of
/// the label pairs its regular expressions matched.
fn label_condition(filter: &Robj, clauses: &Robj) -> Result<Option<LabelCondition>, ProfileError> {
    let Some(filter) = label_filter(filter)? else {
        return Ok(None);
    };
    let clauses = clauses
        .as_list()
        .ok_or_else(|| ProfileError::argument("label match flags must be a list"))?
        .values()
        .map(|flags| logical_flags(&flags, "label match flags"))
        .collect::<Result<Vec<_>, _>>()?;
    LabelCondition::new(filter, clauses).map(Some)
}

/// Multiplies the values of the sample types `types` (a character vector, or
/// NULL for every type) by `factor`. The bundle holds `sample_values` and
/// `sample_types` (where declared types are looked up).
/// @noRd
#[extendr]
fn ffi_profile_scale(bundle: Robj, factor: Robj, types: Robj, compact: Robj) -> Robj {
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
        transformed(&bundle, &compact, |p| {
            scale_values(p, factor, types.as_deref())
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

/// The difference `x` minus `base` of two whole profiles (bundles), each
/// validated first: an invalid one is an error of kind `invalid` whose message
/// starts with its name (`x` or `base`).
/// @noRd
#[extendr]
fn ffi_profile_diff(x: Robj, base: Robj, compact: Robj) -> Robj {
    envelope(|| {
        let compact = flag(&compact, "compact")?;
        let valid = |bundle: &Robj, name: &str| -> Result<Profile, ProfileError> {
            let p = profile_from_r(bundle).map_err(|e| of_input(e, name))?;
            profile_core::validate::validate(&p).map_err(|e| of_input(e, name))?;
            Ok(p)
        };
        let (x, base) = (valid(&x, "x")?, valid(&base, "base")?);
        let budget = Budget::address_space_only();
        check_working_memory(&[&x, &base], &budget)?;
        profile_to_r(diff(x, base)?, compact, &budget)
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
        other => {
            let kind = other.kind();
            let message = format!("`{name}`: {other}");
            match kind {
                "limit" => ProfileError::limit(message),
                "unsupported" => ProfileError::unsupported(message),
                _ => ProfileError::argument(message),
            }
        }
    }
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
    let budget = Budget::address_space_only();
    check_working_memory(&[&p], &budget)?;
    change(&mut p)?;
    profile_to_r(p, compact, &budget)
}

/// An error of kind `limit` unless the address space left holds the working
/// memory of a verb, before any of it is asked for: the verbs' index and mask
/// vectors have the rows of the tables they work on, and the profile they
/// make is at most the size of their input, so the columns' size is what a
/// verb needs at most beyond its input (the verbs' own allocations are then
/// not each checked).
fn check_working_memory(profiles: &[&Profile], budget: &Budget) -> Result<(), ProfileError> {
    let bytes = profiles.iter().map(|p| p.column_bytes()).sum();
    budget.check(bytes, || "the working memory of the verb".to_string())
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
    fn ffi_profile_location_texts;
    fn ffi_profile_filter;
    fn ffi_profile_scale;
    fn ffi_profile_aggregate;
    fn ffi_profile_diff;
    fn ffi_profile_window;
    fn ffi_profile_label_pairs;
    fn ffi_profile_parse_label_filter;
    fn ffi_profile_apply_label_filter;
    fn ffi_profile_select_types;
}
