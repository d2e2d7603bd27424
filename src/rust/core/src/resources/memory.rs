//! Large buffers backed by huge pages where the system allows it.
//!
//! Most of the time of a large read goes to memory the process touches for the
//! first time: each 4 KiB page costs the kernel a fault and zeroing, and a large
//! read spent more time in page faults than in parsing (`bench/README.md`, item
//! 11). Linux backs memory with 2 MiB pages when asked
//! (transparent huge pages, `madvise` mode, the default of many distributions),
//! which takes one fault where there were 512. Only whole 2 MiB pages inside the
//! buffer are advised, so no memory outside it is affected, and the advice does
//! not change what the memory holds. Elsewhere, or when the kernel says no, this
//! does nothing.

/// Buffers smaller than this are left alone: a few faults more or less do not
/// matter, and small buffers come from memory the allocator reuses anyway.
const MIN_ADVISED_BYTES: usize = 8 << 20;

#[cfg(target_os = "linux")]
const HUGE_PAGE_BYTES: usize = 2 << 20;

#[cfg(target_os = "linux")]
extern "C" {
    fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: std::ffi::c_int)
        -> std::ffi::c_int;
}

/// Asks for huge pages for the whole 2 MiB pages inside `memory`, which the
/// caller is about to write (a new buffer, before its first write).
pub fn advise_huge_pages<T>(memory: &mut [T]) {
    let len = std::mem::size_of_val(memory);
    if len < MIN_ADVISED_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const MADV_HUGEPAGE: std::ffi::c_int = 14;
        let start = memory.as_mut_ptr() as usize;
        let first = start.next_multiple_of(HUGE_PAGE_BYTES);
        let end = (start + len) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
        if end > first {
            // SAFETY: [first, end) lies within `memory`, which we borrow mutably;
            // MADV_HUGEPAGE changes how the pages are backed, never their contents
            // or whether they may be accessed. A failure (no THP support) is ignored.
            let _ = unsafe { madvise(first as *mut std::ffi::c_void, end - first, MADV_HUGEPAGE) };
        }
    }
}

/// A new vector with room for `n` values, huge pages advised for a large one.
pub fn with_capacity_advised<T>(n: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    advise_huge_pages(v.spare_capacity_mut());
    v
}

/// `try_reserve_exact` of `additional` values, then huge pages advised for the
/// spare capacity.
pub fn try_reserve_advised<T>(
    v: &mut Vec<T>,
    additional: usize,
) -> Result<(), std::collections::TryReserveError> {
    v.try_reserve_exact(additional)?;
    advise_huge_pages(v.spare_capacity_mut());
    Ok(())
}

/// The address space this process may still reserve, when it is capped
/// (`ulimit -v`, `RLIMIT_AS`): the cap less what the process has reserved
/// (`/proc/self/statm`). None when there is no cap, or where this is not known
/// (systems other than Linux). Under a cap an allocation fails as soon as the
/// reservations would pass it, however much memory is free.
pub fn address_space_left() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    {
        let cap = address_space_cap()?;
        let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
        let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
        Some(cap.saturating_sub(pages.saturating_mul(page_size())))
    }
    #[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
    {
        None
    }
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
extern "C" {
    fn getrlimit(resource: std::ffi::c_int, rlim: *mut [u64; 2]) -> std::ffi::c_int;
    fn sysconf(name: std::ffi::c_int) -> std::ffi::c_long;
}

/// The soft limit of the address space, if there is one.
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn address_space_cap() -> Option<u64> {
    // Linux's numbers (the same on every architecture it runs R on).
    const RLIMIT_AS: std::ffi::c_int = 9;
    const RLIM_INFINITY: u64 = u64::MAX;
    let mut limit = [0u64; 2];
    // SAFETY: getrlimit writes one `struct rlimit` (two 64-bit numbers on the
    // 64-bit systems this builds for: soft and hard limit) to the pointer.
    let status = unsafe { getrlimit(RLIMIT_AS, &mut limit) };
    (status == 0 && limit[0] != RLIM_INFINITY).then_some(limit[0])
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn page_size() -> u64 {
    const SC_PAGESIZE: std::ffi::c_int = 30;
    // SAFETY: sysconf only reads a system setting.
    let size = unsafe { sysconf(SC_PAGESIZE) };
    u64::try_from(size).ok().filter(|&s| s > 0).unwrap_or(4096)
}

#[cfg(test)]
mod tests;
