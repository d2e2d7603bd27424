# profile_record() of code parallelised with future's backends, with real
# processes: `multisession` (PSOCK workers that parallelly starts, reached
# through R_PROFILE_USER without any change to the user's code) and
# `multicore` (forked children, reached through profile_task()). The oracle:
# the CPU time each worker measured itself with proc.time(). Helpers in
# helper-workers.R.

test_that("future's multisession workers are profiled without a change to the code", {
  skip_on_os("windows")
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  f <- parallel_functions()
  worker_part <- f$worker_part
  main_part <- f$main_part
  n <- work_size(0.8)
  interval <- 0.008
  before <- workers_dirs()
  withr::defer(future::plan(future::sequential))
  x <- profile_record(
    {
      future::plan(future::multisession, workers = 2)
      results <- future.apply::future_lapply(c(n, n), worker_part, future.scheduling = 1)
      # the workers end here, so that their files are complete
      future::plan(future::sequential)
      main_part(n / 4)
    },
    interval = interval
  )
  expect_silent(validate_profile(x))
  expect_false(profiler_running())
  expect_identical(workers_dirs(), before)
  expect_identical(Sys.getenv("PROFILE_RECORD_WORKERS"), "")
  expect_worker_times(x, results, interval, machinery = "future")
})

test_that("future's multicore children are profiled through profile_task()", {
  skip_on_os("windows")
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  skip_if_not(parallelly::supportsMulticore(), "forked processes are not supported here")
  f <- parallel_functions()
  worker_part <- f$worker_part
  main_part <- f$main_part
  n <- work_size(0.8)
  interval <- 0.008
  before <- workers_dirs()
  withr::defer(future::plan(future::sequential))
  future::plan(future::multicore, workers = 2)
  x <- profile_record(
    {
      results <- future.apply::future_lapply(c(n, n), profile_task(worker_part),
        future.scheduling = Inf
      )
      main_part(n / 4)
    },
    interval = interval
  )
  expect_silent(validate_profile(x))
  expect_false(profiler_running())
  expect_identical(workers_dirs(), before)
  expect_worker_times(x, results, interval, machinery = "future")
  # a task per call, each in the child that ran it
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  expect_identical(nrow(tables$tasks), 2L)
  expect_setequal(
    tables$sources$process_id[match(tables$tasks$source_id, tables$sources$source_id)],
    vapply(results, function(r) r$pid, integer(1))
  )
  expect_true(all(tables$tasks$status == "ok"))
})
