# Hostile files read in bounded memory (?profile_error, "Limits"): each in a
# child R process whose address space is capped at 4 GB (`ulimit -v`), as in a
# container, so that an allocation that fails ends that process, not this one.
# Each must give a profile_error of the documented class, within seconds, with
# the child's peak resident memory less than 1 GB above what it was before the
# read. The files are made at test time (helper-bombs.R).

expect_refused_when_capped <- function(reader, name, kind, ...) {
  res <- read_in_capped_process(reader, bomb(name))
  if (is.null(res)) {
    return(invisible())
  }
  label <- sprintf("%s(\"%s\")", reader, name)
  expect_true(
    "profile_error" %in% res$class,
    label = paste(label, "gives a profile_error:", res$message)
  )
  expect_true(paste0("profile_error_", kind) %in% res$class,
    label = paste(label, "is of class", kind, "-", paste(res$class, collapse = "/"), res$message)
  )
  expect_match(res$message, name, fixed = TRUE, label = paste(label, "names the file"))
  for (part in c(...)) {
    expect_match(res$message, part, fixed = TRUE, label = paste(label, "says", part))
  }
  expect_lt(res$peak, 1e9, label = paste(label, "peak memory"))
  expect_lt(res$seconds, 30, label = paste(label, "seconds"))
  invisible(res)
}

test_that("the issue's bombs: a string table, Rprof lines, zeros", {
  skip_unless_capped_processes()
  # 2 GiB of data each, a few MB on disk
  expect_lt(file.size(bomb("strings.pb.gz")), 5e6)
  expect_refused_when_capped(
    "read_pprof", "strings.pb.gz", "limit", "profile.max_memory", "strings"
  )
  expect_refused_when_capped(
    "read_rprof", "lines.out.gz", "limit", "profile.max_memory", "lines"
  )
  # known to be wrong from the first bytes
  zeros_rprof <- expect_refused_when_capped(
    "read_rprof", "zeros.gz", "format", "not an Rprof file"
  )
  zeros_pprof <- expect_refused_when_capped(
    "read_pprof", "zeros.gz", "format", "not a pprof protobuf file"
  )
  # refused from the first bytes: the child's memory grows by a few MiB (about
  # 13 here), not by the data (work, not a wall clock, which a loaded machine
  # stretches)
  expect_lt(zeros_rprof$peak, 32 * 2^20)
  expect_lt(zeros_pprof$peak, 32 * 2^20)
})

test_that("counts and lengths no file of the size can hold", {
  skip_unless_capped_processes()
  # a billion empty samples
  expect_refused_when_capped(
    "read_pprof", "samples.pb.gz", "limit", "profile.max_memory", "samples"
  )
  # a string claiming 2^40 bytes, then one claiming 3 GiB: refused at once
  long <- expect_refused_when_capped(
    "read_pprof", "length.pb.gz", "limit", "claims 1099511627776 bytes", "max_size"
  )
  string <- expect_refused_when_capped(
    "read_pprof", "string.pb.gz", "limit", "profile.max_memory"
  )
  # refused before the claimed bytes are allocated or read: the 2^40-byte
  # claim at once (about 13 MiB, the read's start), the 3 GiB one after the
  # budget (about 130 MiB), both far below the claims
  expect_lt(long$peak, 32 * 2^20)
  expect_lt(string$peak, 2^28)
})

test_that("OTLP bombs are refused while inflated, within 300 MB", {
  skip_unless_capped_processes()
  # 2 GiB of data each, 2 MB on disk: what decoding them takes is counted as
  # they are inflated (8 bytes a packed number, a Sample a sample), so the
  # read stops long before inflating them whole (which took 2.1 GB)
  expect_lt(file.size(bomb("values.otlp.gz")), 5e6)
  values <- expect_refused_when_capped(
    "read_otlp", "values.otlp.gz", "limit", "profile.max_memory", "numbers"
  )
  samples <- expect_refused_when_capped(
    "read_otlp", "samples.otlp.gz", "limit", "profile.max_memory", "samples"
  )
  expect_lt(values$peak, 3e8)
  expect_lt(samples$peak, 3e8)
})

test_that("long, deep and inlined stacks", {
  skip_unless_capped_processes()
  expect_refused_when_capped(
    "read_rprof", "stacks.out.gz", "limit", "profile.max_memory", "frames"
  )
  expect_refused_when_capped("read_rprof", "deep.out.gz", "limit", "more than 1000000 frames")
  expect_refused_when_capped("read_pprof", "inlined.pb.gz", "limit", "frames")
})

test_that("bzip2 and xz data, decompressed by R, are checked as they come", {
  skip_unless_capped_processes()
  expect_refused_when_capped(
    "read_rprof", "lines.out.xz", "limit", "profile.max_memory", "lines"
  )
  expect_refused_when_capped("read_rprof", "zeros.bz2", "format", "not an Rprof file")
})

test_that("profile.max_memory sets the limit; the message says how much is needed", {
  path <- sample_path("rprof", "memory.out")
  withr::with_options(list(profile.max_memory = 10000), {
    err <- expect_profile_error(
      read_rprof(path), "limit", "memory.out", "profile.max_memory", "of memory"
    )
    expect_match(conditionMessage(err), "needs at least [0-9.]+ KiB")
    expect_profile_error(
      read_pprof(sample_path("pprof", "heap.pb.gz")), "limit", "heap.pb.gz", "profile.max_memory"
    )
  })
  withr::with_options(list(profile.max_memory = 1e9), {
    expect_s3_class(read_rprof(path), "dm")
  })
  for (bad in list(-1, "a lot", NA, c(1, 2))) {
    withr::with_options(list(profile.max_memory = bad), {
      expect_profile_error(read_rprof(path), "argument", "profile.max_memory")
    })
  }
})

test_that("a gzip file whose data are not Rprof is refused after its first bytes", {
  dir <- local_dir()
  # 24 MiB of a pprof file's kind of data: refused without inflating them all
  path <- gzip_file(dir, "pprof.gz", rep(as.raw(c(0x0a, 0x04, 0x08, 0x01, 0x10, 0x02)), 2^22))
  time <- system.time(
    expect_profile_error(read_rprof(path), "format", "pprof.gz", "not an Rprof file")
  )
  expect_lt(cpu_seconds(time), 1)
})

test_that("R failing to allocate is a profile_error_limit in R's language, whichever it is", {
  # R's message in the session's language (here German), and any other error
  # there, through the wrapper of every exported function
  translated <- function(language, expr) {
    old <- Sys.setLanguage(language)
    on.exit(Sys.setLanguage(old), add = TRUE)
    tryCatch(with_profile_errors("internal", "Can't do it.", expr), error = identity)
  }
  english <- translated("en", numeric(1e15))
  expect_s3_class(english, "profile_error_limit")
  expect_match(conditionMessage(english$parent), "cannot allocate vector of size", fixed = TRUE)
  german <- translated("de", numeric(1e15))
  skip_if(
    grepl("cannot allocate", conditionMessage(german$parent), fixed = TRUE),
    "R has no German translations here"
  )
  expect_s3_class(german, "profile_error_limit")
  expect_match(conditionMessage(german$parent), "nicht allozieren", fixed = TRUE)
  expect_s3_class(translated("de", sqrt("a")), "profile_error_internal")
  # a message R translates with its numbers first
  expect_s3_class(translated("ja", numeric(1e15)), "profile_error_limit")
})

test_that("an R vector R cannot allocate is a profile_error_limit, not R's error across Rust", {
  res <- ffi_profile_debug_alloc(2^50)
  expect_false(res$ok)
  expect_identical(res$kind, "limit")
  expect_match(
    res$message, "R could not allocate a vector of 1125899906842624 values",
    fixed = TRUE
  )
  expect_length(rust_value(ffi_profile_debug_alloc(3), "Can't allocate."), 3L)
})
