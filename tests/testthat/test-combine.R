# Inputs are real Rprof files; expected values come from R's utils::summaryRprof()
# and from counting the lines of the files, never from our own output.

rprof_input <- function(file) {
  rprof_v2_for_tests(sample_path("rprof", file), source_uri = file)
}

# Number of samples (stack lines) of a single-session Rprof file.
rprof_line_count <- function(file) {
  lines <- readLines(sample_path("rprof", file))
  sum(!grepl("sample.interval=", lines, fixed = TRUE) & !startsWith(lines, "#File "))
}

# Self counts per function name according to summaryRprof().
summary_self_counts <- function(file) {
  s <- utils::summaryRprof(sample_path("rprof", file))
  counts <- round(s$by.self$self.time / s$sample.interval)
  names(counts) <- gsub('^"|"$', "", rownames(s$by.self))
  counts[order(names(counts))]
}

# Self counts per function name of the samples of one source of a v2 profile.
self_counts <- function(x, source_id = NULL) {
  tables <- dm::dm_get_tables(x)
  samples <- tables$samples
  if (!is.null(source_id)) samples <- samples[samples$source_id == source_id, ]
  top <- tables$sample_locations
  top <- top[top$depth == 1L & top$sample_id %in% samples$sample_id, ]
  values <- tables$sample_values[tables$sample_values$type == "samples", ]
  value <- values$value[match(top$sample_id, values$sample_id)]
  fun <- tables$locations$function_id[match(top$location_id, tables$locations$location_id)]
  name <- tables$functions$name[match(fun, tables$functions$function_id)]
  counts <- tapply(value, name, sum)
  counts <- stats::setNames(as.vector(counts), names(counts))
  counts[order(names(counts))]
}

expect_unique_keys <- function(x) {
  t <- dm::dm_get_tables(x)
  for (key in list(
    c("sources", "source_id"), c("samples", "sample_id"), c("locations", "location_id"),
    c("functions", "function_id"), c("mappings", "mapping_id"), c("meta", "key")
  )) {
    expect_identical(anyDuplicated(t[[key[[1]]]][[key[[2]]]]), 0L, label = paste(key, collapse = "."))
  }
  expect_identical(anyDuplicated(t$sample_values[c("sample_id", "type")]), 0L)
  expect_identical(anyDuplicated(t$sample_locations[c("sample_id", "depth")]), 0L)
  expect_identical(anyDuplicated(t$sample_types[c("source_id", "type")]), 0L)
}

# Same tables and same keys (dm objects carry random uuids, so identical() is out).
expect_same_profile <- function(actual, expected) {
  expect_identical(dm::dm_get_tables(actual), dm::dm_get_tables(expected))
  expect_identical(dm::dm_get_all_pks(actual), dm::dm_get_all_pks(expected))
  expect_identical(dm::dm_get_all_fks(actual), dm::dm_get_all_fks(expected))
}

test_that("combining real profiles keeps every sample, source and self count", {
  files <- c("1.out", "gc.out", "memory.out")
  x <- combine_profiles(lapply(files, rprof_input))
  expect_silent(validate_profile(x))
  expect_identical(class(x), "dm")
  expect_unique_keys(x)

  line_counts <- vapply(files, rprof_line_count, integer(1), USE.NAMES = FALSE)
  expect_identical(nrow(x$samples), sum(line_counts))
  expect_identical(x$sources$source_uri, files)
  expect_identical(x$sources$source_id, 1:3)
  expect_identical(as.vector(table(factor(x$samples$source_id, 1:3))), line_counts)
  for (i in seq_along(files)) {
    expect_identical(self_counts(x, i), summary_self_counts(files[[i]]), label = files[[i]])
  }
  # Functions with the same name are one row now.
  expect_identical(anyDuplicated(x$functions$name), 0L)
})

test_that("combining a profile with itself doubles per-function self counts", {
  a <- rprof_input("gc.out")
  expected <- 2 * summary_self_counts("gc.out")

  merged <- combine_profiles(a, a)
  expect_silent(validate_profile(merged))
  expect_identical(self_counts(merged), expected)
  expect_identical(nrow(merged$functions), nrow(a$functions))
  expect_identical(nrow(merged$locations), nrow(a$locations))
  expect_identical(nrow(merged$samples), 2L * rprof_line_count("gc.out"))

  apart <- combine_profiles(a, a, merge = FALSE)
  expect_silent(validate_profile(apart))
  expect_identical(self_counts(apart), expected)
  expect_identical(nrow(apart$functions), 2L * nrow(a$functions))
  expect_identical(nrow(apart$locations), 2L * nrow(a$locations))
})

test_that("arguments and a list of profiles give the same result, in input order", {
  a <- rprof_input("1.out")
  b <- rprof_input("gc.out")
  ab <- combine_profiles(a, b)
  expect_same_profile(combine_profiles(list(a, b)), ab)
  expect_same_profile(combine_profiles(list(first = a, second = b)), ab)
  expect_identical(ab$sources$source_uri, c("1.out", "gc.out"))
  expect_identical(combine_profiles(b, a)$sources$source_uri, c("gc.out", "1.out"))
  # The samples of the first input come first, with their stacks.
  n_a <- rprof_line_count("1.out")
  expect_identical(unique(ab$samples$source_id[seq_len(n_a)]), 1L)
  expect_identical(self_counts(ab, 1L), summary_self_counts("1.out"))
})

test_that("one profile with dense ids comes back unchanged", {
  a <- rprof_input("1.out")
  x <- combine_profiles(a)
  before <- dm::dm_get_tables(a)
  after <- dm::dm_get_tables(x)
  for (t in names(before)) {
    expect_identical(after[[t]][names(before[[t]])], before[[t]], label = t)
    # The extension columns the input did not have are there, empty.
    added <- setdiff(names(after[[t]]), names(before[[t]]))
    expect_true(all(is.na(unlist(after[[t]][added]))), label = t)
  }
})

test_that("profiles of different formats and sample types combine", {
  rprof <- rprof_input("memory.out")
  heap <- heap_like_v2()
  x <- combine_profiles(rprof, heap, heap)
  expect_silent(validate_profile(x))
  expect_unique_keys(x)
  expect_identical(x$sources$source_type, c("rprof", "pprof", "pprof"))
  expect_identical(x$sources$time_nanos, c(NA, "1700000000123456789", "1700000000123456789"))
  n_rprof <- rprof_line_count("memory.out")
  values <- x$sample_values
  rprof_types <- unique(values$type[values$sample_id <= n_rprof])
  heap_types <- unique(values$type[values$sample_id > n_rprof])
  expect_identical(rprof_types, "samples")
  expect_identical(heap_types, c("alloc_space", "inuse_space"))
  expect_identical(sum(values$value[values$type == "alloc_space"]), 2 * (1024 + 4096))
  # Extension tables follow their sources and samples.
  expect_identical(x$mappings$source_id, 2:3)
  expect_identical(x$sample_types$source_id, c(2L, 2L, 3L, 3L))
  expect_identical(x$sample_labels$sample_id, n_rprof + 1:4)
  # The inlined frame still points to the frame it is inlined into.
  locations <- x$locations
  inlined <- locations[!is.na(locations$inlined_into), ]
  expect_identical(nrow(inlined), 2L)
  target <- locations[match(inlined$inlined_into, locations$location_id), ]
  expect_identical(x$functions$name[match(target$function_id, x$functions$function_id)], rep("main.outer", 2))
  expect_identical(target$mapping_id, inlined$mapping_id)
})

test_that("meta keeps one version row and the first value of a key", {
  a <- with_meta(rprof_input("1.out"), c(host = "x", tool = "R"))
  b <- with_meta(rprof_input("gc.out"), c(tool = "R", host = "y"))
  c <- with_meta(rprof_input("gc.out"), c(host = "z"))
  x <- combine_profiles(a, b, c)
  expect_identical(x$meta$key, c("version", "host", "tool", "host@2", "host@3"))
  expect_identical(x$meta$value, c("2.0", "x", "R", "y", "z"))
})

test_that("inputs that are not valid profiles are named by their position", {
  a <- rprof_input("1.out")
  err <- expect_error(combine_profiles(a, 42), class = "profile_error_argument")
  expect_s3_class(err, "profile_error")
  expect_match(conditionMessage(err), "Argument 2", fixed = TRUE)
  err <- expect_error(combine_profiles(a, a, b = "x"), class = "profile_error_argument")
  expect_match(conditionMessage(err), "Argument 3 (`b`)", fixed = TRUE)

  bad <- dm::dm_zoom_to(a, sample_locations)
  bad <- dm::dm_update_zoomed(dplyr::mutate(bad, depth = depth + 1L))
  err <- expect_error(combine_profiles(list(a, a, bad)), class = "profile_error_invalid")
  expect_match(conditionMessage(err), "Element 3", fixed = TRUE)
  expect_match(conditionMessage(err), "sample_locations", fixed = TRUE)

  expect_error(combine_profiles(a, merge = NA), class = "profile_error_argument")
})

test_that("tables the format does not know are dropped with a warning", {
  a <- rprof_input("1.out")
  tables <- dm::dm_get_tables(a)
  tables$notes <- tibble::tibble(note = "mine")
  with_notes <- do.call(new_profile_v2, tables)
  expect_warning(x <- combine_profiles(with_notes, a), class = "profile_warning_dropped")
  expect_false("notes" %in% names(x))
  expect_silent(validate_profile(x))
})

test_that("no inputs give an empty valid profile", {
  x <- combine_profiles()
  expect_silent(validate_profile(x))
  expect_identical(nrow(x$sources), 0L)
  expect_same_profile(combine_profiles(list()), x)
})

test_that("the combiner of the binding refuses misuse with an error, not a crash", {
  res <- profile_combine_add(42L, list())
  expect_false(res$ok)
  expect_identical(res$kind, "invalid")
  combiner <- rust_value(profile_combine_start(TRUE), "start")
  bad_bundle <- profile_combine_add(combiner, list(strings = 1L))
  expect_false(bad_bundle$ok)
  expect_true(profile_combine_finish(combiner)$ok)
  spent <- profile_combine_finish(combiner)
  expect_false(spent$ok)
  expect_match(spent$message, "already returned")
})
