// Times the verbs (the `verbs` module) on a profile read from an Rprof file,
// against validation of the same profile (for bench/README.md):
// cargo run --release -p profile-core --example verbs_timing FILE
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "a timing tool")]
use profile_core::formats::rprof;
use profile_core::ops::verbs::{aggregate, diff, scale_values, time_window};
use profile_core::ops::verbs::{
    frames_in, keep_frames, keep_samples, samples_with_frame_in, EmptyStacks,
};
use profile_core::ops::verbs::{keep_sample_types, FrameFilter, LocationSet, SampleFilter};
use profile_core::Profile;
use std::time::{Duration, Instant};

/// The flags of the locations whose function name is one of `names`.
fn matching(p: &Profile, names: &[&str]) -> Vec<bool> {
    let f = &p.functions;
    p.locations
        .function_id
        .iter()
        .map(|&id| {
            f.function_id
                .iter()
                .position(|&x| x == id)
                .and_then(|r| f.name.get(r))
                .is_some_and(|&name| names.contains(&p.str(name)))
        })
        .collect()
}

/// The median time of `runs` runs of `work` on a fresh copy of `p` (the copy
/// not timed).
fn time(p: &Profile, runs: usize, mut work: impl FnMut(&mut Profile)) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let mut q = p.clone();
            let t = Instant::now();
            work(&mut q);
            t.elapsed()
        })
        .collect();
    times.sort();
    times.get(runs / 2).copied().unwrap_or_default()
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: verbs_timing FILE");
    let p = read_whole(&std::fs::read(&path).unwrap()).unwrap().profile;
    println!(
        "samples {}, sample_locations rows {}",
        p.samples.nrow(),
        p.sample_locations.nrow()
    );
    let focus = matching(&p, &["time_round"]);
    let hide = matching(&p, &["FUN", "lapply"]);
    let set = LocationSet::new(&p.locations.location_id, &focus).unwrap();
    let runs = 7;
    let report = |what: &str, d: Duration| println!("{what:<28} {:>8.1} ms", d.as_secs_f64() * 1e3);
    report(
        "validate",
        time(&p, runs, |q| {
            profile_core::model::validate::validate(q).unwrap()
        }),
    );
    report(
        "samples_with_frame_in",
        time(&p, runs, |q| drop(samples_with_frame_in(q, &set).unwrap())),
    );
    let keep = samples_with_frame_in(&p, &set).unwrap();
    report(
        "keep_samples",
        time(&p, runs, |q| keep_samples(q, &keep).unwrap()),
    );
    report(
        "focus",
        time(&p, runs, |q| {
            SampleFilter::Focus.apply(q, &focus).map(drop).unwrap()
        }),
    );
    let hide_set = LocationSet::new(&p.locations.location_id, &hide).unwrap();
    let frames: Vec<bool> = frames_in(&p, &hide_set)
        .unwrap()
        .into_iter()
        .map(|m| !m)
        .collect();
    report(
        "keep_frames",
        time(&p, runs, |q| {
            keep_frames(q, &frames, EmptyStacks::Drop).unwrap()
        }),
    );
    report(
        "hide",
        time(&p, runs, |q| {
            FrameFilter::Hide.apply(q, &hide).map(drop).unwrap()
        }),
    );
    report(
        "show_from",
        time(&p, runs, |q| {
            FrameFilter::ShowFrom.apply(q, &focus).map(drop).unwrap()
        }),
    );
    report(
        "prune_from",
        time(&p, runs, |q| {
            FrameFilter::PruneFrom.apply(q, &focus).map(drop).unwrap()
        }),
    );
    // the first and the last sample type
    let declared = &p.sample_types.value_type;
    let types: Vec<&str> = declared
        .first()
        .into_iter()
        .chain(declared.last())
        .map(|&t| p.str(t))
        .collect();
    report(
        "keep_sample_types",
        time(&p, runs, |q| keep_sample_types(q, &types).unwrap()),
    );
    report(
        "scale",
        time(&p, runs, |q| scale_values(q, 2.0, None).unwrap()),
    );
    report("aggregate", time(&p, runs, |q| aggregate(q).unwrap()));
    report(
        "window (middle half)",
        time(&p, runs, |q| {
            time_window(q, Some(0.25 * end(q)), Some(0.75 * end(q))).unwrap()
        }),
    );
    report(
        "diff (with itself)",
        time(&p, runs, |q| drop(diff(q.clone(), q.clone()).unwrap())),
    );
}

/// The time of the last sample.
fn end(p: &Profile) -> f64 {
    p.samples.time.iter().copied().fold(0.0, f64::max)
}

/// The whole read of an Rprof file (every column written).
fn read_whole(bytes: &[u8]) -> profile_core::Result<rprof::Parsed> {
    let budget = profile_core::resources::budget::Budget::default();
    let options = rprof::ParseOptions::new(&budget);
    rprof::parse(std::borrow::Cow::Borrowed(bytes), &options)?.expand(&budget)
}
