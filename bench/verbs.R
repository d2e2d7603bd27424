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
# the frames (hide), or keep a few functions (show), as a user would.
# Each size runs in its own R process, every operation timed by bench::mark()
# (median of at least 15 runs, the verb and validate_profile() interleaved in
# the same minutes).

source(file.path("bench", "scale-inputs.R"))
files <- scale_inputs(c(1e5, 1e6))

child <- tempfile(fileext = ".R")
writeLines(c(
  "suppressPackageStartupMessages(library(profile))",
  "x <- read_rprof(commandArgs(TRUE)[[1]])",
  "invisible(validate_profile(x))",
  "verbs <- list(",
  "  focus = function() profile_focus(x, '^time_round$'),",
  "  ignore = function() profile_ignore(x, '^time_round$'),",
  "  hide = function() profile_hide(x, '^(FUN|lapply)$'),",
  "  show = function() profile_show(x, '^(time_round|memory_round|spin|fib)$')",
  ")",
  "m <- bench::mark(",
  "  validate = validate_profile(x),",
  "  focus = verbs$focus(), ignore = verbs$ignore(), hide = verbs$hide(), show = verbs$show(),",
  "  min_iterations = 15, check = FALSE, filter_gc = FALSE)",
  "ms <- as.numeric(m$median) * 1000",
  "input_mb <- as.numeric(lobstr::obj_size(x)) / 1e6",
  "result_mb <- c(input_mb, vapply(verbs, function(v) as.numeric(lobstr::obj_size(v())) / 1e6, 1))",
  "samples <- c(nrow(x$samples), vapply(verbs, function(v) nrow(v()$samples), 1L))",
  "cat(sprintf('%s %.2f %.2f %d\\n', as.character(m$expression), ms, result_mb, samples), sep = '')"
), child)

run <- function(file) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c(child, shQuote(file)), stdout = TRUE)
  parts <- strsplit(out, " ")
  data.frame(
    operation = vapply(parts, `[[`, "", 1),
    ms = as.numeric(vapply(parts, `[[`, "", 2)),
    mb = as.numeric(vapply(parts, `[[`, "", 3)),
    samples = as.numeric(vapply(parts, `[[`, "", 4))
  )
}

cat(sprintf("%s, R %s, %d cores, load average %s\n", format(Sys.time(), "%Y-%m-%d %H:%M"),
  getRversion(), parallel::detectCores(),
  paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")))
small <- run(files[[1]])
large <- run(files[[2]])
cat("load average after:", paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " "), "\n\n")
ratio <- function(res) round(res$ms / res$ms[res$operation == "validate"], 2)
table <- data.frame(
  operation = large$operation,
  ms_1e5 = small$ms,
  ratio_1e5 = ratio(small),
  ms_1e6 = large$ms,
  ratio_1e6 = ratio(large),
  growth = round(large$ms / small$ms, 1),
  samples_kept_1e6 = large$samples,
  result_mb_1e6 = large$mb,
  result_vs_input = round(large$mb / large$mb[large$operation == "validate"], 2)
)
print(table, row.names = FALSE)
