//! Work shared out among threads (`std::thread::scope`). The core holds no R API,
//! so its threads may run while R waits for the call to return.

/// The cores this process may use.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Runs each job on a thread of its own; their results in order. A job's panic
/// is passed on.
pub(crate) fn in_parallel<T: Send>(jobs: impl IntoIterator<Item = impl FnOnce() -> T + Send>) -> Vec<T> {
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs.into_iter().map(|job| s.spawn(job)).collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}
