//! Properties across modules: damaged models (as a user's R objects may be) never
//! make validation, the writers, combining, the summaries or the verbs
//! panic.

use crate::formats::{pprof, rprof};
use crate::model::validate;
use crate::model::{ColMut, Profile, StrId, NA_INT};
use crate::ops::combine::{combine, CombineOptions};
use crate::ops::summary::{key_totals, CallTree, StackColumns, StackInput, Stacks};
use crate::ops::verbs::{aggregate, diff, scale_values, time_window};
use crate::ops::verbs::{
    filter_by_labels, keep_sample_types, location_lines_kept, LabelCondition, LabelFilter,
    LabelPairs,
};
use crate::ops::verbs::{
    frames_cut_at_match, Cut, FrameFilter, LocationSet, LocationTexts, SampleFilter,
};
use crate::resources::limits::Limits;
use crate::testing;
use proptest::prelude::*;

/// Models read from the real files.
fn models() -> &'static [Profile] {
    static MODELS: std::sync::OnceLock<Vec<Profile>> = std::sync::OnceLock::new();
    MODELS.get_or_init(|| {
        let mut out: Vec<Profile> = testing::rprof_files()
            .iter()
            .map(|b| crate::testing::read_rprof(b, Some("r")).unwrap().profile)
            .collect();
        out.extend(
            testing::pprof_messages()
                .iter()
                .map(|b| pprof::read_bytes(b, Some("p"), &Limits::default()).unwrap()),
        );
        out
    })
}

/// A change to one cell or one column of a model.
#[derive(Debug, Clone)]
enum Damage {
    /// Sets a cell of an integer column: NA, 0, negative, huge or small ids.
    Int(
        prop::sample::Index,
        prop::sample::Index,
        prop::sample::Index,
        i32,
    ),
    /// Sets a cell of a double column.
    Dbl(
        prop::sample::Index,
        prop::sample::Index,
        prop::sample::Index,
        f64,
    ),
    /// Sets a cell of a string column to another string of the pool, or NA.
    Chr(
        prop::sample::Index,
        prop::sample::Index,
        prop::sample::Index,
        prop::sample::Index,
    ),
    /// Drops the last value of a column (tables become ragged).
    Shorten(prop::sample::Index, prop::sample::Index),
    /// Copies a row's cells of one column to the end of it.
    Grow(
        prop::sample::Index,
        prop::sample::Index,
        prop::sample::Index,
    ),
}

fn damage() -> impl Strategy<Value = Damage> {
    use prop::sample::Index;
    let int = prop_oneof![Just(NA_INT), Just(0), Just(-1), Just(i32::MAX), 1i32..50];
    let dbl = prop_oneof![
        Just(f64::NAN),
        Just(-1.0),
        Just(0.5),
        Just(1e300),
        Just(f64::INFINITY),
        0.0f64..100.0
    ];
    prop_oneof![
        4 => (any::<Index>(), any::<Index>(), any::<Index>(), int).prop_map(|(t, c, r, v)| Damage::Int(t, c, r, v)),
        2 => (any::<Index>(), any::<Index>(), any::<Index>(), dbl).prop_map(|(t, c, r, v)| Damage::Dbl(t, c, r, v)),
        2 => (any::<Index>(), any::<Index>(), any::<Index>(), any::<Index>()).prop_map(|(t, c, r, s)| Damage::Chr(t, c, r, s)),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(t, c)| Damage::Shorten(t, c)),
        1 => (any::<Index>(), any::<Index>(), any::<Index>()).prop_map(|(t, c, r)| Damage::Grow(t, c, r)),
    ]
}

const TABLES: [&str; 12] = [
    "meta",
    "sources",
    "samples",
    "sample_values",
    "sample_locations",
    "locations",
    "functions",
    "sample_types",
    "sample_labels",
    "mappings",
    "source_comments",
    "source_lines",
];

fn apply(p: &mut Profile, d: &Damage) {
    let pool = p.strings.len();
    let (t, c) = match d {
        Damage::Int(t, c, ..) | Damage::Dbl(t, c, ..) | Damage::Chr(t, c, ..) => (t, c),
        Damage::Shorten(t, c) | Damage::Grow(t, c, _) => (t, c),
    };
    let Some(mut cols) = p.table_mut(TABLES[t.index(TABLES.len())]) else {
        return;
    };
    let n = cols.len();
    let (_, col) = &mut cols[c.index(n)];
    let cell = |r: &prop::sample::Index, n: usize| (n > 0).then(|| r.index(n));
    match (d, col) {
        (Damage::Int(_, _, r, v), ColMut::Int(col) | ColMut::Lgl(col)) => {
            if let Some(i) = cell(r, col.len()) {
                col[i] = *v;
            }
        }
        (Damage::Dbl(_, _, r, v), ColMut::Dbl(col)) => {
            if let Some(i) = cell(r, col.len()) {
                col[i] = *v;
            }
        }
        (Damage::Chr(_, _, r, s), ColMut::Chr(col)) => {
            if let Some(i) = cell(r, col.len()) {
                col[i] = StrId(s.index(pool) as u32);
            }
        }
        (Damage::Shorten(..), col) => match col {
            ColMut::Int(v) | ColMut::Lgl(v) => drop(v.pop()),
            ColMut::Dbl(v) => drop(v.pop()),
            ColMut::Chr(v) => drop(v.pop()),
        },
        (Damage::Grow(_, _, r), col) => match col {
            ColMut::Int(v) | ColMut::Lgl(v) => {
                if let Some(i) = cell(r, v.len()) {
                    v.push(v[i]);
                }
            }
            ColMut::Dbl(v) => {
                if let Some(i) = cell(r, v.len()) {
                    v.push(v[i]);
                }
            }
            ColMut::Chr(v) => {
                if let Some(i) = cell(r, v.len()) {
                    v.push(v[i]);
                }
            }
        },
        _ => {}
    }
}

/// A real model (the `which`th) with `damages` applied in order.
fn damaged_model(which: prop::sample::Index, damages: &[Damage]) -> Profile {
    let all = models();
    let mut p = all[which.index(all.len())].clone();
    for d in damages {
        apply(&mut p, d);
    }
    p
}

proptest! {
    #![proptest_config(testing::config(1000))]

    /// Validation, and the writers given what validation accepts (and the Rprof
    /// writer given anything), return an error or a result, never panic; what
    /// they write reads back.
    #[test]
    fn damaged_models_never_panic(
        which in any::<prop::sample::Index>(),
        damages in prop::collection::vec(damage(), 1..6),
    ) {
        let p = damaged_model(which, &damages);
        let valid = validate::validate(&p).is_ok();
        let rprof_text = rprof::write_to_vec(&p);
        let pprof_bytes = pprof::encode(&p, &pprof::WriteOptions::default());
        if valid {
            if let Ok(text) = rprof_text {
                let back = crate::testing::read_rprof(&text, None);
                prop_assert!(back.is_ok(), "{:?}", back.err());
            }
            let bytes = pprof_bytes.unwrap();
            let back = pprof::read_bytes(&bytes, None, &Limits::default());
            prop_assert!(back.is_ok(), "{:?}", back.err());
        } else {
            prop_assert!(pprof_bytes.is_err());
        }

        // Combining validates nothing itself (the binding validates each input),
        // so it sees the damage as it is.
        let original = damaged_model(which, &[]);
        for merge in [true, false] {
            let combined = combine(&[original.clone(), p.clone()], &CombineOptions { merge });
            if valid {
                let combined = combined.unwrap();
                prop_assert_eq!(validate::validate(&combined), Ok(()));
            }
        }

        // Stacks keyed by function id, as the R side keys them by name, with the
        // values of one sample type.
        let sv = &p.sample_values;
        let chosen: Vec<usize> =
            (0..sv.value.len()).filter(|&i| sv.value_type.get(i) == sv.value_type.first()).collect();
        let value_sample_id: Vec<i32> = chosen.iter().filter_map(|&i| sv.sample_id.get(i).copied()).collect();
        let value: Vec<f64> = chosen.iter().map(|&i| sv.value[i]).collect();
        let input = StackInput { columns: StackColumns { sample_id: &p.sample_locations.sample_id, depth: &p.sample_locations.depth, location_id: &p.sample_locations.location_id, locations: &p.locations.location_id, value_sample_id: &value_sample_id, value: &value }, location_key: &p.locations.function_id, n_keys: p.functions.function_id.iter().copied().max().unwrap_or(0).max(0) as usize };
        if let Ok(stacks) = Stacks::build(&input) {
            let _ = key_totals(&stacks);
            let _ = CallTree::build(&stacks);
        }
    }

    /// The verbs on the real profiles, whole or damaged, with random matches:
    /// valid results from valid input, and never a panic.
    #[test]
    fn verbs_on_real_and_damaged_models(
        which in any::<prop::sample::Index>(),
        damages in prop::collection::vec(damage(), 0..4),
        flags in prop::collection::vec(any::<bool>(), 1..6),
    ) {
        let p = damaged_model(which, &damages);
        let valid = validate::validate(&p).is_ok();
        let _ = LocationTexts::of(&p);
        let matched: Vec<bool> = (0..p.locations.location_id.len()).map(|i| flags[i % flags.len()]).collect();
        if let Ok(set) = LocationSet::new(&p.locations.location_id, &matched) {
            for cut in [Cut::CalleesOfInnermostMatch, Cut::CallersOfOutermostMatch] {
                let keep = frames_cut_at_match(&p, &set, cut);
                prop_assert!(keep.is_ok() || !valid);
                let lines = location_lines_kept(&p, &set, cut);
                prop_assert!(lines.is_ok() || !valid);
            }
        }
        let checked = |q: &Profile, outcome: crate::Result<()>| -> Result<(), TestCaseError> {
            if valid {
                prop_assert_eq!(outcome, Ok(()));
                prop_assert_eq!(validate::validate(q), Ok(()));
            }
            Ok(())
        };
        for filter in [SampleFilter::Focus, SampleFilter::Ignore] {
            let mut q = p.clone();
            let outcome = filter.apply(&mut q, &matched).map(|_| ());
            checked(&q, outcome)?;
        }
        for filter in [FrameFilter::Hide, FrameFilter::Show, FrameFilter::ShowFrom, FrameFilter::PruneFrom] {
            let mut q = p.clone();
            let outcome = filter.apply(&mut q, &matched).map(|_| ());
            checked(&q, outcome)?;
        }
        // Label filters: string labels by the flags, numeric ones by a range.
        let pairs = LabelPairs::of(&p);
        prop_assert!(pairs.is_ok() || !valid);
        let flags: Vec<bool> = (0..pairs.map_or(0, |x| x.len())).map(|i| flags[i % flags.len()]).collect();
        let text = LabelCondition::new(LabelFilter::parse("key=x").unwrap(), vec![flags]).unwrap();
        let numeric = LabelCondition::new(LabelFilter::parse("1kb:").unwrap(), Vec::new()).unwrap();
        for (focus, ignore) in [(Some(&text), Some(&numeric)), (Some(&numeric), None), (None, Some(&text))] {
            let mut q = p.clone();
            let outcome = filter_by_labels(&mut q, focus, ignore).map(|_| ());
            checked(&q, outcome)?;
        }
        let mut q = p.clone();
        let first_type = p.sample_values.value_type.first().map(|&t| p.str(t).to_string());
        let outcome = keep_sample_types(&mut q, &first_type.iter().map(String::as_str).collect::<Vec<_>>());
        checked(&q, outcome)?;
        let mut q = p.clone();
        let outcome = scale_values(&mut q, -2.0, None);
        checked(&q, outcome)?;
        let mut q = p.clone();
        // (a type the profile may lack: an argument error, never a panic)
        if scale_values(&mut q, 3.0, Some(&["samples"])).is_ok() {
            prop_assert!(!valid || validate::validate(&q).is_ok());
        }
        let mut q = p.clone();
        // (a damaged unit may put a type in two units: not summable, not a panic)
        match aggregate(&mut q) {
            Err(e) if e.kind() == "unsupported" => {}
            outcome => checked(&q, outcome)?,
        }
        let mut q = p.clone();
        // (a profile without times: an argument error, never a panic)
        match time_window(&mut q, Some(0.01), Some(0.5)) {
            Err(e) if e.kind() == "argument" => {}
            outcome => checked(&q, outcome)?,
        }
        match diff(p.clone(), p.clone()) {
            Ok(d) => prop_assert!(!valid || validate::validate(&d).is_ok()),
            Err(e) => prop_assert!(!valid, "{}", e),
        }
    }
}

/// Every sample file reads the same from its gzip-compressed bytes (inflated
/// as a stream, each piece shown to the format's content) as from its plain
/// bytes (read in one piece).
#[test]
fn compressed_and_plain_files_read_the_same() {
    use crate::formats::rprof::RprofContent;
    use crate::io::input::decompress_owned;
    use crate::resources::budget::Budget;
    for text in testing::rprof_files() {
        let budget = Budget::default();
        let data =
            decompress_owned(testing::gzip(text), &budget, &mut RprofContent::new()).unwrap();
        let streamed = crate::formats::rprof::parse(
            std::borrow::Cow::Owned(data),
            &crate::formats::rprof::ParseOptions::new(&budget),
        )
        .unwrap()
        .expand(&budget)
        .unwrap();
        let whole = crate::testing::read_rprof(text, None).unwrap();
        assert_eq!(
            format!("{:?}", streamed.profile),
            format!("{:?}", whole.profile)
        );
        assert_eq!(
            (streamed.warnings, streamed.sample_lines),
            (whole.warnings, whole.sample_lines)
        );
    }
    for message in testing::pprof_messages() {
        let streamed =
            pprof::read_bytes(&testing::gzip(message), None, &Limits::default()).unwrap();
        let whole = pprof::read_bytes(message, None, &Limits::default()).unwrap();
        assert_eq!(format!("{streamed:?}"), format!("{whole:?}"));
    }
}
