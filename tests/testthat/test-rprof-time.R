# samples$time: seconds from the start of each sample's source (Rprof), NA where
# the format has no time.

# The time of each stack line of an Rprof file, from its text alone: the k-th
# stack line of a segment (from 0) is at k times the header's interval.
rprof_line_times <- function(path) {
  unname(unlist(lapply(rprof_segments(path), function(s) {
    interval_us <- as.numeric(sub("^.*sample\\.interval=", "", s$header))
    (seq_along(s$stack) - 1) * interval_us / 1e6
  })))
}

test_that("Rprof samples are at (i - 1) * interval of their segment", {
  for (file in rprof_sample_files) {
    path <- sample_path("rprof", file)
    x <- suppressWarnings(read_rprof(path))
    time <- dm::dm_get_tables(x)$samples$time
    expect_type(time, "double")
    expect_identical(time, rprof_line_times(path), info = file)
  }
  # three segments, with 2, 5 and 10 ms between ticks
  time <- dm::dm_get_tables(read_rprof(sample_path("rprof", "append.out")))$samples$time
  expect_identical(sum(time == 0), 3L)
})

test_that("large files, read in chunks on several threads, have the same times", {
  # Over 2 MB: read in chunks; two segments, the second starting in a later chunk.
  path <- withr::local_tempfile(fileext = ".out")
  first <- rep('"f" "g" "main" ', 80000)
  second <- rep(':10:20:30:0:"h" "main" ', 50000)
  writeLines(
    c("sample.interval=20000", first, "memory profiling: sample.interval=1000", second), path
  )
  expect_gt(file.size(path), 2 * 2^20)
  time <- dm::dm_get_tables(read_rprof(path))$samples$time
  expect_identical(time, rprof_line_times(path))
  expect_identical(time[c(80000, 80001, 130000)], c(79999 * 0.02, 0, 49999 * 0.001))
})

test_that("formats without time have NA, and time is kept where samples go", {
  pprof <- dm::dm_get_tables(read_pprof(sample_path("pprof", "cpu.pb.gz")))$samples
  expect_true(nrow(pprof) > 0 && all(is.na(pprof$time)))
  expect_type(pprof$time, "double")

  folded_path <- withr::local_tempfile(fileext = ".folded")
  writeLines(c("main;f 3", "main 1"), folded_path)
  expect_identical(dm::dm_get_tables(read_folded(folded_path))$samples$time, c(NA_real_, NA_real_))

  v1 <- read_rprof(sample_path("rprof", "1.out"), version = "1.0")
  from_v1 <- dm::dm_get_tables(profile_v2_from_v1(v1))$samples
  expect_true(nrow(from_v1) > 0 && all(is.na(from_v1$time)))
  expect_type(from_v1$time, "double")

  rprof <- read_rprof(sample_path("rprof", "append.out"))
  both <- combine_profiles(rprof, read_pprof(sample_path("pprof", "cpu.pb.gz")))
  time <- dm::dm_get_tables(both)$samples$time
  rprof_time <- dm::dm_get_tables(rprof)$samples$time
  expect_identical(time, c(rprof_time, rep(NA_real_, nrow(pprof))))
  expect_silent(validate_profile(both))

  # The writers need no time: Rprof's order is the time, pprof has none.
  out <- withr::local_tempfile(fileext = ".out")
  write_rprof(rprof, out)
  expect_identical(dm::dm_get_tables(read_rprof(out))$samples$time, rprof_time)
})

test_that("validation accepts NA and times >= 0, and refuses others", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  n <- nrow(dm::dm_get_tables(x)$samples)
  t <- dm::dm_get_tables(x, keyed = FALSE)
  t$samples$time[[2]] <- NA_real_
  expect_silent(do.call(new_profile_v2, t))
  for (bad in c(-0.5, Inf)) {
    t$samples$time[[2]] <- bad
    err <- expect_error(do.call(new_profile_v2, t), class = "profile_error_invalid")
    expect_match(conditionMessage(err), "samples.*time.*row 2")
  }
  t$samples$time <- as.integer(seq_len(n))
  expect_error(do.call(new_profile_v2, t), class = "profile_error_invalid")
  # hand-built profiles need no time column
  t$samples$time <- NULL
  expect_silent(do.call(new_profile_v2, t))
})
