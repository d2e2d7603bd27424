# Records the real Rprof profiles of bench/db.R's data sets (not shipped, not
# committed): one recording per workload of data-raw/bench/workloads.R, with
# Rprof(memory.profiling = TRUE, line.profiling = TRUE) at a 1 ms interval,
# for CPU_SECONDS of CPU time each, into bench/data/db-<workload>.out.
#
#   Rscript data-raw/bench/record.R [CPU_SECONDS [WORKLOAD ...]]   # 12 s, all
#
# Run from the package root. A recording that exists is kept.

args <- commandArgs(trailingOnly = TRUE)
seconds <- if (length(args)) as.numeric(args[[1L]]) else 12
for (f in sort(list.files("data-raw/rprof-workloads", pattern = "[.]R$", full.names = TRUE))) {
  source(f, keep.source = TRUE)
}
source("data-raw/bench/workloads.R", keep.source = TRUE)
chosen <- if (length(args) > 1L) args[-1L] else names(workloads)
dir.create(file.path("bench", "data"), showWarnings = FALSE, recursive = TRUE)
for (name in chosen) {
  out <- file.path("bench", "data", sprintf("db-%s.out", name))
  if (file.exists(out)) next
  set.seed(1)
  tmp <- paste0(out, ".tmp")
  work <- workloads[[name]]
  Rprof(tmp, interval = 0.001, line.profiling = TRUE, memory.profiling = TRUE)
  keep_going <- budget(seconds)
  while (keep_going()) work()
  Rprof(NULL)
  file.rename(tmp, out)
  lines <- readLines(out)
  cat(sprintf("%s: %d samples\n", out, sum(!grepl("^#File |sample\\.interval=", lines))))
}
