# Malformed pprof messages (built by hand, see helper-pprof.R): each is a
# profile_error_format naming the file and what is wrong, with the byte offset
# where the wire format itself is broken.

expect_pprof_error <- function(bytes, kind, ...) {
  path <- write_raw(bytes)
  on.exit(unlink(path))
  expect_profile_error(read_pprof(path), kind, basename(path), ...)
}

test_that("truncated protobuf: the offset of the cut", {
  msg <- pprof_message()
  for (cut in c(3L, 10L, length(msg) %/% 2L, length(msg) - 1L)) {
    err <- expect_pprof_error(
      msg[seq_len(cut)], "format", "not a valid pprof protobuf message", "byte offset"
    )
    offset <- as.numeric(sub(".*byte offset ([0-9]+).*", "\\1", conditionMessage(err)))
    expect_lt(offset, cut)
  }
  real <- read_gz(sample_path("pprof", "heap.pb.gz"))
  expect_pprof_error(real[seq_len(length(real) - 7L)], "format", "claims", "remain")
  # the same inside gzip: the offset is in the decompressed data
  path <- write_gz(real[seq_len(length(real) - 7L)])
  expect_profile_error(read_pprof(path), "format", "of the decompressed data")
})

test_that("a length claiming 2^62 bytes is refused at once", {
  huge <- c(as.raw(0x12), as.raw(c(rep(0x80, 8), 0x40)))
  msg <- c(pprof_message(), huge, charToRaw("more"))
  time <- system.time(
    expect_pprof_error(
      msg, "format", paste0("byte offset ", length(pprof_message()) + 1), "4611686018427387904"
    )
  )
  expect_lt(cpu_seconds(time), 5)
})

test_that("string index out of range", {
  expect_pprof_error(
    pprof_message(function_name = 99), "format", "the name of function 1 refers to string 99"
  )
  expect_pprof_error(
    pprof_message(label_key = 8), "format", "the key of label 1 of sample 1 refers to string 8"
  )
  expect_pprof_error(pprof_message(label_key = 2^40), "format", "refers to string 1099511627776")
})

test_that("location and function id 0", {
  expect_pprof_error(
    pprof_message(location_ids = c(0, 2), stack = 2),
    "format",
    "location 1 (in file order) has id 0"
  )
  expect_pprof_error(
    pprof_message(function_ids = c(1, 0), line_functions = c(1, 1, 1)),
    "format",
    "function 2 (in file order) has id 0"
  )
  expect_pprof_error(pprof_message(stack = c(1, 0)), "format", "sample 1 refers to location 0")
  expect_pprof_error(
    pprof_message(line_functions = c(1, 0, 2)), "format", "line 2 of location 1 has no function"
  )
})

test_that("dangling and duplicate ids", {
  expect_pprof_error(
    pprof_message(stack = c(1, 7)),
    "format",
    "sample 1 refers to location 7, which is not in the profile"
  )
  expect_pprof_error(
    pprof_message(line_functions = c(1, 9, 2)),
    "format",
    "refers to function 9, which is not in the profile"
  )
  expect_pprof_error(
    pprof_message(location_ids = c(2, 2)), "format", "location id 2 occurs more than once"
  )
  expect_pprof_error(
    pprof_message(function_ids = c(1, 1)), "format", "function id 1 occurs more than once"
  )
  expect_pprof_error(pprof_message(location_ids = c(2^63, 2^63)), "format", "occurs more than once")
})

test_that("a mapping id that names no mapping means no mapping, as in Go's parser", {
  line <- pb_len(4, c(pb_int(1, 2), pb_int(2, 40)))
  extra <- pb_len(4, c(pb_int(1, 3), pb_int(2, 9), line))
  t <- dm::dm_get_tables(read_pprof(write_raw(c(pprof_message(), extra))))
  expect_identical(t$locations$mapping_id[t$locations$location_id == 3L], NA_integer_)
  expect_identical(nrow(t$mappings), 0L)
})

test_that("the string table must start with the empty string, as Go's parser requires", {
  strings <- c("", "samples", "count", "f", "g", "file.go", "worker", "w")
  expect_pprof_error(
    pprof_message(strings = c("x", strings[-1])),
    "format",
    "first entry of the string table is \"x\""
  )
  no_strings <- pb_len(1, c(pb_int(1, 0), pb_int(2, 0)))
  expect_pprof_error(no_strings, "format", "the string table is empty")
})

test_that("value and sample type counts that differ", {
  expect_pprof_error(
    pprof_message(values = c(5, 6)),
    "format",
    "sample 1 has 2 values, but the profile declares 1 sample types"
  )
  expect_pprof_error(pprof_message(values = numeric()), "format", "sample 1 has 0 values")
})

test_that("wrong wire types and field numbers", {
  # Profile.sample (field 2) as a varint
  expect_pprof_error(
    c(pprof_message(), pb_int(2, 5)), "format", "field 2 (Profile.sample) has wire type 0"
  )
  # group wire types, which Go's parser refuses also in fields it does not know
  expect_pprof_error(
    c(pprof_message(), as.raw(c(0xab, 0x01))),
    "format",
    "field 21 of a Profile message uses the group wire type 3"
  )
  # field number 0 is a field Go's parser does not know: skipped, as Go does
  plain <- dm::dm_get_tables(read_pprof(write_raw(pprof_message())))
  skipped <- dm::dm_get_tables(read_pprof(write_raw(c(pprof_message(), as.raw(c(0x02, 0x00))))))
  expect_identical(skipped[names(skipped) != "sources"], plain[names(plain) != "sources"])
})

test_that("an inlined location repeated by many samples is refused before memory is spent", {
  line <- function(fn, l) pb_len(4, c(pb_int(1, fn), pb_int(2, l)))
  lines <- do.call(c, rep(list(line(1, 1)), 20000))
  loc <- pb_len(4, c(pb_int(1, 1), lines))
  stack <- pb_len(1, rep(as.raw(1), 5000))
  sample <- pb_len(2, c(stack, pb_len(2, pb_varint(1))))
  msg <- c(
    pb_len(1, c(pb_int(1, 1), pb_int(2, 2))),
    do.call(c, rep(list(sample), 50)),
    loc,
    pb_len(5, c(pb_int(1, 1), pb_int(2, 3))),
    unlist(lapply(c("", "samples", "count", "f"), function(s) pb_len(6, s)))
  )
  expect_lt(length(msg), 1e6)
  time <- system.time(expect_pprof_error(msg, "limit", "frames"))
  expect_lt(cpu_seconds(time), 10)
})

test_that("random damage to real files gives a profile_error or a valid profile", {
  real <- read_gz(sample_path("pprof", "cpu.pb.gz"))
  withr::local_seed(20)
  for (i in 1:40) {
    bytes <- real
    at <- sample.int(length(bytes), 3)
    bytes[at] <- as.raw(sample.int(256, 3) - 1)
    path <- write_raw(bytes)
    res <- tryCatch(read_pprof(path), profile_error = function(e) e)
    if (inherits(res, "profile_error")) {
      expect_match(conditionMessage(res), basename(path), fixed = TRUE)
    } else {
      expect_silent(validate_profile(res))
    }
    unlink(path)
  }
})
