test_that("new_profile_v2() builds a keyed dm in the order of the format", {
  p <- tiny_v2()
  expect_s3_class(p, "dm")
  expect_identical(class(p), c("profile_v2", "dm"))
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
  bad <- dm::dm_update_zoomed(
    dplyr::mutate(bad, depth = ifelse(dplyr::row_number() == 2L, 5L, depth))
  )
  err <- expect_error(validate_profile(bad), class = "profile_error_invalid")
  expect_s3_class(err, "profile_error")
  expect_match(conditionMessage(err), "sample_locations")
  expect_match(conditionMessage(err), "depth")
  expect_match(conditionMessage(err), "row 2")
})

test_that("the keys of a real profile form a tree, so dm_filter() works", {
  x <- read_rprof(sample_path("rprof", "1.out"))
  fib <- dm::dm_filter(x, functions = (name == "fib"))
  t <- dm::dm_get_tables(fib)
  expect_identical(unique(t$functions$name), "fib")
  expect_true(all(t$locations$function_id %in% t$functions$function_id))
  expect_gt(nrow(t$samples), 0)
  expect_lt(nrow(t$samples), nrow(dm::dm_get_tables(x)$samples))

  heap <- read_pprof(sample_path("pprof", "heap.pb.gz"))
  expect_no_error(dm::dm_filter(heap, sources = (source_id == 1L)))
  # the keys left out of the dm are still checked
  t <- dm::dm_get_tables(heap)
  t$mappings$source_id[1] <- 99L
  expect_error(validate_profile(profile:::dm_from_v2_tables(t)), class = "profile_error_invalid")
})

test_that("a saved profile read in a new R session shows its tables without library(dm)", {
  # (issue 32: x$samples was NULL until something loaded dm's namespace)
  x <- read_rprof(sample_path("rprof", "1.out"))
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(x, path)
  script <- withr::local_tempfile(fileext = ".R")
  writeLines(c(
    "suppressPackageStartupMessages(library(profile))",
    "x <- readRDS(commandArgs(trailingOnly = TRUE)[[1]])",
    "cat(nrow(x$samples), nrow(x[['functions']]), sep = '\\n')"
  ), script)
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  out <- withr::with_envvar(c(R_LIBS = libs), system2(
    file.path(R.home("bin"), "Rscript"), shQuote(c(script, path)),
    stdout = TRUE, stderr = TRUE
  ))
  tables <- dm::dm_get_tables(x)
  expect_identical(out, as.character(c(nrow(tables$samples), nrow(tables$functions))))
})
