use super::*;

#[test]
fn advised_buffers_hold_what_is_written() {
    for n in [0usize, 10, (MIN_ADVISED_BYTES / 8) + 12_345] {
        let mut v: Vec<u64> = with_capacity_advised(n);
        assert!(v.capacity() >= n);
        v.extend((0..n as u64).map(|i| i * 3));
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64 * 3));
        let mut w: Vec<u8> = vec![7; 5];
        try_reserve_advised(&mut w, MIN_ADVISED_BYTES + 1).unwrap();
        w.resize(w.capacity(), 9);
        assert_eq!(&w[..6], &[7, 7, 7, 7, 7, 9]);
        let mut existing = vec![1u32; MIN_ADVISED_BYTES];
        advise_huge_pages(&mut existing);
        assert!(existing.iter().all(|&x| x == 1));
    }
}
