use super::*;

#[test]
fn values_of_samples_that_are_gone_are_not_counted() {
    let samples = CountedSamples::new(&[1, 3, 4], &[1, 2, 1]).unwrap();
    let (ids, values) = samples
        .values(&[1, 2, 3, 4, 5], &[1.0, 2.0, 3.0, 4.0, 5.0], None)
        .unwrap();
    assert_eq!(ids, vec![1, 3, 4]);
    assert_eq!(values, vec![1.0, 3.0, 4.0]);
    assert!(samples.contains(4) && !samples.contains(2));
    assert_eq!(samples.source_of(3), Some(2));
}

#[test]
fn a_derived_type_scales_by_source_and_leaves_out_sources_without_a_factor() {
    let samples = CountedSamples::new(&[1, 2, 3], &[1, 2, 3]).unwrap();
    let derived = Derived {
        source_id: &[2, 1],
        factor: &[0.02, 0.005],
    };
    let (ids, values) = samples
        .values(&[1, 2, 3], &[1.0, 2.0, 1.0], Some(&derived))
        .unwrap();
    assert_eq!(ids, vec![1, 2]);
    assert_eq!(values, vec![0.005, 0.04]);
}
