//! Whether a profiler is running in this process, for `profile_record()`
//! (R/record.R): R's `Rprof()` samples with a `SIGPROF` timer (`setitimer(2)`
//! with `ITIMER_PROF`), which is set while it runs and cleared by `Rprof(NULL)`.
//! R has no function that tells; the timer does. And the C streams flushed, for
//! the check of `profile_record(allocations = TRUE)` that no `Rprofmem()` runs.

use crate::envelope::envelope;
use extendr_api::prelude::*;

#[cfg(all(unix, target_pointer_width = "64"))]
extern "C" {
    fn getitimer(which: std::ffi::c_int, value: *mut [i64; 4]) -> std::ffi::c_int;
}

/// Whether the process's profiling timer is set: `Some(true)` while `Rprof()`
/// (or another profiler using `SIGPROF`) runs; None where this cannot tell.
#[cfg(all(unix, target_pointer_width = "64"))]
fn profiling_timer_set() -> Option<bool> {
    // ITIMER_PROF on Linux and macOS.
    const ITIMER_PROF: std::ffi::c_int = 2;
    // struct itimerval: the interval and the time left, each a struct timeval
    // of two 64-bit fields (macOS pads its 32-bit microseconds to 64 bits; the
    // padding stays zero).
    let mut value = [0i64; 4];
    // SAFETY: getitimer writes one `struct itimerval` to the pointer, which
    // has room for it.
    let status = unsafe { getitimer(ITIMER_PROF, &mut value) };
    (status == 0).then(|| value.iter().any(|&v| v != 0))
}

#[cfg(not(all(unix, target_pointer_width = "64")))]
fn profiling_timer_set() -> Option<bool> {
    None
}

/// TRUE while a profiler's timer is set, FALSE when none is, NA where the
/// system cannot tell.
/// @noRd
#[extendr]
fn ffi_profiler_running() -> Robj {
    envelope(|| {
        Ok(match profiling_timer_set() {
            Some(set) => Robj::from(set),
            None => Robj::from(Rbool::na()),
        })
    })
}

extern "C" {
    fn fflush(stream: *mut std::ffi::c_void) -> std::ffi::c_int;
}

/// Flushes every C output stream of the process (`fflush(NULL)`), so that
/// the lines an `Rprofmem()` already running has written reach its file:
/// `profile_record(allocations = TRUE)` looks for its probe's line there to
/// tell whether one runs (R has no function that tells, and R writes the
/// lines through a buffered `FILE`). TRUE when every stream was flushed.
/// @noRd
#[extendr]
fn ffi_flush_c_streams() -> Robj {
    envelope(|| {
        // SAFETY: fflush(NULL) is defined by C to flush every output stream;
        // it reads no memory of ours.
        let status = unsafe { fflush(std::ptr::null_mut()) };
        Ok(Robj::from(status == 0))
    })
}

extendr_module! {
    mod record;
    fn ffi_profiler_running;
    fn ffi_flush_c_streams;
}
