mod frames;
mod values;

use super::*;
use crate::model::validate::validate;
use crate::model::Profile;
use crate::testing::{
    random_profile, row, s,
    Val::{D, I},
};
use proptest::prelude::*;
use std::collections::BTreeMap;

// ---- building and describing profiles --------------------------------------------

/// An Rprof-like profile: one source, one sample per stack (names innermost
/// first, "" for none), value `k + 1` for sample `k`, a label on every
/// other sample, one function and location per distinct name. Sample ids are
/// 10, 20, ...; location ids 100 times the function's number.
pub(super) fn stacks_profile(stacks: &[&[&str]]) -> Profile {
    let mut p = Profile::new();
    row!(&mut p, sources, "source_id" => I(1), "source_type" => s("rprof"), "source_uri" => s("x.out"));
    let mut names: Vec<&str> = Vec::new();
    for (k, stack) in stacks.iter().enumerate() {
        let sample = (k as i32 + 1) * 10;
        row!(&mut p, samples, "sample_id" => I(sample), "source_id" => I(1));
        row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s("samples"), "unit" => s("count"),
            "value" => D(k as f64 + 1.0));
        if k % 2 == 0 {
            row!(&mut p, sample_labels, "sample_id" => I(sample), "key" => s("k"), "value" => s("v"));
        }
        for (depth, name) in stack.iter().enumerate() {
            let f = match names.iter().position(|n| n == name) {
                Some(f) => f as i32 + 1,
                None => {
                    names.push(name);
                    let f = names.len() as i32;
                    row!(&mut p, functions, "function_id" => I(f), "name" => s(name), "system_name" => s(name),
                        "filename" => s("a.R"), "start_line" => I(0));
                    row!(&mut p, locations, "location_id" => I(f * 100), "function_id" => I(f), "line" => I(f));
                    f
                }
            };
            row!(&mut p, sample_locations, "sample_id" => I(sample), "depth" => I(depth as i32 + 1),
                "location_id" => I(f * 100));
        }
    }
    validate(&p).expect("the test profile is valid");
    p
}

/// The flags of the locations whose function has one of `names`.
pub(super) fn matching(p: &Profile, names: &[&str]) -> Vec<bool> {
    (0..p.locations.nrow())
        .map(|r| {
            let f = p
                .functions
                .function_id
                .iter()
                .position(|&f| f == p.locations.function_id[r]);
            f.is_some_and(|f| names.contains(&p.str(p.functions.name[f])))
        })
        .collect()
}

/// Each sample's stack as location ids, innermost first, by sample id.
pub(super) fn stacks(p: &Profile) -> BTreeMap<i32, Vec<i32>> {
    let sl = &p.sample_locations;
    let mut frames: BTreeMap<i32, Vec<(i32, i32)>> = p
        .samples
        .sample_id
        .iter()
        .map(|&s| (s, Vec::new()))
        .collect();
    for r in 0..sl.nrow() {
        frames
            .entry(sl.sample_id[r])
            .or_default()
            .push((sl.depth[r], sl.location_id[r]));
    }
    frames
        .into_iter()
        .map(|(s, mut f)| {
            f.sort();
            (s, f.into_iter().map(|(_, l)| l).collect())
        })
        .collect()
}

/// Each stack as function names, innermost first, in sample order.
pub(super) fn named_stacks(p: &Profile) -> Vec<String> {
    stacks(p)
        .values()
        .map(|stack| {
            let names: Vec<&str> = stack
                .iter()
                .map(|&l| {
                    let r = p
                        .locations
                        .location_id
                        .iter()
                        .position(|&x| x == l)
                        .unwrap();
                    let f = p
                        .functions
                        .function_id
                        .iter()
                        .position(|&x| x == p.locations.function_id[r])
                        .unwrap();
                    p.str(p.functions.name[f])
                })
                .collect();
            names.join(" ")
        })
        .collect()
}

/// Every value and label row, keyed by sample id, as text.
pub(super) fn sample_rows(p: &Profile) -> BTreeMap<i32, Vec<String>> {
    let mut out: BTreeMap<i32, Vec<String>> = BTreeMap::new();
    let sv = &p.sample_values;
    for r in 0..sv.nrow() {
        let text = format!(
            "{}/{}={}",
            p.str(sv.value_type[r]),
            p.str(sv.unit[r]),
            sv.value[r]
        );
        out.entry(sv.sample_id[r]).or_default().push(text);
    }
    let lab = &p.sample_labels;
    for r in 0..lab.nrow() {
        let text = format!(
            "{}:{:?}:{}",
            p.str(lab.key[r]),
            p.strings.get(lab.value[r]),
            lab.num[r]
        );
        out.entry(lab.sample_id[r]).or_default().push(text);
    }
    out
}

/// The profile with the rows of `sample_locations` in another order (each
/// stack's rows no longer in depth order), which must not change any result.
pub(super) fn shuffled_frames(p: &Profile, seed: u64) -> Profile {
    let mut p = p.clone();
    let n = p.sample_locations.nrow();
    let mut order: Vec<usize> = (0..n).collect();
    let mut x = seed | 1;
    for i in (1..n).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    let sl = &mut p.sample_locations;
    sl.sample_id = order.iter().map(|&r| sl.sample_id[r]).collect();
    sl.depth = order.iter().map(|&r| sl.depth[r]).collect();
    sl.location_id = order.iter().map(|&r| sl.location_id[r]).collect();
    p
}

/// `flags` cycled to `n` values (all true when empty).
pub(super) fn mask(flags: &[bool], n: usize) -> Vec<bool> {
    (0..n)
        .map(|i| flags.get(i % flags.len().max(1)).copied().unwrap_or(true))
        .collect()
}

// ---- keep_samples -------------------------------------------------------------------

#[test]
fn keep_samples_keeps_the_rows_of_kept_samples_with_their_ids() {
    let mut p = stacks_profile(&[&["f", "main"], &["g", "main"], &["f", "g", "main"]]);
    let before_rows = sample_rows(&p);
    let before_stacks = stacks(&p);
    keep_samples(&mut p, &[true, false, true]).unwrap();
    validate(&p).unwrap();
    assert_eq!(p.samples.sample_id, vec![10, 30]);
    assert_eq!(
        stacks(&p),
        before_stacks
            .into_iter()
            .filter(|(s, _)| *s != 20)
            .collect()
    );
    assert_eq!(
        sample_rows(&p),
        before_rows.into_iter().filter(|(s, _)| *s != 20).collect()
    );
    // locations and functions are kept whole, used or not
    assert_eq!(p.locations.nrow(), 3);
    assert_eq!(p.functions.nrow(), 3);
}

#[test]
fn keep_samples_refuses_what_it_cannot_do_and_leaves_the_profile_as_it_was() {
    let p = stacks_profile(&[&["f"], &["g"]]);
    let mut q = p.clone();
    let err = keep_samples(&mut q, &[true]).unwrap_err();
    assert_eq!(err.kind(), "invalid");
    assert!(err.to_string().contains("mask of 1 rows"), "{err}");

    q.sample_values.sample_id[1] = 99;
    let before = q.clone();
    let err = keep_samples(&mut q, &[true, false]).unwrap_err();
    assert!(
        err.to_string().contains("sample 99 is not in samples"),
        "{err}"
    );
    assert_eq!(q.sample_values, before.sample_values);
    // `samples` has a double column (time, NA here): compared by bits, as NaN != NaN
    assert_eq!(q.samples.sample_id, before.samples.sample_id);
    assert_eq!(q.samples.source_id, before.samples.source_id);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&q.samples.time), bits(&before.samples.time));

    let mut q = p.clone();
    q.samples.sample_id[1] = 10;
    let err = keep_samples(&mut q, &[true, false]).unwrap_err();
    assert!(err.to_string().contains("appears more than once"), "{err}");
}

// ---- keep_frames --------------------------------------------------------------------

#[test]
fn keep_frames_renumbers_depths_in_their_old_order() {
    let p = stacks_profile(&[&["f", "g", "h", "main"], &["g", "main"]]);
    // drop g (rows 1 and 4): depths 1, 3, 4 become 1, 2, 3
    let keep = [true, false, true, true, false, true];
    for q in [p.clone(), shuffled_frames(&p, 7), shuffled_frames(&p, 99)] {
        let mut q = q;
        let keep: Vec<bool> = (0..q.sample_locations.nrow())
            .map(|r| {
                let original = (0..p.sample_locations.nrow()).position(|o| {
                    p.sample_locations.sample_id[o] == q.sample_locations.sample_id[r]
                        && p.sample_locations.depth[o] == q.sample_locations.depth[r]
                });
                keep[original.unwrap()]
            })
            .collect();
        keep_frames(&mut q, &keep, EmptyStacks::Keep).unwrap();
        validate(&q).unwrap();
        assert_eq!(named_stacks(&q), vec!["f h main", "main"]);
    }
}

#[test]
fn empty_stacks_are_kept_or_dropped_as_asked() {
    // samples 10 (f), 20 (g main), 30 (no frames)
    let p = stacks_profile(&[&["f"], &["g", "main"], &[]]);
    let drop_f = [false, true, true];

    let mut kept = p.clone();
    keep_frames(&mut kept, &drop_f, EmptyStacks::Keep).unwrap();
    validate(&kept).unwrap();
    assert_eq!(kept.samples.sample_id, vec![10, 20, 30]);
    assert_eq!(named_stacks(&kept), vec!["", "g main", ""]);

    let mut dropped = p.clone();
    keep_frames(&mut dropped, &drop_f, EmptyStacks::Drop).unwrap();
    validate(&dropped).unwrap();
    // the sample that lost its frame, and the one that never had any
    assert_eq!(dropped.samples.sample_id, vec![20]);
    assert_eq!(
        sample_rows(&dropped).keys().copied().collect::<Vec<_>>(),
        vec![20]
    );
}

#[test]
fn keep_frames_refuses_broken_stacks_and_leaves_the_profile_as_it_was() {
    let p = stacks_profile(&[&["f", "g"], &["g"]]);
    let mut q = p.clone();
    q.sample_locations.depth[1] = 1; // two frames at depth 1
    let before = q.clone();
    let err = keep_frames(&mut q, &[true, false, true], EmptyStacks::Drop).unwrap_err();
    assert!(err.to_string().contains("depth repeated"), "{err}");
    assert_eq!(q.sample_locations, before.sample_locations);

    q.sample_locations.depth[1] = 3; // a gap
    let err = keep_frames(&mut q, &[true, false, true], EmptyStacks::Drop).unwrap_err();
    assert!(err.to_string().contains("must run 1..n"), "{err}");

    let err = keep_frames(&mut p.clone(), &[true], EmptyStacks::Keep).unwrap_err();
    assert!(err.to_string().contains("mask of 1 rows"), "{err}");
}

// ---- matching -----------------------------------------------------------------------

#[test]
fn location_texts_are_go_s_plus_file_and_line() {
    let mut p = Profile::new();
    row!(&mut p, sources, "source_id" => I(1), "source_type" => s("pprof"));
    row!(&mut p, mappings, "mapping_id" => I(5), "source_id" => I(1), "filename" => s("/bin/app"));
    row!(&mut p, functions, "function_id" => I(1), "name" => s("main.f"), "system_name" => s("sys_f"),
        "filename" => s("f.go"), "start_line" => I(0));
    row!(&mut p, functions, "function_id" => I(2), "name" => s("g"), "system_name" => s("g"),
        "filename" => s(""), "start_line" => I(0));
    row!(&mut p, locations, "location_id" => I(1), "function_id" => I(1), "line" => I(12), "mapping_id" => I(5));
    row!(&mut p, locations, "location_id" => I(2), "function_id" => I(2), "line" => I(3));
    row!(&mut p, locations, "location_id" => I(3), "line" => I(0), "mapping_id" => I(6));
    row!(&mut p, locations, "location_id" => I(4), "function_id" => I(1), "line" => I(0));
    let t = LocationTexts::of(&p).unwrap();
    let text = |ids: &[crate::StrId]| -> Vec<Option<String>> {
        ids.iter()
            .map(|&id| t.texts.get(id).map(str::to_owned))
            .collect()
    };
    let some = |x: &str| Some(x.to_string());
    assert_eq!(
        text(&t.name),
        vec![some("main.f"), some("g"), None, some("main.f")]
    );
    assert_eq!(
        text(&t.filename),
        vec![some("f.go"), some(""), None, some("f.go")]
    );
    // mapping 6 does not exist: no mapping, as Go reads it
    assert_eq!(text(&t.mapping), vec![some("/bin/app"), None, None, None]);
    // no file (location 2), no function (3), line unknown (4)
    assert_eq!(text(&t.file_line), vec![some("f.go:12"), None, None, None]);
    // each distinct text once
    assert_eq!(t.texts.len(), 1 + 6);
}

#[test]
fn location_sets_are_by_id() {
    let set = LocationSet::new(&[7, 3, 1_000_000], &[true, false, true]).unwrap();
    assert!(set.contains(7) && set.contains(1_000_000));
    assert!(!set.contains(3) && !set.contains(4) && !set.contains(crate::NA_INT));
    let err = LocationSet::new(&[1, 2], &[true]).unwrap_err();
    assert_eq!(err.kind(), "argument");
}

#[test]
fn stacks_are_cut_as_go_s_show_from_and_prune_from_cut_them() {
    // Go's examples (profile/prune.go): stacks with A the outermost frame.
    let p = stacks_profile(&[&["B", "C", "B", "A"], &["D", "B", "C", "B", "A"], &["E"]]);
    let b = LocationSet::new(&p.locations.location_id, &matching(&p, &["B"])).unwrap();
    let cut = |c: Cut, empty: EmptyStacks| {
        let mut q = p.clone();
        let keep = frames_cut_at_match(&q, &b, c).unwrap();
        keep_frames(&mut q, &keep, empty).unwrap();
        validate(&q).unwrap();
        named_stacks(&q)
    };
    // ShowFrom(B): frames from the outermost B inwards; a stack without B goes
    assert_eq!(
        cut(Cut::CallersOfOutermostMatch, EmptyStacks::Drop),
        vec!["B C B", "D B C B"]
    );
    // PruneFrom(B): frames from the innermost B outwards; a stack without B stays whole
    assert_eq!(
        cut(Cut::CalleesOfInnermostMatch, EmptyStacks::Keep),
        vec!["B C B A", "B C B A", "E"]
    );
}

/// Location 1 (`inner`) is inlined into location 2 (`outer`): one pprof
/// Location of two lines. Location 3 (`other`) is a Location of its own.
fn inlined_profile() -> Profile {
    let mut p = Profile::new();
    row!(&mut p, sources, "source_id" => I(1), "source_type" => s("pprof"));
    for (id, name) in [(1, "inner"), (2, "outer"), (3, "other")] {
        row!(&mut p, functions, "function_id" => I(id), "name" => s(name), "system_name" => s(name),
            "filename" => s("x.go"), "start_line" => I(0));
    }
    row!(&mut p, locations, "location_id" => I(1), "function_id" => I(1), "line" => I(1), "inlined_into" => I(2));
    row!(&mut p, locations, "location_id" => I(2), "function_id" => I(2), "line" => I(2));
    row!(&mut p, locations, "location_id" => I(3), "function_id" => I(3), "line" => I(3));
    // sample 1: inner < outer < other; sample 2: no frames
    row!(&mut p, samples, "sample_id" => I(1), "source_id" => I(1));
    row!(&mut p, samples, "sample_id" => I(2), "source_id" => I(1));
    for (sample, depth, location) in [(1, 1, 1), (1, 2, 2), (1, 3, 3)] {
        row!(&mut p, sample_locations, "sample_id" => I(sample), "depth" => I(depth), "location_id" => I(location));
    }
    for sample in [1, 2] {
        row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s("cpu"), "unit" => s("nanoseconds"),
            "value" => D(5.0));
    }
    validate(&p).expect("the test profile is valid");
    p
}

#[test]
fn a_whole_location_is_all_the_lines_of_a_pprof_location() {
    let p = inlined_profile();
    let set =
        |names: &[&str]| LocationSet::new(&p.locations.location_id, &matching(&p, names)).unwrap();
    // hiding `inner` leaves a line of its Location; hiding both lines removes it
    assert!(!some_whole_location(&p, &set(&["inner"]), true).unwrap());
    assert!(some_whole_location(&p, &set(&["inner", "outer"]), true).unwrap());
    assert!(some_whole_location(&p, &set(&["other"]), true).unwrap());
    // showing `outer` keeps a line of the first Location, none of the second
    assert!(some_whole_location(&p, &set(&["outer"]), false).unwrap());
    assert!(!some_whole_location(&p, &set(&["outer", "other"]), false).unwrap());
    assert!(!some_whole_location(&p, &set(&[]), true).unwrap());
}

// ---- the verbs ----------------------------------------------------------------------

#[test]
fn focus_and_ignore_keep_and_drop_samples_with_a_matching_frame() {
    let p = stacks_profile(&[&["f", "main"], &["g", "main"], &["f", "g", "main"], &[]]);
    let run = |filter: SampleFilter, names: &[&str]| {
        let mut q = p.clone();
        filter.apply(&mut q, &matching(&p, names)).unwrap();
        validate(&q).unwrap();
        q.samples.sample_id
    };
    assert_eq!(run(SampleFilter::Focus, &["f"]), vec![10, 30]);
    assert_eq!(run(SampleFilter::Focus, &["nothing"]), Vec::<i32>::new());
    assert_eq!(run(SampleFilter::Ignore, &["f"]), vec![20, 40]);
    assert_eq!(run(SampleFilter::Ignore, &["main"]), vec![40]);
}

#[test]
fn hide_and_show_drop_emptied_samples_only_when_a_whole_location_went() {
    let p = stacks_profile(&[&["f", "main"], &["f"], &[]]);
    let run = |filter: FrameFilter, names: &[&str]| {
        let mut q = p.clone();
        filter.apply(&mut q, &matching(&p, names)).unwrap();
        validate(&q).unwrap();
        (q.samples.sample_id.clone(), named_stacks(&q))
    };
    // hiding f empties sample 20: it goes, and so does 30, which had no frames
    assert_eq!(
        run(FrameFilter::Hide, &["f"]),
        (vec![10], vec!["main".to_string()])
    );
    // hiding nothing changes nothing
    assert_eq!(run(FrameFilter::Hide, &["nothing"]).0, vec![10, 20, 30]);
    assert_eq!(
        run(FrameFilter::Show, &["f"]),
        (vec![10, 20], vec!["f".to_string(), "f".to_string()])
    );
    // every location shown: none is removed, and the sample without frames stays
    assert_eq!(run(FrameFilter::Show, &["f", "main"]).0, vec![10, 20, 30]);

    // Part of a pprof Location hidden: the Location stays, so does the
    // sample without frames (as in Go).
    let p = inlined_profile();
    let mut q = p.clone();
    FrameFilter::Hide
        .apply(&mut q, &matching(&p, &["inner"]))
        .unwrap();
    validate(&q).unwrap();
    assert_eq!(q.samples.sample_id, vec![1, 2]);
    assert_eq!(named_stacks(&q), vec!["outer other", ""]);
    let mut q = p.clone();
    FrameFilter::Hide
        .apply(&mut q, &matching(&p, &["inner", "outer"]))
        .unwrap();
    assert_eq!(q.samples.sample_id, vec![1]);
}

// ---- properties ---------------------------------------------------------------------

/// A random valid profile, with its stack rows shuffled when `shuffle` is set.
pub(super) fn random_input(seed: u64, shuffle: bool) -> Profile {
    let p = random_profile(seed);
    if shuffle {
        shuffled_frames(&p, seed.rotate_left(17))
    } else {
        p
    }
}

proptest! {
    #![proptest_config(crate::testing::config(500))]

    /// The kept samples keep their rows, ids and values; the others are gone;
    /// the result is valid.
    #[test]
    fn keeping_samples_keeps_exactly_their_rows(
        seed in any::<u64>(), shuffle in any::<bool>(), flags in prop::collection::vec(any::<bool>(), 0..9),
    ) {
        let p = random_input(seed, shuffle);
        let keep = mask(&flags, p.samples.nrow());
        let kept_ids: Vec<i32> = p.samples.sample_id.iter().zip(&keep).filter(|(_, &k)| k).map(|(&s, _)| s).collect();
        let mut q = p.clone();
        keep_samples(&mut q, &keep).unwrap();
        prop_assert_eq!(validate(&q), Ok(()));
        prop_assert_eq!(&q.samples.sample_id, &kept_ids);
        let mut stacks_kept = stacks(&p);
        stacks_kept.retain(|s, _| kept_ids.contains(s));
        let mut rows_kept = sample_rows(&p);
        rows_kept.retain(|s, _| kept_ids.contains(s));
        prop_assert_eq!(stacks(&q), stacks_kept);
        prop_assert_eq!(sample_rows(&q), rows_kept);
        // (as text: NaN, the NA of doubles, is not equal to itself)
        prop_assert_eq!(format!("{:?}", q.locations), format!("{:?}", p.locations));
        prop_assert_eq!(format!("{:?}", q.sources), format!("{:?}", p.sources));
    }

    /// Each stack keeps the masked frames in their order; values stay with
    /// their samples; the samples left without frames go exactly when asked.
    #[test]
    fn keeping_frames_keeps_exactly_the_masked_frames(
        seed in any::<u64>(), shuffle in any::<bool>(), flags in prop::collection::vec(any::<bool>(), 0..9),
        drop_empty in any::<bool>(),
    ) {
        let p = random_input(seed, shuffle);
        let keep = mask(&flags, p.sample_locations.nrow());
        let mut expected: BTreeMap<i32, Vec<i32>> = stacks(&p);
        for stack in expected.values_mut() {
            stack.clear();
        }
        let sl = &p.sample_locations;
        let mut kept_rows: Vec<(i32, i32, i32)> =
            (0..sl.nrow()).filter(|&r| keep[r]).map(|r| (sl.sample_id[r], sl.depth[r], sl.location_id[r])).collect();
        kept_rows.sort();
        for (sample, _, location) in kept_rows {
            expected.entry(sample).or_default().push(location);
        }
        let empty = if drop_empty { EmptyStacks::Drop } else { EmptyStacks::Keep };
        if drop_empty {
            expected.retain(|_, stack| !stack.is_empty());
        }
        let mut q = p.clone();
        keep_frames(&mut q, &keep, empty).unwrap();
        prop_assert_eq!(validate(&q), Ok(()));
        prop_assert_eq!(stacks(&q), expected.clone());
        let rows = sample_rows(&p).into_iter().filter(|(s, _)| expected.contains_key(s)).collect();
        prop_assert_eq!(sample_rows(&q), rows);
    }

    /// The cuts keep a contiguous part of each stack that starts or ends at a
    /// matching frame.
    #[test]
    fn cuts_keep_the_stack_on_one_side_of_a_match(
        seed in any::<u64>(), shuffle in any::<bool>(), flags in prop::collection::vec(any::<bool>(), 0..5),
    ) {
        let p = random_input(seed, shuffle);
        let set = LocationSet::new(&p.locations.location_id, &mask(&flags, p.locations.nrow())).unwrap();
        let before = stacks(&p);
        for cut in [Cut::CalleesOfInnermostMatch, Cut::CallersOfOutermostMatch] {
            let mut q = p.clone();
            let keep = frames_cut_at_match(&q, &set, cut).unwrap();
            keep_frames(&mut q, &keep, EmptyStacks::Keep).unwrap();
            prop_assert_eq!(validate(&q), Ok(()));
            for (sample, stack) in stacks(&q) {
                let old = &before[&sample];
                let matched: Vec<usize> = (0..old.len()).filter(|&i| set.contains(old[i])).collect();
                let want: &[i32] = match (cut, matched.first(), matched.last()) {
                    (Cut::CalleesOfInnermostMatch, Some(&first), _) => &old[first..],
                    (Cut::CalleesOfInnermostMatch, None, _) => old,
                    (Cut::CallersOfOutermostMatch, _, Some(&last)) => &old[..=last],
                    (Cut::CallersOfOutermostMatch, _, None) => &[],
                };
                prop_assert_eq!(&stack[..], want);
            }
        }
    }

    /// The verbs on random profiles and random matches: valid results, and
    /// the totals of the samples they keep are those of the input.
    #[test]
    fn verbs_give_valid_profiles(
        seed in any::<u64>(), shuffle in any::<bool>(), flags in prop::collection::vec(any::<bool>(), 0..5),
    ) {
        let p = random_input(seed, shuffle);
        let matched = mask(&flags, p.locations.nrow());
        let total = |q: &Profile, ids: &[i32]| -> f64 {
            let sv = &q.sample_values;
            (0..sv.nrow()).filter(|&r| ids.contains(&sv.sample_id[r])).map(|r| sv.value[r]).sum()
        };
        for filter in [SampleFilter::Focus, SampleFilter::Ignore] {
            let mut q = p.clone();
            filter.apply(&mut q, &matched).unwrap();
            prop_assert_eq!(validate(&q), Ok(()));
            prop_assert_eq!(total(&q, &q.samples.sample_id), total(&p, &q.samples.sample_id));
        }
        for filter in [FrameFilter::Hide, FrameFilter::Show] {
            let mut q = p.clone();
            filter.apply(&mut q, &matched).unwrap();
            prop_assert_eq!(validate(&q), Ok(()));
            prop_assert_eq!(total(&q, &q.samples.sample_id), total(&p, &q.samples.sample_id));
        }
    }
}

#[test]
fn a_profile_emptied_by_a_verb_is_written_with_its_sample_types() {
    use crate::resources::limits::Limits;
    let mut p = crate::testing::read_rprof(&crate::testing::rprof_files()[0], Some("x"))
        .unwrap()
        .profile;
    let types = |p: &Profile| {
        let bytes =
            crate::formats::pprof::encode(p, &crate::formats::pprof::WriteOptions::default())
                .unwrap();
        let back = crate::formats::pprof::read_bytes(&bytes, None, &Limits::default()).unwrap();
        back.sample_types
            .value_type
            .iter()
            .map(|&t| back.str(t).to_string())
            .collect::<Vec<_>>()
    };
    let before = types(&p);
    assert!(before.contains(&"cpu".to_string()), "{before:?}");
    let none = vec![false; p.samples.nrow()];
    keep_samples(&mut p, &none).unwrap();
    assert_eq!(types(&p), before);
}
