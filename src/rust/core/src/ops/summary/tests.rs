//! Tests of the summaries: stacks gathered, key totals, call trees, bad input.

use super::*;
use pretty_assertions::assert_eq;
use proptest::prelude::*;

/// Stacks from (value, keys innermost first) pairs, through `Stacks::build` with
/// one location per key.
fn stacks_of(samples: &[(f64, Vec<u32>)], n_keys: usize) -> Stacks {
    let mut sid = Vec::new();
    let mut depth = Vec::new();
    let mut loc = Vec::new();
    for (i, (_, keys)) in samples.iter().enumerate() {
        for (d, &k) in keys.iter().enumerate() {
            sid.push(i as i32 + 1);
            depth.push(d as i32 + 1);
            loc.push(k as i32 * 10);
        }
    }
    let locations: Vec<i32> = (1..=n_keys as i32).map(|k| k * 10).collect();
    let location_key: Vec<i32> = (1..=n_keys as i32).collect();
    let value_sample_id: Vec<i32> = (1..=samples.len() as i32).collect();
    let value: Vec<f64> = samples.iter().map(|(v, _)| *v).collect();
    Stacks::build(&StackInput {
        columns: StackColumns {
            sample_id: &sid,
            depth: &depth,
            location_id: &loc,
            locations: &locations,
            value_sample_id: &value_sample_id,
            value: &value,
        },
        location_key: &location_key,
        n_keys,
    })
    .unwrap()
}

#[test]
fn recursion_counts_once_in_total() {
    // keys: 1 = f, 2 = main; f recurses.
    let s = stacks_of(&[(1.0, vec![1, 1, 1, 2]), (2.0, vec![2]), (4.0, vec![])], 2);
    let t = key_totals(&s);
    assert_eq!(t.self_value, vec![1.0, 2.0]);
    assert_eq!(t.total, vec![1.0, 3.0]);
    assert_eq!(t.grand_total, 7.0);
}

#[test]
fn rows_in_any_order_and_samples_without_value() {
    let input = StackInput {
        columns: StackColumns {
            sample_id: &[2, 1, 2, 9],
            depth: &[2, 1, 1, 1],
            location_id: &[5, 6, 6, 5],
            locations: &[5, 6],
            value_sample_id: &[1, 2],
            value: &[3.0, 5.0],
        },
        location_key: &[2, 1],
        n_keys: 2,
    };
    let s = Stacks::build(&input).unwrap();
    assert_eq!(s.stack(0), &[1]);
    assert_eq!(s.stack(1), &[1, 2]);
    let t = key_totals(&s);
    assert_eq!(t.self_value, vec![8.0, 0.0]);
    assert_eq!(t.total, vec![8.0, 5.0]);
}

#[test]
fn frames_with_key_zero_are_left_out() {
    // locations 5 and 7 have key 0: the innermost counted frame takes the self value
    let input = StackInput {
        columns: StackColumns {
            sample_id: &[1, 1, 1, 2],
            depth: &[1, 2, 3, 1],
            location_id: &[5, 6, 7, 5],
            locations: &[5, 6, 7],
            value_sample_id: &[1, 2],
            value: &[3.0, 5.0],
        },
        location_key: &[0, 1, 0],
        n_keys: 1,
    };
    let s = Stacks::build(&input).unwrap();
    assert_eq!(s.stack(0), &[1]);
    assert_eq!(s.stack(1), &[] as &[u32]);
    let t = key_totals(&s);
    assert_eq!(t.self_value, vec![3.0]);
    assert_eq!(t.total, vec![3.0]);
    assert_eq!(t.grand_total, 8.0);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let base = StackInput {
        columns: StackColumns {
            sample_id: &[1, 1],
            depth: &[1, 2],
            location_id: &[5, 5],
            locations: &[5],
            value_sample_id: &[1],
            value: &[1.0],
        },
        location_key: &[1],
        n_keys: 1,
    };
    assert!(Stacks::build(&base).is_ok());
    let gap = StackInput {
        columns: StackColumns {
            depth: &[1, 3],
            ..base.columns
        },
        ..base
    };
    assert_eq!(Stacks::build(&gap).unwrap_err().kind(), "invalid");
    let twice = StackInput {
        columns: StackColumns {
            depth: &[1, 1],
            ..base.columns
        },
        ..base
    };
    assert_eq!(Stacks::build(&twice).unwrap_err().kind(), "invalid");
    let negative = StackInput {
        columns: StackColumns {
            depth: &[-1, 1],
            ..base.columns
        },
        ..base
    };
    assert_eq!(Stacks::build(&negative).unwrap_err().kind(), "invalid");
    let dangling = StackInput {
        columns: StackColumns {
            location_id: &[5, 7],
            ..base.columns
        },
        ..base
    };
    assert_eq!(Stacks::build(&dangling).unwrap_err().kind(), "invalid");
    let bad_key = StackInput {
        location_key: &[2],
        ..base
    };
    assert_eq!(Stacks::build(&bad_key).unwrap_err().kind(), "invalid");
    let dup_value = StackInput {
        columns: StackColumns {
            value_sample_id: &[1, 1],
            value: &[1.0, 2.0],
            ..base.columns
        },
        ..base
    };
    assert_eq!(Stacks::build(&dup_value).unwrap_err().kind(), "invalid");
    let ragged = StackInput {
        columns: StackColumns {
            depth: &[1],
            ..base.columns
        },
        ..base
    };
    assert_eq!(Stacks::build(&ragged).unwrap_err().kind(), "invalid");
    let na_value = StackInput {
        columns: StackColumns {
            value: &[f64::NAN],
            ..base.columns
        },
        ..base
    };
    assert_eq!(Stacks::build(&na_value).unwrap_err().kind(), "invalid");
}

#[test]
fn call_tree_merges_prefixes_in_key_order() {
    // root-first stacks: main;g (2), main;f (1), main;f;g (4), main (0: dropped)
    // keys: 1 = f, 2 = g, 3 = main
    let s = stacks_of(
        &[
            (2.0, vec![2, 3]),
            (1.0, vec![1, 3]),
            (4.0, vec![2, 1, 3]),
            (0.0, vec![3, 3]),
        ],
        3,
    );
    let t = CallTree::build(&s);
    assert_eq!(t.key, vec![0, 3, 1, 2, 2]);
    assert_eq!(t.parent, vec![0, 0, 1, 2, 1]);
    assert_eq!(t.depth, vec![0, 1, 2, 3, 2]);
    assert_eq!(t.total, vec![7.0, 7.0, 5.0, 4.0, 2.0]);
    assert_eq!(t.self_value, vec![0.0, 0.0, 1.0, 4.0, 2.0]);
    assert_eq!(t.start, vec![0.0, 0.0, 0.0, 0.0, 5.0]);
}

fn arb_samples() -> impl Strategy<Value = Vec<(f64, Vec<u32>)>> {
    prop::collection::vec(
        (
            (0u32..5).prop_map(f64::from),
            prop::collection::vec(1u32..5, 0..6),
        ),
        0..30,
    )
}

proptest! {
    /// The tree agrees with a direct count: every node's total is the value of
    /// the samples whose root-first stack starts with the node's path, children
    /// fit inside their parent, and self values add up to the grand total.
    #[test]
    fn call_tree_agrees_with_direct_count(samples in arb_samples()) {
        let s = stacks_of(&samples, 4);
        let t = CallTree::build(&s);
        let mut paths: Vec<Vec<u32>> = vec![vec![]];
        for i in 1..t.len() {
            let mut p = paths[t.parent[i] as usize].clone();
            p.push(t.key[i]);
            paths.push(p);
        }
        for (i, path) in paths.iter().enumerate() {
            let direct: f64 = samples.iter().filter(|(_, st)| {
                let root_first: Vec<u32> = st.iter().rev().copied().collect();
                root_first.starts_with(path)
            }).map(|(v, _)| *v).sum();
            prop_assert_eq!(t.total[i], direct);
            prop_assert_eq!(t.depth[i] as usize, path.len());
            if i > 0 {
                let p = t.parent[i] as usize;
                prop_assert!(p < i);
                prop_assert!(t.start[i] >= t.start[p]);
                prop_assert!(t.start[i] + t.total[i] <= t.start[p] + t.total[p] + 1e-9);
            }
        }
        let self_sum: f64 = t.self_value.iter().sum();
        prop_assert_eq!(self_sum, s.grand_total());
        // Paths are unique.
        let mut sorted = paths.clone();
        sorted.sort();
        sorted.dedup();
        prop_assert_eq!(sorted.len(), paths.len());
    }

    /// Key totals agree with a direct count over the samples.
    #[test]
    fn key_totals_agree_with_direct_count(samples in arb_samples()) {
        let s = stacks_of(&samples, 4);
        let t = key_totals(&s);
        for k in 1..=4u32 {
            let self_direct: f64 = samples.iter().filter(|(_, st)| st.first() == Some(&k)).map(|(v, _)| *v).sum();
            let total_direct: f64 = samples.iter().filter(|(_, st)| st.contains(&k)).map(|(v, _)| *v).sum();
            prop_assert_eq!(t.self_value[k as usize - 1], self_direct);
            prop_assert_eq!(t.total[k as usize - 1], total_direct);
        }
    }
}
