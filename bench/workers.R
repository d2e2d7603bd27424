# Benchmark of profile_record() of parallel code (issue 33): the wall time of
# a parallel workload (a PSOCK cluster of 2 workers started inside the code,
# about SECONDS of CPU each) with and without profile_record(interval = 0.01),
# alternated so that both see the same load; and the time to assemble the
# combined profile (one source per process) against reading each process's
# Rprof file alone with read_rprof(). From the package root:
#
#   R CMD INSTALL -l .rlib . &&
#     R_LIBS=.rlib Rscript bench/workers.R [SECONDS] [RUNS] [--no-assembly] [--steps=N]
#
# The floor: the same work (2 x SECONDS of CPU) in this one process, plain
# and under profile_record(interval = 0.01), alternated with the above: what
# R's profiler costs a process that computes, which a worker pays too.
# --no-assembly skips the timing of the assembling (for runs of two builds
# alternated, one Rscript per run: see bench/README.md).

args <- commandArgs(trailingOnly = TRUE)
assembly <- !"--no-assembly" %in% args
# --steps=N: the loop's size given (the same work for two builds run apart)
fixed <- as.numeric(sub("^--steps=", "", grep("^--steps=", args, value = TRUE)))
args <- args[!args %in% "--no-assembly" & !grepl("^--steps=", args)]
seconds <- if (length(args) >= 1L) as.numeric(args[[1]]) else 2
runs <- if (length(args) >= 2L) as.integer(args[[2]]) else 5L

suppressPackageStartupMessages(library(profile))

spin <- function(n) {
  total <- 0
  for (i in seq_len(n)) total <- total + sqrt(i)
  total
}
# the loop's size for `seconds` of CPU here, measured once
steps <- if (length(fixed)) {
  fixed
} else {
  local({
    t <- system.time(spin(1e6))[["user.self"]]
    round(1e6 * seconds / max(t, 1e-3))
  })
}

workload <- function() {
  cl <- parallel::makePSOCKcluster(2)
  on.exit(parallel::stopCluster(cl))
  parallel::clusterExport(cl, "spin", envir = globalenv())
  parallel::clusterApply(cl, c(steps, steps), function(n) spin(n))
}

cat(sprintf(
  "workload: 2 PSOCK workers, %s loop steps each (about %.1f s of CPU); %d runs each\n",
  format(steps, big.mark = ","), seconds, runs
))
cat(sprintf("load average before: %s\n", paste(readLines("/proc/loadavg"), collapse = "")))

modes <- c("plain", "recorded", "one process plain", "one process recorded")
wall <- matrix(NA_real_, runs, 4, dimnames = list(NULL, modes))
for (i in seq_len(runs)) {
  wall[i, "plain"] <- system.time(workload())[["elapsed"]]
  dir <- tempfile("bench-workers-")
  dir.create(dir)
  wall[i, "recorded"] <- system.time(
    x <- profile_record(workload(), interval = 0.01, file = dir)
  )[["elapsed"]]
  unlink(dir, recursive = TRUE)
  wall[i, "one process plain"] <- system.time(spin(2 * steps))[["elapsed"]]
  wall[i, "one process recorded"] <- system.time(
    profile_record(spin(2 * steps), interval = 0.01)
  )[["elapsed"]]
}
cat("wall time of the workload (s):\n")
print(round(wall, 3))
ratio <- median(wall[, "recorded"]) / median(wall[, "plain"])
cat(sprintf(
  "median plain %.3f s, recorded %.3f s: recorded / plain = %.3f\n",
  median(wall[, "plain"]), median(wall[, "recorded"]), ratio
))
cat(sprintf(
  "one process: median plain %.3f s, recorded %.3f s: recorded / plain = %.3f\n",
  median(wall[, "one process plain"]), median(wall[, "one process recorded"]),
  median(wall[, "one process recorded"]) / median(wall[, "one process plain"])
))
if (!assembly) {
  cat(sprintf("load average after: %s\n", paste(readLines("/proc/loadavg"), collapse = "")))
  quit(save = "no")
}
# One more recorded run whose folder is copied, descriptions of the processes
# included, once its workers have ended (profile_record() keeps only the
# Rprof files): the input of the assembling below.
dir <- tempfile("bench-workers-")
snapshot <- tempfile("bench-workers-snapshot-")
dir.create(dir)
x <- profile_record(
  {
    workload()
    Sys.sleep(1)
    dir.create(snapshot)
    file.copy(list.files(dir, full.names = TRUE), snapshot)
  },
  interval = 0.01,
  file = dir
)
file.copy(file.path(dir, "rprof-main.out"), snapshot, overwrite = TRUE)
unlink(dir, recursive = TRUE)
assembled <- list(dir = snapshot, x = x)

# Assembling: what profile_record() does after the code ends (reading every
# process's file, cutting the workers' machinery, combining) against
# read_rprof() of each process's file one by one.
files <- list.files(assembled$dir, pattern = "^rprof-.*[.]out$", full.names = TRUE)
sizes <- file.size(files)
cat(sprintf(
  "kept files: %d (%s lines in all)\n", length(files),
  format(sum(vapply(files, function(f) length(readLines(f)), 1L)), big.mark = ",")
))
reps <- max(runs, 5L)
one_by_one <- median(vapply(seq_len(reps), function(i) {
  system.time(for (f in files) read_rprof(f))[["elapsed"]]
}, numeric(1)))
tables <- dm::dm_get_tables(assembled$x)
cat(sprintf(
  "combined profile: %d sources, %s samples\n", nrow(tables$sources),
  format(nrow(tables$samples), big.mark = ",")
))
# read_workers() is the assembling step of profile_record(), timed on the copy
# of the folder as profile_record() saw it.
assemble <- function() {
  main <- read_rprof(file.path(assembled$dir, "rprof-main.out"))
  state <- new.env(parent = emptyenv())
  state$dir <- assembled$dir
  state$temporary <- FALSE
  profile:::read_workers(main, state)
}
assembling <- median(vapply(seq_len(reps), function(i) {
  system.time(suppressWarnings(assemble()))[["elapsed"]]
}, numeric(1)))
cat(sprintf(
  "read_rprof() of each file: %.3f s; assembling the combined profile: %.3f s (%.2f x)\n",
  one_by_one, assembling, assembling / one_by_one
))
cat(sprintf("load average after: %s\n", paste(readLines("/proc/loadavg"), collapse = "")))
unlink(assembled$dir, recursive = TRUE)
