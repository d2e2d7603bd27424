# profile_summary(): self and total per function, location or file.

row_of <- function(s, name) s[s$name == name, , drop = FALSE]

test_that("self counts the innermost frame, total counts each sample once", {
  # Worked out by hand: f recurses in the first sample, so its total is 2 + 3,
  # not three times 2, plus 3.
  x <- v2_from_stacks(c("main;f;f;f", "main;f;g", "main", "main;g;f"), values = c(2, 3, 5, 7))
  s <- profile_summary(x, n = Inf)
  expect_s3_class(s, "profile_summary")
  expect_s3_class(s, "tbl_df")
  expect_named(s, c("name", "self", "self_pct", "total", "total_pct"))
  expect_equal(row_of(s, "f")$self, 2 + 7)
  expect_equal(row_of(s, "f")$total, 2 + 3 + 7)
  expect_equal(row_of(s, "g")$self, 3)
  expect_equal(row_of(s, "g")$total, 3 + 7)
  expect_equal(row_of(s, "main")$self, 5)
  expect_equal(row_of(s, "main")$total, 17)
  expect_equal(sum(s$self), 17)
  expect_equal(row_of(s, "g")$total_pct, 100 * 10 / 17)
  expect_identical(attr(s, "grand_total"), 17)
  # sorted by self, then total
  expect_identical(s$name, c("f", "main", "g"))
  expect_identical(profile_summary(x, sort = "total")$name, c("main", "f", "g"))
  expect_identical(profile_summary(x, n = 1)$name, "f")
  expect_identical(nrow(profile_summary(x, n = 0)), 0L)
})

test_that("samples without frames count in the total only", {
  x <- v2_from_stacks(c("main;f", ""), values = c(1, 3))
  s <- profile_summary(x)
  expect_identical(attr(s, "grand_total"), 4)
  expect_equal(row_of(s, "f")$self_pct, 25)
  expect_equal(sum(s$self), 1)
})

test_that("by location separates lines of a function, by source groups files", {
  x <- v2_from_stacks(
    c("main@a.R:1;f@b.R:10", "main@a.R:1;f@b.R:11", "main@a.R:2;f@b.R:10", "main@a.R:2;h"),
    values = c(1, 2, 4, 8)
  )
  loc <- profile_summary(x, by = "location", n = Inf)
  expect_named(loc, c("name", "filename", "line", "self", "self_pct", "total", "total_pct"))
  f10 <- loc[loc$name == "f" & loc$line == 10L, ]
  expect_equal(f10$self, 5)
  expect_identical(f10$filename, "b.R")
  expect_equal(loc$total[loc$name == "main" & loc$line == 2L], 12)
  expect_equal(loc$self[loc$name == "h"], 8)
  expect_identical(loc$line[loc$name == "h"], 0L)

  src <- profile_summary(x, by = "source", n = Inf)
  expect_named(src, c("filename", "self", "self_pct", "total", "total_pct"))
  expect_equal(src$self[src$filename == "b.R"], 7)
  expect_equal(src$total[src$filename == "a.R"], 15)
  expect_equal(src$self[src$filename == ""], 8)

  # by line: frames without a line do not count; h's sample has its self on main@2
  line <- profile_summary(x, by = "line", n = Inf)
  expect_named(line, c("filename", "line", "self", "self_pct", "total", "total_pct"))
  expect_identical(nrow(line), 4L)
  expect_equal(line$self[line$filename == "a.R" & line$line == 2L], 8)
  expect_equal(line$total[line$filename == "a.R" & line$line == 2L], 12)
  expect_equal(line$self[line$filename == "b.R" & line$line == 10L], 5)
  expect_equal(sum(line$self), 15)

  fun <- profile_summary(x, by = "function", n = Inf)
  expect_equal(row_of(fun, "f")$total, 7)
})

test_that("the sample type: argument, source default, last type (as go tool pprof)", {
  x <- v2_from_stacks(c("main;f", "main"), values = c(1, 1))
  x2 <- with_second_type(x, "alloc_size", "bytes", c(100, 50))
  expect_identical(attr(profile_summary(x2), "sample_type"), "alloc_size")
  s <- profile_summary(x2, type = "alloc_size")
  expect_identical(attr(s, "unit"), "bytes")
  expect_equal(row_of(s, "f")$self, 100)
  expect_equal(row_of(s, "main")$total, 150)

  only_bytes <- v2_from_stacks(
    c("main;f", "main"),
    values = c(10, 20), type = "alloc_space", unit = "bytes"
  )
  with_cpu <- with_second_type(only_bytes, "cpu", "nanoseconds", 5)
  expect_identical(attr(profile_summary(with_cpu), "sample_type"), "cpu")
  # A gauge is never the default: the last type that can be summed is.
  with_gauge <- with_second_type(with_cpu, "node_heap", "bytes", 1e6)
  expect_identical(attr(profile_summary(with_gauge), "sample_type"), "cpu")
  # The declared types (the `sample_types` table) give the order, as in a
  # pprof file written from the profile.
  tables <- dm::dm_get_tables(with_cpu, keyed = FALSE)
  tables$sample_types <- tibble::tibble(
    source_id = 1L, type = c("cpu", "alloc_space"), unit = c("nanoseconds", "bytes")
  )
  declared <- do.call(new_profile_v2, tables)
  expect_identical(attr(profile_summary(declared), "sample_type"), "alloc_space")

  defaulted <- v2_from_stacks(c("main;f", "main"),
    values = c(10, 20),
    type = "alloc_space", unit = "bytes", default_sample_type = "cpu"
  )
  defaulted <- with_second_type(defaulted, "cpu", "nanoseconds", 5)
  expect_identical(attr(profile_summary(defaulted), "sample_type"), "cpu")
})

test_that("gauges and unknown types are refused with a profile_error", {
  x <- with_second_type(v2_from_stacks("main;f"), "node_heap", "bytes", 1e6)
  for (gauge in profile:::v2_schema()$gauge_types) {
    err <- expect_error(profile_summary(x, type = gauge), class = "profile_error_argument")
    expect_match(conditionMessage(err), "gauge")
  }
  expect_error(profile_summary(x, type = "cpu"), class = "profile_error_argument")
  expect_error(
    profile_summary(x, type = c("samples", "node_heap")),
    class = "profile_error_argument"
  )
  expect_error(profile_summary(x, n = -1), class = "profile_error_argument")
  expect_error(profile_summary(x, by = "file"))
  expect_error(profile_summary(list()), class = "profile_error_argument")
  expect_error(profile_summary(dm::dm(a = data.frame(x = 1))), class = "profile_error_invalid")
})

test_that("print shows the type, the total and how many rows", {
  x <- v2_from_stacks(c("main;f", "main;g", "main"))
  out <- capture.output(print(profile_summary(x, n = 2)))
  expect_match(out[[1]], "samples \\(count\\) by function")
  expect_match(out[[2]], "Total: +3$")
  expect_match(out[[3]], "top 2 of 3 functions by self")
})

test_that("summary() of a v1 object is its profile_summary()", {
  v1 <- structure(list(
    meta = tibble::tibble(key = "version", value = "1.0"),
    sample_types = tibble::tibble(type = "samples", unit = "count"),
    samples = tibble::tibble(
      value = c(3L, 1L),
      locations = list(
        tibble::tibble(location_id = c(2L, 2L, 1L)), tibble::tibble(location_id = 1L)
      )
    ),
    locations = tibble::tibble(location_id = 1:2, function_id = 1:2, line = 0L),
    functions = tibble::tibble(
      function_id = 1:2, name = c("main", "f"), system_name = c("main", "f"),
      filename = "", start_line = 0L
    )
  ), class = "profile_data")
  s <- summary(v1)
  expect_s3_class(s, "profile_summary")
  expect_equal(row_of(s, "f")$self, 3)
  expect_equal(row_of(s, "f")$total, 3)
  expect_equal(row_of(s, "main")$total, 4)
  expect_equal(summary(v1, sort = "total")$name, c("main", "f"))
})

test_that("the sample type is matched by its text, whatever the strings' encoding", {
  # `größe` as latin1 in the profile, asked for in UTF-8: one type
  latin1 <- iconv("gr\u00f6\u00dfe", "UTF-8", "latin1")
  expect_identical(Encoding(latin1), "latin1")
  x <- with_second_type(
    v2_from_stacks(c("main;f", "main"), values = c(1, 1)), latin1, "bytes", c(30, 12)
  )
  s <- profile_summary(x, type = "gr\u00f6\u00dfe")
  expect_equal(row_of(s, "f")$self, 30)
  expect_identical(attr(s, "grand_total"), 42)
})

test_that("a type in several units cannot be summed", {
  x <- v2_from_stacks(c("main;f", "main"), values = c(1, 1))
  x <- with_second_type(x, "alloc_space", "bytes", c(30, 12))
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  v <- tables$sample_values
  v$unit[v$type == "alloc_space"][2] <- "kilobytes"
  tables$sample_values <- v
  err <- expect_error(profile_summary(do.call(new_profile_v2, tables), type = "alloc_space"),
    class = "profile_error_unsupported"
  )
  expect_match(conditionMessage(err), "several units")
})

test_that("memory samples are summed from their compact columns", {
  # the values of one type chosen in Rust match those chosen in R on a plain copy
  lines <- readLines(system.file("samples/rprof/memory.out", package = "profile"))
  path <- withr::local_tempfile(fileext = ".out")
  writeLines(c(lines[[1]], rep_len(lines[-1], 50 * (length(lines) - 1))), path)
  x <- read_rprof(path)
  s <- profile_summary(x, type = "alloc_size", n = Inf)
  sv <- unserialize(serialize(x$sample_values, NULL))
  expect_identical(attr(s, "grand_total"), sum(sv$value[sv$type == "alloc_size"]))
  expect_identical(attr(s, "unit"), "bytes")
  expect_identical(
    profile:::rust_value(profile:::ffi_profile_column_form(x$sample_values$type)), "cycle"
  )
})
