//! The waits of the recording process, for `profile_record()` (R/record.R):
//! R's `Rprof()` counts the CPU time of the process (`ITIMER_PROF`), so the
//! time the process spends waiting (for its workers, in `Sys.sleep()`, for
//! input) leaves no sample and no trace of where it happened. A thread of
//! this module reads the process's CPU time and the wall clock every few
//! milliseconds while the recording runs, and keeps each stretch in which the
//! process used (almost) no CPU time: its wall-clock start and end, and the
//! CPU time the process had used by then since the watch started (which
//! places the wait among the samples, whose times are CPU time).
//!
//! A process that is ready to run but not running (on a machine busier than
//! its cores) uses no CPU time either: on Linux the time R's thread waited
//! for a CPU (`/proc/self/task/PID/schedstat`) counts as busy, so that only
//! time in which it was blocked (sleeping, reading a socket or a pipe) is a
//! wait.
//!
//! The watch's own CPU time is the process's too: a tick of `Rprof()` falls
//! due in it as in R's, and during a wait it would be R's only sample there.
//! So it is kept small: the files it reads stay open (read in place, no
//! allocation), and while a wait lasts its readings come further apart
//! (doubling up to [`WAITING_PAUSES`] times the first pause). A wait's end is
//! placed by the CPU time used in the reading that ends it, so the longer
//! pauses do not blur it.
//!
//! The thread blocks `SIGPROF`, so that the profiler's signal is always taken
//! by R's own thread; a forked child has no copy of it (fork() copies the
//! calling thread only), and never stops it.

use crate::envelope::envelope;
use extendr_api::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A tick whose CPU time is below this share of its wall-clock time is
/// spent waiting.
const IDLE_SHARE: f64 = 0.25;

/// How many times its first pause the watch waits between two readings at
/// most while the process waits.
const WAITING_PAUSES: u32 = 10;

/// The watch's pause after a reading: the first pause while the process
/// works, twice the last one (up to [`WAITING_PAUSES`] first pauses) while
/// it waits.
fn next_pause(last: Duration, first: Duration, waiting: bool) -> Duration {
    if waiting {
        last.saturating_mul(2)
            .min(first.saturating_mul(WAITING_PAUSES))
    } else {
        first
    }
}

/// The waits found from the ticks given to [`Waits::tick`].
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Waits {
    /// Wall-clock start and end of each wait (seconds since the epoch).
    pub start: Vec<f64>,
    pub end: Vec<f64>,
    /// The CPU time used from the first tick to the wait's start (seconds).
    pub cpu: Vec<f64>,
    /// The CPU time used from the first tick to the last (seconds).
    pub total: f64,
    /// Waits shorter than this (seconds) are not kept.
    min_wait: f64,
    first_cpu: Option<f64>,
    previous: Option<(f64, f64, f64)>,
    /// The wait under way: its start (wall) and CPU time at its start.
    open: Option<(f64, f64)>,
}

impl Waits {
    pub(crate) fn new(min_wait: f64) -> Waits {
        Waits {
            min_wait,
            ..Waits::default()
        }
    }

    /// A reading of the clocks: the wall clock, the process's CPU time and
    /// the time R's thread has waited for a CPU (seconds). Within a tick the
    /// CPU time used is taken to come first when a wait starts (the process
    /// worked, then waited) and last when it ends, so that a wait's ends are
    /// placed closer than a tick.
    pub(crate) fn tick(&mut self, wall: f64, cpu: f64, queued: f64) {
        let first = *self.first_cpu.get_or_insert(cpu);
        if let Some((previous_wall, previous_cpu, previous_queued)) = self.previous {
            let elapsed = wall - previous_wall;
            let used = (cpu - previous_cpu).max(0.0);
            let ready = (queued - previous_queued).max(0.0);
            let idle = elapsed > 0.0 && used + ready < IDLE_SHARE * elapsed;
            match (idle, self.open) {
                (true, None) => {
                    self.open = Some((previous_wall + used + ready, previous_cpu + used - first));
                }
                (false, Some((start, at))) => {
                    self.close(start, (wall - used - ready).max(start), at);
                    self.open = None;
                }
                _ => {}
            }
        }
        self.previous = Some((wall, cpu, queued));
        self.total = cpu - first;
    }

    /// Whether a wait is under way (since the last tick).
    pub(crate) fn waiting(&self) -> bool {
        self.open.is_some()
    }

    /// Ends the watch: a wait under way ends at the last tick.
    pub(crate) fn finish(&mut self) {
        if let (Some((start, at)), Some((wall, _, _))) = (self.open.take(), self.previous) {
            self.close(start, wall, at);
        }
    }

    fn close(&mut self, start: f64, end: f64, cpu: f64) {
        if end - start >= self.min_wait {
            self.start.push(start);
            self.end.push(end);
            self.cpu.push(cpu.max(0.0));
        }
    }
}

#[cfg(all(unix, target_pointer_width = "64"))]
extern "C" {
    fn clock_gettime(clock: std::ffi::c_int, time: *mut [i64; 2]) -> std::ffi::c_int;
    fn sigemptyset(set: *mut [u64; 16]) -> std::ffi::c_int;
    fn sigaddset(set: *mut [u64; 16], signal: std::ffi::c_int) -> std::ffi::c_int;
    fn pthread_sigmask(
        how: std::ffi::c_int,
        set: *const [u64; 16],
        old: *mut [u64; 16],
    ) -> std::ffi::c_int;
}

/// CLOCK_PROCESS_CPUTIME_ID and SIG_BLOCK of the system (SIGPROF is 27 on both).
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
const CLOCKS: Option<(std::ffi::c_int, std::ffi::c_int)> = Some((2, 0));
#[cfg(all(target_os = "macos", target_pointer_width = "64"))]
const CLOCKS: Option<(std::ffi::c_int, std::ffi::c_int)> = Some((12, 1));
#[cfg(not(all(
    any(target_os = "linux", target_os = "macos"),
    target_pointer_width = "64"
)))]
const CLOCKS: Option<(std::ffi::c_int, std::ffi::c_int)> = None;

/// The CPU time of the process (all its threads), in seconds.
#[cfg(all(unix, target_pointer_width = "64"))]
fn process_cpu_time() -> Option<f64> {
    let (clock, _) = CLOCKS?;
    let mut time = [0i64; 2];
    // SAFETY: clock_gettime writes one struct timespec (two 64-bit fields on
    // these systems) to the pointer, which has room for it.
    let status = unsafe { clock_gettime(clock, &mut time) };
    (status == 0).then(|| time[0] as f64 + time[1] as f64 * 1e-9)
}

#[cfg(not(all(unix, target_pointer_width = "64")))]
fn process_cpu_time() -> Option<f64> {
    None
}

/// Blocks SIGPROF in the calling thread (the watch's), so that R's profiler
/// signal goes to R's thread.
#[cfg(all(unix, target_pointer_width = "64"))]
fn block_profiler_signal() {
    const SIGPROF: std::ffi::c_int = 27;
    let Some((_, sig_block)) = CLOCKS else {
        return;
    };
    // (a buffer larger than any system's sigset_t: 128 bytes on Linux)
    let mut set = [0u64; 16];
    // SAFETY: the set is initialised by sigemptyset before it is read; the
    // calls write within the buffer, which is larger than sigset_t.
    unsafe {
        sigemptyset(&mut set);
        sigaddset(&mut set, SIGPROF);
        pthread_sigmask(sig_block, &set, std::ptr::null_mut());
    }
}

#[cfg(not(all(unix, target_pointer_width = "64")))]
fn block_profiler_signal() {}

/// The time (seconds) a thread of this process has waited for a CPU while
/// ready to run: the second field of Linux's schedstat, read from the file
/// kept open; 0 where the system does not tell.
struct QueuedTime {
    schedstat: Option<std::fs::File>,
}

impl QueuedTime {
    fn of_thread(tid: u32) -> QueuedTime {
        QueuedTime {
            schedstat: std::fs::File::open(format!("/proc/self/task/{tid}/schedstat")).ok(),
        }
    }

    #[cfg(unix)]
    fn read(&self) -> f64 {
        use std::os::unix::fs::FileExt;
        let Some(file) = &self.schedstat else {
            return 0.0;
        };
        // (three numbers of at most 20 digits: the buffer holds them)
        let mut buffer = [0u8; 96];
        let Ok(length) = file.read_at(&mut buffer, 0) else {
            return 0.0;
        };
        buffer
            .get(..length)
            .and_then(|read| std::str::from_utf8(read).ok())
            .and_then(|text| text.split_whitespace().nth(1)?.parse::<f64>().ok())
            .map_or(0.0, |nanos| nanos * 1e-9)
    }

    #[cfg(not(unix))]
    fn read(&self) -> f64 {
        0.0
    }
}

fn wall_time() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

struct Watch {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Waits>,
}

/// The watch running in this process, if any.
static WATCH: Mutex<Option<Watch>> = Mutex::new(None);

/// Starts the watch (a running one is stopped and its waits dropped): a
/// reading every `tick` seconds, waits of `min_wait` seconds or more kept.
/// FALSE where the system's CPU time cannot be read (no waits then).
fn start_watch(tick: f64, min_wait: f64) -> bool {
    stop_watch();
    if process_cpu_time().is_none() {
        return false;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    // R's thread is the one that starts the watch: on Linux the process's
    // first thread, whose id is the process's
    let r_thread = std::process::id();
    let first_pause = Duration::from_secs_f64(tick.clamp(0.001, 1.0));
    let spawned = std::thread::Builder::new()
        .name("profile-waits".into())
        .spawn(move || {
            block_profiler_signal();
            let queued = QueuedTime::of_thread(r_thread);
            let mut waits = Waits::new(min_wait);
            let read = |waits: &mut Waits| {
                if let Some(cpu) = process_cpu_time() {
                    waits.tick(wall_time(), cpu, queued.read());
                }
            };
            let mut pause = first_pause;
            while !flag.load(Ordering::Relaxed) {
                read(&mut waits);
                pause = next_pause(pause, first_pause, waits.waiting());
                // (woken early by stop_watch())
                std::thread::park_timeout(pause);
            }
            read(&mut waits);
            waits.finish();
            waits
        });
    let Ok(thread) = spawned else {
        return false;
    };
    if let Ok(mut slot) = WATCH.lock() {
        *slot = Some(Watch { stop, thread });
        true
    } else {
        false
    }
}

/// Stops the watch and returns its waits (none when no watch ran).
fn stop_watch() -> Waits {
    let watch = WATCH.lock().ok().and_then(|mut slot| slot.take());
    let Some(watch) = watch else {
        return Waits::default();
    };
    watch.stop.store(true, Ordering::Relaxed);
    watch.thread.thread().unpark();
    watch.thread.join().unwrap_or_default()
}

/// Starts watching this process's waits (see the module's doc); TRUE when
/// the watch runs.
/// @noRd
#[extendr]
fn ffi_wait_watch_start(tick: f64, min_wait: f64) -> Robj {
    envelope(|| Ok(Robj::from(start_watch(tick, min_wait))))
}

/// Stops the watch: `list(start, end, cpu, total)`: its waits and the CPU
/// time it saw used (seconds).
/// @noRd
#[extendr]
fn ffi_wait_watch_stop() -> Robj {
    envelope(|| {
        let waits = stop_watch();
        Ok(list!(
            start = waits.start,
            end = waits.end,
            cpu = waits.cpu,
            total = waits.total
        )
        .into())
    })
}

extendr_module! {
    mod waits;
    fn ffi_wait_watch_start;
    fn ffi_wait_watch_stop;
}

#[cfg(test)]
mod tests;
