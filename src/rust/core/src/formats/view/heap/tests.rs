use super::*;
use proptest::prelude::*;

/// Columns of a small memory profile, each sample given as (id, source, time,
/// small vector heap, large vector heap, stack of location ids).
struct Profile {
    samples: Vec<i32>,
    source: Vec<i32>,
    time: Vec<f64>,
    value_sample_id: Vec<i32>,
    value_is_heap: Vec<bool>,
    value: Vec<f64>,
    stack_sample_id: Vec<i32>,
    stack_location_id: Vec<i32>,
}

/// A sample: id, source, time, small and large vector heap, stack.
type Tick<'a> = (i32, i32, f64, f64, f64, &'a [i32]);

fn profile(ticks: &[Tick<'_>]) -> Profile {
    let mut p = Profile {
        samples: vec![],
        source: vec![],
        time: vec![],
        value_sample_id: vec![],
        value_is_heap: vec![],
        value: vec![],
        stack_sample_id: vec![],
        stack_location_id: vec![],
    };
    for &(id, source, time, small, large, stack) in ticks {
        p.samples.push(id);
        p.source.push(source);
        p.time.push(time);
        // the node heap, which does not count, between the two vector heaps
        for (value, is_heap) in [(small, true), (999.0, false), (large, true)] {
            p.value_sample_id.push(id);
            p.value_is_heap.push(is_heap);
            p.value.push(value);
        }
        for &lid in stack {
            p.stack_sample_id.push(id);
            p.stack_location_id.push(lid);
        }
    }
    p
}

/// Locations 1, 2, 3 at line keys 1, 2 and none.
fn lines_of(p: &Profile, with_time: bool) -> Result<Option<HeapLines>> {
    heap_lines(&HeapInput {
        samples: &p.samples,
        sample_source: &p.source,
        sample_time: with_time.then_some(p.time.as_slice()),
        value_sample_id: &p.value_sample_id,
        value_is_heap: &p.value_is_heap,
        value: &p.value,
        stack_sample_id: &p.stack_sample_id,
        stack_location_id: &p.stack_location_id,
        locations: &[1, 2, 3],
        location_line_key: &[1, 2, 0],
        n_line_keys: 2,
    })
}

#[test]
fn changes_are_credited_to_the_lines_of_each_tick() {
    // Source 1 in time order: samples 1 (heap 100), 2 (250), 3 (50), 6 (no
    // stack: skipped), 7 (90); changes 0, +150, -200, +40. Source 2: samples 4
    // (1000), 5 (1300); changes 0, +300. Sample 2 has line 1 twice
    // (recursion), location 3 has no line. Sample 7 comes before 3 in the
    // table.
    let p = profile(&[
        (1, 1, 0.00, 60.0, 40.0, &[1, 3]),
        (2, 1, 0.02, 200.0, 50.0, &[1, 2, 1]),
        (7, 1, 0.08, 90.0, 0.0, &[1]),
        (3, 1, 0.04, 50.0, 0.0, &[2]),
        (4, 2, 0.00, 1000.0, 0.0, &[1]),
        (5, 2, 0.02, 1300.0, 0.0, &[2, 3]),
        (6, 1, 0.06, 70.0, 0.0, &[]),
    ]);
    let expected = HeapLines {
        allocated: vec![150.0 * 2.0 + 40.0, 150.0 + 300.0],
        released: vec![0.0, 200.0],
    };
    assert_eq!(lines_of(&p, true).unwrap(), Some(expected));
    // Without times, ticks are in order of sample id within a source: the same.
    assert_eq!(lines_of(&p, false).unwrap(), lines_of(&p, true).unwrap());
}

#[test]
fn a_tick_with_an_na_heap_is_skipped() {
    let p = profile(&[
        (1, 1, 0.0, 100.0, 0.0, &[1]),
        (2, 1, 1.0, f64::NAN, 0.0, &[2]),
        (3, 1, 2.0, 130.0, 0.0, &[2]),
    ]);
    let lines = lines_of(&p, true).unwrap().unwrap();
    assert_eq!(lines.allocated, vec![0.0, 30.0]);
    assert_eq!(lines.released, vec![0.0, 0.0]);
}

#[test]
fn no_heap_values_is_none_and_odd_input_an_error() {
    let mut p = profile(&[(1, 1, 0.0, 1.0, 2.0, &[1]), (2, 1, 1.0, 3.0, 4.0, &[2])]);
    let heap = std::mem::take(&mut p.value_is_heap);
    p.value_is_heap = vec![false; heap.len()];
    assert_eq!(lines_of(&p, true).unwrap(), None);
    p.value_is_heap = heap;
    p.samples[1] = 1;
    assert!(lines_of(&p, true).is_err());
    p.samples[1] = 2;
    p.source.pop();
    assert!(lines_of(&p, true).is_err());
    p.source.push(1);
    let beyond = heap_lines(&HeapInput {
        samples: &p.samples,
        sample_source: &p.source,
        sample_time: None,
        value_sample_id: &p.value_sample_id,
        value_is_heap: &p.value_is_heap,
        value: &p.value,
        stack_sample_id: &p.stack_sample_id,
        stack_location_id: &p.stack_location_id,
        locations: &[1, 2],
        location_line_key: &[1, 5],
        n_line_keys: 2,
    });
    assert!(beyond.is_err());
}

proptest! {
    /// Random ids (missing, repeated, negative, NA) and lengths give lines or
    /// an error, never a panic; where each tick has one frame at line 1, the
    /// line's growth minus its shrinkage is each source's last heap minus its
    /// first.
    #[test]
    fn random_columns_give_lines_or_errors(
        samples in prop::collection::vec(prop_oneof![-2..8i32, Just(i32::MIN)], 0..8),
        source in prop::collection::vec(0..3i32, 0..8),
        time in prop::collection::vec(prop_oneof![0.0..5.0f64, Just(f64::NAN)], 0..8),
        values in prop::collection::vec((-2..8i32, any::<bool>(), -1e3..1e3f64), 0..20),
        stack in prop::collection::vec((-2..8i32, -1..5i32), 0..30),
        line_key in prop::collection::vec(-1..4i32, 0..5),
        n_line_keys in 0..4usize,
    ) {
        let locations: Vec<i32> = (1..=line_key.len() as i32).collect();
        let value_sample_id: Vec<i32> = values.iter().map(|v| v.0).collect();
        let value_is_heap: Vec<bool> = values.iter().map(|v| v.1).collect();
        let value: Vec<f64> = values.iter().map(|v| v.2).collect();
        let stack_sample_id: Vec<i32> = stack.iter().map(|s| s.0).collect();
        let stack_location_id: Vec<i32> = stack.iter().map(|s| s.1).collect();
        let result = heap_lines(&HeapInput {
            samples: &samples,
            sample_source: &source,
            sample_time: Some(&time),
            value_sample_id: &value_sample_id,
            value_is_heap: &value_is_heap,
            value: &value,
            stack_sample_id: &stack_sample_id,
            stack_location_id: &stack_location_id,
            locations: &locations,
            location_line_key: &line_key,
            n_line_keys,
        });
        if let Ok(Some(lines)) = result {
            prop_assert_eq!(lines.allocated.len(), n_line_keys);
            prop_assert_eq!(lines.released.len(), n_line_keys);
        }
    }

    #[test]
    fn one_frame_per_tick_sums_to_the_heap_difference(
        heaps in prop::collection::vec((0..3i32, 0..1_000_000u32), 1..40),
    ) {
        let ticks: Vec<Tick<'_>> = heaps
            .iter()
            .enumerate()
            .map(|(i, &(source, heap))| (i as i32 + 1, source, i as f64, f64::from(heap), 0.0, &[1][..]))
            .collect();
        let p = profile(&ticks);
        let lines = lines_of(&p, true).unwrap().unwrap();
        let mut expected = 0.0;
        for source in 0..3 {
            let of_source: Vec<f64> = heaps.iter().filter(|h| h.0 == source).map(|h| f64::from(h.1)).collect();
            if let (Some(first), Some(last)) = (of_source.first(), of_source.last()) {
                expected += last - first;
            }
        }
        prop_assert_eq!(lines.allocated[0] - lines.released[0], expected);
    }
}
