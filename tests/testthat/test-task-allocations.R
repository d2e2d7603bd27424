# profile_record(allocations = TRUE) of parallel code: R's allocation profiler
# keeps running in a forked child, which wrote into the main process's
# Rprofmem file (garbled lines: the recording failed). Real forks, a callr
# process and a PSOCK cluster; the oracle for each process is what it
# allocated (numeric(n): 8 n bytes) and the format of R's Rprofmem lines.

# Functions in an environment of their own (forks and workers get them):
# `worker_alloc` allocates 5 vectors of 2e5 doubles (8e6 bytes),
# `main_alloc` one of 1e6 doubles (8e6 bytes).
allocation_functions <- function() {
  env <- new.env(parent = globalenv())
  local(envir = env, {
    worker_alloc <- function(i) {
      for (k in 1:5) v <- numeric(2e5)
      Sys.getpid()
    }
    main_alloc <- function() {
      z <- numeric(1e6)
      length(z)
    }
  })
  env
}

# The bytes of alloc_space per process id of the "rprofmem" sources in
# samples whose stack has a frame of `name`.
bytes_with <- function(x, name) {
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  fid <- tables$functions$function_id[tables$functions$name == name]
  lid <- tables$locations$location_id[tables$locations$function_id %in% fid]
  samples <- unique(tables$sample_locations$sample_id[tables$sample_locations$location_id %in% lid])
  values <- tables$sample_values[tables$sample_values$type == "alloc_space" &
    tables$sample_values$sample_id %in% samples, ]
  source <- tables$samples$source_id[match(values$sample_id, tables$samples$sample_id)]
  pid <- tables$sources$process_id[match(source, tables$sources$source_id)]
  out <- tapply(values$value, pid, sum)
  stats::setNames(as.numeric(out), names(out))
}

# Records `expr` with allocations, keeping a copy of the main process's
# Rprofmem file (removed by profile_record()) in `copy`.
record_keeping_rprofmem <- function(expr, copy, ...) {
  # (testthat here has no local_mocked_bindings(): a trace of the
  # namespace's function, before it stops the profiler and removes the file)
  tracer <- bquote({
    if (!is.null(allocations) && !file.exists(.(copy))) {
      utils::Rprofmem(NULL)
      file.copy(allocations$path, .(copy))
    }
  })
  suppressMessages(trace("stop_allocations",
    tracer = tracer, where = asNamespace("profile"), print = FALSE
  ))
  on.exit(suppressMessages(untrace("stop_allocations", where = asNamespace("profile"))))
  profile_record(expr, allocations = TRUE, ...)
}

# Every line of an Rprofmem file as R writes it: a size or `new page`, then
# quoted function names.
expect_rprofmem_lines <- function(path) {
  lines <- readLines(path)
  expect_gt(length(lines), 0L)
  garbled <- lines[!grepl('^([0-9]+ :|new page:)("[^"]*" )*$', lines)]
  expect_identical(garbled, character())
}

test_that("forked children through profile_task(): each records its own allocations", {
  skip_on_os("windows")
  f <- allocation_functions()
  worker_alloc <- f$worker_alloc
  main_alloc <- f$main_alloc
  copy <- withr::local_tempfile()
  x <- record_keeping_rprofmem(
    {
      pids <- parallel::mclapply(1:2, profile_task(worker_alloc), mc.cores = 2)
      main_alloc()
    },
    copy = copy
  )
  expect_silent(validate_profile(x))
  expect_rprofmem_lines(copy)
  pids <- unlist(pids)
  sources <- dm::dm_get_tables(x, keyed = FALSE)$sources
  memory <- sources[sources$source_type == "rprofmem", ]
  expect_setequal(memory$process_id, c(Sys.getpid(), pids))
  # each process's allocations in its own source only
  main <- bytes_with(x, "main_alloc")
  expect_identical(names(main), as.character(Sys.getpid()))
  expect_gte(main[[1L]], 8e6)
  expect_lt(main[[1L]], 8e6 + 1e4)
  workers <- bytes_with(x, "worker_alloc")
  expect_setequal(names(workers), as.character(pids))
  expect_true(all(workers >= 8e6 & workers < 8e6 + 1e5))
  # the workers' stacks start at the top level, their machinery cut off
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  in_workers <- tables$samples$sample_id[tables$samples$source_id %in%
    memory$source_id[memory$process_role == "worker"]]
  rows <- tables$sample_locations[tables$sample_locations$sample_id %in% in_workers, ]
  fid <- tables$locations$function_id[match(rows$location_id, tables$locations$location_id)]
  rows$name <- tables$functions$name[match(fid, tables$functions$function_id)]
  expect_false(any(rows$name %in% c("mclapply", "run_recorded_task", "task_entry")))
  outermost <- rows[rows$depth == stats::ave(rows$depth, rows$sample_id, FUN = max), ]
  expect_true(all(outermost$name == "<top level>"))
})

test_that("plain mclapply() with allocations: the children write nothing into the main file", {
  skip_on_os("windows")
  f <- allocation_functions()
  worker_alloc <- f$worker_alloc
  main_alloc <- f$main_alloc
  copy <- withr::local_tempfile()
  x <- record_keeping_rprofmem(
    {
      pids <- parallel::mclapply(1:2, worker_alloc, mc.cores = 2)
      main_alloc()
    },
    copy = copy
  )
  expect_silent(validate_profile(x))
  expect_rprofmem_lines(copy)
  expect_false(any(grepl('"worker_alloc"', readLines(copy), fixed = TRUE)))
  sources <- dm::dm_get_tables(x, keyed = FALSE)$sources
  expect_identical(sources$process_id, rep(Sys.getpid(), 2L))
  main <- bytes_with(x, "main_alloc")
  expect_gte(main[[1L]], 8e6)
  expect_lt(main[[1L]], 8e6 + 1e4)
  expect_length(bytes_with(x, "worker_alloc"), 0L)
})

test_that("a callr process through profile_task() records its allocations", {
  skip_if_not_installed("callr")
  f <- allocation_functions()
  worker_alloc <- f$worker_alloc
  main_alloc <- f$main_alloc
  x <- profile_record(
    {
      pid <- callr::r(profile_task(worker_alloc), args = list(1))
      main_alloc()
    },
    allocations = TRUE
  )
  expect_silent(validate_profile(x))
  workers <- bytes_with(x, "worker_alloc")
  expect_identical(names(workers), as.character(pid))
  expect_true(workers >= 8e6 && workers < 8e6 + 1e5)
  expect_identical(names(bytes_with(x, "main_alloc")), as.character(Sys.getpid()))
})

test_that("a PSOCK cluster with allocations: time from the workers, allocations from main", {
  skip_on_cran()
  f <- allocation_functions()
  worker_alloc <- f$worker_alloc
  main_alloc <- f$main_alloc
  copy <- withr::local_tempfile()
  x <- record_keeping_rprofmem(
    {
      cl <- parallel::makePSOCKcluster(2)
      pids <- parallel::parLapply(cl, 1:2, worker_alloc)
      parallel::stopCluster(cl)
      main_alloc()
    },
    copy = copy
  )
  expect_silent(validate_profile(x))
  expect_rprofmem_lines(copy)
  sources <- dm::dm_get_tables(x, keyed = FALSE)$sources
  # (the workers' profilers run from their start: their allocations are not
  # recorded, as ?profile_record says)
  expect_identical(sources$process_id[sources$source_type == "rprofmem"], Sys.getpid())
  expect_setequal(sources$process_id[sources$process_role == "worker"], unlist(pids))
  expect_gte(bytes_with(x, "main_alloc")[[1L]], 8e6)
})
