# The columns of a difference (profile_diff()): x's per-sample columns are in
# the result as they are in x, the base's rows after them (a `concat` column of
# src/altrep.c), but for the ids the difference renumbers; where x's text or
# values would not come back as they are, the result is made whole. Either way
# it is the same difference: the one made here from the tables, the one
# without compact columns, one of x with other ids.

per_sample <- c("samples", "sample_values", "sample_locations", "sample_labels")

column_form <- function(v) rust_value(ffi_profile_column_form(v))

# The forms of the per-sample columns of `x`, named table.column.
per_sample_forms <- function(x) {
  unlist(lapply(dm::dm_get_tables(x)[per_sample], function(t) vapply(t, column_form, "")))
}

# The columns of a table as ordinary vectors (serialisation writes them so).
plain_table <- function(df) lapply(as.list(df), function(v) unserialize(serialize(v, NULL)))

plain_tables <- function(x) lapply(dm::dm_get_tables(x), plain_table)

# R's address of a vector, as its inspect() shows it.
address <- function(v) sub(" .*", "", capture.output(.Internal(inspect(v)))[[1]])

# The difference of `x` and `base` made without compact columns.
plain_diff <- function(x, base) {
  withr::with_options(list(profile.compact = FALSE), profile_diff(x, base))
}

# Checks that the column `v` of a difference holds `x_col`, x's column, first:
# x's column itself, or, where x's is a cycle, its pattern repeated (of sample
# types; NA for links).
expect_x_column_first <- function(v, x_col, label) {
  if (column_form(x_col) == "cycle") {
    expect_identical(column_form(v), "cycle", label = label)
    return(invisible())
  }
  expect_identical(column_form(v), "concat", label = label)
  expect_match(capture.output(.Internal(inspect(v))), address(x_col),
    fixed = TRUE, all = FALSE, label = label
  )
}

# The check of expect_x_column_first() on each per-sample column of the
# difference `d` of `x` and `base` where both have rows.
expect_x_columns_first <- function(d, x, base) {
  for (t in per_sample) {
    if (nrow(x[[t]]) == 0 || nrow(base[[t]]) == 0) next
    for (col in names(x[[t]])) {
      expect_x_column_first(d[[t]][[col]], x[[t]][[col]], paste(t, col))
    }
  }
}

# The per-sample tables of the difference of `x` and `base` (an Rprof profile
# and a window of it), made here: x's rows, then the base's with its samples
# numbered after x's, its sources after x's, its values negated and one label
# pprof::base=true each; base's locations are x's, which keep their ids.
expected_difference <- function(x, base) {
  expect_identical(base$locations, x$locations)
  xt <- plain_tables(x)
  bt <- plain_tables(base)
  n_x <- nrow(x$samples)
  n_b <- nrow(base$samples)
  base_ids <- bt$samples$sample_id
  new_id <- function(ids) n_x + match(ids, base_ids)
  bt$samples$sample_id <- new_id(bt$samples$sample_id)
  bt$samples$source_id <- bt$samples$source_id + nrow(x$sources)
  bt$sample_values$sample_id <- new_id(bt$sample_values$sample_id)
  bt$sample_values$value <- -bt$sample_values$value
  bt$sample_locations$sample_id <- new_id(bt$sample_locations$sample_id)
  bt$sample_labels <- list(
    sample_id = n_x + seq_len(n_b), key = rep("pprof::base", n_b), value = rep("true", n_b),
    num = rep(NA_real_, n_b), num_unit = rep(NA_character_, n_b), kind = rep(NA_character_, n_b)
  )
  sapply(per_sample, function(t) Map(c, xt[[t]], bt[[t]][names(xt[[t]])]), simplify = FALSE)
}

test_that("a difference holds x's own per-sample columns, the base's rows after them", {
  x <- read_rprof(sample_path("rprof", "memory.out"))
  base <- profile_window(x, to = 0.2)
  d <- profile_diff(x, base)
  expect_x_columns_first(d, x, base)
  # (memory.out has no labels: the base's labels alone, one value repeated)
  expect_identical(column_form(d$sample_labels$key), "cycle")
  expect_identical(column_form(d$sample_labels$num_unit), "cycle")

  # shared until one is modified: a change to either leaves the other as it was
  x_values <- plain_table(x$sample_values)$value
  d_values <- plain_table(d$sample_values)$value
  changed_d <- d$sample_values
  changed_d$value[1] <- 1e9
  changed_x <- x$sample_values
  changed_x$value[2] <- -1e9
  expect_identical(plain_table(x$sample_values)$value, x_values)
  expect_identical(plain_table(d$sample_values)$value, d_values)
  expect_identical(changed_d$value, c(1e9, d_values[-1]))
  expect_identical(changed_x$value, c(x_values[1], -1e9, x_values[-(1:2)]))

  expected <- expected_difference(x, base)
  for (t in per_sample) {
    expect_identical(plain_table(d[[t]]), expected[[t]], label = t)
  }
})

# Pairs of profiles to subtract: Rprof, pprof with numeric labels (heap), a
# difference as x (its columns are concat columns already), Unicode text,
# OpenTelemetry, a v1 object (without labels or link columns: read as NA).
diff_pairs <- function() {
  memory <- read_rprof(sample_path("rprof", "memory.out"))
  heap <- read_pprof(sample_path("pprof", "heap.pb.gz"))
  heap_2 <- read_pprof(sample_path("pprof-second-run", "heap.pb.gz"))
  unicode <- read_pprof(sample_path("pprof-unicode", "unicode.pb.gz"))
  otlp <- read_otlp(sample_path("otlp", "otep-0239.pb"))
  v1 <- read_rprof(sample_path("rprof", "memory.out"), version = "1.0")
  early <- profile_window(memory, to = 0.2)
  list(
    "memory - early" = list(memory, early),
    "heap - second run" = list(heap, heap_2),
    "(memory - early) - early" = list(profile_diff(memory, early), early),
    "unicode - heap" = list(unicode, heap),
    "otlp - otlp" = list(otlp, otlp),
    "v1 memory - early" = list(v1, early)
  )
}

test_that("a difference is the same with and without concat columns, in every use", {
  skip_if_not_installed("dplyr")
  for (label in names(diff_pairs())) {
    pair <- diff_pairs()[[label]]
    d <- profile_diff(pair[[1]], pair[[2]])
    plain <- plain_diff(pair[[1]], pair[[2]])
    forms <- per_sample_forms(d)
    expect_true(any(forms == "concat"), label = label)
    expect_identical(unique(per_sample_forms(plain)), "none", label = label)
    expect_silent(validate_profile(d))
    # written alike
    expect_identical(
      readBin(write_pprof_tmp(d), "raw", 1e7), readBin(write_pprof_tmp(plain), "raw", 1e7),
      label = label
    )
    # (what the package reads of it stays as it was)
    expect_identical(per_sample_forms(d), forms, label = label)
    # dplyr on its tables
    expect_identical(
      dplyr::filter(d$sample_values, value < 0, sample_id %% 2L == 0L),
      dplyr::filter(plain$sample_values, value < 0, sample_id %% 2L == 0L),
      label = label
    )
    expect_identical(
      dplyr::mutate(d$sample_locations, location_id = location_id + 1L),
      dplyr::mutate(plain$sample_locations, location_id = location_id + 1L),
      label = label
    )
    # saved and read back: ordinary vectors, the same profile
    rds <- withr::local_tempfile(fileext = ".rds")
    saveRDS(d, rds)
    back <- readRDS(rds)
    expect_silent(validate_profile(back))
    expect_identical(dm::dm_get_tables(back), dm::dm_get_tables(plain), label = label)
    expect_identical(dm::dm_get_tables(d), dm::dm_get_tables(plain), label = label)
  }
})

test_that("a difference renumbers x's ids where they are not 1..n, and is the same difference", {
  x <- read_rprof(sample_path("rprof", "memory.out"))
  base <- profile_window(x, to = 0.2)
  d <- profile_diff(x, base)
  tables <- dm::dm_get_tables(x)
  with_tables <- function(change) dm_from_v2_tables(change(tables))
  variants <- list(
    # sample ids not 1..n (as after profile_window()): x's samples are 1..n
    "sample ids" = with_tables(function(t) {
      for (s in per_sample) t[[s]]$sample_id <- t[[s]]$sample_id * 2L
      t
    }),
    # location ids not 1..n: renumbered 1..n in their order
    "location ids" = with_tables(function(t) {
      t$locations$location_id <- t$locations$location_id * 10L
      t$sample_locations$location_id <- t$sample_locations$location_id * 10L
      t
    })
  )
  for (label in names(variants)) {
    v <- variants[[label]]
    changed <- profile_diff(v, base)
    # x's values stay x's own; the ids renumbered are new
    inspected <- capture.output(.Internal(inspect(changed$sample_values$value)))
    expect_match(inspected, address(v$sample_values$value), fixed = TRUE, all = FALSE)
    ids <- if (label == "sample ids") v$sample_values$sample_id else v$sample_locations$location_id
    renumbered <- if (label == "sample ids") {
      changed$sample_values$sample_id
    } else {
      changed$sample_locations$location_id
    }
    expect_identical(column_form(renumbered), "concat", label = label)
    expect_no_match(capture.output(.Internal(inspect(renumbered))), address(ids), fixed = TRUE)
    expect_identical(dm::dm_get_tables(changed), dm::dm_get_tables(d), label = label)
  }
  # the second half of a run less its first half, as a user makes them
  late <- profile_window(x, from = 0.2)
  expect_false(identical(late$samples$sample_id, seq_len(nrow(late$samples))))
  expect_identical(
    dm::dm_get_tables(profile_diff(late, base)), dm::dm_get_tables(plain_diff(late, base))
  )
})

test_that("a difference whose x's text or values would change is made whole, the same", {
  # a latin1 string comes back in UTF-8, a NaN as NA: as without concat columns
  heap <- read_pprof(sample_path("pprof", "heap.pb.gz"))
  heap_2 <- read_pprof(sample_path("pprof-second-run", "heap.pb.gz"))
  t <- dm::dm_get_tables(heap)
  latin1 <- iconv("caf\u00e9", "UTF-8", "latin1")
  t$sample_labels$key[1] <- latin1
  t$samples$time <- NaN
  x <- dm_from_v2_tables(t)
  d <- profile_diff(x, heap_2)
  expect_false(any(per_sample_forms(d) == "concat"))
  expect_identical(Encoding(d$sample_labels$key[1]), "UTF-8")
  expect_identical(d$sample_labels$key[1], "caf\u00e9")
  expect_identical(d$samples$time[1], NA_real_)
  expect_identical(dm::dm_get_tables(d), dm::dm_get_tables(plain_diff(x, heap_2)))
})
