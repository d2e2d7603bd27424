# No silent wrong answers: summaries and the other ways of looking at a
# profile count the samples it has, show Rprof ticks as the time they stand
# for, and say what a difference's percentages are of. Oracles:
# utils::summaryRprof() on the same file (or the lines of the samples kept),
# go tool pprof -diff_base, R's own formatting of object sizes.

# The first `n` stack lines of the Rprof file `path` (one segment, no #File
# lines), written to a new file: what a profile of those samples reads from.
rprof_first_lines <- function(path, n) {
  lines <- readLines(path)
  out <- withr::local_tempfile(fileext = ".out", .local_envir = parent.frame())
  writeLines(lines[seq_len(n + 1L)], out)
  out
}

# summaryRprof()'s by.self / by.total as a data frame of name, self and total
# (seconds), by name.
summary_rprof_times <- function(path, ...) {
  s <- utils::summaryRprof(path, ...)
  by <- s$by.total
  out <- data.frame(
    name = gsub('^"|"$', "", rownames(by)),
    total = by$total.time,
    self = by$self.time
  )
  out[order(out$name, method = "radix"), , drop = FALSE]
}

ours_by_name <- function(summary) {
  out <- data.frame(name = summary$name, total = summary$total, self = summary$self)
  out[order(out$name, method = "radix"), , drop = FALSE]
}

# gc.out: a file that summaryRprof() reads as we do (it splits lines at spaces,
# so it cuts "slow sum" and x[["b c"]] of the other files in two, and leaves
# the ticks without frames of memory.out out of its total).
test_that("Rprof ticks are shown as seconds, as summaryRprof() shows them, counts on request", {
  for (file in "gc.out") {
    path <- sample_path("rprof", file)
    x <- suppressWarnings(read_rprof(path))
    s <- profile_summary(x, n = Inf)
    expect_identical(attr(s, "sample_type"), "time", info = file)
    expect_identical(attr(s, "unit"), "seconds", info = file)
    theirs <- suppressWarnings(summary_rprof_times(path))
    ours <- ours_by_name(s)
    expect_identical(ours$name, theirs$name, info = file)
    expect_equal(ours$self, theirs$self, tolerance = 1e-9, info = file)
    expect_equal(ours$total, theirs$total, tolerance = 1e-9, info = file)
    sampling_time <- suppressWarnings(utils::summaryRprof(path))$sampling.time
    expect_equal(attr(s, "grand_total"), sampling_time, tolerance = 1e-9)

    # the counts, with type = "samples"
    interval <- as.numeric(sub(".*sample.interval=", "", readLines(path, n = 1L))) / 1e6
    counts <- profile_summary(x, type = "samples", n = Inf)
    expect_identical(attr(counts, "unit"), "count")
    expect_equal(ours_by_name(counts)$self, theirs$self / interval, tolerance = 1e-9, info = file)
  }
})

test_that("each source's ticks count with its own interval", {
  # append.out: three sessions, with intervals of 2, 5 and 10 ms
  path <- sample_path("rprof", "append.out")
  segments <- rprof_segments(path)
  interval <- vapply(segments, function(s) {
    as.numeric(sub(".*sample.interval=", "", s$header)) / 1e6
  }, 1)
  expected <- sum(interval * vapply(segments, function(s) length(s$stack), 1L))
  s <- profile_summary(read_rprof(path))
  expect_identical(attr(s, "sample_type"), "time")
  expect_equal(attr(s, "grand_total"), expected, tolerance = 1e-9)
})

test_that("the flame graph, the view's data and speedscope files show Rprof ticks as seconds", {
  path <- sample_path("rprof", "1.out")
  x <- read_rprof(path)
  seconds <- utils::summaryRprof(path)$sampling.time
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  frames <- profile_flamegraph(x)
  expect_equal(frames$total[frames$depth == 0L], seconds, tolerance = 1e-9)

  json <- jsonlite::fromJSON(profile:::view_data(x, NULL, NULL), simplifyVector = FALSE)
  types <- vapply(json$types, function(t) t$name, "")
  units <- vapply(json$types, function(t) t$unit, "")
  expect_identical(units[match(c("time", "samples"), types)], c("seconds", "count"))
  expect_identical(types[[json$default_type + 1L]], "time")

  out <- withr::local_tempfile(fileext = ".speedscope.json")
  write_speedscope(x, out)
  file <- jsonlite::fromJSON(out, simplifyVector = FALSE)
  units <- vapply(file$profiles, function(p) p$unit, "")
  expect_true("seconds" %in% units)
  timed <- file$profiles[[which(units == "seconds")[[1]]]]
  expect_equal(timed$endValue - timed$startValue, seconds, tolerance = 1e-6)
  expect_equal(sum(unlist(timed$weights)), seconds, tolerance = 1e-6)
})

test_that("profile_scale() says what unit results", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  ms <- profile_scale(x, 5, types = "samples", unit = "milliseconds")
  expect_identical(unique(ms$sample_values$unit), "milliseconds")
  expect_identical(unique(ms$sample_types$unit), "milliseconds")
  s <- profile_summary(ms, n = Inf)
  # counts in another unit make no time: the summary shows them, in their unit
  expect_identical(attr(s, "sample_type"), "samples")
  expect_identical(attr(s, "unit"), "milliseconds")
  theirs <- utils::summaryRprof(sample_path("rprof", "1.out"))$sampling.time
  expect_equal(attr(s, "grand_total"), 1000 * theirs)
  # without `unit`, the values keep theirs
  expect_identical(unique(profile_scale(x, 5)$sample_values$unit), "count")
  expect_error(profile_scale(x, 5, unit = c("a", "b")), class = "profile_error_argument")
})

test_that("headers print times in s and ms, bytes in binary units", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  seconds <- sum(utils::summaryRprof(sample_path("rprof", "1.out"))$by.self$self.time)
  header <- pillar::tbl_sum(profile_summary(x))
  # as go tool pprof prints it, "2.99s": two decimals at most, no space
  expect_match(header[["Total"]], "^[0-9]+(\\.[0-9]{1,2})?s$")
  expect_equal(as.numeric(sub("s$", "", header[["Total"]])), seconds, tolerance = 0.005)
  # bytes: R's own binary units for object sizes name the unit
  memory <- read_rprof(sample_path("rprof", "memory.out"))
  for (type in c("alloc_size", "duplications")) {
    s <- profile_summary(memory, type = type)
    total <- attr(s, "grand_total")
    if (type == "alloc_size") {
      r <- format(structure(total, class = "object_size"), units = "auto", standard = "IEC")
      unit <- sub("^[0-9.]+ ", "", r)
      power <- match(unit, c("B", "KiB", "MiB", "GiB", "TiB")) - 1L
      number <- sub("\\.?0+$", "", sprintf("%.2f", total / 1024^power))
      expect_identical(pillar::tbl_sum(s)[["Total"]], paste0(number, unit))
    } else {
      shown <- format(total, big.mark = ",", scientific = FALSE)
      expect_identical(pillar::tbl_sum(s)[["Total"]], shown)
    }
  }
  small <- profile_summary(profile_window(memory, to = 0.05), type = "alloc_size")
  expect_match(pillar::tbl_sum(small)[["Total"]], "^[0-9.]+(B|KiB|MiB)$")
  # under a second: milliseconds
  short <- profile_window(read_rprof(sample_path("rprof", "1.out")), to = 0.2)
  expect_identical(pillar::tbl_sum(profile_summary(short))[["Total"]], "200ms")
})

test_that("a profile whose samples were filtered with dplyr counts the samples it kept", {
  path <- sample_path("rprof", "gc.out")
  x <- read_rprof(path)
  kept <- x |>
    dm::dm_zoom_to(samples) |>
    dplyr::filter(time < 0.5) |>
    dm::dm_update_zoomed()
  n <- sum(x$samples$time < 0.5)
  expect_identical(nrow(kept$samples), n)
  expect_gt(nrow(kept$sample_values), n)
  # the same profile without the rows of the removed samples (and the same
  # other tables)
  ids <- kept$samples$sample_id
  whole <- kept |>
    dm::dm_zoom_to(sample_values) |>
    dplyr::filter(sample_id %in% ids) |>
    dm::dm_update_zoomed() |>
    dm::dm_zoom_to(sample_locations) |>
    dplyr::filter(sample_id %in% ids) |>
    dm::dm_update_zoomed()
  expect_identical(nrow(whole$sample_values), n)
  expect_silent(validate_profile(whole))

  # summaryRprof() of the lines of the kept samples
  first <- rprof_first_lines(path, n)
  s <- profile_summary(kept, n = 6)
  theirs <- summary_rprof_times(first)
  expect_equal(ours_by_name(profile_summary(kept, n = Inf))$self, theirs$self, tolerance = 1e-9)
  expect_equal(attr(s, "grand_total"), utils::summaryRprof(first)$sampling.time, tolerance = 1e-9)
  # "top 6 of N functions": N counts the functions of the kept samples
  expect_identical(attr(s, "n_groups"), nrow(theirs))
  expect_match(
    pillar::tbl_sum(s)[["Rows"]], paste("top 6 of", nrow(theirs), "functions"),
    fixed = TRUE
  )

  # the flame graph, folded stacks, the view's data and speedscope files: those
  # of the profile without the removed samples' rows
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(profile_flamegraph(kept), profile_flamegraph(whole))
  folded <- withr::local_tempfile(fileext = ".folded")
  folded_whole <- withr::local_tempfile(fileext = ".folded")
  write_folded(kept, folded)
  write_folded(whole, folded_whole)
  expect_identical(readLines(folded), readLines(folded_whole))
  expect_identical(sum(as.numeric(sub(".* ", "", readLines(folded)))), as.numeric(n))
  expect_identical(profile:::view_data(kept, NULL, "t"), profile:::view_data(whole, NULL, "t"))
  ss <- withr::local_tempfile(fileext = ".json")
  ss_whole <- withr::local_tempfile(fileext = ".json")
  write_speedscope(kept, ss)
  write_speedscope(whole, ss_whole)
  expect_identical(readLines(ss), readLines(ss_whole))

  # the writers, which write a profile whole, refuse it as validate_profile() does
  expect_error(validate_profile(kept), class = "profile_error_invalid")
  expect_error(
    write_pprof(kept, withr::local_tempfile(fileext = ".pb.gz")), "has no match in",
    class = "profile_error_invalid"
  )
  expect_error(
    write_rprof(kept, withr::local_tempfile(fileext = ".out")), "has no match in",
    class = "profile_error_invalid"
  )
})

test_that("a difference's summary names the base total of its percentages, as go tool pprof", {
  x_path <- sample_path("pprof", "cpu.pb.gz")
  base_path <- sample_path("pprof-second-run", "cpu.pb.gz")
  d <- profile_diff(read_pprof(x_path), read_pprof(base_path))
  s <- profile_summary(d, type = "cpu", n = 5)
  base <- profile_summary(read_pprof(base_path), type = "cpu")
  expect_identical(attr(s, "base_total"), attr(base, "grand_total"))
  header <- pillar::tbl_sum(s)
  expect_match(header[["Percentages"]], "of the base's total", fixed = TRUE)
  base_total <- profile:::format_compact_amount(attr(base, "grand_total"), "nanoseconds")
  expect_match(header[["Percentages"]], base_total, fixed = TRUE)
  expect_equal(s$self_pct, 100 * s$self / attr(base, "grand_total"))

  skip_if_no_go()
  # "Showing nodes accounting for -50ms, 20.49% of 244ms total"
  flags <- c("-sample_index=cpu", "-unit=ns", paste0("-diff_base=", base_path))
  top <- go_pprof("top", x_path, shQuote(flags))
  line <- grep("of [-0-9.]+ns total", top, value = TRUE)
  go_total <- as.numeric(sub(".* of ([-0-9.]+)ns total.*", "\\1", line))
  expect_identical(attr(s, "base_total"), go_total)
})

test_that("a database profile counts the samples it kept, Rprof ticks as seconds, as in memory", {
  skip_if_not_installed("RSQLite")
  x <- read_rprof(sample_path("rprof", "gc.out"))
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  db <- profile_db_append(con, x)
  keep <- function(p) {
    p |>
      dm::dm_zoom_to(samples) |>
      dplyr::filter(time < 0.5) |>
      dm::dm_update_zoomed()
  }
  for (type in list(NULL, "samples")) {
    in_db <- profile_summary(keep(db), type = type, n = Inf)
    in_memory <- profile_summary(keep(x), type = type, n = Inf)
    expect_identical(attr(in_db, "sample_type"), attr(in_memory, "sample_type"))
    expect_equal(attr(in_db, "grand_total"), attr(in_memory, "grand_total"))
    expect_identical(attr(in_db, "n_groups"), attr(in_memory, "n_groups"))
    expect_equal(in_db$self[order(in_db$name)], in_memory$self[order(in_memory$name)])
  }
  expect_equal(attr(profile_summary(keep(db)), "grand_total"), sum(x$samples$time < 0.5) * 0.004)
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  frames <- profile_flamegraph(keep(db))
  expect_equal(frames$total[frames$depth == 0L], sum(x$samples$time < 0.5) * 0.004)
})
