# Benchmark: read_rprof() against CRAN profile 1.0.4's read_rprof() and against
# readLines() on the same files. Not a test; results go into bench/README.md.
#
# Run from the package root, with this package installed (e.g. into .rlib):
#
#   Rscript bench/rprof-data.R                      # makes bench/data/*.out
#   R_LIBS=.rlib Rscript bench/rprof-read.R
#
# profile 1.0.4 has the same package name, so it runs in a child process from
# its own library ($PROFILE_104_LIB, ~/.cache/profile-1.0.4 or /opt/profile-1.0.4),
# timed there with system.time(); it is slow, so it gets few iterations.

library(profile)

files <- file.path("bench", "data", c("rprof-30k.out", "rprof-300k.out"))
if (!all(file.exists(files))) stop("run `Rscript bench/rprof-data.R` first")

lib104 <- Filter(
  function(lib) file.exists(file.path(lib, "profile", "DESCRIPTION")),
  c(Sys.getenv("PROFILE_104_LIB"), path.expand("~/.cache/profile-1.0.4"), "/opt/profile-1.0.4")
)

# Median elapsed seconds of 1.0.4's read_rprof(path) over `times` runs.
time_104 <- function(path, times) {
  if (!length(lib104)) {
    return(NA_real_)
  }
  script <- tempfile(fileext = ".R")
  writeLines(c(
    "args <- commandArgs(TRUE)",
    "suppressPackageStartupMessages(library(profile, lib.loc = args[[1]]))",
    "t <- replicate(as.integer(args[[3]]), system.time(suppressWarnings(read_rprof(args[[2]])))[['elapsed']])",
    "cat(median(t))"
  ), script)
  out <- system2(file.path(R.home("bin"), "Rscript"),
    c("--vanilla", script, shQuote(lib104[[1]]), shQuote(path), times),
    stdout = TRUE
  )
  as.numeric(out[[length(out)]])
}

# Median elapsed seconds of each expression, timed in turns (v2, v1, readLines,
# v2, ...) so that a busy moment on a shared machine hits all of them alike.
time_in_turns <- function(exprs, iterations, env = parent.frame()) {
  times <- matrix(NA_real_, iterations, length(exprs), dimnames = list(NULL, names(exprs)))
  for (i in seq_len(iterations)) {
    for (e in names(exprs)) {
      times[i, e] <- bench::bench_time(eval(exprs[[e]], env))[["real"]]
    }
  }
  apply(times, 2, median)
}

rows <- list()
for (f in files) {
  n_samples <- sum(!grepl("^#File |sample\\.interval=", readLines(f)))
  iterations <- if (n_samples > 1e5) 10 else 30
  invisible(read_rprof(f)) # load everything once
  med <- time_in_turns(list(
    v2 = quote(read_rprof(f)),
    v1 = quote(read_rprof(f, version = "1.0")),
    readLines = quote(readLines(f))
  ), iterations)
  t104 <- time_104(f, if (n_samples > 1e5) 1 else 3)
  rows[[f]] <- data.frame(
    file = basename(f), samples = n_samples, MB = round(file.size(f) / 2^20, 1),
    v2_ms = round(med[["v2"]] * 1000, 1), v1_ms = round(med[["v1"]] * 1000, 1),
    readLines_ms = round(med[["readLines"]] * 1000, 1), p104_s = round(t104, 2),
    p104_over_v2 = round(t104 / med[["v2"]]), p104_over_v1 = round(t104 / med[["v1"]]),
    readLines_over_v2 = round(med[["readLines"]] / med[["v2"]], 2)
  )
}
res <- do.call(rbind, rows)
rownames(res) <- NULL
cat(sprintf(
  "%s, R %s, %s, %d cores\n", format(Sys.Date()), getRversion(),
  utils::sessionInfo()$running, parallel::detectCores()
))
print(res)
