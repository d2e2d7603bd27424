test_that("format() and print() show the number of samples as 1.0.4 did", {
  x <- real_v1()
  expect_identical(format(x), paste0("Profile data: ", nrow(x$samples), " samples"))
  expect_output(out <- print(x), paste0("^Profile data: ", nrow(x$samples), " samples$"))
  expect_identical(out, x)
})

test_that("format() and print() match profile 1.0.4's", {
  skip_if_no_profile104()
  x <- real_v1()
  theirs <- profile104_call("format", list(list(x)))[[1]]$value
  expect_identical(format(x), theirs)
})

test_that("dm_from_profile() builds the keyed dm of 1.0.x from a v1 object", {
  x <- real_v1()
  dm <- dm_from_profile(x)
  expect_s3_class(dm, "dm")
  expect_identical(names(dm), c("samples", "locations", "functions", "samples_locations"))

  # one samples_locations row per frame, in stack order
  stacks <- x$samples$locations
  sl <- dm$samples_locations
  expect_identical(nrow(sl), sum(vapply(stacks, nrow, integer(1))))
  expect_identical(sl$location_id[sl$sample_id == 2L], stacks[[2]]$location_id)
  expect_identical(dm$samples$sample_id, seq_len(nrow(x$samples)))
  expect_identical(dm$samples$value, x$samples$value)
  expect_identical(dm$functions, x$functions)

  pks <- dm::dm_get_all_pks(dm)
  expect_setequal(
    paste(pks$table, unlist(pks$pk_col)),
    c("samples sample_id", "locations location_id", "functions function_id")
  )
  fks <- dm::dm_get_all_fks(dm)
  expect_setequal(
    paste(fks$child_table, unlist(fks$child_fk_cols), fks$parent_table),
    c(
      "samples_locations sample_id samples", "samples_locations location_id locations",
      "locations function_id functions"
    )
  )
  expect_true(all(dm::dm_examine_constraints(dm)$is_key))
})

test_that("dm_from_profile() gives the tables and keys profile 1.0.4 gives", {
  skip_if_no_profile104()
  for (file in c("1.out", "line.out")) {
    x <- real_v1(file)
    theirs <- profile104_call("dm_from_profile", list(list(x)))[[1]]
    expect_null(theirs$error)
    theirs <- theirs$value
    ours <- dm_from_profile(x)
    expect_identical(dm::dm_get_tables(ours), dm::dm_get_tables(theirs))
    expect_identical(dm::dm_get_all_pks(ours), dm::dm_get_all_pks(theirs))
    key <- function(fks) {
      fks <- fks[order(fks$child_table, vapply(fks$child_fk_cols, paste, "", collapse = ",")), ]
      fks
    }
    expect_identical(key(dm::dm_get_all_fks(ours)), key(dm::dm_get_all_fks(theirs)))
  }
})

test_that("dm_from_profile() returns a v2 profile as it is", {
  p <- tiny_v2()
  expect_identical(dm_from_profile(p), p)
})

test_that("dm_from_profile() refuses other objects", {
  expect_error(dm_from_profile(list(a = 1)), class = "profile_error_argument")
  expect_error(dm_from_profile(mtcars), class = "profile_error_argument")
})
