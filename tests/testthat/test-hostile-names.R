# Text that could trip the way to R: file names and names from files holding
# `%`, `%s`, `%n`, braces, NUL bytes or invalid UTF-8 reach R intact (never as a
# printf format, never breaking cli's glue), and a panic in Rust is an R error.

test_that("paths with braces and printf directives: read, written, named in errors", {
  dir <- local_dir()
  weird <- file.path(dir, "{x}%s%n%%d {.file y}.out")
  write_rprof(read_rprof(sample_path("rprof", "1.out")), weird)
  expect_true(file.exists(weird))
  expect_s3_class(read_rprof(weird), "dm")
  pb <- file.path(dir, "{x}%s%n.pb.gz")
  write_pprof(read_rprof(weird), pb)
  expect_s3_class(read_pprof(pb), "dm")

  # errors name the file literally
  missing <- file.path(dir, "{nope}%s%n.out")
  expect_profile_error(read_rprof(missing), "io", "{nope}%s%n.out")
  garbage <- hostile_file(dir, "{g}%n%s.pb", random_bytes(100, 3))
  expect_profile_error(read_rprof(garbage), "format", "{g}%n%s.pb")
  expect_error(read_pprof(garbage), "{g}%n%s.pb", fixed = TRUE, class = "profile_error")
  expect_profile_error(write_pprof(tiny_v2(), file.path(dir, "{d}", "%s.pb")), "io", "{d}", "%s.pb")
})

test_that("paths that are not valid UTF-8 or are marked latin1", {
  skip_on_os("windows")
  skip_if_not(l10n_info()[["UTF-8"]], "needs a UTF-8 locale")
  dir <- local_dir()
  x <- read_rprof(sample_path("rprof", "1.out"))

  bad <- paste0(dir, "/bad\xff%s.out")
  expect_profile_error(read_rprof(bad), "io", "bad<ff>%s.out", "does not exist")
  write_rprof(x, bad)
  expect_true(file.exists(bad))
  # the file has the bytes of the name given, not an escaped name
  expect_identical(charToRaw(list.files(dir)), charToRaw("bad\xff%s.out"))
  expect_s3_class(read_rprof(bad), "dm")
  expect_identical(
    dm::dm_get_tables(read_rprof(bad))$sources$source_uri[[1]], paste0(dir, "/bad<ff>%s.out")
  )
  garbage <- paste0(dir, "/gar\xfe.pb")
  writeBin(random_bytes(50, 9), garbage)
  expect_profile_error(read_pprof(garbage), "format", "gar<fe>.pb")

  latin1 <- paste0(dir, "/caf\xe9.pb.gz")
  Encoding(latin1) <- "latin1"
  write_pprof(x, latin1)
  expect_true(file.exists(file.path(dir, "caf\u00e9.pb.gz")))
  expect_s3_class(read_pprof(latin1), "dm")
})

test_that("names from files with %s, %n, braces and NUL reach R intact in errors", {
  # A pprof file whose first string is "%s%n{x}\0\xff" (it must be "").
  name <- c(charToRaw("%s%n{x}"), as.raw(c(0x00, 0xff)))
  msg <- c(pb_len(1, c(pb_int(1, 1), pb_int(2, 2))), pb_len(6, name), pb_len(6, "count"))
  path <- write_raw(msg)
  expect_profile_error(
    read_pprof(path), "format", "the first entry of the string table is \"%s%n{x}<00><ff>\""
  )

  # Declared twice as a sample type (Go reads that; the second one gets a
  # suffix), the name reaches R intact as data.
  msg <- c(
    pb_len(1, c(pb_int(1, 1), pb_int(2, 2))),
    pb_len(1, c(pb_int(1, 1), pb_int(2, 2))),
    pb_len(6, raw()), pb_len(6, name), pb_len(6, "count")
  )
  types <- dm::dm_get_tables(read_pprof(write_raw(msg)))$sample_types
  expect_identical(types$type, c("%s%n{x}<00><ff>", "%s%n{x}<00><ff>#2"))

  # An Rprof frame name with printf directives is kept as it is.
  dir <- local_dir()
  rp <- hostile_file(dir, "pct.out", "sample.interval=20000\n\"%s%n%p{x}\" \"main\" \n")
  fun <- dm::dm_get_tables(read_rprof(rp))$functions
  expect_identical(fun$name[[1]], "%s%n%p{x}")
})

test_that("a panic in Rust becomes an R error of class profile_error_internal", {
  panic <- function(message) {
    res <- profile:::ffi_profile_debug_panic(message)
    profile:::rust_value(res, "Rust panicked.")
  }
  msg <- paste0("boom %s%n%n %p {x} \xff")
  err <- expect_profile_error(
    panic(msg), "internal", "Rust panicked.", "please report", "boom %s%n%n %p {x} <ff>"
  )
  # a payload that is not a string
  expect_profile_error(panic(""), "internal", "unknown panic")
  # the session goes on: the package still works after panics
  expect_s3_class(read_rprof(sample_path("rprof", "1.out")), "dm")
})

test_that("a state the Rust code never reaches is an R error of class profile_error_internal", {
  res <- profile:::ffi_profile_debug_internal("columns %s {x} do not line up")
  expect_profile_error(
    profile:::rust_value(res, "Rust failed."),
    "internal", "Rust failed.", "please report", "columns %s {x} do not line up"
  )
})

test_that("source_uri in any encoding is stored as valid UTF-8", {
  x <- read_rprof(sample_path("rprof", "1.out"), source_uri = "uri\xff%s")
  expect_identical(dm::dm_get_tables(x)$sources$source_uri[[1]], "uri<ff>%s")
  expect_profile_error(
    read_rprof(sample_path("rprof", "1.out"), source_uri = 1), "argument", "source_uri"
  )
})
