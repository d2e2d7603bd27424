# profile_record() of parallel code leaves nothing behind: an error in a
# worker, an interrupt of the main process, a worker that dies. Helpers in
# helper-workers.R.

test_that("an error in a worker: its task ends in error, nothing left running or written", {
  skip_on_os("windows")
  f <- parallel_functions()
  worker_part <- f$worker_part
  main_part <- f$main_part
  n <- work_size(0.1)
  before <- workers_dirs()
  failing <- function(n) {
    f$spin(n)
    stop("boom in a worker")
  }
  # in forked children: mclapply() returns the error, the recording goes on
  # (a loaded machine delivers fewer ticks: the under-count warning then, which
  # test-record.R judges, is not this test's)
  expect_warning(
    withCallingHandlers(
      x <- profile_record(
        results <- parallel::mclapply(c(n, n), profile_task(failing), mc.cores = 2)
      ),
      profile_warning_under_counted = function(w) invokeRestart("muffleWarning")
    ),
    "encountered errors"
  )
  expect_true(all(vapply(results, inherits, logical(1), "try-error")))
  tasks <- dm::dm_get_tables(x)$tasks
  expect_identical(tasks$status, c("error", "error"))
  expect_identical(workers_dirs(), before)
  # in a cluster given: the error is raised again, the nodes' profilers stopped
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  expect_error(
    profile_record(parallel::clusterApply(cl, c(n, n), failing), workers = cl),
    "boom in a worker"
  )
  running <- parallel::clusterCall(cl, function() profile:::profiler_running())
  expect_identical(running, list(FALSE, FALSE))
  expect_false(profiler_running())
  expect_identical(workers_dirs(), before)
  expect_identical(Sys.getenv("PROFILE_RECORD_WORKERS"), "")
})

test_that("an interrupt of the main process stops every profiler and removes every file", {
  f <- parallel_functions()
  worker_part <- f$worker_part
  main_part <- f$main_part
  n <- work_size(0.1)
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  profile_before <- Sys.getenv("R_PROFILE_USER", unset = NA)
  before <- workers_dirs()
  interrupted <- tryCatch(
    profile_record(
      {
        parallel::clusterApply(cl, c(n, n), worker_part)
        rlang::interrupt()
      },
      workers = cl
    ),
    interrupt = function(i) TRUE
  )
  expect_true(interrupted)
  running <- parallel::clusterCall(cl, function() profile:::profiler_running())
  expect_identical(running, list(FALSE, FALSE))
  expect_false(profiler_running())
  expect_identical(workers_dirs(), before)
  expect_identical(Sys.getenv("R_PROFILE_USER", unset = NA), profile_before)
  expect_identical(Sys.getenv("PROFILE_RECORD_WORKERS"), "")
})

test_that("a worker that dies during its task loses its own samples only, named in a warning", {
  skip_on_os("windows")
  f <- parallel_functions()
  worker_part <- f$worker_part
  main_part <- f$main_part
  n <- work_size(0.3)
  dying <- function(n) {
    f$spin(n)
    tools::pskill(Sys.getpid(), tools::SIGKILL)
  }
  warnings <- list()
  x <- withCallingHandlers(
    profile_record(
      {
        job <- parallel::mcparallel(profile_task(dying)(n))
        parallel::mccollect(job)
        main_part(n / 2)
      },
      interval = 0.008
    ),
    warning = function(w) {
      warnings[[length(warnings) + 1L]] <<- w
      invokeRestart("muffleWarning")
    }
  )
  lost <- Filter(function(w) inherits(w, "profile_warning_worker_lost"), warnings)
  expect_length(lost, 1L)
  expect_match(conditionMessage(lost[[1]]), paste("process", job$pid), fixed = TRUE)
  # what the worker wrote before it died (R's buffer of the file is lost)
  sources <- dm::dm_get_tables(x)$sources
  expect_true(all(sources$process_id[sources$process_role == "worker"] == job$pid))
  # the main process's samples are all there
  expect_gt(seconds_with(x, "main_part")[[as.character(Sys.getpid())]], 0)
})
