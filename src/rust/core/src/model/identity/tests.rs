use super::*;
use crate::model::frames::SampleFrames;
use crate::testing::{
    row, s,
    Val::{D, I},
};

/// Samples 1..=5 of two sources: 1, 2 and 4 share a stack (2 in another
/// source), 5 has a label that 1 lacks, 3 another stack.
fn profile() -> Profile {
    let mut p = Profile::new();
    for src in [1, 2] {
        row!(&mut p, sources, "source_id" => I(src), "source_type" => s("rprof"));
    }
    row!(&mut p, functions, "function_id" => I(1), "name" => s("f"), "system_name" => s("f"),
        "filename" => s(""), "start_line" => I(0));
    for loc in [1, 2] {
        row!(&mut p, locations, "location_id" => I(loc), "function_id" => I(1), "line" => I(loc));
    }
    for (sample, source, stack) in [
        (1, 1, vec![1, 2]),
        (2, 2, vec![1, 2]),
        (3, 1, vec![2, 1]),
        (4, 1, vec![1, 2]),
        (5, 1, vec![1, 2]),
    ] {
        row!(&mut p, samples, "sample_id" => I(sample), "source_id" => I(source));
        row!(&mut p, sample_values, "sample_id" => I(sample), "type" => s("samples"), "unit" => s("count"), "value" => D(1.0));
        for (d, loc) in stack.into_iter().enumerate() {
            row!(&mut p, sample_locations, "sample_id" => I(sample), "depth" => I(d as i32 + 1), "location_id" => I(loc));
        }
    }
    row!(&mut p, sample_labels, "sample_id" => I(5), "key" => s("k"), "value" => s("v"));
    p
}

fn firsts(p: &Profile, scope: impl Fn(usize) -> Option<usize>) -> Vec<usize> {
    let samples =
        IdIndex::try_unique_rows(&p.samples.sample_id, |_, _| Ok(()), |_, _| unreachable!())
            .unwrap();
    let locations = IdIndex::try_unique_rows(
        &p.locations.location_id,
        |_, _| Ok(()),
        |_, _| unreachable!(),
    )
    .unwrap();
    let sl = &p.sample_locations;
    let stacks = SampleFrames::gather(
        &sl.sample_id,
        &sl.depth,
        &sl.location_id,
        &samples,
        p.samples.nrow(),
        |l| locations.get(l),
    )
    .unwrap();
    let labels = LabelRows::new(p, &samples).unwrap();
    first_equal_samples(p, |pos| stacks.of(pos), &labels, scope).unwrap()
}

#[test]
fn samples_are_equal_by_stack_labels_and_scope() {
    let p = profile();
    let source = |pos: usize| Some(p.samples.source_id[pos] as usize);
    assert_eq!(firsts(&p, source), vec![0, 1, 2, 0, 4]);
    assert_eq!(firsts(&p, |_| Some(0)), vec![0, 0, 2, 0, 4]);
    assert_eq!(
        firsts(&p, |pos| (pos != 3).then_some(0)),
        vec![0, 0, 2, 3, 4]
    );
}

#[test]
fn labels_are_compared_in_any_order() {
    let mut p = profile();
    // sample 1 gets the labels of 5 in the other order, plus one
    row!(&mut p, sample_labels, "sample_id" => I(5), "key" => s("n"), "num" => D(3.0), "num_unit" => s("bytes"));
    row!(&mut p, sample_labels, "sample_id" => I(1), "key" => s("n"), "num" => D(3.0), "num_unit" => s("bytes"));
    row!(&mut p, sample_labels, "sample_id" => I(1), "key" => s("k"), "value" => s("v"));
    assert_eq!(firsts(&p, |_| Some(0)), vec![0, 1, 2, 1, 0]);
}
