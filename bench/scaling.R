# Benchmark: how time and memory grow with the number of samples, from 1e3 to
# 1e6 Rprof samples. Not a test; results go into bench/README.md.
#
# Run from the package root after `Rscript bench/rprof-data.R` (or bench/run.sh):
#
#   R_LIBS=.rlib Rscript bench/scaling.R
#
# Inputs: bench/data/rprof-scale-N.out, made here from bench/data/rprof-30k.out
# (a real recording with memory and line profiling): its header and #File lines,
# then its stack lines repeated or cut to N lines.
#
# Timed with bench::mark() (medians; at least 11 runs and 1 s per operation, so
# that at 1e6 the first runs in a fresh process, which also pay for R's heap
# and the kernel's first pages, do not set the median):
# read_rprof(), validate_profile(), write_rprof(), write_pprof(),
# read_pprof() of the file write_pprof() wrote, profile_summary(), and as the
# floor of a read, readBin() of the file's bytes into a raw vector (the least
# a read of the file can cost: its bytes into fresh memory). Memory:
# - obj_size: lobstr::obj_size() of the v2 object (shared strings and
#   ALTREP compact sequences counted once, as R holds them);
# - per_row: obj_size / rows of sample_locations;
# - r_alloc: what R allocated during read_rprof() (bench's mem_alloc; Rust's own
#   allocations are not in it);
# - peak: the growth of the process's peak resident set (VmHWM) during one
#   read_rprof() in a fresh R process, which counts Rust's allocations too
#   (median of 3 processes: it moves by a few pages).

suppressPackageStartupMessages(library(profile))

sizes <- c(1e3, 1e4, 1e5, 1e6)
source(file.path("bench", "scale-inputs.R"))
files <- scale_inputs(sizes)

# Peak memory of one read in a fresh process: VmHWM after minus VmRSS before.
peak_of_read <- function(path) {
  script <- tempfile(fileext = ".R")
  writeLines(c(
    "kb <- function(field) { s <- readLines('/proc/self/status'); as.numeric(gsub('[^0-9]', '', s[startsWith(s, field)])) }",
    "suppressPackageStartupMessages(library(profile))",
    "invisible(read_rprof(system.file('samples/rprof/1.out', package = 'profile')))",
    "invisible(gc())",
    "before <- kb('VmRSS:')",
    "x <- read_rprof(commandArgs(TRUE)[[1]])",
    "cat(kb('VmHWM:') - before, '\\n')"
  ), script)
  peaks <- vapply(1:3, function(i) {
    out <- system2(file.path(R.home("bin"), "Rscript"), c(script, shQuote(path)), stdout = TRUE)
    as.numeric(out[[length(out)]]) * 1024
  }, numeric(1))
  stats::median(peaks)
}

med <- function(expr) {
  m <- bench::mark(
    exprs = list(substitute(expr)), env = parent.frame(), min_time = 1,
    min_iterations = 11, max_iterations = 50, check = FALSE, filter_gc = FALSE
  )
  list(time = as.numeric(m$median), alloc = as.numeric(m$mem_alloc))
}

rows <- list()
for (i in seq_along(sizes)) {
  f <- files[[i]]
  x <- read_rprof(f)
  n_rows <- nrow(dm::pull_tbl(x, sample_locations))
  rprof_out <- tempfile(fileext = ".out")
  pprof_out <- tempfile(fileext = ".pb.gz")
  write_pprof(x, pprof_out)
  read <- med(read_rprof(f))
  rows[[i]] <- data.frame(
    samples = sizes[[i]],
    loc_rows = n_rows,
    read_rprof_ms = read$time * 1e3,
    floor_readBin_ms = med(readBin(f, "raw", file.size(f)))$time * 1e3,
    validate_ms = med(validate_profile(x))$time * 1e3,
    write_rprof_ms = med(write_rprof(x, rprof_out))$time * 1e3,
    write_pprof_ms = med(write_pprof(x, pprof_out))$time * 1e3,
    read_pprof_ms = med(read_pprof(pprof_out))$time * 1e3,
    summary_ms = med(profile_summary(x))$time * 1e3,
    obj_MB = as.numeric(lobstr::obj_size(x)) / 2^20,
    per_row = as.numeric(lobstr::obj_size(x)) / n_rows,
    r_alloc_MB = read$alloc / 2^20,
    peak_MB = peak_of_read(f) / 2^20
  )
  unlink(c(rprof_out, pprof_out))
}
res <- do.call(rbind, rows)
cat(sprintf(
  "%s, R %s, %s, %d cores, load average %s\n", format(Sys.time(), "%Y-%m-%d %H:%M"),
  getRversion(), utils::sessionInfo()$running, parallel::detectCores(),
  paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")
))
print(format(res, digits = 3, big.mark = ","), row.names = FALSE)
# Growth factor per tenfold increase of samples (linear = 10).
times <- c(
  "read_rprof_ms", "floor_readBin_ms", "validate_ms", "write_rprof_ms", "write_pprof_ms",
  "read_pprof_ms", "summary_ms"
)
growth <- sapply(times, function(col) round(res[[col]][-1] / res[[col]][-nrow(res)], 1))
rownames(growth) <- sprintf("%g -> %g", sizes[-length(sizes)], sizes[-1])
cat("\nT(10N) / T(N):\n")
print(growth)
cat(sprintf("\npeak / obj_size: %s\n", paste(round(res$peak_MB / res$obj_MB, 2), collapse = ", ")))
