test_that("read -> write -> read gives equal tables and the original lines", {
  for (file in rprof_sample_files) {
    path <- sample_path("rprof", file)
    x <- suppressWarnings(read_rprof(path, source_uri = "x"))
    out <- withr::local_tempfile(fileext = ".out")
    expect_identical(write_rprof(x, out), x)
    y <- expect_silent(read_rprof(out, source_uri = "x"))
    expect_identical(v2_table_list(y), v2_table_list(x), info = file)
    original <- readLines(path)
    rewritten <- readLines(out)
    expect_identical(rewritten[[1]], original[[1]], info = file)
    if (file != "incomplete.out") {
      expect_identical(rewritten, original, info = file)
    } else {
      # the cut last line loses its cut frame, nothing else changes
      n <- length(original)
      expect_identical(rewritten[-n], original[-n])
      expect_true(startsWith(original[[n]], rewritten[[n]]))
    }
  }
})

test_that("summaryRprof() gives the same summary for a rewritten file", {
  for (file in setdiff(rprof_sample_files, "incomplete.out")) {
    path <- sample_path("rprof", file)
    out <- withr::local_tempfile(fileext = ".out")
    write_rprof(read_rprof(path), out)
    memory <- if (file %in% c("memory.out", "all.out")) "both" else "none"
    # summaryRprof() warns on names with spaces when it reads line references
    a <- suppressWarnings(utils::summaryRprof(path, memory = memory))
    b <- suppressWarnings(utils::summaryRprof(out, memory = memory))
    expect_identical(b$by.self, a$by.self, info = file)
    expect_identical(b$by.total, a$by.total, info = file)
    expect_identical(b$sampling.time, a$sampling.time, info = file)
  }
})

test_that("line profiles, the top level's lines included, are written back byte for byte", {
  for (file in c("line.out", "all.out", "toplevel.out")) {
    path <- sample_path("rprof", file)
    x <- expect_silent(read_rprof(path))
    out <- withr::local_tempfile(fileext = ".out")
    write_rprof(x, out)
    expect_identical(readBin(out, "raw", 1e6), readBin(path, "raw", 1e6), info = file)
    for (lines in c("show", "both")) {
      # summaryRprof() warns on names with spaces when it reads line references
      a <- suppressWarnings(utils::summaryRprof(path, lines = lines))
      b <- suppressWarnings(utils::summaryRprof(out, lines = lines))
      expect_identical(b, a, info = paste(file, lines))
    }
  }
  # The top level's lines are there to count: the console's file has no name.
  s <- suppressWarnings(utils::summaryRprof(sample_path("rprof", "toplevel.out"), lines = "show"))
  expect_true(any(grepl("^#[0-9]+$", rownames(s$by.line))))
})

# Per-function counts from the v2 tables: samples whose innermost frame is the
# function (self) and samples that contain it (total), and alloc_size summed over
# the samples that contain it.
v2_function_counts <- function(x) {
  t <- dm::dm_get_tables(x)
  sl <- t$sample_locations
  loc <- t$locations[match(sl$location_id, t$locations$location_id), ]
  sl$name <- t$functions$name[match(loc$function_id, t$functions$function_id)]
  self <- table(sl$name[sl$depth == 1L])
  per_sample <- unique(sl[c("sample_id", "name")])
  total <- table(per_sample$name)
  alloc <- t$sample_values[t$sample_values$type == "alloc_size", ]
  per_sample$alloc <- alloc$value[match(per_sample$sample_id, alloc$sample_id)]
  list(self = self, total = total, alloc = tapply(per_sample$alloc, per_sample$name, sum))
}

# summaryRprof()'s row names are the quoted frame names; it splits lines at
# spaces, so names with spaces cannot be compared.
summary_counts <- function(df, column, interval) {
  names <- gsub('^"|"$', "", rownames(df))
  keep <- !grepl(" ", names) & grepl('^".*"$', rownames(df))
  stats::setNames(round(df[[column]][keep] / interval), names[keep])
}

test_that("per-function counts from the v2 tables are summaryRprof()'s", {
  for (file in c("1.out", "gc.out", "line.out", "memory.out", "all.out")) {
    path <- sample_path("rprof", file)
    x <- read_rprof(path)
    counts <- v2_function_counts(x)
    memory <- if (file %in% c("memory.out", "all.out")) "both" else "none"
    s <- suppressWarnings(utils::summaryRprof(path, memory = memory))
    self <- summary_counts(s$by.self, "self.time", s$sample.interval)
    total <- summary_counts(s$by.total, "total.time", s$sample.interval)
    expect_gt(length(self), 5)
    expect_identical(as.numeric(counts$self[names(self)]), unname(self), info = file)
    expect_identical(as.numeric(counts$total[names(total)]), unname(total), info = file)
    if (file %in% c("memory.out", "all.out")) {
      mem <- s$by.total$mem.total
      names(mem) <- gsub('^"|"$', "", rownames(s$by.total))
      mem <- mem[names(total)]
      expect_identical(
        round(as.numeric(counts$alloc[names(mem)]) / 2^20, 1), unname(mem),
        info = file
      )
    }
  }
})

test_that("profvis reads rewritten files as it reads the originals", {
  skip_if_not_installed("profvis")
  for (file in c("1.out", "line.out", "memory.out", "all.out")) {
    path <- sample_path("rprof", file)
    out <- withr::local_tempfile(fileext = ".out")
    write_rprof(read_rprof(path), out)
    expect_identical(profvis::parse_rprof(out), profvis::parse_rprof(path), info = file)
  }
})

test_that("v1 objects are written, and read back the same", {
  for (file in c("1.out", "line.out", "gc.out")) {
    v1 <- read_rprof(sample_path("rprof", file), version = "1.0")
    out <- withr::local_tempfile(fileext = ".out")
    expect_identical(write_rprof(v1, out), v1)
    back <- read_rprof(out, version = "1.0")
    strip <- function(x) {
      x <- unclass(x)[c("meta", "sample_types", "samples", "locations", "functions")]
      x$functions$.file_id <- NULL
      names(x$samples$locations) <- NULL
      x
    }
    expect_identical(strip(back), strip(v1), info = file)
  }
  # aggregated rows are written once per tick
  v1 <- read_rprof(sample_path("rprof", "1.out"), version = "1.0")
  v1$samples <- v1$samples[1:3, ]
  v1$samples$value <- c(2L, 1L, 3L)
  out <- withr::local_tempfile(fileext = ".out")
  write_rprof(v1, out)
  lines <- readLines(out)
  expect_identical(lines[[1]], "sample.interval=20000")
  expect_identical(length(lines), 7L)
  expect_identical(lines[2], lines[3])
  expect_identical(utils::summaryRprof(out)$sampling.time, 6 * 0.02)
})

# A profile of another origin (as pprof gives): two functions with files and
# lines, a `samples` count per sample, a period in nanoseconds.
manual_profile <- function(counts, period_unit = "nanoseconds") {
  n <- length(counts)
  new_profile_v2(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(
      source_id = 1L, source_type = "manual", source_uri = NA_character_,
      source_timestamp = NA_real_, period_type = "cpu", period_unit = period_unit,
      period = 1e7
    ),
    samples = tibble::tibble(sample_id = seq_len(n), source_id = 1L),
    sample_values = tibble::tibble(
      sample_id = seq_len(n), type = "samples", unit = "count", value = counts
    ),
    sample_locations = tibble::tibble(
      sample_id = rep(seq_len(n), each = 2), depth = rep(1:2, n), location_id = rep(1:2, n)
    ),
    locations = tibble::tibble(location_id = 1:2, function_id = 1:2, line = c(12L, 3L)),
    functions = tibble::tibble(
      function_id = 1:2,
      name = c("main.fib", "main.main"),
      system_name = c("main.fib", "main.main"),
      filename = c("/src/fib.go", "/src/main.go"), start_line = c(10L, 1L)
    )
  )
}

test_that("other profiles get a header from their content and a line per tick", {
  out <- withr::local_tempfile(fileext = ".out")
  write_rprof(manual_profile(c(3, 1)), out)
  expect_identical(readLines(out), c(
    "line profiling: sample.interval=10000",
    "#File 1: /src/fib.go",
    "#File 2: /src/main.go",
    rep('1#12 "main.fib" 2#3 "main.main" ', 4)
  ))
  s <- utils::summaryRprof(out)
  expect_identical(s$sampling.time, 0.04)
  expect_identical(s$by.self["\"main.fib\"", "self.time"], 0.04)
  p <- profvis::parse_rprof(out)
  expect_identical(nrow(p$prof), 8L)

  write_rprof(manual_profile(1, period_unit = "bytes"), out)
  expect_identical(readLines(out)[[1]], "line profiling: sample.interval=20000")
  expect_error(write_rprof(manual_profile(1.5), out), class = "profile_error_invalid")
})

test_that("writes are atomic and errors are classed", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  missing_dir <- file.path(withr::local_tempdir(), "no", "such", "dir", "p.out")
  err <- expect_error(write_rprof(x, missing_dir), class = "profile_error_io")
  expect_match(conditionMessage(err), "p.out", fixed = TRUE)

  dir <- withr::local_tempdir()
  out <- file.path(dir, "p.out")
  writeLines("old", out)
  expect_error(write_rprof(manual_profile(-1), out), class = "profile_error")
  expect_identical(readLines(out), "old")
  expect_identical(list.files(dir, all.files = TRUE, no.. = TRUE), "p.out")
  write_rprof(x, out)
  expect_identical(readLines(out), readLines(sample_path("rprof", "1.out")))
  expect_error(write_rprof(x, c(out, out)), class = "profile_error_argument")
  expect_error(write_rprof(list(), out), class = "profile_error")
})

test_that("profiles recorded here round-trip, appended sessions included", {
  f <- withr::local_tempfile(fileext = ".out")
  record_rprof(f, memory.profiling = TRUE, line.profiling = TRUE, seconds = 0.3)
  record_rprof(f, append = TRUE, gc.profiling = TRUE, line.profiling = TRUE, seconds = 0.3)
  out <- withr::local_tempfile(fileext = ".out")
  write_rprof(read_rprof(f), out)
  expect_identical(readLines(out), readLines(f))
})

test_that("pprof profiles are written with one line per tick", {
  x <- read_pprof(sample_path("pprof", "cpu.pb.gz"))
  out <- withr::local_tempfile(fileext = ".out")
  write_rprof(x, out)
  t <- dm::dm_get_tables(x)
  counts <- t$sample_values[t$sample_values$type == "samples", ]
  lines <- readLines(out)
  # the period of the Go profile is 4 ms
  expect_identical(lines[[1]], "line profiling: sample.interval=4000")
  expect_identical(sum(!grepl("^#File |sample\\.interval=", lines)), as.integer(sum(counts$value)))
  expect_identical(nrow(dm::dm_get_tables(read_rprof(out))$samples), as.integer(sum(counts$value)))

  # innermost frames, weighted by the counts, are summaryRprof()'s self counts
  inner <- t$sample_locations[t$sample_locations$depth == 1L, ]
  inner_function <- t$locations$function_id[match(inner$location_id, t$locations$location_id)]
  fun <- t$functions[match(inner_function, t$functions$function_id), ]
  name <- ifelse(nzchar(fun$system_name), fun$system_name, fun$name)
  self <- tapply(counts$value[match(inner$sample_id, counts$sample_id)], name, sum)
  s <- utils::summaryRprof(out)
  expected <- summary_counts(s$by.self, "self.time", s$sample.interval)
  expect_gt(length(expected), 3)
  expect_identical(as.numeric(self[names(expected)]), unname(expected))
})

# Found by the composition suite: all.out's 12 ticks without frames (memory
# only), written to pprof, come back as one sample with a count of 12;
# write_rprof() writes it as 12 blank lines, which read_rprof() passed over
# (431 ticks came back as 419). summaryRprof() counts each line as a tick.
test_that("a sample without frames and a count of n is n ticks, written and read back", {
  x <- read_rprof(sample_path("rprof", "all.out"))
  via_pprof <- read_pprof(write_pprof_tmp(x))
  tables <- dm::dm_get_tables(via_pprof)
  frameless <- setdiff(tables$samples$sample_id, tables$sample_locations$sample_id)
  counts <- tables$sample_values
  counts <- counts$value[counts$type == "samples" & counts$sample_id %in% frameless]
  expect_identical(counts, 12)
  out <- withr::local_tempfile(fileext = ".out")
  write_rprof(via_pprof, out)
  y <- read_rprof(out)
  ticks <- function(p) {
    v <- dm::dm_get_tables(p)$sample_values
    sum(v$value[v$type == "samples"])
  }
  expect_identical(ticks(y), ticks(x))
  expect_identical(ticks(y), 431)
  # summaryRprof(): sample.interval x ticks, the blank lines counted
  s <- suppressWarnings(utils::summaryRprof(out, lines = "show"))
  expect_equal(s$sampling.time, 431 * 0.004)
  expect_equal(attr(profile_summary(y, type = "time"), "grand_total"), s$sampling.time)
})
