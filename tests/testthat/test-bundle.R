# R/bundle.R: profiles across the Rust boundary. The compact columns and the
# strings of a bundle have test-bundle-compact.R and test-bundle-strings.R.

test_that("a profile's tables cross to Rust and back unchanged", {
  x <- read_rprof(sample_path("rprof", "line.out"))
  tables <- dm::dm_get_tables(x, keyed = FALSE)
  # Rust's own copy of the tables (combine_profiles() of one profile) decodes
  # to the same tables
  back <- dm::dm_get_tables(combine_profiles(x), keyed = FALSE)
  for (t in names(tables)) {
    expect_equal(as.data.frame(back[[t]]), as.data.frame(tables[[t]]), label = t)
  }
  bundle <- profile:::bundle_from_tables(tables)
  expect_setequal(names(bundle$tables), intersect(names(tables), profile:::v2_schema()$tables))
})

test_that("the option profile.compact must be TRUE or FALSE", {
  withr::local_options(profile.compact = "yes")
  expect_error(
    read_rprof(sample_path("rprof", "1.out")),
    "profile.compact",
    class = "profile_error_argument"
  )
  withr::local_options(profile.compact = FALSE)
  expect_s3_class(read_rprof(sample_path("rprof", "1.out")), "dm")
})
