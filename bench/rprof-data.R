# Makes the Rprof files the reading benchmark uses (not shipped, not committed):
#
#   bench/data/rprof-30k.out   a real profile of 30 000+ samples, recorded here
#                              with Rprof(line.profiling = TRUE, memory.profiling = TRUE) while the
#                              workloads of data-raw/rprof-workloads run for
#                              130 s of CPU time (R samples at most every 4 ms);
#   bench/data/rprof-300k.out  the same header and #File lines, with the stack
#                              lines repeated ten times (300 000+ samples).
#
# Run from the package root:  Rscript bench/rprof-data.R
# The recording is skipped when bench/data/rprof-30k.out exists.

out_dir <- file.path("bench", "data")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
small <- file.path(out_dir, "rprof-30k.out")
large <- file.path(out_dir, "rprof-300k.out")

if (!file.exists(small)) {
  for (f in sort(list.files("data-raw/rprof-workloads", pattern = "[.]R$", full.names = TRUE))) {
    source(f, keep.source = TRUE)
  }
  set.seed(1)
  tmp <- paste0(small, ".tmp")
  Rprof(tmp, interval = 0.004, line.profiling = TRUE, memory.profiling = TRUE)
  keep_going <- budget(130)
  while (keep_going()) {
    time_round()
    memory_round()
  }
  Rprof(NULL)
  file.rename(tmp, small)
}

lines <- readLines(small)
is_stack <- !grepl("^#File ", lines) & !grepl("sample\\.interval=", lines)
# #File lines must come before first use: keep the original file first, then
# nine more copies of its stack lines.
writeLines(c(lines, rep(lines[is_stack], 9L)), large)
cat(sprintf("%s: %d samples, %.1f MB\n", small, sum(is_stack), file.size(small) / 2^20))
cat(sprintf("%s: %d samples, %.1f MB\n", large, 10L * sum(is_stack), file.size(large) / 2^20))
