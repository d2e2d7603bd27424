use super::*;

/// Columns of a small profile: samples given as (source, time, stack of
/// location ids innermost first, values of each type).
pub(crate) struct Columns {
    pub sample_id: Vec<i32>,
    pub depth: Vec<i32>,
    pub location_id: Vec<i32>,
    pub locations: Vec<i32>,
    pub samples: Vec<i32>,
    pub sample_source: Vec<i32>,
    pub sample_time: Vec<f64>,
    pub value_sample_id: Vec<i32>,
    pub value_type: Vec<u32>,
    pub value: Vec<f64>,
    pub n_types: usize,
}

impl Columns {
    /// As many sample types as the longest list of values (2 without samples).
    pub(crate) fn of(samples: &[(i32, f64, Vec<i32>, Vec<f64>)], n_locations: i32) -> Columns {
        let mut c = Columns {
            sample_id: vec![],
            depth: vec![],
            location_id: vec![],
            locations: (1..=n_locations).collect(),
            samples: vec![],
            sample_source: vec![],
            sample_time: vec![],
            value_sample_id: vec![],
            value_type: vec![],
            value: vec![],
            n_types: samples.iter().map(|s| s.3.len()).max().unwrap_or(2),
        };
        for (i, (source, time, stack, values)) in samples.iter().enumerate() {
            let sid = i as i32 + 1;
            c.samples.push(sid);
            c.sample_source.push(*source);
            c.sample_time.push(*time);
            for (d, &lid) in stack.iter().enumerate() {
                c.sample_id.push(sid);
                c.depth.push(d as i32 + 1);
                c.location_id.push(lid);
            }
            for (t, &v) in values.iter().enumerate() {
                c.value_sample_id.push(sid);
                c.value_type.push(t as u32 + 1);
                c.value.push(v);
            }
        }
        c
    }

    pub(crate) fn input(&self, with_time: bool) -> SampleInput<'_> {
        SampleInput {
            columns: StackColumns {
                sample_id: &self.sample_id,
                depth: &self.depth,
                location_id: &self.location_id,
                locations: &self.locations,
                value_sample_id: &self.value_sample_id,
                value: &self.value,
            },
            samples: &self.samples,
            sample_source: &self.sample_source,
            sample_time: with_time.then_some(&self.sample_time[..]),
            value_type: &self.value_type,
            n_types: self.n_types,
            derived: None,
        }
    }
}

#[test]
fn samples_ordered_by_source_then_time() {
    let c = Columns::of(
        &[
            (2, 0.0, vec![1], vec![1.0]),
            (1, 0.2, vec![2], vec![2.0]),
            (1, f64::NAN, vec![3], vec![3.0]),
            (1, 0.1, vec![1, 2], vec![4.0]),
        ],
        3,
    );
    let set = SampleSet::build(&c.input(true)).unwrap();
    assert_eq!(set.source, vec![1, 1, 1, 2]);
    let weights: Vec<f64> = (0..4).map(|i| set.weight(0, i)).collect();
    assert_eq!(weights, vec![4.0, 2.0, 3.0, 1.0]);
    assert_eq!(set.stack(0), &[0, 1]);
    assert!(set.has_time());
    // Without times, as they come.
    let set = SampleSet::build(&c.input(false)).unwrap();
    assert_eq!(set.source, vec![2, 1, 1, 1]);
    assert!(!set.has_time());
}

#[test]
fn rows_left_out_and_bad_rows() {
    let mut c = Columns::of(&[(1, 0.0, vec![1], vec![1.0, 5.0])], 1);
    c.value_type[1] = 0;
    let set = SampleSet::build(&c.input(false)).unwrap();
    assert_eq!((set.weight(0, 0), set.weight(1, 0)), (1.0, 0.0));
    c.value_type[1] = 1;
    assert_eq!(
        SampleSet::build(&c.input(false)).unwrap_err().kind(),
        "invalid"
    );
    c.value_type[1] = 3;
    assert_eq!(
        SampleSet::build(&c.input(false)).unwrap_err().kind(),
        "invalid"
    );
    c.value_type[1] = 2;
    // a row of a sample that is not in `samples` is not counted (as in
    // summaries: see summary::CountedSamples)
    c.value_sample_id[1] = 9;
    let set = SampleSet::build(&c.input(false)).unwrap();
    assert_eq!((set.weight(0, 0), set.weight(1, 0)), (1.0, 0.0));
    c.value_sample_id[1] = 1;
    c.value[0] = f64::NAN;
    assert_eq!(
        SampleSet::build(&c.input(false)).unwrap_err().kind(),
        "invalid"
    );
    c.value[0] = 1.0;
    c.samples.push(1);
    c.sample_source.push(1);
    c.sample_time.push(0.0);
    assert_eq!(
        SampleSet::build(&c.input(false)).unwrap_err().kind(),
        "invalid"
    );
    c.sample_time.pop();
    assert_eq!(
        SampleSet::build(&c.input(true)).unwrap_err().kind(),
        "invalid"
    );
}
