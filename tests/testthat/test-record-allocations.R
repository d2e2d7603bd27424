# profile_record(allocations = TRUE): Rprofmem() beside Rprof(), its
# allocations a second source cut as the time samples are; a running
# Rprofmem() refused; both profilers stopped and their files removed on an
# error or an interrupt. The oracle of the bytes is profmem::profmem() of the
# same code.

skip_if_no_profmem <- function() {
  if (!isTRUE(capabilities("profmem"))) {
    skip("this R was built without Rprofmem()")
  }
}

allocation_files <- function() {
  list.files(tempdir(), pattern = "^profile-record-.*[.](out|rprofmem)$")
}

# A function with source references that allocates 8 x 10^6 bytes at once,
# `times` times.
big_allocator <- function() {
  env <- new.env()
  eval(parse(text = c(
    "allocate_big <- function(times) {",
    "  for (i in seq_len(times)) v <- numeric(1e6)",
    "  length(v)",
    "}"
  ), keep.source = TRUE), env)
  env$allocate_big
}

# `expr`, without the warning that it ran too briefly for a time sample
# (these tests judge the allocations).
without_time_samples_warning <- function(expr) {
  withCallingHandlers(expr, profile_warning_no_samples = function(w) invokeRestart("muffleWarning"))
}

# The name of each frame of each sample of `source`, innermost first.
stacks_of_source <- function(x, source) {
  t <- dm::dm_get_tables(x)
  ids <- t$samples$sample_id[t$samples$source_id == source]
  sl <- t$sample_locations[t$sample_locations$sample_id %in% ids, ]
  sl <- sl[order(sl$sample_id, sl$depth), ]
  fun <- t$locations$function_id[match(sl$location_id, t$locations$location_id)]
  name <- t$functions$name[match(fun, t$functions$function_id)]
  split(name, factor(sl$sample_id, levels = ids))
}

test_that("allocations are a second source: 8e6 bytes in their own frame, as profmem sees them", {
  skip_if_no_profmem()
  skip_if_not_installed("profmem")
  allocate_big <- big_allocator()
  x <- profile_record(allocate_big(60), interval = 0.005, allocations = TRUE)
  expect_silent(validate_profile(x))
  t <- dm::dm_get_tables(x)
  expect_identical(t$sources$source_type, c("rprof", "rprofmem"))
  memory <- t$sources$source_id[t$sources$source_type == "rprofmem"]
  # the oracle: profmem's record of one such allocation
  theirs <- profmem::profmem(numeric(1e6))
  one <- max(theirs$bytes, na.rm = TRUE)
  expect_gte(one, 8e6)
  summary <- profile_summary(x, type = "alloc_space", n = Inf)
  expect_gte(summary$total[summary$name == "allocate_big"], 60 * one)
  # each of the 60 allocations is a sample in the function's frame (under
  # the builtin numeric(), which R lists while Rprof() runs)
  stacks <- stacks_of_source(x, memory)
  sv <- t$sample_values[t$sample_values$type == "alloc_space", ]
  bytes <- sv$value[match(as.integer(names(stacks)), sv$sample_id)]
  in_frame <- c("allocate_big", "<top level>")
  big <- vapply(stacks, function(s) identical(s[s != "numeric"], in_frame), NA)
  expect_identical(sum(big & bytes == one), 60L)
  # the caller's frames are cut off: every stack ends at the top level
  outermost <- vapply(stacks, function(s) s[[length(s)]], "")
  expect_true(all(outermost == "<top level>"))
  expect_false(any(c("profile_record", "eval", "test_that") %in% unlist(stacks)))
  # one functions row for allocate_big (with its file), used by both sources
  row <- t$functions[t$functions$name == "allocate_big", ]
  expect_identical(nrow(row), 1L)
  expect_identical(row$filename, "<text>")
  used_by <- unique(t$samples$source_id[t$samples$sample_id %in% t$sample_locations$sample_id[
    t$sample_locations$location_id %in% t$locations$location_id[
      t$locations$function_id == row$function_id
    ]
  ]])
  expect_setequal(used_by, t$sources$source_id)
  top <- t$functions$function_id[t$functions$name == "<top level>"]
  expect_length(top, 1L)
})

test_that("called as profile::profile_record(), the caller's frames are cut off too", {
  skip_if_no_profmem()
  allocate_big <- big_allocator()
  x <- without_time_samples_warning(
    (function() profile::profile_record(allocate_big(3), allocations = TRUE))()
  )
  t <- dm::dm_get_tables(x)
  stacks <- stacks_of_source(x, t$sources$source_id[t$sources$source_type == "rprofmem"])
  expect_gte(length(stacks), 3L)
  outermost <- vapply(stacks, function(s) s[[length(s)]], "")
  expect_true(all(outermost == "<top level>"))
  expect_false(any(c("profile_record", "eval", "test_that") %in% unlist(stacks)))
  in_frame <- c("allocate_big", "<top level>")
  big <- vapply(stacks, function(s) identical(s[s != "numeric"], in_frame), NA)
  expect_identical(sum(big), 3L)
})

test_that("a threshold records only the larger vectors and turns allocations on", {
  skip_if_no_profmem()
  x <- without_time_samples_warning(profile_record(
    {
      small <- lapply(1:200, function(i) numeric(100))
      large <- numeric(1e5)
    },
    threshold = 5e5
  ))
  t <- dm::dm_get_tables(x)
  expect_identical(t$sources$source_type, c("rprof", "rprofmem"))
  memory <- t$samples$sample_id[t$samples$source_id == 2L]
  pages <- t$sample_labels$sample_id[t$sample_labels$value == "new page"]
  sv <- t$sample_values[t$sample_values$type == "alloc_space" &
    t$sample_values$sample_id %in% setdiff(memory, pages), ]
  expect_true(all(sv$value > 5e5))
  y <- without_time_samples_warning(profile_record(numeric(1e5), threshold = 0))
  expect_identical(dm::dm_get_tables(y)$sources$source_type, "rprof")
})

test_that("a running Rprofmem() is refused with a classed error, and left running", {
  skip_if_no_profmem()
  skip_on_os(c("windows", "mac"))
  theirs <- withr::local_tempfile(fileext = ".out")
  utils::Rprofmem(theirs)
  on.exit(utils::Rprofmem(NULL), add = TRUE)
  before <- allocation_files()
  expect_profile_error(profile_record(sum(1:10), allocations = TRUE), "busy")
  expect_false(profiler_running())
  expect_identical(allocation_files(), before)
  # theirs still records, into its own file
  size <- file.size(theirs)
  keep <- numeric(2e5)
  utils::Rprofmem(NULL)
  expect_gt(file.size(theirs), size)
  expect_false(rprofmem_running())
  expect_s3_class(without_time_samples_warning(profile_record(sum(1:10), allocations = TRUE)), "dm")
})

test_that("ticks of a running Rprof() inside the probe are not taken for an Rprofmem()", {
  # profile_record() starts Rprof() before it looks for an Rprofmem(): a tick
  # in the probe writes the probe's stack into the Rprof() file (a false
  # "busy" under load, seen on CI)
  skip_if_no_profmem()
  skip_on_os(c("windows", "mac"))
  for (memory in c(FALSE, TRUE)) {
    ticks <- withr::local_tempfile(fileext = ".out")
    utils::Rprof(ticks, interval = 0.001, memory.profiling = memory)
    seen <- logical()
    probed <- FALSE
    while (!probed && length(seen) < 2000L) {
      seen <- c(seen, rprofmem_running())
      lines <- readLines(ticks, warn = FALSE)
      probed <- any(grepl("\"profile_rprofmem_probe\"", lines, fixed = TRUE))
    }
    utils::Rprof(NULL)
    expect_true(probed)
    expect_false(any(seen))
  }
  # and a real Rprofmem() line of the probe is still found
  theirs <- withr::local_tempfile(fileext = ".out")
  utils::Rprofmem(theirs)
  found <- rprofmem_running()
  utils::Rprofmem(NULL)
  expect_true(found)
})

test_that("an error or an interrupt stops both profilers and removes their files", {
  skip_if_no_profmem()
  skip_on_os(c("windows", "mac"))
  before <- allocation_files()
  err <- tryCatch(
    profile_record(
      {
        x <- numeric(1e5)
        stop("boom inside")
      },
      allocations = TRUE
    ),
    error = function(e) e
  )
  expect_identical(conditionMessage(err), "boom inside")
  expect_false(profiler_running())
  expect_false(rprofmem_running())
  expect_identical(allocation_files(), before)
  interrupted <- tryCatch(
    profile_record(
      {
        x <- numeric(1e5)
        rlang::interrupt()
      },
      allocations = TRUE
    ),
    interrupt = function(i) TRUE
  )
  expect_true(interrupted)
  expect_false(profiler_running())
  expect_false(rprofmem_running())
  expect_identical(allocation_files(), before)
})

test_that("bad allocation arguments are refused, and nothing is left running", {
  expect_profile_error(profile_record(1, allocations = NA), "argument")
  expect_profile_error(profile_record(1, allocations = "yes"), "argument")
  expect_profile_error(profile_record(1, threshold = -1), "argument")
  expect_profile_error(profile_record(1, threshold = c(1, 2)), "argument")
  expect_profile_error(profile_record(1, threshold = Inf), "argument")
  expect_false(profiler_running())
  expect_false(rprofmem_running())
})
