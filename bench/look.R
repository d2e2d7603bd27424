# Benchmark: looking at a large profile (issue 9). profile_summary() by function
# and by location, the flame graph (drawn to a null PDF device), write_folded()
# and read_folded() on a v2 profile of 300,000 samples.
#
# Usage, from the package root after installing into .rlib:
#   R_LIBS=.rlib Rscript bench/look.R [n_samples]
#
# The profile is inst/samples/rprof/line.out (stacks of 5 to 80 frames, recursion,
# line references) with its samples repeated until there are n_samples of them;
# results are recorded in bench/README.md.

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

base <- read_rprof(system.file("samples/rprof/line.out", package = "profile"))
big <- repeat_samples(base, ceiling(n_samples / nrow(dm::dm_get_tables(base)$samples)))
t <- dm::dm_get_tables(big)
cat(sprintf(
  "profile: %s samples, %s stack rows, %s locations, %s functions\n",
  format(nrow(t$samples), big.mark = ","), format(nrow(t$sample_locations), big.mark = ","),
  nrow(t$locations), nrow(t$functions)
))

folded <- tempfile(fileext = ".folded")
write_folded(big, folded)
cat(sprintf("folded file of the profile: %d lines\n", length(readLines(folded))))
# read_folded() makes one sample per line: a file with one line per sample.
folded_lines <- tempfile(fileext = ".folded")
writeLines(rep_len(readLines(folded), n_samples), folded_lines)

grDevices::pdf(NULL)
res <- bench::mark(
  summary_function = profile_summary(big),
  summary_location = profile_summary(big, by = "location"),
  flamegraph = profile_flamegraph(big),
  write_folded = write_folded(big, folded),
  read_folded = read_folded(folded_lines),
  iterations = 5, check = FALSE, memory = TRUE
)
grDevices::dev.off()
print(res[c("expression", "min", "median", "mem_alloc")])
