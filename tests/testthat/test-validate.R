# Each corruption of a valid v2 profile must be refused with a classed error whose
# message points at the right table (and column, where there is one).

rebuild <- function(tables) profile:::dm_from_v2_tables(tables)
tables_of <- function(p) profile:::v2_tables(p)

corrupt <- function(f) {
  t <- tables_of(tiny_v2())
  rebuild(f(t))
}

expect_invalid <- function(x, pattern) {
  err <- expect_error(validate_profile(x), class = "profile_error_invalid")
  expect_s3_class(err, "profile_error")
  for (p in pattern) expect_match(conditionMessage(err), p, fixed = TRUE)
  invisible(err)
}

test_that("the untouched tiny profile is valid", {
  expect_silent(validate_profile(tiny_v2()))
})

test_that("an object that is not a dm is refused", {
  expect_error(validate_profile(tables_of(tiny_v2())), class = "profile_error")
})

test_that("a missing required table is refused", {
  t <- tables_of(tiny_v2())
  expect_invalid(rebuild(t[names(t) != "functions"]), "functions")
})

test_that("tables out of order are refused", {
  t <- tables_of(tiny_v2())
  expect_invalid(rebuild(t[c(2, 1, 3:length(t))]), "meta")
})

test_that("a missing required column is refused", {
  expect_invalid(corrupt(function(t) {
    t$sources$source_uri <- NULL
    t
  }), c("sources", "source_uri"))
})

test_that("a column of the wrong type is refused", {
  expect_invalid(corrupt(function(t) {
    t$sample_locations$depth <- as.double(t$sample_locations$depth)
    t
  }), c("sample_locations", "depth", "integer"))
})

test_that("an extension column of the wrong type is refused", {
  expect_invalid(corrupt(function(t) {
    t$locations$address <- seq_len(nrow(t$locations))
    t
  }), c("locations", "address"))
})

test_that("duplicate primary keys are refused", {
  expect_invalid(corrupt(function(t) {
    t$samples$sample_id[2] <- 1L
    t
  }), c("samples", "sample_id", "row 2"))
  expect_invalid(corrupt(function(t) {
    t$locations$location_id[3] <- 1L
    t
  }), c("locations", "location_id", "row 3"))
  expect_invalid(corrupt(function(t) {
    t$meta <- rbind(t$meta, t$meta)
    t
  }), c("meta", "key"))
})

test_that("dangling foreign keys are refused", {
  expect_invalid(corrupt(function(t) {
    t$sample_locations$location_id[4] <- 99L
    t
  }), c("sample_locations", "location_id", "row 4", "99"))
  expect_invalid(corrupt(function(t) {
    t$samples$source_id[3] <- 2L
    t
  }), c("samples", "source_id", "row 3"))
  expect_invalid(corrupt(function(t) {
    t$locations$function_id[2] <- 42L
    t
  }), c("locations", "function_id", "row 2"))
  expect_invalid(corrupt(function(t) {
    t$sample_values$sample_id[1] <- 17L
    t
  }), c("sample_values", "sample_id", "row 1"))
})

test_that("a foreign key of an extension table is checked", {
  expect_invalid(corrupt(function(t) {
    t$sample_labels <- tibble::tibble(
      sample_id = 9L, key = "k", value = "v", num = NA_real_, num_unit = NA_character_
    )
    t
  }), c("sample_labels", "sample_id"))
})

test_that("depths with a gap or a repeat are refused", {
  expect_invalid(corrupt(function(t) {
    t$sample_locations$depth[6] <- 4L
    t
  }), c("sample_locations", "depth", "row 6"))
  expect_invalid(corrupt(function(t) {
    t$sample_locations$depth[5] <- 1L
    t
  }), c("sample_locations", "depth"))
})

test_that("a sample value type given twice for one sample is refused", {
  expect_invalid(corrupt(function(t) {
    t$sample_values$sample_id[2] <- 1L
    t
  }), c("sample_values", "type", "row 2"))
})

test_that("non-positive ids are refused", {
  expect_invalid(corrupt(function(t) {
    t$functions$function_id[1] <- 0L
    t$locations$function_id[1] <- 0L
    t
  }), c("function_id", "positive"))
})

test_that("NA where the format forbids it is refused", {
  expect_invalid(corrupt(function(t) {
    t$sample_values$value[2] <- NA_real_
    t
  }), c("sample_values", "value", "row 2", "NA"))
  expect_invalid(corrupt(function(t) {
    t$samples$source_id[1] <- NA_integer_
    t
  }), c("samples", "source_id", "row 1"))
})

test_that("negative line numbers are refused", {
  expect_invalid(corrupt(function(t) {
    t$locations$line[2] <- -3L
    t
  }), c("locations", "line", "row 2"))
})

test_that("an unknown source type is refused", {
  expect_invalid(corrupt(function(t) {
    t$sources$source_type <- "perf"
    t
  }), c("sources", "source_type", "perf"))
})

test_that("a wrong or missing version is refused", {
  expect_invalid(corrupt(function(t) {
    t$meta$value <- "2.1"
    t
  }), c("meta", "2.1"))
  expect_invalid(corrupt(function(t) {
    t$meta$key <- "format"
    t
  }), c("meta", "version"))
})

test_that("missing dm keys are refused", {
  expect_invalid(dm::dm_rm_pk(tiny_v2(), samples), c("samples", "primary key"))
  expect_invalid(
    dm::dm_rm_fk(tiny_v2(), sample_locations, location_id, locations),
    c("sample_locations", "foreign key")
  )
})

test_that("extension tables and columns are optional but kept", {
  p <- tiny_v2()
  t <- tables_of(p)
  t$locations$note <- "extra"
  t$my_table <- tibble::tibble(x = 1)
  expect_silent(validate_profile(rebuild(t)))
})

test_that("messages from the data are shown literally, braces and percent signs included", {
  err <- expect_invalid(corrupt(function(t) {
    t$sources$source_type <- "{oops} %s %n"
    t
  }), "{oops} %s %n")
})

test_that("the seven required tables of a Go CPU profile make a profile without `mappings`", {
  t <- tables_of(read_pprof(sample_path("pprof", "cpu.pb.gz")))
  expect_false(anyNA(t$locations$mapping_id))
  # `locations$mapping_id` (an extension column) refers to a table that is not
  # there: nothing to check.
  x <- do.call(new_profile_v2, t[1:7])
  expect_silent(validate_profile(x))
  expect_identical(names(dm::dm_get_tables(x)), names(t)[1:7])

  # Written, its locations have no mapping.
  out <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(x, out)
  back <- tables_of(read_pprof(out))
  expect_true(all(is.na(back$locations$mapping_id)))
  expect_identical(back$sample_values$value, t$sample_values$value)
  # Combined with a profile that has mappings, they stay without.
  both <- tables_of(combine_profiles(x, read_pprof(sample_path("pprof", "heap.pb.gz"))))
  expect_identical(sum(is.na(both$locations$mapping_id)), nrow(t$locations))

  # With the table present, the key is checked.
  t$mappings <- t$mappings[0, ]
  expect_invalid(rebuild(t), c("locations", "mapping_id", "mappings"))
})
