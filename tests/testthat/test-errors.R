# The messages of the package's errors and warnings, one snapshot per class of
# ?profile_error (and per area: reading, writing, verbs, databases, OTLP,
# recording), so that a changed message shows in review. Inputs are the sample
# files and damaged copies of them, made in a directory of the test that is
# the working directory, so that the paths in the messages are the same on
# every machine. The classes themselves are judged by the tests of each area.

# A fresh working directory with copies of the sample files (`names` under
# inst/samples) in it, both gone when the calling test ends.
local_sample_dir <- function(names = character(), env = parent.frame()) {
  dir <- local_dir(env)
  for (name in names) {
    file.copy(sample_path(name), file.path(dir, basename(name)))
  }
  withr::local_dir(dir, .local_envir = env)
  dir
}

# The first `n` bytes of the file `from`, written to `to`.
truncated_copy <- function(from, to, n) {
  writeBin(readBin(from, "raw", n), to)
  to
}

test_that("reading: the file system's refusals (profile_error_io)", {
  local_sample_dir()
  dir.create("a-directory")
  expect_snapshot(read_rprof("no-such-file.out"), error = TRUE, cnd_class = TRUE)
  expect_snapshot(read_pprof("a-directory"), error = TRUE, cnd_class = TRUE)
})

test_that("reading: files that are not well formed (profile_error_format)", {
  local_sample_dir(c("pprof/cpu.pb.gz", "rprof/1.out"))
  writeBin(c(charToRaw('sample.interval=20000\n"f" '), as.raw(0), charToRaw('"g"\n')), "binary.out")
  expect_snapshot(read_rprof("binary.out"), error = TRUE, cnd_class = TRUE)
  writeBin(random_bytes(1024, seed = 1), "random.pb")
  expect_snapshot(read_pprof("random.pb"), error = TRUE, cnd_class = TRUE)
  truncated_copy("cpu.pb.gz", "truncated.pb.gz", 200)
  expect_snapshot(read_pprof("truncated.pb.gz"), error = TRUE, cnd_class = TRUE)
  writeLines("f;g 1\nnot a folded line", "bad.folded")
  expect_snapshot(read_folded("bad.folded"), error = TRUE, cnd_class = TRUE)
})

test_that("reading: limits that protect memory (profile_error_limit)", {
  local_sample_dir("rprof/1.out")
  expect_snapshot(read_rprof("1.out", max_size = 100), error = TRUE, cnd_class = TRUE)
})

test_that("reading: what a version cannot represent (profile_error_unsupported)", {
  local_sample_dir("pprof/heap.pb.gz")
  expect_snapshot(read_pprof("heap.pb.gz", version = "1.0"), error = TRUE, cnd_class = TRUE)
})

test_that("arguments of the wrong type or value (profile_error_argument)", {
  local_sample_dir()
  expect_snapshot(read_rprof(1), error = TRUE, cnd_class = TRUE)
  expect_snapshot(read_pprof("x.pb.gz", max_size = -1), error = TRUE, cnd_class = TRUE)
  expect_snapshot(profile_summary(42), error = TRUE, cnd_class = TRUE)
  withr::local_options(profile.compact = "yes")
  expect_snapshot(read_rprof(sample_path("rprof", "1.out")), error = TRUE, cnd_class = TRUE)
})

test_that("objects that break the format's rules (profile_error_invalid)", {
  tables <- dm::dm_get_tables(read_rprof(sample_path("rprof", "1.out")), keyed = FALSE)
  tables$locations$function_id[[1]] <- 999999L
  expect_snapshot(do.call(new_profile_v2, tables), error = TRUE, cnd_class = TRUE)
})

test_that("bugs of the package (profile_error_internal)", {
  # the binding's own ways to reach a panic and an unreachable state in Rust
  panic <- profile:::ffi_profile_debug_panic("boom %s {x}")
  expect_snapshot(profile:::rust_value(panic, "Rust panicked."), error = TRUE, cnd_class = TRUE)
  internal <- profile:::ffi_profile_debug_internal("columns %s {x} do not line up")
  expect_snapshot(profile:::rust_value(internal, "Rust failed."), error = TRUE, cnd_class = TRUE)
})

test_that("writing: the file system's refusals and invalid profiles", {
  local_sample_dir()
  x <- read_rprof(sample_path("rprof", "1.out"))
  expect_snapshot(write_rprof(x, "no-such-dir/out.out"), error = TRUE, cnd_class = TRUE)
  expect_snapshot(write_pprof(x, "no-such-dir/out.pb.gz"), error = TRUE, cnd_class = TRUE)
  expect_snapshot(write_pprof(42, "out.pb.gz"), error = TRUE, cnd_class = TRUE)
})

test_that("verbs: refused arguments and patterns that match no sample", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  expect_snapshot(profile_focus(x, 1), error = TRUE, cnd_class = TRUE)
  expect_snapshot(profile_select_types(x, "no-such-type"), error = TRUE, cnd_class = TRUE)
  # profile_warning_no_match
  expect_snapshot(y <- profile_focus(x, "no_such_function"), cnd_class = TRUE)
})

test_that("combining: tables the format does not know are dropped (profile_warning_dropped)", {
  a <- read_rprof(sample_path("rprof", "1.out"))
  tables <- dm::dm_get_tables(a)
  tables$notes <- tibble::tibble(note = "mine")
  with_notes <- do.call(new_profile_v2, tables)
  expect_snapshot(x <- combine_profiles(with_notes, a), cnd_class = TRUE)
  expect_snapshot(combine_profiles(a, merge = NA), error = TRUE, cnd_class = TRUE)
})

test_that("reading Rprof files: the warnings of profile 1.0.4", {
  local_sample_dir()
  writeLines(c("sample.interval=5000", '"f" "g" ', 'garbage "g" "h" ', '"f" "gg'), "warnings.out")
  # profile_warning_unexpected, profile_warning_incomplete
  expect_snapshot(x <- read_rprof("warnings.out"), cnd_class = TRUE)
  writeLines(c("line profiling: sample.interval=5000", '3#4 "f" '), "undefined-file.out")
  # profile_warning_undefined_file
  expect_snapshot(x <- read_rprof("undefined-file.out"), cnd_class = TRUE)
})

test_that("databases: refused connections and layouts", {
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  withr::defer(DBI::dbDisconnect(con))
  x <- read_rprof(sample_path("rprof", "1.out"))
  expect_snapshot(profile_db_append(42, x), error = TRUE, cnd_class = TRUE)
  expect_snapshot(profile_db_append(con, x, merge = NA), error = TRUE, cnd_class = TRUE)
  expect_snapshot(profile_db_delete(con, 1L), error = TRUE, cnd_class = TRUE)
  # a table `samples` is the layout of profile 2.1 (profile_error_unsupported)
  DBI::dbExecute(con, "CREATE TABLE samples (sample_id INTEGER)")
  expect_snapshot(profile_db_append(con, x), error = TRUE, cnd_class = TRUE)
})

test_that("OTLP: damaged files and objects it cannot write", {
  local_sample_dir("otlp/otep-0239.pb")
  truncated_copy("otep-0239.pb", "truncated.pb", 100)
  expect_snapshot(read_otlp("truncated.pb"), error = TRUE, cnd_class = TRUE)
  expect_snapshot(read_otlp("no-such-file.pb"), error = TRUE, cnd_class = TRUE)
  expect_snapshot(write_otlp(42, "out.pb"), error = TRUE, cnd_class = TRUE)
})

test_that("recording: a profiler that runs already, code too brief for a sample", {
  local_sample_dir()
  utils::Rprof("other.out")
  withr::defer(utils::Rprof(NULL))
  # profile_error_busy
  expect_snapshot(profile_record(1 + 1), error = TRUE, cnd_class = TRUE)
  utils::Rprof(NULL)
  expect_snapshot(profile_record(1, interval = "a"), error = TRUE, cnd_class = TRUE)
  # profile_warning_no_samples, a profile_warning as every warning of the package
  expect_snapshot(x <- profile_record(1 + 1, interval = 0.5), cnd_class = TRUE)
  expect_warning(profile_record(1 + 1, interval = 0.5), class = "profile_warning")
})
