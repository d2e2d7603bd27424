# Writes are atomic: a failed write leaves a pre-existing target with its exact
# bytes and no temporary file, whatever stage it fails at.

# The directory, a target in it holding `old` bytes, and a check that both are
# as they were.
local_target <- function(env = parent.frame()) {
  dir <- local_dir(env)
  path <- file.path(dir, "target.out")
  old <- as.raw(c(0:255, 0:255))
  writeBin(old, path)
  list(dir = dir, path = path, unchanged = function() {
    testthat::expect_identical(readBin(path, "raw", 10000), old)
    testthat::expect_identical(all_files(dir), "target.out")
  })
}

test_that("an object R refuses: the target keeps its bytes", {
  t <- local_target()
  expect_profile_error(write_rprof(list(), t$path), "invalid", "v2 profile must be a <dm>")
  t$unchanged()
  expect_profile_error(write_pprof("x", t$path), "invalid", "not a string")
  t$unchanged()
})

test_that("content Rust refuses (validation before writing)", {
  t <- local_target()
  x <- dm::dm_zoom_to(tiny_v2(), sample_locations)
  x <- dm::dm_update_zoomed(dplyr::mutate(x, depth = depth + 1L))
  expect_profile_error(write_rprof(x, t$path), "invalid", "target.out", "depth")
  t$unchanged()
  expect_profile_error(write_pprof(x, t$path), "invalid", "target.out", "depth")
  t$unchanged()
})

test_that("a failure in the middle of writing: the temporary file is removed", {
  # Two sources: the first is written, then the second one's count (not a whole
  # number of ticks) stops the Rprof writer.
  tables <- dm::dm_get_tables(tiny_v2())
  tables$sources <- tibble::tibble(
    source_id = 1:2, source_type = "manual", source_uri = NA_character_, source_timestamp = NA_real_
  )
  tables$samples$source_id <- c(1L, 1L, 2L)
  tables$sample_values$value <- c(1, 1, 1.5)
  x <- do.call(new_profile_v2, as.list(tables))
  t <- local_target()
  expect_profile_error(write_rprof(x, t$path), "invalid", "target.out", "whole number")
  t$unchanged()
})

test_that("a pprof writer limit", {
  # More distinct sample types than pprof's samples x types table allows
  # (2^28 cells): 2^15 samples, each with a type of its own.
  n <- 2^15
  tables <- dm::dm_get_tables(tiny_v2())
  tables$samples <- tibble::tibble(sample_id = seq_len(n), source_id = 1L)
  tables$sample_values <- tibble::tibble(
    sample_id = seq_len(n), type = paste0("t", seq_len(n)), unit = "count", value = 1
  )
  tables$sample_locations <- tibble::tibble(sample_id = 1L, depth = 1L, location_id = 1L)
  x <- do.call(new_profile_v2, as.list(tables))
  t <- local_target()
  expect_profile_error(write_pprof(x, t$path), "limit", "target.out", "sample types")
  t$unchanged()
})

test_that("targets that cannot be written", {
  dir <- local_dir()
  x <- tiny_v2()
  expect_profile_error(write_rprof(x, dir), "io", basename(dir), "directory")
  expect_profile_error(
    write_pprof(x, file.path(dir, "no", "such", "dir.pb.gz")), "io", "does not exist"
  )
  expect_profile_error(write_rprof(x, NA_character_), "argument", "path")
  expect_profile_error(write_pprof(x, c("a", "b")), "argument", "path")
  expect_identical(all_files(dir), character())
})

test_that("a read-only directory", {
  dir <- local_dir()
  Sys.chmod(dir, "555")
  withr::defer(Sys.chmod(dir, "755"))
  skip_if(file.access(dir, 2L) == 0L, "running as root: permissions do not stop writing")
  expect_profile_error(write_rprof(tiny_v2(), file.path(dir, "x.out")), "io", "x.out")
})

test_that("a successful write replaces the target and keeps its permissions", {
  t <- local_target()
  Sys.chmod(t$path, "640")
  write_pprof(tiny_v2(), t$path)
  expect_identical(all_files(t$dir), "target.out")
  expect_identical(as.character(file.mode(t$path)), "640")
  expect_s3_class(read_pprof(t$path), "dm")
})
