test_that("new_profile_v2() builds a keyed dm in the order of the format", {
  p <- tiny_v2()
  expect_s3_class(p, "dm")
  expect_identical(class(p), "dm")
  expect_identical(
    names(p)[1:7],
    c("meta", "sources", "samples", "sample_values", "sample_locations", "locations", "functions")
  )
  pks <- dm::dm_get_all_pks(p)
  expect_setequal(pks$table, c("meta", "sources", "samples", "locations", "functions"))
  fks <- dm::dm_get_all_fks(p)
  expect_true(any(fks$child_table == "sample_locations" & fks$parent_table == "locations"))
  expect_silent(validate_profile(p))
  expect_identical(validate_profile(p), p)
})

test_that("a depth gap is refused with a classed error naming table, column and row", {
  p <- tiny_v2()
  bad <- dm::dm_zoom_to(p, sample_locations)
  bad <- dm::dm_update_zoomed(dplyr::mutate(bad, depth = ifelse(dplyr::row_number() == 2L, 5L, depth)))
  err <- expect_error(validate_profile(bad), class = "profile_error_invalid")
  expect_s3_class(err, "profile_error")
  expect_match(conditionMessage(err), "sample_locations")
  expect_match(conditionMessage(err), "depth")
  expect_match(conditionMessage(err), "row 2")
})
