use super::*;

#[test]
fn sorts_by_key_and_is_not_stable_like_r() {
    // With 20 rows the gaps are 4 and 1; equal keys change order, as in R:
    // .Internal(merge(xinds, 1:3, FALSE, FALSE))$xi for these codes.
    let xinds = [3, 1, 2, 1, 3, 2, 1, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1];
    let order = r_merge_row_order(&xinds);
    let keys: Vec<i32> = order.iter().map(|&r| xinds[r as usize - 1]).collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]));
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (1..=20).collect::<Vec<_>>());
    assert_eq!(order, R_RESULT.to_vec());
}

/// Computed by R 4.2.2 (see the test above).
const R_RESULT: [i32; 20] = [
    17, 2, 7, 4, 14, 11, 8, 20, 9, 6, 3, 18, 15, 12, 1, 5, 13, 10, 19, 16,
];
