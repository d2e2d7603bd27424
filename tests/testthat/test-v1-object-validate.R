# validate_profile() on v1 objects must accept and reject exactly what profile
# 1.0.4 accepted and rejected, with classed errors naming the problem.

# Changes 1.0.4 rejects. Each takes a valid v1 object and breaks one rule.
v1_corruptions <- list(
  not_a_list = function(x) 1:3,
  class_dropped = function(x) unclass(x),
  component_missing = function(x) {
    x$samples <- NULL
    x
  },
  components_reordered = function(x) {
    structure(
      unclass(x)[c("sample_types", "meta", "samples", "locations", "functions")],
      class = "profile_data"
    )
  },
  undotted_extra_component = function(x) {
    x$extra <- tibble::tibble(a = 1)
    x
  },
  dotted_component_first = function(x) {
    structure(c(list(.note = tibble::tibble()), unclass(x)), class = "profile_data")
  },
  component_not_tibble = function(x) {
    x$locations <- as.data.frame(x$locations)
    x
  },
  meta_two_rows = function(x) {
    x$meta <- tibble::tibble(key = c("version", "version"), value = c("1.0", "1.0"))
    x
  },
  meta_no_rows = function(x) {
    x$meta <- x$meta[0, ]
    x
  },
  meta_key_wrong = function(x) {
    x$meta$key <- "format"
    x
  },
  meta_version_unparsable = function(x) {
    x$meta$value <- "1"
    x
  },
  meta_value_numeric = function(x) {
    x$meta$value <- 1
    x
  },
  sample_type_cpu = function(x) {
    x$sample_types$type <- "cpu"
    x
  },
  sample_unit_nanoseconds = function(x) {
    x$sample_types$unit <- "nanoseconds"
    x
  },
  samples_value_double = function(x) {
    x$samples$value <- as.double(x$samples$value)
    x
  },
  samples_value_zero = function(x) {
    x$samples$value[[3]] <- 0L
    x
  },
  samples_value_na = function(x) {
    x$samples$value[[2]] <- NA_integer_
    x
  },
  samples_columns_swapped = function(x) {
    x$samples <- x$samples[c("locations", "value")]
    x
  },
  samples_undotted_extra_column = function(x) {
    x$samples$weight <- 1
    x
  },
  stack_column_renamed = function(x) {
    names(x$samples$locations[[4]]) <- "id"
    x
  },
  stack_column_double = function(x) {
    x$samples$locations[[1]]$location_id <- as.double(x$samples$locations[[1]]$location_id)
    x
  },
  stack_not_tibble = function(x) {
    x$samples$locations[[2]] <- as.data.frame(x$samples$locations[[2]])
    x
  },
  stack_two_columns = function(x) {
    x$samples$locations[[2]]$depth <- seq_len(nrow(x$samples$locations[[2]]))
    x
  },
  stack_unknown_location = function(x) {
    x$samples$locations[[5]]$location_id[[1]] <- max(x$locations$location_id) + 1L
    x
  },
  locations_duplicate_id = function(x) {
    x$locations$location_id[[2]] <- x$locations$location_id[[1]]
    x
  },
  locations_negative_line = function(x) {
    x$locations$line[[1]] <- -1L
    x
  },
  locations_unknown_function = function(x) {
    x$locations$function_id[[3]] <- max(x$functions$function_id) + 1L
    x
  },
  locations_undotted_extra_column = function(x) {
    x$locations$address <- "0x0"
    x
  },
  locations_line_double = function(x) {
    x$locations$line <- as.double(x$locations$line)
    x
  },
  functions_duplicate_id = function(x) {
    x$functions$function_id[[2]] <- x$functions$function_id[[1]]
    x
  },
  functions_empty_name = function(x) {
    x$functions$name[[1]] <- ""
    x
  },
  functions_na_system_name = function(x) {
    x$functions$system_name[[2]] <- NA
    x
  },
  functions_na_start_line = function(x) {
    x$functions$start_line[[1]] <- NA
    x
  },
  functions_negative_start_line = function(x) {
    x$functions$start_line[[1]] <- -3L
    x
  },
  functions_filename_factor = function(x) {
    x$functions$filename <- factor(x$functions$filename)
    x
  },
  functions_column_missing = function(x) {
    x$functions$filename <- NULL
    x
  }
)

# Changes 1.0.4 accepts (including its quirks).
v1_accepted_variants <- list(
  unchanged = function(x) x,
  dotted_component = function(x) {
    x$.origin <- "anything, not even a tibble"
    x
  },
  dotted_columns = function(x) {
    x$meta$.note <- "a"
    x$sample_types$.note <- "b"
    x$samples$.pprof_locations <- x$samples$locations
    x$locations$.address <- "0x0"
    x$functions$.package <- "pkg"
    x
  },
  no_samples = function(x) {
    x$samples <- x$samples[0, ]
    x
  },
  value_above_one = function(x) {
    x$samples$value[[1]] <- 7L
    x
  },
  empty_stack = function(x) {
    x$samples$locations[[1]] <- tibble::tibble(location_id = integer())
    x
  },
  na_function_id_and_line = function(x) {
    x$locations$function_id[[1]] <- NA
    x$locations$line[[2]] <- NA
    x
  },
  na_filename = function(x) {
    x$functions$filename[[1]] <- NA
    x
  },
  unused_na_location_id = function(x) {
    x$locations <- rbind(
      x$locations, tibble::tibble(location_id = NA_integer_, function_id = NA_integer_, line = 0L)
    )
    x
  },
  negative_ids = function(x) {
    x$locations$function_id <- -x$locations$function_id
    x$functions$function_id <- -x$functions$function_id
    x
  },
  other_version_number = function(x) {
    x$meta$value <- "2.0"
    x
  },
  required_columns_repeated = function(x) {
    # 1.0.x compared column names with recycling: the required names twice pass
    x$sample_types <- tibble::as_tibble(
      list(type = "samples", unit = "count", type = "samples", unit = "count"),
      .name_repair = "minimal"
    )
    x
  }
)

# validate_profile() on each element of `objects`: TRUE where it accepts.
we_accept <- function(objects) {
  vapply(objects, function(o) {
    tryCatch(
      {
        validate_profile(o)
        TRUE
      },
      profile_error_invalid = function(e) FALSE
    )
  }, logical(1))
}

test_that("every corruption is refused with a classed error naming the problem", {
  x <- real_v1()
  expect_silent(validate_profile(x))
  expect_gte(length(v1_corruptions), 15)
  for (name in names(v1_corruptions)) {
    bad <- v1_corruptions[[name]](x)
    err <- expect_error(validate_profile(bad), class = "profile_error_invalid", info = name)
    expect_s3_class(err, "profile_error")
  }
})

test_that("what 1.0.4 accepts beyond the plain layout is accepted", {
  x <- real_v1()
  for (name in names(v1_accepted_variants)) {
    variant <- v1_accepted_variants[[name]](x)
    expect_identical(validate_profile(variant), variant, info = name)
  }
})

test_that("messages name the table, the column and the first offending row", {
  x <- real_v1()
  msg <- function(fix) {
    conditionMessage(expect_error(validate_profile(fix(x)), class = "profile_error_invalid"))
  }
  m <- msg(v1_corruptions$samples_value_zero)
  expect_match(m, "samples", fixed = TRUE)
  expect_match(m, "value", fixed = TRUE)
  expect_match(m, "row 3", fixed = TRUE)

  m <- msg(v1_corruptions$functions_na_system_name)
  expect_match(m, "functions", fixed = TRUE)
  expect_match(m, "system_name", fixed = TRUE)
  expect_match(m, "row 2", fixed = TRUE)

  m <- msg(v1_corruptions$stack_unknown_location)
  expect_match(m, "locations", fixed = TRUE)
  expect_match(m, "row 5", fixed = TRUE)
  expect_match(m, as.character(max(x$locations$location_id) + 1L), fixed = TRUE)

  m <- msg(v1_corruptions$locations_unknown_function)
  expect_match(m, "function_id", fixed = TRUE)
  expect_match(m, "row 3", fixed = TRUE)

  m <- msg(v1_corruptions$locations_duplicate_id)
  expect_match(m, "location_id", fixed = TRUE)
  expect_match(m, "row 2", fixed = TRUE)

  m <- msg(v1_corruptions$component_missing)
  expect_match(m, "sample_types", fixed = TRUE)

  m <- msg(v1_corruptions$meta_version_unparsable)
  expect_match(m, "meta", fixed = TRUE)
  expect_match(m, "value", fixed = TRUE)
})

test_that("accept/reject decisions are those of profile 1.0.4", {
  skip_if_no_profile104()
  x <- real_v1()
  cases <- c(v1_corruptions, v1_accepted_variants)
  objects <- lapply(cases, function(fix) fix(x))
  theirs <- profile104_accepts(objects)
  ours <- we_accept(objects)
  expect_identical(ours, stats::setNames(theirs, names(cases)))
  # the lists are labelled correctly: 1.0.4 rejects the corruptions and accepts the variants
  expect_false(any(theirs[seq_along(v1_corruptions)]))
  expect_true(all(theirs[-seq_along(v1_corruptions)]))
})

test_that("objects that are neither v1 nor v2 are refused as invalid", {
  expect_error(validate_profile(list()), class = "profile_error_invalid")
  expect_error(validate_profile(data.frame()), class = "profile_error_invalid")
  expect_error(validate_profile(NULL), class = "profile_error_invalid")
  expect_error(
    validate_profile(structure(list(), class = "profile_data")),
    class = "profile_error_invalid"
  )
})

# One random change to one cell or column of a v1 object: values at the edges
# of the rules (NA, 0, -1, "", duplicates, other types, renamed or extra
# columns, dropped rows).
mutate_v1_randomly <- function(x) {
  v1_tables <- c("meta", "sample_types", "samples", "locations", "functions")
  table <- sample(v1_tables, 1)
  df <- x[[table]]
  col <- sample(names(df), 1)
  row <- sample(max(nrow(df), 1L), 1)
  v <- df[[col]]
  op <- sample(c(
    "na", "zero", "negative", "empty", "duplicate", "double",
    "character", "drop_column", "dot_column", "undot_column",
    "add_dotted", "add_undotted", "no_rows", "stack"
  ), 1)
  set_cell <- function(value) {
    if (nrow(df) > 0) df[[col]][row] <<- value
  }
  switch(op,
    na = if (!is.list(v)) set_cell(NA),
    zero = if (is.numeric(v)) set_cell(0L),
    negative = if (is.numeric(v)) set_cell(-1L),
    empty = if (is.character(v)) set_cell(""),
    duplicate = if (nrow(df) > 1 && !is.list(v)) set_cell(v[[1 + (row == 1)]]),
    double = if (is.integer(v)) df[[col]] <- as.double(v),
    character = if (!is.list(v)) df[[col]] <- as.character(v),
    drop_column = df[[col]] <- NULL,
    dot_column = names(df)[names(df) == col] <- paste0(".", col),
    undot_column = names(df)[names(df) == col] <- sub("^[.]", "", col),
    add_dotted = df$.extra <- rep(1, nrow(df)),
    add_undotted = df$extra <- rep(1, nrow(df)),
    no_rows = df <- df[0, ],
    stack = if (table == "samples" && nrow(df) > 0) {
      stack <- df$locations[[row]]
      stack$location_id[[1]] <- sample(c(NA, 0L, -1L, 10000L, stack$location_id[[1]]), 1)
      df$locations[[row]] <- stack
    }
  )
  x[[table]] <- df
  x
}

test_that("on random changes, accept/reject decisions are those of profile 1.0.4", {
  skip_if_no_profile104()
  x <- real_v1()
  withr::local_seed(20240611)
  objects <- replicate(300, mutate_v1_randomly(x), simplify = FALSE)
  theirs <- profile104_accepts(objects)
  ours <- we_accept(objects)
  expect_identical(ours, theirs)
  # both outcomes occur, so the comparison means something
  expect_gt(sum(theirs), 20)
  expect_gt(sum(!theirs), 20)
})
