use super::*;
use crate::model::NA_INT;

/// Every id of `ids` found at its first row, and `absent` not found, both
/// through an index and through a set.
fn check_lookups<K: Id + std::fmt::Debug>(ids: &[K], absent: &[K]) {
    let index = IdIndex::try_first_rows(ids).unwrap();
    let set = IdSet::try_of(ids).unwrap();
    for (row, &id) in ids.iter().enumerate() {
        let first = ids.iter().position(|&x| x == id).unwrap();
        assert_eq!(index.row(id), Some(first), "{id:?} at row {row}");
        assert!(set.contains(id), "{id:?}");
    }
    for &id in absent {
        assert_eq!(index.get(id), None, "{id:?}");
        assert!(!set.contains(id), "{id:?}");
    }
}

#[test]
fn ids_1_to_n_get_slots() {
    let ids: Vec<i32> = (1..=10_000).collect();
    assert!(IdIndex::try_for_ids(&ids).unwrap().has_slots());
    check_lookups(&ids, &[0, -1, 10_001, 1 << 30, NA_INT, i32::MAX]);
    // Thinned out (every fourth id kept) they still do.
    let thinned: Vec<i32> = (1..=40_000).step_by(4).collect();
    assert!(IdIndex::try_for_ids(&thinned).unwrap().has_slots());
    check_lookups(&thinned, &[2, 3, 4, 40_001]);
}

#[test]
fn sparse_ids_are_hashed() {
    let ids = [7, 1_000_000_000, 3, i32::MAX];
    assert!(!IdIndex::try_for_ids(&ids).unwrap().has_slots());
    check_lookups(&ids, &[0, 1, 2, 8, 999_999_999, -7, NA_INT]);
    // The bound: 4 slots per id and 1024 more.
    let at_bound: Vec<i32> = vec![1, 2 * 4 + 1024];
    assert!(IdIndex::try_for_ids(&at_bound).unwrap().has_slots());
    let past_bound: Vec<i32> = vec![1, 2 * 4 + 1025];
    assert!(!IdIndex::try_for_ids(&past_bound).unwrap().has_slots());
    check_lookups(&past_bound, &[0, 2, 1032]);
}

#[test]
fn na_zero_and_negative_ids_are_found_beside_slots() {
    let ids = [3, NA_INT, 1, 0, -5, 2, i32::MIN + 1];
    assert!(IdIndex::try_for_ids(&ids).unwrap().has_slots());
    check_lookups(&ids, &[4, -1, -4, i32::MAX]);
    let only_na = [NA_INT, NA_INT];
    assert!(!IdIndex::try_for_ids(&only_na).unwrap().has_slots());
    check_lookups(&only_na, &[0, 1]);
    check_lookups::<i32>(&[], &[0, 1, NA_INT]);
}

#[test]
fn pprof_ids_up_to_u64_max() {
    check_lookups(&[1u64, 2, 3], &[0, 4, u64::MAX]);
    check_lookups(&[u64::MAX, 1, 1 << 40], &[0, 2, u64::MAX - 1]);
}

#[test]
fn duplicates_keep_the_first_row_and_are_reported() {
    for ids in [
        vec![4, 2, 4, 2, 9],
        vec![4, 2_000_000_000, 4, 2_000_000_000, 9],
    ] {
        let index = IdIndex::try_first_rows(&ids).unwrap();
        assert_eq!(
            (index.get(ids[0]), index.get(ids[1]), index.get(9)),
            (Some(0), Some(1), Some(4))
        );
        assert_eq!(IdSet::first_repeated(&ids).unwrap(), Some((2, ids[0])));
        let mut set = IdSet::try_for_ids(&ids).unwrap();
        let new: Vec<bool> = ids.iter().map(|&id| set.insert(id)).collect();
        assert_eq!(new, [true, true, false, false, true]);
    }
    assert_eq!(
        IdSet::first_repeated(&[1, NA_INT, 2, NA_INT]).unwrap(),
        Some((3, NA_INT))
    );
    assert_eq!(IdSet::first_repeated(&[0, -1, 0]).unwrap(), Some((2, 0)));
    assert_eq!(IdSet::first_repeated(&[3, 1, 2]).unwrap(), None);
}

#[test]
fn unique_rows_check_each_id_before_its_repetition() {
    let positive = |row: usize, id: i32| {
        if id > 0 {
            Ok(())
        } else {
            Err(ProfileError::invalid(
                "t",
                "id",
                Some(row + 1),
                "not positive",
            ))
        }
    };
    let repeated = |row: usize, id: i32| {
        ProfileError::invalid("t", "id", Some(row + 1), format!("{id} again"))
    };
    let ok = IdIndex::try_unique_rows(&[5, 1, 3], positive, repeated).unwrap();
    assert_eq!(
        (ok.get(5), ok.get(1), ok.get(3), ok.get(2)),
        (Some(0), Some(1), Some(2), None)
    );
    let err = IdIndex::try_unique_rows(&[5, 1, 5, -1], positive, repeated).unwrap_err();
    assert_eq!(err, ProfileError::invalid("t", "id", Some(3), "5 again"));
    let err = IdIndex::try_unique_rows(&[5, 1, -1, 5], positive, repeated).unwrap_err();
    assert_eq!(
        err,
        ProfileError::invalid("t", "id", Some(3), "not positive")
    );
}

#[test]
fn insert_replaces_and_returns_the_old_row() {
    for ids in [[1, 2, NA_INT], [1, i32::MAX, NA_INT]] {
        let mut index = IdIndex::try_for_ids(&ids).unwrap();
        for id in ids {
            assert_eq!(index.insert(id, 7), None);
            assert_eq!(index.insert(id, 8), Some(7));
            assert_eq!(index.get(id), Some(8));
        }
    }
}

#[test]
fn huge_ids_never_size_the_vector() {
    // One id near the top of the range among few: hashed, so nothing of
    // the size of the id is allocated.
    let index = IdIndex::try_first_rows(&[1u64 << 62, 1]).unwrap();
    assert!(!index.has_slots());
    assert_eq!(index.get(1 << 62), Some(0));
}
