# Invalid R objects given to the functions that take profiles: each gives a
# profile_error of the documented class that names what is wrong, never an
# error from R or another package, and writers leave no file behind.

# A valid v2 profile with one table changed by `edit(tables)`, as a dm with the
# keys the format wants (so only the content is wrong).
v2_with <- function(edit) {
  tables <- dm::dm_get_tables(tiny_v2())
  tables <- edit(tables)
  profile:::dm_from_v2_tables(lapply(tables, tibble::as_tibble))
}

not_profiles <- list(
  NULL = NULL, number = 1, string = "a", list = list(), data_frame = data.frame(x = 1),
  environment = new.env(), `function` = identity, raw = raw(3),
  dm_empty = dm::dm(), dm_other = dm::dm(a = data.frame(x = 1)),
  v1_class_only = structure(list(), class = "profile_data"),
  v1_wrong_parts = structure(
    list(meta = 1, sample_types = 2, samples = 3, locations = 4, functions = 5),
    class = "profile_data"
  )
)

test_that("things that are not profiles", {
  dir <- local_dir()
  out <- file.path(dir, "out")
  for (what in names(not_profiles)) {
    x <- not_profiles[[what]]
    expect_profile_error(validate_profile(x), "invalid")
    expect_profile_error(write_rprof(x, out), "invalid")
    expect_profile_error(write_pprof(x, out), "invalid")
    if (!inherits(x, "dm")) {
      expect_profile_error(profile_v2_from_v1(x), "invalid")
    }
  }
  expect_identical(all_files(dir), character())
})

test_that("v2 objects broken in their content", {
  broken <- list(
    na_id = function(t) {
      t$samples$sample_id[[2]] <- NA
      t
    },
    zero_id = function(t) {
      t$locations$location_id[[1]] <- 0L
      t
    },
    duplicate_id = function(t) {
      t$functions$function_id[[2]] <- 1L
      t
    },
    dangling_location = function(t) {
      t$sample_locations$location_id[[1]] <- 99L
      t
    },
    depth_gap = function(t) {
      t$sample_locations$depth[[2]] <- 5L
      t
    },
    wrong_version = function(t) {
      t$meta$value <- "1.0"
      t
    },
    bad_source_type = function(t) {
      t$sources$source_type <- "perf"
      t
    },
    double_ids = function(t) {
      t$samples$sample_id <- as.double(t$samples$sample_id)
      t
    },
    factor_names = function(t) {
      t$functions$name <- factor(t$functions$name)
      t
    },
    list_column = function(t) {
      t$locations$line <- as.list(t$locations$line)
      t
    },
    missing_table = function(t) t[names(t) != "functions"],
    missing_column = function(t) {
      t$sample_values$unit <- NULL
      t
    },
    tables_out_of_order = function(t) t[rev(names(t))],
    duplicate_meta_key = function(t) {
      t$meta <- tibble::tibble(key = c("version", "version"), value = c("2.0", "2.0"))
      t
    }
  )
  dir <- local_dir()
  out <- file.path(dir, "out")
  for (what in names(broken)) {
    x <- v2_with(broken[[what]])
    err <- expect_profile_error(validate_profile(x), "invalid")
    expect_profile_error(write_rprof(x, out), "invalid")
    expect_profile_error(write_pprof(x, out), "invalid")
  }
  expect_identical(all_files(dir), character())
})

test_that("v1 objects broken in their content", {
  v1 <- read_rprof(sample_path("rprof", "1.out"), version = "1.0")
  broken <- list(
    negative_value = function(x) {
      x$samples$value[[1]] <- -1L
      x
    },
    dangling_location = function(x) {
      x$samples$locations[[1]] <- tibble::tibble(location_id = 9999L)
      x
    },
    not_a_tibble_stack = function(x) {
      x$samples$locations[[1]] <- 1:3
      x
    },
    empty_name = function(x) {
      x$functions$name[[1]] <- ""
      x
    },
    duplicate_function = function(x) {
      x$functions$function_id[[2]] <- x$functions$function_id[[1]]
      x
    },
    character_lines = function(x) {
      x$locations$line <- as.character(x$locations$line)
      x
    }
  )
  dir <- local_dir()
  out <- file.path(dir, "out")
  for (what in names(broken)) {
    x <- broken[[what]](v1)
    expect_profile_error(validate_profile(x), "invalid")
    expect_profile_error(write_rprof(x, out), "invalid")
    expect_profile_error(write_pprof(x, out), "invalid")
    expect_profile_error(profile_v2_from_v1(x), "invalid")
  }
  expect_identical(all_files(dir), character())
})

test_that("a v1 count over what v2 can hold", {
  v1 <- read_rprof(sample_path("rprof", "1.out"), version = "1.0")
  v1$samples$value[1:2] <- .Machine$integer.max
  expect_profile_error(profile_v2_from_v1(v1), "limit", "v2 holds at most")
})

test_that("new_profile_v2() with tables that are not data frames or have odd names", {
  t <- as.list(dm::dm_get_tables(tiny_v2()))
  make <- function(name, value) {
    args <- t
    args[name] <- list(value)
    do.call(new_profile_v2, args)
  }
  expect_profile_error(make("meta", 1), "argument", "meta")
  expect_profile_error(make("functions", NULL), "argument", "functions")
  expect_profile_error(do.call(new_profile_v2, t[names(t) != "functions"]), "invalid", "functions")
  dup <- data.frame(function_id = 1L, function_id = 2L, check.names = FALSE)
  expect_profile_error(make("functions", dup), "invalid", "functions", "each name once")
  unnamed <- t$samples
  names(unnamed)[[2]] <- ""
  expect_profile_error(make("samples", unnamed), "invalid", "samples")
  expect_profile_error(
    do.call(new_profile_v2, c(t, list(data.frame(a = 1)))), "argument", "must be named"
  )
  expect_profile_error(
    do.call(new_profile_v2, c(t, list(x = data.frame(a = 1), x = data.frame(b = 2)))),
    "argument", "names of their own"
  )
  expect_profile_error(
    make("samples", tibble::tibble(sample_id = 1:3, source_id = 9L)), "invalid", "source_id"
  )
})

test_that("strings in any encoding are passed on as valid UTF-8 (invalid bytes as <xx>)", {
  x <- v2_with(function(t) {
    nm <- t$functions$name
    nm[[1]] <- "caf\xe9"
    Encoding(nm[[1]]) <- "latin1"
    nm[[2]] <- "by\xfftes%s%n"
    Encoding(nm[[2]]) <- "bytes"
    nm[[3]] <- "in\xffvalid {x}"
    t$functions$name <- nm
    t$functions$system_name <- nm
    t
  })
  expect_silent(validate_profile(x))
  dir <- local_dir()
  rprof <- file.path(dir, "names.out")
  pprof <- file.path(dir, "names.pb.gz")
  write_rprof(x, rprof)
  write_pprof(x, pprof)
  want <- c("caf\u00e9", "by<ff>tes%s%n", "in<ff>valid {x}")
  expect_setequal(dm::dm_get_tables(read_rprof(rprof))$functions$name, want)
  expect_setequal(dm::dm_get_tables(read_pprof(pprof))$functions$name, want)

  v1 <- read_rprof(sample_path("rprof", "1.out"), version = "1.0")
  v1$functions$name[[1]] <- "ba\xffd"
  v1$functions$system_name[[1]] <- "ba\xffd"
  write_pprof(v1, pprof)
  expect_true("ba<ff>d" %in% read_pprof(pprof, version = "1.0")$functions$system_name)
})

test_that("messages quote values from the object literally, %s, %n and braces too", {
  x <- v2_with(function(t) {
    t$meta <- tibble::tibble(key = c("version", "%s%n{x}", "%s%n{x}"), value = c("2.0", "a", "b"))
    t
  })
  expect_profile_error(validate_profile(x), "invalid", "\"%s%n{x}\" occurs more than once")
  y <- v2_with(function(t) {
    t$sources$source_type <- "%n%n%n%s\xff"
    t
  })
  expect_profile_error(write_pprof(y, tempfile()), "invalid", "found \"%n%n%n%s<ff>\"")
})
