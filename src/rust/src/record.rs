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

/// Points every file descriptor of this process that is open on one of
/// `paths` (the same device and inode) to `/dev/null`; returns how many.
///
/// A forked child (`parallel::mclapply()`) inherits the recording process's
/// open profiler file with the data R had not yet written out of its buffer:
/// the child's first `Rprof()` closes that file and so writes those data a
/// second time into the parent's recording. Pointed to `/dev/null` first,
/// the descriptor takes them harmlessly (R/task.R).
#[cfg(unix)]
fn detach_descriptors(paths: &[String]) -> std::io::Result<i32> {
    use std::os::unix::io::AsRawFd;
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    let mut detached = 0;
    for fd in descriptors_open_on(paths)? {
        if fd == null.as_raw_fd() {
            continue;
        }
        // SAFETY: dup2 on two open descriptors; it replaces `fd` atomically.
        if unsafe { dup2(null.as_raw_fd(), fd) } >= 0 {
            detached += 1;
        }
    }
    Ok(detached)
}

#[cfg(unix)]
extern "C" {
    fn dup2(old: std::ffi::c_int, new: std::ffi::c_int) -> std::ffi::c_int;
    fn open(path: *const std::ffi::c_char, flags: std::ffi::c_int, ...) -> std::ffi::c_int;
    fn close(fd: std::ffi::c_int) -> std::ffi::c_int;
    fn pthread_atfork(
        prepare: Option<extern "C" fn()>,
        parent: Option<extern "C" fn()>,
        child: Option<extern "C" fn()>,
    ) -> std::ffi::c_int;
}

/// The descriptors (above 2) of this process open on one of `paths` (the
/// same device and inode).
#[cfg(unix)]
fn descriptors_open_on(paths: &[String]) -> std::io::Result<Vec<std::ffi::c_int>> {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::io::BorrowedFd;
    let wanted: Vec<(u64, u64)> = paths
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| (m.dev(), m.ino()))
        .collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    // the descriptors open now (Linux: /proc/self/fd; macOS and BSDs: /dev/fd)
    let listing = std::fs::read_dir("/proc/self/fd").or_else(|_| std::fs::read_dir("/dev/fd"))?;
    let fds: Vec<std::ffi::c_int> = listing
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    let mut found = Vec::new();
    for fd in fds {
        // SAFETY: the descriptor was listed as open just now and stays open
        // while it is borrowed (nothing else runs in this thread meanwhile);
        // the listing's own descriptor, closed since, fails fstat harmlessly.
        let file = unsafe { BorrowedFd::borrow_raw(fd) };
        let Ok(owned) = file.try_clone_to_owned() else {
            continue;
        };
        let Ok(meta) = std::fs::File::from(owned).metadata() else {
            continue;
        };
        if wanted.contains(&(meta.dev(), meta.ino())) {
            found.push(fd);
        }
    }
    Ok(found)
}

/// The descriptors a forked child points to `/dev/null` as it starts (-1:
/// none): those of the recording's `Rprofmem()` and `Rprof()` files.
#[cfg(unix)]
static DETACH_ON_FORK: [std::sync::atomic::AtomicI32; 4] = [
    std::sync::atomic::AtomicI32::new(-1),
    std::sync::atomic::AtomicI32::new(-1),
    std::sync::atomic::AtomicI32::new(-1),
    std::sync::atomic::AtomicI32::new(-1),
];

#[cfg(unix)]
static ATFORK_REGISTERED: std::sync::Once = std::sync::Once::new();

/// Runs in a forked child, before fork() returns there: points the
/// descriptors of DETACH_ON_FORK to `/dev/null`, with async-signal-safe
/// calls only (open, dup2, close).
#[cfg(unix)]
extern "C" fn detach_in_child() {
    use std::sync::atomic::Ordering;
    // O_WRONLY is 1 on Linux and macOS
    const O_WRONLY: std::ffi::c_int = 1;
    if DETACH_ON_FORK
        .iter()
        .all(|fd| fd.load(Ordering::Relaxed) < 0)
    {
        return;
    }
    // SAFETY: a NUL-terminated path; open() returns -1 on failure.
    let null = unsafe { open(c"/dev/null".as_ptr(), O_WRONLY) };
    if null < 0 {
        return;
    }
    for slot in &DETACH_ON_FORK {
        let fd = slot.load(Ordering::Relaxed);
        if fd >= 0 && fd != null {
            // SAFETY: dup2 of an open descriptor onto another number.
            unsafe { dup2(null, fd) };
        }
    }
    // SAFETY: closes the descriptor opened above.
    unsafe { close(null) };
}

/// Makes every process forked from now on (`parallel::mclapply()`,
/// `mcparallel()`) point its descriptors open on `paths` to `/dev/null` the
/// moment it starts, before R runs in it: the allocation profiler
/// `Rprofmem()` keeps running in a forked child, and without this the child
/// writes its allocations, and the lines its parent had not yet written out
/// of its buffer, into the recording's file (interleaved with the parent's,
/// garbling lines). An empty `paths` stops it. R offers no hook at fork time;
/// `pthread_atfork()` is one. Returns the number of descriptors set.
#[cfg(unix)]
fn detach_on_fork(paths: &[String]) -> std::io::Result<i32> {
    use std::sync::atomic::Ordering;
    let fds = descriptors_open_on(paths)?;
    ATFORK_REGISTERED.call_once(|| {
        // SAFETY: registers a handler that only makes async-signal-safe calls.
        unsafe { pthread_atfork(None, None, Some(detach_in_child)) };
    });
    for (i, slot) in DETACH_ON_FORK.iter().enumerate() {
        slot.store(fds.get(i).copied().unwrap_or(-1), Ordering::Relaxed);
    }
    Ok(fds.len().min(DETACH_ON_FORK.len()) as i32)
}

#[cfg(not(unix))]
fn detach_on_fork(_paths: &[String]) -> std::io::Result<i32> {
    Ok(0)
}

#[cfg(not(unix))]
fn detach_descriptors(_paths: &[String]) -> std::io::Result<i32> {
    Ok(0)
}

/// The number of descriptors pointed to `/dev/null` (see
/// `detach_descriptors()`); -1 where the descriptors could not be listed.
/// @noRd
#[extendr]
fn ffi_detach_inherited_files(paths: Strings) -> Robj {
    envelope(|| {
        let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        Ok(Robj::from(detach_descriptors(&paths).unwrap_or(-1)))
    })
}

/// Sets the descriptors that forked children detach (see `detach_on_fork()`);
/// -1 where the descriptors could not be listed.
/// @noRd
#[extendr]
fn ffi_detach_on_fork(paths: Strings) -> Robj {
    envelope(|| {
        let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        Ok(Robj::from(detach_on_fork(&paths).unwrap_or(-1)))
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
    fn ffi_detach_inherited_files;
    fn ffi_detach_on_fork;
    fn ffi_flush_c_streams;
}
