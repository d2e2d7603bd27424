# Folded stacks: write_folded() and read_folded().

test_that("write_folded() writes one line per distinct stack, root first, merged", {
  x <- v2_from_stacks(c("main;f;g", "main;f", "main;f;g", "main;h", ""), values = c(1, 2, 4, 8, 16))
  path <- withr::local_tempfile(fileext = ".folded")
  expect_identical(write_folded(x, path), x)
  expect_identical(readLines(path), c("main;f 2", "main;f;g 5", "main;h 8"))
})

test_that("read_folded() gives one sample per line and round-trips", {
  path <- withr::local_tempfile(fileext = ".folded")
  writeLines(c("main;f;g 3", "main;f 2", "", "main;f;g 1", "slow sum;x[[\"b c\"]] 7"), path)
  x <- read_folded(path)
  expect_identical(class(x), c("profile_v2", "dm"))
  expect_silent(validate_profile(x))
  tables <- dm::dm_get_tables(x)
  expect_identical(tables$samples$sample_id, 1:4)
  expect_identical(tables$sources$source_type, "folded")
  expect_identical(tables$sources$source_uri, path)
  expect_identical(tables$sample_values$type, rep("samples", 4))
  expect_identical(tables$sample_values$unit, rep("count", 4))
  expect_identical(tables$sample_values$value, c(3, 2, 1, 7))
  expect_identical(tables$functions$name, c("main", "f", "g", "slow sum", "x[[\"b c\"]]"))
  expect_identical(tables$locations$line, rep(0L, 5))
  expect_identical(tables$locations$function_id, tables$functions$function_id)
  # sample 1 is main;f;g: g innermost
  s1 <- tables$sample_locations[tables$sample_locations$sample_id == 1L, ]
  expect_identical(tables$functions$name[s1$location_id[order(s1$depth)]], c("g", "f", "main"))

  again <- withr::local_tempfile(fileext = ".folded")
  write_folded(x, again)
  expect_identical(readLines(again), c("main;f 2", "main;f;g 4", "slow sum;x[[\"b c\"]] 7"))
  y <- read_folded(again)
  third <- withr::local_tempfile(fileext = ".folded")
  write_folded(y, third)
  expect_identical(readLines(third), readLines(again))
})

test_that("type and unit of read_folded(), and writing another type", {
  path <- withr::local_tempfile(fileext = ".folded")
  writeLines(c("main;alloc 4096", "main 0.5"), path)
  x <- read_folded(path, type = "alloc_space", unit = "bytes", source_uri = "memory")
  tables <- dm::dm_get_tables(x)
  expect_identical(unique(tables$sample_values$type), "alloc_space")
  expect_identical(tables$sources$source_uri, "memory")
  expect_identical(tables$sample_values$value, c(4096, 0.5))
  out <- withr::local_tempfile(fileext = ".folded")
  write_folded(x, out)
  expect_identical(readLines(out), c("main 0.5", "main;alloc 4096"))

  two <- with_second_type(v2_from_stacks(c("main;f", "main")), "alloc_size", "bytes", c(10, 20))
  write_folded(two, out, type = "alloc_size")
  expect_identical(readLines(out), c("main 20", "main;f 10"))
  expect_error(
    write_folded(with_second_type(two, "node_heap", "bytes", 1), out, type = "node_heap"),
    class = "profile_error_argument"
  )
})

test_that("frame names with ; \\ and newlines are escaped and come back", {
  names <- c("a;b", "back\\slash", "two\nlines", "cr\rhere", "plain")
  x <- new_profile_v2(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(
      source_id = 1L,
      source_type = "manual",
      source_uri = NA_character_,
      source_timestamp = NA_real_
    ),
    samples = tibble::tibble(sample_id = 1L, source_id = 1L),
    sample_values = tibble::tibble(sample_id = 1L, type = "samples", unit = "count", value = 1),
    sample_locations = tibble::tibble(sample_id = 1L, depth = 1:5, location_id = 1:5),
    locations = tibble::tibble(location_id = 1:5, function_id = 1:5, line = 0L),
    functions = tibble::tibble(
      function_id = 1:5, name = names, system_name = names, filename = "", start_line = 0L
    )
  )
  path <- withr::local_tempfile(fileext = ".folded")
  write_folded(x, path)
  lines <- readLines(path)
  expect_length(lines, 1L)
  expect_identical(lines, "plain;cr\\rhere;two\\nlines;back\\\\slash;a\\x3bb 1")
  back <- dm::dm_get_tables(read_folded(path))
  expect_identical(back$functions$name, rev(names))
})

test_that("gzip files are read; a Windows path keeps its backslashes", {
  path <- withr::local_tempfile(fileext = ".folded.gz")
  con <- gzfile(path, "w")
  writeLines(c("C:\\dir\\main;f 2"), con)
  close(con)
  x <- dm::dm_get_tables(read_folded(path))
  expect_identical(x$functions$name, c("C:\\dir\\main", "f"))
})

test_that("bad folded input gives classed errors naming file and line", {
  path <- withr::local_tempfile(fileext = ".folded")
  writeLines(c("main;f 1", "main;g"), path)
  err <- expect_error(read_folded(path), class = "profile_error_format")
  expect_match(conditionMessage(err), "line 2", fixed = TRUE)
  expect_match(conditionMessage(err), basename(path), fixed = TRUE)
  expect_identical(err$path, path)

  expect_error(read_folded(file.path(tempdir(), "no-such.folded")), class = "profile_error_io")
  expect_error(read_folded(tempdir()), class = "profile_error_io")
  expect_error(read_folded(path, max_size = 3), class = "profile_error_limit")
  expect_error(read_folded(c("a", "b")), class = "profile_error_argument")

  x <- v2_from_stacks("main;f")
  expect_error(
    write_folded(x, file.path(tempdir(), "no", "such", "dir.folded")),
    class = "profile_error_io"
  )
  # a path that is a directory is refused, and nothing is left behind
  dir <- withr::local_tempfile()
  dir.create(dir)
  expect_error(write_folded(x, dir), class = "profile_error_io")
  expect_identical(list.files(dir, all.files = TRUE, no.. = TRUE), character())
  expect_identical(
    list.files(dirname(dir), pattern = basename(dir), all.files = TRUE), basename(dir)
  )
})

test_that("an empty file is an empty profile", {
  path <- withr::local_tempfile(fileext = ".folded")
  file.create(path)
  x <- read_folded(path)
  expect_silent(validate_profile(x))
  expect_identical(nrow(dm::dm_get_tables(x)$samples), 0L)
})

test_that("folded stacks of a real Rprof file match the file, line by line", {
  path <- sample_path("rprof", "1.out")
  out <- withr::local_tempfile(fileext = ".folded")
  write_folded(read_rprof(path), out)
  # Expected from the file itself: 1.out has no #File lines, no memory fields and
  # no quotes inside names, so each frame is a quoted string, innermost first.
  raw <- readLines(path)[-1]
  frames <- regmatches(raw, gregexpr('"[^"]*"', raw))
  stacks <- vapply(
    frames, function(f) paste(rev(gsub('"', "", f, fixed = TRUE)), collapse = ";"), ""
  )
  counts <- table(stacks[nzchar(stacks)])
  expected <- paste(names(counts), as.integer(counts))
  written <- readLines(out)
  expect_length(written, length(expected))
  expect_setequal(written, expected)
  expect_gt(length(expected), 50)
})

# Folded lines computed from the v2 tables with base R, for comparison.
folded_from_tables <- function(x, type) {
  t <- dm::dm_get_tables(x)
  sl <- t$sample_locations
  sl <- sl[order(sl$sample_id, -sl$depth), ]
  function_id <- t$locations$function_id[match(sl$location_id, t$locations$location_id)]
  name <- t$functions$name[match(function_id, t$functions$function_id)]
  stack_of_sample <- tapply(name, sl$sample_id, paste, collapse = ";")
  v <- t$sample_values[t$sample_values$type == type, ]
  stack <- stack_of_sample[as.character(v$sample_id)]
  has_stack <- !is.na(stack)
  sums <- tapply(v$value[has_stack], stack[has_stack], sum)
  sums <- sums[sums != 0]
  paste(names(sums), formatC(as.numeric(sums), format = "f", digits = 0))
}

test_that("folded stacks of real Rprof files match stacks computed from the v2 tables", {
  for (file in c("line.out", "memory.out", "all.out", "append.out")) {
    x <- read_rprof(sample_path("rprof", file))
    out <- withr::local_tempfile(fileext = ".folded")
    types <- dm::dm_get_tables(x)$sample_values$type
    for (type in intersect(c("samples", "alloc_size", "duplications"), types)) {
      write_folded(x, out, type = type)
      written <- readLines(out)
      expected <- folded_from_tables(x, type)
      expect_identical(sort(written, method = "radix"), sort(expected, method = "radix"),
        label = paste(file, type)
      )
    }
  }
})

test_that("read_folded(write_folded(x)) has the same summary by function", {
  for (path in c(sample_path("rprof", "line.out"), sample_path("pprof", "cpu.pb.gz"))) {
    x <- if (endsWith(path, ".out")) read_rprof(path) else read_pprof(path)
    out <- withr::local_tempfile(fileext = ".folded")
    type <- attr(profile_summary(x), "sample_type")
    write_folded(x, out, type = type)
    y <- read_folded(out, type = type)
    expect_silent(validate_profile(y))
    before <- profile_summary(x, n = Inf)
    after <- profile_summary(y, n = Inf)
    expect_identical(after$name, before$name)
    expect_equal(after$self, before$self)
    expect_equal(after$total, before$total)
  }
})
