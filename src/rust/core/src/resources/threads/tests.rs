#[test]
fn results_come_in_job_order() {
    let out = super::in_parallel((0..5).map(|i| move || i * 10));
    assert_eq!(out, vec![0, 10, 20, 30, 40]);
}
