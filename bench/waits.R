# The cost of profile_record()'s watch of the main process's waits (issue
# 33, src/rust/src/waits.rs: a thread that reads the process's CPU time, the
# wall clock and Linux's schedstat every 5 ms while the recording runs): the
# CPU time (user + system, all threads) of profile_record() of a
# single-process workload of about SECONDS of CPU, by a build without the
# watch and one with it, each in R processes of its own, in turns (without,
# with, without, ...), `reps` recordings per process, medians per process,
# the ratio with / without per round. The watch thread's own CPU time, read
# from /proc/self/task/*/schedstat inside the recorded code, is printed too:
# what the watch costs, without the scatter of the workload (in brackets:
# the first build's, NA when it has no watch; two builds of the watch
# compare so). From the
# package root:
#
#   R CMD INSTALL -l /tmp/lib-main <main> ; R CMD INSTALL -l .rlib .
#   Rscript bench/waits.R /tmp/lib-main .rlib [rounds] [seconds]
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: Rscript bench/waits.R LIB_WITHOUT LIB_WITH [rounds] [seconds]")
libs <- c(without = args[[1]], with = args[[2]])
rounds <- if (length(args) > 2) as.integer(args[[3]]) else 6L
seconds <- if (length(args) > 3) as.numeric(args[[4]]) else 2
reps <- 3L

spin <- function(n) {
  total <- 0
  for (i in seq_len(n)) total <- total + sqrt(i)
  total
}
# the same loop for both builds: its size for `seconds` here, measured once
# (the second run: the first compiles `spin`)
invisible(spin(1e5))
steps <- round(1e6 * seconds / max(system.time(spin(1e6))[["user.self"]], 1e-3))

child <- tempfile(fileext = ".R")
writeLines(c(
  "args <- commandArgs(TRUE)",
  "suppressPackageStartupMessages(library(profile, lib.loc = args[[1]]))",
  "steps <- as.numeric(args[[2]]); reps <- as.integer(args[[3]])",
  "spin <- function(n) { total <- 0; for (i in seq_len(n)) total <- total + sqrt(i); total }",
  "# the watch thread's time on a CPU (seconds; NA: none runs)",
  "watch_cpu <- function() {",
  "  for (dir in list.files('/proc/self/task', full.names = TRUE)) {",
  "    name <- tryCatch(readLines(file.path(dir, 'comm'), warn = FALSE), error = function(e) '')",
  "    stat <- file.path(dir, 'schedstat')",
  "    if (identical(name, 'profile-waits')) return(scan(stat, quiet = TRUE)[[1]] / 1e9)",
  "  }",
  "  NA_real_",
  "}",
  "invisible(profile_record(spin(steps / 10), memory = FALSE))",
  "t <- replicate(reps, {",
  "  gc()",
  "  clock <- proc.time()",
  "  x <- profile_record({ spin(steps); w <<- watch_cpu() }, memory = FALSE)",
  "  used <- proc.time() - clock",
  "  c(used[['elapsed']], used[['user.self']] + used[['sys.self']], w)",
  "})",
  "cat(median(t[1, ]), median(t[2, ]), median(t[3, ]), sep = '\\t')",
  "cat('\\n')"
), child)

load <- function() paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")
cat(sprintf(
  "workload: profile_record(spin(%s)), one process, about %.1f s of CPU\n",
  format(steps, big.mark = ",", scientific = FALSE), seconds
))
cat(sprintf("%d rounds, %d recordings per process\n", rounds, reps))
cat(sprintf("without the watch: %s\nwith the watch:    %s\n", libs[["without"]], libs[["with"]]))
cat(sprintf("load average before: %s\n", load()))
times <- array(NA_real_, c(rounds, 2, 3), list(NULL, names(libs), c("elapsed", "cpu", "watch")))
for (r in seq_len(rounds)) {
  for (b in names(libs)) {
    rscript <- file.path(R.home("bin"), "Rscript")
    child_args <- c("--vanilla", child, shQuote(libs[[b]]), format(steps, scientific = FALSE), reps)
    out <- system2(rscript, child_args, stdout = TRUE)
    # (the last line: elapsed, CPU, the watch's CPU or NA)
    fields <- strsplit(out[[length(out)]], "\t", fixed = TRUE)[[1]]
    times[r, b, ] <- suppressWarnings(as.numeric(fields))
  }
  cat(sprintf(
    "round %d (load %s): CPU without %.3f s, with %.3f s (%.3f); the watch's CPU %.4f s (%.4f s)\n",
    r, load(), times[r, "without", "cpu"], times[r, "with", "cpu"],
    times[r, "with", "cpu"] / times[r, "without", "cpu"], times[r, "with", "watch"],
    times[r, "without", "watch"]
  ))
}
ratio <- times[, "with", "cpu"] / times[, "without", "cpu"]
cat(sprintf("load average after: %s\n", load()))
cat(sprintf(
  "CPU time with / without the watch: median ratio %.3f (geometric mean %.3f, range %.3f-%.3f)\n",
  stats::median(ratio), exp(mean(log(ratio))), min(ratio), max(ratio)
))
cat(sprintf(
  "elapsed with / without: median ratio %.3f\n",
  stats::median(times[, "with", "elapsed"] / times[, "without", "elapsed"])
))
share <- times[, "with", "watch"] / times[, "with", "cpu"]
cat(sprintf(
  "the watch thread's CPU time: median %.4f s a recording, %.2f %% of its CPU (%.2f-%.2f %%)\n",
  stats::median(times[, "with", "watch"]), 100 * stats::median(share),
  100 * min(share), 100 * max(share)
))
