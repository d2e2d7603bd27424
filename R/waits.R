# The waits of the process that records (see src/rust/src/waits.rs): R's
# profiler counts CPU time, so a stretch in which the process waited (for its
# workers, in Sys.sleep()) leaves no sample. A thread watches the process's
# CPU time and the wall clock while the recording runs and keeps each
# stretch without CPU time: its wall-clock start and end and the CPU time
# the samples had reached when it began (the table `waits`, see
# ?profile_v2), which the view uses to draw the wait where it happened.

# Starts the watch as the profiler starts: a reading every 5 ms (up to
# every 50 ms during a wait: src/rust/src/waits.rs), waits at
# least as long as a sampling interval (and 20 ms) kept. FALSE where the
# system cannot tell a process's CPU time.
start_wait_watch <- function(interval) {
  isTRUE(rust_value(
    ffi_wait_watch_start(0.005, max(0.02, interval)), "Can't watch the process's waits."
  ))
}

# Stops the watch; its waits as a data frame (start_time, end_time, cpu_time),
# with the CPU time it saw used as the attribute "cpu_total".
stop_wait_watch <- function() {
  waits <- rust_value(ffi_wait_watch_stop(), "Can't watch the process's waits.")
  structure(
    data.frame(start_time = waits$start, end_time = waits$end, cpu_time = waits$cpu),
    cpu_total = waits$total
  )
}

# The waits' CPU times on the clock of the samples, whose times count the
# ticks of R's profiler (`sample_end`: the end of the last tick recorded):
# a loaded system delivers fewer ticks than the CPU time used (two timer
# expiries taken as one signal), so that the samples' clock runs behind the
# process's CPU time; scaled by the ratio of the two, a wait falls between
# the samples taken before it and those after it.
waits_on_sample_clock <- function(waits, sample_end) {
  ratio <- sample_end / as.double(attr(waits, "cpu_total"))
  if (length(ratio) == 1L && is.finite(ratio) && ratio > 0) {
    waits$cpu_time <- waits$cpu_time * min(1, ratio)
  }
  waits
}

# The table `waits` of a source (`source_id`) from a data frame of waits
# (NULL: none).
waits_table <- function(source_id, waits) {
  if (is.null(waits)) {
    waits <- data.frame(start_time = numeric(), end_time = numeric(), cpu_time = numeric())
  }
  tibble::tibble(
    source_id = rep(source_id, nrow(waits)),
    start_time = as.numeric(waits$start_time),
    end_time = as.numeric(waits$end_time),
    cpu_time = as.numeric(waits$cpu_time)
  )
}
