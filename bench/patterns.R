# Benchmark: a pathological pattern takes linear time (patterns are Go's
# regular expressions, RE2, matched by Rust's regex crate). profile_focus(x,
# "(a+)+$") on profiles whose function names are n `a`s followed by `b`, for n
# = 10 000 ... 160 000: the time per character of the names stays the same as
# n doubles. For comparison, what 2.1 did with the same pattern: PCRE
# (grepl(perl = TRUE)) on one such name, which backtracks exponentially in the
# number of `a`s until PCRE's match limit stops it (an error R turns into a
# warning and NA: the pattern then matched nothing, silently). Not a test;
# results go into bench/README.md.
#
#   R_LIBS=.rlib Rscript bench/patterns.R

suppressPackageStartupMessages(library(profile))

# A profile of `n_functions` functions named n - k `a`s and a `b` (k = 0, 1,
# ...), and 1000 samples, each with a stack of 5 of them.
a_names_profile <- function(n, n_functions = 20L, n_samples = 1000L) {
  names <- vapply(seq_len(n_functions) - 1L, function(k) paste0(strrep("a", n - k), "b"), "")
  set.seed(1)
  depth <- 5L
  frames <- sample.int(n_functions, n_samples * depth, replace = TRUE)
  new_profile_v2(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(
      source_id = 1L, source_type = "manual", source_uri = NA_character_, source_timestamp = NA_real_
    ),
    samples = tibble::tibble(sample_id = seq_len(n_samples), source_id = 1L),
    sample_values = tibble::tibble(sample_id = seq_len(n_samples), type = "samples", unit = "count", value = 1),
    sample_locations = tibble::tibble(
      sample_id = rep(seq_len(n_samples), each = depth),
      depth = rep(seq_len(depth), n_samples),
      location_id = frames
    ),
    locations = tibble::tibble(location_id = seq_len(n_functions), function_id = seq_len(n_functions), line = 0L),
    functions = tibble::tibble(
      function_id = seq_len(n_functions), name = names, system_name = names, filename = "", start_line = 0L
    )
  )
}

load_average <- function() paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")
cat(sprintf(
  "%s, R %s, profile %s, %d cores, load average %s\n\n", format(Sys.time(), "%Y-%m-%d %H:%M"),
  getRversion(), utils::packageVersion("profile"), parallel::detectCores(), load_average()
))

# Besides "(a+)+$" (which the regex crate may answer from the end of each name,
# where the `b` is), "(a+)+c" has to scan every name to the end, and "^x" is
# the cost of the verb without matching (the name does not start with x).
patterns <- c(pathological = "(a+)+$", scanning = "(a+)+c", baseline = "^x")
sizes <- c(1e4, 2e4, 4e4, 8e4, 1.6e5, 3.2e5, 6.4e5)
rows <- lapply(sizes, function(n) {
  x <- a_names_profile(n)
  chars <- sum(nchar(x$functions$name))
  times <- vapply(patterns, function(pattern) {
    # no name matches: each ends in b
    result <- suppressWarnings(profile_focus(x, pattern), classes = "profile_warning_no_match")
    stopifnot(nrow(result$samples) == 0L)
    m <- bench::mark(
      suppressWarnings(profile_focus(x, pattern), classes = "profile_warning_no_match"),
      min_iterations = 7, check = FALSE, filter_gc = FALSE
    )
    as.numeric(m$median) * 1000
  }, 1)
  data.frame(
    name_length = n, characters = chars,
    pathological_ms = times[["pathological"]], scanning_ms = times[["scanning"]],
    baseline_ms = times[["baseline"]],
    scanning_ns_per_char = (times[["scanning"]] - times[["baseline"]]) * 1e6 / chars
  )
})
table <- do.call(rbind, rows)
print(table, row.names = FALSE, digits = 3)

cat("\nPCRE (grepl(perl = TRUE), what 2.1 matched with) on one name of n `a`s and a `b`:\n")
pcre <- lapply(c(12, 16, 18, 20, 22, 1e4), function(n) {
  name <- paste0(strrep("a", n), "b")
  warning <- NA_character_
  seconds <- system.time(result <- withCallingHandlers(
    grepl("(a+)+$", name, perl = TRUE),
    warning = function(w) {
      warning <<- gsub("\\s+", " ", conditionMessage(w))
      invokeRestart("muffleWarning")
    }
  ))[["elapsed"]]
  data.frame(n = n, seconds = seconds, result = result, warning = warning)
})
print(do.call(rbind, pcre), row.names = FALSE)
cat("\nload average after:", load_average(), "\n")
