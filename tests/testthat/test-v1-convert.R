# Stacks of a v2 profile, one character string per sample in sample order
# ("3 1 7": location ids, innermost first), computed with base R.
v2_stacks <- function(p) {
  sl <- as.data.frame(p$sample_locations)
  sl <- sl[order(sl$sample_id, sl$depth), ]
  ids <- p$samples$sample_id
  vapply(ids, function(id) paste(sl$location_id[sl$sample_id == id], collapse = " "), "")
}

v1_stacks <- function(x) {
  unname(vapply(x$samples$locations, function(l) paste(l$location_id, collapse = " "), ""))
}

# A real v1 object in which some rows stand for several samples.
v1_with_counts <- function() {
  x <- real_v1()
  x$samples$value[c(1, 4, 5)] <- c(3L, 2L, 5L)
  x
}

test_that("profile_v2_from_v1() repeats each v1 sample `value` times", {
  x <- v1_with_counts()
  p <- profile_v2_from_v1(x)
  expect_identical(class(p), c("profile_v2", "dm"))
  expect_silent(validate_profile(p))

  n <- sum(x$samples$value)
  expect_identical(nrow(p$samples), n)
  expect_identical(nrow(x$samples) + 2L + 1L + 4L, n)
  expect_identical(v2_stacks(p), rep(v1_stacks(x), x$samples$value))

  sv <- p$sample_values
  expect_identical(sv$sample_id, p$samples$sample_id)
  expect_true(all(sv$type == "samples" & sv$unit == "count" & sv$value == 1))

  # depth 1 is the first (innermost) location of the v1 stack
  first <- p$sample_locations[p$sample_locations$depth == 1L, ]
  expect_identical(first$location_id[1:3], rep(x$samples$locations[[1]]$location_id[[1]], 3))

  expect_identical(p$sources$source_type, "v1")
  expect_identical(p$sources$source_uri, NA_character_)
  expect_identical(unique(p$samples$source_id), p$sources$source_id)
  expect_identical(p$meta$value[p$meta$key == "version"], "2.0")
  expect_identical(
    as.data.frame(p$sample_types),
    data.frame(source_id = 1L, type = "samples", unit = "count")
  )

  # locations and functions copied, dotted columns dropped
  x$locations$.address <- "0x0"
  x$functions$.package <- "pkg"
  p <- profile_v2_from_v1(x)
  expect_identical(
    as.data.frame(p$locations),
    as.data.frame(x$locations[c("location_id", "function_id", "line")])
  )
  expect_identical(
    as.data.frame(p$functions),
    as.data.frame(x$functions[c("function_id", "name", "system_name", "filename", "start_line")])
  )
})

test_that("profile_v2_from_v1() refuses what is not a valid v1 object", {
  x <- real_v1()
  x$samples$value[[1]] <- 0L
  expect_error(profile_v2_from_v1(x), class = "profile_error_invalid")
  expect_error(profile_v2_from_v1(tiny_v2()), class = "profile_error_invalid")
})

test_that("profile_v2_from_v1() renumbers ids v2 does not allow", {
  x <- real_v1()
  x$locations$function_id <- x$locations$function_id - 1L
  x$functions$function_id <- x$functions$function_id - 1L
  x$locations$function_id[[2]] <- NA
  expect_silent(validate_profile(x))
  p <- profile_v2_from_v1(x)
  expect_silent(validate_profile(p))
  expect_identical(p$functions$function_id, seq_len(nrow(x$functions)))
  # each location still points at the function of the same name
  name_of <- function(fid, functions) functions$name[match(fid, functions$function_id)]
  expect_identical(
    name_of(p$locations$function_id, p$functions),
    name_of(x$locations$function_id, x$functions)
  )
  expect_true(is.na(p$locations$function_id[[2]]))
})

test_that("v1_from_v2_tables() gives one v1 sample per v2 sample, innermost first", {
  p <- tiny_v2()
  x <- v1_from_v2_tables(v2_tables(p))
  expect_s3_class(x, "profile_data")
  expect_silent(validate_profile(x))
  expect_identical(x$meta$value, "1.0")
  expect_identical(as.data.frame(x$sample_types), data.frame(type = "samples", unit = "count"))
  expect_identical(x$samples$value, c(1L, 1L, 1L))
  # tiny_v2(): sample 3 has depths 1, 2, 3 at locations 3, 1, 2
  expect_identical(v1_stacks(x), c("1 2", "2", "3 1 2"))
  expect_identical(names(x$locations), c("location_id", "function_id", "line"))
  expect_identical(
    names(x$functions), c("function_id", "name", "system_name", "filename", "start_line")
  )
})

test_that("v2 -> v1 -> v2 keeps every sample, stack and value", {
  p <- profile_v2_from_v1(v1_with_counts())
  back <- profile_v2_from_v1(v1_from_v2_tables(v2_tables(p)))
  tables <- c("samples", "sample_values", "sample_locations", "locations", "functions", "sources")
  for (t in tables) {
    expect_identical(back[[t]], p[[t]], info = t)
  }
})

test_that("v2 -> v1 takes `value` from samples/count and expands again on the way back", {
  p <- tiny_v2()
  sv <- p$sample_values
  sv$value <- c(3, 1, 2)
  sv <- rbind(
    sv,
    tibble::tibble(sample_id = 1:3, type = "cpu", unit = "nanoseconds", value = c(3e7, 1e7, 2e7))
  )
  p <- new_profile_v2(
    p$meta, p$sources, p$samples, sv, p$sample_locations, p$locations, p$functions
  )
  x <- v1_from_v2_tables(v2_tables(p))
  expect_identical(x$samples$value, c(3L, 1L, 2L))
  back <- profile_v2_from_v1(x)
  expect_identical(nrow(back$samples), 6L)
  expect_identical(v2_stacks(back), rep(v2_stacks(p), c(3, 1, 2)))
  expect_identical(unique(back$sample_values$type), "samples")
})

test_that("v2 -> v1 refuses profiles without sample counts, pointing to v2", {
  p <- tiny_v2()
  sv <- p$sample_values
  sv$type <- "alloc_space"
  sv$unit <- "bytes"
  p <- new_profile_v2(
    p$meta, p$sources, p$samples, sv, p$sample_locations, p$locations, p$functions
  )
  err <- expect_error(v1_from_v2_tables(v2_tables(p)), class = "profile_error_unsupported")
  expect_match(conditionMessage(err), "samples", fixed = TRUE)
  expect_match(conditionMessage(err), "alloc_space/bytes", fixed = TRUE)
  expect_match(conditionMessage(err), "2.0", fixed = TRUE)
})

test_that("v2 -> v1: zero counts are left out, fractional counts refused", {
  p <- tiny_v2()
  sv <- p$sample_values
  sv$value <- c(2, 0, 1)
  p0 <- new_profile_v2(
    p$meta, p$sources, p$samples, sv, p$sample_locations, p$locations, p$functions
  )
  x <- v1_from_v2_tables(v2_tables(p0))
  expect_identical(x$samples$value, c(2L, 1L))
  expect_identical(v1_stacks(x), c("1 2", "3 1 2"))

  sv$value <- c(2, 0.5, 1)
  p_half <- new_profile_v2(
    p$meta, p$sources, p$samples, sv, p$sample_locations, p$locations, p$functions
  )
  expect_error(v1_from_v2_tables(v2_tables(p_half)), class = "profile_error_unsupported")
})

test_that("v2 -> v1 gives names v1 allows", {
  p <- tiny_v2()
  fns <- p$functions
  fns$name[[1]] <- ""
  fns$system_name[[1]] <- NA
  fns$start_line[[2]] <- NA
  p <- new_profile_v2(
    p$meta, p$sources, p$samples, p$sample_values, p$sample_locations, p$locations, fns
  )
  x <- v1_from_v2_tables(v2_tables(p))
  expect_silent(validate_profile(x))
  expect_identical(x$functions$name[[1]], "<?>")
  expect_identical(x$functions$system_name[[1]], "<?>")
  expect_identical(x$functions$start_line[[2]], 0L)
})
