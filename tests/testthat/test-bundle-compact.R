# Compact columns (src/altrep.c): the long tables keep their per-sample shape
# instead of a value per row. They must be indistinguishable from ordinary
# vectors in every use, stay compact when the package itself reads them, and
# never be what saveRDS() writes.

column_form <- function(x) rust_value(ffi_profile_column_form(x))

# An ordinary copy of `v` made without the compact classes' own methods:
# serialisation writes ALTREP vectors of these classes as plain vectors.
plain_copy <- function(v) unserialize(serialize(v, NULL))

memory_file <- function() system.file("samples/rprof/memory.out", package = "profile")

test_that("a memory profile's long tables are read as compact columns with the file's shape", {
  x <- read_rprof(memory_file())
  sl <- x$sample_locations
  sv <- x$sample_values
  expect_identical(column_form(sl$sample_id), "runs")
  expect_identical(column_form(sl$depth), "run_seq")
  expect_identical(column_form(sv$sample_id), "runs")
  expect_identical(column_form(sv$type), "cycle")
  expect_identical(column_form(sv$unit), "cycle")
  expect_identical(column_form(sl$location_id), "none")
  expect_identical(column_form(x$samples$source_id), "runs")
  expect_identical(column_form(x$samples$time), "run_steps")

  # expected from the text: one sample per line after the header, one row per
  # quoted frame (no frame of this file has a quote in its name)
  lines <- readLines(memory_file())[-1]
  frames <- lengths(regmatches(lines, gregexpr('"[^"]*"', lines)))
  expect_identical(plain_copy(sl$sample_id), rep(seq_along(lines), frames))
  expect_identical(plain_copy(sl$depth), sequence(frames))
  types <- c(
    "samples", "small_vector_heap", "large_vector_heap", "node_heap",
    "duplications", "alloc_size"
  )
  expect_identical(plain_copy(sv$type), rep(types, length(lines)))
  expect_identical(plain_copy(sv$sample_id), rep(seq_along(lines), each = length(types)))
  expect_identical(sv$unit[1:6], c("count", "bytes", "bytes", "bytes", "count", "bytes"))
  # sample.interval=5000: 5 ms between ticks
  expect_identical(plain_copy(x$samples$time), (seq_along(lines) - 1) * 5000 / 1e6)
})

# `v` (a compact column) used as R uses vectors, against `p`, an ordinary vector
# of the same values made otherwise.
expect_ordinary <- function(v, p, label = "") {
  expect_identical(column_form(p), "none")
  n <- length(p)
  expect_identical(length(v), n)
  expect_identical(v, p)
  for (i in list(
    c(3L, 1L, NA, n, n + 1L), c(2.9, 1e10, NaN, -Inf), -(1:3), 0L,
    integer(), c(TRUE, FALSE, NA), rev(seq_len(n))
  )) {
    expect_identical(v[i], p[i], info = paste(label, deparse(i)))
  }
  expect_identical(v[[n]], p[[n]])
  expect_error(v[[n + 1L]])
  expect_identical(unique(v), unique(p))
  expect_identical(table(v, dnn = NULL, useNA = "ifany"), table(p, dnn = NULL, useNA = "ifany"))
  expect_identical(rev(v), rev(p))
  expect_identical(sort(v), sort(p))
  expect_identical(anyNA(v), anyNA(p))
  expect_identical(v == v[[2]], p == p[[2]])
  if (is.numeric(p)) {
    expect_identical(sum(v), sum(p))
    expect_identical(range(v, na.rm = TRUE), range(p, na.rm = TRUE))
    expect_identical(cumsum(v), cumsum(p))
    expect_identical(is.unsorted(v), is.unsorted(p))
  }
}

test_that("compact columns behave as ordinary vectors", {
  x <- read_rprof(memory_file())
  columns <- list(
    x$sample_locations$sample_id, x$sample_locations$depth,
    x$sample_values$sample_id, x$sample_values$type, x$samples$source_id,
    read_rprof(system.file("samples/rprof/append.out", package = "profile"))$samples$time
  )
  for (v in columns) {
    expect_ordinary(v, plain_copy(v))
    expect_false(anyNA(v))
  }
})

test_that("changing a copy of a compact column leaves the original as it was", {
  x <- read_rprof(memory_file())
  ids <- x$sample_locations$sample_id
  before <- plain_copy(ids)
  changed <- ids
  changed[2] <- 99L
  expect_identical(changed[1:3], c(before[1], 99L, before[3]))
  expect_identical(ids, before)

  types <- x$sample_values$type
  expected <- plain_copy(types)
  renamed <- types
  renamed[1] <- "renamed"
  expect_identical(renamed[1:2], c("renamed", expected[2]))
  expect_identical(types, expected)

  sl <- x$sample_locations
  sl$depth[1] <- 5L
  expect_identical(x$sample_locations$depth[1], 1L)
})

test_that("what the package reads from a profile stays compact", {
  x <- read_rprof(memory_file())
  path <- withr::local_tempfile(fileext = ".pb.gz")
  validate_profile(x)
  write_pprof(x, path)
  write_rprof(x, withr::local_tempfile(fileext = ".out"))
  profile_summary(x)
  write_folded(x, withr::local_tempfile(fileext = ".folded"))
  grDevices::pdf(NULL)
  profile_flamegraph(x)
  grDevices::dev.off()
  combine_profiles(x, x)
  expect_identical(column_form(x$sample_locations$sample_id), "runs")
  expect_identical(column_form(x$sample_locations$depth), "run_seq")
  expect_identical(column_form(x$sample_values$type), "cycle")
  expect_identical(column_form(x$samples$time), "run_steps")
  # ... and R's own use expands a column only once, in place
  v <- x$sample_locations$sample_id
  expect_identical(max(v + 0L), max(plain_copy(v)))
  expect_match(column_form(x$sample_locations$sample_id), "runs")
})

test_that("a profile with expanded or ordinary columns is the same profile", {
  x <- read_rprof(memory_file())
  tables <- dm::dm_get_tables(x)
  plain_tables <- lapply(tables, function(t) {
    t[] <- lapply(t, plain_copy)
    t
  })
  a <- withr::local_tempfile(fileext = ".out")
  b <- withr::local_tempfile(fileext = ".out")
  write_rprof(x, a)
  write_rprof(profile:::dm_from_v2_tables(plain_tables), b)
  expect_identical(readBin(a, "raw", 1e7), readBin(b, "raw", 1e7))
  expect_identical(readLines(a), readLines(memory_file()))
})

test_that("saveRDS() writes ordinary vectors that read back without the classes", {
  x <- read_rprof(memory_file())
  rds <- withr::local_tempfile(fileext = ".rds")
  saveRDS(x, rds)
  y <- readRDS(rds)
  expect_identical(column_form(y$sample_locations$sample_id), "none")
  expect_identical(column_form(y$sample_values$type), "none")
  expect_identical(y$sample_locations$sample_id, x$sample_locations$sample_id)
  expect_identical(y$sample_values$unit, x$sample_values$unit)
  expect_identical(as.list(y$sample_values), as.list(x$sample_values))
  expect_silent(validate_profile(y))
})

test_that("pprof profiles are compact too (one value row per sample type)", {
  x <- read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile"))
  sv <- x$sample_values
  n_types <- nrow(x$sample_types)
  expect_identical(column_form(sv$type), "cycle")
  expect_identical(plain_copy(sv$type), rep(x$sample_types$type, nrow(x$samples)))
  expect_identical(plain_copy(sv$sample_id), rep(x$samples$sample_id, each = n_types))
})

test_that("dplyr and dm work on compact columns", {
  skip_if_not_installed("dplyr")
  x <- read_rprof(memory_file())
  deep <- dplyr::filter(x$sample_locations, depth > 20L)
  p <- lapply(as.list(x$sample_locations), plain_copy)
  expect_identical(deep$sample_id, p$sample_id[p$depth > 20L])
  expect_identical(dplyr::count(x$sample_values, type)$n, rep(nrow(x$samples), 6L))
  f <- dm::dm_filter(x, samples = sample_id <= 10L)
  expect_identical(
    sort(unique(f$sample_locations$sample_id)),
    sort(unique(p$sample_id[p$sample_id <= 10L]))
  )
})

test_that("the classes' methods survive garbage collection at every allocation", {
  x <- read_rprof(memory_file())
  ids <- x$sample_locations$sample_id[seq_len(40)]
  v <- x$sample_locations$depth
  types <- x$sample_values$type
  time <- x$samples$time
  p <- plain_copy(v)
  pt <- plain_copy(types)
  ptime <- plain_copy(time)
  gctorture(TRUE)
  sub <- v[c(5L, 1L, NA)]
  sub_t <- types[c(7L, NA, 2L)]
  sub_time <- time[c(9L, NA, 1L)]
  dup <- duplicate_and_change(types)
  expanded <- v + 0L
  expanded_time <- time + 0
  gctorture(FALSE)
  expect_identical(sub, p[c(5L, 1L, NA)])
  expect_identical(sub_t, pt[c(7L, NA, 2L)])
  expect_identical(sub_time, ptime[c(9L, NA, 1L)])
  expect_identical(dup, c("x", pt[-1]))
  expect_identical(expanded, p)
  expect_identical(expanded_time, ptime)
})

# The read that R users get leaves its compact columns unwritten and makes them
# from the samples' shape; the reference writes every column and finds the
# compact forms in them. Both must give the same tables.
read_both_ways <- function(path) {
  read <- function(from_shape) {
    res <- rust_value(
      ffi_rprof_read(path, path, check_max_size(Inf), default_max_memory(), FALSE, TRUE, from_shape)
    )
    decode_bundle(res$bundle)
  }
  list(from_shape = read(TRUE), full = read(FALSE))
}

# `forms`: the compact form of some columns made from the shape, checked before
# the comparison (which expands them).
expect_same_reads <- function(path, label, forms = list()) {
  both <- read_both_ways(path)
  for (col in names(forms)) {
    parts <- strsplit(col, "$", fixed = TRUE)[[1]]
    expect_identical(column_form(both$from_shape[[parts[[1]]]][[parts[[2]]]]), forms[[col]],
      label = paste(label, col)
    )
  }
  expect_identical(names(both$from_shape), names(both$full), label = label)
  for (t in names(both$full)) {
    for (col in names(both$full[[t]])) {
      expect_identical(plain_copy(both$from_shape[[t]][[col]]), plain_copy(both$full[[t]][[col]]),
        label = paste(label, t, col)
      )
    }
  }
  invisible(both)
}

test_that("compact columns made from a read's shape are those found in its written columns", {
  for (f in list.files(system.file("samples/rprof", package = "profile"), full.names = TRUE)) {
    expect_same_reads(f, basename(f))
  }
  lines <- readLines(memory_file())
  stack_lines <- lines[-1]
  cases <- list(
    # one sample; a file ending in samples without a stack
    one = c(lines[[1]], stack_lines[[1]]),
    trailing_empty = c(lines[[1]], stack_lines[1:5], ":100:200:300:0:", ":100:200:300:0:"),
    # memory and plain segments (R appends segments with Rprof(append = TRUE))
    mixed = c(
      lines,
      "sample.interval=20000",
      readLines(system.file("samples/rprof/1.out", package = "profile"))[-1]
    ),
    header_only = lines[[1]],
    # over 2 MB: read in chunks on both cores
    large = c(lines[[1]], rep_len(stack_lines, 120 * length(stack_lines)))
  )
  for (name in names(cases)) {
    path <- withr::local_tempfile(fileext = ".out")
    writeLines(cases[[name]], path)
    forms <- switch(name,
      large = list(
        `sample_values$type` = "cycle",
        `sample_locations$depth` = "run_seq",
        `samples$time` = "run_steps"
      ),


      # samples with and without memory values: no single pattern of types
      mixed = list(
        `sample_values$type` = "none",
        `sample_values$sample_id` = "runs",
        `samples$time` = "run_steps"
      ),


      # a sample: nothing to keep compact
      one = list(`samples$time` = "none"),
      list()
    )
    expect_same_reads(path, name, forms)
  }
  expect_gt(file.size(path), 2 * 2^20) # the last case, `large`
})

test_that("options(profile.compact = FALSE) gives ordinary vectors with the same values", {
  forms <- function(x) {
    unlist(lapply(dm::dm_get_tables(x), function(t) vapply(t, column_form, character(1))))
  }
  folded <- withr::local_tempfile(fileext = ".folded")
  writeLines(c("main;f;g 3", "main;f 2", "main;h;g 1"), folded)
  reads <- list(
    rprof = function() read_rprof(memory_file()),
    pprof = function() read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile")),
    folded = function() read_folded(folded),
    combined = function() combine_profiles(read_rprof(memory_file()), read_rprof(memory_file()))
  )
  for (name in names(reads)) {
    compact <- reads[[name]]()
    plain <- withr::with_options(list(profile.compact = FALSE), reads[[name]]())
    expect_true(any(forms(compact) != "none"), label = name)
    expect_identical(unique(forms(plain)), "none", label = name)
    expect_identical(dm::dm_get_tables(plain), dm::dm_get_tables(compact), label = name)
  }
  # the option's default, and a value it cannot take
  withr::with_options(list(profile.compact = NULL), {
    expect_identical(column_form(read_rprof(memory_file())$sample_locations$depth), "run_seq")
  })
  withr::local_options(profile.compact = "no")
  expect_error(read_rprof(memory_file()), class = "profile_error_argument")
  expect_error(read_pprof(system.file("samples/pprof/heap.pb.gz", package = "profile")),
    class = "profile_error_argument"
  )
})

test_that("the native code's argument errors are argument errors", {
  res <- ffi_rprof_read(memory_file(), NA_character_, 1e6, 1e9, FALSE, NA, TRUE)
  expect_false(res$ok)
  expect_identical(res$kind, "argument")
  expect_match(res$message, "`compact` must be TRUE or FALSE", fixed = TRUE)
  expect_error(rust_value(res, "Can't read."), class = "profile_error_argument")
})

# ---- concat: the rows of one vector, then those of another -----------------

concat <- function(first, second) rust_value(ffi_profile_concat(first, second), "Can't join.")

# The sample ids of sample_locations of memory.out: a compact column, and an
# ordinary copy of it from another read (serialize() expands what it writes).
memory_ids <- function() {
  ids <- function() read_rprof(memory_file())$sample_locations$sample_id
  list(compact = ids(), plain = plain_copy(ids()))
}

# Pairs of parts (compact or not, with and without NA) and what c() makes of
# them, an ordinary vector.
concat_parts <- function() {
  x <- read_rprof(memory_file())
  ids <- x$sample_locations$sample_id
  list(
    "runs, ordinary" = list(ids, c(7L, NA, 9L, 9L)),
    "ordinary, runs" = list(c(NA, 3L), ids),
    "run_steps, ordinary" = list(x$samples$time, c(0.5, NA, NaN, -Inf)),
    "cycle, ordinary" = list(x$sample_values$type, c("a", NA, "b")),
    "ordinary, cycle" = list(c("é", "b"), x$sample_values$unit),
    "concat, ordinary" = list(concat(1:3, c(NA, 5L)), 6:9)
  )
}

test_that("concat columns behave as ordinary vectors", {
  for (label in names(concat_parts())) {
    parts <- concat_parts()[[label]]
    v <- concat(parts[[1]], parts[[2]])
    expect_identical(column_form(v), "concat", label = label)
    expect_ordinary(v, c(plain_copy(parts[[1]]), plain_copy(parts[[2]])), label = label)
  }
})

test_that("a concat column's regions cross from its first part to its second", {
  ids <- memory_ids()
  n_ids <- length(ids$plain)
  for (second in list(c(7L, NA, 9L, 9L), rev(ids$plain))) {
    v <- concat(ids$compact, second)
    expected <- c(ids$plain, second)
    n <- length(expected)
    # regions in the first part, across the boundary, at it, in the second,
    # at the end and past it
    for (from in c(0, n_ids - 3, n_ids - 1, n_ids, n_ids + 1, n - 2, n)) {
      for (count in c(0, 1, 2, 4, n - from)) {
        if (from + count > n) next
        got <- rust_value(ffi_profile_column_region(v, from, count), "Can't read.")
        expect_identical(got, expected[from + seq_len(count)], info = paste(from, count))
      }
    }
    expect_error(rust_value(ffi_profile_column_region(v, n - 1, 2), "Can't read."),
      class = "profile_error_argument"
    )
    # read by regions, nothing is expanded, nor are the parts
    expect_identical(column_form(v), "concat")
    expect_identical(column_form(ids$compact), "runs")
  }
  time <- read_rprof(memory_file())$samples$time
  plain_time <- plain_copy(read_rprof(memory_file())$samples$time)
  n_time <- length(plain_time)
  v <- concat(time, c(-1, NA))
  got <- rust_value(ffi_profile_column_region(v, n_time - 2, 4), "Can't read.")
  expect_identical(got, c(plain_time[n_time - 1:0], -1, NA))
  expect_identical(column_form(time), "run_steps")
})

test_that("changing a concat column changes a copy and leaves its parts as they were", {
  ids <- memory_ids()
  v <- concat(ids$compact, 1:3)
  changed <- v
  changed[length(ids$plain) + 1L] <- 99L
  expect_identical(column_form(v), "concat")
  expect_identical(column_form(ids$compact), "runs")
  expect_identical(changed, c(ids$plain, 99L, 2:3))
  expect_identical(v, c(ids$plain, 1:3))
  expect_identical(ids$compact, ids$plain)
  in_place <- concat(c(1L, 2L), c(3L, 4L))
  in_place[1] <- 0L
  expect_identical(in_place, c(0L, 2:4))
  expect_identical(column_form(in_place), "concat (expanded)")

  first <- c("a", "b")
  s <- concat(first, c("c", NA))
  expect_identical(duplicate_and_change(s), c("x", "b", "c", NA))
  s[4] <- "d"
  expect_identical(s, c("a", "b", "c", "d"))
  expect_identical(first, c("a", "b"))
  # R's inspect() shows the parts until the vector is expanded
  expect_match(capture.output(.Internal(inspect(v))), "profile concat", all = FALSE)
  expect_match(capture.output(.Internal(inspect(s))), "expanded", all = FALSE)
})

test_that("concat columns serialise as ordinary vectors and survive garbage collection", {
  parts <- concat_parts()
  v <- concat(parts[["runs, ordinary"]][[1]], parts[["runs, ordinary"]][[2]])
  s <- concat(parts[["cycle, ordinary"]][[1]], parts[["cycle, ordinary"]][[2]])
  p <- plain_copy(v)
  ps <- plain_copy(s)
  expect_identical(column_form(p), "none")
  expect_identical(column_form(ps), "none")
  expect_identical(p, c(plain_copy(parts[["runs, ordinary"]][[1]]), 7L, NA, 9L, 9L))
  n <- length(p)
  gctorture(TRUE)
  made <- concat(c(1L, NA), 3:4)
  sub <- v[c(n, 1L, NA, n - 3L)]
  sub_s <- s[c(length(ps), NA, 1L)]
  dup <- duplicate_and_change(s)
  expanded <- v + 0L
  gctorture(FALSE)
  expect_identical(made, c(1L, NA, 3L, 4L))
  expect_identical(sub, p[c(n, 1L, NA, n - 3L)])
  expect_identical(sub_s, ps[c(length(ps), NA, 1L)])
  expect_identical(dup, c("x", ps[-1]))
  expect_identical(expanded, p)
})

test_that("only two vectors of one type without attributes are joined", {
  for (parts in list(
    list(1L, 2), list("a", 1L), list(TRUE, FALSE), list(list(1), list(2)),
    list(c(a = 1L), 2L), list(1L, factor("a"))
  )) {
    expect_error(concat(parts[[1]], parts[[2]]), "one type", class = "profile_error_argument")
  }
})
