//! A decompression bomb is refused with memory bounded by the size of the input,
//! not by the size limit. The allocator of this test binary counts the bytes in
//! use, so the test sees the peak (the binary runs this one test only).

use profile_core::input::{decompress, Limits};
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

/// `n` MiB of zeros as concatenated gzip members of 1 MiB each (about 1 kB each).
fn bomb(mib: usize) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(&vec![0u8; 1 << 20]).unwrap();
    let member = e.finish().unwrap();
    member.iter().copied().cycle().take(member.len() * mib).collect()
}

#[test]
fn bomb_is_refused_with_bounded_memory() {
    let limit: u64 = 1 << 30;
    let data = bomb(1100);
    assert!(data.len() < 2 << 20, "the bomb is small: {} bytes", data.len());

    let before = IN_USE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let started = std::time::Instant::now();
    let err = decompress(&data, &Limits::with_max_bytes(limit)).unwrap_err();
    let peak = PEAK.load(Relaxed) - before;
    eprintln!(
        "bomb of {} bytes for {} GiB refused in {:.2?}, peak {} MiB",
        data.len(),
        1100 >> 10,
        started.elapsed(),
        peak >> 20
    );
    assert_eq!(err.kind(), "limit");
    assert!(err.to_string().contains("decompression bomb"), "{err}");
    // 64 MiB kept before counting starts (counted twice while it grows by
    // `realloc`), a read buffer, the decoder's state: far below the limit.
    assert!(peak < 112 << 20, "peak allocation {peak} bytes");

    // The readers refuse it the same way, before parsing.
    let pprof = profile_core::pprof::read_bytes(&data, None, &Limits::with_max_bytes(limit));
    assert_eq!(pprof.unwrap_err().kind(), "limit");
}
