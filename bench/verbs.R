# Benchmark: the verbs of R/verbs.R on the Rprof files of 1e5 and 1e6 samples
# (bench/scale-inputs.R: the real recording with memory and line profiling,
# repeated), as a ratio to validate_profile() on the same object (target: at
# most 2), their growth from 1e5 to 1e6 samples, and the size of the result
# against the input (lobstr::obj_size()). Not a test; results go into
# bench/README.md.
#
#   R_LIBS=.rlib Rscript bench/verbs.R
#
# The patterns keep about half the samples (focus, ignore) or drop a tenth of
# the frames (hide), or keep a few functions (show), as a user would;
# show_from and prune_from cut the stacks at lapply; Rprof files have no
# labels, so filter_labels measures the pass over the samples that keeps them
# all; select_types keeps two of the six types of a memory profile. scale
# doubles every value; aggregate merges the samples of equal stacks; window
# keeps the middle half of the run; diff subtracts the first half of the run
# (its time includes that window: the result has 1.5 times the samples).
# `half_time` is the median sample time of the profile being measured.
# Both sizes run in this process, the 1e5 file first. The machine is shared,
# and its load changes within a minute, so the operations are timed in turns
# (validate_profile(), then each verb, 15 rounds) and a verb's ratio is the
# median of its ratios to validate_profile() in the same round.

suppressPackageStartupMessages(library(profile))
source(file.path("bench", "scale-inputs.R"))
files <- scale_inputs(c(1e5, 1e6))
half_time <- NA_real_

verbs <- list(
  focus = function(x) profile_focus(x, "^time_round$"),
  ignore = function(x) profile_ignore(x, "^time_round$"),
  hide = function(x) profile_hide(x, "^(FUN|lapply)$"),
  show = function(x) profile_show(x, "^(time_round|memory_round|spin|fib)$"),
  show_from = function(x) profile_show_from(x, "^lapply$"),
  prune_from = function(x) profile_prune_from(x, "^lapply$"),
  filter_labels = function(x) {
    suppressWarnings(profile_filter_labels(x, ignore = "source=nothing"), classes = "profile_warning_no_match")
  },
  select_types = function(x) profile_select_types(x, c("samples", "alloc_size")),
  scale = function(x) profile_scale(x, 2),
  aggregate = function(x) profile_aggregate(x),
  # a difference of the profile and its first half (1.5 times the samples)
  diff = function(x) profile_diff(x, profile_window(x, to = half_time)),
  window = function(x) profile_window(x, from = half_time / 2, to = half_time * 1.5)
)

# Median time (ms), median ratio to validate_profile() in the same round,
# size of the result (MB) and samples kept, per operation, for the profile of
# `file` (validate_profile(): the input's size and samples).
measure <- function(file, rounds = 15) {
  x <- read_rprof(file)
  half_time <<- stats::median(x$samples$time)
  ops <- c(list(validate = function(x) invisible(validate_profile(x))), verbs)
  for (op in ops) op(x) # once, so that no round pays for a first use
  times <- matrix(NA_real_, rounds, length(ops), dimnames = list(NULL, names(ops)))
  for (round in seq_len(rounds)) {
    for (op in names(ops)) {
      start <- bench::hires_time()
      ops[[op]](x)
      times[round, op] <- bench::hires_time() - start
    }
  }
  results <- lapply(ops, function(op) if (identical(op, ops$validate)) x else op(x))
  data.frame(
    operation = names(ops),
    ms = apply(times, 2, stats::median) * 1000,
    ratio = apply(times / times[, "validate"], 2, stats::median),
    mb = vapply(results, function(r) as.numeric(lobstr::obj_size(r)) / 1e6, 1),
    samples = vapply(results, function(r) nrow(r$samples), 1L)
  )
}

load_average <- function() paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")
cat(sprintf(
  "%s, R %s, %d cores, load average %s\n", format(Sys.time(), "%Y-%m-%d %H:%M"),
  getRversion(), parallel::detectCores(), load_average()
))
small <- measure(files[[1]])
large <- measure(files[[2]])
cat("load average after:", load_average(), "\n\n")
table <- data.frame(
  operation = large$operation,
  ms_1e5 = round(small$ms, 2),
  ratio_1e5 = round(small$ratio, 2),
  ms_1e6 = round(large$ms, 2),
  ratio_1e6 = round(large$ratio, 2),
  growth = round(large$ms / small$ms, 1),
  samples_kept_1e6 = large$samples,
  result_mb_1e6 = round(large$mb, 2),
  result_vs_input = round(large$mb / large$mb[large$operation == "validate"], 2)
)
print(table, row.names = FALSE)
