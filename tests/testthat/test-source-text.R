# source_lines: the text of the source files a profile's frames name, kept by
# the readers while the files exist; validated, combined, kept by the verbs,
# ignored by the writers.

# A profile recorded here with Rprof() from a script sourced with source
# references, named relative to `dir` (the working directory of the
# recording): the Rprof file and the script's lines.
record_relative <- function(dir) {
  withr::local_dir(dir)
  dir.create("code")
  lines <- c(
    "work <- function(n) {",
    "  x <- 0",
    "  for (i in seq_len(n)) x <- x + sqrt(i) * sin(i)",
    "  x",
    "}"
  )
  writeLines(lines, file.path("code", "work.R"))
  env <- new.env()
  sys.source(file.path("code", "work.R"), envir = env, keep.source = TRUE)
  out <- file.path(dir, "work.out")
  utils::Rprof(out, interval = 0.002, line.profiling = TRUE)
  env$work(3e5)
  utils::Rprof(NULL)
  list(out = out, lines = lines)
}

test_that("read_rprof() keeps the text of its frames' files, relative to the working directory", {
  dir <- withr::local_tempdir()
  rec <- record_relative(dir)
  expect_true(any(grepl("^#File [0-9]+: code/work.R$", readLines(rec$out))))
  # from the directory of the recording: found
  x <- withr::with_dir(dir, read_rprof(rec$out))
  lines <- dm::dm_get_tables(x)$source_lines
  expect_identical(names(lines), c("source_id", "filename", "line", "text"))
  expect_identical(lines$filename, rep("code/work.R", 5))
  expect_identical(lines$line, 1:5)
  expect_identical(lines$text, rec$lines)
  expect_identical(lines$source_id, rep(1L, 5))
  expect_silent(validate_profile(x))
  # from elsewhere: not found, unless the directory is given
  elsewhere <- withr::with_dir(tempdir(), read_rprof(rec$out))
  expect_identical(nrow(dm::dm_get_tables(elsewhere)$source_lines), 0L)
  given <- withr::with_dir(tempdir(), read_rprof(rec$out, source_text = dir))
  expect_identical(dm::dm_get_tables(given)$source_lines, lines)
  # not at all
  none <- withr::with_dir(dir, read_rprof(rec$out, source_text = FALSE))
  expect_identical(nrow(dm::dm_get_tables(none)$source_lines), 0L)
  withr::with_options(list(profile.source_text = FALSE), {
    skipped <- withr::with_dir(dir, read_rprof(rec$out))
    expect_identical(nrow(dm::dm_get_tables(skipped)$source_lines), 0L)
  })
  expect_profile_error(read_rprof(rec$out, source_text = NA), "argument")
  expect_profile_error(read_rprof(rec$out, source_text = c("a", "b")), "argument")
  # v1 objects have no such table
  expect_null(withr::with_dir(dir, read_rprof(rec$out, version = "1.0"))$source_lines)
})

test_that("read_pprof() keeps the text of its files", {
  dir <- withr::local_tempdir()
  heap <- read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile"))
  files <- unique(dm::dm_get_tables(heap)$functions$filename)
  go <- files[grepl("[.]go$", files)][1:2]
  for (f in go) {
    dir.create(file.path(dir, dirname(f)), recursive = TRUE, showWarnings = FALSE)
    writeLines(c("package x", paste("// of", f)), file.path(dir, f))
  }
  x <- read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile"), source_text = dir)
  lines <- dm::dm_get_tables(x)$source_lines
  expect_setequal(unique(lines$filename), go)
  expect_identical(lines$text[lines$filename == go[[1]]], c("package x", paste("// of", go[[1]])))
})

test_that("only regular text files with a source-code extension, within the limits, are read", {
  dir <- withr::local_tempdir()
  writeLines("SECRET", file.path(dir, "credentials"))
  writeLines("x <- 1", file.path(dir, "ok.R"))
  writeBin(as.raw(c(0x66, 0x00, 0x67)), file.path(dir, "binary.c"))
  writeLines(strrep("x", 2^20 + 10), file.path(dir, "big.py"))
  dir.create(file.path(dir, "folder.R"))
  rows <- read_source_lines(
    c("credentials", "ok.R", "binary.c", "big.py", "folder.R", "missing.go", NA, ""),
    source_id = 3L, source_text = dir
  )
  expect_identical(rows$filename, "ok.R")
  expect_identical(rows$text, "x <- 1")
  expect_identical(rows$source_id, 3L)
  # an absolute name is read as it is
  rows <- read_source_lines(file.path(dir, "ok.R"), source_id = 1L, source_text = "/nonexistent")
  expect_identical(rows$text, "x <- 1")
  # invalid UTF-8 as <xx>, line ends \r\n
  bytes <- c(charToRaw("a <- 1\r\nb <- '"), as.raw(0xe9), charToRaw("'\n"))
  writeBin(bytes, file.path(dir, "latin1.R"))
  rows <- read_source_lines("latin1.R", source_id = 1L, source_text = dir)
  expect_identical(rows$text, c("a <- 1", "b <- '<e9>'"))
})

test_that("source_lines: validated, combined with new source ids, kept by verbs, not written", {
  dir <- withr::local_tempdir()
  rec <- record_relative(dir)
  x <- withr::with_dir(dir, read_rprof(rec$out))
  tables <- dm::dm_get_tables(x, keyed = FALSE)

  # its key: source_id must name a source
  bad <- tables
  bad$source_lines$source_id[[2]] <- 99L
  expect_profile_error(do.call(new_profile_v2, bad), "invalid", "source_lines", "source_id")
  bad <- tables
  bad$source_lines$line[[1]] <- 0L
  expect_profile_error(do.call(new_profile_v2, bad), "invalid", "source_lines", "line")
  bad <- tables
  bad$source_lines$text[[1]] <- NA
  expect_profile_error(do.call(new_profile_v2, bad), "invalid", "source_lines", "text")

  # combined: the second input's lines with its new source id
  both <- combine_profiles(x, x)
  lines <- dm::dm_get_tables(both)$source_lines
  expect_identical(lines$source_id, rep(c(1L, 2L), each = 5))
  expect_identical(lines$text, rep(rec$lines, 2))
  expect_silent(validate_profile(both))

  # verbs keep it
  verbs <- list(
    profile_focus(x, "work"), profile_hide(x, "sin"), profile_select_types(x, "samples")
  )
  for (y in verbs) {
    expect_identical(dm::dm_get_tables(y)$source_lines, tables$source_lines)
  }

  # writers do not write it: the files are as without it
  without <- tables
  without$source_lines <- NULL
  without <- do.call(new_profile_v2, without)
  for (write in list(write_rprof, write_pprof)) {
    a <- withr::local_tempfile()
    b <- withr::local_tempfile()
    write(x, a)
    write(without, b)
    expect_identical(readBin(a, "raw", 1e7), readBin(b, "raw", 1e7))
  }
  expect_identical(readLines(withr::with_dir(dir, {
    out <- withr::local_tempfile()
    write_rprof(x, out)
    out
  })), readLines(rec$out))
})
