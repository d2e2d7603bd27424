# Profiles of known counts for the tests of profile_compare() (test-compare.R,
# test-compare-stats.R), and real recordings of a slow and a fast version of
# one function (test-compare.R, test-view-compare.R).

# A profile of one source per column of `counts` (functions by runs): each
# sample one tick of `main` calling the row's function, `value` each (bytes of
# `values`, a list per column of a value per sample, when given).
counts_profile <- function(counts, names = paste0("f", seq_len(nrow(counts))), values = NULL) {
  runs <- ncol(counts)
  fun <- unlist(lapply(seq_len(runs), function(r) rep(seq_len(nrow(counts)), counts[, r])))
  source <- rep(seq_len(runs), colSums(counts))
  n <- length(fun)
  value <- if (is.null(values)) rep(1, n) else unlist(values)
  new_profile_v2(
    meta = tibble::tibble(key = "version", value = "2.0"),
    sources = tibble::tibble(
      source_id = seq_len(runs), source_type = "manual",
      source_uri = paste0("run", seq_len(runs)), source_timestamp = NA_real_
    ),
    samples = tibble::tibble(sample_id = seq_len(n), source_id = source),
    sample_values = tibble::tibble(
      sample_id = seq_len(n), type = if (is.null(values)) "samples" else "alloc_space",
      unit = if (is.null(values)) "count" else "bytes", value = value
    ),
    sample_locations = tibble::tibble(
      sample_id = rep(seq_len(n), each = 2L), depth = rep(1:2, n),
      location_id = as.vector(rbind(fun + 1L, rep(1L, n)))
    ),
    locations = tibble::tibble(
      location_id = seq_len(nrow(counts) + 1L), function_id = seq_len(nrow(counts) + 1L), line = 0L
    ),
    functions = tibble::tibble(
      function_id = seq_len(nrow(counts) + 1L), name = c("main", names),
      system_name = c("main", names), filename = "", start_line = 0L
    )
  )
}

row_of <- function(cmp, name) cmp[cmp$name == name, , drop = FALSE]

format_header <- function(x) utils::capture.output(print(x))

# Real recordings with profile_record(): `work(k)` calls `spin_changed`, a loop
# of k * n steps, then five functions `same_a` .. `same_e` of n steps each;
# three runs of k = 1 (fast) and three of k = 2 (slow), in turns, so that both
# versions run under the same load of the machine. A list of the profiles of
# the fast and of the slow runs (a source per run) and the unchanged names.
record_slow_and_fast <- function(n = 2e7, runs = 3) {
  # compiled before the recording, so that no function's ticks are its own
  # compilation (R compiles a function at its first calls)
  env <- new.env()
  loop <- "function(n) { s <- 0; for (i in seq_len(n)) s <- s + i * 0.5; s }"
  same <- paste0("same_", letters[1:5])
  calls <- paste0(same, "(", n, ")", collapse = "; ")
  eval(parse(text = c(
    paste("spin_changed <-", loop), paste(same, "<-", loop),
    paste0("work <- function(k) { spin_changed(k * ", n, "); ", calls, " }")
  )), envir = env)
  for (f in c("spin_changed", same, "work")) {
    env[[f]] <- compiler::cmpfun(env[[f]])
  }
  record <- function(k) {
    env$k <- k
    # (ticks at 0.001 s come less often, which profile_record() says: the
    # comparison is of runs recorded alike, so the shortfall cancels out)
    withCallingHandlers(
      local(profile_record(work(k), interval = 0.001, memory = FALSE, line = FALSE), envir = env),
      profile_warning_under_counted = function(w) invokeRestart("muffleWarning")
    )
  }
  pairs <- lapply(seq_len(runs), function(i) list(fast = record(1), slow = record(2)))
  list(
    fast = do.call(combine_profiles, lapply(pairs, `[[`, "fast")),
    slow = do.call(combine_profiles, lapply(pairs, `[[`, "slow")),
    same = same
  )
}
