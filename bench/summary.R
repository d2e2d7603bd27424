# Benchmark: the summary family on a large profile (issue 9). profile_summary() by function
# and by location, the flame graph (drawn to a null PDF device), write_folded()
# and read_folded() on a v2 profile of 300,000 samples.
#
# Usage, from the package root after installing into .rlib:
#   R_LIBS=.rlib Rscript bench/summary.R [n_samples]
#
# Two profiles: inst/samples/rprof/line.out (a real Rprof file: stacks of 5 to 80
# frames, recursion, line references) with its samples repeated until there are
# n_samples of them; and a synthetic one with many more distinct stacks (random
# paths through a call tree of 50,000 nodes over 2,000 functions, 40 levels deep).
# Results are recorded in bench/README.md.

library(profile)

args <- commandArgs(trailingOnly = TRUE)
n_samples <- if (length(args)) as.integer(args[[1]]) else 300000L

# `x` with its samples repeated `copies` times (new sample ids, same locations).
repeat_samples <- function(x, copies) {
  t <- dm::dm_get_tables(x, keyed = FALSE)
  ids <- t$samples$sample_id
  n <- length(ids)
  repeat_rows <- function(df) {
    original <- match(df$sample_id, ids)
    out <- df[rep(seq_len(nrow(df)), copies), , drop = FALSE]
    out$sample_id <- rep(original, copies) + rep((seq_len(copies) - 1L) * n, each = nrow(df))
    out
  }
  t$samples <- tibble::tibble(sample_id = seq_len(n * copies), source_id = rep(t$samples$source_id, copies))
  for (name in setdiff(names(t), c("samples", "sources"))) {
    if ("sample_id" %in% names(t[[name]])) t[[name]] <- repeat_rows(t[[name]])
  }
  do.call(new_profile_v2, t)
}

# Random paths of a random call tree, `levels` deep with `width` nodes per level.
synthetic_profile <- function(n, n_functions = 2000L, levels = 40L, width = 1250L) {
  set.seed(42)
  n_nodes <- levels * width
  level <- rep(seq_len(levels), each = width)
  parent <- ifelse(level == 1L, 0L, (level - 2L) * width + sample.int(width, n_nodes, replace = TRUE))
  fun <- sample.int(n_functions, n_nodes, replace = TRUE)
  # path[[node]]: its functions' locations from the node (innermost) to the root
  path <- vector("list", n_nodes)
  for (i in seq_len(n_nodes)) path[[i]] <- c(fun[[i]], if (parent[[i]]) path[[parent[[i]]]])
  picked <- sample.int(n_nodes, n, replace = TRUE)
  depth_count <- level[picked]
  names <- sprintf("fun_%04d", seq_len(n_functions))
  new_profile_v2(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(source_id = 1L, source_type = "manual", source_uri = "synthetic", source_timestamp = NA_real_),
    samples = tibble::tibble(sample_id = seq_len(n), source_id = 1L),
    sample_values = tibble::tibble(sample_id = seq_len(n), type = "samples", unit = "count", value = 1),
    sample_locations = tibble::tibble(
      sample_id = rep(seq_len(n), depth_count),
      depth = sequence(depth_count),
      location_id = unlist(path[picked], use.names = FALSE)
    ),
    locations = tibble::tibble(location_id = seq_len(n_functions), function_id = seq_len(n_functions), line = 0L),
    functions = tibble::tibble(
      function_id = seq_len(n_functions), name = names, system_name = names,
      filename = sprintf("file_%02d.R", seq_len(n_functions) %% 50L), start_line = 0L
    )
  )
}

base <- read_rprof(system.file("samples/rprof/line.out", package = "profile"))
big <- repeat_samples(base, ceiling(n_samples / nrow(dm::dm_get_tables(base)$samples)))
run_benchmarks <- function(big, label) {
  t <- dm::dm_get_tables(big)
  cat(sprintf(
    "\n%s: %s samples, %s stack rows, %s locations, %s functions\n", label,
    format(nrow(t$samples), big.mark = ","), format(nrow(t$sample_locations), big.mark = ","),
    nrow(t$locations), nrow(t$functions)
  ))
  folded <- tempfile(fileext = ".folded")
  write_folded(big, folded)
  cat(sprintf("folded file of the profile: %s lines\n", format(length(readLines(folded)), big.mark = ",")))
  # read_folded() makes one sample per line: a file with one line per sample.
  folded_lines <- tempfile(fileext = ".folded")
  writeLines(rep_len(readLines(folded), nrow(t$samples)), folded_lines)

  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  res <- bench::mark(
    summary_function = profile_summary(big),
    summary_location = profile_summary(big, by = "location"),
    flamegraph = profile_flamegraph(big),
    write_folded = write_folded(big, folded),
    read_folded = read_folded(folded_lines),
    iterations = 5, check = FALSE, memory = TRUE, filter_gc = FALSE
  )
  print(res[c("expression", "min", "median", "mem_alloc")])
}

run_benchmarks(big, "line.out repeated")
run_benchmarks(synthetic_profile(n_samples), "synthetic")
