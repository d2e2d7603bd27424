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
  # and without any sample at all it warns
  expect_warning(
    profile_record(parallel::clusterCall(cl, Sys.getpid), workers = cl),
    class = "profile_warning_no_samples"
  )
})
