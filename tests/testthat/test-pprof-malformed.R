expect_format_error <- function(bytes, pattern) {
  path <- write_raw(bytes)
  on.exit(unlink(path))
  err <- expect_error(read_pprof(path), class = "profile_error_format")
  expect_match(conditionMessage(err), pattern, fixed = TRUE)
  expect_match(conditionMessage(err), basename(path), fixed = TRUE)
}

test_that("the hand-built message is valid (so the cases below test one defect each)", {
  expect_silent(validate_profile(read_pprof(write_raw(pprof_message()))))
})

test_that("string indices out of range", {
  expect_format_error(
    pprof_message(function_name = 99), "the name of function 1 refers to string 99"
  )
  expect_format_error(
    pprof_message(label_key = 8), "the key of label 1 of sample 1 refers to string 8"
  )
})

test_that("ids that are 0", {
  expect_format_error(
    pprof_message(location_ids = c(0, 2), stack = 2), "location 1 (in file order) has id 0"
  )
  expect_format_error(
    pprof_message(function_ids = c(1, 0), line_functions = c(1, 1, 1)),
    "function 2 (in file order) has id 0"
  )
  expect_format_error(pprof_message(stack = c(1, 0)), "sample 1 refers to location 0")
  expect_format_error(
    pprof_message(line_functions = c(1, 0, 2)), "line 2 of location 1 has no function"
  )
})

test_that("ids that refer to nothing", {
  expect_format_error(
    pprof_message(stack = c(1, 7)), "sample 1 refers to location 7, which is not in the profile"
  )
  expect_format_error(
    pprof_message(line_functions = c(1, 9, 2)), "refers to function 9, which is not in the profile"
  )
})

test_that("duplicate ids", {
  expect_format_error(pprof_message(location_ids = c(2, 2)), "location id 2 occurs more than once")
  expect_format_error(pprof_message(function_ids = c(1, 1)), "function id 1 occurs more than once")
})

test_that("values that do not match the sample types", {
  expect_format_error(
    pprof_message(values = c(5, 6)),
    "sample 1 has 2 values, but the profile declares 1 sample types"
  )
})

test_that("truncated data", {
  plain <- read_gz(sample_path("pprof", "cpu.pb.gz"))
  expect_format_error(plain[seq_len(length(plain) %/% 2)], "not a valid pprof protobuf message")
  gz <- readBin(sample_path("pprof", "cpu.pb.gz"), "raw", 1e6)
  path <- write_raw(gz[seq_len(length(gz) %/% 2)], ".pb.gz")
  expect_error(read_pprof(path), class = "profile_error_format")
})

test_that("files that are not pprof protobuf", {
  # gperftools' legacy binary CPU profile: header words 0, 3, 0, period, 0
  words <- c(0, 3, 0, 10000, 0, 1, 1, 4195792)
  legacy <- unlist(
    lapply(words, function(w) writeBin(as.integer(c(w, 0)), raw(), endian = "little"))
  )
  expect_format_error(legacy, "legacy gperftools CPU profile")
  expect_format_error(
    charToRaw("heap profile:    1:   262144 [     1:   262144] @ heap_v2/524288\n"),
    "legacy text profile"
  )
  expect_format_error(
    charToRaw("goroutine profile: total 6\n1 @ 0x43a1f6 0x4066bd\n"), "legacy text profile"
  )
  expect_format_error(raw(), "empty")
  path <- write_raw(raw())
  expect_error(read_pprof(path), class = "profile_error_format")
  # a gzip file holding text
  expect_error(
    read_pprof(write_gz(charToRaw(strrep("not a profile\n", 100)))), "legacy text profile"
  )
})

test_that("decompression bombs are refused; max_size raises the limit", {
  # A valid message with 200 000 comments (400 kB), compressed to a few kB
  comments <- rep(list(pb_int(13, 1)), 2e5)
  bytes <- c(pprof_message(), unlist(comments))
  path <- write_gz(bytes)
  expect_lt(file.size(path), 20000)
  err <- expect_error(read_pprof(path, max_size = 1e5), class = "profile_error_limit")
  expect_match(conditionMessage(err), "max_size", fixed = TRUE)
  x <- read_pprof(path, max_size = 1e6)
  expect_identical(nrow(dm::dm_get_tables(x)$source_comments), 200000L)
  # plain files larger than the limit are refused before they are read
  plain <- write_raw(bytes)
  expect_error(read_pprof(plain, max_size = 1000), class = "profile_error_limit")
})

test_that("missing files and directories", {
  expect_error(read_pprof(file.path(tempdir(), "no-such-file.pb.gz")), class = "profile_error_io")
  expect_error(read_pprof(tempdir()), class = "profile_error_io")
})

test_that("invalid UTF-8 in strings is repaired, not refused", {
  strings <- list("", "samples", "count", as.raw(c(0x66, 0xe9)), "g", "file.go", "worker", "w")
  bytes <- c(
    pb_len(1, c(pb_int(1, 1), pb_int(2, 2))),
    pb_len(5, c(pb_int(1, 1), pb_int(2, 3), pb_int(3, 3))),
    unlist(lapply(strings, function(s) pb_len(6, s)))
  )
  x <- read_pprof(write_raw(bytes))
  expect_identical(dm::dm_get_tables(x)$functions$name, "f<e9>")
})

test_that("mutated real files give a valid profile or a profile_error, never a crash", {
  plain <- read_gz(sample_path("pprof", "heap.pb.gz"))
  set.seed(20240611)
  outcomes <- character()
  for (i in 1:150) {
    bytes <- plain
    at <- sample(length(bytes), sample(1:4, 1))
    bytes[at] <- as.raw(sample(0:255, length(at), replace = TRUE))
    if (i %% 3 == 0) bytes <- bytes[seq_len(sample(length(bytes), 1))]
    path <- write_raw(bytes)
    res <- tryCatch(read_pprof(path), profile_error = function(e) e)
    unlink(path)
    if (inherits(res, "profile_error")) {
      outcomes <- c(outcomes, "error")
    } else {
      expect_silent(validate_profile(res))
      outcomes <- c(outcomes, "ok")
    }
  }
  # both happen: the test would not notice if every input were refused
  expect_setequal(unique(outcomes), c("error", "ok"))
})
