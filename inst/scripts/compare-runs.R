# Did it get slower? Compares new profiled runs with baseline runs and fails
# (exit status 1) when a function got significantly slower by more than a
# threshold: a step for CI. See vignette("profile-verbs"), "Catching
# regressions in CI".
#
#   Rscript compare-runs.R BASELINE_DIR NEW_DIR [THRESHOLD] [TYPE]
#
# Each directory holds one profile file per run: Rprof files (*.out, as
# profile_record(file =) or write_rprof() leave them) or pprof files
# (*.pb.gz). THRESHOLD is the smallest relative slowdown that fails the job
# (default 0.1: 10 percent); TYPE the sample type (default: the profiles'
# default, time for Rprof files). Exit status: 0 nothing got slower, 1 a
# function got slower, 2 a usage error.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2L) {
  message("usage: Rscript compare-runs.R BASELINE_DIR NEW_DIR [THRESHOLD] [TYPE]")
  quit(status = 2L)
}
threshold <- if (length(args) >= 3L) as.numeric(args[[3]]) else 0.1
type <- if (length(args) >= 4L) args[[4]] else NULL

# One profile of every run in `dir`, each run a source.
read_runs <- function(dir) {
  files <- sort(list.files(dir, pattern = "[.](out|pb[.]gz)$", full.names = TRUE))
  if (length(files) == 0L) {
    message("no profiles (*.out, *.pb.gz) in ", dir)
    quit(status = 2L)
  }
  runs <- lapply(files, function(file) {
    if (grepl("[.]out$", file)) profile::read_rprof(file) else profile::read_pprof(file)
  })
  do.call(profile::combine_profiles, runs)
}

comparison <- profile::profile_compare(
  read_runs(args[[2]]), read_runs(args[[1]]),
  type = type, threshold = threshold
)
print(comparison)
slower <- comparison$name[comparison$change == "increase"]
if (length(slower) > 0L) {
  message("Slower than the baseline: ", paste(slower, collapse = ", "))
  quit(status = 1L)
}
