# Profiles of known counts for the tests of profile_compare() (test-compare.R,
# test-compare-stats.R).

# A profile of one source per column of `counts` (functions by runs): each
# sample one tick of `main` calling the row's function, `value` each (bytes of
# `values`, a list per column of a value per sample, when given).
counts_profile <- function(counts, names = paste0("f", seq_len(nrow(counts))), values = NULL) {
  runs <- ncol(counts)
  fun <- unlist(lapply(seq_len(runs), function(r) rep(seq_len(nrow(counts)), counts[, r])))
  source <- rep(seq_len(runs), colSums(counts))
  n <- length(fun)
  value <- if (is.null(values)) rep(1, n) else unlist(values)
  new_profile_v2(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(
      source_id = seq_len(runs), source_type = "manual",
      source_uri = paste0("run", seq_len(runs)), source_timestamp = NA_real_
    ),
    samples = tibble::tibble(sample_id = seq_len(n), source_id = source),
    sample_values = tibble::tibble(
      sample_id = seq_len(n), type = if (is.null(values)) "samples" else "alloc_space",
      unit = if (is.null(values)) "count" else "bytes", value = value
    ),
    sample_locations = tibble::tibble(
      sample_id = rep(seq_len(n), each = 2L), depth = rep(1:2, n),
      location_id = as.vector(rbind(fun + 1L, rep(1L, n)))
    ),
    locations = tibble::tibble(
      location_id = seq_len(nrow(counts) + 1L), function_id = seq_len(nrow(counts) + 1L), line = 0L
    ),
    functions = tibble::tibble(
      function_id = seq_len(nrow(counts) + 1L), name = c("main", names),
      system_name = c("main", names), filename = "", start_line = 0L
    )
  )
}

row_of <- function(cmp, name) cmp[cmp$name == name, , drop = FALSE]

format_header <- function(x) utils::capture.output(print(x))
