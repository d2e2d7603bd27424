# profile_record() of parallel code: one source per R process (PSOCK
# workers started inside expr or given with `workers`), with real
# processes. The oracles: the CPU time each worker measured itself with
# proc.time(), and R's summaryRprof() of each process's Rprof file (kept with
# `file = ` a folder). Helpers in helper-workers.R.

test_that("a PSOCK cluster started inside expr is profiled; the user's startup file still runs", {
  f <- parallel_functions()
  worker_part <- f$worker_part
  main_part <- f$main_part
  n <- work_size(0.6)
  interval <- 0.008
  # the user's own startup file, which R_PROFILE_USER names
  home <- withr::local_tempdir()
  user_profile <- file.path(home, "user-profile.R")
  writeLines("options(profile.test.user_startup = 'ran')", user_profile)
  withr::local_envvar(R_PROFILE_USER = user_profile)
  before <- workers_dirs()
  x <- profile_record(
    {
      cl <- parallel::makePSOCKcluster(2)
      startup <- parallel::clusterCall(cl, getOption, "profile.test.user_startup")
      results <- parallel::clusterApply(cl, c(n, n), worker_part)
      parallel::stopCluster(cl)
      main_part(n / 4)
    },
    interval = interval
  )
  expect_identical(startup, list("ran", "ran"))
  expect_silent(validate_profile(x))
  expect_worker_times(x, results, interval)
  expect_identical(Sys.getenv("R_PROFILE_USER"), user_profile)
  expect_identical(workers_dirs(), before)
  # no task of profile_task(): no tasks
  expect_identical(nrow(dm::dm_get_tables(x)$tasks), 0L)
})

test_that("a PSOCK cluster stopped inside expr: the kept files, complete, read alone agree", {
  f <- parallel_functions()
  worker_part <- f$worker_part
  main_part <- f$main_part
  n <- work_size(0.4)
  interval <- 0.008
  dir <- withr::local_tempdir()
  x <- profile_record(
    {
      cl <- parallel::makePSOCKcluster(2)
      results <- parallel::clusterApply(cl, c(n, n), worker_part)
      parallel::stopCluster(cl)
      main_part(n / 4)
    },
    interval = interval,
    file = dir
  )
  expect_silent(validate_profile(x))
  expect_worker_times(x, results, interval)
  # one Rprof file per process kept in the folder, nothing else (the workers'
  # descriptions and the files that say their profilers stopped are removed)
  files <- list.files(dir)
  pids <- vapply(results, function(r) r$pid, integer(1))
  expect_setequal(
    sub("-[0-9]+[.]out$", "", setdiff(files, "rprof-main.out")), paste0("rprof-", pids)
  )
  expect_true("rprof-main.out" %in% files)
  # summaryRprof() of each worker's file, which its process completed before
  # the recording read it: the totals of its source
  sources <- dm::dm_get_tables(x, keyed = FALSE)$sources
  for (file in file.path(dir, setdiff(files, "rprof-main.out"))) {
    pid <- sources$process_id[sources$source_uri == file]
    oracle <- utils::summaryRprof(file)$by.total
    for (name in c("worker_spin", "spin")) {
      expect_equal(seconds_with(x, name)[[as.character(pid)]],
        oracle[paste0('"', name, '"'), "total.time"],
        label = paste(name, "in", basename(file))
      )
    }
  }
})

test_that("workers = cl profiles a cluster made before, and only while recording", {
  f <- parallel_functions()
  worker_part <- f$worker_part
  main_part <- f$main_part
  n <- work_size(0.6)
  interval <- 0.008
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  x <- profile_record(
    {
      results <- parallel::clusterApply(cl, c(n, n), worker_part)
      main_part(n / 4)
    },
    interval = interval,
    workers = cl
  )
  expect_silent(validate_profile(x))
  expect_worker_times(x, results, interval)
  # the nodes' profilers are stopped, and their environment set back
  running <- parallel::clusterCall(cl, function() profile:::profiler_running())
  expect_identical(running, list(FALSE, FALSE))
  env <- parallel::clusterCall(cl, Sys.getenv, "PROFILE_RECORD_WORKERS")
  expect_identical(env, list("", ""))
  expect_error(profile_record(1, workers = "cl"), class = "profile_error_argument")
  # a main process that only waits for its workers took no sample, but the
  # recording has the workers': no warning that it has none
  expect_no_warning(
    y <- profile_record(parallel::clusterApply(cl, c(n, n) / 4, worker_part),
      interval = interval, workers = cl
    ),
    class = "profile_warning_no_samples"
  )
  expect_gt(nrow(dm::dm_get_tables(y)$samples), 0L)
  # and without any sample at all it warns (an interval of 0.5 s of CPU time:
  # starting and stopping the nodes' profilers around a call that does next to
  # nothing cannot reach it, even on a loaded machine, where 0.01 s once did)
  expect_warning(
    profile_record(parallel::clusterCall(cl, Sys.getpid), interval = 0.5, workers = cl),
    class = "profile_warning_no_samples"
  )
})

test_that("workers = cl: the nodes, which stay alive, are not waited for", {
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  # a node's Rprof file is complete once its profiler is stopped: the
  # recording need not wait for the node's process to end (which it never
  # does while the cluster runs; the wait's timeout is 2 s)
  elapsed <- system.time(suppressWarnings(
    profile_record(parallel::clusterCall(cl, Sys.getpid), workers = cl)
  ))[["elapsed"]]
  expect_lt(elapsed, 2)
})

test_that("a node whose profiler stopped is complete while it lives; a zombie has ended", {
  # (what the test above bounds in time, without a clock: the nodes live on,
  # and their files count as complete once each has said its profiler stopped)
  skip_on_os("windows")
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  dir <- withr::local_tempdir()
  write.dcf(
    data.frame(interval = 0.01, memory = FALSE, line = FALSE, gc = FALSE),
    file.path(dir, "settings.dcf")
  )
  parallel::clusterCall(cl, profile:::detached_function(profile:::worker_profiler_start), dir)
  processes <- profile:::recorded_processes(dir)
  expect_identical(nrow(processes), 2L)
  expect_false(profile:::wait_for_workers(processes, dir, timeout = 0))
  parallel::clusterCall(cl, profile:::detached_function(profile:::worker_profiler_stop))
  expect_true(all(vapply(as.integer(processes$pid), profile:::process_alive, TRUE)))
  expect_true(profile:::wait_for_workers(processes, dir, timeout = 0))

  skip_if_not(file.exists(file.path("/proc", Sys.getpid(), "stat")), "no /proc")
  # (a child that ends without sending its result stays a zombie until
  # collected; signal 0 still reaches it)
  job <- parallel::mcparallel(tools::pskill(Sys.getpid(), tools::SIGKILL), silent = TRUE)
  on.exit(suppressWarnings(parallel::mccollect(job)), add = TRUE)
  state <- function() {
    sub("^.*[)] ([A-Za-z]).*$", "\\1", readLines(file.path("/proc", job$pid, "stat")))
  }
  for (i in 1:500) if (state() != "Z") Sys.sleep(0.02)
  expect_identical(state(), "Z")
  expect_true(isTRUE(tools::pskill(job$pid, 0L)))
  expect_false(profile:::process_alive(job$pid))
})
