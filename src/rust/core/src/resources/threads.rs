//! Work shared out among threads (`std::thread::scope`). The core holds no R API,
//! so its threads may run while R waits for the call to return.

use std::sync::Mutex;

/// Most threads a read uses, however many cores there are: the parallel Rprof
/// read replays its chunks in order, and writing memory does not scale far.
pub(crate) const MAX_THREADS: usize = 8;

/// The cores this process may use.
pub(crate) fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Runs each job on a thread of its own; their results in order. A job's panic
/// is passed on. A job whose thread cannot be started (the system may refuse
/// one when the address space is capped) runs on this thread instead, with the
/// same result.
pub(crate) fn in_parallel<T: Send, F: FnOnce() -> T + Send>(
    jobs: impl IntoIterator<Item = F>,
) -> Vec<T> {
    // Each job waits in a cell that its thread, or this one, takes it from.
    let cells: Vec<Mutex<Option<F>>> = jobs.into_iter().map(|job| Mutex::new(Some(job))).collect();
    let take = |cell: &Mutex<Option<F>>| cell.lock().ok().and_then(|mut job| job.take());
    std::thread::scope(|s| {
        let handles: Vec<_> = cells
            .iter()
            .map(|cell| {
                std::thread::Builder::new()
                    .spawn_scoped(s, move || take(cell).map(|job| job()))
                    .ok()
            })
            .collect();
        handles
            .into_iter()
            .zip(&cells)
            .filter_map(|(handle, cell)| match handle {
                Some(h) => h
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                None => take(cell).map(|job| job()),
            })
            .collect()
    })
}

#[cfg(test)]
mod tests;
