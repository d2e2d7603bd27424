//! Tests of the verbs that cut stacks at a matching frame (`-show_from`,
//! `-prune_from`), with Go's cut of the lines of a pprof Location.

use super::super::*;
use super::{mask, matching, named_stacks, random_input, stacks, stacks_profile};
use crate::model::validate::validate;
use crate::model::{Profile, NA_INT};
use crate::testing::{
    row, s,
    Val::{D, I},
};
use proptest::prelude::*;

/// A pprof-like profile in which `a` is inlined into `b` and `b` into `c`
/// (one Location of three lines, `a` innermost) and `d` and `e` are
/// Locations of their own; one sample per stack (names innermost first).
fn chain_profile(stacks: &[&[&str]]) -> Profile {
    let mut p = Profile::new();
    row!(&mut p, sources, "source_id" => I(1), "source_type" => s("pprof"));
    let names = ["a", "b", "c", "d", "e"];
    for (k, name) in names.iter().enumerate() {
        let id = k as i32 + 1;
        row!(&mut p, functions, "function_id" => I(id), "name" => s(name), "system_name" => s(name),
            "filename" => s("x.go"), "start_line" => I(0));
        let into = if id < 3 { id + 1 } else { NA_INT };
        row!(&mut p, locations, "location_id" => I(id), "function_id" => I(id), "line" => I(id),
            "inlined_into" => I(into));
    }
    for (k, stack) in stacks.iter().enumerate() {
        let sample = k as i32 + 1;
        row!(&mut p, samples, "sample_id" => I(sample), "source_id" => I(1));
        row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s("cpu"), "unit" => s("nanoseconds"),
            "value" => D(1.0));
        for (depth, name) in stack.iter().enumerate() {
            let location = names.iter().position(|n| n == name).unwrap() as i32 + 1;
            row!(&mut p, sample_locations, "sample_id" => I(sample), "depth" => I(depth as i32 + 1),
                "location_id" => I(location));
        }
    }
    validate(&p).expect("the test profile is valid");
    p
}

/// The stacks after `filter` with the locations of `names` matched, and
/// whether the filter says it matched.
fn filtered(p: &Profile, filter: FrameFilter, names: &[&str]) -> (Vec<String>, bool) {
    let mut q = p.clone();
    let matched = filter.apply(&mut q, &matching(p, names)).unwrap();
    validate(&q).unwrap();
    (named_stacks(&q), matched)
}

fn texts(stacks: &[&str]) -> Vec<String> {
    stacks.iter().map(|s| s.to_string()).collect()
}

#[test]
fn show_from_and_prune_from_cut_as_go_s_examples() {
    // Go's examples (profile/filter.go, profile/prune.go), A the outermost frame
    let p = stacks_profile(&[
        &["B", "C", "B", "A"],
        &["D", "B", "C", "B", "A"],
        &["E"],
        &[],
    ]);
    assert_eq!(
        filtered(&p, FrameFilter::ShowFrom, &["A"]).0,
        texts(&["B C B A", "D B C B A"])
    );
    assert_eq!(
        filtered(&p, FrameFilter::ShowFrom, &["B"]).0,
        texts(&["B C B", "D B C B"])
    );
    assert_eq!(
        filtered(&p, FrameFilter::ShowFrom, &["C"]).0,
        texts(&["B C", "D B C"])
    );
    // without a match every sample goes, the one without frames too
    assert_eq!(
        filtered(&p, FrameFilter::ShowFrom, &["nothing"]),
        (Vec::new(), false)
    );
    assert_eq!(
        filtered(&p, FrameFilter::PruneFrom, &["A"]).0,
        texts(&["A", "A", "E", ""])
    );
    assert_eq!(
        filtered(&p, FrameFilter::PruneFrom, &["B"]).0,
        texts(&["B C B A", "B C B A", "E", ""])
    );
    let (stacks, matched) = filtered(&p, FrameFilter::PruneFrom, &["D"]);
    assert_eq!(stacks, texts(&["B C B A", "D B C B A", "E", ""]));
    assert!(matched);
    assert!(!filtered(&p, FrameFilter::PruneFrom, &["nothing"]).1);
}

#[test]
fn show_from_cuts_the_lines_outward_of_a_location_s_last_match() {
    let p = chain_profile(&[
        &["a", "b", "c", "d"],
        &["a", "b", "c"],
        &["e", "a", "b", "c", "d"],
        &["e"],
    ]);
    // b matches: the Location keeps a and b, in every stack
    assert_eq!(
        filtered(&p, FrameFilter::ShowFrom, &["b"]).0,
        texts(&["a b", "a b", "e a b"])
    );
    // the stack is cut at d, and c still goes: Go cut it out of its Location
    assert_eq!(
        filtered(&p, FrameFilter::ShowFrom, &["b", "d"]).0,
        texts(&["a b d", "a b", "e a b d"])
    );
    // the Location's outermost line matches: nothing of it is cut
    assert_eq!(
        filtered(&p, FrameFilter::ShowFrom, &["a", "c"]).0,
        texts(&["a b c", "a b c", "e a b c"])
    );
    assert_eq!(
        filtered(&p, FrameFilter::ShowFrom, &["e"]).0,
        texts(&["e", "e"])
    );
}

#[test]
fn prune_from_cuts_the_lines_inward_of_a_location_s_first_match() {
    let p = chain_profile(&[&["a", "b", "c", "d"], &["d", "a", "b", "c"], &["e"]]);
    assert_eq!(
        filtered(&p, FrameFilter::PruneFrom, &["b"]).0,
        texts(&["b c d", "b c", "e"])
    );
    // cut at d in the second stack, where the Location is further out and
    // still loses a
    assert_eq!(
        filtered(&p, FrameFilter::PruneFrom, &["b", "d"]).0,
        texts(&["b c d", "d b c", "e"])
    );
    assert_eq!(
        filtered(&p, FrameFilter::PruneFrom, &["a"]).0,
        texts(&["a b c d", "a b c", "e"])
    );
    assert_eq!(
        filtered(&p, FrameFilter::PruneFrom, &["c"]).0,
        texts(&["c d", "c", "e"])
    );
}

#[test]
fn a_location_seen_twice_in_a_row_is_cut_twice() {
    // recursion: the Location a-b-c twice
    let p = chain_profile(&[&["a", "b", "c", "a", "b", "c"]]);
    assert_eq!(
        filtered(&p, FrameFilter::ShowFrom, &["b"]).0,
        texts(&["a b a b"])
    );
    assert_eq!(
        filtered(&p, FrameFilter::PruneFrom, &["b"]).0,
        texts(&["b c b c"])
    );
}

#[test]
fn a_line_hidden_before_leaves_the_rest_of_its_location_together() {
    // After -hide=b the Location is a-c in Go: show_from a cuts c.
    let p = chain_profile(&[&["a", "b", "c", "d"]]);
    let mut q = p.clone();
    FrameFilter::Hide
        .apply(&mut q, &matching(&p, &["b"]))
        .unwrap();
    assert_eq!(named_stacks(&q), texts(&["a c d"]));
    assert_eq!(
        filtered(&q, FrameFilter::ShowFrom, &["a", "d"]).0,
        texts(&["a d"])
    );
    assert_eq!(
        filtered(&q, FrameFilter::PruneFrom, &["c"]).0,
        texts(&["c d"])
    );
    // ... and hiding b when show_from matches b leaves a Location without a
    // match, which nothing cuts
    assert_eq!(
        filtered(&q, FrameFilter::ShowFrom, &["b", "d"]).0,
        texts(&["a c d"])
    );
}

#[test]
fn simple_names_are_go_s() {
    for (name, simple) in [
        ("main.fib", "main.fib"),
        ("sync.(*Mutex).Lock", "sync."),
        ("foo(int, char)", "foo"),
        (".foo", "foo"),
        ("..foo", ".foo"),
        ("(anonymous namespace)::f(int)", "(anonymous namespace)::f"),
        ("A::operator()(int)", "A::operator()"),
        ("(x)", ""),
        ("\u{e9}t\u{e9}(x)", "\u{e9}t\u{e9}"),
        ("[.data.frame", "[.data.frame"),
        ("", ""),
    ] {
        assert_eq!(simple_name(name), simple, "{name}");
    }
}

#[test]
fn location_texts_have_simple_names_for_named_functions() {
    let p = stacks_profile(&[&["sync.(*Mutex).Lock", "", ".f"]]);
    let t = LocationTexts::of(&p).unwrap();
    let simple: Vec<Option<&str>> = t.simple_name.iter().map(|&id| t.texts.get(id)).collect();
    assert_eq!(simple, vec![Some("sync."), None, Some("f")]);
}

proptest! {
    #![proptest_config(crate::testing::config(500))]

    /// Show from and prune from keep each stack from its outermost match
    /// inwards, or from its innermost match outwards, less lines that Go
    /// cuts out of their Location: frames in a chain of inlined lines that
    /// do not match. Without chains, exactly the cut.
    #[test]
    fn show_from_and_prune_from_keep_one_side_of_the_match(
        seed in any::<u64>(), shuffle in any::<bool>(), flags in prop::collection::vec(any::<bool>(), 0..5),
        chains in any::<bool>(),
    ) {
        let mut p = random_input(seed, shuffle);
        if !chains {
            p.locations.inlined_into.iter_mut().for_each(|x| *x = NA_INT);
        }
        let matched = mask(&flags, p.locations.nrow());
        let set = LocationSet::new(&p.locations.location_id, &matched).unwrap();
        let l = &p.locations;
        let in_chain = |id: i32| {
            l.location_id.iter().zip(&l.inlined_into).any(|(&from, &to)| (from == id && to != NA_INT) || to == id)
        };
        let before = stacks(&p);
        for filter in [FrameFilter::ShowFrom, FrameFilter::PruneFrom] {
            let mut q = p.clone();
            let any_match = filter.apply(&mut q, &matched).unwrap();
            prop_assert_eq!(validate(&q), Ok(()));
            prop_assert_eq!(any_match, before.values().flatten().any(|&l| set.contains(l)));
            let after = stacks(&q);
            for (sample, old) in &before {
                let hits: Vec<usize> = (0..old.len()).filter(|&i| set.contains(old[i])).collect();
                let side: &[i32] = match (filter, hits.first(), hits.last()) {
                    (FrameFilter::ShowFrom, _, Some(&last)) => &old[..=last],
                    (FrameFilter::ShowFrom, _, None) => {
                        prop_assert!(!after.contains_key(sample));
                        continue;
                    }
                    (_, Some(&first), _) => &old[first..],
                    (_, None, _) => old,
                };
                let new = &after[sample];
                // the frames kept are the side's, in order, and every frame
                // the side loses is an unmatched line of a chain
                let mut rest = new.iter().peekable();
                for &frame in side {
                    if rest.peek() == Some(&&frame) {
                        rest.next();
                    } else {
                        prop_assert!(chains && !set.contains(frame) && in_chain(frame), "{frame} lost");
                    }
                }
                prop_assert!(rest.next().is_none());
            }
        }
    }
}
