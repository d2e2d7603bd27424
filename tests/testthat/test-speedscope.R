# write_speedscope() (R/speedscope.R) without a browser: speedscope files read
# back with jsonlite, their weights against profile_summary()'s totals and
# their samples against the profile's own stacks. The browser tests (speedscope
# itself reading the files) are in test-view-browser.R.

skip_if_not_installed("jsonlite")

rprof_sample <- function(name) system.file("samples", "rprof", name, package = "profile")

read_speedscope <- function(path) jsonlite::fromJSON(path, simplifyVector = FALSE)

# Sum of the weights per sample type (the type is the start of a profile's name).
speedscope_totals <- function(file) {
  type <- vapply(file$profiles, function(p) sub(" .*$", "", p$name), "")
  weight <- vapply(file$profiles, function(p) sum(unlist(p$weights)), 0)
  tapply(weight, type, sum)
}

test_that("write_speedscope(): one profile per type and source, weights adding up to the totals", {
  files <- c(
    file.path(system.file("samples", "rprof", package = "profile"), rprof_sample_files),
    list.files(system.file("samples", "pprof", package = "profile"), full.names = TRUE)
  )
  for (f in files) {
    x <- if (grepl("\\.out$", f)) suppressWarnings(read_rprof(f)) else read_pprof(f)
    path <- withr::local_tempfile(fileext = ".json")
    expect_identical(withVisible(write_speedscope(x, path)), list(value = x, visible = FALSE))
    file <- read_speedscope(path)
    expect_identical(file[["$schema"]], "https://www.speedscope.app/file-format-schema.json")
    totals <- speedscope_totals(file)
    types <- setdiff(
      unique(as.character(x$sample_values$type)),
      c("small_vector_heap", "large_vector_heap", "node_heap")
    )
    # Rprof ticks have their time too (see "Time" in ?profile_summary)
    if (grepl("\\.out$", f)) types <- c(types, "time")
    for (t in types) {
      # a type without a sample of non-zero value has no profile
      written <- if (t %in% names(totals)) totals[[t]] else 0
      expect_equal(written, attr(profile_summary(x, type = t), "grand_total"), label = paste(f, t))
    }
    n_sources <- length(unique(x$samples$source_id))
    expect_lte(length(file$profiles), length(types) * n_sources)
    for (p in file$profiles) {
      expect_identical(p$type, "sampled")
      expect_equal(p$endValue, sum(unlist(p$weights)))
      expect_length(p$samples, length(p$weights))
    }
    default <- attr(profile_summary(x), "sample_type")
    expect_identical(sub(" .*$", "", file$profiles[[file$activeProfileIndex + 1]]$name), default)
  }
})

# Found by the composition suite (test-compose-pipelines.R), as for the view.
test_that("write_speedscope(): a default type in several units is left out, not refused", {
  cpu <- read_pprof(system.file("samples", "pprof", "cpu.pb.gz", package = "profile"))
  folded <- withr::local_tempfile(fileext = ".folded")
  writeLines(c("main;work 3", "main;rest 1"), folded)
  both <- combine_profiles(cpu, read_folded(folded, type = "cpu", unit = "count"))
  path <- withr::local_tempfile(fileext = ".json")
  write_speedscope(both, path)
  file <- read_speedscope(path)
  expect_identical(unique(sub(" .*$", "", vapply(file$profiles, `[[`, "", "name"))), "samples")
  counts <- cpu$sample_values$value[cpu$sample_values$type == "samples"]
  expect_equal(speedscope_totals(file)[["samples"]], sum(counts))
})

test_that("write_speedscope(): frames with file and line, samples in time order", {
  x <- read_rprof(rprof_sample("line.out"))
  expect_false(anyNA(dm::dm_get_tables(x)$samples$time))
  path <- withr::local_tempfile(fileext = ".json")
  write_speedscope(x, path)
  file <- read_speedscope(path)
  or <- function(value, otherwise) if (is.null(value)) otherwise else value
  frame_label <- vapply(
    file$shared$frames, function(f) paste(f$name, or(f$file, ""), or(f$line, 0)), ""
  )
  expect_true(
    any(vapply(file$shared$frames, function(f) !is.null(f$file) && !is.null(f$line), TRUE))
  )
  expect_false(anyDuplicated(frame_label) > 0)
  # every sample's stack, root first, in time order, runs of equal stacks collapsed
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  loc <- tables$locations
  fun <- tables$functions[match(loc$function_id, tables$functions$function_id), ]
  loc_label <- paste(
    fun$name, ifelse(is.na(fun$filename), "", fun$filename), ifelse(is.na(loc$line), 0, loc$line)
  )
  stack <- tables$sample_locations
  rows <- stack[order(stack$sample_id, -stack$depth), ]
  frames <- split(loc_label[match(rows$location_id, loc$location_id)], rows$sample_id)
  stacks <- vapply(frames, paste, "", collapse = ";")
  in_time_order <- as.character(tables$samples$sample_id[order(tables$samples$time)])
  expected <- rle(unname(stacks[in_time_order]))
  p <- file$profiles[[1]]
  written <- vapply(p$samples, function(s) paste(frame_label[unlist(s) + 1], collapse = ";"), "")
  expect_identical(written, expected$values)
  expect_equal(unlist(p$weights), as.double(expected$lengths))
})

test_that("write_speedscope(): a diff's base is written with its own values", {
  x <- read_rprof(rprof_sample("line.out"))
  d <- profile_diff(subset_samples(x, 101:320), subset_samples(x, 1:100))
  path <- withr::local_tempfile(fileext = ".json")
  write_speedscope(d, path)
  file <- read_speedscope(path)
  names <- vapply(file$profiles, `[[`, "", "name")
  # samples and time (see "Time" in ?profile_summary), of x and of the base
  expect_length(names, 4)
  counts <- startsWith(names, "samples")
  expect_match(names[counts][[2]], "diff base")
  expect_equal(vapply(file$profiles[counts], function(p) sum(unlist(p$weights)), 0), c(220, 100))
  interval <- 0.005
  weights <- vapply(file$profiles[!counts], function(p) sum(unlist(p$weights)), 0)
  expect_equal(weights, c(220, 100) * interval)
})

test_that("write_speedscope() refuses bad paths and leaves the old file", {
  x <- read_rprof(rprof_sample("1.out"))
  expect_profile_error(write_speedscope(x, file.path(tempfile(), "x.json")), "io")
  expect_profile_error(write_speedscope(x, NA_character_), "argument")
  expect_profile_error(write_speedscope(1, tempfile()), "argument")
  path <- withr::local_tempfile(fileext = ".json", lines = "old")
  expect_profile_error(write_speedscope(x, dirname(path)), "io")
  expect_identical(readLines(path), "old")
})
