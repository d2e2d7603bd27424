# options(profile.version = "1.0"): the readers return v1 objects when
# `version` is not given (a script written for profile 1.0.x runs unchanged);
# an explicit `version` wins.

test_that("the option profile.version changes the readers' default, and version = still wins", {
  rprof <- sample_path("rprof", "1.out")
  pprof <- sample_path("pprof", "cpu.pb.gz")
  folded <- withr::local_tempfile(fileext = ".folded")
  write_folded(read_rprof(rprof), folded, type = "samples")

  # Without the option: v2.
  withr::local_options(profile.version = NULL)
  expect_s3_class(read_rprof(rprof), "dm")
  expect_s3_class(read_pprof(pprof), "dm")
  expect_s3_class(read_folded(folded), "dm")

  withr::local_options(profile.version = "1.0")
  # the same objects as with version = "1.0", which profile 1.0.x returned
  expect_identical(read_rprof(rprof), read_rprof(rprof, version = "1.0"))
  expect_s3_class(read_rprof(rprof), "profile_data")
  expect_identical(read_pprof(pprof), read_pprof(pprof, version = "1.0"))
  expect_s3_class(read_pprof(pprof), "profile_data")
  expect_s3_class(read_folded(folded), "profile_data")
  expect_identical(
    sum(read_folded(folded)$samples$value),
    nrow(read_rprof(rprof, version = "2.0")$samples)
  )
  # an explicit version wins over the option
  expect_s3_class(read_rprof(rprof, version = "2.0"), "dm")
  expect_s3_class(read_pprof(pprof, version = "2.0"), "dm")
  expect_s3_class(read_folded(folded, version = "2.0"), "dm")

  # The option may be given as a number, as `version` may.
  withr::local_options(profile.version = 1)
  expect_s3_class(read_rprof(rprof), "profile_data")
  withr::local_options(profile.version = "2.0")
  expect_s3_class(read_rprof(rprof), "dm")
  expect_s3_class(read_rprof(rprof, version = "1.0"), "profile_data")
})

test_that("an option profile.version that is neither version is an argument error naming it", {
  withr::local_options(profile.version = "3.0")
  expect_error(
    read_rprof(sample_path("rprof", "1.out")), "profile.version",
    class = "profile_error_argument"
  )
  expect_error(
    read_pprof(sample_path("pprof", "cpu.pb.gz")), "profile.version",
    class = "profile_error_argument"
  )
  # an explicit version does not look at the option
  expect_s3_class(read_rprof(sample_path("rprof", "1.out"), version = "2.0"), "dm")
})

test_that("with the option, a folded file of another sample type needs version = '2.0'", {
  folded <- withr::local_tempfile(fileext = ".folded")
  writeLines(c("main;f 10", "main;g 5"), folded)
  withr::local_options(profile.version = "1.0")
  expect_error(
    read_folded(folded, type = "cpu", unit = "nanoseconds"),
    class = "profile_error_unsupported"
  )
  expect_s3_class(read_folded(folded, type = "cpu", unit = "nanoseconds", version = "2.0"), "dm")
})
