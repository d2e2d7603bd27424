# Benchmark: the verbs of R/verbs.R on the Rprof files of 1e5 and 1e6 samples
# (bench/scale-inputs.R: the real recording with memory and line profiling,
# repeated), as a ratio to validate_profile() on the same object (target: at
# most 2; for profile_diff(x, base), at most 2 times validating x and base),
# their growth from 1e5 to 1e6 samples, and the size of the result against the
# input (lobstr::obj_size()). Not a test; results go into bench/README.md.
#
#   R_LIBS=.rlib Rscript bench/verbs.R              # the package R finds
#   Rscript bench/verbs.R LIB_BEFORE LIB_AFTER      # two builds, in one run
#
# With libraries, each build runs in R processes of its own, in turns (before,
# after, before, ...: `turns` of `rounds` rounds each), and there is a table per
# build: before/after in one run, at the same load.
#
# The patterns keep about half the samples (focus, ignore) or drop a tenth of
# the frames (hide), or keep a few functions (show), as a user would;
# show_from and prune_from cut the stacks at lapply; Rprof files have no
# labels, so filter_labels measures the pass over the samples that keeps them
# all; select_types keeps two of the six types of a memory profile. scale
# doubles every value; aggregate merges the samples of equal stacks; window
# keeps the middle half of the run; diff subtracts the first half of the run,
# `base` (made by profile_window() before the timing, which measures
# profile_diff(x, base) alone; the result has 1.5 times the samples), and its
# ratio is to validating x plus validating base in the same round
# (`validate_base` in the table). `half_time` is the median sample time of the
# profile being measured. The machine is shared, and its load changes within a
# minute, so the operations are timed in turns (validation of x and of the
# base, then each verb) and a verb's ratio is the median of its ratios to
# validation in the same round.

args <- commandArgs(trailingOnly = TRUE)
half_time <- NA_real_
base <- NULL

verbs <- list(
  focus = function(x) profile_focus(x, "^time_round$"),
  ignore = function(x) profile_ignore(x, "^time_round$"),
  hide = function(x) profile_hide(x, "^(FUN|lapply)$"),
  show = function(x) profile_show(x, "^(time_round|memory_round|spin|fib)$"),
  show_from = function(x) profile_show_from(x, "^lapply$"),
  prune_from = function(x) profile_prune_from(x, "^lapply$"),
  filter_labels = function(x) {
    suppressWarnings(
      profile_filter_labels(x, ignore = "source=nothing"),
      classes = "profile_warning_no_match"
    )
  },
  select_types = function(x) profile_select_types(x, c("samples", "alloc_size")),
  scale = function(x) profile_scale(x, 2),
  aggregate = function(x) profile_aggregate(x),
  # x minus its first half (1.5 times the samples); the base is made beforehand
  diff = function(x) profile_diff(x, base),
  window = function(x) profile_window(x, from = half_time / 2, to = half_time * 1.5)
)

# The time (s) of each operation in each of `rounds` rounds, the size of its
# result (MB) and the samples kept, for the profile of `file`
# (validate_profile(): the input's size and samples).
measure <- function(file, rounds) {
  x <- read_rprof(file)
  half_time <<- stats::median(x$samples$time)
  base <<- profile_window(x, to = half_time)
  ops <- c(
    list(
      validate = function(x) invisible(validate_profile(x)),
      validate_base = function(x) invisible(validate_profile(base))
    ),
    verbs
  )
  for (op in ops) op(x) # once, so that no round pays for a first use
  times <- matrix(NA_real_, rounds, length(ops), dimnames = list(NULL, names(ops)))
  for (round in seq_len(rounds)) {
    for (op in names(ops)) {
      start <- bench::hires_time()
      ops[[op]](x)
      times[round, op] <- bench::hires_time() - start
    }
  }
  results <- lapply(names(ops), function(op) if (op == "validate") x else ops[[op]](x))
  list(
    times = times,
    mb = vapply(results, function(r) as.numeric(lobstr::obj_size(r)) / 1e6, 1),
    samples = vapply(results, function(r) nrow(r$samples), 1L)
  )
}

# Median time (ms) and median ratio per operation over the rounds of `times`:
# a verb's to validate, diff's to validate + validate_base.
summarise_times <- function(times) {
  against <- matrix(times[, "validate"], nrow(times), ncol(times))
  against[, colnames(times) == "diff"] <- times[, "validate"] + times[, "validate_base"]
  list(ms = apply(times, 2, stats::median) * 1000, ratio = apply(times / against, 2, stats::median))
}

load_average <- function() {
  paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")
}

if (length(args) && args[[1]] == "--child") {
  # One turn of a run over several builds: its rounds, saved for the parent.
  suppressPackageStartupMessages(library(profile, lib.loc = args[[2]]))
  files <- strsplit(args[[4]], ",", fixed = TRUE)[[1]]
  saveRDS(lapply(files, measure, rounds = as.integer(args[[5]])), args[[3]])
  quit(save = "no")
}

source(file.path("bench", "scale-inputs.R"))
files <- scale_inputs(c(1e5, 1e6))
cat(sprintf(
  "%s, R %s, %d cores, load average %s\n", format(Sys.time(), "%Y-%m-%d %H:%M"),
  getRversion(), parallel::detectCores(), load_average()
))

# The rounds of each build: one process per turn, builds taking turns.
run_builds <- function(libs, turns = 3L, rounds = 5L) {
  runs <- lapply(libs, function(lib) NULL)
  for (turn in seq_len(turns)) {
    for (b in names(libs)) {
      out <- tempfile(fileext = ".rds")
      status <- system2(file.path(R.home("bin"), "Rscript"), c(
        "--vanilla", file.path("bench", "verbs.R"), "--child", shQuote(libs[[b]]), shQuote(out),
        shQuote(paste(normalizePath(files), collapse = ",")), rounds
      ))
      if (!identical(status, 0L) || !file.exists(out)) stop("the run of ", b, " failed")
      turn_result <- readRDS(out)
      runs[[b]] <- if (is.null(runs[[b]])) {
        turn_result
      } else {
        Map(function(a, r) {
          a$times <- rbind(a$times, r$times)
          a
        }, runs[[b]], turn_result)
      }
    }
  }
  runs
}

runs <- if (length(args)) {
  libs <- normalizePath(args)
  names(libs) <- c("before", "after", paste0("build", seq_along(args)))[seq_along(args)]
  run_builds(libs)
} else {
  suppressPackageStartupMessages(library(profile))
  list(installed = lapply(files, measure, rounds = 15))
}
cat("load average after:", load_average(), "\n\n")

for (b in names(runs)) {
  small <- summarise_times(runs[[b]][[1]]$times)
  large <- summarise_times(runs[[b]][[2]]$times)
  input_mb <- runs[[b]][[2]]$mb[[1]]
  table <- data.frame(
    operation = names(large$ms),
    ms_1e5 = round(small$ms, 2),
    ratio_1e5 = round(small$ratio, 2),
    ms_1e6 = round(large$ms, 2),
    ratio_1e6 = round(large$ratio, 2),
    growth = round(large$ms / small$ms, 1),
    samples_kept_1e6 = runs[[b]][[2]]$samples,
    result_mb_1e6 = round(runs[[b]][[2]]$mb, 2),
    result_vs_input = round(runs[[b]][[2]]$mb / input_mb, 2)
  )
  cat(sprintf("== %s (%d rounds)\n", b, nrow(runs[[b]][[2]]$times)))
  print(table, row.names = FALSE)
  cat("\n")
}
