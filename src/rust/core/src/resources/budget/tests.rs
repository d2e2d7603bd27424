use super::*;

fn budget_of(max_memory: u64) -> Budget {
    Budget::new(Limits {
        max_memory,
        ..Limits::default()
    })
}

#[test]
fn charges_add_up_to_the_cap_and_a_refused_charge_leaves_nothing() {
    let b = budget_of(1000);
    b.charge(600, || "a".into()).unwrap();
    b.release(100);
    b.charge(500, || "b".into()).unwrap();
    assert_eq!(b.peak(), 1000);
    let e = b.charge(1, || "the third".into()).unwrap_err();
    assert_eq!(e.kind(), "limit");
    let text = e.to_string();
    assert!(
        text.contains("the third")
            && text.contains("1001 bytes")
            && text.contains("profile.max_memory"),
        "{text}"
    );
    assert_eq!(b.used(), 1000);
    b.release(500);
    assert_eq!(b.used(), 500);
    b.release(10_000);
    assert_eq!(b.used(), 0);
}

#[test]
fn check_charges_nothing() {
    let b = budget_of(100);
    b.charge(50, || "a".into()).unwrap();
    b.check(50, || "b".into()).unwrap();
    assert_eq!(b.check(51, || "b".into()).unwrap_err().kind(), "limit");
    assert_eq!(b.used(), 50);
}

#[test]
fn item_counts_do_not_overflow() {
    let b = budget_of(u64::MAX - 1);
    assert_eq!(
        b.charge_items(usize::MAX, u64::MAX, || "all".into())
            .unwrap_err()
            .kind(),
        "limit"
    );
    assert_eq!(b.used(), 0);
}

#[test]
fn sizes_for_people() {
    assert_eq!(size_text(12), "12 bytes");
    assert_eq!(size_text(1536), "1.5 KiB (1536 bytes)");
    assert_eq!(size_text(4 << 30), "4.0 GiB (4294967296 bytes)");
}
