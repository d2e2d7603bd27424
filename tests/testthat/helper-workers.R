# Helpers of the tests of profile_record() of parallel code (test-task.R, test-workers*.R).

# Functions in an environment of their own (so that forked children and
# PSOCK workers get them): `spin` burns CPU time, `worker_part` runs in the
# workers and returns its process id and the CPU time `worker_spin` used,
# `main_part` runs in the main process only. (A function that do.call() calls
# by value, as a PSOCK worker calls a task's, is "<Anonymous>" to R's
# profiler: the workers' time is that of `worker_spin`.)
parallel_functions <- function() {
  env <- new.env(parent = globalenv())
  local(envir = env, {
    spin <- function(n) {
      total <- 0
      for (i in seq_len(n)) total <- total + sqrt(i)
      total
    }
    worker_spin <- function(n) spin(n)
    worker_part <- function(n) {
      clock <- proc.time()
      worker_spin(n)
      used <- proc.time() - clock
      list(pid = Sys.getpid(), cpu = sum(used[c("user.self", "sys.self")]))
    }
    main_part <- function(n) spin(n)
  })
  env
}

# The size of a loop of `seconds` of CPU time, roughly (about 3e6 steps a
# second here; the tests compare with the CPU time measured, not with this).
work_size <- function(seconds) {
  round(5e6 * seconds)
}

workers_dirs <- function() {
  list.files(tempdir(), pattern = "^profile-workers-")
}

# Per source (process id), the seconds of the samples whose stack has a frame
# of the function `name`, counted from the tables themselves.
seconds_with <- function(x, name) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  fid <- tables$functions$function_id[tables$functions$name == name]
  lid <- tables$locations$location_id[tables$locations$function_id %in% fid]
  samples <- unique(tables$sample_locations$sample_id[tables$sample_locations$location_id %in% lid])
  ticks <- tables$sample_values[tables$sample_values$type == "samples" &
    tables$sample_values$sample_id %in% samples, ]
  source <- tables$samples$source_id[match(ticks$sample_id, tables$samples$sample_id)]
  interval <- tables$sources$period[match(source, tables$sources$source_id)] / 1e9
  pid <- tables$sources$process_id[match(source, tables$sources$source_id)]
  out <- tapply(ticks$value * interval, pid, sum)
  stats::setNames(as.numeric(out), names(out))
}

# `machinery`: "parallel" (the frames of parallel's and callr's machinery
# are all cut off) or "future" (future's own frames run inside the task, as
# the user's code does: only the workers' loops are cut off).
expect_worker_times <- function(x, results, interval, machinery = "parallel") {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  sources <- tables$sources
  worker_pids <- vapply(results, function(r) r$pid, integer(1))
  main <- sources[sources$process_role == "main", ]
  expect_identical(main$process_id, Sys.getpid())
  expect_setequal(sources$process_id[sources$process_role == "worker"], worker_pids)
  expect_true(all(sources$host_name == Sys.info()[["nodename"]]))
  # the worker's function in the workers' sources only, the main's in the main's
  in_workers <- seconds_with(x, "worker_spin")
  expect_setequal(names(in_workers), as.character(worker_pids))
  expect_identical(names(seconds_with(x, "main_part")), as.character(Sys.getpid()))
  # each worker's time: the CPU time it measured itself
  for (r in results) {
    seconds <- in_workers[[as.character(r$pid)]]
    expect_gte(seconds / interval, 40)
    expect_equal(seconds, r$cpu, tolerance = 0.25, label = paste("worker", r$pid))
  }
  # the frames of the workers' machinery are cut off: their stacks start at
  # the top level
  worker_samples <- tables$samples$sample_id[tables$samples$source_id %in%
    sources$source_id[sources$process_role == "worker"]]
  rows <- tables$sample_locations[tables$sample_locations$sample_id %in% worker_samples, ]
  function_id <- tables$locations$function_id[match(rows$location_id, tables$locations$location_id)]
  rows$name <- tables$functions$name[match(function_id, tables$functions$function_id)]
  cut_off <- c("profile:::run_task", "workLoop", "workCommand")
  if (machinery == "parallel") cut_off <- c(cut_off, "mclapply", "do.call", "callr")
  expect_false(any(rows$name %in% cut_off))
  outermost <- rows[rows$depth == stats::ave(rows$depth, rows$sample_id, FUN = max), ]
  expect_true(all(outermost$name == "<top level>"))
}

# A small recording of parallel code (two forked children through
# profile_task(), a little work in the main process), made once per test
# file that asks for it: the fixture of the tests of what a profile goes
# through (test-workers-model.R).
parallel_recording_cache <- new.env(parent = emptyenv())
small_parallel_recording <- function() {
  if (is.null(parallel_recording_cache$x)) {
    f <- parallel_functions()
    worker_part <- f$worker_part
    main_part <- f$main_part
    n <- work_size(0.2)
    parallel_recording_cache$x <- suppressWarnings(profile_record(
      {
        parallel::mclapply(c(n, n), profile_task(worker_part),
          mc.cores = 2, mc.preschedule = FALSE
        )
        main_part(n / 4)
      },
      interval = 0.01
    ))
  }
  parallel_recording_cache$x
}

# ---- the main process's waits (test-waits.R, test-view-waits.R) ----

# Main-only work, then parLapply() on a PSOCK cluster of two workers of about
# 0.5 s each (through profile_task(), so that the tasks' spans are kept), then
# main-only work; the wall-clock span of the parallel call measured inside
# the recorded code with Sys.time(). (A cluster made before: inside the
# parallel call the main process only sends and receives, where mclapply()
# forks its children, which takes the main process's CPU time.)
waiting_recording <- function() {
  f <- parallel_functions()
  span <- new.env()
  before_part <- function() f$spin(work_size(0.2))
  after_part <- function() f$spin(work_size(0.2))
  worker_busy <- function(i) {
    clock <- proc.time()[["elapsed"]]
    while (proc.time()[["elapsed"]] - clock < 0.5) spin(1e4)
    i
  }
  environment(worker_busy) <- f
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl))
  # (profile_task() loads profile in the workers: loaded before, so that the
  # CPU time of loading it is not counted from the workers' profiler start,
  # from which their samples are drawn)
  parallel::clusterCall(cl, loadNamespace, "profile")
  x <- profile_record(
    {
      before_part()
      span$delay <- run_queue_times()
      span$start <- as.numeric(Sys.time())
      parallel::parLapply(cl, 1:2, profile_task(worker_busy))
      span$end <- as.numeric(Sys.time())
      span$delay <- call_delay(span$delay, run_queue_times())
      after_part()
    },
    interval = 0.01,
    memory = FALSE,
    workers = cl
  )
  list(x = x, start = span$start, end = span$end, tolerance = wait_tolerance(0.01, span$delay))
}

# How far (seconds) the wait found by profile_record()'s watch may lie from
# Sys.time() read just before and after the parallel call, on a machine as
# busy as it was. What moves them apart, measured during the call
# (`measured`, call_delay()): R's thread's own work between the clock and
# its wait (sending the tasks, taking their results) and its time ready to
# run but not running (a wait ends when the thread can run, the clock is
# read when it does); the watch's late readings. And what is not measured:
# the watch reads every 5 ms (a wait's edge is placed within the reading
# that holds it), and a sampling interval's margin. On a quiet machine about
# 20 ms; a load of ten on two cores has made the error near 40 ms, where
# a fixed 50 ms failed once.
wait_tolerance <- function(interval, measured) {
  interval + 0.005 + measured
}

# Per thread of this process: its time on a CPU, its time ready to run but
# waiting for a CPU and the number of times it ran (Linux's
# /proc/self/task/*/schedstat), and whether it is R's thread or the watch
# of profile_record() (src/rust/src/waits.rs names it "profile-waits");
# NULL where the system does not tell.
run_queue_times <- function() {
  dirs <- list.files("/proc/self/task", full.names = TRUE)
  stats <- lapply(dirs, function(dir) {
    stat <- tryCatch(scan(file.path(dir, "schedstat"), quiet = TRUE), error = function(e) NULL)
    name <- tryCatch(readLines(file.path(dir, "comm"), warn = FALSE), error = function(e) "")
    if (length(stat) < 3L) {
      return(NULL)
    }
    data.frame(
      thread = basename(dir), ran = stat[[1]] / 1e9, queued = stat[[2]] / 1e9, runs = stat[[3]],
      r = basename(dir) == as.character(Sys.getpid()), watch = identical(name, "profile-waits")
    )
  })
  stats <- do.call(rbind, stats)
  if (is.null(stats) || !any(stats$r)) NULL else stats
}

# What moved the wait and the clock apart between two readings of
# run_queue_times() (seconds): R's thread's time on a CPU and ready to run,
# and twice the watch thread's mean wait for a CPU per wake-up (by which its
# readings are late); 0 where the system does not tell.
call_delay <- function(before, after) {
  if (is.null(before) || is.null(after)) {
    return(0)
  }
  change <- function(thread, column) {
    a <- after[[column]][after$thread %in% thread]
    b <- before[[column]][before$thread %in% thread]
    if (length(a) == 1L && length(b) == 1L) a - b else 0
  }
  r <- after$thread[after$r]
  watch <- after$thread[after$watch]
  runs <- change(watch, "runs")
  watch_late <- if (runs > 0) 2 * change(watch, "queued") / runs else 0
  change(r, "ran") + change(r, "queued") + watch_late
}

# |actual - expected| <= within (times since the epoch: expect_equal()'s
# tolerance is relative).
expect_within <- function(actual, expected, within) {
  expect_lte(abs(actual - expected), within, label = sprintf("|%.3f - %.3f|", actual, expected))
}

# The waits "waiting for workers" of `waits` (start, end) that follow one
# another within 0.1 s as one: the main process wakes between them to take a
# worker's result.
joined_waits <- function(start, end) {
  o <- order(start)
  start <- start[o]
  end <- end[o]
  group <- cumsum(c(TRUE, start[-1L] - end[-length(end)] > 0.1))
  data.frame(start = tapply(start, group, min), end = tapply(end, group, max))
}

local_waiting_recording <- local({
  made <- NULL
  function() {
    skip_on_os("windows")
    skip_on_cran()
    if (is.null(made)) made <<- waiting_recording()
    made
  }
})

# The wait of the main process during the parallel call of the recording `r`
# (the waits that follow one another within 0.1 s joined, that overlap the
# call and last more than 0.3 s).
long_wait <- function(start, end, r) {
  joined <- joined_waits(start, end)
  joined[joined$end - joined$start > 0.3 & joined$start < r$end & joined$end > r$start, ,
    drop = FALSE
  ]
}
