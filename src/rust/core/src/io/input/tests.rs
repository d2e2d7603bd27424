//! Tests of `input.rs`: files under the size limit, gzip inflated under the
//! limits and the budget, bombs refused, contents shown piece by piece.

use super::*;
use crate::testing::gzip as gz;

#[test]
fn plain_bytes_pass_through() {
    let out = decompress(b"hello", &Limits::default()).unwrap();
    assert_eq!(&*out, b"hello");
}

fn owned(bytes: Vec<u8>, limits: Limits) -> Result<Vec<u8>> {
    decompress_owned(bytes, &Budget::new(limits), &mut AnyContent::default())
}

#[test]
fn owned_bytes_are_kept_or_inflated_under_the_same_limit() {
    let plain = b"hello".to_vec();
    let at = plain.as_ptr();
    let out = owned(plain, Limits::default()).unwrap();
    assert_eq!((out.as_slice(), out.as_ptr()), (&b"hello"[..], at));
    assert_eq!(owned(gz(b"hello"), Limits::default()).unwrap(), b"hello");
    assert_eq!(
        owned(b"hello".to_vec(), Limits::with_max_bytes(4))
            .unwrap_err()
            .kind(),
        "limit"
    );
    assert_eq!(
        owned(gz(b"hello"), Limits::with_max_bytes(4))
            .unwrap_err()
            .kind(),
        "limit"
    );
}

#[test]
fn gzip_is_inflated() {
    let g = gz(b"hello");
    let out = decompress(&g, &Limits::default()).unwrap();
    assert_eq!(&*out, b"hello");
}

#[test]
fn bomb_is_refused() {
    let data = vec![0u8; 1 << 20];
    let err = decompress(&gz(&data), &Limits::with_max_bytes(1000)).unwrap_err();
    assert_eq!(err.kind(), "limit");
}

#[test]
fn files_over_the_limit_are_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f");
    std::fs::write(&path, b"0123456789").unwrap();
    let read = |path: &Path, limits| read_file(path, &Budget::new(limits));
    assert_eq!(
        read(&path, Limits::with_max_bytes(10)).unwrap(),
        b"0123456789"
    );
    let err = read(&path, Limits::with_max_bytes(9)).unwrap_err();
    assert_eq!(err.kind(), "limit");
    assert_eq!(
        read(dir.path(), Limits::default()).unwrap_err().kind(),
        "io"
    );
    assert_eq!(
        read(&dir.path().join("missing"), Limits::default())
            .unwrap_err()
            .kind(),
        "io"
    );
    // The file's bytes are charged to the budget before they are read.
    let err = read(
        &path,
        Limits {
            max_memory: 9,
            ..Limits::default()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("profile.max_memory"), "{err}");
}

#[test]
fn plain_bytes_over_the_limit_are_refused() {
    let err = decompress(b"0123456789", &Limits::with_max_bytes(9)).unwrap_err();
    assert_eq!(err.kind(), "limit");
    assert!(decompress(b"0123456789", &Limits::with_max_bytes(10)).is_ok());
}

/// Data that compress better than `EAGER_RATIO` and are larger than
/// `EAGER_MIN_BYTES` are counted first, then inflated again: the result is the
/// same, and a size just over the limit is still refused.
#[test]
fn highly_compressed_data_are_counted_then_inflated() {
    // Concatenated members: quicker to make than one large one.
    let block = gz(&[0u8; 1 << 20]);
    let blocks = (EAGER_MIN_BYTES as usize >> 20) + 8;
    let mut g: Vec<u8> = block
        .iter()
        .copied()
        .cycle()
        .take(block.len() * blocks)
        .collect();
    g.extend(gz(b"end"));
    let n = (blocks << 20) + 3;
    assert!(
        (g.len() as u64) * EAGER_RATIO < n as u64,
        "the test needs a high ratio"
    );
    let out = decompress(&g, &Limits::with_max_bytes(n as u64)).unwrap();
    assert_eq!(out.len(), n);
    assert_eq!(&out[n - 3..], b"end");
    let err = decompress(&g, &Limits::with_max_bytes(n as u64 - 1)).unwrap_err();
    assert_eq!(err.kind(), "limit");
}

#[test]
fn concatenated_members_are_one_stream() {
    let mut g = gz(b"hello ");
    g.extend(gz(b"world"));
    assert_eq!(
        &*decompress(&g, &Limits::default()).unwrap(),
        b"hello world"
    );
}

#[test]
fn garbage_after_the_gzip_magic_is_a_format_error() {
    for bad in [&b"\x1f\x8b"[..], b"\x1f\x8b\x08\x00garbage garbage garbage"] {
        assert_eq!(
            decompress(bad, &Limits::default()).unwrap_err().kind(),
            "format"
        );
    }
}

#[test]
fn truncated_gzip_is_an_error() {
    let g = gz(&vec![7u8; 10000]);
    let err = decompress(&g[..g.len() / 2], &Limits::default()).unwrap_err();
    assert_eq!(err.kind(), "format");
}

/// A content that refuses data holding the byte `bad`, says the read is
/// decided `stop_after` bytes after the first `stop_at` byte, and needs
/// `per_byte` bytes of memory per byte of data.
#[derive(Default)]
struct Probe {
    seen: Vec<u8>,
    pieces: usize,
    bad: Option<u8>,
    stop_at: Option<u8>,
    per_byte: u64,
    whole: bool,
}

impl Content for Probe {
    fn take(&mut self, piece: &[u8]) -> Result<Option<u64>> {
        self.pieces += 1;
        let before = self.seen.len() as u64;
        self.seen.extend_from_slice(piece);
        if let Some(bad) = self.bad.filter(|b| piece.contains(b)) {
            return Err(ProfileError::format(None, format!("byte {bad}")));
        }
        let stop = self
            .stop_at
            .and_then(|b| piece.iter().position(|&x| x == b));
        Ok(stop.map(|at| before + at as u64 + 1))
    }

    fn least_memory(&self) -> u64 {
        self.seen.len() as u64 * self.per_byte
    }

    fn counted(&self) -> String {
        format!("{} bytes", self.seen.len())
    }

    fn whole(&mut self, data: &[u8]) -> Result<()> {
        self.whole = true;
        self.seen.extend_from_slice(data);
        Ok(())
    }
}

fn inflate(data: &[u8], limits: Limits, probe: &mut Probe) -> Result<Vec<u8>> {
    decompress_content(data, &Budget::new(limits), probe).map(Cow::into_owned)
}

/// Data much larger than their compressed size, as concatenated members.
fn compressible(mib: usize) -> (Vec<u8>, Vec<u8>) {
    let block: Vec<u8> = (0..1 << 20).map(|i| (i % 251) as u8).collect();
    let member = gz(&block);
    (block.repeat(mib), member.repeat(mib))
}

#[test]
fn the_content_sees_every_byte_once_in_order() {
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 200) as u8 + 1).collect();
    let mut probe = Probe::default();
    assert_eq!(
        inflate(&gz(&data), Limits::default(), &mut probe).unwrap(),
        data
    );
    assert_eq!(probe.seen, data);
    assert!(probe.pieces > 1 && !probe.whole);
    // Plain data are shown whole.
    let mut probe = Probe::default();
    assert_eq!(inflate(&data, Limits::default(), &mut probe).unwrap(), data);
    assert_eq!((probe.seen, probe.whole), (data, true));
}

#[test]
fn data_counted_then_inflated_again_are_the_same() {
    // Over EAGER_MIN_BYTES and the ratio: counted, then inflated again.
    let (data, g) = compressible(72);
    assert!((g.len() as u64) * EAGER_RATIO < data.len() as u64);
    let mut probe = Probe::default();
    let out = inflate(&g, Limits::default(), &mut probe).unwrap();
    assert!(out == data, "not the same data");
    assert!(probe.seen == data, "the content did not see the data once");
}

#[test]
fn a_refusing_content_stops_inflation_at_once() {
    let mut data = vec![b'a'; 4 << 20];
    data.push(0);
    data.extend(vec![b'a'; 4 << 20]);
    let mut probe = Probe {
        bad: Some(0),
        ..Probe::default()
    };
    let err = inflate(&gz(&data), Limits::default(), &mut probe).unwrap_err();
    assert_eq!(err.to_string(), "byte 0");
    assert!(
        probe.seen.len() <= (4 << 20) + PIECE_BYTES,
        "inflated {} bytes",
        probe.seen.len()
    );
    // The first piece is small: wrong data are found early.
    let mut probe = Probe {
        bad: Some(b'a'),
        ..Probe::default()
    };
    inflate(&gz(&data), Limits::default(), &mut probe).unwrap_err();
    assert!(
        probe.seen.len() <= SNIFF_BYTES,
        "inflated {} bytes",
        probe.seen.len()
    );
}

#[test]
fn a_decided_read_ends_inflation_where_the_content_says() {
    let mut data = vec![b'a'; 100_000];
    data.push(b'!');
    data.extend(vec![b'a'; 3 << 20]);
    let mut probe = Probe {
        stop_at: Some(b'!'),
        ..Probe::default()
    };
    assert_eq!(
        inflate(&gz(&data), Limits::default(), &mut probe).unwrap(),
        &data[..100_001]
    );
    // Also when the data are only counted by then.
    let (mut data, _) = compressible(70);
    data.push(255);
    data.extend(vec![7u8; 1 << 20]);
    let mut probe = Probe {
        stop_at: Some(255),
        ..Probe::default()
    };
    let out = inflate(&gz(&data), Limits::default(), &mut probe).unwrap();
    assert_eq!(out.len(), (70 << 20) + 1);
}

#[test]
fn what_the_content_needs_is_checked_against_the_budget_while_inflating() {
    let data = vec![b'x'; 8 << 20];
    let limits = Limits {
        max_memory: 10 << 20,
        ..Limits::default()
    };
    // 1 byte per byte fits; 4 do not, and inflation stops soon after 2.5 MiB.
    inflate(
        &gz(&data),
        limits,
        &mut Probe {
            per_byte: 1,
            ..Probe::default()
        },
    )
    .unwrap();
    let mut probe = Probe {
        per_byte: 4,
        ..Probe::default()
    };
    let err = inflate(&gz(&data), limits, &mut probe).unwrap_err();
    assert_eq!(err.kind(), "limit");
    assert!(err.to_string().contains("profile.max_memory"), "{err}");
    assert!(
        probe.seen.len() < 4 << 20,
        "inflated {} bytes",
        probe.seen.len()
    );
    // The data kept are charged: data alone over the budget are refused.
    let err = inflate(
        &gz(&data),
        Limits {
            max_memory: 4 << 20,
            ..Limits::default()
        },
        &mut Probe::default(),
    );
    assert_eq!(err.unwrap_err().kind(), "limit");
}

#[test]
fn the_budget_holds_what_was_kept() {
    let data = vec![b'x'; 3 << 20];
    let budget = Budget::default();
    let g = gz(&data);
    let out = decompress_content(&g, &budget, &mut AnyContent::default()).unwrap();
    assert_eq!(budget.used(), out.len() as u64);
    let (data, g) = compressible(70);
    let budget = Budget::default();
    let out = decompress_content(&g, &budget, &mut AnyContent::default()).unwrap();
    assert_eq!((out.len(), budget.used()), (data.len(), data.len() as u64));
}

proptest::proptest! {
    #![proptest_config(crate::testing::config(300))]

    /// Data gzip-compressed as members cut anywhere inflate to the data,
    /// and the content sees each byte once, in order.
    #[test]
    fn members_cut_anywhere_inflate_to_the_data(
        data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..5000),
        cuts in crate::testing::cuts(),
    ) {
        let g: Vec<u8> = crate::testing::pieces(&data, &cuts).into_iter().flat_map(gz).collect();
        let mut probe = Probe::default();
        let out = inflate(&g, Limits::default(), &mut probe);
        if data.is_empty() && g.is_empty() {
            return Ok(());
        }
        proptest::prop_assert_eq!(out.unwrap(), data.clone());
        proptest::prop_assert_eq!(probe.seen, data);
    }
}
