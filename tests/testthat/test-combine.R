# Inputs are real Rprof files; expected values come from R's utils::summaryRprof()
# and from counting the lines of the files, never from our own output.

rprof_input <- function(file) {
  read_rprof(sample_path("rprof", file), source_uri = file)
}

# Number of samples (stack lines) of a single-session Rprof file.
rprof_line_count <- function(file) {
  lines <- readLines(sample_path("rprof", file))
  sum(!grepl("sample.interval=", lines, fixed = TRUE) & !startsWith(lines, "#File "))
}

# Total allocation of a single-session memory-profiling Rprof file, from its
# `:small:large:nodes:dups:` fields: growth of the heaps from tick to tick, small
# and large vector heaps in units of 8 bytes (the rule of the v2 format).
rprof_alloc_total <- function(file) {
  lines <- readLines(sample_path("rprof", file))
  fields <- regmatches(lines, regexec("^:([0-9]+):([0-9]+):([0-9]+):[0-9]+:", lines))
  heaps <- do.call(rbind, lapply(fields[lengths(fields) > 0], function(f) as.numeric(f[2:4])))
  growth <- diff(heaps)
  growth[growth < 0] <- 0
  sum(8 * growth[, 1] + 8 * growth[, 2] + growth[, 3])
}

# Self counts per function name according to summaryRprof().
summary_self_counts <- function(file) {
  s <- utils::summaryRprof(sample_path("rprof", file))
  counts <- round(s$by.self$self.time / s$sample.interval)
  names(counts) <- gsub('^"|"$', "", rownames(s$by.self))
  counts[order(names(counts))]
}

# Self counts per function name (or system name) of the samples of one source of a
# v2 profile.
self_counts <- function(x, source_id = NULL, by = "name") {
  tables <- dm::dm_get_tables(x)
  samples <- tables$samples
  if (!is.null(source_id)) samples <- samples[samples$source_id == source_id, ]
  top <- tables$sample_locations
  top <- top[top$depth == 1L & top$sample_id %in% samples$sample_id, ]
  values <- tables$sample_values[tables$sample_values$type == "samples", ]
  value <- values$value[match(top$sample_id, values$sample_id)]
  fun <- tables$locations$function_id[match(top$location_id, tables$locations$location_id)]
  name <- tables$functions[[by]][match(fun, tables$functions$function_id)]
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
    expect_identical(
      anyDuplicated(t[[key[[1]]]][[key[[2]]]]), 0L,
      label = paste(key, collapse = ".")
    )
  }
  expect_identical(anyDuplicated(t$sample_values[c("sample_id", "type")]), 0L)
  expect_identical(anyDuplicated(t$sample_locations[c("sample_id", "depth")]), 0L)
  expect_identical(anyDuplicated(t$sample_types[c("source_id", "type")]), 0L)
}

# `x` with meta rows `keys` (a named character vector) after `version`.
with_meta <- function(x, keys) {
  tables <- dm::dm_get_tables(x)
  tables$meta <- tibble::tibble(key = c("version", names(keys)), value = c("2.0", unname(keys)))
  do.call(new_profile_v2, tables)
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
  expect_identical(class(x), c("profile_v2", "dm"))
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

# Sum of each value type ("type/unit") over the samples of `go tool pprof -raw`.
go_raw_totals <- function(path) {
  raw <- parse_pprof_raw(go_pprof("raw", path))
  values <- do.call(rbind, lapply(strsplit(raw$samples$values, " "), as.numeric))
  stats::setNames(colSums(values), raw$types)
}

# The same sums for the samples of one source of a v2 profile.
source_totals <- function(x, source_id) {
  t <- dm::dm_get_tables(x)
  ids <- t$samples$sample_id[t$samples$source_id == source_id]
  sv <- t$sample_values[t$sample_values$sample_id %in% ids, ]
  declared <- t$sample_types[t$sample_types$source_id == source_id, ]
  key <- paste0(declared$type, "/", declared$unit)
  totals <- tapply(sv$value, factor(paste0(sv$type, "/", sv$unit), key), sum)
  totals[is.na(totals)] <- 0
  stats::setNames(as.vector(totals), key)
}

test_that("profiles of different formats and sample types combine", {
  skip_if_no_go()
  heap_path <- sample_path("pprof", "heap.pb.gz")
  cpu_path <- sample_path("pprof", "cpu.pb.gz")
  heap <- read_pprof(heap_path)
  x <- combine_profiles(rprof_input("memory.out"), heap, read_pprof(cpu_path))
  expect_silent(validate_profile(x))
  expect_unique_keys(x)
  expect_identical(x$sources$source_type, c("rprof", "pprof", "pprof"))
  expect_identical(x$sources$source_uri, c("memory.out", heap_path, cpu_path))

  # Every source keeps its own sample types and their totals, as Go sees them.
  expect_identical(source_totals(x, 2L), go_raw_totals(heap_path))
  expect_identical(source_totals(x, 3L), go_raw_totals(cpu_path))
  rprof_totals <- source_totals(x, 1L)
  expect_identical(rprof_totals[["samples/count"]], as.numeric(rprof_line_count("memory.out")))
  expect_identical(rprof_totals[["alloc_size/bytes"]], rprof_alloc_total("memory.out"))
  types_of_source <- function(id) {
    samples <- x$samples$sample_id[x$samples$source_id == id]
    sort(unique(x$sample_values$type[x$sample_values$sample_id %in% samples]))
  }
  expect_identical(
    types_of_source(2L), c("alloc_objects", "alloc_space", "inuse_objects", "inuse_space")
  )
  expect_identical(types_of_source(3L), c("cpu", "samples"))
  expect_identical(
    types_of_source(1L),
    sort(
      c(
        "samples",
        "small_vector_heap",
        "large_vector_heap",
        "node_heap",
        "duplications",
        "alloc_size"
      )
    )
  )

  # Mappings and labels follow their sources and samples.
  expect_setequal(x$mappings$source_id, 2:3)
  labelled <- x$samples$source_id[match(x$sample_labels$sample_id, x$samples$sample_id)]
  expect_setequal(labelled, 2:3)
  # Inlined frames still point to the frame they are inlined into, within the
  # heap profile's locations (they use its own mapping, so none are merged).
  heap_mappings <- x$mappings$mapping_id[x$mappings$source_id == 2L]
  heap_locations <- x$locations[x$locations$mapping_id %in% heap_mappings, ]
  links <- heap_locations$inlined_into[!is.na(heap_locations$inlined_into)]
  expect_gt(length(links), 0L)
  expect_identical(length(links), sum(!is.na(heap$locations$inlined_into)))
  expect_true(all(links %in% heap_locations$location_id))
})

test_that("write_pprof() writes combined profiles that go tool pprof reads", {
  skip_if_no_go()
  heap_path <- sample_path("pprof", "heap.pb.gz")
  cpu_path <- sample_path("pprof", "cpu.pb.gz")
  heap <- read_pprof(heap_path)

  path <- withr::local_tempfile(fileext = ".pb.gz")
  write_pprof(combine_profiles(heap, heap), path)
  expect_identical(go_raw_totals(path), 2 * go_raw_totals(heap_path))

  mixed <- combine_profiles(rprof_input("1.out"), read_pprof(cpu_path), heap)
  write_pprof(mixed, path)
  totals <- go_raw_totals(path)
  cpu <- go_raw_totals(cpu_path)
  expect_identical(totals[["samples/count"]], rprof_line_count("1.out") + cpu[["samples/count"]])
  expect_identical(totals[["alloc_space/bytes"]], go_raw_totals(heap_path)[["alloc_space/bytes"]])
  top <- go_pprof("top", path, c("-sample_index=samples", "-nodecount=200"))
  expect_true(any(grepl(" time_round$", top)))
  expect_true(any(grepl(" main.fib$", top)))
})

test_that("v1 inputs are converted first", {
  # 1.out converted to pprof by profile 1.0.4, read as v1 (function names with
  # dots become `_`, the original is the system name).
  v1 <- read_pprof(sample_path("proto", "1.out.prof.pb.gz"), version = "1.0")
  expect_s3_class(v1, "profile_data")
  x <- combine_profiles(v1, rprof_input("gc.out"), v1)
  expect_silent(validate_profile(x))
  expect_identical(x$sources$source_type, c("v1", "rprof", "v1"))
  n <- rprof_line_count("1.out")
  expect_identical(nrow(x$samples), 2L * n + rprof_line_count("gc.out"))
  expect_identical(self_counts(x, 1L, by = "system_name"), summary_self_counts("1.out"))
  expect_identical(self_counts(x, 3L, by = "system_name"), summary_self_counts("1.out"))
  expect_identical(self_counts(x, 2L), summary_self_counts("gc.out"))

  bad <- v1
  bad$locations <- bad$locations[-1, ]
  err <- expect_error(combine_profiles(x, bad), class = "profile_error_invalid")
  expect_match(conditionMessage(err), "Argument 2 is not a valid profile", fixed = TRUE)
})

test_that("write_rprof() writes one segment per Rprof source", {
  # Profiles read from Rprof are written back as R wrote them, so the combined
  # profile gives the files one after the other, headers and #File lines included.
  files <- c("line.out", "memory.out", "append.out", "gc.out")
  x <- combine_profiles(lapply(files, rprof_input))
  path <- withr::local_tempfile(fileext = ".out")
  write_rprof(x, path)
  written <- readLines(path)
  expect_identical(written, unlist(lapply(sample_path("rprof", files), readLines)))
  expect_identical(sum(grepl("sample.interval=", written, fixed = TRUE)), nrow(x$sources))
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
  expect_warning(combine_profiles(with_notes, a), class = "profile_warning")
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
  res <- ffi_profile_combine_add(42L, list())
  expect_false(res$ok)
  expect_identical(res$kind, "invalid")
  combiner <- rust_value(ffi_profile_combine_start(TRUE), "start")
  bad_bundle <- ffi_profile_combine_add(combiner, list(strings = 1L))
  expect_false(bad_bundle$ok)
  expect_true(ffi_profile_combine_finish(combiner, TRUE)$ok)
  spent <- ffi_profile_combine_finish(combiner, TRUE)
  expect_false(spent$ok)
  expect_match(spent$message, "already returned")
})
