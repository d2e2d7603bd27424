//! Decompression bombs are refused with memory bounded by the size of the
//! input, not by the size or memory limit. The allocator of this test binary counts the bytes in
//! use, so the test sees the peak (the binary runs this one test only).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test: its helpers fail the test"
)]

use profile_core::formats::rprof::RprofContent;
use profile_core::io::input::{decompress, decompress_content, EAGER_MIN_BYTES, EAGER_RATIO};
use profile_core::resources::budget::Budget;
use profile_core::resources::limits::Limits;
use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn count(grown: usize) {
    let now = IN_USE.fetch_add(grown, Relaxed) + grown;
    PEAK.fetch_max(now, Relaxed);
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            count(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        IN_USE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let q = System.realloc(p, layout, new_size);
        if !q.is_null() {
            // Counted as if old and new blocks coexisted, as they may while copying.
            count(new_size);
            IN_USE.fetch_sub(layout.size(), Relaxed);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Concatenated gzip members: `head`, then `block` repeated until the data
/// reach `total` bytes (gunzip reads them as one stream). Small on disk.
fn bomb_of(head: &[u8], block: &[u8], total: usize) -> Vec<u8> {
    let gz = |data: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    };
    let member = gz(block);
    let mut out = if head.is_empty() {
        Vec::new()
    } else {
        gz(head)
    };
    out.extend(
        member
            .iter()
            .copied()
            .cycle()
            .take(member.len() * total.div_ceil(block.len())),
    );
    out
}

/// `unit` repeated to a block of about 1 MiB.
fn block_of(unit: &[u8]) -> Vec<u8> {
    unit.repeat((1 << 20) / unit.len())
}

/// Runs `read`, which must fail with an error of `kind` whose message holds
/// `says`; returns the peak of the bytes allocated meanwhile.
fn peak_of_refusal(
    name: &str,
    kind: &str,
    says: &str,
    read: impl FnOnce() -> profile_core::Result<()>,
) -> usize {
    let before = IN_USE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let started = std::time::Instant::now();
    let err = read().unwrap_err();
    let peak = PEAK.load(Relaxed) - before;
    eprintln!(
        "{name}: refused in {:.2?}, peak {} MiB: {err}",
        started.elapsed(),
        peak >> 20
    );
    assert_eq!(err.kind(), kind, "{name}: {err}");
    assert!(err.to_string().contains(says), "{name}: {err}");
    peak
}

#[test]
fn bombs_are_refused_with_bounded_memory() {
    // 1.1 GiB of zeros in about 1 MB: over a size limit of 1 GiB.
    let limit: u64 = 1 << 30;
    let zeros = bomb_of(b"", &[0u8; 1 << 20], 1100 << 20);
    assert!(
        zeros.len() < 2 << 20,
        "the bomb is small: {} bytes",
        zeros.len()
    );
    let peak = peak_of_refusal("zeros", "limit", "decompression bomb", || {
        decompress(&zeros, &Limits::with_max_bytes(limit)).map(|_| ())
    });
    // 64 MiB kept before counting starts (counted twice while it grows by
    // `realloc`), a read buffer, the decoder's state: far below the limit.
    assert!(peak < 112 << 20, "peak allocation {peak} bytes");

    // The readers know from the first bytes that zeros are neither format.
    let peak = peak_of_refusal(
        "zeros as pprof",
        "format",
        "not a pprof protobuf file",
        || profile_core::formats::pprof::read_bytes(&zeros, None, &Limits::default()).map(|_| ()),
    );
    assert!(peak < 1 << 20, "peak allocation {peak} bytes");
    let budget = Budget::default();
    let peak = peak_of_refusal("zeros as Rprof", "format", "not an Rprof file", || {
        decompress_content(&zeros, &budget, &mut RprofContent::new()).map(|_| ())
    });
    assert!(peak < 1 << 20, "peak allocation {peak} bytes");

    // A string table of one-byte strings, and Rprof lines of two frames: each
    // refused once what it counted would need more memory than allowed, long
    // before the data end (2 GiB) or the budget is spent. What is kept before
    // counting starts is bounded by the size of the input (EAGER_RATIO), and
    // counted twice while its buffer grows by `realloc`.
    let limits = Limits {
        max_memory: 1 << 30,
        ..Limits::default()
    };
    let kept = |input: &[u8]| 2 * (input.len() as u64 * EAGER_RATIO).max(EAGER_MIN_BYTES) as usize;
    let strings = bomb_of(&[0x32, 0x00], &block_of(&[0x32, 0x01, b'a']), 2 << 30);
    let peak = peak_of_refusal("strings", "limit", "profile.max_memory", || {
        profile_core::formats::pprof::read_bytes(&strings, None, &limits).map(|_| ())
    });
    assert!(
        peak < kept(&strings) + (80 << 20),
        "peak allocation {peak} bytes"
    );
    let lines = bomb_of(
        b"sample.interval=20000\n",
        &block_of(b"\"f\" \"g\" \n"),
        2 << 30,
    );
    let budget = Budget::new(limits);
    let peak = peak_of_refusal("lines", "limit", "profile.max_memory", || {
        decompress_content(&lines, &budget, &mut RprofContent::new()).map(|_| ())
    });
    assert!(
        peak < kept(&lines) + (80 << 20),
        "peak allocation {peak} bytes"
    );
}
