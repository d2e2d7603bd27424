# profile_compare(): judged by profile_diff() and profile_summary(), and by
# real recordings of a slow and a fast version of one function; print() and
# plot(). Its statistics: test-compare-stats.R; their error rates and power
# against known rates: bench/compare.R (too slow for here).

test_that("a profile compared with itself marks nothing", {
  one <- read_rprof(sample_path("rprof", "1.out"))
  runs <- combine_profiles(
    one, read_rprof(sample_path("rprof", "all.out")), read_rprof(sample_path("rprof", "line.out"))
  )
  for (x in list(one, runs)) {
    cmp <- profile_compare(x, x)
    expect_s3_class(cmp, "profile_comparison")
    expect_true(all(cmp$change == "none"))
    expect_true(all(cmp$delta == 0))
    expect_true(all(cmp$p_value == 1))
    expect_true(all(cmp$lower <= 0 & cmp$upper >= 0))
  }
})

test_that("delta times the runs is the row of profile_summary(profile_diff())", {
  files <- c("1.out", "all.out", "line.out", "gc.out", "memory.out", "toplevel.out")
  profiles <- lapply(files, function(f) read_rprof(sample_path("rprof", f)))
  x <- do.call(combine_profiles, profiles[1:3])
  base <- do.call(combine_profiles, profiles[4:6])
  for (by in c("function", "location")) {
    for (value in c("self", "total")) {
      cmp <- profile_compare(x, base, by = by, type = "samples", value = value)
      diff <- profile_summary(profile_diff(x, base), type = "samples", by = by, n = Inf)
      key <- if (by == "function") "name" else c("name", "filename", "line")
      at <- vctrs::vec_match(cmp[key], diff[key])
      # (a summary leaves out the rows whose difference is 0)
      expect_true(all(cmp$delta[is.na(at)] == 0))
      missing <- is.na(vctrs::vec_match(diff[key], cmp[key]))
      expect_true(all(diff[[value]][missing] == 0))
      expect_equal(cmp$delta[!is.na(at)] * 3, diff[[value]][at[!is.na(at)]], tolerance = 1e-12)
    }
  }
  # in seconds too (ticks times each source's interval)
  cmp <- profile_compare(x, base)
  diff <- profile_summary(profile_diff(x, base), n = Inf)
  expect_identical(attr(cmp, "sample_type"), "time")
  at <- match(cmp$name, diff$name)
  expect_true(all(cmp$delta[is.na(at)] == 0))
  expect_equal(cmp$delta[!is.na(at)] * 3, diff$self[at[!is.na(at)]], tolerance = 1e-12)
})

test_that("real recordings: a slower version of one function is marked, the others are not", {
  skip_on_cran()
  runs <- record_slow_and_fast()
  slow <- runs$slow
  fast <- runs$fast
  same <- runs$same
  cmp <- profile_compare(slow, fast, threshold = 0.2)
  expect_identical(attr(cmp, "runs"), c(x = 3L, base = 3L))
  expect_identical(row_of(cmp, "spin_changed")$change, "increase")
  expect_identical(cmp$change[cmp$name %in% same], rep("none", 5))
  expect_gt(row_of(cmp, "spin_changed")$ratio, 1.4)
  # (not the totals: under a busy machine, the slow runs' totals may be the
  # smaller, which is why the rows are compared at equal run speed)
})

test_that("print() says what was compared and shows changes in human units", {
  counts <- cbind(x = c(600, 400), base = c(300, 400))
  x <- counts_profile(counts[, 1, drop = FALSE], names = c("fit_models", "other"))
  base <- counts_profile(counts[, 2, drop = FALSE], names = c("fit_models", "other"))
  text <- format_header(profile_compare(x, base))
  what <- "samples [(]count[)], self value by function: x 1 run, base 1 run"
  expect_match(text[[1]], paste0("^Profile comparison of ", what))
  total <- "1,000 count vs 700 count, [+]300 count [(][+]43 %, 95 % CI"
  expect_match(text[[2]], paste0("^Total per run: ", total))
  changed <- "^fit_models +[+]300 count [(][+]100 %, CI [+]2[0-9.]+ count to [+]3[0-9.]+ count[)]$"
  expect_match(text, changed, all = FALSE)
  expect_false(any(grepl("^other", text)))
  # seconds and bytes in their units
  rprof <- read_rprof(sample_path("rprof", "1.out"))
  twice <- combine_profiles(rprof, rprof)
  text <- format_header(profile_compare(twice, rprof, value = "total"))
  expect_match(text[[1]], "time \\(seconds\\), total value by function: x 2 runs, base 1 run")
  expect_match(text[[2]], " s vs [0-9.]+ s")
  # a location names its file and line where it has them
  text <- format_header(profile_compare(
    read_rprof(sample_path("rprof", "line.out")), rprof,
    by = "location", threshold = 0.5
  ))
  expect_match(text, "^[^ ]+ [(][^ ]+[.]R:[0-9]+[)] +[+-]", all = FALSE)
})

test_that("plot() draws the changed rows with their intervals", {
  counts <- cbind(x = c(600, 400), base = c(300, 400))
  cmp <- profile_compare(
    counts_profile(counts[, 1, drop = FALSE]), counts_profile(counts[, 2, drop = FALSE])
  )
  file <- withr::local_tempfile(fileext = ".png")
  grDevices::png(file)
  expect_identical(plot(cmp), cmp)
  grDevices::dev.off()
  expect_gt(file.size(file), 1000)
})

test_that("the runs of a database are compared as those of the profile appended", {
  con <- local_sqlite()
  one <- read_rprof(sample_path("rprof", "1.out"))
  other <- read_rprof(sample_path("rprof", "all.out"))
  profile_db_append(con, one)
  db <- profile_db_append(con, other)
  expect_identical(
    tibble::as_tibble(profile_compare(db, one)),
    tibble::as_tibble(profile_compare(combine_profiles(one, other), one))
  )
})

test_that("arguments and profiles that cannot be compared are refused", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  expect_error(profile_compare(x, x, level = 1), class = "profile_error_argument")
  expect_error(profile_compare(x, x, threshold = -1), class = "profile_error_argument")
  expect_error(profile_compare(x, x, by = "stack"), class = "profile_error_argument")
  expect_error(profile_compare(x, x, "self"), class = "profile_error_argument")
  expect_error(profile_compare(x, x, type = "nope"), class = "profile_error_argument")
  expect_error(profile_compare(profile_diff(x, x), x), class = "profile_error_argument")
  expect_error(profile_compare(x, "x"), class = "profile_error_argument")
})

test_that("the CI script fails the job when a function got slower, and only then", {
  skip_on_cran()
  script <- system.file("scripts", "compare-runs.R", package = "profile", mustWork = TRUE)
  # runs of known counts written as Rprof files: f2 twice as slow in `slower`
  set.seed(3)
  rates <- c(f1 = 300, f2 = 120, f3 = 80, f4 = 40, f5 = 20)
  dirs <- withr::local_tempdir()
  folder <- function(name, runs, slower = 1) {
    dir <- file.path(dirs, name)
    dir.create(dir)
    for (i in seq_len(runs)) {
      truth <- rates * exp(stats::rnorm(1, 0, 0.1)) * c(1, slower, 1, 1, 1)
      counts <- matrix(stats::rpois(length(truth), truth))
      write_rprof(counts_profile(counts), file.path(dir, sprintf("run-%d.out", i)))
    }
    dir
  }
  baseline <- folder("baseline", 3)
  same <- folder("same", 3)
  slower <- folder("slower", 3, slower = 2)
  run <- function(...) {
    env <- paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep))
    out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c(script, ...),
      stdout = TRUE, stderr = TRUE, env = env
    ))
    list(status = attr(out, "status") %||% 0L, output = out)
  }
  passed <- run(baseline, same, "0.1")
  expect_identical(passed$status, 0L)
  expect_match(passed$output, "No row changed more than the noise", all = FALSE)
  failed <- run(baseline, slower, "0.1")
  expect_identical(failed$status, 1L)
  expect_match(failed$output, "^Slower than the baseline: f2$", all = FALSE)
  expect_identical(run(baseline)$status, 2L)
})
