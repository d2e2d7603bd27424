# profile_record() of parallel code: one source per R process (forked
# children through profile_task(), callr), with real
# processes. The oracles: the CPU time each worker measured itself with
# proc.time(), and R's summaryRprof() of each process's Rprof file (kept with
# `file = ` a folder). Helpers in helper-workers.R.

test_that("mclapply() through profile_task(): a source per child, its time its own CPU time", {
  skip_on_os("windows")
  f <- parallel_functions()
  worker_part <- f$worker_part
  main_part <- f$main_part
  n <- work_size(0.6)
  interval <- 0.008
  before <- workers_dirs()
  x <- profile_record(
    {
      results <- parallel::mclapply(c(n, n), profile_task(worker_part),
        mc.cores = 2, mc.preschedule = FALSE
      )
      main_part(n / 4)
    },
    interval = interval
  )
  expect_silent(validate_profile(x))
  expect_false(profiler_running())
  expect_identical(workers_dirs(), before)
  expect_identical(Sys.getenv("PROFILE_RECORD_WORKERS"), "")
  expect_worker_times(x, results, interval)
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  expect_identical(tables$sources$source_type, rep("rprof", 3L))
  # the tasks: one per call, in the worker that ran it, within the recording
  tasks <- tables$tasks
  expect_identical(nrow(tasks), 2L)
  expect_setequal(
    tables$sources$process_id[match(tasks$source_id, tables$sources$source_id)],
    vapply(results, function(r) r$pid, integer(1))
  )
  expect_true(all(tasks$status == "ok"))
  expect_true(all(tasks$end_time >= tasks$start_time))
  main <- tables$sources[tables$sources$process_role == "main", ]
  expect_true(all(tasks$start_time >= main$source_timestamp))
  expect_true(all(tasks$end_time <= main$source_timestamp + main$duration_nanos / 1e9 + 0.5))
  # every process counts in the summary, each its share by process: the
  # sum of its samples' time in the tables, and the workers' at least the
  # time of their task's function
  by_process <- profile_summary(x, by = "process", n = Inf)
  expect_identical(nrow(by_process), 3L)
  ticks <- tables$sample_values[tables$sample_values$type == "samples", ]
  source <- tables$samples$source_id[match(ticks$sample_id, tables$samples$sample_id)]
  period <- tables$sources$period[match(source, tables$sources$source_id)] / 1e9
  expected <- tapply(ticks$value * period, source, sum)
  row <- match(names(expected), as.character(by_process$source_id))
  expect_equal(by_process$self[row], as.numeric(expected))
  # (percentages of the whole recording, the samples before `expr` included,
  # unless relative_percentages)
  relative <- profile_summary(x, by = "process", n = Inf, relative_percentages = TRUE)
  expect_equal(sum(relative$self_pct), 100)
  spin <- seconds_with(x, "worker_spin")
  pid <- tables$sources$process_id[match(by_process$source_id, tables$sources$source_id)]
  for (r in results) {
    expect_gte(by_process$self[pid == r$pid], spin[[as.character(r$pid)]])
    expect_match(by_process$label[pid == r$pid], paste0("^worker ", r$pid, " on "))
  }
})

test_that("the main process's Rprof file gets no copy of its samples from a forked child", {
  # A forked child inherits the main recording's open file with its unwritten
  # buffer, which the child's first Rprof() would write a second time (an
  # incomplete line, and the main's last samples counted twice).
  skip_on_os("windows")
  f <- parallel_functions()
  worker_part <- f$worker_part
  main_part <- f$main_part
  n <- work_size(0.6)
  interval <- 0.008
  dir <- withr::local_tempdir()
  x <- profile_record(
    {
      clock <- proc.time()
      main_part(n)
      used <- proc.time() - clock
      parallel::mclapply(c(n, n) / 8, profile_task(worker_part), mc.cores = 2)
    },
    interval = interval,
    file = dir,
    memory = FALSE,
    line = FALSE
  )
  expect_no_warning(read_rprof(file.path(dir, "rprof-main.out")))
  seconds <- seconds_with(x, "main_part")[[as.character(Sys.getpid())]]
  expect_gte(seconds / interval, 40)
  expect_equal(seconds, sum(used[c("user.self", "sys.self")]), tolerance = 0.25)
})

test_that("a callr process through profile_task(), and the kept files read alone agree", {
  skip_if_not_installed("callr")
  f <- parallel_functions()
  worker_part <- f$worker_part
  main_part <- f$main_part
  n <- work_size(0.6)
  interval <- 0.008
  dir <- withr::local_tempdir()
  x <- profile_record(
    {
      result <- callr::r(profile_task(worker_part), args = list(n))
      main_part(n / 4)
    },
    interval = interval,
    file = dir
  )
  expect_silent(validate_profile(x))
  expect_false(profiler_running())
  expect_worker_times(x, list(result), interval)
  # one Rprof file per process kept in the folder, nothing else
  files <- list.files(dir)
  expect_length(files, 2L)
  expect_true("rprof-main.out" %in% files)
  expect_match(setdiff(files, "rprof-main.out"), paste0("^rprof-", result$pid, "-[0-9]+[.]out$"))
  # summaryRprof() of each file: the totals of its source
  sources <- dm::dm_get_tables(x, keyed = FALSE)$sources
  for (file in file.path(dir, files)) {
    pid <- sources$process_id[sources$source_uri == file]
    oracle <- utils::summaryRprof(file)$by.total
    recorded <- gsub('"', "", rownames(oracle))
    named <- intersect(c("worker_part", "worker_spin", "main_part", "spin"), recorded)
    for (name in named) {
      expected <- oracle[paste0('"', name, '"'), "total.time"]
      expect_equal(seconds_with(x, name)[[as.character(pid)]], expected,
        label = paste(name, "in", basename(file))
      )
    }
  }
})

test_that("profile_task(f) is f outside a recording and in the recording process", {
  f <- function(a, b = 2) a + b
  expect_identical(profile_task(f)(1), 3)
  x <- profile_record({
    v <- vapply(1:3, profile_task(f), numeric(1), b = 1)
    s <- sum(sort(runif(2e6)))
  })
  expect_identical(v, c(2, 3, 4))
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  expect_identical(nrow(tables$sources), 1L)
  expect_identical(tables$sources$process_role, "main")
  # three tasks, in the main process
  expect_identical(nrow(tables$tasks), 3L)
})
