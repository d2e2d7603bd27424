#' Did it get slower? Compare runs with statistics
#'
#' `profile_compare()` compares the runs of `x` with those of `base`, function
#' by function (or line, or location), and marks a row as changed only when its
#' change is bigger than the noise: the run-to-run variation of the runs, or,
#' with one run a side, the profiler's sampling noise. Each source of a profile
#' is a run (several recordings go into one profile with [combine_profiles()],
#' or into a database with [profile_db_append()]).
#'
#' @param x,base Profiles (v2 `dm` or v1 `profile_data`): the runs to judge and
#'   the runs they are compared with. Neither may be a difference
#'   ([profile_diff()]). A database-backed profile ([profile_db_append()]) is
#'   collected into memory (choose its runs first, as
#'   `dm::dm_filter(db, sources = source_id %in% ids)`).
#' @param ... Must be empty.
#' @param by What a row stands for: `"function"`, `"location"`, `"line"` or
#'   `"source"`, as in [profile_summary()].
#' @param type The sample type compared (as in [profile_summary()]; by default
#'   `x`'s default type, `"time"` for Rprof profiles). `base` must have it, in
#'   the same unit.
#' @param value `"self"` (samples where the row is the innermost frame) or
#'   `"total"` (samples where it is on the stack).
#' @param level The confidence level of the intervals; `1 - level` is the false
#'   discovery rate of the rows marked.
#' @param threshold The smallest relative change marked (`0.1`: a change of at
#'   least 10 percent in either direction).
#' @section Statistics:
#' For each run, the row's value (its self or total value in the type's unit)
#' and the sum of the squares of the sample values it adds up are taken from
#' the samples.
#'
#' *Several runs* (at least three in all): a run's values share a factor, as
#' a busier or slower machine makes every function slower together. Each run's
#' factor is the median over rows of the run's value over the row's geometric
#' mean across all runs (the median of ratios of RNA-seq normalisation,
#' computed again without the rows found changed, so that a few real changes
#' do not move it; from rows of at least 10 samples' worth in every run), and
#' rows are compared on values divided by it. The error of the factors moves
#' every row of one side against the other alike: its variance (the median's,
#' from the spread of the rows' own side differences) is added to each row's.
#' With fewer than three rows seen in every run, runs are scaled within their
#' side only. The remaining noise of a row is its sampling noise (a count of timer ticks is
#' close to Poisson; a sum of byte values a compound Poisson, whose variance is
#' the sum of the squares of the values) plus a relative variance common to
#' all rows (`s + a m^2`, as a negative binomial's; `a` by the method of moments
#' over all rows). How much more (or less) a row varies than that, its
#' dispersion, is estimated from its runs and moderated across rows as limma
#' moderates variances (Smyth 2004: a scaled inverse chi-square prior fitted
#' to the rows, whose degrees of freedom are added to the row's), so that a row
#' seen in few runs is not over-confident. The row's change is tested by a
#' t statistic with each side's own variance (Welch-type) and those degrees of
#' freedom; p-values are adjusted for the rows compared by Benjamini and
#' Hochberg's method. With this, a function 1.5 times slower at 120 timer
#' ticks a run is found in 98 percent of comparisons of 5 runs a side whose
#' speed varies by 15 percent, where a t-test per function on the raw values
#' finds it in 38 percent, and comparisons of runs of one program mark a row
#' in at most `1 - level` of them (`bench/compare.R`, results in
#' `bench/README.md`). A change common to every function cannot be told from
#' a slower machine in the rows: it shows in the totals. The factors are
#' known better the more functions a run has; record the two versions in
#' turns (a, b, a, b, ...) so that both meet the same load.
#'
#' *One run a side*: the variation between runs cannot be known, only the
#' sampling noise; the printed header says so. Counts of ticks (every sample
#' of the type has the same value) are compared with the exact conditional
#' test of two Poisson rates (given their sum, x's count is binomial with
#' probability 1/2 when the rates are equal), with the interval of the
#' difference from Clopper and Pearson's interval of that probability; other
#' values with the normal approximation of two compound Poisson sums.
#'
#' Intervals: a row marked has its interval at level `1 - R (1 - level) / m`
#' (R rows marked by Benjamini-Hochberg of m compared), which keeps the share
#' of marked rows whose interval misses the truth below `1 - level` (the false
#' coverage rate of Benjamini and Yekutieli 2005) and excludes 0; other rows
#' at `level`. A row is marked when its adjusted p-value is at most
#' `1 - level` and its relative change (`x` over `base` at equal run speed) is
#' at least `threshold`.
#'
#' The totals (each run's whole value, samples without frames included) are
#' compared on the raw values, by Welch's t-test with several runs (the run
#' factor is not taken out of them: a slower machine and a slower program look
#' the same in a total), and printed first.
#'
#' @section Columns:
#' `delta`, `base` and `x` are the raw means per run, so that with the same
#' number of runs a side, `delta` times the runs is the row's value in
#' `profile_summary(profile_diff(x, base))`. With several runs, `lower` and
#' `upper` bound the change at equal run speed, `delta_normalized` (the sides'
#' means after each run's factor is taken out); the two differ by the sides'
#' speed difference, printed in the header (`attr(, "speed")`), and are equal
#' with one run a side.
#' @return A tibble of class `profile_comparison`: the columns that identify a
#'   row (as [profile_summary()]'s for `by`), `base`, `x`, `delta`, `ratio`
#'   (`x / base`), `lower`, `upper`, `p_value` (adjusted), `change`
#'   (`"increase"`, `"decrease"` or `"none"`) and `delta_normalized`, changed
#'   rows first, then by p-value and size of the change. Attributes:
#'   `sample_type`, `unit`, `by`, `value`, `level`, `threshold`, `runs` (of x
#'   and base), `method` (`"runs"` or `"sampling"`), `speed` and `totals` (a
#'   data frame of one row, the totals compared). It prints a header and the
#'   changed rows in human units; `plot()` draws the changed rows' intervals.
#' @seealso [profile_view()] with `base`: the flame graph of `x` with each
#'   frame in the colour of its function's change, and this table beside it.
#' @export
#' @examples
#' rprof <- function(file) read_rprof(system.file("samples/rprof", file, package = "profile"))
#' # each source a run: three runs a side
#' base <- combine_profiles(rprof("1.out"), rprof("all.out"), rprof("line.out"))
#' x <- combine_profiles(rprof("1.out"), rprof("1.out"), rprof("all.out"))
#' cmp <- profile_compare(x, base)
#' cmp
#' tibble::as_tibble(cmp)
#' plot(cmp)
#'
#' # a profile compared with itself: nothing changed
#' all(profile_compare(base, base)$change == "none")
#'
#' # one run a side: the profiler's sampling noise only
#' profile_compare(rprof("1.out"), rprof("all.out"), by = "location", threshold = 0.2)
profile_compare <- function(x, base, ..., by = c("function", "location", "line", "source"),
                            type = NULL, value = c("self", "total"), level = 0.95,
                            threshold = 0) {
  by <- check_choice(by, c("function", "location", "line", "source"), "by")
  value <- check_choice(value, c("self", "total"), "value")
  check_compare_args(...length(), level, threshold)
  call <- rlang::current_env()
  with_profile_errors("invalid", "Can't compare {.arg x} with {.arg base}.", {
    x_parts <- compare_parts(x, "x", call)
    base_parts <- compare_parts(base, "base", call)
    sample_type <- choose_sample_type(x_parts, type, call = call)
    base_type <- choose_sample_type(base_parts, sample_type$type, call = call)
    if (!identical(base_type$unit, sample_type$unit)) {
      abort_argument(
        paste(
          "Sample type {.val {type}} is in {.val {x_unit}} in {.arg x}",
          "but in {.val {b_unit}} in {.arg base}."
        ),
        type = sample_type$type, x_unit = sample_type$unit, b_unit = base_type$unit, call = call
      )
    }
    sides <- list(
      x = run_values(x_parts, sample_type$type, by, value, "x", call),
      base = run_values(base_parts, sample_type$type, by, value, "base", call)
    )
    comparison_table(sides, sample_type, by, value, level, threshold)
  })
}

check_compare_args <- function(n_dots, level, threshold, call = rlang::caller_env()) {
  if (n_dots > 0L) {
    abort_argument("{.arg ...} must be empty.", call = call)
  }
  number <- function(v) is.numeric(v) && length(v) == 1L && !is.na(v)
  if (!number(level) || level <= 0 || level >= 1) {
    abort_argument("{.arg level} must be a single number between 0 and 1.", call = call)
  }
  if (!number(threshold) || threshold < 0) {
    abort_argument("{.arg threshold} must be a single number >= 0.", call = call)
  }
}

# The summary parts of one side, refusing what cannot be compared. A
# database-backed profile is collected: its runs are compared in memory.
compare_parts <- function(x, arg, call) {
  if (is_db_profile(x)) {
    x <- dm::collect(x)
  }
  parts <- summary_parts(x, call = call)
  if (length(parts$base_samples) > 0L) {
    abort_argument(
      "{.arg {arg}} is a difference ({.fn profile_diff}): compare the profiles it was made of.",
      arg = arg, call = call
    )
  }
  parts
}

# One side's rows (a data frame of the row's identifying columns) and, per
# run, the rows' values and sums of squared sample values (matrices, a column
# per run), the runs' totals and squared totals, and the sample value common
# to every sample of the type (NULL when they differ).
run_values <- function(parts, type, by, value, arg, call) {
  frames <- location_frames(parts)
  grouping <- summary_groups(frames, by)
  n_keys <- vctrs::vec_size(grouping$groups)
  derived <- parts$derived
  is_derived <- !is.null(derived) && identical(type, derived$type)
  from <- if (is_derived) derived$from else type
  values <- parts$values
  of_type <- values$type == from
  at <- match(values$sample_id[of_type], parts$samples$sample_id)
  sample_source <- parts$samples$source_id[at]
  factor <- rep(1, length(sample_source))
  if (is_derived) {
    factor <- derived$factor[match(sample_source, derived$source_id)]
  }
  scaled <- values$value[of_type] * factor
  runs <- unique(sample_source[!is.na(sample_source) & !is.na(scaled)])
  if (length(runs) == 0L) {
    abort_argument("{.arg {arg}} has no samples of type {.val {type}}.",
      arg = arg, type = type, call = call
    )
  }
  squared <- parts
  squared$values$value <- values$value^2
  if (is_derived) {
    squared$derived$factor <- derived$factor^2
  }
  per_run <- lapply(runs, function(run) {
    keep <- parts$samples$source_id == run
    one <- frame_key_totals(only_samples(parts, keep), type, grouping$key, n_keys, call = call)
    two <- frame_key_totals(only_samples(squared, keep), type, grouping$key, n_keys, call = call)
    list(
      self = one$self_value, total = one$total, self_squares = two$self_value,
      total_squares = two$total, grand_total = one$grand_total, grand_square = two$grand_total
    )
  })
  common <- unique(scaled[!is.na(sample_source)])
  list(
    groups = grouping$groups, runs = runs,
    self = do.call(cbind, lapply(per_run, `[[`, "self")),
    self_squares = do.call(cbind, lapply(per_run, `[[`, "self_squares")),
    total = do.call(cbind, lapply(per_run, `[[`, "total")),
    total_squares = do.call(cbind, lapply(per_run, `[[`, "total_squares")),
    grand_totals = vapply(per_run, `[[`, 0, "grand_total"),
    grand_squares = vapply(per_run, `[[`, 0, "grand_square"),
    common_value = if (length(common) == 1L) common
  )
}

# The parts of the samples `keep` (of parts$samples) only.
only_samples <- function(parts, keep) {
  parts$samples <- parts$samples[keep, , drop = FALSE]
  ids <- parts$samples$sample_id
  parts$stack <- parts$stack[parts$stack$sample_id %in% ids, , drop = FALSE]
  parts$values <- parts$values[parts$values$sample_id %in% ids, , drop = FALSE]
  parts
}

# The two sides' rows on one list of rows, compared.
comparison_table <- function(sides, sample_type, by, value, level, threshold) {
  groups <- vctrs::vec_unique(vctrs::vec_rbind(sides$x$groups, sides$base$groups))
  place <- function(side, what) {
    out <- matrix(0, vctrs::vec_size(groups), ncol(side[[what]]))
    out[vctrs::vec_match(side$groups, groups), ] <- side[[what]]
    out
  }
  both <- function(what) cbind(place(sides$x, what), place(sides$base, what))
  sums <- both(value)
  squares <- both(paste0(value, "_squares"))
  self <- both("self")
  self_squares <- both("self_squares")
  is_x <- rep(c(TRUE, FALSE), c(length(sides$x$runs), length(sides$base$runs)))
  seen <- rowSums(sums != 0) > 0
  groups <- groups[seen, , drop = FALSE]
  counts <- sides$x$common_value
  if (!identical(counts, sides$base$common_value)) {
    counts <- NULL
  }
  rows <- compare_rows(sums[seen, , drop = FALSE], squares[seen, , drop = FALSE], is_x,
    counts = counts, level = level, threshold = threshold, speed_sums = self[seen, , drop = FALSE],
    speed_squares = self_squares[seen, , drop = FALSE]
  )
  totals <- compare_totals(c(sides$x$grand_totals, sides$base$grand_totals),
    c(sides$x$grand_squares, sides$base$grand_squares), is_x,
    counts = counts, level = level
  )
  out <- vctrs::vec_cbind(groups, tibble::as_tibble(rows))
  rank <- order(out$change == "none", out$p_value, -abs(out$delta), method = "radix")
  out <- out[rank, , drop = FALSE]
  tibble::new_tibble(out,
    nrow = nrow(out), class = "profile_comparison",
    sample_type = sample_type$type, unit = sample_type$unit, by = by, value = value,
    level = level, threshold = threshold,
    runs = c(x = sum(is_x), base = sum(!is_x)), method = attr(rows, "method"),
    speed = attr(rows, "speed"), totals = totals
  )
}

#' @export
print.profile_comparison <- function(x, ..., n = 10) {
  cat(comparison_header(x), sep = "\n")
  changed <- x[x$change != "none", , drop = FALSE]
  if (nrow(changed) == 0L) {
    cat("No row changed more than the noise.\n")
  } else {
    shown <- utils::head(changed, n)
    lines <- paste0(
      format(comparison_labels(shown, attr(x, "by"))), "  ",
      change_text(shown$delta, shown$ratio, shown$lower, shown$upper, attr(x, "unit"),
        level = NULL
      )
    )
    cat(lines, sep = "\n")
    if (nrow(changed) > n) {
      cat(sprintf("... and %d more changed rows\n", nrow(changed) - n))
    }
  }
  cat("(every row: `tibble::as_tibble(x)`)\n")
  invisible(x)
}

# The header: what was compared, the totals, the noise accounted for.
comparison_header <- function(x) {
  runs <- attr(x, "runs")
  unit <- attr(x, "unit")
  level <- attr(x, "level")
  totals <- attr(x, "totals")
  per <- function(k) if (k == 1L) "1 run" else paste(k, "runs")
  noise <- if (identical(attr(x, "method"), "sampling")) {
    "sampling noise only (one run a side): run-to-run noise is not accounted for"
  } else {
    sprintf(
      "between runs; x's runs took %s times as long as base's overall (taken out of the rows)",
      format_number(signif(attr(x, "speed"), 3))
    )
  }
  n_changed <- sum(x$change != "none")
  c(
    sprintf(
      "Profile comparison of %s (%s), %s value by %s: x %s, base %s",
      attr(x, "sample_type"), unit, attr(x, "value"), attr(x, "by"),
      per(runs[["x"]]), per(runs[["base"]])
    ),
    sprintf(
      "Total per run: %s vs %s, %s, p = %s",
      format_amount(totals$x, unit), format_amount(totals$base, unit),
      change_text(totals$delta, totals$ratio, totals$lower, totals$upper, unit, level),
      format(signif(totals$p_value, 2))
    ),
    paste("Noise:", noise),
    sprintf(
      "Changed (adjusted p <= %s, |ratio - 1| >= %s): %d of %d rows",
      format(1 - level), format(attr(x, "threshold")), n_changed, nrow(x)
    )
  )
}

# "+0.84 s (+57 %, 95 % CI +0.61 to +1.07 s)"; `level` NULL: "CI" alone (the
# intervals of marked rows are at the level adjusted for selection).
change_text <- function(delta, ratio, lower, upper, unit, level) {
  # (to 12 digits: a mean of whole counts prints whole)
  signed <- function(v) paste0(ifelse(v > 0, "+", ""), format_amount(signif(v, 12), unit))
  percent <- ifelse(is.finite(ratio), sprintf("%+.0f %%", 100 * (ratio - 1)), "new")
  ci <- if (is.null(level)) "CI" else paste(format(100 * level), "% CI")
  sprintf("%s (%s, %s %s to %s)", signed(delta), percent, ci, signed(lower), signed(upper))
}

# A row's name as text: the function, "file:line", or both.
comparison_labels <- function(x, by) {
  where <- function() ifelse(x$line > 0, paste0(basename(x$filename), ":", x$line), x$filename)
  switch(by,
    "function" = x$name,
    location = ifelse(nzchar(where()), paste0(x$name, " (", where(), ")"), x$name),
    line = where(),
    source = ifelse(nzchar(x$filename), x$filename, "(no file)")
  )
}

#' @export
plot.profile_comparison <- function(x, y, ..., n = 20) {
  shown <- x[x$change != "none", , drop = FALSE]
  title <- "Changed rows"
  if (nrow(shown) == 0L) {
    shown <- x
    title <- "No row changed: the rows of smallest p-value"
  }
  shown <- utils::head(shown, n)
  shown <- shown[rev(seq_len(nrow(shown))), , drop = FALSE]
  labels <- comparison_labels(shown, attr(x, "by"))
  unit <- attr(x, "unit")
  at <- seq_len(nrow(shown))
  range <- range(0, shown$lower, shown$upper, finite = TRUE)
  colour <- c(increase = "#b2182b", decrease = "#2166ac", none = "grey55")[shown$change]
  old <- graphics::par(mar = c(4.5, max(4, max(nchar(labels)) * 0.55), 3, 1))
  on.exit(graphics::par(old))
  graphics::plot(shown$delta_normalized, at,
    xlim = range, ylim = c(0.5, max(at) + 0.5), yaxt = "n", pch = 19, col = colour,
    xlab = sprintf("change per run (%s, %s)", attr(x, "sample_type"), unit), ylab = "",
    main = title, ...
  )
  graphics::segments(shown$lower, at, shown$upper, at, col = colour, lwd = 2)
  graphics::abline(v = 0, lty = 2, col = "grey40")
  graphics::axis(2, at = at, labels = labels, las = 1, cex.axis = 0.8)
  invisible(x)
}
