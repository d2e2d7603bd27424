# format() and print() of a v2 profile (R/format.R), the class profile_v2
# (R/v2.R) and the summary's columns in the type's unit (R/summary.R).

# A time as go tool pprof -top prints it ("1424ms", "1.42s"), in nanoseconds.
nanoseconds_of <- function(text) {
  scale <- c(s = 1e9, ms = 1e6, us = 1e3, ns = 1)
  unit <- sub("^[-0-9.,]+", "", text)
  as.numeric(gsub(",", "", sub("[a-z]+$", "", text))) * ifelse(nzchar(unit), scale[unit], 1)
}

# go tool pprof's "of X total" for one sample type of a file.
go_total_text <- function(path, type) {
  lines <- go_pprof("top", path, shQuote(c("-nodecount=1", paste0("-sample_index=", type))))
  sub(".* of (\\S+) total$", "\\1", grep(" of \\S+ total$", lines, value = TRUE))
}

# The compact amounts of R/units.R, as the tests see them.
format_compact <- function(x, unit) profile:::format_compact_amount(x, unit)

test_that("readers, verbs, combine, new_profile_v2() and profile_db() give class profile_v2", {
  rprof <- read_rprof(sample_path("rprof", "1.out"))
  heap <- read_pprof(sample_path("pprof", "heap.pb.gz"))
  expect_identical(class(rprof), c("profile_v2", "dm"))
  expect_identical(class(heap), c("profile_v2", "dm"))
  folded <- withr::local_tempfile(fileext = ".folded")
  writeLines("main;f 2", folded)
  expect_identical(class(read_folded(folded)), c("profile_v2", "dm"))
  expect_identical(class(combine_profiles(rprof, heap)), c("profile_v2", "dm"))
  expect_identical(class(profile_focus(heap, "main")), c("profile_v2", "dm"))
  expect_identical(class(profile_scale(heap, 2)), c("profile_v2", "dm"))
  expect_identical(class(tiny_v2()), c("profile_v2", "dm"))
  con <- local_sqlite()
  expect_identical(class(profile_db_append(con, heap)), c("profile_v2", "dm"))
  expect_identical(class(profile_db(con)), c("profile_v2", "dm"))
})

test_that("every dm verb works on a profile_v2 and gives a plain dm that is still a profile", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  tables <- dm::dm_get_tables(x)
  expect_s3_class(x$samples, "tbl_df")
  expect_identical(x[["samples"]], tables$samples)
  expect_identical(names(x), names(tables))

  filtered <- dm::dm_filter(x, samples = sample_id <= 10L)
  expect_identical(class(filtered), "dm")
  expect_silent(validate_profile(filtered))
  expect_identical(nrow(dm::dm_get_tables(filtered)$samples), 10L)
  expect_s3_class(profile_summary(filtered), "profile_summary")

  selected <- dm::dm_select_tbl(
    x, meta, sources, samples, sample_values, sample_locations,
    locations, functions
  )
  expect_identical(class(selected), "dm")
  expect_silent(validate_profile(selected))

  zoomed <- dm::dm_update_zoomed(dplyr::filter(dm::dm_zoom_to(x, samples), sample_id <= 5L))
  expect_identical(class(zoomed), "dm")
  expect_equal(attr(profile_summary(zoomed, type = "samples"), "grand_total"), 5)

  subset <- x[names(x)]
  expect_identical(class(subset), "dm")
  expect_silent(validate_profile(subset))

  # a plain dm prints as dm prints it; the profile functions take it
  expect_output(print(filtered), "Table")
  expect_equal(
    dm::dm_get_tables(combine_profiles(filtered, x))$samples$sample_id,
    seq_len(10L + nrow(tables$samples))
  )
  expect_s3_class(profile_focus(filtered, "."), "profile_v2")
})

test_that("v1 objects keep their class and print", {
  v1 <- read_rprof(sample_path("rprof", "1.out"), version = "1.0")
  expect_identical(class(v1), "profile_data")
  expect_false(inherits(dm_from_profile(v1), "profile_v2"))
})

test_that("print() of an Rprof profile says its source, samples, types and top functions", {
  path <- sample_path("rprof", "1.out")
  x <- read_rprof(path)
  text <- format(x)
  n <- nrow(dm::dm_get_tables(x)$samples)
  headline <- sprintf("<profile_v2> 1 source, %s samples", format(n, big.mark = ","))
  expect_identical(text[[1]], headline)
  expect_match(text, paste0("^  1  rprof  ", path, "$"), fixed = FALSE, all = FALSE)
  # the totals of the types: summaryRprof() (the oracle of Rprof files)
  r <- utils::summaryRprof(path)
  seconds <- sum(r$by.self$self.time)
  time_line <- grep("^  time ", text, value = TRUE)
  printed <- sub(".*seconds: +(\\S+) .*", "\\1", time_line)
  expect_equal(nanoseconds_of(printed) / 1e9, seconds, tolerance = 0.005)
  samples_line <- grep("^  samples ", text, value = TRUE)
  interval <- as.numeric(sub(".*=", "", readLines(path, n = 1))) / 1e6
  expect_match(samples_line, paste0(" ", round(seconds / interval), "$"))
  # the top functions: summaryRprof()'s first rows by self time, with their percentages
  top <- grep("Top functions", text)
  expect_match(text[[top]], "by self time (seconds, of", fixed = TRUE)
  first <- text[[top + 2]]
  expect_match(first, paste0(" ", gsub("\"", "", rownames(r$by.self)[[1]]), "$"))
  expect_match(first, sprintf("%.2f%%", r$by.self$self.pct[[1]]), fixed = TRUE)
  expect_output(print(x), text[[1]], fixed = TRUE)
  expect_identical(withVisible(print(x))$visible, FALSE)
})

test_that("print() of a pprof heap profile gives each type's total as go tool pprof does", {
  skip_if_no_go()
  path <- sample_path("pprof", "heap.pb.gz")
  text <- format(read_pprof(path))
  for (type in c("alloc_objects", "alloc_space", "inuse_objects", "inuse_space")) {
    line <- grep(paste0("^  ", type, " "), text, value = TRUE)
    expect_length(line, 1)
    go <- go_total_text(path, type)
    # Go's kB and MB are 1024 and 1024^2 bytes, as KiB and MiB
    want <- sub("kB$", "KiB", sub("MB$", "MiB", go))
    expect_match(gsub(",", "", line), paste0(" ", want, "$"),
      label = paste(type, "vs go tool pprof", go)
    )
  }
  expect_match(text, "Top functions by self inuse_space (bytes", fixed = TRUE, all = FALSE)
})

test_that("print() of a profile read from a database describes it in SQL", {
  con <- local_sqlite()
  x <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  db <- profile_db_append(con, x)
  text <- format(db)
  expect_match(text[[1]], "<profile_v2> in a database, 1 source, ", fixed = TRUE)
  in_memory <- format(x)
  expect_identical(text[-1], in_memory[-1])
})

test_that("print() shows a source's label, start time and duration", {
  x <- tiny_v2()
  tables <- dm::dm_get_tables(x)
  sources <- tables$sources
  sources$source_timestamp <- as.numeric(as.POSIXct("2026-11-28 10:00:01", tz = "UTC"))
  sources$duration_nanos <- 2.51e9
  sources$source_label <- "before the fix"
  x <- do.call(new_profile_v2, c(list(sources = sources), tables[names(tables) != "sources"]))
  line <- grep("^  1  ", format(x), value = TRUE)
  expect_match(line, "\"before the fix\"", fixed = TRUE)
  expect_match(line, "2026-11-28 10:00:01 UTC", fixed = TRUE)
  expect_match(line, "for 2.51s$")
})

test_that("print() of a profile it cannot summarise still lists its sources and tables", {
  x <- tiny_v2()
  tables <- dm::dm_get_tables(x)
  tables$sample_values <- tables$sample_values[0, ]
  x <- do.call(new_profile_v2, tables)
  text <- format(x)
  expect_match(text[[1]], "<profile_v2> 1 source", fixed = TRUE)
  expect_match(text, "^Tables: meta, sources", all = FALSE)
})

test_that("summary columns stay numbers and print in the unit, percentages as go tool pprof", {
  skip_if_no_go()
  path <- sample_path("pprof", "cpu.pb.gz")
  s <- profile_summary(read_pprof(path), n = 6)
  expect_type(s$self, "double")
  expect_type(s$self_pct, "double")
  printed <- utils::capture.output(print(s, width = 200))
  total <- format_compact(attr(s, "grand_total"), "nanoseconds")
  expect_match(printed, paste0("Total: +", total, "$"), all = FALSE)
  lines <- go_pprof("top", path, shQuote(c("-nodecount=6", "-sample_index=cpu")))
  rows <- lines[-seq_len(grep("^\\s*flat\\s+flat%", lines))]
  fields <- strsplit(trimws(rows), " +")
  go_names <- vapply(fields, function(f) paste(f[-(1:5)], collapse = " "), "")
  expect_identical(s$name, go_names)
  for (i in seq_along(fields)) {
    row <- grep(paste0(" ", s$name[[i]], " "), printed, fixed = TRUE, value = TRUE)
    cells <- strsplit(trimws(row), " +")[[1]]
    # flat% and cum% as Go prints them
    expect_identical(cells[c(4, 6)], fields[[i]][c(2, 5)])
    # flat and cum: the same amounts, to the digits printed
    expect_equal(nanoseconds_of(cells[c(3, 5)]), nanoseconds_of(fields[[i]][c(1, 4)]),
      tolerance = 0.005
    )
  }
})
