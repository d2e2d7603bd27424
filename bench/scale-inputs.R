# The inputs of bench/scaling.R and bench/linearity.R: Rprof files of N samples
# made from bench/data/rprof-30k.out (a real recording with memory and line
# profiling; bench/rprof-data.R): its header and #File lines, then its stack
# lines repeated or cut to N lines. Sourced by both scripts; bench/run.sh runs
# it once before them.

scale_inputs <- function(sizes = c(1e3, 1e4, 1e5, 1e6)) {
  src <- file.path("bench", "data", "rprof-30k.out")
  if (!file.exists(src)) stop("run `Rscript bench/rprof-data.R` first")
  files <- file.path("bench", "data", sprintf("rprof-scale-%d.out", as.integer(sizes)))
  missing <- !file.exists(files)
  if (any(missing)) {
    lines <- readLines(src)
    is_stack <- !grepl("^#File |sample\\.interval=", lines)
    for (i in which(missing)) {
      writeLines(c(lines[!is_stack], rep_len(lines[is_stack], sizes[[i]])), files[[i]])
    }
  }
  files
}

if (sys.nframe() == 0L) invisible(scale_inputs())
