use super::*;

#[test]
fn an_allocation_that_cannot_be_made_is_a_limit_error() {
    let err = try_filled(usize::MAX / 16, 0u64, "test values").unwrap_err();
    assert_eq!(err.kind(), "limit");
    assert!(err.to_string().contains("test values"), "{err}");
    let err = try_with_capacity::<u8>(usize::MAX / 2, "bytes").unwrap_err();
    assert_eq!(err.kind(), "limit");
}

#[test]
fn allocations_that_can_be_made_hold_their_items() {
    assert_eq!(try_filled(3, 7u8, "x").unwrap(), vec![7, 7, 7]);
    assert_eq!(try_collect(0..4, "x").unwrap(), vec![0, 1, 2, 3]);
    assert_eq!(
        try_collect_ok((0..5).map(Ok), 2, "x").unwrap(),
        vec![0, 1, 2, 3, 4]
    );
    let failed = try_collect_ok(
        [Ok(1), Err(ProfileError::argument("no"))].into_iter(),
        2,
        "x",
    );
    assert_eq!(failed.unwrap_err().kind(), "argument");
}
